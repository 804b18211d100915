/* unit_dict_resize_metadata.c -- unit tests of dict_entry_resize_metadata()
 * (steps/12-fast-path/dict.c), with which the fast path gives the timing
 * wheel's node only to the entries of keys that have a TTL: an entry is
 * reallocated at its new size and takes the old one's place. What is tested
 * is what dict.h promises: the key, the value and the metadata that stays are
 * kept, the bytes added are zero, the entry is found at its new address in
 * the same place of its chain, nothing else changes, and no memory is lost,
 * in one table and in the middle of a rehash. The metadata of entries that
 * all have the same size is tested in tests/06-timewheel/unit_dict_metadata.c. */
#include "dict.h"
#include "../helpers/dict_inspect.h"
#include "../helpers/dict_keys.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

/* The entries in the order a safe iterator returns them: table by table,
 * bucket by bucket, along each chain. Returns how many were written. */
static size_t entry_layout(dict *d, dict_entry **out, size_t cap) {
    dict_iter it;
    dict_iter_init(&it, d);
    size_t n = 0;
    for (dict_entry *de; (de = dict_iter_next(&it)) != NULL && n < cap;)
        out[n++] = de;
    dict_iter_release(&it);
    return n;
}

/* The position of de in a layout of n entries, or n if it is not there. */
static size_t position_of(dict_entry *const *layout, size_t n, const dict_entry *de) {
    size_t i = 0;
    while (i < n && layout[i] != de)
        i++;
    return i;
}

/* Resize key i's entry to `bytes` of metadata and check what dict.h promises:
 * the new entry is the one found, in the old one's place in the layout, with
 * the same key and value; its metadata is NULL for 0 bytes, otherwise 8-byte
 * aligned, its first `kept` bytes equal to `stamp` and the rest zero. */
static dict_entry *resize_and_check(dict *d, size_t i, size_t bytes, size_t kept,
                                    unsigned char stamp) {
    dict_entry *old = find_key(d, i); /* first: a find may do a rehash step */
    require_value(old, i, "find before resizing");
    size_t n = dict_size(d);
    dict_entry **before = malloc(n * sizeof(*before)), **after = malloc(n * sizeof(*after));
    ck_assert_uint_eq(entry_layout(d, before, n), n);
    size_t place = position_of(before, n, old);

    dict_entry *de = dict_entry_resize_metadata(d, old, bytes);

    if (de->metadata_bytes != bytes)
        ck_abort_msg("key:%zu resized to %zu bytes: expected metadata_bytes %zu, got %u", i, bytes,
                     bytes, (unsigned)de->metadata_bytes);
    ck_assert_uint_eq(dict_size(d), n);
    ck_assert_uint_eq(entry_layout(d, after, n), n);
    for (size_t j = 0; j < n; j++) {
        dict_entry *want = j == place ? de : before[j];
        if (after[j] != want)
            ck_abort_msg("key:%zu resized to %zu bytes: expected entry %zu of the layout to be "
                         "%p, got %p",
                         i, bytes, j, (void *)want, (void *)after[j]);
    }
    if (find_key(d, i) != de)
        ck_abort_msg("key:%zu resized to %zu bytes: expected the find to give the new entry %p, "
                     "got %p",
                     i, bytes, (void *)de, (void *)find_key(d, i));
    require_value(de, i, "find after resizing");
    unsigned char *m = dict_entry_metadata(de);
    if (bytes == 0) {
        if (m != NULL)
            ck_abort_msg("key:%zu resized to 0 bytes: expected no metadata (NULL), got %p", i,
                         (void *)m);
    } else {
        if ((uintptr_t)m % 8 != 0 || dict_entry_from_metadata(m) != de)
            ck_abort_msg("key:%zu resized to %zu bytes: expected 8-byte aligned metadata that "
                         "leads back to %p, got %p",
                         i, bytes, (void *)de, (void *)m);
        for (size_t b = 0; b < bytes; b++) {
            unsigned char want = b < kept ? stamp : 0;
            if (m[b] != want)
                ck_abort_msg("key:%zu resized to %zu bytes: expected metadata byte %zu to be "
                             "%u, got %u",
                             i, bytes, b, want, m[b]);
        }
        memset(m, stamp + 1, bytes); /* for the next resize to keep */
    }
    free(before);
    free(after);
    return de;
}

/* Every `every`-th key gains 24 bytes of metadata, then shrinks to 16 (keeping
 * 16), grows to 40 (keeping 16), and loses it all; the others never have
 * any. Done in one table and again while both tables hold entries, after
 * which every key is still found and, in one table (where no rehash step can
 * free a bucket array meanwhile), the memory is what it was. */
static void check_resizes(dict *d, size_t n, size_t every) {
    int one_table = !dict_is_rehashing(d);
    size_t memory = mem_used();
    for (size_t i = 0; i < n; i += every) {
        resize_and_check(d, i, 24, 0, 0);
        resize_and_check(d, i, 24, 24, 1); /* the same size: nothing moves */
        resize_and_check(d, i, 16, 16, 2);
        resize_and_check(d, i, 40, 16, 3);
        resize_and_check(d, i, 0, 0, 0);
    }
    for (size_t i = 0; i < n; i++)
        require_value(find_key(d, i), i, "find after the resizes");
    if (one_table && mem_used() != memory)
        ck_abort_msg("expected mem_used() %zu after every entry went back to no metadata, got %zu",
                     memory, mem_used());
}

START_TEST(test_resize_keeps_key_value_and_place) {
    dict *d = dict_create(0);
    add_keys(d, 0, 1000);
    finish_rehashing(d);
    check_resizes(d, 1000, 3);

    /* 4096 keys in 4096 buckets; the next add starts a grow, and some finds
     * move part of table[0] over, so both tables hold entries. */
    add_keys(d, 1000, 4096);
    finish_rehashing(d);
    add_keys(d, 4096, 4097);
    for (size_t i = 0; i < 1000; i++)
        find_key(d, i);
    ck_assert_int_eq(dict_is_rehashing(d), 1);
    check_resizes(d, 4097, 37); /* few: each check walks every entry */
    dict_free(d, NULL);
}
END_TEST

/* An entry that has metadata is freed with it: deleting it, or freeing the
 * dict, gives back all the memory. */
START_TEST(test_entries_with_metadata_are_freed) {
    size_t memory = mem_used();
    dict *d = dict_create(0);
    add_keys(d, 0, 100);
    for (size_t i = 0; i < 100; i += 2)
        dict_entry_resize_metadata(d, find_key(d, i), 24);
    for (size_t i = 0; i < 50; i++)
        dict_delete_entry(d, find_key(d, i));
    ck_assert_uint_eq(dict_size(d), 50);
    dict_free(d, NULL);
    if (mem_used() != memory)
        ck_abort_msg("expected mem_used() %zu after dict_free(), got %zu", memory, mem_used());
}
END_TEST

int main(void) {
    Suite *s = suite_create("12-fast-path: dict metadata resize");
    TCase *tc = tcase_create("resize");
    tcase_add_checked_fixture(tc, use_test_seed, NULL);
    tcase_add_test(tc, test_resize_keeps_key_value_and_place);
    tcase_add_test(tc, test_entries_with_metadata_are_freed);
    suite_add_tcase(s, tc);
    SRunner *runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* unit_dict_delete.c -- unit tests of dict_delete(), which chapter 03 adds
 * to the hash table (steps/03-del/dict.c): unlinking and freeing the entry
 * of a key, on binary keys, in the middle of a rehash and through the
 * shrinks that deletions start. The rest of the table is tested in
 * tests/02-get-set/unit_dict.c. The walk over every entry is the tests' own
 * (tests/helpers/dict_inspect.h), which compiles dict.c in here.
 *
 * Environment: DICT_TEST_KEYS overrides the size of the big test (default
 * 1,000,000), so that a run under valgrind can use fewer keys. */
#include "dict.h"
#include "../helpers/dict_inspect.h"
#include "../helpers/dict_keys.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

#ifdef __APPLE__
#include <malloc/malloc.h>
#define usable_size(p) malloc_size(p)
#else
#include <malloc.h>
#define usable_size(p) malloc_usable_size(p)
#endif

/* ============================ Helpers ============================ */

/* Delete key i, which must be present with val_for(i). Like ck_assert_*_eq,
 * it says what was expected and what came back, but costs nothing unless it
 * fails (ck_assert() is slow in fork mode, and this runs a million times). */
static void delete_key(dict *d, size_t i) {
    char key[32];
    size_t len = make_key(key, i);
    int found = -1;
    void *val = dict_delete(d, key, len, &found);
    if (found != 1 || val != val_for(i))
        ck_abort_msg("dict_delete of present key:%zu: expected found=1 and value %p, got "
                     "found=%d and value %p",
                     i, val_for(i), found, val);
}

static size_t test_key_count(void) {
    const char *s = getenv("DICT_TEST_KEYS");
    if (s == NULL || *s == '\0') return 1000000;
    size_t n = (size_t)strtoull(s, NULL, 10);
    return n < 10000 ? 10000 : n; /* fewer would skip the mid-shrink checks */
}

/* ============================ Tests ============================ */

/* Deleting hands back the value and reports the key found; deleting a
 * missing key reports it missing and changes nothing. Keys are bytes: the
 * empty key is one, and deleting it leaves "\0" alone. */
START_TEST(test_delete_binary_and_missing_keys) {
    dict *d = dict_create();
    ck_assert_ptr_nonnull(dict_add(d, "", 0, val_for(0)));
    ck_assert_ptr_nonnull(dict_add(d, "\0", 1, val_for(1)));
    ck_assert_ptr_nonnull(dict_add(d, "a\r\nb", 4, val_for(2)));

    int found = -1;
    ck_assert_ptr_null(dict_delete(d, "nope", 4, &found));
    ck_assert_int_eq(found, 0);
    ck_assert_ptr_null(dict_delete(d, "nope", 4, NULL));
    ck_assert_ptr_null(dict_delete(d, "a\r\n", 3, &found)); /* a prefix is another key */
    ck_assert_int_eq(found, 0);
    ck_assert_uint_eq(dict_size(d), 3);

    ck_assert_ptr_eq(dict_delete(d, "", 0, &found), val_for(0));
    ck_assert_int_eq(found, 1);
    ck_assert_ptr_null(dict_find(d, "", 0));
    ck_assert_ptr_nonnull(dict_find(d, "\0", 1)); /* a different key */
    ck_assert_ptr_eq(dict_delete(d, "a\r\nb", 4, NULL), val_for(2));
    ck_assert_ptr_null(dict_delete(d, "a\r\nb", 4, &found)); /* only once */
    ck_assert_int_eq(found, 0);
    ck_assert_uint_eq(dict_size(d), 1);
    dict_free(d, NULL);
}
END_TEST

/* The entry is one block (header and key bytes): deleting the key frees it,
 * so mem_used() comes back to exactly what it was before the add. An entry
 * unlinked but never freed, or a key kept in a second block, fails here. */
START_TEST(test_delete_frees_the_entry) {
    dict *d = dict_create();
    size_t empty = mem_used();
    dict_entry *de = dict_add(d, "0123456789abcdef", 16, NULL);
    ck_assert_uint_eq(mem_used() - empty, usable_size(de));
    int found = -1;
    dict_delete(d, "0123456789abcdef", 16, &found);
    ck_assert_int_eq(found, 1);
    ck_assert_uint_eq(mem_used(), empty);
    dict_free(d, NULL);
}
END_TEST

/* A walk of both tables in the middle of a shrink meets every live key
 * [live_from, live_to) exactly once (a key in both tables or in neither is
 * caught), and each is then findable. */
static void check_mid_shrink(dict *d, size_t live_from, size_t live_to, unsigned char *seen) {
    ck_assert_int_eq(dict_is_rehashing(d), 1);
    memset(seen + live_from, 0, live_to - live_from);
    dict_iter it;
    dict_iter_init(&it, d);
    size_t visited = 0;
    for (dict_entry *de; (de = dict_iter_next(&it)) != NULL; visited++) {
        size_t i = key_index(de);
        if (i < live_from || i >= live_to)
            ck_abort_msg("walk: expected a live key in [%zu, %zu), got key:%zu", live_from, live_to,
                         i);
        if (seen[i]) ck_abort_msg("walk: expected key:%zu once, got it twice", i);
        seen[i] = 1;
    }
    dict_iter_release(&it);
    ck_assert_uint_eq(visited, live_to - live_from);
    for (size_t i = live_from; i < live_to; i++)
        require_value(find_key(d, i), i, "live key mid-shrink");
    for (size_t i = 0; i < live_from; i += 97)
        require_absent(find_key(d, i), i, "deleted key mid-shrink");
}

/* A million keys in, then out one by one, with the check above part-way
 * through each shrink: a shrink starts below 1/8 full and moves about one
 * bucket per operation while the operations delete keys, so a third of the
 * way in is mid-rehash. At the end the table is back to its 4 buckets. */
START_TEST(test_million_keys_out) {
    size_t n = test_key_count();
    unsigned char *seen = calloc(n, 1);
    dict *d = dict_create();
    add_keys(d, 0, n);
    finish_rehashing(d);
    size_t full_buckets = dict_bucket_count(d);

    size_t shrink_checks = 0, rehash_began = 0, last_checked_buckets = 0;
    int was_rehashing = 0;
    char key[32];
    for (size_t i = 0; i < n; i++) {
        delete_key(d, i);
        if (dict_size(d) != n - i - 1)
            ck_abort_msg("size after deleting key:%zu: expected %zu, got %zu", i, n - i - 1,
                         dict_size(d));
        int rehashing = dict_is_rehashing(d);
        if (rehashing && !was_rehashing) rehash_began = i;
        was_rehashing = rehashing;
        size_t buckets = dict_bucket_count(d);
        if (rehashing && n - i - 1 >= 100 && buckets != last_checked_buckets &&
            i - rehash_began >= (n - i) / 2) {
            check_mid_shrink(d, i + 1, n, seen);
            last_checked_buckets = buckets;
            shrink_checks++;
        }
        if (i % 1009 == 0) {
            size_t len = make_key(key, i);
            int found = -1;
            dict_delete(d, key, len, &found);
            if (found != 0)
                ck_abort_msg("second delete of key:%zu: expected found=0, got %d", i, found);
        }
    }
    ck_assert_uint_ge(shrink_checks, 1);
    ck_assert_uint_eq(dict_size(d), 0);
    finish_rehashing(d);
    ck_assert_uint_lt(dict_bucket_count(d), full_buckets);
    ck_assert_uint_eq(dict_bucket_count(d), 4); /* shrunk all the way back */
    dict_free(d, NULL);
    free(seen);
}
END_TEST

/* A deletion starts a shrink only below 1/8 full, and the new size leaves
 * the table about half full: 4,096 keys fill 4,096 buckets, so deleting
 * down to 512 (1/8) does not shrink, one more does, to 1,024 buckets. */
START_TEST(test_shrink_threshold) {
    dict *d = dict_create();
    add_keys(d, 0, 4096);
    finish_rehashing(d);
    ck_assert_uint_eq(dict_bucket_count(d), 4096);
    for (size_t i = 0; i < 3584; i++)
        delete_key(d, i);
    ck_assert_int_eq(dict_is_rehashing(d), 0);
    ck_assert_uint_eq(dict_bucket_count(d), 4096);
    delete_key(d, 3584);
    ck_assert_int_eq(dict_is_rehashing(d), 1);
    ck_assert_uint_eq(dict_bucket_count(d), 4096 + 1024);
    finish_rehashing(d);
    ck_assert_uint_eq(dict_bucket_count(d), 1024);
    for (size_t i = 3585; i < 4096; i++)
        require_value(find_key(d, i), i, "kept through the shrink");
    dict_free(d, NULL);
}
END_TEST

int main(void) {
    Suite *s = suite_create("03-del: dict_delete");
    TCase *tc = tcase_create("delete by name");
    tcase_add_checked_fixture(tc, use_test_seed, NULL);
    tcase_set_timeout(tc, 120); /* the million-key test; seconds */
    tcase_add_test(tc, test_delete_binary_and_missing_keys);
    tcase_add_test(tc, test_delete_frees_the_entry);
    tcase_add_test(tc, test_shrink_threshold);
    tcase_add_test(tc, test_million_keys_out);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

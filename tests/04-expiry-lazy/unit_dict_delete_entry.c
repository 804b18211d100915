/* unit_dict_delete_entry.c -- unit tests of dict_delete_entry(), which
 * chapter 04 adds to the hash table (steps/04-expiry-lazy/dict.c): removing
 * an entry the caller holds a pointer to, the way the keyspace does, on its
 * own, in the middle of a rehash, and entry after entry of a walk of both
 * tables. The rest of the table is tested in tests/02-get-set/unit_dict.c
 * and tests/03-del/unit_dict_delete.c. The walk is the tests' own
 * (tests/helpers/dict_inspect.h), which compiles dict.c in here. */
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

/* Loop-friendly checks (ck_assert() is slow in fork mode); like
 * ck_assert_*_eq, they say what was expected and what came back. */
static void require_entry_value(const dict_entry *de, const void *want, size_t i,
                                const char *when) {
    if (de == NULL) ck_abort_msg("%s: key:%zu expected with value %p, got no entry", when, i, want);
    if (de->val != want)
        ck_abort_msg("%s: key:%zu expected with value %p, got value %p", when, i, want, de->val);
}

/* ============================ Tests ============================ */

/* dict_delete_entry() unlinks and frees the entry (one block: mem_used()
 * drops by exactly its size) but not the value, which stays the caller's:
 * the values here are malloc()ed and freed by the test, so a dict that freed
 * them too would be a double free under valgrind. The empty key works like
 * any other, and the other keys are left alone. */
START_TEST(test_delete_entry_keeps_the_value) {
    dict *d = dict_create();
    char key[32];
    for (size_t i = 0; i < 100; i++) {
        size_t len = make_key(key, i);
        ck_assert_ptr_nonnull(dict_add(d, key, len, malloc(8)));
    }
    ck_assert_ptr_nonnull(dict_add(d, "", 0, malloc(8)));

    for (size_t i = 0; i < 100; i += 2) {
        dict_entry *de = find_key(d, i);
        ck_assert_ptr_nonnull(de);
        void *val = de->val;
        size_t memory = mem_used(), block = usable_size(de);
        dict_delete_entry(d, de);
        ck_assert_uint_eq(memory - mem_used(), block);
        free(val);
        require_absent(find_key(d, i), i, "after dict_delete_entry");
    }
    ck_assert_uint_eq(dict_size(d), 51);

    dict_entry *empty = dict_find(d, "", 0);
    ck_assert_ptr_nonnull(empty);
    void *val = empty->val;
    dict_delete_entry(d, empty);
    free(val);
    ck_assert_ptr_null(dict_find(d, "", 0));
    ck_assert_uint_eq(dict_size(d), 50);
    for (size_t i = 1; i < 100; i += 2)
        ck_assert_ptr_nonnull(find_key(d, i));
    dict_free(d, free);
}
END_TEST

/* Entries are reached through pointers kept from before a grow started, in
 * the middle of it: some have moved to the new table, some not, and the
 * entry must be unlinked from whichever holds it. A version that looked only
 * in table[0], or in the bucket the key had before the move, leaves a
 * dangling entry behind (found again below, or read after free under
 * valgrind). */
START_TEST(test_delete_entry_mid_rehash) {
    dict *d = dict_create();
    const size_t n = 4096; /* a power of two: the next add starts a grow */
    add_keys(d, 0, n);
    finish_rehashing(d);
    dict_entry **kept = malloc(n * sizeof(*kept));
    for (size_t i = 0; i < n; i++)
        kept[i] = find_key(d, i);
    add_keys(d, n, n + 1);
    for (size_t i = 0; i < 1000; i++) /* move part of table[0] over */
        find_key(d, n);
    ck_assert_int_eq(dict_is_rehashing(d), 1);

    for (size_t i = 0; i < n; i += 3)
        dict_delete_entry(d, kept[i]);
    ck_assert_uint_eq(dict_size(d), n + 1 - (n + 2) / 3);
    finish_rehashing(d);
    for (size_t i = 0; i < n; i++) {
        if (i % 3 == 0)
            require_absent(find_key(d, i), i, "deleted by pointer mid-rehash");
        else
            require_entry_value(find_key(d, i), val_for(i), i, "kept through the rehash");
    }
    free(kept);
    dict_free(d, NULL);
}
END_TEST

/* Entries deleted one after the other in table order, in the middle of a
 * rehash whose steps those deletions take, the entry given by a walk or the
 * one a fresh lookup finds: every entry of the walk is deleted exactly once
 * and the others stay. */
START_TEST(test_iter_delete_current) {
    dict *d = dict_create();
    const size_t n = 4096; /* a power of two: the last add starts a grow */
    add_keys(d, 0, n);
    finish_rehashing(d);
    add_keys(d, n, n + 1);
    ck_assert_int_eq(dict_is_rehashing(d), 1);
    size_t total = n + 1;

    unsigned char *seen = calloc(total, 1);
    dict_iter it;
    dict_iter_init(&it, d);
    size_t visited = 0, deleted = 0;
    for (dict_entry *de; (de = dict_iter_next(&it)) != NULL; visited++) {
        size_t i = key_index(de);
        if (seen[i]) ck_abort_msg("iterator: expected key:%zu once, got it twice", i);
        seen[i] = 1;
        if (i % 3 == 0) {
            dict_delete_entry(d, de);
            deleted++;
        } else if (i % 3 == 1) {
            dict_delete_entry(d, find_key(d, i));
            deleted++;
        }
    }
    dict_iter_release(&it);
    ck_assert_uint_eq(visited, total);
    ck_assert_uint_eq(dict_size(d), total - deleted);
    for (size_t i = 0; i < total; i++) {
        if (i % 3 == 2)
            require_entry_value(find_key(d, i), val_for(i), i, "survivor (i % 3 == 2)");
        else
            require_absent(find_key(d, i), i, "deleted during the walk");
    }

    /* Deleting every entry of a walk empties the dict. */
    dict_iter_init(&it, d);
    for (dict_entry *de; (de = dict_iter_next(&it)) != NULL;)
        dict_delete_entry(d, de);
    dict_iter_release(&it);
    ck_assert_uint_eq(dict_size(d), 0);
    dict_iter_init(&it, d);
    ck_assert_ptr_null(dict_iter_next(&it));
    dict_iter_release(&it);
    dict_free(d, NULL);
    free(seen);
}
END_TEST

int main(void) {
    Suite *s = suite_create("04-expiry-lazy: dict_delete_entry");
    TCase *tc = tcase_create("delete by pointer");
    tcase_add_checked_fixture(tc, use_test_seed, NULL);
    tcase_add_test(tc, test_delete_entry_keeps_the_value);
    tcase_add_test(tc, test_delete_entry_mid_rehash);
    tcase_add_test(tc, test_iter_delete_current);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

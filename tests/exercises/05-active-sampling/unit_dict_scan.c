/* unit_dict_scan.c -- unit tests of dict_scan(), the cursor scan that
 * exercise 3 of chapter 05 adds to the hash table (docs/solutions/
 * 05-active-sampling-ex3.patch): every key present for a whole scan is
 * visited while the table grows or shrinks under it, and a callback may
 * delete the entry it is given. The exercise's grader (ex3.bats) builds it
 * against the dict.c of the server it grades. The rest of the table is
 * tested in tests/02-get-set/unit_dict.c and the chapters after it. */
#include "dict.h"
#include "../../helpers/dict_keys.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ============================ Helpers ============================ */

/* Every key in [from, to) must have been visited. */
static void require_all_seen(const unsigned char *seen, size_t from, size_t to, const char *what) {
    for (size_t i = from; i < to; i++)
        if (!seen[i])
            ck_abort_msg("%s: expected key:%zu visited by the scan, got no visit", what, i);
}

/* A scan's record of what it saw. */
typedef struct scan_record {
    unsigned char *seen; /* seen[i] != 0 once key i was visited */
    dict *d;             /* the dict, for callbacks that delete */
} scan_record;

static void record_key(dict_entry *de, void *ctx) {
    scan_record *rec = ctx;
    rec->seen[key_index(de)] = 1;
}

static void record_and_delete(dict_entry *de, void *ctx) {
    scan_record *rec = ctx;
    rec->seen[key_index(de)] = 1;
    dict_delete_entry(rec->d, de);
}

/* ============================ Tests ============================ */

static void count_visit(dict_entry *de, void *ctx) {
    unsigned char *visits = ctx;
    visits[key_index(de)]++;
}

/* With no rehash under way and nothing added or deleted, each call visits
 * exactly one bucket, so a whole scan takes one call per bucket and meets
 * every key exactly once (a scan may repeat keys only when the table
 * changes size under it). */
START_TEST(test_scan_of_a_still_table) {
    const size_t n = 5000;
    dict *d = dict_create();
    unsigned char *visits = calloc(n, 1);
    add_keys(d, 0, n);
    finish_rehashing(d);
    size_t calls = 0;
    uint64_t cursor = 0;
    do {
        cursor = dict_scan(d, cursor, count_visit, visits);
        calls++;
    } while (cursor != 0);
    ck_assert_uint_eq(calls, dict_bucket_count(d));
    for (size_t i = 0; i < n; i++)
        if (visits[i] != 1) ck_abort_msg("key:%zu: expected 1 visit, got %d", i, visits[i]);
    ck_assert_uint_eq(dict_size(d), n);
    dict_free(d, NULL);
    free(visits);
}
END_TEST

/* Keys present for the whole scan must all be visited while the table grows
 * several times (2048 buckets to 32768), with scan calls landing in the middle
 * of rehashes. A scan in plain bucket order would miss keys here. */
START_TEST(test_scan_across_grow) {
    const size_t originals = 1000, total = 21000;
    dict *d = dict_create();
    unsigned char *seen = calloc(total, 1);
    scan_record rec = {seen, d};
    add_keys(d, 0, originals);
    finish_rehashing(d);

    size_t next_key = originals, calls = 0, calls_mid_rehash = 0;
    uint64_t cursor = 0;
    do {
        if (dict_is_rehashing(d)) calls_mid_rehash++;
        cursor = dict_scan(d, cursor, record_key, &rec);
        calls++;
        size_t stop = next_key + 50 < total ? next_key + 50 : total;
        add_keys(d, next_key, stop);
        next_key = stop;
    } while (cursor != 0);

    require_all_seen(seen, 0, originals, "original key, across grows");
    ck_assert_uint_gt(calls_mid_rehash, 0);
    ck_assert_uint_gt(dict_bucket_count(d), 4096); /* it grew while we scanned */
    ck_assert_uint_gt(calls, 10);
    dict_free(d, NULL);
    free(seen);
}
END_TEST

/* The same while the table shrinks: 20000 keys, of which the first 500 stay
 * and the rest are deleted as the scan goes. */
START_TEST(test_scan_across_shrink) {
    const size_t kept = 500, total = 20000;
    dict *d = dict_create();
    unsigned char *seen = calloc(total, 1);
    scan_record rec = {seen, d};
    add_keys(d, 0, total);
    finish_rehashing(d);
    size_t buckets_before = dict_bucket_count(d);

    size_t next_delete = kept, calls_mid_rehash = 0;
    uint64_t cursor = 0;
    do {
        if (dict_is_rehashing(d)) calls_mid_rehash++;
        cursor = dict_scan(d, cursor, record_key, &rec);
        for (int k = 0; k < 200 && next_delete < total; k++)
            dict_delete_entry(d, find_key(d, next_delete++));
    } while (cursor != 0);

    require_all_seen(seen, 0, kept, "kept key, across shrinks");
    ck_assert_uint_gt(calls_mid_rehash, 0);
    finish_rehashing(d);
    ck_assert_uint_lt(dict_bucket_count(d), buckets_before); /* it shrank */
    dict_free(d, NULL);
    free(seen);
}
END_TEST

/* A scan callback may delete the entry it is given. Deleting every visited
 * entry must leave nothing behind (an entry skipped because its neighbour
 * was freed under the scan would survive), and must not touch freed memory,
 * which valgrind checks. The deletions shrink the table as the scan goes. */
START_TEST(test_scan_callback_deletes) {
    const size_t n = 10000;
    dict *d = dict_create();
    unsigned char *seen = calloc(n, 1);
    scan_record rec = {seen, d};
    add_keys(d, 0, n);
    uint64_t cursor = 0;
    do
        cursor = dict_scan(d, cursor, record_and_delete, &rec);
    while (cursor != 0);
    require_all_seen(seen, 0, n, "key deleted by the callback");
    ck_assert_uint_eq(dict_size(d), 0);
    ck_assert_uint_eq(dict_scan(d, 0, record_key, &rec), 0); /* empty: done at once */
    dict_free(d, NULL);
    free(seen);
}
END_TEST

int main(void) {
    Suite *s = suite_create("05-active-sampling exercise 3: dict_scan");
    TCase *tc = tcase_create("scan");
    tcase_add_checked_fixture(tc, use_test_seed, NULL);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_scan_of_a_still_table);
    tcase_add_test(tc, test_scan_across_grow);
    tcase_add_test(tc, test_scan_across_shrink);
    tcase_add_test(tc, test_scan_callback_deletes);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* unit_dict_prefetch.c -- unit tests of what chapter 12 adds to the hash
 * table (steps/12-fast-path/dict.c): dict_prefetch_bucket() and
 * dict_prefetch_entry(), which the look-ahead calls for the keys a batch of
 * clients is about to look up, and dict_expect_key(), which hands the table
 * the hash the look-ahead computed. The prefetches only warm the CPU's
 * caches, so what is tested is that they change nothing and are safe in
 * every state of the table; the expected key, that its hash is used for
 * those very bytes and for no others, and for deleting the entry a lookup
 * of them returned. The rest of the table is tested in
 * tests/02-get-set/unit_dict.c and the chapters after it. */
#include "dict.h"
#include "../helpers/dict_inspect.h"
#include "../helpers/dict_keys.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

/* ============================ Prefetching ============================ */

/* splitmix64: a small, fixed-seed PRNG for hashes no key has. */
static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The entries in the order a safe iterator returns them: table by table,
 * bucket by bucket, along each chain. Two equal layouts mean no entry was
 * added, removed or moved (by a rehash step or otherwise). Returns how
 * many entries were written to out (at most cap). */
static size_t entry_layout(dict *d, dict_entry **out, size_t cap) {
    dict_iter it;
    dict_iter_init(&it, d);
    size_t n = 0;
    for (dict_entry *de; (de = dict_iter_next(&it)) != NULL && n < cap;)
        out[n++] = de;
    dict_iter_release(&it);
    return n;
}

/* Prefetch the bucket and then the first entry for many hashes: those of
 * keys [0, keys) (present and absent alike) and as many random ones, whose
 * buckets are as likely to be empty as not. */
static void prefetch_many(const dict *d, size_t keys) {
    char key[32];
    uint64_t rng = 7;
    for (size_t i = 0; i < keys; i++) {
        size_t len = make_key(key, i);
        uint64_t hash = dict_hash(key, len);
        dict_prefetch_bucket(d, hash);
        dict_prefetch_entry(d, hash, len);
        hash = splitmix64(&rng);
        dict_prefetch_bucket(d, hash);
        dict_prefetch_entry(d, hash, i % 1000);
    }
    dict_prefetch_bucket(d, 0);
    dict_prefetch_entry(d, 0, 0);
    dict_prefetch_bucket(d, UINT64_MAX);
    dict_prefetch_entry(d, UINT64_MAX, 512 * 1024 * 1024);
}

/* Prefetch the hashes of the dict's keys [0, n), of n + 100 absent keys and
 * of as many random values, then check that nothing changed: size, buckets,
 * memory (mem_used()), rehashing state and the place of every entry; and
 * that afterwards (lookups may step the rehash) every key is found with its
 * value and the absent ones are not. */
static void check_prefetch_changes_nothing(dict *d, size_t n) {
    size_t size = dict_size(d), buckets = dict_bucket_count(d);
    int rehashing = dict_is_rehashing(d);
    dict_entry **before = malloc((n + 1) * sizeof(*before));
    dict_entry **after = malloc((n + 1) * sizeof(*after));
    size_t entries = entry_layout(d, before, n + 1);
    ck_assert_uint_eq(entries, n);
    size_t memory = mem_used();

    prefetch_many(d, 2 * n + 100);

    ck_assert_uint_eq(mem_used(), memory);
    ck_assert_uint_eq(dict_size(d), size);
    ck_assert_uint_eq(dict_bucket_count(d), buckets);
    ck_assert_int_eq(dict_is_rehashing(d), rehashing); /* no rehash step either */
    ck_assert_uint_eq(entry_layout(d, after, n + 1), entries);
    for (size_t i = 0; i < entries; i++)
        if (before[i] != after[i])
            ck_abort_msg("entry %zu of the layout: expected %p, got %p after prefetching", i,
                         (void *)before[i], (void *)after[i]);
    for (size_t i = 0; i < n; i++)
        require_value(find_key(d, i), i, "find after prefetching");
    for (size_t i = n; i < 2 * n + 100; i++)
        require_absent(find_key(d, i), i, "absent key after prefetching");
    ck_assert_uint_eq(dict_size(d), size);
    free(before);
    free(after);
}

/* dict_prefetch_bucket() and dict_prefetch_entry() only warm the cache: they
 * must change nothing and be safe whatever state the dict is in. An empty
 * dict has only NULL buckets; mid-rehash, both tables are live and the
 * buckets of table[0] below the rehash index are already NULL, so a version
 * that looked only at table[0], or followed a NULL head, or did a rehash
 * step, is caught here (the crash or the changed layout). */
START_TEST(test_prefetch_changes_nothing) {
    dict *d = dict_create(0);
    check_prefetch_changes_nothing(d, 0); /* empty */

    add_keys(d, 0, 1000);
    finish_rehashing(d);
    check_prefetch_changes_nothing(d, 1000); /* one table */

    /* 4096 keys in 4096 buckets; the next add starts a grow, and some finds
     * move part of table[0] over, so both tables hold entries. */
    add_keys(d, 1000, 4096);
    finish_rehashing(d);
    add_keys(d, 4096, 4097);
    for (size_t i = 0; i < 1000; i++)
        find_key(d, i);
    ck_assert_int_eq(dict_is_rehashing(d), 1);
    check_prefetch_changes_nothing(d, 4097);
    dict_free(d, NULL);
}
END_TEST

/* ============================ The expected key ============================ */

/* dict_expect_key() is taken at its word: given a wrong hash for a key, a
 * find and an add of those very bytes (the same pointer and length) look in
 * the wrong bucket, which is how the test sees the hash was
 * used and not computed. The same bytes at another address, or a prefix of
 * them at the same address, are hashed as usual; and once the key is
 * forgotten, the very bytes are too. */
START_TEST(test_expected_key_hash_is_used_for_those_bytes_only) {
    dict *d = dict_create(0);
    add_keys(d, 0, 1000);
    finish_rehashing(d);
    char key[32], copy[32];
    size_t len = make_key(key, 7);
    memcpy(copy, key, len);
    uint64_t right = dict_hash(key, len), wrong = ~right;

    dict_expect_key(d, key, len, right);
    require_value(dict_find(d, key, len), 7, "find with the right hash expected");
    dict_expect_key(d, key, len, wrong);
    if (dict_find(d, key, len) != NULL)
        ck_abort_msg("find of key:7 with a wrong hash expected: expected no entry, got one");
    require_value(dict_find(d, copy, len), 7, "find of a copy at another address");
    int existed = -1;
    dict_entry *twin = dict_add_or_find(d, key, len, &existed);
    twin->val = val_for(1000);
    if (existed != 0)
        ck_abort_msg("add of key:7 with a wrong hash expected: expected a new entry (in the "
                     "wrong bucket), got existed=%d",
                     existed);
    ck_assert_int_eq(dict_is_rehashing(d), 0); /* the twin stays where it was put */
    ck_assert_uint_eq(dict_size(d), 1001);     /* dict_free() frees it with the rest */

    /* "key:1" is a prefix of "key:17" at the same address: not the key. */
    size_t long_len = make_key(key, 17);
    dict_expect_key(d, key, long_len, wrong);
    require_value(dict_find(d, key, 5), 1, "find of a prefix of the expected bytes");

    dict_expect_key(d, NULL, 0, 0);
    make_key(key, 7);
    require_value(dict_find(d, key, len), 7, "find once the key is forgotten");
    dict_free(d, NULL);
}
END_TEST

/* The deletion of the entry that a lookup of the expected key returned takes
 * the expected hash too. Given a wrong one, an add of the very bytes puts a
 * twin in the wrong bucket, and deleting the twin finds it there: hashing its
 * key instead would look in the key's own bucket, miss it, and stop the
 * process with dict.c's panic ("dict_delete_entry on an entry that is not in
 * the dict"), which Check reports as this test's early exit. Any other entry,
 * and the expected one once the key is forgotten, is hashed as usual. */
START_TEST(test_expected_entry_is_deleted_with_the_expected_hash) {
    dict *d = dict_create(0);
    add_keys(d, 0, 1000);
    finish_rehashing(d);
    char key[32];
    size_t len = make_key(key, 7);
    uint64_t right = dict_hash(key, len), wrong = ~right;

    dict_expect_key(d, key, len, wrong);
    int existed = -1;
    dict_entry *twin = dict_add_or_find(d, key, len, &existed);
    twin->val = val_for(1000);
    ck_assert_int_eq(existed, 0);
    dict_delete_entry(d, find_key(d, 8)); /* another key's entry: hashed */
    dict_delete_entry(d, twin);           /* found in the wrong bucket */
    ck_assert_uint_eq(dict_size(d), 999);
    require_absent(find_key(d, 8), 8, "find after deleting key:8 with key:7 expected");

    dict_expect_key(d, key, len, right);
    dict_entry *de = dict_find(d, key, len);
    require_value(de, 7, "find with the right hash expected");
    dict_expect_key(d, NULL, 0, 0);
    dict_delete_entry(d, de); /* forgotten: hashed, and found */
    require_absent(find_key(d, 7), 7, "find after deleting key:7");
    ck_assert_uint_eq(dict_size(d), 998);
    dict_free(d, NULL);
}
END_TEST

int main(void) {
    Suite *s = suite_create("12-fast-path: dict prefetch");
    TCase *tc = tcase_create("prefetch");
    tcase_add_checked_fixture(tc, use_test_seed, NULL);
    tcase_add_test(tc, test_prefetch_changes_nothing);
    tcase_add_test(tc, test_expected_key_hash_is_used_for_those_bytes_only);
    tcase_add_test(tc, test_expected_entry_is_deleted_with_the_expected_hash);
    suite_add_tcase(s, tc);
    SRunner *runner = srunner_create(s);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

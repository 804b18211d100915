/* unit_dict.c -- unit tests of chapter 02's hash table, steps/02-get-set/dict.c:
 * SipHash and its seed, find and add_or_find on binary keys, the
 * incremental rehash, emptying and freeing, and the hash tag. The functions
 * later chapters add have their own files: tests/03-del/unit_dict_delete.c,
 * tests/04-expiry-lazy/unit_dict_delete_entry.c,
 * tests/06-timewheel/unit_dict_metadata.c and
 * tests/12-fast-path/unit_dict_prefetch.c. The walk over every entry is the
 * tests' own (tests/helpers/dict_inspect.h), which compiles dict.c in here.
 *
 * The tests aim at what would break a server quietly rather than loudly:
 * a key lost or duplicated in the middle of an incremental rehash, or a
 * hash that ignores its seed. Each test would fail against a plausible wrong implementation; the
 * comments say which.
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

/* Check's ck_assert() records its position on every call, which in fork mode
 * means a write to a pipe: far too slow inside million-iteration loops. The
 * hot loops call these instead, which only cost something when they fail;
 * like ck_assert_*_eq, they say what was expected and what came back. */
static void require(int ok, const char *what, size_t i) {
    if (!ok) ck_abort_msg("%s (at i=%zu)", what, i);
}

static void require_size(size_t got, size_t want, const char *what, size_t i) {
    if (got != want) ck_abort_msg("%s (at i=%zu): expected %zu, got %zu", what, i, want, got);
}

static size_t test_key_count(void) {
    const char *s = getenv("DICT_TEST_KEYS");
    if (s == NULL || *s == '\0') return 1000000;
    size_t n = (size_t)strtoull(s, NULL, 10);
    return n < 10000 ? 10000 : n; /* fewer would skip the mid-rehash checks */
}

/* ============================ Hashing ============================ */

/* Known answers for SipHash-1-2 with key 00 01 .. 0f and input 00 01 .. (n-1),
 * the layout of the SipHash paper's test vectors. They were computed with an
 * independent implementation written from the paper, which reproduces the
 * paper's SipHash-2-4 vectors when run with 2 and 4 rounds. A wrong rotation,
 * constant or length byte changes every one of them. */
START_TEST(test_siphash_known_answers) {
    static const struct {
        size_t len;
        uint64_t hash;
    } expected[] = {
        {0, 0xcea28b51565c12e2ULL},  {1, 0x94aaf38c34ce7ba6ULL},  {7, 0xf03c4cbcf492b05aULL},
        {8, 0x606845b4d093af74ULL},  {15, 0xec8f61bc1c8966a6ULL}, {16, 0x1311f4dfe747a751ULL},
        {63, 0xff6d07afacbad6d9ULL},
    };
    uint8_t seed[16];
    char input[64];
    for (int i = 0; i < 16; i++)
        seed[i] = (uint8_t)i;
    for (int i = 0; i < 64; i++)
        input[i] = (char)i;
    dict_set_hash_seed(seed);
    for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
        ck_assert_uint_eq(dict_hash(input, expected[i].len), expected[i].hash);
}
END_TEST

/* The seed must change the hash (or an attacker can precompute collisions),
 * and the same seed must give the same hash (or keys get lost). */
START_TEST(test_seed_changes_hash) {
    static const uint8_t other_seed[16] = {0xde, 0xad, 0xbe, 0xef};
    const char *keys[] = {"", "a", "foo", "key:123456789012",
                          "a much longer key than sixteen bytes"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        size_t len = strlen(keys[i]);
        use_test_seed();
        uint64_t h1 = dict_hash(keys[i], len);
        ck_assert_uint_eq(dict_hash(keys[i], len), h1);
        dict_set_hash_seed(other_seed);
        uint64_t h2 = dict_hash(keys[i], len);
        ck_assert_uint_ne(h1, h2);
        use_test_seed();
        ck_assert_uint_eq(dict_hash(keys[i], len), h1);
    }
    /* Trailing zero bytes must matter (the length is part of the input). */
    ck_assert_uint_ne(dict_hash("a", 1), dict_hash("a\0", 2));
}
END_TEST

/* ============================ Basic operations ============================ */

/* Keys are bytes: NUL, CR and LF inside a key are ordinary, the empty key is
 * a key, and "a" is not "a\0". A strlen() or strcmp() anywhere would fail. */
START_TEST(test_binary_keys) {
    static const struct {
        const char *bytes;
        size_t len;
    } keys[] = {
        {"", 0},     {"\0", 1},   {"\0\0", 2},   {"a", 1},  {"a\0", 2}, {"a\0b", 3},
        {"a\0c", 3}, {"\r\n", 2}, {"a\r\nb", 5}, {"\n", 1}, {"\r", 1},  {"\xff\x80", 2},
    };
    size_t n = sizeof(keys) / sizeof(keys[0]);
    dict *d = dict_create();
    for (size_t i = 0; i < n; i++)
        ck_assert_ptr_nonnull(dict_add(d, keys[i].bytes, keys[i].len, val_for(i)));
    ck_assert_uint_eq(dict_size(d), n);
    for (size_t i = 0; i < n; i++) {
        dict_entry *de = dict_find(d, keys[i].bytes, keys[i].len);
        ck_assert_ptr_nonnull(de);
        ck_assert_ptr_eq(de->val, val_for(i));
        ck_assert_uint_eq(de->keylen, keys[i].len);
        ck_assert_mem_eq(dict_entry_key(de), keys[i].bytes, keys[i].len);
    }
    /* The empty key may be passed as a NULL pointer with length 0. */
    dict_entry *empty = dict_find(d, NULL, 0);
    ck_assert_ptr_nonnull(empty);
    ck_assert_ptr_eq(empty->val, val_for(0));
    ck_assert_ptr_null(dict_find(d, "b", 1));
    ck_assert_ptr_null(dict_find(d, "a\0\0", 3));

    /* Many keys that agree up to a NUL (or a CR LF) and differ after it, so
     * that some share a bucket: a comparison that stops at the NUL, such as
     * strncmp(), would take one for another there. */
    char key[32];
    for (size_t i = 0; i < 1000; i++) {
        memcpy(key, i % 2 ? "k\0" : "k\r\n", 3);
        size_t len = 3 + (size_t)snprintf(key + 3, sizeof(key) - 3, "%zu", i);
        require(dict_add(d, key, len, val_for(n + i)) != NULL,
                "add a key with a NUL inside: expected a new entry, got NULL", i);
    }
    for (size_t i = 0; i < 1000; i++) {
        memcpy(key, i % 2 ? "k\0" : "k\r\n", 3);
        size_t len = 3 + (size_t)snprintf(key + 3, sizeof(key) - 3, "%zu", i);
        dict_entry *de = dict_find(d, key, len);
        if (de == NULL || de->val != val_for(n + i))
            ck_abort_msg("key %zu with a NUL inside: expected value %p, got %s %p", i,
                         val_for(n + i), de ? "value" : "no entry", de ? de->val : NULL);
    }
    ck_assert_uint_eq(dict_size(d), n + 1000);
    dict_free(d, NULL);
}
END_TEST

/* dict_add_or_find() must hand back the existing entry, untouched, or a new
 * one with a NULL value (the tests' dict_add(), built on it, refuses the
 * existing key). */
START_TEST(test_add_refuses_duplicates) {
    dict *d = dict_create();
    dict_entry *de = dict_add(d, "k", 1, val_for(1));
    ck_assert_ptr_nonnull(de);
    ck_assert_ptr_null(dict_add(d, "k", 1, val_for(2)));
    ck_assert_uint_eq(dict_size(d), 1);
    ck_assert_ptr_eq(dict_find(d, "k", 1), de);
    ck_assert_ptr_eq(de->val, val_for(1));

    int existed = -1;
    ck_assert_ptr_eq(dict_add_or_find(d, "k", 1, &existed), de);
    ck_assert_int_eq(existed, 1);
    ck_assert_ptr_eq(de->val, val_for(1));

    dict_entry *fresh = dict_add_or_find(d, "k2", 2, &existed);
    ck_assert_int_eq(existed, 0);
    ck_assert_ptr_nonnull(fresh);
    ck_assert_ptr_null(fresh->val);
    ck_assert_uint_eq(dict_size(d), 2);
    dict_free(d, NULL);
}
END_TEST

/* An entry is one block of header + key, in that order (the picture in
 * dict.h), allocated through alloc.h like everything in dict.c: adding a key
 * raises mem_used() by exactly that one block, and freeing the dict gives
 * every byte back. A key kept in a second block, or an allocation that
 * bypasses mem_alloc(), or one that is never freed, fails here. */
START_TEST(test_entry_is_one_block) {
    size_t no_dict = mem_used();
    dict *d = dict_create();
    size_t empty = mem_used();
    ck_assert_uint_gt(empty, no_dict); /* the dict and its first table are counted */
    dict_entry *de = dict_add(d, "0123456789abcdef", 16, NULL);
    ck_assert_ptr_nonnull(de);
    size_t block = usable_size(de);
    ck_assert_uint_eq(mem_used() - empty, block);
    ck_assert_uint_ge(block, sizeof(dict_entry) + 16);
    ck_assert_ptr_eq(dict_entry_key(de), (const char *)de + sizeof(dict_entry));
    dict_free(d, NULL);
    ck_assert_uint_eq(mem_used(), no_dict);
}
END_TEST

/* ============================ Emptying and freeing ============================ */

static size_t values_freed;

static void count_and_free(void *val) {
    values_freed++;
    free(val);
}

/* dict_empty() is FLUSHALL: every value handed to free_val once, the dict
 * back to its initial size and memory (mem_used(): the values here are
 * plain malloc()s, which it does not count), and still usable; dict_free()
 * gives back every byte the dict took. Valgrind turns a forgotten entry
 * into a failure. */
START_TEST(test_empty_and_free) {
    size_t no_dict = mem_used();
    dict *d = dict_create();
    size_t initial_memory = mem_used();
    char key[32];
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < 10000; i++) {
            size_t len = make_key(key, i);
            dict_add(d, key, len, malloc(8));
        }
        ck_assert_msg(dict_is_rehashing(d) || dict_bucket_count(d) >= 10000,
                      "10000 keys: expected a grow under way or >= 10000 buckets, got %zu "
                      "buckets and no rehash",
                      dict_bucket_count(d));
        values_freed = 0;
        dict_empty(d, count_and_free);
        ck_assert_uint_eq(values_freed, 10000);
        ck_assert_uint_eq(dict_size(d), 0);
        ck_assert_uint_eq(dict_bucket_count(d), 4);
        ck_assert_int_eq(dict_is_rehashing(d), 0);
        ck_assert_uint_eq(mem_used(), initial_memory);
        ck_assert_ptr_null(dict_find(d, "key:1", 5));
    }
    /* dict_free() frees the values too when asked. */
    for (size_t i = 0; i < 100; i++) {
        size_t len = make_key(key, i);
        dict_add(d, key, len, malloc(8));
    }
    values_freed = 0;
    dict_free(d, count_and_free);
    ck_assert_uint_eq(values_freed, 100);
    ck_assert_uint_eq(mem_used(), no_dict); /* the dict and its tables went too */
}
END_TEST

/* ============================ Incremental rehashing ============================ */

/* Check, while a rehash is in progress, that a walk of both tables meets
 * every live key [live_from, live_to) exactly once, and then that each is
 * findable with its value. The walk is a snapshot of one mid-rehash state,
 * taken before any find moves a bucket: a key present in both tables (moved
 * but not unlinked) would be seen twice, and a key in neither would be
 * missed, so "exactly once" is "in exactly one table". */
static void check_mid_rehash(dict *d, size_t live_from, size_t live_to, unsigned char *seen) {
    ck_assert_int_eq(dict_is_rehashing(d), 1);
    dict_iter it;
    dict_iter_init(&it, d);

    memset(seen + live_from, 0, live_to - live_from);
    size_t visited = 0;
    for (dict_entry *de; (de = dict_iter_next(&it)) != NULL; visited++) {
        size_t i = key_index(de);
        if (i < live_from || i >= live_to)
            ck_abort_msg("iterator: expected a live key in [%zu, %zu), got key:%zu", live_from,
                         live_to, i);
        if (seen[i]) ck_abort_msg("iterator: expected key:%zu once, got it twice", i);
        seen[i] = 1;
    }
    dict_iter_release(&it);
    ck_assert_uint_eq(visited, live_to - live_from);
    ck_assert_uint_eq(visited, dict_size(d));
    for (size_t i = live_from; i < live_to; i++)
        require_value(find_key(d, i), i, "live key mid-rehash");
}

/* A million keys in, with the full check above run half-way through every
 * large grow: the point where a wrong rehash most often loses or duplicates
 * keys. (Chapter 03's tests take them out again, through the shrinks.) */
START_TEST(test_million_keys) {
    size_t n = test_key_count();
    unsigned char *seen = calloc(n, 1);
    dict *d = dict_create();
    char key[32];

    /* Insertion: each resize is checked once, when about half of the old
     * table has been moved (a grow from B to 2B buckets shows 3B buckets and
     * needs about B steps). */
    size_t checks = 0, rehash_began = 0, last_checked_buckets = 0;
    int was_rehashing = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = make_key(key, i);
        require(dict_add(d, key, len, val_for(i)) != NULL,
                "add: expected a new entry, got NULL (refused as a duplicate)", i);
        require_size(dict_size(d), i + 1, "size after add", i);
        int rehashing = dict_is_rehashing(d);
        if (rehashing && !was_rehashing) rehash_began = i;
        was_rehashing = rehashing;
        size_t buckets = dict_bucket_count(d);
        if (rehashing && buckets >= 3 * 1024 && buckets != last_checked_buckets &&
            i - rehash_began >= buckets / 6) {
            check_mid_rehash(d, 0, i + 1, seen);
            last_checked_buckets = buckets;
            checks++;
        }
    }
    ck_assert_uint_ge(checks, 3);
    ck_assert_uint_ge(dict_bucket_count(d), n); /* it did grow: load factor <= 1 */

    /* Every key once more, and a second add of each must be refused. */
    for (size_t i = 0; i < n; i++) {
        size_t len = make_key(key, i);
        require_value(dict_find(d, key, len), i, "find after inserting");
        if (i % 101 == 0)
            require(dict_add(d, key, len, NULL) == NULL,
                    "second add of a key: expected NULL (refused), got a new entry", i);
    }

    dict_free(d, NULL);
    free(seen);
}
END_TEST

/* The point of incremental rehashing: when a big table starts to grow, the
 * add that triggers it does not move everything, and the move is over after
 * at most one operation per old bucket. */
START_TEST(test_rehash_is_incremental) {
    dict *d = dict_create();
    const size_t old_size = 65536;
    add_keys(d, 0, old_size); /* used == size now; the next add grows */
    finish_rehashing(d);
    ck_assert_uint_eq(dict_bucket_count(d), old_size);
    add_keys(d, old_size, old_size + 1);
    ck_assert_int_eq(dict_is_rehashing(d), 1);
    ck_assert_uint_eq(dict_bucket_count(d), old_size + 2 * old_size);

    size_t ops = 0;
    while (dict_is_rehashing(d)) {
        require_value(find_key(d, ops % old_size), ops % old_size, "find during the rehash");
        ops++;
    }
    ck_assert_uint_gt(ops, old_size / 4); /* many small steps... */
    ck_assert_uint_le(ops, old_size);     /* ...each moving at least one bucket or 10 empty ones */
    ck_assert_uint_eq(dict_bucket_count(d), 2 * old_size);
    dict_free(d, NULL);
}
END_TEST

/* ============================ Hash tags ============================ */

/* The tag is the top 16 bits of the key's hash, as dict.c's hash_tag() takes
 * it: the low bits would be useless, being the same for a whole chain. It is
 * set when the entry is made and must survive the moves of several grows. */
START_TEST(test_hash_tag_is_top_16_bits) {
    dict *d = dict_create();
    ck_assert_ptr_nonnull(dict_add(d, "", 0, NULL));
    dict_entry *empty = dict_find(d, "", 0);
    ck_assert_ptr_nonnull(empty);
    ck_assert_uint_eq(empty->hash_tag, (uint16_t)(dict_hash("", 0) >> 48));

    add_keys(d, 0, 5000);
    finish_rehashing(d);
    int tags_differ_from_low_bits = 0;
    char key[32];
    for (size_t i = 0; i < 5000; i++) {
        size_t len = make_key(key, i);
        uint64_t hash = dict_hash(key, len);
        dict_entry *de = dict_find(d, key, len);
        require_value(de, i, "find for the tag");
        require_size(de->hash_tag, (uint16_t)(hash >> 48), "hash_tag == top 16 bits of the hash",
                     i);
        tags_differ_from_low_bits |= de->hash_tag != (uint16_t)hash;
    }
    /* So the test tells the top from the bottom: some tag differs from the
     * low 16 bits. */
    ck_assert_int_eq(tags_differ_from_low_bits, 1);
    dict_free(d, NULL);
}
END_TEST

/* Keys "key:10" to "key:41": 32 keys of 6 bytes, few enough that the table
 * is small and chains are common. */
#define SHARED_FIRST 10
#define SHARED_LAST  42

/* A lookup walks a chain comparing tags, then lengths, then key bytes; the
 * tag only rules entries out. Two different keys in one bucket must both be
 * found, each with its own value; and an absent key with the same bucket,
 * the same tag and the same length as a present one must not be taken for
 * it (a lookup that trusted the tag would). Such a key is found by trying
 * "p00000", "p00001", ... under the fixed test seed: with 32 keys in 32
 * buckets and 65,536 tags, about one try in 65,536 matches some key, and
 * the search gives up after 16 times that. Adding it then makes a
 * chain of two same-tag entries, which must stay apart through the grow
 * that the add sets off. */
START_TEST(test_same_bucket_keys_are_told_apart) {
    dict *d = dict_create();
    add_keys(d, SHARED_FIRST, SHARED_LAST);
    finish_rehashing(d);
    uint64_t mask = dict_bucket_count(d) - 1;
    char key[32], other[32];

    /* Two present keys in one bucket whose full hashes differ. */
    int pairs = 0;
    for (size_t i = SHARED_FIRST; i < SHARED_LAST; i++) {
        for (size_t j = i + 1; j < SHARED_LAST; j++) {
            uint64_t hi = dict_hash(key, make_key(key, i));
            uint64_t hj = dict_hash(other, make_key(other, j));
            if ((hi & mask) != (hj & mask)) continue;
            ck_assert_uint_ne(hi, hj);
            require_value(find_key(d, i), i, "first key of a shared bucket");
            require_value(find_key(d, j), j, "second key of a shared bucket");
            pairs++;
        }
    }
    ck_assert_int_gt(pairs, 0);
    for (size_t i = 0; i < 10000; i++)
        if (i < SHARED_FIRST || i >= SHARED_LAST) require_absent(find_key(d, i), i, "never added");

    /* An absent key that only the key bytes tell from a present one. */
    uint64_t present[SHARED_LAST];
    for (size_t i = SHARED_FIRST; i < SHARED_LAST; i++)
        present[i] = dict_hash(key, make_key(key, i));
    size_t twin = 0, probe;
    for (probe = 0; probe < 0x100000 && twin == 0; probe++) {
        uint64_t h = dict_hash(other, (size_t)snprintf(other, sizeof(other), "p%05zx", probe));
        for (size_t i = SHARED_FIRST; i < SHARED_LAST && twin == 0; i++)
            if ((present[i] & mask) == (h & mask) && present[i] >> 48 == h >> 48) twin = i;
    }
    ck_assert_msg(twin != 0,
                  "expected a key that shares a bucket and a tag with a present one, got none "
                  "in %zu tries",
                  probe);
    size_t len = (size_t)snprintf(other, sizeof(other), "p%05zx", probe - 1);
    ck_assert_uint_eq(len, make_key(key, twin));
    ck_assert_ptr_null(dict_find(d, other, len));
    ck_assert_uint_eq(dict_size(d), SHARED_LAST - SHARED_FIRST);

    /* Added, it is a new key, not a duplicate of its twin. */
    ck_assert_ptr_nonnull(dict_add(d, other, len, val_for(0)));
    finish_rehashing(d);
    dict_entry *de = dict_find(d, other, len);
    ck_assert_ptr_nonnull(de);
    ck_assert_ptr_eq(de->val, val_for(0));
    for (size_t i = SHARED_FIRST; i < SHARED_LAST; i++)
        require_value(find_key(d, i), i, "after adding the twin");
    ck_assert_uint_eq(dict_size(d), SHARED_LAST - SHARED_FIRST + 1);
    dict_free(d, NULL);
}
END_TEST

/* ============================ Runner ============================ */

static Suite *dict_suite(void) {
    Suite *s = suite_create("02-get-set: dict");

    TCase *basics = tcase_create("basics");
    tcase_add_checked_fixture(basics, use_test_seed, NULL);
    tcase_add_test(basics, test_siphash_known_answers);
    tcase_add_test(basics, test_seed_changes_hash);
    tcase_add_test(basics, test_binary_keys);
    tcase_add_test(basics, test_add_refuses_duplicates);
    tcase_add_test(basics, test_entry_is_one_block);
    tcase_add_test(basics, test_empty_and_free);
    suite_add_tcase(s, basics);

    TCase *rehash = tcase_create("rehash");
    tcase_add_checked_fixture(rehash, use_test_seed, NULL);
    tcase_set_timeout(rehash, 120); /* the million-key test; seconds */
    tcase_add_test(rehash, test_million_keys);
    tcase_add_test(rehash, test_rehash_is_incremental);
    suite_add_tcase(s, rehash);

    TCase *lookup = tcase_create("hash tags");
    tcase_add_checked_fixture(lookup, use_test_seed, NULL);
    tcase_add_test(lookup, test_hash_tag_is_top_16_bits);
    tcase_add_test(lookup, test_same_bucket_keys_are_told_apart);
    suite_add_tcase(s, lookup);
    return s;
}

int main(void) {
    SRunner *runner = srunner_create(dict_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

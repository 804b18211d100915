/* test_dict.c -- unit tests for common/dict.c, the keyspace's hash table
 * (chapter 02).
 *
 * The tests aim at what would break a server quietly rather than loudly:
 * a key lost or duplicated in the middle of an incremental rehash, an
 * iterator that skips an entry after a deletion, a "random" key that is not
 * uniformly random, a scan that misses keys when the table resizes, or a
 * hash that ignores its seed. Each test would fail against a plausible wrong
 * implementation; the comments say which.
 *
 * Environment: DICT_TEST_KEYS overrides the size of the big test (default
 * 1,000,000), so that a run under valgrind can use fewer keys. */
#include "dict.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ============================ Helpers ============================ */

/* The seed every test starts from, so runs are repeatable. */
static const uint8_t TEST_SEED[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

static void use_test_seed(void) {
    dict_set_hash_seed(TEST_SEED);
}

/* Check's ck_assert() records its position on every call, which in fork mode
 * means a write to a pipe: far too slow inside million-iteration loops. The
 * hot loops call this instead, which only costs something when it fails. */
static void require(int ok, const char *what, size_t i) {
    if (!ok) ck_abort_msg("%s (at i=%zu)", what, i);
}

/* Keys are "key:<i>"; buf must hold 32 bytes. Returns the key's length. */
static size_t make_key(char *buf, size_t i) {
    return (size_t)snprintf(buf, 32, "key:%zu", i);
}

/* The i of a "key:<i>" key. */
static size_t key_index(const dict_entry *de) {
    char buf[32];
    size_t len = dict_entry_keylen(de);
    memcpy(buf, dict_entry_key(de), len);
    buf[len] = '\0';
    return (size_t)strtoull(buf + 4, NULL, 10);
}

/* Values are i + 1 stored in the pointer (so no value is NULL). */
static void *val_for(size_t i) {
    return (void *)(uintptr_t)(i + 1);
}

static dict_entry *find_key(dict *d, size_t i) {
    char key[32];
    size_t len = make_key(key, i);
    return dict_find(d, key, len);
}

static void add_keys(dict *d, size_t from, size_t to) {
    char key[32];
    for (size_t i = from; i < to; i++) {
        size_t len = make_key(key, i);
        require(dict_add(d, key, len, val_for(i)) != NULL, "dict_add of a new key", i);
    }
}

static void delete_key(dict *d, size_t i) {
    char key[32];
    size_t len = make_key(key, i);
    int found;
    void *val = dict_delete(d, key, len, &found);
    require(found && val == val_for(i), "dict_delete of a present key", i);
}

/* Do finds until any rehash in progress has finished. */
static void finish_rehashing(dict *d) {
    for (int i = 0; i < 10000000 && dict_is_rehashing(d); i++)
        dict_find(d, "x", 1);
    ck_assert(!dict_is_rehashing(d));
}

/* splitmix64: a small, fixed-seed PRNG for the random-entry tests. */
static uint64_t splitmix64(void *ctx) {
    uint64_t *state = ctx;
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
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
    dict *d = dict_create(0);
    for (size_t i = 0; i < n; i++)
        ck_assert_ptr_nonnull(dict_add(d, keys[i].bytes, keys[i].len, val_for(i)));
    ck_assert_uint_eq(dict_size(d), n);
    for (size_t i = 0; i < n; i++) {
        dict_entry *de = dict_find(d, keys[i].bytes, keys[i].len);
        ck_assert_ptr_nonnull(de);
        ck_assert_ptr_eq(de->val, val_for(i));
        ck_assert_uint_eq(dict_entry_keylen(de), keys[i].len);
        ck_assert_int_eq(memcmp(dict_entry_key(de), keys[i].bytes, keys[i].len), 0);
    }
    /* The empty key may be passed as a NULL pointer with length 0. */
    ck_assert_ptr_eq(dict_find(d, NULL, 0)->val, val_for(0));
    ck_assert_ptr_null(dict_find(d, "b", 1));
    ck_assert_ptr_null(dict_find(d, "a\0\0", 3));

    /* Many keys that agree up to a NUL (or a CR LF) and differ after it, so
     * that some share a bucket: a comparison that stops at the NUL, such as
     * strncmp(), would take one for another there. */
    char key[32];
    for (size_t i = 0; i < 1000; i++) {
        memcpy(key, i % 2 ? "k\0" : "k\r\n", 3);
        size_t len = 3 + (size_t)snprintf(key + 3, sizeof(key) - 3, "%zu", i);
        require(dict_add(d, key, len, val_for(n + i)) != NULL, "add a key with a NUL inside", i);
    }
    for (size_t i = 0; i < 1000; i++) {
        memcpy(key, i % 2 ? "k\0" : "k\r\n", 3);
        size_t len = 3 + (size_t)snprintf(key + 3, sizeof(key) - 3, "%zu", i);
        dict_entry *de = dict_find(d, key, len);
        require(de != NULL && de->val == val_for(n + i), "find a key with a NUL inside", i);
        dict_delete(d, key, len, NULL);
    }

    int found;
    ck_assert_ptr_eq(dict_delete(d, "", 0, &found), val_for(0));
    ck_assert_int_eq(found, 1);
    ck_assert_ptr_null(dict_find(d, "", 0));
    ck_assert_ptr_nonnull(dict_find(d, "\0", 1)); /* a different key */
    ck_assert_uint_eq(dict_size(d), n - 1);
    dict_free(d, NULL);
}
END_TEST

/* dict_add() must refuse a key that exists and leave it alone;
 * dict_add_or_find() must hand back the existing entry, or a new one with a
 * NULL value. */
START_TEST(test_add_refuses_duplicates) {
    dict *d = dict_create(0);
    dict_entry *de = dict_add(d, "k", 1, val_for(1));
    ck_assert_ptr_nonnull(de);
    ck_assert_ptr_null(dict_add(d, "k", 1, val_for(2)));
    ck_assert_uint_eq(dict_size(d), 1);
    ck_assert_ptr_eq(dict_find(d, "k", 1)->val, val_for(1));

    int existed = -1;
    ck_assert_ptr_eq(dict_add_or_find(d, "k", 1, &existed), de);
    ck_assert_int_eq(existed, 1);
    ck_assert_ptr_eq(de->val, val_for(1));

    dict_entry *fresh = dict_add_or_find(d, "k2", 2, &existed);
    ck_assert_int_eq(existed, 0);
    ck_assert_ptr_null(fresh->val);
    ck_assert_uint_eq(dict_size(d), 2);

    /* Deleting a missing key reports it and changes nothing. */
    int found = -1;
    ck_assert_ptr_null(dict_delete(d, "nope", 4, &found));
    ck_assert_int_eq(found, 0);
    ck_assert_ptr_null(dict_delete(d, "nope", 4, NULL));
    ck_assert_uint_eq(dict_size(d), 2);
    dict_free(d, NULL);
}
END_TEST

/* Metadata must be 8-byte aligned, zero on insertion even when malloc hands
 * back dirty memory, separate from the key bytes, and stay put (with its
 * contents) while the entry is moved by a rehash. */
START_TEST(test_metadata) {
    const size_t sizes[] = {8, 12, 16, 24};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t meta = sizes[s];
        dict *d = dict_create(meta);
        char key[32];
        for (int round = 0; round < 2; round++) {
            /* Round 0 fills the metadata with 0xff and deletes every key;
             * round 1 re-adds them into memory malloc is likely to reuse. */
            for (size_t i = 0; i < 1000; i++) {
                size_t len = make_key(key, i);
                dict_entry *de = dict_add(d, key, len, val_for(i));
                unsigned char *m = dict_entry_metadata(de);
                require((uintptr_t)m % 8 == 0, "metadata 8-byte aligned", i);
                for (size_t b = 0; b < meta; b++)
                    require(m[b] == 0, "metadata zeroed", i);
                memset(m, 0xff, meta);
                require(dict_entry_keylen(de) == len && memcmp(dict_entry_key(de), key, len) == 0,
                        "key intact after writing the metadata", i);
            }
            if (round == 0)
                for (size_t i = 0; i < 1000; i++)
                    delete_key(d, i);
        }
        /* Stamp each entry's metadata with its index, force the table
         * through more resizes, and check both pointer and contents held. */
        unsigned char *where[1000];
        for (size_t i = 0; i < 1000; i++) {
            dict_entry *de = find_key(d, i);
            where[i] = dict_entry_metadata(de);
            memcpy(where[i], &i, sizeof(i));
        }
        add_keys(d, 1000, 20000);
        finish_rehashing(d);
        for (size_t i = 0; i < 1000; i++) {
            dict_entry *de = find_key(d, i);
            size_t stamp;
            memcpy(&stamp, dict_entry_metadata(de), sizeof(stamp));
            require(dict_entry_metadata(de) == where[i] && stamp == i, "metadata kept", i);
        }
        dict_free(d, NULL);
    }
}
END_TEST

/* dict_memory_usage() counts exactly what dict.c asked malloc for: an entry
 * is one block of header + metadata + key, and deleting gives it back. */
START_TEST(test_memory_usage) {
    dict *d = dict_create(16);
    size_t empty = dict_memory_usage(d);
    ck_assert_uint_gt(empty, 0);
    dict_add(d, "0123456789abcdef", 16, NULL);
    ck_assert_uint_eq(dict_memory_usage(d) - empty, sizeof(dict_entry) + 16 + 16);
    dict_delete(d, "0123456789abcdef", 16, NULL);
    ck_assert_uint_eq(dict_memory_usage(d), empty);
    dict_free(d, NULL);
}
END_TEST

/* ============================ Incremental rehashing ============================ */

/* Check, while a rehash is in progress, that every live key [live_from,
 * live_to) is findable with its value, that a few deleted keys are not, and
 * that iteration meets every live key exactly once. A safe iterator pauses the
 * rehash, so everything below sees one frozen mid-rehash state. Since the
 * iterator walks both tables, a key present in both (moved but not unlinked)
 * would be seen twice, and a key in neither would be missed: "exactly once"
 * is "in exactly one table". */
static void check_mid_rehash(dict *d, size_t live_from, size_t live_to, unsigned char *seen) {
    ck_assert(dict_is_rehashing(d));
    dict_iter it;
    dict_iter_init(&it, d);

    for (size_t i = live_from; i < live_to; i++) {
        dict_entry *de = find_key(d, i);
        require(de != NULL && de->val == val_for(i), "live key findable mid-rehash", i);
    }
    for (size_t i = 0; i < live_from; i += 97)
        require(find_key(d, i) == NULL, "deleted key gone", i);
    ck_assert(dict_is_rehashing(d)); /* the finds did not move anything */

    memset(seen + live_from, 0, live_to - live_from);
    size_t visited = 0;
    for (dict_entry *de; (de = dict_iter_next(&it)) != NULL; visited++) {
        size_t i = key_index(de);
        require(i >= live_from && i < live_to && seen[i] == 0, "key met once by the iterator", i);
        seen[i] = 1;
    }
    dict_iter_release(&it);
    ck_assert_uint_eq(visited, live_to - live_from);
    ck_assert_uint_eq(visited, dict_size(d));
}

/* A million keys in, then out, with the full check above run half-way
 * through every large resize: the point where a wrong rehash most often loses
 * or duplicates keys. */
START_TEST(test_million_keys) {
    size_t n = test_key_count();
    unsigned char *seen = calloc(n, 1);
    dict *d = dict_create(0);
    char key[32];

    /* Insertion: each resize is checked once, when about half of the old
     * table has been moved (a grow from B to 2B buckets shows 3B buckets and
     * needs about B steps). */
    size_t checks = 0, rehash_began = 0, last_checked_buckets = 0;
    int was_rehashing = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = make_key(key, i);
        require(dict_add(d, key, len, val_for(i)) != NULL, "add", i);
        require(dict_size(d) == i + 1, "size after add", i);
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
        require(dict_find(d, key, len) != NULL, "find after inserting", i);
        if (i % 101 == 0) require(dict_add(d, key, len, NULL) == NULL, "duplicate refused", i);
    }

    /* Deletion, with the same check part-way through each shrink: a shrink
     * starts below 1/8 full and moves about one bucket per operation while
     * the operations delete keys, so a third of the way in is mid-rehash. */
    size_t shrink_checks = 0;
    was_rehashing = dict_is_rehashing(d);
    last_checked_buckets = 0;
    for (size_t i = 0; i < n; i++) {
        delete_key(d, i);
        require(dict_size(d) == n - i - 1, "size after delete", i);
        int rehashing = dict_is_rehashing(d);
        if (rehashing && !was_rehashing) rehash_began = i;
        was_rehashing = rehashing;
        size_t buckets = dict_bucket_count(d);
        if (rehashing && n - i - 1 >= 100 && buckets != last_checked_buckets &&
            i - rehash_began >= (n - i) / 2) {
            check_mid_rehash(d, i + 1, n, seen);
            last_checked_buckets = buckets;
            shrink_checks++;
        }
        if (i % 1009 == 0) {
            size_t len = make_key(key, i);
            int found = 1;
            dict_delete(d, key, len, &found);
            require(!found, "second delete finds nothing", i);
        }
    }
    ck_assert_uint_ge(shrink_checks, 1);
    ck_assert_uint_eq(dict_size(d), 0);
    finish_rehashing(d);
    ck_assert_uint_eq(dict_bucket_count(d), 4); /* shrunk all the way back */
    dict_free(d, NULL);
    free(seen);
}
END_TEST

/* The point of incremental rehashing: when a big table starts to grow, the
 * add that triggers it does not move everything, and the move is over after
 * at most one operation per old bucket. */
START_TEST(test_rehash_is_incremental) {
    dict *d = dict_create(0);
    const size_t old_size = 65536;
    add_keys(d, 0, old_size); /* used == size now; the next add grows */
    finish_rehashing(d);
    ck_assert_uint_eq(dict_bucket_count(d), old_size);
    add_keys(d, old_size, old_size + 1);
    ck_assert(dict_is_rehashing(d));
    ck_assert_uint_eq(dict_bucket_count(d), old_size + 2 * old_size);

    size_t ops = 0;
    while (dict_is_rehashing(d)) {
        require(find_key(d, ops % old_size) != NULL, "key found during the rehash", ops);
        ops++;
    }
    ck_assert_uint_gt(ops, old_size / 4); /* many small steps... */
    ck_assert_uint_le(ops, old_size);     /* ...each moving at least one bucket or 10 empty ones */
    ck_assert_uint_eq(dict_bucket_count(d), 2 * old_size);
    dict_free(d, NULL);
}
END_TEST

/* ============================ Iteration ============================ */

/* The safe iterator, started in the middle of a rehash, must return every
 * entry exactly once even though the caller deletes the entry it was just
 * given (the way a flush or an expire pass does it). Deletions alternate
 * between dict_delete_entry() and dict_delete() by name. */
START_TEST(test_iter_delete_current) {
    dict *d = dict_create(8);
    const size_t n = 4096; /* a power of two: the last add starts a grow */
    add_keys(d, 0, n);
    finish_rehashing(d);
    add_keys(d, n, n + 1);
    ck_assert(dict_is_rehashing(d));
    size_t total = n + 1;

    unsigned char *seen = calloc(total, 1);
    dict_iter it;
    dict_iter_init(&it, d);
    size_t visited = 0, deleted = 0;
    for (dict_entry *de; (de = dict_iter_next(&it)) != NULL; visited++) {
        size_t i = key_index(de);
        require(seen[i] == 0, "entry returned once", i);
        seen[i] = 1;
        if (i % 3 == 0) {
            dict_delete_entry(d, de);
            deleted++;
        } else if (i % 3 == 1) {
            delete_key(d, i);
            deleted++;
        }
    }
    dict_iter_release(&it);
    ck_assert_uint_eq(visited, total);
    ck_assert_uint_eq(dict_size(d), total - deleted);
    for (size_t i = 0; i < total; i++)
        require((find_key(d, i) != NULL) == (i % 3 == 2), "survivors are the i%3==2", i);

    /* Deleting every entry through the iterator empties the dict. */
    dict_iter_init(&it, d);
    for (dict_entry *de; (de = dict_iter_next(&it)) != NULL;)
        dict_delete_entry(d, de);
    dict_iter_release(&it);
    ck_assert_uint_eq(dict_size(d), 0);
    ck_assert_ptr_null(dict_random_entry(d, splitmix64, &(uint64_t){1}));
    dict_free(d, NULL);
    free(seen);
}
END_TEST

/* ============================ Random entries ============================ */

/* Chain lengths via dict_scan(): when no rehash is under way each call visits
 * exactly one bucket, so the entries one call reports are one chain. */
static void count_entry(dict_entry *de, void *ctx) {
    (void)de;
    (*(size_t *)ctx)++;
}

static void chain_length_range(dict *d, size_t *shortest_nonempty, size_t *longest) {
    *shortest_nonempty = SIZE_MAX;
    *longest = 0;
    uint64_t cursor = 0;
    do {
        size_t chain = 0;
        cursor = dict_scan(d, cursor, count_entry, &chain);
        if (chain > 0 && chain < *shortest_nonempty) *shortest_nonempty = chain;
        if (chain > *longest) *longest = chain;
    } while (cursor != 0);
}

/* Draw many random entries and check every key's frequency against the
 * uniform expectation with a chi-square statistic and a max/min ratio.
 * Keys' values are val_for(i) for i in [0, n). */
static void check_uniform(dict *d, size_t n, size_t draws, uint64_t *rng) {
    size_t *count = calloc(n, sizeof(size_t));
    for (size_t k = 0; k < draws; k++) {
        dict_entry *de = dict_random_entry(d, splitmix64, rng);
        size_t i = (size_t)(uintptr_t)de->val - 1;
        require(i < n, "random entry is one of ours", k);
        count[i]++;
    }
    double expected = (double)draws / (double)n, chi2 = 0;
    size_t min = SIZE_MAX, max = 0;
    for (size_t i = 0; i < n; i++) {
        double diff = (double)count[i] - expected;
        chi2 += diff * diff / expected;
        if (count[i] < min) min = count[i];
        if (count[i] > max) max = count[i];
    }
    free(count);
    /* With n - 1 degrees of freedom the statistic has mean n - 1 and
     * standard deviation sqrt(2(n - 1)); six deviations above the mean is
     * a one-in-a-million fluke for a fair sampler. Picking a random bucket
     * and then a random element of its chain gives keys in a 3-long chain a
     * third of the chance of a key alone in its bucket: chi2 in the
     * thousands. */
    double df = (double)(n - 1);
    ck_assert_msg(chi2 < df + 6 * sqrt(2 * df), "chi-square %.1f with %zu keys", chi2, n);
    ck_assert_msg((double)max / (double)min < 1.15, "max/min frequency %zu/%zu", max, min);
}

START_TEST(test_random_entry_uniform) {
    const size_t n = 50, draws = 400000;
    uint64_t rng = 42;
    dict *d = dict_create(0);
    ck_assert_ptr_null(dict_random_entry(d, splitmix64, &rng));
    add_keys(d, 0, n);
    finish_rehashing(d);

    /* The test only means something if the chains differ in length. */
    size_t shortest, longest;
    chain_length_range(d, &shortest, &longest);
    ck_assert_uint_eq(shortest, 1);
    ck_assert_uint_ge(longest, 3);
    check_uniform(d, n, draws, &rng);

    /* Again in the middle of a rehash, with entries in both tables: a live
     * iterator pauses the rehash so the layout stays mixed while we draw. */
    add_keys(d, n, 65); /* 64 keys fill 64 buckets; the 65th starts a grow */
    ck_assert(dict_is_rehashing(d));
    dict_iter it;
    dict_iter_init(&it, d);
    check_uniform(d, 65, draws, &rng);
    ck_assert(dict_is_rehashing(d));
    dict_iter_release(&it);
    dict_free(d, NULL);
}
END_TEST

/* ============================ Scan ============================ */

/* A scan's record of what it saw: counts per key index. */
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

/* Keys present for the whole scan must all be visited while the table grows
 * several times (2048 buckets to 32768), with scan calls landing in the middle
 * of rehashes. A scan in plain bucket order would miss keys here. */
START_TEST(test_scan_across_grow) {
    const size_t originals = 1000, total = 21000;
    dict *d = dict_create(0);
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

    for (size_t i = 0; i < originals; i++)
        require(seen[i], "original key visited", i);
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
    dict *d = dict_create(0);
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
            delete_key(d, next_delete++);
    } while (cursor != 0);

    for (size_t i = 0; i < kept; i++)
        require(seen[i], "kept key visited", i);
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
    dict *d = dict_create(0);
    unsigned char *seen = calloc(n, 1);
    scan_record rec = {seen, d};
    add_keys(d, 0, n);
    uint64_t cursor = 0;
    do
        cursor = dict_scan(d, cursor, record_and_delete, &rec);
    while (cursor != 0);
    for (size_t i = 0; i < n; i++)
        require(seen[i], "visited", i);
    ck_assert_uint_eq(dict_size(d), 0);
    ck_assert_uint_eq(dict_scan(d, 0, record_key, &rec), 0); /* empty: done at once */
    dict_free(d, NULL);
    free(seen);
}
END_TEST

/* ============================ Emptying and freeing ============================ */

static size_t values_freed;

static void count_and_free(void *val) {
    values_freed++;
    free(val);
}

/* dict_empty() is FLUSHALL: every value handed to free_val once, the dict
 * back to its initial size and memory, and still usable. Valgrind turns a
 * forgotten entry into a failure. */
START_TEST(test_empty_and_free) {
    dict *d = dict_create(16);
    size_t initial_memory = dict_memory_usage(d);
    char key[32];
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < 10000; i++) {
            size_t len = make_key(key, i);
            dict_add(d, key, len, malloc(8));
        }
        ck_assert(dict_is_rehashing(d) || dict_bucket_count(d) >= 10000);
        values_freed = 0;
        dict_empty(d, count_and_free);
        ck_assert_uint_eq(values_freed, 10000);
        ck_assert_uint_eq(dict_size(d), 0);
        ck_assert_uint_eq(dict_bucket_count(d), 4);
        ck_assert(!dict_is_rehashing(d));
        ck_assert_uint_eq(dict_memory_usage(d), initial_memory);
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
}
END_TEST

/* ============================ Prefetching and hash tags ============================ */

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
        uint64_t hash = dict_hash(key, make_key(key, i));
        dict_prefetch_bucket(d, hash);
        dict_prefetch_entry(d, hash);
        hash = splitmix64(&rng);
        dict_prefetch_bucket(d, hash);
        dict_prefetch_entry(d, hash);
    }
    dict_prefetch_bucket(d, 0);
    dict_prefetch_entry(d, 0);
    dict_prefetch_bucket(d, UINT64_MAX);
    dict_prefetch_entry(d, UINT64_MAX);
}

/* Prefetch the hashes of the dict's keys [0, n), of n + 100 absent keys and
 * of as many random values, then check that nothing changed: size, buckets, memory, rehashing state
 * and the place of every entry; and that afterwards (lookups may step the rehash) every key is
 * found with its value and the absent ones are not. */
static void check_prefetch_changes_nothing(dict *d, size_t n) {
    size_t size = dict_size(d), buckets = dict_bucket_count(d);
    size_t memory = dict_memory_usage(d);
    int rehashing = dict_is_rehashing(d);
    dict_entry **before = malloc((n + 1) * sizeof(*before));
    dict_entry **after = malloc((n + 1) * sizeof(*after));
    size_t entries = entry_layout(d, before, n + 1);
    ck_assert_uint_eq(entries, n);

    prefetch_many(d, 2 * n + 100);

    ck_assert_uint_eq(dict_size(d), size);
    ck_assert_uint_eq(dict_bucket_count(d), buckets);
    ck_assert_uint_eq(dict_memory_usage(d), memory);
    ck_assert_int_eq(dict_is_rehashing(d), rehashing); /* no rehash step either */
    ck_assert_uint_eq(entry_layout(d, after, n + 1), entries);
    ck_assert_int_eq(memcmp(before, after, entries * sizeof(*before)), 0);
    for (size_t i = 0; i < n; i++) {
        dict_entry *de = find_key(d, i);
        require(de != NULL && de->val == val_for(i), "key found after prefetching", i);
    }
    for (size_t i = n; i < 2 * n + 100; i++)
        require(find_key(d, i) == NULL, "absent key still absent", i);
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
    dict *d = dict_create(8);
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
    ck_assert(dict_is_rehashing(d));
    check_prefetch_changes_nothing(d, 4097);
    dict_free(d, NULL);
}
END_TEST

/* The tag is the top 16 bits of the key's hash, as dict.c's hash_tag() takes
 * it: the low bits would be useless, being the same for a whole chain. It is
 * set when the entry is made and must survive the moves of several grows. */
START_TEST(test_hash_tag_is_top_16_bits) {
    dict *d = dict_create(16);
    ck_assert_ptr_nonnull(dict_add(d, "", 0, NULL));
    ck_assert_uint_eq(dict_find(d, "", 0)->hash_tag, (uint16_t)(dict_hash("", 0) >> 48));
    dict_delete(d, "", 0, NULL);

    add_keys(d, 0, 5000);
    finish_rehashing(d);
    int tags_differ_from_low_bits = 0;
    char key[32];
    for (size_t i = 0; i < 5000; i++) {
        size_t len = make_key(key, i);
        uint64_t hash = dict_hash(key, len);
        dict_entry *de = dict_find(d, key, len);
        require(de != NULL && de->hash_tag == (uint16_t)(hash >> 48), "tag = top 16 bits", i);
        tags_differ_from_low_bits |= de->hash_tag != (uint16_t)hash;
    }
    ck_assert(tags_differ_from_low_bits); /* so the test tells the top from the bottom */
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
    dict *d = dict_create(0);
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
            ck_assert_ptr_eq(find_key(d, i)->val, val_for(i));
            ck_assert_ptr_eq(find_key(d, j)->val, val_for(j));
            pairs++;
        }
    }
    ck_assert_int_gt(pairs, 0);
    for (size_t i = 0; i < 10000; i++)
        if (i < SHARED_FIRST || i >= SHARED_LAST)
            require(find_key(d, i) == NULL, "absent key not found", i);

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
    ck_assert_msg(twin != 0, "no key shares a bucket and a tag with a present one");
    size_t len = (size_t)snprintf(other, sizeof(other), "p%05zx", probe - 1);
    ck_assert_uint_eq(len, make_key(key, twin));
    ck_assert_ptr_null(dict_find(d, other, len));
    int found = 1;
    ck_assert_ptr_null(dict_delete(d, other, len, &found));
    ck_assert_int_eq(found, 0);
    ck_assert_uint_eq(dict_size(d), SHARED_LAST - SHARED_FIRST);

    /* Added, it is a new key, not a duplicate of its twin. */
    ck_assert_ptr_nonnull(dict_add(d, other, len, val_for(0)));
    finish_rehashing(d);
    ck_assert_ptr_eq(dict_find(d, other, len)->val, val_for(0));
    for (size_t i = SHARED_FIRST; i < SHARED_LAST; i++)
        ck_assert_ptr_eq(find_key(d, i)->val, val_for(i));
    ck_assert_uint_eq(dict_size(d), SHARED_LAST - SHARED_FIRST + 1);
    dict_free(d, NULL);
}
END_TEST

/* ============================ Runner ============================ */

static Suite *dict_suite(void) {
    Suite *s = suite_create("dict");

    TCase *basics = tcase_create("basics");
    tcase_add_checked_fixture(basics, use_test_seed, NULL);
    tcase_add_test(basics, test_siphash_known_answers);
    tcase_add_test(basics, test_seed_changes_hash);
    tcase_add_test(basics, test_binary_keys);
    tcase_add_test(basics, test_add_refuses_duplicates);
    tcase_add_test(basics, test_metadata);
    tcase_add_test(basics, test_memory_usage);
    tcase_add_test(basics, test_empty_and_free);
    suite_add_tcase(s, basics);

    TCase *rehash = tcase_create("rehash");
    tcase_add_checked_fixture(rehash, use_test_seed, NULL);
    tcase_set_timeout(rehash, 120); /* the million-key test; seconds */
    tcase_add_test(rehash, test_million_keys);
    tcase_add_test(rehash, test_rehash_is_incremental);
    tcase_add_test(rehash, test_iter_delete_current);
    suite_add_tcase(s, rehash);

    TCase *sampling = tcase_create("random and scan");
    tcase_add_checked_fixture(sampling, use_test_seed, NULL);
    tcase_set_timeout(sampling, 60);
    tcase_add_test(sampling, test_random_entry_uniform);
    tcase_add_test(sampling, test_scan_across_grow);
    tcase_add_test(sampling, test_scan_across_shrink);
    tcase_add_test(sampling, test_scan_callback_deletes);
    suite_add_tcase(s, sampling);

    TCase *lookup = tcase_create("prefetch and hash tags");
    tcase_add_checked_fixture(lookup, use_test_seed, NULL);
    tcase_add_test(lookup, test_prefetch_changes_nothing);
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

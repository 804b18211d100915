/* unit_keyspace_embed.c -- unit tests of where step 12 keeps a value: a
 * value of at most VALUE_EMBED_MAX bytes inside its key's dict entry, after
 * the wheel's node when the key has a TTL, a longer one in a block of its
 * own (steps/12-fast-path/keyspace.c). Every change a key can go through is
 * tried from every kind of value to every other: a SET of another length, a
 * TTL given and taken away, expiry by the wheel. After each one the key
 * must hold exactly the bytes last written, with the TTL it should have,
 * the wheel must hold the keys with a TTL and no other, and when the keys
 * are gone the memory they took must be back. Links with the step's
 * keyspace.c, expire.c, timewheel.c and dict.c, with a controlled clock. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "clock.h"
#include "expire.h"
#include "keyspace.h"
#include "server.h"

struct server server; /* the commands' global; these tests use their own keyspace */
/* main.c's random source, which replication (chapter 09) names for its id;
 * these tests start no replication. */
void random_bytes(uint8_t *out, size_t n) {
    memset(out, 0, n);
}

static const int64_t T0 = 1700000000000LL; /* Unix ms at the start of each test */

/* Value lengths on both sides of the limit, and far from it. */
static const size_t LENGTHS[] = {0,   3, VALUE_EMBED_MAX - 1, VALUE_EMBED_MAX, VALUE_EMBED_MAX + 1,
                                 1000};
#define N_LENGTHS (sizeof(LENGTHS) / sizeof(LENGTHS[0]))

/* len bytes that say which write made them: a value's bytes are checked
 * against the last write, never against an earlier one. */
static arg fill(char *buf, size_t len, int write) {
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)('a' + (write * 7 + (int)i) % 26);
    return (arg){buf, len};
}

static dict_entry *find(keyspace *ks, const char *name) {
    return dict_find(ks->keys, name, strlen(name)); /* what is held, without lazy expiry */
}

/* Is the value inside the entry's own block? */
static int lives_in_entry(dict_entry *de) {
    uintptr_t v = (uintptr_t)de->val, start = (uintptr_t)de;
    return v > start && v < start + sizeof(dict_entry) + de->metadata_bytes;
}

/* The key holds want (len bytes), where it should, with deadline expire_ms (0: none). */
static void check_key(keyspace *ks, const char *name, const arg *want, int64_t expire_ms) {
    dict_entry *de = find(ks, name);
    ck_assert_msg(de != NULL, "key %s is missing", name);
    value *v = de->val;
    int short_value = want->len <= VALUE_EMBED_MAX;
    ck_assert_msg(v->len == want->len, "key %s: a value of %u bytes, expected %zu", name,
                  (unsigned)v->len, want->len);
    ck_assert_msg(memcmp(v->bytes, want->ptr, want->len) == 0, "key %s: wrong bytes", name);
    ck_assert_msg(v->embedded == short_value && lives_in_entry(de) == short_value,
                  "key %s: a value of %zu bytes %s its entry (embedded flag %u)", name, want->len,
                  lives_in_entry(de) ? "inside" : "outside", (unsigned)v->embedded);
    ck_assert_msg(key_expire_ms(de) == expire_ms, "key %s: expire_ms %lld, expected %lld", name,
                  (long long)key_expire_ms(de), (long long)expire_ms);
    ck_assert_msg((key_timer(de) != NULL) == (expire_ms != 0), "key %s: a node %s, TTL %lld", name,
                  key_timer(de) ? "present" : "absent", (long long)expire_ms);
    if (key_timer(de)) ck_assert_ptr_eq(dict_entry_from_metadata(key_timer(de)), de);
}

/* From each kind of value to each other, with and without a TTL on each
 * side: SET the first, maybe give it a TTL, SET the second (which drops the
 * TTL), maybe give one again, take it away, give it back. */
START_TEST(every_change_keeps_the_last_bytes_and_the_right_ttl) {
    clock_freeze(T0, 0);
    keyspace ks;
    keyspace_init(&ks, T0);
    size_t before = mem_used();
    static char a[2000], b[2000];
    int write = 0;
    for (size_t i = 0; i < N_LENGTHS; i++) {
        for (size_t j = 0; j < N_LENGTHS; j++) {
            for (int ttl = 0; ttl < 4; ttl++) {
                const char *name = "key:embed";
                arg key = {name, strlen(name)};
                arg first = fill(a, LENGTHS[i], ++write);
                dict_entry *de = keyspace_set(&ks, &key, &first, T0);
                int64_t at = (ttl & 1) ? T0 + 5000 : 0;
                if (at) de = expire_set(&ks, de, at);
                check_key(&ks, name, &first, at);
                arg second = fill(b, LENGTHS[j], ++write);
                de = keyspace_set(&ks, &key, &second, T0);
                check_key(&ks, name, &second, 0);
                if (ttl & 2) {
                    de = expire_set(&ks, de, T0 + 7000);
                    check_key(&ks, name, &second, T0 + 7000);
                    de = expire_set(&ks, de, T0 + 9000); /* moved, in place */
                    check_key(&ks, name, &second, T0 + 9000);
                }
                de = expire_remove(&ks, de);
                check_key(&ks, name, &second, 0);
                de = expire_set(&ks, de, T0 + 3000);
                check_key(&ks, name, &second, T0 + 3000);
                ck_assert_uint_eq(tw_count(&ks.wheel), 1);
                ck_assert_int_eq(keyspace_delete(&ks, &key, T0), 1);
                ck_assert_uint_eq(tw_count(&ks.wheel), 0);
            }
        }
    }
    ck_assert_uint_eq(keyspace_size(&ks), 0);
    ck_assert_uint_eq(mem_used(), before);
    keyspace_free(&ks);
    clock_thaw();
}
END_TEST

/* A value as long as the one it replaces is copied where the old one was:
 * the entry does not move. One of another length moves it. */
START_TEST(a_value_of_the_same_length_is_written_in_place) {
    clock_freeze(T0, 0);
    keyspace ks;
    keyspace_init(&ks, T0);
    arg key = {"k", 1}, abc = {"abc", 3}, xyz = {"xyz", 3}, longer = {"abcd", 4};
    dict_entry *de = keyspace_set(&ks, &key, &abc, T0);
    ck_assert_ptr_eq(keyspace_set(&ks, &key, &xyz, T0), de);
    check_key(&ks, "k", &xyz, 0);
    de = keyspace_set(&ks, &key, &longer, T0);
    check_key(&ks, "k", &longer, 0);
    keyspace_free(&ks);
    clock_thaw();
}
END_TEST

/* Many keys, short and long values, half with a TTL: the wheel finds each
 * entry from the node at the front of its metadata and deletes exactly the
 * keys whose time has come, and the memory comes back. */
START_TEST(the_wheel_expires_keys_whatever_their_values) {
    clock_freeze(T0, 0);
    keyspace ks;
    keyspace_init(&ks, T0);
    size_t before = mem_used();
    static char buf[2000];
    enum { KEYS = 600 };
    for (int k = 0; k < KEYS; k++) {
        char name[32];
        arg key = {name, (size_t)snprintf(name, sizeof(name), "key:%d", k)};
        arg val = fill(buf, LENGTHS[k % N_LENGTHS], k);
        dict_entry *de = keyspace_set(&ks, &key, &val, T0);
        if (k % 2) expire_set(&ks, de, T0 + 10 + k % 50);
    }
    ck_assert_uint_eq(tw_count(&ks.wheel), KEYS / 2);
    clock_advance_ms(100);
    size_t deleted = 0;
    for (int turn = 0; turn < 10 && tw_count(&ks.wheel) > 0; turn++)
        deleted += expire_due_keys(&ks, clock_now_ms(), 1000);
    ck_assert_uint_eq(deleted, KEYS / 2);
    ck_assert_uint_eq(keyspace_size(&ks), KEYS / 2);
    for (int k = 0; k < KEYS; k += 2) {
        char name[32];
        snprintf(name, sizeof(name), "key:%d", k);
        arg want = fill(buf, LENGTHS[k % N_LENGTHS], k);
        check_key(&ks, name, &want, 0);
    }
    keyspace_clear(&ks);
    ck_assert_uint_eq(keyspace_size(&ks), 0);
    keyspace_free(&ks);
    keyspace_init(&ks, T0);
    ck_assert_uint_le(mem_used(), before);
    keyspace_free(&ks);
    clock_thaw();
}
END_TEST

int main(void) {
    Suite *s = suite_create("12-fast-path: short values in their key's entry");
    TCase *tc = tcase_create("embed");
    tcase_add_test(tc, every_change_keeps_the_last_bytes_and_the_right_ttl);
    tcase_add_test(tc, a_value_of_the_same_length_is_written_in_place);
    tcase_add_test(tc, the_wheel_expires_keys_whatever_their_values);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

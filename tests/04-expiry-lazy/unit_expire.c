/* unit_expire.c -- unit tests of chapter 04's expiry arithmetic, lazy
 * deletion and the list of keys with a TTL, with a controlled clock.
 * Links with the step's keyspace.c and expire.c, not its main.c. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../helpers/dict_inspect.h" /* the walk over every key: step's dict.c compiled in */
#include "clock.h"
#include "expire.h"
#include "keyspace.h"
#include "server.h"

struct server server; /* the commands' global; these tests use their own keyspace */

static const int64_t T0 = 1700000000000LL; /* a fixed "now", Unix ms */

static arg A(const char *s) {
    arg a = {s, strlen(s)};
    return a;
}

START_TEST(absolute_time_and_overflow) {
    int64_t out;
    ck_assert(expire_absolute_ms(10, 0, T0, &out) && out == T0 + 10000);
    ck_assert(expire_absolute_ms(10, 1, T0, &out) && out == T0 + 10);
    ck_assert(expire_absolute_ms(-5, 0, T0, &out) && out == T0 - 5000); /* past: legal */
    /* Seconds beyond LLONG_MAX/1000 cannot be turned into ms. */
    ck_assert(!expire_absolute_ms(LLONG_MAX / 1000 + 1, 0, 0, &out));
    ck_assert(!expire_absolute_ms(LLONG_MIN / 1000 - 1, 0, 0, &out));
    /* Redis's own example: EXPIRE foo 9223370399119966 overflows when the
     * current time is added. */
    ck_assert(!expire_absolute_ms(9223370399119966LL, 0, T0, &out));
    /* PEXPIREAT is relative to 0: LLONG_MAX itself is accepted... */
    ck_assert(expire_absolute_ms(LLONG_MAX, 1, 0, &out) && out == LLONG_MAX);
    /* ...but PEXPIRE LLONG_MAX overflows. */
    ck_assert(!expire_absolute_ms(LLONG_MAX, 1, T0, &out));
}
END_TEST

START_TEST(ttl_rounding) {
    ck_assert_int_eq(ttl_reply_value(T0 + 50000, T0, 0), 50);
    ck_assert_int_eq(ttl_reply_value(T0 + 49500, T0, 0), 50); /* (ms + 500) / 1000 */
    ck_assert_int_eq(ttl_reply_value(T0 + 49499, T0, 0), 49);
    ck_assert_int_eq(ttl_reply_value(T0 + 499, T0, 0), 0);
    ck_assert_int_eq(ttl_reply_value(T0 + 1234, T0, 1), 1234);
    ck_assert_int_eq(ttl_reply_value(T0 - 10, T0, 1), 0); /* never negative */
}
END_TEST

START_TEST(lazy_deletion_happens_strictly_after_the_deadline) {
    keyspace ks;
    keyspace_init(&ks);
    clock_freeze(T0, 0);
    arg k = A("k"), v = A("v");
    dict_entry *de = keyspace_set(&ks, &k, &v, clock_now_ms());
    expire_set(&ks, de, T0 + 100);
    clock_advance_ms(100); /* now == deadline: still alive (expired means now > when) */
    ck_assert_ptr_nonnull(keyspace_find(&ks, &k, clock_now_ms()));
    clock_advance_ms(1);
    ck_assert_uint_eq(keyspace_size(&ks), 1); /* nobody looked: still held */
    ck_assert_ptr_null(keyspace_find(&ks, &k, clock_now_ms()));
    ck_assert_uint_eq(keyspace_size(&ks), 0);
    ck_assert_uint_eq(ks.expired_keys, 1);
    ck_assert_uint_eq(ks.ttl_count, 0);
    clock_thaw();
    keyspace_free(&ks);
}
END_TEST

START_TEST(overwriting_an_expired_key_counts_an_expiry_and_clears_the_ttl) {
    keyspace ks;
    keyspace_init(&ks);
    arg k = A("k"), v = A("v");
    dict_entry *de = keyspace_set(&ks, &k, &v, T0);
    expire_set(&ks, de, T0 + 10);
    de = keyspace_set(&ks, &k, &v, T0 + 11);
    ck_assert_uint_eq(ks.expired_keys, 1);
    ck_assert_int_eq(((value *)de->val)->expire_at_ms, 0);
    ck_assert_uint_eq(ks.ttl_count, 0);
    keyspace_free(&ks);
}
END_TEST

/* ttl_count, INFO's expires=, is the number of keys whose value has a TTL. */
static void check_ttl_list(keyspace *ks, size_t expected) {
    ck_assert_uint_eq(ks->ttl_count, expected);
    size_t with_ttl = 0;
    dict_iter it;
    dict_iter_init(&it, ks->keys);
    for (dict_entry *de; (de = dict_iter_next(&it)) != NULL;)
        with_ttl += ((value *)de->val)->expire_at_ms != 0;
    dict_iter_release(&it);
    ck_assert_uint_eq(with_ttl, expected);
}

START_TEST(ttl_count_stays_exact) {
    keyspace ks;
    keyspace_init(&ks);
    char name[32];
    arg v = A("v");
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "key:%d", i);
        arg k = A(name);
        dict_entry *de = keyspace_set(&ks, &k, &v, T0);
        if (i % 2 == 0) expire_set(&ks, de, T0 + 1000 + i);
    }
    check_ttl_list(&ks, 500);
    size_t expected = 500;
    for (int i = 0; i < 1000; i += 3) { /* delete, persist or overwrite a third */
        snprintf(name, sizeof(name), "key:%d", i);
        arg k = A(name);
        int had_ttl = i % 2 == 0;
        if (i % 9 == 0) {
            ck_assert_int_eq(keyspace_delete(&ks, &k, T0), 1);
        } else if (i % 9 == 3) {
            ck_assert_int_eq(expire_remove(&ks, keyspace_find(&ks, &k, T0)), had_ttl);
        } else {
            keyspace_set(&ks, &k, &v, T0);
        }
        expected -= had_ttl;
        check_ttl_list(&ks, expected);
    }
    keyspace_clear(&ks);
    check_ttl_list(&ks, 0);
    keyspace_free(&ks);
}
END_TEST

int main(void) {
    Suite *s = suite_create("04-expiry-lazy");
    TCase *tc = tcase_create("expire");
    tcase_add_test(tc, absolute_time_and_overflow);
    tcase_add_test(tc, ttl_rounding);
    tcase_add_test(tc, lazy_deletion_happens_strictly_after_the_deadline);
    tcase_add_test(tc, overwriting_an_expired_key_counts_an_expiry_and_clears_the_ttl);
    tcase_add_test(tc, ttl_count_stays_exact);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

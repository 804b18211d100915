/* unit_expire_wheel.c -- unit tests of chapter 06's integration of the timing
 * wheel with the keyspace: expire_due_keys() with a controlled clock. The
 * wheel itself is tested in unit_timewheel.c. Links with the step's
 * keyspace.c, expire.c and timewheel.c. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "expire.h"
#include "keyspace.h"
#include "server.h"

struct server server; /* the commands' global; these tests use their own keyspace */

static const int64_t T0 = 1700000000000LL; /* Unix ms at the start of each test */

static dict_entry *put(keyspace *ks, int i, int64_t expire_at) {
    char name[32];
    snprintf(name, sizeof(name), "key:%d", i);
    arg k = {name, strlen(name)}, v = {"v", 1};
    dict_entry *de = keyspace_set(ks, &k, &v, clock_now_ms());
    if (expire_at) expire_set(ks, de, expire_at);
    return de;
}

static int exists(keyspace *ks, int i) {
    char name[32];
    snprintf(name, sizeof(name), "key:%d", i);
    arg k = {name, strlen(name)};
    return dict_find(ks->keys, k.ptr, k.len) != NULL; /* no lazy expiry: what is held */
}

START_TEST(deleted_in_the_first_ms_after_the_deadline_never_before) {
    clock_freeze(T0, 0);
    keyspace ks;
    keyspace_init(&ks, T0);
    put(&ks, 1, T0 + 100);
    clock_advance_ms(100); /* now == deadline */
    ck_assert_uint_eq(expire_due_keys(&ks, clock_now_ms(), 100), 0);
    ck_assert(exists(&ks, 1));
    clock_advance_ms(1); /* now > deadline */
    ck_assert_uint_eq(expire_due_keys(&ks, clock_now_ms(), 100), 1);
    ck_assert(!exists(&ks, 1));
    ck_assert_uint_eq(ks.expired_keys, 1);
    ck_assert_int_eq(ks.max_lateness_ms, 0);
    ck_assert_uint_eq(tw_count(&ks.wheel), 0);
    keyspace_free(&ks);
    clock_thaw();
}
END_TEST

START_TEST(a_burst_is_deleted_a_budget_at_a_time) {
    clock_freeze(T0, 0);
    keyspace ks;
    keyspace_init(&ks, T0);
    for (int i = 0; i < 5000; i++)
        put(&ks, i, T0 + 10);
    clock_advance_ms(11);
    for (int call = 0; call < 5; call++)
        ck_assert_uint_eq(expire_due_keys(&ks, clock_now_ms(), 1000), 1000);
    ck_assert_uint_eq(expire_due_keys(&ks, clock_now_ms(), 1000), 0);
    ck_assert_uint_eq(keyspace_size(&ks), 0);
    keyspace_free(&ks);
    clock_thaw();
}
END_TEST

START_TEST(a_clock_that_goes_back_deletes_nothing_early) {
    clock_freeze(T0, 0);
    keyspace ks;
    keyspace_init(&ks, T0);
    put(&ks, 1, T0 + 1000);
    put(&ks, 2, T0 + 5000);
    clock_advance_ms(2000);
    ck_assert_uint_eq(expire_due_keys(&ks, clock_now_ms(), 100), 1); /* key 1 */
    clock_advance_ms(-1500);                                         /* back to T0 + 500 */
    put(&ks, 3, T0 + 800);
    ck_assert_uint_eq(expire_due_keys(&ks, clock_now_ms(), 100), 0);
    ck_assert(exists(&ks, 2) && exists(&ks, 3));
    clock_advance_ms(301); /* T0 + 801: key 3 is due by its own deadline */
    ck_assert_uint_eq(expire_due_keys(&ks, clock_now_ms(), 100), 1);
    ck_assert(!exists(&ks, 3) && exists(&ks, 2));
    clock_advance_ms(4200); /* T0 + 5001 */
    ck_assert_uint_eq(expire_due_keys(&ks, clock_now_ms(), 100), 1);
    ck_assert_uint_eq(keyspace_size(&ks), 0);
    keyspace_free(&ks);
    clock_thaw();
}
END_TEST

START_TEST(persist_overwrite_delete_and_flush_cancel_the_schedule) {
    clock_freeze(T0, 0);
    keyspace ks;
    keyspace_init(&ks, T0);
    dict_entry *persisted = put(&ks, 1, T0 + 10);
    put(&ks, 2, T0 + 10);
    put(&ks, 3, T0 + 10);
    put(&ks, 4, T0 + 10);
    expire_set(&ks, put(&ks, 5, T0 + 10), T0 + 100000); /* extended */
    ck_assert_int_eq(expire_remove(&ks, persisted), 1);
    put(&ks, 2, 0); /* overwritten without a TTL */
    arg k3 = {"key:3", 5};
    ck_assert_int_eq(keyspace_delete(&ks, &k3, clock_now_ms()), 1);
    ck_assert_uint_eq(tw_count(&ks.wheel), 2); /* key:4, and key:5's new deadline */
    clock_advance_ms(50);
    ck_assert_uint_eq(expire_due_keys(&ks, clock_now_ms(), 100), 1); /* key:4 only */
    ck_assert(exists(&ks, 1) && exists(&ks, 2) && exists(&ks, 5) && !exists(&ks, 4));
    keyspace_clear(&ks);
    ck_assert_uint_eq(tw_count(&ks.wheel), 0);
    put(&ks, 6, clock_now_ms() + 10);
    clock_advance_ms(11);
    ck_assert_uint_eq(expire_due_keys(&ks, clock_now_ms(), 100), 1);
    keyspace_free(&ks);
    clock_thaw();
}
END_TEST

START_TEST(lateness_is_measured) {
    clock_freeze(T0, 0);
    keyspace ks;
    keyspace_init(&ks, T0);
    put(&ks, 1, T0 + 10);
    clock_advance_ms(61); /* the loop was busy for 50 ms */
    ck_assert_uint_eq(expire_due_keys(&ks, clock_now_ms(), 100), 1);
    ck_assert_int_eq(ks.max_lateness_ms, 50);
    keyspace_free(&ks);
    clock_thaw();
}
END_TEST

int main(void) {
    Suite *s = suite_create("06-timewheel: keyspace and wheel");
    TCase *tc = tcase_create("expire");
    tcase_add_test(tc, deleted_in_the_first_ms_after_the_deadline_never_before);
    tcase_add_test(tc, a_burst_is_deleted_a_budget_at_a_time);
    tcase_add_test(tc, a_clock_that_goes_back_deletes_nothing_early);
    tcase_add_test(tc, persist_overwrite_delete_and_flush_cancel_the_schedule);
    tcase_add_test(tc, lateness_is_measured);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

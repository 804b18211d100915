/* unit_active_expire.c -- unit tests of chapter 05's active expire cycle,
 * on its own: a keyspace built here, a frozen clock, a fixed random seed.
 * Links with the step's keyspace.c, expire.c and active_expire.c. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "active_expire.h"
#include "../helpers/dict_inspect.h" /* the walk over every key: step's dict.c compiled in */
#include "clock.h"
#include "expire.h"
#include "keyspace.h"
#include "server.h"

struct server server; /* the commands' global; these tests use their own keyspace */

static const int64_t T0 = 1700000000000LL; /* Unix ms at the start of each test */
static const int64_t MONO0 = 1000000;      /* monotonic µs at the start */

/* n keys with a TTL; the first `expired` of them already past their time,
 * the others due in an hour. Plus `persistent` keys without a TTL. */
static void load(keyspace *ks, int n, int expired, int persistent) {
    char name[32];
    arg v = {"v", 1};
    for (int i = 0; i < n + persistent; i++) {
        snprintf(name, sizeof(name), "key:%d", i);
        arg k = {name, strlen(name)};
        dict_entry *de = keyspace_set(ks, &k, &v, T0);
        if (i < n) expire_set(ks, de, i < expired ? T0 - 1 : T0 + 3600 * 1000);
    }
}

/* How many keys with a TTL are past their time right now. */
static size_t count_stale(keyspace *ks) {
    size_t stale = 0;
    for (size_t i = 0; i < ks->ttl_count; i++)
        stale += key_is_expired(ks->ttl_keys[i]->val, clock_now_ms());
    return stale;
}

/* Run slow cycles until one deletes nothing; returns how many ran. */
static int cycles_until_quiet(active_expire *ae, keyspace *ks, int hz) {
    int cycles = 0;
    while (active_expire_cycle(ae, ks, CYCLE_SLOW, hz) > 0)
        cycles++;
    return cycles + 1;
}

/* The list the cycle samples: every key with a TTL is in ttl_keys exactly
 * once, at the index its value records, and no other key is. Checked after
 * every change, through PERSIST, deletion, overwrite and the cycle's own
 * deletions, each of which moves the last entry into a hole. */
static void check_ttl_list(keyspace *ks) {
    size_t with_ttl = 0;
    dict_iter it;
    dict_iter_init(&it, ks->keys);
    for (dict_entry *de; (de = dict_iter_next(&it)) != NULL;) {
        value *v = de->val;
        if (v->expire_at_ms == 0) continue;
        with_ttl++;
        ck_assert_msg(v->ttl_index < ks->ttl_count && ks->ttl_keys[v->ttl_index] == de,
                      "a key with a TTL records index %u, but ttl_keys[%u] is not its entry "
                      "(ttl_count %zu)",
                      v->ttl_index, v->ttl_index, ks->ttl_count);
    }
    dict_iter_release(&it);
    ck_assert_uint_eq(ks->ttl_count, with_ttl);
}

START_TEST(ttl_list_holds_exactly_the_keys_with_a_ttl) {
    keyspace ks;
    keyspace_init(&ks);
    clock_freeze(T0, MONO0);
    load(&ks, 2000, 500, 1000);
    check_ttl_list(&ks);
    char name[32];
    arg v = {"v", 1};
    for (int i = 0; i < 3000; i += 7) { /* persist, delete or overwrite one in 7 */
        snprintf(name, sizeof(name), "key:%d", i);
        arg k = {name, strlen(name)};
        dict_entry *de = keyspace_find(&ks, &k, T0);
        if (de != NULL && i % 3 == 0) expire_remove(&ks, de);
        if (de != NULL && i % 3 == 1) keyspace_delete(&ks, &k, T0);
        if (i % 3 == 2) keyspace_set(&ks, &k, &v, T0);
        check_ttl_list(&ks);
    }
    size_t stale_before = count_stale(&ks);
    active_expire ae;
    active_expire_init(&ae, 1, 42);
    cycles_until_quiet(&ae, &ks, 10);
    check_ttl_list(&ks);
    ck_assert_uint_lt(count_stale(&ks), stale_before); /* the cycle deleted some */
    keyspace_clear(&ks);
    ck_assert_uint_eq(ks.ttl_count, 0);
    keyspace_free(&ks);
    clock_thaw();
}
END_TEST

START_TEST(converges_to_the_acceptable_stale_share) {
    keyspace ks;
    keyspace_init(&ks);
    clock_freeze(T0, MONO0);
    load(&ks, 100000, 80000, 0);
    active_expire ae;
    active_expire_init(&ae, 1, 42);
    /* One cycle (no time cap: the frozen clock never says the budget is
     * spent) samples until one sample of 20 looks clean (at most 2 expired).
     * Over thousands of rounds such a lucky sample comes early: the cycle
     * stops well short of zero, and the next cycles continue. */
    active_expire_cycle(&ae, &ks, CYCLE_SLOW, 10);
    size_t stale = count_stale(&ks);
    double share = 100.0 * (double)stale / (double)ks.ttl_count;
    printf("effort 1, after 1 cycle: %zu of %zu keys with a TTL stale (%.1f%%)\n", stale,
           ks.ttl_count, share);
    ck_assert_double_lt(share, 80.0);
    ck_assert_uint_gt(stale, 0);
    /* 100 seconds of cron at hz 10: every cycle still removes what its first
     * sample finds, so the share keeps falling below the acceptable 10%. */
    for (int i = 0; i < 1000; i++)
        active_expire_cycle(&ae, &ks, CYCLE_SLOW, 10);
    stale = count_stale(&ks);
    share = 100.0 * (double)stale / (double)ks.ttl_count;
    printf("effort 1, after 1000 cycles: %zu stale (%.1f%%), estimate %.1f%%\n", stale, share,
           ae.stale_perc);
    ck_assert_double_le(share, 10.0);
    ck_assert_uint_gt(stale, 0);                    /* probabilistic: it stops short of zero */
    ck_assert_uint_eq(ks.ttl_count - stale, 20000); /* no live key lost */
    clock_thaw();
    keyspace_free(&ks);
}
END_TEST

START_TEST(stops_at_the_time_budget) {
    keyspace ks;
    keyspace_init(&ks);
    clock_freeze(T0, MONO0);
    load(&ks, 100000, 100000, 0);
    active_expire ae;
    active_expire_init(&ae, 1, 7);
    /* Every look at the clock now "costs" 30 ms, more than the 25 ms budget
     * of a slow cycle at hz 10: the first check (after 16 rounds) must stop. */
    clock_auto_advance_us(30000);
    uint64_t deleted = active_expire_cycle(&ae, &ks, CYCLE_SLOW, 10);
    ck_assert_uint_eq(deleted, 16 * 20);
    ck_assert_uint_eq(ae.time_cap_reached, 1);
    ck_assert_int_eq(ae.timelimit_exit_last, 1);
    ck_assert_int_ge(ae.cycle_time_used_us, 30000);
    clock_thaw();
    keyspace_free(&ks);
}
END_TEST

/* On a round that is both a look at the clock and a clean sample, the clock
 * comes first, as in Redis's activeExpireCycle() (expire.c, 7.0.15): a cycle
 * past its budget stops on the time limit, and counts it, even when that
 * round's sample was clean. With one key a round, a round is clean exactly
 * when it draws a live key, and every round before it deletes one expired
 * key, so a cycle that stops clean at round r has deleted r - 1 keys. For
 * each seed the cycle runs twice on the same keys: first with a budget the
 * frozen clock never spends, which gives r; then with the budget spent at
 * the first look at the clock, the 16th round, where it must stop: on the
 * time limit exactly when it got that far (r >= 16), with min(r - 1, 16)
 * keys deleted. A cycle that tested the sample first would stop clean at a
 * 16th round that drew a live key, without counting the time limit. */
START_TEST(time_limit_is_checked_before_the_stale_share) {
    int reached_16_clean = 0; /* seeds whose first clean round is the 16th */
    for (uint64_t seed = 1; seed <= 500; seed++) {
        uint64_t deleted[2], caps[2];
        int exit_last[2];
        for (int spent = 0; spent < 2; spent++) {
            keyspace ks;
            keyspace_init(&ks);
            clock_freeze(T0, MONO0);
            load(&ks, 104, 100, 0); /* 100 keys past their time, 4 due in an hour */
            active_expire ae;
            active_expire_init(&ae, 1, seed);
            ae.keys_per_loop = 1;
            /* 30 ms a look, over the 25 ms budget of hz 10; or no time at all */
            clock_auto_advance_us(spent ? 30000 : 0);
            deleted[spent] = active_expire_cycle(&ae, &ks, CYCLE_SLOW, 10);
            caps[spent] = ae.time_cap_reached;
            exit_last[spent] = ae.timelimit_exit_last;
            clock_thaw();
            keyspace_free(&ks);
        }
        ck_assert_msg(caps[0] == 0, "seed %llu: a budget never spent was reported spent",
                      (unsigned long long)seed);
        uint64_t clean_round = deleted[0] + 1;
        uint64_t want_deleted = clean_round - 1 < 16 ? clean_round - 1 : 16;
        int want_cap = clean_round >= 16;
        reached_16_clean += clean_round == 16;
        ck_assert_msg(deleted[1] == want_deleted && caps[1] == (uint64_t)want_cap &&
                          exit_last[1] == want_cap,
                      "seed %llu: first clean sample at round %llu; with the budget spent, "
                      "expected %llu keys deleted and the time limit counted %d time(s), got "
                      "%llu deleted, counted %llu, timelimit_exit_last %d",
                      (unsigned long long)seed, (unsigned long long)clean_round,
                      (unsigned long long)want_deleted, want_cap, (unsigned long long)deleted[1],
                      (unsigned long long)caps[1], exit_last[1]);
    }
    printf("seeds whose first clean sample was the 16th round: %d of 500\n", reached_16_clean);
    ck_assert_msg(reached_16_clean > 0,
                  "no seed of 500 had its first clean sample on the 16th round: nothing tested");
}
END_TEST

/* With a budget that runs out, effort 10 (65 keys a round, 43% of a period)
 * reclaims the backlog in fewer cycles than effort 1. */
START_TEST(more_effort_converges_in_fewer_cycles) {
    int cycles[2];
    int efforts[2] = {1, 10};
    for (int e = 0; e < 2; e++) {
        keyspace ks;
        keyspace_init(&ks);
        clock_freeze(T0, MONO0);
        load(&ks, 100000, 80000, 0);
        active_expire ae;
        active_expire_init(&ae, efforts[e], 42);
        clock_auto_advance_us(1000); /* each clock check: 1 ms of work */
        cycles[e] = cycles_until_quiet(&ae, &ks, 10);
        clock_thaw();
        keyspace_free(&ks);
    }
    printf("cycles to converge with a time cap: effort 1: %d, effort 10: %d\n", cycles[0],
           cycles[1]);
    ck_assert_int_lt(cycles[1], cycles[0]);
}
END_TEST

START_TEST(never_deletes_a_key_before_its_deadline) {
    keyspace ks;
    keyspace_init(&ks);
    clock_freeze(T0, MONO0);
    char name[32];
    arg v = {"v", 1};
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "key:%d", i);
        arg k = {name, strlen(name)};
        expire_set(&ks, keyspace_set(&ks, &k, &v, T0), T0); /* due exactly now */
    }
    active_expire ae;
    active_expire_init(&ae, 10, 3);
    for (int i = 0; i < 50; i++)
        active_expire_cycle(&ae, &ks, CYCLE_SLOW, 10);
    ck_assert_uint_eq(keyspace_size(&ks), 1000); /* now == deadline: not yet */
    clock_advance_ms(1);
    cycles_until_quiet(&ae, &ks, 10);
    ck_assert_uint_eq(keyspace_size(&ks), 0);
    clock_thaw();
    keyspace_free(&ks);
}
END_TEST

START_TEST(persisted_and_extended_keys_survive) {
    keyspace ks;
    keyspace_init(&ks);
    clock_freeze(T0, MONO0);
    load(&ks, 1000, 0, 0);
    arg k0 = {"key:0", 5}, k1 = {"key:1", 5};
    expire_remove(&ks, keyspace_find(&ks, &k0, T0));            /* PERSIST */
    expire_set(&ks, keyspace_find(&ks, &k1, T0), T0 + 7200000); /* extended */
    clock_advance_ms(3600 * 1000 + 1);                          /* the others are due */
    active_expire ae;
    active_expire_init(&ae, 1, 5);
    while (ks.ttl_count > 1)
        active_expire_cycle(&ae, &ks, CYCLE_SLOW, 10);
    ck_assert_ptr_nonnull(keyspace_find(&ks, &k0, clock_now_ms()));
    ck_assert_ptr_nonnull(keyspace_find(&ks, &k1, clock_now_ms()));
    ck_assert_uint_eq(keyspace_size(&ks), 2);
    clock_thaw();
    keyspace_free(&ks);
}
END_TEST

START_TEST(disabled_cycle_does_nothing_and_fast_cycle_waits_for_a_backlog) {
    keyspace ks;
    keyspace_init(&ks);
    clock_freeze(T0, MONO0);
    load(&ks, 1000, 1000, 0);
    active_expire ae;
    active_expire_init(&ae, 1, 9);
    ae.enabled = 0;
    ck_assert_uint_eq(active_expire_cycle(&ae, &ks, CYCLE_SLOW, 10), 0);
    ae.enabled = 1;
    /* No slow cycle has hit its limit and the stale estimate is 0: the fast
     * cycle has no reason to run. */
    ck_assert_uint_eq(active_expire_cycle(&ae, &ks, CYCLE_FAST, 10), 0);
    ck_assert_uint_eq(keyspace_size(&ks), 1000);
    ae.stale_perc = 50; /* as if slow cycles kept finding expired keys */
    ck_assert_uint_gt(active_expire_cycle(&ae, &ks, CYCLE_FAST, 10), 0);
    clock_thaw();
    keyspace_free(&ks);
}
END_TEST

int main(void) {
    Suite *s = suite_create("05-active-sampling");
    TCase *tc = tcase_create("cycle");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, ttl_list_holds_exactly_the_keys_with_a_ttl);
    tcase_add_test(tc, converges_to_the_acceptable_stale_share);
    tcase_add_test(tc, stops_at_the_time_budget);
    tcase_add_test(tc, time_limit_is_checked_before_the_stale_share);
    tcase_add_test(tc, more_effort_converges_in_fewer_cycles);
    tcase_add_test(tc, never_deletes_a_key_before_its_deadline);
    tcase_add_test(tc, persisted_and_extended_keys_survive);
    tcase_add_test(tc, disabled_cycle_does_nothing_and_fast_cycle_waits_for_a_backlog);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

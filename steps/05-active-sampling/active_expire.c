/* active_expire.c -- Redis's active expire cycle, with random sampling
 * (chapter 05). See active_expire.h for the algorithm in five lines.
 *
 * ==== Why a uniform sample matters ====
 *
 * The cycle's stop rule reads the expired share of a sample as an estimate
 * of the expired share of all keys with a TTL. That only works if every key
 * is equally likely to be picked. keyspace.ttl_keys is a dense array, so a
 * random index is exactly uniform. Picking "a random bucket of the hash
 * table, then a random key in its chain" is not: a key alone in its bucket is
 * picked as often as a whole chain of three, so keys in long chains are
 * under-sampled. (Rejection sampling, which draws again when the position
 * it picked lies past the end of the chain, corrects for that; Redis up to 5
 * used the biased pick.)
 *
 * ==== Why it converges to a stale share, not to zero ====
 *
 * The loop stops as soon as a sample is at most 10% expired. If 9% of the
 * keys with a TTL are expired, a sample of 20 usually finds one or two, and
 * the cycle stops: those keys wait, perhaps for many cycles. By design the
 * server tolerates some expired keys in memory in exchange for never
 * spending more than its budget. The share it settles at depends on how
 * fast keys expire; expired_stale_perc in INFO estimates it. */
#include "active_expire.h"

#include "clock.h"
#include "expire.h"

#define CLOCK_CHECK_EVERY 16 /* rounds between two looks at the clock */

/* The cycle's settings at the default effort (1), with Redis's names and
 * values (expire.c); each grows or shrinks with the effort as Redis's do. */
#define ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP    20   /* keys sampled per round */
#define ACTIVE_EXPIRE_CYCLE_FAST_DURATION    1000 /* µs a fast cycle may take */
#define ACTIVE_EXPIRE_CYCLE_SLOW_TIME_PERC   25   /* % of a cron period a slow cycle may take */
#define ACTIVE_EXPIRE_CYCLE_ACCEPTABLE_STALE 10   /* % expired in a sample that ends a cycle */

void active_expire_init(active_expire *ae, int effort, uint64_t seed) {
    int e = effort - 1; /* 0..9: how far above the default */
    *ae = (active_expire){0};
    ae->enabled = 1;
    ae->keys_per_loop =
        ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP + ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP / 4 * e;
    ae->fast_duration_us =
        ACTIVE_EXPIRE_CYCLE_FAST_DURATION + ACTIVE_EXPIRE_CYCLE_FAST_DURATION / 4 * e;
    ae->slow_time_perc = ACTIVE_EXPIRE_CYCLE_SLOW_TIME_PERC + 2 * e;
    ae->acceptable_stale_perc = ACTIVE_EXPIRE_CYCLE_ACCEPTABLE_STALE - e;
    ae->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

/* xorshift64*: small, fast, and good enough to pick sample positions. */
static uint64_t next_random(active_expire *ae) {
    uint64_t x = ae->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    ae->rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* One round: look at up to keys_per_loop random keys that have a TTL and
 * delete the expired ones. Reports how many were looked at and deleted. */
static void sample_round(active_expire *ae, keyspace *ks, uint64_t *sampled, uint64_t *expired) {
    int64_t now = clock_now_ms();
    uint64_t n =
        ks->ttl_count < (size_t)ae->keys_per_loop ? ks->ttl_count : (size_t)ae->keys_per_loop;
    *sampled = *expired = 0;
    for (uint64_t i = 0; i < n && ks->ttl_count > 0; i++) {
        dict_entry *de = ks->ttl_keys[next_random(ae) % ks->ttl_count];
        (*sampled)++;
        *expired += expire_if_needed(ks, de, now);
    }
}

/* Should a fast cycle run now? Only if expired keys seem to pile up, and not
 * more often than once per two fast durations. */
static int fast_cycle_wanted(active_expire *ae, int64_t start_us) {
    if (!ae->timelimit_exit_last && ae->stale_perc < ae->acceptable_stale_perc) return 0;
    if (start_us < ae->last_fast_start_us + ae->fast_duration_us * 2) return 0;
    ae->last_fast_start_us = start_us;
    return 1;
}

uint64_t active_expire_cycle(active_expire *ae, keyspace *ks, cycle_type type, int hz) {
    if (!ae->enabled) return 0;
    int64_t start = clock_mono_us();
    if (type == CYCLE_FAST && !fast_cycle_wanted(ae, start)) return 0;
    int64_t budget_us = type == CYCLE_FAST ? ae->fast_duration_us
                                           : (int64_t)ae->slow_time_perc * 1000000 / hz / 100;
    uint64_t total_sampled = 0, total_expired = 0, sampled, expired;
    ae->timelimit_exit_last = 0;
    for (int round = 1;; round++) {
        if (ks->ttl_count == 0) break;
        sample_round(ae, ks, &sampled, &expired);
        total_sampled += sampled;
        total_expired += expired;
        /* The budget first, as Redis does: a cycle past it stops and counts
         * it, even when its last sample was clean. */
        if (round % CLOCK_CHECK_EVERY == 0 && clock_mono_us() - start > budget_us) {
            ae->timelimit_exit_last = 1;
            ae->time_cap_reached++;
            break;
        }
        /* Stop when the sample says "few left": at most the acceptable share
         * (integer percent, rounded down, as Redis computes it). */
        if (sampled && expired * 100 / sampled <= (uint64_t)ae->acceptable_stale_perc) break;
    }
    ae->cycle_time_used_us += clock_mono_us() - start;
    ae->cycles++;
    /* The estimate INFO shows: 5% this cycle, 95% history, as in Redis. */
    double current = total_sampled ? (double)total_expired * 100 / (double)total_sampled : 0;
    ae->stale_perc = current * 0.05 + ae->stale_perc * 0.95;
    return total_expired;
}

void active_expire_info(info_request *r, const active_expire *ae) {
    info_field(r, "expired_stale_perc", "%.2f", ae->stale_perc);
    info_field(r, "expired_time_cap_reached_count", "%llu",
               (unsigned long long)ae->time_cap_reached);
    info_field(r, "expire_cycle_cpu_milliseconds", "%lld",
               (long long)(ae->cycle_time_used_us / 1000));
}

/* ==== On the event loop ==== */

/* The cron: a slow cycle, then the delay until the next one (the event loop
 * runs a timer again after as many ms as it returns). Redis's serverCron()
 * does much more: rehashing, client timeouts, statistics. This one has one
 * job. */
static int64_t slow_cycle_timer(event_loop *el, int64_t id, void *data) {
    (void)el;
    (void)id;
    active_expire *ae = data;
    active_expire_cycle(ae, ae->ks, CYCLE_SLOW, ae->hz);
    return 1000 / ae->hz;
}

void active_expire_before_sleep(event_loop *el, void *data) {
    (void)el;
    active_expire *ae = data;
    active_expire_cycle(ae, ae->ks, CYCLE_FAST, ae->hz);
}

void active_expire_start(active_expire *ae, keyspace *ks, event_loop *el, int hz) {
    ae->ks = ks;
    ae->hz = hz;
    el_add_timer(el, 1000 / hz, slow_cycle_timer, ae);
    el_set_before_sleep(el, active_expire_before_sleep, ae);
}

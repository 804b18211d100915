/* active_expire.h -- Redis's active expire cycle (chapter 05).
 *
 * Lazy expiry (chapter 04) never frees a key nobody reads. The cure is a
 * background sweep, but a sweep over every key would stop the server for as
 * long as it takes. Redis's answer is statistical and bounded:
 *
 *   1. pick 20 keys at random among the keys that have a TTL;
 *   2. delete the ones whose time has passed;
 *   3. every 16 rounds, look at the clock; stop when the cycle has used its
 *      time budget (25% of a cron period), whatever the sample says;
 *   4. if more than 10% of the sample was expired, there are probably many
 *      more: go back to 1; otherwise stop, the rest can wait.
 *
 * The cron runs this `hz` times a second (the "slow" cycle). A "fast" cycle of
 * at most 1 ms also runs before the event loop sleeps, but only when the last
 * slow cycle ran out of time or the estimated stale share is above the
 * acceptable one: when expired keys are piling up faster than the cron
 * clears them. --active-expire-effort 1..10 buys more sampling for more CPU.
 *
 * The cycle knows the keyspace and the clock, nothing of clients or of the
 * event loop, so unit tests drive it with their own keyspace and clock.
 * active_expire_start(), at the end, puts it on the server's event loop. */
#ifndef ACTIVE_EXPIRE_H
#define ACTIVE_EXPIRE_H

#include <stdint.h>

#include "event_loop.h"
#include "keyspace.h"

typedef enum { CYCLE_SLOW, CYCLE_FAST } cycle_type;

typedef struct active_expire {
    /* Settings, derived from the effort (1..10) by active_expire_init(). */
    int enabled;               /* DEBUG SET-ACTIVE-EXPIRE 0|1 */
    int keys_per_loop;         /* sample size per round: 20 at effort 1 */
    int64_t fast_duration_us;  /* budget of a fast cycle: 1000 µs at effort 1 */
    int slow_time_perc;        /* share of a cron period a slow cycle may use: 25% */
    int acceptable_stale_perc; /* keep sampling while more than this % expired: 10 */
    /* State between cycles. */
    uint64_t rng;               /* xorshift64* state for the random picks */
    int timelimit_exit_last;    /* did the last cycle stop on its time budget? */
    int64_t last_fast_start_us; /* monotonic start of the last fast cycle */
    /* Statistics, with Redis's names and meanings (INFO stats). */
    double stale_perc;          /* expired_stale_perc: EMA of the expired share sampled */
    uint64_t time_cap_reached;  /* expired_time_cap_reached_count */
    int64_t cycle_time_used_us; /* expire_cycle_cpu_milliseconds, in µs */
    uint64_t cycles;            /* cycles run (enabled and, if fast, wanted), keys or not */
    /* On the event loop, from active_expire_start(). */
    keyspace *ks; /* the keyspace the hooks expire keys in */
    int hz;       /* slow cycles per second (--hz, 1..500; INFO's hz) */
} active_expire;

/* effort: 1..10. seed: any non-zero number (tests pass a fixed one). */
void active_expire_init(active_expire *ae, int effort, uint64_t seed);

/* Run one cycle over ks. hz is the cron frequency, which sets the slow
 * cycle's budget. Bounded: returns within about the budget (the clock is
 * checked every 16 rounds of keys_per_loop keys). Returns keys deleted. */
uint64_t active_expire_cycle(active_expire *ae, keyspace *ks, cycle_type type, int hz);

/* The cycle's fields of INFO's Stats section, with Redis's names. */
void active_expire_info(info_request *r, const active_expire *ae);

/* ==== On the event loop ====
 *
 * Redis runs the slow cycle from its cron, serverCron() by way of
 * databasesCron(), and the fast one from beforeSleep(), all in server.c
 * (7.0.15). Here the cycle brings its own two hooks. */

/* Run a slow cycle over ks hz times a second, on a timer of el, and offer a
 * fast one before every wait of el. ae and ks must outlive the loop. */
void active_expire_start(active_expire *ae, keyspace *ks, event_loop *el, int hz);

/* The hook that runs before every wait of the loop, with the active_expire
 * as its data: a fast cycle, which does nothing unless expired keys are
 * piling up. */
void active_expire_before_sleep(event_loop *el, void *data);

#endif

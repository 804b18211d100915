/* unit_timewheel.c -- Check unit tests for chapter 06's timing wheel.
 *
 * The wheel takes its time from the caller, so these tests never sleep: each
 * one picks the times it passes to tw_advance() and checks what fired. The
 * central property, checked on every callback, is the wheel's promise from
 * timewheel.h: a node fires in the FIRST tw_advance() whose now_ms >= its
 * deadline, never in an earlier one, never in a later one, exactly once.
 *
 * TW_TEST_NODES (default 1000000) scales the big random test down, e.g. to
 * 100000 for a run under valgrind. */
#include "timewheel.h"

#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* ==== Helpers: time, randomness, scheduled items ====
 *
 * An `item` plays the part of the server's key entry: it embeds a tw_node
 * and records how it was fired. The callback gets the tw_node back and finds
 * its item with offsetof(), as the server finds its key.
 *
 * Failures inside callbacks are counted, not asserted one by one (a million
 * ck_assert calls cost more than the wheel), and asserted once afterwards. */

static const int64_t BASE_MS = 1700000000000; /* Nov 2023, a realistic Unix ms clock */
static const int64_t YEAR_2100_MS = 4102444800000;
static const int64_t DAY_MS = 86400000;
static const int64_t HOUR_MS = 3600000;

/* xorshift64*: small, fast, deterministic, so a failure reproduces. */
static uint64_t rng_state = 88172645463325252ULL;

static void rng_seed(uint64_t seed) {
    rng_state = seed ? seed : 88172645463325252ULL;
}

static uint64_t rng_next(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

/* A number in [0, n); n > 0. */
static uint64_t rng_below(uint64_t n) {
    return rng_next() % n;
}

typedef struct item {
    int64_t id;        /* index in the test's array, for messages */
    tw_node node;      /* the wheel's link; deliberately not the first field */
    int fire_count;    /* callbacks received */
    int64_t fired_now; /* now_ms of the tw_advance call that fired it */
} item;

static item *item_of(tw_node *n) {
    return (item *)((char *)n - offsetof(item, node));
}

/* What the checking callback knows and found. */
typedef struct checker {
    int64_t now_ms;         /* now_ms of the tw_advance call in progress */
    int64_t prev_now_ms;    /* largest now_ms of the calls before it */
    size_t fired;           /* callbacks */
    size_t early;           /* fired with deadline > now_ms */
    size_t late;            /* fired although an earlier call had reached its deadline */
    size_t twice;           /* fired more than once */
    size_t still_linked;    /* called while still on a wheel list */
    size_t out_of_order;    /* fired with a deadline before the previous callback's */
    int64_t last_expire_ms; /* deadline of the previous callback */
    const item *first_bad;  /* the first item that broke a rule, for the message */
} checker;

static void checker_init(checker *c, int64_t start_ms) {
    c->now_ms = start_ms;
    c->prev_now_ms = start_ms;
    c->fired = c->early = c->late = c->twice = c->still_linked = c->out_of_order = 0;
    c->last_expire_ms = INT64_MIN;
    c->first_bad = NULL;
}

/* Count one broken rule in *counter and remember the first offender. */
static void note_bad(checker *c, size_t *counter, const item *it) {
    (*counter)++;
    if (!c->first_bad) c->first_bad = it;
}

/* The callback used by most tests: record and check one firing. */
static void check_on_time(tw_node *n, void *ctx) {
    checker *c = ctx;
    item *it = item_of(n);
    it->fire_count++;
    it->fired_now = c->now_ms;
    c->fired++;
    if (tw_is_scheduled(n)) note_bad(c, &c->still_linked, it); /* must be unlinked first */
    if (it->fire_count > 1) note_bad(c, &c->twice, it);
    if (n->expire_ms > c->now_ms) note_bad(c, &c->early, it);
    if (n->expire_ms <= c->prev_now_ms) note_bad(c, &c->late, it);
    if (n->expire_ms < c->last_expire_ms) c->out_of_order++;
    c->last_expire_ms = n->expire_ms;
}

/* One tw_advance() as the checker sees it. Returns the callbacks made. */
static size_t advance(timewheel *tw, checker *c, int64_t now_ms, size_t budget) {
    c->now_ms = now_ms;
    size_t made = tw_advance(tw, now_ms, budget, check_on_time, c);
    if (now_ms > c->prev_now_ms) c->prev_now_ms = now_ms;
    return made;
}

static void assert_checker_clean(const checker *c) {
    ck_assert_msg(c->early == 0 && c->late == 0 && c->twice == 0 && c->still_linked == 0,
                  "early %zu, late %zu, twice %zu, linked %zu; first bad item %lld deadline %lld "
                  "fired at %lld",
                  c->early, c->late, c->twice, c->still_linked,
                  c->first_bad ? (long long)c->first_bad->id : -1LL,
                  c->first_bad ? (long long)c->first_bad->node.expire_ms : -1LL,
                  c->first_bad ? (long long)c->first_bad->fired_now : -1LL);
}

/* The wheel never collected a node before the caller's clock reached its
 * deadline: nothing had to be parked. True whenever time only moves forward,
 * so a wheel that files a node in too early a slot fails here even though
 * tw_advance()'s own re-check would hide it from the callbacks. */
static void assert_wheel_exact(const timewheel *tw) {
    ck_assert_uint_eq(tw->stat_clock_behind, 0);
    ck_assert_uint_eq(tw->stat_nodes_parked, 0);
}

static item *new_items(size_t count) {
    item *items = calloc(count, sizeof(item)); /* zeroed: nodes not scheduled */
    ck_assert_ptr_nonnull(items);
    for (size_t i = 0; i < count; i++)
        items[i].id = (int64_t)i;
    return items;
}

/* How many of items[0..count) did not fire exactly `times` times. */
static size_t items_not_fired(const item *items, size_t count, int times) {
    size_t wrong = 0;
    for (size_t i = 0; i < count; i++)
        wrong += items[i].fire_count != times;
    return wrong;
}

static size_t tests_node_count(void) {
    const char *env = getenv("TW_TEST_NODES");
    long long n = env ? atoll(env) : 1000000;
    return n > 0 ? (size_t)n : 1000000;
}

static int compare_int64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* 64 to the power `level`: the span of one slot of that level, in ms. */
static int64_t slot_span_ms(int level) {
    return (int64_t)1 << (level * TW_SLOT_BITS);
}

/* ==== Basic contract ==== */

START_TEST(test_node_is_small) {
    /* Two pointers and a deadline: paid per key with a TTL. */
    ck_assert_uint_le(sizeof(tw_node), 24);
    ck_assert_int_eq(TW_TICK_MS, 1);
    ck_assert_int_eq(TW_SLOTS_PER_LEVEL, 1 << TW_SLOT_BITS);
    ck_assert_int_ge(TW_LEVELS * TW_SLOT_BITS, 63); /* any int64 deadline fits */
}
END_TEST

START_TEST(test_empty_wheel) {
    timewheel tw;
    checker c;
    tw_init(&tw, BASE_MS);
    checker_init(&c, BASE_MS);
    ck_assert_uint_eq(tw_count(&tw), 0);
    ck_assert_int_eq(tw_next_deadline_hint(&tw, BASE_MS), -1);
    ck_assert_uint_eq(advance(&tw, &c, BASE_MS + 10 * 365 * DAY_MS, SIZE_MAX), 0);
    ck_assert_int_eq(tw_now(&tw), BASE_MS + 10 * 365 * DAY_MS);
    ck_assert_uint_eq(tw.stat_slots_visited, 0); /* ten years of ticks, no work */
    assert_wheel_exact(&tw);
    tw_free(&tw);
}
END_TEST

START_TEST(test_fires_exactly_at_deadline_on_every_level) {
    /* For every level, deadlines just under, at and just over the level's
     * slot span, plus a few inside, fire at the deadline and not one ms
     * before: the cascades must not lose or round anything. */
    for (int level = 0; level < TW_LEVELS - 1; level++) {
        int64_t span = slot_span_ms(level);
        int64_t offsets[] = {span - 1, span, span + 1, 2 * span + 7, 63 * span, 64 * span - 1};
        for (size_t k = 0; k < sizeof(offsets) / sizeof(offsets[0]); k++) {
            if (offsets[k] <= 0) continue;
            timewheel tw;
            checker c;
            item it = {.id = level};
            int64_t deadline = BASE_MS + offsets[k];
            tw_init(&tw, BASE_MS);
            checker_init(&c, BASE_MS);
            tw_add(&tw, &it.node, deadline);
            ck_assert_int_eq(tw_is_scheduled(&it.node), 1);
            ck_assert_uint_eq(advance(&tw, &c, deadline - 1, SIZE_MAX), 0);
            ck_assert_uint_eq(advance(&tw, &c, deadline, SIZE_MAX), 1);
            ck_assert_int_eq(it.fire_count, 1);
            ck_assert_int_eq(tw_is_scheduled(&it.node), 0);
            ck_assert_uint_eq(tw_count(&tw), 0);
            assert_checker_clean(&c);
            assert_wheel_exact(&tw);
            tw_free(&tw);
        }
    }
}
END_TEST

START_TEST(test_cancel_unscheduled_is_noop_and_add_moves) {
    timewheel tw;
    checker c;
    item a = {.id = 0}, b = {.id = 1};
    tw_init(&tw, BASE_MS);
    checker_init(&c, BASE_MS);

    tw_cancel(&tw, &a.node); /* never added */
    ck_assert_uint_eq(tw_count(&tw), 0);

    tw_add(&tw, &a.node, BASE_MS + 100);
    tw_cancel(&tw, &a.node);
    tw_cancel(&tw, &a.node); /* twice */
    ck_assert_uint_eq(tw_count(&tw), 0);
    ck_assert_int_eq(tw_next_deadline_hint(&tw, BASE_MS), -1); /* bitmap cleared */

    /* Adding a scheduled node moves it: it fires once, at the new deadline. */
    tw_add(&tw, &b.node, BASE_MS + 5000);
    tw_add(&tw, &b.node, BASE_MS + 70);
    ck_assert_uint_eq(tw_count(&tw), 1);
    ck_assert_uint_eq(advance(&tw, &c, BASE_MS + 69, SIZE_MAX), 0);
    ck_assert_uint_eq(advance(&tw, &c, BASE_MS + 70, SIZE_MAX), 1);
    tw_cancel(&tw, &b.node); /* already fired */
    ck_assert_uint_eq(advance(&tw, &c, BASE_MS + 10000, SIZE_MAX), 0);
    ck_assert_int_eq(b.fire_count, 1);
    ck_assert_int_eq(a.fire_count, 0);
    ck_assert_uint_eq(tw_count(&tw), 0);
    assert_checker_clean(&c);
    assert_wheel_exact(&tw);
    tw_free(&tw);
}
END_TEST

START_TEST(test_past_deadline_due_at_next_advance) {
    timewheel tw;
    checker c;
    item a = {.id = 0}, b = {.id = 1};
    tw_init(&tw, BASE_MS);
    checker_init(&c, BASE_MS);
    tw_add(&tw, &a.node, BASE_MS);       /* exactly now */
    tw_add(&tw, &b.node, BASE_MS - 500); /* in the past */
    ck_assert_int_eq(tw_next_deadline_hint(&tw, BASE_MS), 0);
    c.prev_now_ms = BASE_MS - 1000; /* they were added after the last call */
    ck_assert_uint_eq(advance(&tw, &c, BASE_MS, SIZE_MAX), 2);
    assert_checker_clean(&c);
    tw_free(&tw);
}
END_TEST

START_TEST(test_negative_times) {
    /* Unix times before 1970 are legal int64 values: the wheel starts at 0
     * but still never fires a node before the caller's clock reaches it. */
    timewheel tw;
    checker c;
    item a = {.id = 0};
    tw_init(&tw, -50);
    checker_init(&c, -1000);
    ck_assert_int_eq(tw_now(&tw), 0);
    tw_add(&tw, &a.node, -10);
    ck_assert_uint_eq(advance(&tw, &c, -20, SIZE_MAX), 0);
    ck_assert_uint_eq(advance(&tw, &c, -10, SIZE_MAX), 1);
    assert_checker_clean(&c);
    tw_free(&tw);
}
END_TEST

/* ==== A million random deadlines ====
 *
 * Deadlines on every level, from 1 ms to INT64_MAX, many sharing a ms. Time
 * moves in random steps: 1 ms at a time over the first seconds and around
 * some deadlines, exactly onto a deadline, one ms short of it, or past
 * several at once. Every node must fire exactly once, in the first call that
 * reaches its deadline. */

/* A random deadline offset from base_ms, spread over every level. */
static int64_t random_offset_ms(int64_t base_ms) {
    uint64_t kind = rng_below(100);
    if (kind < 30) return 1 + (int64_t)rng_below(5000);                /* stepped 1 ms at a time */
    if (kind < 35) return slot_span_ms(1 + (int)rng_below(6));         /* shared boundaries */
    if (kind < 36) return INT64_MAX - base_ms - (int64_t)rng_below(2); /* the very end */
    int level = 1 + (int)rng_below(TW_LEVELS - 1);
    int64_t low = slot_span_ms(level);
    int64_t room = INT64_MAX - base_ms - low; /* keep base_ms + offset <= INT64_MAX */
    int64_t width = level < TW_LEVELS - 1 ? 63 * low : room;
    if (width > room) width = room;
    return low + (int64_t)rng_below((uint64_t)width);
}

/* The next time to advance to, from t, given the next deadline not reached
 * yet (> t) and the one after it (or INT64_MAX). */
static int64_t random_step(int64_t t, int64_t next, int64_t after, int64_t base_ms) {
    if (next - base_ms <= 5000) return t + 1;
    switch (rng_below(4)) {
    case 0: return next;
    case 1: return next - 1 > t ? next - 1 : next;
    case 2: return t + 1 + (int64_t)rng_below((uint64_t)(next - t));
    default: {
        uint64_t gap = (uint64_t)after - (uint64_t)next; /* overshoot past a few */
        int64_t room = INT64_MAX - next;
        if (room == 0) return next;
        int64_t extra = (int64_t)rng_below(gap < (uint64_t)room / 2 ? 2 * gap + 1 : (uint64_t)room);
        return next + extra;
    }
    }
}

/* Schedule count random deadlines from base_ms, walk time through them all
 * and check each fired once, in the first call that reached it. */
static void run_random_deadlines(int64_t base_ms, size_t count, uint64_t seed) {
    item *items = new_items(count);
    int64_t *sorted = malloc(count * sizeof(int64_t));
    ck_assert_ptr_nonnull(sorted);
    timewheel tw;
    checker c;
    rng_seed(seed);
    tw_init(&tw, base_ms);
    checker_init(&c, base_ms);

    for (size_t i = 0; i < count; i++) {
        int64_t deadline = base_ms + random_offset_ms(base_ms);
        tw_add(&tw, &items[i].node, deadline);
        sorted[i] = deadline;
    }
    ck_assert_uint_eq(tw_count(&tw), count);
    qsort(sorted, count, sizeof(int64_t), compare_int64);

    int64_t t = base_ms;
    size_t next_index = 0, calls = 0, fine_windows = 0;
    int64_t mismatch_at = 0;
    while (next_index < count) {
        int64_t next = sorted[next_index];
        size_t after_index = next_index;
        while (after_index < count && sorted[after_index] == next)
            after_index++;
        int64_t after = after_index < count ? sorted[after_index] : INT64_MAX;

        if (rng_below(2000) == 0 && next - t > 300 && next < INT64_MAX - 2) {
            /* A fine window: 1 ms steps through a deadline far out. */
            fine_windows++;
            for (int64_t s = next - 200; s <= next + 2; s++)
                advance(&tw, &c, s, SIZE_MAX);
            calls += 203;
            t = next + 2;
        } else {
            t = random_step(t, next, after, base_ms);
            advance(&tw, &c, t, SIZE_MAX);
            calls++;
        }
        while (next_index < count && sorted[next_index] <= t)
            next_index++;
        if (c.fired != next_index && !mismatch_at) mismatch_at = t; /* fired != reached */
    }
    ck_assert_msg(mismatch_at == 0, "fired count differs from deadlines reached at %lld",
                  (long long)mismatch_at);
    if (count >= 100000) ck_assert_uint_gt(fine_windows, 0);

    assert_checker_clean(&c);
    assert_wheel_exact(&tw);
    ck_assert_uint_eq(c.out_of_order, 0); /* callbacks come in deadline order */
    ck_assert_uint_eq(tw_count(&tw), 0);
    ck_assert_uint_eq(items_not_fired(items, count, 1), 0);
    ck_assert_uint_gt(tw.stat_nodes_cascaded, count); /* the upper levels were used */
    ck_assert_uint_gt(calls, 5000);
    free(sorted);
    free(items);
    tw_free(&tw);
}

START_TEST(test_million_random_deadlines_fire_once_on_time) {
    run_random_deadlines(BASE_MS, tests_node_count(), 20240601);
}
END_TEST

START_TEST(test_random_deadlines_near_the_end_of_time) {
    /* A wheel whose time has the high digits set (2^62 ms is 146 million
     * years from 1970), so the top levels' slot arithmetic is exercised. */
    run_random_deadlines(((int64_t)1 << 62) + 12345, tests_node_count() / 10 + 1000, 42);
}
END_TEST

/* ==== Cancel and re-add ==== */

START_TEST(test_cancelled_never_fire_readded_fire_at_new_deadline) {
    size_t count = tests_node_count() / 10 + 1000;
    item *items = new_items(count);
    /* 0: keep, 1: cancel for good, 2: cancel then re-add elsewhere */
    unsigned char *fate = calloc(count, 1);
    ck_assert_ptr_nonnull(fate);
    timewheel tw;
    checker c;
    rng_seed(7);
    tw_init(&tw, BASE_MS);
    checker_init(&c, BASE_MS);

    for (size_t i = 0; i < count; i++)
        tw_add(&tw, &items[i].node, BASE_MS + random_offset_ms(BASE_MS));
    /* Let time run a little so some nodes cascade before being cancelled. */
    advance(&tw, &c, BASE_MS + 3000, SIZE_MAX);
    size_t expected = c.fired;
    for (size_t i = 0; i < count; i++) {
        if (items[i].fire_count) continue;
        fate[i] = (unsigned char)rng_below(3);
        if (fate[i] >= 1) tw_cancel(&tw, &items[i].node);
        if (fate[i] == 2)
            tw_add(&tw, &items[i].node, BASE_MS + 3000 + random_offset_ms(BASE_MS + 3000));
        if (fate[i] != 1) expected++;
    }
    ck_assert_uint_eq(tw_count(&tw), expected - c.fired);

    /* Jump through the rest in big leaps, ending at the end of time. */
    for (int64_t t = BASE_MS + 3000; t < INT64_MAX / 2; t = t * 2)
        advance(&tw, &c, t, SIZE_MAX);
    advance(&tw, &c, INT64_MAX, SIZE_MAX);

    ck_assert_uint_eq(c.fired, expected);
    ck_assert_uint_eq(tw_count(&tw), 0);
    size_t wrong = 0;
    for (size_t i = 0; i < count; i++)
        wrong += items[i].fire_count != (fate[i] == 1 ? 0 : 1);
    ck_assert_uint_eq(wrong, 0); /* cancelled: never; kept or re-added: once */
    /* Deadlines were crossed in leaps, so "late" is not meaningful here;
     * early and twice are. */
    ck_assert_uint_eq(c.early, 0);
    ck_assert_uint_eq(c.twice, 0);
    free(fate);
    free(items);
    assert_wheel_exact(&tw);
    tw_free(&tw);
}
END_TEST

/* ==== Deadlines far away ==== */

START_TEST(test_far_deadlines_fire_on_time) {
    int64_t deadlines[] = {BASE_MS + 90 * 1000, BASE_MS + HOUR_MS, BASE_MS + 400 * DAY_MS,
                           YEAR_2100_MS,        INT64_MAX - 1,     INT64_MAX};
    size_t n = sizeof(deadlines) / sizeof(deadlines[0]);
    item items[6] = {{0}};
    timewheel tw;
    checker c;
    tw_init(&tw, BASE_MS);
    checker_init(&c, BASE_MS);
    for (size_t i = 0; i < n; i++) {
        items[i].id = (int64_t)i;
        tw_add(&tw, &items[i].node, deadlines[i]);
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t visited_before = tw.stat_slots_visited;
        ck_assert_uint_eq(advance(&tw, &c, deadlines[i] - 1, SIZE_MAX), 0);
        ck_assert_uint_eq(advance(&tw, &c, deadlines[i], SIZE_MAX), 1);
        ck_assert_int_eq(items[i].fire_count, 1);
        /* Reaching a deadline decades away visits a handful of slots: each
         * remaining node's slots on its way down, never the ticks between. */
        ck_assert_uint_le(tw.stat_slots_visited - visited_before, (uint64_t)(n * TW_LEVELS));
    }
    ck_assert_uint_eq(tw_count(&tw), 0);
    assert_checker_clean(&c);
    assert_wheel_exact(&tw);
    tw_free(&tw);
}
END_TEST

/* ==== Clock jumps ==== */

START_TEST(test_forward_jump_of_hours_costs_slots_not_ticks) {
    enum { NODES = 10000 };
    item *items = new_items(NODES);
    item far = {.id = -1};
    timewheel tw;
    checker c;
    rng_seed(99);
    tw_init(&tw, BASE_MS);
    checker_init(&c, BASE_MS);

    /* One node a year away: jumping hours at a time must not make it cost
     * more than a few slot visits per jump. */
    tw_add(&tw, &far.node, BASE_MS + 365 * DAY_MS);
    for (int jump = 1; jump <= 24; jump++) {
        uint64_t before = tw.stat_slots_visited;
        ck_assert_uint_eq(advance(&tw, &c, BASE_MS + jump * 5 * HOUR_MS, SIZE_MAX), 0);
        ck_assert_uint_le(tw.stat_slots_visited - before, TW_LEVELS);
    }

    /* Ten thousand nodes over the next three hours, then one jump of five
     * hours: 18 million ticks skipped, work bounded by the nodes. */
    int64_t t0 = tw_now(&tw);
    for (int i = 0; i < NODES; i++)
        tw_add(&tw, &items[i].node, t0 + 1 + (int64_t)rng_below(3 * HOUR_MS));
    uint64_t before = tw.stat_slots_visited;
    c.prev_now_ms = t0;
    ck_assert_uint_eq(advance(&tw, &c, t0 + 5 * HOUR_MS, SIZE_MAX), NODES);
    uint64_t visited = tw.stat_slots_visited - before;
    /* A deadline under 4.7 hours away sits at level 3 (4 if a carry makes a
     * higher digit differ), so each node passes through at most 5 slots on
     * its way down; the wheel visits about 2 per node, not 18 million. */
    ck_assert_msg(visited <= (uint64_t)NODES * 5, "visited %llu slots for %d nodes",
                  (unsigned long long)visited, NODES);
    ck_assert_uint_eq(tw_count(&tw), 1); /* only the far node is left */
    ck_assert_uint_eq(c.early, 0);
    ck_assert_uint_eq(c.twice, 0);
    free(items);
    assert_wheel_exact(&tw);
    tw_free(&tw);
}
END_TEST

START_TEST(test_backward_jump_never_fires_early) {
    enum { NODES = 200 };
    item items[NODES];
    timewheel tw;
    checker c;
    tw_init(&tw, BASE_MS);
    checker_init(&c, BASE_MS);
    for (int i = 0; i < NODES; i++) {
        items[i] = (item){.id = i};
        tw_add(&tw, &items[i].node, BASE_MS + 1 + i); /* +1 .. +200 */
    }
    /* Forward to +150 with a budget of 100: 100 fire, 50 stay queued. */
    ck_assert_uint_eq(advance(&tw, &c, BASE_MS + 150, 100), 100);
    /* The clock steps back to +120: of the 50 queued (deadlines +101..+150)
     * only the 20 with deadline <= +120 may fire. */
    ck_assert_uint_eq(advance(&tw, &c, BASE_MS + 120, SIZE_MAX), 20);
    ck_assert_int_eq(tw_now(&tw), BASE_MS + 150); /* the wheel's time stays */
    ck_assert_uint_eq(tw.stat_clock_behind, 1);
    /* Further back: nothing. A node added now at +130 (<= the wheel's time,
     * so on the due list) must wait for the clock too. */
    item late = {.id = 1000};
    tw_add(&tw, &late.node, BASE_MS + 130);
    ck_assert_uint_eq(advance(&tw, &c, BASE_MS + 50, SIZE_MAX), 0);
    ck_assert_int_eq(tw_next_deadline_hint(&tw, BASE_MS + 50), 1);
    /* The clock catches up ms by ms: each deadline fires exactly on time. */
    for (int64_t t = BASE_MS + 121; t <= BASE_MS + 200; t++) {
        size_t made = advance(&tw, &c, t, SIZE_MAX);
        size_t expected = t == BASE_MS + 130 ? 2 : 1;
        ck_assert_uint_eq(made, expected);
    }
    ck_assert_uint_eq(items_not_fired(items, NODES, 1), 0);
    ck_assert_int_eq(late.fire_count, 1);
    ck_assert_uint_eq(c.early, 0);
    ck_assert_uint_eq(c.twice, 0);
    ck_assert_uint_eq(tw_count(&tw), 0);
    tw_free(&tw);
}
END_TEST

START_TEST(test_backward_jump_with_big_backlog_is_bounded) {
    /* 10,000 nodes due by the wheel's time, the clock far behind: a call
     * with budget 100 sets aside at most 100 not-yet-due nodes, and calls
     * rotate through the backlog instead of rescanning its head. The nodes
     * are queued latest deadline first, so the head is the part the clock
     * reaches last: a wheel that always looked at the same head would never
     * fire the due half. */
    enum { NODES = 10000, BUDGET = 100 };
    item *items = new_items(NODES);
    timewheel tw;
    checker c;
    int64_t wheel_time = BASE_MS + 1000 + NODES;
    tw_init(&tw, wheel_time);
    checker_init(&c, wheel_time);
    for (int i = 0; i < NODES; i++)
        tw_add(&tw, &items[i].node, wheel_time - 1 - i);
    for (int k = 0; k < 10; k++) {
        uint64_t parked_before = tw.stat_nodes_parked;
        ck_assert_uint_eq(advance(&tw, &c, BASE_MS, BUDGET), 0);
        ck_assert_uint_le(tw.stat_nodes_parked - parked_before, BUDGET);
    }
    /* The clock passes the earliest half of the deadlines (queued last):
     * with enough calls, exactly that half fires. */
    int64_t clock = BASE_MS + 1000 + NODES / 2 - 1;
    size_t made = 0;
    for (int k = 0; k < 2 * NODES / BUDGET; k++)
        made += advance(&tw, &c, clock, BUDGET);
    ck_assert_uint_eq(made, NODES / 2);
    ck_assert_uint_eq(c.early, 0);
    ck_assert_uint_eq(advance(&tw, &c, wheel_time, SIZE_MAX), NODES / 2);
    ck_assert_uint_eq(tw_count(&tw), 0);
    free(items);
    tw_free(&tw);
}
END_TEST

/* ==== Budget ==== */

START_TEST(test_budget_100k_same_ms_takes_100_calls) {
    enum { NODES = 100000, BUDGET = 1000 };
    item *items = new_items(NODES);
    timewheel tw;
    checker c;
    tw_init(&tw, BASE_MS);
    checker_init(&c, BASE_MS);
    int64_t deadline = BASE_MS + 90 * 1000; /* cascades from level 2 */
    for (int i = 0; i < NODES; i++)
        tw_add(&tw, &items[i].node, deadline);

    size_t calls = 0;
    c.now_ms = deadline;
    while (tw_count(&tw) > 0) {
        /* now_ms does not move after the first call: the queue continues. */
        size_t made = tw_advance(&tw, deadline, BUDGET, check_on_time, &c);
        ck_assert_uint_eq(made, BUDGET);
        calls++;
        ck_assert_uint_le(calls, NODES / BUDGET);
    }
    ck_assert_uint_eq(calls, NODES / BUDGET);
    ck_assert_uint_eq(tw_advance(&tw, deadline, BUDGET, check_on_time, &c), 0);
    ck_assert_uint_eq(tw_advance(&tw, deadline + 1, 0, check_on_time, &c), 0); /* budget 0 */
    ck_assert_uint_eq(items_not_fired(items, NODES, 1), 0);
    ck_assert_uint_eq(c.early, 0);
    ck_assert_uint_eq(c.twice, 0);
    free(items);
    assert_wheel_exact(&tw);
    tw_free(&tw);
}
END_TEST

/* ==== Callbacks that change the wheel ====
 *
 * The server's callback deletes the key, which frees the entry that holds
 * the node. Other callers re-arm a timer from its callback. Both must work,
 * and so must cancelling a node that is itself waiting on the due list. */

typedef enum owner_action {
    FREE_ME,        /* free the owner, as the server frees an expired key */
    REARM_ME,       /* add my node again 100 ms later, twice */
    CANCEL_PARTNER, /* cancel my partner, due at the same ms */
    JUST_COUNT,     /* a partner: only count the callback */
} owner_action;

typedef struct owner {
    tw_node node;          /* first field here: a cast from tw_node is enough */
    owner_action action;   /* what the callback does */
    struct owner *partner; /* for CANCEL_PARTNER */
    int fires;             /* callbacks received (meaningless once freed) */
} owner;

typedef struct mutation_ctx {
    timewheel *tw;
    int64_t now_ms; /* now_ms of the call in progress */
    size_t freed, rearmed, partners_cancelled;
    size_t early; /* callbacks whose deadline was after now_ms */
} mutation_ctx;

static void mutate_on_fire(tw_node *n, void *ctx_ptr) {
    mutation_ctx *ctx = ctx_ptr;
    owner *o = (owner *)n;
    if (n->expire_ms > ctx->now_ms) ctx->early++;
    o->fires++;
    switch (o->action) {
    case FREE_ME:
        free(o);
        ctx->freed++;
        break;
    case REARM_ME:
        if (o->fires < 3) {
            tw_add(ctx->tw, &o->node, ctx->now_ms + 100);
            ctx->rearmed++;
        }
        break;
    case CANCEL_PARTNER:
        if (tw_is_scheduled(&o->partner->node)) {
            tw_cancel(ctx->tw, &o->partner->node);
            ctx->partners_cancelled++;
        }
        break;
    case JUST_COUNT: break;
    }
}

static owner *new_owner(owner_action action) {
    owner *o = calloc(1, sizeof(owner));
    ck_assert_ptr_nonnull(o);
    o->action = action;
    return o;
}

START_TEST(test_callback_frees_rearms_and_cancels) {
    enum { GROUPS = 1000 };
    owner *kept[3 * GROUPS]; /* owners the callback does not free */
    size_t kept_count = 0, pairs = 0;
    timewheel tw;
    mutation_ctx ctx = {.tw = &tw};
    rng_seed(5);
    tw_init(&tw, BASE_MS);
    /* Each group: an owner freed by its callback, one that re-arms, and a
     * canceller with its partner at the same ms. Two nodes with the same
     * deadline added one after the other travel through the levels together
     * and reach the due list in that order, so adding the canceller first
     * puts the partner behind it: cancelling a node that is already due must
     * keep it from firing. Some pairs are added the other way round and the
     * partner fires first. */
    for (int g = 0; g < GROUPS; g++) {
        owner *freed = new_owner(FREE_ME);
        owner *rearm = new_owner(REARM_ME);
        owner *canceller = new_owner(CANCEL_PARTNER);
        owner *partner = new_owner(JUST_COUNT);
        canceller->partner = partner;
        int64_t pair_deadline = BASE_MS + 1 + (int64_t)rng_below(5000);
        tw_add(&tw, &freed->node, BASE_MS + 1 + (int64_t)rng_below(5000));
        tw_add(&tw, &rearm->node, BASE_MS + 1 + (int64_t)rng_below(5000));
        if (g % 4 != 0) {
            tw_add(&tw, &canceller->node, pair_deadline);
            tw_add(&tw, &partner->node, pair_deadline);
            pairs++;
        } else {
            tw_add(&tw, &partner->node, pair_deadline);
            tw_add(&tw, &canceller->node, pair_deadline);
        }
        kept[kept_count++] = rearm;
        kept[kept_count++] = canceller;
        kept[kept_count++] = partner;
    }
    for (int64_t t = BASE_MS + 1; t <= BASE_MS + 6000; t += 1 + (int64_t)rng_below(3)) {
        ctx.now_ms = t;
        tw_advance(&tw, t, SIZE_MAX, mutate_on_fire, &ctx);
    }
    ck_assert_uint_eq(ctx.early, 0);
    ck_assert_uint_eq(ctx.freed, GROUPS);
    ck_assert_uint_eq(ctx.rearmed, 2 * GROUPS);
    ck_assert_uint_eq(ctx.partners_cancelled, pairs);
    ck_assert_uint_eq(tw_count(&tw), 0);
    size_t partners_fired = 0;
    for (size_t i = 0; i < kept_count; i++) {
        owner *o = kept[i];
        if (o->action == REARM_ME) ck_assert_int_eq(o->fires, 3);
        if (o->action == CANCEL_PARTNER) ck_assert_int_eq(o->fires, 1);
        if (o->action == JUST_COUNT) partners_fired += (size_t)o->fires;
        free(o);
    }
    ck_assert_uint_eq(partners_fired, GROUPS - pairs); /* only those queued first */
    assert_wheel_exact(&tw);
    tw_free(&tw);
}
END_TEST

/* ==== The event loop's sleep hint ==== */

START_TEST(test_sleeping_by_the_hint_never_oversleeps) {
    /* Sleep exactly the hint each time: every deadline is hit on the ms,
     * after at most one wake-up per level on the way down. */
    int64_t offsets[] = {1, 63, 64, 4097, 90 * 1000, HOUR_MS + 17, 400 * DAY_MS + 3};
    for (size_t k = 0; k < sizeof(offsets) / sizeof(offsets[0]); k++) {
        timewheel tw;
        checker c;
        item it = {.id = (int64_t)k};
        tw_init(&tw, BASE_MS);
        checker_init(&c, BASE_MS);
        tw_add(&tw, &it.node, BASE_MS + offsets[k]);
        int64_t t = BASE_MS;
        int wakeups = 0;
        while (it.fire_count == 0) {
            int64_t hint = tw_next_deadline_hint(&tw, t);
            ck_assert_int_gt(hint, 0);
            t += hint;
            ck_assert_int_le(t, BASE_MS + offsets[k]); /* never past the deadline */
            advance(&tw, &c, t, SIZE_MAX);
            wakeups++;
        }
        ck_assert_int_eq(t, BASE_MS + offsets[k]);
        ck_assert_int_le(wakeups, TW_LEVELS);
        ck_assert_int_eq(tw_next_deadline_hint(&tw, t), -1);
        assert_checker_clean(&c);
        assert_wheel_exact(&tw);
        tw_free(&tw);
    }
}
END_TEST

/* ==== Random operations against a model ====
 *
 * A plain array is the model: each slot is scheduled or not, with its
 * deadline. Random adds, re-adds, cancels and advances (forwards and
 * backwards, with random budgets) go to both. Whatever fires must be
 * scheduled and due in the model; after an advance with no budget limit,
 * the wheel must have fired exactly what the model says was due. */

typedef struct model {
    item *items;
    int *scheduled; /* model's view: 1 if items[i] is scheduled */
    int64_t now_ms; /* now_ms of the current call */
    size_t bad;     /* callbacks the model did not expect */
} model;

static void model_on_fire(tw_node *n, void *ctx) {
    model *m = ctx;
    item *it = item_of(n);
    if (!m->scheduled[it->id] || n->expire_ms > m->now_ms) m->bad++;
    m->scheduled[it->id] = 0;
    it->fire_count++;
}

START_TEST(test_random_operations_match_model) {
    enum { ITEMS = 2000, STEPS = 100000 };
    item *items = new_items(ITEMS);
    int *scheduled = calloc(ITEMS, sizeof(int));
    ck_assert_ptr_nonnull(scheduled);
    model m = {.items = items, .scheduled = scheduled, .now_ms = BASE_MS};
    timewheel tw;
    rng_seed(12345);
    tw_init(&tw, BASE_MS);
    int64_t clock = BASE_MS;
    for (int step = 0; step < STEPS; step++) {
        size_t i = rng_below(ITEMS);
        uint64_t op = rng_below(10);
        if (op < 4) {
            int64_t deadline = clock - 100 + (int64_t)rng_below(rng_below(2) ? 300 : 10000000);
            tw_add(&tw, &items[i].node, deadline);
            scheduled[i] = 1;
        } else if (op < 6) {
            tw_cancel(&tw, &items[i].node);
            scheduled[i] = 0;
        } else {
            /* Mostly forward, sometimes backward, sometimes a big jump. */
            uint64_t kind = rng_below(20);
            if (kind == 0)
                clock -= (int64_t)rng_below(2000);
            else if (kind == 1)
                clock += (int64_t)rng_below(HOUR_MS);
            else
                clock += (int64_t)rng_below(50);
            size_t budget = rng_below(3) ? SIZE_MAX : 1 + rng_below(20);
            m.now_ms = clock;
            tw_advance(&tw, clock, budget, model_on_fire, &m);
            if (budget == SIZE_MAX) {
                for (size_t k = 0; k < ITEMS; k++)
                    if (scheduled[k] && items[k].node.expire_ms <= clock) m.bad++;
            }
        }
        if (step % 1000 == 0 || m.bad) {
            size_t model_count = 0;
            for (size_t k = 0; k < ITEMS; k++) {
                model_count += (size_t)scheduled[k];
                m.bad += tw_is_scheduled(&items[k].node) != scheduled[k];
            }
            ck_assert_uint_eq(tw_count(&tw), model_count);
            ck_assert_msg(m.bad == 0, "wheel and model disagree at step %d", step);
        }
    }
    ck_assert_uint_eq(m.bad, 0);
    free(scheduled);
    free(items);
    tw_free(&tw);
}
END_TEST

/* ==== Runner ==== */

static Suite *timewheel_suite(void) {
    Suite *s = suite_create("timewheel");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120); /* the million-node test takes ~1 s natively */
    tcase_add_test(tc, test_node_is_small);
    tcase_add_test(tc, test_empty_wheel);
    tcase_add_test(tc, test_fires_exactly_at_deadline_on_every_level);
    tcase_add_test(tc, test_cancel_unscheduled_is_noop_and_add_moves);
    tcase_add_test(tc, test_past_deadline_due_at_next_advance);
    tcase_add_test(tc, test_negative_times);
    tcase_add_test(tc, test_million_random_deadlines_fire_once_on_time);
    tcase_add_test(tc, test_random_deadlines_near_the_end_of_time);
    tcase_add_test(tc, test_cancelled_never_fire_readded_fire_at_new_deadline);
    tcase_add_test(tc, test_far_deadlines_fire_on_time);
    tcase_add_test(tc, test_forward_jump_of_hours_costs_slots_not_ticks);
    tcase_add_test(tc, test_backward_jump_never_fires_early);
    tcase_add_test(tc, test_backward_jump_with_big_backlog_is_bounded);
    tcase_add_test(tc, test_budget_100k_same_ms_takes_100_calls);
    tcase_add_test(tc, test_callback_frees_rearms_and_cancels);
    tcase_add_test(tc, test_sleeping_by_the_hint_never_oversleeps);
    tcase_add_test(tc, test_random_operations_match_model);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(timewheel_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

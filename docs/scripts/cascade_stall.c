/* cascade_stall.c -- chapter 06: how long one tw_advance() call can take when
 * a crowded slot of a higher level cascades.
 *
 *   cc -O2 -std=c11 -Isteps/06-timewheel docs/scripts/cascade_stall.c \
 *      steps/06-timewheel/timewheel.c -o build/cascade_stall && build/cascade_stall
 *
 * The wheel moves every node of a higher-level slot down in one call, however
 * many there are (timewheel.h admits it under "Possible optimisation"). This
 * program puts a number on that. It schedules N nodes (default 1,000,000),
 * each inside its own malloc'd block laid out like the server's hash table
 * entries (a 24-byte header, the 24-byte tw_node, key bytes), with a small
 * second allocation beside each for the value, as the server has. Deadlines
 * start 12 s after the wheel's time, as keys loaded a few seconds ahead would,
 * in one of three patterns:
 *
 *   random   spread uniformly over 10 s, in random order of allocation
 *   ordered  spread over 10 s, in the order the nodes were allocated
 *   same     all in the same millisecond
 *
 * Then it advances the wheel 1 ms at a time, with the server's budget of
 * 1000 callbacks per call (repeating a call while the budget runs out, as the
 * server's loop does), until every node has fired, and reports the slowest
 * single call: its wall time and how many nodes it moved down a level.
 * Usage: cascade_stall [N] */
#define _POSIX_C_SOURCE 200809L /* clock_gettime() under -std=c11 */

#include "timewheel.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUDGET    1000            /* EXPIRE_BUDGET_KEYS in the server */
#define START_MS  1796000000000LL /* a Unix time in ms (November 2026) */
#define LEAD_MS   12000           /* first deadline, after START_MS */
#define SPREAD_MS 10000           /* deadlines spread over this many ms */

/* A stand-in for a dict entry with a tw_node as its metadata. */
typedef struct entry {
    char header[24]; /* next, val, keylen, metadata_bytes in the real entry */
    tw_node timer;   /* the key's link in the wheel */
    char key[16];    /* "session:123456" and padding */
} entry;

static uint64_t fired; /* callbacks made */

static void count_fired(tw_node *n, void *ctx) {
    (void)n;
    (void)ctx;
    fired++;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* xorshift64*: a fixed sequence, so every run schedules the same deadlines. */
static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rng_next(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static int64_t deadline_of(const char *pattern, size_t i, size_t n) {
    if (strcmp(pattern, "same") == 0) return START_MS + LEAD_MS;
    if (strcmp(pattern, "ordered") == 0) return START_MS + LEAD_MS + (int64_t)(i * SPREAD_MS / n);
    return START_MS + LEAD_MS + (int64_t)(rng_next() % SPREAD_MS);
}

static void run(const char *pattern, size_t n) {
    static timewheel wheel; /* 17 KB: not on the stack */
    tw_init(&wheel, START_MS);
    entry **entries = malloc(n * sizeof(*entries));
    void **values = malloc(n * sizeof(*values));
    if (!entries || !values) abort();
    for (size_t i = 0; i < n; i++) {
        entries[i] = calloc(1, sizeof(entry));
        values[i] = malloc(9);
        if (!entries[i] || !values[i]) abort();
        tw_add(&wheel, &entries[i]->timer, deadline_of(pattern, i, n));
    }
    fired = 0;
    double worst_ms = 0;
    uint64_t worst_moved = 0;
    int64_t worst_at = 0;
    for (int64_t t = START_MS + 1; fired < n; t++) {
        uint64_t cascaded_before = wheel.stat_nodes_cascaded;
        double start = now_ms();
        while (tw_advance(&wheel, t, BUDGET, count_fired, NULL) == BUDGET) {
        }
        double took = now_ms() - start;
        if (took > worst_ms) {
            worst_ms = took;
            worst_moved = wheel.stat_nodes_cascaded - cascaded_before;
            worst_at = t - (START_MS + LEAD_MS);
        }
    }
    printf("%-8s %zu nodes: %llu moves down a level in all; slowest call %.1f ms at first "
           "deadline %+lld ms, moving %llu nodes (%.0f ns a node)\n",
           pattern, n, (unsigned long long)wheel.stat_nodes_cascaded, worst_ms, (long long)worst_at,
           (unsigned long long)worst_moved,
           worst_moved ? worst_ms * 1e6 / (double)worst_moved : 0.0);
    for (size_t i = 0; i < n; i++) {
        free(entries[i]);
        free(values[i]);
    }
    free(entries);
    free(values);
    tw_free(&wheel);
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 1000000;
    if (n == 0) n = 1;
    run("random", n);
    run("ordered", n);
    run("same", n);
    return 0;
}

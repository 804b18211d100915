/* miss_cost.c -- what a cache miss costs, and what overlapping misses buys
 * (chapter 12). Run it with:
 *
 *     mkdir -p build && cc -O2 -o build/miss_cost docs/scripts/miss_cost.c && build/miss_cost
 *
 * It links LINES cache lines of 64 bytes (256 MB, larger than most CPUs'
 * last-level cache) into one random cycle, each line holding the index of the next,
 * and then walks the cycle two ways:
 *
 *   one chain     each load needs the address the previous load returns, as
 *                 a hash-table lookup needs the bucket before the entry: the
 *                 CPU cannot start a miss before the one before it is over;
 *   CHAINS chains CHAINS walkers on the same cycle, at different places,
 *                 one step each in turn: their loads do not depend on each
 *                 other, so the CPU has CHAINS misses in flight at once, as
 *                 a batch of prefetched keys does.
 *
 * Each prints the time per load, the best of ROUNDS runs. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LINES  (4u << 20) /* 4 Mi lines of 64 bytes: 256 MB */
#define STEPS  (4u << 20) /* loads per measurement */
#define CHAINS 16         /* a batch, as the look-ahead's PREFETCH_MAX_KEYS */
#define ROUNDS 3

typedef struct line {
    uint32_t next;
    char pad[60];
} line;

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* A random cycle through every line (Sattolo's shuffle). */
static void link_randomly(line *l) {
    uint32_t *order = malloc(sizeof(uint32_t) * LINES);
    for (uint32_t i = 0; i < LINES; i++)
        order[i] = i;
    uint64_t x = 88172645463325252ull;
    for (uint32_t i = LINES - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint32_t j = (uint32_t)(x % i), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (uint32_t i = 0; i < LINES; i++)
        l[order[i]].next = order[(i + 1) % LINES];
    free(order);
}

/* ns per load with `chains` walkers taking turns; the sum keeps the loads. */
static double walk(const line *l, int chains, uint32_t *sink) {
    uint32_t at[CHAINS];
    for (int c = 0; c < chains; c++)
        at[c] = (uint32_t)c * (LINES / CHAINS);
    double start = now_ns();
    for (uint32_t s = 0; s < STEPS / (uint32_t)chains; s++)
        for (int c = 0; c < chains; c++)
            at[c] = l[at[c]].next;
    double ns = (now_ns() - start) / STEPS;
    for (int c = 0; c < chains; c++)
        *sink += at[c];
    return ns;
}

int main(void) {
    line *l = malloc(sizeof(line) * LINES);
    if (l == NULL) return 1;
    link_randomly(l);
    uint32_t sink = 0;
    double one = 1e9, many = 1e9;
    for (int r = 0; r < ROUNDS; r++) {
        double a = walk(l, 1, &sink), b = walk(l, CHAINS, &sink);
        one = a < one ? a : one;
        many = b < many ? b : many;
    }
    printf("one chain:  %.1f ns per load\n%d chains: %.1f ns per load (%.1fx faster)\n", one,
           CHAINS, many, one / many);
    free(l);
    return sink == 42; /* never: it only keeps the compiler from dropping the loads */
}

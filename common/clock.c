/* clock.c -- wall and monotonic clocks with a test override.
 * See clock.h for why there are two clocks. */
#define _POSIX_C_SOURCE 200809L
#include "clock.h"

#include <time.h>

/* Manual time for unit tests; `frozen` is 0 in a running server. */
static struct {
    int frozen;
    int64_t wall_ms;
    int64_t mono_us;
    int64_t mono_step_us; /* added to mono_us by every clock_mono_us() call */
} manual;

int64_t clock_now_ms(void) {
    if (manual.frozen) return manual.wall_ms;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t clock_mono_us(void) {
    if (manual.frozen) return manual.mono_us += manual.mono_step_us;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void clock_freeze(int64_t wall_ms, int64_t mono_us) {
    manual.frozen = 1;
    manual.wall_ms = wall_ms;
    manual.mono_us = mono_us;
    manual.mono_step_us = 0;
}

void clock_advance_ms(int64_t ms) {
    manual.wall_ms += ms;
    if (ms > 0) manual.mono_us += ms * 1000;
}

void clock_auto_advance_us(int64_t us) {
    manual.mono_step_us = us;
}

void clock_thaw(void) {
    manual.frozen = 0;
}

/* clock.h -- every clock the server reads.
 *
 * Two kinds of time, never mixed:
 *   - wall-clock Unix time in milliseconds: what expire times are made of,
 *     because Redis stores absolute Unix ms (EXPIREAT speaks it directly);
 *   - monotonic time in microseconds: for durations (time budgets, latency),
 *     which must not jump when someone sets the system clock.
 * All code reads time only through this module, so a unit test can freeze
 * both clocks and move them by hand instead of sleeping. */
#ifndef CLOCK_H
#define CLOCK_H

#include <stdint.h>

int64_t clock_now_ms(void);  /* wall clock, Unix ms */
int64_t clock_mono_us(void); /* monotonic, µs since an arbitrary origin */

/* Test control. clock_freeze() switches both clocks to manual time starting
 * at the given values; clock_advance_ms() moves both forward (or the wall
 * clock backwards with a negative value, to test clock jumps; the monotonic
 * clock never goes backwards); clock_thaw() returns to real time. */
void clock_freeze(int64_t wall_ms, int64_t mono_us);
void clock_advance_ms(int64_t ms);
/* While frozen, make every clock_mono_us() call advance the monotonic clock by
 * us first: a test's way of saying "each look at the clock costs this much
 * work", so a time budget runs out after a known number of checks. */
void clock_auto_advance_us(int64_t us);
void clock_thaw(void);

#endif

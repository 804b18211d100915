/* expire_time.h -- a command's number turned into an absolute expire time.
 *
 * Every command that sets a TTL (EXPIRE and its family, SET's options) turns
 * "n seconds or milliseconds, from now or from the epoch" into absolute Unix
 * ms, and must refuse a number whose result does not fit a long long, as
 * Redis does with "invalid expire time". That arithmetic is here, once, in a
 * header of its own so that any parser can use it without the rest of the
 * server, and so that unit tests can check every edge. */
#ifndef EXPIRE_TIME_H
#define EXPIRE_TIME_H

#include <limits.h>
#include <stdint.h>

/* n seconds (unit_ms 0) or milliseconds (1) after base_ms (now for EXPIRE,
 * PEXPIRE and SET EX/PX; 0 for EXPIREAT and PEXPIREAT), into *out. Returns 0
 * and leaves *out alone when the result would overflow. Signed overflow is
 * undefined in C, so every bound is tested before the operation. */
static inline int expire_absolute_ms(long long n, int unit_ms, int64_t base_ms, int64_t *out) {
    if (!unit_ms) {
        if (n > LLONG_MAX / 1000 || n < LLONG_MIN / 1000) return 0;
        n *= 1000;
    }
    if (base_ms > 0 && n > LLONG_MAX - base_ms) return 0;
    if (base_ms < 0 && n < LLONG_MIN - base_ms) return 0;
    *out = n + base_ms;
    return 1;
}

#endif

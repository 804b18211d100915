/* strnum.c -- strict number parsing with Redis's rules.
 * See strnum.h for the contract. */
#include "strnum.h"

#include <limits.h>

int string_to_ll(const char *s, size_t len, long long *out) {
    if (len == 0 || len > 20) return 0; /* "-9223372036854775808" is 20 bytes */
    size_t i = 0;
    int negative = 0;
    if (s[0] == '-') {
        negative = 1;
        i = 1;
        if (len == 1) return 0;
    }
    /* No leading zeros: "0" alone is the only number that starts with 0. */
    if (s[i] == '0') {
        if (len == 1) {
            *out = 0;
            return 1;
        }
        return 0;
    }
    /* Accumulate as unsigned so the most negative value fits on the way. */
    unsigned long long v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        unsigned digit = (unsigned)(s[i] - '0');
        if (v > (ULLONG_MAX - digit) / 10) return 0;
        v = v * 10 + digit;
    }
    if (negative) {
        if (v > (unsigned long long)LLONG_MAX + 1) return 0;
        *out = (v == (unsigned long long)LLONG_MAX + 1) ? LLONG_MIN : -(long long)v;
    } else {
        if (v > (unsigned long long)LLONG_MAX) return 0;
        *out = (long long)v;
    }
    return 1;
}

/* Bytes per unit for string_to_memory(): its suffix in lower case. */
static const struct {
    const char *suffix;
    unsigned long long bytes;
} memory_units[] = {
    {"", 1},
    {"b", 1},
    {"k", 1000},
    {"kb", 1024},
    {"m", 1000 * 1000},
    {"mb", 1024 * 1024},
    {"g", 1000ULL * 1000 * 1000},
    {"gb", 1024ULL * 1024 * 1024},
};

/* Are the len bytes at s the lower-case suffix, in any case? */
static int unit_is(const char *s, size_t len, const char *suffix) {
    size_t i = 0;
    for (; i < len && suffix[i]; i++) {
        char c = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
        if (c != suffix[i]) return 0;
    }
    return i == len && suffix[i] == '\0';
}

int string_to_memory(const char *s, size_t len, unsigned long long *out) {
    size_t digits = 0;
    unsigned long long v = 0;
    for (; digits < len && s[digits] >= '0' && s[digits] <= '9'; digits++) {
        unsigned digit = (unsigned)(s[digits] - '0');
        if (v > (ULLONG_MAX - digit) / 10) return 0;
        v = v * 10 + digit;
    }
    if (digits == 0) return 0;
    for (size_t i = 0; i < sizeof(memory_units) / sizeof(memory_units[0]); i++) {
        if (!unit_is(s + digits, len - digits, memory_units[i].suffix)) continue;
        if (v > ULLONG_MAX / memory_units[i].bytes) return 0;
        *out = v * memory_units[i].bytes;
        return 1;
    }
    return 0;
}

size_t ll_to_string(char *buf, long long value) {
    /* Work on the magnitude as unsigned so LLONG_MIN does not overflow. */
    unsigned long long v =
        value < 0 ? (unsigned long long)(-(value + 1)) + 1 : (unsigned long long)value;
    char tmp[21];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    size_t len = 0;
    if (value < 0) buf[len++] = '-';
    while (n)
        buf[len++] = tmp[--n];
    buf[len] = '\0';
    return len;
}

int hex_digit_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* strnum.h -- strict number parsing with Redis's rules.
 *
 * Redis refuses "+1", " 1", "01" and "1 " where a number is expected, and
 * every step must answer exactly as Redis does, so we cannot use strtoll(),
 * which accepts all of those. string_to_ll() is the one parser every step
 * uses: for protocol lengths, and for numbers in commands' arguments. */
#ifndef STRNUM_H
#define STRNUM_H

#include <stddef.h>

/* Parse exactly len bytes at s as a signed decimal long long.
 * Accepted: an optional '-', then digits with no leading zero ("0" itself is
 * fine, "-0" is not). Nothing else, not even a space or a '+'.
 * Returns 1 and stores the value in *out on success, 0 on any failure
 * (empty input, stray bytes, overflow); *out is untouched on failure. */
int string_to_ll(const char *s, size_t len, long long *out);

/* Parse exactly len bytes at s as a size in bytes, the way Redis reads a
 * memory setting (memtoull() in util.c, 7.0.15): digits, then at most one
 * unit, in any case: b (1), k (1000), kb (1024), m (1000^2), mb (1024^2),
 * g (1000^3) or gb (1024^3). So "1gb" is 1073741824 and "1g" 1000000000.
 * Nothing else: no sign, no space, no fraction. Unlike memtoull(), a size
 * with no digits or one that overflows 64 bits is refused (memtoull() reads
 * "mb" as 0 and wraps "17179869185gb" round to 1 GB).
 * Returns 1 and stores the value in *out, or 0 with *out untouched. */
int string_to_memory(const char *s, size_t len, unsigned long long *out);

/* Write value as decimal into buf (at least 21 bytes); returns the length.
 * Used by the reply writers, where snprintf() would be needlessly slow. */
size_t ll_to_string(char *buf, long long value);

/* The value of a hexadecimal digit, either case, or -1 for any other byte. */
int hex_digit_value(char c);

#endif

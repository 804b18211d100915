/* fuzz_set_fsm.c -- libFuzzer target for SET's option parser (chapter 07).
 *
 * Chapter 07 parses SET's options with the state machine in
 * steps/07-set-options-fsm/set_fsm.c. The unit tests compare it with a
 * reference parser on every short sequence of well-known options; this
 * target does the same on whatever byte strings the fuzzer invents: odd
 * casing, prefixes of option words, embedded NULs, long lists, numbers at the
 * edge of long long. It fails (aborts) when the machine and the reference
 * disagree, when a failed parse writes to its output, or when the result
 * breaks its contract; AddressSanitizer fails it on any read outside an
 * argument, since every argument is copied into its own exact-size buffer.
 *
 * Build and run (from the repository root):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Icommon
 *         -Isteps/07-set-options-fsm tests/fuzz/fuzz_set_fsm.c
 *         steps/07-set-options-fsm/set_fsm.c common/strnum.c -o fuzz_set_fsm
 *   ./fuzz_set_fsm -max_total_time=60 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "set_fsm.h"
#include "strnum.h"

/* The reference parser, shared with the unit tests. */
#include "../07-set-options-fsm/set_fsm_reference.h"

/* ==== Turning bytes into arguments ====
 *
 * Byte 0 picks the clock (low 3 bits) and how the rest is cut (bit 3):
 *   0: arguments separated by NUL bytes ("EX\0" "10\0" "nx"), which lets the
 *      fuzzer splice option words in easily;
 *   1: each argument is a length byte followed by that many bytes (clipped at
 *      the end of the input), which allows NULs inside arguments.
 * Every argument is copied into a heap buffer of exactly its length, and the
 * array of args is exactly as long as the count, so AddressSanitizer reports
 * the first byte read past either. */

/* Clocks worth trying, in Unix ms: zero, today, and near the overflow edge. */
static const long long clocks[8] = {
    0, 1, 999, 1700000000000LL, LLONG_MAX / 2, LLONG_MAX - 1000, LLONG_MAX, -1000,
};

typedef struct arg_list {
    arg *args; /* exactly count entries, each in its own exact-size buffer */
    int count; /* number of arguments */
} arg_list;

/* Append a copy of bytes[0..len) as a new argument; list->args has room. */
static void add_arg(arg_list *list, const uint8_t *bytes, size_t len) {
    char *copy = malloc(len); /* malloc(0) is fine: ASan gives a 0-byte block */
    if (len) memcpy(copy, bytes, len);
    list->args[list->count].ptr = copy;
    list->args[list->count].len = len;
    list->count++;
}

/* Count the arguments in data[0..size) for the given cutting mode. */
static int count_args(const uint8_t *data, size_t size, int length_prefixed) {
    int n = 0;
    if (length_prefixed) {
        for (size_t i = 0; i < size; i += 1 + (size_t)data[i])
            n++;
    } else {
        n = 1;
        for (size_t i = 0; i < size; i++)
            n += data[i] == 0;
    }
    return size == 0 ? 0 : n;
}

/* Cut data[0..size) into a fresh arg_list (free with free_args). */
static arg_list cut_args(const uint8_t *data, size_t size, int length_prefixed) {
    int n = count_args(data, size, length_prefixed);
    arg_list list = {calloc((size_t)(n ? n : 1), sizeof(arg)), 0};
    size_t i = 0;
    while (list.count < n) {
        size_t len = 0;
        if (length_prefixed) {
            size_t want = data[i++];
            len = want < size - i ? want : size - i;
        } else {
            while (i + len < size && data[i + len] != 0)
                len++;
        }
        add_arg(&list, data + i, len);
        i += len + (length_prefixed ? 0 : 1);
    }
    return list;
}

static void free_args(arg_list *list) {
    for (int i = 0; i < list->count; i++)
        free((void *)list->args[i].ptr);
    free(list->args);
}

/* ==== The checks ==== */

/* 1 if value is exactly one of the arguments: where cond_value must point. */
static int is_an_argument(const arg_list *list, arg value) {
    for (int i = 0; i < list->count; i++) {
        if (list->args[i].ptr == value.ptr && list->args[i].len == value.len) return 1;
    }
    return 0;
}

/* The contract of a successful parse, independently of the reference. */
static void check_contract(const arg_list *list, const set_options *o) {
    int has_value = o->cond >= SET_COND_IFEQ && o->cond <= SET_COND_IFDNE;
    if (has_value && !is_an_argument(list, o->cond_value)) abort();
    if (!has_value && (o->cond_value.ptr != NULL || o->cond_value.len != 0)) abort();
    if (o->get != 0 && o->get != 1) abort();
    if (o->expiry == SET_EXPIRY_AT && o->expire_at_ms <= 0) abort();
    if (o->expiry != SET_EXPIRY_AT && o->expire_at_ms != 0) abort();
    if (o->cond == SET_COND_IFDEQ || o->cond == SET_COND_IFDNE)
        (void)set_digest_arg_valid(o->cond_value); /* must not read past the value */
}

/* Parse both ways and require the same answer, field by field. */
static void check_against_reference(const arg_list *list, long long now) {
    set_options got, want, untouched;
    memset(&got, 0xa5, sizeof got);
    memset(&untouched, 0xa5, sizeof untouched);
    memset(&want, 0, sizeof want);
    set_parse_status got_status = set_parse_options(list->args, list->count, now, &got);
    set_parse_status want_status = ref_parse(list->args, list->count, now, &want);
    if (got_status != want_status) abort();
    if (got_status != SET_PARSE_OK) {
        if (memcmp(&got, &untouched, sizeof got) != 0) abort(); /* errors write nothing */
        return;
    }
    if (got.cond != want.cond || got.cond_value.ptr != want.cond_value.ptr ||
        got.cond_value.len != want.cond_value.len || got.get != want.get ||
        got.expiry != want.expiry || got.expire_at_ms != want.expire_at_ms)
        abort();
    check_contract(list, &got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    long long now = clocks[data[0] & 7];
    int length_prefixed = (data[0] & 8) != 0;
    arg_list list = cut_args(data + 1, size - 1, length_prefixed);
    check_against_reference(&list, now);
    free_args(&list);
    return 0;
}

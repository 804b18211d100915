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

/* ==== The reference parser ====
 *
 * The same Redis-style reference as in tests/07-set-options-fsm/unit_set_fsm.c
 * (bit flags, one if/else chain in the manner of Redis's
 * parseExtendedStringArgumentsOrReply), repeated here so that this target
 * builds from one test file. Keep the two in step. */

enum {
    REF_NX = 1 << 0,
    REF_XX = 1 << 1,
    REF_IFEQ = 1 << 2,
    REF_IFNE = 1 << 3,
    REF_IFDEQ = 1 << 4,
    REF_IFDNE = 1 << 5,
    REF_GET = 1 << 6,
    REF_EX = 1 << 7,
    REF_PX = 1 << 8,
    REF_EXAT = 1 << 9,
    REF_PXAT = 1 << 10,
    REF_KEEPTTL = 1 << 11,
};
static const int ref_if_any = REF_IFEQ | REF_IFNE | REF_IFDEQ | REF_IFDNE;
static const int ref_expiry_any = REF_EX | REF_PX | REF_EXAT | REF_PXAT | REF_KEEPTTL;

/* 1 if a spells `lower` (a lower-case word) in any ASCII case. For a letter
 * w, (b | 0x20) == w holds exactly for b == w and b == toupper(w). */
static int ref_is(const arg *a, const char *lower) {
    if (a->len != strlen(lower)) return 0;
    for (size_t i = 0; i < a->len; i++) {
        if ((a->ptr[i] | 0x20) != lower[i]) return 0;
    }
    return 1;
}

/* Redis's expire checks on the raw value, including its "add, then see if
 * it wrapped" overflow test (done in unsigned arithmetic: no UB here). */
static set_parse_status ref_expire(const arg *expire, int flags, long long now, long long *at_ms) {
    long long ms;
    if (!string_to_ll(expire->ptr, expire->len, &ms)) return SET_PARSE_NOT_INTEGER;
    int seconds = (flags & (REF_EX | REF_EXAT)) != 0;
    if (ms <= 0 || (seconds && ms > LLONG_MAX / 1000)) return SET_PARSE_INVALID_EXPIRE;
    if (seconds) ms *= 1000;
    if (flags & (REF_EX | REF_PX))
        ms = (long long)((unsigned long long)ms + (unsigned long long)now);
    if (ms <= 0) return SET_PARSE_INVALID_EXPIRE;
    *at_ms = ms;
    return SET_PARSE_OK;
}

static set_condition ref_condition(int flags) {
    if (flags & REF_NX) return SET_COND_NX;
    if (flags & REF_XX) return SET_COND_XX;
    if (flags & REF_IFEQ) return SET_COND_IFEQ;
    if (flags & REF_IFNE) return SET_COND_IFNE;
    if (flags & REF_IFDEQ) return SET_COND_IFDEQ;
    if (flags & REF_IFDNE) return SET_COND_IFDNE;
    return SET_COND_NONE;
}

/* One option with a value: may it come now, given flags? */
static int ref_value_option(const arg *opt, const char *word, int flags, int forbidden,
                            const arg *next) {
    return ref_is(opt, word) && !(flags & forbidden) && next != NULL;
}

static set_parse_status ref_parse(const arg *opts, int count, long long now, set_options *out) {
    int flags = 0;
    const arg *expire = NULL, *cond_value = NULL;
    int cond_forbidden = REF_NX | REF_XX | ref_if_any;
    for (int j = 0; j < count; j++) {
        const arg *opt = &opts[j];
        const arg *next = (j == count - 1) ? NULL : &opts[j + 1];

        if (ref_is(opt, "nx") && !(flags & (REF_XX | ref_if_any))) {
            flags |= REF_NX;
        } else if (ref_is(opt, "xx") && !(flags & (REF_NX | ref_if_any))) {
            flags |= REF_XX;
        } else if (ref_value_option(opt, "ifeq", flags, cond_forbidden, next)) {
            flags |= REF_IFEQ;
            cond_value = next;
            j++;
        } else if (ref_value_option(opt, "ifne", flags, cond_forbidden, next)) {
            flags |= REF_IFNE;
            cond_value = next;
            j++;
        } else if (ref_value_option(opt, "ifdeq", flags, cond_forbidden, next)) {
            flags |= REF_IFDEQ;
            cond_value = next;
            j++;
        } else if (ref_value_option(opt, "ifdne", flags, cond_forbidden, next)) {
            flags |= REF_IFDNE;
            cond_value = next;
            j++;
        } else if (ref_is(opt, "get")) {
            flags |= REF_GET;
        } else if (ref_is(opt, "keepttl") && !(flags & (ref_expiry_any & ~REF_KEEPTTL))) {
            flags |= REF_KEEPTTL;
        } else if (ref_value_option(opt, "ex", flags, ref_expiry_any & ~REF_EX, next)) {
            flags |= REF_EX;
            expire = next;
            j++;
        } else if (ref_value_option(opt, "px", flags, ref_expiry_any & ~REF_PX, next)) {
            flags |= REF_PX;
            expire = next;
            j++;
        } else if (ref_value_option(opt, "exat", flags, ref_expiry_any & ~REF_EXAT, next)) {
            flags |= REF_EXAT;
            expire = next;
            j++;
        } else if (ref_value_option(opt, "pxat", flags, ref_expiry_any & ~REF_PXAT, next)) {
            flags |= REF_PXAT;
            expire = next;
            j++;
        } else {
            return SET_PARSE_SYNTAX_ERROR;
        }
    }

    long long at_ms = 0;
    if (expire) {
        set_parse_status status = ref_expire(expire, flags, now, &at_ms);
        if (status != SET_PARSE_OK) return status;
    }
    out->cond = ref_condition(flags);
    out->cond_value = cond_value ? *cond_value : (arg){NULL, 0};
    out->get = (flags & REF_GET) != 0;
    out->expiry = expire                  ? SET_EXPIRY_AT
                  : (flags & REF_KEEPTTL) ? SET_EXPIRY_KEEP
                                          : SET_EXPIRY_CLEAR;
    out->expire_at_ms = at_ms;
    return SET_PARSE_OK;
}

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

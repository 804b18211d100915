/* set_fsm_reference.h -- an independent parser for SET's options, to check
 * chapter 07's state machine against (used by unit_set_fsm.c and by
 * tests/fuzz/fuzz_set_fsm.c). Not part of any server: it is the test's
 * second opinion, written in the style of Redis's own option parsing. */
#ifndef SET_FSM_REFERENCE_H
#define SET_FSM_REFERENCE_H

#include <limits.h>
#include <string.h>

#include "set_fsm.h"
#include "strnum.h"

/* ==== The reference parser ====
 *
 * A second, independent implementation in Redis's style: one flag bit per
 * option, one if/else chain where each branch says which flags forbid it,
 * and the expire value checked after the loop with Redis's arithmetic
 * (including its "add, then see if it wrapped" overflow test, emulated with
 * unsigned arithmetic so the test itself has no undefined behaviour). */

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

/* 1 if a spells `lower` (a lower-case word) in any ASCII case. For a letter
 * w, (b | 0x20) == w holds exactly for b == w and b == toupper(w). */
static int ref_is(const arg *a, const char *lower) {
    if (a->len != strlen(lower)) return 0;
    for (size_t i = 0; i < a->len; i++) {
        if ((a->ptr[i] | 0x20) != lower[i]) return 0;
    }
    return 1;
}

/* Redis's expire checks on the raw value; fills *at_ms on success. */
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

/* The condition flag set in flags, as the result enum. */
static set_condition ref_condition(int flags) {
    if (flags & REF_NX) return SET_COND_NX;
    if (flags & REF_XX) return SET_COND_XX;
    if (flags & REF_IFEQ) return SET_COND_IFEQ;
    if (flags & REF_IFNE) return SET_COND_IFNE;
    if (flags & REF_IFDEQ) return SET_COND_IFDEQ;
    if (flags & REF_IFDNE) return SET_COND_IFDNE;
    return SET_COND_NONE;
}

static set_parse_status ref_parse(const arg *opts, int count, long long now, set_options *out) {
    int flags = 0;
    const arg *expire = NULL, *cond_value = NULL;
    for (int j = 0; j < count; j++) {
        const arg *opt = &opts[j];
        const arg *next = (j == count - 1) ? NULL : &opts[j + 1];
        int expiry_flags = REF_EX | REF_PX | REF_EXAT | REF_PXAT | REF_KEEPTTL;

        if (ref_is(opt, "nx") && !(flags & (REF_XX | ref_if_any))) {
            flags |= REF_NX;
        } else if (ref_is(opt, "xx") && !(flags & (REF_NX | ref_if_any))) {
            flags |= REF_XX;
        } else if (ref_is(opt, "ifeq") && !(flags & (REF_NX | REF_XX | ref_if_any)) && next) {
            flags |= REF_IFEQ;
            cond_value = next;
            j++;
        } else if (ref_is(opt, "ifne") && !(flags & (REF_NX | REF_XX | ref_if_any)) && next) {
            flags |= REF_IFNE;
            cond_value = next;
            j++;
        } else if (ref_is(opt, "ifdeq") && !(flags & (REF_NX | REF_XX | ref_if_any)) && next) {
            flags |= REF_IFDEQ;
            cond_value = next;
            j++;
        } else if (ref_is(opt, "ifdne") && !(flags & (REF_NX | REF_XX | ref_if_any)) && next) {
            flags |= REF_IFDNE;
            cond_value = next;
            j++;
        } else if (ref_is(opt, "get")) {
            flags |= REF_GET;
        } else if (ref_is(opt, "keepttl") && !(flags & (expiry_flags & ~REF_KEEPTTL))) {
            flags |= REF_KEEPTTL;
        } else if (ref_is(opt, "ex") && !(flags & (expiry_flags & ~REF_EX)) && next) {
            flags |= REF_EX;
            expire = next;
            j++;
        } else if (ref_is(opt, "px") && !(flags & (expiry_flags & ~REF_PX)) && next) {
            flags |= REF_PX;
            expire = next;
            j++;
        } else if (ref_is(opt, "exat") && !(flags & (expiry_flags & ~REF_EXAT)) && next) {
            flags |= REF_EXAT;
            expire = next;
            j++;
        } else if (ref_is(opt, "pxat") && !(flags & (expiry_flags & ~REF_PXAT)) && next) {
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

#endif

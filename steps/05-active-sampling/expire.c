/* expire.c -- expire times, the deletion of expired keys, and the EXPIRE
 * family of commands. See expire.h. */
#include "expire.h"

#include <limits.h>

#include "alloc.h"
#include "clock.h"
#include "command.h"
#include "reply.h"
#include "server.h"
#include "strnum.h"

/* ==== Where a TTL lives ====
 *
 * A key's expire time is in its value (value.expire_at_ms, absolute Unix ms,
 * 0 for none), so the lookup that finds the key finds its TTL too. The keys
 * that have one are also listed in keyspace.ttl_keys, a dense array, for the
 * active expire cycle to sample (active_expire.c): a key knows its position
 * there (value.ttl_index), so joining and leaving the list are O(1): append
 * at the end; to leave, move the last entry into the hole. */

/* Append de, a key that has just been given a TTL, to ks->ttl_keys, and
 * record its position in its value. Grows the array by doubling. */
static void ttl_list_add(keyspace *ks, dict_entry *de) {
    if (ks->ttl_count == ks->ttl_cap) {
        ks->ttl_cap = ks->ttl_cap ? ks->ttl_cap * 2 : 16;
        ks->ttl_keys = mem_realloc(ks->ttl_keys, ks->ttl_cap * sizeof(dict_entry *));
    }
    value *v = de->val;
    v->ttl_index = (uint32_t)ks->ttl_count;
    ks->ttl_keys[ks->ttl_count++] = de;
}

/* Take de, a key in ks->ttl_keys, out of the list: the last entry moves into
 * its place. Shrinks the array when it is a quarter full. */
static void ttl_list_remove(keyspace *ks, dict_entry *de) {
    value *v = de->val;
    dict_entry *last = ks->ttl_keys[--ks->ttl_count];
    ks->ttl_keys[v->ttl_index] = last;
    ((value *)last->val)->ttl_index = v->ttl_index;
    /* Give memory back when the list has shrunk to a quarter. */
    if (ks->ttl_cap > 16 && ks->ttl_count < ks->ttl_cap / 4) {
        ks->ttl_cap /= 2;
        ks->ttl_keys = mem_realloc(ks->ttl_keys, ks->ttl_cap * sizeof(dict_entry *));
    }
}

void expire_set(keyspace *ks, dict_entry *de, int64_t expire_at_ms) {
    value *v = de->val;
    if (v->expire_at_ms == 0) ttl_list_add(ks, de);
    v->expire_at_ms = expire_at_ms;
}

int expire_remove(keyspace *ks, dict_entry *de) {
    value *v = de->val;
    if (v->expire_at_ms == 0) return 0;
    ttl_list_remove(ks, de);
    v->expire_at_ms = 0;
    return 1;
}

/* ==== Lazy expiry ====
 *
 * expire_if_needed() is called by keyspace_find(), the one lookup every
 * command uses. An expired key is deleted there, before the command sees it,
 * so it reads as missing everywhere: GET answers nil, EXISTS and DEL count 0,
 * TTL answers -2. The cost is one comparison per lookup. */

int key_is_expired(const value *v, int64_t now_ms) {
    return v->expire_at_ms != 0 && now_ms > v->expire_at_ms;
}

int expire_if_needed(keyspace *ks, dict_entry *de, int64_t now_ms) {
    if (!key_is_expired(de->val, now_ms)) return 0;
    keyspace_delete_entry(ks, de);
    ks->expired_keys++;
    return 1;
}

/* ==== Arithmetic ==== */

long long ttl_reply_value(int64_t expire_at_ms, int64_t now_ms, int unit_ms) {
    long long left = expire_at_ms - now_ms;
    if (left < 0) left = 0;
    return unit_ms ? left : (left + 500) / 1000;
}

/* ==== EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT ==== */

enum { EXPIRE_NX = 1, EXPIRE_XX = 2, EXPIRE_GT = 4, EXPIRE_LT = 8 };

/* Read NX | XX | GT | LT from argv[3..]. Returns -1 after replying an error. */
static int parse_expire_flags(client *c, int argc, arg *argv) {
    int flags = 0;
    for (int i = 3; i < argc; i++) {
        if (arg_is(&argv[i], "nx"))
            flags |= EXPIRE_NX;
        else if (arg_is(&argv[i], "xx"))
            flags |= EXPIRE_XX;
        else if (arg_is(&argv[i], "gt"))
            flags |= EXPIRE_GT;
        else if (arg_is(&argv[i], "lt"))
            flags |= EXPIRE_LT;
        else {
            reply_errorf(c, "Unsupported option %.*s", (int)argv[i].len, argv[i].ptr);
            return -1;
        }
    }
    if ((flags & EXPIRE_NX) && (flags & (EXPIRE_XX | EXPIRE_GT | EXPIRE_LT))) {
        reply_error(c, "NX and XX, GT or LT options at the same time are not compatible");
        return -1;
    }
    if ((flags & EXPIRE_GT) && (flags & EXPIRE_LT)) {
        reply_error(c, "GT and LT options at the same time are not compatible");
        return -1;
    }
    return flags;
}

/* Does the condition allow replacing current (0: no TTL) with when? A key
 * without a TTL counts as expiring at infinity: GT never beats it, LT
 * always does. */
static int expire_condition_holds(int flags, int64_t current, int64_t when) {
    if ((flags & EXPIRE_NX) && current != 0) return 0;
    if ((flags & EXPIRE_XX) && current == 0) return 0;
    if ((flags & EXPIRE_GT) && (current == 0 || when <= current)) return 0;
    if ((flags & EXPIRE_LT) && current != 0 && when >= current) return 0;
    return 1;
}

/* The four commands differ only in the unit and in what the number is
 * relative to. The order of the checks is Redis's: options, number, overflow,
 * key, condition. A time already past deletes the key and still answers 1:
 * the key did get an expire time; it is simply over. */
static void expire_generic(client *c, int argc, arg *argv, int unit_ms, int relative,
                           const char *name) {
    int flags = parse_expire_flags(c, argc, argv);
    if (flags < 0) return;
    long long n;
    if (!string_to_ll(argv[2].ptr, argv[2].len, &n)) {
        reply_not_integer(c);
        return;
    }
    int64_t now = clock_now_ms();
    int64_t when;
    if (!expire_absolute_ms(n, unit_ms, relative ? now : 0, &when)) {
        reply_errorf(c, "invalid expire time in '%s' command", name);
        return;
    }
    dict_entry *de = keyspace_find(&server.db, &argv[1], now);
    if (de == NULL) {
        reply_integer(c, 0);
        return;
    }
    if (!expire_condition_holds(flags, ((value *)de->val)->expire_at_ms, when)) {
        reply_integer(c, 0);
        return;
    }
    if (when <= now) {
        keyspace_delete_entry(&server.db, de);
        /* Redis counts this as a DEL, not as an expiry. */
    } else {
        expire_set(&server.db, de, when);
    }
    reply_integer(c, 1);
}

void expire_command(client *c, int argc, arg *argv) {
    expire_generic(c, argc, argv, 0, 1, "expire");
}

void pexpire_command(client *c, int argc, arg *argv) {
    expire_generic(c, argc, argv, 1, 1, "pexpire");
}

void expireat_command(client *c, int argc, arg *argv) {
    expire_generic(c, argc, argv, 0, 0, "expireat");
}

void pexpireat_command(client *c, int argc, arg *argv) {
    expire_generic(c, argc, argv, 1, 0, "pexpireat");
}

/* ==== TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST ==== */

/* -2: no such key; -1: no TTL; otherwise the time left (TTL/PTTL) or the
 * absolute expire time (EXPIRETIME/PEXPIRETIME), in s or ms. */
static void ttl_generic(client *c, arg *key, int unit_ms, int absolute) {
    int64_t now = clock_now_ms();
    value *v = keyspace_get(&server.db, key, now);
    if (v == NULL) {
        reply_integer(c, -2);
        return;
    }
    int64_t when = v->expire_at_ms;
    if (when == 0)
        reply_integer(c, -1);
    else if (absolute) /* rounded to nearest without computing when + 500, which could overflow */
        reply_integer(c, unit_ms ? when : when / 1000 + (when % 1000 >= 500));
    else
        reply_integer(c, ttl_reply_value(when, now, unit_ms));
}

void ttl_command(client *c, int argc, arg *argv) {
    (void)argc;
    ttl_generic(c, &argv[1], 0, 0);
}

void pttl_command(client *c, int argc, arg *argv) {
    (void)argc;
    ttl_generic(c, &argv[1], 1, 0);
}

void expiretime_command(client *c, int argc, arg *argv) {
    (void)argc;
    ttl_generic(c, &argv[1], 0, 1);
}

void pexpiretime_command(client *c, int argc, arg *argv) {
    (void)argc;
    ttl_generic(c, &argv[1], 1, 1);
}

/* PERSIST key: 1 if a TTL was removed, 0 if the key is missing or had none. */
void persist_command(client *c, int argc, arg *argv) {
    (void)argc;
    dict_entry *de = keyspace_find(&server.db, &argv[1], clock_now_ms());
    reply_integer(c, de ? expire_remove(&server.db, de) : 0);
}

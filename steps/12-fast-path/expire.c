/* expire.c -- expire times, the deletion of expired keys, and the EXPIRE
 * family of commands. See expire.h. */
#include "expire.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "clock.h"
#include "command.h"
#include "reply.h"
#include "server.h"
#include "strnum.h"

/* ==== Scheduling ====
 *
 * A key's expire time is in its timing-wheel node (key_expire_ms(de),
 * absolute Unix ms, 0 for none), which lives in the key's hash table entry,
 * and only in the entries of keys that have a TTL. Giving a key a TTL adds
 * the node to the entry (a new, larger block) and schedules it in
 * keyspace.wheel; removing the TTL cancels it and takes it out of the entry
 * again. The node is never in the wheel while its entry moves, so no link
 * of the wheel ever points at a freed block. Moving the deadline of a key
 * that has one, and deleting the key, only touch the wheel: O(1), with no
 * allocation. */

dict_entry *expire_set(keyspace *ks, dict_entry *de, int64_t expire_at_ms) {
    if (key_timer(de) == NULL) de = key_resize_timer(ks, de, 1);
    tw_add(&ks->wheel, key_timer(de), expire_at_ms); /* moves it if already scheduled */
    return de;
}

dict_entry *expire_remove(keyspace *ks, dict_entry *de) {
    tw_node *timer = key_timer(de);
    if (timer == NULL) return de;
    tw_cancel(&ks->wheel, timer);
    return key_resize_timer(ks, de, 0);
}

/* ==== Lazy expiry ====
 *
 * expire_if_needed() is called by keyspace_find(), the one lookup every
 * command uses. An expired key is deleted there, before the command sees it,
 * so it reads as missing everywhere: GET answers nil, EXISTS and DEL count 0,
 * TTL answers -2. The cost is one comparison per lookup. */

int key_is_expired(dict_entry *de, int64_t now_ms) {
    int64_t when = key_expire_ms(de);
    return when != 0 && now_ms > when;
}

int expire_if_needed(keyspace *ks, dict_entry *de, int64_t now_ms) {
    if (!key_is_expired(de, now_ms)) return 0;
    /* A replica hides an expired key from its clients but keeps it until its
     * master's DEL; the master's own commands see it as it is. */
    if (repl_is_replica(&server.repl)) return !repl_master_running(&server.repl);
    /* Only the master decides that a key is gone; its replicas hear it. */
    repl_propagate_expired(&server.repl, dict_entry_key(de), de->keylen);
    keyspace_delete_entry(ks, de);
    ks->expired_keys++;
    return 1;
}

/* ==== Active expiry by the wheel ====
 *
 * expire_due_keys() turns the wheel to the current time and deletes what it
 * hands back. A key counts as expired once now > its expire time, so the
 * wheel is turned to now - 1: it hands back exactly the keys with
 * expire_ms < now. Each key is still checked against the clock before it is
 * deleted, so no key is ever deleted early, whatever the wheel believes. */

typedef struct due_pass {
    keyspace *ks;   /* whose keys are due */
    int64_t now_ms; /* the time of this pass */
} due_pass;

/* Called by the wheel for each due key: measure, then delete. The wheel was
 * turned to now - 1, so expire_ms < now and the key is expired by Redis's
 * rule; expire_if_needed() checks that against the clock once more anyway. */
static void delete_due_key(tw_node *timer, void *ctx) {
    due_pass *pass = ctx;
    dict_entry *de = dict_entry_from_metadata(timer);
    /* Lateness: how long the key outlived the first ms in which it counted
     * as expired (expire_ms + 1). */
    int64_t late = pass->now_ms - (timer->expire_ms + 1);
    if (late > pass->ks->max_lateness_ms) pass->ks->max_lateness_ms = late;
    if (!expire_if_needed(pass->ks, de, pass->now_ms))
        tw_add(&pass->ks->wheel, timer, timer->expire_ms); /* not yet: back in the wheel */
}

size_t expire_due_keys(keyspace *ks, int64_t now_ms, size_t budget) {
    due_pass pass = {ks, now_ms};
    return tw_advance(&ks->wheel, now_ms - 1, budget, delete_due_key, &pass);
}

void wheel_expirer_init(wheel_expirer *we) {
    *we = (wheel_expirer){.enabled = 1};
}

int expire_turn(wheel_expirer *we, keyspace *ks, int max_sleep_ms) {
    /* A replica's keys are deleted by its master's DELs only. */
    if (!we->enabled || repl_is_replica(&server.repl)) return max_sleep_ms;
    int64_t start = clock_mono_us();
    int64_t now = clock_now_ms();
    size_t deleted = expire_due_keys(ks, now, EXPIRE_BUDGET_KEYS);
    we->time_used_us += clock_mono_us() - start;
    if (deleted == EXPIRE_BUDGET_KEYS) {
        we->budget_hits++;
        return 0;
    }
    int64_t hint = tw_next_deadline_hint(&ks->wheel, now);
    /* +1: a key due at t counts as expired from t + 1 (now > t). */
    if (hint >= 0 && hint < max_sleep_ms) return (int)hint + 1;
    return max_sleep_ms;
}

void wheel_expirer_before_sleep(event_loop *el, void *data) {
    wheel_expirer *we = data;
    el_set_max_sleep(el, expire_turn(we, we->ks, we->max_sleep_ms));
}

void wheel_expirer_start(wheel_expirer *we, keyspace *ks, event_loop *el, int max_sleep_ms) {
    we->ks = ks;
    we->max_sleep_ms = max_sleep_ms;
    el_set_before_sleep(el, wheel_expirer_before_sleep, we);
}

void expire_info(info_request *r, const wheel_expirer *we, const keyspace *ks) {
    info_field(r, "expired_time_cap_reached_count", "%llu", (unsigned long long)we->budget_hits);
    info_field(r, "expire_cycle_cpu_milliseconds", "%lld", (long long)(we->time_used_us / 1000));
    info_field(r, "expire_wheel_tick_ms", "%d", TW_TICK_MS);
    info_field(r, "expire_wheel_levels", "%d", TW_LEVELS);
    info_field(r, "expire_wheel_slots_per_level", "%d", TW_SLOTS_PER_LEVEL);
    info_field(r, "expire_wheel_scheduled", "%zu", tw_count(&ks->wheel));
    info_field(r, "expire_wheel_max_lateness_ms", "%lld", (long long)ks->max_lateness_ms);
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

/* What an EXPIRE that set a TTL sends to the replicas: PEXPIREAT with the
 * absolute deadline in ms, the options kept. A PEXPIREAT goes as it came
 * (Redis's expireGenericCommand(), 7.0.15). */
static void propagate_expire(int argc, arg *argv, int64_t when, int is_pexpireat) {
    if (is_pexpireat) {
        repl_propagate(&server.repl, argc, argv);
        return;
    }
    char ms[24];
    arg *rewritten = mem_alloc(sizeof(arg) * (size_t)argc); /* NX, GT... may repeat */
    memcpy(rewritten, argv, sizeof(arg) * (size_t)argc);
    rewritten[0] = (arg){"PEXPIREAT", 9};
    rewritten[2] = (arg){ms, (size_t)snprintf(ms, sizeof(ms), "%lld", (long long)when)};
    repl_propagate(&server.repl, argc, rewritten);
    mem_free(rewritten);
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
    if (!expire_condition_holds(flags, key_expire_ms(de), when)) {
        reply_integer(c, 0);
        return;
    }
    if (when <= now && !repl_is_replica(&server.repl)) {
        keyspace_delete_entry(&server.db, de);
        /* Redis counts this as a DEL, not as an expiry, and sends one. */
        repl_propagate(&server.repl, 2, (arg[]){{"DEL", 3}, argv[1]});
    } else {
        expire_set(&server.db, de, when);
        propagate_expire(argc, argv, when, unit_ms && !relative);
    }
    server.db.dirty++;
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
    dict_entry *de = keyspace_find(&server.db, key, now);
    if (de == NULL) {
        server.db.misses++;
        reply_integer(c, -2);
        return;
    }
    server.db.hits++;
    int64_t when = key_expire_ms(de);
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
    int had_ttl = de && key_timer(de) != NULL;
    if (had_ttl) expire_remove(&server.db, de);
    server.db.dirty += (uint64_t)had_ttl;
    if (had_ttl) repl_propagate(&server.repl, argc, argv);
    reply_integer(c, had_ttl);
}

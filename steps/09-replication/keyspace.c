/* keyspace.c -- the keys and their values, and the commands that read and
 * write them.
 *
 * ==== The keyspace ====
 *
 * A thin layer over the hash table: it decides what a value is (its bytes,
 * with what the server keeps about them, in one allocation, so a value costs
 * one malloc and one free) and who frees it (the keyspace, always). The hash
 * table grows with the number of keys, and grows *incrementally*: see dict.c
 * for why a table of a million keys must never be rehashed in one go. */
#include "keyspace.h"

#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "alloc.h"
#include "clock.h"
#include "command.h"
#include "expire.h"
#include "reply.h"
#include "server.h"
#include "set_fsm.h"
#include "snapshot.h"
#include "strnum.h"

static value *value_create(const arg *bytes) {
    value *v = mem_alloc(sizeof(value) + bytes->len);
    v->len = (uint32_t)bytes->len;
    memcpy(v->bytes, bytes->ptr, bytes->len);
    return v;
}

static void value_free(void *v) {
    mem_free(v);
}

void keyspace_init(keyspace *ks, int64_t now_ms) {
    memset(ks, 0, sizeof(*ks));
    ks->keys = dict_create(sizeof(tw_node));
    tw_init(&ks->wheel, now_ms - 1); /* it runs 1 ms behind: see expire_due_keys() */
}

void keyspace_free(keyspace *ks) {
    tw_free(&ks->wheel);
    dict_free(ks->keys, value_free);
    ks->keys = NULL;
}

tw_node *key_timer(dict_entry *de) {
    return dict_entry_metadata(de);
}

dict_entry *keyspace_find(keyspace *ks, const arg *key, int64_t now_ms) {
    dict_entry *de = dict_find(ks->keys, key->ptr, key->len);
    if (de && expire_if_needed(ks, de, now_ms)) return NULL;
    return de;
}

value *keyspace_get(keyspace *ks, const arg *key, int64_t now_ms) {
    dict_entry *de = keyspace_find(ks, key, now_ms);
    if (de)
        ks->hits++;
    else
        ks->misses++;
    return de ? de->val : NULL;
}

/* Store a copy of val under key. An existing key keeps its entry (and so its
 * copy of the key bytes); only the value is replaced, and the old one freed,
 * together with its TTL: a plain SET makes a key persistent again. */
dict_entry *keyspace_set(keyspace *ks, const arg *key, const arg *val, int64_t now_ms) {
    int existed;
    dict_entry *de = dict_add_or_find(ks->keys, key->ptr, key->len, &existed);
    if (existed) {
        /* Overwriting an expired key replaces a key that no longer existed:
         * count it as expired, as Redis's lookup before the write does. */
        if (key_is_expired(de, now_ms)) ks->expired_keys++;
        expire_remove(ks, de);
        value_free(de->val);
    }
    de->val = value_create(val);
    ks->dirty++;
    return de;
}

dict_entry *keyspace_add(keyspace *ks, const arg *key, const arg *val) {
    int existed;
    dict_entry *de = dict_add_or_find(ks->keys, key->ptr, key->len, &existed);
    if (existed) return NULL;
    de->val = value_create(val);
    return de;
}

/* Remove key and free its entry and value. Returns 1 if the key existed. */
int keyspace_delete(keyspace *ks, const arg *key, int64_t now_ms) {
    dict_entry *de = keyspace_find(ks, key, now_ms);
    if (de == NULL) return 0;
    keyspace_delete_entry(ks, de);
    ks->dirty++;
    return 1;
}

void keyspace_delete_entry(keyspace *ks, dict_entry *de) {
    expire_remove(ks, de);
    value_free(de->val);
    dict_delete_entry(ks->keys, de);
}

size_t keyspace_size(const keyspace *ks) {
    return dict_size(ks->keys);
}

/* The wheel's nodes live in the entries about to be freed: empty the wheel
 * first, then start it again at the time it had reached. */
void keyspace_clear(keyspace *ks) {
    int64_t wheel_time = tw_now(&ks->wheel);
    tw_free(&ks->wheel);
    dict_empty(ks->keys, value_free);
    tw_init(&ks->wheel, wheel_time);
}

/* ==== What INFO reports ==== */

/* INFO's Keyspace section: Redis's line for database 0, when it holds keys.
 * expires= counts the keys that have a TTL: those the wheel holds. avg_ttl=0
 * is what Redis prints when it has no estimate: it estimates while its
 * expire cycle samples. */
void keyspace_info(info_request *r, const keyspace *ks) {
    if (info_section(r, "keyspace", "Keyspace") && keyspace_size(ks))
        info_field(r, "db0", "keys=%zu,expires=%zu,avg_ttl=0", keyspace_size(ks),
                   tw_count(&ks->wheel));
}

/* The keyspace's fields of INFO's Stats section, with Redis's names. */
void keyspace_stats_info(info_request *r, const keyspace *ks) {
    info_field(r, "expired_keys", "%llu", (unsigned long long)ks->expired_keys);
    info_field(r, "keyspace_hits", "%llu", (unsigned long long)ks->hits);
    info_field(r, "keyspace_misses", "%llu", (unsigned long long)ks->misses);
}

/* ==== Commands ==== */

/* GET key: the value, or a null bulk when the key is missing. */
void get_command(client *c, int argc, arg *argv) {
    (void)argc;
    value *v = keyspace_get(&server.db, &argv[1], clock_now_ms());
    if (v)
        reply_bulk(c, v->bytes, v->len);
    else
        reply_null(c);
}

/* ==== SET and DIGEST ====
 *
 * SET's options are parsed by the state machine of set_fsm.c into a plain
 * set_options struct; nothing below reads an option word. Parsing comes
 * first and touches nothing, so a request with a bad option changes nothing. */

/* XXH3-64 of the value, as Redis 8.4's DIGEST defines it: 16 lowercase hex
 * digits, zero-padded. out must hold 17 bytes. */
static void value_digest(const value *v, char out[17]) {
    snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits(v->bytes, v->len));
}

/* Does a digest argument name this digest? Hex digits compare without case. */
static int digest_matches(const value *v, const arg *digest) {
    char mine[17];
    value_digest(v, mine);
    return arg_is(digest, mine);
}

/* May the write go ahead? old is the current value, NULL if the key is
 * missing. IFEQ and IFDEQ never create a key; IFNE and IFDNE do. */
static int set_condition_holds(const set_options *o, const value *old) {
    const arg *want = &o->cond_value;
    switch (o->cond) {
    case SET_COND_NONE: return 1;
    case SET_COND_NX: return old == NULL;
    case SET_COND_XX: return old != NULL;
    case SET_COND_IFEQ:
        return old && old->len == want->len && memcmp(old->bytes, want->ptr, want->len) == 0;
    case SET_COND_IFNE:
        return !old || old->len != want->len || memcmp(old->bytes, want->ptr, want->len) != 0;
    case SET_COND_IFDEQ: return old && digest_matches(old, want);
    case SET_COND_IFDNE: return !old || !digest_matches(old, want);
    }
    return 0;
}

static void reply_set_parse_error(client *c, set_parse_status status) {
    if (status == SET_PARSE_NOT_INTEGER)
        reply_not_integer(c);
    else if (status == SET_PARSE_INVALID_EXPIRE)
        reply_error(c, "invalid expire time in 'set' command");
    else
        reply_syntax_error(c);
}

/* What a SET that wrote sends to the replicas. With an expire option, the
 * key, the value and the deadline as an absolute time, whatever form the
 * client gave it in: a replica that runs it later, or whose clock differs,
 * still expires the key when the master meant. The condition and GET are
 * dropped: they held here, and the replica must write whatever it holds.
 * Otherwise the command as it came (Redis's setGenericCommand(), 7.0.15). */
static void propagate_set(int argc, arg *argv, const set_options *o) {
    if (o->expiry != SET_EXPIRY_AT) {
        repl_propagate(&server.repl, argc, argv);
        return;
    }
    char ms[24];
    arg rewritten[5] = {{"SET", 3}, argv[1], argv[2], {"PXAT", 4}, {ms, 0}};
    rewritten[4].len = (size_t)snprintf(ms, sizeof(ms), "%lld", o->expire_at_ms);
    repl_propagate(&server.repl, 5, rewritten);
}

/* SET key value [NX | XX | IFEQ v | IFNE v | IFDEQ d | IFDNE d] [GET]
 *               [EX s | PX ms | EXAT unix-s | PXAT unix-ms | KEEPTTL]
 *
 * Executes a parsed request in Redis's order: the condition is checked
 * against the current value; GET answers with the old value whatever the
 * outcome; the write replaces the value and, unless KEEPTTL, the TTL; an
 * EXAT/PXAT already in the past leaves no key behind. */
void set_command(client *c, int argc, arg *argv) {
    int64_t now = clock_now_ms();
    set_options o;
    set_parse_status status = set_parse_options(argv + 3, argc - 3, now, &o);
    if (status != SET_PARSE_OK) {
        reply_set_parse_error(c, status);
        return;
    }
    dict_entry *de = keyspace_find(&server.db, &argv[1], now);
    const value *old = de ? de->val : NULL;
    /* A digest is checked when there is something to compare it with. */
    if (old && (o.cond == SET_COND_IFDEQ || o.cond == SET_COND_IFDNE) &&
        !set_digest_arg_valid(o.cond_value)) {
        reply_error(c, "digest must be exactly 16 hexadecimal characters");
        return;
    }
    if (o.get) {
        if (old)
            reply_bulk(c, old->bytes, old->len); /* sent before the value changes */
        else
            reply_null(c);
    }
    if (!set_condition_holds(&o, old)) {
        if (!o.get) reply_null(c);
        return;
    }
    int64_t keep = de && o.expiry == SET_EXPIRY_KEEP ? key_timer(de)->expire_ms : 0;
    if (o.expiry == SET_EXPIRY_AT && o.expire_at_ms <= now && !repl_is_replica(&server.repl)) {
        if (de) {
            keyspace_delete_entry(&server.db, de); /* expired on arrival */
            repl_propagate(&server.repl, 2, (arg[]){{"DEL", 3}, argv[1]});
        }
    } else {
        de = keyspace_set(&server.db, &argv[1], &argv[2], now);
        if (o.expiry == SET_EXPIRY_AT) expire_set(&server.db, de, o.expire_at_ms);
        if (keep) expire_set(&server.db, de, keep);
        propagate_set(argc, argv, &o);
    }
    if (!o.get) reply_ok(c);
}

/* DIGEST key: the value's XXH3-64 as 16 hex digits, or nil (Redis 8.4). */
void digest_command(client *c, int argc, arg *argv) {
    (void)argc;
    value *v = keyspace_get(&server.db, &argv[1], clock_now_ms());
    if (v == NULL) {
        reply_null(c);
        return;
    }
    char digest[17];
    value_digest(v, digest);
    reply_bulk(c, digest, 16);
}

/* DBSIZE: the number of keys held, including expired keys that no command
 * has touched yet: lazy expiry has not deleted them, so they still count. */
void dbsize_command(client *c, int argc, arg *argv) {
    (void)argc;
    (void)argv;
    reply_integer(c, (long long)keyspace_size(&server.db));
}

/* FLUSHALL / FLUSHDB [ASYNC | SYNC]: delete every key. Both are the same here,
 * with one database; ASYNC frees in the foreground, which the client cannot
 * tell apart. Client libraries and test harnesses send these to start clean.
 * FLUSHALL also replaces the snapshot with an empty one when save points are
 * set, as Redis's does, so a restart does not bring the keys back. */
void flushall_command(client *c, int argc, arg *argv) {
    if (argc > 2 || (argc == 2 && !arg_is(&argv[1], "async") && !arg_is(&argv[1], "sync"))) {
        reply_syntax_error(c);
        return;
    }
    server.db.dirty += keyspace_size(&server.db);
    keyspace_clear(&server.db);
    if (arg_is(&argv[0], "flushall")) snapshot_after_flushall(&server.snap);
    repl_propagate(&server.repl, argc, argv);
    reply_ok(c);
}

/* DEL key [key ...]: the number of keys that existed and were removed. A key
 * named twice counts once: the second time, it is already gone. An expired
 * key counts 0: it no longer existed, it just had not been deleted yet. */
void del_command(client *c, int argc, arg *argv) {
    int64_t now = clock_now_ms();
    long long removed = 0;
    for (int i = 1; i < argc; i++)
        removed += keyspace_delete(&server.db, &argv[i], now);
    if (removed) repl_propagate(&server.repl, argc, argv);
    reply_integer(c, removed);
}

/* EXISTS key [key ...]: how many of the arguments name an existing key. It
 * counts arguments, not keys: EXISTS k k answers 2 when k exists. */
void exists_command(client *c, int argc, arg *argv) {
    int64_t now = clock_now_ms();
    long long count = 0;
    for (int i = 1; i < argc; i++)
        count += keyspace_get(&server.db, &argv[i], now) != NULL;
    reply_integer(c, count);
}

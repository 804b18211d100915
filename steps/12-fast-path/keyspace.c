/* keyspace.c -- the keys and their values, and the commands that read and
 * write them.
 *
 * ==== The keyspace ====
 *
 * A thin layer over the hash table: it decides what a value is (its bytes,
 * with their length) and where it lives (in its key's entry when short, see
 * below), and who frees it (the keyspace, always). The hash table grows with
 * the number of keys, and grows *incrementally*: see dict.c for why a table
 * of a million keys must never be rehashed in one go. */
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

/* ==== Where a value lives ====
 *
 * A key's entry is one block (dict.h); its metadata, the bytes between the
 * header and the key, is laid out by this file:
 *
 *   +--------+-----------------------+------------------------+-----------+
 *   | header | tw_node, if a TTL     | value, if at most      | key bytes |
 *   | 24     | 24                    | VALUE_EMBED_MAX: 4+len | keylen    |
 *   +--------+-----------------------+------------------------+-----------+
 *
 * A short value in its own block would cost a whole malloc chunk (glibc's
 * smallest is 32 bytes, for abc's 7) and a second cache miss; inside the
 * entry it often costs nothing, because malloc rounds the entry up anyway.
 * The node stays first, where dict_entry_from_metadata() finds the entry
 * from it. de->val points at the value wherever it is, so whether a key has
 * a node can be read from the two pointers: with no node, an embedded value
 * starts where the metadata does. VALUE_EMBED_MAX is Redis's limit for the
 * same trick (OBJ_ENCODING_EMBSTR_SIZE_LIMIT, 44, in Redis 7.0.15's
 * object.c, where the string's bytes share the block of its robj). */

/* The metadata a value of len bytes takes in its entry: 0 if it has a block
 * of its own. */
static size_t value_room(size_t len) {
    return len <= VALUE_EMBED_MAX ? sizeof(value) + len : 0;
}

/* A copy of bytes as the entry's value: in the room at `at` (room bytes of
 * the entry's metadata), or in a new block when there is none. */
static value *value_put(void *at, size_t room, const arg *bytes) {
    value *v = room ? at : mem_alloc(sizeof(value) + bytes->len);
    v->len = (unsigned)bytes->len;
    v->embedded = room != 0;
    memcpy(v->bytes, bytes->ptr, bytes->len);
    return v;
}

/* An embedded value goes with its entry: only a block of its own is freed. */
static void value_free(void *val) {
    value *v = val;
    if (v && !v->embedded) mem_free(v);
}

void keyspace_init(keyspace *ks, int64_t now_ms) {
    memset(ks, 0, sizeof(*ks));
    ks->keys = dict_create(0);       /* an entry gets its tw_node with its TTL */
    tw_init(&ks->wheel, now_ms - 1); /* it runs 1 ms behind: see expire_due_keys() */
}

void keyspace_free(keyspace *ks) {
    tw_free(&ks->wheel);
    dict_free(ks->keys, value_free);
    ks->keys = NULL;
}

tw_node *key_timer(dict_entry *de) {
    void *metadata = dict_entry_metadata(de);
    return metadata && de->val != metadata ? metadata : NULL;
}

dict_entry *key_resize_timer(keyspace *ks, dict_entry *de, int with_timer) {
    value *v = de->val;
    size_t room = v->embedded ? sizeof(value) + v->len : 0;
    size_t timer = with_timer ? sizeof(tw_node) : 0;
    /* Taking the node away: the value moves to the front before the block
     * shrinks, since the dict keeps the first bytes of the metadata. */
    if (room && !with_timer) memmove(dict_entry_metadata(de), v, room);
    de = dict_entry_resize_metadata(ks->keys, de, timer + room);
    if (room) {
        char *metadata = dict_entry_metadata(de);
        if (with_timer) { /* the value moves behind the new node, zeroed */
            memmove(metadata + timer, metadata, room);
            memset(metadata, 0, timer);
        }
        de->val = metadata + timer;
    }
    return de;
}

int64_t key_expire_ms(dict_entry *de) {
    tw_node *timer = key_timer(de);
    return timer ? timer->expire_ms : 0;
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

/* Store a copy of val under key. A new key's entry is allocated with the
 * room its value takes. An existing key keeps its copy of the key bytes;
 * the value is replaced, and the old one freed, together with its TTL (a
 * plain SET makes a key persistent again). Its entry moves only if it must
 * change size: a value as long as the old one is copied in place. */
dict_entry *keyspace_set(keyspace *ks, const arg *key, const arg *val, int64_t now_ms) {
    int existed;
    size_t room = value_room(val->len);
    dict_entry *de = dict_add_or_find_sized(ks->keys, key->ptr, key->len, room, &existed);
    if (existed) {
        /* Overwriting an expired key replaces a key that no longer existed:
         * count it as expired, and tell the replicas, as Redis's lookup before
         * the write does. A replica's key waits for its master's DEL. */
        if (key_is_expired(de, now_ms) && !repl_is_replica(&server.repl)) {
            ks->expired_keys++;
            repl_propagate_expired(&server.repl, key->ptr, key->len);
        }
        tw_node *timer = key_timer(de);
        if (timer) tw_cancel(&ks->wheel, timer);
        value_free(de->val);
        de = dict_entry_resize_metadata(ks->keys, de, room); /* node and old value dropped */
    }
    de->val = value_put(dict_entry_metadata(de), room, val);
    ks->dirty++;
    return de;
}

/* The entry is allocated once, at its final size: with the wheel's node
 * first when the key will have a TTL (zeroed, as the dict hands out its
 * metadata), then the value if it is short. */
dict_entry *keyspace_add(keyspace *ks, const arg *key, const arg *val, int with_timer) {
    int existed;
    size_t room = value_room(val->len), timer = with_timer ? sizeof(tw_node) : 0;
    dict_entry *de = dict_add_or_find_sized(ks->keys, key->ptr, key->len, timer + room, &existed);
    if (existed) return NULL;
    char *metadata = dict_entry_metadata(de); /* NULL when the entry has none */
    de->val = value_put(metadata ? metadata + timer : NULL, room, val);
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

/* The entry is freed with its node: unscheduling it is enough, where
 * expire_remove() would also shrink the entry. */
void keyspace_delete_entry(keyspace *ks, dict_entry *de) {
    tw_node *timer = key_timer(de);
    if (timer) tw_cancel(&ks->wheel, timer);
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

/* Does carrying out these options need the key's current value or TTL? A
 * plain SET, or one that only brings a new TTL, replaces whatever is there:
 * keyspace_set() finds the key on its own, and one lookup is saved. */
static int set_needs_current_key(const set_options *o, int64_t now) {
    return o->cond != SET_COND_NONE || o->get || o->expiry == SET_EXPIRY_KEEP ||
           (o->expiry == SET_EXPIRY_AT && o->expire_at_ms <= now);
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
    dict_entry *de =
        set_needs_current_key(&o, now) ? keyspace_find(&server.db, &argv[1], now) : NULL;
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
    int64_t keep = de && o.expiry == SET_EXPIRY_KEEP ? key_expire_ms(de) : 0;
    if (o.expiry == SET_EXPIRY_AT && o.expire_at_ms <= now && !repl_is_replica(&server.repl)) {
        if (de) {
            keyspace_delete_entry(&server.db, de); /* expired on arrival */
            repl_propagate(&server.repl, 2, (arg[]){{"DEL", 3}, argv[1]});
        }
    } else {
        de = keyspace_set(&server.db, &argv[1], &argv[2], now);
        if (o.expiry == SET_EXPIRY_AT) de = expire_set(&server.db, de, o.expire_at_ms);
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

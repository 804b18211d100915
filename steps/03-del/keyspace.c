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

#include <string.h>

#include "alloc.h"
#include "command.h"
#include "reply.h"
#include "server.h"

static value *value_create(const arg *bytes) {
    value *v = mem_alloc(sizeof(value) + bytes->len);
    v->len = bytes->len;
    memcpy(v->bytes, bytes->ptr, bytes->len);
    return v;
}

static void value_free(void *v) {
    mem_free(v);
}

void keyspace_init(keyspace *ks) {
    ks->keys = dict_create();
}

void keyspace_free(keyspace *ks) {
    dict_free(ks->keys, value_free);
    ks->keys = NULL;
}

value *keyspace_get(keyspace *ks, const arg *key) {
    dict_entry *de = dict_find(ks->keys, key->ptr, key->len);
    return de ? de->val : NULL;
}

/* Store a copy of val under key. An existing key keeps its entry (and so its
 * copy of the key bytes); only the value is replaced, and the old one freed. */
void keyspace_set(keyspace *ks, const arg *key, const arg *val) {
    int existed;
    dict_entry *de = dict_add_or_find(ks->keys, key->ptr, key->len, &existed);
    if (existed) value_free(de->val);
    de->val = value_create(val);
}

/* Remove key and free its entry and value. Returns 1 if the key existed. */
int keyspace_delete(keyspace *ks, const arg *key) {
    int found;
    value *v = dict_delete(ks->keys, key->ptr, key->len, &found);
    if (found) value_free(v);
    return found;
}

size_t keyspace_size(const keyspace *ks) {
    return dict_size(ks->keys);
}

void keyspace_clear(keyspace *ks) {
    dict_empty(ks->keys, value_free);
}

/* ==== What INFO reports ==== */

/* INFO's Keyspace section: Redis's line for database 0, when it holds keys.
 * No key can have a TTL yet (expires=0), and avg_ttl=0 is what Redis prints
 * when it has no estimate. */
void keyspace_info(info_request *r, const keyspace *ks) {
    if (info_section(r, "keyspace", "Keyspace") && keyspace_size(ks))
        info_field(r, "db0", "keys=%zu,expires=0,avg_ttl=0", keyspace_size(ks));
}

/* ==== Commands ==== */

/* GET key: the value, or a null bulk when the key is missing. */
void get_command(client *c, int argc, arg *argv) {
    (void)argc;
    value *v = keyspace_get(&server.db, &argv[1]);
    if (v)
        reply_bulk(c, v->bytes, v->len);
    else
        reply_null(c);
}

/* SET key value: store, replacing any old value. The options SET takes in
 * Redis (EX, PX, NX, ...) come in later chapters; here any extra argument is
 * a syntax error, as Redis answers for an option it does not know. */
void set_command(client *c, int argc, arg *argv) {
    if (argc != 3) {
        reply_syntax_error(c);
        return;
    }
    keyspace_set(&server.db, &argv[1], &argv[2]);
    reply_ok(c);
}

/* DBSIZE: the number of keys. */
void dbsize_command(client *c, int argc, arg *argv) {
    (void)argc;
    (void)argv;
    reply_integer(c, (long long)keyspace_size(&server.db));
}

/* FLUSHALL / FLUSHDB [ASYNC | SYNC]: delete every key. Both are the same here,
 * with one database; ASYNC frees in the foreground, which the client cannot
 * tell apart. Client libraries and test harnesses send these to start clean. */
void flushall_command(client *c, int argc, arg *argv) {
    if (argc > 2 || (argc == 2 && !arg_is(&argv[1], "async") && !arg_is(&argv[1], "sync"))) {
        reply_syntax_error(c);
        return;
    }
    keyspace_clear(&server.db);
    reply_ok(c);
}

/* DEL key [key ...]: the number of keys that existed and were removed. A key
 * named twice counts once: the second time, it is already gone. */
void del_command(client *c, int argc, arg *argv) {
    long long removed = 0;
    for (int i = 1; i < argc; i++)
        removed += keyspace_delete(&server.db, &argv[i]);
    reply_integer(c, removed);
}

/* EXISTS key [key ...]: how many of the arguments name an existing key. It
 * counts arguments, not keys: EXISTS k k answers 2 when k exists. */
void exists_command(client *c, int argc, arg *argv) {
    long long count = 0;
    for (int i = 1; i < argc; i++)
        count += keyspace_get(&server.db, &argv[i]) != NULL;
    reply_integer(c, count);
}

/* keyspace.h -- the keys and their values.
 *
 * The keyspace maps binary-safe keys to binary-safe values. It is a hash
 * table (dict.c) whose entries hold the key bytes; each entry's value is a
 * `value`, described below: inside the entry when it is short, an
 * allocation of its own when it is not.
 *
 * Ownership, the question C makes you answer: the keyspace owns every key and
 * every value. Commands receive their arguments as pointers into the client's
 * query buffer, which is reused for the next command, so storing a key or a
 * value means copying it, and replacing or deleting one means freeing it. */
#ifndef KEYSPACE_H
#define KEYSPACE_H

#include <stddef.h>
#include <stdint.h>

#include "dict.h"
#include "info.h"
#include "net.h"
#include "timewheel.h"

/* A value of at most VALUE_EMBED_MAX bytes is kept in its key's dict entry,
 * as part of the entry's metadata, after the wheel's node when the key has
 * one; a longer one is a block of its own. Either way de->val points at it,
 * and a command reads it the same way. */
#define VALUE_EMBED_MAX 44

typedef struct value {
    unsigned len : 31;     /* length of bytes[] (at most 512 MB, so 31 bits suffice) */
    unsigned embedded : 1; /* 1: it lives in its key's entry, and goes with it */
    char bytes[];          /* the value, binary safe, not NUL-terminated */
} value;

typedef struct keyspace {
    dict *keys;              /* key bytes -> value; metadata: [tw_node if a TTL][short value] */
    timewheel wheel;         /* every key with a TTL, by deadline; must not move */
    uint64_t expired_keys;   /* keys deleted because their time had passed (INFO) */
    uint64_t hits;           /* lookups that found a live key (INFO keyspace_hits) */
    uint64_t misses;         /* lookups that found nothing (INFO keyspace_misses) */
    int64_t max_lateness_ms; /* most ms a key outlived the moment it expired (INFO) */
    uint64_t dirty;          /* writes since the last save (INFO rdb_changes_since_last_save) */
} keyspace;

/* A key's link in the timing wheel, which keeps every key with a TTL in
 * order of deadline (timewheel.h), or NULL when the key has no TTL: only the
 * entries of keys with a TTL carry one, as the dict's per-entry metadata, so
 * a key without costs the wheel nothing. timer->expire_ms is the key's
 * expire time, absolute Unix ms. The wheel can hand the entry back when it
 * is due; giving a key a TTL or taking it away moves its entry (expire.h). */
tw_node *key_timer(dict_entry *de);

/* Give the entry the room for a wheel node (with_timer 1), zeroed, at the
 * front of its metadata, or take that room away (0), keeping its value:
 * the entry moves, and its new address is returned. The node must not be in
 * the wheel, and the entry must not already be as asked. For expire.c. */
dict_entry *key_resize_timer(keyspace *ks, dict_entry *de, int with_timer);

/* The key's expire time, absolute Unix ms, or 0 when it has none. */
int64_t key_expire_ms(dict_entry *de);

void keyspace_init(keyspace *ks, int64_t now_ms);
void keyspace_free(keyspace *ks);

/* The one way to look a key up. If the key's time has passed, it is deleted
 * first (lazy expiry) and NULL is returned, so no command can forget to
 * check. `now_ms` is read once per command, as Redis does, so a command sees
 * one consistent time. */
dict_entry *keyspace_find(keyspace *ks, const arg *key, int64_t now_ms);

/* keyspace_find() for reading commands: also counts hits and misses. */
value *keyspace_get(keyspace *ks, const arg *key, int64_t now_ms);

/* Store a copy of val under key, with no TTL (a plain SET forgets the old
 * one). Returns the key's entry, for the caller to give it a TTL. */
dict_entry *keyspace_set(keyspace *ks, const arg *key, const arg *val, int64_t now_ms);

/* Add a key that is not there yet, with no TTL: a snapshot's key as it is
 * loaded; with_timer when expire_set() will give it one next, so its entry
 * has the node's room from the start. Returns its entry, or NULL if the key
 * is already there. */
dict_entry *keyspace_add(keyspace *ks, const arg *key, const arg *val, int with_timer);

int keyspace_delete(keyspace *ks, const arg *key, int64_t now_ms); /* 1 if it existed */
void keyspace_delete_entry(keyspace *ks, dict_entry *de);          /* frees entry and value */
size_t keyspace_size(const keyspace *ks); /* every key held, expired or not */
void keyspace_clear(keyspace *ks);
void keyspace_info(info_request *r, const keyspace *ks);       /* INFO's Keyspace section */
void keyspace_stats_info(info_request *r, const keyspace *ks); /* its fields of INFO's Stats */

/* The commands that read and write keys. */
void get_command(client *c, int argc, arg *argv);
void set_command(client *c, int argc, arg *argv);
void dbsize_command(client *c, int argc, arg *argv);
void flushall_command(client *c, int argc, arg *argv);
void del_command(client *c, int argc, arg *argv);
void exists_command(client *c, int argc, arg *argv);
void digest_command(client *c, int argc, arg *argv);

#endif

/* keyspace.h -- the keys and their values.
 *
 * The keyspace maps binary-safe keys to binary-safe values. It is a hash
 * table (dict.c) whose entries hold the key bytes; each entry's value is a
 * `value`: one allocation, described below.
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

typedef struct value {
    uint32_t len; /* length of bytes[] (at most 512 MB, so 32 bits suffice) */
    char bytes[]; /* the value, binary safe, not NUL-terminated */
} value;

typedef struct keyspace {
    dict *keys;              /* key bytes -> value; each entry's metadata is its tw_node */
    timewheel wheel;         /* every key with a TTL, by deadline; must not move */
    uint64_t expired_keys;   /* keys deleted because their time had passed (INFO) */
    uint64_t hits;           /* lookups that found a live key (INFO keyspace_hits) */
    uint64_t misses;         /* lookups that found nothing (INFO keyspace_misses) */
    int64_t max_lateness_ms; /* most ms a key outlived the moment it expired (INFO) */
    uint64_t dirty;          /* writes since the last save (INFO rdb_changes_since_last_save) */
} keyspace;

/* A key's link in the timing wheel, which keeps every key with a TTL in
 * order of deadline (timewheel.h). timer->expire_ms is the key's expire
 * time, absolute Unix ms, or 0 when it has none. The link lives in the key's
 * hash table entry (the dict's per-entry metadata), so scheduling a key
 * allocates nothing and the wheel can hand the entry back when it is due. */
tw_node *key_timer(dict_entry *de);

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
 * loaded. Returns its entry, or NULL if the key is already there. */
dict_entry *keyspace_add(keyspace *ks, const arg *key, const arg *val);

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

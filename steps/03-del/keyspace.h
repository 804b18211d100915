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

#include "dict.h"
#include "info.h"
#include "net.h"

typedef struct value {
    size_t len;   /* length of bytes[] */
    char bytes[]; /* the value, binary safe, not NUL-terminated */
} value;

typedef struct keyspace {
    dict *keys; /* key bytes -> value */
} keyspace;

void keyspace_init(keyspace *ks);
void keyspace_free(keyspace *ks);

value *keyspace_get(keyspace *ks, const arg *key);               /* NULL if missing */
void keyspace_set(keyspace *ks, const arg *key, const arg *val); /* copies both */
int keyspace_delete(keyspace *ks, const arg *key);               /* 1 if it existed */
size_t keyspace_size(const keyspace *ks);
void keyspace_clear(keyspace *ks);
void keyspace_info(info_request *r, const keyspace *ks); /* INFO's Keyspace section */

/* The commands that read and write keys. */
void get_command(client *c, int argc, arg *argv);
void set_command(client *c, int argc, arg *argv);
void dbsize_command(client *c, int argc, arg *argv);
void flushall_command(client *c, int argc, arg *argv);
void del_command(client *c, int argc, arg *argv);
void exists_command(client *c, int argc, arg *argv);

#endif

/* dict.h -- the hash table that holds the keyspace.
 *
 * A map from binary-safe keys to values, after the design of Redis's dict.c:
 *
 *   - chained buckets in a table whose size is a power of two;
 *   - incremental rehashing: when the table must grow or shrink, a second
 *     table is allocated and the entries move across a bucket at a time, one
 *     small step per add, find or delete (move one bucket's chain, visiting
 *     at most 10 empty buckets to find it), so no single command pays for
 *     moving a million keys;
 *   - a keyed hash (SipHash-1-2) whose seed is random per process, so a
 *     client cannot choose keys that all land in one bucket;
 *   - entries that carry the key bytes and, optionally, a few bytes of the
 *     caller's own metadata in the same allocation (the timing wheel keeps
 *     each key's link there).
 *
 * The dict never looks at values: it stores a void pointer and hands it back.
 * Who frees a value is always the caller's decision (see dict_delete()). */
#ifndef DICT_H
#define DICT_H

#include <stddef.h>
#include <stdint.h>

/* ============================ Types ============================ */

/* One key and its value. The struct is public so callers can read and write
 * `val` directly; the other fields are the dict's business and are read through
 * the accessors below.
 *
 * An entry is ONE malloc'd block:
 *
 *   +------+-----+--------+----------------+----------+---------------------+-----------+
 *   | next | val | keylen | metadata_bytes | hash_tag | caller metadata ... | key bytes |
 *   +------+-----+--------+----------------+----------+---------------------+-----------+
 *    8      8     4        2                2          metadata_bytes        keylen
 *
 * The header is 24 bytes on a 64-bit machine, so the metadata that follows
 * it starts 8-byte aligned, ready to hold a uint64_t or a pointer. The key is
 * not NUL-terminated: keys are binary-safe and always come with a length.
 *
 * hash_tag holds the top 16 bits of the key's hash. A lookup walking a chain
 * compares it before the key bytes, which may sit on the next cache line
 * (after the metadata): of the other entries of a chain, only one in 65,536
 * has its key read at all. */
typedef struct dict_entry {
    struct dict_entry *next; /* next entry in the same bucket, NULL at the chain's end */
    void *val;               /* the value; owned by the caller, never touched by the dict */
    uint32_t keylen;         /* key length in bytes (keys are at most 4 GiB - 1) */
    uint16_t metadata_bytes; /* bytes of caller metadata after this header (same in one dict) */
    uint16_t hash_tag;       /* the top 16 bits of the key's hash */
} dict_entry;

/* The table itself is private to dict.c: callers only use the functions below. */
typedef struct dict dict;

/* A safe iterator (see dict_iter_init()). Lives on the caller's stack; its
 * fields are private. */
typedef struct dict_iter {
    dict *d;          /* the dict being walked */
    int table;        /* which of the dict's two tables `bucket` indexes: 0 or 1 */
    size_t bucket;    /* index of the bucket being walked in that table */
    dict_entry *next; /* entry to return next, saved early so the current one may be deleted */
} dict_iter;

/* ============================ Hashing ============================ */

/* Set the 16-byte SipHash key used by every dict in the process. Call it once,
 * at start-up, before any dict holds an entry: changing the seed later would
 * strand every stored key in the wrong bucket. The server passes random bytes
 * so that bucket positions cannot be predicted from outside; tests may pass a
 * fixed seed for repeatable runs. Until it is called the seed is all zeros. */
void dict_set_hash_seed(const uint8_t seed[16]);

/* SipHash-1-2 of len bytes at key under the process seed. Any bytes are
 * allowed (NUL, CR, LF...); len may be 0 and key may then be NULL. Exposed so
 * tests can check that the seed changes the hash. */
uint64_t dict_hash(const char *key, size_t len);

/* ============================ Entries ============================ */

/* The key bytes of an entry (not NUL-terminated; see dict_entry_keylen()). */
const char *dict_entry_key(const dict_entry *de);

/* The key length in bytes. */
size_t dict_entry_keylen(const dict_entry *de);

/* The entry's caller metadata: metadata_bytes (as given to dict_create())
 * bytes, 8-byte aligned, zero-filled when the entry was inserted, stable for
 * the entry's life (entries never move in memory, even during a rehash).
 * Meaningless when the dict was created with metadata_bytes == 0. */
void *dict_entry_metadata(dict_entry *de);

/* The inverse: the entry whose metadata starts at `metadata`. Lets a callback
 * that is handed a pointer into the metadata (the timing wheel hands back its
 * node) find the key it belongs to. */
dict_entry *dict_entry_from_metadata(void *metadata);

/* ============================ The dict ============================ */

/* A new empty dict whose entries each carry metadata_bytes bytes of caller
 * metadata (0 for none, at most 65,535). Allocates the struct and a 4-bucket
 * table; aborts the process if memory is exhausted, as every allocation in
 * dict.c does. */
dict *dict_create(size_t metadata_bytes);

/* Free every entry, both tables and the dict itself, calling free_val on each
 * value first when free_val is not NULL. No iterator may be live. */
void dict_free(dict *d, void (*free_val)(void *val));

/* Remove every entry (calling free_val on each value when it is not NULL) and
 * go back to a 4-bucket table; the dict stays usable. This is FLUSHALL, and
 * costs O(entries + buckets). No iterator may be live. */
void dict_empty(dict *d, void (*free_val)(void *val));

/* Number of entries stored. O(1). */
size_t dict_size(const dict *d);

/* The entry for the key, or NULL. Does one bounded rehash step first (see
 * "Incremental rehashing" in dict.c), which is why d is not const. */
dict_entry *dict_find(dict *d, const char *key, size_t len);

/* Insert the key with value val and return its new entry, or return NULL and
 * change nothing if the key is already present. The key bytes are copied.
 * May start a resize and does one rehash step. */
dict_entry *dict_add(dict *d, const char *key, size_t len, void *val);

/* The entry for the key, inserting it if absent. *existed is set to 1 if the
 * key was already there (the entry is returned untouched), else to 0 and the
 * new entry has val NULL for the caller to fill in. One hash and one chain
 * walk, where dict_find() followed by dict_add() would do two. */
dict_entry *dict_add_or_find(dict *d, const char *key, size_t len, int *existed);

/* Remove the key: unlink and free its entry and return its value, which the
 * caller now owns and must free. *found (if not NULL) is set to 1 if the key
 * existed, else 0 and NULL is returned. May start a shrink; one rehash step. */
void *dict_delete(dict *d, const char *key, size_t len, int *found);

/* Remove an entry the caller holds a pointer to. Like dict_delete() but the
 * value is NOT freed nor returned: read de->val first. de must be in d.
 * Allowed on the current entry of a live iterator. For a caller that reaches
 * an entry through a pointer it kept (the expiry code) rather than through
 * the key's name. */
void dict_delete_entry(dict *d, dict_entry *de);

/* ============================ Prefetching ============================ */

/* Prefetching, for the fast path's look-ahead (fastpath.c), which knows
 * several keys it is about to look up: looking a key up in a table far
 * larger than the CPU's caches waits twice for memory, for the bucket and
 * then for the entry, and keys looked up one after the other wait one after
 * the other. Announced in advance, the loads overlap. dict_prefetch_bucket()
 * asks the CPU to start loading the bucket of the key whose dict_hash() is
 * `hash`, and returns at once; dict_prefetch_entry(), called later with the
 * same hash and the key's length (once the bucket had time to arrive), does
 * the same for the first entry of its chain, its header and the end of its
 * key. Both change nothing and may be skipped: they only warm the cache. */
void dict_prefetch_bucket(const dict *d, uint64_t hash);
void dict_prefetch_entry(const dict *d, uint64_t hash, size_t keylen);

/* The look-ahead has hashed the key of the command about to run: until the
 * next call, a lookup, insertion or deletion of these very bytes (the same
 * pointer and length, which must not change meanwhile) uses `hash` instead
 * of hashing them again. dict_expect_key(d, NULL, 0, 0) forgets it. */
void dict_expect_key(dict *d, const char *key, size_t len, uint64_t hash);

/* ============================ Iteration ============================ */

/* Start a safe iteration over every entry. Until dict_iter_release(), the
 * rehash is paused, so entries stay where they are: every entry present for
 * the whole iteration is returned exactly once. The caller may delete the
 * entry just returned (dict_delete()), but no other;
 * it may add entries, which may or may not be returned. */
void dict_iter_init(dict_iter *it, dict *d);

/* The next entry, or NULL when all have been returned. */
dict_entry *dict_iter_next(dict_iter *it);

/* End the iteration and let the rehash resume. Must be called exactly once
 * per dict_iter_init(), whether or not the iteration ran to its end. */
void dict_iter_release(dict_iter *it);

/* Stateless scan with a cursor, Redis's SCAN algorithm: start with cursor 0,
 * call again with the returned cursor until it returns 0. Each call visits
 * one bucket (or, during a rehash, one bucket of the small table and the
 * buckets of the large one that it spreads to) and calls fn on each entry.
 * Every entry present from the first call to the last is visited at least
 * once, even if the table grows or shrinks in between; some may be visited
 * twice. fn may delete the entry it is given (dict_delete_entry()), nothing
 * else, and must not add entries. Redis's active expire cycle walks its
 * expires table this way since 7.2 (chapter 05, exercise 3). */
uint64_t dict_scan(dict *d, uint64_t cursor, void (*fn)(dict_entry *de, void *ctx), void *ctx);

/* ============================ Introspection ============================ */

/* 1 while an incremental rehash is in progress, else 0. For tests. */
int dict_is_rehashing(const dict *d);

/* Buckets currently allocated, in both tables. For tests. */
size_t dict_bucket_count(const dict *d);

#endif

/* dict.h -- the hash table that holds the keyspace.
 *
 * A map from binary-safe keys to values, after the design of Redis's dict.c:
 *
 *   - chained buckets in a table whose size is a power of two;
 *   - incremental rehashing: when the table must be resized, a second table
 *     is allocated and the entries move across a bucket at a time, one small
 *     step per operation on the table (move one bucket's chain, visiting at
 *     most 10 empty buckets to find it), so no single command pays for
 *     moving a million keys;
 *   - a keyed hash (SipHash-1-2) whose seed is random per process, so a
 *     client cannot choose keys that all land in one bucket;
 *   - entries that carry the key bytes and, optionally, a few bytes of the
 *     caller's own metadata in the same allocation, as many as each entry
 *     needs (the timing wheel keeps its link there, in the entries of the
 *     keys that have a TTL, and only in those).
 *
 * The dict never looks at values: it stores a void pointer and hands it back.
 * Who frees a value is always the caller's decision. */
#ifndef DICT_H
#define DICT_H

#include <stddef.h>
#include <stdint.h>

/* ============================ Types ============================ */

/* One key and its value. The struct is public so callers can read and write
 * `val` and read `keylen` directly; the other fields are the dict's business,
 * and the key bytes are read through dict_entry_key().
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
    uint16_t metadata_bytes; /* bytes of caller metadata after this header (0: none) */
    uint16_t hash_tag;       /* the top 16 bits of the key's hash */
} dict_entry;

/* The table itself is private to dict.c: callers only use the functions below. */
typedef struct dict dict;

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

/* The key bytes of an entry: de->keylen of them, not NUL-terminated. */
const char *dict_entry_key(const dict_entry *de);

/* The entry's caller metadata: de->metadata_bytes bytes, 8-byte aligned,
 * zero-filled when the entry was inserted or the metadata was added, or NULL
 * when the entry has none. It stays where it is (a rehash never moves an
 * entry) until dict_entry_resize_metadata() moves the entry. */
void *dict_entry_metadata(dict_entry *de);

/* The inverse: the entry whose metadata starts at `metadata`. Lets a callback
 * that is handed a pointer into the metadata (the timing wheel hands back its
 * node) find the key it belongs to. */
dict_entry *dict_entry_from_metadata(void *metadata);

/* Give the entry metadata_bytes bytes of metadata instead of the ones it has
 * (at most 65,535; 0 for none): the entry is reallocated at its new size and
 * takes the old one's place in its chain, and its address is returned. The
 * key, val and the first min(old, new) bytes of the metadata are kept; the
 * bytes added are zero. Afterwards de is freed (unless the size was already
 * right, when de is returned untouched), so nothing may still point into it:
 * the caller takes its metadata out of any list first (the wheel: cancel the
 * node) and keeps the entry's new address; val is copied as it is, so a val
 * that points into the metadata is the caller's to point again. O(chain):
 * one hash (none for the entry a lookup of the expected key returned, which
 * stays the expected entry at its new address: see dict_expect_key()), one
 * walk along the key's chain, one allocation and copy. de must be in d. */
dict_entry *dict_entry_resize_metadata(dict *d, dict_entry *de, size_t metadata_bytes);

/* ============================ The dict ============================ */

/* A new empty dict whose entries each carry metadata_bytes bytes of caller
 * metadata when inserted (0 for none, at most 65,535; an entry's own can then
 * be changed with dict_entry_resize_metadata()). Allocates the struct and a 4-bucket
 * table; aborts the process if memory is exhausted, as every allocation in
 * dict.c does. */
dict *dict_create(size_t metadata_bytes);

/* Free every entry, both tables and the dict itself, calling free_val on each
 * value first when free_val is not NULL. */
void dict_free(dict *d, void (*free_val)(void *val));

/* Remove every entry (calling free_val on each value when it is not NULL) and
 * go back to a 4-bucket table; the dict stays usable. This is FLUSHALL, and
 * costs O(entries + buckets). */
void dict_empty(dict *d, void (*free_val)(void *val));

/* Number of entries stored. O(1). */
size_t dict_size(const dict *d);

/* The entry for the key, or NULL. Does one bounded rehash step first (see
 * "Incremental rehashing" in dict.c), which is why d is not const. */
dict_entry *dict_find(dict *d, const char *key, size_t len);

/* The entry for the key, inserting it if absent. *existed is set to 1 if the
 * key was already there (the entry is returned untouched), else to 0 and the
 * new entry, holding a copy of the key bytes, has val NULL for the caller to
 * fill in. One hash and one chain walk, where a find followed by an insert
 * would do two. May start a resize and does one rehash step. */
dict_entry *dict_add_or_find(dict *d, const char *key, size_t len, int *existed);

/* The same, but an entry it inserts gets metadata_bytes bytes of zeroed
 * metadata (at most 65,535) instead of the dict's default: a caller that
 * knows what a new key's entry will need allocates it once, at its size. */
dict_entry *dict_add_or_find_sized(dict *d, const char *key, size_t len, size_t metadata_bytes,
                                   int *existed);

/* Remove an entry the caller holds a pointer to (found with dict_find() or
 * kept since): unlink and free it. Its value is neither freed nor returned:
 * read de->val first, it is the caller's to free. de must be in d. May start
 * a shrink; one rehash step. */
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
 * next call, a lookup or insertion of these very bytes (the same pointer and
 * length, which must not change meanwhile) uses `hash` instead of hashing
 * them again, and so does the deletion of the entry such a lookup returned
 * (a DEL, a lazy expiry). dict_expect_key(d, NULL, 0, 0) forgets it. */
void dict_expect_key(dict *d, const char *key, size_t len, uint64_t hash);

/* Make room for `entries` keys in one step, for a load that knows how many
 * keys are coming (a snapshot's RESIZEDB): see dict.c. */
void dict_expand(dict *d, size_t entries);

/* Call visit on every entry, in table order, until it returns non-zero;
 * returns 0 when every entry was visited, -1 when visit stopped it. visit
 * must not add or delete entries: the walk does no rehash step and keeps
 * no place that a change could invalidate. */
int dict_for_each(dict *d, int (*visit)(dict_entry *de, void *ctx), void *ctx);

#endif

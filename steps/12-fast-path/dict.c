/* dict.c -- the hash table that holds the keyspace.
 *
 * A chained hash table with incremental rehashing, after the design of
 * Redis's dict.c (written here from scratch). dict.h has the contract of
 * every function; this file explains how they keep it. Read it top-down:
 * the hash function, then entries, then the two tables and how entries move
 * between them, then the operations built on those pieces. */
#include "dict.h"

#include <string.h>

#include "alloc.h"
#include "panic.h"

/* ============================ Data structures ============================
 *
 * A table is an array of buckets; each bucket is the head of a singly linked
 * chain of entries whose hashes agree on the low bits. The number of buckets
 * is a power of two, so "hash modulo size" is the cheap "hash & (size - 1)".
 *
 * A dict owns two tables. Normally only table[0] is in use. When table[0]
 * needs another size, table[1] is allocated at that size and the entries
 * move over a bucket at a time, rehash_index marking how far the move has
 * got: buckets of table[0] below it are already empty. While this is
 * going on, lookups look in both tables and insertions go to table[1], so
 * table[0] only ever drains. When it is empty, table[1] becomes table[0].
 *
 * Moving one bucket per operation (instead of all of them at once) is what
 * keeps every command fast: a million-key table would otherwise stall the
 * whole single-threaded server for tens of milliseconds the moment it grew. */

typedef struct dict_table {
    dict_entry **buckets; /* `size` chain heads; NULL when this table is unused */
    size_t size;          /* number of buckets: a power of two, or 0 when unused */
    size_t used;          /* entries stored in this table */
} dict_table;

struct dict {
    dict_table table[2];      /* [0] the main table, [1] the new table during a rehash */
    size_t rehash_index;      /* buckets of table[0] below this one are already moved */
    size_t metadata_bytes;    /* bytes of caller metadata in a new entry */
    size_t largest_metadata;  /* the most any entry has been given (for prefetching) */
    const char *expected_key; /* a key about to be looked up, hashed ahead (dict_expect_key()) */
    size_t expected_len;      /* its length */
    uint64_t expected_hash;   /* its dict_hash() */
    const dict_entry *expected_entry; /* the entry a lookup of it returned, or NULL */
};

/* The smallest table we ever have, so a tiny dict does not resize on every
 * insertion. */
static const size_t DICT_MIN_SIZE = 4;

/* A rehash step moves at most one bucket and, looking for a non-empty one,
 * skips at most this many empty buckets: the bounded work every operation on
 * the table may pay. */
static const size_t REHASH_EMPTY_VISITS = 10;

/* ============================ Memory ============================
 *
 * All memory comes from common/alloc.c, which counts it for INFO's
 * used_memory and treats running out as fatal, as Redis does: a server that
 * cannot allocate a few bytes for a key has no good way to continue. */

/* A zeroed array: all-zero bits is a NULL pointer on every platform this
 * project builds on, so a fresh bucket array is all empty. */
static dict_entry **alloc_buckets(size_t count) {
    return mem_calloc(count, sizeof(dict_entry *));
}

/* ============================ Hashing: SipHash-1-2 ============================
 *
 * Why a keyed hash? Keys come from clients. With a fixed, public hash function
 * an attacker can compute thousands of keys that land in the same bucket and
 * turn every lookup into a walk along one long chain (a "hash flooding"
 * attack). SipHash (Aumasson and Bernstein, 2012) mixes a secret 128-bit key
 * into the hash; without it, colliding keys cannot be found in advance.
 *
 * SipHash keeps 256 bits of state in four 64-bit words. It absorbs the input
 * 8 bytes at a time (the last word also carries the length), running c
 * "SipRounds" per word, then d more rounds to finish. The paper's SipHash-2-4
 * has c=2, d=4; Redis, like us, uses the faster SipHash-1-2 (c=1, d=2), which
 * is still far beyond what anyone can attack through a network socket.
 *
 * The seed is the only global variable in dict.c: every dict in the process
 * must hash with the same seed, and the server sets it once at start-up. */

static uint64_t hash_seed[2]; /* the SipHash key as two little-endian words; zero until set */

/* Read 8 bytes as a little-endian number, whatever the machine's byte order.
 * On a little-endian machine that is one (unaligned) load, which memcpy()
 * of 8 bytes compiles to; elsewhere the bytes are assembled one by one. */
static uint64_t load_le64(const uint8_t *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
#else
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
#endif
}

static uint64_t rotl64(uint64_t x, int bits) {
    return (x << bits) | (x >> (64 - bits));
}

/* One SipRound: additions, rotations and xors that mix the four words.
 * The hash runs for every lookup, so it is worth inlining: then the four
 * words can live in registers instead of an array in memory. */
static inline void sip_round(uint64_t v[4]) {
    v[0] += v[1];
    v[1] = rotl64(v[1], 13);
    v[1] ^= v[0];
    v[0] = rotl64(v[0], 32);
    v[2] += v[3];
    v[3] = rotl64(v[3], 16);
    v[3] ^= v[2];
    v[0] += v[3];
    v[3] = rotl64(v[3], 21);
    v[3] ^= v[0];
    v[2] += v[1];
    v[1] = rotl64(v[1], 17);
    v[1] ^= v[2];
    v[2] = rotl64(v[2], 32);
}

/* Absorb one 8-byte message word: xor it in, mix, xor it in again. */
static inline void sip_absorb(uint64_t v[4], uint64_t m) {
    v[3] ^= m;
    sip_round(v); /* c = 1 round per word */
    v[0] ^= m;
}

void dict_set_hash_seed(const uint8_t seed[16]) {
    hash_seed[0] = load_le64(seed);
    hash_seed[1] = load_le64(seed + 8);
}

uint64_t dict_hash(const char *key, size_t len) {
    const uint8_t *in = (const uint8_t *)key;
    /* The initial state: the seed xored with "somepseudorandomlygeneratedbytes"
     * in ASCII, constants from the SipHash paper. */
    uint64_t v[4] = {
        hash_seed[0] ^ 0x736f6d6570736575ULL,
        hash_seed[1] ^ 0x646f72616e646f6dULL,
        hash_seed[0] ^ 0x6c7967656e657261ULL,
        hash_seed[1] ^ 0x7465646279746573ULL,
    };

    /* Every whole 8-byte word of the input. */
    size_t whole = len - len % 8;
    for (size_t i = 0; i < whole; i += 8)
        sip_absorb(v, load_le64(in + i));

    /* The last word: the 0 to 7 leftover bytes, with the length's low byte on
     * top, so that inputs differing only in trailing zero bytes differ. When
     * the input has 8 bytes or more, its last 8 bytes are one load, shifted
     * right until only the leftover ones remain; otherwise byte by byte. */
    size_t left = len % 8;
    uint64_t last = (uint64_t)(len & 0xff) << 56;
    if (left > 0 && len >= 8) {
        last |= load_le64(in + len - 8) >> (8 * (8 - left));
    } else {
        for (size_t i = 0; i < left; i++)
            last |= (uint64_t)in[whole + i] << (8 * i);
    }
    sip_absorb(v, last);

    /* Finalisation: d = 2 more rounds. */
    v[2] ^= 0xff;
    sip_round(v);
    sip_round(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* ============================ Entries ============================
 *
 * An entry is one allocation: the 24-byte header of dict.h, then the caller's
 * metadata, then the key bytes (the picture is in dict.h). One malloc per key
 * instead of three (entry, key, metadata) saves two allocator headers and two
 * cache misses per lookup. Because the key is copied in, the caller may reuse
 * or free its own buffer as soon as dict_add_or_find() returns.
 *
 * A rehash never moves an entry: it relinks it into the other table but
 * keeps its address, so callers may hold entry pointers for as long as the
 * key exists. Only the caller moves one, by changing the size of its
 * metadata (dict_entry_resize_metadata(), below), and it then takes the new
 * address. */

_Static_assert(sizeof(dict_entry) % 8 == 0, "metadata after the header must be 8-byte aligned");

void *dict_entry_metadata(dict_entry *de) {
    return de->metadata_bytes ? (char *)de + sizeof(dict_entry) : NULL;
}

dict_entry *dict_entry_from_metadata(void *metadata) {
    return (dict_entry *)((char *)metadata - sizeof(dict_entry));
}

const char *dict_entry_key(const dict_entry *de) {
    return (const char *)de + sizeof(dict_entry) + de->metadata_bytes;
}

/* The tag an entry keeps of its key's hash: the top bits, because the low
 * ones choose the bucket and so are the same all along a chain. */
static uint16_t hash_tag(uint64_t hash) {
    return (uint16_t)(hash >> 48);
}

/* A new unlinked entry holding a copy of the key, whose hash is `hash`,
 * metadata_bytes of zeroed metadata, and val. Keys are binary-safe: len
 * bytes are copied whatever they are, and len may be 0 (in which case key
 * may be NULL). */
static dict_entry *entry_new(uint64_t hash, const char *key, size_t len, size_t metadata_bytes,
                             void *val) {
    if (len > UINT32_MAX) {
        /* The protocol caps a key at 512 MB long before this. */
        panic("dict: key of %zu bytes is too long", len);
    }
    dict_entry *de = mem_alloc(sizeof(dict_entry) + metadata_bytes + len);
    de->next = NULL;
    de->val = val;
    de->keylen = (uint32_t)len;
    de->metadata_bytes = (uint16_t)metadata_bytes;
    de->hash_tag = hash_tag(hash);
    memset((char *)de + sizeof(dict_entry), 0, metadata_bytes); /* may be 0 bytes */
    if (len > 0) memcpy((char *)de + sizeof(dict_entry) + metadata_bytes, key, len);
    return de;
}

/* 1 if the entry holds exactly these len bytes, whose hash is `hash`. The
 * tag and the length, in the header, rule out almost every other entry
 * before the key bytes are read. memcmp() is skipped for the empty key,
 * whose pointer may be NULL. */
static int entry_has_key(const dict_entry *de, uint64_t hash, const char *key, size_t len) {
    return de->hash_tag == hash_tag(hash) && de->keylen == len &&
           (len == 0 || memcmp(dict_entry_key(de), key, len) == 0);
}

/* ============================ Tables and resizing ============================
 *
 * When to resize. The load factor is entries / buckets. We grow when it
 * reaches 1 (one entry per bucket on average, so a lookup walks about one
 * entry).
 *
 * To what size. We pick the smallest power of two that is at least twice
 * the number of entries, which puts the load factor at about 1/2 just after
 * a resize: a few more keys cannot start another resize straight away.
 *
 * A resize only allocates table[1]; the entries move later, step by step. A
 * new resize cannot start until the previous one has finished, so finishing
 * one checks at once whether the table needs another. */

static int is_rehashing(const dict *d) {
    return d->table[1].size != 0;
}

/* The smallest power of two >= 2 * entries, and at least DICT_MIN_SIZE. */
static size_t table_size_for(size_t entries) {
    size_t size = DICT_MIN_SIZE;
    while (size < 2 * entries)
        size *= 2;
    return size;
}

static void table_init(dict_table *t, size_t size) {
    t->buckets = alloc_buckets(size);
    t->size = size;
    t->used = 0;
}

/* Free a table's bucket array (not its entries) and mark it unused. */
static void table_release(dict_table *t) {
    mem_free(t->buckets);
    memset(t, 0, sizeof(*t));
}

/* Begin moving everything into a new table of new_size buckets. */
static void start_resize(dict *d, size_t new_size) {
    table_init(&d->table[1], new_size);
    d->rehash_index = 0;
}

/* Start a resize if table[0] is out of range: full (grow) or, when
 * may_shrink, under 1/8 full (shrink, so that a table that once held a
 * million keys does not keep 8 MB of empty buckets after they are deleted;
 * the size rule leaves a shrunk table half full too). Called before every
 * insertion, which cannot make a table emptier (so may_shrink is 0 there:
 * a table dict_expand() sized for a load keeps its size until the keys
 * arrive), after every deletion, and when a rehash finishes, since keys may
 * have come or gone while it ran. */
static void resize_if_needed(dict *d, int may_shrink) {
    if (is_rehashing(d)) return;
    dict_table *t = &d->table[0];
    int full = t->used >= t->size;
    int too_empty = may_shrink && t->size > DICT_MIN_SIZE && t->used < t->size / 8;
    if (full || too_empty) start_resize(d, table_size_for(t->used));
}

/* Put an entry at the head of its bucket in table t. */
static void table_link(dict_table *t, size_t bucket, dict_entry *de) {
    de->next = t->buckets[bucket];
    t->buckets[bucket] = de;
    t->used++;
}

/* ============================ Incremental rehashing ============================
 *
 * One rehash step moves the next non-empty bucket of table[0] into table[1].
 * Every entry of that chain is rehashed (we do not store hashes, to keep
 * entries small) and pushed onto its new bucket. Runs of empty buckets are
 * skipped, but at most REHASH_EMPTY_VISITS of them per step, so that a step
 * is bounded however the entries are spread over the buckets.
 *
 * The bound on a step: at most 10 empty buckets visited and one chain moved.
 * A chain holds about one entry on average and, with a keyed hash, a long one
 * cannot be forced from outside. A table of B buckets is fully moved after at
 * most B steps, that is B operations, while at most B more insertions can
 * arrive, so table[1] never gets much beyond load factor 1 before it becomes
 * table[0]. */

/* Move every entry of table[0]'s bucket into table[1]. */
static void move_bucket(dict *d, size_t bucket) {
    dict_table *from = &d->table[0], *to = &d->table[1];
    dict_entry *de = from->buckets[bucket];
    while (de != NULL) {
        dict_entry *next = de->next;
        size_t target = dict_hash(dict_entry_key(de), de->keylen) & (to->size - 1);
        table_link(to, target, de);
        from->used--;
        de = next;
    }
    from->buckets[bucket] = NULL;
}

/* table[0] is empty: table[1] takes its place and the rehash is over. */
static void finish_rehash(dict *d) {
    table_release(&d->table[0]);
    d->table[0] = d->table[1];
    memset(&d->table[1], 0, sizeof(d->table[1]));
    d->rehash_index = 0;
    resize_if_needed(d, 1);
}

/* Do one bounded step of an ongoing rehash, if any. */
static void rehash_step(dict *d) {
    if (!is_rehashing(d)) return;
    dict_table *from = &d->table[0];
    /* While from->used > 0 there is a non-empty bucket at or after
     * rehash_index, so this loop cannot run off the end of the table. */
    size_t empty_visits = 0;
    while (from->used > 0 && from->buckets[d->rehash_index] == NULL) {
        d->rehash_index++;
        if (++empty_visits == REHASH_EMPTY_VISITS) return;
    }
    if (from->used > 0) {
        move_bucket(d, d->rehash_index);
        d->rehash_index++;
    }
    if (from->used == 0) finish_rehash(d);
}

/* ============================ Lookup and insertion ============================
 *
 * A key can be in either table during a rehash, so every lookup computes the
 * hash once and searches the key's bucket in table[0], then in table[1].
 * Since insertions go to table[1] during a rehash and the move takes each
 * entry out of table[0] before linking it into table[1], a key is in exactly
 * one table at any moment. */

/* Find the key, given its hash. */
static dict_entry *lookup(dict *d, uint64_t hash, const char *key, size_t len) {
    int tables = is_rehashing(d) ? 2 : 1;
    for (int i = 0; i < tables; i++) {
        dict_table *t = &d->table[i];
        for (dict_entry *de = t->buckets[hash & (t->size - 1)]; de != NULL; de = de->next)
            if (entry_has_key(de, hash, key, len)) return de;
    }
    return NULL;
}

/* 1 if these are the expected key's very bytes: the same pointer and length. */
static int is_expected_key(const dict *d, const char *key, size_t len) {
    return key == d->expected_key && len == d->expected_len && key != NULL;
}

/* The key's hash: the one computed ahead if this is the expected key, or a
 * new one. */
static uint64_t key_hash(const dict *d, const char *key, size_t len) {
    if (is_expected_key(d, key, len)) return d->expected_hash;
    return dict_hash(key, len);
}

/* The entry a lookup of the expected key returns is remembered, so that
 * deleting it takes the same hash (dict_delete_entry()). Returns de. */
static dict_entry *note_expected_entry(dict *d, const char *key, size_t len, dict_entry *de) {
    if (is_expected_key(d, key, len)) d->expected_entry = de;
    return de;
}

dict_entry *dict_find(dict *d, const char *key, size_t len) {
    rehash_step(d);
    if (dict_size(d) == 0) return NULL; /* no need to hash */
    return note_expected_entry(d, key, len, lookup(d, key_hash(d, key, len), key, len));
}

dict_entry *dict_add_or_find(dict *d, const char *key, size_t len, int *existed) {
    return dict_add_or_find_sized(d, key, len, d->metadata_bytes, existed);
}

dict_entry *dict_add_or_find_sized(dict *d, const char *key, size_t len, size_t metadata_bytes,
                                   int *existed) {
    if (metadata_bytes > UINT16_MAX)
        panic("dict: %zu metadata bytes per entry is too many", metadata_bytes);
    if (metadata_bytes > d->largest_metadata) d->largest_metadata = metadata_bytes;
    rehash_step(d);
    resize_if_needed(d, 0);
    uint64_t hash = key_hash(d, key, len);
    dict_entry *de = lookup(d, hash, key, len);
    if (de != NULL) {
        *existed = 1;
        return note_expected_entry(d, key, len, de);
    }
    *existed = 0;
    dict_table *t = &d->table[is_rehashing(d) ? 1 : 0];
    de = entry_new(hash, key, len, metadata_bytes, NULL);
    table_link(t, hash & (t->size - 1), de);
    note_expected_entry(d, key, len, de);
    return de;
}

/* ============================ Deletion ============================
 *
 * Deleting from a singly linked chain needs the pointer that points at the
 * entry: the bucket head, or the previous entry's next field. Finding that
 * "link" instead of the entry itself makes unlinking the first entry of a
 * chain no special case: *link = entry->next works for both.
 *
 * A deletion may start a shrink, and a cost to know about: a shrink walks
 * the whole old table, and at 10 empty buckets per step, emptying a
 * million-bucket table takes some 100,000 operations, during which its 8 MB
 * bucket array stays allocated (and keys may go on being deleted, so the
 * next shrink may start from far smaller). Redis also rehashes for a
 * millisecond per cron tick when the server is idle; a dict_rehash_for_ms()
 * here would let our cron do the same. */

/* The link to this very entry, whose key has this hash, or NULL; *table
 * receives the table that holds it. */
static dict_entry **find_entry_link(dict *d, uint64_t hash, const dict_entry *target,
                                    dict_table **table) {
    int tables = is_rehashing(d) ? 2 : 1;
    for (int i = 0; i < tables; i++) {
        dict_table *t = &d->table[i];
        for (dict_entry **link = &t->buckets[hash & (t->size - 1)]; *link; link = &(*link)->next) {
            if (*link == target) {
                *table = t;
                return link;
            }
        }
    }
    return NULL;
}

/* Unlink the entry *link points at from table t, free it, and start a shrink
 * if the table has become too empty. */
static void unlink_and_free(dict *d, dict_table *t, dict_entry **link) {
    dict_entry *de = *link;
    *link = de->next;
    t->used--;
    mem_free(de);
    resize_if_needed(d, 1);
}

void dict_delete_entry(dict *d, dict_entry *de) {
    rehash_step(d);
    /* The entry a lookup of the expected key returned has its hash already;
     * forget the entry, whose address the allocator may hand out again. */
    int expected = de == d->expected_entry;
    uint64_t hash = expected ? d->expected_hash : dict_hash(dict_entry_key(de), de->keylen);
    if (expected) d->expected_entry = NULL;
    dict_table *t;
    dict_entry **link = find_entry_link(d, hash, de, &t);
    if (link == NULL) panic("dict: dict_delete_entry on an entry that is not in the dict");
    unlink_and_free(d, t, link);
}

/* ============================ Resizing an entry's metadata ============================
 *
 * Metadata that only some entries need (the wheel's node, for the keys with
 * a TTL) is cheaper carried by those entries alone: an entry is one block,
 * so growing or shrinking its metadata means a new block. The new one is
 * linked where the old one was, through the same link a deletion finds, so
 * the chain's order and the table's counts do not change. The key moves
 * along with the metadata's end, so the block is copied in two parts. */

dict_entry *dict_entry_resize_metadata(dict *d, dict_entry *de, size_t metadata_bytes) {
    if (metadata_bytes > UINT16_MAX)
        panic("dict: %zu metadata bytes per entry is too many", metadata_bytes);
    if (metadata_bytes == de->metadata_bytes) return de;
    if (metadata_bytes > d->largest_metadata) d->largest_metadata = metadata_bytes;
    dict_table *t;
    int expected = de == d->expected_entry; /* then its hash is known, and it moves */
    uint64_t hash = expected ? d->expected_hash : dict_hash(dict_entry_key(de), de->keylen);
    dict_entry **link = find_entry_link(d, hash, de, &t);
    if (link == NULL) panic("dict: dict_entry_resize_metadata on an entry that is not in the dict");
    dict_entry *moved = mem_alloc(sizeof(dict_entry) + metadata_bytes + de->keylen);
    size_t kept = metadata_bytes < de->metadata_bytes ? metadata_bytes : de->metadata_bytes;
    memcpy(moved, de, sizeof(dict_entry) + kept); /* the header and what stays of the metadata */
    memset((char *)moved + sizeof(dict_entry) + kept, 0, metadata_bytes - kept);
    moved->metadata_bytes = (uint16_t)metadata_bytes;
    memcpy((char *)moved + sizeof(dict_entry) + metadata_bytes, dict_entry_key(de), de->keylen);
    *link = moved;
    if (expected) d->expected_entry = moved;
    mem_free(de);
    return moved;
}

/* ============================ Prefetching ============================ */

/* A hint to the CPU: start loading the cache line at addr. GCC and clang
 * have a builtin for it; elsewhere it does nothing, which is also correct. */
#if defined(__GNUC__)
#define PREFETCH(addr) __builtin_prefetch(addr)
#else
#define PREFETCH(addr) ((void)(addr))
#endif

/* A key can be in either table during a rehash: prefetch in both. */
void dict_prefetch_bucket(const dict *d, uint64_t hash) {
    for (int i = 0; i < (is_rehashing(d) ? 2 : 1); i++) {
        const dict_table *t = &d->table[i];
        PREFETCH(&t->buckets[hash & (t->size - 1)]);
    }
}

/* The entry's header, and the end of its key, which a lookup that finds its
 * key compares: it may be on the entry's next cache line. Where the key ends
 * depends on the entry's metadata, which is in the header that has not
 * arrived yet, so both places are prefetched: the key's end in an entry
 * without metadata, and in one with as much as the dict gave its largest
 * (in the server, the timing wheel's 24-byte node and a short value); they
 * are often on the same line. */
void dict_prefetch_entry(const dict *d, uint64_t hash, size_t keylen) {
    for (int i = 0; i < (is_rehashing(d) ? 2 : 1); i++) {
        const dict_table *t = &d->table[i];
        const dict_entry *de = t->buckets[hash & (t->size - 1)];
        if (de == NULL) continue;
        PREFETCH(de);
        /* In integers: for an entry whose key is shorter, the address is
         * past its end, which a prefetch may name but a pointer may not. */
        size_t key_end = sizeof(dict_entry) + (keylen ? keylen - 1 : 0);
        PREFETCH((const void *)((uintptr_t)de + key_end));
        PREFETCH((const void *)((uintptr_t)de + key_end + d->largest_metadata));
    }
}

void dict_expect_key(dict *d, const char *key, size_t len, uint64_t hash) {
    d->expected_key = key;
    d->expected_len = len;
    d->expected_hash = hash;
    d->expected_entry = NULL;
}

/* ============================ Creating and destroying ============================ */

dict *dict_create(size_t metadata_bytes) {
    if (metadata_bytes > UINT16_MAX)
        panic("dict: %zu metadata bytes per entry is too many", metadata_bytes);
    dict *d = mem_alloc(sizeof(*d));
    memset(d, 0, sizeof(*d));
    d->metadata_bytes = d->largest_metadata = metadata_bytes;
    table_init(&d->table[0], DICT_MIN_SIZE);
    return d;
}

/* Free every entry of both tables and their bucket arrays. */
static void free_all_entries(dict *d, void (*free_val)(void *)) {
    for (int i = 0; i < 2; i++) {
        dict_table *t = &d->table[i];
        for (size_t b = 0; b < t->size; b++) {
            dict_entry *de = t->buckets[b];
            while (de != NULL) {
                dict_entry *next = de->next;
                if (free_val != NULL) free_val(de->val);
                mem_free(de);
                de = next;
            }
        }
        if (t->size != 0) table_release(t);
    }
    d->rehash_index = 0;
    d->expected_entry = NULL; /* freed with the rest */
}

void dict_empty(dict *d, void (*free_val)(void *)) {
    free_all_entries(d, free_val);
    table_init(&d->table[0], DICT_MIN_SIZE);
}

void dict_free(dict *d, void (*free_val)(void *)) {
    if (d == NULL) return;
    free_all_entries(d, free_val);
    mem_free(d);
}

/* Make room for `entries` keys at once, as a load that knows how many are
 * coming does: the table takes the size that many insertions would have
 * grown it to (the smallest power of two that holds them, one a bucket on
 * average), so the load pays for no resize and no rehash. An empty dict
 * takes the new table straight away; one that holds keys starts a resize,
 * as growing would. Nothing happens while a rehash runs, or when the table
 * is that large already. */
void dict_expand(dict *d, size_t entries) {
    size_t size = DICT_MIN_SIZE;
    while (size < entries)
        size *= 2;
    if (is_rehashing(d) || size <= d->table[0].size) return;
    if (dict_size(d) == 0) {
        table_release(&d->table[0]);
        table_init(&d->table[0], size);
    } else {
        start_resize(d, size);
    }
}

/* ============================ Visiting every entry ============================
 *
 * Both tables are walked, table[0] then table[1], so an entry is visited
 * once whether or not it has moved yet. Nothing here rehashes: a snapshot
 * walks the table while nothing else runs (SAVE), or in a forked child whose
 * copy of the table no one else changes (BGSAVE). */

int dict_for_each(dict *d, int (*visit)(dict_entry *de, void *ctx), void *ctx) {
    for (int i = 0; i < 2; i++) {
        dict_table *t = &d->table[i];
        for (size_t b = 0; b < t->size; b++)
            for (dict_entry *de = t->buckets[b]; de != NULL; de = de->next)
                if (visit(de, ctx) != 0) return -1;
    }
    return 0;
}

/* ============================ Introspection ============================ */

size_t dict_size(const dict *d) {
    return d->table[0].used + d->table[1].used;
}

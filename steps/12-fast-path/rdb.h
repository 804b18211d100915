/* rdb.h -- Redis's snapshot file format, RDB, for string keys.
 *
 * An RDB file is the whole keyspace at one moment, as a stream of bytes:
 *
 *   "REDIS0010"             magic and a four-digit format version
 *   FA name value ...       AUX fields: facts about the writer (redis-ver, ctime...)
 *   FE 00                   SELECTDB: the records that follow are database 0's
 *   FB size expires         RESIZEDB: how many keys, and how many with a TTL
 *   [FC ms] 00 key value    one record per key: its expire time, absolute Unix
 *                           ms, if it has one; type 0 (a string); key; value
 *   FF                      EOF
 *   crc                     CRC-64 of every byte before it, 8 bytes little-endian
 *
 * This file writes version 10, the one Redis 7.0 writes and the newest it
 * loads, and reads versions 1 to 12, so files from Redis 2.x to 7.4 load as
 * long as they hold only strings. rdb.c says how each part is encoded; the
 * snapshot commands (snapshot.c) decide when a file is written and read. */
#ifndef RDB_H
#define RDB_H

#include <stddef.h>
#include <stdint.h>

#define RDB_VERSION          10 /* written: Redis 7.0's, which 7.0 and later all load */
#define RDB_VERSION_MAX_READ 12 /* read: up to Redis 7.4's */

/* ==== The checksum ==== */

/* CRC-64 "Jones", as Redis computes it: crc = rdb_crc64(0, bytes, n) over
 * the whole file up to and including the EOF byte; chain calls by passing
 * the last result back. */
uint64_t rdb_crc64(uint64_t crc, const void *bytes, size_t n);

/* ==== LZF ==== */

/* Decompress in_len bytes of LZF at in into exactly out_len bytes at out.
 * Returns 0 on success, -1 if the input is malformed or does not decode to
 * out_len bytes. Never reads or writes outside the two buffers. */
int lzf_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len);

/* ==== Writing ==== */

#define RDB_WRITE_BUFFER_BYTES 65536 /* written to the file a buffer at a time */

typedef struct rdb_writer {
    int fd;          /* the file being written */
    uint64_t crc;    /* CRC-64 of every byte so far */
    int error;       /* errno of the first failed write; 0 while all is well */
    size_t buffered; /* bytes in buf not yet written */
    uint8_t buf[RDB_WRITE_BUFFER_BYTES];
} rdb_writer;

/* Facts written as AUX fields at the top of the file. */
typedef struct rdb_aux {
    int64_t ctime_s; /* when the snapshot was taken, Unix seconds */
    size_t used_mem; /* the writer's memory in use, bytes */
    size_t keys;     /* keys that follow (RESIZEDB) */
    size_t with_ttl; /* of which have an expire time */
} rdb_aux;

/* Start a file on fd: magic, AUX fields, SELECTDB 0, RESIZEDB. */
void rdb_write_start(rdb_writer *w, int fd, const rdb_aux *aux);

/* One string key, with its expire time in absolute Unix ms, 0 for none. */
void rdb_write_string_key(rdb_writer *w, const char *key, size_t keylen, const char *val,
                          size_t vallen, int64_t expire_at_ms);

/* EOF, the checksum, and every buffered byte to the file. Returns 0, or -1
 * with w->error set if any write failed. */
int rdb_write_end(rdb_writer *w);

/* ==== Reading ==== */

/* One key as the file holds it. The bytes are valid only during the call
 * to the handler that receives it. */
typedef struct rdb_key {
    const char *key; /* the key bytes */
    size_t keylen;
    const char *val; /* the value bytes (a string: the only type read) */
    size_t vallen;
    int has_expire;       /* 1 if the file gave it an expire time */
    int64_t expire_at_ms; /* then, that time: absolute Unix ms, maybe long past */
} rdb_key;

/* What a read calls, with the ctx given to rdb_read().
 *   on_key   each key, in file order. Returns 0 to go on, or -1 to stop the
 *            read with `why` (a static string) as the error.
 *   on_size  (may be NULL) each RESIZEDB: how many keys follow, and how
 *            many of them have a TTL, so the table can be sized once. */
typedef struct rdb_read_calls {
    int (*on_key)(void *ctx, const rdb_key *k, const char **why);
    void (*on_size)(void *ctx, uint64_t keys, uint64_t with_ttl);
} rdb_read_calls;

/* Why a file did not load, and where. */
typedef struct rdb_error {
    size_t offset;  /* byte of the file at which the problem was found */
    char what[200]; /* what was wrong, in words */
} rdb_error;

/* What a successful read found. */
typedef struct rdb_file_facts {
    int version;     /* the file's format version */
    int checksummed; /* 1 if it carried a checksum that was verified */
} rdb_file_facts;

/* Read a whole file held in memory, making calls as it goes. Returns 0, or
 * -1 with err filled in: a truncated file, a bad checksum, an unknown
 * encoding or a type this server does not have (everything but strings)
 * all stop the read where they are found. */
int rdb_read(const uint8_t *file, size_t len, const rdb_read_calls *calls, void *ctx,
             rdb_file_facts *facts, rdb_error *err);

#endif

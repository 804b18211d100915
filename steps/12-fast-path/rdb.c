/* rdb.c -- the RDB file format: its checksum, its compression, and writing
 * and reading a file of string keys. See rdb.h for the layout.
 *
 * The format is Redis's, byte for byte, so redis-server loads what this file
 * writes and this file loads what redis-server writes. Every choice below
 * that concerns time is the same one: an expire time is stored as absolute
 * Unix milliseconds, 8 bytes, little-endian. A file read a week later, or on
 * another machine, still says exactly when each key dies. */
#define _POSIX_C_SOURCE 200809L
#include "rdb.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "strnum.h"

/* Opcodes: a byte read where a record's type is expected (rdb.h in Redis). */
enum {
    RDB_OPCODE_SLOT_INFO = 0xF4, /* cluster slot sizes (7.4): skipped */
    RDB_OPCODE_FUNCTION2 = 0xF5, /* a function library */
    RDB_OPCODE_FUNCTION_PRE_GA = 0xF6,
    RDB_OPCODE_MODULE_AUX = 0xF7,    /* a module's own data */
    RDB_OPCODE_IDLE = 0xF8,          /* LRU idle time of the next key: skipped */
    RDB_OPCODE_FREQ = 0xF9,          /* LFU counter of the next key: skipped */
    RDB_OPCODE_AUX = 0xFA,           /* name, value */
    RDB_OPCODE_RESIZEDB = 0xFB,      /* keys, keys with a TTL */
    RDB_OPCODE_EXPIRETIME_MS = 0xFC, /* int64 ms, little-endian */
    RDB_OPCODE_EXPIRETIME = 0xFD,    /* int32 seconds, little-endian (before 2.6) */
    RDB_OPCODE_SELECTDB = 0xFE,      /* database number */
    RDB_OPCODE_EOF = 0xFF,
};

#define RDB_TYPE_STRING 0

/* The first two bits of a length byte say how long the length is. */
enum {
    RDB_LEN_6BIT = 0,   /* 00xxxxxx: the length itself, 0 to 63 */
    RDB_LEN_14BIT = 1,  /* 01xxxxxx xxxxxxxx: big-endian, to 16,383 */
    RDB_LEN_LONG = 2,   /* 0x80 + 4 bytes, or 0x81 + 8 bytes, big-endian */
    RDB_LEN_ENCODED = 3 /* 11xxxxxx: not a length: a string's special encoding */
};
#define RDB_LEN_32BIT 0x80
#define RDB_LEN_64BIT 0x81

/* The special encodings of a string, in the low six bits of 11xxxxxx. */
enum { RDB_ENC_INT8 = 0, RDB_ENC_INT16 = 1, RDB_ENC_INT32 = 2, RDB_ENC_LZF = 3 };

/* Longest string read: Redis's limit on a value (proto-max-bulk-len). A
 * corrupt length beyond it is refused before anything is allocated. */
#define RDB_MAX_STRING_BYTES (512ULL * 1024 * 1024)

/* ==== CRC-64 ====
 *
 * The checksum is CRC-64 with the polynomial of D. Jones (0xad93d23594c935a9),
 * bits processed lowest first ("reflected"), starting from 0: crc("123456789")
 * is 0xe9c6d914c4b8d9ca. Bit by bit, each byte costs eight shift-and-xor
 * steps. A table of what those eight steps do to each of the 256 possible
 * low bytes turns them into one lookup. The table takes 2,048 steps to
 * build, nothing beside the 64 KB buffers it is used on, so it is built on
 * the stack for each call rather than kept as global state. Redis's crc64.c
 * goes further and processes 8 bytes per step with eight such tables. */

#define CRC64_JONES_REFLECTED 0x95ac9329ac4bc9b5ULL /* 0xad93d23594c935a9, bits reversed */

uint64_t rdb_crc64(uint64_t crc, const void *bytes, size_t n) {
    uint64_t table[256];
    for (unsigned b = 0; b < 256; b++) {
        uint64_t c = b;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ CRC64_JONES_REFLECTED : c >> 1;
        table[b] = c;
    }
    const uint8_t *p = bytes;
    while (n--)
        crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
}

/* ==== LZF ====
 *
 * LZF (Marc Lehmann's) is a byte-oriented LZ77: the compressed stream is a
 * sequence of items, each starting with a control byte c.
 *   c < 32:   a literal run: the next c + 1 bytes are copied as they are.
 *   c >= 32:  a back reference: copy bytes the output already holds. The
 *             length is c >> 5, plus the next byte when that is 7; two is
 *             added, since a shorter match is never worth it. The distance
 *             back is ((c & 31) << 8) + the next byte + 1.
 * A back reference may overlap what it writes ("aaaa..." is one literal 'a'
 * and a reference one byte back), so it is copied a byte at a time. Redis
 * compresses strings longer than 20 bytes this way; this file only reads
 * LZF and writes every string plainly, which every loader accepts. */

int lzf_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len) {
    size_t ip = 0, op = 0;
    while (ip < in_len) {
        unsigned c = in[ip++];
        if (c < 32) { /* literal run of c + 1 bytes */
            size_t run = c + 1;
            if (run > in_len - ip || run > out_len - op) return -1;
            memcpy(out + op, in + ip, run);
            ip += run;
            op += run;
            continue;
        }
        size_t len = c >> 5;
        if (len == 7) {
            if (ip >= in_len) return -1;
            len += in[ip++];
        }
        len += 2;
        if (ip >= in_len) return -1;
        size_t back = ((size_t)(c & 31) << 8) + in[ip++] + 1;
        if (back > op || len > out_len - op) return -1;
        for (size_t i = 0; i < len; i++, op++)
            out[op] = out[op - back];
    }
    return op == out_len ? 0 : -1;
}

/* ==== Writing ====
 *
 * Bytes go into a 64 KB buffer, and the buffer to the file (and through the
 * checksum) when it is full: one write() per 64 KB, however small the
 * records. A write that fails is remembered, and everything after it is
 * skipped, so the caller checks once, at the end. */

static void flush_buffer(rdb_writer *w) {
    w->crc = rdb_crc64(w->crc, w->buf, w->buffered);
    size_t done = 0;
    while (done < w->buffered && w->error == 0) {
        ssize_t n = write(w->fd, w->buf + done, w->buffered - done);
        if (n > 0)
            done += (size_t)n;
        else if (n == -1 && errno != EINTR)
            w->error = errno;
        else if (n == 0)
            w->error = EIO;
    }
    w->buffered = 0;
}

static void write_bytes(rdb_writer *w, const void *bytes, size_t n) {
    const uint8_t *p = bytes;
    while (n > 0 && w->error == 0) {
        size_t room = sizeof(w->buf) - w->buffered;
        size_t take = n < room ? n : room;
        memcpy(w->buf + w->buffered, p, take);
        w->buffered += take;
        p += take;
        n -= take;
        if (w->buffered == sizeof(w->buf)) flush_buffer(w);
    }
}

static void write_byte(rdb_writer *w, uint8_t b) {
    write_bytes(w, &b, 1);
}

/* A length: one byte up to 63, two up to 16,383, else 5 or 9 bytes. The
 * long forms are big-endian, unlike the integers below: Redis's choice. */
static void write_len(rdb_writer *w, uint64_t len) {
    uint8_t b[9];
    size_t n;
    if (len < 64) {
        b[0] = (uint8_t)len;
        n = 1;
    } else if (len < 16384) {
        b[0] = (uint8_t)(0x40 | (len >> 8));
        b[1] = (uint8_t)len;
        n = 2;
    } else if (len <= UINT32_MAX) {
        b[0] = RDB_LEN_32BIT;
        for (int i = 0; i < 4; i++)
            b[1 + i] = (uint8_t)(len >> (24 - 8 * i));
        n = 5;
    } else {
        b[0] = RDB_LEN_64BIT;
        for (int i = 0; i < 8; i++)
            b[1 + i] = (uint8_t)(len >> (56 - 8 * i));
        n = 9;
    }
    write_bytes(w, b, n);
}

/* value as n little-endian bytes. */
static void write_le(rdb_writer *w, uint64_t value, int n) {
    uint8_t b[8];
    for (int i = 0; i < n; i++)
        b[i] = (uint8_t)(value >> (8 * i));
    write_bytes(w, b, (size_t)n);
}

/* A string. One that is a canonical decimal integer of 32 bits or fewer
 * ("12345", not "012345" or "+1") is stored as the integer, in 2, 3 or 5
 * bytes, as Redis does: the loader turns it back into the same digits.
 * Anything else is stored as its length and its bytes. */
static void write_string(rdb_writer *w, const char *s, size_t len) {
    long long v;
    if (len <= 11 && string_to_ll(s, len, &v) && v >= INT32_MIN && v <= INT32_MAX) {
        if (v >= INT8_MIN && v <= INT8_MAX) {
            write_byte(w, 0xC0 | RDB_ENC_INT8);
            write_le(w, (uint64_t)v, 1);
        } else if (v >= INT16_MIN && v <= INT16_MAX) {
            write_byte(w, 0xC0 | RDB_ENC_INT16);
            write_le(w, (uint64_t)v, 2);
        } else {
            write_byte(w, 0xC0 | RDB_ENC_INT32);
            write_le(w, (uint64_t)v, 4);
        }
        return;
    }
    write_len(w, len);
    write_bytes(w, s, len);
}

static void write_aux(rdb_writer *w, const char *name, const char *value) {
    write_byte(w, RDB_OPCODE_AUX);
    write_string(w, name, strlen(name));
    write_string(w, value, strlen(value));
}

/* The AUX fields Redis 7.0 writes, except its replication fields. A loader
 * ignores the ones it does not know, so they are for people and tools:
 * redis-check-rdb prints them. */
void rdb_write_start(rdb_writer *w, int fd, const rdb_aux *aux) {
    w->fd = fd;
    w->crc = 0;
    w->error = 0;
    w->buffered = 0;
    char magic[16], number[32];
    snprintf(magic, sizeof(magic), "REDIS%04d", RDB_VERSION);
    write_bytes(w, magic, 9);
    write_aux(w, "redis-ver", "7.0.15"); /* the release whose files these are */
    snprintf(number, sizeof(number), "%d", (int)(sizeof(void *) * 8));
    write_aux(w, "redis-bits", number);
    snprintf(number, sizeof(number), "%lld", (long long)aux->ctime_s);
    write_aux(w, "ctime", number);
    snprintf(number, sizeof(number), "%zu", aux->used_mem);
    write_aux(w, "used-mem", number);
    write_aux(w, "aof-base", "0");
    if (aux->keys == 0) return; /* Redis writes no SELECTDB for an empty database */
    write_byte(w, RDB_OPCODE_SELECTDB);
    write_len(w, 0);
    write_byte(w, RDB_OPCODE_RESIZEDB);
    write_len(w, aux->keys);
    write_len(w, aux->with_ttl);
}

void rdb_write_string_key(rdb_writer *w, const char *key, size_t keylen, const char *val,
                          size_t vallen, int64_t expire_at_ms) {
    if (expire_at_ms != 0) {
        write_byte(w, RDB_OPCODE_EXPIRETIME_MS);
        write_le(w, (uint64_t)expire_at_ms, 8);
    }
    write_byte(w, RDB_TYPE_STRING);
    write_string(w, key, keylen);
    write_string(w, val, vallen);
}

/* The checksum covers every byte up to and including EOF: flush those first,
 * so w->crc has seen them all, then append the checksum itself. */
int rdb_write_end(rdb_writer *w) {
    write_byte(w, RDB_OPCODE_EOF);
    flush_buffer(w);
    write_le(w, w->crc, 8);
    uint64_t crc = w->crc;
    flush_buffer(w);
    w->crc = crc; /* the file's checksum, not that of the checksum too */
    return w->error ? -1 : 0;
}

/* ==== Reading ====
 *
 * The file is in memory; a reader walks it with a cursor. Every read checks
 * that the bytes are there first, so a truncated or corrupt file is an error
 * with an offset, never a read past the end. */

typedef struct reader {
    const uint8_t *start, *p, *end;
    rdb_error *err;
    const rdb_read_calls *calls;
    void *ctx; /* for the calls */
} reader;

/* A string read from the file: its bytes are in the file itself (raw), in
 * `digits` (an integer, turned back into decimal) or in `owned` (LZF,
 * decompressed); `bytes` points at whichever it is. */
typedef struct rdb_string {
    const char *bytes;
    size_t len;
    char digits[24];
    uint8_t *owned; /* freed by string_release() */
} rdb_string;

static void string_release(rdb_string *s) {
    mem_free(s->owned);
    s->owned = NULL;
}

/* Record the first error, at the cursor; returns -1 for the caller to pass on. */
static int fail_at(reader *r, const uint8_t *where, const char *fmt, ...) {
    r->err->offset = (size_t)(where - r->start);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err->what, sizeof(r->err->what), fmt, ap);
    va_end(ap);
    return -1;
}

static int need(reader *r, size_t n, const char *what) {
    if ((size_t)(r->end - r->p) >= n) return 0;
    return fail_at(r, r->end, "the file ends in the middle of %s", what);
}

static int read_byte(reader *r, uint8_t *b, const char *what) {
    if (need(r, 1, what)) return -1;
    *b = *r->p++;
    return 0;
}

static uint64_t read_le(reader *r, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += n;
    return v;
}

static uint64_t read_be(reader *r, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | r->p[i];
    r->p += n;
    return v;
}

/* A length, or, when *encoded is set, a string's special encoding (0-3). */
static int read_len(reader *r, uint64_t *len, int *encoded, const char *what) {
    const uint8_t *at = r->p;
    uint8_t b;
    if (read_byte(r, &b, what)) return -1;
    *encoded = 0;
    switch (b >> 6) {
    case RDB_LEN_6BIT: *len = b & 0x3f; return 0;
    case RDB_LEN_14BIT:
        if (need(r, 1, what)) return -1;
        *len = (uint64_t)(b & 0x3f) << 8 | *r->p++;
        return 0;
    case RDB_LEN_ENCODED:
        *encoded = 1;
        *len = b & 0x3f;
        return 0;
    }
    if (b == RDB_LEN_32BIT) {
        if (need(r, 4, what)) return -1;
        *len = read_be(r, 4);
        return 0;
    }
    if (b == RDB_LEN_64BIT) {
        if (need(r, 8, what)) return -1;
        *len = read_be(r, 8);
        return 0;
    }
    return fail_at(r, at, "unknown length encoding 0x%02x in %s", b, what);
}

/* A length that is not allowed to be a string encoding. */
static int read_plain_len(reader *r, uint64_t *len, const char *what) {
    const uint8_t *at = r->p;
    int encoded;
    if (read_len(r, len, &encoded, what)) return -1;
    if (encoded) return fail_at(r, at, "a string encoding where %s was expected", what);
    return 0;
}

static int read_integer_string(reader *r, int enc, rdb_string *s, const char *what) {
    int n = enc == RDB_ENC_INT8 ? 1 : enc == RDB_ENC_INT16 ? 2 : 4;
    if (need(r, (size_t)n, what)) return -1;
    uint64_t raw = read_le(r, n);
    long long v = n == 1 ? (int8_t)raw : n == 2 ? (int16_t)raw : (int32_t)raw;
    s->len = ll_to_string(s->digits, v);
    s->bytes = s->digits;
    return 0;
}

static int read_lzf_string(reader *r, rdb_string *s, const char *what) {
    const uint8_t *at = r->p;
    uint64_t clen, ulen;
    if (read_plain_len(r, &clen, what) || read_plain_len(r, &ulen, what)) return -1;
    if (ulen > RDB_MAX_STRING_BYTES)
        return fail_at(r, at, "%s is compressed from %llu bytes, more than 512 MB", what,
                       (unsigned long long)ulen);
    if (need(r, clen, what)) return -1;
    s->owned = mem_alloc(ulen ? ulen : 1);
    if (lzf_decompress(r->p, clen, s->owned, ulen) != 0) {
        string_release(s);
        return fail_at(r, at, "%s: its LZF data does not decompress to %llu bytes", what,
                       (unsigned long long)ulen);
    }
    r->p += clen;
    s->bytes = (const char *)s->owned;
    s->len = ulen;
    return 0;
}

/* A string in any of the four forms Redis writes. */
static int read_string(reader *r, rdb_string *s, const char *what) {
    const uint8_t *at = r->p;
    uint64_t len;
    int encoded;
    s->owned = NULL;
    if (read_len(r, &len, &encoded, what)) return -1;
    if (encoded) {
        if (len == RDB_ENC_LZF) return read_lzf_string(r, s, what);
        if (len <= RDB_ENC_INT32) return read_integer_string(r, (int)len, s, what);
        return fail_at(r, at, "unknown string encoding %llu in %s", (unsigned long long)len, what);
    }
    if (len > RDB_MAX_STRING_BYTES)
        return fail_at(r, at, "%s is %llu bytes long, more than 512 MB", what,
                       (unsigned long long)len);
    if (need(r, len, what)) return -1;
    s->bytes = (const char *)r->p;
    s->len = len;
    r->p += len;
    return 0;
}

static int skip_string(reader *r, const char *what) {
    rdb_string s;
    int rc = read_string(r, &s, what);
    string_release(&s);
    return rc;
}

/* The names of the value types Redis has (rdb.h, 7.4.0), for the error that
 * refuses them: this server holds strings only. */
static const char *type_name(unsigned type) {
    static const char *const names[] = {"string",
                                        "list",
                                        "set",
                                        "sorted set",
                                        "hash",
                                        "sorted set",
                                        "module",
                                        "module",
                                        NULL,
                                        "hash (zipmap)",
                                        "list (ziplist)",
                                        "set (intset)",
                                        "sorted set (ziplist)",
                                        "hash (ziplist)",
                                        "list (quicklist)",
                                        "stream",
                                        "hash (listpack)",
                                        "sorted set (listpack)",
                                        "list (quicklist)",
                                        "stream",
                                        "set (listpack)",
                                        "stream",
                                        "hash with field TTLs",
                                        "hash with field TTLs",
                                        "hash with field TTLs",
                                        "hash with field TTLs"};
    return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

/* A record of a type other than a string: name the key, then refuse it. */
static int refuse_type(reader *r, const uint8_t *at, unsigned type) {
    rdb_string key;
    if (read_string(r, &key, "a key")) return -1;
    int shown = key.len > 64 ? 64 : (int)key.len;
    fail_at(r, at, "key '%.*s%s' is a %s (RDB type %u): this server holds only strings", shown,
            key.bytes, key.len > 64 ? "..." : "", type_name(type), type);
    string_release(&key);
    return -1;
}

/* The magic and the version: "REDIS" and four digits. */
static int read_header(reader *r, rdb_file_facts *facts) {
    if (need(r, 9, "the header") || memcmp(r->p, "REDIS", 5) != 0)
        return fail_at(r, r->start, "not an RDB file: it does not start with REDIS");
    int version = 0;
    for (int i = 5; i < 9; i++) {
        if (r->p[i] < '0' || r->p[i] > '9')
            return fail_at(r, r->p + i, "the version after REDIS is not four digits");
        version = version * 10 + (r->p[i] - '0');
    }
    if (version < 1 || version > RDB_VERSION_MAX_READ)
        return fail_at(r, r->p + 5, "RDB version %d: this server reads versions 1 to %d", version,
                       RDB_VERSION_MAX_READ);
    r->p += 9;
    facts->version = version;
    return 0;
}

/* After EOF: from version 5 on, the 8-byte checksum of everything before it.
 * A checksum of 0 means the writer did not compute one (Redis's rdbchecksum
 * no); Redis accepts such a file, and so does this. */
static int read_checksum(reader *r, rdb_file_facts *facts) {
    facts->checksummed = 0;
    if (facts->version < 5) return 0;
    uint64_t computed = rdb_crc64(0, r->start, (size_t)(r->p - r->start));
    const uint8_t *at = r->p;
    if (need(r, 8, "the checksum")) return -1;
    uint64_t stored = read_le(r, 8);
    if (stored == 0) return 0;
    if (stored != computed)
        return fail_at(r, at, "wrong checksum: the file says %016llx, its bytes give %016llx",
                       (unsigned long long)stored, (unsigned long long)computed);
    facts->checksummed = 1;
    return 0;
}

/* One string record: key and value, then the handler. */
static int read_string_record(reader *r, rdb_key *k) {
    const uint8_t *at = r->p;
    rdb_string key, val = {0};
    if (read_string(r, &key, "a key")) return -1;
    int rc = read_string(r, &val, "a value");
    if (rc == 0) {
        const char *why = "the key was refused";
        k->key = key.bytes, k->keylen = key.len, k->val = val.bytes, k->vallen = val.len;
        if (r->calls->on_key(r->ctx, k, &why) != 0) {
            int shown = key.len > 64 ? 64 : (int)key.len;
            rc = fail_at(r, at, "key '%.*s%s': %s", shown, key.bytes, key.len > 64 ? "..." : "",
                         why);
        }
    }
    string_release(&key);
    string_release(&val);
    return rc;
}

/* The opcodes that carry facts about the next key or the file, not a key:
 * returns 1 if the byte was one of them (and its payload was read), 0 if it
 * was not, -1 on error. */
static int read_opcode(reader *r, const uint8_t *at, uint8_t op, rdb_key *next) {
    uint64_t n;
    switch (op) {
    case RDB_OPCODE_EXPIRETIME_MS:
        if (need(r, 8, "an expire time")) return -1;
        next->has_expire = 1;
        next->expire_at_ms = (int64_t)read_le(r, 8);
        return 1;
    case RDB_OPCODE_EXPIRETIME: /* seconds, from files older than Redis 2.6 */
        if (need(r, 4, "an expire time")) return -1;
        next->has_expire = 1;
        next->expire_at_ms = (int64_t)(int32_t)read_le(r, 4) * 1000;
        return 1;
    case RDB_OPCODE_AUX:
        return skip_string(r, "an AUX name") || skip_string(r, "an AUX value") ? -1 : 1;
    case RDB_OPCODE_SELECTDB:
        if (read_plain_len(r, &n, "a database number")) return -1;
        if (n != 0)
            return fail_at(r, at, "keys of database %llu: this server has one database, 0",
                           (unsigned long long)n);
        return 1;
    case RDB_OPCODE_RESIZEDB: {
        uint64_t with_ttl;
        if (read_plain_len(r, &n, "RESIZEDB") || read_plain_len(r, &with_ttl, "RESIZEDB"))
            return -1;
        if (r->calls->on_size) r->calls->on_size(r->ctx, n, with_ttl);
        return 1;
    }
    case RDB_OPCODE_SLOT_INFO:
        for (int i = 0; i < 3; i++)
            if (read_plain_len(r, &n, "SLOT_INFO")) return -1;
        return 1;
    case RDB_OPCODE_IDLE: return read_plain_len(r, &n, "an idle time") ? -1 : 1;
    case RDB_OPCODE_FREQ: return need(r, 1, "a frequency") ? -1 : (r->p++, 1);
    case RDB_OPCODE_FUNCTION2:
    case RDB_OPCODE_FUNCTION_PRE_GA:
        return fail_at(r, at, "a function library: this server has no functions");
    case RDB_OPCODE_MODULE_AUX:
        return fail_at(r, at, "a module's data: this server has no modules");
    }
    return 0;
}

int rdb_read(const uint8_t *file, size_t len, const rdb_read_calls *calls, void *ctx,
             rdb_file_facts *facts, rdb_error *err) {
    reader r = {file, file, file + len, err, calls, ctx};
    if (read_header(&r, facts)) return -1;
    rdb_key next = {0};
    for (;;) {
        const uint8_t *at = r.p;
        uint8_t op;
        if (read_byte(&r, &op, "a record")) return -1;
        if (op == RDB_OPCODE_EOF) return read_checksum(&r, facts);
        int was_opcode = read_opcode(&r, at, op, &next);
        if (was_opcode < 0) return -1;
        if (was_opcode) continue;
        if (op != RDB_TYPE_STRING) {
            if (type_name(op) == NULL) return fail_at(&r, at, "unknown record type 0x%02x", op);
            return refuse_type(&r, at, op);
        }
        if (read_string_record(&r, &next)) return -1;
        next = (rdb_key){0}; /* an expire time applies to one key only */
    }
}

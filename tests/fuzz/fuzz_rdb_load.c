/* fuzz_rdb_load.c -- libFuzzer target for the snapshot loader (chapter 08).
 *
 * rdb_read() parses a file that the server did not write: it may come from
 * another Redis, be cut short by a full disk, or be garbage. Whatever the
 * bytes, it must either accept them or refuse them with an offset inside
 * the file, and never read outside them. Each input is a whole file. The
 * target fails (aborts, or AddressSanitizer reports) when:
 *   - any read goes past the input, or a key or value handed over does
 *     (every byte of each is read);
 *   - a refusal gives an offset beyond the end of the file, or no reason;
 *   - an accepted file, written again by rdb.c's writer and read back,
 *     does not give the same keys, values and expire times, in order.
 * Memory is LeakSanitizer's: an LZF buffer not freed fails it.
 *
 * Build and run: tests/fuzz/run.sh fuzz_rdb_load SECONDS. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdb.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#define MAX_KEYS 256 /* an input of more keys is checked for bounds, not re-written */

/* The keys of one read, as a digest of each (its bytes are all touched). */
typedef struct seen {
    size_t n;
    uint64_t digest[MAX_KEYS];
    int64_t expire[MAX_KEYS];
    int has_expire[MAX_KEYS];
} seen;

static int remember(void *ctx, const rdb_key *k, const char **why) {
    (void)why;
    seen *s = ctx;
    uint64_t d = rdb_crc64(0, k->key, k->keylen);
    d = rdb_crc64(d ^ k->keylen, k->val, k->vallen);
    if (s->n < MAX_KEYS) {
        s->digest[s->n] = d;
        s->expire[s->n] = k->expire_at_ms;
        s->has_expire[s->n] = k->has_expire;
    }
    s->n++;
    return 0;
}

static const rdb_read_calls remember_calls = {remember, NULL};

/* The second read: each key is written to a file as it arrives. */
static rdb_writer writer;

static int rewrite(void *ctx, const rdb_key *k, const char **why) {
    (void)ctx;
    (void)why;
    /* 0 means "no TTL" to the writer; a key expiring at exactly 0 is left out */
    if (k->has_expire && k->expire_at_ms == 0) return 0;
    rdb_write_string_key(&writer, k->key, k->keylen, k->val, k->vallen,
                         k->has_expire ? k->expire_at_ms : 0);
    return 0;
}

static void check_round_trip(const uint8_t *data, size_t size, const seen *first) {
    FILE *f = tmpfile();
    CHECK(f != NULL);
    rdb_aux aux = {0, 0, first->n, 0};
    rdb_write_start(&writer, fileno(f), &aux);
    rdb_file_facts facts;
    rdb_error err;
    rdb_read_calls rewrite_calls = {rewrite, NULL};
    CHECK(rdb_read(data, size, &rewrite_calls, NULL, &facts, &err) == 0);
    CHECK(rdb_write_end(&writer) == 0);
    long len = lseek(fileno(f), 0, SEEK_END);
    uint8_t *copy = malloc((size_t)len);
    CHECK(pread(fileno(f), copy, (size_t)len, 0) == len);
    fclose(f);
    seen again = {0};
    CHECK(rdb_read(copy, (size_t)len, &remember_calls, &again, &facts, &err) == 0);
    CHECK(facts.checksummed);
    size_t j = 0;
    for (size_t i = 0; i < first->n; i++) {
        if (first->has_expire[i] && first->expire[i] == 0) continue;
        CHECK(j < again.n);
        CHECK(again.digest[j] == first->digest[i]);
        CHECK(again.has_expire[j] == first->has_expire[i]);
        CHECK(!first->has_expire[i] || again.expire[j] == first->expire[i]);
        j++;
    }
    CHECK(j == again.n);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* An exact-size copy: a read one byte past the input is reported. */
    uint8_t *file = malloc(size ? size : 1);
    memcpy(file, data, size);
    seen first = {0};
    rdb_file_facts facts;
    rdb_error err;
    memset(&err, 0, sizeof(err));
    if (rdb_read(file, size, &remember_calls, &first, &facts, &err) == 0) {
        CHECK(facts.version >= 1 && facts.version <= RDB_VERSION_MAX_READ);
        if (first.n <= MAX_KEYS) check_round_trip(file, size, &first);
    } else {
        CHECK(err.offset <= size);
        CHECK(err.what[0] != '\0');
    }
    free(file);
    return 0;
}

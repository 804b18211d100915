/* prefetch.c -- the fast path's look-ahead: prefetch the keys of the
 * commands about to run. See prefetch.h, and common/fastpath.h for where
 * it is called.
 *
 * Each command looks its key up in the keyspace. In a table of a million
 * keys the bucket and the entry are rarely in the CPU's caches, so each
 * lookup waits for memory twice, about 100 ns each time here, and lookups
 * run one after the other wait one after the other. Asked for ahead of time,
 * the loads overlap: the look-ahead reads the key (argv[1]) of up to
 * PREFETCH_MAX_KEYS commands, from the clients about to run and the
 * pipelined commands waiting in their buffers, asks for all their buckets,
 * then for the first entry of each bucket, and lets them run.
 *
 * Measured over a 1,000,000-key keyspace with 50 clients (docs/benchmarks.md
 * has both builds side by side): with -P 16 about a fifth less server CPU
 * time per GET or SET; without pipelining, where most of a request's time is
 * the kernel's, about a quarter less user time. A command whose argv[1] is
 * not a key costs one wasted prefetch. */
#include "prefetch.h"

#include <string.h>

#include "fastpath.h"
#include "strnum.h"

#if FASTPATH

/* Keys looked at before a batch of clients runs, as Redis's default
 * prefetch-batch-max-size: enough loads to overlap, few enough to stay in
 * the L1 cache until they are used. */
#define PREFETCH_MAX_KEYS 16

/* A length line too long for a number we would look at: stop looking. */
#define PEEK_LINE_MAX 24

/* The number on the length line at buf[*at], which must end with CRLF
 * inside buf[0..len). Returns -1 for anything unusual (incomplete, not a
 * non-negative number, too long): the look-ahead then stops, and the parser
 * deals with the request properly when it runs. */
static long long peek_length(const char *buf, size_t len, size_t *at) {
    size_t left = len - *at < PEEK_LINE_MAX ? len - *at : PEEK_LINE_MAX;
    const char *cr = memchr(buf + *at, '\r', left);
    long long v;
    if (cr == NULL || (size_t)(cr - buf) + 2 > len) return -1;
    if (!string_to_ll(buf + *at, (size_t)(cr - (buf + *at)), &v) || v < 0) return -1;
    *at = (size_t)(cr - buf) + 2;
    return v;
}

/* argv[1] of each complete multibulk request in the client's unparsed
 * bytes, at most max of them, into keys. Stops at the first request that is
 * incomplete or inline; requests of one argument are skipped. */
static int peek_keys(const client *c, arg *keys, int max) {
    if (c->parser.in_multibulk) return 0; /* a request is half read: leave it */
    const char *buf = c->query.data;
    size_t len = c->query.len, at = c->parser.pos;
    int n = 0;
    while (n < max && at < len && buf[at] == '*') {
        at++;
        long long argc = peek_length(buf, len, &at);
        for (long long i = 0; i < argc; i++) {
            if (at >= len || buf[at] != '$') return n;
            at++;
            long long blen = peek_length(buf, len, &at);
            if (blen < 0 || len - at < (size_t)blen + 2) return n;
            if (i == 1) keys[n] = (arg){buf + at, (size_t)blen};
            at += (size_t)blen + 2;
        }
        if (argc < 0) return n;
        if (argc >= 2) n++; /* counted only once the whole request is there */
    }
    return n;
}

/* The look-ahead (fastpath.h): buckets first, then entries, so that the
 * entry loads start once the buckets they need have had time to arrive. */
static int prefetch_keys(client *first, void *ctx) {
    dict *keys = ctx;
    uint64_t hash[PREFETCH_MAX_KEYS];
    int n = 0, clients = 0;
    for (client *c = first; c != NULL && n < PREFETCH_MAX_KEYS; c = c->next_run) {
        arg names[PREFETCH_MAX_KEYS];
        int found = peek_keys(c, names, PREFETCH_MAX_KEYS - n);
        for (int i = 0; i < found; i++, n++) {
            hash[n] = dict_hash(names[i].ptr, names[i].len);
            dict_prefetch_bucket(keys, hash[n]);
        }
        clients++;
    }
    for (int i = 0; i < n; i++)
        dict_prefetch_entry(keys, hash[i]);
    return clients;
}

void prefetch_install(net_server *s, dict *keys) {
    fastpath_set_look_ahead(s, prefetch_keys, keys);
}

#endif

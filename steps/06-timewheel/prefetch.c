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

#include "fastpath.h"

#if FASTPATH

/* Keys looked at before a batch of clients runs, as Redis's default
 * prefetch-batch-max-size: enough loads to overlap, few enough to stay in
 * the L1 cache until they are used. */
#define PREFETCH_MAX_KEYS 16

/* More digits than a length we would look at can have: stop looking. */
#define PEEK_DIGITS_MAX 18

/* The number on the length line at buf[*at]: digits, then a CR with one
 * more byte after it. A look, not a parse: anything else (no digit, too many,
 * the line not all there yet) returns -1, the look-ahead stops, and the
 * parser deals with the request properly when it runs. The digits are read
 * here in one pass, and inline (measured with callgrind: about 200 fewer
 * instructions per pipelined GET than a call), because this runs three or
 * four times for every command of the fast path. */
static inline long long peek_length(const char *buf, size_t len, size_t *at) {
    size_t i = *at, end = len - i > PEEK_DIGITS_MAX ? i + PEEK_DIGITS_MAX : len;
    if (i >= end || buf[i] < '0' || buf[i] > '9') return -1;
    long long v = 0;
    while (i < end && buf[i] >= '0' && buf[i] <= '9')
        v = v * 10 + (buf[i++] - '0');
    if (i + 1 >= len || buf[i] != '\r') return -1;
    *at = i + 2;
    return v;
}

/* argv[1] of each complete multibulk request in the client's unparsed
 * bytes, into keys: at most max requests are looked at. Stops at the first
 * request that is incomplete or inline; requests of one argument have no key
 * to give. */
static int peek_keys(const client *c, arg *keys, int max) {
    if (c->parser.in_multibulk) return 0; /* a request is half read: leave it */
    const char *buf = c->query.data;
    size_t len = c->query.len, at = c->parser.pos;
    int n = 0;
    for (int looked = 0; looked < max && at < len && buf[at] == '*'; looked++) {
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

/* fastpath.c -- hold the clients read in a turn, and run them at its end in
 * batches whose keys were prefetched first. See fastpath.h for why.
 *
 * net.c calls three hooks (common/net.h): hold_client() after each read,
 * run_held_clients() once every ready socket of the turn has been read and
 * before any reply is written, and forget_client() when a client is freed
 * (a client held this turn may be closed before it runs: a failed write to
 * it, say). */
#include "fastpath.h"

#include "alloc.h"

/* ==== The look-ahead ==== */

/* Aim the look-ahead's parser at the client's first request not parsed
 * yet. A request whose first part the real parser has already taken is left
 * alone: its arguments are in the client's parser, not in the bytes. */
static int aim_at_next_request(request_parser *ahead, const client *c) {
    if (c->parser.in_multibulk) return 0;
    ahead->pos = c->parser.pos;
    ahead->in_multibulk = 0;
    ahead->bulk_len = -1;
    return 1;
}

/* Hash argv[1] of each complete multibulk request waiting in c's query
 * buffer into hash[], for at most max requests, and return how many keys it
 * found. It stops at the first request that is incomplete or malformed,
 * where the real parser will wait or reply with the error, and at an inline
 * request, which resp.c decodes in place: only the real parse may do that. */
static int peek_keys(request_parser *ahead, const client *c, uint64_t *hash, int max) {
    if (!aim_at_next_request(ahead, c)) return 0;
    int found = 0;
    for (int looked = 0; looked < max; looked++) {
        if (ahead->pos >= c->query.len || c->query.data[ahead->pos] != '*') break;
        parse_status st = parser_next(ahead, c->query.data, c->query.len);
        if (st == PARSE_NOTHING) continue; /* *0: no command */
        if (st != PARSE_COMMAND) break;
        if (ahead->argc >= 2) /* one-argument commands (PING) have no key */
            hash[found++] = dict_hash(ahead->argv[1].ptr, ahead->argv[1].len);
    }
    return found;
}

/* Buckets first, then entries: an entry's address is in its bucket, so its
 * load can only start once the bucket has arrived, and by the time the
 * second loop runs most of them have. */
int fastpath_look_ahead(fastpath *f, client *const *clients, int n) {
    uint64_t hash[PREFETCH_MAX_KEYS];
    int keys = 0, covered = 0;
    while (covered < n && keys < PREFETCH_MAX_KEYS) {
        const client *c = clients[covered++];
        if (c == NULL) continue;
        int found = peek_keys(&f->ahead, c, hash + keys, PREFETCH_MAX_KEYS - keys);
        for (int i = keys; i < keys + found; i++)
            dict_prefetch_bucket(f->keys, hash[i]);
        keys += found;
    }
    for (int i = 0; i < keys; i++)
        dict_prefetch_entry(f->keys, hash[i]);
    f->batches++;
    f->prefetched += (uint64_t)keys;
    return covered;
}

/* ==== The run hooks ==== */

/* After a read: hold the client until the end of the turn. Clients run in
 * the order they were read, as they would if each ran at once. */
static void hold_client(client *c, void *ctx) {
    fastpath *f = ctx;
    if (f->held_count == f->held_cap) {
        f->held_cap = f->held_cap ? f->held_cap * 2 : 64;
        f->held = mem_realloc(f->held, sizeof(*f->held) * (size_t)f->held_cap);
    }
    f->held[f->held_count++] = c;
}

/* The end of the turn: look ahead at a batch, run it, and so on. */
static void run_held_clients(net_server *s, void *ctx) {
    (void)s;
    fastpath *f = ctx;
    int i = 0;
    while (i < f->held_count) {
        int end = i + fastpath_look_ahead(f, f->held + i, f->held_count - i);
        for (; i < end; i++)
            if (f->held[i] != NULL) net_run_client(f->held[i]);
    }
    f->held_count = 0;
}

/* A client is being freed: if it is held, leave a hole where it was. */
static void forget_client(client *c, void *ctx) {
    fastpath *f = ctx;
    for (int i = 0; i < f->held_count; i++)
        if (f->held[i] == c) f->held[i] = NULL;
}

static const net_run_hooks fastpath_hooks = {
    .read = hold_client,
    .end_of_turn = run_held_clients,
    .closing = forget_client,
};

void fastpath_install(fastpath *f, net_server *s, dict *keys) {
    f->keys = keys;
    f->held = NULL;
    f->held_count = f->held_cap = 0;
    parser_init(&f->ahead);
    f->batches = f->prefetched = 0;
    net_set_run_hooks(s, &fastpath_hooks, f);
}

void fastpath_free(fastpath *f) {
    mem_free(f->held);
    f->held = NULL;
    f->held_count = f->held_cap = 0;
    parser_free(&f->ahead);
}

void fastpath_info(info_request *r, const fastpath *f) {
    info_field(r, "fastpath_batches", "%llu", (unsigned long long)f->batches);
    info_field(r, "fastpath_prefetched_keys", "%llu", (unsigned long long)f->prefetched);
}

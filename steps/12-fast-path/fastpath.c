/* fastpath.c -- hold the clients read in a turn, and run them at its end in
 * batches whose commands were parsed, and whose keys were prefetched, first.
 * See fastpath.h for why.
 *
 * net.c calls three hooks (this step's net.h): hold_client() after each read,
 * run_held_clients() once every ready socket of the turn has been read and
 * before any reply is written, and forget_client() when a client is freed
 * (a client held this turn may be closed before it runs: a failed write to
 * it, say). */
#include "fastpath.h"

#include <string.h>

#include "alloc.h"

/* ==== The look-ahead ==== */

/* Append the command the parser has just handed out to the batch: a copy of
 * its arguments, since the parser's next request overwrites them (they still
 * point into the query buffer, which nothing changes before the batch runs),
 * and the hash of its key, whose bucket the CPU starts loading. */
static void add_to_batch(fastpath *f, const request_parser *p, int slot) {
    parsed_command *pc = &f->batch[f->batch_count++];
    pc->slot = slot;
    pc->start = p->start;
    pc->argc = p->argc;
    pc->argv = f->args + f->args_used;
    memcpy(pc->argv, p->argv, sizeof(arg) * (size_t)p->argc);
    f->args_used += p->argc;
    if (p->argc >= 2) { /* one-argument commands (PING) have no key */
        pc->key_hash = dict_hash(p->argv[1].ptr, p->argv[1].len);
        dict_prefetch_bucket(f->keys, pc->key_hash);
    }
}

/* Parse the client's complete requests with its own parser, as its run
 * would, into the batch, while the batch has room. It stops at:
 *   - a request not complete yet: the parser keeps what it has read of it,
 *     and the run goes on from there;
 *   - an inline request, which a parse decodes in place, over its bytes
 *     (resp.h): it could not be parsed a second time, so the run parses it;
 *   - a protocol error, or a request with more arguments than the batch has
 *     room for: the parser is rewound to the request's start, and the run
 *     parses it again. A multibulk request's parse only reads its bytes
 *     (resp.h), so the second parse finds what the first did. */
static void parse_ahead(fastpath *f, client *c, int slot) {
    request_parser *p = &c->parser;
    while (f->batch_count < PREFETCH_MAX_KEYS) {
        if (!parser_next_is_multibulk(p, c->query.data, c->query.len)) return;
        parse_status st = parser_next(p, c->query.data, c->query.len);
        if (st == PARSE_NOTHING) continue; /* *0: no command */
        if (st == PARSE_INCOMPLETE) return;
        if (st == PARSE_ERROR || p->argc > BATCH_MAX_ARGS - f->args_used) {
            parser_rewind(p, p->start);
            return;
        }
        add_to_batch(f, p, slot);
    }
}

/* Buckets first, then entries: an entry's address is in its bucket, so its
 * load can only start once the bucket has arrived, and by the time the
 * second loop runs most of them have. */
int fastpath_look_ahead(fastpath *f, client *const *clients, int n) {
    f->batch_count = f->args_used = 0;
    int covered = 0;
    while (covered < n && f->batch_count < PREFETCH_MAX_KEYS) {
        if (clients[covered] != NULL) parse_ahead(f, clients[covered], covered);
        covered++;
    }
    int keys = 0;
    for (int i = 0; i < f->batch_count; i++) {
        if (f->batch[i].argc < 2) continue;
        dict_prefetch_entry(f->keys, f->batch[i].key_hash, f->batch[i].argv[1].len);
        keys++;
    }
    f->batches++;
    f->prefetched += (uint64_t)keys;
    return covered;
}

/* ==== Running a batch ==== */

/* Run the commands parsed ahead for c, in order. Each key's hash is handed
 * to the keyspace, which then need not compute it again. A command the
 * client cannot take now (it is closing, or its replies are piling up) is
 * not run, nor any after it: the parser is rewound to its start, and
 * net_run_client() does with them what it does with any request. */
static void run_parsed(fastpath *f, client *c, const parsed_command *pc, int n) {
    for (int i = 0; i < n; i++) {
        if (pc[i].argc >= 2)
            dict_expect_key(f->keys, pc[i].argv[1].ptr, pc[i].argv[1].len, pc[i].key_hash);
        int ran = net_run_command(c, pc[i].argc, pc[i].argv);
        dict_expect_key(f->keys, NULL, 0, 0);
        if (!ran) {
            parser_rewind(&c->parser, pc[i].start);
            return;
        }
    }
}

void fastpath_run(fastpath *f, client *const *clients, int covered) {
    int next = 0;
    for (int slot = 0; slot < covered; slot++) {
        int end = next;
        while (end < f->batch_count && f->batch[end].slot == slot)
            end++;
        client *c = clients[slot]; /* NULL if it was closed after the look-ahead */
        if (c != NULL) {
            run_parsed(f, c, f->batch + next, end - next);
            net_run_client(c);
        }
        next = end;
    }
    f->batch_count = f->args_used = 0;
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
        int covered = fastpath_look_ahead(f, f->held + i, f->held_count - i);
        fastpath_run(f, f->held + i, covered);
        i += covered;
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
    f->batch_count = f->args_used = 0;
    f->batches = f->prefetched = 0;
    net_set_run_hooks(s, &fastpath_hooks, f);
}

void fastpath_free(fastpath *f) {
    mem_free(f->held);
    f->held = NULL;
    f->held_count = f->held_cap = 0;
}

void fastpath_info(info_request *r, const fastpath *f) {
    info_field(r, "fastpath_batches", "%llu", (unsigned long long)f->batches);
    info_field(r, "fastpath_prefetched_keys", "%llu", (unsigned long long)f->prefetched);
}

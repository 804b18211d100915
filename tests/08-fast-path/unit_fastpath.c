/* unit_fastpath.c -- unit tests of chapter 08's fast path (fastpath.c): the
 * run hooks that hold the clients read in a turn and run them at its end,
 * and the look-ahead, fastpath_look_ahead(), which reads the keys of the
 * commands waiting in a batch of those clients with resp.c's parser and
 * prefetches them.
 *
 * The look-ahead is called on an array of detached clients whose query
 * buffers hold the bytes of a turn, and returns how many clients it covered.
 * What it prefetches cannot be seen, but it takes at most 16 keys per call,
 * so the count tells how many keys it found: a client under test followed
 * by 16 clients of one GET each is covered with 16 - k of them when it gave
 * k keys (keys_taken()).
 *
 * A look-ahead that prefetches the wrong bucket is only slow; one that reads
 * past the buffer, counts a request that has not fully arrived, or changes
 * the query buffer or the client's parser breaks the server. Every call
 * below checks that nothing changed (look_checked()), and odd inputs are
 * kept as "must not crash and must not change anything" cases. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buffer.h"
#include "command.h"
#include "dict.h"
#include "event_loop.h"
#include "fastpath.h"
#include "net.h"
#include "resp.h"
#include "../helpers/dict_keys.h" /* dict_add(), which only tests use */
#include "../helpers/resp_trace.h"

/* Keys one look-ahead takes at most. */
#define BUDGET PREFETCH_MAX_KEYS

/* Clients a rig can hold. */
#define RIG_MAX_CLIENTS 64

/* One request with one key, for the clients that follow the one under test. */
#define GET_K "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"

/* ============================ Messages ============================ */

/* What the running check is about ("cut at 17", say): the helpers below
 * put it in front of their messages, which say what was expected and what
 * came back. */
static char context[200];

static void set_context(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(context, sizeof(context), fmt, ap);
    va_end(ap);
}

static void expect_int(long long got, long long want, const char *what) {
    if (got != want) ck_abort_msg("%s: %s: expected %lld, got %lld", context, what, want, got);
}

static void expect_ptr(const void *got, const void *want, const char *what) {
    if (got != want) ck_abort_msg("%s: %s: expected %p, got %p", context, what, want, got);
}

/* bytes as a C literal, at most 60 of them, into out (256 bytes). */
static const char *printable(const char *bytes, size_t len, char *out) {
    size_t o = 0;
    for (size_t i = 0; i < len && i < 60; i++) {
        unsigned char ch = (unsigned char)bytes[i];
        if (ch == '\r')
            o += (size_t)snprintf(out + o, 256 - o, "\\r");
        else if (ch == '\n')
            o += (size_t)snprintf(out + o, 256 - o, "\\n");
        else if (ch >= 32 && ch < 127 && ch != '\\')
            out[o++] = (char)ch;
        else
            o += (size_t)snprintf(out + o, 256 - o, "\\x%02x", ch);
    }
    if (len > 60) o += (size_t)snprintf(out + o, 256 - o, "...");
    out[o] = '\0';
    return out;
}

/* ============================ The rig ============================ */

/* A server with no socket and no command table (nothing runs here), a
 * keyspace to prefetch from, the fast path installed, and the clients of a
 * turn in the order they were read: batch[first..n), as run_held_clients()
 * hands them to the look-ahead. */
typedef struct rig {
    event_loop *loop;
    net_server s;
    dict *keys;
    fastpath f;
    client *batch[RIG_MAX_CLIENTS];
    int first, n;
} rig;

static void rig_init(rig *r) {
    r->loop = el_create();
    ck_assert_ptr_nonnull(r->loop);
    net_init(&r->s, r->loop, NULL);
    r->keys = dict_create(0);
    /* The keys the requests name, and more, so that the prefetches follow
     * real buckets and entries (valgrind checks those reads). */
    static const char *const names[] = {"", "a", "bb", "ccc", "dd", "k", "z", "b\r\nb"};
    int existed;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        dict_add_or_find(r->keys, names[i], strlen(names[i]), &existed)->val = NULL;
    char key[32];
    for (int i = 0; i < 100; i++)
        dict_add_or_find(r->keys, key, (size_t)snprintf(key, sizeof(key), "key:%d", i), &existed)
            ->val = NULL;
    fastpath_install(&r->f, &r->s, r->keys);
    r->first = r->n = 0;
}

/* Free a client of the batch and take it out: the first one, as if it had
 * run, or the last one. */
static void free_client(rig *r, client *c) {
    if (r->n > r->first && r->batch[r->first] == c)
        r->first++;
    else if (r->n > r->first && r->batch[r->n - 1] == c)
        r->n--;
    else
        ck_abort_msg("%s: client to free: expected the first or the last of the batch", context);
    net_detached_client_free(c);
}

static void rig_free(rig *r) {
    while (r->n > r->first)
        free_client(r, r->batch[r->first]);
    while (r->s.clients)
        net_detached_client_free(r->s.clients);
    fastpath_free(&r->f);
    dict_free(r->keys, NULL);
    el_free(r->loop);
}

static client *add_to_batch(rig *r, client *c) {
    if (r->n == RIG_MAX_CLIENTS) ck_abort_msg("%s: more than %d clients", context, RIG_MAX_CLIENTS);
    r->batch[r->n++] = c;
    return c;
}

/* A new client holding bytes[0..len) as just read, last in the batch. */
static client *queue_client(rig *r, const char *bytes, size_t len) {
    client *c = net_detached_client_create(&r->s);
    buf_append(&c->query, bytes, len);
    return add_to_batch(r, c);
}

static client *queue_str(rig *r, const char *bytes) {
    return queue_client(r, bytes, strlen(bytes));
}

/* A new client whose query buffer is one block exactly full, bytes[0..len)
 * at its very end, so that a read one byte past them is a read outside the
 * block, which valgrind and ASan report. The bytes before them are blank
 * lines, which the parser has already passed over (as if their replies were
 * pending), so the look-ahead starts at the first of bytes. */
static client *queue_at_end_of_block(rig *r, const char *bytes, size_t len) {
    size_t cap = 64; /* buffer.c's smallest block; it doubles from there */
    while (cap < len)
        cap *= 2;
    client *c = net_detached_client_create(&r->s);
    buf_reserve(&c->query, cap);
    expect_int((long long)c->query.cap, (long long)cap, "query buffer's block size");
    size_t filler = cap - len;
    for (size_t i = 0; i < filler; i++)
        buf_append(&c->query, "\n", 1);
    buf_append(&c->query, bytes, len);
    expect_int((long long)c->query.len, (long long)c->query.cap, "bytes in the full block");
    for (size_t i = 0; i < filler; i++)
        expect_int(parser_next(&c->parser, c->query.data, c->query.len), PARSE_NOTHING,
                   "parser_next() on a blank line");
    expect_int((long long)c->parser.pos, (long long)filler, "parser position after the blanks");
    return add_to_batch(r, c);
}

/* ============================ Nothing changes ============================ */

/* What the look-ahead must leave as it was: each client's query buffer
 * (block, length, bytes) and parser; the batch; the memory in use (but for
 * the look-ahead's own parser, which may grow its arrays); the keyspace. */
typedef struct saved_client {
    const client *c;
    const char *data;
    size_t len, cap;
    char *bytes;
    request_parser parser;
    size_t *span_off, *span_len; /* the parser's argc spans */
    arg *argv;                   /* its finished command, when not in a request */
} saved_client;

typedef struct snapshot {
    saved_client *clients;
    size_t clients_n;
    client *batch[RIG_MAX_CLIENTS];
    int first, n;
    int ahead_cap; /* entries allocated by the look-ahead's parser */
    size_t memory, keys, buckets;
    int rehashing;
} snapshot;

static void *copy_of(const void *src, size_t n) {
    void *dst = malloc(n ? n : 1);
    if (n) memcpy(dst, src, n);
    return dst;
}

static void snap_take(const rig *r, snapshot *snap) {
    snap->clients_n = r->s.client_count;
    snap->clients = calloc(snap->clients_n ? snap->clients_n : 1, sizeof(saved_client));
    size_t i = 0;
    for (const client *c = r->s.clients; c != NULL; c = c->next, i++) {
        saved_client *sc = &snap->clients[i];
        const request_parser *p = &c->parser;
        sc->c = c;
        sc->data = c->query.data;
        sc->len = c->query.len;
        sc->cap = c->query.cap;
        sc->bytes = copy_of(c->query.data, c->query.len);
        memcpy(&sc->parser, p, sizeof(*p));
        sc->span_off = copy_of(p->span_off, (size_t)p->argc * sizeof(size_t));
        sc->span_len = copy_of(p->span_len, (size_t)p->argc * sizeof(size_t));
        sc->argv = p->in_multibulk ? NULL : copy_of(p->argv, (size_t)p->argc * sizeof(arg));
    }
    expect_int((long long)i, (long long)snap->clients_n, "clients on the server's list");
    memcpy(snap->batch, r->batch, sizeof(r->batch));
    snap->first = r->first;
    snap->n = r->n;
    snap->ahead_cap = r->f.ahead.cap;
    snap->keys = dict_size(r->keys);
    snap->buckets = dict_bucket_count(r->keys);
    snap->rehashing = dict_is_rehashing(r->keys);
    snap->memory = mem_used();
}

static void check_client(const saved_client *sc, size_t i) {
    const client *c = sc->c;
    const request_parser *p = &c->parser, *was = &sc->parser;
    char what[96], want[256], got[256];
#define WHAT(field) (snprintf(what, sizeof(what), "client %zu's %s", i, field), what)
    expect_ptr(c->query.data, sc->data, WHAT("query buffer block"));
    expect_int((long long)c->query.len, (long long)sc->len, WHAT("query buffer length"));
    expect_int((long long)c->query.cap, (long long)sc->cap, WHAT("query buffer capacity"));
    if (sc->len && memcmp(c->query.data, sc->bytes, sc->len) != 0)
        ck_abort_msg("%s: client %zu's query bytes: expected \"%s\", got \"%s\"", context, i,
                     printable(sc->bytes, sc->len, want), printable(c->query.data, sc->len, got));
    expect_int((long long)p->pos, (long long)was->pos, WHAT("parser pos"));
    expect_int((long long)p->start, (long long)was->start, WHAT("parser start"));
    expect_int(p->in_multibulk, was->in_multibulk, WHAT("parser in_multibulk"));
    expect_int(p->expected, was->expected, WHAT("parser expected"));
    expect_int(p->bulk_len, was->bulk_len, WHAT("parser bulk_len"));
    expect_int(p->argc, was->argc, WHAT("parser argc"));
    expect_int(p->cap, was->cap, WHAT("parser cap"));
    expect_ptr(p->span_off, was->span_off, WHAT("parser span_off"));
    expect_ptr(p->span_len, was->span_len, WHAT("parser span_len"));
    expect_ptr(p->argv, was->argv, WHAT("parser argv"));
    for (int a = 0; a < p->argc; a++) {
        expect_int((long long)p->span_off[a], (long long)sc->span_off[a], WHAT("span offset"));
        expect_int((long long)p->span_len[a], (long long)sc->span_len[a], WHAT("span length"));
        if (sc->argv) {
            expect_ptr(p->argv[a].ptr, sc->argv[a].ptr, WHAT("argv pointer"));
            expect_int((long long)p->argv[a].len, (long long)sc->argv[a].len, WHAT("argv length"));
        }
    }
    if (strcmp(p->error, was->error) != 0)
        ck_abort_msg("%s: client %zu's parser error: expected \"%s\", got \"%s\"", context, i,
                     was->error, p->error);
    /* And whatever the fields above missed. */
    if (memcmp(p, was, sizeof(*p)) != 0)
        ck_abort_msg("%s: client %zu's parser: expected the same bytes, got different ones",
                     context, i);
#undef WHAT
}

static void snap_check_and_free(const rig *r, snapshot *snap) {
    if (r->f.ahead.cap == snap->ahead_cap)
        expect_int((long long)mem_used(), (long long)snap->memory, "bytes allocated (mem_used)");
    else if (mem_used() <= snap->memory)
        ck_abort_msg("%s: bytes allocated: expected more than %zu (the look-ahead's parser grew), "
                     "got %zu",
                     context, snap->memory, mem_used());
    expect_int((long long)r->s.client_count, (long long)snap->clients_n, "clients on the server");
    size_t i = 0;
    for (const client *c = r->s.clients; c != NULL; c = c->next, i++) {
        expect_ptr(c, snap->clients[i].c, "client on the server's list");
        check_client(&snap->clients[i], i);
    }
    expect_int(r->first, snap->first, "first client of the batch");
    expect_int(r->n, snap->n, "clients in the batch");
    for (int b = r->first; b < r->n; b++)
        expect_ptr(r->batch[b], snap->batch[b], "client of the batch");
    expect_int((long long)dict_size(r->keys), (long long)snap->keys, "keys in the keyspace");
    expect_int((long long)dict_bucket_count(r->keys), (long long)snap->buckets, "keyspace buckets");
    expect_int(dict_is_rehashing(r->keys), snap->rehashing, "keyspace rehashing");
    for (i = 0; i < snap->clients_n; i++) {
        free(snap->clients[i].bytes);
        free(snap->clients[i].span_off);
        free(snap->clients[i].span_len);
        free(snap->clients[i].argv);
    }
    free(snap->clients);
}

/* Clients in the batch not run yet. */
static int queued(const rig *r) {
    return r->n - r->first;
}

/* Call the look-ahead on the batch as run_held_clients() does, check that
 * it changed nothing and covered between 1 and all of the clients, and
 * return how many it covered. */
static int look_checked(rig *r) {
    int in_queue = queued(r);
    snapshot snap;
    snap_take(r, &snap);
    int covered = fastpath_look_ahead(&r->f, r->batch + r->first, in_queue);
    snap_check_and_free(r, &snap);
    if (covered < 1 || covered > in_queue)
        ck_abort_msg("%s: clients covered: expected 1 to %d, got %d", context, in_queue, covered);
    return covered;
}

/* How many keys the look-ahead takes from c, which must be alone in the
 * batch: add BUDGET clients of one key each after it, look, and take them
 * away again. The look-ahead covers c, then one more client per key left in
 * its budget. */
static int keys_taken(rig *r, client *c) {
    expect_int(queued(r), 1, "clients in the batch with the client under test");
    expect_ptr(r->batch[r->first], c, "client under test alone in the batch");
    client *followers[BUDGET];
    for (int i = 0; i < BUDGET; i++)
        followers[i] = queue_str(r, GET_K);
    int covered = look_checked(r);
    for (int i = BUDGET - 1; i >= 0; i--)
        free_client(r, followers[i]);
    expect_int(queued(r), 1, "client under test alone again after the followers");
    return BUDGET + 1 - covered;
}

/* keys_taken() from a new rig with one client holding `bytes`. */
static int keys_in(const char *bytes, size_t len) {
    rig r;
    rig_init(&r);
    int keys = keys_taken(&r, queue_client(&r, bytes, len));
    rig_free(&r);
    return keys;
}

#define KEYS_IN(lit) keys_in(lit, sizeof(lit) - 1)

/* ============================ Streams ============================ */

#define STREAM_MAX_REQUESTS 8

/* A stream of requests and, for each, where it ends. */
typedef struct stream {
    char bytes[512];                     /* the requests, back to back */
    size_t len;                          /* bytes used */
    int requests;                        /* requests appended */
    size_t key_off[STREAM_MAX_REQUESTS]; /* offset of argv[1] in multibulk requests */
    size_t end[STREAM_MAX_REQUESTS];     /* offset just past the request */
} stream;

/* Append raw bytes as one request (an inline one, say). */
static void stream_add_raw(stream *s, const char *raw) {
    size_t n = strlen(raw);
    ck_assert_uint_lt(s->len + n, sizeof(s->bytes));
    memcpy(s->bytes + s->len, raw, n);
    s->len += n;
    s->end[s->requests++] = s->len;
}

/* Append a multibulk request of the NULL-terminated argv (no NUL inside an
 * argument). */
static void stream_add(stream *s, const char *const *argv) {
    int argc = 0;
    while (argv[argc] != NULL)
        argc++;
    size_t room = sizeof(s->bytes) - s->len;
    s->len += (size_t)snprintf(s->bytes + s->len, room, "*%d\r\n", argc);
    for (int i = 0; i < argc; i++) {
        size_t n = strlen(argv[i]);
        room = sizeof(s->bytes) - s->len;
        s->len += (size_t)snprintf(s->bytes + s->len, room, "$%zu\r\n", n);
        if (i == 1) s->key_off[s->requests] = s->len;
        room = sizeof(s->bytes) - s->len;
        s->len += (size_t)snprintf(s->bytes + s->len, room, "%s\r\n", argv[i]);
    }
    ck_assert_uint_lt(s->len, sizeof(s->bytes) - 1); /* nothing was truncated */
    s->end[s->requests++] = s->len;
}

/* GET a, SET bb v, GET ccc: the pipeline most of the tests use. */
static void three_request_stream(stream *s) {
    memset(s, 0, sizeof(*s));
    stream_add(s, (const char *[]){"GET", "a", NULL});
    stream_add(s, (const char *[]){"SET", "bb", "v", NULL});
    stream_add(s, (const char *[]){"GET", "ccc", NULL});
}

/* ============================ Tests: the run hooks ============================ */

/* The hook tests' one command: GET appends "<client id>:<key> " to `ran`,
 * so the order in which the clients' commands ran can be read back. */
static char ran[256];

static void record_get(client *c, int argc, arg *argv) {
    (void)argc;
    size_t at = strlen(ran);
    snprintf(ran + at, sizeof(ran) - at, "%llu:%.*s ", (unsigned long long)c->id, (int)argv[1].len,
             argv[1].ptr);
    buf_append(&c->out, "+OK\r\n", 5);
}

static const command hook_commands[] = {
    {"get", 2, record_get, 1, 1, 1},
    {NULL, 0, NULL, 0, 0, 0},
};

/* A server with hook_commands and the fast path, and three clients read
 * (the read hook called) in the order 2, 1, 3, client 2 with two pipelined
 * commands and the start of a third. */
typedef struct turn {
    event_loop *loop;
    net_server s;
    dict *keys;
    fastpath f;
    client *c[3];
} turn;

static void turn_read(turn *t) {
    ran[0] = '\0';
    t->loop = el_create();
    net_init(&t->s, t->loop, hook_commands);
    t->keys = dict_create(0);
    fastpath_install(&t->f, &t->s, t->keys);
    static const char *const bytes[] = {
        "*2\r\n$3\r\nGET\r\n$1\r\na\r\n",
        "*2\r\n$3\r\nGET\r\n$1\r\nb\r\n*2\r\n$3\r\nGET\r\n$2\r\nbb\r\n*2\r\n$3\r\nGE",
        "*2\r\n$3\r\nGET\r\n$1\r\nc\r\n",
    };
    for (int i = 0; i < 3; i++) {
        t->c[i] = net_detached_client_create(&t->s);
        buf_append(&t->c[i]->query, bytes[i], strlen(bytes[i]));
    }
    static const int read_order[] = {1, 0, 2};
    for (int i = 0; i < 3; i++)
        t->s.run_hooks->read(t->c[read_order[i]], t->s.run_hooks_ctx);
}

static void turn_free(turn *t) {
    while (t->s.clients)
        net_detached_client_free(t->s.clients);
    fastpath_free(&t->f);
    dict_free(t->keys, NULL);
    el_free(t->loop);
}

static void expect_ran(const char *want, const char *when) {
    if (strcmp(ran, want) != 0)
        ck_abort_msg("%s: commands run: expected \"%s\", got \"%s\"", when, want, ran);
}

/* The read hook runs nothing; the end of the turn runs every held client,
 * in the order they were read, each client's commands in the order sent,
 * and up to its incomplete one; then nothing is held any more. */
START_TEST(held_clients_run_at_the_end_of_the_turn) {
    turn t;
    turn_read(&t);
    expect_ran("", "after the reads");
    ck_assert_int_eq(t.f.held_count, 3);
    t.s.run_hooks->end_of_turn(&t.s, t.s.run_hooks_ctx);
    expect_ran("2:b 2:bb 1:a 3:c ", "at the end of the turn");
    ck_assert_int_eq(t.f.held_count, 0);
    ck_assert_uint_eq(t.c[1]->out.len, 10); /* two +OK */
    ck_assert_uint_eq(t.s.total_commands, 4);
    /* The next turn: nothing was read, nothing runs again. */
    t.s.run_hooks->end_of_turn(&t.s, t.s.run_hooks_ctx);
    expect_ran("2:b 2:bb 1:a 3:c ", "at the end of a turn with no read");
    turn_free(&t);
}
END_TEST

/* A held client freed before the end of the turn (its write failed, say)
 * is forgotten: the others run, and nothing touches the freed one
 * (valgrind and ASan would say so). */
START_TEST(a_closed_client_is_skipped) {
    turn t;
    turn_read(&t);
    net_detached_client_free(t.c[0]);
    ck_assert_int_eq(t.f.held_count, 3);
    t.s.run_hooks->end_of_turn(&t.s, t.s.run_hooks_ctx);
    expect_ran("2:b 2:bb 3:c ", "at the end of the turn, client 1 closed");
    turn_free(&t);
}
END_TEST

/* ============================ Tests: the budget ============================ */

/* net_init() leaves the server without run hooks; fastpath_install()
 * gives it the fast path's. A client with nothing to run yet (an empty
 * buffer) is still covered: the look-ahead covers at least the first
 * client. A NULL client (one closed since it was read) is covered too, and
 * gives nothing. */
START_TEST(install_sets_the_hooks) {
    set_context("install");
    event_loop *loop = el_create();
    net_server s;
    net_init(&s, loop, NULL);
    ck_assert_ptr_null(s.run_hooks);
    dict *keys = dict_create(0);
    fastpath f;
    fastpath_install(&f, &s, keys);
    ck_assert_ptr_nonnull(s.run_hooks);
    ck_assert_ptr_eq(s.run_hooks_ctx, &f);
    fastpath_free(&f);
    dict_free(keys, NULL);
    el_free(loop);

    rig r;
    rig_init(&r);
    queue_client(&r, "", 0);
    ck_assert_int_eq(look_checked(&r), 1);
    rig_free(&r);

    set_context("a closed client");
    rig_init(&r);
    client *none[1] = {NULL};
    ck_assert_int_eq(fastpath_look_ahead(&r.f, none, 1), 1);
    rig_free(&r);
}
END_TEST

/* 16 keys per look-ahead: a client with 20 pipelined commands is all the
 * look-ahead covers, however many clients follow; three clients with one
 * command each are all covered; 16 keys fill the budget exactly, and the
 * 16th key may come from a second client. */
START_TEST(sixteen_keys_per_look_ahead) {
    rig r;
    char one[64], twenty[20 * 40], sixteen[16 * 40], fifteen[15 * 40];
    twenty[0] = sixteen[0] = fifteen[0] = '\0';
    for (int i = 0; i < 20; i++) {
        snprintf(one, sizeof(one), "*2\r\n$3\r\nGET\r\n$5\r\nkey:%d\r\n", i % 10);
        strcat(twenty, one);
        if (i < 16) strcat(sixteen, one);
        if (i < 15) strcat(fifteen, one);
    }

    set_context("one client with 20 GETs, then two with one");
    rig_init(&r);
    queue_str(&r, twenty);
    queue_str(&r, GET_K);
    queue_str(&r, GET_K);
    ck_assert_int_eq(look_checked(&r), 1);
    rig_free(&r);

    set_context("three clients with one GET each");
    rig_init(&r);
    for (int i = 0; i < 3; i++)
        queue_str(&r, "*2\r\n$3\r\nGET\r\n$1\r\na\r\n");
    ck_assert_int_eq(look_checked(&r), 3);
    rig_free(&r);

    set_context("16 GETs, then one");
    rig_init(&r);
    queue_str(&r, sixteen);
    queue_str(&r, GET_K);
    ck_assert_int_eq(look_checked(&r), 1);
    rig_free(&r);

    set_context("15 GETs, then two clients of one");
    rig_init(&r);
    queue_str(&r, fifteen);
    queue_str(&r, GET_K);
    queue_str(&r, GET_K);
    ck_assert_int_eq(look_checked(&r), 2);
    rig_free(&r);

    set_context("20 clients with one GET each");
    rig_init(&r);
    for (int i = 0; i < 20; i++)
        queue_str(&r, GET_K);
    ck_assert_int_eq(look_checked(&r), 16);
    rig_free(&r);

    /* Clients that name no key take nothing from the budget. */
    set_context("5 clients of PING, then 20 of one GET");
    rig_init(&r);
    for (int i = 0; i < 5; i++)
        queue_str(&r, "*1\r\n$4\r\nPING\r\n");
    for (int i = 0; i < 20; i++)
        queue_str(&r, GET_K);
    ck_assert_int_eq(look_checked(&r), 5 + 16);
    rig_free(&r);
}
END_TEST

/* The look-ahead is called again for the clients it did not cover, as
 * run_held_clients() does once the covered ones have run: each call covers
 * what its budget allows, and together they cover the whole batch. */
START_TEST(the_rest_of_the_batch_is_covered_by_later_calls) {
    set_context("40 clients with one GET each, in batches");
    rig r;
    rig_init(&r);
    for (int i = 0; i < 40; i++)
        queue_str(&r, GET_K);
    int batches[3], calls = 0;
    while (queued(&r) > 0 && calls < 3) {
        int covered = look_checked(&r);
        batches[calls++] = covered;
        for (int i = 0; i < covered; i++)
            free_client(&r, r.batch[r.first]); /* as if it had run */
    }
    ck_assert_int_eq(calls, 3);
    ck_assert_int_eq(batches[0], 16);
    ck_assert_int_eq(batches[1], 16);
    ck_assert_int_eq(batches[2], 8);
    ck_assert_int_eq(queued(&r), 0);
    rig_free(&r);
}
END_TEST

/* ============================ Tests: which keys ============================ */

/* One key per complete request, argv[1], whatever the request's length. */
START_TEST(one_key_per_request_of_a_pipeline) {
    stream s;
    three_request_stream(&s);
    set_context("GET a, SET bb v, GET ccc");
    ck_assert_int_eq(keys_in(s.bytes, s.len), 3);
    set_context("MSET a 1 bb 2 ccc 3");
    ck_assert_int_eq(KEYS_IN("*7\r\n$4\r\nMSET\r\n$1\r\na\r\n$1\r\n1\r\n$2\r\nbb\r\n$1\r\n2\r\n"
                             "$3\r\nccc\r\n$1\r\n3\r\n"),
                     1);
    set_context("empty buffer");
    ck_assert_int_eq(keys_in("", 0), 0);
}
END_TEST

/* The look-ahead starts at the parser's position: the requests
 * parser_next() has already handed out are not counted again. */
START_TEST(starts_at_the_parser_position) {
    stream s;
    three_request_stream(&s);
    for (int done = 0; done <= 3; done++) {
        set_context("after %d of 3 requests parsed", done);
        rig r;
        rig_init(&r);
        client *c = queue_client(&r, s.bytes, s.len);
        for (int i = 0; i < done; i++) {
            expect_int(parser_next(&c->parser, c->query.data, c->query.len), PARSE_COMMAND,
                       "parser_next()");
            expect_int((long long)c->parser.pos, (long long)s.end[i], "parser position");
        }
        expect_int(keys_taken(&r, c), 3 - done, "keys taken");
        rig_free(&r);
    }
}
END_TEST

/* The stream cut at every byte, which cuts the last request at every point
 * of it (and the earlier ones too): the requests wholly before the cut are
 * counted, none after it. Each cut ends its block exactly (see
 * queue_at_end_of_block()), so a read past the end shows up under valgrind
 * and ASan. */
START_TEST(stops_at_an_incomplete_request) {
    stream s;
    three_request_stream(&s);
    for (size_t cut = 0; cut <= s.len; cut++) {
        set_context("stream cut at %zu of %zu bytes", cut, s.len);
        int complete = 0;
        while (complete < s.requests && s.end[complete] <= cut)
            complete++;
        rig r;
        rig_init(&r);
        client *c = queue_at_end_of_block(&r, s.bytes, cut);
        expect_int(keys_taken(&r, c), complete, "keys taken (complete requests before the cut)");
        rig_free(&r);
    }
}
END_TEST

/* A request of one argument has no key: it is passed over, and the
 * look-ahead goes on to the requests after it. */
START_TEST(skips_requests_of_one_argument) {
    stream s = {0};
    stream_add(&s, (const char *[]){"PING", NULL});
    stream_add(&s, (const char *[]){"GET", "a", NULL});
    stream_add(&s, (const char *[]){"PING", NULL});
    stream_add(&s, (const char *[]){"GET", "ccc", NULL});
    set_context("PING, GET a, PING, GET ccc");
    ck_assert_int_eq(keys_in(s.bytes, s.len), 2);
}
END_TEST

/* The look-ahead reads multibulk requests only, and stops at an inline one
 * (what it found before still counts), leaving the rest of that client to
 * the parser. It then goes on to the next client, which keys_taken()'s
 * followers show: they are covered. */
START_TEST(stops_at_an_inline_request) {
    stream s = {0};
    stream_add(&s, (const char *[]){"GET", "a", NULL});
    stream_add_raw(&s, "PING\r\n");
    stream_add(&s, (const char *[]){"GET", "ccc", NULL});
    set_context("GET a, inline PING, GET ccc");
    ck_assert_int_eq(keys_in(s.bytes, s.len), 1);

    memset(&s, 0, sizeof(s));
    stream_add_raw(&s, "GET a\r\n");
    stream_add(&s, (const char *[]){"GET", "ccc", NULL});
    set_context("inline GET a, GET ccc");
    ck_assert_int_eq(keys_in(s.bytes, s.len), 0);

    /* Twenty GETs behind an inline request take none of the budget. */
    char bytes[16 + 20 * 32] = "GET a\r\n";
    for (int i = 0; i < 20; i++)
        strcat(bytes, GET_K);
    set_context("inline GET a, then 20 GETs");
    ck_assert_int_eq(keys_in(bytes, strlen(bytes)), 0);
}
END_TEST

/* An empty argument is an argument like any other ("" is a valid key): the
 * look-ahead reads past it, as a key or as a value. */
START_TEST(reads_past_empty_arguments) {
    stream s = {0};
    stream_add(&s, (const char *[]){"GET", "a", NULL});
    stream_add(&s, (const char *[]){"SET", "bb", "", NULL});
    stream_add(&s, (const char *[]){"GET", "ccc", NULL});
    set_context("GET a, SET bb \"\", GET ccc");
    ck_assert_int_eq(keys_in(s.bytes, s.len), 3);

    memset(&s, 0, sizeof(s));
    stream_add(&s, (const char *[]){"SET", "", "v", NULL});
    stream_add(&s, (const char *[]){"GET", "", NULL});
    set_context("SET \"\" v, GET \"\"");
    ck_assert_int_eq(keys_in(s.bytes, s.len), 2);
}
END_TEST

/* While the parser is in the middle of a request (in_multibulk), its
 * position is inside it, where no request starts: the look-ahead must take
 * nothing from that client rather than misread the rest. The first
 * request's argument is itself the bytes of a request, so a look-ahead that
 * started at the parser's position while the parser waits for that payload
 * would find a "GET z" that nobody sent. Tried with the first request cut at
 * every byte (the parser having read the cut, then the rest arriving); a
 * cut before the *N line is complete leaves the parser at the start, and
 * then the whole stream is read. */
START_TEST(takes_nothing_from_a_half_parsed_request) {
    stream s = {0};
    stream_add(&s, (const char *[]){"ECHO", "*2\r\n$3\r\nGET\r\n$1\r\nz", NULL});
    stream_add(&s, (const char *[]){"SET", "bb", "v", NULL});
    stream_add(&s, (const char *[]){"GET", "ccc", NULL});
    int half_parsed = 0, waiting_on_lookalike = 0;
    for (size_t cut = 1; cut < s.end[0]; cut++) {
        set_context("first request cut at %zu of %zu bytes", cut, s.end[0]);
        rig r;
        rig_init(&r);
        client *c = queue_client(&r, s.bytes, cut);
        expect_int(parser_next(&c->parser, c->query.data, c->query.len), PARSE_INCOMPLETE,
                   "parser_next() on the cut");
        buf_append(&c->query, s.bytes + cut, s.len - cut);
        half_parsed += c->parser.in_multibulk;
        waiting_on_lookalike += c->parser.in_multibulk && c->parser.pos == s.key_off[0];
        expect_int(keys_taken(&r, c), c->parser.in_multibulk ? 0 : 3, "keys taken");

        /* Once the request is finished, the look-ahead sees the two after it. */
        expect_int(parser_next(&c->parser, c->query.data, c->query.len), PARSE_COMMAND,
                   "parser_next() on the whole stream");
        expect_int(c->parser.in_multibulk, 0, "in_multibulk after the command");
        expect_int(keys_taken(&r, c), 2, "keys taken after the first request");
        rig_free(&r);
    }
    /* The cases the test is about did occur. */
    ck_assert_int_gt(half_parsed, 0);
    ck_assert_int_gt(waiting_on_lookalike, 0);
}
END_TEST

/* ============================ Tests: nothing changes ============================ */

/* A client's stream parsed as the server parses it, delivered in two reads
 * split at every byte, with the look-ahead called before every
 * parser_next(): each call changes nothing (look_checked()), and the
 * commands that come out are the stream's. The stream mixes multibulk,
 * inline, *0, empty arguments, a key holding CR LF and an incomplete tail;
 * inline words are decoded in place, in the buffer, between the calls. */
START_TEST(changes_nothing_while_the_client_is_parsed) {
    static const char input[] = "*2\r\n$3\r\nGET\r\n$1\r\na\r\nPING\r\n*3\r\n$3\r\nSET\r\n"
                                "$4\r\nb\r\nb\r\n$1\r\nv\r\n*0\r\n\r\n*1\r\n$4\r\nPING\r\n"
                                "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$1\r\nv\r\n"
                                "*2\r\n$3\r\nGET\r\n$3\r\nccc\r\n*2\r\n$3\r\nGET\r\n$2\r\ndd";
    const size_t len = sizeof(input) - 1;
    for (size_t split = 0; split <= len; split++) {
        set_context("stream split at %zu of %zu bytes", split, len);
        rig r;
        rig_init(&r);
        client *c = queue_client(&r, "", 0);
        char trace[1024] = "";
        size_t pieces[2] = {split, len - split}, fed = 0;
        for (int piece = 0; piece < 2; piece++) {
            buf_append(&c->query, input + fed, pieces[piece]);
            fed += pieces[piece];
            for (;;) {
                expect_int(look_checked(&r), 1, "clients covered");
                parse_status st = parser_next(&c->parser, c->query.data, c->query.len);
                if (st == PARSE_INCOMPLETE) break;
                if (st == PARSE_NOTHING) continue;
                expect_int(st, PARSE_COMMAND, "parser_next()");
                trace_command(&c->parser, trace, sizeof(trace));
            }
            size_t used = parser_consumed(&c->parser);
            buf_consume(&c->query, used);
            parser_shift(&c->parser, used);
        }
        if (strcmp(trace, "[GET|a][PING][SET|b\\x0d\\x0ab|v][PING][SET||v][GET|ccc]") != 0)
            ck_abort_msg("%s: commands: expected %s, got %s", context,
                         "[GET|a][PING][SET|b\\x0d\\x0ab|v][PING][SET||v][GET|ccc]", trace);
        rig_free(&r);
    }
}
END_TEST

#define S(lit) lit, sizeof(lit) - 1

/* Odd inputs: the protocol errors, length lines written unusually, of 19
 * digits and more, numbers past what a long long or a bulk may hold, CRs
 * without their LF, and the like. The look-ahead may take keys from them or
 * not (a wrong guess is only a wasted prefetch), but must not crash, read
 * past the buffer or change anything. */
static const struct {
    const char *bytes;
    size_t len;
} odd_inputs[] = {
    {S("*3000000000\r\n")},
    {S("*-0\r\n")},
    {S("*01\r\n")},
    {S("*-1\r\n")},
    {S("*0\r\n")},
    {S("*\r\n")},
    {S("*+2\r\n$3\r\nGET\r\n$1\r\na\r\n")},
    {S("* 2\r\n$3\r\nGET\r\n$1\r\na\r\n")},
    {S("*2 \r\n$3\r\nGET\r\n$1\r\na\r\n")},
    {S("*1\r\nx\r\n")},
    {S("*2\r\n$3\r\nGET\r\n*2\r\n")},
    {S("*1\r\n$-10\r\n")},
    {S("*1\r\n$-1\r\n")},
    {S("*2\r\n$3\r\nGET\r\n$-0\r\n\r\n")},
    {S("*2\r\n$3\r\nGET\r\n$01\r\na\r\n")},
    {S("*1\r\n$536870913\r\n")},
    {S("*2\r\n$3\r\nGET\r\n$536870912\r\nabc")},
    {S("*1\r\n$blabla\r\n")},
    {S("*9999999999999999999\r\n")},
    {S("*1000000000000000000\r\n$3\r\nGET\r\n$1\r\na\r\n")},
    {S("*9223372036854775807\r\n$3\r\nGET\r\n$1\r\na\r\n")},
    {S("*9223372036854775808\r\n$3\r\nGET\r\n$1\r\na\r\n")},
    {S("*-9223372036854775808\r\n")},
    {S("*2\r\n$3\r\nGET\r\n$9223372036854775807\r\nabc\r\n")},
    {S("*2\r\n$3\r\nGET\r\n$9223372036854775808X")},
    {S("*2\r\n$3\r\nGET\r\n$18446744073709551615\r\nabc\r\n")},
    {S("*2\r\n$3\r\nGET\r\n$18446744073709551617\r\nabc\r\n")},
    {S("*2\r\n$3\r\nGET\r\n$000000000000000000001\r\na\r\n")},
    {S("*2\r\n$3\r\nGET\r\n$1234567890123456789012345678901234567890\r\na\r\n")},
    {S("*2\r\n$3\r\nGET\r\n$1\r\nab\r\n*2\r\n$3\r\nGET\r\n$1\r\na\r\n")},
    {S("*2\r\n$3\r\nGET\r\n$1\r\na")},
    {S("*2\r\n$3\r\nGET\r\n$1\r\na\r")},
    {S("*2\r\n$3\r\nGET\r\n$1\r")},
    {S("*2\r")},
    {S("*2\rX$3\rXGET\r\n$1\r\na\r\n")},
    {S("*2\n$3\nGET\n$1\na\n")},
    {S("*2\r\n$3\r\nGET\r\n$1\r\n\0\r\n")},
    {S("*2\r\n$3\r\nGET\r\n$4\r\nb\r\nb\r\n")},
    {S("*3\r\n$3\r\nSET\r\n$0\r\n\r\n$1\r\nv\r\n")},
    {S("PING\r\nECHO \"abc\r\n")},
    {S("ECHO 'a'b\r\n")},
    {S("ECHO \"\\x41\\n\\t\\q\" 'it\\'s' ab\"c d\" \"\"\r\n")},
    {S("ECHO a\0b\r\nPING\r\n")},
    {S("\r\n")},
    {S("\0*2\r\n$3\r\nGET\r\n$1\r\na\r\n")},
    {S("*2\r\n$4\r\nECHO\r\n$6\r\n\r\n\0a\r\n\r\n")},
    {S("*2147483647\r\n$4\r\nPING\r\n")},
    {S("*2\r\n$3\r\nGET\r\n$1\r\na\r\n*1\r\n$4\r\nPING\r\n*0\r\n*-1\r\n*2\r\n$3\r\nGET\r\n$1\r\n"
       "z\r\n")},
};

/* One odd input cut at `cut`, at the end of its block, tried alone, between
 * two ordinary clients, and with the followers of keys_taken(). */
static void try_odd_input(const char *bytes, size_t cut, size_t input) {
    char shown[256];
    set_context("odd input %zu \"%s\" cut at %zu", input, printable(bytes, cut, shown), cut);
    rig r;
    rig_init(&r);
    client *c = queue_at_end_of_block(&r, bytes, cut);
    int keys = keys_taken(&r, c);
    if (keys < 0 || keys > BUDGET)
        ck_abort_msg("%s: keys taken: expected 0 to %d, got %d", context, BUDGET, keys);
    rig_free(&r);

    /* Between two clients of one key: all three are covered (no odd input
     * holds the 15 requests that would use up the budget). */
    rig_init(&r);
    queue_str(&r, GET_K);
    queue_at_end_of_block(&r, bytes, cut);
    queue_str(&r, GET_K);
    expect_int(look_checked(&r), 3, "clients covered, the odd one in the middle");
    rig_free(&r);
}

START_TEST(odd_inputs_change_nothing) {
    for (size_t i = 0; i < sizeof(odd_inputs) / sizeof(odd_inputs[0]); i++)
        for (size_t cut = 0; cut <= odd_inputs[i].len; cut++)
            try_odd_input(odd_inputs[i].bytes, cut, i);
}
END_TEST

/* Lines longer than the parser allows (PROTO_INLINE_MAX_SIZE): a count and
 * a bulk length of 70,000 digits with no CR, and an inline line as long. */
START_TEST(overlong_lines_change_nothing) {
    size_t n = PROTO_INLINE_MAX_SIZE + 4464;
    char *big = malloc(n);
    big[0] = '*';
    memset(big + 1, '1', n - 1);
    try_odd_input(big, n, 1000);
    memcpy(big, "*1\r\n$", 5);
    try_odd_input(big, n, 1001);
    const char *get = "*2\r\n$3\r\nGET\r\n$1\r\na\r\n"; /* one GET, then the digits */
    memcpy(big, get, strlen(get));
    try_odd_input(big, n, 1002);
    memset(big, 'a', n);
    try_odd_input(big, n, 1003);
    free(big);
}
END_TEST

int main(void) {
    Suite *s = suite_create("08-fast-path: run hooks and look-ahead");
    TCase *hooks = tcase_create("run hooks");
    tcase_add_test(hooks, held_clients_run_at_the_end_of_the_turn);
    tcase_add_test(hooks, a_closed_client_is_skipped);
    suite_add_tcase(s, hooks);

    TCase *budget = tcase_create("budget");
    tcase_add_test(budget, install_sets_the_hooks);
    tcase_add_test(budget, sixteen_keys_per_look_ahead);
    tcase_add_test(budget, the_rest_of_the_batch_is_covered_by_later_calls);
    suite_add_tcase(s, budget);

    TCase *which = tcase_create("which keys");
    tcase_add_test(which, one_key_per_request_of_a_pipeline);
    tcase_add_test(which, starts_at_the_parser_position);
    tcase_add_test(which, stops_at_an_incomplete_request);
    tcase_add_test(which, skips_requests_of_one_argument);
    tcase_add_test(which, stops_at_an_inline_request);
    tcase_add_test(which, reads_past_empty_arguments);
    tcase_add_test(which, takes_nothing_from_a_half_parsed_request);
    suite_add_tcase(s, which);

    TCase *nothing = tcase_create("changes nothing");
    tcase_set_timeout(nothing, 60);
    tcase_add_test(nothing, changes_nothing_while_the_client_is_parsed);
    tcase_add_test(nothing, odd_inputs_change_nothing);
    tcase_add_test(nothing, overlong_lines_change_nothing);
    suite_add_tcase(s, nothing);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

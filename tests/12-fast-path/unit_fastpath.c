/* unit_fastpath.c -- unit tests of chapter 12's fast path (fastpath.c): the
 * run hooks that hold the clients read in a turn and run them at its end;
 * the look-ahead, fastpath_look_ahead(), which parses the requests waiting
 * in a batch of those clients with each client's own parser, into the
 * fast path's batch, and prefetches their keys; and fastpath_run(), which
 * runs the commands of the batch and then whatever each client has left.
 *
 * The look-ahead's parse is the real one: the commands it takes are not
 * parsed again. A look-ahead that takes a request that has not fully
 * arrived, reads past the buffer, or leaves a parser where the client's run
 * cannot go on, breaks the server. So the tests check two things: what a
 * look-ahead took (the commands in f->batch, in order, with their
 * arguments, and how many clients it covered), and that a client's stream,
 * read in pieces and run through the fast path, gets the very replies, and
 * leaves the very bytes, that step 07's path gives it, net_run_client()
 * after each read (same_as_plain()). Odd inputs are kept as "must not crash
 * and must answer as before" cases. */
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
#include "reply.h"
#include "resp.h"
#include "server.h"

/* The dispatcher tells replication about each command (chapter 09), which
 * keeps its state in main.c's global and names main.c's random source: both
 * are here, and the replication they hold is a master with no replica. */
struct server server;
void random_bytes(uint8_t *out, size_t n) {
    memset(out, 0, n);
}

/* Commands one look-ahead takes at most. */
#define BUDGET PREFETCH_MAX_KEYS

/* Clients a rig can hold. */
#define RIG_MAX_CLIENTS 64

/* A descriptor number no event loop watches, for clients without a socket:
 * net.c's protocol-error and pause paths stop watching the client's
 * descriptor, and el_unwatch() returns at once for this one. */
#define NO_FD 1000000

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

/* ============================ The commands ============================ */

/* Every command of the tests writes itself into the client's output, as
 * "[NAME|arg|arg]" (printable bytes as they are, the others as \xhh), so
 * that the output says which commands ran, with which arguments, in which
 * order. QUIT then closes the client, as the server's does; BIG also writes
 * more than CLIENT_OUTPUT_PAUSE_BYTES, which pauses the client. A name not
 * in the table gets Redis's unknown-command error, as in the server. */
static void trace_command(client *c, int argc, arg *argv) {
    char shown[256];
    buf_append(&c->out, "[", 1);
    for (int i = 0; i < argc; i++) {
        if (i) buf_append(&c->out, "|", 1);
        printable(argv[i].ptr, argv[i].len, shown);
        buf_append(&c->out, shown, strlen(shown));
    }
    buf_append(&c->out, "]", 1);
}

static void quit_command(client *c, int argc, arg *argv) {
    trace_command(c, argc, argv);
    c->close_after_reply = 1;
}

static void big_command(client *c, int argc, arg *argv) {
    trace_command(c, argc, argv);
    size_t n = CLIENT_OUTPUT_PAUSE_BYTES + 1;
    buf_reserve(&c->out, n);
    memset(c->out.data + c->out.len, 'x', n);
    c->out.len += n;
}

static const command trace_commands[] = {
    {"get", 2, trace_command, 1, 1, 1},    {"set", -3, trace_command, 1, 1, 1},
    {"mset", -3, trace_command, 1, -1, 2}, {"ping", -1, trace_command, 0, 0, 0},
    {"echo", 2, trace_command, 0, 0, 0},   {"quit", -1, quit_command, 0, 0, 0},
    {"big", 1, big_command, 0, 0, 0},      {NULL, 0, NULL, 0, 0, 0},
};

/* ============================ The rig ============================ */

/* A server with the trace commands and the fast path, a keyspace to
 * prefetch from, and the clients of a turn in the order they were read:
 * batch[first..n), as run_held_clients() hands them to the look-ahead. */
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
    net_init(&r->s, r->loop, trace_commands);
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

static void rig_free(rig *r) {
    while (r->s.clients)
        net_detached_client_free(r->s.clients);
    fastpath_free(&r->f);
    dict_free(r->keys, NULL);
    el_free(r->loop);
}

static client *new_client(net_server *s) {
    client *c = net_detached_client_create(s);
    c->fd = NO_FD;
    return c;
}

static client *add_to_batch(rig *r, client *c) {
    if (r->n == RIG_MAX_CLIENTS) ck_abort_msg("%s: more than %d clients", context, RIG_MAX_CLIENTS);
    r->batch[r->n++] = c;
    return c;
}

/* A new client holding bytes[0..len) as just read, last in the batch. */
static client *queue_client(rig *r, const char *bytes, size_t len) {
    client *c = new_client(&r->s);
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
    client *c = new_client(&r->s);
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

/* Clients in the batch not run yet. */
static int queued(const rig *r) {
    return r->n - r->first;
}

/* Call the look-ahead on the batch as run_held_clients() does, check that
 * it covered between 1 and all of the clients and that every command it took
 * came from one of them, in order; return how many clients it covered. */
static int look(rig *r) {
    int in_queue = queued(r);
    int covered = fastpath_look_ahead(&r->f, r->batch + r->first, in_queue);
    if (covered < 1 || covered > in_queue)
        ck_abort_msg("%s: clients covered: expected 1 to %d, got %d", context, in_queue, covered);
    if (r->f.batch_count < 0 || r->f.batch_count > BUDGET)
        ck_abort_msg("%s: commands taken: expected 0 to %d, got %d", context, BUDGET,
                     r->f.batch_count);
    for (int i = 0; i < r->f.batch_count; i++) {
        const parsed_command *pc = &r->f.batch[i];
        if (pc->slot < 0 || pc->slot >= covered || (i > 0 && pc->slot < pc[-1].slot))
            ck_abort_msg("%s: command %d of the batch: expected a client from %d on, got %d",
                         context, i, i > 0 ? pc[-1].slot : 0, pc->slot);
        const client *c = r->batch[r->first + pc->slot];
        for (int a = 0; a < pc->argc; a++)
            if (pc->argv[a].ptr < c->query.data ||
                pc->argv[a].ptr + pc->argv[a].len > c->query.data + c->query.len)
                ck_abort_msg("%s: command %d, argument %d: expected in its client's query "
                             "buffer, got outside it",
                             context, i, a);
    }
    return covered;
}

/* Run the clients the last look() covered, and take them out of the batch. */
static void run_covered(rig *r, int covered) {
    fastpath_run(&r->f, r->batch + r->first, covered);
    expect_int(r->f.batch_count, 0, "commands left in the batch after the run");
    r->first += covered;
}

/* The commands the look-ahead took, as "[GET|a][SET|bb|v]", into out. */
static const char *batch_trace(const fastpath *f, char *out, size_t cap) {
    char shown[256];
    out[0] = '\0';
    for (int i = 0; i < f->batch_count; i++) {
        strncat(out, "[", cap - strlen(out) - 1);
        for (int a = 0; a < f->batch[i].argc; a++) {
            if (a) strncat(out, "|", cap - strlen(out) - 1);
            printable(f->batch[i].argv[a].ptr, f->batch[i].argv[a].len, shown);
            strncat(out, shown, cap - strlen(out) - 1);
        }
        strncat(out, "]", cap - strlen(out) - 1);
    }
    return out;
}

static void expect_batch(const fastpath *f, const char *want) {
    char got[2048];
    batch_trace(f, got, sizeof(got));
    if (strcmp(got, want) != 0)
        ck_abort_msg("%s: commands taken: expected \"%s\", got \"%s\"", context, want, got);
}

/* What the look-ahead takes from bytes, alone in a new rig, as
 * batch_trace() shows it; the client is then run, and must answer as step
 * 07's path does (same_as_plain() checks that separately). */
static const char *taken_from(const char *bytes, size_t len, char *out, size_t cap) {
    rig r;
    rig_init(&r);
    queue_client(&r, bytes, len);
    look(&r);
    batch_trace(&r.f, out, cap);
    run_covered(&r, 1);
    rig_free(&r);
    return out;
}

/* ============================ Same as the plain path ============================ */

/* One client's stream, read in pieces, twice: by a server without run hooks,
 * which runs the client after each read (step 07's path), and by one with
 * the fast path, whose hooks hold it and run it at the end of the turn.
 * After every read, both clients must have the same output, the same bytes
 * left in their query buffers, and be closing, or not, alike; their servers
 * must have counted the same commands. Once a client is closing or paused,
 * nothing more is read from it, as in the server. */
typedef struct pair {
    event_loop *loop;
    net_server plain, fast;
    dict *keys;
    fastpath f;
    client *p, *c;
} pair;

static void pair_init(pair *x) {
    x->loop = el_create();
    net_init(&x->plain, x->loop, trace_commands);
    net_init(&x->fast, x->loop, trace_commands);
    x->keys = dict_create(0);
    int existed;
    dict_add_or_find(x->keys, "a", 1, &existed)->val = NULL;
    fastpath_install(&x->f, &x->fast, x->keys);
    x->p = new_client(&x->plain);
    x->c = new_client(&x->fast);
}

static void pair_free(pair *x) {
    net_detached_client_free(x->p);
    net_detached_client_free(x->c);
    fastpath_free(&x->f);
    dict_free(x->keys, NULL);
    el_free(x->loop);
}

static void expect_bytes(const buffer *got, const buffer *want, const char *what) {
    char g[256], w[256];
    if (got->len != want->len || (got->len && memcmp(got->data, want->data, got->len) != 0))
        ck_abort_msg("%s: %s: expected \"%s\" (%zu bytes), got \"%s\" (%zu bytes)", context, what,
                     printable(want->data, want->len, w), want->len,
                     printable(got->data, got->len, g), got->len);
}

/* Read bytes[0..n) into both clients and run them. Returns 0 once the
 * clients are closing, or paused (the server reads no more from them). */
static int pair_read(pair *x, const char *bytes, size_t n) {
    buf_append(&x->p->query, bytes, n);
    net_run_client(x->p);
    buf_append(&x->c->query, bytes, n);
    x->fast.run_hooks->read(x->c, x->fast.run_hooks_ctx);
    x->fast.run_hooks->end_of_turn(&x->fast, x->fast.run_hooks_ctx);
    expect_bytes(&x->c->out, &x->p->out, "output");
    expect_bytes(&x->c->query, &x->p->query, "query buffer after the run");
    expect_int(x->c->close_after_reply, x->p->close_after_reply, "close_after_reply");
    expect_int(x->c->discard_input, x->p->discard_input, "discard_input");
    expect_int(x->c->reading_paused, x->p->reading_paused, "reading_paused");
    expect_int((long long)x->fast.total_commands, (long long)x->plain.total_commands,
               "commands executed");
    return !x->p->close_after_reply && !x->p->reading_paused;
}

/* The stream bytes[0..len) read in pieces cut at each of cuts[0..ncuts)
 * (increasing), then the rest. */
static void same_as_plain(const char *bytes, size_t len, const size_t *cuts, int ncuts) {
    pair x;
    pair_init(&x);
    size_t fed = 0;
    for (int i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : len;
        if (!pair_read(&x, bytes + fed, to - fed)) break;
        fed = to;
    }
    pair_free(&x);
}

/* The stream in two reads, split at every byte. */
static void same_as_plain_split_anywhere(const char *bytes, size_t len) {
    for (size_t split = 0; split <= len; split++) {
        set_context("stream of %zu bytes split at %zu", len, split);
        same_as_plain(bytes, len, &split, 1);
    }
}

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

/* A client closed after the look-ahead took its commands, and before they
 * ran (forget_client() leaves a hole in the held clients, which
 * fastpath_run() reads): its commands are dropped, the others run. */
START_TEST(a_client_closed_after_the_look_ahead_is_skipped) {
    turn t;
    turn_read(&t);
    fastpath *f = &t.f;
    int covered = fastpath_look_ahead(f, f->held, f->held_count);
    ck_assert_int_eq(covered, 3);
    ck_assert_int_eq(f->batch_count, 4); /* 2:b 2:bb 1:a 3:c, the incomplete GE not */
    net_detached_client_free(t.c[0]);
    ck_assert_ptr_null(f->held[1]);
    fastpath_run(f, f->held, covered);
    f->held_count = 0;
    expect_ran("2:b 2:bb 3:c ", "client 1 closed after the look-ahead");
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
    ck_assert_int_eq(look(&r), 1);
    ck_assert_int_eq(r.f.batch_count, 0);
    run_covered(&r, 1);
    rig_free(&r);

    set_context("a closed client");
    rig_init(&r);
    client *none[1] = {NULL};
    ck_assert_int_eq(fastpath_look_ahead(&r.f, none, 1), 1);
    ck_assert_int_eq(r.f.batch_count, 0);
    fastpath_run(&r.f, none, 1);
    rig_free(&r);
}
END_TEST

/* 16 commands per look-ahead: a client with 20 pipelined commands is all the
 * look-ahead covers, however many clients follow, and it still runs all 20
 * (the last 4 parsed by its run); three clients with one command each are all
 * covered; 16 commands fill the budget exactly, and the 16th may come from a
 * second client. Commands without a key count too, but prefetch nothing. */
START_TEST(sixteen_commands_per_look_ahead) {
    rig r;
    char one[64], twenty[20 * 40], sixteen[16 * 40], fifteen[15 * 40], want_out[20 * 16] = "";
    twenty[0] = sixteen[0] = fifteen[0] = '\0';
    for (int i = 0; i < 20; i++) {
        snprintf(one, sizeof(one), "*2\r\n$3\r\nGET\r\n$5\r\nkey:%d\r\n", i % 10);
        strcat(twenty, one);
        if (i < 16) strcat(sixteen, one);
        if (i < 15) strcat(fifteen, one);
        snprintf(one, sizeof(one), "[GET|key:%d]", i % 10);
        strcat(want_out, one);
    }

    set_context("one client with 20 GETs, then two with one");
    rig_init(&r);
    client *c = queue_str(&r, twenty);
    queue_str(&r, GET_K);
    queue_str(&r, GET_K);
    ck_assert_int_eq(look(&r), 1);
    ck_assert_int_eq(r.f.batch_count, 16);
    run_covered(&r, 1);
    expect_int((long long)c->out.len, (long long)strlen(want_out), "output length of the 20 GETs");
    if (memcmp(c->out.data, want_out, c->out.len) != 0)
        ck_abort_msg("%s: output: expected %s, got %.*s", context, want_out, (int)c->out.len,
                     c->out.data);
    expect_int((long long)c->query.len, 0, "bytes left");
    rig_free(&r);

    set_context("three clients with one GET each");
    rig_init(&r);
    for (int i = 0; i < 3; i++)
        queue_str(&r, "*2\r\n$3\r\nGET\r\n$1\r\na\r\n");
    ck_assert_int_eq(look(&r), 3);
    ck_assert_int_eq(r.f.batch_count, 3);
    run_covered(&r, 3);
    rig_free(&r);

    set_context("16 GETs, then one");
    rig_init(&r);
    queue_str(&r, sixteen);
    queue_str(&r, GET_K);
    ck_assert_int_eq(look(&r), 1);
    run_covered(&r, 1);
    rig_free(&r);

    set_context("15 GETs, then two clients of one");
    rig_init(&r);
    queue_str(&r, fifteen);
    queue_str(&r, GET_K);
    queue_str(&r, GET_K);
    ck_assert_int_eq(look(&r), 2);
    ck_assert_int_eq(r.f.batch_count, 16);
    run_covered(&r, 2);
    rig_free(&r);

    set_context("20 clients with one GET each");
    rig_init(&r);
    for (int i = 0; i < 20; i++)
        queue_str(&r, GET_K);
    ck_assert_int_eq(look(&r), 16);
    ck_assert_uint_eq(r.f.prefetched, 16);
    run_covered(&r, 16);
    rig_free(&r);

    set_context("5 clients of PING, then 20 of one GET");
    rig_init(&r);
    for (int i = 0; i < 5; i++)
        queue_str(&r, "*1\r\n$4\r\nPING\r\n");
    for (int i = 0; i < 20; i++)
        queue_str(&r, GET_K);
    ck_assert_int_eq(look(&r), 16);
    ck_assert_uint_eq(r.f.batches, 1);
    ck_assert_uint_eq(r.f.prefetched, 11);
    run_covered(&r, 16);
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
        int covered = look(&r);
        batches[calls++] = covered;
        run_covered(&r, covered);
    }
    ck_assert_int_eq(calls, 3);
    ck_assert_int_eq(batches[0], 16);
    ck_assert_int_eq(batches[1], 16);
    ck_assert_int_eq(batches[2], 8);
    ck_assert_int_eq(queued(&r), 0);
    for (int i = 0; i < 40; i++)
        expect_int((long long)r.batch[i]->out.len, 7, "output of one GET k ([GET|k])");
    ck_assert_uint_eq(r.s.total_commands, 40);
    rig_free(&r);
}
END_TEST

/* ============================ Tests: what is taken ============================ */

#define TAKEN(lit) taken_from(lit, sizeof(lit) - 1, got, sizeof(got))

static void expect_taken(const char *got, const char *want) {
    if (strcmp(got, want) != 0)
        ck_abort_msg("%s: commands taken: expected \"%s\", got \"%s\"", context, want, got);
}

/* Each complete request, whatever its length, with its arguments as the
 * parser hands them out, and the hash of argv[1], its key. */
START_TEST(every_complete_request_with_its_arguments) {
    char got[2048];
    stream s;
    three_request_stream(&s);
    set_context("GET a, SET bb v, GET ccc");
    expect_taken(taken_from(s.bytes, s.len, got, sizeof(got)), "[GET|a][SET|bb|v][GET|ccc]");
    set_context("MSET a 1 bb 2 ccc 3");
    expect_taken(TAKEN("*7\r\n$4\r\nMSET\r\n$1\r\na\r\n$1\r\n1\r\n$2\r\nbb\r\n$1\r\n2\r\n"
                       "$3\r\nccc\r\n$1\r\n3\r\n"),
                 "[MSET|a|1|bb|2|ccc|3]");
    set_context("empty buffer");
    expect_taken(taken_from("", 0, got, sizeof(got)), "");

    set_context("the keys' hashes");
    rig r;
    rig_init(&r);
    queue_client(&r, s.bytes, s.len);
    look(&r);
    ck_assert_int_eq(r.f.batch_count, 3);
    for (int i = 0; i < 3; i++) {
        const parsed_command *pc = &r.f.batch[i];
        ck_assert_uint_eq(pc->key_hash, dict_hash(pc->argv[1].ptr, pc->argv[1].len));
        expect_int((long long)pc->start, i ? (long long)s.end[i - 1] : 0, "request start");
    }
    ck_assert_uint_eq(r.f.prefetched, 3);
    run_covered(&r, 1);
    rig_free(&r);
}
END_TEST

/* The look-ahead starts at the parser's position: the requests
 * parser_next() has already handed out are not taken again. */
START_TEST(starts_at_the_parser_position) {
    static const char *const want[] = {"[GET|a][SET|bb|v][GET|ccc]", "[SET|bb|v][GET|ccc]",
                                       "[GET|ccc]", ""};
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
        look(&r);
        expect_batch(&r.f, want[done]);
        run_covered(&r, 1);
        rig_free(&r);
    }
}
END_TEST

/* The stream cut at every byte, which cuts the last request at every point
 * of it (and the earlier ones too): the requests wholly before the cut are
 * taken, none after it. Each cut ends its block exactly (see
 * queue_at_end_of_block()), so a read past the end shows up under valgrind
 * and ASan. Then the rest arrives: the client answers every request once. */
START_TEST(stops_at_an_incomplete_request) {
    static const char *const want[] = {"", "[GET|a]", "[GET|a][SET|bb|v]",
                                       "[GET|a][SET|bb|v][GET|ccc]"};
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
        size_t filler = c->parser.pos;
        look(&r);
        expect_batch(&r.f, want[complete]);
        run_covered(&r, 1);
        buf_append(&c->query, s.bytes + cut, s.len - cut);
        add_to_batch(&r, c);
        look(&r);
        run_covered(&r, 1);
        expect_int((long long)c->out.len, (long long)strlen(want[3]), "output length");
        if (memcmp(c->out.data, want[3], c->out.len) != 0)
            ck_abort_msg("%s: output: expected %s, got %.*s", context, want[3], (int)c->out.len,
                         c->out.data);
        expect_int((long long)c->query.len, 0, "bytes left");
        (void)filler;
        rig_free(&r);
    }
    same_as_plain_split_anywhere(s.bytes, s.len);
}
END_TEST

/* A request of one argument has no key: it is taken, and prefetches
 * nothing. */
START_TEST(requests_of_one_argument_prefetch_nothing) {
    stream s = {0};
    stream_add(&s, (const char *[]){"PING", NULL});
    stream_add(&s, (const char *[]){"GET", "a", NULL});
    stream_add(&s, (const char *[]){"PING", NULL});
    stream_add(&s, (const char *[]){"GET", "ccc", NULL});
    set_context("PING, GET a, PING, GET ccc");
    rig r;
    rig_init(&r);
    queue_client(&r, s.bytes, s.len);
    look(&r);
    expect_batch(&r.f, "[PING][GET|a][PING][GET|ccc]");
    ck_assert_uint_eq(r.f.prefetched, 2);
    run_covered(&r, 1);
    rig_free(&r);
}
END_TEST

/* The look-ahead parses multibulk requests only, and stops at an inline one
 * (what it took before still runs first), leaving the rest of that client
 * to its run: resp.c decodes an inline request in place, so only the run
 * may parse it. The followers in the batch are still covered. */
START_TEST(stops_at_an_inline_request) {
    char got[2048];
    stream s = {0};
    stream_add(&s, (const char *[]){"GET", "a", NULL});
    stream_add_raw(&s, "PING\r\n");
    stream_add(&s, (const char *[]){"GET", "ccc", NULL});
    set_context("GET a, inline PING, GET ccc");
    expect_taken(taken_from(s.bytes, s.len, got, sizeof(got)), "[GET|a]");
    same_as_plain_split_anywhere(s.bytes, s.len);

    memset(&s, 0, sizeof(s));
    stream_add_raw(&s, "GET a\r\n");
    stream_add(&s, (const char *[]){"GET", "ccc", NULL});
    set_context("inline GET a, GET ccc");
    expect_taken(taken_from(s.bytes, s.len, got, sizeof(got)), "");

    set_context("inline GET a, then a client of one GET");
    rig r;
    rig_init(&r);
    queue_str(&r, "GET a\r\n" GET_K);
    queue_str(&r, GET_K);
    ck_assert_int_eq(look(&r), 2);
    expect_batch(&r.f, "[GET|k]");
    run_covered(&r, 2);
    rig_free(&r);
}
END_TEST

/* An empty argument is an argument like any other ("" is a valid key): the
 * look-ahead reads past it, as a key or as a value. */
START_TEST(reads_past_empty_arguments) {
    char got[2048];
    stream s = {0};
    stream_add(&s, (const char *[]){"GET", "a", NULL});
    stream_add(&s, (const char *[]){"SET", "bb", "", NULL});
    stream_add(&s, (const char *[]){"GET", "ccc", NULL});
    set_context("GET a, SET bb \"\", GET ccc");
    expect_taken(taken_from(s.bytes, s.len, got, sizeof(got)), "[GET|a][SET|bb|][GET|ccc]");

    memset(&s, 0, sizeof(s));
    stream_add(&s, (const char *[]){"SET", "", "v", NULL});
    stream_add(&s, (const char *[]){"GET", "", NULL});
    set_context("SET \"\" v, GET \"\"");
    expect_taken(taken_from(s.bytes, s.len, got, sizeof(got)), "[SET||v][GET|]");
}
END_TEST

/* A request whose first part the client's parser read in an earlier turn
 * is finished by the look-ahead, with the same parser, from where it
 * stands: the arguments already read are in the parser, not in the bytes to
 * come. The first request's argument is itself the bytes of a request, so a
 * look-ahead that started over at the parser's position, inside it, would
 * find a "GET z" nobody sent. Tried with the first request cut at every
 * byte. */
START_TEST(finishes_a_half_parsed_request) {
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
        look(&r);
        expect_batch(&r.f, "[ECHO|*2\\r\\n$3\\r\\nGET\\r\\n$1\\r\\nz][SET|bb|v][GET|ccc]");
        run_covered(&r, 1);
        rig_free(&r);
    }
    /* The cases the test is about did occur. */
    ck_assert_int_gt(half_parsed, 0);
    ck_assert_int_gt(waiting_on_lookalike, 0);
    same_as_plain_split_anywhere(s.bytes, s.len);
}
END_TEST

/* A request with more arguments than the batch has room for
 * (BATCH_MAX_ARGS) is not taken, nor anything after it: the client's parser
 * is set back to its start, and the client's run parses it. */
START_TEST(a_request_too_long_for_the_batch_is_left_to_the_run) {
    static char bytes[40 + (BATCH_MAX_ARGS + 2) * 16];
    int n = sprintf(bytes, "%s*%d\r\n$4\r\nMSET\r\n", GET_K, BATCH_MAX_ARGS + 1);
    for (int i = 0; i < BATCH_MAX_ARGS / 2; i++)
        n += sprintf(bytes + n, "$1\r\nk\r\n$1\r\n%d\r\n", i % 10);
    n += sprintf(bytes + n, "%s", GET_K);
    set_context("GET k, MSET of %d arguments, GET k", BATCH_MAX_ARGS + 1);
    rig r;
    rig_init(&r);
    client *c = queue_client(&r, bytes, (size_t)n);
    look(&r);
    expect_batch(&r.f, "[GET|k]");
    expect_int((long long)c->parser.pos, (long long)strlen(GET_K), "parser set back to the MSET");
    expect_int(c->parser.in_multibulk, 0, "parser in a request");
    run_covered(&r, 1);
    expect_int(r.s.total_commands, 3, "commands run");
    rig_free(&r);
    same_as_plain(bytes, (size_t)n, NULL, 0);
}
END_TEST

/* A protocol error is left to the client's run too: the parser is set back
 * to the start of the request, where the run finds the same error (a
 * multibulk request's parse writes nothing), after the requests before it. */
START_TEST(a_protocol_error_is_left_to_the_run) {
    static const char bytes[] = GET_K "*1\r\nx\r\n" GET_K;
    set_context("GET k, then a bulk without its $");
    rig r;
    rig_init(&r);
    client *c = queue_client(&r, bytes, sizeof(bytes) - 1);
    look(&r);
    expect_batch(&r.f, "[GET|k]");
    expect_int((long long)c->parser.pos, (long long)strlen(GET_K), "parser set back");
    run_covered(&r, 1);
    expect_int(c->close_after_reply, 1, "closing after the error");
    rig_free(&r);
    same_as_plain_split_anywhere(bytes, sizeof(bytes) - 1);
}
END_TEST

/* ============================ Tests: the same replies ============================ */

/* A client's stream, delivered in two reads split at every byte, answered
 * as step 07's path answers it. The stream mixes multibulk, inline, *0,
 * empty arguments, a key holding CR LF, an unknown command and an
 * incomplete tail; inline words are decoded in place, in the buffer. */
START_TEST(two_reads_split_anywhere_get_the_same_replies) {
    static const char input[] = "*2\r\n$3\r\nGET\r\n$1\r\na\r\nPING\r\n*3\r\n$3\r\nSET\r\n"
                                "$4\r\nb\r\nb\r\n$1\r\nv\r\n*0\r\n\r\n*1\r\n$4\r\nPING\r\n"
                                "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$1\r\nv\r\n*1\r\n$4\r\nNOPE\r\n"
                                "ECHO \"x\\ty\"\r\n"
                                "*2\r\n$3\r\nGET\r\n$3\r\nccc\r\n*2\r\n$3\r\nGET\r\n$2\r\ndd";
    same_as_plain_split_anywhere(input, sizeof(input) - 1);
}
END_TEST

/* QUIT in the middle of a pipeline: the commands after it, which the
 * look-ahead has already parsed, do not run, and their bytes stay where
 * they were (the parser is set back to them). */
START_TEST(nothing_runs_after_quit) {
    static const char input[] = GET_K "*1\r\n$4\r\nQUIT\r\n" GET_K "*2\r\n$3\r\nGET\r\n$1\r\nz\r\n";
    set_context("GET k, QUIT, GET k, GET z in one read");
    rig r;
    rig_init(&r);
    client *c = queue_client(&r, input, sizeof(input) - 1);
    look(&r);
    expect_batch(&r.f, "[GET|k][QUIT][GET|k][GET|z]");
    run_covered(&r, 1);
    expect_int(r.s.total_commands, 2, "commands run");
    rig_free(&r);
    (void)c;
    same_as_plain_split_anywhere(input, sizeof(input) - 1);
}
END_TEST

/* A client whose unread replies pass CLIENT_OUTPUT_PAUSE_BYTES is paused:
 * the commands after the one that passed it wait in the query buffer, even
 * when the look-ahead had parsed them. */
START_TEST(nothing_runs_once_the_replies_pile_up) {
    static const char input[] = GET_K "*1\r\n$3\r\nBIG\r\n" GET_K "*2\r\n$3\r\nGET\r\n$1\r\nz\r\n";
    set_context("GET k, BIG, GET k, GET z in one read");
    same_as_plain(input, sizeof(input) - 1, NULL, 0);
    size_t cut = strlen(GET_K) + 5;
    set_context("GET k, BIG, GET k, GET z cut in BIG");
    same_as_plain(input, sizeof(input) - 1, &cut, 1);
}
END_TEST

/* ============================ Odd inputs ============================ */

#define S(lit) lit, sizeof(lit) - 1

/* Odd inputs: the protocol errors, length lines written unusually, of 19
 * digits and more, numbers past what a long long or a bulk may hold, CRs
 * without their LF, and the like. The look-ahead may take commands from them
 * or leave them to the run, but must not crash, read past the buffer, or
 * change what the client is answered. */
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

/* One odd input cut at `cut`: read in one piece and then the rest, and
 * answered as step 07's path answers it; and, cut there, between two
 * ordinary clients in one batch, which covers all three. */
static void try_odd_input(const char *bytes, size_t len, size_t cut, size_t input) {
    char shown[256];
    set_context("odd input %zu \"%s\" cut at %zu", input, printable(bytes, cut, shown), cut);
    same_as_plain(bytes, len, &cut, 1);
    rig r;
    rig_init(&r);
    queue_str(&r, GET_K);
    queue_at_end_of_block(&r, bytes, cut);
    queue_str(&r, GET_K);
    expect_int(look(&r), 3, "clients covered, the odd one in the middle");
    run_covered(&r, 3);
    rig_free(&r);
}

START_TEST(odd_inputs_get_the_same_replies) {
    for (size_t i = 0; i < sizeof(odd_inputs) / sizeof(odd_inputs[0]); i++)
        for (size_t cut = 0; cut <= odd_inputs[i].len; cut++)
            try_odd_input(odd_inputs[i].bytes, odd_inputs[i].len, cut, i);
}
END_TEST

/* Lines longer than the parser allows (PROTO_INLINE_MAX_SIZE): a count and
 * a bulk length of 70,000 digits with no CR, and an inline line as long. */
START_TEST(overlong_lines_get_the_same_replies) {
    size_t n = PROTO_INLINE_MAX_SIZE + 4464;
    char *big = malloc(n);
    big[0] = '*';
    memset(big + 1, '1', n - 1);
    try_odd_input(big, n, n, 1000);
    memcpy(big, "*1\r\n$", 5);
    try_odd_input(big, n, n, 1001);
    const char *get = "*2\r\n$3\r\nGET\r\n$1\r\na\r\n"; /* one GET, then the digits */
    memcpy(big, get, strlen(get));
    try_odd_input(big, n, n, 1002);
    memset(big, 'a', n);
    try_odd_input(big, n, n, 1003);
    free(big);
}
END_TEST

int main(void) {
    Suite *s = suite_create("12-fast-path: run hooks, look-ahead and run");
    TCase *hooks = tcase_create("run hooks");
    tcase_add_test(hooks, held_clients_run_at_the_end_of_the_turn);
    tcase_add_test(hooks, a_closed_client_is_skipped);
    tcase_add_test(hooks, a_client_closed_after_the_look_ahead_is_skipped);
    suite_add_tcase(s, hooks);

    TCase *budget = tcase_create("budget");
    tcase_add_test(budget, install_sets_the_hooks);
    tcase_add_test(budget, sixteen_commands_per_look_ahead);
    tcase_add_test(budget, the_rest_of_the_batch_is_covered_by_later_calls);
    suite_add_tcase(s, budget);

    TCase *taken = tcase_create("what is taken");
    tcase_set_timeout(taken, 60);
    tcase_add_test(taken, every_complete_request_with_its_arguments);
    tcase_add_test(taken, starts_at_the_parser_position);
    tcase_add_test(taken, stops_at_an_incomplete_request);
    tcase_add_test(taken, requests_of_one_argument_prefetch_nothing);
    tcase_add_test(taken, stops_at_an_inline_request);
    tcase_add_test(taken, reads_past_empty_arguments);
    tcase_add_test(taken, finishes_a_half_parsed_request);
    tcase_add_test(taken, a_request_too_long_for_the_batch_is_left_to_the_run);
    tcase_add_test(taken, a_protocol_error_is_left_to_the_run);
    suite_add_tcase(s, taken);

    TCase *same = tcase_create("the same replies");
    tcase_set_timeout(same, 120);
    tcase_add_test(same, two_reads_split_anywhere_get_the_same_replies);
    tcase_add_test(same, nothing_runs_after_quit);
    tcase_add_test(same, nothing_runs_once_the_replies_pile_up);
    tcase_add_test(same, odd_inputs_get_the_same_replies);
    tcase_add_test(same, overlong_lines_get_the_same_replies);
    suite_add_tcase(s, same);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

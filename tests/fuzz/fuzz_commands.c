/* fuzz_commands.c -- libFuzzer target for the newest step's whole command
 * path: bytes in, replies out, in-process.
 *
 * Each input is what one client sends on one connection. It goes through the
 * same steps as in the running server (common/net.c's read_handler and
 * process_query_buffer): appended to the client's query buffer in reads,
 * parsed with parser_next(), executed with command_execute() against the
 * step's real command table, the parser's consumed bytes dropped; in step
 * 12, its look-ahead reads the bytes first, as before a client runs. From
 * step 09, the replication commands are left out (is_link_command()). The
 * keyspace is kept from one input to the next, as a server's is from one
 * connection to the next, and time is the fuzzer's: the clock is frozen
 * (common/clock.h) and each input says how far it moves. Between reads, and
 * between inputs, the step's active expiry runs as its event loop would run
 * it (step 06: expire_turn(), as wheel_expirer_before_sleep() runs it).
 *
 * It fails (abort, or a sanitizer report) on any memory error, leak of a
 * client's memory, undefined behaviour, or when:
 *   - the replies are not well-formed RESP2/RESP3, or there is not exactly
 *     one reply per executed command (plus one for a protocol error);
 *   - after a complete expiry pass, a key whose time has passed is still
 *     held, a key with a TTL is not in the timing wheel, or the wheel holds
 *     a different number of keys than have a TTL (steps with a wheel);
 *   - the allocator's byte count (INFO used_memory) goes wrong.
 *
 * ==== Why main.c is #included ====
 *
 * The command table, and the commands PING, ECHO, QUIT, INFO and DEBUG, are
 * static in the step's main.c. This file includes main.c (with its main()
 * renamed), so the fuzzer runs exactly the table and the commands the server
 * runs: a copy of the table would drift silently as soon as a step adds a
 * command (step 07 adds DIGEST and SET's options), and the fuzzer would go on
 * passing against a table nobody serves. The step's other files (keyspace.c,
 * expire.c, timewheel.c, ...) and common/ are linked as usual. main.c's own
 * `struct server server;` is the one used; it is set up here as main() does:
 * clock, hash seed (fixed, so a crash replays), keyspace_init(),
 * wheel_expirer_init(), net_init() with this table. No event loop, no socket.
 *
 * ==== Input format ====
 *
 *   byte 0   how far the clock moves before this input: time_steps[b % 16]
 *            (ms; one entry moves the wall clock backwards)
 *   byte 1   bits 0-2: ms the clock moves after each command (0,0,0,1,1,2,5,50)
 *            bit 3:    run the expiry pass after each command, not per read
 *            bits 4-5: read size: everything, 3, 16 or 256 bytes at a time
 *            bit 6:    a second client does the work (so CLIENT SETNAME etc.
 *                      of two clients coexist)
 *   rest     the bytes the client sends
 *
 * A crash depends on the keyspace that earlier inputs left, so a saved crash
 * input may not reproduce alone. FUZZ_FRESH_KEYSPACE=1 in the environment
 * empties the keyspace before every input (tests/fuzz/run.sh does so when it
 * replays regressions); the fuzzer's -runs=N over the whole corpus replays a
 * sequence.
 *
 * Build and run: tests/fuzz/run.sh fuzz_commands SECONDS (it passes
 * -DSTEP_MAIN_C="steps/NN-name/main.c" for the newest step). */
#ifndef STEP_MAIN_C
#define STEP_MAIN_C "main.c"
#endif

#define main step_server_main
#include STEP_MAIN_C
#undef main

/* The walk over every key that check_keyspace() makes: the tests' own, which
 * compiles the step's dict.c in here (so run.sh does not link it again). */
#include "tests/helpers/dict_inspect.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#define START_WALL_MS    1700000000000LL /* 2023-11-14, any fixed time will do */
#define START_MONO_US    1000000000LL
#define MAX_KEYS         5000        /* flush beyond this: memory stays small */
#define IDLE_BUFFER_KEEP (32 * 1024) /* as in common/net.c */

static const int64_t time_steps[16] = {0,   0,   1,   1,    2,    5,     10,      50,
                                       100, 500, 999, 1000, 1001, 60000, 3600000, -1000};
static const int64_t per_command_ms[8] = {0, 0, 0, 1, 1, 2, 5, 50};
static const size_t read_sizes[4] = {0 /* all */, 3, 16, 256};

static int64_t max_wall_ms; /* latest wall time so far: the clock may go back */
static int fresh_keyspace;  /* FUZZ_FRESH_KEYSPACE=1 */

/* ==== Set-up, as the step's main() does it ==== */

#ifdef SNAPSHOT_H
/* The directory the snapshot commands write in, removed at exit. */
static const char *snapshot_dir;

static void remove_snapshot_dir(void) {
    unlink(server.snap.dbfilename);
    if (chdir("/") == 0) rmdir(snapshot_dir);
}
#endif

static void server_setup(void) {
    clock_freeze(START_WALL_MS, START_MONO_US);
    max_wall_ms = START_WALL_MS;
    uint8_t seed[16] = "fuzz-fixed-seed";
    dict_set_hash_seed(seed);
    server.bind = "127.0.0.1";
    server.port = 6379;
    server.start_ms = clock_now_ms();
    keyspace_init(&server.db, server.start_ms);
    wheel_expirer_init(&server.expirer);
    server.loop = NULL; /* no event loop: nothing on the command path uses it */
#ifdef SNAPSHOT_H
    /* From step 08, SHUTDOWN stops the loop (a loop that never runs, here),
     * and SAVE, BGSAVE and DEBUG RELOAD write files: into a directory of
     * the fuzzer's own, in memory where there is /dev/shm (fsync() is free
     * there), with no save points. */
    server.loop = el_create();
    snapshot_init(&server.snap, &server.db);
    server.snap.npoints = 0;
    static char dir[] = "/dev/shm/fuzz-commands-XXXXXX", tmpdir[] = "/tmp/fuzz-commands-XXXXXX";
    snapshot_dir = mkdtemp(dir) ? dir : mkdtemp(tmpdir);
    if (snapshot_dir == NULL || chdir(snapshot_dir) != 0) abort();
    atexit(remove_snapshot_dir);
#endif
    net_init(&server.net, NULL, command_table);
#ifdef REPLICATION_H
    /* From step 09, every write reaches the replication state, as in
     * main(): a master with no replicas, whose stream costs nothing. */
    replication_init(&server.repl, &server.snap, &server.net);
#endif
#ifdef FAST_PATH_H /* step 12: the look-ahead reads each read's bytes first */
    fastpath_install(&server.fast, &server.net, server.db.keys);
#endif
    const char *fresh = getenv("FUZZ_FRESH_KEYSPACE");
    fresh_keyspace = fresh && strcmp(fresh, "1") == 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    server_setup();
    return 0;
}

/* ==== Time and active expiry ==== */

static void move_clock(int64_t ms) {
    clock_advance_ms(ms);
    if (clock_now_ms() > max_wall_ms) max_wall_ms = clock_now_ms();
}

/* One turn of the event loop's active expiry, as the step's hook before
 * sleeping runs it; 1 if it used its whole budget (more keys may be due). */
static size_t expiry_turn(void) {
#ifdef EXPIRE_BUDGET_KEYS /* steps 06 and 07: the timing wheel */
    return server.expirer.enabled && expire_turn(&server.expirer, &server.db, 100) == 0;
#else /* steps 04 and 05 need their own call here; step 04 has only lazy expiry */
    return 0;
#endif
}

/* Turns until one does not use its whole budget: all due keys are gone. */
static void expiry_drain(void) {
    int turns = 0;
    while (expiry_turn())
        CHECK(++turns < 100000);
}

/* After a full drain: no expired key is held, and the wheel holds exactly
 * the keys that have a TTL. When the wall clock has gone backwards and not
 * caught up, keys due by the wheel's time wait for it (timewheel.h), and
 * nothing is late by the clock that moved back, so the first check is made
 * only when the clock is at its latest time. */
static void check_keyspace(void) {
#ifdef EXPIRE_BUDGET_KEYS
    int64_t now = clock_now_ms();
    size_t with_ttl = 0;
    dict_iter it;
    dict_iter_init(&it, server.db.keys);
    dict_entry *de;
    while ((de = dict_iter_next(&it)) != NULL) {
        tw_node *t = key_timer(de); /* NULL for a key without a TTL (the fast path) */
        CHECK(de->val != NULL);
        if (t != NULL && t->expire_ms != 0) {
            with_ttl++;
            CHECK(tw_is_scheduled(t));
            if (server.expirer.enabled && now >= max_wall_ms) CHECK(!key_is_expired(de, now));
        } else {
            CHECK(t == NULL || !tw_is_scheduled(t));
        }
    }
    dict_iter_release(&it);
    CHECK(tw_count(&server.db.wheel) == with_ttl);
#endif
    CHECK(mem_used() < ((size_t)1 << 40)); /* an underflowed counter is huge */
}

/* ==== Checking the replies ====
 *
 * A strict RESP2/RESP3 reader: each value must be complete and well-formed.
 * Simple strings and errors are one line without CR or LF; numbers are
 * strict integers; bulk and verbatim strings have exactly their declared
 * length and end in CRLF; aggregates hold their declared count. */

static int read_line(const char *b, size_t len, size_t *pos, size_t *line_len) {
    const char *cr = memchr(b + *pos, '\r', len - *pos);
    if (cr == NULL) return 0;
    size_t at = (size_t)(cr - b);
    if (at + 1 >= len || b[at + 1] != '\n') return 0;
    if (memchr(b + *pos, '\n', at - *pos) != NULL) return 0; /* a bare LF inside */
    *line_len = at - *pos;
    return 1;
}

static int read_int_line(const char *b, size_t len, size_t *pos, long long *v) {
    size_t n;
    if (!read_line(b, len, pos, &n)) return 0;
    if (!string_to_ll(b + *pos, n, v)) return 0;
    *pos += n + 2;
    return 1;
}

static int read_value(const char *b, size_t len, size_t *pos, int depth, int *is_error) {
    if (*pos >= len || depth > 16) return 0;
    char type = b[(*pos)++];
    long long n;
    size_t line;
    switch (type) {
    case '+':
    case '-':
    case ',': /* RESP3 double */
    case '(': /* RESP3 big number */
        if (!read_line(b, len, pos, &line)) return 0;
        if (type == '-') {
            if (line == 0) return 0;
            if (is_error) *is_error = 1;
        }
        *pos += line + 2;
        return 1;
    case ':': return read_int_line(b, len, pos, &n);
    case '#': /* RESP3 boolean */
        if (!read_line(b, len, pos, &line) || line != 1 || (b[*pos] != 't' && b[*pos] != 'f'))
            return 0;
        *pos += 3;
        return 1;
    case '_': /* RESP3 null */
        if (*pos + 2 > len || b[*pos] != '\r' || b[*pos + 1] != '\n') return 0;
        *pos += 2;
        return 1;
    case '$':
    case '=': /* RESP3 verbatim: "txt:" then the text */
        if (!read_int_line(b, len, pos, &n)) return 0;
        if (type == '$' && n == -1) return 1;
        if (n < 0 || (size_t)n > len - *pos || len - *pos - (size_t)n < 2) return 0;
        if (type == '=' && (n < 4 || b[*pos + 3] != ':')) return 0;
        *pos += (size_t)n;
        if (b[*pos] != '\r' || b[*pos + 1] != '\n') return 0;
        *pos += 2;
        return 1;
    case '*':
    case '~': /* RESP3 set */
    case '>': /* RESP3 push */
    case '%': /* RESP3 map: n pairs */
        if (!read_int_line(b, len, pos, &n)) return 0;
        if (type == '*' && n == -1) return 1;
        if (n < 0 || n > 1000000) return 0;
        if (type == '%') n *= 2;
        for (long long i = 0; i < n; i++)
            if (!read_value(b, len, pos, depth + 1, NULL)) return 0;
        return 1;
    default: return 0;
    }
}

/* The output buffer holds exactly `expected` well-formed replies; then it is
 * "written" (dropped), as flush_output() would. */
static void check_and_flush_replies(client *c, long long expected) {
    size_t pos = 0;
    long long count = 0;
    while (pos < c->out.len) {
        int is_error = 0;
        if (!read_value(c->out.data, c->out.len, &pos, 0, &is_error)) {
            fprintf(stderr, "malformed reply at byte %zu of %zu: %.*s\n", pos, c->out.len,
                    (int)(c->out.len - pos < 200 ? c->out.len - pos : 200), c->out.data + pos);
            abort();
        }
        count++;
    }
    if (count != expected) {
        fprintf(stderr, "%lld replies for %lld commands\n", count, expected);
        abort();
    }
    c->out.len = c->out_sent = 0;
    buf_shrink_if_idle(&c->out, IDLE_BUFFER_KEEP);
}

/* ==== One read, as read_handler() + process_query_buffer() ==== */

typedef struct run_opts {
    int64_t step_ms; /* clock move after each command */
    int expire_each; /* expiry turn after each command */
} run_opts;

#ifdef REPLICATION_H
/* From step 09: the commands that make the client a replica (its output a
 * stream, not replies), that answer nothing (REPLCONF ACK), that wait for
 * replicas that never come (WAIT), or that make the server a replica (every
 * later write refused, for the rest of the run). The harness's one reply per
 * command cannot hold for them; tests/09-replication covers them. */
static int is_link_command(int argc, const arg *argv) {
    static const char *const names[] = {"sync", "psync",     "replconf",
                                        "wait", "replicaof", "slaveof"};
    if (argc == 0) return 0;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (argv[0].len == strlen(names[i]) && strncasecmp(argv[0].ptr, names[i], argv[0].len) == 0)
            return 1;
    return 0;
}
#endif

/* One command, and what the run options do after it. Returns the replies
 * it sends: one, or none for a SHUTDOWN that succeeded (from step 08), after
 * which the server would exit and the fuzzer carries on, and none for a
 * replication command from step 09, which is not run. */
static int execute(client *c, int argc, arg *argv, const run_opts *o) {
#ifdef REPLICATION_H
    if (is_link_command(argc, argv)) return 0;
#endif
    command_execute(c, argc, argv);
    int replies = 1;
#ifdef SNAPSHOT_H
    if (server.snap.exit_ready) server.snap.exit_ready = 0, replies = 0;
#endif
    c->server->total_commands++;
    if (o->step_ms) move_clock(o->step_ms);
    if (o->expire_each) expiry_turn();
    return replies;
}

#ifdef FAST_PATH_H
/* Step 12: the look-ahead parses the client's requests first, with its own
 * parser, and they run as fastpath_run() runs them, each with its key's hash
 * handed to the keyspace; the loop below then parses the rest. A command
 * that closes the client (QUIT) ends it, as there. Returns the replies. */
static long long run_looked_ahead(client *c, const run_opts *o) {
    client *batch[1] = {c};
    CHECK(fastpath_look_ahead(&server.fast, batch, 1) == 1);
    long long replies = 0;
    for (int i = 0; i < server.fast.batch_count && !c->close_after_reply; i++) {
        const parsed_command *pc = &server.fast.batch[i];
        CHECK(pc->slot == 0);
        if (pc->argc >= 2)
            dict_expect_key(server.db.keys, pc->argv[1].ptr, pc->argv[1].len, pc->key_hash);
        replies += execute(c, pc->argc, pc->argv, o);
        dict_expect_key(server.db.keys, NULL, 0, 0);
    }
    server.fast.batch_count = server.fast.args_used = 0;
    return replies;
}
#endif

/* Returns 0 once the client is done (QUIT or a protocol error). */
static int process_read(client *c, const uint8_t *bytes, size_t n, const run_opts *o) {
    buf_append(&c->query, bytes, n);
    long long replies = 0;
#ifdef FAST_PATH_H /* step 12 parses a client's requests ahead, and runs them first */
    replies += run_looked_ahead(c, o);
#endif
    request_parser *p = &c->parser;
    while (!c->close_after_reply) {
        parse_status st = parser_next(p, c->query.data, c->query.len);
        if (st == PARSE_INCOMPLETE) break;
        if (st == PARSE_NOTHING) continue;
        if (st == PARSE_ERROR) {
            reply_error(c, p->error);
            replies++;
            c->close_after_reply = 1;
            break;
        }
        replies += execute(c, p->argc, p->argv, o);
    }
    size_t used = parser_consumed(p);
    CHECK(used <= c->query.len);
    buf_consume(&c->query, used);
    parser_shift(p, used);
    buf_shrink_if_idle(&c->query, IDLE_BUFFER_KEEP);
    check_and_flush_replies(c, replies);
    expiry_turn(); /* the event loop's before_sleep */
    return !c->close_after_reply;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    if (fresh_keyspace || keyspace_size(&server.db) > MAX_KEYS) keyspace_clear(&server.db);
    move_clock(time_steps[data[0] % 16]);
    run_opts o = {per_command_ms[data[1] & 7], (data[1] & 8) != 0};
    size_t read_size = read_sizes[(data[1] >> 4) & 3];
    int second = (data[1] & 0x40) != 0;
    const uint8_t *body = data + 2;
    size_t len = size - 2;

    client *other = second ? net_detached_client_create(&server.net) : NULL;
    client *c = net_detached_client_create(&server.net);
    size_t off = 0;
    while (off < len) {
        size_t n = read_size == 0 || read_size > len - off ? len - off : read_size;
        int open = process_read(c, body + off, n, &o);
        off += n;
        if (!open) break;
    }
    net_detached_client_free(c);
    if (other) net_detached_client_free(other);

    expiry_drain();
    check_keyspace();
    return 0;
}

/* glue.c -- one step's real server, compiled to WebAssembly for the book's
 * pages (tests/book/play/build.sh builds it once per step; api.js wraps it as
 * RedisPlayground).
 *
 * Nothing here replaces the server's code. The step's main.c is #included,
 * with its main() renamed, as tests/fuzz/fuzz_commands.c does, so the page
 * runs the step's own command table and commands; the step's other files and
 * common/ are compiled unchanged. What the browser lacks is supplied here:
 *
 *   - A client without a socket (net_detached_client_create()), whose bytes
 *     go through common/net.c's net_run_client(): the real parser, pipelining,
 *     protocol errors and the real command table. Its replies are taken from
 *     its output buffer instead of being written to a socket.
 *   - The real event loop (common/event_loop.c, poll() back end), turned one
 *     turn at a time: el_run() with a before-sleep hook that asks it to stop
 *     after this turn, once it has run the step's own before-sleep hook. The
 *     step's timers run in it as main() installs them.
 *   - A clock the page controls: common/clock.c frozen from the start and
 *     moved forward by play_advance(), which turns the loop each time the
 *     loop would have woken up (its next timer, or its longest sleep). The
 *     page's "real time" is play_advance() by the time that really passed.
 *   - Read-only inspection (play_inspect()): JSON of the chapter's
 *     structures, read from the real structs. For that the files whose
 *     structs or helpers are private (dict.c, event_loop.c, active_expire.c,
 *     set_fsm.c) are #included here too, and build.sh does not compile them a
 *     second time: it leaves out every file this one names in an #include or
 *     __has_include line.
 *
 * Two observations need to see inside a call. They get it by renaming a call
 * while a file is included (the callee itself is the real one), or by
 * wrapping a hook:
 *   - chapter 05: active_expire.c's calls to expire_if_needed() go through
 *     note_sampled_key(), which records the cycle's sample; its clock reads
 *     count the real time the cycle has taken, so the time budget works as
 *     on a native server even though the page's clock stands still during a
 *     turn. The timer that active_expire_start() installs is swapped for
 *     observed_slow_timer(), which records the cycle that
 *     slow_cycle_timer() runs; one_turn_hook(), in the place of the
 *     before-sleep hook, records the fast one;
 *   - every step: the command table is copied at start-up with each command
 *     pointing to note_command(), which records the arguments and calls the
 *     step's own function (chapter 07 draws the last SET's path through the
 *     state machine's table from them).
 *
 * From chapter 08 on, the server keeps a snapshot file. The page has no
 * disk, but emscripten's in-memory filesystem (MEMFS) has open(), write(),
 * fsync(), rename() and chdir(): the step's own snapshot.c runs unchanged,
 * and its dump.rdb lives in the page's memory, in /, for as long as the page
 * (CONFIG GET dir answers "/"). What that gives and what it cannot:
 *   - SAVE, DEBUG RELOAD, LASTSAVE, INFO persistence and CONFIG GET dir,
 *     dbfilename and save work as on a native server: SAVE writes
 *     temp-<pid>.rdb, fsyncs it and renames it over dump.rdb; DEBUG RELOAD
 *     saves, empties the keyspace and loads the file back (the load at
 *     start-up runs too, and finds no file in a new page).
 *   - BGSAVE cannot: a browser has no processes, and emscripten's fork()
 *     fails with ENOSYS. The server does what it does when fork() fails:
 *     it answers "-ERR", logs "Can't save in background: fork: Function not
 *     implemented" and counts the BGSAVE failed (INFO's
 *     rdb_last_bgsave_status:err, until the next save succeeds). The save
 *     points' BGSAVEs fail the same way, retried every 5 s of the page's
 *     clock as Redis retries them. Nothing here fakes a child: chapter 08 is
 *     about what fork() gives, and the page says it has none.
 *   - SHUTDOWN saves as the save points or its option say and stops the
 *     loop, but there is no process to end: the page's server goes on
 *     serving, its keys still in memory (play.js says so in the console).
 * The server's log (what it prints) goes to api.js, which the page shows in
 * its console, so the reader sees why BGSAVE failed; play_inspect()'s
 * "snapshot" gives the file's size in MEMFS and the saves' figures.
 *
 * The features are found from the step's headers (KEYSPACE_H, EXPIRE_H,
 * ACTIVE_EXPIRE_H, TIMEWHEEL_H, SET_FSM_H, FAST_PATH_H, SNAPSHOT_H,
 * REPLICATION_H), so a new step that keeps them needs nothing here. */
#define _POSIX_C_SOURCE 200809L
#include <emscripten.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Private parts read by the inspection: the event loop's, and the dict's. */
#include "event_loop.c"
#if __has_include("dict.c")
#include "dict.c"
#endif

/* Chapter 05's cycle, observed from inside (see the top of the file). */
#if __has_include("active_expire.c")
#include "active_expire.h"
#include "expire.h"
static int note_sampled_key(keyspace *ks, dict_entry *de, int64_t now_ms);
static int64_t cycle_clock_us(void);
static int64_t observed_slow_timer(event_loop *el, int64_t id, void *data);
/* el_add_timer() is declared already (event_loop.c above includes its
 * header): the function-like macro below then rewrites only the calls in
 * active_expire.c, of which there is one, active_expire_start()'s. */
#include "event_loop.h"
#define expire_if_needed                  note_sampled_key
#define clock_mono_us                     cycle_clock_us
#define el_add_timer(el, ms, timer, data) el_add_timer(el, ms, observed_slow_timer, data)
#include "active_expire.c"
#undef expire_if_needed
#undef clock_mono_us
#undef el_add_timer
#endif

#if __has_include("set_fsm.c")
#include "set_fsm.c"
#endif

#define main step_server_main
#include STEP_MAIN_C
#undef main

/* ==== Limits of what is recorded and drawn ==== */

#define PLAY_MAX_ARGS        24   /* arguments of the last command kept */
#define PLAY_MAX_ARG_BYTES   128  /* bytes of each kept */
#define PLAY_KEY_BYTES       48   /* bytes of a key shown in a drawing */
#define PLAY_DRAWN_BUCKETS   64   /* a table larger than this is summarised, not drawn */
#define PLAY_LISTED_KEYS     200  /* keys listed with their TTL */
#define PLAY_CYCLES_KEPT     16   /* chapter 05: the latest cycles that sampled anything */
#define PLAY_SAMPLE_SHOWN    40   /* chapter 05: sampled keys kept per cycle */
#define PLAY_SLOT_KEYS       6    /* chapter 06: keys named per occupied slot */
#define PLAY_ZERO_WAIT_TURNS 1000 /* turns in a row with no time passing before time moves */

/* ==== The page's server ==== */

static struct {
    int started;
    event_loop *loop;
    client *console; /* the console's connection */
    command *table;  /* the step's table, each entry through note_command() */
    buffer reply;    /* bytes answered to the last play_send() */
    int closed;      /* the last play_send() closed the connection */
    int argc;        /* the last command's arguments, truncated */
    char argv[PLAY_MAX_ARGS][PLAY_MAX_ARG_BYTES];
    char last_set[PLAY_MAX_ARGS][PLAY_MAX_ARG_BYTES]; /* the last SET's, for chapter 07 */
    int last_set_argc;
    uint64_t turns; /* event-loop turns run */
    buffer json;    /* play_inspect()'s answer */
} play;

/* The step's command function for the command named in argv[0]. */
static command_proc *step_command(const arg *name) {
    for (const command *cmd = command_table; cmd->name; cmd++)
        if (arg_is(name, cmd->name) && name->len == strlen(cmd->name)) return cmd->proc;
    return NULL;
}

/* Every command runs through here: remember its arguments, run the step's. */
static void note_command(client *c, int argc, arg *argv) {
    play.argc = argc < PLAY_MAX_ARGS ? argc : PLAY_MAX_ARGS;
    for (int i = 0; i < play.argc; i++) {
        size_t n = argv[i].len < PLAY_MAX_ARG_BYTES - 1 ? argv[i].len : PLAY_MAX_ARG_BYTES - 1;
        memcpy(play.argv[i], argv[i].ptr, n);
        play.argv[i][n] = '\0';
    }
    if (arg_is(&argv[0], "set") && argv[0].len == 3) {
        memcpy(play.last_set, play.argv, sizeof(play.argv));
        play.last_set_argc = play.argc;
    }
    command_proc *proc = step_command(&argv[0]);
    proc(c, argc, argv);
}

/* A copy of the step's table whose entries all point to note_command(). */
static command *observed_table(void) {
    size_t n = 0;
    while (command_table[n].name)
        n++;
    command *t = mem_calloc(n + 1, sizeof(*t));
    for (size_t i = 0; i < n; i++) {
        t[i] = command_table[i];
        t[i].proc = note_command;
    }
    return t;
}

/* The console's connection: a client with no socket. Its fd is a real but
 * idle descriptor (/dev/null), because common/net.c stops watching a
 * client's fd after a protocol error, and the event loop indexes its table
 * by fd. The replies never reach it: play_send() takes them first. */
static client *console_connect(void) {
    client *c = net_detached_client_create(&server.net);
    c->fd = open("/dev/null", O_RDWR);
    return c;
}

static void console_close(client *c) {
    int fd = c->fd;
    net_detached_client_free(c);
    if (fd >= 0) close(fd);
}

#if defined(ACTIVE_EXPIRE_H)
static void observed_fast_cycle(event_loop *el);
#endif

/* Ask el_run() to stop after the turn it is starting: one turn of the real
 * loop, with the step's own hook first when it has one. */
static void one_turn_hook(event_loop *el, void *data) {
    (void)data;
#if defined(ACTIVE_EXPIRE_H)
    observed_fast_cycle(el);
#elif defined(EXPIRE_BUDGET_KEYS)
    wheel_expirer_before_sleep(el, &server.expirer);
#endif
    el_stop(el);
}

static void loop_turn(void) {
    el_run(play.loop);
    play.turns++;
}

/* The set-up of the step's main(), without the socket and the signals.
 * Returns 0, or -1 when the step's main() would have exited (chapter 08: a
 * snapshot it cannot load). */
static int server_setup(void) {
    char *argv[] = {"server", NULL};
    server.start_ms = clock_now_ms();
#if defined(ACTIVE_EXPIRE_H)
    int hz, effort;
    parse_flags(1, argv, &hz, &effort);
#else
    parse_flags(1, argv);
#endif
#if defined(KEYSPACE_H)
    seed_hash_function();
#if defined(TIMEWHEEL_H)
    keyspace_init(&server.db, server.start_ms);
#if defined(SNAPSHOT_H)
    /* Chapter 08: dump.rdb, in the page's MEMFS. main() calls it before
     * parse_flags(), whose --dir and the rest it would otherwise reset;
     * the page gives no flag, so here it may come after. */
    snapshot_init(&server.snap, &server.db);
#endif
#if defined(REPLICATION_H)
    replication_init(&server.repl, &server.snap, &server.net); /* chapter 09 */
#endif
    wheel_expirer_init(&server.expirer);
#else
    keyspace_init(&server.db);
#endif
#endif
#if defined(SNAPSHOT_H)
    char err[768];
    if (snapshot_open(&server.snap, err, sizeof(err)) == -1) {
        fprintf(stderr, "server: %s\n", err);
        return -1;
    }
#endif
#if defined(ACTIVE_EXPIRE_H)
    uint64_t sampler_seed;
    random_bytes((uint8_t *)&sampler_seed, sizeof(sampler_seed));
    active_expire_init(&server.expirer, effort, sampler_seed);
#endif
    server.loop = play.loop = el_create();
    play.table = observed_table();
    net_init(&server.net, server.loop, play.table);
#if defined(FAST_PATH_H)
    fastpath_install(&server.fast, &server.net, server.db.keys); /* chapter 12 */
#endif
#if defined(ACTIVE_EXPIRE_H)
    active_expire_start(&server.expirer, &server.db, server.loop, hz);
#elif defined(EXPIRE_BUDGET_KEYS)
    wheel_expirer_start(&server.expirer, &server.db, server.loop, 100);
#endif
#if defined(SNAPSHOT_H)
    snapshot_start(&server.snap, server.loop); /* the save points, checked by its cron */
#endif
#if defined(REPLICATION_H)
    /* Chapter 09: a master with no replica, its cron running. REPLICAOF
     * tries to connect out, which a page cannot: the link fails, the log
     * says so, and the cron tries again, as it would on a dead network. */
    replication_start(&server.repl, server.loop);
#endif
    el_set_before_sleep(server.loop, one_turn_hook, NULL); /* in the step's hook's place */
    return 0;
}

/* ==== The API (api.js calls these) ==== */

/* Start the server: the clock is frozen at the real time now, and from then
 * on moves only through play_advance(). Returns 0, or -1 when the server
 * could not start (it has said why on stderr). */
EMSCRIPTEN_KEEPALIVE int play_start(void) {
    if (play.started) return 0;
    play.started = 1;
    clock_freeze(clock_now_ms(), clock_mono_us());
    if (server_setup() != 0) return -1;
    play.console = console_connect();
    loop_turn();
    return 0;
}

/* Feed bytes to the console's connection, as if they had just been read
 * from its socket, and keep what the server answered (play_reply()). */
EMSCRIPTEN_KEEPALIVE size_t play_send(const char *bytes, size_t len) {
    client *c = play.console;
    play.reply.len = 0;
    play.closed = 0;
    buf_append(&c->query, bytes, len);
#if defined(FAST_PATH_H)
    /* Chapter 12: held when read, run at the end of the turn, as step 12's
     * read handler and end of turn do (its net.h's run hooks). */
    net_server *s = &server.net;
    s->run_hooks->read(c, s->run_hooks_ctx);
    s->run_hooks->end_of_turn(s, s->run_hooks_ctx);
#else
    net_run_client(c);
#endif
    buf_append(&play.reply, c->out.data + c->out_sent, c->out.len - c->out_sent);
    c->out.len = c->out_sent = 0;
    /* Not written by the loop: the bytes were taken above. */
    for (client **link = &server.net.write_queue; *link; link = &(*link)->next_write) {
        if (*link == c) {
            *link = c->next_write;
            c->write_queued = 0;
            break;
        }
    }
    if (c->close_after_reply) {
        /* QUIT, or a protocol error: the connection ends; the console, like
         * redis-cli, connects again for the next command. */
        console_close(c);
        play.console = console_connect();
        play.closed = 1;
    }
    loop_turn();
    return play.reply.len;
}

EMSCRIPTEN_KEEPALIVE const char *play_reply(void) {
    return play.reply.data ? play.reply.data : "";
}

EMSCRIPTEN_KEEPALIVE int play_closed(void) {
    return play.closed;
}

/* Move the clock forward by ms, turning the event loop every time it would
 * have woken up on the way: when its next timer is due, or after its longest
 * sleep (the step's hooks set both). */
EMSCRIPTEN_KEEPALIVE void play_advance(double ms) {
    int64_t left = (int64_t)ms;
    int zero_waits = 0;
    while (left > 0) {
        int64_t wait = ms_until_next_timer(play.loop);
        if (wait < 0 || wait > left) wait = left;
        if (wait == 0 && ++zero_waits > PLAY_ZERO_WAIT_TURNS) wait = 1;
        if (wait > 0) zero_waits = 0;
        clock_advance_ms(wait);
        left -= wait;
        loop_turn();
    }
}

EMSCRIPTEN_KEEPALIVE double play_now(void) {
    return (double)clock_now_ms();
}

/* ==== Chapter 05: the cycles, as they run ==== */

#if defined(ACTIVE_EXPIRE_H)
typedef struct observed_cycle {
    int64_t at_ms;       /* the server's clock when it ran */
    int fast;            /* a fast cycle (before sleeping) or the cron's slow one */
    uint64_t sampled;    /* keys looked at */
    uint64_t expired;    /* of those, deleted */
    size_t ttl_before;   /* keys with a TTL when it started */
    size_t ttl_after;    /* and when it ended */
    double stale_before; /* the estimate (INFO expired_stale_perc) before */
    double stale_after;  /* and after */
    const char *stop;    /* why it stopped */
    int shown;           /* keys kept in `keys` */
    char keys[PLAY_SAMPLE_SHOWN][PLAY_KEY_BYTES];
    char key_expired[PLAY_SAMPLE_SHOWN];
} observed_cycle;

static struct {
    observed_cycle ring[PLAY_CYCLES_KEPT];
    uint64_t count;         /* cycles recorded, ever */
    observed_cycle *now;    /* the cycle running, or NULL */
    observed_cycle current; /* where it is recorded */
    uint64_t ran_before;    /* ae->cycles when it started */
    double real_start_ms;   /* performance.now() when it started */
} cycles;

static int note_sampled_key(keyspace *ks, dict_entry *de, int64_t now_ms) {
    observed_cycle *cy = cycles.now;
    int i = cy ? cy->shown : PLAY_SAMPLE_SHOWN;
    if (i < PLAY_SAMPLE_SHOWN) {
        size_t n = de->keylen < PLAY_KEY_BYTES - 1 ? de->keylen : PLAY_KEY_BYTES - 1;
        memcpy(cy->keys[i], dict_entry_key(de), n); /* before it may be freed */
        cy->keys[i][n] = '\0';
    }
    int deleted = expire_if_needed(ks, de, now_ms);
    if (cy) {
        if (i < PLAY_SAMPLE_SHOWN) cy->key_expired[cy->shown++] = (char)deleted;
        cy->sampled++;
        cy->expired += (uint64_t)deleted;
    }
    return deleted;
}

/* The monotonic clock as the cycle sees it: the page's frozen clock plus the
 * real time this cycle has taken so far. */
static int64_t cycle_clock_us(void) {
    int64_t spent =
        cycles.now ? (int64_t)((emscripten_get_now() - cycles.real_start_ms) * 1000) : 0;
    return clock_mono_us() + spent;
}

/* Around one of the cycle's hooks: note the state before, let the cycle
 * record its sample (note_sampled_key()), and keep the record if it looked at
 * any key. */
static void observe_cycle_start(active_expire *ae, cycle_type type) {
    observed_cycle *cy = &cycles.current;
    *cy = (observed_cycle){.at_ms = clock_now_ms(), .fast = type == CYCLE_FAST};
    cy->ttl_before = ae->ks->ttl_count;
    cy->stale_before = ae->stale_perc;
    cycles.ran_before = ae->cycles;
    cycles.now = cy;
    cycles.real_start_ms = emscripten_get_now();
}

static void observe_cycle_end(active_expire *ae) {
    observed_cycle *cy = cycles.now;
    cycles.now = NULL;
    if (ae->cycles == cycles.ran_before || cy->sampled == 0) return; /* nothing looked at */
    cy->ttl_after = ae->ks->ttl_count;
    cy->stale_after = ae->stale_perc;
    cy->stop = ae->timelimit_exit_last  ? "budget"
               : ae->ks->ttl_count == 0 ? "nothing left"
                                        : "clean sample";
    cycles.ring[cycles.count++ % PLAY_CYCLES_KEPT] = *cy;
}

static int64_t observed_slow_timer(event_loop *el, int64_t id, void *data) {
    observe_cycle_start(data, CYCLE_SLOW);
    int64_t next = slow_cycle_timer(el, id, data);
    observe_cycle_end(data);
    return next;
}

static void observed_fast_cycle(event_loop *el) {
    observe_cycle_start(&server.expirer, CYCLE_FAST);
    active_expire_before_sleep(el, &server.expirer);
    observe_cycle_end(&server.expirer);
}
#endif

/* ==== Inspection: JSON of the structures ==== */

static void json_raw(const char *s) {
    buf_append(&play.json, s, strlen(s));
}

static void json_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void json_fmt(const char *fmt, ...) {
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    buf_append(&play.json, tmp, n < (int)sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* A JSON string of len bytes, at most max of them, bytes above 0x7e as \u00XX. */
static void json_str(const char *s, size_t len, size_t max) {
    json_raw("\"");
    for (size_t i = 0; i < len && i < max; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') {
            char esc[3] = {'\\', (char)ch, 0};
            json_raw(esc);
        } else if (ch < 0x20 || ch > 0x7e) {
            json_fmt("\\u%04x", ch);
        } else {
            buf_append(&play.json, &s[i], 1);
        }
    }
    json_raw("\"");
}

static void json_cstr(const char *s) {
    json_str(s, strlen(s), SIZE_MAX);
}

static void inspect_last_command(void) {
    json_raw(",\"last_command\":[");
    for (int i = 0; i < play.argc; i++) {
        if (i) json_raw(",");
        json_str(play.argv[i], strlen(play.argv[i]), PLAY_MAX_ARG_BYTES);
    }
    json_raw("]");
}

#if defined(KEYSPACE_H)
static void json_key(const dict_entry *de) {
    json_str(dict_entry_key(de), de->keylen, PLAY_KEY_BYTES);
}

/* Chapters 02 and 03: both tables, each bucket's chain, the rehash index. */
static void inspect_dict(dict *d) {
    json_fmt(",\"dict\":{\"rehashing\":%d,\"rehash_index\":%zu,\"tables\":[", is_rehashing(d),
             d->rehash_index);
    for (int t = 0; t < 2; t++) {
        dict_table *tb = &d->table[t];
        json_fmt("%s{\"size\":%zu,\"used\":%zu", t ? "," : "", tb->size, tb->used);
        if (tb->size && tb->size <= PLAY_DRAWN_BUCKETS) {
            json_raw(",\"buckets\":[");
            for (size_t b = 0; b < tb->size; b++) {
                json_raw(b ? ",[" : "[");
                for (dict_entry *de = tb->buckets[b]; de; de = de->next) {
                    if (de != tb->buckets[b]) json_raw(",");
                    json_key(de);
                }
                json_raw("]");
            }
            json_raw("]");
        }
        json_raw("}");
    }
    json_raw("]}");
}

#if defined(EXPIRE_H)
/* A key's expire time, Unix ms, or 0 when it has none. */
static int64_t key_expire_at(dict_entry *de) {
#if defined(TIMEWHEEL_H)
    tw_node *timer = key_timer(de); /* NULL for a key without a TTL (the fast path) */
    return timer && tw_is_scheduled(timer) ? timer->expire_ms : 0;
#else
    return ((value *)de->val)->expire_at_ms;
#endif
}

/* Every key with a TTL (up to PLAY_LISTED_KEYS), and how many are past their
 * deadline but still held: chapter 04's leak. */
static void inspect_ttl_keys(dict *d) {
    int64_t now = clock_now_ms();
    size_t with_ttl = 0, past = 0, listed = 0;
    json_raw(",\"ttl_keys\":[");
    for (int t = 0; t < 2; t++) {
        dict_table *tb = &d->table[t];
        for (size_t b = 0; b < tb->size; b++) {
            for (dict_entry *de = tb->buckets[b]; de; de = de->next) {
                int64_t at = key_expire_at(de);
                if (!at) continue;
                with_ttl++;
                past += now > at;
                if (listed++ >= PLAY_LISTED_KEYS) continue;
                json_raw(listed > 1 ? ",{\"key\":" : "{\"key\":");
                json_key(de);
                json_fmt(",\"expire_at\":%lld,\"past\":%d}", (long long)at, now > at);
            }
        }
    }
    json_fmt("],\"with_ttl\":%zu,\"past_deadline\":%zu", with_ttl, past);
}
#endif
#endif

#if defined(ACTIVE_EXPIRE_H)
static void inspect_cycles(void) {
    active_expire *ae = &server.expirer;
    json_fmt(",\"expirer\":{\"enabled\":%d,\"keys_per_loop\":%d,\"acceptable_stale_perc\":%d,"
             "\"stale_perc\":%.2f,\"time_cap_reached\":%llu,\"cycles\":%llu,"
             "\"cycle_time_used_us\":%lld,\"hz\":%d}",
             ae->enabled, ae->keys_per_loop, ae->acceptable_stale_perc, ae->stale_perc,
             (unsigned long long)ae->time_cap_reached, (unsigned long long)ae->cycles,
             (long long)ae->cycle_time_used_us, ae->hz);
    json_fmt(",\"cycles_recorded\":%llu,\"cycles\":[", (unsigned long long)cycles.count);
    uint64_t first = cycles.count > PLAY_CYCLES_KEPT ? cycles.count - PLAY_CYCLES_KEPT : 0;
    for (uint64_t n = first; n < cycles.count; n++) {
        observed_cycle *cy = &cycles.ring[n % PLAY_CYCLES_KEPT];
        json_fmt("%s{\"n\":%llu,\"at\":%lld,\"fast\":%d,\"sampled\":%llu,\"expired\":%llu,"
                 "\"ttl_before\":%zu,\"ttl_after\":%zu,\"stale_before\":%.2f,\"stale_after\":%.2f,"
                 "\"stop\":",
                 n > first ? "," : "", (unsigned long long)n + 1, (long long)cy->at_ms, cy->fast,
                 (unsigned long long)cy->sampled, (unsigned long long)cy->expired, cy->ttl_before,
                 cy->ttl_after, cy->stale_before, cy->stale_after);
        json_cstr(cy->stop);
        json_raw(",\"sample\":[");
        for (int i = 0; i < cy->shown; i++) {
            json_raw(i ? ",{\"key\":" : "{\"key\":");
            json_cstr(cy->keys[i]);
            json_fmt(",\"expired\":%d}", cy->key_expired[i]);
        }
        json_raw("]}");
    }
    json_raw("]");
}
#endif

#if defined(TIMEWHEEL_H)
/* The wheel: its time, and for each level the occupied slots with their
 * keys (a few named, all counted). */
static void inspect_wheel(timewheel *tw) {
    json_fmt(",\"wheel\":{\"now_ms\":%lld,\"count\":%zu,\"slot_bits\":%d,\"fired\":%llu,"
             "\"cascaded\":%llu,\"slots_visited\":%llu,\"levels\":[",
             (long long)tw->now_ms, tw->count, TW_SLOT_BITS,
             (unsigned long long)tw->stat_nodes_fired, (unsigned long long)tw->stat_nodes_cascaded,
             (unsigned long long)tw->stat_slots_visited);
    for (int l = 0; l < TW_LEVELS; l++) {
        json_raw(l ? ",[" : "[");
        int any = 0;
        for (int s = 0; s < TW_SLOTS_PER_LEVEL; s++) {
            if (!(tw->occupied[l] >> s & 1)) continue;
            json_fmt("%s{\"slot\":%d,\"keys\":[", any++ ? "," : "", s);
            size_t n = 0;
            tw_node *head = &tw->slots[l][s];
            for (tw_node *node = head->next; node && node != head; node = node->next, n++) {
                if (n >= PLAY_SLOT_KEYS) continue;
                if (n) json_raw(",");
                json_key(dict_entry_from_metadata(node));
            }
            json_fmt("],\"n\":%zu}", n);
        }
        json_raw("]");
    }
    size_t due = 0;
    for (tw_node *node = tw->due.next; node && node != &tw->due; node = node->next)
        due++;
    json_fmt("],\"due\":%zu}", due);
}
#endif

#if defined(SET_FSM_H)
/* The last SET's options through the state machine's table: each token, and
 * for each machine that reads it, the cell looked up. Run again on the saved
 * arguments by the real lexer and table, which change nothing. */
static void inspect_set_path(void) {
    int count = play.last_set_argc > 3 ? play.last_set_argc - 3 : 0;
    arg opts[PLAY_MAX_ARGS];
    for (int i = 0; i < count; i++)
        opts[i] = (arg){play.last_set[i + 3], strlen(play.last_set[i + 3])};
    json_raw(",\"set\":{\"args\":[");
    for (int i = 0; i < play.last_set_argc; i++) {
        if (i) json_raw(",");
        json_cstr(play.last_set[i]);
    }
    json_raw("],\"machines\":[");
    set_fsm_state state[SET_MACHINE_COUNT];
    for (int m = 0; m < SET_MACHINE_COUNT; m++) {
        state[m] = set_fsm_start_state(m);
        json_raw(m ? "," : "");
        json_cstr(set_fsm_machine_name(m));
    }
    json_raw("],\"start\":[");
    for (int m = 0; m < SET_MACHINE_COUNT; m++) {
        json_raw(m ? "," : "");
        json_cstr(set_fsm_state_name(state[m]));
    }
    json_raw("],\"path\":[");
    int pos = 0, first = 1;
    while (play.last_set_argc > 0 && pos < count) {
        lexeme lx = next_lexeme(opts, count, &pos);
        json_raw(first ? "{\"token\":" : ",{\"token\":");
        first = 0;
        json_cstr(set_fsm_token_name(lx.token));
        json_raw(",\"value\":");
        if (lx.value.ptr)
            json_str(lx.value.ptr, lx.value.len, PLAY_MAX_ARG_BYTES);
        else
            json_raw("null");
        json_raw(",\"steps\":[");
        int any = 0;
        for (int m = 0; m < SET_MACHINE_COUNT; m++) {
            if (!set_fsm_machine_reads(m, lx.token)) continue;
            set_fsm_transition t = set_fsm_lookup(state[m], lx.token);
            json_fmt("%s{\"machine\":%d,\"from\":", any++ ? "," : "", m);
            json_cstr(set_fsm_state_name(state[m]));
            json_raw(",\"to\":");
            json_cstr(set_fsm_state_name(t.next));
            json_raw(",\"action\":");
            json_cstr(set_fsm_action_name(t.action));
            json_raw("}");
            state[m] = t.next;
        }
        json_raw("]}");
    }
    int accepted = 1;
    json_raw("],\"end\":[");
    for (int m = 0; m < SET_MACHINE_COUNT; m++) {
        json_raw(m ? "," : "");
        json_cstr(set_fsm_state_name(state[m]));
        accepted = accepted && set_fsm_is_accepting(state[m]);
    }
    set_options out;
    set_parse_status st = play.last_set_argc >= 3
                              ? set_parse_options(opts, count, clock_now_ms(), &out)
                              : SET_PARSE_SYNTAX_ERROR;
    static const char *const outcome[] = {
        [SET_PARSE_OK] = "ok",
        [SET_PARSE_SYNTAX_ERROR] = "syntax error",
        [SET_PARSE_NOT_INTEGER] = "not an integer",
        [SET_PARSE_INVALID_EXPIRE] = "invalid expire time",
    };
    json_fmt("],\"accepted\":%d,\"outcome\":", accepted);
    json_cstr(outcome[st]);
    json_raw("}");
}
#endif

#if defined(SNAPSHOT_H)
/* Chapter 08: the snapshot file in the page's memory, and the saves. */
static void inspect_snapshot(const snapshotter *s) {
    struct stat st;
    char cwd[256];
    json_raw(",\"snapshot\":{\"dir\":");
    json_cstr(getcwd(cwd, sizeof(cwd)) ? cwd : s->dir);
    json_raw(",\"dbfilename\":");
    json_cstr(s->dbfilename);
    json_fmt(",\"file_bytes\":%lld,\"saves\":%llu,\"lastsave\":%lld,\"changes_since_save\":%llu,"
             "\"last_bgsave_ok\":%d,\"bgsave_in_progress\":%d,\"loaded_keys\":%llu,"
             "\"expired_at_load\":%llu}",
             stat(s->dbfilename, &st) == 0 ? (long long)st.st_size : -1LL,
             (unsigned long long)s->saves, (long long)s->lastsave_s,
             (unsigned long long)s->ks->dirty, s->last_bgsave_ok, s->child != 0,
             (unsigned long long)s->loaded_keys, (unsigned long long)s->expired_at_load);
}
#endif

/* JSON of everything the page draws; valid until the next call. */
EMSCRIPTEN_KEEPALIVE const char *play_inspect(void) {
    play.json.len = 0;
    json_raw("{\"step\":");
    json_cstr(STEP_NAME);
    json_fmt(",\"now\":%lld,\"turns\":%llu,\"commands\":%llu,\"used_memory\":%zu",
             (long long)clock_now_ms(), (unsigned long long)play.turns,
             (unsigned long long)server.net.total_commands, mem_used());
    inspect_last_command();
#if defined(KEYSPACE_H)
    json_fmt(",\"keys\":%zu", keyspace_size(&server.db));
    inspect_dict(server.db.keys);
#if defined(EXPIRE_H)
    json_fmt(",\"expired_keys\":%llu,\"hits\":%llu,\"misses\":%llu",
             (unsigned long long)server.db.expired_keys, (unsigned long long)server.db.hits,
             (unsigned long long)server.db.misses);
    inspect_ttl_keys(server.db.keys);
#endif
#endif
#if defined(ACTIVE_EXPIRE_H)
    inspect_cycles();
#endif
#if defined(TIMEWHEEL_H)
    inspect_wheel(&server.db.wheel);
#endif
#if defined(SET_FSM_H)
    inspect_set_path();
#endif
#if defined(SNAPSHOT_H)
    inspect_snapshot(&server.snap);
#endif
    json_raw("}");
    buf_append(&play.json, "", 1); /* the NUL api.js reads up to */
    return play.json.data;
}

/* main.c -- the server: its commands, start-up and shutdown.
 *
 * A Redis-compatible server: it accepts connections, parses requests in both
 * of Redis's forms, and answers with the exact bytes Redis sends, so
 * redis-cli, redis-benchmark and client libraries talk to it unchanged. Read
 * this file first; the step's chapter in docs/ says what the step adds and
 * which file to read next. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h> /* mallopt() */
#endif

#include "alloc.h"
#include "clock.h"
#include "command.h"
#include "connection.h"
#include "dict.h"
#include "expire.h"
#include "event_loop.h"
#include "fastpath.h"
#include "info.h"
#include "net.h"
#include "panic.h"
#include "reply.h"
#include "server.h"
#include "strnum.h"

/* The one server struct (see server.h). */
struct server server;

/* ==== Commands ==== */

/* PING [message]: +PONG, or the message back as a bulk string. */
static void ping_command(client *c, int argc, arg *argv) {
    if (argc > 2) {
        reply_wrong_arity(c, "ping");
    } else if (argc == 2) {
        reply_bulk(c, argv[1].ptr, argv[1].len);
    } else {
        buf_append(&c->out, "+PONG\r\n", 7);
    }
}

/* ECHO message: the message back. */
static void echo_command(client *c, int argc, arg *argv) {
    (void)argc;
    reply_bulk(c, argv[1].ptr, argv[1].len);
}

/* QUIT: +OK, then the connection closes once the reply is written. */
static void quit_command(client *c, int argc, arg *argv) {
    (void)argc;
    (void)argv;
    reply_ok(c);
    c->close_after_reply = 1;
}

/* INFO [section ...]: what the server knows about itself. */
static void info_command(client *c, int argc, arg *argv) {
    info_request r = {argc, argv, {0}};
    info_server_facts facts = {STEP_NAME, server.port, server.start_ms};
    info_server_section(&r, &facts);
    info_clients_section(&r, &server.net);
    info_memory_section(&r);
    snapshot_info(&r, &server.snap);
    if (info_stats_section(&r, &server.net)) {
        keyspace_stats_info(&r, &server.db);
        expire_info(&r, &server.expirer, &server.db);
        replication_stats_info(&r, &server.repl);
        fastpath_info(&r, &server.fast);
    }
    replication_info(&r, &server.repl);
    keyspace_info(&r, &server.db);
    info_reply(c, &r);
}

/* DEBUG SET-ACTIVE-EXPIRE 0|1: switch active deletion off or on, as in
 * Redis, so tests (and the chapter) can show lazy expiry alone. DEBUG
 * RELOAD: save, empty and load the snapshot (snapshot.c). */
static void debug_command(client *c, int argc, arg *argv) {
    if (argc == 2 && arg_is(&argv[1], "reload")) {
        snapshot_debug_reload(c);
        return;
    }
    if (argc == 3 && arg_is(&argv[1], "set-active-expire")) {
        long long on;
        server.expirer.enabled = string_to_ll(argv[2].ptr, argv[2].len, &on) && on != 0;
        reply_ok(c);
        return;
    }
    reply_errorf(c, "unknown subcommand or wrong number of arguments for '%.*s'. Try DEBUG HELP.",
                 (int)argv[1].len, argv[1].ptr);
}

/* The command table: name, arity, function, first key, last key, key step.
 * Arity counts the command name: 2 means exactly one argument, -1 means at
 * least none. */
/* clang-format off */
static const command command_table[] = {
    {"ping", -1, ping_command, 0, 0, 0},
    {"echo", 2, echo_command, 0, 0, 0},
    {"quit", -1, quit_command, 0, 0, 0},
    {"command", -1, command_command, 0, 0, 0},
    {"info", -1, info_command, 0, 0, 0},
    {"hello", -1, hello_command, 0, 0, 0},
    {"client", -2, client_command, 0, 0, 0},
    {"select", 2, select_command, 0, 0, 0},
    {"config", -2, config_command, 0, 0, 0},
    {"get", 2, get_command, 1, 1, 1},
    {"set", -3, set_command, 1, 1, 1},
    {"dbsize", 1, dbsize_command, 0, 0, 0},
    {"flushall", -1, flushall_command, 0, 0, 0},
    {"flushdb", -1, flushall_command, 0, 0, 0},
    {"del", -2, del_command, 1, -1, 1},
    {"exists", -2, exists_command, 1, -1, 1},
    {"expire", -3, expire_command, 1, 1, 1},
    {"pexpire", -3, pexpire_command, 1, 1, 1},
    {"expireat", -3, expireat_command, 1, 1, 1},
    {"pexpireat", -3, pexpireat_command, 1, 1, 1},
    {"ttl", 2, ttl_command, 1, 1, 1},
    {"pttl", 2, pttl_command, 1, 1, 1},
    {"expiretime", 2, expiretime_command, 1, 1, 1},
    {"pexpiretime", 2, pexpiretime_command, 1, 1, 1},
    {"persist", 2, persist_command, 1, 1, 1},
    {"debug", -2, debug_command, 0, 0, 0},
    {"digest", 2, digest_command, 1, 1, 1},
    {"save", 1, save_command, 0, 0, 0},
    {"bgsave", -1, bgsave_command, 0, 0, 0},
    {"lastsave", 1, lastsave_command, 0, 0, 0},
    {"shutdown", -1, shutdown_command, 0, 0, 0},
    {"replconf", -1, replconf_command, 0, 0, 0},
    {"psync", -3, psync_command, 0, 0, 0},
    {"sync", 1, sync_command, 0, 0, 0},
    {"role", 1, role_command, 0, 0, 0},
    {"replicaof", 3, replicaof_command, 0, 0, 0},
    {"slaveof", 3, replicaof_command, 0, 0, 0},
    {"wait", 3, wait_command, 0, 0, 0},
    {NULL, 0, NULL, 0, 0, 0},
};
/* clang-format on */

/* ==== Start-up and shutdown ==== */

static void usage(FILE *out) {
    fprintf(out, "Usage: server [--port N] [--bind ADDR] [--client-query-buffer-limit SIZE]\n"
                 "              [--dir DIR] [--dbfilename NAME] [--save \"S C ...\"]\n"
                 "              [--replicaof HOST PORT] [--repl-backlog-size SIZE]\n"
                 "              [--repl-ping-replica-period S]\n"
                 "              [--client-output-buffer-limit \"replica HARD SOFT S\"]\n"
                 "  --port N     TCP port to listen on (default 6379)\n"
                 "  --bind ADDR  address to listen on (default 127.0.0.1)\n"
                 "  --client-query-buffer-limit SIZE\n"
                 "               close a client holding more input not yet executed: bytes,\n"
                 "               or with k kb m mb g gb (default 1gb, at least 1mb)\n"
                 "  --dir DIR    where the snapshot is kept (default: here)\n"
                 "  --dbfilename NAME\n"
                 "               the snapshot's file name (default dump.rdb)\n"
                 "  --save \"S C ...\"\n"
                 "               BGSAVE after S seconds with C changes, for each pair; \"\"\n"
                 "               for none (default \"" SNAPSHOT_DEFAULT_SAVE "\")\n"
                 "  --replicaof HOST PORT\n"
                 "               start as a replica of that master\n"
                 "  --repl-backlog-size SIZE\n"
                 "               the stream kept for replicas that reconnect (default 1mb)\n"
                 "  --repl-ping-replica-period S\n"
                 "               PING the replicas every S seconds (default 10)\n"
                 "  --client-output-buffer-limit \"replica HARD SOFT S\"\n"
                 "               drop a replica whose unsent stream reaches HARD, or stays\n"
                 "               over SOFT for more than S seconds (default 256mb 64mb 60)\n"
                 "  --rdb-key-save-delay US\n"
                 "               sleep US microseconds per key saved (for tests)\n"
                 "  --help       this text\n");
}

/* Parse the command line into `server`; exits on a bad flag. */
static void parse_flags(int argc, char **argv) {
    server.bind = "127.0.0.1";
    server.port = 6379;
    server.qbuf_max = CLIENT_QUERY_BUFFER_LIMIT_DEFAULT;
    for (int i = 1; i < argc; i++) {
        long long port;
        if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(argv[i], "--port") == 0 && i + 1 < argc &&
                   string_to_ll(argv[i + 1], strlen(argv[i + 1]), &port) && port > 0 &&
                   port < 65536) {
            server.port = (int)port;
            i++;
        } else if (strcmp(argv[i], "--bind") == 0 && i + 1 < argc) {
            server.bind = argv[++i];
        } else if (strcmp(argv[i], "--client-query-buffer-limit") == 0 && i + 1 < argc) {
            const char *why;
            if (!net_parse_query_buffer_limit(argv[++i], &server.qbuf_max, &why)) {
                fprintf(stderr, "server: --client-query-buffer-limit '%s': %s\n", argv[i], why);
                exit(1);
            }
        } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            server.snap.dir = argv[++i];
        } else if (strcmp(argv[i], "--dbfilename") == 0 && i + 1 < argc) {
            server.snap.dbfilename = argv[++i];
            if (strchr(server.snap.dbfilename, '/') != NULL) {
                fprintf(stderr, "server: --dbfilename can't be a path, just a filename\n");
                exit(1);
            }
        } else if (strcmp(argv[i], "--save") == 0 && i + 1 < argc) {
            const char *why;
            if (!snapshot_parse_save(&server.snap, argv[++i], &why)) {
                fprintf(stderr, "server: --save '%s': %s\n", argv[i], why);
                exit(1);
            }
        } else if (strcmp(argv[i], "--replicaof") == 0 && i + 2 < argc &&
                   string_to_ll(argv[i + 2], strlen(argv[i + 2]), &port) && port > 0 &&
                   port < 65536) {
            replication_set_master(&server.repl, argv[i + 1], (int)port);
            i += 2;
        } else if (strcmp(argv[i], "--repl-backlog-size") == 0 && i + 1 < argc) {
            const char *why;
            if (!replication_parse_backlog_size(&server.repl, argv[++i], &why)) {
                fprintf(stderr, "server: --repl-backlog-size '%s': %s\n", argv[i], why);
                exit(1);
            }
        } else if (strcmp(argv[i], "--client-output-buffer-limit") == 0 && i + 1 < argc) {
            const char *why;
            if (!replication_parse_obuf_limit(&server.repl, argv[++i], &why)) {
                fprintf(stderr, "server: --client-output-buffer-limit '%s': %s\n", argv[i], why);
                exit(1);
            }
        } else if (strcmp(argv[i], "--repl-ping-replica-period") == 0 && i + 1 < argc &&
                   string_to_ll(argv[i + 1], strlen(argv[i + 1]), &port) && port > 0 &&
                   port <= INT_MAX) {
            server.repl.ping_period_s = (int)port;
            i++;
        } else if (strcmp(argv[i], "--rdb-key-save-delay") == 0 && i + 1 < argc &&
                   string_to_ll(argv[i + 1], strlen(argv[i + 1]), &server.snap.key_delay_us)) {
            i++;
        } else {
            fprintf(stderr, "server: bad argument '%s'\n", argv[i]);
            usage(stderr);
            exit(1);
        }
    }
}

/* Random bytes from the kernel, for the hash seed and replication ids. */
void random_bytes(uint8_t *out, size_t n) {
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd == -1 || read(fd, out, n) != (ssize_t)n) {
        /* No /dev/urandom: weaker, but still different for every run. */
        int64_t t = clock_mono_us() ^ ((int64_t)getpid() << 32);
        for (size_t i = 0; i < n; i++)
            out[i] = (uint8_t)(t >> (8 * (i % 8)));
    }
    if (fd != -1) close(fd);
}

/* Key the hash function with random bytes, so nobody can predict which keys
 * collide and send a million keys that all land in one bucket. */
static void seed_hash_function(void) {
    uint8_t seed[16];
    random_bytes(seed, sizeof(seed));
    dict_set_hash_seed(seed);
}

/* SIGINT/SIGTERM only ask the loop to stop; the cleanup runs in main(), where
 * it is safe to free memory. */
static void on_signal(int sig) {
    (void)sig;
    el_stop(server.loop);
}

static void install_signal_handlers(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    if (sigaction(SIGINT, &sa, NULL) == -1 || sigaction(SIGTERM, &sa, NULL) == -1 ||
        signal(SIGPIPE, SIG_IGN) == SIG_ERR) /* a vanished client is an error, not a crash */
        panic("cannot install the signal handlers");
}

/* glibc keeps freed small blocks in "fast bins" and merges them with their
 * free neighbours only later, all at once, the next time a large block
 * (64 KB or more) is freed. After a million keys expire, that is two million
 * blocks merged in one go, and the whole server stalls for it (chapter 05
 * gives the figures). With fast bins off, blocks are merged as they are
 * freed; they still go first to glibc's per-thread cache, so the rest of the
 * work does not slow down. Called before the first allocation. */
static void turn_off_malloc_fast_bins(void) {
#if defined(__GLIBC__)
    mallopt(M_MXFAST, 0);
#endif
}

int main(int argc, char **argv) {
    /* 1. Settings from the command line. */
    turn_off_malloc_fast_bins();
    server.start_ms = clock_now_ms();
    keyspace_init(&server.db, server.start_ms);
    snapshot_init(&server.snap, &server.db);
    replication_init(&server.repl, &server.snap, &server.net);
    parse_flags(argc, argv);
    seed_hash_function();
    wheel_expirer_init(&server.expirer);
    char err[768];
    if (snapshot_open(&server.snap, err, sizeof(err)) == -1) {
        fprintf(stderr, "server: %s\n", err); /* the file is left as it is */
        keyspace_free(&server.db);
        return 1;
    }

    /* 2. The event loop and the listening socket. */
    server.loop = el_create();
    if (server.loop == NULL) {
        fprintf(stderr, "server: cannot create the event loop\n");
        return 1;
    }
    el_set_max_sleep(server.loop, 100); /* a stop request that came just before a wait */
    net_init(&server.net, server.loop, command_table);
    server.net.query_buffer_limit = server.qbuf_max;
    fastpath_install(&server.fast, &server.net, server.db.keys);
    if (net_listen(&server.net, server.bind, server.port, err, sizeof(err)) == -1) {
        fprintf(stderr, "server: %s\n", err);
        keyspace_free(&server.db);
        el_free(server.loop);
        return 1;
    }
    /* Active expiry before every wait; its hook keeps each wait within the
     * same 100 ms. */
    wheel_expirer_start(&server.expirer, &server.db, server.loop, 100);
    snapshot_start(&server.snap, server.loop);
    replication_start(&server.repl, server.loop);
    install_signal_handlers();
    printf("%s: ready to accept connections on %s:%d\n", STEP_NAME, server.bind, server.port);
    fflush(stdout);

    /* 3. Serve until SIGINT, SIGTERM or SHUTDOWN, and save on the way out;
     * a save that fails keeps the server serving, as in Redis. */
    do
        el_run(server.loop);
    while (!snapshot_before_exit(&server.snap));

    /* 4. Close every connection and free everything, so that a leak checker
     * finds nothing at exit. */
    net_shutdown(&server.net);
    replication_free(&server.repl);
    fastpath_free(&server.fast);
    keyspace_free(&server.db);
    el_free(server.loop);
    printf("%s: bye\n", STEP_NAME);
    return 0;
}

/* main.c -- the server: its commands, start-up and shutdown.
 *
 * A Redis-compatible server: it accepts connections, parses requests in both
 * of Redis's forms, and answers with the exact bytes Redis sends, so
 * redis-cli, redis-benchmark and client libraries talk to it unchanged. Read
 * this file first; the step's chapter in docs/ says what the step adds and
 * which file to read next. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "clock.h"
#include "command.h"
#include "connection.h"
#include "dict.h"
#include "event_loop.h"
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
    info_stats_section(&r, &server.net);
    keyspace_info(&r, &server.db);
    info_reply(c, &r);
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
    {NULL, 0, NULL, 0, 0, 0},
};
/* clang-format on */

/* ==== Start-up and shutdown ==== */

static void usage(FILE *out) {
    fprintf(out, "Usage: server [--port N] [--bind ADDR] [--client-query-buffer-limit SIZE]\n"
                 "  --port N     TCP port to listen on (default 6379)\n"
                 "  --bind ADDR  address to listen on (default 127.0.0.1)\n"
                 "  --client-query-buffer-limit SIZE\n"
                 "               close a client holding more input not yet executed: bytes,\n"
                 "               or with k kb m mb g gb (default 1gb, at least 1mb)\n"
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
        } else {
            fprintf(stderr, "server: bad argument '%s'\n", argv[i]);
            usage(stderr);
            exit(1);
        }
    }
}

/* Random bytes from the kernel, for the hash seed. */
static void random_bytes(uint8_t *out, size_t n) {
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

int main(int argc, char **argv) {
    /* 1. Settings from the command line. */
    parse_flags(argc, argv);
    server.start_ms = clock_now_ms();
    seed_hash_function();
    keyspace_init(&server.db);

    /* 2. The event loop and the listening socket. */
    server.loop = el_create();
    if (server.loop == NULL) {
        fprintf(stderr, "server: cannot create the event loop\n");
        return 1;
    }
    el_set_max_sleep(server.loop, 100); /* a stop request that came just before a wait */
    net_init(&server.net, server.loop, command_table);
    server.net.query_buffer_limit = server.qbuf_max;
    char err[256];
    if (net_listen(&server.net, server.bind, server.port, err, sizeof(err)) == -1) {
        fprintf(stderr, "server: %s\n", err);
        keyspace_free(&server.db);
        el_free(server.loop);
        return 1;
    }
    install_signal_handlers();
    printf("%s: ready to accept connections on %s:%d\n", STEP_NAME, server.bind, server.port);
    fflush(stdout);

    /* 3. Serve until SIGINT or SIGTERM. */
    el_run(server.loop);

    /* 4. Close every connection and free everything, so that a leak checker
     * finds nothing at exit. */
    net_shutdown(&server.net);
    keyspace_free(&server.db);
    el_free(server.loop);
    printf("%s: bye\n", STEP_NAME);
    return 0;
}

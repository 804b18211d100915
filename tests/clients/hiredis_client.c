/* hiredis_client.c -- the tutorial's servers through hiredis, the C client.
 *
 * Learners who write C will talk to their server with hiredis (Debian's
 * libhiredis-dev), not only with redis-cli. This program uses it with its
 * default settings and checks what a first program does: connect, a binary
 * value through SET/GET, a pipeline of 200 commands, DEL, and, from step 04,
 * EXPIRE/TTL. With --resp3 it first switches the connection to RESP3 with
 * HELLO 3 and checks that hiredis sees a map and a RESP3 null.
 *
 *   hiredis_client PORT [--no-keyspace] [--expiry] [--resp3]
 *   hiredis_client --version
 *
 * --no-keyspace is for step 01, which has no keys: PING/ECHO instead.
 * Exit status: 0 passed, 77 skipped (the reason on stdout), 1 failed (the
 * first mismatch on stderr). tests/clients/run.sh builds and runs it. */
#define _POSIX_C_SOURCE 200809L
#include <hiredis/hiredis.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PIPELINE  200
#define EXIT_SKIP 77

static redisContext *conn;

static void fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("hiredis_client: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static const char *type_name(int type) {
    switch (type) {
    case REDIS_REPLY_STRING: return "string";
    case REDIS_REPLY_ARRAY: return "array";
    case REDIS_REPLY_INTEGER: return "integer";
    case REDIS_REPLY_NIL: return "nil";
    case REDIS_REPLY_STATUS: return "status";
    case REDIS_REPLY_ERROR: return "error";
#if HIREDIS_MAJOR >= 1
    case REDIS_REPLY_MAP: return "map";
    case REDIS_REPLY_DOUBLE: return "double";
    case REDIS_REPLY_BOOL: return "bool";
    case REDIS_REPLY_SET: return "set";
    case REDIS_REPLY_VERB: return "verbatim";
#endif
    default: return "other";
    }
}

/* A reply, or the connection's error: either way `what` names the command. */
static redisReply *checked(void *r, const char *what) {
    if (r == NULL) fail("%s: no reply: %s", what, conn->errstr);
    redisReply *reply = r;
    if (reply->type == REDIS_REPLY_ERROR) fail("%s: error reply: %s", what, reply->str);
    return reply;
}

static void expect_type(redisReply *r, int type, const char *what) {
    if (r->type != type)
        fail("%s: expected a %s reply, got %s", what, type_name(type), type_name(r->type));
}

static void expect_status(redisReply *r, const char *want, const char *what) {
    expect_type(r, REDIS_REPLY_STATUS, what);
    if (strcmp(r->str, want) != 0) fail("%s: expected +%s, got +%s", what, want, r->str);
    freeReplyObject(r);
}

static void expect_bulk(redisReply *r, const char *want, size_t len, const char *what) {
    expect_type(r, REDIS_REPLY_STRING, what);
    if (r->len != len || memcmp(r->str, want, len) != 0)
        fail("%s: expected a %zu-byte string, got %zu bytes", what, len, r->len);
    freeReplyObject(r);
}

static void expect_integer(redisReply *r, long long want, const char *what) {
    expect_type(r, REDIS_REPLY_INTEGER, what);
    if (r->integer != want) fail("%s: expected %lld, got %lld", what, want, r->integer);
    freeReplyObject(r);
}

static void expect_nil(redisReply *r, const char *what) {
    expect_type(r, REDIS_REPLY_NIL, what);
    freeReplyObject(r);
}

/* ---- the checks -------------------------------------------------------- */

/* A value with every byte a text protocol could trip on. */
static const char binary_value[] = "a\0b\r\nc\n\r$-1\r\n*2\r\n\xff";
#define BINARY_LEN (sizeof(binary_value) - 1)

static void check_ping_echo(void) {
    expect_status(checked(redisCommand(conn, "PING"), "PING"), "PONG", "PING");
    expect_bulk(checked(redisCommand(conn, "ECHO %b", binary_value, BINARY_LEN), "ECHO"),
                binary_value, BINARY_LEN, "ECHO of a binary value");
}

static void check_binary_set_get(void) {
    const char *key = "clients:hiredis:bin";
    expect_status(checked(redisCommand(conn, "SET %s %b", key, binary_value, BINARY_LEN), "SET"),
                  "OK", "SET of a binary value");
    expect_bulk(checked(redisCommand(conn, "GET %s", key), "GET"), binary_value, BINARY_LEN,
                "GET of a binary value");
    expect_nil(checked(redisCommand(conn, "GET clients:hiredis:missing"), "GET"),
               "GET of a missing key");
}

/* 200 commands written before any reply is read: the server must parse them
 * all from its query buffer and answer in order. */
static void check_pipeline(int keyspace) {
    for (int i = 0; i < PIPELINE; i++) {
        int rc = !keyspace ? redisAppendCommand(conn, "ECHO %d", i)
                 : i % 2   ? redisAppendCommand(conn, "GET clients:hiredis:p%d", i - 1)
                           : redisAppendCommand(conn, "SET clients:hiredis:p%d %d", i, i);
        if (rc != REDIS_OK) fail("pipeline: redisAppendCommand %d failed: %s", i, conn->errstr);
    }
    for (int i = 0; i < PIPELINE; i++) {
        void *r = NULL;
        if (redisGetReply(conn, &r) != REDIS_OK) fail("pipeline reply %d: %s", i, conn->errstr);
        char what[64], want[16];
        snprintf(what, sizeof what, "pipeline reply %d", i);
        if (keyspace && i % 2 == 0) {
            expect_status(checked(r, what), "OK", what);
        } else {
            int n = snprintf(want, sizeof want, "%d", keyspace ? i - 1 : i);
            expect_bulk(checked(r, what), want, (size_t)n, what);
        }
    }
}

static void check_del(void) {
    const char *key = "clients:hiredis:bin";
    expect_integer(checked(redisCommand(conn, "DEL %s clients:hiredis:missing", key), "DEL"), 1,
                   "DEL of one present and one missing key");
    expect_nil(checked(redisCommand(conn, "GET %s", key), "GET"), "GET after DEL");
    expect_integer(checked(redisCommand(conn, "DEL %s", key), "DEL"), 0, "DEL of a deleted key");
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void check_expiry(void) {
    const char *key = "clients:hiredis:ttl";
    expect_status(checked(redisCommand(conn, "SET %s v", key), "SET"), "OK", "SET");
    expect_integer(checked(redisCommand(conn, "TTL %s", key), "TTL"), -1, "TTL without expiry");
    expect_integer(checked(redisCommand(conn, "EXPIRE %s 100", key), "EXPIRE"), 1, "EXPIRE");
    redisReply *r = checked(redisCommand(conn, "TTL %s", key), "TTL");
    expect_type(r, REDIS_REPLY_INTEGER, "TTL");
    if (r->integer < 99 || r->integer > 100) fail("TTL: expected 99..100, got %lld", r->integer);
    freeReplyObject(r);
    expect_integer(checked(redisCommand(conn, "TTL clients:hiredis:missing"), "TTL"), -2,
                   "TTL of a missing key");
    /* And the key really goes: 100 ms to live, looked at after 300. */
    expect_integer(checked(redisCommand(conn, "PEXPIRE %s 100", key), "PEXPIRE"), 1, "PEXPIRE");
    sleep_ms(300);
    expect_nil(checked(redisCommand(conn, "GET %s", key), "GET"), "GET after the key expired");
}

/* HELLO 3's reply is a map; the null it makes visible needs no keyspace:
 * CLIENT GETNAME of an unnamed connection. */
static void switch_to_resp3(void) {
#if HIREDIS_MAJOR >= 1
    redisReply *r = checked(redisCommand(conn, "HELLO 3"), "HELLO 3");
    expect_type(r, REDIS_REPLY_MAP, "HELLO 3");
    int proto_seen = 0;
    for (size_t i = 0; i + 1 < r->elements; i += 2) {
        redisReply *k = r->element[i], *v = r->element[i + 1];
        if (k->type == REDIS_REPLY_STRING && strcmp(k->str, "proto") == 0) {
            if (v->type != REDIS_REPLY_INTEGER || v->integer != 3)
                fail("HELLO 3: the map's proto is not the integer 3");
            proto_seen = 1;
        }
    }
    if (!proto_seen) fail("HELLO 3: the map has no proto field");
    freeReplyObject(r);
    expect_nil(checked(redisCommand(conn, "CLIENT GETNAME"), "CLIENT GETNAME"),
               "CLIENT GETNAME in RESP3");
#else
    printf("hiredis %d.%d has no RESP3 parser (RESP3 needs hiredis >= 1.0)\n", HIREDIS_MAJOR,
           HIREDIS_MINOR);
    exit(EXIT_SKIP);
#endif
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("%d.%d.%d\n", HIREDIS_MAJOR, HIREDIS_MINOR, HIREDIS_PATCH);
        return 0;
    }
    if (argc < 2) fail("usage: hiredis_client PORT [--no-keyspace] [--expiry] [--resp3]");
    int keyspace = 1, expiry = 0, resp3 = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--no-keyspace") == 0)
            keyspace = 0;
        else if (strcmp(argv[i], "--expiry") == 0)
            expiry = 1;
        else if (strcmp(argv[i], "--resp3") == 0)
            resp3 = 1;
        else
            fail("unknown flag %s", argv[i]);
    }

    conn = redisConnect("127.0.0.1", atoi(argv[1]));
    if (conn == NULL || conn->err)
        fail("cannot connect to port %s: %s", argv[1], conn ? conn->errstr : "out of memory");
    if (resp3) switch_to_resp3();

    check_ping_echo();
    if (keyspace) {
        check_binary_set_get();
        check_pipeline(1);
        check_del();
        if (expiry) check_expiry();
    } else {
        check_pipeline(0);
    }
    if (resp3 && keyspace)
        expect_nil(checked(redisCommand(conn, "GET clients:hiredis:missing"), "GET"),
                   "GET of a missing key in RESP3");
    redisFree(conn);
    return 0;
}

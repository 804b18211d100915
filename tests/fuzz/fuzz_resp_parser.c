/* fuzz_resp_parser.c -- libFuzzer target for the RESP request parser
 * (common/resp.c, chapter 01).
 *
 * A server reads whatever the network hands it: half a command, a hundred
 * commands, one byte at a time, or garbage. This target feeds the parser
 * arbitrary bytes in arbitrary pieces and drives it exactly as
 * common/net.c's process_query_buffer() does: parser_next() until it asks for
 * more bytes, then parser_consumed() / buf_consume() / parser_shift(). It
 * fails (abort, or a sanitizer report) when:
 *   - parser_next() reads or writes outside the bytes it was given (every
 *     query buffer grows as net.c's does, and its unused capacity is
 *     poisoned, so AddressSanitizer sees any byte read past the end);
 *   - a command's argv points outside the buffer or outside its own request,
 *     argc disagrees with the count a multibulk request declared, or the
 *     arguments differ from what an independent multibulk reader finds;
 *   - the parser says more bytes are consumed than the buffer holds;
 *   - the input fed in pieces gives a different sequence of commands, blank
 *     requests, or final state (protocol error text, or "incomplete") than
 *     the same input fed in one piece.
 *
 * ==== Input format ====
 *
 *   byte 0      h: low 4 bits = n, how many split bytes follow; bit 6 = pad
 *   bytes 1..n  chunk sizes, used in turn and cycled: (b & 0x7f) + 1 bytes,
 *               times 97 when b & 0x80 (so both byte-at-a-time and large
 *               reads happen); n = 0 means one byte at a time
 *   if pad:     4 more bytes: shift, count, filler byte, position; inserts
 *               count << (shift % 10) filler bytes (0 to 127 KB, mostly
 *               small: the sizes are spread evenly on a log scale) into the body at position %
 * (body length + 1), so the 64 KB line limits are reachable from a small input (large inputs are
 * read in at most about 128 pieces) the rest    the bytes a client sends
 *
 * Build and run: tests/fuzz/run.sh fuzz_resp_parser SECONDS. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/asan_interface.h>

#include "alloc.h"
#include "buffer.h"
#include "resp.h"

#define IDLE_BUFFER_KEEP (32 * 1024) /* as in common/net.c */
#define MAX_EVENTS       4096        /* commands remembered per input */

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* ==== What one parse produced ==== */

typedef struct event {
    int status;   /* PARSE_COMMAND or PARSE_NOTHING */
    int argc;     /* PARSE_COMMAND only */
    size_t *lens; /* argument lengths */
    char **bytes; /* copies of the arguments */
} event;

typedef struct outcome {
    event ev[MAX_EVENTS];
    int count;
    int truncated;    /* more than MAX_EVENTS events: compare only the first */
    int final_status; /* PARSE_INCOMPLETE or PARSE_ERROR */
    char error[96];
} outcome;

static void outcome_free(outcome *o) {
    for (int i = 0; i < o->count; i++) {
        for (int j = 0; j < o->ev[i].argc; j++)
            free(o->ev[i].bytes[j]);
        free(o->ev[i].bytes);
        free(o->ev[i].lens);
    }
    o->count = 0;
}

/* ==== An independent reader for multibulk requests ====
 *
 * Not incremental and not clever: starting at the request's first byte, read
 * *N\r\n then N times $L\r\n<L bytes><2 bytes>, as the protocol says, and
 * check that the parser's arguments are exactly those bytes. (The parser,
 * like Redis, does not look at the LF after a CR nor at the two bytes after a
 * payload; neither does this reader.) */
static long long read_number(const char *buf, size_t len, size_t *pos) {
    long long v = 0;
    int neg = 0;
    if (*pos < len && buf[*pos] == '-') {
        neg = 1;
        (*pos)++;
    }
    while (*pos < len && buf[*pos] != '\r') {
        CHECK(buf[*pos] >= '0' && buf[*pos] <= '9');
        CHECK(v <= (1LL << 40)); /* the parser accepted it, so it is small */
        v = v * 10 + (buf[*pos] - '0');
        (*pos)++;
    }
    CHECK(*pos + 1 < len); /* CR and the byte after it */
    *pos += 2;
    return neg ? -v : v;
}

static void check_multibulk(const request_parser *p, const char *buf, size_t len, size_t start) {
    size_t pos = start;
    CHECK(buf[pos] == '*');
    pos++;
    long long count = read_number(buf, len, &pos);
    CHECK(count == p->argc); /* argc matches the declared count */
    for (int i = 0; i < p->argc; i++) {
        CHECK(pos < len && buf[pos] == '$');
        pos++;
        long long blen = read_number(buf, len, &pos);
        CHECK(blen >= 0 && (size_t)blen == p->argv[i].len);
        CHECK(p->argv[i].ptr == buf + pos);
        pos += (size_t)blen + 2;
        CHECK(pos <= len);
    }
    CHECK(pos == p->pos); /* the request ends where the parser says */
}

/* Every argument lies inside this request's bytes, [start, p->pos). */
static void check_command(const request_parser *p, const char *buf, size_t len, size_t start,
                          int multibulk) {
    CHECK(p->argc >= 1);
    CHECK(p->pos <= len);
    CHECK(start < p->pos);
    for (int i = 0; i < p->argc; i++) {
        const char *a = p->argv[i].ptr;
        CHECK(a >= buf + start);
        CHECK(a <= buf + p->pos);
        CHECK(p->argv[i].len <= (size_t)(buf + p->pos - a));
    }
    if (multibulk)
        check_multibulk(p, buf, len, start);
    else
        CHECK(p->argc <= (int)(p->pos - start)); /* inline: each word takes a byte at least */
}

static void record(outcome *o, int status, const request_parser *p) {
    if (o->count == MAX_EVENTS) {
        o->truncated = 1;
        return;
    }
    event *e = &o->ev[o->count++];
    e->status = status;
    e->argc = status == PARSE_COMMAND ? p->argc : 0;
    e->lens = calloc((size_t)e->argc + 1, sizeof(size_t));
    e->bytes = calloc((size_t)e->argc + 1, sizeof(char *));
    for (int i = 0; i < e->argc; i++) {
        e->lens[i] = p->argv[i].len;
        e->bytes[i] = malloc(p->argv[i].len + 1);
        memcpy(e->bytes[i], p->argv[i].ptr, p->argv[i].len);
    }
}

/* Compare the split parse's next event with the whole parse's. */
static void compare(const outcome *want, int index, int status, const request_parser *p) {
    if (index >= want->count) {
        CHECK(want->truncated);
        return;
    }
    const event *e = &want->ev[index];
    CHECK(e->status == status);
    if (status != PARSE_COMMAND) return;
    CHECK(e->argc == p->argc);
    for (int i = 0; i < p->argc; i++) {
        CHECK(e->lens[i] == p->argv[i].len);
        CHECK(memcmp(e->bytes[i], p->argv[i].ptr, p->argv[i].len) == 0);
    }
}

/* ==== The driver: common/net.c's read + process_query_buffer, by hand ==== */

/* The query buffer grows as in net.c (buffer.c doubles it), and the bytes
 * between its length and its capacity are poisoned for AddressSanitizer, so
 * the parser reading one byte past what was received is reported, as a read
 * past the end of an exact-size allocation would be. */
static void slack_poison(buffer *b) {
    if (b->data) ASAN_POISON_MEMORY_REGION(b->data + b->len, b->cap - b->len);
}

static void slack_unpoison(buffer *b) {
    if (b->data) ASAN_UNPOISON_MEMORY_REGION(b->data, b->cap);
}

static void append(buffer *b, const uint8_t *bytes, size_t n) {
    slack_unpoison(b);
    buf_append(b, bytes, n);
    slack_poison(b);
}

typedef struct session {
    buffer query;
    request_parser parser;
    int closed; /* a protocol error was answered: net.c reads no more */
    int events;
    outcome *out;        /* record here (whole parse) ... */
    const outcome *want; /* ... or compare with this (split parse) */
} session;

/* One call of process_query_buffer(), after a read appended bytes. */
static void process_query_buffer(session *s) {
    request_parser *p = &s->parser;
    while (!s->closed) {
        /* Which form the request has, decided before the call: inline
         * words are decoded in place, so afterwards the first byte of an
         * inline request may well be a '*' ('*1' decodes to *1). */
        int multibulk = p->in_multibulk || (p->pos < s->query.len && s->query.data[p->pos] == '*');
        parse_status st = parser_next(p, s->query.data, s->query.len);
        CHECK(p->pos <= s->query.len);
        CHECK(parser_consumed(p) <= s->query.len);
        CHECK(parser_consumed(p) <= p->pos);
        if (st == PARSE_INCOMPLETE) break;
        if (st == PARSE_ERROR) {
            CHECK(strncmp(p->error, "Protocol error: ", 16) == 0);
            CHECK(memchr(p->error, '\0', sizeof(p->error)) != NULL);
            s->closed = 1;
            break;
        }
        if (st == PARSE_COMMAND) {
            /* p->start: where this request began, in this call or in an
             * earlier one that found it incomplete. */
            check_command(p, s->query.data, s->query.len, p->start, multibulk);
        } else {
            CHECK(st == PARSE_NOTHING);
        }
        if (s->out)
            record(s->out, st, p);
        else
            compare(s->want, s->events, st, p);
        s->events++;
    }
    size_t used = parser_consumed(p);
    CHECK(used <= s->query.len);
    slack_unpoison(&s->query);
    buf_consume(&s->query, used);
    parser_shift(p, used);
    buf_shrink_if_idle(&s->query, IDLE_BUFFER_KEEP);
    slack_poison(&s->query);
}

static void finish(session *s, parse_status *final, char *error) {
    *final = s->closed ? PARSE_ERROR : PARSE_INCOMPLETE;
    memcpy(error, s->parser.error, sizeof(s->parser.error));
    parser_free(&s->parser);
    slack_unpoison(&s->query);
    buf_free(&s->query);
}

/* ==== The entry point ==== */

static outcome whole; /* static: large */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    size_t nsplit = data[0] & 15;
    int pad = (data[0] & 0x40) != 0;
    size_t header = 1 + nsplit + (pad ? 4 : 0);
    if (size < header) return 0;
    const uint8_t *splits = data + 1;
    const uint8_t *body = data + header;
    size_t body_len = size - header;

    /* The bytes the client sends, with the filler inserted. */
    uint8_t *bytes = (uint8_t *)body;
    size_t len = body_len;
    if (pad) {
        const uint8_t *pd = data + 1 + nsplit;
        size_t fill = (size_t)pd[1] << (pd[0] % 10);
        size_t at = pd[3] % (body_len + 1);
        len = body_len + fill;
        bytes = malloc(len ? len : 1);
        memcpy(bytes, body, at);
        memset(bytes + at, pd[2], fill);
        memcpy(bytes + at + fill, body + at, body_len - at);
    }

    /* 1. The whole input in one read. */
    session s1 = {0};
    parser_init(&s1.parser);
    whole.count = 0;
    whole.truncated = 0;
    s1.out = &whole;
    if (len > 0) {
        append(&s1.query, bytes, len);
        process_query_buffer(&s1);
    }
    parse_status final1;
    char error1[96];
    finish(&s1, &final1, error1);
    whole.final_status = final1;

    /* 2. The same bytes in the pieces the split bytes describe. */
    session s2 = {0};
    parser_init(&s2.parser);
    s2.want = &whole;
    size_t off = 0, k = 0;
    while (off < len && !s2.closed) {
        size_t chunk = 1;
        if (nsplit > 0) {
            uint8_t b = splits[k++ % nsplit];
            chunk = (size_t)(b & 0x7f) + 1;
            if (b & 0x80) chunk *= 97;
        }
        /* At most ~128 reads per input: a padded 256 KB line read a byte
         * at a time would cost the parser 64 KB of scanning per read (a
         * line is looked at again from its start on each read, as in
         * Redis; bounded by the 64 KB line limit) and the fuzzer minutes. */
        if (chunk < len / 128) chunk = len / 128;
        if (chunk > len - off) chunk = len - off;
        append(&s2.query, bytes + off, chunk);
        off += chunk;
        process_query_buffer(&s2);
    }
    parse_status final2;
    char error2[96];
    finish(&s2, &final2, error2);

    /* Same commands, same ending. */
    if (!whole.truncated) CHECK(s2.events == whole.count);
    CHECK(final1 == final2);
    if (final1 == PARSE_ERROR) CHECK(strcmp(error1, error2) == 0);

    outcome_free(&whole);
    if (bytes != body) free(bytes);
    return 0;
}

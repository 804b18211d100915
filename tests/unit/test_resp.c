/* test_resp.c -- unit tests of the RESP request parser (chapter 01).
 *
 * The parser's promise is that the bytes' arrival pattern does not matter:
 * a stream split at any byte boundary parses exactly as the whole stream.
 * These tests feed streams in every possible split and compare. The second
 * half tests parser_peek_keys(), the look-ahead that must never disturb it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "resp.h"

/* Append the finished command in p to `trace` as "[ECHO|hi]", bytes outside
 * printable ASCII (and the backslash) written as \hh. */
static void trace_command(const request_parser *p, char *trace, size_t cap) {
    strncat(trace, "[", cap - strlen(trace) - 1);
    for (int i = 0; i < p->argc; i++) {
        if (i) strncat(trace, "|", cap - strlen(trace) - 1);
        for (size_t j = 0; j < p->argv[i].len; j++) {
            char c[5];
            unsigned char ch = (unsigned char)p->argv[i].ptr[j];
            if (ch >= 32 && ch < 127 && ch != '\\')
                snprintf(c, sizeof(c), "%c", ch);
            else
                snprintf(c, sizeof(c), "\\%02x", ch);
            strncat(trace, c, cap - strlen(trace) - 1);
        }
    }
    strncat(trace, "]", cap - strlen(trace) - 1);
}

/* Call parser_peek_keys() as net.c does, just before a parser_next(), and
 * check that it wrote to neither the parser nor the buffer: the peek must be
 * invisible to the parse that follows. */
static void peek_and_check_unchanged(const request_parser *p, const buffer *b) {
    request_parser before = *p;
    char *bytes = malloc(b->len + 1);
    if (b->len) memcpy(bytes, b->data, b->len); /* an empty buffer has no data yet */
    arg keys[8];
    parser_peek_keys(p, b->data, b->len, keys, 8);
    ck_assert_msg(memcmp(&before, p, sizeof(before)) == 0, "peek changed the parser");
    ck_assert_msg(b->len == 0 || memcmp(bytes, b->data, b->len) == 0, "peek changed the buffer");
    free(bytes);
}

/* Parse everything in `input`, delivered in two pieces split at `split`, and
 * append a readable trace of the commands and errors to `trace`:
 * "[ECHO|hi]" per command, "!message" for an error. Drives the parser as
 * the server does: parse what is there, consume what was used, read more.
 * With `peek` set, parser_peek_keys() runs before every parser_next(). */
static void parse_split(const char *input, size_t len, size_t split, int peek, char *trace,
                        size_t cap) {
    request_parser p;
    parser_init(&p);
    buffer b;
    buf_init(&b);
    trace[0] = '\0';
    size_t fed = 0;
    size_t pieces[2] = {split, len - split};
    for (int piece = 0; piece < 2; piece++) {
        buf_append(&b, input + fed, pieces[piece]);
        fed += pieces[piece];
        for (;;) {
            if (peek) peek_and_check_unchanged(&p, &b);
            parse_status st = parser_next(&p, b.data, b.len);
            if (st == PARSE_INCOMPLETE) break;
            if (st == PARSE_NOTHING) continue;
            if (st == PARSE_ERROR) {
                strncat(trace, "!", cap - strlen(trace) - 1);
                strncat(trace, p.error, cap - strlen(trace) - 1);
                goto done;
            }
            trace_command(&p, trace, cap);
        }
        size_t used = parser_consumed(&p);
        buf_consume(&b, used);
        parser_shift(&p, used);
    }
done:
    buf_free(&b);
    parser_free(&p);
}

/* Assert that every split of input gives the expected trace. */
static void check_all_splits(const char *input, size_t len, const char *expected) {
    char trace[4096];
    for (size_t split = 0; split <= len; split++) {
        parse_split(input, len, split, 0, trace, sizeof(trace));
        ck_assert_msg(strcmp(trace, expected) == 0, "split at %zu: got %s, want %s", split, trace,
                      expected);
    }
}

#define CHECK_ALL_SPLITS(lit, expected) check_all_splits(lit, sizeof(lit) - 1, expected)

START_TEST(pipelined_stream_every_split) {
    CHECK_ALL_SPLITS("*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\nPING\r\n*1\r\n$4\r\nPING\r\n"
                     "ECHO \"a b\"\n*0\r\n\r\n*3\r\n$3\r\nSET\r\n$0\r\n\r\n$1\r\nv\r\n",
                     "[ECHO|hello][PING][PING][ECHO|a b][SET||v]");
}
END_TEST

START_TEST(binary_bulk_with_crlf_and_nul) {
    CHECK_ALL_SPLITS("*2\r\n$4\r\nECHO\r\n$6\r\n\r\n\0a\r\n\r\n", "[ECHO|\\0d\\0a\\00a\\0d\\0a]");
}
END_TEST

START_TEST(inline_quoting_rules) {
    CHECK_ALL_SPLITS("ECHO \"\\x41\\n\\t\\q\" 'it\\'s' ab\"c d\" \"\"\r\n",
                     "[ECHO|A\\0a\\09q|it's|abc d|]");
    /* A NUL ends the line, as in Redis's C-string splitting. */
    CHECK_ALL_SPLITS("ECHO a\0b\r\nPING\r\n", "[ECHO|a][PING]");
}
END_TEST

START_TEST(every_protocol_error) {
    CHECK_ALL_SPLITS("*3000000000\r\n", "!Protocol error: invalid multibulk length");
    CHECK_ALL_SPLITS("*-0\r\n", "!Protocol error: invalid multibulk length");
    CHECK_ALL_SPLITS("*01\r\n", "!Protocol error: invalid multibulk length");
    CHECK_ALL_SPLITS("*1\r\nx\r\n", "!Protocol error: expected '$', got 'x'");
    CHECK_ALL_SPLITS("*1\r\n$-10\r\n", "!Protocol error: invalid bulk length");
    CHECK_ALL_SPLITS("*1\r\n$536870913\r\n", "!Protocol error: invalid bulk length");
    CHECK_ALL_SPLITS("*1\r\n$blabla\r\n", "!Protocol error: invalid bulk length");
    CHECK_ALL_SPLITS("PING\r\nECHO \"abc\r\n",
                     "[PING]!Protocol error: unbalanced quotes in request");
    CHECK_ALL_SPLITS("ECHO 'a'b\r\n", "!Protocol error: unbalanced quotes in request");
}
END_TEST

START_TEST(length_limits) {
    char trace[256];
    size_t n = PROTO_INLINE_MAX_SIZE + 10;
    char *big = malloc(n + 16);
    memset(big, 'a', n);
    parse_split(big, n, n / 2, 0, trace, sizeof(trace));
    ck_assert_str_eq(trace, "!Protocol error: too big inline request");
    big[0] = '*';
    memset(big + 1, '1', n - 1);
    parse_split(big, n, 1, 0, trace, sizeof(trace));
    ck_assert_str_eq(trace, "!Protocol error: too big mbulk count string");
    memcpy(big, "*1\r\n$", 5);
    parse_split(big, n, 7, 0, trace, sizeof(trace));
    ck_assert_str_eq(trace, "!Protocol error: too big bulk count string");
    /* Exactly 512 MB is allowed as a length: the header parses, and the
     * parser waits for the payload without allocating it. */
    const char *max = "*1\r\n$536870912\r\nabc";
    parse_split(max, strlen(max), 3, 0, trace, sizeof(trace));
    ck_assert_str_eq(trace, "");
    free(big);
}
END_TEST

START_TEST(huge_declared_count_allocates_nothing_up_front) {
    request_parser p;
    parser_init(&p);
    char req[] = "*2147483647\r\n$4\r\nPING\r\n";
    ck_assert_int_eq(parser_next(&p, req, sizeof(req) - 1), PARSE_INCOMPLETE);
    ck_assert_int_eq(p.argc, 1);
    ck_assert_int_le(p.cap, 8);
    parser_free(&p);
}
END_TEST

START_TEST(arguments_point_into_the_buffer) {
    request_parser p;
    parser_init(&p);
    char req[] = "*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\n";
    ck_assert_int_eq(parser_next(&p, req, sizeof(req) - 1), PARSE_COMMAND);
    ck_assert_ptr_eq(p.argv[1].ptr, req + 18);
    ck_assert_uint_eq(parser_consumed(&p), sizeof(req) - 1);
    parser_free(&p);
}
END_TEST

/* ==== parser_peek_keys(): the look-ahead for prefetching ====
 *
 * net.c peeks at the keys of the requests waiting in a client's buffer so it
 * can prefetch their buckets before running any of them. A peek that returns
 * a wrong pointer prefetches the wrong bucket (slow, not wrong), but a peek
 * that reads past the buffer, counts a request that has not fully arrived,
 * or disturbs the parser breaks the server. The tests build their streams
 * with a helper that records where each key lands, so the expected answers
 * do not come from a parser. */

#define STREAM_MAX_REQUESTS 8

/* A stream of requests and, for each, where its argv[1] is and where it ends. */
typedef struct stream {
    char bytes[512];                     /* the requests, back to back */
    size_t len;                          /* bytes used */
    int requests;                        /* requests appended */
    size_t key_off[STREAM_MAX_REQUESTS]; /* offset of argv[1], for multibulk requests */
    size_t key_len[STREAM_MAX_REQUESTS]; /* its length in bytes */
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
 * argument), recording where its argv[1] lands. */
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
        if (i == 1) {
            s->key_off[s->requests] = s->len;
            s->key_len[s->requests] = n;
        }
        room = sizeof(s->bytes) - s->len;
        s->len += (size_t)snprintf(s->bytes + s->len, room, "%s\r\n", argv[i]);
    }
    ck_assert_uint_lt(s->len, sizeof(s->bytes) - 1); /* nothing was truncated */
    s->end[s->requests++] = s->len;
}

/* GET a, SET bb v, GET ccc: the pipeline most of the peek tests use. */
static void three_request_stream(stream *s) {
    memset(s, 0, sizeof(*s));
    stream_add(s, (const char *[]){"GET", "a", NULL});
    stream_add(s, (const char *[]){"SET", "bb", "v", NULL});
    stream_add(s, (const char *[]){"GET", "ccc", NULL});
}

/* The key peeked out of `base` (the stream's bytes or a copy of them) must be
 * request r's argv[1]: the same bytes in place, not a copy, and its length. */
static void assert_key(const stream *s, const char *base, const arg *key, int r) {
    ck_assert_ptr_eq(key->ptr, base + s->key_off[r]);
    ck_assert_uint_eq(key->len, s->key_len[r]);
}

/* Each request's argv[1], in order, pointing into the buffer; at most max
 * of them. */
START_TEST(peek_keys_of_a_pipeline) {
    stream s;
    three_request_stream(&s);
    request_parser p;
    parser_init(&p);
    arg keys[STREAM_MAX_REQUESTS];
    ck_assert_int_eq(parser_peek_keys(&p, s.bytes, s.len, keys, STREAM_MAX_REQUESTS), 3);
    for (int r = 0; r < 3; r++)
        assert_key(&s, s.bytes, &keys[r], r);
    ck_assert_int_eq(memcmp(keys[2].ptr, "ccc", 3), 0);

    /* max caps the count, and no slot at or past max is written. */
    for (int max = 0; max <= 2; max++) {
        const arg untouched = {"sentinel", 8};
        for (int i = 0; i < STREAM_MAX_REQUESTS; i++)
            keys[i] = untouched;
        ck_assert_int_eq(parser_peek_keys(&p, s.bytes, s.len, keys, max), max);
        for (int r = 0; r < max; r++)
            assert_key(&s, s.bytes, &keys[r], r);
        ck_assert_ptr_eq(keys[max].ptr, untouched.ptr);
        ck_assert_uint_eq(keys[max].len, untouched.len);
    }
    parser_free(&p);
}
END_TEST

/* The peek starts at p->pos: the requests parser_next() has already handed
 * out are not announced again. */
START_TEST(peek_keys_start_at_parser_position) {
    stream s;
    three_request_stream(&s);
    request_parser p;
    parser_init(&p);
    arg keys[STREAM_MAX_REQUESTS];
    for (int done = 0; done < 3; done++) {
        ck_assert_int_eq(parser_peek_keys(&p, s.bytes, s.len, keys, STREAM_MAX_REQUESTS), 3 - done);
        for (int r = done; r < 3; r++)
            assert_key(&s, s.bytes, &keys[r - done], r);
        ck_assert_int_eq(parser_next(&p, s.bytes, s.len), PARSE_COMMAND);
        ck_assert_uint_eq(p.pos, s.end[done]);
    }
    ck_assert_int_eq(parser_peek_keys(&p, s.bytes, s.len, keys, STREAM_MAX_REQUESTS), 0);
    parser_free(&p);
}
END_TEST

/* The stream cut at every byte, which cuts the last request at every point
 * of it (and the earlier ones too): the requests wholly before the cut are
 * peeked, none after it. Each cut is copied into a block of exactly that
 * size, so a read past the end shows up under valgrind and ASan. */
START_TEST(peek_keys_stop_at_an_incomplete_request) {
    stream s;
    three_request_stream(&s);
    request_parser p;
    parser_init(&p);
    for (size_t cut = 0; cut <= s.len; cut++) {
        char *copy = malloc(cut ? cut : 1);
        memcpy(copy, s.bytes, cut);
        int complete = 0;
        while (complete < s.requests && s.end[complete] <= cut)
            complete++;
        arg keys[STREAM_MAX_REQUESTS];
        int n = parser_peek_keys(&p, copy, cut, keys, STREAM_MAX_REQUESTS);
        ck_assert_msg(n == complete, "cut at %zu: %d keys, want %d", cut, n, complete);
        for (int r = 0; r < n; r++) {
            assert_key(&s, copy, &keys[r], r);
            ck_assert_uint_le((size_t)(keys[r].ptr - copy) + keys[r].len, cut);
        }
        free(copy);
    }
    parser_free(&p);
}
END_TEST

/* A request of one argument has no key: it is passed over, and the peek
 * goes on to the requests after it. */
START_TEST(peek_keys_skip_one_argument_requests) {
    stream s = {0};
    stream_add(&s, (const char *[]){"PING", NULL});
    stream_add(&s, (const char *[]){"GET", "a", NULL});
    stream_add(&s, (const char *[]){"PING", NULL});
    stream_add(&s, (const char *[]){"GET", "ccc", NULL});
    request_parser p;
    parser_init(&p);
    arg keys[STREAM_MAX_REQUESTS];
    ck_assert_int_eq(parser_peek_keys(&p, s.bytes, s.len, keys, STREAM_MAX_REQUESTS), 2);
    assert_key(&s, s.bytes, &keys[0], 1);
    assert_key(&s, s.bytes, &keys[1], 3);
    parser_free(&p);
}
END_TEST

/* The peek only reads the usual multibulk shape and stops at anything else:
 * an inline request, or an empty argument ($0, which its fast path does
 * not read). What it found before that still comes back. */
START_TEST(peek_keys_stop_at_inline_and_empty_arguments) {
    request_parser p;
    parser_init(&p);
    arg keys[STREAM_MAX_REQUESTS];

    stream s = {0};
    stream_add(&s, (const char *[]){"GET", "a", NULL});
    stream_add_raw(&s, "PING\r\n");
    stream_add(&s, (const char *[]){"GET", "ccc", NULL});
    ck_assert_int_eq(parser_peek_keys(&p, s.bytes, s.len, keys, STREAM_MAX_REQUESTS), 1);
    assert_key(&s, s.bytes, &keys[0], 0);

    memset(&s, 0, sizeof(s));
    stream_add_raw(&s, "GET a\r\n");
    stream_add(&s, (const char *[]){"GET", "ccc", NULL});
    ck_assert_int_eq(parser_peek_keys(&p, s.bytes, s.len, keys, STREAM_MAX_REQUESTS), 0);

    memset(&s, 0, sizeof(s));
    stream_add(&s, (const char *[]){"GET", "a", NULL});
    stream_add(&s, (const char *[]){"SET", "bb", "", NULL});
    stream_add(&s, (const char *[]){"GET", "ccc", NULL});
    ck_assert_int_eq(parser_peek_keys(&p, s.bytes, s.len, keys, STREAM_MAX_REQUESTS), 1);
    assert_key(&s, s.bytes, &keys[0], 0);
    parser_free(&p);
}
END_TEST

/* While parser_next() is in the middle of a request (p->in_multibulk), p->pos
 * points inside it, where no request starts: the peek must return nothing
 * rather than misread the rest. The first request's argument is itself the
 * bytes of a request, so a peek that started at p->pos while the parser
 * waits for that payload would find a "GET z" that nobody sent. Tried with
 * the first request cut at every byte; a cut before the *N line is complete
 * leaves the parser at the start, and then the whole stream is peeked. */
START_TEST(peek_keys_wait_for_a_half_parsed_request) {
    stream s = {0};
    stream_add(&s, (const char *[]){"ECHO", "*2\r\n$3\r\nGET\r\n$1\r\nz", NULL});
    stream_add(&s, (const char *[]){"SET", "bb", "v", NULL});
    stream_add(&s, (const char *[]){"GET", "ccc", NULL});
    arg keys[STREAM_MAX_REQUESTS];
    int half_parsed = 0, waiting_on_lookalike = 0;
    for (size_t cut = 1; cut < s.end[0]; cut++) {
        request_parser p;
        parser_init(&p);
        ck_assert_int_eq(parser_next(&p, s.bytes, cut), PARSE_INCOMPLETE);
        int want = p.in_multibulk ? 0 : 3;
        half_parsed += p.in_multibulk;
        waiting_on_lookalike += p.in_multibulk && p.pos == s.key_off[0];
        ck_assert_msg(parser_peek_keys(&p, s.bytes, s.len, keys, STREAM_MAX_REQUESTS) == want,
                      "cut at %zu", cut);
        /* Once the request is finished, the peek sees the two after it. */
        ck_assert_int_eq(parser_next(&p, s.bytes, s.len), PARSE_COMMAND);
        ck_assert_int_eq(p.in_multibulk, 0);
        ck_assert_int_eq(parser_peek_keys(&p, s.bytes, s.len, keys, STREAM_MAX_REQUESTS), 2);
        assert_key(&s, s.bytes, &keys[0], 1);
        assert_key(&s, s.bytes, &keys[1], 2);
        parser_free(&p);
    }
    /* The cases the test is about did occur. */
    ck_assert_int_gt(half_parsed, 0);
    ck_assert_int_gt(waiting_on_lookalike, 0);
}
END_TEST

/* Peeking before every parser_next() changes nothing: the parser's state and
 * the buffer are byte for byte the same after each peek, and every split of
 * a mixed stream (multibulk, inline, *0, empty arguments, a key holding CR
 * LF, an incomplete tail) gives the same commands as without peeking. */
START_TEST(peek_keys_change_nothing) {
    static const char input[] = "*2\r\n$3\r\nGET\r\n$1\r\na\r\nPING\r\n*3\r\n$3\r\nSET\r\n"
                                "$4\r\nb\r\nb\r\n$1\r\nv\r\n*0\r\n\r\n*1\r\n$4\r\nPING\r\n"
                                "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$1\r\nv\r\n"
                                "*2\r\n$3\r\nGET\r\n$3\r\nccc\r\n*2\r\n$3\r\nGET\r\n$2\r\ndd";
    const size_t len = sizeof(input) - 1;
    char plain[1024], peeked[1024];
    for (size_t split = 0; split <= len; split++) {
        parse_split(input, len, split, 0, plain, sizeof(plain));
        parse_split(input, len, split, 1, peeked, sizeof(peeked));
        ck_assert_msg(strcmp(plain, peeked) == 0, "split at %zu: %s with peeks, %s without", split,
                      peeked, plain);
    }
    ck_assert_str_eq(plain, "[GET|a][PING][SET|b\\0d\\0ab|v][PING][SET||v][GET|ccc]");
}
END_TEST

Suite *resp_suite(void) {
    Suite *s = suite_create("resp");
    TCase *tc = tcase_create("parser");
    tcase_add_test(tc, pipelined_stream_every_split);
    tcase_add_test(tc, binary_bulk_with_crlf_and_nul);
    tcase_add_test(tc, inline_quoting_rules);
    tcase_add_test(tc, every_protocol_error);
    tcase_add_test(tc, length_limits);
    tcase_add_test(tc, huge_declared_count_allocates_nothing_up_front);
    tcase_add_test(tc, arguments_point_into_the_buffer);
    suite_add_tcase(s, tc);

    TCase *peek = tcase_create("peek keys");
    tcase_add_test(peek, peek_keys_of_a_pipeline);
    tcase_add_test(peek, peek_keys_start_at_parser_position);
    tcase_add_test(peek, peek_keys_stop_at_an_incomplete_request);
    tcase_add_test(peek, peek_keys_skip_one_argument_requests);
    tcase_add_test(peek, peek_keys_stop_at_inline_and_empty_arguments);
    tcase_add_test(peek, peek_keys_wait_for_a_half_parsed_request);
    tcase_add_test(peek, peek_keys_change_nothing);
    suite_add_tcase(s, peek);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(resp_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

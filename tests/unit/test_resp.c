/* test_resp.c -- unit tests of the RESP request parser (chapter 01).
 *
 * The parser's promise is that the bytes' arrival pattern does not matter:
 * a stream split at any byte boundary parses exactly as the whole stream.
 * These tests feed streams in every possible split and compare. (Chapter
 * 12's look-ahead, which runs this parser ahead over a client's bytes, is
 * tested in tests/12-fast-path/unit_fastpath.c.) */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "resp.h"
#include "../helpers/resp_trace.h"

/* Parse everything in `input`, delivered in two pieces split at `split`, and
 * append a readable trace of the commands and errors to `trace`:
 * "[ECHO|hi]" per command, "!message" for the protocol error that ends
 * parsing (the "!" tells an error from a command's arguments). Drives the
 * parser as the server does: parse what is there, consume what was used,
 * read more. */
static void parse_split(const char *input, size_t len, size_t split, char *trace, size_t cap) {
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

/* `input` with every byte outside printable ASCII (and the backslash)
 * written as \xHH, as the traces write them. */
static void show_bytes(const char *input, size_t len, char *out, size_t cap) {
    out[0] = '\0';
    for (size_t i = 0; i < len; i++) {
        char c[5];
        unsigned char ch = (unsigned char)input[i];
        if (ch >= 32 && ch < 127 && ch != '\\')
            snprintf(c, sizeof(c), "%c", ch);
        else
            snprintf(c, sizeof(c), "\\x%02x", ch);
        strncat(out, c, cap - strlen(out) - 1);
    }
}

/* Printed under a failure, so that the traces need no explaining elsewhere. */
#define TRACE_LEGEND                                                                               \
    "            (the parser's output, as a trace: [ARG|ARG] for each command,\n"                  \
    "             ! before the text of the protocol error that ended parsing, nothing for none)"

/* Does every split of input give the expected trace? If not, write what was
 * sent, expected and received to `why`. */
static int all_splits_give(const char *input, size_t len, const char *expected, char *why,
                           size_t cap) {
    char trace[4096], sent[2048];
    for (size_t split = 0; split <= len; split++) {
        parse_split(input, len, split, trace, sizeof(trace));
        if (strcmp(trace, expected) == 0) continue;
        show_bytes(input, len, sent, sizeof(sent));
        snprintf(why, cap,
                 "\n  sent:     %s\n            (in two reads, split after byte %zu)"
                 "\n  expected: %s\n  received: %s\n%s",
                 sent, split, expected, trace, TRACE_LEGEND);
        return 0;
    }
    return 1;
}

/* CHECK_TRACE(trace, expected): the trace of one parse is the expected one. */
#define CHECK_TRACE(trace, expected)                                                               \
    ck_assert_msg(strcmp(trace, expected) == 0, "\n  expected: %s\n  received: %s\n%s", expected,  \
                  trace, TRACE_LEGEND)

/* A macro, so that a failure names the line of the check, not of the helper. */
#define CHECK_ALL_SPLITS(lit, expected)                                                            \
    do {                                                                                           \
        char why_[8192];                                                                           \
        ck_assert_msg(all_splits_give(lit, sizeof(lit) - 1, expected, why_, sizeof(why_)), "%s",   \
                      why_);                                                                       \
    } while (0)

START_TEST(pipelined_stream_every_split) {
    CHECK_ALL_SPLITS("*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\nPING\r\n*1\r\n$4\r\nPING\r\n"
                     "ECHO \"a b\"\n*0\r\n\r\n*3\r\n$3\r\nSET\r\n$0\r\n\r\n$1\r\nv\r\n",
                     "[ECHO|hello][PING][PING][ECHO|a b][SET||v]");
    /* Multibulk, inline, *0, a blank line, empty arguments, a key holding
     * CR LF, and an incomplete request at the end, which gives nothing. */
    CHECK_ALL_SPLITS("*2\r\n$3\r\nGET\r\n$1\r\na\r\nPING\r\n*3\r\n$3\r\nSET\r\n"
                     "$4\r\nb\r\nb\r\n$1\r\nv\r\n*0\r\n\r\n*1\r\n$4\r\nPING\r\n"
                     "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$1\r\nv\r\n"
                     "*2\r\n$3\r\nGET\r\n$3\r\nccc\r\n*2\r\n$3\r\nGET\r\n$2\r\ndd",
                     "[GET|a][PING][SET|b\\x0d\\x0ab|v][PING][SET||v][GET|ccc]");
}
END_TEST

START_TEST(binary_bulk_with_crlf_and_nul) {
    CHECK_ALL_SPLITS("*2\r\n$4\r\nECHO\r\n$6\r\n\r\n\0a\r\n\r\n",
                     "[ECHO|\\x0d\\x0a\\x00a\\x0d\\x0a]");
}
END_TEST

START_TEST(inline_quoting_rules) {
    CHECK_ALL_SPLITS("ECHO \"\\x41\\n\\t\\q\" 'it\\'s' ab\"c d\" \"\"\r\n",
                     "[ECHO|A\\x0a\\x09q|it's|abc d|]");
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
    parse_split(big, n, n / 2, trace, sizeof(trace));
    CHECK_TRACE(trace, "!Protocol error: too big inline request");
    big[0] = '*';
    memset(big + 1, '1', n - 1);
    parse_split(big, n, 1, trace, sizeof(trace));
    CHECK_TRACE(trace, "!Protocol error: too big mbulk count string");
    memcpy(big, "*1\r\n$", 5);
    parse_split(big, n, 7, trace, sizeof(trace));
    CHECK_TRACE(trace, "!Protocol error: too big bulk count string");
    /* Exactly 512 MB is allowed as a length: the header parses, and the
     * parser waits for the payload without allocating it. */
    const char *max = "*1\r\n$536870912\r\nabc";
    parse_split(max, strlen(max), 3, trace, sizeof(trace));
    CHECK_TRACE(trace, "");
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
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(resp_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

/* unit_resp_rewind.c -- unit tests of what chapter 12 adds to the parser
 * (steps/12-fast-path/resp.c, its own copy of common/resp.c):
 * parser_next_is_multibulk() and parser_rewind(), and the two properties of
 * parser_next() that resp.h promises for a second parse: a multibulk parse
 * only reads the buffer, an inline parse decodes its words in place. The
 * look-ahead (unit_fastpath.c) relies on each of them. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "resp.h"

#define GET_A "*2\r\n$3\r\nGET\r\n$1\r\na\r\n"
#define SET_B "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$2\r\nvv\r\n"

/* The parser's command, as "GET|a", into out. */
static const char *joined(const request_parser *p, char *out, size_t cap) {
    size_t o = 0;
    for (int i = 0; i < p->argc && o + p->argv[i].len + 2 < cap; i++) {
        if (i) out[o++] = '|';
        memcpy(out + o, p->argv[i].ptr, p->argv[i].len);
        o += p->argv[i].len;
    }
    out[o] = '\0';
    return out;
}

/* Parse the next request of buf, expecting status want and, for a
 * command, the arguments cmd ("GET|a"). */
static void expect_parse(request_parser *p, char *buf, size_t len, parse_status want,
                         const char *cmd, const char *what) {
    parse_status st = parser_next(p, buf, len);
    ck_assert_msg(st == want, "%s: parser_next() returned %d, expected %d", what, st, want);
    if (cmd) {
        char got[128];
        ck_assert_msg(strcmp(joined(p, got, sizeof(got)), cmd) == 0,
                      "%s: parsed [%s], expected [%s]", what, got, cmd);
    }
}

START_TEST(a_multibulk_parse_only_reads_the_buffer) {
    char buf[] = GET_A SET_B;
    char copy[sizeof(buf)];
    memcpy(copy, buf, sizeof(buf));
    request_parser p;
    parser_init(&p);
    expect_parse(&p, buf, strlen(buf), PARSE_COMMAND, "GET|a", "the first request");
    expect_parse(&p, buf, strlen(buf), PARSE_COMMAND, "SET|b|vv", "the second request");
    ck_assert_msg(memcmp(buf, copy, sizeof(buf)) == 0,
                  "two multibulk parses changed the buffer's bytes");
    parser_free(&p);
}
END_TEST

START_TEST(an_inline_parse_decodes_in_place) {
    char buf[] = "SET k \"x\\x41\"\r\n";
    request_parser p;
    parser_init(&p);
    expect_parse(&p, buf, strlen(buf), PARSE_COMMAND, "SET|k|xA", "an inline SET with an escape");
    ck_assert_msg(p.argv[2].ptr >= buf && p.argv[2].ptr < buf + sizeof(buf),
                  "the decoded word is not in the buffer it came from");
    ck_assert_msg(memcmp(buf + 6, "xA", 2) == 0,
                  "expected the decoded word over its bytes, got [%.2s]", buf + 6);
    parser_free(&p);
}
END_TEST

START_TEST(next_is_multibulk_tells_the_forms_apart) {
    request_parser p;
    parser_init(&p);
    char empty[] = "";
    ck_assert_msg(parser_next_is_multibulk(&p, empty, 0) == 0, "no byte yet: expected 0");
    char inl[] = "PING\r\n";
    ck_assert_msg(parser_next_is_multibulk(&p, inl, strlen(inl)) == 0,
                  "an inline PING: expected 0");
    char mb[] = GET_A;
    ck_assert_msg(parser_next_is_multibulk(&p, mb, strlen(mb)) == 1, "a multibulk GET: expected 1");
    /* Inside a request whose count line has been parsed: the next byte is
     * '$', and the request is still a multibulk one. */
    expect_parse(&p, mb, 12, PARSE_INCOMPLETE, NULL, "GET cut after its name");
    ck_assert_msg(parser_next_is_multibulk(&p, mb, 12) == 1,
                  "inside a multibulk request: expected 1");
    parser_free(&p);
}
END_TEST

START_TEST(rewind_parses_the_same_command_again) {
    char buf[] = GET_A SET_B "*2\r\n$3\r\nGET";
    size_t len = strlen(buf);
    request_parser p;
    parser_init(&p);
    expect_parse(&p, buf, len, PARSE_COMMAND, "GET|a", "the first request");
    size_t first = p.start;
    expect_parse(&p, buf, len, PARSE_COMMAND, "SET|b|vv", "the second request");
    size_t second = p.start;
    ck_assert_msg(first == 0 && second == strlen(GET_A),
                  "p->start: expected 0 and %zu, got %zu and %zu", strlen(GET_A), first, second);
    expect_parse(&p, buf, len, PARSE_INCOMPLETE, NULL, "the third request, cut");
    /* Back to the second, from inside the third: both parse again. */
    parser_rewind(&p, second);
    ck_assert_msg(parser_consumed(&p) == second,
                  "parser_consumed() after the rewind: expected %zu, got %zu", second,
                  parser_consumed(&p));
    expect_parse(&p, buf, len, PARSE_COMMAND, "SET|b|vv", "the second request, rewound to");
    expect_parse(&p, buf, len, PARSE_INCOMPLETE, NULL, "the third request, cut, again");
    parser_rewind(&p, first);
    expect_parse(&p, buf, len, PARSE_COMMAND, "GET|a", "the first request, rewound to");
    parser_free(&p);
}
END_TEST

START_TEST(rewind_after_an_error_finds_the_same_error) {
    char buf[] = GET_A "*1\r\n$x\r\n";
    size_t len = strlen(buf);
    request_parser p;
    parser_init(&p);
    expect_parse(&p, buf, len, PARSE_COMMAND, "GET|a", "the request before the error");
    expect_parse(&p, buf, len, PARSE_ERROR, NULL, "a bad bulk length");
    char first[sizeof(p.error)];
    memcpy(first, p.error, sizeof(first));
    ck_assert_msg(p.start == strlen(GET_A), "p->start on the error: expected %zu, got %zu",
                  strlen(GET_A), p.start);
    parser_rewind(&p, p.start);
    expect_parse(&p, buf, len, PARSE_ERROR, NULL, "the bad bulk length, rewound to");
    ck_assert_msg(strcmp(p.error, first) == 0, "error after the rewind: expected [%s], got [%s]",
                  first, p.error);
    parser_free(&p);
}
END_TEST

int main(void) {
    Suite *s = suite_create("12-fast-path: the parser's rewind");
    TCase *tc = tcase_create("rewind");
    tcase_add_test(tc, a_multibulk_parse_only_reads_the_buffer);
    tcase_add_test(tc, an_inline_parse_decodes_in_place);
    tcase_add_test(tc, next_is_multibulk_tells_the_forms_apart);
    tcase_add_test(tc, rewind_parses_the_same_command_again);
    tcase_add_test(tc, rewind_after_an_error_finds_the_same_error);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

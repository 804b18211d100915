/* test_reply.c -- unit tests of the reply writers, common/reply.c (chapter 01).
 *
 * Each test calls writers on a client that has no socket and compares the
 * bytes they appended to its output buffer with the bytes Redis sends, in
 * both protocol versions. Nothing here needs the event loop or the network
 * layer, so this passes as soon as reply.c is right. A failure says which
 * call was made, and shows both byte strings with \r, \n and other unprintable
 * bytes written out. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "reply.h"

/* A client as the writers see it: an output buffer and a protocol version. */
static client make_client(int proto) {
    client c;
    memset(&c, 0, sizeof(c));
    c.fd = -1;
    c.proto = proto;
    buf_init(&c.out);
    return c;
}

/* bytes in double quotes, with \ " CR LF TAB written out and any other byte
 * outside printable ASCII as \xHH: as the black-box checks show replies. */
static void show(const char *bytes, size_t len, char *out, size_t cap) {
    size_t n = 0;
    n += (size_t)snprintf(out + n, cap - n, "\"");
    for (size_t i = 0; i < len && n + 6 < cap; i++) {
        unsigned char ch = (unsigned char)bytes[i];
        if (ch == '\r')
            n += (size_t)snprintf(out + n, cap - n, "\\r");
        else if (ch == '\n')
            n += (size_t)snprintf(out + n, cap - n, "\\n");
        else if (ch == '\t')
            n += (size_t)snprintf(out + n, cap - n, "\\t");
        else if (ch == '\\' || ch == '"')
            n += (size_t)snprintf(out + n, cap - n, "\\%c", ch);
        else if (ch >= 32 && ch < 127)
            n += (size_t)snprintf(out + n, cap - n, "%c", ch);
        else
            n += (size_t)snprintf(out + n, cap - n, "\\x%02x", ch);
    }
    snprintf(out + n, cap - n, "\"");
}

/* Does c's output buffer hold exactly `expected`? If not, say so, naming
 * the call. Either way, empty the buffer for the next call. */
static int output_is(client *c, const char *call, const char *expected, size_t expected_len,
                     char *why, size_t cap) {
    int same = c->out.len == expected_len &&
               (expected_len == 0 || memcmp(c->out.data, expected, expected_len) == 0);
    if (!same) {
        char want[1024], got[1024];
        show(expected, expected_len, want, sizeof(want));
        show(c->out.data ? c->out.data : "", c->out.len, got, sizeof(got));
        snprintf(why, cap, "\n  called:   %s (RESP%d)\n  expected: %s\n  received: %s", call,
                 c->proto, want, got);
    }
    buf_free(&c->out);
    return same;
}

/* EXPECT_REPLY(c, call, "bytes"): run the call (a statement using c), then
 * require exactly those bytes, NULs included, in c's output. A macro, so
 * that a failure names the line of the check and the call as written. */
#define EXPECT_REPLY(c, call, lit)                                                                 \
    do {                                                                                           \
        char why_[4096];                                                                           \
        call;                                                                                      \
        ck_assert_msg(output_is(&(c), #call, lit, sizeof(lit) - 1, why_, sizeof(why_)), "%s",      \
                      why_);                                                                       \
    } while (0)

START_TEST(status_and_integer_replies) {
    client c = make_client(2);
    EXPECT_REPLY(c, reply_ok(&c), "+OK\r\n");
    EXPECT_REPLY(c, reply_integer(&c, 0), ":0\r\n");
    EXPECT_REPLY(c, reply_integer(&c, 42), ":42\r\n");
    EXPECT_REPLY(c, reply_integer(&c, -1), ":-1\r\n");
    EXPECT_REPLY(c, reply_integer(&c, LLONG_MAX), ":9223372036854775807\r\n");
    EXPECT_REPLY(c, reply_integer(&c, LLONG_MIN), ":-9223372036854775808\r\n");
}
END_TEST

START_TEST(bulk_strings_count_bytes_and_end_with_crlf) {
    client c = make_client(2);
    EXPECT_REPLY(c, reply_bulk(&c, "hello", 5), "$5\r\nhello\r\n");
    EXPECT_REPLY(c, reply_bulk(&c, "", 0), "$0\r\n\r\n");
    /* Binary safe: CR, LF and NUL inside the value are counted, not looked
     * for. */
    EXPECT_REPLY(c, reply_bulk(&c, "a\r\n\0b", 5), "$5\r\na\r\n\0b\r\n");
    EXPECT_REPLY(c, reply_bulk_cstr(&c, "hello world"), "$11\r\nhello world\r\n");
    /* Replies pile up in order in the one buffer: pipelining. */
    EXPECT_REPLY(c, (reply_bulk(&c, "a", 1), reply_ok(&c)), "$1\r\na\r\n+OK\r\n");
}
END_TEST

START_TEST(errors_are_one_line) {
    client c = make_client(2);
    EXPECT_REPLY(c, reply_error(&c, "bad thing"), "-ERR bad thing\r\n");
    /* A message that starts with '-' brings its own error code. */
    EXPECT_REPLY(c, reply_error(&c, "-WRONGTYPE Operation"), "-WRONGTYPE Operation\r\n");
    /* CR and LF in a message (quoting a client's bytes) become spaces. */
    EXPECT_REPLY(c, reply_error(&c, "a\r\nb"), "-ERR a  b\r\n");
    EXPECT_REPLY(c, reply_errorf(&c, "%s %d", "n =", 7), "-ERR n = 7\r\n");
}
END_TEST

START_TEST(null_and_aggregates_in_resp2_and_resp3) {
    client c2 = make_client(2);
    EXPECT_REPLY(c2, reply_null(&c2), "$-1\r\n");
    EXPECT_REPLY(c2, reply_null_array(&c2), "*-1\r\n");
    EXPECT_REPLY(c2, reply_array(&c2, 3), "*3\r\n");
    EXPECT_REPLY(c2, reply_array(&c2, 0), "*0\r\n");
    EXPECT_REPLY(c2, reply_map(&c2, 2), "*4\r\n");
    EXPECT_REPLY(c2, reply_verbatim(&c2, "a:1\r\n", 5), "$5\r\na:1\r\n\r\n");
    client c3 = make_client(3);
    EXPECT_REPLY(c3, reply_null(&c3), "_\r\n");
    EXPECT_REPLY(c3, reply_null_array(&c3), "_\r\n");
    EXPECT_REPLY(c3, reply_array(&c3, 3), "*3\r\n");
    EXPECT_REPLY(c3, reply_map(&c3, 2), "%2\r\n");
    EXPECT_REPLY(c3, reply_verbatim(&c3, "a:1\r\n", 5), "=9\r\ntxt:a:1\r\n\r\n");
    EXPECT_REPLY(c3, reply_bulk(&c3, "hi", 2), "$2\r\nhi\r\n");
}
END_TEST

START_TEST(redis_generic_errors) {
    client c = make_client(2);
    EXPECT_REPLY(c, reply_wrong_arity(&c, "get"),
                 "-ERR wrong number of arguments for 'get' command\r\n");
    EXPECT_REPLY(c, reply_syntax_error(&c), "-ERR syntax error\r\n");
    EXPECT_REPLY(c, reply_not_integer(&c), "-ERR value is not an integer or out of range\r\n");
    arg sub = {"nosuch", 6};
    EXPECT_REPLY(c, reply_unknown_subcommand(&c, &sub, "COMMAND"),
                 "-ERR unknown subcommand 'nosuch'. Try COMMAND HELP.\r\n");
}
END_TEST

/* 25 a's, and 100. */
#define A25  "aaaaaaaaaaaaaaaaaaaaaaaaa"
#define A100 A25 A25 A25 A25

START_TEST(unknown_command_quotes_arguments_up_to_128_characters) {
    client c = make_client(2);
    arg two[] = {{"foo", 3}, {"bar", 3}, {"baz", 3}};
    EXPECT_REPLY(c, reply_unknown_command(&c, 3, two),
                 "-ERR unknown command 'foo', with args beginning with: 'bar' 'baz' \r\n");
    arg none[] = {{"nosuchcommand", 13}};
    EXPECT_REPLY(c, reply_unknown_command(&c, 1, none),
                 "-ERR unknown command 'nosuchcommand', with args beginning with: \r\n");
    /* The list grows while it is under 128 characters, and each argument is
     * cut to the room left: 103 characters after the first, so 25 of the
     * second, and the third never starts. */
    arg three[] = {{"foo", 3}, {A100, 100}, {A100, 100}, {A100, 100}};
    EXPECT_REPLY(c, reply_unknown_command(&c, 4, three),
                 "-ERR unknown command 'foo', with args beginning with: '" A100 "' '" A25 "' \r\n");
    /* Arguments are printed as C strings: a NUL ends one. */
    arg nul[] = {{"foo", 3}, {"a\0b", 3}};
    EXPECT_REPLY(c, reply_unknown_command(&c, 2, nul),
                 "-ERR unknown command 'foo', with args beginning with: 'a' \r\n");
}
END_TEST

int main(void) {
    Suite *s = suite_create("reply");
    TCase *tc = tcase_create("writers");
    tcase_add_test(tc, status_and_integer_replies);
    tcase_add_test(tc, bulk_strings_count_bytes_and_end_with_crlf);
    tcase_add_test(tc, errors_are_one_line);
    tcase_add_test(tc, null_and_aggregates_in_resp2_and_resp3);
    tcase_add_test(tc, redis_generic_errors);
    tcase_add_test(tc, unknown_command_quotes_arguments_up_to_128_characters);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

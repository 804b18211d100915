/* test_strnum_buffer.c -- unit tests of the strict integer parser and the
 * byte buffer (chapter 01). */
#include <check.h>
#include <limits.h>
#include <string.h>

#include "buffer.h"
#include "strnum.h"

static int parses(const char *s, long long *v) {
    return string_to_ll(s, strlen(s), v);
}

START_TEST(accepts_what_redis_accepts) {
    long long v;
    ck_assert(parses("0", &v) && v == 0);
    ck_assert(parses("42", &v) && v == 42);
    ck_assert(parses("-7", &v) && v == -7);
    ck_assert(parses("9223372036854775807", &v) && v == LLONG_MAX);
    ck_assert(parses("-9223372036854775808", &v) && v == LLONG_MIN);
}
END_TEST

START_TEST(refuses_what_redis_refuses) {
    long long v = 99;
    const char *bad[] = {"",
                         "-",
                         "+1",
                         " 1",
                         "1 ",
                         "01",
                         "-0",
                         "00",
                         "1a",
                         "0x10",
                         "1.5",
                         "9223372036854775808",
                         "-9223372036854775809",
                         "99999999999999999999",
                         "123456789012345678901"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(!parses(bad[i], &v), "accepted '%s'", bad[i]);
    ck_assert_int_eq(v, 99);                /* untouched on failure */
    ck_assert(!string_to_ll("1\0", 2, &v)); /* binary: an embedded NUL is a stray byte */
}
END_TEST

START_TEST(formats_every_edge) {
    char buf[32];
    long long cases[] = {0, 1, -1, 10, -10, LLONG_MAX, LLONG_MIN, 1234567890123LL};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = ll_to_string(buf, cases[i]);
        long long back;
        ck_assert_uint_eq(n, strlen(buf));
        ck_assert(string_to_ll(buf, n, &back) && back == cases[i]);
    }
}
END_TEST

START_TEST(buffer_append_consume_shrink) {
    buffer b;
    buf_init(&b);
    for (int i = 0; i < 10000; i++)
        buf_append(&b, "abc", 3);
    ck_assert_uint_eq(b.len, 30000);
    ck_assert_uint_ge(b.cap, 30000);
    buf_consume(&b, 29997);
    ck_assert_uint_eq(b.len, 3);
    ck_assert(memcmp(b.data, "abc", 3) == 0);
    buf_shrink_if_idle(&b, 16); /* not idle: keeps its memory */
    ck_assert_ptr_nonnull(b.data);
    buf_consume(&b, 3);
    buf_shrink_if_idle(&b, 16);
    ck_assert_ptr_null(b.data);
    ck_assert_uint_eq(b.cap, 0);
    buf_append(&b, "\0\r\n", 3); /* binary safe */
    ck_assert(memcmp(b.data, "\0\r\n", 3) == 0);
    buf_free(&b);
}
END_TEST

int main(void) {
    Suite *s = suite_create("strnum+buffer");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, accepts_what_redis_accepts);
    tcase_add_test(tc, refuses_what_redis_refuses);
    tcase_add_test(tc, formats_every_edge);
    tcase_add_test(tc, buffer_append_consume_shrink);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

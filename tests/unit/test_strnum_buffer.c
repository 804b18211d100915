/* test_strnum_buffer.c -- unit tests of the strict integer parser, the
 * memory size parser and the byte buffer (chapter 01). */
#include <check.h>
#include <limits.h>
#include <string.h>

#include "buffer.h"
#include "net.h"
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

static int size_parses(const char *s, unsigned long long *v) {
    return string_to_memory(s, strlen(s), v);
}

/* The units of Redis's memtoull() (util.c, 7.0.15): k is 1000, kb 1024. */
START_TEST(memory_sizes_with_redis_units) {
    static const struct {
        const char *text;
        unsigned long long bytes;
    } cases[] = {
        {"0", 0},
        {"1048576", 1048576},
        {"100b", 100},
        {"1k", 1000},
        {"1kb", 1024},
        {"4m", 4000000},
        {"4mb", 4194304},
        {"1g", 1000000000},
        {"1gb", 1073741824},
        {"1GB", 1073741824},
        {"3Mb", 3145728},
        {"2kB", 2048},
        {"01mb", 1048576}, /* leading zeros, as strtoull() takes them */
        {"18446744073709551615", 18446744073709551615ULL},
        {"17179869183gb", 17179869183ULL << 30},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unsigned long long v = 7;
        ck_assert_msg(size_parses(cases[i].text, &v), "refused '%s'", cases[i].text);
        ck_assert_msg(v == cases[i].bytes, "'%s' gave %llu, not %llu", cases[i].text, v,
                      cases[i].bytes);
    }
}
END_TEST

START_TEST(memory_sizes_refused) {
    unsigned long long v = 99;
    const char *bad[] = {"",
                         "mb",   /* no digits: memtoull() reads 0 */
                         "-1",   /* memtoull() refuses a sign */
                         "+1",   /* and '+' is no digit */
                         " 1mb", /* no space anywhere */
                         "1 mb",
                         "1mb ",
                         "1.5mb",
                         "1t",
                         "1kbb",
                         "1bk",
                         "5x",
                         "0x10",
                         "18446744073709551616", /* 2^64: memtoull() saturates */
                         "17179869184gb",        /* 2^64: memtoull() wraps to 0 */
                         "17179869185gb"};       /* memtoull() wraps to 1 GB */
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(!size_parses(bad[i], &v), "accepted '%s'", bad[i]);
    ck_assert_int_eq(v, 99);                                     /* untouched on failure */
    ck_assert(!string_to_memory("1mb\0", 4, &v));                /* binary: a NUL is a stray byte */
    ck_assert(string_to_memory("1mbXX", 3, &v) && v == 1048576); /* exactly len bytes */
}
END_TEST

/* --client-query-buffer-limit's value: Redis's bounds and texts (config.c). */
START_TEST(query_buffer_limit_flag) {
    size_t v = 5;
    const char *why = NULL;
    ck_assert(net_parse_query_buffer_limit("1mb", &v, &why) && v == 1048576);
    ck_assert(net_parse_query_buffer_limit("1GB", &v, &why) && v == 1073741824);
    ck_assert(net_parse_query_buffer_limit("9223372036854775807", &v, &why));
    const char *out_of_bounds[] = {"1m", "1048575", "mb", "9223372036854775808", "8589934592gb"};
    for (size_t i = 0; i < sizeof(out_of_bounds) / sizeof(out_of_bounds[0]); i++) {
        why = NULL;
        v = 5;
        ck_assert_msg(!net_parse_query_buffer_limit(out_of_bounds[i], &v, &why), "accepted '%s'",
                      out_of_bounds[i]);
        ck_assert_uint_eq(v, 5);
    }
    ck_assert_str_eq(why, "argument must be between 1048576 and 9223372036854775807 inclusive");
    ck_assert(!net_parse_query_buffer_limit("5x", &v, &why));
    ck_assert_str_eq(why, "argument must be a memory value");
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
    tcase_add_test(tc, memory_sizes_with_redis_units);
    tcase_add_test(tc, memory_sizes_refused);
    tcase_add_test(tc, query_buffer_limit_flag);
    tcase_add_test(tc, buffer_append_consume_shrink);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

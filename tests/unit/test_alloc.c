/* test_alloc.c -- unit tests of the counting allocator (chapter 01). */
#include <check.h>
#include <string.h>

#include "alloc.h"

START_TEST(used_memory_returns_to_where_it_was) {
    size_t before = mem_used();
    char *a = mem_alloc(100);
    char *b = mem_calloc(10, 30);
    ck_assert_uint_ge(mem_used(), before + 100 + 300);
    a = mem_realloc(a, 5000);
    ck_assert_uint_ge(mem_used(), before + 5000 + 300);
    char *c = mem_strndup("a\0b", 3);
    ck_assert(memcmp(c, "a\0b", 4) == 0); /* copied, NUL added */
    mem_free(a);
    mem_free(b);
    mem_free(c);
    mem_free(NULL);
    ck_assert_uint_eq(mem_used(), before);
}
END_TEST

int main(void) {
    Suite *s = suite_create("alloc");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, used_memory_returns_to_where_it_was);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

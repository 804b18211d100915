/* test_alloc.c -- unit tests of the counting allocator (chapter 01) and of
 * its request for huge pages when the heap grows. */
#define _DEFAULT_SOURCE /* sbrk() */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

#ifdef __linux__
/* The VmFlags line of the mapping in /proc/self/smaps that holds addr, or ""
 * if there is none. "hg" among the flags means MADV_HUGEPAGE was given. */
static void vm_flags_of(uintptr_t addr, char *flags, size_t size) {
    FILE *f = fopen("/proc/self/smaps", "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    int inside = 0;
    flags[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) /* a mapping's first line */
            inside = addr >= lo && addr < hi;
        else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            snprintf(flags, size, "%s", line + 8);
            break;
        }
    }
    fclose(f);
}

START_TEST(a_grown_heap_is_advised_to_use_huge_pages) {
    if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0) {
        puts("note: this kernel has no transparent huge pages; nothing to check");
        return;
    }
    char *start = sbrk(0);
    enum { BLOCK = 1024, MAX_BLOCKS = 128 * 1024 }; /* up to 128 MB */
    static void *blocks[MAX_BLOCKS];
    int n = 0;
    while (n < MAX_BLOCKS && (char *)sbrk(0) == start)
        blocks[n++] = mem_alloc(BLOCK);
    char *end = sbrk(0);
    if (end == start) {
        /* valgrind's and the sanitizers' allocators do not use brk(). */
        puts("note: malloc did not grow the brk heap here; nothing to check");
    } else {
        char flags[512];
        vm_flags_of((uintptr_t)start, flags, sizeof flags); /* first new byte */
        ck_assert_msg(strstr(flags, " hg") != NULL, "heap growth not advised: VmFlags:%s", flags);
        vm_flags_of((uintptr_t)end - 1, flags, sizeof flags); /* last new byte */
        ck_assert_msg(strstr(flags, " hg") != NULL, "heap growth not advised: VmFlags:%s", flags);
    }
    while (n > 0)
        mem_free(blocks[--n]);
}
END_TEST
#endif

int main(void) {
    Suite *s = suite_create("alloc");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, used_memory_returns_to_where_it_was);
#ifdef __linux__
    tcase_add_test(tc, a_grown_heap_is_advised_to_use_huge_pages);
#endif
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

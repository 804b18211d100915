/* alloc.c -- counting allocator wrapper (chapter 01). See alloc.h. */
#define _DEFAULT_SOURCE /* sbrk() and MADV_HUGEPAGE, which -std=c11 hides */
#include "alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __APPLE__
#include <malloc/malloc.h>
#define usable_size(p) malloc_size(p)
#else
#include <malloc.h>
#define usable_size(p) malloc_usable_size(p)
#endif
#ifdef __linux__
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

/* The one piece of process-wide state outside the server struct: like
 * Redis's used_memory, it belongs to the allocator, not to any server. */
static size_t used_bytes;

/* glibc keeps freed small blocks in "fast bins" and merges them with their
 * free neighbours only later, all at once, the next time a large block
 * (64 KB or more) is freed. After a million keys expire, that is two million
 * blocks merged in one go: measured, a 300 to 400 ms stall of the whole
 * server while chapter 05's cycle deleted a million keys that expired
 * together, against 30 ms with fast bins off. Freed blocks still go first to
 * glibc's per-thread cache, so the cost for the rest is not measurable here.
 * A constructor runs before main(), before the first malloc(). */
#if defined(__GLIBC__) && defined(__GNUC__)
__attribute__((constructor)) static void no_fast_bins(void) {
    mallopt(M_MXFAST, 0);
}
#endif

/* ==== Huge pages for the heap ====
 *
 * A GET of a random key reads a bucket, an entry and a value at three random
 * places in a heap of tens or hundreds of megabytes. With 4 KB pages each of
 * those reads is also a TLB miss, and a miss costs a walk of the page tables
 * (in a virtual machine, of two sets of them). With 2 MB pages the same heap
 * is 512 times fewer pages, and most of those walks go away.
 *
 * Linux backs a range with huge pages when the process asks with
 * madvise(MADV_HUGEPAGE) (or for everything, if the machine is set to
 * "always"). glibc's malloc can ask by itself, but only when told so in the
 * environment before the process starts (GLIBC_TUNABLES). So this module asks:
 * small blocks come from the heap that malloc grows with brk(), and after each
 * allocation one sbrk(0) (a variable read, no system call) shows whether the
 * heap's end moved. If it grew, the new part is advised before anything in it
 * is touched: a 2 MB stretch becomes one huge page only if none of its 4 KB
 * pages exists yet.
 *
 * A huge page must lie inside the advised range, so the 2 MB stretch that
 * straddles the heap's end stays in small pages. Growing the heap 32 MB at a
 * time (M_TOP_PAD) keeps that to one stretch in sixteen; the unused tail is
 * address space only, it takes no memory until touched. (Setting M_TOP_PAD
 * also stops glibc from raising, as big blocks are freed, the size from
 * which a block gets a mapping of its own: from 128 KB up, it always does.
 * Here those are the dict's tables, which are better off outside the heap.)
 *
 * Redis does the opposite: on a machine set to "always", it turns huge pages
 * off for itself (its disable-thp setting). It fork()s to save snapshots,
 * and after a fork a one-byte write copies a whole 2 MB page. This server
 * never forks. The gain is measured in docs/benchmarks.md. Under
 * valgrind or a sanitizer, whose allocators do not use brk(), nothing here
 * happens. */
#if defined(__linux__) && defined(__GLIBC__) && defined(__GNUC__)
#define HEAP_GROWTH_PAD (32u << 20)

static char *heap_end; /* the heap's end when last looked at */

__attribute__((constructor)) static void grow_heap_in_large_steps(void) {
    mallopt(M_TOP_PAD, HEAP_GROWTH_PAD);
    heap_end = sbrk(0);
}

static void advise_heap_growth(void) {
    char *end = sbrk(0);
    if (end == heap_end) return;
    if (end > heap_end) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        uintptr_t from = (uintptr_t)heap_end & ~(page - 1);
        /* Only advice: if the kernel says no, the heap keeps small pages. */
        madvise((void *)from, (uintptr_t)end - from, MADV_HUGEPAGE);
    }
    heap_end = end; /* a shrunk heap (malloc_trim) is simply remembered */
}
#else
static void advise_heap_growth(void) {
}
#endif

static void *check(void *ptr, size_t size) {
    if (ptr == NULL) {
        fprintf(stderr, "out of memory allocating %zu bytes\n", size);
        abort();
    }
    used_bytes += usable_size(ptr);
    advise_heap_growth();
    return ptr;
}

void *mem_alloc(size_t size) {
    return check(malloc(size ? size : 1), size);
}

void *mem_calloc(size_t count, size_t size) {
    return check(calloc(count ? count : 1, size ? size : 1), count * size);
}

void *mem_realloc(void *ptr, size_t size) {
    if (ptr) used_bytes -= usable_size(ptr);
    return check(realloc(ptr, size ? size : 1), size);
}

void mem_free(void *ptr) {
    if (ptr == NULL) return;
    used_bytes -= usable_size(ptr);
    free(ptr);
}

char *mem_strndup(const char *s, size_t len) {
    char *copy = mem_alloc(len + 1);
    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

size_t mem_used(void) {
    return used_bytes;
}

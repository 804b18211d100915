/* alloc.c -- counting allocator wrapper. See alloc.h. */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>
#ifdef __APPLE__
#include <malloc/malloc.h>
#define usable_size(p) malloc_size(p)
#else
#include <malloc.h>
#define usable_size(p) malloc_usable_size(p)
#endif

#include "panic.h"

/* The one piece of process-wide state outside the server struct: like
 * Redis's used_memory, it belongs to the allocator, not to any server. */
static size_t used_bytes;

static void *check(void *ptr, size_t size) {
    if (ptr == NULL) panic("out of memory allocating %zu bytes", size);
    used_bytes += usable_size(ptr);
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

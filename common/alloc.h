/* alloc.h -- the allocator wrapper every step uses.
 *
 * Two reasons to wrap malloc(): out of memory is fatal for a server like this
 * one (Redis's zmalloc aborts too, because there is no sane way to answer a
 * half-executed command), and INFO's used_memory must come from
 * the server's own accounting, so every byte handed out is counted here. */
#ifndef ALLOC_H
#define ALLOC_H

#include <stddef.h>

void *mem_alloc(size_t size);                 /* never returns NULL */
void *mem_calloc(size_t count, size_t size);  /* zeroed; never returns NULL */
void *mem_realloc(void *ptr, size_t size);    /* never returns NULL */
void mem_free(void *ptr);                     /* NULL is fine */
char *mem_strndup(const char *s, size_t len); /* copy + NUL terminator */

/* Bytes currently allocated through this module, as the C library's
 * malloc_usable_size() reports them (so allocator rounding is counted). */
size_t mem_used(void);

#endif

/* buffer.c -- growable byte buffer. See buffer.h. */
#include "buffer.h"

#include <string.h>

#include "alloc.h"

void buf_init(buffer *b) {
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void buf_free(buffer *b) {
    mem_free(b->data);
    buf_init(b);
}

void buf_reserve(buffer *b, size_t extra) {
    if (b->cap - b->len >= extra) return;
    /* Double, so appending n bytes one at a time costs O(n) in total. */
    size_t want = b->len + extra;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < want)
        cap *= 2;
    b->data = mem_realloc(b->data, cap);
    b->cap = cap;
}

void buf_append(buffer *b, const void *bytes, size_t n) {
    if (n == 0) return; /* memcpy() must not see the NULL of an empty buffer */
    buf_reserve(b, n);
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
}

void buf_consume(buffer *b, size_t n) {
    if (n >= b->len) {
        b->len = 0;
        return;
    }
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
}

void buf_shrink_if_idle(buffer *b, size_t keep) {
    if (b->len == 0 && b->cap > keep) buf_free(b);
}

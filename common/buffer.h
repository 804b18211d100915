/* buffer.h -- a growable byte buffer.
 *
 * Each client has two: the query buffer that bytes from the socket are read
 * into, and the output buffer that replies are appended to. Bytes are binary
 * safe; nothing here looks for a NUL terminator. */
#ifndef BUFFER_H
#define BUFFER_H

#include <stddef.h>

typedef struct buffer {
    char *data; /* the bytes; NULL until the first append */
    size_t len; /* bytes in use */
    size_t cap; /* bytes allocated */
} buffer;

void buf_init(buffer *b);
void buf_free(buffer *b);

/* Make room for at least `extra` more bytes after len; may move data. */
void buf_reserve(buffer *b, size_t extra);

void buf_append(buffer *b, const void *bytes, size_t n);

/* Drop the first n bytes, moving the rest to the front. O(len - n). */
void buf_consume(buffer *b, size_t n);

/* Give memory back when a buffer that grew large is empty again, so a client
 * that once sent a 10 MB value does not keep 10 MB forever. */
void buf_shrink_if_idle(buffer *b, size_t keep);

#endif

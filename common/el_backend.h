/* el_backend.h -- what the event loop needs from the kernel.
 *
 * Private to event_loop.c and its two back ends. Exactly one back end is
 * linked into a server: el_epoll.c (Linux) or el_poll.c (portable). */
#ifndef EL_BACKEND_H
#define EL_BACKEND_H

typedef struct el_backend el_backend;

typedef struct el_fired {
    int fd;   /* the ready descriptor */
    int mask; /* EL_READABLE and/or EL_WRITABLE */
} el_fired;

el_backend *backend_create(void);
void backend_free(el_backend *b);
/* Change what the kernel reports for fd from old_mask to new_mask. */
int backend_update(el_backend *b, int fd, int old_mask, int new_mask);
/* Wait up to timeout_ms (-1: forever); fill `fired`, return how many. The
 * array is owned by the back end and valid until the next call. */
int backend_wait(el_backend *b, int timeout_ms, el_fired **fired);

#endif

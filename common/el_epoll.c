/* el_epoll.c -- the Linux back end of the event loop.
 *
 * epoll keeps the set of watched descriptors inside the kernel, so a wait
 * costs time proportional to the ready descriptors, not the watched ones:
 * 10,000 idle connections cost nothing per loop turn. */
#include "el_backend.h"

#include <sys/epoll.h>
#include <unistd.h>

#include "alloc.h"
#include "event_loop.h"

#define MAX_EVENTS_PER_WAIT 1024

struct el_backend {
    int epfd;                                   /* the kernel's epoll instance */
    struct epoll_event ev[MAX_EVENTS_PER_WAIT]; /* filled by epoll_wait */
    el_fired fired[MAX_EVENTS_PER_WAIT];        /* translated for the loop */
};

el_backend *backend_create(void) {
    el_backend *b = mem_alloc(sizeof(*b));
    b->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (b->epfd == -1) {
        mem_free(b);
        return NULL;
    }
    return b;
}

void backend_free(el_backend *b) {
    close(b->epfd);
    mem_free(b);
}

int backend_update(el_backend *b, int fd, int old_mask, int new_mask) {
    struct epoll_event ev = {0};
    ev.data.fd = fd;
    if (new_mask & EL_READABLE) ev.events |= EPOLLIN;
    if (new_mask & EL_WRITABLE) ev.events |= EPOLLOUT;
    int op = old_mask == EL_NONE   ? EPOLL_CTL_ADD
             : new_mask == EL_NONE ? EPOLL_CTL_DEL
                                   : EPOLL_CTL_MOD;
    return epoll_ctl(b->epfd, op, fd, &ev);
}

int backend_wait(el_backend *b, int timeout_ms, el_fired **fired) {
    int n = epoll_wait(b->epfd, b->ev, MAX_EVENTS_PER_WAIT, timeout_ms);
    for (int i = 0; i < n; i++) {
        int mask = 0;
        /* Errors and hang-ups are reported as "readable": the read handler
         * then sees the error or EOF and closes the client. */
        if (b->ev[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) mask |= EL_READABLE;
        if (b->ev[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) mask |= EL_WRITABLE;
        b->fired[i].fd = b->ev[i].data.fd;
        b->fired[i].mask = mask;
    }
    *fired = b->fired;
    return n < 0 ? 0 : n;
}

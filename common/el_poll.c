/* el_poll.c -- the portable back end of the event loop.
 *
 * poll() is in POSIX, so this builds on macOS and the BSDs. Unlike epoll the
 * kernel keeps no state between calls: every wait passes the whole list of
 * watched descriptors, so a wait costs O(watched), not O(ready). Fine for a
 * tutorial; it is why Linux servers use epoll. Build with `make POLL=1`. */
#include "el_backend.h"

#include <poll.h>

#include "alloc.h"
#include "event_loop.h"

struct el_backend {
    struct pollfd *fds; /* watched descriptors, dense */
    int count;          /* entries in use in fds */
    int cap;            /* entries allocated in fds */
    int *slot_of;       /* fd -> index in fds, or -1 */
    int slot_cap;       /* entries allocated in slot_of */
    el_fired *fired;    /* results of the last wait */
    int fired_cap;      /* entries allocated in fired */
};

el_backend *backend_create(void) {
    return mem_calloc(1, sizeof(el_backend));
}

void backend_free(el_backend *b) {
    mem_free(b->fds);
    mem_free(b->slot_of);
    mem_free(b->fired);
    mem_free(b);
}

static void grow_slot_index(el_backend *b, int fd) {
    if (fd < b->slot_cap) return;
    int cap = b->slot_cap ? b->slot_cap : 64;
    while (cap <= fd)
        cap *= 2;
    b->slot_of = mem_realloc(b->slot_of, sizeof(int) * (size_t)cap);
    for (int i = b->slot_cap; i < cap; i++)
        b->slot_of[i] = -1;
    b->slot_cap = cap;
}

static short poll_events(int mask) {
    short ev = 0;
    if (mask & EL_READABLE) ev |= POLLIN;
    if (mask & EL_WRITABLE) ev |= POLLOUT;
    return ev;
}

int backend_update(el_backend *b, int fd, int old_mask, int new_mask) {
    (void)old_mask;
    grow_slot_index(b, fd);
    int slot = b->slot_of[fd];
    if (new_mask == EL_NONE) {
        if (slot == -1) return 0;
        /* Keep the array dense: move the last entry into the hole. */
        b->fds[slot] = b->fds[--b->count];
        b->slot_of[b->fds[slot].fd] = slot;
        b->slot_of[fd] = -1;
        return 0;
    }
    if (slot == -1) {
        if (b->count == b->cap) {
            b->cap = b->cap ? b->cap * 2 : 64;
            b->fds = mem_realloc(b->fds, sizeof(struct pollfd) * (size_t)b->cap);
        }
        slot = b->count++;
        b->slot_of[fd] = slot;
        b->fds[slot].fd = fd;
    }
    b->fds[slot].events = poll_events(new_mask);
    return 0;
}

/* The fired array grows here, never in backend_update(): the loop walks the
 * array of the last wait while its handlers run, and a handler that accepts
 * clients adds descriptors. Moving the array under the loop's feet would
 * make it read freed memory (it did, with a hundred connections or so). */
int backend_wait(el_backend *b, int timeout_ms, el_fired **fired) {
    if (b->fired_cap < b->count) {
        b->fired_cap = b->cap;
        b->fired = mem_realloc(b->fired, sizeof(el_fired) * (size_t)b->fired_cap);
    }
    int ready = poll(b->fds, (nfds_t)b->count, timeout_ms);
    int n = 0;
    for (int i = 0; ready > 0 && i < b->count; i++) {
        short re = b->fds[i].revents;
        if (re == 0) continue;
        int mask = 0;
        if (re & (POLLIN | POLLERR | POLLHUP | POLLNVAL)) mask |= EL_READABLE;
        if (re & (POLLOUT | POLLERR | POLLHUP)) mask |= EL_WRITABLE;
        b->fired[n].fd = b->fds[i].fd;
        b->fired[n].mask = mask;
        n++;
        ready--;
    }
    *fired = b->fired;
    return n;
}

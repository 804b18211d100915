/* event_loop.c -- the event loop. See event_loop.h.
 *
 * ==== Data structures ====
 *
 * Watched descriptors live in an array indexed by fd (descriptors are small
 * integers, and the kernel hands out the lowest free one), grown on demand.
 * Timers are a short linked list: a server has two or three of them, so
 * finding the nearest one by walking the list is cheaper than any clever
 * structure would be. */
#include "event_loop.h"

#include "alloc.h"
#include "clock.h"
#include "el_backend.h"

typedef struct file_watch {
    int mask;               /* EL_READABLE | EL_WRITABLE, or EL_NONE */
    file_handler *on_read;  /* called when readable */
    file_handler *on_write; /* called when writable */
    void *data;             /* passed to both handlers */
} file_watch;

typedef struct timer {
    int64_t id;             /* returned by el_add_timer */
    int64_t when_us;        /* monotonic µs at which it is due */
    timer_handler *handler; /* what to run */
    void *data;             /* passed to the handler */
    int deleted;            /* set by el_del_timer, reaped after the run */
    struct timer *next;
} timer;

struct event_loop {
    el_backend *backend;      /* the kernel interface */
    file_watch *watches;      /* indexed by fd */
    int watch_cap;            /* entries allocated in watches */
    timer *timers;            /* unordered list */
    int64_t next_timer_id;    /* ids are never reused */
    sleep_hook *before_sleep; /* runs before each wait */
    void *before_sleep_data;
    sleep_hook *after_events; /* runs after each turn's file events */
    void *after_events_data;
    int max_sleep_ms;  /* upper bound on one wait, -1 for none */
    volatile int stop; /* set by el_stop(), possibly from a signal */
};

event_loop *el_create(void) {
    el_backend *backend = backend_create();
    if (backend == NULL) return NULL;
    event_loop *el = mem_calloc(1, sizeof(*el));
    el->backend = backend;
    el->next_timer_id = 1;
    el->max_sleep_ms = -1;
    return el;
}

void el_free(event_loop *el) {
    timer *t = el->timers;
    while (t) {
        timer *next = t->next;
        mem_free(t);
        t = next;
    }
    backend_free(el->backend);
    mem_free(el->watches);
    mem_free(el);
}

/* ==== File events ==== */

static void grow_watches(event_loop *el, int fd) {
    if (fd < el->watch_cap) return;
    int cap = el->watch_cap ? el->watch_cap : 64;
    while (cap <= fd)
        cap *= 2;
    el->watches = mem_realloc(el->watches, sizeof(file_watch) * (size_t)cap);
    for (int i = el->watch_cap; i < cap; i++)
        el->watches[i].mask = EL_NONE;
    el->watch_cap = cap;
}

int el_watch(event_loop *el, int fd, int mask, file_handler *handler, void *data) {
    grow_watches(el, fd);
    file_watch *w = &el->watches[fd];
    if (backend_update(el->backend, fd, w->mask, w->mask | mask) == -1) return -1;
    w->mask |= mask;
    if (mask & EL_READABLE) w->on_read = handler;
    if (mask & EL_WRITABLE) w->on_write = handler;
    w->data = data;
    return 0;
}

void el_unwatch(event_loop *el, int fd, int mask) {
    if (fd >= el->watch_cap) return;
    file_watch *w = &el->watches[fd];
    if ((w->mask & mask) == 0) return;
    /* Taking interest away fails only for a descriptor the kernel no longer
     * knows (already closed), and then there is nothing left to undo. */
    (void)backend_update(el->backend, fd, w->mask, w->mask & ~mask);
    w->mask &= ~mask;
}

/* Run the handlers of one ready descriptor. Readable first: a client's
 * replies are then written in the same turn. The watch is looked up again
 * between the two calls: the read handler may have closed the client, or
 * (accepting new clients) grown the array and moved it in memory. */
static void dispatch_file_event(event_loop *el, el_fired *f) {
    file_watch *w = &el->watches[f->fd];
    if (f->mask & w->mask & EL_READABLE) w->on_read(el, f->fd, w->data, EL_READABLE);
    w = &el->watches[f->fd];
    if (f->mask & w->mask & EL_WRITABLE) w->on_write(el, f->fd, w->data, EL_WRITABLE);
}

/* ==== Timers ==== */

int64_t el_add_timer(event_loop *el, int64_t ms, timer_handler *handler, void *data) {
    timer *t = mem_alloc(sizeof(*t));
    t->id = el->next_timer_id++;
    t->when_us = clock_mono_us() + ms * 1000;
    t->handler = handler;
    t->data = data;
    t->deleted = 0;
    t->next = el->timers;
    el->timers = t;
    return t->id;
}

void el_del_timer(event_loop *el, int64_t id) {
    for (timer *t = el->timers; t; t = t->next)
        if (t->id == id) t->deleted = 1;
}

/* How long the loop may sleep: until the nearest timer, capped. */
static int ms_until_next_timer(event_loop *el) {
    if (el->timers == NULL) return el->max_sleep_ms; /* no clock read: it runs every turn */
    int64_t now = clock_mono_us();
    int64_t best = -1;
    for (timer *t = el->timers; t; t = t->next) {
        if (t->deleted) continue;
        int64_t wait_us = t->when_us > now ? t->when_us - now : 0;
        if (best == -1 || wait_us < best) best = wait_us;
    }
    int ms = best == -1 ? -1 : (int)((best + 999) / 1000);
    if (el->max_sleep_ms >= 0 && (ms == -1 || ms > el->max_sleep_ms)) ms = el->max_sleep_ms;
    return ms;
}

/* Run every due timer once, then free the ones marked deleted. Timers a
 * handler adds are at the head of the list and not due in this pass. */
static void run_due_timers(event_loop *el) {
    if (el->timers == NULL) return;
    int64_t now = clock_mono_us();
    for (timer *t = el->timers; t; t = t->next) {
        if (t->deleted || t->when_us > now) continue;
        int64_t again = t->handler(el, t->id, t->data);
        if (again == EL_TIMER_STOP)
            t->deleted = 1;
        else
            t->when_us = clock_mono_us() + again * 1000;
    }
    timer **link = &el->timers;
    while (*link) {
        timer *t = *link;
        if (t->deleted) {
            *link = t->next;
            mem_free(t);
        } else {
            link = &t->next;
        }
    }
}

/* ==== The loop ==== */

void el_set_before_sleep(event_loop *el, sleep_hook *hook, void *data) {
    el->before_sleep = hook;
    el->before_sleep_data = data;
}

void el_set_after_events(event_loop *el, sleep_hook *hook, void *data) {
    el->after_events = hook;
    el->after_events_data = data;
}

void el_set_max_sleep(event_loop *el, int ms) {
    el->max_sleep_ms = ms;
}

void el_stop(event_loop *el) {
    el->stop = 1;
}

void el_run(event_loop *el) {
    el->stop = 0;
    while (!el->stop) {
        if (el->before_sleep) el->before_sleep(el, el->before_sleep_data);
        el_fired *fired;
        int n = backend_wait(el->backend, ms_until_next_timer(el), &fired);
        for (int i = 0; i < n; i++)
            dispatch_file_event(el, &fired[i]);
        if (el->after_events) el->after_events(el, el->after_events_data);
        run_due_timers(el);
    }
}

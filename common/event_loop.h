/* event_loop.h -- one thread, many sockets: the event loop.
 *
 * The server never blocks on one client. It asks the kernel "which of my
 * sockets are ready?", handles exactly those, and asks again. Timers (a
 * server's periodic work, its "cron") run on the same loop,
 * between socket events, so there is never a second thread and never a lock.
 * The shape follows Redis's ae.c: file events with a read and a write
 * handler per descriptor, timers that return when they want to run next,
 * and a hook that runs just before the loop goes to sleep.
 *
 * The kernel interface is a back end behind four functions: epoll on Linux
 * (el_epoll.c), poll() everywhere else (el_poll.c, `make POLL=1`). */
#ifndef EVENT_LOOP_H
#define EVENT_LOOP_H

#include <stdint.h>

#define EL_NONE       0
#define EL_READABLE   1
#define EL_WRITABLE   2
#define EL_TIMER_STOP -1 /* a timer handler returns this to delete itself */

typedef struct event_loop event_loop;

/* Called when fd is ready; mask says which of EL_READABLE/EL_WRITABLE. */
typedef void file_handler(event_loop *el, int fd, void *data, int mask);

/* Called when a timer is due. Returns the ms until it should run again, or
 * EL_TIMER_STOP. */
typedef int64_t timer_handler(event_loop *el, int64_t id, void *data);

/* Runs once per loop turn, before waiting for events. */
typedef void sleep_hook(event_loop *el, void *data);

event_loop *el_create(void);
void el_free(event_loop *el); /* descriptors are not closed: their owners do that */

/* Watch fd for `mask`; the handler is stored per direction, so a read and
 * a write handler can differ. Returns 0, or -1 if the kernel refused. */
int el_watch(event_loop *el, int fd, int mask, file_handler *handler, void *data);
void el_unwatch(event_loop *el, int fd, int mask);

/* Timers run no earlier than asked, and as soon as possible after. */
int64_t el_add_timer(event_loop *el, int64_t ms, timer_handler *handler, void *data);
void el_del_timer(event_loop *el, int64_t id);

void el_set_before_sleep(event_loop *el, sleep_hook *hook, void *data);

/* Runs once per loop turn, right after the handlers of every ready
 * descriptor have run (and before the timers). The networking code writes
 * the turn's replies here, all together (see net.c). */
void el_set_after_events(event_loop *el, sleep_hook *hook, void *data);

/* Process events until el_stop() is called (from a handler, or from a
 * signal handler: it only sets a flag). */
void el_run(event_loop *el);
void el_stop(event_loop *el);

/* Never wait longer than `ms` at a time. A signal that arrives during the
 * wait ends it anyway: epoll_wait() and poll() fail with EINTR after a
 * handler, whatever SA_RESTART says (signal(7)). The cap is for a signal
 * that arrives after the loop checked its stop flag and before it began to
 * wait: without it, the loop would sleep on until the next event. */
void el_set_max_sleep(event_loop *el, int ms);

#endif

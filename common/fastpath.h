/* fastpath.h -- the request path's one optimisation for the benchmark.
 *
 * The plain request path (net.c) runs a client's commands as soon as its
 * socket has been read. The fast path, built with -DFASTPATH=1 (the
 * Makefile's default; make FASTPATH=0 builds without it),
 * first reads every client that is ready in this turn of the event loop and
 * runs them all at its end. That alone changes nothing a client can see: the
 * clients still run in the order they were read, and every reply is still
 * written at the end of the turn. What it buys is a moment, before anything
 * runs, when all the commands of the turn are in memory at once: a step can
 * install a look-ahead that reads them and asks the CPU to start loading
 * whatever they will touch (steps 02 and later prefetch their keys, see the
 * step's prefetch.c), so those loads overlap instead of waiting one after
 * the other. Redis does the same in memory_prefetch.c.
 *
 * Without it every function here is an empty inline one, and the
 * compiler removes the calls: net.c reads read -> parse -> execute -> write.
 * docs/benchmarks.md measures both builds. */
#ifndef FASTPATH_H
#define FASTPATH_H

#include "net.h"

/* The step's look-ahead: look at the unparsed commands of `first` and of the
 * clients after it in the run queue (along next_run), and return how many
 * clients it looked at, at least 1. Those clients then run, and the
 * look-ahead is called again for the rest of the queue. It must change
 * nothing but the CPU's caches: the commands are parsed for real when they
 * run. */
typedef int look_ahead_fn(client *first, void *ctx);

#if FASTPATH

/* Install the look-ahead (NULL: none). */
void fastpath_set_look_ahead(net_server *s, look_ahead_fn *fn, void *ctx);

/* Called by read_handler() after a read: queue the client to run at the end
 * of the turn and return 1. */
int fastpath_defer(client *c);

/* Called at the end of the turn: run every queued client, in the order they
 * were read, after the look-ahead has seen them. */
void fastpath_run(net_server *s);

/* Called by client_close(): take the client out of the queue, if it is in
 * it (a command may close another client, CLIENT KILL). */
void fastpath_forget(client *c);

#else

static inline void fastpath_set_look_ahead(net_server *s, look_ahead_fn *fn, void *ctx) {
    (void)s, (void)fn, (void)ctx;
}
static inline int fastpath_defer(client *c) {
    (void)c;
    return 0; /* net.c runs the client now */
}
static inline void fastpath_run(net_server *s) {
    (void)s;
}
static inline void fastpath_forget(client *c) {
    (void)c;
}

#endif
#endif

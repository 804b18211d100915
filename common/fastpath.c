/* fastpath.c -- run every client read in a turn at its end, after a look
 * ahead at their commands. See fastpath.h for why; net.c calls it at three
 * marked points (read_handler, end_of_turn, client_close). */
#include "fastpath.h"

#if FASTPATH

void fastpath_set_look_ahead(net_server *s, look_ahead_fn *fn, void *ctx) {
    s->look_ahead = fn;
    s->look_ahead_ctx = ctx;
}

/* The queue is first in, first out: clients run in the order their sockets
 * were read, as they would if each ran right away. */
int fastpath_defer(client *c) {
    net_server *s = c->server;
    if (c->run_queued) return 1;
    c->run_queued = 1;
    c->next_run = NULL;
    if (s->run_queue_tail)
        s->run_queue_tail->next_run = c;
    else
        s->run_queue = c;
    s->run_queue_tail = c;
    return 1;
}

/* Take the first client off the queue. */
static client *pop_run_queue(net_server *s) {
    client *c = s->run_queue;
    s->run_queue = c->next_run;
    if (s->run_queue == NULL) s->run_queue_tail = NULL;
    c->run_queued = 0;
    return c;
}

/* A command may close another client of the queue (CLIENT KILL), and
 * fastpath_forget() then takes it out, so each client is unlinked before it
 * runs and the count of looked-at clients is only an upper bound. */
void fastpath_run(net_server *s) {
    while (s->run_queue) {
        int batch = s->look_ahead ? s->look_ahead(s->run_queue, s->look_ahead_ctx) : 1;
        for (int i = 0; i < batch && s->run_queue; i++)
            net_run_client(pop_run_queue(s));
    }
}

void fastpath_forget(client *c) {
    if (!c->run_queued) return;
    net_server *s = c->server;
    client *before = NULL;
    for (client *q = s->run_queue; q != c; q = q->next_run)
        before = q;
    if (before)
        before->next_run = c->next_run;
    else
        s->run_queue = c->next_run;
    if (s->run_queue_tail == c) s->run_queue_tail = before;
    c->run_queued = 0;
}

#endif

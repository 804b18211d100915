/* server.h -- the server's state, shared by this step's files.
 *
 * All of the server's state is in one struct, as in Redis, defined in main.c
 * and reached by commands as the global `server`. */
#ifndef SERVER_H
#define SERVER_H

#include <stdint.h>

#include "event_loop.h"
#include "fastpath.h"
#include "keyspace.h"
#include "net.h"

struct server {
    event_loop *loop;            /* the one event loop */
    net_server net;              /* listening socket and clients */
    fastpath fast;               /* clients held in a turn, keys prefetched (fastpath.h) */
    const char *bind;            /* address to listen on */
    int port;                    /* TCP port */
    int64_t start_ms;            /* Unix ms at start, for INFO's uptime */
    keyspace db;                 /* every key and its value (keyspace.h) */
    int active_expire;           /* delete due keys from the wheel? DEBUG SET-ACTIVE-EXPIRE */
    uint64_t expire_budget_hits; /* loop turns that stopped at EXPIRE_BUDGET_KEYS */
    int64_t expire_time_used_us; /* time spent deleting due keys, µs */
};

/* Keys the wheel may delete per turn of the event loop. When a million keys
 * fall due at once, they are deleted a thousand at a time, and clients are
 * served between the batches. */
#define EXPIRE_BUDGET_KEYS 1000

extern struct server server;

#endif

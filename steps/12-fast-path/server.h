/* server.h -- the server's state, shared by this step's files.
 *
 * All of the server's state is in one struct, as in Redis, defined in main.c
 * and reached by commands as the global `server`. */
#ifndef SERVER_H
#define SERVER_H

#include <stdint.h>

#include "event_loop.h"
#include "expire.h"
#include "fastpath.h"
#include "keyspace.h"
#include "net.h"
#include "replication.h"
#include "snapshot.h"

struct server {
    event_loop *loop;      /* the one event loop */
    net_server net;        /* listening socket and clients */
    fastpath fast;         /* clients held in a turn, keys prefetched (fastpath.h) */
    const char *bind;      /* address to listen on */
    int port;              /* TCP port */
    size_t qbuf_max;       /* --client-query-buffer-limit, bytes */
    int64_t start_ms;      /* Unix ms at start, for INFO's uptime */
    keyspace db;           /* every key and its value (keyspace.h) */
    wheel_expirer expirer; /* active expiry's switch and figures (expire.h) */
    snapshotter snap;      /* the snapshot file: saving and loading (snapshot.h) */
    replication repl;      /* replid, offset, backlog and replicas (replication.h) */
};

extern struct server server;

/* Random bytes from the kernel (main.c): the hash seed, replication ids. */
void random_bytes(uint8_t *out, size_t n);

#endif

/* fastpath.h -- run the clients read in one turn of the event loop
 * together, and prefetch their keys first.
 *
 * Step 07 runs a client as soon as its socket has been read. Each command
 * then looks its key up in the keyspace, and in a table much larger than the
 * CPU's caches a lookup waits for memory twice, for the bucket and then for
 * the entry: one lookup after the other, one wait after the other. This file
 * holds every client read in a turn instead (common/net.h's run hooks), and
 * at the end of the turn runs them a batch at a time: first a look-ahead
 * reads the keys of the requests waiting in the batch's query buffers, with
 * resp.c's own parser, and asks the CPU to start loading their buckets and
 * entries; then the batch runs, and its lookups find the memory already on
 * its way. Nothing a client sees changes: its commands run in the order it
 * sent them, in the turn they were read, and the replies are written at the
 * end of that turn as before. */
#ifndef FAST_PATH_H
#define FAST_PATH_H

#include <stdint.h>

#include "dict.h"
#include "info.h"
#include "net.h"
#include "resp.h"

/* Keys looked at before a batch of clients runs: enough loads to overlap,
 * few enough that they are still in the L1 cache when the batch uses them.
 * Valkey's prefetch-batch-max-size defaults to 16 too. */
#define PREFETCH_MAX_KEYS 16

typedef struct fastpath {
    dict *keys;           /* the keyspace whose buckets and entries are prefetched */
    client **held;        /* clients read this turn, in order; NULL: closed since */
    int held_count;       /* entries used in `held` */
    int held_cap;         /* entries allocated */
    request_parser ahead; /* resp.c's parser, run ahead over the held bytes */
    uint64_t batches;     /* look-aheads run (INFO fastpath_batches) */
    uint64_t prefetched;  /* keys they prefetched (INFO fastpath_prefetched_keys) */
} fastpath;

/* From now on, hold the clients that s reads and run them at the end of
 * each turn, after prefetching their keys in `keys`. */
void fastpath_install(fastpath *f, net_server *s, dict *keys);

/* Free what fastpath_install() allocated (after net_shutdown()). */
void fastpath_free(fastpath *f);

/* The look-ahead: prefetch the buckets and first entries of the keys
 * (argv[1]) of the complete requests waiting in clients[0], clients[1], ...,
 * at most PREFETCH_MAX_KEYS keys in all, and return how many of the n clients
 * it covered (at least 1 when n > 0). NULL clients are skipped. It changes
 * nothing the server can see: the requests are parsed for real when their
 * clients run. */
int fastpath_look_ahead(fastpath *f, client *const *clients, int n);

/* INFO's stats section: fastpath_batches and fastpath_prefetched_keys. */
void fastpath_info(info_request *r, const fastpath *f);

#endif

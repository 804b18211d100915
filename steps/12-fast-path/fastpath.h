/* fastpath.h -- run the clients read in one turn of the event loop
 * together, and prefetch their keys first.
 *
 * Step 07 runs a client as soon as its socket has been read. Each command
 * then looks its key up in the keyspace, and in a table much larger than the
 * CPU's caches a lookup waits for memory twice, for the bucket and then for
 * the entry: one lookup after the other, one wait after the other. This file
 * holds every client read in a turn instead (this step's net.h's hooks), and
 * at the end of the turn runs them a batch at a time: first a look-ahead
 * parses the requests waiting in the batch's query buffers, with each
 * client's own parser, and asks the CPU to start loading their keys' buckets
 * and entries; then the batch runs the commands the look-ahead parsed,
 * without parsing them again, and their lookups find the memory already on
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

/* Commands parsed ahead, and so keys prefetched, per batch: enough loads to
 * overlap, few enough that they are still in the L1 cache when the batch
 * uses them. Valkey's prefetch-batch-max-size defaults to 16 too. */
#define PREFETCH_MAX_KEYS 16

/* Arguments the commands of a batch may have in all (16 SETs with EX and
 * NX have 96). A command that does not fit is left to the client's run. */
#define BATCH_MAX_ARGS 128

/* A command the look-ahead parsed: its arguments, and where it starts in its
 * client's query buffer, so that the client's parser can be set back there if
 * the command cannot run now. */
typedef struct parsed_command {
    int slot;          /* which client of the batch sent it (0, 1, ...) */
    size_t start;      /* offset of the request in the client's query buffer */
    int argc;          /* arguments, the name included */
    arg *argv;         /* into the batch's args[] */
    uint64_t key_hash; /* dict_hash() of argv[1], when argc >= 2 */
} parsed_command;

typedef struct fastpath {
    dict *keys;     /* the keyspace whose buckets and entries are prefetched */
    client **held;  /* clients read this turn, in order; NULL: closed since */
    int held_count; /* entries used in `held` */
    int held_cap;   /* entries allocated */
    parsed_command batch[PREFETCH_MAX_KEYS]; /* the commands parsed ahead, in order */
    int batch_count;                         /* entries used in `batch` */
    arg args[BATCH_MAX_ARGS];                /* their arguments, copied out of the parsers */
    int args_used;                           /* entries used in `args` */
    uint64_t batches;                        /* look-aheads run (INFO fastpath_batches) */
    uint64_t prefetched; /* keys they prefetched (INFO fastpath_prefetched_keys) */
} fastpath;

/* From now on, hold the clients that s reads and run them at the end of
 * each turn, after prefetching their keys in `keys`. */
void fastpath_install(fastpath *f, net_server *s, dict *keys);

/* Free what fastpath_install() allocated (after net_shutdown()). */
void fastpath_free(fastpath *f);

/* The look-ahead: parse the complete multibulk requests waiting in
 * clients[0], clients[1], ..., with each client's own parser, into f->batch,
 * at most PREFETCH_MAX_KEYS of them; prefetch the buckets and first entries
 * of their keys (argv[1]); and return how many of the n clients it covered
 * (at least 1 when n > 0). NULL clients are skipped. The parsed commands must
 * then be run by fastpath_run() on the same clients: their requests are
 * parsed, not run. */
int fastpath_look_ahead(fastpath *f, client *const *clients, int n);

/* Run the `covered` clients of a look-ahead: each one's parsed commands,
 * then, with net_run_client(), whatever it has left, which also consumes the
 * bytes of the requests run. */
void fastpath_run(fastpath *f, client *const *clients, int covered);

/* INFO's stats section: fastpath_batches and fastpath_prefetched_keys. */
void fastpath_info(info_request *r, const fastpath *f);

#endif

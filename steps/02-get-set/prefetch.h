/* prefetch.h -- the fast path's look-ahead: prefetch the keys of the
 * commands about to run (see common/fastpath.h for the fast path). Built
 * with -DFASTPATH=1 only; otherwise prefetch_install() does nothing. */
#ifndef PREFETCH_H
#define PREFETCH_H

#include "dict.h"
#include "net.h"

#if FASTPATH
/* Before the clients of a turn run, look up nothing, but ask the CPU to load
 * the buckets and first entries in `keys` of the keys they name. */
void prefetch_install(net_server *s, dict *keys);
#else
static inline void prefetch_install(net_server *s, dict *keys) {
    (void)s, (void)keys;
}
#endif

#endif

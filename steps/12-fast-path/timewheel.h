/* timewheel.h -- a hierarchical timing wheel (chapter 06).
 *
 * Chapter 05 deleted expired keys by sampling: cheap, but a key may outlive
 * its deadline by seconds, and a fraction of the keyspace is always stale.
 * Chapter 06 replaces the sampler with this wheel: every key with a TTL is
 * scheduled here, and the wheel hands it back within one tick (1 ms) of its
 * deadline, with O(1) add and cancel and work per tick bounded by what is
 * due. Lazy checks on access stay, as in Redis.
 *
 * This module knows nothing of Redis, keys or the server: it schedules
 * caller-owned nodes against a clock the caller passes in. That is what lets
 * the unit tests drive time by hand and the benchmark race it against a heap.
 *
 * ==== Why this shape ====
 *
 * Think of the wheel's time, in milliseconds, as a number written in base 64,
 * like an odometer with 64 positions per digit. Level 0 is the lowest digit
 * (1 ms a slot, 64 ms a turn), level 1 the next (64 ms a slot, 4.1 s a turn),
 * then 4.4 minutes, 4.7 hours, 12.4 days, 2.2 years, 139 years, and so on.
 * A node lives at the level of the highest digit in which its deadline
 * differs from the wheel's time, in the slot named by that digit of its
 * deadline. When the wheel's time reaches a slot of level L, the nodes in it
 * now differ from the time only in lower digits: they "cascade" down into
 * lower levels, until at level 0 the slot's time is exactly their deadline.
 *
 * - Tick of 1 ms: Redis stores deadlines in ms, so a level-0 slot holds one
 *   exact deadline and nothing is rounded: a node fires in the first
 *   tw_advance() whose now_ms >= expire_ms. A 1000 Hz wheel would be costly
 *   if it stepped through every tick, so it does not (next point).
 * - 64 slots a level: a level's occupancy is one uint64_t bitmap, so "next
 *   non-empty slot" is one count-trailing-zeros instruction. The wheel jumps
 *   from one non-empty slot to the next: an hour's clock jump costs work for
 *   the nodes and slots in it, not 3.6 million ticks.
 * - 11 levels: 11 digits of 6 bits cover all 63 bits of a positive int64, so
 *   any deadline fits, from 1 ms to INT64_MAX, with no overflow list and no
 *   special case. It costs 11 x 64 list heads (about 17 KB per wheel) and at
 *   most 10 cascades in a node's life (a 1-hour TTL cascades 3 or 4 times).
 *
 * The alternatives, and why not:
 * - One wheel with a rotation counter per node (Varghese & Lauck's scheme 6,
 *   as Netty's HashedWheelTimer does): every tick walks its slot,
 *   decrementing the rounds of far-away nodes, O(n / slots) a tick, and a
 *   clock jump costs every tick it skips.
 * - A wheel of seconds under a wheel of minutes, as simple key-expiry
 *   servers often use: 1 s resolution and a maximum TTL of one hour; Redis
 *   needs ms and any deadline.
 * - Kafka's overflow wheels: created on demand, with a DelayQueue of buckets
 *   so empty ticks cost nothing. The bitmaps give us the same skip with no
 *   priority queue and no allocation.
 * - Linux's non-cascading wheel (since 4.8): a timer is placed once and its
 *   expiry rounded up to its level's granularity, so it fires up to ~12%
 *   of its timeout late by design (minutes, for an hour's timer). That suits network timeouts,
 * which are mostly cancelled; keys with a TTL mostly do expire, and we promise one tick. Cascading
 *   costs at most 10 O(1) moves per node.
 *
 * ==== Time and what the wheel guarantees ====
 *
 * All times are absolute Unix milliseconds (int64_t). The wheel keeps its
 * own time: the largest now_ms it has been given (tw_init, tw_advance). That
 * time never moves backwards, which keeps every node's slot valid.
 *
 * - Never early: a node is passed to the callback only by a tw_advance()
 *   call whose now_ms >= the node's expire_ms. This holds when the caller's
 *   clock goes backwards too: nodes already due by the wheel's time wait
 *   until the clock catches up with their own deadline.
 * - Never late (beyond the caller's calls): a node is passed to the callback
 *   by the first tw_advance() whose now_ms >= expire_ms, unless that call
 *   hit its budget (the rest follow in the next calls) or the clock is
 *   behind the wheel's time (see tw_advance()).
 *
 * A caller that re-checks the key's deadline in the callback (the server
 * does, with the same clock) therefore always finds it expired. */
#ifndef TIMEWHEEL_H
#define TIMEWHEEL_H

#include <stddef.h>
#include <stdint.h>

/* ==== Types ====
 *
 * The node is intrusive: the caller embeds a tw_node in its own struct (the
 * server puts one in each key's entry), so scheduling allocates nothing and
 * cancelling needs no search. The callback gets the tw_node pointer back and
 * finds its owner from it (the node is typically the owner's first field, or
 * the owner computes its address with offsetof()).
 *
 * A node is 24 bytes. Its expire_ms can be the owner's only copy of the
 * deadline (the server reads the TTL from it), so the wheel's own cost per
 * key is the two list pointers: 16 bytes. */

/* The shape of the wheel, reported by INFO. Changing them is not supported:
 * the code relies on a 1 ms tick and on one uint64_t bitmap per level. */
enum {
    TW_TICK_MS = 1,          /* width of a level-0 slot, ms */
    TW_SLOT_BITS = 6,        /* bits of time each level covers */
    TW_SLOTS_PER_LEVEL = 64, /* 1 << TW_SLOT_BITS slots in every level */
    TW_LEVELS = 11,          /* 11 * 6 = 66 bits >= 63: any int64 deadline */
};

/* One scheduled deadline, embedded in the caller's struct. Zero it (or call
 * tw_node_init) before its first use: next == NULL means "not scheduled". */
typedef struct tw_node {
    struct tw_node *next; /* next node in the same list; NULL when not scheduled */
    struct tw_node *prev; /* previous node in the same list; NULL when not scheduled */
    int64_t expire_ms;    /* deadline, absolute Unix time in ms; set by tw_add */
} tw_node;

/* The wheel: a plain struct the caller owns, with its arrays inside, so it
 * allocates nothing. Every list is circular with a sentinel head that lives
 * in this struct, so a timewheel must not be copied or moved once tw_init()
 * has run. Read-only for the caller, except the statistics it may reset. */
typedef struct timewheel {
    int64_t now_ms;               /* the wheel's time: largest time seen, Unix ms, >= 0 */
    size_t count;                 /* nodes scheduled: in slots, on the due list, or parked */
    uint64_t occupied[TW_LEVELS]; /* bit s of occupied[l] set iff slots[l][s] has nodes */
    tw_node slots[TW_LEVELS][TW_SLOTS_PER_LEVEL]; /* list heads; expire_ms unused */
    tw_node due;                  /* head: nodes whose deadline the wheel's time has reached */
    tw_node parked;               /* head, used inside tw_advance only: due nodes the caller's
                                     clock (behind the wheel's time) has not reached yet */
    uint64_t stat_slots_visited;  /* slots emptied while turning the wheel */
    uint64_t stat_nodes_cascaded; /* nodes moved down from a level > 0 */
    uint64_t stat_nodes_fired;    /* callbacks made by tw_advance */
    uint64_t stat_clock_behind;   /* tw_advance calls whose now_ms < the wheel's time */
    uint64_t stat_nodes_parked;   /* due nodes set aside because the clock was behind */
} timewheel;

/* ==== API ==== */

/* Start an empty wheel at now_ms (a negative time is taken as 0). O(levels x
 * slots), once. */
void tw_init(timewheel *tw, int64_t now_ms);

/* Release the wheel. It owns no heap memory, so this only empties it; the
 * nodes belong to the caller and are not touched (the caller may already have
 * freed them), so their links are stale: do not pass them to this wheel again
 * without tw_node_init(). */
void tw_free(timewheel *tw);

/* Mark a node as not scheduled. Zeroed memory is already in this state. */
void tw_node_init(tw_node *n);

/* Schedule n to fire at expire_ms (absolute Unix ms, any int64). A deadline
 * <= the wheel's time is due at the next tw_advance(). If n is already
 * scheduled it is moved (cancelled, then added). O(1): no allocation, no
 * search; a few bit operations to find the slot. */
void tw_add(timewheel *tw, tw_node *n, int64_t expire_ms);

/* Unschedule n; a no-op if n is not scheduled (never added, already fired,
 * already cancelled). O(1). Afterwards n->next == NULL; n->expire_ms keeps its
 * value. */
void tw_cancel(timewheel *tw, tw_node *n);

/* 1 if n is scheduled (added, and neither fired nor cancelled since). */
int tw_is_scheduled(const tw_node *n);

/* Advance the wheel's time to now_ms (if it is ahead) and call due(n, ctx)
 * for nodes with n->expire_ms <= now_ms, each one unlinked before its call.
 *
 * Contract:
 * - At most `budget` callbacks; returns how many were made. Nodes left over
 *   stay queued, and the next call continues with them, even if now_ms did
 *   not move.
 * - Order: by deadline, earliest first, except nodes added with a deadline
 *   already <= the wheel's time, which queue behind those already due, and
 *   while the clock is behind the wheel's time (below).
 * - The callback may free n's owner, tw_add() n again, and tw_add() or
 *   tw_cancel() any other node; a node it cancels will not be called. It must
 *   not call tw_advance() or tw_free(). A node it adds with a deadline
 *   <= now_ms may be called back in this same call; a callback that always
 *   re-adds its own node in the past is stopped only by the budget.
 * - Work: O(levels) per non-empty slot whose time is <= now_ms, plus O(1)
 *   per node moved down a level (at most 10 in a node's life), plus O(1) per
 *   callback. Empty ticks cost nothing, however far the clock jumps. The due
 *   nodes are all collected before the first callback, so a call after a
 *   long jump collects them all, even if its budget is small.
 * - Clock behind the wheel (now_ms < the wheel's time, after a backwards
 *   jump): the wheel's time stays put; nodes already due by it are examined
 *   and those with expire_ms > now_ms are kept, at most `budget` of them a
 *   call, so such a call does at most 2 x budget node visits. A node whose
 *   deadline the clock has passed may then wait for a later call; none fires
 *   early.
 * Possible optimisation: a slot with many nodes cascades in one go (a
 * million keys expiring within the same 4.4-minute slot of level 3 move in
 * one call, tens of milliseconds); a real server could cascade in pieces. */
size_t tw_advance(timewheel *tw, int64_t now_ms, size_t budget, void (*due)(tw_node *n, void *ctx),
                  void *ctx);

/* Number of scheduled nodes. O(1). */
size_t tw_count(const timewheel *tw);

/* The wheel's time: the largest now_ms it has seen, Unix ms. */
int64_t tw_now(const timewheel *tw);

/* How long the caller may sleep, in ms from its clock's now_ms, before
 * calling tw_advance() again: -1 if nothing is scheduled (sleep as long as
 * you like), 0 if something is due now. Guarantee: no node's deadline is
 * earlier than now_ms + the hint, so sleeping that long never makes a node
 * late. It may be early: the hint is the start of the next non-empty slot,
 * and for a level > 0 that is when its nodes cascade, not their deadline,
 * so a node may cost up to one extra wake-up per level it descends.
 * One exception: when the clock is behind the wheel's time and due nodes
 * wait for it to catch up, the hint is 1 (look again next tick) rather than
 * a scan of the due list. O(levels). */
int64_t tw_next_deadline_hint(const timewheel *tw, int64_t now_ms);

#endif

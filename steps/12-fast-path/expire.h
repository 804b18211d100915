/* expire.h -- expire times, and the deletion of expired keys.
 *
 * A TTL is stored as an absolute Unix time in milliseconds, never as "seconds
 * left": a relative time would have to be decremented by someone, while an
 * absolute one is simply compared with the clock. EXPIRE 10 at 12:00:00.000
 * stores 12:00:10.000; TTL later answers the difference.
 *
 * An expired key is deleted when a command touches it (lazy expiry,
 * expire_if_needed()). That is cheap and exact for every read, and it has one
 * flaw: a key nobody touches again is never freed, unless something else
 * (active expiry) looks for it. */
#ifndef EXPIRE_H
#define EXPIRE_H

#include <stdint.h>

#include "dict.h"
#include "event_loop.h"
#include "expire_time.h"
#include "info.h"
#include "keyspace.h"
#include "net.h"

/* Give the key a TTL, or move it: it is (re)scheduled in the wheel. A key
 * that had no TTL gets its entry reallocated with a wheel node: the key's
 * entry is returned, and de must not be used again. */
dict_entry *expire_set(keyspace *ks, dict_entry *de, int64_t expire_at_ms);

/* Drop the key's TTL, if it has one: unschedule it and reallocate its entry
 * without the node. Returns the key's entry; de must not be used again. */
dict_entry *expire_remove(keyspace *ks, dict_entry *de);

/* Redis's rule: a key is expired once the clock is strictly past its time. */
int key_is_expired(dict_entry *de, int64_t now_ms);

/* Lazy expiry: delete the key if its time has passed. Returns 1 if deleted. */
int expire_if_needed(keyspace *ks, dict_entry *de, int64_t now_ms);

/* Active expiry: every key with a TTL is scheduled in the keyspace's timing
 * wheel, and this, run on every turn of the event loop, deletes the keys
 * whose time has passed, as the wheel hands them over, at most `budget` of
 * them. Returns how many were deleted; a return of `budget` means more may
 * be due. Lazy expiry stays, so a read between two turns is exact. */
size_t expire_due_keys(keyspace *ks, int64_t now_ms, size_t budget);

/* Keys active expiry may delete per turn of the event loop. When a million
 * keys fall due at once, they are deleted a thousand at a time, and clients
 * are served between the batches. */
#define EXPIRE_BUDGET_KEYS 1000

/* Active expiry's switch, its figures for INFO, and what its hook needs. */
typedef struct wheel_expirer {
    int enabled;          /* delete due keys? DEBUG SET-ACTIVE-EXPIRE 0|1 */
    uint64_t budget_hits; /* turns that stopped at EXPIRE_BUDGET_KEYS */
    int64_t time_used_us; /* time spent deleting due keys, µs */
    keyspace *ks;         /* the keyspace the hook expires keys in (wheel_expirer_start()) */
    int max_sleep_ms;     /* the longest wait the hook lets the loop take */
} wheel_expirer;

/* Switched on, with no figures yet. */
void wheel_expirer_init(wheel_expirer *we);

/* One turn of active expiry, run before the event loop waits for events:
 * delete the keys the wheel says are due, at most EXPIRE_BUDGET_KEYS of
 * them, then say how long the loop may sleep, in ms: not at all if the
 * budget ran out (more keys are due; clients are served first, then the next
 * batch), otherwise until the wheel's next slot, at most max_sleep_ms. */
int expire_turn(wheel_expirer *we, keyspace *ks, int max_sleep_ms);

/* Put active expiry on the event loop: before every wait of el, a turn over
 * ks, whose answer becomes the loop's longest wait, at most max_sleep_ms.
 * we and ks must outlive the loop. */
void wheel_expirer_start(wheel_expirer *we, keyspace *ks, event_loop *el, int max_sleep_ms);

/* The hook wheel_expirer_start() installs, with the wheel_expirer as its
 * data: expire_turn(), then el_set_max_sleep() with what it answered. */
void wheel_expirer_before_sleep(event_loop *el, void *data);

/* Active expiry's fields of INFO's Stats section: Redis's names for the two
 * figures of an expire cycle that mean the same here (the cap reached is the
 * budget spent; the time is the time spent deleting), then the wheel's own.
 * The wheel samples nothing, so it has no expired_stale_perc to report. */
void expire_info(info_request *r, const wheel_expirer *we, const keyspace *ks);

/* ==== What the TTL commands answer ==== */

/* What TTL (unit_ms 0) or PTTL (1) answers for a key expiring at expire_at_ms:
 * the time left, never negative, seconds rounded to nearest as Redis does. */
long long ttl_reply_value(int64_t expire_at_ms, int64_t now_ms, int unit_ms);

/* ==== Commands ==== */

void expire_command(client *c, int argc, arg *argv);    /* EXPIRE key seconds [NX|XX|GT|LT] */
void pexpire_command(client *c, int argc, arg *argv);   /* PEXPIRE key ms [...] */
void expireat_command(client *c, int argc, arg *argv);  /* EXPIREAT key unix-s [...] */
void pexpireat_command(client *c, int argc, arg *argv); /* PEXPIREAT key unix-ms [...] */
void ttl_command(client *c, int argc, arg *argv);
void pttl_command(client *c, int argc, arg *argv);
void expiretime_command(client *c, int argc, arg *argv);
void pexpiretime_command(client *c, int argc, arg *argv);
void persist_command(client *c, int argc, arg *argv);

#endif

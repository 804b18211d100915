/* snapshot.h -- the keyspace saved to a file and loaded back: SAVE, BGSAVE,
 * the save points, and loading at start-up.
 *
 * A snapshot is the whole keyspace at one moment, in Redis's RDB format
 * (rdb.h), written to `dir`/`dbfilename`. Each key's expire time is in it
 * as absolute Unix ms, so a key whose time passed while the server was down
 * is simply not loaded, and every other key is back with the same deadline,
 * scheduled in the wheel like any other.
 *
 * A file is never overwritten in place: a save writes temp-<pid>.rdb, makes
 * it durable (fsync), and only then renames it over the old file. A crash at
 * any moment leaves either the old snapshot or the new one, whole. */
#ifndef SNAPSHOT_H
#define SNAPSHOT_H

#include <stdint.h>
#include <sys/types.h>

#include "event_loop.h"
#include "info.h"
#include "keyspace.h"
#include "net.h"

/* A save point: BGSAVE when `changes` writes are at least `seconds` old. */
typedef struct save_point {
    long long seconds;
    long long changes;
} save_point;

#define SNAPSHOT_MAX_SAVE_POINTS 16
/* Redis's default: after an hour if 1 key changed, after 5 minutes if 100
 * did, after a minute if 10,000 did (server.c initServerConfig, 7.0.15). */
#define SNAPSHOT_DEFAULT_SAVE "3600 1 300 100 60 10000"
/* ms between two checks of the save points and of a running BGSAVE child
 * (Redis checks both in serverCron, at hz 10). */
#define SNAPSHOT_CRON_MS 100
/* s before a failed BGSAVE is retried by the save points (Redis's
 * CONFIG_BGSAVE_RETRY_DELAY). */
#define SNAPSHOT_BGSAVE_RETRY_S 5

typedef struct snapshotter {
    /* Settings, from the command line. */
    const char *dir;                             /* --dir: the server works in this directory */
    const char *dbfilename;                      /* --dbfilename: the snapshot's name in dir */
    save_point points[SNAPSHOT_MAX_SAVE_POINTS]; /* --save */
    int npoints;                                 /* 0: no automatic saves, none at SIGTERM */
    long long key_delay_us; /* --rdb-key-save-delay: µs slept per key written (tests) */
    /* State. */
    keyspace *ks;              /* what is saved and loaded */
    pid_t child;               /* the BGSAVE child, or 0 */
    int child_pipe;            /* the child's report (its copy-on-write bytes), or -1 */
    int64_t child_start_ms;    /* when it was forked, Unix ms */
    uint64_t dirty_at_fork;    /* ks->dirty when it was forked */
    int64_t lastsave_s;        /* last successful save, Unix s (start-up counts as one) */
    int64_t last_bgsave_try_s; /* last BGSAVE attempt, Unix s */
    int last_bgsave_ok;        /* did the last BGSAVE succeed? */
    int64_t last_bgsave_ms;    /* how long it took, ms; -1 before the first */
    long long last_cow_bytes;  /* memory the last child had to copy, bytes */
    uint64_t saves;            /* SAVEs and BGSAVEs started (INFO rdb_saves) */
    uint64_t loaded_keys;      /* keys the last load added */
    uint64_t expired_at_load;  /* keys the last load skipped: their time had passed */
    int exit_ready;            /* SHUTDOWN has done what exiting needs */
    /* Called when a BGSAVE child has finished, ok 1 if it wrote the file:
     * replication sends that file to the replicas waiting for it. */
    void (*on_bgsave_done)(void *data, int ok);
    void *on_bgsave_done_data;
} snapshotter;

/* Parse a --save value, "" or "seconds changes [seconds changes ...]".
 * Returns 1, or 0 with *why set. */
int snapshot_parse_save(snapshotter *s, const char *spec, const char **why);

/* Redis's defaults: dir ".", dbfilename dump.rdb, the default save points. */
void snapshot_init(snapshotter *s, keyspace *ks);

/* Move into dir and load dbfilename if it exists. Returns 0, or -1 with a
 * one-line reason in err (the file, the byte offset, what was wrong): the
 * server must not start then, and the file is left as it is. */
int snapshot_open(snapshotter *s, char *err, size_t errlen);

/* Check the save points and a running BGSAVE every SNAPSHOT_CRON_MS. */
void snapshot_start(snapshotter *s, event_loop *el);

/* Called when the event loop has stopped (SIGTERM, SIGINT or SHUTDOWN):
 * stop a running BGSAVE and, with save points set, save. Returns 1 when the
 * server may exit, 0 when that save failed and it must keep serving, as
 * Redis does. */
int snapshot_before_exit(snapshotter *s);

/* INFO's Persistence section. */
void snapshot_info(info_request *r, const snapshotter *s);

/* What CONFIG GET answers for dir, dbfilename and save; NULL for other
 * names. out holds the text when it must be built. */
const char *snapshot_config_value(const snapshotter *s, const char *name, char *out, size_t outlen);

/* After FLUSHALL: stop a running BGSAVE and, with save points set, save
 * the empty keyspace, as Redis does. */
void snapshot_after_flushall(snapshotter *s);

/* Start a BGSAVE, as the command does. Returns 0, or -1 when a child
 * already runs or fork() failed. */
int snapshot_bgsave(snapshotter *s);
/* The snapshot file's bytes, read whole into *out (mem_free() them).
 * Returns their length, or -1 with errno set. */
long long snapshot_read_file(const snapshotter *s, uint8_t **out);

/* A replica's load of the snapshot its master sent: the bytes are checked
 * whole first, so a damaged transfer leaves the keyspace as it was; then
 * the keyspace is emptied and every key loaded, keys past their time
 * included: only the master deletes them. Returns 0, or -1 with err set
 * (and, for a key named twice, an empty keyspace). */
int snapshot_load_replica(snapshotter *s, const uint8_t *bytes, size_t len, char *err,
                          size_t errlen);

/* DEBUG RELOAD: save, empty the keyspace, load the file back. */
void snapshot_debug_reload(client *c);

void save_command(client *c, int argc, arg *argv);
void bgsave_command(client *c, int argc, arg *argv);
void lastsave_command(client *c, int argc, arg *argv);
void shutdown_command(client *c, int argc, arg *argv);

#endif

/* snapshot.c -- saving the keyspace to an RDB file and loading it back:
 * SAVE, BGSAVE, LASTSAVE, SHUTDOWN, DEBUG RELOAD, the save points, and the
 * load at start-up. See snapshot.h; the file format is rdb.c's. */
#define _POSIX_C_SOURCE 200809L
#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "clock.h"
#include "command.h"
#include "expire.h"
#include "rdb.h"
#include "reply.h"
#include "server.h"
#include "strnum.h"

/* One line of the server's log, as its other lines: "08-snapshot: ...". */
static void snapshot_log(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("%s: ", STEP_NAME);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
}

/* ==== Settings ==== */

void snapshot_init(snapshotter *s, keyspace *ks) {
    memset(s, 0, sizeof(*s));
    s->dir = ".";
    s->dbfilename = "dump.rdb";
    s->ks = ks;
    s->child_pipe = -1;
    s->last_bgsave_ok = 1;
    s->last_bgsave_ms = -1;
    const char *why;
    snapshot_parse_save(s, SNAPSHOT_DEFAULT_SAVE, &why);
}

/* "" clears the save points; otherwise pairs of positive numbers. */
int snapshot_parse_save(snapshotter *s, const char *spec, const char **why) {
    save_point points[SNAPSHOT_MAX_SAVE_POINTS];
    int n = 0, words = 0;
    long long pair[2];
    const char *p = spec;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p) break;
        size_t len = strcspn(p, " ");
        if (!string_to_ll(p, len, &pair[words % 2]) || pair[words % 2] < 0) {
            *why = "save points are numbers: seconds changes [seconds changes ...]";
            return 0;
        }
        if (words % 2 == 1) {
            if (n == SNAPSHOT_MAX_SAVE_POINTS) {
                *why = "too many save points";
                return 0;
            }
            points[n++] = (save_point){pair[0], pair[1]};
        }
        words++;
        p += len;
    }
    if (words % 2) {
        *why = "save points come in pairs: seconds changes";
        return 0;
    }
    memcpy(s->points, points, sizeof(points[0]) * (size_t)n);
    s->npoints = n;
    return 1;
}

const char *snapshot_config_value(const snapshotter *s, const char *name, char *out,
                                  size_t outlen) {
    if (strcmp(name, "dir") == 0) return getcwd(out, outlen) ? out : s->dir;
    if (strcmp(name, "dbfilename") == 0) return s->dbfilename;
    if (strcmp(name, "save") != 0) return NULL;
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < s->npoints && used < outlen; i++)
        used += (size_t)snprintf(out + used, outlen - used, "%s%lld %lld", i ? " " : "",
                                 s->points[i].seconds, s->points[i].changes);
    return out;
}

/* ==== Writing a snapshot ====
 *
 * The keyspace goes to temp-<pid>.rdb, which is then made durable and
 * renamed over dbfilename. rename() replaces a name atomically: whoever
 * opens dbfilename gets the old file or the new one, never half of one, and
 * a crash before the rename leaves only a stray temp file. The fsync()s
 * matter as much: without the first, the rename could reach the disk before
 * the data, and a power cut would leave a new name on an empty file; the
 * last makes the rename itself durable. Expired keys not yet deleted are
 * written too, as Redis writes them: the loader drops them. */

typedef struct save_pass {
    rdb_writer *w;
    long long key_delay_us;
} save_pass;

static int write_entry(dict_entry *de, void *ctx) {
    save_pass *pass = ctx;
    const value *v = de->val;
    rdb_write_string_key(pass->w, dict_entry_key(de), de->keylen, v->bytes, v->len,
                         key_expire_ms(de));
    if (pass->key_delay_us > 0) {
        struct timespec pause = {pass->key_delay_us / 1000000, pass->key_delay_us % 1000000 * 1000};
        nanosleep(&pause, NULL);
    }
    return pass->w->error != 0;
}

/* fsync() the directory, so the rename in it survives a crash. */
static int sync_directory(void) {
    int fd = open(".", O_RDONLY);
    if (fd == -1) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* Write the whole keyspace to dbfilename, by way of temp-<pid>.rdb.
 * Returns 0, or -1 after logging why; the old file is then untouched. */
static int write_snapshot(snapshotter *s) {
    char tmp[64];
    snprintf(tmp, sizeof(tmp), "temp-%ld.rdb", (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd == -1) {
        snapshot_log("Failed opening the temp RDB file %s for saving: %s", tmp, strerror(errno));
        return -1;
    }
    rdb_writer *w = mem_alloc(sizeof(*w));
    rdb_aux aux = {clock_now_ms() / 1000, mem_used(), keyspace_size(s->ks),
                   tw_count(&s->ks->wheel)};
    rdb_write_start(w, fd, &aux);
    save_pass pass = {w, s->key_delay_us};
    dict_for_each(s->ks->keys, write_entry, &pass);
    const char *step = "write";
    int rc = rdb_write_end(w), err = w->error;
    mem_free(w);
    if (rc == 0 && fsync(fd) == -1) step = "fsync", err = errno, rc = -1;
    if (close(fd) == -1 && rc == 0) step = "close", err = errno, rc = -1;
    if (rc == 0 && rename(tmp, s->dbfilename) == -1) step = "rename", err = errno, rc = -1;
    if (rc == 0 && sync_directory() == -1) step = "fsync of the directory", err = errno, rc = -1;
    if (rc != 0) {
        snapshot_log("Write error saving DB on disk (%s): %s", step, strerror(err));
        unlink(tmp);
    }
    return rc;
}

/* SAVE, SHUTDOWN and DEBUG RELOAD: in the foreground; nothing else runs. */
static int save_in_foreground(snapshotter *s) {
    s->saves++;
    if (write_snapshot(s) != 0) return -1;
    snapshot_log("DB saved on disk");
    s->ks->dirty = 0;
    s->lastsave_s = clock_now_ms() / 1000;
    s->last_bgsave_ok = 1;
    return 0;
}

/* ==== BGSAVE: a child writes, the parent serves ====
 *
 * fork() gives the child a copy of the parent's memory: the whole keyspace
 * as it was at that instant, whatever the parent does next. The copy is
 * lazy. Both processes share every page until one of them writes to it;
 * only then does the kernel copy that page ("copy-on-write"). The child only
 * reads, so what gets copied is what the parent changes while the child
 * runs: every key it writes, every key it deletes, expired keys included.
 * The child measures that (its private dirty memory) and reports it through
 * a pipe, as Redis does, for INFO's rdb_last_cow_size. */

/* This process's memory that is its own alone: the pages copied since the
 * fork. Linux's /proc; 0 where there is none. */
static long long private_dirty_bytes(void) {
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (f == NULL) return 0;
    char line[256];
    long long kb = 0, total = 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "Private_Dirty: %lld kB", &kb) == 1) total += kb;
    fclose(f);
    return total * 1024;
}

/* The child: write the snapshot, report, exit. SIGTERM kills it outright (a
 * parent that stops kills its child: see snapshot_before_exit()). _exit(),
 * not exit(): the parent's stdio buffers and exit handlers are the parent's. */
static void run_child(snapshotter *s, int report_fd) {
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    close(server.net.listen_fd); /* the port belongs to the parent */
    int rc = write_snapshot(s);
    long long cow = private_dirty_bytes();
    if (write(report_fd, &cow, sizeof(cow)) != (ssize_t)sizeof(cow)) cow = 0;
    _exit(rc == 0 ? 0 : 1);
}

/* Start a BGSAVE. Returns 0, or -1 if a child already runs or fork() failed. */
static int save_in_background(snapshotter *s) {
    if (s->child) return -1;
    int report[2];
    if (pipe(report) == -1) report[0] = report[1] = -1;
    s->saves++;
    s->dirty_at_fork = s->ks->dirty;
    s->last_bgsave_try_s = clock_now_ms() / 1000;
    fflush(stdout); /* else the child would print the parent's buffered lines again */
    pid_t pid = fork();
    if (pid == 0) run_child(s, report[1]);
    if (report[1] != -1) close(report[1]);
    if (pid == -1) {
        if (report[0] != -1) close(report[0]);
        s->last_bgsave_ok = 0;
        snapshot_log("Can't save in background: fork: %s", strerror(errno));
        return -1;
    }
    s->child = pid;
    s->child_pipe = report[0];
    s->child_start_ms = clock_now_ms();
    snapshot_log("Background saving started by pid %ld", (long)pid);
    return 0;
}

/* The child has exited: record how it went. A child killed by a signal
 * leaves its temp file behind, so the parent removes it. */
static void child_finished(snapshotter *s, int status) {
    long long cow = 0;
    if (s->child_pipe != -1) {
        if (read(s->child_pipe, &cow, sizeof(cow)) == (ssize_t)sizeof(cow)) s->last_cow_bytes = cow;
        close(s->child_pipe);
        s->child_pipe = -1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        snapshot_log("Background saving terminated with success");
        s->ks->dirty = s->ks->dirty > s->dirty_at_fork ? s->ks->dirty - s->dirty_at_fork : 0;
        s->lastsave_s = clock_now_ms() / 1000;
        s->last_bgsave_ok = 1;
    } else if (WIFEXITED(status)) {
        snapshot_log("Background saving error");
        s->last_bgsave_ok = 0;
    } else {
        snapshot_log("Background saving terminated by signal %d", WTERMSIG(status));
        char tmp[64];
        snprintf(tmp, sizeof(tmp), "temp-%ld.rdb", (long)s->child);
        unlink(tmp);
        s->last_bgsave_ok = 0;
    }
    s->last_bgsave_ms = clock_now_ms() - s->child_start_ms;
    s->child = 0;
    if (s->on_bgsave_done) s->on_bgsave_done(s->on_bgsave_done_data, s->last_bgsave_ok);
}

int snapshot_bgsave(snapshotter *s) {
    return save_in_background(s);
}

/* Reap the child if it has exited; never waits for it. */
static void check_child(snapshotter *s) {
    int status;
    pid_t pid = waitpid(s->child, &status, WNOHANG);
    if (pid == s->child) child_finished(s, status);
    if (pid == -1 && errno == ECHILD) child_finished(s, 1 << 8); /* lost: count it failed */
}

/* Redis's rule (serverCron): a save point fires when it has seen enough
 * changes, its time has passed since the last save, and the last BGSAVE
 * succeeded or failed long enough ago to try again. */
static void check_save_points(snapshotter *s) {
    int64_t now_s = clock_now_ms() / 1000;
    for (int i = 0; i < s->npoints; i++) {
        const save_point *sp = &s->points[i];
        if (s->ks->dirty >= (uint64_t)sp->changes && now_s - s->lastsave_s > sp->seconds &&
            (s->last_bgsave_ok || now_s - s->last_bgsave_try_s > SNAPSHOT_BGSAVE_RETRY_S)) {
            snapshot_log("%lld changes in %lld seconds. Saving...", sp->changes, sp->seconds);
            save_in_background(s);
            return;
        }
    }
}

static int64_t snapshot_cron(event_loop *el, int64_t id, void *data) {
    (void)el;
    (void)id;
    snapshotter *s = data;
    if (s->child)
        check_child(s);
    else
        check_save_points(s);
    return SNAPSHOT_CRON_MS;
}

void snapshot_start(snapshotter *s, event_loop *el) {
    el_add_timer(el, SNAPSHOT_CRON_MS, snapshot_cron, s);
}

/* Stop a running child, waiting for it, and remove its temp file. */
static void kill_child(snapshotter *s) {
    if (!s->child) return;
    kill(s->child, SIGKILL);
    int status;
    while (waitpid(s->child, &status, 0) == -1 && errno == EINTR) {
    }
    snapshot_log("There is a child saving an .rdb. Killing it!");
    child_finished(s, status);
}

int snapshot_before_exit(snapshotter *s) {
    if (s->exit_ready) return 1;
    kill_child(s);
    if (s->npoints == 0) return 1;
    snapshot_log("Saving the final RDB snapshot before exiting.");
    if (save_in_foreground(s) == 0) return 1;
    snapshot_log("Error trying to save the DB, can't exit.");
    return 0;
}

/* ==== Loading ====
 *
 * The file is read whole and parsed by rdb_read(), which calls load_key()
 * for each key. Time is read once, before the first key, as Redis's
 * rdbLoad() does: a key whose deadline is before that moment died while the
 * server was down. It is not added, so no client ever sees it and the wheel
 * never holds it; it is only counted (rdb_last_load_keys_expired, not
 * expired_keys: no running server expired it). Every other key with a TTL
 * is scheduled in the wheel at the deadline the file gives, unchanged,
 * which is why deadlines are absolute: a relative "10 s left" would mean
 * nothing after a restart an hour later. */

typedef struct load_pass {
    snapshotter *s;
    int64_t now_ms;   /* when the load began */
    int keep_expired; /* a replica's load: keys past their time stay (replication.c) */
} load_pass;

static int load_key(void *ctx, const rdb_key *k, const char **why) {
    load_pass *pass = ctx;
    keyspace *ks = pass->s->ks;
    if (k->has_expire && k->expire_at_ms < pass->now_ms && !pass->keep_expired) {
        pass->s->expired_at_load++;
        return 0;
    }
    arg key = {k->key, k->keylen}, val = {k->val, k->vallen};
    dict_entry *de = keyspace_add(ks, &key, &val, k->has_expire);
    if (de == NULL) {
        *why = "it appears twice in the file";
        return -1;
    }
    if (k->has_expire) expire_set(ks, de, k->expire_at_ms);
    pass->s->loaded_keys++;
    return 0;
}

/* RESIZEDB: the keys that follow, so the table is sized once, not grown and
 * rehashed as they arrive (a hint only: keys already expired make it large). */
static void size_keyspace(void *ctx, uint64_t keys, uint64_t with_ttl) {
    (void)with_ttl;
    load_pass *pass = ctx;
    dict_expand(pass->s->ks->keys, (size_t)keys);
}

/* The whole of a file, in memory. Returns its length, or -1 with errno. */
static ssize_t read_whole_file(int fd, uint8_t **out) {
    struct stat st;
    if (fstat(fd, &st) == -1) return -1;
    size_t size = (size_t)st.st_size, done = 0;
    uint8_t *buf = mem_alloc(size ? size : 1);
    while (done < size) {
        ssize_t n = read(fd, buf + done, size - done);
        if (n == -1 && errno == EINTR) continue;
        if (n <= 0) break; /* shorter than fstat said: parse what is there */
        done += (size_t)n;
    }
    *out = buf;
    return (ssize_t)done;
}

long long snapshot_read_file(const snapshotter *s, uint8_t **out) {
    int fd = open(s->dbfilename, O_RDONLY);
    if (fd == -1) return -1;
    ssize_t len = read_whole_file(fd, out);
    close(fd);
    return len;
}

/* Load dbfilename into the (empty) keyspace. Returns 0 (a missing file is
 * an empty keyspace), or -1 with err set and the keyspace emptied again. */
static int load_snapshot(snapshotter *s, char *err, size_t errlen) {
    char cwd[512];
    if (getcwd(cwd, sizeof(cwd)) == NULL) snprintf(cwd, sizeof(cwd), "%s", s->dir);
    int fd = open(s->dbfilename, O_RDONLY);
    if (fd == -1) {
        if (errno == ENOENT) return 0;
        snprintf(err, errlen, "cannot open %s/%s: %s", cwd, s->dbfilename, strerror(errno));
        return -1;
    }
    uint8_t *file;
    ssize_t len = read_whole_file(fd, &file);
    close(fd);
    if (len < 0) {
        snprintf(err, errlen, "cannot read %s/%s: %s", cwd, s->dbfilename, strerror(errno));
        return -1;
    }
    int64_t start_us = clock_mono_us();
    load_pass pass = {s, clock_now_ms(), 0};
    rdb_file_facts facts;
    rdb_error e;
    s->loaded_keys = s->expired_at_load = 0;
    rdb_read_calls calls = {load_key, size_keyspace};
    int rc = rdb_read(file, (size_t)len, &calls, &pass, &facts, &e);
    mem_free(file);
    if (rc != 0) {
        snprintf(err, errlen, "cannot load %s/%s: offset %zu: %s", cwd, s->dbfilename, e.offset,
                 e.what);
        keyspace_clear(s->ks);
        return -1;
    }
    if (facts.version >= 5 && !facts.checksummed)
        snapshot_log("RDB file was saved with checksum disabled: no check performed.");
    snapshot_log("DB loaded from disk: %.3f seconds", (double)(clock_mono_us() - start_us) / 1e6);
    snapshot_log("Done loading RDB, keys loaded: %llu, keys expired: %llu.",
                 (unsigned long long)s->loaded_keys, (unsigned long long)s->expired_at_load);
    return 0;
}

/* A key of a load that only checks the bytes (snapshot_load_replica()). */
static int check_key(void *ctx, const rdb_key *k, const char **why) {
    (void)ctx;
    (void)k;
    (void)why;
    return 0;
}

int snapshot_load_replica(snapshotter *s, const uint8_t *bytes, size_t len, char *err,
                          size_t errlen) {
    rdb_file_facts facts;
    rdb_error e;
    rdb_read_calls check = {check_key, NULL};
    if (rdb_read(bytes, len, &check, NULL, &facts, &e) != 0) {
        snprintf(err, errlen, "offset %zu: %s", e.offset, e.what);
        return -1;
    }
    keyspace_clear(s->ks);
    load_pass pass = {s, clock_now_ms(), 1};
    rdb_read_calls calls = {load_key, size_keyspace};
    s->loaded_keys = s->expired_at_load = 0;
    if (rdb_read(bytes, len, &calls, &pass, &facts, &e) != 0) {
        snprintf(err, errlen, "offset %zu: %s", e.offset, e.what); /* a key twice */
        keyspace_clear(s->ks);
        return -1;
    }
    snapshot_log("Done loading RDB, keys loaded: %llu, keys expired: 0.",
                 (unsigned long long)s->loaded_keys);
    return 0;
}

int snapshot_open(snapshotter *s, char *err, size_t errlen) {
    if (chdir(s->dir) == -1) {
        snprintf(err, errlen, "Can't chdir to '%s': %s", s->dir, strerror(errno));
        return -1;
    }
    s->lastsave_s = clock_now_ms() / 1000; /* at start-up, what is on disk counts as saved */
    return load_snapshot(s, err, errlen);
}

/* ==== INFO ==== */

void snapshot_info(info_request *r, const snapshotter *s) {
    if (!info_section(r, "persistence", "Persistence")) return;
    int64_t now_ms = clock_now_ms();
    info_field(r, "loading", "0"); /* a load finishes before the first client */
    info_field(r, "rdb_changes_since_last_save", "%llu", (unsigned long long)s->ks->dirty);
    info_field(r, "rdb_bgsave_in_progress", "%d", s->child != 0);
    info_field(r, "rdb_last_save_time", "%lld", (long long)s->lastsave_s);
    info_field(r, "rdb_last_bgsave_status", "%s", s->last_bgsave_ok ? "ok" : "err");
    info_field(r, "rdb_last_bgsave_time_sec", "%lld",
               (long long)(s->last_bgsave_ms < 0 ? -1 : s->last_bgsave_ms / 1000));
    info_field(r, "rdb_current_bgsave_time_sec", "%lld",
               (long long)(s->child ? (now_ms - s->child_start_ms) / 1000 : -1));
    info_field(r, "rdb_saves", "%llu", (unsigned long long)s->saves);
    info_field(r, "rdb_last_cow_size", "%lld", s->last_cow_bytes);
    info_field(r, "rdb_last_load_keys_expired", "%llu", (unsigned long long)s->expired_at_load);
    info_field(r, "rdb_last_load_keys_loaded", "%llu", (unsigned long long)s->loaded_keys);
}

/* ==== Commands ==== */

/* SAVE: write the snapshot now; the server does nothing else meanwhile. */
void save_command(client *c, int argc, arg *argv) {
    (void)argc;
    (void)argv;
    if (server.snap.child) {
        reply_error(c, "Background save already in progress");
        return;
    }
    if (save_in_foreground(&server.snap) == 0)
        reply_ok(c);
    else
        reply_error(c, "-ERR"); /* Redis's bare shared.err: the log says why */
}

#define BGSAVE_STARTED "+Background saving started\r\n" /* a status reply */

/* BGSAVE [SCHEDULE]: fork a child that writes the snapshot. SCHEDULE only
 * matters beside an AOF rewrite, which this server has none of. */
void bgsave_command(client *c, int argc, arg *argv) {
    if (argc > 2 || (argc == 2 && !arg_is(&argv[1], "schedule"))) {
        reply_syntax_error(c);
        return;
    }
    if (server.snap.child)
        reply_error(c, "Background save already in progress");
    else if (save_in_background(&server.snap) == 0)
        buf_append(&c->out, BGSAVE_STARTED, sizeof(BGSAVE_STARTED) - 1);
    else
        reply_error(c, "-ERR");
}

/* LASTSAVE: when the last save succeeded, Unix seconds. */
void lastsave_command(client *c, int argc, arg *argv) {
    (void)argc;
    (void)argv;
    reply_integer(c, server.snap.lastsave_s);
}

/* SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE]: save as the save points or the
 * option say, then stop. A save that fails keeps the server running, with
 * an error, unless FORCE. NOW (do not wait for replicas) changes nothing
 * here. On success there is no reply: the connection closes as the server
 * exits. */
void shutdown_command(client *c, int argc, arg *argv) {
    int nosave = 0, save = 0, force = 0;
    for (int i = 1; i < argc; i++) {
        if (arg_is(&argv[i], "nosave"))
            nosave = 1;
        else if (arg_is(&argv[i], "save"))
            save = 1;
        else if (arg_is(&argv[i], "force"))
            force = 1;
        else if (!arg_is(&argv[i], "now")) {
            reply_syntax_error(c);
            return;
        }
    }
    if (nosave && save) {
        reply_syntax_error(c);
        return;
    }
    snapshotter *s = &server.snap;
    kill_child(s);
    if ((s->npoints > 0 && !nosave) || save) {
        snapshot_log("Saving the final RDB snapshot before exiting.");
        if (save_in_foreground(s) != 0 && !force) {
            snapshot_log("Error trying to save the DB, can't exit.");
            reply_error(c, "Errors trying to SHUTDOWN. Check logs.");
            return;
        }
    }
    s->exit_ready = 1;
    el_stop(server.loop);
}

void snapshot_after_flushall(snapshotter *s) {
    kill_child(s);
    if (s->npoints > 0) save_in_foreground(s);
}

/* DEBUG RELOAD: save, empty, load: the round trip a restart makes, without
 * the restart. Keys that expired in the meantime are dropped by the load. */
void snapshot_debug_reload(client *c) {
    snapshotter *s = &server.snap;
    if (save_in_foreground(s) != 0) {
        reply_error(c, "-ERR");
        return;
    }
    keyspace_clear(s->ks);
    char err[512];
    if (load_snapshot(s, err, sizeof(err)) != 0) {
        snapshot_log("%s", err);
        reply_error(c, "Error trying to load the RDB dump");
        return;
    }
    reply_ok(c);
}

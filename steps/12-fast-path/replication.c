/* replication.c -- the master's side of replication: REPLCONF, PSYNC and
 * SYNC, the full sync with a snapshot, the backlog and partial resyncs, the
 * stream of writes, and what INFO and ROLE say about it. See replication.h
 * for the protocol. */
#define _POSIX_C_SOURCE 200809L
#include "replication.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "alloc.h"
#include "clock.h"
#include "command.h"
#include "reply.h"
#include "server.h"
#include "strnum.h"

/* One line of the server's log, as its other lines: "09-replication: ...". */
static void repl_log(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("%s: ", STEP_NAME);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
}

/* A replication id: 40 random hex characters. A new one starts a new
 * history, which no replica can continue with a partial resync. */
static void new_replid(char out[REPL_ID_LEN + 1]) {
    uint8_t bytes[REPL_ID_LEN / 2];
    random_bytes(bytes, sizeof(bytes));
    for (size_t i = 0; i < sizeof(bytes); i++)
        snprintf(out + 2 * i, 3, "%02x", bytes[i]);
}

static void on_client_close(client *c, void *data);
static void snapshot_done(void *data, int ok);
static void replica_name(const replica *rp, char *out, size_t outlen);

void replication_init(replication *r, snapshotter *snap, net_server *net) {
    memset(r, 0, sizeof(*r));
    new_replid(r->replid);
    r->backlog_size = REPL_BACKLOG_SIZE_DEFAULT;
    r->ping_period_s = REPL_PING_PERIOD_S_DEFAULT;
    r->obuf_hard = REPL_OBUF_HARD_DEFAULT;
    r->obuf_soft = REPL_OBUF_SOFT_DEFAULT;
    r->obuf_soft_s = REPL_OBUF_SOFT_S_DEFAULT;
    r->stream_db = -1;
    buf_init(&r->pending);
    buf_init(&r->link_in);
    r->link_fd = -1;
    r->snap = snap;
    r->net = net;
    snap->on_bgsave_done = snapshot_done;
    snap->on_bgsave_done_data = r;
}

int replication_parse_backlog_size(replication *r, const char *value, const char **why) {
    unsigned long long n;
    if (!string_to_memory(value, strlen(value), &n)) {
        *why = "argument must be a memory value";
        return 0;
    }
    if (n < REPL_BACKLOG_MIN_SIZE || n > (1ULL << 40)) {
        *why = "argument must be between 16kb and 1tb";
        return 0;
    }
    r->backlog_size = (size_t)n;
    return 1;
}

int replication_parse_obuf_limit(replication *r, const char *value, const char **why) {
    char class[16], hard[32], soft[32], seconds[32], rest[2];
    unsigned long long h, so;
    long long sec;
    if (sscanf(value, "%15s %31s %31s %31s %1s", class, hard, soft, seconds, rest) != 4) {
        *why = "expected \"replica HARD SOFT SECONDS\"";
        return 0;
    }
    if (strcasecmp(class, "replica") != 0 && strcasecmp(class, "slave") != 0) {
        *why = "this server limits only the replica class";
        return 0;
    }
    if (!string_to_memory(hard, strlen(hard), &h) || !string_to_memory(soft, strlen(soft), &so) ||
        !string_to_ll(seconds, strlen(seconds), &sec) || sec < 0) {
        *why = "HARD and SOFT must be memory values, SECONDS a number of seconds";
        return 0;
    }
    r->obuf_hard = h;
    r->obuf_soft = so;
    r->obuf_soft_s = sec;
    return 1;
}

/* ==== The backlog ====
 *
 * A ring of backlog_size bytes holding the end of the stream. The byte at
 * offset master_repl_offset is the last one written; the ring holds
 * backlog_histlen bytes, so the first it still holds has the offset below. */

static int64_t backlog_first_offset(const replication *r) {
    return r->master_repl_offset - (int64_t)r->backlog_histlen + 1;
}

static void backlog_create(replication *r) {
    r->backlog = mem_alloc(r->backlog_size);
    r->backlog_histlen = 0;
    r->backlog_next = 0;
}

static void backlog_append(replication *r, const char *bytes, size_t len) {
    while (len > 0) {
        size_t room = r->backlog_size - r->backlog_next;
        size_t n = len < room ? len : room;
        memcpy(r->backlog + r->backlog_next, bytes, n);
        r->backlog_next = (r->backlog_next + n) % r->backlog_size;
        r->backlog_histlen += n;
        bytes += n;
        len -= n;
    }
    if (r->backlog_histlen > r->backlog_size) r->backlog_histlen = r->backlog_size;
}

/* Append to out every byte of the backlog from offset `from` on. */
static void backlog_copy_from(const replication *r, int64_t from, buffer *out) {
    size_t skip = (size_t)(from - backlog_first_offset(r));
    size_t len = r->backlog_histlen - skip;
    size_t start =
        (r->backlog_next + r->backlog_size - r->backlog_histlen + skip) % r->backlog_size;
    while (len > 0) {
        size_t n = r->backlog_size - start < len ? r->backlog_size - start : len;
        buf_append(out, r->backlog + start, n);
        start = (start + n) % r->backlog_size;
        len -= n;
    }
}

/* ==== The stream ==== */

/* Is anyone listening? Until the first replica comes there is no backlog,
 * and a write costs nothing more than it did in chapter 08. */
static int stream_wanted(const replication *r) {
    return r->backlog != NULL || r->replicas != NULL;
}

/* Is this replica's unsent stream over its output limit (Redis's
 * checkClientOutputBufferLimits(), networking.c, 7.0.15)? Over the hard
 * limit, at once; over the soft one, once it has stayed over for more than
 * obuf_soft_s seconds. As in Redis, a hard limit under the backlog's size
 * counts as the backlog's size, or a partial resync would end in a drop. */
static int over_output_limit(const replication *r, replica *rp) {
    size_t used = rp->state == REPLICA_ONLINE ? rp->c->out.len - rp->c->out_sent : rp->held.len;
    unsigned long long hard = r->obuf_hard;
    if (hard && hard < r->backlog_size) hard = r->backlog_size;
    if (hard && used >= hard) return 1;
    if (!r->obuf_soft || used < r->obuf_soft) {
        rp->soft_since_ms = 0;
        return 0;
    }
    int64_t now = clock_now_ms();
    if (rp->soft_since_ms == 0) rp->soft_since_ms = now;
    return (now - rp->soft_since_ms) / 1000 > r->obuf_soft_s;
}

/* Drop a replica that cannot keep up. It is closed at the end of this turn,
 * not now: we are inside another client's command, walking the replicas. */
static void drop_slow_replica(replica *rp) {
    if (rp->c->close_asap) return;
    char name[sizeof(rp->ip) + 8];
    replica_name(rp, name, sizeof(name));
    repl_log("Client %s closed for overcoming of output buffer limits.", name);
    rp->c->close_asap = 1;
    net_queue_write(rp->c);
}

/* Put bytes into the stream: the backlog, every online replica's output,
 * and what each replica waiting for its snapshot holds for after it. */
static void feed(replication *r, const char *bytes, size_t len) {
    backlog_append(r, bytes, len);
    r->master_repl_offset += (int64_t)len;
    for (replica *rp = r->replicas; rp; rp = rp->next) {
        if (rp->state == REPLICA_ONLINE) {
            buf_append(&rp->c->out, bytes, len);
            net_queue_write(rp->c);
        } else if (rp->state == REPLICA_WAIT_BGSAVE_END) {
            buf_append(&rp->held, bytes, len);
        } else {
            continue;
        }
        if (over_output_limit(r, rp)) drop_slow_replica(rp);
    }
}

/* A command as RESP: an array of bulk strings, as a client sends it. */
static void encode_command(buffer *b, int argc, const arg *argv) {
    char head[32];
    buf_append(b, head, (size_t)snprintf(head, sizeof(head), "*%d\r\n", argc));
    for (int i = 0; i < argc; i++) {
        buf_append(b, head, (size_t)snprintf(head, sizeof(head), "$%zu\r\n", argv[i].len));
        buf_append(b, argv[i].ptr, argv[i].len);
        buf_append(b, "\r\n", 2);
    }
}

/* The first command after a full sync starts with SELECT: the replica must
 * not guess which database the stream is in. There is one, database 0. */
static void feed_select(replication *r) {
    if (r->stream_db == 0) return;
    static const char select0[] = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n";
    feed(r, select0, sizeof(select0) - 1);
    r->stream_db = 0;
}

/* The commands a replica's clients may not run: those that write. */
static const char *const write_commands[] = {
    "set",       "del",     "expire",   "pexpire", "expireat",
    "pexpireat", "persist", "flushall", "flushdb", NULL,
};

static int is_write_command(const char *name) {
    for (const char *const *w = write_commands; *w; w++)
        if (strcmp(*w, name) == 0) return 1;
    return 0;
}

static void master_command_done(replication *r, client *c);
static void send_ack(replication *r);

void repl_command_begin(replication *r, client *c) {
    r->in_command = 1;
    r->current = c;
    r->out_before = c->out.len;
}

int repl_refuses_command(replication *r, client *c, const char *name) {
    if (!repl_is_replica(r) || c == r->master || !is_write_command(name)) return 0;
    reply_error(c, "-READONLY You can't write against a read only replica.");
    return 1;
}

void repl_command_end(replication *r, client *c) {
    r->in_command = 0;
    r->current = NULL;
    if (c == r->master) master_command_done(r, c);
    if (r->pending_count == 0) return;
    static const char multi[] = "*1\r\n$5\r\nMULTI\r\n", exec[] = "*1\r\n$4\r\nEXEC\r\n";
    feed_select(r);
    if (r->pending_count > 1) feed(r, multi, sizeof(multi) - 1);
    feed(r, r->pending.data, r->pending.len);
    if (r->pending_count > 1) feed(r, exec, sizeof(exec) - 1);
    c->woff = r->master_repl_offset;
    r->pending.len = 0;
    r->pending_count = 0;
    buf_shrink_if_idle(&r->pending, 64 * 1024);
}

void repl_propagate(replication *r, int argc, const arg *argv) {
    if (!stream_wanted(r)) return;
    if (r->in_command) {
        encode_command(&r->pending, argc, argv);
        r->pending_count++;
        return;
    }
    buffer b;
    buf_init(&b);
    encode_command(&b, argc, argv);
    feed_select(r);
    feed(r, b.data, b.len);
    buf_free(&b);
}

void repl_propagate_expired(replication *r, const char *key, size_t keylen) {
    arg del[2] = {{"DEL", 3}, {key, keylen}};
    repl_propagate(r, 2, del);
}

/* ==== Replicas ==== */

/* The peer's address of a connection, without the port. */
static void peer_ip(int fd, char *out, size_t outlen) {
    struct sockaddr_storage sa;
    socklen_t salen = sizeof(sa);
    snprintf(out, outlen, "?");
    if (fd == -1 || getpeername(fd, (struct sockaddr *)&sa, &salen) == -1) return;
    if (sa.ss_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, out, (socklen_t)outlen);
    else if (sa.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, out, (socklen_t)outlen);
}

/* "ip:port" of a replica, the port it serves on, as Redis's log names it
 * (replicationGetSlaveName()). */
static void replica_name(const replica *rp, char *out, size_t outlen) {
    snprintf(out, outlen, "%s:%d", rp->ip, rp->listening_port);
}

client_type repl_client_type(const replication *r, const client *c) {
    if (c == r->master) return CLIENT_TYPE_MASTER;
    /* Redis flags a replica at its SYNC or PSYNC, not at its REPLCONFs. */
    if (c->replica && c->replica->state != REPLICA_HANDSHAKE) return CLIENT_TYPE_REPLICA;
    return CLIENT_TYPE_NORMAL;
}

/* The replica state of a client, created by its first REPLCONF or PSYNC. */
static replica *replica_of(replication *r, client *c) {
    if (c->replica) return c->replica;
    replica *rp = mem_calloc(1, sizeof(*rp));
    rp->c = c;
    peer_ip(c->fd, rp->ip, sizeof(rp->ip));
    rp->state = REPLICA_HANDSHAKE;
    buf_init(&rp->held);
    rp->next = r->replicas;
    r->replicas = rp;
    c->replica = rp;
    return rp;
}

/* net calls this for every client it closes: forget it if it was one. */
static void master_link_lost(replication *r);
static void forget_waiter(replication *r, client *c);

static void on_client_close(client *c, void *data) {
    replication *r = data;
    if (c == r->master) master_link_lost(r);
    if (c->blocked) forget_waiter(r, c);
    replica *rp = c->replica;
    if (rp == NULL) return;
    replica **link = &r->replicas;
    while (*link != rp)
        link = &(*link)->next;
    *link = rp->next;
    if (rp->state != REPLICA_HANDSHAKE) {
        char name[sizeof(rp->ip) + 8];
        replica_name(rp, name, sizeof(name));
        repl_log("Connection with replica %s lost.", name);
        r->replica_count--;
    }
    buf_free(&rp->held);
    mem_free(rp);
    c->replica = NULL;
}

/* Queue bytes for a replica, outside any reply of its own. */
static void send_to_replica(replica *rp, const char *bytes, size_t len) {
    buf_append(&rp->c->out, bytes, len);
    net_queue_write(rp->c);
}

/* ==== Full sync ====
 *
 * A replica that cannot continue gets the whole keyspace: a BGSAVE (chapter
 * 08) writes the snapshot while the master serves on, and the writes made
 * meanwhile wait in the replica's `held` buffer. The +FULLRESYNC line names
 * the offset the snapshot stands for: the stream offset at the fork. When
 * the child is done, the replica gets the file, then what was held, and
 * from then on the stream as it happens. This is Redis's disk target
 * (repl-diskless-sync no); Redis 7.0 by default streams the snapshot
 * straight from the child into the socket instead. */

/* Fork the BGSAVE the replicas waiting for one need, unless a child already
 * runs (its snapshot began before they asked: they wait for the next). */
static void start_snapshot_for_replicas(replication *r) {
    int waiting = 0;
    for (replica *rp = r->replicas; rp; rp = rp->next)
        waiting += rp->state == REPLICA_WAIT_BGSAVE_START;
    if (waiting == 0 || r->snap->child) return;
    int64_t offset = r->master_repl_offset;
    if (snapshot_bgsave(r->snap) == -1) {
        /* fork() failed: the replicas are dropped, and will ask again. */
        for (replica *rp = r->replicas; rp; rp = rp->next)
            if (rp->state == REPLICA_WAIT_BGSAVE_START) rp->c->close_after_reply = 1;
        return;
    }
    char line[REPL_ID_LEN + 48];
    int n = snprintf(line, sizeof(line), "+FULLRESYNC %s %lld\r\n", r->replid, (long long)offset);
    for (replica *rp = r->replicas; rp; rp = rp->next) {
        if (rp->state != REPLICA_WAIT_BGSAVE_START) continue;
        if (!rp->pre_psync) send_to_replica(rp, line, (size_t)n); /* SYNC gets no such line */
        rp->state = REPLICA_WAIT_BGSAVE_END;
    }
    r->stream_db = -1; /* the snapshot says nothing of a database: SELECT again */
}

/* The snapshot's bytes, then what was held, to every replica waiting for
 * them. The payload has no CRLF after it: the stream follows at once. */
static void send_snapshot(replication *r, const uint8_t *file, size_t len) {
    char head[32];
    int n = snprintf(head, sizeof(head), "$%zu\r\n", len);
    for (replica *rp = r->replicas; rp; rp = rp->next) {
        if (rp->state != REPLICA_WAIT_BGSAVE_END) continue;
        buf_append(&rp->c->out, head, (size_t)n);
        buf_append(&rp->c->out, file, len);
        buf_append(&rp->c->out, rp->held.data, rp->held.len);
        buf_free(&rp->held);
        buf_init(&rp->held);
        net_queue_write(rp->c);
        rp->state = REPLICA_ONLINE;
        rp->ack_time_ms = clock_now_ms();
        char name[sizeof(rp->ip) + 8];
        replica_name(rp, name, sizeof(name));
        repl_log("Synchronization with replica %s succeeded", name);
    }
}

/* snapshot.c calls this when a BGSAVE child is done. */
static void snapshot_done(void *data, int ok) {
    replication *r = data;
    uint8_t *file = NULL;
    long long len = ok ? snapshot_read_file(r->snap, &file) : -1;
    if (len >= 0) {
        send_snapshot(r, file, (size_t)len);
    } else {
        for (replica *rp = r->replicas; rp; rp = rp->next)
            if (rp->state == REPLICA_WAIT_BGSAVE_END) {
                repl_log("SYNC failed. BGSAVE child returned an error");
                rp->c->close_after_reply = 1;
                net_queue_write(rp->c);
            }
    }
    if (len >= 0) mem_free(file);
    start_snapshot_for_replicas(r);
}

/* ==== PSYNC and SYNC ==== */

/* Continue a replica's stream from the backlog, if the history it names is
 * ours and the bytes it lacks are still there. Redis's rule
 * (masterTryPartialResynchronization() in replication.c, 7.0.15). */
static int try_partial_resync(replication *r, replica *rp, const arg *replid, long long from) {
    if (r->backlog == NULL || replid->len != REPL_ID_LEN ||
        memcmp(replid->ptr, r->replid, REPL_ID_LEN) != 0) {
        if (!(replid->len == 1 && replid->ptr[0] == '?'))
            repl_log("Partial resynchronization not accepted: Replication ID mismatch "
                     "(Replica asked for '%.*s', my replication ID is '%s')",
                     (int)replid->len, replid->ptr, r->replid);
        return 0;
    }
    if (from < backlog_first_offset(r) || from > r->master_repl_offset + 1) {
        repl_log("Unable to partial resync with replica for lack of backlog "
                 "(Replica request was: %lld).",
                 from);
        return 0;
    }
    rp->state = REPLICA_ONLINE;
    rp->ack_time_ms = clock_now_ms();
    r->replica_count++;
    char line[REPL_ID_LEN + 16];
    int n = rp->capa_psync2 ? snprintf(line, sizeof(line), "+CONTINUE %s\r\n", r->replid)
                            : snprintf(line, sizeof(line), "+CONTINUE\r\n");
    buf_append(&rp->c->out, line, (size_t)n);
    backlog_copy_from(r, from, &rp->c->out);
    repl_log("Partial resynchronization request accepted. Sending %lld bytes of backlog "
             "starting from offset %lld.",
             (long long)(r->master_repl_offset - from + 1), from);
    return 1;
}

/* PSYNC replid offset, or SYNC (replid NULL): the client becomes a replica. */
static void sync_generic(client *c, const arg *replid, const arg *offset) {
    replication *r = &server.repl;
    if (c->replica && c->replica->state != REPLICA_HANDSHAKE) return; /* already one */
    if (c->out.len > c->out_sent) {
        reply_error(c, "SYNC and PSYNC are invalid with pending output");
        return;
    }
    long long from = 0;
    if (replid && !string_to_ll(offset->ptr, offset->len, &from)) {
        reply_not_integer(c);
        return;
    }
    replica *rp = replica_of(r, c);
    char name[sizeof(rp->ip) + 8];
    replica_name(rp, name, sizeof(name));
    repl_log("Replica %s asks for synchronization", name);
    if (replid) {
        if (try_partial_resync(r, rp, replid, from)) {
            r->partial_ok++;
            return;
        }
        if (!(replid->len == 1 && replid->ptr[0] == '?')) r->partial_err++;
    } else {
        rp->pre_psync = 1; /* an old protocol: no ACKs will come */
    }
    r->full_syncs++;
    rp->state = REPLICA_WAIT_BGSAVE_START;
    r->replica_count++;
    if (r->backlog == NULL) {
        /* A history begins: a new id, so nobody continues an older one. */
        new_replid(r->replid);
        backlog_create(r);
        repl_log("Replication backlog created, my new replication ID is '%s'", r->replid);
    }
    start_snapshot_for_replicas(r);
}

void psync_command(client *c, int argc, arg *argv) {
    (void)argc;
    sync_generic(c, &argv[1], &argv[2]);
}

void sync_command(client *c, int argc, arg *argv) {
    (void)argc;
    (void)argv;
    sync_generic(c, NULL, NULL);
}

/* ==== WAIT ====
 *
 * WAIT numreplicas timeout blocks its client until that many replicas have
 * acknowledged every write the client made (its woff), or until timeout ms
 * pass (0: for ever), and answers how many have. To hear sooner than the
 * once-a-second ACKs, it puts REPLCONF GETACK * in the stream, which every
 * replica answers at once (waitCommand() in replication.c, 7.0.15). */

typedef struct waiter {
    client *c;
    int64_t woff;          /* the offset the replicas must have acknowledged */
    long long numreplicas; /* how many must */
    int64_t timer;         /* the timeout's timer, or 0 */
    struct waiter *next;
} waiter;

static long long acked_replicas(const replication *r, int64_t woff) {
    long long n = 0;
    for (const replica *rp = r->replicas; rp; rp = rp->next)
        n += rp->state == REPLICA_ONLINE && rp->ack_offset >= woff;
    return n;
}

/* Answer a waiting client with the count, and let it go on. */
static void wake_waiter(replication *r, waiter *w) {
    waiter **link = &r->waiters;
    while (*link != w)
        link = &(*link)->next;
    *link = w->next;
    if (w->timer) el_del_timer(r->net->loop, w->timer);
    reply_integer(w->c, acked_replicas(r, w->woff));
    net_unblock_client(w->c);
    mem_free(w);
}

/* After every ACK: wake those whose replicas have caught up. */
static void wake_satisfied_waiters(replication *r) {
    waiter *w = r->waiters;
    while (w) {
        waiter *next = w->next;
        if (acked_replicas(r, w->woff) >= w->numreplicas) wake_waiter(r, w);
        w = next;
    }
}

static int64_t wait_timed_out(event_loop *el, int64_t id, void *data) {
    (void)el;
    (void)id;
    waiter *w = data;
    w->timer = 0; /* this timer is being deleted by the loop */
    wake_waiter(&server.repl, w);
    return -1;
}

/* A waiting client that went away. */
static void forget_waiter(replication *r, client *c) {
    for (waiter *w = r->waiters; w; w = w->next)
        if (w->c == c) {
            waiter **link = &r->waiters;
            while (*link != w)
                link = &(*link)->next;
            *link = w->next;
            if (w->timer) el_del_timer(r->net->loop, w->timer);
            mem_free(w);
            return;
        }
}

void wait_command(client *c, int argc, arg *argv) {
    (void)argc;
    replication *r = &server.repl;
    if (repl_is_replica(r)) {
        reply_error(c, "WAIT cannot be used with replica instances. Please also note that "
                       "since Redis 4.0 if a replica is configured to be writable (which is "
                       "not the default) writes to replicas are just local and are not "
                       "propagated.");
        return;
    }
    long long numreplicas, timeout;
    if (!string_to_ll(argv[1].ptr, argv[1].len, &numreplicas)) {
        reply_not_integer(c);
        return;
    }
    if (!string_to_ll(argv[2].ptr, argv[2].len, &timeout)) {
        reply_error(c, "timeout is not an integer or out of range");
        return;
    }
    if (timeout < 0) {
        reply_error(c, "timeout is negative");
        return;
    }
    long long have = acked_replicas(r, c->woff);
    if (have >= numreplicas) {
        reply_integer(c, have);
        return;
    }
    waiter *w = mem_calloc(1, sizeof(*w));
    *w = (waiter){c, c->woff, numreplicas, 0, r->waiters};
    if (timeout > 0) w->timer = el_add_timer(r->net->loop, timeout, wait_timed_out, w);
    r->waiters = w;
    c->blocked = 1;
    /* Fed without a SELECT, as a PING is: it names no key. */
    static const char getack[] = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n";
    feed(r, getack, sizeof(getack) - 1);
}

/* ==== REPLCONF ====
 *
 * Option-value pairs a replica sends before PSYNC (listening-port, capa),
 * and ACK afterwards. Every option answers +OK at the end, except ACK and
 * GETACK, which never answer: a reply would land in the replica's stream.
 * (replconfCommand() in replication.c, 7.0.15.) */
void replconf_command(client *c, int argc, arg *argv) {
    if (argc % 2 == 0) {
        reply_syntax_error(c);
        return;
    }
    replication *r = &server.repl;
    for (int i = 1; i < argc; i += 2) {
        const arg *opt = &argv[i], *val = &argv[i + 1];
        long long n;
        if (arg_is(opt, "listening-port")) {
            if (!string_to_ll(val->ptr, val->len, &n)) {
                reply_not_integer(c);
                return;
            }
            replica_of(r, c)->listening_port = (int)n;
        } else if (arg_is(opt, "capa")) {
            if (arg_is(val, "psync2")) replica_of(r, c)->capa_psync2 = 1;
            /* eof: we send the snapshot as $<len> anyway. Others: ignored. */
        } else if (arg_is(opt, "ack")) {
            replica *rp = c->replica;
            if (rp == NULL || rp->state == REPLICA_HANDSHAKE) return;
            if (!string_to_ll(val->ptr, val->len, &n)) return;
            if (n > rp->ack_offset) rp->ack_offset = n;
            rp->ack_time_ms = clock_now_ms();
            wake_satisfied_waiters(r);
            return;
        } else if (arg_is(opt, "getack")) {
            /* From our master: answer at once with the offset before this
             * command. A master has nobody to acknowledge to. */
            if (c == r->master && r->master) {
                send_ack(r);
                r->force_reply = 1;
            }
            return;
        } else if (arg_is(opt, "ip-address") || arg_is(opt, "rdb-only") ||
                   arg_is(opt, "rdb-filter-only")) {
            /* accepted and ignored: this master serves every replica alike */
        } else {
            reply_errorf(c, "Unrecognized REPLCONF option: %.*s", (int)opt->len, opt->ptr);
            return;
        }
    }
    reply_ok(c);
}

/* ==== The replica's side: following a master ====
 *
 * A replica connects to its master as a client would, and says who it is
 * in the order a 7.0.15 replica does (syncWithMaster()): PING, REPLCONF
 * listening-port, REPLCONF capa, then PSYNC, reading each reply before the
 * next. The master answers +CONTINUE (the stream goes on from our offset)
 * or +FULLRESYNC, then a snapshot, in one of two forms: "$<len>\r\n" and
 * len bytes, or "$EOF:<40 bytes>\r\n" and bytes up to those 40 again. Bare
 * "\n" keep-alives may come before either line. What follows the snapshot
 * is the stream: the socket then becomes an ordinary client, `master`,
 * whose commands run like anyone's, with their replies thrown away. */

static void link_log_close(replication *r, const char *why);

static void link_close(replication *r) {
    if (r->link_fd != -1) {
        el_unwatch(r->net->loop, r->link_fd, EL_READABLE | EL_WRITABLE);
        close(r->link_fd);
        r->link_fd = -1;
    }
    r->link_in.len = 0;
    buf_shrink_if_idle(&r->link_in, 0);
    r->link = LINK_CONNECT; /* the cron tries again */
}

static void link_log_close(replication *r, const char *why) {
    repl_log("%s", why);
    link_close(r);
}

/* Send one command on the link. The socket is fresh and the commands are
 * small, so the kernel takes them whole; Redis writes them the same way,
 * synchronously (sendCommand() in replication.c). */
static int link_send(replication *r, int argc, const arg *argv) {
    buffer b;
    buf_init(&b);
    encode_command(&b, argc, argv);
    ssize_t n = send(r->link_fd, b.data, b.len, MSG_NOSIGNAL);
    int ok = n == (ssize_t)b.len;
    buf_free(&b);
    return ok ? 0 : -1;
}

/* One line from link_in, without its CRLF, into out; 0 if none is whole. */
static int link_line(replication *r, char *out, size_t outlen) {
    char *nl = memchr(r->link_in.data, '\n', r->link_in.len);
    if (nl == NULL) return 0;
    size_t len = (size_t)(nl - r->link_in.data), used = len + 1;
    if (len > 0 && nl[-1] == '\r') len--;
    if (len >= outlen) len = outlen - 1;
    memcpy(out, r->link_in.data, len);
    out[len] = '\0';
    buf_consume(&r->link_in, used);
    return 1;
}

static void send_psync(replication *r) {
    char off[24];
    int known = r->master_replid[0] != '\0';
    snprintf(off, sizeof(off), "%lld", known ? (long long)r->master_offset + 1 : -1LL);
    arg psync[3] = {{"PSYNC", 5},
                    {known ? r->master_replid : "?", known ? REPL_ID_LEN : 1},
                    {off, strlen(off)}};
    if (known)
        repl_log("Trying a partial resynchronization (request %s:%s).", r->master_replid, off);
    else
        repl_log("Partial resynchronization not possible (no cached master)");
    link_send(r, 3, psync);
}

/* The stream flows: the socket becomes the master client, starting at
 * offset `from`, and the bytes already read after the snapshot are its
 * first input. */
static void start_stream(replication *r, int64_t from) {
    int fd = r->link_fd;
    el_unwatch(r->net->loop, fd, EL_READABLE | EL_WRITABLE);
    r->link_fd = -1;
    r->master = net_client_for_fd(r->net, fd);
    if (r->master == NULL) {
        close(fd);
        r->link = LINK_CONNECT;
        return;
    }
    r->link = LINK_CONNECTED;
    r->stream_start = from;
    r->master_offset = from;
    r->master_repl_offset = from;
    r->last_io_ms = clock_now_ms();
    buf_append(&r->master->query, r->link_in.data, r->link_in.len);
    r->link_in.len = 0;
    net_run_client(r->master);
}

/* REPLCONF ACK <offset>: what we have applied, so WAIT can count us. */
static void send_ack(replication *r) {
    char off[24];
    arg ack[3] = {{"REPLCONF", 8}, {"ACK", 3}, {off, 0}};
    ack[2].len = (size_t)snprintf(off, sizeof(off), "%lld", (long long)r->master_offset);
    encode_command(&r->master->out, 3, ack);
    net_queue_write(r->master);
}

/* The snapshot is whole: load it, keeping the keys already past their time
 * (only the master deletes), and start the stream at its offset. */
static void snapshot_received(replication *r, const char *bytes, size_t len) {
    char err[256];
    repl_log("MASTER <-> REPLICA sync: Loading DB in memory");
    if (snapshot_load_replica(r->snap, (const uint8_t *)bytes, len, err, sizeof(err)) != 0) {
        char why[320];
        snprintf(why, sizeof(why), "Failed trying to load the MASTER synchronization DB: %s", err);
        link_log_close(r, why);
        return;
    }
    buf_consume(&r->link_in, len + (r->transfer_eof ? REPL_ID_LEN : 0));
    repl_log("MASTER <-> REPLICA sync: Finished with success");
    /* Only now is the master's history ours: a sync that failed leaves
     * nothing to continue. */
    memcpy(r->master_replid, r->sync_replid, REPL_ID_LEN + 1);
    memcpy(r->replid, r->sync_replid, REPL_ID_LEN + 1);
    start_stream(r, r->sync_offset);
    if (r->master && r->transfer_eof) send_ack(r); /* the master waits for it */
}

/* Read the snapshot's header line, then its bytes. Returns 1 to look at
 * link_in again, 0 to wait for more. */
static int transfer_step(replication *r) {
    if (r->transfer_len < 0 && !r->transfer_eof) {
        char line[128];
        if (!link_line(r, line, sizeof(line))) return 0;
        if (line[0] == '\0') return 1; /* a keep-alive */
        if (line[0] == '-') {
            link_log_close(r, "MASTER aborted replication with an error");
            return 0;
        }
        long long n;
        if (strncmp(line, "$EOF:", 5) == 0 && strlen(line) == 5 + REPL_ID_LEN) {
            r->transfer_eof = 1;
            memcpy(r->eof_mark, line + 5, REPL_ID_LEN);
            repl_log("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF");
        } else if (line[0] == '$' && string_to_ll(line + 1, strlen(line + 1), &n) && n >= 0) {
            r->transfer_len = n;
            repl_log("MASTER <-> REPLICA sync: receiving %lld bytes from master", n);
        } else {
            link_log_close(r, "Bad protocol from MASTER, the first byte is not '$' (we received "
                              "something else), are you sure the host and port are right?");
            return 0;
        }
        return 1;
    }
    if (r->transfer_eof) {
        /* The master sends nothing after the mark until we ACK, so the
         * snapshot is whole exactly when what we hold ends with it. */
        size_t have = r->link_in.len;
        if (have < REPL_ID_LEN ||
            memcmp(r->link_in.data + have - REPL_ID_LEN, r->eof_mark, REPL_ID_LEN) != 0)
            return 0;
        snapshot_received(r, r->link_in.data, have - REPL_ID_LEN);
        return 0;
    }
    if ((long long)r->link_in.len < r->transfer_len) return 0;
    snapshot_received(r, r->link_in.data, (size_t)r->transfer_len);
    return 0;
}

/* The reply to PSYNC. */
static int psync_reply_step(replication *r) {
    char line[256];
    if (!link_line(r, line, sizeof(line))) return 0;
    if (line[0] == '\0') return 1; /* a keep-alive */
    if (strncmp(line, "+FULLRESYNC ", 12) == 0) {
        const char *id = line + 12, *space = strchr(id, ' ');
        long long off;
        if (space == NULL || space - id != REPL_ID_LEN ||
            !string_to_ll(space + 1, strlen(space + 1), &off)) {
            link_log_close(r, "Master replied with wrong +FULLRESYNC syntax.");
            return 0;
        }
        memcpy(r->sync_replid, id, REPL_ID_LEN);
        r->sync_replid[REPL_ID_LEN] = '\0';
        r->sync_offset = off;
        repl_log("Full resync from master: %s:%lld", r->sync_replid, off);
        r->link = LINK_TRANSFER;
        r->transfer_len = -1;
        r->transfer_eof = 0;
        return 1;
    }
    if (strncmp(line, "+CONTINUE", 9) == 0) {
        const char *id = line + 9 + (line[9] == ' ');
        if (strlen(id) == REPL_ID_LEN && strcmp(id, r->master_replid) != 0) {
            memcpy(r->master_replid, id, REPL_ID_LEN + 1); /* the master's history moved on */
            memcpy(r->replid, id, REPL_ID_LEN + 1);
        }
        repl_log("Successful partial resynchronization with master.");
        start_stream(r, r->master_offset);
        return 0;
    }
    char why[320];
    snprintf(why, sizeof(why), "Unexpected reply to PSYNC from master: %s", line);
    link_log_close(r, why);
    return 0;
}

/* One step of the handshake, or of the transfer, on what link_in holds.
 * Returns 1 to look at link_in again, 0 to wait for more bytes. */
static int link_step(replication *r) {
    char line[256];
    if (r->link == LINK_RECEIVE_PSYNC) return psync_reply_step(r);
    if (r->link == LINK_TRANSFER) return transfer_step(r);
    if (!link_line(r, line, sizeof(line))) return 0;
    if (r->link == LINK_RECEIVE_PONG) {
        /* +PONG, or an error that still shows a live Redis (-NOAUTH). */
        if (line[0] != '+' && strncmp(line, "-NOAUTH", 7) != 0 &&
            strncmp(line, "-NOPERM", 7) != 0) {
            char why[320];
            snprintf(why, sizeof(why), "Error reply to PING from master: '%s'", line);
            link_log_close(r, why);
            return 0;
        }
        repl_log("Master replied to PING, replication can continue...");
        char port[16];
        arg conf[3] = {{"REPLCONF", 8}, {"listening-port", 14}, {port, 0}};
        conf[2].len = (size_t)snprintf(port, sizeof(port), "%d", r->net->port);
        link_send(r, 3, conf);
        r->link = LINK_RECEIVE_PORT;
    } else if (r->link == LINK_RECEIVE_PORT) {
        if (line[0] == '-')
            repl_log("(Non critical) Master does not understand REPLCONF listening-port: %s", line);
        arg capa[5] = {{"REPLCONF", 8}, {"capa", 4}, {"eof", 3}, {"capa", 4}, {"psync2", 6}};
        link_send(r, 5, capa);
        r->link = LINK_RECEIVE_CAPA;
    } else if (r->link == LINK_RECEIVE_CAPA) {
        if (line[0] == '-')
            repl_log("(Non critical) Master does not understand REPLCONF capa: %s", line);
        send_psync(r);
        r->link = LINK_RECEIVE_PSYNC;
    }
    return 1;
}

static void link_read_handler(event_loop *el, int fd, void *data, int mask) {
    (void)el;
    (void)mask;
    replication *r = data;
    buf_reserve(&r->link_in, 16 * 1024);
    ssize_t n = recv(fd, r->link_in.data + r->link_in.len, r->link_in.cap - r->link_in.len, 0);
    if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
        link_log_close(r, r->link == LINK_TRANSFER
                              ? "I/O error trying to sync with MASTER: connection lost"
                              : "Master closed the connection during the handshake");
        return;
    }
    if (n < 0) return;
    r->link_in.len += (size_t)n;
    r->last_io_ms = clock_now_ms();
    while (r->link_fd == fd && link_step(r)) {
    }
}

/* connect() has finished: if it worked, the handshake begins with PING. */
static void link_connected_handler(event_loop *el, int fd, void *data, int mask) {
    (void)mask;
    replication *r = data;
    int err = 0;
    socklen_t len = sizeof(err);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1 || err != 0) {
        char why[320];
        snprintf(why, sizeof(why), "Error condition on socket for SYNC: %s",
                 strerror(err ? err : errno));
        link_log_close(r, why);
        return;
    }
    el_unwatch(el, fd, EL_WRITABLE);
    repl_log("MASTER <-> REPLICA sync started");
    if (el_watch(el, fd, EL_READABLE, link_read_handler, r) == -1 ||
        link_send(r, 1, (arg[]){{"PING", 4}}) == -1) {
        link_log_close(r, "Unable to send PING to MASTER");
        return;
    }
    r->link = LINK_RECEIVE_PONG;
    r->last_io_ms = clock_now_ms();
}

/* Start a non-blocking connect() to the master. */
static void link_connect(replication *r) {
    struct addrinfo hints = {0}, *res = NULL;
    char port[16];
    snprintf(port, sizeof(port), "%d", r->master_port);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    repl_log("Connecting to MASTER %s:%d", r->master_host, r->master_port);
    if (getaddrinfo(r->master_host, port, &hints, &res) != 0 || res == NULL) {
        repl_log("Unable to connect to MASTER: cannot resolve %s", r->master_host);
        return;
    }
    int fd = socket(res->ai_family, SOCK_STREAM, 0);
    int yes = 1;
    if (fd != -1) (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    if (fd == -1 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == -1 ||
        (connect(fd, res->ai_addr, res->ai_addrlen) == -1 && errno != EINPROGRESS)) {
        repl_log("Unable to connect to MASTER: %s", strerror(errno));
        if (fd != -1) close(fd);
        freeaddrinfo(res);
        return;
    }
    freeaddrinfo(res);
    r->link_fd = fd;
    r->link = LINK_CONNECTING;
    r->last_io_ms = clock_now_ms();
    if (el_watch(r->net->loop, fd, EL_WRITABLE, link_connected_handler, r) == -1)
        link_log_close(r, "Unable to watch the connection to MASTER");
}

/* The master client has gone (closed by net): keep the history's id and
 * offset, so the next connection can ask to continue it. */
static void master_link_lost(replication *r) {
    r->master = NULL;
    if (r->link == LINK_CONNECTED) {
        repl_log("Connection with master lost.");
        r->link = LINK_CONNECT;
    }
}

/* After each command the master sent: count its bytes into our offset,
 * which the next ACK reports, and throw its reply away unless it was asked
 * for (REPLCONF GETACK). The offset moves only after a whole command, so an
 * ACK answering GETACK does not count the GETACK itself. */
static void master_command_done(replication *r, client *c) {
    r->master_offset = r->stream_start + (int64_t)(c->query_done + parser_consumed(&c->parser));
    r->master_repl_offset = r->master_offset;
    r->last_io_ms = clock_now_ms();
    /* An error means the two keyspaces may now differ: say so, as Redis
     * does (afterErrorReply() in networking.c, 7.0.15), and go on. */
    if (c->out.len > r->out_before && c->out.data[r->out_before] == '-') {
        size_t len = c->out.len - r->out_before - 3; /* without '-' and CRLF */
        repl_log("== CRITICAL == This replica is sending an error to its master: '%.*s'", (int)len,
                 c->out.data + r->out_before + 1);
    }
    if (!r->force_reply) c->out.len = r->out_before;
    r->force_reply = 0;
}

/* Drop whatever link there is: the handshake's socket, or the master client. */
static void drop_master_link(replication *r) {
    if (r->link_fd != -1) link_close(r);
    if (r->master) {
        client *m = r->master;
        client_close(m); /* master_link_lost() runs */
    }
}

void replication_set_master(replication *r, const char *host, int port) {
    drop_master_link(r);
    mem_free(r->master_host);
    size_t len = strlen(host);
    r->master_host = mem_alloc(len + 1);
    memcpy(r->master_host, host, len + 1);
    r->master_port = port;
    r->link = LINK_CONNECT;
    r->master_replid[0] = '\0'; /* a new master: nothing to continue */
    /* Our own replicas followed our old history: they must sync again. */
    for (replica *rp = r->replicas; rp; rp = rp->next)
        if (rp->state != REPLICA_HANDSHAKE) {
            rp->c->close_after_reply = 1;
            net_queue_write(rp->c);
        }
}

/* REPLICAOF NO ONE: a master from now on, with the keyspace it holds. Its
 * clock now decides: the keys already past their time go on the wheel's
 * next turn, and a DEL for each goes to any replica of its own. */
static void become_master(replication *r) {
    drop_master_link(r);
    mem_free(r->master_host);
    r->master_host = NULL;
    r->link = LINK_NONE;
    new_replid(r->replid); /* a history of our own, from the offset we reached */
    repl_log("MASTER MODE enabled (user request)");
}

/* REPLICAOF host port | NO ONE, and its old name SLAVEOF
 * (replicaofCommand() in replication.c, 7.0.15). */
void replicaof_command(client *c, int argc, arg *argv) {
    (void)argc;
    replication *r = &server.repl;
    if (arg_is(&argv[1], "no") && arg_is(&argv[2], "one")) {
        if (repl_is_replica(r)) become_master(r);
        reply_ok(c);
        return;
    }
    if (c->replica && c->replica->state != REPLICA_HANDSHAKE) {
        reply_error(c, "Command is not valid when client is a replica.");
        return;
    }
    long long port;
    if (!string_to_ll(argv[2].ptr, argv[2].len, &port) || port < 0 || port > 65535) {
        reply_error(c, "Invalid master port");
        return;
    }
    char host[256];
    snprintf(host, sizeof(host), "%.*s", (int)argv[1].len, argv[1].ptr);
    if (r->master_host && strcasecmp(r->master_host, host) == 0 && r->master_port == port) {
        repl_log("REPLICAOF would result into synchronization with the master we are already "
                 "connected with. No operation performed.");
        buf_append(&c->out, "+OK Already connected to specified master\r\n", 43);
        return;
    }
    replication_set_master(r, host, (int)port);
    link_connect(r); /* at once, as replicationSetMaster() does (7.0.15) */
    repl_log("REPLICAOF %s:%d enabled (user request)", host, (int)port);
    reply_ok(c);
}

/* Once a second, as a replica: connect when we must, ACK what we applied,
 * and give up on a master that has said nothing for REPL_TIMEOUT_S. */
static void cron_master_link(replication *r, int64_t now) {
    if (r->link == LINK_CONNECT) {
        link_connect(r);
        return;
    }
    if (now - r->last_io_ms > REPL_TIMEOUT_S * 1000) {
        if (r->link == LINK_CONNECTED) {
            repl_log("MASTER timeout: no data nor PING received...");
            drop_master_link(r);
        } else {
            link_log_close(r, "Timeout connecting to the MASTER...");
        }
        return;
    }
    if (r->link == LINK_CONNECTED) send_ack(r);
}

/* ==== The cron: keep-alives, PINGs, timeouts ==== */

static void cron_replicas(replication *r, int64_t now) {
    for (replica *rp = r->replicas; rp; rp = rp->next) {
        if (rp->state == REPLICA_WAIT_BGSAVE_START || rp->state == REPLICA_WAIT_BGSAVE_END)
            send_to_replica(rp, "\n", 1); /* "still here": not part of the stream */
        else if (rp->state == REPLICA_ONLINE && !rp->pre_psync &&
                 now - rp->ack_time_ms > REPL_TIMEOUT_S * 1000) {
            char name[sizeof(rp->ip) + 8];
            replica_name(rp, name, sizeof(name));
            repl_log("Disconnecting timedout replica (streaming sync): %s", name);
            rp->c->close_asap = 1; /* not once written: it may never read again */
            net_queue_write(rp->c);
        }
    }
}

static int64_t replication_cron(event_loop *el, int64_t id, void *data) {
    (void)el;
    (void)id;
    replication *r = data;
    int64_t now = clock_now_ms();
    if (r->replica_count > 0 && now - r->last_ping_ms >= (int64_t)r->ping_period_s * 1000) {
        /* Fed without a SELECT: a PING is the same in every database. */
        static const char ping[] = "*1\r\n$4\r\nping\r\n";
        feed(r, ping, sizeof(ping) - 1);
        r->last_ping_ms = now;
    }
    cron_replicas(r, now);
    start_snapshot_for_replicas(r);
    if (repl_is_replica(r)) cron_master_link(r, now);
    return REPL_CRON_MS;
}

void replication_start(replication *r, event_loop *el) {
    r->net->on_close = on_client_close;
    r->net->on_close_data = r;
    el_add_timer(el, REPL_CRON_MS, replication_cron, r);
    if (repl_is_replica(r)) link_connect(r); /* --replicaof: at once, as Redis does */
}

void replication_free(replication *r) {
    if (r->link_fd != -1) link_close(r);
    mem_free(r->backlog);
    r->backlog = NULL;
    buf_free(&r->pending);
    buf_free(&r->link_in);
    mem_free(r->master_host);
    r->master_host = NULL;
}

/* ==== INFO and ROLE ==== */

static const char *state_name(replica_state s) {
    switch (s) {
    case REPLICA_WAIT_BGSAVE_START:
    case REPLICA_WAIT_BGSAVE_END: return "wait_bgsave";
    case REPLICA_ONLINE: return "online";
    default: return "";
    }
}

/* Replicas past the handshake, oldest first, as Redis lists them. */
static int replicas_in_order(const replication *r, const replica **out, int max) {
    int n = 0;
    for (const replica *rp = r->replicas; rp && n < max; rp = rp->next)
        if (rp->state != REPLICA_HANDSHAKE) out[n++] = rp;
    for (int i = 0; i < n / 2; i++) {
        const replica *t = out[i];
        out[i] = out[n - 1 - i];
        out[n - 1 - i] = t;
    }
    return n;
}

#define REPL_INFO_MAX_REPLICAS 64

void replication_info(info_request *ir, const replication *r) {
    if (!info_section(ir, "replication", "Replication")) return;
    if (repl_is_replica(r)) {
        int64_t now = clock_now_ms();
        info_field(ir, "role", "slave");
        info_field(ir, "master_host", "%s", r->master_host);
        info_field(ir, "master_port", "%d", r->master_port);
        info_field(ir, "master_link_status", r->link == LINK_CONNECTED ? "up" : "down");
        info_field(ir, "master_last_io_seconds_ago", "%d",
                   r->master ? (int)((now - r->last_io_ms) / 1000) : -1);
        info_field(ir, "master_sync_in_progress", "%d", r->link == LINK_TRANSFER);
        info_field(ir, "slave_read_repl_offset", "%lld", (long long)r->master_offset);
        info_field(ir, "slave_repl_offset", "%lld", (long long)r->master_offset);
        info_field(ir, "slave_priority", "100");
        info_field(ir, "slave_read_only", "1");
        info_field(ir, "replica_announced", "1");
    } else {
        info_field(ir, "role", "master");
    }
    info_field(ir, "connected_slaves", "%d", r->replica_count);
    const replica *list[REPL_INFO_MAX_REPLICAS];
    int n = replicas_in_order(r, list, REPL_INFO_MAX_REPLICAS);
    int64_t now = clock_now_ms();
    for (int i = 0; i < n; i++) {
        char name[24]; /* "slave" and any int */
        snprintf(name, sizeof(name), "slave%d", i);
        long lag =
            list[i]->state == REPLICA_ONLINE ? (long)((now - list[i]->ack_time_ms) / 1000) : 0;
        info_field(ir, name, "ip=%s,port=%d,state=%s,offset=%lld,lag=%ld", list[i]->ip,
                   list[i]->listening_port, state_name(list[i]->state),
                   (long long)list[i]->ack_offset, lag);
    }
    info_field(ir, "master_failover_state", "no-failover");
    info_field(ir, "master_replid", "%s", r->replid);
    info_field(ir, "master_replid2", "0000000000000000000000000000000000000000");
    info_field(ir, "master_repl_offset", "%lld", (long long)r->master_repl_offset);
    info_field(ir, "second_repl_offset", "-1");
    info_field(ir, "repl_backlog_active", "%d", r->backlog != NULL);
    info_field(ir, "repl_backlog_size", "%zu", r->backlog_size);
    info_field(ir, "repl_backlog_first_byte_offset", "%lld",
               r->backlog ? (long long)backlog_first_offset(r) : 0LL);
    info_field(ir, "repl_backlog_histlen", "%zu", r->backlog_histlen);
}

void replication_stats_info(info_request *ir, const replication *r) {
    info_field(ir, "sync_full", "%llu", (unsigned long long)r->full_syncs);
    info_field(ir, "sync_partial_ok", "%llu", (unsigned long long)r->partial_ok);
    info_field(ir, "sync_partial_err", "%llu", (unsigned long long)r->partial_err);
}

/* ROLE: master, its offset, and each online replica's ip, port and the
 * offset it acknowledged (roleCommand() in replication.c, 7.0.15). */
void role_command(client *c, int argc, arg *argv) {
    (void)argc;
    (void)argv;
    replication *r = &server.repl;
    if (repl_is_replica(r)) {
        static const char *const names[] = {
            [LINK_CONNECT] = "connect",        [LINK_CONNECTING] = "connecting",
            [LINK_RECEIVE_PONG] = "handshake", [LINK_RECEIVE_PORT] = "handshake",
            [LINK_RECEIVE_CAPA] = "handshake", [LINK_RECEIVE_PSYNC] = "handshake",
            [LINK_TRANSFER] = "sync",          [LINK_CONNECTED] = "connected",
        };
        reply_array(c, 5);
        reply_bulk_cstr(c, "slave");
        reply_bulk_cstr(c, r->master_host);
        reply_integer(c, r->master_port);
        reply_bulk_cstr(c, names[r->link] ? names[r->link] : "none");
        reply_integer(c, r->master ? r->master_offset : -1);
        return;
    }
    const replica *list[REPL_INFO_MAX_REPLICAS];
    int n = replicas_in_order(r, list, REPL_INFO_MAX_REPLICAS), online = 0;
    for (int i = 0; i < n; i++)
        online += list[i]->state == REPLICA_ONLINE;
    reply_array(c, 3);
    reply_bulk_cstr(c, "master");
    reply_integer(c, r->master_repl_offset);
    reply_array(c, online);
    for (int i = 0; i < n; i++) {
        if (list[i]->state != REPLICA_ONLINE) continue;
        char port[16], off[24];
        snprintf(port, sizeof(port), "%d", list[i]->listening_port);
        snprintf(off, sizeof(off), "%lld", (long long)list[i]->ack_offset);
        reply_array(c, 3);
        reply_bulk_cstr(c, list[i]->ip);
        reply_bulk_cstr(c, port);
        reply_bulk_cstr(c, off);
    }
}

/* replication.h -- a master and its replicas: the handshake, the snapshot
 * that starts a replica, and the stream of writes that keeps it in step.
 *
 * A replica is a client that sent PSYNC (or SYNC). From then on the master
 * sends it three things, in this order, over the same connection:
 *
 *   +FULLRESYNC <replid> <offset>   who the master is, and where the stream
 *                                   it is about to send starts
 *   $<len>\r\n<snapshot bytes>      the keyspace at that offset, in RDB
 *                                   format (chapter 08), with no CRLF after it
 *   *2\r\n$6\r\nSELECT...           every write since, as a command the
 *                                   replica runs, for as long as it is connected
 *
 * The stream is numbered: each byte the master ever sent has an offset, and
 * the last byte's offset is master_repl_offset. The master keeps the most
 * recent bytes in a ring, the backlog, so a replica that lost its connection
 * and comes back with "PSYNC <replid> <next offset>" gets +CONTINUE and only
 * what it missed, instead of a whole new snapshot.
 *
 * Expiry is the chapter's subject: only the master deletes a key because its
 * time has passed, and it tells the replicas with a DEL. Every TTL a command
 * sets travels as an absolute time (SET ... PXAT, PEXPIREAT), so a replica
 * that applies a write late still gets the deadline the master meant. */
#ifndef REPLICATION_H
#define REPLICATION_H

#include <stddef.h>
#include <stdint.h>

#include "buffer.h"
#include "event_loop.h"
#include "info.h"
#include "net.h"
#include "snapshot.h"

/* Redis's defaults (config.c, 7.0.15): a 1 MB backlog, a PING to the
 * replicas every 10 s, a replica dropped after 60 s without an ACK. */
#define REPL_BACKLOG_SIZE_DEFAULT  (1024 * 1024)
#define REPL_PING_PERIOD_S_DEFAULT 10
#define REPL_TIMEOUT_S             60
/* A replica that reads too slowly is dropped, as Redis's default
 * client-output-buffer-limit replica 256mb 64mb 60 does: at once past the
 * hard limit, or after more than 60 s spent over the soft one. */
#define REPL_OBUF_HARD_DEFAULT   (256ULL * 1024 * 1024)
#define REPL_OBUF_SOFT_DEFAULT   (64ULL * 1024 * 1024)
#define REPL_OBUF_SOFT_S_DEFAULT 60
/* The replication cron's period: keep-alives, PINGs, timeouts. Redis runs
 * replicationCron() once a second. */
#define REPL_CRON_MS 1000
/* A replication id: 40 hex characters, as Redis's CONFIG_RUN_ID_SIZE. */
#define REPL_ID_LEN 40

/* Where a replica stands, with Redis's names (replstateToString()). */
typedef enum {
    REPLICA_HANDSHAKE,         /* REPLCONF seen, no PSYNC yet: not a replica yet */
    REPLICA_WAIT_BGSAVE_START, /* wants a snapshot; a save for someone else runs */
    REPLICA_WAIT_BGSAVE_END,   /* its snapshot is being written */
    REPLICA_ONLINE,            /* snapshot sent: it gets the stream as it happens */
} replica_state;

/* What the master knows of one replica. */
typedef struct replica {
    client *c;             /* its connection */
    char ip[46];           /* its address (INET6_ADDRSTRLEN), for INFO and the log */
    replica_state state;   /* see above */
    int listening_port;    /* REPLCONF listening-port: where it serves (INFO) */
    int capa_psync2;       /* REPLCONF capa psync2: +CONTINUE names the replid */
    int pre_psync;         /* it sent SYNC: an old replica that never ACKs */
    int64_t ack_offset;    /* the last REPLCONF ACK <offset> */
    int64_t ack_time_ms;   /* when it came, Unix ms */
    buffer held;           /* the stream since its +FULLRESYNC, until its snapshot is out */
    int64_t soft_since_ms; /* when its output went over the soft limit, or 0 */
    struct replica *next;  /* the master's list */
} replica;

/* A replica's link to its master, from connect() to the stream (Redis's
 * REPL_STATE_*, syncWithMaster() in replication.c, 7.0.15). */
typedef enum {
    LINK_NONE,          /* we are a master */
    LINK_CONNECT,       /* to connect on the next cron */
    LINK_CONNECTING,    /* connect() in progress */
    LINK_RECEIVE_PONG,  /* sent PING */
    LINK_RECEIVE_PORT,  /* sent REPLCONF listening-port */
    LINK_RECEIVE_CAPA,  /* sent REPLCONF capa eof capa psync2 */
    LINK_RECEIVE_PSYNC, /* sent PSYNC */
    LINK_TRANSFER,      /* reading the master's snapshot */
    LINK_CONNECTED,     /* the stream flows: the master is a client */
} link_state;

/* The replication state of the server: its id, its offset, its backlog and
 * its replicas; and, when it is a replica, its master. */
typedef struct replication {
    char replid[REPL_ID_LEN + 1]; /* this history's id, random */
    int64_t master_repl_offset;   /* bytes fed to the stream since the history began */
    /* The backlog: the last `backlog_size` bytes of the stream, in a ring. */
    char *backlog;          /* NULL until the first replica comes */
    size_t backlog_size;    /* --repl-backlog-size */
    size_t backlog_histlen; /* bytes it holds, at most backlog_size */
    size_t backlog_next;    /* where the next byte goes */
    int stream_db;          /* the database the stream last SELECTed, -1: none yet */
    replica *replicas;      /* every client that asked for the stream */
    int replica_count;      /* of them, those past the handshake */
    int ping_period_s;      /* --repl-ping-replica-period */
    /* --client-output-buffer-limit "replica HARD SOFT SECONDS" (0: none) */
    unsigned long long obuf_hard, obuf_soft;
    long long obuf_soft_s;
    int64_t last_ping_ms; /* when the stream last carried a PING */
    /* What one command propagates: the commands it asked for, encoded, in
     * order; sent together when it ends (repl_command_end()). */
    int in_command;       /* a command is running */
    buffer pending;       /* its encoded commands */
    int pending_count;    /* how many */
    snapshotter *snap;    /* makes the snapshots a full sync sends */
    net_server *net;      /* the clients */
    uint64_t full_syncs;  /* INFO sync_full */
    uint64_t partial_ok;  /* INFO sync_partial_ok */
    uint64_t partial_err; /* INFO sync_partial_err */
    /* As a replica (master_host not NULL). */
    char *master_host; /* --replicaof or REPLICAOF, or NULL */
    int master_port;
    link_state link;  /* see above */
    int link_fd;      /* the socket, until it becomes `master` */
    buffer link_in;   /* bytes read during the handshake and transfer */
    int transfer_eof; /* the $EOF:<mark> form: the snapshot ends at mark */
    char eof_mark[REPL_ID_LEN];
    long long transfer_len;              /* the $<len> form: the snapshot's length */
    char master_replid[REPL_ID_LEN + 1]; /* the history we follow, "" if none */
    char sync_replid[REPL_ID_LEN + 1];   /* +FULLRESYNC's, ours once its snapshot loads */
    int64_t sync_offset;                 /* +FULLRESYNC's offset */
    int64_t master_offset;               /* the stream offset we have applied (PSYNC sends +1) */
    int64_t stream_start;                /* the offset the master client's first byte follows */
    client *master;                      /* the master, once the stream flows */
    client *current;                     /* the client whose command is running */
    size_t out_before;                   /* its output's length when the command began */
    int force_reply;                     /* the master's command must be answered (GETACK) */
    int64_t last_io_ms;                  /* when the master last sent anything */
    struct waiter *waiters;              /* clients blocked in WAIT */
} replication;

/* A new history: a random replid, offset 0, no backlog, no replicas.
 * Called before the flags are read, as the other modules' init. */
void replication_init(replication *r, snapshotter *snap, net_server *net);
/* Parse --repl-backlog-size (bytes, or with Redis's units: "1mb"): at
 * least REPL_BACKLOG_MIN_SIZE. Returns 1, or 0 with *why set. */
int replication_parse_backlog_size(replication *r, const char *value, const char **why);
#define REPL_BACKLOG_MIN_SIZE (16 * 1024)
/* Put the cron on the loop (keep-alives, PINGs, ACKs, timeouts), hear of
 * closed clients, and, with --replicaof, connect to the master. */
void replication_start(replication *r, event_loop *el);
/* Free the backlog and the replicas' state (their clients are net's). */
void replication_free(replication *r);

/* ==== What commands propagate ====
 *
 * A command that wrote calls repl_propagate() with what the replicas must
 * run to do the same, often a rewrite of what the client sent (EXPIRE k 10
 * becomes PEXPIREAT k <ms>). A command that deleted an expired key before
 * it ran calls repl_propagate_expired() first. When the command ends, what
 * it asked for goes into the stream: one command alone, or several wrapped
 * in MULTI/EXEC so that a replica applies them together, as Redis does
 * (propagatePendingCommands() in server.c, 7.0.15). */

/* Around every command, run or refused (command.c). */
void repl_command_begin(replication *r, client *c);
void repl_command_end(replication *r, client *c);
/* 1, after replying its error, for a command that replication does not let
 * this client run now: a write from a replica's client (Redis's READONLY);
 * 0 for any other. */
int repl_refuses_command(replication *r, client *c, const char *name);
/* Propagate argv[0..argc-1]. */
void repl_propagate(replication *r, int argc, const arg *argv);
/* Propagate DEL key: an expired key the master deleted, lazily in a
 * command, or by the wheel outside any command (sent at once then). */
void repl_propagate_expired(replication *r, const char *key, size_t keylen);

/* ==== As a replica ==== */

/* --client-output-buffer-limit "replica HARD SOFT SECONDS": 1, or 0 with
 * *why set. Only the replica class is limited here ("slave" as its alias). */
int replication_parse_obuf_limit(replication *r, const char *value, const char **why);

/* Follow host:port (--replicaof): connect on the next cron. */
void replication_set_master(replication *r, const char *host, int port);
/* Is this server a replica? Then it never deletes a key on its own clock. */
static inline int repl_is_replica(const replication *r) {
    return r->master_host != NULL;
}
/* Is the command running one the master sent? It sees every key, expired
 * or not: the master has not deleted it, so neither does the replica. */
static inline int repl_master_running(const replication *r) {
    return r->master != NULL && r->current == r->master;
}

/* Redis's client types, which CLIENT KILL TYPE names (getClientType(),
 * networking.c, 7.0.15): the link to our master, a client that asked for
 * the stream, or any other. */
typedef enum { CLIENT_TYPE_NORMAL, CLIENT_TYPE_REPLICA, CLIENT_TYPE_MASTER } client_type;
client_type repl_client_type(const replication *r, const client *c);

/* INFO's Replication section, and the fields of its Stats section. */
void replication_info(info_request *ir, const replication *r);
void replication_stats_info(info_request *ir, const replication *r);

/* Commands. */
void replconf_command(client *c, int argc, arg *argv);  /* REPLCONF option value ... */
void psync_command(client *c, int argc, arg *argv);     /* PSYNC replid offset */
void sync_command(client *c, int argc, arg *argv);      /* SYNC */
void role_command(client *c, int argc, arg *argv);      /* ROLE */
void replicaof_command(client *c, int argc, arg *argv); /* REPLICAOF host port | NO ONE */
void wait_command(client *c, int argc, arg *argv);      /* WAIT numreplicas timeout */

#endif

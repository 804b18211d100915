/* net.h -- clients, sockets and the read/parse/execute/write cycle.
 *
 * This is the part of a server that is the same whatever the commands are:
 * accept connections, read bytes into each client's query buffer, hand every
 * complete command to the step's dispatcher, and write the replies that the
 * command appended to the client's output buffer.
 *
 * Pipelining falls out of the buffers: a read may bring many commands; they
 * are all executed, their replies pile up in the output buffer, and one
 * write() sends them all. */
#ifndef NET_H
#define NET_H

#include <stddef.h>
#include <stdint.h>

#include "buffer.h"
#include "event_loop.h"
#include "resp.h"

struct net_server;
struct net_run_hooks;
struct command;

typedef struct client {
    int fd;                    /* the connection's socket */
    uint64_t id;               /* unique, increasing: CLIENT ID */
    int proto;                 /* 2 or 3: RESP version, switched by HELLO */
    int close_after_reply;     /* QUIT or a protocol error: close once written */
    int close_asap;            /* close at the end of this turn, unsent output dropped */
    int discard_input;         /* protocol error: read and drop input until EOF */
    int64_t linger_timer;      /* timer closing a discarding client, or 0 */
    char *name;                /* CLIENT SETNAME, or NULL */
    buffer query;              /* bytes read, not yet executed */
    uint64_t query_done;       /* bytes dropped from the front of query once executed */
    int blocked;               /* waiting (WAIT): its next commands wait too */
    int resume_input;          /* unblocked: run its waiting commands at the end of the turn */
    int64_t woff;              /* the replication offset after its last write (WAIT) */
    request_parser parser;     /* where parsing of `query` stands */
    buffer out;                /* replies not yet written */
    size_t out_sent;           /* bytes at the front of `out` already written */
    int reading_paused;        /* output backlog too large: stop reading */
    int write_queued;          /* in the server's list of replies to write this turn */
    struct client *next_write; /* next client in that list */
    struct replica *replica;   /* its state as a replica (replication.c), or NULL */
    int run_at_once;           /* never held by the run hooks (net_client_for_fd()) */
    struct net_server *server; /* the server this client belongs to */
    struct client *prev;       /* neighbours in the server's client list */
    struct client *next;
} client;

typedef struct net_server {
    event_loop *loop;               /* the one event loop */
    int listen_fd;                  /* the listening socket, or -1 */
    int port;                       /* TCP port we listen on */
    client *clients;                /* all connected clients, newest first */
    client *write_queue;            /* clients whose replies wait for the end of the turn */
    size_t client_count;            /* length of the list */
    uint64_t next_client_id;        /* id for the next accepted client */
    const struct command *commands; /* the step's command table (command.h) */
    int accept_paused;              /* out of descriptors: accepting later */
    uint64_t total_connections;     /* accepted since start (INFO) */
    uint64_t total_commands;        /* executed since start (INFO) */

    /* When a client that has been read runs (the run hooks, below). */
    const struct net_run_hooks *run_hooks;   /* the hooks; NULL: at once */
    void *run_hooks_ctx;                     /* handed to the hooks */
    size_t query_buffer_limit;               /* a client's input not yet run, at most (bytes) */
    void (*on_close)(client *c, void *data); /* called for each client closed, or NULL */
    void *on_close_data;                     /* its data */
} net_server;

/* Bytes a client may have waiting in its output buffer before we stop
 * reading its commands. A client that pipelines millions of commands and
 * never reads its replies then costs a bounded amount of memory: its own
 * TCP window does the back-pressure. (Redis has no such limit for normal
 * clients by default, so it buffers without bound.) */
#define CLIENT_OUTPUT_PAUSE_BYTES (64 * 1024 * 1024)

/* A client whose input not yet executed passes query_buffer_limit bytes is
 * closed (read_handler() in net.c says what counts). Redis's
 * client-query-buffer-limit: 1 GB by default, at least 1 MB (config.c,
 * 7.0.15), set with --client-query-buffer-limit. */
#define CLIENT_QUERY_BUFFER_LIMIT_DEFAULT (1024ULL * 1024 * 1024)
#define CLIENT_QUERY_BUFFER_LIMIT_MIN     (1024ULL * 1024)
#define CLIENT_QUERY_BUFFER_LIMIT_MAX     9223372036854775807ULL /* LONG_MAX, as Redis */

/* Sets query_buffer_limit to CLIENT_QUERY_BUFFER_LIMIT_DEFAULT. */
void net_init(net_server *s, event_loop *loop, const struct command *commands);

/* Parse a --client-query-buffer-limit value: bytes, or a number with one of
 * Redis's units ("4mb", "1gb": string_to_memory() in strnum.h). Returns 1 and
 * stores it in *out; or 0, and *why is Redis's reason (config.c, 7.0.15). */
int net_parse_query_buffer_limit(const char *value, size_t *out, const char **why);

/* Bind and listen on addr:port. On failure returns -1 and writes a
 * human-readable reason into err. */
int net_listen(net_server *s, const char *addr, int port, char *err, size_t errlen);

/* Close every client and the listening socket; free their memory. */
void net_shutdown(net_server *s);

/* Parse and execute every complete command in the client's query buffer,
 * and queue its replies to be written at the end of this turn of the event
 * loop. read_handler() calls it after each read, unless run hooks hold the
 * client for later (below). */
void net_run_client(client *c);

/* A client for a connection this server opened itself (a replica's link to
 * its master), read and executed like any other, but never held by the run
 * hooks: it runs as soon as it is read, since a replica counts its master's
 * stream in whole commands as they run (replication.c). fd must be
 * non-blocking. */
client *net_client_for_fd(net_server *s, int fd);

/* Write what was appended to c->out at the end of this turn of the loop:
 * for output that no command of c's own produced (the stream a replica
 * gets when another client writes). */
void net_queue_write(client *c);

/* Unblock a client that was waiting: its reply is written, and the commands
 * it pipelined behind the one that blocked run now. */
void net_unblock_client(client *c);
/* Execute one command that the client's parser has already handed out, as
 * net_run_client() executes what it parses, and return 1; or return 0 and
 * execute nothing if the client takes no more commands now (it is closing,
 * or its unread replies are over CLIENT_OUTPUT_PAUSE_BYTES). For a step whose
 * hooks parse a held client's commands before running it (below). */
int net_run_command(client *c, int argc, arg *argv);

/* ==== The one seam: when a client that has been read runs ====
 *
 * By default read_handler() runs a client as soon as its socket has been
 * read. A step may instead hold the clients read in a turn of the event loop
 * and run them together once every ready socket has been read, so that it
 * can look at all of their commands before any runs. It installs three
 * hooks, each handed ctx:
 *   read         a read brought bytes: run the client now or hold it
 *   end_of_turn  every ready socket has been read: run, with
 *                net_run_client(), every client still held, before the
 *                turn's replies are written
 *   closing      the client is about to be freed: forget it if it is held
 * A held client is run in the same turn, so no reply is later than it would
 * be, and each client's commands still run in the order they came. A step
 * may also parse a held client's requests itself, with the client's own
 * parser, run them with net_run_command(), and then net_run_client() for the
 * rest: the bytes of the requests run are consumed then. */
typedef struct net_run_hooks {
    void (*read)(client *c, void *ctx);
    void (*end_of_turn)(struct net_server *s, void *ctx);
    void (*closing)(client *c, void *ctx);
} net_run_hooks;

/* Install the hooks (NULL: run every client at once, the default). */
void net_set_run_hooks(net_server *s, const net_run_hooks *hooks, void *ctx);

/* Close one client now (its pending output is dropped). */
void client_close(client *c);

/* A client with no socket (fd -1), on the server's client list, for running
 * commands without the event loop (tests/fuzz/fuzz_commands.c). Free it with
 * net_detached_client_free(), not client_close(). */
client *net_detached_client_create(net_server *s);
void net_detached_client_free(client *c);

#endif

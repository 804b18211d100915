/* net.c -- clients, sockets and the read/parse/execute/write cycle. See
 * net.h for the overview.
 *
 * ==== The life of a request ====
 *
 *  1. The listening socket is readable: accept_handler() accepts, makes the
 *     socket non-blocking, and watches it for reading.
 *  2. The client's socket is readable: read_handler() appends what the kernel
 *     has to the query buffer, and net_run_client() parses and executes
 *     every complete command in it, in order (process_query_buffer()).
 *     Commands append their replies to the output buffer, and the client
 *     joins the write queue.
 *  3. Once every ready socket of this turn of the event loop has been served,
 *     end_of_turn() writes each queued client's replies with one send()
 *     (flush_output()). Whatever the kernel does not take now is written
 *     when the socket becomes writable again.
 *
 * Why wait for the end of the turn to write, instead of writing right after
 * each client's commands? A write on a local socket wakes the client process
 * up if it is asleep waiting for the reply, and on a busy server that wake-up
 * is a good part of the cost of a request. Written back to back, the replies
 * of one turn find the clients' process (redis-benchmark, say, which serves 50
 * connections from one thread) already awake after the first one. Redis too
 * writes a turn's replies together, but later: in beforeSleep() before the
 * next wait (handleClientsWithPendingWritesUsingThreads(), server.c), so
 * after that turn's timers, which aeProcessEvents() runs after the file
 * events (ae.c, 7.0.15). Here they are written after the file events and
 * before the timers, so a slow timer does not hold replies back.
 */
#define _POSIX_C_SOURCE 200809L
#include "net.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "alloc.h"
#include "command.h"
#include "reply.h"
#include "strnum.h"

/* A read makes room for READ_CHUNK bytes and asks for all the free room, and
 * a buffer left empty after a batch is kept unless it has grown beyond
 * IDLE_BUFFER_KEEP. The chunk must be well under the limit: with a 64 KB
 * chunk and a 32 KB limit, every read batch would allocate 64 KB and free it
 * again. Redis 7 too makes room for 16 KB before a read, then reads all the
 * room its buffer has (readQueryFromClient()). */
#define READ_CHUNK       (16 * 1024) /* free bytes made before each recv() */
#define IDLE_BUFFER_KEEP (32 * 1024) /* idle buffers above this are freed */
#define ACCEPT_RETRY_MS  100         /* pause after running out of descriptors */
#define LINGER_MS        2000        /* how long a closing client may keep sending */

static void read_handler(event_loop *el, int fd, void *data, int mask);
static void write_handler(event_loop *el, int fd, void *data, int mask);
static void accept_handler(event_loop *el, int fd, void *data, int mask);
static void discard_handler(event_loop *el, int fd, void *data, int mask);
static void end_of_turn(event_loop *el, void *data);
static void client_free(client *c);
static void process_query_buffer(client *c);

void net_init(net_server *s, event_loop *loop, const struct command *commands) {
    memset(s, 0, sizeof(*s));
    s->loop = loop;
    s->listen_fd = -1;
    s->next_client_id = 1;
    s->commands = commands;
    s->query_buffer_limit = CLIENT_QUERY_BUFFER_LIMIT_DEFAULT;
}

int net_parse_query_buffer_limit(const char *value, size_t *out, const char **why) {
    unsigned long long bytes;
    if (!string_to_memory(value, strlen(value), &bytes)) {
        *why = "argument must be a memory value";
        return 0;
    }
    if (bytes < CLIENT_QUERY_BUFFER_LIMIT_MIN || bytes > CLIENT_QUERY_BUFFER_LIMIT_MAX ||
        bytes > SIZE_MAX) {
        *why = "argument must be between 1048576 and 9223372036854775807 inclusive";
        return 0;
    }
    *out = (size_t)bytes;
    return 1;
}

static int set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    return flags == -1 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

/* ==== Listening ==== */

int net_listen(net_server *s, const char *addr, int port, char *err, size_t errlen) {
    struct addrinfo hints = {0}, *res;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
    char port_str[16];
    snprintf(port_str, sizeof(port_str), "%d", port);
    int rc = getaddrinfo(addr, port_str, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "invalid bind address '%s': %s", addr, gai_strerror(rc));
        return -1;
    }
    int fd = socket(res->ai_family, SOCK_STREAM, 0);
    int yes = 1;
    /* SO_REUSEADDR lets a restarted server bind while old connections of
     * the previous one are still in TIME_WAIT. */
    if (fd == -1 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes)) == -1 ||
        bind(fd, res->ai_addr, res->ai_addrlen) == -1 || listen(fd, 511) == -1 ||
        set_nonblocking(fd) == -1) {
        snprintf(err, errlen, "could not listen on %s:%d: %s", addr, port, strerror(errno));
        if (fd != -1) close(fd);
        freeaddrinfo(res);
        return -1;
    }
    freeaddrinfo(res);
    if (el_watch(s->loop, fd, EL_READABLE, accept_handler, s) == -1) {
        snprintf(err, errlen, "could not watch %s:%d for connections", addr, port);
        close(fd);
        return -1;
    }
    s->listen_fd = fd;
    s->port = port;
    el_set_after_events(s->loop, end_of_turn, s);
    return 0;
}

/* ==== Accepting ==== */

static int64_t resume_accepting(event_loop *el, int64_t id, void *data) {
    (void)id;
    net_server *s = data;
    if (el_watch(el, s->listen_fd, EL_READABLE, accept_handler, s) == -1)
        return ACCEPT_RETRY_MS; /* the kernel is still short of something: later */
    s->accept_paused = 0;
    return EL_TIMER_STOP;
}

/* Out of file descriptors: the pending connection stays in the kernel's
 * queue, so the listening socket stays readable and a naive loop would spin
 * at 100% CPU retrying. Stop watching it for a moment instead. */
static void pause_accepting(net_server *s) {
    if (s->accept_paused) return;
    s->accept_paused = 1;
    el_unwatch(s->loop, s->listen_fd, EL_READABLE);
    el_add_timer(s->loop, ACCEPT_RETRY_MS, resume_accepting, s);
}

static client *client_create(net_server *s, int fd) {
    client *c = mem_calloc(1, sizeof(*c));
    c->fd = fd;
    c->id = s->next_client_id++;
    c->proto = 2;
    c->server = s;
    buf_init(&c->query);
    buf_init(&c->out);
    parser_init(&c->parser);
    c->next = s->clients;
    if (s->clients) s->clients->prev = c;
    s->clients = c;
    s->client_count++;
    s->total_connections++;
    return c;
}

/* Accept every pending connection (several may be queued per wake-up). */
static void accept_handler(event_loop *el, int fd, void *data, int mask) {
    (void)mask;
    net_server *s = data;
    for (;;) {
        int cfd = accept(fd, NULL, NULL);
        if (cfd == -1) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                pause_accepting(s);
            return; /* EAGAIN: nothing more queued; anything else: try later */
        }
        int yes = 1;
        /* Replies are small and must not wait for Nagle's algorithm. Should
         * the kernel refuse, replies only arrive later: still correct. */
        (void)setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
        if (set_nonblocking(cfd) == -1) {
            close(cfd);
            continue;
        }
        client *c = client_create(s, cfd);
        if (el_watch(el, cfd, EL_READABLE, read_handler, c) == -1) client_close(c);
    }
}

/* ==== Closing ==== */

void client_close(client *c) {
    net_server *s = c->server;
    if (c->write_queued) {
        client **link = &s->write_queue;
        while (*link != c)
            link = &(*link)->next_write;
        *link = c->next_write;
    }
    if (c->linger_timer) el_del_timer(s->loop, c->linger_timer);
    el_unwatch(s->loop, c->fd, EL_READABLE | EL_WRITABLE);
    close(c->fd);
    client_free(c);
}

/* Take the client out of the server's list and free it: all that is left
 * to do once its socket is closed, or for a client that never had one. */
static void client_free(client *c) {
    net_server *s = c->server;
    if (s->on_close) s->on_close(c, s->on_close_data);
    if (s->run_hooks) s->run_hooks->closing(c, s->run_hooks_ctx);
    if (c->prev)
        c->prev->next = c->next;
    else
        s->clients = c->next;
    if (c->next) c->next->prev = c->prev;
    s->client_count--;
    buf_free(&c->query);
    buf_free(&c->out);
    parser_free(&c->parser);
    mem_free(c->name);
    mem_free(c);
}

client *net_client_for_fd(net_server *s, int fd) {
    client *c = client_create(s, fd);
    c->run_at_once = 1;
    if (el_watch(s->loop, fd, EL_READABLE, read_handler, c) == -1) {
        client_close(c);
        return NULL;
    }
    return c;
}

client *net_detached_client_create(net_server *s) {
    return client_create(s, -1);
}

void net_detached_client_free(client *c) {
    client_free(c);
}

void net_shutdown(net_server *s) {
    while (s->clients)
        client_close(s->clients);
    if (s->listen_fd != -1) {
        el_unwatch(s->loop, s->listen_fd, EL_READABLE);
        close(s->listen_fd);
        s->listen_fd = -1;
    }
}

/* ==== Closing gracefully after a protocol error ====
 *
 * After a protocol error the client may still be sending: the rest of a
 * 3 MB line, say. Closing a socket whose incoming bytes were never read makes
 * the kernel answer with a reset, and a reset can destroy the error reply
 * before the client reads it. So we "linger", as web servers do: send our
 * FIN (shutdown for writing) once the reply is out, read and drop whatever
 * still arrives, and close on the client's EOF, or after LINGER_MS. */

static int64_t linger_expired(event_loop *el, int64_t id, void *data) {
    (void)el;
    (void)id;
    client *c = data;
    c->linger_timer = 0; /* this timer is being deleted by the loop */
    client_close(c);
    return EL_TIMER_STOP;
}

static int start_lingering(client *c) {
    buf_free(&c->query);
    if (shutdown(c->fd, SHUT_WR) == -1 ||
        el_watch(c->server->loop, c->fd, EL_READABLE, discard_handler, c) == -1) {
        client_close(c); /* cannot linger: close now */
        return -1;
    }
    c->linger_timer = el_add_timer(c->server->loop, LINGER_MS, linger_expired, c);
    return -1; /* the client takes no more commands */
}

static void discard_handler(event_loop *el, int fd, void *data, int mask) {
    (void)el;
    (void)mask;
    char sink[16 * 1024];
    ssize_t n = read(fd, sink, sizeof(sink));
    if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) client_close(data);
}

/* ==== Writing ==== */

static size_t pending_output(const client *c) {
    return c->out.len - c->out_sent;
}

/* Write as much pending output as the kernel takes. Returns 0, or -1 if the
 * client was closed (error, or done after QUIT) or takes no more commands
 * (lingering after a protocol error). */
static int flush_output(client *c) {
    while (pending_output(c) > 0) {
        ssize_t n = send(c->fd, c->out.data + c->out_sent, pending_output(c), MSG_NOSIGNAL);
        if (n > 0) {
            c->out_sent += (size_t)n;
        } else if (n == -1 && errno == EINTR) {
            continue;
        } else if (n == -1 && errno == EAGAIN) {
            break;
        } else {
            client_close(c);
            return -1;
        }
    }
    if (pending_output(c) > 0) {
        /* Drop what was sent once it is most of the buffer, so a client that
         * is always a little behind does not make the buffer grow forever. */
        if (c->out_sent >= c->out.len / 2) {
            buf_consume(&c->out, c->out_sent);
            c->out_sent = 0;
        }
        if (el_watch(c->server->loop, c->fd, EL_WRITABLE, write_handler, c) == -1) {
            client_close(c); /* the rest could never be sent */
            return -1;
        }
        return 0;
    }
    c->out.len = c->out_sent = 0;
    buf_shrink_if_idle(&c->out, IDLE_BUFFER_KEEP);
    el_unwatch(c->server->loop, c->fd, EL_WRITABLE);
    if (c->discard_input) return start_lingering(c);
    if (c->close_after_reply) {
        client_close(c);
        return -1;
    }
    return 0;
}

/* Put the client in the queue of replies to write at the end of this turn
 * of the event loop (see the top of this file). */
static void queue_write(client *c) {
    if (c->write_queued) return;
    c->write_queued = 1;
    c->next_write = c->server->write_queue;
    c->server->write_queue = c;
}

void net_queue_write(client *c) {
    if (c->fd != -1) queue_write(c);
}

/* Write every queued client's replies. flush_output() may close the client,
 * so each is unlinked first. */
static void write_queued_replies(net_server *s) {
    while (s->write_queue) {
        client *c = s->write_queue;
        s->write_queue = c->next_write;
        c->write_queued = 0;
        if (c->close_asap) {
            client_close(c);
            continue;
        }
        if (c->resume_input && !c->reading_paused) {
            c->resume_input = 0;
            process_query_buffer(c);
        }
        flush_output(c);
    }
}

/* ==== Reading and executing ==== */

/* Whether the client takes a command now. It does not once it is closing
 * (QUIT, a protocol error), nor while its unread replies exceed
 * CLIENT_OUTPUT_PAUSE_BYTES: then its reading is paused as well, until
 * write_handler() has drained them, and the rest waits in the buffer. */
static int client_takes_commands(client *c) {
    if (c->close_after_reply || c->blocked) return 0;
    if (pending_output(c) > CLIENT_OUTPUT_PAUSE_BYTES) {
        c->reading_paused = 1;
        el_unwatch(c->server->loop, c->fd, EL_READABLE);
        return 0;
    }
    return 1;
}

/* Execute every complete command in the query buffer, then drop the bytes
 * they used. Stops early when the client takes no more commands now
 * (client_takes_commands()). */
static void process_query_buffer(client *c) {
    request_parser *p = &c->parser;
    while (client_takes_commands(c)) {
        parse_status st = parser_next(p, c->query.data, c->query.len);
        if (st == PARSE_INCOMPLETE) break;
        if (st == PARSE_NOTHING) continue;
        if (st == PARSE_ERROR) {
            reply_error(c, p->error);
            c->close_after_reply = 1; /* Redis closes after a protocol error */
            c->discard_input = 1;
            el_unwatch(c->server->loop, c->fd, EL_READABLE);
            break;
        }
        command_execute(c, p->argc, p->argv);
        c->server->total_commands++;
    }
    size_t used = parser_consumed(p);
    buf_consume(&c->query, used);
    c->query_done += used;
    parser_shift(p, used);
    buf_shrink_if_idle(&c->query, IDLE_BUFFER_KEEP);
}

/* The client's pipelined commands run at the end of this turn, with the
 * replies (write_queued_replies()), not here: this is called from inside
 * another client's command, which must finish first. */
void net_unblock_client(client *c) {
    c->blocked = 0;
    c->resume_input = 1;
    net_queue_write(c);
}

void net_run_client(client *c) {
    process_query_buffer(c);
    if (pending_output(c) > 0 || c->close_after_reply) queue_write(c);
}

/* ==== When a read client runs: the run hooks (net.h) ====
 *
 * A step may hold the clients read in a turn and run them together at its
 * end instead of one by one: read_handler(), end_of_turn() and
 * client_free() call the hooks when they are installed, and
 * net_run_command() runs one command the step has parsed itself, under the
 * same condition as process_query_buffer()'s loop. */

int net_run_command(client *c, int argc, arg *argv) {
    if (!client_takes_commands(c)) return 0;
    command_execute(c, argc, argv);
    c->server->total_commands++;
    return 1;
}

void net_set_run_hooks(net_server *s, const net_run_hooks *hooks, void *ctx) {
    s->run_hooks = hooks;
    s->run_hooks_ctx = ctx;
}

/* ==== The query buffer limit ====
 *
 * A command runs only once all of it has arrived, so until then its bytes
 * wait in the query buffer: a client that sends most of a 512 MB argument,
 * or a thousand 1 MB arguments of a command it never finishes, makes the
 * server hold all of it, and a few such clients exhaust its memory. So a
 * client that holds more than query_buffer_limit bytes of input not yet
 * executed is closed, without a reply, and one line in the log says which
 * client and how many bytes, as Redis does (readQueryFromClient() in
 * networking.c, 7.0.15). Everyone else is served on.
 *
 * What counts is what the server holds for that input: the query buffer,
 * which keeps every argument of an unfinished command until it is complete
 * (the parser only notes where each one is), and the parser's index of those
 * arguments, which for a million empty arguments is larger than their bytes.
 * Redis counts its query buffer alone, and moves each argument out of it as
 * soon as that argument is complete (processMultibulkBuffer()), so there the
 * finished arguments of an unfinished command do not count (chapter 01). */

static size_t input_held(const client *c) {
    return c->query.len + parser_pending_bytes(&c->parser);
}

/* Redis's peer address format: ip:port, or [ip]:port for IPv6. */
static void peer_address(int fd, char *out, size_t outlen) {
    struct sockaddr_storage sa;
    socklen_t salen = sizeof(sa);
    char host[INET6_ADDRSTRLEN], port[8];
    if (getpeername(fd, (struct sockaddr *)&sa, &salen) == -1 ||
        getnameinfo((struct sockaddr *)&sa, salen, host, sizeof(host), port, sizeof(port),
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(out, outlen, "?:0");
        return;
    }
    snprintf(out, outlen, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
}

/* The escape Redis's sdscatrepr() writes for byte b, or NULL if it has none. */
static const char *repr_escape(unsigned char b) {
    switch (b) {
    case '\\': return "\\\\";
    case '"': return "\\\"";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    case '\a': return "\\a";
    case '\b': return "\\b";
    default: return NULL;
    }
}

/* Up to 64 bytes of buf, quoted and escaped as sdscatrepr() does it, so
 * "*2\r\n$4\r\nECHO..." in the log shows its CR and LF; out needs room for
 * 4 * 64 + 3 bytes. */
static void quote_bytes(char *out, const char *buf, size_t len) {
    size_t n = 0;
    out[n++] = '"';
    for (size_t i = 0; i < len && i < 64; i++) {
        unsigned char b = (unsigned char)buf[i];
        const char *esc = repr_escape(b);
        if (esc)
            n += (size_t)sprintf(out + n, "%s", esc);
        else if (b >= 32 && b < 127)
            out[n++] = (char)b;
        else
            n += (size_t)sprintf(out + n, "\\x%02x", b);
    }
    out[n++] = '"';
    out[n] = '\0';
}

/* Close the client if it holds more input than the limit allows; returns 1
 * if it did. */
static int close_if_over_query_limit(client *c) {
    size_t held = input_held(c);
    if (held <= c->server->query_buffer_limit) return 0;
    char addr[INET6_ADDRSTRLEN + 12], bytes[4 * 64 + 3];
    peer_address(c->fd, addr, sizeof(addr));
    quote_bytes(bytes, c->query.data, c->query.len);
    /* Redis's wording and field names; argv-mem is here the parser's index,
     * since the arguments' own bytes are in qbuf. */
    printf("Closing client that reached max query buffer length: id=%llu addr=%s qbuf=%zu "
           "argv-mem=%zu (qbuf initial bytes: %s)\n",
           (unsigned long long)c->id, addr, c->query.len, held - c->query.len, bytes);
    fflush(stdout);
    client_close(c);
    return 1;
}

static void read_handler(event_loop *el, int fd, void *data, int mask) {
    (void)el;
    (void)mask;
    client *c = data;
    buf_reserve(&c->query, READ_CHUNK);
    ssize_t n = recv(fd, c->query.data + c->query.len, c->query.cap - c->query.len, 0);
    if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
        client_close(c); /* EOF or error: the client went away */
        return;
    }
    if (n < 0) return;
    c->query.len += (size_t)n;
    if (close_if_over_query_limit(c)) return;
    net_server *s = c->server;
    if (s->run_hooks && !c->run_at_once)
        s->run_hooks->read(c, s->run_hooks_ctx); /* run now or held (net.h) */
    else
        net_run_client(c);
}

/* The event loop's after-events hook: write what this turn answered (once
 * the run hooks, if any, have run the clients they held). */
static void end_of_turn(event_loop *el, void *data) {
    (void)el;
    net_server *s = data;
    if (s->run_hooks) s->run_hooks->end_of_turn(s, s->run_hooks_ctx);
    write_queued_replies(s);
}

/* The socket can take more bytes: write, and if a paused reader's backlog
 * has drained, resume reading and run the commands still buffered. */
static void write_handler(event_loop *el, int fd, void *data, int mask) {
    (void)fd;
    (void)mask;
    client *c = data;
    if (flush_output(c) == -1) return;
    if (c->reading_paused && pending_output(c) <= CLIENT_OUTPUT_PAUSE_BYTES / 2) {
        c->reading_paused = 0;
        if (el_watch(el, c->fd, EL_READABLE, read_handler, c) == -1) {
            client_close(c);
            return;
        }
        process_query_buffer(c);
        flush_output(c);
    }
}

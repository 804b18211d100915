/* info.h -- building INFO's text.
 *
 * INFO answers with "# Section" headers and "field:value" lines, separated by
 * CRLF, in Redis's format, so a script that reads a real Redis's INFO reads
 * ours too. A step's INFO command asks, section by section, whether the
 * client wants it (info_section) and appends the lines (info_field). The
 * sections every step has are written here; a step's modules add their own
 * sections, and fields to these, after them. */
#ifndef INFO_H
#define INFO_H

#include <stdint.h>

#include "buffer.h"
#include "net.h"

typedef struct info_request {
    int argc;        /* the INFO command's arguments */
    const arg *argv; /* argv[1..argc) are section names */
    buffer text;     /* the reply being built */
} info_request;

/* Is `section` (lowercase) requested? No argument, "default", "all" and
 * "everything" ask for every section we have. Starts the section's header
 * when it is, so the caller only appends fields. */
int info_section(info_request *r, const char *section, const char *title);
void info_field(info_request *r, const char *name, const char *fmt, ...);

/* Facts about the running server that the server section prints. */
typedef struct info_server_facts {
    const char *step; /* e.g. "04-expiry-lazy" */
    int port;         /* TCP port */
    int64_t start_ms; /* Unix ms at start */
} info_server_facts;

/* Each writes its section if it is requested. info_server_section() and
 * info_stats_section() return 1 when they did, so the caller may add fields
 * of its own to the section (a module's figures, after the network's). */
int info_server_section(info_request *r, const info_server_facts *facts);
void info_clients_section(info_request *r, const net_server *s);
void info_memory_section(info_request *r);
int info_stats_section(info_request *r, const net_server *s);

/* Send the text built so far and free it. */
void info_reply(client *c, info_request *r);

#endif

/* info.h -- building INFO's text (chapter 01; sections grow in chapter 04).
 *
 * INFO answers with "# Section" headers and "field:value" lines, separated by
 * CRLF, in Redis's format, so a script that reads a real Redis's INFO reads
 * ours too. A step's INFO command asks, section by section, whether the
 * client wants it (info_wants) and appends the lines (info_field). The
 * sections every step has are written here. */
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
    int hz;           /* cron frequency, 0 in steps without a cron */
} info_server_facts;

void info_server_section(info_request *r, const info_server_facts *facts);
void info_clients_section(info_request *r, const net_server *s);
void info_memory_section(info_request *r);

/* Send the text built so far and free it. */
void info_reply(client *c, info_request *r);

#endif

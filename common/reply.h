/* reply.h -- the reply writers.
 *
 * One writer per reply type, each appending the exact bytes Redis sends to the
 * client's output buffer. Commands never format protocol by hand, so every
 * reply is right in both protocol versions: RESP2 and RESP3 differ in how null
 * and maps are written, and the writers know which one the client speaks.
 *
 *   type          RESP2              RESP3
 *   null bulk     $-1\r\n            _\r\n
 *   null array    *-1\r\n            _\r\n
 *   map of N      *2N\r\n            %N\r\n
 *   verbatim      $len\r\ntext       =len\r\ntxt:text */
#ifndef REPLY_H
#define REPLY_H

#include <stddef.h>

#include "net.h"

void reply_ok(client *c); /* +OK */
void reply_error(client *c,
                 const char *message); /* -ERR message, or -message if it starts with '-' */
void reply_errorf(client *c, const char *fmt, ...);        /* formatted reply_error */
void reply_integer(client *c, long long value);            /* :value */
void reply_bulk(client *c, const char *bytes, size_t len); /* $len\r\nbytes */
void reply_bulk_cstr(client *c, const char *s);
void reply_null(client *c);                                   /* missing value */
void reply_null_array(client *c);                             /* missing array */
void reply_array(client *c, long long n);                     /* header; n elements follow */
void reply_map(client *c, long long pairs);                   /* header; 2*pairs elements follow */
void reply_verbatim(client *c, const char *text, size_t len); /* INFO's text */

/* Redis's generic errors, byte for byte. */
void reply_wrong_arity(client *c, const char *command_name);
void reply_unknown_command(client *c, int argc, const arg *argv);
void reply_unknown_subcommand(client *c, const arg *sub, const char *command_name);
void reply_syntax_error(client *c);
void reply_not_integer(client *c);

#endif

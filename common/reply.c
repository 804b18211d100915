/* reply.c -- the reply writers. See reply.h for the table of
 * RESP2/RESP3 differences. Each writer appends the reply's bytes to the
 * client's output buffer; net.c sends them at the end of the turn. */
#include "reply.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "strnum.h"

/* Append "<prefix><number>\r\n", the shape of every header in RESP. */
static void write_header(client *c, char prefix, long long n) {
    char header[24]; /* a prefix, 20 digits and a sign at most, CR LF */
    size_t len = 0;
    header[len++] = prefix;
    len += ll_to_string(header + len, n);
    header[len++] = '\r';
    header[len++] = '\n';
    buf_append(&c->out, header, len);
}

void reply_ok(client *c) {
    buf_append(&c->out, "+OK\r\n", 5);
}

/* Errors are one line: like Redis, turn any CR or LF in the text into a
 * space so a message quoting user input cannot break the protocol. */
void reply_error(client *c, const char *message) {
    size_t n = strlen(message);
    buf_reserve(&c->out, n + 7);
    if (message[0] != '-') buf_append(&c->out, "-ERR ", 5);
    size_t at = c->out.len;
    buf_append(&c->out, message, n);
    for (size_t i = at; i < c->out.len; i++)
        if (c->out.data[i] == '\r' || c->out.data[i] == '\n') c->out.data[i] = ' ';
    buf_append(&c->out, "\r\n", 2);
}

void reply_errorf(client *c, const char *fmt, ...) {
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    reply_error(c, message);
}

void reply_integer(client *c, long long value) {
    write_header(c, ':', value);
}

void reply_bulk(client *c, const char *bytes, size_t len) {
    write_header(c, '$', (long long)len);
    buf_append(&c->out, bytes, len);
    buf_append(&c->out, "\r\n", 2);
}

void reply_bulk_cstr(client *c, const char *s) {
    reply_bulk(c, s, strlen(s));
}

void reply_null(client *c) {
    if (c->proto == 3)
        buf_append(&c->out, "_\r\n", 3);
    else
        buf_append(&c->out, "$-1\r\n", 5);
}

void reply_null_array(client *c) {
    if (c->proto == 3)
        buf_append(&c->out, "_\r\n", 3);
    else
        buf_append(&c->out, "*-1\r\n", 5);
}

void reply_array(client *c, long long n) {
    write_header(c, '*', n);
}

void reply_map(client *c, long long pairs) {
    if (c->proto == 3)
        write_header(c, '%', pairs);
    else
        write_header(c, '*', pairs * 2);
}

void reply_verbatim(client *c, const char *text, size_t len) {
    if (c->proto != 3) {
        reply_bulk(c, text, len);
        return;
    }
    write_header(c, '=', (long long)len + 4);
    buf_append(&c->out, "txt:", 4);
    buf_append(&c->out, text, len);
    buf_append(&c->out, "\r\n", 2);
}

/* ==== Redis's generic errors ==== */

void reply_wrong_arity(client *c, const char *command_name) {
    reply_errorf(c, "wrong number of arguments for '%s' command", command_name);
}

/* "unknown command 'foo', with args beginning with: 'a' 'b' ": arguments are
 * quoted until the list reaches 128 characters, as Redis does. Names and
 * arguments are printed as C strings, so they stop at a NUL byte, also as in
 * Redis. */
void reply_unknown_command(client *c, int argc, const arg *argv) {
    char args[160] = "";
    size_t used = 0;
    for (int i = 1; i < argc && used < 128; i++) {
        int room = (int)(128 - used);
        int len = (int)(argv[i].len < (size_t)room ? argv[i].len : (size_t)room);
        snprintf(args + used, sizeof(args) - used, "'%.*s' ", len, argv[i].ptr);
        used = strlen(args);
    }
    int name_len = (int)(argv[0].len < 128 ? argv[0].len : 128);
    reply_errorf(c, "unknown command '%.*s', with args beginning with: %s", name_len, argv[0].ptr,
                 args);
}

void reply_unknown_subcommand(client *c, const arg *sub, const char *command_name) {
    int len = (int)(sub->len < 128 ? sub->len : 128);
    reply_errorf(c, "unknown subcommand '%.*s'. Try %s HELP.", len, sub->ptr, command_name);
}

void reply_syntax_error(client *c) {
    reply_error(c, "syntax error");
}

void reply_not_integer(client *c) {
    reply_error(c, "value is not an integer or out of range");
}

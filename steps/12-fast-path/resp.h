/* resp.h -- the RESP2 request parser.
 *
 * A client sends commands as bytes that arrive in arbitrary pieces: half a
 * command now, the rest in the next read, or a hundred commands in one read
 * (pipelining). The parser is therefore incremental: it is handed the whole
 * unprocessed part of the query buffer, remembers how far it got, and on the
 * next call resumes there instead of starting over. So a 512 MB argument that
 * arrives in 64 KB reads is scanned once, not 8,000 times.
 *
 * Two request forms exist, and the first byte decides which:
 *   *2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n    multibulk: what every client library sends
 *   ECHO hi\r\n                          inline: what a human types into telnet
 *
 * Arguments are not copied: each `arg` points into the query buffer, and is
 * valid until the caller consumes those bytes. Limits and error texts are
 * Redis 7's, so a client sees the same protocol errors from both. p->error
 * holds one of these (the server replies "-ERR " and the text, then closes):
 *   Protocol error: invalid multibulk length     *N not a number, or > INT_MAX
 *   Protocol error: expected '$', got 'x'        an argument not starting with $
 *   Protocol error: invalid bulk length          $N negative, not a number, > 512 MB
 *   Protocol error: too big mbulk count string   a *N line over 64 KB, no CRLF yet
 *   Protocol error: too big bulk count string    a $N line over 64 KB, no CRLF yet
 *   Protocol error: too big inline request       an inline line over 64 KB, no LF yet
 *   Protocol error: unbalanced quotes in request an inline quote left open
 * *0, *-1 and a blank inline line are no command and get no reply. */
#ifndef RESP_H
#define RESP_H

#include <stddef.h>

#ifndef ARG_DEFINED
#define ARG_DEFINED
/* One argument of a request: binary safe, not NUL-terminated. */
typedef struct arg {
    const char *ptr; /* first byte */
    size_t len;      /* length in bytes */
} arg;
#endif

#define PROTO_INLINE_MAX_SIZE (64 * 1024)           /* inline line / length line, bytes */
#define PROTO_MAX_BULK_LEN    (512LL * 1024 * 1024) /* one argument, bytes */

typedef enum {
    PARSE_INCOMPLETE, /* need more bytes; call again after the next read */
    PARSE_COMMAND,    /* a command is ready in argc/argv */
    PARSE_NOTHING,    /* bytes were consumed but hold no command (*0, blank line) */
    PARSE_ERROR,      /* protocol error: reply with p->error, then close */
} parse_status;

typedef struct request_parser {
    size_t pos;         /* next unparsed byte, offset into the buffer */
    size_t start;       /* first byte of the request being parsed */
    int in_multibulk;   /* 1 while inside a *N request */
    long long expected; /* arguments the *N line announced */
    long long bulk_len; /* length of the $N argument being read, or -1 */
    int argc;           /* arguments parsed so far */
    int cap;            /* entries allocated in span and argv */
    size_t *span_off;   /* argument offsets while the request is partial */
    size_t *span_len;   /* argument lengths while the request is partial */
    arg *argv;          /* the finished command's arguments */
    char error[96];     /* protocol error text, without "ERR " */
} request_parser;

void parser_init(request_parser *p);
void parser_free(request_parser *p);

/* Parse the next request in buf[0..len). Offsets inside the parser refer to
 * this buffer, so buf may be reallocated between calls but its first bytes
 * must stay in place until parser_consumed() says they can go.
 * On PARSE_COMMAND, p->argc and p->argv hold the command; p->pos is past it.
 * On PARSE_COMMAND and PARSE_ERROR, p->start is the offset of the request's
 * first byte, the place to hand parser_rewind() (below).
 *
 * What a parse does to buf: a multibulk request's parse only reads it, so
 * the same bytes parse again to the same command, or the same error; an
 * inline request's parse decodes its words in place, over the bytes they
 * came from ("a\x41" becomes "aA"), so its bytes cannot be parsed twice. */
parse_status parser_next(request_parser *p, char *buf, size_t len);

/* 1 if the next request parser_next() would parse from buf[0..len) is a
 * multibulk one (the parser is inside one, or the next unparsed byte is
 * '*'); 0 if it is inline, or if no unparsed byte is there yet. Reads
 * nothing but the next byte: it tells a caller that wants to parse a
 * request twice (parser_rewind()) whether it may. */
int parser_next_is_multibulk(const request_parser *p, const char *buf, size_t len);

/* Set the parser back to `start`, the p->start of a multibulk request of
 * this buffer that parser_next() handed out or failed on and whose bytes are
 * not consumed yet, as if it had never read that request or anything after
 * it: the next parser_next() parses it again from there. Its arguments
 * (p->argv) are forgotten, and so is any later request begun since. */
void parser_rewind(request_parser *p, size_t start);

/* Bytes at the front of the buffer that no longer belong to any request. The
 * caller drops them (buf_consume) and then calls parser_shift() with the same
 * count, so the parser's offsets keep pointing at the same bytes. */
size_t parser_consumed(const request_parser *p);
void parser_shift(request_parser *p, size_t n);

/* Bytes the parser holds for the arguments so far of a request not yet
 * complete: its index of their offsets and lengths (the arguments' bytes are
 * in the caller's buffer). 0 between requests. */
size_t parser_pending_bytes(const request_parser *p);

#endif

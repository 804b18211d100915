/* resp.c -- the RESP2 request parser. See resp.h for the idea.
 *
 * The parser keeps offsets, not pointers, while a request is incomplete: the
 * query buffer may be reallocated by the next read, which would leave
 * pointers dangling. Only when a whole command is there are the offsets
 * turned into `arg` pointers for the command to use. */
#include "resp.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "strnum.h"

void parser_init(request_parser *p) {
    memset(p, 0, sizeof(*p));
    p->bulk_len = -1;
}

void parser_free(request_parser *p) {
    mem_free(p->span_off);
    mem_free(p->span_len);
    mem_free(p->argv);
    parser_init(p);
}

static parse_status fail(request_parser *p, const char *msg) {
    snprintf(p->error, sizeof(p->error), "Protocol error: %s", msg);
    return PARSE_ERROR;
}

/* Record one argument. The arrays grow as arguments arrive, never from the
 * count a client declared: "*2147483647\r\n" allocates nothing. */
static void push_arg(request_parser *p, size_t off, size_t len) {
    if (p->argc == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 8;
        p->span_off = mem_realloc(p->span_off, sizeof(size_t) * (size_t)p->cap);
        p->span_len = mem_realloc(p->span_len, sizeof(size_t) * (size_t)p->cap);
        p->argv = mem_realloc(p->argv, sizeof(arg) * (size_t)p->cap);
    }
    p->span_off[p->argc] = off;
    p->span_len[p->argc] = len;
    p->argc++;
}

/* The request is complete: turn offsets into pointers and reset for the
 * next request. */
static parse_status finish_command(request_parser *p, const char *buf) {
    for (int i = 0; i < p->argc; i++) {
        p->argv[i].ptr = buf + p->span_off[i];
        p->argv[i].len = p->span_len[i];
    }
    p->in_multibulk = 0;
    p->bulk_len = -1;
    return PARSE_COMMAND;
}

/* Find the CR that ends a length line starting at `from`. Returns its offset,
 * or 0 with *status set: INCOMPLETE if it may still arrive, ERROR if the line
 * is already longer than Redis allows. Like Redis, the byte after the CR is
 * required to be present but is not checked to be LF. */
static size_t find_line_end(request_parser *p, const char *buf, size_t len, size_t from,
                            const char *too_big, parse_status *status) {
    const char *cr = memchr(buf + from, '\r', len - from);
    size_t line = cr ? (size_t)(cr - (buf + from)) : len - from;
    if (line > PROTO_INLINE_MAX_SIZE) {
        *status = fail(p, too_big);
        return 0;
    }
    if (cr == NULL || (size_t)(cr - buf) + 1 >= len) {
        *status = PARSE_INCOMPLETE;
        return 0;
    }
    return (size_t)(cr - buf);
}

/* ==== Multibulk: *<count>\r\n then <count> times $<len>\r\n<bytes>\r\n ==== */

/* Parse the count line, "*<count>\r\n", at p->pos. Two results share
 * PARSE_INCOMPLETE, and p->in_multibulk tells them apart:
 *   PARSE_INCOMPLETE, in_multibulk still 0: the line has not all arrived;
 *     nothing is consumed, and the caller waits for the next read;
 *   PARSE_INCOMPLETE, in_multibulk now 1: the header parsed, keep going:
 *     p->expected holds the count, p->argc is 0 and p->pos is past the line,
 *     and the caller goes on to the arguments at once;
 *   PARSE_NOTHING: *0 or a negative count, no command (Redis answers
 *     nothing); p->pos is past the line;
 *   PARSE_ERROR: not a number, above INT_MAX, or a line over 64 KB with no
 *     CR yet; p->error says which. */
static parse_status parse_count_line(request_parser *p, const char *buf, size_t len) {
    parse_status st;
    size_t cr = find_line_end(p, buf, len, p->pos + 1, "too big mbulk count string", &st);
    if (cr == 0) return st;
    long long count;
    if (!string_to_ll(buf + p->pos + 1, cr - p->pos - 1, &count) || count > 2147483647LL)
        return fail(p, "invalid multibulk length");
    p->pos = cr + 2;
    if (count <= 0) return PARSE_NOTHING; /* Redis answers nothing to *0 or *-1 */
    p->in_multibulk = 1;
    p->expected = count;
    p->argc = 0;
    return PARSE_INCOMPLETE; /* not finished: the caller's loop continues */
}

static parse_status parse_bulk_header(request_parser *p, const char *buf, size_t len) {
    if (buf[p->pos] != '$') {
        char msg[32];
        snprintf(msg, sizeof(msg), "expected '$', got '%c'", buf[p->pos]);
        return fail(p, msg);
    }
    parse_status st;
    size_t cr = find_line_end(p, buf, len, p->pos + 1, "too big bulk count string", &st);
    if (cr == 0) return st;
    long long blen;
    if (!string_to_ll(buf + p->pos + 1, cr - p->pos - 1, &blen) || blen < 0 ||
        blen > PROTO_MAX_BULK_LEN)
        return fail(p, "invalid bulk length");
    p->pos = cr + 2;
    p->bulk_len = blen;
    return PARSE_INCOMPLETE;
}

/* Consume as many arguments as are complete in the buffer. */
static parse_status parse_multibulk(request_parser *p, const char *buf, size_t len) {
    if (!p->in_multibulk) {
        parse_status st = parse_count_line(p, buf, len);
        if (!p->in_multibulk) return st;
    }
    while (p->argc < p->expected) {
        if (p->bulk_len == -1) {
            if (p->pos >= len) return PARSE_INCOMPLETE;
            parse_status st = parse_bulk_header(p, buf, len);
            if (st == PARSE_ERROR || p->bulk_len == -1) return st;
        }
        /* The payload and the two bytes after it (CRLF, not checked, as in
         * Redis) must all be there. */
        if (len - p->pos < (size_t)p->bulk_len + 2) return PARSE_INCOMPLETE;
        push_arg(p, p->pos, (size_t)p->bulk_len);
        p->pos += (size_t)p->bulk_len + 2;
        p->bulk_len = -1;
    }
    return finish_command(p, buf);
}

/* ==== Inline: one line of words, split the way redis-cli and Redis do ====
 *
 * Quoting follows Redis's sdssplitargs(): "double quotes" know \n \r \t \b
 * \a \xHH and \<any>; 'single quotes' know only \'; a closing quote must be
 * followed by a space or the end of the line. Decoding never makes a word
 * longer, so words are decoded in place, over the bytes they came from. */

static char unescape(char c) {
    switch (c) {
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'b': return '\b';
    case 'a': return '\a';
    default: return c;
    }
}

static int is_word_end(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\0';
}

/* Decode the word starting at *pp (end: one past the line). Writes the word
 * at *pp's position, advances *pp past the input consumed, returns the
 * decoded length, or -1 on unbalanced quotes. */
static long decode_word(char **pp, char *end) {
    char *start = *pp, *p = start, *out = start;
    int in_double = 0, in_single = 0;
    for (;;) {
        if (in_double) {
            if (p == end || *p == '\0') return -1;
            if (*p == '\\' && end - p >= 4 && p[1] == 'x' && hex_digit_value(p[2]) >= 0 &&
                hex_digit_value(p[3]) >= 0) {
                *out++ = (char)(hex_digit_value(p[2]) * 16 + hex_digit_value(p[3]));
                p += 3;
            } else if (*p == '\\' && end - p >= 2) {
                p++;
                *out++ = unescape(*p);
            } else if (*p == '"') {
                if (end - p >= 2 && !isspace((unsigned char)p[1]) && p[1] != '\0') return -1;
                p++;
                break;
            } else {
                *out++ = *p;
            }
        } else if (in_single) {
            if (p == end || *p == '\0') return -1;
            if (*p == '\\' && end - p >= 2 && p[1] == '\'') {
                p++;
                *out++ = '\'';
            } else if (*p == '\'') {
                if (end - p >= 2 && !isspace((unsigned char)p[1]) && p[1] != '\0') return -1;
                p++;
                break;
            } else {
                *out++ = *p;
            }
        } else {
            if (p == end || is_word_end(*p)) break;
            if (*p == '"')
                in_double = 1;
            else if (*p == '\'')
                in_single = 1;
            else
                *out++ = *p;
        }
        p++;
    }
    *pp = p;
    return out - start;
}

/* One inline request: a line ending in LF (a CR before it is dropped), cut at
 * its first NUL byte as Redis's C-string splitting cuts it, then split into
 * words by decode_word(). A blank line is PARSE_NOTHING. */
static parse_status parse_inline(request_parser *p, char *buf, size_t len) {
    char *line = buf + p->pos;
    char *nl = memchr(line, '\n', len - p->pos);
    size_t line_len = nl ? (size_t)(nl - line) : len - p->pos;
    if (line_len > PROTO_INLINE_MAX_SIZE) return fail(p, "too big inline request");
    if (nl == NULL) return PARSE_INCOMPLETE;
    p->pos += line_len + 1;
    char *end = nl;
    if (end > line && end[-1] == '\r') end--;
    /* Like Redis, which splits the line as a C string, stop at a NUL byte. */
    char *nul = memchr(line, '\0', (size_t)(end - line));
    if (nul) end = nul;

    p->argc = 0;
    char *cursor = line;
    for (;;) {
        while (cursor < end && isspace((unsigned char)*cursor))
            cursor++;
        if (cursor == end) break;
        char *word = cursor;
        long word_len = decode_word(&cursor, end);
        if (word_len < 0) return fail(p, "unbalanced quotes in request");
        push_arg(p, (size_t)(word - buf), (size_t)word_len);
    }
    if (p->argc == 0) return PARSE_NOTHING; /* a blank line gets no reply */
    return finish_command(p, buf);
}

/* ==== Entry points ==== */

parse_status parser_next(request_parser *p, char *buf, size_t len) {
    if (!p->in_multibulk) {
        p->start = p->pos;
        if (p->pos >= len) return PARSE_INCOMPLETE;
    }
    if (p->in_multibulk || buf[p->pos] == '*') return parse_multibulk(p, buf, len);
    return parse_inline(p, buf, len);
}

int parser_next_is_multibulk(const request_parser *p, const char *buf, size_t len) {
    return p->in_multibulk || (p->pos < len && buf[p->pos] == '*');
}

void parser_rewind(request_parser *p, size_t start) {
    p->pos = p->start = start;
    p->in_multibulk = 0;
    p->bulk_len = -1;
    p->argc = 0;
}

size_t parser_consumed(const request_parser *p) {
    return p->in_multibulk ? p->start : p->pos;
}

void parser_shift(request_parser *p, size_t n) {
    p->pos -= n;
    p->start -= n;
    for (int i = 0; i < p->argc; i++)
        p->span_off[i] -= n;
}

size_t parser_pending_bytes(const request_parser *p) {
    if (!p->in_multibulk) return 0;
    return (size_t)p->argc * (sizeof(*p->span_off) + sizeof(*p->span_len) + sizeof(*p->argv));
}

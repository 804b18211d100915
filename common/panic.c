/* panic.c -- the one way the server fails hard. See panic.h. */
#include "panic.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void panic(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("server: fatal: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

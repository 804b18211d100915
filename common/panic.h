/* panic.h -- the one way the server fails hard.
 *
 * Some failures leave no sane way to go on: memory that cannot be had, an
 * invariant of a data structure found broken. Redis stops there too
 * (zmalloc's out-of-memory handler, serverPanic()): a server that carries on
 * with a half-executed command or a corrupt table would serve wrong answers.
 * Everything that is the fault of one client (bad input, a socket that
 * fails) closes that client instead, and the server keeps serving the rest. */
#ifndef PANIC_H
#define PANIC_H

/* Print "server: fatal: " and the formatted message to stderr, then abort()
 * (so a core dump or a debugger shows where). Never returns. */
_Noreturn void panic(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif

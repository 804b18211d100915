/* command.h -- the command table and its dispatcher.
 *
 * Each step declares its commands in one table in its main.c: name, arity and
 * the function that runs it. Everything around that is the same in every
 * step and lives here: looking a name up case-insensitively, Redis's
 * unknown-command and wrong-arity errors, and the COMMAND command, which
 * describes the table to clients such as redis-cli. */
#ifndef COMMAND_H
#define COMMAND_H

#include "net.h"

typedef void command_proc(client *c, int argc, arg *argv);

typedef struct command {
    const char *name;   /* lowercase, as Redis prints it in errors */
    int arity;          /* N > 0: exactly N args; N < 0: at least -N (the name counts) */
    command_proc *proc; /* runs the command; argc/argv include the name */
    int first_key;      /* position of the first key (0: no keys), for COMMAND */
    int last_key;       /* position of the last key; -1: the last argument */
    int key_step;       /* distance between keys */
} command;

/* Look argv[0] up in the client's server's table and run it, or reply with
 * Redis's unknown-command / wrong-arity error. */
void command_execute(client *c, int argc, arg *argv);

/* Case-insensitive lookup; NULL when the table has no such command. */
const command *command_lookup(const command *table, const char *name, size_t len);

/* ASCII lowercase. The server never calls setlocale(), so tolower() would
 * do the same, but through a locale table and, in glibc, a function call. */
static inline unsigned char ascii_lower(unsigned char c) {
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + ('a' - 'A')) : c;
}

/* Compare an argument with a lowercase word, ignoring case: one pass over
 * both, with no strlen(), the word ending at its NUL. A different first
 * letter, the usual case in a command lookup, stops it at once. Inline, so
 * that a lookup's loop over the table makes no function call per entry. */
static inline int arg_is(const arg *a, const char *lowercase_word) {
    for (size_t i = 0; i < a->len; i++)
        if (lowercase_word[i] == '\0' ||
            ascii_lower((unsigned char)a->ptr[i]) != (unsigned char)lowercase_word[i])
            return 0;
    return lowercase_word[a->len] == '\0';
}

/* COMMAND [COUNT | DOCS [name...] | INFO [name...] | LIST]: enough for
 * redis-cli's start-up (it sends COMMAND DOCS) and for client libraries. */
void command_command(client *c, int argc, arg *argv);

#endif

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

/* Compare an argument with a lowercase word, ignoring case. */
int arg_is(const arg *a, const char *lowercase_word);

/* COMMAND [COUNT | DOCS [name...] | INFO [name...] | LIST]: enough for
 * redis-cli's start-up (it sends COMMAND DOCS) and for client libraries. */
void command_command(client *c, int argc, arg *argv);

#endif

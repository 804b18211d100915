/* set_fsm.h -- SET's options, parsed by a table-driven state machine (chapter 07).
 *
 * Chapter 04 parsed `SET key value [EX s | PX ms]` with a loop of if/else
 * tests. Chapter 07 accepts the whole Redis 8.4 grammar,
 *
 *   SET key value [NX | XX | IFEQ v | IFNE v | IFDEQ d | IFDNE d] [GET]
 *                 [EX s | PX ms | EXAT unix-s | PXAT unix-ms | KEEPTTL]
 *
 * with the options in any order, and the if/else loop is replaced by a state
 * machine whose transition table is the documentation: tests/07-set-options-fsm/
 * print_fsm prints it as a table and draws it, straight from set_fsm.c.
 *
 * Parsing and executing are separate. set_parse_options() only reads the
 * arguments and fills a plain set_options struct; the SET command then acts on
 * that struct. A request that fails to parse therefore changes nothing.
 *
 * The first half of this header is what the SET command uses; the second half
 * exposes the machine itself (its states, tokens and table) to print_fsm and
 * to the tests. */
#ifndef SET_FSM_H
#define SET_FSM_H

#include <stddef.h>

#include "resp.h" /* arg: one binary-safe argument, not NUL-terminated */

/* ==== The parsed result ====
 *
 * Everything SET needs to know about its options, decided before the
 * keyspace is touched. Each option group of the grammar becomes one field:
 * the condition (at most one of NX XX IFEQ IFNE IFDEQ IFDNE), the GET flag,
 * and what happens to the key's time to live. */

/* Which condition guards the write. */
typedef enum {
    SET_COND_NONE,  /* always write */
    SET_COND_NX,    /* only if the key does not exist */
    SET_COND_XX,    /* only if the key exists */
    SET_COND_IFEQ,  /* only if the key holds a string equal to cond_value */
    SET_COND_IFNE,  /* if the key is missing, or its string differs from cond_value */
    SET_COND_IFDEQ, /* only if the digest of the key's string equals cond_value */
    SET_COND_IFDNE, /* if the key is missing, or its digest differs from cond_value */
} set_condition;

/* What the write does to the key's time to live. */
typedef enum {
    SET_EXPIRY_CLEAR, /* plain SET: the key loses any TTL it had */
    SET_EXPIRY_KEEP,  /* KEEPTTL: the key keeps the TTL it had, if any */
    SET_EXPIRY_AT,    /* EX, PX, EXAT or PXAT: the key expires at expire_at_ms */
} set_expiry;

typedef struct set_options {
    set_condition cond;     /* the condition, SET_COND_NONE if none was given */
    arg cond_value;         /* IFEQ/IFNE value or IFDEQ/IFDNE digest; points into the
                               caller's arguments, so valid as long as they are;
                               {NULL, 0} for the other conditions */
    int get;                /* 1 if GET was given: reply with the old value */
    set_expiry expiry;      /* what happens to the TTL */
    long long expire_at_ms; /* SET_EXPIRY_AT only: absolute Unix time in ms (may be in
                               the past, for EXAT/PXAT); 0 otherwise */
} set_options;

/* The outcome of a parse. The SET command turns each error into Redis's text:
 *   SET_PARSE_SYNTAX_ERROR   "ERR syntax error"
 *   SET_PARSE_NOT_INTEGER    "ERR value is not an integer or out of range"
 *   SET_PARSE_INVALID_EXPIRE "ERR invalid expire time in 'set' command" */
typedef enum {
    SET_PARSE_OK,
    SET_PARSE_SYNTAX_ERROR,
    SET_PARSE_NOT_INTEGER,
    SET_PARSE_INVALID_EXPIRE,
} set_parse_status;

/* Parse SET's options: opts[0..count) are the arguments after `SET key value`.
 * now_ms is the current Unix time in ms; EX and PX count from it.
 *
 * Errors come in Redis's order: first the grammar is checked over the whole
 * list (any violation anywhere is a syntax error), then the value of the last
 * EX/PX/EXAT/PXAT is checked (as Redis does, earlier repeats are never
 * looked at). On SET_PARSE_OK *out is filled; on any error *out is untouched.
 * Never reads outside opts[0..count) or outside any argument's len bytes.
 * Work: one pass over the arguments, no allocation. */
set_parse_status set_parse_options(const arg *opts, int count, long long now_ms, set_options *out);

/* 1 if a is a well-formed digest for IFDEQ/IFDNE: exactly 16 hexadecimal
 * digits, either case. The parser does not call this: as in Redis, a bad
 * digest is an error only when the command actually compares it. */
int set_digest_arg_valid(arg a);

/* ==== The machine, for print_fsm and the tests ====
 *
 * Three small machines read one stream of tokens: the condition machine, the
 * GET machine and the expiry machine. Each token belongs to the alphabet of
 * the machine(s) that care about it, and only those advance on it. A request
 * is accepted when, after the last token, every machine is in an accepting
 * state. set_fsm.c explains why three machines and not one. */

/* The machines. */
typedef enum {
    SET_MACHINE_COND,   /* NX XX IFEQ IFNE IFDEQ IFDNE: at most one kind */
    SET_MACHINE_GET,    /* GET: may be repeated */
    SET_MACHINE_EXPIRY, /* EX PX EXAT PXAT KEEPTTL: at most one kind */
    SET_MACHINE_COUNT,
} set_fsm_machine;

/* The states of all three machines in one enum, so one table holds them all.
 * REJECT is shared: it is where every machine goes on a token it may not
 * read, and it is 0 so that a table cell nobody wrote means "reject". */
typedef enum {
    SET_ST_REJECT,
    /* condition machine */
    SET_ST_COND_NONE,
    SET_ST_COND_NX,
    SET_ST_COND_XX,
    SET_ST_COND_IFEQ,
    SET_ST_COND_IFNE,
    SET_ST_COND_IFDEQ,
    SET_ST_COND_IFDNE,
    /* GET machine */
    SET_ST_GET_NO,
    SET_ST_GET_YES,
    /* expiry machine */
    SET_ST_EXPIRY_NONE,
    SET_ST_EXPIRY_EX,
    SET_ST_EXPIRY_PX,
    SET_ST_EXPIRY_EXAT,
    SET_ST_EXPIRY_PXAT,
    SET_ST_EXPIRY_KEEPTTL,
    SET_FSM_STATE_COUNT,
} set_fsm_state;

/* Token classes. The lexer makes one token of each option word, together
 * with the value argument that follows IFEQ IFNE IFDEQ IFDNE EX PX EXAT PXAT. */
typedef enum {
    SET_TOK_NX,
    SET_TOK_XX,
    SET_TOK_IFEQ,
    SET_TOK_IFNE,
    SET_TOK_IFDEQ,
    SET_TOK_IFDNE,
    SET_TOK_GET,
    SET_TOK_EX,
    SET_TOK_PX,
    SET_TOK_EXAT,
    SET_TOK_PXAT,
    SET_TOK_KEEPTTL,
    SET_TOK_UNKNOWN,       /* an argument that is no option word */
    SET_TOK_MISSING_VALUE, /* an option that needs a value, as the last argument */
    SET_FSM_TOKEN_COUNT,
} set_fsm_token;

/* What a transition does to the result besides changing state. */
typedef enum {
    SET_ACT_NONE, /* nothing (a repeated flag, or a rejection) */
    SET_ACT_COND_NX,
    SET_ACT_COND_XX,
    SET_ACT_COND_IFEQ, /* record the condition and its value */
    SET_ACT_COND_IFNE,
    SET_ACT_COND_IFDEQ,
    SET_ACT_COND_IFDNE,
    SET_ACT_GET,
    SET_ACT_EXPIRE_EX, /* remember the value; a later repeat replaces it */
    SET_ACT_EXPIRE_PX,
    SET_ACT_EXPIRE_EXAT,
    SET_ACT_EXPIRE_PXAT,
    SET_ACT_KEEPTTL,
} set_fsm_action;

/* One cell of the table: where a machine goes, and what it does. */
typedef struct set_fsm_transition {
    set_fsm_state next;    /* the state after the token; SET_ST_REJECT to refuse it */
    set_fsm_action action; /* applied to the result as the token is read */
} set_fsm_transition;

/* The table and its companions, read-only. Out-of-range arguments give
 * REJECT, 0 or "?" rather than reading outside the tables. */
set_fsm_transition set_fsm_lookup(int state, int token);
set_fsm_state set_fsm_start_state(int machine);
int set_fsm_machine_reads(int machine, int token); /* alphabet */
int set_fsm_is_accepting(int state);

/* Short names for printing: "COND_NX", "IFEQ", "cond_ifeq", "condition". */
const char *set_fsm_machine_name(int machine);
const char *set_fsm_state_name(int state);
const char *set_fsm_token_name(int token);
const char *set_fsm_action_name(int action);

#endif

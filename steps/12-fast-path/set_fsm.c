/* set_fsm.c -- SET's options, parsed by a table-driven state machine (chapter 07).
 *
 * Chapter 04's SET read its options with a loop of if/else tests, each test
 * checking a few flags ("EX is fine unless PX was seen"). That style scales
 * badly: every new option adds a test and a clause to half the other tests,
 * and nobody can see at a glance which sequences are legal. Here the rules
 * are data: one table says, for every state and every kind of token, where
 * the machine goes next and what it records. The code around it is a lexer
 * that makes tokens, a few-line driver that looks cells up, and the actions.
 * tests/07-set-options-fsm/print_fsm renders the same table as text and as a
 * drawing, so the documentation cannot drift from the code.
 *
 * Why three machines and not one. Redis accepts options in any order and
 * accepts a repeat of the same option (`NX NX`, `GET GET`, `EX 10 EX 20`,
 * where the last value wins), but not two different options of one group
 * (`NX XX`, `EX 10 PX 10`). A single machine would need a state for every
 * combination of "which condition, GET or not, which expiry": 7 x 2 x 6 = 84
 * states, with 14 tokens each. But the groups never constrain one another:
 * whether EX is allowed depends only on the expiry options seen so far. So
 * we run one small machine per group, side by side, each reading only the
 * tokens of its own group: 7 + 2 + 6 = 15 states. The driver keeps the three
 * current states in an array; the 84-state product exists only in the sense
 * that those three numbers together are the parser's whole state. (Redis's
 * loop does the same thing with bit flags: each test looks only at its own
 * group's bits.)
 *
 * Why a lexer in front. EX, PX, EXAT, PXAT and the IF* conditions take the
 * next argument as their value, whatever it looks like: in `EX NX` the NX is
 * the (non-numeric) expire time, not a condition. The lexer pairs each such
 * option with the argument after it and hands the machines one token. So the
 * machines never see a value, and no state means "EX seen, waiting for its
 * value": an option missing its value becomes the token MISSING_VALUE. */
#include "set_fsm.h"

#include <limits.h>

#include "expire_time.h"
#include "strnum.h"

/* ==== The transition table ====
 *
 * set_fsm_table[state][token] is the cell for a machine in `state` reading
 * `token`. The table only lists what is allowed: a cell that is not written
 * is zero, that is {SET_ST_REJECT, SET_ACT_NONE}, so every sequence the table
 * does not mention is a syntax error. The rows of each machine follow the
 * rules of its group:
 *
 * - Condition: from NONE any one condition may be chosen. NX and XX may be
 *   repeated, as in Redis (it only checks that the *other* one is absent).
 *   The IF* conditions carry a value and may not be repeated or combined,
 *   which is what Valkey does and what Redis documents, so their states have
 *   no row at all: every further condition is refused.
 * - GET: always allowed, any number of times.
 * - Expiry: from NONE any one of EX PX EXAT PXAT KEEPTTL; after that only the
 *   same option again. A repeated EX records its new value: the last wins.
 *
 * Every machine also reads UNKNOWN and MISSING_VALUE (see the alphabets
 * below) and no row mentions them, so either token is always rejected. */
static const set_fsm_transition set_fsm_table[SET_FSM_STATE_COUNT][SET_FSM_TOKEN_COUNT] = {
    /* condition machine */
    [SET_ST_COND_NONE] =
        {
            [SET_TOK_NX] = {SET_ST_COND_NX, SET_ACT_COND_NX},
            [SET_TOK_XX] = {SET_ST_COND_XX, SET_ACT_COND_XX},
            [SET_TOK_IFEQ] = {SET_ST_COND_IFEQ, SET_ACT_COND_IFEQ},
            [SET_TOK_IFNE] = {SET_ST_COND_IFNE, SET_ACT_COND_IFNE},
            [SET_TOK_IFDEQ] = {SET_ST_COND_IFDEQ, SET_ACT_COND_IFDEQ},
            [SET_TOK_IFDNE] = {SET_ST_COND_IFDNE, SET_ACT_COND_IFDNE},
        },
    [SET_ST_COND_NX] = {[SET_TOK_NX] = {SET_ST_COND_NX, SET_ACT_NONE}},
    [SET_ST_COND_XX] = {[SET_TOK_XX] = {SET_ST_COND_XX, SET_ACT_NONE}},
    /* COND_IFEQ, COND_IFNE, COND_IFDEQ, COND_IFDNE: no row, nothing may follow. */

    /* GET machine */
    [SET_ST_GET_NO] = {[SET_TOK_GET] = {SET_ST_GET_YES, SET_ACT_GET}},
    [SET_ST_GET_YES] = {[SET_TOK_GET] = {SET_ST_GET_YES, SET_ACT_NONE}},

    /* expiry machine */
    [SET_ST_EXPIRY_NONE] =
        {
            [SET_TOK_EX] = {SET_ST_EXPIRY_EX, SET_ACT_EXPIRE_EX},
            [SET_TOK_PX] = {SET_ST_EXPIRY_PX, SET_ACT_EXPIRE_PX},
            [SET_TOK_EXAT] = {SET_ST_EXPIRY_EXAT, SET_ACT_EXPIRE_EXAT},
            [SET_TOK_PXAT] = {SET_ST_EXPIRY_PXAT, SET_ACT_EXPIRE_PXAT},
            [SET_TOK_KEEPTTL] = {SET_ST_EXPIRY_KEEPTTL, SET_ACT_KEEPTTL},
        },
    [SET_ST_EXPIRY_EX] = {[SET_TOK_EX] = {SET_ST_EXPIRY_EX, SET_ACT_EXPIRE_EX}},
    [SET_ST_EXPIRY_PX] = {[SET_TOK_PX] = {SET_ST_EXPIRY_PX, SET_ACT_EXPIRE_PX}},
    [SET_ST_EXPIRY_EXAT] = {[SET_TOK_EXAT] = {SET_ST_EXPIRY_EXAT, SET_ACT_EXPIRE_EXAT}},
    [SET_ST_EXPIRY_PXAT] = {[SET_TOK_PXAT] = {SET_ST_EXPIRY_PXAT, SET_ACT_EXPIRE_PXAT}},
    [SET_ST_EXPIRY_KEEPTTL] = {[SET_TOK_KEEPTTL] = {SET_ST_EXPIRY_KEEPTTL, SET_ACT_NONE}},
};

/* Where each machine starts: no condition, no GET, no expiry option. */
static const set_fsm_state set_fsm_start[SET_MACHINE_COUNT] = {
    [SET_MACHINE_COND] = SET_ST_COND_NONE,
    [SET_MACHINE_GET] = SET_ST_GET_NO,
    [SET_MACHINE_EXPIRY] = SET_ST_EXPIRY_NONE,
};

/* Which tokens each machine reads (its alphabet). A machine ignores every
 * other token: the condition machine does not move on GET or EX. The two
 * error tokens are in every alphabet, so whichever machine reads them must
 * refuse them. */
static const int set_fsm_alphabet[SET_MACHINE_COUNT][SET_FSM_TOKEN_COUNT] = {
    [SET_MACHINE_COND] =
        {
            [SET_TOK_NX] = 1,
            [SET_TOK_XX] = 1,
            [SET_TOK_IFEQ] = 1,
            [SET_TOK_IFNE] = 1,
            [SET_TOK_IFDEQ] = 1,
            [SET_TOK_IFDNE] = 1,
            [SET_TOK_UNKNOWN] = 1,
            [SET_TOK_MISSING_VALUE] = 1,
        },
    [SET_MACHINE_GET] =
        {
            [SET_TOK_GET] = 1,
            [SET_TOK_UNKNOWN] = 1,
            [SET_TOK_MISSING_VALUE] = 1,
        },
    [SET_MACHINE_EXPIRY] =
        {
            [SET_TOK_EX] = 1,
            [SET_TOK_PX] = 1,
            [SET_TOK_EXAT] = 1,
            [SET_TOK_PXAT] = 1,
            [SET_TOK_KEEPTTL] = 1,
            [SET_TOK_UNKNOWN] = 1,
            [SET_TOK_MISSING_VALUE] = 1,
        },
};

/* The accepting states. Every option is optional, so every state but REJECT
 * accepts: a request may stop after any complete option. (Had the machines
 * read values as tokens of their own, "EX seen, value still to come" would be
 * a live state that does not accept; the lexer's MISSING_VALUE replaces it.) */
static const int set_fsm_accepting[SET_FSM_STATE_COUNT] = {
    [SET_ST_COND_NONE] = 1,   [SET_ST_COND_NX] = 1,     [SET_ST_COND_XX] = 1,
    [SET_ST_COND_IFEQ] = 1,   [SET_ST_COND_IFNE] = 1,   [SET_ST_COND_IFDEQ] = 1,
    [SET_ST_COND_IFDNE] = 1,  [SET_ST_GET_NO] = 1,      [SET_ST_GET_YES] = 1,
    [SET_ST_EXPIRY_NONE] = 1, [SET_ST_EXPIRY_EX] = 1,   [SET_ST_EXPIRY_PX] = 1,
    [SET_ST_EXPIRY_EXAT] = 1, [SET_ST_EXPIRY_PXAT] = 1, [SET_ST_EXPIRY_KEEPTTL] = 1,
};

/* ==== The lexer ====
 *
 * The lexer turns the argument list into tokens, one at a time. An option
 * word is matched whole and without regard to ASCII case ("ex", "Ex", "EX");
 * anything else is UNKNOWN. Matching is binary safe: we compare exactly len
 * bytes. (Redis compares options as C strings, so there an argument
 * "NX\0junk" would count as NX; no client sends that, and we refuse it.) */

/* What the lexer knows about each token class. */
typedef struct token_info {
    const char *name; /* printable name; for an option, also its spelling */
    int is_word;      /* 1 if an argument spelled `name` is this token */
    int takes_value;  /* 1 if the argument after the word is its value */
} token_info;

static const token_info set_fsm_tokens[SET_FSM_TOKEN_COUNT] = {
    [SET_TOK_NX] = {"NX", 1, 0},           [SET_TOK_XX] = {"XX", 1, 0},
    [SET_TOK_IFEQ] = {"IFEQ", 1, 1},       [SET_TOK_IFNE] = {"IFNE", 1, 1},
    [SET_TOK_IFDEQ] = {"IFDEQ", 1, 1},     [SET_TOK_IFDNE] = {"IFDNE", 1, 1},
    [SET_TOK_GET] = {"GET", 1, 0},         [SET_TOK_EX] = {"EX", 1, 1},
    [SET_TOK_PX] = {"PX", 1, 1},           [SET_TOK_EXAT] = {"EXAT", 1, 1},
    [SET_TOK_PXAT] = {"PXAT", 1, 1},       [SET_TOK_KEEPTTL] = {"KEEPTTL", 1, 0},
    [SET_TOK_UNKNOWN] = {"UNKNOWN", 0, 0}, [SET_TOK_MISSING_VALUE] = {"MISSING_VALUE", 0, 0},
};

/* One token and, for an option that takes one, its value argument. */
typedef struct lexeme {
    set_fsm_token token; /* the token class */
    arg value;           /* the argument after the option word, or {NULL, 0} */
} lexeme;

/* 1 if the argument a spells `upper` (an upper-case option word), in any
 * ASCII case. Folds by hand rather than with toupper(), whose result depends
 * on the locale. */
static int word_equals(arg a, const char *upper) {
    size_t i = 0;
    for (; i < a.len; i++) {
        char c = a.ptr[i];
        if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
        if (upper[i] == '\0' || c != upper[i]) return 0;
    }
    return upper[i] == '\0';
}

/* The token class of one argument: an option word, or UNKNOWN. */
static set_fsm_token classify_word(arg a) {
    for (int t = 0; t < SET_FSM_TOKEN_COUNT; t++) {
        if (set_fsm_tokens[t].is_word && word_equals(a, set_fsm_tokens[t].name))
            return (set_fsm_token)t;
    }
    return SET_TOK_UNKNOWN;
}

/* Read the token that starts at opts[*pos] and advance *pos past it: one
 * argument, or two when the option takes a value. An option that needs a
 * value but is the last argument becomes MISSING_VALUE. */
static lexeme next_lexeme(const arg *opts, int count, int *pos) {
    lexeme lx = {classify_word(opts[*pos]), {NULL, 0}};
    *pos += 1;
    if (set_fsm_tokens[lx.token].takes_value) {
        if (*pos < count) {
            lx.value = opts[*pos];
            *pos += 1;
        } else {
            lx.token = SET_TOK_MISSING_VALUE;
        }
    }
    return lx;
}

/* ==== The actions ====
 *
 * The effect of a transition on the result. Actions only record: the values
 * of EX and friends are kept as text and checked after the whole list has
 * been read, because Redis reports a syntax error anywhere in the list before
 * it looks at any expire value. */

/* The result under construction, plus the expire value not yet checked. */
typedef struct parse_run {
    set_options result;       /* what the actions have recorded so far */
    arg expire_value;         /* the last EX/PX/EXAT/PXAT argument, as text */
    long long expire_unit_ms; /* 1000 for EX/EXAT (seconds), 1 for PX/PXAT */
    int expire_relative;      /* 1 for EX/PX: the value counts from now */
} parse_run;

/* Record the condition and, for IF*, its value (NX and XX pass {NULL, 0}). */
static void record_condition(parse_run *run, set_condition cond, arg value) {
    run->result.cond = cond;
    run->result.cond_value = value;
}

/* Record an expire option; a repeat of the same option overwrites the value. */
static void record_expire(parse_run *run, arg value, long long unit_ms, int relative) {
    run->result.expiry = SET_EXPIRY_AT;
    run->expire_value = value;
    run->expire_unit_ms = unit_ms;
    run->expire_relative = relative;
}

/* Apply one action. `value` is the value argument of the token just read. */
static void run_action(parse_run *run, set_fsm_action action, arg value) {
    switch (action) {
    case SET_ACT_NONE: break;
    case SET_ACT_COND_NX: record_condition(run, SET_COND_NX, value); break;
    case SET_ACT_COND_XX: record_condition(run, SET_COND_XX, value); break;
    case SET_ACT_COND_IFEQ: record_condition(run, SET_COND_IFEQ, value); break;
    case SET_ACT_COND_IFNE: record_condition(run, SET_COND_IFNE, value); break;
    case SET_ACT_COND_IFDEQ: record_condition(run, SET_COND_IFDEQ, value); break;
    case SET_ACT_COND_IFDNE: record_condition(run, SET_COND_IFDNE, value); break;
    case SET_ACT_GET: run->result.get = 1; break;
    case SET_ACT_EXPIRE_EX: record_expire(run, value, 1000, 1); break;
    case SET_ACT_EXPIRE_PX: record_expire(run, value, 1, 1); break;
    case SET_ACT_EXPIRE_EXAT: record_expire(run, value, 1000, 0); break;
    case SET_ACT_EXPIRE_PXAT: record_expire(run, value, 1, 0); break;
    case SET_ACT_KEEPTTL: run->result.expiry = SET_EXPIRY_KEEP; break;
    }
}

/* ==== Checking the expire value ====
 *
 * After the grammar is accepted, the one expire value that counts (the last)
 * is turned into an absolute time, with Redis's checks in Redis's order:
 * not an integer; not positive; seconds that would overflow when multiplied
 * by 1000; a relative time that would overflow when now is added. Redis
 * detects the last case by letting the addition wrap and testing for <= 0;
 * expire_absolute_ms() (expire_time.h) tests before it adds. */

/* Turn run->expire_value into run->result.expire_at_ms. */
static set_parse_status resolve_expire(parse_run *run, long long now_ms) {
    if (run->result.expiry != SET_EXPIRY_AT) return SET_PARSE_OK;
    long long value;
    if (!string_to_ll(run->expire_value.ptr, run->expire_value.len, &value))
        return SET_PARSE_NOT_INTEGER;
    int64_t at_ms;
    if (value <= 0 || !expire_absolute_ms(value, run->expire_unit_ms == 1,
                                          run->expire_relative ? now_ms : 0, &at_ms))
        return SET_PARSE_INVALID_EXPIRE;
    if (at_ms <= 0) return SET_PARSE_INVALID_EXPIRE; /* only if now_ms < 0 */
    run->result.expire_at_ms = at_ms;
    return SET_PARSE_OK;
}

/* ==== The driver ====
 *
 * The whole parser: start the machines, feed each token to the machines
 * whose alphabet holds it, and accept if every machine ends in an accepting
 * state. REJECT has no row, so a machine that enters it stays there and does
 * nothing more; the driver needs no special case for errors. */

/* Advance every machine that reads lx.token by one table lookup. */
static void feed_token(set_fsm_state state[], parse_run *run, lexeme lx) {
    for (int m = 0; m < SET_MACHINE_COUNT; m++) {
        if (!set_fsm_alphabet[m][lx.token]) continue;
        set_fsm_transition t = set_fsm_table[state[m]][lx.token];
        state[m] = t.next;
        run_action(run, t.action, lx.value);
    }
}

/* 1 if every machine is in an accepting state. */
static int all_accepting(const set_fsm_state state[]) {
    for (int m = 0; m < SET_MACHINE_COUNT; m++) {
        if (!set_fsm_accepting[state[m]]) return 0;
    }
    return 1;
}

set_parse_status set_parse_options(const arg *opts, int count, long long now_ms, set_options *out) {
    set_fsm_state state[SET_MACHINE_COUNT];
    for (int m = 0; m < SET_MACHINE_COUNT; m++)
        state[m] = set_fsm_start[m];
    parse_run run = {.result = {SET_COND_NONE, {NULL, 0}, 0, SET_EXPIRY_CLEAR, 0}};

    int pos = 0;
    while (pos < count)
        feed_token(state, &run, next_lexeme(opts, count, &pos));
    if (!all_accepting(state)) return SET_PARSE_SYNTAX_ERROR;

    set_parse_status status = resolve_expire(&run, now_ms);
    if (status == SET_PARSE_OK) *out = run.result;
    return status;
}

/* ==== Digest arguments ====
 *
 * IFDEQ and IFDNE compare against the 16-hex-digit XXH3 digest that the
 * DIGEST command prints. The parser stores the argument as it came; the
 * command calls this check only when it is about to compare, because that is
 * when Redis reports a malformed digest (a SET on a missing key never does). */

int set_digest_arg_valid(arg a) {
    if (a.len != 16) return 0;
    for (size_t i = 0; i < a.len; i++)
        if (hex_digit_value(a.ptr[i]) < 0) return 0;
    return 1;
}

/* ==== Read-only access for print_fsm and the tests ====
 *
 * The tables above stay static (no other file can change them); these
 * functions let print_fsm render them and the tests inspect them. Each one
 * checks its arguments, so a caller cannot read outside a table. */

static int valid_state(int state) {
    return state >= 0 && state < SET_FSM_STATE_COUNT;
}

static int valid_token(int token) {
    return token >= 0 && token < SET_FSM_TOKEN_COUNT;
}

static int valid_machine(int machine) {
    return machine >= 0 && machine < SET_MACHINE_COUNT;
}

set_fsm_transition set_fsm_lookup(int state, int token) {
    set_fsm_transition reject = {SET_ST_REJECT, SET_ACT_NONE};
    if (!valid_state(state) || !valid_token(token)) return reject;
    return set_fsm_table[state][token];
}

set_fsm_state set_fsm_start_state(int machine) {
    return valid_machine(machine) ? set_fsm_start[machine] : SET_ST_REJECT;
}

int set_fsm_machine_reads(int machine, int token) {
    return valid_machine(machine) && valid_token(token) && set_fsm_alphabet[machine][token];
}

int set_fsm_is_accepting(int state) {
    return valid_state(state) && set_fsm_accepting[state];
}

const char *set_fsm_machine_name(int machine) {
    static const char *const names[SET_MACHINE_COUNT] = {
        [SET_MACHINE_COND] = "condition",
        [SET_MACHINE_GET] = "get",
        [SET_MACHINE_EXPIRY] = "expiry",
    };
    return valid_machine(machine) ? names[machine] : "?";
}

const char *set_fsm_state_name(int state) {
    static const char *const names[SET_FSM_STATE_COUNT] = {
        [SET_ST_REJECT] = "REJECT",           [SET_ST_COND_NONE] = "COND_NONE",
        [SET_ST_COND_NX] = "COND_NX",         [SET_ST_COND_XX] = "COND_XX",
        [SET_ST_COND_IFEQ] = "COND_IFEQ",     [SET_ST_COND_IFNE] = "COND_IFNE",
        [SET_ST_COND_IFDEQ] = "COND_IFDEQ",   [SET_ST_COND_IFDNE] = "COND_IFDNE",
        [SET_ST_GET_NO] = "GET_NO",           [SET_ST_GET_YES] = "GET_YES",
        [SET_ST_EXPIRY_NONE] = "EXPIRY_NONE", [SET_ST_EXPIRY_EX] = "EXPIRY_EX",
        [SET_ST_EXPIRY_PX] = "EXPIRY_PX",     [SET_ST_EXPIRY_EXAT] = "EXPIRY_EXAT",
        [SET_ST_EXPIRY_PXAT] = "EXPIRY_PXAT", [SET_ST_EXPIRY_KEEPTTL] = "EXPIRY_KEEPTTL",
    };
    return valid_state(state) ? names[state] : "?";
}

const char *set_fsm_token_name(int token) {
    return valid_token(token) ? set_fsm_tokens[token].name : "?";
}

const char *set_fsm_action_name(int action) {
    static const char *const names[] = {
        [SET_ACT_NONE] = "none",
        [SET_ACT_COND_NX] = "cond_nx",
        [SET_ACT_COND_XX] = "cond_xx",
        [SET_ACT_COND_IFEQ] = "cond_ifeq",
        [SET_ACT_COND_IFNE] = "cond_ifne",
        [SET_ACT_COND_IFDEQ] = "cond_ifdeq",
        [SET_ACT_COND_IFDNE] = "cond_ifdne",
        [SET_ACT_GET] = "get",
        [SET_ACT_EXPIRE_EX] = "expire_ex",
        [SET_ACT_EXPIRE_PX] = "expire_px",
        [SET_ACT_EXPIRE_EXAT] = "expire_exat",
        [SET_ACT_EXPIRE_PXAT] = "expire_pxat",
        [SET_ACT_KEEPTTL] = "keepttl",
    };
    int known = action >= 0 && (size_t)action < sizeof names / sizeof names[0];
    return known ? names[action] : "?";
}

/* unit_set_fsm.c -- Check unit tests for SET's option parser (chapter 07).
 *
 * Chapter 07 replaced chapter 04's if/else option loop with the state
 * machine in steps/07-set-options-fsm/set_fsm.c. These tests hold it to
 * Redis's behaviour in two ways:
 *
 * 1. A reference parser, written here the way Redis writes it (bit flags and
 *    one if/else chain, as in parseExtendedStringArgumentsOrReply), shares no
 *    code with the machine. Every sequence of 0 to 4 options drawn from a
 *    list of 17 (valid, repeated, conflicting, malformed) is parsed by both,
 *    and the results must agree field by field: 88,741 sequences.
 * 2. Targeted tests pin down the examples from Redis's own test suite and
 *    the corners of the expire arithmetic.
 *
 * Build: cc -Icommon -Isteps/07-set-options-fsm tests/07-set-options-fsm/unit_set_fsm.c
 *        steps/07-set-options-fsm/set_fsm.c common/strnum.c $(pkg-config --cflags --libs check)
 * Runs in well under a second, and clean under valgrind with CK_FORK=no. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "set_fsm.h"
#include "strnum.h"

/* ==== Helpers ====
 *
 * Tests write option lists as NULL-terminated arrays of C strings; the parser
 * sees them as `arg`s (pointer and length, no terminator). All tests use one
 * fixed clock, so expire times are exact numbers. */

static const long long now_ms = 1700000000000LL; /* 2023-11-14T22:13:20Z, in ms */

/* Turn words[] (NULL-terminated) into args[]; returns how many. */
static int words_to_args(const char *const *words, arg *args, int max) {
    int n = 0;
    while (words[n] && n < max) {
        args[n].ptr = words[n];
        args[n].len = strlen(words[n]);
        n++;
    }
    return n;
}

/* Parse the option words with the machine, at now_ms. */
static set_parse_status parse(const char *const *words, set_options *out) {
    arg args[16];
    int n = words_to_args(words, args, 16);
    return set_parse_options(args, n, now_ms, out);
}

#include "set_fsm_reference.h"

/* ==== Exhaustive comparison with the reference ====
 *
 * The alphabet of the enumeration: each item is one option as a user would
 * type it, with its value. "ex" alone is EX missing its value when it comes
 * last; in the middle it takes the next item's first word as its value,
 * exactly the kind of sequence a hand-written test list forgets. */

typedef struct option_item {
    const char *word;  /* the option word, lower case */
    const char *value; /* the argument after it, or NULL */
} option_item;

static const option_item items[] = {
    {"nx", NULL},
    {"xx", NULL},
    {"ifeq", "v"},
    {"ifne", "v"},
    {"ifdeq", "0123456789abcdef"},
    {"ifdne", "FEDCBA9876543210"},
    {"get", NULL},
    {"ex", "10"},
    {"px", "100"},
    {"exat", "1700003600"},    /* an hour after now_ms */
    {"pxat", "1700003600000"}, /* the same, in ms */
    {"keepttl", NULL},
    {"ex", NULL}, /* missing value, when last */
    {"ex", "abc"},
    {"ex", "0"},
    {"ex", "-1"},
    {"foo", NULL},
};
enum { item_count = sizeof items / sizeof items[0], max_options = 4 };

/* Copy word into buf in one of four casings: lower, UPPER, Capital, aLtErNaTe. */
static void spell(const char *word, int casing, char *buf) {
    size_t i = 0;
    for (; word[i]; i++) {
        int upper = casing == 1 || (casing == 2 && i == 0) || (casing == 3 && i % 2 == 1);
        buf[i] = upper ? (char)(word[i] - 'a' + 'A') : word[i];
    }
    buf[i] = '\0';
}

/* Describe a sequence, for failure messages. */
static void describe(const arg *args, int n, char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used + 1 < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%.*s", i ? " " : "", (int)args[i].len,
                         args[i].ptr);
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* Parse one sequence both ways and require the same answer. A failed parse
 * must leave the output struct as it was. */
static void compare_with_reference(const arg *args, int n) {
    set_options got, want, untouched;
    memset(&got, 0x5a, sizeof got);
    memset(&untouched, 0x5a, sizeof untouched);
    memset(&want, 0, sizeof want);
    set_parse_status got_status = set_parse_options(args, n, now_ms, &got);
    set_parse_status want_status = ref_parse(args, n, now_ms, &want);

    int same = got_status == want_status;
    if (same && got_status != SET_PARSE_OK) same = memcmp(&got, &untouched, sizeof got) == 0;
    if (same && got_status == SET_PARSE_OK) {
        same = got.cond == want.cond && got.cond_value.ptr == want.cond_value.ptr &&
               got.cond_value.len == want.cond_value.len && got.get == want.get &&
               got.expiry == want.expiry && got.expire_at_ms == want.expire_at_ms;
    }
    if (!same) {
        char text[256];
        describe(args, n, text, sizeof text);
        ck_abort_msg("SET k v %s: machine says %d (cond %d get %d expiry %d at %lld), "
                     "reference says %d (cond %d get %d expiry %d at %lld)",
                     text, got_status, got.cond, got.get, got.expiry, got.expire_at_ms, want_status,
                     want.cond, want.get, want.expiry, want.expire_at_ms);
    }
}

/* Build the sequence numbered `serial` whose items are pick[0..len) and
 * compare it. The casing of each word varies with serial and position, so
 * every casing meets every item in every position across the run. */
static void compare_sequence(const int *pick, int len, long serial) {
    char spelled[max_options][8];
    arg args[2 * max_options];
    int n = 0;
    for (int p = 0; p < len; p++) {
        const option_item *item = &items[pick[p]];
        spell(item->word, (int)((serial + p) % 4), spelled[p]);
        args[n++] = (arg){spelled[p], strlen(spelled[p])};
        if (item->value) args[n++] = (arg){item->value, strlen(item->value)};
    }
    compare_with_reference(args, n);
}

/* Step pick[] to the next sequence of the same length, like an odometer;
 * returns 0 after the last one. */
static int next_pick(int *pick, int len) {
    for (int p = len - 1; p >= 0; p--) {
        if (++pick[p] < item_count) return 1;
        pick[p] = 0;
    }
    return 0;
}

START_TEST(test_every_short_sequence_matches_reference) {
    long compared = 0;
    for (int len = 0; len <= max_options; len++) {
        int pick[max_options] = {0};
        do {
            compare_sequence(pick, len, compared);
            compared++;
        } while (len > 0 && next_pick(pick, len));
    }
    printf("unit_set_fsm: %ld option sequences agree with the reference parser\n", compared);
    /* 17^0 + 17^1 + 17^2 + 17^3 + 17^4 */
    ck_assert_int_eq(compared, 88741);
}
END_TEST

/* ==== Targeted tests: Redis's examples ====
 *
 * The cases from Redis's expire.tcl and string.tcl that the behaviour
 * reference lists, each checked on its own so a failure names the rule. */

START_TEST(test_no_options_is_a_plain_set) {
    set_options o;
    ck_assert_int_eq(parse((const char *const[]){NULL}, &o), SET_PARSE_OK);
    ck_assert_int_eq(o.cond, SET_COND_NONE);
    ck_assert_ptr_null(o.cond_value.ptr);
    ck_assert_int_eq(o.get, 0);
    ck_assert_int_eq(o.expiry, SET_EXPIRY_CLEAR); /* SET removes an old TTL */
    ck_assert_int_eq(o.expire_at_ms, 0);
}
END_TEST

START_TEST(test_ex_too_large_is_invalid) {
    set_options o;
    const char *const words[] = {"EX", "10000000000000000", NULL}; /* > LLONG_MAX/1000 */
    ck_assert_int_eq(parse(words, &o), SET_PARSE_INVALID_EXPIRE);
}
END_TEST

START_TEST(test_ex_negative_is_invalid) {
    set_options o;
    const char *const words[] = {"EX", "-9999999999999999", NULL};
    ck_assert_int_eq(parse(words, &o), SET_PARSE_INVALID_EXPIRE);
}
END_TEST

START_TEST(test_ex_without_value_is_syntax_error) {
    set_options o;
    ck_assert_int_eq(parse((const char *const[]){"EX", NULL}, &o), SET_PARSE_SYNTAX_ERROR);
    ck_assert_int_eq(parse((const char *const[]){"NX", "PXAT", NULL}, &o), SET_PARSE_SYNTAX_ERROR);
    ck_assert_int_eq(parse((const char *const[]){"IFEQ", NULL}, &o), SET_PARSE_SYNTAX_ERROR);
}
END_TEST

START_TEST(test_nx_xx_is_syntax_error) {
    set_options o;
    ck_assert_int_eq(parse((const char *const[]){"NX", "XX", NULL}, &o), SET_PARSE_SYNTAX_ERROR);
    ck_assert_int_eq(parse((const char *const[]){"xx", "nx", NULL}, &o), SET_PARSE_SYNTAX_ERROR);
}
END_TEST

START_TEST(test_get_with_nx_is_accepted) {
    set_options o;
    ck_assert_int_eq(parse((const char *const[]){"GET", "NX", NULL}, &o), SET_PARSE_OK);
    ck_assert_int_eq(o.cond, SET_COND_NX);
    ck_assert_int_eq(o.get, 1);
}
END_TEST

START_TEST(test_keepttl_with_ex_is_syntax_error) {
    set_options o;
    ck_assert_int_eq(parse((const char *const[]){"KEEPTTL", "EX", "10", NULL}, &o),
                     SET_PARSE_SYNTAX_ERROR);
    ck_assert_int_eq(parse((const char *const[]){"PX", "10", "KEEPTTL", NULL}, &o),
                     SET_PARSE_SYNTAX_ERROR);
}
END_TEST

START_TEST(test_repeated_ex_last_wins) {
    set_options o;
    ck_assert_int_eq(parse((const char *const[]){"EX", "10", "EX", "20", NULL}, &o), SET_PARSE_OK);
    ck_assert_int_eq(o.expiry, SET_EXPIRY_AT);
    ck_assert_int_eq(o.expire_at_ms, now_ms + 20000);
}
END_TEST

/* ==== Targeted tests: repeats, order and error precedence ==== */

START_TEST(test_repeated_flags_are_accepted) {
    set_options o;
    ck_assert_int_eq(parse((const char *const[]){"nx", "NX", "get", "GET", NULL}, &o),
                     SET_PARSE_OK);
    ck_assert_int_eq(o.cond, SET_COND_NX);
    ck_assert_int_eq(o.get, 1);
    ck_assert_int_eq(parse((const char *const[]){"KEEPTTL", "keepttl", "XX", "xx", NULL}, &o),
                     SET_PARSE_OK);
    ck_assert_int_eq(o.cond, SET_COND_XX);
    ck_assert_int_eq(o.expiry, SET_EXPIRY_KEEP);
}
END_TEST

START_TEST(test_if_conditions_exclude_everything_else) {
    set_options o;
    ck_assert_int_eq(parse((const char *const[]){"IFEQ", "a", "IFEQ", "b", NULL}, &o),
                     SET_PARSE_SYNTAX_ERROR);
    ck_assert_int_eq(parse((const char *const[]){"IFEQ", "a", "NX", NULL}, &o),
                     SET_PARSE_SYNTAX_ERROR);
    ck_assert_int_eq(parse((const char *const[]){"XX", "IFNE", "a", NULL}, &o),
                     SET_PARSE_SYNTAX_ERROR);
    ck_assert_int_eq(
        parse((const char *const[]){"IFDEQ", "0123456789abcdef", "IFDNE", "0123456789abcdef", NULL},
              &o),
        SET_PARSE_SYNTAX_ERROR);
}
END_TEST

START_TEST(test_if_condition_with_get_and_expiry) {
    set_options o;
    const char *const words[] = {"pxat", "1", "IfEq", "old", "get", NULL};
    ck_assert_int_eq(parse(words, &o), SET_PARSE_OK);
    ck_assert_int_eq(o.cond, SET_COND_IFEQ);
    ck_assert_ptr_eq(o.cond_value.ptr, words[3]); /* points at the caller's argument */
    ck_assert_int_eq(o.cond_value.len, 3);
    ck_assert_int_eq(o.get, 1);
    ck_assert_int_eq(o.expiry, SET_EXPIRY_AT);
    ck_assert_int_eq(o.expire_at_ms, 1); /* in the past: accepted, the command deals with it */
}
END_TEST

START_TEST(test_value_is_taken_whatever_it_looks_like) {
    set_options o;
    /* The word after EX is its value even when it spells an option. */
    ck_assert_int_eq(parse((const char *const[]){"EX", "NX", NULL}, &o), SET_PARSE_NOT_INTEGER);
    const char *const words[] = {"IFNE", "NX", "GET", NULL};
    ck_assert_int_eq(parse(words, &o), SET_PARSE_OK);
    ck_assert_int_eq(o.cond, SET_COND_IFNE);
    ck_assert_ptr_eq(o.cond_value.ptr, words[1]);
    ck_assert_int_eq(o.get, 1);
    /* Here the first XX is IFNE's value; the second is a real XX, which IFNE
     * excludes. */
    ck_assert_int_eq(parse((const char *const[]){"IFNE", "XX", "XX", NULL}, &o),
                     SET_PARSE_SYNTAX_ERROR);
}
END_TEST

START_TEST(test_syntax_errors_come_before_value_errors) {
    set_options o;
    /* "abc" is a bad expire time, but the unknown word later wins. */
    ck_assert_int_eq(parse((const char *const[]){"EX", "abc", "foo", NULL}, &o),
                     SET_PARSE_SYNTAX_ERROR);
    ck_assert_int_eq(parse((const char *const[]){"EX", "0", "NX", "XX", NULL}, &o),
                     SET_PARSE_SYNTAX_ERROR);
}
END_TEST

START_TEST(test_only_the_last_expire_value_is_checked) {
    set_options o;
    ck_assert_int_eq(parse((const char *const[]){"EX", "abc", "EX", "5", NULL}, &o), SET_PARSE_OK);
    ck_assert_int_eq(o.expire_at_ms, now_ms + 5000);
    ck_assert_int_eq(parse((const char *const[]){"PX", "5", "PX", "abc", NULL}, &o),
                     SET_PARSE_NOT_INTEGER);
}
END_TEST

START_TEST(test_strict_integers) {
    set_options o;
    const char *const bad[] = {"+10", " 10", "10 ", "010", "1.5", "", "-0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *const words[] = {"EX", bad[i], NULL};
        ck_assert_msg(parse(words, &o) == SET_PARSE_NOT_INTEGER, "EX '%s'", bad[i]);
    }
    ck_assert_int_eq(parse((const char *const[]){"PX", "99999999999999999999", NULL}, &o),
                     SET_PARSE_NOT_INTEGER); /* beyond long long */
}
END_TEST

/* ==== Targeted tests: the expire arithmetic at its limits ==== */

START_TEST(test_each_unit_gives_absolute_ms) {
    set_options o;
    ck_assert_int_eq(parse((const char *const[]){"ex", "10", NULL}, &o), SET_PARSE_OK);
    ck_assert_int_eq(o.expire_at_ms, now_ms + 10000);
    ck_assert_int_eq(parse((const char *const[]){"px", "10", NULL}, &o), SET_PARSE_OK);
    ck_assert_int_eq(o.expire_at_ms, now_ms + 10);
    ck_assert_int_eq(parse((const char *const[]){"exat", "10", NULL}, &o), SET_PARSE_OK);
    ck_assert_int_eq(o.expire_at_ms, 10000);
    ck_assert_int_eq(parse((const char *const[]){"pxat", "10", NULL}, &o), SET_PARSE_OK);
    ck_assert_int_eq(o.expire_at_ms, 10);
}
END_TEST

START_TEST(test_zero_is_invalid_for_every_unit) {
    set_options o;
    const char *const units[] = {"EX", "PX", "EXAT", "PXAT"};
    for (int i = 0; i < 4; i++) {
        const char *const words[] = {units[i], "0", NULL};
        ck_assert_msg(parse(words, &o) == SET_PARSE_INVALID_EXPIRE, "%s 0", units[i]);
    }
}
END_TEST

START_TEST(test_overflow_limits) {
    set_options o;
    /* EXAT at exactly LLONG_MAX/1000 seconds fits; one more does not. */
    ck_assert_int_eq(parse((const char *const[]){"EXAT", "9223372036854775", NULL}, &o),
                     SET_PARSE_OK);
    ck_assert_int_eq(o.expire_at_ms, 9223372036854775000LL);
    ck_assert_int_eq(parse((const char *const[]){"EXAT", "9223372036854776", NULL}, &o),
                     SET_PARSE_INVALID_EXPIRE);
    /* PXAT has no multiplication: the largest long long is fine. */
    ck_assert_int_eq(parse((const char *const[]){"PXAT", "9223372036854775807", NULL}, &o),
                     SET_PARSE_OK);
    ck_assert_int_eq(o.expire_at_ms, LLONG_MAX);
    /* Relative times overflow when now is added. */
    ck_assert_int_eq(parse((const char *const[]){"PX", "9223372036854775807", NULL}, &o),
                     SET_PARSE_INVALID_EXPIRE);
    ck_assert_int_eq(parse((const char *const[]){"EX", "9223372036854775", NULL}, &o),
                     SET_PARSE_INVALID_EXPIRE);
}
END_TEST

START_TEST(test_px_sum_exactly_at_the_limit) {
    set_options o;
    arg args[2] = {{"PX", 2}, {NULL, 0}};
    char value[24];
    ll_to_string(value, LLONG_MAX - now_ms); /* now + value == LLONG_MAX: fits */
    args[1] = (arg){value, strlen(value)};
    ck_assert_int_eq(set_parse_options(args, 2, now_ms, &o), SET_PARSE_OK);
    ck_assert_int_eq(o.expire_at_ms, LLONG_MAX);
    ll_to_string(value, LLONG_MAX - now_ms + 1); /* one more overflows */
    args[1] = (arg){value, strlen(value)};
    ck_assert_int_eq(set_parse_options(args, 2, now_ms, &o), SET_PARSE_INVALID_EXPIRE);
}
END_TEST

/* ==== Targeted tests: binary safety, the output contract, digests ==== */

START_TEST(test_arguments_are_binary_safe) {
    set_options o;
    /* "nxx" cut to 2 bytes is NX: the parser must not look for a terminator. */
    arg cut[1] = {{"nxx", 2}};
    ck_assert_int_eq(set_parse_options(cut, 1, now_ms, &o), SET_PARSE_OK);
    ck_assert_int_eq(o.cond, SET_COND_NX);
    /* "NX\0" is three bytes, not NX. */
    arg with_nul[1] = {{"NX\0", 3}};
    ck_assert_int_eq(set_parse_options(with_nul, 1, now_ms, &o), SET_PARSE_SYNTAX_ERROR);
    /* A non-ASCII byte does not fold to a letter. */
    arg high[1] = {{"\xce\xa7X", 3}};
    ck_assert_int_eq(set_parse_options(high, 1, now_ms, &o), SET_PARSE_SYNTAX_ERROR);
}
END_TEST

START_TEST(test_words_match_whole) {
    set_options o;
    const char *const near_misses[] = {"",       "N",   "NXX",    "GE", "GETS", "EXA", "EXATT",
                                       "KEEPTT", "IFD", "IFDEQQ", "P",  "nx ",  " nx"};
    for (size_t i = 0; i < sizeof near_misses / sizeof near_misses[0]; i++) {
        const char *const words[] = {near_misses[i], "10", NULL};
        ck_assert_msg(parse(words, &o) == SET_PARSE_SYNTAX_ERROR, "'%s'", near_misses[i]);
    }
}
END_TEST

START_TEST(test_error_leaves_output_untouched) {
    set_options o, before;
    memset(&o, 0x33, sizeof o);
    memcpy(&before, &o, sizeof o);
    ck_assert_int_eq(parse((const char *const[]){"NX", "EX", "abc", NULL}, &o),
                     SET_PARSE_NOT_INTEGER);
    ck_assert_mem_eq(&o, &before, sizeof o);
    ck_assert_int_eq(parse((const char *const[]){"GET", "bogus", NULL}, &o),
                     SET_PARSE_SYNTAX_ERROR);
    ck_assert_mem_eq(&o, &before, sizeof o);
}
END_TEST

START_TEST(test_digest_argument_check) {
    ck_assert_int_eq(set_digest_arg_valid((arg){"0123456789abcdef", 16}), 1);
    ck_assert_int_eq(set_digest_arg_valid((arg){"B6ACB9D84A38FF74", 16}), 1);
    ck_assert_int_eq(set_digest_arg_valid((arg){"0123456789abcde", 15}), 0);
    ck_assert_int_eq(set_digest_arg_valid((arg){"0123456789abcdef0", 17}), 0);
    ck_assert_int_eq(set_digest_arg_valid((arg){"0123456789abcdeg", 16}), 0);
    ck_assert_int_eq(set_digest_arg_valid((arg){"", 0}), 0);
    /* The parser stores a bad digest as it came: the command checks it later. */
    set_options o;
    ck_assert_int_eq(parse((const char *const[]){"IFDEQ", "nope", NULL}, &o), SET_PARSE_OK);
    ck_assert_int_eq(o.cond, SET_COND_IFDEQ);
    ck_assert_int_eq(o.cond_value.len, 4);
}
END_TEST

/* ==== Targeted tests: the table itself ==== */

START_TEST(test_table_shape) {
    /* REJECT absorbs: no token leads out of it. */
    for (int t = 0; t < SET_FSM_TOKEN_COUNT; t++)
        ck_assert_int_eq(set_fsm_lookup(SET_ST_REJECT, t).next, SET_ST_REJECT);
    /* Every machine starts in an accepting state (no options is fine) and
     * refuses the two error tokens from its start. */
    for (int m = 0; m < SET_MACHINE_COUNT; m++) {
        int start = set_fsm_start_state(m);
        ck_assert(set_fsm_is_accepting(start));
        ck_assert(set_fsm_machine_reads(m, SET_TOK_UNKNOWN));
        ck_assert_int_eq(set_fsm_lookup(start, SET_TOK_UNKNOWN).next, SET_ST_REJECT);
        ck_assert_int_eq(set_fsm_lookup(start, SET_TOK_MISSING_VALUE).next, SET_ST_REJECT);
    }
    ck_assert(!set_fsm_is_accepting(SET_ST_REJECT));
    /* Out-of-range queries are answered, not read out of bounds. */
    ck_assert_int_eq(set_fsm_lookup(-1, 0).next, SET_ST_REJECT);
    ck_assert_int_eq(set_fsm_lookup(0, SET_FSM_TOKEN_COUNT).next, SET_ST_REJECT);
    ck_assert_str_eq(set_fsm_state_name(SET_FSM_STATE_COUNT), "?");
    ck_assert_str_eq(set_fsm_token_name(-1), "?");
    ck_assert_str_eq(set_fsm_action_name(99), "?");
    ck_assert_str_eq(set_fsm_state_name(SET_ST_EXPIRY_KEEPTTL), "EXPIRY_KEEPTTL");
    ck_assert_str_eq(set_fsm_token_name(SET_TOK_IFDNE), "IFDNE");
}
END_TEST

/* ==== The runner ==== */

static Suite *set_fsm_suite(void) {
    Suite *s = suite_create("set_fsm");

    TCase *reference = tcase_create("reference");
    tcase_set_timeout(reference, 60); /* well under 1 s natively; generous for sanitizers */
    tcase_add_test(reference, test_every_short_sequence_matches_reference);
    suite_add_tcase(s, reference);

    TCase *redis = tcase_create("redis_examples");
    tcase_add_test(redis, test_no_options_is_a_plain_set);
    tcase_add_test(redis, test_ex_too_large_is_invalid);
    tcase_add_test(redis, test_ex_negative_is_invalid);
    tcase_add_test(redis, test_ex_without_value_is_syntax_error);
    tcase_add_test(redis, test_nx_xx_is_syntax_error);
    tcase_add_test(redis, test_get_with_nx_is_accepted);
    tcase_add_test(redis, test_keepttl_with_ex_is_syntax_error);
    tcase_add_test(redis, test_repeated_ex_last_wins);
    suite_add_tcase(s, redis);

    TCase *grammar = tcase_create("grammar");
    tcase_add_test(grammar, test_repeated_flags_are_accepted);
    tcase_add_test(grammar, test_if_conditions_exclude_everything_else);
    tcase_add_test(grammar, test_if_condition_with_get_and_expiry);
    tcase_add_test(grammar, test_value_is_taken_whatever_it_looks_like);
    tcase_add_test(grammar, test_syntax_errors_come_before_value_errors);
    tcase_add_test(grammar, test_only_the_last_expire_value_is_checked);
    tcase_add_test(grammar, test_strict_integers);
    suite_add_tcase(s, grammar);

    TCase *expire = tcase_create("expire_arithmetic");
    tcase_add_test(expire, test_each_unit_gives_absolute_ms);
    tcase_add_test(expire, test_zero_is_invalid_for_every_unit);
    tcase_add_test(expire, test_overflow_limits);
    tcase_add_test(expire, test_px_sum_exactly_at_the_limit);
    suite_add_tcase(s, expire);

    TCase *contract = tcase_create("contract");
    tcase_add_test(contract, test_arguments_are_binary_safe);
    tcase_add_test(contract, test_words_match_whole);
    tcase_add_test(contract, test_error_leaves_output_untouched);
    tcase_add_test(contract, test_digest_argument_check);
    tcase_add_test(contract, test_table_shape);
    suite_add_tcase(s, contract);
    return s;
}

int main(void) {
    SRunner *runner = srunner_create(set_fsm_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? 0 : 1;
}

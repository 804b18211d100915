/* test_event_loop.c -- unit tests of the event loop, common/event_loop.c with
 * its back end (el_epoll.c, or el_poll.c with make POLL=1) (chapter 01).
 *
 * The loop is driven with a pipe and timers, without a socket or a client, so
 * this passes as soon as the loop and its back end are right. File events
 * use a real pipe: a byte written to it makes its read end readable. Timers
 * run on a frozen clock (clock.h) that a before-sleep hook moves 10 ms each
 * turn while the loop does not sleep (el_set_max_sleep(0)), so "runs no
 * earlier than asked, and as soon as possible after" is checked to the turn,
 * without waiting. One test lets real time pass, to see that the loop's wait
 * ends when its next timer is due.
 *
 * A loop that never returns is stopped by Check after its timeout (4 s by
 * default), which it reports as "Test timeout expired". */
#include <check.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "event_loop.h"

#define TURN_MS 10 /* how far the frozen clock moves each turn */

/* What the handlers saw, in order: one letter per call (R: read handler,
 * W: write handler, B: before sleep, A: after events, T: a timer), and the
 * arguments of the last call. */
typedef struct seen {
    char calls[256];
    int fd;       /* the fd a handler was called with */
    int mask;     /* and its mask */
    int stop_on;  /* el_stop() once this many letters are recorded, 0: never */
    int64_t when; /* monotonic µs at the last timer run */
    int timer_runs;
    int64_t repeat_ms; /* what the timer returns while timer_runs < repeats */
    int repeats;
} seen;

static void note(event_loop *el, seen *s, char what) {
    size_t n = strlen(s->calls);
    if (n + 1 < sizeof(s->calls)) s->calls[n] = what;
    if (s->stop_on && (int)strlen(s->calls) >= s->stop_on) el_stop(el);
}

static void on_read(event_loop *el, int fd, void *data, int mask) {
    seen *s = data;
    char byte;
    ck_assert_int_eq(read(fd, &byte, 1), 1); /* take the byte, or it stays readable */
    s->fd = fd;
    s->mask = mask;
    note(el, s, 'R');
}

static void on_write(event_loop *el, int fd, void *data, int mask) {
    seen *s = data;
    s->fd = fd;
    s->mask = mask;
    note(el, s, 'W');
}

static void before_sleep(event_loop *el, void *data) {
    note(el, data, 'B');
}

static void after_events(event_loop *el, void *data) {
    note(el, data, 'A');
}

static void tick_before_sleep(event_loop *el, void *data) {
    (void)el;
    (void)data;
    clock_advance_ms(TURN_MS);
}

static int64_t on_timer(event_loop *el, int64_t id, void *data) {
    (void)id;
    seen *s = data;
    s->when = clock_mono_us();
    s->timer_runs++;
    note(el, s, 'T');
    if (s->timer_runs < s->repeats) return s->repeat_ms;
    el_stop(el);
    return EL_TIMER_STOP;
}

START_TEST(a_readable_pipe_runs_its_read_handler) {
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    event_loop *el = el_create();
    seen s = {.stop_on = 1};
    ck_assert_int_eq(el_watch(el, p[0], EL_READABLE, on_read, &s), 0);
    ck_assert_int_eq(write(p[1], "x", 1), 1);
    el_run(el);
    ck_assert_msg(strcmp(s.calls, "R") == 0,
                  "a byte written into a watched pipe: expected the read handler once (\"R\"), "
                  "received calls \"%s\"",
                  s.calls);
    ck_assert_int_eq(s.fd, p[0]);
    ck_assert_int_eq(s.mask, EL_READABLE);
    el_free(el);
    close(p[0]);
    close(p[1]);
}
END_TEST

START_TEST(a_writable_pipe_runs_its_write_handler) {
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    event_loop *el = el_create();
    seen s = {.stop_on = 1};
    /* An empty pipe's write end is writable at once. */
    ck_assert_int_eq(el_watch(el, p[1], EL_WRITABLE, on_write, &s), 0);
    el_run(el);
    ck_assert_str_eq(s.calls, "W");
    ck_assert_int_eq(s.fd, p[1]);
    ck_assert_int_eq(s.mask, EL_WRITABLE);
    el_free(el);
    close(p[0]);
    close(p[1]);
}
END_TEST

START_TEST(hooks_run_around_the_handlers_of_one_turn) {
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    event_loop *el = el_create();
    seen s = {.stop_on = 3};
    el_set_before_sleep(el, before_sleep, &s);
    el_set_after_events(el, after_events, &s);
    ck_assert_int_eq(el_watch(el, p[0], EL_READABLE, on_read, &s), 0);
    ck_assert_int_eq(write(p[1], "x", 1), 1);
    el_run(el);
    ck_assert_msg(strcmp(s.calls, "BRA") == 0,
                  "one turn with a readable pipe: expected before-sleep, read handler, "
                  "after-events (\"BRA\"), received \"%s\"",
                  s.calls);
    el_free(el);
    close(p[0]);
    close(p[1]);
}
END_TEST

START_TEST(an_unwatched_descriptor_is_not_reported) {
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    event_loop *el = el_create();
    seen s = {0};
    ck_assert_int_eq(el_watch(el, p[0], EL_READABLE, on_read, &s), 0);
    ck_assert_int_eq(write(p[1], "x", 1), 1);
    el_unwatch(el, p[0], EL_READABLE);
    /* Three turns, then stop: the read handler must not have run. */
    seen turns = {.stop_on = 3};
    el_set_before_sleep(el, before_sleep, &turns);
    el_set_max_sleep(el, 0);
    el_run(el);
    ck_assert_msg(s.calls[0] == '\0', "read handler ran after el_unwatch(): calls \"%s\"", s.calls);
    el_free(el);
    close(p[0]);
    close(p[1]);
}
END_TEST

/* A loop on the frozen clock, moved TURN_MS each turn. */
static event_loop *frozen_loop(void) {
    clock_freeze(1000000, 5000000);
    event_loop *el = el_create();
    el_set_max_sleep(el, 0);
    el_set_before_sleep(el, tick_before_sleep, NULL);
    return el;
}

START_TEST(a_timer_runs_in_the_first_turn_it_is_due) {
    event_loop *el = frozen_loop();
    int64_t start = clock_mono_us();
    seen s = {.repeats = 1};
    el_add_timer(el, 45, on_timer, &s);
    el_run(el);
    /* Turns see start+10, +20, ... ms: the first at or past 45 ms is +50. */
    ck_assert_int_eq(s.timer_runs, 1);
    ck_assert_msg(s.when - start == 50000,
                  "a timer 45 ms ahead, the clock moving 10 ms a turn: expected it to run at "
                  "+50 ms, received +%lld us",
                  (long long)(s.when - start));
    el_free(el);
    clock_thaw();
}
END_TEST

START_TEST(a_timer_repeats_until_it_returns_stop) {
    event_loop *el = frozen_loop();
    int64_t start = clock_mono_us();
    seen s = {.repeats = 3, .repeat_ms = 20};
    el_add_timer(el, 10, on_timer, &s);
    el_run(el);
    /* +10 ms, then 20 ms after each run: +30, +50. */
    ck_assert_int_eq(s.timer_runs, 3);
    ck_assert_msg(s.when - start == 50000,
                  "a timer at 10 ms returning 20 twice: expected its third run at +50 ms, "
                  "received +%lld us",
                  (long long)(s.when - start));
    el_free(el);
    clock_thaw();
}
END_TEST

START_TEST(a_deleted_timer_never_runs) {
    event_loop *el = frozen_loop();
    /* The deleted timer, if it ran, would go on every 10 ms; the other one
     * stops the loop at +50 ms. */
    seen deleted = {.repeats = 1000, .repeat_ms = 10}, stopper = {.repeats = 1};
    int64_t id = el_add_timer(el, 10, on_timer, &deleted);
    el_add_timer(el, 50, on_timer, &stopper);
    el_del_timer(el, id);
    el_run(el);
    ck_assert_msg(deleted.timer_runs == 0, "a timer deleted before it was due ran %d times",
                  deleted.timer_runs);
    ck_assert_int_eq(stopper.timer_runs, 1);
    el_free(el);
    clock_thaw();
}
END_TEST

/* Real time: with nothing to read, the loop's wait must end when the timer
 * is due (the back end is given the time to the next timer). */
START_TEST(the_wait_ends_when_the_next_timer_is_due) {
    event_loop *el = el_create();
    seen s = {.repeats = 1};
    int64_t start = clock_mono_us();
    el_add_timer(el, 30, on_timer, &s);
    el_run(el);
    int64_t waited_ms = (clock_mono_us() - start) / 1000;
    ck_assert_int_eq(s.timer_runs, 1);
    ck_assert_msg(waited_ms >= 30 && waited_ms < 1000,
                  "a timer 30 ms ahead: expected it to run after 30 ms (and well within 1 s), "
                  "received after %lld ms",
                  (long long)waited_ms);
    el_free(el);
}
END_TEST

int main(void) {
    Suite *s = suite_create("event loop");
    TCase *files = tcase_create("file events");
    tcase_add_test(files, a_readable_pipe_runs_its_read_handler);
    tcase_add_test(files, a_writable_pipe_runs_its_write_handler);
    tcase_add_test(files, hooks_run_around_the_handlers_of_one_turn);
    tcase_add_test(files, an_unwatched_descriptor_is_not_reported);
    suite_add_tcase(s, files);
    TCase *timers = tcase_create("timers");
    tcase_add_test(timers, a_timer_runs_in_the_first_turn_it_is_due);
    tcase_add_test(timers, a_timer_repeats_until_it_returns_stop);
    tcase_add_test(timers, a_deleted_timer_never_runs);
    tcase_add_test(timers, the_wait_ends_when_the_next_timer_is_due);
    suite_add_tcase(s, timers);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

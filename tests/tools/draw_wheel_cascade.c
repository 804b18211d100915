/* draw_wheel_cascade.c -- chapter 06's picture of cascading, drawn by the
 * wheel itself.
 *
 * It runs steps/06-timewheel/timewheel.c on chapter 06's example: the wheel
 * at 1,000 ms and four keys due at 1,020, 1,030, 1,100 and 5,000. It turns
 * the wheel from one non-empty slot to the next, as the server's loop does
 * (sleep tw_next_deadline_hint(), then tw_advance()), and after each stop
 * looks up, in the wheel's own lists, the level and slot of every key. The
 * output is a Graphviz drawing (docs/img/06-wheel-cascade.dot): a column per
 * stop, a row per level, each key where the wheel keeps it; a key printed in
 * bold has just moved there. A change to the wheel changes the picture.
 *
 *   draw_wheel_cascade | dot -Tsvg > docs/img/06-wheel-cascade.svg */
#include <stdio.h>

#include "timewheel.h"

#define START_MS  1000
#define KEYS      4
#define LEVELS    3 /* the example never goes above level 2 */
#define MAX_STOPS 16

static const int64_t DEADLINE[KEYS] = {1020, 1030, 1100, 5000};
static const char *const COLOUR[KEYS] = {"#fce5cd", "#d9ead3", "#cfe2f3", "#ead1dc"};

/* Where a key is: level 0..LEVELS-1 and a slot, or FIRED. */
#define FIRED (-1)
typedef struct place {
    int level;
    int slot;
} place;

static tw_node nodes[KEYS];
static int64_t fired_at[KEYS];
static int64_t clock_ms;

static void on_due(tw_node *n, void *ctx) {
    (void)ctx;
    fired_at[n - nodes] = clock_ms;
}

/* Find node n in the wheel's slot lists. */
static place locate(const timewheel *tw, const tw_node *n) {
    if (!tw_is_scheduled(n)) return (place){FIRED, 0};
    for (int l = 0; l < TW_LEVELS; l++) {
        for (int s = 0; s < TW_SLOTS_PER_LEVEL; s++) {
            const tw_node *head = &tw->slots[l][s];
            for (const tw_node *x = head->next; x != head; x = x->next)
                if (x == n) return (place){l, s};
        }
    }
    return (place){FIRED, 0}; /* on the due list: the callback runs in this call */
}

/* A time's base-64 digits, level 2 | level 1 | level 0. */
static void print_digits(int64_t ms) {
    printf("%lld | %lld | %lld", (long long)(ms >> (2 * TW_SLOT_BITS)) % TW_SLOTS_PER_LEVEL,
           (long long)(ms >> TW_SLOT_BITS) % TW_SLOTS_PER_LEVEL,
           (long long)ms % TW_SLOTS_PER_LEVEL);
}

static void print_ms(int64_t ms) {
    if (ms >= 1000)
        printf("%lld,%03lld", (long long)ms / 1000, (long long)ms % 1000);
    else
        printf("%lld", (long long)ms);
}

int main(void) {
    timewheel tw;
    tw_init(&tw, START_MS);
    for (int k = 0; k < KEYS; k++) {
        tw_node_init(&nodes[k]);
        tw_add(&tw, &nodes[k], DEADLINE[k]);
        fired_at[k] = FIRED;
    }

    /* Record where every key is at the start and after each stop. */
    int64_t stop_ms[MAX_STOPS];
    place where[MAX_STOPS][KEYS];
    int stops = 0;
    clock_ms = START_MS;
    for (;;) {
        stop_ms[stops] = clock_ms;
        for (int k = 0; k < KEYS; k++)
            where[stops][k] = locate(&tw, &nodes[k]);
        stops++;
        int64_t hint = tw_next_deadline_hint(&tw, clock_ms);
        if (hint < 0 || stops == MAX_STOPS) break;
        clock_ms += hint;
        tw_advance(&tw, clock_ms, 1000, on_due, NULL);
        /* A key the wheel called back is gone from its lists. */
        for (int k = 0; k < KEYS; k++)
            if (fired_at[k] == clock_ms) where[stops][k] = (place){FIRED, 0};
    }

    printf("digraph wheel_cascade {\n");
    printf("    graph [bgcolor=white, labelloc=t, fontname=Helvetica, fontsize=11, "
           "fontcolor=black, ranksep=0.2,\n"
           "           label=\"Four keys in the wheel, from ");
    print_ms(START_MS);
    printf(" ms, a row per stop: at each stop the wheel jumps\n"
           "to the next non-empty slot (tw_next_deadline_hint()). A slot above level 0\n"
           "cascades: its keys are placed again, lower down. Bold: the key has just moved "
           "there.\"];\n");
    printf("    node [shape=plaintext, fontname=Helvetica, fontsize=11, fontcolor=black];\n");
    printf("    wheel [label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" "
           "cellpadding=\"3\">\n");

    /* Header: the wheel's time, then a column per level, top level first,
     * then the keys called back. A row per stop: the picture is as narrow as
     * a book's text column, however many stops there are. */
    printf("      <tr><td><b>wheel time (ms)</b><br/>level 2 | 1 | 0</td>");
    for (int l = LEVELS - 1; l >= FIRED; l--) {
        if (l >= 0) {
            printf("<td><b>level %d</b><br/>slots of ", l);
            print_ms((1LL << (l * TW_SLOT_BITS)) * TW_TICK_MS);
            printf(" ms</td>");
        } else {
            printf("<td><b>called back</b><br/>delete_due_key()</td>");
        }
    }
    printf("</tr>\n");

    /* A row per stop: the wheel's time in ms and in digits, and each level's keys. */
    for (int s = 0; s < stops; s++) {
        printf("      <tr><td><b>");
        print_ms(stop_ms[s]);
        printf("</b><br/>");
        print_digits(stop_ms[s]);
        printf("</td>");
        for (int l = LEVELS - 1; l >= FIRED; l--) {
            /* Each key in a cell of its own colour, nested in the level's cell. */
            printf("<td><table border=\"0\" cellspacing=\"1\" cellpadding=\"2\">");
            int any = 0;
            for (int k = 0; k < KEYS; k++) {
                place p = where[s][k];
                if (p.level != l) continue;
                int moved =
                    s == 0 || where[s - 1][k].level != p.level || where[s - 1][k].slot != p.slot;
                if (l == FIRED && !moved) continue; /* show each callback once */
                printf("<tr><td bgcolor=\"%s\">%s", COLOUR[k], moved ? "<b>" : "");
                print_ms(DEADLINE[k]);
                if (l >= 0) printf(" in slot %d", p.slot);
                printf("%s</td></tr>", moved ? "</b>" : "");
                any = 1;
            }
            if (!any) printf("<tr><td> </td></tr>");
            printf("</table>");
            printf("</td>");
        }
        printf("</tr>\n");
    }
    printf("    </table>>];\n");

    /* The legend: each key's deadline in digits, and where it starts. */
    printf("    legend [label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" "
           "cellpadding=\"3\"><tr><td><b>key due at</b></td><td><b>digits</b></td>"
           "<td><b>first placed</b></td></tr>");
    for (int k = 0; k < KEYS; k++) {
        printf("<tr><td bgcolor=\"%s\">", COLOUR[k]);
        print_ms(DEADLINE[k]);
        printf("</td><td>");
        print_digits(DEADLINE[k]);
        printf("</td><td>level %d, slot %d</td></tr>", where[0][k].level, where[0][k].slot);
    }
    printf("</table>>];\n");
    printf("    legend -> wheel [style=invis];\n");
    printf("}\n");
    return 0;
}

/* timewheel.c -- a hierarchical timing wheel (chapter 06).
 *
 * The server schedules every key that has a TTL here and calls tw_advance()
 * from its event loop; the wheel calls back each key whose deadline has
 * come. The design, its guarantees and the alternatives we did not take are
 * in timewheel.h; this file is the how, in the order a reader needs it:
 * lists, then bits, then where a deadline lives, then add and cancel, then
 * turning the wheel and firing. */
#include "timewheel.h"

/* ==== Doubly linked lists with a sentinel ====
 *
 * Every slot, and the due list, is a circular list whose head is a tw_node
 * that belongs to the wheel (the sentinel). An empty list is a head pointing
 * at itself. With a sentinel there is no "first node" or "last node" special
 * case: unlinking a node needs only the node, which is what makes
 * tw_cancel() O(1) without knowing, or searching, the list it is on. */

/* Make head an empty list. */
static void list_init(tw_node *head) {
    head->next = head;
    head->prev = head;
    head->expire_ms = 0;
}

static int list_is_empty(const tw_node *head) {
    return head->next == head;
}

/* Link n at the tail of the list headed by head. */
static void list_append(tw_node *head, tw_node *n) {
    n->prev = head->prev;
    n->next = head;
    head->prev->next = n;
    head->prev = n;
}

/* Unlink n from whatever list it is on and mark it "not scheduled". */
static void list_unlink(tw_node *n) {
    n->prev->next = n->next;
    n->next->prev = n->prev;
    n->next = NULL;
    n->prev = NULL;
}

/* Move every node of list `from` to the tail of list `to`, in O(1) whatever
 * their number; `from` is left empty. */
static void list_splice_tail(tw_node *to, tw_node *from) {
    if (list_is_empty(from)) return;
    tw_node *first = from->next;
    tw_node *last = from->prev;
    first->prev = to->prev;
    to->prev->next = first;
    last->next = to;
    to->prev = last;
    list_init(from);
}

/* ==== Bits ====
 *
 * Two questions the wheel asks of a 64-bit word: which is its lowest set
 * bit (the next non-empty slot of a level's bitmap) and which is its highest
 * (the highest digit in which two times differ). GCC and Clang answer each
 * in one instruction; the loops are the portable meaning of the builtins.
 * Both require bits != 0. */

static int lowest_set_bit(uint64_t bits) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(bits);
#else
    int bit = 0;
    while ((bits & 1) == 0) {
        bits >>= 1;
        bit++;
    }
    return bit;
#endif
}

static int highest_set_bit(uint64_t bits) {
#if defined(__GNUC__) || defined(__clang__)
    return 63 - __builtin_clzll(bits);
#else
    int bit = 0;
    while (bits >>= 1)
        bit++;
    return bit;
#endif
}

/* ==== Where a deadline lives ====
 *
 * Read the wheel's time and a deadline as base-64 numbers, one digit per
 * level. A deadline later than the wheel's time differs from it first (from
 * the top) in some digit L, where the deadline's digit is the larger one.
 * The node goes to level L, in the slot named by the deadline's digit L.
 *
 * Two consequences carry the whole design:
 * - Slots never wrap around. A level-L slot holds deadlines that agree with
 *   the wheel's time on every digit above L and are ahead of it on digit L,
 *   so they lie later in the current turn of level L. The lowest set bit of
 *   a level's bitmap is therefore its earliest slot, and every node of level
 *   L is due before every node of level L+1: the first non-empty level's
 *   first slot is the wheel's next event.
 * - The level is a function of (wheel time, deadline) that stays true as
 *   the wheel's time moves forward, until the time reaches the node's slot
 *   (times between two numbers share the digits the two numbers share). At
 *   that moment the wheel moves the node down. So tw_cancel() recomputes
 *   where a node lives instead of storing it in the node.
 *
 * Times here are converted to uint64_t: the wheel's time is >= 0 and every
 * deadline in a slot is later than it, so the conversion keeps the order. */

/* The level a deadline lives at, seen from the wheel's time. Requires
 * expire_ms > now_ms >= 0. */
static int level_for(int64_t now_ms, int64_t expire_ms) {
    uint64_t differing_bits = (uint64_t)now_ms ^ (uint64_t)expire_ms;
    return highest_set_bit(differing_bits) / TW_SLOT_BITS;
}

/* The slot of `level` that a deadline living at that level sits in: the
 * deadline's digit number `level`. */
static int slot_for(int64_t expire_ms, int level) {
    uint64_t digit = (uint64_t)expire_ms >> (level * TW_SLOT_BITS);
    return (int)(digit & (TW_SLOTS_PER_LEVEL - 1));
}

/* The time at which the wheel reaches slot `slot` of `level`: the wheel's
 * time with digit `level` replaced by `slot` and every lower digit zeroed.
 * The top level has no digit above it (11 x 6 bits overflow 64). */
static int64_t slot_start_ms(int64_t now_ms, int level, int slot) {
    int shift = level * TW_SLOT_BITS;
    int above = shift + TW_SLOT_BITS;
    uint64_t higher_digits = 0;
    if (above < 64) higher_digits = ((uint64_t)now_ms >> above) << above;
    return (int64_t)(higher_digits | ((uint64_t)slot << shift));
}

/* ==== Adding and cancelling ====
 *
 * A node is in one of three places: a slot (deadline after the wheel's
 * time), the due list (deadline at or before the wheel's time, waiting for
 * its callback), or, inside tw_advance() only, the parked list (due by the
 * wheel's time, but not yet by the caller's clock, which went backwards).
 * The comparison of its deadline with the wheel's time says which. */

/* Put n, whose expire_ms is set and which is on no list, where its deadline
 * says: the due list, or the slot computed from the wheel's time. Updates
 * the slot's occupancy bit. */
static void place_node(timewheel *tw, tw_node *n) {
    if (n->expire_ms <= tw->now_ms) {
        list_append(&tw->due, n);
        return;
    }
    int level = level_for(tw->now_ms, n->expire_ms);
    int slot = slot_for(n->expire_ms, level);
    list_append(&tw->slots[level][slot], n);
    tw->occupied[level] |= UINT64_C(1) << slot;
}

void tw_node_init(tw_node *n) {
    n->next = NULL;
    n->prev = NULL;
    n->expire_ms = 0;
}

int tw_is_scheduled(const tw_node *n) {
    return n->next != NULL;
}

void tw_add(timewheel *tw, tw_node *n, int64_t expire_ms) {
    if (tw_is_scheduled(n)) tw_cancel(tw, n);
    n->expire_ms = expire_ms;
    place_node(tw, n);
    tw->count++;
}

void tw_cancel(timewheel *tw, tw_node *n) {
    if (!tw_is_scheduled(n)) return;
    /* Where is n? A node still in a slot is later than the wheel's time
     * (when the time reaches a slot, the slot is emptied), a node on the due
     * or parked list is not: the test place_node() made still holds. */
    int in_a_slot = n->expire_ms > tw->now_ms;
    list_unlink(n);
    tw->count--;
    if (!in_a_slot) return; /* due or parked list: no bitmap to maintain */
    int level = level_for(tw->now_ms, n->expire_ms);
    int slot = slot_for(n->expire_ms, level);
    if (list_is_empty(&tw->slots[level][slot])) tw->occupied[level] &= ~(UINT64_C(1) << slot);
}

/* ==== Turning the wheel ====
 *
 * The wheel never steps tick by tick. It asks the bitmaps for its next
 * event (the first set bit of the first non-empty level), jumps its time
 * there if that is not beyond the target, and empties that slot: at level 0
 * every node in it has exactly that deadline and becomes due; at a higher
 * level each node is placed again from the new time, which sends it to a
 * lower level (its deadline now differs only in lower digits) or to the due
 * list (its deadline is that very ms). Then it asks again. An empty stretch
 * of any length costs one look at 11 words. */

/* Find the earliest non-empty slot. Returns 0 if the wheel has no node in
 * any slot, else 1 with its level, slot and start time. O(levels). */
static int find_next_slot(const timewheel *tw, int *level, int *slot, int64_t *start_ms) {
    for (int l = 0; l < TW_LEVELS; l++) {
        if (tw->occupied[l] == 0) continue;
        *level = l;
        *slot = lowest_set_bit(tw->occupied[l]);
        *start_ms = slot_start_ms(tw->now_ms, l, *slot);
        return 1;
    }
    return 0;
}

/* Empty one slot whose start the wheel's time has just reached. A level-0
 * slot moves to the due list in one splice; a higher one is re-placed node
 * by node, never into itself, so popping its head until empty terminates. */
static void empty_slot(timewheel *tw, int level, int slot) {
    tw_node *head = &tw->slots[level][slot];
    tw->occupied[level] &= ~(UINT64_C(1) << slot);
    tw->stat_slots_visited++;
    if (level == 0) {
        list_splice_tail(&tw->due, head);
        return;
    }
    while (!list_is_empty(head)) {
        tw_node *n = head->next;
        list_unlink(n);
        place_node(tw, n);
        tw->stat_nodes_cascaded++;
    }
}

/* Move the wheel's time forward to target_ms, emptying on the way every slot
 * that starts at or before it. Afterwards every node with a deadline <=
 * target_ms is on the due list and every other is in the slot its deadline
 * names from the new time. Requires target_ms > the wheel's time. */
static void turn_wheel_to(timewheel *tw, int64_t target_ms) {
    int level, slot;
    int64_t start_ms;
    while (find_next_slot(tw, &level, &slot, &start_ms) && start_ms <= target_ms) {
        tw->now_ms = start_ms;
        empty_slot(tw, level, slot);
    }
    tw->now_ms = target_ms;
}

/* ==== Firing ====
 *
 * Callbacks run from the head of the due list, one node at a time, the node
 * unlinked first: the callback may then free it, re-add it, or cancel any
 * other node, including ones further down the due list, and the loop simply
 * takes the new head next time round.
 *
 * The due list is in deadline order for free: the wheel empties slots in
 * time order and appends what becomes due, and a level-0 slot, or a node
 * cascading onto the due list, holds exactly the ms being reached. Only
 * tw_add() with a deadline already passed appends out of order.
 *
 * Normally every due node is due by the caller's clock too. After the clock
 * has gone backwards it may not be: such nodes are parked on a side list so
 * the loop can move on, and put back at the end of the call. */

/* Call `due` for due nodes whose deadline is <= now_ms, at most budget of
 * them; park at most budget others. Returns the number of callbacks. */
static size_t fire_due_nodes(timewheel *tw, int64_t now_ms, size_t budget,
                             void (*due)(tw_node *n, void *ctx), void *ctx) {
    size_t made = 0, parked = 0;
    while (made < budget && parked < budget && !list_is_empty(&tw->due)) {
        tw_node *n = tw->due.next;
        list_unlink(n);
        if (n->expire_ms > now_ms) { /* due by the wheel, not by this clock */
            list_append(&tw->parked, n);
            parked++;
            tw->stat_nodes_parked++;
            continue;
        }
        tw->count--;
        tw->stat_nodes_fired++;
        made++;
        due(n, ctx);
    }
    /* Parked nodes go to the tail, so the next call looks at the others
     * first and a long backlog is examined in turn, not the same prefix. */
    list_splice_tail(&tw->due, &tw->parked);
    return made;
}

/* ==== The API ==== */

void tw_init(timewheel *tw, int64_t now_ms) {
    tw->now_ms = now_ms > 0 ? now_ms : 0;
    tw->count = 0;
    for (int l = 0; l < TW_LEVELS; l++) {
        tw->occupied[l] = 0;
        for (int s = 0; s < TW_SLOTS_PER_LEVEL; s++)
            list_init(&tw->slots[l][s]);
    }
    list_init(&tw->due);
    list_init(&tw->parked);
    tw->stat_slots_visited = 0;
    tw->stat_nodes_cascaded = 0;
    tw->stat_nodes_fired = 0;
    tw->stat_clock_behind = 0;
    tw->stat_nodes_parked = 0;
}

void tw_free(timewheel *tw) {
    /* Nothing is allocated. Forget the nodes without touching them: they may
     * already be freed by their owner. */
    tw_init(tw, tw->now_ms);
}

size_t tw_advance(timewheel *tw, int64_t now_ms, size_t budget, void (*due)(tw_node *n, void *ctx),
                  void *ctx) {
    if (now_ms > tw->now_ms)
        turn_wheel_to(tw, now_ms);
    else if (now_ms < tw->now_ms)
        tw->stat_clock_behind++;
    return fire_due_nodes(tw, now_ms, budget, due, ctx);
}

size_t tw_count(const timewheel *tw) {
    return tw->count;
}

int64_t tw_now(const timewheel *tw) {
    return tw->now_ms;
}

int64_t tw_next_deadline_hint(const timewheel *tw, int64_t now_ms) {
    if (!list_is_empty(&tw->due)) return now_ms >= tw->now_ms ? 0 : 1;
    int level, slot;
    int64_t start_ms;
    if (!find_next_slot(tw, &level, &slot, &start_ms)) return -1;
    if (start_ms <= now_ms) return 0;
    /* start_ms > now_ms; subtract as unsigned so a very negative now_ms
     * cannot overflow, and cap the answer at INT64_MAX. */
    uint64_t wait_ms = (uint64_t)start_ms - (uint64_t)now_ms;
    return wait_ms > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)wait_ms;
}

/* The DRAT checker's kernels: drat-trim's algorithm, as drat.py's docstring describes it (the
 * semantics checked, why it is sound, the backward pass). drat.py sizes every array of the
 * state and calls the entry points (the functions named drat_...); these check no bounds. */
#include <setjmp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

/* kernel outcomes */
enum { GOING, CONFLICT, REJECTED, BROKEN, LATE, FULL };
/* slots of the scalars array: trail length, propagation head, work done in this kernel call,
 * hints recorded, hint buffer overflowed, end of the watch lists' space in use, packings of
 * it, a bug of ours found (see fault); SCALARS: how many */
enum { TRAIL, HEAD, WORK, HINTS, OVERFLOW, WATCH_TOP, PACKINGS, FAULT, SCALARS };
/* the clauses there may be, at most: a clause id fits a watch's 32 bits, and a watch list's
 * count and room (twice a count, plus 2) fit List's 32 bits (database.py refuses more) */
#define MAX_CLAUSES ((INT64_C(1) << 30) - 1)
/* a record of hints ends in END - c for lemma c (below every hint: c <= MAX_CLAUSES); a RAT
 * candidate d is written -1 - d */
#define END (-MAX_CLAUSES - 2)
/* a watch: blocker << 32 | clause */
#define ID_BITS ((INT64_C(1) << 32) - 1)
/* clauses longer than this remember where the last search for a watch in them stopped (a
 * shorter one is looked through from its third literal: no read of the search array) */
#define SEARCHED 16

/* A watch list: its place in watches, its watches, and the watches its place holds, side by
 * side in 16 bytes (one cache line holds both lists of a code). A list holds at most a watch
 * per clause, and clauses are at most MAX_CLAUSES: its count and room (at most twice that plus
 * 2) fit 32 bits. An empty list that never had a watch has no place (zero: room 0 at place 0);
 * its first watch gives it one. drat.py's _LIST is its dtype (checked at load: drat_facts). */
typedef struct {
    int64_t start;
    int32_t count, room;
} List;

/* The checker's state: drat.py's _State (the arrays, with their dtypes), then the lengths and
 * the fault, as drat.py's _CState; native.py checks at load that the two agree, field for
 * field (names, order, offsets, sizes and types: drat_facts). */
typedef struct {
    int32_t *db;           /* literal codes 2 * v + (l < 0) of every clause, one after another */
    int64_t *start;        /* clause c is db[start[c]:start[c + 1]] */
    int32_t *pivot;        /* the first literal as written (RAT's pivot), -1 if empty */
    uint8_t *alive;        /* in S now */
    uint8_t *core;         /* marked by a conflict analysis */
    int64_t *units;        /* the one-literal clauses */
    int64_t *step_clause;  /* the clause each step adds or deletes (-1: nothing to delete) */
    uint8_t *step_delete;
    uint8_t *ignored;      /* a deletion the forward pass ignored */
    int8_t *value;         /* per code: 1 true, -1 false, 0 unassigned */
    int32_t *trail;        /* codes in assignment order */
    int64_t *reason;       /* per variable: the clause that implied it, -1 none */
    int64_t *position;     /* per variable: its place on the trail */
    uint8_t *seen;         /* per variable, for conflict analysis */
    List *lists;           /* the watch lists (two per code, see list_of) */
    int64_t *watches;
    int64_t *scalars;
    int32_t *search;       /* per clause: where the last search for a watch stopped (see
                            * SEARCHED) */
    int32_t *hints;        /* the records of the checked lemmas' hints, backward */
    uint8_t *assumed;      /* per variable: false at the root as a check assumes it false */
    int64_t *order;        /* room to sort the watch lists by place: two per list */
    int64_t n_units, n_clauses, n_literals, n_codes, n_watches, n_hints;
    void *fault;           /* the jmp_buf where a kernel that finds a bug of ours goes (see
                            * GUARDED): drat.py never reads it */
} State;

/* A bug of ours found (more watches than the space drat.py made): the entry point returns
 * at once with scalars[FAULT] set, and drat.py raises; nothing is written past an array. */
static void fault(State *st) {
    st->scalars[FAULT] = 1;
    longjmp(*(jmp_buf *)st->fault, 1);
}

#define GUARDED(st, on_fault)      \
    jmp_buf here;                  \
    (st)->fault = &here;           \
    if (setjmp(here)) return on_fault

static inline int past(double deadline) { return puzzlesat_now() > deadline; }

static inline void assign(State *st, int64_t code, int64_t why) {
    int64_t n = st->scalars[TRAIL];
    st->value[code] = 1;
    st->value[code ^ 1] = -1;
    st->reason[code >> 1] = why;
    st->position[code >> 1] = n;
    st->trail[n] = (int32_t)code;
    st->scalars[TRAIL] = n + 1;
}

static void unassign_to(State *st, int64_t length) {
    for (int64_t i = length; i < st->scalars[TRAIL]; i++) {
        int64_t code = st->trail[i];
        st->value[code] = 0;
        st->value[code ^ 1] = 0;
        st->reason[code >> 1] = -1;
    }
    st->scalars[TRAIL] = length;
    if (st->scalars[HEAD] > length) st->scalars[HEAD] = length;
}

/* Each code has two watch lists, one of the core clauses' watches and one of the others'
 * (list 2 * code + 1 and list 2 * code), so that core-first propagation visits only the
 * clauses of the group it propagates. The lists share one array, sized to the clauses
 * (drat.py's _watch_space): each list has a place with room for some watches; a full list
 * moves to the free end of the array with twice the room; when the end has no room, every list
 * is packed to the front with room in proportion to its length. */
static inline int64_t packed_room(int64_t count) { return count + (count >> 1) + 2; }

/* the list of code that holds clause c's watch (the core one when c is in the core) */
static inline int64_t list_of(const State *st, int64_t code, int64_t c) {
    return 2 * code + st->core[c];
}

/* (place, list) pairs by place, then list: lists without a place share place 0 */
static int by_place(const void *a, const void *b) {
    const int64_t *x = a, *y = b;
    if (x[0] != y[0]) return (x[0] > y[0]) - (x[0] < y[0]);
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Pack every watch list to the front of the array in place, in the order they lie: first
 * each list right after the one before (never rightward of where it was), then each, from
 * the last, rightward to make its room (never onto a list not yet moved). */
static void pack_watches(State *st) {
    int64_t lists = 2 * st->n_codes, *order = st->order, total = 0;
    for (int64_t list = 0; list < lists; list++) {
        order[2 * list] = st->lists[list].start;
        order[2 * list + 1] = list;
        total += packed_room(st->lists[list].count);
    }
    if (total > st->n_watches) fault(st);  /* more watches than _watch_space allows for */
    st->scalars[WORK] += lists;  /* a packing is work: a call looks at the clock after it */
    qsort(order, (size_t)lists, 2 * sizeof(int64_t), by_place);
    int64_t top = 0;
    for (int64_t r = 0; r < lists; r++) {
        int64_t list = order[2 * r + 1];
        int64_t first = st->lists[list].start, n = st->lists[list].count;
        memmove(st->watches + top, st->watches + first, (size_t)n * sizeof(int64_t));
        st->lists[list].start = top;
        top += n;
    }
    top = st->scalars[WATCH_TOP] = total;
    for (int64_t r = lists - 1; r >= 0; r--) {
        int64_t list = order[2 * r + 1];
        int64_t room = packed_room(st->lists[list].count);
        top -= room;
        int64_t first = st->lists[list].start, n = st->lists[list].count;
        memmove(st->watches + top, st->watches + first, (size_t)n * sizeof(int64_t));
        st->lists[list].start = top;
        st->lists[list].room = (int32_t)room;
    }
    st->scalars[PACKINGS] += 1;
}

/* Give the full list twice its room at the free end, or pack the lists (after which every
 * list has room). */
static void move_watches(State *st, int64_t list) {
    int64_t room = 2 * (int64_t)st->lists[list].room + 2;
    int64_t top = st->scalars[WATCH_TOP];
    if (top + room > st->n_watches) {
        pack_watches(st);
        return;
    }
    memcpy(st->watches + top, st->watches + st->lists[list].start,
           (size_t)st->lists[list].count * sizeof(int64_t));
    st->lists[list].start = top;
    st->lists[list].room = (int32_t)room;
    st->scalars[WATCH_TOP] = top + room;
}

/* Append watch w to the list (which may move it, or pack every list). */
static inline void add_watch(State *st, int64_t list, int64_t w) {
    if (st->lists[list].count == st->lists[list].room) move_watches(st, list);
    st->watches[st->lists[list].start + st->lists[list].count] = w;
    st->lists[list].count += 1;
}

static inline void watch(State *st, int64_t code, int64_t c, int64_t blocker) {
    add_watch(st, list_of(st, code, c), (blocker << 32) | c);
}

/* Where in the list clause c's watch is, or -1; looked for from both ends at once (a clause
 * added last or first is found at once); the watches walked count as work. */
static int64_t find_watch(State *st, int64_t list, int64_t c) {
    int64_t low = st->lists[list].start, high = low + st->lists[list].count - 1;
    while (low <= high) {
        st->scalars[WORK] += 2;
        if ((st->watches[high] & ID_BITS) == c) return high;
        if ((st->watches[low] & ID_BITS) == c) return low;
        low += 1;
        high -= 1;
    }
    return -1;
}

/* Take clause c's watch out of the list (the last watch takes its place): the watch, or -1. */
static int64_t unwatch(State *st, int64_t list, int64_t c) {
    int64_t k = find_watch(st, list, c);
    if (k < 0) return -1;
    int64_t w = st->watches[k];
    st->lists[list].count -= 1;
    st->watches[k] = st->watches[st->lists[list].start + st->lists[list].count];
    return w;
}

/* Clause c joins the core (and its watches the core lists). */
static void mark(State *st, int64_t c) {
    if (st->core[c]) return;
    int64_t s = st->start[c];
    if (st->alive[c] && st->start[c + 1] - s >= 2) {
        for (int t = 0; t < 2; t++) {
            int64_t w = unwatch(st, 2 * (int64_t)st->db[s + t], c);
            if (w >= 0) add_watch(st, 2 * (int64_t)st->db[s + t] + 1, w);
        }
    }
    st->core[c] = 1;
}

/* The watches of one list of false_code (the core clauses' or the others'): each clause moves
 * its watch to a literal not false, or is unit and assigns its other watched literal, or
 * conflicts; the conflicting clause or -1. */
static int64_t visit(State *st, int64_t false_code, int64_t list) {
    int32_t *db = st->db;
    int8_t *value = st->value;
    /* i and j count from the list's start, which a packing (when a watch moves to a full list)
     * may move; the list's count stays n until the visit ends, so a packing keeps every watch
     * not yet visited */
    int64_t n = st->lists[list].count;
    st->scalars[WORK] += n;
    int64_t *watches = st->watches + st->lists[list].start;
    int64_t i = 0, j = 0;
    while (i < n) {
        /* the clauses of the watches ahead whose blockers are not true are asked of memory
         * before they are read: the start of the one 8 ahead, the literals of the one 4 ahead
         * (a clause database larger than the cache waits on memory here most of the time) */
        if (i + 8 < n) {
            int64_t ahead = watches[i + 8];
            if (value[ahead >> 32] != 1) __builtin_prefetch(st->start + (ahead & ID_BITS));
        }
        if (i + 4 < n) {
            int64_t ahead = watches[i + 4];
            if (value[ahead >> 32] != 1) __builtin_prefetch(db + st->start[ahead & ID_BITS]);
        }
        int64_t w = watches[i++];
        if (value[w >> 32] == 1) {
            watches[j++] = w;
            continue;
        }
        int64_t c = w & ID_BITS;
        int64_t s = st->start[c];
        if (db[s] == false_code) {
            db[s] = db[s + 1];
            db[s + 1] = (int32_t)false_code;
        }
        int64_t other = db[s];
        if (value[other] == 1) {
            watches[j++] = (other << 32) | c;
            continue;
        }
        /* a literal not false to watch instead: looked for in a long clause from where the
         * last search in it stopped, round to it (a long clause whose literals are falsified
         * one by one is walked once, not once per literal), in a short one from its third */
        int moved = 0;
        int64_t length = st->start[c + 1] - s;
        if (length > 2) {
            int64_t k = length > SEARCHED ? st->search[c] : 2, first = k;
            for (;;) {
                if (value[db[s + k]] != -1) {
                    db[s + 1] = db[s + k];
                    db[s + k] = (int32_t)false_code;
                    add_watch(st, list_of(st, db[s + 1], c), (other << 32) | c);
                    watches = st->watches + st->lists[list].start;  /* a packing moves it */
                    if (length > SEARCHED) st->search[c] = (int32_t)k;
                    moved = 1;
                    break;
                }
                k = k + 1 < length ? k + 1 : 2;
                if (k == first) break;
            }
        }
        if (moved) continue;
        watches[j++] = w;
        if (value[other] == -1) {
            while (i < n) watches[j++] = watches[i++];
            st->lists[list].count = (int32_t)j;
            return c;
        }
        assign(st, other, c);
    }
    st->lists[list].count = (int32_t)j;
    return -1;
}

/* Unit propagation from the head of the trail; the conflicting clause or -1. With core_first
 * (drat-trim's core-first propagation) the core clauses propagate as far as they can before
 * any other clause is visited. */
static int64_t propagate(State *st, int core_first) {
    int64_t core_head = st->scalars[HEAD], other_head = core_head;
    for (;;) {
        int64_t conflict;
        if (core_first && core_head < st->scalars[TRAIL]) {
            int64_t false_code = st->trail[core_head++] ^ 1;
            conflict = visit(st, false_code, 2 * false_code + 1);
        } else if (other_head < st->scalars[TRAIL]) {
            int64_t false_code = st->trail[other_head++] ^ 1;
            conflict = core_first ? -1 : visit(st, false_code, 2 * false_code + 1);
            if (conflict < 0) conflict = visit(st, false_code, 2 * false_code);
        } else {
            st->scalars[HEAD] = other_head;
            return -1;
        }
        if (conflict >= 0) {
            st->scalars[HEAD] = other_head;
            return conflict;
        }
    }
}

/* Put clause c into S under the current root assignment: watch two literals (true or
 * unassigned ones first, else the latest false), assign it if unit; the conflicting clause
 * or -1. */
static int64_t attach(State *st, int64_t c) {
    int64_t s = st->start[c], e = st->start[c + 1];
    int32_t *db = st->db;
    st->alive[c] = 1;
    if (e - s == 0) return c;
    if (e - s == 1) {
        if (st->value[db[s]] == -1) return c;
        if (st->value[db[s]] == 0) assign(st, db[s], c);
        return -1;
    }
    for (int64_t slot = 0; slot < 2; slot++) {  /* best literal into slot 0, second into 1 */
        int64_t best = s + slot, best_score = -2;
        for (int64_t k = s + slot; k < e; k++) {
            int64_t code = db[k];
            int64_t score = st->value[code] != -1 ? st->scalars[TRAIL] + 1
                                                  : st->position[code >> 1];
            if (score > best_score) {
                best = k;
                best_score = score;
            }
        }
        int32_t swap = db[s + slot];
        db[s + slot] = db[best];
        db[best] = swap;
    }
    watch(st, db[s], c, db[s + 1]);
    watch(st, db[s + 1], c, db[s]);
    int8_t first = st->value[db[s]], second = st->value[db[s + 1]];
    if (first == -1) return c;
    if (first == 0 && second == -1) assign(st, db[s], c);
    return -1;
}

static void detach(State *st, int64_t c) {
    int64_t s = st->start[c];
    st->alive[c] = 0;
    if (st->start[c + 1] - s >= 2) {
        unwatch(st, list_of(st, st->db[s], c), c);
        unwatch(st, list_of(st, st->db[s + 1], c), c);
    }
}

/* Cut the trail back to length literals and propagate S again from the first root literal
 * (and every unit clause), so the root assignment is S's closure; conflict or -1. */
static int64_t rebuild_root(State *st, int64_t length) {
    unassign_to(st, length);
    st->scalars[HEAD] = 0;
    for (int64_t k = 0; k < st->n_units; k++) {
        int64_t u = st->units[k];
        if (st->alive[u]) {
            int64_t code = st->db[st->start[u]];
            if (st->value[code] == -1) return u;
            if (st->value[code] == 0) assign(st, code, u);
        }
    }
    return propagate(st, 0);
}

/* Append value to the hint records (or note that the buffer is full). */
static void hint(State *st, int64_t value) {
    int64_t n = st->scalars[HINTS];
    if (n < st->n_hints) {
        st->hints[n] = (int32_t)value;
        st->scalars[HINTS] = n + 1;
    } else {
        st->scalars[OVERFLOW] = 1;
    }
}

/* Mark as core the conflict clause (or the variable set both ways) and the reasons of every
 * literal it depends on, down the trail; record them as LRAT hints, in trail order (each
 * reason's other literals are assigned before it: it becomes unit in that order), the
 * conflict clause last. */
static void analyze(State *st, int64_t conflict, int64_t var) {
    int64_t first = st->scalars[HINTS], pending = 0;
    if (conflict >= 0) {
        mark(st, conflict);
        hint(st, conflict);
        for (int64_t k = st->start[conflict]; k < st->start[conflict + 1]; k++) {
            int64_t v = st->db[k] >> 1;
            if (!st->seen[v]) {
                st->seen[v] = 1;
                pending += 1;
            }
        }
    }
    if (var >= 0 && !st->seen[var]) {
        st->seen[var] = 1;
        pending += 1;
    }
    for (int64_t i = st->scalars[TRAIL] - 1; pending > 0 && i >= 0; i--) {
        int64_t v = st->trail[i] >> 1;
        if (!st->seen[v]) continue;
        st->seen[v] = 0;
        pending -= 1;
        int64_t r = st->reason[v];
        if (r >= 0 && !st->assumed[v]) {  /* an assumed literal needs no reason (refutes) */
            mark(st, r);
            hint(st, r);
            for (int64_t k = st->start[r]; k < st->start[r + 1]; k++) {
                int64_t u = st->db[k] >> 1;
                if (u != v && !st->seen[u]) {  /* v itself is done: marking it again would */
                    st->seen[u] = 1;           /* leave it marked for the next analysis */
                    pending += 1;
                }
            }
        }
    }
    for (int64_t a = first, b = st->scalars[HINTS] - 1; a < b; a++, b--) {
        int32_t swap = st->hints[a];
        st->hints[a] = st->hints[b];
        st->hints[b] = swap;
    }
}

/* Flag (or unflag) the variables of the literals of c and d (but skip) false at the root. */
static void assume(State *st, int64_t c, int64_t d, int64_t skip, uint8_t flag) {
    int64_t clauses[2] = {c, d};
    for (int t = 0; t < 2; t++) {
        int64_t clause = clauses[t];
        if (clause < 0) continue;
        for (int64_t k = st->start[clause]; k < st->start[clause + 1]; k++) {
            int64_t code = st->db[k];
            if (code != skip && (flag == 0 || st->value[code] == -1))
                st->assumed[code >> 1] = flag;
        }
    }
}

/* Does unit propagation on S with every literal of clause c false (and of clause d but skip,
 * when d >= 0) reach a conflict? Marks what it used when mark_used; leaves the root assignment
 * as it found it. */
static int refutes(State *st, int64_t c, int64_t d, int64_t skip, int mark_used) {
    int64_t root = st->scalars[TRAIL];
    int found = 0;
    /* the literals the check assumes false that are false at the root already: their reasons
     * are not used (an LRAT checker assumes them false too; a reason would be a true hint) */
    assume(st, c, d, skip, 1);
    int64_t clauses[2] = {c, d};
    for (int t = 0; t < 2 && !found; t++) {
        int64_t clause = clauses[t];
        if (clause < 0) continue;
        /* the literals falsified are work too: a long lemma is falsified again for every RAT
         * candidate, while its propagation may visit only a few watches */
        st->scalars[WORK] += st->start[clause + 1] - st->start[clause];
        for (int64_t k = st->start[clause]; k < st->start[clause + 1]; k++) {
            int64_t code = st->db[k];
            if (clause == d && code == skip) continue;
            if (st->value[code] == 1) {  /* a true literal: falsifying it conflicts */
                if (mark_used) analyze(st, -1, code >> 1);
                found = 1;
                break;
            }
            if (st->value[code] == 0) assign(st, code ^ 1, -1);
        }
    }
    if (!found) {
        int64_t conflict = propagate(st, mark_used);
        if (conflict >= 0) {
            found = 1;
            if (mark_used) analyze(st, conflict, -1);
        }
    }
    unassign_to(st, root);
    st->scalars[HEAD] = root;
    assume(st, c, d, skip, 0);
    return found;
}

/* The first place from k on (before end) where db holds code, or end. Sixteen literals are
 * compared at a time, in a loop the compiler turns into vector instructions: a RAT check looks
 * through every literal of the database for its candidates. */
static int64_t find_code(const int32_t *db, int64_t k, int64_t end, int32_t code) {
    for (; k + 16 <= end; k += 16) {
        int any = 0;
        for (int t = 0; t < 16; t++) any |= db[k + t] == code;
        if (any) break;
    }
    for (; k < end; k++)
        if (db[k] == code) return k;
    return end;
}

/* One past the last clause in S: RAT's candidates are in S, and the clauses after the lemma
 * checked are not (sixteen clauses looked at a time, as in find_code). */
static int64_t end_of_s(const State *st) {
    int64_t d = st->n_clauses;
    for (; d >= 16; d -= 16) {
        int any = 0;
        for (int t = 0; t < 16; t++) any |= st->alive[d - 16 + t];
        if (any) break;
    }
    while (d > 0 && !st->alive[d - 1]) d--;
    return d;
}

/* The clause whose literals hold place k of db (the last clause that starts at or before k). */
static int64_t clause_at(const State *st, int64_t k) {
    int64_t low = 0, high = st->n_clauses - 1;
    while (low < high) {
        int64_t middle = low + (high - low + 1) / 2;
        if (st->start[middle] <= k) low = middle;
        else high = middle - 1;
    }
    return low;
}

/* Does clause d hold a variable both ways (p and -p among them)? Such a clause is true under
 * every assignment: never a RAT candidate (its resolvent is a tautology), and the certificate
 * deletes the formula's first (cake_lpr asks a hint group of every candidate the witness does
 * not satisfy, and accepts none for it). Uses seen, clear outside a conflict analysis. */
static int tautology(State *st, int64_t d) {
    int found = 0;
    for (int64_t k = st->start[d]; k < st->start[d + 1]; k++) {
        int64_t v = st->db[k] >> 1;
        found |= st->seen[v];  /* a literal's variable seen before: its negation (no repeats) */
        st->seen[v] = 1;
    }
    for (int64_t k = st->start[d]; k < st->start[d + 1]; k++) st->seen[st->db[k] >> 1] = 0;
    return found;
}

/* Is lemma c RUP, or else RAT on its pivot, in the current S: 1 yes, 0 no, -1 the clock
 * passed the deadline before the answer was known. */
static int redundant(State *st, int64_t c, int mark_used, double deadline) {
    if (refutes(st, c, -1, -1, mark_used)) return 1;
    int64_t p = st->pivot[c];
    if (p < 0) return 0;
    st->scalars[WORK] += st->n_clauses + st->n_literals;  /* every clause's literals looked at */
    int64_t look = st->scalars[WORK] + WORK_PER_CALL, end = st->start[end_of_s(st)];
    /* the candidates, in the order of the clauses: each place of -p, a clause at a time */
    for (int64_t k = find_code(st->db, st->start[0], end, (int32_t)(p ^ 1)); k < end;
         k = find_code(st->db, k, end, (int32_t)(p ^ 1))) {
        if (st->scalars[WORK] > look) {  /* one RAT check may cost candidates x propagations: */
            if (past(deadline)) return -1;  /* a hostile lemma could outlast the time limit */
            look = st->scalars[WORK] + WORK_PER_CALL;
        }
        int64_t d = clause_at(st, k);
        k = st->start[d + 1];
        if (!st->alive[d]) continue;
        if (tautology(st, d)) continue;
        if (mark_used) hint(st, -1 - d);
        if (!refutes(st, c, d, p ^ 1, mark_used)) return 0;
    }
    return 1;
}

/* redundant() for a lemma of the backward pass, its hints recorded: 1 yes, 0 no, -1 late, or
 * FULL when the hint buffer was too small (nothing recorded: grow it, ask again). */
static int check_lemma(State *st, int64_t c, double deadline) {
    int64_t first = st->scalars[HINTS];
    int verdict = redundant(st, c, 1, deadline);
    if (verdict == 1) hint(st, END - c);
    if (st->scalars[OVERFLOW]) {
        st->scalars[HINTS] = first;
        st->scalars[OVERFLOW] = 0;
        if (verdict == 1) return FULL;
    }
    return verdict;
}

/* One literal of clause c true, all others false. */
static int unit_under_root(State *st, int64_t c) {
    int64_t true_count = 0;
    for (int64_t k = st->start[c]; k < st->start[c + 1]; k++) {
        int8_t v = st->value[st->db[k]];
        if (v == 0) return 0;
        if (v == 1) true_count += 1;
    }
    return true_count == 1;
}

/* S = the formula; its root assignment; the conflicting clause or -1. */
int64_t drat_start(State *st, int64_t n_formula) {
    GUARDED(st, -1);
    int64_t conflict = -1;
    for (int64_t c = 0; c < n_formula; c++) {
        int64_t found = attach(st, c);
        if (found >= 0 && conflict < 0) conflict = found;
    }
    if (conflict >= 0) return conflict;
    return propagate(st, 0);
}

/* Steps begin..end-1 forward, checking each lemma when check: the outcome, and in out the
 * step it stopped at and (conflict) the conflicting clause; stops early (going, at the next
 * step) once the call's work budget is spent, (late, at the step) when a check passed the
 * deadline. */
int64_t drat_forward(State *st, int64_t begin, int64_t end, int64_t check, double deadline,
                     int64_t *out) {
    GUARDED(st, GOING);
    st->scalars[WORK] = 0;
    out[1] = -1;
    for (int64_t step = begin; step < end; step++) {
        out[0] = step;
        if (st->scalars[WORK] > WORK_PER_CALL) return GOING;
        int64_t c = st->step_clause[step];
        if (st->step_delete[step]) {
            if (c < 0 || unit_under_root(st, c)) st->ignored[step] = 1;
            else detach(st, c);
            continue;
        }
        if (st->start[c + 1] == st->start[c]) return REJECTED;  /* no conflict at the root */
        if (check) {
            int verdict = redundant(st, c, 0, deadline);
            if (verdict <= 0) return verdict == 0 ? REJECTED : LATE;
        }
        int64_t conflict = attach(st, c);
        if (conflict < 0) conflict = propagate(st, 0);
        if (conflict >= 0) {
            out[1] = conflict;
            return CONFLICT;
        }
    }
    out[0] = end;
    return GOING;
}

/* Steps begin-1 down to end backward, checking the marked lemmas: the outcome, and in out the
 * step; stops early (going, at the step it stopped before) once the call's work budget is
 * spent or the hint records fill half their buffer, (late, at the step) when a check passed
 * the deadline. */
int64_t drat_backward(State *st, int64_t begin, int64_t end, double deadline, int64_t *out) {
    GUARDED(st, GOING);
    st->scalars[WORK] = 0;
    for (int64_t step = begin - 1; step > end - 1; step--) {
        out[0] = step;
        if (st->scalars[WORK] > WORK_PER_CALL || 2 * st->scalars[HINTS] > st->n_hints) {
            out[0] = step + 1;
            return GOING;
        }
        int64_t c = st->step_clause[step];
        if (st->step_delete[step]) {
            if (!st->ignored[step]) {
                int64_t conflict = attach(st, c);
                if (conflict < 0) conflict = propagate(st, 0);
                if (conflict >= 0) return BROKEN;
            }
            continue;
        }
        detach(st, c);
        int64_t s = st->start[c];
        if (st->start[c + 1] > s && st->reason[st->db[s] >> 1] == c) {
            if (rebuild_root(st, st->position[st->db[s] >> 1]) >= 0) return BROKEN;
        }
        if (st->core[c]) {
            int verdict = check_lemma(st, c, deadline);
            if (verdict == FULL) return FULL;
            if (verdict <= 0) return verdict == 0 ? REJECTED : LATE;
        }
    }
    out[0] = end;
    return GOING;
}

/* Flag each of the first n clauses that holds a variable both ways (see tautology). */
void drat_tautologies(State *st, int64_t n, uint8_t *out) {
    for (int64_t c = 0; c < n; c++) out[c] = (uint8_t)tautology(st, c);
}

/* analyze() and hint() for drat.py: the refutation's conflict, and the end of its record. */
void drat_analyze(State *st, int64_t conflict, int64_t var) {
    GUARDED(st, );
    analyze(st, conflict, var);
}

void drat_hint(State *st, int64_t value) { hint(st, value); }

/* Clause c leaves S, and the root assignment is S's closure again: conflict or -1. */
int64_t drat_detach_and_rebuild(State *st, int64_t c) {
    GUARDED(st, -1);
    detach(st, c);
    return rebuild_root(st, 0);
}

/* check_lemma() for drat.py (a lemma whose hints did not fit the buffer). */
int64_t drat_check_lemma(State *st, int64_t c, double deadline) {
    GUARDED(st, 0);
    return check_lemma(st, c, deadline);
}

/* Pack the watch lists (drat.py's tests take packing through every arrangement). */
void drat_pack_watches(State *st) {
    GUARDED(st, );
    pack_watches(st);
}

/* the C type of x, named as native.py names a ctypes type: numpy's name of a number, a
 * struct's name, " *" after a pointer's */
#define TYPE_NAME(x)                                                                           \
    _Generic((x), int8_t: "int8", uint8_t: "uint8", int32_t: "int32", int64_t: "int64",       \
             int8_t *: "int8 *", uint8_t *: "uint8 *", int32_t *: "int32 *",                   \
             int64_t *: "int64 *", List *: "List *", void *: "void *")
/* a struct's size, and each field's offset, size and type */
#define STRUCT(T) {#T, "", (int64_t)sizeof(T), 0}
#define FIELD(T, F)                                                                            \
    {#T "." #F, TYPE_NAME(((T *)0)->F), (int64_t)offsetof(T, F), (int64_t)sizeof(((T *)0)->F)}

const Fact *drat_facts(void) {
    static const Fact facts[] = {
        CONSTANT(GOING), CONSTANT(REJECTED), CONSTANT(BROKEN), CONSTANT(LATE), CONSTANT(FULL),
        CONSTANT(HINTS), CONSTANT(WATCH_TOP), CONSTANT(PACKINGS), CONSTANT(FAULT),
        CONSTANT(SCALARS), CONSTANT(MAX_CLAUSES), CONSTANT(END),
        STRUCT(List), FIELD(List, start), FIELD(List, count), FIELD(List, room),
        STRUCT(State), FIELD(State, db), FIELD(State, start), FIELD(State, pivot),
        FIELD(State, alive), FIELD(State, core), FIELD(State, units), FIELD(State, step_clause),
        FIELD(State, step_delete), FIELD(State, ignored), FIELD(State, value),
        FIELD(State, trail), FIELD(State, reason), FIELD(State, position), FIELD(State, seen),
        FIELD(State, lists), FIELD(State, watches), FIELD(State, scalars), FIELD(State, search),
        FIELD(State, hints), FIELD(State, assumed), FIELD(State, order), FIELD(State, n_units),
        FIELD(State, n_clauses), FIELD(State, n_literals), FIELD(State, n_codes),
        FIELD(State, n_watches), FIELD(State, n_hints), FIELD(State, fault), NO_MORE_FACTS};
    return facts;
}

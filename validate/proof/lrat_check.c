/* The small LRAT checker's kernels, called by lrat_check.py, whose docstring states the rules
 * they follow and why they are sound. A clause is its literal codes (2v + negative)
 * codes[start[r]..start[r+1]-1]; value[code] is 1 true, -1 false, 0 unset; trail holds the
 * codes made true, to undo them. Hints are +-(the named clause's index + 1). */
#include "kernels.h"

/* what a step's check says */
enum { OK, NOT_PRESENT, NOT_UNIT, NO_CONFLICT, NOT_CANDIDATE, UNCOVERED };
/* where a run stopped (out[0]): going on, the empty clause accepted, or REJECTED + why */
enum { GOING_ON = 0, ACCEPTED = 1, REJECTED = 100 };

/* make code true (its negation false), on the trail; the trail's new length */
static int64_t assign(int64_t code, int8_t *value, int32_t *trail, int64_t n) {
    value[code] = 1;
    value[code ^ 1] = -1;
    trail[n] = (int32_t)code;
    return n + 1;
}

/* unset the codes trail[to..n-1]; the trail's new length */
static int64_t undo(int8_t *value, const int32_t *trail, int64_t n, int64_t to) {
    for (int64_t k = to; k < n; k++) {
        value[trail[k]] = 0;
        value[trail[k] ^ 1] = 0;
    }
    return to;
}

/* clause r's one literal not false (-1: none, a conflict; -2: two, or one true) */
static int64_t unit(const int32_t *codes, const int64_t *start, int64_t r, const int8_t *value) {
    int64_t found = -1;
    for (int64_t k = start[r]; k < start[r + 1]; k++) {
        int8_t v = value[codes[k]];
        if (v == 1 || (v == 0 && found >= 0 && codes[k] != found))
            return -2;
        if (v == 0)
            found = codes[k];
    }
    return found;
}

/* does clause d hold code? */
static int holds(const int32_t *codes, const int64_t *start, int64_t d, int64_t code) {
    for (int64_t k = start[d]; k < start[d + 1]; k++)
        if (codes[k] == code)
            return 1;
    return 0;
}

/* The positive hints from *i on (up to h1): 1 when they reach a conflict, else 0; *i is left
 * after them, *n is the trail's length, *error why they fail (OK when they do not). */
static int follow(const int32_t *codes, const int64_t *start, const int32_t *hints, int64_t *i,
                  int64_t h1, const uint8_t *alive, int8_t *value, int32_t *trail, int64_t *n,
                  int64_t *error) {
    *error = OK;
    while (*i < h1 && hints[*i] > 0) {
        int64_t r = (int64_t)hints[*i] - 1;
        *i += 1;
        if (!alive[r]) {
            *error = NOT_PRESENT;
            return 0;
        }
        int64_t u = unit(codes, start, r, value);
        if (u == -1) {
            while (*i < h1 && hints[*i] > 0) /* hints after the conflict are not read */
                *i += 1;
            return 1;
        }
        if (u == -2) {
            *error = NOT_UNIT;
            return 0;
        }
        *n = assign(u, value, trail, *n);
    }
    return 0;
}

/* Is clause c (not yet in S) implied by S (RUP) or RAT on its pivot, by its hints
 * hints[h0..h1-1]? OK, or why not. value is all unset before and after. */
static int64_t implied(const int32_t *codes, const int64_t *start, int64_t c,
                       const int32_t *hints, int64_t h0, int64_t h1, const uint8_t *alive,
                       int8_t *value, int32_t *trail, int64_t *covered, int64_t *work) {
    int64_t n = 0, error;
    for (int64_t k = start[c]; k < start[c + 1]; k++) {
        if (value[codes[k]] == 1) { /* c holds this literal's negation too: a tautology */
            undo(value, trail, n, 0);
            return OK;
        }
        if (value[codes[k]] == 0)
            n = assign(codes[k] ^ 1, value, trail, n);
    }
    int64_t i = h0;
    int conflict = follow(codes, start, hints, &i, h1, alive, value, trail, &n, &error);
    if (conflict || error != OK) {
        undo(value, trail, n, 0);
        return error;
    }
    if (start[c + 1] == start[c]) { /* no conflict, and no pivot for RAT */
        undo(value, trail, n, 0);
        return NO_CONFLICT;
    }
    int64_t pivot = codes[start[c]];
    int64_t shared = n;
    while (i < h1) { /* RAT groups: -d h h h ... */
        int64_t d = -(int64_t)hints[i] - 1;
        i += 1;
        if (!alive[d] || !holds(codes, start, d, pivot ^ 1) || holds(codes, start, d, pivot)) {
            undo(value, trail, n, 0);
            return NOT_CANDIDATE;
        }
        covered[d] = c + 1;
        conflict = 0;
        for (int64_t k = start[d]; k < start[d + 1]; k++) {
            if (codes[k] != (pivot ^ 1) && value[codes[k]] == 1)
                conflict = 1;
            else if (codes[k] != (pivot ^ 1) && value[codes[k]] == 0)
                n = assign(codes[k] ^ 1, value, trail, n);
        }
        if (conflict) {
            while (i < h1 && hints[i] > 0)
                i += 1;
        } else {
            conflict = follow(codes, start, hints, &i, h1, alive, value, trail, &n, &error);
        }
        n = undo(value, trail, n, shared);
        if (error != OK || !conflict) {
            undo(value, trail, n, 0);
            return error != OK ? error : NO_CONFLICT;
        }
    }
    work[0] += start[c]; /* the scan below reads every clause before c */
    for (int64_t d = 0; d < c; d++) {
        if (alive[d] && covered[d] != c + 1 && holds(codes, start, d, pivot ^ 1) &&
            !holds(codes, start, d, pivot)) {
            int satisfied = 0;
            for (int64_t k = start[d]; k < start[d + 1]; k++)
                satisfied |= codes[k] != (pivot ^ 1) && value[codes[k]] == 1;
            if (!satisfied) {
                undo(value, trail, n, 0);
                return UNCOVERED;
            }
        }
    }
    undo(value, trail, n, 0);
    return OK;
}

/* Check steps begin..end-1 (hints holds their hints from number hint_base on), stopping early
 * once work passes WORK_PER_CALL: out = (status, step), status GOING_ON (step: the next one),
 * ACCEPTED (the empty clause, at step), else REJECTED + why step is rejected. */
void lrat_check_run(const int32_t *codes, const int64_t *start, const uint8_t *kind,
                    const int64_t *clause, const int32_t *hints, int64_t hint_base,
                    const int64_t *hint_end, int64_t begin, int64_t end, uint8_t *alive,
                    int8_t *value, int32_t *trail, int64_t *covered, int64_t *work,
                    int64_t *out) {
    work[0] = 0;
    for (int64_t s = begin; s < end; s++) {
        if (work[0] > WORK_PER_CALL) {
            out[0] = GOING_ON;
            out[1] = s;
            return;
        }
        int64_t h0 = (s > 0 ? hint_end[s - 1] : 0) - hint_base;
        int64_t h1 = hint_end[s] - hint_base;
        work[0] += h1 - h0;
        if (kind[s] == ADD) {
            int64_t c = clause[s];
            int64_t why = implied(codes, start, c, hints, h0, h1, alive, value, trail, covered,
                                  work);
            if (why != OK) {
                out[0] = REJECTED + why;
                out[1] = s;
                return;
            }
            alive[c] = 1;
            if (start[c + 1] == start[c]) { /* the empty clause */
                out[0] = ACCEPTED;
                out[1] = s;
                return;
            }
        } else {
            for (int64_t k = h0; k < h1; k++) {
                if (hints[k] <= 0 || !alive[hints[k] - 1]) {
                    out[0] = REJECTED + NOT_PRESENT;
                    out[1] = s;
                    return;
                }
                alive[hints[k] - 1] = 0;
            }
        }
    }
    out[0] = GOING_ON;
    out[1] = end;
}

/* Each hint +-id as +-(its place in the sorted known ids + 1), into out: 0 when one names no
 * id there, else 1. The search is numpy's searchsorted (left); abs() wraps in the hint's own
 * type, as numpy's does. With dense (the known ids are 1, 2, ...: ours always are) the place
 * of id h is h - 1, no search; it is checked as a found one is. */
#define INDEX(NAME, TYPE)                                                                        \
    int64_t NAME(const TYPE *hints, int64_t n, const int64_t *known, int64_t n_known,            \
                 int64_t dense, int32_t *out) {                                                  \
        for (int64_t i = 0; i < n; i++) {                                                        \
            TYPE h = (TYPE)(hints[i] < 0 ? -hints[i] : hints[i]);                                \
            int64_t lo = 0, hi = n_known;                                                        \
            if (dense)                                                                           \
                lo = hi = (1 <= h && h <= n_known) ? h - 1 : n_known;                            \
            while (lo < hi) {                                                                    \
                int64_t mid = lo + ((hi - lo) >> 1);                                             \
                if (known[mid] < h)                                                              \
                    lo = mid + 1;                                                                \
                else                                                                             \
                    hi = mid;                                                                    \
            }                                                                                    \
            if (lo >= n_known || known[lo] != h)                                                 \
                return 0;                                                                        \
            out[i] = (int32_t)(hints[i] > 0 ? lo + 1 : -(lo + 1));                               \
        }                                                                                        \
        return 1;                                                                                \
    }

/* lrat_check_index_i32: INDEX for int32 hints (ours, made in memory or in a HintFile) */
INDEX(lrat_check_index_i32, int32_t)
/* lrat_check_index_i64: INDEX for int64 hints (read from a file) */
INDEX(lrat_check_index_i64, int64_t)

const Fact *lrat_check_facts(void) {
    static const Fact facts[] = {CONSTANT(NOT_PRESENT), CONSTANT(NOT_UNIT), CONSTANT(NO_CONFLICT),
                                 CONSTANT(NOT_CANDIDATE), CONSTANT(UNCOVERED), CONSTANT(ACCEPTED),
                                 CONSTANT(REJECTED), NO_MORE_FACTS};
    return facts;
}

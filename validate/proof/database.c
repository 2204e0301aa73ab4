/* The DRAT checker's clause database, built as the proof is read (database.py's docstring:
 * what a step becomes, the hash table, the room each call needs). database.py sizes every
 * array; these kernels check no bounds. */
#include "kernels.h"

/* slots of the scalars array: the first literal not taken, the end of the clauses' literals,
 * the clauses, the steps taken, the work of crowded buckets' walks and the work at which the
 * clock is looked at next, the set's clock, the literals of a step the set lacks room for;
 * SCALARS: how many */
enum { READ, TOP, CLAUSES, STEP, WORK, LOOK, CLOCK, LONGEST, SCALARS };
/* database_take past the deadline */
#define LATE (-1)
/* a clause's hash: its length times this, plus database_mix of each literal */
#define LENGTH_MIX INT64_C(0x27D4EB2F)
/* next[c] of a clause a deletion unlinked */
#define UNLINKED (-2)
/* the set's clock starts again (the set emptied) before clock << 32 would overflow */
#define CLOCK_LIMIT ((INT64_C(1) << 31) - 1)

static inline int past(double deadline) { return puzzlesat_now() > deadline; }

/* A per-literal hash under key; summed, it hashes a clause whatever the order of its
 * literals. Every bit of it depends on every bit of the code (murmur3's finalizer): codes are
 * hashed as written, up to 2**32, and a hash whose low bits followed the code's low bits alone
 * would put codes that differ only in high bits into one bucket whatever the key. */
int64_t database_mix(int64_t code, int64_t key) {
    uint64_t h = (uint64_t)code ^ (uint64_t)key;
    h ^= h >> 33;
    h *= UINT64_C(0xFF51AFD7ED558CCD);
    h ^= h >> 33;
    h *= UINT64_C(0xC4CEB9FE1A85EC53);
    h ^= h >> 33;
    return (int64_t)h;
}

static inline int64_t code_of(int64_t literal) {
    return 2 * (literal < 0 ? -literal : literal) + (literal < 0);
}

/* Put code in the set of this clock (open addressing in 2**k slots, each clock << 32 | code):
 * 1 when it was not there yet. */
static inline int put(int64_t *set, int64_t mask, int64_t clock, int64_t code, int64_t key) {
    int64_t entry = clock << 32 | code;
    for (int64_t k = database_mix(code, key) & mask;; k = (k + 1) & mask) {
        if (set[k] == entry) return 0;
        if (set[k] >> 32 != clock) {
            set[k] = entry;
            return 1;
        }
    }
}

static inline int holds(const int64_t *set, int64_t mask, int64_t clock, int64_t code,
                        int64_t key) {
    int64_t entry = clock << 32 | code;
    for (int64_t k = database_mix(code, key) & mask;; k = (k + 1) & mask) {
        if (set[k] == entry) return 1;
        if (set[k] >> 32 != clock) return 0;
    }
}

static inline int64_t clause_hash(const int32_t *db, int64_t s, int64_t e, int64_t key) {
    int64_t h = (e - s) * LENGTH_MIX;
    for (int64_t k = s; k < e; k++) h += database_mix(code_of(db[k]), key);
    return h;
}

/* Take the complete steps of db[scalars[READ]:n_db] (each ending in 0; step_kinds[s] is 1 when
 * step s deletes; or, with formula set, all clauses of the formula): an addition becomes clause scalars[CLAUSES], its literals without
 * repeats, in the order written, moved down to db[scalars[TOP]:]; a deletion is matched to the
 * newest clause of the same literals not deleted yet, and its literals dropped. The last step,
 * if not complete, is moved down after the clauses, and so are the steps from one whose
 * scalars[LONGEST] literals need a larger set (set then, 0 left alone otherwise). Returns the
 * literals kept (db's new length), or LATE past the deadline. */
int64_t database_take(int32_t *db, int64_t n_db, int64_t formula, const uint8_t *step_kinds,
                      int64_t *scalars,
                      int64_t key, double deadline, int64_t *start, int64_t *step_clause,
                      int32_t *head, int64_t size, int32_t *next, int64_t *set,
                      int64_t set_size) {
    int64_t i = scalars[READ], top = scalars[TOP], clause = scalars[CLAUSES];
    int64_t step = scalars[STEP], clock = scalars[CLOCK];
    int64_t work = scalars[WORK], look = scalars[LOOK];
    int late = 0;
    while (i < n_db) {
        int64_t end = i;
        while (end < n_db && db[end] != 0) end++;
        if (end == n_db) break;  /* the step goes on in the next call */
        if (2 * (end - i) >= set_size) {
            scalars[LONGEST] = end - i;
            break;
        }
        if (clock == CLOCK_LIMIT) {
            for (int64_t k = 0; k < set_size; k++) set[k] = 0;
            clock = 0;
        }
        clock += 1;
        int deleting = !formula && step_kinds[step] == 1;
        int64_t h = 0, n = 0;
        for (int64_t k = i; k < end; k++) {
            int64_t code = code_of(db[k]);
            if (put(set, set_size - 1, clock, code, key)) {
                h += database_mix(code, key);
                if (!deleting) db[top + n] = db[k];
                n += 1;
            }
        }
        i = end + 1;
        h += n * LENGTH_MIX;  /* as clause_hash, the literals summed as they were found */
        int64_t bucket = h & (size - 1);
        if (deleting) {
            int64_t previous = -1, c = head[bucket];
            while (c >= 0) {
                if (start[c + 1] - start[c] == n) {
                    int same = 1;
                    for (int64_t k = start[c]; k < start[c + 1]; k++) {
                        if (!holds(set, set_size - 1, clock, code_of(db[k]), key)) {
                            same = 0;
                            break;
                        }
                    }
                    if (same) break;
                }
                previous = c;
                c = next[c];
                work += 1;
            }
            if (work > look) {  /* a bucket crowded all the same, by chance or by a known key */
                if (past(deadline)) {
                    late = 1;
                    break;
                }
                look = work + WORK_PER_CALL;
            }
            if (c >= 0) {  /* unlink: the clause can be deleted once */
                if (previous < 0) head[bucket] = next[c];
                else next[previous] = next[c];
                next[c] = UNLINKED;
                step_clause[step] = c;
            } else {
                step_clause[step] = -1;
            }
        } else {
            top += n;
            start[clause + 1] = top;
            next[clause] = head[bucket];
            head[bucket] = (int32_t)clause;
            if (!formula) step_clause[step] = clause;
            clause += 1;
        }
        if (!formula) step += 1;
    }
    scalars[CLAUSES] = clause, scalars[STEP] = step, scalars[CLOCK] = clock;
    scalars[WORK] = work, scalars[LOOK] = look;
    if (late) return LATE;
    /* what is not taken yet (a step begun, or the steps from one that needs a larger set)
     * follows the clauses */
    for (int64_t k = i; k < n_db; k++) db[top + k - i] = db[k];
    scalars[READ] = scalars[TOP] = top;
    return top + n_db - i;
}

/* Link the clauses not deleted into head (size buckets, every one -1), newest first in each
 * bucket as database_take links them. */
void database_rehash(const int32_t *db, const int64_t *start, int64_t n_clauses, int64_t key,
                     int32_t *head, int64_t size, int32_t *next) {
    for (int64_t c = 0; c < n_clauses; c++) {
        if (next[c] == UNLINKED) continue;
        int64_t bucket = clause_hash(db, start[c], start[c + 1], key) & (size - 1);
        next[c] = head[bucket];
        head[bucket] = (int32_t)c;
    }
}

const Fact *database_facts(void) {
    static const Fact facts[] = {CONSTANT(READ), CONSTANT(CLAUSES), CONSTANT(STEP),
                                 CONSTANT(CLOCK), CONSTANT(LONGEST), CONSTANT(SCALARS),
                                 CONSTANT(CLOCK_LIMIT), CONSTANT(LATE), NO_MORE_FACTS};
    return facts;
}

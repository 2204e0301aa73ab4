/* The LRAT kernels (lrat.py): a certificate's steps written as text or binary LRAT, LRAT bytes
 * read back into steps (numbers first, then the steps made of them), and the certificate of a
 * DRAT check assembled from the DRAT checker's records. */
#include "kernels.h"

/* a text token "d" among the numbers; a binary "a" is D + 1 */
#define D INT64_MIN
#define A (INT64_MIN + 1)

/* Write the number x at out[n:] (text: decimal and a space; binary: 2|x| + sign in 7-bit
 * groups, low group first); the new end. One per type of x. (The most negative number of the
 * type, never in a certificate, stays negative when negated: floor division still writes
 * digits for it, within the 22 bytes a number may take.) */
#define NUMBER(NAME, T)                                                                        \
    static int64_t NAME(uint8_t *out, int64_t n, T x, int binary) {                          \
        if (binary) {                                                                          \
            T a = x < 0 ? (T)-x : x;                                                           \
            int64_t u = 2 * (int64_t)a + (x < 0);                                              \
            while (u > 127) {                                                                  \
                out[n++] = (uint8_t)(128 | (u & 127));                                         \
                u >>= 7;                                                                       \
            }                                                                                  \
            out[n] = (uint8_t)u;                                                               \
            return n + 1;                                                                      \
        }                                                                                      \
        if (x < 0) {                                                                           \
            out[n++] = '-';                                                                    \
            x = (T)-x;                                                                         \
        }                                                                                      \
        /* p is 10**digits; it wraps past 64 bits from 19 digits on, so a number that long  \
         * is written in 20 digits, a 0 first (never one read: those have 18 at most) */      \
        int64_t digits = 1, p = 10;                                                            \
        while (digits < 20 && (int64_t)x >= p) {                                               \
            digits++;                                                                          \
            p *= 10;                                                                           \
        }                                                                                      \
        for (int64_t k = digits - 1; k >= 0; k--) {                                            \
            T r = (T)(x % 10), q = (T)(x / 10);                                                \
            if (r < 0) { /* floor division */                                                  \
                r += 10;                                                                       \
                q -= 1;                                                                        \
            }                                                                                  \
            out[n + k] = (uint8_t)('0' + r);                                                   \
            x = q;                                                                             \
        }                                                                                      \
        out[n + digits] = ' ';                                                                 \
        return n + digits + 1;                                                                 \
    }

NUMBER(number32, int32_t)
NUMBER(number64, int64_t)

/* a 0 ending the literals or (last) the hints: text "0 " or "0\n", binary a 0 byte */
static int64_t zero(uint8_t *out, int64_t n, int binary, int last) {
    if (binary) {
        out[n] = 0;
        return n + 1;
    }
    out[n] = '0';
    out[n + 1] = last ? '\n' : ' ';
    return n + 2;
}

/* Steps begin..end-1 into out (hints holds the steps' hints from number hint_base on); the
 * bytes written, *last_id the last id added (given: the one before begin). One per type of
 * the hints: int64 in a certificate read, int32 in one the DRAT checker made. */
#define FORMAT(NAME, HINT, NUMBER_HINT)                                                        \
    int64_t NAME(const uint8_t *kind, const int64_t *ids, const int32_t *lits,                 \
                 const int64_t *lit_end, const HINT *hints, int64_t hint_base,                 \
                 const int64_t *hint_end, int64_t begin, int64_t end, int64_t *last_id,        \
                 int64_t binary, uint8_t *out) {                                               \
        int64_t n = 0, last = *last_id;                                                        \
        for (int64_t i = begin; i < end; i++) {                                                \
            int64_t lit_from = i > 0 ? lit_end[i - 1] : 0;                                     \
            int64_t hint_from = i > 0 ? hint_end[i - 1] : 0;                                   \
            if (kind[i] == DELETE) {                                                           \
                if (binary) {                                                                  \
                    out[n++] = 'd';                                                            \
                } else { /* drat-trim's form: the last id added, then d */                     \
                    n = number64(out, n, last, 0);                                             \
                    out[n] = 'd', out[n + 1] = ' ';                                            \
                    n += 2;                                                                    \
                }                                                                              \
            } else {                                                                           \
                last = ids[i];                                                                 \
                if (binary) {                                                                  \
                    out[n] = 'a';                                                              \
                    n = number64(out, n + 1, ids[i], 1); /* an id is positive: 2 * id */       \
                } else {                                                                       \
                    n = number64(out, n, ids[i], 0);                                           \
                }                                                                              \
                for (int64_t k = lit_from; k < lit_end[i]; k++)                                \
                    n = number32(out, n, lits[k], (int)binary);                                \
                n = zero(out, n, (int)binary, 0);                                              \
            }                                                                                  \
            for (int64_t k = hint_from - hint_base; k < hint_end[i] - hint_base; k++)          \
                n = NUMBER_HINT(out, n, hints[k], (int)binary);                                \
            n = zero(out, n, (int)binary, 1);                                                  \
        }                                                                                      \
        *last_id = last;                                                                       \
        return n;                                                                              \
    }

FORMAT(lrat_format_h32, int32_t, number32)
FORMAT(lrat_format_h64, int64_t, number64)

/* The numbers of text LRAT in data[0:size] into out ("d" as D), comment lines skipped; the
 * offset of a bad byte or -1, *count the numbers read. */
int64_t lrat_tokens(const uint8_t *data, int64_t size, int64_t *out, int64_t *count) {
    int64_t n = 0, i = 0, bad = -1;
    while (i < size) {
        int64_t c = data[i];
        if (is_space(c)) {
            i++;
        } else if (c == 'c' && (n == 0 || i == 0 || data[i - 1] == '\n')) { /* a comment line */
            while (i < size && data[i] != '\n') i++;
        } else if (c == 'd') {
            out[n++] = D;
            i++;
        } else if (c == '-' || is_digit(c)) {
            int negative = c == '-';
            i += negative;
            int64_t value = 0, digits = 0;
            while (i < size && is_digit(data[i])) {
                value = value * 10 + (data[i] - '0');
                digits++;
                if (digits > 18) /* the value may have wrapped: it is never used */
                    break;
                i++;
            }
            if (digits == 0 || digits > 18 || (i < size && !is_space(data[i]))) {
                bad = i;
                break;
            }
            out[n++] = negative ? -value : value;
        } else {
            bad = i;
            break;
        }
    }
    *count = n;
    return bad;
}

/* the index of the marker (D or A) that begins the step whose numbers end at out[n - 1] */
static int64_t step_head(const int64_t *out, int64_t n) {
    int64_t k = n - 1;
    while (out[k] != D && out[k] != A) k--;
    return k;
}

/* The numbers of binary LRAT in data[0:size] into out, decoded ("a" as A, "d" as D: 0 never
 * stands for a step); the offset of a bad byte or -1, *count the numbers read. */
int64_t lrat_binary_tokens(const uint8_t *data, int64_t size, int64_t *out, int64_t *count) {
    int64_t n = 0, i = 0, bad = -1, zeros = 0;
    int expect_step = 1;
    while (i < size) {
        int64_t c = data[i];
        if (expect_step) {
            if (c != 'a' && c != 'd') {
                bad = i;
                break;
            }
            out[n++] = c == 'd' ? D : A;
            i++;
            expect_step = 0;
            zeros = 0;
            continue;
        }
        /* at most 9 groups (shift <= 56): u stays below 2**63 */
        int64_t u = 0, shift = 0;
        for (;;) {
            if (i >= size || shift > 56) {
                bad = i;
                break;
            }
            int64_t b = data[i++];
            u |= (b & 127) << shift;
            shift += 7;
            if (b < 128) break;
        }
        if (bad >= 0) break;
        out[n++] = u & 1 ? -(u >> 1) : u >> 1;
        if (u == 0) {
            zeros++;
            /* an addition ends with its second 0, a deletion with its first */
            if (zeros == 2 || out[step_head(out, n)] == D) expect_step = 1;
        }
    }
    *count = n;
    return bad;
}

/* Copy the tokens from i up to the next 0 into the literals (lits given: a marker or a number
 * past 32 bits is bad) or the hints (hints given: a marker is bad) from *k: the index past
 * that 0 and *ok = 1, or the bad token's index (the stream's end without a 0) and *ok = 0. */
static inline int64_t zero_ended(const int64_t *tok, int64_t i, int64_t n, int32_t *lits,
                                 int64_t *hints, int64_t *k, int *ok) {
    int hint = hints != 0;
    *ok = 0;
    while (i < n && tok[i] != 0) {
        int64_t t = tok[i];
        if (t == D || (hint ? t == A : (t < 0 ? -t : t) > MAX_LITERAL)) return i;
        if (hint)
            hints[*k] = t;
        else
            lits[*k] = (int32_t)t;
        (*k)++;
        i++;
    }
    if (i >= n) return i;
    *ok = 1;
    return i + 1;
}

/* The steps of the token stream tok[0:n] into the arrays (each sized for n); the index of a
 * bad token or -1, counts = [steps, literals, hints]. */
int64_t lrat_steps(const int64_t *tok, int64_t n, int64_t binary, uint8_t *kind, int64_t *ids,
                   int32_t *lits, int64_t *lit_end, int64_t *hints, int64_t *hint_end,
                   int64_t *counts) {
    int64_t s = 0, nl = 0, nh = 0, i = 0, bad = -1;
    int ok;
    while (i < n) {
        int deleting;
        if (binary) {
            deleting = tok[i] == D;
            i++;
            if (!deleting) {
                if (i >= n || tok[i] <= 0) {
                    bad = i;
                    break;
                }
                ids[s] = tok[i];
                i++;
            }
        } else {
            if (tok[i] <= 0) {
                bad = i;
                break;
            }
            ids[s] = tok[i];
            i++;
            deleting = i < n && tok[i] == D;
            i += deleting;
        }
        if (!deleting) {
            i = zero_ended(tok, i, n, lits, 0, &nl, &ok);
            if (!ok) {
                bad = i;
                break;
            }
        }
        i = zero_ended(tok, i, n, 0, hints, &nh, &ok);
        if (!ok) {
            bad = i;
            break;
        }
        kind[s] = (uint8_t)deleting;
        lit_end[s] = nl, hint_end[s] = nh;
        s++;
    }
    counts[0] = s, counts[1] = nl, counts[2] = nh;
    return bad;
}

/* The certificate of a DRAT check (drat.py's verify_drat), assembled from the checker's hint
 * records and clause database. */

/* The hint records (written backward, each ending at ends[r]; see drat.c's END) into out in
 * proof order, clause ids renamed by new_id, the groups of RAT candidates left out of the
 * certificate (present false) dropped; counts: the hints of each record, in proof order.
 * Returns the hints written. */
int64_t lrat_hints_in_proof_order(const int32_t *records, const int64_t *ends,
                                  int64_t n_records, const int32_t *new_id,
                                  const uint8_t *present, int32_t *out, int64_t *counts) {
    int64_t w = 0;
    for (int64_t r = n_records - 1; r >= 0; r--) {
        int64_t before = w;
        int keep = 1;
        for (int64_t i = r > 0 ? ends[r - 1] + 1 : 0; i < ends[r]; i++) {
            int64_t h = records[i];
            if (h < 0) {  /* a RAT candidate's group begins */
                keep = present[-1 - h];
                if (keep) out[w++] = -new_id[-1 - h];
            } else if (keep) {
                out[w++] = new_id[h];
            }
        }
        counts[n_records - 1 - r] = w - before;
    }
    return w;
}

/* The ends of each clause's literals (none for -1) in a list of them, into lit_end: the
 * literals there are. */
int64_t lrat_lemma_ends(const int64_t *start, const int64_t *clauses, int64_t n,
                        int64_t *lit_end) {
    int64_t end = 0;
    for (int64_t k = 0; k < n; k++) {
        if (clauses[k] >= 0) end += start[clauses[k] + 1] - start[clauses[k]];
        lit_end[k] = end;
    }
    return end;
}

/* Each clause's literals, its pivot first, the variables renumbered beyond kept given back
 * their numbers fresh, one after another at the front of db itself (clauses in increasing
 * order: a literal is written at or before where it is read, after it is read). */
void lrat_move_literals(int32_t *db, const int64_t *start, const int32_t *pivot,
                        const int64_t *clauses, int64_t n, int64_t kept, const int64_t *fresh) {
    int32_t *lits = db;
    int64_t w = 0;
    for (int64_t k = 0; k < n; k++) {
        int64_t c = clauses[k];
        if (c < 0) continue;
        int64_t first = w;
        for (int64_t i = start[c]; i < start[c + 1]; i++) {
            int64_t code = db[i], at = w;
            if (code == pivot[c] && w > first) {  /* the pivot goes first: swap */
                lits[w] = lits[first];
                at = first;
            }
            int64_t variable = code >> 1;
            if (variable > kept) variable = fresh[variable - kept - 1];
            lits[at] = (int32_t)(code & 1 ? -variable : variable);
            w += 1;
        }
    }
}

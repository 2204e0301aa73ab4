/* The DRAT reader's kernels (reader.py): two state machines, text and binary, that parse a
 * proof a chunk at a time, their state carried from chunk to chunk in a small int64 array
 * (reader.py's _STATE slots: mode, kind, value, negative or shift, step open). */
#include "kernels.h"

/* the error codes of reader.py (_OK, _BAD_BYTE, _TOO_BIG, _BAD_LITERAL) */
enum { OK = 0, BAD_BYTE = 1, TOO_BIG = 2, BAD_LITERAL = 3 };

/* the largest literal (DIMACS literals are 32-bit signed integers) */
#define MAX_LITERAL 2147483647

static int is_space(int64_t c) { return c == 32 || (9 <= c && c <= 13); }

/* Parse the chunk data[0:size] of text DRAT into literals/deletions from the counts
 * counts[0] (literals), counts[1] (steps); returns an error code, the counts updated and
 * counts[2] the offset of the bad byte in the chunk (0 without error). */
int64_t reader_parse_text(const uint8_t *data, int64_t size, int64_t *state, int32_t *literals,
                          uint8_t *deletions, int64_t *counts) {
    int64_t mode = state[0], kind = state[1], value = state[2], negative = state[3];
    int64_t step_open = state[4];
    int64_t n_literals = counts[0], n_steps = counts[1];
    int64_t error = OK, i;
    for (i = 0; i < size; i++) {
        int64_t c = data[i];
        if (mode == 2) { /* comment: printable ASCII up to the end of the line */
            if (c == 10) {
                mode = 0;
            } else if (!((32 <= c && c <= 126) || c == 9 || c == 13)) {
                error = BAD_BYTE;
                break;
            }
            continue;
        }
        if (mode == 1 || mode == 4) {
            if (48 <= c && c <= 57) {
                value = value * 10 + (c - 48);
                if (value > MAX_LITERAL) { /* checked at each digit: value never overflows */
                    error = TOO_BIG;
                    break;
                }
                mode = 1;
                continue;
            }
            if (mode == 4 || !is_space(c)) { /* '-' not followed by a digit, or "12x" */
                error = BAD_BYTE;
                break;
            }
            if (value == 0) {
                if (negative) {
                    error = BAD_LITERAL;
                    break;
                }
                literals[n_literals] = 0;
                deletions[n_steps] = (uint8_t)kind;
                n_steps++;
                kind = 0;
                step_open = 0;
            } else {
                literals[n_literals] = (int32_t)(negative ? -value : value);
                step_open = 1;
            }
            n_literals++;
            mode = 0;
            continue;
        }
        if (mode == 3) { /* 'd' must stand alone */
            if (!is_space(c)) {
                error = BAD_BYTE;
                break;
            }
            mode = 0;
            continue;
        }
        if (is_space(c)) continue;
        if ((48 <= c && c <= 57) || c == 45) {
            negative = c == 45;
            value = c == 45 ? 0 : c - 48;
            mode = c == 45 ? 4 : 1;
            continue;
        }
        if (step_open == 0 && c == 99) {
            mode = 2;
            continue;
        }
        if (step_open == 0 && c == 100) {
            kind = 1;
            step_open = 1;
            mode = 3;
            continue;
        }
        error = BAD_BYTE;
        break;
    }
    counts[0] = n_literals;
    counts[1] = n_steps;
    if (error != OK) { /* the state is left as it was: the caller gives up the proof */
        counts[2] = i;
        return error;
    }
    counts[2] = 0;
    state[0] = mode, state[1] = kind, state[2] = value, state[3] = negative;
    state[4] = step_open;
    return OK;
}

/* Parse the chunk data[0:size] of binary DRAT, like reader_parse_text. */
int64_t reader_parse_binary(const uint8_t *data, int64_t size, int64_t *state,
                            int32_t *literals, uint8_t *deletions, int64_t *counts) {
    int64_t mode = state[0], kind = state[1], value = state[2], shift = state[3];
    int64_t n_literals = counts[0], n_steps = counts[1];
    int64_t error = OK, i;
    for (i = 0; i < size; i++) {
        int64_t c = data[i];
        if (mode == 0) {
            if (c == 97 || c == 100) { /* 'a' or 'd' */
                kind = c == 100;
                mode = 1;
                value = 0;
                shift = 0;
                continue;
            }
            error = BAD_BYTE;
            break;
        }
        /* shift <= 35 here, so the group fits in 64 bits */
        value |= (c & 127) << shift;
        if (value > 2 * (int64_t)MAX_LITERAL + 1) {
            error = TOO_BIG;
            break;
        }
        if (c & 128) {
            shift += 7;
            if (shift > 35) {
                error = TOO_BIG;
                break;
            }
            continue;
        }
        if (value == 0) {
            literals[n_literals] = 0;
            deletions[n_steps] = (uint8_t)kind;
            n_steps++;
            mode = 0;
        } else if (value == 1) {
            error = BAD_LITERAL;
            break;
        } else {
            literals[n_literals] = (int32_t)(value & 1 ? -(value >> 1) : value >> 1);
        }
        n_literals++;
        value = 0;
        shift = 0;
    }
    counts[0] = n_literals;
    counts[1] = n_steps;
    if (error != OK) {
        counts[2] = i;
        return error;
    }
    counts[2] = 0;
    state[0] = mode, state[1] = kind, state[2] = value, state[3] = shift;
    state[4] = mode; /* a step is open while the parser is inside one */
    return OK;
}

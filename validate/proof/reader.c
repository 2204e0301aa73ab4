/* The DRAT reader's kernels (reader.py): two state machines, text and binary, that parse a
 * proof a chunk at a time. Within a chunk the state is where the code is (a label per mode:
 * each byte is tested only for what may follow); at the chunk's end it is saved in a small
 * int64 array (its slots: mode, kind, value, negative or shift, step open), from which the next
 * chunk resumes; the same array holds the parse's counts, which reader.py reads. */
#include "kernels.h"

/* the error codes (reader.py says what each means), and NEED_ROOM */
enum { OK = 0, BAD_BYTE = 1, TOO_BIG = 2, BAD_LITERAL = 3, NEED_ROOM = -1 };

/* the slots of the state array: the parser's state, then its counts (literals and steps
 * parsed, the chunk that needs room or has a bad byte, the offset of that byte in it); SLOTS:
 * how many */
enum { MODE, KIND, VALUE, SIGN_OR_SHIFT, OPEN, LITERALS, STEPS, CHUNK, AT, SLOTS };

/* the text modes: between tokens, in a number, in a comment, just after 'd', after '-' */
enum { BETWEEN = 0, NUMBER = 1, COMMENT = 2, AFTER_D = 3, AFTER_MINUS = 4 };

/* A parse refused at byte i of its chunk: the counts so far and where; the state is left as
 * it was (the caller gives up the proof). */
static int64_t refused(int64_t *state, int64_t n_literals, int64_t n_steps, int64_t error,
                       int64_t i) {
    state[LITERALS] = n_literals;
    state[STEPS] = n_steps;
    state[AT] = i;
    return error;
}

/* A parse at the end of its chunk: the counts, and the state the next chunk resumes from. */
static int64_t save(int64_t *state, int64_t n_literals, int64_t n_steps, int64_t mode,
                    int64_t kind, int64_t value, int64_t sign_or_shift, int64_t open) {
    state[LITERALS] = n_literals;
    state[STEPS] = n_steps;
    state[MODE] = mode, state[KIND] = kind, state[VALUE] = value;
    state[SIGN_OR_SHIFT] = sign_or_shift, state[OPEN] = open;
    return OK;
}

/* Parse the chunk data[0:size] of text DRAT into literals/deletions from the counts
 * state[LITERALS] and state[STEPS]; returns an error code, the counts updated and state[AT]
 * the offset of the bad byte in the chunk. */
static int64_t parse_text(const uint8_t *data, int64_t size, int64_t *state, int32_t *literals,
                          uint8_t *deletions) {
    int64_t mode = state[MODE], kind = state[KIND], value = state[VALUE];
    int64_t negative = state[SIGN_OR_SHIFT], step_open = state[OPEN];
    int64_t n_literals = state[LITERALS], n_steps = state[STEPS];
    int64_t error = OK, i = 0, c;
    switch (mode) {
    case NUMBER: goto number;
    case COMMENT: goto comment;
    case AFTER_D: goto after_d;
    case AFTER_MINUS: goto after_minus;
    default: goto between;
    }
between:
    for (;; i++) {
        if (i == size) {
            mode = BETWEEN;
            goto done;
        }
        c = data[i];
        if (is_space(c)) continue;
        if (is_digit(c)) {
            negative = 0;
            value = c - '0';
            i++;
            goto number;
        }
        if (c == '-') {
            negative = 1;
            value = 0;
            i++;
            goto after_minus;
        }
        if (step_open == 0 && c == 'c') {
            i++;
            goto comment;
        }
        if (step_open == 0 && c == 'd') {
            kind = 1;
            step_open = 1;
            i++;
            goto after_d;
        }
        error = BAD_BYTE;
        goto failed;
    }
after_minus: /* a digit must follow */
    if (i == size) {
        mode = AFTER_MINUS;
        goto done;
    }
    c = data[i];
    if (!is_digit(c)) {
        error = BAD_BYTE;
        goto failed;
    }
    value = c - '0';
    i++;
number:
    for (;; i++) {
        if (i == size) {
            mode = NUMBER;
            goto done;
        }
        c = data[i];
        if (!is_digit(c)) break;
        value = value * 10 + (c - '0');
        if (value > MAX_LITERAL) { /* checked at each digit: value never overflows */
            error = TOO_BIG;
            goto failed;
        }
    }
    if (!is_space(c)) { /* "12x" */
        error = BAD_BYTE;
        goto failed;
    }
    if (value == 0) {
        if (negative) {
            error = BAD_LITERAL;
            goto failed;
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
    i++;
    goto between;
comment: /* printable ASCII up to the end of the line */
    for (;; i++) {
        if (i == size) {
            mode = COMMENT;
            goto done;
        }
        c = data[i];
        if (c == '\n') {
            i++;
            goto between;
        }
        if (!((' ' <= c && c <= '~') || c == '\t' || c == '\r')) {
            error = BAD_BYTE;
            goto failed;
        }
    }
after_d: /* 'd' must stand alone */
    if (i == size) {
        mode = AFTER_D;
        goto done;
    }
    if (!is_space(data[i])) {
        error = BAD_BYTE;
        goto failed;
    }
    i++;
    goto between;
failed:
    return refused(state, n_literals, n_steps, error, i);
done:
    return save(state, n_literals, n_steps, mode, kind, value, negative, step_open);
}

/* the largest number a binary literal is written as */
#define MAX_CODE (2 * MAX_LITERAL + 1)

/* a literal's group at the constant shift K (the fast path, at least 6 bytes before the chunk's
 * end: a literal has ended or been refused by its 6th group) */
#define GROUP(K)                                                                               \
    c = data[i];                                                                               \
    value |= (c & 127) << (K);                                                                 \
    if (value > MAX_CODE) {                                                                    \
        error = TOO_BIG;                                                                       \
        goto failed;                                                                           \
    }                                                                                          \
    if (!(c & 128)) goto literal_end;                                                          \
    if ((K) + 7 > 35) {                                                                        \
        error = TOO_BIG;                                                                       \
        goto failed;                                                                           \
    }                                                                                          \
    i++;

/* Parse the chunk data[0:size] of binary DRAT, like parse_text (the binary modes: 0 expecting
 * 'a' or 'd', 1 in a step). */
static int64_t parse_binary(const uint8_t *data, int64_t size, int64_t *state,
                            int32_t *literals, uint8_t *deletions) {
    int64_t mode = state[MODE], kind = state[KIND], value = state[VALUE];
    int64_t shift = state[SIGN_OR_SHIFT];
    int64_t n_literals = state[LITERALS], n_steps = state[STEPS];
    int64_t error = OK, i = 0, c;
    if (mode == 1) goto slow; /* maybe inside a literal begun in the last chunk */
step:
    if (i == size) {
        mode = 0;
        goto done;
    }
    c = data[i];
    if (c != 'a' && c != 'd') {
        error = BAD_BYTE;
        goto failed;
    }
    kind = c == 'd';
    value = 0;
    shift = 0;
    i++;
literal: /* a literal begins: value = shift = 0 */
    if (size - i < 6) goto slow;
    /* the groups at constant shifts (a variable shift costs more on baseline x86-64) */
    GROUP(0) GROUP(7) GROUP(14) GROUP(21) GROUP(28) GROUP(35)
slow: /* a group at a time, the chunk's end checked at each byte */
    for (;; i++) {
        if (i == size) {
            mode = 1;
            goto done;
        }
        c = data[i];
        value |= (c & 127) << shift; /* shift <= 35 here: the group fits in 64 bits */
        if (value > MAX_CODE) {
            error = TOO_BIG;
            goto failed;
        }
        if (!(c & 128)) break;
        shift += 7;
        if (shift > 35) {
            error = TOO_BIG;
            goto failed;
        }
    }
literal_end: /* the literal's last group at i */
    if (value == 0) { /* the step's end */
        literals[n_literals] = 0;
        deletions[n_steps] = (uint8_t)kind;
        n_steps++;
        n_literals++;
        shift = 0;
        i++;
        goto step;
    }
    if (value == 1) { /* -0 */
        error = BAD_LITERAL;
        goto failed;
    }
    literals[n_literals] = (int32_t)(value & 1 ? -(value >> 1) : value >> 1);
    n_literals++;
    value = 0;
    shift = 0;
    i++;
    goto literal;
failed:
    return refused(state, n_literals, n_steps, error, i);
done: /* a step is open while the parser is inside one */
    return save(state, n_literals, n_steps, mode, kind, value, shift, mode);
}

/* Parse the chunks chunks[first:n] (sizes[k] bytes each) in turn, text DRAT (binary 0) or
 * binary, into literals (room for n_literals) and deletions (room for n_deletions); state holds
 * the parser's state and its counts (the slots above: literals and steps read and updated).
 * One call for several chunks: a call from Python costs tens of microseconds. Returns an error
 * code, or NEED_ROOM (state[CHUNK] the chunk) before a chunk the arrays may lack room for:
 * the caller grows them as reader.py did for each chunk (so they grow exactly as they did)
 * and calls again from that chunk. */
int64_t reader_parse(const uint8_t *const *chunks, const int64_t *sizes, int64_t first,
                     int64_t n, int64_t binary, int64_t *state, int32_t *literals,
                     int64_t n_literals, uint8_t *deletions, int64_t n_deletions) {
    for (int64_t k = first; k < n; k++) {
        /* a chunk adds at most one literal per byte (binary) and one step per two bytes */
        if (state[LITERALS] + sizes[k] + 1 > n_literals ||
            state[STEPS] + sizes[k] / 2 + 2 > n_deletions) {
            state[CHUNK] = k;
            return NEED_ROOM;
        }
        int64_t error = binary ? parse_binary(chunks[k], sizes[k], state, literals, deletions)
                               : parse_text(chunks[k], sizes[k], state, literals, deletions);
        if (error != OK) {
            state[CHUNK] = k;
            return error;
        }
    }
    state[CHUNK] = state[AT] = 0;
    return OK;
}

const Fact *reader_facts(void) {
    static const Fact facts[] = {CONSTANT(BAD_BYTE), CONSTANT(TOO_BIG), CONSTANT(BAD_LITERAL),
                                 CONSTANT(OK), CONSTANT(NEED_ROOM), CONSTANT(OPEN),
                                 CONSTANT(LITERALS), CONSTANT(STEPS), CONSTANT(CHUNK),
                                 CONSTANT(AT), CONSTANT(SLOTS), NO_MORE_FACTS};
    return facts;
}

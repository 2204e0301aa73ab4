/* What every kernel of the proof checker shares. The kernels: the .c files of validate/proof,
 * one per Python module that calls them, loaded with ctypes by native.py. Arrays come from
 * numpy, C order, their types checked by ctypes at each call (drat.c's State's by drat.py as
 * it fills it); the kernels check no bounds, so the Python side sizes every array and checks
 * every index a file gives. The constants both sides use are written once, in C (here or in
 * their .c file), and exported (Fact): Python reads them at load, and checks the layout of
 * the structs both sides declare. */
#ifndef PUZZLESAT_KERNELS_H
#define PUZZLESAT_KERNELS_H

#include <stdint.h>

/* the largest literal (DIMACS literals are 32-bit signed integers) */
#define MAX_LITERAL INT64_C(2147483647)

/* a kernel call that may run long looks at the clock, or returns, once it has done this much
 * work (watches, RAT candidates, clauses of a crowded bucket, literals or hints looked at) */
#define WORK_PER_CALL (INT64_C(1) << 24)

/* the kinds of an LRAT step (lrat.py's ADD and DELETE) */
enum { ADD = 0, DELETE = 1 };

/* a byte of text between tokens: a space, or \t \n \v \f \r */
static inline int is_space(int64_t c) { return c == ' ' || ('\t' <= c && c <= '\r'); }

static inline int is_digit(int64_t c) { return '0' <= c && c <= '9'; }

/* One fact of the boundary with Python, which the library exports for native.py to read or
 * check at load: a constant (its value), a struct (its size), or a struct's field (its offset,
 * size and C type). Each .c file exports its own, ended by NO_MORE_FACTS, from a function
 * named after it (drat_facts, ...). */
typedef struct {
    const char *name;  /* "GOING", "State", "State.db" */
    const char *type;  /* a field's C type, named as native.py names it ("int32 *"); else "" */
    int64_t value;     /* a constant's value, a struct's size, a field's offset */
    int64_t size;      /* a field's size; else 0 */
} Fact;

#define CONSTANT(NAME) {#NAME, "", (NAME), 0}
#define NO_MORE_FACTS {0, 0, 0, 0}

/* the kernels' clock in seconds (CLOCK_MONOTONIC): native.deadline() turns a
 * time.monotonic() deadline into it */
double puzzlesat_now(void);

/* the hash of the sources the library was built from (build.py's source_hash) */
const char *puzzlesat_source_hash(void);

#endif

/* What every kernel of the proof checker shares. The kernels: the .c files of validate/proof,
 * one per Python module that calls them, loaded with ctypes by native.py. Arrays come from
 * numpy, C order, their types checked by ctypes at each call; the kernels check no bounds, so
 * the Python side sizes every array and checks every index a file gives. */
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

/* the kernels' clock in seconds (CLOCK_MONOTONIC): native.deadline() turns a
 * time.monotonic() deadline into it */
double puzzlesat_now(void);

/* the hash of the sources the library was built from (build.py's source_hash) */
const char *puzzlesat_source_hash(void);

#endif

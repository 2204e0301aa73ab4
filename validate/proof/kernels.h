/* What every kernel of the proof checker shares. The kernels: the .c files of validate/proof,
 * one per Python module that calls them, loaded with ctypes by native.py. Arrays come from
 * numpy, C order, their types checked by ctypes at each call; the kernels check no bounds, so
 * the Python side sizes every array and checks every index a file gives. */
#ifndef PUZZLESAT_KERNELS_H
#define PUZZLESAT_KERNELS_H

#include <stdint.h>

/* the kernels' clock in seconds (CLOCK_MONOTONIC): native.deadline() turns a
 * time.monotonic() deadline into it */
double puzzlesat_now(void);

/* the hash of the sources the library was built from (build.py's source_hash) */
const char *puzzlesat_source_hash(void);

#endif

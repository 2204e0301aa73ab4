/* The kernels' clock, the hash of the sources the library was built from, and the constants of
 * kernels.h that Python reads. */
#define _POSIX_C_SOURCE 199309L
#include <time.h>

#include "kernels.h"

/* native.py refuses a library whose hash is not its sources' (a stale build) */
const char *puzzlesat_source_hash(void) { return PUZZLESAT_SOURCE_HASH; }

double puzzlesat_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const Fact *kernels_facts(void) {
    static const Fact facts[] = {CONSTANT(ADD), CONSTANT(DELETE), NO_MORE_FACTS};
    return facts;
}

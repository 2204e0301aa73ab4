"""Giving LLVM's memory back once numba has loaded the proof checker's kernels.

numba maps llvmlite's LLVM library (about 180 MB of code and tables) and touches 60-70 MB of it
while it starts and loads a kernel: as much as drat-trim takes to check a 20 MB proof. Once the
kernels are loaded, LLVM runs again only to compile or load another one; until then its pages
are file-backed and clean, so the system can drop them and read them again when needed.
:func:`page_out_llvm` asks it to do that now (``madvise(MADV_PAGEOUT)``, Linux 5.4 and later),
rather than leave them in the checker's resident memory. It only advises: no data can be lost
(pages another process maps, or written ones without swap, simply stay), and where the call is
not available nothing happens.
"""

from __future__ import annotations

import ctypes
import sys

#: linux/mman.h: reclaim these pages now
MADV_PAGEOUT = 21
#: the shared library llvmlite loads LLVM from
LIBRARY = "libllvmlite"


def page_out_llvm() -> int:
    """Advise the system to reclaim the resident pages of LLVM's library in this process: the
    bytes of mappings advised (0 where that cannot be done, e.g. not Linux)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        with open("/proc/self/maps") as maps:
            ranges = [line.split()[0] for line in maps
                      if len(line.split()) >= 6 and LIBRARY in line.split()[5].rsplit("/", 1)[-1]]
        madvise = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return 0
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    advised = 0
    for span in ranges:
        low, high = (int(end, 16) for end in span.split("-"))
        if madvise(low, high - low, MADV_PAGEOUT) == 0:
            advised += high - low
    return advised

"""The proof checker's C kernels (``validate/proof/*.c``), loaded with ctypes from the shared
library the install built (:mod:`puzzlesat.validate.proof.build`): each kernel declared once
with the types of its arguments, which ctypes checks at every call (a numpy array of another
dtype, or not C-contiguous, is a TypeError, never a wrong read).

The constants both sides use (kernel outcomes, slots of state arrays, error codes, bounds) are
written once, in C, and exported by the library (kernels.h's Fact): the Python side reads them
here at load (:func:`constants`), by name.

A library that cannot be used as it is (not built, older than its sources, or without a
constant the Python side reads) is a :class:`KernelSetupError`: a set-up to fix, one line that
says how, never a checker's verdict."""

from __future__ import annotations

import ctypes
import functools
import platform
import time
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.validate.proof import build

#: argument types: a C int64, a C double
I64, F64 = ctypes.c_int64, ctypes.c_double


class KernelSetupError(UserError):
    """The proof checker's kernels cannot be used as they are (not built, not loadable, older
    than their sources, or not what the Python side expects): the set-up is to fix, not the
    proof."""


#: what to do about a library that is missing or stale, said in every such error
_REBUILD = ("build them again (`make setup` in a source tree; elsewhere `python -m "
            "puzzlesat.validate.proof.build` with ziglang installed, or install puzzlesat again)")


def _load() -> ctypes.CDLL:
    """The library, checked to be built from the sources beside it (when they are here)."""
    paths = [build.HERE / (build.LIBRARY + suffix) for suffix in EXTENSION_SUFFIXES]
    found = [path for path in paths if path.exists()]
    if not found:
        raise KernelSetupError(f"the proof checker's kernels are not built ({build.HERE} has "
                               f"no {build.LIBRARY} library): {_REBUILD}")
    try:
        library = ctypes.CDLL(str(found[0]))
    except OSError as exc:
        raise KernelSetupError(f"the proof checker's kernels ({found[0]}) cannot be loaded "
                               f"({exc}): {_REBUILD}") from None
    library.puzzlesat_source_hash.restype = ctypes.c_char_p
    built = library.puzzlesat_source_hash()
    if build.sources() and built.decode() != build.source_hash():
        raise KernelSetupError(f"the proof checker's kernels ({found[0].name}) are older than "
                               f"their sources: {_REBUILD}")
    return library


_LIBRARY = _load()


class _Fact(ctypes.Structure):
    """A fact of the boundary that the library exports (kernels.h's Fact)."""

    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_char_p), ("value", I64),
                ("size", I64)]


@functools.cache
def facts(unit: str) -> dict[str, tuple[str, int, int]]:
    """The facts the kernels of ``unit`` (its .c file) export, in their order: name -> (C
    type, value, size), as kernels.h's Fact says."""
    function = getattr(_LIBRARY, f"{unit}_facts", None)
    if function is None:
        raise _mismatch(f"{unit}.c exports no facts")
    function.restype = ctypes.POINTER(_Fact)
    table, found, k = function(), {}, 0
    while table[k].name is not None:  # NO_MORE_FACTS ends it
        found[table[k].name.decode()] = (table[k].type.decode(), table[k].value, table[k].size)
        k += 1
    return found


def constants(unit: str, *names: str) -> list[int]:
    """The values of the constants ``names`` that the kernels of ``unit`` export (written
    once, in C); one the library does not export is a :class:`KernelSetupError`."""
    found = facts(unit)
    for name in names:
        if name not in found or found[name][0]:
            raise _mismatch(f"{unit}.c exports no constant {name}")
    return [found[name][1] for name in names]


def _mismatch(what: str) -> KernelSetupError:
    """The error of a library that is not what the Python side expects (``what`` says how)."""
    return KernelSetupError(f"the proof checker's kernels ({Path(_LIBRARY._name).name}) do not "
                            f"match their Python side ({what}): {_REBUILD}")


def array(dtype) -> type:
    """The argument type of a C-contiguous numpy array of ``dtype`` (a pointer in C)."""
    return np.ctypeslib.ndpointer(dtype, flags="C_CONTIGUOUS")


def kernel(name: str, result, *arguments):
    """The kernel ``name`` of the library, returning ``result`` (a ctypes type or None), its
    ``arguments``' types declared."""
    function = getattr(_LIBRARY, name)
    function.restype = result
    function.argtypes = arguments
    return function


def grow(items: np.ndarray, need: int) -> np.ndarray:
    """``items`` with room for ``need`` items, grown in place by a quarter at least (realloc,
    which moves large blocks by remapping pages rather than copying them)."""
    if items.shape[0] < need:
        items.resize(max(need, items.shape[0] + items.shape[0] // 4), refcheck=False)
    return items


_now = kernel("puzzlesat_now", F64)


def deadline(monotonic: float) -> float:
    """The kernels' clock reading at the ``time.monotonic()`` reading ``monotonic`` (the two
    clocks may count from different origins)."""
    return monotonic - time.monotonic() + _now()


def _own_mapping_per_large_array() -> None:
    """Keep glibc's mmap threshold at its default (128 KB) for the whole process: glibc raises
    it after a large block is freed (up to 32 MB), so the large arrays of a check's next stage
    come from the heap, which keeps their pages after they are freed; at the default, each is a
    mapping of its own, given back when freed, and a check's peak is its largest stage, not
    the sum of its stages (seen: 120 -> 101 MB on a 30 MB proof). Not glibc: nothing to do."""
    if platform.libc_ver()[0] == "glibc":
        ctypes.CDLL(None).mallopt(_M_MMAP_THRESHOLD, 128 * 1024)


#: mallopt's parameter number of the mmap threshold (glibc's malloc.h)
_M_MMAP_THRESHOLD = -3
_own_mapping_per_large_array()

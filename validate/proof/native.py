"""The proof checker's C kernels (``validate/proof/*.c``), loaded with ctypes from the shared
library the install built (:mod:`puzzlesat.validate.proof.build`): each kernel declared once
with the types of its arguments, which ctypes checks at every call (a numpy array of another
dtype, or not C-contiguous, is a TypeError, never a wrong read); the arrays inside a struct
(drat.c's State) are checked as they are put in it (:func:`address`).

The constants both sides use (kernel outcomes, slots of state arrays, error codes, bounds) are
written once, in C, and exported by the library (kernels.h's Fact): the Python side reads them
here at load (:func:`constants`), by name. A struct both sides declare is exported too (each
field's offset, size and C type) and compared at load with its ctypes twin
(:func:`check_struct`).

A library that cannot be used as it is (not built, older than its sources, without a constant
the Python side reads, or with a struct laid out otherwise) is a :class:`KernelSetupError`: a
set-up to fix, one line that says how, never a checker's verdict."""

from __future__ import annotations

import ctypes
import functools
import itertools
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


def struct(name: str, dtype: np.dtype) -> type[ctypes.Structure]:
    """The ctypes struct ``name`` of the structured ``dtype``'s fields; a dtype that numpy lays
    out otherwise than C (packed: give numpy ``align=True``) is a TypeError."""
    made = type(name, (ctypes.Structure,), {"_fields_": [
        (field, np.ctypeslib.as_ctypes_type(dtype[field])) for field in dtype.names or ()]})
    if np.dtype(made) != dtype:
        raise TypeError(f"{name}: numpy lays out {dtype} otherwise than C (align=True?)")
    return made


def element(kind) -> tuple[np.dtype, type]:
    """The dtype of an array of ``kind`` (a numpy type or a :func:`struct`), and the ctypes
    pointer to its items."""
    item = kind if isinstance(kind, type) and issubclass(kind, ctypes.Structure) else \
        np.ctypeslib.as_ctypes_type(np.dtype(kind))
    return np.dtype(kind), ctypes.POINTER(item)


def address(array: np.ndarray, dtype: np.dtype, what: str) -> int:
    """The address of ``array``'s data, for a pointer to items of ``dtype``: ``array`` checked
    to be a C-contiguous numpy array of ``dtype`` (else a TypeError that names ``what``, as
    ctypes refuses a kernel's argument: never a wrong read)."""
    if not (isinstance(array, np.ndarray) and array.dtype == dtype
            and array.flags.c_contiguous):
        given = (f"{array.dtype}{'' if array.flags.c_contiguous else ', not C-contiguous'}"
                 if isinstance(array, np.ndarray) else type(array).__name__)
        raise TypeError(f"{what}: a C-contiguous array of {dtype} expected, not {given}")
    return array.ctypes.data


def check_struct(unit: str, name: str, struct: type[ctypes.Structure]) -> None:
    """Refuse (:class:`KernelSetupError`) a library whose struct ``name`` (of the kernels of
    ``unit``) is not ``struct``: of the same size, with the same fields in the same order, at
    the same offsets, of the same sizes and C types; a field that points to a struct checks
    that struct too."""
    found = facts(unit)
    theirs = [(key[len(name) + 1:], *found[key]) for key in found
              if key.startswith(name + ".")]
    ours = [(field, _type_name(kind), getattr(struct, field).offset,
             getattr(struct, field).size) for field, kind in fields(struct)]
    for here, there in itertools.zip_longest(ours, theirs):
        if here != there:
            field = (here or there)[0]
            raise _mismatch(f"{name}.{field} is {_field(there)} in the library, "
                            f"{_field(here)} here")
    if name not in found:
        raise _mismatch(f"the library has no {name}")
    if found[name][1] != ctypes.sizeof(struct):
        raise _mismatch(f"{name} is {found[name][1]} bytes in the library, "
                        f"{ctypes.sizeof(struct)} here")
    for _, kind in fields(struct):
        target = getattr(kind, "_type_", None)
        if isinstance(target, type) and issubclass(target, ctypes.Structure):
            check_struct(unit, target.__name__, target)


def fields(struct: type[ctypes.Structure]) -> list[tuple[str, type]]:
    """The (name, ctypes type) of each field of ``struct``, in order."""
    return [(entry[0], entry[1]) for entry in struct._fields_]


def _type_name(kind) -> str:
    """A ctypes type named as drat.c's TYPE_NAME names a C type."""
    if kind is ctypes.c_void_p:
        return "void *"
    if issubclass(kind, ctypes._Pointer):
        return _type_name(kind._type_) + " *"
    if issubclass(kind, ctypes.Structure):
        return kind.__name__
    return np.dtype(kind).name


def _field(fact: tuple[str, str, int, int] | None) -> str:
    """A field as :func:`check_struct` compares it, in words."""
    return "missing" if fact is None else f"{fact[1]} at byte {fact[2]} ({fact[3]} bytes)"


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

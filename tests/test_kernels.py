"""The proof checker's compiled kernels: built from the sources beside them, never a stale or
missing library used in silence (a set-up error: one line, exit 2), and their clock the one
deadlines are given in."""

from __future__ import annotations

import ctypes
import importlib
import re
import sys
import time
from importlib.machinery import EXTENSION_SUFFIXES

import numpy as np
import pytest
from conftest import assert_one_line_error

from puzzlesat.validate.proof import build, drat, native


def test_the_library_is_built_from_the_sources_beside_it():
    """The library loaded carries the hash of the sources in the tree (make setup rebuilt it
    after the last edit)."""
    assert native._LIBRARY.puzzlesat_source_hash().decode() == build.source_hash()


def test_a_library_older_than_its_sources_is_refused(monkeypatch):
    monkeypatch.setattr(build, "source_hash", lambda: "0" * 16)
    with pytest.raises(native.KernelSetupError, match="older than their sources: build them"):
        native._load()


def test_a_missing_library_says_how_to_build_it(monkeypatch):
    monkeypatch.setattr(build, "LIBRARY", "_no_such_library")
    with pytest.raises(native.KernelSetupError, match="not built .*: build them again"):
        native._load()


def test_a_library_that_does_not_load_says_how_to_build_it(monkeypatch, tmp_path):
    """A file in the library's place that is no library (a broken copy, another platform's)."""
    monkeypatch.setattr(build, "HERE", tmp_path)
    (tmp_path / (build.LIBRARY + EXTENSION_SUFFIXES[0])).write_bytes(b"not a library")
    with pytest.raises(native.KernelSetupError, match="cannot be loaded .*: build them again"):
        native._load()


@pytest.mark.parametrize("command", ["validate", "validate-suite"])
def test_a_stale_library_is_a_set_up_error_of_the_command(monkeypatch, tmp_path, puzzlesat,
                                                          command):
    """`puzzlesat validate` (and validate-suite) with a proof, its kernels older than their
    sources: one line, exit 2 (the set-up is wrong), not a verdict that calls it a puzzlesat bug
    nor a MALFORMED verdict for each instance. The modules that load the kernels are imported
    afresh, as in a new process."""
    for name in [name for name in sys.modules if name.startswith("puzzlesat.validate.proof.")
                 and name != "puzzlesat.validate.proof.build"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(build, "source_hash", lambda: "0" * 16)
    suite, results = tmp_path / "suite", tmp_path / "results"
    (suite / "instances").mkdir(parents=True)
    results.mkdir()
    cnf = suite / "instances" / "f.cnf"
    cnf.write_text("p cnf 1 2\n1 0\n-1 0\n")
    (results / "f.cnf.out").write_text("s UNSATISFIABLE\n")
    (results / "f.cnf.drat").write_text("0\n")
    if command == "validate":
        result = puzzlesat("validate", cnf, results / "f.cnf.out", "--proof",
                           results / "f.cnf.drat")
    else:
        result = puzzlesat("validate-suite", suite, results)
    assert_one_line_error(result, "kernels", "older than their sources", "make setup")


def test_a_deadline_is_the_same_moment_on_the_kernels_clock():
    """A deadline 100 s from now is 100 s from now on the kernels' clock, however far apart the
    two clocks' origins are (room for a busy machine between the two readings)."""
    assert 99 < native.deadline(time.monotonic() + 100) - native._now() <= 100


def test_the_constants_both_sides_use_are_read_from_the_library():
    """Kernel outcomes, slots, error codes: written once in C, read by name (no second copy in
    Python to drift from it)."""
    from puzzlesat.validate.proof import lrat, reader

    assert native.constants("drat", "FULL", "END") == [drat._FULL, drat._END]
    assert (lrat.ADD, lrat.DELETE) == (0, 1)  # drat.py makes kinds of a bool: deleting
    assert native.facts("reader")["NEED_ROOM"] == ("", reader._NEED_ROOM, 0)


def test_a_constant_the_library_does_not_export_is_refused_in_one_line():
    with pytest.raises(native.KernelSetupError, match=r"do not match their Python side "
                       r"\(drat.c exports no constant NO_SUCH\): build them again"):
        native.constants("drat", "GOING", "NO_SUCH")
    with pytest.raises(native.KernelSetupError, match=r"no_such.c exports no facts"):
        native.constants("no_such", "GOING")


def _facts_where(unit: str, name: str, fact: tuple[str, int, int]):
    """native.facts, but with the library's fact ``name`` of ``unit`` replaced by ``fact``."""
    real = native.facts

    def facts(asked: str) -> dict[str, tuple[str, int, int]]:
        found = dict(real(asked))
        if asked == unit:
            found[name] = fact
        return found

    return facts


@pytest.mark.parametrize("name, fact, said", [
    ("State.db", ("int64 *", 0, 8), "State.db is int64 * at byte 0 (8 bytes) in the library, "
                                     "int32 * at byte 0 (8 bytes) here"),
    ("State.n_hints", ("int64", 200, 8), "State.n_hints is int64 at byte 200"),
    ("List.room", ("int64", 12, 8), "List.room is int64 at byte 12 (8 bytes) in the library, "
                                    "int32 at byte 12 (4 bytes) here"),
    ("State", ("", 232, 0), "State is 232 bytes in the library, 224 here")])
def test_a_state_laid_out_otherwise_than_the_library_is_refused_at_load(
        monkeypatch, tmp_path, puzzlesat, name, fact, said):
    """drat.c's State as the library exports it (each field's offset, size and C type, its
    size), unlike drat.py's table: loading the checker is refused with one line, exit 2, naming
    the field, before any kernel is called."""
    monkeypatch.delitem(sys.modules, "puzzlesat.validate.proof.drat")  # loaded afresh
    monkeypatch.setattr(native, "facts", _facts_where("drat", name, fact))
    with pytest.raises(native.KernelSetupError, match=re.escape(said)):
        importlib.import_module("puzzlesat.validate.proof.drat")
    (tmp_path / "f.cnf").write_text("p cnf 1 2\n1 0\n-1 0\n")
    (tmp_path / "f.out").write_text("s UNSATISFIABLE\n")
    (tmp_path / "f.drat").write_text("0\n")
    result = puzzlesat("validate", tmp_path / "f.cnf", tmp_path / "f.out", "--proof",
                       tmp_path / "f.drat")
    assert_one_line_error(result, "do not match their Python side", said)


def test_a_field_missing_on_either_side_is_refused():
    """A C field the Python table lacks (or the other way round) is named as missing."""
    class Short(ctypes.Structure):
        _fields_ = drat._CState._fields_[:-1]

    with pytest.raises(native.KernelSetupError, match="State.fault is void . at byte 216 .8 "
                                                      "bytes. in the library, missing here"):
        native.check_struct("drat", "State", Short)


def _tiny_state():
    from puzzlesat.validate.proof.reader import read_proof

    flat = np.array([1, 2, 0, -1, 2, 0, 1, -2, 0, -1, -2, 0], np.int32)
    return drat._state(flat, read_proof(b"1 0\n0\n"), None, drat.SLICE)[0]


@pytest.mark.parametrize("field, wrong, said", [
    ("db", lambda a: a.astype(np.int64), "db: a C-contiguous array of int32 expected, not int64"),
    ("value", lambda a: a.view(np.uint8), "value: a C-contiguous array of int8 expected, not "
                                          "uint8"),
    ("start", lambda a: np.repeat(a, 2)[::2], "start: a C-contiguous array of int64 expected, "
                                              "not int64, not C-contiguous"),
    ("lists", lambda a: a.view(np.int64), "lists: a C-contiguous array of"),
    ("alive", lambda a: a.tolist(), "alive: a C-contiguous array of uint8 expected, not list")])
def test_an_array_of_the_state_that_is_not_its_fields_is_a_type_error(field, wrong, said):
    """Each array goes to drat.c's State as a pointer to items of its field's type: another
    dtype, or an array not C-contiguous, is refused before any kernel reads it (as ctypes
    refuses a kernel's argument), never passed as an untyped pointer."""
    st = _tiny_state()
    bad = st._replace(**{field: wrong(getattr(st, field))})
    with pytest.raises(TypeError, match=re.escape(said)):
        drat._run(drat._pack, bad)
    drat._run(drat._pack, st)  # the state as made is the kernels'


def test_what_every_kernel_shares_is_defined_once_in_kernels_h():
    """MAX_LITERAL, WORK_PER_CALL, is_space and is_digit: one definition, in kernels.h, not a
    copy per .c file that may drift from the others."""
    shared = re.compile(r"^(#define (MAX_LITERAL|WORK_PER_CALL)\b|.*\b(is_space|is_digit)\(int)",
                        re.MULTILINE)
    found = sorted((match.group(2) or match.group(3), path.name) for path in build.sources()
                   for match in shared.finditer(path.read_text()))
    assert found == [("MAX_LITERAL", "kernels.h"), ("WORK_PER_CALL", "kernels.h"),
                     ("is_digit", "kernels.h"), ("is_space", "kernels.h")]


# a byte of the input or output compared with, or set to, a number that is a printable
# character's or a whitespace's code (9-126): c == 45 where '-' is meant
_BYTE_AS_NUMBER = re.compile(r"\b(c|data\[[^]]*\]|out\[[^]]*\]) *(==|!=|<=|>=|<|>|=) *"
                             r"(9|1[0-3]|3[2-9]|[4-9][0-9]|1[01][0-9]|12[0-6])\b"
                             r"|\b(9|1[0-3]|3[2-9]|[4-9][0-9]|1[01][0-9]|12[0-6]) *(<=|<) *"
                             r"(c|data\[[^]]*\])")


@pytest.mark.parametrize("name", ["reader.c", "lrat.c"])
def test_the_parsers_and_writers_write_characters_as_characters(name):
    """The text kernels compare and write bytes as '-', '0', 'c', '\\n', never as 45, 48, 99,
    10."""
    text = (build.HERE / name).read_text()
    assert not [line for line in text.splitlines() if _BYTE_AS_NUMBER.search(line)]

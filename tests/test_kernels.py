"""The proof checker's compiled kernels: built from the sources beside them, never a stale or
missing library used in silence (a set-up error: one line, exit 2), and their clock the one
deadlines are given in."""

from __future__ import annotations

import sys
import time
from importlib.machinery import EXTENSION_SUFFIXES

import pytest
from conftest import assert_one_line_error

from puzzlesat.validate.proof import build, native


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


def test_a_stale_library_is_a_set_up_error_of_the_command(monkeypatch, tmp_path, puzzlesat):
    """`puzzlesat validate` with a proof, its kernels older than their sources: one line, exit
    2 (the set-up is wrong), not a verdict that calls it a puzzlesat bug. The modules that
    load the kernels are imported afresh, as in a new process."""
    for name in [name for name in sys.modules if name.startswith("puzzlesat.validate.proof.")
                 and name != "puzzlesat.validate.proof.build"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(build, "source_hash", lambda: "0" * 16)
    (tmp_path / "f.cnf").write_text("p cnf 1 2\n1 0\n-1 0\n")
    (tmp_path / "f.out").write_text("s UNSATISFIABLE\n")
    (tmp_path / "f.drat").write_text("0\n")
    result = puzzlesat("validate", tmp_path / "f.cnf", tmp_path / "f.out", "--proof",
                       tmp_path / "f.drat")
    assert_one_line_error(result, "kernels", "older than their sources", "make setup")


def test_a_deadline_is_the_same_moment_on_the_kernels_clock():
    """A deadline 100 s from now is 100 s from now on the kernels' clock, however far apart the
    two clocks' origins are (room for a busy machine between the two readings)."""
    assert 99 < native.deadline(time.monotonic() + 100) - native._now() <= 100


def test_the_constants_both_sides_use_are_read_from_the_library():
    """Kernel outcomes, slots, error codes: written once in C, read by name (no second copy in
    Python to drift from it)."""
    from puzzlesat.validate.proof import drat, lrat, reader

    assert native.constants("drat", "FULL", "END") == [drat._FULL, drat._END]
    assert (lrat.ADD, lrat.DELETE) == (0, 1)  # drat.py makes kinds of a bool: deleting
    assert native.facts("reader")["NEED_ROOM"] == ("", reader._NEED_ROOM, 0)


def test_a_constant_the_library_does_not_export_is_refused_in_one_line():
    with pytest.raises(native.KernelSetupError, match=r"do not match their Python side "
                       r"\(drat.c exports no constant NO_SUCH\): build them again"):
        native.constants("drat", "GOING", "NO_SUCH")
    with pytest.raises(native.KernelSetupError, match=r"no_such.c exports no facts"):
        native.constants("no_such", "GOING")

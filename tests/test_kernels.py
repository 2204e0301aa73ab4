"""The proof checker's compiled kernels: built from the sources beside them, never a stale or
missing library used in silence, and their clock the one deadlines are given in."""

from __future__ import annotations

import time

import pytest

from puzzlesat.validate.proof import build, native


def test_the_library_is_built_from_the_sources_beside_it():
    """The library loaded carries the hash of the sources in the tree (make setup rebuilt it
    after the last edit)."""
    assert native._LIBRARY.puzzlesat_source_hash().decode() == build.source_hash()


def test_a_library_older_than_its_sources_is_refused(monkeypatch):
    monkeypatch.setattr(build, "source_hash", lambda: "0" * 16)
    with pytest.raises(RuntimeError, match="older than their sources"):
        native._load()


def test_a_missing_library_says_how_to_build_it(monkeypatch):
    monkeypatch.setattr(build, "LIBRARY", "_no_such_library")
    with pytest.raises(RuntimeError, match="not built: install the package again"):
        native._load()


def test_a_deadline_is_the_same_moment_on_the_kernels_clock():
    """A deadline 100 s from now is 100 s from now on the kernels' clock, however far apart the
    two clocks' origins are (room for a busy machine between the two readings)."""
    assert 99 < native.deadline(time.monotonic() + 100) - native._now() <= 100

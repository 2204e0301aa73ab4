"""The speed index: the reference workloads pinned by GBD hash, the index arithmetic, the
per-machine cache (reused while fresh, a damaged one ignored and replaced, a loaded
measurement not kept) and ``calibrate --speed-only``. Every measurement here times the tiny
workload conftest puts in place of the real ones (which take a minute)."""

from __future__ import annotations

import dataclasses
import json
import time

import pytest
from conftest import TINY_WORKLOAD, assert_one_line_error

from puzzlesat.generator.core.errors import UserError
from puzzlesat.validate.runs import speed
from puzzlesat.validate.runs.speed import Speed, Workload

#: the real workloads, taken at import: conftest's session fixture replaces them with tiny
#: ones only once the tests run
REAL = dict(speed.WORKLOADS)
TINY = Workload(**TINY_WORKLOAD)  # type: ignore[arg-type]


def test_the_reference_workloads_are_pinned_and_generated_as_pinned():
    """Each calibration solver of the SAT track has a workload whose instance still has its
    pinned GBD hash (built here in milliseconds; solving it is what takes seconds)."""
    assert {solver: w.gbd_hash for solver, w in REAL.items()} == {
        "minisat-bin": "7d219eb8a07333656312c3c33b29fa40",
        "minisat22": "7d219eb8a07333656312c3c33b29fa40",
        "kissat-bin": "532b50eeb6ada83bca9de3693e748e13"}
    assert all(5 <= w.reference_seconds <= 20 and w.expected == "UNSAT" for w in REAL.values())
    for solver, workload in REAL.items():
        literals, num_vars = speed.workload_source(solver, workload)
        assert num_vars > 0 and len(literals) > 0


def test_an_instance_that_is_not_the_pinned_one_is_refused():
    moved = dataclasses.replace(TINY, gbd_hash="0" * 32)
    with pytest.raises(UserError, match=r"^minisat22's speed workload sliding korf=50 k=8 "
                                        r"budget=6 \(rotated\) has GBD hash 7dca9520f5aa26b2"
                                        r"7544d0fef855f623, not the pinned 0{32}: the "
                                        r"generator changed"):
        speed.measure("minisat22", moved, runs=1)


def test_a_solver_that_fails_its_workload_gets_no_index_and_a_line(cache, monkeypatch):
    """A wrong answer (or a crash, a missing binary) is no measurement: that solver's rows
    get no index, and a line says why; the calibration itself goes on."""
    monkeypatch.setattr(speed, "WORKLOADS", {"minisat22": dataclasses.replace(
        TINY, expected="SAT"), "cadical195": TINY})
    found, failed = speed.speeds(["minisat22", "cadical195"])
    assert list(found) == ["cadical195"]
    assert failed == ["minisat22: no speed index, its runs get none: answered UNSAT on its "
                      "speed workload sliding korf=50 k=8 budget=6 (rotated), not SAT (no "
                      "reason given)"]


def test_an_implausible_index_is_no_index(cache, monkeypatch):
    """A workload run a million times faster than on the reference machine (a broken run, a
    reference figure gone wrong) gives no index, never one that scales every limit to
    nothing (one far slower is stopped at LIMIT_FACTOR times the reference time)."""
    monkeypatch.setattr(speed, "WORKLOADS", {"minisat22": dataclasses.replace(
        TINY, reference_seconds=1e6)})
    found, failed = speed.speeds(["minisat22"])
    assert found == {} and len(failed) == 1
    assert failed[0].startswith("minisat22: no speed index, its runs get none: ")
    assert failed[0].endswith(" is outside 0.001..1000")


def test_the_index_is_the_reference_median_over_this_machines():
    run = Speed("minisat22", dataclasses.replace(TINY, reference_seconds=6.0), (2.0, 4.0, 3.0),
                "h: CPU x2", 0.5, 0.0)
    assert run.median == 3.0 and run.index == 2.0  # twice as fast as the reference
    slower = dataclasses.replace(run, seconds=(7.0, 9.0, 8.0))
    assert slower.index == 0.75 and not slower.loaded
    assert dataclasses.replace(run, load=3.0).loaded  # cores + 1
    measured = speed.measure("minisat22", TINY, runs=3)
    assert len(measured.seconds) == 3 and min(measured.seconds) > 0
    assert measured.index == round(TINY.reference_seconds / measured.median, 3)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A private cache file, on a machine that is not loaded (else nothing is cached)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(speed, "load", lambda: 0.0)
    return tmp_path / "puzzlesat" / "speed.json"


def no_measuring(monkeypatch):
    """Any measurement from now on fails the test."""
    def measure(*args, **kwargs):
        raise AssertionError("measured again")

    monkeypatch.setattr(speed, "measure", measure)


def test_a_fresh_index_is_taken_from_the_cache(cache, monkeypatch):
    first, _ = speed.speeds(["minisat22", "cadical195"])
    assert list(first) == ["minisat22"] and not first["minisat22"].cached  # no workload
    entries = json.loads(cache.read_text())["entries"]
    assert list(entries) == [f"{speed.host()} | minisat22 | {TINY.gbd_hash}"]
    no_measuring(monkeypatch)
    again = speed.speeds(["minisat22"])[0]["minisat22"]
    assert again.cached and again.seconds == first["minisat22"].seconds
    assert again.index == first["minisat22"].index


@pytest.mark.parametrize("age", [speed.CACHE_SECONDS + 1, -3600],
                         ids=["stale", "from-the-future"])
def test_an_index_past_its_time_is_measured_again(cache, age):
    speed.speeds(["minisat22"])
    data = json.loads(cache.read_text())
    for entry in data["entries"].values():
        entry["measured"] = time.time() - age
    cache.write_text(json.dumps(data))
    assert not speed.speeds(["minisat22"])[0]["minisat22"].cached


@pytest.mark.parametrize("damage", [
    b"\x00\xff not json", b"[1, 2]", b'{"format": "another", "entries": {}}',
    b'{"format": "puzzlesat speed cache 1", "entries": []}',
    b'{"format": "puzzlesat speed cache 1", "entries": {"KEY": {"seconds": [0], "load": 0, '
    b'"measured": NOW}}}',
    b'{"format": "puzzlesat speed cache 1", "entries": {"KEY": {"seconds": ["1"], "load": 0, '
    b'"measured": NOW}}}',
    b'{"format": "puzzlesat speed cache 1", "entries": {"KEY": {"seconds": [], "load": 0, '
    b'"measured": NOW}}}',
    b'{"format": "puzzlesat speed cache 1", "entries": {"KEY": "fast"}}',
    b'{"format": "puzzlesat speed cache 1", "entries": {"KEY": {"seconds": [1e-300], '
    b'"load": 0, "measured": NOW}}}',
    b'{"format": "puzzlesat speed cache 1", "entries": {"KEY": {"seconds": [1], "load": 99, '
    b'"measured": NOW}}}',
], ids=["bytes", "a-list", "another-format", "entries-a-list", "zero-time", "a-string-time",
        "no-times", "not-an-entry", "an-implausible-index", "measured-loaded"])
def test_a_damaged_cache_is_ignored_and_replaced(cache, damage):
    key = f"{speed.host()} | minisat22 | {TINY.gbd_hash}".encode()
    cache.parent.mkdir(parents=True)
    cache.write_bytes(damage.replace(b"KEY", key).replace(b"NOW", str(time.time()).encode()))
    found = speed.speeds(["minisat22"])[0]["minisat22"]
    assert not found.cached and found.index > 0
    data = json.loads(cache.read_text())
    assert data["format"] == speed.CACHE_FORMAT
    assert data["entries"][key.decode()]["seconds"] == list(found.seconds)


def test_a_measurement_on_a_loaded_machine_is_used_once_not_cached(cache, monkeypatch):
    monkeypatch.setattr(speed, "load", lambda: 99.0)
    found = speed.speeds(["minisat22"])[0]["minisat22"]
    assert found.loaded and "LOADED: not cached, distrust it" in found.line()
    assert not cache.exists()


def test_an_unwritable_cache_costs_a_measurement_only(tmp_path, monkeypatch):
    (tmp_path / "puzzlesat").write_text("a file where the cache folder goes")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(speed, "load", lambda: 0.0)
    assert speed.speeds(["minisat22"])[0]["minisat22"].index > 0


def test_speed_only_prints_the_machine_and_each_index(cache, puzzlesat):
    result = puzzlesat("calibrate", "--speed-only", "--solvers", "minisat22:120,cadical195")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert len(lines) == 2
    assert lines[0] == f"machine: {speed.host()} (load 0 now)"
    assert lines[1].startswith("minisat22: speed index ")
    assert " s of CPU over " in lines[1] and "; reference machine 0.01 s; measured " in lines[1]
    assert lines[1].endswith("at load 0); workload sliding korf=50 k=8 budget=6 (rotated)")
    cached = puzzlesat("calibrate", "--speed-only", "--solvers", "minisat22")
    assert "; cached, measured " in cached.out


def test_speed_only_lists_every_solver_with_a_workload_by_default(cache, puzzlesat,
                                                                  monkeypatch):
    monkeypatch.setattr(speed, "WORKLOADS", {"minisat22": TINY, "cadical195": TINY})
    result = puzzlesat("calibrate", "--speed-only")
    assert result.code == 0, result.err
    assert [line.split(":")[0] for line in result.out.splitlines()] == [
        "machine", "minisat22", "cadical195"]


def test_speed_only_without_a_workload_is_one_line(puzzlesat):
    assert_one_line_error(puzzlesat("calibrate", "--speed-only", "--solvers", "cadical195"),
                          "--solvers cadical195: none has a speed workload (those that do: "
                          "minisat-bin, minisat22, kissat-bin)")
    assert_one_line_error(puzzlesat("calibrate"), "Missing argument 'DIR'")

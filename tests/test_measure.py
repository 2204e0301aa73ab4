"""Hardness measured as the competition measures it: solver CPU time, the competition's binaries
by ready name (a fake ``minisat`` on PATH stands for a broken one), the margin, typed and
checked calibration rows, a table trusted only as the suite's checksums record it."""

from __future__ import annotations

import csv
import os
import shutil
import stat
import sys

import numpy as np
import pytest
from conftest import assert_one_line_error, instance_row, publish_tiny

from puzzlesat.generator.core.errors import UserError
from puzzlesat.validate.answers import minisat_answer
from puzzlesat.validate.campaigns.calibrate import calibrate_suite, read_calibration
from puzzlesat.validate.campaigns.tune.cache import run_client
from puzzlesat.validate.runs.limits import TimeLimit
from puzzlesat.validate.runs.records import CalibrationRow
from puzzlesat.validate.runs.solvers import clauses
from puzzlesat.validate.tracks.sat.bundle import Rules, check_instances, selection

#: a fake MiniSat binary: argv is ``-verb=0 CNF RESULT``; the mode comes from the environment
FAKE_MINISAT = r'''#!{python}
import os, sys
mode = os.environ["FAKE_MINISAT"]
cnf, result = sys.argv[-2], sys.argv[-1]
if mode == "crash":
    os.abort()
if mode == "garbage":
    open(result, "w").write("SATISFIABLE maybe\n")
    sys.exit(10)
if mode == "wrong":  # UNSAT for every instance, the satisfiable ones too
    open(result, "w").write("UNSAT\n")
    sys.exit(20)
if mode == "spin":  # never answers: the CPU limit stops it
    while True:
        pass
'''


@pytest.fixture
def fake_minisat(tmp_path, monkeypatch):
    """A ``minisat`` first on PATH behaving as ``mode``: fake_minisat(mode)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    program = folder / "minisat"
    program.write_text(FAKE_MINISAT.replace("{python}", sys.executable))
    program.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")

    def use(mode: str) -> None:
        monkeypatch.setenv("FAKE_MINISAT", mode)

    return use


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    return publish_tiny(tmp_path_factory.mktemp("measure"))


def copy_of(suite, tmp_path):
    shutil.copytree(suite, tmp_path / "copy")
    return tmp_path / "copy"


def test_clauses_are_slices_of_the_flat_array():
    flat = np.array([1, -2, 0, 3, 0, -1, 2, -3, 0], dtype=np.int32)
    assert [list(c) for c in clauses(flat)] == [[1, -2], [3], [-1, 2, -3]]
    assert all(type(lit) is int for c in clauses(flat) for lit in c)  # what python-sat takes


def test_minisat_result_files_become_competition_output():
    assert minisat_answer(b"SAT\n1 -2 3 0\n") == b"s SATISFIABLE\nv 1 -2 3 0\n"
    assert minisat_answer(b"UNSAT\n") == b"s UNSATISFIABLE\n"
    assert minisat_answer(b"INDET\n") == b"s UNKNOWN\n"
    for garbage in (b"", b"SAT\n1 2\n", b"SAT\nx 0\n", b"SATISFIABLE\n", b"SAT\n1 0 2 0\n"):
        assert minisat_answer(garbage) == garbage  # kept as it is: the validator's MALFORMED


@pytest.mark.skipif(shutil.which("minisat") is None, reason="no minisat binary")
def test_the_real_minisat_binary_answers_and_is_timed_in_cpu():
    flat = np.array([1, 2, 0, -1, 0, -2, 3, 0], dtype=np.int32)
    result = run_client("minisat-bin", (flat, 3), TimeLimit(20))
    assert result.status == "SAT" and result.ended_by == "solver"
    assert result.output().decode().splitlines()[-2:] == ["s SATISFIABLE", "v -1 2 3 0"]
    assert 0 <= result.seconds < 20 and result.wall > 0


def test_the_kissat_binary_answers_when_installed():
    pytest.importorskip("sage_wheels")
    flat = np.array([1, 0, -1, 0], dtype=np.int32)
    result = run_client("kissat-bin", (flat, 1), TimeLimit(20))
    assert result.status == "UNSAT" and result.solver == "kissat-bin"


def test_a_spinning_binary_is_stopped_at_its_cpu_limit(fake_minisat):
    fake_minisat("spin")
    result = run_client("minisat-bin", (np.array([1, 0], dtype=np.int32), 1), TimeLimit(1))
    assert result.status == "UNKNOWN" and result.ended_by == "cpu-limit"
    assert 1 <= result.seconds < 3.2


@pytest.mark.parametrize("mode, status, verdict, reason", [
    ("crash", "UNKNOWN", "UNKNOWN", "solver killed by SIGABRT"),
    ("garbage", "UNKNOWN", "MALFORMED", "the output does not parse"),
    ("wrong", "UNSAT", "WRONG-ANSWER", ""),
])
def test_a_broken_binary_is_a_recorded_row_never_a_solved_one(suite, tmp_path, fake_minisat,
                                                              mode, status, verdict, reason):
    """A crash, garbage and a wrong UNSAT are recorded as such, never counted as solved."""
    fake_minisat(mode)
    copy = copy_of(suite, tmp_path)
    calibrate_suite(copy, ["minisat-bin:5"], plot=False)
    rows = read_calibration(copy)
    sat = [r for r in rows if r.expected == "sat"]
    assert sat and all(r.status == status and r.verdict == verdict for r in sat), sat
    assert all(reason in r.reason for r in sat), [r.reason for r in sat]
    assert not any(r.solved for r in sat)


def test_a_missing_or_not_executable_binary_is_one_line(suite, puzzlesat, tmp_path,
                                                        monkeypatch):
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "minisat").write_text("#!/bin/sh\n")  # not executable: not a program
    (folder / "minisat").chmod(stat.S_IRUSR | stat.S_IWUSR)
    monkeypatch.setenv("PATH", str(folder))
    result = puzzlesat("calibrate", suite, "--solvers", "minisat-bin:5")
    assert_one_line_error(result, "minisat-bin: no minisat program on PATH")


def test_an_unknown_solver_name_lists_the_binaries(suite, puzzlesat):
    assert_one_line_error(puzzlesat("calibrate", suite, "--solvers", "minisat"),
                          "unknown solver 'minisat'", "minisat-bin, kissat-bin")


@pytest.mark.parametrize("margin", ["0.5", "nan", "-1"])
def test_a_margin_below_one_is_one_line(suite, puzzlesat, tmp_path, margin):
    assert_one_line_error(puzzlesat("submission", suite, "--margin", margin),
                          "--margin must be a finite number >= 1")
    assert_one_line_error(puzzlesat("tune", "sliding", "--axis", "k=4..5", "--param",
                                    "korf=50", "--margin", margin, "-o", tmp_path / "t"),
                          "--margin must be a finite number >= 1")
    assert not (tmp_path / "t").exists()


def row(solver, status="UNKNOWN", cpu="120.0", limit="120.0", ended="cpu-limit", **more):
    """A calibration table row (strings, as read back) of a run on instance ``a``."""
    return {"hash": "a" * 32, "name": "a", "file": "instances/a.cnf.xz", "family": "flow",
            "hardness-param": "width", "hardness": "5", "expected": "sat", "solver": solver,
            "time-limit": limit, "status": status, "cpu-seconds": cpu, "wall-seconds": "130.0",
            "ended-by": ended, "verdict": "VERIFIED-SAT" if status == "SAT" else status,
            "reason": "", "machine": "cpu x2", "load": "0.1", **more}


def hard_of(*rows_, margin=2.0):
    runs = [CalibrationRow.from_row(r) for r in rows_]
    return check_instances([instance_row("a", "flow", hash="a" * 32)], runs, Rules(count=1, min_hard=1, margin=margin)) \
        .instances[0].hard


def test_hard_means_neither_minisat_solves_it_within_the_limit_times_the_margin():
    stopped = [row("minisat22"), row("minisat-bin")]
    assert hard_of(*stopped) is True
    # python-sat's MiniSat solves it in 56.5 s: within 120 s, so easy whatever the binary says
    assert hard_of(row("minisat22", "SAT", "56.5", ended="solver"), stopped[1]) is False
    # stopped at 60 s only: not measured up to 120 s
    assert hard_of(row("minisat22", cpu="60.0", limit="60.0"), stopped[1]) is None
    assert hard_of(row("minisat22", cpu="60.0", limit="60.0"), stopped[1], margin=1) is True
    # one MiniSat not run at all: not known
    assert hard_of(stopped[0]) is None
    # stopped by the wall-clock backstop: it decides nothing
    assert hard_of(row("minisat22", cpu="30.0", ended="wall-limit"), stopped[1]) is None


def test_a_wall_clock_table_loads_but_counts_for_nothing():
    old = {k: v for k, v in row("minisat22").items()
           if k not in ("cpu-seconds", "wall-seconds", "ended-by", "machine", "load")}
    run = CalibrationRow.from_row({**old, "seconds": "60.147"})
    assert run.cpu_seconds is None and run.ended_by == "wall-clock-table"
    assert run.not_solved_within(1) is None and "wall (old table)" in run.cell()


@pytest.mark.parametrize("change, why", [
    ({"cpu-seconds": "-1"}, "cpu-seconds"), ({"cpu-seconds": "inf"}, "cpu-seconds"),
    ({"ended-by": "luck"}, "ended-by"), ({"status": "SAT", "ended-by": "cpu-limit"}, "ended"),
    ({"status": "SAT", "cpu-seconds": "121", "ended-by": "solver"}, "within its limit"),
    ({"time-limit": "0"}, "time limit"), ({"load": "x"}, "load"),
])
def test_a_row_no_run_gives_is_refused(change, why):
    with pytest.raises(ValueError, match=why):
        CalibrationRow.from_row({**row("minisat22"), **change})


def test_the_selection_takes_one_per_isohash_and_caps_by_author_and_family():
    rows, runs, isohash = [], [], {}
    for index in range(20):
        digest = f"{index:032x}"
        family = "flow" if index < 18 else "sliding"
        rows.append(instance_row(f"i{index}", family, hash=digest))
        for solver in ("minisat22", "minisat-bin"):
            runs.append(CalibrationRow.from_row(row(solver, hash=digest)))
        runs.append(CalibrationRow.from_row(row("kissat-bin", "SAT", "5", "1000", "solver",
                                                hash=digest)))
        isohash[digest] = "twin" if index in (0, 1) else digest
    check = check_instances(rows, runs, Rules(), isohash)
    # 19 IsoHash2 groups: 17 flow, 2 sliding; 12 for a participant, 16 + 2 otherwise
    assert selection(check.instances) == (12, 18)
    assert check.failures == ["rule: IsoHash2 distinct over the whole submission (the "
                              "selection groups by it across families and keeps one of each); "
                              "shared by: i0, i1"]


def test_an_edited_calibration_table_is_one_line(suite, puzzlesat, tmp_path):
    copy = copy_of(suite, tmp_path)
    calibrate_suite(copy, ["minisat22:5"], plot=False)
    path = copy / "calibration.csv"
    path.write_text(path.read_text().replace(",SAT,", ",UNKNOWN,", 1))
    for command in (("submission", copy, "-o", tmp_path / "b"),
                    ("calibrate", copy, "--solvers", "minisat22:5")):
        assert_one_line_error(puzzlesat(*command), f"{path}: not the calibration the suite's "
                                                   f"SHA256SUMS lists")
    assert not (tmp_path / "b").exists()


def test_a_table_copied_in_by_hand_is_one_line(suite, puzzlesat, tmp_path):
    copy = copy_of(suite, tmp_path)
    with open(copy / "calibration.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, list(row("minisat22")))
        writer.writeheader()
        writer.writerow(row("minisat22"))
    assert_one_line_error(puzzlesat("submission", copy), "not the calibration the suite's "
                                                         "SHA256SUMS lists")


def test_time_limits_have_one_rule():
    assert TimeLimit.parse("1.5") == TimeLimit(1.5) and TimeLimit.parse(TimeLimit(2)).cpu == 2
    for bad in ("0", "-1", "nan", "inf", "1e9", "x", None):
        with pytest.raises(UserError, match="finite number of CPU seconds"):
            TimeLimit.parse(bad)

"""puzzlesat calibrate: reference solvers on a published suite, answers validated, results
recorded in the suite (calibration.csv, plots, manifest.json, SHA256SUMS) so that verify still
passes; time limits and crashing solvers do not stop the run."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import os
import shutil
import sys
import time

import pytest
from conftest import (
    TINY,
    assert_one_line_error,
    assert_readable,
    fixed_speeds,
    publish_tiny,
    tick_labels,
)

from puzzlesat.generator.suite import publish_suite, verify_suite
from puzzlesat.validate.campaigns.calibrate import (
    calibrate_suite,
    calibration_figure,
    plot_calibration,
    read_calibration,
)
from puzzlesat.validate.campaigns.plot_style import PANEL_WIDTH
from puzzlesat.validate.runs import solvers as runner
from puzzlesat.validate.runs.records import CalibrationRow
from puzzlesat.validate.runs.solvers import solve_with_pysat


#: three quick instances: a sliding SAT/UNSAT pair (trace truncation k = 8, budgets 8 and 6)
#: and a planted Flow Free grid
@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    suite = publish_tiny(tmp_path_factory.mktemp("cal"))
    result = calibrate_suite(suite, ["minisat22", "cadical195"], time_limit=20)
    return suite, result


def test_every_instance_and_solver_is_run_and_validated(calibrated):
    suite, result = calibrated
    rows = read_calibration(suite)
    assert [(r.name, r.solver) for r in rows] == [
        (name, solver) for name in ("sliding-korf50-k8-b8-rotated",
                                    "sliding-korf50-k8-b6-rotated")
        for solver in ("minisat22", "cadical195")] + [
        (rows[4].name, "minisat22"), (rows[4].name, "cadical195")]
    assert rows[4].name.startswith("flow-5x5")
    assert [r.verdict for r in rows] == ["VERIFIED-SAT"] * 2 + ["UNSAT-UNCHECKED"] * 2 \
        + ["VERIFIED-SAT"] * 2
    assert [r.status for r in rows] == ["SAT", "SAT", "UNSAT", "UNSAT", "SAT", "SAT"]
    assert {r.hardness_param for r in rows} == {"k", "width"}
    assert [r.hardness for r in rows] == ["8", "8", "8", "8", "5", "5"]
    assert all(0 <= r.cpu_seconds < 20 and r.time_limit == 20 for r in rows)
    assert all(r.ended_by == "solver" and r.wall_seconds >= 0 and r.machine for r in rows)
    assert "minisat22: 3/3 solved within 20 s of CPU" in result.summary()


def test_manifest_and_checksums_record_the_calibration_and_verify_passes(calibrated):
    suite, _ = calibrated
    manifest = json.loads((suite / "manifest.json").read_text())
    assert [r["verdict"] for r in manifest["calibration"]] == \
        [r.verdict for r in read_calibration(suite)]
    sums = dict(line.split("  ")[::-1] for line in (suite / "SHA256SUMS").read_text().splitlines())
    for name in ["calibration.csv", "manifest.json"] + [p.name for p in suite.glob("calibration-*")]:
        assert sums[name] == hashlib.sha256((suite / name).read_bytes()).hexdigest(), name
    assert verify_suite(suite).differences == []


def test_verify_reports_a_tampered_calibration(calibrated, tmp_path):
    suite, _ = calibrated
    copy = tmp_path / "copy"
    import shutil

    shutil.copytree(suite, copy)
    text = (copy / "calibration.csv").read_text()
    (copy / "calibration.csv").write_text(text.replace("VERIFIED-SAT", "UNKNOWN", 1))
    differences = verify_suite(copy).differences
    assert any(d.startswith("manifest.json: line") for d in differences), differences
    assert any(d.startswith("SHA256SUMS: line") for d in differences), differences


@pytest.mark.parametrize("changes, built, kept", [
    ([(b"seed = 3", b"seed = 4")], 1, {"sliding"}),  # a new flow grid under the same name
    ([(b"width = 5, height = 5", b"width = 6, height = 5")], 1, {"sliding"}),  # new params
    ([(b"seed = 3", b"seed = 4"), (b"k = [8, 8], budget = [8, 6]", b"k = [9], budget = [9]")],
     2, set()),  # nothing left
    ([], 0, {"sliding", "flow"}),  # the same spec again
], ids=["flow-seed", "flow-params", "all-changed", "unchanged"])
def test_republishing_keeps_the_calibration_of_unchanged_instances(calibrated, tmp_path,
                                                                    changes, built, kept):
    suite, _ = calibrated
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(suite, copy)
    spec = TINY
    for old, new in changes:
        spec = spec.replace(old, new)
    (tmp_path / "changed.toml").write_bytes(spec)
    published = publish_suite(tmp_path / "changed.toml", copy)
    assert published.built == built
    before = (suite / "calibration.csv").read_text().splitlines(keepends=True)
    lines = [line for line in before[1:] if line.split(",")[3] in kept]
    plots = sorted(p.name for p in copy.glob("calibration-*"))
    if not lines:
        assert not (copy / "calibration.csv").exists() and plots == []
        assert "calibration" not in json.loads((copy / "manifest.json").read_text())
    else:  # the rows of unchanged instances, byte for byte; plots only if nothing went
        assert (copy / "calibration.csv").read_text() == "".join(before[:1] + lines)
        hashes = {(r["name"], r["hash"]) for r in published.rows}
        assert {(r.name, r.hash) for r in read_calibration(copy)} <= hashes
        manifest = json.loads((copy / "manifest.json").read_text())
        assert [r["name"] for r in manifest["calibration"]] == \
            [r.name for r in read_calibration(copy)]
        assert plots == ([] if len(lines) < len(before) - 1 else
                         sorted(p.name for p in suite.glob("calibration-*")))
    assert verify_suite(copy).differences == []


def test_republishing_with_another_compression_keeps_every_row(calibrated, tmp_path):
    """Same clauses in new files: the measurements still apply, their ``file`` follows."""
    suite, _ = calibrated
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(suite, copy)
    (tmp_path / "gz.toml").write_bytes(TINY.replace(b"seed = 3", b'seed = 3\ncompression = "gz"'))
    assert publish_suite(tmp_path / "gz.toml", copy).built == 3
    rows, before = read_calibration(copy), read_calibration(suite)
    assert [r.file for r in rows] == [r.file.replace(".xz", ".gz") for r in before]
    assert [dataclasses.replace(r, file="") for r in rows] == \
        [dataclasses.replace(r, file="") for r in before]
    assert sorted(p.name for p in copy.glob("calibration-*")) == \
        sorted(p.name for p in suite.glob("calibration-*"))  # the same points: plots stay
    assert verify_suite(copy).differences == []


def test_plots_are_drawn_per_family(calibrated):
    pytest.importorskip("matplotlib")
    suite, _ = calibrated
    for family in ("sliding", "flow"):
        assert (suite / f"calibration-{family}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert b"<svg" in (suite / f"calibration-{family}.svg").read_bytes()


def test_without_matplotlib_the_plot_is_skipped_with_a_note(calibrated, tmp_path, monkeypatch):
    suite, _ = calibrated
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    written, note = plot_calibration(tmp_path, read_calibration(suite))
    assert written == [] and "matplotlib is not installed" in note
    assert list(tmp_path.iterdir()) == []


# -- the plots, from made-up rows (no solver runs) ------------------------------------------
def made_up(family: str, param: str, times: dict) -> list[CalibrationRow]:
    """Rows of ``times``: hardness -> {solver: (limit, CPU seconds)}; past the limit the run
    stopped (UNKNOWN)."""
    return [CalibrationRow(
        hash=f"{hardness:032x}", name=f"{family}-{hardness}", file="f", family=family,
        track="sat", hardness_param=param, hardness=str(hardness), expected="sat",
        solver=solver, time_limit=limit, status="UNKNOWN" if seconds > limit else "SAT",
        cpu_seconds=seconds, wall_seconds=seconds, ended_by="solver", verdict="OK", reason="",
        machine="m", load=0.0, speed_index=None)
        for hardness, runs in times.items() for solver, (limit, seconds) in runs.items()]


#: the SAT track's calibration: both MiniSats to 120 s, Kissat to 1000 s; equal times
SC = made_up("sliding", "k", {
    27: {"minisat22": (120, 3), "minisat-bin": (120, 3), "kissat-bin": (1000, 1)},
    28: {"minisat22": (120, 40), "minisat-bin": (120, 40), "kissat-bin": (1000, 8)},
    29: {"minisat22": (120, 130), "minisat-bin": (120, 125), "kissat-bin": (1000, 90)},
    30: {"minisat22": (120, 121), "minisat-bin": (120, 130), "kissat-bin": (1000, 700)}})


@pytest.fixture
def figure():
    """Closes the figure a test draws (``figure.append(fig)``)."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    drawn: list = []
    yield drawn
    for fig in drawn:
        plt.close(fig)


def test_a_calibration_plot_reads_at_a_third_of_the_page(figure):
    fig = calibration_figure("sliding", SC)
    figure.append(fig)
    assert_readable(fig, PANEL_WIDTH)
    ax = fig.axes[0]
    assert [t.get_text() for t in tick_labels(ax.xaxis)] == ["27", "28", "29", "30"]
    # plain seconds, no 6x10^1 minor labels
    assert [t.get_text() for t in tick_labels(ax.yaxis)] == ["1", "10", "100", "1000"]
    assert not [t.get_text() for t in tick_labels(ax.yaxis, minor=True) if t.get_text()]
    # each limit once, in its own style, its solvers named
    labels = [t.get_text().replace("\n", " ") for t in fig.legends[0].get_texts()]
    assert [label for label in labels if label.startswith("limit")] == [
        "limit 120 s: minisat22, minisat-bin", "limit 1000 s: kissat-bin"]
    limits = [line for line in ax.get_lines() if line.get_label().startswith("limit")]
    assert len({str(line.get_linestyle()) for line in limits}) == 2
    # equal times stay visible: a marker and a horizontal place per solver
    series = {line.get_label(): line for line in ax.get_lines() if line.get_label() in
              ("minisat22", "minisat-bin", "kissat-bin")}
    assert len({line.get_marker() for line in series.values()}) == 3
    assert len({line.get_xdata()[0] for line in series.values()}) == 3  # at k = 27


def test_one_hardness_value_one_limit_and_wall_seconds(figure):
    rows = made_up("flow", "width", {5: {"minisat22": (60, 2.0), "minisat-bin": (60, 2.0)}})
    fig = calibration_figure("flow", [dataclasses.replace(r, cpu_seconds=None) for r in rows])
    figure.append(fig)
    assert_readable(fig, PANEL_WIDTH)
    ax = fig.axes[0]
    low, high = ax.get_xlim()
    assert low <= 4 and high >= 6  # a padded range, not 4.85..5.15
    assert all(t.get_text().isdigit() for t in tick_labels(ax.xaxis))
    # a range short of two powers of ten: 1-2-5 ticks, so several are labelled
    assert [t.get_text() for t in tick_labels(ax.yaxis)] == ["2", "5", "10", "20", "50"]
    assert ax.get_ylabel() == "solver wall time (s)"
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == ["minisat22", "minisat-bin", "limit 60 s"]  # one limit: no names


def test_calibration_plots_are_the_same_bytes_every_time(tmp_path):
    pytest.importorskip("matplotlib")
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        assert plot_calibration(tmp_path / folder, SC) == (
            ["calibration-sliding.png", "calibration-sliding.svg"], "")
    for name in ("calibration-sliding.png", "calibration-sliding.svg"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert b"Software" not in (tmp_path / "a" / "calibration-sliding.png").read_bytes()
    assert b"<dc:date>" not in (tmp_path / "a" / "calibration-sliding.svg").read_bytes()


# -- time limits and crashes: a fake solver run in the runner's child process --------------
# The parent hands the child runner.solve_with_pysat by its qualified name, so replacing that
# attribute in this process sends the child this module-level function instead (imported
# afresh there); it knows the instances by their variable counts (or misbehaves for a solver
# by name), which the test gives it in the environment the child inherits.
def misbehave(source, solver, want_proof, cpu_limit=None, started=None):
    """The real solver, except where MISBEHAVING says: spin (until the CPU limit) or crash."""
    behaviour = json.loads(os.environ["MISBEHAVING"])
    what = behaviour.get(str(source[1]), behaviour.get(solver))
    if what == "spin":
        started(time.process_time())
        while True:
            pass
    if what == "crash":
        os._exit(3)
    return solve_with_pysat(source, solver, want_proof, cpu_limit, started)


def test_a_hanging_or_crashing_solver_does_not_stop_the_run(tmp_path, monkeypatch):
    """A solver that spins is killed at the CPU limit (its row says so), one that crashes is
    recorded as such, and the run goes on. The limit counts the solve call's CPU only, so a
    child that starts slowly on a busy machine still answers."""
    suite = publish_tiny(tmp_path)
    rows = json.loads((suite / "manifest.json").read_text())["instances"]
    behaviour = {row["variables"]: "spin" if "k8-b6" in row["name"] else "crash"
                 for row in rows if "k8-b6" in row["name"] or "flow-" in row["name"]}
    assert len(behaviour) == 2  # the two instances are told apart by their variables
    monkeypatch.setenv("MISBEHAVING", json.dumps(behaviour))
    monkeypatch.setattr(runner, "solve_with_pysat", misbehave)
    calibrate_suite(suite, ["cadical195"], time_limit=1.5, plot=False)
    rows = read_calibration(suite)
    assert [(r.status, r.verdict) for r in rows] == [
        ("SAT", "VERIFIED-SAT"), ("UNKNOWN", "UNKNOWN"), ("UNKNOWN", "UNKNOWN")]
    assert rows[1].reason == "CPU limit of 1.5 s reached" and rows[1].ended_by == "cpu-limit"
    assert rows[1].cpu_seconds >= 1.5
    assert rows[2].reason == "solver process died (exit code 3)"
    assert verify_suite(suite).differences == []


def test_cli_calibrate_prints_a_summary(calibrated, puzzlesat, tmp_path):
    suite = publish_tiny(tmp_path)
    result = puzzlesat("calibrate", suite, "--solvers", "cadical195", "--time-limit", "20",
                       "--no-plot")
    assert result.code == 0, result.err
    assert "cadical195: 3/3 solved within 20 s of CPU; 1 UNSAT-UNCHECKED, 2 VERIFIED-SAT" \
        in result.out
    with open(suite / "calibration.csv", newline="") as fh:
        assert len(list(csv.DictReader(fh))) == 3


@pytest.mark.parametrize("args, fragments", [
    (["--solvers", "nosuch"], ["unknown solver 'nosuch'", "minisat-bin",
                               "mc: ganak, approxmc"]),
    (["--solvers", ","], ["--solvers is empty"]),
    (["--time-limit", "0"], ["--time-limit"]),
    # a client of a track none of the suite's instances has (a SAT suite)
    (["--solvers", "ganak:5"], ["--solvers ganak", "none of the 3 chosen"]),
    (["--solvers", "cadical195,approxmc:5"], ["--solvers approxmc", "solves mc instances"]),
    (["--solvers", "rc2:5"], ["--solvers rc2", "solves maxsat instances"]),
])
def test_cli_calibrate_bad_options(calibrated, puzzlesat, args, fragments):
    suite, _ = calibrated
    assert_one_line_error(puzzlesat("calibrate", suite, *args), *fragments)


def test_cli_calibrate_refuses_a_folder_that_is_not_a_suite(puzzlesat, tmp_path):
    assert_one_line_error(puzzlesat("calibrate", tmp_path), "not a published suite")


def test_calibrating_another_solver_keeps_the_earlier_rows(tmp_path):
    """MiniSat at one limit, then the reference solver at another: one table with both, in
    manifest order; rerunning a solver replaces only its own rows."""
    suite = publish_tiny(tmp_path)
    calibrate_suite(suite, ["minisat22"], time_limit=15, plot=False)
    first = read_calibration(suite)
    calibrate_suite(suite, ["cadical195"], time_limit=25, plot=False)
    rows = read_calibration(suite)
    assert [(r.name, r.solver) for r in rows] == [
        (m.name, solver) for m in first for solver in ("minisat22", "cadical195")]
    assert [r for r in rows if r.solver == "minisat22"] == first
    assert {r.time_limit for r in rows if r.solver == "cadical195"} == {25}
    calibrate_suite(suite, ["minisat22"], time_limit=30, plot=False)
    again = read_calibration(suite)
    assert [(r.solver, r.time_limit) for r in again[:2]] == [("cadical195", 25),
                                                                   ("minisat22", 30)]
    assert [r for r in again if r.solver == "cadical195"] == \
        [r for r in rows if r.solver == "cadical195"]
    assert verify_suite(suite).differences == []


def test_only_recalibrates_matching_instances_and_keeps_the_rest(tmp_path, puzzlesat):
    suite = publish_tiny(tmp_path)
    calibrate_suite(suite, ["minisat22"], time_limit=15, plot=False)
    first = read_calibration(suite)
    result = puzzlesat("calibrate", suite, "--solvers", "minisat22", "--time-limit", "25",
                       "--only", "sliding-*", "--no-plot")
    assert result.code == 0, result.err
    rows = read_calibration(suite)
    assert [(r.name, r.time_limit) for r in rows] == [
        (r.name, 25 if r.name.startswith("sliding-") else 15) for r in first]
    assert rows[-1] == first[-1]  # the flow grid's row, untouched
    none = puzzlesat("calibrate", suite, "--only", "nope-*")
    assert_one_line_error(none, "--only nope-* matches no instance")
    both = puzzlesat("calibrate", suite, "--solvers", "minisat22", "--time-limit", "35",
                     "--only", "nope-*", "--only", "flow-*", "--no-plot")
    assert both.code == 0, both.err
    assert [r.time_limit for r in read_calibration(suite)][-1] == 35


# -- the speed index: recorded in every row, the margin rechecked and enforced ----------------

def test_rows_record_the_speed_index_and_their_reference_seconds(tmp_path, monkeypatch):
    """Each run of a solver with a workload records the index measured before the suite and
    its CPU seconds times it; a solver without one records neither."""
    fixed_speeds(monkeypatch, {"minisat22": 0.5})
    suite = publish_tiny(tmp_path)
    result = calibrate_suite(suite, ["minisat22", "cadical195"], time_limit=20, plot=False)
    rows = read_calibration(suite)
    assert [r.speed_index for r in rows] == [0.5, None] * 3
    assert [r.reference_seconds for r in rows] == [
        round(r.cpu_seconds * 0.5, 3) if r.solver == "minisat22" else None for r in rows]
    with open(suite / "calibration.csv", newline="") as fh:
        table = list(csv.reader(fh))
    assert table[0][-2:] == ["speed-index", "reference-seconds"]
    assert table[2][-2:] == ["", ""]  # cadical195's
    assert "minisat22: speed index 0.500 (median 1.00 s of CPU" in result.summary()
    assert verify_suite(suite).differences == []


def test_reference_seconds_limits_give_each_run_its_cpu_share(tmp_path, monkeypatch, puzzlesat):
    """``--reference-seconds``: minisat22:10 on a machine of index 0.5 runs for 20 s of CPU,
    recorded as its limit (so the stopped run's reference seconds are the 10 asked for);
    cadical195, without a workload, keeps its CPU limit."""
    fixed_speeds(monkeypatch, {"minisat22": 0.5})
    suite = publish_tiny(tmp_path)
    ran = puzzlesat("calibrate", suite, "--solvers", "minisat22:10,cadical195:10",
                    "--reference-seconds", "--no-plot")
    assert ran.code == 0, ran.err
    assert [(r.solver, r.time_limit) for r in read_calibration(suite)] == [
        ("minisat22", 20.0), ("cadical195", 10.0)] * 3


def test_a_table_without_indices_loads_and_a_scaled_figure_must_be_the_stated_one(calibrated):
    """A table written before indices (no such columns) loads, its rows without an index; a
    row's reference seconds are its CPU seconds (its limit when stopped there) times its
    index, or the row is refused: no figure is scaled silently."""
    from puzzlesat.validate.runs.records import CalibrationRow

    suite, _ = calibrated
    with open(suite / "calibration.csv", newline="") as fh:
        row = next(csv.DictReader(fh))
    old = {k: v for k, v in row.items() if k not in ("speed-index", "reference-seconds")}
    assert CalibrationRow.from_row(old).reference_seconds is None
    stopped = {**old, "status": "UNKNOWN", "verdict": "UNKNOWN", "ended-by": "cpu-limit",
               "time-limit": "120", "cpu-seconds": "120.03", "speed-index": "2"}
    assert CalibrationRow.from_row(stopped).reference_seconds == 240.0  # a lower bound
    assert CalibrationRow.from_row({**stopped, "reference-seconds": "240.0"}).speed_index == 2
    for change, message in [({"reference-seconds": "100"}, "is not the run's CPU seconds"),
                            ({"speed-index": "", "reference-seconds": "240"},
                             "without a speed-index"),
                            ({"speed-index": "0"}, "speed-index 0 is outside 0.001..1000"),
                            ({"speed-index": "1e308"}, "speed-index 1e\\+308 is outside"),
                            ({"speed-index": "fast"}, "speed-index 'fast' is not a finite")]:
        with pytest.raises(ValueError, match=message):
            CalibrationRow.from_row({**stopped, **change})


@pytest.mark.skipif(shutil.which("minisat") is None, reason="no minisat binary on PATH")
def test_recheck_measures_again_only_the_instances_near_the_margin_or_without_one(
        tmp_path, puzzlesat, monkeypatch):
    """Instances both MiniSats solve in milliseconds are far below the margin: nothing to
    recheck. Rows measured without an index (an older table's) are rechecked, by the MiniSats
    at their calibration limits, and merged; the others stay as they were."""
    indexed = {"minisat22": 1.0, "minisat-bin": 1.0}
    fixed_speeds(monkeypatch, indexed)
    suite = publish_tiny(tmp_path)
    calibrate_suite(suite, ["minisat22:5", "minisat-bin:5"], plot=False)
    table = (suite / "calibration.csv").read_bytes()
    nothing = puzzlesat("calibrate", suite, "--recheck", "--no-plot")
    assert nothing.code == 0, nothing.err
    assert nothing.out.splitlines()[-2:] == [
        "recheck: no instance's MiniSat margin is within a factor 2 of 2 or unknown: nothing "
        "to measure again", "wrote nothing"]
    assert (suite / "calibration.csv").read_bytes() == table
    fixed_speeds(monkeypatch, {})  # the flow grid measured without an index
    calibrate_suite(suite, ["minisat22:5", "minisat-bin:5"], plot=False, only=("flow-*",))
    fixed_speeds(monkeypatch, indexed)
    before = read_calibration(suite)
    result = puzzlesat("calibrate", suite, "--recheck", "--no-plot")
    assert result.code == 0, result.err
    assert "recheck: measured again 1 instance(s) whose MiniSat margin is within a factor 2 " \
           "of 2 or unknown: flow-5x5-cauto-r1-acyclic" in result.out.splitlines()
    rows = read_calibration(suite)
    assert rows[:4] == before[:4]  # the sliding instances' rows, untouched
    assert [(r.name[:4], r.solver, r.time_limit, r.speed_index) for r in rows[4:]] == [
        ("flow", "minisat22", 120.0, 1.0), ("flow", "minisat-bin", 120.0, 1.0)]
    assert verify_suite(suite).differences == []


@pytest.mark.parametrize("args, fragments", [
    (["--recheck", "--margin", "0.5"], ["--margin must be a finite number >= 1"]),
    (["--margin", "3"], ["--margin is the margin --recheck aims at"]),
    (["--speed-only"], ["--speed-only measures this machine, not a suite"]),
])
def test_cli_calibrate_bad_margin_options(calibrated, puzzlesat, args, fragments):
    suite, _ = calibrated
    result = puzzlesat("calibrate", suite, *args)
    assert result.code == 2 and "Traceback" not in result.err
    assert all(f in result.err for f in fragments), result.err


def test_submission_refuses_instances_below_the_margin_unless_forced(tmp_path, puzzlesat,
                                                                     monkeypatch):
    """MiniSat stopped at the filter's limit x 2 on a machine half the reference's speed: at
    least 1.0 of the margin 2 is shown, so the instances count by CPU yet are refused, one
    line, nothing written; --force writes the bundle."""
    fixed_speeds(monkeypatch, {"minisat22": 0.5})
    monkeypatch.setenv("MISBEHAVING", json.dumps({"minisat22": "spin"}))
    monkeypatch.setattr(runner, "solve_with_pysat", misbehave)
    suite = publish_tiny(tmp_path)
    calibrate_suite(suite, ["minisat22:0.3", "cadical195:20"], plot=False)
    rules = ["--count", "3", "--min-hard", "3", "--minisat", "minisat22", "--minisat-limit",
             "0.15", "--reference", "cadical195", "--time-limit", "20"]
    refused = puzzlesat("submission", suite, *rules, "-o", tmp_path / "refused")
    assert_one_line_error(refused, "3 instance(s) have a MiniSat margin below --margin",
                          "or --force")
    assert refused.out.count(" margin >=1.00 ") == 3
    assert "margin: 3 that count are below --margin 2, refused unless --force: " in refused.out
    assert not (tmp_path / "refused").exists()
    forced = puzzlesat("submission", suite, *rules, "-o", tmp_path / "forced", "--force")
    assert forced.code == 0, forced.out + forced.err
    assert "margin: 3 that count are below --margin 2, written anyway (--force): " in forced.out
    assert (tmp_path / "forced.tar.xz").is_file()

"""puzzlesat tune: the band logic, the stopping rules, the run cache (resume, reuse across
limits), group.toml through the suite spec reader, the landscape files, bad input; solver
times come from a stub put in place of the runner, except in one real run."""

from __future__ import annotations

import csv
import importlib.util
import json
import shutil

import pytest
from conftest import TINY, assert_one_line_error, assert_readable, fixed_speeds, tick_labels

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.writer import gbd_hash_of_literals
from puzzlesat.generator.instance import build
from puzzlesat.generator.suite.spec import parse_spec
from puzzlesat.validate.campaigns.plot_style import COLUMN_WIDTH
from puzzlesat.validate.campaigns.tune import cache as tune_module
from puzzlesat.validate.campaigns.tune import tune
from puzzlesat.validate.campaigns.tune.cache import RunCache
from puzzlesat.validate.campaigns.tune.landscape import landscape_figure
from puzzlesat.validate.campaigns.tune.plan import (
    STOPPED,
    Axis,
    make_plan,
    parse_axis,
    parse_follow,
)
from puzzlesat.validate.runs.solvers import SolveResult
from puzzlesat.validate.tracks import Limit, parse_limit

FIXED = ("border_colors=2", "scramble")
FOLLOW = ("center_colors=0.5*rows",)
EASY, REFERENCE = "minisat22:10", "cadical195:100"

#: stub seconds per (rows, replicate): (easy solver, reference solver); None = never finishes
TIMES = {
    3: {1: (1, 5), 2: (2, 5), 3: (3, 5)},  # easy
    4: {1: (50, 20), 2: (50, 30), 3: (4, 5)},  # median band; replicates 1, 2 in the band
    5: {1: (None, None), 2: (None, None), 3: (None, 40)},  # hard: 3's reference run skipped
    6: {1: (None, None), 2: (None, None), 3: (None, None)},  # hard again: the walk stops
    7: {1: (1, 1), 2: (1, 1), 3: (1, 1)},  # never reached
}


def plan(axis="rows=3..7", samples=3, **kw):
    """The plan the stub's table is written for: margin 1 unless given."""
    return make_plan("edge-matching", FIXED, axis, FOLLOW, ("all",), samples, 11,
                     kw.pop("easy", EASY), kw.pop("reference", REFERENCE),
                     kw.pop("margin", 1.0), **kw)


@pytest.fixture
def stub(monkeypatch):
    """The runner replaced by a table: each call recorded as (rows, replicate, solver, limit);
    a run longer than its limit stops at the limit (UNKNOWN), as the real runner's does."""
    fixed_speeds(monkeypatch, {"minisat22": 1.0})  # reference seconds are CPU seconds here
    the_plan = plan()
    where = {}
    for value, tasks in the_plan.tasks.items():
        for task in tasks:
            inst = build(task.family, task.params, task.encoding, task.seed, task.name)
            where[gbd_hash_of_literals(inst.formula.flat_literals())] = (value, task.replicate)
    calls = []

    def run_client(solver, source, time_limit, track="sat"):
        value, replicate = where[gbd_hash_of_literals(source[0])]
        calls.append((value, replicate, solver, time_limit.cpu))
        seconds = TIMES[value][replicate][solver != "minisat22"]
        if seconds is None or seconds > time_limit.cpu:
            return SolveResult("UNKNOWN", solver, time_limit.cpu, wall=time_limit.cpu,
                               ended_by="cpu-limit")
        return SolveResult("SAT", solver, seconds, wall=seconds)

    monkeypatch.setattr(tune_module, "run_client", run_client)
    return calls


def test_band_median_and_stopping_rule(stub, tmp_path):
    result = tune(plan(), tmp_path, progress=False)
    assert result.medians == {3: "easy", 4: "band", 5: "hard", 6: "hard"}
    assert result.stopped_at == 6 and 7 not in result.samples
    assert result.in_band == [4] and result.exit_code == 0
    # the reference solver runs only where the easy one failed, each solver up to its limit;
    # rows 5 replicate 3 is skipped: two hard samples of three decide the median
    assert stub == [(3, r, "minisat22", 10) for r in (1, 2, 3)] \
        + [(4, r, "minisat22", 10) for r in (1, 2, 3)] \
        + [(4, r, "cadical195", 100) for r in (1, 2)] \
        + [(5, r, "minisat22", 10) for r in (1, 2, 3)] \
        + [(5, r, "cadical195", 100) for r in (1, 2)] \
        + [(6, r, "minisat22", 10) for r in (1, 2, 3)] \
        + [(6, r, "cadical195", 100) for r in (1, 2)]
    # 3x(1+2+3) + 10+10+4 + 20+30 + 3x10 + 2x100 + 3x10 + 2x100
    assert result.spent == 6 + 24 + 50 + 30 + 200 + 30 + 200
    # 5 values x 3 samples x (10 + 100) s
    assert result.full_grid() == 1650
    assert "solver CPU 540 s (540 s in 18 runs made now, 0 s from the cache); a full grid at " \
           "both limits: 1,650 s, an upper bound from the limits (32.7%)" in result.summary()
    assert "stopped after rows=6" in result.summary()


def test_limits_are_reference_seconds_at_this_machines_speed_index(stub, tmp_path,
                                                                   monkeypatch):
    """A machine twice as fast as the reference runs minisat22:10 for 5 s of CPU: row 4
    replicate 3 (4 s of CPU, 8 reference s) is easy, replicates 1-2 stop at 5 s, and the
    landscape says so. A machine half as fast then reuses every run (a stop at 5 s there is
    a stop at 10 reference s), and runs recorded without an index decide no indexed limit."""
    fixed_speeds(monkeypatch, {"minisat22": 2.0})
    result = tune(plan(), tmp_path / "fast", progress=False)
    assert result.medians == {3: "easy", 4: "band", 5: "hard", 6: "hard"}
    assert {c[3] for c in stub if c[2] == "minisat22"} == {5.0}
    assert {c[3] for c in stub if c[2] == "cadical195"} == {100}  # no workload: CPU
    with open(tmp_path / "fast" / "landscape.csv", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["value"] == "4" and r["solver"] == "minisat22"]
    assert [(r["seconds"], r["speed_index"], r["reference_seconds"]) for r in rows] == [
        ("5.0", "2.0", "10.0"), ("5.0", "2.0", "10.0"), ("4", "2.0", "8.0")]
    assert "minisat22 within 10 reference s" in result.summary()
    stub.clear()
    fixed_speeds(monkeypatch, {"minisat22": 0.5})
    slow = tune(plan(), tmp_path / "fast", progress=False)
    assert slow.medians == result.medians and stub == [] and slow.fresh_runs == 0
    fixed_speeds(monkeypatch, {})  # no index: CPU seconds, runs recorded without one
    tune(plan(), tmp_path / "cpu", progress=False)
    stub.clear()
    fixed_speeds(monkeypatch, {"minisat22": 1.0})
    tune(plan(), tmp_path / "cpu", progress=False)
    assert {c[2] for c in stub} == {"minisat22"}  # made again; cadical's CPU runs reused


def test_landscape_csv_has_one_row_per_run(stub, tmp_path):
    tune(plan(), tmp_path, progress=False)
    with open(tmp_path / "landscape.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(stub) == 18
    assert [(int(r["value"]), int(r["replicate"]), r["solver"]) for r in rows[:8]] == [
        (3, 1, "minisat22"), (3, 2, "minisat22"), (3, 3, "minisat22"),
        (4, 1, "minisat22"), (4, 1, "cadical195"), (4, 2, "minisat22"), (4, 2, "cadical195"),
        (4, 3, "minisat22")]
    assert {r["axis"] for r in rows} == {"rows"}
    assert rows[4]["status"] == "SAT" and float(rows[4]["seconds"]) == 20
    assert rows[8]["status"] == "UNKNOWN" and float(rows[8]["seconds"]) == 10
    assert rows[9]["solver"] == "cadical195" and float(rows[9]["seconds"]) == 100
    assert '"center_colors":2' in rows[3]["params"] and '"rows":4' in rows[3]["params"]
    assert all(len(r["gbd_hash"]) == 32 and r["expected"] == "SAT" for r in rows)
    assert (tmp_path / "landscape.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_landscape_reads_well_with_two_easy_solvers_at_one_limit(stub, tmp_path):
    """The SAT track's defaults in small: both MiniSats at one limit. Each limit is one
    legend entry, not two labels drawn on top of each other; each shading has its own."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    result = tune(plan(easy=("minisat22:10", "minisat-bin:10")), tmp_path, progress=False)
    fig = landscape_figure(result)
    try:
        assert_readable(fig, COLUMN_WIDTH)
        ax = fig.axes[0]
        assert [t.get_text() for t in tick_labels(ax.xaxis)] == ["3", "4", "5", "6"]
        assert [t.get_text() for t in tick_labels(ax.yaxis)] == ["1", "10", "100"]
        assert not [t.get_text() for t in tick_labels(ax.yaxis, minor=True) if t.get_text()]
        assert not ax.texts  # the limits are named in the legend, not beside their lines
        labels = [t.get_text().replace("\n", " ") for t in fig.legends[0].get_texts()]
        assert sorted(label for label in labels if label.startswith("limit")) == [
            "limit 10 s: minisat22, minisat-bin", "limit 100 s: cadical195"]
        assert {"band of times", "in-band values", STOPPED} <= set(labels)
        assert len(labels) == len(set(labels))
    finally:
        plt.close(fig)


def test_a_narrow_range_of_times_gets_plain_1_2_5_ticks(stub, tmp_path):
    """Times within one power of ten (30 to 100 s): labelled 50, 100, not 4x10^1, 6x10^1."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    result = tune(plan(axis="rows=5..6", easy="minisat22:30"), tmp_path, progress=False)
    fig = landscape_figure(result)
    try:
        fig.canvas.draw()
        labels = [t.get_text() for t in tick_labels(fig.axes[0].yaxis)]
        assert labels == ["50", "100"]
    finally:
        plt.close(fig)


def test_group_toml_loads_with_the_suite_spec_reader(stub, tmp_path):
    the_plan = plan()
    tune(the_plan, tmp_path, progress=False)
    group = (tmp_path / "group.toml").read_text()
    assert "replicates = [1, 2]" in group
    assert "params = { border_colors = 2, scramble = true, rows = 4, center_colors = 2 }" \
        in group
    suite = b'[suite]\nname = "s"\nauthor = "A"\nversion = "1"\nseed = 11\n\n'
    tasks = parse_spec(suite + group.encode(), "s.toml").tasks
    tuned = the_plan.tasks[4][:2]
    assert [(t.name, t.seed, t.params, t.encoding) for t in tasks] == \
        [(t.name, t.seed, t.params, t.encoding) for t in tuned]


def test_second_run_makes_no_solver_run_and_writes_the_same_files(stub, tmp_path):
    tune(plan(), tmp_path, progress=False)
    first = {n: (tmp_path / n).read_bytes() for n in ("landscape.csv", "group.toml")}
    del stub[:]
    again = tune(plan(), tmp_path, progress=False)
    assert stub == []
    assert again.fresh_runs == 0 and again.spent == 540
    assert "solver CPU 540 s (0 s in 0 runs made now, 540 s from the cache)" in again.summary()
    assert {n: (tmp_path / n).read_bytes() for n in first} == first


def test_interrupted_tune_resumes_where_it_stopped(stub, tmp_path, monkeypatch):
    run = tune_module.run_client

    def interrupted(solver, source, time_limit, track="sat"):
        if len(stub) == 7:
            raise KeyboardInterrupt
        return run(solver, source, time_limit, track)

    monkeypatch.setattr(tune_module, "run_client", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tune(plan(), tmp_path, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"]  # no landscape yet
    assert len(list((tmp_path / "runs").iterdir())) == 7  # and no partial file
    done = list(stub)
    monkeypatch.setattr(tune_module, "run_client", run)
    result = tune(plan(), tmp_path, progress=False)
    assert stub[len(done):] == [c for c in _uninterrupted() if c not in done]
    assert result.spent == 540 and result.fresh_runs == 11


def _uninterrupted():
    return [(3, r, "minisat22", 10) for r in (1, 2, 3)] + [(4, r, "minisat22", 10)
                                                          for r in (1, 2, 3)] \
        + [(4, r, "cadical195", 100) for r in (1, 2)] + [(5, r, "minisat22", 10)
                                                         for r in (1, 2, 3)] \
        + [(5, r, "cadical195", 100) for r in (1, 2)] + [(6, r, "minisat22", 10)
                                                         for r in (1, 2, 3)] \
        + [(6, r, "cadical195", 100) for r in (1, 2)]


def test_cached_runs_serve_every_limit_they_decide(stub, tmp_path):
    tune(plan(axis="rows=4..4"), tmp_path, progress=False)
    del stub[:]
    # easy 10 -> 5: the runs stopped at 10 s (none here) and the 4 s one still decide
    lower = tune(plan(axis="rows=4..4", easy="minisat22:5"), tmp_path, progress=False)
    assert stub == [] and lower.medians == {4: "band"}
    # replicate 2's reference run took 30 s: at a 25 s limit it is a stopped run, no rerun
    tighter = tune(plan(axis="rows=4..4", easy="minisat22:5", reference="cadical195:25"),
                   tmp_path, progress=False)
    assert stub == [] and [s.klass for s in tighter.samples[4]] == ["band", "hard", "easy"]
    # a limit above the one a stopped run had decides nothing: that run is made again
    tune(plan(axis="rows=5..5"), tmp_path, progress=False)
    del stub[:]
    tune(plan(axis="rows=5..5", easy="minisat22:20"), tmp_path, progress=False)
    assert [c[2:] for c in stub] == [("minisat22", 20)] * 3


def test_run_cache_skips_damaged_files(tmp_path):
    (tmp_path / "x.minisat22.json").write_text("{not json")
    assert RunCache(tmp_path).records == {}


TAMPERED = {
    "wrong type": lambda r, p: p.write_text(json.dumps({**r, "seconds": "0.1"})),
    "deep nesting": lambda r, p: p.write_text("[" * 100000 + "]" * 100000),
    "not an object": lambda r, p: p.write_text("[1, 2]"),
    "keys a string": lambda r, p: p.write_text(json.dumps({**r, "keys": "abc"})),
    "nan seconds": lambda r, p: p.write_text(json.dumps({**r, "seconds": float("nan")})),
    "negative seconds": lambda r, p: p.write_text(json.dumps({**r, "seconds": -1})),
    "another hash": lambda r, p: p.write_text(json.dumps({**r, "gbd_hash": "0" * 32})),
    "another solver": lambda r, p: p.write_text(json.dumps({**r, "solver": "glucose4"})),
    "answer against expected": lambda r, p: p.write_text(json.dumps({**r, "expected": "UNSAT"})),
    # the red team's: an index that scales any run into any limit (or a limit to 0 or inf)
    "index 1e-300": lambda r, p: p.write_text(json.dumps({**r, "speed_index": 1e-300})),
    "index 1e308": lambda r, p: p.write_text(json.dumps({**r, "speed_index": 1e308})),
    "index 0": lambda r, p: p.write_text(json.dumps({**r, "speed_index": 0})),
    "index true": lambda r, p: p.write_text(json.dumps({**r, "speed_index": True})),
}


@pytest.mark.parametrize("how", sorted(TAMPERED))
def test_a_tampered_run_cache_is_run_again_never_trusted(stub, tmp_path, how):
    first = tune(plan(axis="rows=4..4"), tmp_path, progress=False)
    made = list(stub)
    for path in sorted((tmp_path / "runs").glob("*.json")):
        record = json.loads(path.read_text())
        if record["status"] == "SAT":
            TAMPERED[how](record, path)
    del stub[:]
    again = tune(plan(axis="rows=4..4"), tmp_path, progress=False)
    assert again.medians == first.medians
    assert sorted(stub) == sorted(c for c in made if TIMES[c[0]][c[1]][c[2] != "minisat22"] is not None
                                  and TIMES[c[0]][c[1]][c[2] != "minisat22"] <= c[3])


def test_a_symlinked_run_cache_folder_is_refused(stub, tmp_path):
    """OUT/runs as a symlink to another folder is one line: tune neither reads the records
    there nor writes any."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "runs").symlink_to(elsewhere)
    with pytest.raises(UserError, match="run cache .*runs is a symlink"):
        tune(plan(axis="rows=4..4"), out, progress=False)
    assert list(elsewhere.iterdir()) == []
    assert stub == []


@pytest.mark.parametrize("kind", ["folder", "symlink"])
def test_a_non_file_in_place_of_a_run_record_is_one_line_and_kept(stub, tmp_path, kind):
    tune(plan(axis="rows=4..4"), tmp_path, progress=False)
    outside = tmp_path / "outside"
    outside.write_text('{"mine": 1}')
    paths = sorted((tmp_path / "runs").glob("*.json"))
    for path in paths:
        path.unlink()
        if kind == "folder":
            (path / "mine").mkdir(parents=True)
        else:
            path.symlink_to(outside)
    with pytest.raises(UserError, match="cannot write|symlink|not a regular file"):
        tune(plan(axis="rows=4..4"), tmp_path, progress=False)
    assert all((path / "mine").is_dir() if kind == "folder" else path.is_symlink()
               for path in paths)
    assert outside.read_text() == '{"mine": 1}'


def test_an_axis_that_never_enters_the_band_exits_1(stub, puzzlesat, tmp_path):
    result = puzzlesat("tune", "edge-matching", "--param", "border_colors=2", "--param",
                       "scramble", "--follow", "center_colors=0.5*rows", "--axis", "rows=3..3",
                       "--samples", "3", "--seed", "11", "--encoding", "all", "--easy", EASY,
                       "--margin", "1", "--reference", REFERENCE, "-o", tmp_path / "t")
    assert result.code == 1
    assert "no rows value has its median in the band (not solved by minisat22 within 10 " \
           "reference s, solved by cadical195 within 100 s)" in result.out
    assert not (tmp_path / "t" / "group.toml").exists()
    assert (tmp_path / "t" / "landscape.csv").exists()


@pytest.mark.parametrize("args, fragment", [
    (("--axis", "rows=6..4"), "empty or reversed"),
    (("--axis", "rows=6,5"), "values must increase"),
    (("--axis", "rows"), "--axis must be NAME=A..B"),
    (("--axis", "rows=4..5", "--easy", "minisat22:100", "--reference", "kissat404:10"),
     "the band is empty"),
    (("--axis", "rows=4..5", "--easy", "nosuchsolver:10"), "unknown solver 'nosuchsolver'"),
    (("--axis", "rows=4..5", "--reference", "kissat404"), "--reference must be SOLVER:SECONDS"),
    (("--axis", "rows=4..5", "--easy", "minisat22:-1"), "--easy minisat22:-1: must be a finite"),
    (("--axis", "rows=4..5", "--param", "colours=3"), "unknown parameter 'colours'"),
    (("--axis", "width=4..5"), "unknown parameter 'width'"),
    (("--axis", "rows=4..5", "--param", "rows=4"), "also given as --param"),
    (("--axis", "rows=4..5", "--param", "scramble=maybe"), "scramble is a flag"),
    (("--axis", "rows=4..5", "--param", "cols=six"), "expected int"),
    (("--axis", "rows=4..5", "--follow", "center_colors=0.5*cols"), "the axis is 'rows'"),
    (("--axis", "rows=4..5", "--follow", "center_colors=half"), "follows 'half'"),
    (("--axis", "rows=4..5", "--follow", "center_colors=rows*2"), "--follow must be"),
    (("--axis", "rows=4..5", "--encoding", "nope"), "unknown encoding 'nope'"),
    (("--axis", "rows=1..5"), "must be at least 2"),
    (("--axis", "rows=4..5", "--samples", "99999999999999999999"), "more than 100000"),
])
def test_bad_input_is_one_line_and_exit_2(puzzlesat, tmp_path, args, fragment):
    # python-sat's solvers where a case names none: the binaries may not be installed here
    limits = [*(() if "--easy" in args else ("--easy", EASY)),
              *(() if "--reference" in args else ("--reference", REFERENCE))]
    result = puzzlesat("tune", "edge-matching", "--param", "border_colors=2", "--param",
                       "center_colors=3", *args, *limits, "-o", tmp_path / "t")
    assert_one_line_error(result, fragment)
    assert not (tmp_path / "t").exists()


def test_output_that_is_a_file_is_refused(stub, tmp_path):
    (tmp_path / "f").write_text("mine")
    with pytest.raises(UserError, match="not a folder"):
        tune(plan(axis="rows=3..3"), tmp_path / "f", progress=False)
    assert (tmp_path / "f").read_text() == "mine"


def test_unknown_family_and_fixed_puzzles(tmp_path):
    with pytest.raises(UserError, match="unknown family 'chess'"):
        make_plan("chess", (), "rows=3..4")
    korf = make_plan("sliding", ("korf=50",), "k=4..6", samples=5)
    assert korf.samples == 1 and "no seed" in korf.notes[0]
    assert [t.name for t in korf.tasks[5]] == ["sliding-korf50-k5-bd-rotated"]


def test_a_plan_past_the_bound_is_refused_before_any_sample_is_made(monkeypatch):
    """axis values x samples x encodings is counted before the plan is built: past 100000
    instances it is one line, and nothing is built."""
    def parse_spec(*args, **kwargs):
        raise AssertionError("a plan past the bound was built")

    monkeypatch.setattr("puzzlesat.validate.campaigns.tune.plan.parse_spec", parse_spec)
    with pytest.raises(UserError, match=r"up to 100002 instances \(3 axis values x 16667 "
                                        r"samples x 2 encodings\), more than 100000"):
        make_plan("edge-matching", FIXED, "rows=3..5", FOLLOW, ("all", "compact"), 16667)
    with pytest.raises(UserError, match="up to 10000000000 instances"):
        make_plan("edge-matching", FIXED, "rows=3..4", FOLLOW, ("all",), 5 * 10**9)


def test_axis_and_follow_syntax():
    assert parse_axis("rows=5..12") == Axis("rows", tuple(range(5, 13)))
    assert parse_axis("k = 20..30:4") == Axis("k", (20, 24, 28))
    assert parse_axis("center-colors=3,5,8") == Axis("center_colors", (3, 5, 8))
    rows = Axis("rows", (5,))
    assert [parse_follow("c=0.5*rows", rows).at(v) for v in (5, 6, 7)] == [3, 3, 4]
    assert [parse_follow("c=rows-1", rows).at(v) for v in (5, 6)] == [4, 5]
    assert [parse_follow("c=2*rows+1", rows).at(v) for v in (5, 6)] == [11, 13]
    assert parse_follow("c=0.1*rows", rows).at(2) == 1  # at least one colour


@pytest.mark.parametrize("text", ["rows=1..1000000000", "rows=0..10000000:3",
                                  "rows=" + ",".join(map(str, range(2000))),
                                  "rows=\u0663..\u0665", "rows=3..\uff15", "rows=1..1e9",
                                  "rows=99999999999999999999..99999999999999999999"])
def test_huge_or_non_ascii_axes_are_one_line_at_once(text):
    with pytest.raises(UserError, match="--axis"):
        parse_axis(text)


@pytest.mark.parametrize("text", ["c=\u0660.5*rows", "c=99999999999999999999*rows",
                                  "c=rows+\u0663", "c=inf*rows", "c=nan*rows"])
def test_huge_or_non_ascii_follows_are_one_line(text):
    with pytest.raises(UserError, match="--follow"):
        parse_follow(text, Axis("rows", (5,)))


def test_limits():
    assert parse_limit("kissat:1000", "--reference") == Limit("kissat404", 1000)
    assert parse_limit("kissat-bin:1000", "--reference") == Limit("kissat-bin", 1000)


def test_the_band_is_below_every_minisat_times_the_margin():
    """The default band: neither MiniSat within 60 s x 2 of CPU, the Kissat binary within
    1000 s; an easy limit that reaches the reference limit once multiplied is refused."""
    if shutil.which("minisat") is None or importlib.util.find_spec("sage_wheels") is None:
        pytest.skip("needs the minisat and kissat binaries")
    default = make_plan("edge-matching", FIXED, "rows=3..4", FOLLOW)
    assert default.easy == (Limit("minisat22", 120), Limit("minisat-bin", 120))
    assert default.reference == Limit("kissat-bin", 1000)
    with pytest.raises(UserError, match="the band is empty: --easy minisat22:1000"):
        plan(easy="minisat22:500", margin=2)


def test_a_band_emptied_by_the_speed_index_is_refused_before_any_run(stub, tmp_path,
                                                                     monkeypatch):
    """minisat22 with an index and cadical195 without one: their limits are compared in CPU
    seconds here, so an index of 0.04 (10 reference s are 250 s of CPU) leaves no band
    below cadical195's 100 s of CPU, and nothing runs."""
    fixed_speeds(monkeypatch, {"minisat22": 0.04})
    with pytest.raises(UserError, match=r"^the band is empty: --easy minisat22:10 \(with the "
                                        r"margin\) is not below --reference cadical195:100 "
                                        r"\(CPU seconds here"):
        tune(plan(), tmp_path / "slow", progress=False)
    assert stub == [] and not (tmp_path / "slow").exists()


def test_without_matplotlib_the_rest_is_written(stub, tmp_path, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)
    result = tune(plan(axis="rows=4..4"), tmp_path, progress=False)
    assert "no landscape.png: matplotlib is not installed" in result.summary()
    assert not (tmp_path / "landscape.png").exists()
    assert (tmp_path / "group.toml").exists()


def test_parallel_threads_give_the_same_answer(stub, tmp_path):
    """Two runs in flight: a run handed out before the median was decided is still made (at
    most one more per value here), nothing else changes."""
    one = tune(plan(), tmp_path / "one", progress=False)
    two = tune(plan(), tmp_path / "two", jobs=2, progress=False)
    assert one.medians == two.medians and one.stopped_at == two.stopped_at
    assert (tmp_path / "one" / "group.toml").read_bytes() == \
        (tmp_path / "two" / "group.toml").read_bytes()
    rows = []
    for folder in ("one", "two"):  # the load at each run's start differs, of course
        with open(tmp_path / folder / "landscape.csv", newline="") as fh:
            rows.append([json.dumps({**r, "load": ""}) for r in csv.DictReader(fh)])
    assert set(rows[0]) <= set(rows[1]) and len(rows[1]) - len(rows[0]) <= 2


def test_real_solvers_at_tiny_sizes(tmp_path):
    """python-sat solvers, no stub: MiniSat limited to 1 microsecond of CPU (no solve call
    answers that fast), CaDiCaL solves the 3x3 and 4x4 boards: every sample is in the band."""
    result = tune(plan(axis="rows=3..4", samples=2, easy="minisat22:0.000001",
                       reference="cadical195:60"), tmp_path, progress=False)
    assert result.in_band == [3, 4]
    runs = [r for s in result.all_samples() for r in s.runs]
    assert [(r.solver, r.status) for r in runs] == \
        [("minisat22", "UNKNOWN"), ("cadical195", "SAT")] * 4
    spec = b'[suite]\nname = "s"\nauthor = "A"\nversion = "1"\nseed = 11\n\n' \
        + (tmp_path / "group.toml").read_bytes()
    assert len(parse_spec(spec, "s.toml").tasks) == 4


def test_dask_executor_gives_the_same_answer(stub, tmp_path):
    pytest.importorskip("distributed")
    from puzzlesat.generator.core.executors import make_executor

    one = tune(plan(), tmp_path / "one", progress=False)
    with make_executor("dask", None, 2, processes=False) as pool:
        dask = tune(plan(), tmp_path / "dask", executor=pool, progress=False)
    assert one.medians == dask.medians
    here, there = ((tmp_path / name / "group.toml").read_text().split("\n", 1)
                   for name in ("one", "dask"))
    assert here[1] == there[1]  # the same groups; the limits' unit differs:
    assert "minisat22 within 10 reference s" in here[0]  # this machine's speed index
    assert "minisat22 within 10 s" in there[0]  # Dask's workers: CPU seconds, their own


def test_a_solver_that_dies_stops_the_tune_and_is_not_recorded(stub, tmp_path, monkeypatch):
    def dies(solver, source, time_limit, track="sat"):
        return SolveResult("UNKNOWN", solver, 0.5, notes=["solver process died (exit code -9)"])

    monkeypatch.setattr(tune_module, "run_client", dies)
    with pytest.raises(UserError, match=r"minisat22 on em-3-2-2-scrambled-r1-all .* ended "
                                        r"without an answer: solver process died"):
        tune(plan(), tmp_path, progress=False)
    assert list((tmp_path / "runs").glob("*")) == []


def test_a_group_toml_tune_wrote_is_removed_when_no_value_is_in_the_band(stub, tmp_path):
    tune(plan(axis="rows=4..4"), tmp_path / "ours", progress=False)
    assert (tmp_path / "ours" / "group.toml").exists()
    tune(plan(axis="rows=6..6"), tmp_path / "ours", progress=False)
    assert not (tmp_path / "ours" / "group.toml").exists()
    assert sorted(p.name for p in (tmp_path / "ours").iterdir()) == [
        ".puzzlesat-tune", "landscape.csv", "landscape.png", "runs"]


@pytest.mark.parametrize("name", ["landscape.csv", "landscape.png", "group.toml"])
@pytest.mark.parametrize("kind", ["file", "symlink", "edited"])
def test_an_output_file_tune_did_not_write_is_never_replaced(stub, tmp_path, name, kind):
    """The user's own landscape.csv, landscape.png or group.toml in the output folder (or a
    symlink there, or a file tune wrote and the user then edited) is one line before any
    solver runs, and stays as it was."""
    out = tmp_path / "out"
    mine = tmp_path / "mine"
    mine.write_text("the user's own\n")
    if kind == "edited":
        tune(plan(axis="rows=4..4"), out, progress=False)
        stub.clear()
        (out / name).write_text(mine.read_text())
    else:
        out.mkdir()
        if kind == "symlink":
            (out / name).symlink_to(mine)
        else:
            (out / name).write_text(mine.read_text())
    with pytest.raises(UserError, match=f"{name} exists and was not written by puzzlesat tune"):
        tune(plan(axis="rows=4..4"), out, progress=False)
    assert stub == []
    assert (out / name).read_text() == mine.read_text()
    assert (out / name).is_symlink() == (kind == "symlink")
    assert mine.read_text() == "the user's own\n"


def test_a_published_suite_is_refused_as_output(puzzlesat, tmp_path, stub):
    """tune -o SUITE (or a folder inside it) is one line: a suite holds what publish wrote."""
    spec = tmp_path / "tiny.toml"
    spec.write_bytes(TINY)
    assert puzzlesat("publish", spec, "-o", tmp_path / "suite").code == 0
    before = {p: p.read_bytes() for p in (tmp_path / "suite").rglob("*") if p.is_file()}
    for out in (tmp_path / "suite", tmp_path / "suite" / "instances", tmp_path / "suite" / "new"):
        result = puzzlesat("tune", "edge-matching", "--param", "border_colors=2", "--param",
                           "scramble", "--follow", "center_colors=0.5*rows", "--axis",
                           "rows=4..4", "--samples", "3", "--seed", "11", "--encoding", "all",
                           "--easy", EASY, "--reference", REFERENCE, "-o", out)
        assert_one_line_error(result, "lies in the published suite")
    assert stub == []
    assert {p: p.read_bytes() for p in (tmp_path / "suite").rglob("*") if p.is_file()} == before

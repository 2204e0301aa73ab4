"""Hardness calibration of a published suite: reference solvers on every instance, each answer
validated, times and verdicts recorded with the suite.

``puzzlesat calibrate DIR`` runs every solver (default MiniSat 2.2, CaDiCaL 1.9.5, Kissat
4.0.4 from python-sat) on every instance of the manifest, each in a child process killed at
the time limit (:func:`puzzlesat.validate.runs.solvers.run_solver`): past the limit the status is UNKNOWN and
the run goes on, as it does when a solver process crashes. Each answer is judged by the
validator (:func:`puzzlesat.validate.report.judge`: a model must satisfy every clause, an UNSAT answer
must not contradict the result the instance's header knows). The calls are pure and go to any
:class:`concurrent.futures.Executor` (local pool or Dask); this process writes, in manifest
order, so the verdicts never depend on the executor (the seconds do, of course).

What is written into the suite folder:

* ``calibration.csv``: one row per (instance, solver), :data:`~puzzlesat.generator.suite.calibration.COLUMNS`. Rows this run did not
  redo (other solvers, instances outside ``--only``) are kept from the earlier table, so
  solvers can be calibrated one at a time with their own limits, and a changed instance alone.
* ``calibration-<family>.png``/``.svg``: solve time against the family's ``HARDNESS_PARAM``
  (k, centre colours, grid width), one series per solver, when matplotlib is installed.
* ``manifest.json`` gains a ``calibration`` section (the table's rows) and ``SHA256SUMS``
  lists the new files. ``puzzlesat verify`` treats these files as inputs, like suite.toml:
  measurements cannot be regenerated, but the manifest and checksums derived from them can,
  so a calibrated suite still verifies, and a tampered table is reported.

The SAT Competition "bring your own benchmarks" rules need MiniSat's time up to 60 s and the
team solver's up to an hour; the real calibration is a long run by hand (see
``suites/sc2027-puzzles.toml``).
"""

from __future__ import annotations

import fnmatch
import io
import math
import os
from dataclasses import dataclass
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.executors import cap_jobs, run_tasks
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.core.reader import read_dimacs
from puzzlesat.generator.families import get_family
from puzzlesat.generator.suite.calibration import (
    CALIBRATION_FILE,
    COLUMNS,
    RESULT_COLUMNS,
    calibration_files,
    table_csv,
)
from puzzlesat.generator.suite.folder import (
    file_sha256,
    read_sums,
    read_table,
    remove_own,
)
from puzzlesat.generator.suite.publish import publish_lock, suite_files
from puzzlesat.generator.suite.spec import check_published, read_published
from puzzlesat.validate.output import STATUSES, MalformedOutput, parse_output
from puzzlesat.validate.report import VERDICTS, judge
from puzzlesat.validate.runs.certify import CheckedSolving
from puzzlesat.validate.runs.processes import solver_pool
from puzzlesat.validate.runs.solvers import check_solver, run_solver

DEFAULT_SOLVERS = ("minisat22", "cadical195", "kissat404")


@dataclass
class Calibration:
    """The outcome of :func:`calibrate_suite`: the table's rows and what was written."""

    directory: Path
    rows: list[dict]
    written: list[str]
    notes: list[str]

    def summary(self) -> str:
        """One line per solver: how many it solved within its limit, and the verdicts."""
        lines = []
        for solver in dict.fromkeys(r["solver"] for r in self.rows):
            mine = [r for r in self.rows if r["solver"] == solver]
            solved = [r for r in mine if r["status"] in ("SAT", "UNSAT")]
            verdicts: dict[str, int] = {}
            for row in mine:
                verdicts[row["verdict"]] = verdicts.get(row["verdict"], 0) + 1
            lines.append(f"{solver}: {len(solved)}/{len(mine)} solved within "
                         f"{mine[0]['time-limit']} s; "
                         + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())))
        return "\n".join(lines + self.notes + [f"wrote {', '.join(self.written)}"])


def calibrate_one(path: str, solver: str, time_limit: float) -> dict:
    """Worker: solve one instance in a killable child and judge the answer. Never raises for a
    solver's failure (timeout, crash, wrong answer): the row records it."""
    result = run_solver(path, solver, time_limit)
    try:
        verdict = judge(read_dimacs(path), parse_output(result.text().encode()), None)
        name, reason = verdict.verdict, verdict.reason
    except MalformedOutput as exc:
        name, reason = "MALFORMED", str(exc)
    if result.status == "UNKNOWN":
        reason = "; ".join(result.notes) or reason
    return {"status": result.status, "seconds": round(result.seconds, 3), "verdict": name,
            "reason": reason}


def calibrate_suite(directory: str | os.PathLike, solvers=DEFAULT_SOLVERS,
                    time_limit: float = 60.0, jobs: int = 1, executor=None,
                    plot: bool = True, only: tuple[str, ...] = ()) -> Calibration:
    """Run ``solvers`` on every instance of the published suite ``directory`` (or those whose
    name matches one of the globs ``only``) and record the results there (see the module
    docstring). The folder is locked while it runs
    (:func:`~puzzlesat.generator.suite.publish.publish_lock`): a publish meanwhile would have
    its suite.toml and manifest reverted by this run's."""
    out = Path(directory)
    check_published(out)  # before a lock file is made in a folder that is no suite
    with publish_lock(out):
        return _calibrate(out, solvers, time_limit, jobs, executor, plot, only)


def _calibrate(out: Path, solvers, time_limit: float, jobs: int, executor, plot: bool,
               only: tuple[str, ...]) -> Calibration:
    spec, instances = read_published(out)
    # the earlier table is read (and a damaged one refused) before any solver runs
    earlier_table = read_calibration(out) if os.path.lexists(out / CALIBRATION_FILE) else []
    chosen = [r for r in instances
              if not only or any(fnmatch.fnmatchcase(r["name"], glob) for glob in only)]
    if only and not chosen:
        raise UserError(f"--only {' '.join(only)} matches no instance of {out}")
    solvers = [check_solver(s) for s in solvers]  # runnable here, before any work
    if not solvers:
        raise UserError("--solvers is empty: name at least one solver")
    if time_limit <= 0:
        raise UserError(f"--time-limit must be positive, got {time_limit}")
    # the published bytes only: a changed instance is not measured (nor is a manifest trusted
    # for the expected result: the judge takes it from the instance's own header)
    changed = [r["file"] for r in chosen if file_sha256(out / r["file"]) != r["sha256"]]
    if changed:
        raise UserError(f"{out}: instance file {changed[0]} is missing or not the one "
                        f"manifest.json lists (run puzzlesat verify)")
    calls = [(str(out / r["file"]), solver, time_limit)
             for r in chosen for solver in solvers]
    results: list[dict] = [{}] * len(calls)
    with solver_pool(cap_jobs(jobs, len(calls)), executor) as (pool, slots):
        for index, result in run_tasks(calibrate_one, calls, pool, slots=slots):
            results[index] = result
    fresh = {(instance["hash"], solver): _row(instance, solver, time_limit, result)
             for (instance, solver), result
             in zip(((i, s) for i in chosen for s in solvers), results)}
    earlier = _earlier_runs(earlier_table, instances, fresh)
    order = list(dict.fromkeys([solver for _, solver in earlier] + solvers))
    rows = [fresh.get(key) or earlier[key] for instance in instances for solver in order
            if (key := (instance["hash"], solver)) in fresh or key in earlier]
    return _record(out, spec, instances, rows, plot)


def _earlier_runs(table: list[dict], instances: list[dict], fresh: dict) -> dict:
    """Rows of the suite's earlier calibration ``table`` that this run did not redo, by
    (hash, solver), brought up to date with the manifest: calibrating one solver (MiniSat at
    60 s, then the reference solver at an hour) or some instances at a time builds one table."""
    by_hash = {instance["hash"]: instance for instance in instances}
    return {(row["hash"], row["solver"]): _row(by_hash[row["hash"]], row["solver"],
                                               row["time-limit"],
                                               {k: row[k] for k in RESULT_COLUMNS})
            for row in table
            if (row["hash"], row["solver"]) not in fresh and row["hash"] in by_hash}


def hardness(row: dict) -> tuple[str, object]:
    """The family's hardness parameter and this instance's value of it ('' when unset)."""
    param = get_family(row["family"]).HARDNESS_PARAM
    return param, row["params"].get(param, "")


def _row(instance: dict, solver: str, time_limit: float, result: dict) -> dict:
    param, value = hardness(instance)
    return {"hash": instance["hash"], "name": instance["name"], "file": instance["file"],
            "family": instance["family"], "hardness-param": param, "hardness": value,
            "expected": instance["result"], "solver": solver, "time-limit": time_limit,
            **result}


def read_calibration(directory: str | os.PathLike) -> list[dict]:
    """The rows of ``calibration.csv`` (seconds and time-limit as floats)."""
    path = Path(directory) / CALIBRATION_FILE
    if not os.path.lexists(path):
        raise UserError(f"{directory}: no {CALIBRATION_FILE}: run puzzlesat calibrate first")
    rows, _ = read_table(path, COLUMNS)
    try:
        for row in rows:
            row["seconds"], row["time-limit"] = float(row["seconds"]), float(row["time-limit"])
    except (KeyError, TypeError, ValueError):
        raise UserError(f"{path}: damaged (columns must be {', '.join(COLUMNS)})") from None
    for line, row in enumerate(rows, start=2):
        why = _unsound_run(row)
        if why:
            raise UserError(f"{path}: line {line}: {why}")
    return rows


def _unsound_run(run: dict) -> str | None:
    """Why a calibration row cannot be a run calibrate recorded (a status, verdict or time
    no run gives), or None: every reader of the table (submission's rules) trusts these."""
    if run["status"] not in STATUSES:
        return f"status {run['status'][:40]!r} is not one of {', '.join(STATUSES)}"
    if run["verdict"] not in VERDICTS:
        return f"verdict {run['verdict'][:40]!r} is not a validator verdict"
    seconds, limit = run["seconds"], run["time-limit"]
    # a stopped run's seconds may pass its limit a little (the kill takes time); a solved
    # run's may not
    most = limit if run["status"] != "UNKNOWN" else math.inf
    if not (math.isfinite(limit) and 0 < limit and math.isfinite(seconds)
            and 0 <= seconds <= most):
        return (f"{run['status']} in {seconds:g} s with a time-limit of {limit:g} s is not a "
                f"run (finite, 0 <= seconds, a solved run's within its limit)")
    return None


def _record(out: Path, spec, instances: list[dict], rows: list[dict],
            plot: bool) -> Calibration:
    # plots of an earlier calibration: only those its SHA256SUMS lists with their bytes
    sums = read_sums(out) or {}
    for stale in sorted(set(calibration_files(out)) - {CALIBRATION_FILE}):
        remove_own(out, stale, sums.get(stale))
    atomic_write(out / CALIBRATION_FILE, table_csv(rows))
    written, notes = [CALIBRATION_FILE], []
    if plot:
        plotted, note = plot_calibration(out, rows)
        written += plotted
        notes += [note] if note else []
    for rel, data in suite_files(spec, instances, calibration_files(out),
                                 CheckedSolving()).items():
        atomic_write(out / rel, data)
    written += ["manifest.json", "SHA256SUMS"]
    return Calibration(out, rows, written, notes)


def plot_calibration(out: Path, rows: list[dict]) -> tuple[list[str], str]:
    """``calibration-<family>.png`` and ``.svg``: seconds against the hardness parameter, a
    series per solver, runs stopped at the limit drawn hollow. Returns the files written and
    a note (why nothing was drawn)."""
    try:
        import matplotlib
    except ImportError:
        return [], "no plot: matplotlib is not installed (pip install 'puzzlesat[plot]')"
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    # reproducible SVG element ids and no timestamps in the files
    with matplotlib.rc_context({"svg.hashsalt": "puzzlesat", "path.simplify": True}):
        for family in dict.fromkeys(r["family"] for r in rows):
            mine = [r for r in rows if r["family"] == family and r["hardness"] != ""]
            if not mine:
                continue
            fig, ax = plt.subplots(figsize=(6, 4))
            for solver in dict.fromkeys(r["solver"] for r in mine):
                _plot_series(ax, [r for r in mine if r["solver"] == solver], solver)
            ax.axhline(mine[0]["time-limit"], color="grey", linestyle=":", label="time limit")
            ax.set_xlabel(mine[0]["hardness-param"])
            ax.set_ylabel("seconds")
            ax.set_yscale("log")
            ax.set_title(f"{family}: solve time")
            ax.legend(fontsize="small")
            for suffix, metadata in ((".png", {"Software": None}),
                                     (".svg", {"Date": None, "Creator": None})):
                name = f"calibration-{family}{suffix}"
                image = io.BytesIO()  # written atomically: never through a symlink of that name
                fig.savefig(image, format=suffix[1:], metadata=metadata)
                atomic_write(out / name, image.getvalue())
                written.append(name)
            plt.close(fig)
    return written, ""


def _plot_series(ax, rows: list[dict], solver: str) -> None:
    solved = [r for r in rows if r["status"] != "UNKNOWN"]
    stopped = [r for r in rows if r["status"] == "UNKNOWN"]
    (line,) = ax.plot([float(r["hardness"]) for r in solved],
                      [max(float(r["seconds"]), 1e-3) for r in solved], "o", label=solver)
    if stopped:
        ax.plot([float(r["hardness"]) for r in stopped], [float(r["seconds"]) for r in stopped],
                "o", mfc="none", color=line.get_color(), label=f"{solver} (stopped)")

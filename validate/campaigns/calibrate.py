"""Hardness calibration of a published suite: reference solvers on every instance, each answer
validated, times and verdicts recorded with the suite.

``puzzlesat calibrate DIR`` runs every client (each ``NAME`` or ``NAME:SECONDS``: a SAT
solver, RC2, a model counter; by default each track's own, :data:`CALIBRATION` of its
``clients.py``: for SAT python-sat's MiniSat 2.2 and the MiniSat binary up to 120 s and the
Kissat 4.0.4 binary up to 1000 s) on every instance of the manifest of its track, each run
limited and timed in the client's own CPU seconds: past the limit the status is UNKNOWN and
the run goes on, as it does when a solver crashes or prints garbage (recorded as such). Each
row records the CPU and wall seconds, what ended the run, the machine (CPU model, cores,
load at the start), and the machine's speed index for the solver with the run's reference
seconds (:mod:`~puzzlesat.validate.runs.speed`: each solver with a reference workload solves
it before the suite, or its index is taken from the machine's cache). Each answer is judged
by its track's judge (a model must satisfy every
clause, an UNSAT answer must not contradict the result the instance's header knows, a count
must be the one certified again from the header's puzzle), from the instance read once per
instance: its evidence (a certified count, certified bounds) is worked out once, not once per
run. The calls, one per instance, are pure and go to any :class:`concurrent.futures.Executor`
(local pool or Dask); this process writes, in manifest order, so the verdicts never depend on
the executor (the seconds do, of course).

What is written into the suite folder:

* ``calibration.csv``: one row per (instance, solver), :data:`~puzzlesat.generator.suite.calibration.COLUMNS`. Rows this run did not
  redo (other solvers, instances outside ``--only``) are kept from the earlier table, so
  solvers can be calibrated one at a time with their own limits, and a changed instance alone.
  ``--recheck`` chooses the instances itself: those whose MiniSat margin (the SAT rules'
  :func:`~puzzlesat.validate.tracks.sat.bundle.to_recheck`) is near the wanted one or not
  known, measured again by the MiniSats alone unless ``--solvers`` says otherwise.
* ``calibration-<family>.png``/``.svg``: solve time against the family's ``HARDNESS_PARAM``
  (k, centre colours, grid width), one series per solver, when matplotlib is installed.
* ``manifest.json`` gains a ``calibration`` section (the table's rows) and ``SHA256SUMS``
  lists the new files. ``puzzlesat verify`` treats these files as inputs, like suite.toml:
  measurements cannot be regenerated, but the manifest and checksums derived from them can,
  so a calibrated suite still verifies, and a tampered table is reported.

The SAT Competition "bring your own benchmarks" filter is MiniSat within a minute; the rules
``puzzlesat submission`` checks need both MiniSats up to that minute times a margin (120 s)
and the team solver up to its limit; the real calibration is a long run by hand (see
``suites/sc2027-puzzles.toml``).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.executors import cap_jobs, run_tasks
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.families import get_family
from puzzlesat.generator.suite.calibration import (
    CALIBRATION_FILE,
    COLUMNS,
    KEY_COLUMNS,
    LATER_COLUMNS,
    calibration_files,
)
from puzzlesat.generator.suite.folder import (
    MANIFEST,
    ManifestRow,
    file_sha256,
    read_manifest,
    read_sums,
    read_table,
    remove_own,
    table_bytes,
)
from puzzlesat.generator.suite.manifest import suite_files
from puzzlesat.generator.suite.publish import publish_lock
from puzzlesat.generator.suite.spec import check_published, read_published
from puzzlesat.validate.campaigns.plot_style import (
    NEUTRAL,
    PANEL_WIDTH,
    draw_limits,
    finish,
    image_bytes,
    integer_axis,
    offsets,
    pyplot,
    seconds_axis,
    solver_style,
    step_of,
    style,
)
from puzzlesat.validate.runs.certify import CheckedSolving
from puzzlesat.validate.runs.limits import SOLVER, TimeLimit, load, machine
from puzzlesat.validate.runs.processes import solver_pool
from puzzlesat.validate.runs.records import CalibrationRow
from puzzlesat.validate.runs.speed import host, speeds
from puzzlesat.validate.tracks import JudgeOptions, Limit, get_track, parse_limit


@dataclass
class Calibration:
    """The outcome of :func:`calibrate_suite`: the table's rows and what was written."""

    directory: Path
    rows: list[CalibrationRow]
    written: list[str]
    notes: list[str]

    def summary(self) -> str:
        """One line per solver: how many it solved within its limit, and the verdicts; then
        the notes (the speed indices first) and what was written."""
        lines = []
        for solver in dict.fromkeys(r.solver for r in self.rows):
            mine = [r for r in self.rows if r.solver == solver]
            solved = [r for r in mine if r.status != "UNKNOWN"]
            verdicts: dict[str, int] = {}
            for row in mine:
                verdicts[row.verdict] = verdicts.get(row.verdict, 0) + 1
            limits = "/".join(f"{limit:g}" for limit in sorted({r.time_limit for r in mine}))
            lines.append(f"{solver}: {len(solved)}/{len(mine)} solved within {limits} s of "
                         f"CPU; " + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())))
        wrote = f"wrote {', '.join(self.written)}" if self.written else "wrote nothing"
        return "\n".join(lines + self.notes + [wrote])


def calibrate_one(path: str, track_name: str, limits: list[Limit], indices: dict[str, float],
                  measured_on: str) -> list[dict]:
    """Worker: every client of ``limits`` on the instance at ``path``, each in a killable
    child, each answer judged by the instance's track from the instance read once; the
    result columns of each run's row, with the solver's speed index of ``indices`` when
    this worker runs on the machine they were measured on (``measured_on``: a Dask worker
    elsewhere has a speed of its own). Never raises for a solver's failure (timeout, crash,
    garbage, a wrong answer): the row records it; an instance its judge cannot read is
    recorded as not run by any client."""
    track = get_track(track_name)
    options = JudgeOptions(solving=CheckedSolving())
    try:
        case = track.judge.open_case(path, options)
    except UserError as exc:
        return [_not_run(f"{limit.solver} did not run: {exc}", load()) for limit in limits]
    results = []
    here = host() == measured_on
    for limit in limits:
        at_start = load()
        try:
            result = track.clients.run(limit.solver, path, limit.time_limit)
        except UserError as exc:
            results.append(_not_run(f"{limit.solver} did not run: {exc}", at_start))
            continue
        verdict = track.judge.judge(case, result.answer, options)
        reason = verdict.reason
        if result.status == "UNKNOWN":
            reason = "; ".join(n for n in result.notes if not n.startswith("command: ")) \
                or reason
        results.append({"status": result.status, "cpu-seconds": round(result.seconds, 3),
                        "wall-seconds": round(result.wall, 3), "ended-by": result.ended_by,
                        "verdict": verdict.verdict, "reason": reason, "machine": machine(),
                        "load": at_start,
                        "speed-index": indices.get(limit.solver, "") if here else ""})
    return results


def _not_run(reason: str, at_start: float | None) -> dict:
    """The result columns of a run that could not start (the reason says why)."""
    return {"status": "UNKNOWN", "cpu-seconds": 0.0, "wall-seconds": 0.0, "ended-by": SOLVER,
            "verdict": "UNKNOWN", "reason": reason, "machine": machine(), "load": at_start}


def solver_limits(solvers, time_limit: TimeLimit | float) -> list[Limit]:
    """``--solvers`` words (``NAME`` or ``NAME:SECONDS``; a bare name gets ``time_limit``)
    as checked limits of their tracks' clients, before any work: a UserError for an unknown
    client, one not installed, a bad limit, or no client at all."""
    default = TimeLimit.parse(time_limit)
    limits = [parse_limit(text, "--solvers", default.cpu) for text in solvers]
    if not limits:
        raise UserError("--solvers is empty: name at least one solver")
    return limits


def default_limits(rows: list[ManifestRow], recheck: bool = False) -> list[str]:
    """The clients each track of ``rows`` is calibrated with by default, in registry order
    (``recheck``: those its margin is measured by, which a recheck runs again)."""
    tracks = [get_track(name).clients for name in dict.fromkeys(row.track for row in rows)]
    return [word for clients in tracks
            for word in (clients.RECHECK if recheck else clients.CALIBRATION)]


def calibrate_suite(directory: str | os.PathLike, solvers=None,
                    time_limit: TimeLimit | float = 60.0, jobs: int = 1, executor=None,
                    plot: bool = True, only: tuple[str, ...] = (),
                    recheck: float | None = None,
                    reference_seconds: bool = False) -> Calibration:
    """Run ``solvers`` (client names, each ``NAME`` or ``NAME:SECONDS``; ``time_limit`` for a
    bare name; None: each track's own) on every instance of their track in the published
    suite ``directory`` (or those whose name matches one of the globs ``only``; with
    ``recheck``, a margin, only the SAT instances whose MiniSat margin is near it or not
    known, and by default the MiniSats alone) and record the results there (see the module
    docstring). With ``reference_seconds`` the limits of solvers with a speed workload are
    reference seconds: each run gets limit / index of CPU. The folder is locked while it runs
    (:func:`~puzzlesat.generator.suite.publish.publish_lock`): a publish meanwhile would have
    its suite.toml and manifest reverted by this run's."""
    out = Path(directory)
    check_published(out)  # before a lock file is made in a folder that is no suite
    with publish_lock(out):
        return _calibrate(out, solvers, time_limit, jobs, executor, plot, only, recheck,
                          reference_seconds)


def _calibrate(out: Path, solvers, time_limit, jobs: int, executor, plot: bool,
               only: tuple[str, ...], recheck: float | None,
               reference_seconds: bool) -> Calibration:
    spec, instances = read_published(out)
    rows = ManifestRow.from_rows(instances, str(out / MANIFEST))
    # the earlier table is read (and a damaged or edited one refused) before any solver runs
    earlier_table = (read_trusted_calibration(out) if os.path.lexists(out / CALIBRATION_FILE)
                     else [])
    chosen = [(instance, row) for instance, row in zip(instances, rows)
              if not only or any(fnmatch.fnmatchcase(row.name, glob) for glob in only)]
    if only and not chosen:
        raise UserError(f"--only {' '.join(only)} matches no instance of {out}")
    if recheck is not None:
        chosen = _to_recheck(out, chosen, earlier_table, recheck)
        if not chosen:
            return Calibration(out, earlier_table, [], [
                f"recheck: no instance's MiniSat margin is within a factor 2 of {recheck:g} "
                f"or unknown: nothing to measure again"])
    limits = solver_limits(default_limits([row for _, row in chosen], recheck is not None)
                           if solvers is None else solvers, time_limit)
    idle = [lim for lim in limits if not any(row.track == lim.track for _, row in chosen)]
    if idle:
        raise UserError(f"--solvers {idle[0].solver}: solves {idle[0].track} instances, and "
                        f"none of the {len(chosen)} chosen in {out} is one")
    # the published bytes only: a changed instance is not measured (nor is a manifest trusted
    # for the expected result: the judge takes it from the instance's own header)
    changed = [row.file for _, row in chosen if file_sha256(out / row.file) != row.sha256]
    if changed:
        raise UserError(f"{out}: instance file {changed[0]} is missing or not the one "
                        f"manifest.json lists (run puzzlesat verify)")
    measured, unmeasured = speeds(limit.solver for limit in limits)
    indices = {solver: speed.index for solver, speed in measured.items()}
    if reference_seconds:
        limits = [dataclasses.replace(lim, index=indices.get(lim.solver)) for lim in limits]
    calls = [(str(out / row.file), row.track, [lim for lim in limits if lim.track == row.track],
              indices, host()) for _, row in chosen]
    fresh: dict[tuple[str, str], CalibrationRow] = {}
    with solver_pool(cap_jobs(jobs, len(calls)), executor) as (pool, slots):
        for index, results in run_tasks(calibrate_one, calls, pool, slots=slots):
            instance = chosen[index][0]
            for limit, result in zip(calls[index][2], results):
                fresh[(instance["hash"], limit.solver)] = _row(instance, limit, result)
    earlier = _earlier_runs(earlier_table, instances, fresh)
    order = list(dict.fromkeys([solver for _, solver in earlier]
                               + [limit.solver for limit in limits]))
    table = [fresh.get(key) or earlier[key] for instance in instances for solver in order
             if (key := (instance["hash"], solver)) in fresh or key in earlier]
    notes = [speed.line() for speed in measured.values()] + unmeasured
    if recheck is not None:
        notes.append(f"recheck: measured again {len(chosen)} instance(s) whose MiniSat margin "
                     f"is within a factor 2 of {recheck:g} or unknown: "
                     f"{', '.join(row.name for _, row in chosen)}")
    return _record(out, spec, instances, table, plot, notes)


def _to_recheck(out: Path, chosen: list, table: list[CalibrationRow],
                margin: float) -> list:
    """The (instance, row) pairs of ``chosen`` a recheck at ``margin`` measures again: those
    whose margin (their track's rules': the SAT Competition's MiniSat filter) is near
    ``margin`` or not known; a UserError when no track of theirs has a margin."""
    by_track: dict[str, list[str]] = {}
    for _, row in chosen:
        by_track.setdefault(row.track, []).append(row.hash)
    if not any(get_track(name).clients.RECHECK for name in by_track):
        raise UserError(f"--recheck: the rules of {', '.join(by_track)} instances, all {out} "
                        f"holds, have no speed margin to measure again")
    wanted = {digest for name, hashes in by_track.items()
              for digest in get_track(name).bundle.to_recheck(hashes, table, margin)}
    return [(instance, row) for instance, row in chosen if row.hash in wanted]


def _earlier_runs(table: list[CalibrationRow], instances: list[dict], fresh: dict) -> dict:
    """Rows of the suite's earlier calibration ``table`` that this run did not redo, by
    (hash, solver), brought up to date with the manifest: calibrating one solver (MiniSat at
    120 s, then the reference solver at 1000 s) or some instances at a time builds one
    table."""
    by_hash = {instance["hash"]: instance for instance in instances}
    return {(row.hash, row.solver): dataclasses.replace(
                row, **{k: v for k, v in _instance_fields(by_hash[row.hash]).items()})
            for row in table if (row.hash, row.solver) not in fresh and row.hash in by_hash}


def hardness(row: dict) -> tuple[str, object]:
    """The family's hardness parameter and this instance's value of it ('' when unset)."""
    param = get_family(row["family"]).HARDNESS_PARAM
    return param, row["params"].get(param, "")


def _instance_fields(instance: dict) -> dict:
    param, value = hardness(instance)
    row = ManifestRow.from_row(instance, MANIFEST)
    return {"hash": row.hash, "name": row.name, "file": row.file, "family": row.family,
            "track": row.track, "hardness_param": param, "hardness": str(value),
            "expected": row.result}


def _row(instance: dict, limit: Limit, result: dict) -> CalibrationRow:
    fields = _instance_fields(instance)
    return CalibrationRow.from_row({**{k.replace("_", "-"): v for k, v in fields.items()},
                                    "solver": limit.solver,
                                    "time-limit": round(limit.cpu_seconds, 3),
                                    **result})


def read_calibration(directory: str | os.PathLike) -> list[CalibrationRow]:
    """The rows of ``calibration.csv``, each checked (:meth:`CalibrationRow.from_row`); a
    table of wall-clock seconds (written before runs were timed in CPU) loads with its rows
    marked as such."""
    path = Path(directory) / CALIBRATION_FILE
    if not os.path.lexists(path):
        raise UserError(f"{directory}: no {CALIBRATION_FILE}: run puzzlesat calibrate first")
    rows, header = read_table(path, KEY_COLUMNS)
    if "cpu-seconds" in header:  # every column of a CPU-timed table, but the later ones
        read_table(path, tuple(c for c in COLUMNS if c not in LATER_COLUMNS))
    checked = []
    for line, row in enumerate(rows, start=2):
        try:
            checked.append(CalibrationRow.from_row(row))
        except (KeyError, ValueError) as exc:
            raise UserError(f"{path}: line {line}: {exc}") from None
    return checked


def read_trusted_calibration(directory: str | os.PathLike) -> list[CalibrationRow]:
    """:func:`read_calibration`, once the table is the one the suite records: its bytes as
    SHA256SUMS lists them, its rows as manifest.json's calibration section holds them (a
    table edited, or copied in by hand, is one UserError naming it)."""
    out = Path(directory)
    path = out / CALIBRATION_FILE
    sums = read_sums(out) or {}
    if os.path.lexists(path):
        rows, _ = read_table(path, KEY_COLUMNS)  # a damaged table: the specific line first
        recorded = read_manifest(out).get("calibration")
        if CALIBRATION_FILE not in sums or file_sha256(path) != sums[CALIBRATION_FILE] \
                or file_sha256(out / MANIFEST) != sums.get(MANIFEST):
            raise UserError(f"{path}: not the calibration the suite's SHA256SUMS lists "
                            f"(edited, or copied in by hand?): run puzzlesat calibrate, or "
                            f"publish with the table beside the spec")
        if recorded != rows:
            raise UserError(f"{path}: its rows are not manifest.json's calibration section "
                            f"(run puzzlesat verify)")
    return read_calibration(out)


def _record(out: Path, spec, instances: list[dict], rows: list[CalibrationRow],
            plot: bool, notes: list[str]) -> Calibration:
    # plots of an earlier calibration: only those its SHA256SUMS lists with their bytes
    sums = read_sums(out) or {}
    for stale in sorted(set(calibration_files(out)) - {CALIBRATION_FILE}):
        remove_own(out, stale, sums.get(stale))
    atomic_write(out / CALIBRATION_FILE, table_bytes(COLUMNS, [r.as_row() for r in rows]))
    written = [CALIBRATION_FILE]
    if plot:
        plotted, note = plot_calibration(out, rows)
        written += plotted
        notes += [note] if note else []
    for rel, data in suite_files(spec, instances, calibration_files(out),
                                 CheckedSolving()).items():
        atomic_write(out / rel, data)
    written += ["manifest.json", "SHA256SUMS"]
    return Calibration(out, rows, written, notes)


def plot_calibration(out: Path, rows: list[CalibrationRow]) -> tuple[list[str], str]:
    """``calibration-<family>.png`` and ``.svg`` (:func:`calibration_figure`) for each family
    with hardness values. Returns the files written and a note (why nothing was drawn)."""
    plt = pyplot()
    if plt is None:
        return [], "no plot: matplotlib is not installed (pip install 'puzzlesat[plot]')"
    written = []
    for family in dict.fromkeys(r.family for r in rows):
        mine = [r for r in rows if r.family == family and r.hardness != ""]
        if not mine:
            continue
        fig = calibration_figure(family, mine)
        for fmt in ("png", "svg"):
            name = f"calibration-{family}.{fmt}"
            # written atomically: never through a symlink of that name
            atomic_write(out / name, image_bytes(fig, fmt))
            written.append(name)
        plt.close(fig)
    return written, ""


def calibration_figure(family: str, rows: list[CalibrationRow]) -> Any:
    """One family's figure: CPU seconds (wall seconds for a wall-clock table's rows, log)
    against the hardness parameter, a series per solver (runs stopped at the limit hollow), a
    line per time limit; sized for 0.32 of a page's text width. Needs matplotlib."""
    plt = pyplot()
    with style():
        fig, ax = plt.subplots(layout="constrained")
        solvers = list(dict.fromkeys(r.solver for r in rows))
        hardness = [float(r.hardness) for r in rows]
        colors = {}
        for index, (solver, shift) in enumerate(
                zip(solvers, offsets(len(solvers), step_of(hardness)))):
            look = solver_style(index)
            colors[solver] = look["color"]
            _plot_series(ax, [r for r in rows if r.solver == solver], solver, look, shift)
        if any(r.status == "UNKNOWN" for r in rows):  # one entry for every solver's
            ax.plot([], [], "o", mfc="none", color=NEUTRAL, label="hollow: stopped at its limit")
        # one limit for every solver needs no names
        draw_limits(ax, ((r.time_limit, r.solver) for r in rows), colors,
                    named=len({r.time_limit for r in rows}) > 1)
        integer_axis(ax, hardness, rows[0].hardness_param)
        walls = {r.cpu_seconds is None for r in rows}  # True: a wall-clock table's row
        seconds_axis(ax, "solver CPU time (s)" if walls == {False} else
                     "solver wall time (s)" if walls == {True} else "CPU or wall time (s)")
        ax.set_title(f"{family}: solve time")
        finish(fig, ax, PANEL_WIDTH)
    return fig


def _plot_series(ax, rows: list[CalibrationRow], solver: str, look: dict[str, str],
                 shift: float) -> None:
    """One solver's runs, ``shift`` to the side: solved filled, stopped hollow."""
    def seconds(row: CalibrationRow) -> float:
        return max(row.wall_seconds if row.cpu_seconds is None else row.cpu_seconds, 1e-3)

    solved = [r for r in rows if r.status != "UNKNOWN"]
    stopped = [r for r in rows if r.status == "UNKNOWN"]
    # drawn (if empty) even when every run stopped: the solver's legend entry
    ax.plot([float(r.hardness) + shift for r in solved], [seconds(r) for r in solved],
            linestyle="none", label=solver, **look)
    if stopped:
        ax.plot([float(r.hardness) + shift for r in stopped], [seconds(r) for r in stopped],
                linestyle="none", mfc="none", **look)

"""Hardness calibration of a published suite: reference solvers on every instance, each answer
validated, times and verdicts recorded with the suite.

``puzzlesat calibrate DIR`` runs every solver (default python-sat's MiniSat 2.2 and the
MiniSat binary up to 120 s, the Kissat 4.0.4 binary up to 1000 s:
:data:`DEFAULT_SOLVERS`; any python-sat name or ready binary name, each with its own limit
as ``NAME:SECONDS``; on a counting suite also the model counters ``ganak`` and ``approxmc``,
whose counts the count judge checks: VERIFIED, WRONG-ANSWER, UNKNOWN, ...) on every instance
of the manifest, each run limited and timed in the
solver's own CPU seconds (:func:`puzzlesat.validate.runs.clients.run_client`): past the limit
the status is UNKNOWN and the run goes on, as it does when a solver crashes or prints
garbage (recorded as such). Each row records the CPU and wall seconds, what ended the run,
and the machine (CPU model, cores, load at the start). Each answer is judged by the
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

The SAT Competition "bring your own benchmarks" filter is MiniSat within a minute; the rules
``puzzlesat submission`` checks need both MiniSats up to that minute times a margin (120 s)
and the team solver up to its limit; the real calibration is a long run by hand (see
``suites/sc2027-puzzles.toml``).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import io
import os
from dataclasses import dataclass
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.executors import cap_jobs, run_tasks
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.core.reader import read_dimacs
from puzzlesat.generator.core.sniff import is_wcnf
from puzzlesat.generator.core.wcnf_reader import read_wcnf
from puzzlesat.generator.families import get_family
from puzzlesat.generator.suite.calibration import (
    CALIBRATION_FILE,
    COLUMNS,
    KEY_COLUMNS,
    calibration_files,
)
from puzzlesat.generator.suite.folder import (
    MANIFEST,
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
from puzzlesat.validate.count import certified_count, judge_count_output
from puzzlesat.validate.output import MalformedOutput, parse_output
from puzzlesat.validate.report import judge
from puzzlesat.validate.runs.certify import CheckedSolving
from puzzlesat.validate.runs.clients import Limit, canonical_name, parse_limit, run_client
from puzzlesat.validate.runs.counters import COUNTERS, check_counter, run_counter
from puzzlesat.validate.runs.limits import SOLVER, TimeLimit, load, machine
from puzzlesat.validate.runs.maxsat import REFERENCE
from puzzlesat.validate.runs.processes import solver_pool
from puzzlesat.validate.runs.records import CalibrationRow
from puzzlesat.validate.runs.solvers import SolveResult

#: python-sat's MiniSat and the MiniSat binary up to the filter's minute times the margin
#: of 2, Kissat 4.0.4 (the binary) up to the reference limit
DEFAULT_SOLVERS = ("minisat22:120", "minisat-bin:120", "kissat-bin:1000")


@dataclass
class Calibration:
    """The outcome of :func:`calibrate_suite`: the table's rows and what was written."""

    directory: Path
    rows: list[CalibrationRow]
    written: list[str]
    notes: list[str]

    def summary(self) -> str:
        """One line per solver: how many it solved within its limit, and the verdicts."""
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
        return "\n".join(lines + self.notes + [f"wrote {', '.join(self.written)}"])


def calibrate_one(path: str, solver: str, time_limit: TimeLimit) -> dict:
    """Worker: solve one instance in a killable child and judge the answer (a WCNF instance's
    by the MaxSAT judge); the result columns of its row. Never raises for a solver's failure
    (timeout, crash, garbage, a wrong answer): the row records it."""
    at_start = load()
    wcnf = is_wcnf(path)
    if (solver == REFERENCE) != wcnf:
        return _not_run(f"{solver} does not solve {'WCNF' if wcnf else 'CNF'}", at_start)
    if solver in COUNTERS:
        return _count_one(path, solver, time_limit, at_start)
    result = run_client(solver, path, time_limit)
    try:
        verdict = (_judge_maxsat(path, result) if wcnf else
                   judge(read_dimacs(path), parse_output(result.text().encode()), None))
        name, reason = verdict.verdict, verdict.reason
    except MalformedOutput as exc:
        name, reason = "MALFORMED", str(exc)
    if result.status == "UNKNOWN":
        reason = "; ".join(n for n in result.notes if not n.startswith("command: ")) or reason
    return {"status": result.status, "cpu-seconds": round(result.seconds, 3),
            "wall-seconds": round(result.wall, 3), "ended-by": result.ended_by,
            "verdict": name, "reason": reason, "machine": machine(), "load": at_start}


def _not_run(reason: str, at_start: float | None) -> dict:
    """The result columns of a run that could not start (the reason says why)."""
    return {"status": "UNKNOWN", "cpu-seconds": 0.0, "wall-seconds": 0.0, "ended-by": SOLVER,
            "verdict": "UNKNOWN", "reason": reason, "machine": machine(), "load": at_start}


def _count_one(path: str, counter: str, time_limit: TimeLimit,
               at_start: float | None) -> dict:
    """A model counter's run on the counting instance at ``path`` (in a killable child,
    :func:`~puzzlesat.validate.runs.counters.run_counter`), judged as ``validate-count``
    judges it (against the count certified again from the header's puzzle); the result
    columns of its row. An instance that is not a counting one, or whose header count is not
    its puzzle's, is not counted."""
    try:
        projection, certified, _ = certified_count(read_dimacs(path), path, CheckedSolving())
        result = run_counter(path, counter, time_limit)
    except UserError as exc:
        return _not_run(f"{counter} did not count: {exc}", at_start)
    verdict = judge_count_output(result.text(), certified, projection)
    status = "UNKNOWN" if result.count is None else "SAT" if result.count else "UNSAT"
    reasons = verdict.reasons if result.count is not None else result.notes
    return {"status": status, "cpu-seconds": round(result.seconds, 3),
            "wall-seconds": round(result.wall, 3), "ended-by": result.ended_by,
            "verdict": verdict.verdict, "reason": "; ".join(reasons),
            "machine": machine(), "load": at_start}


def _limit(text: str, default: TimeLimit) -> Limit:
    """One ``--solvers`` word as a checked limit: a model counter's (``ganak:300``) or a
    solver's (:func:`~puzzlesat.validate.runs.clients.parse_limit`)."""
    text = text if ":" in text else f"{text}:{default.cpu}"
    name, _, seconds = text.rpartition(":")
    if name in COUNTERS:
        return Limit(check_counter(name), TimeLimit.parse(seconds, f"--solvers {text}:").cpu)
    try:
        canonical_name(name)
    except UserError as exc:  # the message names every solver there is: the counters too
        raise UserError(f"--solvers: {exc}; model counters: {', '.join(COUNTERS)}") from None
    return parse_limit(text, "--solvers")


def solver_limits(solvers, time_limit: TimeLimit | float) -> list[Limit]:
    """``--solvers`` words (``NAME`` or ``NAME:SECONDS``; a bare name gets ``time_limit``)
    as checked limits, before any work: a UserError for an unknown solver, a binary not
    installed, a bad limit, or no solver at all."""
    default = TimeLimit.parse(time_limit)
    limits = [_limit(text, default) for text in solvers]
    if not limits:
        raise UserError("--solvers is empty: name at least one solver")
    return limits


def _judge_maxsat(path: str, result: SolveResult):
    """The MaxSAT judge's verdict on RC2's answer to the WCNF instance at ``path``."""
    # imported here: a SAT solver's child process (which imports this module) need not
    from puzzlesat.validate.maxsat import certified_bounds, judge_maxsat, parse_maxsat_output

    wcnf = read_wcnf(path)
    answer = parse_maxsat_output(result.output(), wcnf.num_vars)
    certified, family, module, puzzle, encoding = certified_bounds(wcnf)
    return judge_maxsat(wcnf, answer, certified, family, module, puzzle, encoding)


def calibrate_suite(directory: str | os.PathLike, solvers=DEFAULT_SOLVERS,
                    time_limit: TimeLimit | float = 60.0, jobs: int = 1, executor=None,
                    plot: bool = True, only: tuple[str, ...] = ()) -> Calibration:
    """Run ``solvers`` (python-sat names or ready binary names, each ``NAME`` or
    ``NAME:SECONDS``; ``time_limit`` for a bare name) on every instance of the published
    suite ``directory`` (or those whose name matches one of the globs ``only``) and record the
    results there (see the module docstring). The folder is locked while it runs
    (:func:`~puzzlesat.generator.suite.publish.publish_lock`): a publish meanwhile would have
    its suite.toml and manifest reverted by this run's."""
    out = Path(directory)
    check_published(out)  # before a lock file is made in a folder that is no suite
    with publish_lock(out):
        return _calibrate(out, solvers, time_limit, jobs, executor, plot, only)


def _calibrate(out: Path, solvers, time_limit, jobs: int, executor, plot: bool,
               only: tuple[str, ...]) -> Calibration:
    spec, instances = read_published(out)
    # the earlier table is read (and a damaged or edited one refused) before any solver runs
    earlier_table = (read_trusted_calibration(out) if os.path.lexists(out / CALIBRATION_FILE)
                     else [])
    chosen = [r for r in instances
              if not only or any(fnmatch.fnmatchcase(r["name"], glob) for glob in only)]
    if only and not chosen:
        raise UserError(f"--only {' '.join(only)} matches no instance of {out}")
    limits = solver_limits(solvers, time_limit)  # runnable here, before any work
    idle = [lim.solver for lim in limits if not any(_takes(lim.solver, r) for r in chosen)]
    if idle:
        raise UserError(f"--solvers {idle[0]}: takes none of the {len(chosen)} instances "
                        f"chosen in {out} (a model counter counts counting instances, "
                        f"{REFERENCE} solves WCNF, a SAT solver CNF)")
    # the published bytes only: a changed instance is not measured (nor is a manifest trusted
    # for the expected result: the judge takes it from the instance's own header)
    changed = [r["file"] for r in chosen if file_sha256(out / r["file"]) != r["sha256"]]
    if changed:
        raise UserError(f"{out}: instance file {changed[0]} is missing or not the one "
                        f"manifest.json lists (run puzzlesat verify)")
    calls = [(str(out / r["file"]), limit.solver, limit.time_limit)
             for r in chosen for limit in limits]
    results: list[dict] = [{}] * len(calls)
    with solver_pool(cap_jobs(jobs, len(calls)), executor) as (pool, slots):
        for index, result in run_tasks(calibrate_one, calls, pool, slots=slots):
            results[index] = result
    fresh = {(instance["hash"], limit.solver): _row(instance, limit.solver, limit.seconds,
                                                     result)
             for (instance, limit), result
             in zip(((i, lim) for i in chosen for lim in limits), results)}
    earlier = _earlier_runs(earlier_table, instances, fresh)
    order = list(dict.fromkeys([solver for _, solver in earlier]
                               + [limit.solver for limit in limits]))
    rows = [fresh.get(key) or earlier[key] for instance in instances for solver in order
            if (key := (instance["hash"], solver)) in fresh or key in earlier]
    return _record(out, spec, instances, rows, plot)


def _takes(solver: str, instance: dict) -> bool:
    """Whether ``solver`` runs on the manifest's ``instance``: a model counter on a counting
    one, the MaxSAT reference on a WCNF one, a SAT solver on a CNF one."""
    if solver in COUNTERS:
        return instance.get("count") is not None
    return (solver == REFERENCE) == (instance.get("format", "cnf") == "wcnf")


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
    return {"hash": instance["hash"], "name": instance["name"], "file": instance["file"],
            "family": instance["family"], "hardness_param": param, "hardness": str(value),
            "expected": instance["result"]}


def _row(instance: dict, solver: str, time_limit: float, result: dict) -> CalibrationRow:
    fields = _instance_fields(instance)
    return CalibrationRow.from_row({**{k.replace("_", "-"): v for k, v in fields.items()},
                                    "solver": solver, "time-limit": time_limit, **result})


def read_calibration(directory: str | os.PathLike) -> list[CalibrationRow]:
    """The rows of ``calibration.csv``, each checked (:meth:`CalibrationRow.from_row`); a
    table of wall-clock seconds (written before runs were timed in CPU) loads with its rows
    marked as such."""
    path = Path(directory) / CALIBRATION_FILE
    if not os.path.lexists(path):
        raise UserError(f"{directory}: no {CALIBRATION_FILE}: run puzzlesat calibrate first")
    rows, header = read_table(path, KEY_COLUMNS)
    if "cpu-seconds" in header:
        read_table(path, COLUMNS)  # every column of a CPU-timed table
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
            plot: bool) -> Calibration:
    # plots of an earlier calibration: only those its SHA256SUMS lists with their bytes
    sums = read_sums(out) or {}
    for stale in sorted(set(calibration_files(out)) - {CALIBRATION_FILE}):
        remove_own(out, stale, sums.get(stale))
    atomic_write(out / CALIBRATION_FILE, table_bytes(COLUMNS, [r.as_row() for r in rows]))
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


def plot_calibration(out: Path, rows: list[CalibrationRow]) -> tuple[list[str], str]:
    """``calibration-<family>.png`` and ``.svg``: CPU seconds (wall seconds for a wall-clock
    table's rows) against the hardness parameter, a series per solver, runs stopped at the
    limit drawn hollow. Returns the files written and
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
        for family in dict.fromkeys(r.family for r in rows):
            mine = [r for r in rows if r.family == family and r.hardness != ""]
            if not mine:
                continue
            fig, ax = plt.subplots(figsize=(6, 4))
            for solver in dict.fromkeys(r.solver for r in mine):
                _plot_series(ax, [r for r in mine if r.solver == solver], solver)
            for limit in sorted({r.time_limit for r in mine}):
                ax.axhline(limit, color="grey", linestyle=":", label=f"limit {limit:g} s")
            ax.set_xlabel(mine[0].hardness_param)
            ax.set_ylabel("solver CPU seconds")
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


def _plot_series(ax, rows: list[CalibrationRow], solver: str) -> None:
    def seconds(row: CalibrationRow) -> float:
        return max(row.wall_seconds if row.cpu_seconds is None else row.cpu_seconds, 1e-3)

    solved = [r for r in rows if r.status != "UNKNOWN"]
    stopped = [r for r in rows if r.status == "UNKNOWN"]
    (line,) = ax.plot([float(r.hardness) for r in solved], [seconds(r) for r in solved], "o",
                      label=solver)
    if stopped:
        ax.plot([float(r.hardness) for r in stopped], [seconds(r) for r in stopped],
                "o", mfc="none", color=line.get_color(), label=f"{solver} (stopped)")

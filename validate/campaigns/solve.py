"""``solve`` and ``solve-suite``: one instance or a whole published suite through a client of
its track (a python-sat solver, RC2, a model counter, a competition binary) or an external
command, each run in a killable child, answers written as the track's competition asks."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.core.inputs import check_distinct
from puzzlesat.generator.suite.folder import (
    ANSWER_SUFFIX,
    INSTANCES,
    PROOF_SUFFIX,
    output_path,
    suite_instances,
)
from puzzlesat.validate.answers import EXIT, MalformedOutput, read_answer
from puzzlesat.validate.runs.command import SolverCommand, SolverNotRunnable
from puzzlesat.validate.runs.limits import NO_LIMIT, TimeLimit
from puzzlesat.validate.runs.processes import solver_pool
from puzzlesat.validate.runs.solvers import SolveResult
from puzzlesat.validate.tracks import Track, client_track, track_of


def check_client(track: Track, solver: str | None, command: SolverCommand | None,
                 proof: bool, time_limit: TimeLimit | None) -> str:
    """The client that solves ``track``'s instances, checked before any work: the canonical
    name of ``solver`` (default: the track's), or the command's program name; a UserError
    for a solver of another track, one not installed, or a proof the client cannot give."""
    if command is not None:
        command.check(time_limit)
        if proof and not command.uses("proof"):
            raise UserError("--proof needs {proof} in --solver-command (where the solver "
                            "writes its proof)")
        return command.name
    owner, canonical = client_track(solver or track.clients.DEFAULT)
    if owner != track:
        raise UserError(f"{solver} solves {owner.name} instances, not {track.name} ones (the "
                        f"{track.name} track's: {', '.join(track.clients.names())})")
    return track.clients.check(canonical, proof)


def run_client(track: Track, client: str, instance, limit: TimeLimit,
               proof_to: str | os.PathLike | None = None, command: SolverCommand | None = None,
               seed: int | None = None) -> SolveResult:
    """One run of the client (or ``command``) on ``instance`` of ``track``."""
    if command is not None:
        return track.clients.run_external(command, instance, limit, proof_to, seed)
    return track.clients.run(client, instance, limit, proof_to, seed)


def solve_instance(instance, solver: str | None = None,
                   time_limit: TimeLimit | float | None = None,
                   proof_path: str | os.PathLike | None = None,
                   command: SolverCommand | None = None, seed: int | None = None,
                   expected: str | None = None) -> SolveResult:
    """``puzzlesat solve``: one run on ``instance`` by a client of its track (which must be
    ``expected`` when given; its default client when none is named) in a killable child,
    its proof written where asked."""
    limit = None if time_limit is None else TimeLimit.parse(time_limit)
    track = track_of(instance, expected)
    client = check_client(track, solver, command, proof_path is not None, limit)
    try:  # the same path however spelled, a link, a hard link
        check_distinct(("the instance", instance), ("--proof", proof_path))
    except UserError:
        raise UserError(f"--proof {proof_path}: that is the instance (the proof would replace "
                        "it)") from None
    return run_client(track, client, instance, limit or NO_LIMIT, proof_path, command, seed)


def solve_one(instance: Path, track_name: str, client: str, time_limit: TimeLimit | None,
              proof_to: Path | None, command: SolverCommand | None = None) -> SolveResult:
    """One instance of a suite run, always in a killable child; a damaged instance gives
    UNKNOWN with the error as a note, so the run goes on, but a command that cannot be
    started stops it (SolverNotRunnable)."""
    from puzzlesat.validate.tracks import get_track

    try:
        return run_client(get_track(track_name), client, instance, time_limit or NO_LIMIT,
                          proof_to, command)
    except SolverNotRunnable:
        raise
    except UserError as exc:
        return SolveResult("UNKNOWN", client, 0.0, notes=[f"error: {exc}"])


@dataclass
class SuiteRun:
    """What ``solve-suite`` did: the count of each status written (every status the suite's
    tracks' clients give, none or not), and the instances whose earlier answer was kept over
    a new UNKNOWN."""

    counts: dict[str, int]
    kept: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line: answers by status and earlier answers kept."""
        text = ", ".join(f"{n} {status}" for status, n in self.counts.items())
        if self.kept:
            text += (f"; kept {len(self.kept)} earlier answers over UNKNOWN (--overwrite "
                     f"replaces them): {', '.join(self.kept)}")
        return text


def earlier_answer(path: Path, instance: Path, track: Track) -> str | None:
    """What ``path`` claims when it holds an answer to ``instance`` that reads (SAT, UNSAT,
    OPTIMUM); None otherwise."""
    if not path.is_file():
        return None
    try:
        status = track.judge.status(read_answer(path, track.judge.answer_bound(instance)))
    except (UserError, MalformedOutput):
        return None
    return status if status != "UNKNOWN" else None


def solve_suite(suite_dir, results_dir, jobs: int = 1, solver: str | None = None,
                time_limit: TimeLimit | float | None = None, proof: bool = False,
                progress: bool = True, executor=None, command: SolverCommand | None = None,
                overwrite: bool = False) -> SuiteRun:
    """Run a client of each instance's track (``solver``, else the track's default; or
    ``command``) on every instance of a suite, writing ``RESULTS_DIR/<file>.out`` (with a ``c
    time:`` line) and ``<file>.drat`` when asked. An earlier answer is never replaced by
    UNKNOWN unless ``overwrite`` (it is kept and listed). Usage is checked for every track
    the suite holds before any result is touched. ``executor`` (any concurrent.futures
    Executor, e.g. Dask's) runs the solves; by default ``jobs`` threads, each waiting on a
    child process."""
    from tqdm import tqdm

    from puzzlesat.generator.core.executors import run_tasks

    instances = suite_instances(suite_dir)
    time_limit = None if time_limit is None else TimeLimit.parse(time_limit)
    if jobs < 1:
        raise UserError(f"-j must be at least 1, got {jobs}")
    tracks = [track_of(instance) for instance in instances]
    clients = {track: check_client(track, solver, command, proof, time_limit)
               for track in dict.fromkeys(tracks)}
    check_results_folder(suite_dir, results_dir, instances, proof)
    Path(results_dir).mkdir(parents=True, exist_ok=True)

    run = SuiteRun(dict.fromkeys((status for track in clients for status in EXIT
                                  if status in track.clients.STATUSES), 0))
    calls = [(instance, track.name, clients[track], time_limit,
              output_path(results_dir, instance, PROOF_SUFFIX) if proof else None, command)
             for instance, track in zip(instances, tracks)]
    with solver_pool(jobs, executor) as (pool, slots):
        for index, result in tqdm(run_tasks(solve_one, calls, pool, slots=slots),
                                  total=len(calls), unit="instance", desc="solving",
                                  disable=not progress):
            instance = instances[index]
            out = output_path(results_dir, instance)
            if (result.status == "UNKNOWN" and not overwrite
                    and earlier_answer(out, instance, tracks[index]) is not None):
                run.kept.append(instance.name)
                continue
            atomic_write(out, result.output(seconds=True))
            run.counts[result.status] += 1
    return run


def check_results_folder(suite_dir, results_dir, instances: list[Path], proof: bool) -> None:
    """A UserError, before any solver runs, when the results would land in the suite folder
    itself or among its instances (where an ``.out`` is read as one more instance the next
    time), or when a result's place holds something other than a file (a folder)."""
    suite, results = Path(suite_dir).resolve(), Path(results_dir).resolve()
    if results == suite or results.is_relative_to(suite / INSTANCES):
        raise UserError(f"{results_dir}: the results folder must not be the suite folder or "
                        "inside its instances/")
    for instance in instances:
        for suffix in (ANSWER_SUFFIX, PROOF_SUFFIX) if proof else (ANSWER_SUFFIX,):
            path = output_path(results_dir, instance, suffix)
            if os.path.lexists(path) and not (path.is_symlink() or path.is_file()):
                raise UserError(f"{path}: in the way of a result (not a file)")

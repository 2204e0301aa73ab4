"""``solve`` and ``solve-suite``: one instance or a whole published suite through a python-sat
solver or an external command, each run in a killable child, answers written as SAT Competition
output."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.core.inputs import check_distinct
from puzzlesat.generator.core.reader import read_num_vars
from puzzlesat.generator.suite.folder import (
    ANSWER_SUFFIX,
    INSTANCES,
    PROOF_SUFFIX,
    output_path,
    suite_instances,
)
from puzzlesat.validate.output import MalformedOutput
from puzzlesat.validate.runs.command import SolverCommand, SolverNotRunnable
from puzzlesat.validate.runs.processes import solver_pool
from puzzlesat.validate.runs.solvers import (
    EXIT_CODES,
    MAX_TIME_LIMIT,
    SolveResult,
    check_solver,
    run_solver,
    write_proof,
)


def solve_one(instance: Path, solver: str, time_limit: float | None, proof_to: Path | None,
              command: SolverCommand | None = None) -> SolveResult:
    """One instance of a suite run, always in a killable child (a python-sat solver, or
    ``command``, whose proof is written to ``proof_to`` here); a damaged instance gives
    UNKNOWN with the error as a note, so the run goes on, but a command that cannot be
    started stops it (SolverNotRunnable)."""
    try:
        if command is not None:
            return run_command_result(command, instance, time_limit or _NO_LIMIT, proof_to)
        return run_solver(instance, solver, time_limit or _NO_LIMIT, proof_to is not None)
    except SolverNotRunnable:
        raise
    except UserError as exc:
        return SolveResult("UNKNOWN", command.name if command else solver, 0.0,
                           notes=[f"error: {exc}"])


def run_command_result(command: SolverCommand, instance, time_limit: float,
                       proof_to: str | os.PathLike | None) -> SolveResult:
    """:func:`~puzzlesat.validate.runs.command.run_command` as a :class:`SolveResult`."""
    from puzzlesat.validate.runs.command import run_command

    run = run_command(command, instance, time_limit, proof_to)
    return SolveResult(run.status, command.name, run.seconds,
                       notes=[f"command: {command.template}"] + run.notes, stdout=run.stdout)


def check_client(solver: str, command: SolverCommand | None, proof: bool,
                 time_limit: float | None) -> str:
    """Check the solver (or the command) and the options before any work: the canonical
    solver name (or the command's program name), else a UserError."""
    if time_limit is not None and not (math.isfinite(time_limit)
                                       and 0 < time_limit <= MAX_TIME_LIMIT):
        raise UserError(f"--time-limit must be a finite number of seconds in (0, "
                        f"{MAX_TIME_LIMIT:g}], got {time_limit}")
    if command is None:
        return check_solver(solver, proof)
    command.check(time_limit)
    if proof and not command.uses("proof"):
        raise UserError("--proof needs {proof} in --solver-command (where the solver writes "
                        "its proof)")
    return command.name


@dataclass
class SuiteRun:
    """What ``solve-suite`` did: the count of each status written, and the instances whose
    earlier answer (SAT/UNSAT) was kept over a new UNKNOWN."""

    counts: dict[str, int]
    kept: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line: answers by status and earlier answers kept."""
        text = ", ".join(f"{n} {status}" for status, n in self.counts.items())
        if self.kept:
            text += (f"; kept {len(self.kept)} earlier answers over UNKNOWN (--overwrite "
                     f"replaces them): {', '.join(self.kept)}")
        return text


def earlier_answer(path: Path, instance: Path) -> str | None:
    """SAT or UNSAT when ``path`` holds an answer to ``instance`` that reads; None otherwise."""
    from puzzlesat.validate.output import read_output

    if not path.is_file():
        return None
    try:
        status = read_output(path, read_num_vars(instance) or 0).status
    except (UserError, MalformedOutput):
        return None
    return status if status in ("SAT", "UNSAT") else None


def solve_suite(suite_dir, results_dir, jobs: int = 1, solver: str = "cadical195",
                time_limit: float | None = None, proof: bool = False,
                progress: bool = True, executor=None, command: SolverCommand | None = None,
                overwrite: bool = False) -> SuiteRun:
    """Run the reference solver (or ``command``) on every instance of a suite, writing
    ``RESULTS_DIR/<file>.out`` (with a ``c time:`` line) and ``<file>.drat`` when asked.
    An earlier SAT/UNSAT answer is never replaced by UNKNOWN unless ``overwrite`` (it is kept
    and listed). Usage is checked before any result is touched. ``executor`` (any
    concurrent.futures Executor, e.g. Dask's) runs the solves; by default ``jobs`` threads,
    each waiting on a child process."""
    from tqdm import tqdm

    from puzzlesat.generator.core.executors import run_tasks

    instances = suite_instances(suite_dir)
    solver = check_client(solver, command, proof, time_limit)
    if jobs < 1:
        raise UserError(f"-j must be at least 1, got {jobs}")
    check_results_folder(suite_dir, results_dir, instances, proof)
    Path(results_dir).mkdir(parents=True, exist_ok=True)

    run = SuiteRun(dict.fromkeys(EXIT_CODES, 0))
    calls = [(instance, solver, time_limit,
              output_path(results_dir, instance, PROOF_SUFFIX) if proof else None, command)
             for instance in instances]
    with solver_pool(jobs, executor) as (pool, slots):
        for index, result in tqdm(run_tasks(solve_one, calls, pool, slots=slots),
                                  total=len(calls), unit="instance", desc="solving",
                                  disable=not progress):
            instance = instances[index]
            out = output_path(results_dir, instance)
            if (result.status == "UNKNOWN" and not overwrite
                    and earlier_answer(out, instance) is not None):
                run.kept.append(instance.name)
                continue
            atomic_write(out, result.output(seconds=True))
            if proof:
                write_proof(output_path(results_dir, instance, PROOF_SUFFIX), result.proof)
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


#: "no time limit" for children (20 days: poll() takes at most 2**31 ms): still a child
#: process, still killable; also the longest --time-limit
_NO_LIMIT = MAX_TIME_LIMIT


def solve_instance(instance, solver: str = "cadical195", time_limit: float | None = None,
                   proof_path: str | os.PathLike | None = None,
                   command: SolverCommand | None = None) -> SolveResult:
    """``puzzlesat solve``: one run in a killable child (a python-sat solver, or
    ``command``), writing the proof when asked."""
    check_client(solver, command, proof_path is not None, time_limit)
    try:  # the same path however spelled, a link, a hard link
        check_distinct(("the instance", instance), ("--proof", proof_path))
    except UserError:
        raise UserError(f"--proof {proof_path}: that is the instance (the proof would replace "
                        "it)") from None
    if command is not None:
        result = run_command_result(command, instance, time_limit or _NO_LIMIT, proof_path)
    else:
        result = run_solver(instance, solver, time_limit or _NO_LIMIT,
                            proof=proof_path is not None)
    if proof_path is not None:
        write_proof(proof_path, result.proof)
    return result

"""``solve`` and ``solve-suite``: one instance or a whole published suite through a python-sat
solver or an external command, each run in a killable child, answers written as SAT Competition
output."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.core.inputs import check_distinct, read_input
from puzzlesat.generator.core.reader import read_num_vars
from puzzlesat.generator.core.sniff import is_wcnf
from puzzlesat.generator.suite.folder import (
    ANSWER_SUFFIX,
    INSTANCES,
    PROOF_SUFFIX,
    output_path,
    suite_instances,
)
from puzzlesat.validate.maxsat import maxsat_status
from puzzlesat.validate.output import MAX_OUTPUT_COMMENTS, MalformedOutput
from puzzlesat.validate.runs.clients import run_command_result
from puzzlesat.validate.runs.command import SolverCommand, SolverNotRunnable
from puzzlesat.validate.runs.limits import NO_LIMIT, TimeLimit
from puzzlesat.validate.runs.maxsat import run_rc2
from puzzlesat.validate.runs.processes import solver_pool
from puzzlesat.validate.runs.solvers import (
    EXIT_CODES,
    SolveResult,
    check_solver,
    run_solver,
    write_proof,
)


def solve_one(instance: Path, solver: str, time_limit: TimeLimit | None, proof_to: Path | None,
              command: SolverCommand | None = None) -> SolveResult:
    """One instance of a suite run, always in a killable child (a python-sat solver, or
    ``command``, whose proof is written to ``proof_to`` here); a damaged instance gives
    UNKNOWN with the error as a note, so the run goes on, but a command that cannot be
    started stops it (SolverNotRunnable)."""
    try:
        if is_wcnf(instance):  # RC2 or the command, as MaxSAT; no proof
            return solve_maxsat(instance, time_limit or NO_LIMIT, None, command)
        if command is not None:
            return run_command_result(command, instance, time_limit or NO_LIMIT, proof_to)
        return run_solver(instance, solver, time_limit or NO_LIMIT, proof_to is not None)
    except SolverNotRunnable:
        raise
    except UserError as exc:
        return SolveResult("UNKNOWN", command.name if command else solver, 0.0,
                           notes=[f"error: {exc}"])


def check_client(solver: str, command: SolverCommand | None, proof: bool,
                 time_limit: TimeLimit | None) -> str:
    """Check the solver (or the command) and the options before any work: the canonical
    solver name (or the command's program name), else a UserError."""
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
        if is_wcnf(instance):
            status = maxsat_status(read_input(path, MAX_OUTPUT_COMMENTS << 4, "output"))
        else:
            status = read_output(path, read_num_vars(instance) or 0).status
    except (UserError, MalformedOutput):
        return None
    return status if status in ("SAT", "UNSAT", "OPTIMUM") else None


def solve_suite(suite_dir, results_dir, jobs: int = 1, solver: str = "cadical195",
                time_limit: TimeLimit | float | None = None, proof: bool = False,
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
    time_limit = None if time_limit is None else TimeLimit.parse(time_limit)
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
            run.counts[result.status] = run.counts.get(result.status, 0) + 1
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


def solve_instance(instance, solver: str = "cadical195",
                   time_limit: TimeLimit | float | None = None,
                   proof_path: str | os.PathLike | None = None,
                   command: SolverCommand | None = None) -> SolveResult:
    """``puzzlesat solve``: one run in a killable child (a python-sat solver, or
    ``command``), writing the proof when asked."""
    time_limit = None if time_limit is None else TimeLimit.parse(time_limit)
    check_client(solver, command, proof_path is not None, time_limit)
    try:  # the same path however spelled, a link, a hard link
        check_distinct(("the instance", instance), ("--proof", proof_path))
    except UserError:
        raise UserError(f"--proof {proof_path}: that is the instance (the proof would replace "
                        "it)") from None
    if command is not None:
        result = run_command_result(command, instance, time_limit or NO_LIMIT, proof_path)
    else:
        result = run_solver(instance, solver, time_limit or NO_LIMIT,
                            proof=proof_path is not None)
    if proof_path is not None:
        write_proof(proof_path, result.proof)
    return result


def solve_maxsat(instance: str | os.PathLike, time_limit: TimeLimit | float | None = None,
                 proof_path: str | os.PathLike | None = None,
                 command: SolverCommand | None = None) -> SolveResult:
    """``puzzlesat solve`` on a WCNF instance: RC2, or an external MaxSAT ``command``, in a
    killable child; MaxSAT Evaluation output."""
    if proof_path is not None:
        raise UserError("--proof: a MaxSAT answer comes without a proof")
    limit = NO_LIMIT if time_limit is None else TimeLimit.parse(time_limit)
    if command is not None:
        return run_command_result(command, instance, limit, None, maxsat=True)
    return run_rc2(instance, limit)

"""The reference runner: a python-sat solver on an instance, with a time limit, printing SAT
Competition output (and a DRAT proof on request).

The solver runs in a child process (``forkserver``: safe when the parent has threads, as
``solve-suite -j N`` does) so that a solver past its time limit can be killed outright — no
solver needs to support interruption — and answers ``s UNKNOWN``. Without a time limit it
runs in this process.

Output: ``c`` lines (solver, time), one ``s`` line, ``v`` lines of at most
:data:`~puzzlesat.validate.output.MAX_V_LINE` characters covering variables ``1..V`` (variables the
solver never saw are given False), the last ending in ``0``; exit code 10 / 20 / 0.

>>> r = run_solver((np.array([1, 2, 0, -1, 0], dtype=np.int32), 2))
>>> print(r.text(), end="")
c solver: cadical195
s SATISFIABLE
v -1 2 0
>>> r.exit_code
10
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from puzzlesat.generator.core.dimacs import atomic_write, read_dimacs
from puzzlesat.generator.core.errors import UserError
from puzzlesat.validate.output import MAX_V_LINE

#: solvers whose python-sat bindings can log a DRAT proof (``with_proof=True``)
PROOF_SOLVERS = ("cadical103", "cadical153", "cadical195", "cadical300", "glucose3",
                 "glucose4", "glucose42", "lingeling", "maplechrono", "maplecm", "maplesat")
EXIT_CODES = {"SAT": 10, "UNSAT": 20, "UNKNOWN": 0}
#: the longest --time-limit: 20 days (poll() takes at most 2**31 ms)
MAX_TIME_LIMIT = 20 * 24 * 3600.0
_WORDS = {"SAT": "SATISFIABLE", "UNSAT": "UNSATISFIABLE", "UNKNOWN": "UNKNOWN"}


def solver_name(name: str) -> str:
    """The canonical python-sat name of a solver or one of its aliases (``kissat`` ->
    ``kissat404``), or a UserError listing the choices."""
    from pysat.solvers import SolverNames

    for canonical, aliases in vars(SolverNames).items():
        if not canonical.startswith("_") and name in aliases:
            return canonical
    known = sorted(k for k in vars(SolverNames) if not k.startswith("_"))
    raise UserError(f"unknown solver {name!r} (python-sat solvers: {', '.join(known)})")


@dataclass
class SolveResult:
    status: str
    solver: str
    seconds: float
    model: np.ndarray | None = None  # bool, indexed by variable (index 0 unused)
    proof: list[str] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]

    def text(self, seconds: bool = False) -> str:
        """SAT Competition output; with ``seconds`` also a ``c time: S`` line."""
        lines = [f"c solver: {self.solver}"] + [f"c {note}" for note in self.notes]
        if seconds:
            lines.append(f"c time: {self.seconds:.3f}")
        lines.append(f"s {_WORDS[self.status]}")
        if self.model is not None:
            lines += v_lines(self.model)
        return "\n".join(lines) + "\n"


def v_lines(model: np.ndarray) -> list[str]:
    """``v`` lines of at most MAX_V_LINE characters for variables ``1..V``, the last ending
    in 0. Lines hold a fixed number of literals sized for the widest one."""
    num_vars = model.size - 1
    lits = np.where(model[1:], 1, -1) * np.arange(1, num_vars + 1)
    tokens = [str(lit) for lit in lits.tolist()] + ["0"]
    per_line = (MAX_V_LINE - 2) // (len(str(num_vars)) + 2)  # "v" + " -123..." per literal
    return ["v " + " ".join(tokens[i: i + per_line]) for i in range(0, len(tokens), per_line)]


def clause_lists(flat: np.ndarray) -> list[list[int]]:
    ends = np.flatnonzero(flat == 0)
    return [c[:-1].tolist() for c in np.split(flat, ends + 1)[:-1]]


def _solve(source, solver: str, want_proof: bool):
    """Parse (when ``source`` is a path) and solve. Returns (status, model, proof, error)."""
    from pysat.solvers import Solver

    try:
        if isinstance(source, (str, os.PathLike)):
            dimacs = read_dimacs(source)
            flat, num_vars = dimacs.literals, dimacs.num_vars
        else:
            flat, num_vars = source
    except UserError as exc:
        return None, None, None, str(exc)
    with Solver(name=solver, bootstrap_with=clause_lists(flat), with_proof=want_proof) as s:
        answer = s.solve()
        model = None
        if answer:
            model = np.zeros(num_vars + 1, dtype=bool)
            given = np.asarray(s.get_model() or [], dtype=np.int64)
            given = given[np.abs(given) <= num_vars]
            model[given[given > 0]] = True
        proof = list(s.get_proof()) if want_proof and answer is False else None
    return ("SAT" if answer else "UNSAT"), model, proof, None


def _child(conn, solve, source, solver, want_proof):
    conn.send(solve(source, solver, want_proof))
    conn.close()


def run_solver(source, solver: str = "cadical195", time_limit: float | None = None,
               proof: bool = False, solve=_solve) -> SolveResult:
    """Solve ``source`` — an instance path, or ``(flat literals, num_vars)`` — with a
    python-sat solver. Past ``time_limit`` seconds the child is killed: status UNKNOWN.
    ``solve`` (a picklable function with :func:`_solve`'s signature and result) replaces the
    solver call, e.g. by one that hangs or crashes, to test the limits."""
    solver = solver_name(solver)
    if proof and solver not in PROOF_SOLVERS:
        raise UserError(f"solver {solver} cannot write proofs in python-sat "
                        f"(use one of: {', '.join(PROOF_SOLVERS)})")
    if time_limit is not None and not (math.isfinite(time_limit)
                                       and 0 < time_limit <= MAX_TIME_LIMIT):
        raise UserError(f"--time-limit must be a finite number of seconds in (0, "
                        f"{MAX_TIME_LIMIT:g}], got {time_limit}")
    start = time.perf_counter()
    if time_limit is None:
        status, model, lines, error = solve(source, solver, proof)
        notes = []
    else:
        status, model, lines, error, notes = _solve_in_child(solve, source, solver, proof,
                                                             time_limit)
    if error:
        raise UserError(error)
    return SolveResult(status, solver, time.perf_counter() - start, model, lines, notes)


def _solve_in_child(solve, source, solver, proof, time_limit):
    ctx = multiprocessing.get_context("forkserver")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(send, solve, source, solver, proof), daemon=True)
    child.start()
    send.close()
    try:
        if receive.poll(time_limit):
            try:
                return (*receive.recv(), [])
            except EOFError:  # the child died without answering (crash, out of memory)
                child.join()
                return "UNKNOWN", None, None, None, [f"solver process died "
                                                     f"(exit code {child.exitcode})"]
        return "UNKNOWN", None, None, None, [f"time limit of {time_limit:g} s reached"]
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receive.close()


def write_proof(path: str | os.PathLike, lines: list[str] | None) -> None:
    """Text DRAT, one step per line; nothing at all when there is no proof (SAT, UNKNOWN), so
    no empty file stands for a proof that does not exist."""
    if lines is None:
        return
    atomic_write(path, "".join(line + "\n" for line in lines).encode("ascii"))


# -- suites -----------------------------------------------------------------------------
def suite_instances(suite_dir: str | os.PathLike) -> list[Path]:
    """The instance files of a published suite: ``SUITE_DIR/instances/*.cnf*``, sorted."""
    folder = Path(suite_dir) / "instances"
    if not folder.is_dir():
        raise UserError(f"{suite_dir}: not a suite folder (no instances/ inside)")
    files = sorted(p for p in folder.iterdir() if p.is_file() and ".cnf" in p.name
                   and not p.name.startswith("."))
    if not files:
        raise UserError(f"{folder}: no instance files (*.cnf, *.cnf.xz, ...)")
    return files


def output_path(results_dir: str | os.PathLike, instance: Path, suffix: str = ".out") -> Path:
    return Path(results_dir) / (instance.name + suffix)


def solve_one(instance: Path, solver: str, time_limit: float | None, proof: bool,
              solve=_solve) -> SolveResult:
    """One instance of a suite run, always in a killable child; a damaged instance gives
    UNKNOWN with the error as a note, so the run goes on."""
    try:
        return run_solver(instance, solver, time_limit or _NO_LIMIT, proof, solve)
    except UserError as exc:
        return SolveResult("UNKNOWN", solver, 0.0, notes=[f"error: {exc}"])


def solve_suite(suite_dir, results_dir, jobs: int = 1, solver: str = "cadical195",
                time_limit: float | None = None, proof: bool = False,
                progress: bool = True, executor=None) -> dict[str, int]:
    """Run the reference solver on every instance of a suite, writing
    ``RESULTS_DIR/<file>.out`` (with a ``c time:`` line) and ``<file>.drat`` when asked.
    Returns the count of each status. ``executor`` (any concurrent.futures Executor, e.g.
    Dask's) runs the solves; by default ``jobs`` threads, each waiting on a child process."""
    from tqdm import tqdm

    from puzzlesat.generator.suite.executors import run_tasks

    instances = suite_instances(suite_dir)
    solver = solver_name(solver)
    if jobs < 1:
        raise UserError(f"-j must be at least 1, got {jobs}")
    Path(results_dir).mkdir(parents=True, exist_ok=True)

    counts = dict.fromkeys(EXIT_CODES, 0)
    calls = [(instance, solver, time_limit, proof) for instance in instances]
    own = executor is None
    with contextlib.ExitStack() as stack:
        if own:
            executor = stack.enter_context(ThreadPoolExecutor(max_workers=jobs))
        for index, result in tqdm(run_tasks(solve_one, calls, executor,
                                            slots=jobs if own else None), total=len(calls),
                                  unit="instance", desc="solving", disable=not progress):
            instance = instances[index]
            atomic_write(output_path(results_dir, instance), result.text(seconds=True).encode())
            if proof:
                write_proof(output_path(results_dir, instance, ".drat"), result.proof)
            counts[result.status] += 1
    return counts


#: "no time limit" for children (20 days: poll() takes at most 2**31 ms): still a child
#: process, still killable; also the longest --time-limit
_NO_LIMIT = MAX_TIME_LIMIT


def solve_instance(instance, solver: str = "cadical195", time_limit: float | None = None,
                   proof_path: str | os.PathLike | None = None) -> SolveResult:
    """``puzzlesat solve``: :func:`run_solver` on a file, writing the proof when asked."""
    result = run_solver(instance, solver, time_limit, proof=proof_path is not None)
    if proof_path is not None:
        write_proof(proof_path, result.proof)
    return result

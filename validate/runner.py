"""The reference runner: a python-sat solver on an instance, with a time limit, printing SAT
Competition output (and a DRAT proof on request).

The solver runs in a child process (``spawn``: safe when the parent has threads, as
``solve-suite -j N`` does) so that a solver past its time limit can be killed outright — no
solver needs to support interruption — and answers ``s UNKNOWN``. ``solve`` and
``solve-suite`` always use a child; :func:`run_solver` without a time limit runs in this
process. The child is this process's own (not a fork server's), in its own process group (a
Ctrl-C at the terminal reaches only this process, which kills the child and says
``interrupted``: python-sat would turn it into an exception in the child), and on Linux it
dies with this process (``PR_SET_PDEATHSIG``): a ``kill -9`` leaves no solver running, and
no fork server or resource tracker kept alive by one.

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
import ctypes
import functools
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import resource_tracker
from pathlib import Path

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.core.inputs import check_distinct
from puzzlesat.generator.core.reader import read_dimacs, read_num_vars
from puzzlesat.validate.command import SolverCommand, SolverNotRunnable
from puzzlesat.validate.output import MAX_V_LINE, MalformedOutput

#: solvers whose python-sat bindings can log a DRAT proof (``with_proof=True``)
PROOF_SOLVERS = ("cadical103", "cadical153", "cadical195", "cadical300", "glucose3",
                 "glucose4", "glucose42", "lingeling", "maplechrono", "maplecm", "maplesat")
EXIT_CODES = {"SAT": 10, "UNSAT": 20, "UNKNOWN": 0}
#: the longest --time-limit: 20 days (poll() takes at most 2**31 ms)
MAX_TIME_LIMIT = 20 * 24 * 3600.0
_WORDS = {"SAT": "SATISFIABLE", "UNSAT": "UNSATISFIABLE", "UNKNOWN": "UNKNOWN"}


def check_solver(name: str, proof: bool = False) -> str:
    """The canonical name of a python-sat solver this installation can run (with proofs when
    ``proof``), or a UserError: checked before any work or any result is touched."""
    solver = solver_name(name)
    _runnable(solver)
    if proof and solver not in PROOF_SOLVERS:
        raise UserError(f"solver {solver} cannot write proofs in python-sat "
                        f"(use one of: {', '.join(PROOF_SOLVERS)})")
    return solver


@functools.cache
def _runnable(solver: str) -> None:
    """A UserError when python-sat knows the name but cannot make the solver here (e.g.
    ``cryptosat`` without the ``pycryptosat`` module, ``minisatgh`` in some builds)."""
    from pysat.solvers import NoSuchSolverError, Solver

    try:
        Solver(name=solver).delete()
    except (NoSuchSolverError, ImportError) as exc:
        raise UserError(f"solver {solver} is not available in this python-sat installation "
                        f"({type(exc).__name__}: {exc})") from None


def solver_name(name: str) -> str:
    """The canonical python-sat name of a solver or one of its aliases (``kissat`` ->
    ``kissat404``), or a UserError listing the choices."""
    from pysat.solvers import SolverNames

    for canonical, aliases in vars(SolverNames).items():
        if not canonical.startswith("_") and (name == canonical or name in aliases):
            return canonical
    known = sorted(k for k in vars(SolverNames) if not k.startswith("_"))
    raise UserError(f"unknown solver {name!r} (python-sat solvers: {', '.join(known)})")


@dataclass
class SolveResult:
    status: str
    solver: str
    seconds: float
    model: np.ndarray | None = None  # bool, indexed by variable (index 0 unused)
    proof: list[str] | None = None  # python-sat's text lines (an external solver's proof
    # goes straight to its file)
    notes: list[str] = field(default_factory=list)
    stdout: bytes | None = None  # an external solver's own output, kept as it is

    @property
    def exit_code(self) -> int:
        """The solver's status as a SAT-competition exit code."""
        return EXIT_CODES[self.status]

    def output(self, seconds: bool = False) -> bytes:
        """SAT Competition output; with ``seconds`` also a ``c time: S`` line. An external
        solver's stdout follows our ``c`` lines byte for byte."""
        # each on one line: a program or a note with a line break would add lines of its own
        lines = [f"c {' '.join(text.split())}" for text in [f"solver: {self.solver}",
                                                             *self.notes]]
        if seconds:
            lines.append(f"c time: {self.seconds:.3f}")
        if self.stdout is not None:
            return ("\n".join(lines) + "\n").encode("utf-8", "replace") + self.stdout
        lines.append(f"s {_WORDS[self.status]}")
        if self.model is not None:
            lines += v_lines(self.model)
        return ("\n".join(lines) + "\n").encode()

    def text(self, seconds: bool = False) -> str:
        """:meth:`output` as text (bytes an external solver wrote that are not UTF-8 shown
        as U+FFFD)."""
        return self.output(seconds).decode("utf-8", "replace")


def v_lines(model: np.ndarray) -> list[str]:
    """``v`` lines of at most MAX_V_LINE characters for variables ``1..V``, the last ending
    in 0. Lines hold a fixed number of literals sized for the widest one."""
    num_vars = model.size - 1
    lits = np.where(model[1:], 1, -1) * np.arange(1, num_vars + 1)
    tokens = [str(lit) for lit in lits.tolist()] + ["0"]
    per_line = (MAX_V_LINE - 2) // (len(str(num_vars)) + 2)  # "v" + " -123..." per literal
    return ["v " + " ".join(tokens[i: i + per_line]) for i in range(0, len(tokens), per_line)]


def clause_lists(flat: np.ndarray) -> list[list[int]]:
    """The clauses of a flat 0-terminated literal array as lists."""
    ends = np.flatnonzero(flat == 0)
    return [c[:-1].tolist() for c in np.split(flat, ends + 1)[:-1]]


def solve_with_pysat(source, solver: str, want_proof: bool):
    """Parse ``source`` (when it is a path) and solve it with the python-sat ``solver`` in this
    process. Returns (status, model, proof lines, error message)."""
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


def _child(conn, parent: int, solve, source, solver, want_proof):
    detach_from_terminal_and_die_with(parent)
    conn.send(solve(source, solver, want_proof))
    conn.close()


def run_solver(source, solver: str = "cadical195", time_limit: float | None = None,
               proof: bool = False) -> SolveResult:
    """Solve ``source`` — an instance path, or ``(flat literals, num_vars)`` — with a
    python-sat solver (:func:`solve_with_pysat`). Past ``time_limit`` seconds the child is
    killed: status UNKNOWN."""
    solver = check_solver(solver, proof)
    if time_limit is not None and not (math.isfinite(time_limit)
                                       and 0 < time_limit <= MAX_TIME_LIMIT):
        raise UserError(f"--time-limit must be a finite number of seconds in (0, "
                        f"{MAX_TIME_LIMIT:g}], got {time_limit}")
    start = time.perf_counter()
    if time_limit is None:
        status, model, lines, error = solve_with_pysat(source, solver, proof)
        notes = []
    else:
        status, model, lines, error, notes = _solve_in_child(source, solver, proof, time_limit)
    if error:
        raise UserError(error)
    return SolveResult(status, solver, time.perf_counter() - start, model, lines, notes)


#: PR_SET_PDEATHSIG of <linux/prctl.h>
_PR_SET_PDEATHSIG = 1


def detach_from_terminal_and_die_with(parent: int) -> None:
    """In a solver child: leave the terminal's process group (Ctrl-C is the parent's to
    handle; SIGINT was blocked by the parent across the start, and is ignored before it is
    unblocked) and, on Linux, be killed when the parent dies — also when it died already."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.setpgid(0, 0)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    die_with(parent)


def die_with(parent: int) -> None:
    """On Linux, SIGKILL this process when the thread that started it ends (its process
    dies); exit at once if ``parent`` is gone already. Elsewhere nothing."""
    if _prctl is not None:  # Linux
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


_prctl = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None


@contextlib.contextmanager
def sigint_blocked():
    """SIGINT held back in this thread (a Ctrl-C arrives right after): a child started
    meanwhile inherits the blocked mask, so it cannot be interrupted before it leaves the
    terminal's process group."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


#: the solver children running now (killed when the run is interrupted)
_RUNNING: set = set()
_RUNNING_LOCK = threading.Lock()


@contextlib.contextmanager
def running(child):
    """Register ``child`` (anything with ``kill()``: a multiprocessing Process, a Popen) as a
    running solver for :func:`kill_running_solvers` while the block runs."""
    with _RUNNING_LOCK:
        _RUNNING.add(child)
    try:
        yield child
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(child)


def kill_running_solvers() -> None:
    """Kill every solver child this process runs now (an interrupted suite run: the threads
    waiting on them then return at once, instead of at the time limit)."""
    with _RUNNING_LOCK:
        for child in list(_RUNNING):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                child.kill()


def stop_solvers(threads: ThreadPoolExecutor | None = None) -> None:
    """After an interrupt: kill every solver child, and with ``threads`` (a pool of threads
    that wait on solvers) shut it down, queued calls cancelled, killing meanwhile the children
    its threads still start (one preparing its instance starts one after the interrupt): the
    threads return at once instead of at the time limit."""
    kill_running_solvers()
    if threads is None:
        return
    stopping = threading.Thread(target=threads.shutdown, daemon=True,
                                kwargs={"wait": True, "cancel_futures": True})
    stopping.start()
    while stopping.is_alive():
        kill_running_solvers()
        stopping.join(0.02)


@contextlib.contextmanager
def solver_pool(jobs: int, executor: Executor | None) -> Iterator[tuple[Executor | None,
                                                                     int | None]]:
    """Where solver runs go, with the slots to give :func:`run_tasks`: ``executor`` as it is,
    or (None) a pool of ``jobs`` threads owned here (each solve already runs in its own child
    process, so threads that wait on them suffice; a forked pool would inherit a stale
    forkserver). On an interrupt every solver is stopped at once (:func:`stop_solvers`), not
    at its time limit; an owned pool is always shut down."""
    own = executor is None
    pool = (ThreadPoolExecutor(max_workers=jobs) if jobs > 1 else None) if own else executor
    try:
        yield pool, (jobs if own else None)
    except BaseException:
        stop_solvers(pool if own and isinstance(pool, ThreadPoolExecutor) else None)
        raise
    finally:
        if own and pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _solve_in_child(source, solver, proof, time_limit):
    ctx = multiprocessing.get_context("spawn")
    receive, send = ctx.Pipe(duplex=False)
    # the function goes to the child by its qualified name, looked up here at each call
    child = ctx.Process(target=_child, args=(send, os.getpid(), solve_with_pysat, source,
                                             solver, proof), daemon=True)
    # started here, not inside start(): starting it unblocks SIGINT in this thread, so a Ctrl-C
    # could kill the child before it leaves the terminal's process group, and start() then
    # waits for ever to hand it its data
    resource_tracker.ensure_running()
    try:  # a Ctrl-C held back across start() arrives as the mask is restored: kill the child
        with sigint_blocked():
            child.start()
        send.close()
        with running(child):
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
        if child.pid is not None:
            child.join()
        send.close()
        receive.close()


def write_proof(path: str | os.PathLike, proof: list[str] | None) -> None:
    """python-sat's text DRAT proof, one step per line; nothing at all when there is no proof
    (SAT, UNKNOWN, or an external solver's, already written), so no empty file stands for a
    proof that does not exist."""
    if proof is None:
        return
    atomic_write(path, "".join(line + "\n" for line in proof).encode("ascii"))


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
    """Where the answer for ``instance`` is written in ``results_dir``."""
    return Path(results_dir) / (instance.name + suffix)


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
    """:func:`~puzzlesat.validate.command.run_command` as a :class:`SolveResult`."""
    from puzzlesat.validate.command import run_command

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
              output_path(results_dir, instance, ".drat") if proof else None, command)
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
                write_proof(output_path(results_dir, instance, ".drat"), result.proof)
            run.counts[result.status] += 1
    return run


def check_results_folder(suite_dir, results_dir, instances: list[Path], proof: bool) -> None:
    """A UserError, before any solver runs, when the results would land in the suite folder
    itself or among its instances (where an ``.out`` is read as one more instance the next
    time), or when a result's place holds something other than a file (a folder)."""
    suite, results = Path(suite_dir).resolve(), Path(results_dir).resolve()
    if results == suite or results.is_relative_to(suite / "instances"):
        raise UserError(f"{results_dir}: the results folder must not be the suite folder or "
                        "inside its instances/")
    for instance in instances:
        for suffix in (".out", ".drat") if proof else (".out",):
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

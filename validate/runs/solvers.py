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

import functools
import math
import multiprocessing
import os
import time
from dataclasses import dataclass, field
from multiprocessing import resource_tracker

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.core.reader import read_dimacs
from puzzlesat.validate.output import MAX_V_LINE
from puzzlesat.validate.runs.processes import (
    detach_from_terminal_and_die_with,
    running,
    sigint_blocked,
)

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


def _child(conn, parent: int, function, args):
    detach_from_terminal_and_die_with(parent)
    conn.send(function(*args))
    conn.close()


@dataclass
class ChildOutcome:
    """What :func:`call_in_child` got: the function's value, or None and why not."""

    value: object = None
    note: str | None = None  # why there is no value (time limit, the child died)


def call_in_child(function, args: tuple, time_limit: float) -> ChildOutcome:
    """``function(*args)`` in a spawned child (see the module docstring), killed past
    ``time_limit`` seconds. ``function`` must be a module-level function; its value and
    ``args`` are pickled."""
    ctx = multiprocessing.get_context("spawn")
    receive, send = ctx.Pipe(duplex=False)
    # the function goes to the child by its qualified name, looked up here at each call
    child = ctx.Process(target=_child, args=(send, os.getpid(), function, args), daemon=True)
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
                    return ChildOutcome(receive.recv())
                except EOFError:  # the child died without answering (crash, out of memory)
                    child.join()
                    return ChildOutcome(None, f"process died (exit code {child.exitcode})")
            return ChildOutcome(None, f"time limit of {time_limit:g} s reached")
    finally:
        if child.is_alive():
            child.kill()
        if child.pid is not None:
            child.join()
        send.close()
        receive.close()


def check_time_limit(time_limit: float | None) -> None:
    """A UserError unless ``time_limit`` is None or a finite number of seconds in (0,
    :data:`MAX_TIME_LIMIT`]."""
    if time_limit is not None and not (math.isfinite(time_limit)
                                       and 0 < time_limit <= MAX_TIME_LIMIT):
        raise UserError(f"--time-limit must be a finite number of seconds in (0, "
                        f"{MAX_TIME_LIMIT:g}], got {time_limit}")


def run_solver(source, solver: str = "cadical195", time_limit: float | None = None,
               proof: bool = False) -> SolveResult:
    """Solve ``source`` — an instance path, or ``(flat literals, num_vars)`` — with a
    python-sat solver (:func:`solve_with_pysat`). Past ``time_limit`` seconds the child is
    killed: status UNKNOWN."""
    solver = check_solver(solver, proof)
    check_time_limit(time_limit)
    start = time.perf_counter()
    notes: list[str] = []
    if time_limit is None:
        status, model, lines, error = solve_with_pysat(source, solver, proof)
    else:
        outcome = call_in_child(solve_with_pysat, (source, solver, proof), time_limit)
        if outcome.note is None:
            status, model, lines, error = outcome.value  # type: ignore[misc]
        else:
            status, model, lines, error = "UNKNOWN", None, None, None
            notes = [outcome.note.replace("process died", "solver process died")]
    if error:
        raise UserError(error)
    return SolveResult(status, solver, time.perf_counter() - start, model, lines, notes)


def write_proof(path: str | os.PathLike, proof: list[str] | None) -> None:
    """python-sat's text DRAT proof, one step per line; nothing at all when there is no proof
    (SAT, UNKNOWN, or an external solver's, already written), so no empty file stands for a
    proof that does not exist."""
    if proof is None:
        return
    atomic_write(path, "".join(line + "\n" for line in proof).encode("ascii"))



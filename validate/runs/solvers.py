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

Time is the solver's own: the CPU seconds of the ``solve()`` call, measured in the child
(reading the instance and feeding python-sat are not the solver's), with its wall seconds
beside them. A limit is on that CPU time: the parent polls the child's CPU and kills it at
the limit, the child's RLIMIT_CPU a second later is the kernel's backstop, and wall time
(:attr:`~puzzlesat.validate.runs.limits.TimeLimit.wall`) the last one.

A run's :class:`SolveResult` holds its answer as the track's competition prints it
(:mod:`puzzlesat.validate.answers`: here SAT Competition output, variables the solver never
saw given False) after our ``c`` lines (solver, CPU and wall time); its exit code is the
competition's.

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
import multiprocessing
import os
import resource
import signal
import time
from dataclasses import dataclass, field
from multiprocessing import resource_tracker

import numpy as np

from puzzlesat.generator.core.cnf import model_array
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.validate.answers import EXIT, UNKNOWN_ANSWER, sat_text
from puzzlesat.validate.runs.limits import (
    CPU_LIMIT,
    SOLVER,
    WALL_LIMIT,
    TimeLimit,
    cpu_rlimit,
    process_cpu,
)
from puzzlesat.validate.runs.processes import (
    detach_from_terminal_and_die_with,
    running,
    sigint_blocked,
)

#: solvers whose python-sat bindings can log a DRAT proof (``with_proof=True``)
PROOF_SOLVERS = ("cadical103", "cadical153", "cadical195", "cadical300", "glucose3",
                 "glucose4", "glucose42", "lingeling", "maplechrono", "maplecm", "maplesat")


def check_solver(name: str, proof: bool = False) -> str:
    """The canonical name of a python-sat solver this installation can run (with proofs when
    ``proof``), or a UserError: checked before any work or any result is touched."""
    solver = solver_name(name)
    _runnable(solver)
    if proof and solver not in PROOF_SOLVERS:
        raise UserError(f"solver {solver} cannot write proofs in python-sat "
                        f"(use one of: {', '.join(PROOF_SOLVERS)})")
    return solver


def _runnable(solver: str) -> None:
    """A UserError when python-sat knows the name but cannot make the solver here (e.g.
    ``cryptosat`` without the ``pycryptosat`` module, ``minisatgh`` in some builds)."""
    why = _cannot_make(solver)
    if why is not None:
        raise UserError(f"solver {solver} is not available in this python-sat installation "
                        f"({why})")


@functools.cache
def _cannot_make(solver: str) -> str | None:
    """Why python-sat cannot make ``solver`` here, or None when it can."""
    from pysat.solvers import NoSuchSolverError, Solver

    try:
        Solver(name=solver).delete()
    except (NoSuchSolverError, ImportError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def solver_name(name: str) -> str:
    """The canonical python-sat name of a solver or one of its aliases (``kissat`` ->
    ``kissat404``), or a UserError listing the solvers this installation can run."""
    from pysat.solvers import SolverNames

    for canonical, aliases in vars(SolverNames).items():
        if not canonical.startswith("_") and (name == canonical or name in aliases):
            return canonical
    raise UserError(f"unknown solver {name!r} (python-sat solvers here: "
                    f"{', '.join(runnable_solvers())})")


def runnable_solvers() -> list[str]:
    """The canonical names of the python-sat solvers this installation can make."""
    from pysat.solvers import SolverNames

    return sorted(k for k in vars(SolverNames) if not k.startswith("_") and _cannot_make(k) is None)


@dataclass
class SolveResult:
    """A client's run: its status (SAT, UNSAT, UNKNOWN; OPTIMUM for MaxSAT), its answer as its
    track's competition prints it, the CPU ``seconds`` (the solver's own: a python-sat
    ``solve()`` call, a binary's process group), the ``wall`` seconds beside them and what
    ended the run (:data:`~puzzlesat.validate.runs.limits.ENDINGS`)."""

    status: str
    solver: str
    seconds: float
    answer: bytes = UNKNOWN_ANSWER
    proof: list[str] | None = None  # python-sat's text lines (an external solver's proof
    # goes straight to its file)
    notes: list[str] = field(default_factory=list)
    wall: float = 0.0
    ended_by: str = SOLVER

    @property
    def exit_code(self) -> int:
        """The status as the competition's exit code (10, 20, 30 OPTIMUM FOUND, 0)."""
        return EXIT[self.status]

    def output(self, seconds: bool = False) -> bytes:
        """Our ``c`` lines (the solver, the notes; with ``seconds`` the CPU and wall time),
        then the answer byte for byte."""
        # each on one line: a program or a note with a line break would add lines of its own
        lines = [f"c {' '.join(text.split())}" for text in [f"solver: {self.solver}",
                                                             *self.notes]]
        if seconds:
            lines.append(f"c time: {self.seconds:.3f}")
            lines.append(f"c wall-time: {self.wall:.3f}")
        return ("\n".join(lines) + "\n").encode("utf-8", "replace") + self.answer

    def text(self, seconds: bool = False) -> str:
        """:meth:`output` as text (bytes an external solver wrote that are not UTF-8 shown
        as U+FFFD)."""
        return self.output(seconds).decode("utf-8", "replace")

    def counted_within(self, limit: TimeLimit) -> SolveResult:
        """This run, an answer given after the CPU limit (between two polls of the solver's
        CPU) made UNKNOWN: it does not count."""
        if self.status != "UNKNOWN" and self.seconds > limit.cpu:
            self.notes.append(f"answered {self.status} after the CPU limit of "
                              f"{limit.cpu:g} s: not counted")
            self.status, self.ended_by, self.answer = "UNKNOWN", CPU_LIMIT, UNKNOWN_ANSWER
        return self


def clauses(flat: np.ndarray):
    """The clauses of a flat 0-terminated literal array, each a zero-copy slice of one
    ``memoryview`` (iterating it gives Python ints, which is all python-sat asks of a clause):
    no Python list per clause on the way to a solver."""
    view = memoryview(np.ascontiguousarray(flat, dtype=np.int32))  # type: ignore[arg-type]
    start = 0
    for end in np.flatnonzero(flat == 0).tolist():
        yield view[start:end]
        start = end + 1


@dataclass
class ChildAnswer:
    """What a solve run in a child gives (:func:`solve_with_pysat`, RC2, a counter): the
    answer, or the error that kept it from solving, and the CPU and wall seconds of the solve
    call alone; ``value`` is what else the answer holds (a MaxSAT cost, a model count) and
    ``kind`` what kind of answer it is (a counting instance's track)."""

    status: str | None
    model: np.ndarray | None = None
    proof: list[str] | None = None
    error: str | None = None
    cpu: float = 0.0
    wall: float = 0.0
    value: int | None = None
    kind: str = ""


def start_clock(cpu_limit: float | None, started) -> tuple[float, float]:
    """Right before a child solves: set this process's RLIMIT_CPU past ``cpu_limit`` (the
    kernel's backstop to the parent's watchdog; SIGXCPU), tell ``started``
    the CPU seconds spent before solving, and return the clock (CPU, wall) the solve call is
    timed from."""
    before = time.process_time()
    if cpu_limit is not None:
        resource.setrlimit(resource.RLIMIT_CPU, cpu_rlimit(cpu_limit, before))
    if started is not None:  # on the clock the parent polls (/proc), where it can
        started(process_cpu(os.getpid()) or before)
    return before, time.perf_counter()


def stop_clock(clock: tuple[float, float]) -> tuple[float, float]:
    """The CPU and wall seconds since :func:`start_clock` gave ``clock``."""
    return time.process_time() - clock[0], time.perf_counter() - clock[1]


def solve_with_pysat(source, solver: str, want_proof: bool, cpu_limit: float | None = None,
                     started=None) -> ChildAnswer:
    """Solve ``source`` = ``(flat literals, num_vars)`` with the python-sat ``solver`` in this
    process; the time counted is the ``solve()`` call's alone (set-up is not the solver's). With ``cpu_limit`` (in a child only) this process's RLIMIT_CPU is set just
    past the limit before solving, and ``started`` is told the CPU seconds spent before it."""
    from pysat.solvers import Solver

    flat, num_vars = source
    with Solver(name=solver, with_proof=want_proof) as s:
        s.append_formula(clauses(flat))
        clock = start_clock(cpu_limit, started)
        answer = s.solve()
        cpu, wall = stop_clock(clock)
        model = model_array(s.get_model() or [], num_vars) if answer else None
        proof = list(s.get_proof()) if want_proof and answer is False else None
    return ChildAnswer("SAT" if answer else "UNSAT", model, proof, None, cpu, wall)


def _child(conn, parent: int, solve, source, solver, want_proof, cpu_limit):
    detach_from_terminal_and_die_with(parent)
    conn.send(solve(source, solver, want_proof, cpu_limit,
                    lambda before: conn.send(("started", before))))
    conn.close()


def run_solver(source, solver: str = "cadical195", time_limit: TimeLimit | float | None = None,
               proof: bool = False) -> SolveResult:
    """Solve ``source`` = ``(flat literals, num_vars)`` with a python-sat solver (:func:`solve_with_pysat`). With ``time_limit`` the solver runs in a
    child, stopped once its ``solve()`` has used that many CPU seconds (or at the wall-clock
    backstop): status UNKNOWN; ``seconds`` are the solve call's CPU seconds, ``wall`` beside
    them."""
    solver = check_solver(solver, proof)
    if time_limit is None:
        answer, notes, ended = solve_with_pysat(source, solver, proof), [], SOLVER
    else:
        answer, notes, ended = solve_in_child(solve_with_pysat, source, solver, proof,
                                              TimeLimit.parse(time_limit))
    if answer.error:
        raise UserError(answer.error)
    status = answer.status or "UNKNOWN"
    return SolveResult(status, solver, answer.cpu, sat_text(status, answer.model),
                       answer.proof, notes, wall=answer.wall, ended_by=ended)


def solve_in_child(solve, source, solver: str, proof: bool, limit: TimeLimit):
    """``solve(source, solver, proof, cpu_limit, started)`` -> :class:`ChildAnswer`, run in a
    killable child (module docstring) until it answers, its solving passes ``limit.cpu`` CPU
    seconds or the run ``limit.wall``: (answer, notes, what ended the run). ``solve`` must be
    a module-level function (it reaches the child by its qualified name, looked up at each
    call) that calls :func:`start_clock` right before it solves."""
    ctx = multiprocessing.get_context("spawn")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(send, os.getpid(), solve, source,
                                             solver, proof, limit.cpu), daemon=True)
    # started here, not inside start(): starting it unblocks SIGINT in this thread, so a Ctrl-C
    # could kill the child before it leaves the terminal's process group, and start() then
    # waits for ever to hand it its data
    resource_tracker.ensure_running()
    try:  # a Ctrl-C held back across start() arrives as the mask is restored: kill the child
        with sigint_blocked():
            child.start()
        send.close()
        with running(child):
            return _watch(child, receive, limit)
    finally:
        if child.is_alive():
            child.kill()
        if child.pid is not None:
            child.join()
        send.close()
        receive.close()


def _watch(child, receive, limit: TimeLimit):
    """Wait for the child's answer, polling its CPU time once it has started solving: past
    ``limit.cpu`` CPU seconds of solving, or ``limit.wall`` wall seconds in all, it is
    killed. Returns (answer, notes, what ended the run)."""
    spawned = time.perf_counter()
    # the child's CPU seconds before solve(), and when it began
    before: float | None = None
    solving: float | None = None
    pause = 0.001
    while True:
        now = time.perf_counter()
        cpu = process_cpu(child.pid) if before is not None else None
        used = (cpu - before) if cpu is not None and before is not None else (
            now - solving if solving is not None else 0.0)
        if used >= limit.cpu or now - spawned >= limit.wall:
            child.kill()
            ended = CPU_LIMIT if used >= limit.cpu else WALL_LIMIT
            what = "CPU" if ended == CPU_LIMIT else "wall-clock backstop"
            seconds = limit.cpu if ended == CPU_LIMIT else limit.wall
            return (ChildAnswer("UNKNOWN", cpu=used, wall=now - (solving or spawned)),
                    [f"{what} limit of {seconds:g} s reached"], ended)
        if receive.poll(pause):
            try:
                message = receive.recv()
            except EOFError:  # the child died without answering (crash, out of memory)
                child.join()
                if child.exitcode == -signal.SIGXCPU:  # the kernel's backstop of the limit
                    return (ChildAnswer("UNKNOWN", cpu=max(used, limit.cpu),
                                        wall=time.perf_counter() - (solving or spawned)),
                            [f"CPU limit of {limit.cpu:g} s reached"], CPU_LIMIT)
                return (ChildAnswer("UNKNOWN", cpu=used,
                                    wall=time.perf_counter() - (solving or spawned)),
                        [f"solver process died (exit code {child.exitcode})"], SOLVER)
            if isinstance(message, tuple) and message[0] == "started":
                before, solving = message[1], time.perf_counter()
                continue
            return message, [], SOLVER
        pause = min(pause * 2, 0.05)


def write_proof(path: str | os.PathLike, proof: list[str] | None) -> None:
    """python-sat's text DRAT proof, one step per line; nothing at all when there is no proof
    (SAT, UNKNOWN, or an external solver's, already written), so no empty file stands for a
    proof that does not exist."""
    if proof is None:
        return
    atomic_write(path, "".join(line + "\n" for line in proof).encode("ascii"))



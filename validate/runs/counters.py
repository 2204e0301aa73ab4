"""Model counters as clients: Ganak (exact, ``pyganak``) and ApproxMC (approximate,
``pyapproxmc``) on a counting instance, with its projection, in a child process killed at the
time limit (:func:`~puzzlesat.validate.runs.solvers.solve_in_child`), printing the Model
Counting Competition's output.

Both are optional (``pip install 'puzzlesat[counters]'``); asking for one that is not installed
is a one-line error. An external counter binary runs through ``count --solver-command`` like
an external solver (:mod:`puzzlesat.validate.runs.command`): its stdout is the answer.
"""

from __future__ import annotations

import importlib.util
import math
import os
import re
from dataclasses import dataclass, field

from puzzlesat.generator.core.counting import read_projection
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.reader import read_dimacs
from puzzlesat.validate.runs.command import SolverCommand, run_command
from puzzlesat.validate.runs.limits import CPU_LIMIT, NO_LIMIT, SOLVER, TimeLimit
from puzzlesat.validate.runs.solvers import (
    ChildAnswer,
    clauses,
    solve_in_child,
    start_clock,
    stop_clock,
)

#: counter name -> (its Python module, exact?)
COUNTERS = {"ganak": ("pyganak", True), "approxmc": ("pyapproxmc", False)}
#: ApproxMC's tolerance and confidence, as we run it (its defaults)
EPSILON, DELTA = 0.8, 0.2
#: a seed is below this (ApproxMC's seed is 32 bits; the bindings take a negative seed, or a
#: larger one, without a word)
MAX_SEED = 2**32


def check_counter(name: str) -> str:
    """``name`` when it is a counter this installation can run, else a UserError."""
    if name not in COUNTERS:
        raise UserError(f"unknown counter {name!r} (counters: {', '.join(COUNTERS)})")
    module = COUNTERS[name][0]
    if importlib.util.find_spec(module) is None:
        raise UserError(f"counter {name} needs the {module} package: pip install "
                        f"'puzzlesat[counters]'")
    return name


@dataclass
class CountResult:
    counter: str
    seconds: float
    count: int | None  # None: no answer
    track: str
    exact: bool
    notes: list[str] = field(default_factory=list)
    wall: float = 0.0  # wall seconds beside the CPU ``seconds``
    ended_by: str = SOLVER  # what ended the run (validate.runs.limits.ENDINGS)

    def text(self) -> str:
        """The Model Counting Competition's output (``c`` lines, ``s``, ``c s`` lines)."""
        lines = [f"c counter: {self.counter}", *(f"c {' '.join(n.split())}" for n in self.notes),
                 f"c time: {self.seconds:.3f}"]
        if self.count is None:
            return "\n".join([*lines, "s UNKNOWN"]) + "\n"
        if not self.exact:
            lines.append(f"c epsilon: {EPSILON:g}")
        log10 = "-inf" if self.count == 0 else f"{math.log10(self.count):.6f}"
        kind = "exact" if self.exact else "approx"
        lines += [f"s {'SATISFIABLE' if self.count else 'UNSATISFIABLE'}",
                  f"c s type {self.track}", f"c s log10-estimate {log10}",
                  f"c s {kind} arb int {self.count}"]
        return "\n".join(lines) + "\n"

    @property
    def exit_code(self) -> int:
        """10 with a positive count, 20 with 0, 0 without an answer."""
        return 0 if self.count is None else 10 if self.count else 20


def count_models(source: tuple[str, int], counter: str, want_proof: bool,
                 cpu_limit: float | None = None, started=None) -> ChildAnswer:
    """The projected count of the counting instance ``source`` = (its path, a seed) by
    ``counter``, in this process (the time counted is the count call's alone; the counter's
    own output on stdout is silenced: the answer is ours to print). ``value``: the count."""
    path, seed = source
    try:
        dimacs = read_dimacs(path)
        projection = read_projection(dimacs.comments, dimacs.num_vars, str(path))
    except UserError as exc:
        return ChildAnswer(None, error=str(exc))
    if projection is None:
        return ChildAnswer(None, error=f"{path}: not a counting instance (no 'c t mc|pmc' line)")
    shown = projection.shown.tolist()
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1)
    os.dup2(devnull, 1)
    try:
        if counter == "ganak":
            import pyganak

            ganak = pyganak.Counter(seed=seed)
            num_vars = max(dimacs.num_vars, *shown, 0)
            if num_vars:
                ganak.new_vars(num_vars)
            for clause in clauses(dimacs.literals):
                ganak.add_clause(clause.tolist())
            ganak.set_sampling_set(shown)
            clock = start_clock(cpu_limit, started)
            count = int(ganak.count())
        else:
            import pyapproxmc

            approx = pyapproxmc.Counter(seed=seed, epsilon=EPSILON, delta=DELTA)
            for clause in clauses(dimacs.literals):
                approx.add_clause(clause.tolist())
            clock = start_clock(cpu_limit, started)
            cells, power = approx.count(shown)
            count = int(cells) * 2 ** int(power)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
    cpu, wall = stop_clock(clock)
    return ChildAnswer("SAT" if count else "UNSAT", cpu=cpu, wall=wall, value=count)


def run_counter(path: str | os.PathLike, counter: str = "ganak",
                time_limit: TimeLimit | float | None = None, seed: int = 1) -> CountResult:
    """Count the counting instance at ``path`` with ``counter`` over its projection; past
    ``time_limit`` (CPU seconds of counting; a wall-clock backstop) the child is killed (no
    answer). ``seed``: 0 to 2^32 - 1, else a UserError."""
    counter = check_counter(counter)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < MAX_SEED:
        raise UserError(f"--seed must be an integer from 0 to {MAX_SEED - 1}, got {seed!r}")
    limit = None if time_limit is None else TimeLimit.parse(time_limit)
    dimacs = read_dimacs(path)
    projection = read_projection(dimacs.comments, dimacs.num_vars, str(path))
    if projection is None:
        raise UserError(f"{path}: not a counting instance (no 'c t mc|pmc' line)")
    source = (str(path), seed)
    notes: list[str]
    if limit is None:
        answer, notes, ended = count_models(source, counter, False), [], SOLVER
    else:
        answer, notes, ended = solve_in_child(count_models, source, counter, False, limit)
    if answer.error:
        raise UserError(answer.error)
    count = answer.value if answer.status != "UNKNOWN" else None
    if count is not None and limit is not None and answer.cpu > limit.cpu:
        # given between two polls of the counter's CPU: not within the limit (as a solver's)
        notes.append(f"counted after the CPU limit of {limit.cpu:g} s: not counted")
        count, ended = None, CPU_LIMIT
    return CountResult(counter, answer.cpu, count, projection.track, COUNTERS[counter][1],
                       [f"counter: {note}" for note in notes], answer.wall, ended)


def run_counter_command(command: SolverCommand, path: str | os.PathLike,
                        time_limit: TimeLimit | float | None = None) -> tuple[bytes, int]:
    """Run an external counter (``--solver-command``) on the counting instance at ``path``: its
    output after our ``c`` lines (its stdout byte for byte; nothing after ``s UNKNOWN`` when it
    was stopped), and the exit code to give (10 / 20 / 0, as the ``s`` line says)."""
    limit = None if time_limit is None else TimeLimit.parse(time_limit)
    command.check(limit)
    dimacs = read_dimacs(path)
    if read_projection(dimacs.comments, dimacs.num_vars, str(path)) is None:
        raise UserError(f"{path}: not a counting instance (no 'c t mc|pmc' line)")
    run = run_command(command, path, limit or NO_LIMIT)
    head = [f"c counter: {command.name}", *(f"c {' '.join(n.split())}" for n in run.notes),
            f"c time: {run.seconds:.3f}"]
    body = run.stdout if run.stdout is not None else b"s UNKNOWN\n"
    status = re.search(rb"^s[ \t]+(SATISFIABLE|UNSATISFIABLE)[ \t]*\r?$", body, re.M)
    code = 0 if status is None else 10 if status.group(1) == b"SATISFIABLE" else 20
    return ("\n".join(head) + "\n").encode("utf-8", "replace") + body, code

"""The model-counting track's clients: Ganak (exact, ``pyganak``) and ApproxMC (approximate,
``pyapproxmc``) over the instance's projection, each in a killable child with a CPU limit
(:func:`~puzzlesat.validate.runs.solvers.solve_in_child`), printing the Model Counting
Competition's output; and any counter binary through ``--solver-command`` (its stdout is the
answer).

Both counters are optional (``pip install 'puzzlesat[counters]'``); asking for one that is not
installed is a one-line error.
"""

from __future__ import annotations

import importlib.util
import os

from puzzlesat.generator.core.counting import read_projection
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.reader import parse_dimacs
from puzzlesat.generator.tracks import get_track as generator_track
from puzzlesat.validate.answers import COUNT_BOUND, DELTA, EPSILON, count_status, count_text
from puzzlesat.validate.runs.command import SolverCommand, command_result
from puzzlesat.validate.runs.limits import TimeLimit
from puzzlesat.validate.runs.solvers import (
    ChildAnswer,
    SolveResult,
    clauses,
    solve_in_child,
    start_clock,
    stop_clock,
)

#: counter name -> (its Python module, exact?)
COUNTERS = {"ganak": ("pyganak", True), "approxmc": ("pyapproxmc", False)}
DEFAULT = "ganak"
STATUSES = ("SAT", "UNSAT", "UNKNOWN")
#: ``calibrate --recheck``'s clients: none, its rules have no speed margin
RECHECK: tuple[str, ...] = ()
CALIBRATION = ("ganak:300",)
#: ``tune``'s band: counts Ganak does not give within 10 s (times the margin), but within 300
EASY = ("ganak:10",)
REFERENCE = "ganak:300"
#: a seed is below this (ApproxMC's seed is 32 bits; the bindings take a negative seed, or a
#: larger one, without a word)
MAX_SEED = 2**32


def canonical(name: str) -> str | None:
    """``name`` when it is a counter's, else None."""
    return name if name in COUNTERS else None


def names() -> list[str]:
    """The counters puzzlesat runs."""
    return list(COUNTERS)


def check(name: str, proof: bool = False) -> str:
    """``name`` when it is a counter this installation can run, else a UserError."""
    if name not in COUNTERS:
        raise UserError(f"unknown counter {name!r} (counters: {', '.join(COUNTERS)})")
    if proof:
        raise UserError("--proof: a count comes without a proof")
    module = COUNTERS[name][0]
    if importlib.util.find_spec(module) is None:
        raise UserError(f"counter {name} needs the {module} package: pip install "
                        f"'puzzlesat[counters]'")
    return name


def count_models(source: tuple, counter: str, want_proof: bool, cpu_limit: float | None = None,
                 started=None) -> ChildAnswer:
    """The projected count of the counting instance of ``source`` = (its path or text, a
    seed) by ``counter``, in this process (the time counted is the count call's alone; the
    counter's own output on stdout is silenced: the answer is ours to print). ``value``: the
    count; ``model`` unused."""
    where, seed = source
    try:
        dimacs = parse_dimacs(where, "instance") if isinstance(where, bytes) else \
            generator_track("mc").read(where)
        projection = read_projection(dimacs.comments, dimacs.num_vars, "instance")
    except UserError as exc:
        return ChildAnswer(None, error=str(exc))
    if projection is None:
        return ChildAnswer(None, error="not a counting instance (no 'c t mc|pmc' line)")
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
    return ChildAnswer("SAT" if count else "UNSAT", cpu=cpu, wall=wall, value=count,
                       kind=projection.type)


def run(name: str, source, limit: TimeLimit, proof_to=None, seed: int | None = None
        ) -> SolveResult:
    """Count the counting instance ``source`` (a path, or the instance's text) with the
    counter ``name`` over its projection; past ``limit`` (CPU seconds of counting; a
    wall-clock backstop) the child is killed (no answer). ``seed``: 0 to 2^32 - 1 (default
    1)."""
    counter = check(name, proof_to is not None)
    seed = 1 if seed is None else seed
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < MAX_SEED:
        raise UserError(f"--seed must be an integer from 0 to {MAX_SEED - 1}, got {seed!r}")
    answer, notes, ended = solve_in_child(count_models, (_text_or_path(source), seed), counter,
                                          False, limit)
    if answer.error:
        raise UserError(answer.error)
    count = answer.value if answer.status not in (None, "UNKNOWN") else None
    exact = COUNTERS[counter][1]
    status = "UNKNOWN" if count is None else "SAT" if count else "UNSAT"
    return SolveResult(status, counter, answer.cpu, count_text(count, answer.kind, exact),
                       notes=[f"counter: {note}" for note in notes], wall=answer.wall,
                       ended_by=ended).counted_within(limit)


def run_external(command: SolverCommand, source, limit: TimeLimit, proof_to=None,
                 seed: int | None = None) -> SolveResult:
    """Run an external counter (``--solver-command``) on the counting instance ``source``:
    its stdout is the answer, read as the Model Counting Competition's (its ``s`` line)."""
    if seed is not None:
        raise UserError("--seed: an external counter takes its seed on its own command line")
    if proof_to is not None:
        raise UserError("--proof: a count comes without a proof")
    text = [source] if isinstance(source, bytes) else generator_track("mc").text_pieces(source)
    return command_result(command, text, limit, count_status, COUNT_BOUND)


def _text_or_path(source):
    """What a counter's child reads: the instance's path, or its text."""
    return str(source) if isinstance(source, (str, os.PathLike)) else bytes(source)


def source(formula) -> bytes:
    """What :func:`run` takes of a counting formula built in memory: its text (the ``c t`` and
    ``c p show`` lines included)."""
    track = generator_track("mc")
    return track.head(formula, None) + track.body(formula)

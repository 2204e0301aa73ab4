"""The MaxSAT track's clients: RC2 (``pysat.examples.rc2``, the reference MaxSAT solver) run in
a killable child with a CPU limit on the time of its ``compute()``
(:func:`~puzzlesat.validate.runs.solvers.solve_in_child`), printing MaxSAT Evaluation output
(``o COST``, ``s OPTIMUM FOUND`` or ``UNSATISFIABLE``, or ``UNKNOWN`` past the limit, and one
``v`` line of 0/1 characters); and any MaxSAT binary through ``--solver-command`` on the plain
``.wcnf``."""

from __future__ import annotations

import os

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.wcnf import parse_wcnf
from puzzlesat.generator.tracks import get_track as generator_track
from puzzlesat.validate.answers import maxsat_bound, maxsat_status, maxsat_text
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

REFERENCE_SOLVER = "rc2"
DEFAULT = REFERENCE_SOLVER
STATUSES = ("OPTIMUM", "SAT", "UNSAT", "UNKNOWN")
#: ``calibrate --recheck``'s clients: none, its rules have no speed margin
RECHECK: tuple[str, ...] = ()
CALIBRATION = ("rc2:300",)
#: ``tune``'s band: optima RC2 does not find within 10 s (times the margin), but within 300
EASY = ("rc2:10",)
REFERENCE = "rc2:300"


def canonical(name: str) -> str | None:
    """``rc2`` for RC2, else None."""
    return name if name == REFERENCE_SOLVER else None


def names() -> list[str]:
    """The MaxSAT solvers puzzlesat runs."""
    return [REFERENCE_SOLVER]


def check(name: str, proof: bool = False) -> str:
    """``rc2``, or a UserError."""
    if name != REFERENCE_SOLVER:
        raise UserError(f"unknown MaxSAT solver {name!r} (MaxSAT solvers: {REFERENCE_SOLVER}; "
                        "any other through --solver-command)")
    if proof:
        raise UserError("--proof: a MaxSAT answer comes without a proof")
    return name


def solve_with_rc2(source, solver: str, want_proof: bool, cpu_limit: float | None = None,
                   started=None) -> ChildAnswer:
    """Read the WCNF ``source`` (its path, or its text) and solve it with RC2 in this process
    (the time counted is ``compute()``'s alone): the answer, its model and its cost
    (``value``)."""
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    from puzzlesat.generator.core.cnf import model_array

    try:
        wcnf = parse_wcnf(source, "instance") if isinstance(source, bytes) else \
            generator_track("maxsat").read(source)
    except UserError as exc:
        return ChildAnswer(None, error=str(exc))
    formula = WCNF()
    formula.extend(clauses(wcnf.hard))
    formula.extend(clauses(wcnf.soft), weights=[int(w) for w in wcnf.weights.tolist()])
    with RC2(formula) as rc2:
        clock = start_clock(cpu_limit, started)
        found = rc2.compute()
        cpu, wall = stop_clock(clock)
        if found is None:
            return ChildAnswer("UNSAT", cpu=cpu, wall=wall)
        return ChildAnswer("OPTIMUM", model_array(found, wcnf.num_vars), cpu=cpu, wall=wall,
                           value=int(rc2.cost))


def run(name: str, source, limit: TimeLimit, proof_to=None, seed: int | None = None
        ) -> SolveResult:
    """RC2 on a WCNF instance (a path, or its text) in a killable child; past ``limit``
    (CPU seconds of ``compute()``, a wall-clock backstop): UNKNOWN."""
    check(name, proof_to is not None)
    _no_seed(seed)
    where = str(source) if isinstance(source, (str, os.PathLike)) else bytes(source)
    answer, notes, ended = solve_in_child(solve_with_rc2, where, REFERENCE_SOLVER, False, limit)
    if answer.error:
        raise UserError(answer.error)
    status = answer.status or "UNKNOWN"
    return SolveResult(status, REFERENCE_SOLVER, answer.cpu,
                       maxsat_text(status, answer.model, answer.value), notes=notes,
                       wall=answer.wall, ended_by=ended).counted_within(limit)


def run_external(command: SolverCommand, source, limit: TimeLimit, proof_to=None,
                 seed: int | None = None) -> SolveResult:
    """Run an external MaxSAT solver on the plain ``.wcnf`` of ``source``; its stdout is the
    answer, read as the MaxSAT Evaluation's."""
    _no_seed(seed)
    if proof_to is not None:
        raise UserError("--proof: a MaxSAT answer comes without a proof")
    # a v line holds a character per variable, fewer than the instance has bytes of text
    if isinstance(source, bytes):
        text, size = [source], len(source)
    else:
        track = generator_track("maxsat")
        text, size = track.text_pieces(source), track.text_limit(source)
    return command_result(command, text, limit, maxsat_status, maxsat_bound(size),
                          suffix="wcnf")


def _no_seed(seed: int | None) -> None:
    if seed is not None:
        raise UserError("--seed: RC2 takes no seed")


def source(formula) -> bytes:
    """What :func:`run` takes of a WCNF built in memory: its text."""
    track = generator_track("maxsat")
    return track.head(formula, None) + track.body(formula)

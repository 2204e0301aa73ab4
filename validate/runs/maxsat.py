"""The reference MaxSAT client: RC2 (python-sat's ``pysat.examples.rc2``, Ignatiev, Morgado
and Marques-Silva, JSAT 2019) on a WCNF instance, in the same killable child as the SAT
solvers (:func:`~puzzlesat.validate.runs.solvers.solve_in_child`), printing MaxSAT Evaluation
output: ``c`` lines, ``o COST``, ``s OPTIMUM FOUND`` (or ``UNSATISFIABLE``, or ``UNKNOWN`` past
the time limit) and one ``v`` line of 0/1 characters for variables 1..V; exit code 30 / 20 / 0.
An external MaxSAT binary runs through ``--solver-command`` as a SAT solver does.
"""

from __future__ import annotations

import os

import numpy as np

from puzzlesat.generator.core.cnf import model_array
from puzzlesat.generator.core.errors import UserError
from puzzlesat.validate.runs.limits import NO_LIMIT, TimeLimit
from puzzlesat.validate.runs.solvers import (
    ChildAnswer,
    SolveResult,
    clauses,
    solve_in_child,
    start_clock,
    stop_clock,
)

REFERENCE = "rc2"


def solve_with_rc2(source, solver: str, want_proof: bool, cpu_limit: float | None = None,
                   started=None) -> ChildAnswer:
    """Read the WCNF at ``source`` and solve it with RC2 in this process (the time counted is
    ``compute()``'s alone): the answer, its model and its cost (``value``)."""
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    from puzzlesat.generator.core.wcnf_reader import read_wcnf

    try:
        wcnf = read_wcnf(source)
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


def maxsat_text(status: str, model: np.ndarray | None, cost: int | None) -> bytes:
    """MaxSAT Evaluation output lines for an answer (after the caller's ``c`` lines)."""
    words = {"OPTIMUM": "OPTIMUM FOUND", "SAT": "SATISFIABLE", "UNSAT": "UNSATISFIABLE",
             "UNKNOWN": "UNKNOWN"}
    lines = [] if cost is None else [f"o {cost}"]
    lines.append(f"s {words[status]}")
    if model is not None:
        lines.append("v " + (model[1:].astype(np.uint8) + ord("0")).tobytes().decode("ascii"))
    return ("\n".join(lines) + "\n").encode("ascii")


def run_rc2(instance: str | os.PathLike, time_limit: TimeLimit | float | None = None
            ) -> SolveResult:
    """RC2 on a WCNF instance in a killable child; past ``time_limit`` (CPU seconds of
    ``compute()``, a wall-clock backstop): UNKNOWN."""
    answer, notes, ended = solve_in_child(solve_with_rc2, instance, REFERENCE, False,
                                          TimeLimit.parse(time_limit) if time_limit else NO_LIMIT)
    if answer.error:
        raise UserError(answer.error)
    status = answer.status or "UNKNOWN"
    return SolveResult(status, REFERENCE, answer.cpu, notes=notes, wall=answer.wall,
                       ended_by=ended, stdout=maxsat_text(status, answer.model, answer.value))

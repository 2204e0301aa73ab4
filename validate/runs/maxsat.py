"""The reference MaxSAT client: RC2 (python-sat's ``pysat.examples.rc2``, Ignatiev, Morgado
and Marques-Silva, JSAT 2019) on a WCNF instance, in the same killable child as the SAT
solvers (:func:`~puzzlesat.validate.runs.solvers.solve_in_child`), printing MaxSAT Evaluation
output: ``c`` lines, ``o COST``, ``s OPTIMUM FOUND`` (or ``UNSATISFIABLE``, or ``UNKNOWN`` past
the time limit) and one ``v`` line of 0/1 characters for variables 1..V; exit code 30 / 20 / 0.
An external MaxSAT binary runs through ``--solver-command`` as a SAT solver does.
"""

from __future__ import annotations

import os
import time

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.validate.runs.solvers import MAX_TIME_LIMIT, SolveResult, solve_in_child

REFERENCE = "rc2"


def solve_with_rc2(source, solver: str, want_proof: bool):
    """Read the WCNF at ``source`` and solve it with RC2 in this process: (status, model,
    cost, error message)."""
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    from puzzlesat.generator.core.wcnf_reader import read_wcnf
    from puzzlesat.validate.runs.solvers import clause_lists

    try:
        wcnf = read_wcnf(source)
    except UserError as exc:
        return None, None, None, str(exc)
    formula = WCNF()
    formula.extend(clause_lists(wcnf.hard))
    formula.extend(clause_lists(wcnf.soft), weights=[int(w) for w in wcnf.weights.tolist()])
    with RC2(formula) as rc2:
        found = rc2.compute()
        if found is None:
            return "UNSAT", None, None, None
        model = np.zeros(wcnf.num_vars + 1, dtype=bool)
        given = np.asarray(found, dtype=np.int64)
        given = given[np.abs(given) <= wcnf.num_vars]
        model[given[given > 0]] = True
        return "OPTIMUM", model, int(rc2.cost), None


def maxsat_text(status: str, model: np.ndarray | None, cost: int | None) -> bytes:
    """MaxSAT Evaluation output lines for an answer (after the caller's ``c`` lines)."""
    words = {"OPTIMUM": "OPTIMUM FOUND", "SAT": "SATISFIABLE", "UNSAT": "UNSATISFIABLE",
             "UNKNOWN": "UNKNOWN"}
    lines = [] if cost is None else [f"o {cost}"]
    lines.append(f"s {words[status]}")
    if model is not None:
        lines.append("v " + (model[1:].astype(np.uint8) + ord("0")).tobytes().decode("ascii"))
    return ("\n".join(lines) + "\n").encode("ascii")


def run_rc2(instance: str | os.PathLike, time_limit: float | None = None) -> SolveResult:
    """RC2 on a WCNF instance in a killable child; past ``time_limit`` seconds: UNKNOWN."""
    start = time.perf_counter()
    status, model, cost, error, notes = solve_in_child(
        solve_with_rc2, instance, REFERENCE, False, time_limit or MAX_TIME_LIMIT)
    if error:
        raise UserError(error)
    return SolveResult(status, REFERENCE, time.perf_counter() - start, notes=notes,
                       stdout=maxsat_text(status, model, cost))


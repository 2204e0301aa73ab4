"""Counting by enumeration, certified: a solver lists the models projected onto the shown
variables, blocking each, and the final UNSAT is proved by a proof our DRAT checker verifies.

The certificate has two halves, both checked here: every model found satisfies every clause (so
each is a real model, and their projections are distinct because each was found after the ones
before were blocked); and the formula together with the blocking clauses of all of them is
refuted by a fresh solver run whose DRAT proof :func:`certify_unsat` checks (so there is no
other). Hence the count is exact without trusting the solver.

>>> from puzzlesat.generator.core.cnf import Formula
>>> f = Formula(); x = f.new_vars("x", 3); f.add("c", [[1, 2, 0], [-1, -2, 3]])
>>> count_by_enumeration(f, np.array([1, 2]), 10)
Count(value=3, source='enumeration:cadical195+puzzlesat-drat')
"""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.core.cnf import Formula, model_array
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.families.counting import Count
from puzzlesat.validate.runs.certify import certify_unsat

SOLVER = "cadical195"


def enumerate_projections(formula: Formula, shown: np.ndarray, limit: int) -> list[np.ndarray]:
    """Up to ``limit + 1`` models (bool arrays indexed by variable) whose projections onto
    ``shown`` are pairwise distinct, each found after blocking the ones before; fewer when there
    are no more. Every model is checked against every clause."""
    from pysat.solvers import Solver

    shown = np.asarray(shown, dtype=np.int64)
    flat = formula.flat_literals()
    models: list[np.ndarray] = []
    with Solver(name=SOLVER, bootstrap_with=formula.iter_clauses()) as solver:
        while len(models) <= limit and solver.solve():
            model = model_array(solver.get_model(), formula.num_vars)
            if not satisfies(flat, model):
                raise UserError(f"{SOLVER} gave a model that falsifies a clause")
            models.append(model)
            if not shown.size:
                break  # one empty projection: nothing left to block
            solver.add_clause(blocking_clause(model, shown).tolist())
    return models


def count_by_enumeration(formula: Formula, shown: np.ndarray, limit: int) -> Count:
    """The number of models projected onto ``shown``, certified (see the module docstring);
    Count(None, ...) when there are more than ``limit``."""
    models = enumerate_projections(formula, shown, limit)
    if len(models) > limit:
        return Count(None, f"none (more than {limit:,} models to enumerate)")
    blocked = Formula()
    blocked.num_vars = formula.num_vars
    blocked.blocks = list(formula.blocks)
    if models and np.asarray(shown).size:
        blocked.add("blocking", np.stack([blocking_clause(m, shown) for m in models]))
    elif models:  # nothing shown: one projection, and the count is 1 without a proof
        return Count(1, f"enumeration:{SOLVER}")
    how = certify_unsat(blocked, SOLVER)
    if how is None:
        raise UserError("enumeration: the formula with every model blocked is not UNSAT")
    return Count(len(models), "enumeration:" + how.removeprefix("certified:"))


def blocking_clause(model: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """The clause that excludes exactly the projection of ``model`` onto ``shown``."""
    shown = np.asarray(shown, dtype=np.int64)
    return np.where(model[shown], -shown, shown).astype(np.int32)


def satisfies(flat: np.ndarray, model: np.ndarray) -> bool:
    """Does ``model`` make a literal of every clause of ``flat`` (0-terminated) true?"""
    if not flat.size:
        return True
    ends = np.flatnonzero(flat == 0)
    value = np.where(flat > 0, model[np.abs(flat)], ~model[np.abs(flat)]) & (flat != 0)
    clause = np.repeat(np.arange(ends.size), np.diff(np.concatenate([[-1], ends])))
    return bool((np.bincount(clause, weights=value, minlength=ends.size) > 0).all())

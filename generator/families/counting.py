"""What the families' counting modules (``<family>/count.py``) share: the :class:`Count` they
give, and certified counting by enumeration. Their contract is the counting track's
(:mod:`puzzlesat.generator.tracks.mc`).

Counting by enumeration is certified: a solver lists the models projected onto the shown
variables, blocking each; every model found is checked against every clause here (so each is a
real model, and their projections are distinct because each was found after the ones before
were blocked), and the formula with the blocking clauses of all of them is refuted by a proof
that ``solving`` checks (so there is no other). The count is exact without trusting the solver.
``solving`` (:class:`~puzzlesat.generator.core.solving.Solving`) is passed in by the caller, so
that making instances never imports the validator.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.solving import Solving


@dataclass(frozen=True)
class Count:
    """A known projected count (None when unknown) and where it comes from."""

    value: int | None
    source: str


def count_by_enumeration(formula: Formula, shown: np.ndarray, limit: int,
                         solving: Solving) -> Count:
    """The number of models of ``formula`` projected onto ``shown``, certified (see the module
    docstring); Count(None, ...) when there are more than ``limit``."""
    shown = np.asarray(shown, dtype=np.int64)
    flat = formula.flat_literals()
    blocks: list[np.ndarray] = []
    with solving.incremental(formula) as solver:
        while len(blocks) <= limit:
            model = solver.solve()
            if model is None:
                break
            if not satisfies(flat, model):
                raise UserError(f"{solving.solver} gave a model that falsifies a clause")
            if not shown.size:  # one empty projection: the count is 1, nothing to block
                return Count(1, f"enumeration:{solving.solver}")
            blocks.append(blocking_clause(model, shown))
            solver.add_clause(blocks[-1].tolist())
    if len(blocks) > limit:
        return Count(None, f"none (more than {limit:,} models to enumerate)")
    blocked = Formula()
    blocked.num_vars = formula.num_vars
    blocked.blocks = list(formula.blocks)
    if blocks:
        blocked.add("blocking", np.stack(blocks))
    how = solving.certify_unsat(blocked)
    if how is None:
        raise UserError("enumeration: the formula with every model blocked is not UNSAT")
    return Count(len(blocks), "enumeration:" + how.removeprefix("certified:"))


def blocking_clause(model: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """The clause that excludes exactly the projection of ``model`` onto ``shown``."""
    shown = np.asarray(shown, dtype=np.int64)
    return np.where(model[shown], -shown, shown).astype(np.int32)


def satisfies(flat: np.ndarray, model: np.ndarray) -> bool:
    """Does ``model`` make a literal of every clause of ``flat`` (0-terminated) true?

    >>> satisfies(np.array([1, -2, 0, 2, 0]), np.array([False, True, True]))
    True
    """
    if not flat.size:
        return True
    ends = np.flatnonzero(flat == 0)
    value = np.where(flat > 0, model[np.abs(flat)], ~model[np.abs(flat)]) & (flat != 0)
    clause = np.repeat(np.arange(ends.size), np.diff(np.concatenate([[-1], ends])))
    return bool((np.bincount(clause, weights=value, minlength=ends.size) > 0).all())

"""Counting Flow Free instances: the colourings of the grid that solve it.

The shown variables are each cell's colour ``x[cell, colour]``: a solution is the colour of every
cell. Everything else is auxiliary: the direction types ``y`` follow from the colours, and
``acyclic``'s rank bits and comparators are many per solution (a path's ranks need only
increase along it), so counting over all variables would multiply the count; the track is
``pmc``. Under ``acyclic`` the projected count is the number of solutions of the puzzle; under
``zucker`` and ``zucker-2x2`` it also counts the colourings whose paths leave stray cycles, which
the static encoding admits (they are models, not solutions), so it may be larger.

Known counts: a ``--unique`` grid under ``acyclic`` has one (the generator blocked the planted
colouring and every stray cycle until the solver said UNSAT); otherwise the models are
enumerated through the CNF, each blocked on the shown variables, and the final UNSAT is proved
with a checked DRAT proof (:func:`~puzzlesat.generator.families.counting.count_by_enumeration`), up to
:data:`ENUMERATION_LIMIT` models.
"""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.families.counting import Count, count_by_enumeration
from puzzlesat.generator.families.flow.puzzle import Puzzle

ENUMERATION_LIMIT = 10_000

#: what a count of this family counts and how it is certified, for the suite's description
STORY = (
    "A model is a colouring of the grid that solves the level: the count is projected (pmc) "
    "onto the cell colours, since the direction types follow from them and the acyclic "
    "encoding's rank bits are many per solution. The endpoints fix the colours, so no symmetry "
    "is left. A grid made with unique = true counts 1: the generator blocked the planted "
    "colouring and every stray cycle until the solver's UNSAT, whose DRAT proof our checker "
    "verified; other grids are counted by certified enumeration through the CNF (every model "
    "checked against every clause, the final UNSAT proved).")


def shown(puzzle: Puzzle, encoding: str, formula: Formula) -> np.ndarray:
    """Every cell's colour variables."""
    return formula.var("x").reshape(-1)


def known_count(puzzle: Puzzle, encoding: str, formula: Formula, shown: np.ndarray,
                solving: Solving | None) -> Count:
    """1 for a grid proved unique, under ``acyclic``; else the certified enumeration."""
    if puzzle.planted is not None and puzzle.attempts and encoding == "acyclic":
        return Count(1, f"unique:{puzzle.solver} (every other colouring and stray cycle blocked)")
    if solving is None:
        return Count(None, "none (no solver given to enumerate with)")
    return count_by_enumeration(formula, shown, ENUMERATION_LIMIT, solving)

"""Model counting for every family: what a family's ``count`` module keeps, and the registry.

A family's counting module (``<family>/count.py``) defines

``shown(puzzle, encoding, formula) -> np.ndarray``   the variables that name a solution of the
                   puzzle (the projection set): every other variable is auxiliary
``known_count(puzzle, encoding, formula, shown, enumerate) -> Count``   the number of models
                   of ``formula`` projected onto ``shown``, found without any model counter (an
                   exhaustive search over the puzzle's own moves or pieces, a uniqueness proof,
                   or ``enumerate``), with how it is known; ``Count(None, why)`` when it is not

``enumerate`` is an :data:`Enumerator`, passed in from outside the generator (the CLI passes
:func:`puzzlesat.validate.runs.enumerate.count_by_enumeration`) so that making instances never
imports the validator.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.families import FAMILY_MODULES


@dataclass(frozen=True)
class Count:
    """A known projected count (None when unknown) and where it comes from."""

    value: int | None
    source: str


#: the models of a formula projected onto the shown variables, counted by a solver with
#: blocking clauses and the final UNSAT proved by a checked proof, stopping past ``limit``
#: models: a Count (value None when the limit or the time ran out)
Enumerator = Callable[[Formula, np.ndarray, int], Count]


def count_module(family) -> ModuleType:
    """The counting module of ``family`` (a family module)."""
    folder = FAMILY_MODULES[family.NAME]
    return importlib.import_module(f"puzzlesat.generator.families.{folder}.count")

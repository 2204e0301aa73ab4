"""The solver services a family may need while it makes an instance: a checked UNSAT
certificate (flow's ``--certify``) and an incremental solver (flow's ``--unique``).

They are a protocol here and are passed in by the caller (the CLI, publish and verify pass
:class:`puzzlesat.validate.runs.certify.CheckedSolving`), so that making instances never
imports the validator or a solver library: one answer for every solver a generator runs.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

import numpy as np

from puzzlesat.generator.core.cnf import Formula


class IncrementalSolver(Protocol):
    """A solver holding a formula, to which clauses are added between calls."""

    def add_clause(self, clause: list[int]) -> None:
        """Add one clause (nonzero literals)."""

    def solve(self) -> np.ndarray | None:
        """A model (bool array indexed by variable, index 0 unused), or None when UNSAT."""


class Solving(Protocol):
    """The solver services a generator may ask for (see the module docstring)."""

    #: the solver's name, as an instance's ``expected-from`` quotes it
    solver: str

    def certify_unsat(self, formula: Formula) -> str | None:
        """How ``formula`` was proved UNSAT ("certified:<solver>+<checker>"), or None."""

    def incremental(self, formula: Formula) -> AbstractContextManager[IncrementalSolver]:
        """An incremental solver loaded with ``formula``, closed when the block ends."""

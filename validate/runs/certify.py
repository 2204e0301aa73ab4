"""The solver services generators are given (:class:`puzzlesat.generator.core.solving.Solving`):
certified UNSAT, where a python-sat solver refutes a formula and our DRAT checker verifies its
proof, and an incremental python-sat solver.

>>> from puzzlesat.generator.core.cnf import Formula
>>> f = Formula(); x = f.new_vars("x", 2)
>>> f.add("all sign patterns", [[1, 2], [1, -2], [-1, 2], [-1, -2]])
>>> certify_unsat(f)
'certified:cadical195+puzzlesat-drat'
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from puzzlesat.generator.core.cnf import Formula, model_array
from puzzlesat.generator.core.errors import UserError


def certify_unsat(formula: Formula, solver: str = "cadical195",
                  time_limit: float | None = None) -> str | None:
    """``"certified:<solver>+puzzlesat-drat"`` when ``solver`` refutes ``formula`` and our
    checker verifies its DRAT proof; None when the formula is SAT or the time limit is reached.
    A proof that does not check is a UserError (never trust the answer then)."""
    # here, not at the top: a generator that never asks for a certificate (every family but a
    # flow level file with --certify) does not pay for the checker's and python-sat's imports
    from puzzlesat.validate.proof.check import CHECKER, check_proof
    from puzzlesat.validate.runs.solvers import run_solver

    result = run_solver((formula.flat_literals(), formula.num_vars), solver, time_limit,
                        proof=True)
    if result.status != "UNSAT":
        return None
    lines = result.proof if isinstance(result.proof, list) else []  # python-sat gives lines
    text = "".join(line + "\n" for line in lines).encode()
    check = check_proof(formula.flat_literals(), formula.num_vars, text)
    if check.ok is None:
        raise UserError(f"cannot certify UNSAT: {check.reason}")
    if not check.ok:
        raise UserError(f"{result.solver}'s UNSAT proof does not check ({check.reason})")
    return f"certified:{result.solver}+{CHECKER}"


class _Incremental:
    """A python-sat solver seen as :class:`~puzzlesat.generator.core.solving.IncrementalSolver`."""

    def __init__(self, solver: Any, num_vars: int):
        self._solver, self._num_vars = solver, num_vars

    def add_clause(self, clause: list[int]) -> None:
        """Add one clause."""
        self._solver.add_clause(clause)

    def solve(self) -> np.ndarray | None:
        """A model as a bool array (index 0 unused), or None when UNSAT."""
        if not self._solver.solve():
            return None
        return model_array(self._solver.get_model(), self._num_vars)


class CheckedSolving:
    """What the CLI, publish and verify hand the generator: ``solver`` (CaDiCaL by default) for
    incremental solving, and its UNSAT answers certified by our DRAT checker. Stateless, so it
    travels to worker processes."""

    def __init__(self, solver: str = "cadical195"):
        self.solver = solver

    def certify_unsat(self, formula: Formula) -> str | None:
        """See :func:`certify_unsat`."""
        return certify_unsat(formula, self.solver)

    @contextmanager
    def incremental(self, formula: Formula) -> Iterator[_Incremental]:
        """python-sat's ``solver`` loaded with ``formula``."""
        from pysat.solvers import Solver  # here: only --unique solves incrementally

        with Solver(name=self.solver, bootstrap_with=formula.clauses()) as solver:
            yield _Incremental(solver, formula.num_vars)

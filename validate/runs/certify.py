"""Certified UNSAT for generators: a python-sat solver refutes a formula and our DRAT checker
verifies its proof.

>>> from puzzlesat.generator.core.cnf import Formula
>>> f = Formula(); x = f.new_vars("x", 2)
>>> f.add("all sign patterns", [[1, 2], [1, -2], [-1, 2], [-1, -2]])
>>> certify_unsat(f)
'certified:cadical195+puzzlesat-drat'
"""

from __future__ import annotations

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.errors import UserError
from puzzlesat.validate.proof.check import CHECKER, check_proof
from puzzlesat.validate.runs.solvers import run_solver


def certify_unsat(formula: Formula, solver: str = "cadical195",
                  time_limit: float | None = None) -> str | None:
    """``"certified:<solver>+puzzlesat-drat"`` when ``solver`` refutes ``formula`` and our
    checker verifies its DRAT proof; None when the formula is SAT or the time limit is reached.
    A proof that does not check is a UserError (never trust the answer then)."""
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

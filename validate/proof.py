"""UNSAT proofs: text DRAT/DRUP checked by ``drat-trim`` (when on PATH) or in Python by
``dratify`` (the optional extra ``proofs``), and :func:`certify_unsat` for generators.

DRAT (Wetzler, Heule, Hunt: "DRAT-trim: Efficient Checking and Trimming Using Expressive
Clausal Proofs", SAT 2014) is a list of added clauses, each RUP or RAT with respect to the
formula and the clauses before it, and deletions (``d`` lines); a proof is valid when the
empty clause is derived. Binary DRAT is recognised but only drat-trim reads it.

A check has three outcomes: verified, rejected (the solver is wrong: WRONG-PROOF), or could
not check (no checker for this proof: the answer stays UNSAT-UNCHECKED).

>>> from puzzlesat.generator.core.cnf import Formula
>>> f = Formula(); x = f.new_vars("x", 2)
>>> f.add("all sign patterns", [[1, 2], [1, -2], [-1, 2], [-1, -2]])
>>> certify_unsat(f)
'certified:cadical195+dratify'
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.dimacs import read_bytes
from puzzlesat.generator.core.errors import UserError
from puzzlesat.validate.runner import clause_lists, run_solver

#: bytes a text proof may hold; anything else marks a binary proof
_TEXT_BYTES = frozenset(b"0123456789-dc \t\r\n") | frozenset(range(0x20, 0x7F))


@dataclass
class ProofCheck:
    ok: bool | None  # True verified, False rejected, None could not be checked
    checker: str
    reason: str


def is_binary_proof(data: bytes) -> bool:
    """Binary DRAT starts steps with ``a``/``d`` bytes followed by variable-length numbers,
    which soon include bytes no text proof has (the test drat-trim uses, on a prefix)."""
    return any(b not in _TEXT_BYTES for b in data[:4096])


def check_proof(flat: np.ndarray, num_vars: int, proof: bytes,
                checker: str | None = None) -> ProofCheck:
    """Check ``proof`` against the clauses of ``flat`` (each ending in 0). ``checker`` is
    ``"drat-trim"``, ``"dratify"`` or None: drat-trim when on PATH, else dratify."""
    if checker is None:
        checker = "drat-trim" if shutil.which("drat-trim") else "dratify"
    if checker == "drat-trim":
        return _check_with_drat_trim(flat, num_vars, proof)
    if is_binary_proof(proof):
        return ProofCheck(None, "dratify", "binary DRAT proof: dratify reads text proofs only "
                                           "(run the solver with --no-binary, or install drat-trim)")
    return _check_with_dratify(flat, num_vars, proof.decode("ascii"))


def check_proof_file(flat: np.ndarray, num_vars: int, path: str | os.PathLike,
                     checker: str | None = None) -> ProofCheck:
    """:func:`check_proof` on a proof file (plain or compressed); unreadable = UserError."""
    return check_proof(flat, num_vars, read_bytes(path), checker)


def _dratify_formula(flat: np.ndarray, num_vars: int):
    import dratify

    cnf = dratify.CNF(num_vars)
    # dratify's internal literal: 2*(v-1) for v, 2*(v-1)+1 for -v (converted in one step)
    internal = 2 * (np.abs(flat.astype(np.int64)) - 1) + (flat < 0)
    ends = np.flatnonzero(flat == 0)
    for clause in np.split(internal, ends + 1)[:-1]:
        cnf.add(clause[:-1].tolist())
    return cnf


def _check_with_dratify(flat: np.ndarray, num_vars: int, text: str) -> ProofCheck:
    try:
        import dratify
    except ImportError:
        return ProofCheck(None, "dratify", "no proof checker: pip install 'puzzlesat[proofs]' "
                                           "(dratify) or put drat-trim on PATH")
    try:
        result = dratify.check_proof(_dratify_formula(flat, num_vars), text)
    except ValueError as exc:  # dratify names the line and token it could not read
        return ProofCheck(False, "dratify", f"proof does not parse: {exc}")
    if result.ok:
        return ProofCheck(True, "dratify", result.reason)
    where = ""
    if result.failed_clause is not None:
        lits = " ".join(str(dratify.to_dimacs(lit)) for lit in result.failed_clause)
        where = f" (step {result.failed_step}: {lits} 0)"
    return ProofCheck(False, "dratify", result.reason + where)


def _check_with_drat_trim(flat: np.ndarray, num_vars: int, proof: bytes) -> ProofCheck:
    clauses = clause_lists(flat)
    text = f"p cnf {num_vars} {len(clauses)}\n" + "".join(
        " ".join(map(str, c + [0])) + "\n" for c in clauses)
    with tempfile.TemporaryDirectory(prefix="puzzlesat-proof-") as tmp:
        cnf, drat = Path(tmp, "f.cnf"), Path(tmp, "f.drat")
        cnf.write_text(text)
        drat.write_bytes(proof)
        run = subprocess.run(["drat-trim", str(cnf), str(drat)], capture_output=True, text=True)
    said = [line for line in run.stdout.splitlines() if line.startswith("s ")]
    if said == ["s VERIFIED"]:
        return ProofCheck(True, "drat-trim", "s VERIFIED")
    if said:
        return ProofCheck(False, "drat-trim", said[-1])
    return ProofCheck(None, "drat-trim", f"drat-trim gave no verdict (exit {run.returncode})")


def certify_unsat(formula: Formula, solver: str = "cadical195",
                  time_limit: float | None = None) -> str | None:
    """``"certified:<solver>+dratify"`` when ``solver`` refutes ``formula`` and dratify
    verifies its DRAT proof; None when the formula is SAT or the time limit is reached.
    A proof that does not check is a UserError (never trust the answer then).

    Always dratify, never drat-trim even when it is installed: the string goes into instance
    headers, which must not depend on the machine."""
    result = run_solver((formula.flat_literals(), formula.num_vars), solver, time_limit,
                        proof=True)
    if result.status != "UNSAT":
        return None
    text = "".join(line + "\n" for line in result.proof or [])
    check = _check_with_dratify(formula.flat_literals(), formula.num_vars, text)
    if check.ok is None:
        raise UserError(f"cannot certify UNSAT: {check.reason}")
    if not check.ok:
        raise UserError(f"{result.solver}'s UNSAT proof does not check ({check.reason})")
    return f"certified:{result.solver}+dratify"

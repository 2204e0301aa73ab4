"""UNSAT proofs: DRAT/DRUP, text or binary, plain or compressed, checked by our own checker
(:mod:`puzzlesat.validate.proof.drat`).

DRAT (Wetzler, Heule, Hunt: "DRAT-trim: Efficient Checking and Trimming Using Expressive
Clausal Proofs", SAT 2014) is a list of added clauses, each RUP or RAT with respect to the
formula and the clauses before it, and deletions (``d`` steps); a proof is valid when the
empty clause is derived. The exact semantics checked, and why they are sound, are stated in
:mod:`puzzlesat.validate.proof.drat`.

Our checker is always the default, even where drat-trim is installed: its verdict must not depend
on the machine (it goes into instance headers and suite tables), it reads compressed proofs and
bounds what they expand to, and it is sound on the hostile proofs of tests/test_drat.py.
``checker="drat-trim"`` asks drat-trim instead (a referee, for tests and the benchmark).

A check has three outcomes: verified, rejected (the solver is wrong: WRONG-PROOF), or not
checked (no time left, or the referee said nothing: the answer stays UNSAT-UNCHECKED).

"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.reader import read_bytes
from puzzlesat.generator.core.writer import plain_dimacs

#: our checker's name in verdicts and in ``expected-from`` headers
CHECKER = "puzzlesat-drat"


@dataclass
class ProofCheck:
    ok: bool | None  # True verified, False rejected, None could not be checked
    checker: str
    reason: str


def check_proof(flat: np.ndarray, num_vars: int, proof: bytes, checker: str | None = None,
                time_limit: float | None = None) -> ProofCheck:
    """Check the proof ``proof`` (its bytes) against the clauses of ``flat`` (each ending in
    0). ``checker`` is None (ours) or ``"drat-trim"``; past ``time_limit`` seconds the proof
    is not checked (ok None)."""
    return _check(flat, num_vars, proof, checker, time_limit)


def check_proof_file(flat: np.ndarray, num_vars: int, path: str | os.PathLike,
                     checker: str | None = None, time_limit: float | None = None) -> ProofCheck:
    """:func:`check_proof` on a proof file (plain, .xz, .gz or .bz2); a file that cannot be
    read (missing, not a regular file) is a UserError."""
    return _check(flat, num_vars, path, checker, time_limit)


def _check(flat, num_vars, source, checker, time_limit) -> ProofCheck:
    if checker == "drat-trim":
        data = source if isinstance(source, bytes) else read_bytes(source)
        return _check_with_drat_trim(flat, num_vars, data, time_limit)
    if checker not in (None, CHECKER):
        raise UserError(f"unknown proof checker {checker!r} (choices: {CHECKER}, drat-trim)")
    from puzzlesat.validate.proof.drat import check_drat, load_kernels
    from puzzlesat.validate.proof.reader import ProofFormatError, read_proof

    deadline = None if time_limit is None else time.monotonic() + time_limit
    try:
        load_kernels()
        proof = read_proof(source, deadline, room=len(flat))
        ok, reason = check_drat(flat, proof, deadline=deadline)
    except ProofFormatError as exc:
        return ProofCheck(False, CHECKER, f"proof does not parse: {exc}")
    except TimeoutError:
        return ProofCheck(None, CHECKER, f"the proof was not checked in time (the proof time "
                                         f"limit is {time_limit:g} s)")
    except RuntimeError as exc:  # an invariant of the checker broke: never a verdict from it
        return ProofCheck(None, CHECKER, f"the checker failed ({exc}): a puzzlesat bug, "
                                         f"please report it with the proof")
    return ProofCheck(ok, CHECKER, reason)


def _check_with_drat_trim(flat: np.ndarray, num_vars: int, proof: bytes,
                          time_limit: float | None = None) -> ProofCheck:
    with tempfile.TemporaryDirectory(prefix="puzzlesat-proof-") as tmp:
        cnf, drat = Path(tmp, "f.cnf"), Path(tmp, "f.drat")
        with open(cnf, "wb") as out:
            plain_dimacs(flat, num_vars, out.write)
        drat.write_bytes(proof)
        if not shutil.which("drat-trim"):
            return ProofCheck(None, "drat-trim", "drat-trim is not on PATH")
        limit = [] if time_limit is None else ["-t", str(max(1, int(time_limit)))]
        try:
            run = subprocess.run(["drat-trim", str(cnf), str(drat), *limit], text=True,
                                 capture_output=True,
                                 timeout=None if time_limit is None else time_limit + 5)
        except subprocess.TimeoutExpired:
            return ProofCheck(None, "drat-trim", "the proof was not checked in time")
    said = [line for line in run.stdout.splitlines() if line.startswith("s ")]
    if said == ["s TIMEOUT"]:
        return ProofCheck(None, "drat-trim", "the proof was not checked in time (s TIMEOUT)")
    if said == ["s VERIFIED"]:
        return ProofCheck(True, "drat-trim", "s VERIFIED")
    if said:
        return ProofCheck(False, "drat-trim", said[-1])
    return ProofCheck(None, "drat-trim", f"drat-trim gave no verdict (exit {run.returncode})")

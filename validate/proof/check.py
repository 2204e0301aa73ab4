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

Every verified refutation is checked twice. The DRAT kernel writes, for the lemmas it checked,
an LRAT certificate with the hints its conflict analyses found
(:func:`puzzlesat.validate.proof.drat.verify_drat`); the small LRAT checker
(:mod:`puzzlesat.validate.proof.lrat_check`), which shares no code with the kernel, checks it
before the verdict is given, and so does ``cake_lpr`` (CakeML's formally verified LRAT checker)
where it is on PATH or named. Two checks that disagree are a checker failure (``failure``),
never a verdict. A proof named ``*.lrat`` (compressed or not: a solver's own LRAT, e.g.
CaDiCaL's ``--lrat``) is checked by the LRAT checker (and cake_lpr) alone.

A check has three outcomes: verified, rejected (the solver is wrong: WRONG-PROOF), or not
checked (no time left, or the referee said nothing: the answer stays UNSAT-UNCHECKED).

"""

from __future__ import annotations

import filecmp
import os
import shutil
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import scratch_folder
from puzzlesat.generator.core.inputs import check_replaceable
from puzzlesat.generator.core.reader import read_bytes

if TYPE_CHECKING:
    from puzzlesat.validate.proof.lrat import Certificate

#: our checker's name in verdicts and in ``expected-from`` headers
CHECKER = "puzzlesat-drat"
#: the small LRAT checker's name
LRAT_CHECKER = "puzzlesat-lrat"
#: the formally verified checker, in verdicts
CAKE_LPR = "cake_lpr (formally verified)"
#: cake_lpr is not run on variable numbers beyond this many per literal (plus 65,536)
_CAKE_LPR_VARIABLES_PER_LITERAL = 8


@dataclass
class ProofCheck:
    ok: bool | None  # True verified, False rejected, None could not be checked
    checker: str
    reason: str
    failure: str = ""  # the checks disagree: a checker failure (ok is then None)
    signed_by: list[str] = field(default_factory=list)  # who accepted it, the checker first
    notes: list[str] = field(default_factory=list)  # beside the verdict (a certificate not kept)


@dataclass
class LratRequest:
    """What to do with a verified proof's LRAT certificate: write it to ``path`` (text, or
    binary LRAT when ``binary``), and have ``cake_lpr`` (a path; None: the one on PATH, if
    any) check it. ``beside_output``: the path was made from the output's name
    (validate-suite --lrat), not named by the user, so a file already there that holds other
    bytes is not ours to replace (a solver's own LRAT proof, say): it is left as it is, and a
    certificate not kept is a note beside the verdict, never its end."""

    path: str | os.PathLike | None = None
    binary: bool = False
    cake_lpr: str | os.PathLike | None = None
    beside_output: bool = False


def check_proof(flat: np.ndarray, num_vars: int, proof: bytes, checker: str | None = None,
                time_limit: float | None = None, lrat: LratRequest | None = None,
                is_lrat: bool = False) -> ProofCheck:
    """Check the proof ``proof`` (its bytes; LRAT when ``is_lrat``) against the clauses of
    ``flat`` (each ending in 0). ``checker`` is None (ours) or ``"drat-trim"``; past
    ``time_limit`` seconds the proof is not checked (ok None); ``lrat`` says where the
    certificate goes and which cake_lpr checks it."""
    return _check(flat, num_vars, proof, checker, time_limit, lrat, is_lrat)


def check_proof_file(flat: np.ndarray, num_vars: int, path: str | os.PathLike,
                     checker: str | None = None, time_limit: float | None = None,
                     lrat: LratRequest | None = None) -> ProofCheck:
    """:func:`check_proof` on a proof file (plain, .xz, .gz or .bz2; LRAT when named
    ``*.lrat``); a file that cannot be read (missing, not a regular file) is a UserError."""
    return _check(flat, num_vars, path, checker, time_limit, lrat, is_lrat_name(path))


def is_lrat_name(path: str | os.PathLike) -> bool:
    """Is ``path`` named as an LRAT proof (``x.lrat``, ``x.lrat.xz``, ...)?"""
    return ".lrat" in Path(path).suffixes[-2:]


def _check(flat, num_vars, source, checker, time_limit, lrat, is_lrat) -> ProofCheck:
    if checker == "drat-trim":
        data = source if isinstance(source, bytes) else read_bytes(source)
        return _check_with_drat_trim(flat, num_vars, data, time_limit)
    if checker not in (None, CHECKER):
        raise UserError(f"unknown proof checker {checker!r} (choices: {CHECKER}, drat-trim)")
    lrat = lrat or LratRequest()
    cake_lpr = _cake_lpr(lrat.cake_lpr)
    deadline = None if time_limit is None else time.monotonic() + time_limit
    try:
        check, cert = (_check_lrat if is_lrat else _check_drat)(flat, source, deadline)
        if check.ok and cert is not None:
            if lrat.path is not None:
                check.notes.extend(_keep_certificate(cert, lrat,
                                                     int(np.count_nonzero(flat == 0))))
            if cake_lpr:
                check = _sign_with_cake_lpr(check, cake_lpr, flat, cert, deadline)
    except TimeoutError:
        return ProofCheck(None, CHECKER, f"the proof was not checked in time (the proof time "
                                         f"limit is {time_limit:g} s)")
    except RuntimeError as exc:  # an invariant of the checker broke: never a verdict from it
        return ProofCheck(None, CHECKER, f"the checker failed ({exc}): a puzzlesat bug, "
                                         f"please report it with the proof")
    return check


def _check_drat(flat, source, deadline) -> tuple[ProofCheck, Certificate | None]:
    """The DRAT kernel, then the LRAT checker on its certificate."""
    from puzzlesat.validate.proof.database import ClauseDatabase
    from puzzlesat.validate.proof.drat import verify_drat
    from puzzlesat.validate.proof.lrat_check import check_lrat
    from puzzlesat.validate.proof.reader import ProofFormatError, read_proof

    try:
        proof = read_proof(source, deadline, database=ClauseDatabase(flat, deadline))
        ok, reason, cert = verify_drat(flat, proof, deadline=deadline)
    except ProofFormatError as exc:
        return ProofCheck(False, CHECKER, f"proof does not parse: {exc}"), None
    if not ok:
        return ProofCheck(ok, CHECKER, reason), None
    assert cert is not None  # a verified backward check has one
    again, why = check_lrat(flat, cert, deadline)
    if not again:
        return ProofCheck(None, CHECKER, "the two checkers disagree", failure=(
            f"{CHECKER} verified the proof ({reason}), but {LRAT_CHECKER} rejects the LRAT "
            f"certificate it wrote: {why}")), None
    return ProofCheck(True, CHECKER, f"{reason}; its LRAT certificate ({cert.lemmas} "
                                     f"clauses) re-checked",
                      signed_by=[CHECKER, LRAT_CHECKER]), cert


def _check_lrat(flat, source, deadline) -> tuple[ProofCheck, Certificate | None]:
    """A solver's own LRAT proof, checked by the LRAT checker."""
    from puzzlesat.validate.proof.lrat import LratFormatError, read_lrat
    from puzzlesat.validate.proof.lrat_check import check_lrat

    try:
        cert = read_lrat(source, deadline)
    except LratFormatError as exc:
        return ProofCheck(False, LRAT_CHECKER, f"LRAT proof does not parse: {exc}"), None
    ok, why = check_lrat(flat, cert, deadline)
    return ProofCheck(ok, LRAT_CHECKER, why, signed_by=[LRAT_CHECKER] if ok else []), cert


def _keep_certificate(cert: Certificate, lrat: LratRequest, n_clauses: int) -> list[str]:
    """Write the certificate to ``lrat.path``; beside an output (see :class:`LratRequest`),
    the notes on why it was not kept, else a write that fails is a UserError."""
    from puzzlesat.validate.proof.lrat import write_lrat

    assert lrat.path is not None  # (called only when there is one)
    path = Path(lrat.path)
    if not lrat.beside_output:
        write_lrat(cert, path, n_clauses, lrat.binary)
        return []
    try:
        check_replaceable(path, "the LRAT certificate")
        if not path.exists():
            write_lrat(cert, path, n_clauses, lrat.binary)
            return []
        with scratch_folder("lrat") as tmp:
            write_lrat(cert, Path(tmp, path.name), n_clauses, lrat.binary)
            if filecmp.cmp(Path(tmp, path.name), path, shallow=False):
                return []  # this proof's certificate, kept by an earlier run
    except (UserError, OSError) as exc:
        return [f"LRAT certificate not kept: {exc}"]
    return [f"LRAT certificate not kept: {path} holds other bytes (not this proof's "
            f"certificate; left as it is)"]


def _cake_lpr(named: str | os.PathLike | None) -> str | None:
    """The cake_lpr to run: the one named (a UserError if it is no executable), else the one
    on PATH, else None."""
    if named is None:
        return shutil.which("cake_lpr")
    found = shutil.which(str(named))
    if not found:
        raise UserError(f"--cake-lpr {named}: not an executable file")
    return found


def _without_repeats(flat: np.ndarray) -> np.ndarray:
    """The clauses with each literal once (cake_lpr reads "-1 -1 0" as two literals, never a
    unit; the clause is the same, and so is its id)."""
    ends = flat == 0
    clause = np.cumsum(ends) - ends
    key = (clause.astype(np.int64) << 32) | (flat.astype(np.int64) & 0xFFFFFFFF)
    first = np.unique(key, return_index=True)[1]
    return flat[np.sort(first)]


def _sign_with_cake_lpr(check: ProofCheck, cake_lpr: str, flat, cert,
                        deadline) -> ProofCheck:
    """Run cake_lpr on the formula and the certificate (binary LRAT): its acceptance joins
    the verdict; a rejection is a checker failure; silence leaves the check as it was, with
    a note."""
    # imported here, as in _check_with_drat_trim: only a check that runs another checker as a
    # process needs them
    import subprocess

    from puzzlesat.generator.core.writer import plain_dimacs
    from puzzlesat.validate.proof.lrat import write_lrat

    used = max(int(np.abs(flat).max(initial=0)), int(np.abs(cert.lits).max(initial=0)))
    if used > _CAKE_LPR_VARIABLES_PER_LITERAL * (flat.shape[0] + cert.lits.shape[0]) + (1 << 16):
        # cake_lpr's arrays follow the variable numbers (and the p line's writer's table)
        return replace(check, reason=check.reason + f"; cake_lpr not run (variable {used} for "
                                                    f"{flat.shape[0]} literals)")
    left = None if deadline is None else max(deadline - time.monotonic(), 1.0)
    with scratch_folder("lrat") as tmp:
        cnf, proof = Path(tmp, "f.cnf"), Path(tmp, "f.lrat")
        with open(cnf, "wb") as out:
            plain_dimacs(_without_repeats(flat), used, out.write)
        write_lrat(cert, proof, int(np.count_nonzero(flat == 0)), binary=True)
        try:
            run = subprocess.run([cake_lpr, str(cnf), str(proof)], capture_output=True,
                                 text=True, timeout=left)
        except subprocess.TimeoutExpired:
            return replace(check, reason=check.reason + "; cake_lpr did not finish in time")
    said = [line.strip() for line in run.stdout.splitlines() if line.startswith("s ")]
    if said == ["s VERIFIED UNSAT"]:
        return replace(check, reason=check.reason + f"; {CAKE_LPR} accepts the LRAT",
                       signed_by=[*check.signed_by, CAKE_LPR])
    if run.returncode == 0 or said:
        return ProofCheck(None, check.checker, "the checkers disagree", failure=(
            f"{' and '.join(check.signed_by)} accepted the proof ({check.reason}), but "
            f"{CAKE_LPR} rejects its LRAT certificate: "
            f"{'; '.join(said or run.stderr.strip().splitlines()[-2:])}"))
    return replace(check, reason=check.reason + f"; cake_lpr gave no verdict (exit "
                                                f"{run.returncode})")


def _check_with_drat_trim(flat: np.ndarray, num_vars: int, proof: bytes,
                          time_limit: float | None = None) -> ProofCheck:
    import subprocess  # (here: see _sign_with_cake_lpr)

    from puzzlesat.generator.core.writer import plain_dimacs

    with scratch_folder("proof") as tmp:
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

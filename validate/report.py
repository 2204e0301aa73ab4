"""One verdict per (instance, solver output), down to the puzzle; suite-wide tables.

Verdicts, and the exit code of ``puzzlesat validate``:

=================  ====  ==============================================================
VERIFIED-SAT       0     every clause has a true literal among those the solver gave
VERIFIED-UNSAT     0     UNSAT with a proof the checker verified, or without a proof on an
                         instance whose header carries a certificate (``expected-from``
                         naming a family's counting argument) that holds for the header's
                         puzzle, when that puzzle encodes to exactly this CNF
UNSAT-UNCHECKED    1     UNSAT, no proof (or none that could be checked); not contradicted
                         by the instance's expected result
UNKNOWN            1     the solver gave no answer (``s UNKNOWN``, INDET, no ``s`` line)
WRONG-MODEL        3     the model falsifies clauses (the first ones are listed)
WRONG-ANSWER       3     UNSAT, no verified proof, on an instance known to be SAT
WRONG-PROOF        3     UNSAT with a proof the checker rejected
MALFORMED          3     the output cannot be read, or contradicts itself
=================  ====  ==============================================================

Exit code 4 (beating 3) is a **checker failure**: the proof checker verified an UNSAT proof
of an instance whose planted witness satisfies every clause. The solver's verdict is then
WRONG-ANSWER, and the checker, not the header, is what is wrong (defence in depth: a witness
that checks is evidence no proof can outweigh).

Exit code 2 is a user's mistake (an unreadable or malformed *instance*, a missing file).
A verified model is also decoded with the family named in the instance header, and the
family's ``check`` referees the puzzle rules: a model that satisfies the CNF but breaks the
puzzle (an encoding bug) is reported and makes the exit code 3. Evidence beats the header: a
verified model of an instance expected UNSAT (or a verified proof of one expected SAT) keeps
its VERIFIED verdict and a note says the header is wrong — except that an UNSAT claim on
an instance whose header puzzle yields a witness satisfying the CNF (the family's
``witness`` encoded by its ``assignment``) is WRONG-ANSWER whatever the proof says, and
whatever result the header expects (a header expecting UNSAT, or nothing, is then wrong). Without
such a witness (no header puzzle, a family that knows no solution, a witness that fails)
the expected SAT is a claim, not evidence, and a verified proof beats it. A verified model of an instance
whose certificate holds contradicts the certificate: the note says the encoding is wrong
(the decoded placement then breaks the puzzle's rules, which the referee reports, exit 3).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.inputs import (
    SMALL_INPUT,
    check_distinct,
    read_input,
)
from puzzlesat.generator.core.reader import Dimacs, read_dimacs
from puzzlesat.generator.core.structured import load_json
from puzzlesat.validate.model import (
    clause_at,
    clause_starts,
    falsified_by,
    falsified_clauses,
    full_model,
    given_literals,
)
from puzzlesat.validate.output import STATUSES, MalformedOutput, SolverOutput, read_output

#: MaxSAT answers add VERIFIED-OPTIMUM, VERIFIED-COST, OPTIMUM-UNCHECKED and WRONG-COST
#: (:mod:`puzzlesat.validate.maxsat`)
VERIFIED = ("VERIFIED-SAT", "VERIFIED-UNSAT", "VERIFIED-OPTIMUM", "VERIFIED-COST")
UNVERIFIED = ("UNSAT-UNCHECKED", "UNKNOWN", "OPTIMUM-UNCHECKED")
FAILED = ("WRONG-MODEL", "WRONG-ANSWER", "WRONG-PROOF", "MALFORMED", "WRONG-COST")
VERDICTS = VERIFIED + UNVERIFIED + FAILED
#: how many falsified clauses a WRONG-MODEL verdict lists
SHOWN_FALSIFIED = 5
#: the exit code of a checker failure: above the solver's failures (3)
CHECKER_FAILURE_EXIT = 4


@dataclass
class PuzzleReport:
    """The decoded solution and the family's own referee on it."""

    family: str
    encoding: str
    problems: list[str]  # the family's check(): [] = a valid solution
    solution: Any  # solution_to_json
    picture: str

    def line(self) -> str:
        """One line saying whether the decoded solution keeps the puzzle's rules."""
        head = f"puzzle ({self.family}, encoding {self.encoding}): "
        if not self.problems:
            return head + "solution passes the puzzle's rules"
        return head + f"INVALID: {'; '.join(self.problems)}"


@dataclass
class Verdict:
    verdict: str
    reason: str
    instance: str = ""
    output: str = ""
    name: str = ""  # the instance's name from its header
    claimed: str | None = None
    expected: str | None = None
    expected_from: str | None = None
    falsified: list[dict] = field(default_factory=list)
    puzzle: PuzzleReport | None = None
    puzzle_note: str = ""
    notes: list[str] = field(default_factory=list)
    time: float | None = None
    checker_failure: str = ""  # the proof checker verified a refuted proof (see the module doc)

    @property
    def failed(self) -> bool:
        """The solver is wrong, or the puzzle check caught an encoding bug."""
        return self.verdict in FAILED or bool(self.puzzle and self.puzzle.problems)

    @property
    def exit_code(self) -> int:
        """The process exit code this verdict asks for."""
        if self.checker_failure:
            return CHECKER_FAILURE_EXIT
        if self.failed:
            return 3
        return 0 if self.verdict in VERIFIED else 1

    def text(self) -> str:
        """The verdict for a person: the verdict line, then notes and puzzle check."""
        lines = [f"{self.verdict} {self.instance}: {self.reason}"]
        if self.checker_failure:
            lines.append(f"CHECKER FAILURE: {self.checker_failure}")
        lines += [f"  {note}" for note in self.notes]
        if self.puzzle is not None:
            lines.append(self.puzzle.line())
            if self.puzzle.picture:
                lines.append(self.puzzle.picture.rstrip("\n"))
        elif self.puzzle_note:
            lines.append(f"puzzle: {self.puzzle_note}")
        return "\n".join(lines) + "\n"

    def puzzle_cell(self) -> str:
        """The puzzle check for a table cell (empty when not checked)."""
        if self.puzzle is None:
            return ""
        return "ok" if not self.puzzle.problems else "invalid: " + "; ".join(self.puzzle.problems)

    def to_json(self) -> dict:
        """The verdict as JSON (None fields left out)."""
        out = {k: getattr(self, k) for k in ("verdict", "reason", "instance", "output", "name",
                                              "claimed", "expected", "expected_from",
                                              "falsified", "notes", "time",
                                              "checker_failure")}
        out["exit_code"] = self.exit_code
        out["puzzle"] = None if self.puzzle is None else {
            "family": self.puzzle.family, "encoding": self.puzzle.encoding,
            "valid": not self.puzzle.problems, "problems": self.puzzle.problems,
            "solution": self.puzzle.solution}
        out["puzzle_note"] = self.puzzle_note
        return out


# -- one (instance, output) -----------------------------------------------------------------
def judge(dimacs: Dimacs, output: SolverOutput | MalformedOutput,
          proof: str | os.PathLike | None = None, expected: str | None = None,
          witness: dict | None = None, proof_time_limit: float | None = None,
          lrat=None) -> Verdict:
    """The verdict on one parsed output (or the MalformedOutput it raised) for ``dimacs``.
    ``expected`` overrides the header's expected result; ``witness`` (a witness file's JSON)
    is evidence of SAT when it checks; a proof not checked within ``proof_time_limit``
    seconds leaves an UNSAT claim unchecked; ``lrat`` (a
    :class:`puzzlesat.validate.proof.check.LratRequest`) says where a verified proof's LRAT
    certificate goes and which cake_lpr checks it."""
    header = dimacs.header
    if expected is None and header.get("expected") in STATUSES:
        expected = header["expected"]
    base: dict[str, Any] = dict(name=str(header.get("instance", "")), expected=expected,
                expected_from=header.get("expected-from"))
    if isinstance(output, MalformedOutput):
        return Verdict("MALFORMED", str(output), **base)
    base["claimed"] = output.status
    base["time"] = output.time
    notes = list(output.warnings)
    if output.status == "SAT":
        assert output.literals is not None  # every parser gives a SAT answer its model
        verdict = _judge_model(dimacs, output.literals, **base)
    elif output.status == "UNSAT":
        verdict = _judge_unsat(dimacs, proof, witness, proof_time_limit, lrat, **base)
    else:
        verdict = Verdict("UNKNOWN", "the solver gave no answer", **base)
    verdict.notes = notes + verdict.notes
    return verdict


def _judge_model(dimacs: Dimacs, literals: np.ndarray, **base) -> Verdict:
    try:
        given = given_literals(literals, dimacs.num_vars)
    except MalformedOutput as exc:
        return Verdict("MALFORMED", str(exc), **base)
    bad = falsified_by(dimacs.literals, given)
    if bad.size:
        starts = clause_starts(dimacs.literals)
        shown: list[dict[str, Any]] = [
            {"clause": int(i) + 1, "literals": clause_at(dimacs.literals, starts, int(i))}
            for i in bad[:SHOWN_FALSIFIED]]
        first = ", ".join(f"clause {c['clause']} ({' '.join(map(str, c['literals']))} 0)"
                          for c in shown)
        return Verdict("WRONG-MODEL", f"{bad.size} of {dimacs.num_clauses} clauses falsified, "
                                      f"first: {first}", falsified=shown, **base)
    verdict = Verdict("VERIFIED-SAT", f"every clause has a true literal ({given.size} of "
                                      f"{dimacs.num_vars} variables given)", **base)
    if base["expected"] == "UNSAT":
        certified, why = certified_unsat(dimacs)
        verdict.notes.append(
            f"the header's certificate holds ({why}): a model of this CNF contradicts it, so "
            "the encoding is wrong" if certified else
            f"the header expects UNSAT ({base['expected_from']}): this model shows the header "
            "is wrong")
    verdict.puzzle, verdict.puzzle_note = decode_puzzle(dimacs, given)
    return verdict


def _signed(signers: list[str]) -> str:
    """Who verified a proof, for the verdict line."""
    head = f"proof verified by {signers[0]}"
    if signers[0] == "puzzlesat-drat":
        return head + f", its LRAT certificate by {' and '.join(signers[1:])}"
    return head + "".join(f" and {name}" for name in signers[1:])


def _judge_unsat(dimacs: Dimacs, proof, witness_json: dict | None,
                 proof_time_limit: float | None, lrat=None, **base) -> Verdict:
    # a witness that satisfies every clause is evidence whatever the header expects (a header
    # tampered to expect UNSAT, or expecting nothing, must not let a bad proof through)
    witness = planted_witness_checks(dimacs, witness_json)
    said = (f"the header expects {base['expected']} ({base['expected_from']})"
            if base["expected"] else "the header expects no result")
    notes = [f"{said}, yet {witness}: the header is wrong"] if (
        witness and base["expected"] != "SAT") else []
    if proof is not None:
        from puzzlesat.validate.proof.check import check_proof_file  # only for UNSAT with a proof

        check = check_proof_file(dimacs.literals, dimacs.num_vars, proof,
                                 time_limit=proof_time_limit, lrat=lrat)
        if check.failure:
            return Verdict("UNSAT-UNCHECKED", "the proof checkers disagree", notes=notes,
                           checker_failure=check.failure, **base)
        if check.ok and witness:
            return Verdict("WRONG-ANSWER", f"claims UNSAT, but {witness}", notes=notes, **base,
                           checker_failure=f"{check.checker} verified the UNSAT proof ("
                           f"{check.reason}), yet {witness}: the proof checker is unsound")
        if check.ok:
            verdict = Verdict("VERIFIED-UNSAT", _signed(check.signed_by or [check.checker]),
                              notes=check.notes, **base)
            if base["expected"] == "SAT":  # and no witness checks
                verdict.notes.append(f"the header expects SAT ({base['expected_from']}) "
                                     "without a witness that checks: this proof shows the "
                                     "header is wrong")
            return verdict
        if check.ok is False and not witness:
            return Verdict("WRONG-PROOF", f"{check.checker} rejected the proof: {check.reason}",
                           **base)
        notes.append(f"proof rejected by {check.checker}: {check.reason}" if check.ok is False
                     else f"proof not checked: {check.reason}")
    if base["expected"] == "UNSAT" and not witness:
        certified, why = certified_unsat(dimacs)
        if certified:
            given = "no proof" if proof is None else "proof not checked"
            return Verdict("VERIFIED-UNSAT", f"{given}; certified by the header: {why}",
                           notes=notes, **base)
        if why:
            notes.append(why)
    if witness or base["expected"] == "SAT":
        why = witness or f"the instance is SAT ({base['expected_from'] or 'expected'})"
        return Verdict("WRONG-ANSWER", f"claims UNSAT, but {why}", notes=notes, **base)
    why = "no proof" if proof is None else "proof not checked"
    if base["expected"] == "UNSAT":
        why += f"; consistent with the expected UNSAT ({base['expected_from']})"
    return Verdict("UNSAT-UNCHECKED", why, notes=notes, **base)


def planted_witness_checks(dimacs: Dimacs, witness: dict | None = None) -> str:
    """How the instance is known SAT: "the planted witness satisfies all N clauses" when a
    known solution of the header's puzzle — ``witness`` (a witness file's JSON, as
    ``generate --witness`` and ``publish`` write it) or else the family's own ``witness``
    of the header puzzle (edge-matching, sliding; a Flow header has no solution in it) —
    encodes (the family's ``assignment``) to a model of every clause; "" without such
    evidence."""
    if "family" not in dimacs.header:
        return ""
    try:
        family, puzzle, encoding = _header_puzzle(dimacs)
        if witness is not None and witness.get("family") == family.NAME:
            solution = family.solution_from_json(witness["solution"])
        else:
            solution = family.witness(puzzle)
        if solution is None:
            return ""
        model = np.asarray(family.assignment(puzzle, encoding, solution), dtype=bool)
    except (UserError, AttributeError, *_DECODE_ERRORS):  # a damaged witness is no evidence
        return ""
    if model.ndim != 1 or model.size != dimacs.num_vars + 1:
        return ""
    literals = np.where(model[1:], 1, -1) * np.arange(1, model.size)
    if falsified_clauses(dimacs.literals, dimacs.num_vars, literals).size:
        return ""
    return f"the planted witness satisfies all {dimacs.num_clauses} clauses"


def read_witness(path: str | os.PathLike | None) -> dict | None:
    """A witness file's JSON object, or None when there is none or it does not parse (then
    the header alone decides; a witness is evidence only when it checks)."""
    if path is None or not Path(path).is_file():
        return None
    try:
        data = load_json(read_input(path, SMALL_INPUT, "witness"), str(path))
    except UserError:
        return None
    return data if isinstance(data, dict) else None


def _header_puzzle(dimacs: Dimacs):
    """(family module, puzzle, encoding) of the header's puzzle, or a UserError
    (:func:`puzzlesat.generator.instance.puzzle_from_header`)."""
    # imported here: the families and the instance maker load only for an instance with a
    # puzzlesat header, never for a bare CNF's check
    from puzzlesat.generator.instance import puzzle_from_header

    return puzzle_from_header(dimacs.header, dimacs.num_vars, dimacs.num_clauses)


_DECODE_ERRORS = (IndexError, KeyError, ValueError, TypeError, OverflowError)


def certified_unsat(dimacs: Dimacs) -> tuple[bool, str]:
    """(True, why) when the header expects UNSAT from a certificate of its family that holds
    for the header's puzzle, and that puzzle encodes (header encoding) to this very CNF: same
    counts, same GBD hash. Otherwise (False, why not), why = "" when the header names no
    certificate. The argument is checked on the puzzle, never taken from the header's word."""
    header = dimacs.header
    source = header.get("expected-from")
    if header.get("expected") != "UNSAT" or not isinstance(source, str) \
            or "family" not in header:
        return False, ""
    try:
        family, puzzle, encoding = _header_puzzle(dimacs)
        found = family.check_certificate(puzzle, source)
    except UserError as exc:
        return False, f"certificate not checked: {exc}"
    except _DECODE_ERRORS as exc:
        return False, f"certificate not checked: {type(exc).__name__}: {exc}"
    if found is None:
        return False, ""
    holds, why = found
    if not holds:
        return False, f"the header's certificate does not hold: {why}"
    mismatch = header_mismatch(dimacs, family, puzzle, encoding)
    if mismatch:
        return False, (f"certificate {source} not applied: the header puzzle does not match "
                       f"the CNF ({mismatch})")
    return True, (f"{why}; the CNF is the {encoding} encoding of that puzzle (same counts and "
                  "GBD hash)")


def decode_puzzle(dimacs: Dimacs, given: np.ndarray) -> tuple[PuzzleReport | None, str]:
    """Decode the model of the ``given`` literals (completed with False) with the header's family
    and referee it with ``check``; or None and why not (no puzzlesat header, unknown family,
    damaged puzzle line, a header puzzle too large for this CNF or not the one it encodes).

    When decoding fails or the solution breaks the rules, the header's puzzle is encoded again
    and compared with the CNF: if they differ the header lies (the file's fault: a note, no
    referee); if they agree, puzzlesat's encoding or decoding is wrong (a problem, exit 3).
    Only that path pays for the encoding."""
    if "family" not in dimacs.header:
        return None, "no puzzlesat header: the CNF alone was checked"
    try:
        family, puzzle, encoding = _header_puzzle(dimacs)
    except UserError as exc:
        return None, f"not decoded: {exc}"
    model = full_model(given, dimacs.num_vars)  # V is within the header puzzle's estimate
    try:
        solution = family.decode(puzzle, encoding, model)
        problems = list(family.check(puzzle, solution))
        shown = family.solution_to_json(solution), family.render(puzzle, solution)
    except _DECODE_ERRORS as exc:
        problems, shown = [f"decoding failed ({type(exc).__name__}: {exc})"], (None, "")
    if problems:
        mismatch = header_mismatch(dimacs, family, puzzle, encoding)
        if mismatch:
            return None, f"not decoded: the header puzzle does not match the CNF ({mismatch})"
    return PuzzleReport(family.NAME, encoding, problems, *shown), ""


def header_mismatch(dimacs: Dimacs, family, puzzle, encoding: str) -> str:
    """How the CNF differs from the encoding of the header's puzzle ("" when they agree)."""
    # imported here: the DIMACS writer and its hash load only when a header puzzle is
    # encoded again
    from puzzlesat.generator.core.writer import clause_bytes, gbd_hash_of_body

    try:
        formula = family.encode(puzzle, encoding)
    except (UserError, *_DECODE_ERRORS) as exc:
        return f"it does not encode: {exc}"
    ours = (formula.num_vars, formula.num_clauses)
    if ours != (dimacs.num_vars, dimacs.num_clauses):
        return (f"it encodes to {ours[0]} variables and {ours[1]} clauses, the file has "
                f"{dimacs.num_vars} and {dimacs.num_clauses}")
    if gbd_hash_of_body(clause_bytes(formula)) != dimacs.gbd_hash:
        return "same counts, other clauses"
    return ""



def validate_files(instance: str | os.PathLike, output: str | os.PathLike,
                   proof: str | os.PathLike | None = None,
                   expected: str | None = None,
                   witness: str | os.PathLike | None = None,
                   proof_time_limit: float | None = None, lrat=None) -> Verdict:
    """Read the instance (a malformed one is a UserError) and the output, and judge;
    ``witness`` is a witness file (``generate --witness``, a suite's ``witnesses/``);
    ``lrat`` as :func:`judge`."""
    check_distinct(("the instance", instance), ("the output", output), ("the proof", proof),
                   ("the witness", witness),
                   ("the LRAT certificate", None if lrat is None else lrat.path))
    dimacs = read_dimacs(instance)
    if proof is not None and not Path(proof).exists():
        raise UserError(f"cannot read {proof}: no such file")
    try:
        parsed: SolverOutput | MalformedOutput = read_output(output, dimacs.num_vars)
    except MalformedOutput as exc:
        parsed = exc
    unsat = isinstance(parsed, SolverOutput) and parsed.status == "UNSAT"
    verdict = judge(dimacs, parsed, proof, expected, read_witness(witness) if unsat else None,
                    proof_time_limit, lrat)
    verdict.instance, verdict.output = str(instance), str(output)
    return verdict



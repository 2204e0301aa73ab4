"""The judge of one SAT answer, down to the puzzle.

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

A verified model is also decoded with the family named in the instance header, and the
family's ``check`` referees the puzzle rules: a model that satisfies the CNF but breaks the
puzzle (an encoding bug) is reported and makes the exit code 3. Evidence beats the header: a
verified model of an instance expected UNSAT (or a verified proof of one expected SAT) keeps
its VERIFIED verdict and a note says the header is wrong — except that an UNSAT claim on
an instance whose header puzzle yields a witness satisfying the CNF (the family's
``witness`` encoded by its ``assignment``) is WRONG-ANSWER whatever the proof says, and
whatever result the header expects (a header expecting UNSAT, or nothing, is then wrong).
Without such a witness (no header puzzle, a family that knows no solution, a witness that
fails) the expected SAT is a claim, not evidence, and a verified proof beats it. A verified
model of an instance whose certificate holds contradicts the certificate: the note says the
encoding is wrong (the decoded placement then breaks the puzzle's rules, which the referee
reports, exit 3).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.reader import Dimacs, read_num_vars
from puzzlesat.generator.tracks import get_track as generator_track
from puzzlesat.validate.answers import (
    STATUSES,
    MalformedOutput,
    SolverOutput,
    output_bound,
    parse_output,
)
from puzzlesat.validate.evidence import HeaderPuzzle, read_witness
from puzzlesat.validate.model import clause_at, clause_starts, falsified_by, given_literals
from puzzlesat.validate.tracks import JudgeOptions
from puzzlesat.validate.verdict import Verdict, track_verdicts

VERDICTS = track_verdicts("sat")
#: how many falsified clauses a WRONG-MODEL verdict lists
SHOWN_FALSIFIED = 5


@dataclass
class Case:
    """A CNF instance read once, with what its header proves."""

    parsed: Dimacs
    evidence: HeaderPuzzle

    @property
    def expected(self) -> str | None:
        """The result the header expects (SAT, UNSAT, UNKNOWN), or None."""
        expected = self.parsed.header.get("expected")
        return expected if expected in STATUSES else None

    def base(self) -> dict[str, Any]:
        """The fields every verdict on this instance carries."""
        header = self.parsed.header
        return dict(name=str(header.get("instance", "")), expected=self.expected,
                    expected_from=header.get("expected-from"))


def open_case(path: str | os.PathLike, options: JudgeOptions = JudgeOptions()) -> Case:
    """Read a CNF instance (a malformed one is a UserError); a proof named but missing is
    one too."""
    if options.proof is not None and not Path(options.proof).exists():
        raise UserError(f"cannot read {options.proof}: no such file")
    if options.epsilon is not None:
        raise UserError("--epsilon: a tolerance of approximate counts, not of SAT answers")
    return case_of(generator_track("sat").read(path))


def case_of(dimacs: Dimacs) -> Case:
    """:func:`open_case` of an instance read already."""
    return Case(dimacs, HeaderPuzzle(dimacs, generator_track("sat")))


def answer_bound(instance: str | os.PathLike) -> int:
    """The most bytes a SAT answer to the instance holds (a model of every variable its p
    line declares)."""
    return output_bound(read_num_vars(instance) or 0)


def status(answer: bytes) -> str:
    """What a SAT answer claims, or MalformedOutput."""
    return parse_output(answer).status


def judge(case: Case, answer: bytes | Exception,
          options: JudgeOptions = JudgeOptions()) -> Verdict:
    """The verdict on one answer (its bytes, or the MalformedOutput reading it raised)."""
    try:
        if isinstance(answer, Exception):
            raise answer
        output = parse_output(answer)
    except MalformedOutput as exc:
        return Verdict("MALFORMED", str(exc), **case.base())
    return judge_output(case, output, options)


def judge_output(case: Case, output: SolverOutput,
                 options: JudgeOptions = JudgeOptions()) -> Verdict:
    """The verdict on one parsed answer (the witness file of ``options`` is evidence of SAT
    when it checks; its proof is checked within its time limit)."""
    base = {**case.base(), "claimed": output.status, "time": output.time}
    if output.status == "SAT":
        assert output.literals is not None  # every parser gives a SAT answer its model
        verdict = _judge_model(case, output.literals, base)
    elif output.status == "UNSAT":
        verdict = _judge_unsat(case, options, base)
    else:
        verdict = Verdict("UNKNOWN", "the solver gave no answer", **base)
    verdict.notes = output.warnings + verdict.notes
    return verdict


def _judge_model(case: Case, literals: np.ndarray, base: dict) -> Verdict:
    dimacs = case.parsed
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
        certified, why = case.evidence.certificate()
        verdict.notes.append(
            f"the header's certificate holds ({why}): a model of this CNF contradicts it, so "
            "the encoding is wrong" if certified else
            f"the header expects UNSAT ({base['expected_from']}): this model shows the header "
            "is wrong")
    verdict.puzzle, verdict.puzzle_note = case.evidence.decode(given)
    return verdict


def _signed(signers: list[str]) -> str:
    """Who verified a proof, for the verdict line."""
    head = f"proof verified by {signers[0]}"
    if signers[0] == "puzzlesat-drat":
        return head + f", its LRAT certificate by {' and '.join(signers[1:])}"
    return head + "".join(f" and {name}" for name in signers[1:])


def _judge_unsat(case: Case, options: JudgeOptions, base: dict) -> Verdict:
    dimacs, proof = case.parsed, options.proof
    # a witness that satisfies every clause is evidence whatever the header expects (a header
    # tampered to expect UNSAT, or expecting nothing, must not let a bad proof through)
    witness = case.evidence.witness(read_witness(options.witness))
    said = (f"the header expects {base['expected']} ({base['expected_from']})"
            if base["expected"] else "the header expects no result")
    notes = [f"{said}, yet {witness}: the header is wrong"] if (
        witness and base["expected"] != "SAT") else []
    if proof is not None:
        from puzzlesat.validate.proof.check import check_proof_file  # only for UNSAT with a proof

        check = check_proof_file(dimacs.literals, dimacs.num_vars, proof,
                                 time_limit=options.proof_time_limit, lrat=options.lrat)
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
    return case.evidence.unproved_unsat(base, notes, proof is not None, witness)


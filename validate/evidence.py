"""What an instance's header proves, worked out once per verdict: its puzzle, whether that
puzzle encodes to this very file, the planted witness, the certificate of UNSAT, and the
puzzle a model decodes to. Every track's judge is handed one :class:`HeaderPuzzle` and asks
it what it needs; each answer is computed at most once (a header puzzle is rebuilt, and its
formula encoded and hashed, once per verdict however many checks ask).

The header may lie: its puzzle is sized before it is built
(:func:`~puzzlesat.generator.instance.puzzle_from_header`), and nothing it says is trusted
until its puzzle encodes to the file (:attr:`HeaderPuzzle.mismatch`).
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.inputs import SMALL_INPUT, read_input
from puzzlesat.generator.core.structured import load_json
from puzzlesat.validate.model import falsified_clauses, full_model
from puzzlesat.validate.verdict import PuzzleReport, Verdict

#: what a damaged header puzzle, witness or decoding raises: never evidence, never a crash
DECODE_ERRORS = (IndexError, KeyError, ValueError, TypeError, OverflowError, AttributeError)


class HeaderPuzzle:
    """The header's puzzle of an instance file read (``parsed``) of the generator's track
    ``form``: ``family``, ``puzzle`` and ``encoding``, or ``error`` saying why there is
    none (no puzzlesat header, an unknown family, a damaged or oversized puzzle)."""

    def __init__(self, parsed: Any, form: ModuleType):
        self.parsed, self.form = parsed, form
        self.family: Any = None
        self.puzzle: Any = None
        self.encoding = ""
        self.error = ""
        if "family" not in parsed.header:
            self.error = "no puzzlesat header"
            return
        # imported here: the families load only for an instance with a puzzlesat header
        from puzzlesat.generator.instance import puzzle_from_header

        variables, clauses = form.file_sizes(parsed)
        try:
            self.family, self.puzzle, self.encoding = puzzle_from_header(
                parsed.header, variables, clauses, form)
        except UserError as exc:
            self.error = str(exc)

    @property
    def found(self) -> bool:
        """Whether the header holds a puzzle that reads."""
        return not self.error

    @cached_property
    def formula(self) -> Any:
        """The track's formula of the header's puzzle (encoded once), or the exception it
        raised."""
        try:
            return self.form.encode(self.family, self.puzzle, self.encoding)
        except (UserError, *DECODE_ERRORS) as exc:
            return exc

    @cached_property
    def mismatch(self) -> str:
        """How the file differs from the encoding of the header's puzzle: "" when they agree
        (same counts, same clauses)."""
        if not self.found:
            return self.error
        formula = self.formula
        if isinstance(formula, Exception):
            return f"it does not encode: {formula}"
        ours, theirs = self.form.fingerprint(formula), self.form.file_fingerprint(self.parsed)
        if ours[:2] != theirs[:2]:
            return (f"it encodes to {ours[0]} variables and {ours[1]} clauses, the file has "
                    f"{theirs[0]} and {theirs[1]}")
        return "" if ours == theirs else "same counts, other clauses"

    def known_solution(self, given: dict | None = None) -> Any:
        """A known solution of the header's puzzle: ``given`` (a witness file's JSON) when it
        is one of this family, or else the family's own ``witness`` of it (edge-matching,
        sliding; a Flow header has no solution in it); None without one, or when it does not
        read (a damaged witness is no evidence)."""
        if not self.found:
            return None
        family = self.family
        try:
            if given is not None and given.get("family") == family.NAME:
                return family.solution_from_json(given["solution"])
            return family.witness(self.puzzle)
        except (UserError, *DECODE_ERRORS):
            return None

    # -- a CNF's evidence (the SAT and counting tracks) --------------------------------------
    def witness(self, given: dict | None = None) -> str:
        """How the instance is known SAT: "the planted witness satisfies all N clauses" when
        the :meth:`known_solution` encodes (the family's ``assignment``) to a model of every
        clause; "" without such evidence."""
        solution = self.known_solution(given)
        if solution is None:
            return ""
        family, parsed = self.family, self.parsed
        try:
            model = np.asarray(family.assignment(self.puzzle, self.encoding, solution),
                               dtype=bool)
        except (UserError, *DECODE_ERRORS):  # a damaged witness is no evidence
            return ""
        if model.ndim != 1 or model.size != parsed.num_vars + 1:
            return ""
        literals = np.where(model[1:], 1, -1) * np.arange(1, model.size)
        if falsified_clauses(parsed.literals, parsed.num_vars, literals).size:
            return ""
        return f"the planted witness satisfies all {parsed.num_clauses} clauses"

    def certificate(self) -> tuple[bool, str]:
        """(True, why) when the header expects UNSAT from a certificate of its family that
        holds for the header's puzzle, and that puzzle encodes to this very file. Otherwise
        (False, why not), why = "" when the header names no certificate. The argument is
        checked on the puzzle, never taken from the header's word."""
        return self._argument(lambda family: family.check_certificate, "certificate")

    def known_by_construction(self) -> tuple[bool, str]:
        """(True, why) when the header expects UNSAT from what its family knows by
        construction (a shipped optimal trace) of the header's puzzle, replayed, and that
        puzzle encodes to this very file; else (False, why not), why = "" when the header
        names no such knowledge. A known answer, never a verified one."""
        return self._argument(lambda family: family.known_by_construction, "known answer")

    def _argument(self, check, what: str) -> tuple[bool, str]:
        """:meth:`certificate` and :meth:`known_by_construction`: ``check(family)`` applied to
        the header's puzzle and ``expected-from``, for a file of a decision encoding."""
        header = self.parsed.header
        source = header.get("expected-from")
        if header.get("expected") != "UNSAT" or not isinstance(source, str) \
                or "family" not in header:
            return False, ""
        if not self.found:
            return False, f"{what} not checked: {self.error}"
        if not self.form.decides(self.family, self.encoding):
            return False, (f"{what} not applied: the {self.encoding} encoding is an "
                           f"optimisation, no decision of the puzzle")
        try:
            found = check(self.family)(self.puzzle, source)
        except UserError as exc:
            return False, f"{what} not checked: {exc}"
        except DECODE_ERRORS as exc:
            return False, f"{what} not checked: {type(exc).__name__}: {exc}"
        if found is None:
            return False, ""
        holds, why = found
        if not holds:
            return False, f"the header's {what} does not hold: {why}"
        if self.mismatch:
            return False, (f"{what} {source} not applied: the header puzzle does not "
                           f"match the file ({self.mismatch})")
        return True, (f"{why}; the file is the {self.encoding} encoding of that puzzle (the "
                      "same counts, and every clause or constraint)")

    def unproved_unsat(self, base: dict, notes: list[str], proof_given: bool,
                       known: str = "") -> Verdict:
        """The verdict on an UNSAT claim no proof settled: WRONG-ANSWER when ``known`` (a
        solution checked on the file) or the header's SAT refutes it, VERIFIED-UNSAT when the
        header's certificate holds, else UNSAT-UNCHECKED, saying whether the header agrees."""
        if known:
            return Verdict("WRONG-ANSWER", f"claims UNSAT, but {known}", notes=notes, **base)
        given = "proof not checked" if proof_given else "no proof"
        if base["expected"] == "UNSAT":
            certified, why = self.certificate()
            if certified:
                return Verdict("VERIFIED-UNSAT", f"{given}; certified by the header: {why}",
                               notes=notes, **base)
            if why:
                notes.append(why)
            given += f"; consistent with the expected UNSAT ({base['expected_from']})"
        elif base["expected"] == "SAT":
            return Verdict("WRONG-ANSWER", f"claims UNSAT, but the instance is SAT "
                           f"({base['expected_from'] or 'expected'})", notes=notes, **base)
        return Verdict("UNSAT-UNCHECKED", given, notes=notes, **base)

    def decode(self, given: np.ndarray) -> tuple[PuzzleReport | None, str]:
        """Decode the model of the ``given`` literals (completed with False) with the header's
        family and referee it with ``check``; or None and why not. When decoding fails or the
        solution breaks the rules, the header's puzzle must encode to the file: if not, the
        header lies (the file's fault: a note, no referee); if so, puzzlesat's encoding or
        decoding is wrong (a problem, exit 3). Only that path pays for the encoding."""
        if "family" not in self.parsed.header:
            return None, "no puzzlesat header: the CNF alone was checked"
        if not self.found:
            return None, f"not decoded: {self.error}"
        family = self.family
        model = full_model(given, self.parsed.num_vars)  # V is within the puzzle's estimate
        try:
            solution = family.decode(self.puzzle, self.encoding, model)
            problems = list(family.check(self.puzzle, solution))
            shown = family.solution_to_json(solution), family.render(self.puzzle, solution)
        except DECODE_ERRORS as exc:
            problems, shown = [f"decoding failed ({type(exc).__name__}: {exc})"], (None, "")
        if problems and self.mismatch:
            return None, f"not decoded: the header puzzle does not match the CNF ({self.mismatch})"
        return PuzzleReport(family.NAME, self.encoding, problems, *shown), ""


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

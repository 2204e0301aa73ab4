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

Exit code 2 is a user's mistake (an unreadable or malformed *instance*, a missing file).
A verified model is also decoded with the family named in the instance header, and the
family's ``check`` referees the puzzle rules: a model that satisfies the CNF but breaks the
puzzle (an encoding bug) is reported and makes the exit code 3. Evidence beats the header: a
verified model of an instance expected UNSAT (or a verified proof of one expected SAT) keeps
its VERIFIED verdict and a note says the header is wrong. A verified model of an instance
whose certificate holds contradicts the certificate: the note says the encoding is wrong
(the decoded placement then breaks the puzzle's rules, which the referee reports, exit 3).
"""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from puzzlesat.generator.core.dimacs import (
    Dimacs,
    atomic_write,
    clause_bytes,
    gbd_hash_of_body,
    read_dimacs,
)
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.instance import puzzle_from_header
from puzzlesat.validate.model import (
    clause_at,
    clause_starts,
    falsified_clauses,
    full_model,
    truth_table,
)
from puzzlesat.validate.output import STATUSES, MalformedOutput, SolverOutput, read_output

VERIFIED = ("VERIFIED-SAT", "VERIFIED-UNSAT")
UNVERIFIED = ("UNSAT-UNCHECKED", "UNKNOWN")
FAILED = ("WRONG-MODEL", "WRONG-ANSWER", "WRONG-PROOF", "MALFORMED")
VERDICTS = VERIFIED + UNVERIFIED + FAILED
#: how many falsified clauses a WRONG-MODEL verdict lists
SHOWN_FALSIFIED = 5


@dataclass
class PuzzleReport:
    """The decoded solution and the family's own referee on it."""

    family: str
    encoding: str
    problems: list[str]  # the family's check(): [] = a valid solution
    solution: Any  # solution_to_json
    picture: str

    def line(self) -> str:
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

    @property
    def failed(self) -> bool:
        """The solver is wrong, or the puzzle check caught an encoding bug."""
        return self.verdict in FAILED or bool(self.puzzle and self.puzzle.problems)

    @property
    def exit_code(self) -> int:
        if self.failed:
            return 3
        return 0 if self.verdict in VERIFIED else 1

    def text(self) -> str:
        lines = [f"{self.verdict} {self.instance}: {self.reason}"]
        lines += [f"  {note}" for note in self.notes]
        if self.puzzle is not None:
            lines.append(self.puzzle.line())
            if self.puzzle.picture:
                lines.append(self.puzzle.picture.rstrip("\n"))
        elif self.puzzle_note:
            lines.append(f"puzzle: {self.puzzle_note}")
        return "\n".join(lines) + "\n"

    def puzzle_cell(self) -> str:
        if self.puzzle is None:
            return ""
        return "ok" if not self.puzzle.problems else "invalid: " + "; ".join(self.puzzle.problems)

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in ("verdict", "reason", "instance", "output", "name",
                                              "claimed", "expected", "expected_from",
                                              "falsified", "notes", "time")}
        out["exit_code"] = self.exit_code
        out["puzzle"] = None if self.puzzle is None else {
            "family": self.puzzle.family, "encoding": self.puzzle.encoding,
            "valid": not self.puzzle.problems, "problems": self.puzzle.problems,
            "solution": self.puzzle.solution}
        out["puzzle_note"] = self.puzzle_note
        return out


# -- one (instance, output) -----------------------------------------------------------------
def judge(dimacs: Dimacs, output: SolverOutput | MalformedOutput,
          proof: str | os.PathLike | None = None, expected: str | None = None) -> Verdict:
    """The verdict on one parsed output (or the MalformedOutput it raised) for ``dimacs``.
    ``expected`` overrides the header's expected result (a suite manifest's)."""
    header = dimacs.header
    if expected is None and header.get("expected") in STATUSES:
        expected = header["expected"]
    base = dict(name=str(header.get("instance", "")), expected=expected,
                expected_from=header.get("expected-from"))
    if isinstance(output, MalformedOutput):
        return Verdict("MALFORMED", str(output), **base)
    base["claimed"] = output.status
    base["time"] = output.time
    notes = list(output.warnings)
    if output.status == "SAT":
        verdict = _judge_model(dimacs, output.literals, **base)
    elif output.status == "UNSAT":
        verdict = _judge_unsat(dimacs, proof, **base)
    else:
        verdict = Verdict("UNKNOWN", "the solver gave no answer", **base)
    verdict.notes = notes + verdict.notes
    return verdict


def _judge_model(dimacs: Dimacs, literals: np.ndarray, **base) -> Verdict:
    try:
        table = truth_table(literals, dimacs.num_vars)
    except MalformedOutput as exc:
        return Verdict("MALFORMED", str(exc), **base)
    bad = falsified_clauses(dimacs.literals, dimacs.num_vars, literals)
    if bad.size:
        starts = clause_starts(dimacs.literals)
        shown = [{"clause": int(i) + 1, "literals": clause_at(dimacs.literals, starts, int(i))}
                 for i in bad[:SHOWN_FALSIFIED]]
        first = ", ".join(f"clause {c['clause']} ({' '.join(map(str, c['literals']))} 0)"
                          for c in shown)
        return Verdict("WRONG-MODEL", f"{bad.size} of {dimacs.num_clauses} clauses falsified, "
                                      f"first: {first}", falsified=shown, **base)
    given = int(np.count_nonzero(table))
    verdict = Verdict("VERIFIED-SAT", f"every clause has a true literal ({given} of "
                                      f"{dimacs.num_vars} variables given)", **base)
    if base["expected"] == "UNSAT":
        certified, why = certified_unsat(dimacs)
        verdict.notes.append(
            f"the header's certificate holds ({why}): a model of this CNF contradicts it, so "
            "the encoding is wrong" if certified else
            f"the header expects UNSAT ({base['expected_from']}): this model shows the header "
            "is wrong")
    verdict.puzzle, verdict.puzzle_note = decode_puzzle(dimacs, full_model(table, dimacs.num_vars))
    return verdict


def _judge_unsat(dimacs: Dimacs, proof, **base) -> Verdict:
    notes = []
    if proof is not None:
        from puzzlesat.validate.proof import check_proof_file  # only for UNSAT with a proof

        check = check_proof_file(dimacs.literals, dimacs.num_vars, proof)
        if check.ok:
            verdict = Verdict("VERIFIED-UNSAT", f"proof verified by {check.checker}", **base)
            if base["expected"] == "SAT":
                verdict.notes.append(f"the header expects SAT ({base['expected_from']}): this "
                                     "proof shows the header is wrong")
            return verdict
        if check.ok is False:
            return Verdict("WRONG-PROOF", f"{check.checker} rejected the proof: {check.reason}",
                           **base)
        notes.append(f"proof not checked: {check.reason}")
    if base["expected"] == "UNSAT":
        certified, why = certified_unsat(dimacs)
        if certified:
            given = "no proof" if proof is None else "proof not checked"
            return Verdict("VERIFIED-UNSAT", f"{given}; certified by the header: {why}",
                           notes=notes, **base)
        if why:
            notes.append(why)
    if base["expected"] == "SAT":
        return Verdict("WRONG-ANSWER", f"claims UNSAT, but the instance is SAT "
                                       f"({base['expected_from'] or 'expected'})",
                       notes=notes, **base)
    why = "no proof" if proof is None else "proof not checked"
    if base["expected"] == "UNSAT":
        why += f"; consistent with the expected UNSAT ({base['expected_from']})"
    return Verdict("UNSAT-UNCHECKED", why, notes=notes, **base)


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
        family, puzzle, encoding = puzzle_from_header(header)
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
    mismatch = _header_mismatch(dimacs, family, puzzle, encoding)
    if mismatch:
        return False, (f"certificate {source} not applied: the header puzzle does not match "
                       f"the CNF ({mismatch})")
    return True, (f"{why}; the CNF is the {encoding} encoding of that puzzle (same counts and "
                  "GBD hash)")


def decode_puzzle(dimacs: Dimacs, model: np.ndarray) -> tuple[PuzzleReport | None, str]:
    """Decode a full model with the header's family and referee it with ``check``; or None
    and why not (no puzzlesat header, unknown family, damaged puzzle line, a header puzzle
    that is not the one this CNF encodes).

    When decoding fails or the solution breaks the rules, the header's puzzle is encoded again
    and compared with the CNF: if they differ the header lies (the file's fault: a note, no
    referee); if they agree, puzzlesat's encoding or decoding is wrong (a problem, exit 3).
    Only that path pays for the encoding."""
    if "family" not in dimacs.header:
        return None, "no puzzlesat header: the CNF alone was checked"
    try:
        family, puzzle, encoding = puzzle_from_header(dimacs.header)
    except UserError as exc:
        return None, f"not decoded: {exc}"
    try:
        solution = family.decode(puzzle, encoding, model)
        problems = list(family.check(puzzle, solution))
        shown = family.solution_to_json(solution), family.render(puzzle, solution)
    except _DECODE_ERRORS as exc:
        problems, shown = [f"decoding failed ({type(exc).__name__}: {exc})"], (None, "")
    if problems:
        mismatch = _header_mismatch(dimacs, family, puzzle, encoding)
        if mismatch:
            return None, f"not decoded: the header puzzle does not match the CNF ({mismatch})"
    return PuzzleReport(family.NAME, encoding, problems, *shown), ""


def _header_mismatch(dimacs: Dimacs, family, puzzle, encoding: str) -> str:
    """How the CNF differs from the encoding of the header's puzzle ("" when they agree)."""
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
                   expected: str | None = None) -> Verdict:
    """Read the instance (a malformed one is a UserError) and the output, and judge."""
    dimacs = read_dimacs(instance)
    if proof is not None and not Path(proof).exists():
        raise UserError(f"cannot read {proof}: no such file")
    try:
        parsed: SolverOutput | MalformedOutput = read_output(output)
    except MalformedOutput as exc:
        parsed = exc
    verdict = judge(dimacs, parsed, proof, expected)
    verdict.instance, verdict.output = str(instance), str(output)
    return verdict


# -- suites ---------------------------------------------------------------------------------
def validate_suite(suite_dir, results_dir, table: str | os.PathLike | None = None,
                   progress: bool = True, executor=None) -> list[Verdict]:
    """A verdict for every instance of a suite from ``RESULTS_DIR/<file>.out`` (and
    ``<file>.drat`` when present), written to ``table`` (.csv or .json) when given. The
    expected result comes from ``manifest.csv`` when it has one, else from the instance
    header. A missing output is UNKNOWN; an instance or output that cannot be read at all is
    MALFORMED (the batch goes on). ``executor`` (any concurrent.futures Executor) spreads the
    work; the verdicts come back in instance order whichever runs them."""
    from tqdm import tqdm

    from puzzlesat.generator.suite.executors import run_tasks

    if table is not None:
        _table_format(table)  # fail before the work, not after
    if not Path(results_dir).is_dir():
        raise UserError(f"{results_dir}: no such results folder")
    from puzzlesat.validate.runner import manifest_results, suite_instances

    expected = manifest_results(suite_dir)
    instances = suite_instances(suite_dir)
    calls = [(instance, Path(results_dir), expected.get(instance.name)) for instance in instances]
    verdicts: list[Verdict] = [None] * len(calls)  # type: ignore[list-item]
    for index, verdict in tqdm(run_tasks(validate_one, calls, executor), total=len(calls),
                               unit="instance", desc="validating", disable=not progress):
        verdicts[index] = verdict
    if table is not None:
        write_table(verdicts, table)
    return verdicts


def validate_one(instance: Path, results_dir: Path, expected: str | None) -> Verdict:
    """The verdict on ``RESULTS_DIR/<file>.out`` (and ``.drat``) for one suite instance."""
    from puzzlesat.validate.runner import output_path

    out, drat = output_path(results_dir, instance), output_path(results_dir, instance, ".drat")
    if not out.exists():
        verdict = Verdict("UNKNOWN", f"no output file {out.name}")
    else:
        try:
            verdict = validate_files(instance, out, drat if drat.exists() else None, expected)
        except UserError as exc:
            verdict = Verdict("MALFORMED", str(exc))
    verdict.instance, verdict.output = instance.name, str(out)
    return verdict


TABLE_COLUMNS = ("instance", "name", "expected", "claimed", "verdict", "puzzle", "time",
                 "reason")


def table_rows(verdicts: list[Verdict]) -> list[dict]:
    return [{"instance": v.instance, "name": v.name, "expected": v.expected or "",
             "claimed": v.claimed or "", "verdict": v.verdict, "puzzle": v.puzzle_cell(),
             "time": "" if v.time is None else v.time, "reason": v.reason} for v in verdicts]


def write_table(verdicts: list[Verdict], path: str | os.PathLike) -> None:
    """The verdicts as CSV (``.csv``) or JSON (``.json``, full detail)."""
    if _table_format(path) == "json":
        data = json.dumps([v.to_json() for v in verdicts], indent=1) + "\n"
    else:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, TABLE_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(table_rows(verdicts))
        data = buf.getvalue()
    atomic_write(path, data.encode("utf-8"))


def _table_format(path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".json"):
        raise UserError(f"{path}: the verdict table must end in .csv or .json")
    return suffix[1:]


def summary(verdicts: list[Verdict]) -> str:
    """``N instances: 3 VERIFIED-SAT, 1 UNKNOWN`` (verdicts in the table's order), plus a
    count of puzzle-check failures when there are any."""
    counts = [(v, sum(1 for x in verdicts if x.verdict == v)) for v in VERDICTS]
    text = f"{len(verdicts)} instances: " + ", ".join(f"{n} {v}" for v, n in counts if n)
    invalid = sum(1 for x in verdicts if x.puzzle and x.puzzle.problems)
    return text + (f"; {invalid} decoded solutions break the puzzle rules" if invalid else "")


def suite_exit_code(verdicts: list[Verdict]) -> int:
    """0 when no verdict is WRONG-*/MALFORMED and every decoded puzzle is valid, else 3."""
    return 3 if any(v.failed for v in verdicts) else 0

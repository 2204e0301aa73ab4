"""The one verdict of every track: what a judge says of one answer on one instance, with the
exit code it asks for, and what a suite's table makes of many.

=================  ====  ======  ========================================================
verdict            exit  tracks  meaning
=================  ====  ======  ========================================================
VERIFIED-SAT       0     sat,    every clause has a true literal among those given (PB:
                         pb      every constraint holds)
VERIFIED-UNSAT     0     sat,    a proof checked, or the header's certificate holds
                         pb
VERIFIED-OPTIMUM   0     maxsat, OPTIMUM FOUND, and the model costs the certified optimum
                         pb
VERIFIED-COST      0     maxsat, a model of checked cost, not claimed optimal
                         pb
VERIFIED           0     mc      the count is the certified one (within tolerance)
UNSAT-UNCHECKED    1     sat,    UNSAT, no proof (or none checked); MaxSAT: not checked
                         maxsat,
                         pb
OPTIMUM-UNCHECKED  1     maxsat, an optimum claim on an instance without a certified optimum
                         pb
UNCHECKED          1     mc      a count on an instance without a certified count
UNKNOWN            1     all     no answer
WRONG-MODEL        3     sat,    the model falsifies a (hard) clause, or a constraint
                         maxsat,
                         pb
WRONG-ANSWER       3     all     the answer contradicts what the instance certifies
WRONG-PROOF        3     sat,    a proof was given and does not check
                         pb
WRONG-COST         3     maxsat, the last ``o`` line is not the model's cost
                         pb
MALFORMED          3     all     the answer cannot be read, or contradicts itself
=================  ====  ======  ========================================================

Exit code 4 (beating 3) is a **checker failure**: a check that can only fail when puzzlesat
is wrong did (a proof verified on an instance its planted witness shows SAT; a model cheaper
than the certified lower bound). A model that satisfies the formula but breaks the puzzle's
own rules when decoded (an encoding bug) makes the exit code 3 whatever the verdict.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from typing import Any

#: every verdict: its exit code and the tracks whose judges give it (the table above)
VERDICTS: dict[str, tuple[int, tuple[str, ...]]] = {
    "VERIFIED-SAT": (0, ("sat", "pb")), "VERIFIED-UNSAT": (0, ("sat", "pb")),
    "VERIFIED-OPTIMUM": (0, ("maxsat", "pb")), "VERIFIED-COST": (0, ("maxsat", "pb")),
    "VERIFIED": (0, ("mc",)), "UNSAT-UNCHECKED": (1, ("sat", "maxsat", "pb")),
    "OPTIMUM-UNCHECKED": (1, ("maxsat", "pb")), "UNCHECKED": (1, ("mc",)),
    "UNKNOWN": (1, ("sat", "mc", "maxsat", "pb")), "WRONG-MODEL": (3, ("sat", "maxsat", "pb")),
    "WRONG-ANSWER": (3, ("sat", "mc", "maxsat", "pb")), "WRONG-PROOF": (3, ("sat", "pb")),
    "WRONG-COST": (3, ("maxsat", "pb")), "MALFORMED": (3, ("sat", "mc", "maxsat", "pb"))}
EXIT_CODES = {verdict: code for verdict, (code, _) in VERDICTS.items()}
VERIFIED = tuple(v for v, code in EXIT_CODES.items() if code == 0)
FAILED = tuple(v for v, code in EXIT_CODES.items() if code == 3)
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
    """What a track's judge says of one answer (see the module docstring)."""

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
    checker_failure: str = ""
    track: str = ""

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
        return EXIT_CODES[self.verdict]

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
        """The verdict as JSON."""
        out = {k: getattr(self, k) for k in ("verdict", "reason", "instance", "output", "name",
                                              "track", "claimed", "expected", "expected_from",
                                              "falsified", "notes", "time",
                                              "checker_failure")}
        out["exit_code"] = self.exit_code
        out["puzzle"] = None if self.puzzle is None else {
            "family": self.puzzle.family, "encoding": self.puzzle.encoding,
            "valid": not self.puzzle.problems, "problems": self.puzzle.problems,
            "solution": self.puzzle.solution}
        out["puzzle_note"] = self.puzzle_note
        return out


# -- many verdicts ------------------------------------------------------------------------------
TABLE_COLUMNS = ("instance", "name", "track", "expected", "claimed", "verdict", "puzzle", "time",
                 "reason")


def table_bytes(verdicts: list[Verdict], kind: str) -> bytes:
    """The verdicts as a CSV table (``kind`` "csv") or JSON (``"json"``, full detail)."""
    if kind == "json":
        return (json.dumps([v.to_json() for v in verdicts], indent=1) + "\n").encode("utf-8")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, TABLE_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({"instance": v.instance, "name": v.name, "track": v.track,
                      "expected": v.expected or "", "claimed": v.claimed or "",
                      "verdict": v.verdict, "puzzle": v.puzzle_cell(),
                      "time": "" if v.time is None else v.time, "reason": v.reason}
                     for v in verdicts)
    return buffer.getvalue().encode("utf-8")


def summary(verdicts: list[Verdict]) -> str:
    """``N instances: 3 VERIFIED-SAT, 1 UNKNOWN`` (verdicts in the table's order), plus a
    count of puzzle-check failures and checker failures when there are any."""
    counts = [(v, sum(1 for x in verdicts if x.verdict == v)) for v in EXIT_CODES]
    text = f"{len(verdicts)} instances: " + ", ".join(f"{n} {v}" for v, n in counts if n)
    invalid = sum(1 for x in verdicts if x.puzzle and x.puzzle.problems)
    text += f"; {invalid} decoded solutions break the puzzle rules" if invalid else ""
    unsound = sum(1 for x in verdicts if x.checker_failure)
    return text + (f"; {unsound} CHECKER FAILURES (checks that fail only when puzzlesat is "
                   f"wrong)" if unsound else "")


def suite_exit_code(verdicts: list[Verdict]) -> int:
    """The worst exit code of the verdicts: 4 for a checker failure, 3 for a failed one (or a
    decoded puzzle that breaks the rules), 1 when one is not verified, else 0."""
    return max([0] + [v.exit_code for v in verdicts])


def track_verdicts(track: str) -> tuple[str, ...]:
    """The verdicts the judge of ``track`` gives, in the table's order."""
    return tuple(verdict for verdict, (_, tracks) in VERDICTS.items() if track in tracks)

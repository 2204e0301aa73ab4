"""Solver output files: what a solver claims, read strictly.

Three layouts are recognised, by their first non-blank line:

* **SAT Competition** — ``c`` comment lines, exactly one ``s SATISFIABLE`` /
  ``s UNSATISFIABLE`` / ``s UNKNOWN`` line, and for SAT ``v`` lines of literals whose last
  ends in ``0`` (a partial model is allowed). No ``s`` line at all means no answer (UNKNOWN),
  as in the competition.
* **MiniSat result file** (``minisat in.cnf out.txt``) — ``SAT`` then one line of literals
  ending in ``0``, or ``UNSAT``, or ``INDET``.
* **A bare list of literals** (a model and nothing else), the trailing ``0`` optional.

Anything else is :class:`MalformedOutput` with a reason naming the line: two ``s`` lines,
``v`` lines without an ``s`` line, a model after UNSAT, a ``0`` in the middle of a model, a
line that is neither ``c``, ``s`` nor ``v``. Whether the literals fit the instance (beyond
V, both signs of one variable) is decided against the instance in :mod:`puzzlesat.validate.model`.

>>> out = parse_output(b"c cadical\\ns SATISFIABLE\\nv 1 -2\\nv 3 0\\n")
>>> out.status, out.format, out.literals.tolist()
('SAT', 'competition', [1, -2, 3])
>>> parse_output(b"UNSAT\\n").status
'UNSAT'
>>> parse_output(b"v 1 0\\n")
Traceback (most recent call last):
...
puzzlesat.validate.output.MalformedOutput: v lines without an s line
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.inputs import InputTooLong, read_input
from puzzlesat.generator.core.reader import minus_signs_ok, parse_integers

STATUSES = ("SAT", "UNSAT", "UNKNOWN")
#: the competition's ``s`` words and MiniSat's first lines, mapped to a status
COMPETITION_STATUS = {"SATISFIABLE": "SAT", "UNSATISFIABLE": "UNSAT", "UNKNOWN": "UNKNOWN"}
MINISAT_STATUS = {"SAT": "SAT", "UNSAT": "UNSAT", "INDET": "UNKNOWN"}
#: the competition's limit on the length of a ``v`` line
MAX_V_LINE = 4096

_NUMERIC = b"0123456789- \t\r\n"
_TIME = re.compile(r"^c\s+time:\s*([0-9.eE+-]+)\s*$")


class MalformedOutput(Exception):
    """A solver output that cannot be read as any of the known layouts (the verdict
    MALFORMED, not a user error: the output is the thing under test)."""


@dataclass
class SolverOutput:
    """What a solver claimed. ``literals`` (int64, no terminating 0) only for SAT."""

    status: str
    format: str
    literals: np.ndarray | None = None
    comments: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def time(self) -> float | None:
        """Seconds from a ``c time: S`` line (written by ``puzzlesat solve-suite``), if any."""
        return comment_time(self.comments)


#: bytes of comment and status lines a solver output may hold beside its model
MAX_OUTPUT_COMMENTS = 16 << 20


def output_bound(num_vars: int) -> int:
    """The most bytes a solver output for ``num_vars`` variables can hold: a model of every
    variable once, each literal ``len(str(V)) + 2`` bytes, twice over for ``v`` prefixes and
    line ends (``v -1\r\n`` is twice ``-1 ``), plus :data:`MAX_OUTPUT_COMMENTS`."""
    return 2 * (num_vars + 1) * (len(str(num_vars)) + 2) + MAX_OUTPUT_COMMENTS


def read_output(path: str | os.PathLike, num_vars: int) -> SolverOutput:
    """Read and parse a solver output file (plain or compressed) for an instance of
    ``num_vars`` variables. An unreadable file is a :class:`UserError`; an unreadable
    *content*, or one longer than :func:`output_bound`, is :class:`MalformedOutput`."""
    try:
        data = read_input(path, output_bound(num_vars), "output")
    except InputTooLong as exc:
        raise MalformedOutput(str(exc)) from None
    return parse_output(data)


def parse_output(data: bytes) -> SolverOutput:
    """Parse solver output text in any of the three layouts (see the module docstring)."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as exc:
        raise MalformedOutput(f"not ASCII text (byte 0x{data[exc.start]:02x} at offset "
                              f"{exc.start})") from None
    if "\0" in text:
        raise MalformedOutput("not text (NUL byte)")
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1)]
    lines = [(n, line) for n, line in lines if line]
    if lines and lines[0][1] in MINISAT_STATUS:
        return _parse_minisat(lines)
    if lines and all(not line.encode().translate(None, _NUMERIC) for _, line in lines):
        model = _model_literals(" ".join(line for _, line in lines), "literal list",
                                final_zero_required=False)
        return SolverOutput("SAT", "literals", model)
    return _parse_competition(lines)


def _parse_minisat(lines: list[tuple[int, str]]) -> SolverOutput:
    status = MINISAT_STATUS[lines[0][1]]
    rest = lines[1:]
    if status != "SAT":
        if rest:
            raise MalformedOutput(f"line {rest[0][0]}: nothing may follow {lines[0][1]} in a "
                                  "MiniSat result file")
        return SolverOutput(status, "minisat")
    if not rest:
        raise MalformedOutput("MiniSat result file says SAT but has no model line")
    if len(rest) > 1:
        raise MalformedOutput(f"line {rest[1][0]}: a MiniSat result file has one model line")
    n, line = rest[0]
    return SolverOutput("SAT", "minisat", _model_literals(line, f"line {n}"))


def _parse_competition(lines: list[tuple[int, str]]) -> SolverOutput:
    comments, statuses, v_parts, warnings = [], [], [], []
    first_v = None
    for n, line in lines:
        kind, rest = line[0], line[1:]
        if kind == "c":
            comments.append(line)
            continue
        if kind not in "sv" or (rest and not rest[0].isspace()):
            shown = line if len(line) <= 40 else line[:37] + "..."
            raise MalformedOutput(f"line {n}: {shown!r} is not a c, s or v line")
        if kind == "s":
            word = rest.strip()
            if word not in COMPETITION_STATUS:
                raise MalformedOutput(f"line {n}: unknown status 's {word}' (expected "
                                      "SATISFIABLE, UNSATISFIABLE or UNKNOWN)")
            statuses.append((n, COMPETITION_STATUS[word]))
        else:
            if first_v is None:
                first_v = n
            if len(line) > MAX_V_LINE:
                warnings.append(f"line {n}: v line of {len(line)} characters (limit {MAX_V_LINE})")
            v_parts.append(rest)
    if len(statuses) > 1:
        raise MalformedOutput(f"two s lines (lines {statuses[0][0]} and {statuses[1][0]})")
    if not statuses:
        if v_parts:
            raise MalformedOutput("v lines without an s line")
        return SolverOutput("UNKNOWN", "competition", None, comments,
                            warnings + ["no s line: no answer"])
    status = statuses[0][1]
    if status != "SAT":
        if v_parts:
            raise MalformedOutput(f"line {first_v}: v lines after 's "
                                  f"{_word(status)}' (a model belongs to SATISFIABLE only)")
        return SolverOutput(status, "competition", None, comments, warnings)
    if not v_parts:
        raise MalformedOutput("s SATISFIABLE without v lines (no model)")
    model = _model_literals(" ".join(v_parts), "v lines")
    return SolverOutput("SAT", "competition", model, comments, warnings)


def _word(status: str) -> str:
    return next(w for w, s in COMPETITION_STATUS.items() if s == status)


def _model_literals(text: str, where: str, final_zero_required: bool = True) -> np.ndarray:
    """The literals of a model text, without its terminating 0; MalformedOutput if a token is
    not an integer, a 0 stands before the end, or (when required) the final 0 is missing."""
    raw = text.encode("ascii")
    stray = raw.translate(None, _NUMERIC)
    if stray:
        raise MalformedOutput(f"{where}: unexpected character {chr(stray[0])!r} in the model")
    if b"-" in raw and not minus_signs_ok(raw):
        raise MalformedOutput(f"{where}: malformed literal (a '-' must start a number 1-9...)")
    try:
        values = parse_integers(raw, where)
    except UserError as exc:
        raise MalformedOutput(str(exc)) from None
    zeros = np.flatnonzero(values == 0)
    if zeros.size and zeros[0] != values.size - 1:
        raise MalformedOutput(f"{where}: 0 before the end of the model (after "
                              f"{int(zeros[0])} literals)")
    if final_zero_required and not zeros.size:
        raise MalformedOutput(f"{where}: the model does not end with 0")
    return values[values != 0]


def comment_time(comments: list[str]) -> float | None:
    """Seconds from the first ``c time: S`` comment line (``solve-suite`` writes one), if any:
    a finite number >= 0 (``1e999`` is none: a verdict's JSON holds no Infinity)."""
    for line in comments:
        m = _TIME.match(line)
        if m:
            try:
                seconds = float(m.group(1))
            except ValueError:
                return None
            return seconds if math.isfinite(seconds) and seconds >= 0 else None
    return None

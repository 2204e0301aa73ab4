"""What solvers print, for every track, read strictly and written as the competitions ask.

* **SAT Competition** (the SAT track): ``c`` comment lines, exactly one ``s SATISFIABLE`` /
  ``s UNSATISFIABLE`` / ``s UNKNOWN`` line, and for SAT ``v`` lines of literals whose last
  ends in ``0`` (a partial model is allowed); no ``s`` line at all means no answer
  (UNKNOWN). Also read: **MiniSat's result file** (``SAT`` then one line of literals ending
  in ``0``, or ``UNSAT``, or ``INDET``) and **a bare list of literals** (a model and nothing
  else, the trailing ``0`` optional). Whether the literals fit the instance is decided
  against it (:mod:`puzzlesat.validate.model`).
* **MaxSAT Evaluation** 2020+: exactly one ``s OPTIMUM FOUND | SATISFIABLE | UNSATISFIABLE |
  UNKNOWN`` line, ``o COST`` lines (the last one counts), and with a model exactly one ``v``
  line of one ``0``/``1`` character per variable.
* **Pseudo-Boolean Competition**: exactly one ``s OPTIMUM FOUND | SATISFIABLE |
  UNSATISFIABLE | UNKNOWN`` line, ``o`` lines (the last one counts), and with a model ``v``
  lines of ``x<n>`` / ``-x<n>`` that give every variable exactly once.
* **Model Counting Competition**: ``s SATISFIABLE | UNSATISFIABLE | UNKNOWN``,
  ``c s type mc|pmc``, ``c s log10-estimate X``, ``c s exact arb int N`` or
  ``c s approx arb int N`` (and our ``c epsilon: X``).

Anything else is :class:`MalformedOutput` with a reason naming the line (the verdict
MALFORMED: the output is the thing under test). Every answer is read bounded by what an
answer to its instance can hold (:func:`read_answer`).

>>> out = parse_output(b"c cadical\\ns SATISFIABLE\\nv 1 -2\\nv 3 0\\n")
>>> out.status, out.format, out.literals.tolist()
('SAT', 'competition', [1, -2, 3])
>>> parse_output(b"UNSAT\\n").status
'UNSAT'
>>> parse_output(b"v 1 0\\n")
Traceback (most recent call last):
...
puzzlesat.validate.answers.MalformedOutput: v lines without an s line
>>> a = parse_count_output("s SATISFIABLE\\nc s type pmc\\nc s log10-estimate 0.30103\\n"
...                        "c s exact arb int 2\\n")
>>> a.kind, a.count
('exact', 2)
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from puzzlesat.generator.core.counting import MAX_COUNT_DIGITS
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.inputs import InputTooLong, read_input
from puzzlesat.generator.core.integers import minus_signs_ok, parse_integers

#: a solver's exit code for each status: the SAT Competition's, and the MaxSAT Evaluation's
#: 30 for OPTIMUM FOUND
EXIT = {"SAT": 10, "UNSAT": 20, "UNKNOWN": 0, "OPTIMUM": 30}
#: bytes of comment and status lines an answer may hold beside its model
MAX_OUTPUT_COMMENTS = 16 << 20
#: the answer of a run that gave none (stopped at a limit, output not kept), in every track
UNKNOWN_ANSWER = b"s UNKNOWN\n"


class MalformedOutput(Exception):
    """An answer that cannot be read as its track's format, or contradicts itself (the
    verdict MALFORMED, not a user error: the output is the thing under test)."""


def read_answer(path: str | os.PathLike, bound: int) -> bytes:
    """The bytes of an answer file (plain or compressed): a :class:`UserError` when it
    cannot be read, :class:`MalformedOutput` past ``bound`` bytes (more than any answer to
    its instance holds)."""
    try:
        return read_input(path, bound, "output")
    except InputTooLong as exc:
        raise MalformedOutput(str(exc)) from None


# -- the SAT Competition's output ----------------------------------------------------------------
STATUSES = ("SAT", "UNSAT", "UNKNOWN")
#: the competition's ``s`` words and MiniSat's first lines, mapped to a status
COMPETITION_STATUS = {"SATISFIABLE": "SAT", "UNSATISFIABLE": "UNSAT", "UNKNOWN": "UNKNOWN"}
MINISAT_STATUS = {"SAT": "SAT", "UNSAT": "UNSAT", "INDET": "UNKNOWN"}
#: the competition's limit on the length of a ``v`` line
MAX_V_LINE = 4096

_NUMERIC = b"0123456789- \t\r\n"
_TIME = re.compile(r"^c\s+time:\s*([0-9.eE+-]+)\s*$")


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


def output_bound(num_vars: int) -> int:
    """The most bytes a solver output for ``num_vars`` variables can hold: a model of every
    variable once, each literal ``len(str(V)) + 2`` bytes, twice over for ``v`` prefixes and
    line ends (``v -1\r\n`` is twice ``-1 ``), plus :data:`MAX_OUTPUT_COMMENTS`."""
    return 2 * (num_vars + 1) * (len(str(num_vars)) + 2) + MAX_OUTPUT_COMMENTS


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


def v_lines(model: np.ndarray) -> list[str]:
    """``v`` lines of at most MAX_V_LINE characters for variables ``1..V``, the last ending
    in 0. Lines hold a fixed number of literals sized for the widest one."""
    num_vars = model.size - 1
    lits = np.where(model[1:], 1, -1) * np.arange(1, num_vars + 1)
    tokens = [str(lit) for lit in lits.tolist()] + ["0"]
    per_line = (MAX_V_LINE - 2) // (len(str(num_vars)) + 2)  # "v" + " -123..." per literal
    return ["v " + " ".join(tokens[i: i + per_line]) for i in range(0, len(tokens), per_line)]


def sat_text(status: str, model: np.ndarray | None) -> bytes:
    """SAT Competition output of an answer (after the caller's ``c`` lines): its ``s`` line
    and, for SAT, the ``v`` lines of ``model`` (bool, indexed by variable)."""
    lines = [f"s {_word(status)}", *([] if model is None else v_lines(model))]
    return ("\n".join(lines) + "\n").encode("ascii")


def minisat_answer(result: bytes) -> bytes:
    """MiniSat's result file (``SAT`` then a line of literals ending in 0, ``UNSAT`` or
    ``INDET``) as SAT Competition output; anything else is given back as it is, for the
    validator to call malformed.

    >>> minisat_answer(b"SAT\\n1 -2 0\\n")
    b's SATISFIABLE\\nv 1 -2 0\\n'
    >>> minisat_answer(b"INDET\\n")
    b's UNKNOWN\\n'
    """
    words = result.split()
    if words in ([b"UNSAT"], [b"INDET"]):
        return b"s UNSATISFIABLE\n" if words[0] == b"UNSAT" else b"s UNKNOWN\n"
    if not words or words[0] != b"SAT" or words[-1] != b"0" or len(words) < 2:
        return result
    try:
        lits = np.array([int(w) for w in words[1:-1]], dtype=np.int64)
    except ValueError:
        return result
    if np.any(lits == 0) or (lits.size and np.abs(lits).max() > 1 << 31):
        return result
    num_vars = int(np.abs(lits).max(initial=0))
    model = np.zeros(num_vars + 1, dtype=bool)
    model[lits[lits > 0]] = True
    return ("s SATISFIABLE\n" + "\n".join(v_lines(model)) + "\n").encode()


def sat_status(data: bytes) -> str:
    """The status a SAT answer claims, or :class:`MalformedOutput`."""
    return parse_output(data).status


# -- the MaxSAT Evaluation's output --------------------------------------------------------------
#: an optimisation competition's ``s`` words -> the status (the MaxSAT Evaluation's and the
#: Pseudo-Boolean Competition's are the same four)
STATUS_WORDS = {"OPTIMUM FOUND": "OPTIMUM", "SATISFIABLE": "SAT", "UNSATISFIABLE": "UNSAT",
                "UNKNOWN": "UNKNOWN"}
_COST = re.compile(r"o\s+([0-9]{1,20})")


def _answer_lines(data: bytes, comments: list[str]) -> Iterator[tuple[int, str, str, str]]:
    """The lines of a MaxSAT or PB competition answer that are not comments, as (number, its
    kind letter, the rest of it, the line); comment lines go to ``comments``. Not ASCII, or a
    line whose first word is not one letter ("sSATISFIABLE", "vx1"), is MalformedOutput."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as exc:
        raise MalformedOutput(f"not ASCII text (offset {exc.start})") from None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("c"):
            if line:
                comments.append(line)
            continue
        if len(line) > 1 and not line[1].isspace():
            raise MalformedOutput(f"line {number}: its first word is not c, s, o or v: "
                                  f"{line[:40]!r}")
        yield number, line[0], line[1:].strip(), line


def _status_line(number: int, rest: str, status: str | None, statuses: dict[str, str]) -> str:
    """The status an ``s`` line names (``statuses``: its words -> the status), the first one:
    a second ``s`` line or an unknown status is MalformedOutput."""
    if status is not None:
        raise MalformedOutput(f"line {number}: a second s line")
    words = " ".join(rest.split())
    if words not in statuses:
        raise MalformedOutput(f"line {number}: unknown status {rest[:40]!r}")
    return statuses[words]


@dataclass
class MaxsatOutput:
    """What a MaxSAT solver claimed: status, ``o`` costs in order, the ``v`` string."""

    status: str
    costs: list[int] = field(default_factory=list)
    values: str | None = None
    comments: list[str] = field(default_factory=list)


def parse_maxsat_output(data: bytes, num_vars: int | None) -> MaxsatOutput:
    """Parse MaxSAT Evaluation output for an instance of ``num_vars`` variables (None: any
    length of ``v`` line), or :class:`MalformedOutput` naming the line."""
    status = values = None
    out = MaxsatOutput("UNKNOWN")
    for number, kind, rest, line in _answer_lines(data, out.comments):
        if kind == "s":
            status = _status_line(number, rest, status, STATUS_WORDS)
        elif kind == "o":
            m = _COST.fullmatch(line)
            if not m:
                raise MalformedOutput(f"line {number}: an o line holds one non-negative integer")
            out.costs.append(int(m.group(1)))
        elif kind == "v":
            if values is not None:
                raise MalformedOutput(f"line {number}: a second v line")
            if rest.strip("01") or " " in rest:
                raise MalformedOutput(f"line {number}: the v line must be one string of 0 and 1 "
                                      f"characters")
            if num_vars is not None and len(rest) != num_vars:
                raise MalformedOutput(f"line {number}: the v line gives {len(rest)} values, the "
                                      f"instance has {num_vars} variables")
            values = rest
        else:
            raise MalformedOutput(f"line {number}: neither c, s, o nor v: {line[:40]!r}")
    out.status = status or "UNKNOWN"
    out.values = values
    if out.status in ("OPTIMUM", "SAT") and values is None:
        raise MalformedOutput(f"s {status_word(out.status)} without a v line")
    if values is not None and out.status not in ("OPTIMUM", "SAT"):
        raise MalformedOutput(f"a v line with s {status_word(out.status)}")
    if values is not None and not out.costs:
        raise MalformedOutput("a model without an o line")
    return out


def maxsat_status(data: bytes) -> str:
    """The status a MaxSAT output claims (OPTIMUM, SAT, UNSAT, UNKNOWN), or
    :class:`MalformedOutput`."""
    return parse_maxsat_output(data, None).status


def status_word(status: str) -> str:
    """The ``s`` words of a status in MaxSAT and PB output (``OPTIMUM`` -> ``OPTIMUM FOUND``)."""
    return next(k for k, v in STATUS_WORDS.items() if v == status)


def model_of(values: str) -> np.ndarray:
    """The bool model (index 0 unused) of a ``v`` string."""
    model = np.zeros(len(values) + 1, dtype=bool)
    model[1:] = np.frombuffer(values.encode("ascii"), dtype=np.uint8) == ord("1")
    return model




def maxsat_text(status: str, model: np.ndarray | None, cost: int | None) -> bytes:
    """MaxSAT Evaluation output lines for an answer (after the caller's ``c`` lines)."""
    lines = [] if cost is None else [f"o {cost}"]
    lines.append(f"s {status_word(status)}")
    if model is not None:
        lines.append("v " + (model[1:].astype(np.uint8) + ord("0")).tobytes().decode("ascii"))
    return ("\n".join(lines) + "\n").encode("ascii")


def maxsat_bound(num_vars: int) -> int:
    """The most bytes a MaxSAT answer for ``num_vars`` variables holds: its ``v`` line, and
    :data:`MAX_OUTPUT_COMMENTS` of other lines."""
    return num_vars + 4 + MAX_OUTPUT_COMMENTS


# -- the Pseudo-Boolean Competition's output ----------------------------------------------------
_PB_COST = re.compile(r"o\s+(-?[0-9]{1,4000})")
_PB_LITERAL = re.compile(r"(-?)x([1-9][0-9]{0,9})")


@dataclass
class PbOutput:
    """What a PB solver claimed: status, ``o`` costs in order, the model of its ``v`` lines."""

    status: str
    costs: list[int] = field(default_factory=list)
    model: np.ndarray | None = None  # bool, index 0 unused
    comments: list[str] = field(default_factory=list)


def parse_pb_output(data: bytes, num_vars: int | None) -> PbOutput:
    """Parse Pseudo-Boolean Competition output for an instance of ``num_vars`` variables
    (None: the claim alone, no model): exactly one ``s`` line (``OPTIMUM FOUND``,
    ``SATISFIABLE``, ``UNSATISFIABLE``, ``UNKNOWN``), ``o`` lines (the last one counts), ``v``
    lines of ``x<n>`` / ``-x<n>`` that together give every variable once; else
    :class:`MalformedOutput` naming the line."""
    status = None
    out = PbOutput("UNKNOWN")
    given: dict[int, bool] = {}
    any_v = False
    for number, kind, rest, line in _answer_lines(data, out.comments):
        if kind == "s":
            status = _status_line(number, rest, status, STATUS_WORDS)
        elif kind == "o":
            m = _PB_COST.fullmatch(line)
            if not m:
                raise MalformedOutput(f"line {number}: an o line holds one integer")
            out.costs.append(int(m.group(1)))
        elif kind == "v":
            any_v = True
            for token in rest.split():
                m = _PB_LITERAL.fullmatch(token)
                if m is None:
                    raise MalformedOutput(f"line {number}: {token[:40]!r} is not x<n> or -x<n>")
                var = int(m.group(2))
                if num_vars is not None and var > num_vars:
                    raise MalformedOutput(f"line {number}: x{var} is beyond the instance's "
                                          f"{num_vars} variables")
                if var in given:
                    raise MalformedOutput(f"line {number}: x{var} is given twice")
                given[var] = not m.group(1)
        else:
            raise MalformedOutput(f"line {number}: neither c, s, o nor v: {line[:40]!r}")
    out.status = status or "UNKNOWN"
    if out.status in ("OPTIMUM", "SAT"):
        if not any_v:
            raise MalformedOutput(f"s {status_word(out.status)} without v lines")
        if num_vars is not None:
            if len(given) != num_vars:
                missing = next(v for v in range(1, num_vars + 1) if v not in given)
                raise MalformedOutput(f"the v lines give {len(given)} of the {num_vars} "
                                      f"variables (x{missing} is missing)")
            out.model = np.zeros(num_vars + 1, dtype=bool)
            true = [v for v, value in given.items() if value]
            out.model[true] = True
    elif any_v:
        raise MalformedOutput(f"v lines with s {status_word(out.status)}")
    return out


def pb_status(data: bytes) -> str:
    """The status a PB output claims (OPTIMUM, SAT, UNSAT, UNKNOWN), or
    :class:`MalformedOutput`."""
    return parse_pb_output(data, None).status


def pb_text(status: str, model: np.ndarray | None, cost: int | None) -> bytes:
    """Pseudo-Boolean Competition output lines for an answer (after the caller's ``c``
    lines): ``o``, ``s`` and ``v`` lines of at most about 4000 characters."""
    lines = [] if cost is None else [f"o {cost}"]
    lines.append(f"s {status_word(status)}")
    if model is not None:
        names = np.where(model[1:], "x", "-x").astype(object) + np.arange(
            1, model.size).astype(str).astype(object)
        line: list[str] = []
        width = 0
        for name in names.tolist():
            if width + len(name) > MAX_V_LINE and line:
                lines.append("v " + " ".join(line))
                line, width = [], 0
            line.append(name)
            width += len(name) + 1
        lines.append("v " + " ".join(line))
    return ("\n".join(lines) + "\n").encode("ascii")


def pb_bound(text_size: int) -> int:
    """The most bytes a PB answer to an instance of ``text_size`` bytes of text holds: its
    ``v`` lines (a ``-x<n>`` per variable, each of which the text names in a term at least as
    long, twice over for unused ones), and :data:`MAX_OUTPUT_COMMENTS` of other lines."""
    return 2 * text_size + MAX_OUTPUT_COMMENTS


# -- the Model Counting Competition's output -----------------------------------------------------
#: ApproxMC's tolerance and confidence, as our runner asks for them (its defaults)
EPSILON, DELTA = 0.8, 0.2
#: how far a stated log10 estimate may be from log10 of the stated count (counters print a few
#: digits: 0.01 is a factor of 1.023)
LOG10_SLACK = 0.01


@dataclass
class CountAnswer:
    status: str  # SAT, UNSAT or UNKNOWN
    kind: str | None = None  # exact or approx
    count: int | None = None
    type: str | None = None
    log10: float | None = None
    epsilon: float | None = None  # the tolerance the output states


_S_LINE = re.compile(r"^s[ \t]+(\S+)[ \t]*$")
_COUNT_LINE = re.compile(r"^c[ \t]+s[ \t]+(exact|approx)[ \t]+(.*)$")
_TYPE_LINE = re.compile(r"^c[ \t]+s[ \t]+type[ \t]+(\S+)[ \t]*$")
_LOG10_LINE = re.compile(r"^c[ \t]+s[ \t]+log10-estimate[ \t]+(\S+)[ \t]*$")
_EPSILON_LINE = re.compile(r"^c[ \t]+epsilon:[ \t]*(\S+)[ \t]*$")


def _one(lines: list[str], pattern: re.Pattern, what: str) -> re.Match | None:
    found = [m for m in map(pattern.match, lines) if m]
    if len(found) > 1:
        raise MalformedOutput(f"{len(found)} {what} lines")
    return found[0] if found else None


def parse_count_output(text: str) -> CountAnswer:
    """The answer in a counter's output, or :class:`MalformedOutput`."""
    lines = [line.strip() for line in text.splitlines()]
    # a status glued to its s ("sSATISFIABLE") is no s line: not an answer that said nothing
    glued = next((n for n, line in enumerate(lines, 1) if line.startswith("s")
                  and len(line) > 1 and not line[1].isspace()), None)
    if glued is not None:
        raise MalformedOutput(f"line {glued}: its first word is not s: {lines[glued - 1][:40]!r}")
    s = _one(lines, _S_LINE, "'s'")
    if s is None:
        return CountAnswer("UNKNOWN")
    if s.group(1) not in COMPETITION_STATUS:
        raise MalformedOutput(f"'s {s.group(1)[:30]}' is not SATISFIABLE, UNSATISFIABLE or "
                             "UNKNOWN")
    answer = CountAnswer(COMPETITION_STATUS[s.group(1)])
    kind = _one(lines, _COUNT_LINE, "count ('c s exact|approx ...')")
    typed = _one(lines, _TYPE_LINE, "'c s type'")
    log10 = _one(lines, _LOG10_LINE, "'c s log10-estimate'")
    epsilon = _one(lines, _EPSILON_LINE, "'c epsilon:'")
    if answer.status == "UNKNOWN":
        return answer
    answer.type = typed.group(1) if typed else None
    if epsilon:
        answer.epsilon = _number(epsilon.group(1), "epsilon")
        if not 0 < answer.epsilon < math.inf:
            raise MalformedOutput(f"epsilon {epsilon.group(1)[:30]} is not a positive number")
    if kind is None:
        if answer.status == "SAT":
            raise MalformedOutput("SATISFIABLE without a count ('c s exact arb int N')")
        answer.kind, answer.count = "exact", 0  # UNSATISFIABLE says 0 by itself
    else:
        answer.kind = kind.group(1)
        form = kind.group(2).split()
        if form[:2] != ["arb", "int"] or len(form) != 3:
            raise MalformedOutput(f"count 'c s {answer.kind} {kind.group(2)[:40]}' is not "
                                 "'arb int N'")
        answer.count = _integer(form[2])
    if answer.type is None:
        raise MalformedOutput("no 'c s type' line")
    if log10:
        answer.log10 = _number(log10.group(1), "log10-estimate", allow_minus_inf=True)
    if answer.status == "SAT" and answer.count == 0:
        raise MalformedOutput("SATISFIABLE with count 0")
    if answer.status == "UNSAT" and answer.count != 0:
        raise MalformedOutput(f"UNSATISFIABLE with count {short_count(answer.count)}")
    if answer.log10 is not None:
        expect = -math.inf if answer.count == 0 else math.log10(answer.count)
        if not (expect == answer.log10 or abs(expect - answer.log10) <= LOG10_SLACK):
            raise MalformedOutput(f"log10-estimate {answer.log10:g} is not log10 of the count "
                                 f"({expect:.4f})")
    return answer


def _integer(token: str) -> int:
    if token.startswith("-") and token[1:].isdigit():
        raise MalformedOutput(f"negative count {token[:30]}")
    if not (token.isascii() and token.isdigit()):
        raise MalformedOutput(f"count {token[:30]!r} is not a non-negative integer")
    if len(token) > MAX_COUNT_DIGITS:
        raise MalformedOutput(f"count of {len(token):,} digits: longer than any count puzzlesat "
                             f"reads ({MAX_COUNT_DIGITS:,})")
    return int(token)


def _number(token: str, what: str, allow_minus_inf: bool = False) -> float:
    try:
        value = float(token)
    except ValueError:
        raise MalformedOutput(f"{what} {token[:30]!r} is not a number") from None
    if math.isnan(value) or (math.isinf(value) and not (allow_minus_inf and value < 0)):
        raise MalformedOutput(f"{what} {token[:30]} is not a finite number")
    return value


def short_count(n: int) -> str:
    """A count for a message: in full up to 40 digits, else its first 20 and its length."""
    text = str(n)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} digits)"




def count_text(count: int | None, track: str, exact: bool) -> bytes:
    """The Model Counting Competition's output of a count (after the caller's ``c`` lines):
    ``s`` line, type, log10 estimate and the count; an approximate count states the
    tolerance it was made to (``c epsilon:``); None: ``s UNKNOWN``."""
    if count is None:
        return b"s UNKNOWN\n"
    lines = [] if exact else [f"c epsilon: {EPSILON:g}"]
    log10 = "-inf" if count == 0 else f"{math.log10(count):.6f}"
    lines += [f"s {'SATISFIABLE' if count else 'UNSATISFIABLE'}", f"c s type {track}",
              f"c s log10-estimate {log10}",
              f"c s {'exact' if exact else 'approx'} arb int {count}"]
    return ("\n".join(lines) + "\n").encode("ascii")


def count_status(data: bytes) -> str:
    """The status a counter's answer claims (SAT: a count above 0, UNSAT: 0), or
    :class:`MalformedOutput`."""
    return parse_count_output(data.decode("utf-8", "replace")).status


#: the most bytes a counter's answer holds: its count lines and comments
COUNT_BOUND = MAX_OUTPUT_COMMENTS + 4 * MAX_COUNT_DIGITS

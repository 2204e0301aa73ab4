"""Judging a model counter's answer on a counting instance (``generate --count``).

The counter's output is the Model Counting Competition's: one ``s SATISFIABLE`` /
``s UNSATISFIABLE`` (or ``s UNKNOWN``) line, ``c s type mc|pmc``, ``c s log10-estimate X`` and
``c s exact arb int N`` or ``c s approx arb int N``. An approximate count is judged against the
counter's tolerance ε (ApproxMC's guarantee: with probability at least 1 − δ the count lies within
a factor 1 + ε of the true one): the judge's, the ``epsilon`` given, else ApproxMC's default 0.8;
an output's ``c epsilon: X`` line (our runner writes it) may state a smaller one, which then
holds, never a larger one.

The count it is compared with is never taken from the header's word: the header's puzzle must
encode to this very CNF (counts and GBD hash) with this very projection, and the family counts
it again (:func:`certified_count`); a header that disagrees is the instance's fault (a
UserError, exit 2).

=============  ====  ============================================================================
VERIFIED       0     the exact count equals the certified count; an approximate one lies within
                     its tolerance of it
UNCHECKED      1     a count that breaks no rule, on an instance without a certified count
UNKNOWN        1     no count (``s UNKNOWN``, no ``s`` line, nothing)
WRONG-ANSWER   3     any other exact count, an approximate one outside its tolerance, a count
                     above 2^(shown variables), UNSATISFIABLE with a count above 0 certified
MALFORMED      3     the output cannot be read or contradicts itself (a negative or non-integer
                     count, a log10 estimate that is not the count's, SATISFIABLE with count 0,
                     a type that is not the instance's track)
=============  ====  ============================================================================

>>> a = parse_count_output("s SATISFIABLE\\nc s type pmc\\nc s log10-estimate 0.30103\\n"
...                        "c s exact arb int 2\\n")
>>> judge_count(a, 2, Projection("pmc", np.array([1, 2], dtype=np.int32))).verdict
'VERIFIED'
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field

import numpy as np

from puzzlesat.generator.core.counting import (
    MAX_COUNT_DIGITS,
    Projection,
    read_count,
    read_projection,
)
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.inputs import SMALL_INPUT, check_distinct, read_input
from puzzlesat.generator.core.reader import Dimacs, read_dimacs
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.families.counting import count_module
from puzzlesat.generator.instance import puzzle_from_header
from puzzlesat.validate.report import certified_unsat, header_mismatch

EXIT_CODES = {"VERIFIED": 0, "UNCHECKED": 1, "UNKNOWN": 1, "WRONG-ANSWER": 3, "MALFORMED": 3}
#: ApproxMC's default tolerance
DEFAULT_EPSILON = 0.8
#: how far a stated log10 estimate may be from log10 of the stated count (counters print a few
#: digits: 0.01 is a factor of 1.023)
LOG10_SLACK = 0.01


class MalformedCount(Exception):
    """The counter's output cannot be read or contradicts itself (the message says why)."""


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
_STATUS = {"SATISFIABLE": "SAT", "UNSATISFIABLE": "UNSAT", "UNKNOWN": "UNKNOWN"}


def _one(lines: list[str], pattern: re.Pattern, what: str) -> re.Match | None:
    found = [m for m in map(pattern.match, lines) if m]
    if len(found) > 1:
        raise MalformedCount(f"{len(found)} {what} lines")
    return found[0] if found else None


def parse_count_output(text: str) -> CountAnswer:
    """The answer in a counter's output, or :class:`MalformedCount`."""
    lines = [line.strip() for line in text.splitlines()]
    s = _one(lines, _S_LINE, "'s'")
    if s is None:
        return CountAnswer("UNKNOWN")
    if s.group(1) not in _STATUS:
        raise MalformedCount(f"'s {s.group(1)[:30]}' is not SATISFIABLE, UNSATISFIABLE or "
                             "UNKNOWN")
    answer = CountAnswer(_STATUS[s.group(1)])
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
            raise MalformedCount(f"epsilon {epsilon.group(1)[:30]} is not a positive number")
    if kind is None:
        if answer.status == "SAT":
            raise MalformedCount("SATISFIABLE without a count ('c s exact arb int N')")
        answer.kind, answer.count = "exact", 0  # UNSATISFIABLE says 0 by itself
    else:
        answer.kind = kind.group(1)
        form = kind.group(2).split()
        if form[:2] != ["arb", "int"] or len(form) != 3:
            raise MalformedCount(f"count 'c s {answer.kind} {kind.group(2)[:40]}' is not "
                                 "'arb int N'")
        answer.count = _integer(form[2])
    if answer.type is None:
        raise MalformedCount("no 'c s type' line")
    if log10:
        answer.log10 = _number(log10.group(1), "log10-estimate", allow_minus_inf=True)
    if answer.status == "SAT" and answer.count == 0:
        raise MalformedCount("SATISFIABLE with count 0")
    if answer.status == "UNSAT" and answer.count != 0:
        raise MalformedCount(f"UNSATISFIABLE with count {_short(answer.count)}")
    if answer.log10 is not None:
        expect = -math.inf if answer.count == 0 else math.log10(answer.count)
        if not (expect == answer.log10 or abs(expect - answer.log10) <= LOG10_SLACK):
            raise MalformedCount(f"log10-estimate {answer.log10:g} is not log10 of the count "
                                 f"({expect:.4f})")
    return answer


def _integer(token: str) -> int:
    if token.startswith("-") and token[1:].isdigit():
        raise MalformedCount(f"negative count {token[:30]}")
    if not (token.isascii() and token.isdigit()):
        raise MalformedCount(f"count {token[:30]!r} is not a non-negative integer")
    if len(token) > MAX_COUNT_DIGITS:
        raise MalformedCount(f"count of {len(token):,} digits: longer than any count puzzlesat "
                             f"reads ({MAX_COUNT_DIGITS:,})")
    return int(token)


def _number(token: str, what: str, allow_minus_inf: bool = False) -> float:
    try:
        value = float(token)
    except ValueError:
        raise MalformedCount(f"{what} {token[:30]!r} is not a number") from None
    if math.isnan(value) or (math.isinf(value) and not (allow_minus_inf and value < 0)):
        raise MalformedCount(f"{what} {token[:30]} is not a finite number")
    return value


def _short(n: int) -> str:
    text = str(n)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} digits)"


@dataclass
class CountVerdict:
    verdict: str
    reasons: list[str] = field(default_factory=list)
    claimed: int | None = None
    certified: int | None = None
    instance: str = ""
    output: str = ""

    @property
    def exit_code(self) -> int:
        """The verdict's exit code (see the module docstring)."""
        return EXIT_CODES[self.verdict]

    def text(self) -> str:
        """The verdict and its reasons, one per line."""
        return "\n".join([self.verdict, *(f"  {r}" for r in self.reasons)])


def judge_count(answer: CountAnswer, certified: int | None, projection: Projection,
                epsilon: float | None = None) -> CountVerdict:
    """The verdict on ``answer`` for an instance with ``projection`` whose certified count is
    ``certified`` (None: not known)."""
    if answer.status == "UNKNOWN":
        return CountVerdict("UNKNOWN", ["no count"], None, certified)
    claimed = answer.count
    assert claimed is not None
    if answer.type != projection.track:
        return CountVerdict("MALFORMED", [f"type {answer.type} counts another problem than the "
                                          f"instance's {projection.track}"], claimed, certified)
    if claimed.bit_length() > projection.size + 1 or claimed > 2 ** projection.size:
        return CountVerdict("WRONG-ANSWER", [f"count {_short(claimed)} is more than "
                                             f"2^{projection.size}, the most {projection.size} "
                                             "shown variables allow"], claimed, certified)
    if certified is None:
        return CountVerdict("UNCHECKED", [f"{answer.kind} count {_short(claimed)}: the instance "
                                          "has no certified count"], claimed, None)
    if answer.kind == "exact":
        if claimed == certified:
            return CountVerdict("VERIFIED", [f"exact count {_short(claimed)} = the certified "
                                             "count"], claimed, certified)
        return CountVerdict("WRONG-ANSWER", [f"exact count {_short(claimed)}, the certified "
                                             f"count is {_short(certified)}"], claimed, certified)
    # the judge's tolerance bounds the answer's: a counter may state a tighter one (and is
    # held to it), never widen it (a forged ``c epsilon: 1e300`` would accept any count)
    eps = min(answer.epsilon or math.inf, epsilon or DEFAULT_EPSILON)
    # within a factor 1 + eps, in exact rational arithmetic: c / (1+e) <= n <= (1+e) c
    num, den = (1 + eps).as_integer_ratio()
    inside = claimed * den <= certified * num and certified * den <= claimed * num
    word = "within" if inside else "outside"
    return CountVerdict("VERIFIED" if inside else "WRONG-ANSWER",
                        [f"approximate count {_short(claimed)} is {word} a factor 1+{eps:g} of the "
                         f"certified count {_short(certified)}"], claimed, certified)


def judge_count_output(text: str, certified: int | None, projection: Projection,
                       epsilon: float | None = None) -> CountVerdict:
    """:func:`judge_count` on the answer in a counter's output ``text``; output that cannot
    be read or contradicts itself is MALFORMED."""
    try:
        return judge_count(parse_count_output(text), certified, projection, epsilon)
    except MalformedCount as exc:
        return CountVerdict("MALFORMED", [str(exc)], None, certified)


def certified_count(dimacs: Dimacs, name: str,
                    solving: Solving | None = None) -> tuple[Projection, int | None, str]:
    """(projection, certified count or None, how it is known) of a counting instance. The
    header's count is checked, never trusted: its puzzle must encode to this CNF with this
    projection, and the family counts it again; any disagreement is a UserError."""
    projection = read_projection(dimacs.comments, dimacs.num_vars, name)
    if projection is None:
        raise UserError(f"{name}: not a counting instance (no 'c t mc|pmc' line)")
    header = dimacs.header
    if "count" not in header:
        return projection, None, "no count in the header"
    stated = None if header["count"] == "unknown" else read_count(header["count"], name)
    family, puzzle, encoding = puzzle_from_header(header, dimacs.num_vars, dimacs.num_clauses)
    mismatch = header_mismatch(dimacs, family, puzzle, encoding)
    if mismatch:
        raise UserError(f"{name}: the header puzzle does not match the CNF ({mismatch})")
    formula = family.encode(puzzle, encoding)
    counting = count_module(family)
    ours = np.unique(np.asarray(counting.shown(puzzle, encoding, formula), dtype=np.int64))
    if not np.array_equal(ours, projection.shown):
        raise UserError(f"{name}: the file's projection ({projection.track}, "
                        f"{projection.size} shown) is not the family's ({ours.size} shown)")
    count = counting.known_count(puzzle, encoding, formula, projection.shown, solving)
    value, source = count.value, count.source
    if value is None:
        holds, why = certified_unsat(dimacs)
        if holds:
            value, source = 0, why
    if stated is not None and value != stated:
        found = "not known" if value is None else str(value)
        raise UserError(f"{name}: header count {stated} contradicts the puzzle's count "
                        f"({found}: {source})")
    return projection, value, source


def validate_count_files(instance: str | os.PathLike, output: str | os.PathLike,
                         epsilon: float | None = None,
                         solving: Solving | None = None) -> CountVerdict:
    """Read a counting instance (a malformed one is a UserError) and a counter's output, and
    judge the count."""
    check_distinct(("the instance", instance), ("the output", output))
    dimacs = read_dimacs(instance)
    projection, certified, source = certified_count(dimacs, str(instance), solving)
    text = read_input(output, SMALL_INPUT, "counter output").decode("utf-8", "replace")
    verdict = judge_count_output(text, certified, projection, epsilon)
    if certified is not None:
        verdict.reasons.append(f"certified count {_short(certified)} ({source})")
    verdict.instance, verdict.output = str(instance), str(output)
    return verdict

"""The judge of one model counter's answer on a counting instance (``generate --count``).

An approximate count is judged against the counter's tolerance ε (ApproxMC's guarantee: with
probability at least 1 − δ the count lies within a factor 1 + ε of the true one): the
judge's, the ``epsilon`` given, else ApproxMC's default 0.8; an output's ``c epsilon: X``
line (our runner writes it) may state a smaller one, which then holds, never a larger one.

The count it is compared with is never taken from the header's word: the header's puzzle must
encode to this very CNF (counts and GBD hash) with this very projection, and the family counts
it again; a header that disagrees is the instance's fault (a UserError, exit 2). Evidence
beats any count: UNSATISFIABLE (count 0) on an instance whose planted witness satisfies every
clause is WRONG-ANSWER, as the SAT judge says of an UNSAT claim.

=============  ====  ============================================================================
VERIFIED       0     the exact count equals the certified count; an approximate one lies within
                     its tolerance of it
UNCHECKED      1     a count that breaks no rule, on an instance without a certified count
UNKNOWN        1     no count (``s UNKNOWN``, no ``s`` line, nothing)
WRONG-ANSWER   3     any other exact count, an approximate one outside its tolerance, a count
                     above 2^(shown variables), UNSATISFIABLE with a count above 0 certified or a
                     planted witness that checks
MALFORMED      3     the output cannot be read or contradicts itself (a negative or non-integer
                     count, a log10 estimate that is not the count's, SATISFIABLE with count 0,
                     a type that is not the instance's track)
=============  ====  ============================================================================
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from puzzlesat.generator.core.counting import MAX_COUNT_DIGITS, Projection, read_projection
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.header import header_count
from puzzlesat.generator.core.reader import Dimacs
from puzzlesat.generator.tracks import get_track as generator_track
from puzzlesat.validate.answers import (
    COUNT_BOUND,
    EPSILON,
    CountAnswer,
    MalformedOutput,
    count_status,
    parse_count_output,
    short_count,
)
from puzzlesat.validate.evidence import HeaderPuzzle
from puzzlesat.validate.tracks import JudgeOptions
from puzzlesat.validate.verdict import Verdict, track_verdicts

VERDICTS = track_verdicts("mc")


@dataclass
class Case:
    """A counting instance read once: its projection, its certified count (None: not known)
    and how it is known, and what its header proves."""

    parsed: Dimacs
    evidence: HeaderPuzzle
    projection: Projection
    certified: int | None
    source: str


def open_case(path: str | os.PathLike, options: JudgeOptions = JudgeOptions()) -> Case:
    """Read a counting instance and certify its count (never the header's word: see the module
    docstring); a file that is not a counting instance, or whose header count its puzzle does
    not give, is a UserError."""
    return case_of(generator_track("mc").read(path), str(path), options)


def case_of(dimacs: Dimacs, name: str, options: JudgeOptions = JudgeOptions()) -> Case:
    """:func:`open_case` of an instance read already."""
    if options.proof is not None:
        raise UserError("--proof: a count comes without a proof")
    projection = read_projection(dimacs.comments, dimacs.num_vars, name)
    if projection is None:
        raise UserError(f"{name}: not a counting instance (no 'c t mc|pmc' line)")
    evidence = HeaderPuzzle(dimacs, generator_track("mc"))
    header = dimacs.header
    if "count" not in header:
        return Case(dimacs, evidence, projection, None, "no count in the header")
    stated = header_count(header, "count", MAX_COUNT_DIGITS)
    if evidence.mismatch:
        raise UserError(f"{name}: the header puzzle does not match the CNF ({evidence.mismatch})")
    formula = evidence.formula
    if not np.array_equal(formula.projection.shown, projection.shown):
        raise UserError(f"{name}: the file's projection ({projection.type}, "
                        f"{projection.size} shown) is not the family's "
                        f"({formula.projection.size} shown)")
    counting = evidence.form.module(evidence.family)
    count = counting.known_count(evidence.puzzle, evidence.encoding, formula,
                                 projection.shown, options.solving)
    value, source = count.value, count.source
    if value is None:
        holds, why = evidence.certificate()
        if holds:
            value, source = 0, why
    if stated is not None and value != stated:
        found = "not known" if value is None else str(value)
        raise UserError(f"{name}: header count {stated} contradicts the puzzle's count "
                        f"({found}: {source})")
    return Case(dimacs, evidence, projection, value, source)


def answer_bound(instance: str | os.PathLike) -> int:
    """The most bytes a counter's answer holds (its count lines and comments)."""
    return COUNT_BOUND


def status(answer: bytes) -> str:
    """What a counter's answer claims (SAT: a positive count, UNSAT: 0), or MalformedOutput."""
    return count_status(answer)


def judge(case: Case, answer: bytes | Exception,
          options: JudgeOptions = JudgeOptions()) -> Verdict:
    """The verdict on one counter's answer (its bytes, or the MalformedOutput reading it
    raised)."""
    expected = None if case.certified is None else f"count {short_count(case.certified)}"
    base: dict[str, Any] = dict(name=str(case.parsed.header.get("instance", "")),
                                expected=expected, expected_from=case.source)
    try:
        if isinstance(answer, Exception):
            raise answer
        parsed = parse_count_output(answer.decode("utf-8", "replace"))
    except MalformedOutput as exc:
        return Verdict("MALFORMED", str(exc), **base)
    # a count of 0 against a planted witness: the witness is worked out only then
    witness = case.evidence.witness() if parsed.count == 0 else ""
    verdict = judge_count(parsed, case.certified, case.projection, options.epsilon, witness)
    verdict.name, verdict.expected, verdict.expected_from = (base["name"], base["expected"],
                                                             base["expected_from"])
    if case.certified is not None:
        verdict.notes.append(f"certified count {short_count(case.certified)} ({case.source})")
    return verdict


def judge_count(answer: CountAnswer, certified: int | None, projection: Projection,
                epsilon: float | None = None, witness: str = "") -> Verdict:
    """The verdict on a parsed count for an instance of ``projection`` whose certified count
    is ``certified`` (None: not known); ``witness`` says how the instance is known SAT ("":
    no planted witness checks). See the module docstring."""
    base: dict = {}
    if answer.status == "UNKNOWN":
        return Verdict("UNKNOWN", "no count", **base)
    claimed = answer.count
    assert claimed is not None
    base["claimed"] = f"{answer.kind} count {short_count(claimed)}"
    if answer.type != projection.type:
        return Verdict("MALFORMED", f"type {answer.type} counts another problem than the "
                       f"instance's {projection.type}", **base)
    if claimed.bit_length() > projection.size + 1 or claimed > 2 ** projection.size:
        return Verdict("WRONG-ANSWER", f"count {short_count(claimed)} is more than "
                       f"2^{projection.size}, the most {projection.size} shown variables "
                       "allow", **base)
    if claimed == 0 and witness:
        return Verdict("WRONG-ANSWER", f"count 0 (UNSATISFIABLE), but {witness}", **base)
    if certified is None:
        return Verdict("UNCHECKED", f"{answer.kind} count {short_count(claimed)}: the instance "
                       "has no certified count", **base)
    if answer.kind == "exact":
        if claimed == certified:
            return Verdict("VERIFIED", f"exact count {short_count(claimed)} = the certified "
                           "count", **base)
        return Verdict("WRONG-ANSWER", f"exact count {short_count(claimed)}, the certified "
                       f"count is {short_count(certified)}", **base)
    # the judge's tolerance bounds the answer's: a counter may state a tighter one (and is
    # held to it), never widen it (a forged ``c epsilon: 1e300`` would accept any count)
    eps = min(answer.epsilon or math.inf, epsilon or EPSILON)
    # within a factor 1 + eps, in exact rational arithmetic: c / (1+e) <= n <= (1+e) c
    num, den = (1 + eps).as_integer_ratio()
    inside = claimed * den <= certified * num and certified * den <= claimed * num
    word = "within" if inside else "outside"
    return Verdict("VERIFIED" if inside else "WRONG-ANSWER",
                   f"approximate count {short_count(claimed)} is {word} a factor 1+{eps:g} of "
                   f"the certified count {short_count(certified)}", **base)

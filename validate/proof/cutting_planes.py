"""Cutting-planes refutations in VeriPB's proof format 2.0: a small checker of our own for
exactly the subset puzzlesat writes (``pol`` steps, then ``conclusion UNSAT``), and the same
derivation in format 1.2 for the legacy VeriPB (0.3a0, the one this machine has) to referee in
the tests.

Constraints. A constraint is sum(a_i * l_i) >= d over literals (``x_v``, or ``~x_v`` = 1 - x_v),
its coefficients and degree integers of any size (Python ints). Its normalised form, which every
rule below reads and writes, has at most one term per variable and only positive coefficients:
terms on one variable are merged (``a x + b x = (a+b) x``, ``a ~x = a - a x``), a negative
coefficient moves to the negated literal (``-a l = a ~l - a``: the degree grows by a) and a zero
one is dropped. So ``2 x1 3 ~x1 >= 2`` is ``1 ~x1 >= 0``, and ``-1 x1 -1 x2 >= -1`` is
``1 ~x1 1 ~x2 >= 1``. Here a normalised constraint is ``(terms, degree)``, terms a dict from a
literal (``v`` for x_v, ``-v`` for ~x_v) to its positive coefficient, never holding both v and -v.

The database: the formula's constraints, ids 1..K in the caller's order (VeriPB's numbering: an
OPB ``=`` is two constraints, its ``>=`` then its ``<=`` over the negated literals; the caller
splits it), normalised; then each ``pol`` step adds one constraint under the next id, K+1,
K+2, ... A step may name only ids already there (never its own, nor a later one).

The rules of ``pol``, a reverse Polish expression read left to right over a stack (A and B
normalised, ``a`` A's coefficient of a literal, d its degree):

* a constraint id pushes that constraint;
* a literal ``x3`` or ``~x3`` pushes its axiom, ``1 x3 >= 0``;
* ``A B +`` pushes the sum, normalised: where A has ``a l`` and B ``b ~l``,
  ``a l + b ~l = (a-b) l + b`` when a >= b and ``(b-a) ~l + a`` when b > a, so min(a, b)
  leaves the degree (and the variable leaves the sum when a = b);
* ``A k *``, k >= 1: every coefficient and the degree times k;
* ``A k d``, k >= 1: every coefficient ceil(a/k) and the degree ceil(d/k) (rounded up,
  on the normalised form; ceil exactly, for a degree below 0 too);
* ``A s`` (saturation): every coefficient min(a, d); when d <= 0 every term goes
  (``>= d`` alone, as VeriPB's own Python reference does);
* the expression must leave exactly one constraint on the stack: that is the step's.

A constraint is a contradiction when the sum of its coefficients is below its degree
(normalised): no assignment reaches the degree. ``>= 1`` with no terms is the usual one, and
``2 x1 >= 3`` is one too (VeriPB's own test: slack < 0); ``>= 0`` is not.

Why it is sound: take any assignment satisfying the formula, so every constraint of the
database before a step. Normalising is an identity on 0/1 values. An axiom is true (a literal
is 0 or 1). A sum of two true inequalities is true; so is a multiple by k > 0. Division: every
coefficient is positive, so sum(ceil(a/k) l) >= sum((a/k) l) >= d/k, and the left side is an
integer, so it is >= ceil(d/k). Saturation: if a literal whose coefficient was capped is true,
the left side is already >= d (the other terms are >= 0); otherwise the true literals' terms did
not change; and ``>= d`` alone with d <= 0 is true. So every derived constraint holds under
the assignment, and a contradiction, which no assignment satisfies, means the formula has none.

The proof file (what :func:`check_refutation` reads; anything else is not verified, with the
reason). Lines end at ``\\n``; tokens are separated by ASCII whitespace (so a ``\\r`` before the
``\\n`` is harmless); numbers are decimal digits without sign or leading zero.

* line 1: ``pseudo-Boolean proof version 2.0``, these four tokens (no other version);
* comment lines (first token starting with ``*``) and blank lines anywhere before the end;
* at most one ``f N`` or ``f``, before the first ``pol``: N must be K;
* ``pol`` lines with the tokens above only: ids, literals ``x<v>``/``~x<v>`` with v >= 1,
  ``+``, ``*``, ``d``, ``s``, and a factor or divisor immediately before its ``*`` or ``d``;
* then ``output NONE``, ``conclusion UNSAT : ID`` (the id must name a contradiction in the
  database) and ``end pseudo-Boolean proof``, in this order; after it, blank lines only.

Where VeriPB reads more: other rules (``rup``, ``del``, ``e``, ...), weakening ``w``, labels,
relative (negative) ids, a ``pol`` ending in ``0`` or ``;``, a conclusion without an id, and
whatever follows ``end``: none is in the subset we emit, so none is accepted here. VeriPB 0.3a0
(legacy format 1.x) also multiplies by 0 (format 2.0 says "strictly positive": refused here);
its C++ saturation of a constraint whose degree is <= 0 is unsound (``pol x1 ~x1 + x2 + x3 +
3 * s`` derives ``3 ~x2 3 ~x3 >= 3`` from nothing, and so a refutation of x2 >= 1, x3 >= 1;
tests/test_cutting_planes.py pins it); and it divides a negative degree by (d + k - 1) / k
rounded toward 0 (``>= -4``, ``2 d``: ``>= -1``), where ceil(-4/2) = -2 here (both are true:
every coefficient is positive, so any degree <= 0 is). Where the two derive different
constraints, the one derived here is the weaker.

Cost: reading is linear in the bytes; a step costs the sizes of the constraints it touches
(an id on the stack is not copied until it must change, and a sum changes the larger operand
when it may, so a ``pol`` of millions of operands is linear); numbers are Python ints, read from
their digits in O(M(n) log n) time rather than CPython's quadratic way, and never printed whole.
The clock (a ``deadline``) is read before each step and every 65,536 terms within one; past it,
a TimeoutError: the proof is not checked, which is no rejection (as for the DRAT checker).
"""

from __future__ import annotations

import heapq
import operator
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

#: a normalised constraint: {literal: positive coefficient} and the degree
Constraint = tuple[dict[int, int], int]

HEADER = (b"pseudo-Boolean", b"proof", b"version", b"2.0")
END = (b"end", b"pseudo-Boolean", b"proof")

_NUMBER = re.compile(rb"0|[1-9][0-9]*")
_NEGATIVE = re.compile(rb"-[0-9]+")
_LITERAL = re.compile(rb"(~?)x([1-9][0-9]*)")
#: digits int() reads at once (CPython refuses more than 4300 and is quadratic)
_DIGITS_AT_ONCE = 3000
#: work (terms touched) between two looks at the clock
_WORK_PER_TICK = 1 << 16


@dataclass(frozen=True)
class Refutation:
    """A checked proof: ``verified``, why not or what was derived, and how many ``pol`` steps
    were checked; ``unsupported`` when it was not verified because it is written in what this
    checker does not read (another version, a rule beyond the subset), not because a step is
    wrong (another checker may read it)."""

    verified: bool
    reason: str
    steps: int
    unsupported: bool = False


class _Refused(Exception):
    """The proof is not verified: why, and on which line (when known)."""

    def __init__(self, why: str, line: int | None = None, unsupported: bool = False) -> None:
        super().__init__(why)
        self.why, self.line, self.unsupported = why, line, unsupported


def _decimal(digits: bytes) -> int:
    """The value of a string of decimal digits, any length (halves, recursively)."""
    if len(digits) <= _DIGITS_AT_ONCE:
        return int(digits)
    low = len(digits) // 2
    return _decimal(digits[:-low]) * 10 ** low + _decimal(digits[-low:])


def _show_int(n: int) -> str:
    """n in decimal, or its size when it has too many digits to print."""
    if n.bit_length() <= 3 * _DIGITS_AT_ONCE:
        return str(n)
    return f"{'-' if n < 0 else ''}<a number of about {int(n.bit_length() * 0.30103)} digits>"


def _show_token(token: bytes) -> str:
    """A token as text, cut short (it may be anything)."""
    text = token[:40].decode("ascii", "backslashreplace")
    return "`" + text + ("..." if len(token) > 40 else "") + "`"


def show(constraint: Constraint, limit: int = 8) -> str:
    """A normalised constraint in VeriPB's notation (``1 x1 2 ~x3 >= 2``), its first
    ``limit`` terms by variable."""
    terms, degree = constraint
    shown = heapq.nsmallest(limit, terms.items(), key=lambda t: abs(t[0]))
    text = " ".join(f"{_show_int(a)} {'~' if l < 0 else ''}x{abs(l)}" for l, a in shown)
    if len(terms) > limit:
        text += f" ... ({len(terms)} terms)"
    return (text + " " if text else "") + f">= {_show_int(degree)}"


def normalise(terms: Sequence[tuple[int, int]], degree: int) -> Constraint:
    """The normalised form of sum(coef * literal) >= degree (``terms`` as (coef, literal)
    pairs, literal -v for ~x_v); ValueError for a literal 0, TypeError for a non-integer."""
    linear: dict[int, int] = {}  # variable -> coefficient of x_v
    degree = operator.index(degree)
    for coef, lit in terms:
        coef, lit = operator.index(coef), operator.index(lit)
        if lit == 0:
            raise ValueError("literal 0")
        if lit < 0:  # c ~x = c - c x
            degree -= coef
            coef = -coef
        linear[abs(lit)] = linear.get(abs(lit), 0) + coef
    out: dict[int, int] = {}
    for v, a in linear.items():
        if a > 0:
            out[v] = a
        elif a < 0:  # a x = -a ~x + a
            out[-v] = -a
            degree -= a
    return out, degree


def is_contradiction(constraint: Constraint) -> bool:
    """No assignment satisfies the normalised ``constraint``: its coefficients sum to less
    than its degree."""
    terms, degree = constraint
    return sum(terms.values()) < degree


def _add_into(into: dict[int, int], degree: int, other: dict[int, int]) -> int:
    """Add the terms ``other`` to ``into`` in place (normalised, as the module says); the
    degree of ``into`` after it (before adding the other's degree)."""
    for lit, b in other.items():
        a = into.get(lit)
        if a is not None:
            into[lit] = a + b
            continue
        a = into.get(-lit)
        if a is None:
            into[lit] = b
        elif a > b:  # a ~l + b l = (a-b) ~l + b
            into[-lit] = a - b
            degree -= b
        else:
            del into[-lit]
            degree -= a
            if b > a:
                into[lit] = b - a
    return degree


class _Entry:
    """A constraint on a ``pol`` stack; ``owned`` when its dict is this step's own (a
    database constraint is shared and copied before it changes)."""

    __slots__ = ("degree", "owned", "terms")

    def __init__(self, terms: dict[int, int], degree: int, owned: bool) -> None:
        self.terms, self.degree, self.owned = terms, degree, owned


def _evaluate(tokens: list[bytes], database: list[Constraint], tick) -> Constraint:
    """The constraint the ``pol`` expression ``tokens`` (after ``pol``) derives from
    ``database``; _Refused when it is not one of the subset's, or an operation is refused.
    ``tick(work)`` is told the terms each operation touched."""
    stack: list[_Entry] = []
    i, n = 0, len(tokens)
    known = len(database)
    known_digits = len(str(known))
    while i < n:
        token = tokens[i]
        following = tokens[i + 1] if i + 1 < n else b""
        if token == b"+":
            if len(stack) < 2:
                raise _Refused(f"`+` needs two constraints on the stack, it has {len(stack)}")
            b, a = stack.pop(), stack.pop()
            # change the larger operand when it is ours, else this step's own one, else a copy
            if b.owned and (not a.owned or len(b.terms) > len(a.terms)):
                a, b = b, a
            elif not a.owned:
                if len(b.terms) > len(a.terms):
                    a, b = b, a
                a = _Entry(dict(a.terms), a.degree, True)
                tick(len(a.terms))
            a.degree = _add_into(a.terms, a.degree, b.terms) + b.degree
            tick(len(b.terms))
            stack.append(a)
        elif token == b"s":
            if not stack:
                raise _Refused("`s` needs a constraint on the stack, it is empty")
            a = stack.pop()
            d = a.degree
            terms = {l: min(c, d) for l, c in a.terms.items()} if d > 0 else {}
            tick(len(a.terms))
            stack.append(_Entry(terms, d, True))
        elif _NUMBER.fullmatch(token):
            if following in (b"*", b"d"):
                k = _decimal(token)
                what = "multiplication" if following == b"*" else "division"
                if k == 0:
                    raise _Refused(f"{what} by 0")
                if not stack:
                    raise _Refused(f"{_show_token(following)} needs a constraint on the stack, "
                                   "it is empty")
                a = stack.pop()
                if following == b"*":
                    terms = {l: c * k for l, c in a.terms.items()}
                    degree = a.degree * k
                else:
                    terms = {l: -(-c // k) for l, c in a.terms.items()}
                    degree = -(-a.degree // k)
                tick(len(a.terms))
                stack.append(_Entry(terms, degree, True))
                i += 2
                continue
            if len(token) > known_digits or not 1 <= (j := int(token)) <= known:
                why = ("there is no constraint 0" if token == b"0" else
                       f"constraint {_show_token(token)[1:-1]} is not derived yet "
                       f"(the last is {known})")
                raise _Refused(why)
            terms, degree = database[j - 1]
            stack.append(_Entry(terms, degree, False))
        elif m := _LITERAL.fullmatch(token):
            v = _decimal(m.group(2))
            stack.append(_Entry({-v if m.group(1) else v: 1}, 0, True))
        elif token in (b"*", b"d"):
            raise _Refused(f"{_show_token(token)} without its factor just before it "
                           "(write `A k *`, `A k d`)")
        elif _NEGATIVE.fullmatch(token):
            if following == b"*":
                raise _Refused("multiplication by a negative number")
            if following == b"d":
                raise _Refused("division by a negative number")
            raise _Refused(f"negative (relative) constraint id {_show_token(token)}: not in "
                           "the subset read here")
        else:
            raise _Refused(f"{_show_token(token)} is not in the subset read here (ids, "
                           "literals x<v> and ~x<v>, +, k *, k d, s)")
        i += 1
    if len(stack) != 1:
        raise _Refused(f"the expression leaves {len(stack)} constraints on the stack, not 1")
    top = stack[0]
    return top.terms, top.degree


def _lines(proof: bytes) -> Iterator[tuple[int, list[bytes]]]:
    """(line number from 1, tokens) of each line (a last line may lack its newline)."""
    start, number = 0, 0
    while start < len(proof):
        end = proof.find(b"\n", start)
        if end < 0:
            end = len(proof)
        number += 1
        yield number, proof[start:end].split()
        start = end + 1


def _events(proof: bytes) -> Iterator[tuple[str, int, list[bytes]]]:
    """The proof's steps, their order checked: (kind, line, tokens after the rule's name), kind
    ``f``, ``pol`` or ``conclusion`` (comments, blank lines, ``output NONE`` and the end are
    checked and not passed on); _Refused at the first line out of the subset, or a missing
    end."""
    state = "header"  # header, rules (f, pol, output), conclusion, end, ended
    seen_f = seen_pol = False
    for number, tokens in _lines(proof):
        if state == "header":
            if tuple(tokens) != HEADER:
                if tokens[:3] == list(HEADER[:3]):
                    version = _show_token(b" ".join(tokens[3:]))
                    raise _Refused(f"version {version} proofs are not read here: version 2.0 "
                                   "only", number, unsupported=True)
                raise _Refused("the first line is not `pseudo-Boolean proof version 2.0`",
                               number)
            state = "rules"
            continue
        if state == "ended":
            if tokens:
                raise _Refused("text after `end pseudo-Boolean proof`", number)
            continue
        if not tokens or tokens[0].startswith(b"*"):
            continue  # a blank line, a comment
        rule = tokens[0]
        if state == "rules" and rule == b"pol":
            seen_pol = True
            yield "pol", number, tokens[1:]
        elif state == "rules" and rule == b"f":
            if seen_f or seen_pol:
                raise _Refused("`f` after " + ("`f`" if seen_f else "a `pol` step"), number)
            if len(tokens) > 2 or (len(tokens) == 2 and not _NUMBER.fullmatch(tokens[1])):
                raise _Refused("`f` takes one number, the formula's constraints", number)
            seen_f = True
            yield "f", number, tokens[1:]
        elif state == "rules" and rule == b"output":
            if tokens != [b"output", b"NONE"]:
                raise _Refused("only `output NONE` is read here", number, unsupported=True)
            state = "conclusion"
        elif state == "conclusion" and rule == b"conclusion":
            if tokens[:2] != [b"conclusion", b"UNSAT"]:
                raise _Refused("only `conclusion UNSAT : ID` is a refutation", number,
                               unsupported=True)
            if len(tokens) != 4 or tokens[2] != b":" or not _NUMBER.fullmatch(tokens[3]):
                raise _Refused("`conclusion UNSAT` must name its contradiction: "
                               "`conclusion UNSAT : ID`", number)
            state = "end"
            yield "conclusion", number, tokens[3:]
        elif state == "end" and tuple(tokens) == END:
            state = "ended"
        else:
            expected = {"rules": "`f`, `pol` or `output NONE`", "conclusion":
                        "`conclusion UNSAT : ID`", "end": "`end pseudo-Boolean proof`"}[state]
            raise _Refused(f"{_show_token(rule)} where {expected} belongs (the subset read "
                           "here: pol steps, then the conclusion UNSAT)", number,
                           unsupported=state == "rules" and rule not in (b"f", b"pol"))
    if state == "header":
        raise _Refused("the proof is empty: no `pseudo-Boolean proof version 2.0` line")
    if state != "ended":
        missing = {"rules": "`output NONE`, `conclusion UNSAT : ID` and ",
                   "conclusion": "`conclusion UNSAT : ID` and ", "end": ""}[state]
        raise _Refused(f"the proof ends without {missing}`end pseudo-Boolean proof`")


def _id(token: bytes, known: int) -> int | None:
    """The id a number token names, when 1 <= id <= known; else None (a long one unread)."""
    if len(token) > len(str(known)):
        return None
    j = int(token)
    return j if 1 <= j <= known else None


def derive(constraints: Sequence[tuple[Sequence[tuple[int, int]], int]], proof: bytes,
           name: str = "proof",
           deadline: float | None = None) -> tuple[Refutation, list[Constraint]]:
    """:func:`check_refutation`'s verdict and the database it had then: the formula's
    constraints, normalised, and every step it derived (for tests and diagnostics)."""
    database: list[Constraint] = []
    for i, constraint in enumerate(constraints, 1):
        try:
            terms, degree = constraint
            database.append(normalise(terms, degree))
        except (TypeError, ValueError) as error:
            return Refutation(False, f"the formula's constraint {i} is no constraint: {error}",
                              0), database
    formula = len(database)
    lines: list[int] = []  # the line of each derived constraint
    work = [0]

    def tick(n: int) -> None:  # before each step, and after each _WORK_PER_TICK terms in one
        work[0] += n + 1
        if work[0] >= _WORK_PER_TICK:
            work[0] = 0
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"{name}: no time left at step {len(lines) + 1}")

    found = 0
    try:
        for kind, number, tokens in _events(proof):
            try:
                if kind == "pol":
                    tick(_WORK_PER_TICK)
                    database.append(_evaluate(tokens, database, tick))
                    lines.append(number)
                elif kind == "f" and tokens and tokens[0] != str(formula).encode():
                    raise _Refused(f"`f {_show_token(tokens[0])[1:-1]}`, but the formula has "
                                   f"{formula} constraints")
                elif kind == "conclusion":
                    found = _id(tokens[0], len(database)) or 0
                    if not found:
                        raise _Refused(f"the conclusion names constraint "
                                       f"{_show_token(tokens[0])[1:-1]}, which is not derived "
                                       f"(the last is {len(database)})")
                    if not is_contradiction(database[found - 1]):
                        raise _Refused(f"the conclusion names constraint {found}, "
                                       f"{show(database[found - 1])}, which is not a "
                                       "contradiction")
            except _Refused as refused:
                raise _Refused(refused.why, number, refused.unsupported) from None
    except _Refused as refused:
        where = "" if refused.line is None else f"line {refused.line}: "
        return Refutation(False, f"{name}: {where}{refused.why}", len(lines),
                          refused.unsupported), database
    origin = (f"derived on line {lines[found - formula - 1]}" if found > formula
              else "of the formula")
    return Refutation(True, f"contradiction: constraint {found} ({origin}) is "
                            f"{show(database[found - 1])}", len(lines)), database


def check_refutation(constraints: Sequence[tuple[Sequence[tuple[int, int]], int]],
                     proof: bytes, name: str = "proof",
                     deadline: float | None = None) -> Refutation:
    """Check the VeriPB 2.0 refutation ``proof`` of the formula ``constraints`` (each
    ``(terms, degree)``: sum of (coef, literal) terms >= degree, literal -v for ~x_v; id i is
    ``constraints[i-1]``), as the module says. Any bytes give a verdict; past ``deadline``
    (``time.monotonic()``) a TimeoutError: not checked, which is no rejection."""
    return derive(constraints, proof, name, deadline)[0]


def to_version_1(proof: bytes, num_constraints: int) -> bytes:
    """The same derivation in format 1.2, for VeriPB 0.3a0: its header, ``f N`` (the proof's
    own N when it has one, else ``num_constraints``), the ``pol`` lines as they are, and ``c ID``
    for the conclusion (comments are dropped). ValueError when the proof's frame (all but the
    ``pol`` lines, which are passed on unjudged) is not the subset :func:`check_refutation`
    reads: format 1.x has no such frame to judge."""
    try:
        events = list(_events(proof))
    except _Refused as refused:
        where = "" if refused.line is None else f"line {refused.line}: "
        raise ValueError(f"not a version 2.0 refutation of the subset: {where}{refused.why}"
                         ) from None
    count = next((t[0] for kind, _, t in events if kind == "f" and t),
                 str(num_constraints).encode())
    out = [b"pseudo-Boolean proof version 1.2", b"f " + count]
    for kind, _, tokens in events:
        if kind == "pol":
            out.append(b" ".join([b"pol", *tokens]))
        elif kind == "conclusion":
            out.append(b"c " + tokens[0])
    return b"\n".join(out) + b"\n"

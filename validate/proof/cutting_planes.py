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

* a constraint id pushes that constraint, and so does a relative id ``-k``: the k-th last
  in the database (``-1`` is the last one there before this step; VeriPB's meaning);
* a literal ``x3`` or ``~x3`` pushes its axiom, ``1 x3 >= 0`` (a variable of the instance);
* ``A B +`` pushes the sum, normalised: where A has ``a l`` and B ``b ~l``,
  ``a l + b ~l = (a-b) l + b`` when a >= b and ``(b-a) ~l + a`` when b > a, so min(a, b)
  leaves the degree (and the variable leaves the sum when a = b);
* ``A k *``, k >= 1: every coefficient and the degree times k;
* ``A k d``, k >= 1: every coefficient ceil(a/k) and the degree ceil(d/k) (rounded up,
  on the normalised form; ceil exactly, for a degree below 0 too);
* ``A s`` (saturation): every coefficient min(a, d); when d <= 0 every term goes
  (``>= d`` alone, as VeriPB's own Python reference does);
* the expression must leave exactly one constraint on the stack: that is the step's (a
  final ``;`` or ``0`` ends it, as VeriPB reads them, and derives nothing).

A constraint is a contradiction when the sum of its coefficients is below its degree
(normalised): no assignment reaches the degree. ``>= 1`` with no terms is the usual one, and
``2 x1 >= 3`` is one too (VeriPB's own test: slack < 0); ``>= 0`` is not.

Why it is sound: take any assignment satisfying the formula, so every constraint of the
database before a step. Normalising is an identity on 0/1 values. A relative id names a
constraint of the database as an absolute one does. An axiom is true (a literal is 0 or 1). A
sum of two true inequalities is true; so is a multiple by k > 0. Division: every coefficient is
positive, so sum(ceil(a/k) l) >= sum((a/k) l) >= d/k, and the left side is an integer, so it
is >= ceil(d/k). Saturation: if a literal whose coefficient was capped is true, the left side
is already >= d (the other terms are >= 0); otherwise the true literals' terms did not change;
and ``>= d`` alone with d <= 0 is true. So every derived constraint holds under the
assignment, and a contradiction, which no assignment satisfies, means the formula has none.

The proof file (what :func:`check_refutation` reads; anything else is not verified, with the
reason, as Verdicts below say). Lines end at ``\\n``; tokens are separated by ASCII whitespace
(so a ``\\r`` before the ``\\n`` is harmless); numbers are decimal digits without sign or
leading zero (a relative id has its ``-``).

* line 1: ``pseudo-Boolean proof version 2.0``, these four tokens (no other version);
* comment lines (first token starting with ``*``) and blank lines anywhere before the end;
* at most one ``f N`` or ``f``, before the first ``pol``: N must be K;
* ``pol`` lines with the tokens above only: ids ``j`` and ``-k``, literals ``x<v>`` and
  ``~x<v>`` with 1 <= v <= num_vars, ``+``, ``*``, ``d``, ``s``, a factor or divisor
  immediately before its ``*`` or ``d``, and perhaps a final ``;`` or ``0``;
* then ``output NONE``, ``conclusion UNSAT : ID`` (the id, absolute or relative, must name a
  contradiction in the database) and ``end pseudo-Boolean proof``, in this order; after it,
  blank lines only.

Verdicts. A proof is *verified* when every line is read and checked and the conclusion names a
contradiction. It is *rejected* (``Refutation.unsupported`` false) only when a line read here
is wrong: a step whose semantics fail (an id not derived yet, or naming no constraint; an
operation without its operands on the stack, or an expression that leaves other than one
constraint; a factor or divisor 0 or negative; ``*``/``d`` without its number), ``f N`` with
another count, a conclusion naming no contradiction, or a proof that ends (or is empty)
before its conclusion and end. Anything written in what this checker does not read is *not
checked* (``unsupported``: the judge then asks VeriPB where it is installed), never a
rejection, for VeriPB may well read it: another version, other rules (``rup``, ``del``,
``e``, ``red``, ...), weakening ``w``, labels ``@name``, tokens outside the list above
(``+2``, ``01``, ``-0``, ``x0``), ``;`` or ``0`` before a ``pol``'s end, a conclusion other
than ``UNSAT : ID``, a line where the frame above has none (``f`` twice, a rule after
``output``, text after the end), a first line not the header, and a literal on a variable
beyond the instance's count (below). So is a proof past its budget (below).

Where VeriPB reads more. Relative ids (``-1`` is the last constraint) and a ``pol`` ending in
``;`` or ``0``, which VeriPB 0.3a0 verifies, are read here as it reads them; the rest of the
list above is not read here, whatever VeriPB makes of it. A literal axiom on a variable the
instance does not have (``x7`` when ``#variable= 6``) is a sound step (a fresh variable's axiom
holds under every extension of a model, and VeriPB 0.3a0 checks ``pol x7 1 +`` on a
one-variable formula), so it is no error in the proof and no rejection; but it is what lets one
short line build a constraint of any size out of nothing (``pol x1 x2 + x3 + ...``), so it is
not read here: the axioms stop at ``num_vars``, the instance's variable count (by default the
largest variable the formula names). VeriPB 0.3a0 (legacy format 1.x) also multiplies by 0
(format 2.0 says "strictly positive": refused here); its C++ saturation of a constraint whose
degree is <= 0 is unsound (``pol x1 ~x1 + x2 + x3 + 3 * s`` derives ``3 ~x2 3 ~x3 >= 3`` from
nothing, and so a refutation of x2 >= 1, x3 >= 1; tests/test_cutting_planes.py pins it); and it
divides a negative degree by (d + k - 1) / k rounded toward 0 (``>= -4``, ``2 d``: ``>= -1``),
where ceil(-4/2) = -2 here (both are true: every coefficient is positive, so any degree <= 0
is). Where the two derive different constraints, the one derived here is the weaker.

Cost. Reading is linear in the bytes, one line's tokens taken one at a time (a line of 200 MB
is never split into a list); a step costs the sizes of the constraints it touches (an id on
the stack is not copied until it must change, and a sum changes the larger operand when it
may, so a ``pol`` of millions of operands is linear); numbers are Python ints, read from their
digits in O(M(n) log n) time rather than CPython's quadratic way, and never printed whole.

The budget. A short proof can still ask for much: ``pol 545 1 *`` (12 bytes) copies constraint
545, and ``pol 545 2 * 2 * 2 * ...`` doubles every coefficient each 4 bytes, so its work grows
with the square of its length. So every check has a budget in 8-byte words, 32 per term of the
formula (and per 64 bits of its numbers) and per byte of the proof, and 2 ** 26 (512 MiB) at
most however long they are (the judge reads up to 64 MiB of proof), against which the checker
counts what it keeps and touches, as CPython keeps it (measured): 12 words a term written or
read, 32 a new constraint's dict, 8 a constraint pushed or stored, and each number's words
times what the arithmetic does with them (a product or quotient, schoolbook: words(a) x
words(k); reading n digits, about (n/19) ** 1.6). Where the cost of an operation is known
before it runs (a copy, a product, a quotient, a saturation, reading a number) it is counted
first, so the budget refuses the operation rather than pays for it. Past the budget the check
stops as *not checked* (``unsupported``: the proof may be valid, but is too costly to check
here), never verified and never rejected, and the reason says so. So a proof costs at most
about 256 bytes of memory per byte of it and per term of the formula (512 MiB in all), and as
much work. Why 32: the generator's proofs spend at most 3.5 words per term of their formula
and byte of their own (edge-matching 4x4: 2,016 terms, 913 bytes, 10,299 words; 0.9 on a
16x16 board, 0.1 on a 30x30 Flow grid), and the tests' proofs at most 7.5 (a sum of 200,000
axioms), both measured: a budget 9 and 4 times what they need.

The clock (a ``deadline``) is read before each step, every 65,536 words of work within one and
before each half of a long number is read, so no line overruns it by more than one operation;
past it, a TimeoutError: the proof is not checked, which is no rejection (as for the DRAT
checker).
"""

from __future__ import annotations

import heapq
import itertools
import operator
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

#: a normalised constraint: {literal: positive coefficient} and the degree
Constraint = tuple[dict[int, int], int]

HEADER = (b"pseudo-Boolean", b"proof", b"version", b"2.0")
END = (b"end", b"pseudo-Boolean", b"proof")

_TOKEN = re.compile(rb"[^ \t\n\r\x0b\x0c]+")  # what bytes.split() separates: ASCII whitespace
_NUMBER = re.compile(rb"0|[1-9][0-9]*")
_NEGATIVE = re.compile(rb"-[0-9]+")
_RELATIVE = re.compile(rb"-[1-9][0-9]*")
_LITERAL = re.compile(rb"(~?)x([1-9][0-9]*)")
#: digits int() reads at once (CPython refuses more than 4300 and is quadratic)
_DIGITS_AT_ONCE = 3000
#: work (words) between two looks at the clock
_WORK_PER_TICK = 1 << 16
# What CPython keeps, in 8-byte words (measured with tracemalloc on 3.11): a term is its dict
# slot and its coefficient's int object (52 to 87 bytes), a constraint's dict has some 230
# bytes of its own (an axiom on the stack costs 320 in all), and a constraint on the stack or
# in the database its object and slot (64 bytes).
_TERM_WORDS = 12
_DICT_WORDS = 32
_ENTRY_WORDS = 8
#: the budget: this many words per term of the formula (and per 64 bits of its numbers) and
#: per byte of the proof (the module docstring says why 32), and never more than MAX_BUDGET
#: words (512 MiB), however long the proof
BUDGET_PER_INPUT = 32
MAX_BUDGET = 1 << 26


@dataclass(frozen=True)
class Refutation:
    """A checked proof: ``verified``, why not or what was derived, and how many ``pol`` steps
    were checked; ``unsupported`` when it was not verified because it is written in what this
    checker does not read (another version, a rule beyond the subset) or costs more than its
    budget, not because a step is wrong (another checker may read it)."""

    verified: bool
    reason: str
    steps: int
    unsupported: bool = False


class _Refused(Exception):
    """The proof is not verified: why, on which line (when known), and whether because it is
    not read here (``unsupported``) rather than wrong."""

    def __init__(self, why: str, line: int | None = None, unsupported: bool = False) -> None:
        super().__init__(why)
        self.why, self.line, self.unsupported = why, line, unsupported


def _unread(why: str, line: int | None = None) -> _Refused:
    """A refusal that is no rejection: what the proof says there is not read here."""
    return _Refused(why, line, unsupported=True)


class _Meter:
    """The words a check has kept and touched so far, against its budget; and the clock, read
    every _WORK_PER_TICK words (and before every step)."""

    def __init__(self, budget: int, deadline: float | None, name: str) -> None:
        self.budget, self.deadline, self.name = budget, deadline, name
        self.spent = self.since_clock = 0

    def charge(self, words: int) -> None:
        """Count ``words`` of work (before doing it where its cost is known first)."""
        self.spent += words
        if self.spent > self.budget:
            raise _unread(f"not checked: it costs more than the {self.budget:,} words of work "
                          f"this checker gives it ({BUDGET_PER_INPUT} per term of the formula "
                          f"and per byte of the proof, {MAX_BUDGET:,} at most), so it may be "
                          "valid but is too costly to check here")
        self.since_clock += words
        if self.since_clock >= _WORK_PER_TICK:
            self.clock()

    def clock(self) -> None:
        """TimeoutError once the deadline has passed."""
        self.since_clock = 0
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimeoutError(f"{self.name}: no time left after {self.spent:,} words of work")


def _words(terms: dict[int, int], degree: int) -> int:
    """The words of a normalised constraint's terms and numbers (its dict's own not counted)."""
    bits = sum(map(int.bit_length, terms.values())) + degree.bit_length()
    return _TERM_WORDS * len(terms) + bits // 64 + 1


def _input_size(formula: list[Constraint]) -> int:
    """What the formula paid for: its terms, and a term more for each 64 bits of its numbers."""
    return sum(len(terms) + (sum(map(int.bit_length, terms.values())) + degree.bit_length())
               // 64 for terms, degree in formula)


def _number_words(n: int) -> int:
    """The 64-bit words of n."""
    return 1 + n.bit_length() // 64


def _quotient_words(terms: dict[int, int], degree: int, wk: int) -> int:
    """The work of dividing a constraint by a number of ``wk`` words: its dict and terms, and
    k's words times each quotient's (schoolbook long division)."""
    numbers = itertools.chain(terms.values(), (degree,))
    quotients = sum(wk * max(_number_words(c) - wk + 1, 1) for c in numbers)
    return _DICT_WORDS + _TERM_WORDS * len(terms) + quotients


def _decimal(digits: bytes, clock=lambda: None) -> int:
    """The value of a string of decimal digits, any length (halves, recursively, ``clock()``
    called before each)."""
    if len(digits) <= _DIGITS_AT_ONCE:
        return int(digits)
    clock()
    low = len(digits) // 2
    return _decimal(digits[:-low], clock) * 10 ** low + _decimal(digits[-low:], clock)


def _parse_words(digits: int) -> int:
    """The word operations of reading a number of ``digits`` digits (Karatsuba's products:
    about w ** 1.6 for w words)."""
    return int((1 + digits // 19) ** 1.6)


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


def _add_into(into: dict[int, int], degree: int, other: dict[int, int]) -> tuple[int, int]:
    """Add the terms ``other`` to ``into`` in place (normalised, as the module says): the
    degree of ``into`` after it (before adding the other's degree), and the bits of the
    numbers of ``into`` it read (their work is charged)."""
    bits = 0
    for lit, b in other.items():
        a = into.get(lit)
        if a is not None:
            into[lit] = a + b
            bits += a.bit_length()
            continue
        a = into.get(-lit)
        if a is None:
            into[lit] = b
            continue
        bits += a.bit_length()
        if a > b:  # a ~l + b l = (a-b) ~l + b
            into[-lit] = a - b
            degree -= b
        else:
            del into[-lit]
            degree -= a
            if b > a:
                into[lit] = b - a
    return degree, bits


class _Entry:
    """A constraint on a ``pol`` stack; ``owned`` when its dict is this step's own (a
    database constraint is shared and copied before it changes)."""

    __slots__ = ("degree", "owned", "terms")

    def __init__(self, terms: dict[int, int], degree: int, owned: bool) -> None:
        self.terms, self.degree, self.owned = terms, degree, owned


def _resolve(token: bytes, known: int) -> int | None:
    """The id an id token names among ``known`` constraints (``j``, or ``-k`` the k-th last),
    0 when it names none (refused), None when the token is no id. A number longer than
    ``known`` is not read (it may have any length)."""
    longest = len(str(known))
    if _NUMBER.fullmatch(token):
        j = int(token) if len(token) <= longest else known + 1
        return j if j <= known else 0
    if _RELATIVE.fullmatch(token):
        k = int(token[1:]) if len(token) <= longest + 1 else known + 1
        return known + 1 - k if k <= known else 0
    return None


def _evaluate(tokens: Iterator[bytes], database: list[Constraint], meter: _Meter,
              num_vars: int) -> Constraint:
    """The constraint the ``pol`` expression ``tokens`` (after ``pol``) derives from
    ``database``; _Refused when an operation fails, unsupported when a token is not read
    here (the module's Verdicts). The meter is charged each operation's work."""
    stack: list[_Entry] = []
    known = len(database)
    token = next(tokens, None)
    while token is not None:
        following = next(tokens, None)
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
                meter.charge(_ENTRY_WORDS + _DICT_WORDS + _TERM_WORDS * len(a.terms))
                a = _Entry(dict(a.terms), a.degree, True)
            meter.charge(_words(b.terms, b.degree))
            degree, bits = _add_into(a.terms, a.degree, b.terms)
            a.degree = degree + b.degree
            meter.charge(bits // 64)
            stack.append(a)
        elif token == b"s":
            if not stack:
                raise _Refused("`s` needs a constraint on the stack, it is empty")
            a = stack.pop()
            d = a.degree
            meter.charge(_ENTRY_WORDS + _DICT_WORDS + _words(a.terms, d))
            terms = {l: min(c, d) for l, c in a.terms.items()} if d > 0 else {}
            stack.append(_Entry(terms, d, True))
        elif following in (b"*", b"d") and _NUMBER.fullmatch(token):
            what = "multiplication" if following == b"*" else "division"
            if token == b"0":
                raise _Refused(f"{what} by 0")
            if not stack:
                raise _Refused(f"{_show_token(following)} needs a constraint on the stack, "
                               "it is empty")
            meter.charge(_parse_words(len(token)))
            k = _decimal(token, meter.clock)
            a = stack.pop()
            wk = _number_words(k)
            if following == b"*":  # schoolbook: each number's words times k's
                meter.charge(_ENTRY_WORDS + _DICT_WORDS + _words(a.terms, a.degree) * wk)
                terms = {l: c * k for l, c in a.terms.items()}
                degree = a.degree * k
            else:
                meter.charge(_ENTRY_WORDS + _quotient_words(a.terms, a.degree, wk))
                terms = {l: -(-c // k) for l, c in a.terms.items()}
                degree = -(-a.degree // k)
            stack.append(_Entry(terms, degree, True))
            following = next(tokens, None)  # past the * or d
        elif following in (b"*", b"d") and _NEGATIVE.fullmatch(token):
            raise _Refused(("multiplication" if following == b"*" else "division")
                           + " by a negative number")
        elif token in (b";", b"0") and following is None:
            pass  # the end, as VeriPB reads it
        elif token == b"0":
            raise _unread("`0` before the end of a pol (VeriPB 1.x ends the expression there): "
                          "not read here")
        elif (j := _resolve(token, known)) is not None:
            if not j:
                raise _Refused(f"constraint {_show_token(token)[1:-1]} is not derived yet "
                               f"(the last is {known})" if token[:1] != b"-" else
                               f"relative id {_show_token(token)[1:-1]} names no constraint "
                               f"(there are {known})")
            meter.charge(_ENTRY_WORDS)
            terms, degree = database[j - 1]
            stack.append(_Entry(terms, degree, False))
        elif m := _LITERAL.fullmatch(token):
            digits = m.group(2)
            if len(digits) > len(str(num_vars)) or int(digits) > num_vars:
                raise _unread(f"the literal {_show_token(token)} is on no variable of the "
                              f"instance (it has {num_vars}): such axioms are not read here")
            meter.charge(_ENTRY_WORDS + _DICT_WORDS + _TERM_WORDS)
            v = int(digits)
            stack.append(_Entry({-v if m.group(1) else v: 1}, 0, True))
        elif token in (b"*", b"d"):
            raise _Refused(f"{_show_token(token)} without its factor just before it "
                           "(write `A k *`, `A k d`)")
        else:
            raise _unread(f"{_show_token(token)} is not in the subset read here (ids, "
                          "literals x<v> and ~x<v>, +, k *, k d, s)")
        token = following
    if len(stack) != 1:
        raise _Refused(f"the expression leaves {len(stack)} constraints on the stack, not 1")
    top = stack[0]
    return top.terms, top.degree


def _lines(proof: bytes) -> Iterator[tuple[int, Iterator[bytes]]]:
    """(line number from 1, its tokens one at a time) of each line (a last line may lack its
    newline); a line's tokens are never all held at once (a line may be the whole proof)."""
    start, number = 0, 0
    while start < len(proof):
        end = proof.find(b"\n", start)
        if end < 0:
            end = len(proof)
        number += 1
        yield number, (m.group() for m in _TOKEN.finditer(proof, start, end))
        start = end + 1


def _events(proof: bytes) -> Iterator[tuple[str, int, Iterator[bytes]]]:
    """The proof's steps, their order checked: (kind, line, tokens after the rule's name), kind
    ``f``, ``pol`` or ``conclusion`` (comments, blank lines, ``output NONE`` and the end are
    checked and not passed on); _Refused at the first line not read here (unsupported), or a
    missing end."""
    state = "header"  # header, rules (f, pol, output), conclusion, end, ended
    seen_f = seen_pol = False
    for number, tokens in _lines(proof):
        rule = next(tokens, None)
        if state == "header":
            head = [] if rule is None else [rule, *itertools.islice(tokens, 4)]
            if tuple(head) != HEADER:
                if head[:3] == list(HEADER[:3]):
                    version = _show_token(b" ".join(head[3:]))
                    raise _unread(f"version {version} proofs are not read here: version 2.0 "
                                  "only", number)
                raise _unread("the first line is not `pseudo-Boolean proof version 2.0`",
                              number)
            state = "rules"
            continue
        if state == "ended":
            if rule is not None:
                raise _unread("text after `end pseudo-Boolean proof` is not read here", number)
            continue
        if rule is None or rule.startswith(b"*"):
            continue  # a blank line, a comment
        if state == "rules" and rule == b"pol":
            seen_pol = True
            yield "pol", number, tokens
            continue
        rest = list(itertools.islice(tokens, 4))  # a frame line is short: more is not read
        if state == "rules" and rule == b"f":
            if seen_f or seen_pol:
                raise _unread("`f` after " + ("`f`" if seen_f else "a `pol` step") + " is "
                              "not read here", number)
            if len(rest) > 1 or (rest and not _NUMBER.fullmatch(rest[0])):
                raise _unread("`f` takes one number here, the formula's constraints", number)
            seen_f = True
            yield "f", number, iter(rest)
        elif state == "rules" and rule == b"output":
            if rest != [b"NONE"]:
                raise _unread("only `output NONE` is read here", number)
            state = "conclusion"
        elif state == "conclusion" and rule == b"conclusion":
            if rest[:1] != [b"UNSAT"]:
                raise _unread("only `conclusion UNSAT : ID` is read here", number)
            if len(rest) != 3 or rest[1] != b":" or _resolve(rest[2], 0) is None:
                raise _unread("only a `conclusion UNSAT` that names its contradiction, "
                              "`conclusion UNSAT : ID`, is read here", number)
            state = "end"
            yield "conclusion", number, iter(rest[2:])
        elif state == "end" and tuple([rule, *rest]) == END:
            state = "ended"
        else:
            expected = {"rules": "`f`, `pol` or `output NONE`", "conclusion":
                        "`conclusion UNSAT : ID`", "end": "`end pseudo-Boolean proof`"}[state]
            raise _unread(f"{_show_token(rule)} where {expected} belongs is not read here (the "
                          "subset: pol steps, then the conclusion UNSAT)", number)
    if state == "header":
        raise _Refused("the proof is empty: no `pseudo-Boolean proof version 2.0` line")
    if state != "ended":
        missing = {"rules": "`output NONE`, `conclusion UNSAT : ID` and ",
                   "conclusion": "`conclusion UNSAT : ID` and ", "end": ""}[state]
        raise _Refused(f"the proof ends without {missing}`end pseudo-Boolean proof`")


def derive(constraints: Sequence[tuple[Sequence[tuple[int, int]], int]], proof: bytes,
           name: str = "proof", deadline: float | None = None, num_vars: int | None = None,
           budget: int | None = None) -> tuple[Refutation, list[Constraint]]:
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
    if num_vars is None:
        num_vars = max((abs(l) for terms, _ in database for l in terms), default=0)
    if budget is None:
        budget = min(BUDGET_PER_INPUT * (_input_size(database) + len(proof)), MAX_BUDGET)
    meter = _Meter(budget, deadline, name)
    lines: list[int] = []  # the line of each derived constraint
    found = 0
    try:
        for kind, number, tokens in _events(proof):
            try:
                if kind == "pol":
                    meter.clock()
                    meter.charge(_ENTRY_WORDS)  # its place in the database
                    database.append(_evaluate(tokens, database, meter, num_vars))
                    lines.append(number)
                elif kind == "f" and (count := next(tokens, b"")) and \
                        count != str(formula).encode():
                    raise _Refused(f"`f {_show_token(count)[1:-1]}`, but the formula has "
                                   f"{formula} constraints")
                elif kind == "conclusion":
                    token = next(tokens)
                    found = _resolve(token, len(database)) or 0
                    if not found:
                        raise _Refused(f"the conclusion names constraint "
                                       f"{_show_token(token)[1:-1]}, which is not derived "
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
                     proof: bytes, name: str = "proof", deadline: float | None = None,
                     num_vars: int | None = None, budget: int | None = None) -> Refutation:
    """Check the VeriPB 2.0 refutation ``proof`` of the formula ``constraints`` (each
    ``(terms, degree)``: sum of (coef, literal) terms >= degree, literal -v for ~x_v; id i is
    ``constraints[i-1]``) over variables 1..``num_vars`` (by default the largest the formula
    names), within ``budget`` words of work (by default BUDGET_PER_INPUT per term of the
    formula and byte of the proof, MAX_BUDGET at most), as the module says. Any bytes give a
    verdict; past ``deadline`` (``time.monotonic()``) a TimeoutError: not checked, which is no
    rejection."""
    return derive(constraints, proof, name, deadline, num_vars, budget)[0]


def to_version_1(proof: bytes, num_constraints: int) -> bytes:
    """The same derivation in format 1.2, for VeriPB 0.3a0: its header, ``f N`` (the proof's
    own N when it has one, else ``num_constraints``), the ``pol`` lines as they are, and ``c ID``
    for the conclusion (comments are dropped). ValueError when the proof's frame (all but the
    ``pol`` lines, which are passed on unjudged) is not the subset :func:`check_refutation`
    reads: format 1.x has no such frame to judge."""
    out = [b"pseudo-Boolean proof version 1.2", b""]
    count = str(num_constraints).encode()
    try:
        for kind, _, tokens in _events(proof):
            if kind == "f":
                count = next(tokens, count)
            elif kind == "pol":
                out.append(b" ".join([b"pol", *tokens]))
            else:
                out.append(b"c " + next(tokens))
    except _Refused as refused:
        where = "" if refused.line is None else f"line {refused.line}: "
        raise ValueError(f"not a version 2.0 refutation of the subset: {where}{refused.why}"
                         ) from None
    out[1] = b"f " + count
    return b"\n".join(out) + b"\n"

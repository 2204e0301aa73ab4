"""The cutting-planes checker (VeriPB 2.0 ``pol`` refutations): the triangle and a parity
refutation verified, their satisfiable variants and forged proofs not, every rule against
VeriPB's own trace, hostile bytes and numbers, Hypothesis properties (every derived constraint
is implied, checked over all assignments, and agrees with a plain reference of the
arithmetic), and the legacy VeriPB 0.3a0 as referee through to_version_1 where it is installed
(``$PUZZLESAT_VERIPB``, by default /work/tools/veripb-venv/bin/veripb)."""

from __future__ import annotations

import itertools
import math
import os
import re
import subprocess
import time
import tracemalloc
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import assume as hypothesis_assume
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlesat.validate.proof import cutting_planes
from puzzlesat.validate.proof.cutting_planes import (
    BUDGET_PER_INPUT,
    MAX_BUDGET,
    Refutation,
    check_refutation,
    derive,
    is_contradiction,
    normalise,
    show,
    to_version_1,
)

VERIPB = Path(os.environ.get("PUZZLESAT_VERIPB", "/work/tools/veripb-venv/bin/veripb"))
needs_veripb = pytest.mark.skipif(not VERIPB.is_file(), reason=f"no VeriPB at {VERIPB}")


def v2(*lines: str, conclusion: int | str | None = None, end: bool = True) -> bytes:
    """A version 2.0 proof: the header, ``lines``, and (given ``conclusion``) the three
    closing lines, the last one unless ``end`` is false."""
    text = ["pseudo-Boolean proof version 2.0", *lines]
    if conclusion is not None:
        text += ["output NONE", f"conclusion UNSAT : {conclusion}"]
        if end:
            text.append("end pseudo-Boolean proof")
    return "".join(line + "\n" for line in text).encode()


def equality(terms: list[tuple[int, int]], rhs: int) -> list:
    """An OPB ``=`` as VeriPB numbers it: the ``>=``, then the ``<=`` over the negated
    literals."""
    return [(terms, rhs), ([(c, -l) for c, l in terms], sum(c for c, _ in terms) - rhs)]


def cycle(n: int) -> list:
    """x_i + x_{i+1} = 1 around a cycle of n variables (UNSAT exactly when n is odd)."""
    return [c for i in range(n) for c in equality([(1, i + 1), (1, (i + 1) % n + 1)], 1)]


#: the triangle of pb-facts §3.4 (ex/triangle_unsat.opb: 1 x1 1 x2 = 1 ; ...), and its proof
TRIANGLE = [*equality([(1, 1), (1, 2)], 1), *equality([(1, 2), (1, 3)], 1),
            *equality([(1, 1), (1, 3)], 1)]
TRIANGLE_STEPS = ("pol 1 3 + 5 + 2 d", "pol 2 4 + 6 + 2 d", "pol 7 8 +")
TRIANGLE_PROOF = v2("f 6", *TRIANGLE_STEPS, conclusion=9)
#: the triangle with its third constraint a `>=` only (satisfiable: x1 = x3 = 1)
TRIANGLE_SAT = TRIANGLE[:5]
#: the 4-cycle (satisfiable: x1 = x3 = 1): the triangle's proof gives sum x >= 2 and <= 2
SQUARE = cycle(4)
SQUARE_PROOF = v2("f 8", "pol 1 3 + 5 + 7 + 2 d", "pol 2 4 + 6 + 8 + 2 d", "pol 9 10 +",
                  conclusion=11)


def grid(row_sums: list[int], col_sums: list[int]) -> tuple[list, bytes]:
    """An edge-matching-style parity formula and its refutation: y[r][c] with each row and
    each column summing to its number (rows' ``<=`` halves written over negated literals,
    columns' with negative coefficients: both are read). Every y is in one row and one
    column, so the ``>=`` halves add up to 2 sum(y) >= sum of all the numbers, which ``2 d``
    rounds up when it is odd; the ``<=`` halves likewise; their sum is 0 >= 1 exactly when
    the numbers add up to an odd total."""
    rows, cols = len(row_sums), len(col_sums)
    y = [[r * cols + c + 1 for c in range(cols)] for r in range(rows)]
    constraints = []
    for r, b in enumerate(row_sums):
        constraints += equality([(1, y[r][c]) for c in range(cols)], b)
    for c, b in enumerate(col_sums):
        constraints += [([(1, y[r][c]) for r in range(rows)], b),
                        ([(-1, y[r][c]) for r in range(rows)], -b)]
    at_least = range(1, len(constraints) + 1, 2)
    at_most = range(2, len(constraints) + 1, 2)
    k = len(constraints)

    def total(ids) -> str:
        ids = list(ids)
        return " ".join([str(ids[0])] + [f"{i} +" for i in ids[1:]])

    proof = v2(f"f {k}", f"pol {total(at_least)} 2 d", f"pol {total(at_most)} 2 d",
               f"pol {k + 1} {k + 2} +", conclusion=k + 3)
    return constraints, proof


#: rows 1, 1, 1 and columns 1, 1, 2: 7 in all, odd (rows say 3 ones, columns 4)
PARITY, PARITY_PROOF = grid([1, 1, 1], [1, 1, 2])
#: a permutation matrix: 6 in all, even; the same steps end in 0 >= 0
PARITY_SAT, PARITY_SAT_PROOF = grid([1, 1, 1], [1, 1, 1])
#: x2 >= 1, x3 >= 1: satisfiable; VeriPB 0.3a0's saturation of `>= -3` derives ~x2 + ~x3 >= 1
UNIT_PAIR = [([(1, 2)], 1), ([(1, 3)], 1)]


def models(constraints, num_vars: int):
    """Every assignment (a tuple of 0/1, index v-1 for x_v) that satisfies ``constraints``."""
    for values in itertools.product((0, 1), repeat=num_vars):
        if all(holds(normalise(t, d), values) for t, d in constraints):
            yield values


def holds(constraint, values) -> bool:
    """The normalised constraint is true under ``values``."""
    terms, degree = constraint
    return sum(a * (values[abs(l) - 1] if l > 0 else 1 - values[abs(l) - 1])
               for l, a in terms.items()) >= degree


def num_vars(constraints) -> int:
    return max((abs(l) for t, _ in constraints for _, l in t), default=0)


# ---------------------------------------------------------------------------------------------
# the corpus: every proof the legacy VeriPB referees below


@dataclass(frozen=True)
class Case:
    name: str
    constraints: list
    proof: bytes
    verified: bool
    why: str  # a piece of the reason
    #: "agrees": VeriPB 0.3a0 gives the same verdict on to_version_1's translation;
    #: "frame": the proof's frame is wrong, which format 1.x cannot say (to_version_1 refuses);
    #: else why the legacy checker differs (it accepts what we refuse)
    legacy: str = "agrees"
    #: not verified because not read here (the judge asks VeriPB), not because it is wrong
    unsupported: bool = False


CORPUS = [
    Case("triangle", TRIANGLE, TRIANGLE_PROOF, True, "constraint 9 (derived on line 5) is >= 1"),
    Case("parity", PARITY, PARITY_PROOF, True, "constraint 15 (derived on line 5) is >= 1"),
    Case("odd-cycle-5", cycle(5), v2("pol 1 3 + 5 + 7 + 9 + 2 d", "pol 2 4 + 6 + 8 + 10 + 2 d",
                                     "pol 11 12 +", conclusion=13), True, ">= 1"),
    Case("comments-blank-lines-crlf-no-f", TRIANGLE,
         b"pseudo-Boolean proof version 2.0\r\n* a comment\r\n\r\n\tpol 1 3 + 5 +  2 d\r\n"
         b"*\r\npol 2 4 + 6 + 2 d\r\npol 7 8 +\r\noutput NONE\r\n* between\r\n"
         b"conclusion UNSAT : 9\r\nend pseudo-Boolean proof", True, "constraint 9"),
    Case("contradiction-in-formula", [([(1, 1)], 1), ([], 1)],
         v2("f 2", conclusion=2), True, "constraint 2 (of the formula) is >= 1"),
    Case("contradiction-with-terms", [([(1, 1)], 1), ([(-1, 1)], 0)],
         v2("pol 1 2 +", conclusion=3), True, ">= 1"),
    Case("2x1>=3-is-a-contradiction", [([(2, 1)], 3)], v2(conclusion=1), True,
         "is 2 x1 >= 3"),
    # a satisfiable formula under the steps that refute its UNSAT sibling
    Case("parity-even-count", PARITY_SAT, PARITY_SAT_PROOF, False,
         "constraint 15, >= 0, which is not a contradiction"),
    Case("square-needs-4/2-rounded-to-3", SQUARE, SQUARE_PROOF, False, "constraint 11, >= 0, which is not a contradiction"),
    Case("triangle-proof-on-sat-variant", TRIANGLE_SAT, v2(*TRIANGLE_STEPS, conclusion=9),
         False, "constraint 8 is not derived yet (the last is 7)"),
    Case("triangle-sat-variant-renumbered", TRIANGLE_SAT,
         v2("f 5", "pol 1 3 + 5 + 2 d", "pol 2 4 +", "pol 6 7 +", conclusion=8), False,
         "which is not a contradiction"),
    # forgeries
    Case("conclusion-on-non-contradiction", TRIANGLE, v2(*TRIANGLE_STEPS, conclusion=8), False,
         "constraint 8, 1 ~x1 1 ~x2 1 ~x3 >= 2, which is not a contradiction"),
    Case("wrong-coefficient", TRIANGLE,
         v2("pol 1 3 + 5 + 2 d", "pol 2 4 + 6 + 2 d", "pol 7 8 2 * +", conclusion=9), False,
         "constraint 9, 1 ~x1 1 ~x2 1 ~x3 >= 3, which is not a contradiction"),
    Case("wrong-divisor", TRIANGLE,
         v2("pol 1 3 + 5 + 3 d", "pol 2 4 + 6 + 2 d", "pol 7 8 +", conclusion=9), False,
         "which is not a contradiction"),
    # x1 + x2 >= 1, 2 d: rounding the coefficients down (and the degree up) would give 0 >= 1
    Case("division-rounding-coefficients-down", [([(1, 1), (1, 2)], 1)],
         v2("pol 1 2 d", conclusion=2), False,
         "constraint 2, 1 x1 1 x2 >= 1, which is not a contradiction"),
    Case("id-from-the-future", TRIANGLE,
         v2("pol 1 3 + 7 + 2 d", "pol 2 4 + 6 + 2 d", "pol 7 8 +", conclusion=9), False,
         "line 2: constraint 7 is not derived yet (the last is 6)"),
    Case("conclusion-from-the-future", TRIANGLE, v2(*TRIANGLE_STEPS, conclusion=10), False,
         "constraint 10, which is not derived (the last is 9)"),
    # the triangle's proof after a harmless `pol 1 0 *` (id 7)
    Case("multiplication-by-0", TRIANGLE, v2("pol 1 0 *", "pol 1 3 + 5 + 2 d",
                                             "pol 2 4 + 6 + 2 d", "pol 8 9 +", conclusion=10),
         False, "line 2: multiplication by 0",
        legacy="VeriPB 0.3a0 multiplies by 0; format 2.0 says the factor is strictly positive"),
    Case("multiplication-by-negative", TRIANGLE,
         v2("pol 1 -1 *", *TRIANGLE_STEPS, conclusion=10), False,
         "line 2: multiplication by a negative number"),
    Case("division-by-0", TRIANGLE, v2("pol 1 3 + 5 + 0 d", conclusion=7), False,
         "line 2: division by 0"),
    Case("division-by-negative", TRIANGLE, v2("pol 1 3 + 5 + -2 d", conclusion=7), False,
         "division by a negative number"),
    Case("empty-stack", TRIANGLE, v2("pol 1 +", conclusion=7), False,
         "`+` needs two constraints on the stack, it has 1"),
    Case("two-left-on-the-stack", TRIANGLE, v2("pol 1 3", conclusion=7), False,
         "leaves 2 constraints on the stack, not 1"),
    Case("empty-pol", TRIANGLE, v2("pol", conclusion=7), False,
         "leaves 0 constraints on the stack, not 1"),
    Case("wrong-f", TRIANGLE, v2("f 3", *TRIANGLE_STEPS, conclusion=9), False,
         "`f 3`, but the formula has 6 constraints"),
    Case("legacy-unsound-saturation", UNIT_PAIR,
         v2("pol x1 ~x1 + x2 + x3 + 3 * s", "pol 3 3 d 1 + 2 +", conclusion=4), False,
         "constraint 4, 1 x2 1 x3 >= 1, which is not a contradiction",
         legacy="VeriPB 0.3a0 saturates 3 x2 3 x3 >= -3 to 3 ~x2 3 ~x3 >= 3 (unsound)"),
    # the frame
    Case("missing-end", TRIANGLE, v2(*TRIANGLE_STEPS, conclusion=9, end=False), False,
         "the proof ends without `end pseudo-Boolean proof`", legacy="frame"),
    Case("missing-conclusion", TRIANGLE, v2(*TRIANGLE_STEPS), False,
         "ends without `output NONE`, `conclusion UNSAT : ID` and", legacy="frame"),
    # written in what the checker does not read: not checked, never rejected
    Case("version-1-header", TRIANGLE,
         b"pseudo-Boolean proof version 1.2\nf 6\npol 1 3 + 5 + 2 d\npol 2 4 + 6 + 2 d\n"
         b"pol 7 8 +\nc 9\n", False, "line 1: version `1.2` proofs are not read here",
         legacy="frame", unsupported=True),
    Case("pol-after-output", TRIANGLE,
         v2(*TRIANGLE_STEPS[:2], "output NONE", "pol 7 8 +", "conclusion UNSAT : 9",
            "end pseudo-Boolean proof"), False, "`pol` where `conclusion UNSAT : ID` belongs",
         legacy="frame", unsupported=True),
    Case("text-after-end", TRIANGLE, TRIANGLE_PROOF + b"pol 1 2 +\n", False,
         "line 9: text after `end pseudo-Boolean proof`", legacy="frame", unsupported=True),
    Case("another-rule", TRIANGLE, v2("rup >= 1 ;", conclusion=7), False,
         "`rup` where `f`, `pol` or `output NONE` belongs", legacy="frame", unsupported=True),
    Case("conclusion-without-id", TRIANGLE,
         v2(*TRIANGLE_STEPS, "output NONE", "conclusion UNSAT", "end pseudo-Boolean proof"),
         False, "names its contradiction, `conclusion UNSAT : ID`, is read here",
         legacy="frame", unsupported=True),
    Case("weakening", TRIANGLE, v2("pol 1 x2 w", "pol 1 3 + 5 + 2 d", "pol 2 4 + 6 + 2 d",
                                   "pol 8 9 +", conclusion=10), False,
         "line 2: `w` is not in the subset read here", unsupported=True,
         legacy="VeriPB 0.3a0 weakens; not read here"),
    # an axiom on a variable the instance does not have: sound, and VeriPB reads it, but the
    # checker does not (one line would build a constraint of any size out of nothing)
    Case("axiom-beyond-the-variables", TRIANGLE,
         v2("pol x4 1 +", "pol 1 3 + 5 + 2 d", "pol 2 4 + 6 + 2 d", "pol 8 9 +",
            conclusion=10), False,
         "line 2: the literal `x4` is on no variable of the instance (it has 3)",
         unsupported=True, legacy="VeriPB 0.3a0 reads a fresh variable's axiom (sound)"),
    # what VeriPB reads and the checker reads as it does: relative ids, a final ; or 0
    Case("relative-ids", TRIANGLE, v2("f 6", "pol -6 -4 + -2 + 2 d", "pol -6 -4 + -2 + 2 d",
                                      "pol -2 -1 +", conclusion=9), True,
         "constraint 9 (derived on line 5) is >= 1"),
    Case("relative-id-in-the-conclusion", TRIANGLE, v2(*TRIANGLE_STEPS, conclusion=-1), True,
         "constraint 9 (derived on line 4) is >= 1"),
    Case("semicolons", TRIANGLE, v2(*(s + " ;" for s in TRIANGLE_STEPS), conclusion=9), True,
         "constraint 9"),
    Case("final-zeros", TRIANGLE, v2(*(s + " 0" for s in TRIANGLE_STEPS), conclusion=9), True,
         "constraint 9"),
    Case("relative-id-before-the-first", TRIANGLE, v2("pol -7 1 +", conclusion=7), False,
         "line 2: relative id -7 names no constraint (there are 6)"),
]


@pytest.mark.parametrize("case", CORPUS, ids=lambda c: c.name)
def test_corpus(case: Case):
    result = check_refutation(case.constraints, case.proof, name="p")
    assert isinstance(result, Refutation)
    assert result.verified is case.verified, result.reason
    assert case.why in result.reason, result.reason
    assert result.unsupported is case.unsupported, result.reason
    if not case.verified and "the formula has" not in case.why:
        # a refusal names the proof, and the line where there is one
        assert result.reason.startswith("p: "), result.reason


@pytest.mark.parametrize("case", [c for c in CORPUS if not c.verified and c.constraints
                                  in (TRIANGLE_SAT, SQUARE, PARITY_SAT, UNIT_PAIR)],
                         ids=lambda c: c.name)
def test_the_satisfiable_formulas_are_satisfiable(case: Case):
    """What the forgeries on them would refute has a model (so the verdict is the right one,
    and the legacy checker's acceptance of one of them is its error)."""
    assert next(models(case.constraints, num_vars(case.constraints)), None) is not None


def test_unsat_formulas_of_the_corpus_are_unsat():
    for case in CORPUS:
        if case.verified:
            assert next(models(case.constraints, num_vars(case.constraints)), None) is None


def test_steps_count_the_checked_pol_steps():
    assert check_refutation(TRIANGLE, TRIANGLE_PROOF).steps == 3
    assert check_refutation(TRIANGLE, v2("pol 1 3 + 5 + 2 d", "pol 1 0 *",
                                         conclusion=7)).steps == 1
    assert check_refutation(PARITY, PARITY_PROOF).steps == 3


def test_the_triangle_derives_what_veripb_traces():
    """pb-facts §3.4, VeriPB 0.3a0's --trace: 7: 1 x1 1 x2 1 x3 >= 2, 8: 1 ~x1 1 ~x2 1 ~x3 >= 2,
    9: >= 1; and the formula's ``<=`` halves as 1 ~x1 1 ~x2 >= 1."""
    result, db = derive(TRIANGLE, TRIANGLE_PROOF)
    assert result.verified
    assert [show(c) for c in db] == [
        "1 x1 1 x2 >= 1", "1 ~x1 1 ~x2 >= 1", "1 x2 1 x3 >= 1", "1 ~x2 1 ~x3 >= 1",
        "1 x1 1 x3 >= 1", "1 ~x1 1 ~x3 >= 1", "1 x1 1 x2 1 x3 >= 2",
        "1 ~x1 1 ~x2 1 ~x3 >= 2", ">= 1"]


def test_every_rule_gives_what_veripb_checked():
    """ex/mixed_ids.opb/.pbp of pb-facts §3.3: each ``e`` line there was accepted by VeriPB
    0.3a0 (division rounds up, saturation, a multiple plus an axiom, an axiom cancelling a
    literal, a sum of multiples)."""
    formula = [([(1, 1), (1, 2)], 1), *equality([(1, 2), (1, 3)], 1), ([(2, 1), (3, -3)], 2)]
    result, db = derive(formula, v2("f 4", "pol 4 2 d", "pol 4 s", "pol 1 3 * x2 +",
                                    "pol 1 ~x1 +", "pol 4 3 * 1 2 * +", conclusion=1))
    assert not result.verified and "not a contradiction" in result.reason
    assert db[4:] == [({1: 1, -3: 2}, 1), ({1: 2, -3: 2}, 2), ({1: 3, 2: 4}, 3),
                      ({2: 1}, 0), ({1: 8, 2: 2, -3: 9}, 8)]
    assert db[2] == ({-2: 1, -3: 1}, 1)


@pytest.mark.parametrize("terms, degree, expected", [
    ([(2, 1), (3, -1)], 2, ({-1: 1}, 0)),          # 2 x1 + 3 ~x1 = 3 - x1
    ([(-1, 1), (-1, 2)], -1, ({-1: 1, -2: 1}, 1)),  # a `<=` written with negative coefficients
    ([(1, 1), (1, 1), (-2, 1)], 0, ({}, 0)),         # cancelling to nothing
    ([(0, 3), (5, -2)], 4, ({-2: 5}, 4)),
    ([(-3, -1)], -3, ({1: 3}, 0)),                   # -3 ~x1 = 3 x1 - 3
])
def test_normalised_form(terms, degree, expected):
    assert normalise(terms, degree) == expected


def test_the_formula_may_be_given_in_any_integer_form():
    """The ``<=`` half as negative coefficients or as negated literals: the same constraint."""
    def positive_literals(terms, degree):  # c ~x = c - c x
        return ([(-c, -l) if l < 0 else (c, l) for c, l in terms],
                degree - sum(c for c, l in terms if l < 0))

    other = [positive_literals(t, d) for t, d in TRIANGLE]
    assert other[1] == ([(-1, 1), (-1, 2)], -1)
    assert check_refutation(other, TRIANGLE_PROOF) == check_refutation(TRIANGLE, TRIANGLE_PROOF)


@pytest.mark.parametrize("bad", [[([(1, 0)], 1)], [([(1.5, 1)], 1)], [([(1, 1)], "1")],
                                 [([("x", 1)], 1)], [([(1, 1)],)], [None], [([1], 1)]])
def test_a_malformed_formula_is_a_refusal_not_an_exception(bad):
    result = check_refutation(bad, TRIANGLE_PROOF)
    assert not result.verified and "the formula's constraint 1 is no constraint" in result.reason


@pytest.mark.parametrize("body, why, unsupported", [
    # syntax VeriPB may read and this checker does not: not checked
    ("pol 1 x0 +", "`x0` is not in the subset", True),
    ("pol 01 3 +", "`01` is not in the subset", True),
    ("pol 1 +2 *", "`+2` is not in the subset", True),
    ("pol 1 -01 +", "`-01` is not in the subset", True),
    ("pol 1 -0 +", "`-0` is not in the subset", True),
    ("pol 1 ; 3 +", "`;` is not in the subset", True),
    ("pol 1 3 + ; ;", "`;` is not in the subset", True),
    ("pol 1 0 3 +", "`0` before the end of a pol", True),
    ("pol 1 x2 w", "`w` is not in the subset", True),
    ("pol 1 @a +", "`@a` is not in the subset", True),
    ("pol 1 \xff +", "`\\xc3\\xbf` is not in the subset", True),
    ("pol 1 x4 +", "the literal `x4` is on no variable of the instance (it has 3)", True),
    ("pol 1 ~x4 +", "the literal `~x4` is on no variable of the instance", True),
    # an expression read here that fails: rejected
    ("pol 1 3 + *", "`*` without its factor", False),
    ("pol 1 x1 *", "`*` without its factor", False),
    ("pol 2 *", "`*` needs a constraint on the stack", False),
    ("pol s", "`s` needs a constraint", False),
    ("pol 1 -7 +", "relative id -7 names no constraint (there are 6)", False),
    ("pol 1 7 +", "constraint 7 is not derived yet (the last is 6)", False),
    ("pol 1 1 + ;", "constraint 7, 2 x1 2 x2 >= 2, which is not a contradiction", False),
])
def test_tokens_out_of_the_subset(body, why, unsupported):
    result = check_refutation(TRIANGLE, v2(body, conclusion=7))
    assert not result.verified and why in result.reason, result.reason
    assert result.unsupported is unsupported, result.reason


def test_relative_ids_and_terminators_on_the_generators_proof_shape():
    """The red team's two valid rewrites of a parity proof's last step, ``pol -2 -1 +`` and a
    trailing `` ;``, verify as the original does; every id form gives the same database."""
    reference = derive(PARITY, PARITY_PROOF)
    k = len(PARITY)
    for last in ("pol -2 -1 +", f"pol {k + 1} {k + 2} + ;", "pol -2 -1 + ;",
                 f"pol {k + 1} -1 + 0"):
        proof = PARITY_PROOF.replace(f"pol {k + 1} {k + 2} +".encode(), last.encode())
        assert proof != PARITY_PROOF
        result, db = derive(PARITY, proof)
        assert result.verified and db == reference[1], (last, result.reason)


def test_the_frame():
    """A frame line not read here is not checked (another checker may read it); a proof that
    is empty or ends before its conclusion and end is wrong."""
    named = "names its contradiction, `conclusion UNSAT : ID`, is read here"
    not_read = {
        b"\n" + TRIANGLE_PROOF: "line 1: the first line is not",
        b"* c\n" + TRIANGLE_PROOF: "line 1: the first line is not",
        b"pseudo-Boolean proof version 3.0\n": "version `3.0` proofs are not read here",
        v2("pol 1 3 +", "f 6", conclusion=7): "line 3: `f` after a `pol` step",
        v2("f", "f 6", conclusion=7): "line 3: `f` after `f`",
        v2("f 6 7", conclusion=7): "`f` takes one number",
        v2("f x", conclusion=7): "`f` takes one number",
        v2(*TRIANGLE_STEPS, "output DERIVABLE f.opb"): "only `output NONE`",
        v2(*TRIANGLE_STEPS, "output NONE", "conclusion SAT"): "only `conclusion UNSAT : ID`",
        v2(*TRIANGLE_STEPS, "output NONE", "conclusion UNSAT :9", "end pseudo-Boolean proof"):
            named,
        v2(*TRIANGLE_STEPS, "output NONE", "conclusion UNSAT : 9 9",
           "end pseudo-Boolean proof"): named,
        v2(*TRIANGLE_STEPS, "output NONE", "conclusion UNSAT : +9",
           "end pseudo-Boolean proof"): named,
        v2(*TRIANGLE_STEPS, "conclusion UNSAT : 9", "end pseudo-Boolean proof"):
            "`conclusion` where `f`, `pol` or `output NONE` belongs",
        v2(*TRIANGLE_STEPS, "output NONE", "output NONE"): "`output` where `conclusion",
        v2(*TRIANGLE_STEPS, conclusion=9) + b"end pseudo-Boolean proof\n": "text after `end",
        v2(*TRIANGLE_STEPS, conclusion=9, end=False) + b"end proof\n":
            "`end` where `end pseudo-Boolean proof` belongs",
    }
    wrong = {
        b"": "the proof is empty",
        v2(*TRIANGLE_STEPS, "output NONE"): "ends without `conclusion UNSAT : ID` and `end",
        v2("f 7", *TRIANGLE_STEPS, conclusion=9): "`f 7`, but the formula has 6 constraints",
        v2(*TRIANGLE_STEPS, conclusion=0): "names constraint 0, which is not derived",
        v2(*TRIANGLE_STEPS, conclusion=-10): "names constraint -10, which is not derived",
    }
    for cases, unsupported in ((not_read, True), (wrong, False)):
        for proof, why in cases.items():
            result = check_refutation(TRIANGLE, proof)
            assert not result.verified and why in result.reason, (proof, result.reason)
            assert result.unsupported is unsupported, (proof, result.reason)
    # blank lines after the end, and an f without its number, are fine
    assert check_refutation(TRIANGLE, TRIANGLE_PROOF + b"\n  \n\n").verified
    assert check_refutation(TRIANGLE, v2("f", *TRIANGLE_STEPS, conclusion=9)).verified


def test_division_of_a_negative_degree_is_the_exact_ceiling():
    """``>= -4``, ``2 d``: -2 (VeriPB 0.3a0 gives -1, (d + k - 1) / k rounded toward 0; both
    are true, and ours the weaker)."""
    _, db = derive([([(1, 1)], 1)], v2("pol x1 ~x1 + 4 * 2 d", "pol x1 ~x1 + 3 * 2 d",
                                       "pol x1 ~x1 + 2 * 2 d", "pol x1 ~x1 + 2 * 3 d",
                                       conclusion=1))
    assert [c[1] for c in db[1:]] == [-2, -1, -1, 0]


def test_an_empty_formula():
    assert "not derived" in check_refutation([], v2("f 0", conclusion=1)).reason
    assert check_refutation([], v2("f 0", "pol x1 ~x1 +", conclusion=1),
                            num_vars=1).reason.endswith(
        "constraint 1, >= -1, which is not a contradiction")
    # its variables are none, unless the caller says how many the instance has
    assert check_refutation([], v2("f 0", "pol x1 ~x1 +", conclusion=1)).unsupported


def test_a_late_error_refuses_a_proof_that_found_its_contradiction_already():
    """Every step is checked, those after the contradiction too."""
    proof = v2(*TRIANGLE_STEPS, "pol 1 0 d", conclusion=9)
    result = check_refutation(TRIANGLE, proof)
    assert not result.verified and "line 5: division by 0" in result.reason
    assert result.steps == 3


# ---------------------------------------------------------------------------------------------
# hostile numbers and sizes

BIG = "9" * 30_000 + "7"  # 30,001 digits: int() of Python 3.11 refuses more than 4,300


def test_numbers_of_thousands_of_digits():
    # multiplied and divided back by a 30,001-digit number: the triangle's proof still holds
    proof = v2(f"pol 1 3 + 5 + {BIG} * {BIG} d 2 d", "pol 2 4 + 6 + 2 d", "pol 7 8 +",
               conclusion=9)
    result = check_refutation(TRIANGLE, proof)
    assert result.verified, result.reason
    # a contradiction of that size is shown by its size
    big = check_refutation([([(1, 1)], 1), ([(1, -1)], 1)],
                           v2(f"pol 1 {BIG} * 2 {BIG} * +", conclusion=3))
    assert big.verified and "<a number of about 30001 digits>" in big.reason, big.reason
    assert len(big.reason) < 200
    # and a non-contradiction too
    assert "<a number of about" in check_refutation(
        [([(1, 1)], 1)], v2(f"pol 1 {BIG} *", conclusion=2)).reason
    # a huge id, a huge f, a huge variable: refused or used, in a few words
    for proof, why in [(v2(f"pol {BIG} 1 +", conclusion=7), "is not derived yet"),
                       (v2(f"f {BIG}", conclusion=7), "but the formula has 6"),
                       (v2(*TRIANGLE_STEPS, conclusion=BIG), "which is not derived")]:
        result = check_refutation(TRIANGLE, proof)
        assert not result.verified and why in result.reason and len(result.reason) < 200
    result = check_refutation(TRIANGLE, v2(f"pol x{BIG} ~x{BIG} +", conclusion=7))
    assert result.unsupported and "is on no variable of the instance" in result.reason
    assert len(result.reason) < 200
    _, db = derive(TRIANGLE, v2(f"pol x{10**40} ~x{10**40} +", conclusion=7),
                   num_vars=10**40)
    assert db[6] == ({}, -1)


def chain(n: int) -> tuple[list, bytes]:
    """x1, x_i -> x_{i+1} for i < n+1, ~x_{n+1}: refuted by one pol summing all n+2."""
    constraints = [([(1, 1)], 1), *[([(1, -i), (1, i + 1)], 1) for i in range(1, n + 1)],
                   ([(1, -(n + 1))], 1)]
    ids = range(1, n + 3)
    return constraints, v2("pol 1 " + " ".join(f"{i} +" for i in ids[1:]),
                           conclusion=n + 3)


def test_a_pol_of_a_hundred_thousand_operands():
    constraints, proof = chain(100_000)
    result = check_refutation(constraints, proof)
    assert result.verified and result.steps == 1, result.reason


@pytest.mark.parametrize("shape", ["running-sum", "pushed-first", "onto-a-stored-one"])
def test_a_long_pol_is_linear(shape):
    """200,000 axioms on distinct variables summed in one pol: the sum grows to that many
    terms, so copying it at each ``+``, or merging it into the next small one, would be
    quadratic (a copy at each ``+`` ran past this deadline, tried); linear, it takes about a
    second. The
    third shape sums them onto a stored constraint of 100,000 terms, which must stay as it
    was."""
    n = 200_000
    axioms = [f"x{v}" for v in range(1, n + 1)]
    half = n // 2
    steps = {"running-sum": ["pol " + " ".join([axioms[0]] + [f"{a} +" for a in axioms[1:]])],
             "pushed-first": ["pol " + " ".join(axioms) + " +" * (n - 1)],
             "onto-a-stored-one": [
                 "pol " + " ".join([axioms[0]] + [f"{a} +" for a in axioms[1:half]]),
                 "pol 2 " + " ".join(f"{a} +" for a in axioms[half:])]}[shape]
    _, db = derive([([(1, 1)], 1)], v2(*steps, conclusion=1), deadline=time.monotonic() + 120,
                   num_vars=n)
    assert len(db) == 1 + len(steps), "a step was refused"
    assert db[-1] == ({v: 1 for v in range(1, n + 1)}, 0)
    if shape == "onto-a-stored-one":
        assert db[1] == ({v: 1 for v in range(1, half + 1)}, 0)
    assert db[0] == ({1: 1}, 1)


def test_a_stored_constraint_never_changes():
    """Ids pushed on the stack are shared with the database: every operation on them must
    leave them as they were (the steps below touch constraint 1 and then 2 in every way)."""
    formula = [([(2, 1), (3, -2)], 2), ([(1, 2)], 1)]
    before = [normalise(t, d) for t, d in formula]
    proof = v2("pol 1 1 +", "pol 1 2 +", "pol 2 1 +", "pol 1 3 *", "pol 1 2 d", "pol 1 s",
               "pol 1 ~x1 +", "pol x2 1 +", "pol 3 3 +", "pol 3 1 +", conclusion=1)
    _, db = derive(formula, proof)
    assert db[:2] == before
    assert db[2] == ({1: 4, -2: 6}, 4) and db[10] == ({1: 8, -2: 12}, 8)


def test_the_deadline():
    constraints, proof = chain(20_000)
    with pytest.raises(TimeoutError):
        check_refutation(constraints, proof, deadline=time.monotonic() - 1)
    assert check_refutation(constraints, proof, deadline=time.monotonic() + 600).verified


# ---------------------------------------------------------------------------------------------
# hostile proofs: the budget, the instance's variables, the clock (the red team's reproducers)

#: 264 variables, as the red team's edge-matching instance has: one constraint on all of them,
#: and a contradiction (constraint 2), so that every proof below concluding 2 is valid
WIDE = [([(1, v) for v in range(1, 265)], 1), ([], 1)]


def peak_memory(run):
    """What ``run()`` returns, and the most bytes Python held at once while it ran."""
    tracemalloc.start()
    try:
        return run(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("proof", [
    v2(*["pol 1 1 *"] * 3000, conclusion=2),  # a copy of constraint 1 each 10 bytes
    v2("pol 1" + " 2 *" * 40_000, conclusion=2),  # coefficients doubled each 4 bytes
    v2("pol 1" + " 1 +" * 100_000, conclusion=2),  # constraint 1 added each 4 bytes
    v2("pol 1 " + "7" * 2_000_000 + " *", conclusion=2),  # a number 2,000,000 digits long
], ids=["copies", "doublings", "sums", "long-number"])
def test_past_the_budget_is_not_checked(proof):
    """Proofs that ask far more work than they pay for stop at the budget: not verified (yet
    valid: constraint 2 is a contradiction), not rejected, and the reason says so; and they
    hold no more than 8 bytes a word of the budget (what the module docstring promises)."""
    result, peak = peak_memory(lambda: check_refutation(WIDE, proof, name="p"))
    assert not result.verified and result.unsupported, result.reason
    assert re.match(r"p: line [0-9]+: not checked: it costs more than the [0-9,]+ words",
                    result.reason) and "too costly to check here" in result.reason, result.reason
    assert peak < 8 * BUDGET_PER_INPUT * (264 + len(proof)), peak


def test_the_budget_is_the_callers_to_set():
    """Below the words the triangle's proof needs, every budget leaves it not checked, never
    rejected; from there on it is verified. A forged proof past its budget is not checked
    either (its error is never reached); one whose error comes first is rejected."""
    needed = next(b for b in range(10_000)
                  if check_refutation(TRIANGLE, TRIANGLE_PROOF, budget=b).verified)
    assert needed > 100
    for budget in range(0, needed, 7):
        result = check_refutation(TRIANGLE, TRIANGLE_PROOF, budget=budget)
        assert result.unsupported and "too costly" in result.reason, (budget, result)
    forged = v2("pol 1 3 + 5 + 2 d", "pol 2 4 + 6 + 2 d", "pol 7 8 + 1 0 d", conclusion=9)
    assert check_refutation(TRIANGLE, forged, budget=needed - 100).unsupported
    rejected = check_refutation(TRIANGLE, forged, budget=needed * 2)
    assert not rejected.unsupported and "line 4: division by 0" in rejected.reason
    wrong_first = v2("pol 1 7 +", *TRIANGLE_STEPS, conclusion=9)
    assert not check_refutation(TRIANGLE, wrong_first, budget=needed - 100).unsupported


def test_a_long_proof_buys_no_more_than_the_ceiling():
    """4.6 MB of proof would buy 149 million words, but the budget stops at MAX_BUDGET (67
    million): a number of 1,650,000 digits, which costs some 80 million to read, is refused
    before it is read."""
    proof = v2("* " + "x" * 3_000_000, "pol 1 " + "7" * 1_650_000 + " *", conclusion=2)
    assert BUDGET_PER_INPUT * len(proof) > 2 * MAX_BUDGET
    result = check_refutation(WIDE, proof, name="p")
    assert result.unsupported and result.reason.startswith(
        f"p: line 3: not checked: it costs more than the {MAX_BUDGET:,} words"), result.reason


def test_axioms_stop_at_the_instances_variables():
    """The red team's line of 100,000 axioms on a formula of 264 variables is not read from
    x265 on, before it is built; the caller gives the instance's count (``#variable=``),
    which may be above the largest variable the formula names."""
    proof = v2("pol x1 " + " ".join(f"x{v} +" for v in range(2, 100_001)), conclusion=2)
    result, peak = peak_memory(lambda: check_refutation(WIDE, proof, name="p"))
    assert not result.verified and result.unsupported
    assert result.reason == ("p: line 2: the literal `x265` is on no variable of the instance "
                             "(it has 264): such axioms are not read here")
    assert peak < 1 << 20
    fresh = v2("pol x300 ~x300 +", conclusion=2)
    assert check_refutation(WIDE, fresh, num_vars=300).verified
    assert check_refutation(WIDE, fresh, num_vars=299).unsupported
    assert check_refutation(WIDE, fresh).unsupported  # by default: the formula's 264


def test_a_long_line_is_read_a_token_at_a_time():
    """One pol line of 100,001 tokens (200 KB) within its budget: checked to the end while
    holding no list of its tokens (that list alone would take some 4 MB)."""
    proof = v2("pol 1" + " 1 +" * 50_000, conclusion=7)
    result, peak = peak_memory(lambda: check_refutation(TRIANGLE, proof))
    assert "constraint 7, 50001 x1 50001 x2 >= 50001, which is not a contradiction" in \
        result.reason, result.reason
    assert peak < 1 << 20, peak


def fake_clock(monkeypatch, passes: int) -> list[int]:
    """The checker's clock: 0.0 for the first ``passes`` looks, then 2.0 (a deadline of 1.0
    passes between them); the list of looks, for the test to count."""
    looks: list[int] = []

    def monotonic() -> float:
        looks.append(1)
        return 0.0 if len(looks) <= passes else 2.0

    monkeypatch.setattr(cutting_planes, "time", SimpleNamespace(monotonic=monotonic))
    return looks


def test_a_deadline_already_past_stops_the_first_step():
    for constraints, proof in (chain(20_000), (WIDE, v2(*["pol 1 1 *"] * 3000, conclusion=2))):
        with pytest.raises(TimeoutError):
            check_refutation(constraints, proof, deadline=time.monotonic() - 1)


def test_the_clock_is_read_within_one_line(monkeypatch):
    """The deadline passes just after the first look (before the first step): one pol line of
    100,002 operands stops within the next 65,536 words of work, not at its end."""
    constraints, proof = chain(100_000)
    looks = fake_clock(monkeypatch, 1)
    with pytest.raises(TimeoutError, match=r"no time left after [0-9,]+ words") as stopped:
        check_refutation(constraints, proof, deadline=1.0)
    spent = int(re.search(r"after ([0-9,]+) words", str(stopped.value))[1].replace(",", ""))
    assert len(looks) == 2 and spent < 2 * 65_536, spent


def test_the_clock_is_read_while_a_long_number_is_read(monkeypatch):
    """A number of 200,000 digits, within the budget: its reading looks at the clock too."""
    proof = v2("pol 1 " + "7" * 200_000 + " *", conclusion=2)
    looks = fake_clock(monkeypatch, 2)  # before the step, and as its reading is charged
    with pytest.raises(TimeoutError):
        check_refutation(WIDE, proof, deadline=1.0)
    assert len(looks) == 3


@given(st.binary(max_size=300))
def test_any_bytes_give_a_verdict(data):
    for proof in (data, b"pseudo-Boolean proof version 2.0\n" + data):
        assert isinstance(check_refutation(TRIANGLE_SAT, proof), Refutation)
        assert not check_refutation(TRIANGLE_SAT, proof).verified  # it is satisfiable


TOKENS = [b"pol", b"f", b"1", b"2", b"3", b"5", b"6", b"7", b"8", b"9", b"0", b"-1", b"+", b"*",
          b"d", b"s", b"x1", b"~x2", b"x0", b"output", b"NONE", b"conclusion", b"UNSAT", b":",
          b"end", b"pseudo-Boolean", b"proof", b"\n", b"\n", b"\n", b" ", b"\r", BIG.encode()]


@given(st.lists(st.sampled_from(TOKENS), max_size=60), st.booleans())
def test_token_soup_never_verifies_a_satisfiable_formula(tokens, framed):
    body = b" ".join(tokens)
    proof = (b"pseudo-Boolean proof version 2.0\n" + body + b"\noutput NONE\nconclusion UNSAT "
             b": 7\nend pseudo-Boolean proof\n") if framed else body
    assert not check_refutation(TRIANGLE_SAT, proof).verified
    assert isinstance(check_refutation(TRIANGLE, proof), Refutation)


@given(st.data())
def test_mutated_refutations_never_verify_the_satisfiable_variants(data):
    """The parity and square refutations with tokens replaced, dropped or repeated, on
    formulas that have a model: never verified (any verdict on the UNSAT one)."""
    for formula, proof in ((PARITY_SAT, PARITY_PROOF), (SQUARE, SQUARE_PROOF)):
        lines = [line.split(b" ") for line in proof.split(b"\n")]
        for _ in range(data.draw(st.integers(1, 3))):
            row = lines[data.draw(st.integers(0, len(lines) - 1))]
            at = data.draw(st.integers(0, max(len(row) - 1, 0)))
            how = data.draw(st.sampled_from(["replace", "drop", "repeat"]))
            if how == "replace" and row:
                row[at] = data.draw(st.sampled_from(TOKENS[:-1]))
            elif how == "drop" and row:
                del row[at]
            elif row:
                row.insert(at, row[at])
        mutated = b"\n".join(b" ".join(row) for row in lines)
        assert not check_refutation(formula, mutated).verified


# ---------------------------------------------------------------------------------------------
# soundness: random formulas, random pol expressions, every assignment

VARS = 6

literal = st.integers(1, VARS).flatmap(lambda v: st.sampled_from([v, -v]))
formulas = st.lists(st.tuples(st.lists(st.tuples(st.integers(-3, 3), literal), max_size=4),
                              st.integers(-3, 5)), min_size=1, max_size=5)
#: an expression tree: ("id", r) names an earlier id through r, ("lit", l) an axiom
expressions = st.recursive(
    st.one_of(st.tuples(st.just("id"), st.integers(0, 99)), st.tuples(st.just("lit"), literal)),
    lambda inner: st.one_of(st.tuples(st.just("+"), inner, inner),
                            st.tuples(st.just("*"), inner, st.integers(1, 4)),
                            st.tuples(st.just("d"), inner, st.integers(1, 4)),
                            st.tuples(st.just("s"), inner)),
    max_leaves=6)


def tokens(tree, known: int) -> list[str]:
    kind = tree[0]
    if kind == "id":
        return [str(1 + tree[1] % known)]
    if kind == "lit":
        return [("~" if tree[1] < 0 else "") + f"x{abs(tree[1])}"]
    if kind == "+":
        return tokens(tree[1], known) + tokens(tree[2], known) + ["+"]
    if kind in "*d":
        return tokens(tree[1], known) + [str(tree[2]), kind]
    return tokens(tree[1], known) + ["s"]


# A plain reference of the arithmetic, written apart from the checker: a constraint is a linear
# form over the variables (sum c_v x_v >= d, any signs: a sum is a sum, a multiple a multiple),
# put in literal form only where a rule needs it (division, saturation).

def linear(constraint) -> tuple[dict[int, int], int]:
    terms, degree = constraint
    form: dict[int, int] = {}
    for l, a in terms.items():
        if l > 0:
            form[l] = form.get(l, 0) + a
        else:  # a ~x = a - a x
            form[-l] = form.get(-l, 0) - a
            degree -= a
    return form, degree


def literal_form(form: dict[int, int], degree: int):
    terms = {}
    for v, c in form.items():
        if c:
            terms[v if c > 0 else -v] = abs(c)
            degree += -c if c < 0 else 0
    return terms, degree


def reference(tree, db):
    """The linear form of ``tree``'s constraint over ``db`` (normalised constraints)."""
    kind = tree[0]
    if kind == "id":
        return linear(db[tree[1] % len(db)])
    if kind == "lit":
        return linear(({tree[1]: 1}, 0))
    if kind == "+":
        (f, d), (g, e) = reference(tree[1], db), reference(tree[2], db)
        return {v: f.get(v, 0) + g.get(v, 0) for v in f.keys() | g.keys()}, d + e
    if kind == "*":
        f, d = reference(tree[1], db)
        return {v: c * tree[2] for v, c in f.items()}, d * tree[2]
    terms, degree = literal_form(*reference(tree[1], db))
    if kind == "d":
        k = tree[2]
        return linear(({l: math.ceil(Fraction(a, k)) for l, a in terms.items()},
                       math.ceil(Fraction(degree, k))))
    return linear(({l: min(a, degree) for l, a in terms.items() if min(a, degree) > 0}, degree))


@settings(max_examples=300)
@given(formulas, st.lists(expressions, min_size=1, max_size=4))
def test_every_derived_constraint_is_implied(formula, steps):
    known = len(formula)
    lines = []
    for tree in steps:
        lines.append("pol " + " ".join(tokens(tree, known)))
        known += 1
    proof = v2(*lines, conclusion=known)
    result, db = derive(formula, proof, num_vars=VARS)
    assert result.steps == len(steps), result.reason  # every expression here is well formed
    sat = list(models(formula, VARS))
    for i, constraint in enumerate(db):
        assert all(v > 0 for v in constraint[0].values())
        assert not any(-l in constraint[0] for l in constraint[0])
        for values in sat:
            assert holds(constraint, values), (i + 1, show(constraint), values)
    # the reference agrees on every step
    for step, tree in enumerate(steps):
        ref = literal_form(*reference(tree, db[:len(formula) + step]))
        assert db[len(formula) + step] == ref, (step, tokens(tree, len(formula) + step))
    # so the checker never verifies a satisfiable formula
    assert result.verified == is_contradiction(db[-1])
    if result.verified:
        assert not sat


# ---------------------------------------------------------------------------------------------
# to_version_1 and the legacy VeriPB as referee

def test_to_version_1_of_the_triangle():
    """pb-facts §3.4's ex/triangle_v12_clean.pbp, byte for byte (VeriPB 0.3a0 verifies it)."""
    assert to_version_1(TRIANGLE_PROOF, 6) == (
        b"pseudo-Boolean proof version 1.2\nf 6\npol 1 3 + 5 + 2 d\npol 2 4 + 6 + 2 d\n"
        b"pol 7 8 +\nc 9\n")
    # no f: the count given; comments dropped; pol tokens kept as written
    assert to_version_1(v2("* hi", "pol  1 0 *", conclusion=7), 6) == (
        b"pseudo-Boolean proof version 1.2\nf 6\npol 1 0 *\nc 7\n")
    assert to_version_1(v2("f 3", conclusion=7), 6).startswith(
        b"pseudo-Boolean proof version 1.2\nf 3\n")


@pytest.mark.parametrize("case", [c for c in CORPUS if c.legacy == "frame"],
                         ids=lambda c: c.name)
def test_to_version_1_refuses_a_wrong_frame(case: Case):
    with pytest.raises(ValueError, match="not a version 2.0 refutation of the subset"):
        to_version_1(case.proof, len(case.constraints))


def write_opb(path: Path, constraints) -> None:
    """The formula as OPB, one ``>=`` line per constraint (VeriPB numbers them as given);
    no zero coefficient (VeriPB 0.3a0 keeps ``0 x1`` as a term, and its ``e`` then tells
    ``0 x1 >= 0`` from ``>= 0``)."""
    n = max(num_vars(constraints), 1)
    lines = [f"* #variable= {n} #constraint= {len(constraints)}"]
    for terms, degree in constraints:
        lines.append("".join(f"{c:+d} {'~' if l < 0 else ''}x{abs(l)} " for c, l in terms if c)
                     + f">= {degree} ;")
    path.write_text("\n".join(lines) + "\n")


def veripb_verifies(tmp_path: Path, constraints, proof_v1: bytes) -> bool:
    """VeriPB 0.3a0's verdict: exit 0 with a contradiction claimed; exit 4 (format) or 5
    (a failed rule) is a refusal; anything else fails the test."""
    write_opb(tmp_path / "f.opb", constraints)
    (tmp_path / "p.pbp").write_bytes(proof_v1)
    run = subprocess.run([str(VERIPB), str(tmp_path / "f.opb"), str(tmp_path / "p.pbp")],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode in (0, 4, 5), run.stdout + run.stderr
    if run.returncode:
        return False
    assert "Verification succeeded." in run.stdout
    return "did not claim contradiction" not in run.stderr


@needs_veripb
@pytest.mark.parametrize("case", [c for c in CORPUS if c.legacy != "frame"],
                         ids=lambda c: c.name)
def test_the_legacy_veripb_agrees(tmp_path, case: Case):
    legacy = veripb_verifies(tmp_path, case.constraints,
                             to_version_1(case.proof, len(case.constraints)))
    if case.legacy == "agrees":
        assert legacy is case.verified
    else:
        # a known difference, always the legacy checker accepting what we refuse; should a
        # newer VeriPB refuse it too, the case is "agrees" from then on
        assert legacy and not case.verified, f"VeriPB now refuses {case.name}: {case.legacy}"


@needs_veripb
def test_the_legacy_veripb_on_a_long_sum(tmp_path):
    constraints, proof = chain(2_000)
    assert check_refutation(constraints, proof).verified
    assert veripb_verifies(tmp_path, constraints, to_version_1(proof, len(constraints)))


def legacy_differs(tree, db) -> bool:
    """The expression saturates a degree <= 0 or divides a negative one somewhere, where
    VeriPB 0.3a0 is known to differ (the module's docstring)."""
    if tree[0] in ("id", "lit"):
        return False
    if tree[0] in "sd" and literal_form(*reference(tree[1], db))[1] < (1 if tree[0] == "s"
                                                                       else 0):
        return True
    return any(legacy_differs(t, db) for t in tree[1:] if isinstance(t, tuple))


def opb_constraint(constraint) -> str:
    terms, degree = constraint
    return "".join(f"{a} {'~' if l < 0 else ''}x{abs(l)} "
                   for l, a in sorted(terms.items(), key=lambda t: abs(t[0]))) + f">= {degree} ;"


@needs_veripb
@settings(max_examples=60)
@given(formulas, st.lists(expressions, min_size=1, max_size=3))
def test_the_legacy_veripb_derives_the_same_constraints(tmp_path_factory, formula, steps):
    """Each step's constraint, as derived here, asserted with VeriPB 1.2's ``e ID C ;`` after
    the step: VeriPB 0.3a0 must accept every one (its own arithmetic gives the same), on
    expressions away from its known differences."""
    known, lines = len(formula), []
    result, db = derive(formula, v2(*["pol " + " ".join(tokens(tree, len(formula) + i))
                                      for i, tree in enumerate(steps)], conclusion=1),
                        num_vars=VARS)
    assert result.steps == len(steps)
    for i, tree in enumerate(steps):
        hypothesis_assume(not legacy_differs(tree, db[:known + i]))
        lines += ["pol " + " ".join(tokens(tree, known + i)),
                  f"e {known + i + 1} {opb_constraint(db[known + i])}"]
    proof = ("pseudo-Boolean proof version 1.2\n" f"f {known}\n"
             + "".join(line + "\n" for line in lines)).encode()
    tmp = tmp_path_factory.mktemp("legacy")
    write_opb(tmp / "f.opb", formula)
    (tmp / "p.pbp").write_bytes(proof)
    run = subprocess.run([str(VERIPB), str(tmp / "f.opb"), str(tmp / "p.pbp")],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, proof.decode() + run.stdout + run.stderr

"""The plain-Python DRAT reference: the semantics of :mod:`puzzlesat.validate.proof.drat`, checked
forward, step by step, as literally as they are stated (slow: unit propagation from scratch on
the whole clause list for every check). For tests on small proofs only.

>>> check_reference([[1, 2], [-2]], [(False, [3]), (False, [4, -3]), (True, [4, -3]),
...                                   (False, [-4]), (False, [])])[0]
False
"""

from __future__ import annotations


def propagate(clauses: list[frozenset], assumed: set[int]) -> set[int] | None:
    """The literals unit propagation makes true from ``assumed``; None on a conflict."""
    true = set(assumed)
    if any(-x in true for x in true):
        return None
    changed = True
    while changed:
        changed = False
        for clause in clauses:
            if any(x in true for x in clause):
                continue
            open_ = [x for x in clause if -x not in true]
            if not open_:
                return None
            if len(open_) == 1:
                true.add(open_[0])
                changed = True
    return true


def rup(clauses: list[frozenset], lemma: frozenset) -> bool:
    """Unit propagation on the clauses with every literal of ``lemma`` false conflicts."""
    return propagate(clauses, {-x for x in lemma}) is None


def rat(clauses: list[frozenset], lemma: frozenset, pivot: int) -> bool:
    """Every resolvent of ``lemma`` on ``pivot`` with a clause holding -pivot (and not pivot:
    that clause is always true) is RUP."""
    return all(rup(clauses, lemma | (d - {-pivot})) for d in clauses
               if -pivot in d and pivot not in d)


def check_reference(formula: list[list[int]],
                    steps: list[tuple[bool, list[int]]]) -> tuple[bool, int]:
    """(verified, index of the deciding step): steps are (is a deletion, literals as written)."""
    clauses = [frozenset(c) for c in formula]
    for index, (deletion, literals) in enumerate(steps):
        root = propagate(clauses, set())
        if root is None:  # the empty clause is RUP: the proof is done, written or not
            return True, index
        clause = frozenset(literals)
        if deletion:
            unit = sum(x in root for x in clause) == 1 and all(
                x in root or -x in root for x in clause)
            if clause in clauses and not unit:
                clauses.remove(clause)
            continue
        if not clause:
            return False, index
        if not rup(clauses, clause) and not rat(clauses, clause, literals[0]):
            return False, index
        clauses.append(clause)
    return propagate(clauses, set()) is None, len(steps)

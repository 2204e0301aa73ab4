"""A (partial) assignment against a CNF, vectorised over the reader's flat literal array.

The instance is the flat int32 array of :class:`puzzlesat.generator.core.reader.Dimacs` — every clause's
literals followed by its 0. The model is the list of literals a solver gave. A clause is
satisfied when one of its literals is among those given (the competition's rule for partial
models: an unassigned variable satisfies nothing).

The fast path marks which entries of the flat array are true literals: by gathering from a
truth table over the literals ``-V..V`` (row ``l + V`` says whether ``l`` is true) in one
indexing step when V is in proportion to the literals there are, else (a p line and a model
naming huge variable numbers) by sorting, with ``np.isin``: no table as large as the numbers.
It then ORs each clause's segment with ``np.logical_or.reduceat`` at the clause starts. Each segment
includes its terminating 0 (never true), so segments are never empty and an empty clause is
falsified, as it must be. The tests hold it against the plain-Python definition.

>>> flat = np.array([1, -2, 0, 2, 3, 0, -1, 0], dtype=np.int32)
>>> falsified_clauses(flat, 3, np.array([1, 2])).tolist()   # 1 true, 2 true, 3 unassigned
[2]
"""

from __future__ import annotations

import numpy as np

from puzzlesat.validate.answers import MalformedOutput


def given_literals(literals: np.ndarray, num_vars: int) -> np.ndarray:
    """The distinct literals given, sorted (a 0 is no literal).

    A literal beyond V, or a variable given with both signs, makes the model MALFORMED
    (the solver contradicts itself or answers another formula)."""
    lits = np.asarray(literals, dtype=np.int64)
    # not np.abs: abs(-2**63) overflows and stays negative
    beyond = np.flatnonzero((lits > num_vars) | (lits < -num_vars))
    if beyond.size:
        raise MalformedOutput(f"model literal {int(lits[beyond[0]])} is beyond the "
                              f"instance's {num_vars} variables")
    given = np.unique(lits[lits != 0])
    both = np.intersect1d(given[given > 0], -given[given < 0])
    if both.size:
        v = int(both[0])
        raise MalformedOutput(f"model gives variable {v} both true and false ({v} and {-v})")
    return given


def clause_starts(flat: np.ndarray) -> np.ndarray:
    """Index of each clause's first entry in the flat array."""
    ends = np.flatnonzero(flat == 0)
    if ends.size:  # shift by one in place: starts[i] = ends[i-1] + 1
        ends[1:] = ends[:-1] + 1
        ends[0] = 0
    return ends


#: a truth table is used while the variables number at most this many per literal
_DENSE = 4


def falsified_clauses(flat: np.ndarray, num_vars: int, literals: np.ndarray) -> np.ndarray:
    """0-based indices of the clauses without a true literal among ``literals`` (MALFORMED as
    :func:`given_literals` says)."""
    return falsified_by(flat, given_literals(literals, num_vars))


def falsified_by(flat: np.ndarray, given: np.ndarray) -> np.ndarray:
    """:func:`falsified_clauses` for literals :func:`given_literals` has already checked."""
    starts = clause_starts(flat)
    if not starts.size:
        return starts
    top = max(int(flat.max()), -int(flat.min()), int(given[-1]) if given.size else 0,
              -int(given[0]) if given.size else 0)
    if top <= _DENSE * (flat.size + given.size):
        table = np.zeros(2 * top + 1, dtype=bool)
        table[given + top] = True
        # rolled so that a literal indexes it directly (negative from the end): no int64 copy
        true_here = np.roll(table, -top)[flat]
    else:
        true_here = np.isin(flat, given, kind="sort")
    satisfied = np.logical_or.reduceat(true_here, starts)
    return np.flatnonzero(~satisfied)


def clause_at(flat: np.ndarray, starts: np.ndarray, index: int) -> list[int]:
    """The literals of clause ``index`` (0-based)."""
    start = int(starts[index])
    end = int(starts[index + 1]) - 1 if index + 1 < starts.size else flat.size - 1
    return flat[start:end].tolist()


def full_model(given: np.ndarray, num_vars: int) -> np.ndarray:
    """Bool model indexed by variable (index 0 unused) from the :func:`given_literals`,
    unassigned variables False. If the partial model satisfies every clause, so does this
    completion (each clause keeps its true literal), so it is safe to decode."""
    model = np.zeros(num_vars + 1, dtype=bool)
    model[given[given > 0]] = True
    return model

"""A (partial) assignment against a CNF, vectorised over the reader's flat literal array.

The instance is the flat int32 array of :class:`puzzlesat.generator.core.reader.Dimacs` — every clause's
literals followed by its 0. The model is the list of literals a solver gave. A clause is
satisfied when one of its literals is among those given (the competition's rule for partial
models: an unassigned variable satisfies nothing).

The fast path builds a truth table over the literals ``-V..V`` (row ``l + V`` says whether
``l`` is true; the row of 0 is False), gathers it with the flat array in one indexing step,
and ORs each clause's segment with ``np.logical_or.reduceat`` at the clause starts. Each
segment includes its terminating 0 (always False), so segments are never empty and an empty
clause is falsified, as it must be. The tests hold it against the plain-Python definition.

>>> flat = np.array([1, -2, 0, 2, 3, 0, -1, 0], dtype=np.int32)
>>> falsified_clauses(flat, 3, np.array([1, 2])).tolist()   # 1 true, 2 true, 3 unassigned
[2]
"""

from __future__ import annotations

import numpy as np

from puzzlesat.validate.output import MalformedOutput


def truth_table(literals: np.ndarray, num_vars: int, span: int = 0) -> np.ndarray:
    """Bool array of size ``2S+1``: row ``l + S`` is True when literal ``l`` was given, where
    S is the larger of ``span`` and the largest variable given (at most V: the table is sized
    by what was read, never by the p line's promise alone).

    A literal beyond V, or a variable given with both signs, makes the model MALFORMED
    (the solver contradicts itself or answers another formula)."""
    lits = np.asarray(literals, dtype=np.int64)
    top = span
    if lits.size:
        # not np.abs: abs(-2**63) overflows and stays negative
        beyond = np.flatnonzero((lits > num_vars) | (lits < -num_vars))
        if beyond.size:
            raise MalformedOutput(f"model literal {int(lits[beyond[0]])} is beyond the "
                                  f"instance's {num_vars} variables")
        top = max(top, int(lits.max()), -int(lits.min()))
    table = np.zeros(2 * top + 1, dtype=bool)
    table[lits + top] = True
    both = np.flatnonzero(table[top + 1:] & table[top - 1::-1][:top])
    if both.size:
        v = int(both[0]) + 1
        raise MalformedOutput(f"model gives variable {v} both true and false ({v} and {-v})")
    return table


def largest_variable(flat: np.ndarray) -> int:
    """The largest variable in a flat literal array (0 when it is empty)."""
    return max(int(flat.max()), -int(flat.min())) if flat.size else 0


def clause_starts(flat: np.ndarray) -> np.ndarray:
    """Index of each clause's first entry in the flat array."""
    ends = np.flatnonzero(flat == 0)
    if ends.size:  # shift by one in place: starts[i] = ends[i-1] + 1
        ends[1:] = ends[:-1] + 1
        ends[0] = 0
    return ends


def falsified_clauses(flat: np.ndarray, num_vars: int, literals: np.ndarray) -> np.ndarray:
    """0-based indices of the clauses without a true literal among ``literals``."""
    table = truth_table(literals, num_vars, largest_variable(flat))
    starts = clause_starts(flat)
    if not starts.size:
        return starts
    # rolled so that a literal indexes it directly (negative from the end): no int64 copy
    true_here = np.roll(table, -(table.size // 2))[flat]
    satisfied = np.logical_or.reduceat(true_here, starts)
    return np.flatnonzero(~satisfied)


def clause_at(flat: np.ndarray, starts: np.ndarray, index: int) -> list[int]:
    """The literals of clause ``index`` (0-based)."""
    start = int(starts[index])
    end = int(starts[index + 1]) - 1 if index + 1 < starts.size else flat.size - 1
    return flat[start:end].tolist()


def full_model(table: np.ndarray, num_vars: int) -> np.ndarray:
    """Bool model indexed by variable (index 0 unused): the given literals, unassigned
    variables False. If the partial model satisfies every clause, so does this completion
    (each clause keeps its true literal), so it is safe to decode."""
    model = np.zeros(num_vars + 1, dtype=bool)
    given = table.size // 2
    model[1 : given + 1] = table[given + 1 :]
    return model

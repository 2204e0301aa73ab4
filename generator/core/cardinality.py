"""At-most-one constraints for large groups: Sinz's sequential counter (k = 1).

For members m_0..m_{L-1} and auxiliaries s_0..s_{L-2} ("some m_j with j <= i is true"):
(¬m_i ∨ s_i) for i < L-1, (¬s_{i-1} ∨ s_i) for 0 < i < L-1, and (¬s_{i-1} ∨ ¬m_i) for 0 < i:
3L − 4 binary clauses instead of the L(L−1)/2 pairwise ones. (C. Sinz, "Towards an optimal
CNF encoding of Boolean cardinality constraints", CP 2005.)

>>> sequential_at_most_one(np.array([[1, 2, 3]]), np.array([[4, 5]])).tolist()
[[-1, 4], [-2, 5], [-4, 5], [-4, -2], [-5, -3]]
>>> sequential_aux_values(np.array([False, False, True, False, True, False]),
...                       np.array([[1, 2, 3]])).tolist()
[[False, True]]
"""

from __future__ import annotations

import numpy as np


def sequential_at_most_one(groups: np.ndarray, aux: np.ndarray) -> np.ndarray:
    """The counter's clauses (rows of 2 literals), row by row of ``groups`` (rows, L), all
    members nonzero, with auxiliaries ``aux`` (rows, L − 1)."""
    groups, aux = np.asarray(groups), np.asarray(aux)
    if groups.shape[1] < 2:
        return np.zeros((0, 2), dtype=groups.dtype)
    first = np.stack([-groups[:, :-1], aux], axis=-1)
    carry = np.stack([-aux[:, :-1], aux[:, 1:]], axis=-1)
    block = np.stack([-aux, -groups[:, 1:]], axis=-1)
    return np.concatenate([first, carry, block], axis=1).reshape(-1, 2)


def sequential_aux_values(model: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """The auxiliaries' values in a model (bool, index 0 unused) where each row of
    ``groups`` has at most one true member: s_i = some member up to i is true."""
    return np.logical_or.accumulate(np.asarray(model)[groups], axis=1)[:, :-1]

"""Rectangular grid geometry shared by the grid families (edge matching, sliding, flow).

Cells are numbered row-major, ``cell = r * cols + c``. Directions are kept in one fixed
order, N E S W (clockwise from the top), the order of edge-matching piece sides; a family
that speaks of U/D/L/R or L/R/T/B indexes this table through its own names.

>>> neighbour_table(2, 3).tolist()
[[-1, 1, 3, -1], [-1, 2, 4, 0], [-1, -1, 5, 1], [0, 4, -1, -1], [1, 5, -1, 3], [2, -1, -1, 4]]
"""

from __future__ import annotations

import numpy as np

#: (row step, column step) per direction, in N E S W order
STEPS = np.array([(-1, 0), (0, 1), (1, 0), (0, -1)], dtype=np.int64)
OPPOSITE = np.array([2, 3, 0, 1])


def neighbour_table(rows: int, cols: int) -> np.ndarray:
    """``(rows*cols, 4)`` array: the neighbour of each cell in each direction, -1 off-grid."""
    r, c = np.divmod(np.arange(rows * cols), cols)
    nr = r[:, None] + STEPS[None, :, 0]
    nc = c[:, None] + STEPS[None, :, 1]
    inside = (nr >= 0) & (nr < rows) & (nc >= 0) & (nc < cols)
    return np.where(inside, nr * cols + nc, -1)


def adjacent_pairs(rows: int, cols: int) -> np.ndarray:
    """Every unordered pair of orthogonally adjacent cells ``(a, b)``, a < b, row-major by a,
    the horizontal pair before the vertical one."""
    table = neighbour_table(rows, cols)
    a = np.repeat(np.arange(rows * cols), 2)
    b = table[:, [1, 2]].reshape(-1)
    keep = b >= 0
    return np.stack([a[keep], b[keep]], axis=1)

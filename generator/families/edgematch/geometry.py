"""Board geometry of an R×C edge-matching grid: sides, squares, diamonds and square classes
(no pieces involved)."""

from __future__ import annotations

import numpy as np

N, E, S, W = range(4)
FRAME = 0


class Grid:
    """Squares, diamonds and square classes of an R×C board (no pieces involved).

    Internal diamonds are numbered row by row: the C−1 horizontal ones of a row, then the C
    vertical ones below it (0-based ``H(r,c) = r(2C−1)+c``, ``V(r,c) = r(2C−1)+C−1+c``);
    unbounded boards add one open diamond per outer side after them.
    """

    def __init__(self, rows: int, cols: int, bounded: bool):
        self.rows, self.cols, self.bounded = rows, cols, bounded
        r, c = np.divmod(np.arange(rows * cols), cols)
        span = 2 * cols - 1
        diamond = np.full((rows * cols, 4), -1, dtype=np.int64)
        diamond[:, N] = np.where(r > 0, (r - 1) * span + cols - 1 + c, -1)
        diamond[:, E] = np.where(c < cols - 1, r * span + c, -1)
        diamond[:, S] = np.where(r < rows - 1, r * span + cols - 1 + c, -1)
        diamond[:, W] = np.where(c > 0, r * span + c - 1, -1)
        internal = rows * (cols - 1) + (rows - 1) * cols
        if not bounded:  # open diamonds, row-major squares, sides N E S W
            outside = diamond < 0
            diamond[outside] = internal + np.arange(int(outside.sum()))
        self.diamond_of = diamond
        self.num_diamonds = int(diamond.max()) + 1 if diamond.size else 0
        #: the square is the bottom/right one of its N and W diamonds
        self.second_of_diamond = np.zeros((rows * cols, 4), dtype=bool)
        self.second_of_diamond[:, [N, W]] = diamond[:, [N, W]] < internal
        center = (r > 0) & (r < rows - 1) & (c > 0) & (c < cols - 1)
        # a border diamond lies between two non-center squares
        is_border = np.zeros(self.num_diamonds, dtype=bool)
        if bounded:
            is_border = ~_touches(diamond, center, self.num_diamonds)
        self.diamond_is_border = is_border
        # square classes, each with the rotation a normalised piece needs there
        cell = lambda rr, cc: rr * cols + cc  # noqa: E731
        if bounded:
            inner_c, inner_r = np.arange(1, cols - 1), np.arange(1, rows - 1)
            self.corner = np.array([cell(0, 0), cell(0, cols - 1), cell(rows - 1, 0),
                                    cell(rows - 1, cols - 1)])
            self.corner_turn = np.array([0, 1, 3, 2])
            self.border = np.concatenate([cell(0, inner_c), cell(inner_r, 0),
                                          cell(inner_r, cols - 1), cell(rows - 1, inner_c)])
            self.border_turn = np.repeat([0, 3, 1, 2], [cols - 2, rows - 2, rows - 2, cols - 2])
            self.center = np.flatnonzero(center)
        else:
            self.corner = self.border = np.zeros(0, np.int64)
            self.corner_turn = self.border_turn = np.zeros(0, np.int64)
            self.center = np.arange(rows * cols)


def _touches(diamond: np.ndarray, squares: np.ndarray, count: int) -> np.ndarray:
    """Diamonds on a side of at least one of the selected squares."""
    out = np.zeros(count, dtype=bool)
    d = diamond[squares]
    out[d[d >= 0]] = True
    return out

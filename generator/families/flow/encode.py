"""Flow Free encodings: ``zucker`` (the article's), ``acyclic`` and ``zucker-2x2`` (see the
package docstring), their decoding and the model a solution stands for."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from puzzlesat.generator.core.cnf import Formula, pairwise_at_most_one
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.grid import OPPOSITE, adjacent_pairs, neighbour_table
from puzzlesat.generator.families.flow.puzzle import Puzzle, Solution, trace_paths

#: grid.py direction indices (N E S W) in the article's neighbour order L, R, T, B
LRTB = np.array([3, 1, 0, 2])
#: the article's direction types LR, TB, TL, TR, BL, BR as pairs of grid directions
TYPE_NAMES = ("LR", "TB", "TL", "TR", "BL", "BR")
TYPE_DIRS = np.array([[3, 1], [0, 2], [0, 3], [0, 1], [2, 3], [2, 1]])
#: link masks: bit d for grid direction d (N=1, E=2, S=4, W=8)
TYPE_MASKS = (1 << TYPE_DIRS).sum(axis=1)
#: does type t point in LRTB direction i?
TYPE_POINTS = (TYPE_DIRS[None, :, :] == LRTB[:, None, None]).any(axis=2)


# -- encodings --------------------------------------------------------------------------------
@dataclass
class _Layout:
    """Numbering shared by every encoding: ``x[cell, colour]``, ``ytab[cell, type]`` (0 where
    a cell has no such type), neighbours ``nb[cell, N E S W]`` (−1 off-grid)."""

    nb: np.ndarray
    ends: np.ndarray
    free: np.ndarray
    x: np.ndarray
    ytab: np.ndarray
    formula: Formula


def _layout(puzzle: Puzzle) -> _Layout:
    h, w, colors = puzzle.height, puzzle.width, puzzle.num_colors
    formula = Formula()
    x = formula.new_vars("x", h, w, colors).reshape(h * w, colors)
    nb = neighbour_table(h, w)
    ends = puzzle.endpoints.reshape(-1)
    on = nb >= 0
    available = on[:, TYPE_DIRS].all(axis=2) & (ends < 0)[:, None]
    ytab = np.zeros(available.shape, dtype=np.int32)
    ytab[available] = formula.new_vars("y", int(available.sum()))
    return _Layout(nb, ends, np.flatnonzero(ends < 0), x, ytab, formula)


def _by_cell(*parts) -> np.ndarray:
    """Rows of (cells, rows) parts merged by cell, stably: within a cell, part order then row
    order — how the article emits its clauses cell by cell."""
    width = max(rows.shape[1] for _, rows in parts)
    cells = np.concatenate([np.asarray(c, dtype=np.int64) for c, _ in parts])
    rows = np.concatenate([np.pad(r, ((0, 0), (0, width - r.shape[1]))) for _, r in parts])
    return rows[np.argsort(cells, kind="stable")]


def _left_packed(rows: np.ndarray) -> np.ndarray:
    """Non-zero literals moved to the front of each row, in order (zeros are padding)."""
    order = np.argsort(rows == 0, axis=1, kind="stable")
    return np.take_along_axis(rows, order, axis=1)


def _neighbour_colour(lay: _Layout, cells: np.ndarray, colors) -> np.ndarray:
    """``x(neighbour, colour)`` per cell in L, R, T, B order, 0 for off-grid neighbours;
    ``colors`` broadcasts against (cells, 4)."""
    nbs = lay.nb[cells][:, LRTB]
    return np.where(nbs >= 0, lay.x[np.maximum(nbs, 0), colors], 0)


def _pairs_per_row(groups: np.ndarray) -> np.ndarray:
    k = (groups != 0).sum(axis=1)
    return k * (k - 1) // 2


def endpoint_colour_units(lay: _Layout, cells: np.ndarray):
    """``x(cell, u)`` then ``¬x(cell, v)`` for each other colour v, per endpoint cell."""
    u = lay.ends[cells]
    colors = lay.x.shape[1]
    order = np.argsort(np.arange(colors)[None, :] != u[:, None], axis=1, kind="stable")
    lits = -np.take_along_axis(lay.x[cells], order, axis=1)
    lits[:, 0] *= -1
    return np.repeat(cells, colors), lits.reshape(-1, 1)


def endpoint_one_neighbour(lay: _Layout, cells: np.ndarray):
    """At least one neighbour has the endpoint's colour (a clause), and no two do (pairs)."""
    group = _neighbour_colour(lay, cells, lay.ends[cells][:, None])
    return (cells, _left_packed(group)), (np.repeat(cells, _pairs_per_row(group)),
                                          pairwise_at_most_one(group))


def cell_one_colour(lay: _Layout, cells: np.ndarray):
    group = lay.x[cells]
    return (cells, group), (np.repeat(cells, _pairs_per_row(group)), pairwise_at_most_one(group))


def cell_one_type(lay: _Layout, cells: np.ndarray):
    group = lay.ytab[cells]
    return (cells, _left_packed(group)), (np.repeat(cells, _pairs_per_row(group)),
                                          pairwise_at_most_one(group))


def type_fixes_neighbour_colours(lay: _Layout, cells: np.ndarray):
    """Per cell, colour u, direction L R T B, type t: the neighbours t points to share the
    cell's colour (two clauses); the other on-grid neighbours do not (one clause)."""
    colors = lay.x.shape[1]
    y = lay.ytab[cells][:, None, None, :]                             # (F, 1, 1, 6)
    own = lay.x[cells][:, :, None, None]                              # (F, C, 1, 1)
    nbx = _neighbour_colour(lay, np.repeat(cells, colors),
                            np.tile(np.arange(colors), cells.size)[:, None])
    nbx = nbx.reshape(cells.size, colors, 4)[:, :, :, None]           # (F, C, 4, 1)
    points = TYPE_POINTS[None, None, :, :]                            # (1, 1, 4, 6)
    shape = (cells.size, colors, 4, 6)
    first = np.stack(np.broadcast_arrays(-y, -own, np.where(points, nbx, -nbx)), axis=-1)
    second = np.stack(np.broadcast_arrays(-y, own, -nbx), axis=-1)
    on = (lay.nb[cells][:, LRTB] >= 0)[:, None, :, None]
    has = np.broadcast_to(y > 0, shape)
    valid = np.stack([has & (points | on), has & points], axis=-1)    # (F, C, 4, 6, 2)
    lits = np.stack([first, second], axis=-2)                         # (F, C, 4, 6, 2, 3)
    return np.repeat(cells, valid.reshape(cells.size, -1).sum(axis=1)), lits[valid]


def zucker(puzzle: Puzzle) -> tuple[Formula, _Layout]:
    lay = _layout(puzzle)
    ends = np.flatnonzero(lay.ends >= 0)
    free = lay.free
    lay.formula.add("colour", _by_cell(endpoint_colour_units(lay, ends),
                                       *endpoint_one_neighbour(lay, ends),
                                       *cell_one_colour(lay, free)))
    if free.size:
        lay.formula.add("direction", _by_cell(*cell_one_type(lay, free),
                                              type_fixes_neighbour_colours(lay, free)))
    return lay.formula, lay


def rank_bits(free_cells: int) -> int:
    return max(1, math.ceil(math.log2(free_cells))) if free_cells > 1 else 1


def acyclic_clauses(puzzle: Puzzle, lay: _Layout) -> None:
    """Rank bits and comparators (see the module docstring) added to ``lay.formula``."""
    f = lay.formula
    pairs = _adjacent_free(puzzle, lay)
    if not pairs.size:
        return
    nbits = rank_bits(lay.free.size)
    rank = np.zeros((lay.ends.size, nbits), dtype=np.int32)
    rank[lay.free] = f.new_vars("rank", lay.free.size, nbits)
    eq = f.new_vars("equal_above", len(pairs), nbits)[:, 1:]          # bit 0 needs none
    less_at = f.new_vars("less_at", len(pairs), 2, nbits)
    less = f.new_vars("less", len(pairs), 2)
    a, b = rank[pairs[:, 0]], rank[pairs[:, 1]]
    f.add("equal_above_bits", np.stack([np.stack([-eq, -a[:, 1:], b[:, 1:]], -1),
                                        np.stack([-eq, a[:, 1:], -b[:, 1:]], -1)],
                                       axis=-2).reshape(-1, 3))
    f.add("equal_above_chain", np.stack([-eq[:, :-1], eq[:, 1:]], -1).reshape(-1, 2))
    for direction, (lo, hi) in enumerate(((a, b), (b, a))):
        z = less_at[:, direction]
        f.add(f"less_at_{direction}", np.stack([np.stack([-z, -lo], -1),
                                                np.stack([-z, hi], -1)], -2).reshape(-1, 2))
        f.add(f"less_at_{direction}_above", np.stack([-z[:, :-1], eq], -1).reshape(-1, 2))
        f.add(f"less_{direction}", np.concatenate([-less[:, direction, None], z], axis=1))
    f.add("rank_descends", rank_descends(lay, pairs, less))


def _adjacent_free(puzzle: Puzzle, lay: _Layout) -> np.ndarray:
    """Adjacent pairs (a, b), a < b, of free cells: one comparator each."""
    pairs = adjacent_pairs(puzzle.height, puzzle.width)
    return pairs[(lay.ends[pairs] < 0).all(axis=1)]


def rank_descends(lay: _Layout, pairs: np.ndarray, less: np.ndarray) -> np.ndarray:
    """Per free cell u and type t with two free neighbours v, w:
    ``¬y(u, t) ∨ less(v < u) ∨ less(w < u)``."""
    # below[cell, d]: the variable "neighbour in direction d has a smaller rank than cell"
    below = np.zeros((lay.ends.size, 4), dtype=np.int32)
    a, b = pairs[:, 0], pairs[:, 1]
    d_ab = np.argmax(lay.nb[a] == b[:, None], axis=1)
    below[b, OPPOSITE[d_ab]] = less[:, 0]
    below[a, d_ab] = less[:, 1]
    cells = lay.free
    y = lay.ytab[cells]
    sides = below[cells][:, TYPE_DIRS]                                # (F, 6, 2)
    lits = np.concatenate([-y[:, :, None], sides], axis=2)
    return lits[(y > 0) & (sides > 0).all(axis=2)]


def no_four_cycles(puzzle: Puzzle, lay: _Layout) -> np.ndarray:
    """``¬y(tl, BR) ∨ ¬y(tr, BL) ∨ ¬y(bl, TR) ∨ ¬y(br, TL)`` per 2×2 block of free cells."""
    h, w = puzzle.height, puzzle.width
    tl = (np.arange(h - 1)[:, None] * w + np.arange(w - 1)[None, :]).reshape(-1)
    corners = np.stack([tl, tl + 1, tl + w, tl + w + 1], axis=1)
    corners = corners[(lay.ends[corners] < 0).all(axis=1)]
    types = np.array([TYPE_NAMES.index(t) for t in ("BR", "BL", "TR", "TL")])
    return -lay.ytab[corners, types[None, :]]


def encode(puzzle: Puzzle, encoding: str) -> Formula:
    """The formula of ``puzzle`` under ``encoding`` (see the module docstring)."""
    formula, lay = zucker(puzzle)
    if encoding == "acyclic":
        acyclic_clauses(puzzle, lay)
    elif encoding == "zucker-2x2":
        formula.add("no_four_cycles", no_four_cycles(puzzle, lay))
    elif encoding != "zucker":
        raise UserError(f"unknown encoding {encoding!r} for family flow")
    return formula


# -- models -----------------------------------------------------------------------------------
def decode(puzzle: Puzzle, encoding: str, model: np.ndarray) -> Solution:
    """Colours from ``x``, links from the direction types of free cells; an endpoint is linked
    to the neighbours whose links point back at it, and to an adjacent endpoint of its own
    colour. Cells with no or several true variables get colour −1 / no links, for
    :func:`check` to report."""
    lay = _layout(puzzle)
    model = np.asarray(model, dtype=bool)
    xv = model[lay.x]
    colors = np.where(xv.sum(axis=1) == 1, np.argmax(xv, axis=1), -1)
    yv = model[lay.ytab] & (lay.ytab > 0)
    links = np.where(yv.sum(axis=1) == 1, TYPE_MASKS[np.argmax(yv, axis=1)], 0)
    ends = lay.ends
    nb = np.maximum(lay.nb, 0)
    back = (links[nb] >> OPPOSITE) & 1 == 1
    twin = (ends[nb] == ends[:, None]) & (nb != np.arange(ends.size)[:, None])
    joined = (lay.nb >= 0) & (back | twin) & (ends >= 0)[:, None]
    links = np.where(ends >= 0, (joined << np.arange(4)).sum(axis=1), links)
    shape = (puzzle.height, puzzle.width)
    return Solution(colors.reshape(shape), links.reshape(shape))


def assignment(puzzle: Puzzle, encoding: str, solution: Solution) -> np.ndarray:
    """The model of ``encoding`` that the solution stands for (ranks = position along the
    path among free cells). ``zucker`` and ``zucker-2x2`` have only the shared ``x``/``y``
    variables, so only ``acyclic`` needs its formula built."""
    if encoding not in ("zucker", "zucker-2x2", "acyclic"):
        raise UserError(f"unknown encoding {encoding!r} for family flow")
    lay = _layout(puzzle)
    formula = encode(puzzle, encoding) if encoding == "acyclic" else lay.formula
    model = np.zeros(formula.num_vars + 1, dtype=bool)
    cells = np.arange(lay.ends.size)
    model[lay.x[cells, solution.colors.reshape(-1)]] = True
    mask_type = {int(m): t for t, m in enumerate(TYPE_MASKS)}
    links = solution.links.reshape(-1)
    for cell in lay.free:
        model[lay.ytab[cell, mask_type[int(links[cell])]]] = True
    if encoding == "acyclic" and "rank" in formula.variables:
        _set_ranks(puzzle, lay, formula, solution, model)
    return model


def _set_ranks(puzzle, lay, formula, solution, model) -> None:
    position = np.zeros(lay.ends.size, dtype=np.int64)
    for path in trace_paths(puzzle, solution)[0]:
        inner = [c for c in path if lay.ends[c] < 0]
        position[inner] = np.arange(len(inner))
    nbits = formula.variables["rank"].shape[1]
    bits = (position[:, None] >> np.arange(nbits)) & 1 == 1
    model[formula.var("rank")] = bits[lay.free]
    pairs = _adjacent_free(puzzle, lay)
    xa, xb = bits[pairs[:, 0]], bits[pairs[:, 1]]
    # equal_above[p, j]: bits j.. of a and b agree (cumulative from the top bit down)
    same = np.flip(np.cumprod(np.flip(xa == xb, axis=1), axis=1), axis=1).astype(bool)
    model[formula.var("equal_above")] = same
    above = np.concatenate([same[:, 1:], np.ones((len(pairs), 1), bool)], axis=1)
    less_at = np.stack([~xa & xb & above, xa & ~xb & above], axis=1)
    model[formula.var("less_at")] = less_at
    model[formula.var("less")] = less_at.any(axis=2)

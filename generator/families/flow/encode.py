"""Flow Free encodings: ``zucker`` (the article's), ``acyclic`` and ``zucker-2x2`` (see the
package docstring), their decoding and the model a solution stands for."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from puzzlesat.generator.core.cnf import Formula
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
class Numbering:
    """Numbering shared by every encoding: ``x[cell, colour]``, ``ytab[cell, type]`` (0 where
    a cell has no such type), neighbours ``nb[cell, N E S W]`` (−1 off-grid)."""

    nb: np.ndarray
    ends: np.ndarray
    free: np.ndarray
    x: np.ndarray
    ytab: np.ndarray
    formula: Formula


def numbering(puzzle: Puzzle) -> Numbering:
    """The variables of every encoding of ``puzzle`` (a fresh Formula holding them), its
    neighbour table and free cells."""
    h, w, colors = puzzle.height, puzzle.width, puzzle.num_colors
    formula = Formula()
    x = formula.new_vars("x", h, w, colors).reshape(h * w, colors)
    nb = neighbour_table(h, w)
    ends = puzzle.endpoints.reshape(-1)
    on = nb >= 0
    available = on[:, TYPE_DIRS].all(axis=2) & (ends < 0)[:, None]
    ytab = np.zeros(available.shape, dtype=np.int32)
    ytab[available] = formula.new_vars("y", int(available.sum()))
    return Numbering(nb, ends, np.flatnonzero(ends < 0), x, ytab, formula)


# The article emits its clauses cell by cell, and a cell's clauses have different lengths (a
# free cell: one of C colours, then C(C,2) pairs). A clause block is 2-D with one width, so a
# pass is built as a few "lanes", one array per clause width, each filled in place, in the
# pass's order, by index arithmetic; the pass is then the sequence of lane slices that the
# cells take in turn (views: no clause is copied, no row padded beyond its lane's width).
def _add_pass(formula: Formula, name: str, lanes: list, lane: np.ndarray, rows: np.ndarray
              ) -> None:
    """Add the clauses of one pass: its segment s is the next ``rows[s]`` rows of
    ``lanes[lane[s]]`` (each lane holds its rows in the pass's order); consecutive segments of
    one lane make one block."""
    lane, rows = lane.reshape(-1), rows.reshape(-1).astype(np.int64)
    keep = rows > 0
    lane, rows = lane[keep], rows[keep]
    if not rows.size:
        return
    first = np.flatnonzero(np.concatenate([[True], lane[1:] != lane[:-1]]))
    sizes = np.add.reduceat(rows, first)
    which = lane[first]
    starts = np.empty_like(sizes)
    for k, array in enumerate(lanes):
        mine = which == k
        ends = np.cumsum(sizes[mine])
        if (ends[-1] if ends.size else 0) != array.shape[0]:
            raise AssertionError(f"{name}: lane {k} has {array.shape[0]} rows, pass uses {ends}")
        starts[mine] = ends - sizes[mine]
    for k, start, size in zip(which.tolist(), starts.tolist(), sizes.tolist()):
        formula.add(name, lanes[k][start:start + size])


def _pair_lits(groups: np.ndarray) -> np.ndarray:
    """``(n, C(k,2), 2)``: ``¬a ∨ ¬b`` for each pair of positions a < b (lexicographic) in each
    row of ``groups`` (n, k)."""
    i, j = np.triu_indices(groups.shape[1], 1)
    out = np.empty((groups.shape[0], i.size, 2), dtype=np.int32)
    for column, at in enumerate((i, j)):  # straight into place ("clip": indices are valid)
        np.take(groups, at, axis=1, out=out[:, :, column], mode="clip")
    return np.negative(out, out=out)


def endpoint_clauses(lay: Numbering, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per endpoint cell of colour u (rows, and rows per cell): ``x(cell, u)``, ``¬x(cell, v)``
    for each other colour v; at least one neighbour (L R T B order) has colour u; no two do."""
    colors = lay.x.shape[1]
    u = lay.ends[cells]
    nbs = lay.nb[cells][:, LRTB]
    on = nbs >= 0
    d = on.sum(axis=1)
    counts = colors + 1 + d * (d - 1) // 2
    start = np.cumsum(counts) - counts
    out = np.zeros((int(counts.sum()), max(1, int(d.max(initial=0)))), dtype=np.int32)
    # units: colour u first, then the others in order
    p = np.arange(colors)[None, :]
    v = np.where(p == 0, u[:, None], p - 1 + (p - 1 >= u[:, None]))
    out[start[:, None] + p, 0] = np.where(p == 0, 1, -1) * lay.x[cells[:, None], v]
    # neighbours of colour u, the on-grid ones in order
    packed = np.take_along_axis(np.where(on, lay.x[np.maximum(nbs, 0), u[:, None]], 0),
                                np.argsort(~on, axis=1, kind="stable"), axis=1)
    out[start + colors] = packed[:, :out.shape[1]]
    i, j = np.triu_indices(4, 1)
    real = j[None, :] < d[:, None]
    if real.any():
        at = (start + colors + 1)[:, None] + np.cumsum(real, axis=1) - 1
        out[at[real], 0] = -packed[:, i][real]
        out[at[real], 1] = -packed[:, j][real]
    return out, counts


def colour_pass(lay: Numbering) -> tuple[list, np.ndarray, np.ndarray]:
    """Cell by cell: an endpoint's clauses (:func:`endpoint_clauses`); a free cell's at least
    one colour, then pairwise at most one. Lanes: endpoints, at-least-one rows, pairs."""
    colors = lay.x.shape[1]
    ends = np.flatnonzero(lay.ends >= 0)
    endpoint_rows, endpoint_counts = endpoint_clauses(lay, ends)
    one = lay.x[lay.free]
    pairs = _pair_lits(one).reshape(-1, 2)
    lane = np.tile(np.array([1, 2]), (lay.ends.size, 1))
    rows = np.tile(np.array([1, colors * (colors - 1) // 2]), (lay.ends.size, 1))
    lane[ends] = 0
    rows[ends] = np.stack([endpoint_counts, np.zeros_like(endpoint_counts)], axis=1)
    return [endpoint_rows, one, pairs], lane, rows


@functools.cache
def _direction_template(code: int):
    """For a free cell whose on-grid neighbours are the bits of ``code`` (grid directions):
    its types (TYPE_NAMES indices) and one entry per neighbour clause of a colour, in the
    article's order (direction L R T B, then type): (type position, sign of x(cell, u), sign
    of x(nb, u), grid direction of nb)."""
    on = [(code >> g) & 1 == 1 for g in range(4)]
    types = [t for t in range(6) if all(on[g] for g in TYPE_DIRS[t])]
    entries = []
    for i, g in enumerate(LRTB.tolist()):
        for pos, t in enumerate(types):
            if TYPE_POINTS[i, t]:
                entries += [(pos, -1, 1, g), (pos, 1, -1, g)]
            elif on[g]:
                entries.append((pos, -1, -1, g))
    cols = np.array(entries, dtype=np.int32).reshape(-1, 4).T
    return np.array(types, dtype=np.int64), cols[0], cols[1], cols[2], cols[3]


def direction_pass(lay: Numbering, width: int) -> tuple[list, np.ndarray, np.ndarray]:
    """Free cell by free cell: at least one type, pairwise at most one type, then the
    neighbour clauses per colour u, direction L R T B and type t: if t points that way,
    ``¬y ∨ ¬x(cell,u) ∨ x(nb,u)`` and ``¬y ∨ x(cell,u) ∨ ¬x(nb,u)``, otherwise, if the
    neighbour is on the grid, ``¬y ∨ ¬x(cell,u) ∨ ¬x(nb,u)``. Lanes: the six-type
    at-least-one rows of interior cells (width 6); everything else (width 3)."""
    colors = lay.x.shape[1]
    free = lay.free
    code = ((lay.nb[free] >= 0) << np.arange(4)).sum(axis=1)
    templates = {c: _direction_template(c) for c in np.unique(code).tolist()}
    k, m = np.zeros((2, 16), dtype=np.int64)
    for c, (types, pos, *_) in templates.items():
        k[c], m[c] = types.size, pos.size
    k, m = k[code], m[code]
    wide = k > 3
    counts = (~wide) + k * (k - 1) // 2 + colors * m
    start = np.cumsum(counts) - counts
    narrow = np.empty((int(counts.sum()), 3), dtype=np.int32)
    # x(nb, u) = x(cell, u) + (nb - cell)·C: x is numbered cell-major
    step = np.array([-width, 1, width, -1], dtype=np.int32) * colors
    first = np.flatnonzero(np.concatenate([[True], code[1:] != code[:-1]]))
    for a, b in zip(first.tolist(), first[1:].tolist() + [free.size]):
        # a run of free cells with the same on-grid neighbours: one layout, filled at once
        types, pos, own, other, direction = templates[int(code[a])]
        cells, n = free[a:b], b - a
        region = narrow[start[a]:start[a] + n * int(counts[a])].reshape(n, -1, 3)
        y = lay.ytab[cells][:, types]
        one = int(not wide[a])  # the at-least-one row is here when it fits width 3
        if one:
            region[:, 0, :types.size] = y
            region[:, 0, types.size:] = 0
        head = one + types.size * (types.size - 1) // 2
        region[:, one:head, :2] = _pair_lits(y)
        region[:, one:head, 2] = 0
        if not pos.size:
            continue
        lits = region[:, head:].reshape(n, colors, pos.size, 3)
        if not np.may_share_memory(lits, narrow):
            raise AssertionError("the clause view is a copy")
        xu = lay.x[cells][:, :, None]
        lits[..., 0] = -y[:, None, pos]
        np.multiply(xu, own, out=lits[..., 1])
        np.add(xu, step[direction], out=lits[..., 2])
        lits[..., 2] *= other
    lane = np.stack([np.zeros(free.size, np.int64), np.ones(free.size, np.int64)], axis=1)
    rows = np.stack([wide.astype(np.int64), counts], axis=1)
    return [lay.ytab[free[wide]], narrow], lane, rows


def zucker(puzzle: Puzzle) -> tuple[Formula, Numbering]:
    """Zucker's encoding of ``puzzle`` and the variable numbering it uses."""
    lay = numbering(puzzle)
    _add_pass(lay.formula, "colour", *colour_pass(lay))
    if lay.free.size:
        _add_pass(lay.formula, "direction", *direction_pass(lay, puzzle.width))
    return lay.formula, lay


def rank_bits(free_cells: int) -> int:
    """Bits of a free cell's rank along its path (at least 1)."""
    return max(1, math.ceil(math.log2(free_cells))) if free_cells > 1 else 1


def acyclic_clauses(puzzle: Puzzle, lay: Numbering) -> None:
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


def _adjacent_free(puzzle: Puzzle, lay: Numbering) -> np.ndarray:
    """Adjacent pairs (a, b), a < b, of free cells: one comparator each."""
    pairs = adjacent_pairs(puzzle.height, puzzle.width)
    return pairs[(lay.ends[pairs] < 0).all(axis=1)]


def rank_descends(lay: Numbering, pairs: np.ndarray, less: np.ndarray) -> np.ndarray:
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


def no_four_cycles(puzzle: Puzzle, lay: Numbering) -> np.ndarray:
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
    lay = numbering(puzzle)
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
    lay = numbering(puzzle)
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

"""Planted Flow Free grids: paths that cover the grid without touching themselves, and the
uniqueness test.

A planted grid is a *path cover*: every cell on exactly one path, and no path touching itself
(no two cells of one path adjacent unless consecutive on it), which is what the article's
"different colour" clauses demand. Planting runs in three steps, each linear in the grid:

1. **Stripes.** The grid is cut into straight stripes along its longer side, each stripe into
   up to :data:`STRIPE_PIECES` random pieces of at least ``min_path`` cells. A cover.
2. **Rewiring.** :data:`MOVES_PER_CELL` × cells random moves, each kept only when the cover
   stays valid: an end ``a`` of path p and a neighbour ``b`` on another path q; q is split at
   ``b`` and one side of it (b first) is appended to p at ``a``. Taking all of q is a merge
   (one path fewer), taking q's end cell alone moves that cell ("shrink one flow, grow its
   neighbour"), anything between rewires two paths. A move is valid when p and the part
   taken touch only at (a, b) and what is left of q is empty or at least ``min_path`` long.
   The stripes bend into random lanes and merge: the count falls well below the shorter side.
3. **Cutting.** Paths are cut at random places into exactly ``colors`` paths of at least
   ``min_path`` cells (a piece of an induced path is induced). A cut never wastes capacity
   that the remaining cuts need.

So every count from the shorter side (stripes, before any merge) up to what cutting can reach
is met exactly: :func:`colour_range`. When an attempt ends with more paths than asked for
(rare, small grids) the next attempt starts again; the last resort is the plain stripes cut.
Fewer colours than the shorter side take more rounds of step 2 (:func:`_plant_few`).
Random numbers come from one :class:`puzzlesat.generator.core.seeds.Rng` through its
:class:`~puzzlesat.generator.core.seeds.Draws` (raw words taken in blocks), so planting is
deterministic and cheap.
"""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.grid import neighbour_table
from puzzlesat.generator.core.seeds import Draws, Rng
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.families.flow.encode import decode, encode, numbering
from puzzlesat.generator.families.flow.puzzle import (
    LABELS,
    Puzzle,
    solution_from_paths,
    trace_paths,
)

#: planting attempts before the plain-stripes last resort
PLANT_ATTEMPTS = 4
#: rewiring moves tried per grid cell in one attempt
MOVES_PER_CELL = 8
#: pieces per initial stripe (more pieces: more path ends, so more moves that apply)
STRIPE_PIECES = 3
#: attempts of --unique before giving up
UNIQUE_ATTEMPTS = 200
#: rewiring rounds (of MOVES_PER_CELL moves per cell) an attempt may take to merge its paths
#: down to fewer colours than the shorter side
MERGE_ROUNDS = 16
#: rounds without a merge after which an attempt stops early
MERGE_PATIENCE = 3


def colour_range(width: int, height: int, min_path: int) -> tuple[int, int]:
    """(fewest, most) colours that planting always meets exactly on a width×height grid with
    paths of at least ``min_path`` cells: from the number of stripes (the shorter side) to
    what cutting the stripes can reach, at most ``len(LABELS)``; (0, 0) when the longer side
    is shorter than ``min_path``.

    >>> colour_range(12, 12, 3), colour_range(60, 60, 3), colour_range(2, 2, 3)
    ((12, 48), (60, 62), (0, 0))
    """
    stripes, length = min(width, height), max(width, height)
    if length < min_path:
        return 0, 0
    return stripes, min(len(LABELS), stripes * (length // min_path))


def plant_paths(width: int, height: int, colors: int, min_path: int,
                rng: Rng) -> list:
    """Exactly ``colors`` paths (lists of row-major cells) covering the grid, none touching
    itself, each at least ``min_path`` long (see the module docstring). ``colors`` runs up to
    the most of :func:`colour_range`; below its fewest, :func:`_plant_few` tries."""
    low, high = colour_range(width, height, min_path)
    if not 1 <= colors <= high:
        raise UserError(f"flow: {width}x{height} with paths of at least {min_path} cells takes "
                        f"{low}..{high} colours (fewer when the grid allows), asked for {colors}")
    draws = rng.draws()
    if colors < low:
        return _plant_few(width, height, colors, min_path, draws, low)
    for attempt in range(PLANT_ATTEMPTS + 1):
        last = attempt == PLANT_ATTEMPTS
        paths = _stripes(width, height, 1 if last else STRIPE_PIECES, min_path, draws)
        if not last:
            paths = _rewire(width, height, paths, min_path, MOVES_PER_CELL, draws)
        if len(paths) <= colors <= sum(len(p) // min_path for p in paths):
            return _cut(paths, colors, min_path, draws)
    raise AssertionError("unreachable: plain stripes meet every count in colour_range")


def _plant_few(width: int, height: int, colors: int, min_path: int, draws: Draws,
               low: int) -> list:
    """Fewer paths than stripes: each attempt rewires for up to :data:`MERGE_ROUNDS` rounds,
    until merges bring the count down to ``colors`` (then cuts up to it exactly). Real
    "extreme" levels have about half as many colours as the side; how low a grid can go
    depends on its shape and the seed, so a count not reached is a user error."""
    fewest = None
    for _ in range(max(1, PLANT_ATTEMPTS)):
        paths = _stripes(width, height, STRIPE_PIECES, min_path, draws)
        best, idle = len(paths), 0
        for _ in range(MERGE_ROUNDS):
            paths = _rewire(width, height, paths, min_path, MOVES_PER_CELL, draws)
            if len(paths) <= colors:
                break
            best, idle = (len(paths), 0) if len(paths) < best else (best, idle + 1)
            if idle == MERGE_PATIENCE:  # the count has settled: a new attempt does better
                break
        if len(paths) <= colors <= sum(len(p) // min_path for p in paths):
            return _cut(paths, colors, min_path, draws)
        fewest = len(paths) if fewest is None else min(fewest, len(paths))
    raise UserError(f"flow: planting merged a {width}x{height} grid down to {fewest} paths at "
                    f"best, not {colors} (from {low} colours up it always succeeds); try more "
                    "colours or another seed")


def _stripes(width: int, height: int, pieces: int, min_path: int, draws: Draws) -> list:
    """Rows (or columns, when the grid is taller than wide), each cut into up to ``pieces``
    pieces of at least ``min_path`` cells."""
    cells = np.arange(width * height).reshape(height, width)
    lines = (cells if width >= height else cells.T).tolist()
    return [piece for line in lines
            for piece in _cut([line], min(pieces, len(line) // min_path), min_path, draws)]


def _rewire(width: int, height: int, paths: list, min_path: int, moves_per_cell: int,
            draws: Draws) -> list:
    """Random valid moves on the cover ``paths`` (see the module docstring, step 2)."""
    cells = width * height
    nb = [[n for n in row if n >= 0] for row in neighbour_table(height, width).tolist()]
    paths = [list(p) for p in paths]
    owner = [0] * cells
    pos = [0] * cells
    for p, path in enumerate(paths):
        for i, c in enumerate(path):
            owner[c] = p
            pos[c] = i
    alive = list(range(len(paths)))
    slot = list(range(len(paths)))
    below = draws.below
    for _ in range(moves_per_cell * cells):
        p = alive[below(len(alive))]
        mine = paths[p]
        a = mine[-1] if below(2) else mine[0]
        b = nb[a][below(len(nb[a]))]
        q = owner[b]
        if q == p:
            continue
        other = paths[q]
        i = pos[b]
        front = below(2)
        lo, hi = (0, i + 1) if front else (i, len(other))   # the part taken: other[lo:hi]
        rest = len(other) - (hi - lo)
        if 0 < rest < min_path or _touch_elsewhere(nb, owner, pos, mine, other, p, q, lo, hi,
                                                   a, b):
            continue
        if mine[-1] != a:
            mine.reverse()
            for k, c in enumerate(mine):
                pos[c] = k
        part = other[lo:hi]
        if front:
            part.reverse()                                   # b first
        base = len(mine)
        for k, c in enumerate(part):
            owner[c] = p
            pos[c] = base + k
        mine.extend(part)
        if rest == 0:
            k, moved = slot[q], alive.pop()
            if moved != q:
                alive[k] = moved
                slot[moved] = k
            paths[q] = None
        elif front:
            paths[q] = other[hi:]
            for k, c in enumerate(paths[q]):
                pos[c] = k
        else:
            del other[lo:]
    return [paths[p] for p in sorted(alive)]


def _touch_elsewhere(nb, owner, pos, mine, other, p, q, lo, hi, a, b) -> bool:
    """Does path p touch ``other[lo:hi]`` (cells of path q) anywhere but at (a, b)? Scans the
    shorter of the two."""
    if len(mine) <= hi - lo:
        for c in mine:
            for n in nb[c]:
                if owner[n] == q and lo <= pos[n] < hi and (c != a or n != b):
                    return True
        return False
    for k in range(lo, hi):
        c = other[k]
        for n in nb[c]:
            if owner[n] == p and (c != b or n != a):
                return True
    return False


def _cut(paths: list, colors: int, min_path: int, draws: Draws) -> list:
    """``paths`` cut at random places into ``colors`` pieces of at least ``min_path`` cells.
    A path of L cells holds ``L // min_path`` pieces at most (its capacity); a cut that lowers
    the total capacity is taken only while the total stays at least ``colors``."""
    pieces = [list(p) for p in paths]
    m = min_path
    capacity = sum(len(p) // m for p in pieces)
    while len(pieces) < colors:
        thrifty = capacity == colors          # every further cut must keep capacity
        weights = [_cut_places(len(p), m, thrifty) for p in pieces]
        pick = draws.below(sum(weights))
        k = 0
        while pick >= weights[k]:
            pick -= weights[k]
            k += 1
        path = pieces[k]
        at = [a for a in range(m, len(path) - m + 1)
              if not thrifty or a % m <= len(path) % m][pick]
        capacity -= len(path) // m - at // m - (len(path) - at) // m
        pieces[k:k + 1] = [path[:at], path[at:]]
    return pieces


def _cut_places(length: int, m: int, thrifty: bool) -> int:
    """Cut places a (pieces of a and length − a cells, both ≥ m); with ``thrifty``, only
    those that keep ``length // m`` pieces possible (a mod m ≤ length mod m)."""
    if length < 2 * m:
        return 0
    if not thrifty:
        return length - 2 * m + 1
    return sum(1 for a in range(m, length - m + 1) if a % m <= length % m)


def planted_puzzle(width: int, height: int, paths: list) -> Puzzle:
    """The puzzle whose solution is ``paths`` (cell lists): colours numbered by first endpoint
    in row-major order; each path runs from that endpoint to the other."""
    paths = [path if path[0] < path[-1] else path[::-1] for path in paths]
    paths.sort(key=lambda path: path[0])
    endpoints = np.full(width * height, -1, dtype=np.int64)
    for u, path in enumerate(paths):
        endpoints[[path[0], path[-1]]] = u
    puzzle = Puzzle(endpoints.reshape(height, width), LABELS[: len(paths)])
    puzzle.planted = solution_from_paths(puzzle, paths)
    return puzzle


def is_unique(puzzle: Puzzle, solving: Solving) -> bool:
    """Does the planted solution stay the only one? Block its colouring in ``zucker`` and
    re-solve with ``solving``'s incremental solver, blocking each stray cycle found (its cells'
    direction types), until UNSAT."""
    formula = encode(puzzle, "zucker")
    assert puzzle.planted is not None, "only a planted grid has a solution to keep unique"
    layout = numbering(puzzle)
    x, ytab = layout.x, layout.ytab
    free = layout.free
    colors = puzzle.planted.colors.reshape(-1)
    # y is a function of x, so blocking the free cells' colours blocks the whole model
    block = (-x[free, colors[free]]).tolist()
    if not block:
        return True
    with solving.incremental(formula) as solver:
        solver.add_clause(block)
        while (model := solver.solve()) is not None:
            solution = decode(puzzle, "zucker", model)
            _, cycles = trace_paths(puzzle, solution)
            if not cycles:
                return False
            for cycle in cycles:
                cells = np.array(cycle)
                types = np.argmax(model[ytab[cells]] & (ytab[cells] > 0), axis=1)
                solver.add_clause((-ytab[cells, types]).tolist())
    return True

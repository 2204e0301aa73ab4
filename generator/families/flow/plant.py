"""Planted Flow Free grids: paths that cover the grid without touching themselves, and the
uniqueness test."""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.core.grid import neighbour_table
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.families.flow.encode import _layout, decode, encode
from puzzlesat.generator.families.flow.puzzle import (
    LABELS,
    Puzzle,
    solution_from_paths,
    trace_paths,
)

PLANT_ATTEMPTS = 20
#: end-cell moves allowed per cell of the grid in one planting attempt
PLANT_MOVES_PER_CELL = 20
UNIQUE_ATTEMPTS = 60


def plant_paths(width: int, height: int, colors: int | None, min_path: int,
                rng: Rng) -> list | None:
    """``colors`` paths (lists of row-major cells) covering the grid, none touching itself and
    each at least ``min_path`` long, or None when no move is left or the move budget is spent.
    With ``colors`` None, as many paths as remain when no merge is possible.

    Every cell starts as its own path. A merge joins a head of one path to an adjacent head
    of another when the two paths touch only there (so the union never touches itself); paths
    shorter than ``min_path`` are merged first. When no merge is possible, one path's end
    cell moves to the adjacent end of another (shrink one flow, grow its neighbour) and
    merging is tried again; short paths that cannot merge take such cells first.
    """
    grid = _PathCover(width, height)
    budget = PLANT_MOVES_PER_CELL * width * height
    while len(grid.paths) > (colors or 1) and budget > 0:
        live = list(grid.paths)
        short = [p for p in live if len(grid.paths[p]) < min_path]
        found = None
        for pool in (list(short), live):
            while pool and found is None:
                options = grid.merges(pool.pop(rng.integer(len(pool))))
                if options:
                    found = options[rng.integer(len(options))]
            if found is not None:
                break
        if found is not None:
            grid.join(*found)
            continue
        if colors is None and not short:
            break
        # a short path that cannot merge grows instead, taking an end cell from a neighbour
        moves = [m for p in short for m in grid.transfers_into(p)] or grid.transfers()
        if not moves:
            break
        grid.transfer(*moves[rng.integer(len(moves))])
        budget -= 1
    paths = list(grid.paths.values())
    if len(paths) > (colors or len(paths)) or any(len(path) < min_path for path in paths):
        return None
    return paths


class _PathCover:
    """Paths covering a grid, with ``owner[cell]`` and ``touch[p][q]``, the number of adjacent
    cell pairs between paths p and q (dicts keep insertion order: walks are deterministic)."""

    def __init__(self, width: int, height: int):
        cells = width * height
        self.nb = [[n for n in row if n >= 0] for row in neighbour_table(height, width).tolist()]
        self.paths = {c: [c] for c in range(cells)}
        self.owner = list(range(cells))
        self.touch = {c: {n: 1 for n in self.nb[c]} for c in range(cells)}

    def heads(self, p: int) -> tuple:
        path = self.paths[p]
        return (path[0], path[-1]) if len(path) > 1 else (path[0],)

    def merges(self, p: int) -> list:
        """(head of p, head of q) pairs whose join keeps the union from touching itself."""
        out = []
        for head in self.heads(p):
            for n in self.nb[head]:
                q = self.owner[n]
                if q != p and n in self.heads(q) and self.touch[p].get(q) == 1:
                    out.append((head, n))
        return out

    def join(self, a: int, b: int) -> None:
        """Join the path with head ``a`` to the path with head ``b`` (the longer keeps its
        id)."""
        p, q = self.owner[a], self.owner[b]
        if len(self.paths[p]) < len(self.paths[q]):
            p, q, a, b = q, p, b, a
        head, tail = self.paths[p], self.paths.pop(q)
        if head[-1] != a:
            head.reverse()
        if tail[0] != b:
            tail.reverse()
        head.extend(tail)
        for c in tail:
            self.owner[c] = p
        for r, n in self.touch.pop(q).items():
            del self.touch[r][q]
            if r != p:
                self._count(p, r, n)

    def transfers_into(self, q: int) -> list:
        """(end cell c of another path of ≥ 2 cells, head b of q) such that q with c appended
        still touches itself nowhere."""
        return [(c, b) for b in self.heads(q) for c in self.nb[b]
                if self.owner[c] != q and len(self.paths[self.owner[c]]) > 1
                and c in self.heads(self.owner[c])
                and sum(self.owner[n] == q for n in self.nb[c]) == 1]

    def transfers(self) -> list:
        """(end cell c of a path of ≥ 2 cells, adjacent end b of another path) such that b's
        path with c appended still touches itself nowhere."""
        out = []
        for p, path in self.paths.items():
            if len(path) < 2:
                continue
            for c in (path[0], path[-1]):
                for b in self.nb[c]:
                    q = self.owner[b]
                    if (q != p and b in self.heads(q)
                            and sum(self.owner[n] == q for n in self.nb[c]) == 1):
                        out.append((c, b))
        return out

    def transfer(self, c: int, b: int) -> None:
        p, q = self.owner[c], self.owner[b]
        path = self.paths[p]
        path.remove(c)  # an end cell: the path stays one piece
        tail = self.paths[q]
        if tail[-1] != b:
            tail.reverse()
        tail.append(c)
        for n in self.nb[c]:
            if self.owner[n] != p:
                self._count(p, self.owner[n], -1)
        self.owner[c] = q
        for n in self.nb[c]:
            if self.owner[n] != q:
                self._count(q, self.owner[n], 1)

    def _count(self, p: int, q: int, n: int) -> None:
        for a, b in ((p, q), (q, p)):
            total = self.touch[a].get(b, 0) + n
            if total:
                self.touch[a][b] = total
            else:
                del self.touch[a][b]


def _planted_puzzle(width: int, height: int, paths: list) -> Puzzle:
    """Colours numbered by first endpoint in row-major order; each path runs from that
    endpoint to the other."""
    paths = [path if path[0] < path[-1] else path[::-1] for path in paths]
    paths.sort(key=lambda path: path[0])
    endpoints = np.full(width * height, -1, dtype=np.int64)
    for u, path in enumerate(paths):
        endpoints[[path[0], path[-1]]] = u
    puzzle = Puzzle(endpoints.reshape(height, width), LABELS[: len(paths)])
    puzzle.planted = solution_from_paths(puzzle, paths)
    return puzzle


def has_one_colour_2x2(colors: np.ndarray) -> bool:
    """Does some 2×2 block have a single colour? (Never true for paths that do not touch
    themselves; kept as the explicit quality filter.)"""
    c = colors
    return bool(((c[:-1, :-1] == c[1:, :-1]) & (c[:-1, :-1] == c[:-1, 1:])
                 & (c[:-1, :-1] == c[1:, 1:])).any())


def is_unique(puzzle: Puzzle) -> bool:
    """Does the planted solution stay the only one? Block its colouring in ``zucker`` and
    re-solve, blocking each stray cycle found (its cells' direction types), until UNSAT."""
    from pysat.solvers import Solver

    formula = encode(puzzle, "zucker")
    layout = _layout(puzzle)
    x, ytab = layout.x, layout.ytab
    free = layout.free
    colors = puzzle.planted.colors.reshape(-1)
    # y is a function of x, so blocking the free cells' colours blocks the whole model
    block = (-x[free, colors[free]]).tolist()
    with Solver(name="cadical195", bootstrap_with=formula.clauses()) as solver:
        if not block:
            return True
        solver.add_clause(block)
        while solver.solve():
            model = _model_array(solver.get_model(), formula.num_vars)
            solution = decode(puzzle, "zucker", model)
            _, cycles = trace_paths(puzzle, solution)
            if not cycles:
                return False
            for cycle in cycles:
                cells = np.array(cycle)
                types = np.argmax(model[ytab[cells]] & (ytab[cells] > 0), axis=1)
                solver.add_clause((-ytab[cells, types]).tolist())
    return True


def _model_array(literals, num_vars: int) -> np.ndarray:
    lits = np.asarray(literals, dtype=np.int64)
    model = np.zeros(num_vars + 1, dtype=bool)
    model[lits[lits > 0]] = True
    return model

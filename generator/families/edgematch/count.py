"""Counting edge-matching instances: the placements and rotations that solve a board.

The encodings have no auxiliary variables: ``x[piece, square]`` places the pieces and the
diamond colours ``y`` fix each placed piece's rotation, so a model is a solution and the track is
``mc`` (every variable shown). Two rotations of a piece that show the same colours on every side
(a piece ``aaaa``, or ``abab`` turned half way) are one model, since no variable tells them apart;
so the count is of distinct boards: each square's piece and the colours its sides show.
Identical pieces are different pieces (swapping two is another model: the encodings' duplicate
clauses only keep them off one square). Rotating or reflecting the whole board is not broken by
any encoding: a square board's four rotations of a solution are four models (unless a rotation
maps it to itself), as are a rectangle's two half turns. ``compact``, ``fbcolors``, ``explicit``
and ``all`` have the same models: the type clauses let a square show exactly a rotation of its
piece, so two pieces on one square would be identical up to rotation, which the duplicate
clauses forbid; with as many pieces as squares each piece then lies on exactly one square.

The certified count is a backtracking search over the pieces by the puzzle's own rules (each
piece once, touching sides equal, or opposite when signed; frame colour exactly on the boundary
of a bounded board), squares row-major. Past :data:`MAX_NODES` search nodes it gives up (the
count is then unknown). Tests count the same boards through the CNF by enumeration.

>>> from puzzlesat.generator.families.edgematch.puzzle import load_pieces
>>> count_boards(load_pieces("four-squares"))
72
"""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.families.counting import Count
from puzzlesat.generator.families.edgematch.geometry import FRAME
from puzzlesat.generator.families.edgematch.puzzle import Puzzle

#: search nodes (a piece tried in a rotation on a square) before the count is given up
MAX_NODES = 5_000_000
SOURCE = "exhaustive-search:pieces"


def shown(puzzle: Puzzle, encoding: str, formula: Formula) -> np.ndarray:
    """Every variable: placements and diamond colours together name a solution."""
    return np.arange(1, formula.num_vars + 1, dtype=np.int32)


def known_count(puzzle: Puzzle, encoding: str, formula: Formula, shown: np.ndarray,
                solving: Solving | None) -> Count:
    """The boards that solve the puzzle, by :func:`count_boards`."""
    value = count_boards(puzzle)
    if value is None:
        return Count(None, f"none (more than {MAX_NODES:,} search nodes)")
    return Count(value, SOURCE)


def orientations(piece) -> list[tuple[int, int, int, int]]:
    """The distinct side colours (N E S W) the piece shows in its four rotations."""
    sides = [int(c) for c in piece]
    seen: list[tuple[int, int, int, int]] = []
    for r in range(4):
        turned = (sides[-r % 4], sides[(1 - r) % 4], sides[(2 - r) % 4], sides[(3 - r) % 4])
        if turned not in seen:
            seen.append(turned)
    return seen


def count_boards(puzzle: Puzzle, max_nodes: int = MAX_NODES) -> int | None:
    """The solved boards of ``puzzle`` (see the module docstring), or None past ``max_nodes``."""
    rows, cols = puzzle.rows, puzzle.cols
    # every (piece, orientation), indexed by the colours it shows north and west: a square's
    # candidates are looked up by what its filled neighbours above and to the left show
    turns = [(p, t) for p, piece in enumerate(np.asarray(puzzle.pieces).tolist())
             for t in orientations(piece)]
    by_key: dict[tuple, list] = {}
    for p, (n, e, s, w) in turns:
        for key in ((n, w), (n, None), (None, w), (None, None)):
            by_key.setdefault(key, []).append((p, e, s))
    used = [False] * len(puzzle.pieces)
    south: list[int] = [0] * (rows * cols)  # the S colour shown on each filled square
    east: list[int] = [0] * (rows * cols)
    nodes = 0

    def partner(side: int) -> int | None:
        """The colour a neighbour must show against ``side`` (None: no piece fits)."""
        if puzzle.bounded and side == FRAME:
            return None
        return -side if puzzle.signed else side

    def inner_ok(side: int, on_boundary: bool) -> bool:
        return not puzzle.bounded or (side == FRAME) == on_boundary

    def fill(square: int) -> int:
        nonlocal nodes
        if square == rows * cols:
            return 1
        r, c = divmod(square, cols)
        need_n = partner(south[square - cols]) if r else (FRAME if puzzle.bounded else None)
        need_w = partner(east[square - 1]) if c else (FRAME if puzzle.bounded else None)
        if (r and need_n is None) or (c and need_w is None):
            return 0
        total = 0
        for p, e, s in by_key.get((need_n, need_w), ()):
            if used[p]:
                continue
            nodes += 1
            if nodes > max_nodes:
                raise _TooMany
            if not (inner_ok(s, r == rows - 1) and inner_ok(e, c == cols - 1)):
                continue
            used[p] = True
            south[square], east[square] = s, e
            total += fill(square + 1)
            used[p] = False
        return total

    try:
        return fill(0)
    except _TooMany:
        return None


class _TooMany(Exception):
    pass

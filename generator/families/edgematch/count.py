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
of a bounded board), squares row-major: a square's candidates are the (piece, orientation)
pairs that fit what its filled neighbours above and to the left show and, on a bounded board,
show the frame exactly on its outer sides. The search is bounded: past ``max_nodes``
candidates placed (:data:`MAX_NODES` when a count is made or checked, the same bound at both
ends) it stops with :class:`SearchBound`, and the count is unknown, never a guess. Every board
of ``suites/mc-puzzles.toml`` stays within it (tests/test_counting.py checks). Tests
count the same boards through the CNF by enumeration.

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

#: the search's bound (:func:`count_boards`): candidates placed before the count is given up.
#: A module constant, not a per-instance option, so that ``validate-count`` counts a file
#: again exactly as ``generate --count`` counted it.
MAX_NODES = 5_000_000
SOURCE = "exhaustive-search:pieces"


class SearchBound(Exception):
    """The search over the pieces passed its bound (the message says which)."""


#: what a count of this family counts and how it is certified, for the suite's description
STORY = (
    "A model is a solved board: the piece on each square and the colours its sides show, which "
    "fix its rotation. The encodings have no auxiliary variables, so the track is mc (every "
    "variable shown). Two rotations of a piece that show the same colours (aaaa, or abab turned "
    "half way) are one board; identical pieces are different pieces (swapping two is another "
    "board). The symmetry of the whole board is not broken: the four rotations of a square "
    "board's solution are four boards (a rectangle's half turn two), unless a rotation maps it "
    "to itself. Certified by a backtracking search over the pieces by the puzzle's own rules, "
    f"never through the CNF (bounded: past {MAX_NODES:,} candidates placed the count is "
    "unknown); "
    "the tests count the same boards by certified enumeration through the CNF.")


def shown(puzzle: Puzzle, encoding: str, formula: Formula) -> np.ndarray:
    """Every variable: placements and diamond colours together name a solution."""
    return np.arange(1, formula.num_vars + 1, dtype=np.int32)


def known_count(puzzle: Puzzle, encoding: str, formula: Formula, shown: np.ndarray,
                solving: Solving | None) -> Count:
    """The boards that solve the puzzle, by :func:`count_boards` (unknown past its bound)."""
    try:
        return Count(count_boards(puzzle, MAX_NODES), SOURCE)
    except SearchBound as exc:
        return Count(None, f"none ({exc})")


def orientations(piece) -> list[tuple[int, int, int, int]]:
    """The distinct side colours (N E S W) the piece shows in its four rotations."""
    sides = [int(c) for c in piece]
    seen: list[tuple[int, int, int, int]] = []
    for r in range(4):
        turned = (sides[-r % 4], sides[(1 - r) % 4], sides[(2 - r) % 4], sides[(3 - r) % 4])
        if turned not in seen:
            seen.append(turned)
    return seen


def count_boards(puzzle: Puzzle, max_nodes: int = MAX_NODES) -> int:
    """The solved boards of ``puzzle`` (see the module docstring); :class:`SearchBound` once
    more than ``max_nodes`` candidates have been placed."""
    rows, cols, bounded = puzzle.rows, puzzle.cols, puzzle.bounded
    # every (piece, orientation) under each key a square can ask for: the colours it must show
    # north and west (None: anything, on an unbounded board's first row or column) and, on a
    # bounded board, whether its south and east sides are the frame (None: unbounded)
    by_key: dict[tuple, list[tuple[int, int, int]]] = {}
    for p, piece in enumerate(np.asarray(puzzle.pieces).tolist()):
        for n, e, s, w in orientations(piece):
            keys: list[tuple]
            if bounded:
                keys = [(n, w, s == FRAME, e == FRAME)]
            else:
                keys = [(a, b, None, None) for a in (n, None) for b in (w, None)]
            for key in keys:
                by_key.setdefault(key, []).append((p, e, s))
    used = [False] * len(puzzle.pieces)
    south = [0] * (rows * cols)  # the S colour shown on each filled square
    east = [0] * (rows * cols)
    nodes = 0
    sign = -1 if puzzle.signed else 1
    open_side = FRAME if bounded else None

    def fill(square: int) -> int:
        nonlocal nodes
        if square == rows * cols:
            return 1
        r, c = divmod(square, cols)
        key = (sign * south[square - cols] if r else open_side,
               sign * east[square - 1] if c else open_side,
               r == rows - 1 if bounded else None, c == cols - 1 if bounded else None)
        total = 0
        for p, e, s in by_key.get(key, ()):
            if used[p]:
                continue
            nodes += 1
            if nodes > max_nodes:
                raise SearchBound(f"the search over the pieces passed its bound of "
                                  f"{max_nodes:,} candidates placed")
            used[p] = True
            south[square], east[square] = s, e
            total += fill(square + 1)
            used[p] = False
        return total

    return fill(0)

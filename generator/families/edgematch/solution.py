"""Models and placements: decoding a model, the puzzle's own referee, the known witness and
the model of a placement."""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.families.edgematch.geometry import FRAME, E, N, S, W
from puzzlesat.generator.families.edgematch.pieces import Puzzle, Solution, shown_sides


def decode(puzzle: Puzzle, encoding: str, model: np.ndarray) -> Solution:
    """The placement a model describes: the square of each piece from x, the rotation that
    makes the piece show the decoded edge colours (frame on frame sides)."""
    board, n = puzzle.board, len(puzzle.pieces)
    piece = np.full(n, -1, dtype=np.int64)
    for cls in range(3):
        x = board.x(cls)
        if x.size:
            on = np.asarray(model)[x]
            has, where = on.any(axis=1), on.argmax(axis=1)
            piece[board.squares[cls][where[has]]] = board.members[cls][has]
    # expected side colours as the square's piece sees them: diamond truth via the lit table
    lit = board.lit  # (sq, 4, palette)
    truth = np.where(lit > 0, np.asarray(model)[lit], False)
    seen = np.where(truth.any(axis=2), board.palette[truth.argmax(axis=2)], FRAME)
    s = np.arange(4)
    placed = np.maximum(piece, 0)
    turned = puzzle.pieces[placed[:, None, None], (s[None, None, :] - s[None, :, None]) % 4]
    fits = (turned == seen[:, None, :]).all(axis=2)  # (sq, rotation)
    return Solution(piece, np.where(fits.any(axis=1), fits.argmax(axis=1), 0))


def check(puzzle: Puzzle, solution: Solution) -> list[str]:
    """The puzzle's own rules, no encoding involved: each piece once, rotations 0..3, touching
    sides match (equal, or complementary if signed), frame colour exactly on the boundary of a
    bounded board."""
    n, rows, cols = len(puzzle.pieces), puzzle.rows, puzzle.cols
    piece, rot = np.asarray(solution.piece), np.asarray(solution.rotation)
    if piece.shape != (n,) or rot.shape != (n,):
        return [f"a solution places {n} pieces, got {piece.shape} pieces and {rot.shape} rotations"]
    problems = []
    if sorted(piece.tolist()) != list(range(n)):
        problems.append("pieces are not each used exactly once")
        return problems
    if ((rot < 0) | (rot > 3)).any():
        return problems + ["rotation outside 0..3"]
    shown = shown_sides(puzzle.pieces, solution).reshape(rows, cols, 4)
    pairs = (("E", shown[:, :-1, E], shown[:, 1:, W]), ("S", shown[:-1, :, S], shown[1:, :, N]))
    for name, a, b in pairs:
        bad = (a != -b) if puzzle.signed else (a != b)
        if puzzle.bounded:
            bad |= (a == FRAME)
        for r, c in np.argwhere(bad).tolist():
            problems.append(f"square ({r},{c}) side {name}: {a[r, c]} does not match {b[r, c]}")
    if puzzle.bounded:
        outer = np.zeros((rows, cols, 4), dtype=bool)
        outer[0, :, N] = outer[-1, :, S] = outer[:, 0, W] = outer[:, -1, E] = True
        for r, c, s in np.argwhere(outer & (shown != FRAME)).tolist():
            problems.append(f"square ({r},{c}) side {'NESW'[s]}: boundary without frame colour")
    return problems


def witness(puzzle: Puzzle) -> Solution | None:
    """The planted placement, or the file order itself when that is a solved board."""
    if puzzle.planted is not None:
        return puzzle.planted
    n = len(puzzle.pieces)
    in_order = Solution(np.arange(n), np.zeros(n, dtype=np.int64))
    return in_order if not check(puzzle, in_order) else None


def assignment(puzzle: Puzzle, encoding: str, solution: Solution) -> np.ndarray:
    """The model of ``solution``: its x variables and the colour of every diamond."""
    board = puzzle.board
    model = np.zeros(board.num_vars + 1, dtype=bool)
    square_of = np.empty(len(puzzle.pieces), dtype=np.int64)
    square_of[solution.piece] = np.arange(len(solution.piece))
    for cls in range(3):
        squares = board.squares[cls]
        if squares.size:
            column = np.full(len(puzzle.pieces), -1, dtype=np.int64)
            column[squares] = np.arange(squares.size)  # square -> position in its class
            model[board.x(cls)[np.arange(board.members[cls].size),
                               column[square_of[board.members[cls]]]]] = True
    shown = shown_sides(puzzle.pieces, solution)
    g = np.searchsorted(board.palette, shown)
    lits = board.lit[np.arange(shown.shape[0])[:, None], np.arange(4)[None, :], g]
    model[lits[lits > 0]] = True
    return model

"""Size estimate of an edge-matching instance from its params alone (nothing generated or
allocated): the family's ``estimate`` (see :class:`puzzlesat.generator.families.params.Estimate`).

Upper bounds, by clause group of :func:`.encode.encode`, for an R×C board of n = RC pieces in
classes of sizes m (4 corners, 2R+2C−8 borders, (R−2)(C−2) centers; one class of n when
unbounded), D diamonds of at most k colours each:

* x: Σ m² (exact), y: ≤ D·k
* square and piece at-least-one: 2n; explicit: Σ m·m(m−1)/2 piece at-most-one
* diamond exactly-one: D·(1 + k(k−1)/2)
* piece clauses: per (piece, square) pair ≤ 4 + 16 type clauses, plus 4k forbidden colours
  (fbcolors)
* duplicate pieces: ≤ Σ m·m(m−1)/2 (every pair of a class identical: sound, but loose
  enough to put boards of about 42×42 and more past the DIMACS limits, so the estimate is
  marked ``loose``); exact when the puzzle is known (a piece file, or the generated puzzle)
"""

from __future__ import annotations

from puzzlesat.generator.families.edgematch.encode import Board, duplicate_pairs
from puzzlesat.generator.families.edgematch.geometry import FRAME
from puzzlesat.generator.families.params import MAX_CLAUSES, Estimate


def bounded_board(params: dict, puzzle=None) -> tuple[int, int, int]:
    """(rows, cols, non-frame colours) of a bounded board from its puzzle, its piece file, or
    its params: what the MaxSAT and PB estimates are counted from."""
    if puzzle is None and "pieces" in params:
        from puzzlesat.generator.families.edgematch.puzzle import load_pieces

        puzzle = load_pieces(params["pieces"])  # a piece file is small next to its formula
    if puzzle is not None:
        rows, cols = puzzle.rows, puzzle.cols
        colours = len({int(v) for v in puzzle.pieces.reshape(-1).tolist()} - {FRAME})
    else:
        rows = int(params.get("rows", 0) or 0)
        cols = int(params.get("cols", rows) or rows)
        colours = (int(params.get("border_colors", 1) or 1)
                   + int(params.get("center_colors", 1) or 1))
    return max(rows, 0), max(cols, 0), colours


def estimate(params: dict, encoding: str, puzzle=None) -> Estimate:
    """Upper bounds on the CNF's size, from the params or the puzzle read back from a header."""
    if puzzle is None and "pieces" in params:
        from puzzlesat.generator.families.edgematch.puzzle import load_pieces

        puzzle = load_pieces(params["pieces"])  # a piece file is small next to its CNF
    if puzzle is not None:
        rows, cols, bounded, signed = puzzle.rows, puzzle.cols, puzzle.bounded, puzzle.signed
        colours = len({int(v) for v in puzzle.pieces.reshape(-1).tolist()})
        colours *= 2 if signed else 1
    else:
        rows = int(params.get("rows", 0) or 0)
        cols = int(params.get("cols", rows) or rows)
        bounded, signed = not params.get("unbounded"), bool(params.get("signed"))
        colours = max(int(params.get("border_colors", 1) or 1),
                      int(params.get("center_colors", 1) or 1)) * (2 if signed else 1)
    rows, cols = max(rows, 0), max(cols, 0)
    n = rows * cols
    classes = ([4, max(2 * rows + 2 * cols - 8, 0), max(rows - 2, 0) * max(cols - 2, 0)]
               if bounded else [n])
    diamonds = rows * max(cols - 1, 0) + max(rows - 1, 0) * cols
    if not bounded:
        diamonds += 2 * rows + 2 * cols
    k = colours
    x = sum(m * m for m in classes)
    variables = x + diamonds * k
    pairs = sum(m * m * (m - 1) // 2 for m in classes)  # (piece pair, square) per class
    explicit = encoding in ("explicit", "all")
    fbcolors = encoding in ("fbcolors", "all")
    groups = [  # (clauses, widest clause)
        (n, max(classes, default=0)),  # square at least one
        (n, max(classes, default=0)),  # piece at least one
        (pairs if explicit else 0, 2),
        (diamonds, k), (diamonds * (k * (k - 1) // 2), 2),
        (x * 20, 5), (x * 4 * k if fbcolors else 0, 2),
        (pairs if puzzle is None else duplicate_pairs(Board(puzzle)), 2),  # duplicate pieces
    ]
    clauses = sum(c for c, _ in groups)
    digits = len(str(max(variables, 1))) + 2  # "-123 " per literal
    size = sum(c * (w * digits + 2) for c, w in groups)
    # the puzzle can only lower the duplicate-pieces bound: worth generating when the rest
    # is within the DIMACS limits (so the board is small enough to generate at once)
    rest = clauses - groups[-1][0]
    loose = puzzle is None and max(variables, rest) <= MAX_CLAUSES
    return Estimate(variables, clauses, size, loose)

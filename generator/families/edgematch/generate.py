"""Drawing an edge-matching puzzle: a piece file, or a planted em-a-b-c by the original method
(random edge colours, pieces read off the solved board), and the instance's canonical name."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.families.edgematch.certificate import recolour_side
from puzzlesat.generator.families.edgematch.geometry import FRAME, Grid
from puzzlesat.generator.families.edgematch.puzzle import (
    BUILTINS,
    Puzzle,
    Solution,
    load_pieces,
)


def generate(params: dict, rng, solving: Solving | None = None) -> Puzzle:
    """The puzzle of ``params``: a piece file, or a planted em-a-b-c by the original method
    (``solving`` is not used: no edge-matching instance needs a solver to be made)."""
    if "pieces" in params:
        clash = [k for k in params if k not in ("pieces", "turn_seed")]
        if clash:
            raise UserError(f"--{clash[0].replace('_', '-')} cannot be combined with --pieces "
                            "(the piece file fixes the puzzle)")
        puzzle = load_pieces(params["pieces"])
    else:
        puzzle = planted(params, rng)
        if params.get("unsat") == "parity":
            puzzle = recolour_side(puzzle, params["center_colors"], rng)
    puzzle.turn_seed = params.get("turn_seed")
    return puzzle


def uses_seed(params: dict) -> bool:
    """Whether the pieces are drawn (a piece file leaves nothing to the seed)."""
    return "pieces" not in params


def instance_name(params: dict, draw: str | None, encoding: str) -> str:
    """``em-7-3-6-s1-all``, ``em-6x12-4-4-scrambled-s1-compact``,
    ``em-5-2-3-scrambled-parity-s1-all``, ``clue1-compact``."""
    if "pieces" in params:
        spec = params["pieces"]
        stem = spec if spec in BUILTINS else Path(spec).name.split(".")[0]
        turn = [f"t{params['turn_seed']}"] if "turn_seed" in params else []
        return "-".join([re.sub(r'[^A-Za-z0-9_-]+', '-', stem)] + turn + [encoding])
    rows = params.get("rows", 0)
    cols = params.get("cols", rows)
    words = ["em", str(rows) if rows == cols else f"{rows}x{cols}"]
    if not params.get("unbounded"):
        words.append(str(params.get("border_colors", 0)))
    words.append(str(params.get("center_colors", 0)))
    words += [word for key, word in (("unbounded", "unbounded"), ("signed", "signed"),
                                      ("scramble", "scrambled")) if params.get(key)]
    words += [params["unsat"]] if "unsat" in params else []
    words += [f"t{params['turn_seed']}"] if "turn_seed" in params else []
    words += [draw] if draw is not None else []
    return "-".join(words + [encoding])


def planted(params: dict, rng) -> Puzzle:
    """Random edge colours, pieces read off the solved board row-major (Heule's em-a-b-c).

    Outer-ring internal edges draw from the border colours c+1..c+b, all other internal edges
    from the center colours 1..c (one ``integers`` call each, diamond order); unbounded puzzles
    also colour the outer sides, signed puzzles give each edge a random sign.

    >>> from puzzlesat.generator.core.seeds import Rng
    >>> from puzzlesat.generator.families.edgematch.render import render
    >>> p = planted({"rows": 3, "border_colors": 2, "center_colors": 2}, Rng(1))
    >>> print(render(p, p.planted))
    +-----+-----+-----+
    |  .  |  .  |  .  |
    |.   4|4   3|3   .|
    |  4  |  1  |  3  |
    +-----+-----+-----+
    |  4  |  1  |  3  |
    |.   1|1   2|2   .|
    |  4  |  1  |  3  |
    +-----+-----+-----+
    |  4  |  1  |  3  |
    |.   3|3   3|3   .|
    |  .  |  .  |  .  |
    +-----+-----+-----+
    """
    if "rows" not in params:
        raise UserError("give --rows (and colours) for a planted puzzle, or --pieces")
    rows, cols = params["rows"], params.get("cols", params["rows"])
    bounded, signed = not params.get("unbounded", False), bool(params.get("signed", False))
    if rows > cols:
        raise UserError(f"edge-matching: rows ({rows}) must not exceed cols ({cols}); turn the board")
    if bounded and rows < 3:
        raise UserError(f"edge-matching: a bounded board needs at least 3 rows, got {rows}")
    geometry = Grid(rows, cols, bounded)
    with prefixed("edge-matching: "):
        nc = _colour_count(params, "center_colors", int((~geometry.diamond_is_border).sum()))
        if bounded:
            nb = _colour_count(params, "border_colors", int(geometry.diamond_is_border.sum()))
    if not bounded and "border_colors" in params:
        raise UserError("edge-matching: --border-colors: an unbounded puzzle has no border colours")
    colour = np.zeros(geometry.num_diamonds, dtype=np.int64)
    border = geometry.diamond_is_border
    if bounded:
        colour[border] = nc + 1 + rng.integers(nb, int(border.sum()))
    colour[~border] = 1 + rng.integers(nc, int((~border).sum()))
    if signed:
        colour *= 1 - 2 * rng.integers(2, colour.size)
    # read the pieces off the solved board; the bottom/right square sees the complement
    side = geometry.diamond_of
    seen = np.where(side >= 0, colour[np.maximum(side, 0)], FRAME)
    if signed:
        seen = np.where(geometry.second_of_diamond, -seen, seen)
    n = rows * cols
    solution = Solution(np.arange(n), np.zeros(n, dtype=np.int64))
    pieces = seen
    if params.get("scramble"):
        order, turn = rng.permutation(n), rng.integers(4, n)
        # stored piece i is solved piece order[i] turned back by turn[i]
        pieces = seen[order[:, None], (np.arange(4)[None, :] + turn[:, None]) % 4]
        solution = Solution(np.empty(n, np.int64), np.empty(n, np.int64))
        solution.piece[order], solution.rotation[order] = np.arange(n), turn
    puzzle = Puzzle(rows, cols, pieces, bounded, signed, "planted")
    puzzle.planted = solution
    return puzzle


def _colour_count(params, key, edges) -> int:
    option = "--" + key.replace("_", "-")
    if key not in params:
        raise UserError(f"{option} is required for a planted puzzle")
    value = params[key]
    if not 1 <= value <= max(1, edges):
        raise UserError(f"{option} must be between 1 and {max(1, edges)} (the number "
                        f"of such edges on this board), got {value}")
    return value

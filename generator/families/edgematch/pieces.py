"""Pieces and puzzles: piece files (Heule, META 2010, JSON), the built-ins, shape checks and
the planted em-a-b-c generator."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from puzzlesat.generator.core.errors import UserError, prefixed, shown
from puzzlesat.generator.core.inputs import SMALL_INPUT, read_input
from puzzlesat.generator.core.structured import load_json, utf8_text
from puzzlesat.generator.families.edgematch.encode import Board
from puzzlesat.generator.families.edgematch.geometry import FRAME, Grid

BUILTINS = {
    "clue1": "clue1.txt", "clue2": "clue2.txt", "clue3": "clue3.txt", "clue4": "clue4.txt",
    "eternity2": "e2pieces.txt", "four-squares": "four-squares.json",
    "em_7_3_6": "em_7_3_6.txt", "em_7_4_8": "em_7_4_8.txt", "em_7_4_9": "em_7_4_9.txt",
    "em_8_4_5": "em_8_4_5.txt", "em_9_3_5": "em_9_3_5.txt", "em_11_3_4": "em_11_3_4.txt",
    "em_12_2_4": "em_12_2_4.txt", "em_14_7_3": "em_14_7_3.txt",
}


# -- puzzle and solution ------------------------------------------------------------------------
@dataclass
class Solution:
    """``piece[q]`` lies on square q (row-major) turned ``rotation[q]`` quarter turns clockwise:
    its side i shows on the square's side (i + rotation) mod 4."""

    piece: np.ndarray
    rotation: np.ndarray


@dataclass
class Puzzle:
    rows: int
    cols: int
    pieces: np.ndarray  # (n, 4) int64, sides N E S W
    bounded: bool = True
    signed: bool = False
    source: str = ""
    turn_seed: int | None = None  # Heule's em-encode shuffle, see :func:`heule_turned`
    planted: Solution | None = field(default=None, compare=False)

    @cached_property
    def board(self) -> Board:
        """The board's squares, classes and palette for encoding this puzzle."""
        return Board(self)


def shown_sides(pieces: np.ndarray, solution: Solution) -> np.ndarray:
    """``(R*C, 4)``: the colour each square shows on its sides N E S W."""
    s = np.arange(4)
    rot = np.asarray(solution.rotation, dtype=np.int64)
    return pieces[np.asarray(solution.piece)[:, None], (s[None, :] - rot[:, None]) % 4]


# -- reading pieces -----------------------------------------------------------------------------
def parse_pieces(text: str) -> tuple[np.ndarray, dict]:
    """Pieces (n, 4) N E S W from a Heule piece file, a META 2010 file or JSON, and the
    JSON's extra keys (rows, cols, bounded, signed). Heule: line 1 = hint count (must be 0),
    then ``N E S W`` per line; META 2010: ``top right bottom left`` per line."""
    if text.lstrip().startswith("{"):
        data = load_json(text, "piece file")
        try:
            pieces = np.array(data["pieces"], dtype=np.int64)
        except OverflowError:
            raise UserError("a colour does not fit in 32 bits") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise UserError(f"not a JSON piece file ({exc})") from None
        if pieces.ndim != 2 or pieces.shape[1] != 4:
            raise UserError("'pieces' must be a list of [N, E, S, W] lists")
        _check_colour_range(pieces.reshape(-1).tolist())
        extra = {k: data[k] for k in ("rows", "cols", "bounded", "signed") if k in data}
        return pieces, extra
    lines = [(i + 1, line.split()) for i, line in enumerate(text.splitlines()) if line.strip()]
    if not lines:
        raise UserError("empty piece file")
    rows = []
    for number, words in lines:
        try:
            rows.append((number, [int(w) for w in words]))
        except ValueError:
            raise UserError(f"line {number}: expected integers, got "
                            f"{shown(' '.join(words))}") from None
    if len(rows[0][1]) == 1:  # Heule format: hint count first
        hints = rows[0][1][0]
        if hints != 0:
            raise UserError(f"line 1: hints are not supported (found {hints})")
        rows = rows[1:]
    for number, values in rows:
        if len(values) != 4:
            raise UserError(f"line {number}: a piece needs 4 sides, got {len(values)}")
    if not rows:
        raise UserError("no pieces")
    for number, values in rows:
        with prefixed(f"line {number}: "):
            _check_colour_range(values)
    return np.array([v for _, v in rows], dtype=np.int64), {}


#: colours are 32-bit (a signed puzzle negates them; numpy would overflow past int64)
MAX_COLOUR = 2**31 - 1


def _check_colour_range(values) -> None:
    bad = [v for v in values if not -MAX_COLOUR <= v <= MAX_COLOUR]
    if bad:
        raise UserError(f"colour {bad[0]} does not fit in 32 bits (|colour| <= "
                        f"{MAX_COLOUR})")


def infer_shape(pieces: np.ndarray) -> tuple[int, int]:
    """Rows and columns of a bounded puzzle from its piece counts: the smallest R >= 3 with
    C = #border/2 - R + 4 and R*C = #pieces (so rows <= cols)."""
    n = len(pieces)
    border = int(((pieces == FRAME).sum(axis=1) == 1).sum())
    for r in range(3, n + 1):
        c = border // 2 - r + 4
        if c < r:
            break
        if r * c == n and border % 2 == 0:
            return r, c
    raise UserError(f"{n} pieces with {border} border pieces fit no rectangular board")


def load_pieces(spec: str) -> Puzzle:
    """A puzzle from a built-in name or a piece file path."""
    if spec in BUILTINS:
        import importlib.resources  # here: a few ms of every command's start otherwise

        resource = importlib.resources.files("puzzlesat.generator") / "data" / "edgematch" / BUILTINS[spec]
        text, where, source = resource.read_text(), spec, spec
    else:
        path = Path(spec)
        if not path.exists():
            raise UserError(f"--pieces {spec!r}: no such file or built-in (built-ins: "
                            f"{', '.join(BUILTINS)})")
        data = read_input(path, SMALL_INPUT, "piece file")
        text = utf8_text(data, f"--pieces {spec!r}")
        where, source = spec, re.sub(r"[^A-Za-z0-9_.-]+", "-", path.name.split(".")[0])
    with prefixed(f"{where}: "):
        pieces, extra = parse_pieces(text)
        bounded = bool(extra.get("bounded", True))
        signed = bool(extra.get("signed", False))
        if "rows" in extra or "cols" in extra:
            rows, cols = int(extra.get("rows", 0)), int(extra.get("cols", 0))
        elif bounded:
            rows, cols = infer_shape(pieces)
        else:
            raise UserError("an unbounded JSON puzzle must give rows and cols")
        return make_puzzle(rows, cols, pieces, bounded, signed, source)


def make_puzzle(rows, cols, pieces, bounded, signed, source) -> Puzzle:
    """A checked Puzzle: shape, piece counts per class, frame colour and signs."""
    pieces = np.asarray(pieces, dtype=np.int64)
    if rows > cols:
        raise UserError(f"rows ({rows}) must not exceed cols ({cols})")
    if rows < (3 if bounded else 2):
        raise UserError(f"a {'bounded' if bounded else 'unbounded'} board needs at "
                        f"least {3 if bounded else 2} rows, got {rows}")
    if pieces.shape != (rows * cols, 4):
        raise UserError(f"a {rows}x{cols} board needs {rows * cols} pieces, "
                        f"got {len(pieces)}")
    if not signed and (pieces < 0).any():
        raise UserError("negative colour in an unsigned puzzle")
    zeros = (pieces == FRAME).sum(axis=1)
    if bounded:
        want = {2: 4, 1: 2 * rows + 2 * cols - 8, 0: (rows - 2) * (cols - 2)}
        got = {k: int((zeros == k).sum()) for k in want}
        if got != want or (zeros > 2).any():
            raise UserError(f"a {rows}x{cols} board needs 4 corner, {want[1]} border "
                            f"and {want[0]} center pieces, got {got[2]}, {got[1]}, {got[0]}"
                            + (" and pieces with more than two frame sides" if (zeros > 2).any() else ""))
        corners = pieces[zeros == 2]
        adjacent = (corners == FRAME) & (np.roll(corners, -1, axis=1) == FRAME)
        if not adjacent.any(axis=1).all():
            raise UserError("a corner piece has its frame sides opposite each other")
    elif signed and (pieces == 0).any():
        raise UserError("colour 0 cannot be signed")
    return Puzzle(rows, cols, pieces, bounded, signed, source)



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

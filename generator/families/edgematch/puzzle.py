"""Pieces and puzzles: piece files (Heule, META 2010, JSON), the built-ins, shape checks, the
JSON of puzzles and solutions, the puzzle's own referee and the known witness."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from puzzlesat.generator.core.errors import UserError, prefixed, shown
from puzzlesat.generator.core.inputs import SMALL_INPUT, read_input
from puzzlesat.generator.core.structured import (
    get_bool,
    get_int,
    get_int_list,
    get_int_rows,
    get_str,
    json_object,
    load_json,
    utf8_text,
)
from puzzlesat.generator.families.edgematch.geometry import FRAME, E, N, S, W

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
        data = json_object(load_json(text, "piece file"), "piece file")
        pieces = _pieces_array(get_int_rows(data, "pieces", "piece file", width=4))
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


def _pieces_array(rows: list[list[int]]) -> np.ndarray:
    """``(n, 4)`` pieces from checked rows of integers, each colour within 32 bits."""
    _check_colour_range([colour for row in rows for colour in row])
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


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
        bounded = get_bool(extra, "bounded", "piece file", default=True)
        signed = get_bool(extra, "signed", "piece file", default=False)
        if "rows" in extra or "cols" in extra:
            rows = get_int(extra, "rows", "piece file", default=0)
            cols = get_int(extra, "cols", "piece file", default=0)
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


# -- JSON ----------------------------------------------------------------------------------------
def puzzle_to_json(puzzle: Puzzle) -> dict:
    """The puzzle as JSON: shape, frame and signs, source, pieces (and the turn seed)."""
    data = {"rows": puzzle.rows, "cols": puzzle.cols, "bounded": puzzle.bounded,
            "signed": puzzle.signed, "source": puzzle.source, "pieces": puzzle.pieces.tolist()}
    if puzzle.turn_seed is not None:
        data["turn_seed"] = puzzle.turn_seed
    return data


def puzzle_from_json(data: dict) -> Puzzle:
    """The puzzle from its JSON, checked as a piece file is (each field of its JSON type)."""
    puzzle = make_puzzle(get_int(data, "rows", "puzzle"), get_int(data, "cols", "puzzle"),
                         _pieces_array(get_int_rows(data, "pieces", "puzzle", width=4)),
                         get_bool(data, "bounded", "puzzle"), get_bool(data, "signed", "puzzle"),
                         get_str(data, "source", "puzzle", default=""))
    puzzle.turn_seed = get_int(data, "turn_seed", "puzzle", default=None)
    return puzzle


def solution_to_json(solution: Solution) -> dict:
    """The solution as JSON: the piece and the rotation on each square."""
    return {"piece": np.asarray(solution.piece).tolist(),
            "rotation": np.asarray(solution.rotation).tolist()}


def solution_from_json(data: dict) -> Solution:
    """The solution from its JSON (piece numbers and quarter turns, JSON integers)."""
    return Solution(np.array(get_int_list(data, "piece", "solution", 0, MAX_COLOUR), np.int64),
                    np.array(get_int_list(data, "rotation", "solution", 0, 3), np.int64))


# -- the referee and the witness ---------------------------------------------------------------
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

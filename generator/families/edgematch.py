"""Edge matching: square pieces with coloured sides, placed on an R×C grid so touching sides match.

Puzzle. Each piece has four sides N E S W (clockwise) carrying colours; colour 0 is the frame
(grey). A *bounded* puzzle puts frame colour exactly on the outer boundary: a piece with two
zeros is a corner, one zero a border piece, none a center piece. Pieces may be rotated. An
*unbounded* puzzle has no frame (every piece is a center piece, outer sides are free); a
*signed* puzzle carries half-images, and touching sides must be complementary (``v`` meets
``-v``).

Encoding (Heule 2009, the SAT Competition 2009 family ``edgematching``; recovered rule by rule
from the published files, see ``shared/specs/edge-matching.md``). No auxiliary variables:

* ``x(p, j)`` piece p on square j, piece-major in file order, one variable per square of the
  piece's class (4 corners; 2R+2C−8 border squares; (R−2)(C−2) center squares);
* ``y(d, k)`` internal edge ("diamond") d has colour k: border diamonds (between two non-center
  squares) range over the Cb border colours, the others over the Cc center colours.
  Variables = 16 + |Pborder|² + |Pcenter|² + Cb·Dborder + Cc·Dcenter.

Clause groups of ``compact``, in file order:

1. ``square_at_least_one``   one clause per square (corner, border, center class order);
2. ``piece_at_least_one``    one clause per piece;
3. ``diamond_exactly_one``   per diamond: at least one colour, then pairwise at most one;
4. ``piece_clauses``         per piece, per square: ¬x ∨ (colour of each non-frame side) for
   corners (2) and border pieces (3); center pieces by type (:data:`TYPE_PATTERNS`,
   4–20 clauses per variable);
5. ``duplicate_pieces``      for identical pieces p < q (equal up to rotation), ¬x(p,j) ∨ ¬x(q,j).

Which colour plays which role (a, b, c, d of :data:`TYPE_PATTERNS`) is read clockwise from the
first side, clockwise from N, at which the piece reads as its pattern. That is not a canonical
choice in Heule's tool: its ``shuffle(seed)`` turns a piece 180° when the piece's glibc
``rand() % 4 == 2`` (one call per piece in file order after ``srand(seed)``; its 90° branches
undo themselves), after the colours are renumbered, and it then reads roles from N. A turn
swaps the roles of type 4 (a↔b), 6 (b↔c) and 7 (a,b,c,d → c,d,a,b) pieces and nothing else.
``turn_seed`` replays this (:func:`heule_turned`); :data:`SAT09_TURN_SEED` reproduces the
published em_7_3_6 (all four encodings) and em_9_3_5 files clause for clause.

``fbcolors`` adds ¬x ∨ ¬[s=k] for every colour k absent from a center piece (type ≠ 1), in
front of that piece's type clauses; ``explicit`` adds pairwise at-most-one over each piece's
squares after its at-least-one clause; ``all`` = both. Worked count for em-7-3-6: 1473
variables, 11563 / 19063 / 22887 / 30387 clauses.

Beyond the paper: an unbounded puzzle has one free "open" diamond per outer side (center
colours, numbered after the internal diamonds, row-major squares, sides N E S W), so every
square is a center square with four diamonds and the type clauses apply unchanged. In a
signed puzzle a diamond holds the colour seen from its top/left square; the bottom/right
square sees the complement, so colour domains are closed under negation.

Reference: Marijn J. H. Heule, "Solving edge-matching problems with satisfiability solvers",
SAT 2009 competitive events booklet / SAT 2009 workshop (Proc. SAT'09, 2009).
"""

from __future__ import annotations

import importlib.resources
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from puzzlesat.generator.core.cnf import Formula, pairwise_at_most_one
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.families import Param

NAME = "edge-matching"
SUMMARY = "edge-matching puzzles (Heule 2009): planted em-a-b-c, clue puzzles, Eternity II"
STORY = (
    "Edge-matching puzzles: square pieces with coloured sides are placed and rotated on a grid "
    "so that touching sides have the same colour and the grey frame colour lies exactly on the "
    "outer boundary (Eternity II is the famous 16x16 instance). The CNF is Heule's (SAT 2009): "
    "piece-to-square variables and edge-colour variables, no auxiliaries; `compact` is the "
    "smallest encoding, `fbcolors` adds forbidden-colour clauses, `explicit` adds explicit "
    "one-on-one clauses, `all` adds both. Random em-a-b-c instances are planted by the original "
    "method (random edge colours, pieces read off the solved board), so they are satisfiable "
    "with a known witness; Eternity II has no known solution."
)
REFERENCES = (
    {
        "type": "conference-paper",
        "title": "Solving edge-matching problems with satisfiability solvers",
        "authors": [{"family-names": "Heule", "given-names": "Marijn J. H."}],
        "year": 2009,
        "collection-title": "SAT 2009 competitive events booklet (SAT Competition 2009)",
    },
    {
        "type": "conference-paper",
        "title": "Edge matching puzzles as hard SAT/CSP benchmarks",
        "authors": [{"family-names": "Ansótegui", "given-names": "Carlos"},
                    {"family-names": "Béjar", "given-names": "Ramón"},
                    {"family-names": "Fernández", "given-names": "César"},
                    {"family-names": "Gomes", "given-names": "Carla"},
                    {"family-names": "Mateu", "given-names": "Carles"}],
        "year": 2008,
        "collection-title": "Principles and Practice of Constraint Programming (CP 2008)",
    },
)
HARDNESS_PARAM = "center_colors"

BUILTINS = {
    "clue1": "clue1.txt", "clue2": "clue2.txt", "clue3": "clue3.txt", "clue4": "clue4.txt",
    "eternity2": "e2pieces.txt", "four-squares": "four-squares.json",
    "em_7_3_6": "em_7_3_6.txt", "em_7_4_8": "em_7_4_8.txt", "em_7_4_9": "em_7_4_9.txt",
    "em_8_4_5": "em_8_4_5.txt", "em_9_3_5": "em_9_3_5.txt", "em_11_3_4": "em_11_3_4.txt",
    "em_12_2_4": "em_12_2_4.txt", "em_14_7_3": "em_14_7_3.txt",
}

#: a glibc seed whose em-encode shuffle reproduces the published SAT'09 em_7_3_6 (all four
#: encodings) and em_9_3_5 files byte for byte in clause order (found by exhaustive search
#: over all 2^32 seeds; the seed Heule used is not published, and 22 others also fit both)
SAT09_TURN_SEED = 114118598

PARAMS = (
    Param("rows", int, None, "Grid rows (planted puzzles; rows <= cols).", minimum=2),
    Param("cols", int, None, "Grid columns [default: rows].", minimum=2),
    Param("border_colors", int, None, "Colours of the edges along the frame (planted, bounded)."),
    Param("center_colors", int, None, "Colours of the other edges (planted)."),
    Param("pieces", str, None, "Piece file (Heule, META 2010 or JSON) or a built-in: "
          + ", ".join(BUILTINS) + "."),
    Param("scramble", bool, None, "Shuffle the planted pieces and rotate them at random."),
    Param("unbounded", bool, None, "Planted puzzle without frame (outer sides are free)."),
    Param("signed", bool, None, "Planted puzzle with signed edges (v must meet -v)."),
    Param("turn_seed", int, None, "Read center pieces as Heule's em-encode does after "
          "srand(seed): piece i turned 180 degrees iff the i-th glibc rand() % 4 == 2 "
          f"({SAT09_TURN_SEED} reproduces the SAT'09 files em_7_3_6 and em_9_3_5).", minimum=0),
)

ENCODINGS = {
    "compact": "Heule's smallest encoding: mapping, diamond and per-type rotation clauses",
    "fbcolors": "compact + forbidden-colour clauses for center pieces",
    "explicit": "compact + explicit at-most-one square per piece",
    "all": "compact + fbcolors + explicit",
}

N, E, S, W = range(4)
FRAME = 0


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
        return Board(self)


def shown_sides(pieces: np.ndarray, solution: Solution) -> np.ndarray:
    """``(R*C, 4)``: the colour each square shows on its sides N E S W."""
    s = np.arange(4)
    rot = np.asarray(solution.rotation, dtype=np.int64)
    return pieces[np.asarray(solution.piece)[:, None], (s[None, :] - rot[:, None]) % 4]


# -- reading pieces -----------------------------------------------------------------------------
def parse_pieces(text: str, where: str) -> tuple[np.ndarray, dict]:
    """Pieces (n, 4) N E S W from a Heule piece file, a META 2010 file or JSON, and the
    JSON's extra keys (rows, cols, bounded, signed). Heule: line 1 = hint count (must be 0),
    then ``N E S W`` per line; META 2010: ``top right bottom left`` per line."""
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
            pieces = np.array(data["pieces"], dtype=np.int64)
        except (ValueError, KeyError, TypeError) as exc:
            raise UserError(f"{where}: not a JSON piece file ({exc})") from None
        if pieces.ndim != 2 or pieces.shape[1] != 4:
            raise UserError(f"{where}: 'pieces' must be a list of [N, E, S, W] lists")
        extra = {k: data[k] for k in ("rows", "cols", "bounded", "signed") if k in data}
        return pieces, extra
    lines = [(i + 1, line.split()) for i, line in enumerate(text.splitlines()) if line.strip()]
    if not lines:
        raise UserError(f"{where}: empty piece file")
    rows = []
    for number, words in lines:
        try:
            rows.append((number, [int(w) for w in words]))
        except ValueError:
            raise UserError(f"{where}:{number}: expected integers, got {' '.join(words)!r}") from None
    if len(rows[0][1]) == 1:  # Heule format: hint count first
        hints = rows[0][1][0]
        if hints != 0:
            raise UserError(f"{where}:1: hints are not supported (found {hints})")
        rows = rows[1:]
    for number, values in rows:
        if len(values) != 4:
            raise UserError(f"{where}:{number}: a piece needs 4 sides, got {len(values)}")
    if not rows:
        raise UserError(f"{where}: no pieces")
    return np.array([v for _, v in rows], dtype=np.int64), {}


def infer_shape(pieces: np.ndarray, where: str) -> tuple[int, int]:
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
    raise UserError(f"{where}: {n} pieces with {border} border pieces fit no rectangular board")


def load_pieces(spec: str) -> Puzzle:
    """A puzzle from a built-in name or a piece file path."""
    if spec in BUILTINS:
        resource = importlib.resources.files("puzzlesat.generator") / "data" / "edgematch" / BUILTINS[spec]
        text, where, source = resource.read_text(), spec, spec
    else:
        path = Path(spec)
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            why = "no such file or built-in" if isinstance(exc, FileNotFoundError) else str(exc)
            raise UserError(f"--pieces {spec!r}: {why} (built-ins: {', '.join(BUILTINS)})") from None
        where, source = spec, re.sub(r"[^A-Za-z0-9_.-]+", "-", path.name.split(".")[0])
    pieces, extra = parse_pieces(text, where)
    bounded = bool(extra.get("bounded", True))
    signed = bool(extra.get("signed", False))
    if "rows" in extra or "cols" in extra:
        rows, cols = int(extra.get("rows", 0)), int(extra.get("cols", 0))
    elif bounded:
        rows, cols = infer_shape(pieces, where)
    else:
        raise UserError(f"{where}: an unbounded JSON puzzle must give rows and cols")
    return make_puzzle(rows, cols, pieces, bounded, signed, source, where)


def make_puzzle(rows, cols, pieces, bounded, signed, source, where) -> Puzzle:
    """A checked Puzzle: shape, piece counts per class, frame colour and signs."""
    pieces = np.asarray(pieces, dtype=np.int64)
    if rows > cols:
        raise UserError(f"{where}: rows ({rows}) must not exceed cols ({cols})")
    if rows < (3 if bounded else 2):
        raise UserError(f"{where}: a {'bounded' if bounded else 'unbounded'} board needs at "
                        f"least {3 if bounded else 2} rows, got {rows}")
    if pieces.shape != (rows * cols, 4):
        raise UserError(f"{where}: a {rows}x{cols} board needs {rows * cols} pieces, "
                        f"got {len(pieces)}")
    if not signed and (pieces < 0).any():
        raise UserError(f"{where}: negative colour in an unsigned puzzle")
    zeros = (pieces == FRAME).sum(axis=1)
    if bounded:
        want = {2: 4, 1: 2 * rows + 2 * cols - 8, 0: (rows - 2) * (cols - 2)}
        got = {k: int((zeros == k).sum()) for k in want}
        if got != want or (zeros > 2).any():
            raise UserError(f"{where}: a {rows}x{cols} board needs 4 corner, {want[1]} border "
                            f"and {want[0]} center pieces, got {got[2]}, {got[1]}, {got[0]}"
                            + (" and pieces with more than two frame sides" if (zeros > 2).any() else ""))
        corners = pieces[zeros == 2]
        adjacent = (corners == FRAME) & (np.roll(corners, -1, axis=1) == FRAME)
        if not adjacent.any(axis=1).all():
            raise UserError(f"{where}: a corner piece has its frame sides opposite each other")
    elif signed and (pieces == 0).any():
        raise UserError(f"{where}: colour 0 cannot be signed")
    return Puzzle(rows, cols, pieces, bounded, signed, source)


# -- the planted generator ------------------------------------------------------------------------
def generate(params: dict, rng) -> Puzzle:
    """The puzzle of ``params``: a piece file, or a planted em-a-b-c by the original method."""
    if "pieces" in params:
        clash = [k for k in params if k not in ("pieces", "turn_seed")]
        if clash:
            raise UserError(f"--{clash[0].replace('_', '-')} cannot be combined with --pieces "
                            "(the piece file fixes the puzzle)")
        puzzle = load_pieces(params["pieces"])
    else:
        puzzle = planted(params, rng)
    puzzle.turn_seed = params.get("turn_seed")
    return puzzle


def planted(params: dict, rng) -> Puzzle:
    """Random edge colours, pieces read off the solved board row-major (Heule's em-a-b-c).

    Outer-ring internal edges draw from the border colours c+1..c+b, all other internal edges
    from the center colours 1..c (one ``integers`` call each, diamond order); unbounded puzzles
    also colour the outer sides, signed puzzles give each edge a random sign.

    >>> from puzzlesat.generator.core.seeds import Rng
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
    where = "edge-matching"
    if rows > cols:
        raise UserError(f"{where}: rows ({rows}) must not exceed cols ({cols}); turn the board")
    if bounded and rows < 3:
        raise UserError(f"{where}: a bounded board needs at least 3 rows, got {rows}")
    geometry = Grid(rows, cols, bounded)
    nc = _colour_count(params, "center_colors", int((~geometry.diamond_is_border).sum()), where)
    if bounded:
        nb = _colour_count(params, "border_colors", int(geometry.diamond_is_border.sum()), where)
    elif "border_colors" in params:
        raise UserError(f"{where}: --border-colors: an unbounded puzzle has no border colours")
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


def _colour_count(params, key, edges, where) -> int:
    option = "--" + key.replace("_", "-")
    if key not in params:
        raise UserError(f"{where}: {option} is required for a planted puzzle")
    value = params[key]
    if not 1 <= value <= max(1, edges):
        raise UserError(f"{where}: {option} must be between 1 and {max(1, edges)} (the number "
                        f"of such edges on this board), got {value}")
    return value


# -- geometry -----------------------------------------------------------------------------------
class Grid:
    """Squares, diamonds and square classes of an R×C board (no pieces involved).

    Internal diamonds are numbered row by row: the C−1 horizontal ones of a row, then the C
    vertical ones below it (0-based ``H(r,c) = r(2C−1)+c``, ``V(r,c) = r(2C−1)+C−1+c``);
    unbounded boards add one open diamond per outer side after them.
    """

    def __init__(self, rows: int, cols: int, bounded: bool):
        self.rows, self.cols, self.bounded = rows, cols, bounded
        r, c = np.divmod(np.arange(rows * cols), cols)
        span = 2 * cols - 1
        diamond = np.full((rows * cols, 4), -1, dtype=np.int64)
        diamond[:, N] = np.where(r > 0, (r - 1) * span + cols - 1 + c, -1)
        diamond[:, E] = np.where(c < cols - 1, r * span + c, -1)
        diamond[:, S] = np.where(r < rows - 1, r * span + cols - 1 + c, -1)
        diamond[:, W] = np.where(c > 0, r * span + c - 1, -1)
        internal = rows * (cols - 1) + (rows - 1) * cols
        if not bounded:  # open diamonds, row-major squares, sides N E S W
            outside = diamond < 0
            diamond[outside] = internal + np.arange(int(outside.sum()))
        self.diamond_of = diamond
        self.num_diamonds = int(diamond.max()) + 1 if diamond.size else 0
        #: the square is the bottom/right one of its N and W diamonds
        self.second_of_diamond = np.zeros((rows * cols, 4), dtype=bool)
        self.second_of_diamond[:, [N, W]] = diamond[:, [N, W]] < internal
        center = (r > 0) & (r < rows - 1) & (c > 0) & (c < cols - 1)
        # a border diamond lies between two non-center squares
        is_border = np.zeros(self.num_diamonds, dtype=bool)
        if bounded:
            is_border = ~_touches(diamond, center, self.num_diamonds)
        self.diamond_is_border = is_border
        # square classes, each with the rotation a normalised piece needs there
        cell = lambda rr, cc: rr * cols + cc  # noqa: E731
        if bounded:
            inner_c, inner_r = np.arange(1, cols - 1), np.arange(1, rows - 1)
            self.corner = np.array([cell(0, 0), cell(0, cols - 1), cell(rows - 1, 0),
                                    cell(rows - 1, cols - 1)])
            self.corner_turn = np.array([0, 1, 3, 2])
            self.border = np.concatenate([cell(0, inner_c), cell(inner_r, 0),
                                          cell(inner_r, cols - 1), cell(rows - 1, inner_c)])
            self.border_turn = np.repeat([0, 3, 1, 2], [cols - 2, rows - 2, rows - 2, cols - 2])
            self.center = np.flatnonzero(center)
        else:
            self.corner = self.border = np.zeros(0, np.int64)
            self.corner_turn = self.border_turn = np.zeros(0, np.int64)
            self.center = np.arange(rows * cols)


def _touches(diamond: np.ndarray, squares: np.ndarray, count: int) -> np.ndarray:
    """Diamonds on a side of at least one of the selected squares."""
    out = np.zeros(count, dtype=bool)
    d = diamond[squares]
    out[d[d >= 0]] = True
    return out


# -- the encoding's view of a puzzle ----------------------------------------------------------------
#: center piece types: pattern of the sides read clockwise from the pattern's start
TYPE_PATTERNS = ("aaaa", "aaab", "abab", "aabb", "aabc", "abac", "abcd")


def piece_type(sides) -> tuple[int, int]:
    """(type 1..7, start side) of a center piece: the first start side, clockwise from N, at
    which the piece reads as its pattern.

    >>> piece_type([5, 5, 7, 5]), piece_type([1, 2, 3, 4]), piece_type([2, 1, 1, 3])
    ((2, 3), (7, 0), (5, 1))
    """
    sides = list(sides)
    for t, pattern in enumerate(TYPE_PATTERNS, start=1):
        for start in range(4):
            seq = sides[start:] + sides[:start]
            letters: dict = {}
            if all(letters.setdefault(ch, v) == v for ch, v in zip(pattern, seq)) \
                    and len(set(letters.values())) == len(letters):
                return t, start
    raise AssertionError(sides)  # unreachable: every piece has a pattern


def heule_turned(seed: int | None, n: int) -> np.ndarray:
    """Which of n pieces Heule's em-encode turns 180 degrees after ``srand(seed)``: one glibc
    ``rand()`` per piece in file order, turned iff it is 2 mod 4 (its other rotation branches
    undo themselves). glibc's ``rand`` is the additive generator r[i] = r[i-31] + r[i-3]
    (mod 2^32) on 31 words seeded by x -> 16807 x mod (2^31 - 1), output r[i] >> 1 from i = 344.

    >>> heule_turned(1, 8).astype(int).tolist()  # glibc srand(1): 1804289383, 846930886, ...
    [0, 1, 0, 0, 0, 0, 1, 0]
    """
    if seed is None:
        return np.zeros(n, dtype=bool)
    word = seed % 2**32 or 1
    word = word - 2**32 if word >= 2**31 else word  # glibc seeds with an int32
    r = [word]
    for _ in range(30):
        word = 16807 * word % 2147483647
        r.append(word)
    r += r[:3]
    r = [v % 2**32 for v in r]
    for i in range(34, 344 + n):
        r.append((r[i - 31] + r[i - 3]) % 2**32)
    return np.array([(v >> 1) % 4 == 2 for v in r[344:]], dtype=bool)


def _type_template(t: int) -> list[list[tuple[int, int, int]]]:
    """The clauses of a center piece of type ``t`` for one square, each a list of literals
    (sign, square side, role): role i is the i-th letter of the type's pattern (a, b, c, d),
    read clockwise from the pattern's start. The leading ¬x is implied."""
    a, b, c, d = range(4)
    pos = lambda side, role: (1, side % 4, role)  # noqa: E731
    neg = lambda side, role: (-1, side % 4, role)  # noqa: E731
    somewhere = lambda role: [pos(s, role) for s in range(4)]  # noqa: E731
    sides = range(4)
    if t == 1:
        return [[pos(s, a)] for s in sides]
    if t == 2:
        # the six pairs, in the published order: per s in {N, E}: (s,s+1), (s,s+2), (s+2,s+3)
        return [somewhere(b)] + [[pos(s + i, a), pos(s + j, a)]
                                 for s in (N, E) for i, j in ((0, 1), (0, 2), (2, 3))]
    if t == 3:
        return [cl for s in sides for cl in ([pos(s, a), pos(s + 1, a)], [pos(s, b), pos(s + 1, b)])]
    if t == 4:
        return [cl for s in (N, E) for cl in ([pos(s, a), pos(s + 2, a)], [pos(s, b), pos(s + 2, b)])]
    if t == 5:
        return [somewhere(b), somewhere(c)] + [
            cl for s in sides for cl in (
                [pos(s, a), pos(s + 2, a)], [neg(s, c), pos(s - 1, b)], [neg(s, b), pos(s + 1, c)],
                [neg(s, a), neg(s + 1, a), pos(s + 2, b)])]
    if t == 6:
        return [somewhere(b), somewhere(c)] + [
            cl for s in sides for cl in (
                [pos(s, a), pos(s + 1, a)], [neg(s, b), pos(s + 2, c)], [neg(s, c), pos(s + 2, b)])]
    return [somewhere(k) for k in (a, b, c, d)] + [
        [neg(s, k), pos(s + 1, (k + 1) % 4)] for s in sides for k in (a, b, c, d)]


class Board:
    """Everything the encoder and decoder need: square classes, normalised pieces, colour
    domains and the variable numbering (kept in this one place)."""

    def __init__(self, puzzle: Puzzle):
        grid = self.grid = Grid(puzzle.rows, puzzle.cols, puzzle.bounded)
        pieces = puzzle.pieces
        n = len(pieces)
        if puzzle.bounded:
            zeros = (pieces == FRAME).sum(axis=1)
            self.cls = 2 - zeros  # 0 corner, 1 border, 2 center
        else:
            self.cls = np.full(n, 2)
        self.normal_turn = np.array([_normal_turn(p) for p in pieces.tolist()], dtype=np.int64)
        idx = (np.arange(4)[None, :] + self.normal_turn[:, None]) % 4
        self.normal = pieces[np.arange(n)[:, None], idx]  # corners frame N W, borders frame N
        self.squares = (grid.corner, grid.border, grid.center)
        self.turns = (grid.corner_turn, grid.border_turn, None)
        self.members = tuple(np.flatnonzero(self.cls == k) for k in range(3))
        # type and pattern start of every center piece, read as the encoder sees it: turned
        # 180 degrees where Heule's shuffle turned it (only types 4, 6, 7 change their roles)
        turned = heule_turned(puzzle.turn_seed, n)
        read = np.where(turned[:, None], np.roll(self.normal, 2, axis=1), self.normal)
        self.type_start = np.zeros((n, 2), dtype=np.int64)
        for p in self.members[2]:
            t, start = piece_type(read[p])
            self.type_start[p] = t, (start + 2 * turned[p]) % 4

        # colour domains by first appearance (file order, sides N E S W); a side's colour is a
        # center colour when both neighbouring sides are non-frame
        side_is_center = (np.roll(pieces, 1, axis=1) != FRAME) & (np.roll(pieces, -1, axis=1) != FRAME)
        if not puzzle.bounded:
            side_is_center[:] = True
        flat, centerish = pieces.reshape(-1), side_is_center.reshape(-1) & (pieces.reshape(-1) != FRAME)
        borderish = ~side_is_center.reshape(-1) & (flat != FRAME)
        self.domains = (_first_appearance(flat[borderish], puzzle.signed),
                        _first_appearance(flat[centerish], puzzle.signed))
        palette = np.unique(np.concatenate([flat, -flat] if puzzle.signed else [flat]))
        self.palette = palette
        self.gid = np.searchsorted(palette, pieces)  # palette index of every piece side
        index = np.zeros((2, palette.size), dtype=np.int64)  # 1-based domain position
        for k, dom in enumerate(self.domains):
            index[k, np.searchsorted(palette, dom)] = np.arange(1, dom.size + 1)
        negate = np.searchsorted(palette, -palette) if puzzle.signed else np.arange(palette.size)

        # variables: x piece-major in file order, then y diamond-major
        size = np.array([sq.size for sq in self.squares])[self.cls]
        self.x_offset = np.concatenate([[0], np.cumsum(size)[:-1]]) + 1
        self.num_x = int(size.sum())
        dcls = np.where(grid.diamond_is_border, 0, 1)
        width = np.array([self.domains[0].size, self.domains[1].size])[dcls]
        self.y_base = self.num_x + np.concatenate([[0], np.cumsum(width)[:-1]])
        self.num_vars = self.num_x + int(width.sum())
        # lit[q, s, g]: "side s of square q shows palette colour g (as the piece sees it)"
        d = grid.diamond_of
        seen = np.where(grid.second_of_diamond[:, :, None], negate[None, None, :], np.arange(palette.size))
        pos = index[dcls[np.maximum(d, 0)][:, :, None], seen]
        self.lit = np.where((d[:, :, None] >= 0) & (pos > 0),
                            self.y_base[np.maximum(d, 0)][:, :, None] + pos, 0)
        self.dcls = dcls

    def x(self, cls: int) -> np.ndarray:
        """x variables of the class's pieces (file order) × the class's squares."""
        members = self.members[cls]
        return self.x_offset[members][:, None] + np.arange(self.squares[cls].size)[None, :]

    def y(self, cls: int) -> tuple[np.ndarray, np.ndarray]:
        """(diamond ids, their colour variables) of the border (0) or center (1) diamonds."""
        ids = np.flatnonzero(self.dcls == cls)
        return ids, self.y_base[ids][:, None] + 1 + np.arange(self.domains[cls].size)[None, :]


def _normal_turn(sides: list[int]) -> int:
    """Quarter turns t with normalised side i = original side (i + t) mod 4: corners get the
    frame on N and W, border pieces on N, center pieces stay."""
    zeros = [s == FRAME for s in sides]
    if sum(zeros) == 2:
        return next(t for t in range(4) if zeros[t] and zeros[(t + 3) % 4])
    if sum(zeros) == 1:
        return zeros.index(True)
    return 0


def _first_appearance(values: np.ndarray, signed: bool) -> np.ndarray:
    if signed:
        values = np.stack([values, -values], axis=1).reshape(-1)
    _, first = np.unique(values, return_index=True)
    return values[np.sort(first)]


# -- encoding -------------------------------------------------------------------------------------
def encode(puzzle: Puzzle, encoding: str) -> Formula:
    """Heule's CNF in one of :data:`ENCODINGS`, clause order as in the published files.

    >>> f = encode(load_pieces("em_7_3_6"), "all")
    >>> f.num_vars, f.num_clauses
    (1473, 30387)
    """
    board = puzzle.board
    fbcolors, explicit = encoding in ("fbcolors", "all"), encoding in ("explicit", "all")
    f = Formula()
    f.new_vars("x", board.num_x)
    f.new_vars("y", board.num_vars - board.num_x)
    for cls in range(3):
        f.add("square_at_least_one", board.x(cls).T)
    for _piece, xs in _piece_rows(board):
        f.add("piece_at_least_one", xs[None, :])
        if explicit:
            f.add("piece_at_most_one", pairwise_at_most_one(xs))
    f.add("diamond_exactly_one", diamond_exactly_one(board))
    f.add("piece_clauses", piece_clauses(board, fbcolors))
    f.add("duplicate_pieces", duplicate_pieces(puzzle))
    return f


def _piece_rows(board: Board):
    """(piece, its x variables) in file order."""
    rows = {int(p): xs for cls in range(3) for p, xs in zip(board.members[cls], board.x(cls))}
    return [(p, rows[p]) for p in range(len(board.cls))]


def diamond_exactly_one(board: Board) -> np.ndarray:
    """Per diamond: (colour 1 ∨ ... ∨ colour K), then pairwise at-most-one."""
    chunks = []
    for cls in range(2):
        ids, ys = board.y(cls)
        if ids.size == 0 or ys.shape[1] == 0:
            continue
        k = ys.shape[1]
        amo = pairwise_at_most_one(ys).reshape(ids.size, k * (k - 1) // 2, 2)
        chunks.append((ids, _stack_rows(ys[:, None, :], amo)))
    return _merge(chunks)


def piece_clauses(board: Board, fbcolors: bool) -> np.ndarray:
    """Per piece (file order), per square of its class: corner and border side colours, and
    for center pieces the forbidden colours (fbcolors) then the type clauses."""
    chunks = [frame_piece_clauses(board, cls) for cls in (0, 1) if board.members[cls].size]
    centers = board.members[2]
    types = board.type_start[centers, 0]
    for t in range(1, 8):
        chunk = center_type_clauses(board, centers[types == t], t, fbcolors and t != 1)
        if chunk is not None:
            chunks.append(chunk)
    return _merge(chunks)


def frame_piece_clauses(board: Board, cls: int):
    """Corner (2) and border (3) pieces: ¬x ∨ [side = colour] for each non-frame side of the
    normalised piece (E S for corners, E S W for border pieces), per square."""
    members, squares, turns = board.members[cls], board.squares[cls], board.turns[cls]
    sides = np.array([E, S] if cls == 0 else [E, S, W])
    x = board.x(cls)
    g = board.gid[members[:, None], (sides[None, :] + board.normal_turn[members][:, None]) % 4]
    at = (sides[None, :] + turns[:, None]) % 4  # square side of each piece side, per square
    y = board.lit[squares[None, :, None], at[None, :, :], g[:, None, :]]
    rows = np.stack([np.broadcast_to(-x[:, :, None], y.shape), y], axis=-1)
    return members, rows.reshape(members.size, -1, 2)


def center_type_clauses(board: Board, members: np.ndarray, t: int, fbcolors: bool):
    """Type-``t`` center pieces: per square, the fbcolors clauses (sides N E S W, absent
    colours in domain order), then the type template with ¬x in front."""
    if members.size == 0:
        return None
    squares, x = board.squares[2], board.x(2)[np.searchsorted(board.members[2], members)]
    start = board.type_start[members, 1]
    pattern = TYPE_PATTERNS[t - 1]
    offset = np.array([pattern.index(ch) for ch in sorted(set(pattern))])  # first a, b, ...
    role_side = (start[:, None] + offset[None, :]) % 4
    roles = board.gid[members[:, None], role_side]  # palette colour of role a, b, c, d
    template = _type_template(t)
    width = max(len(cl) for cl in template)
    sign = np.zeros((len(template), width), np.int64)
    side = np.zeros_like(sign)
    role = np.zeros_like(sign)
    for i, cl in enumerate(template):
        for j, (sg, sd, rl) in enumerate(cl):
            sign[i, j], side[i, j], role[i, j] = sg, sd, rl
    lits = sign * board.lit[squares[None, :, None, None], side[None, None], roles[:, role][:, None]]
    body = np.concatenate([np.broadcast_to(-x[:, :, None, None], lits.shape[:3] + (1,)), lits], axis=-1)
    body = body.reshape(members.size, -1, width + 1)
    if fbcolors:  # all of a piece's forbidden-colour clauses precede its type clauses
        centre_palette = np.searchsorted(board.palette, board.domains[1])
        absent = ~(centre_palette[None, :, None] == board.gid[members][:, None, :]).any(axis=2)
        forbidden = np.array([centre_palette[a] for a in absent])  # equal count within a type
        y = board.lit[squares[None, :, None, None], np.arange(4)[None, None, :, None],
                      forbidden[:, None, None, :]]
        fb = np.stack([np.broadcast_to(-x[:, :, None, None], y.shape), -y], axis=-1)
        body = _stack_rows(fb.reshape(members.size, -1, 2), body)
    return members, body


def duplicate_pieces(puzzle: Puzzle) -> np.ndarray:
    """(¬x(p,j) ∨ ¬x(q,j)) for identical pieces p < q (equal up to rotation), per square j,
    pairs in lexicographic order."""
    board = puzzle.board
    key = _rotation_key(board.normal if puzzle.bounded else puzzle.pieces, puzzle.bounded)
    chunks = []
    n = len(key)
    for cls in range(3):
        members = board.members[cls]
        i, j = np.triu_indices(members.size, 1)
        same = (key[members[i]] == key[members[j]]).all(axis=1)
        i, j = i[same], j[same]
        x = board.x(cls)
        rows = np.stack([-x[i], -x[j]], axis=-1)
        chunks.append((members[i] * n + members[j], rows))
    return _merge(chunks)


def _rotation_key(pieces: np.ndarray, fixed: bool) -> np.ndarray:
    """A piece's identity up to rotation: normalised frame pieces as they are, center pieces
    as their lexicographically smallest rotation."""
    turns = np.stack([np.roll(pieces, -t, axis=1) for t in range(4)], axis=1)  # (n, 4, 4)
    order = np.lexsort(turns.transpose(2, 0, 1)[::-1], axis=-1)[:, 0]
    smallest = turns[np.arange(len(pieces)), order]
    if fixed:
        framed = (pieces == FRAME).any(axis=1)
        smallest = np.where(framed[:, None], pieces, smallest)
    return smallest


def _stack_rows(*parts: np.ndarray) -> np.ndarray:
    """Concatenate (m, r_i, w_i) blocks along the row axis, zero-padded to one width."""
    width = max(p.shape[-1] for p in parts)
    padded = [np.pad(p, [(0, 0)] * (p.ndim - 1) + [(0, width - p.shape[-1])]) for p in parts]
    return np.concatenate(padded, axis=-2)


def _merge(chunks: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Rows of several (keys (m,), rows (m, r, w)) chunks in key order (stable), one block."""
    chunks = [(k, r) for k, r in chunks if r.size]
    if not chunks:
        return np.zeros((0, 1), np.int32)
    width = max(r.shape[-1] for _, r in chunks)
    keys = np.concatenate([np.repeat(k, r.shape[1]) for k, r in chunks])
    rows = np.concatenate([np.pad(r, [(0, 0), (0, 0), (0, width - r.shape[-1])]).reshape(-1, width)
                           for _, r in chunks])
    return rows[np.argsort(keys, kind="stable")]


# -- decoding, checking, witnesses ------------------------------------------------------------------
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


def expected(puzzle: Puzzle, params: dict, certify=None) -> tuple[str, str]:
    if puzzle.planted is not None:
        return "SAT", "planted"
    if witness(puzzle) is not None:
        return "SAT", "planted (pieces listed in solved order)"
    return "UNKNOWN", "none"


def uses_seed(params: dict) -> bool:
    return "pieces" not in params


def instance_name(params: dict, draw: str | None, encoding: str) -> str:
    """``em-7-3-6-s1-all``, ``em-6x12-4-4-scrambled-s1-compact``, ``clue1-compact``."""
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
    words += [f"t{params['turn_seed']}"] if "turn_seed" in params else []
    return "-".join(words + [draw, encoding])


# -- JSON and pictures ----------------------------------------------------------------------------
def puzzle_to_json(puzzle: Puzzle) -> dict:
    data = {"rows": puzzle.rows, "cols": puzzle.cols, "bounded": puzzle.bounded,
            "signed": puzzle.signed, "source": puzzle.source, "pieces": puzzle.pieces.tolist()}
    if puzzle.turn_seed is not None:
        data["turn_seed"] = puzzle.turn_seed
    return data


def puzzle_from_json(data: dict) -> Puzzle:
    puzzle = make_puzzle(int(data["rows"]), int(data["cols"]), np.array(data["pieces"], np.int64),
                       bool(data["bounded"]), bool(data["signed"]), str(data.get("source", "")),
                       "puzzle")
    puzzle.turn_seed = data.get("turn_seed")
    return puzzle


def solution_to_json(solution: Solution) -> dict:
    return {"piece": np.asarray(solution.piece).tolist(),
            "rotation": np.asarray(solution.rotation).tolist()}


def solution_from_json(data: dict) -> Solution:
    return Solution(np.array(data["piece"], np.int64), np.array(data["rotation"], np.int64))


def render(puzzle: Puzzle, solution: Solution | None = None) -> str:
    """The board as text: each square shows its N, E, S and W colours ('.' = frame). Without
    a solution, the pieces are laid out in file order, unrotated.

    >>> print(render(load_pieces("four-squares")))
    +-----+-----+
    |  3  |  3  |
    |4   1|2   4|
    |  2  |  1  |
    +-----+-----+
    |  2  |  1  |
    |4   1|2   4|
    |  3  |  3  |
    +-----+-----+
    """
    n = len(puzzle.pieces)
    if solution is None:
        solution = Solution(np.arange(n), np.zeros(n, np.int64))
    shown = shown_sides(puzzle.pieces, solution).reshape(puzzle.rows, puzzle.cols, 4)
    text = np.where(shown == FRAME, ".", shown.astype(str)) if puzzle.bounded else shown.astype(str)
    w = max(len(t) for t in text.reshape(-1))
    rule = "+" + "+".join(["-" * (3 * w + 2)] * puzzle.cols) + "+"
    lines = [rule]
    for row in text:
        lines.append("|" + "|".join(f"{' ' * (w + 1)}{t[N]:^{w}}{' ' * (w + 1)}" for t in row) + "|")
        lines.append("|" + "|".join(f"{t[W]:<{w}}{' ' * (w + 2)}{t[E]:>{w}}" for t in row) + "|")
        lines.append("|" + "|".join(f"{' ' * (w + 1)}{t[S]:^{w}}{' ' * (w + 1)}" for t in row) + "|")
        lines.append(rule)
    return "\n".join(lines)


def render_svg(puzzle: Puzzle, solution: Solution | None = None, size: int = 40) -> str:
    """The board as SVG: each square as four triangles filled by colour (frame grey)."""
    n = len(puzzle.pieces)
    if solution is None:
        solution = Solution(np.arange(n), np.zeros(n, np.int64))
    shown = shown_sides(puzzle.pieces, solution)
    values = sorted(set(np.abs(shown).reshape(-1).tolist()))
    hue = {v: (i * 137) % 360 for i, v in enumerate(values)}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{puzzle.cols * size}" '
           f'height="{puzzle.rows * size}">']
    corners = [(0, 0), (1, 0), (1, 1), (0, 1)]  # NW NE SE SW, unit square
    for q in range(n):
        r, c = divmod(q, puzzle.cols)
        cx, cy = (c + 0.5) * size, (r + 0.5) * size
        for s in range(4):
            (ax, ay), (bx, by) = corners[s], corners[(s + 1) % 4]
            v = int(shown[q, s])
            fill = "#999" if (v == FRAME and puzzle.bounded) else \
                f"hsl({hue[abs(v)]},{70 if v >= 0 else 40}%,{55 if v >= 0 else 35}%)"
            points = f"{(c + ax) * size},{(r + ay) * size} {(c + bx) * size},{(r + by) * size} {cx},{cy}"
            out.append(f'<polygon points="{points}" fill="{fill}" stroke="#333" stroke-width="0.5"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"

"""Flow Free (Numberlink): join equal endpoints by paths that fill the grid.

The puzzle. A rectangular grid holds pairs of coloured endpoints; a solution joins each pair
by a path of orthogonally adjacent cells so that every cell lies on exactly one path. Levels
come from the article's text format (one line per row, a letter or digit is an endpoint and
appears exactly twice, ``.`` is empty; colour index = order of first appearance in a row-major
scan) or from JSON ``{"width", "height", "rows"}`` (rectangles too), or are planted here.

The article. M. Zucker, "Flow Free redux", blog post, 2016-09-02
(https://mzucker.github.io/2016/09/02/eating-sat-flavored-crow.html), with the levels of the
``mzucker/flow_solver`` repository. Its appendix table gives variables and clauses per level.

Encoding ``zucker`` (the article's, exactly; N cells, C colours):

* variables ``x(i, j, u) = (i·width + j)·C + u + 1`` (block ``x[row, col, colour]``), then
  direction-type variables ``y`` for free (non-endpoint) cells only, row-major, within a cell
  in the order LR, TB, TL, TR, BL, BR, a type existing only when both its neighbours are on the
  grid (interior cell 6, edge 3, corner 1);
* colour pass, cell by cell (row-major). Endpoint of colour u with on-grid neighbours n1..nd
  (order L, R, T, B): unit ``x(cell, u)``; units ``¬x(cell, v)``, v ≠ u; ``∨ x(n, u)``;
  pairwise ``¬x(n, u) ∨ ¬x(n', u)``. Free cell: ``∨_u x(cell, u)``; pairwise at most one colour;
* direction pass, free cell by free cell: at least one type (a unit in a corner); pairwise at
  most one type; then for each colour u, each direction L, R, T, B and each available type t
  (order as above): if t points that way, ``¬y ∨ ¬x(cell,u) ∨ x(nb,u)`` and
  ``¬y ∨ x(cell,u) ∨ ¬x(nb,u)``; otherwise, if the neighbour is on the grid,
  ``¬y ∨ ¬x(cell,u) ∨ ¬x(nb,u)``.

The two passes are the article program's order (all colour clauses, then all direction
clauses); within a cell, types are taken in the order above. Closed form:
``Σ_endpoints [C + 1 + C(d,2)] + Σ_free [1 + C(C,2) + 1 + C(k,2) + C·k·(d+2)]`` clauses for
k types and d on-grid neighbours; regular_5x5_01 has 184 variables and 2,031 clauses.

The "not this colour" clauses forbid a path from touching itself, so planted paths never do.
They do not forbid free-standing cycles: a model of ``zucker`` must be decoded and checked.

Encoding ``acyclic`` = ``zucker`` + a rank order that excludes every cycle (complete and
sound). Free cells get rank bits ``rank[f, k]`` (k = 0 least significant, B = ⌈log2 F⌉ bits
for F free cells). Each adjacent pair (a, b) of free cells gets a one-directional comparator
per direction: ``equal_above[p, j]`` (bits ≥ j of a and b agree; implies bit j agrees and
``equal_above[p, j+1]``), ``less_at[p, dir, k]`` (implies X_k = 0, Y_k = 1 and equal bits
above k) and ``less[p, dir]`` → ∨_k ``less_at[p, dir, k]``; dir 0 is a < b, dir 1 is b < a.
Then per free cell u and type t whose two neighbours v, w are free:
``¬y(u, t) ∨ less(v < u) ∨ less(w < u)``. A real path satisfies it (rank = position along the
path); on a cycle the cell of least rank cannot.

Encoding ``zucker-2x2`` = ``zucker`` + per 2×2 block of free cells the clause that it is not
a 4-cycle (``¬y(tl, BR) ∨ ¬y(tr, BL) ∨ ¬y(bl, TR) ∨ ¬y(br, TL)``): cheap, not complete.

Planted generator: every cell starts as a one-cell path; adjacent path heads are merged at
random (short paths first) when the two paths touch nowhere else (the "domino tiling +
merges" design, from single cells); when no merge is possible, an end cell moves to an
adjacent path end ("shrink one flow, grow its neighbour") until the requested number of paths
remains. Paths built this way never touch themselves, so the planted colouring is a model of
every encoding.

>>> p = parse_text("R.G\\n...\\nR.G")
>>> f = encode(p, "zucker")
>>> f.num_vars, f.num_clauses
(36, 250)
>>> q = generate({"width": 4, "height": 3, "colors": 2}, Rng(1))
>>> print(render(q, witness(q)))
ABBB  ╷┌─┐
ABAB  │╵╷│
AAAB  └─┘╵
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from puzzlesat.generator.core.cnf import Formula, pairwise_at_most_one
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.grid import OPPOSITE, adjacent_pairs, neighbour_table
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.families import Param

NAME = "flow"
SUMMARY = "Flow Free / Numberlink: planted grids or level files; Zucker's encoding (2016)"
STORY = (
    "Flow Free (Numberlink) asks for paths joining equal coloured endpoints that together "
    "fill the grid. Instances use the SAT encoding of Zucker's 'Flow Free redux' (2016): one-hot "
    "cell colours and direction types whose clauses make neighbours along a path share a colour "
    "and all other neighbours differ. That encoding admits free-standing cycles, so the "
    "'acyclic' variant adds rank bits that every free cell must descend along its path, and "
    "'zucker-2x2' forbids 2×2 cycles only. Planted grids are built by merging adjacent path "
    "heads of paths that touch nowhere else, so their known solution is a model of every "
    "encoding (expected SAT, from the planted solution); level files are UNKNOWN unless their "
    "unsatisfiability is certified by a checked DRAT proof."
)
REFERENCES = (
    {
        "type": "blog",
        "title": "Flow Free redux",
        "authors": [{"family-names": "Zucker", "given-names": "Matt"}],
        "year": 2016,
        "url": "https://mzucker.github.io/2016/09/02/eating-sat-flavored-crow.html",
    },
)
HARDNESS_PARAM = "width"

ENCODINGS = {
    "zucker": "Zucker 2016: one-hot colours and direction types (admits stray cycles)",
    "acyclic": "zucker + rank bits that exclude every cycle",
    "zucker-2x2": "zucker + no 2x2 cycle of free cells",
}

PARAMS = (
    Param("width", int, None, "Grid width (planted grids).", minimum=1),
    Param("height", int, None, "Grid height (planted grids).", minimum=1),
    Param("colors", int, None, "Number of colours [default: as few as random merges reach, "
          "about 1.5-2.3 sqrt(width*height)].", minimum=1),
    Param("min_colors", int, None, "Draw the number of colours from min..max.", minimum=1),
    Param("max_colors", int, None, "Upper end of the colour range.", minimum=1),
    Param("min_path", int, 3, "Shortest planted path, in cells.", minimum=2),
    Param("unique", bool, False, "Keep only grids whose solution a solver proves unique."),
    Param("no_2x2", bool, False, "Reject grids with a one-colour 2x2 block."),
    Param("puzzle", str, None, "A level file: the article's text format or JSON."),
    Param("certify", bool, False,
          "Level files: prove UNSAT with a checked DRAT proof (puzzlesat.validate.proof)."),
)

#: endpoint labels of planted grids, in colour order (the text format allows 62)
LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
#: grid.py direction indices (N E S W) in the article's neighbour order L, R, T, B
LRTB = np.array([3, 1, 0, 2])
#: the article's direction types LR, TB, TL, TR, BL, BR as pairs of grid directions
TYPE_NAMES = ("LR", "TB", "TL", "TR", "BL", "BR")
TYPE_DIRS = np.array([[3, 1], [0, 2], [0, 3], [0, 1], [2, 3], [2, 1]])
#: link masks: bit d for grid direction d (N=1, E=2, S=4, W=8)
TYPE_MASKS = (1 << TYPE_DIRS).sum(axis=1)
#: does type t point in LRTB direction i?
TYPE_POINTS = (TYPE_DIRS[None, :, :] == LRTB[:, None, None]).any(axis=2)
PIPES = {0: " ", 1: "╵", 2: "╶", 4: "╷", 8: "╴", 10: "─", 5: "│", 9: "┘", 3: "└", 12: "┐",
         6: "┌"}
PALETTE = ("#e6194b", "#3cb44b", "#4363d8", "#ffe119", "#f58231", "#42d4f4", "#f032e6",
           "#911eb4", "#bfef45", "#fabed4", "#469990", "#9a6324", "#800000", "#aaffc3",
           "#808000", "#000075", "#a9a9a9", "#dcbeff")
PLANT_ATTEMPTS = 20
#: end-cell moves allowed per cell of the grid in one planting attempt
PLANT_MOVES_PER_CELL = 20
UNIQUE_ATTEMPTS = 60
#: the rule of :func:`check` that the article's "different colour" clauses enforce
TOUCHING = "path touches itself"


@dataclass(eq=False)
class Solution:
    """``colors[r, c]`` (−1 = none) and ``links[r, c]``: bit d set when the cell is joined to
    its neighbour in grid direction d (N=1, E=2, S=4, W=8)."""

    colors: np.ndarray
    links: np.ndarray


@dataclass(eq=False)
class Puzzle:
    """``endpoints[r, c]``: colour index or −1; ``labels[u]``: the character of colour u."""

    endpoints: np.ndarray
    labels: str
    name: str = ""
    planted: Solution | None = None

    @property
    def height(self) -> int:
        return int(self.endpoints.shape[0])

    @property
    def width(self) -> int:
        return int(self.endpoints.shape[1])

    @property
    def num_colors(self) -> int:
        return len(self.labels)


# -- reading and writing puzzles ------------------------------------------------------------
def parse_text(text: str, where: str = "puzzle") -> Puzzle:
    """A puzzle from the article's text format (rectangles accepted: all rows equally long).

    >>> parse_text("R.G\\n.B.\\nRBG").labels
    'RGB'
    """
    rows = [line.rstrip("\r\n \t") for line in text.splitlines()]
    while rows and not rows[-1]:
        rows.pop()
    return _puzzle_from_rows(rows, where)


def _puzzle_from_rows(rows: list, where: str, name: str = "") -> Puzzle:
    if not rows:
        raise UserError(f"{where}: no rows")
    width = len(rows[0])
    for r, row in enumerate(rows):
        if not isinstance(row, str):
            raise UserError(f"{where}: row {r + 1} is not a string")
        if len(row) != width:
            raise UserError(f"{where}: ragged rows: row {r + 1} has {len(row)} cells, "
                            f"row 1 has {width}")
        for c, ch in enumerate(row):
            if ch != "." and not (ch.isascii() and ch.isalnum()):
                raise UserError(f"{where}: row {r + 1}, column {c + 1}: unknown character "
                                f"{ch!r} (endpoints are letters or digits, '.' is empty)")
    labels = "".join(dict.fromkeys(ch for row in rows for ch in row if ch != "."))
    if not labels:
        raise UserError(f"{where}: no endpoints")
    flat = "".join(rows)
    for ch in labels:
        if flat.count(ch) != 2:
            r, c = divmod(flat.index(ch), width)
            raise UserError(f"{where}: endpoint {ch!r} (first at row {r + 1}, column {c + 1}) "
                            f"appears {flat.count(ch)} times; each endpoint appears exactly "
                            "twice")
    index = {ch: u for u, ch in enumerate(labels)}
    endpoints = np.array([[index.get(ch, -1) for ch in row] for row in rows], dtype=np.int64)
    return Puzzle(endpoints, labels, name)


def puzzle_to_text(puzzle: Puzzle) -> str:
    """The article's text format (one line per row)."""
    return "".join(_label_row(puzzle, r) + "\n" for r in range(puzzle.height))


def _label_row(puzzle: Puzzle, r: int) -> str:
    return "".join("." if u < 0 else puzzle.labels[u] for u in puzzle.endpoints[r].tolist())


def puzzle_to_json(puzzle: Puzzle) -> dict:
    return {"width": puzzle.width, "height": puzzle.height,
            "rows": [_label_row(puzzle, r) for r in range(puzzle.height)]}


def puzzle_from_json(data, where: str = "puzzle") -> Puzzle:
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise UserError(f"{where}: expected an object with 'width', 'height' and 'rows'")
    puzzle = _puzzle_from_rows(data["rows"], where)
    for key, got in (("width", puzzle.width), ("height", puzzle.height)):
        if key in data and data[key] != got:
            raise UserError(f"{where}: {key} says {data[key]!r} but the rows give {got}")
    return puzzle


def load_puzzle(path: str) -> Puzzle:
    """A level file: JSON when it ends in ``.json``, the article's text format otherwise."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"--puzzle: cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
                        ) from None
    if path.lower().endswith(".json"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UserError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
        puzzle = puzzle_from_json(data, path)
    else:
        puzzle = parse_text(text, path)
    puzzle.name = Path(path).name.split(".")[0]
    return puzzle


# -- solutions --------------------------------------------------------------------------------
def solution_to_json(solution: Solution) -> dict:
    return {"colors": solution.colors.tolist(),
            "links": ["".join(f"{m:x}" for m in row) for row in solution.links.tolist()]}


def solution_from_json(data) -> Solution:
    try:
        colors = np.array(data["colors"], dtype=np.int64)
        links = np.array([[int(ch, 16) for ch in row] for row in data["links"]], dtype=np.int64)
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"flow solution: expected 'colors' (rows of ints) and 'links' (rows of "
                        f"hex digits): {exc}") from None
    if colors.ndim != 2 or colors.shape != links.shape:
        raise UserError(f"flow solution: colors {colors.shape} and links {links.shape} differ")
    return Solution(colors, links)


def solution_from_paths(puzzle: Puzzle, paths: list) -> Solution:
    """Colours and links of paths given as lists of cells (row-major indices), path u of
    colour u."""
    h, w = puzzle.height, puzzle.width
    colors = np.full(h * w, -1, dtype=np.int64)
    links = np.zeros(h * w, dtype=np.int64)
    nb = neighbour_table(h, w)
    for u, path in enumerate(paths):
        colors[path] = u
        for a, b in zip(path, path[1:]):
            d = int(np.flatnonzero(nb[a] == b)[0])
            links[a] |= 1 << d
            links[b] |= 1 << int(OPPOSITE[d])
    return Solution(colors.reshape(h, w), links.reshape(h, w))


def trace_paths(puzzle: Puzzle, solution: Solution) -> tuple[list, list]:
    """(paths, cycles): per colour the cells met by following links from its first endpoint
    (row-major), and the closed loops of linked cells that no path reaches."""
    h, w = puzzle.height, puzzle.width
    nb = neighbour_table(h, w)
    links = solution.links.reshape(-1).tolist()
    ends = puzzle.endpoints.reshape(-1)
    seen = np.zeros(h * w, dtype=bool)

    def linked(cell: int) -> list:
        return [int(nb[cell, d]) for d in range(4) if links[cell] >> d & 1 and nb[cell, d] >= 0]

    def follow(start: int, prev: int = -1) -> tuple[list, bool]:
        """Cells from ``start`` (coming from ``prev``) along single onward links."""
        run, cur = [start], start
        while True:
            nxt = [n for n in linked(cur) if n != prev]
            if len(nxt) != 1 or (len(run) > 1 and ends[cur] >= 0):
                return run, False
            if nxt[0] == start:
                return run, True
            if nxt[0] in run:
                return run, False
            prev, cur = cur, nxt[0]
            run.append(cur)

    paths = []
    for u in range(puzzle.num_colors):
        run, _ = follow(int(np.flatnonzero(ends == u)[0]))
        seen[run] = True
        paths.append(run)
    cycles = []
    for cell in range(h * w):
        if not seen[cell] and ends[cell] < 0 and links[cell]:
            # walk away from one linked neighbour: a loop comes back round to the start
            run, closed = follow(cell, linked(cell)[0])
            seen[run] = True
            if closed:
                cycles.append(run)
    return paths, cycles


def check(puzzle: Puzzle, solution: Solution) -> list[str]:
    """The puzzle's own rules, independent of any encoding; ``[]`` means a valid solution.

    Rules: every cell has a colour; endpoints keep theirs; links are mutual, stay on the grid
    and join cells of one colour; endpoints have one link, other cells two; each colour is one
    path between its endpoints; no free-standing cycles; and (:data:`TOUCHING`) no path
    touches itself — the article's rule, so a valid solution is a model of its encoding.
    """
    h, w = puzzle.height, puzzle.width
    if solution.colors.shape != (h, w) or solution.links.shape != (h, w):
        return [f"solution is {solution.colors.shape}, puzzle is {(h, w)}"]
    problems = []
    colors = solution.colors.reshape(-1)
    links = solution.links.reshape(-1)
    ends = puzzle.endpoints.reshape(-1)
    nb = neighbour_table(h, w)

    def at(cell):
        return f"({cell // w}, {cell % w})"

    bad = np.flatnonzero((colors < 0) | (colors >= puzzle.num_colors))
    if bad.size:
        problems.append(f"{bad.size} cells without a colour, first at {at(bad[0])}")
    bad = np.flatnonzero((ends >= 0) & (colors != ends))
    if bad.size:
        problems.append(f"endpoint at {at(bad[0])} lost its colour")
    bits = (links[:, None] >> np.arange(4)) & 1 == 1
    off = bits & (nb < 0)
    back = np.where(nb >= 0, (links[nb] >> OPPOSITE) & 1 == 1, False)
    for cell, d in zip(*np.nonzero(bits & ~off & ~back)):
        problems.append(f"link from {at(cell)} to {at(nb[cell, d])} is not returned")
    for cell, d in zip(*np.nonzero(bits & ~off & (colors[nb] != colors[:, None]))):
        problems.append(f"link joins {at(cell)} and {at(nb[cell, d])} of different colours")
    if off.any():
        problems.append(f"link leaves the grid at {at(np.nonzero(off)[0][0])}")
    degree = bits.sum(axis=1)
    bad = np.flatnonzero(degree != np.where(ends >= 0, 1, 2))
    if bad.size:
        problems.append(f"{bad.size} cells with a wrong number of links (endpoints 1, others "
                        f"2), first at {at(bad[0])} with {degree[bad[0]]}")
    paths, cycles = trace_paths(puzzle, solution)
    for u, path in enumerate(paths):
        if ends[path[-1]] != u or len(path) < 2:
            problems.append(f"colour {puzzle.labels[u]}: the path from {at(path[0])} does not "
                            "reach the other endpoint")
    if cycles:
        n = len(cycles)
        problems.append(f"satisfies the CNF, not a solution: {n} cycle{'s' if n > 1 else ''} "
                        f"(first through {at(cycles[0][0])}, {len(cycles[0])} cells)")
    same = (nb >= 0) & (colors[nb] == colors[:, None]) & (colors[:, None] >= 0)
    touch = np.argwhere(same & ~bits & ~back)
    if touch.size:
        cell, d = touch[0]
        problems.append(f"{TOUCHING}: colour {puzzle.labels[colors[cell]]} at {at(cell)} and "
                        f"{at(nb[cell, d])} ({len(touch) // 2} places)")
    return problems


# -- the contract: params, generation, expected results ----------------------------------------
def uses_seed(params: dict) -> bool:
    return "puzzle" not in params


def instance_name(params: dict, draw: str | None, encoding: str) -> str:
    if "puzzle" in params:
        stem = re.sub(r"[^A-Za-z0-9_-]+", "-", Path(params["puzzle"]).name.split(".")[0])
        return f"flow-{stem}-{encoding}"
    if "colors" in params:
        colors = f"c{params['colors']}"
    elif "min_colors" in params:
        colors = f"c{params['min_colors']}-{params['max_colors']}"
    else:
        colors = "cauto"
    flags = "".join(tag for key, tag in (("unique", "-u"), ("no_2x2", "-n2")) if params.get(key))
    if params.get("min_path", 3) != 3:
        flags += f"-m{params['min_path']}"
    return f"flow-{params['width']}x{params['height']}-{colors}{flags}-{draw}-{encoding}"


def generate(params: dict, rng: Rng) -> Puzzle:
    """A level file (``puzzle``) or a planted grid (``width``, ``height``, colours)."""
    planted_keys = ("width", "height", "colors", "min_colors", "max_colors", "unique", "no_2x2")
    if "puzzle" in params:
        extra = [k for k in planted_keys if params.get(k)]
        if extra:
            raise UserError(f"flow: --{extra[0].replace('_', '-')} does not apply with --puzzle")
        return load_puzzle(params["puzzle"])
    if params.get("certify"):
        raise UserError("flow: --certify applies to --puzzle files only (planted grids are SAT)")
    if "width" not in params or "height" not in params:
        raise UserError("flow: give --width and --height, or --puzzle")
    width, height, min_path = params["width"], params["height"], params.get("min_path", 3)
    low, high = _color_range(params)
    cells = width * height
    if high > len(LABELS):
        raise UserError(f"flow: at most {len(LABELS)} colours, asked for {high}")
    if max(low, 1) * min_path > cells:
        raise UserError(f"flow: {low} colours with paths of at least {min_path} cells need "
                        f"{low * min_path} cells; {width}x{height} has {cells}")
    attempts = UNIQUE_ATTEMPTS if params.get("unique") else PLANT_ATTEMPTS
    for _ in range(attempts):
        colors = low + rng.integer(high - low + 1) if high else None
        paths = plant_paths(width, height, colors, min_path, rng)
        if paths is None or len(paths) > len(LABELS):  # uncapped merging may end above 62
            continue
        puzzle = _planted_puzzle(width, height, paths)
        if params.get("no_2x2") and has_one_colour_2x2(puzzle.planted.colors):
            continue
        if params.get("unique") and not is_unique(puzzle):
            continue
        return puzzle
    wanted = "unique " if params.get("unique") else ""
    count = f"{low}..{high}" if high else "any number of"
    raise UserError(f"flow: no {wanted}{width}x{height} grid with {count} colours and "
                    f"paths of at least {min_path} cells after {attempts} attempts; try more "
                    "colours or a shorter --min-path")


def _color_range(params: dict) -> tuple[int, int]:
    if "colors" in params:
        if "min_colors" in params or "max_colors" in params:
            raise UserError("flow: give --colors or --min-colors/--max-colors, not both")
        return params["colors"], params["colors"]
    if "min_colors" in params or "max_colors" in params:
        if "min_colors" not in params or "max_colors" not in params:
            raise UserError("flow: --min-colors and --max-colors go together")
        if params["min_colors"] > params["max_colors"]:
            raise UserError(f"flow: --min-colors {params['min_colors']} exceeds --max-colors "
                            f"{params['max_colors']}")
        return params["min_colors"], params["max_colors"]
    return 0, 0  # no target: merge until no merge is left


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


def expected(puzzle: Puzzle, params: dict, certify=None) -> tuple[str, str]:
    """Planted grids are SAT. A level file is UNKNOWN unless the ``certify`` param is set: then
    its ``zucker`` formula must be proved UNSAT by ``certify`` (a solver plus proof checker,
    passed in by the caller: see :data:`puzzlesat.generator.families.Certifier`);
    ``zucker-2x2`` and ``acyclic`` contain every ``zucker`` clause, so the certificate covers
    them too."""
    if puzzle.planted is not None:
        return "SAT", "planted"
    if not params.get("certify"):
        return "UNKNOWN", "none"
    if certify is None:
        raise UserError("flow: --certify needs a proof checker; it is a `puzzlesat generate` "
                        "option, not a suite parameter")
    source = certify(encode(puzzle, "zucker"))
    if not source:
        raise UserError(f"flow: --certify: {puzzle.name or 'puzzle'} has no checked UNSAT "
                        "proof under zucker (it may be solvable)")
    return "UNSAT", source


def witness(puzzle: Puzzle) -> Solution | None:
    return puzzle.planted


# -- encodings --------------------------------------------------------------------------------
@dataclass
class _Layout:
    """Numbering shared by every encoding: ``x[cell, colour]``, ``ytab[cell, type]`` (0 where
    a cell has no such type), neighbours ``nb[cell, N E S W]`` (−1 off-grid)."""

    nb: np.ndarray
    ends: np.ndarray
    free: np.ndarray
    x: np.ndarray
    ytab: np.ndarray
    formula: Formula


def _layout(puzzle: Puzzle) -> _Layout:
    h, w, colors = puzzle.height, puzzle.width, puzzle.num_colors
    formula = Formula()
    x = formula.new_vars("x", h, w, colors).reshape(h * w, colors)
    nb = neighbour_table(h, w)
    ends = puzzle.endpoints.reshape(-1)
    on = nb >= 0
    available = on[:, TYPE_DIRS].all(axis=2) & (ends < 0)[:, None]
    ytab = np.zeros(available.shape, dtype=np.int32)
    ytab[available] = formula.new_vars("y", int(available.sum()))
    return _Layout(nb, ends, np.flatnonzero(ends < 0), x, ytab, formula)


def _by_cell(*parts) -> np.ndarray:
    """Rows of (cells, rows) parts merged by cell, stably: within a cell, part order then row
    order — how the article emits its clauses cell by cell."""
    width = max(rows.shape[1] for _, rows in parts)
    cells = np.concatenate([np.asarray(c, dtype=np.int64) for c, _ in parts])
    rows = np.concatenate([np.pad(r, ((0, 0), (0, width - r.shape[1]))) for _, r in parts])
    return rows[np.argsort(cells, kind="stable")]


def _left_packed(rows: np.ndarray) -> np.ndarray:
    """Non-zero literals moved to the front of each row, in order (zeros are padding)."""
    order = np.argsort(rows == 0, axis=1, kind="stable")
    return np.take_along_axis(rows, order, axis=1)


def _neighbour_colour(lay: _Layout, cells: np.ndarray, colors) -> np.ndarray:
    """``x(neighbour, colour)`` per cell in L, R, T, B order, 0 for off-grid neighbours;
    ``colors`` broadcasts against (cells, 4)."""
    nbs = lay.nb[cells][:, LRTB]
    return np.where(nbs >= 0, lay.x[np.maximum(nbs, 0), colors], 0)


def _pairs_per_row(groups: np.ndarray) -> np.ndarray:
    k = (groups != 0).sum(axis=1)
    return k * (k - 1) // 2


def endpoint_colour_units(lay: _Layout, cells: np.ndarray):
    """``x(cell, u)`` then ``¬x(cell, v)`` for each other colour v, per endpoint cell."""
    u = lay.ends[cells]
    colors = lay.x.shape[1]
    order = np.argsort(np.arange(colors)[None, :] != u[:, None], axis=1, kind="stable")
    lits = -np.take_along_axis(lay.x[cells], order, axis=1)
    lits[:, 0] *= -1
    return np.repeat(cells, colors), lits.reshape(-1, 1)


def endpoint_one_neighbour(lay: _Layout, cells: np.ndarray):
    """At least one neighbour has the endpoint's colour (a clause), and no two do (pairs)."""
    group = _neighbour_colour(lay, cells, lay.ends[cells][:, None])
    return (cells, _left_packed(group)), (np.repeat(cells, _pairs_per_row(group)),
                                          pairwise_at_most_one(group))


def cell_one_colour(lay: _Layout, cells: np.ndarray):
    group = lay.x[cells]
    return (cells, group), (np.repeat(cells, _pairs_per_row(group)), pairwise_at_most_one(group))


def cell_one_type(lay: _Layout, cells: np.ndarray):
    group = lay.ytab[cells]
    return (cells, _left_packed(group)), (np.repeat(cells, _pairs_per_row(group)),
                                          pairwise_at_most_one(group))


def type_fixes_neighbour_colours(lay: _Layout, cells: np.ndarray):
    """Per cell, colour u, direction L R T B, type t: the neighbours t points to share the
    cell's colour (two clauses); the other on-grid neighbours do not (one clause)."""
    colors = lay.x.shape[1]
    y = lay.ytab[cells][:, None, None, :]                             # (F, 1, 1, 6)
    own = lay.x[cells][:, :, None, None]                              # (F, C, 1, 1)
    nbx = _neighbour_colour(lay, np.repeat(cells, colors),
                            np.tile(np.arange(colors), cells.size)[:, None])
    nbx = nbx.reshape(cells.size, colors, 4)[:, :, :, None]           # (F, C, 4, 1)
    points = TYPE_POINTS[None, None, :, :]                            # (1, 1, 4, 6)
    shape = (cells.size, colors, 4, 6)
    first = np.stack(np.broadcast_arrays(-y, -own, np.where(points, nbx, -nbx)), axis=-1)
    second = np.stack(np.broadcast_arrays(-y, own, -nbx), axis=-1)
    on = (lay.nb[cells][:, LRTB] >= 0)[:, None, :, None]
    has = np.broadcast_to(y > 0, shape)
    valid = np.stack([has & (points | on), has & points], axis=-1)    # (F, C, 4, 6, 2)
    lits = np.stack([first, second], axis=-2)                         # (F, C, 4, 6, 2, 3)
    return np.repeat(cells, valid.reshape(cells.size, -1).sum(axis=1)), lits[valid]


def zucker(puzzle: Puzzle) -> tuple[Formula, _Layout]:
    lay = _layout(puzzle)
    ends = np.flatnonzero(lay.ends >= 0)
    free = lay.free
    lay.formula.add("colour", _by_cell(endpoint_colour_units(lay, ends),
                                       *endpoint_one_neighbour(lay, ends),
                                       *cell_one_colour(lay, free)))
    if free.size:
        lay.formula.add("direction", _by_cell(*cell_one_type(lay, free),
                                              type_fixes_neighbour_colours(lay, free)))
    return lay.formula, lay


def rank_bits(free_cells: int) -> int:
    return max(1, math.ceil(math.log2(free_cells))) if free_cells > 1 else 1


def acyclic_clauses(puzzle: Puzzle, lay: _Layout) -> None:
    """Rank bits and comparators (see the module docstring) added to ``lay.formula``."""
    f = lay.formula
    pairs = _adjacent_free(puzzle, lay)
    if not pairs.size:
        return
    nbits = rank_bits(lay.free.size)
    rank = np.zeros((lay.ends.size, nbits), dtype=np.int32)
    rank[lay.free] = f.new_vars("rank", lay.free.size, nbits)
    eq = f.new_vars("equal_above", len(pairs), nbits)[:, 1:]          # bit 0 needs none
    less_at = f.new_vars("less_at", len(pairs), 2, nbits)
    less = f.new_vars("less", len(pairs), 2)
    a, b = rank[pairs[:, 0]], rank[pairs[:, 1]]
    f.add("equal_above_bits", np.stack([np.stack([-eq, -a[:, 1:], b[:, 1:]], -1),
                                        np.stack([-eq, a[:, 1:], -b[:, 1:]], -1)],
                                       axis=-2).reshape(-1, 3))
    f.add("equal_above_chain", np.stack([-eq[:, :-1], eq[:, 1:]], -1).reshape(-1, 2))
    for direction, (lo, hi) in enumerate(((a, b), (b, a))):
        z = less_at[:, direction]
        f.add(f"less_at_{direction}", np.stack([np.stack([-z, -lo], -1),
                                                np.stack([-z, hi], -1)], -2).reshape(-1, 2))
        f.add(f"less_at_{direction}_above", np.stack([-z[:, :-1], eq], -1).reshape(-1, 2))
        f.add(f"less_{direction}", np.concatenate([-less[:, direction, None], z], axis=1))
    f.add("rank_descends", rank_descends(lay, pairs, less))


def _adjacent_free(puzzle: Puzzle, lay: _Layout) -> np.ndarray:
    """Adjacent pairs (a, b), a < b, of free cells: one comparator each."""
    pairs = adjacent_pairs(puzzle.height, puzzle.width)
    return pairs[(lay.ends[pairs] < 0).all(axis=1)]


def rank_descends(lay: _Layout, pairs: np.ndarray, less: np.ndarray) -> np.ndarray:
    """Per free cell u and type t with two free neighbours v, w:
    ``¬y(u, t) ∨ less(v < u) ∨ less(w < u)``."""
    # below[cell, d]: the variable "neighbour in direction d has a smaller rank than cell"
    below = np.zeros((lay.ends.size, 4), dtype=np.int32)
    a, b = pairs[:, 0], pairs[:, 1]
    d_ab = np.argmax(lay.nb[a] == b[:, None], axis=1)
    below[b, OPPOSITE[d_ab]] = less[:, 0]
    below[a, d_ab] = less[:, 1]
    cells = lay.free
    y = lay.ytab[cells]
    sides = below[cells][:, TYPE_DIRS]                                # (F, 6, 2)
    lits = np.concatenate([-y[:, :, None], sides], axis=2)
    return lits[(y > 0) & (sides > 0).all(axis=2)]


def no_four_cycles(puzzle: Puzzle, lay: _Layout) -> np.ndarray:
    """``¬y(tl, BR) ∨ ¬y(tr, BL) ∨ ¬y(bl, TR) ∨ ¬y(br, TL)`` per 2×2 block of free cells."""
    h, w = puzzle.height, puzzle.width
    tl = (np.arange(h - 1)[:, None] * w + np.arange(w - 1)[None, :]).reshape(-1)
    corners = np.stack([tl, tl + 1, tl + w, tl + w + 1], axis=1)
    corners = corners[(lay.ends[corners] < 0).all(axis=1)]
    types = np.array([TYPE_NAMES.index(t) for t in ("BR", "BL", "TR", "TL")])
    return -lay.ytab[corners, types[None, :]]


def encode(puzzle: Puzzle, encoding: str) -> Formula:
    """The formula of ``puzzle`` under ``encoding`` (see the module docstring)."""
    formula, lay = zucker(puzzle)
    if encoding == "acyclic":
        acyclic_clauses(puzzle, lay)
    elif encoding == "zucker-2x2":
        formula.add("no_four_cycles", no_four_cycles(puzzle, lay))
    elif encoding != "zucker":
        raise UserError(f"unknown encoding {encoding!r} for family flow")
    return formula


# -- models -----------------------------------------------------------------------------------
def decode(puzzle: Puzzle, encoding: str, model: np.ndarray) -> Solution:
    """Colours from ``x``, links from the direction types of free cells; an endpoint is linked
    to the neighbours whose links point back at it, and to an adjacent endpoint of its own
    colour. Cells with no or several true variables get colour −1 / no links, for
    :func:`check` to report."""
    lay = _layout(puzzle)
    model = np.asarray(model, dtype=bool)
    xv = model[lay.x]
    colors = np.where(xv.sum(axis=1) == 1, np.argmax(xv, axis=1), -1)
    yv = model[lay.ytab] & (lay.ytab > 0)
    links = np.where(yv.sum(axis=1) == 1, TYPE_MASKS[np.argmax(yv, axis=1)], 0)
    ends = lay.ends
    nb = np.maximum(lay.nb, 0)
    back = (links[nb] >> OPPOSITE) & 1 == 1
    twin = (ends[nb] == ends[:, None]) & (nb != np.arange(ends.size)[:, None])
    joined = (lay.nb >= 0) & (back | twin) & (ends >= 0)[:, None]
    links = np.where(ends >= 0, (joined << np.arange(4)).sum(axis=1), links)
    shape = (puzzle.height, puzzle.width)
    return Solution(colors.reshape(shape), links.reshape(shape))


def assignment(puzzle: Puzzle, encoding: str, solution: Solution) -> np.ndarray:
    """The model of ``encoding`` that the solution stands for (ranks = position along the
    path among free cells)."""
    formula = encode(puzzle, encoding)
    lay = _layout(puzzle)
    model = np.zeros(formula.num_vars + 1, dtype=bool)
    cells = np.arange(lay.ends.size)
    model[lay.x[cells, solution.colors.reshape(-1)]] = True
    mask_type = {int(m): t for t, m in enumerate(TYPE_MASKS)}
    links = solution.links.reshape(-1)
    for cell in lay.free:
        model[lay.ytab[cell, mask_type[int(links[cell])]]] = True
    if encoding == "acyclic" and "rank" in formula.variables:
        _set_ranks(puzzle, lay, formula, solution, model)
    return model


def _set_ranks(puzzle, lay, formula, solution, model) -> None:
    position = np.zeros(lay.ends.size, dtype=np.int64)
    for path in trace_paths(puzzle, solution)[0]:
        inner = [c for c in path if lay.ends[c] < 0]
        position[inner] = np.arange(len(inner))
    nbits = formula.variables["rank"].shape[1]
    bits = (position[:, None] >> np.arange(nbits)) & 1 == 1
    model[formula.var("rank")] = bits[lay.free]
    pairs = _adjacent_free(puzzle, lay)
    xa, xb = bits[pairs[:, 0]], bits[pairs[:, 1]]
    # equal_above[p, j]: bits j.. of a and b agree (cumulative from the top bit down)
    same = np.flip(np.cumprod(np.flip(xa == xb, axis=1), axis=1), axis=1).astype(bool)
    model[formula.var("equal_above")] = same
    above = np.concatenate([same[:, 1:], np.ones((len(pairs), 1), bool)], axis=1)
    less_at = np.stack([~xa & xb & above, xa & ~xb & above], axis=1)
    model[formula.var("less_at")] = less_at
    model[formula.var("less")] = less_at.any(axis=2)


# -- pictures ---------------------------------------------------------------------------------
def render(puzzle: Puzzle, solution: Solution | None = None) -> str:
    """The puzzle in the text format; with a solution, each row's colours and its links."""
    if solution is None:
        return puzzle_to_text(puzzle).rstrip("\n")
    lines = []
    for r in range(puzzle.height):
        colors = "".join(puzzle.labels[u] if 0 <= u < puzzle.num_colors else "?"
                         for u in solution.colors[r].tolist())
        pipes = "".join(PIPES.get(m, "?") for m in solution.links[r].tolist())
        lines.append(f"{colors}  {pipes}".rstrip())
    return "\n".join(lines)


def render_svg(puzzle: Puzzle, solution: Solution | None = None, cell: int = 32) -> str:
    """The grid with endpoints as dots and, with a solution, each path as a thick line."""
    h, w = puzzle.height, puzzle.width
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * cell}" height="{h * cell}" '
           f'viewBox="0 0 {w * cell} {h * cell}">',
           f'<rect width="{w * cell}" height="{h * cell}" fill="#111"/>']
    for r in range(h + 1):
        out.append(f'<line x1="0" y1="{r * cell}" x2="{w * cell}" y2="{r * cell}" '
                   'stroke="#555"/>')
    for c in range(w + 1):
        out.append(f'<line x1="{c * cell}" y1="0" x2="{c * cell}" y2="{h * cell}" '
                   'stroke="#555"/>')

    def centre(index):
        r, c = divmod(index, w)
        return c * cell + cell // 2, r * cell + cell // 2

    if solution is not None:
        for u, path in enumerate(trace_paths(puzzle, solution)[0]):
            points = " ".join("{},{}".format(*centre(i)) for i in path)
            out.append(f'<polyline points="{points}" fill="none" stroke-width="{cell // 3}" '
                       f'stroke-linecap="round" stroke-linejoin="round" '
                       f'stroke="{PALETTE[u % len(PALETTE)]}"/>')
    for index in np.flatnonzero(puzzle.endpoints.reshape(-1) >= 0).tolist():
        u = int(puzzle.endpoints.reshape(-1)[index])
        x, y = centre(index)
        out.append(f'<circle cx="{x}" cy="{y}" r="{cell * 3 // 8}" '
                   f'fill="{PALETTE[u % len(PALETTE)]}"><title>{puzzle.labels[u]}</title>'
                   '</circle>')
    out.append("</svg>")
    return "\n".join(out) + "\n"

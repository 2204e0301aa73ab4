"""Flow Free puzzles and solutions: the data, the article's text format and JSON, and the
puzzle's own rules (:func:`check`), written without looking at any encoding."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.core.grid import OPPOSITE, neighbour_table
from puzzlesat.generator.core.inputs import SMALL_INPUT, read_input
from puzzlesat.generator.core.structured import (
    get_int,
    get_int_rows,
    json_list,
    json_str,
    json_text,
    load_json,
    utf8_text,
)

#: endpoint labels of planted grids, in colour order (the text format allows 62)
LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
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
    #: planted grids drawn until this one was proved unique (0: uniqueness not asked for)
    attempts: int = 0
    #: the solver that proved it unique
    solver: str = ""

    @property
    def height(self) -> int:
        """Rows of the grid."""
        return int(self.endpoints.shape[0])

    @property
    def width(self) -> int:
        """Columns of the grid."""
        return int(self.endpoints.shape[1])

    @property
    def num_colors(self) -> int:
        """The number of colours (endpoint pairs)."""
        return len(self.labels)


# -- reading and writing puzzles ------------------------------------------------------------
def parse_text(text: str) -> Puzzle:
    """A puzzle from the article's text format (rectangles accepted: all rows equally long).

    >>> parse_text("R.G\\n.B.\\nRBG").labels
    'RGB'
    """
    rows = [line.rstrip("\r\n \t") for line in text.splitlines()]
    while rows and not rows[-1]:
        rows.pop()
    return _puzzle_from_rows(rows)


def _puzzle_from_rows(rows: list, name: str = "") -> Puzzle:
    if not rows:
        raise UserError("no rows")
    width = len(rows[0])
    for r, row in enumerate(rows):
        if not isinstance(row, str):
            raise UserError(f"row {r + 1} is not a string")
        if len(row) != width:
            raise UserError(f"ragged rows: row {r + 1} has {len(row)} cells, "
                            f"row 1 has {width}")
        for c, ch in enumerate(row):
            if ch != "." and not (ch.isascii() and ch.isalnum()):
                raise UserError(f"row {r + 1}, column {c + 1}: unknown character "
                                f"{ch!r} (endpoints are letters or digits, '.' is empty)")
    labels = "".join(dict.fromkeys(ch for row in rows for ch in row if ch != "."))
    if not labels:
        raise UserError("no endpoints")
    flat = "".join(rows)
    for ch in labels:
        if flat.count(ch) != 2:
            r, c = divmod(flat.index(ch), width)
            raise UserError(f"endpoint {ch!r} (first at row {r + 1}, column {c + 1}) "
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
    """The puzzle as JSON: width, height and the rows in the text format; and ``labels``, the
    colours in their order, when it is not the order in which the rows first show them (a
    moved endpoint can change that order, and the encodings number colours by it)."""
    data: dict = {"width": puzzle.width, "height": puzzle.height,
                  "rows": [_label_row(puzzle, r) for r in range(puzzle.height)]}
    if _puzzle_from_rows(data["rows"]).labels != puzzle.labels:
        data["labels"] = puzzle.labels
    return data


def puzzle_from_json(data) -> Puzzle:
    """The puzzle from its JSON (rows of the text format; width and height, when given, JSON
    integers that agree with them), or a UserError saying what is wrong."""
    rows = json_list(_field(data, "rows"), "puzzle.rows")
    puzzle = _puzzle_from_rows([json_str(row, f"puzzle.rows[{r}]") for r, row in enumerate(rows)])
    if "labels" in data:
        puzzle = _ordered(puzzle, json_str(data["labels"], "puzzle.labels"))
    for key, got in (("width", puzzle.width), ("height", puzzle.height)):
        said = get_int(data, key, "puzzle", default=None)
        if said is not None and said != got:
            raise UserError(f"puzzle.{key} says {said} but the rows give {got}")
    return puzzle


def _ordered(puzzle: Puzzle, labels: str) -> Puzzle:
    """``puzzle`` with its colours numbered in the order of ``labels`` (the same colours)."""
    if sorted(labels) != sorted(puzzle.labels):
        raise UserError(f"puzzle.labels {labels[:70]!r} are not the colours of the rows "
                        f"({puzzle.labels[:70]!r})")
    index = np.array([labels.index(ch) for ch in puzzle.labels] + [-1], dtype=np.int64)
    return Puzzle(index[puzzle.endpoints], labels, puzzle.name)


def _field(data, key: str):
    if not isinstance(data, dict) or key not in data:
        raise UserError("expected an object with 'width', 'height' and 'rows'")
    return data[key]


def load_puzzle(path: str) -> Puzzle:
    """A level file: JSON when it ends in ``.json``, the article's text format otherwise."""
    data = read_input(path, SMALL_INPUT, "--puzzle")
    if path.lower().endswith(".json"):
        value = load_json(data, path)
        with prefixed(f"{path}: "):
            puzzle = puzzle_from_json(value)
    else:
        text = utf8_text(data, f"--puzzle {path}")
        with prefixed(f"{path}: "):
            puzzle = parse_text(text)
    puzzle.name = Path(path).name.split(".")[0]
    return puzzle


# -- solutions --------------------------------------------------------------------------------
def solution_to_json(solution: Solution) -> dict:
    """The solution as JSON: each cell's colour, and its links as hex digits per row."""
    return {"colors": solution.colors.tolist(),
            "links": ["".join(f"{m:x}" for m in row) for row in solution.links.tolist()]}


def solution_from_json(data) -> Solution:
    """The solution from its JSON: rows of colours (JSON integers, -1 for none) and rows of
    links (one hexadecimal digit a cell), of one shape."""
    colors = np.array(get_int_rows(data, "colors", "solution", lo=-1, hi=len(LABELS) - 1),
                      dtype=np.int64)
    rows = [json_str(row, f"solution.links[{r}]")
            for r, row in enumerate(json_list(_field(data, "links"), "solution.links"))]
    bad = next((r for r, row in enumerate(rows) if not re.fullmatch(r"[0-9a-f]*", row)), None)
    if bad is not None:
        raise UserError(f"solution.links[{bad}] must be hexadecimal digits, got "
                        f"{json_text(rows[bad])}")
    links = np.array([[int(ch, 16) for ch in row] for row in rows], dtype=np.int64)
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


def witness(puzzle: Puzzle) -> Solution | None:
    """The planted solution, or None for a grid read from a file."""
    return puzzle.planted

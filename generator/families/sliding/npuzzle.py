"""Sliding-tile puzzle mechanics, an optimal IDA* solver, and Korf's 24-puzzle traces.

An n×m configuration lists the tile on each square 0..nm−1 row-major; tile 0 is the blank.
The goal is ``0, 1, ..., nm−1`` (blank top-left), the convention of Korf's instance files. A
move swaps the blank with an orthogonal neighbour and is named after the direction the
*blank* moves: ``U``, ``D``, ``L``, ``R``.

Every move is a transposition and moves the blank to a square of the other colour, so a
configuration is solvable exactly when the parity of its permutation equals the parity of the
blank's Manhattan distance to square 0, and its distance has that same parity.

The solver is IDA* (Korf, "Depth-first iterative-deepening: an optimal admissible tree
search", Artificial Intelligence 27 (1985) 97–109) with the Manhattan distance plus linear
conflicts (Hansson, Mayer & Yung, "Criticizing solutions to relaxed models yields powerful
admissible heuristics", Information Sciences 63 (1992) 207–227). The linear-conflict term of a
line is 2·(tiles of that goal line in it − longest increasing run of their goal positions), the
exact minimum number of tiles that must leave the line twice over; both terms are kept
incrementally, a move touching one Manhattan entry and two line codes.

>>> start = replay(goal(3, 3), 3, 3, "RDDL")[-1]
>>> start
(1, 4, 2, 3, 7, 5, 0, 6, 8)
>>> result = ida_star(start, 3, 3)
>>> result.distance, result.path
(4, 'RUUL')
>>> replay(start, 3, 3, result.path)[-1] == goal(3, 3)
True
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.grid import neighbour_table

MOVES = "UDLR"
#: the move that undoes each move
INVERSE = {"U": "D", "D": "U", "L": "R", "R": "L"}
#: (row step, column step) of the blank per move
STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
#: column of each move (in MOVES order) in puzzlesat.generator.core.grid.neighbour_table (N E S W)
MOVE_DIRECTIONS = [0, 2, 3, 1]


# -- configurations -------------------------------------------------------------------------
def goal(rows: int, cols: int) -> tuple[int, ...]:
    """The solved board: tiles in order, the blank (0) first."""
    return tuple(range(rows * cols))


def solvable(config: Sequence[int], rows: int, cols: int) -> bool:
    """Permutation parity equals the parity of the blank's distance to square 0.

    >>> solvable((1, 0, 2, 3), 2, 2), solvable((0, 2, 1, 3), 2, 2)
    (True, False)
    """
    seen = [False] * len(config)
    transpositions = 0
    for i in range(len(config)):
        length = 0
        j = i
        while not seen[j]:
            seen[j] = True
            j = config[j]
            length += 1
        transpositions += max(length - 1, 0)
    return transpositions % 2 == distance_parity(config, cols)


def distance_parity(config: Sequence[int], cols: int) -> int:
    """The parity every solution length of ``config`` has (the blank's square colour)."""
    r, c = divmod(list(config).index(0), cols)
    return (r + c) % 2


def check_config(config: Sequence[int], rows: int, cols: int) -> tuple:
    """``config`` as a tuple, or a UserError saying what is wrong with it."""
    n = rows * cols
    config = tuple(int(t) for t in config)
    if len(config) != n:
        raise UserError(f"{rows}x{cols} board needs {n} tiles, got {len(config)}")
    if sorted(config) != list(range(n)):
        missing = sorted(set(range(n)) - set(config))
        raise UserError(f"not a permutation of 0..{n - 1} (missing "
                        f"{', '.join(map(str, missing))})")
    if not solvable(config, rows, cols):
        raise UserError("unsolvable configuration (its permutation parity does not "
                        "match the blank's square colour)")
    return config


def move(config: tuple, rows: int, cols: int, letter: str) -> tuple | None:
    """The configuration after one move, or None when the move leaves the board."""
    blank = config.index(0)
    r, c = divmod(blank, cols)
    dr, dc = STEP[letter]
    if not (0 <= r + dr < rows and 0 <= c + dc < cols):
        return None
    target = (r + dr) * cols + c + dc
    out = list(config)
    out[blank], out[target] = out[target], 0
    return tuple(out)


def replay(config: tuple, rows: int, cols: int, moves: str) -> list[tuple]:
    """All configurations along ``moves`` (start included); ValueError on an illegal move."""
    states = [tuple(config)]
    for i, letter in enumerate(moves):
        if letter not in STEP:
            raise ValueError(f"move {i + 1}: unknown move {letter!r}")
        nxt = move(states[-1], rows, cols, letter)
        if nxt is None:
            raise ValueError(f"move {i + 1}: {letter} takes the blank off the board")
        states.append(nxt)
    return states


def moves_from_squares(config: tuple, cols: int, squares: Sequence[int]) -> str:
    """Korf-file paths list the squares the blank moves into; turn them into letters."""
    by_delta = {-cols: "U", cols: "D", -1: "L", 1: "R"}
    blank = config.index(0)
    out = []
    for square in squares:
        letter = by_delta.get(square - blank)
        if letter is None or (letter in "LR" and square // cols != blank // cols):
            raise ValueError(f"square {square} is not next to the blank at {blank}")
        out.append(letter)
        blank = square
    return "".join(out)


def random_walk(rows: int, cols: int, length: int, rng) -> str:
    """``length`` random legal moves from the goal that never undo the previous move."""
    r = c = 0
    out: list[str] = []
    for _ in range(length):
        options = [m for m in MOVES
                   if 0 <= r + STEP[m][0] < rows and 0 <= c + STEP[m][1] < cols
                   and not (out and INVERSE[m] == out[-1])]
        letter = rng.choice(options)
        r, c = r + STEP[letter][0], c + STEP[letter][1]
        out.append(letter)
    return "".join(out)


def _line_conflict_table(length: int) -> list[int]:
    """LC value of every line code: digit j (base length+1) is 1 + the goal position within
    the line of the tile on position j when that tile belongs to this line, else 0."""
    base = length + 1
    table = []
    for code in range(base ** length):
        goals = []
        for _ in range(length):
            code, digit = divmod(code, base)
            if digit:
                goals.append(digit)
        table.append(2 * (len(goals) - _longest_increasing(goals)))
    return table


def _longest_increasing(values: list[int]) -> int:
    best = [1] * len(values)
    for i in range(len(values)):
        for j in range(i):
            if values[j] < values[i]:
                best[i] = max(best[i], best[j] + 1)
    return max(best, default=0)


#: the widest board IDA* searches: its linear-conflict tables hold (side + 1)^side entries,
#: made in about 2 s for a side of 6 here, 30 s for 7, hours for 9
MAX_SEARCH_SIDE = 6


@functools.cache
def _tables(rows: int, cols: int):
    """Per-board lookup tables of the incremental heuristic."""
    n = rows * cols
    manhattan = [[0] * n] + [
        [abs(t // cols - s // cols) + abs(t % cols - s % cols) for s in range(n)]
        for t in range(1, n)]
    # contribution of tile t on square s to the code of the row / column through s
    row_part = [[((t % cols) + 1) * (cols + 1) ** (s % cols)
                 if t and t // cols == s // cols else 0 for s in range(n)] for t in range(n)]
    col_part = [[((t // cols) + 1) * (rows + 1) ** (s // cols)
                 if t and t % cols == s % cols else 0 for s in range(n)] for t in range(n)]
    table = neighbour_table(rows, cols)[:, MOVE_DIRECTIONS].tolist()
    neighbours = [tuple((m, t) for m, t in enumerate(row) if t >= 0) for row in table]
    return (manhattan, row_part, col_part, _line_conflict_table(cols),
            _line_conflict_table(rows), tuple(neighbours))


def heuristic(config: Sequence[int], rows: int, cols: int) -> int:
    """Manhattan distance + linear conflicts, computed from scratch (the reference for the
    solver's incremental bookkeeping).

    >>> heuristic((0, 2, 1, 3, 4, 5, 6, 7, 8), 3, 3)  # tiles 2 and 1 swapped in row 0
    4
    """
    manhattan, row_part, col_part, row_lc, col_lc, _ = _tables(rows, cols)
    h = sum(manhattan[t][s] for s, t in enumerate(config))
    for r in range(rows):
        h += row_lc[sum(row_part[config[s]][s] for s in range(r * cols, (r + 1) * cols))]
    for c in range(cols):
        h += col_lc[sum(col_part[config[s]][s] for s in range(c, rows * cols, cols))]
    return h


# -- IDA* -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SearchResult:
    """``distance`` and an optimal ``path`` when proved; otherwise None and the best proved
    ``lower_bound`` (every bound below it was searched exhaustively)."""

    distance: int | None
    path: str | None
    lower_bound: int
    nodes: int


class _NodeLimit(Exception):
    pass


def ida_star(config: Sequence[int], rows: int, cols: int,
             node_limit: int | None = None) -> SearchResult:
    """Optimal solution of a solvable configuration by IDA* (Manhattan + linear conflicts).

    ``node_limit`` bounds the expanded nodes; when it is hit the result carries only the lower
    bound proved so far.
    """
    manhattan, row_part, col_part, row_lc, col_lc, neighbours = _tables(rows, cols)
    board = list(config)
    row_of = [s // cols for s in range(rows * cols)]
    col_of = [s % cols for s in range(rows * cols)]
    row_code = [sum(row_part[board[s]][s] for s in range(r * cols, (r + 1) * cols))
                for r in range(rows)]
    col_code = [sum(col_part[board[s]][s] for s in range(c, rows * cols, cols))
                for c in range(cols)]
    undo = (1, 0, 3, 2, -1)  # index of the inverse move; -1: nothing to undo at the root
    path: list[int] = []
    nodes = 0
    limit = node_limit if node_limit is not None else -1
    bound = 0
    next_bound = 0

    def search(blank: int, g: int, h: int, previous: int) -> bool:
        nonlocal nodes, next_bound
        nodes += 1
        if nodes == limit:
            raise _NodeLimit
        if h == 0:
            return True
        forbidden = undo[previous]
        for letter, square in neighbours[blank]:
            if letter == forbidden:
                continue
            tile = board[square]
            if letter < 2:  # vertical: the tile changes row; in its column only its digit moves
                a, b, line = row_of[square], row_of[blank], col_of[blank]
                lines, table, other = row_code, row_lc, col_code
                part, other_part = row_part[tile], col_part[tile]
            else:  # horizontal: the tile changes column; in its row only its digit moves
                a, b, line = col_of[square], col_of[blank], row_of[blank]
                lines, table, other = col_code, col_lc, row_code
                part, other_part = col_part[tile], row_part[tile]
            old_a, old_b, old_line = lines[a], lines[b], other[line]
            new_a = old_a - part[square]
            new_b = old_b + part[blank]
            h2 = (h + manhattan[tile][blank] - manhattan[tile][square]
                  + table[new_a] - table[old_a] + table[new_b] - table[old_b])
            f = g + 1 + h2
            if f > bound:
                if f < next_bound:
                    next_bound = f
                continue
            board[blank], board[square] = tile, 0
            lines[a], lines[b] = new_a, new_b
            other[line] = old_line - other_part[square] + other_part[blank]
            path.append(letter)
            if search(square, g + 1, h2, letter):
                return True
            path.pop()
            board[blank], board[square] = 0, tile
            lines[a], lines[b], other[line] = old_a, old_b, old_line
        return False

    h0 = heuristic(config, rows, cols)
    bound = h0
    try:
        while True:
            next_bound = 1 << 30
            if search(board.index(0), 0, h0, 4):
                return SearchResult(bound, "".join(MOVES[i] for i in path), bound, nodes)
            bound = next_bound
    except _NodeLimit:
        return SearchResult(None, None, bound, nodes)


# -- Korf's 24-puzzle traces ------------------------------------------------------------------
@dataclass(frozen=True)
class Trace:
    """An optimal solution path of a 24-puzzle instance (``moves`` from ``start`` to goal)."""

    name: str
    start: tuple
    moves: str

    @property
    def length(self) -> int:
        """The number of moves."""
        return len(self.moves)

    def truncation(self, k: int) -> tuple[tuple, str]:
        """The configuration ``k`` moves from the goal on this trace, and those ``k`` moves."""
        if not 0 <= k <= self.length:
            raise UserError(f"--k: trace {self.name} is {self.length} moves long, "
                            f"k must be in 0..{self.length}, got {k}")
        cut = self.length - k
        return replay(self.start, 5, 5, self.moves[:cut])[-1], self.moves[cut:]


def _data(name: str) -> str:
    return resources.files("puzzlesat.generator").joinpath("data", "korf24", name).read_text()


def parse_paths(text: str, source: str, prefix: str) -> list[Trace]:
    """The traces of an optimal-paths file (lines ``configuration length nodes path``), each
    path replayed and checked; a ValueError names the line that is wrong."""
    out: list[Trace] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        config_text, length, _nodes, squares = line.split()
        start = tuple(int(t) for t in config_text.split(","))
        where = f"{source} line {number}"
        try:
            moves = moves_from_squares(start, 5, [int(s) for s in squares.split(",")])
            end = replay(start, 5, 5, moves)[-1]
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        if end != goal(5, 5) or len(moves) != int(length):
            raise ValueError(f"{where}: path of {len(moves)} moves does not reach the goal in "
                             f"the stated {length}")
        out.append(Trace(f"{prefix}{len(out) + 1}", start, moves))
    return out


@functools.cache
def korf_traces() -> tuple[Trace, ...]:
    """Korf & Felner's 50 instances in Korf's numbering, each with a validated optimal path."""
    by_start = {t.start: t for t in parse_paths(_data("korf-optimal-paths.txt"),
                                                 "korf-optimal-paths.txt", "")}
    out: list[Trace] = []
    for line in _data("korf.txt").splitlines():
        words = line.split()
        if len(words) != 4 or not words[0].isdigit():
            continue  # title and column heads
        number, start, length = int(words[0]), tuple(map(int, words[1].split(","))), int(words[2])
        trace = by_start[start]
        if trace.length != length or number != len(out) + 1:
            raise ValueError(f"korf.txt instance {number} disagrees with its optimal path")
        out.append(Trace(f"korf{number}", start, trace.moves))
    return tuple(out)


@functools.cache
def random_traces() -> tuple[Trace, ...]:
    """The 386 further random 24-puzzle instances with validated optimal paths, file order."""
    return tuple(parse_paths(_data("random400-optimal-paths.txt"),
                              "random400-optimal-paths.txt", "random"))

"""Sliding-tile puzzles: can this n×m configuration reach the goal in exactly ``budget`` moves?

Reproduces the benchmark family of Clausecker & Kaiser, "Sliding Puzzles", Proceedings of SAT
Competition 2021, p. 57: Korf's 24-puzzle instance 50 (optimal length 113) truncated along its
optimal trace to the configuration at distance k, with budget k (SAT, the rest of the trace is
the witness) and k−2 (UNSAT, the trace's optimality is the certificate); budget k−1 is UNSAT by
parity alone. Puzzle mechanics, the IDA* solver that certifies other starts, and the Korf data
live in :mod:`puzzlesat.generator.families.sliding.npuzzle`. Configurations list the tile per square row-major, 0 = blank,
goal ``0..nm−1``; moves U/D/L/R name the direction the blank moves.

Encoding ``rotated`` (the paper's, rebuilt from its description) and ``rotated-onehot``
  Configuration t (t = 0..K, K = budget) is stored cyclically shifted so the blank sits at
  cell (0,0): ``R_t[i][j]`` = tile on real cell ((r+i) mod n, (c+j) mod m) for the blank at
  (r,c). Variables, in this order:

  * ``tile[t, cell, bit]`` for the nm−1 cells other than (0,0): the tile number in B bits,
    binary (B = ⌈log2 nm⌉, least significant bit first) or one-hot over tiles 1..nm−1
    (B = nm−1);
  * ``u[t, a]``, ``v[t, b]``: one-hot, the real top-left cell lands on row a = (−r) mod n and
    column b = (−c) mod m of the rotated frame;
  * ``move[t, 2]``: the move of step t as a 2-bit code, U=00 D=01 L=10 R=11 (bit 0 first),
    so a move and its inverse differ in bit 0 only.

  The state vector of step t is ``tile[t]`` (row-major cells, then bits), ``u[t]``, ``v[t]``:
  W = (nm−1)B + n + m variables. In the rotated frame every move is one fixed permutation of
  the state vector, wherever the blank is. Clause groups:

  * ``start`` / ``goal``: W unit clauses each fixing step 0 and step K;
  * ``move_legality``: per step and move, (¬move ∨ ¬edge) with edge u[0] for U, u[1] for D,
    v[0] for L, v[1] for R (the blank on the border it would cross): 4K clauses of 3 literals;
  * ``state_transition``: per step, move and state variable x, next x equals the moved
    source: (¬move ∨ ¬x' ∨ src) and (¬move ∨ x' ∨ ¬src): 8KW clauses of 4 literals;
  * ``no_undo`` (``--no-undo``): (¬move_t=d ∨ ¬move_t+1=inverse(d)): 4(K−1) clauses.

  On 5×5, W = 24B + 10 and the counts are vars = (K+1)(24B+10) + 2K, clauses =
  4K(48B+21) + 2(24B+10): K = 30, binary → 4,090 / 31,580, exactly the spec's numbers.

Encoding ``direct`` (planning as satisfiability, Kautz & Selman 1992: the classical baseline)
  ``at[t, s, tile]`` one-hot tile-at-square per step and ``go[t, e]`` for the directed edges e
  (blank from square s to neighbour s', ordered by s, then U D L R). Clause groups: ``start``
  and ``goal`` units (nm each, positive), ``square_at_most_one`` (pairwise over tiles, per step
  and square), ``some_move`` (one clause per step), ``one_move_per_square`` (pairwise over the
  moves leaving a square; moves from different squares exclude each other through the
  precondition and the unique blank), ``move_precondition`` (go → blank on s),
  ``move_effects`` (go → blank on s'; go ∧ tile on s' → tile on s), ``frame`` (a tile leaves a
  square only if a move touches it) and ``no_undo``.

Once the move bits are fixed every other variable follows by unit propagation in both
encodings; the formula is satisfiable iff a legal sequence of exactly K moves reaches the goal.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

from puzzlesat.generator.core.cnf import Formula, pairwise_at_most_one
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.grid import neighbour_table
from puzzlesat.generator.families import Param
from puzzlesat.generator.families.sliding import npuzzle
from puzzlesat.generator.families.sliding.estimate import estimate  # noqa: F401  (contract)

NAME = "sliding"
SUMMARY = "n×m sliding-tile puzzles in exactly B moves; Korf 24-puzzle trace truncations"
STORY = (
    "Sliding-tile puzzles: an n×m tray of numbered tiles and one blank; a move slides a tile "
    "into the blank, and the question is whether the goal order is reached in exactly the "
    "given number of moves. Following Clausecker and Kaiser (SAT Competition 2021), "
    "configurations are cut from optimal solution traces of Korf's 24-puzzle instances: the "
    "configuration k moves before the goal is at distance exactly k, so budget k is "
    "satisfiable (the rest of the trace is the witness) and budget k−2 is unsatisfiable (the "
    "trace's optimality is the certificate). The default encoding stores each configuration in "
    "a frame rotated so the blank is top-left, where every move is a fixed permutation of "
    "binary tile numbers; a one-hot variant and the classical tile-at-square planning "
    "encoding are offered for comparison. Other starts are certified by an optimal IDA* "
    "search (Manhattan distance plus linear conflicts).")
REFERENCES = (
    {"type": "conference-paper", "title": "Sliding Puzzles",
     "authors": [{"family-names": "Clausecker", "given-names": "Robert"},
                 {"family-names": "Kaiser", "given-names": "Benjamin"}],
     "collection-title": "Proceedings of SAT Competition 2021", "year": 2021, "start": 57},
    {"type": "article", "title": "Disjoint pattern database heuristics",
     "authors": [{"family-names": "Korf", "given-names": "Richard E."},
                 {"family-names": "Felner", "given-names": "Ariel"}],
     "journal": "Artificial Intelligence", "volume": 134, "year": 2002, "start": 9, "end": 22},
    {"type": "article",
     "title": "Depth-first iterative-deepening: an optimal admissible tree search",
     "authors": [{"family-names": "Korf", "given-names": "Richard E."}],
     "journal": "Artificial Intelligence", "volume": 27, "year": 1985, "start": 97, "end": 109},
    {"type": "article",
     "title": "Criticizing solutions to relaxed models yields powerful admissible heuristics",
     "authors": [{"family-names": "Hansson", "given-names": "Othar"},
                 {"family-names": "Mayer", "given-names": "Andrew"},
                 {"family-names": "Yung", "given-names": "Moti"}],
     "journal": "Information Sciences", "volume": 63, "year": 1992, "start": 207, "end": 227},
)
HARDNESS_PARAM = "k"

PARAMS = (
    Param("rows", int, None, "Board rows (5 for Korf traces; inferred for a square --start).",
          minimum=2),
    Param("cols", int, None, "Board columns.", minimum=2),
    Param("korf", int, None, "Korf & Felner 24-puzzle instance number (1..50).", minimum=1),
    Param("random_trace", int, None, "One of the 386 further optimal 24-puzzle traces (1..386).",
          minimum=1),
    Param("k", int, None, "Distance along the trace: start k moves before the goal "
          "[default: the whole trace].", minimum=0),
    Param("start", "ints", None, "Start configuration: tile per square row-major, 0 = blank."),
    Param("walk", int, None, "Start = random walk of this many moves from the goal (seeded).",
          minimum=0),
    Param("budget", int, None, "Number of moves [default: k, or the proved distance].",
          minimum=0),
    Param("no_undo", bool, False, "Forbid a move that undoes the previous one."),
    Param("node_limit", int, 5_000_000, "IDA* node limit when certifying a --start/--walk.",
          minimum=1),
)

ENCODINGS = {
    "rotated": "rotated frame, blank at (0,0), binary tile numbers, 2 move bits per step",
    "rotated-onehot": "rotated frame with one-hot tile numbers",
    "direct": "one-hot tile-at-square per step with explicit move and frame axioms",
}

#: the cell the blank crosses out of for each move: (vector, index) whose truth forbids it
_BORDER = {"U": ("u", 0), "D": ("u", 1), "L": ("v", 0), "R": ("v", 1)}
#: bits of each move code (bit 0, bit 1), MOVES order U D L R
_CODE_BITS = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=np.int64)


# -- puzzle and solution ----------------------------------------------------------------------
@dataclass(frozen=True)
class Puzzle:
    rows: int
    cols: int
    start: tuple
    budget: int
    no_undo: bool
    distance: int | None  # proved distance of start, when known
    lower_bound: int  # proved lower bound on the distance
    path: str | None  # an optimal path from start (the trace suffix or IDA*'s), when known
    source: str  # where distance / lower bound come from: optimal-trace or ida*
    origin: str  # e.g. "korf50 k=30", "start", "walk 40"


@dataclass(frozen=True)
class Solution:
    moves: str


def puzzle_to_json(p: Puzzle) -> dict:
    return {"rows": p.rows, "cols": p.cols, "start": list(p.start), "budget": p.budget,
            "no_undo": p.no_undo, "distance": p.distance, "lower_bound": p.lower_bound,
            "path": p.path, "source": p.source, "origin": p.origin}


def puzzle_from_json(d: dict) -> Puzzle:
    rows, cols = int(d["rows"]), int(d["cols"])
    return Puzzle(rows, cols, npuzzle.check_config(d["start"], rows, cols, "puzzle start"),
                  int(d["budget"]), bool(d["no_undo"]),
                  None if d["distance"] is None else int(d["distance"]), int(d["lower_bound"]),
                  d["path"], str(d["source"]), str(d["origin"]))


def solution_to_json(s: Solution) -> dict:
    return {"moves": s.moves}


def solution_from_json(d: dict) -> Solution:
    return Solution(str(d["moves"]))


# -- generation -------------------------------------------------------------------------------
def uses_seed(params: dict) -> bool:
    return "walk" in params


def _source_of(params: dict) -> str:
    given = [k for k in ("korf", "random_trace", "start", "walk") if k in params]
    if len(given) != 1:
        raise UserError("give exactly one of --korf, --random-trace, --start, --walk"
                        + (f" (got {', '.join('--' + g.replace('_', '-') for g in given)})"
                           if given else ""))
    return given[0]


def instance_name(params: dict, draw: str | None, encoding: str) -> str:
    source = _source_of(params)
    budget = f"b{params['budget']}" if "budget" in params else "bd"
    if source in ("korf", "random_trace"):
        what = f"{source.replace('_trace', '')}{params[source]}"
        if "k" in params:
            what += f"-k{params['k']}"
    else:
        size = f"{params.get('rows', '')}x{params.get('cols', '')}"
        if source == "walk":
            what = f"{size}-walk{params['walk']}-{draw}"
        else:
            digest = hashlib.sha256(",".join(map(str, params["start"])).encode()).hexdigest()
            what = f"{size}-{digest[:8]}" if "rows" in params else f"n{len(params['start'])}-{digest[:8]}"
    undo = "-nu" if params.get("no_undo") else ""
    return f"sliding-{what}-{budget}{undo}-{encoding}"


def generate(params: dict, rng) -> Puzzle:
    source = _source_of(params)
    if source in ("korf", "random_trace"):
        return _from_trace(params, source)
    if "k" in params:
        raise UserError("--k applies to --korf and --random-trace only")
    if source == "start":
        rows, cols = _board_of_start(params)
        start = npuzzle.check_config(params["start"], rows, cols, "--start")
        origin = "start"
    else:
        rows, cols = params.get("rows", 5), params.get("cols", 5)
        start = npuzzle.replay(npuzzle.goal(rows, cols), rows, cols,
                               npuzzle.random_walk(rows, cols, params["walk"], rng))[-1]
        origin = f"walk {params['walk']}"
    result = npuzzle.ida_star(start, rows, cols, params["node_limit"])
    budget = params.get("budget", result.distance)
    if budget is None:
        raise UserError(f"--budget: no default, IDA* did not prove the distance within "
                        f"--node-limit {params['node_limit']} (distance ≥ {result.lower_bound})")
    return Puzzle(rows, cols, start, budget, params["no_undo"], result.distance,
                  result.lower_bound, result.path, "ida*", origin)


def _board_of_start(params: dict) -> tuple[int, int]:
    n = len(params["start"])
    if "rows" in params or "cols" in params:
        rows = params.get("rows") or n // params["cols"]
        cols = params.get("cols") or n // params["rows"]
        return rows, cols
    side = math.isqrt(n)
    if side * side != n or side < 2:
        raise UserError(f"--start: {n} tiles is not a square board; give --rows and --cols")
    return side, side


def _from_trace(params: dict, source: str) -> Puzzle:
    if params.get("rows", 5) != 5 or params.get("cols", 5) != 5:
        raise UserError(f"--{source.replace('_', '-')}: the traces are 24-puzzle (5x5) traces")
    traces = npuzzle.korf_traces() if source == "korf" else npuzzle.random_traces()
    number = params[source]
    if number > len(traces):
        raise UserError(f"--{source.replace('_', '-')}: unknown instance {number} "
                        f"(known: 1..{len(traces)})")
    trace = traces[number - 1]
    k = params.get("k", trace.length)
    start, rest = trace.truncation(k)
    return Puzzle(5, 5, start, params.get("budget", k), params["no_undo"], k, k, rest,
                  "optimal-trace", f"{trace.name} k={k}")


# -- known answer -----------------------------------------------------------------------------
#: with --no-undo, 12 moves around the 2x2 block at the goal's blank restore the goal without
#: undoing a move; the loop is chosen so its first move does not undo the trace's last move
_NO_UNDO_LOOPS = ("RDLU" * 3, "DRUL" * 3)


def expected(puzzle: Puzzle, params: dict, certify=None) -> tuple[str, str]:
    parity = npuzzle.distance_parity(puzzle.start, puzzle.cols)
    if (puzzle.budget - parity) % 2:
        return "UNSAT", "parity"
    if puzzle.budget < puzzle.lower_bound:
        return "UNSAT", puzzle.source
    if witness(puzzle) is not None:
        return "SAT", puzzle.source
    return "UNKNOWN", "none"


def check_certificate(puzzle: Puzzle, source: str) -> tuple[bool, str] | None:
    """None: sliding has no solver-free certificate the validator checks (its "parity" UNSAT stays unchecked)."""
    return None


def witness(puzzle: Puzzle) -> Solution | None:
    """The optimal path padded to the budget: with a move and its inverse, or (--no-undo)
    with 12-move loops; None when the budget is not reachable that way."""
    if puzzle.path is None or puzzle.budget < len(puzzle.path):
        return None
    extra = puzzle.budget - len(puzzle.path)
    if extra % 2:
        return None
    if not puzzle.no_undo:
        pad = ("RL" if puzzle.cols > 1 else "DU") * (extra // 2)
    elif extra % 12 == 0:
        loop = _NO_UNDO_LOOPS[1] if puzzle.path.endswith("L") else _NO_UNDO_LOOPS[0]
        pad = loop * (extra // 12)
    else:
        return None
    return Solution(puzzle.path + pad)


def check(puzzle: Puzzle, solution: Solution) -> list[str]:
    """The puzzle's rules, independent of any encoding."""
    moves = solution.moves
    errors = []
    if len(moves) != puzzle.budget:
        errors.append(f"{len(moves)} moves, the budget is exactly {puzzle.budget}")
    try:
        end = npuzzle.replay(puzzle.start, puzzle.rows, puzzle.cols, moves)[-1]
    except ValueError as exc:
        return errors + [str(exc)]
    if end != npuzzle.goal(puzzle.rows, puzzle.cols):
        errors.append("the moves do not end in the goal configuration")
    if puzzle.no_undo:
        undone = [i + 2 for i in range(len(moves) - 1) if npuzzle.INVERSE[moves[i]] == moves[i + 1]]
        if undone:
            errors.append(f"move {undone[0]} undoes the previous move (--no-undo)")
    return errors


# -- rotated-frame encoding -------------------------------------------------------------------
def tile_bits(rows: int, cols: int, onehot: bool) -> int:
    n = rows * cols
    return n - 1 if onehot else max(1, math.ceil(math.log2(n)))


def rotated_state(config, rows: int, cols: int, onehot: bool) -> np.ndarray:
    """The bool state vector of a configuration: rotated-frame tile bits, then u, then v."""
    board = np.asarray(config, dtype=np.int64).reshape(rows, cols)
    r, c = divmod(int(np.argmax(board.reshape(-1) == 0)), cols)
    rotated = np.roll(board, (-r, -c), axis=(0, 1)).reshape(-1)[1:]
    width = tile_bits(rows, cols, onehot)
    if onehot:
        tiles = rotated[:, None] == np.arange(1, rows * cols)[None, :]
    else:
        tiles = (rotated[:, None] >> np.arange(width)[None, :]) & 1
    u = np.arange(rows) == (-r) % rows
    v = np.arange(cols) == (-c) % cols
    return np.concatenate([tiles.reshape(-1).astype(bool), u, v])


def move_sources(rows: int, cols: int, width: int) -> np.ndarray:
    """``(4, W)``: for each move (U D L R) the state position each next-state position copies.

    After the blank steps by (dr, dc), rotated cell (i, j) shows rotated cell
    (i+dr, j+dc) of before, except the blank's old cell (i, j) = (−dr, −dc), which now holds
    the tile that was on (dr, dc); u and v shift by dr and dc.
    """
    n = rows * cols
    i, j = np.divmod(np.arange(1, n), cols)
    out = []
    for letter in npuzzle.MOVES:
        dr, dc = npuzzle.STEP[letter]
        old_blank = (i == (-dr) % rows) & (j == (-dc) % cols)
        src = np.where(old_blank, (dr % rows) * cols + dc % cols,
                       ((i + dr) % rows) * cols + (j + dc) % cols) - 1
        tiles = (src[:, None] * width + np.arange(width)[None, :]).reshape(-1)
        u = (n - 1) * width + (np.arange(rows) + dr) % rows
        v = (n - 1) * width + rows + (np.arange(cols) + dc) % cols
        out.append(np.concatenate([tiles, u, v]))
    return np.stack(out)


def _rotated_vars(f: Formula, puzzle: Puzzle, width: int) -> tuple[np.ndarray, np.ndarray]:
    """State vectors ``(K+1, W)`` and move bits ``(K, 2)``, allocated in the documented order."""
    steps = puzzle.budget
    tiles = f.new_vars("tile", steps + 1, puzzle.rows * puzzle.cols - 1, width)
    u = f.new_vars("u", steps + 1, puzzle.rows)
    v = f.new_vars("v", steps + 1, puzzle.cols)
    moves = f.new_vars("move", steps, 2)
    return np.concatenate([tiles.reshape(steps + 1, -1), u, v], axis=1), moves


def _not_move(moves: np.ndarray) -> np.ndarray:
    """``(K, 4, 2)``: the two literals of (¬ move t is code d), per step and code."""
    return np.where(_CODE_BITS[None, :, :] == 1, -moves[:, None, :], moves[:, None, :])


def state_units(state: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.where(values, state, -state)[:, None]


def encode(puzzle: Puzzle, encoding: str) -> Formula:
    if encoding == "direct":
        return _encode_direct(puzzle)
    return _encode_rotated(puzzle, onehot=encoding == "rotated-onehot")


def _border_positions(rows: int, cols: int, width: int) -> np.ndarray:
    """State positions of u[0], u[1], v[0], v[1]: the borders U, D, L, R cannot cross."""
    base = (rows * cols - 1) * width
    return np.array([base, base + 1, base + rows, base + rows + 1])


def _encode_rotated(puzzle: Puzzle, onehot: bool) -> Formula:
    rows, cols = puzzle.rows, puzzle.cols
    width = tile_bits(rows, cols, onehot)
    f = Formula()
    state, moves = _rotated_vars(f, puzzle, width)
    not_move = _not_move(moves)
    f.add("start", state_units(state[0], rotated_state(puzzle.start, rows, cols, onehot)))
    f.add("goal", state_units(state[-1], rotated_state(npuzzle.goal(rows, cols), rows, cols,
                                                       onehot)))
    border = state[:-1, _border_positions(rows, cols, width)]  # (K, 4)
    f.add("move_legality", np.concatenate([not_move, -border[:, :, None]], axis=2).reshape(-1, 3))
    f.add("state_transition", _state_transition(state, not_move, move_sources(rows, cols, width)))
    if puzzle.no_undo:
        f.add("no_undo", np.concatenate([not_move[:-1], not_move[1:, [1, 0, 3, 2]]],
                                        axis=2).reshape(-1, 4))
    return f


def _state_transition(state: np.ndarray, not_move: np.ndarray, sources: np.ndarray) -> np.ndarray:
    """(¬move ∨ ¬x' ∨ src) and (¬move ∨ x' ∨ ¬src) for every step, move and state position."""
    nxt = state[1:, None, :]  # (K, 1, W)
    src = state[:-1][:, sources]  # (K, 4, W)
    nxt = np.broadcast_to(nxt, src.shape)
    pattern = np.broadcast_to(not_move[:, :, None, :], src.shape + (2,))
    pair = np.stack([np.stack([-nxt, src], -1), np.stack([nxt, -src], -1)], axis=3)
    lits = np.concatenate([np.broadcast_to(pattern[:, :, :, None, :], pair.shape), pair], axis=4)
    return lits.reshape(-1, 4)


# -- direct encoding --------------------------------------------------------------------------
def directed_edges(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Blank moves as (from square, to square, move index), ordered by square then U D L R."""
    table = neighbour_table(rows, cols)[:, npuzzle.MOVE_DIRECTIONS]
    square, letter = np.nonzero(table >= 0)
    return square, table[square, letter], letter


def _direct_vars(f: Formula, puzzle: Puzzle) -> tuple[np.ndarray, np.ndarray]:
    n, steps = puzzle.rows * puzzle.cols, puzzle.budget
    at = f.new_vars("at", steps + 1, n, n)
    go = f.new_vars("go", steps, len(directed_edges(puzzle.rows, puzzle.cols)[0]))
    return at, go


def _encode_direct(puzzle: Puzzle) -> Formula:
    rows, cols, steps = puzzle.rows, puzzle.cols, puzzle.budget
    n = rows * cols
    f = Formula()
    at, go = _direct_vars(f, puzzle)
    frm, to, _ = directed_edges(rows, cols)
    squares = np.arange(n)
    f.add("start", at[0, squares, list(puzzle.start)][:, None])
    f.add("goal", at[steps, squares, squares][:, None])
    f.add("square_at_most_one", pairwise_at_most_one(at.reshape(-1, n)))
    f.add("some_move", go)
    leaving = _with_absent(go)[:, _edges_by_square(frm, n)]
    f.add("one_move_per_square", pairwise_at_most_one(leaving.reshape(-1, 4)))
    f.add("move_precondition", np.stack([-go, at[:-1][:, frm, 0]], axis=-1).reshape(-1, 2))
    f.add("move_effects", _move_effects(at, go, frm, to))
    f.add("frame", _frame(at, go, frm, to))
    if puzzle.no_undo:
        reverse = _reverse_edges(frm, to)
        f.add("no_undo", np.stack([-go[:-1], -go[1:, reverse]], axis=-1).reshape(-1, 2))
    return f


def _edges_by_square(frm: np.ndarray, n: int) -> np.ndarray:
    """``(n, 4)`` edge indices leaving each square, padded with ``len(frm)``: the absent
    column of :func:`_with_absent`."""
    table = np.full((n, 4), len(frm))
    slot = np.arange(len(frm)) - np.searchsorted(frm, frm)
    table[frm, slot] = np.arange(len(frm))
    return table


def _with_absent(go: np.ndarray) -> np.ndarray:
    """``go`` with an extra all-zero column, so padded edge indices select no literal."""
    return np.concatenate([go, np.zeros((go.shape[0], 1), dtype=go.dtype)], axis=1)


def _reverse_edges(frm: np.ndarray, to: np.ndarray) -> np.ndarray:
    key = {(int(a), int(b)): e for e, (a, b) in enumerate(zip(frm, to))}
    return np.array([key[int(b), int(a)] for a, b in zip(frm, to)])


def _move_effects(at, go, frm, to) -> np.ndarray:
    """go → blank on s' (the target); go ∧ tile v on s' → tile v on s (v = 1..nm−1)."""
    steps, edges = go.shape
    n = at.shape[1]
    blank_moves = np.stack([-go, at[1:][:, to, 0]], axis=-1)  # (K, E, 2)
    tiles = np.arange(1, n)
    tile_moves = np.stack([
        np.broadcast_to(-go[:, :, None], (steps, edges, n - 1)),
        -at[:-1][:, to][:, :, tiles],
        at[1:][:, frm][:, :, tiles]], axis=-1)  # (K, E, n-1, 3)
    both = np.zeros((steps, edges, n, 3), dtype=np.int32)
    both[:, :, 0, :2] = blank_moves
    both[:, :, 1:] = tile_moves
    return both.reshape(-1, 3)


def _frame(at, go, frm, to) -> np.ndarray:
    """Tile v on square q at t and not at t+1 → some move leaving or entering q."""
    steps, edges = go.shape
    n = at.shape[1]
    touching = [np.flatnonzero((frm == q) | (to == q)) for q in range(n)]
    width = max(len(t) for t in touching)
    table = np.full((n, width), edges)
    for q, t in enumerate(touching):
        table[q, : len(t)] = t
    moves = _with_absent(go)[:, table]  # (K, n, width)
    out = np.concatenate([
        np.stack([-at[:-1], at[1:]], axis=-1),  # (K, n, n, 2)
        np.broadcast_to(moves[:, :, None, :], (steps, n, n, width))], axis=-1)
    return out.reshape(-1, 2 + width)


# -- decoding, witnesses, pictures ------------------------------------------------------------
def decode(puzzle: Puzzle, encoding: str, model: np.ndarray) -> Solution:
    """The moves the model selects; a step selecting no move (or several) decodes to ``?``."""
    model = np.asarray(model, dtype=bool)
    if encoding == "direct":
        _, go = _direct_vars(Formula(), puzzle)
        letters = np.array(list(npuzzle.MOVES))[directed_edges(puzzle.rows, puzzle.cols)[2]]
        chosen = model[go]
        return Solution("".join(letters[row][0] if row.sum() == 1 else "?" for row in chosen))
    _, moves = _rotated_vars(Formula(), puzzle, tile_bits(puzzle.rows, puzzle.cols,
                                                          encoding == "rotated-onehot"))
    codes = model[moves] @ np.array([1, 2])
    return Solution("".join(npuzzle.MOVES[c] for c in codes))


def assignment(puzzle: Puzzle, encoding: str, solution: Solution) -> np.ndarray:
    """A bool model (index 0 unused) of the encoding for a legal move sequence."""
    rows, cols = puzzle.rows, puzzle.cols
    states = npuzzle.replay(puzzle.start, rows, cols, solution.moves)
    f = Formula()
    if encoding == "direct":
        at, go = _direct_vars(f, puzzle)
        frm, to, _ = directed_edges(rows, cols)
        model = np.zeros(f.num_vars + 1, dtype=bool)
        for t, config in enumerate(states):
            model[at[t, np.arange(rows * cols), list(config)]] = True
        for t in range(len(solution.moves)):
            edge = np.flatnonzero((frm == states[t].index(0)) & (to == states[t + 1].index(0)))
            model[go[t, edge]] = True
        return model
    onehot = encoding == "rotated-onehot"
    state, moves = _rotated_vars(f, puzzle, tile_bits(rows, cols, onehot))
    model = np.zeros(f.num_vars + 1, dtype=bool)
    for t, config in enumerate(states):
        model[state[t]] = rotated_state(config, rows, cols, onehot)
    codes = np.array([npuzzle.MOVES.index(m) for m in solution.moves], dtype=np.int64)
    model[moves] = _CODE_BITS[codes].astype(bool)
    return model


def render(puzzle: Puzzle, solution: Solution | None = None) -> str:
    """The start board (blank as ``.``), the budget and, if given, the moves.

    >>> p = generate({"start": [1, 2, 5, 3, 4, 0, 6, 7, 8], "no_undo": False,
    ...               "node_limit": 1000}, None)
    >>> print(render(p, witness(p)))
    1 2 5
    3 4 .
    6 7 8
    3x3, budget 3 moves, distance 3 (ida*)
    moves: ULL
    """
    w = len(str(puzzle.rows * puzzle.cols - 1))
    cells = [("." if t == 0 else str(t)).rjust(w) for t in puzzle.start]
    lines = [" ".join(cells[r * puzzle.cols:(r + 1) * puzzle.cols]) for r in range(puzzle.rows)]
    known = (f"distance {puzzle.distance}" if puzzle.distance is not None
             else f"distance ≥ {puzzle.lower_bound}")
    lines.append(f"{puzzle.rows}x{puzzle.cols}, budget {puzzle.budget} moves, {known} "
                 f"({puzzle.source})")
    if solution is not None:
        lines.append(f"moves: {solution.moves}")
    return "\n".join(lines)


def render_svg(puzzle: Puzzle, solution: Solution | None = None) -> str:
    """The start board as SVG: tiles as squares with their number, the blank empty."""
    size = 40
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{puzzle.cols * size}" '
             f'height="{puzzle.rows * size}" font-family="sans-serif" font-size="16">']
    for square, tile in enumerate(puzzle.start):
        if tile == 0:
            continue
        r, c = divmod(square, puzzle.cols)
        parts.append(f'<rect x="{c * size + 1}" y="{r * size + 1}" width="{size - 2}" '
                     f'height="{size - 2}" fill="#e8d8b0" stroke="#705020"/>'
                     f'<text x="{c * size + size / 2}" y="{r * size + size / 2 + 6}" '
                     f'text-anchor="middle">{tile}</text>')
    parts.append("</svg>")
    return "\n".join(parts)

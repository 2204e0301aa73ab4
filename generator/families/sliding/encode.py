"""The three encodings of the sliding family, the numbering of their variables, and decoding.

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

import math

import numpy as np

from puzzlesat.generator.core.cnf import Formula, pairwise_at_most_one
from puzzlesat.generator.core.grid import neighbour_table
from puzzlesat.generator.families.sliding import npuzzle
from puzzlesat.generator.families.sliding.puzzle import Puzzle, Solution

#: bits of each move code (bit 0, bit 1), MOVES order U D L R
_CODE_BITS = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=np.int64)


# -- rotated-frame encoding -------------------------------------------------------------------
def tile_bits(rows: int, cols: int, onehot: bool) -> int:
    """Bits per tile: one-hot (n - 1) or binary."""
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
    """Unit clauses fixing ``state``'s variables to ``values``."""
    return np.where(values, state, -state)[:, None]


def encode(puzzle: Puzzle, encoding: str) -> Formula:
    """The CNF of ``puzzle`` in ``encoding`` (direct or rotated, binary or one-hot)."""
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
    leaving = with_absent(go)[:, _edges_by_square(frm, n)]
    f.add("one_move_per_square", pairwise_at_most_one(leaving.reshape(-1, 4)))
    f.add("move_precondition", np.stack([-go, at[:-1][:, frm, 0]], axis=-1).reshape(-1, 2))
    f.add("move_effects", _move_effects(at, go, frm, to))
    f.add("frame", _frame(at, go, frm, to))
    if puzzle.no_undo:
        reverse = reverse_edges(frm, to)
        f.add("no_undo", np.stack([-go[:-1], -go[1:, reverse]], axis=-1).reshape(-1, 2))
    return f


def _edges_by_square(frm: np.ndarray, n: int) -> np.ndarray:
    """``(n, 4)`` edge indices leaving each square, padded with ``len(frm)``: the absent
    column of :func:`with_absent`."""
    table = np.full((n, 4), len(frm))
    slot = np.arange(len(frm)) - np.searchsorted(frm, frm)
    table[frm, slot] = np.arange(len(frm))
    return table


def with_absent(go: np.ndarray) -> np.ndarray:
    """``go`` with an extra all-zero column, so padded edge indices select no literal."""
    return np.concatenate([go, np.zeros((go.shape[0], 1), dtype=go.dtype)], axis=1)


def reverse_edges(frm: np.ndarray, to: np.ndarray) -> np.ndarray:
    """For each directed edge, the index of the edge back (the move that undoes it)."""
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


def touching_edges(frm: np.ndarray, to: np.ndarray, n: int) -> np.ndarray:
    """``(n, width)`` indices of the edges leaving or entering each square, padded with
    ``len(frm)``: the absent column of :func:`with_absent`."""
    touching = [np.flatnonzero((frm == q) | (to == q)) for q in range(n)]
    table = np.full((n, max(len(t) for t in touching)), len(frm))
    for q, t in enumerate(touching):
        table[q, : len(t)] = t
    return table


def _frame(at, go, frm, to) -> np.ndarray:
    """Tile v on square q at t and not at t+1 → some move leaving or entering q."""
    steps = go.shape[0]
    n = at.shape[1]
    table = touching_edges(frm, to, n)
    width = table.shape[1]
    moves = with_absent(go)[:, table]  # (K, n, width)
    out = np.concatenate([
        np.stack([-at[:-1], at[1:]], axis=-1),  # (K, n, n, 2)
        np.broadcast_to(moves[:, :, None, :], (steps, n, n, width))], axis=-1)
    return out.reshape(-1, 2 + width)



# -- decoding and witnesses' models --------------------------------------------------------------
def numbering(puzzle: Puzzle, encoding: str) -> Formula:
    """The variable blocks of ``encoding`` (a Formula holding them and no clause), numbered
    as :func:`encode` numbers them."""
    f = Formula()
    if encoding == "direct":
        _direct_vars(f, puzzle)
    else:
        _rotated_vars(f, puzzle, tile_bits(puzzle.rows, puzzle.cols,
                                           encoding == "rotated-onehot"))
    return f


def decode(puzzle: Puzzle, encoding: str, model: np.ndarray) -> Solution:
    """The moves the model selects (the ``go`` or ``move`` block); a step selecting no move
    (or several) decodes to ``?``."""
    values = numbering(puzzle, encoding).values(model)
    if encoding == "direct":
        letters = np.array(list(npuzzle.MOVES))[directed_edges(puzzle.rows, puzzle.cols)[2]]
        return Solution("".join(letters[row][0] if row.sum() == 1 else "?"
                                for row in values["go"]))
    codes = values["move"] @ np.array([1, 2])
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

"""Edge matching as MaxSAT: place every piece, match as many inner edges as possible.

Encoding ``sides`` (bounded, unsigned puzzles). A piece may lie on a square in a rotation
when it shows the frame colour exactly on the square's outer sides. Variables, in order:

* ``x[p, q]`` piece p on square q, for each pair with such a rotation (piece-major);
* ``o[q, r]`` center square q turned r quarter turns (a piece on a border or corner square
  has one rotation there, so those squares need none);
* ``c[q, s, k]`` side s of square q shows colour k (k over the non-frame colours, in order);
* the sequential counters' auxiliaries (below);
* ``m[d]`` inner edge d matches (edges numbered as the diamonds of
  :class:`~puzzlesat.generator.families.edgematch.geometry.Grid`).

Hard clauses, in order: ``square_at_least_one`` and ``square_at_most_one`` over the pieces a
square admits, ``piece_at_least_one`` and ``piece_at_most_one`` over the squares a piece
admits (at most one: Sinz's sequential counter, :mod:`~puzzlesat.generator.core.cardinality`,
whose auxiliaries ``<square|piece>_counter_<L>`` are numbered after ``c``: 3L − 4 clauses
where pairwise would need L(L − 1)/2, 19,110 for a centre square of Eternity II), ``rotation_exactly_one`` for center squares, ``side_colour`` (¬x ∨ ¬o ∨ c
for every side facing an inner edge; ¬x ∨ c on border and corner squares),
``colour_at_most_one`` (pairwise per side), and ``edge_match``: for each inner edge d
between sides (q, s) and (q', s') and colour k, (¬m ∨ ¬c ∨ c'), (¬m ∨ c ∨ ¬c') and
(m ∨ ¬c ∨ ¬c'): m is true exactly when both sides show one colour. Soft clauses: ``(m[d])``
of weight 1 for every inner edge, so the cost of a model is the number of unmatched inner
edges (480 inner edges on a 16×16 board).

Certified optima. A planted board has optimum 0 (its planted arrangement). With ``--unsat
parity`` one side of one center piece is recoloured: the planted arrangement leaves exactly
one edge unmatched (upper bound 1), and two colours then lie on an odd number of sides.
Every non-frame side lies on an inner edge in any placement, a matched edge holds two sides
of one colour, so each odd colour has a side on an unmatched edge, and an unmatched edge has
two sides: the optimum is at least ⌈odd colours / 2⌉ (lower bound 1). When the bounds meet,
the optimum is certified; otherwise both are recorded. The real Eternity II pieces have no
known arrangement: lower bound 0 (every colour count is even), and the best score known.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from puzzlesat.generator.core.cardinality import sequential_at_most_one, sequential_aux_values
from puzzlesat.generator.core.cnf import LITERAL_DTYPE, Formula, pairwise_at_most_one
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.optimum import Bounds
from puzzlesat.generator.core.wcnf import Wcnf
from puzzlesat.generator.families.edgematch.certificate import odd_colours
from puzzlesat.generator.families.edgematch.estimate import bounded_board
from puzzlesat.generator.families.edgematch.generate import planted
from puzzlesat.generator.families.edgematch.geometry import FRAME, E, Grid, N, S, W
from puzzlesat.generator.families.edgematch.puzzle import Puzzle, Solution, shown_sides
from puzzlesat.generator.families.params import Estimate

ENCODINGS = {"sides": "piece-square, rotation and side-colour variables; one soft clause "
                      "per inner edge: cost = unmatched inner edges"}
OBJECTIVE = "unmatched inner edges"
HARD_SATISFIABLE = "any placement of every piece (frame outward) meets the hard clauses"
#: the best arrangement of the real Eternity II pieces we know of, for the description
ETERNITY2_BEST = ("467 of 480 inner edges matched (cost 13): the entry of Louis Verhaard (and "
                  "Anna Karlsson) that won the Eternity II scrutiny prize for the highest score "
                  "by 31 December 2008 (Wikipedia, 'Eternity II puzzle'; the solver: L. "
                  "Verhaard, 'Details of Eternity II solver eii', 22 January 2009). Later "
                  "reports of 468 (12 unmatched, 2020; grokipedia.com/page/Eternity_II_puzzle) "
                  "are unverified")


def estimate(params: dict, encoding: str, puzzle=None) -> Estimate:
    """Upper bounds on the WCNF's size, by group of :func:`encode_wcnf` for n squares in
    classes of sizes m (corners, borders, centers), K non-frame colours and D inner edges:
    x ≤ Σ m², o = 4 per center square, c = 4nK, counters ≤ 2x auxiliaries, m = D; clauses:
    2n at-least-one, ≤ 6x sequential at-most-one, 7 per center square, ≤ 16x side colours,
    4n·K(K−1)/2 colour at-most-one, 3DK edge match, D soft."""
    rows, cols, colours = bounded_board(params, puzzle)
    n, centers = rows * cols, max(rows - 2, 0) * max(cols - 2, 0)
    classes = [4, max(2 * rows + 2 * cols - 8, 0), centers]
    x = sum(m * m for m in classes)
    edges = rows * max(cols - 1, 0) + max(rows - 1, 0) * cols
    variables = 3 * x + 4 * centers + 4 * n * colours + edges
    groups = [(2 * n, max(classes)), (6 * x, 3), (7 * centers, 4), (16 * x, 3),
              (4 * n * (colours * (colours - 1) // 2), 2), (3 * edges * colours, 3),
              (edges, 1)]
    digits = len(str(max(variables, 1))) + 2
    return Estimate(variables, sum(c for c, _ in groups),
                    sum(c * (w * digits + 4) for c, w in groups))


def allowed_rotations(puzzle: Puzzle) -> np.ndarray:
    """``(pieces, squares, 4)`` bool: the piece shows the frame exactly on the square's outer
    sides when turned r quarter turns clockwise (its side i on side (i + r) mod 4)."""
    rows, cols = puzzle.rows, puzzle.cols
    r, c = np.divmod(np.arange(rows * cols), cols)
    outer = np.stack([r == 0, c == cols - 1, r == rows - 1, c == 0], axis=1)  # (squares, 4)
    s = np.arange(4)
    turned = puzzle.pieces[:, (s[None, :] - s[:, None]) % 4] == FRAME  # (pieces, rot, side)
    return (turned[:, None, :, :] == outer[None, :, None, :]).all(axis=3)


def _check_supported(puzzle: Puzzle) -> None:
    if not puzzle.bounded or puzzle.signed:
        raise UserError("edge-matching --format wcnf: bounded, unsigned puzzles only (the "
                        "frame fixes which sides meet an inner edge)")


def _compact(ids: np.ndarray) -> np.ndarray:
    """Rows of ``ids`` with their nonzero entries moved to the front, width trimmed."""
    order = np.argsort(ids == 0, axis=1, kind="stable")
    packed = np.take_along_axis(ids, order, axis=1)
    width = int((packed != 0).sum(axis=1).max()) if packed.size else 0
    return packed[:, : max(width, 1)]


@dataclass
class _Vars:
    x: np.ndarray  # (pieces, squares), 0 where not allowed
    o: np.ndarray  # (squares, 4), 0 on non-center squares
    c: np.ndarray  # (squares, 4, colours)
    m: np.ndarray  # (inner edges,)
    colours: np.ndarray  # the non-frame colours, in order
    allowed: np.ndarray  # allowed_rotations
    counters: dict  # "square"/"piece" -> [(members (rows, L), auxiliaries (rows, L - 1))]


def _variables(f: Formula, puzzle: Puzzle) -> _Vars:
    allowed = allowed_rotations(puzzle)
    pairs = allowed.any(axis=2)
    x = np.zeros(pairs.shape, dtype=LITERAL_DTYPE)
    x[pairs] = f.new_vars("x", int(pairs.sum()))
    grid = Grid(puzzle.rows, puzzle.cols, True)
    o = np.zeros((puzzle.rows * puzzle.cols, 4), dtype=LITERAL_DTYPE)
    o[grid.center] = f.new_vars("o", grid.center.size, 4)
    colours = np.unique(puzzle.pieces[puzzle.pieces != FRAME])
    c = f.new_vars("c", puzzle.rows * puzzle.cols, 4, colours.size)
    counters = {kind: _counters(f, kind, _compact(ids)) for kind, ids in (("square", x.T),
                                                                          ("piece", x))}
    m = f.new_vars("m", grid.num_diamonds)
    return _Vars(x, o, c, m, colours, allowed, counters)


def _counters(f: Formula, kind: str, groups: np.ndarray) -> list:
    """The sequential counters of the rows of ``groups`` (members first, zeros after), rows
    of one length together (ascending), auxiliaries ``<kind>_counter_<length>``."""
    lengths = (groups != 0).sum(axis=1)
    out = []
    for length in np.unique(lengths[lengths > 1]).tolist():
        members = groups[lengths == length, :length]
        out.append((members, f.new_vars(f"{kind}_counter_{length}", members.shape[0],
                                        length - 1)))
    return out


def inner_edges(puzzle: Puzzle) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(q, s, q', s') per inner edge d, in diamond order: square q's side s meets square
    q''s side s' (q above or left of q')."""
    grid = Grid(puzzle.rows, puzzle.cols, True)
    q, s = np.nonzero((grid.diamond_of >= 0) & ~grid.second_of_diamond)
    d = grid.diamond_of[q, s]
    order = np.argsort(d, kind="stable")
    q, s = q[order], s[order]
    cols = puzzle.cols
    q2 = np.where(s == E, q + 1, q + cols)
    return q, s, q2, np.where(s == E, W, N)


def encode_wcnf(puzzle: Puzzle, encoding: str = "sides") -> Wcnf:
    """The MaxSAT formula of ``puzzle`` (see the module docstring)."""
    _check_supported(puzzle)
    w = Wcnf()
    f = w.hard
    v = _variables(f, puzzle)
    f.add("square_at_least_one", _compact(v.x.T))
    f.add("square_at_most_one", _at_most_one(v.counters["square"]))
    f.add("piece_at_least_one", _compact(v.x))
    f.add("piece_at_most_one", _at_most_one(v.counters["piece"]))
    center = np.flatnonzero(v.o[:, 0])
    f.add("rotation_exactly_one", np.concatenate([v.o[center],
                                                  _pad(pairwise_at_most_one(v.o[center]), 4)]))
    f.add("side_colour", _side_colour(puzzle, v))
    q, s, q2, s2 = inner_edges(puzzle)
    sides = np.unique(np.concatenate([q * 4 + s, q2 * 4 + s2]))
    f.add("colour_at_most_one", pairwise_at_most_one(v.c.reshape(-1, v.colours.size)[sides]))
    a, b = v.c[q, s], v.c[q2, s2]  # (edges, colours)
    m = np.broadcast_to(v.m[:, None], a.shape)
    f.add("edge_match", np.stack([np.stack([-m, -a, b], -1), np.stack([-m, a, -b], -1),
                                  np.stack([m, -a, -b], -1)], axis=2).reshape(-1, 3))
    w.add_soft("edge_matched", v.m[:, None], 1)
    return w


def _at_most_one(counters: list) -> np.ndarray:
    parts = [sequential_at_most_one(members, aux) for members, aux in counters]
    return np.concatenate(parts) if parts else np.zeros((0, 2), dtype=LITERAL_DTYPE)


def _pad(block: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros((block.shape[0], width), dtype=LITERAL_DTYPE)
    out[:, : block.shape[1]] = block
    return out


def _side_colour(puzzle: Puzzle, v: _Vars) -> np.ndarray:
    """(¬x[p,q] ∨ c[q,s,colour] ∨ ¬o[q,r]) for every allowed (p, q, r) and inner side s; the
    rotation literal is absent (0, last) on border and corner squares."""
    p, q, r = np.nonzero(v.allowed)
    if ((v.o[q, 0] == 0) & (np.bincount(p * v.x.shape[1] + q, minlength=v.x.size)
                             [p * v.x.shape[1] + q] > 1)).any():
        raise UserError("edge-matching --format wcnf: a piece fits a border square in two "
                        "rotations (a malformed frame)")
    s = np.arange(4)
    colour = puzzle.pieces[p[:, None], (s[None, :] - r[:, None]) % 4]  # (triples, 4)
    k = np.searchsorted(v.colours, colour)
    inner = colour != FRAME
    t, side = np.nonzero(inner)
    clauses = np.stack([-v.x[p[t], q[t]], v.c[q[t], side, k[t, side]],
                        -v.o[q[t], r[t]]], axis=1)
    return clauses


# -- answers ---------------------------------------------------------------------------------
def decode_wcnf(puzzle: Puzzle, encoding: str, model: np.ndarray) -> Solution:
    """The placement a model describes: the piece on each square from x (the first true one),
    its rotation from o on center squares, the one that fits elsewhere."""
    f = Formula()
    v = _variables(f, puzzle)
    model = np.asarray(model, dtype=bool)
    on = np.where(v.x > 0, model[v.x], False)  # (pieces, squares)
    piece = np.where(on.any(axis=0), on.argmax(axis=0), -1)
    turn = np.where(v.o > 0, model[v.o], False)
    fits = v.allowed[np.maximum(piece, 0), np.arange(piece.size)]  # (squares, 4)
    rotation = np.where(v.o[:, 0] > 0, turn.argmax(axis=1), fits.argmax(axis=1))
    return Solution(piece.astype(np.int64), rotation.astype(np.int64))


def referee(puzzle: Puzzle, solution: Solution) -> tuple[list[str], int]:
    """(broken rules, unmatched inner edges) of a placement, by the puzzle's own rules and no
    encoding: every piece once, rotations 0..3, frame colour exactly on the outer sides;
    then the inner edges whose two sides differ."""
    n, rows, cols = len(puzzle.pieces), puzzle.rows, puzzle.cols
    piece, rot = np.asarray(solution.piece), np.asarray(solution.rotation)
    if piece.shape != (n,) or rot.shape != (n,) or sorted(piece.tolist()) != list(range(n)):
        return ["pieces are not each placed exactly once"], 0
    if ((rot < 0) | (rot > 3)).any():
        return ["rotation outside 0..3"], 0
    shown = shown_sides(puzzle.pieces, solution).reshape(rows, cols, 4)
    outer = np.zeros((rows, cols, 4), dtype=bool)
    outer[0, :, N] = outer[-1, :, S] = outer[:, 0, W] = outer[:, -1, E] = True
    problems = [f"square ({r},{c}) side {'NESW'[s]}: "
                f"{'no frame colour on the boundary' if outer[r, c, s] else 'frame colour inside'}"
                for r, c, s in np.argwhere(outer != (shown == FRAME)).tolist()]
    unmatched = int((shown[:, :-1, E] != shown[:, 1:, W]).sum()
                    + (shown[:-1, :, S] != shown[1:, :, N]).sum())
    return problems, unmatched


def bounds(puzzle: Puzzle, params: dict, rng) -> Bounds:
    """The certified bounds on the optimum (module docstring): the parity lower bound, and
    the planted arrangement's cost when the puzzle was planted (``rng`` replays the draw)."""
    _check_supported(puzzle)
    odd = len(odd_colours(puzzle))
    lower = -(-odd // 2)
    why = [f"lower bound {lower}: parity, {odd} colours on an odd number of sides"]
    arrangement = None
    upper = None
    if "pieces" not in params:
        arrangement = planted(params, rng).planted
    elif puzzle.planted is not None:
        arrangement = puzzle.planted
    if arrangement is not None:
        problems, upper = referee(puzzle, arrangement)
        if problems:  # the planted placement is a placement of this puzzle by construction
            raise AssertionError(f"planted arrangement breaks the rules: {problems[0]}")
        why.append(f"upper bound {upper}: the planted arrangement")
    best = ETERNITY2_BEST if params.get("pieces") == "eternity2" else None
    return Bounds(lower, upper, "; ".join(why), arrangement, best)


def assignment_wcnf(puzzle: Puzzle, encoding: str, solution: Solution) -> np.ndarray:
    """The model (bool, index 0 unused) of the ``sides`` encoding that a placement stands
    for: its x, o and side colours, m true on the edges it matches. It satisfies every hard
    clause, and its cost is the placement's number of unmatched inner edges."""
    f = Formula()
    v = _variables(f, puzzle)
    model = np.zeros(f.num_vars + 1, dtype=bool)
    squares = np.arange(puzzle.rows * puzzle.cols)
    model[v.x[solution.piece, squares]] = True
    center = v.o[:, 0] > 0
    model[v.o[squares[center], np.asarray(solution.rotation)[center]]] = True
    shown = shown_sides(puzzle.pieces, solution)
    q, s = np.nonzero(shown != FRAME)
    model[v.c[q, s, np.searchsorted(v.colours, shown[q, s])]] = True
    a, b, c, d = inner_edges(puzzle)
    model[v.m] = shown[a, b] == shown[c, d]
    for counters in v.counters.values():
        for members, aux in counters:
            model[aux] = sequential_aux_values(model, members)
    return model

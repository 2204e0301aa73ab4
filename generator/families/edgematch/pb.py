"""Edge matching as a pseudo-Boolean problem: placements and edge colours as linear constraints
(bounded, unsigned puzzles), a decision form whose parity variant comes with the cutting-planes
proof that refutes it, and an optimisation form with the MaxSAT track's certified optimum.

Variables, in order: ``x[p, q, r]`` piece p on square q turned r quarter turns, for every
triple in which p shows the frame colour exactly on q's outer sides (piece-major, as
:func:`~.maxsat.allowed_rotations` lists them); then, per form, the colours of the inner
edges or of the inner sides, and the unmatched edges.

Encoding ``edges`` (decision). ``y[d, k]``: inner edge d has colour k (the non-frame colours,
in order). Every constraint is an equality:

* ``square_exactly_one``  Σ x[·, q, ·] = 1 per square;
* ``piece_exactly_one``   Σ x[p, ·, ·] = 1 per piece;
* ``side_colour``         Σ {x[p, q, r] : p turned r shows k on side s of q} − y[d, k] = 0,
  per inner edge d, for its two sides (q, s) in turn (above or left first), per colour k.

Where the CNF of :mod:`.encode` needs mapping clauses, at-most-one pairs and a clause per
piece type and rotation, each rule here is one constraint: a square holds one piece in one
rotation, a piece lies once, and the colour each side shows is the colour of its edge. A
model is a placement in which every inner edge matches.

The parity variant (``--unsat parity``) puts a colour k on an odd number N of sides. Adding
the ``≥`` halves of k's side-colour equalities counts each side of colour k once per placed
piece: Σ_p c_p·(Σ x[p, ·, ·]) − 2·Σ_d y[d, k] ≥ 0, where c_p is the number of p's sides of
colour k (every such side lies on an inner edge, the frame facing outward); the pieces'
``≤`` halves, each times c_p, turn the x terms into N, and dividing by 2 rounds up:
Σ_d y[d, k] ≤ (N − 1) / 2. The ``≤`` halves of the same equalities with the pieces' ``≥``
halves give, divided by 2, Σ_d y[d, k] ≥ (N + 1) / 2. Their sum is 0 ≥ 1. :func:`refutation`
writes exactly these three ``pol`` steps as a VeriPB proof: one addition and one division per
bound, the Chvátal–Gomory cut of rank 1 that clauses cannot make in one step.

Encoding ``unmatched-edges`` (optimisation, ``min:``). ``c[q, s, k]``: inner side s of square
q shows colour k; ``u[d]``: inner edge d is unmatched. Constraints: the two exactly-one
families above, ``side_colour`` Σ {x …} − c[q, s, k] = 0 per inner side and colour, and
``edge_unmatched`` u[d] ≥ c[q, s, k] − c[q', s', k] and u[d] ≥ c[q', s', k] − c[q, s, k] per
inner edge and colour. Objective: min Σ_d u[d], the number of unmatched inner edges: the
MaxSAT track's objective, with its certified bounds (:func:`.maxsat.bounds`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from puzzlesat.generator.core.cnf import LITERAL_DTYPE
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.opb import Opb
from puzzlesat.generator.families.edgematch.certificate import odd_colours
from puzzlesat.generator.families.edgematch.estimate import bounded_board
from puzzlesat.generator.families.edgematch.geometry import FRAME
from puzzlesat.generator.families.edgematch.maxsat import allowed_rotations, inner_edges
from puzzlesat.generator.families.edgematch.maxsat import bounds as maxsat_bounds
from puzzlesat.generator.families.edgematch.maxsat import referee as maxsat_referee
from puzzlesat.generator.families.edgematch.puzzle import Puzzle, Solution, shown_sides
from puzzlesat.generator.families.params import Estimate

ENCODINGS = {
    "edges": "decision: one piece per square, each piece once, each side's colour its edge's "
             "(equalities only); the parity variant with its cutting-planes proof",
    "unmatched-edges": "optimisation: min the unmatched inner edges (the MaxSAT objective)",
}
#: what an optimisation encoding minimises (decision encodings are not listed)
OBJECTIVES = {"unmatched-edges": "unmatched inner edges"}
HARD_SATISFIABLE = "any placement of every piece (frame outward) meets every constraint"
#: the pseudo-Boolean form and the refutation of its parity variant, for a description
STORY = (
    "Each rule is one linear equality over 0-1 variables x (piece p on square q turned r) and "
    "y (inner edge d has colour k): a square holds one piece in one rotation, a piece lies "
    "once, and the colour a side shows is its edge's. The parity variant puts a colour on an "
    "odd number N of sides. Adding the side equalities of that colour counts each side once: "
    "2 times the edges of that colour equal N, which no integers satisfy. The generator's "
    "VeriPB proof says so in three pol steps: the sum divided by 2 (rounding up) bounds the "
    "edges of that colour by (N-1)/2 from above and by (N+1)/2 from below, and the two add up "
    "to 0 >= 1. Resolution has no such division, and the CNF twins keep MiniSat busy past a "
    "minute.")
bounds = maxsat_bounds


def estimate(params: dict, encoding: str, puzzle=None) -> Estimate:
    """Upper bounds on the OPB's size for n squares in classes of sizes m, K non-frame
    colours and D inner edges: x ≤ 4·Σ m², y = D·K (or c = 2D·K and u = D); constraints 2n
    exactly-one, 2D·K side colours (and 2D·K unmatched); terms ≤ 2x + 2D·K·(x / K + 1)."""
    rows, cols, colours = bounded_board(params, puzzle)
    colours = max(colours, 1)
    n = rows * cols
    classes = [4, max(2 * rows + 2 * cols - 8, 0), max(rows - 2, 0) * max(cols - 2, 0)]
    x = 4 * sum(m * m for m in classes)
    edges = rows * max(cols - 1, 0) + max(rows - 1, 0) * cols
    sides = 2 * edges * colours
    optimise = encoding == "unmatched-edges"
    variables = x + (sides + edges if optimise else edges * colours)
    constraints = 2 * n + sides * (2 if optimise else 1)
    terms = 2 * x + 2 * x + sides + (3 * sides if optimise else 0)  # a side lists x[·, q, ·]
    digits = len(str(max(variables, 1))) + 4  # " +1 x" or " ~x" and the number
    return Estimate(variables, constraints, terms * digits + constraints * 8)


def _check_supported(puzzle: Puzzle) -> None:
    if not puzzle.bounded or puzzle.signed:
        raise UserError("edge-matching --format opb: bounded, unsigned puzzles only (the "
                        "frame fixes which sides meet an inner edge)")


@dataclass
class _Layout:
    """The placement variables and what each shows."""

    x: np.ndarray  # (triples,) variable ids, piece-major
    p: np.ndarray
    q: np.ndarray
    r: np.ndarray
    colours: np.ndarray  # the non-frame colours, in order
    shows: np.ndarray  # (triples, 4): the colour index k each side shows (-1: frame)
    edges: tuple  # inner_edges(puzzle): (q, s, q', s') per inner edge


def _layout(opb: Opb, puzzle: Puzzle) -> _Layout:
    _check_supported(puzzle)
    p, q, r = np.nonzero(allowed_rotations(puzzle))
    x = opb.new_vars("x", p.size)
    colours = np.unique(puzzle.pieces[puzzle.pieces != FRAME])
    s = np.arange(4)
    shown = puzzle.pieces[p[:, None], (s[None, :] - r[:, None]) % 4]
    shows = np.where(shown == FRAME, -1, np.searchsorted(colours, shown))
    return _Layout(x, p, q, r, colours, shows, inner_edges(puzzle))


def _grouped(keys: np.ndarray, ids: np.ndarray, groups: int) -> np.ndarray:
    """``(groups, width)`` rows of ``ids`` by key (0-padded), in id order within a row."""
    order = np.argsort(keys, kind="stable")
    counts = np.bincount(keys, minlength=groups)
    width = max(int(counts.max(initial=0)), 1)
    rows = np.zeros((groups, width), dtype=LITERAL_DTYPE)
    place = np.arange(keys.size) - np.repeat(np.cumsum(counts) - counts, counts)
    rows[keys[order], place] = ids[order]
    return rows


def _side_rows(lay: _Layout, sides_q: np.ndarray, sides_s: np.ndarray) -> np.ndarray:
    """Per (side, colour) in that order: the x that show colour k on side s of square q
    (``(sides * K, width)``, 0-padded)."""
    k_count = lay.colours.size
    number = np.full(4 * (int(lay.q.max(initial=0)) + 1), -1, dtype=np.int64)
    number[sides_q * 4 + sides_s] = np.arange(sides_q.size)  # (q, s) -> side number
    t, side = np.nonzero(lay.shows >= 0)  # every triple's coloured sides, triple-major
    i = number[lay.q[t] * 4 + side]
    keep = i >= 0
    keys = i[keep] * k_count + lay.shows[t[keep], side[keep]]
    return _grouped(keys, lay.x[t[keep]], sides_q.size * k_count)


def _exactly_one(opb: Opb, lay: _Layout, squares: int, pieces: int) -> None:
    for name, keys, groups in (("square_exactly_one", lay.q, squares),
                               ("piece_exactly_one", lay.p, pieces)):
        rows = _grouped(keys, lay.x, groups)
        opb.add(name, rows, (rows != 0).astype(np.int64), "=", 1)


def _equal_to(opb: Opb, name: str, rows: np.ndarray, target: np.ndarray) -> None:
    """Σ row − target = 0, per row."""
    literals = np.concatenate([rows, target.reshape(-1, 1)], axis=1)
    coefs = np.concatenate([(rows != 0).astype(np.int64),
                            np.full((rows.shape[0], 1), -1, dtype=np.int64)], axis=1)
    opb.add(name, literals, coefs, "=", 0)


def encode_opb(puzzle: Puzzle, encoding: str = "edges") -> Opb:
    """The OPB of ``puzzle`` in ``encoding`` (see the module docstring)."""
    opb = Opb()
    lay = _layout(opb, puzzle)
    n, k_count = puzzle.rows * puzzle.cols, lay.colours.size
    q1, s1, q2, s2 = lay.edges
    edges = q1.size
    if encoding == "edges":
        y = opb.new_vars("y", edges, k_count)
        _exactly_one(opb, lay, n, len(puzzle.pieces))
        # per edge, its first side then its second, each over every colour
        sides_q = np.stack([q1, q2], axis=1).reshape(-1)
        sides_s = np.stack([s1, s2], axis=1).reshape(-1)
        target = np.repeat(y, 2, axis=0)  # (edges * 2, K): the edge's y for both sides
        _equal_to(opb, "side_colour", _side_rows(lay, sides_q, sides_s), target)
        return opb
    if encoding == "unmatched-edges":
        c = opb.new_vars("c", 2 * edges, k_count)  # side 2d, 2d + 1 of edge d
        u = opb.new_vars("u", edges)
        _exactly_one(opb, lay, n, len(puzzle.pieces))
        sides_q = np.stack([q1, q2], axis=1).reshape(-1)
        sides_s = np.stack([s1, s2], axis=1).reshape(-1)
        _equal_to(opb, "side_colour", _side_rows(lay, sides_q, sides_s), c)
        a, b = c[0::2], c[1::2]  # (edges, K)
        uu = np.broadcast_to(u[:, None], a.shape)
        literals = np.stack([np.stack([uu, a, b], -1), np.stack([uu, b, a], -1)],
                            axis=2).reshape(-1, 3)
        opb.add("edge_unmatched", literals, np.array([1, -1, 1], dtype=np.int64), ">=", 0)
        opb.minimise(u, np.ones(edges, dtype=np.int64))
        return opb
    raise UserError(f"edge-matching: unknown OPB encoding {encoding!r}")


# -- what is known ------------------------------------------------------------------------------
def refutation(puzzle: Puzzle, encoding: str) -> bytes | None:
    """The VeriPB 2.0 proof that the ``edges`` OPB of a parity puzzle has no solution (the
    module docstring's three steps, on the first colour of odd count), or None when the
    puzzle has no odd colour or the encoding is another."""
    odd = odd_colours(puzzle)
    if encoding != "edges" or not odd or not puzzle.bounded or puzzle.signed:
        return None
    opb = Opb()
    lay = _layout(opb, puzzle)
    n, pieces = puzzle.rows * puzzle.cols, len(puzzle.pieces)
    colour = min(odd)
    k = int(np.searchsorted(lay.colours, colour))
    edges, k_count = lay.edges[0].size, lay.colours.size
    # every constraint is an equality: constraint i (0-based) is ids 2i+1 (>=) and 2i+2 (<=)
    per_piece = np.abs(puzzle.pieces) == colour
    c_p = per_piece.sum(axis=1)
    piece_row = n + np.arange(pieces)
    side_rows = 2 * n + np.arange(2 * edges) * k_count + k  # every side of every edge, colour k
    total = 2 * (2 * n + 2 * edges * k_count)

    def step(half: int, piece_half: int) -> str:
        terms = [str(2 * int(i) + half) for i in side_rows]
        terms += [f"{2 * int(i) + piece_half}" + ("" if c == 1 else f" {c} *")
                  for i, c in zip(piece_row.tolist(), c_p.tolist()) if c]
        return "pol " + " ".join([terms[0]] + [f"{t} +" for t in terms[1:]]) + " 2 d"

    lines = ["pseudo-Boolean proof version 2.0", f"f {total}",
             f"* colour {colour} lies on {int(c_p.sum())} sides: the edges of that colour "
             "are at most (N - 1) / 2", step(1, 2),
             "* and at least (N + 1) / 2", step(2, 1),
             "* together: 0 >= 1", f"pol {total + 1} {total + 2} +",
             "output NONE", f"conclusion UNSAT : {total + 3}", "end pseudo-Boolean proof"]
    return ("\n".join(lines) + "\n").encode()


# -- answers ------------------------------------------------------------------------------------
def decode_opb(puzzle: Puzzle, encoding: str, model: np.ndarray) -> Solution:
    """The placement a model describes: per square the first true x (piece and rotation);
    -1 where none is true, for the referee to report."""
    opb = Opb()
    lay = _layout(opb, puzzle)
    model = np.asarray(model, dtype=bool)
    n = puzzle.rows * puzzle.cols
    piece = np.full(n, -1, dtype=np.int64)
    rotation = np.zeros(n, dtype=np.int64)
    on = np.flatnonzero(model[lay.x])[::-1]  # the first true one per square wins, written last
    piece[lay.q[on]] = lay.p[on]
    rotation[lay.q[on]] = lay.r[on]
    return Solution(piece, rotation)


def referee(puzzle: Puzzle, solution: Solution) -> tuple[list[str], int]:
    """(broken rules, unmatched inner edges) of a placement, by the puzzle's own rules."""
    return maxsat_referee(puzzle, solution)


def assignment_opb(puzzle: Puzzle, encoding: str, solution: Solution) -> np.ndarray:
    """The model (bool, index 0 unused) of ``encoding`` that a placement stands for: its x,
    the colours its sides and edges show (an edge's colour: its first side's), and the
    unmatched edges. In ``edges`` it meets every constraint when every edge matches."""
    opb = Opb()
    lay = _layout(opb, puzzle)
    n, k_count = puzzle.rows * puzzle.cols, lay.colours.size
    q1, s1, q2, s2 = lay.edges
    edges = q1.size
    extra = edges * k_count if encoding == "edges" else 2 * edges * k_count + edges
    model = np.zeros(opb.num_vars + extra + 1, dtype=bool)
    piece, rot = np.asarray(solution.piece), np.asarray(solution.rotation)
    triple = np.full(len(puzzle.pieces) * n * 4, -1, dtype=np.int64)
    triple[(lay.p * n + lay.q) * 4 + lay.r] = np.arange(lay.x.size)
    t = np.where(piece >= 0, triple[(np.maximum(piece, 0) * n + np.arange(n)) * 4 + rot % 4],
                 -1)
    chosen = t[t >= 0]
    model[lay.x[chosen]] = True
    shown = shown_sides(puzzle.pieces, solution)
    first = np.searchsorted(lay.colours, shown[q1, s1])
    second = np.searchsorted(lay.colours, shown[q2, s2])
    base = opb.num_vars + 1
    if encoding == "edges":
        model[base + np.arange(edges) * k_count + first] = True
        return model
    model[base + (2 * np.arange(edges)) * k_count + first] = True
    model[base + (2 * np.arange(edges) + 1) * k_count + second] = True
    model[base + 2 * edges * k_count + np.flatnonzero(shown[q1, s1] != shown[q2, s2])] = True
    return model

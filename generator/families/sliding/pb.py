"""Sliding tiles as a pseudo-Boolean problem: each step's configuration as a permutation and
one move per step as linear constraints, a decision form with the SAT family's answers and an
optimisation form (``min:`` the moves) with the MaxSAT track's certified optimum.

Variables, in order: ``at[t, s, v]`` tile v (0 = the blank) lies on square s after t steps
(t = 0..K, K = budget); ``go[t, e]`` step t moves the blank along directed edge e (as
:func:`.encode.directed_edges` lists them: square, then U D L R). Constraints, in order:

* ``start`` / ``goal``          at[0, s, start[s]] ≥ 1 and at[K, s, s] ≥ 1 per square;
* ``one_tile_per_square``      Σ_v at[t, s, v] = 1 per step and square;
* ``one_square_per_tile``      Σ_s at[t, s, v] = 1 per step and tile;
* ``one_move``                 Σ_e go[t, e] = 1 per step (``fewest-moves``: ≤ 1, a step that
  moves nothing stays);
* ``blank_leaves``             at[t, s, 0] ≥ go[t, e] for e leaving s;
* ``blank_arrives``            at[t+1, s', 0] ≥ go[t, e] for e entering s';
* ``frame``                    at[t+1, s, v] ≥ at[t, s, v] − Σ {go[t, e] : e leaves or enters s};
* ``no_undo`` (``--no-undo``, decision only)  go[t, e] + go[t+1, reverse e] ≤ 1.

The tile on the blank's target needs no constraint of its own: every other square keeps its
tile and the blank takes the target, so the one tile missing, which the permutation
equalities place somewhere, lies on the square the blank left. These are the constraints of
the CNF's ``direct`` encoding (planning as satisfiability), with its pairwise at-most-one
clauses replaced by one equality each, a configuration stated as a permutation, and its
``move_effects`` clauses per tile (K·E·(s−1) of them, two thirds of the file) left to those
equalities; the default CNF (``rotated``) stores configurations in a rotated frame with
binary tile numbers instead. Encoding ``moves`` (decision) asks for exactly K moves and has
the SAT family's answers: the rest of the optimal trace for budget k, the trace's optimality
(or IDA*'s proof, or parity) for an UNSAT budget. No proof is written for those: the
optimality of a Korf trace comes from a search, not from a short cutting-planes argument.
Encoding ``fewest-moves`` (optimisation) lets a step stay and minimises Σ go: the optimum is
the start's distance, certified as the MaxSAT track certifies it (:func:`.maxsat.bounds`).
"""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.opb import Opb
from puzzlesat.generator.families.params import Estimate
from puzzlesat.generator.families.sliding import npuzzle
from puzzlesat.generator.families.sliding.encode import (
    directed_edges,
    reverse_edges,
    touching_edges,
    with_absent,
)
from puzzlesat.generator.families.sliding.estimate import board
from puzzlesat.generator.families.sliding.maxsat import STAY
from puzzlesat.generator.families.sliding.maxsat import bounds as maxsat_bounds
from puzzlesat.generator.families.sliding.maxsat import referee as maxsat_referee
from puzzlesat.generator.families.sliding.puzzle import Puzzle, Solution, check

ENCODINGS = {
    "moves": "decision: each step a permutation of the tiles, exactly one move of the blank "
             "per step (equalities), its effects and frame as linear implications",
    "fewest-moves": "optimisation: at most one move per step, min the moves (the MaxSAT "
                    "objective)",
}
#: what an optimisation encoding minimises (decision encodings are not listed)
OBJECTIVES = {"fewest-moves": "moves (steps that do not stay)"}
HARD_SATISFIABLE = "an optimal path padded with stays meets every constraint"
#: the pseudo-Boolean form, for a description
STORY = (
    "A variable for each tile on each square after each step, and one for each move of the "
    "blank at each step: after every step each square holds one tile and each tile lies on "
    "one square, and exactly one move is made per step (one linear equality each); a move "
    "needs the blank on the square it leaves and leaves it on the square it enters, and "
    "squares no move touches keep their tiles (where the tile slid goes follows from the "
    "permutation). These are the CNF's direct planning encoding with its pairwise clauses "
    "replaced by single equalities. The decision form asks for exactly the budget's moves "
    "and has the SAT instances' answers; no proof comes with its UNSAT instances, whose "
    "certificate is the optimality of a searched trace. The optimisation form lets a step "
    "stay and minimises the moves: its optimum is the start's distance, certified as for "
    "MaxSAT.")
bounds = maxsat_bounds


def _check_supported(puzzle: Puzzle, encoding: str) -> None:
    if encoding not in ENCODINGS:
        raise UserError(f"sliding --format opb: unknown encoding {encoding!r} (use "
                        f"{' or '.join(ENCODINGS)})")
    if encoding in OBJECTIVES and puzzle.no_undo:
        raise UserError("sliding --format opb: --no-undo is not defined across stays "
                        "(use --encoding moves)")
    if encoding in OBJECTIVES and puzzle.budget == 0:
        raise UserError("sliding --format opb: --budget 0 leaves no move to minimise "
                        "(use --encoding moves)")
    if encoding in OBJECTIVES and puzzle.path is None:
        raise UserError("sliding --format opb: the start's distance is not proved (IDA* "
                        "stopped at its node limit): no optimum is known, and the budget may "
                        "be below it (raise --node-limit)")
    if encoding in OBJECTIVES and puzzle.budget < puzzle.lower_bound:
        raise UserError(f"sliding --format opb: --budget {puzzle.budget} is below the "
                        f"distance {puzzle.lower_bound}: no trace reaches the goal")


def estimate(params: dict, encoding: str, puzzle=None) -> Estimate:
    """Upper bounds on the OPB's size for s squares, E directed edges and budget K:
    (K+1)s² + KE variables; 2s + 2(K+1)s + K + 2KE + Ks² (+ (K−1)E) constraints of at most
    s, E, 2 and 10 terms."""
    rows, cols, k, no_undo = board(params, puzzle)
    s = rows * cols
    edges = 2 * (rows * (cols - 1) + (rows - 1) * cols)
    variables = (k + 1) * s * s + k * edges
    undo = (k - 1) * edges if no_undo and k else 0
    groups = [(2 * s, 1), (2 * (k + 1) * s, s), (k, edges), (2 * k * edges, 2),
              (k * s * s, 10), (undo, 2)]
    constraints = sum(c for c, _ in groups)
    digits = len(str(max(variables, 1))) + 5  # " +1 x" or " -1 ~x" and the number
    return Estimate(variables, constraints,
                    sum(c * w for c, w in groups) * digits + constraints * 8)


def variables(opb: Opb, puzzle: Puzzle) -> tuple[np.ndarray, np.ndarray]:
    """``at`` (K+1, s, s) and ``go`` (K, E) allocated in ``opb``, numbered as the module
    docstring says."""
    s = puzzle.rows * puzzle.cols
    at = opb.new_vars("at", puzzle.budget + 1, s, s)
    go = opb.new_vars("go", puzzle.budget, len(directed_edges(puzzle.rows, puzzle.cols)[0]))
    return at, go


def encode_opb(puzzle: Puzzle, encoding: str = "moves") -> Opb:
    """The OPB of ``puzzle`` (see the module docstring)."""
    _check_supported(puzzle, encoding)
    rows, cols, steps = puzzle.rows, puzzle.cols, puzzle.budget
    s = rows * cols
    one = np.ones(1, dtype=np.int64)
    opb = Opb()
    at, go = variables(opb, puzzle)
    frm, to, _ = directed_edges(rows, cols)
    squares = np.arange(s)
    opb.add("start", at[0, squares, list(puzzle.start)][:, None], one, ">=", 1)
    opb.add("goal", at[steps, squares, squares][:, None], one, ">=", 1)
    ones = np.ones(s, dtype=np.int64)
    opb.add("one_tile_per_square", at.reshape(-1, s), ones, "=", 1)
    opb.add("one_square_per_tile", at.transpose(0, 2, 1).reshape(-1, s), ones, "=", 1)
    if encoding in OBJECTIVES:
        opb.minimise(go.reshape(-1), np.ones(go.size, dtype=np.int64))
        opb.add("one_move", go, -np.ones(go.shape[1], dtype=np.int64), ">=", -1)
    else:
        opb.add("one_move", go, np.ones(go.shape[1], dtype=np.int64), "=", 1)
    implies = np.array([1, -1], dtype=np.int64)  # a - b >= 0: b implies a
    opb.add("blank_leaves", np.stack([at[:-1][:, frm, 0], go], -1).reshape(-1, 2), implies,
            ">=", 0)
    opb.add("blank_arrives", np.stack([at[1:][:, to, 0], go], -1).reshape(-1, 2), implies,
            ">=", 0)
    table = touching_edges(frm, to, s)
    moves = with_absent(go)[:, table]  # (K, s, width), 0 where a square has fewer edges
    lits = np.concatenate([
        np.stack([at[1:], at[:-1]], -1),
        np.broadcast_to(moves[:, :, None, :], (steps, s, s, table.shape[1]))], -1)
    opb.add("frame", lits.reshape(-1, lits.shape[-1]),
            np.concatenate([implies, np.ones(table.shape[1], dtype=np.int64)]), ">=", 0)
    if puzzle.no_undo:
        back = reverse_edges(frm, to)
        opb.add("no_undo", np.stack([go[:-1], go[1:, back]], -1).reshape(-1, 2),
                -np.ones(2, dtype=np.int64), ">=", -1)
    return opb


def refutation(puzzle: Puzzle, encoding: str) -> bytes | None:
    """None: an UNSAT budget is certified by a search or by parity, for which no
    cutting-planes proof is written (see the module docstring)."""
    return None


# -- answers ------------------------------------------------------------------------------------
def decode_opb(puzzle: Puzzle, encoding: str, model: np.ndarray) -> Solution:
    """The steps a model selects: a move letter where one ``go`` is true, ``.`` (a stay) where
    none is in ``fewest-moves``, ``?`` otherwise (for the referee to report)."""
    go = variables(Opb(), puzzle)[1]
    chosen = np.asarray(model, dtype=bool)[go]
    letters = np.array(list(npuzzle.MOVES))[directed_edges(puzzle.rows, puzzle.cols)[2]]
    idle = STAY if encoding in OBJECTIVES else "?"
    return Solution("".join(letters[row][0] if row.sum() == 1 else idle if not row.any()
                            else "?" for row in chosen))


def referee(puzzle: Puzzle, solution: Solution) -> tuple[list[str], int]:
    """(broken rules, moves) of a trace by the puzzle's own rules: with stays as the MaxSAT
    track judges them, else exactly ``budget`` legal moves to the goal."""
    if STAY in solution.moves:
        return maxsat_referee(puzzle, solution)
    return check(puzzle, solution), len(solution.moves)


def assignment_opb(puzzle: Puzzle, encoding: str, solution: Solution) -> np.ndarray:
    """The model (bool, index 0 unused) a legal trace of ``budget`` steps (moves, or stays in
    ``fewest-moves``) stands for: each step's configuration and the move it makes."""
    opb = Opb()
    at, go = variables(opb, puzzle)
    frm, to, _ = directed_edges(puzzle.rows, puzzle.cols)
    model = np.zeros(opb.num_vars + 1, dtype=bool)
    squares = np.arange(puzzle.rows * puzzle.cols)
    config = tuple(puzzle.start)
    model[at[0, squares, list(config)]] = True
    for t, step in enumerate(solution.moves):
        if step != STAY:
            after = npuzzle.replay(config, puzzle.rows, puzzle.cols, step)[-1]
            model[go[t, (frm == config.index(0)) & (to == after.index(0))]] = True
            config = after
        model[at[t + 1, squares, list(config)]] = True
    return model

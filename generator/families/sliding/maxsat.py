"""Sliding tiles as MaxSAT: reach the goal in the fewest moves within a budget.

Hard clauses: the rotated-frame trace of ``--budget`` steps (:mod:`.encode`, binary or
one-hot tiles) where a step may also *stay*: a variable ``stay[t]`` per step (numbered after
every variable of the SAT encoding) is added to each ``move_legality`` and
``state_transition`` clause of step t (a move's rules bind only when the step moves), and
``stay_frame`` clauses (¬stay ∨ ¬x' ∨ x), (¬stay ∨ x' ∨ ¬x) keep every state variable
across a stay. Soft clauses: ``(stay[t])`` of weight 1 per step, so the cost of a model is
the number of steps that move (budget − stays), and the optimum is the distance of the start
from the goal: certified by the optimal trace (Korf's instances, cut at k) or IDA*'s proof,
the same certificates as the SAT family's.
"""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.optimum import Bounds
from puzzlesat.generator.core.wcnf import Wcnf
from puzzlesat.generator.families.params import Estimate
from puzzlesat.generator.families.sliding import npuzzle
from puzzlesat.generator.families.sliding.encode import decode, encode, rotated_state
from puzzlesat.generator.families.sliding.estimate import (
    board,
    digits_of,
    state_width,
)
from puzzlesat.generator.families.sliding.estimate import estimate as sat_estimate
from puzzlesat.generator.families.sliding.generate import generate
from puzzlesat.generator.families.sliding.puzzle import Puzzle, Solution, puzzle_to_json

ENCODINGS = {"rotated": "rotated frame with binary tiles, a stay bit per step",
             "rotated-onehot": "rotated frame with one-hot tiles, a stay bit per step"}
OBJECTIVE = "moves (steps that do not stay)"
HARD_SATISFIABLE = "an optimal path padded with stays meets the hard clauses"
STAY = "."


def _check_supported(puzzle: Puzzle, encoding: str) -> None:
    if encoding not in ENCODINGS:
        raise UserError(f"sliding --format wcnf: encoding {encoding!r} has no stay steps "
                        f"(use {' or '.join(ENCODINGS)})")
    if puzzle.no_undo:
        raise UserError("sliding --format wcnf: --no-undo is not defined across stays")
    if puzzle.path is None:
        raise UserError("sliding --format wcnf: the start's distance is not proved (IDA* "
                        "stopped at its node limit): no optimum is known, and the budget may "
                        "be below it (raise --node-limit)")
    if puzzle.budget < puzzle.lower_bound:
        raise UserError(f"sliding --format wcnf: --budget {puzzle.budget} is below the "
                        f"distance {puzzle.lower_bound}: no trace reaches the goal")


def estimate(params: dict, encoding: str, puzzle=None) -> Estimate:
    """Upper bounds on the WCNF's size: the SAT trace's, each move clause one literal (its
    stay bit) wider, plus the stay bits, the ``stay_frame`` clauses (2 per state variable and
    step) and a soft clause per step."""
    rows, cols, k, _ = board(params, puzzle)
    sat = sat_estimate(params, encoding, puzzle)
    variables = sat.variables + k
    frame = 2 * k * state_width(rows, cols, encoding)
    digits = digits_of(variables)
    return Estimate(variables, sat.clauses + frame + k,
                    sat.bytes + sat.clauses * (digits + 2) + frame * (3 * digits + 4)
                    + k * (digits + 4))


def encode_wcnf(puzzle: Puzzle, encoding: str = "rotated") -> Wcnf:
    """The MaxSAT formula of ``puzzle`` (see the module docstring)."""
    _check_supported(puzzle, encoding)
    f = encode(puzzle, encoding)
    steps = puzzle.budget
    state = np.concatenate([f.var("tile").reshape(steps + 1, -1), f.var("u"), f.var("v")],
                           axis=1)
    stay = f.new_vars("stay", steps)
    blocks, f.blocks = f.blocks, []
    for block in blocks:
        lits = block.literals
        if block.name in ("move_legality", "state_transition"):
            per_step = lits.reshape(steps, -1, lits.shape[1])
            column = np.broadcast_to(stay[:, None, None], per_step.shape[:2] + (1,))
            lits = np.concatenate([column, per_step], axis=2).reshape(-1, lits.shape[1] + 1)
        f.add(block.name, lits)
    now, nxt = state[:-1], state[1:]
    s = np.broadcast_to(stay[:, None], now.shape)
    f.add("stay_frame", np.stack([np.stack([-s, -nxt, now], -1), np.stack([-s, nxt, -now], -1)],
                                 axis=2).reshape(-1, 3))
    w = Wcnf(f)
    w.add_soft("stay", stay[:, None], 1)
    return w


def decode_wcnf(puzzle: Puzzle, encoding: str, model: np.ndarray) -> Solution:
    """The steps a model describes: a move letter, or ``.`` for a stay."""
    moves = decode(puzzle, encoding, model).moves
    stay = _stay_vars(puzzle, encoding)
    model = np.asarray(model, dtype=bool)
    return Solution("".join(STAY if model[v] else m for v, m in zip(stay.tolist(), moves)))


def _stay_vars(puzzle: Puzzle, encoding: str) -> np.ndarray:
    """The stay variables: numbered after the SAT encoding's."""
    f = encode(puzzle, encoding)
    return np.arange(f.num_vars + 1, f.num_vars + 1 + puzzle.budget)


def referee(puzzle: Puzzle, solution: Solution) -> tuple[list[str], int]:
    """(broken rules, moves) of a trace by the puzzle's own rules: ``budget`` steps, each a
    legal move or a stay, ending in the goal."""
    steps = solution.moves
    if len(steps) != puzzle.budget:
        return [f"{len(steps)} steps, the budget is exactly {puzzle.budget}"], 0
    moves = steps.replace(STAY, "")
    try:
        end = npuzzle.replay(puzzle.start, puzzle.rows, puzzle.cols, moves)[-1]
    except ValueError as exc:
        return [str(exc)], len(moves)
    if end != npuzzle.goal(puzzle.rows, puzzle.cols):
        return ["the moves do not end in the goal configuration"], len(moves)
    return [], len(moves)


def bounds(puzzle: Puzzle, params: dict, rng) -> Bounds:
    """The optimum is the start's distance: its lower bound proved by the trace or IDA*, its
    upper bound the optimal path (padded with stays). The proof is the generator's for
    ``params`` (``rng`` replays a walk), made again: a puzzle whose recorded distance, lower
    bound or path is not what its params give (a header may carry any) is a UserError."""
    if puzzle_to_json(generate(params, rng)) != puzzle_to_json(puzzle):
        raise UserError("the puzzle is not the one its params give (its start, budget, "
                        "distance, lower bound or path differ): no bound of it is certified")
    arrangement = None
    upper = None
    if puzzle.path is not None:
        upper = len(puzzle.path)
        arrangement = Solution(puzzle.path + STAY * (puzzle.budget - upper))
    why = f"distance {puzzle.lower_bound} proved by {puzzle.source}"
    return Bounds(puzzle.lower_bound, upper, why + (f"; an optimal path of {upper} moves"
                                                    if upper is not None else ""), arrangement)


def assignment_wcnf(puzzle: Puzzle, encoding: str, solution: Solution) -> np.ndarray:
    """The model (bool, index 0 unused) a legal trace of ``budget`` steps stands for: each
    step's configuration in the rotated frame, the move bits of each move, the stay bits."""
    f = encode(puzzle, encoding)
    stay = f.new_vars("stay", puzzle.budget)
    state = np.concatenate([f.var("tile").reshape(puzzle.budget + 1, -1), f.var("u"),
                            f.var("v")], axis=1)
    model = np.zeros(f.num_vars + 1, dtype=bool)
    config = puzzle.start
    onehot = encoding == "rotated-onehot"
    model[state[0]] = rotated_state(config, puzzle.rows, puzzle.cols, onehot)
    moves = f.var("move")
    for t, step in enumerate(solution.moves):
        if step == STAY:
            model[stay[t]] = True
        else:
            code = npuzzle.MOVES.index(step)
            model[moves[t]] = [code & 1, code >> 1]
            config = npuzzle.replay(config, puzzle.rows, puzzle.cols, step)[-1]
        model[state[t + 1]] = rotated_state(config, puzzle.rows, puzzle.cols, onehot)
    return model

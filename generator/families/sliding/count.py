"""Counting sliding-tile instances: the move sequences of exactly ``budget`` moves from the start
to the goal.

Both encodings take exactly one move per step (no "stay" step: the move code of ``rotated`` is
always one of U D L R, and ``direct``'s ``some_move`` and ``one_move_per_square`` pick exactly
one), and every other variable follows from the moves by unit propagation. So the models of an
instance are in one-to-one correspondence with its legal move sequences of exactly ``budget``
moves that reach the goal (with ``--no-undo``, those that never undo the previous move), and the
projection onto the move variables (``rotated``: ``move[t, 2]``; ``direct``: ``go[t, e]``)
counts them exactly; the count over all variables is the same number.

The certified count walks the puzzle's own moves (:func:`npuzzle.move`), never the CNF: a
breadth-first pass over the configurations after each step, each holding how many sequences
reach it, keeping only those from which the goal is still within the remaining moves by the
admissible Manhattan + linear-conflict heuristic (a configuration it drops cannot reach the goal
in time, so no sequence is lost). A sequence of budget d + 2j (d the distance) revisits
configurations, which the pass counts by multiplicity.

>>> from puzzlesat.generator.families.sliding.puzzle import Puzzle
>>> p = Puzzle(2, 2, (1, 0, 2, 3), 3, False, 1, 1, "L", "start", "start")
>>> count_sequences(p)  # L R L, L D U, D U L
3
"""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.families.counting import Count
from puzzlesat.generator.families.sliding import npuzzle
from puzzlesat.generator.families.sliding.puzzle import Puzzle

#: configurations held at one step before the count is given up as too costly (about 200 MB)
MAX_STATES = 1_000_000
SOURCE = "exhaustive-search:puzzle-moves"

#: what a count of this family counts and how it is certified, for the suite's description
STORY = (
    "A model is a legal sequence of exactly budget moves from the start to the goal, undoing "
    "moves included (a budget of the distance plus 2j revisits positions). The count is "
    "projected (pmc) onto the move variables; every other variable follows from the moves by "
    "unit propagation, so the count over all variables is the same number. Certified by a "
    "breadth-first pass over the puzzle's own moves, never the CNF: each position reached "
    "after each step with the number of sequences that reach it, pruned by an admissible "
    "heuristic.")


def shown(puzzle: Puzzle, encoding: str, formula: Formula) -> np.ndarray:
    """The move variables: ``move`` (rotated encodings) or ``go`` (direct)."""
    return formula.var("go" if encoding == "direct" else "move").reshape(-1)


def known_count(puzzle: Puzzle, encoding: str, formula: Formula, shown: np.ndarray,
                solving: Solving | None) -> Count:
    """The number of legal move sequences of exactly ``budget`` moves to the goal
    (:func:`count_sequences`), the same for every encoding."""
    value = count_sequences(puzzle)
    if value is None:
        return Count(None, f"none (more than {MAX_STATES:,} configurations at one step)")
    return Count(value, SOURCE)


def count_sequences(puzzle: Puzzle, max_states: int = MAX_STATES) -> int | None:
    """Move sequences of exactly ``puzzle.budget`` moves from its start to the goal, none
    undoing the previous move when ``puzzle.no_undo``; None past ``max_states`` configurations
    at one step."""
    rows, cols, budget = puzzle.rows, puzzle.cols, puzzle.budget
    goal = npuzzle.goal(rows, cols)
    if npuzzle.heuristic(puzzle.start, rows, cols) > budget:
        return 0
    # (configuration, last move or "") -> number of sequences reaching it
    layer: dict[tuple[tuple, str], int] = {(tuple(puzzle.start), ""): 1}
    for step in range(budget):
        left = budget - step - 1
        nxt: dict[tuple[tuple, str], int] = {}
        for (config, last), ways in layer.items():
            for letter in npuzzle.MOVES:
                if puzzle.no_undo and last and npuzzle.INVERSE[last] == letter:
                    continue
                moved = npuzzle.move(config, rows, cols, letter)
                if moved is None or npuzzle.heuristic(moved, rows, cols) > left:
                    continue
                key = (moved, letter if puzzle.no_undo else "")
                nxt[key] = nxt.get(key, 0) + ways
        if len(nxt) > max_states:
            return None
        layer = nxt
    return sum(ways for (config, _), ways in layer.items() if config == goal)

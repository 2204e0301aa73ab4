"""Sliding-tile puzzles and move sequences: their JSON forms, the rules a solution must keep
(written without looking at any encoding) and the known witness."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from puzzlesat.generator.core.errors import prefixed
from puzzlesat.generator.core.structured import (
    get_bool,
    get_int,
    get_int_list,
    get_str,
    json_object,
)
from puzzlesat.generator.families.sliding import npuzzle


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
    """The puzzle as JSON (every field, so a header describes it fully)."""
    return {"rows": p.rows, "cols": p.cols, "start": list(p.start), "budget": p.budget,
            "no_undo": p.no_undo, "distance": p.distance, "lower_bound": p.lower_bound,
            "path": p.path, "source": p.source, "origin": p.origin}


def puzzle_from_json(d: dict) -> Puzzle:
    """The puzzle from its JSON (each field of its JSON type); a UserError when its start is
    not a solvable board."""
    rows, cols = get_int(d, "rows", "puzzle", lo=1), get_int(d, "cols", "puzzle", lo=1)
    tiles = get_int_list(d, "start", "puzzle")
    with prefixed("puzzle start: "):
        start = npuzzle.check_config(tiles, rows, cols)
    return Puzzle(rows, cols, start, get_int(d, "budget", "puzzle", lo=0),
                  get_bool(d, "no_undo", "puzzle"), _maybe(d, "distance", get_int),
                  get_int(d, "lower_bound", "puzzle", lo=0), _maybe(d, "path", get_str),
                  get_str(d, "source", "puzzle"), get_str(d, "origin", "puzzle"))


def _maybe(d: dict, key: str, read) -> Any:
    """``d[key]`` read by ``read``, or None when it is null (a distance or path not known)."""
    return None if json_object(d, "puzzle").get(key, 0) is None else read(d, key, "puzzle")


def solution_to_json(s: Solution) -> dict:
    """The solution as JSON: its moves as letters."""
    return {"moves": s.moves}


def solution_from_json(d: dict) -> Solution:
    """The solution from its JSON: its moves, a string."""
    return Solution(get_str(d, "moves", "solution"))



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


#: with --no-undo, 12 moves around the 2x2 block at the goal's blank restore the goal without
#: undoing a move; the loop is chosen so its first move does not undo the trace's last move
_NO_UNDO_LOOPS = ("RDLU" * 3, "DRUL" * 3)


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

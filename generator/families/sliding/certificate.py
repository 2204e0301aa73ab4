"""Known answers of sliding-tile puzzles and the certificate the validator checks itself.

The parity argument (``expected-from: parity``). A move slides a tile into the blank, so the
blank steps to a neighbouring square and the colour of its square on a checkerboard flips. The
goal has the blank on square 0; so every move sequence that ends in the goal has the parity of
the start's blank square colour ((row + column) mod 2), and a budget of the other parity is
unreachable, whatever the solver. The argument is checked on the puzzle alone: its start and
budget.

The other UNSAT answers (a budget below an optimal trace's length or IDA*'s proved lower bound)
come from a search, which the validator does not redo: they are not certificates it checks.
A budget cut from a shipped optimal trace is known by construction
(:func:`known_by_construction` replays the trace), not verified.
"""

from __future__ import annotations

import re

from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.families.sliding import npuzzle
from puzzlesat.generator.families.sliding.puzzle import Puzzle, witness

#: the ``expected-from`` of a budget of the wrong parity: the argument that refutes it
CERTIFICATE = "parity"
#: the source of an answer known from a shipped optimal trace
TRACE = "optimal-trace"


def _parity_refutes(puzzle: Puzzle) -> bool:
    """Whether the budget has the other parity than every solution of the start."""
    return (puzzle.budget - npuzzle.distance_parity(puzzle.start, puzzle.cols)) % 2 == 1


def expected(puzzle: Puzzle, params: dict, solving: Solving | None = None) -> tuple[str, str]:
    """The known answer: UNSAT by parity or below the lower bound, SAT when the witness pads a
    known path to the budget, else UNKNOWN."""
    if _parity_refutes(puzzle):
        return "UNSAT", CERTIFICATE
    if puzzle.budget < puzzle.lower_bound:
        return "UNSAT", puzzle.source
    if witness(puzzle) is not None:
        return "SAT", puzzle.source
    return "UNKNOWN", "none"


def check_certificate(puzzle: Puzzle, source: str) -> tuple[bool, str] | None:
    """The parity argument checked on ``puzzle`` when ``source`` names it: (holds, why); None
    for any other source."""
    if source != CERTIFICATE:
        return None
    blank = npuzzle.distance_parity(puzzle.start, puzzle.cols)
    if not _parity_refutes(puzzle):
        return False, (f"{CERTIFICATE}: the budget {puzzle.budget} has the parity of the "
                       "blank's square, so parity refutes nothing")
    return True, (f"{CERTIFICATE}: every move flips the colour of the blank's square, the goal "
                  f"has it on colour 0 and the start on colour {blank}, so every solution has "
                  f"{'an odd' if blank else 'an even'} length, and the budget is "
                  f"{puzzle.budget}")


def known_by_construction(puzzle: Puzzle, source: str) -> tuple[bool, str] | None:
    """For ``optimal-trace``: (whether the start lies on the shipped optimal trace its origin
    names, as many moves before the goal as its distance says, and the budget is below that
    distance: no trace reaches the goal in it; why). The trace's optimality is the published
    result of clausecker/24puzzle's optimal solver (Korf and Felner's 50 instances and 386
    random ones), replayed here but not proved: a known answer, not a verified one. None for
    any other source."""
    if source != TRACE:
        return None
    found = re.fullmatch(r"(korf|random)([0-9]{1,3}) k=([0-9]{1,3})", str(puzzle.origin))
    if found is None:
        return False, f"{TRACE}: the puzzle's origin {str(puzzle.origin)[:40]!r} names no trace"
    kind, number, k = found[1], int(found[2]), int(found[3])
    traces = npuzzle.korf_traces() if kind == "korf" else npuzzle.random_traces()
    if not 1 <= number <= len(traces) or k > traces[number - 1].length:
        return False, f"{TRACE}: no trace {kind}{number} of {k} moves or more"
    start, rest = traces[number - 1].truncation(k)
    if (puzzle.rows, puzzle.cols, tuple(puzzle.start), puzzle.lower_bound) != (5, 5, start, k):
        return False, (f"{TRACE}: the start is not the configuration {k} moves before the goal "
                       f"on trace {kind}{number}, or its distance is not {k}")
    credit = ("Korf and Felner's instance, its optimal path as published in clausecker/24puzzle"
              if kind == "korf" else "a random instance, its optimal path as published in "
              "clausecker/24puzzle")
    why = (f"{TRACE}: the start lies {k} moves before the goal on the optimal trace of "
           f"{kind}{number} ({credit}), so its distance is {k}")
    if puzzle.budget >= k:
        return False, f"{why}, and the budget {puzzle.budget} reaches it"
    return True, f"{why}, more than the budget {puzzle.budget}"

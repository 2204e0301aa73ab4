"""Known answers of sliding-tile puzzles and the certificate the validator checks itself.

The parity argument (``expected-from: parity``). A move slides a tile into the blank, so the
blank steps to a neighbouring square and the colour of its square on a checkerboard flips. The
goal has the blank on square 0; so every move sequence that ends in the goal has the parity of
the start's blank square colour ((row + column) mod 2), and a budget of the other parity is
unreachable, whatever the solver. The argument is checked on the puzzle alone: its start and
budget.

The other UNSAT answers (a budget below an optimal trace's length or IDA*'s proved lower bound)
come from a search, which the validator does not redo: they are not certificates it checks.
"""

from __future__ import annotations

from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.families.sliding import npuzzle
from puzzlesat.generator.families.sliding.puzzle import Puzzle, witness

#: the ``expected-from`` of a budget of the wrong parity: the argument that refutes it
CERTIFICATE = "parity"


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

"""Known answers of edge matching (:func:`expected`) and its certified UNSAT variant: a
planted puzzle with one side of one center piece recoloured, refuted by counting sides.

The argument (``parity:colour-count``). In a solution of a bounded puzzle the frame colour 0
lies exactly on the 2R+2C outer sides of the board (the piece classes hold exactly that many
frame sides), so every other side of every piece lies on an internal edge, against one side
of the same colour (signed puzzles: of the opposite sign). An internal edge thus accounts for
two sides of one colour (by absolute value), and in a solvable bounded puzzle every non-frame
colour occurs on an even number of sides, counted over all pieces. Recolouring one side
from colour a to colour b (|a| != |b|) leaves a and b with an odd count: no board matches
every edge, whatever the solver. Frame sides are not counted; border and center colours
are counted alike (each colour is one count, whatever class its sides belong to). The argument
needs the frame: an unbounded puzzle's outer sides meet nothing, so it does not apply there.
"""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.families.edgematch.geometry import FRAME
from puzzlesat.generator.families.edgematch.puzzle import Puzzle, witness

#: the ``expected-from`` of a recoloured puzzle: the argument that refutes it
CERTIFICATE = "parity:colour-count"
#: ``--unsat`` values: how a planted puzzle is made unsolvable
UNSAT_CHOICES = ("parity",)


def recolour_side(puzzle: Puzzle, center_colors: int, rng) -> Puzzle:
    """``puzzle`` with one side of one center piece recoloured to another center colour
    (same sign when signed), drawn from ``rng`` after the planted puzzle: piece, side, then
    the new colour among the ``center_colors - 1`` others. Classes and domains stay valid."""
    if not puzzle.bounded:
        raise UserError("edge-matching: --unsat parity needs the frame (an unbounded puzzle's "
                        "outer sides meet nothing, so side counts prove nothing)")
    if center_colors < 2:
        raise UserError("edge-matching: --unsat parity recolours a side to another center "
                        f"colour: needs --center-colors of at least 2, got {center_colors}")
    centers = np.flatnonzero((puzzle.pieces != FRAME).all(axis=1))
    piece = int(centers[rng.integer(centers.size)])
    side = rng.integer(4)
    old = int(puzzle.pieces[piece, side])
    others = [k for k in range(1, center_colors + 1) if k != abs(old)]
    new = others[rng.integer(len(others))] * (1 if old > 0 else -1)
    pieces = puzzle.pieces.copy()
    pieces[piece, side] = new
    return Puzzle(puzzle.rows, puzzle.cols, pieces, puzzle.bounded, puzzle.signed,
                  puzzle.source, puzzle.turn_seed)


def side_counts(puzzle: Puzzle) -> dict[int, int]:
    """Colour (absolute value) -> number of piece sides showing it, frame sides left out."""
    values = np.abs(puzzle.pieces.reshape(-1))
    colours, counts = np.unique(values[values != FRAME], return_counts=True)
    return dict(zip(colours.tolist(), counts.tolist()))


def odd_colours(puzzle: Puzzle) -> dict[int, int]:
    """The colours of :func:`side_counts` with an odd count (empty for any solvable bounded
    puzzle)."""
    return {k: n for k, n in side_counts(puzzle).items() if n % 2}


def check_certificate(puzzle: Puzzle, source: str) -> tuple[bool, str] | None:
    """The counting argument checked on ``puzzle`` when ``source`` names it: (holds, why);
    None for any other source."""
    if source != CERTIFICATE:
        return None
    if not puzzle.bounded:
        return False, f"{CERTIFICATE} needs a bounded puzzle (this one has no frame)"
    odd = odd_colours(puzzle)
    if not odd:
        return False, (f"{CERTIFICATE}: every colour occurs on an even number of sides, "
                       "so counting refutes nothing")
    shown = ", ".join(f"colour {k} on {n} sides" for k, n in odd.items())
    return True, (f"{CERTIFICATE}: {shown} (frame sides not counted); in a bounded board "
                  "every non-frame side lies on an internal edge beside a side of its colour, "
                  "so every count must be even")


def expected(puzzle: Puzzle, params: dict, solving: Solving | None = None) -> tuple[str, str]:
    """SAT when planted or listed in solved order; UNSAT when a bounded puzzle has a colour on
    an odd number of sides (checked again by the validator); else UNKNOWN."""
    if puzzle.planted is not None:
        return "SAT", "planted"
    if puzzle.bounded and odd_colours(puzzle):
        return "UNSAT", CERTIFICATE
    if witness(puzzle) is not None:
        return "SAT", "planted (pieces listed in solved order)"
    return "UNKNOWN", "none"


def known_by_construction(puzzle: Puzzle, source: str) -> tuple[bool, str] | None:
    """None: every answer of the family that is not planted is refuted by
    :func:`check_certificate`, none is taken from shipped data."""
    return None

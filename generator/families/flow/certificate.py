"""Known answers of Flow (:func:`expected`) and its certified UNSAT variant: a planted grid with one endpoint moved to a free cell of the other
checkerboard colour, refuted by counting cells.

The argument (``parity:checkerboard``). Colour cell (r, c) black when r + c is even. A path
alternates black and white cells, so a path with both endpoints black has one black cell more
than white ones, both white one white cell more, one of each as many of both: a path adds
(its black endpoints − 1) to #black − #white. A cycle adds 0. Every cell lies on exactly one
path or cycle (cycles count too: a model of the ``zucker`` clauses may hold free-standing
cycles, and ``acyclic`` and ``zucker-2x2`` contain every ``zucker`` clause), and each colour
has one path between its two endpoints, so a solvable grid has
``#black − #white = #black endpoints − #colours``. Moving one endpoint to a cell of the other
checkerboard colour changes the right side by one and leaves the left side: the grid has no
solution, whatever the solver.
"""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.families.flow.encode import encode
from puzzlesat.generator.families.flow.puzzle import Puzzle

#: the ``expected-from`` of a moved-endpoint grid: the argument that refutes it
CERTIFICATE = "parity:checkerboard"
#: ``--unsat`` values: how a planted grid is made unsolvable
UNSAT_CHOICES = ("parity",)


def _black(shape: tuple[int, int]) -> np.ndarray:
    rows, cols = np.indices(shape)
    return (rows + cols) % 2 == 0


def move_endpoint(puzzle: Puzzle, rng) -> Puzzle:
    """``puzzle`` with one endpoint (row-major index drawn from ``rng``) moved to a free cell
    of the other checkerboard colour (drawn next, row-major among those cells)."""
    black = _black(puzzle.endpoints.shape)
    ends = np.argwhere(puzzle.endpoints >= 0)
    r, c = ends[rng.integer(len(ends))]
    targets = np.argwhere((puzzle.endpoints < 0) & (black != black[r, c]))
    if not len(targets):
        raise UserError("flow: --unsat parity moves an endpoint to a free cell of the other "
                        "checkerboard colour, and this grid has none; use a larger grid")
    i, j = targets[rng.integer(len(targets))]
    endpoints = puzzle.endpoints.copy()
    endpoints[i, j], endpoints[r, c] = endpoints[r, c], -1
    return Puzzle(endpoints, puzzle.labels, puzzle.name)


def balance(puzzle: Puzzle) -> tuple[int, int]:
    """(#black − #white cells, #black endpoints − #colours): equal in every solvable grid."""
    black = _black(puzzle.endpoints.shape)
    cells = int(black.sum()) - int((~black).sum())
    return cells, int((black & (puzzle.endpoints >= 0)).sum()) - puzzle.num_colors


def check_certificate(puzzle: Puzzle, source: str) -> tuple[bool, str] | None:
    """The checkerboard count checked on ``puzzle`` when ``source`` names it: (holds, why);
    None for any other source."""
    if source != CERTIFICATE:
        return None
    cells, ends = balance(puzzle)
    if cells == ends:
        return False, (f"{CERTIFICATE}: #black - #white cells = #black endpoints - #colours "
                       f"= {cells}, so counting refutes nothing")
    return True, (f"{CERTIFICATE}: #black - #white cells = {cells}, but #black endpoints - "
                  f"#colours = {ends}; every path adds its black endpoints - 1 and every cycle "
                  "0 to the first, so they must be equal")


def expected(puzzle: Puzzle, params: dict, solving: Solving | None = None) -> tuple[str, str]:
    """Planted grids are SAT. A level file is UNKNOWN unless the ``certify`` param is set: then
    its ``zucker`` formula must be proved UNSAT by ``solving`` (a solver plus proof checker,
    passed in by the caller: see :class:`puzzlesat.generator.core.solving.Solving`);
    ``zucker-2x2`` and ``acyclic`` contain every ``zucker`` clause, so the certificate covers
    them too. ``unsat`` grids are UNSAT by the checkerboard count (:func:`check_certificate`)."""
    if params.get("unsat") == "parity":
        checked = check_certificate(puzzle, CERTIFICATE)
        assert checked is not None and checked[0], checked  # move_endpoint unbalances it
        return "UNSAT", CERTIFICATE
    if puzzle.planted is not None:
        if puzzle.attempts:
            return "SAT", (f"planted, unique ({puzzle.solver}, {puzzle.attempts} "
                           f"attempt{'s' if puzzle.attempts > 1 else ''})")
        return "SAT", "planted"
    if not params.get("certify"):
        return "UNKNOWN", "none"
    if solving is None:
        raise UserError("flow: --certify needs a proof checker, and none was passed in (make "
                        "the instance with `puzzlesat generate` or a suite)")
    source = solving.certify_unsat(encode(puzzle, "zucker"))
    if not source:
        raise UserError(f"flow: --certify: {puzzle.name or 'puzzle'} has no checked UNSAT "
                        "proof under zucker (it may be solvable)")
    return "UNSAT", source


def known_by_construction(puzzle: Puzzle, source: str) -> tuple[bool, str] | None:
    """None: every answer of the family that is not planted is refuted by
    :func:`check_certificate`, none is taken from shipped data."""
    return None

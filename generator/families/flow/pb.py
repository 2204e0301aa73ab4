"""Flow as a pseudo-Boolean problem: one colour per cell and the degree of every cell as linear
constraints, a decision form whose checkerboard variant comes with the one linear combination
that refutes it.

Encoding ``degree``. Variables, in order: ``x[v, k]`` cell v (row-major) has colour k;
``e[a]`` the cells of adjacent pair a are linked (pairs as
:func:`~puzzlesat.generator.core.grid.adjacent_pairs` lists them). Constraints, in order:

* ``one_colour``   Σ_k x[v, k] = 1 per cell;
* ``endpoint``     x[v, k] ≥ 1 for an endpoint v of colour k;
* ``degree``       Σ {e[a] : a touches v} = 1 at an endpoint, 2 elsewhere;
* ``link_colour``  a link joins cells of one colour: e[a] + x[u, k] − x[w, k] ≤ 1 both ways, per
  pair and colour (written ``≥`` over the negated terms);
* ``touching``     two neighbours of one colour are linked (a path never touches itself, the
  puzzle's rule): x[u, k] + x[w, k] − e[a] ≤ 1.

Where the CNF encodings (:mod:`.encode`) give every cell a direction type among six and
forbid every other pair of links by clauses, the degree is one equality per cell. Like
``zucker`` it admits free-standing cycles of one colour (each cell of a cycle has degree 2):
a model of it is a solution unless it holds one, which the referee reports.

The checkerboard variant (``--unsat parity``) moves one endpoint to a cell of the other
colour (:mod:`.certificate`). Every link joins a black and a white cell, so the degrees of the
black cells and of the white cells both sum to the number of links: Σ_black d(v) =
Σ_white d(v), where d(v) is 1 at an endpoint and 2 elsewhere. Adding the ``≥`` halves of the
black cells' degree equalities and the ``≤`` halves of the white cells' (or the other way
round) cancels every link variable and leaves 0 ≥ Σ_black d − Σ_white d (or its negation),
which the moved endpoint makes positive: one ``pol`` step, no division — the argument that
LP relaxation alone finds, where resolution needs exponentially long proofs on the mutilated
chessboard. :func:`refutation` writes it as a VeriPB proof.
"""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.core.cnf import LITERAL_DTYPE
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.grid import adjacent_pairs
from puzzlesat.generator.core.opb import Opb
from puzzlesat.generator.families.flow.certificate import balance
from puzzlesat.generator.families.flow.estimate import grid_shape
from puzzlesat.generator.families.flow.puzzle import Puzzle, Solution, check
from puzzlesat.generator.families.params import Estimate

ENCODINGS = {"degree": "decision: one colour per cell, the degree of every cell (1 at an "
                       "endpoint, 2 elsewhere), links within a colour; admits stray cycles"}
OBJECTIVES: dict[str, str] = {}
HARD_SATISFIABLE = ""  # no optimisation encoding
#: the pseudo-Boolean form and the refutation of its checkerboard variant, for a description
STORY = (
    "Each cell has one colour, and the number of links it has is 1 at an endpoint and 2 "
    "elsewhere, one linear equality per cell; links join cells of one colour, and two "
    "neighbours of one colour are linked. Every link joins a black and a white cell of the "
    "checkerboard, so the degrees of the black cells and of the white cells sum to the same "
    "number. Moving one endpoint to the other colour breaks that balance: the generator's "
    "VeriPB proof adds the black cells' degree equalities and subtracts the white cells', "
    "one pol step in which every link variable cancels and 0 >= 2 remains.")


def estimate(params: dict, encoding: str, puzzle=None) -> Estimate:
    """Upper bounds on the OPB's size for n cells, C colours and P ≤ 2n adjacent pairs:
    n·C + P variables; n + 2 + n + 3·P·C constraints of at most C, 4 and 3 terms."""
    width, height, colours = grid_shape(params, puzzle)
    n = width * height
    pairs = 2 * n
    variables = n * colours + pairs
    constraints = 2 * n + 2 * colours + 3 * pairs * colours
    digits = len(str(max(variables, 1))) + 5
    terms = n * colours + 2 * colours + 4 * n + 9 * pairs * colours
    return Estimate(variables, constraints, terms * digits + constraints * 8)


def encode_opb(puzzle: Puzzle, encoding: str = "degree") -> Opb:
    """The OPB of ``puzzle`` (see the module docstring)."""
    if encoding != "degree":
        raise UserError(f"flow: unknown OPB encoding {encoding!r}")
    h, w, colours = puzzle.height, puzzle.width, puzzle.num_colors
    n = h * w
    opb = Opb()
    x = opb.new_vars("x", n, colours)
    pairs = adjacent_pairs(h, w)
    e = opb.new_vars("e", len(pairs))
    opb.add("one_colour", x, np.ones(colours, dtype=np.int64), "=", 1)
    ends = puzzle.endpoints.reshape(-1)
    at = np.flatnonzero(ends >= 0)
    opb.add("endpoint", x[at, ends[at]][:, None], np.ones(1, dtype=np.int64), ">=", 1)
    incident = _incident(pairs, e, n)
    opb.add("degree", incident, (incident != 0).astype(np.int64), "=",
            np.where(ends >= 0, 1, 2).astype(np.int64))
    a, b = pairs[:, 0], pairs[:, 1]
    ee = np.broadcast_to(e[:, None], (len(pairs), colours))
    xa, xb = x[a], x[b]
    opb.add("link_colour", np.stack([np.stack([ee, xa, xb], -1), np.stack([ee, xb, xa], -1)],
                                    axis=2).reshape(-1, 3),
            np.array([-1, -1, 1], dtype=np.int64), ">=", -1)
    opb.add("touching", np.stack([ee, xa, xb], -1).reshape(-1, 3),
            np.array([1, -1, -1], dtype=np.int64), ">=", -1)
    return opb


def _incident(pairs: np.ndarray, e: np.ndarray, n: int) -> np.ndarray:
    """``(n, 4)``: the link variables touching each cell (0-padded), in pair order."""
    cells = np.concatenate([pairs[:, 0], pairs[:, 1]])
    links = np.concatenate([e, e])
    order = np.argsort(cells, kind="stable")
    counts = np.bincount(cells, minlength=n)
    rows = np.zeros((n, 4), dtype=LITERAL_DTYPE)
    place = np.arange(cells.size) - np.repeat(np.cumsum(counts) - counts, counts)
    rows[cells[order], place] = links[order]
    return rows


def refutation(puzzle: Puzzle, encoding: str) -> bytes | None:
    """The VeriPB 2.0 proof that the ``degree`` OPB of an unbalanced grid has no solution
    (the module docstring's one step), or None when the grid is balanced."""
    cells, ends = balance(puzzle)
    if encoding != "degree" or cells == ends:
        return None
    h, w = puzzle.height, puzzle.width
    n = h * w
    endpoints = puzzle.endpoints.reshape(-1)
    d = np.where(endpoints >= 0, 1, 2)
    black = (np.add(*np.indices((h, w))) % 2 == 0).reshape(-1)
    surplus = int(d[black].sum() - d[~black].sum())  # Σ_black d − Σ_white d
    # ids: one_colour n equalities (2 each), endpoint 2C, then degree n equalities
    first = 2 * n + int((endpoints >= 0).sum())
    ge, le = first + 2 * np.arange(n) + 1, first + 2 * np.arange(n) + 2
    # surplus > 0: black >= halves and white <= halves leave 0 >= surplus
    ids = np.where(black, ge, le) if surplus > 0 else np.where(black, le, ge)
    formula = _num_ids(puzzle)
    steps = " ".join([str(int(ids[0]))] + [f"{int(i)} +" for i in ids[1:]])
    lines = ["pseudo-Boolean proof version 2.0", f"f {formula}",
             f"* black degrees sum to {int(d[black].sum())}, white ones to "
             f"{int(d[~black].sum())}: every link joins one of each",
             f"pol {steps}", "output NONE", f"conclusion UNSAT : {formula + 1}",
             "end pseudo-Boolean proof"]
    return ("\n".join(lines) + "\n").encode()


def _num_ids(puzzle: Puzzle) -> int:
    """VeriPB's constraint ids of the ``degree`` OPB (an equality has two)."""
    n, colours = puzzle.height * puzzle.width, puzzle.num_colors
    pairs = len(adjacent_pairs(puzzle.height, puzzle.width))
    return 2 * n + int((puzzle.endpoints >= 0).sum()) + 2 * n + 3 * pairs * colours


def decode_opb(puzzle: Puzzle, encoding: str, model: np.ndarray) -> Solution:
    """Colours from x (-1 where not exactly one is true), links from e."""
    h, w, colours = puzzle.height, puzzle.width, puzzle.num_colors
    n = h * w
    model = np.asarray(model, dtype=bool)
    x = model[1: 1 + n * colours].reshape(n, colours)
    pairs = adjacent_pairs(h, w)
    linked = model[1 + n * colours: 1 + n * colours + len(pairs)]
    colors = np.where(x.sum(axis=1) == 1, x.argmax(axis=1), -1)
    links = np.zeros(n, dtype=np.int64)
    a, b = pairs[linked, 0], pairs[linked, 1]
    east = b == a + 1  # the horizontal pair: b right of a; else b below a
    np.bitwise_or.at(links, a, np.where(east, 2, 4))
    np.bitwise_or.at(links, b, np.where(east, 8, 1))
    return Solution(colors.reshape(h, w), links.reshape(h, w))


def referee(puzzle: Puzzle, solution: Solution) -> tuple[list[str], int]:
    """(broken rules, 0): the puzzle's own rules (no objective)."""
    return list(check(puzzle, solution)), 0


def assignment_opb(puzzle: Puzzle, encoding: str, solution: Solution) -> np.ndarray:
    """The model (bool, index 0 unused) a solution stands for: its colours and links."""
    h, w, colours = puzzle.height, puzzle.width, puzzle.num_colors
    n = h * w
    pairs = adjacent_pairs(h, w)
    model = np.zeros(n * colours + len(pairs) + 1, dtype=bool)
    colors = solution.colors.reshape(-1)
    cells = np.flatnonzero(colors >= 0)
    model[1 + cells * colours + colors[cells]] = True
    links = solution.links.reshape(-1)
    a, b = pairs[:, 0], pairs[:, 1]
    east = b == a + 1
    joined = np.where(east, links[a] & 2, links[a] & 4) != 0
    model[1 + n * colours + np.flatnonzero(joined)] = True
    return model

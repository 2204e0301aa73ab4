"""Flow Free (Numberlink): join equal endpoints by paths that fill the grid.

The puzzle. A rectangular grid holds pairs of coloured endpoints; a solution joins each pair
by a path of orthogonally adjacent cells so that every cell lies on exactly one path. Levels
come from the article's text format (one line per row, a letter or digit is an endpoint and
appears exactly twice, ``.`` is empty; colour index = order of first appearance in a row-major
scan) or from JSON ``{"width", "height", "rows"}`` (rectangles too), or are planted here.

The article. M. Zucker, "Flow Free redux", blog post, 2016-09-02
(https://mzucker.github.io/2016/09/02/eating-sat-flavored-crow.html), with the levels of the
``mzucker/flow_solver`` repository. Its appendix table gives variables and clauses per level.

Encoding ``zucker`` (the article's, exactly; N cells, C colours):

* variables ``x(i, j, u) = (i·width + j)·C + u + 1`` (block ``x[row, col, colour]``), then
  direction-type variables ``y`` for free (non-endpoint) cells only, row-major, within a cell
  in the order LR, TB, TL, TR, BL, BR, a type existing only when both its neighbours are on the
  grid (interior cell 6, edge 3, corner 1);
* colour pass, cell by cell (row-major). Endpoint of colour u with on-grid neighbours n1..nd
  (order L, R, T, B): unit ``x(cell, u)``; units ``¬x(cell, v)``, v ≠ u; ``∨ x(n, u)``;
  pairwise ``¬x(n, u) ∨ ¬x(n', u)``. Free cell: ``∨_u x(cell, u)``; pairwise at most one colour;
* direction pass, free cell by free cell: at least one type (a unit in a corner); pairwise at
  most one type; then for each colour u, each direction L, R, T, B and each available type t
  (order as above): if t points that way, ``¬y ∨ ¬x(cell,u) ∨ x(nb,u)`` and
  ``¬y ∨ x(cell,u) ∨ ¬x(nb,u)``; otherwise, if the neighbour is on the grid,
  ``¬y ∨ ¬x(cell,u) ∨ ¬x(nb,u)``.

The two passes are the article program's order (all colour clauses, then all direction
clauses); within a cell, types are taken in the order above. Closed form:
``Σ_endpoints [C + 1 + C(d,2)] + Σ_free [1 + C(C,2) + 1 + C(k,2) + C·k·(d+2)]`` clauses for
k types and d on-grid neighbours; regular_5x5_01 has 184 variables and 2,031 clauses.

Certified UNSAT (``--unsat parity``): the planted grid with one endpoint moved to a free cell
of the other checkerboard colour; no solution (nor any model of ``zucker``, cycles included)
can balance the cell count (:mod:`.parity`). ``expected-from: parity:checkerboard``, which the
validator checks on the header's puzzle before it trusts an UNSAT answer without a proof.

The "not this colour" clauses forbid a path from touching itself, so planted paths never do.
They do not forbid free-standing cycles: a model of ``zucker`` must be decoded and checked.

Encoding ``acyclic`` = ``zucker`` + a rank order that excludes every cycle (complete and
sound). Free cells get rank bits ``rank[f, k]`` (k = 0 least significant, B = ⌈log2 F⌉ bits
for F free cells). Each adjacent pair (a, b) of free cells gets a one-directional comparator
per direction: ``equal_above[p, j]`` (bits ≥ j of a and b agree; implies bit j agrees and
``equal_above[p, j+1]``), ``less_at[p, dir, k]`` (implies X_k = 0, Y_k = 1 and equal bits
above k) and ``less[p, dir]`` → ∨_k ``less_at[p, dir, k]``; dir 0 is a < b, dir 1 is b < a.
Then per free cell u and type t whose two neighbours v, w are free:
``¬y(u, t) ∨ less(v < u) ∨ less(w < u)``. A real path satisfies it (rank = position along the
path); on a cycle the cell of least rank cannot.

Encoding ``zucker-2x2`` = ``zucker`` + per 2×2 block of free cells the clause that it is not
a 4-cycle (``¬y(tl, BR) ∨ ¬y(tr, BL) ∨ ¬y(bl, TR) ∨ ¬y(br, TL)``): cheap, not complete.

Planted generator (:mod:`.plant`): stripes along the longer side, cut into pieces; random
valid rewiring moves (merge two paths at touching ends, move an end cell to a neighbouring
path, or split a path where another path's end meets it and join the part to that end) bend
and merge them into long lanes; random cuts then give exactly the number of colours asked
for. Every count from the shorter side to ``shorter × (longer // min_path)`` (at most 62) is
met exactly; fewer colours, as in the "extreme" levels (about half the side), take more
rounds of merging, which reach about 0.3 × the side on square grids (a count not reached is
a user error). The default is about √(width·height), like real levels. Paths built this way
never touch themselves, so the planted colouring is a model of every encoding.

>>> p = parse_text("R.G\\n...\\nR.G")
>>> f = encode(p, "zucker")
>>> f.num_vars, f.num_clauses
(36, 250)
>>> q = generate({"width": 5, "height": 4, "colors": 4}, Rng(1))
>>> print(render(q, witness(q)))
AAAAA  ┌───╴
ABBBB  ╵╶──╴
CDDDD  ╷╶──┐
CCCCD  └──╴╵
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.families import Param
from puzzlesat.generator.families.flow.encode import (  # noqa: F401  (the family's surface)
    LRTB,
    TYPE_DIRS,
    TYPE_MASKS,
    TYPE_NAMES,
    TYPE_POINTS,
    acyclic_clauses,
    assignment,
    decode,
    encode,
    rank_bits,
    zucker,
)
from puzzlesat.generator.families.flow.estimate import estimate  # noqa: F401
from puzzlesat.generator.families.flow.parity import (  # noqa: F401
    CERTIFICATE,
    UNSAT_CHOICES,
    balance,
    check_certificate,
    move_endpoint,
)
from puzzlesat.generator.families.flow.plant import (  # noqa: F401
    MOVES_PER_CELL,
    PLANT_ATTEMPTS,
    UNIQUE_ATTEMPTS,
    colour_range,
    is_unique,
    plant_paths,
    planted_puzzle,
)
from puzzlesat.generator.families.flow.puzzle import (  # noqa: F401
    LABELS,
    TOUCHING,
    Puzzle,
    Solution,
    check,
    load_puzzle,
    parse_text,
    puzzle_from_json,
    puzzle_to_json,
    puzzle_to_text,
    solution_from_json,
    solution_from_paths,
    solution_to_json,
    trace_paths,
)
from puzzlesat.generator.families.flow.render import (  # noqa: F401
    render,
    render_svg,
    render_tikz,
)

NAME = "flow"
SUMMARY = "Flow Free / Numberlink: planted grids or level files; Zucker's encoding (2016)"
STORY = (
    "Flow Free (Numberlink) asks for paths joining equal coloured endpoints that together "
    "fill the grid. Instances use the SAT encoding of Zucker's 'Flow Free redux' (2016): one-hot "
    "cell colours and direction types whose clauses make neighbours along a path share a colour "
    "and all other neighbours differ. That encoding admits free-standing cycles, so the "
    "'acyclic' variant adds rank bits that every free cell must descend along its path, and "
    "'zucker-2x2' forbids 2×2 cycles only. Planted grids are path covers grown from stripes by "
    "random moves that keep every path from touching itself (merges, end-cell moves, "
    "rewiring) and then cut into exactly the requested number of paths, so their known "
    "solution is a model of every encoding (expected SAT, from the planted solution); level "
    "files are UNKNOWN unless their unsatisfiability is certified by a checked DRAT proof."
)
REFERENCES = (
    {
        "type": "blog",
        "title": "Flow Free redux",
        "authors": [{"family-names": "Zucker", "given-names": "Matt"}],
        "year": 2016,
        "url": "https://mzucker.github.io/2016/09/02/eating-sat-flavored-crow.html",
    },
)
HARDNESS_PARAM = "width"

ENCODINGS = {
    "zucker": "Zucker 2016: one-hot colours and direction types (admits stray cycles)",
    "acyclic": "zucker + rank bits that exclude every cycle",
    "zucker-2x2": "zucker + no 2x2 cycle of free cells",
}

PARAMS: tuple[Param, ...] = (
    Param("width", int, None, "Grid width (planted grids).", minimum=1),
    Param("height", int, None, "Grid height (planted grids).", minimum=1),
    Param("colors", int, None, "Number of colours, met exactly: always from the shorter side up "
          "to (shorter side) * (longer side // min-path), at most 62 (n..62 for n x n with "
          "n = 15..62 and min-path 3); fewer by merging paths, down to about 0.3 n (extreme "
          "levels use about 0.5 n) [default: about sqrt(width*height), as real levels].",
          minimum=1),
    Param("min_colors", int, None, "Draw the number of colours from min..max.", minimum=1),
    Param("max_colors", int, None, "Upper end of the colour range.", minimum=1),
    Param("min_path", int, 3, "Shortest planted path, in cells.", minimum=2),
    Param("unique", bool, False, "Keep only grids whose solution a solver proves unique."),
    Param("puzzle", str, None, "A level file: the article's text format or JSON.", file=True),
    Param("certify", bool, False,
          "Level files: prove UNSAT with a checked DRAT proof (puzzlesat.validate.proof)."),
    Param("unsat", str, None, "Make the planted grid unsolvable with a certificate: 'parity' "
          "moves one endpoint to a free cell of the other checkerboard colour, so the cell "
          f"count cannot balance ({CERTIFICATE}).", choices=UNSAT_CHOICES),
)


# -- the contract: params, generation, expected results ----------------------------------------
def uses_seed(params: dict) -> bool:
    """Whether the grid is drawn (a level file leaves nothing to the seed)."""
    return "puzzle" not in params


def instance_name(params: dict, draw: str | None, encoding: str) -> str:
    """``flow-<size>-<colours>...-<encoding>``; a level file is named by its stem."""
    if "puzzle" in params:
        stem = re.sub(r"[^A-Za-z0-9_-]+", "-", Path(params["puzzle"]).name.split(".")[0])
        return f"flow-{stem}-{encoding}"
    if "colors" in params:
        colors = f"c{params['colors']}"
    elif "min_colors" in params:
        colors = f"c{params['min_colors']}-{params['max_colors']}"
    else:
        colors = "cauto"
    flags = "-u" if params.get("unique") else ""
    if params.get("min_path", 3) != 3:
        flags += f"-m{params['min_path']}"
    if "unsat" in params:
        flags += f"-{params['unsat']}"
    return f"flow-{params['width']}x{params['height']}-{colors}{flags}-{draw}-{encoding}"


def generate(params: dict, rng: Rng) -> Puzzle:
    """A level file (``puzzle``) or a planted grid (``width``, ``height``, colours).

    With ``unique``, planted grids are drawn until :func:`is_unique` proves one unique; the
    number of grids drawn is kept in ``Puzzle.attempts`` and shown in ``expected-from``."""
    planted_keys = ("width", "height", "colors", "min_colors", "max_colors", "unique", "unsat")
    if "puzzle" in params:
        extra = [k for k in planted_keys if params.get(k)]
        if extra:
            raise UserError(f"flow: --{extra[0].replace('_', '-')} does not apply with --puzzle")
        return load_puzzle(params["puzzle"])
    if params.get("certify"):
        raise UserError("flow: --certify applies to --puzzle files only (planted grids are SAT)")
    if "width" not in params or "height" not in params:
        raise UserError("flow: give --width and --height, or --puzzle")
    width, height, min_path = params["width"], params["height"], params.get("min_path", 3)
    low, high = _color_range(params, width, height, min_path)
    attempts = UNIQUE_ATTEMPTS if params.get("unique") else 1
    for attempt in range(1, attempts + 1):
        colors = low + rng.integer(high - low + 1) if high > low else low
        puzzle = planted_puzzle(width, height, plant_paths(width, height, colors, min_path, rng))
        if params.get("unique"):
            if not is_unique(puzzle):
                continue
            puzzle.attempts = attempt
        if params.get("unsat") == "parity":  # drawn after the planted grid: same grid as without
            puzzle = move_endpoint(puzzle, rng)
        return puzzle
    raise UserError(f"flow: no unique {width}x{height} grid with {_counts(low, high)} colours "
                    f"and paths of at least {min_path} cells after {attempts} attempts; try "
                    "more colours or a smaller grid")


def _counts(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}..{high}"


def default_colors(width: int, height: int, min_path: int) -> int:
    """About √(width·height), what real levels use: the article's n×n levels have about n
    colours (regular 5x5..9x9: 5-9; jumbo 10x10..14x14: 11-16; extreme ones fewer, 4-10),
    the spec's "pair count around √(w·h)"; clipped to :func:`colour_range`.

    >>> default_colors(12, 12, 3), default_colors(20, 5, 3), default_colors(60, 60, 3)
    (12, 10, 60)
    """
    low, high = colour_range(width, height, min_path)
    return min(max(round(math.sqrt(width * height)), low), high)


def _color_range(params: dict, width: int, height: int, min_path: int) -> tuple[int, int]:
    """The colour counts asked for, checked against :func:`colour_range`."""
    low, high = colour_range(width, height, min_path)
    if high == 0:
        raise UserError(f"flow: no {width}x{height} grid has paths of at least {min_path} cells "
                        f"(the longer side is {max(width, height)}); try a shorter --min-path")
    if "colors" in params:
        if "min_colors" in params or "max_colors" in params:
            raise UserError("flow: give --colors or --min-colors/--max-colors, not both")
        asked = (params["colors"], params["colors"])
    elif "min_colors" in params or "max_colors" in params:
        if "min_colors" not in params or "max_colors" not in params:
            raise UserError("flow: --min-colors and --max-colors go together")
        if params["min_colors"] > params["max_colors"]:
            raise UserError(f"flow: --min-colors {params['min_colors']} exceeds --max-colors "
                            f"{params['max_colors']}")
        asked = (params["min_colors"], params["max_colors"])
    else:
        colors = default_colors(width, height, min_path)
        return colors, colors
    if asked[1] > high:
        raise UserError(f"flow: a {width}x{height} grid with paths of at least {min_path} cells "
                        f"takes {low}..{high} colours (fewer when the grid allows), asked for "
                        f"{_counts(*asked)}")
    return asked


def expected(puzzle: Puzzle, params: dict, certify=None) -> tuple[str, str]:
    """Planted grids are SAT. A level file is UNKNOWN unless the ``certify`` param is set: then
    its ``zucker`` formula must be proved UNSAT by ``certify`` (a solver plus proof checker,
    passed in by the caller: see :data:`puzzlesat.generator.families.Certifier`);
    ``zucker-2x2`` and ``acyclic`` contain every ``zucker`` clause, so the certificate covers
    them too. ``unsat`` grids are UNSAT by the checkerboard count (:mod:`.parity`)."""
    if params.get("unsat") == "parity":
        checked = check_certificate(puzzle, CERTIFICATE)
        assert checked is not None and checked[0], checked  # move_endpoint unbalances it
        return "UNSAT", CERTIFICATE
    if puzzle.planted is not None:
        if puzzle.attempts:
            return "SAT", (f"planted, unique (cadical195, {puzzle.attempts} "
                           f"attempt{'s' if puzzle.attempts > 1 else ''})")
        return "SAT", "planted"
    if not params.get("certify"):
        return "UNKNOWN", "none"
    if certify is None:
        raise UserError("flow: --certify needs a proof checker; it is a `puzzlesat generate` "
                        "option, not a suite parameter")
    source = certify(encode(puzzle, "zucker"))
    if not source:
        raise UserError(f"flow: --certify: {puzzle.name or 'puzzle'} has no checked UNSAT "
                        "proof under zucker (it may be solvable)")
    return "UNSAT", source


def witness(puzzle: Puzzle) -> Solution | None:
    """The planted solution, or None for a grid read from a file."""
    return puzzle.planted

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
can balance the cell count (:mod:`.certificate`). ``expected-from: parity:checkerboard``, which the
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

Layout (every family has the same files): :mod:`.puzzle` (Puzzle, Solution, level files, JSON,
the referee, the witness), :mod:`.generate`, :mod:`.plant` (planting and the uniqueness test),
:mod:`.encode` (encode, decode, assignment), :mod:`.certificate`, :mod:`.estimate`,
:mod:`.render`; this module is the family's card and gathers its contract.

>>> from puzzlesat.generator.core.seeds import Rng
>>> from puzzlesat.generator.families.flow.puzzle import parse_text
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

from puzzlesat.generator.families.flow import count, pb
from puzzlesat.generator.families.flow.certificate import (
    CERTIFICATE,
    UNSAT_CHOICES,
    check_certificate,
    expected,
    known_by_construction,
)
from puzzlesat.generator.families.flow.encode import assignment, decode, encode
from puzzlesat.generator.families.flow.estimate import estimate
from puzzlesat.generator.families.flow.generate import generate, instance_name, uses_seed
from puzzlesat.generator.families.flow.puzzle import (
    Puzzle,
    Solution,
    check,
    puzzle_from_json,
    puzzle_to_json,
    solution_from_json,
    solution_to_json,
    witness,
)
from puzzlesat.generator.families.flow.render import render, render_svg, render_tikz
from puzzlesat.generator.families.params import Param

NAME = "flow"
SUMMARY = "Flow Free / Numberlink: planted grids or level files; Zucker's encoding (2016)"
PICTURE_MARKS = ""  # what a description's caption says its picture marks
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

#: the family's module for each track beyond SAT (whose contract this card's names keep):
#: model counting and, where the family has one, its MaxSAT and pseudo-Boolean forms
TRACKS = {"mc": count, "pb": pb}

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

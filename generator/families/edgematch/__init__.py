"""Edge matching: square pieces with coloured sides, placed on an R×C grid so touching sides match.

Puzzle. Each piece has four sides N E S W (clockwise) carrying colours; colour 0 is the frame
(grey). A *bounded* puzzle puts frame colour exactly on the outer boundary: a piece with two
zeros is a corner, one zero a border piece, none a center piece. Pieces may be rotated. An
*unbounded* puzzle has no frame (every piece is a center piece, outer sides are free); a
*signed* puzzle carries half-images, and touching sides must be complementary (``v`` meets
``-v``).

Encoding (Heule 2009, the SAT Competition 2009 family ``edgematching``; recovered rule by rule
from the published files, see ``shared/specs/edge-matching.md``). No auxiliary variables:

* ``x(p, j)`` piece p on square j, piece-major in file order, one variable per square of the
  piece's class (4 corners; 2R+2C−8 border squares; (R−2)(C−2) center squares);
* ``y(d, k)`` internal edge ("diamond") d has colour k: border diamonds (between two non-center
  squares) range over the Cb border colours, the others over the Cc center colours.
  Variables = 16 + |Pborder|² + |Pcenter|² + Cb·Dborder + Cc·Dcenter.

Clause groups of ``compact``, in file order:

1. ``square_at_least_one``   one clause per square (corner, border, center class order);
2. ``piece_at_least_one``    one clause per piece;
3. ``diamond_exactly_one``   per diamond: at least one colour, then pairwise at most one;
4. ``piece_clauses``         per piece, per square: ¬x ∨ (colour of each non-frame side) for
   corners (2) and border pieces (3); center pieces by type (:data:`TYPE_PATTERNS`,
   4–20 clauses per variable);
5. ``duplicate_pieces``      for identical pieces p < q (equal up to rotation), ¬x(p,j) ∨ ¬x(q,j).

Which colour plays which role (a, b, c, d of :data:`TYPE_PATTERNS`) is read clockwise from the
first side, clockwise from N, at which the piece reads as its pattern. That is not a canonical
choice in Heule's tool: its ``shuffle(seed)`` turns a piece 180° when the piece's glibc
``rand() % 4 == 2`` (one call per piece in file order after ``srand(seed)``; its 90° branches
undo themselves), after the colours are renumbered, and it then reads roles from N. A turn
swaps the roles of type 4 (a↔b), 6 (b↔c) and 7 (a,b,c,d → c,d,a,b) pieces and nothing else.
``turn_seed`` replays this (:func:`heule_turned`). With :data:`SAT09_TURN_SEED` the clauses
equal those of five published SAT'09 files clause for clause and literal for literal (same
GBD hash): em_7_3_6 in all four encodings (cmp, fbc, exp, all) and em_9_3_5 compact (cmp).
Those are the five files in the test fixtures, and the test covers every published file
present there. The competition also published em_9_3_5 fbc, exp and all; they are not among
the fixtures, so they are not checked here.

``fbcolors`` adds ¬x ∨ ¬[s=k] for every colour k absent from a center piece (type ≠ 1), in
front of that piece's type clauses; ``explicit`` adds pairwise at-most-one over each piece's
squares after its at-least-one clause; ``all`` = both. Worked count for em-7-3-6: 1473
variables, 11563 / 19063 / 22887 / 30387 clauses.

Beyond the paper: an unbounded puzzle has one free "open" diamond per outer side (center
colours, numbered after the internal diamonds, row-major squares, sides N E S W), so every
square is a center square with four diamonds and the type clauses apply unchanged. In a
signed puzzle a diamond holds the colour seen from its top/left square; the bottom/right
square sees the complement, so colour domains are closed under negation.

Reference: Marijn J. H. Heule, "Solving edge-matching problems with satisfiability solvers",
SAT 2009 competitive events booklet / SAT 2009 workshop (Proc. SAT'09, 2009).

Certified UNSAT (``--unsat parity``): the planted puzzle with one side of one center piece
recoloured, so two colours occur on an odd number of sides; no bounded board can match them
all (:mod:`.certificate`). ``expected-from: parity:colour-count``, which the validator checks on
the header's puzzle (:func:`check_certificate`) before it trusts an UNSAT answer without a
proof.

Layout (every family has the same files): :mod:`.puzzle` (piece files, built-ins, JSON, the
referee and the witness), :mod:`.generate` (planting and names), :mod:`.geometry` (squares and
diamonds), :mod:`.encode` (the Board, the clause groups, decode and assignment),
:mod:`.certificate` (known answers and the certified UNSAT variant), :mod:`.estimate` and
:mod:`.render` (pictures); this module is the family's card and gathers its contract.
"""

from __future__ import annotations

from puzzlesat.generator.families.edgematch import count, maxsat, pb
from puzzlesat.generator.families.edgematch.certificate import (
    CERTIFICATE,
    UNSAT_CHOICES,
    check_certificate,
    expected,
    known_by_construction,
)
from puzzlesat.generator.families.edgematch.encode import (
    SAT09_TURN_SEED,
    assignment,
    decode,
    encode,
)
from puzzlesat.generator.families.edgematch.estimate import estimate
from puzzlesat.generator.families.edgematch.generate import generate, instance_name, uses_seed
from puzzlesat.generator.families.edgematch.puzzle import (
    BUILTINS,
    Puzzle,
    Solution,
    check,
    puzzle_from_json,
    puzzle_to_json,
    solution_from_json,
    solution_to_json,
    witness,
)
from puzzlesat.generator.families.edgematch.render import render, render_svg, render_tikz
from puzzlesat.generator.families.params import Param

NAME = "edge-matching"
SUMMARY = "edge-matching puzzles (Heule 2009): planted em-a-b-c, clue puzzles, Eternity II"
PICTURE_MARKS = "an arrangement's unmatched inner edges thick and red"  # what a description's caption says its picture marks
STORY = (
    "Edge-matching puzzles: square pieces with coloured sides are placed and rotated on a grid "
    "so that touching sides have the same colour and the grey frame colour lies exactly on the "
    "outer boundary (Eternity II is the famous 16x16 instance). The CNF is Heule's (SAT 2009): "
    "piece-to-square variables and edge-colour variables, no auxiliaries; `compact` is the "
    "smallest encoding, `fbcolors` adds forbidden-colour clauses, `explicit` adds explicit "
    "one-on-one clauses, `all` adds both. Random em-a-b-c instances are planted by the original "
    "method (random edge colours, pieces read off the solved board), so they are satisfiable "
    "with a known witness; Eternity II has no known solution."
)
REFERENCES = (
    {
        "type": "conference-paper",
        "title": "Solving edge-matching problems with satisfiability solvers",
        "authors": [{"family-names": "Heule", "given-names": "Marijn J. H."}],
        "year": 2009,
        "collection-title": "SAT 2009 competitive events booklet (SAT Competition 2009)",
    },
    {
        "type": "conference-paper",
        "title": "Edge matching puzzles as hard SAT/CSP benchmarks",
        "authors": [{"family-names": "Ansótegui", "given-names": "Carlos"},
                    {"family-names": "Béjar", "given-names": "Ramón"},
                    {"family-names": "Fernández", "given-names": "César"},
                    {"family-names": "Gomes", "given-names": "Carla"},
                    {"family-names": "Mateu", "given-names": "Carles"}],
        "year": 2008,
        "collection-title": "Principles and Practice of Constraint Programming (CP 2008)",
    },
)
HARDNESS_PARAM = "center_colors"

PARAMS: tuple[Param, ...] = (
    Param("rows", int, None, "Grid rows (planted puzzles; rows <= cols).", minimum=2),
    Param("cols", int, None, "Grid columns [default: rows].", minimum=2),
    Param("border_colors", int, None, "Colours of the edges along the frame (planted, bounded)."),
    Param("center_colors", int, None, "Colours of the other edges (planted)."),
    Param("pieces", str, None, "Piece file (Heule, META 2010 or JSON) or a built-in: "
          + ", ".join(BUILTINS) + ".", file=True, builtins=tuple(BUILTINS)),
    Param("scramble", bool, None, "Shuffle the planted pieces and rotate them at random."),
    Param("unbounded", bool, None, "Planted puzzle without frame (outer sides are free)."),
    Param("signed", bool, None, "Planted puzzle with signed edges (v must meet -v)."),
    Param("turn_seed", int, None, "Read center pieces as Heule's em-encode does after "
          "srand(seed): piece i turned 180 degrees iff the i-th glibc rand() % 4 == 2 "
          f"({SAT09_TURN_SEED} reproduces the SAT'09 files em_7_3_6 cmp/fbc/exp/all and "
          "em_9_3_5 cmp).", minimum=0),
    Param("unsat", str, None, "Make the planted puzzle unsolvable with a certificate: "
          "'parity' recolours one side of one center piece to another center colour, so two "
          f"colours occur on an odd number of sides ({CERTIFICATE}; bounded puzzles, at "
          "least 2 center colours).", choices=UNSAT_CHOICES),
)

ENCODINGS = {
    "compact": "Heule's smallest encoding: mapping, diamond and per-type rotation clauses",
    "fbcolors": "compact + forbidden-colour clauses for center pieces",
    "explicit": "compact + explicit at-most-one square per piece",
    "all": "compact + fbcolors + explicit",
}

#: the family's module for each track beyond SAT (whose contract this card's names keep):
#: model counting and, where the family has one, its MaxSAT and pseudo-Boolean forms
TRACKS = {"mc": count, "maxsat": maxsat, "pb": pb}

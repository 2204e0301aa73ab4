"""Sliding-tile puzzles: can this n×m configuration reach the goal in exactly ``budget`` moves?

Reproduces the benchmark family of Clausecker & Kaiser, "Sliding Puzzles", Proceedings of SAT
Competition 2021, p. 57: Korf's 24-puzzle instance 50 (optimal length 113) truncated along its
optimal trace to the configuration at distance k, with budget k (SAT, the rest of the trace is
the witness) and k−2 (UNSAT, the trace's optimality is the certificate); budget k−1 is UNSAT by
parity alone. Puzzle mechanics, the IDA* solver that certifies other starts, and the Korf data
live in :mod:`puzzlesat.generator.families.sliding.npuzzle`. Configurations list the tile per square row-major, 0 = blank,
goal ``0..nm−1``; moves U/D/L/R name the direction the blank moves.

The encodings are described in :mod:`.encode`; a budget of the wrong parity is UNSAT by a
certificate the validator checks (:mod:`.certificate`).

Layout (every family has the same files): :mod:`.puzzle` (Puzzle, Solution, JSON, the referee,
the witness), :mod:`.generate`, :mod:`.encode` (encode, decode, assignment),
:mod:`.certificate`, :mod:`.estimate`, :mod:`.render`, and :mod:`.npuzzle` (moves, IDA*, the
Korf traces); this module is the family's card and gathers its contract.
"""

from __future__ import annotations

from puzzlesat.generator.families.params import Param
from puzzlesat.generator.families.sliding import count, maxsat, pb
from puzzlesat.generator.families.sliding.certificate import (
    check_certificate,
    expected,
    known_by_construction,
)
from puzzlesat.generator.families.sliding.encode import assignment, decode, encode
from puzzlesat.generator.families.sliding.estimate import estimate
from puzzlesat.generator.families.sliding.generate import generate, instance_name, uses_seed
from puzzlesat.generator.families.sliding.puzzle import (
    Puzzle,
    Solution,
    check,
    puzzle_from_json,
    puzzle_to_json,
    solution_from_json,
    solution_to_json,
    witness,
)
from puzzlesat.generator.families.sliding.render import render, render_svg, render_tikz

NAME = "sliding"
SUMMARY = "n×m sliding-tile puzzles in exactly B moves; Korf 24-puzzle trace truncations"
PICTURE_MARKS = ""  # what a description's caption says its picture marks
STORY = (
    "Sliding-tile puzzles: an n×m tray of numbered tiles and one blank; a move slides a tile "
    "into the blank, and the question is whether the goal order is reached in exactly the "
    "given number of moves. Following Clausecker and Kaiser (SAT Competition 2021), "
    "configurations are cut from optimal solution traces of Korf's 24-puzzle instances: the "
    "configuration k moves before the goal is at distance exactly k, so budget k is "
    "satisfiable (the rest of the trace is the witness) and budget k−2 is unsatisfiable (the "
    "trace's optimality is the certificate). The default encoding stores each configuration in "
    "a frame rotated so the blank is top-left, where every move is a fixed permutation of "
    "binary tile numbers; a one-hot variant and the classical tile-at-square planning "
    "encoding are offered for comparison. Other starts are certified by an optimal IDA* "
    "search (Manhattan distance plus linear conflicts).")
REFERENCES = (
    {"type": "conference-paper", "title": "Sliding Puzzles",
     "authors": [{"family-names": "Clausecker", "given-names": "Robert"},
                 {"family-names": "Kaiser", "given-names": "Benjamin"}],
     "collection-title": "Proceedings of SAT Competition 2021", "year": 2021, "start": 57},
    {"type": "article", "title": "Disjoint pattern database heuristics",
     "authors": [{"family-names": "Korf", "given-names": "Richard E."},
                 {"family-names": "Felner", "given-names": "Ariel"}],
     "journal": "Artificial Intelligence", "volume": 134, "year": 2002, "start": 9, "end": 22},
    {"type": "article",
     "title": "Depth-first iterative-deepening: an optimal admissible tree search",
     "authors": [{"family-names": "Korf", "given-names": "Richard E."}],
     "journal": "Artificial Intelligence", "volume": 27, "year": 1985, "start": 97, "end": 109},
    {"type": "article",
     "title": "Criticizing solutions to relaxed models yields powerful admissible heuristics",
     "authors": [{"family-names": "Hansson", "given-names": "Othar"},
                 {"family-names": "Mayer", "given-names": "Andrew"},
                 {"family-names": "Yung", "given-names": "Moti"}],
     "journal": "Information Sciences", "volume": 63, "year": 1992, "start": 207, "end": 227},
)
HARDNESS_PARAM = "k"

PARAMS: tuple[Param, ...] = (
    Param("rows", int, None, "Board rows (5 for Korf traces; inferred for a square --start).",
          minimum=2),
    Param("cols", int, None, "Board columns.", minimum=2),
    Param("korf", int, None, "Korf & Felner 24-puzzle instance number (1..50).", minimum=1),
    Param("random_trace", int, None, "One of the 386 further optimal 24-puzzle traces (1..386).",
          minimum=1),
    Param("k", int, None, "Distance along the trace: start k moves before the goal "
          "[default: the whole trace].", minimum=0),
    Param("start", "ints", None, "Start configuration: tile per square row-major, 0 = blank."),
    # a walk is made move by move in Python (about 25 000 moves a second): 10^5 moves mix any
    # board IDA* can search, 10^9 ran for minutes before any size check could refuse it
    Param("walk", int, None, "Start = random walk of this many moves from the goal (seeded).",
          minimum=0, maximum=100_000),
    Param("budget", int, None, "Number of moves [default: k, or the proved distance].",
          minimum=0),
    Param("no_undo", bool, False, "Forbid a move that undoes the previous one."),
    # validate replays a header's IDA* search to certify an optimisation form's bounds, so
    # a header's node limit is work its small file did not pay for: capped at about two
    # minutes of Python (IDA* expands roughly a million nodes a second)
    Param("node_limit", int, 5_000_000, "IDA* node limit when certifying a --start/--walk "
          "(at most 10^8: about two minutes).",
          minimum=1, maximum=100_000_000),
)

ENCODINGS = {
    "rotated": "rotated frame, blank at (0,0), binary tile numbers, 2 move bits per step",
    "rotated-onehot": "rotated frame with one-hot tile numbers",
    "direct": "one-hot tile-at-square per step with explicit move and frame axioms",
}

#: the family's module for each track beyond SAT (whose contract this card's names keep):
#: model counting and, where the family has one, its MaxSAT and pseudo-Boolean forms
TRACKS = {"mc": count, "maxsat": maxsat, "pb": pb}

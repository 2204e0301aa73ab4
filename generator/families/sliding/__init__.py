"""Sliding-tile puzzles: can this n×m configuration reach the goal in exactly ``budget`` moves?

Reproduces the benchmark family of Clausecker & Kaiser, "Sliding Puzzles", Proceedings of SAT
Competition 2021, p. 57: Korf's 24-puzzle instance 50 (optimal length 113) truncated along its
optimal trace to the configuration at distance k, with budget k (SAT, the rest of the trace is
the witness) and k−2 (UNSAT, the trace's optimality is the certificate); budget k−1 is UNSAT by
parity alone. Puzzle mechanics, the IDA* solver that certifies other starts, and the Korf data
live in :mod:`puzzlesat.generator.families.sliding.npuzzle`. Configurations list the tile per square row-major, 0 = blank,
goal ``0..nm−1``; moves U/D/L/R name the direction the blank moves.

The encodings are described in :mod:`.encode`.
"""

from __future__ import annotations

import hashlib
import math

from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.families import Param
from puzzlesat.generator.families.sliding import npuzzle
from puzzlesat.generator.families.sliding.encode import (  # noqa: F401  (contract)
    assignment,
    decode,
    encode,
)
from puzzlesat.generator.families.sliding.estimate import estimate  # noqa: F401  (contract)
from puzzlesat.generator.families.sliding.puzzle import (  # noqa: F401  (contract)
    Puzzle,
    Solution,
    check,
    puzzle_from_json,
    puzzle_to_json,
    solution_from_json,
    solution_to_json,
)
from puzzlesat.generator.families.sliding.render import (  # noqa: F401  (contract)
    render,
    render_svg,
    render_tikz,
)

NAME = "sliding"
SUMMARY = "n×m sliding-tile puzzles in exactly B moves; Korf 24-puzzle trace truncations"
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
    Param("walk", int, None, "Start = random walk of this many moves from the goal (seeded).",
          minimum=0),
    Param("budget", int, None, "Number of moves [default: k, or the proved distance].",
          minimum=0),
    Param("no_undo", bool, False, "Forbid a move that undoes the previous one."),
    Param("node_limit", int, 5_000_000, "IDA* node limit when certifying a --start/--walk.",
          minimum=1),
)

ENCODINGS = {
    "rotated": "rotated frame, blank at (0,0), binary tile numbers, 2 move bits per step",
    "rotated-onehot": "rotated frame with one-hot tile numbers",
    "direct": "one-hot tile-at-square per step with explicit move and frame axioms",
}

# -- generation -------------------------------------------------------------------------------
def uses_seed(params: dict) -> bool:
    """Whether the start is drawn (only a random walk uses the seed)."""
    return "walk" in params


def _source_of(params: dict) -> str:
    given = [k for k in ("korf", "random_trace", "start", "walk") if k in params]
    if len(given) != 1:
        raise UserError("give exactly one of --korf, --random-trace, --start, --walk"
                        + (f" (got {', '.join('--' + g.replace('_', '-') for g in given)})"
                           if given else ""))
    return given[0]


def instance_name(params: dict, draw: str | None, encoding: str) -> str:
    """``sliding-<source>-b<budget>[-nu]-<encoding>``; a given start is named by its hash."""
    source = _source_of(params)
    budget = f"b{params['budget']}" if "budget" in params else "bd"
    if source in ("korf", "random_trace"):
        what = f"{source.replace('_trace', '')}{params[source]}"
        if "k" in params:
            what += f"-k{params['k']}"
    else:
        size = f"{params.get('rows', '')}x{params.get('cols', '')}"
        if source == "walk":
            what = f"{size}-walk{params['walk']}-{draw}"
        else:
            digest = hashlib.sha256(",".join(map(str, params["start"])).encode()).hexdigest()
            what = f"{size}-{digest[:8]}" if "rows" in params else f"n{len(params['start'])}-{digest[:8]}"
    undo = "-nu" if params.get("no_undo") else ""
    return f"sliding-{what}-{budget}{undo}-{encoding}"


def generate(params: dict, rng) -> Puzzle:
    """The puzzle from a Korf or random-trace instance, a given start or a random walk."""
    source = _source_of(params)
    if source in ("korf", "random_trace"):
        return _from_trace(params, source)
    if "k" in params:
        raise UserError("--k applies to --korf and --random-trace only")
    if source == "start":
        rows, cols = _board_of_start(params)
        with prefixed("--start: "):
            start = npuzzle.check_config(params["start"], rows, cols)
        origin = "start"
    else:
        rows, cols = params.get("rows", 5), params.get("cols", 5)
        start = npuzzle.replay(npuzzle.goal(rows, cols), rows, cols,
                               npuzzle.random_walk(rows, cols, params["walk"], rng))[-1]
        origin = f"walk {params['walk']}"
    result = npuzzle.ida_star(start, rows, cols, params["node_limit"])
    budget = params.get("budget", result.distance)
    if budget is None:
        raise UserError(f"--budget: no default, IDA* did not prove the distance within "
                        f"--node-limit {params['node_limit']} (distance ≥ {result.lower_bound})")
    return Puzzle(rows, cols, start, budget, params["no_undo"], result.distance,
                  result.lower_bound, result.path, "ida*", origin)


def _board_of_start(params: dict) -> tuple[int, int]:
    n = len(params["start"])
    if "rows" in params or "cols" in params:
        rows = params.get("rows") or n // params["cols"]
        cols = params.get("cols") or n // params["rows"]
        return rows, cols
    side = math.isqrt(n)
    if side * side != n or side < 2:
        raise UserError(f"--start: {n} tiles is not a square board; give --rows and --cols")
    return side, side


def _from_trace(params: dict, source: str) -> Puzzle:
    if params.get("rows", 5) != 5 or params.get("cols", 5) != 5:
        raise UserError(f"--{source.replace('_', '-')}: the traces are 24-puzzle (5x5) traces")
    traces = npuzzle.korf_traces() if source == "korf" else npuzzle.random_traces()
    number = params[source]
    if number > len(traces):
        raise UserError(f"--{source.replace('_', '-')}: unknown instance {number} "
                        f"(known: 1..{len(traces)})")
    trace = traces[number - 1]
    k = params.get("k", trace.length)
    start, rest = trace.truncation(k)
    return Puzzle(5, 5, start, params.get("budget", k), params["no_undo"], k, k, rest,
                  "optimal-trace", f"{trace.name} k={k}")


# -- known answer -----------------------------------------------------------------------------
#: with --no-undo, 12 moves around the 2x2 block at the goal's blank restore the goal without
#: undoing a move; the loop is chosen so its first move does not undo the trace's last move
_NO_UNDO_LOOPS = ("RDLU" * 3, "DRUL" * 3)


def expected(puzzle: Puzzle, params: dict, certify=None) -> tuple[str, str]:
    """The known answer: UNSAT by parity or below the lower bound, SAT when the witness pads a
    known path to the budget, else UNKNOWN."""
    parity = npuzzle.distance_parity(puzzle.start, puzzle.cols)
    if (puzzle.budget - parity) % 2:
        return "UNSAT", "parity"
    if puzzle.budget < puzzle.lower_bound:
        return "UNSAT", puzzle.source
    if witness(puzzle) is not None:
        return "SAT", puzzle.source
    return "UNKNOWN", "none"


def check_certificate(puzzle: Puzzle, source: str) -> tuple[bool, str] | None:
    """None: sliding has no solver-free certificate the validator checks (its "parity" UNSAT stays unchecked)."""
    return None


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

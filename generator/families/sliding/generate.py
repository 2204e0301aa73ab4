"""Drawing a sliding-tile puzzle: a truncated Korf or random trace, a given start or a random
walk from the goal (its distance proved by IDA*), and the instance's canonical name."""

from __future__ import annotations

import hashlib
import math

from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.families.sliding import npuzzle
from puzzlesat.generator.families.sliding.certificate import TRACE
from puzzlesat.generator.families.sliding.puzzle import Puzzle


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


def generate(params: dict, rng, solving: Solving | None = None) -> Puzzle:
    """The puzzle from a Korf or random-trace instance, a given start or a random walk
    (certified by IDA*, never by a solver: ``solving`` is not used)."""
    source = _source_of(params)
    if source in ("korf", "random_trace"):
        return _from_trace(params, source)
    if "k" in params:
        raise UserError("--k applies to --korf and --random-trace only")
    if source == "start":
        rows, cols = _board_of_start(params)
        _searchable(rows, cols, source)
        with prefixed("--start: "):
            start = npuzzle.check_config(params["start"], rows, cols)
        origin = "start"
    else:
        rows, cols = params.get("rows", 5), params.get("cols", 5)
        _searchable(rows, cols, source)
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


def _searchable(rows: int, cols: int, source: str) -> None:
    """A UserError, before any table is made, for a board wider than IDA* can search."""
    side = max(rows, cols)
    if side > npuzzle.MAX_SEARCH_SIDE:
        raise UserError(f"a {source} is certified by IDA*, whose tables for a side of {side} "
                        f"hold {side + 1}^{side} entries: rows and cols at most "
                        f"{npuzzle.MAX_SEARCH_SIDE}")


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
                  TRACE, f"{trace.name} k={k}")

"""Size estimate of a sliding-tile instance from its params alone (nothing generated or
allocated): the family's ``estimate`` (see :class:`puzzlesat.generator.families.params.Estimate`).

For a known budget K (the module docstring of the family gives the counts):

* rotated / rotated-onehot, exact: W = (nm−1)B + n + m; variables (K+1)W + 2K; clauses
  2W + 4K + 8KW (+ 4(K−1) with ``--no-undo``)
* direct, on nm = s squares with E directed edges: variables (K+1)s² + KE (exact); clauses
  at most 2s + (K+1)s·s(s−1)/2 + K + 6Ks + KE + KEs + Ks² (+ (K−1)E)

When the budget is not given it is the trace's k (Korf, random trace), at most the walk's
length (``--walk``), or, for a ``--start``, at most min(node limit, 20·s·(n+m)): a generous
bound on the optimal distance (row-by-row solving needs O(s·(n+m)) moves).
"""

from __future__ import annotations

import math

from puzzlesat.generator.families.params import Estimate

#: the longest optimal trace shipped (Korf's 24-puzzle instances and the random traces)
MAX_TRACE = 250


def board(params: dict, puzzle=None) -> tuple[int, int, int, bool]:
    """(rows, cols, budget K, no_undo) bounding an instance's size: from the puzzle read back
    from a header, else from the params (see the module docstring for an unknown budget)."""
    if puzzle is not None:
        params = {"rows": puzzle.rows, "cols": puzzle.cols, "budget": puzzle.budget,
                  "no_undo": puzzle.no_undo}
    if "start" in params:
        squares = len(params["start"])
        rows = params.get("rows") or (squares // params["cols"] if params.get("cols")
                                      else math.isqrt(squares))
        cols = params.get("cols") or (squares // rows if rows else 0)
    elif "korf" in params or "random_trace" in params:
        rows, cols = 5, 5
    else:
        rows, cols = params.get("rows", 5), params.get("cols", 5)
    rows, cols = max(int(rows or 0), 1), max(int(cols or 0), 1)
    s = rows * cols
    if "budget" in params:
        k = params["budget"]
    elif "k" in params:
        k = params["k"]
    elif "korf" in params or "random_trace" in params:
        k = MAX_TRACE
    elif "walk" in params:
        k = params["walk"]
    else:
        k = min(params.get("node_limit") or 0, 20 * s * (rows + cols))
    return rows, cols, max(int(k), 0), bool(params.get("no_undo"))


def state_width(rows: int, cols: int, encoding: str) -> int:
    """W: the variables of one configuration in the rotated frame (tiles, then the blank's
    row and column)."""
    s = rows * cols
    bits = s - 1 if encoding == "rotated-onehot" else max(1, math.ceil(math.log2(s)))
    return (s - 1) * bits + rows + cols


def digits_of(variables: int) -> int:
    """The most bytes a literal takes in a clause line: ``-123 ``."""
    return len(str(max(variables, 1))) + 2


def estimate(params: dict, encoding: str, puzzle=None) -> Estimate:
    # params bound the size closely: a puzzle is given only when read back from a header
    """Upper bounds on the CNF's size, from the params or the puzzle read back from a header."""
    rows, cols, k, no_undo = board(params, puzzle)
    s = rows * cols
    if encoding == "direct":
        edges = 2 * (rows * (cols - 1) + (rows - 1) * cols)
        variables = (k + 1) * s * s + k * edges
        groups = [(2 * s, 1), ((k + 1) * s * (s * (s - 1) // 2), 2), (k, edges),
                  (6 * k * s, 2), (k * edges, 2), (k * edges * s, 3), (k * s * s, 6),
                  ((k - 1) * edges if no_undo and k else 0, 2)]
    else:
        width = state_width(rows, cols, encoding)
        variables = (k + 1) * width + 2 * k
        groups = [(2 * width, 1), (4 * k, 3), (8 * k * width, 4),
                  (4 * (k - 1) if no_undo and k else 0, 4)]
    clauses = sum(c for c, _ in groups)
    digits = digits_of(variables)
    return Estimate(variables, clauses, sum(c * (w * digits + 2) for c, w in groups))

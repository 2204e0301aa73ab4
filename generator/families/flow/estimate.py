"""Size estimate of a Flow Free instance from its params alone (nothing generated or
allocated): the family's ``estimate`` (see :class:`puzzlesat.generator.families.params.Estimate`).

Upper bounds for N = width·height cells, C colours (at most 62 labels), P ≤ 2N adjacent
pairs and B rank bits, by clause group of :mod:`.encode`:

* variables: x N·C, y ≤ 6N; acyclic adds rank N·B, equal_above P·B, less_at 2P·B, less 2P
* colour: per cell ≤ C units + 1 + 6 (endpoints) or 1 + C(C−1)/2 (free cells)
* direction: per free cell 1 + 15 + 48C (type → neighbour colours)
* acyclic: 2P·B + P·B + 2(2P·B + P·B + P) + 6N; zucker-2x2: N
"""

from __future__ import annotations

import math

from puzzlesat.generator.families.params import Estimate

MAX_COLOURS = 62


def grid_shape(params: dict, puzzle=None) -> tuple[int, int, int]:
    """(width, height, colours) of a grid from its puzzle (read back from a header), its
    level file, or its params (which bound the size closely): what every track's estimate is
    counted from."""
    if puzzle is None and "puzzle" in params:
        from puzzlesat.generator.families.flow.puzzle import load_puzzle

        puzzle = load_puzzle(params["puzzle"])  # a level file is small next to its formula
    if puzzle is not None:
        return puzzle.width, puzzle.height, puzzle.num_colors
    width = max(int(params.get("width") or 1), 1)
    height = max(int(params.get("height") or width), 1)
    colours = (params.get("colors") or params.get("max_colors")
               or width * height // max(int(params.get("min_path") or 3), 2))
    return width, height, max(min(int(colours), MAX_COLOURS), 1)


def estimate(params: dict, encoding: str, puzzle=None) -> Estimate:
    """Upper bounds on the CNF's size, from the params or the puzzle read back from a header."""
    width, height, colours = grid_shape(params, puzzle)
    n = width * height
    c = colours
    pairs = width * (height - 1) + (height - 1) * width + height * (width - 1)
    bits = max(1, math.ceil(math.log2(n))) if n > 1 else 1
    variables = n * c + 6 * n
    groups = [(n * c, 1), (n, max(c, 4)), (n * (6 + c * (c - 1) // 2), 2),  # colour
              (n, 6), (n * 15, 2), (n * 48 * c, 3)]  # direction
    if encoding == "acyclic":
        variables += n * bits + pairs * bits + 2 * pairs * bits + 2 * pairs
        groups += [(3 * pairs * bits, 3), (2 * (3 * pairs * bits + pairs), bits + 1),
                   (6 * n, 3)]
    elif encoding == "zucker-2x2":
        groups.append((n, 4))
    clauses = sum(k for k, _ in groups)
    digits = len(str(max(variables, 1))) + 2  # "-123 " per literal
    return Estimate(variables, clauses, sum(k * (w * digits + 2) for k, w in groups))

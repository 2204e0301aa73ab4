"""Pictures of a sliding puzzle: text and SVG."""

from __future__ import annotations

from puzzlesat.generator.families.sliding.puzzle import Puzzle, Solution


def render(puzzle: Puzzle, solution: Solution | None = None) -> str:
    """The start board (blank as ``.``), the budget and, if given, the moves.

    >>> from puzzlesat.generator.families.sliding import generate, witness
    >>> p = generate({"start": [1, 2, 5, 3, 4, 0, 6, 7, 8], "no_undo": False,
    ...               "node_limit": 1000}, None)
    >>> print(render(p, witness(p)))
    1 2 5
    3 4 .
    6 7 8
    3x3, budget 3 moves, distance 3 (ida*)
    moves: ULL
    """
    w = len(str(puzzle.rows * puzzle.cols - 1))
    cells = [("." if t == 0 else str(t)).rjust(w) for t in puzzle.start]
    lines = [" ".join(cells[r * puzzle.cols:(r + 1) * puzzle.cols]) for r in range(puzzle.rows)]
    known = (f"distance {puzzle.distance}" if puzzle.distance is not None
             else f"distance ≥ {puzzle.lower_bound}")
    lines.append(f"{puzzle.rows}x{puzzle.cols}, budget {puzzle.budget} moves, {known} "
                 f"({puzzle.source})")
    if solution is not None:
        lines.append(f"moves: {solution.moves}")
    return "\n".join(lines)


def render_svg(puzzle: Puzzle, solution: Solution | None = None) -> str:
    """The start board as SVG: tiles as squares with their number, the blank empty."""
    size = 40
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{puzzle.cols * size}" '
             f'height="{puzzle.rows * size}" font-family="sans-serif" font-size="16">']
    for square, tile in enumerate(puzzle.start):
        if tile == 0:
            continue
        r, c = divmod(square, puzzle.cols)
        parts.append(f'<rect x="{c * size + 1}" y="{r * size + 1}" width="{size - 2}" '
                     f'height="{size - 2}" fill="#e8d8b0" stroke="#705020"/>'
                     f'<text x="{c * size + size / 2}" y="{r * size + size / 2 + 6}" '
                     f'text-anchor="middle">{tile}</text>')
    parts.append("</svg>")
    return "\n".join(parts)

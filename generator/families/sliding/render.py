"""Pictures of a sliding puzzle: text, SVG and TikZ."""

from __future__ import annotations

from puzzlesat.generator.core.tikz import picture
from puzzlesat.generator.families.sliding.puzzle import Puzzle, Solution


def render(puzzle: Puzzle, solution: Solution | None = None) -> str:
    """The start board (blank as ``.``), the budget and, if given, the moves.

    >>> from puzzlesat.generator.families.sliding.generate import generate
    >>> from puzzlesat.generator.families.sliding.puzzle import witness
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


def render_tikz(puzzle: Puzzle, solution: Solution | None = None, width: float = 4.0) -> str:
    """The start board as a TikZ picture ``width`` cm wide, for the description document:
    tiles as squares with their number, the blank empty (a solution's moves are not drawn).

    >>> from puzzlesat.generator.families.sliding.generate import generate
    >>> p = generate({"start": [1, 0, 2, 3], "no_undo": False, "node_limit": 1000}, None)
    >>> print(render_tikz(p, width=2))
    \\begin{tikzpicture}[x=1.000cm,y=-1.000cm]
    \\draw[black!60] (0,0) rectangle (2,2);
    \\filldraw[fill=yellow!25,draw=black!60] (0.06,0.06) rectangle (0.94,0.94) node[pos=0.5,font=\\scriptsize] {1};
    \\filldraw[fill=yellow!25,draw=black!60] (0.06,1.06) rectangle (0.94,1.94) node[pos=0.5,font=\\scriptsize] {2};
    \\filldraw[fill=yellow!25,draw=black!60] (1.06,1.06) rectangle (1.94,1.94) node[pos=0.5,font=\\scriptsize] {3};
    \\end{tikzpicture}
    """
    body = [f"\\draw[black!60] (0,0) rectangle ({puzzle.cols},{puzzle.rows});"]
    for square, tile in enumerate(puzzle.start):
        if tile:
            r, c = divmod(square, puzzle.cols)
            body.append(f"\\filldraw[fill=yellow!25,draw=black!60] ({c + 0.06:g},{r + 0.06:g}) "
                        f"rectangle ({c + 0.94:g},{r + 0.94:g}) "
                        f"node[pos=0.5,font=\\scriptsize] {{{tile}}};")
    return picture(body, puzzle.cols, width)

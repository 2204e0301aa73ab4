"""Pictures of a board: text, SVG and TikZ."""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.core.tikz import GREY, hue, picture
from puzzlesat.generator.families.edgematch.geometry import FRAME, E, N, S, W
from puzzlesat.generator.families.edgematch.puzzle import Puzzle, Solution, shown_sides


def render(puzzle: Puzzle, solution: Solution | None = None) -> str:
    """The board as text: each square shows its N, E, S and W colours ('.' = frame). Without
    a solution, the pieces are laid out in file order, unrotated.

    >>> from puzzlesat.generator.families.edgematch.puzzle import load_pieces
    >>> print(render(load_pieces("four-squares")))
    +-----+-----+
    |  3  |  3  |
    |4   1|2   4|
    |  2  |  1  |
    +-----+-----+
    |  2  |  1  |
    |4   1|2   4|
    |  3  |  3  |
    +-----+-----+
    """
    n = len(puzzle.pieces)
    if solution is None:
        solution = Solution(np.arange(n), np.zeros(n, np.int64))
    shown = shown_sides(puzzle.pieces, solution).reshape(puzzle.rows, puzzle.cols, 4)
    text = np.where(shown == FRAME, ".", shown.astype(str)) if puzzle.bounded else shown.astype(str)
    w = max(len(t) for t in text.reshape(-1))
    rule = "+" + "+".join(["-" * (3 * w + 2)] * puzzle.cols) + "+"
    lines = [rule]
    for row in text:
        lines.append("|" + "|".join(f"{' ' * (w + 1)}{t[N]:^{w}}{' ' * (w + 1)}" for t in row) + "|")
        lines.append("|" + "|".join(f"{t[W]:<{w}}{' ' * (w + 2)}{t[E]:>{w}}" for t in row) + "|")
        lines.append("|" + "|".join(f"{' ' * (w + 1)}{t[S]:^{w}}{' ' * (w + 1)}" for t in row) + "|")
        lines.append(rule)
    return "\n".join(lines)


def render_svg(puzzle: Puzzle, solution: Solution | None = None, size: int = 40) -> str:
    """The board as SVG: each square as four triangles filled by colour (frame grey)."""
    n = len(puzzle.pieces)
    if solution is None:
        solution = Solution(np.arange(n), np.zeros(n, np.int64))
    shown = shown_sides(puzzle.pieces, solution)
    values = sorted(set(np.abs(shown).reshape(-1).tolist()))
    hue = {v: (i * 137) % 360 for i, v in enumerate(values)}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{puzzle.cols * size}" '
           f'height="{puzzle.rows * size}">']
    corners = [(0, 0), (1, 0), (1, 1), (0, 1)]  # NW NE SE SW, unit square
    for q in range(n):
        r, c = divmod(q, puzzle.cols)
        cx, cy = (c + 0.5) * size, (r + 0.5) * size
        for s in range(4):
            (ax, ay), (bx, by) = corners[s], corners[(s + 1) % 4]
            v = int(shown[q, s])
            fill = "#999" if (v == FRAME and puzzle.bounded) else \
                f"hsl({hue[abs(v)]},{70 if v >= 0 else 40}%,{55 if v >= 0 else 35}%)"
            points = f"{(c + ax) * size},{(r + ay) * size} {(c + bx) * size},{(r + by) * size} {cx},{cy}"
            out.append(f'<polygon points="{points}" fill="{fill}" stroke="#333" stroke-width="0.5"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def render_tikz(puzzle: Puzzle, solution: Solution | None = None, width: float = 4.0) -> str:
    """The board as a TikZ picture ``width`` cm wide, for the description document: each
    square as four triangles filled by colour (frame grey, a signed colour's negative darker),
    as :func:`render_svg` draws it; an inner edge whose two sides do not match, red.

    >>> from puzzlesat.generator.families.edgematch.puzzle import load_pieces
    >>> print(render_tikz(load_pieces("four-squares")).splitlines()[1])
    \\filldraw[fill={rgb,255:red,221;green,196;blue,60},draw=black!60,line width=0.2pt] (0,0) -- (1,0) -- (0.5,0.5) -- cycle;
    """
    n = len(puzzle.pieces)
    arranged = solution is not None
    if solution is None:
        solution = Solution(np.arange(n), np.zeros(n, np.int64))
    shown = shown_sides(puzzle.pieces, solution)
    corners = [(0, 0), (1, 0), (1, 1), (0, 1)]  # NW NE SE SW of a unit square, y down
    body = []
    for q in range(n):
        r, c = divmod(q, puzzle.cols)
        for s in range(4):
            (ax, ay), (bx, by) = corners[s], corners[(s + 1) % 4]
            v = int(shown[q, s])
            fill = GREY if (v == FRAME and puzzle.bounded) else hue(abs(v), dark=v < 0)
            body.append(f"\\filldraw[fill={fill},draw=black!60,line width=0.2pt] "
                        f"({c + ax},{r + ay}) -- ({c + bx},{r + by}) -- ({c + 0.5},{r + 0.5}) "
                        f"-- cycle;")
    # an arrangement that leaves edges unmatched (a MaxSAT instance's): each one in red
    grid = shown.reshape(puzzle.rows, puzzle.cols, 4)
    sign = -1 if puzzle.signed else 1
    across = np.argwhere(grid[:, :-1, E] != sign * grid[:, 1:, W]).tolist() if arranged else []
    down = np.argwhere(grid[:-1, :, S] != sign * grid[1:, :, N]).tolist() if arranged else []
    body += [f"\\draw[red,line width=2.4pt] ({c + 1},{r}) -- ({c + 1},{r + 1});"
             for r, c in across]
    body += [f"\\draw[red,line width=2.4pt] ({c},{r + 1}) -- ({c + 1},{r + 1});"
             for r, c in down]
    return picture(body, puzzle.cols, width)

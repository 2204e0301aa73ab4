"""Flow Free pictures: text (colours and pipes), SVG and TikZ."""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.core.tikz import picture, rgb
from puzzlesat.generator.families.flow.puzzle import Puzzle, Solution, puzzle_to_text, trace_paths

PIPES = {0: " ", 1: "╵", 2: "╶", 4: "╷", 8: "╴", 10: "─", 5: "│", 9: "┘", 3: "└", 12: "┐",
         6: "┌"}
PALETTE = ("#e6194b", "#3cb44b", "#4363d8", "#ffe119", "#f58231", "#42d4f4", "#f032e6",
           "#911eb4", "#bfef45", "#fabed4", "#469990", "#9a6324", "#800000", "#aaffc3",
           "#808000", "#000075", "#a9a9a9", "#dcbeff")


# -- pictures ---------------------------------------------------------------------------------
def render(puzzle: Puzzle, solution: Solution | None = None) -> str:
    """The puzzle in the text format; with a solution, each row's colours and its links."""
    if solution is None:
        return puzzle_to_text(puzzle).rstrip("\n")
    lines = []
    for r in range(puzzle.height):
        colors = "".join(puzzle.labels[u] if 0 <= u < puzzle.num_colors else "?"
                         for u in solution.colors[r].tolist())
        pipes = "".join(PIPES.get(m, "?") for m in solution.links[r].tolist())
        lines.append(f"{colors}  {pipes}".rstrip())
    return "\n".join(lines)


def render_svg(puzzle: Puzzle, solution: Solution | None = None, cell: int = 32) -> str:
    """The grid with endpoints as dots and, with a solution, each path as a thick line."""
    h, w = puzzle.height, puzzle.width
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * cell}" height="{h * cell}" '
           f'viewBox="0 0 {w * cell} {h * cell}">',
           f'<rect width="{w * cell}" height="{h * cell}" fill="#111"/>']
    for r in range(h + 1):
        out.append(f'<line x1="0" y1="{r * cell}" x2="{w * cell}" y2="{r * cell}" '
                   'stroke="#555"/>')
    for c in range(w + 1):
        out.append(f'<line x1="{c * cell}" y1="0" x2="{c * cell}" y2="{h * cell}" '
                   'stroke="#555"/>')

    def centre(index):
        r, c = divmod(index, w)
        return c * cell + cell // 2, r * cell + cell // 2

    if solution is not None:
        for u, path in enumerate(trace_paths(puzzle, solution)[0]):
            points = " ".join("{},{}".format(*centre(i)) for i in path)
            out.append(f'<polyline points="{points}" fill="none" stroke-width="{cell // 3}" '
                       f'stroke-linecap="round" stroke-linejoin="round" '
                       f'stroke="{PALETTE[u % len(PALETTE)]}"/>')
    for index in np.flatnonzero(puzzle.endpoints.reshape(-1) >= 0).tolist():
        u = int(puzzle.endpoints.reshape(-1)[index])
        x, y = centre(index)
        out.append(f'<circle cx="{x}" cy="{y}" r="{cell * 3 // 8}" '
                   f'fill="{PALETTE[u % len(PALETTE)]}"><title>{puzzle.labels[u]}</title>'
                   '</circle>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def render_tikz(puzzle: Puzzle, solution: Solution | None = None, width: float = 4.0) -> str:
    """The grid as a TikZ picture ``width`` cm wide, for the description document: endpoints
    as dots and, with a solution, each path as a thick line in its colour.

    >>> from puzzlesat.generator.families.flow.puzzle import parse_text
    >>> print(render_tikz(parse_text("A.A\\n...\\n"), width=3))
    \\begin{tikzpicture}[x=1.000cm,y=-1.000cm]
    \\draw[black!25,line width=0.3pt] (0,0) grid (3,2);
    \\fill[fill={rgb,255:red,230;green,25;blue,75}] (0.5,0.5) circle[radius=0.35];
    \\fill[fill={rgb,255:red,230;green,25;blue,75}] (2.5,0.5) circle[radius=0.35];
    \\end{tikzpicture}
    """
    h, w = puzzle.height, puzzle.width
    thick = 0.3 * width / max(w, 1)  # cm: a third of a cell

    def centre(index):
        r, c = divmod(index, w)
        return f"({c + 0.5},{r + 0.5})"

    body = [f"\\draw[black!25,line width=0.3pt] (0,0) grid ({w},{h});"]
    if solution is not None:
        for u, path in enumerate(trace_paths(puzzle, solution)[0]):
            body.append(f"\\draw[color={rgb(PALETTE[u % len(PALETTE)])},line width={thick:.3f}cm,"
                        f"line cap=round,line join=round] "
                        + " -- ".join(centre(i) for i in path) + ";")
    for index in np.flatnonzero(puzzle.endpoints.reshape(-1) >= 0).tolist():
        u = int(puzzle.endpoints.reshape(-1)[index])
        body.append(f"\\fill[fill={rgb(PALETTE[u % len(PALETTE)])}] {centre(index)} "
                    f"circle[radius=0.35];")
    return picture(body, w, width)

"""TikZ pictures of puzzles for a suite's description.tex: the frame each family's
``render_tikz`` fills, and colours as xcolor expressions (no ``\\definecolor`` needed).

A picture's unit is one grid cell, with y pointing down as in the puzzles' (row, column)
coordinates, so a family draws in cells and the frame scales the whole to a given width.

>>> print(picture(["\\\\draw (0,0) rectangle (2,1);"], columns=2, width=4))
\\begin{tikzpicture}[x=2.000cm,y=-2.000cm]
\\draw (0,0) rectangle (2,1);
\\end{tikzpicture}
>>> rgb("#e6194b")
'{rgb,255:red,230;green,25;blue,75}'
"""

from __future__ import annotations

import colorsys

#: the grey of edge-matching frames and grid lines
GREY = "{rgb,255:red,153;green,153;blue,153}"


def picture(body: list[str], columns: int, width: float) -> str:
    """A ``tikzpicture`` of ``body`` (drawn in cell units, y down) ``width`` cm wide for a grid
    of ``columns`` cells."""
    cell = width / max(columns, 1)
    return "\n".join([f"\\begin{{tikzpicture}}[x={cell:.3f}cm,y=-{cell:.3f}cm]", *body,
                      "\\end{tikzpicture}"])


def rgb(hex_color: str) -> str:
    """An xcolor expression of ``#rrggbb``."""
    red, green, blue = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return f"{{rgb,255:red,{red};green,{green};blue,{blue}}}"


def hue(index: int, dark: bool = False) -> str:
    """The ``index``-th of a sequence of distinct colours (hues 137 degrees apart); ``dark``
    gives a darker shade of the same hue."""
    red, green, blue = colorsys.hls_to_rgb(((index * 137) % 360) / 360, 0.35 if dark else 0.55,
                                           0.4 if dark else 0.7)
    return rgb("#" + "".join(f"{round(255 * v):02x}" for v in (red, green, blue)))

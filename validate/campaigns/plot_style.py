"""What calibrate's and tune's plots share: sizes and fonts for print, a style per solver and
per time limit, the axes (integer hardness, log seconds), the legend below the axes, and the
reproducible PNG and SVG bytes. matplotlib is imported only by :func:`pyplot` (optional)."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

#: inches: a calibration plot is included at 0.32\textwidth of an IEEE two-column page
#: (7.16 in) by the description, so drawn that wide its fonts print at their own size
PANEL_WIDTH = 2.3
#: inches: one IEEE column, for tune's landscape, which carries more (band, limits, bars)
COLUMN_WIDTH = 3.5
#: inches of the axes' box and of one line of text (the figure grows with its text)
AXES_HEIGHT = 1.45
LINE = 0.14
#: points; nothing smaller (print at 7 pt stays readable), titles one point larger
FONT = 7
#: (keys typed Any: matplotlib types them as the Literal of every rc name)
RC: dict[Any, Any] = {
    "font.size": FONT, "axes.labelsize": FONT, "axes.titlesize": FONT + 1,
    "xtick.labelsize": FONT, "ytick.labelsize": FONT, "legend.fontsize": FONT,
    "legend.handlelength": 1.6, "legend.columnspacing": 1.0, "legend.handletextpad": 0.4,
    "axes.linewidth": 0.6, "lines.linewidth": 1.0, "lines.markersize": 3.5,
    "xtick.major.width": 0.6, "ytick.major.width": 0.6, "ytick.minor.width": 0.4,
    "savefig.dpi": 300,
    # reproducible SVG element ids (the PNG's and SVG's dated metadata: see image_bytes)
    "svg.hashsalt": "puzzlesat", "path.simplify": True,
}
#: a solver's colour and marker, by its index in the plot: coinciding points stay visible
SOLVERS = (("tab:blue", "o"), ("tab:orange", "s"), ("tab:red", "^"), ("tab:purple", "D"),
           ("tab:brown", "v"), ("tab:cyan", "P"))
#: a time limit's line, by its index: dotted, dashed, dash-dot, long dash
LIMITS = (":", "--", "-.", (0, (8, 2)))
#: the colour of what is no one solver's: a limit several share, the mark of a stopped run
NEUTRAL = "0.35"
#: the offsets of the solvers' marks around their axis value span this share of a step
SPREAD = 0.3


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend (no display needed); None when not installed."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


@contextmanager
def style() -> Iterator[None]:
    """The plots' rc settings, for drawing and saving a figure (both read them)."""
    import matplotlib

    with matplotlib.rc_context(RC):
        yield


def image_bytes(fig: Any, fmt: str) -> bytes:
    """The figure as PNG or SVG without the metadata that would differ between runs or
    installations (matplotlib's version, the date)."""
    import io

    metadata = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None}}[fmt]
    out = io.BytesIO()
    with style():  # the resolution and the SVG ids are read when saving
        fig.savefig(out, format=fmt, metadata=metadata)
    return out.getvalue()


def solver_style(index: int) -> dict[str, str]:
    """The colour and marker of the ``index``-th solver of a plot."""
    color, marker = SOLVERS[index % len(SOLVERS)]
    return {"color": color, "marker": marker}


def offsets(count: int, step: float) -> list[float]:
    """Horizontal offsets of ``count`` solvers' marks at one axis value, ``step`` apart from
    the next value, so that equal times do not hide each other."""
    if count < 2:
        return [0.0] * count
    return [SPREAD * step * (index / (count - 1) - 0.5) for index in range(count)]


def step_of(values: Sequence[float]) -> float:
    """The smallest gap between distinct ``values`` (1 for a single value)."""
    distinct = sorted(set(values))
    return min((b - a for a, b in zip(distinct, distinct[1:])), default=1.0)


def chars_across(width: float, size: float = FONT) -> int:
    """About how many characters of ``size`` points fit ``width`` inches (a character is
    about 0.55 of the font size wide)."""
    return int(width * 72 / (0.55 * size))


def draw_limits(ax: Any, limits: Iterable[tuple[float, str]], colors: dict[str, str],
                named: bool) -> None:
    """A line per distinct time limit of the (seconds, solver) ``limits``, each in its own
    style and labelled once for the legend; in the solver's colour when it is one solver's,
    with its solvers named when ``named``."""
    shared: dict[float, list[str]] = {}
    for seconds, solver in limits:
        if solver not in shared.setdefault(seconds, []):
            shared[seconds].append(solver)
    for index, seconds in enumerate(sorted(shared)):
        solvers = shared[seconds]
        label = f"limit {seconds:g} s" + (f": {', '.join(solvers)}" if named else "")
        ax.axhline(seconds, color=colors[solvers[0]] if len(solvers) == 1 else NEUTRAL,
                   linestyle=LIMITS[index % len(LIMITS)], linewidth=0.9, label=label,
                   zorder=1.5)


def integer_axis(ax: Any, values: Sequence[float], label: str) -> None:
    """The x axis of a hardness parameter: integer ticks when every value is an integer,
    padded by most of a step (or one unit around a single value) so no mark sits on the
    frame."""
    from matplotlib.ticker import MaxNLocator

    low, high = min(values), max(values)
    pad = 0.6 * step_of(values) if high > low else 1.0
    ax.set_xlim(low - pad, high + pad)
    if all(float(v).is_integer() for v in values):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(label)


def seconds_axis(ax: Any, label: str) -> None:
    """A log y axis of seconds labelled as plain numbers (0.01, 1, 100) with no labelled
    minor ticks; 1-2-5 ticks when the times span too little for two powers of ten to show.
    Called once everything is drawn: the ticks follow the axis range."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_yscale("log")
    low, high = ax.get_ylim()
    powers = math.floor(math.log10(high)) - math.ceil(math.log10(low)) + 1
    subs = (1.0,) if powers >= 2 else (1.0, 2.0, 5.0)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylabel(label)


def finish(fig: Any, ax: Any, width: float) -> None:
    """Size the figure ``width`` inches wide and tall enough for the axes, the title's and
    the x label's lines and the axes' legend, drawn below them (outside the data) in the
    columns that take the fewest lines, its labels wrapped to fit."""
    handles, labels = _data_first(*ax.get_legend_handles_labels())
    across = chars_across(width)
    # the fewest lines, then the fewest wrapped labels, then two columns
    columns, lines, _, wrapped = min(
        # a handle and its gaps take about 5 characters
        ((n, *_legend_lines(labels, across // n - 5, n)) for n in (2, 1)),
        key=lambda option: (option[1], option[2]))
    title = ax.get_title().count("\n") + 1 if ax.get_title() else 0
    below = ax.get_xlabel().count("\n") + 1
    fig.set_size_inches(width, AXES_HEIGHT + 0.15 + (title + below + 1 + lines) * LINE)
    if labels:
        fig.legend(handles, wrapped, loc="outside lower center", ncol=columns, frameon=False)


def _data_first(handles: list, labels: list[str]) -> tuple[list, list[str]]:
    """The legend's entries reordered: error-bar series, marks, lines (limits), shadings;
    matplotlib lists lines, then shadings, then error-bar series."""
    from matplotlib.container import Container
    from matplotlib.lines import Line2D

    def kind(handle: Any) -> int:
        if isinstance(handle, Container):
            return 0
        if isinstance(handle, Line2D):
            return 1 if handle.get_marker() not in (None, "None", "", " ") else 2
        return 3

    order = sorted(range(len(handles)), key=lambda index: kind(handles[index]))
    return [handles[i] for i in order], [labels[i] for i in order]


def _legend_lines(labels: list[str], chars: int, columns: int) -> tuple[int, int, list[str]]:
    """The lines a legend of ``labels`` in ``columns`` takes, each label wrapped at ``chars``;
    how many labels wrap; the wrapped labels."""
    wrapped = [textwrap.fill(label, chars) for label in labels]
    rows = math.ceil(len(labels) / columns)
    # matplotlib fills the first column, then the next: the tallest column is the height
    lines = max((sum(label.count("\n") + 1 for label in wrapped[first:first + rows])
                 for first in range(0, len(labels), max(rows, 1))), default=0)
    return lines, sum("\n" in label for label in wrapped), wrapped

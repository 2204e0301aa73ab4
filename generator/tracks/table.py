"""The description's table of every instance the tracks share: what each track knows of an
instance (its own columns) beside each calibration solver's CPU seconds, as Markdown and as
LaTeX, and the sentence saying how those seconds were measured."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

#: the columns a run needs to be described, and those of them that are numbers
_NEEDED = ("name", "solver", "status", "verdict", "time-limit", "cpu-seconds", "wall-seconds",
           "machine")
_NUMBERS = ("time-limit", "cpu-seconds", "wall-seconds")


def describable(runs: list[dict]) -> list[dict]:
    """The runs a description can state: every column it reads there, as text, its numbers
    finite (or empty seconds). The table is an input that ``submission`` checks field by
    field; a description only leaves out what it cannot read, never fails on it."""
    def number(text: str, empty: bool) -> bool:
        try:
            return math.isfinite(float(text))
        except ValueError:
            return empty and text == ""

    return [run for run in runs
            if all(isinstance(run.get(key), str) for key in _NEEDED)
            and number(run["time-limit"], False)
            and all(number(run[key], True) for key in _NUMBERS[1:])]


def solvers(calibration: list[dict]) -> list[str]:
    """The calibration's solvers, in the order of their first run."""
    return list(dict.fromkeys(run["solver"] for run in calibration))


def seconds_cell(run: dict | None, tex: bool) -> str:
    """A run's CPU seconds as a table cell: a run stopped at its limit as more than the limit,
    a verdict that is not a verification named beside the time."""
    if run is None:
        return ""
    if run["status"] == "UNKNOWN":
        limit = f"{float(run['time-limit']):g}"
        return f"$>${limit}" if tex else f"> {limit}"
    measured = run["cpu-seconds"] or run["wall-seconds"]
    if not measured:
        return ""
    seconds = f"{float(measured):.1f}"
    return seconds if run["verdict"].startswith("VERIFIED") else f"{seconds} {run['verdict']}"


#: a track's cells of one instance: ``cells(row, tex)``, ``tex`` the LaTeX escaper (None for
#: Markdown)
Cells = Callable[[Any, "Callable[[str], str] | None"], list[str]]


def instance_rows(rows: list, calibration: list[dict], cells: Cells,
                  tex: Callable[[str], str] | None) -> list[list[str]]:
    """Per instance: the track's ``cells(row, tex)``, then each solver's seconds (LaTeX when
    ``tex`` is given)."""
    runs = {(run["name"], run["solver"]): run for run in calibration}
    return [cells(row, tex) + [seconds_cell(runs.get((row.name, solver)), tex is not None)
                               for solver in solvers(calibration)] for row in rows]


def measured(calibration: list[dict], times: str, judged: str) -> str:
    """How the calibration was measured (plain text: ``times`` names what the seconds are of,
    ``judged`` against what each answer was judged), or '' without one."""
    if not calibration:
        return ""
    limits = "/".join(f"{limit:g}" for limit in sorted({float(r["time-limit"])
                                                       for r in calibration}))
    machines = ", ".join(dict.fromkeys(r["machine"] for r in calibration if r.get("machine")))
    verified = {solver: sum(1 for r in calibration if r["solver"] == solver
                            and r["verdict"].startswith("VERIFIED"))
                for solver in solvers(calibration)}
    return (f"{times} are CPU seconds (puzzlesat calibrate, one run each, limit {limits} s"
            + (f", on {machines}" if machines else "") + f"); {judged}: "
            + ", ".join(f"{solver} {n} VERIFIED" for solver, n in verified.items()) + ".")


def markdown_table(head: list[str], body: list[list[str]], align: str,
                   calibration: list[dict]) -> list[str]:
    """The table as Markdown: ``head`` and ``align`` (``l``/``r`` per column) for the track's
    columns, a right-aligned column per calibration solver."""
    columns = head + [f"{solver} s" for solver in solvers(calibration)]
    rules = [{"l": "---", "r": "--:"}[a] for a in align] + ["--:"] * (len(columns) - len(head))
    return (["| " + " | ".join(columns) + " |", "|" + "|".join(rules) + "|"]
            + ["| " + " | ".join(cells) + " |" for cells in body] + [""])


def latex_table(head: list[str], body: list[list[str]], align: str, calibration: list[dict],
                caption: str, label: str, tex: Callable[[str], str], wide: bool) -> list[str]:
    """The table as LaTeX (``body`` escaped already; the first column's names set in
    typewriter type), one column wide or, ``wide``, across the page."""
    columns = [tex(h) for h in head] + [f"{tex(solver)} s" for solver in solvers(calibration)]
    float_ = "table*" if wide else "table"
    lines = [f"\\begin{{{float_}}}[tb]", r"\centering\scriptsize", f"\\caption{{{caption}}}",
             f"\\label{{{label}}}", r"\setlength{\tabcolsep}{2.5pt}",
             f"\\begin{{tabular}}{{@{{}}{align}" + "r" * (len(columns) - len(head)) + "@{}}",
             r"\hline", " & ".join(columns) + r" \\", r"\hline"]
    for name, *rest in body:
        lines.append(" & ".join([f"\\texttt{{{tex(name)}}}", *rest]) + r" \\")
    return lines + [r"\hline", r"\end{tabular}", f"\\end{{{float_}}}", ""]

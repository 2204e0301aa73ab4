"""Tune's output folder: ``landscape.csv``, ``landscape.png`` and ``group.toml``."""

from __future__ import annotations

import hashlib
import json
import os
import re
import textwrap
from pathlib import Path
from typing import Any

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.core.header import canonical_json
from puzzlesat.generator.core.inputs import read_input
from puzzlesat.generator.core.paths import is_regular_file
from puzzlesat.generator.core.structured import load_json
from puzzlesat.generator.suite.folder import (
    file_sha256,
    published_suite_holding,
    remove_own,
    table_bytes,
)
from puzzlesat.validate.campaigns.plot_style import (
    COLUMN_WIDTH,
    FONT,
    chars_across,
    draw_limits,
    finish,
    image_bytes,
    integer_axis,
    offsets,
    pyplot,
    seconds_axis,
    solver_style,
    step_of,
    style,
)
from puzzlesat.validate.campaigns.tune.plan import (
    COLUMNS,
    GROUP_TOML,
    LANDSCAPE_CSV,
    LANDSCAPE_PNG,
    STOPPED,
    Follow,
    Limit,
    Plan,
    group_toml,
)
from puzzlesat.validate.campaigns.tune.walk import Tune


def landscape_rows(result: Tune) -> list[dict]:
    """One row per run, in walking order."""
    plan = result.plan
    return [{"axis": plan.axis.name, "value": s.value, "replicate": s.task.replicate,
             "seed": s.task.seed if s.task.seed is not None else "",
             "encoding": s.task.encoding, "solver": r.solver, "limit": r.limit,
             "status": r.status, "seconds": r.seconds,
             "wall_seconds": r.wall_seconds, "ended_by": r.ended_by,
             "gbd_hash": r.gbd_hash, "expected": r.expected, "machine": r.machine,
             "load": r.load, "speed_index": "" if r.speed_index is None else r.speed_index,
             "reference_seconds": ("" if r.reference_seconds is None
                                   else round(r.reference_seconds, 3)),
             "params": canonical_json(s.task.params)}
            for s in result.all_samples() for r in s.runs]


def group_file(result: Tune) -> str | None:
    """``group.toml``'s text: one ``[[group]]`` per in-band value and encoding with the
    replicates in the band; None when no value is in the band."""
    plan = result.plan
    if not result.in_band:
        return None
    head = [f"# puzzlesat tune {plan.family}: axis {plan.axis.name}; band: solved by neither "
            f"{plan.easy_text()} (margin {plan.margin:g} included), solved by "
            f"{plan.reference.text()}",
            f"# replicates are seeded as in a suite with [suite] seed = {plan.seed}; paste "
            f"these groups into such a spec"]
    groups = []
    for value in result.in_band:
        for encoding in plan.encodings:
            mine = [s for s in result.samples[value] if s.task.encoding == encoding]
            replicates = [s.task.replicate for s in mine if s.klass == "band"]
            if replicates:
                times = sorted(_seconds(s.runs[-1]) for s in mine if s.klass == "band")
                spread = f"{times[0]:.1f}" + (f"-{times[-1]:.1f}" if len(times) > 1 else "")
                groups.append(f"# {plan.axis.name}={value}, {encoding}: {len(replicates)} of "
                              f"{len(mine)} in the band, {plan.reference.solver} {spread} s\n"
                              + group_toml(plan, value, [encoding], replicates))
    return "\n".join(head) + "\n\n" + "".join(groups).rstrip("\n") + "\n"


#: the marker of tune's output folder: the files tune wrote there, with their sha256; only
#: those are replaced or removed (as submission's marker does for a bundle)
MARKER = ".puzzlesat-tune"
OUTPUTS = (LANDSCAPE_CSV, LANDSCAPE_PNG, GROUP_TOML)
_SHA256 = re.compile(r"\A[0-9a-f]{64}\Z")
NO_MATPLOTLIB = "no landscape.png: matplotlib is not installed (pip install 'puzzlesat[plot]')"


def claim_output(out: Path) -> dict[str, list[str]]:
    """The outputs in ``out`` that tune wrote (name -> the sha256s it recorded), checked
    before any solver runs and again before writing: a UserError when ``out`` is or lies in a
    published suite, or when one of :data:`OUTPUTS` there is not a file tune wrote (the
    user's own landscape.csv or group.toml, a symlink)."""
    suite = published_suite_holding(out)
    if suite is not None:
        raise UserError(f"-o {out}: is or lies in the published suite {suite}: refusing to "
                        f"write tune's files there (name another folder)")
    written = _read_marker(out)
    for name in OUTPUTS:
        path = out / name
        if os.path.lexists(path) and file_sha256(path) not in written.get(name, ()):
            raise UserError(f"{path} exists and was not written by puzzlesat tune: refusing "
                            f"to replace it (move it away or name another -o)")
    return written


def _read_marker(out: Path) -> dict[str, list[str]]:
    """The marker's files; {} when it is missing, not a regular file or not of tune's form."""
    path = out / MARKER
    try:
        data = load_json(read_input(path, 1 << 16, "tune marker"), str(path)) \
            if is_regular_file(path) else None
    except (UserError, OSError):
        data = None
    files = data.get("files") if isinstance(data, dict) else None
    if not (isinstance(files, dict) and all(
            name in OUTPUTS and isinstance(sums, list)
            and all(isinstance(s, str) and _SHA256.match(s) for s in sums)
            for name, sums in files.items())):
        return {}
    return files


def _write_marker(out: Path, files: dict[str, list[str]]) -> None:
    data = {"written-by": "puzzlesat tune", "files": files}
    atomic_write(out / MARKER, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())


def write_landscape(out: Path, result: Tune, plot: bool) -> None:
    """Write ``landscape.csv``, ``group.toml`` (or remove a stale one tune wrote) and, with
    ``plot``, ``landscape.png`` into ``out``, replacing only files tune wrote there."""
    written = claim_output(out)
    group = group_file(result)
    files = {LANDSCAPE_CSV: table_bytes(COLUMNS, landscape_rows(result)),
             GROUP_TOML: group.encode() if group is not None else None}
    if plot:
        files[LANDSCAPE_PNG] = plot_landscape(result)
        if files[LANDSCAPE_PNG] is None:
            result.notes.append(NO_MATPLOTLIB)
    new = {name: [hashlib.sha256(data).hexdigest()] for name, data in files.items() if data}
    # old and new listed first: a run stopped half-way leaves every output still tune's
    _write_marker(out, {name: sorted({*written.get(name, ()), *new.get(name, ())})
                        for name in OUTPUTS if name in written or name in new})
    for name, data in files.items():
        if data is not None:
            atomic_write(out / name, data)
            result.written.append(str(out / name))
        elif file_sha256(out / name) in written.get(name, ()):
            # an earlier tune's group.toml, which this one contradicts
            remove_own(out, name, file_sha256(out / name))
    kept = {name: sums for name, sums in written.items()
            if name not in files and os.path.lexists(out / name)}
    _write_marker(out, {**kept, **new})


def plot_landscape(result: Tune) -> bytes | None:
    """``landscape.png``'s bytes (:func:`landscape_figure`); None when matplotlib is not
    installed."""
    plt = pyplot()
    if plt is None:
        return None
    fig = landscape_figure(result)
    png = image_bytes(fig, "png")
    plt.close(fig)
    return png


def _seconds(run) -> float:
    """A run's time as the tune's limits count it: reference seconds where the run has a
    speed index, else CPU seconds."""
    return run.seconds if run.reference_seconds is None else run.reference_seconds


def landscape_figure(result: Tune) -> Any:
    """Per solver, the median and the min..max of run time (reference seconds where the limits
    are) against the axis (log time; a run stopped at its limit counts as the limit), the band
    of times and the values in it shaded, a line per limit. Needs matplotlib."""
    plt = pyplot()
    plan = result.plan
    walked = list(result.samples)
    step = step_of(walked)
    with style():
        fig, ax = plt.subplots(layout="constrained")
        ax.axhspan(max(limit.seconds for limit in plan.easy), plan.reference.seconds,
                   color="tab:green", alpha=0.12, linewidth=0, label="band of times")
        for index, value in enumerate(result.in_band):  # one legend entry for them all
            ax.axvspan(value - 0.4 * step, value + 0.4 * step, color="0.55", alpha=0.2,
                       linewidth=0, label="in-band values" if index == 0 else None)
        colors = {}
        for index, (limit, shift) in enumerate(
                zip(plan.limits, offsets(len(plan.limits), step))):
            look = solver_style(index)
            colors[limit.solver] = look["color"]
            _plot_solver(ax, result, limit, look, shift)
        draw_limits(ax, ((limit.seconds, limit.solver) for limit in plan.limits), colors,
                    named=True)
        follows = "".join(f"\n({f.name} = {_follow_text(f, plan)})" for f in plan.follows)
        integer_axis(ax, walked, plan.axis.name + follows)
        seconds_axis(ax, "solver time (s)" if any(limit.index for limit in plan.limits)
                     else "solver CPU time (s)")
        fixed = ", ".join(f"{k}={v}" for k, v in plan.params.items())
        ax.set_title(textwrap.fill(f"{plan.family} ({fixed}; {', '.join(plan.encodings)})",
                                   chars_across(COLUMN_WIDTH, FONT + 1))
                     + f"\n{plan.samples} sample{'s' if plan.samples > 1 else ''} per value: "
                       f"median, min..max")
        finish(fig, ax, COLUMN_WIDTH)
    return fig


def _plot_solver(ax, result: Tune, limit: Limit, look: dict[str, str], shift: float) -> None:
    """One solver's median (line), min..max (bar) and its stopped runs (x at the limit),
    drawn ``shift`` to the side so that the solvers' bars do not hide each other."""
    plan = result.plan
    xs, medians, lows, highs, stopped = [], [], [], [], []
    for value, samples in result.samples.items():
        runs = [r for s in samples for r in s.runs if r.solver == limit.solver]
        times = sorted(max(_seconds(r), 1e-3) for r in runs)
        if not times:
            continue
        xs.append(value + shift)
        medians.append(times[len(times) // 2])
        lows.append(medians[-1] - times[0])
        highs.append(times[-1] - medians[-1])
        stopped += [value + shift for r in runs if r.status == "UNKNOWN"]
    if not xs:
        return
    label = (f"{limit.solver} (if easy failed)" if limit is plan.reference
             else limit.solver)
    ax.errorbar(xs, medians, yerr=[lows, highs], capsize=2.5, elinewidth=0.8, label=label,
                **look)
    if stopped:
        first = not any(h.get_label() == STOPPED for h in ax.get_lines())
        ax.plot(stopped, [limit.seconds] * len(stopped), "x", color="black", markersize=5,
                markeredgewidth=0.8, zorder=3, label=STOPPED if first else None)


def _follow_text(follow: Follow, plan: Plan) -> str:
    offset = f" {'+' if follow.offset >= 0 else '-'} {abs(follow.offset):g}" \
        if follow.offset else ""
    ratio = "" if follow.ratio == 1 else f"{follow.ratio:g}*"
    text = f"{ratio}{plan.axis.name}{offset}"
    return text if follow.ratio.is_integer() and float(follow.offset).is_integer() \
        else f"round({text})"

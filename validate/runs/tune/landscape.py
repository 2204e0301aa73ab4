"""Tune's output folder: ``landscape.csv``, ``landscape.png`` and ``group.toml``."""

from __future__ import annotations

from pathlib import Path

from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.core.header import canonical_json
from puzzlesat.generator.core.paths import is_regular_file
from puzzlesat.generator.suite.folder import table_bytes
from puzzlesat.validate.runs.tune.plan import (
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
from puzzlesat.validate.runs.tune.walk import Tune


def landscape_rows(result: Tune) -> list[dict]:
    """One row per run, in walking order."""
    plan = result.plan
    return [{"axis": plan.axis.name, "value": s.value, "replicate": s.task.replicate,
             "seed": s.task.seed if s.task.seed is not None else "",
             "encoding": s.task.encoding, "solver": r["solver"], "limit": r["limit"],
             "status": r["status"], "seconds": r["seconds"],
             "wall_seconds": r["wall_seconds"], "ended_by": r["ended_by"],
             "gbd_hash": r["gbd_hash"], "expected": r["expected"], "machine": r["machine"],
             "load": r["load"], "params": canonical_json(s.task.params)}
            for s in result.all_samples() for r in s.runs]


def group_file(result: Tune) -> str | None:
    """``group.toml``'s text: one ``[[group]]`` per in-band value and encoding with the
    replicates in the band; None when no value is in the band."""
    plan = result.plan
    if not result.in_band:
        return None
    head = [f"# puzzlesat tune {plan.family}: axis {plan.axis.name}; band: solved by neither "
            f"{plan.easy_text()} (CPU, margin {plan.margin:g} included), solved by "
            f"{plan.reference.text()}",
            f"# replicates are seeded as in a suite with [suite] seed = {plan.seed}; paste "
            f"these groups into such a spec"]
    groups = []
    for value in result.in_band:
        for encoding in plan.encodings:
            mine = [s for s in result.samples[value] if s.task.encoding == encoding]
            replicates = [s.task.replicate for s in mine if s.klass == "band"]
            if replicates:
                times = sorted(s.runs[-1]["seconds"] for s in mine if s.klass == "band")
                spread = f"{times[0]:.1f}" + (f"-{times[-1]:.1f}" if len(times) > 1 else "")
                groups.append(f"# {plan.axis.name}={value}, {encoding}: {len(replicates)} of "
                              f"{len(mine)} in the band, {plan.reference.solver} {spread} s\n"
                              + group_toml(plan, value, [encoding], replicates))
    return "\n".join(head) + "\n\n" + "".join(groups).rstrip("\n") + "\n"


#: how every group.toml tune writes begins (see group_file)
_GROUP_HEAD = b"# puzzlesat tune "


def _written_by_tune(path: Path) -> bool:
    """Whether ``path`` is a regular file (not a symlink) that tune wrote: only such a file
    may be removed; a user's own group.toml in the folder is left alone."""
    if not is_regular_file(path):
        return False
    with open(path, "rb") as fh:
        return fh.read(len(_GROUP_HEAD)) == _GROUP_HEAD


def write_landscape(out: Path, result: Tune, plot: bool) -> None:
    """Write ``landscape.csv``, ``group.toml`` (or remove a stale one tune wrote) and, with
    ``plot``, ``landscape.png`` into ``out``."""
    atomic_write(out / LANDSCAPE_CSV, table_bytes(COLUMNS, landscape_rows(result)))
    result.written.append(str(out / LANDSCAPE_CSV))
    group = group_file(result)
    if group is not None:
        atomic_write(out / GROUP_TOML, group.encode())
        result.written.append(str(out / GROUP_TOML))
    elif _written_by_tune(out / GROUP_TOML):  # an earlier tune's, which this contradicts
        (out / GROUP_TOML).unlink()
    if plot:
        note = plot_landscape(out / LANDSCAPE_PNG, result)
        if note:
            result.notes.append(note)
        else:
            result.written.append(str(out / LANDSCAPE_PNG))


def plot_landscape(path: Path, result: Tune) -> str:
    """``landscape.png``: per solver, the median and the min..max of run time against the
    axis (log time; a run stopped at its limit counts as the limit), the band shaded, the
    limits drawn. Returns why nothing was drawn ('' when drawn)."""
    try:
        import matplotlib
    except ImportError:
        return "no landscape.png: matplotlib is not installed (pip install 'puzzlesat[plot]')"
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plan = result.plan
    fig, ax = plt.subplots(figsize=(7, 5))
    ax.axhspan(max(limit.seconds for limit in plan.easy), plan.reference.seconds,
               color="tab:green", alpha=0.1,
               label="band (in-band values: green columns)")
    walked = list(result.samples)
    step = min((b - a for a, b in zip(walked, walked[1:])), default=1)  # columns fit the axis
    for value in result.in_band:
        ax.axvspan(value - 0.4 * step, value + 0.4 * step, color="tab:green", alpha=0.15)
    colors = ("tab:blue", "tab:orange", "tab:purple", "tab:brown")
    for index, limit in enumerate(plan.limits):
        color = "tab:red" if limit is plan.reference else colors[index % len(colors)]
        ax.axhline(limit.seconds, color=color, linestyle=":", linewidth=1)
        ax.annotate(f"limit {limit}", (0.995, limit.seconds), ha="right", va="bottom",
                    xycoords=("axes fraction", "data"), fontsize="small", color=color)
        shift = 0.2 * step * (index / max(1, len(plan.limits) - 1) - 0.5)
        _plot_solver(ax, result, limit, color, shift)
    ax.set_yscale("log")
    ax.set_xlabel(plan.axis.name + "".join(f"  ({f.name} = {_follow_text(f, plan)})"
                                           for f in plan.follows))
    ax.set_ylabel("solver CPU seconds (log)")
    ax.set_xticks(walked)
    ax.set_xlim(walked[0] - 0.6 * step, walked[-1] + 0.6 * step)
    fixed = ", ".join(f"{k}={v}" for k, v in plan.params.items())
    ax.set_title(f"{plan.family} ({fixed}; {', '.join(plan.encodings)})\n"
                 f"{plan.samples} sample{'s' if plan.samples > 1 else ''} per value",
                 fontsize="medium")
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2,
              frameon=False)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
    return ""


def _plot_solver(ax, result: Tune, limit: Limit, color: str, shift: float) -> None:
    """One solver's median (line), min..max (bar) and its stopped runs (x at the limit),
    drawn ``shift`` to the side so that the solvers' bars do not hide each other."""
    plan = result.plan
    xs, medians, lows, highs, stopped = [], [], [], [], []
    for value, samples in result.samples.items():
        runs = [r for s in samples for r in s.runs if r["solver"] == limit.solver]
        times = sorted(max(r["seconds"], 1e-3) for r in runs)
        if not times:
            continue
        xs.append(value + shift)
        medians.append(times[len(times) // 2])
        lows.append(medians[-1] - times[0])
        highs.append(times[-1] - medians[-1])
        stopped += [value + shift for r in runs if r["status"] == "UNKNOWN"]
    if not xs:
        return
    label = (f"{limit.solver} (where the easy solvers failed)" if limit is plan.reference
             else limit.solver)
    ax.errorbar(xs, medians, yerr=[lows, highs], fmt="o-", color=color, capsize=4,
                markersize=5, label=f"{label}: median, min..max")
    if stopped:
        first = not any(h.get_label() == STOPPED for h in ax.get_lines())
        ax.plot(stopped, [limit.seconds] * len(stopped), "x", color="black", markersize=8,
                zorder=3, label=STOPPED if first else None)


def _follow_text(follow: Follow, plan: Plan) -> str:
    offset = f" {'+' if follow.offset >= 0 else '-'} {abs(follow.offset):g}" \
        if follow.offset else ""
    ratio = "" if follow.ratio == 1 else f"{follow.ratio:g}*"
    text = f"{ratio}{plan.axis.name}{offset}"
    return text if follow.ratio.is_integer() and float(follow.offset).is_integer() \
        else f"round({text})"

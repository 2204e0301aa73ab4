"""Hardness targeting: walk one ordered parameter axis of a family and find where its
instances fall inside a band — not solved by an easy solver within its limit, solved by a
reference solver within its.

``puzzlesat tune FAMILY --param NAME=VALUE ... --axis NAME=A..B`` builds, for each axis value,
``--samples`` instances (replicates 1..N, seeds derived from ``--seed`` exactly as a suite with
that ``[suite] seed`` derives them, so the in-band replicates can be pasted into a spec) and
classifies each one:

* ``easy``: the easy solver (default ``minisat22:60``) solved it within its limit. The
  reference solver is not run: nothing it could say changes the class.
* ``band``: the easy solver did not, the reference solver (default ``kissat404:1000``) did.
* ``hard``: neither did.

No solver runs past its limit, and runs that decide nothing are not made: once more than half
of a value's samples are easy (or hard), its median is known and the remaining reference runs
are skipped (with -j N, runs already handed out still end: at most N-1 more per value). A
value's median is the middle sample in the order easy < band < hard (the upper
middle one for an even count). The walk stops after :data:`HARD_STREAK` consecutive values
whose median is hard: hardness grows along the axis, so further values would only cost
reference runs to their limit.

Colour counts (any integer parameter) may follow the axis: ``--follow center_colors=0.5*rows``
sets it to ``round(0.5 * rows)`` at each value (``R*AXIS+C`` and ``R*AXIS-C`` also work; half
rounds up; at least 1).

Limits are in reference seconds for every solver with a speed workload
(:mod:`~puzzlesat.validate.runs.speed`): before the walk this machine's index of each is
measured (or taken from the cache), and a limit of S reference seconds gives a run S / index
seconds of CPU; so "hard" means what it means on the reference machine, wherever the tune
runs. Other solvers' limits are CPU seconds (and so are all with ``--executor dask``, whose
workers have speeds of their own).

Every solver run is cached in ``OUT/runs/<gbd hash>.<solver>.json``, written atomically as it
ends, with its CPU seconds and the index it ran under, so an interrupted tune resumes and a
second run redoes nothing. A cached answer serves any limit it decides, compared in reference
seconds (a run without an index decides no limit that has one): solved in S seconds decides
every limit (solved when S <= limit, else stopped), a run stopped at limit L decides every
limit <= L.

Written into ``OUT`` at the end: ``landscape.csv`` (one row per run, :data:`COLUMNS`),
``landscape.png`` (when matplotlib is installed) and ``group.toml``: one ``[[group]]`` per
(axis value whose median is in the band, encoding), with the replicates that landed in the
band, ready to paste into a suite spec whose ``[suite] seed`` is the tune's ``--seed``.
"""

from __future__ import annotations

from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.executors import DaskExecutor
from puzzlesat.generator.core.paths import os_failure
from puzzlesat.validate.campaigns.tune.landscape import claim_output, write_landscape
from puzzlesat.validate.campaigns.tune.plan import Plan, with_speed_indices
from puzzlesat.validate.campaigns.tune.walk import Tune, walk


def tune(plan: Plan, output, jobs: int = 1, executor=None, progress: bool = True,
         plot: bool = True) -> Tune:
    """Walk the plan's axis and write the output folder."""
    out = Path(output)
    if out.exists() and not out.is_dir():
        raise UserError(f"-o {out}: exists and is not a folder")
    claim_output(out)  # before any solver runs: a refused folder costs nothing
    if not isinstance(executor, DaskExecutor):  # a worker elsewhere has a speed of its own
        plan = with_speed_indices(plan)  # may empty the band: refused before -o is made
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise os_failure(exc, f"create {out}") from None
    result = walk(plan, out, jobs, executor, progress)
    write_landscape(out, result, plot)
    return result

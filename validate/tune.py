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

Every solver run is cached in ``OUT/runs/<gbd hash>.<solver>.json``, written atomically as it
ends, so an interrupted tune resumes and a second run redoes nothing. A cached answer serves
any limit it decides: solved in S seconds decides every limit (solved when S <= limit, else
stopped), a run stopped at limit L decides every limit <= L.

Written into ``OUT`` at the end: ``landscape.csv`` (one row per run, :data:`COLUMNS`),
``landscape.png`` (when matplotlib is installed) and ``group.toml``: one ``[[group]]`` per
(axis value whose median is in the band, encoding), with the replicates that landed in the
band, ready to paste into a suite spec whose ``[suite] seed`` is the tune's ``--seed``.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.core.executors import executor_slots, run_tasks
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.core.header import canonical_json
from puzzlesat.generator.core.inputs import read_input
from puzzlesat.generator.core.structured import load_json
from puzzlesat.generator.core.writer import gbd_hash_of_literals
from puzzlesat.generator.families import coerce, get_family, normalize_params
from puzzlesat.generator.instance import build
from puzzlesat.generator.suite.spec import Task, parse_spec
from puzzlesat.validate.runner import MAX_TIME_LIMIT, run_solver, solver_name, solver_pool

DEFAULT_EASY = "minisat22:60"
DEFAULT_REFERENCE = "kissat404:1000"
#: the walk stops after this many consecutive axis values whose median is hard
HARD_STREAK = 2
CLASSES = ("easy", "band", "hard")
COLUMNS = ("axis", "value", "replicate", "seed", "encoding", "solver", "limit", "status",
           "seconds", "gbd_hash", "expected", "params")
RUNS = "runs"
STOPPED = "a run stopped at its limit"
LANDSCAPE_CSV, LANDSCAPE_PNG, GROUP_TOML = "landscape.csv", "landscape.png", "group.toml"


# -- the command line's words ---------------------------------------------------------------
@dataclass(frozen=True)
class Limit:
    """A solver and its time limit: one edge of the band."""

    solver: str
    seconds: float

    def __str__(self) -> str:
        return f"{self.solver}:{self.seconds:g}"

    def text(self) -> str:
        """``solver within N s``."""
        return f"{self.solver} within {self.seconds:g} s"


def parse_limit(text: str, option: str) -> Limit:
    """``SOLVER:SECONDS`` (``minisat22:60``) with a known python-sat solver."""
    solver, sep, seconds = text.rpartition(":")
    try:
        value = float(seconds)
    except ValueError:
        value = math.nan
    if not sep or not solver or not (math.isfinite(value) and 0 < value <= MAX_TIME_LIMIT):
        raise UserError(f"{option} must be SOLVER:SECONDS with 0 < SECONDS <= "
                        f"{MAX_TIME_LIMIT:g} (e.g. minisat22:60), got {text!r}")
    try:
        return Limit(solver_name(solver), value)
    except UserError as exc:
        raise UserError(f"{option}: {exc}") from None


@dataclass(frozen=True)
class Axis:
    """The one ordered parameter walked, and its values in walking order."""

    name: str
    values: tuple[int, ...]


#: more axis values than this is a typo, not a walk: each value is samples x encodings builds
MAX_AXIS_VALUES = 1000


def _few(text: str, values) -> tuple[int, ...]:
    """``values`` as a tuple, refused (before any is made) when there are too many."""
    if len(values) > MAX_AXIS_VALUES:
        raise UserError(f"--axis {text}: {len(values)} values, at most {MAX_AXIS_VALUES} "
                        f"(use a step, A..B:STEP)")
    return tuple(values)


def parse_axis(text: str) -> Axis:
    """``NAME=A..B`` (inclusive), ``NAME=A..B:STEP`` or ``NAME=V1,V2,...`` (increasing)."""
    name, sep, spec = text.partition("=")
    name = name.strip().replace("-", "_")
    # ASCII digits only: int() would also read other scripts' digits, a value nobody typed
    shape = re.fullmatch(r"\s*(-?\d{1,9})\s*\.\.\s*(-?\d{1,9})\s*(?::\s*(\d{1,9})\s*)?",
                         spec, re.ASCII)
    if sep and name and shape:
        start, stop, step = int(shape[1]), int(shape[2]), int(shape[3] or 1)
        if step < 1 or stop < start:
            raise UserError(f"--axis {text}: the range is empty or reversed (write A..B with "
                            f"A <= B, step >= 1)")
        return Axis(name, _few(text, range(start, stop + 1, step)))
    if sep and name and re.fullmatch(r"\s*-?\d{1,9}(\s*,\s*-?\d{1,9})*\s*", spec, re.ASCII):
        values = _few(text, [int(v) for v in spec.split(",")])
        if any(b <= a for a, b in zip(values, values[1:])):
            raise UserError(f"--axis {text}: values must increase (the axis is walked in "
                            f"order, easy to hard)")
        return Axis(name, values)
    raise UserError(f"--axis must be NAME=A..B, NAME=A..B:STEP or NAME=V1,V2,... (integers), "
                    f"got {text!r}")


@dataclass(frozen=True)
class Follow:
    """A parameter set from the axis value: ``round(ratio * value + offset)``, at least 1."""

    name: str
    ratio: float
    offset: float

    def at(self, value: int) -> int:
        """The followed parameter's value at ``value`` of the axis (at least 1)."""
        return max(1, math.floor(self.ratio * value + self.offset + 0.5))


def parse_follow(text: str, axis: Axis) -> Follow:
    """``NAME=R*AXIS``, ``NAME=R*AXIS+C``, ``NAME=AXIS-C`` ... (R, C decimal numbers)."""
    name, sep, expr = text.partition("=")
    number = r"\d{1,9}(?:\.\d{0,9})?|\.\d{1,9}"  # ASCII (re.ASCII), no 10**20 ratios
    shape = re.fullmatch(rf"\s*(?:({number})\s*\*\s*)?([A-Za-z_-]+)\s*(?:([+-])\s*({number})\s*)?",
                         expr, re.ASCII)
    if not sep or not name.strip() or not shape:
        raise UserError(f"--follow must be NAME=R*{axis.name} (optionally +C or -C), got "
                        f"{text!r}")
    if shape[2].replace("-", "_") != axis.name:
        raise UserError(f"--follow {text}: follows {shape[2]!r}, but the axis is {axis.name!r}")
    offset = float(shape[4] or 0) * (-1 if shape[3] == "-" else 1)
    return Follow(name.strip().replace("-", "_"), float(shape[1] or 1), offset)


def parse_params(family, texts: tuple[str, ...]) -> dict:
    """``NAME=VALUE`` words (a bare ``NAME`` is a flag set to true) as typed params, named as
    in a suite spec (``border_colors``; ``border-colors`` is accepted)."""
    kinds = {p.name: p for p in family.PARAMS}
    out: dict = {}
    for text in texts:
        name, sep, value = text.partition("=")
        name = name.strip().replace("-", "_")
        if name not in kinds:
            raise UserError(f"--param {text}: unknown parameter {name!r} for family "
                            f"{family.NAME} (known: {', '.join(kinds)})")
        if name in out:
            raise UserError(f"--param {name} is given twice")
        param = kinds[name]
        if param.kind is bool:
            words = {"": True, "true": True, "yes": True, "1": True, "false": False,
                     "no": False, "0": False}
            if value.strip().lower() not in words or (sep and not value.strip()):
                raise UserError(f"--param {text}: {name} is a flag: write {name}, "
                                f"{name}=true or {name}=false")
            out[name] = words[value.strip().lower()]
        elif not sep:
            raise UserError(f"--param {text}: write NAME=VALUE")
        else:
            with prefixed("--param "):
                out[name] = coerce(param, value)
    return out


# -- the plan: which instances the axis stands for ------------------------------------------
@dataclass(frozen=True)
class Plan:
    """What to tune: the validated inputs and, per axis value, the suite tasks to classify."""

    family: str
    params: dict  # fixed, typed
    axis: Axis
    follows: tuple[Follow, ...]
    encodings: tuple[str, ...]
    samples: int
    seed: int
    easy: Limit
    reference: Limit
    tasks: dict  # axis value -> tuple[Task, ...]
    notes: tuple[str, ...] = ()

    def point(self, value: int) -> dict:
        """The params at one axis value (fixed, axis, followers)."""
        return {**self.params, self.axis.name: value,
                **{f.name: f.at(value) for f in self.follows}}


def make_plan(family_name: str, params: tuple[str, ...] | dict, axis: str | Axis,
              follows: tuple[str, ...] = (), encodings: tuple[str, ...] = (),
              samples: int = 5, seed: int = 0, easy: str = DEFAULT_EASY,
              reference: str = DEFAULT_REFERENCE) -> Plan:
    """Validate everything a tune needs before any solver runs (each mistake one UserError)
    and expand the axis into suite tasks, seeds derived as a suite with ``seed`` does."""
    family = get_family(family_name)
    axis = axis if isinstance(axis, Axis) else parse_axis(axis)
    fixed = params if isinstance(params, dict) else parse_params(family, params)
    followers = tuple(parse_follow(f, axis) for f in follows)
    kinds = {p.name: p.kind for p in family.PARAMS}
    for name, what in [(axis.name, "--axis"), *((f.name, "--follow") for f in followers)]:
        if name not in kinds:
            raise UserError(f"{what}: unknown parameter {name!r} for family {family.NAME} "
                            f"(known: {', '.join(kinds)})")
        if kinds[name] is not int:
            raise UserError(f"{what}: {name} is not an integer parameter")
        if name in fixed:
            raise UserError(f"{what}: {name} is also given as --param; give it once")
    names = [axis.name, *(f.name for f in followers)]
    if len(set(names)) != len(names):
        raise UserError("--follow names the axis or another --follow twice")
    if samples < 1:
        raise UserError(f"--samples must be at least 1, got {samples}")
    if seed < 0:
        raise UserError(f"--seed must be a non-negative integer, got {seed}")
    easy_limit, reference_limit = parse_limit(easy, "--easy"), parse_limit(reference,
                                                                           "--reference")
    if easy_limit.seconds > reference_limit.seconds or easy_limit == reference_limit:
        raise UserError(f"the band is empty: --easy {easy_limit} is not below --reference "
                        f"{reference_limit} (the easy limit is the band's lower edge, the "
                        f"reference limit its upper edge)")
    encodings = tuple(dict.fromkeys(encodings)) or (next(iter(family.ENCODINGS)),)
    base = {**fixed, axis.name: axis.values[0], **{f.name: f.at(axis.values[0])
                                                   for f in followers}}
    notes = []
    if not family.uses_seed(normalize_params(family, base)) and samples > 1:
        notes.append("these params fix the puzzle (no seed is used): 1 sample per value")
        samples = 1
    plan = Plan(family.NAME, fixed, axis, followers, encodings, samples, seed, easy_limit,
                reference_limit, {}, tuple(notes))
    groups = "".join(group_toml(plan, value, encodings, list(range(1, samples + 1)))
                     for value in axis.values)
    spec = parse_spec((_suite_head(seed) + groups).encode(), "tune", force=True)
    tasks: dict = {}
    for task in spec.tasks:
        tasks.setdefault(axis.values[task.group - 1], []).append(task)
    first = spec.tasks[0]  # the family's own checks, before any solver runs
    build(first.family, first.params, first.encoding, first.seed, first.name, force=True)
    return dataclasses.replace(plan, tasks={v: tuple(t) for v, t in tasks.items()})


def _suite_head(seed: int) -> str:
    return f'[suite]\nname = "tune"\nauthor = "puzzlesat tune"\nversion = "1"\nseed = {seed}\n' \
           f'compression = "none"\n'


def toml_value(value) -> str:
    """A TOML literal for the values params hold (bool, int, float, str, lists of them)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string: JSON's escapes are TOML's
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML literal for {value!r}")


def group_toml(plan: Plan, value: int, encodings, replicates: list[int]) -> str:
    """One ``[[group]]`` for the axis value ``value``."""
    params = ", ".join(f"{k} = {toml_value(v)}" for k, v in plan.point(value).items())
    lines = ["[[group]]", f"family = {toml_value(plan.family)}",
             f"encodings = {toml_value(list(encodings))}"]
    if plan.samples > 1 or replicates != [1]:
        lines.append(f"replicates = {toml_value(replicates)}")
    lines.append(f"params = {{ {params} }}")
    return "\n".join(lines) + "\n\n"


# -- runs and their cache --------------------------------------------------------------------
def _task_key(task: Task) -> str:
    """What fixes an instance's bytes: family, params, seed, encoding."""
    return canonical_json([task.family, task.params, task.seed, task.encoding])


def solve_task(task: Task, limit: Limit) -> dict:
    """Worker: build the task's instance and run one solver on it up to the limit. Returns
    the run's record (picklable, no file access)."""
    inst = build(task.family, task.params, task.encoding, task.seed, task.name, force=True)
    flat = inst.formula.flat_literals()
    result = run_solver((flat, inst.formula.num_vars), limit.solver, limit.seconds)
    if result.status == "UNKNOWN" and result.seconds < limit.seconds:
        # the solver died before its limit (out of memory, a signal): that decides nothing,
        # so it is not recorded; the tune stops and a rerun tries again
        raise UserError(f"{limit.solver} on {task.name} ({task.params}, seed {task.seed}) "
                        f"ended without an answer: {'; '.join(result.notes) or 'no reason'}")
    return {"gbd_hash": gbd_hash_of_literals(flat), "solver": limit.solver,
            "limit": limit.seconds, "status": result.status,
            "seconds": round(min(result.seconds, limit.seconds), 3),
            "expected": inst.expected, "keys": [_task_key(task)]}


#: a run record is a few hundred bytes; anything far larger was not written by tune
MAX_RECORD = 1 << 16
_STATUSES = ("SAT", "UNSAT", "UNKNOWN")


def _sound_record(record, name: str) -> bool:
    """Whether ``record`` has the shape :func:`solve_task` gives, is stored under its own
    name and does not contradict its instance's expected answer; anything else in the cache
    (tampered, truncated, from another version) is ignored and the run made again."""
    def number(value) -> bool:
        return type(value) in (int, float) and math.isfinite(value) and value >= 0
    return (isinstance(record, dict)
            and isinstance(record.get("gbd_hash"), str)
            and re.fullmatch(r"[0-9a-f]{32}", record["gbd_hash"]) is not None
            and isinstance(record.get("solver"), str)
            and name == f"{record['gbd_hash']}.{record['solver']}.json"
            and record.get("status") in _STATUSES
            and number(record.get("seconds")) and number(record.get("limit"))
            and record["seconds"] <= record["limit"]
            and record.get("expected") in (*_STATUSES, None)
            and not (record["status"] != "UNKNOWN" and record["expected"] in ("SAT", "UNSAT")
                     and record["status"] != record["expected"])
            and isinstance(record.get("keys"), list) and record["keys"] != []
            and all(isinstance(key, str) for key in record["keys"]))


class RunCache:
    """``OUT/runs/<gbd hash>.<solver>.json``: every run made, one file each, atomic."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.records: dict[tuple[str, str], dict] = {}
        self.hashes: dict[str, str] = {}  # task key -> gbd hash
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
            if path.is_symlink():
                continue  # not a file tune wrote: never read through it
            try:
                record = load_json(read_input(path, MAX_RECORD, "tune run"), str(path))
            except (UserError, OSError):
                continue  # damaged: that run is simply made again (and the file replaced)
            if _sound_record(record, path.name):
                self._index(record)

    def _index(self, record: dict) -> None:
        self.records[(record["gbd_hash"], record["solver"])] = record
        for key in record["keys"]:
            self.hashes[key] = record["gbd_hash"]

    def lookup(self, task: Task, limit: Limit) -> dict | None:
        """The cached run that decides ``task`` at ``limit``, as a run at that limit."""
        gbd = self.hashes.get(_task_key(task))
        record = self.records.get((gbd, limit.solver)) if gbd else None
        if record is None:
            return None
        if record["status"] in ("SAT", "UNSAT"):
            if record["seconds"] <= limit.seconds:
                return {**record, "limit": limit.seconds}
            return {**record, "limit": limit.seconds, "status": "UNKNOWN",
                    "seconds": limit.seconds}
        if record["limit"] >= limit.seconds:
            return {**record, "limit": limit.seconds, "seconds": limit.seconds}
        return None  # stopped below this limit: decides nothing here

    def store(self, task: Task, record: dict) -> None:
        """Record a run of ``task``, merging its keys with an earlier record of the instance."""
        known = self.records.get((record["gbd_hash"], record["solver"]))
        keys = sorted({*record["keys"], *(known["keys"] if known else [])})
        record = {**record, "keys": keys}
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write(self.folder / f"{record['gbd_hash']}.{record['solver']}.json",
                     (canonical_json(record) + "\n").encode())
        self._index(record)


# -- the walk --------------------------------------------------------------------------------
@dataclass
class Sample:
    """One instance of an axis value and the runs made on it."""

    value: int
    task: Task
    runs: list = field(default_factory=list)  # records, easy first

    @property
    def klass(self) -> str | None:
        """easy / band / hard, or None while undecided."""
        if not self.runs:
            return None
        if self.runs[0]["status"] != "UNKNOWN":
            return "easy"
        if len(self.runs) == 1:
            return None
        return "band" if self.runs[1]["status"] != "UNKNOWN" else "hard"


def median_class(samples: list[Sample]) -> str | None:
    """The class of the middle sample in the order easy < band < hard (the upper middle one
    for an even count), or None while the samples decided so far cannot tell."""
    n, middle = len(samples), len(samples) // 2
    counts = {k: sum(s.klass == k for s in samples) for k in (*CLASSES, None)}
    if counts["easy"] > middle:
        return "easy"
    if counts["hard"] >= n - middle:
        return "hard"
    return "band" if not counts[None] else None


@dataclass
class Tune:
    """The outcome of :func:`tune`: samples per walked value, their medians, the cost."""

    plan: Plan
    samples: dict  # value -> list[Sample]
    medians: dict  # value -> class or None (runs skipped once decided)
    stopped_at: int | None
    fresh_seconds: float
    fresh_runs: int
    written: list[str]
    notes: list[str]

    @property
    def in_band(self) -> list[int]:
        """The axis values whose median instance is in the band."""
        return [v for v, m in self.medians.items() if m == "band"]

    @property
    def spent(self) -> float:
        """Solver seconds spent over every sample."""
        return sum(r["seconds"] for s in self.all_samples() for r in s.runs)

    def all_samples(self) -> Iterator[Sample]:
        """Every sample, axis value by axis value."""
        for samples in self.samples.values():
            yield from samples

    def full_grid(self) -> float:
        """Every axis value x sample x encoding, both solvers to their limits."""
        count = sum(len(t) for t in self.plan.tasks.values())
        return count * (self.plan.easy.seconds + self.plan.reference.seconds)

    @property
    def exit_code(self) -> int:
        """0 when some value is in the band, 1 otherwise."""
        return 0 if self.in_band else 1

    def summary(self) -> str:
        """The table of axis values, their samples' classes, and the values in the band."""
        plan = self.plan
        lines = []
        for value, samples in self.samples.items():
            counts = ", ".join(f"{sum(s.klass == k for s in samples)} {k}" for k in CLASSES)
            lines.append(f"{plan.axis.name}={value}: median {self.medians[value] or '?'} "
                         f"({counts} of {len(samples)})")
        if self.stopped_at is not None:
            lines.append(f"stopped after {plan.axis.name}={self.stopped_at}: {HARD_STREAK} "
                         f"values in a row with the median not solved by "
                         f"{plan.reference.text()}")
        wrong = [r for s in self.all_samples() for r in s.runs
                 if r["status"] in ("SAT", "UNSAT") and r["expected"] in ("SAT", "UNSAT")
                 and r["status"] != r["expected"]]
        if wrong:
            lines.append(f"WARNING: {len(wrong)} answers contradict the known result (first: "
                         f"{wrong[0]['solver']} said {wrong[0]['status']} on "
                         f"{wrong[0]['gbd_hash']})")
        if self.in_band:
            lines.append(f"in the band (not solved by {plan.easy.text()}, solved by "
                         f"{plan.reference.text()}): "
                         f"{plan.axis.name} = {', '.join(map(str, self.in_band))}")
        else:
            lines.append(f"no {plan.axis.name} value has its median in the band (not solved "
                         f"by {plan.easy.text()}, solved by {plan.reference.text()}): try "
                         f"another axis range or params")
        grid = self.full_grid()
        lines.append(f"solver CPU {self.spent:,.0f} s ({self.fresh_seconds:,.0f} s in "
                     f"{self.fresh_runs} runs made now, "
                     f"{max(0.0, self.spent - self.fresh_seconds):,.0f} s from the cache); "
                     f"a full grid at both limits: {grid:,.0f} s, an upper bound from the limits "
                     f"({100 * self.spent / grid:.1f}%)")
        return "\n".join([*self.notes, *lines, f"wrote {', '.join(self.written)}"])


def tune(plan: Plan, output, jobs: int = 1, executor=None, progress: bool = True,
         plot: bool = True) -> Tune:
    """Walk the plan's axis (see the module docstring) and write the output folder."""
    from tqdm import tqdm

    out = Path(output)
    if out.exists() and not out.is_dir():
        raise UserError(f"-o {out}: exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create {out}: {exc.strerror or exc}") from None
    cache = RunCache(out / RUNS)
    walked: dict = {}
    medians: dict = {}
    fresh: dict[str, Any] = {"seconds": 0.0, "runs": 0}
    stopped_at, streak = None, 0
    total = sum(len(t) for t in plan.tasks.values())
    with solver_pool(jobs, executor) as (pool, slots), \
            tqdm(total=total, unit="instance", desc="tuning", disable=not progress) as bar:
        for value in plan.axis.values:
            bar.set_postfix_str(f"{plan.axis.name}={value}")
            samples = [Sample(value, task) for task in plan.tasks[value]]
            walked[value] = samples
            _run_value(samples, plan, cache, pool, slots, fresh, bar)
            medians[value] = median_class(samples)
            streak = streak + 1 if medians[value] == "hard" else 0
            if streak >= HARD_STREAK:
                stopped_at = value
                break
    result = Tune(plan, walked, medians, stopped_at, fresh["seconds"], fresh["runs"], [],
                  list(plan.notes))
    _write(out, result, plot)
    return result


def _run_value(samples: list[Sample], plan: Plan, cache: RunCache, executor, slots,
               fresh: dict, bar) -> None:
    """The easy solver on every sample, then the reference solver on those it did not solve
    while the median is undecided."""
    def finish(sample: Sample, record: dict, made: bool) -> None:
        if made:
            cache.store(sample.task, record)
            fresh["seconds"] += record["seconds"]
            fresh["runs"] += 1
        sample.runs.append(record)
        if sample.klass is not None:
            bar.update()

    for limit, wanted in ((plan.easy, lambda s: True),
                          (plan.reference, lambda s: s.klass is None)):
        todo = []
        for sample in samples:
            if not wanted(sample):
                continue
            cached = cache.lookup(sample.task, limit)
            if cached is not None:
                finish(sample, cached, False)
            else:
                todo.append(sample)

        def calls(todo=todo, limit=limit) -> Iterator[tuple]:
            # asked lazily: a run the decided median makes useless is never handed out
            for sample in todo:
                if median_class(samples) in ("easy", "hard") and limit is plan.reference:
                    return
                yield sample.task, limit

        for index, record in run_tasks(solve_task, calls(), executor,
                                       window=slots or executor_slots(executor),
                                       slots=slots):
            finish(todo[index], record, True)
    bar.update(sum(s.klass is None for s in samples))  # skipped: the median was decided


# -- the output folder -----------------------------------------------------------------------
def landscape_rows(result: Tune) -> list[dict]:
    """One row per run, in walking order."""
    plan = result.plan
    return [{"axis": plan.axis.name, "value": s.value, "replicate": s.task.replicate,
             "seed": s.task.seed if s.task.seed is not None else "",
             "encoding": s.task.encoding, "solver": r["solver"], "limit": r["limit"],
             "status": r["status"], "seconds": r["seconds"], "gbd_hash": r["gbd_hash"],
             "expected": r["expected"], "params": canonical_json(s.task.params)}
            for s in result.all_samples() for r in s.runs]


def group_file(result: Tune) -> str | None:
    """``group.toml``'s text: one ``[[group]]`` per in-band value and encoding with the
    replicates in the band; None when no value is in the band."""
    plan = result.plan
    if not result.in_band:
        return None
    head = [f"# puzzlesat tune {plan.family}: axis {plan.axis.name}; band: not solved by "
            f"{plan.easy.text()}, solved by {plan.reference.text()}",
            f"# replicates are seeded as in a suite with [suite] seed = {plan.seed}; paste "
            f"these groups into such a spec"]
    groups = []
    for value in result.in_band:
        for encoding in plan.encodings:
            mine = [s for s in result.samples[value] if s.task.encoding == encoding]
            replicates = [s.task.replicate for s in mine if s.klass == "band"]
            if replicates:
                times = sorted(s.runs[1]["seconds"] for s in mine if s.klass == "band")
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
    if path.is_symlink() or not path.is_file():
        return False
    with open(path, "rb") as fh:
        return fh.read(len(_GROUP_HEAD)) == _GROUP_HEAD


def _write(out: Path, result: Tune, plot: bool) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(landscape_rows(result))
    atomic_write(out / LANDSCAPE_CSV, buffer.getvalue().encode())
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
    ax.axhspan(plan.easy.seconds, plan.reference.seconds, color="tab:green", alpha=0.1,
               label="band (in-band values: green columns)")
    walked = list(result.samples)
    step = min((b - a for a, b in zip(walked, walked[1:])), default=1)  # columns fit the axis
    for value in result.in_band:
        ax.axvspan(value - 0.4 * step, value + 0.4 * step, color="tab:green", alpha=0.15)
    for index, (limit, color) in enumerate(((plan.easy, "tab:blue"),
                                            (plan.reference, "tab:red"))):
        ax.axhline(limit.seconds, color=color, linestyle=":", linewidth=1)
        ax.annotate(f"limit {limit}", (0.995, limit.seconds), ha="right", va="bottom",
                    xycoords=("axes fraction", "data"), fontsize="small", color=color)
        _plot_solver(ax, result, index, limit, color, 0.1 * step * (2 * index - 1))
    ax.set_yscale("log")
    ax.set_xlabel(plan.axis.name + "".join(f"  ({f.name} = {_follow_text(f, plan)})"
                                           for f in plan.follows))
    ax.set_ylabel("solver seconds (log)")
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


def _plot_solver(ax, result: Tune, index: int, limit: Limit, color: str, shift: float) -> None:
    """One solver's median (line), min..max (bar) and its stopped runs (x at the limit),
    drawn ``shift`` to the side so that the two solvers' bars do not hide each other."""
    plan = result.plan
    xs, medians, lows, highs, stopped = [], [], [], [], []
    for value, samples in result.samples.items():
        runs = [s.runs[index] for s in samples if len(s.runs) > index]
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
    label = limit.solver if index == 0 else f"{limit.solver} (where {plan.easy.solver} failed)"
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

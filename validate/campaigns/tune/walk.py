"""Tune's walk along the axis: samples, classes and medians, the streak of hard values that
ends it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puzzlesat.generator.core.executors import executor_slots, run_tasks
from puzzlesat.generator.suite.spec import Task
from puzzlesat.validate.campaigns.tune.cache import RunCache, solve_task
from puzzlesat.validate.campaigns.tune.plan import CLASSES, HARD_STREAK, RUNS, Plan
from puzzlesat.validate.runs.processes import solver_pool
from puzzlesat.validate.runs.records import TuneRun


@dataclass
class Sample:
    """One instance of an axis value and the runs made on it."""

    value: int
    task: Task
    easy_solvers: int = 1  # how many of the runs, at most, are easy solvers' (made first)
    runs: list[TuneRun] = field(default_factory=list)  # easy solvers' first

    @property
    def klass(self) -> str | None:
        """easy (an easy solver solved it) / band (none did, the reference solver did) /
        hard (none did), or None while undecided."""
        easy = self.runs[:self.easy_solvers]
        if any(run.status != "UNKNOWN" for run in easy):
            return "easy"
        if len(self.runs) <= self.easy_solvers:
            return None
        return "band" if self.runs[-1].status != "UNKNOWN" else "hard"


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
        return sum(r.seconds for s in self.all_samples() for r in s.runs)

    def all_samples(self) -> Iterator[Sample]:
        """Every sample, axis value by axis value."""
        for samples in self.samples.values():
            yield from samples

    def full_grid(self) -> float:
        """Every axis value x sample x encoding, both solvers to their limits."""
        count = sum(len(t) for t in self.plan.tasks.values())
        return count * sum(limit.cpu_seconds for limit in self.plan.limits)

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
                 if r.status in ("SAT", "UNSAT") and r.expected in ("SAT", "UNSAT")
                 and r.status != r.expected]
        if wrong:
            lines.append(f"WARNING: {len(wrong)} answers contradict the known result (first: "
                         f"{wrong[0].solver} said {wrong[0].status} on "
                         f"{wrong[0].gbd_hash})")
        if self.in_band:
            lines.append(f"in the band (solved by neither {plan.easy_text()}, solved by "
                         f"{plan.reference.text()}): "
                         f"{plan.axis.name} = {', '.join(map(str, self.in_band))}")
        else:
            lines.append(f"no {plan.axis.name} value has its median in the band (not solved "
                         f"by {plan.easy_text()}, solved by {plan.reference.text()}): try "
                         f"another axis range or params")
        grid = self.full_grid()
        lines.append(f"solver CPU {self.spent:,.0f} s ({self.fresh_seconds:,.0f} s in "
                     f"{self.fresh_runs} runs made now, "
                     f"{max(0.0, self.spent - self.fresh_seconds):,.0f} s from the cache); "
                     f"a full grid at both limits: {grid:,.0f} s, an upper bound from the limits "
                     f"({100 * self.spent / grid:.1f}%)")
        return "\n".join([*self.notes, *lines, f"wrote {', '.join(self.written)}"])


def walk(plan: Plan, out: Path, jobs: int = 1, executor=None, progress: bool = True) -> Tune:
    """Walk the plan's axis (see :mod:`puzzlesat.validate.campaigns.tune`), runs cached in
    ``out/runs``."""
    from tqdm import tqdm

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
            samples = [Sample(value, task, len(plan.easy)) for task in plan.tasks[value]]
            walked[value] = samples
            _run_value(samples, plan, cache, pool, slots, fresh, bar)
            medians[value] = median_class(samples)
            streak = streak + 1 if medians[value] == "hard" else 0
            if streak >= HARD_STREAK:
                stopped_at = value
                break
    return Tune(plan, walked, medians, stopped_at, fresh["seconds"], fresh["runs"], [],
                list(plan.notes))


def _run_value(samples: list[Sample], plan: Plan, cache: RunCache, executor, slots,
               fresh: dict, bar) -> None:
    """The first easy solver on every sample, each further one (then the reference solver)
    on those still undecided while the median is undecided."""
    def finish(sample: Sample, record: TuneRun, made: bool) -> None:
        if made:
            cache.store(sample.task, record)
            fresh["seconds"] += record.seconds
            fresh["runs"] += 1
        sample.runs.append(record)
        if sample.klass is not None:
            bar.update()

    for limit in plan.limits:
        todo = []
        for sample in samples:
            if limit is not plan.limits[0] and sample.klass is not None:
                continue
            cached = cache.lookup(sample.task, limit)
            if cached is not None:
                finish(sample, cached, False)
            else:
                todo.append(sample)

        def calls(todo=todo, limit=limit) -> Iterator[tuple]:
            # asked lazily: a run the decided median makes useless is never handed out
            for sample in todo:
                if median_class(samples) in ("easy", "hard") and limit is not plan.limits[0]:
                    return
                yield sample.task, limit

        for index, record in run_tasks(solve_task, calls(), executor,
                                       window=slots or executor_slots(executor),
                                       slots=slots):
            finish(todo[index], record, True)
    bar.update(sum(s.klass is None for s in samples))  # skipped: the median was decided



"""Tune's solver runs and their cache: ``OUT/runs/<gbd hash>.<solver>.json``, one record a run,
reused for any limit it decides."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.core.header import canonical_json
from puzzlesat.generator.core.inputs import read_input
from puzzlesat.generator.core.paths import is_regular_file, plain_folder
from puzzlesat.generator.core.structured import load_json
from puzzlesat.generator.instance import build
from puzzlesat.generator.suite.spec import Task
from puzzlesat.validate.runs.certify import CheckedSolving
from puzzlesat.validate.runs.limits import CPU_LIMIT, TimeLimit, load, machine
from puzzlesat.validate.runs.records import TuneRun
from puzzlesat.validate.runs.solvers import SolveResult
from puzzlesat.validate.tracks import Limit, get_track


def _task_key(task: Task) -> str:
    """What fixes an instance's bytes: family, params, seed, encoding."""
    return canonical_json([task.family, task.params, task.seed, task.encoding])


def _instance(task: Task):
    """The task's instance, built as the tune's workers build it."""
    return build(task.family, task.params, task.encoding, task.seed, task.name,
                 solving=CheckedSolving(), force=True, track=task.track)


def solve_task(task: Task, limit: Limit) -> TuneRun:
    """Worker: build the task's instance and run one client of its track on it (handed over
    in memory, as the track's clients take it: a binary gets it as a plain file) up to the
    CPU limit. Returns the run (picklable, no file access)."""
    inst = _instance(task)
    at_start = load()
    result = run_client(limit.solver, get_track(task.track).clients.source(inst.formula),
                        limit.time_limit, task.track)
    if result.status == "UNKNOWN" and result.ended_by != CPU_LIMIT:
        # the solver died before its limit (out of memory, a signal) or was starved past the
        # wall-clock backstop: that decides nothing, so it is not recorded; the tune stops and
        # a rerun tries again
        raise UserError(f"{limit.solver} on {task.name} ({task.params}, seed {task.seed}) "
                        f"ended without an answer: {'; '.join(result.notes) or 'no reason'}")
    cpu = limit.cpu_seconds
    return TuneRun(inst.track.gbd_hash(inst.formula), limit.solver, round(cpu, 3),
                   result.status, round(min(result.seconds, cpu), 3), round(result.wall, 3),
                   result.ended_by, inst.expected, machine(), at_start,
                   (_task_key(task),), limit.index)


def run_client(solver: str, source, time_limit: TimeLimit, track: str = "sat") -> SolveResult:
    """One run of a client of ``track`` on an instance built in memory."""
    return get_track(track).clients.run(solver, source, time_limit)


#: a run record is a few hundred bytes; anything far larger was not written by tune
MAX_RECORD = 1 << 16


class RunCache:
    """``OUT/runs/<gbd hash>.<solver>.json``: every run made, one file each, atomic. A record's
    task keys only say which tasks to look at: a run serves a task once the task's instance,
    built here, has the record's GBD hash (a record from an older encoding, or one whose keys
    were edited, names another instance)."""

    def __init__(self, folder: Path):
        # a symlinked runs/ would read and write another folder's files as tune's own
        self.folder = plain_folder(folder, "tune's run cache", create=False)
        self.records: dict[tuple[str, str], TuneRun] = {}
        self.claimed: set[str] = set()  # task keys some record names
        self.hashes: dict[str, str] = {}  # task key -> its instance's gbd hash (built)
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
            if not is_regular_file(path):
                continue  # not a file tune wrote: never read through it
            try:
                run = TuneRun.from_record(load_json(read_input(path, MAX_RECORD, "tune run"),
                                                    str(path)), path.name)
            except (UserError, OSError, ValueError):
                # damaged, tampered, from another version: that run is simply made again (and
                # the file replaced)
                continue
            self._index(run)

    def _index(self, run: TuneRun) -> None:
        self.records[(run.gbd_hash, run.solver)] = run
        self.claimed.update(run.keys)

    def lookup(self, task: Task, limit: Limit) -> TuneRun | None:
        """The cached run that decides ``task`` at ``limit``, as a run at that limit: compared
        in reference seconds when the limit has a speed index (a run without one decides
        nothing then), else in CPU seconds."""
        key = _task_key(task)
        if key not in self.claimed:
            return None
        if key not in self.hashes:
            inst = _instance(task)
            self.hashes[key] = inst.track.gbd_hash(inst.formula)
        run = self.records.get((self.hashes[key], limit.solver))
        if run is None or (limit.index is not None and run.speed_index is None):
            return None
        # the run's CPU seconds for the limit: its seconds are the run machine's; compared in
        # CPU seconds, the record says no index (its row would mix two units)
        scale = run.speed_index if limit.index is not None else None
        cpu = round(limit.seconds / scale, 3) if scale else limit.seconds
        run = replace(run, speed_index=scale)
        if run.status != "UNKNOWN":  # answered (SAT, UNSAT, a count, an optimum)
            if run.seconds <= cpu:
                return replace(run, limit=cpu)
            return replace(run, limit=cpu, status="UNKNOWN", seconds=cpu, ended_by=CPU_LIMIT)
        if run.limit >= cpu:  # stopped at a limit at least this one
            return replace(run, limit=cpu, seconds=cpu)
        return None  # stopped below this limit: decides nothing here

    def store(self, task: Task, run: TuneRun) -> None:
        """Record a run of ``task``, merging its keys with an earlier record of the instance."""
        known = self.records.get((run.gbd_hash, run.solver))
        run = replace(run, keys=tuple(sorted({*run.keys, *(known.keys if known else ())})))
        plain_folder(self.folder, "tune's run cache")
        atomic_write(self.folder / f"{run.gbd_hash}.{run.solver}.json",
                     (canonical_json(run.as_record()) + "\n").encode())
        self._index(run)
        self.hashes[_task_key(task)] = run.gbd_hash  # the worker built this task

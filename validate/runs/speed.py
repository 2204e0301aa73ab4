"""The speed of this machine per solver, as an index against a reference machine, so that a
hardness figure says on what speed of machine it holds.

Machines that report the same CPU model differ by 1.7x in speed (issue 42), so a CPU model
name says nothing of how long a run takes elsewhere. As the DIMACS challenges asked every
paper for its machine's time on a fixed benchmark program, each solver kind that hardness is
measured with solves a fixed reference workload (:data:`WORKLOADS`): an instance of our own
generation, pinned by its GBD hash (a generator change that alters it is refused, never
measured), that takes the reference machine's solver 5-20 s of CPU. It runs :data:`RUNS`
times, the median of its CPU seconds is kept, and the **speed index** is the reference
machine's median over this one's: 1.7 means this machine runs that solver 1.7x as fast as
the reference machine. A run's CPU seconds times the index are its **reference seconds**: what
it would have cost on the reference machine.

Indices are cached per machine (:func:`cache_path`, keyed by host and CPU model, solver and
workload hash) for :data:`CACHE_SECONDS`, so only the first calibration of a day spends the
minute or so the workloads take. A cache file that cannot be read is ignored and replaced;
one that cannot be written only costs a measurement next time.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.core.inputs import read_input
from puzzlesat.generator.core.paths import is_regular_file
from puzzlesat.generator.core.structured import load_json
from puzzlesat.generator.instance import build
from puzzlesat.validate.runs.certify import CheckedSolving
from puzzlesat.validate.runs.limits import (
    SPEED_INDICES,
    TimeLimit,
    load,
    machine,
    overloaded,
    plausible_index,
)


@dataclass(frozen=True)
class Workload:
    """A reference workload: an instance of our generation (family, params, encoding,
    seed), its pinned GBD hash and answer, and the reference machine's median CPU seconds of
    the solver on it."""

    family: str
    params: dict = field(hash=False)
    encoding: str
    seed: int | None
    gbd_hash: str
    expected: str
    reference_seconds: float

    def describe(self) -> str:
        """The instance in a few words: ``edge-matching rows=5 cols=6 ... (all, seed 1)``."""
        params = " ".join(k if v is True else f"{k}={v}" for k, v in self.params.items())
        seed = "" if self.seed is None else f", seed {self.seed}"
        return f"{self.family} {params} ({self.encoding}{seed})"


#: the edge-matching grid both MiniSats are timed on: 5x6, 3 frame and 4 inner colours,
#: scrambled, made UNSAT by parity (a certified answer; a scrambled grid has no easy order)
_EDGE_MATCHING = Workload("edge-matching", {"rows": 5, "cols": 6, "border_colors": 3,
                                            "center_colors": 4, "scramble": True,
                                            "unsat": "parity"},
                          "all", 1, "7d219eb8a07333656312c3c33b29fa40", "UNSAT", 5.85)
#: each solver kind's workload. The reference machine is the project's own 2-core VM (``AMD
#: EPYC x2``, host ``vm``) as it ran on 2026-11-28 15:06-15:11 UTC: each reference time is the
#: median of 10 runs (two sets of 5 by ``measure(solver, WORKLOADS[solver], runs=5)`` at a
#: load of 1.2-2.0, other jobs running: within a set the runs spread by 3-12 %, and the same
#: machine measured 4-14 % slower within the next hour, so an index is good to about 10 %).
#: Kissat solves the edge-matching grid in 4 s, too little to time well, so it gets a longer
#: sliding-tile one: Korf's 24-puzzle #9 truncated to 26 moves with a budget of 24 (UNSAT,
#: the trace being optimal).
WORKLOADS = {
    "minisat-bin": _EDGE_MATCHING,
    "minisat22": dataclasses.replace(_EDGE_MATCHING, reference_seconds=7.19),
    "kissat-bin": Workload("sliding", {"korf": 9, "k": 26, "budget": 24}, "rotated", None,
                           "532b50eeb6ada83bca9de3693e748e13", "UNSAT", 7.83),
}
#: runs per workload; their median is kept (one run disturbed by another job moves it little)
RUNS = 3
#: how long a cached index holds: a machine's speed drifts with what else it runs (its
#: neighbours on a VM host), so an index a day old says little of the next calibration
CACHE_SECONDS = 12 * 3600
#: a run of a workload may take this many times the reference seconds: a slower machine
#: still measures, a solver that hangs does not hold a calibration up for ever
LIMIT_FACTOR = 20
#: the cache file's ``format``: a file of another is not read
CACHE_FORMAT = "puzzlesat speed cache 1"
#: the cache file is a few hundred bytes per entry; anything far larger is not ours
MAX_CACHE = 1 << 20


@dataclass(frozen=True)
class Speed:
    """The index of ``solver`` on ``host``: the CPU seconds of each run of its workload,
    the load when they started, when they were measured (epoch seconds) and whether they
    came from the cache."""

    solver: str
    workload: Workload
    seconds: tuple[float, ...]
    host: str
    load: float
    measured: float
    cached: bool = False

    @property
    def median(self) -> float:
        """The median CPU seconds of the runs."""
        return statistics.median(self.seconds)

    @property
    def index(self) -> float:
        """How many times as fast as the reference machine this one runs the solver."""
        return round(self.workload.reference_seconds / self.median, 3)

    @property
    def loaded(self) -> bool:
        """Measured while the machine was loaded (cores + 1 or more): not cached."""
        return overloaded(self.load, self.host)

    def line(self) -> str:
        """One line: the index, the median and its runs, the reference, where it came from."""
        runs = ", ".join(f"{s:.2f}" for s in self.seconds)
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(self.measured))
        source = f"cached, measured {when}" if self.cached else f"measured {when}"
        loaded = "; LOADED: not cached, distrust it" if self.loaded and not self.cached else ""
        return (f"{self.solver}: speed index {self.index:.3f} (median {self.median:.2f} s of "
                f"CPU over {runs}; reference machine {self.workload.reference_seconds:g} s; "
                f"{source} at load {self.load:g}{loaded})")


def host() -> str:
    """The machine an index belongs to: its host name and CPU model with cores (two hosts
    with the same CPU model are two machines, which is the point)."""
    return f"{os.uname().nodename}: {machine()}"


def workload_source(solver: str, workload: Workload) -> tuple:
    """The workload's instance built (flat literals, variables), or a UserError when its GBD
    hash is not the pinned one: timing another instance would give a meaningless index."""
    from puzzlesat.validate.tracks import get_track

    inst = build(workload.family, workload.params, workload.encoding, workload.seed,
                 solving=CheckedSolving(), force=True)
    digest = inst.track.gbd_hash(inst.formula)
    if digest != workload.gbd_hash:
        raise UserError(f"{solver}'s speed workload {workload.describe()} has GBD hash "
                        f"{digest}, not the pinned {workload.gbd_hash}: the generator changed, "
                        f"so the reference machine's time no longer applies (measure the "
                        f"reference again)")
    return get_track("sat").clients.source(inst.formula)


class NotMeasured(Exception):
    """A solver that does not run, or does not give its workload's answer: it has no index
    (a calibration still runs it, and records what it does, as for any solver)."""


def measure(solver: str, workload: Workload, runs: int = RUNS) -> Speed:
    """Run ``solver`` ``runs`` times on its workload, each in CPU seconds as calibrate times
    a run (the solver's own: a binary's process group, python-sat's ``solve()`` call);
    :class:`NotMeasured` when a run does not give the workload's answer."""
    from puzzlesat.validate.tracks import get_track

    source = workload_source(solver, workload)
    limit = TimeLimit(workload.reference_seconds * LIMIT_FACTOR)
    at_start, seconds = load(), []
    for _ in range(runs):
        try:
            result = get_track("sat").clients.run(solver, source, limit)
        except UserError as exc:  # not installed, not runnable
            raise NotMeasured(str(exc)) from None
        if result.status != workload.expected:
            raise NotMeasured(f"answered {result.status} on its speed workload "
                              f"{workload.describe()}, not {workload.expected} "
                              f"({'; '.join(result.notes) or 'no reason given'})")
        seconds.append(max(round(result.seconds, 3), 0.001))  # a zero time gives no index
    return Speed(solver, workload, tuple(seconds), host(), at_start, time.time())


def cache_path() -> Path:
    """The cache file: ``$XDG_CACHE_HOME/puzzlesat/speed.json`` (``~/.cache`` by default)."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(root) / "puzzlesat" / "speed.json"


def _key(solver: str, workload: Workload, where: str) -> str:
    return f"{where} | {solver} | {workload.gbd_hash}"


def _read_cache(path: Path) -> dict:
    """The cache's entries by key; {} when the file is missing or not one this module wrote
    (damaged, truncated, another format): it is then replaced at the next store."""
    try:
        data = load_json(read_input(path, MAX_CACHE, "speed cache"), str(path)) \
            if is_regular_file(path) else None
    except (UserError, OSError):
        data = None
    if not (isinstance(data, dict) and data.get("format") == CACHE_FORMAT
            and isinstance(data.get("entries"), dict)):
        return {}
    return data["entries"]


def _cached(entry: object, solver: str, workload: Workload, where: str,
            now: float) -> Speed | None:
    """The entry as a Speed when it is of the shape :func:`_store` writes, fresh, measured on
    a quiet machine and of a plausible index; None otherwise (then it is measured again)."""
    if not isinstance(entry, dict):
        return None
    seconds = entry.get("seconds")
    if not (isinstance(seconds, list) and seconds):
        return None
    *times, at, measured = [_number(v) for v in
                            (*seconds, entry.get("load"), entry.get("measured"))]
    if min(times) <= 0 or min(at, measured) < 0:
        return None  # not what _store writes (a zero time would give no index)
    if not 0 <= now - measured < CACHE_SECONDS:
        return None  # stale, or from a clock gone wrong (a time in the future)
    speed = Speed(solver, workload, tuple(times), where, at, measured, cached=True)
    if speed.loaded or not plausible_index(speed.index):
        return None  # not what _store keeps (a damaged entry): measured again, replaced
    return speed


def _number(value: object) -> float:
    """A JSON value as a finite number, or -1 when it is none."""
    if type(value) not in (int, float) or not math.isfinite(value):  # type: ignore[arg-type]
        return -1.0
    return float(value)  # type: ignore[arg-type]


def _store(path: Path, entries: dict, speed: Speed) -> dict:
    """Add ``speed`` to the cache, written atomically; entries past their time are dropped.
    Returns the entries written."""
    entries = {k: v for k, v in entries.items()
               if isinstance(v, dict) and isinstance(v.get("measured"), (int, float))
               and 0 <= speed.measured - v["measured"] < CACHE_SECONDS}
    entries[_key(speed.solver, speed.workload, speed.host)] = {
        "seconds": list(speed.seconds), "load": speed.load, "measured": speed.measured}
    data = {"format": CACHE_FORMAT, "entries": entries}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())
    except (OSError, UserError):
        pass  # a cache that cannot be written costs a measurement next time, nothing else
    return entries


def speeds(solvers, runs: int = RUNS) -> tuple[dict[str, Speed], list[str]]:
    """The index of each of ``solvers`` that has a workload (the others have none), from the
    cache when fresh, else measured now and cached unless the machine was loaded; and a line
    for each solver that could not be measured (:class:`NotMeasured`)."""
    path, where, now = cache_path(), host(), time.time()
    entries = _read_cache(path)
    found, failed = {}, []
    for solver in dict.fromkeys(solvers):
        workload = WORKLOADS.get(solver)
        if workload is None:
            continue
        speed = _cached(entries.get(_key(solver, workload, where)), solver, workload, where,
                        now)
        if speed is None:
            try:
                speed = measure(solver, workload, runs)
            except NotMeasured as exc:
                failed.append(f"{solver}: no speed index, its runs get none: {exc}")
                continue
            if not speed.loaded:
                entries = _store(path, entries, speed)
        if not plausible_index(speed.index):  # not this solver's speed: a broken run
            failed.append(f"{solver}: no speed index, its runs get none: {speed.index:g} is "
                          f"outside {SPEED_INDICES[0]:g}..{SPEED_INDICES[1]:g}")
            continue
        found[solver] = speed
    return found, failed


def report(names: list[str] | None = None) -> str:
    """``calibrate --speed-only``'s lines: the machine, then the index of each solver of
    ``names`` (``NAME`` or ``NAME:SECONDS``; None: every one with a workload)."""
    solvers = list(WORKLOADS) if names is None else [n.partition(":")[0] for n in names]
    if not any(solver in WORKLOADS for solver in solvers):
        raise UserError(f"--solvers {','.join(solvers)}: none has a speed workload (those "
                        f"that do: {', '.join(WORKLOADS)})")
    found, failed = speeds(solvers)
    lines = [f"machine: {host()} (load {load():g} now)"]
    lines += [f"{speed.line()}; workload {speed.workload.describe()}"
              for speed in found.values()]
    return "\n".join(lines + failed)

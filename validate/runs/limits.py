"""What a solver run may spend and what it spent: the one :class:`TimeLimit` type (a CPU limit,
with wall time as a backstop), the :class:`Cost` of a run (CPU and wall seconds, which limit
ended it), the CPU time of a running process group, and the machine a run was made on.

A limit is on the solver's CPU time, as the competitions' runners (runsolver, BenchExec)
enforce it: the same instance costs the same CPU seconds on a busy machine as on an idle one,
where wall-clock seconds grow with the load. Wall time is only a backstop, at
:data:`WALL_FACTOR` times the CPU limit plus :data:`WALL_SLACK` (a solver starved of CPU, or
blocked, still ends; a tiny limit still leaves time to start a process).

>>> TimeLimit.parse("60").cpu, TimeLimit.parse("60").wall
(60.0, 610.0)
>>> TimeLimit.parse("0", "--minisat-limit")
Traceback (most recent call last):
...
puzzlesat.generator.core.errors.UserError: --minisat-limit must be a finite number of CPU seconds in (0, 1.728e+06] (20 days), got '0'
"""

from __future__ import annotations

import math
import os
import re
import resource
from dataclasses import dataclass

from puzzlesat.generator.core.errors import UserError

#: the longest limit: 20 days of CPU
MAX_SECONDS = 20 * 24 * 3600.0
#: the speed indices a record may hold: a machine a thousand times as fast (or as slow) as
#: the reference machine is a damaged or forged figure, and would scale a limit to nothing
SPEED_INDICES = (0.001, 1000.0)


def plausible_index(index: float) -> bool:
    """Whether a speed index is a number within :data:`SPEED_INDICES`."""
    return (type(index) in (int, float) and math.isfinite(index)
            and SPEED_INDICES[0] <= index <= SPEED_INDICES[1])
#: the wall-clock backstop of a CPU limit: a run ends after this many times its CPU limit,
#: plus WALL_SLACK seconds (measured: on 2 cores at a load of 10, MiniSat got a fifth of a
#: core, so 5x stopped it at 106 s of a 120 s CPU limit)
WALL_FACTOR, WALL_SLACK = 10.0, 10.0
#: the kernel's backstop (RLIMIT_CPU) is set this much past the CPU limit, plus a second:
#: the CPU /proc reports (what the limit is polled on, as runsolver does) ran ~5 % behind the
#: kernel's own count on a loaded VM, so a tighter RLIMIT_CPU fired first
RLIMIT_SLACK = 1.1


def cpu_rlimit(seconds: float, spent: float = 0.0) -> tuple[int, int]:
    """The RLIMIT_CPU (soft, hard) that backs a poll of ``seconds`` of CPU in a process that
    has used ``spent`` CPU seconds already: SIGXCPU at :data:`RLIMIT_SLACK` times the limit
    and a second, SIGKILL 2 s later; both within the hard limit already in force, which an
    unprivileged process cannot raise (``ulimit -t``, a batch system's CPU limit): that
    limit then ends the run first."""
    soft = math.ceil(spent) + math.ceil(seconds * RLIMIT_SLACK) + 1
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    if hard == resource.RLIM_INFINITY:
        return soft, soft + 2
    return min(soft, hard), min(soft + 2, hard)


#: why a run ended: the solver answered (or gave up) by itself, or a limit stopped it
SOLVER, CPU_LIMIT, WALL_LIMIT, OUTPUT_LIMIT = "solver", "cpu-limit", "wall-limit", "output-limit"
ENDINGS = (SOLVER, CPU_LIMIT, WALL_LIMIT, OUTPUT_LIMIT)
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class TimeLimit:
    """A limit of ``cpu`` seconds of solver CPU time, with a wall-clock backstop."""

    cpu: float

    @classmethod
    def parse(cls, value: object, option: str = "--time-limit") -> TimeLimit:
        """``value`` (a number or its text; a TimeLimit is given back) as a limit, or a
        UserError naming ``option``."""
        if isinstance(value, TimeLimit):
            return value
        try:
            seconds = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            seconds = math.nan
        if not (math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS):
            raise UserError(f"{option} must be a finite number of CPU seconds in (0, "
                            f"{MAX_SECONDS:g}] (20 days), got {value!r}")
        return cls(seconds)

    @property
    def wall(self) -> float:
        """The wall-clock backstop."""
        return WALL_FACTOR * self.cpu + WALL_SLACK

    def __str__(self) -> str:
        return f"{self.cpu:g}"


#: no limit given: still a child process, still killable, at the longest limit
NO_LIMIT = TimeLimit(MAX_SECONDS)


@dataclass(frozen=True)
class Cost:
    """What a run spent: the solver's CPU seconds, the wall seconds beside them, and what
    ended it (:data:`ENDINGS`)."""

    cpu: float
    wall: float
    ended_by: str = SOLVER


def process_cpu(pid: int) -> float | None:
    """CPU seconds (user + system, its waited-for children's included) of process ``pid``
    from ``/proc``; None when it cannot be read (gone, not Linux)."""
    fields = _stat_fields(pid)
    return None if fields is None else sum(int(f) for f in fields[11:15]) / _TICK


def group_cpu(pgid: int) -> float:
    """CPU seconds of every process in process group ``pgid`` now (``/proc``; 0.0 where it
    cannot be read): a solver's helpers and a script's children count too."""
    total = 0
    try:
        entries = os.scandir("/proc")
    except OSError:
        return 0.0
    with entries:
        for entry in entries:
            if entry.name.isdigit():
                fields = _stat_fields(int(entry.name))
                if fields is not None and int(fields[2]) == pgid:
                    total += sum(int(f) for f in fields[11:15])
    return total / _TICK


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (state first)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            text = fh.read()
    except OSError:
        return None
    return text[text.rfind(b")") + 2:].decode("ascii", "replace").split()


def machine() -> str:
    """The machine a run is made on: CPU model and cores usable, e.g. ``Intel(R) Xeon(R) CPU
    @ 2.20GHz x2``."""
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "cpu model"):
                    model = " ".join(value.split())
                    break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{model or os.uname().machine} x{cores}"


def load() -> float:
    """The one-minute load average now (0.0 where the system does not say)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return 0.0


def overloaded(at_start: float | None, where: str) -> bool:
    """Whether a one-minute load average of ``at_start`` on the machine ``where`` (ending in
    ``x<cores>``, as :func:`machine` says) is at least its cores plus one: some solver then
    shared its core with other work (runs on as many cores as it has load it up to its cores
    alone), so its CPU seconds may be inflated by shared caches and memory bandwidth."""
    cores = re.search(r" x(\d+)$", where)
    return at_start is not None and cores is not None and at_start >= int(cores[1]) + 1

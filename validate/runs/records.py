"""The records solver campaigns keep and later trust: a row of ``calibration.csv``
(:class:`CalibrationRow`) and a tune run (:class:`TuneRun`), each checked in one place
(``from_row`` / ``from_record``) when it is read back: a status, verdict, time or ending no
run gives is refused, since every reader (submission's rules, tune's band) trusts them.

A calibration table written before runs were timed in CPU seconds (a ``seconds`` column of
wall-clock seconds, no ``cpu-seconds``) still loads: its rows are marked
:data:`WALL_CLOCK_TABLE` and have no CPU seconds, so no hardness rule counts them. One written
before speed indices (no ``speed-index`` column) loads too: its rows have no index, so no
reference seconds.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass

from puzzlesat.generator.suite.calibration import COLUMNS, INSTANCE_COLUMNS, OLD_SECONDS
from puzzlesat.validate.answers import EXIT
from puzzlesat.validate.runs.limits import (
    CPU_LIMIT,
    ENDINGS,
    MAX_SECONDS,
    SPEED_INDICES,
    overloaded,
    plausible_index,
)
from puzzlesat.validate.verdict import EXIT_CODES, FAILED, track_verdicts

#: a run's status: a solver's (SAT, UNSAT, UNKNOWN), a counter's (SAT: count above 0, UNSAT:
#: count 0), a MaxSAT solver's OPTIMUM
RUN_STATUSES = tuple(EXIT)
STATUSES = ("SAT", "UNSAT", "UNKNOWN")
#: the ``ended-by`` of a row read from a table of wall-clock seconds (no CPU time measured)
WALL_CLOCK_TABLE = "wall-clock-table"


def _number(value: object, what: str, empty_ok: bool = False) -> float | None:
    """A finite non-negative number from a table cell, or a ValueError saying which."""
    if empty_ok and value in ("", None):
        return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = math.nan
    if not (math.isfinite(number) and number >= 0):
        raise ValueError(f"{what} {str(value)[:40]!r} is not a finite number >= 0")
    return number


def _solved_within(status: str, seconds: float, limit: float) -> None:
    """A ValueError when a solved run's seconds pass its limit (a stopped run's may: the
    kill takes a moment), or the limit is no limit."""
    if not 0 < limit <= MAX_SECONDS:
        raise ValueError(f"time limit {limit:g} s is not in (0, {MAX_SECONDS:g}]")
    if status != "UNKNOWN" and seconds > limit:
        raise ValueError(f"{status} in {seconds:g} s with a time limit of {limit:g} s: a "
                         f"solved run's time is within its limit")


def _instance(row: dict) -> dict:
    """The instance and solver fields of a table row, by field name (a table written before
    rows had their track: "", which the campaign reading it fills in from the manifest)."""
    return {**{column.replace("-", "_"): row.get(column, "") for column in INSTANCE_COLUMNS},
            "solver": row["solver"]}


def _blank(value: float | None) -> float | str:
    """A table cell: the number, or empty for None."""
    return "" if value is None else value


def _scaled_as_stated(run: CalibrationRow, stated: str) -> None:
    """A ValueError when a row's speed index is outside :data:`SPEED_INDICES` (0 scales
    nothing) or its reference seconds are not its CPU seconds times its index: a figure is
    never scaled silently."""
    if run.speed_index is not None and not plausible_index(run.speed_index):
        raise ValueError(f"speed-index {run.speed_index:g} is outside "
                         f"{SPEED_INDICES[0]:g}..{SPEED_INDICES[1]:g}")
    if stated == "":
        return
    given = _number(stated, "reference-seconds")
    assert given is not None
    if run.reference_seconds is None:
        raise ValueError(f"reference-seconds {stated[:40]!r} without a speed-index")
    if not math.isclose(given, run.reference_seconds, abs_tol=2e-3):
        raise ValueError(f"reference-seconds {stated[:40]!r} is not the run's CPU seconds (its "
                         f"limit when stopped there) x speed-index {run.speed_index:g} = "
                         f"{run.reference_seconds:g}")


@dataclass(frozen=True)
class CalibrationRow:
    """One (instance, solver) run of ``puzzlesat calibrate``."""

    hash: str
    name: str
    file: str
    family: str
    track: str  # the instance's track, whose judge gave the verdict
    hardness_param: str
    hardness: str
    expected: str
    solver: str
    time_limit: float  # CPU seconds
    status: str
    cpu_seconds: float | None  # None: a wall-clock table's row (not measured in CPU)
    wall_seconds: float
    ended_by: str
    verdict: str
    reason: str
    machine: str
    load: float | None
    speed_index: float | None  # the machine's speed index for the solver (None: not measured)

    @classmethod
    def from_row(cls, row: dict) -> CalibrationRow:
        """A table row (strings, by column name) checked, or a ValueError saying why it
        cannot be a run calibrate recorded."""
        if row["status"] not in RUN_STATUSES:
            raise ValueError(f"status {row['status'][:40]!r} is not one of "
                             f"{', '.join(RUN_STATUSES)}")
        # each row has its track judge's verdicts only (a table without tracks: any judge's)
        track = row.get("track", "")
        if row["verdict"] not in (track_verdicts(track) if track else EXIT_CODES):
            raise ValueError(f"verdict {row['verdict'][:40]!r} is not a verdict of the "
                             f"{track or 'any'} track's judge")
        limit = _number(row["time-limit"], "time-limit")
        assert limit is not None
        if "cpu-seconds" not in row:  # a table of wall-clock seconds
            wall = _number(row[OLD_SECONDS], "seconds")
            assert wall is not None
            _solved_within(row["status"], wall, limit)
            return cls(**_instance(row), time_limit=limit, status=row["status"],
                       cpu_seconds=None, wall_seconds=wall, ended_by=WALL_CLOCK_TABLE,
                       verdict=row["verdict"], reason=row["reason"], machine="", load=None,
                       speed_index=None)
        cpu = _number(row["cpu-seconds"], "cpu-seconds")
        wall = _number(row["wall-seconds"], "wall-seconds")
        assert cpu is not None and wall is not None
        _solved_within(row["status"], cpu, limit)
        if row["ended-by"] not in ENDINGS:
            raise ValueError(f"ended-by {row['ended-by'][:40]!r} is not one of "
                             f"{', '.join(ENDINGS)}")
        if row["status"] != "UNKNOWN" and row["ended-by"] != "solver":
            raise ValueError(f"{row['status']} but ended by {row['ended-by']}")
        run = cls(**_instance(row), time_limit=limit, status=row["status"], cpu_seconds=cpu,
                  wall_seconds=wall, ended_by=row["ended-by"], verdict=row["verdict"],
                  reason=row["reason"], machine=row["machine"],
                  load=_number(row["load"], "load", empty_ok=True),
                  speed_index=_number(row.get("speed-index", ""), "speed-index", empty_ok=True))
        _scaled_as_stated(run, row.get("reference-seconds", ""))
        return run

    def as_row(self) -> dict:
        """The row as the table's columns hold it."""
        values = [self.hash, self.name, self.file, self.family, self.track,
                  self.hardness_param, self.hardness, self.expected, self.solver,
                  self.time_limit, self.status,
                  "" if self.cpu_seconds is None else round(self.cpu_seconds, 3),
                  round(self.wall_seconds, 3), self.ended_by, self.verdict, self.reason,
                  self.machine, "" if self.load is None else self.load,
                  _blank(self.speed_index), _blank(self.reference_seconds)]
        return dict(zip(COLUMNS, values))

    @property
    def reference_seconds(self) -> float | None:
        """The run's CPU seconds on the reference machine: times the speed index, and for a
        run stopped at its CPU limit the limit's (a lower bound: the solver had not
        finished); None without an index."""
        if self.speed_index is None or self.cpu_seconds is None:
            return None
        spent = self.time_limit if self.ended_by == CPU_LIMIT else self.cpu_seconds
        return round(spent * self.speed_index, 3)

    @property
    def solved(self) -> bool:
        """Answered (SAT, UNSAT, a count, an optimum), and the answer is not wrong."""
        return self.status != "UNKNOWN" and self.verdict not in FAILED

    def not_solved_within(self, seconds: float) -> bool | None:
        """Whether this run shows the solver does not solve the instance within ``seconds``
        of CPU: True (stopped at a CPU limit of at least that, or solved in more CPU), False
        (solved within it), None (not known: stopped earlier or otherwise, or a wall-clock
        table's row)."""
        if self.cpu_seconds is None:
            return None
        if self.status != "UNKNOWN":
            return self.cpu_seconds > seconds
        if self.ended_by == CPU_LIMIT and self.time_limit >= seconds:
            return True
        return None

    @property
    def loaded(self) -> bool:
        """The machine was loaded when the run started (:func:`overloaded`: a load of its
        cores plus one), so its CPU seconds may be inflated."""
        return overloaded(self.load, self.machine)

    def cell(self) -> str:
        """A short account of the run: ``UNKNOWN 120.0s`` (CPU), ``SAT 3.20s wall (old
        table)``."""
        if self.cpu_seconds is None:
            return f"{self.status} {self.wall_seconds:.2f}s wall (old table)"
        return f"{self.status} {self.cpu_seconds:.2f}s"


@dataclass(frozen=True)
class TuneRun:
    """One solver run of ``puzzlesat tune``, as cached in ``runs/<gbd hash>.<solver>.json``."""

    gbd_hash: str
    solver: str
    limit: float  # CPU seconds
    status: str
    seconds: float  # CPU seconds
    wall_seconds: float
    ended_by: str
    expected: str | None
    machine: str
    load: float
    keys: tuple[str, ...]
    speed_index: float | None = None  # the machine's index of the solver, when measured

    @property
    def reference_seconds(self) -> float | None:
        """The CPU seconds on the reference machine (× the index), None without an index."""
        return None if self.speed_index is None else self.seconds * self.speed_index

    @property
    def reference_limit(self) -> float | None:
        """The CPU limit on the reference machine (× the index), None without an index."""
        return None if self.speed_index is None else self.limit * self.speed_index

    @classmethod
    def from_record(cls, record: object, name: str) -> TuneRun:
        """A cached record checked: the shape tune writes, stored under its own ``name``,
        not contradicting its instance's expected answer; else a ValueError (the run is then
        made again)."""
        if not isinstance(record, dict):
            raise ValueError("not a record")
        fields = {key: record.get(key) for key in cls.__dataclass_fields__}
        gbd, solver = fields["gbd_hash"], fields["solver"]
        if not (isinstance(gbd, str) and re.fullmatch(r"[0-9a-f]{32}", gbd)
                and isinstance(solver, str) and name == f"{gbd}.{solver}.json"):
            raise ValueError("not stored under its own name")
        numbers = [fields[k] for k in ("limit", "seconds", "wall_seconds", "load")]
        if not all(type(v) in (int, float) and math.isfinite(v) and v >= 0  # type: ignore
                   for v in numbers):
            raise ValueError("a time that is not a finite number >= 0")
        status, expected = fields["status"], fields["expected"]
        if status not in RUN_STATUSES or expected not in (*STATUSES, None):
            raise ValueError("an unknown status")
        _solved_within(status, float(numbers[1]), float(numbers[0]))  # type: ignore
        if fields["ended_by"] not in ENDINGS or (status == "UNKNOWN") != (
                fields["ended_by"] == CPU_LIMIT):
            raise ValueError("a run tune keeps is solved, or stopped at its CPU limit")
        if status != "UNKNOWN" and expected in ("SAT", "UNSAT") and status != expected:
            raise ValueError("contradicts the expected answer")
        keys = fields["keys"]
        if not (isinstance(keys, list) and keys and all(isinstance(k, str) for k in keys)
                and isinstance(fields["machine"], str)):
            raise ValueError("no task keys")
        index = fields["speed_index"]
        if index is not None and not plausible_index(index):  # type: ignore[arg-type]
            raise ValueError("a speed index that is not a number within SPEED_INDICES")
        return cls(**{**fields, "keys": tuple(keys)})  # type: ignore[arg-type]

    def as_record(self) -> dict:
        """The record as cached (JSON)."""
        return {**dataclasses.asdict(self), "keys": list(self.keys)}

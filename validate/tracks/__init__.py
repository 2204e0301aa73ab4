"""The tracks whose answers are judged, one folder each, all of the same shape, behind this one
registry: ``sat`` (the SAT Competition), ``mc`` (the Model Counting Competition), ``maxsat``
(the MaxSAT Evaluation), ``pb`` (the Pseudo-Boolean Competition). Every command reaches a
track through :func:`get_track`, :func:`track_of` (an instance's, from its head) or
:func:`client_track` (a solver's, from its name); nothing outside this folder chooses a
track by hand.

Each track folder holds three modules, loaded when asked for (a SAT answer's judge loads no
MaxSAT code):

``judge.py``    (:class:`JudgePart`) one answer on one instance: ``open_case`` reads the
                instance once, bounded, with what its header proves; ``judge`` gives the
                :class:`~puzzlesat.validate.verdict.Verdict`; ``status`` reads what an answer
                claims; ``answer_bound`` is the most an answer to an instance can hold
``clients.py``  (:class:`ClientsPart`) the track's solvers (python-sat, RC2, Ganak, ApproxMC,
                binaries) by name, each run in a killable child with a CPU limit, and any
                external program through ``--solver-command``; the defaults of ``solve``,
                ``calibrate`` and ``tune``
``bundle.py``   (:class:`BundlePart`) the competition's rules and bundle files
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol, cast

from puzzlesat.generator.core.errors import UserError, shown
from puzzlesat.validate.verdict import Verdict

#: the tracks, in the order messages and tables list them (each a folder of that name here)
TRACKS = ("sat", "mc", "maxsat", "pb")


@dataclass(frozen=True)
class JudgeOptions:
    """What a user hands a judge beside the answer; each track uses what applies to it and
    refuses, in one line, what it cannot use (a proof of a MaxSAT answer)."""

    proof: str | os.PathLike | None = None  # an UNSAT answer's proof
    proof_time_limit: float | None = None
    witness: str | os.PathLike | None = None  # a witness file: evidence of SAT
    lrat: Any = None  # a proof.check.LratRequest: where a verified proof's certificate goes
    epsilon: float | None = None  # an approximate count's tolerance
    solving: Any = None  # the solver services a count by certified enumeration runs


class JudgePart(Protocol):
    """A track's ``judge.py``."""

    VERDICTS: tuple[str, ...]

    def open_case(self, path: str | os.PathLike, options: JudgeOptions) -> Any:
        """The instance read once (bounded), with what its header proves."""

    def judge(self, case: Any, answer: bytes | Exception, options: JudgeOptions) -> Verdict:
        """The verdict on one answer's bytes (or the MalformedOutput reading it raised)."""

    def status(self, answer: bytes) -> str:
        """What an answer claims (SAT, UNSAT, UNKNOWN, OPTIMUM), or MalformedOutput."""

    def answer_bound(self, instance: str | os.PathLike) -> int:
        """The most bytes an answer to the instance can hold (from its head alone)."""


class ClientsPart(Protocol):
    """A track's ``clients.py``."""

    DEFAULT: str
    STATUSES: tuple[str, ...]
    CALIBRATION: tuple[str, ...]
    RECHECK: tuple[str, ...]  # calibrate --recheck's: the clients a margin is measured by
    EASY: tuple[str, ...]
    REFERENCE: str

    def canonical(self, name: str) -> str | None:
        """The track's name for a client (None: not one of this track's)."""

    def names(self) -> list[str]:
        """The clients this installation runs, for messages."""

    def check(self, name: str, proof: bool = False) -> str:
        """The canonical name of a client this installation runs (with proofs when asked),
        or a UserError."""

    def run(self, name: str, source: Any, limit: Any, proof_to: Any = None,
            seed: int | None = None) -> Any:
        """A SolveResult: the client run on ``source`` in a killable child."""

    def source(self, formula: Any) -> Any:
        """What ``run`` takes of a formula built in memory (tune's instances)."""

    def run_external(self, command: Any, source: Any, limit: Any, proof_to: Any = None,
                     seed: int | None = None) -> Any:
        """A SolveResult: an external program (``--solver-command``) run on ``source``, its
        output read as this track's answer."""


class BundlePart(Protocol):
    """A track's ``bundle.py``."""

    CALIBRATED: bool  # its rules need the suite's calibration

    def check(self, src: Any, rows: list, runs: list, rules: Any = None, solving: Any = None,
              author: str = "") -> Any:
        """The competition's rules on a published suite's instance rows and trusted
        calibration runs: a check with ``lines()`` and ``failures`` (``rules``: the SAT
        Competition's thresholds; ``solving``: the services certified counting runs)."""

    def write(self, src: Any, output: Any, check: Any) -> Any:
        """Write the bundle of a check that holds; the archive's path."""

    def to_recheck(self, hashes: list[str], runs: list, margin: float) -> list[str]:
        """The instances (GBD hashes) whose speed margin is worth measuring again to meet
        ``margin`` (none in a track whose rules have no margin)."""


@dataclass(frozen=True)
class Track:
    """One track: its name, the generator's module of it, and its three parts."""

    name: str

    @property
    def form(self) -> ModuleType:
        """The generator's track module: its file, header and description."""
        from puzzlesat.generator.tracks import get_track as generator_track

        return generator_track(self.name)

    @property
    def judge(self) -> JudgePart:
        """The track's judge."""
        return cast(JudgePart, self._part("judge"))

    @property
    def clients(self) -> ClientsPart:
        """The track's clients."""
        return cast(ClientsPart, self._part("clients"))

    @property
    def bundle(self) -> BundlePart:
        """The track's bundle."""
        return cast(BundlePart, self._part("bundle"))

    def _part(self, part: str) -> ModuleType:
        return importlib.import_module(f"{__name__}.{self.name}.{part}")


def get_track(name: str) -> Track:
    """The track registered under ``name``; an unknown name is a UserError."""
    if name not in TRACKS:
        raise UserError(f"unknown track {shown(name)} (known: {', '.join(TRACKS)})")
    return Track(name)


def all_tracks() -> list[Track]:
    """Every track, in registry order."""
    return [Track(name) for name in TRACKS]


def track_of(path: str | os.PathLike, expected: str | None = None) -> Track:
    """The track of the instance at ``path``, from its head (read once, bounded): its format,
    and for DIMACS whether it is a counting instance; a UserError when it is not the
    ``expected`` one (a command of one track: ``count``, ``validate-count``)."""
    from puzzlesat.generator.core.head import read_head
    from puzzlesat.generator.tracks import track_of_head

    track = get_track(track_of_head(read_head(path)).NAME)
    if expected is not None and track.name != expected:
        raise UserError(f"{path}: not a {get_track(expected).form.TITLE} instance (it is a "
                        f"{track.form.TITLE} one)")
    return track


def client_track(name: str) -> tuple[Track, str]:
    """(the track whose client ``name`` is, its canonical name), or a UserError naming the
    clients of every track."""
    for track in all_tracks():
        canonical = track.clients.canonical(name)
        if canonical is not None:
            return track, canonical
    known = "; ".join(f"{track.name}: {', '.join(track.clients.names())}"
                      for track in all_tracks())
    raise UserError(f"unknown solver {shown(name)} (solvers here, by track: {known})")


@dataclass(frozen=True)
class Limit:
    """A client of a track and its time limit (``minisat-bin:120``, ``ganak:300``): CPU
    seconds, or reference seconds when ``index`` (this machine's speed index of the solver,
    :mod:`~puzzlesat.validate.runs.speed`) is given, run for ``seconds / index`` of CPU."""

    solver: str
    seconds: float
    track: str = "sat"
    index: float | None = None

    def __str__(self) -> str:
        return f"{self.solver}:{self.seconds:g}"

    def text(self) -> str:
        """``solver within N s`` (``N reference s`` with an index)."""
        return f"{self.solver} within {self.seconds:g} {'reference ' if self.index else ''}s"

    @property
    def cpu_seconds(self) -> float:
        """The CPU seconds a run gets here."""
        return self.seconds / self.index if self.index else self.seconds

    @property
    def time_limit(self) -> Any:
        """The limit as a TimeLimit (CPU seconds)."""
        from puzzlesat.validate.runs.limits import TimeLimit

        return TimeLimit(self.cpu_seconds)


def parse_limit(text: str, option: str, default: float | None = None) -> Limit:
    """``SOLVER:SECONDS`` (``minisat22:60``, ``kissat-bin:1000``, ``ganak:300``; a bare name
    takes ``default`` when given) naming a client this installation runs, with its track."""
    from puzzlesat.validate.runs.limits import TimeLimit

    if ":" not in text and default is not None:
        text = f"{text}:{default:g}"
    solver, sep, seconds = text.rpartition(":")
    if not sep or not solver:
        raise UserError(f"{option} must be SOLVER:SECONDS (e.g. minisat22:60), got {text!r}")
    limit = TimeLimit.parse(seconds, f"{option} {text}:")
    try:
        track, canonical = client_track(solver)
        return Limit(track.clients.check(canonical), limit.cpu, track.name)
    except UserError as exc:
        raise UserError(f"{option}: {exc}") from None


def judge_files(instance: str | os.PathLike, output: str | os.PathLike,
                options: JudgeOptions = JudgeOptions(), expected: str | None = None) -> Verdict:
    """The verdict on a solver's answer file ``output`` for ``instance``, by the instance's
    track (which must be ``expected`` when given): the instance read once (a malformed one is
    a UserError), the answer read bounded by what an answer to it can hold."""
    from puzzlesat.generator.core.inputs import check_distinct
    from puzzlesat.validate.answers import MalformedOutput, read_answer

    check_distinct(("the instance", instance), ("the output", output),
                   ("the proof", options.proof), ("the witness", options.witness),
                   ("the LRAT certificate", None if options.lrat is None else options.lrat.path))
    track = track_of(instance, expected)
    case = track.judge.open_case(instance, options)
    answer: bytes | Exception
    try:
        answer = read_answer(output, track.judge.answer_bound(instance))
    except MalformedOutput as exc:
        answer = exc
    verdict = track.judge.judge(case, answer, options)
    verdict.instance, verdict.output, verdict.track = str(instance), str(output), track.name
    return verdict

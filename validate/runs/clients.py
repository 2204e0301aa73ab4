"""Solvers by name for the campaigns (``calibrate``, ``tune``, ``submission``): python-sat's
names (``minisat22``, ``kissat404``, ...), RC2 (``rc2``, MaxSAT) and the ready names of the competition's binaries
(``minisat-bin``, ``kissat-bin``: :func:`~puzzlesat.validate.runs.command.ready_command`), run
alike on an instance file or a flat literal array, limited and timed in solver CPU seconds."""

from __future__ import annotations

import os
from dataclasses import dataclass

from puzzlesat.generator.core.errors import UserError
from puzzlesat.validate.runs.command import READY, SolverCommand, ready_command, run_command
from puzzlesat.validate.runs.limits import CPU_LIMIT, TimeLimit
from puzzlesat.validate.runs.maxsat import REFERENCE, run_rc2
from puzzlesat.validate.runs.solvers import SolveResult, check_solver, run_solver, solver_name


def client_name(name: str) -> str:
    """The canonical name of a solver this installation can run: a ready binary name as it is
    (a UserError when its binary is missing), else python-sat's canonical name."""
    canonical = canonical_name(name)
    if canonical == REFERENCE:
        return canonical
    if canonical in READY:
        ready_command(canonical)
        return canonical
    return check_solver(canonical)


def canonical_name(name: str) -> str:
    """A solver's name as calibration tables record it (a ready binary name as it is,
    python-sat's canonical name for one of its aliases), whether or not it runs here."""
    if name in READY or name == REFERENCE:
        return name
    try:
        return solver_name(name)
    except UserError as exc:
        raise UserError(f"{exc}; binaries: {', '.join(READY)}") from None


def run_command_result(command: SolverCommand, instance, time_limit: TimeLimit,
                       proof_to: str | os.PathLike | None = None,
                       maxsat: bool = False) -> SolveResult:
    """:func:`~puzzlesat.validate.runs.command.run_command` as a :class:`SolveResult`."""
    run = run_command(command, instance, time_limit, proof_to, maxsat)
    return SolveResult(run.status, command.name, run.seconds,
                       notes=[f"command: {command.template}"] + run.notes, stdout=run.stdout,
                       wall=run.wall, ended_by=run.ended_by)


def run_client(name: str, source, time_limit: TimeLimit) -> SolveResult:
    """Run the solver ``name`` (:func:`client_name`) on ``source`` (an instance path, or
    ``(flat literals, num_vars)``) within ``time_limit``. An answer given after the CPU limit
    (between two polls of the solver's CPU) does not count: UNKNOWN, ended by the limit."""
    command = ready_command(name)
    if command is not None:
        result = run_command_result(command, source, time_limit)
    elif name == REFERENCE:
        result = run_rc2(source, time_limit)
    else:
        result = run_solver(source, name, time_limit)
    if result.status != "UNKNOWN" and result.seconds > time_limit.cpu:
        result.notes.append(f"answered {result.status} after the CPU limit of "
                            f"{time_limit.cpu:g} s: not counted")
        result.status, result.ended_by = "UNKNOWN", CPU_LIMIT
        result.model = result.stdout = None
    return result


@dataclass(frozen=True)
class Limit:
    """A solver and its CPU time limit (``minisat-bin:120``)."""

    solver: str
    seconds: float

    def __str__(self) -> str:
        return f"{self.solver}:{self.seconds:g}"

    def text(self) -> str:
        """``solver within N s``."""
        return f"{self.solver} within {self.seconds:g} s"

    @property
    def time_limit(self) -> TimeLimit:
        """The limit as a TimeLimit."""
        return TimeLimit(self.seconds)


def parse_limit(text: str, option: str) -> Limit:
    """``SOLVER:SECONDS`` (``minisat22:60``, ``kissat-bin:1000``) with a solver this
    installation can run (:func:`client_name`)."""
    solver, sep, seconds = text.rpartition(":")
    if not sep or not solver:
        raise UserError(f"{option} must be SOLVER:SECONDS (e.g. minisat22:60), got {text!r}")
    limit = TimeLimit.parse(seconds, f"{option} {text}:")
    try:
        return Limit(client_name(solver), limit.cpu)
    except UserError as exc:
        raise UserError(f"{option}: {exc}") from None

"""Solvers by name for the campaigns (``calibrate``, ``tune``, ``submission``): python-sat's
names (``minisat22``, ``kissat404``, ...) and the ready names of the competition's binaries
(``minisat-bin``, ``kissat-bin``: :func:`~puzzlesat.validate.runs.command.ready_command`), run
alike on an instance file or a flat literal array, limited and timed in solver CPU seconds."""

from __future__ import annotations

import os

from puzzlesat.validate.runs.command import READY, SolverCommand, ready_command, run_command
from puzzlesat.validate.runs.limits import CPU_LIMIT, TimeLimit
from puzzlesat.validate.runs.solvers import SolveResult, check_solver, run_solver


def client_name(name: str) -> str:
    """The canonical name of a solver this installation can run: a ready binary name as it is
    (a UserError when its binary is missing), else python-sat's canonical name."""
    if name in READY:
        ready_command(name)
        return name
    return check_solver(name)


def run_command_result(command: SolverCommand, instance, time_limit: TimeLimit,
                       proof_to: str | os.PathLike | None = None) -> SolveResult:
    """:func:`~puzzlesat.validate.runs.command.run_command` as a :class:`SolveResult`."""
    run = run_command(command, instance, time_limit, proof_to)
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
    else:
        result = run_solver(source, name, time_limit)
    if result.status != "UNKNOWN" and result.seconds > time_limit.cpu:
        result.notes.append(f"answered {result.status} after the CPU limit of "
                            f"{time_limit.cpu:g} s: not counted")
        result.status, result.ended_by = "UNKNOWN", CPU_LIMIT
        result.model = result.stdout = None
    return result

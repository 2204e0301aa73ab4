"""The SAT track's clients: python-sat's solvers by name (``minisat22``, ``kissat404``,
``cadical195``, ...), the competition's binaries by ready name (``minisat-bin``, ``kissat-bin``:
:func:`~puzzlesat.validate.runs.command.ready_command`) and any solver binary through
``--solver-command``, each run in a killable child, limited and timed in solver CPU seconds,
its answer SAT Competition output and its DRAT proof written where asked."""

from __future__ import annotations

import os

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.reader import read_num_vars
from puzzlesat.generator.tracks import get_track as generator_track
from puzzlesat.validate.answers import output_bound, sat_status
from puzzlesat.validate.runs.command import READY, SolverCommand, command_result, ready_command
from puzzlesat.validate.runs.limits import TimeLimit
from puzzlesat.validate.runs.solvers import (
    SolveResult,
    check_solver,
    run_solver,
    runnable_solvers,
    solver_name,
    write_proof,
)

#: what ``solve`` runs when no solver is named
DEFAULT = "cadical195"
STATUSES = ("SAT", "UNSAT", "UNKNOWN")
#: ``calibrate --recheck``'s solvers: both MiniSats up to the filter's minute times the
#: margin of 2 (the runs an instance's margin is measured by)
RECHECK = ("minisat22:120", "minisat-bin:120")
#: ``calibrate``'s solvers: the MiniSats, and the Kissat 4.0.4 binary up to the reference limit
CALIBRATION = (*RECHECK, "kissat-bin:1000")
#: ``tune``'s band: not solved by these within their limit (times the margin) ...
EASY = ("minisat22:60", "minisat-bin:60")
#: ... solved by this one within its limit
REFERENCE = "kissat-bin:1000"


def canonical(name: str) -> str | None:
    """The name calibration tables record for a SAT solver (a ready binary name as it is,
    python-sat's canonical name for one of its aliases), whether or not it runs here; None
    when no SAT solver has that name."""
    if name in READY:
        return name
    try:
        return solver_name(name)
    except UserError:
        return None


def names() -> list[str]:
    """The SAT solvers this installation runs: python-sat's, then the ready binaries."""
    return [*runnable_solvers(), *READY]


def check(name: str, proof: bool = False) -> str:
    """The canonical name of a SAT solver this installation runs (with DRAT proofs when
    ``proof``), or a UserError: checked before any work or any result is touched."""
    command = ready_command(name)
    if command is None:
        return check_solver(name, proof)
    if proof and not command.uses("proof"):
        raise UserError(f"{name} writes no proof here (use a python-sat solver or a "
                        "--solver-command with {proof})")
    return name


def run(name: str, source, limit: TimeLimit, proof_to: str | os.PathLike | None = None,
        seed: int | None = None) -> SolveResult:
    """Run the SAT solver ``name`` on ``source`` (an instance path, or ``(flat literals,
    num_vars)``) within ``limit``, its proof written to ``proof_to`` when it answers UNSAT."""
    _no_seed(seed)
    command = ready_command(name)
    if command is not None:
        return run_external(command, source, limit, proof_to)
    if not isinstance(source, tuple):  # read here: a malformed file is the user's one line
        dimacs = generator_track("sat").read(source)
        source = dimacs.literals, dimacs.num_vars
    result = run_solver(source, name, limit, proof=proof_to is not None).counted_within(limit)
    if proof_to is not None:
        write_proof(proof_to, result.proof)
    return result


def run_external(command: SolverCommand, source, limit: TimeLimit,
                 proof_to: str | os.PathLike | None = None,
                 seed: int | None = None) -> SolveResult:
    """Run an external SAT solver on ``source``; its stdout (or MiniSat result file) is the
    answer, kept up to what a model of the instance's variables holds."""
    _no_seed(seed)
    if isinstance(source, tuple):
        text, num_vars = source, source[1]
    else:
        text, num_vars = generator_track("sat").text_pieces(source), read_num_vars(source) or 0
    return command_result(command, text, limit, sat_status, output_bound(num_vars),
                          proof_to=proof_to)


def _no_seed(seed: int | None) -> None:
    if seed is not None:
        raise UserError("--seed: a SAT solver here takes no seed (a --solver-command takes "
                        "its own on its command line)")


def source(formula) -> tuple:
    """What :func:`run` takes of a formula built in memory: its flat literals and variables
    (a binary gets them as a plain DIMACS file)."""
    return formula.flat_literals(), formula.num_vars

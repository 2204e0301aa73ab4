"""Options and types several commands share: time limits, solvers, executors."""

from __future__ import annotations

import os

import click

from puzzlesat.generator.core.errors import UserError


def _force_option() -> click.Option:
    return click.Option(["--force"], is_flag=True, default=False,
                        help="Build past the size threshold (10^8 clauses per instance, 10^5 "
                             "instances per suite); never past the DIMACS limits.")


class Seconds(click.ParamType):
    """A time limit (:class:`~puzzlesat.validate.runs.limits.TimeLimit`): its one rule and
    message, as a usage error."""

    name = "seconds"

    def convert(self, value, param, ctx):
        """The value as a TimeLimit, or a usage error."""
        from puzzlesat.validate.runs.limits import TimeLimit

        try:
            return TimeLimit.parse(value, param.opts[0] if param else "--time-limit")
        except UserError as exc:
            self.fail(str(exc), param, ctx)


def _default_jobs() -> int:

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _executor_options(command):
    """``--executor local|dask`` and ``--scheduler ADDR`` (see generator/core/executors.py)."""
    command = click.option("--scheduler", default=None, metavar="ADDR",
                           help="Dask scheduler address (tcp://host:8786) [default: a "
                                "LocalCluster of -j workers].")(command)
    return click.option("--executor", type=click.Choice(["local", "dask"]), default="local",
                        show_default=True, help="Where per-instance work runs (never changes "
                                                "results).")(command)


#: ``-j`` of the commands that time solver runs
_SOLVER_JOBS = click.option("-j", "--jobs", type=click.IntRange(min=1), default=1,
                            show_default=True,
                            help="Solver runs in parallel (timings are fairer with 1).")
#: ``--margin`` of the commands that apply the competition's MiniSat filter
_MARGIN = click.option("--margin", type=float, default=2.0, show_default=True,
                       help="The MiniSat filter's safety margin (>= 1): an instance is hard "
                            "when the easy solvers do not solve it within their limit x "
                            "MARGIN (seconds on the reference machine for a solver with a "
                            "speed index, else CPU seconds), since the competition's machines "
                            "may be faster than this one.")


def solver_executor(executor: str, scheduler: str | None, jobs: int):
    """The executor of a command that runs solvers (``--executor``, ``--scheduler``, ``-j``):
    locally one thread per run, each waiting on its solver's child process (the solver pool
    holds ``jobs`` of them); on Dask ``jobs`` workers."""
    from puzzlesat.generator.core.executors import make_executor

    return make_executor(executor, scheduler, 1 if executor == "local" else jobs)


_SOLVER = click.option("--solver", default=None,
                       help="A client of the instance's track: a python-sat solver or alias "
                            "(cadical195, kissat404, glucose4, minisat22, ...), minisat-bin, "
                            "kissat-bin; ganak, approxmc (counting); rc2 (MaxSAT) [default: "
                            "the track's: cadical195, ganak, rc2].")
#: a client's seed: counters take 32-bit seeds (ApproxMC's bindings take others without a word)
_SEED = click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=None,
                     help="The client's random seed, for those that take one (the counters: "
                          "[default: 1]).")
_SOLVER_COMMAND = click.option(
    "--solver-command", default=None, metavar="'PROGRAM ARGS'",
    help="Run an external solver instead (no shell; its stdout is read as the instance's "
         "track's output), e.g. 'kissat --time={timeout} {cnf} {proof}': {cnf} the instance "
         "as a temporary plain file, {proof} where it writes its DRAT proof, {timeout} "
         "--time-limit in whole seconds, {result} a MiniSat result file it writes.")


def _client(solver: str | None, command: str | None):
    """(the client named, or None for the track's default; the parsed --solver-command or
    None): not both."""
    if command is None:
        return solver, None
    if solver is not None:
        raise UserError("give --solver or --solver-command, not both")
    from puzzlesat.validate.runs.command import SolverCommand

    return None, SolverCommand.parse(command)


_TIME_LIMIT = click.option("--time-limit", type=Seconds(),
                           default=None, metavar="SECONDS",
                           help="Kill the solver after this many seconds: s UNKNOWN "
                                "[default: no limit].")
_CAKE_LPR = click.option("--cake-lpr", default=None, metavar="PATH",
                         help="cake_lpr (CakeML's formally verified LRAT checker) to check "
                              "every verified proof's LRAT certificate too (default: the one "
                              "on PATH, if any).")
_PROOF_TIME_LIMIT = click.option("--proof-time-limit", type=Seconds(), default=None,
                                 metavar="SECONDS",
                                 callback=lambda ctx, param, limit: limit and limit.cpu,
                                 help="Stop checking a proof after this many seconds: the UNSAT "
                                      "answer stays UNSAT-UNCHECKED [default: no limit].")



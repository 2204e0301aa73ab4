"""Commands that run solvers on instances and judge their answers: ``solve``, ``validate``,
``solve-suite``, ``validate-suite``."""

from __future__ import annotations

import click

from puzzlesat.cli.options import (
    _CAKE_LPR,
    _PROOF_TIME_LIMIT,
    _SEED,
    _SOLVER,
    _SOLVER_COMMAND,
    _TIME_LIMIT,
    _client,
    _executor_options,
    solver_executor,
)
from puzzlesat.cli.stdout import write_stdout
from puzzlesat.generator.core.errors import UserError


@click.command()
@click.argument("instance")
@_SOLVER
@_SOLVER_COMMAND
@_TIME_LIMIT
@click.option("--proof", default=None, metavar="PATH",
              help="Write a DRAT proof of an UNSAT answer (python-sat: cadical*, glucose*, "
                   "lingeling, maple*; a --solver-command with {proof}: as it writes it).")
@_SEED
def solve(instance, solver, solver_command, time_limit, proof, seed):
    """Run a client of the instance's track (--solver, else its default: CaDiCaL for a CNF,
    Ganak for a counting CNF, RC2 for a WCNF) or --solver-command, and print its
    competition's output; exit 10 SAT, 20 UNSAT, 30 OPTIMUM FOUND, 0 unknown."""
    from puzzlesat.validate.campaigns.solve import solve_instance

    solver, command = _client(solver, solver_command)
    result = solve_instance(instance, solver, time_limit, proof, command, seed)
    write_stdout(result.output(seconds=True))
    raise click.exceptions.Exit(result.exit_code)


@click.command("count")
@click.argument("instance")
@click.option("--counter", type=click.Choice(["ganak", "approxmc"]), default=None,
              help="Model counter (pip install 'puzzlesat[counters]') [default: ganak].")
@click.option("--solver-command", default=None, metavar="'PROGRAM ARGS'",
              help="Run an external counter instead (no shell), e.g. 'mycounter {cnf}': "
                   "{cnf} the instance as a temporary plain file, {timeout} --time-limit in "
                   "whole seconds; its stdout is the answer (Model Counting Competition "
                   "output).")
@_TIME_LIMIT
@_SEED
def count_command(instance, counter, solver_command, time_limit, seed):
    """Count the models of a counting instance (generate --count) over its projection and print
    Model Counting Competition output; exit 10 count > 0, 20 count 0, 0 unknown. (``solve``
    does the same on a counting instance.)"""
    from puzzlesat.validate.campaigns.solve import solve_instance

    counter, command = _client(counter, solver_command)
    result = solve_instance(instance, counter, time_limit, None, command, seed, expected="mc")
    write_stdout(result.output(seconds=True))
    raise click.exceptions.Exit(result.exit_code)


_EPSILON = click.option("--epsilon", type=float, default=None,
                        help="Tolerance of an approximate count; an output's 'c epsilon:' may "
                             "narrow it, never widen it [default: 0.8, ApproxMC's].")


@click.command("validate-count")
@click.argument("instance")
@click.argument("output")
@_EPSILON
def validate_count_command(instance, output, epsilon):
    """Check a model counter's answer against the instance's certified count (``validate``
    does the same on a counting instance). Exit 0 VERIFIED, 1 UNCHECKED or UNKNOWN, 3
    WRONG-ANSWER or MALFORMED."""
    _validate(instance, output, as_json=False, expected="mc", epsilon=epsilon)


@click.command("validate")
@click.argument("instance")
@click.argument("output")
@click.option("--proof", default=None, metavar="PATH",
              help="DRAT/DRUP proof of an UNSAT answer (text or binary; .xz/.gz/.bz2 too); "
                   "a file named *.lrat is an LRAT proof (e.g. CaDiCaL's --lrat).")
@_PROOF_TIME_LIMIT
@click.option("--witness", default=None, metavar="PATH",
              help="The instance's known solution (generate --witness): evidence of SAT.")
@click.option("--lrat", default=None, metavar="PATH",
              help="Write the verified proof's LRAT certificate (the lemmas checked, with "
                   "their hints) here.")
@click.option("--lrat-binary", is_flag=True, help="Write --lrat as binary LRAT.")
@_CAKE_LPR
@_EPSILON
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
def validate_command(instance, output, proof, proof_time_limit, witness, lrat, lrat_binary,
                     cake_lpr, epsilon, as_json):
    """Check a solver's answer by the instance's track's judge (a model, UNSAT and its proof,
    a count, an optimum), down to the puzzle. Exit 0 verified, 1 not verified
    (UNSAT-UNCHECKED, UNKNOWN, ...), 3 wrong (WRONG-*, MALFORMED, puzzle rules broken), 4 a
    check that only fails when puzzlesat is wrong did (a proof verified of an instance its
    planted witness shows SAT)."""
    from puzzlesat.validate.proof.check import LratRequest

    _validate(instance, output, as_json, proof=proof, proof_time_limit=proof_time_limit,
              witness=witness, lrat=LratRequest(lrat, lrat_binary, cake_lpr), epsilon=epsilon)


def _validate(instance, output, as_json: bool, expected: str | None = None,
              **options) -> None:
    """Judge one answer (of an instance of the ``expected`` track, when given) and print
    the verdict; exit with its code."""
    import json

    from puzzlesat.validate.runs.certify import CheckedSolving
    from puzzlesat.validate.tracks import JudgeOptions, judge_files

    epsilon = options.get("epsilon")
    if epsilon is not None and not 0 < epsilon < float("inf"):
        raise UserError(f"--epsilon must be a positive number, got {epsilon}")
    verdict = judge_files(instance, output, JudgeOptions(**options, solving=CheckedSolving()),
                          expected)
    click.echo(json.dumps(verdict.to_json(), indent=1) if as_json else verdict.text().rstrip())
    raise click.exceptions.Exit(verdict.exit_code)


@click.command("solve-suite")
@click.argument("suite_dir", metavar="SUITE_DIR")
@click.argument("results_dir", metavar="RESULTS_DIR")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Solvers run in parallel.")
@_SOLVER
@_SOLVER_COMMAND
@_TIME_LIMIT
@click.option("--proof", is_flag=True, help="Also write RESULTS_DIR/<file>.drat proofs.")
@click.option("--overwrite", is_flag=True,
              help="Replace earlier SAT/UNSAT answers by UNKNOWN ones too [default: keep them].")
@_executor_options
def solve_suite_command(suite_dir, results_dir, jobs, solver, solver_command, time_limit, proof,
                        overwrite, executor, scheduler):
    """Run a client of each instance's track (--solver, else the track's default) or
    --solver-command on every instance of a suite: RESULTS_DIR/<file>.out (and
    <file>.drat)."""
    from puzzlesat.validate.campaigns.solve import solve_suite

    solver, command = _client(solver, solver_command)
    with solver_executor(executor, scheduler, jobs) as pool:
        run = solve_suite(suite_dir, results_dir, jobs, solver, time_limit, proof,
                          executor=pool, command=command, overwrite=overwrite)
    click.echo(run.summary())


@click.command("validate-suite")
@click.argument("suite_dir", metavar="SUITE_DIR")
@click.argument("results_dir", metavar="RESULTS_DIR")
@click.option("-o", "--output", default=None, metavar="TABLE.csv|.json",
              help="Write the table of verdicts and times.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Outputs validated in parallel.")
@_PROOF_TIME_LIMIT
@click.option("--lrat", is_flag=True,
              help="Keep each verified proof's LRAT certificate as RESULTS_DIR/<file>.lrat.")
@_CAKE_LPR
@_executor_options
def validate_suite_command(suite_dir, results_dir, output, jobs, proof_time_limit, lrat,
                           cake_lpr, executor, scheduler):
    """Validate every RESULTS_DIR/<file>.out by its instance's track's judge; exit with the
    worst verdict's code: 4 a checker failure, 3 a WRONG-*/MALFORMED verdict or a decoded
    puzzle that breaks the rules, 1 an answer not verified (UNKNOWN, UNSAT-UNCHECKED, ...),
    else 0."""
    from puzzlesat.generator.core.executors import make_executor
    from puzzlesat.validate.campaigns.validate_suite import validate_suite
    from puzzlesat.validate.verdict import suite_exit_code, summary

    with make_executor(executor, scheduler, jobs) as pool:
        verdicts = validate_suite(suite_dir, results_dir, output, executor=pool,
                                  proof_time_limit=proof_time_limit, lrat=lrat,
                                  cake_lpr=cake_lpr)
    for verdict in verdicts:
        if verdict.failed:
            click.echo(f"{verdict.verdict} {verdict.instance}: {verdict.reason}")
        if verdict.checker_failure:
            click.echo(f"CHECKER FAILURE {verdict.instance}: {verdict.checker_failure}")
    click.echo(summary(verdicts))
    raise click.exceptions.Exit(suite_exit_code(verdicts))



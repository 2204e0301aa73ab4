"""Commands that run solvers on instances and judge their answers: ``solve``, ``validate``,
``solve-suite``, ``validate-suite``."""

from __future__ import annotations

import click

from puzzlesat.cli.options import (
    _PROOF_TIME_LIMIT,
    _SOLVER,
    _SOLVER_COMMAND,
    _TIME_LIMIT,
    _client,
    _executor_options,
)
from puzzlesat.cli.stdout import write_stdout


@click.command()
@click.argument("instance")
@_SOLVER
@_SOLVER_COMMAND
@_TIME_LIMIT
@click.option("--proof", default=None, metavar="PATH",
              help="Write a DRAT proof (python-sat: cadical*, glucose*, lingeling, maple*; a "
                   "--solver-command with {proof}: as the solver writes it).")
def solve(instance, solver, solver_command, time_limit, proof):
    """Run a reference solver (or --solver-command) and print SAT Competition output; exit 10
    SAT, 20 UNSAT, 0 unknown."""
    from puzzlesat.validate.runs.solve import solve_instance

    solver, command = _client(solver, solver_command)
    result = solve_instance(instance, solver, time_limit, proof, command)
    write_stdout(result.output(seconds=True))
    raise click.exceptions.Exit(result.exit_code)


@click.command("validate")
@click.argument("instance")
@click.argument("output")
@click.option("--proof", default=None, metavar="PATH",
              help="DRAT/DRUP proof of an UNSAT answer (text or binary; .xz/.gz/.bz2 too).")
@_PROOF_TIME_LIMIT
@click.option("--witness", default=None, metavar="PATH",
              help="The instance's known solution (generate --witness): evidence of SAT.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
def validate_command(instance, output, proof, proof_time_limit, witness, as_json):
    """Check a solver's answer, down to the puzzle. Exit 0 verified, 1 not verified
    (UNSAT-UNCHECKED, UNKNOWN), 3 wrong (WRONG-*, MALFORMED, puzzle rules broken), 4 the
    proof checker verified a proof of an instance its planted witness shows SAT."""
    import json

    from puzzlesat.validate.report import validate_files

    verdict = validate_files(instance, output, proof, witness=witness,
                             proof_time_limit=proof_time_limit)
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
    """Run the reference solver (or --solver-command) on every instance of a suite:
    RESULTS_DIR/<file>.out (and <file>.drat)."""
    from puzzlesat.generator.core.executors import make_executor
    from puzzlesat.generator.suite.folder import suite_instances
    from puzzlesat.validate.runs.solve import check_client, solve_suite

    solver, command = _client(solver, solver_command)
    suite_instances(suite_dir)  # usage first: nothing started, no result touched
    check_client(solver, command, proof, time_limit)
    # local: -j threads, each waiting on its solver's child process
    with make_executor(executor, scheduler, 1 if executor == "local" else jobs) as pool:
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
@_executor_options
def validate_suite_command(suite_dir, results_dir, output, jobs, proof_time_limit, executor,
                           scheduler):
    """Validate every RESULTS_DIR/<file>.out against the suite; exit 4 if the proof checker
    verified a proof of a planted SAT instance, 3 if any verdict is WRONG-*/MALFORMED or a
    decoded puzzle breaks the rules, else 0."""
    from puzzlesat.generator.core.executors import make_executor
    from puzzlesat.validate.suite import suite_exit_code, summary, validate_suite

    with make_executor(executor, scheduler, jobs) as pool:
        verdicts = validate_suite(suite_dir, results_dir, output, executor=pool,
                                  proof_time_limit=proof_time_limit)
    for verdict in verdicts:
        if verdict.failed:
            click.echo(f"{verdict.verdict} {verdict.instance}: {verdict.reason}")
        if verdict.checker_failure:
            click.echo(f"CHECKER FAILURE {verdict.instance}: {verdict.checker_failure}")
    click.echo(summary(verdicts))
    raise click.exceptions.Exit(suite_exit_code(verdicts))



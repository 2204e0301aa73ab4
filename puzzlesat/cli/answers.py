"""Commands that run solvers on instances and judge their answers: ``solve``, ``validate``,
``solve-suite``, ``validate-suite``."""

from __future__ import annotations

import click

from puzzlesat.cli.options import (
    _CAKE_LPR,
    _PROOF_TIME_LIMIT,
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
              help="Write a DRAT proof (python-sat: cadical*, glucose*, lingeling, maple*; a "
                   "--solver-command with {proof}: as the solver writes it).")
def solve(instance, solver, solver_command, time_limit, proof):
    """Run a reference solver (or --solver-command) and print SAT Competition output; exit 10
    SAT, 20 UNSAT, 0 unknown. A WCNF instance: RC2 (or the command), MaxSAT Evaluation
    output, exit 30 OPTIMUM FOUND."""
    from puzzlesat.generator.core.sniff import is_wcnf
    from puzzlesat.validate.runs.solve import solve_instance, solve_maxsat

    solver, command = _client(solver, solver_command)
    if is_wcnf(instance):
        result = solve_maxsat(instance, time_limit, proof, command)
    else:
        result = solve_instance(instance, solver, time_limit, proof, command)
    write_stdout(result.output(seconds=True))
    raise click.exceptions.Exit(result.exit_code)


@click.command("count")
@click.argument("instance")
@click.option("--counter", type=click.Choice(["ganak", "approxmc"]), default="ganak",
              help="Model counter (pip install 'puzzlesat[counters]') [default: ganak].")
@_SOLVER_COMMAND
@_TIME_LIMIT
@click.option("--seed", type=int, default=1, help="The counter's random seed [default: 1].")
def count_command(instance, counter, solver_command, time_limit, seed):
    """Count the models of a counting instance (generate --count) over its projection and print
    Model Counting Competition output; exit 10 count > 0, 20 count 0, 0 unknown."""
    from puzzlesat.validate.runs.command import SolverCommand
    from puzzlesat.validate.runs.counters import run_counter, run_counter_command

    if solver_command is not None:
        text, code = run_counter_command(SolverCommand.parse(solver_command), instance,
                                         time_limit)
        write_stdout(text)
        raise click.exceptions.Exit(code)
    result = run_counter(instance, counter, time_limit, seed)
    write_stdout(result.text().encode())
    raise click.exceptions.Exit(result.exit_code)


@click.command("validate-count")
@click.argument("instance")
@click.argument("output")
@click.option("--epsilon", type=float, default=None,
              help="Tolerance of an approximate count; an output's 'c epsilon:' may narrow "
                   "it, never widen it [default: 0.8, ApproxMC's].")
def validate_count_command(instance, output, epsilon):
    """Check a model counter's answer against the instance's certified count. Exit 0
    VERIFIED, 1 UNCHECKED or UNKNOWN, 3 WRONG-ANSWER or MALFORMED."""
    from puzzlesat.validate.count import validate_count_files
    from puzzlesat.validate.runs.certify import CheckedSolving

    if epsilon is not None and not 0 < epsilon < float("inf"):
        raise UserError(f"--epsilon must be a positive number, got {epsilon}")
    verdict = validate_count_files(instance, output, epsilon, CheckedSolving())
    click.echo(verdict.text())
    raise click.exceptions.Exit(verdict.exit_code)


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
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
def validate_command(instance, output, proof, proof_time_limit, witness, lrat, lrat_binary,
                     cake_lpr, as_json):
    """Check a solver's answer, down to the puzzle. Exit 0 verified, 1 not verified
    (UNSAT-UNCHECKED, UNKNOWN), 3 wrong (WRONG-*, MALFORMED, puzzle rules broken), 4 the
    proof checker verified a proof of an instance its planted witness shows SAT."""
    import json

    from puzzlesat.generator.core.sniff import is_wcnf

    if is_wcnf(instance):
        from puzzlesat.validate.maxsat import validate_wcnf_files

        if proof is not None:
            raise UserError("--proof: a MaxSAT answer comes without a proof")
        verdict = validate_wcnf_files(instance, output, witness)
    else:
        from puzzlesat.validate.proof.check import LratRequest
        from puzzlesat.validate.report import validate_files

        verdict = validate_files(instance, output, proof, witness=witness,
                                 proof_time_limit=proof_time_limit,
                                 lrat=LratRequest(lrat, lrat_binary, cake_lpr))
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
    from puzzlesat.generator.suite.folder import suite_instances
    from puzzlesat.validate.runs.solve import check_client, solve_suite

    solver, command = _client(solver, solver_command)
    suite_instances(suite_dir)  # usage first: nothing started, no result touched
    check_client(solver, command, proof, time_limit)
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
    """Validate every RESULTS_DIR/<file>.out against the suite; exit 4 if the proof checker
    verified a proof of a planted SAT instance, 3 if any verdict is WRONG-*/MALFORMED or a
    decoded puzzle breaks the rules, else 0."""
    from puzzlesat.generator.core.executors import make_executor
    from puzzlesat.validate.suite import suite_exit_code, summary, validate_suite

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



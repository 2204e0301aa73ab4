"""The ``puzzlesat`` command line: parse, call one library function, print.

Every user mistake surfaces as :class:`puzzlesat.generator.core.errors.UserError` (or a click usage error)
and is printed by :func:`main` as one line, ``puzzlesat: error: ...``, with exit code 2.
"""

from __future__ import annotations

import errno
import io
import os
import sys

import click

import puzzlesat
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.stops import Stopped, stops_raise
from puzzlesat.generator.families import Param, family_names, get_family


class FamilyGroup(click.Group):
    """``generate <family>``: one subcommand per registered family, built from its PARAMS and
    imported only when asked for."""

    def list_commands(self, ctx):
        """The family names, one ``generate`` subcommand each."""
        return family_names()

    def get_command(self, ctx, name):
        """The ``generate`` command of family ``name``, or None."""
        if name not in family_names():
            return None
        return _generate_command(get_family(name))


def _click_option(param: Param) -> click.Option:
    if param.kind is bool:
        return click.Option([param.option], is_flag=True, default=None, help=param.help)
    metavar = {int: "INT", float: "X", str: "TEXT", "ints": "I,J,..."}[param.kind]
    shown = f" [default: {param.default}]" if param.default not in (None, False) else ""
    return click.Option([param.option], default=None, metavar=metavar, help=param.help + shown)


def _generate_command(family) -> click.Command:
    def run(seed, encoding, output, name, witness, force, **raw):
        from puzzlesat.generator.core.files import atomic_write, check_writable
        from puzzlesat.generator.core.header import canonical_json
        from puzzlesat.generator.core.inputs import check_distinct
        from puzzlesat.generator.core.save import write_instance
        from puzzlesat.generator.instance import build

        def certify_unsat(formula):  # imported only by a family that asks for a certificate
            from puzzlesat.validate.proof import certify_unsat

            return certify_unsat(formula)

        params = {k: v for k, v in raw.items() if v is not None}
        check_distinct(("-o", output), ("--witness", witness))
        if witness:  # a bad witness path must not leave the instance behind
            check_writable(witness, "--witness")
        if output != "-":
            check_writable(output, "-o")
        inst = build(family.NAME, params, encoding, seed, name, certify=certify_unsat,
                     force=force)
        solution = inst.witness_json() if witness else None
        if witness and solution is None:
            raise UserError(f"{inst.name} has no known solution to write (expected {inst.expected})")
        written = False
        try:
            write_instance(output, inst.formula, inst.header())
            written = output != "-"
            if witness:
                atomic_write(witness, (canonical_json(solution) + "\n").encode())
        except BaseException:  # a failed or stopped run leaves neither file
            if written and witness:
                os.unlink(output)  # the instance this run just wrote
            raise
        where = "stdout" if output == "-" else output
        click.echo(f"{where}: {inst.name}: {inst.formula.num_vars} variables, "
                   f"{inst.formula.num_clauses} clauses, expected {inst.expected} "
                   f"({inst.expected_from})", err=True)

    params: list[click.Parameter] = [*(_click_option(p) for p in family.PARAMS),
        click.Option(["--seed"], type=int, default=None,
                     help="Random seed (recorded in the header) [default: 0]."),
        click.Option(["--encoding"], type=click.Choice(list(family.ENCODINGS)), default=None,
                     help=f"Encoding [default: {next(iter(family.ENCODINGS))}]."),
        click.Option(["-o", "--output"], required=True, metavar="PATH",
                     help="Output file; compression by extension (.xz .gz .bz2); '-' = plain "
                          "DIMACS on stdout."),
        click.Option(["--name"], default=None, help="Instance name [default: canonical name]."),
        click.Option(["--witness"], default=None, metavar="PATH",
                     help="Also write the known solution as JSON."),
        _force_option(),
    ]
    return click.Command(family.NAME, callback=run, params=params, help=family.SUMMARY)


def _force_option() -> click.Option:
    return click.Option(["--force"], is_flag=True, default=False,
                        help="Build past the size threshold (10^8 clauses per instance, 10^5 "
                             "instances per suite); never past the DIMACS limits.")


class Seconds(click.ParamType):
    """A time limit: a finite number of seconds, > 0 and at most 20 days."""

    name = "seconds"

    def convert(self, value, param, ctx):
        """Seconds as a positive finite float within the runner's limit, or a usage error."""
        import math

        from puzzlesat.validate.runner import MAX_TIME_LIMIT

        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(seconds) or not 0 < seconds <= MAX_TIME_LIMIT:
            self.fail(f"{value!r} must be a finite number of seconds in (0, "
                      f"{MAX_TIME_LIMIT:g}] (20 days)", param, ctx)
        return seconds


class Interrupted(Exception):
    """A Ctrl-C, carried past click (which would print an empty line first) to :func:`main`."""


class PuzzlesatGroup(click.Group):
    """The top-level group: a KeyboardInterrupt in a command becomes :class:`Interrupted`."""

    def invoke(self, ctx):
        """Run the command; a Ctrl-C in it becomes :class:`Interrupted`."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted from None


@click.group(cls=PuzzlesatGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(puzzlesat.__version__, prog_name="puzzlesat")
def cli():
    """Puzzles to SAT benchmark instances and back."""


@cli.group(cls=FamilyGroup)
def generate():
    """Generate one instance of a family."""


@cli.command()
def families():
    """List the families, their parameters and encodings."""
    for name in family_names():
        family = get_family(name)
        click.echo(f"{name}: {family.SUMMARY}")
        click.echo("  encodings: " + ", ".join(family.ENCODINGS))
        for p in family.PARAMS:
            default = "" if p.default in (None, False) else f" (default {p.default})"
            click.echo(f"  {p.option}: {p.help}{default}")


@cli.command()
@click.argument("instance")
@click.option("--svg", default=None, metavar="PATH", help="Also draw the puzzle as SVG.")
def show(instance, svg):
    """Print an instance's header, its puzzle as a picture, and its counts."""
    from puzzlesat.generator.show import show_instance

    click.echo(show_instance(instance, svg))


def _default_jobs() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _executor_options(command):
    """``--executor local|dask`` and ``--scheduler ADDR`` (see generator/core/executors.py)."""
    command = click.option("--scheduler", default=None, metavar="ADDR",
                           help="Dask scheduler address (tcp://host:8786) [default: a "
                                "LocalCluster of -j workers].")(command)
    return click.option("--executor", type=click.Choice(["local", "dask"]), default="local",
                        show_default=True, help="Where per-instance work runs (never changes "
                                                "results).")(command)


@cli.command()
@click.argument("spec", metavar="SPEC.toml")
@click.option("-o", "--output", required=True, metavar="DIR", help="Folder to publish into.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=_default_jobs,
              show_default="all CPUs", help="Instances built in parallel (never changes bytes).")
@click.option("--force", is_flag=True, help="Build past the size thresholds (10^8 clauses per "
              "instance, 10^5 instances); never past the DIMACS limits.")
@_executor_options
def publish(spec, output, jobs, force, executor, scheduler):
    """Publish a suite: instances, witnesses, manifests, SHA256SUMS, description, citation.
    DIR must be new, empty, or this suite's earlier publication."""
    from puzzlesat.generator.core.executors import make_executor
    from puzzlesat.generator.suite import publish_suite

    with make_executor(executor, scheduler, jobs) as pool:
        click.echo(publish_suite(spec, output, jobs, pool, progress=True, force=force).summary())


@cli.command()
@click.argument("directory", metavar="DIR")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=_default_jobs,
              show_default="all CPUs", help="Instances regenerated in parallel.")
@click.option("--force", is_flag=True, help="Regenerate past the size thresholds (as publish).")
@_executor_options
def verify(directory, jobs, force, executor, scheduler):
    """Regenerate a published suite from its suite.toml and compare every file; exit 1 on any
    difference."""
    from puzzlesat.generator.core.executors import make_executor
    from puzzlesat.generator.suite import verify_suite

    with make_executor(executor, scheduler, jobs) as pool:
        result = verify_suite(directory, jobs, pool, force=force)
    for line in result.differences:
        click.echo(line)
    click.echo(result.summary())
    if result.differences:
        raise click.exceptions.Exit(1)


_SOLVER = click.option("--solver", default=None,
                       help="python-sat solver or alias (cadical195, kissat404, glucose4, "
                            "minisat22, ...) [default: cadical195].")
_SOLVER_COMMAND = click.option(
    "--solver-command", default=None, metavar="'PROGRAM ARGS'",
    help="Run an external solver instead (SAT Competition output; no shell), e.g. 'kissat "
         "--time={timeout} {cnf} {proof}': {cnf} the instance as a temporary plain CNF, "
         "{proof} where it writes its DRAT proof, {timeout} --time-limit in whole seconds.")


def _client(solver: str | None, command: str | None):
    """(python-sat solver name, parsed --solver-command or None); not both."""
    if command is None:
        return solver or "cadical195", None
    if solver is not None:
        raise UserError("give --solver or --solver-command, not both")
    from puzzlesat.validate.command import SolverCommand

    return "", SolverCommand.parse(command)


_TIME_LIMIT = click.option("--time-limit", type=Seconds(),
                           default=None, metavar="SECONDS",
                           help="Kill the solver after this many seconds: s UNKNOWN "
                                "[default: no limit].")
_PROOF_TIME_LIMIT = click.option("--proof-time-limit", type=Seconds(), default=None,
                                 metavar="SECONDS",
                                 help="Stop checking a proof after this many seconds: the UNSAT "
                                      "answer stays UNSAT-UNCHECKED [default: no limit].")


@cli.command()
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
    from puzzlesat.validate.runner import solve_instance

    solver, command = _client(solver, solver_command)
    result = solve_instance(instance, solver, time_limit, proof, command)
    write_stdout(result.output(seconds=True))
    raise click.exceptions.Exit(result.exit_code)


@cli.command("validate")
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


@cli.command("solve-suite")
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
    from puzzlesat.validate.runner import check_client, solve_suite, suite_instances

    solver, command = _client(solver, solver_command)
    suite_instances(suite_dir)  # usage first: nothing started, no result touched
    check_client(solver, command, proof, time_limit)
    # local: -j threads, each waiting on its solver's child process
    with make_executor(executor, scheduler, 1 if executor == "local" else jobs) as pool:
        run = solve_suite(suite_dir, results_dir, jobs, solver, time_limit, proof,
                          executor=pool, command=command, overwrite=overwrite)
    click.echo(run.summary())


@cli.command("validate-suite")
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
    from puzzlesat.validate.report import suite_exit_code, summary, validate_suite

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


@cli.command()
@click.argument("directory", metavar="DIR")
@click.option("--solvers", default=",".join(("minisat22", "cadical195", "kissat404")),
              show_default=True, help="Comma-separated python-sat solvers.")
@click.option("--time-limit", type=Seconds(), default=60.0,
              show_default=True, metavar="SECONDS", help="Per solver run; past it: UNKNOWN.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Solver runs in parallel (timings are fairer with 1).")
@click.option("--only", metavar="GLOB", multiple=True,
              help="Only instances whose name matches a GLOB (repeatable); other rows are kept.")
@click.option("--no-plot", is_flag=True, help="Skip the solve-time plots.")
@_executor_options
def calibrate(directory, solvers, time_limit, jobs, only, no_plot, executor, scheduler):
    """Run reference solvers on every instance of a published suite, validate the answers and
    record times and verdicts: calibration.csv, plots, manifest.json, SHA256SUMS."""
    from puzzlesat.generator.core.executors import make_executor
    from puzzlesat.validate.calibrate import calibrate_suite

    names = [s.strip() for s in solvers.split(",") if s.strip()]
    # local: -j threads, each waiting on its solver's child process
    with make_executor(executor, scheduler, 1 if executor == "local" else jobs) as pool:
        result = calibrate_suite(directory, names, time_limit, jobs, pool, plot=not no_plot,
                                 only=only)
    click.echo(result.summary())


@cli.command("tune")
@click.argument("family", metavar="FAMILY")
@click.option("--axis", required=True, metavar="NAME=A..B",
              help="The one integer parameter walked, easy to hard: NAME=A..B (inclusive), "
                   "NAME=A..B:STEP or NAME=V1,V2,...")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="A fixed parameter, named as in a suite spec (border_colors=2; a bare "
                   "flag name sets it: scramble). Repeatable.")
@click.option("--follow", "follows", multiple=True, metavar="NAME=R*AXIS[+C]",
              help="A parameter that follows the axis: center_colors=0.5*rows is "
                   "round(0.5*rows) at each value (half up, at least 1). Repeatable.")
@click.option("--encoding", "encodings", multiple=True, metavar="NAME",
              help="Encoding; repeat for several (each is a sample of its own) [default: the "
                   "family's first].")
@click.option("--samples", type=click.IntRange(min=1), default=5, show_default=True,
              help="Instances per axis value: replicates 1..N, seeded as in a suite.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="The suite seed the replicates' seeds derive from (use it as [suite] seed "
                   "when pasting group.toml).")
@click.option("--easy", default="minisat22:60", show_default=True, metavar="SOLVER:SECONDS",
              help="The band's lower edge: in-band instances are not solved by it in time.")
@click.option("--reference", default="kissat404:1000", show_default=True,
              metavar="SOLVER:SECONDS",
              help="The band's upper edge: in-band instances are solved by it in time.")
@click.option("-o", "--output", required=True, metavar="DIR",
              help="Output folder: landscape.csv, landscape.png, group.toml, runs/ (the cache "
                   "a rerun resumes from).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Solver runs in parallel (timings are fairer with 1).")
@click.option("--no-plot", is_flag=True, help="Skip landscape.png.")
@_executor_options
def tune_command(family, axis, params, follows, encodings, samples, seed, easy, reference,
                 output, jobs, no_plot, executor, scheduler):
    """Find where a family's instances are hard enough: walk --axis and classify --samples
    instances per value as easy (solved by --easy in time), band (not, but solved by
    --reference in time) or hard (neither). Runs never go past a limit and stop once a value's
    median is decided; the walk stops after 2 values in a row whose median is hard. Every run
    is cached in DIR/runs (by GBD hash): a rerun resumes. Exit 0 when some value's median is
    in the band (group.toml holds those values and their in-band replicates), 1 when none is
    (a measurement, not a mistake: the landscape says where to look), 2 on bad input.

    \b
    Example:
      puzzlesat tune edge-matching --param border_colors=2 --param scramble \\
          --follow center_colors=0.5*rows --axis rows=5..9 --encoding all -o em-tune
    """
    from puzzlesat.generator.core.executors import make_executor
    from puzzlesat.validate.tune import make_plan, tune

    plan = make_plan(family, params, axis, follows, encodings, samples, seed, easy, reference)
    # local: -j threads, each waiting on its solver's child process
    with make_executor(executor, scheduler, 1 if executor == "local" else jobs) as pool:
        result = tune(plan, output, jobs, pool, plot=not no_plot)
    click.echo(result.summary())
    raise click.exceptions.Exit(result.exit_code)


@cli.command()
@click.argument("directory", metavar="DIR")
@click.option("-o", "--output", default=None, metavar="FOLDER",
              help="Bundle folder; FOLDER.tar.xz beside it [default: DIR-submission].")
@click.option("--reference", default="kissat404", show_default=True,
              help="The team's solver: must solve every instance within --time-limit.")
@click.option("--time-limit", type=Seconds(), default=1000.0, show_default=True,
              metavar="SECONDS", help="The team's solver's limit (the competition's is 5000).")
@click.option("--minisat", default="minisat22", show_default=True,
              help="The baseline solver of the 'not solved within a minute' rule.")
@click.option("--minisat-limit", type=Seconds(), default=60.0,
              show_default=True, metavar="SECONDS")
@click.option("--count", type=click.IntRange(min=1), default=20, show_default=True,
              help="Instances a submission must have.")
@click.option("--min-hard", type=click.IntRange(min=0), default=10, show_default=True,
              help="Instances that must count: not solved by MiniSat within --minisat-limit, "
                   "solved by the team's solver within --time-limit.")
def submission(directory, output, reference, time_limit, minisat, minisat_limit, count,
               min_hard):
    """Check the SAT Competition 2026 benchmark rules on a calibrated suite and build the
    bundle; exit 1 naming each broken rule."""
    from puzzlesat.validate.submission import Rules, build_bundle, check_submission

    rules = Rules(count, min_hard, minisat, minisat_limit, reference, time_limit)
    check = check_submission(directory, rules)
    for line in [c.line() for c in check.instances] + check.notes:
        click.echo(line)
    if check.failures:
        for line in check.failures:
            click.echo(line)
        raise click.exceptions.Exit(1)
    click.echo(f"rules hold: wrote {build_bundle(directory, output, check)}")


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI; user errors become one line and exit code 2. SIGTERM and
    SIGHUP unwind a run as a Ctrl-C does (solvers killed, temporary files removed: their
    default left both behind), unless they are ignored, and exit with 128 + the signal."""
    with stops_raise():
        code = _run(argv)
    try:  # what is still buffered: a full disk or a file size limit shows only here
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    except OSError as exc:
        code = _stdout_failed(exc)
    sys.exit(code if isinstance(code, int) else 0)


def _run(argv: list[str] | None) -> int | None:
    """The CLI's exit code, every error turned into one line."""
    try:
        code = cli.main(args=argv, prog_name="puzzlesat", standalone_mode=False)
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
        code = 2
    except click.ClickException as exc:
        click.echo(f"puzzlesat: error: {exc.format_message()}", err=True)
        code = 2
    except UserError as exc:
        click.echo(f"puzzlesat: error: {exc}", err=True)
        code = 2
    except (click.Abort, Interrupted):
        # one line; at a terminal it starts after the echoed ^C
        click.echo(("\n" if sys.stderr.isatty() else "") + "puzzlesat: interrupted", err=True)
        code = 130
    except Stopped as exc:  # SIGTERM or SIGHUP
        click.echo(f"puzzlesat: {exc}", err=True)
        code = exc.exit_code
    except BrokenPipeError:
        code = 0
    except OSError as exc:
        if not _is_stdout_error(exc):
            raise
        code = _stdout_failed(exc)
    return code


def write_stdout(data: bytes) -> None:
    """Write all of ``data`` to stdout, unbuffered, or raise: a partial answer (a full disk, a
    file size limit) must not pass for a whole one. Python's buffered stdout can lose such an
    error."""
    sys.stdout.flush()
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, io.UnsupportedOperation):  # captured (tests)
        click.echo(data, nl=False)
        return
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise UserError(f"cannot write to stdout: {exc.strerror or exc}") from None


def _is_stdout_error(exc: OSError) -> bool:
    """Whether ``exc`` is a failed write to stdout (click raises it as it is)."""
    return exc.errno in (errno.EFBIG, errno.ENOSPC, errno.EDQUOT, errno.EIO) and (
        exc.filename is None)


def _stdout_failed(exc: OSError) -> int:
    """One line for an answer that could not be written (never an exit code saying it was),
    and stdout pointed at /dev/null so the interpreter's last flush stays quiet."""
    click.echo(f"puzzlesat: error: cannot write to stdout: {exc.strerror or exc}", err=True)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 2


if __name__ == "__main__":
    main()

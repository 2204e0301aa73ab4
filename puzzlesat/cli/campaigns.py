"""Solver campaigns on a published suite: ``calibrate``, ``tune``, ``submission``."""

from __future__ import annotations

import click

from puzzlesat.cli.options import (
    _MARGIN,
    _SOLVER_JOBS,
    Seconds,
    _executor_options,
    solver_executor,
)


@click.command()
@click.argument("directory", metavar="DIR")
@click.option("--solvers", default="minisat22:120,minisat-bin:120,kissat-bin:1000",
              show_default=True, metavar="NAME[:SECONDS],...",
              help="Comma-separated solvers, each with its own CPU limit if given: python-sat "
                   "names (minisat22, kissat404, ...) or the competition's binaries "
                   "(minisat-bin: Debian's MiniSat 2.2; kissat-bin: Kissat 4.0.4 from "
                   "passagemath-kissat); on a counting suite also the model counters ganak "
                   "and approxmc, their counts judged as validate-count judges them.")
@click.option("--time-limit", type=Seconds(), default=60.0,
              show_default=True, metavar="SECONDS",
              help="CPU seconds per run of a solver named without a limit; past it: UNKNOWN "
                   "(wall-clock backstop: 10x + 10 s).")
@_SOLVER_JOBS
@click.option("--only", metavar="GLOB", multiple=True,
              help="Only instances whose name matches a GLOB (repeatable); other rows are kept.")
@click.option("--no-plot", is_flag=True, help="Skip the solve-time plots.")
@_executor_options
def calibrate(directory, solvers, time_limit, jobs, only, no_plot, executor, scheduler):
    """Run reference solvers on every instance of a published suite, validate the answers and
    record times and verdicts: calibration.csv, plots, manifest.json, SHA256SUMS."""
    from puzzlesat.validate.runs.calibrate import calibrate_suite

    names = [s.strip() for s in solvers.split(",") if s.strip()]
    with solver_executor(executor, scheduler, jobs) as pool:
        result = calibrate_suite(directory, names, time_limit, jobs, pool, plot=not no_plot,
                                 only=only)
    click.echo(result.summary())


@click.command("tune")
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
@click.option("--easy", "easy", multiple=True, default=("minisat22:60", "minisat-bin:60"),
              show_default=True, metavar="SOLVER:SECONDS",
              help="The band's lower edge (repeatable): in-band instances are solved by none "
                   "of them within SECONDS x --margin of CPU.")
@_MARGIN
@click.option("--reference", default="kissat-bin:1000", show_default=True,
              metavar="SOLVER:SECONDS",
              help="The band's upper edge: in-band instances are solved by it within SECONDS "
                   "of CPU.")
@click.option("-o", "--output", required=True, metavar="DIR",
              help="Output folder: landscape.csv, landscape.png, group.toml, runs/ (the cache "
                   "a rerun resumes from).")
@_SOLVER_JOBS
@click.option("--no-plot", is_flag=True, help="Skip landscape.png.")
@_executor_options
def tune_command(family, axis, params, follows, encodings, samples, seed, easy, margin,
                 reference, output, jobs, no_plot, executor, scheduler):
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
    from puzzlesat.validate.runs.tune import tune
    from puzzlesat.validate.runs.tune.plan import make_plan

    plan = make_plan(family, params, axis, follows, encodings, samples, seed, easy, reference,
                     margin)
    with solver_executor(executor, scheduler, jobs) as pool:
        result = tune(plan, output, jobs, pool, plot=not no_plot)
    click.echo(result.summary())
    raise click.exceptions.Exit(result.exit_code)


@click.command()
@click.argument("directory", metavar="DIR")
@click.option("-o", "--output", default=None, metavar="FOLDER",
              help="Bundle folder; FOLDER.tar.xz beside it [default: DIR-submission].")
@click.option("--reference", default="kissat-bin", show_default=True,
              help="The team's solver: must solve every instance within --time-limit.")
@click.option("--time-limit", type=Seconds(), default=1000.0, show_default=True,
              metavar="SECONDS",
              help="The team's solver's CPU limit (the competition's is 5000).")
@click.option("--minisat", "minisats", multiple=True, default=("minisat22", "minisat-bin"),
              show_default=True,
              help="The baselines of the 'not solved within a minute' rule (repeatable): a "
                   "hard instance is solved by none of them.")
@click.option("--minisat-limit", type=Seconds(), default=60.0,
              show_default=True, metavar="SECONDS", help="The filter's CPU limit.")
@_MARGIN
@click.option("--count", type=click.IntRange(min=1), default=20, show_default=True,
              help="Instances a submission must have.")
@click.option("--min-hard", type=click.IntRange(min=0), default=10, show_default=True,
              help="Instances that must count: not solved by MiniSat within --minisat-limit, "
                   "solved by the team's solver within --time-limit.")
@click.option("--track", type=click.Choice(["sat", "maxsat", "mc"]), default="sat",
              show_default=True,
              help="sat: the SAT Competition's bundle; maxsat: the MaxSAT Evaluation's of a WCNF "
                   "suite (instances .wcnf.xz, metadata.csv with each certified optimum, the "
                   "description); mc: the Model Counting Competition's of a counting suite "
                   "(.cnf.bz2 in one tar, counts.txt, checksums.txt). The SAT options apply "
                   "to sat only.")
def submission(directory, output, reference, time_limit, minisats, minisat_limit, margin, count,
               min_hard, track):
    """Check the SAT Competition 2026 benchmark rules on a calibrated suite and build the
    bundle; exit 1 naming each broken rule. ``--track maxsat``: the MaxSAT Evaluation's
    bundle; ``--track mc``: the Model Counting Competition's (every instance has a certified
    count)."""
    from puzzlesat.validate.runs.submission import build_bundle, check_submission
    from puzzlesat.validate.runs.submission_rules import Rules

    if track == "maxsat":
        from puzzlesat.validate.runs.maxsat_submission import build_maxsat_bundle

        archive, rows = build_maxsat_bundle(directory, output)
        for row in rows:
            click.echo(f"{row['file']}: optimum {row['optimum']} ({row['optimum-from']})")
        click.echo(f"wrote {archive}")
        return
    if track == "mc":
        _mc_submission(directory, output)

    rules = Rules(count, min_hard, minisats, minisat_limit.cpu, margin, reference,
                  time_limit.cpu)
    check = check_submission(directory, rules)
    for line in [c.line() for c in check.instances] + check.notes:
        click.echo(line)
    if check.failures:
        for line in check.failures:
            click.echo(line)
        raise click.exceptions.Exit(1)
    click.echo(f"rules hold: wrote {build_bundle(directory, output, check)}")


def _mc_submission(directory, output) -> None:
    from puzzlesat.validate.runs.certify import CheckedSolving
    from puzzlesat.validate.runs.submission_mc import build_mc_bundle, check_mc_submission

    check = check_mc_submission(directory, CheckedSolving())
    for line in check.lines() + check.failures:
        click.echo(line)
    if check.failures:
        raise click.exceptions.Exit(1)
    click.echo(f"rules hold: wrote {build_mc_bundle(directory, output, check)}")
    raise click.exceptions.Exit(0)



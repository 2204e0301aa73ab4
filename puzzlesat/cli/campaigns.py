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
from puzzlesat.validate.tracks import TRACKS


@click.command()
@click.argument("directory", metavar="DIR", required=False)
@click.option("--solvers", default=None, metavar="NAME[:SECONDS],...",
              help="Comma-separated clients, each with its own CPU limit if given, each run on "
                   "the instances of its track: python-sat names (minisat22, kissat404, ...) "
                   "or the competition's binaries (minisat-bin: Debian's MiniSat 2.2; "
                   "kissat-bin: Kissat 4.0.4 from passagemath-kissat); the model counters "
                   "ganak and approxmc; rc2 (MaxSAT) [default: each track's: "
                   "minisat22:120,minisat-bin:120,kissat-bin:1000; ganak:300; rc2:300].")
@click.option("--time-limit", type=Seconds(), default=60.0,
              show_default=True, metavar="SECONDS",
              help="CPU seconds per run of a solver named without a limit; past it: UNKNOWN "
                   "(wall-clock backstop: 10x + 10 s).")
@_SOLVER_JOBS
@click.option("--only", metavar="GLOB", multiple=True,
              help="Only instances whose name matches a GLOB (repeatable); other rows are kept.")
@click.option("--no-plot", is_flag=True, help="Skip the solve-time plots.")
@click.option("--recheck", is_flag=True,
              help="Only the SAT instances whose MiniSat margin (how many times as fast as the "
                   "reference machine a machine must be for MiniSat to solve it within 60 s) "
                   "is within a factor 2 of --margin, or not known (no speed index); by "
                   "default the MiniSats alone (minisat22:120,minisat-bin:120); the rows "
                   "replace theirs.")
@click.option("--margin", type=float, default=None, metavar="MARGIN",
              help="The margin --recheck aims at [default: 2].")
@click.option("--reference-seconds", is_flag=True,
              help="The limits of the solvers with a reference workload are seconds on the "
                   "reference machine: each run gets SECONDS / this machine's speed index of "
                   "CPU (rows record that CPU limit), so a limit means the same on any "
                   "machine.")
@click.option("--speed-only", is_flag=True,
              help="Print this machine's speed index of each solver with a reference workload "
                   "(of --solvers, else all: minisat-bin, minisat22, kissat-bin) and exit: no "
                   "DIR.")
@_executor_options
def calibrate(directory, solvers, time_limit, jobs, only, no_plot, recheck, margin,
              reference_seconds, speed_only, executor, scheduler):
    """Run reference solvers on every instance of a published suite, validate the answers and
    record times and verdicts: calibration.csv, plots, manifest.json, SHA256SUMS. Each solver
    with a reference workload first measures this machine's speed index (cached for 12 h),
    recorded in every row with the run's reference seconds."""
    from puzzlesat.validate.campaigns.calibrate import calibrate_suite

    names = None if solvers is None else [s.strip() for s in solvers.split(",") if s.strip()]
    if speed_only:
        if directory is not None:
            raise click.UsageError("--speed-only measures this machine, not a suite: give no "
                                   "DIR")
        from puzzlesat.validate.runs.speed import report

        click.echo(report(names))
        return
    if directory is None:
        raise click.UsageError("Missing argument 'DIR'.")
    if margin is not None and not recheck:
        raise click.UsageError("--margin is the margin --recheck aims at: give --recheck too")
    with solver_executor(executor, scheduler, jobs) as pool:
        result = calibrate_suite(directory, names, time_limit, jobs, pool, plot=not no_plot,
                                 only=only, recheck=(margin or 2.0) if recheck else None,
                                 reference_seconds=reference_seconds)
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
@click.option("--format", "output_format", default="cnf", show_default=True,
              help="The instances' format, as generate's: cnf, wcnf (MaxSAT), opb "
                   "(pseudo-Boolean).")
@click.option("--count", is_flag=True, help="Counting instances (generate --count).")
@click.option("--easy", "easy", multiple=True, metavar="SOLVER:SECONDS",
              help="The band's lower edge (repeatable): in-band instances are solved by none "
                   "of them within SECONDS x --margin (seconds on the reference machine for a "
                   "solver with a speed workload: this machine's index scales its CPU "
                   "limit) [default: the track's: "
                   "minisat22:60 and minisat-bin:60; ganak:10; rc2:10; sat4j:10].")
@_MARGIN
@click.option("--reference", default=None, metavar="SOLVER:SECONDS",
              help="The band's upper edge: in-band instances are solved by it within SECONDS "
                   "(in reference seconds as --easy's) [default: the track's: "
                   "kissat-bin:1000; "
                   "ganak:300; rc2:300; "
                   "exact:300].")
@click.option("-o", "--output", required=True, metavar="DIR",
              help="Output folder: landscape.csv, landscape.png, group.toml, runs/ (the cache "
                   "a rerun resumes from).")
@_SOLVER_JOBS
@click.option("--no-plot", is_flag=True, help="Skip landscape.png.")
@_executor_options
def tune_command(family, axis, params, follows, encodings, samples, seed, output_format,
                 count, easy, margin, reference, output, jobs, no_plot, executor, scheduler):
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
    from puzzlesat.generator.tracks import track_for
    from puzzlesat.validate.campaigns.tune import tune
    from puzzlesat.validate.campaigns.tune.plan import make_plan

    plan = make_plan(family, params, axis, follows, encodings, samples, seed, easy or None,
                     reference, margin, track_for(output_format, count).NAME)
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
@click.option("--track", type=click.Choice(list(TRACKS)), default=None,
              help="The competition whose bundle to write [default: the track every instance "
                   "has]: sat, the SAT Competition's; mc, the Model Counting Competition's of a "
                   "counting suite (.cnf.bz2 in one tar, counts.txt, checksums.txt); maxsat, "
                   "the MaxSAT Evaluation's of a WCNF suite (instances .wcnf.xz, metadata.csv "
                   "with each certified optimum); pb, the Pseudo-Boolean Competition's of an "
                   "OPB suite (a folder per domain, metadata.csv, the generator's proofs). "
                   "The other options are the SAT rules'.")
@click.option("--force", is_flag=True,
              help="Write the SAT bundle even when some instance's margin (how many times as "
                   "fast as the reference machine a machine must be for MiniSat to solve it "
                   "within --minisat-limit) is below --margin.")
def submission(directory, output, reference, time_limit, minisats, minisat_limit, margin, count,
               min_hard, track, force):
    """Check a calibrated suite against its competition's rules (for SAT, the SAT Competition
    2026 benchmark rules) and build the bundle; exit 1 naming each broken rule."""
    from puzzlesat.validate.campaigns.submission import check_submission, write_submission
    from puzzlesat.validate.tracks.sat.bundle import Rules

    rules = Rules(count, min_hard, minisats, minisat_limit.cpu, margin, reference,
                  time_limit.cpu, force)
    chosen, check = check_submission(directory, track, rules)
    for line in check.lines():
        click.echo(line)
    if check.failures:
        for line in check.failures:
            click.echo(line)
        raise click.exceptions.Exit(1)
    click.echo(f"rules hold: wrote {write_submission(directory, output, chosen, check)}")


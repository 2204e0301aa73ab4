"""Commands that make and check instances: ``generate``, ``families``, ``show``, ``publish``,
``verify``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from puzzlesat.cli.options import _default_jobs, _executor_options, _force_option

if TYPE_CHECKING:
    from puzzlesat.generator.families.params import Param


class FamilyGroup(click.Group):
    """``generate <family>``: one subcommand per registered family, built from its PARAMS and
    imported only when asked for."""

    def list_commands(self, ctx):
        """The family names, one ``generate`` subcommand each."""
        from puzzlesat.generator.families import family_names

        return family_names()

    def get_command(self, ctx, name):
        """The ``generate`` command of family ``name``, or None."""
        from puzzlesat.generator.families import family_names, get_family

        if name not in family_names():
            return None
        return _generate_command(get_family(name))


def _click_option(param: Param) -> click.Option:
    if param.kind is bool:
        return click.Option([param.option], is_flag=True, default=None, help=param.help)
    metavar = {int: "INT", float: "X", str: "TEXT", "ints": "I,J,..."}[param.kind]
    shown = f" [default: {param.default}]" if param.default not in (None, False) else ""
    return click.Option([param.option], default=None, metavar=metavar, help=param.help + shown)


def where(output: str) -> str:
    """How a generate run names its output: the path, or stdout for ``-``."""
    return "stdout" if output == "-" else output


def _generate_command(family) -> click.Command:
    from puzzlesat.generator.core.files import SUFFIXES
    from puzzlesat.generator.tracks import tracks_of

    forms = tracks_of(family)
    encodings = list(dict.fromkeys(e for track in forms for e in track.encodings(family)))
    formats: dict[str, str] = {}  # each format in words, as its first track says it
    for track in forms:
        formats.setdefault(track.FORMAT, track.FORMAT_TEXT)
    default = next(iter(formats))
    others = [(track.FORMAT, list(track.encodings(family))) for track in forms
              if track.FORMAT != default]

    def run(seed, encoding, output, name, witness, proof, force, output_format, count,
            compression, jobs, **raw):
        from puzzlesat.generator.core.executors import cap_jobs
        from puzzlesat.generator.core.files import Compression
        from puzzlesat.generator.instance import generate_files
        from puzzlesat.generator.tracks import track_for
        from puzzlesat.validate.runs.certify import CheckedSolving

        track = track_for(output_format, count)
        params = {k: v for k, v in raw.items() if v is not None}
        inst = generate_files(family.NAME, params, output, witness, encoding, seed, name,
                              solving=CheckedSolving(), force=force, track=track.NAME,
                              proof=proof, compression=Compression(compression, cap_jobs(jobs)))
        click.echo(f"{where(output)}: {inst.name}: {inst.track.summary(inst)}", err=True)

    params: list[click.Parameter] = [*(_click_option(p) for p in family.PARAMS),
        click.Option(["--seed"], type=int, default=None,
                     help="Random seed (recorded in the header) [default: 0]."),
        click.Option(["--encoding"], type=click.Choice(encodings), default=None,
                     help=f"Encoding [default: {next(iter(family.ENCODINGS))}"
                          + "".join(f"; {fmt}: {', '.join(known)}" for fmt, known in others)
                          + "]."),
        click.Option(["--format", "output_format"], type=click.Choice(list(formats)),
                     default=default, show_default=True,
                     help="; ".join(f"{fmt}: {text}" for fmt, text in formats.items()) + "."),
        click.Option(["-o", "--output"], required=True, metavar="PATH",
                     help="Output file; compression by extension (.xz .gz .bz2) or as "
                          "--compression says; '-' = plain text on stdout."),
        click.Option(["--compression"], type=click.Choice(list(SUFFIXES)), default=None,
                     help="As a suite spec's compression; the extension of -o must agree. "
                          "xz-mt: blocks of 8 MiB compressed in parallel (same bytes for any "
                          "-j) [default: by extension; .xz = xz, one stream as xz -6 -T1]."),
        click.Option(["-j", "--jobs"], type=click.IntRange(min=1), default=_default_jobs,
                     show_default="all CPUs",
                     help="Threads compressing the blocks of --compression xz-mt, about 90 "
                          "MB each (never changes bytes)."),
        click.Option(["--name"], default=None, help="Instance name [default: canonical name]."),
        click.Option(["--witness"], default=None, metavar="PATH",
                     help="Also write the known solution as JSON."),
        click.Option(["--proof"], default=None, metavar="PATH",
                     help="Also write the generator's proof of UNSAT (a parity instance in "
                          "OPB: VeriPB 2.0)."),
        click.Option(["--count"], is_flag=True, default=False,
                     help="A model-counting instance: 'c t mc|pmc', 'c p show' over the "
                          "solution's variables, the known count in the header."),
        _force_option(),
    ]
    return click.Command(family.NAME, callback=run, params=params, help=family.SUMMARY)


@click.group(cls=FamilyGroup)
def generate():
    """Generate one instance of a family."""


@click.command()
def families():
    """List the families, their parameters and encodings."""
    from puzzlesat.generator.families import family_names, get_family

    for name in family_names():
        family = get_family(name)
        click.echo(f"{name}: {family.SUMMARY}")
        click.echo("  encodings: " + ", ".join(family.ENCODINGS))
        for p in family.PARAMS:
            default = "" if p.default in (None, False) else f" (default {p.default})"
            click.echo(f"  {p.option}: {p.help}{default}")


@click.command()
@click.argument("instance")
@click.option("--svg", default=None, metavar="PATH", help="Also draw the puzzle as SVG.")
def show(instance, svg):
    """Print an instance's header, its puzzle as a picture, and its counts."""
    from puzzlesat.generator.show import show_instance

    click.echo(show_instance(instance, svg))


@click.command()
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
    from puzzlesat.validate.runs.certify import CheckedSolving

    with make_executor(executor, scheduler, jobs) as pool:
        click.echo(publish_suite(spec, output, jobs, pool, progress=True, force=force,
                                 solving=CheckedSolving()).summary())


@click.command()
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
    from puzzlesat.validate.runs.certify import CheckedSolving

    with make_executor(executor, scheduler, jobs) as pool:
        result = verify_suite(directory, jobs, pool, force=force, solving=CheckedSolving())
    for line in result.differences:
        click.echo(line)
    click.echo(result.summary())
    if result.differences:
        raise click.exceptions.Exit(1)



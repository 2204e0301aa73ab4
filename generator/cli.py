"""The ``puzzlesat`` command line: parse, call one library function, print.

Every user mistake surfaces as :class:`generator.errors.UserError` (or a click usage error)
and is printed by :func:`main` as one line, ``puzzlesat: error: ...``, with exit code 2.
"""

from __future__ import annotations

import sys

import click

import generator
from generator.errors import UserError
from generator.families import Param, family_names, get_family


class FamilyGroup(click.Group):
    """``generate <family>``: one subcommand per registered family, built from its PARAMS and
    imported only when asked for."""

    def list_commands(self, ctx):
        return family_names()

    def get_command(self, ctx, name):
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
    def run(seed, encoding, output, name, witness, **raw):
        from generator.instance import build
        from generator.dimacs import atomic_write, canonical_json, write_instance

        params = {k: v for k, v in raw.items() if v is not None}
        inst = build(family.NAME, params, encoding, seed, name)
        write_instance(output, inst.formula, inst.header())
        if witness:
            solution = inst.witness_json()
            if solution is None:
                raise UserError(f"{inst.name} has no known solution to write (expected {inst.expected})")
            atomic_write(witness, (canonical_json(solution) + "\n").encode())
        where = "stdout" if output == "-" else output
        click.echo(f"{where}: {inst.name}: {inst.formula.num_vars} variables, "
                   f"{inst.formula.num_clauses} clauses, expected {inst.expected} "
                   f"({inst.expected_from})", err=True)

    params = [_click_option(p) for p in family.PARAMS] + [
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
    ]
    return click.Command(family.NAME, callback=run, params=params, help=family.SUMMARY)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(generator.__version__, prog_name="puzzlesat")
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
    from generator.show import show_instance

    click.echo(show_instance(instance, svg))


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI; user errors become one line and exit code 2."""
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
    except click.Abort:
        click.echo("puzzlesat: interrupted", err=True)
        code = 130
    except BrokenPipeError:
        code = 0
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()

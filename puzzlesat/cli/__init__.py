"""The ``puzzlesat`` command line: parse, call one library function, print.

Every user mistake surfaces as :class:`puzzlesat.generator.core.errors.UserError` (or a click usage error)
and is printed by :func:`main` as one line, ``puzzlesat: error: ...``, with exit code 2.
"""

from __future__ import annotations

import os
import sys

# numpy's BLAS starts a thread per core when numpy is imported, which costs every command about
# 0.15 s of CPU (half of numpy's import); puzzlesat does no floating-point linear algebra. Set
# before the imports below bring numpy in; a user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import click

from puzzlesat.cli.answers import (
    count_command,
    solve,
    solve_suite_command,
    validate_command,
    validate_count_command,
    validate_suite_command,
)
from puzzlesat.cli.campaigns import calibrate, submission, tune_command
from puzzlesat.cli.make import families, generate, publish, show, verify
from puzzlesat.cli.stdout import guard_closed_stdout, is_stdout_error, stdout_failed
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.stops import Stopped, stops_raise
from puzzlesat.generator.core.version import VERSION


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
@click.version_option(VERSION, prog_name="puzzlesat")
def cli():
    """Puzzles to SAT benchmark instances and back."""


for _command in (generate, families, show, publish, verify, solve, validate_command,
                 count_command, validate_count_command,
                 solve_suite_command, validate_suite_command, calibrate, tune_command, submission):
    cli.add_command(_command)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI; user errors become one line and exit code 2. SIGTERM and
    SIGHUP unwind a run as a Ctrl-C does (solvers killed, temporary files removed: their
    default left both behind), unless they are ignored, and exit with 128 + the signal."""
    guard_closed_stdout()
    with stops_raise():
        code = _run(argv)
    try:  # what is still buffered: a full disk or a file size limit shows only here
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    except OSError as exc:
        code = stdout_failed(exc)
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
        if not is_stdout_error(exc):
            raise
        code = stdout_failed(exc)
    return code

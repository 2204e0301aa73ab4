"""Writing answers to stdout: all or an error, never a partial answer passing for a whole one."""

from __future__ import annotations

import errno
import io
import os
import sys

import click

from puzzlesat.generator.core.paths import os_failure


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
            raise os_failure(exc, "write to stdout") from None


def is_stdout_error(exc: OSError) -> bool:
    """Whether ``exc`` is a failed write to stdout (click raises it as it is)."""
    return exc.errno in (errno.EFBIG, errno.ENOSPC, errno.EDQUOT, errno.EIO) and (
        exc.filename is None)


def stdout_failed(exc: OSError) -> int:
    """One line for an answer that could not be written (never an exit code saying it was),
    and stdout pointed at /dev/null so the interpreter's last flush stays quiet."""
    click.echo(f"puzzlesat: error: {os_failure(exc, 'write to stdout')}", err=True)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 2

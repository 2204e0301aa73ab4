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


class ClosedStdout:
    """``sys.stdout`` when file descriptor 1 is closed (``puzzlesat families >&-``; Python
    leaves None there, and click would drop every answer without a word): a write fails as
    one to a closed descriptor does, so an answer that could not be written is an error."""

    def write(self, data) -> int:
        """Fail: there is nowhere to write to."""
        raise OSError(errno.EBADF, "stdout is closed")

    def flush(self) -> None:
        """Nothing is ever buffered."""

    def isatty(self) -> bool:
        """Not a terminal."""
        return False

    def fileno(self) -> int:
        """No descriptor (the callers fall back to :meth:`write`)."""
        raise io.UnsupportedOperation("stdout is closed")

    @property
    def buffer(self) -> ClosedStdout:
        """The binary stream: the same, failing, object."""
        return self


def guard_closed_stdout() -> None:
    """Put a :class:`ClosedStdout` in place of a closed stdout."""
    if sys.stdout is None:
        sys.stdout = ClosedStdout()  # type: ignore[assignment]


def is_stdout_error(exc: OSError) -> bool:
    """Whether ``exc`` is a failed write to stdout (click raises it as it is)."""
    return exc.errno in (errno.EFBIG, errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EBADF) and (
        exc.filename is None)


def stdout_failed(exc: OSError) -> int:
    """One line for an answer that could not be written (never an exit code saying it was),
    and stdout pointed at /dev/null so the interpreter's last flush stays quiet."""
    click.echo(f"puzzlesat: error: {os_failure(exc, 'write to stdout')}", err=True)
    if isinstance(sys.stdout, ClosedStdout):
        return 2
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 2

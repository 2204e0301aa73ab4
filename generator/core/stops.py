"""SIGTERM and SIGHUP as an exception, so that a stopped run cleans up as Ctrl-C does.

By default SIGTERM and SIGHUP end the process at once: no ``finally`` runs, and a file being
written atomically leaves its temporary ``.part`` behind (70-100 MB for a big instance).
Inside :func:`stops_raise` they raise :class:`Stopped` in the main thread instead, which
unwinds like KeyboardInterrupt (``atomic_file`` removes its temporary file, the two-process
writer stops its child); the command line then prints one line and exits with 128 + the
signal's number, as a shell reports a process that signal ended.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

#: the signals that stop a run (SIGINT is Python's KeyboardInterrupt already)
STOPS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class Stopped(BaseException):
    """A stop signal arrived (a BaseException, as KeyboardInterrupt: ``except Exception``
    must not swallow it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    def __str__(self) -> str:
        return f"stopped by {signal.Signals(self.signum).name}"

    @property
    def exit_code(self) -> int:
        """The shell's code for death by the signal: 128 + its number."""
        return 128 + self.signum


def _raise_stopped(signum, frame):
    raise Stopped(signum)


@contextlib.contextmanager
def stops_raise() -> Iterator[None]:
    """Within this block SIGTERM and SIGHUP raise :class:`Stopped` in the main thread. A
    signal that is ignored (``nohup`` ignores SIGHUP) or handled by someone else stays so;
    in another thread nothing changes (only the main thread may set handlers)."""
    replaced = {}
    if threading.current_thread() is threading.main_thread():
        for stop in STOPS:
            if signal.getsignal(stop) is signal.SIG_DFL:
                replaced[stop] = signal.signal(stop, _raise_stopped)
    try:
        yield
    finally:
        for stop, handler in replaced.items():
            signal.signal(stop, handler)

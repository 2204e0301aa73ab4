"""Solver child processes: each leaves the terminal's process group, dies with us, and is
killed at once when a run is interrupted; the thread pool that waits on them."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Executor, ThreadPoolExecutor

from puzzlesat.generator.core.executors import cap_jobs

#: PR_SET_PDEATHSIG of <linux/prctl.h>
_PR_SET_PDEATHSIG = 1


def detach_from_terminal_and_die_with(parent: int) -> None:
    """In a solver child: leave the terminal's process group (Ctrl-C is the parent's to
    handle; SIGINT was blocked by the parent across the start, and is ignored before it is
    unblocked) and, on Linux, be killed when the parent dies — also when it died already."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.setpgid(0, 0)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    die_with(parent)


def die_with(parent: int) -> None:
    """On Linux, SIGKILL this process when the thread that started it ends (its process
    dies); exit at once if ``parent`` is gone already. Elsewhere nothing."""
    if _prctl is not None:  # Linux
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


_prctl = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None


@contextlib.contextmanager
def sigint_blocked():
    """SIGINT held back in this thread (a Ctrl-C arrives right after): a child started
    meanwhile inherits the blocked mask, so it cannot be interrupted before it leaves the
    terminal's process group."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


#: the solver children running now (killed when the run is interrupted)
_RUNNING: set = set()
_RUNNING_LOCK = threading.Lock()


@contextlib.contextmanager
def running(child):
    """Register ``child`` (anything with ``kill()``: a multiprocessing Process, a Popen) as a
    running solver for :func:`kill_running_solvers` while the block runs."""
    with _RUNNING_LOCK:
        _RUNNING.add(child)
    try:
        yield child
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(child)


def kill_running_solvers() -> None:
    """Kill every solver child this process runs now (an interrupted suite run: the threads
    waiting on them then return at once, instead of at the time limit)."""
    with _RUNNING_LOCK:
        for child in list(_RUNNING):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                child.kill()


def stop_solvers(threads: ThreadPoolExecutor | None = None) -> None:
    """After an interrupt: kill every solver child, and with ``threads`` (a pool of threads
    that wait on solvers) shut it down, queued calls cancelled, killing meanwhile the children
    its threads still start (one preparing its instance starts one after the interrupt): the
    threads return at once instead of at the time limit."""
    kill_running_solvers()
    if threads is None:
        return
    stopping = threading.Thread(target=threads.shutdown, daemon=True,
                                kwargs={"wait": True, "cancel_futures": True})
    stopping.start()
    while stopping.is_alive():
        kill_running_solvers()
        stopping.join(0.02)


@contextlib.contextmanager
def solver_pool(jobs: int, executor: Executor | None) -> Iterator[tuple[Executor | None,
                                                                     int | None]]:
    """Where solver runs go, with the slots to give :func:`run_tasks`: ``executor`` as it is,
    or (None) a pool of ``jobs`` threads owned here (each solve already runs in its own child
    process, so threads that wait on them suffice; a forked pool would inherit a stale
    forkserver). On an interrupt every solver is stopped at once (:func:`stop_solvers`), not
    at its time limit; an owned pool is always shut down."""
    own = executor is None
    jobs = cap_jobs(jobs)  # -j 10^20 sized the threads and the window of calls handed out
    pool = (ThreadPoolExecutor(max_workers=jobs) if jobs > 1 else None) if own else executor
    try:
        yield pool, (jobs if own else None)
    except BaseException:
        stop_solvers(pool if own and isinstance(pool, ThreadPoolExecutor) else None)
        raise
    finally:
        if own and pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)



"""Executors for ``--executor local|dask --scheduler ADDR -j N``.

Suite commands (publish, verify, calibrate, solve-suite, validate-suite) hand their pure,
picklable per-instance calls to any :class:`concurrent.futures.Executor` and write the results
themselves in spec order, so the executor changes speed, never bytes.

* ``local``: a process pool of N workers on this machine (none at all for ``-j 1``), at most
  one per call and :data:`JOBS_PER_CPU` per CPU (:func:`cap_jobs`).
* ``dask``: a Dask distributed cluster. With ``--scheduler ADDR`` (``tcp://host:8786``) the
  calls go to a running scheduler (``dask scheduler``; workers ``dask worker ADDR``, or
  ``dask-jobqueue`` on SLURM); without it a LocalCluster of N single-threaded workers is
  started here (N capped the same way). Dask is an optional extra
  (``pip install puzzlesat[dask]``), imported only when asked for.

Dask worker processes are daemonic by default and a daemonic process cannot start children,
but the reference runner kills solvers past their time limit by running them in a child. The
LocalCluster started here therefore turns ``distributed.worker.daemon`` off; start external
workers with ``DASK_DISTRIBUTED__WORKER__DAEMON=False`` for ``calibrate``/``solve-suite``.

Every executor made here says how many calls it runs at once, its ``slots`` (the pool's jobs;
for Dask the cluster's worker threads, counted live so that workers joining later, e.g. SLURM
jobs that start after the command, are used too); :func:`run_tasks` keeps twice that many in
flight.

>>> with make_executor("local", None, 1) as executor:
...     print(executor)
None
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sized
from concurrent.futures import FIRST_COMPLETED, Executor, ProcessPoolExecutor, wait
from typing import Any

from puzzlesat.generator.core.errors import UserError

EXECUTORS = ("local", "dask")


@contextlib.contextmanager
def make_executor(kind: str, scheduler: str | None, jobs: int,
                  processes: bool = True) -> Iterator[Executor | None]:
    """The executor named by the CLI options, shut down on exit. None means "in this process"
    (``local`` with one job). ``processes=False`` gives a LocalCluster of threads (tests)."""
    if kind not in EXECUTORS:
        raise UserError(f"--executor must be one of {', '.join(EXECUTORS)}, got {kind!r}")
    if jobs < 1:
        raise UserError(f"-j must be at least 1, got {jobs}")
    if kind == "local":
        if scheduler is not None:
            raise UserError("--scheduler needs --executor dask")
        executor = local_executor(jobs)
        try:
            yield executor
        finally:
            if executor is not None:
                executor.shutdown(wait=True, cancel_futures=True)
        return
    with _dask_client(scheduler, jobs, processes) as client:
        yield DaskExecutor(client)


class DaskExecutor(Executor):
    """``client.get_executor()`` with ``slots``: the cluster's worker threads (the sum of
    ``client.nthreads()``), asked again at most once a second, at least 1."""

    def __init__(self, client) -> None:
        self.client = client
        self._inner = client.get_executor()
        self._slots, self._asked = 1, -1.0

    def submit(self, fn, /, *args, **kwargs):
        """Run ``fn(*args, **kwargs)`` on the cluster."""
        return self._inner.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop handing out work (the cluster itself is its owner's to close)."""
        self._inner.shutdown(wait=wait)

    @property
    def slots(self) -> int:
        """The cluster's worker threads now (asked at most once a second)."""
        if time.monotonic() - self._asked >= 1.0:
            self._slots = max(1, sum(self.client.nthreads().values()))
            self._asked = time.monotonic()
        return self._slots


def executor_slots(executor: Executor | None) -> int:
    """How many calls ``executor`` runs at once: 1 for None (this process), else its ``slots``
    attribute (every executor made here has one; give your own one too, or pass ``slots`` to
    :func:`run_tasks`), else this machine's CPU count."""
    if executor is None:
        return 1
    slots = getattr(executor, "slots", None)
    return max(1, int(slots if slots is not None else os.cpu_count() or 1))


@contextlib.contextmanager
def _dask_client(scheduler: str | None, jobs: int, processes: bool):
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise UserError("--executor dask needs Dask distributed: pip install "
                        "'puzzlesat[dask]' (or 'dask[distributed]')") from None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as exc:
            raise UserError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        except (ValueError, TypeError) as exc:  # no port, an unknown scheme (http://)
            raise UserError(f"--scheduler {scheduler!r} is not a Dask scheduler address "
                            f"(tcp://host:8786): {exc}") from None
        with client:
            yield client
        return
    # Ctrl-C reaches the whole process group: the workers (started here, ignoring it, as the
    # local pool's do) leave the decision to this process, which stops them; else each printed
    # its CancelledError/KeyboardInterrupt traceback
    with dask.config.set({"distributed.worker.daemon": False}), _sigint_ignored(), \
            _worker_logging("critical"):
        cluster = LocalCluster(n_workers=cap_jobs(jobs), threads_per_worker=1,
                               processes=processes, dashboard_address=":0")  # any free port
    with _quiet_loggers("distributed", "tornado.application"), cluster, \
            Client(cluster) as client:
        yield client


@contextlib.contextmanager
def _quiet_loggers(*names: str):
    """Only critical records from the loggers ``names`` and those below them while the block
    runs, the cluster's shutdown included: a Ctrl-C makes the in-process scheduler and the
    client's event loop log the calls and keys it cancelled (errors of the stop itself; a
    task's failure reaches this process through its future)."""
    # a logger below a name with a level of its own (Dask's configuration gives one to
    # distributed.client, which warns of the keys a cut gather lost) would not follow its parent
    below = tuple(name + "." for name in names)
    loggers = [logging.getLogger(name) for name in names] + [
        logger for name, logger in list(logging.root.manager.loggerDict.items())
        if name.startswith(below) and isinstance(logger, logging.Logger)]
    previous = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, previous):
            logger.setLevel(level)


@contextlib.contextmanager
def _worker_logging(level: str):
    """Worker processes started meanwhile log ``distributed`` at ``level`` (they read it from
    the environment at import). Workers started here log only what is critical: a task's
    failure reaches this process through its future, while a stopped run's cancelled tasks and
    lost heartbeats (a loaded machine) are errors the run itself caused."""
    key = "DASK_LOGGING__DISTRIBUTED"
    previous = os.environ.get(key)
    os.environ[key] = level
    try:
        yield
    finally:
        if previous is None:
            del os.environ[key]
        else:
            os.environ[key] = previous


@contextlib.contextmanager
def _sigint_ignored():
    """SIGINT ignored while processes that should inherit that are started (main thread only:
    elsewhere signals cannot be set, and Ctrl-C does not arrive there anyway)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _worker_init() -> None:
    # Ctrl-C reaches the whole process group; only the parent decides what to do with it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, daemon=True).start()


def _exit_with_parent() -> None:
    """A worker whose parent was killed (SIGKILL) would wait for work forever: leave when
    the process that owns the pool ends. Its sentinel pipe says so for every start method;
    the worker's parent process is not it under forkserver (Python 3.14's default on Linux),
    where the fork server lives as long as its workers do."""
    parent = multiprocessing.parent_process()
    if parent is not None:  # always, in a pool's worker
        parent.join()
    os._exit(1)


#: at most this many workers per CPU: publish and verify are CPU-bound, and each calibrate or
#: solve-suite slot runs a solver; past a few per CPU more only cost memory and distort times
JOBS_PER_CPU = 4


def cap_jobs(jobs: int, tasks: int | None = None) -> int:
    """``jobs`` capped at :data:`JOBS_PER_CPU` per CPU (at least 8) and at ``tasks`` (at least
    1): ``-j 5000`` on a one-instance suite starts one worker, not thousands."""
    cap = max(8, JOBS_PER_CPU * (os.cpu_count() or 1))
    return max(1, min(jobs, cap, tasks if tasks is not None else jobs))


class LocalPool(Executor):
    """A process pool of up to ``jobs`` workers, started by the first :func:`run_tasks` with
    no more workers than that run has calls (a fork pool starts all its workers at once)."""

    def __init__(self, jobs: int) -> None:
        self.slots = cap_jobs(jobs)
        self._pool: ProcessPoolExecutor | None = None

    def fit(self, calls: int) -> None:
        """Start the pool for ``calls`` calls (the first caller decides its size)."""
        if self._pool is None:
            self.slots = cap_jobs(self.slots, calls)
            self._pool = ProcessPoolExecutor(max_workers=self.slots, initializer=_worker_init)

    def submit(self, fn, /, *args, **kwargs):
        """Run ``fn(*args, **kwargs)`` in a worker (the pool starts at ``slots`` if no run
        fitted it first)."""
        self.fit(self.slots)
        return self._pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Shut the pool down, if it was started."""
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)


def local_executor(jobs: int) -> Executor | None:
    """The default executor: None (build in this process) for one job, else a
    :class:`LocalPool`."""
    return LocalPool(jobs) if jobs > 1 else None


def run_tasks(fn: Callable, calls: Iterable[tuple], executor: Executor | None,
              window: int = 0, slots: int | None = None) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, fn(*calls[index]))`` as results arrive.

    ``executor`` is any :class:`concurrent.futures.Executor` (a process pool, or e.g. a Dask
    ``Client.get_executor()``); None runs the calls here, one by one. At most ``window`` calls
    are in flight (default: 2 per slot, at least 4) so finished bytes do not pile up and every
    slot has work; ``slots`` defaults to :func:`executor_slots`, asked again as calls finish
    (a Dask cluster may grow). Standard executors do not say how many workers they have
    (``max_workers`` is private): pass ``slots`` with yours.
    """
    if executor is None:
        for index, args in enumerate(calls):
            yield index, fn(*args)
        return
    if isinstance(executor, LocalPool) and isinstance(calls, Sized):
        executor.fit(len(calls))  # calls asked for lazily (tune) leave the pool at -j
    pending: dict = {}
    todo = iter(enumerate(calls))
    try:
        while True:
            limit = window or max(4, 2 * (slots or executor_slots(executor)))
            for index, args in itertools.islice(todo, max(0, limit - len(pending))):
                pending[executor.submit(fn, *args)] = index
            if not pending:
                return
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=pending.__getitem__):
                yield pending.pop(future), future.result()
    finally:
        for future in pending:
            future.cancel()



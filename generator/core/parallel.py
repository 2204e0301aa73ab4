"""The two-process writer: a big formula's clause text written by this process and a forked
child at once, each its part of one file (fork, signals, pickled reports)."""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
import traceback

import numpy as np

from puzzlesat.generator.core.cnf import ClauseBlock, DeferredBlock, Formula
from puzzlesat.generator.core.files import FileWriter
from puzzlesat.generator.core.stops import STOPS
from puzzlesat.generator.core.writer import RunWriter, Stage, stream_blocks, stream_clauses

# Two processes write a big formula's text faster than one: the first part's text is made and
# written by this process, the rest by a forked child at the place the first part will end,
# which it computes from literal lengths alone (see text_length). Same bytes as one process.
_SPLIT_LITERALS = 1 << 22  # smaller formulas: forking costs more than it saves
FIRST_SHARE = 0.57  # of the literals, written here: the child also counts the first part


def write_clauses(formula: Formula, out: FileWriter, processes: int | None = None,
                  first_share: float = FIRST_SHARE) -> int:
    """Write the clause text of ``formula`` to ``out`` at its position; returns its size.
    ``processes`` (1 or 2) overrides the choice: two for a big formula where fork is safe (Linux,
    one thread, two CPUs or more); one in any thread but the main one. With two, this process
    writes about ``first_share`` of the literals (the bytes never depend on it)."""
    if processes is None:
        processes = 2 if _two_processes_pay(formula) else 1
    if processes == 1 or not formula.blocks or threading.current_thread() is not \
            threading.main_thread():  # only the main thread may set signal handlers
        return stream_clauses(formula, out.write)
    return _write_in_two_processes(formula, out, first_share)


def _two_processes_pay(formula: Formula) -> bool:
    if not sys.platform.startswith("linux") or threading.active_count() > 1:
        return False
    if len(os.sched_getaffinity(0)) < 2:
        return False
    return sum(_literal_slots(block) for block in formula.blocks) >= _SPLIT_LITERALS


def _literal_slots(block: ClauseBlock | DeferredBlock) -> int:
    rows, width = block.shape
    return rows * width


def _cut(blocks: list, share: float) -> tuple[list, list]:
    """The blocks before and after ``share`` of their literal slots. A block that holds the
    cut is split between rows (whole units), a deferred one at its nearer end."""
    sizes = [_literal_slots(block) for block in blocks]
    ends = np.cumsum(sizes)
    target = share * int(ends[-1])
    i = min(int(np.searchsorted(ends, target)), len(blocks) - 1)
    block, into = blocks[i], target - (int(ends[i]) - sizes[i])
    if isinstance(block, DeferredBlock) or block.shape[1] == 0:
        i += 2 * into > sizes[i]
        return blocks[:i], blocks[i:]
    rows = int(into // block.shape[1]) // block.unit * block.unit
    head = ClauseBlock(block.name, block.literals[:rows], block.unit)
    tail = ClauseBlock(block.name, block.literals[rows:], block.unit)
    return [*blocks[:i], head], [tail, *blocks[i + 1 :]]


def _write_in_two_processes(formula: Formula, out: FileWriter, first_share: float) -> int:
    first, rest = _cut(formula.blocks, first_share)
    read_end, write_end = os.pipe()
    # Ctrl-C must not raise KeyboardInterrupt in the child, which would unwind into this
    # process's cleanup. Across the fork SIGINT, SIGTERM and SIGHUP are only noted; the child
    # takes their default action (it just ends), and this process acts on a noted one once
    # the child can be stopped.
    noted: list[int] = []
    replaced = _note_stops(noted)
    try:
        child = os.fork()
    except BaseException as exc:
        _restore(replaced)
        os.close(read_end)
        os.close(write_end)
        if isinstance(exc, OSError):  # no second process to be had (EAGAIN, ENOMEM)
            return stream_clauses(formula, out.write)
        raise
    if child == 0:
        _write_rest_and_exit(first, rest, formula.num_vars, out, replaced, write_end)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        try:
            _restore(replaced)
            for stop in noted:
                signal.raise_signal(stop)
            size = stream_blocks(first, formula.num_vars, out.write)
            answer = pipe.read()
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)
            raise
        finally:
            try:
                os.waitpid(child, 0)
            except ChildProcessError:  # SIGCHLD ignored: the system reaped it
                pass
    if not answer:
        raise RuntimeError("the writer's second process ended without its part")
    report = pickle.loads(answer)
    if isinstance(report, BaseException):
        raise report
    rest_at, rest_size = report
    if rest_at != out.position:
        raise AssertionError(f"the writer's parts do not meet: {rest_at} != {out.position}")
    out.position += rest_size
    return size + rest_size


def _note_stops(noted: list[int]) -> dict:
    """Have SIGINT, SIGTERM and SIGHUP appended to ``noted`` instead of handled, unless they
    are ignored (a background job) or not handled from Python; returns the handlers
    replaced."""
    replaced = {}
    for stop in (signal.SIGINT, *STOPS):
        if signal.getsignal(stop) not in (signal.SIG_IGN, None):
            replaced[stop] = signal.signal(stop, lambda signum, frame: noted.append(signum))
    return replaced


def _restore(replaced: dict) -> None:
    for stop, handler in replaced.items():
        signal.signal(stop, handler)


def _write_rest_and_exit(first, rest, num_vars: int, out: FileWriter, replaced: dict,
                         write_end: int):
    """The child: write ``rest`` where the text of ``first`` will end, tell the parent (the
    place and size, or the exception, with its traceback as a note) and exit. Never returns:
    no cleanup of the parent's may run here."""
    try:
        try:
            for stop in replaced:  # what the parent ignores, the child ignores too
                signal.signal(stop, signal.SIG_DFL)
            file = FileWriter(out.fd)
            writer = RunWriter(num_vars, Stage(file.write))  # one literal table for both
            rest_at = file.position = file.started = out.position + writer.text_length(first)
            report: object = (rest_at, writer.write_blocks(rest))
        except BaseException as exc:
            report = _as_sent(exc)
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(pickle.dumps(report))
    finally:
        os._exit(0)


def _as_sent(exc: BaseException) -> BaseException:
    """``exc`` as the parent can rebuild it from pickle (else a RuntimeError naming it), with
    the child's traceback as a note."""
    note = "in the writer's second process:\n" + "".join(traceback.format_exception(exc))
    try:
        exc.add_note(note)
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        stand_in = RuntimeError(f"{type(exc).__name__}: {exc}")
        stand_in.add_note(note)
        return stand_in

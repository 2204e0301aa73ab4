"""The two-process writer on formulas big enough to use it (this file, not test_dimacs.py,
whose module-wide patches shrink the writer's steps)."""

import errno
import os
import signal
import sys
import threading

import numpy as np
import pytest

from puzzlesat.generator.core import parallel
from puzzlesat.generator.core.cnf import ClauseBlock, Deferred, Formula
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import atomic_file
from puzzlesat.generator.core.save import write_instance
from puzzlesat.generator.core.writer import clause_bytes, dimacs_bytes

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the writer uses two processes on Linux only")


def _big_formula(bad_block: int | None = None) -> Formula:
    """About 2^22 literals in 16 blocks (two processes pay), one of them bad if asked."""
    f = Formula()
    x = f.new_vars("x", (1 << 17) + 1)
    pairs = np.stack([-x[:-1], x[1:]], axis=1)
    for i in range(16):
        f.add(f"b{i}", pairs if i != bad_block else np.array([[1, -(1 << 18)]]))
    return f


def _count_forks(monkeypatch, before=lambda: None) -> list[int]:
    """The pids os.fork returns from now on, in this process (``before`` runs first)."""
    children = []
    real_fork = os.fork

    def fork():
        before()
        pid = real_fork()
        children.append(pid)
        return pid

    monkeypatch.setattr(parallel.os, "fork", fork)
    return children


@pytest.fixture
def two_cpus_one_thread(monkeypatch):
    """The machine the writer takes two processes on, whatever this one is (earlier tests
    leave tqdm's monitor thread asleep; CI may have one CPU)."""
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 1)
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1})


def test_write_instance_uses_two_processes_for_a_big_formula(tmp_path, monkeypatch,
                                                             two_cpus_one_thread):
    children = _count_forks(monkeypatch)
    f = _big_formula()
    size = write_instance(tmp_path / "big.cnf", f, {"family": "demo"})
    assert len(children) == 1
    data = (tmp_path / "big.cnf").read_bytes()
    assert len(data) == size
    assert data == dimacs_bytes(f, {"family": "demo"})
    small = Formula()
    small.new_vars("v", 3)
    small.add("c", [[1, -2]])
    assert not parallel._two_processes_pay(small)


def test_two_process_writer_is_not_used_beside_other_threads_or_on_one_cpu(monkeypatch):
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(parallel.threading, "active_count", threading.active_count)
    big = _big_formula()
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        assert not parallel._two_processes_pay(big)
    finally:
        release.set()
        thread.join()
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 1)
    assert parallel._two_processes_pay(big)
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0})
    assert not parallel._two_processes_pay(big)


@pytest.mark.parametrize("bad_block", [2, 14])  # in this process's part, in the child's
def test_two_process_writer_raises_either_part_error(tmp_path, bad_block, monkeypatch):
    """A bad block in either part is the same error as with one process, and neither a file
    nor the child process is left behind."""
    children = _count_forks(monkeypatch)
    f = _big_formula(bad_block)
    with pytest.raises(ValueError, match=f"clause block 'b{bad_block}' has a literal beyond"):
        with atomic_file(tmp_path / "big.cnf") as out:
            parallel.write_clauses(f, out, processes=2)
    assert list(tmp_path.iterdir()) == []
    assert len(children) == 1
    with pytest.raises(ChildProcessError):  # already reaped
        os.waitpid(children[0], os.WNOHANG)


def test_two_process_writer_reports_a_full_disk_in_the_child(tmp_path, monkeypatch):
    """The child's OSError reaches the user as the one-line write error, nothing left."""
    real_pwrite = os.pwrite

    def pwrite(fd, data, offset):  # the disk fills up beyond the first part
        if offset > 24 << 20:  # of 32 MB; the child writes from 18 MB on
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_pwrite(fd, data, offset)

    monkeypatch.setattr(parallel.os, "pwrite", pwrite)
    with pytest.raises(UserError, match="cannot write .*big.cnf: No space left on device"):
        with atomic_file(tmp_path / "big.cnf") as out:
            parallel.write_clauses(_big_formula(), out, processes=2)
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_ends_the_child_without_running_this_process_cleanup(tmp_path, monkeypatch):
    """Ctrl-C reaches both processes. The child must just end (the default action): were it
    to raise KeyboardInterrupt, that would unwind into the cleanup of the process it was
    forked from. A block of the child's part sends SIGINT to the child itself."""
    children = _count_forks(monkeypatch)
    f = _big_formula()

    def interrupt_the_child():
        if children == [0]:  # the child's own copy of the list
            os.kill(os.getpid(), signal.SIGINT)
        return np.array([[1, 2]], dtype=np.int32)

    f.add("interrupts", Deferred((1, 2), interrupt_the_child))
    with pytest.raises(RuntimeError, match="second process ended without its part"):
        with atomic_file(tmp_path / "big.cnf") as out:
            parallel.write_clauses(f, out, processes=2)
    assert list(tmp_path.iterdir()) == []


def _written_in_two_processes(path, f: Formula, first_share: float = parallel.FIRST_SHARE
                              ) -> bytes:
    with atomic_file(path) as out:
        parallel.write_clauses(f, out, processes=2, first_share=first_share)
    return path.read_bytes()


def test_a_signal_the_parent_ignores_the_child_ignores(tmp_path, monkeypatch):
    """A background job (`generate ... &` from a script) ignores Ctrl-C; so must its child."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        f = _big_formula()
        f.add("interrupts", Deferred((1, 2), lambda: os.kill(os.getpid(), signal.SIGINT)
                                     or np.array([[1, 2]], dtype=np.int32)))
        assert _written_in_two_processes(tmp_path / "f.cnf", f, first_share=0.0) \
            == clause_bytes(f)  # the child makes every block
    finally:
        signal.signal(signal.SIGINT, previous)


def test_ctrl_c_during_the_fork_stops_and_reaps_the_child(tmp_path, monkeypatch):
    """A Ctrl-C that arrives during the fork is raised once the child can be stopped: it is
    killed and reaped, no descriptor is left open, no file written, the handler restored."""
    # the Ctrl-C is only noted until the fork is done
    children = _count_forks(monkeypatch, before=lambda: signal.raise_signal(signal.SIGINT))
    descriptors = len(os.listdir("/proc/self/fd"))
    with pytest.raises(KeyboardInterrupt):
        _written_in_two_processes(tmp_path / "f.cnf", _big_formula())
    assert len(os.listdir("/proc/self/fd")) == descriptors
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ChildProcessError):  # already reaped
        os.waitpid(children[0], os.WNOHANG)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


class _TwoArguments(Exception):
    def __init__(self, a, b):
        super().__init__(f"{a} and {b}")


def test_a_child_exception_pickle_cannot_rebuild_arrives_by_name_with_its_traceback(tmp_path):
    f = _big_formula()

    def fail():
        raise _TwoArguments(1, 2)

    f.add("fails", Deferred((1, 2), fail))
    with pytest.raises(RuntimeError, match="_TwoArguments: 1 and 2") as caught:
        _written_in_two_processes(tmp_path / "f.cnf", f)
    assert "in the writer's second process" in caught.value.__notes__[0]
    assert "in fail" in caught.value.__notes__[0]


def test_no_second_process_to_be_had_means_one(tmp_path, monkeypatch):
    def fork():
        raise OSError(errno.EAGAIN, os.strerror(errno.EAGAIN))

    monkeypatch.setattr(parallel.os, "fork", fork)
    f = _big_formula()
    assert _written_in_two_processes(tmp_path / "f.cnf", f) == clause_bytes(f)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_children_reaped_by_the_system(tmp_path):
    """With SIGCHLD ignored the system reaps the child itself; the write still succeeds."""
    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        f = _big_formula()
        assert _written_in_two_processes(tmp_path / "f.cnf", f, first_share=0.0) \
            == clause_bytes(f)  # the child makes every block
    finally:
        signal.signal(signal.SIGCHLD, previous)


def test_the_cut_splits_a_block_between_whole_units_and_a_deferred_one_at_its_nearer_end(
        tmp_path):
    rows = np.arange(1, 2001, dtype=np.int32).reshape(1000, 2)
    first, rest = parallel._cut([ClauseBlock("b", rows, unit=3)], 0.57)
    assert [b.shape for b in first] == [(570, 2)] and [b.shape for b in rest] == [(430, 2)]
    first, rest = parallel._cut([ClauseBlock("u", rows[:999], unit=9)], 0.57)
    assert first[0].shape == (567, 2) and rest[0].shape == (432, 2)
    f = Formula()
    f.new_vars("v", 2000)
    f.add("d1", Deferred((600, 2), lambda: rows[:600]))
    f.add("d2", Deferred((400, 2), lambda: rows[:400]))
    assert [len(part) for part in parallel._cut(f.blocks, 0.57)] == [1, 1]  # 600 is nearer
    assert [len(part) for part in parallel._cut(f.blocks, 0.95)] == [2, 0]
    assert _written_in_two_processes(tmp_path / "empty.cnf", Formula()) == b""

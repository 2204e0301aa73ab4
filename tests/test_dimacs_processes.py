"""The two-process writer on formulas big enough to use it (this file, not test_dimacs.py,
whose module-wide patches shrink the writer's steps)."""

import os
import threading

import numpy as np
import pytest

from puzzlesat.generator.core import dimacs
from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.dimacs import dimacs_bytes, write_instance
from puzzlesat.generator.core.errors import UserError


def _big_formula(bad_block: int | None = None) -> Formula:
    """About 2^22 literals in 16 blocks (two processes pay), one of them bad if asked."""
    f = Formula()
    x = f.new_vars("x", (1 << 17) + 1)
    pairs = np.stack([-x[:-1], x[1:]], axis=1)
    for i in range(16):
        f.add(f"b{i}", pairs if i != bad_block else np.array([[1, -(1 << 18)]]))
    return f


def _count_forks(monkeypatch) -> list[int]:
    """The pids os.fork returns from now on, in this process."""
    children = []
    real_fork = os.fork

    def fork():
        pid = real_fork()
        children.append(pid)
        return pid

    monkeypatch.setattr(dimacs.os, "fork", fork)
    return children


def test_write_instance_uses_two_processes_for_a_big_formula(tmp_path, monkeypatch):
    # earlier tests leave tqdm's monitor thread asleep; the writer would then use one process
    monkeypatch.setattr(dimacs.threading, "active_count", lambda: 1)
    children = _count_forks(monkeypatch)
    f = _big_formula()
    size = write_instance(tmp_path / "big.cnf", f, {"family": "demo"})
    assert len(children) == (len(os.sched_getaffinity(0)) > 1)
    data = (tmp_path / "big.cnf").read_bytes()
    assert len(data) == size
    assert data == dimacs_bytes(f, {"family": "demo"})
    small = Formula()
    small.new_vars("v", 3)
    small.add("c", [[1, -2]])
    assert not dimacs._two_processes_pay(small)


def test_two_process_writer_is_not_used_beside_other_threads():
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        assert not dimacs._two_processes_pay(_big_formula())
    finally:
        release.set()
        thread.join()


@pytest.mark.parametrize("bad_block", [2, 14])  # in this process's part, in the child's
def test_two_process_writer_raises_either_part_error(tmp_path, bad_block, monkeypatch):
    """A bad block in either part is the same error as with one process, and neither a file
    nor the child process is left behind."""
    children = _count_forks(monkeypatch)
    f = _big_formula(bad_block)
    with pytest.raises(ValueError, match=f"clause block 'b{bad_block}' has a literal beyond"):
        with dimacs.atomic_file(tmp_path / "big.cnf") as out:
            dimacs.write_clauses(f, out, processes=2)
    assert list(tmp_path.iterdir()) == []
    assert len(children) == 1
    with pytest.raises(ChildProcessError):  # already reaped
        os.waitpid(children[0], os.WNOHANG)


def test_two_process_writer_reports_a_full_disk_in_the_child(tmp_path, monkeypatch):
    """The child's OSError reaches the user as the one-line write error, nothing left."""
    import errno

    real_pwrite = os.pwrite

    def pwrite(fd, data, offset):  # the disk fills up beyond the first part
        if offset > 24 << 20:  # of 32 MB; the child writes from 18 MB on
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_pwrite(fd, data, offset)

    monkeypatch.setattr(dimacs.os, "pwrite", pwrite)
    with pytest.raises(UserError, match="cannot write .*big.cnf: No space left on device"):
        with dimacs.atomic_file(tmp_path / "big.cnf") as out:
            dimacs.write_clauses(_big_formula(), out, processes=2)
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_ends_the_child_without_running_this_process_cleanup(tmp_path, monkeypatch):
    """Ctrl-C reaches both processes. The child must just end (the default action): were it
    to raise KeyboardInterrupt, that would unwind into the cleanup of the process it was
    forked from. A block of the child's part sends SIGINT to the child itself."""
    import signal

    from puzzlesat.generator.core.cnf import Deferred

    children = _count_forks(monkeypatch)
    f = _big_formula()

    def interrupt_the_child():
        if children == [0]:  # the child's own copy of the list
            os.kill(os.getpid(), signal.SIGINT)
        return np.array([[1, 2]], dtype=np.int32)

    f.add("interrupts", Deferred((1, 2), interrupt_the_child))
    with pytest.raises(RuntimeError, match="second process ended without its part"):
        with dimacs.atomic_file(tmp_path / "big.cnf") as out:
            dimacs.write_clauses(f, out, processes=2)
    assert list(tmp_path.iterdir()) == []

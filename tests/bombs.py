"""Hostile inputs that cost the attacker little: compressed files that expand a thousandfold, and
a way to run a command in its own process and read the most memory it ever held.

A bomb is several xz streams one after the other (the format allows it, and every reader
here takes them): one for its head, the same compressed megabyte of one repeated line as many
times as asked, and one for its tail. A gigabyte of text costs about 300 KB and a fraction of
a second to make.
"""

from __future__ import annotations

import lzma
import os
import resource
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

MIB = 1 << 20


def xz_bomb(path: Path, head: bytes, line: bytes, mib: int, tail: bytes = b"") -> Path:
    """Write ``head``, then ``mib`` MiB of ``line`` repeated, then ``tail``, as xz streams."""
    block = lzma.compress(line * (MIB // len(line)), preset=9)
    with open(path, "wb") as out:
        out.write(lzma.compress(head))
        for _ in range(mib):
            out.write(block)
        if tail:
            out.write(lzma.compress(tail))
    return path


def header_of(path: Path) -> bytes:
    """The comment lines an instance file starts with (plain or compressed)."""
    from puzzlesat.generator.core.inputs import read_input

    text = read_input(path, 1 << 30)
    return b"".join(line for line in text.splitlines(keepends=True) if line.startswith(b"c"))


@dataclass
class Run:
    code: int
    out: str
    err: str
    peak_mb: float  # the largest resident set the process ever had


def run_measured(*args, env: dict | None = None, cwd=None,
                 address_space: int | None = None) -> Run:
    """Run ``puzzlesat ARGS`` in a new process of this Python; its exit code, output and peak
    resident memory (ru_maxrss of that one child, from wait4). ``address_space`` (bytes), when
    given, caps the memory it and its children may map (``prlimit --as``): a command that
    would take the machine's memory ends in a MemoryError instead."""
    argv = [sys.executable, "-m", "puzzlesat", *map(str, args)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:  # the child: nothing of pytest's state runs here
            try:
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                if cwd is not None:
                    os.chdir(cwd)
                if address_space is not None:
                    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
                os.execve(sys.executable, argv, {**os.environ, **(env or {})})
            finally:
                os._exit(127)
        _, status, usage = os.wait4(pid, 0)
        out.seek(0)
        err.seek(0)
        return Run(os.waitstatus_to_exitcode(status), out.read().decode(errors="replace"),
                   err.read().decode(errors="replace"), usage.ru_maxrss / 1024)


def assert_refused(run: Run, *fragments: str, peak_mb: float = 500) -> None:
    """A refusal in one line and exit 2, within ``peak_mb`` MB of memory."""
    lines = run.err.strip().splitlines()
    assert run.code == 2 and len(lines) == 1 and lines[0].startswith("puzzlesat: error: "), \
        (run.code, run.err[-2000:])
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    assert run.peak_mb < peak_mb, run.peak_mb

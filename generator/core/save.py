"""Saving an instance: its DIMACS text to stdout, a compressed file, or a plain file written
by one or two processes."""

from __future__ import annotations

import sys

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.files import atomic_file, atomic_write, compress, compression_of
from puzzlesat.generator.core.parallel import write_clauses
from puzzlesat.generator.core.writer import dimacs_bytes, dimacs_head, stream_clauses


def write_instance(path: str, formula: Formula, header: dict | None = None,
                   processes: int | None = None) -> int:
    """Write DIMACS to ``path`` (compressed by extension; ``-`` = plain text to stdout).
    Plain text is streamed block by block, never held whole; to a file, by ``processes``
    processes (see :func:`write_clauses`). Returns the size of the uncompressed text."""
    kind = None if path == "-" else compression_of(path)
    if kind is not None:
        data = dimacs_bytes(formula, header)
        atomic_write(path, compress(data, kind))
        return len(data)
    head = dimacs_head(formula, header)
    if path == "-":
        sys.stdout.buffer.write(head)
        size = stream_clauses(formula, sys.stdout.buffer.write)
        sys.stdout.buffer.flush()
        return len(head) + size
    with atomic_file(path) as out:
        out.write(head)
        size = write_clauses(formula, out, processes)
    return len(head) + size


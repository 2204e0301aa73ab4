"""Saving an instance: its DIMACS or WCNF text to stdout, a compressed file, or a plain file
(DIMACS: written by one or two processes)."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable
from typing import Protocol, TypeVar

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import (
    BY_EXTENSION,
    Compression,
    atomic_file,
    atomic_write,
    check_writable,
    compress,
    output_compression,
)
from puzzlesat.generator.core.header import canonical_json
from puzzlesat.generator.core.inputs import check_distinct
from puzzlesat.generator.core.opb import Opb, opb_head, stream_opb
from puzzlesat.generator.core.parallel import write_clauses
from puzzlesat.generator.core.wcnf import Wcnf, stream_wcnf_clauses, wcnf_head
from puzzlesat.generator.core.writer import dimacs_head, stream_clauses


class HasWitness(Protocol):
    """An instance :func:`save_instance` writes: a name, maybe a known solution, maybe the
    generator's proof of UNSAT."""

    name: str

    def witness_json(self) -> dict | None:
        """The known solution as a witness file's JSON, or None."""

    def proof(self) -> bytes | None:
        """The generator's proof that the instance has no solution, or None."""


#: the instance :func:`save_instance` builds and writes
T = TypeVar("T", bound=HasWitness)


def write_instance(path: str, formula: Formula, header: dict | None = None,
                   processes: int | None = None,
                   compression: Compression = BY_EXTENSION) -> int:
    """Write DIMACS to ``path`` (compressed as ``compression`` says, by default by extension;
    ``-`` = plain text to stdout). Plain text is streamed block by block, never held whole;
    to a file, by ``processes`` processes (see :func:`write_clauses`). Returns the size of
    the uncompressed text."""
    return _save(path, dimacs_head(formula, header),
                 lambda write: stream_clauses(formula, write),
                 lambda out: write_clauses(formula, out, processes), compression)


def write_wcnf_instance(path: str, wcnf: Wcnf, header: dict | None = None,
                        compression: Compression = BY_EXTENSION) -> int:
    """Write WCNF 2022+ text to ``path`` as :func:`write_instance` writes DIMACS (compressed
    as ``compression`` says, ``-`` = stdout, atomically); returns the size of the
    uncompressed text."""
    return _save(path, wcnf_head(header), lambda write: stream_wcnf_clauses(wcnf, write),
                 compression=compression)


def write_opb_instance(path: str, opb: Opb, header: dict | None = None,
                       compression: Compression = BY_EXTENSION) -> int:
    """Write OPB text to ``path`` as :func:`write_instance` writes DIMACS (compressed as
    ``compression`` says, ``-`` = stdout, atomically); returns the size of the uncompressed
    text."""
    return _save(path, opb_head(opb, header), lambda write: stream_opb(opb, write),
                 compression=compression)


def _save(path: str, head: bytes, stream, to_file=None,
          compression: Compression = BY_EXTENSION) -> int:
    """``head`` then the text ``stream(write)`` writes, to ``path``: compressed as
    ``compression`` says (:func:`output_compression`; the whole text, compressed once),
    ``-`` (stdout, streamed) or a plain file (atomically, by ``to_file(out)`` when given)."""
    kind = output_compression(path, compression.name)
    if kind is not None:
        text = io.BytesIO()
        text.write(head)
        stream(text.write)
        data = text.getvalue()
        atomic_write(path, compress(data, kind, compression.threads))
        return len(data)
    if path == "-":
        sys.stdout.buffer.write(head)
        size = stream(sys.stdout.buffer.write)
        sys.stdout.buffer.flush()
        return len(head) + size
    with atomic_file(path) as out:
        out.write(head)
        size = to_file(out) if to_file is not None else stream(out.write)
    return len(head) + size


def check_outputs(output: str, witness: str | None, proof: str | None = None) -> None:
    """Before anything is built: ``-o``, ``--witness`` and ``--proof`` are distinct writable
    places (a bad companion path must not leave the instance behind)."""
    check_distinct(("-o", output), ("--witness", witness), ("--proof", proof))
    for option, path in (("--witness", witness), ("--proof", proof)):
        if path:
            check_writable(path, option)
    if output != "-":
        check_writable(output, "-o")


def save_instance(output: str, witness: str | None, build: Callable[[], T],
                  write: Callable[[T, str], object], missing: Callable[[T], str],
                  proof: str | None = None) -> T:
    """``generate``'s files: ``-o``, ``witness`` and ``proof`` checked
    (:func:`check_outputs`) before ``build()`` makes the instance, then
    ``write(instance, output)`` writes it and, with ``witness``, its known solution
    (``instance.witness_json()``) goes there as JSON, with ``proof`` the generator's proof of
    UNSAT: every file asked for or none (a failed or stopped run removes what it wrote). An
    instance with no known solution has no witness to write: a UserError,
    ``missing(instance)``; one with no proof, a UserError saying which instances have one."""
    check_outputs(output, witness, proof)
    inst = build()
    companions: dict[str, bytes] = {}
    if witness:
        solution = inst.witness_json()
        if solution is None:
            raise UserError(missing(inst))
        companions[witness] = (canonical_json(solution) + "\n").encode()
    if proof:
        text = inst.proof()
        if text is None:
            raise UserError(f"{inst.name} has no proof to write: the generator writes one for "
                            f"a parity instance in OPB (--unsat parity --format opb)")
        companions[proof] = text
    written: list[str] = []
    try:
        write(inst, output)
        written += [output] if output != "-" else []
        for path, data in companions.items():
            atomic_write(path, data)
            written.append(path)
    except BaseException:
        for path in written:
            os.unlink(path)  # a file this run just wrote
        raise
    return inst

"""Reading DRAT proofs: text or binary, plain or ``.xz``/``.gz``/``.bz2``, streamed into int32
arrays.

A proof becomes two arrays: ``literals`` (each step's literals, then 0) and ``deletions`` (one
byte per step, 1 for a ``d`` step). They are filled chunk by chunk by two small C state machines
(``reader.c``, text and binary) that carry their state from one chunk to the next, so neither
the file's text nor Python objects per literal are ever held.

Text DRAT: steps of whitespace-separated decimal literals ending in ``0``, a ``d`` first for a
deletion, and ``c`` comment lines. Binary DRAT: a byte ``a`` or ``d`` per step, then each literal
``l`` as the unsigned number ``2*|l| + (l < 0)`` in 7-bit groups, low group first, the high bit
set on all groups but the last, and a 0 byte ending the step. A proof is binary when one of its
first bytes is not one a text proof starts with (drat-trim's test, :func:`is_binary_proof`).

Anything else is a :class:`ProofFormatError` naming the byte offset: a byte no proof of that kind
has (every non-ASCII byte of a text proof, wherever it is), a literal beyond 2**31 - 1, a last
step without its 0 (a truncated proof). An empty proof has no steps. A compressed proof may
expand to at most :data:`MAX_EXPANSION` times its size (plus :data:`EXPANSION_SLACK`): a small
archive of zeros does not fill the memory. Only regular files are read (not ``/dev/zero``, a
FIFO or a folder).
"""

from __future__ import annotations

import ctypes
import io
import os
import time
from dataclasses import dataclass

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.inputs import input_pieces, open_input
from puzzlesat.validate.proof import native
from puzzlesat.validate.proof.database import ClauseDatabase

#: a compressed proof may decompress to this many times its size ...
MAX_EXPANSION = 64
#: ... plus this many bytes (small archives of small proofs compress better)
EXPANSION_SLACK = 64 << 20
#: bytes that do not make drat-trim switch to binary: LF CR space - 0-9 c d
_TEXT_START = frozenset(b"\n\r -0123456789cd")

# parser errors (the kernels return a code and a byte offset), none, or the arrays need room
_BAD_BYTE, _TOO_BIG, _BAD_LITERAL, _OK, _NEED_ROOM = native.constants(
    "reader", "BAD_BYTE", "TOO_BIG", "BAD_LITERAL", "OK", "NEED_ROOM")
_ERRORS = {_BAD_BYTE: "unexpected byte {byte}", _TOO_BIG: "a literal beyond 2**31-1",
           _BAD_LITERAL: "the literal -0"}


class ProofFormatError(Exception):
    """The bytes are no DRAT proof: the reason names the first thing wrong and where."""


@dataclass
class Proof:
    """A parsed proof: ``literals`` holds each step's literals followed by 0, ``deletions`` is
    1 for each ``d`` step; ``binary`` says which syntax it was read in. Read into a
    ``database``, the steps were taken by it as they were read, and ``literals`` is what it
    kept (:class:`puzzlesat.validate.proof.database.ClauseDatabase`)."""

    literals: np.ndarray  # int32
    deletions: np.ndarray  # uint8, one per step
    binary: bool
    database: ClauseDatabase | None = None


def is_binary_proof(head: bytes) -> bool:
    """drat-trim's test on the first 12 bytes: binary when the first or second byte, or one of
    the next ten, is not one of ``LF CR space - 0-9 c d``; after a leading ``"c "`` (a comment)
    letters are allowed in those ten."""
    return _first_binary_byte(head) >= 0


def _first_binary_byte(head: bytes) -> int:
    """Where :func:`is_binary_proof` saw a byte that is not text, or -1."""
    comment = head[:2] == b"c "
    for i, byte in enumerate(head[:12]):
        if byte not in _TEXT_START and (i < 2 or not comment or not 65 <= byte <= 122):
            return i
    return -1


def _describe(byte: int) -> str:
    return f"{byte:#04x}" + (f" {chr(byte)!r}" if 32 <= byte < 127 else "")


# slots of the parser's state array (reader.c's), carried across chunks: the parser's state
# (its mode, ... and whether a step is open), then its counts in the same array (one argument
# less at each call): literals and steps parsed, the chunk (that needs room, or has a bad
# byte) and the offset of a bad byte in it; how many slots
_OPEN, _LITERALS, _STEPS, _CHUNK, _AT, _SLOTS = native.constants(
    "reader", "OPEN", "LITERALS", "STEPS", "CHUNK", "AT", "SLOTS")


# the parser (reader.c): chunks in turn, (the chunks, their sizes, the first to parse, how
# many, binary, state, literals, their room, deletions, their room) -> an error code, or
# _NEED_ROOM before a chunk the arrays may lack room for; the state's counts are read and
# updated
_parse_kernel = native.kernel(
    "reader_parse", native.I64, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(native.I64),
    native.I64, native.I64, native.I64, native.array(np.int64), native.array(np.int32),
    native.I64, native.array(np.uint8), native.I64)
#: the bytes read before they are parsed, in one kernel call (a call through ctypes costs some
#: 25 us, as much as the parse of 16 KB: a file is read in chunks of 64 KB)
_BATCH = 1 << 20


def _chunks(handle, name: str, size: int, deadline: float | None):
    """The decompressed bytes of ``handle`` (decompressed by the project's one streaming
    reader) as bytes objects of at most a megabyte, refused past :data:`MAX_EXPANSION` times
    the file's ``size`` (plus :data:`EXPANSION_SLACK`); a damaged archive is no proof."""
    limit, given = MAX_EXPANSION * size + EXPANSION_SLACK, 0
    try:
        for piece in input_pieces(handle, name):
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError
            given += len(piece)
            if given > limit:
                raise ProofFormatError(
                    f"the proof ({size} bytes) expands beyond {limit} bytes ({MAX_EXPANSION}x "
                    f"its size + {EXPANSION_SLACK >> 20} MB): not read (decompress it yourself "
                    f"if it is a genuine proof)")
            yield piece
    except UserError as exc:  # a damaged or truncated archive: the bytes are no proof
        raise ProofFormatError(str(exc)) from None


def proof_bytes(source: str | os.PathLike | bytes,
                deadline: float | None = None) -> bytes | bytearray:
    """The decompressed bytes of a proof file (or the bytes given), read as :func:`read_proof`
    reads a file: at most :data:`MAX_EXPANSION` times its size (else a
    :class:`ProofFormatError`), a TimeoutError past ``deadline``, a UserError for a file that
    cannot be read. For the LRAT reader, which parses a whole file at once."""
    if isinstance(source, bytes):
        return source
    data = bytearray()  # one buffer, grown chunk by chunk: the bytes are held once
    with open_input(source, "proof") as handle:
        size = os.fstat(handle.fileno()).st_size
        for chunk in _chunks(handle, str(source), size, deadline):
            data += chunk
    return data


def read_proof(source: str | os.PathLike | bytes, deadline: float | None = None,
               database: ClauseDatabase | None = None) -> Proof:
    """Parse a proof file (or the bytes of one); into ``database`` (the checker's), each step
    taken by it once read. A file that cannot be read is a UserError; bytes that are no proof
    are a :class:`ProofFormatError`; past ``deadline`` (a ``time.monotonic()`` value) a
    TimeoutError."""
    if isinstance(source, bytes | bytearray | memoryview):
        return _parse_chunks(_chunks(io.BytesIO(source), "proof", len(source), deadline),
                             database)
    with open_input(source, "proof") as handle:
        size = os.fstat(handle.fileno()).st_size
        return _parse_chunks(_chunks(handle, str(source), size, deadline), database)


def _parse_chunks(chunks, database: ClauseDatabase | None) -> Proof:
    state = np.zeros(_SLOTS, np.int64)
    literals, state[_LITERALS] = ((np.zeros(0, np.int32), 0) if database is None
                                  else database.reading())
    deletions = np.zeros(0, np.uint8)
    offset = 0
    binary = None
    for batch in _batches(chunks):
        if binary is None:
            binary = is_binary_proof(batch[0][:12])
        _parse(batch, binary, state, literals, deletions, offset)
        offset += sum(map(len, batch))
        if database is not None:
            state[_LITERALS] = database.take(literals, deletions, int(state[_LITERALS]),
                                             int(state[_STEPS]))
    if binary is False:  # a newline ends a last number (a text proof's "0" at the very end)
        _parse([b"\n"], binary, state, literals, deletions, offset, final=True)
    if state[_OPEN]:  # a step begun and not ended by 0
        raise ProofFormatError(f"the proof is truncated: its last step has no 0 (at byte {offset})")
    if database is not None:
        state[_LITERALS] = database.take(literals, deletions, int(state[_LITERALS]),
                                         int(state[_STEPS]))
    literals.resize(int(state[_LITERALS]), refcheck=False)  # in place: no second copy
    deletions.resize(int(state[_STEPS]), refcheck=False)
    return Proof(literals, deletions, bool(binary), database)  # no bytes: no steps


def _parse(batch: list[bytes], binary: bool, state: np.ndarray, literals: np.ndarray,
           deletions: np.ndarray, offset: int, final: bool = False) -> None:
    """Parse the chunks ``batch`` (the first at byte ``offset`` of the proof; ``final``: the
    newline after its end), growing ``literals`` and ``deletions`` for them as each chunk was
    given room when it was parsed alone; the first thing wrong is a
    :class:`ProofFormatError`."""
    n = len(batch)
    chunks, sizes = (ctypes.c_char_p * n)(*batch), (native.I64 * n)(*map(len, batch))
    error, first = _NEED_ROOM, 0
    while error == _NEED_ROOM:
        error = _parse_kernel(chunks, sizes, first, n, binary, state, literals, literals.shape[0],
                              deletions, deletions.shape[0])
        if error == _NEED_ROOM:  # the room chunk ``first`` had when it was parsed alone: it
            # adds at most one literal per byte (binary) and one step per two bytes
            first = int(state[_CHUNK])
            native.grow(literals, int(state[_LITERALS]) + sizes[first] + 1)
            native.grow(deletions, int(state[_STEPS]) + sizes[first] // 2 + 2)
    if error == _OK:
        return
    if final:  # the file ends inside a literal ("-")
        raise ProofFormatError(f"the proof is truncated: it ends inside a literal (at byte "
                               f"{offset})")
    chunk, where = batch[int(state[_CHUNK])], int(state[_AT])
    at = offset + sum(map(len, batch[:int(state[_CHUNK])])) + where
    if binary and at == 0:  # neither text nor binary
        seen = _first_binary_byte(chunk[:12])
        raise ProofFormatError(
            f"not a DRAT proof: byte {seen} ({_describe(chunk[seen])}) is no text DRAT, "
            f"and binary DRAT starts with 'a' or 'd', not {_describe(chunk[0])}")
    what = _ERRORS[error].format(byte=_describe(chunk[where]))
    kind = "binary" if binary else "text"
    raise ProofFormatError(f"{kind} proof: {what} at byte {at}")


def _batches(chunks):
    """The chunks in lists of about :data:`_BATCH` bytes. Those read before an error of reading
    (a timeout, a proof that expands too far) are given before it, so that a format error in
    them is found first, as when each chunk was parsed as soon as it was read."""
    batch, size = [], 0
    try:
        for chunk in chunks:
            batch.append(chunk)
            size += len(chunk)
            if size >= _BATCH:
                yield batch
                batch, size = [], 0
    except Exception:
        if batch:
            yield batch
        raise
    if batch:
        yield batch

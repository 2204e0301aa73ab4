"""Reading DRAT proofs: text or binary, plain or ``.xz``/``.gz``/``.bz2``, streamed into int32
arrays.

A proof becomes two arrays: ``literals`` (each step's literals, then 0) and ``deletions`` (one
byte per step, 1 for a ``d`` step). They are filled chunk by chunk by small C state machines
(``reader.c``: :data:`_parse_text`, :data:`_parse_binary`) that carry their state from one chunk
to the next, so neither the file's text nor Python objects per literal are ever held.

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

import io
import os
import time
from dataclasses import dataclass

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.inputs import input_pieces, open_input
from puzzlesat.validate.proof import native

#: the largest literal (DIMACS literals are 32-bit signed integers)
MAX_LITERAL = 2**31 - 1
#: a compressed proof may decompress to this many times its size ...
MAX_EXPANSION = 64
#: ... plus this many bytes (small archives of small proofs compress better)
EXPANSION_SLACK = 64 << 20
#: bytes that do not make drat-trim switch to binary: LF CR space - 0-9 c d
_TEXT_START = frozenset(b"\n\r -0123456789cd")

# parser errors (the kernels return a code and a byte offset)
_OK, _BAD_BYTE, _TOO_BIG, _BAD_LITERAL = 0, 1, 2, 3
_ERRORS = {_BAD_BYTE: "unexpected byte {byte}", _TOO_BIG: "a literal beyond 2**31-1",
           _BAD_LITERAL: "the literal -0"}


class ProofFormatError(Exception):
    """The bytes are no DRAT proof: the reason names the first thing wrong and where."""


@dataclass
class Proof:
    """A parsed proof: ``literals[room:]`` holds each step's literals followed by 0 (the first
    ``room`` slots are left for the formula: the checker builds its clause database in this
    array, without a second copy of a large proof), ``deletions`` is 1 for each ``d`` step;
    ``binary`` says which syntax it was read in; ``given_up`` once a check has taken its
    literals."""

    literals: np.ndarray  # int32
    deletions: np.ndarray  # uint8, one per step
    binary: bool
    room: int = 0
    given_up: bool = False


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


# parser state, carried across chunks: [mode, kind, value, negative, step_open]
# text modes: 0 between tokens, 1 in a number, 2 in a comment, 3 just after 'd', 4 after '-'
# binary modes: 0 expecting 'a'/'d', 1 in a step (value/shift in slots 2/3)
_STATE = 5


# the parsers (reader.c), one chunk at a time: (chunk, its size, state, literals, deletions,
# counts) -> an error code; counts = [literals, steps, offset of the bad byte in the chunk], the
# first two read and updated
_PARSE_ARGUMENTS = (native.array(np.uint8), native.I64, native.array(np.int64),
                    native.array(np.int32), native.array(np.uint8), native.array(np.int64))
_parse_text = native.kernel("reader_parse_text", native.I64, *_PARSE_ARGUMENTS)
_parse_binary = native.kernel("reader_parse_binary", native.I64, *_PARSE_ARGUMENTS)


def _chunks(handle, name: str, size: int, deadline: float | None):
    """The decompressed bytes of ``handle`` (decompressed by the project's one streaming
    reader) as uint8 arrays of at most a megabyte, refused past :data:`MAX_EXPANSION` times
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
            yield np.frombuffer(piece, np.uint8)
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
            data += memoryview(chunk)
    return data


def read_proof(source: str | os.PathLike | bytes, deadline: float | None = None,
               room: int = 0) -> Proof:
    """Parse a proof file (or the bytes of one), leaving ``room`` free slots before its
    literals (the formula's size, for the checker). A file that cannot be read is a UserError;
    bytes that are no proof are a :class:`ProofFormatError`; past ``deadline`` (a
    ``time.monotonic()`` value) a TimeoutError."""
    if isinstance(source, bytes | bytearray | memoryview):
        return _parse_chunks(_chunks(io.BytesIO(source), "proof", len(source), deadline), room)
    with open_input(source, "proof") as handle:
        size = os.fstat(handle.fileno()).st_size
        return _parse_chunks(_chunks(handle, str(source), size, deadline), room)


def _parse_chunks(chunks, room: int) -> Proof:
    state = np.zeros(_STATE, np.int64)
    counts = np.array([room, 0, 0], np.int64)  # literals, steps, where an error is
    literals = np.zeros(room, np.int32)
    deletions = np.zeros(0, np.uint8)
    offset = 0
    binary = None
    for chunk in _with_final_newline(chunks):
        if binary is None:
            if chunk is _NEWLINE:
                break
            binary = is_binary_proof(bytes(chunk[:12]))
        elif chunk is _NEWLINE and binary:
            break
        # a chunk adds at most one literal per byte (binary) and one step per two bytes
        literals = _room(literals, int(counts[0]) + chunk.shape[0] + 1)
        deletions = _room(deletions, int(counts[1]) + chunk.shape[0] // 2 + 2)
        parse = _parse_binary if binary else _parse_text
        error = parse(chunk, chunk.shape[0], state, literals, deletions, counts)
        where = int(counts[2])
        if error and chunk is _NEWLINE:  # the file ends inside a literal ("-")
            raise ProofFormatError(f"the proof is truncated: it ends inside a literal (at byte "
                                   f"{offset})")
        if error and binary and offset + where == 0:  # neither text nor binary
            seen = _first_binary_byte(bytes(chunk[:12]))
            raise ProofFormatError(
                f"not a DRAT proof: byte {seen} ({_describe(int(chunk[seen]))}) is no text DRAT, "
                f"and binary DRAT starts with 'a' or 'd', not {_describe(int(chunk[0]))}")
        if error:
            what = _ERRORS[error].format(byte=_describe(int(chunk[where])))
            kind = "binary" if binary else "text"
            raise ProofFormatError(f"{kind} proof: {what} at byte {offset + where}")
        offset += 0 if chunk is _NEWLINE else chunk.shape[0]
    if state[4]:  # a step begun and not ended by 0
        raise ProofFormatError(f"the proof is truncated: its last step has no 0 (at byte {offset})")
    literals.resize(int(counts[0]), refcheck=False)  # in place: no second copy of a large proof
    deletions.resize(int(counts[1]), refcheck=False)
    return Proof(literals, deletions, bool(binary), room)  # no bytes: no steps


def _with_final_newline(chunks):
    """The chunks, then a newline that ends a last number (a text proof's "0" at the very end
    of the file); a binary parser sees it as garbage only after a step has ended, so it is
    given only to text proofs (see :func:`_parse_chunks`)."""
    yield from chunks
    yield _NEWLINE


_NEWLINE = np.frombuffer(b"\n", np.uint8)


def _room(array: np.ndarray, need: int) -> np.ndarray:
    """``array`` with room for ``need`` items, grown in place by a quarter at least (realloc,
    which moves large blocks by remapping pages rather than copying them)."""
    if array.shape[0] < need:
        array.resize(max(need, array.shape[0] + array.shape[0] // 4), refcheck=False)
    return array

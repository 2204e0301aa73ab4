"""DIMACS text: the metadata header, a fast writer, compression, atomic files, GBD hash, reader.

Writer. Every literal ``l`` in ``[-V, V]`` has a fixed-width row in a byte table holding its
text and a space, padded with NUL bytes; indexing the table with a whole clause block gives
the block's text in one numpy operation, and deleting the NUL bytes (``bytes.translate``)
leaves clean DIMACS: one clause per line, single spaces, ``0`` at the end. Padding zeros of a
ragged block index an all-NUL row and vanish the same way.

Header. Ordered ``c key: value`` lines before the ``p`` line; values of the keys in
:data:`JSON_KEYS` are canonical one-line JSON, the others plain text.

GBD hash (gbdc / gbd-tools): md5 of all literal tokens, clause-ending zeros included, joined
by single spaces, ignoring ``c`` and ``p`` lines — so layout, comments and compression do not
change it.

>>> from puzzlesat.generator.core.cnf import Formula
>>> f = Formula(); x = f.new_vars("x", 3); f.add("c", [[1, -2, 0], [2, 3, 0]])
>>> print(dimacs_bytes(f, {"family": "demo"}).decode(), end="")
c family: demo
p cnf 3 2
1 -2 0
2 3 0
>>> gbd_hash_of_body(clause_bytes(f))
'5c199826eee734c6484e691f3c129214'
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import hashlib
import io
import json
import lzma
import mmap
import os
import pickle
import re
import secrets
import signal
import sys
import threading
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from puzzlesat.generator.core.cnf import ClauseBlock, DeferredBlock, Formula
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.inputs import (  # noqa: F401  (decompress: part of this API)
    MAGIC,
    check_replaceable,
    decompress,
    input_pieces,
    open_input,
    read_input,
    read_stream,
)
from puzzlesat.generator.core.stops import STOPS
from puzzlesat.generator.core.structured import load_json

FORMAT_VERSION = 1

#: Header keys in the order they are written; other keys follow in the order given.
HEADER_ORDER = (
    "puzzlesat-format", "generator", "family", "instance", "encoding", "params", "seed",
    "expected", "expected-from", "puzzle", "reproduce",
)
#: Keys whose values are JSON (everything else is a plain string).
JSON_KEYS = frozenset({"puzzlesat-format", "params", "seed", "puzzle"})

COMPRESSIONS = {".xz": "xz", ".gz": "gz", ".bz2": "bz2"}
_CHUNK_ROWS = 1 << 20


# -- header ---------------------------------------------------------------------------------
def canonical_json(value) -> str:
    """Sorted keys, no spaces, ASCII: the same value always gives the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def header_lines(header: dict) -> list[str]:
    """The ``c`` comment lines of ``header``: known keys in :data:`HEADER_ORDER` first."""
    keys = [k for k in HEADER_ORDER if k in header] + [k for k in header if k not in HEADER_ORDER]
    lines = []
    for key in keys:
        value = header[key]
        text = canonical_json(value) if key in JSON_KEYS else str(value)
        if "\n" in text or "\r" in text:
            raise ValueError(f"header value for {key!r} spans lines")
        lines.append(f"c {key}: {text}")
    return lines


def parse_header(comment_lines: Iterable[str], name: str = "header") -> dict:
    """The ``c key: value`` lines of a header as a dict (other comment lines are ignored)."""
    header: dict = {}
    for line in comment_lines:
        m = re.match(r"^c ([A-Za-z][\w-]*): (.*)$", line.rstrip("\r\n"))
        if not m:
            continue
        key, text = m.groups()
        if key in JSON_KEYS:
            header[key] = load_json(text, f"{name}: header line 'c {key}:'")
        else:
            header[key] = text
    return header


# -- writer ---------------------------------------------------------------------------------
def literal_table(num_vars: int) -> np.ndarray:
    """Row ``l + V`` holds the text of literal ``l`` and a space, NUL-padded; row ``V`` (the
    padding literal 0) is all NUL."""
    width = len(str(num_vars)) + 2  # sign, digits, space
    mags = np.arange(num_vars + 1, dtype=np.int64)
    powers = 10 ** np.arange(width - 2, dtype=np.int64)
    digits = np.searchsorted(powers, mags, side="right")  # of each magnitude (0 has one)
    digits[0] = 1
    # "digits " of every magnitude, left-aligned: column j is the j-th digit from the left
    text = np.zeros((num_vars + 1, width - 1), dtype=np.uint8)
    for j in range(width - 2):
        live = np.flatnonzero(digits > j)
        text[live, j] = ord("0") + mags[live] // powers[digits[live] - 1 - j] % 10
    text[mags, digits] = ord(" ")
    table = np.zeros((2 * num_vars + 1, width), dtype=np.uint8)
    table[num_vars + 1 :, : width - 1] = text[1:]
    table[:num_vars, 0] = ord("-")
    table[:num_vars, 1:] = text[:0:-1]  # magnitudes V down to 1
    return table


_DELETE_NUL = bytes(range(1))


def clause_bytes(formula: Formula) -> bytes:
    """The clause lines of ``formula`` as DIMACS text (no header, no ``p`` line)."""
    out = io.BytesIO()
    stream_clauses(formula, out.write)
    return out.getvalue()


# -- the run writer ----------------------------------------------------------------------------
# Each literal's text and its space fit one 8-byte word while V < 10^6 ("-999999 "). Within a
# block, consecutive units (rows, or the rows of a 3-D block's unit) whose literals have the
# same text lengths form a *run*: every literal of a run sits at the same byte offset of its
# unit's text, so the unit's text is built as whole words by shifting each literal's word
# into place and OR-ing it in, one column of the run at a time (the NUL padding of a word is
# zero, so neighbours do not disturb each other), and each row's "0\n" OR-ed in last. Runs
# are long in generated formulas (text lengths change only at powers of ten). A step of short
# runs (many small blocks of mixed widths, as in flow) is *packed* instead: every literal's
# word and a "0\n" word per row, the NUL padding then deleted (``bytes.translate``). The
# padding literal 0 has no text in either, so a zero inside a clause is skipped as the
# reference writer does.
# From V = 10^6 a literal's text takes two words, and every step is packed.
#
# Speed comes from a few large numpy calls per step, each with a preallocated output: literal
# words are gathered with ``np.take(..., mode="clip")`` on int64 offsets (several times faster
# than fancy indexing with the int32 literals, which converts and bounds-checks every index;
# the bounds are checked once per block instead), the first write to a word assigns it, and a
# unit whose text is a whole number of words is built in place in the output buffer.
_STEP_WORDS = 1 << 16  # literal words per step: few steps (Python works per step), arrays in L2
_STAGE_BYTES = 1 << 20  # text handed to write() at a time
_SHIFT = [np.uint64(8 * r) for r in range(9)]
_RUN_LITERALS = 1000  # a run costs about as much as packing this many literals
_ROW_END = np.uint64(ord("0") | ord("\n") << 8)


def word_table(num_vars: int) -> tuple[np.ndarray, np.ndarray]:
    """(words, lengths): ``words[l + V]`` is the text of literal ``l`` and a space as
    little-endian uint64 words padded with NUL bytes -- one word (shape (2V+1,)) while V <
    10^6 ("-999999 "), else two (shape (2V+1, 2)) -- and ``lengths[l + V]`` its byte count,
    for ``-V <= l <= V``; the padding literal 0 is empty."""
    table = literal_table(num_vars)
    words = -(-table.shape[1] // 8)
    padded = np.zeros((table.shape[0], 8 * words), dtype=np.uint8)
    padded[:, : table.shape[1]] = table
    lengths = np.count_nonzero(padded, axis=1).astype(np.uint8)
    padded = padded.view(np.uint64)
    return (padded.reshape(-1) if words == 1 else padded), lengths


class _Stage:
    """Text on its way to ``write``: one reused buffer, handed over in pieces of about
    :data:`_STAGE_BYTES` (the whole text is never held, and the buffer's pages stay mapped)."""

    def __init__(self, write) -> None:
        self.write = write
        self.buffer = np.empty(_STAGE_BYTES, dtype=np.uint8)
        self.used = 0
        self.total = 0

    def take(self, nbytes: int) -> np.ndarray:
        """The next ``nbytes`` of the text, to be filled by the caller."""
        if self.used + nbytes > self.buffer.size:
            self.flush()
            if nbytes > self.buffer.size:  # one unit wider than the buffer
                self.buffer = np.empty(nbytes, dtype=np.uint8)
        view = self.buffer[self.used : self.used + nbytes]
        self.used += nbytes
        self.total += nbytes
        return view

    def put(self, text: bytes) -> None:
        self.take(len(text))[:] = np.frombuffer(text, dtype=np.uint8)

    def flush(self) -> None:
        if self.used:
            self.write(self.buffer[: self.used].data)
            self.used = 0


class _RunWriter:
    """The run writer for one formula: its word table, layouts and scratch arrays."""

    def __init__(self, num_vars: int, stage: _Stage):
        self.num_vars = num_vars
        self.stage = stage
        self.words, self.lengths = word_table(num_vars)
        self.per_literal = 1 if self.words.ndim == 1 else self.words.shape[1]  # words
        self.layouts: dict = {}  # (rows, width, literal lengths) -> _layout(...)
        self.scratch: dict = {}

    def _array(self, name: str, size: int, dtype) -> np.ndarray:
        array = self.scratch.get(name)
        if array is None or array.size < size:
            array = self.scratch[name] = np.empty(max(size, _STEP_WORDS), dtype=dtype)
        return array[:size]

    def write_blocks(self, blocks) -> int:
        """Format ``blocks`` and hand all their text to the stage; returns its size so far."""
        for block in blocks:
            self.block(block)
        self.stage.flush()
        return self.stage.total

    def text_length(self, blocks) -> int:
        """See :func:`text_length`."""
        # indexed by the literal itself: numpy's take counts a negative index from the end
        by_literal = np.concatenate([self.lengths[self.num_vars :], self.lengths[: self.num_vars]])
        total = 0
        for block in blocks:
            lits = block.literals
            flat = lits.reshape(-1)
            for start in range(0, flat.size, _CHUNK_ROWS):
                part = np.take(by_literal, flat[start : start + _CHUNK_ROWS])
                total += int(part.sum(dtype=np.int64))
            total += 2 * lits.shape[0] if lits.shape[1] else 0
        return total

    def block(self, block: ClauseBlock | DeferredBlock) -> None:
        lits = block.literals
        rows, width = lits.shape
        if rows == 0 or width == 0:
            return
        low, high = int(lits.min()), int(lits.max())
        if high > self.num_vars or low < -self.num_vars:
            raise ValueError(f"clause block {block.name!r} has a literal beyond {self.num_vars}")
        g = block.unit if rows % block.unit == 0 else 1
        index = lits.reshape(rows // g, g * width)
        units, n = index.shape
        step = max(1, _STEP_WORDS // n)
        for a in range(0, units, step):
            self.step(index[a : a + step], g, width)

    def step(self, index: np.ndarray, g: int, width: int) -> None:
        m, n = index.shape
        offsets = np.add(index, self.num_vars, dtype=np.int64,
                         out=self._array("offsets", m * n, np.int64).reshape(m, n))
        if self.per_literal > 1:  # texts longer than a word: packed
            shape = (m, n, self.per_literal)
            words = np.take(self.words, offsets, axis=0, mode="clip",
                            out=self._array("words", m * n * shape[2], np.uint64).reshape(shape))
            self.packed(words, g, width)
            return
        lens = np.take(self.lengths, offsets, mode="clip",
                       out=self._array("lens", m * n, np.uint8).reshape(m, n))
        bounds = [0, m]
        if m > 1:
            if n in (1, 2, 4, 8):  # compare each unit's lengths as one integer
                key = lens.view(f"u{n}").reshape(-1)
                change = np.flatnonzero(key[1:] != key[:-1]) + 1
            else:
                change = np.flatnonzero((lens[1:] != lens[:-1]).any(axis=1)) + 1
            bounds = [0, *change.tolist(), m]
        # numpy's stubs match no take() overload for an out= reshaped to a 2-D shape type
        words = np.take(self.words, offsets, mode="clip",  # type: ignore[call-overload]
                        out=self._array("words", m * n, np.uint64).reshape(m, n))
        if (len(bounds) - 1) * _RUN_LITERALS > m * n:
            self.packed(words, g, width)
            return
        for first, end in zip(bounds[:-1], bounds[1:]):
            signature = lens[first]
            layout_key = (g, width, signature.tobytes())
            layout = self.layouts.get(layout_key)
            if layout is None:
                layout = self.layouts[layout_key] = _layout(signature.reshape(g, width))
            self.run(words[first:end], layout)

    def packed(self, words: np.ndarray, g: int, width: int) -> None:
        """The text of a step whose runs are short: each literal's word(s) and a "0\n" word
        after each row, with the NUL padding deleted (the text has no NUL byte). Its cost per
        literal is higher than a run's, but it has none per run."""
        m, k = words.shape[0], self.per_literal
        count = m * g * (width + 1) * k
        items = self._array("items", count, np.uint64).reshape(m, g, width + 1, k)
        items[..., :width, :] = words.reshape(m, g, width, k)
        items[..., width, :] = 0
        items[..., width, 0] = _ROW_END
        self.stage.put(items.tobytes().translate(None, _DELETE_NUL))

    def run(self, words: np.ndarray, layout: _Layout) -> None:
        size, preset = layout.size, layout.preset
        m, nw = words.shape[0], preset.size
        out = self.stage.take(m * size)
        if size % 8 == 0:  # whole words: built in place
            text = out.view(np.uint64).reshape(m, nw)
        else:
            text = self._array("text", m * nw, np.uint64).reshape(m, nw)
        if layout.ops is not None and layout.marks is not None:  # a narrow unit
            part = self._array("part", m, np.uint64)
            for column, word, shift, amount, first in layout.ops:
                source, target = words[:, column], text[:, word]
                if first:  # the word's first literal: written, not OR-ed into a preset
                    if shift is None:
                        np.copyto(target, source)
                    else:
                        shift(source, amount, out=target)
                elif shift is None:
                    np.bitwise_or(target, source, out=target)
                else:
                    shift(source, amount, out=part)
                    np.bitwise_or(target, part, out=target)
            for word, value, touched in layout.marks:  # the rows' "0\n"
                if touched:
                    np.bitwise_or(text[:, word], value, out=text[:, word])
                else:
                    text[:, word] = value
        else:
            assert layout.groups is not None  # a wide unit
            text[:] = preset
            for columns, at, up, spill, spill_at, down in layout.groups:
                part = words[:, columns]
                text[:, at] |= part if up is None else part << up
                if spill.size:
                    text[:, spill_at] |= words[:, spill] >> down
        if size % 8:
            out.reshape(m, size)[:] = text.view(np.uint8)[:, :size]


class _Layout(NamedTuple):
    """How the text of a unit is built from its literals' words (see :func:`_layout`)."""

    size: int  # text bytes of the unit
    preset: np.ndarray  # the unit's words holding only every row's "0\n"
    ops: list | None  # narrow unit: (column, word, shift, amount, first write to the word)
    marks: list | None  # narrow unit: (word, preset value, a literal also writes the word)
    groups: list | None  # wide unit: one entry per byte offset within a word


def _layout(lens: np.ndarray) -> _Layout:
    """The layout of a unit whose literal lengths are ``lens`` (rows, width). A narrow unit
    places each literal with one or two shifts into its word(s), the first write to a word
    assigning it; a wide one groups its literals by byte offset r within a word: (columns,
    their words, shift up, columns and words their text spills into, shift down) — literals
    with the same r start in different words, so one vectorised OR places them all."""
    g, width = lens.shape
    count = np.zeros((g, width + 1), dtype=np.int64)
    count[:, :width] = lens
    count[:, width] = 2
    offset = (np.cumsum(count) - count.reshape(-1)).reshape(g, width + 1)
    size = int(count.sum())
    preset = np.zeros(-(-size // 8), dtype=np.uint64)
    text = preset.view(np.uint8)
    ends = offset[:, width]
    text[ends] = ord("0")
    text[ends + 1] = ord("\n")
    at, length = offset[:, :width].reshape(-1), lens.reshape(-1).astype(np.int64)
    if np.count_nonzero(length) <= _NARROW:  # one or two calls per literal, on column views
        ops, written = [], set()
        for c in np.flatnonzero(length).tolist():
            word, r = divmod(int(at[c]), 8)
            places: list[tuple[int, Any, Any]] = [(word, np.left_shift if r else None,
                                                   _SHIFT[r])]
            if r + length[c] > 8:  # the text runs on into the next word
                places.append((word + 1, np.right_shift, _SHIFT[8 - r]))
            for w, shift, amount in places:
                ops.append((c, w, shift, amount, w not in written))
                written.add(w)
        marks = [(w, preset[w], w in written) for w in range(preset.size)
                 if preset[w] or w not in written]
        return _Layout(size, preset, ops, marks, None)
    groups = []
    for r in range(8):
        columns = np.flatnonzero((length > 0) & (at % 8 == r))
        if columns.size:
            spill = columns[r + length[columns] > 8]
            groups.append((columns, at[columns] // 8, _SHIFT[r] if r else None, spill,
                           at[spill] // 8 + 1, _SHIFT[8 - r]))
    return _Layout(size, preset, None, None, groups)


_NARROW = 8  # units with at most this many literals take one OR per literal


def stream_clauses(formula: Formula, write) -> int:
    """Call ``write`` with the clause lines of ``formula`` in order, in pieces of about 1 MB
    from one reused buffer; returns the number of bytes."""
    return _stream_blocks(formula.blocks, formula.num_vars, write)


def _stream_blocks(blocks, num_vars: int, write) -> int:
    return _RunWriter(num_vars, _Stage(write)).write_blocks(blocks)


def text_length(blocks, num_vars: int) -> int:
    """The number of bytes :func:`stream_clauses` gives for ``blocks``, counted from the text
    lengths of their literals without making the text (a fifth to a third of the work)."""
    return _RunWriter(num_vars, _Stage(None)).text_length(blocks)


def numpy_clause_bytes(blocks, table: np.ndarray) -> bytes:
    """The reference writer (the definition the run writer is tested against):
    rows of the fixed-width literal ``table`` for every slot of a block, then the NUL padding
    deleted."""
    num_vars = (table.shape[0] - 1) // 2
    width = table.shape[1]
    # One opaque item per literal: fancy indexing copies whole rows in one step (much faster
    # than indexing a 2-D uint8 table).
    items = table.view(f"V{width}").ravel()
    out = []
    for block in blocks:
        lits = block.literals
        for start in range(0, lits.shape[0], _CHUNK_ROWS):
            chunk = lits[start : start + _CHUNK_ROWS]
            rows, cols = chunk.shape
            if chunk.size and np.abs(chunk).max() > num_vars:
                raise ValueError(f"clause block {block.name!r} has a literal beyond {num_vars}")
            text = np.empty((rows, cols * width + 2), dtype=np.uint8)
            text[:, : cols * width].view(f"V{width}")[:] = items[chunk.astype(np.int64) + num_vars]
            text[:, -2] = ord("0")
            text[:, -1] = ord("\n")
            out.append(text.tobytes().translate(None, _DELETE_NUL))
    return b"".join(out)



def dimacs_head(formula: Formula, header: dict | None = None) -> bytes:
    """The header lines and the ``p cnf`` line."""
    head = "".join(line + "\n" for line in header_lines(header or {}))
    head += f"p cnf {formula.num_vars} {formula.num_clauses}\n"
    return head.encode("ascii")


def dimacs_bytes(formula: Formula, header: dict | None = None, body: bytes | None = None) -> bytes:
    """Header, ``p cnf`` line and clauses. Pass ``body`` if :func:`clause_bytes` was already
    computed (publishing hashes the body too)."""
    if body is None:
        body = clause_bytes(formula)
    return dimacs_head(formula, header) + body


# -- hashing ----------------------------------------------------------------------------------
_NEWLINE_TO_SPACE = bytes.maketrans(b"\n", b" ")


def gbd_hash_of_body(body: bytes) -> str:
    """GBD hash of clause text in this module's layout (one clause per line, single spaces)."""
    return hashlib.md5(body.translate(_NEWLINE_TO_SPACE).rstrip(b" ")).hexdigest()


def gbd_hash_of_literals(flat: np.ndarray) -> str:
    """GBD hash of a flat literal array (each clause followed by its 0), as the reader gives."""
    num_vars = int(np.abs(flat).max()) if flat.size else 0
    table = literal_table(num_vars)
    table[num_vars, 0] = ord("0")  # here 0 is a token (clause end), not padding
    table[num_vars, 1] = ord(" ")
    text = table[flat.astype(np.int64) + num_vars].tobytes().translate(None, _DELETE_NUL)
    return hashlib.md5(text.rstrip(b" ")).hexdigest()


# -- files ----------------------------------------------------------------------------------
def compression_of(path: str | os.PathLike) -> str | None:
    """``"xz"``, ``"gz"``, ``"bz2"`` or None, by file extension."""
    return COMPRESSIONS.get(Path(path).suffix.lower())


def compress(data: bytes, kind: str | None) -> bytes:
    """Deterministic compression: xz = lzma preset 6 (byte-identical to ``xz -6 -T1``),
    gzip level 9 with mtime 0 and no file name, bzip2 level 9."""
    if kind is None:
        return data
    if kind == "xz":
        return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=6)
    if kind == "gz":
        return gzip.compress(data, compresslevel=9, mtime=0)
    if kind == "bz2":
        return bz2.compress(data, compresslevel=9)
    raise ValueError(f"unknown compression {kind!r}")


def current_umask() -> int:
    """The process umask, read without changing it (``/proc``), else by setting and restoring
    it (not thread-safe, so only where ``/proc`` is missing)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_writable(path: str | os.PathLike, what: str = "output") -> None:
    """A UserError unless :func:`atomic_write` can create ``path`` (its folder exists and is
    writable, and the path is new or a regular file): checked before other files are
    written."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    check_replaceable(path, what)
    if not folder.is_dir():
        raise UserError(f"cannot write {what} {path}: no such folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserError(f"cannot write {what} {path}: folder {folder} is not writable")


def _writeback_starter():
    """Linux's ``sync_file_range(fd, offset, nbytes, SYNC_FILE_RANGE_WRITE)``: start writing a
    range of a file to disk and return at once. None where it is missing."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # already loaded by numpy

    try:
        call = ctypes.CDLL(None, use_errno=True).sync_file_range
    except (OSError, AttributeError):
        return None
    call.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
    call.restype = ctypes.c_int
    # 2 = SYNC_FILE_RANGE_WRITE; the result is ignored: a hint that fails changes nothing
    return lambda fd, offset, nbytes: call(fd, offset, nbytes, 2)


_start_writeback = _writeback_starter()
_WRITEBACK_BYTES = 8 << 20


class FileWriter:
    """Writes a file from byte ``position`` on (``pwrite``, so two processes may write parts of
    one file). The disk is told to start on each further 8 MB as soon as it is written, so it
    works while the text is being made and the closing fsync waits only for the last few MB
    (for the Eternity II board, about 40 ms less); the fsync still decides what is durable."""

    def __init__(self, fd: int, position: int = 0) -> None:
        self.fd = fd
        self.position = position
        self.started = position  # where the disk has not yet been told to start

    def write(self, data) -> int:
        """Write all of ``data`` to the file descriptor; the number of bytes written."""
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            done += self._write_at(view[done:], self.position + done)
        self.position += done
        if _start_writeback is not None and self.position - self.started >= _WRITEBACK_BYTES:
            _start_writeback(self.fd, self.started, self.position - self.started)
            self.started = self.position
        return done

    def _write_at(self, data, offset: int) -> int:
        if hasattr(os, "pwrite"):
            return os.pwrite(self.fd, data, offset)
        os.lseek(self.fd, offset, os.SEEK_SET)  # Windows has no pwrite (nor two processes)
        return os.write(self.fd, data)


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike):
    """A binary file that appears at ``path`` complete or not at all: written to a temporary
    file in the same folder, flushed to disk, then renamed (a reader, or an interrupted run,
    never sees a partial file), as a :class:`FileWriter`."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    check_replaceable(path, "output")
    tmp = None
    try:
        fd = None
        while fd is None:
            # named before it is made (not mkstemp): a stop signal that lands right after
            # the file appears still finds it here to remove
            tmp = folder / f".{path.name}.{secrets.token_hex(6)}.part"
            try:
                fd = os.open(tmp, _CREATE, 0o600)
            except FileExistsError:  # someone else's: never removed
                tmp = None
        try:
            os.fchmod(fd, 0o666 & ~current_umask())  # 0600 while written; published files are shared
            yield FileWriter(fd)
            os.fsync(fd)
        finally:
            os.close(fd)
        assert tmp is not None  # the loop ends only once it has made tmp
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(exc, OSError):
            raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise


_CREATE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
           | getattr(os, "O_BINARY", 0))


def atomic_write(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_file`)."""
    with atomic_file(path) as fh:
        fh.write(data)


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


# Two processes write a big formula's text faster than one: the first part's text is made and
# written by this process, the rest by a forked child at the place the first part will end,
# which it computes from literal lengths alone (see text_length). Same bytes as one process.
_SPLIT_LITERALS = 1 << 22  # smaller formulas: forking costs more than it saves
_FIRST_SHARE = 0.57  # of the literals, written here: the child also counts the first part


def write_clauses(formula: Formula, out: FileWriter, processes: int | None = None) -> int:
    """Write the clause text of ``formula`` to ``out`` at its position; returns its size.
    ``processes`` (1 or 2) overrides the choice: two for a big formula where fork is safe (Linux,
    one thread, two CPUs or more); one in any thread but the main one."""
    if processes is None:
        processes = 2 if _two_processes_pay(formula) else 1
    if processes == 1 or not formula.blocks or threading.current_thread() is not \
            threading.main_thread():  # only the main thread may set signal handlers
        return stream_clauses(formula, out.write)
    return _write_in_two_processes(formula, out)


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


def _write_in_two_processes(formula: Formula, out: FileWriter) -> int:
    first, rest = _cut(formula.blocks, _FIRST_SHARE)
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
            size = _stream_blocks(first, formula.num_vars, out.write)
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
            writer = _RunWriter(num_vars, _Stage(file.write))  # one literal table for both
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


# -- reader ---------------------------------------------------------------------------------
def read_bytes(path: str | os.PathLike, limit: int | None = None, what: str = "input") -> bytes:
    """A regular file's bytes (``-``: stdin), decompressed, at most ``limit`` of them when
    given (:func:`puzzlesat.generator.core.inputs.read_input`)."""
    return read_input(path, sys.maxsize if limit is None else limit, what)


@dataclass
class Dimacs:
    """A parsed instance: header, declared counts and the clauses as one flat literal array
    (each clause followed by 0)."""

    header: dict
    num_vars: int
    num_clauses: int
    literals: np.ndarray
    comments: list[str] = field(default_factory=list)

    @property
    def clause_ends(self) -> np.ndarray:
        """The index of each clause's terminating 0 in ``literals``."""
        return np.flatnonzero(self.literals == 0)

    def clauses(self) -> list[list[int]]:
        """Clauses as lists (reference path)."""
        out: list[list[int]] = []
        cur: list[int] = []
        for lit in self.literals.tolist():
            if lit == 0:
                out.append(cur)
                cur = []
            else:
                cur.append(lit)
        return out

    def formula(self) -> Formula:
        """The clauses as a Formula with one ragged block (for writing or hashing)."""
        ends = self.clause_ends
        lengths = np.diff(np.concatenate([[-1], ends])) - 1
        block = np.zeros((ends.size, int(lengths.max()) if lengths.size else 0), dtype=np.int32)
        row = np.repeat(np.arange(ends.size), lengths)
        col = np.arange(row.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        block[row, col] = self.literals[self.literals != 0]
        f = Formula()
        f.num_vars = self.num_vars
        f.add("clauses", block)
        return f

    @property
    def gbd_hash(self) -> str:
        """The GBD hash of the clauses (the header is not hashed)."""
        return gbd_hash_of_literals(self.literals)


_COMMENT_LINE = re.compile(rb"^[ \t]*c[^\n]*\n?", re.M)
_P_LINE = re.compile(rb"^[ \t]*p[ \t]+cnf[ \t]+(\S+)[ \t]+(\S+)[ \t]*\r?$", re.M)
_ALLOWED = b"0123456789- \t\r\n"


def parse_dimacs(text: bytes, name: str = "input") -> Dimacs:
    """Parse DIMACS CNF text, tolerant of every legal layout (several clauses on a line, a
    clause over several lines, comments anywhere, a ``%`` end marker) and strict about errors
    (missing or bad ``p`` line, counts that do not match, literal beyond V, missing final 0,
    stray characters). Errors are :class:`UserError` naming the file and what is wrong."""
    p = _P_LINE.search(text)  # found near the top, so this scans only the header
    if not p:
        if re.search(rb"^[ \t]*[pP]", text, re.M):
            raise UserError(f"{name}: malformed 'p cnf' line")
        raise UserError(f"{name}: no 'p cnf' line")
    head = text[: p.start()]
    comments = [line.strip().decode("utf-8", "replace") for line in head.splitlines()]
    if any(line and not line.startswith("c") for line in comments):
        raise UserError(f"{name}: clauses before the 'p cnf' line")
    comments = [line for line in comments if line]
    # Clause text holds only digits, '-' and white space, so a scan for 'c' or '%' (in C)
    # tells whether the slower line-wise regular expressions are needed at all; without them
    # the clauses are read in place (a memoryview), never copied.
    body = p.end()
    clauses: memoryview | bytes = memoryview(text)[body:]
    if text.find(b"c", body) >= 0:
        clauses = bytes(clauses)
        comments += [m.group(0).decode("utf-8", "replace").strip()
                     for m in _COMMENT_LINE.finditer(clauses)]
        clauses = _COMMENT_LINE.sub(b"", clauses)
    if text.find(b"%", body) >= 0:
        clauses = bytes(clauses)
        end_marker = re.search(rb"^[ \t]*%", clauses, re.M)
        if end_marker:
            clauses = clauses[: end_marker.start()]
    try:
        num_vars, num_clauses = int(p.group(1)), int(p.group(2))
    except ValueError:
        raise UserError(f"{name}: malformed 'p cnf' line") from None
    if num_vars < 0 or num_clauses < 0:
        raise UserError(f"{name}: negative count in 'p cnf' line")
    if num_vars >= 2**31:
        raise UserError(f"{name}: {num_vars} variables is beyond DIMACS's 2^31-1")
    if isinstance(clauses, memoryview):  # scan the whole text, count what the head holds
        if text.find(b"p", body) >= 0:
            raise UserError(f"{name}: more than one 'p cnf' line")
        stray = _stray_bytes(clauses)
    else:
        if b"p" in clauses:
            raise UserError(f"{name}: more than one 'p cnf' line")
        stray = clauses.translate(None, _ALLOWED)
    if stray:
        ch = chr(stray[0]) if 32 <= stray[0] < 127 else f"\\x{stray[0]:02x}"
        raise UserError(f"{name}: unexpected character {ch!r} in the clauses")
    literals = parse_literals(clauses, name)
    if literals.size and literals[-1] != 0:
        raise UserError(f"{name}: the last clause does not end with 0")
    found = int(np.count_nonzero(literals == 0))
    if found != num_clauses:
        raise UserError(f"{name}: the p line declares {num_clauses} clauses, found {found}")
    if literals.size:
        worst = int(np.abs(literals).max())
        if worst > num_vars:
            raise UserError(f"{name}: literal {worst} is beyond the declared {num_vars} variables")
    return Dimacs(parse_header(comments, name), num_vars, num_clauses, literals, comments)


_MALFORMED_MINUS = "malformed literal (a '-' must start a number 1-9...)"
#: words whose top k bytes are 0x0F (a digit's value bits), k = 0..8
_TOP_DIGITS = np.array([0x0F0F0F0F0F0F0F0F ^ ((1 << (64 - 8 * k)) - 1) & 0x0F0F0F0F0F0F0F0F
                        if k else 0 for k in range(9)], dtype=np.uint64)
_U = np.uint64
#: (factor, shift, mask) steps that turn 8 digit values (one per byte) into their number
_SWAR = ((_U(2561), _U(8), _U(0x00FF00FF00FF00FF)), (_U(6553601), _U(16), _U(0x0000FFFF0000FFFF)),
         (_U(42949672960001), _U(32), None))
_PARSE_CHUNK = 1 << 17  # bytes per step: few numpy calls per MB, temporaries in cache


def parse_literals(data, name: str) -> np.ndarray:
    """The integers (int32) of clause text that holds only digits, '-' and white space
    (checked by the caller), with every '-' after white space (or at the start) and before a
    digit 1-9.

    Vectorised, a step of about 32 kB at a time cut at white space: token ends and starts
    from the digit mask, the 8 bytes that end at each token read as one little-endian word,
    the bytes before the token masked off and the eight digits combined pairwise (SWAR: 10,
    100, 10^4). A text with a token of 9 digits or more goes to :func:`parse_integers` (the
    reference, with :func:`minus_signs_ok`)."""
    a = np.frombuffer(data, dtype=np.uint8)
    if a.size < 8:  # room for the word of the first token
        a = np.concatenate([np.full(8, ord(" "), dtype=np.uint8), a])
    words = np.ndarray((a.size - 7,), dtype=np.uint64, buffer=a, strides=(1,))
    # at most one token per two bytes; pages of the unused tail are never touched
    out = np.empty(a.size // 2 + 1, dtype=np.int32)
    count = start = negatives = minus_signs = 0
    masks = np.empty((2, min(a.size, _PARSE_CHUNK + 65)), dtype=np.bool_)  # reused every step
    while start < a.size:
        end = min(a.size, start + _PARSE_CHUNK)
        if end < a.size:  # move the cut to the next white space
            space = np.flatnonzero(a[end : end + 64] <= ord(" "))
            if not space.size:
                space = np.flatnonzero(a[end:] <= ord(" "))
            end = end + int(space[0]) if space.size else a.size
        if masks.shape[1] <= end - start:  # a step cut far from its target (a long token)
            masks = np.empty((2, end - start + 1), dtype=np.bool_)
        step = _parse_step(a, words, start, end, name, masks)
        if step is None:
            return _parse_reference(bytes(data), name).astype(np.int32)
        value, minus = step
        minus_signs += int(np.count_nonzero(np.equal(a[start:end], ord("-"),
                                                     out=masks[0, : end - start])))
        out[count : count + value.size] = value
        count += value.size
        negatives += minus
        start = end
    if negatives != minus_signs:  # a '-' that starts no number
        raise UserError(f"{name}: {_MALFORMED_MINUS}")
    return out[:count]


def _parse_step(a: np.ndarray, words: np.ndarray, start: int, end: int, name: str,
                masks: np.ndarray):
    """(values, count of '-' signs) of the tokens in ``a[start:end]`` (which starts with white
    space unless it is the text's start), or None for a token too long for a word. ``masks``:
    two reusable boolean rows of at least ``end - start``."""
    # the white space byte after the step (where it was cut) ends its last token
    stop = min(end + 1, a.size)
    n = stop - start
    digit = np.greater_equal(a[start:stop], ord("0"), out=masks[0, :n])  # others are below '0'
    # digit/non-digit changes alternate: a token's start, then its end (one scan for both)
    change = np.flatnonzero(np.not_equal(digit[1:], digit[:-1], out=masks[1, : max(n - 1, 0)]))
    change += start
    if digit.size and digit[0]:  # only at the text's start
        change = np.insert(change, 0, start - 1)
    if digit.size and digit[-1]:  # only at the text's end
        change = np.append(change, stop - 1)
    starts = change[0::2] + 1
    ends = change[1::2]
    if not ends.size:
        return np.zeros(0, dtype=np.int32), 0
    length = ends - starts
    length += 1
    if int(length.max()) > 8:
        return None
    if ends[0] < 7:  # the text's first tokens: shift their bytes to the top of the word
        word = words[np.maximum(ends - 7, 0)]
        early = np.flatnonzero(ends < 7)
        word[early] <<= (8 * (7 - ends[early])).astype(np.uint64)
    else:
        word = words[ends - 7]
    word &= np.take(_TOP_DIGITS, length)
    for factor, shift, mask in _SWAR:  # in place: no temporaries
        np.multiply(word, factor, out=word)
        np.right_shift(word, shift, out=word)
        if mask is not None:
            np.bitwise_and(word, mask, out=word)
    value = word.astype(np.int32)
    # a '-' right before a token, after white space (or the text's start), before a digit 1-9
    before = starts - 1
    if before[0] < 0:
        before[0] = 0
    negative = a[before] == ord("-")
    if starts[0] == 0:
        negative[0] = False
    minus = np.flatnonzero(negative)
    if minus.size:
        at = starts[minus]
        ahead = a[np.maximum(at - 2, 0)]
        ok = ((ahead < ord("-")) | (at == 1)) & (a[at] != ord("0"))
        if not ok.all():
            raise UserError(f"{name}: {_MALFORMED_MINUS}")
        value[minus] = -value[minus]
    return value, minus.size


def _parse_reference(text: bytes, name: str) -> np.ndarray:
    if b"-" in text and not minus_signs_ok(text):
        raise UserError(f"{name}: {_MALFORMED_MINUS}")
    return parse_integers(text, name)


def minus_signs_ok(text: bytes) -> bool:
    """Every '-' stands after white space (or at the start) and before a digit 1-9."""
    a = np.frombuffer(text, np.uint8)
    at = np.flatnonzero(a == ord("-"))
    after = a[np.minimum(at + 1, a.size - 1)]
    before = a[np.maximum(at - 1, 0)]
    ok_after = (at + 1 < a.size) & (after >= ord("1")) & (after <= ord("9"))
    ok_before = (at == 0) | np.isin(before, np.frombuffer(b" \t\r\n", np.uint8))
    return bool((ok_after & ok_before).all())


#: the largest literal magnitude (DIMACS literals are signed 32-bit in every solver we know)
MAX_LITERAL = 2**31 - 1
_TOO_LARGE = "literal too large for DIMACS (|l| >= 2^31)"


def parse_integers(text: bytes, name: str) -> np.ndarray:
    """Whitespace-separated integers (already checked for stray characters), each within
    +-:data:`MAX_LITERAL`, else a UserError. numpy's reader saturates past int64 (and
    ``-2^63`` passes ``abs``), so a token with more than 10 significant digits is refused
    before any value is looked at, and the rest are compared with both bounds."""
    if not text.strip():
        return np.zeros(0, dtype=np.int64)
    values = np.fromstring(text.decode("ascii"), dtype=np.int64, sep=" ")
    a = np.frombuffer(text, np.uint8)
    digit = (a >= ord("0")) & (a <= ord("9"))
    starts = np.flatnonzero(digit[1:] & ~digit[:-1]) + 1
    if digit[0]:
        starts = np.concatenate([[0], starts])
    if values.size != starts.size:  # numpy stops quietly at what it cannot read
        raise UserError(f"{name}: could not read every literal (number too large?)")
    ends = np.flatnonzero(digit[:-1] & ~digit[1:])  # each token's last digit
    if digit[-1]:
        ends = np.append(ends, a.size - 1)
    # digits from each token's first nonzero one (a.size: the token is all zeros)
    nonzero = np.append(np.flatnonzero(digit & (a != ord("0"))), a.size)
    first = nonzero[np.searchsorted(nonzero, starts)]
    if (first + 10 <= ends).any():  # 11 significant digits or more
        raise UserError(f"{name}: {_TOO_LARGE}")
    if values.size and ((values > MAX_LITERAL) | (values < -MAX_LITERAL)).any():
        raise UserError(f"{name}: {_TOO_LARGE}")
    return values


_INTEGER_TOKEN = re.compile(r"-[1-9][0-9]*|[0-9]+")


def integers_reference(text: bytes, name: str) -> list[int]:
    """The definition :func:`parse_literals` and :func:`parse_integers` are tested against,
    in plain Python: whitespace-separated tokens, each digits with an optional '-' before a
    digit 1-9, within +-:data:`MAX_LITERAL`."""
    tokens = text.decode("ascii").split()
    if not all(_INTEGER_TOKEN.fullmatch(token) for token in tokens):
        raise UserError(f"{name}: {_MALFORMED_MINUS}")
    values = [int(token) for token in tokens]
    if any(abs(value) > MAX_LITERAL for value in values):
        raise UserError(f"{name}: {_TOO_LARGE}")
    return values


def _stray_bytes(clauses: memoryview) -> bytes:
    """The bytes of ``clauses`` other than digits, '-' and white space, in order (read in
    1 MB pieces, so a mapped file is never copied whole)."""
    step = 1 << 20
    for start in range(0, len(clauses), step):
        stray = bytes(clauses[start : start + step]).translate(None, _ALLOWED)
        if stray:
            return stray
    return b""


#: bytes of comments (the header, and ``c`` lines among the clauses) an instance may hold
#: beyond what its p line allows for clauses
MAX_COMMENT_BYTES = 64 << 20


def cnf_text_bound(num_vars: int, num_clauses: int) -> int:
    """The most bytes a DIMACS text with this p line can hold: every clause at most V distinct
    literals of ``len(str(V)) + 2`` bytes and its ``0``, twice over for layout (CRLF, runs of
    white space), plus :data:`MAX_COMMENT_BYTES`."""
    per_clause = num_vars * (len(str(num_vars)) + 2) + 3
    return 2 * num_clauses * per_clause + MAX_COMMENT_BYTES


class _PLineBound:
    """A :data:`~puzzlesat.generator.core.inputs.Bound`: the text before the p line is
    comments (bounded by the caller's limit); once the p line is read, the whole text is
    bounded by :func:`cnf_text_bound`."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.scanned = 0  # start of the first line not yet searched

    def __call__(self, piece: bytes) -> tuple[int, str] | None:
        self.head += piece
        end = self.head.rfind(b"\n")
        if end < self.scanned:
            return None
        p = _P_LINE.search(self.head, self.scanned, end)
        self.scanned = end + 1
        if p is None:
            return None
        try:
            num_vars, num_clauses = int(p.group(1)), int(p.group(2))
        except ValueError:  # parse_dimacs names the malformed p line
            return None
        return (p.end() + cnf_text_bound(max(num_vars, 0), max(num_clauses, 0)),
                f"an instance with the p line {p.group(0).decode('ascii').strip()!r}")


def _map_plain(handle):
    """A plain (uncompressed) regular file mapped read-only with its pages mapped up front, or
    None (stdin, an empty or compressed file, no mmap): the text is parsed in place, neither
    copied into the process nor page-faulted one page at a time."""
    if handle is sys.stdin.buffer or not hasattr(mmap, "MAP_POPULATE"):
        return None
    try:
        first = os.pread(handle.fileno(), 8, 0)
        if any(first.startswith(magic) for magic, _ in MAGIC):
            return None
        return mmap.mmap(handle.fileno(), 0, flags=mmap.MAP_PRIVATE | mmap.MAP_POPULATE,
                         prot=mmap.PROT_READ)
    except (OSError, ValueError):  # empty, not mappable: read as a stream
        return None


def read_dimacs(path: str | os.PathLike) -> Dimacs:
    """Read a plain, .xz, .gz or .bz2 DIMACS file (compression detected from its bytes): a
    regular file or ``-`` (stdin), decompressed no further than its p line allows."""
    with open_input(path, "instance") as handle:
        mapped = _map_plain(handle)
        if mapped is not None:
            return parse_dimacs(mapped, str(path))
        text = read_stream(handle, str(path), MAX_COMMENT_BYTES,
                           "the comments before a p line", _PLineBound())
    return parse_dimacs(text, str(path))


def read_num_vars(path: str | os.PathLike) -> int | None:
    """The variable count of an instance's p line, reading no further than that line (None
    when there is none within the comments' limit): for sizing what belongs to the
    instance, such as a solver's earlier answer, without reading its clauses."""
    bound = _PLineBound()
    with open_input(path, "instance") as handle, \
            contextlib.closing(input_pieces(handle, str(path))) as pieces:
        for piece in pieces:
            if bound(piece) is not None or len(bound.head) > MAX_COMMENT_BYTES:
                break
    p = _P_LINE.search(bound.head)
    try:
        return int(p.group(1)) if p else None
    except ValueError:
        return None

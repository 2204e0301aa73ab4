"""DIMACS text from clause blocks: the run writer, the reference writer it is tested
against, and the GBD hash.

Reference writer. Every literal ``l`` in ``[-V, V]`` has a fixed-width row in a byte table
holding its text and a space, padded with NUL bytes; indexing the table with a whole clause
block gives the block's text in one numpy operation, and deleting the NUL bytes
(``bytes.translate``) leaves clean DIMACS: one clause per line, single spaces, ``0`` at the
end. Padding zeros of a ragged block index an all-NUL row and vanish the same way.

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

import hashlib
import io
from typing import Any, NamedTuple

import numpy as np

from puzzlesat.generator.core.cnf import ClauseBlock, DeferredBlock, Formula
from puzzlesat.generator.core.counting import show_lines, track_lines
from puzzlesat.generator.core.header import header_lines

_CHUNK_ROWS = 1 << 20


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


def clause_bytes(formula: Formula, tuning: Tuning | None = None) -> bytes:
    """The clause lines of ``formula`` as DIMACS text (no header, no ``p`` line)."""
    out = io.BytesIO()
    stream_clauses(formula, out.write, tuning)
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
class Tuning(NamedTuple):
    """The run writer's sizes: the defaults are measured; the bytes written never depend on
    them (tests turn them small to reach every boundary)."""

    step_words: int = 1 << 16  # literal words per step: few steps (Python works per step), in L2
    stage_bytes: int = 1 << 20  # text handed to write() at a time
    run_literals: int = 1000  # a run costs about as much as packing this many literals


_SHIFT = [np.uint64(8 * r) for r in range(9)]
_ROW_END = np.uint64(ord("0") | ord("\n") << 8)


def with_tokens(table: np.ndarray, tokens) -> np.ndarray:
    """``table`` (of :func:`literal_table`) with a row after it for each of ``tokens`` (bytes,
    e.g. WCNF's ``h`` and clause weights): the token's text and a space, NUL-padded, widened
    to the longest row. Token i is written where a block holds the value V + 1 + i."""
    width = max([table.shape[1], *(len(t) + 1 for t in tokens)])
    out = np.zeros((table.shape[0] + len(tokens), width), dtype=np.uint8)
    out[: table.shape[0], : table.shape[1]] = table
    for i, token in enumerate(tokens):
        out[table.shape[0] + i, : len(token) + 1] = np.frombuffer(token + b" ", dtype=np.uint8)
    return out


def word_table(num_vars: int, tokens=()) -> tuple[np.ndarray, np.ndarray]:
    """(words, lengths): ``words[l + V]`` is the text of literal ``l`` and a space as
    little-endian uint64 words padded with NUL bytes -- one word (shape (2V+1,)) while V <
    10^6 ("-999999 ") and every token fits, else more (shape (2V+1, k)) -- and ``lengths[l +
    V]`` its byte count, for ``-V <= l <= V``; the padding literal 0 is empty. ``tokens`` add
    rows after the literals (:func:`with_tokens`)."""
    table = literal_table(num_vars)
    if tokens:
        table = with_tokens(table, tokens)
    words = -(-table.shape[1] // 8)
    padded = np.zeros((table.shape[0], 8 * words), dtype=np.uint8)
    padded[:, : table.shape[1]] = table
    lengths = np.count_nonzero(padded, axis=1).astype(np.uint8)
    padded = padded.view(np.uint64)
    return (padded.reshape(-1) if words == 1 else padded), lengths


class Stage:
    """Text on its way to ``write``: one reused buffer, handed over in pieces of about
    ``size`` bytes (the whole text is never held, and the buffer's pages stay mapped)."""

    def __init__(self, write, size: int = Tuning().stage_bytes) -> None:
        self.write = write
        self.buffer = np.empty(size, dtype=np.uint8)
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
        """Append ``text`` to the staged text."""
        self.take(len(text))[:] = np.frombuffer(text, dtype=np.uint8)

    def flush(self) -> None:
        """Hand the buffered text to ``write``."""
        if self.used:
            self.write(self.buffer[: self.used].data)
            self.used = 0


class RunWriter:
    """The run writer for one formula: its word table, layouts and scratch arrays."""

    def __init__(self, num_vars: int, stage: Stage, tuning: Tuning | None = None,
                 tokens=()):
        self.num_vars = num_vars
        self.top = num_vars + len(tokens)  # the largest value a block may hold
        self.stage = stage
        self.tuning = tuning or Tuning()
        self.words, self.lengths = word_table(num_vars, tokens)
        self.per_literal = 1 if self.words.ndim == 1 else self.words.shape[1]  # words
        self.layouts: dict = {}  # (rows, width, literal lengths) -> _layout(...)
        self.scratch: dict = {}

    def _array(self, name: str, size: int, dtype) -> np.ndarray:
        array = self.scratch.get(name)
        if array is None or array.size < size:
            array = self.scratch[name] = np.empty(max(size, self.tuning.step_words), dtype=dtype)
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
        """Write one clause block's text."""
        lits = block.literals
        rows, width = lits.shape
        if rows == 0 or width == 0:
            return
        low, high = int(lits.min()), int(lits.max())
        if high > self.top or low < -self.num_vars:
            raise ValueError(f"clause block {block.name!r} has a literal beyond {self.num_vars}")
        g = block.unit if rows % block.unit == 0 else 1
        index = lits.reshape(rows // g, g * width)
        units, n = index.shape
        step = max(1, self.tuning.step_words // n)
        for a in range(0, units, step):
            self.step(index[a : a + step], g, width)

    def step(self, index: np.ndarray, g: int, width: int) -> None:
        """Write the text of one step of a block's literals."""
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
        if (len(bounds) - 1) * self.tuning.run_literals > m * n:
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
        """Build the text of units from their literals' ``words`` by ``layout`` into the stage."""
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


def stream_clauses(formula: Formula, write, tuning: Tuning | None = None) -> int:
    """Call ``write`` with the clause lines of ``formula`` in order, in pieces of about 1 MB
    from one reused buffer; returns the number of bytes."""
    return stream_blocks(formula.blocks, formula.num_vars, write, tuning)


def stream_blocks(blocks, num_vars: int, write, tuning: Tuning | None = None) -> int:
    """Write the clause text of ``blocks`` to ``write``; returns the number of bytes."""
    tuning = tuning or Tuning()
    return RunWriter(num_vars, Stage(write, tuning.stage_bytes), tuning).write_blocks(blocks)


def text_length(blocks, num_vars: int) -> int:
    """The number of bytes :func:`stream_clauses` gives for ``blocks``, counted from the text
    lengths of their literals without making the text (a fifth to a third of the work)."""
    return RunWriter(num_vars, Stage(None)).text_length(blocks)


def dimacs_head(formula: Formula, header: dict | None = None) -> bytes:
    """The header lines and the ``p cnf`` line; for a counting instance (the formula has a
    ``projection``) the ``c t`` line first and the ``c p show`` line after the ``p`` line."""
    lines = [*track_lines(formula.projection), *header_lines(header or {}),
             f"p cnf {formula.num_vars} {formula.num_clauses}", *show_lines(formula.projection)]
    return "".join(line + "\n" for line in lines).encode("ascii")


def dimacs_bytes(formula: Formula, header: dict | None = None, body: bytes | None = None) -> bytes:
    """Header, ``p cnf`` line and clauses. Pass ``body`` if :func:`clause_bytes` was already
    computed (publishing hashes the body too)."""
    if body is None:
        body = clause_bytes(formula)
    return dimacs_head(formula, header) + body


_NEWLINE_TO_SPACE = bytes.maketrans(b"\n", b" ")


def gbd_hash_of_body(body: bytes) -> str:
    """GBD hash of clause text in this module's layout (one clause per line, single spaces)."""
    return hashlib.md5(body.translate(_NEWLINE_TO_SPACE).rstrip(b" ")).hexdigest()


def stream_flat_clauses(flat: np.ndarray, write, chunk: int = 1 << 22) -> None:
    """Write the clauses of a flat literal array (each clause followed by its 0) as DIMACS
    text, one clause a line, ``chunk`` literals at a time (never a Python object per clause)."""
    num_vars = int(np.abs(flat).max()) if flat.size else 0
    table = literal_table(num_vars)
    table[num_vars, 0] = ord("0")  # here 0 is a token (clause end), not padding
    table[num_vars, 1] = ord("\n")
    for start in range(0, flat.size, chunk):
        piece = flat[start: start + chunk].astype(np.int64) + num_vars
        write(table[piece].tobytes().translate(None, _DELETE_NUL))


def plain_dimacs(flat: np.ndarray, num_vars: int, write) -> None:
    """Write a plain DIMACS file (``p cnf`` line and clauses) of a flat literal array, as an
    external solver or checker reads it."""
    write(f"p cnf {num_vars} {int(np.count_nonzero(flat == 0))}\n".encode("ascii"))
    stream_flat_clauses(flat, write)


def gbd_hash_of_literals(flat: np.ndarray) -> str:
    """GBD hash of a flat literal array (each clause followed by its 0), as the reader gives."""
    digest = hashlib.md5()
    held = b""  # the last byte is held back: the hash's text ends without its final separator

    def update(text: bytes) -> None:
        nonlocal held
        text = held + text.translate(_NEWLINE_TO_SPACE)
        digest.update(text[:-1])
        held = text[-1:]

    stream_flat_clauses(flat, update)
    return digest.hexdigest()

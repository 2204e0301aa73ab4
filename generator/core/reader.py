"""Reading DIMACS: a tolerant, strict parser (numpy SWAR for literals, a plain-Python
reference beside it) and bounded reading of plain or compressed instances."""

from __future__ import annotations

import contextlib
import mmap
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.head import MAX_COMMENT_BYTES, Comments, first_other, scan_comments
from puzzlesat.generator.core.header import parse_header
from puzzlesat.generator.core.inputs import (
    MAGIC,
    InputTooLong,
    bounded_pieces,
    input_pieces,
    line_chunks,
    open_input,
    read_input,
)
from puzzlesat.generator.core.integers import minus_signs_ok, parse_integers

if TYPE_CHECKING:
    from puzzlesat.generator.core.cnf import Formula


def read_bytes(path: str | os.PathLike, limit: int | None = None, what: str = "input") -> bytes:
    """A regular file's bytes (``-``: stdin), decompressed, at most ``limit`` of them when
    given (:func:`puzzlesat.generator.core.inputs.read_input`)."""
    return read_input(path, sys.maxsize if limit is None else limit, what)


@dataclass
class Dimacs:
    """A parsed instance: header, declared counts, the clauses as one flat literal array
    (each clause followed by 0), and the comment lines a reader keeps (the header's, the
    counting lines: :func:`~puzzlesat.generator.core.head.scan_comments`)."""

    header: dict
    num_vars: int
    num_clauses: int
    literals: np.ndarray
    comments: Comments = field(default_factory=Comments)

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
        # imported here: reading an instance (validate, count) needs no formula builder
        from puzzlesat.generator.core.cnf import Formula

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
        # imported here: the writer and its hashes load only when a hash is asked for
        from puzzlesat.generator.core.writer import gbd_hash_of_literals

        return gbd_hash_of_literals(self.literals)


_COMMENT_LINE = re.compile(rb"^[ \t]*c[^\n]*\n?", re.M)
_P_LINE = re.compile(rb"^[ \t]*p[ \t]+cnf[ \t]+(\S+)[ \t]+(\S+)[ \t]*\r?$", re.M)
_ALLOWED = b"0123456789- \t\r\n"


def parse_dimacs(text: bytes, name: str = "input") -> Dimacs:
    """Parse DIMACS CNF text, tolerant of every legal layout (several clauses on a line, a
    clause over several lines, comments anywhere, a ``%`` end marker) and strict about errors
    (missing or bad ``p`` line, counts that do not match, literal beyond V, missing final 0,
    stray characters). Errors are :class:`UserError` naming the file and what is wrong."""
    return _parse(_cut(memoryview(text)), name)


def _cut(text: memoryview, size: int = 1 << 20):
    """``text`` in chunks of about ``size`` bytes, each ending with a line's newline (the last
    where the text ends): zero-copy views of a mapped file."""
    start = 0
    while start < len(text):
        end = min(start + size, len(text))
        if end < len(text):
            newline = bytes(text[end: end + 4096]).find(b"\n")
            while newline < 0 and end + 4096 < len(text):  # a line past 4 KB: look on
                end += 4096
                newline = bytes(text[end: end + 4096]).find(b"\n")
            end = len(text) if newline < 0 else end + newline + 1
        yield text[start:end]
        start = end


def _parse(chunks, name: str, bounded: bool = False) -> Dimacs:
    """Parse DIMACS text given as chunks of whole lines: the comments before the ``p`` line,
    chunk by chunk, then the clauses a chunk at a time, each chunk's literals kept and counted
    against the p line as they come (a text that holds more clauses than its p line declares
    is refused there, not after all of it is read and parsed). ``bounded``: a stream, refused
    (:class:`InputTooLong`) past what its p line allows (:func:`cnf_text_bound`)."""
    comments = Comments()
    body = None
    before = taken = 0  # bytes before the p line, bytes in all
    limit = MAX_COMMENT_BYTES
    for chunk in chunks:
        taken += len(chunk)
        if bounded and taken > limit:
            holder = ("the comments before a p line" if body is None
                      else f"an instance with the p line 'p cnf {body.num_vars} "
                           f"{body.num_clauses}'")
            raise InputTooLong(f"{name}: longer than {limit:,} bytes, the most {holder} can "
                               f"hold")
        if body is None:
            # a scan for 'p' (in C) before the line-wise regular expression looks
            p = _P_LINE.search(chunk) if _holds(chunk, b"p") else None
            head = chunk[: p.start()] if p is not None else chunk
            if first_other(head) is not None:
                if p is not None:
                    raise UserError(f"{name}: clauses before the 'p cnf' line")
                if re.search(rb"^[ \t]*[pP]", head, re.M):
                    raise UserError(f"{name}: malformed 'p cnf' line")
                raise UserError(f"{name}: no 'p cnf' line before the clauses")
            comments.add(scan_comments(head, name), name)
            before += len(head)
            if p is None:
                if before > MAX_COMMENT_BYTES:
                    raise UserError(f"{name}: no 'p cnf' line in the first "
                                    f"{MAX_COMMENT_BYTES:,} bytes")
                continue
            body = _Clauses(name, comments, p)
            limit = before + len(p.group(0)) + cnf_text_bound(body.num_vars, body.num_clauses)
            chunk = chunk[p.end():]
        if not body.take(chunk):
            break
    if body is None:
        raise UserError(f"{name}: no 'p cnf' line")
    return body.finish()


class _Clauses:
    """The clauses after a DIMACS file's ``p`` line, taken a chunk of whole lines at a time."""

    def __init__(self, name: str, comments: Comments, p: re.Match):
        self.name, self.comments = name, comments
        try:
            self.num_vars, self.num_clauses = int(p.group(1)), int(p.group(2))
        except ValueError:
            raise UserError(f"{name}: malformed 'p cnf' line") from None
        if self.num_vars < 0 or self.num_clauses < 0:
            raise UserError(f"{name}: negative count in 'p cnf' line")
        if self.num_vars >= 2**31:
            raise UserError(f"{name}: {self.num_vars} variables is beyond DIMACS's 2^31-1")
        self.literals = np.empty(0, dtype=np.int32)
        self.count = 0  # literals taken
        self.found = 0  # clause-ending zeros taken
        self.read = 0  # bytes of clause text taken

    def take(self, chunk) -> bool:
        """Parse one chunk of whole lines; False once a ``%`` end marker ends the clauses."""
        name = self.name
        # clause text holds only digits, '-' and white space: a scan for 'c' or '%' (in C)
        # tells whether the slower line-wise regular expressions are needed at all
        text: memoryview | bytes = chunk
        more = True
        if _holds(chunk, b"c"):
            text = bytes(chunk)
            self.comments.add(scan_comments(text, name), name)
            text = _COMMENT_LINE.sub(b"", text)
        if _holds(text, b"%"):
            end_marker = re.search(rb"^[ \t]*%", bytes(text), re.M)
            if end_marker:
                text, more = bytes(text)[: end_marker.start()], False
        if _holds(text, b"p"):
            raise UserError(f"{name}: more than one 'p cnf' line")
        stray = bytes(text).translate(None, _ALLOWED)
        if stray:
            ch = chr(stray[0]) if 32 <= stray[0] < 127 else f"\\x{stray[0]:02x}"
            raise UserError(f"{name}: unexpected character {ch!r} in the clauses")
        values = parse_literals(text, name)
        self.found += int(np.count_nonzero(values == 0))
        self.read += len(chunk)
        if self.found > self.num_clauses:  # refused here: the rest is never read
            raise UserError(f"{name}: the p line declares {self.num_clauses} clauses, found "
                            f"{self.found} in the first {self.read:,} bytes of clauses")
        if values.size:
            worst = max(int(values.max()), -int(values.min()))
            if worst > self.num_vars:
                raise UserError(f"{name}: literal {worst} is beyond the declared "
                                f"{self.num_vars} variables")
        self.literals = _grown(self.literals, self.count + values.size)
        self.literals[self.count: self.count + values.size] = values
        self.count += values.size
        return more

    def finish(self) -> Dimacs:
        """The instance, once every chunk is taken."""
        literals = self.literals[: self.count]
        if literals.size and literals[-1] != 0:
            raise UserError(f"{self.name}: the last clause does not end with 0")
        if self.found != self.num_clauses:
            raise UserError(f"{self.name}: the p line declares {self.num_clauses} clauses, "
                            f"found {self.found}")
        return Dimacs(parse_header(self.comments.header, self.name), self.num_vars,
                      self.num_clauses, literals, self.comments)


def _holds(text, byte: bytes) -> bool:
    """Whether ``text`` (bytes or a memoryview) holds ``byte``."""
    return (text if isinstance(text, bytes) else bytes(text)).find(byte) >= 0


def _grown(items: np.ndarray, need: int) -> np.ndarray:
    """``items`` with room for ``need`` items: grown in place by half at least (realloc, which
    moves large blocks by remapping pages rather than copying them)."""
    if items.shape[0] < need:
        items.resize(max(need, items.shape[0] + items.shape[0] // 2), refcheck=False)
    return items


_MALFORMED_MINUS = "malformed literal (a '-' must start a number 1-9...)"
#: words whose top k bytes are 0x0F (a digit's value bits), k = 0..8
_TOP_DIGITS = np.array([0x0F0F0F0F0F0F0F0F ^ ((1 << (64 - 8 * k)) - 1) & 0x0F0F0F0F0F0F0F0F
                        if k else 0 for k in range(9)], dtype=np.uint64)
_U = np.uint64
#: (factor, shift, mask) steps that turn 8 digit values (one per byte) into their number
_SWAR = ((_U(2561), _U(8), _U(0x00FF00FF00FF00FF)), (_U(6553601), _U(16), _U(0x0000FFFF0000FFFF)),
         (_U(42949672960001), _U(32), None))
PARSE_CHUNK = 1 << 17  # bytes per step: few numpy calls per MB, temporaries in cache


def parse_literals(data, name: str, chunk: int = PARSE_CHUNK) -> np.ndarray:
    """The integers (int32) of clause text that holds only digits, '-' and white space
    (checked by the caller), with every '-' after white space (or at the start) and before a
    digit 1-9.

    Vectorised, a step of about ``chunk`` bytes at a time cut at white space: token ends and starts
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
    masks = np.empty((2, min(a.size, chunk + 65)), dtype=np.bool_)  # reused every step
    while start < a.size:
        end = min(a.size, start + chunk)
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


def cnf_text_bound(num_vars: int, num_clauses: int) -> int:
    """The most bytes a DIMACS text with this p line can hold: every clause at most V distinct
    literals of ``len(str(V)) + 2`` bytes and its ``0``, twice over for layout (CRLF, runs of
    white space), plus :data:`MAX_COMMENT_BYTES`."""
    per_clause = num_vars * (len(str(num_vars)) + 2) + 3
    return 2 * num_clauses * per_clause + MAX_COMMENT_BYTES


class _PLineBound:
    """A :data:`~puzzlesat.generator.core.inputs.Bound`: the text before the p line is
    comments (bounded by the caller's limit); once the p line is read, the whole text is
    bounded by :func:`cnf_text_bound`, and by ``cap`` when it is tighter."""

    def __init__(self, cap: int = sys.maxsize, holder: str = "") -> None:
        self.head = bytearray()
        self.scanned = 0  # start of the first line not yet searched
        self.cap, self.holder = cap, holder

    def __call__(self, piece: bytes) -> tuple[int, str] | None:
        self.head += piece
        end = self.head.rfind(b"\n")
        if end < self.scanned:
            return None
        p = _P_LINE.search(self.head, self.scanned, end) if piece.find(b"p") >= 0 or \
            self.head.find(b"p", self.scanned) >= 0 else None
        self.scanned = end + 1
        if p is None:
            return None
        try:
            num_vars, num_clauses = int(p.group(1)), int(p.group(2))
        except ValueError:  # parse_dimacs names the malformed p line
            return None
        bound = p.end() + cnf_text_bound(max(num_vars, 0), max(num_clauses, 0))
        if self.cap < bound:
            return self.cap, self.holder
        return bound, f"an instance with the p line {p.group(0).decode('ascii').strip()!r}"


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


def read_dimacs(path: str | os.PathLike, limit: int | None = None,
                holder: str = "the instance") -> Dimacs:
    """Read a plain, .xz, .gz or .bz2 DIMACS file (compression detected from its bytes): a
    regular file or ``-`` (stdin), decompressed no further than its p line allows, nor past
    ``limit`` bytes of text when given (the most ``holder`` can hold)."""
    with open_input(path, "instance") as handle:
        mapped = _map_plain(handle)
        if mapped is not None:
            if limit is not None and len(mapped) > limit:
                raise InputTooLong(f"{path}: longer than {limit:,} bytes, the most {holder} "
                                   f"can hold")
            return parse_dimacs(mapped, str(path))
        chunks = (memoryview(c) for c in line_chunks(handle, str(path),
                                                     sys.maxsize if limit is None else limit,
                                                     holder))
        return _parse(chunks, str(path), bounded=True)


def dimacs_pieces(path: str | os.PathLike, follow_symlinks: bool = True,
                  limit: int | None = None, holder: str = "the instance") -> Iterator[bytes]:
    """The decompressed text of a DIMACS file in pieces, read no further than its p line
    allows, nor past ``limit`` bytes when given (the most ``holder`` can hold)."""
    cap = sys.maxsize if limit is None else limit
    with open_input(path, "instance", follow_symlinks) as handle:
        yield from bounded_pieces(handle, str(path), min(cap, MAX_COMMENT_BYTES),
                                  "the comments before a p line", _PLineBound(cap, holder))


def read_dimacs_text(path: str | os.PathLike, follow_symlinks: bool = True,
                     limit: int | None = None, holder: str = "the instance") -> bytes:
    """The decompressed text of a DIMACS file, bounded as :func:`dimacs_pieces` reads it."""
    return b"".join(dimacs_pieces(path, follow_symlinks, limit, holder))


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

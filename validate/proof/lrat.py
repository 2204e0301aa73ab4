"""LRAT certificates: the structure, and reading and writing it as text or binary LRAT.

LRAT (Cruz-Filipe, Heule, Hunt, Kaufmann, Schneider-Kamp: "Efficient Certified RAT
Verification", CADE 2017) numbers the formula's clauses 1..m in file order; each later line
adds a clause under a fresh, larger id, with the hints that show it implied, or deletes clauses
by id. Text: ``id lits 0 hints 0`` adds, ``id d ids 0`` deletes (the id in front is the last
one added, as drat-trim writes it); a RAT lemma's hints are groups ``-d h1 h2 ...``, one per
clause d holding the negated pivot (the lemma's first literal), after the hints shared by all.
Binary (drat-trim's and CaDiCaL's): a byte ``a`` then the id, the literals, 0, the hints, 0, or
a byte ``d`` then ids, 0; each number x as the unsigned 2*|x| + (x < 0) in 7-bit groups, low
group first, the high bit set on all but the last (the encoding of binary DRAT).

A :class:`Certificate` holds the steps as flat arrays; :mod:`puzzlesat.validate.proof.lrat_check`
checks one; :func:`puzzlesat.validate.proof.drat.verify_drat` makes one from a DRAT proof, its
hints in a :class:`HintFile` (they may outnumber the proof's literals: in memory they would
set the checker's peak), which both the LRAT checker and the writer read a window at a time.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass

import numpy as np
from numba import njit

from puzzlesat.generator.core.files import atomic_file
from puzzlesat.validate.proof.reader import ProofFormatError, proof_bytes

#: step kinds
ADD, DELETE = 0, 1
#: a text token ``d`` among the numbers
_D = np.iinfo(np.int64).min


class LratFormatError(Exception):
    """The bytes are no LRAT proof: the reason names the first thing wrong."""


class HintFile:
    """int32 hints kept in an anonymous temporary file (gone when closed or collected) rather
    than in memory, appended in order and read back a slice at a time (``hints[a:b]``)."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="puzzlesat-hints-")
        self.size = 0

    def append(self, hints: np.ndarray) -> None:
        """Add ``hints`` (int32) at the end."""
        self._file.seek(0, os.SEEK_END)
        self._file.write(np.ascontiguousarray(hints, np.int32).data)
        self.size += hints.shape[0]

    @property
    def shape(self) -> tuple[int]:
        """(hints held,), as an array's."""
        return (self.size,)

    def __getitem__(self, where: slice) -> np.ndarray:
        """The hints ``where`` names (a slice with step 1), read into a fresh array."""
        a, b, step = where.indices(self.size)
        if step != 1:
            raise ValueError("a HintFile is read by slices of step 1")
        out = np.empty(max(b - a, 0), np.int32)
        self._file.seek(4 * a)
        if self._file.readinto(out.data) != out.nbytes:
            raise RuntimeError("LRAT hints: the temporary file came back short")
        return out

    def copy(self) -> np.ndarray:
        """Every hint, in memory."""
        return self[:]

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """Every hint, in memory (``np.asarray(hint_file)``)."""
        return self[:] if dtype is None else self[:].astype(dtype)


@dataclass
class Certificate:
    """The steps of an LRAT proof: step i is ``kind[i]`` (ADD or DELETE); an addition adds
    clause ``ids[i]`` with literals ``lits[lit_end[i-1]:lit_end[i]]`` and hints
    ``hints[hint_end[i-1]:hint_end[i]]`` (RAT candidates negative); a deletion's hints are the
    ids it deletes."""

    kind: np.ndarray  # uint8
    ids: np.ndarray  # int64
    lits: np.ndarray  # int32
    lit_end: np.ndarray  # int64
    hints: np.ndarray | HintFile  # int32 in a file (our certificates) or int64 (read)
    hint_end: np.ndarray  # int64

    @property
    def lemmas(self) -> int:
        """How many clauses it adds."""
        return int(np.count_nonzero(self.kind == ADD))


@njit(cache=True)
def _number(out, n, x, binary):
    """Write the number x at out[n:] (text: decimal and a space; binary: 2|x| + sign in 7-bit
    groups); the new end."""
    if binary:
        u = 2 * abs(x) + (1 if x < 0 else 0)
        while u > 127:
            out[n] = 128 | (u & 127)
            n += 1
            u >>= 7
        out[n] = u
        return n + 1
    if x < 0:
        out[n] = 45
        n += 1
        x = -x
    digits = 1
    while x >= 10 ** digits:
        digits += 1
    for k in range(digits - 1, -1, -1):
        out[n + k] = 48 + x % 10
        x //= 10
    out[n + digits] = 32
    return n + digits + 1


@njit(cache=True)
def _format(kind, ids, lits, lit_end, hints, hint_base, hint_end, begin, end, last_id, binary,
            out):
    """Steps begin..end-1 into ``out`` (``hints`` holds the steps' hints from number
    ``hint_base`` on); (bytes written, the last id added)."""
    n = 0
    for i in range(begin, end):
        lit_from = lit_end[i - 1] if i > 0 else 0
        hint_from = hint_end[i - 1] if i > 0 else 0
        if kind[i] == 1:
            if binary:
                out[n] = 100
                n += 1
            else:
                n = _number(out, n, last_id, False)
                out[n], out[n + 1] = 100, 32
                n += 2
        else:
            last_id = ids[i]
            if binary:
                out[n] = 97
                n = _number(out, n + 1, ids[i], True)  # an id is positive: 2 * id
            else:
                n = _number(out, n, ids[i], False)
            for k in range(lit_from, lit_end[i]):
                n = _number(out, n, lits[k], binary)
            n = _zero(out, n, binary, False)
        for k in range(hint_from - hint_base, hint_end[i] - hint_base):
            n = _number(out, n, hints[k], binary)
        n = _zero(out, n, binary, True)
    return n, last_id


@njit(cache=True)
def _zero(out, n, binary, last):
    if binary:
        out[n] = 0
        return n + 1
    out[n] = 48
    out[n + 1] = 10 if last else 32
    return n + 2


def write_lrat(cert: Certificate, path: str | os.PathLike, n_formula: int,
               binary: bool = False) -> None:
    """Write ``cert`` to ``path`` (atomically) as text or binary LRAT, its deletions after
    ``n_formula`` formula clauses in text naming the last id added."""
    lengths = np.diff(cert.lit_end, prepend=0) + np.diff(cert.hint_end, prepend=0) + 4
    bound = np.cumsum(lengths * 22)  # 20 digits, a sign and a space per number at most
    with atomic_file(path) as out:
        begin, last_id, done = 0, n_formula, 0
        while begin < cert.kind.shape[0]:
            end = max(int(np.searchsorted(bound, done + (8 << 20), "right")), begin + 1)
            buffer = np.empty(int(bound[end - 1] - done), np.uint8)
            first = int(cert.hint_end[begin - 1]) if begin else 0
            hints = cert.hints[first:int(cert.hint_end[end - 1])]
            n, last_id = _format(cert.kind, cert.ids, cert.lits, cert.lit_end, hints, first,
                                 cert.hint_end, begin, end, last_id, binary, buffer)
            out.write(buffer[:n].tobytes())
            begin, done = end, int(bound[end - 1])


@njit(cache=True)
def _tokens(data, out):
    """The numbers of text LRAT (``d`` as _D), comment lines skipped: (count, bad offset or
    -1)."""
    n, i, size = 0, 0, data.shape[0]
    while i < size:
        c = data[i]
        if c == 32 or 9 <= c <= 13:
            i += 1
        elif c == 99 and (n == 0 or i == 0 or data[i - 1] == 10):  # 'c' starts a comment line
            while i < size and data[i] != 10:
                i += 1
        elif c == 100:
            out[n] = _D
            n += 1
            i += 1
        elif c == 45 or 48 <= c <= 57:
            negative = c == 45
            i += 1 if negative else 0
            value, digits = np.int64(0), 0
            while i < size and 48 <= data[i] <= 57:
                value = value * 10 + (data[i] - 48)
                digits += 1
                if digits > 18:
                    return n, i
                i += 1
            if digits == 0 or (i < size and not (data[i] == 32 or 9 <= data[i] <= 13)):
                return n, i
            out[n] = -value if negative else value
            n += 1
        else:
            return n, i
    return n, -1


@njit(cache=True)
def _binary_tokens(data, out):
    """The numbers of binary LRAT (``a`` as 0 never occurs: ``a`` -> _D + 1, ``d`` -> _D),
    decoded: (count, bad offset or -1)."""
    n, i, size = 0, 0, data.shape[0]
    expect_step = True
    while i < size:
        c = data[i]
        if expect_step:
            if c != 97 and c != 100:
                return n, i
            out[n] = _D if c == 100 else _D + 1
            n += 1
            i += 1
            expect_step = False
            zeros = 0
            continue
        u, shift = np.int64(0), 0
        while True:
            if i >= size or shift > 56:
                return n, i
            b = np.int64(data[i])
            i += 1
            u |= (b & 127) << shift
            shift += 7
            if b < 128:
                break
        x = -(u >> 1) if u & 1 else u >> 1
        out[n] = x
        n += 1
        if u == 0:
            zeros += 1
            # an addition ends with its second 0, a deletion with its first
            if zeros == 2 or out[_step_head(out, n)] == _D:
                expect_step = True
    return n, -1


@njit(cache=True)
def _step_head(out, n):
    k = n - 1
    while out[k] != _D and out[k] != _D + 1:
        k -= 1
    return k


@njit(cache=True)
def _zero_ended(tok, i, n, out, k, hint):
    """Copy the tokens from ``i`` up to the next 0 into ``out[k:]``: (the index past that 0,
    the new ``k``, True), or (the bad token's index, ``k``, False) at a token a literal
    (``hint`` False: a marker or past 32 bits) or a hint (True: a marker) cannot be, or at
    the stream's end without a 0."""
    while i < n and tok[i] != 0:
        if tok[i] == _D or (tok[i] == _D + 1 if hint else abs(tok[i]) > 2147483647):
            return i, k, False
        out[k] = tok[i]
        k += 1
        i += 1
    if i >= n:
        return i, k, False
    return i + 1, k, True


@njit(cache=True)
def _steps(tok, n, binary, kind, ids, lits, lit_end, hints, hint_end):
    """The steps of the token stream: (steps, literals, hints, bad token or -1)."""
    s = nl = nh = 0
    i = 0
    while i < n:
        if binary:
            deleting = tok[i] == _D
            i += 1
            if not deleting:
                if i >= n or tok[i] <= 0:
                    return s, nl, nh, i
                ids[s] = tok[i]
                i += 1
        else:
            if tok[i] <= 0:
                return s, nl, nh, i
            ids[s] = tok[i]
            i += 1
            deleting = i < n and tok[i] == _D
            i += 1 if deleting else 0
        if not deleting:
            i, nl, ok = _zero_ended(tok, i, n, lits, nl, False)
            if not ok:
                return s, nl, nh, i
        i, nh, ok = _zero_ended(tok, i, n, hints, nh, True)
        if not ok:
            return s, nl, nh, i
        kind[s] = 1 if deleting else 0
        lit_end[s], hint_end[s] = nl, nh
        s += 1
    return s, nl, nh, -1


def read_lrat(source: str | os.PathLike | bytes, deadline: float | None = None) -> Certificate:
    """Parse an LRAT proof (text or binary, plain or compressed; a path or its bytes), read as
    a DRAT proof is read (:func:`~puzzlesat.validate.proof.reader.proof_bytes`: bounded, a
    TimeoutError past ``deadline``). A file that cannot be read is a UserError, bytes that are
    no LRAT (or expand too far) an :class:`LratFormatError`."""
    try:
        data = proof_bytes(source, deadline)
    except ProofFormatError as exc:
        raise LratFormatError(str(exc)) from None
    raw = np.frombuffer(data, np.uint8)
    raw.flags.writeable = False  # as from bytes: one compiled kernel for files and bytes
    start = raw[:1].tobytes()
    binary = start in (b"a", b"d")
    tok = np.empty(raw.shape[0] + 1, np.int64)
    n, bad = (_binary_tokens if binary else _tokens)(raw, tok)
    if bad >= 0:
        raise LratFormatError(f"unexpected byte at offset {bad}")
    size = max(n, 1)
    kind, ids = np.zeros(size, np.uint8), np.zeros(size, np.int64)
    lits, hints = np.zeros(size, np.int32), np.zeros(size, np.int64)
    lit_end, hint_end = np.zeros(size, np.int64), np.zeros(size, np.int64)
    s, nl, nh, bad = _steps(tok, n, binary, kind, ids, lits, lit_end, hints, hint_end)
    if bad >= 0:
        raise LratFormatError(f"malformed or truncated step {s + 1} (number {bad + 1})")
    if s == 0:
        raise LratFormatError("no steps")
    return Certificate(kind[:s].copy(), ids[:s].copy(), lits[:nl].copy(), lit_end[:s].copy(),
                       hints[:nh].copy(), hint_end[:s].copy())

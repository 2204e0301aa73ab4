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
set the checker's peak), which both the LRAT checker and the writer read a window at a time;
the hints and literals of that certificate are assembled here (:func:`renamed_hints`,
:func:`certificate_literals`).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass

import numpy as np

from puzzlesat.validate.proof import native
from puzzlesat.validate.proof.reader import ProofFormatError, proof_bytes

#: step kinds (kernels.h's)
ADD, DELETE = native.constants("kernels", "ADD", "DELETE")


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


# the writer (lrat.c): steps begin..end-1 into a byte buffer, (kind, ids, lits, lit_end, hints,
# hint_base, hint_end, begin, end, last_id, binary, out) -> bytes written, last_id an int64
# array of one: given the last id added before begin, left the last one added by end; a
# kernel per dtype of the hints (int32 from a HintFile, or int64 in a certificate read)
_FORMAT = {
    np.dtype(hint): native.kernel(
        f"lrat_format_h{np.dtype(hint).itemsize * 8}", native.I64,
        native.array(np.uint8), native.array(np.int64), native.array(np.int32),
        native.array(np.int64), native.array(hint), native.I64, native.array(np.int64),
        native.I64, native.I64, native.array(np.int64), native.I64, native.array(np.uint8))
    for hint in (np.int32, np.int64)}


def write_lrat(cert: Certificate, path: str | os.PathLike, n_formula: int,
               binary: bool = False) -> None:
    """Write ``cert`` to ``path`` (atomically) as text or binary LRAT, its deletions after
    ``n_formula`` formula clauses in text naming the last id added."""
    # imported here: the output files' module (and its compressors) loads only when a
    # certificate is written, never for a check alone
    from puzzlesat.generator.core.files import atomic_file

    lengths = np.diff(cert.lit_end, prepend=0) + np.diff(cert.hint_end, prepend=0) + 4
    bound = np.cumsum(lengths * 22)  # 20 digits, a sign and a space per number at most
    with atomic_file(path) as out:
        begin, last_id, done = 0, np.array([n_formula], np.int64), 0
        while begin < cert.kind.shape[0]:
            end = max(int(np.searchsorted(bound, done + (8 << 20), "right")), begin + 1)
            buffer = np.empty(int(bound[end - 1] - done), np.uint8)
            first = int(cert.hint_end[begin - 1]) if begin else 0
            hints = cert.hints[first:int(cert.hint_end[end - 1])]
            # (another dtype is tried as int64: ctypes then names the argument that is not)
            kernel = _FORMAT.get(hints.dtype, _FORMAT[np.dtype(np.int64)])
            n = kernel(cert.kind, cert.ids, cert.lits, cert.lit_end, hints, first, cert.hint_end,
                       begin, end, last_id, binary, buffer)
            out.write(buffer[:n].tobytes())
            begin, done = end, int(bound[end - 1])


# the reader (lrat.c): the numbers of text or binary LRAT, (bytes, their size, tokens, count)
# -> the offset of a bad byte or -1, count an int64 array of one; then the steps they make,
# (tokens, their number, binary, kind, ids, lits, lit_end, hints, hint_end, counts) -> the
# index of a bad token or -1, counts = [steps, literals, hints]
_TOKEN_ARGUMENTS = (native.array(np.uint8), native.I64, native.array(np.int64),
                    native.array(np.int64))
_tokens = native.kernel("lrat_tokens", native.I64, *_TOKEN_ARGUMENTS)
_binary_tokens = native.kernel("lrat_binary_tokens", native.I64, *_TOKEN_ARGUMENTS)
_steps = native.kernel("lrat_steps", native.I64, native.array(np.int64), native.I64, native.I64,
                       native.array(np.uint8), native.array(np.int64), native.array(np.int32),
                       native.array(np.int64), native.array(np.int64), native.array(np.int64),
                       native.array(np.int64))


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
    start = raw[:1].tobytes()
    binary = start in (b"a", b"d")
    tok, count = np.empty(raw.shape[0] + 1, np.int64), np.zeros(1, np.int64)
    bad = (_binary_tokens if binary else _tokens)(raw, raw.shape[0], tok, count)
    n = int(count[0])
    if bad >= 0:
        raise LratFormatError(f"unexpected byte at offset {bad}")
    size = max(n, 1)
    kind, ids = np.zeros(size, np.uint8), np.zeros(size, np.int64)
    lits, hints = np.zeros(size, np.int32), np.zeros(size, np.int64)
    lit_end, hint_end = np.zeros(size, np.int64), np.zeros(size, np.int64)
    counts = np.zeros(3, np.int64)
    bad = _steps(tok, n, binary, kind, ids, lits, lit_end, hints, hint_end, counts)
    s, nl, nh = (int(c) for c in counts)
    if bad >= 0:
        raise LratFormatError(f"malformed or truncated step {s + 1} (number {bad + 1})")
    if s == 0:
        raise LratFormatError("no steps")
    return Certificate(kind[:s].copy(), ids[:s].copy(), lits[:nl].copy(), lit_end[:s].copy(),
                       hints[:nh].copy(), hint_end[:s].copy())


# the certificate of a DRAT check (lrat.c): the checker's hint records in proof order, renamed,
# (records, ends, n_records, new_id, present, out, counts) -> hints written; the literals' ends,
# (start, clauses, n, lit_end) -> literals; the literals moved to the front of the database,
# (db, start, pivot, clauses, n, kept, fresh)
_hints_in_proof_order = native.kernel(
    "lrat_hints_in_proof_order", native.I64, native.array(np.int32), native.array(np.int64),
    native.I64, native.array(np.int32), native.array(np.bool_), native.array(np.int32),
    native.array(np.int64))
_lemma_ends = native.kernel("lrat_lemma_ends", native.I64, native.array(np.int64),
                            native.array(np.int64), native.I64, native.array(np.int64))
_move_literals = native.kernel(
    "lrat_move_literals", None, native.array(np.int32), native.array(np.int64),
    native.array(np.int32), native.array(np.int64), native.I64, native.I64,
    native.array(np.int64))


def renamed_hints(records: np.ndarray, ends: np.ndarray, new_id: np.ndarray,
                  present: np.ndarray, out: np.ndarray, counts: np.ndarray) -> int:
    """The DRAT checker's hint records (int32, written backward, record r ending at ``ends[r]``)
    into ``out`` in proof order, each clause c named ``new_id[c]``, the RAT groups of clauses
    not ``present`` in the certificate dropped; ``counts``: each record's hints, in proof
    order. Returns the hints written."""
    return _hints_in_proof_order(records, ends, ends.shape[0], new_id, present, out, counts)


def certificate_literals(db: np.ndarray, start: np.ndarray, pivot: np.ndarray,
                         clauses: np.ndarray, kept: int,
                         fresh: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The literals of each of ``clauses`` (none for -1; the others in increasing order), pivot
    first, variables numbered beyond ``kept`` given back their numbers ``fresh``: the clause
    database ``db`` (codes 2v + (l < 0), clause c at ``db[start[c]:start[c + 1]]``), its
    literals moved to its front and then cut to them (the certificate's literals take no
    memory of their own), and their ends."""
    if np.any(np.diff(clauses[clauses >= 0]) <= 0):
        raise RuntimeError("LRAT certificate: its lemmas are not in proof order")
    lit_end = np.empty(clauses.shape[0], np.int64)
    total = _lemma_ends(start, clauses, clauses.shape[0], lit_end)
    _move_literals(db, start, pivot, clauses, clauses.shape[0], kept, fresh.astype(np.int64))
    db.resize(total, refcheck=False)  # in place: realloc gives the rest back
    return db, lit_end

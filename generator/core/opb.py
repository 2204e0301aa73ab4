"""Pseudo-Boolean formulas and their OPB text (the Pseudo-Boolean Competition's linear
format), written and read.

An :class:`Opb` keeps its variables in a :class:`~puzzlesat.generator.core.cnf.Formula`'s pool
of named blocks (``pool``), its constraints ``sum c_i l_i >= d`` or ``sum c_i l_i = d`` in
ordered blocks, one constraint per row of a 2-D int32 literal array, 0-padded as in a clause
block (``-v`` is the literal ``~x_v``), with int64 coefficients, and at most one objective to
minimise. Constraint order is block order, then row order.

>>> f = Opb()
>>> x = f.new_vars("x", 3)
>>> f.add("two", [x], 1, ">=", 2)
>>> f.add("same", [[1, 2]], [1, -1], "=", 0)
>>> f.minimise([1, -3], [2, 1])
>>> print(opb_bytes(f, {"family": "demo"}).decode(), end="")
* #variable= 3 #constraint= 2 #equal= 1 intsize= 3
* family: demo
min: +2 x1 +1 ~x3 ;
+1 x1 +1 x2 +1 x3 >= 2 ;
+1 x1 -1 x2 = 0 ;
>>> model = np.array([False, True, False, True])  # x1, ~x2, x3 (index 0 unused)
>>> f.violated(model).tolist(), f.cost(model)
([1], 2)

The text is the restricted format every reader we ran takes (Sat4j 2.3.5, SCIP 10, CPMpy 1.1,
the legacy VeriPB 0.3; MiniSat+ 1.0 reads no ``~``), each rule for what a reader did with a
file that broke it (tests/test_opb.py runs Sat4j and SCIP on a written file):

* line 1 is exactly ``* #variable= N #constraint= M #equal= E intsize= I``: Sat4j wants it on
  line 1, ``#variable=`` first and a space after each ``=``. M counts constraint lines (an
  ``=`` once), E the ``=`` lines, and I is the bit length of the largest sum of
  ``|coefficients| + |degree|`` of a constraint, or of ``|coefficients|`` of the objective (one
  third-party writer's definition; the PB24 document that defines intsize could not be read);
* the header follows as ``* key: value`` lines. Sat4j 2.3.5 skips the line after a comment
  line whose first word ends its line (``*``, ``* c1``, ``* key:``) -- a constraint, or
  silently the objective -- so every comment line written has a space after its first word;
* ``min:`` (never ``max:``) comes next, before every constraint;
* every term is ``+c xI`` or ``-c ~xI``, the sign attached (CPMpy misreads unsigned terms after
  the first); one constraint a line, ending `` >= d ;`` or `` = d ;`` with spaces (VeriPB
  refuses ``>=1;``), ``\\n`` line ends;
* no zero coefficient, no variable twice in one constraint, no constraint without a term, no
  empty objective (Sat4j refuses ``min: ;``), only ``>=`` and ``=``;
* every constraint's sum of ``|coefficients| + |degree|``, and the objective's sum of
  ``|coefficients|``, is below 2^63: readers with 64-bit integers read the file (SCIP refuses
  a coefficient of 2^64; PB26 expects solvers to use at least 64 bits), and int64 arithmetic
  on the formula cannot overflow.

Reading is strict about the same restricted format, one clear line naming the file and line
for each mistake: line 1 must be the counts line (``#equal=`` and ``intsize=`` optional);
comment lines start with ``*``; one optional ``min:`` line before the first constraint;
relations ``>=`` and ``=`` only; every constraint on one line, ending with `` ;``; terms
``<integer> x<N>`` or ``<integer> ~x<N>`` with N from 1 to ``#variable=`` (no leading zero);
``#constraint=`` and (when given) ``#equal=`` agree with the body. Coefficients and degrees
are integers of any size. The text is read a chunk at a time (whole lines, or a long line cut
where a token starts) and parsed by numpy (no Python object per term) beside a plain-Python
reference parser (:func:`_parse_reference`) that also words every error.

Reading is bounded as the DIMACS reader is by its p line: the counts line bounds the text
(:func:`opb_text_bound`; past it, :class:`~puzzlesat.generator.core.inputs.InputTooLong`
before the rest is read), the constraint past ``#constraint=`` is refused where it starts, what
is kept is the flat arrays (about 12 bytes a term and 17 a constraint, grown in place), and
the text is held a chunk of about 1 MB at a time: a comment line is held whole up to
:data:`~puzzlesat.generator.core.head.MAX_COMMENT_BYTES`, a token with the white space after
it up to :data:`MAX_TOKEN_BYTES`. A counts line that declares far more than the text holds
costs only what the text holds.

>>> g = parse_opb(opb_bytes(f, {"family": "demo"}), "demo")
>>> g.num_vars, g.num_constraints, g.num_equal, g.header, g.constraints()[1]
(3, 2, 1, {'family': 'demo'}, ([(1, 1), (-1, 2)], '=', 0))
>>> parse_opb(b"* #variable= 2 #constraint= 1\\n+1 x1 +1 x2 <= 1 ;\\n", "demo")
Traceback (most recent call last):
...
puzzlesat.generator.core.errors.UserError: demo: line 2: relation '<=': the competition format has only >= and =
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from puzzlesat.generator.core.cnf import LITERAL_DTYPE, Formula
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.head import MAX_COMMENT_BYTES, MAX_HEADER_LINES, Comments
from puzzlesat.generator.core.header import header_lines, parse_header
from puzzlesat.generator.core.inputs import bounded_pieces, input_pieces, open_input
from puzzlesat.generator.core.writer import Stage

#: an OPB text read with nothing to bound it: 1 GB, far past any instance this tool makes
MAX_OPB_BYTES = 1 << 30
#: the longest token (with the white space after it) a reader holds: a million-digit integer
MAX_TOKEN_BYTES = 1 << 20
RELATIONS = (">=", "=")
#: a constraint's sum of |coefficients| + |degree| in a formula built here is below this
INT_BOUND = 2**63
_INT64_MIN = np.iinfo(np.int64).min


# -- the formula --------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Block:
    name: str
    literals: np.ndarray  # (K, w) int32, 0 is padding
    coefs: np.ndarray  # (K, w) int64, 0 exactly where padded
    relation: str
    degrees: np.ndarray  # (K,) int64
    largest: int  # the largest sum of |coefficients| + |degree| of a row


class Opb:
    """A pseudo-Boolean formula: variables in a pool of named blocks, constraint blocks, an
    objective to minimise (see the module docstring)."""

    def __init__(self) -> None:
        self.pool = Formula()
        self._blocks: list[_Block] = []
        self._objective: tuple[np.ndarray, np.ndarray] | None = None
        self._objective_total = 0

    def new_vars(self, name: str, *shape: int) -> np.ndarray:
        """A new block of variables called ``name`` of ``shape``, numbered after the last; its
        ids (as :meth:`Formula.new_vars`)."""
        return self.pool.new_vars(name, *shape)

    @property
    def num_vars(self) -> int:
        """The number of variables (all allocated in ``pool``)."""
        return self.pool.num_vars

    def add(self, name: str, literals, coefs, relation: str, degree) -> None:
        """Append the constraints ``sum coefs[k] * literals[k] relation degree[k]``, one per row
        of ``literals`` (int32 (K, w), 0 is padding wherever it stands; a 1-D array is one
        row), ``coefs`` int64 (K, w) or (w,) (ignored where padded), ``degree`` one integer or
        (K,); a ValueError for anything the writer's rules forbid."""
        if relation not in RELATIONS:
            raise ValueError(f"constraint block {name!r}: relation {relation!r} is not >= or =")
        lits = np.asarray(literals, dtype=LITERAL_DTYPE)
        if lits.ndim == 1:
            lits = lits.reshape(1, -1)
        if lits.ndim != 2:
            raise ValueError(f"constraint block {name!r} must be 2-D, got shape {lits.shape}")
        if not lits.shape[0]:
            return
        try:
            given = np.broadcast_to(np.asarray(coefs, dtype=np.int64), lits.shape)
            degrees = np.array(np.broadcast_to(np.asarray(degree, dtype=np.int64),
                                               lits.shape[:1]))
        except (OverflowError, ValueError) as exc:  # beyond int64, or shapes that do not fit
            raise ValueError(f"constraint block {name!r}: {exc}") from None
        weights = np.where(lits == 0, 0, given)
        largest = _checked_terms(f"constraint block {name!r}", lits, weights, degrees,
                                 self.num_vars)
        self._blocks.append(_Block(name, np.ascontiguousarray(lits), weights, relation,
                                   degrees, largest))

    def minimise(self, literals, coefs) -> None:
        """Set the objective ``sum coefs[i] * literals[i]`` to minimise (flat arrays of equal
        length; no literal 0), at most once; a ValueError for anything the writer's rules
        forbid."""
        if self._objective is not None:
            raise ValueError("the objective is already set")
        lits = np.asarray(literals, dtype=LITERAL_DTYPE)
        try:
            weights = np.array(np.asarray(coefs, dtype=np.int64))
        except OverflowError as exc:
            raise ValueError(f"objective: {exc}") from None
        if lits.ndim != 1 or weights.shape != lits.shape:
            raise ValueError(f"objective: literals {lits.shape} and coefficients "
                             f"{weights.shape} must be flat arrays of one length")
        if (lits == 0).any():
            raise ValueError("objective: literal 0 (the objective is not padded)")
        self._objective_total = _checked_terms("objective", lits[None], weights[None],
                                               np.zeros(1, np.int64), self.num_vars)
        self._objective = (lits, weights)

    @property
    def num_constraints(self) -> int:
        """The number of constraints (lines of the text: an ``=`` counts once)."""
        return sum(b.literals.shape[0] for b in self._blocks)

    @property
    def num_equal(self) -> int:
        """The number of ``=`` constraints."""
        return sum(b.literals.shape[0] for b in self._blocks if b.relation == "=")

    @property
    def objective(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(literals int32, coefficients int64) of the objective, or None."""
        return self._objective

    def constraints(self) -> list[tuple[list[tuple[int, int]], str, int]]:
        """Every constraint as ``([(coefficient, literal), ...], relation, degree)``
        (reference path: tests, small formulas)."""
        out = []
        for b in self._blocks:
            for row, weights, degree in zip(b.literals.tolist(), b.coefs.tolist(),
                                            b.degrees.tolist()):
                out.append(([(c, l) for c, l in zip(weights, row) if l], b.relation, degree))
        return out

    def violated(self, model: np.ndarray) -> np.ndarray:
        """Indices (0-based, in constraint order) of the constraints ``model`` (bool, indexed
        by variable, index 0 unused) falsifies. Exact in int64: :meth:`add` keeps every
        constraint's sum of ``|coefficients|`` below 2^63, so no partial sum overflows."""
        model = np.asarray(model, dtype=bool)
        found, offset = [], 0
        for b in self._blocks:
            total = np.where(_truth(b.literals, model), b.coefs, 0).sum(axis=1)
            bad = total != b.degrees if b.relation == "=" else total < b.degrees
            found.append(np.flatnonzero(bad) + offset)
            offset += b.literals.shape[0]
        return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)

    def cost(self, model: np.ndarray) -> int:
        """The objective's value under ``model`` (0 without an objective); exact in int64, as
        :meth:`minimise` keeps the sum of ``|coefficients|`` below 2^63."""
        if self._objective is None:
            return 0
        lits, weights = self._objective
        return int(weights[_truth(lits, np.asarray(model, dtype=bool))].sum())

    @property
    def _intsize(self) -> int:
        """The bit length of the largest sum of ``|coefficients| + |degree|`` of a constraint
        or of ``|coefficients|`` of the objective."""
        return max([b.largest for b in self._blocks] + [self._objective_total]).bit_length()


def _checked_terms(what: str, lits: np.ndarray, weights: np.ndarray, degrees: np.ndarray,
                   num_vars: int) -> int:
    """The largest sum of ``|weights| + |degree|`` of a row, after checking the rows against
    the writer's rules (a ValueError naming ``what``)."""
    if lits.size and (int(lits.max()) > num_vars or int(lits.min()) < -num_vars):
        raise ValueError(f"{what} has a literal beyond {num_vars}")
    padding = lits == 0
    if (padding.all(axis=1)).any():
        raise ValueError(f"{what} has a constraint with no term")
    if ((weights == 0) & ~padding).any():
        raise ValueError(f"{what} has a zero coefficient")
    if (weights == _INT64_MIN).any() or (degrees == _INT64_MIN).any():
        raise ValueError(f"{what}: -2^63 is beyond the 63-bit bound")
    ordered = np.sort(np.abs(lits), axis=1)
    if ((ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] != 0)).any():
        raise ValueError(f"{what} has a variable twice in one constraint")
    largest = _largest_total(weights, degrees)
    if largest >= INT_BOUND:
        raise ValueError(f"{what}: |coefficients| + |degree| sum to 2^63 or more (beyond "
                         f"readers with 64-bit integers)")
    return largest


def _largest_total(weights: np.ndarray, degrees: np.ndarray) -> int:
    """The largest sum of ``|weights| + |degree|`` of a row, exactly: the magnitudes' high and
    low 32 bits are summed apart (fewer than 2^32 terms a row, so neither sum wraps)."""
    low32 = np.uint64(0xFFFFFFFF)
    magnitudes = np.abs(weights).astype(np.uint64)  # no -2^63 here: abs is exact
    extra = np.abs(degrees).astype(np.uint64)
    high = (magnitudes >> 32).sum(axis=1, dtype=np.uint64) + (extra >> 32)
    low = (magnitudes & low32).sum(axis=1, dtype=np.uint64) + (extra & low32)
    high += low >> 32
    low &= low32
    top = int(np.lexsort((low, high))[-1])
    return (int(high[top]) << 32) + int(low[top])


def _truth(literals: np.ndarray, model: np.ndarray) -> np.ndarray:
    """Whether each literal is true under ``model`` (bool, index 0 unused)."""
    value = model[np.abs(literals)]
    return np.where(literals > 0, value, ~value)


# -- the text -----------------------------------------------------------------------------------
# Every token's text (a coefficient and its space, a literal and its space, a constraint's end
# " >= d ;\n") is a row of a table of uint64 words, NUL-padded; a step of rows gathers its
# tokens' words side by side with np.take, and deleting the NUL bytes (bytes.translate) leaves
# the text. Tables hold one row per distinct value: a block's coefficients and degrees are
# few (a direct table over their range when it is narrow, else np.unique), the literals
# -V..V one table for the whole body.
_STEP_TERMS = 1 << 16  # terms per step: few numpy calls per MB, temporaries in cache
_DIRECT = 1 << 16  # a value range this narrow gets a row per value, with no sort
_DELETE_NUL = bytes(1)


def _decimal(magnitudes: np.ndarray) -> np.ndarray:
    """The decimal digits of ``magnitudes`` (int64, 0 <= m < 2^63) as uint8 rows, right-aligned
    with NUL before them (0 is ``0``)."""
    rest = magnitudes.astype(np.int64)
    width = len(str(int(rest.max()))) if rest.size else 1
    out = np.zeros((rest.size, width), dtype=np.uint8)
    for place in range(width):
        live = rest > 0 if place else np.ones(rest.size, dtype=bool)
        out[live, width - 1 - place] = ord("0") + rest[live] % 10
        rest //= 10
    return out


def _words(rows: int, *parts) -> np.ndarray:
    """Rows of text from ``parts`` (uint8 arrays of ``rows`` rows, or bytes for every row)
    side by side, NUL-padded to whole words: uint64 (rows, words)."""
    columns = [np.broadcast_to(np.frombuffer(p, np.uint8), (rows, len(p)))
               if isinstance(p, bytes) else p for p in parts]
    width = sum(c.shape[1] for c in columns)
    out = np.zeros((rows, -(-width // 8) * 8), dtype=np.uint8)
    at = 0
    for column in columns:
        out[:, at: at + column.shape[1]] = column
        at += column.shape[1]
    return out.view(np.uint64)


def _marks(chosen: np.ndarray, mark: bytes) -> np.ndarray:
    """A one-byte column: ``mark`` where ``chosen``, NUL elsewhere."""
    return np.where(chosen, ord(mark), 0).astype(np.uint8)[:, None]


def _coefficient_words(values: np.ndarray) -> np.ndarray:
    """``+c `` or ``-c `` for each value; 0 (padding only: no term has coefficient 0) is
    empty."""
    signs = np.where(values < 0, ord("-"), ord("+")).astype(np.uint8)[:, None]
    words = _words(values.size, signs, _decimal(np.abs(values)), b" ")
    words[values == 0] = 0
    return words


def _literal_words(values: np.ndarray) -> np.ndarray:
    """``xI `` or ``~xI `` for each literal value; 0 (padding) is empty."""
    words = _words(values.size, _marks(values < 0, b"~"), b"x", _decimal(np.abs(values)), b" ")
    words[values == 0] = 0
    return words


def _end_words(degrees: np.ndarray, relation: str) -> np.ndarray:
    """A constraint line's end, `` >= d ;\\n`` or ``= d ;\\n`` (after its last term's space),
    for each degree."""
    return _words(degrees.size, relation.encode("ascii") + b" ", _marks(degrees < 0, b"-"),
                  _decimal(np.abs(degrees)), b" ;\n")


def _token_index(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the values a table needs a row for, ascending; each value's row)."""
    if not values.size:
        return np.zeros(1, np.int64), np.zeros(values.shape, np.int64)
    low, high = int(values.min()), int(values.max())
    if high - low < _DIRECT:
        return np.arange(low, high + 1, dtype=np.int64), values.astype(np.int64) - low
    distinct, index = np.unique(values, return_inverse=True)
    return distinct.astype(np.int64), index.reshape(values.shape)


def _put_terms(stage: Stage, coef_words: np.ndarray, coef_index: np.ndarray,
               lit_words: np.ndarray, lit_index: np.ndarray, lit_offset: int,
               end_words: np.ndarray, end_index: np.ndarray) -> None:
    """The text of rows of terms, each row's terms then its end token, a step at a time:
    term (r, j) is coefficient ``coef_index[r, j]`` and literal ``lit_index[r, j] +
    lit_offset`` of the tables, row r ends with ``end_index[r]``."""
    rows, width = coef_index.shape
    kc, kl, ke = coef_words.shape[1], lit_words.shape[1], end_words.shape[1]
    step = max(1, _STEP_TERMS // max(width, 1))
    for first in range(0, rows, step):
        last = min(rows, first + step)
        out = np.empty((last - first, width * (kc + kl) + ke), dtype=np.uint64)
        terms = out[:, : width * (kc + kl)].reshape(last - first, width, kc + kl)
        terms[:, :, :kc] = np.take(coef_words, coef_index[first:last], axis=0)
        terms[:, :, kc:] = np.take(lit_words, lit_index[first:last].astype(np.int64)
                                   + lit_offset, axis=0)
        out[:, width * (kc + kl):] = np.take(end_words, end_index[first:last], axis=0)
        stage.put(out.tobytes().translate(None, _DELETE_NUL))


def stream_opb(opb: Opb, write) -> int:
    """Write the constraint lines of ``opb`` to ``write`` (pieces of about 1 MB), block by
    block; returns their number of bytes."""
    stage = Stage(write)
    if opb._blocks:
        top = opb.num_vars
        lit_words = _literal_words(np.arange(-top, top + 1, dtype=np.int64))
        for b in opb._blocks:
            coefs, coef_index = _token_index(b.coefs)
            degrees, end_index = _token_index(b.degrees)
            _put_terms(stage, _coefficient_words(coefs), coef_index, lit_words, b.literals, top,
                       _end_words(degrees, b.relation), end_index)
    stage.flush()
    return stage.total


def _objective_text(opb: Opb) -> bytes:
    """The ``min: ... ;`` line (b"" without an objective), its terms in rows of a step."""
    if opb.objective is None:
        return b""
    lits, coefs = opb.objective
    width = min(lits.size, _STEP_TERMS)
    rows = -(-lits.size // width)
    shaped = [np.zeros(rows * width, np.int64) for _ in range(2)]  # 0-padded terms
    shaped[0][: lits.size], shaped[1][: lits.size] = lits, coefs
    literals, lit_index = _token_index(shaped[0].reshape(rows, width))
    values, coef_index = _token_index(shaped[1].reshape(rows, width))
    ends = np.zeros(rows, np.int64)
    ends[-1] = 1
    out = io.BytesIO()
    stage = Stage(out.write)
    stage.put(b"min: ")
    _put_terms(stage, _coefficient_words(values), coef_index, _literal_words(literals),
               lit_index, 0, np.array([[0], [int.from_bytes(b";\n", "little")]], np.uint64),
               ends)
    stage.flush()
    return out.getvalue()


def opb_head(opb: Opb, header: dict | None = None) -> bytes:
    """The counts line, the header's ``* key: value`` lines (the keys and values of
    :func:`~puzzlesat.generator.core.header.header_lines`) and the ``min:`` line."""
    lines = [f"* #variable= {opb.num_vars} #constraint= {opb.num_constraints} "
             f"#equal= {opb.num_equal} intsize= {opb._intsize}"]
    lines += ["*" + line[1:] for line in header_lines(header or {})]  # "c key: value"
    return "".join(line + "\n" for line in lines).encode("ascii") + _objective_text(opb)


def opb_body(opb: Opb) -> bytes:
    """The constraint lines of ``opb``."""
    out = io.BytesIO()
    stream_opb(opb, out.write)
    return out.getvalue()


def opb_bytes(opb: Opb, header: dict | None = None) -> bytes:
    """Head and constraint lines: the whole OPB text."""
    return opb_head(opb, header) + opb_body(opb)


# -- reading ------------------------------------------------------------------------------------
@dataclass
class OpbFile:
    """A parsed OPB text: its header, ``#variable=``, the number of ``=`` constraints, the
    constraints as flat arrays (constraint i's terms are ``literals[starts[i]:starts[i+1]]``
    with ``coefs`` alike, its degree ``degrees[i]``, ``equal[i]`` for ``=``), the objective
    and the comment lines kept (header lines as ``c key: value``, as
    :func:`~puzzlesat.generator.core.header.parse_header` reads them), and the bytes of text
    read. Coefficients, degrees and objective coefficients are int64, or all Python integers
    (dtype object) when one of them needs more than 63 bits."""

    header: dict
    num_vars: int
    num_equal: int
    starts: np.ndarray
    literals: np.ndarray
    coefs: np.ndarray
    degrees: np.ndarray
    equal: np.ndarray
    objective: tuple[np.ndarray, np.ndarray] | None
    comments: Comments = field(default_factory=Comments)
    size: int = 0

    @property
    def num_constraints(self) -> int:
        """The number of constraints (lines: an ``=`` counts once)."""
        return int(self.starts.size) - 1

    def largest_variable(self) -> int:
        """The largest variable a term names (0 when none does)."""
        named = [self.literals, *([] if self.objective is None else [self.objective[0]])]
        return max([max(int(lits.max()), -int(lits.min())) for lits in named if lits.size]
                   or [0])

    def constraints(self) -> list[tuple[list[tuple[int, int]], str, int]]:
        """Every constraint as ``([(coefficient, literal), ...], relation, degree)``
        (reference path)."""
        lits, coefs, starts = self.literals.tolist(), self.coefs.tolist(), self.starts.tolist()
        return [(list(zip(coefs[a:b], lits[a:b])), "=" if same else ">=", degree)
                for a, b, same, degree in zip(starts[:-1], starts[1:], self.equal.tolist(),
                                              self.degrees.tolist())]

    def violated(self, model: np.ndarray) -> np.ndarray:
        """Indices (0-based) of the constraints ``model`` (bool, indexed by variable, index 0
        unused) falsifies, exactly: int64 sums split into high and low 32 bits (a file may hold
        coefficients that sum past 2^63), Python integers where the arrays hold them."""
        model = np.asarray(model, dtype=bool)
        found = [np.zeros(0, dtype=np.int64)]
        # constraints a slice of about a step's terms at a time: the temporaries (several
        # words a term) stay a step's, not the formula's
        cuts = np.unique(np.searchsorted(self.starts, np.arange(0, self.starts[-1],
                                                                _STEP_TERMS), "right") - 1)
        for first, last in zip(cuts.tolist(), [*cuts[1:].tolist(), self.num_constraints]):
            at, end = int(self.starts[first]), int(self.starts[last])
            chosen = np.where(_truth(self.literals[at:end], model), self.coefs[at:end], 0)
            firsts, degrees = self.starts[first:last] - at, self.degrees[first:last]
            if chosen.dtype == object or degrees.dtype == object:
                total = np.add.reduceat(chosen.astype(object), firsts)
                below, same = total < degrees, total == degrees
            else:
                below, same = _compare_sums(chosen, firsts, degrees)
            found.append(np.flatnonzero(np.where(self.equal[first:last], ~same, below)) + first)
        return np.concatenate(found)

    def cost(self, model: np.ndarray) -> int:
        """The objective's value under ``model``, exactly (0 without an objective)."""
        if self.objective is None:
            return 0
        lits, coefs = self.objective
        chosen = coefs[_truth(lits, np.asarray(model, dtype=bool))]
        if chosen.dtype == object:
            return sum(chosen.tolist())
        return (int((chosen >> 32).sum()) << 32) + int((chosen & 0xFFFFFFFF).sum())


def _compare_sums(values: np.ndarray, firsts: np.ndarray,
                  degrees: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sum < degree, sum == degree) for each segment of ``values`` starting at ``firsts``
    (int64 with |v| < 2^63, fewer than 2^31 a segment), exactly: high and low 32 bits are
    summed apart (neither sum wraps) and the degree taken off with a carry."""
    low32 = np.int64(0xFFFFFFFF)
    high = np.add.reduceat(values >> 32, firsts)
    low = np.add.reduceat(values & low32, firsts) - (degrees & low32)
    high = high - (degrees >> 32) + (low >> 32)  # sum - degree = high * 2^32 + (low & low32)
    return high < 0, (high == 0) & ((low & low32) == 0)


def read_opb(path: str | os.PathLike, limit: int = MAX_OPB_BYTES,
             holder: str = "an OPB instance") -> OpbFile:
    """Read a plain, .xz, .gz or .bz2 OPB file (compression detected from its bytes), at most
    ``limit`` bytes of text, nor past what its counts line allows (:func:`opb_text_bound`;
    an :class:`~puzzlesat.generator.core.inputs.InputTooLong` past either, naming what holds
    no more), a chunk at a time."""
    with open_input(path, "instance") as handle:
        pieces = bounded_pieces(handle, str(path), limit, holder, _CountsBound(limit, holder))
        return _parse_chunks(_cuts(pieces, str(path)), str(path))


def opb_pieces(path: str | os.PathLike, follow_symlinks: bool = True,
               limit: int = MAX_OPB_BYTES, holder: str = "an OPB instance") -> Iterator[bytes]:
    """The decompressed text of an OPB file in pieces, bounded as :func:`read_opb` reads
    it."""
    with open_input(path, "instance", follow_symlinks) as handle:
        yield from bounded_pieces(handle, str(path), limit, holder, _CountsBound(limit, holder))


def opb_text_limit(path: str | os.PathLike, limit: int = MAX_OPB_BYTES,
                   holder: str = "an OPB instance") -> tuple[int, str]:
    """(the most bytes of text :func:`read_opb` reads of the file, what holds no more):
    ``limit`` and ``holder``, or its counts line's bound when that is tighter (line 1 alone is
    read)."""
    bound = _CountsBound(limit, holder)
    with open_input(path, "instance") as handle, \
            contextlib.closing(input_pieces(handle, str(path))) as pieces:
        for piece in pieces:
            found = bound(piece)
            if found is not None:
                return found
    return bound.limit()


def parse_opb(text: bytes, name: str = "input") -> OpbFile:
    """Parse OPB text (the competition's restricted format), or a UserError saying what and
    where."""
    return _parse_chunks(_cuts([bytes(text)], name), name)


def opb_text_bound(num_vars: int, num_constraints: int, intsize: int | None = None) -> int:
    """The most bytes an OPB text with this counts line holds after it, as
    :func:`~puzzlesat.generator.core.reader.cnf_text_bound` bounds a DIMACS text by its p
    line: the objective and each constraint a line of at most one term per variable (no
    variable twice), each term at most ``-c ~xN `` with c of 19 digits (int64) or of
    ``intsize`` bits when line 1 declares more (a smaller one, which some writers put for any
    file, never narrows the bound), the line's end `` >= -d ;\\n`` alike; twice over for
    layout (CRLF, runs of white space, a variable twice now and then), plus
    :data:`~puzzlesat.generator.core.head.MAX_COMMENT_BYTES` of comments."""
    digits = max(_INT64_DIGITS, (intsize or 0) * 30103 // 100000 + 1)  # log10(2) = 0.30103
    term = len("-") + digits + len(" ~x") + len(str(num_vars)) + len(" ")
    end = len(" >= -") + digits + len(" ;\n")
    return 2 * (num_constraints + 1) * (num_vars * term + end) + MAX_COMMENT_BYTES


class _CountsBound:
    """A :data:`~puzzlesat.generator.core.inputs.Bound`: once line 1 is read, the text is
    bounded by what its counts declare (:func:`opb_text_bound`), or by ``cap`` when that is
    tighter or line 1 is not a counts line (the reader then says what is wrong with it)."""

    def __init__(self, cap: int, holder: str) -> None:
        self.head = b""  # the text's first bytes, up to the longest counts line and its newline
        self.cap, self.holder = cap, holder

    def __call__(self, piece: bytes) -> tuple[int, str] | None:
        self.head += piece[: _COUNTS_BYTES + 1 - len(self.head)]
        if self.head.find(b"\n") < 0 and len(self.head) <= _COUNTS_BYTES:
            return None
        return self.limit()

    def limit(self) -> tuple[int, str]:
        """The bound, line 1 being ``head`` up to its newline (or all of it)."""
        line = self.head.split(b"\n", 1)[0]
        try:
            counts = _counts_line(line, "")
        except UserError:
            return self.cap, self.holder
        bound = len(line) + 1 + opb_text_bound(counts.variables, counts.constraints,
                                                counts.intsize)
        if self.cap <= bound:
            return self.cap, self.holder
        return bound, f"an OPB instance with the counts line {_text(line.strip(), 200)}"


class _Counts(NamedTuple):
    """What line 1 declares."""

    variables: int
    constraints: int
    equal: int | None
    intsize: int | None = None


class _State(NamedTuple):
    """What the lines before a line hold: constraints, an objective, header lines."""

    constraints: int = 0
    objective: bool = False
    headers: int = 0


_COUNTS = re.compile(rb"\*[ \t]+#variable=[ \t]+([0-9]+)[ \t]+#constraint=[ \t]+([0-9]+)"
                     rb"(?:[ \t]+#equal=[ \t]+([0-9]+))?(?:[ \t]+intsize=[ \t]+([0-9]+))?[ \t\r]*")
_COUNT_DIGITS = 18  # a count longer than this cannot be true of a 1 GB text
#: the longest counts line: its counts' digits and white space between them (no writer pads it)
_COUNTS_BYTES = 4096
_INT64_DIGITS = len(str(2**63))


def _counts_line(line: bytes, name: str) -> _Counts:
    """The counts of line 1, or a UserError."""
    m = _COUNTS.fullmatch(line) if len(line) <= _COUNTS_BYTES else None
    if m is None:
        # a comment on line 1 (the counts line below it) is read by no Sat4j: say so
        before = (": the counts line comes first, before any comment" if line.startswith(b"*")
                  and b"#variable=" not in line[:_COUNTS_BYTES] else "")
        raise UserError(f"{name}: line 1: not the counts line '* #variable= N #constraint= M' "
                        f"(#equal= E intsize= I may follow), found {_text(line)}{before}")
    if any(len(g) > _COUNT_DIGITS for g in m.groups() if g is not None):
        raise UserError(f"{name}: line 1: a count of more than {_COUNT_DIGITS} digits")
    variables = int(m.group(1))
    if variables > np.iinfo(LITERAL_DTYPE).max:
        raise UserError(f"{name}: line 1: #variable= {variables} is beyond 2^31 - 1")
    equal, intsize = (None if g is None else int(g) for g in m.group(3, 4))
    return _Counts(variables, int(m.group(2)), equal, intsize)


def _check_totals(counts: _Counts, constraints: int, equal: int, name: str) -> None:
    """A UserError when the body disagrees with line 1."""
    if constraints != counts.constraints:
        raise UserError(f"{name}: line 1 declares #constraint= {counts.constraints}, the file "
                        f"holds {constraints}")
    if counts.equal is not None and equal != counts.equal:
        raise UserError(f"{name}: line 1 declares #equal= {counts.equal}, the file holds "
                        f"{equal}")


_HEADER = re.compile(rb"^\* ([A-Za-z][\w-]*: [^\n]*)", re.M)


def _header_text(match: re.Match) -> str:
    """A header line ``* key: value`` as the ``c key: value`` line parse_header reads
    (stripped, as :func:`~puzzlesat.generator.core.head.scan_comments` keeps a DIMACS one)."""
    return "c " + match.group(1).rstrip().decode("utf-8", "replace")


# -- the reference parser: plain Python, one line at a time; it words every error ---------------
_TOKEN = re.compile(rb"[^ \t\r\n]+")
_INTEGER = re.compile(rb"[+-]?[0-9]+")
_VARIABLE = re.compile(rb"(~?)x([0-9]+)")
_NAME = re.compile(rb"~?[A-Za-z_].*")
_BAD_RELATIONS = frozenset({b"<=", b">", b"<", b"!=", b"=<", b"=>", b"=="})
_STOPS = frozenset({b">=", b"=", b";"}) | _BAD_RELATIONS
_INT_DIGITS = 4000  # digits int() converts at once (Python refuses more than 4300)


def _integer(token: bytes) -> int:
    """The value of an integer token (``[+-]?[0-9]+``) of any length."""
    negative = token.startswith(b"-")
    value = _digits_value(token[1:] if token[:1] in (b"+", b"-") else token)
    return -value if negative else value


def _digits_value(digits: bytes) -> int:
    """The value of a run of decimal digits: halves past :data:`_INT_DIGITS` digits (Python's
    int() refuses long texts, and halving keeps the work near linear)."""
    if len(digits) <= _INT_DIGITS:
        return int(digits)
    half = len(digits) // 2
    return _digits_value(digits[:half]) * 10 ** (len(digits) - half) + _digits_value(
        digits[half:])


def _text(token: bytes, limit: int = 60) -> str:
    """A token (or line) quoted for an error line: bytes beyond ASCII escaped, cut to about
    ``limit`` characters."""
    text = token[:limit].decode("ascii", "backslashreplace")
    return f"'{text}'" + ("..." if len(token) > limit else "")


def _literal(token: bytes, num_vars: int, where: str) -> int:
    """The literal ``xI`` or ``~xI`` names, or a UserError."""
    m = _VARIABLE.fullmatch(token)
    if m is None:
        if _INTEGER.fullmatch(token):
            raise UserError(f"{where}two integers in a row ({_text(token)} where a variable "
                            f"should be)")
        if _NAME.fullmatch(token):
            raise UserError(f"{where}variable name {_text(token)}: the competition format "
                            f"names variables x1, x2, ...")
        raise UserError(f"{where}expected a variable (x1..x{num_vars} or ~x1..~x{num_vars}), "
                        f"found {_text(token)}")
    digits = m.group(2)
    if not digits.strip(b"0"):
        raise UserError(f"{where}variable {_text(token)}: variables are numbered from x1")
    if digits.startswith(b"0"):
        raise UserError(f"{where}variable {_text(token)} has a leading zero")
    if len(digits) > len(str(num_vars)) or int(digits) > num_vars:
        raise UserError(f"{where}variable {_text(token)} is beyond the #variable= {num_vars} "
                        f"of line 1")
    return -int(digits) if m.group(1) else int(digits)


def _reference_terms(tokens: list[bytes], at: int, num_vars: int,
                     where: str) -> tuple[list[tuple[int, int]], int]:
    """The terms from ``tokens[at]`` up to a relation or ``;``, and where they stop."""
    terms = []
    while at < len(tokens) and tokens[at] not in _STOPS:
        coef = tokens[at]
        if not _INTEGER.fullmatch(coef):
            if _NAME.fullmatch(coef):
                raise UserError(f"{where}a missing coefficient before {_text(coef)}")
            if coef[:1] in (b"<", b">", b"=", b"!"):
                raise UserError(f"{where}{_text(coef)}: the relation, the degree and ';' are "
                                f"tokens apart (' >= 1 ;')")
            raise UserError(f"{where}expected a coefficient (an integer), found {_text(coef)}")
        if at + 1 == len(tokens):
            raise UserError(f"{where}the coefficient {_text(coef)} has no variable")
        terms.append((_integer(coef), _literal(tokens[at + 1], num_vars, where)))
        at += 2
    return terms, at


def _reference_line(line: bytes, number: int, counts: _Counts, state: _State, name: str):
    """What line ``number`` (after line 1) holds: None (blank, or a comment other than a
    header line), ``("header", text)``, ``("objective", terms)`` or ``("constraint", terms,
    equal, degree)``; a UserError naming the line for any mistake."""
    where = f"{name}: line {number}: "
    if line.startswith(b"*"):
        header = _HEADER.match(line)
        if header is None:
            return None
        if state.headers >= MAX_HEADER_LINES:
            raise UserError(f"{where}more than {MAX_HEADER_LINES} header lines ('* key: "
                            f"value'): not a header this tool reads")
        return "header", _header_text(header)
    tokens = _TOKEN.findall(line)
    if not tokens:
        return None
    if tokens[0] == b"max:":
        raise UserError(f"{where}a max: objective: the competition format has only min:")
    objective = tokens[0] == b"min:"
    what = "objective" if objective else "constraint"
    if objective and state.constraints:
        raise UserError(f"{where}the objective (min:) after a constraint: it comes first")
    if objective and state.objective:
        raise UserError(f"{where}a second objective (min:)")
    # every mistake is named where its token stands, whatever follows on the line: a reader
    # holding part of a long line words it as the whole line would (the rest is never read)
    if not objective and state.constraints >= counts.constraints:
        raise UserError(f"{where}more constraints than the #constraint= {counts.constraints} "
                        f"of line 1")
    terms, at = _reference_terms(tokens, int(objective), counts.variables, where)
    unfinished = UserError(f"{where}the {what} does not end with ' ;' on its line")
    if at == len(tokens):
        raise unfinished
    stop = tokens[at]
    if stop in _BAD_RELATIONS:
        raise UserError(f"{where}relation {_text(stop)}: the competition format has only >= "
                        f"and =")
    if objective:
        if stop != b";":
            raise UserError(f"{where}relation {_text(stop)} in the objective")
        if not terms:
            raise UserError(f"{where}an empty objective")
        if at + 1 < len(tokens):
            raise UserError(f"{where}text after ';' (the objective is alone on its line)")
        return "objective", terms
    if stop == b";":
        raise UserError(f"{where}';' before the relation (>= or =) and the degree")
    if not terms:
        raise UserError(f"{where}a constraint with no term")
    if at + 1 == len(tokens):
        raise unfinished
    if not _INTEGER.fullmatch(tokens[at + 1]):
        raise UserError(f"{where}expected the degree (an integer) after {stop.decode()}, found "
                        f"{_text(tokens[at + 1])}")
    if at + 2 == len(tokens):
        raise unfinished
    if tokens[at + 2] != b";":
        raise UserError(f"{where}expected ';' after the degree, found {_text(tokens[at + 2])}")
    if at + 3 < len(tokens):
        raise UserError(f"{where}text after ';' (one constraint a line)")
    return "constraint", terms, stop == b"=", _integer(tokens[at + 1])


def _parse_reference(text: bytes, name: str = "input") -> OpbFile:
    """The plain-Python definition of what :func:`parse_opb` reads: line by line, a Python
    object per term (tests compare the two)."""
    lines = bytes(text).split(b"\n")
    counts = _counts_line(lines[0], name)
    state = _State()
    headers: list[str] = []
    literals: list[int] = []
    coefs: list[int] = []
    sizes, degrees, equal = [], [], []
    objective: list[tuple[int, int]] | None = None
    for number, line in enumerate(lines[1:], start=2):
        item = _reference_line(line, number, counts, state, name)
        if item is None:
            continue
        if item[0] == "header":
            headers.append(item[1])
            state = state._replace(headers=state.headers + 1)
        elif item[0] == "objective":
            objective = item[1]
            state = state._replace(objective=True)
        else:
            _, terms, same, degree = item
            coefs += [c for c, _ in terms]
            literals += [l for _, l in terms]
            sizes.append(len(terms))
            degrees.append(degree)
            equal.append(same)
            state = state._replace(constraints=state.constraints + 1)
    _check_totals(counts, len(sizes), sum(equal), name)
    values = coefs + degrees + [c for c, _ in objective or []]
    dtype = object if any(abs(v) >= INT_BOUND for v in values) else np.int64
    comments = Comments(header=headers)
    return OpbFile(
        parse_header(comments.header, name), counts.variables, sum(equal),
        np.array(list(itertools.accumulate(sizes, initial=0)), dtype=np.int64),
        np.array(literals, dtype=LITERAL_DTYPE), np.array(coefs, dtype=dtype),
        np.array(degrees, dtype=dtype), np.array(equal, dtype=bool),
        None if objective is None else (np.array([l for _, l in objective], LITERAL_DTYPE),
                                        np.array([c for c, _ in objective], dtype=dtype)),
        comments, len(text))


# -- the fast parser: numpy over steps of chunks of lines -----------------------------------------
# A text is read in chunks of about 1 MB of whole lines (a line longer than that is cut where a
# token starts, but for a comment line, held whole for its header text), and a chunk in steps of
# about 1 MB cut where a token starts, so that no temporary grows with a line. Every token
# is checked against the one before it on its line (the last token of a step is carried to the
# next): a constraint line is  coef var (coef var)* rel degree ;  and the objective line  min:
# coef var (coef var)* ;  where an integer right after a relation is the degree and any other a
# coefficient; a line's last token must be ';'. Line-wise rules (the objective first, no more
# constraints than line 1 declares, the header's size) are checked where a line starts. The
# first line that fails is handed to the reference parser, which words the error.
#
# A token's digits (after its sign, x or ~x) are read from the 8 bytes that end at its last
# byte, one unaligned uint64 word (two for 9 to 16 digits; more are read by Python, each paid
# for by its text): the bytes before the digits masked off, every byte checked to be a digit
# and the eight folded pairwise into their value in three multiply-adds (SWAR, as in
# reader.py's clause parser).
_WHITE = np.zeros(256, dtype=bool)
_WHITE[list(b" \t\r\n")] = True
_WORD_DIGITS = 16  # digits read from words; an int64 holds any 18
_STEP_BYTES = 1 << 20  # text a step reads: few numpy calls per MB, bounded temporaries
_CHUNK_BYTES = 1 << 20  # text per chunk, in whole lines where the lines allow
_SEARCH = 4096  # bytes looked at a time for the next token's start
_SEARCH_BACK = 1 << 16  # bytes looked at first, from the end, for a chunk's last token's start
_MIN_TEXT = np.frombuffer(b"min:", dtype=np.uint8)
_NIBBLES = np.uint64(0x0F0F0F0F0F0F0F0F)
_HIGH_NIBBLES = np.uint64(0xF0F0F0F0F0F0F0F0)
_ZEROS = np.uint64(0x3030303030303030)  # '0' in every byte
_SIXES = np.uint64(0x0606060606060606)  # a digit's low nibble + 6 stays below 16
_SIGN = np.ones(256, dtype=np.int64)  # by a token's first byte
_SIGN[list(b"-~")] = -1
#: the top k bytes of a word, k = 0..8 (where a run of k digits lies that ends the word)
_TOP = np.array([0] + [(1 << 64) - (1 << (64 - 8 * k)) for k in range(1, 9)], dtype=np.uint64)

# a token's role: what it is, and an integer right after a relation is the degree
_OTHER, _COEF, _VAR, _GE, _EQ, _SEMI, _MIN, _DEGREE, _START = range(9)
#: [objective line, role before, role] -> whether the role may follow (_START: the line's start)
_FOLLOWS = np.zeros((2, 9, 9), dtype=bool)
_FOLLOWS[:, _START, [_COEF, _MIN]] = True  # the first token decides the line's kind
_FOLLOWS[:, _COEF, _VAR] = True
_FOLLOWS[:, _VAR, _COEF] = True
_FOLLOWS[0, _VAR, [_GE, _EQ]] = True
_FOLLOWS[0, [_GE, _EQ], _DEGREE] = True
_FOLLOWS[0, _DEGREE, _SEMI] = True
_FOLLOWS[1, _MIN, _COEF] = True
_FOLLOWS[1, _VAR, _SEMI] = True
#: (objective line, the role of a line's last token so far) -> valid tokens that leave the
#: reference parser there: what stands for the part of a line an earlier chunk held, when the
#: reference words an error further on
_BEFORE = {(False, _COEF): b"+1", (False, _VAR): b"+1 x1", (False, _GE): b"+1 x1 >=",
           (False, _EQ): b"+1 x1 =", (False, _DEGREE): b"+1 x1 >= 1",
           (False, _SEMI): b"+1 x1 >= 1 ;", (True, _MIN): b"min:", (True, _COEF): b"min: +1",
           (True, _VAR): b"min: +1 x1", (True, _SEMI): b"min: +1 x1 ;"}


def _parse_chunks(chunks: Iterable[_Cut], name: str) -> OpbFile:
    """Parse OPB text given as chunks (:func:`_cuts`), one chunk at a time."""
    scanner: _Scanner | None = None
    for chunk in chunks:
        if scanner is None:
            end = chunk.text.find(b"\n")
            line = chunk.text if end < 0 else chunk.text[:end]
            scanner = _Scanner(_counts_line(line, name), name, len(line) + (end >= 0))
            chunk = _Cut(chunk.text[len(line) + 1:], True, chunk.closes)
        scanner.take(chunk)
    if scanner is None:  # an empty text: the error that names line 1
        scanner = _Scanner(_counts_line(b"", name), name, 0)
    return scanner.result()


class _Cut(NamedTuple):
    """A chunk of the text: whole lines, or part of a line longer than a chunk."""

    text: bytes
    opens: bool  # its first byte starts a line
    closes: bool  # it ends where a line ends (after a newline, or where the text ends)


def _cuts(pieces: Iterable[bytes], name: str, size: int = _CHUNK_BYTES) -> Iterator[_Cut]:
    """The text of ``pieces`` in chunks of ``size`` to ``2 * size`` bytes, each ending with a
    line's newline (the last where the text ends) or, inside a line longer than that, where a
    token starts; line 1 is held whole up to the longest counts line, a comment line whole (its
    header text is read from it) up to
    :data:`~puzzlesat.generator.core.head.MAX_COMMENT_BYTES`, and a token with the white space
    after it up to :data:`MAX_TOKEN_BYTES` (a UserError past either)."""
    held: bytes | bytearray = b""
    start = fresh = 0  # held[:start] is cut off; held[start:fresh] holds no newline
    opens, number = True, 1  # whether held[start:] starts a line; the line it starts in
    for piece in pieces:
        if start == len(held):  # nothing left over: a text given whole is not copied
            held, start, fresh = piece, 0, 0
        else:
            held = held if isinstance(held, bytearray) else bytearray(held)
            del held[:start]  # a bytearray drops its start without moving the rest
            held += piece
            start, fresh = 0, fresh - start
        while len(held) - start >= size:
            cut, closes, fresh = _next_cut(held, start, fresh, size, opens, number, name)
            if not cut:
                break
            text = bytes(held[start:cut])
            start = cut
            yield _Cut(text, opens, closes)
            number += text.count(b"\n")
            opens = closes
    if start < len(held):
        yield _Cut(bytes(held[start:]), opens, True)


def _next_cut(held: bytes | bytearray, start: int, fresh: int, size: int, opens: bool,
              number: int, name: str) -> tuple[int, bool, int]:
    """(where the chunk that starts at ``held[start]`` ends, 0 when more text is needed;
    whether a line ends there; how far the held text is known to hold no newline), the chunk
    cut as :func:`_cuts` says (``number``: the line it starts in)."""
    reach = min(len(held), start + 2 * size)
    newline = held.find(b"\n", max(start + size - 1, fresh), reach)
    if newline < 0:
        newline = held.rfind(b"\n", fresh, reach)
    if newline >= 0:
        return newline + 1, True, newline + 1
    # one line from start to reach and on
    whole = _COUNTS_BYTES if number == 1 else \
        MAX_COMMENT_BYTES if opens and held[start: start + 1] == b"*" else 0
    if whole:  # line 1 (its error quotes it) or a comment line: to its end
        newline = held.find(b"\n", reach, start + whole + 1)
        if newline >= 0:
            return newline + 1, True, newline + 1
        if len(held) - start <= whole:
            return 0, False, len(held)
        if number == 1:  # the error its whole would be
            _counts_line(bytes(held[start: start + _COUNTS_BYTES + 1]), name)
        raise UserError(f"{name}: line {number}: a comment line longer than "
                        f"{MAX_COMMENT_BYTES:,} bytes")
    cut = (_token_starts(held, max(reach - _SEARCH_BACK, start), reach, last=True)
           or _token_starts(held, start, reach, last=True))
    if cut:
        return cut, False, reach
    # a token and its white space longer than the chunk: cut after them, or where they end
    # the line
    far = min(len(held), start + MAX_TOKEN_BYTES + 1)
    newline = held.find(b"\n", reach, far)
    cut = _token_starts(held, reach - 1, far if newline < 0 else newline + 1)
    if cut:
        return cut, False, cut
    if newline >= 0:
        return newline + 1, True, newline + 1
    if len(held) - start > MAX_TOKEN_BYTES:
        raise UserError(f"{name}: line {number}: a token, or white space, longer than "
                        f"{MAX_TOKEN_BYTES:,} bytes")
    return 0, False, len(held)


def _token_starts(held: bytes | bytearray, begin: int, end: int, last: bool = False) -> int:
    """The first (``last``: the last) place in ``held[begin + 1: end]`` where a token starts
    (a byte that is not white after one that is), or 0."""
    if end - begin < 2:
        return 0
    white = _WHITE[np.frombuffer(held, np.uint8, end - begin, begin)]
    found = np.flatnonzero(white[:-1] & ~white[1:])
    return begin + 1 + int(found[-1 if last else 0]) if found.size else 0


class _Chunk(NamedTuple):
    """A chunk (:class:`_Cut`) and where its lines are."""

    text: bytes
    opens: bool
    closes: bool
    a: np.ndarray  # its bytes
    newlines: np.ndarray
    line_starts: np.ndarray  # the first is where the chunk starts, a line's start or not
    header_lines: np.ndarray
    overflow: int  # the first header line past the limit (the number of lines when none)
    before: bytes  # tokens as valid as those before the chunk on its first line (see _fail)


class _Tokens(NamedTuple):
    """A step's tokens (not on comment lines): where they are, what they are, their values."""

    starts: np.ndarray  # in the chunk
    first: np.ndarray  # the first token of its line
    last: np.ndarray  # the last token of its line
    role: np.ndarray
    value: np.ndarray  # int64: an integer's value (0 past 2^63), a variable's literal
    big: dict[int, int]  # token -> an integer of 2^63 or more in magnitude


class _Scanner:
    """The fast parser over the chunks of one text: what the lines read so far hold, the line
    the last step ended in, and the arrays read."""

    def __init__(self, counts: _Counts, name: str, size: int) -> None:
        self.counts, self.name = counts, name
        self.size = size  # bytes of text taken
        self.number = 2  # the line a chunk starts in
        self.constraints = 0  # constraint lines started
        self.objective = False  # the objective line started
        self.headers = 0  # header lines in earlier chunks
        self.comments = Comments()
        # the line the last step ended in: whether it ended there, what the lines before it
        # held, the role of its last token, whether it is a comment or the objective line
        self.ended, self.line_state, self.role = True, _State(), _START
        self.in_comment = self.in_objective = False
        # what is kept, grown in place (no list of pieces joined at the end: one copy at most)
        self.literals = _Column(LITERAL_DTYPE)
        self.coefs = _Column(np.int64)
        self.ends = _Column(np.int64)  # each constraint's end in literals and coefs, after a 0
        self.ends.add(np.zeros(1, np.int64))
        self.degrees = _Column(np.int64)
        self.equal = _Column(bool)
        self.objective_literals = _Column(LITERAL_DTYPE)
        self.objective_coefs = _Column(np.int64)
        # (index, value) of the integers of 2^63 or more in magnitude, left 0 in the arrays
        self.big_coefs: list[tuple[int, int]] = []
        self.big_degrees: list[tuple[int, int]] = []
        self.big_objective: list[tuple[int, int]] = []
        self.terms = self.num_degrees = self.objective_terms = 0

    def take(self, cut: _Cut) -> None:
        """Read one chunk (the next in the text)."""
        text = cut.text
        a = np.frombuffer(text, dtype=np.uint8)
        newlines = np.flatnonzero(a == ord("\n"))
        line_starts = np.concatenate(([0], newlines[newlines < a.size - 1] + 1)) \
            if a.size else newlines
        found = list(_HEADER.finditer(text)) if text.find(b"* ") >= 0 else []
        if found and not cut.opens and not found[0].start():  # '*' mid-line: not a comment
            found = found[1:]
        header_lines = np.searchsorted(newlines, np.array([m.start() for m in found], np.int64))
        over = header_lines[max(0, MAX_HEADER_LINES - self.headers):]
        if cut.opens:
            self.ended = True
        # tokens that leave the reference parser where the line the chunk starts in is, for
        # the words of an error in it: none yet, or the last token's role on its kind of line
        before = b" " + (b"" if self.ended else _BEFORE[self.in_objective, self.role] + b" ")
        chunk = _Chunk(text, cut.opens, cut.closes, a, newlines, line_starts, header_lines,
                       int(over[0]) if over.size else line_starts.size, before)
        for start, end in _steps(a):
            self._step(chunk, start, end)
        self.comments.add(Comments(header=[_header_text(m) for m in found]), self.name)
        self.headers += len(found)
        self.number += text.count(b"\n")
        self.size += len(text)

    def _step(self, c: _Chunk, start: int, end: int) -> None:
        """Read the tokens of ``c.a[start:end]`` (cut where tokens start)."""
        following = int(np.searchsorted(c.newlines, end)) if end < c.a.size \
            else c.line_starts.size  # the line the next step starts in
        t = self._tokens(c, start, end)
        if t is None:
            if c.overflow < following:  # header lines past the limit, and nothing else
                self._fail(c, c.overflow, -1, None)
            return
        # each token after the one before it on its line
        before = np.concatenate(([self.role], t.role[:-1])).astype(np.int8)
        before[t.first] = _START
        role = np.where((t.role == _COEF) & ((before == _GE) | (before == _EQ)), _DEGREE,
                        t.role)
        before = np.concatenate(([self.role], role[:-1])).astype(np.int8)
        before[t.first] = _START
        lead_min = t.first & (role == _MIN)
        objective = np.concatenate(([self.in_objective], lead_min[t.first]))[np.cumsum(t.first)]
        bad = ~_FOLLOWS[objective.astype(np.int8), before, role] | (t.last & (role != _SEMI))
        # the rules of whole lines, where they start
        constraint_lead = t.first & ~lead_min
        earlier = self.constraints + np.cumsum(constraint_lead) - constraint_lead
        bad |= lead_min & ((earlier > 0) | self.objective | (np.cumsum(lead_min) > 1))
        bad |= constraint_lead & (earlier >= self.counts.constraints)
        wrong = np.flatnonzero(bad)
        lines = [int(np.searchsorted(c.newlines, t.starts[wrong[0]]))] if wrong.size else []
        if c.overflow < following:  # a header line past the limit, before the next step
            lines.append(c.overflow)
        if lines:
            carried = -1 if t.first[0] else int(np.searchsorted(c.newlines, t.starts[0]))
            self._fail(c, min(lines), carried, (t.starts, constraint_lead, lead_min))
        self._keep(t, role, objective)
        # what the next step needs of the line this one ends in
        leads = np.flatnonzero(t.first)
        if leads.size:
            self.line_state = _State(int(earlier[leads[-1]]),
                                     self.objective or bool(lead_min[: leads[-1]].any()))
        self.role, self.in_objective = int(role[-1]), bool(objective[-1])
        self.constraints += int(np.count_nonzero(constraint_lead))
        self.objective = self.objective or bool(lead_min.any())

    def _tokens(self, c: _Chunk, start: int, end: int) -> _Tokens | None:
        """The tokens of ``c.a[start:end]`` off comment lines, and where lines start among
        them (None when there is none); ``self.ended`` and ``self.in_comment`` become the
        step's last line's."""
        a = c.a
        sub = a[start:end]
        white = _WHITE[sub]
        change = np.flatnonzero(white[1:] != white[:-1]) + 1
        if sub.size and not white[0]:
            change = np.concatenate(([0], change))
        if sub.size and not white[-1]:
            change = np.append(change, sub.size)
        starts, stops = change[0::2], change[1::2]
        if not starts.size:
            return None
        # a newline in the white space after each token: the token ends its line (the step's
        # last one too when the step ends the chunk where a line ends)
        newline = np.append(sub == ord("\n"), end == a.size and c.closes)
        gaps = np.logical_or.reduceat(newline, np.stack([stops, np.append(starts[1:], sub.size)],
                                                        axis=1).reshape(-1))
        ends_line = gaps[0::2] | np.append(np.zeros(starts.size - 1, bool), gaps[-1])
        first = np.concatenate(([self.ended], ends_line[:-1]))
        self.ended = bool(ends_line[-1])
        # comment lines: their first byte is '*'
        head = sub[starts]
        at = starts + start
        comment_lead = first & (head == ord("*")) & (((at == 0) & c.opens)
                                                     | (a[np.maximum(at - 1, 0)] == ord("\n")))
        comment = np.concatenate(([self.in_comment], comment_lead[first]))[np.cumsum(first)]
        self.in_comment = bool(comment[-1])
        keep = ~comment
        if not keep.any():
            return None
        starts, stops, head = starts[keep], stops[keep], head[keep]
        first, last = first[keep], ends_line[keep]
        length = stops - starts
        second = sub[np.minimum(starts + 1, sub.size - 1)]
        signed = (head == ord("+")) | (head == ord("-"))
        x = head == ord("x")
        tilde = (head == ord("~")) & (second == ord("x")) & (length >= 2)
        run = length - (signed | x) - 2 * tilde  # the digits after the sign, x or ~x
        ok, value = _digits(sub, starts, stops, run)
        role = np.full(starts.size, _OTHER, dtype=np.int8)
        role[ok & ~x & ~tilde] = _COEF
        variable = ok & (x | tilde) & (sub[np.minimum(stops - run, sub.size - 1)] != ord("0")) \
            & (run <= len(str(self.counts.variables))) & (value <= self.counts.variables)
        role[variable] = _VAR
        role[(length == 2) & (head == ord(">")) & (second == ord("="))] = _GE
        role[(length == 1) & (head == ord("="))] = _EQ
        role[(length == 1) & (head == ord(";"))] = _SEMI
        four = np.flatnonzero(length == 4)  # min: is the one token of four bytes
        role[four[(sub[starts[four][:, None] + np.arange(4)] == _MIN_TEXT).all(axis=1)]] = _MIN
        value *= _SIGN[head]  # -c, and ~xI as the literal -I (its range checked above)
        big = {}
        for i in np.flatnonzero(run > _WORD_DIGITS).tolist():  # each paid for by its text
            token = sub[starts[i]: stops[i]].tobytes()
            if _INTEGER.fullmatch(token):
                role[i] = _COEF
                exact = _integer(token)
                value[i] = exact if abs(exact) < INT_BOUND else 0
                if abs(exact) >= INT_BOUND:
                    big[i] = exact
        return _Tokens(starts + start, first, last, role, value, big)

    def _keep(self, t: _Tokens, role: np.ndarray, objective: np.ndarray) -> None:
        """Keep the terms, degrees, relations and objective terms of a step's tokens."""
        coef = (role == _COEF) & ~objective
        coefs = t.value[coef]
        self.big_coefs += _big(t.big, coef, self.terms)
        self.coefs.add(coefs)
        self.literals.add(t.value[(role == _VAR) & ~objective])
        degree = role == _DEGREE
        self.ends.add(self.terms + np.cumsum(coef)[degree])
        self.terms += coefs.size
        self.degrees.add(t.value[degree])
        self.big_degrees += _big(t.big, degree, self.num_degrees)
        self.num_degrees += int(np.count_nonzero(degree))
        self.equal.add(role[(role == _GE) | (role == _EQ)] == _EQ)
        if objective.any():
            weight = (role == _COEF) & objective
            self.objective_coefs.add(t.value[weight])
            self.big_objective += _big(t.big, weight, self.objective_terms)
            self.objective_terms += int(np.count_nonzero(weight))
            self.objective_literals.add(t.value[(role == _VAR) & objective])

    def _fail(self, c: _Chunk, bad: int, carried: int, leads) -> None:
        """Raise the reference parser's error for line ``bad`` of the chunk (the first line the
        checks refuse), given what the lines before it hold: ``carried`` is the line the
        step's first token continues (-1 when it starts a line), ``leads`` the step's token
        starts and its constraint and objective lines' first tokens."""
        begins = int(c.line_starts[bad])
        if bad == carried:  # a line an earlier step began: its first token is not here
            state = self.line_state
        else:
            state = _State(self.constraints, self.objective)
            if leads is not None:
                starts, constraint_lead, lead_min = leads
                earlier = starts < begins
                state = _State(
                    self.constraints + int(np.count_nonzero(constraint_lead & earlier)),
                    self.objective or bool((lead_min & earlier).any()))
        state = state._replace(
            headers=self.headers + int(np.count_nonzero(c.header_lines < bad)))
        end = int(c.newlines[bad]) if bad < c.newlines.size else len(c.text)
        line = c.text[begins:end] if bad or c.opens else c.before + c.text[:end]
        _reference_line(line, self.number + bad, self.counts, state, self.name)
        raise AssertionError(f"{self.name}: line {self.number + bad}: the fast OPB checks "
                             f"refuse a line the reference parser reads")

    def result(self) -> OpbFile:
        """The file, once every chunk is read."""
        equal = self.equal.array()
        num_equal = int(np.count_nonzero(equal))
        _check_totals(self.counts, self.constraints, num_equal, self.name)
        coefs, degrees = self.coefs.array(), self.degrees.array()
        objective = None if not self.objective else (
            self.objective_literals.array(), self.objective_coefs.array())
        if self.big_coefs or self.big_degrees or self.big_objective:  # Python integers for all
            coefs, degrees = _patched(coefs, self.big_coefs), _patched(degrees, self.big_degrees)
            if objective is not None:
                objective = (objective[0], _patched(objective[1], self.big_objective))
        return OpbFile(parse_header(self.comments.header, self.name), self.counts.variables,
                       num_equal, self.ends.array(), self.literals.array(), coefs, degrees,
                       equal, objective, self.comments, self.size)


def _digits(sub: np.ndarray, starts: np.ndarray, stops: np.ndarray,
            run: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the last ``run`` bytes of each token ``sub[starts:stops]`` are 1 to 16 decimal digits,
    their value as int64), from the words that end at ``stops`` and 8 bytes before."""
    padded = np.zeros(sub.size + 8, dtype=np.uint8)  # 8 NUL bytes before the step's first word
    padded[8:] = sub
    words = np.ndarray((sub.size + 1,), dtype=np.uint64, buffer=padded, strides=(1,))
    ok, value = _word_digits(words[stops], np.clip(run, 0, 8))
    wide = np.flatnonzero(run > 8)
    if wide.size:
        high_ok, high = _word_digits(words[stops[wide] - 8], np.clip(run[wide] - 8, 0, 8))
        ok[wide] &= high_ok & (run[wide] <= _WORD_DIGITS)
        value[wide] += high * 10**8
    return ok & (run > 0), value


def _word_digits(words: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the top ``count`` bytes of each word are decimal digits, their value): every byte
    0x30-0x39 (high nibble 3, and low nibble + 6 carries nothing into it), the low nibbles
    folded pairwise: 8 one-digit bytes, 4 two-digit halves, 2 four-digit quarters."""
    top = _TOP[count]
    text = words & top
    zeros = _ZEROS & top
    ok = ((text & _HIGH_NIBBLES) == zeros) & (((text + (_SIXES & top)) & _HIGH_NIBBLES) == zeros)
    value = text & _NIBBLES
    value = (value * 10 + (value >> 8)) & np.uint64(0x00FF00FF00FF00FF)
    value = (value * 100 + (value >> 16)) & np.uint64(0x0000FFFF0000FFFF)
    value = (value * 10000 + (value >> 32)) & np.uint64(0xFFFFFFFF)
    return ok, value.astype(np.int64)


def _big(big: dict[int, int], chosen: np.ndarray, offset: int) -> list[tuple[int, int]]:
    """(index among the ``chosen`` tokens + ``offset``, value) of the big integers chosen."""
    if not big:
        return []
    rank = np.cumsum(chosen) - 1
    return [(offset + int(rank[i]), v) for i, v in big.items() if chosen[i]]


class _Column:
    """A flat array appended to in place: grown by an eighth at least (realloc, which moves
    large blocks by remapping pages rather than copying them, and zero-fills only the new
    room: what it holds beyond its values is at most an eighth), trimmed once at the end."""

    def __init__(self, dtype) -> None:
        self.items = np.empty(0, dtype)
        self.size = 0

    def add(self, values: np.ndarray) -> None:
        """Append ``values`` (cast to the column's type)."""
        need = self.size + values.size
        if self.items.size < need:
            self.items.resize(max(need, self.items.size + self.items.size // 8), refcheck=False)
        self.items[self.size: need] = values
        self.size = need

    def array(self) -> np.ndarray:
        """The values appended, the spare room given back."""
        self.items.resize(self.size, refcheck=False)
        return self.items


def _patched(values: np.ndarray, patches: list[tuple[int, int]]) -> np.ndarray:
    """``values`` as Python integers with ``patches`` (index, value) written in."""
    out = values.astype(object)
    for i, v in patches:
        out[i] = v
    return out


def _steps(a: np.ndarray) -> Iterator[tuple[int, int]]:
    """Cuts of ``a`` into steps of about :data:`_STEP_BYTES`, each where a token starts."""
    start = 0
    while start < a.size:
        end = start + _STEP_BYTES
        while end < a.size:  # the next token's start: a byte that is not white after one that is
            window = _WHITE[a[end - 1: end + _SEARCH]]
            found = np.flatnonzero(window[:-1] & ~window[1:])
            if found.size:
                end += int(found[0])
                break
            end += _SEARCH
        end = min(end, a.size)
        yield start, end
        start = end

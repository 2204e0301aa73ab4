"""Weighted partial MaxSAT formulas and their WCNF text (the MaxSAT Evaluation's 2022+ format),
written and read.

A :class:`Wcnf` is a :class:`~puzzlesat.generator.core.cnf.Formula` of hard clauses and ordered
blocks of soft clauses, each soft clause with an integer weight. The text has no ``p`` line:
``c`` comment lines (our self-describing header), then one clause per line, hard clauses
``h l1 l2 ... 0``, soft clauses ``w l1 l2 ... 0`` with ``1 <= w < 2^63`` and the weights
summing below ``2^64 - 1``. Hard clauses come first, then the soft ones, each in block order.

The text is made by the DIMACS run writer (:mod:`.writer`): the first column of every
block holds a *token* (``h`` or a weight) whose text the writer's table carries after the
literals, so hard and soft lines are formatted at the writer's speed, one numpy pass per run.

>>> w = Wcnf()
>>> x = w.hard.new_vars("x", 3)
>>> w.hard.add("some", [[1, 2, 3]])
>>> w.add_soft("not", -x[:, None], 2)
>>> print(wcnf_bytes(w, {"family": "demo"}).decode(), end="")
c family: demo
h 1 2 3 0
2 -1 0
2 -2 0
2 -3 0
>>> w.cost(np.array([False, True, False, False]))
2

Reading is strict about everything the format forbids, one clear line for each mistake (a
:class:`UserError` naming the file and line): a ``p`` line (the pre-2022 format), a clause
line that starts with neither ``h`` nor a weight, a weight of 0, a negative weight, a weight
of 2^63 or more, weights summing to 2^64 - 1 or more, a clause that does not end with its
``0`` on its line, a ``0`` inside a clause, an empty clause, a literal beyond +-(2^31 - 1),
any other character. The text is read a chunk of lines at a time and parsed by numpy into
flat arrays (no Python object per line), so a file costs what its clauses hold.

>>> f = parse_wcnf(b"c x: 1\\nh 1 -2 0\\n3 2 0\\n", "demo")
>>> f.num_vars, f.hard.tolist(), f.soft.tolist(), f.weights.tolist(), f.header
(2, [1, -2, 0], [2, 0], [3], {'x': '1'})
>>> parse_wcnf(b"h 1 2\\n", "demo")
Traceback (most recent call last):
...
puzzlesat.generator.core.errors.UserError: demo: line 1: the clause does not end with 0
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from puzzlesat.generator.core.cnf import LITERAL_DTYPE, ClauseBlock, DeferredBlock, Formula
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.head import Comments, scan_comments
from puzzlesat.generator.core.header import header_lines, parse_header
from puzzlesat.generator.core.inputs import bounded_pieces, line_chunks, open_input
from puzzlesat.generator.core.reader import parse_literals
from puzzlesat.generator.core.writer import RunWriter, Stage

#: weights are 1 <= w < MAX_WEIGHT, their sum below MAX_TOTAL (the Evaluation's 2022+ rules)
MAX_WEIGHT = 2**63
MAX_TOTAL = 2**64 - 1
HARD = b"h"


@dataclass(frozen=True)
class SoftBlock:
    """Soft clauses (rows of ``literals``, zero-padded as in a clause block) and one weight
    per clause."""

    name: str
    literals: np.ndarray
    weights: np.ndarray  # uint64, one per row

    @property
    def num_clauses(self) -> int:
        """The number of soft clauses in the block."""
        return int(self.literals.shape[0])


@dataclass
class Wcnf:
    """Hard clauses (a Formula that owns the variables) and weighted soft clauses."""

    hard: Formula = field(default_factory=Formula)
    soft: list[SoftBlock] = field(default_factory=list)

    @property
    def num_vars(self) -> int:
        """The number of variables (all allocated in ``hard``)."""
        return self.hard.num_vars

    @property
    def num_soft(self) -> int:
        """The number of soft clauses."""
        return sum(b.num_clauses for b in self.soft)

    @property
    def total_weight(self) -> int:
        """The sum of the soft clauses' weights (exact, as a Python integer)."""
        return sum(sum(b.weights.tolist()) for b in self.soft)

    def add_soft(self, name: str, clauses, weight) -> None:
        """Append soft clauses (rows, zero-padded) with ``weight``: one integer for all, or one
        per clause; a ValueError when a weight or the total breaks the format's bounds."""
        lits = np.ascontiguousarray(np.atleast_2d(np.asarray(clauses, dtype=LITERAL_DTYPE)))
        given = [int(w) for w in np.broadcast_to(np.asarray(weight, dtype=object),
                                                 (lits.shape[0],))]
        if any(w < 1 or w >= MAX_WEIGHT for w in given):
            raise ValueError(f"soft block {name!r}: weights must be 1 <= w < 2^63")
        if lits.size and np.abs(lits).max() > self.num_vars:
            raise ValueError(f"soft block {name!r} has a literal beyond {self.num_vars}")
        block = SoftBlock(name, lits, np.array(given, dtype=np.uint64))
        if self.total_weight + sum(given) >= MAX_TOTAL:
            raise ValueError(f"soft block {name!r}: the weights sum to 2^64 - 1 or more")
        if lits.shape[0]:
            self.soft.append(block)

    def soft_literals(self) -> tuple[np.ndarray, np.ndarray]:
        """(flat soft literals, each clause followed by 0; weights as uint64), in file order."""
        flat = Formula()
        flat.num_vars = self.num_vars
        for b in self.soft:
            flat.add(b.name, b.literals)
        weights = [b.weights for b in self.soft]
        return (flat.flat_literals(),
                np.concatenate(weights) if weights else np.zeros(0, np.uint64))

    def cost(self, model: np.ndarray) -> int:
        """The summed weight of the soft clauses ``model`` (bool, index 0 unused) falsifies."""
        flat, weights = self.soft_literals()
        return falsified_weight(flat, weights, model)


def falsified_weight(flat: np.ndarray, weights: np.ndarray, model: np.ndarray) -> int:
    """The summed weight of the clauses of ``flat`` (each followed by 0, one weight per
    clause) that the bool ``model`` (index 0 unused) falsifies, as an exact integer."""
    falsified = falsified_mask(flat, model)
    return sum(int(w) for w in weights[falsified].tolist())


def falsified_mask(flat: np.ndarray, model: np.ndarray) -> np.ndarray:
    """One bool per clause of ``flat`` (each followed by 0): no literal of it is true."""
    ends = np.flatnonzero(flat == 0)
    if not ends.size:
        return np.zeros(0, dtype=bool)
    lits = flat.astype(np.int64)
    true = np.where(lits > 0, model[np.abs(lits)], ~model[np.abs(lits)]) & (lits != 0)
    starts = np.concatenate([[0], ends[:-1] + 1])
    satisfied = np.add.reduceat(true.astype(np.int64), starts) > 0
    return ~satisfied


# -- the text ----------------------------------------------------------------------------------
def wcnf_tokens(wcnf: Wcnf) -> tuple[list[bytes], np.ndarray]:
    """The writer's tokens (``h`` then every distinct weight, ascending) and the distinct
    weights (uint64): weight ``weights[i]`` is token ``i + 1``."""
    parts = [np.unique(b.weights) for b in wcnf.soft]
    weights = np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.uint64)
    return [HARD, *(str(w).encode("ascii") for w in weights.tolist())], weights


def _checked(block, num_vars: int) -> np.ndarray:
    lits = block.literals
    if lits.size and (int(lits.max()) > num_vars or int(lits.min()) < -num_vars):
        raise ValueError(f"clause block {block.name!r} has a literal beyond {num_vars}")
    return lits


def _with_first(column: np.ndarray, lits: np.ndarray) -> np.ndarray:
    out = np.empty((lits.shape[0], lits.shape[1] + 1), dtype=LITERAL_DTYPE)
    out[:, 0] = column
    out[:, 1:] = lits
    return out


def token_blocks(wcnf: Wcnf):
    """The hard blocks, then the soft ones, each with its token (``h`` or its weight) in a new
    first column; deferred hard blocks stay deferred."""
    num_vars = wcnf.num_vars
    _, weights = wcnf_tokens(wcnf)
    for block in wcnf.hard.blocks:
        rows, width = block.shape

        def make(block=block, rows=rows):
            return _with_first(np.full(rows, num_vars + 1), _checked(block, num_vars))

        yield DeferredBlock(block.name, (rows, width + 1), make, block.unit)
    for soft in wcnf.soft:
        column = num_vars + 2 + np.searchsorted(weights, soft.weights)
        yield ClauseBlock(soft.name, _with_first(column, _checked(soft, num_vars)))


def stream_wcnf_clauses(wcnf: Wcnf, write) -> int:
    """Write the clause lines of ``wcnf`` to ``write`` (pieces of about 1 MB); returns their
    number of bytes."""
    tokens, _ = wcnf_tokens(wcnf)
    return RunWriter(wcnf.num_vars, Stage(write), tokens=tokens).write_blocks(token_blocks(wcnf))


def wcnf_clause_bytes(wcnf: Wcnf) -> bytes:
    """The clause lines of ``wcnf`` as WCNF text (no header)."""
    out = io.BytesIO()
    stream_wcnf_clauses(wcnf, out.write)
    return out.getvalue()


def wcnf_head(header: dict | None = None) -> bytes:
    """The header's ``c`` lines (a 2022+ WCNF has no ``p`` line)."""
    return "".join(line + "\n" for line in header_lines(header or {})).encode("ascii")


def wcnf_bytes(wcnf: Wcnf, header: dict | None = None) -> bytes:
    """Header and clause lines: the whole WCNF text."""
    return wcnf_head(header) + wcnf_clause_bytes(wcnf)


# -- reading ----------------------------------------------------------------------------------
@dataclass
class WcnfFile:
    """A parsed WCNF: header, the hard and soft clauses as flat literal arrays (each clause
    followed by 0), one uint64 weight per soft clause, V = the largest variable, and the
    comment lines a reader keeps."""

    header: dict
    num_vars: int
    hard: np.ndarray
    soft: np.ndarray
    weights: np.ndarray
    comments: Comments = field(default_factory=Comments)

    @property
    def num_clauses(self) -> int:
        """Hard and soft clauses together."""
        return int(np.count_nonzero(self.hard == 0)) + int(self.weights.size)

    @property
    def total_weight(self) -> int:
        """The sum of the soft weights (exact)."""
        return sum(self.weights.tolist())

    def hard_falsified(self, model: np.ndarray) -> np.ndarray:
        """Indices of the hard clauses ``model`` (bool, index 0 unused) falsifies."""
        return np.flatnonzero(falsified_mask(self.hard, model))

    def cost(self, model: np.ndarray) -> int:
        """The summed weight of the soft clauses ``model`` falsifies."""
        return sum(self.weights[falsified_mask(self.soft, model)].tolist())


#: a WCNF text read without a header to bound it: 1 GB, far past any instance this tool makes
MAX_WCNF_BYTES = 1 << 30


def read_wcnf(path: str | os.PathLike, limit: int = MAX_WCNF_BYTES,
              holder: str = "a WCNF instance") -> WcnfFile:
    """Read a plain, .xz, .gz or .bz2 WCNF file (compression detected from its bytes), at
    most ``limit`` bytes of text (an :class:`~puzzlesat.generator.core.inputs.InputTooLong`
    past it, naming ``holder`` as what holds no more)."""
    with open_input(path, "instance") as handle:
        return _parse_chunks(line_chunks(handle, str(path), limit, holder), str(path))


def wcnf_pieces(path: str | os.PathLike, follow_symlinks: bool = True,
                limit: int = MAX_WCNF_BYTES, holder: str = "a WCNF instance") -> Iterator[bytes]:
    """The decompressed text of a WCNF file in pieces, at most ``limit`` bytes of it (as
    :func:`read_wcnf`)."""
    with open_input(path, "instance", follow_symlinks) as handle:
        yield from bounded_pieces(handle, str(path), limit, holder)


def parse_wcnf(text: bytes, name: str = "input") -> WcnfFile:
    """Parse WCNF 2022+ text (one clause per line), or a UserError saying what and where."""
    return _parse_chunks([bytes(text)], name)


def _parse_chunks(chunks: Iterable[bytes], name: str) -> WcnfFile:
    comments = Comments()
    hard: list[np.ndarray] = []
    soft: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    line, total = 0, 0
    for chunk in chunks:
        comments.add(scan_comments(chunk, name), name)
        parts = _parse_lines(chunk, name, line)
        hard.append(parts[0])
        soft.append(parts[1])
        weights.append(parts[2])
        total += _exact_sum(parts[2])
        line += chunk.count(b"\n")
    if total >= MAX_TOTAL:
        raise UserError(f"{name}: the soft weights sum to {total}, not below 2^64 - 1")
    flat_hard, flat_soft = _joined(hard, LITERAL_DTYPE), _joined(soft, LITERAL_DTYPE)
    num_vars = max([int(np.abs(a).max()) for a in (flat_hard, flat_soft) if a.size] or [0])
    return WcnfFile(parse_header(comments.header, name), num_vars, flat_hard, flat_soft,
                    _joined(weights, np.uint64), comments)


def _joined(parts: list[np.ndarray], dtype) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


def _exact_sum(weights: np.ndarray) -> int:
    """The sum of uint64 weights as an exact integer (numpy's would wrap)."""
    return (int(np.sum(weights >> np.uint64(32), dtype=np.uint64)) << 32) + int(
        np.sum(weights & np.uint64(0xFFFFFFFF), dtype=np.uint64))


_SPACE = np.zeros(256, dtype=bool)
_SPACE[list(b" \t\r\n")] = True
_LITERAL_BYTE = np.zeros(256, dtype=bool)
_LITERAL_BYTE[list(b"0123456789-")] = True
#: the most digits of a weight below 2^63 (leading zeros aside)
_WEIGHT_DIGITS = len(str(MAX_WEIGHT))


def _parse_lines(chunk: bytes, name: str, before: int) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
    """(hard flat literals, soft flat literals, soft weights) of the clause lines of
    ``chunk`` (whole lines; ``before`` lines precede it in the file), in numpy passes over its
    bytes; the first mistake in line order is a UserError naming its line."""
    a = np.frombuffer(chunk, dtype=np.uint8)
    if not a.size:
        empty = np.zeros(0, dtype=LITERAL_DTYPE)
        return empty, empty, np.zeros(0, dtype=np.uint64)
    space = _SPACE[a]
    line_of = np.cumsum(a == ord("\n")) - (a == ord("\n"))  # a newline ends its own line
    starts = np.flatnonzero(~space & np.concatenate(([True], space[:-1])))
    ends = np.flatnonzero(~space & np.concatenate((space[1:], [True])))
    token_line = line_of[starts]
    leads = np.concatenate(([True], token_line[1:] != token_line[:-1]))
    first_byte = a[starts[leads]]
    comment = np.zeros(int(line_of[-1]) + 1, dtype=bool)
    comment[token_line[leads]] = first_byte == ord("c")
    clause_line = ~comment[token_line]
    is_hard = np.zeros_like(comment)
    is_hard[token_line[leads]] = (first_byte == ord("h")) & (ends[leads] == starts[leads])
    problems: list[tuple[int, str]] = []  # (line, what), the earliest is reported

    def problem(lines: np.ndarray, what) -> None:
        if lines.size:
            problems.append((int(lines[0]), what(int(lines[0])) if callable(what) else what))

    lead_lines = token_line[leads]
    kinds = first_byte[~comment[lead_lines]]
    lead_clause = lead_lines[~comment[lead_lines]]
    problem(lead_clause[kinds == ord("p")],
            "a 'p' line: this is the pre-2022 WCNF format (the 2022+ format has no 'p' line; "
            "hard clauses start with 'h')")
    problem(lead_clause[kinds == ord("-")], lambda n: f"negative weight "
            f"{_token(chunk, starts, ends, leads, token_line, n)}")
    weight = (kinds >= ord("0")) & (kinds <= ord("9"))
    hard_lead = is_hard[lead_clause]
    other = ~weight & ~hard_lead & (kinds != ord("p")) & (kinds != ord("-"))
    problem(lead_clause[other], lambda n: f"a clause starts with 'h' or a weight, not "
            f"{_token(chunk, starts, ends, leads, token_line, n)!r}")
    # literal tokens: every token of a clause line after its first
    literal = clause_line & ~leads
    marks = np.zeros(a.size + 1, dtype=np.int32)
    marks[starts[literal]] += 1  # token starts are distinct, and so are the bytes after ends
    marks[ends[literal] + 1] -= 1
    in_literal = np.cumsum(marks[:-1]) > 0
    stray = np.flatnonzero(in_literal & ~_LITERAL_BYTE[a])
    problem(line_of[stray], lambda n: f"unexpected character "
            f"{chr(a[stray[0]]) if 32 <= a[stray[0]] < 127 else hex(a[stray[0]])!r}")
    weight_lines = lead_clause[weight]
    digits = _weight_digits(a, starts[leads][~comment[lead_lines]][weight],
                            ends[leads][~comment[lead_lines]][weight])
    problem(weight_lines[digits.bad], lambda n: f"a clause starts with 'h' or a weight, not "
            f"{_token(chunk, starts, ends, leads, token_line, n)!r}")
    problem(weight_lines[digits.long], lambda n: "a weight of more than "
            f"{_WEIGHT_DIGITS} digits is 2^63 or more")
    problem(weight_lines[digits.zero], "weight 0 (weights are 1 <= w < 2^63)")
    problem(weight_lines[digits.big], lambda n: f"weight "
            f"{_token(chunk, starts, ends, leads, token_line, n)} is 2^63 or more")
    if problems:  # the clause check needs clean literal text
        _raise(problems, name, before)
    text = np.where(in_literal, a, ord(" ")).astype(np.uint8).tobytes()
    values = parse_literals(text, name)
    lines = token_line[literal]
    last = np.concatenate((lines[1:] != lines[:-1], [True])) if lines.size else lines
    # clause lines with no literal token at all (a bare 'h' or weight)
    has_literal = np.zeros_like(comment)
    has_literal[lines] = True
    bare = lead_clause[~has_literal[lead_clause]]
    problem(bare, "the clause does not end with 0")
    problem(lines[last & (values != 0)], "the clause does not end with 0")
    problem(lines[~last & (values == 0)], "a 0 inside the clause")
    only_zero = last & (values == 0) & np.concatenate(([True], last[:-1]))
    problem(lines[only_zero], "an empty clause")
    if problems:
        _raise(problems, name, before)
    hard_value = is_hard[lines]
    return (values[hard_value].astype(LITERAL_DTYPE), values[~hard_value].astype(LITERAL_DTYPE),
            digits.values)


def _raise(problems: list[tuple[int, str]], name: str, before: int):
    line, what = min(problems, key=lambda p: p[0])
    raise UserError(f"{name}: line {before + line + 1}: {what}")


def _token(chunk: bytes, starts, ends, leads, token_line, line: int) -> str:
    """The first token of line ``line`` of the chunk, as text (at most 30 characters)."""
    index = int(np.flatnonzero(leads & (token_line == line))[0])
    return chunk[starts[index]: ends[index] + 1].decode("latin-1")[:30]


@dataclass
class _Weights:
    values: np.ndarray  # uint64, one per weight token (0 where the token is bad)
    bad: np.ndarray  # bool: a byte that is not a digit
    long: np.ndarray  # bool: more significant digits than any weight below 2^63
    zero: np.ndarray
    big: np.ndarray  # bool: 2^63 or more


def _weight_digits(a: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> _Weights:
    """The weights written from ``starts`` to ``ends`` (inclusive) in ``a``, digit position by
    digit position from the last (at most as many passes as the longest token has digits)."""
    length = ends - starts + 1
    values = np.zeros(starts.size, dtype=np.uint64)
    bad = np.zeros(starts.size, dtype=bool)
    long = np.zeros(starts.size, dtype=bool)
    scale = np.uint64(1)
    for place in range(int(length.max(initial=0))):
        here = place < length
        digit = a[np.where(here, ends - place, 0)].astype(np.int64) - ord("0")
        bad |= here & ((digit < 0) | (digit > 9))
        if place < _WEIGHT_DIGITS:
            values += np.where(here & ~bad, digit, 0).astype(np.uint64) * scale
            scale = scale * np.uint64(10) if place + 1 < _WEIGHT_DIGITS else scale
        else:
            long |= here & (digit != 0)
    long &= ~bad
    values[bad | long] = 0
    # 19 digits hold up to 10^19 - 1, below 2^64: the sum never wrapped
    return _Weights(values, bad, long, (values == 0) & ~bad & ~long,
                    values >= np.uint64(MAX_WEIGHT))

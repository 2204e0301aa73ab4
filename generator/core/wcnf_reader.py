"""Reading WCNF 2022+ text: strict about everything the format forbids, one clear line for
each mistake (a :class:`UserError` naming the file and line).

Refused: a ``p`` line (the pre-2022 format), a clause line that starts with neither ``h`` nor
a weight, a weight of 0, a negative weight, a weight of 2^63 or more, weights summing to
2^64 - 1 or more, a clause that does not end with its ``0`` on its line, a ``0`` inside a
clause, an empty clause, a literal beyond +-(2^31 - 1), any other character.

>>> w = parse_wcnf(b"c x: 1\\nh 1 -2 0\\n3 2 0\\n", "demo")
>>> w.num_vars, w.hard.tolist(), w.soft.tolist(), w.weights.tolist(), w.header
(2, [1, -2, 0], [2, 0], [3], {'x': '1'})
>>> parse_wcnf(b"h 1 2\\n", "demo")
Traceback (most recent call last):
...
puzzlesat.generator.core.errors.UserError: demo: line 1: the clause does not end with 0
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.header import parse_header
from puzzlesat.generator.core.inputs import open_input, read_stream
from puzzlesat.generator.core.reader import parse_literals
from puzzlesat.generator.core.wcnf import MAX_TOTAL, MAX_WEIGHT, falsified_mask

_ALLOWED = b"0123456789- \t\r"
_WEIGHT = re.compile(rb"[0-9]+")
#: bytes of WCNF text read at most (decompressed): 16 GB, far past any instance we make
MAX_WCNF_BYTES = 16 << 30


@dataclass
class WcnfFile:
    """A parsed WCNF: header, the hard and soft clauses as flat literal arrays (each clause
    followed by 0), one uint64 weight per soft clause, and V = the largest variable."""

    header: dict
    num_vars: int
    hard: np.ndarray
    soft: np.ndarray
    weights: np.ndarray
    comments: list[str] = field(default_factory=list)

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


def parse_wcnf(text: bytes, name: str = "input") -> WcnfFile:
    """Parse WCNF 2022+ text (one clause per line), or a UserError saying what and where."""
    comments: list[str] = []
    hard_lines: list[bytes] = []
    soft_lines: list[bytes] = []
    weights: list[int] = []
    for number, raw in enumerate(bytes(text).split(b"\n"), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith(b"c"):
            comments.append(line.decode("utf-8", "replace"))
            continue
        where = f"{name}: line {number}"
        if line.startswith(b"p"):
            raise UserError(f"{where}: a 'p' line: this is the pre-2022 WCNF format (the "
                            f"2022+ format has no 'p' line; hard clauses start with 'h')")
        first, rest = (line.split(None, 1) + [b""])[:2]
        if rest.translate(None, _ALLOWED):
            bad = rest.translate(None, _ALLOWED)[:1]
            raise UserError(f"{where}: unexpected character {bad.decode('latin-1')!r}")
        if not (rest == b"0" or rest.endswith((b" 0", b"\t0"))):
            raise UserError(f"{where}: the clause does not end with 0")
        if rest == b"0":
            raise UserError(f"{where}: an empty clause")
        if first == b"h":
            hard_lines.append(rest)
            continue
        if first.startswith(b"-"):
            raise UserError(f"{where}: negative weight {first.decode('latin-1')[:30]}")
        if not _WEIGHT.fullmatch(first):
            raise UserError(f"{where}: a clause starts with 'h' or a weight, not "
                            f"{first.decode('latin-1')[:30]!r}")
        digits = first.lstrip(b"0")
        if len(digits) > len(str(MAX_WEIGHT)):  # too long to be below 2^63 (or for int())
            raise UserError(f"{where}: a weight of {len(digits):,} digits is 2^63 or more")
        weight = int(digits or b"0")
        if weight == 0:
            raise UserError(f"{where}: weight 0 (weights are 1 <= w < 2^63)")
        if weight >= MAX_WEIGHT:
            raise UserError(f"{where}: weight {weight} is 2^63 or more")
        weights.append(weight)
        soft_lines.append(rest)
    if sum(weights) >= MAX_TOTAL:
        raise UserError(f"{name}: the soft weights sum to {sum(weights)}, not below 2^64 - 1")
    hard = _clauses(hard_lines, name, "hard")
    soft = _clauses(soft_lines, name, "soft")
    num_vars = max([int(np.abs(a).max()) for a in (hard, soft) if a.size] or [0])
    return WcnfFile(parse_header(comments, name), num_vars, hard, soft,
                    np.array(weights, dtype=np.uint64), comments)


def _clauses(lines: list[bytes], name: str, kind: str) -> np.ndarray:
    """The flat literals of clause lines each ending in its 0 (checked): a 0 anywhere else is
    a clause split in two, refused."""
    if not lines:
        return np.zeros(0, dtype=np.int32)
    literals = parse_literals(b"\n".join(lines), name)
    ends = np.flatnonzero(literals == 0)
    if ends.size != len(lines):
        # each line's last number is its 0 (checked by the caller): the first other 0,
        # however written (0, 00, ...), is found by where each line's numbers end
        line_ends = np.cumsum([len(line.split()) for line in lines]) - 1
        inner = ends[np.isin(ends, line_ends, invert=True)][0]
        inside = int(np.searchsorted(line_ends, inner))
        raise UserError(f"{name}: {kind} clause {inside + 1}: a 0 inside the clause")
    return literals


def read_wcnf(path: str | os.PathLike) -> WcnfFile:
    """Read a plain, .xz, .gz or .bz2 WCNF file (compression detected from its bytes)."""
    with open_input(path, "instance") as handle:
        text = read_stream(handle, str(path), MAX_WCNF_BYTES, "a WCNF instance")
    return parse_wcnf(text, str(path))

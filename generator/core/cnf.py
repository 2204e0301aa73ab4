"""CNF formulas held as numpy blocks.

A :class:`Formula` owns

* a variable pool of **named blocks**: ``x = f.new_vars("x", n_pieces, n_squares)``
  returns an int32 array of that shape whose entries are consecutive DIMACS variable
  numbers, allocated in C order after every earlier block;
* an ordered list of **clause blocks**: 2-D int32 arrays, one clause per row. Rows may be
  shorter than the block is wide: a row ends at its first 0 (zeros are padding, never a
  literal). This lets a family interleave clauses of different widths in exactly the order a
  published file uses while still building them with vectorised index arithmetic. A 3-D
  array ``(units, rows, width)`` adds ``units × rows`` clauses in C order and records
  ``unit = rows``: the writer formats units whose literals have the same text widths as one
  fixed-width array (e.g. the same template of clauses for every square of a board).
  A block may also be :class:`Deferred`: its shape now, its literals made when read, so the
  biggest groups need not be held whole while the formula is written.

The clause order of the formula is block order, then row order.

>>> f = Formula()
>>> x = f.new_vars("x", 2, 2)
>>> x
array([[1, 2],
       [3, 4]], dtype=int32)
>>> f.add("row_at_least_one", x)
>>> f.add("ragged", [[-1, -2, 0], [1, 3, 4]])
>>> f.num_vars, f.num_clauses
(4, 4)
>>> f.clauses()
[[1, 2], [3, 4], [-1, -2], [1, 3, 4]]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from puzzlesat.generator.core.counting import Projection

LITERAL_DTYPE = np.int32


@dataclass(frozen=True)
class VariableBlock:
    """A named, shaped range of consecutive variables ``first .. first+size-1``."""

    name: str
    first: int
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        """The number of variables in the block."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def ids(self) -> np.ndarray:
        """The block's variable ids, shaped like the block."""
        return np.arange(self.first, self.first + self.size, dtype=LITERAL_DTYPE).reshape(self.shape)

    def index_of(self, var: int) -> tuple[int, ...] | None:
        """The block index of DIMACS variable ``var``, or None if it is not in this block."""
        offset = var - self.first
        if 0 <= offset < self.size:
            return tuple(int(i) for i in np.unravel_index(offset, self.shape))
        return None


@dataclass(frozen=True)
class ClauseBlock:
    name: str
    literals: np.ndarray  # 2-D int32, rows are clauses, trailing zeros are padding
    unit: int = 1  # rows per unit (a 3-D block's middle axis); the layout never changes clauses

    @property
    def shape(self) -> tuple[int, int]:
        """(clauses, literals per clause) of the block."""
        return self.literals.shape

    @property
    def num_clauses(self) -> int:
        """The number of clauses in the block."""
        return int(self.literals.shape[0])


@dataclass(frozen=True)
class Deferred:
    """Clauses made when they are read: ``make()`` returns an int32 array of ``shape`` (2-D or
    3-D, as :meth:`Formula.add` takes), the same every time. A family adds its big groups
    this way, one piece at a time, so that writing a formula never holds all of it: each
    block is made just before the writer formats it, in memory that is reused (a fresh
    process pays for fresh memory in page faults)."""

    shape: tuple[int, ...]
    make: Callable[[], np.ndarray]


@dataclass(frozen=True)
class DeferredBlock:
    """A clause block from :class:`Deferred` clauses: ``literals`` is made on every read."""

    name: str
    shape: tuple[int, int]
    make: Callable[[], np.ndarray]
    unit: int = 1

    @property
    def literals(self) -> np.ndarray:
        """The block's clauses, made now (rows padded with 0)."""
        return np.ascontiguousarray(self.make(), dtype=LITERAL_DTYPE).reshape(self.shape)

    @property
    def num_clauses(self) -> int:
        """The number of clauses the block will make."""
        return self.shape[0]


def pairwise_at_most_one(groups: np.ndarray) -> np.ndarray:
    """Binary clauses (-a -b) for every pair a < b (by position) in each row of ``groups``.

    Pair order is lexicographic by position: (0,1), (0,2), ..., (1,2), ... per row, rows in
    order. Zeros in a row are treated as absent members.
    """
    groups = np.atleast_2d(np.asarray(groups, dtype=LITERAL_DTYPE))
    k = groups.shape[1]
    i, j = np.triu_indices(k, 1)
    pairs = np.stack([-groups[:, i], -groups[:, j]], axis=-1).reshape(-1, 2)
    return pairs[(pairs != 0).all(axis=1)]


class Formula:
    """Variables in named blocks, clauses in ordered numpy blocks (see module docstring)."""

    def __init__(self) -> None:
        self.num_vars = 0
        self.variables: dict[str, VariableBlock] = {}
        self.blocks: list[ClauseBlock | DeferredBlock] = []
        #: set on a model-counting instance: its track and shown variables (written as the
        #: ``c t`` and ``c p show`` lines, see :mod:`puzzlesat.generator.core.counting`)
        self.projection: Projection | None = None

    # -- variables -------------------------------------------------------------------------
    def new_vars(self, name: str, *shape: int) -> np.ndarray:
        """A new block of variables called ``name`` of ``shape``, numbered after the last; its
        ids."""
        if name in self.variables:
            raise ValueError(f"variable block {name!r} already exists")
        block = VariableBlock(name, self.num_vars + 1, tuple(int(s) for s in shape))
        self.variables[name] = block
        self.num_vars += block.size
        return block.ids

    def var(self, name: str) -> np.ndarray:
        """The variable ids of block ``name``."""
        return self.variables[name].ids

    def values(self, model: np.ndarray) -> dict[str, np.ndarray]:
        """A model (bool array indexed by variable, index 0 unused) read block by block:
        name -> the block's truth values, shaped like the block.

        >>> f = Formula()
        >>> _ = f.new_vars("x", 2), f.new_vars("y", 1, 2)
        >>> f.values(model_array([-1, 2, 3, -4], f.num_vars))
        {'x': array([False,  True]), 'y': array([[ True, False]])}
        """
        model = np.asarray(model, dtype=bool)
        return {name: model[block.ids] for name, block in self.variables.items()}

    # -- clauses ---------------------------------------------------------------------------
    def add(self, name: str, clauses) -> None:
        """Append the clauses (an array of rows or a :class:`Deferred`) as block ``name``."""
        if isinstance(clauses, Deferred):
            shape = clauses.shape
            unit = max(1, shape[1]) if len(shape) == 3 else 1
            rows = shape[0] * shape[1] if len(shape) == 3 else shape[0]
            if rows:
                self.blocks.append(DeferredBlock(name, (rows, shape[-1]), clauses.make, unit))
            return
        lits = np.asarray(clauses, dtype=LITERAL_DTYPE)
        unit = 1
        if lits.ndim == 1:
            lits = lits.reshape(1, -1)
        elif lits.ndim == 3:
            unit = max(1, lits.shape[1])
            lits = lits.reshape(-1, lits.shape[2])
        if lits.ndim != 2:
            raise ValueError(f"clause block {name!r} must be 2-D or 3-D, got shape {lits.shape}")
        if lits.shape[0]:
            self.blocks.append(ClauseBlock(name, np.ascontiguousarray(lits), unit))

    @property
    def num_clauses(self) -> int:
        """The number of clauses over all blocks."""
        return sum(b.num_clauses for b in self.blocks)

    def iter_clauses(self) -> Iterator[list[int]]:
        """Clauses as Python lists (reference path: tests, solvers, small formulas)."""
        for b in self.blocks:
            for row in b.literals.tolist():
                end = row.index(0) if 0 in row else len(row)
                yield row[:end]

    def clauses(self) -> list[list[int]]:
        """Every clause as a list of literals (reference path)."""
        return list(self.iter_clauses())

    def flat_literals(self) -> np.ndarray:
        """All clauses as one int32 array, each clause followed by its terminating 0."""
        parts = []
        for b in self.blocks:
            lits = b.literals
            body = np.concatenate([lits, np.zeros((lits.shape[0], 1), LITERAL_DTYPE)], axis=1)
            # keep each row up to and including its first zero
            keep = np.cumsum(body == 0, axis=1) - (body == 0) == 0
            parts.append(body[keep])
        return np.concatenate(parts) if parts else np.zeros(0, LITERAL_DTYPE)


def model_array(true_literals, num_vars: int) -> np.ndarray:
    """Bool model indexed by variable (index 0 unused) from a list of literals."""
    lits = np.asarray(list(true_literals), dtype=np.int64)
    model = np.zeros(num_vars + 1, dtype=bool)
    model[lits[(lits > 0) & (lits <= num_vars)]] = True
    return model

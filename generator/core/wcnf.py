"""Weighted partial MaxSAT formulas and their WCNF text (the MaxSAT Evaluation's 2022+ format).

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
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np

from puzzlesat.generator.core.cnf import LITERAL_DTYPE, ClauseBlock, DeferredBlock, Formula
from puzzlesat.generator.core.header import header_lines
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

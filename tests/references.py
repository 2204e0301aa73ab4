"""Plain-Python definitions the fast product code is tested against (test-only)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from puzzlesat.generator.core.cnf import LITERAL_DTYPE, Formula
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.integers import MAX_LITERAL
from puzzlesat.generator.families.sliding import npuzzle


def pad_rows(rows: Iterable[Sequence[int]]) -> np.ndarray:
    """Stack clauses of any widths into one zero-padded int32 block."""
    rows = [list(r) for r in rows]
    width = max((len(r) for r in rows), default=0)
    out = np.zeros((len(rows), width), dtype=LITERAL_DTYPE)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


def dimacs_problems(formula: Formula) -> list[str]:
    """Violations of clean DIMACS (empty clause, literal out of range, duplicate literal,
    tautology, zero inside a clause), one clause at a time; empty when clean."""
    found: set[str] = set()
    for block in formula.blocks:
        for row in block.literals.tolist():
            end = row.index(0) if 0 in row else len(row)
            clause, rest = row[:end], row[end:]
            if not clause:
                found.add(f"{block.name}: empty clause")
            if any(rest):
                found.add(f"{block.name}: zero inside a clause")
            if any(abs(lit) > formula.num_vars for lit in clause):
                found.add(f"{block.name}: literal beyond variable {formula.num_vars}")
            if len(set(clause)) < len(clause):
                found.add(f"{block.name}: duplicate literal in a clause")
            if any(-lit in clause for lit in clause):
                found.add(f"{block.name}: tautology (x and -x in one clause)")
    return sorted(found)


def falsified_clauses(clauses: list[list[int]], literals) -> list[int]:
    """Clauses with no literal among those given (the competition's rule for models)."""
    given = {int(lit) for lit in literals}
    return [i for i, clause in enumerate(clauses) if not any(lit in given for lit in clause)]


def bfs_distances(rows: int, cols: int) -> dict[tuple, int]:
    """Distance of every solvable configuration of a board of at most 9 squares."""
    if rows * cols > 9:
        raise ValueError("bfs_distances is for boards of at most 9 squares")
    dist = {npuzzle.goal(rows, cols): 0}
    frontier = [npuzzle.goal(rows, cols)]
    while frontier:
        nxt = []
        for config in frontier:
            for letter in npuzzle.MOVES:
                other = npuzzle.move(config, rows, cols, letter)
                if other is not None and other not in dist:
                    dist[other] = dist[config] + 1
                    nxt.append(other)
        frontier = nxt
    return dist


def has_one_colour_2x2(colors: np.ndarray) -> bool:
    """Does some 2x2 block of a Flow grid have a single colour?"""
    c = colors
    return bool(((c[:-1, :-1] == c[1:, :-1]) & (c[:-1, :-1] == c[:-1, 1:])
                 & (c[:-1, :-1] == c[1:, 1:])).any())


#: rows formatted at a time by the reference writer (bounded temporaries)
CHUNK_ROWS = 1 << 20


def numpy_clause_bytes(blocks, table: np.ndarray) -> bytes:
    """The reference writer (the definition the run writer is tested against):
    rows of the fixed-width literal ``table`` (:func:`puzzlesat.generator.core.writer.literal_table`) for every slot of a block, then the NUL padding
    deleted."""
    num_vars = (table.shape[0] - 1) // 2
    width = table.shape[1]
    # One opaque item per literal: fancy indexing copies whole rows in one step (much faster
    # than indexing a 2-D uint8 table).
    items = table.view(f"V{width}").ravel()
    out = []
    for block in blocks:
        lits = block.literals
        for start in range(0, lits.shape[0], CHUNK_ROWS):
            chunk = lits[start : start + CHUNK_ROWS]
            rows, cols = chunk.shape
            if chunk.size and np.abs(chunk).max() > num_vars:
                raise ValueError(f"clause block {block.name!r} has a literal beyond {num_vars}")
            text = np.empty((rows, cols * width + 2), dtype=np.uint8)
            text[:, : cols * width].view(f"V{width}")[:] = items[chunk.astype(np.int64) + num_vars]
            text[:, -2] = ord("0")
            text[:, -1] = ord("\n")
            out.append(text.tobytes().translate(None, b"\0"))
    return b"".join(out)


_INTEGER_TOKEN = re.compile(r"-[1-9][0-9]*|[0-9]+")


def integers_reference(text: bytes, name: str) -> list[int]:
    """The definition :func:`~puzzlesat.generator.core.reader.parse_literals` and :func:`~puzzlesat.generator.core.reader.parse_integers` are tested against,
    in plain Python: whitespace-separated tokens, each digits with an optional '-' before a
    digit 1-9, within +-:data:`~puzzlesat.generator.core.reader.MAX_LITERAL`."""
    tokens = text.decode("ascii").split()
    if not all(_INTEGER_TOKEN.fullmatch(token) for token in tokens):
        raise UserError(f"{name}: malformed literal (a '-' must start a number 1-9...)")
    values = [int(token) for token in tokens]
    if any(abs(value) > MAX_LITERAL for value in values):
        raise UserError(f"{name}: literal too large for DIMACS (|l| >= 2^31)")
    return values

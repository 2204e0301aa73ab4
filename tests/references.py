"""Plain-Python definitions the fast product code is tested against (test-only)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from puzzlesat.generator.core.cnf import LITERAL_DTYPE, Formula
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

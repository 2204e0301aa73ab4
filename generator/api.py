"""The families as Python functions, one per family, with the family's parameters as typed
keywords (their defaults are the ``PARAMS`` defaults, so an instance made here is the one
``puzzlesat generate`` makes, header and bytes alike).

Each returns an :class:`~puzzlesat.generator.instance.Instance` of the ``track`` asked for
(``sat``, the default; ``mc``, a counting CNF; ``maxsat``, a WCNF): the puzzle, its formula
(a :class:`~puzzlesat.generator.core.cnf.Formula` of numpy clause blocks and named variable
blocks, or a WCNF), the known answer and the self-describing header;
:meth:`Instance.text` gives the file's text.
"""

from __future__ import annotations

from typing import Any

from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.instance import Instance, build


def _instance(family: str, encoding: str | None, seed: int, solving: Solving | None,
              force: bool, track: str, params: dict[str, Any]) -> Instance:
    """:func:`~puzzlesat.generator.instance.build` with the keywords as params (None left
    out, as an option not given)."""
    return build(family, {k: v for k, v in params.items() if v is not None}, encoding, seed,
                 solving=solving, force=force, track=track)


def edge_matching(*, rows: int | None = None, cols: int | None = None,
                  border_colors: int | None = None, center_colors: int | None = None,
                  pieces: str | None = None, scramble: bool | None = None,
                  unbounded: bool | None = None, signed: bool | None = None,
                  turn_seed: int | None = None, unsat: str | None = None,
                  encoding: str | None = None, seed: int = 0,
                  solving: Solving | None = None, force: bool = False,
                  track: str = "sat") -> Instance:
    """An edge-matching instance (Heule 2009): a planted ``rows`` x ``cols`` board with
    ``border_colors`` and ``center_colors``, or the ``pieces`` of a file or built-in, in one
    of the family's encodings (compact, the default, fbcolors, explicit, all; as MaxSAT:
    sides).

    >>> inst = edge_matching(rows=3, border_colors=1, center_colors=1, seed=1)
    >>> inst.name, inst.expected, inst.expected_from
    ('em-3-1-1-s1-compact', 'SAT', 'planted')
    >>> print(*inst.text(header=False).splitlines()[:4], sep="\\n")
    p cnf 45 162
    1 9 22 30 0
    2 10 23 31 0
    3 11 24 32 0
    """
    return _instance("edge-matching", encoding, seed, solving, force, track, dict(
        rows=rows, cols=cols, border_colors=border_colors, center_colors=center_colors,
        pieces=pieces, scramble=scramble, unbounded=unbounded, signed=signed,
        turn_seed=turn_seed, unsat=unsat))


def sliding(*, rows: int | None = None, cols: int | None = None, korf: int | None = None,
            random_trace: int | None = None, k: int | None = None,
            start: list[int] | str | None = None, walk: int | None = None,
            budget: int | None = None, no_undo: bool = False, node_limit: int = 5_000_000,
            encoding: str | None = None, seed: int = 0, solving: Solving | None = None,
            force: bool = False, track: str = "sat") -> Instance:
    """A sliding-tile instance: does the ``start`` board (or a truncated optimal trace of
    Korf's instance ``korf``, a random ``walk`` from the goal, ...) reach the goal (blank
    first) in exactly ``budget`` moves? Encodings: rotated (the default), rotated-onehot,
    direct.

    >>> inst = sliding(start=[1, 0, 2, 3], budget=1)
    >>> inst.expected, inst.formula.num_vars, inst.formula.num_clauses
    ('SAT', 22, 104)
    >>> print(*inst.text(header=False).splitlines()[:3], sep="\\n")
    p cnf 22 104
    1 0
    -2 0
    """
    return _instance("sliding", encoding, seed, solving, force, track, dict(
        rows=rows, cols=cols, korf=korf, random_trace=random_trace, k=k, start=start,
        walk=walk, budget=budget, no_undo=no_undo, node_limit=node_limit))


def flow(*, width: int | None = None, height: int | None = None, colors: int | None = None,
         min_colors: int | None = None, max_colors: int | None = None, min_path: int = 3,
         unique: bool = False, puzzle: str | None = None, certify: bool = False,
         unsat: str | None = None, encoding: str | None = None, seed: int = 0,
         solving: Solving | None = None, force: bool = False,
         track: str = "sat") -> Instance:
    """A Flow Free instance (Zucker 2016): a planted ``width`` x ``height`` grid of
    ``colors`` paths, or a level file ``puzzle``. Encodings: zucker (the default), acyclic,
    zucker-2x2.
    ``unique`` and ``certify`` run a solver: pass ``solving``.

    >>> inst = flow(width=3, height=1, colors=1, seed=1)
    >>> print(inst.text(header=False), end="")
    p cnf 4 10
    1 0
    2 0
    2 0
    3 0
    2 0
    4 0
    -4 -2 1 0
    -4 2 -1 0
    -4 -2 3 0
    -4 2 -3 0
    """
    return _instance("flow", encoding, seed, solving, force, track, dict(
        width=width, height=height, colors=colors, min_colors=min_colors,
        max_colors=max_colors, min_path=min_path, unique=unique, puzzle=puzzle,
        certify=certify, unsat=unsat))

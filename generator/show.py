"""``puzzlesat show``: what an instance file says about itself."""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.core.files import atomic_write, check_writable
from puzzlesat.generator.core.header import header_lines
from puzzlesat.generator.core.inputs import check_distinct
from puzzlesat.generator.core.reader import read_dimacs
from puzzlesat.generator.core.sniff import is_wcnf
from puzzlesat.generator.core.wcnf_reader import read_wcnf
from puzzlesat.generator.instance import puzzle_from_header
from puzzlesat.generator.maxsat import puzzle_from_wcnf_header


def show_instance(path: str, svg_path: str | None = None) -> str:
    """The header, the puzzle's picture and the counts of the instance at ``path``; the
    puzzle drawn as SVG to ``svg_path`` when given."""
    check_distinct(("the instance", path), ("--svg", svg_path))
    if svg_path:
        check_writable(svg_path, "--svg")
    if is_wcnf(path):
        return _show_wcnf(path, svg_path)
    dimacs = read_dimacs(path)
    lines = header_lines(dimacs.header) if dimacs.header else ["(no puzzlesat header)"]
    ends = dimacs.clause_ends
    lengths = np.diff(np.concatenate([[-1], ends])) - 1
    hist = np.bincount(lengths) if lengths.size else np.zeros(0, np.int64)
    widths = ", ".join(f"{n}×{w}" for w, n in enumerate(hist.tolist()) if n)
    lines += ["", f"variables: {dimacs.num_vars}", f"clauses: {dimacs.num_clauses} ({widths or 'none'})",
              f"literals: {int(lengths.sum())}", f"gbd-hash: {dimacs.gbd_hash}"]
    if "puzzle" in dimacs.header:
        family, puzzle, _ = puzzle_from_header(dimacs.header, dimacs.num_vars, dimacs.num_clauses)
        lines += ["", family.render(puzzle)]
        if svg_path:
            atomic_write(svg_path, family.render_svg(puzzle).encode())
    return "\n".join(lines)


def _show_wcnf(path: str, svg_path: str | None) -> str:
    """:func:`show_instance` for a WCNF instance: header, counts, total weight, picture."""
    wcnf = read_wcnf(path)
    lines = header_lines(wcnf.header) if wcnf.header else ["(no puzzlesat header)"]
    lines += ["", "format: WCNF 2022+", f"variables: {wcnf.num_vars}",
              f"hard clauses: {int(np.count_nonzero(wcnf.hard == 0))}",
              f"soft clauses: {wcnf.weights.size} (total weight {wcnf.total_weight})"]
    if "puzzle" in wcnf.header:
        family, _, puzzle, _ = puzzle_from_wcnf_header(wcnf.header)
        lines += ["", family.render(puzzle)]
        if svg_path:
            atomic_write(svg_path, family.render_svg(puzzle).encode())
    return "\n".join(lines)

"""``puzzlesat show``: what an instance file says about itself."""

from __future__ import annotations

from puzzlesat.generator.core.files import atomic_write, check_writable
from puzzlesat.generator.core.head import read_head
from puzzlesat.generator.core.header import header_lines
from puzzlesat.generator.core.inputs import check_distinct
from puzzlesat.generator.instance import puzzle_from_header
from puzzlesat.generator.tracks import track_of_head


def show_instance(path: str, svg_path: str | None = None) -> str:
    """The header, the counts and the puzzle's picture of the instance at ``path`` (any
    track's file); the puzzle drawn as SVG to ``svg_path`` when given."""
    check_distinct(("the instance", path), ("--svg", svg_path))
    if svg_path:
        check_writable(svg_path, "--svg")
    track = track_of_head(read_head(path))
    parsed = track.read(path)
    lines = header_lines(parsed.header) if parsed.header else ["(no puzzlesat header)"]
    lines += ["", *track.file_lines(parsed)]
    if "puzzle" in parsed.header:
        variables, clauses = track.file_sizes(parsed)
        family, puzzle, _ = puzzle_from_header(parsed.header, variables, clauses, track)
        lines += ["", family.render(puzzle)]
        if svg_path:
            atomic_write(svg_path, family.render_svg(puzzle).encode())
    return "\n".join(lines)


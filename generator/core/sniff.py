"""Which format an instance file holds, WCNF or DIMACS CNF, told from its first lines. A module
of its own: telling costs neither reader's imports (the WCNF reader's bring the WCNF writer)."""

from __future__ import annotations

import os

from puzzlesat.generator.core.inputs import input_pieces, open_input


def _head(path: str | os.PathLike) -> tuple[list[bytes], bytes]:
    """(the comment lines at the start of an instance, its first other line: b"" when there is
    none), reading no further (and no line longer than :data:`MAX_WCNF_LINE`)."""
    comments: list[bytes] = []
    held = b""
    with open_input(path, "instance") as handle:
        pieces = input_pieces(handle, str(path))
        try:
            for piece in pieces:
                held += piece
                *lines, held = held.split(b"\n")
                for raw in lines:
                    line = raw.strip()
                    if line and not line.startswith(b"c"):
                        return comments, line
                    if line:
                        comments.append(line)
                if len(held) > MAX_WCNF_LINE:
                    return comments, held[:MAX_WCNF_LINE]
        finally:
            pieces.close()
    line = held.strip()
    if line.startswith(b"c"):
        return comments + [line], b""
    return comments, line


def is_wcnf(path: str | os.PathLike) -> bool:
    """Whether the instance at ``path`` is WCNF: its first line that is not a comment is a
    hard clause or a ``p wcnf`` line, or its header says ``format: wcnf-2022`` (a DIMACS CNF
    has a ``p cnf`` line there). Reads the comments and one line more (stdin cannot be read
    twice: ``-`` is never WCNF here)."""
    if str(path) == "-":
        return False
    comments, first = _head(path)
    # a pre-2022 WCNF (``p wcnf``) is read as WCNF too, to be refused with a clear line; a
    # file of bare numeric clauses is a DIMACS file without its p line unless its header says
    # it is WCNF
    return (first.startswith(b"h") or first.split()[:2] == [b"p", b"wcnf"]
            or WCNF_HEADER_LINE in comments)


#: the header line of every WCNF instance this tool writes
WCNF_HEADER_LINE = b"c format: wcnf-2022"
#: the longest line :func:`is_wcnf` holds while looking for the first clause
MAX_WCNF_LINE = 1 << 24

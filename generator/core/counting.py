"""Model-counting instances: the Model Counting Competition's lines in a DIMACS file, written and
read back.

A counting instance is an ordinary instance with two more kinds of comment lines: ``c t mc`` or
``c t pmc`` (the track) as the file's first line, and for ``pmc`` the projection set as
``c p show v1 v2 ... 0`` right after the ``p`` line. Both are comments, so the GBD hash (which
skips ``c`` and ``p`` lines) and every SAT solver see the same formula as without them. Our
header adds the known count (``c count: N``, a decimal integer) and how it is known
(``c count-from: ...``).

>>> p = Projection("pmc", np.array([1, 3], dtype=np.int32))
>>> track_lines(p), show_lines(p)
(['c t pmc'], ['c p show 1 3 0'])
>>> from puzzlesat.generator.core.head import scan_comments
>>> read_projection(scan_comments(b"c t pmc\\nc p show 1 3 0\\n"), 4, "x.cnf").shown.tolist()
[1, 3]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.head import Comments
from puzzlesat.generator.core.integers import minus_signs_ok, parse_integers

#: the competition's problem types (its tracks); we write ``mc`` and ``pmc`` (no weights)
PLAIN, PROJECTED = "mc", "pmc"
TYPES = (PLAIN, PROJECTED, "wmc", "pwmc")
#: the longest count read, in decimal digits: Python's default limit on converting text to int
#: (a longer count, beyond 10^4300, is refused in one line instead of raising in int())
MAX_COUNT_DIGITS = 4300


@dataclass(frozen=True)
class Projection:
    """The counting problem's type, as the competition's ``c t`` and ``c s type`` lines say it
    (``mc`` or ``pmc``), and the shown variables (sorted, distinct, int32)."""

    type: str
    shown: np.ndarray

    @property
    def size(self) -> int:
        """The number of shown variables: the count is at most 2 to this power."""
        return int(self.shown.size)


def projection_of(shown, num_vars: int) -> Projection:
    """The projection onto ``shown``: track ``mc`` when it is every variable (nothing is
    projected away), else ``pmc``."""
    ids = np.unique(np.asarray(shown, dtype=np.int64))
    if ids.size and (ids[0] < 1 or ids[-1] > num_vars):
        raise ValueError(f"shown variables must lie in 1..{num_vars}")
    return Projection(PLAIN if ids.size == num_vars else PROJECTED, ids.astype(np.int32))


def track_lines(projection: Projection | None) -> list[str]:
    """The ``c t`` line that opens a counting instance (none for an ordinary one)."""
    return [] if projection is None else [f"c t {projection.type}"]


def show_lines(projection: Projection | None) -> list[str]:
    """The ``c p show ... 0`` line that follows the ``p`` line of a ``pmc`` instance: one line,
    which every reader of the format accepts."""
    if projection is None or projection.type == PLAIN:
        return []
    return ["c p show " + " ".join(map(str, projection.shown.tolist())) + " 0"]


_TRACK = re.compile(r"^c[ \t]+t[ \t]+(\S+)[ \t]*$")


def read_projection(comments: Comments, num_vars: int, name: str) -> Projection | None:
    """The track and projection set of a file from its kept comment lines (:class:`Comments`),
    or None when it has no ``c t`` line. A UserError for a file that contradicts itself: a
    track we do not count (weighted), ``c p show`` in an ``mc`` file or without a ``c t``
    line, a shown variable outside ``1..num_vars``, a show line not ending in 0. A ``pmc``
    file without a show line projects onto every variable (the competition's rule). Two ``c
    t`` lines were refused when the comments were kept."""
    types = [m.group(1) for m in map(_TRACK.match, comments.tracks) if m]
    if len(types) != len(comments.tracks):
        raise UserError(f"{name}: a 'c t' line without a track")
    if not types:
        if comments.shows:
            raise UserError(f"{name}: 'c p show' without a 'c t' line")
        return None
    kind = types[0]
    if kind not in (PLAIN, PROJECTED):
        named = kind if kind in TYPES else repr(kind[:20])
        raise UserError(f"{name}: track {named} is not one puzzlesat counts (mc, pmc)")
    if kind == PLAIN and comments.shows:
        raise UserError(f"{name}: 'c t mc' with a 'c p show' line (a projection is pmc)")
    if not comments.shows:
        return Projection(kind, np.arange(1, num_vars + 1, dtype=np.int32))
    return Projection(PROJECTED, _shown(comments.shows, num_vars, name))


def _shown(shows: bytes, num_vars: int, name: str) -> np.ndarray:
    """The distinct variables the ``c p show`` lines ``shows`` (joined by newlines) name, each
    line ending in its 0 and holding no other 0, read in a few numpy passes however many
    lines there are."""
    text = _SHOW_WORD.sub(b" ", shows) + b"\n"
    if text.translate(None, b"0123456789- \t\r\n") or (b"-" in text
                                                          and not minus_signs_ok(text)):
        raise UserError(f"{name}: 'c p show' names something that is not a variable")
    try:
        values = parse_integers(text, name)
    except UserError:  # a number past any variable
        raise UserError(f"{name}: 'c p show' names something that is not a variable") from None
    a = np.frombuffer(text, np.uint8)
    digit = (a >= ord("0")) & (a <= ord("9"))
    token_ends = np.flatnonzero(digit & ~np.append(digit[1:], False))
    line_of = np.searchsorted(np.flatnonzero(a == ord("\n")), token_ends)
    last = np.append(line_of[1:] != line_of[:-1], True) if line_of.size else line_of
    lines = int(np.count_nonzero(a == ord("\n")))
    if np.unique(line_of).size != lines or not np.array_equal(values == 0, last):
        raise UserError(f"{name}: a 'c p show' line does not end in 0 (or holds another 0)")
    shown = values[values != 0]
    if shown.size and (shown.min() < 1 or shown.max() > num_vars):
        bad = int(shown[(shown < 1) | (shown > num_vars)][0])
        raise UserError(f"{name}: 'c p show' names variable {bad}, beyond the p line's "
                        f"1..{num_vars}")
    return np.unique(shown).astype(np.int32)


_SHOW_WORD = re.compile(rb"^c[ \t]+p[ \t]+show", re.M)

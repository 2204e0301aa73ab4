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
>>> read_projection(["c t pmc", "c p show 1 3 0"], 4, "x.cnf").shown.tolist()
[1, 3]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from puzzlesat.generator.core.errors import UserError

#: the competition's tracks; we write ``mc`` and ``pmc`` (no weights)
TRACKS = ("mc", "pmc", "wmc", "pwmc")
#: the longest count read, in decimal digits: Python's default limit on converting text to int
#: (a longer count, beyond 10^4300, is refused in one line instead of raising in int())
MAX_COUNT_DIGITS = 4300


@dataclass(frozen=True)
class Projection:
    """The track (``mc`` or ``pmc``) and the shown variables (sorted, distinct, int32)."""

    track: str
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
    return Projection("mc" if ids.size == num_vars else "pmc", ids.astype(np.int32))


def track_lines(projection: Projection | None) -> list[str]:
    """The ``c t`` line that opens a counting instance (none for an ordinary one)."""
    return [] if projection is None else [f"c t {projection.track}"]


def show_lines(projection: Projection | None) -> list[str]:
    """The ``c p show ... 0`` line that follows the ``p`` line of a ``pmc`` instance: one line,
    which every reader of the format accepts."""
    if projection is None or projection.track == "mc":
        return []
    return ["c p show " + " ".join(map(str, projection.shown.tolist())) + " 0"]


_TRACK = re.compile(r"^c[ \t]+t[ \t]+(\S+)[ \t]*$")
_SHOW = re.compile(r"^c[ \t]+p[ \t]+show\b(.*)$")
_INTEGER = re.compile(r"-?[0-9]+")


def read_projection(comments: list[str], num_vars: int, name: str) -> Projection | None:
    """The track and projection set of a file from its comment lines, or None when it has no
    ``c t`` line. A UserError for a file that contradicts itself: two ``c t`` lines, a track we
    do not count (weighted), ``c p show`` in an ``mc`` file or without a ``c t`` line, a shown
    variable outside ``1..num_vars``, a show line not ending in 0. A ``pmc`` file without a
    show line projects onto every variable (the competition's rule)."""
    tracks: list[str] = [m.group(1) for m in map(_TRACK.match, comments) if m]
    show_texts = [m.group(1) for m in map(_SHOW.match, comments) if m]
    if not tracks:
        if show_texts:
            raise UserError(f"{name}: 'c p show' without a 'c t' line")
        return None
    if len(tracks) > 1:
        raise UserError(f"{name}: {len(tracks)} 'c t' lines")
    track = tracks[0]
    if track not in ("mc", "pmc"):
        named = track if track in TRACKS else repr(track[:20])
        raise UserError(f"{name}: track {named} is not one puzzlesat counts (mc, pmc)")
    if track == "mc" and show_texts:
        raise UserError(f"{name}: 'c t mc' with a 'c p show' line (a projection is pmc)")
    if not show_texts:
        return Projection(track, np.arange(1, num_vars + 1, dtype=np.int32))
    shown: list[int] = []
    for text in show_texts:
        tokens = text.split()
        if not tokens or tokens[-1] != "0":
            raise UserError(f"{name}: a 'c p show' line does not end in 0")
        for token in tokens[:-1]:
            if not _INTEGER.fullmatch(token) or len(token) > 11:
                raise UserError(f"{name}: 'c p show' names {token[:20]!r}, not a variable")
            var = int(token)
            if not 1 <= var <= num_vars:
                raise UserError(f"{name}: 'c p show' names variable {var}, beyond the p line's "
                                f"1..{num_vars}")
            shown.append(var)
    return Projection("pmc", np.unique(np.asarray(shown, dtype=np.int64)).astype(np.int32))


def read_count(text: str, name: str) -> int:
    """A count written in a header (``c count: N``): a non-negative decimal integer, or a
    UserError."""
    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text) > MAX_COUNT_DIGITS:
        raise UserError(f"{name}: header count {text[:30]!r} is not a non-negative integer")
    return int(text)

"""An instance file's head, read once and bounded: its format (DIMACS CNF, WCNF or OPB), and
the comment lines a reader keeps, wherever they stand.

Of all the comment lines a file may hold, readers use three kinds: the self-describing
header (``c key: value``), the Model Counting Competition's track line (``c t mc``) and its
projection (``c p show v1 ... 0``). :func:`scan_comments` keeps exactly those from a text
and no other comment line, so a file of a billion ``c`` lines costs the bytes that are
read, never an object per line; :func:`read_head` reads no further than the first line that
is not a comment, and no more than :data:`MAX_COMMENT_BYTES` of comments. An OPB file (the
Pseudo-Boolean Competition's, its first line ``* #variable= ...``) writes its comments with
``*``: its head is read as if each were a ``c`` line, so its header lines are kept as the same
``c key: value`` strings.

>>> c = scan_comments(b"c x\\nc family: demo\\np cnf 2 1\\nc p show 1 0\\n1 2 0\\n")
>>> c.header, c.shows
(['c family: demo'], b'c p show 1 0')
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass, field

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.inputs import InputTooLong, input_pieces, open_input

#: bytes of comments (the header, and ``c`` lines among the clauses) an instance may hold
#: beyond what its clauses need
MAX_COMMENT_BYTES = 64 << 20
#: header lines (``c key: value``) a file may hold: ours hold about twenty
MAX_HEADER_LINES = 1000
#: the header line of every WCNF instance this tool writes
WCNF_HEADER_LINE = b"c format: wcnf-2022"

# a kept comment line, as its stripped text: a header line, ``c t ...`` or ``c p show ...``
_KEPT = re.compile(rb"^[ \t]*(c(?: [A-Za-z][\w-]*: |[ \t]+t[ \t]|[ \t]+p[ \t]+show\b)[^\n]*)",
                   re.M)
_TRACK = re.compile(rb"c[ \t]+t[ \t]")
#: what every kept line holds one of: a header line ": ", a show line "show", a track line
#: "t" between white space (each a plain search, far quicker than _KEPT's ^ at every line)
_KEPT_MARKS = (b": ", b"show", b" t ", b" t\t", b"\tt ", b"\tt\t")


def _may_keep(text) -> bool:
    """Whether ``text`` may hold a line :func:`scan_comments` keeps."""
    data = text if isinstance(text, bytes) else bytes(text)
    return any(data.find(mark) >= 0 for mark in _KEPT_MARKS)
_SHOW = re.compile(rb"c[ \t]+p[ \t]+show\b")


@dataclass
class Comments:
    """The comment lines a reader keeps, stripped: header lines (at most
    :data:`MAX_HEADER_LINES`), ``c t`` lines, and the ``c p show`` lines joined by newlines
    (one bytes object, however many lines)."""

    header: list[str] = field(default_factory=list)
    tracks: list[str] = field(default_factory=list)
    shows: bytes = b""

    def add(self, other: Comments, name: str = "input") -> None:
        """Append ``other``'s lines (a later part of the same file)."""
        self.header += other.header
        self.tracks += other.tracks
        self.shows = b"\n".join(s for s in (self.shows, other.shows) if s)
        _check(self, name)


def scan_comments(text, name: str = "input") -> Comments:
    """The comment lines of ``text`` (bytes or a memoryview) a reader keeps (see the module
    docstring), in order; a UserError past :data:`MAX_HEADER_LINES` header lines or two
    ``c t`` lines (a file that says two things)."""
    found = Comments()
    shows = []
    if not _may_keep(text):  # most text holds no kept line: a few quick scans say so
        return found
    for match in _KEPT.finditer(text):
        line = match.group(1).rstrip()
        if _SHOW.match(line):
            shows.append(line)
        elif _TRACK.match(line):
            found.tracks.append(line.decode("utf-8", "replace"))
            _check(found, name)
        else:
            found.header.append(line.decode("utf-8", "replace"))
            _check(found, name)
    found.shows = b"\n".join(shows)
    return found


def _check(found: Comments, name: str) -> None:
    if len(found.header) > MAX_HEADER_LINES:
        raise UserError(f"{name}: more than {MAX_HEADER_LINES} header lines ('c key: value'): "
                        f"not a header this tool reads")
    if len(found.tracks) > 1:
        raise UserError(f"{name}: {len(found.tracks)} 'c t' lines")


@dataclass(frozen=True)
class Head:
    """What the start of an instance file says: its ``format`` (``cnf``, ``wcnf``, ``opb``), the
    comment lines kept before its first other line, that line (b"" when none), and how many
    bytes of text come before it."""

    format: str
    comments: Comments
    first: bytes
    size: int = 0


def classify(first: bytes, comments: Comments) -> str:
    """The format of a file whose first line that is not a comment is ``first``: OPB when it
    is an OPB comment (``*``) though line 1 is not the counts line (the OPB reader says that
    line 1 must be); WCNF when it is a hard clause or a ``p wcnf`` line (the pre-2022 format,
    which the WCNF reader refuses in one line), or when the header says ``format:
    wcnf-2022``; else DIMACS CNF (a file of bare clauses is a DIMACS file without its ``p``
    line, which the DIMACS reader names)."""
    if first.startswith(b"*"):
        return "opb"
    if first.startswith(b"h") or first.split()[:2] == [b"p", b"wcnf"] \
            or WCNF_HEADER_LINE.decode() in comments.header:
        return "wcnf"
    return "cnf"


#: how an OPB file starts (its counts line)
OPB_START = b"* #variable="
_STAR = re.compile(rb"^\*", re.M)


def opb_comments(lines: bytes) -> bytes:
    """Whole lines of an OPB file with each leading ``*`` read as ``c`` (same length)."""
    return _STAR.sub(b"c", lines)


def read_head(path: str | os.PathLike) -> Head:
    """The head of the instance at ``path`` (plain or compressed), reading no further than its
    first line that is not a comment and no more than :data:`MAX_COMMENT_BYTES` before it
    (:class:`~puzzlesat.generator.core.inputs.InputTooLong` past that). ``-`` (stdin, which
    cannot be read twice) is read as DIMACS CNF without looking."""
    if str(path) == "-":
        return Head("cnf", Comments(), b"")
    comments = Comments()
    held = b""
    seen = 0
    opb = None  # known from the first bytes
    with open_input(path, "instance") as handle, \
            contextlib.closing(input_pieces(handle, str(path))) as pieces:
        for piece in pieces:
            held += piece
            if opb is None and len(held) >= len(OPB_START):
                opb = held.startswith(OPB_START)
            cut = held.rfind(b"\n") + 1
            lines, held = held[:cut], held[cut:]
            if opb:
                lines = opb_comments(lines)
            first = first_other(lines)
            if first is not None:
                comments.add(scan_comments(lines[:first[0]], str(path)), str(path))
                return Head("opb" if opb else classify(first[1], comments), comments,
                            first[1], seen + first[0])
            comments.add(scan_comments(lines, str(path)), str(path))
            seen += len(lines)
            if seen + len(held) > MAX_COMMENT_BYTES:
                raise InputTooLong(f"{path}: more than {MAX_COMMENT_BYTES:,} bytes of comments "
                                   f"before the first clause, the most an instance holds")
    opb = held.startswith(OPB_START) if opb is None else opb
    if opb:
        held = opb_comments(held)
    first = first_other(held + b"\n")
    if first is None:
        comments.add(scan_comments(held, str(path)), str(path))
        return Head("opb" if opb else "cnf", comments, b"", seen + len(held))
    comments.add(scan_comments(held[:first[0]], str(path)), str(path))
    return Head("opb" if opb else classify(first[1], comments), comments, first[1],
                seen + first[0])


_OTHER = re.compile(rb"^[ \t\r]*([^c \t\r\n][^\n]*)", re.M)
#: the bytes a comment or blank line may start with
_QUIET = np.zeros(256, dtype=bool)
_QUIET[list(b"c \t\r\n")] = True


def first_other(lines) -> tuple[int, bytes] | None:
    """(offset, stripped text) of the first line of ``lines`` that is neither blank nor a
    comment, or None. The lines' first bytes are looked at all at once (numpy); only a line
    that starts with white space is looked into."""
    a = np.frombuffer(lines, dtype=np.uint8)
    starts = np.flatnonzero(a[:-1] == ord("\n")) + 1 if a.size else a
    starts = np.concatenate(([0], starts)) if a.size else starts
    loud = starts[~_QUIET[a[starts]]] if starts.size else starts
    spaced = starts[np.isin(a[starts], np.frombuffer(b" \t\r", np.uint8))]
    for at in sorted(set(loud[:1].tolist()) | set(spaced.tolist())):
        match = _OTHER.match(lines, at)
        if match is not None:
            return match.start(), match.group(1).strip()
    return None

"""What the track modules share: :class:`Made`, what every track's ``make`` gives (its formula
of a puzzle and what is known of it by construction), a header's puzzle read for a track and
the bound it puts on the file's size (:func:`header_limit`), and the description's parts of a
track that adds none."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.core.head import Head, read_head
from puzzlesat.generator.core.header import parse_header
from puzzlesat.generator.families import family_names, get_family
from puzzlesat.generator.families.params import Estimate, check_encoding
from puzzlesat.generator.tracks import track_of_head

#: what holds no more text than :func:`header_limit`, for the message past it
HEADER_HOLDS = "an instance with this header"


@dataclass
class Made:
    """A track's formula of a puzzle (a Formula, a Wcnf) and what is known of it: the result
    of its hard part and why, what the track certifies beyond it (a Count, a Bounds; None for
    SAT) with the header lines that say so, and the known solution (a witness file's
    ``solution``) or the generator's proof of UNSAT (its ``proof``), with the fields its
    witness file adds and what to say when there is neither."""

    formula: Any
    expected: str
    expected_from: str
    certified: Any = None
    header: dict = field(default_factory=dict)
    witness: Any = None
    witness_fields: dict = field(default_factory=dict)
    missing_witness: str = "no known solution"
    proof: bytes | None = None  # the generator's proof of an UNSAT answer (the PB track's)


def no_notes(family) -> list[tuple[str, str]]:
    """What a description adds under each family for a track that adds nothing there."""
    return []


def no_section(rows: list, calibration: list[dict], tex=None) -> list[str]:
    """A description's section of its own, for a track that has none."""
    return []



def card_module(family, track: str, form: str) -> Any:
    """The module the family's card names for ``track``, or a UserError saying the family has
    no ``form`` (``a MaxSAT form (--format wcnf)``) and naming the families that have one."""
    found = family.TRACKS.get(track)
    if found is None:
        having = [name for name in family_names() if track in get_family(name).TRACKS]
        raise UserError(f"family {family.NAME} has no {form}: {', '.join(having)} "
                        f"{'has' if len(having) == 1 else 'have'} one")
    return found


def check_track_encoding(family, track: ModuleType, encoding: str | None) -> str:
    """``encoding``, or the first of the track's for the family; a UserError naming the
    known ones (and the format, for a track other than SAT)."""
    known = tuple(track.encodings(family))
    words = " ".join([*track.REPRODUCE[0], *track.REPRODUCE[1]])  # how generate asks for it
    with prefixed(f"{words}: " if words else ""):
        return check_encoding(family, encoding, known)


def header_puzzle(header: dict, track: ModuleType) -> tuple[Any, Any, str, Estimate]:
    """(family module, puzzle, encoding, the track's size estimate of its formula) from a
    parsed instance header, nothing built yet; a UserError saying why when the header names
    no puzzle of the track that reads."""
    missing = [k for k in ("family", "encoding", "puzzle") if k not in header]
    if missing:
        raise UserError(f"not a puzzlesat instance: header lacks {', '.join(missing)}")
    family = get_family(header["family"])
    encoding = check_track_encoding(family, track, header["encoding"])
    try:
        with prefixed("header puzzle: "):
            puzzle = family.puzzle_from_json(header["puzzle"])
            size = track.estimate(family, {}, encoding, puzzle)
    except UserError:
        raise
    except Exception as exc:  # a damaged header is the file's fault, not ours
        raise UserError(f"header puzzle does not parse: {exc}") from None
    return family, puzzle, encoding, size


def header_size(path: str | os.PathLike) -> int:
    """The most bytes of text the instance at ``path`` holds by its header: the comments of
    its head and twice (for layout) its track's size estimate of the header's puzzle, read
    from the head alone; a UserError saying why when the header names no puzzle that reads
    (a file that must be a puzzlesat instance, such as a suite's, is refused unread)."""
    head, header = _head(path)
    return _size(head, header_puzzle(header, track_of_head(head))[3])


def header_limit(path: str | os.PathLike) -> int | None:
    """:func:`header_size`, or None when the header names no puzzle that reads (the format's
    own bounds hold then, and a judge names what is wrong). A header line that does not parse
    is a UserError."""
    head, header = _head(path)
    try:
        size = header_puzzle(header, track_of_head(head))[3]
    except UserError:
        return None
    return _size(head, size)


def _head(path) -> tuple[Head, dict]:
    head = read_head(path)
    return head, parse_header(head.comments.header, str(path))


def _size(head: Head, size: Estimate) -> int:
    return head.size + 2 * size.bytes

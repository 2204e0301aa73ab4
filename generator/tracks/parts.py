"""What the track modules share: :class:`Made`, what every track's ``make`` gives (its formula
of a puzzle and what is known of it by construction), and the description's parts of a track
that adds none."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Made:
    """A track's formula of a puzzle (a Formula, a Wcnf) and what is known of it: the result
    of its hard part and why, what the track certifies beyond it (a Count, a Bounds; None for
    SAT) with the header lines that say so, and the known solution (a witness file's
    ``solution``) with the fields its witness file adds and what to say when there is none."""

    formula: Any
    expected: str
    expected_from: str
    certified: Any = None
    header: dict = field(default_factory=dict)
    witness: Any = None
    witness_fields: dict = field(default_factory=dict)
    missing_witness: str = "no known solution"


def no_notes(family) -> list[tuple[str, str]]:
    """What a description adds under each family for a track that adds nothing there."""
    return []


def no_section(rows: list, calibration: list[dict], tex=None) -> list[str]:
    """A description's section of its own, for a track that has none."""
    return []

"""What is certified about the optimum of a MaxSAT instance (any family)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Bounds:
    """``lower <= optimum <= upper`` (``upper`` None: not known), where each comes from, the
    arrangement (a family's solution) that attains ``upper``, and the best result known from
    the literature when nothing is certified."""

    lower: int
    upper: int | None
    source: str
    arrangement: Any = None
    best_known: str | None = None

    @property
    def optimum(self) -> int | None:
        """The certified optimum when the bounds meet, else None."""
        return self.lower if self.upper == self.lower else None

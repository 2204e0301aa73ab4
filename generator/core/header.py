"""The self-describing header of a DIMACS instance: ordered ``c key: value`` lines before the
``p`` line; values of the keys in :data:`JSON_KEYS` are canonical one-line JSON, the others
plain text.

>>> print("\\n".join(header_lines({"seed": [1, 2], "family": "demo"})))
c family: demo
c seed: [1,2]
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.structured import load_json

FORMAT_VERSION = 1

#: Header keys in the order they are written; other keys follow in the order given.
HEADER_ORDER = (
    "puzzlesat-format", "generator", "family", "instance", "encoding", "params", "seed",
    "expected", "expected-from", "puzzle", "reproduce",
)
#: Keys whose values are JSON (everything else is a plain string).
JSON_KEYS = frozenset({"puzzlesat-format", "params", "seed", "puzzle"})


def canonical_json(value) -> str:
    """Sorted keys, no spaces, ASCII: the same value always gives the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def header_lines(header: dict) -> list[str]:
    """The ``c`` comment lines of ``header``: known keys in :data:`HEADER_ORDER` first."""
    keys = [k for k in HEADER_ORDER if k in header] + [k for k in header if k not in HEADER_ORDER]
    lines = []
    for key in keys:
        value = header[key]
        text = canonical_json(value) if key in JSON_KEYS else str(value)
        if "\n" in text or "\r" in text:
            raise ValueError(f"header value for {key!r} spans lines")
        lines.append(f"c {key}: {text}")
    return lines


def parse_header(comment_lines: Iterable[str], name: str = "header") -> dict:
    """The ``c key: value`` lines of a header as a dict (other comment lines are ignored)."""
    header: dict = {}
    for line in comment_lines:
        m = re.match(r"^c ([A-Za-z][\w-]*): (.*)$", line.rstrip("\r\n"))
        if not m:
            continue
        key, text = m.groups()
        if key in JSON_KEYS:
            header[key] = load_json(text, f"{name}: header line 'c {key}:'")
        else:
            header[key] = text
    return header


_COUNT = re.compile(r"[0-9]+")


def read_count(text: object, what: str, digits: int = 30) -> int:
    """A count written in a header or a file: ASCII decimal digits only (``str.isdigit``
    would take ``¹`` or ``١``, which ``int`` refuses or reads as 1), at most ``digits`` of
    them, else a UserError naming ``what``."""
    if not (isinstance(text, str) and len(text) <= digits and _COUNT.fullmatch(text)):
        raise UserError(f"{what} {str(text)[:40]!r} is not a non-negative integer (ASCII "
                        f"digits)")
    return int(text)


def header_count(header: dict, key: str, digits: int = 30) -> int | None:
    """The header's ``key`` as a count (:func:`read_count`); None when it says ``unknown``
    or is absent."""
    text = header.get(key, "unknown")
    return None if text == "unknown" else read_count(text, f"header line 'c {key}:'", digits)

"""JSON and TOML from files a user names, parsed in one place each, so that every way such
text can be hostile ends in one UserError naming the place: not UTF-8, a syntax error, nesting
deep enough to exhaust the parser's recursion (``[[[[...`` 10^5 deep) or to trouble code that
walks the value later, and integers too long for Python to convert.

>>> load_json('{"a": [1, 2]}', "x.json")
{'a': [1, 2]}
>>> load_json("[" * 100 + "]" * 100, "x.json")
Traceback (most recent call last):
...
puzzlesat.generator.core.errors.UserError: x.json: not valid JSON (nested deeper than 32 levels)
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from typing import Any

from puzzlesat.generator.core.errors import UserError

#: nesting deeper than this is refused: the deepest value puzzlesat writes or reads has 4
#: levels, and this stays far from Python's recursion limit wherever it is walked later
MAX_DEPTH = 32


def load_json(text: str | bytes, name: str) -> Any:
    """The value of JSON ``text``, or a UserError ``{name}: not valid JSON (why)``."""
    return _load(text, name, "JSON", json.loads, json.JSONDecodeError,
                 lambda exc: f"not valid JSON ({exc.msg}, line {exc.lineno})")


def load_toml(text: str | bytes, name: str) -> dict:
    """The table of TOML ``text``, or a UserError ``{name}: TOML syntax error: ...`` or
    ``{name}: not valid TOML (why)``."""
    return _load(text, name, "TOML", tomllib.loads, tomllib.TOMLDecodeError,
                 lambda exc: f"TOML syntax error: {exc}")


def _load(text: str | bytes, name: str, kind: str, parse: Callable[[str], Any],
          syntax: type[ValueError], says: Callable[[Any], str]) -> Any:
    try:
        if isinstance(text, bytes):
            text = utf8_text(text, name)
        value = parse(text)
    except syntax as exc:
        raise UserError(f"{name}: {says(exc)}") from None
    except RecursionError:
        raise UserError(f"{name}: not valid {kind} ({_too_deep()})") from None
    except ValueError as exc:  # an integer of more than sys.get_int_max_str_digits() digits
        raise UserError(f"{name}: not valid {kind} ({str(exc).split(';')[0]})") from None
    return _shallow(value, name, kind)


def utf8_text(data: bytes, name: str) -> str:
    """``data`` decoded as UTF-8, or a UserError naming the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{name}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                        f"{exc.start})") from None


def _too_deep() -> str:
    return f"nested deeper than {MAX_DEPTH} levels"


def _shallow(value: Any, name: str, kind: str) -> Any:
    """``value`` if no list or dict in it is nested deeper than :data:`MAX_DEPTH` (walked
    without recursion)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list):
            continue
        if depth >= MAX_DEPTH:
            raise UserError(f"{name}: not valid {kind} ({_too_deep()})")
        stack.extend((child, depth + 1) for child in item if isinstance(child, (list, dict)))
    return value

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
    import tomllib  # (here: TOML is a suite spec, never an instance header: readers skip it)

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


# -- typed fields -------------------------------------------------------------------------------
# A JSON document the tool reads (a piece file, a puzzle in a header, a witness) says what it
# says in JSON's own types: a flag is true or false (the string "false" is not false), a count
# or a colour is an integer (not 2.7, not true, not "1", not 1e400). Python's bool() and int()
# would coerce each of these into some value; these readers refuse them, one line naming the
# field by its path (``puzzle.rows``, ``piece file.pieces[3][1]``).

_MISSING: Any = object()


def json_text(value: Any) -> str:
    """``value`` as JSON writes it (strings quoted, NaN and Infinity named), cut at 40
    characters: what a message quotes."""
    try:
        text = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def json_int(value: Any, where: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` when it is a JSON integer (not a boolean, a float or a string) in lo..hi,
    else a UserError naming ``where``.

    >>> json_int(2.7, "puzzle.rows")
    Traceback (most recent call last):
    ...
    puzzlesat.generator.core.errors.UserError: puzzle.rows must be an integer, got 2.7
    """
    if type(value) is not int:
        raise UserError(f"{where} must be an integer, got {json_text(value)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        bounds = (f"from {lo} to {hi}" if lo is not None and hi is not None
                  else f"at least {lo}" if lo is not None else f"at most {hi}")
        raise UserError(f"{where} must be an integer {bounds}, got {json_text(value)}")
    return value


def json_bool(value: Any, where: str) -> bool:
    """``value`` when it is JSON's true or false, else a UserError naming ``where``."""
    if type(value) is not bool:
        raise UserError(f"{where} must be true or false, got {json_text(value)}")
    return value


def _of_type(value: Any, where: str, kind: type, described: str) -> Any:
    """``value`` when it is a ``kind``, else a UserError: ``where`` must be ``described``."""
    if not isinstance(value, kind):
        raise UserError(f"{where} must be {described}, got {json_text(value)}")
    return value


def json_str(value: Any, where: str) -> str:
    """``value`` when it is a JSON string, else a UserError naming ``where``."""
    return _of_type(value, where, str, "a string")


def json_object(value: Any, where: str) -> dict:
    """``value`` when it is a JSON object, else a UserError naming ``where``."""
    return _of_type(value, where, dict, "a JSON object")


def json_list(value: Any, where: str) -> list:
    """``value`` when it is a JSON array, else a UserError naming ``where``."""
    return _of_type(value, where, list, "a list")


def json_int_list(value: Any, where: str, lo: int | None = None,
                  hi: int | None = None) -> list[int]:
    """``value`` when it is a list of JSON integers in lo..hi (each one checked as
    :func:`json_int` does, named ``where[i]``)."""
    return [json_int(item, f"{where}[{i}]", lo, hi)
            for i, item in enumerate(json_list(value, where))]


def json_int_rows(value: Any, where: str, width: int | None = None, lo: int | None = None,
                  hi: int | None = None) -> list[list[int]]:
    """``value`` when it is a list of equally long lists of JSON integers in lo..hi (of
    ``width`` each when given), named ``where[i][j]``."""
    rows = [json_int_list(row, f"{where}[{i}]", lo, hi)
            for i, row in enumerate(json_list(value, where))]
    want = width if width is not None else len(rows[0]) if rows else 0
    for i, row in enumerate(rows):
        if len(row) != want:
            raise UserError(f"{where}[{i}] must have {want} items, got {len(row)}")
    return rows


def _field(doc: Any, key: str, where: str, default: Any) -> tuple[bool, Any]:
    """(True, ``doc[key]``) when the key is there (null included), else (False, ``default``)
    when a default is given, else a UserError naming the missing field."""
    doc = json_object(doc, where)
    if key in doc:
        return True, doc[key]
    if default is _MISSING:
        raise UserError(f"{where}.{key} is missing")
    return False, default


def get_int(doc: Any, key: str, where: str, lo: int | None = None, hi: int | None = None,
            default: Any = _MISSING) -> Any:
    """The integer ``doc[key]`` (see :func:`json_int`), or ``default`` when absent."""
    there, value = _field(doc, key, where, default)
    return json_int(value, f"{where}.{key}", lo, hi) if there else value


def get_bool(doc: Any, key: str, where: str, default: Any = _MISSING) -> Any:
    """The flag ``doc[key]`` (true or false), or ``default`` when absent."""
    there, value = _field(doc, key, where, default)
    return json_bool(value, f"{where}.{key}") if there else value


def get_str(doc: Any, key: str, where: str, default: Any = _MISSING) -> Any:
    """The string ``doc[key]``, or ``default`` when absent."""
    there, value = _field(doc, key, where, default)
    return json_str(value, f"{where}.{key}") if there else value


def get_int_list(doc: Any, key: str, where: str, lo: int | None = None,
                 hi: int | None = None) -> list[int]:
    """The list of integers ``doc[key]`` (see :func:`json_int_list`)."""
    return json_int_list(_field(doc, key, where, _MISSING)[1], f"{where}.{key}", lo, hi)


def get_int_rows(doc: Any, key: str, where: str, width: int | None = None,
                 lo: int | None = None, hi: int | None = None) -> list[list[int]]:
    """The rows of integers ``doc[key]`` (see :func:`json_int_rows`)."""
    return json_int_rows(_field(doc, key, where, _MISSING)[1], f"{where}.{key}", width, lo, hi)

"""Generator parameters and the rules every family's parameters obey: :class:`Param` and its
coercion from the command line or TOML, the size :class:`Estimate` with the DIMACS limits and
the ``--force`` thresholds, and the rule for instance, suite and file names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from puzzlesat.generator.core.errors import UserError, shown

#: instance, suite and file names: letters, digits, '.', '_', '-' (no slash, no newline), at
#: most 200 characters (a file name with its suffix stays under the usual 255-byte limit).
#: Anchored with ``\Z``: ``$`` also matches before a trailing newline, so ``"x\n"`` passed
SAFE_NAME = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,199}\Z")

#: DIMACS limits (literals are 32-bit signed integers in every solver we know): refused always
MAX_VARIABLES = 2**31 - 1
MAX_CLAUSES = 2**31 - 1
#: above this many clauses, or bytes of DIMACS text (held in memory while it is written), an
#: instance needs ``--force``
FORCE_CLAUSES = 10**8
FORCE_BYTES = 2 * 10**9


@dataclass(frozen=True)
class Estimate:
    """An instance's size from its params alone (nothing allocated): upper bounds, exact
    where the family can say. ``bytes`` is the uncompressed DIMACS body."""

    variables: int
    clauses: int
    bytes: int
    loose: bool = False  # a bound the generated puzzle tightens (estimate(..., puzzle))

    def text(self) -> str:
        """The estimate in words, for an error line."""
        return (f"estimated {self.variables:,} variables, {self.clauses:,} clauses, "
                f"{self.bytes / 1e9:.3g} GB of DIMACS")


@dataclass(frozen=True)
class Param:
    """One generator parameter. ``kind`` is ``int``, ``float``, ``str``, ``bool`` (a flag) or
    ``"ints"`` (a comma-separated list of integers on the command line, a list in TOML).
    ``file``: the value may be a file path (other than the ``builtins`` names), which a suite
    reads from the spec's folder and publishes a copy of under ``inputs/``. ``maximum``: the
    largest value of an ``int`` parameter whose work grows with it before any size estimate
    can tell (a random walk's length)."""

    name: str
    kind: Any
    default: Any = None
    help: str = ""
    choices: tuple | None = None
    minimum: int | None = None
    file: bool = False
    builtins: tuple[str, ...] = ()
    maximum: int | None = None

    @property
    def option(self) -> str:
        """The command-line option, ``--`` and the name with dashes."""
        return "--" + self.name.replace("_", "-")


class HasParams(Protocol):
    """What the parameter rules read of a family: its name, parameters and encodings."""

    NAME: str
    PARAMS: tuple[Param, ...]
    ENCODINGS: dict[str, str]


def file_params(family: HasParams) -> dict[str, tuple[str, ...]]:
    """The family's params whose value may be a file, each with its built-in names."""
    return {p.name: p.builtins for p in family.PARAMS if p.file}


def coerce(param: Param, value: Any) -> Any:
    """``value`` converted to ``param.kind``, or a UserError naming the parameter."""
    label = param.option
    if value is None:
        return None
    try:
        if param.kind == "ints":
            if isinstance(value, str):
                value = [v for v in value.replace(" ", "").split(",") if v != ""]
            if not isinstance(value, (list, tuple)):
                raise TypeError
            out: Any = [_strict_int(v) for v in value]
        elif param.kind is bool:
            if not isinstance(value, bool):
                raise TypeError
            out = value
        elif param.kind is int:
            out = _strict_int(value)
        elif param.kind is float:
            if isinstance(value, bool):
                raise TypeError
            out = float(value)
        else:
            if not isinstance(value, str):
                raise TypeError
            out = value
    except (TypeError, ValueError):
        kind = param.kind if isinstance(param.kind, str) else param.kind.__name__
        raise UserError(f"{label}: expected {kind}, got {value!r}") from None
    if param.choices is not None and out not in param.choices:
        raise UserError(f"{label}: {out!r} is not one of {', '.join(map(str, param.choices))}")
    if param.minimum is not None and param.kind is int and out < param.minimum:
        raise UserError(f"{label}: must be at least {param.minimum}, got {out}")
    if param.maximum is not None and param.kind is int and out > param.maximum:
        raise UserError(f"{label}: must be at most {param.maximum}, got {out}")
    return out


def _strict_int(value: Any) -> int:
    if isinstance(value, bool):
        raise TypeError
    if isinstance(value, str):
        return int(value.strip())
    if isinstance(value, float) and not value.is_integer():
        raise ValueError
    return int(value)


def normalize_params(family: HasParams, raw: dict) -> dict:
    """Defaults filled, types checked, unknown keys rejected; key order = ``PARAMS`` order.
    Parameters left at None are dropped, so they do not clutter headers and names."""
    known = {p.name: p for p in family.PARAMS}
    unknown = [k for k in raw if k.replace("-", "_") not in known]
    if unknown:
        raise UserError(f"unknown parameter {unknown[0]!r} for family {family.NAME} "
                        f"(known: {', '.join(known)})")
    given = {k.replace("-", "_"): v for k, v in raw.items()}
    out = {}
    for name, param in known.items():
        value = coerce(param, given.get(name, param.default))
        if value is not None:
            out[name] = value
    return out


def check_encoding(family: HasParams, encoding: str | None,
                   encodings: tuple[str, ...] | None = None) -> str:
    """``encoding``, or the first of ``encodings`` (default: the family's) when None; a
    UserError naming the known ones otherwise."""
    known = tuple(encodings if encodings is not None else family.ENCODINGS)
    if encoding is None:
        return known[0]
    if encoding not in known:
        raise UserError(f"unknown encoding {shown(encoding)} for family {family.NAME} "
                        f"(known: {', '.join(known)})")
    return encoding

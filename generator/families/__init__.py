"""The family registry and the contract every family module keeps.

A family module (``edgematch``, ``sliding``, ``flow``) defines these names and nothing else
is family-specific anywhere: the CLI, the suite builder and the validator reach a family only
through :func:`get_family`.

``NAME``           the family's public name (``"edge-matching"``)
``SUMMARY``        one line for ``puzzlesat families``
``STORY``          a paragraph for a suite's description.md/.tex: the puzzle, the encodings,
                   where the known answers come from
``REFERENCES``     tuple of dicts (CFF ``references`` entries) for the papers reproduced
``HARDNESS_PARAM`` the parameter that drives hardness (for calibration plots)
``PARAMS``         tuple of :class:`Param`: the generator's parameters (CLI options and suite
                   keys are derived from them)
``ENCODINGS``      dict name -> one-line description; the first is the default
``generate(params, rng) -> Puzzle``            params are normalised (see
                   :func:`normalize_params`); ``rng`` is a :class:`puzzlesat.generator.core.seeds.Rng`
``uses_seed(params) -> bool``                  False when params fix the puzzle (a file)
``instance_name(params, draw, encoding) -> str``   canonical, filesystem-safe; ``draw`` names
                   the random draw (``s<seed>`` from the CLI, ``r<replicate>`` in a suite),
                   None when the params fix the puzzle
``expected(puzzle, params, certify) -> (result, source)``   ("SAT"|"UNSAT"|"UNKNOWN", why);
                   ``certify`` is a :data:`Certifier` or None
``check_certificate(puzzle, source) -> (holds, why) | None``   the argument named by an
                   ``expected-from`` that refutes a puzzle without a solver (edge matching's
                   ``parity:colour-count``), checked on ``puzzle``; None when ``source`` names
                   no such argument of the family. The validator trusts an UNSAT answer
                   without a proof when it holds for the header's puzzle and that puzzle
                   encodes to the CNF
``encode(puzzle, encoding) -> Formula``
``decode(puzzle, encoding, model) -> Solution``   ``model``: bool numpy array indexed by
                   variable (index 0 unused)
``check(puzzle, solution) -> list[str]``        the puzzle's own rules; [] = valid
``witness(puzzle) -> Solution | None``         the known solution, if any
``assignment(puzzle, encoding, solution) -> np.ndarray``   a bool model (index 0 unused) that
                   the encoding's clauses accept for this solution (used to test witnesses)
``puzzle_to_json / puzzle_from_json / solution_to_json / solution_from_json``
``render(puzzle, solution=None) -> str``        text picture; ``render_svg`` where it helps
``estimate(params, encoding, puzzle=None) -> Estimate``   variables, clauses and bytes
                   from the (normalised) params without generating or allocating anything:
                   upper bounds (exact where cheap); checked against the DIMACS limits and the
                   ``--force`` threshold before ``generate``. An estimate marked ``loose``
                   that fails the check is asked again with the generated ``puzzle``

:class:`Family` states the same contract as a :class:`typing.Protocol`, so a type checker and
the contract test (tests/test_families.py) hold every family module to it.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.errors import UserError

#: proves a formula UNSAT and names how ("certified:cadical195+dratify"), or None when it
#: cannot. Passed in from outside the generator (the CLI passes
#: :func:`puzzlesat.validate.proof.certify_unsat`), so that making instances never imports the
#: validator.
Certifier = Callable[[Formula], "str | None"]

#: public family name -> module under puzzlesat.generator.families
FAMILY_MODULES = {
    "edge-matching": "edgematch",
    "sliding": "sliding",
    "flow": "flow",
}


#: instance, suite and file names: letters, digits, '.', '_', '-' (no slash, no newline)
SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")

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
        return (f"estimated {self.variables:,} variables, {self.clauses:,} clauses, "
                f"{self.bytes / 1e9:.3g} GB of DIMACS")


@dataclass(frozen=True)
class Param:
    """One generator parameter. ``kind`` is ``int``, ``float``, ``str``, ``bool`` (a flag) or
    ``"ints"`` (a comma-separated list of integers on the command line, a list in TOML).
    ``file``: the value may be a file path (other than the ``builtins`` names), which a suite
    reads from the spec's folder and publishes a copy of under ``inputs/``."""

    name: str
    kind: Any
    default: Any = None
    help: str = ""
    choices: tuple | None = None
    minimum: int | None = None
    file: bool = False
    builtins: tuple[str, ...] = ()

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")


def file_params(family) -> dict[str, tuple[str, ...]]:
    """The family's params whose value may be a file, each with its built-in names."""
    return {p.name: p.builtins for p in family.PARAMS if p.file}


@runtime_checkable
class Family(Protocol):
    """The contract of a family module (see the module docstring for each name's meaning)."""

    NAME: str
    SUMMARY: str
    STORY: str
    REFERENCES: tuple
    HARDNESS_PARAM: str
    PARAMS: tuple[Param, ...]
    ENCODINGS: dict[str, str]

    def generate(self, params: dict, rng: Any) -> Any: ...
    def uses_seed(self, params: dict) -> bool: ...
    def instance_name(self, params: dict, draw: str | None, encoding: str) -> str: ...
    def expected(self, puzzle: Any, params: dict,
                 certify: Certifier | None = None) -> tuple[str, str]: ...
    def check_certificate(self, puzzle: Any, source: str) -> tuple[bool, str] | None: ...
    def encode(self, puzzle: Any, encoding: str) -> Formula: ...
    def decode(self, puzzle: Any, encoding: str, model: np.ndarray) -> Any: ...
    def check(self, puzzle: Any, solution: Any) -> list[str]: ...
    def witness(self, puzzle: Any) -> Any: ...
    def assignment(self, puzzle: Any, encoding: str, solution: Any) -> np.ndarray: ...
    def puzzle_to_json(self, puzzle: Any) -> dict: ...
    def puzzle_from_json(self, data: dict) -> Any: ...
    def solution_to_json(self, solution: Any) -> dict: ...
    def solution_from_json(self, data: dict) -> Any: ...
    def render(self, puzzle: Any, solution: Any = None) -> str: ...
    def estimate(self, params: dict, encoding: str, puzzle: Any = None) -> Estimate: ...


def family_names() -> list[str]:
    return list(FAMILY_MODULES)


def get_family(name: str) -> Family:
    try:
        module = FAMILY_MODULES[name]
    except KeyError:
        raise UserError(f"unknown family {name!r} (known: {', '.join(FAMILY_MODULES)})") from None
    return importlib.import_module(f"{__name__}.{module}")


def coerce(param: Param, value: Any, where: str = "") -> Any:
    """``value`` converted to ``param.kind``, or a UserError naming the parameter."""
    label = f"{where}{param.option}"
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
    return out


def _strict_int(value: Any) -> int:
    if isinstance(value, bool):
        raise TypeError
    if isinstance(value, str):
        return int(value.strip())
    if isinstance(value, float) and not value.is_integer():
        raise ValueError
    return int(value)


def normalize_params(family: Family, raw: dict, where: str = "") -> dict:
    """Defaults filled, types checked, unknown keys rejected; key order = ``PARAMS`` order.
    Parameters left at None are dropped, so they do not clutter headers and names."""
    known = {p.name: p for p in family.PARAMS}
    unknown = [k for k in raw if k.replace("-", "_") not in known]
    if unknown:
        raise UserError(f"{where}unknown parameter {unknown[0]!r} for family {family.NAME} "
                        f"(known: {', '.join(known)})")
    given = {k.replace("-", "_"): v for k, v in raw.items()}
    out = {}
    for name, param in known.items():
        value = coerce(param, given.get(name, param.default), where)
        if value is not None:
            out[name] = value
    return out


def check_encoding(family: Family, encoding: str | None) -> str:
    if encoding is None:
        return next(iter(family.ENCODINGS))
    if encoding not in family.ENCODINGS:
        raise UserError(f"unknown encoding {encoding!r} for family {family.NAME} "
                        f"(known: {', '.join(family.ENCODINGS)})")
    return encoding

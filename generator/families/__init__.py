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
``render_tikz(puzzle, solution=None, width=4.0) -> str``   a TikZ picture ``width`` cm wide
                   for the suite's description.tex (:mod:`puzzlesat.generator.core.tikz`)
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
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.errors import UserError, shown

#: proves a formula UNSAT and names how ("certified:cadical195+puzzlesat-drat"), or None when it
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
        """The command-line option, ``--`` and the name with dashes."""
        return "--" + self.name.replace("_", "-")


def file_params(family) -> dict[str, tuple[str, ...]]:
    """The family's params whose value may be a file, each with its built-in names."""
    return {p.name: p.builtins for p in family.PARAMS if p.file}


#: a family's puzzle type and its solution type
PuzzleT = TypeVar("PuzzleT")
SolutionT = TypeVar("SolutionT")


@runtime_checkable
class Family(Protocol[PuzzleT, SolutionT]):
    """The contract of a family module (see the module docstring for each name's meaning),
    generic over its puzzle and solution types."""

    NAME: str
    SUMMARY: str
    STORY: str
    REFERENCES: tuple
    HARDNESS_PARAM: str
    PARAMS: tuple[Param, ...]
    ENCODINGS: dict[str, str]

    def generate(self, params: dict, rng: Any) -> PuzzleT:
        """The puzzle drawn from ``params`` (normalised) and ``rng``."""

    def uses_seed(self, params: dict) -> bool:
        """Whether ``params`` leave anything to the seed."""

    def instance_name(self, params: dict, draw: str | None, encoding: str) -> str:
        """The instance's file stem from its params, draw (e.g. ``r1``) and encoding."""

    def expected(self, puzzle: PuzzleT, params: dict,
                 certify: Certifier | None = None) -> tuple[str, str]:
        """The known answer (``SAT``, ``UNSAT`` or ``UNKNOWN``) and where it comes from."""

    def check_certificate(self, puzzle: PuzzleT, source: str) -> tuple[bool, str] | None:
        """(holds, why) for the certificate ``source`` names, or None if it names none."""

    def encode(self, puzzle: PuzzleT, encoding: str) -> Formula:
        """The CNF of ``puzzle`` in ``encoding``."""

    def decode(self, puzzle: PuzzleT, encoding: str, model: np.ndarray) -> SolutionT:
        """The puzzle solution a model of the CNF stands for."""

    def check(self, puzzle: PuzzleT, solution: SolutionT) -> list[str]:
        """The puzzle rules ``solution`` breaks (empty: it solves the puzzle)."""

    def witness(self, puzzle: PuzzleT) -> SolutionT | None:
        """A known solution of ``puzzle`` (the planted one), or None."""

    def assignment(self, puzzle: PuzzleT, encoding: str, solution: SolutionT) -> np.ndarray:
        """The model of the CNF that ``solution`` stands for."""

    def puzzle_to_json(self, puzzle: PuzzleT) -> dict:
        """The puzzle as JSON (the header's ``puzzle`` field)."""

    def puzzle_from_json(self, data: dict) -> PuzzleT:
        """The puzzle from its JSON, or a UserError saying what is wrong."""

    def solution_to_json(self, solution: SolutionT) -> dict:
        """The solution as JSON (a witness file's ``solution``)."""

    def solution_from_json(self, data: dict) -> SolutionT:
        """The solution from its JSON."""

    def render(self, puzzle: PuzzleT, solution: SolutionT | None = None) -> str:
        """A text picture of the puzzle, solved when ``solution`` is given."""

    def estimate(self, params: dict, encoding: str,
                 puzzle: PuzzleT | None = None) -> Estimate:
        """Upper bounds on the CNF's size, from ``params`` or the ``puzzle``."""

    def render_tikz(self, puzzle: PuzzleT, solution: SolutionT | None = None,
                    width: float = 4.0) -> str:
        """A TikZ picture of the puzzle ``width`` cm wide, solved when ``solution`` is given."""


def family_names() -> list[str]:
    """The public names of the registered families, in registry order."""
    return list(FAMILY_MODULES)


def get_family(name: str) -> Family[Any, Any]:
    """The family module registered under ``name``; an unknown name is a UserError."""
    try:
        module = FAMILY_MODULES[name]
    except KeyError:
        raise UserError(f"unknown family {shown(name)} (known: {', '.join(FAMILY_MODULES)})"
                        ) from None
    return importlib.import_module(f"{__name__}.{module}")


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
    return out


def _strict_int(value: Any) -> int:
    if isinstance(value, bool):
        raise TypeError
    if isinstance(value, str):
        return int(value.strip())
    if isinstance(value, float) and not value.is_integer():
        raise ValueError
    return int(value)


def normalize_params(family: Family, raw: dict) -> dict:
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


def check_encoding(family: Family, encoding: str | None) -> str:
    """``encoding``, or the family's first when None; a UserError naming the known ones
    otherwise."""
    if encoding is None:
        return next(iter(family.ENCODINGS))
    if encoding not in family.ENCODINGS:
        raise UserError(f"unknown encoding {shown(encoding)} for family {family.NAME} "
                        f"(known: {', '.join(family.ENCODINGS)})")
    return encoding

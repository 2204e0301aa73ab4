"""The family registry and the contract every family module keeps.

A family module (``edgematch``, ``sliding``, ``flow``) defines these names and nothing else
is family-specific anywhere: the CLI, the suite builder and the validator reach a family only
through :func:`get_family`. Every family folder has the same files, each the home of a part of
the contract: ``puzzle.py`` (Puzzle, Solution, their JSON, the referee ``check`` and the
``witness``), ``generate.py`` (``generate``, ``uses_seed``, ``instance_name``), ``encode.py``
(``encode``, ``decode``, ``assignment``), ``certificate.py`` (``expected`` and
``check_certificate``), ``estimate.py``, ``render.py``, and one module per track beyond SAT: ``count.py`` (model
counting) and, where the family has a MaxSAT form, ``maxsat.py`` (each track's contract is
in :mod:`puzzlesat.generator.tracks`); the package's ``__init__.py`` holds the family's card
(names, story, references, params, encodings, its track modules) and gathers the contract.
Parameters, their coercion, size limits and the name rule live in :mod:`.params`.

``NAME``           the family's public name (``"edge-matching"``)
``SUMMARY``        one line for ``puzzlesat families``
``STORY``          a paragraph for a suite's description.md/.tex: the puzzle, the encodings,
                   where the known answers come from
``PICTURE_MARKS``  what its picture marks beyond the puzzle and its solution, for a caption
                   ("" when nothing: edge matching draws an arrangement's unmatched edges)
``REFERENCES``     tuple of dicts (CFF ``references`` entries) for the papers reproduced
``HARDNESS_PARAM`` the parameter that drives hardness (for calibration plots)
``PARAMS``         tuple of :class:`Param`: the generator's parameters (CLI options and suite
                   keys are derived from them)
``ENCODINGS``      dict name -> one-line description; the first is the default
``TRACKS``         dict track name -> the family's module for that track (``mc``, ``maxsat``):
                   the one place a track finds a family's form of it
``generate(params, rng, solving=None) -> Puzzle``   params are normalised (see
                   :func:`.params.normalize_params`); ``rng`` is a
                   :class:`puzzlesat.generator.core.seeds.Rng`; ``solving`` a
                   :class:`puzzlesat.generator.core.solving.Solving` or None
``uses_seed(params) -> bool``                  False when params fix the puzzle (a file)
``instance_name(params, draw, encoding) -> str``   canonical, filesystem-safe; ``draw`` names
                   the random draw (``s<seed>`` from the CLI, ``r<replicate>`` in a suite),
                   None when the params fix the puzzle
``expected(puzzle, params, solving=None) -> (result, source)``   ("SAT"|"UNSAT"|"UNKNOWN",
                   why); ``solving`` as for ``generate``
``check_certificate(puzzle, source) -> (holds, why) | None``   the argument named by an
                   ``expected-from`` that refutes a puzzle without a solver (edge matching's
                   ``parity:colour-count``), checked on ``puzzle``; None when ``source`` names
                   no such argument of the family. The validator trusts an UNSAT answer
                   without a proof when it holds for the header's puzzle and that puzzle
                   encodes to the CNF
``known_by_construction(puzzle, source) -> (refutes, why) | None``   an UNSAT the generator
                   knows from data it ships rather than an argument checked here (sliding's
                   ``optimal-trace``: the start lies on a published optimal trace, further from
                   the goal than the budget), checked on ``puzzle``; None when ``source`` names
                   no such knowledge. Never a verification: a bundle takes it as a known answer
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
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.errors import UserError, shown
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.families.params import Estimate, Param

#: public family name -> module under puzzlesat.generator.families
FAMILY_MODULES = {
    "edge-matching": "edgematch",
    "sliding": "sliding",
    "flow": "flow",
}


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
    PICTURE_MARKS: str
    REFERENCES: tuple
    HARDNESS_PARAM: str
    PARAMS: tuple[Param, ...]
    ENCODINGS: dict[str, str]
    TRACKS: dict[str, Any]

    def generate(self, params: dict, rng: Any, solving: Solving | None = None) -> PuzzleT:
        """The puzzle drawn from ``params`` (normalised) and ``rng``."""

    def uses_seed(self, params: dict) -> bool:
        """Whether ``params`` leave anything to the seed."""

    def instance_name(self, params: dict, draw: str | None, encoding: str) -> str:
        """The instance's file stem from its params, draw (e.g. ``r1``) and encoding."""

    def expected(self, puzzle: PuzzleT, params: dict,
                 solving: Solving | None = None) -> tuple[str, str]:
        """The known answer (``SAT``, ``UNSAT`` or ``UNKNOWN``) and where it comes from."""

    def check_certificate(self, puzzle: PuzzleT, source: str) -> tuple[bool, str] | None:
        """(holds, why) for the certificate ``source`` names, or None if it names none."""

    def known_by_construction(self, puzzle: PuzzleT, source: str) -> tuple[bool, str] | None:
        """(refutes, why) for the shipped knowledge ``source`` names, or None if it names none."""

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

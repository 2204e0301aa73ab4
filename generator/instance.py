"""One instance end to end: params -> puzzle -> formula -> self-describing header.

The CLI's ``generate``, the suite builder and the validator all build or reopen instances
here, so the header, the canonical name and the reproduce command are made in one place.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import Any

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.counting import projection_of
from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.core.header import FORMAT_VERSION
from puzzlesat.generator.core.save import save_instance, write_instance
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.core.version import VERSION
from puzzlesat.generator.core.writer import dimacs_bytes
from puzzlesat.generator.families import get_family
from puzzlesat.generator.families.counting import Count, count_module
from puzzlesat.generator.families.params import (
    FORCE_BYTES,
    FORCE_CLAUSES,
    MAX_CLAUSES,
    MAX_VARIABLES,
    SAFE_NAME,
    Estimate,
    check_encoding,
    file_params,
    normalize_params,
)

EXPECTED_VALUES = ("SAT", "UNSAT", "UNKNOWN")


@dataclass
class Instance:
    family: Any  # the family module
    name: str
    params: dict
    seed: int | None
    encoding: str
    puzzle: Any
    formula: Formula
    expected: str
    expected_from: str
    count: Count | None = None  # a model-counting instance's known count (``--count``)

    @property
    def witness(self):
        """A known solution of the puzzle (the planted one), or None."""
        return self.family.witness(self.puzzle)

    def header(self) -> dict:
        """The self-describing header written as the DIMACS file's comments."""
        return {
            **header_head(self.family, self.name, self.encoding, self.params, self.seed),
            "expected": self.expected,
            "expected-from": self.expected_from,
            "puzzle": self.family.puzzle_to_json(self.puzzle),
            **({} if self.count is None else {
                "count": "unknown" if self.count.value is None else str(self.count.value),
                "count-from": self.count.source}),
            "reproduce": reproduce_command(self.family, self.params, self.seed, self.encoding,
                                           self.name, self.count is not None),
        }

    def dimacs(self, header: bool = True) -> str:
        """The instance's DIMACS text as ``puzzlesat generate`` writes it (uncompressed):
        the header's comment lines (none when ``header`` is False), ``p cnf``, the clauses."""
        return dimacs_bytes(self.formula, self.header() if header else None).decode()

    def witness_json(self) -> dict | None:
        """The witness file's JSON, or None when no solution is known."""
        solution = self.witness
        if solution is None:
            return None
        return {"family": self.family.NAME, "instance": self.name,
                "solution": self.family.solution_to_json(solution)}


def header_head(family, name: str, encoding: str, params: dict, seed: int | None) -> dict:
    """The first lines of every instance header (DIMACS or WCNF): format, generator, what the
    instance is and how it was made."""
    return {"puzzlesat-format": FORMAT_VERSION, "generator": f"puzzlesat {VERSION}",
            "family": family.NAME, "instance": name, "encoding": encoding, "params": params,
            "seed": seed}


def build(family_name: str, params: dict, encoding: str | None = None, seed: int | None = None,
          name: str | None = None, solving: Solving | None = None, force: bool = False,
          files_root: str | os.PathLike | None = None, count: bool = False) -> Instance:
    """Generate and encode one instance. ``params`` may be raw (CLI/TOML); they are normalised.
    ``solving`` (a :class:`~puzzlesat.generator.core.solving.Solving`) runs the solvers a
    family may ask for (a checked UNSAT certificate, a uniqueness test). The family's size
    estimate is checked first (:func:`check_size`; ``force`` lets past the threshold, never
    past the DIMACS limits). ``files_root``: a published suite's folder, against which its
    ``inputs/...`` file params are read (the header keeps the relative path). ``count``: a
    model-counting instance (see :func:`count_instance`; ``solving`` also counts by certified
    enumeration where a family asks)."""
    family = get_family(family_name)
    params = normalize_params(family, params)
    encoding = check_encoding(family, encoding)
    if name is not None and not SAFE_NAME.match(name):
        raise UserError(f"--name {name[:100]!r} must be letters, digits, '.', '_', '-' "
                        f"(at most 200; no slash, space or newline)")
    if not family.uses_seed(params):
        seed = None
    elif seed is None:
        seed = 0
    elif not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise UserError(f"seed must be a non-negative integer, got {seed!r}")
    check_size(family, _in_folder(family, params, files_root), encoding, force, seed, solving)
    return build_checked(family, params, encoding, seed, name, solving, files_root, count)


def build_checked(family: Any, params: dict, encoding: str, seed: int | None,
                  name: str | None = None, solving: Solving | None = None,
                  files_root: str | os.PathLike | None = None, count: bool = False) -> Instance:
    """:func:`build` for what a suite spec has already checked: normalised ``params``, a known
    ``encoding``, the seed the params use, a safe name, and a size checked against the
    limits (:func:`puzzlesat.generator.suite.publish.check_sizes`)."""
    made = _in_folder(family, params, files_root)
    puzzle = family.generate(made, Rng(seed if seed is not None else 0), solving)
    formula = family.encode(puzzle, encoding)
    expected, source = family.expected(puzzle, made, solving)
    assert expected in EXPECTED_VALUES, expected
    known = count_instance(family, puzzle, encoding, formula, expected, source,
                           solving) if count else None
    return Instance(family, name or canonical_name(family, params, seed, encoding), params,
                    seed, encoding, puzzle, formula, expected, source, known)


def count_instance(family, puzzle, encoding: str, formula: Formula, expected: str,
                   expected_from: str, solving: Solving | None) -> Count:
    """Make ``formula`` a model-counting instance (its projection onto the family's shown
    variables) and return its known count: 0 for an instance whose UNSAT is known by
    construction (the same certificate), else the family's own count."""
    counting = count_module(family)
    shown = counting.shown(puzzle, encoding, formula)
    formula.projection = projection_of(shown, formula.num_vars)
    if expected == "UNSAT":
        return Count(0, expected_from)
    return counting.known_count(puzzle, encoding, formula, formula.projection.shown, solving)


def _in_folder(family: Any, params: dict, files_root: str | os.PathLike | None) -> dict:
    """``params`` with their ``inputs/...`` file params read from ``files_root``."""
    if files_root is None:
        return params
    files = file_params(family)
    return {k: (os.path.join(files_root, v) if k in files
                and isinstance(v, str) and v.startswith("inputs/") else v)
            for k, v in params.items()}


def generate_files(family_name: str, params: dict, output: str, witness: str | None = None,
                   encoding: str | None = None, seed: int | None = None,
                   name: str | None = None, solving: Solving | None = None,
                   force: bool = False, count: bool = False) -> Instance:
    """Build one instance (:func:`build`; ``count``: a model-counting one) and write it to ``output`` (compressed by extension,
    ``-`` = stdout) and, with ``witness``, its known solution as JSON: both files or neither.
    The paths are checked before anything is built; an instance without a known solution has
    no witness to write (a UserError)."""
    return save_instance(
        output, witness,
        lambda: build(family_name, params, encoding, seed, name, solving=solving, force=force,
                      count=count),
        lambda inst, path: write_instance(path, inst.formula, inst.header()),
        lambda inst: f"{inst.name} has no known solution to write (expected {inst.expected})")


def check_size(family, params: dict, encoding: str, force: bool = False,
               seed: int | None = None, solving: Solving | None = None) -> Estimate:
    """The family's size estimate, or a UserError stating it: beyond the DIMACS limits always,
    above :data:`FORCE_CLAUSES` clauses or :data:`FORCE_BYTES` bytes unless ``force``.
    ``family`` is a module (``params`` normalised) or a name (``params`` raw). A ``loose`` estimate that fails is asked again with the
    puzzle generated from ``seed`` (cheap next to its CNF), as :func:`build` will make it."""
    if isinstance(family, str):
        family = get_family(family)
        params = normalize_params(family, params)
    size = family.estimate(params, encoding)
    if size.loose and not _fits(size, force):
        puzzle = family.generate(params, Rng(seed if seed is not None else 0), solving)
        size = family.estimate(params, encoding, puzzle)
    refuse_size(size, force)
    return size


def refuse_size(size: Estimate, force: bool = False) -> None:
    """A UserError stating ``size`` when it is beyond the DIMACS limits, or past
    :data:`FORCE_CLAUSES` clauses or :data:`FORCE_BYTES` bytes without ``force``."""
    if size.variables > MAX_VARIABLES or size.clauses > MAX_CLAUSES:
        raise UserError(f"{size.text()}: beyond the DIMACS limit of 2^31-1 variables "
                        f"and clauses; choose smaller parameters")
    if (size.clauses > FORCE_CLAUSES or size.bytes > FORCE_BYTES) and not force:
        raise UserError(f"{size.text()} (more than 10^{len(str(FORCE_CLAUSES)) - 1} "
                        f"clauses or {FORCE_BYTES / 1e9:g} GB): pass --force to build it "
                        f"anyway")


def _fits(size: Estimate, force: bool) -> bool:
    if size.variables > MAX_VARIABLES or size.clauses > MAX_CLAUSES:
        return False
    return force or (size.clauses <= FORCE_CLAUSES and size.bytes <= FORCE_BYTES)


def canonical_name(family, params: dict, seed: int | None, encoding: str) -> str:
    """The name ``puzzlesat generate`` gives when no ``--name`` is passed."""
    return family.instance_name(params, None if seed is None else f"s{seed}", encoding)


def reproduce_command(family, params: dict, seed: int | None, encoding: str, name: str,
                      count: bool = False) -> str:
    """The ``puzzlesat generate`` command line that builds this instance again."""
    words = ["puzzlesat", "generate", family.NAME]
    by_name = {p.name: p for p in family.PARAMS}
    for key, value in params.items():
        param = by_name[key]
        if param.kind is bool:
            if value:
                words.append(param.option)
            continue
        if value == param.default:
            continue
        text = ",".join(map(str, value)) if param.kind == "ints" else str(value)
        words += [param.option, text]
    if seed is not None:
        words += ["--seed", str(seed)]
    words += ["--encoding", encoding]
    if count:
        words.append("--count")
    if name != canonical_name(family, params, seed, encoding):  # e.g. a suite's r<replicate>
        words += ["--name", name]
    words += ["-o", f"{name}.cnf.xz"]
    return shlex.join(words)


#: a header puzzle may be estimated this many times the file's own counts (plus
#: :data:`HEADER_SLACK`): estimates are upper bounds, within 6x of every family's real counts
HEADER_FACTOR = 100
HEADER_SLACK = 10**6


def puzzle_from_header(header: dict, variables: int, clauses: int):
    """(family module, puzzle, encoding) from a parsed instance header, or a UserError.

    The header may lie about sizes, and decoding, refereeing or encoding its puzzle costs
    what the puzzle says, not what the file holds; so the family's size estimate of the
    puzzle is checked first: within the DIMACS limits, at least the file's ``variables``
    (the puzzle's model is indexed by them), and within :data:`HEADER_FACTOR` times the file's
    ``variables`` and ``clauses`` (plus :data:`HEADER_SLACK`)."""
    missing = [k for k in ("family", "encoding", "puzzle") if k not in header]
    if missing:
        raise UserError(f"not a puzzlesat instance: header lacks {', '.join(missing)}")
    family = get_family(header["family"])
    encoding = check_encoding(family, header["encoding"])
    try:
        with prefixed("header puzzle: "):
            puzzle = family.puzzle_from_json(header["puzzle"])
            size = family.estimate({}, encoding, puzzle)
            refuse_size(size, True)
    except UserError:
        raise
    except Exception as exc:  # a damaged header is the file's fault, not ours
        raise UserError(f"header puzzle does not parse: {exc}") from None
    if variables > size.variables:  # the estimate is an upper bound
        raise UserError(f"header puzzle: {size.text()}, fewer than the file's {variables:,} "
                        f"variables")
    if (size.variables > HEADER_FACTOR * variables + HEADER_SLACK
            or size.clauses > HEADER_FACTOR * clauses + HEADER_SLACK):
        raise UserError(f"header puzzle: {size.text()}, far more than the file's "
                        f"{variables:,} variables and {clauses:,} clauses")
    return family, puzzle, encoding

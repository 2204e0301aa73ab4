"""One instance end to end, for any track: params -> puzzle -> the track's formula -> the
self-describing header and file.

The CLI's ``generate``, the suite builder and the validator all build or reopen instances
here, so the header, the canonical name, the size guard and the reproduce command are made in
one place for every track (:mod:`puzzlesat.generator.tracks`): a SAT CNF, a counting CNF, a
MaxSAT WCNF.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.core.files import BY_EXTENSION, Compression, output_compression
from puzzlesat.generator.core.header import FORMAT_VERSION
from puzzlesat.generator.core.save import save_instance
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.core.version import VERSION
from puzzlesat.generator.families import get_family
from puzzlesat.generator.families.params import (
    FORCE_BYTES,
    FORCE_CLAUSES,
    MAX_CLAUSES,
    MAX_VARIABLES,
    SAFE_NAME,
    Estimate,
    file_params,
    normalize_params,
)
from puzzlesat.generator.tracks import get_track
from puzzlesat.generator.tracks.parts import Made, check_track_encoding, header_puzzle

EXPECTED_VALUES = ("SAT", "UNSAT", "UNKNOWN")


@dataclass
class Instance:
    family: Any  # the family module
    track: ModuleType  # the track module (puzzlesat.generator.tracks)
    name: str
    params: dict
    seed: int | None
    encoding: str
    puzzle: Any
    made: Made

    @property
    def formula(self) -> Any:
        """The track's formula (a Formula, a Wcnf)."""
        return self.made.formula

    @property
    def expected(self) -> str:
        """The known result of the hard part: SAT, UNSAT or UNKNOWN."""
        return self.made.expected

    @property
    def expected_from(self) -> str:
        """Where the known result comes from."""
        return self.made.expected_from

    @property
    def certified(self) -> Any:
        """What the track certifies beyond the result (a Count, a Bounds), or None."""
        return self.made.certified

    @property
    def witness(self):
        """A known solution of the puzzle (the planted one, an arrangement), or None."""
        return self.made.witness

    def header(self) -> dict:
        """The self-describing header written as the file's comments."""
        return {
            **header_head(self.family, self.name, self.encoding, self.params, self.seed),
            "expected": self.expected,
            "expected-from": self.expected_from,
            "puzzle": self.family.puzzle_to_json(self.puzzle),
            "reproduce": reproduce_command(self.family, self.track, self.params, self.seed,
                                           self.encoding, self.name),
            **self.made.header,
        }

    def text(self, header: bool = True) -> str:
        """The instance's text as ``puzzlesat generate`` writes it (uncompressed): the
        header's comment lines (none when ``header`` is False), then the formula."""
        return (self.track.head(self.formula, self.header() if header else None)
                + self.track.body(self.formula)).decode()

    def proof(self) -> bytes | None:
        """The generator's proof that the instance has no solution (a PB parity instance's
        VeriPB proof), or None."""
        return self.made.proof

    def witness_json(self) -> dict | None:
        """The witness file's JSON: the known solution, or the generator's proof of UNSAT;
        None when neither is known."""
        solution, proof = self.witness, self.proof()
        if solution is None and proof is None:
            return None
        evidence = ({"solution": self.family.solution_to_json(solution)} if solution is not None
                    else {"proof": proof.decode("ascii") if proof is not None else None})
        return {"family": self.family.NAME, "instance": self.name, **self.made.witness_fields,
                **evidence}


def header_head(family, name: str, encoding: str, params: dict, seed: int | None) -> dict:
    """The first lines of every instance header: format, generator, what the instance is and
    how it was made."""
    return {"puzzlesat-format": FORMAT_VERSION, "generator": f"puzzlesat {VERSION}",
            "family": family.NAME, "instance": name, "encoding": encoding, "params": params,
            "seed": seed}


def build(family_name: str, params: dict, encoding: str | None = None, seed: int | None = None,
          name: str | None = None, solving: Solving | None = None, force: bool = False,
          files_root: str | os.PathLike | None = None, track: str = "sat") -> Instance:
    """Generate and encode one instance of ``track`` (``sat``, ``mc``, ``maxsat``).
    ``params`` may be raw (CLI/TOML); they are normalised. ``solving`` (a
    :class:`~puzzlesat.generator.core.solving.Solving`) runs the solvers a family may ask for
    (a checked UNSAT certificate, a uniqueness test, a count by certified enumeration). The
    track's size estimate is checked first (:func:`check_size`; ``force`` lets past the
    threshold, never past the format's limits). ``files_root``: a published suite's folder,
    against which its ``inputs/...`` file params are read (the header keeps the relative
    path)."""
    family = get_family(family_name)
    form = get_track(track)
    params = normalize_params(family, params)
    encoding = check_track_encoding(family, form, encoding)
    if name is not None and not SAFE_NAME.match(name):
        raise UserError(f"--name {name[:100]!r} must be letters, digits, '.', '_', '-' "
                        f"(at most 200; no slash, space or newline)")
    if not family.uses_seed(params):
        seed = None
    elif seed is None:
        seed = 0
    elif not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise UserError(f"seed must be a non-negative integer, got {seed!r}")
    check_size(family, _in_folder(family, params, files_root), encoding, force, seed, solving,
               form)
    return build_checked(family, params, encoding, seed, name, solving, files_root, form)


def build_checked(family: Any, params: dict, encoding: str, seed: int | None,
                  name: str | None = None, solving: Solving | None = None,
                  files_root: str | os.PathLike | None = None,
                  track: ModuleType | None = None) -> Instance:
    """:func:`build` for what a suite spec has already checked: normalised ``params``, a known
    ``encoding``, the seed the params use, a safe name, and a size checked against the
    limits (:func:`puzzlesat.generator.suite.publish.check_sizes`)."""
    form = track or get_track("sat")
    made_params = _in_folder(family, params, files_root)
    puzzle = family.generate(made_params, Rng(seed if seed is not None else 0), solving)
    made = form.make(family, puzzle, made_params, encoding, seed, solving)
    assert made.expected in EXPECTED_VALUES, made.expected
    return Instance(family, form, name or canonical_name(family, params, seed, encoding),
                    params, seed, encoding, puzzle, made)


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
                   force: bool = False, track: str = "sat",
                   proof: str | None = None,
                   compression: Compression = BY_EXTENSION) -> Instance:
    """Build one instance (:func:`build`) and write it to ``output`` (compressed as
    ``compression`` says, by default by extension; ``-`` = stdout) and, with ``witness``, its
    known solution as JSON, with ``proof`` the generator's proof of UNSAT: every file asked
    for or none. The paths, and the compression against the extension, are checked before
    anything is built; an instance without a known solution has no witness to write (a
    UserError)."""
    output_compression(output, compression.name)
    return save_instance(
        output, witness,
        lambda: build(family_name, params, encoding, seed, name, solving=solving, force=force,
                      track=track),
        lambda inst, path: inst.track.write(path, inst.formula, inst.header(), compression),
        lambda inst: f"{inst.name} has {inst.made.missing_witness}", proof)


def check_size(family, params: dict, encoding: str, force: bool = False,
               seed: int | None = None, solving: Solving | None = None,
               track: ModuleType | None = None) -> Estimate:
    """The track's size estimate (default: SAT), or a UserError stating it: beyond the
    DIMACS limits always, above :data:`FORCE_CLAUSES` clauses or :data:`FORCE_BYTES` bytes
    unless ``force``. ``family`` is a module (``params`` normalised) or a name (``params``
    raw). A ``loose`` estimate that fails is asked again with the puzzle generated from
    ``seed`` (cheap next to its formula), as :func:`build` will make it."""
    form = track or get_track("sat")
    if isinstance(family, str):
        family = get_family(family)
        params = normalize_params(family, params)
    size = form.estimate(family, params, encoding)
    if size.loose and not _fits(size, force):
        puzzle = family.generate(params, Rng(seed if seed is not None else 0), solving)
        size = form.estimate(family, params, encoding, puzzle)
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


def reproduce_command(family, track: ModuleType, params: dict, seed: int | None,
                      encoding: str, name: str) -> str:
    """The ``puzzlesat generate`` command line that builds this instance of ``track`` again
    (the track's words stand where published headers have them)."""
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
    before_name, before_output = track.REPRODUCE
    words += before_name
    if name != canonical_name(family, params, seed, encoding):  # e.g. a suite's r<replicate>
        words += ["--name", name]
    words += [*before_output, "-o", f"{name}.{track.FORMAT}.xz"]
    return shlex.join(words)


#: a header puzzle may be estimated this many times the file's own counts (plus
#: :data:`HEADER_SLACK`): estimates are upper bounds, within 6x of every family's real counts
HEADER_FACTOR = 100
HEADER_SLACK = 10**6


def puzzle_from_header(header: dict, variables: int, clauses: int,
                       track: ModuleType | None = None):
    """(family module, puzzle, encoding) from a parsed instance header of ``track`` (default:
    SAT), or a UserError.

    The header may lie about sizes, and decoding, refereeing or encoding its puzzle costs
    what the puzzle says, not what the file holds; so the track's size estimate of the
    puzzle is checked first: within the format's limits, at least the file's ``variables``
    (the puzzle's model is indexed by them), and within :data:`HEADER_FACTOR` times the file's
    ``variables`` and ``clauses`` (plus :data:`HEADER_SLACK`)."""
    family, puzzle, encoding, size = header_puzzle(header, track or get_track("sat"))
    with prefixed("header puzzle: "):
        refuse_size(size, True)
    if variables > size.variables:  # the estimate is an upper bound
        raise UserError(f"header puzzle: {size.text()}, fewer than the file's {variables:,} "
                        f"variables")
    if (size.variables > HEADER_FACTOR * variables + HEADER_SLACK
            or size.clauses > HEADER_FACTOR * clauses + HEADER_SLACK):
        raise UserError(f"header puzzle: {size.text()}, far more than the file's "
                        f"{variables:,} variables and {clauses:,} clauses")
    return family, puzzle, encoding

"""One MaxSAT instance end to end: params -> puzzle -> WCNF -> self-describing header with the
certified optimum; and the way back, from a WCNF header to its family and puzzle.

A family offers MaxSAT through a ``maxsat`` module beside its SAT modules, with
``ENCODINGS``, ``OBJECTIVE``, ``HARD_SATISFIABLE`` (why the hard clauses have a model),
``encode_wcnf(puzzle, encoding) -> Wcnf``,
``bounds(puzzle, params, rng) -> Bounds`` (certified lower and upper bounds on the optimum,
and the arrangement that attains the upper one), ``decode_wcnf(puzzle, encoding, model)``
and ``referee(puzzle, solution) -> (broken rules, cost)`` (the puzzle's own rules: the cost
a placement or trace shows, with no encoding involved).
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any

from puzzlesat.generator.core.errors import UserError, prefixed, shown
from puzzlesat.generator.core.save import save_instance, write_wcnf_instance
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.core.wcnf import Wcnf
from puzzlesat.generator.families import get_family
from puzzlesat.generator.families.params import SAFE_NAME, check_encoding, normalize_params
from puzzlesat.generator.instance import canonical_name, header_head, reproduce_command

#: public family name -> its MaxSAT module under puzzlesat.generator.families
MAXSAT_MODULES = {"edge-matching": "edgematch.maxsat", "sliding": "sliding.maxsat"}
FORMAT = "wcnf"
#: the header's ``format`` value of a WCNF instance
WCNF_FORMAT = "wcnf-2022"


def maxsat_module(family_name: str) -> Any:
    """The MaxSAT module of family ``family_name``, or a UserError naming those that have one."""
    get_family(family_name)  # an unknown family is named as such
    if family_name not in MAXSAT_MODULES:
        raise UserError(f"family {shown(family_name)} has no MaxSAT form (--format wcnf: "
                        f"{', '.join(MAXSAT_MODULES)})")
    return importlib.import_module(f"puzzlesat.generator.families.{MAXSAT_MODULES[family_name]}")


def check_maxsat_encoding(family, module, encoding: str | None) -> str:
    """``encoding`` or the first of the family's MaxSAT ``module``; a UserError naming the
    known ones."""
    with prefixed("--format wcnf: "):
        return check_encoding(family, encoding, tuple(module.ENCODINGS))


@dataclass
class WcnfInstance:
    family: Any  # the family module
    maxsat: Any  # its MaxSAT module
    name: str
    params: dict
    seed: int | None
    encoding: str
    puzzle: Any
    wcnf: Wcnf
    bounds: Any  # the family's Bounds

    def header(self) -> dict:
        """The self-describing header: the SAT header's keys, then the objective and what is
        certified about its optimum."""
        b = self.bounds
        command = reproduce_command(self.family, self.params, self.seed, self.encoding,
                                    self.name).replace(".cnf.xz", ".wcnf.xz")
        header = {
            **header_head(self.family, self.name, self.encoding, self.params, self.seed),
            "expected": "SAT",
            "expected-from": self.maxsat.HARD_SATISFIABLE,
            "puzzle": self.family.puzzle_to_json(self.puzzle),
            "reproduce": command.replace(" -o ", " --format wcnf -o ", 1),
            "format": WCNF_FORMAT,
            "objective": f"minimise {self.maxsat.OBJECTIVE}",
            "optimum": "unknown" if b.optimum is None else str(b.optimum),
            "optimum-from": b.source,
            "lower-bound": str(b.lower),
            "upper-bound": "unknown" if b.upper is None else str(b.upper),
        }
        if b.best_known:
            header["best-known"] = b.best_known
        return header

    def witness_json(self) -> dict | None:
        """The arrangement attaining the upper bound as a witness file's JSON, or None."""
        if self.bounds.arrangement is None:
            return None
        return {"family": self.family.NAME, "instance": self.name, "cost": self.bounds.upper,
                "solution": self.family.solution_to_json(self.bounds.arrangement)}


def build_wcnf(family_name: str, params: dict, encoding: str | None = None,
               seed: int | None = None, name: str | None = None,
               files_root: str | os.PathLike | None = None) -> WcnfInstance:
    """Generate one MaxSAT instance of a family with a MaxSAT module."""
    family = get_family(family_name)
    module = maxsat_module(family_name)
    params = normalize_params(family, params)
    encoding = check_maxsat_encoding(family, module, encoding)
    if name is not None and not SAFE_NAME.match(name):
        raise UserError(f"--name {name[:100]!r} must be letters, digits, '.', '_', '-'")
    if not family.uses_seed(params):
        seed = None
    elif seed is None:
        seed = 0
    made = params
    if files_root is not None:
        made = {k: (os.path.join(files_root, v) if isinstance(v, str) and v.startswith("inputs/")
                    else v) for k, v in params.items()}
    draw = seed if seed is not None else 0
    puzzle = family.generate(made, Rng(draw))
    wcnf = module.encode_wcnf(puzzle, encoding)
    bounds = module.bounds(puzzle, made, Rng(draw))
    name = name or canonical_name(family, params, seed, encoding)
    return WcnfInstance(family, module, name, params, seed, encoding, puzzle, wcnf, bounds)


def generate_wcnf_files(family_name: str, params: dict, output: str,
                        witness: str | None = None, encoding: str | None = None,
                        seed: int | None = None, name: str | None = None) -> WcnfInstance:
    """``generate --format wcnf``: build the MaxSAT instance and write it to ``output`` and,
    with ``witness``, its best known arrangement as JSON: both files or neither."""
    return save_instance(
        output, witness, lambda: build_wcnf(family_name, params, encoding, seed, name),
        lambda inst, path: write_wcnf_instance(path, inst.wcnf, inst.header()),
        lambda inst: f"{inst.name} has no known arrangement to write")


def puzzle_from_wcnf_header(header: dict):
    """(family module, MaxSAT module, puzzle, encoding) from a WCNF instance's header, or a
    UserError saying what is missing or wrong."""
    missing = [k for k in ("family", "encoding", "puzzle") if k not in header]
    if missing:
        raise UserError(f"not a puzzlesat instance: header lacks {', '.join(missing)}")
    family = get_family(header["family"])
    module = maxsat_module(header["family"])
    encoding = check_maxsat_encoding(family, module, header["encoding"])
    try:
        with prefixed("header puzzle: "):
            puzzle = family.puzzle_from_json(header["puzzle"])
    except UserError:
        raise
    except Exception as exc:  # a damaged header is the file's fault, not ours
        raise UserError(f"header puzzle does not parse: {exc}") from None
    return family, module, puzzle, encoding


def header_int(header: dict, key: str) -> int | None:
    """The header's ``key`` as a non-negative integer; None when it says ``unknown`` or is
    absent; a UserError for anything else."""
    text = header.get(key, "unknown")
    if text == "unknown":
        return None
    if not (isinstance(text, str) and text.isdigit() and len(text) <= 20):
        raise UserError(f"header line 'c {key}:' is not a count: {str(text)[:40]!r}")
    return int(text)

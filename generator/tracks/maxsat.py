"""The MaxSAT track: the same puzzles as weighted partial MaxSAT in the MaxSAT Evaluation's
WCNF 2022+ format (``generate --format wcnf``, a group's ``format = "wcnf"``), whose header
certifies bounds on the optimum, and the optimum itself where they meet.

A family's MaxSAT module (``<family>/maxsat.py``, named on its card) defines ``ENCODINGS``,
``OBJECTIVE``, ``HARD_SATISFIABLE`` (why the hard clauses have a model),
``estimate(params, encoding, puzzle=None) -> Estimate``,
``encode_wcnf(puzzle, encoding) -> Wcnf``,
``bounds(puzzle, params, rng) -> Bounds`` (certified lower and upper bounds on the optimum,
and the arrangement that attains the upper one), ``decode_wcnf(puzzle, encoding, model)``,
``assignment_wcnf(puzzle, encoding, solution)`` and
``referee(puzzle, solution) -> (broken rules, cost)`` (the puzzle's own rules: the cost a
placement or trace shows, with no encoding involved).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from puzzlesat.generator.core.files import BY_EXTENSION, Compression
from puzzlesat.generator.core.optimum import Bounds
from puzzlesat.generator.core.save import write_wcnf_instance
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.core.version import VERSION
from puzzlesat.generator.core.wcnf import (
    MAX_WCNF_BYTES,
    Wcnf,
    WcnfFile,
    read_wcnf,
    wcnf_clause_bytes,
    wcnf_head,
    wcnf_pieces,
)
from puzzlesat.generator.core.writer import gbd_hash_of_body
from puzzlesat.generator.families.params import Estimate
from puzzlesat.generator.tracks.parts import (
    HEADER_HOLDS,
    Made,
    card_module,
    header_limit,
    no_notes,
    no_section,
)

NAME = "maxsat"
FORMAT = "wcnf"
COUNT = False
#: the format in words, for ``generate --format``
FORMAT_TEXT = "WCNF 2022+ for the MaxSAT Evaluation, the certified optimum in the header"
TITLE = "MaxSAT"
CONSTRAINTS = "clauses"  # what the body's lines are called
#: what a suite adds to its instances' names (generate names them as SAT ones)
SUITE_SUFFIX = ""
#: the keys a suite spec's group asks for it with
GROUP_KEYS: dict = {"format": "wcnf"}
REPRODUCE: tuple[tuple[str, ...], tuple[str, ...]] = ((), ("--format", "wcnf"))
#: the header's ``format`` value of a WCNF instance
WCNF_FORMAT = "wcnf-2022"
RESULTS = ("with a certified optimum", "open")


def has(family) -> bool:
    """Whether the family's card names a module of this track."""
    return NAME in family.TRACKS


def module(family) -> Any:
    """The family's MaxSAT module (its card names it), or a UserError naming those that have
    one."""
    return card_module(family, NAME, "MaxSAT form (--format wcnf)")


def encodings(family) -> dict[str, str]:
    """The family's MaxSAT encodings."""
    return module(family).ENCODINGS


def decides(family, encoding: str) -> bool:
    """Whether a file of ``encoding`` asks the puzzle's decision question (what the
    family's certificates answer): never, its hard clauses are satisfiable by design."""
    return False


def estimate(family, params: dict, encoding: str, puzzle=None) -> Estimate:
    """The family's size estimate of its WCNF (hard and soft clauses together)."""
    return module(family).estimate(params, encoding, puzzle)


def encode(family, puzzle, encoding: str) -> Wcnf:
    """The WCNF of ``puzzle``."""
    return module(family).encode_wcnf(puzzle, encoding)


def bounds(family, puzzle, params: dict, seed: int | None) -> Bounds:
    """The certified bounds on the optimum (the seed replays a planted draw)."""
    return module(family).bounds(puzzle, params, Rng(seed if seed is not None else 0))


def make(family, puzzle, params: dict, encoding: str, seed: int | None,
         solving: Solving | None) -> Made:
    """The WCNF of ``puzzle`` and what is certified about its optimum, in the header lines
    ``format``, ``objective``, ``optimum`` (or ``unknown``), ``optimum-from``,
    ``lower-bound``, ``upper-bound`` and, where the literature knows one, ``best-known``."""
    maxsat = module(family)
    found = bounds(family, puzzle, params, seed)
    header = {"format": WCNF_FORMAT, "objective": f"minimise {maxsat.OBJECTIVE}",
              "optimum": "unknown" if found.optimum is None else str(found.optimum),
              "optimum-from": found.source, "lower-bound": str(found.lower),
              "upper-bound": "unknown" if found.upper is None else str(found.upper)}
    if found.best_known:
        header["best-known"] = found.best_known
    return Made(encode(family, puzzle, encoding), "SAT", maxsat.HARD_SATISFIABLE, found,
                header, found.arrangement, {"cost": found.upper}, "no known arrangement")


def summary(inst) -> str:
    """What ``generate`` says of an instance it made: its counts and certified optimum."""
    header = inst.made.header
    return (f"{inst.formula.num_vars} variables, {inst.formula.hard.num_clauses} hard and "
            f"{inst.formula.num_soft} soft clauses, optimum {header['optimum']} "
            f"({header['optimum-from']})")


def picture(family, puzzle, params: dict, seed: int | None):
    """The arrangement of the upper bound, unmatched edges and all."""
    return bounds(family, puzzle, params, seed).arrangement


# -- the file ---------------------------------------------------------------------------------
def head(formula: Wcnf, header: dict | None) -> bytes:
    """The header's ``c`` lines (a 2022+ WCNF has no ``p`` line)."""
    return wcnf_head(header)


def body(formula: Wcnf) -> bytes:
    """The clause lines."""
    return wcnf_clause_bytes(formula)


def write(path: str, formula: Wcnf, header: dict | None,
          compression: Compression = BY_EXTENSION) -> int:
    """Write the instance (compressed as ``compression`` says, ``-`` = stdout); its text's
    size."""
    return write_wcnf_instance(path, formula, header, compression=compression)


def sizes(formula: Wcnf) -> tuple[int, int]:
    """(variables, hard and soft clauses)."""
    return formula.num_vars, formula.hard.num_clauses + formula.num_soft


def gbd_hash(formula: Wcnf) -> str:
    """The md5 of the clause lines' tokens (``h`` and weights included) joined by single
    spaces, as GBD hashes DIMACS."""
    return gbd_hash_of_body(body(formula))


def fingerprint(formula: Wcnf) -> tuple:
    """What a file of this formula must match: its hard and soft clauses and weights."""
    soft, weights = formula.soft_literals()
    return _fingerprint(formula.hard.flat_literals(), soft, weights)


def read(path) -> WcnfFile:
    """The instance file, read no further than its header allows
    (:func:`~puzzlesat.generator.tracks.parts.header_limit`; without a header puzzle that reads,
    :data:`~puzzlesat.generator.core.wcnf.MAX_WCNF_BYTES`)."""
    return read_wcnf(path, *_bound(path))


def text_pieces(path, follow_symlinks: bool = True) -> Iterator[bytes]:
    """The decompressed text of the instance file in pieces, bounded as :func:`read` reads
    it."""
    return wcnf_pieces(path, follow_symlinks, *_bound(path))


def text_limit(path) -> int:
    """The most bytes of text the instance file holds, as :func:`read` reads it."""
    return _bound(path)[0]


def _bound(path) -> tuple[int, str]:
    limit = header_limit(path)
    return (MAX_WCNF_BYTES, "a WCNF instance") if limit is None else (limit, HEADER_HOLDS)


def file_fingerprint(parsed: WcnfFile) -> tuple:
    """:func:`fingerprint` of a file read."""
    return _fingerprint(parsed.hard, parsed.soft, parsed.weights)


def _fingerprint(hard: np.ndarray, soft: np.ndarray, weights: np.ndarray) -> tuple:
    """(the largest variable used, hard and soft clauses, a digest of every literal and
    weight in order)."""
    import hashlib

    digest = hashlib.sha256()
    for part in (hard.astype(np.int32), soft.astype(np.int32), weights.astype(np.uint64)):
        digest.update(part.size.to_bytes(8, "little") + part.tobytes())
    top = max([int(np.abs(a).max()) for a in (hard, soft) if a.size] or [0])
    return top, int(np.count_nonzero(hard == 0)) + int(weights.size), digest.hexdigest()


def file_sizes(parsed: WcnfFile) -> tuple[int, int]:
    """(variables, hard and soft clauses) of a file read."""
    return parsed.num_vars, parsed.num_clauses


def file_lines(parsed: WcnfFile) -> list[str]:
    """What ``show`` says of a file read: its counts and total weight."""
    return ["format: WCNF 2022+", f"variables: {parsed.num_vars}",
            f"hard clauses: {int(np.count_nonzero(parsed.hard == 0))}",
            f"soft clauses: {parsed.weights.size} (total weight {parsed.total_weight})"]


# -- the description --------------------------------------------------------------------------
def result_word(row) -> str:
    """``with a certified optimum`` or ``open``."""
    return RESULTS[row.certified_optimum is None]


def table_result(rows: list) -> str:
    """A group's certified optima for the description's table (``opt 1--3 open``)."""
    known = [r.certified_optimum for r in rows]
    optima = sorted({o for o in known if o is not None})
    return ((("opt " + "--".join(dict.fromkeys(map(str, (optima[0], optima[-1])))))
             if optima else "") + (" open" if None in known else "")).strip()


def encoding_text(family, encoding: str) -> tuple[str, str]:
    """(label, description) of a MaxSAT encoding: labelled with the format and its
    objective."""
    maxsat = module(family)
    return (f"{encoding} (wcnf)", f"{maxsat.ENCODINGS[encoding]}; MaxSAT, minimise "
                                  f"{maxsat.OBJECTIVE}")


def abstract(results: str, rows: list, families: list[str], tex) -> str:
    """The abstract's words for a MaxSAT suite (LaTeX: ``tex`` escapes text)."""
    return tex(f"{len(rows)} instances ({results}) of the families {', '.join(families)}, "
               f"generated by puzzlesat {VERSION} as weighted partial MaxSAT (WCNF 2022+), "
               f"with the optimum certified by construction wherever the header gives one")


#: the description's parts this track adds: none
family_notes, markdown_section, latex_section = no_notes, no_section, no_section


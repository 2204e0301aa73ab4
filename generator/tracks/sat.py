"""The SAT track: a DIMACS CNF whose header states the result known by construction (a planted
solution, an optimal trace, a certificate of UNSAT), the SAT Competition's instances.

The family module itself is the SAT track's module: its ``encode``, ``expected`` and
``witness`` (:mod:`puzzlesat.generator.families`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import BY_EXTENSION, Compression
from puzzlesat.generator.core.reader import Dimacs, dimacs_pieces, read_dimacs
from puzzlesat.generator.core.save import write_instance
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.core.version import VERSION
from puzzlesat.generator.core.writer import clause_bytes, dimacs_head, gbd_hash_of_literals
from puzzlesat.generator.families.params import Estimate
from puzzlesat.generator.tracks import maxsat
from puzzlesat.generator.tracks.parts import HEADER_HOLDS, Made, header_limit, no_notes
from puzzlesat.generator.tracks.table import instance_rows, latex_table, markdown_table, measured

NAME = "sat"
FORMAT = "cnf"
COUNT = False
#: the format in words, for ``generate --format``
FORMAT_TEXT = "DIMACS (SAT)"
TITLE = "SAT"
CONSTRAINTS = "clauses"  # what the body's lines are called
#: what a suite adds to its instances' names (generate names them as SAT ones)
SUITE_SUFFIX = ""
#: the keys a suite spec's group asks for it with
GROUP_KEYS: dict = {}
REPRODUCE: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
#: the results a row of this track can have, in the order descriptions list them
RESULTS = ("sat", "unsat", "unknown")


def has(family) -> bool:
    """Every family has a SAT form: its own contract."""
    return True


def module(family) -> Any:
    """The family's SAT module: the family itself."""
    return family


def encodings(family) -> dict[str, str]:
    """The family's encodings."""
    return family.ENCODINGS


def decides(family, encoding: str) -> bool:
    """Whether a file of ``encoding`` asks the puzzle's decision question (what the
    family's certificates answer): always, on this track."""
    return True


def estimate(family, params: dict, encoding: str, puzzle=None) -> Estimate:
    """The family's size estimate of its CNF."""
    return family.estimate(params, encoding, puzzle)


def encode(family, puzzle, encoding: str) -> Formula:
    """The CNF of ``puzzle``."""
    return family.encode(puzzle, encoding)


def make(family, puzzle, params: dict, encoding: str, seed: int | None,
         solving: Solving | None) -> Made:
    """The CNF of ``puzzle`` and its known result."""
    expected, source = family.expected(puzzle, params, solving)
    return Made(encode(family, puzzle, encoding), expected, source,
                witness=family.witness(puzzle),
                missing_witness=f"no known solution to write (expected {expected})")


def summary(inst) -> str:
    """What ``generate`` says of an instance it made."""
    return (f"{inst.formula.num_vars} variables, {inst.formula.num_clauses} clauses, expected "
            f"{inst.expected} ({inst.expected_from})")


def picture(family, puzzle, params: dict, seed: int | None):
    """The known solution a description draws; for an UNSAT puzzle whose family has a MaxSAT
    form, the arrangement that form certifies (a parity board's planted arrangement, its one
    recoloured side unmatched), so a reader sees what was broken; else None (the puzzle
    alone)."""
    solution = family.witness(puzzle)
    if solution is None and maxsat.has(family):
        try:
            return maxsat.picture(family, puzzle, params, seed)
        except UserError:  # a puzzle the MaxSAT form does not take (unbounded, a short budget)
            return None
    return solution


# -- the file ---------------------------------------------------------------------------------
def head(formula: Formula, header: dict | None) -> bytes:
    """The header's ``c`` lines and the ``p cnf`` line."""
    return dimacs_head(formula, header)


def body(formula: Formula) -> bytes:
    """The clause lines."""
    return clause_bytes(formula)


def write(path: str, formula: Formula, header: dict | None,
          compression: Compression = BY_EXTENSION) -> int:
    """Write the instance (compressed as ``compression`` says, ``-`` = stdout); its text's
    size."""
    return write_instance(path, formula, header, compression=compression)


def sizes(formula: Formula) -> tuple[int, int]:
    """(variables, clauses)."""
    return formula.num_vars, formula.num_clauses


def gbd_hash(formula: Formula) -> str:
    """The GBD hash of the formula's clauses."""
    return gbd_hash_of_literals(formula.flat_literals())


def fingerprint(formula: Formula) -> tuple:
    """What a file of this formula must match: its counts and GBD hash."""
    return formula.num_vars, formula.num_clauses, gbd_hash_of_literals(formula.flat_literals())


def read(path) -> Dimacs:
    """The instance file, read no further than its p line and its header allow
    (:func:`~puzzlesat.generator.tracks.parts.header_limit`)."""
    return read_dimacs(path, header_limit(path), HEADER_HOLDS)


def text_pieces(path, follow_symlinks: bool = True) -> Iterator[bytes]:
    """The decompressed text of the instance file in pieces, bounded as :func:`read` reads
    it."""
    return dimacs_pieces(path, follow_symlinks, header_limit(path), HEADER_HOLDS)


def file_fingerprint(parsed: Dimacs) -> tuple:
    """:func:`fingerprint` of a file read."""
    return parsed.num_vars, parsed.num_clauses, parsed.gbd_hash


def file_sizes(parsed: Dimacs) -> tuple[int, int]:
    """(variables, clauses) of a file read."""
    return parsed.num_vars, parsed.num_clauses


def file_lines(parsed: Dimacs) -> list[str]:
    """What ``show`` says of a file read: its counts, clause widths and GBD hash."""
    lengths = np.diff(np.concatenate([[-1], parsed.clause_ends])) - 1
    hist = np.bincount(lengths) if lengths.size else np.zeros(0, np.int64)
    widths = ", ".join(f"{n}×{w}" for w, n in enumerate(hist.tolist()) if n)
    return [f"variables: {parsed.num_vars}",
            f"clauses: {parsed.num_clauses} ({widths or 'none'})",
            f"literals: {int(lengths.sum())}", f"gbd-hash: {parsed.gbd_hash}"]


# -- the description --------------------------------------------------------------------------
def result_word(row) -> str:
    """What a manifest row's instance is known to be, as descriptions count it."""
    return row.result


def table_result(rows: list) -> str:
    """A group's results for the description's table: sat/unsat, and unknown ones."""
    results = Counter(r.result for r in rows)
    unknown = f"/{results['unknown']}?" if results["unknown"] else ""
    return f"{results['sat']}/{results['unsat']}{unknown}"


def encoding_text(family, encoding: str) -> tuple[str, str]:
    """(label, description) of an encoding."""
    return encoding, family.ENCODINGS[encoding]


def abstract(results: str, rows: list, families: list[str], tex) -> str:
    """The abstract's words for a suite of this track (LaTeX: ``tex`` escapes text)."""
    known = sum(row.result != "unknown" for row in rows)
    return tex(f"{len(rows)} instances ({results}) of the families {', '.join(families)}, "
               f"generated by puzzlesat {VERSION} with "
               + ("every answer known by construction" if known == len(rows)
                  else f"a known answer for {known} of them"))


def _cells(row, tex) -> list[str]:
    """An instance's own cells: its name, its known answer and how it is known (LaTeX when
    ``tex``, the escaper, is given)."""
    answer, known = row.result.upper(), row.expected_from
    return [row.name, *((tex(answer), tex(known)) if tex else (answer, known))]


_HEAD, _ALIGN = ["instance", "answer", "known by"], "lll"
_JUDGED = "each answer was judged against the instance's known answer"


def markdown_section(rows: list, calibration: list[dict]) -> list[str]:
    """The section of description.md on how hard the instances are: every instance's answer
    beside the calibration solvers' CPU seconds (none without a calibration)."""
    if not calibration:
        return []
    return (["## How hard", "", measured(calibration, "Solver times", _JUDGED), ""]
            + markdown_table(_HEAD, instance_rows(rows, calibration, _cells, None), _ALIGN,
                             calibration))


def latex_section(rows: list, calibration: list[dict], tex) -> list[str]:
    """The section of description.tex on how hard the instances are (as
    :func:`markdown_section`; ``tex`` escapes text)."""
    if not calibration:
        return []
    return ([r"\section{How hard}", r"Table~\ref{tab:hard} gives each instance's answer "
             r"beside the solvers' CPU seconds. " + tex(measured(calibration, "Solver times",
                                                                 _JUDGED)), ""]
            + latex_table(_HEAD, instance_rows(rows, calibration, _cells, tex), _ALIGN,
                          calibration, "Each instance's known answer, how it is known, and the "
                          "solvers' CPU seconds.", "tab:hard", tex, wide=True))


#: the description's parts this track adds under each family: none
family_notes = no_notes

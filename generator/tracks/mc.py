"""The model-counting track: a DIMACS CNF in the Model Counting Competition's format (``c t mc``
or ``c t pmc``, the projection on a ``c p show`` line) whose header states the count, certified
by construction (``generate --count``, a group's ``count = true``).

A family's counting module (``<family>/count.py``, named on its card) defines

``shown(puzzle, encoding, formula) -> np.ndarray``   the variables that name a solution of the
                   puzzle (the projection set): every other variable is auxiliary
``known_count(puzzle, encoding, formula, shown, solving) -> Count``   the number of models
                   of ``formula`` projected onto ``shown``, found without any model counter (an
                   exhaustive search over the puzzle's own moves or pieces, a uniqueness proof,
                   or certified enumeration, :mod:`puzzlesat.generator.families.counting`),
                   with how it is known; ``Count(None, why)`` when it is not
``STORY``          what a count counts (projected onto which variables, how symmetry is
                   treated) and how it is certified, for a counting suite's description

An instance whose UNSAT is known by construction has count 0 from the same certificate. The
description says what each family's count counts and how it is certified, gives the range of
the counts, and lists every count beside the model counters' CPU seconds from the suite's
calibration; like the rest of the prose, pure functions of the rows and the calibration table,
so ``verify`` regenerates them.

>>> count_text(3216), count_text(393555556011686600995)
('3{,}216', '3.9\\\\cdot10^{20}')
"""

from __future__ import annotations

from typing import Any

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.counting import projection_of
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.core.version import VERSION
from puzzlesat.generator.families.counting import Count
from puzzlesat.generator.families.params import Estimate
from puzzlesat.generator.tracks import sat
from puzzlesat.generator.tracks.parts import Made, card_module
from puzzlesat.generator.tracks.sat import (  # the file is the SAT track's DIMACS
    body,
    file_fingerprint,
    file_lines,
    file_sizes,
    fingerprint,
    gbd_hash,
    head,
    read,
    result_word,
    sizes,
    table_result,
    text_pieces,
    write,
)
from puzzlesat.generator.tracks.table import instance_rows, latex_table, markdown_table, measured

__all__ = ["body", "file_fingerprint", "file_lines", "file_sizes", "fingerprint", "gbd_hash", "head",
           "read", "result_word", "sizes", "table_result", "text_pieces", "write"]

NAME = "mc"
FORMAT = "cnf"
COUNT = True
#: the format in words, for ``generate --format``
FORMAT_TEXT = "DIMACS with a projection (--count)"
TITLE = "counting"
CONSTRAINTS = "clauses"  # what the body's lines are called
#: what a suite adds to its instances' names (generate names them as SAT ones)
SUITE_SUFFIX = "-count"
#: the keys a suite spec's group asks for it with
GROUP_KEYS: dict = {"count": True}
REPRODUCE: tuple[tuple[str, ...], tuple[str, ...]] = (("--count",), ())
RESULTS = sat.RESULTS
#: counts up to this are written out in full in the tables, larger ones as a power of ten
FULL_DIGITS = 9


def has(family) -> bool:
    """Whether the family's card names a module of this track."""
    return NAME in family.TRACKS


def module(family) -> Any:
    """The family's counting module (its card names it), or a UserError naming those that have
    one."""
    return card_module(family, NAME, "counting form (--count)")


def encodings(family) -> dict[str, str]:
    """The family's encodings (every one counts)."""
    return family.ENCODINGS


def decides(family, encoding: str) -> bool:
    """Whether a file of ``encoding`` asks the puzzle's decision question (what the
    family's certificates answer): always (count 0 is UNSAT)."""
    return True


def estimate(family, params: dict, encoding: str, puzzle=None) -> Estimate:
    """The family's CNF estimate, with the projection line (every variable at most)."""
    size = family.estimate(params, encoding, puzzle)
    return Estimate(size.variables, size.clauses,
                    size.bytes + size.variables * (len(str(size.variables)) + 1), size.loose)


def encode(family, puzzle, encoding: str) -> Formula:
    """The CNF of ``puzzle`` projected onto the family's shown variables."""
    formula = family.encode(puzzle, encoding)
    shown = module(family).shown(puzzle, encoding, formula)
    formula.projection = projection_of(shown, formula.num_vars)
    return formula


def make(family, puzzle, params: dict, encoding: str, seed: int | None,
         solving: Solving | None) -> Made:
    """The counting CNF of ``puzzle`` and its known count: 0 for an instance whose UNSAT is
    known by construction (the same certificate), else the family's own count."""
    formula = encode(family, puzzle, encoding)
    expected, source = family.expected(puzzle, params, solving)
    assert formula.projection is not None
    count = Count(0, source) if expected == "UNSAT" else module(family).known_count(
        puzzle, encoding, formula, formula.projection.shown, solving)
    return Made(formula, expected, source, count,
                {"count": "unknown" if count.value is None else str(count.value),
                 "count-from": count.source},
                family.witness(puzzle), {},
                f"no known solution to write (expected {expected})")


def summary(inst) -> str:
    """What ``generate`` says of an instance it made: the SAT facts and the count."""
    count = inst.certified
    return (f"{sat.summary(inst)}, {inst.formula.projection.type} count "
            f"{'unknown' if count.value is None else count.value} ({count.source})")


def picture(family, puzzle, params: dict, seed: int | None):
    """The known solution a description draws."""
    return family.witness(puzzle)


# -- the description --------------------------------------------------------------------------
def encoding_text(family, encoding: str) -> tuple[str, str]:
    """(label, description) of an encoding."""
    return sat.encoding_text(family, encoding)


def known_counts(rows: list) -> list[int]:
    """The certified counts of the counting rows (unknown ones left out)."""
    return [int(row.count) for row in rows if row.count not in (None, "unknown")]


def count_text(count: int) -> str:
    """A count as the tables print it (math mode): in full up to :data:`FULL_DIGITS` digits,
    its thousands separated by ``{,}`` (a bare comma is punctuation in math mode: a space
    after it), else two significant digits times a power of ten."""
    if len(str(count)) <= FULL_DIGITS:
        return f"{count:,}".replace(",", "{,}")
    mantissa, exponent = f"{count:.1e}".split("e")
    return f"{mantissa}\\cdot10^{{{int(exponent)}}}"


def count_range(rows: list, latex: bool = False) -> str:
    """``from 1 to 3.9·10^20`` over the certified counts: plain text, or LaTeX (the counts
    in math mode)."""
    counts = known_counts(rows)
    if not counts:
        return "no certified count"
    low, high = min(counts), max(counts)

    def shown(n: int) -> str:
        if latex:
            return f"${count_text(n)}$"
        return (count_text(n).replace("\\cdot", "\u00b7").replace("{,}", ",")
                .replace("{", "").replace("}", ""))

    return f"from {shown(low)} to {shown(high)}"


def abstract(results: str, rows: list, families: list[str], tex) -> str:
    """The abstract's words for a counting suite (LaTeX: ``tex`` escapes text)."""
    unknown = sum(1 for row in rows if row.count == "unknown")
    return (tex(f"{len(rows)} model-counting instances in the Model Counting Competition's "
                f"format (track mc or pmc, the projection on a c p show line) of the families "
                f"{', '.join(families)}, generated by puzzlesat {VERSION}, each with its count "
                f"certified by construction, never by a model counter, ")
            + count_range(rows, latex=True)
            + (tex(f" ({unknown} without a certified count)") if unknown else ""))


def family_notes(family) -> list[tuple[str, str]]:
    """What a description adds under each family: what its counts count, how certified."""
    return [("What is counted", module(family).STORY)]


def _source(text: str) -> str:
    """The short name of how a count is known: search, unique, enumeration, a certificate."""
    word = (text or "unknown").split(":")[0].split(" ")[0]
    return {"exhaustive-search": "search"}.get(word, word)


def _cells(row, tex) -> list[str]:
    """A counting instance's own cells: its name, its count, how the count is certified
    (LaTeX when ``tex``, the escaper, is given)."""
    count = row.count
    if count != "unknown":
        count = f"${count_text(int(count))}$" if tex else f"{int(count):,}"
    source = _source(row.count_from or "")
    return [row.name.removesuffix("-count"), count, tex(source) if tex else source]


_HEAD, _ALIGN = ["instance", "count", "certified by"], "lrl"


def _measured(calibration: list[dict]) -> str:
    """How the calibration was measured (plain text), or '' without one."""
    return measured(calibration, "Counter times", "each count was judged against the "
                                                  "certified count")


def latex_section(rows: list, calibration: list[dict], tex) -> list[str]:
    """The section of description.tex on the counts: the table of every instance's count and
    counter times (``tex`` escapes text)."""
    body = instance_rows(rows, calibration, _cells, tex)
    return ([r"\section{The counts}",
             tex("Every count is certified by construction (") + count_range(rows, latex=True)
             + "); "
             + r"Table~\ref{tab:counts} lists them." + (f" {tex(_measured(calibration))}"
                                                  if calibration else ""), ""]
            + latex_table(_HEAD, body, _ALIGN, calibration,
                          "Each instance's certified count, how it is certified, and the model "
                          "counters' CPU seconds.", "tab:counts", tex, wide=False))


def markdown_section(rows: list, calibration: list[dict]) -> list[str]:
    """The section of description.md on the counts (as :func:`latex_section`)."""
    return (["## Counts", "", f"Every count is certified by construction ({count_range(rows)})."
             + (f" {_measured(calibration)}" if calibration else ""), ""]
            + markdown_table(_HEAD, instance_rows(rows, calibration, _cells, None),
                             _ALIGN, calibration))

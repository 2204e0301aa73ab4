"""What an optimisation track's judge shares (MaxSAT, pseudo-Boolean with ``min:``): the
bounds an instance certifies, replayed from its header and never taken from it; the verdict on
a model's checked cost against them; and the decoded solution, refereed by the puzzle's rules,
whose own cost must be the model's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.core.header import header_count
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.families.params import file_params, normalize_params
from puzzlesat.validate.evidence import DECODE_ERRORS, HeaderPuzzle
from puzzlesat.validate.verdict import PuzzleReport, Verdict


@dataclass(frozen=True)
class Certified:
    """What the instance certifies about its optimum, checked against its header puzzle."""

    lower: int
    upper: int | None
    optimum: int | None
    source: str
    known_arrangement: bool  # a model of the hard constraints at cost ``upper`` was checked


def replay(evidence: HeaderPuzzle, assignment: Callable,
           holds: Callable[[np.ndarray], tuple[bool, int]]) -> Certified:
    """The certified bounds of an instance, recomputed from its header (params, seed and
    puzzle) by its family's track module (``bounds``) and compared with what the header
    states; the header puzzle must encode to this very file, and the upper bound's
    arrangement, as a model (``assignment(puzzle, encoding, arrangement)``), must meet every
    hard constraint at that cost (``holds(model) -> (all hold, cost)``). A UserError
    otherwise."""
    if evidence.mismatch:
        raise UserError(f"the header puzzle does not encode to this file's clauses "
                        f"({evidence.mismatch})")
    header, family, puzzle = evidence.parsed.header, evidence.family, evidence.puzzle
    module = evidence.form.module(family)
    if not isinstance(header.get("params"), dict):
        raise UserError("header line 'c params:' is not an object of parameters")
    with prefixed("header params: "):  # checked as a user's params are
        params = normalize_params(family, header["params"])
    seed = header.get("seed")
    seed = seed if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 else 0
    _check_params_size(evidence, params)
    try:
        bounds = module.bounds(puzzle, params, Rng(seed))
    except UserError:
        raise
    except Exception as exc:  # a header whose params do not replay is the file's fault
        raise UserError(f"header params do not replay: {exc}") from None
    stated = tuple(header_count(header, key) for key in ("lower-bound", "upper-bound",
                                                         "optimum"))
    if stated != (bounds.lower, bounds.upper, bounds.optimum):
        raise UserError(f"the header states bounds {stated} (lower, upper, optimum), its puzzle "
                        f"certifies {(bounds.lower, bounds.upper, bounds.optimum)}")
    evident = False
    if bounds.arrangement is not None:  # the upper bound's arrangement, as a model of the file
        model = assignment(puzzle, evidence.encoding, bounds.arrangement)
        meets, cost = holds(model)
        if not meets or cost != bounds.upper:
            raise UserError(f"the arrangement of the upper bound {bounds.upper} is not a model "
                            f"of this file at that cost: the encoding is wrong")
        evident = True
    return Certified(bounds.lower, bounds.upper, bounds.optimum, bounds.source, evident)


def _check_params_size(evidence: HeaderPuzzle, params: dict) -> None:
    """A UserError when the header's params describe a far larger instance than this file:
    replaying them rebuilds that instance (a planted draw), so what it costs is bounded by
    the file's own size first (the header's puzzle was, when it was read). A file the params
    name (a piece file, a level) is never opened: a header may name any path on the machine
    that validates it, and the header's puzzle is that file's content, so it is sized
    instead."""
    names_file = any(params.get(name) not in (None, *builtins)
                     for name, builtins in file_params(evidence.family).items())
    size = evidence.form.estimate(evidence.family, params, evidence.encoding,
                                  evidence.puzzle if names_file else None)
    variables, clauses = evidence.form.file_sizes(evidence.parsed)
    if size.variables > 2 * variables + 64 or size.clauses > 2 * clauses + 64:
        raise UserError(f"the header's params describe an instance of {size.text()}, this file "
                        f"has {variables:,} variables and {clauses:,} clauses or constraints")


def cost_verdict(status: str, cost: int, claimed: int, certified: Certified | None,
                 base: dict) -> Verdict:
    """The verdict on a model of checked ``cost`` whose last ``o`` line says ``claimed``,
    claimed optimal (``OPTIMUM``) or not (``SAT``), against what the instance certifies
    (None: nothing, an objective without a puzzlesat header); a cost below the certified
    lower bound is a checker failure."""
    if claimed != cost:
        return Verdict("WRONG-COST", f"the last o line says {claimed}, the model costs {cost}",
                       **base)
    if certified is None:
        if status == "SAT":
            return Verdict("VERIFIED-COST", f"cost {cost} checked (not claimed optimal)",
                           **base)
        return Verdict("OPTIMUM-UNCHECKED", f"OPTIMUM FOUND at cost {cost}: the instance "
                       "certifies no optimum (no puzzlesat header states one)", **base)
    below = (f"the model's checked cost {cost} is below the certified lower bound "
             f"{certified.lower} ({certified.source}): the certificate or the checker is wrong")
    if cost < certified.lower:
        verdict = Verdict("VERIFIED-COST", f"cost {cost} checked", **base)
        verdict.checker_failure = below
        return verdict
    if status == "SAT":
        return Verdict("VERIFIED-COST", f"cost {cost} checked (not claimed optimal)", **base)
    if certified.optimum is not None:
        if cost > certified.optimum:
            return Verdict("WRONG-ANSWER", f"OPTIMUM FOUND at cost {cost}, the certified "
                           f"optimum is {certified.optimum}", **base)
        return Verdict("VERIFIED-OPTIMUM", f"cost {cost} is the certified optimum", **base)
    if certified.upper is not None and cost > certified.upper:
        return Verdict("WRONG-ANSWER", f"OPTIMUM FOUND at cost {cost}, a known arrangement "
                       f"costs {certified.upper}", **base)
    return Verdict("OPTIMUM-UNCHECKED", f"OPTIMUM FOUND at cost {cost}: no certified optimum "
                   f"(lower bound {certified.lower})", **base)


def puzzle_report(evidence: HeaderPuzzle, model: np.ndarray, cost: int | None, decode,
                  objective: str) -> PuzzleReport:
    """The decoded placement or trace (``decode(puzzle, encoding, model)``), refereed by the
    puzzle's own rules (the track module's ``referee``); its cost must be the model's
    (``cost`` None: no objective to compare)."""
    family, puzzle = evidence.family, evidence.puzzle
    module = evidence.form.module(family)
    try:
        solution = decode(puzzle, evidence.encoding, model)
        problems, shown = module.referee(puzzle, solution)
        json_solution = family.solution_to_json(solution)
    except DECODE_ERRORS as exc:
        return PuzzleReport(family.NAME, evidence.encoding,
                            [f"decoding failed ({type(exc).__name__}: {exc})"], None, "")
    if not problems and cost is not None and shown != cost:
        problems = [f"the puzzle shows {objective} = {shown}, the model costs {cost}"]
    picture = family.render(puzzle, solution) if not problems else ""
    return PuzzleReport(family.NAME, evidence.encoding, problems, json_solution, picture)

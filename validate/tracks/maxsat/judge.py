"""The judge of one MaxSAT answer: the Evaluation's output read strictly, the model checked
against the hard clauses, its cost recomputed, compared with the last ``o`` line and with the
optimum the instance certifies, and decoded into the puzzle, whose own rules give the cost
again.

Verdicts (exit code): VERIFIED-OPTIMUM (0) an optimum claim whose model costs the certified
optimum; VERIFIED-COST (0) a model of checked cost, not claimed optimal; OPTIMUM-UNCHECKED
(1) an optimum claim on an instance without a certified optimum, within its bounds; UNKNOWN
(1); UNSAT-UNCHECKED (1); WRONG-MODEL (3) a hard clause falsified; WRONG-COST (3) the last
``o`` is not the model's cost; WRONG-ANSWER (3) an optimum claim above the certified optimum
(or upper bound), or UNSATISFIABLE when an arrangement is known; MALFORMED (3). A model whose
checked cost lies *below* the certified lower bound is a checker or header failure (exit 4):
the certificate, not the solver, is wrong. A decoded placement or trace that breaks the
puzzle's rules, or whose own cost differs from the model's, is an encoding bug (exit 3).

The bounds are recomputed from the header's params, seed and puzzle, and hold only once that
puzzle encodes to this very file and the upper bound's arrangement is a model of it at that
cost (:func:`open_case`); a header that says otherwise is the instance's fault (exit 2).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.wcnf import WcnfFile
from puzzlesat.generator.tracks import get_track as generator_track
from puzzlesat.generator.tracks.parts import header_size
from puzzlesat.validate.answers import (
    MalformedOutput,
    MaxsatOutput,
    comment_time,
    maxsat_bound,
    maxsat_status,
    model_of,
    parse_maxsat_output,
    status_word,
)
from puzzlesat.validate.evidence import HeaderPuzzle, read_witness
from puzzlesat.validate.optimum import Certified, cost_verdict, puzzle_report, replay
from puzzlesat.validate.tracks import JudgeOptions
from puzzlesat.validate.verdict import Verdict, track_verdicts

VERDICTS = track_verdicts("maxsat")


@dataclass
class Case:
    """A WCNF instance read once, with its header puzzle and its certified bounds."""

    parsed: WcnfFile
    evidence: HeaderPuzzle
    certified: Certified
    notes: list[str]


def open_case(path: str | os.PathLike, options: JudgeOptions = JudgeOptions()) -> Case:
    """Read a WCNF instance and certify its bounds; a file without a puzzlesat header puzzle
    that reads is refused before its clauses are read (a UserError), as is one whose header
    states other bounds than its puzzle gives. A witness file (``options.witness``: an arrangement) must
    attain the certified upper bound."""
    if options.proof is not None:
        raise UserError("--proof: a MaxSAT answer comes without a proof")
    if options.epsilon is not None:
        raise UserError("--epsilon: a tolerance of approximate counts, not of MaxSAT answers")
    form = generator_track("maxsat")
    header_size(path)  # a header that names no puzzle that reads: the clauses are never read
    parsed = form.read(path)
    evidence = HeaderPuzzle(parsed, form)
    if not evidence.found:
        raise UserError(evidence.error)
    case = Case(parsed, evidence, certified_bounds(evidence), [])
    given = read_witness(options.witness)
    if given is not None:
        family, module = evidence.family, form.module(evidence.family)
        try:
            solution = family.solution_from_json(given["solution"])
        except (KeyError, TypeError, ValueError) as exc:
            raise UserError(f"--witness: not a solution of this family ({exc})") from None
        problems, shown = module.referee(evidence.puzzle, solution)
        if problems or shown != case.certified.upper:
            raise UserError(f"--witness does not attain the upper bound {case.certified.upper}: "
                            f"{'; '.join(problems) or f'it costs {shown}'}")
        case.notes.append(f"witness checked: an arrangement of cost {shown}")
    return case


def certified_bounds(evidence: HeaderPuzzle) -> Certified:
    """The certified bounds of a WCNF instance (:func:`~puzzlesat.validate.optimum.replay`):
    the upper bound's arrangement must meet every hard clause at that cost."""
    wcnf = evidence.parsed
    return replay(evidence, evidence.form.module(evidence.family).assignment_wcnf,
                  lambda model: (not wcnf.hard_falsified(model).size, wcnf.cost(model)))


def answer_bound(instance: str | os.PathLike) -> int:
    """The most bytes a MaxSAT answer to the instance holds: a ``v`` line holds a character
    per variable, fewer than the instance's text has bytes (:func:`text_limit`)."""
    return maxsat_bound(generator_track("maxsat").text_limit(instance))


def status(answer: bytes) -> str:
    """What a MaxSAT answer claims (OPTIMUM, SAT, UNSAT, UNKNOWN), or MalformedOutput."""
    return maxsat_status(answer)


def judge(case: Case, answer: bytes | Exception,
          options: JudgeOptions = JudgeOptions()) -> Verdict:
    """The verdict on one MaxSAT answer (see the module docstring)."""
    certified = case.certified
    base: dict[str, Any] = dict(
        name=str(case.parsed.header.get("instance", "")),
        expected=None if certified.optimum is None else f"optimum {certified.optimum}",
        expected_from=certified.source)
    try:
        if isinstance(answer, Exception):
            raise answer
        output = parse_maxsat_output(answer, case.parsed.num_vars)
    except MalformedOutput as exc:
        return Verdict("MALFORMED", str(exc), notes=list(case.notes), **base)
    verdict = _judge_output(case, output, base)
    verdict.notes += case.notes
    verdict.time = comment_time(output.comments)
    return verdict


def _judge_output(case: Case, output: MaxsatOutput, base: dict) -> Verdict:
    base["claimed"] = status_word(output.status)
    certified, wcnf = case.certified, case.parsed
    if output.status == "UNKNOWN":
        return Verdict("UNKNOWN", "the solver gave no answer", **base)
    if output.status == "UNSAT":
        if certified.known_arrangement:
            return Verdict("WRONG-ANSWER", "UNSATISFIABLE, but a known arrangement is a "
                           "model of every hard clause (checked)", **base)
        return Verdict("UNSAT-UNCHECKED", "UNSATISFIABLE, not checked", **base)
    assert output.values is not None
    model = model_of(output.values)
    falsified = wcnf.hard_falsified(model)
    if falsified.size:
        return Verdict("WRONG-MODEL", f"the model falsifies {falsified.size} hard clause(s), "
                       f"the first is hard clause {int(falsified[0]) + 1}", **base)
    cost = wcnf.cost(model)
    verdict = cost_verdict(output.status, cost, output.costs[-1], certified, base)
    module = case.evidence.form.module(case.evidence.family)  # open_case found the puzzle
    verdict.puzzle = puzzle_report(case.evidence, model, cost, module.decode_wcnf,
                                   module.OBJECTIVE)
    return verdict

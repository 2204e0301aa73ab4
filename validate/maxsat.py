"""The judge of one MaxSAT answer: the Evaluation's output read strictly, the model checked
against the hard clauses, its cost recomputed, compared with the last ``o`` line and with the
optimum the instance certifies, and decoded into the puzzle, whose own rules give the cost
again.

Output (MaxSAT Evaluation 2020+): ``c`` comments, exactly one ``s OPTIMUM FOUND`` /
``s SATISFIABLE`` / ``s UNSATISFIABLE`` / ``s UNKNOWN`` line, ``o COST`` lines (the last one
counts), and with a model exactly one ``v`` line: one ``0``/``1`` character per variable
1..V. Any other line, a second ``s`` or ``v`` line, a ``v`` line of the wrong length or with
other characters, a model without an ``o`` line: MALFORMED.

Verdicts (exit code): VERIFIED-OPTIMUM (0) an optimum claim whose model costs the certified
optimum; VERIFIED-COST (0) a model of checked cost, not claimed optimal; OPTIMUM-UNCHECKED
(1) an optimum claim on an instance without a certified optimum, within its bounds; UNKNOWN
(1); UNSAT-UNCHECKED (1); WRONG-MODEL (3) a hard clause falsified; WRONG-COST (3) the last
``o`` is not the model's cost; WRONG-ANSWER (3) an optimum claim above the certified optimum
(or upper bound), or UNSATISFIABLE when an arrangement is known; MALFORMED (3). A model whose
checked cost lies *below* the certified lower bound is a checker or header failure (exit 4):
the certificate, not the solver, is wrong. A decoded placement or trace that breaks the
puzzle's rules, or whose own cost differs from the model's, is an encoding bug (exit 3).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.core.inputs import InputTooLong, check_distinct, read_input
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.core.wcnf_reader import WcnfFile, read_wcnf
from puzzlesat.generator.families.params import normalize_params
from puzzlesat.generator.maxsat import header_int, puzzle_from_wcnf_header
from puzzlesat.validate.output import MAX_OUTPUT_COMMENTS, MalformedOutput, comment_time
from puzzlesat.validate.report import PuzzleReport, Verdict, read_witness

STATUS = {"OPTIMUM FOUND": "OPTIMUM", "SATISFIABLE": "SAT", "UNSATISFIABLE": "UNSAT",
          "UNKNOWN": "UNKNOWN"}
_COST = re.compile(r"o\s+([0-9]{1,20})")


@dataclass
class MaxsatOutput:
    """What a MaxSAT solver claimed: status, ``o`` costs in order, the ``v`` string."""

    status: str
    costs: list[int] = field(default_factory=list)
    values: str | None = None
    comments: list[str] = field(default_factory=list)


def parse_maxsat_output(data: bytes, num_vars: int | None) -> MaxsatOutput:
    """Parse MaxSAT Evaluation output for an instance of ``num_vars`` variables (None: any
    length of ``v`` line), or :class:`MalformedOutput` naming the line."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as exc:
        raise MalformedOutput(f"not ASCII text (offset {exc.start})") from None
    status = values = None
    out = MaxsatOutput("UNKNOWN")
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("c"):
            if line:
                out.comments.append(line)
            continue
        kind, rest = line[0], line[1:].strip()
        if kind == "s":
            if status is not None:
                raise MalformedOutput(f"line {number}: a second s line")
            if " ".join(rest.split()) not in STATUS:
                raise MalformedOutput(f"line {number}: unknown status {rest[:40]!r}")
            status = STATUS[" ".join(rest.split())]
        elif kind == "o":
            m = _COST.fullmatch(line)
            if not m:
                raise MalformedOutput(f"line {number}: an o line holds one non-negative integer")
            out.costs.append(int(m.group(1)))
        elif kind == "v":
            if values is not None:
                raise MalformedOutput(f"line {number}: a second v line")
            if rest.strip("01") or " " in rest:
                raise MalformedOutput(f"line {number}: the v line must be one string of 0 and 1 "
                                      f"characters")
            if num_vars is not None and len(rest) != num_vars:
                raise MalformedOutput(f"line {number}: the v line gives {len(rest)} values, the "
                                      f"instance has {num_vars} variables")
            values = rest
        else:
            raise MalformedOutput(f"line {number}: neither c, s, o nor v: {line[:40]!r}")
    out.status = status or "UNKNOWN"
    out.values = values
    if out.status in ("OPTIMUM", "SAT") and values is None:
        raise MalformedOutput(f"s {_word(out.status)} without a v line")
    if values is not None and out.status not in ("OPTIMUM", "SAT"):
        raise MalformedOutput(f"a v line with s {_word(out.status)}")
    if values is not None and not out.costs:
        raise MalformedOutput("a model without an o line")
    return out


def maxsat_status(data: bytes) -> str:
    """The status a MaxSAT output claims (OPTIMUM, SAT, UNSAT, UNKNOWN), or
    :class:`MalformedOutput`."""
    return parse_maxsat_output(data, None).status


def _word(status: str) -> str:
    return next(k for k, v in STATUS.items() if v == status)


def model_of(values: str) -> np.ndarray:
    """The bool model (index 0 unused) of a ``v`` string."""
    model = np.zeros(len(values) + 1, dtype=bool)
    model[1:] = np.frombuffer(values.encode("ascii"), dtype=np.uint8) == ord("1")
    return model


@dataclass(frozen=True)
class Certified:
    """What the instance certifies about its optimum, checked against its header puzzle."""

    lower: int
    upper: int | None
    optimum: int | None
    source: str
    known_arrangement: bool  # a model of the hard clauses at cost ``upper`` was checked


def certified_bounds(wcnf: WcnfFile) -> tuple[Certified, Any, Any, Any, str]:
    """The certified bounds of a WCNF instance, recomputed from its header (params, seed and
    puzzle) and compared with what the header states; the header puzzle must encode to this
    very file. (certified, family, MaxSAT module, puzzle, encoding), or a UserError."""
    header = wcnf.header
    family, module, puzzle, encoding = puzzle_from_wcnf_header(header)
    remade = module.encode_wcnf(puzzle, encoding)
    hard, soft_weights = remade.hard.flat_literals(), remade.soft_literals()
    if not (np.array_equal(hard, wcnf.hard) and np.array_equal(soft_weights[0], wcnf.soft)
            and np.array_equal(soft_weights[1], wcnf.weights)):
        raise UserError("the header puzzle does not encode to this file's clauses")
    if not isinstance(header.get("params"), dict):
        raise UserError("header line 'c params:' is not an object of parameters")
    with prefixed("header params: "):  # checked as a user's params are
        params = normalize_params(family, header["params"])
    seed = header.get("seed")
    seed = seed if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 else 0
    try:
        bounds = module.bounds(puzzle, params, Rng(seed))
    except UserError:
        raise
    except Exception as exc:  # a header whose params do not replay is the file's fault
        raise UserError(f"header params do not replay: {exc}") from None
    stated = (header_int(header, "lower-bound"), header_int(header, "upper-bound"),
              header_int(header, "optimum"))
    if stated != (bounds.lower, bounds.upper, bounds.optimum):
        raise UserError(f"the header states bounds {stated} (lower, upper, optimum), its puzzle "
                        f"certifies {(bounds.lower, bounds.upper, bounds.optimum)}")
    evidence = False
    if bounds.arrangement is not None:  # the upper bound's arrangement, as a model of the file
        model = module.assignment_wcnf(puzzle, encoding, bounds.arrangement)
        if wcnf.hard_falsified(model).size or wcnf.cost(model) != bounds.upper:
            raise UserError(f"the arrangement of the upper bound {bounds.upper} is not a model "
                            f"of this file at that cost: the encoding is wrong")
        evidence = True
    return (Certified(bounds.lower, bounds.upper, bounds.optimum, bounds.source, evidence),
            family, module, puzzle, encoding)


def judge_maxsat(wcnf: WcnfFile, answer: MaxsatOutput | MalformedOutput, certified: Certified,
                 family, module, puzzle, encoding: str, **base) -> Verdict:
    """The verdict on one MaxSAT answer (see the module docstring)."""
    if isinstance(answer, MalformedOutput):
        return Verdict("MALFORMED", str(answer), **base)
    output = answer
    claim = _word(output.status)
    base.update(claimed=claim, expected=None if certified.optimum is None
                else f"optimum {certified.optimum}", expected_from=certified.source)
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
    claimed = output.costs[-1]
    report = _puzzle_report(family, module, puzzle, encoding, model, cost)
    verdict = _cost_verdict(output.status, cost, claimed, certified, base)
    verdict.puzzle = report
    return verdict


def _cost_verdict(status: str, cost: int, claimed: int, certified: Certified,
                  base: dict) -> Verdict:
    if claimed != cost:
        return Verdict("WRONG-COST", f"the last o line says {claimed}, the model costs {cost}",
                       **base)
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


def _puzzle_report(family, module, puzzle, encoding: str, model: np.ndarray,
                   cost: int) -> PuzzleReport:
    """The decoded placement or trace, refereed by the puzzle's own rules; its cost must be
    the model's."""
    solution = module.decode_wcnf(puzzle, encoding, model)
    problems, shown = module.referee(puzzle, solution)
    if not problems and shown != cost:
        problems = [f"the puzzle shows {module.OBJECTIVE} = {shown}, the model costs {cost}"]
    picture = family.render(puzzle, solution) if not problems else ""
    return PuzzleReport(family.NAME, encoding, problems, family.solution_to_json(solution),
                        picture)


def read_maxsat_output(path: str | os.PathLike, num_vars: int) -> MaxsatOutput:
    """Read and parse a MaxSAT output file (plain or compressed)."""
    try:
        data = read_input(path, num_vars + 2 + MAX_OUTPUT_COMMENTS, "output")
    except InputTooLong as exc:
        raise MalformedOutput(str(exc)) from None
    return parse_maxsat_output(data, num_vars)


def validate_wcnf_files(instance: str | os.PathLike, output: str | os.PathLike,
                        witness: str | os.PathLike | None = None) -> Verdict:
    """Read a WCNF instance and a MaxSAT solver's output and judge it. A ``witness`` (an
    arrangement, ``generate --witness``) must attain the header's upper bound."""
    check_distinct(("the instance", instance), ("the output", output), ("--witness", witness))
    wcnf = read_wcnf(instance)
    certified, family, module, puzzle, encoding = certified_bounds(wcnf)
    notes = []
    given = read_witness(witness)
    if given is not None:
        try:
            solution = family.solution_from_json(given["solution"])
        except (KeyError, TypeError, ValueError) as exc:
            raise UserError(f"--witness: not a solution of this family ({exc})") from None
        problems, shown = module.referee(puzzle, solution)
        if problems or shown != certified.upper:
            raise UserError(f"--witness does not attain the upper bound {certified.upper}: "
                            f"{'; '.join(problems) or f'it costs {shown}'}")
        notes.append(f"witness checked: an arrangement of cost {shown}")
    try:
        answer: MaxsatOutput | MalformedOutput = read_maxsat_output(output, wcnf.num_vars)
    except MalformedOutput as exc:
        answer = exc
    verdict = judge_maxsat(wcnf, answer, certified, family, module, puzzle, encoding,
                           instance=str(instance), output=str(output),
                           name=str(wcnf.header.get("instance", "")))
    verdict.notes += notes
    if isinstance(answer, MaxsatOutput):
        verdict.time = comment_time(answer.comments)
    return verdict



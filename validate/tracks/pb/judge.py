"""The judge of one pseudo-Boolean answer: the Pseudo-Boolean Competition's output read strictly,
every constraint checked with exact integers, the objective recomputed and compared with the
last ``o`` line and the certified optimum, the model decoded into the puzzle and refereed by
its rules; an UNSAT claim judged by a proof that a checker verified, or by the certificate
the header's puzzle carries.

Verdicts (exit code): VERIFIED-SAT (0) every constraint holds; VERIFIED-UNSAT (0) a proof
verified (puzzlesat's cutting-planes checker, or VeriPB where it is installed), or no proof
on an instance whose header certificate holds for its puzzle and that puzzle encodes to this
very file; VERIFIED-OPTIMUM / VERIFIED-COST / OPTIMUM-UNCHECKED as the MaxSAT judge gives
them (:mod:`puzzlesat.validate.optimum`); UNSAT-UNCHECKED (1) a proof no installed checker
could read, or none; UNKNOWN (1); WRONG-MODEL (3) a constraint falsified; WRONG-COST (3);
WRONG-ANSWER (3) UNSAT on an instance with a known solution, or an optimum above the
certified one; WRONG-PROOF (3) a proof a checker rejected; MALFORMED (3). A checker that
verifies a proof of an instance whose known solution meets every constraint is a checker
failure (exit 4), as is a model cheaper than the certified lower bound. Never VERIFIED on
trust: a proof no checker here can read leaves the claim unchecked.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import scratch_folder
from puzzlesat.generator.core.inputs import read_input
from puzzlesat.generator.core.opb import OpbFile
from puzzlesat.generator.tracks import get_track as generator_track
from puzzlesat.validate.answers import (
    MalformedOutput,
    PbOutput,
    comment_time,
    parse_pb_output,
    pb_bound,
    pb_status,
    status_word,
)
from puzzlesat.validate.evidence import DECODE_ERRORS, HeaderPuzzle, read_witness
from puzzlesat.validate.optimum import Certified, cost_verdict, puzzle_report, replay
from puzzlesat.validate.tracks import JudgeOptions
from puzzlesat.validate.verdict import Verdict, track_verdicts

VERDICTS = track_verdicts("pb")
#: the most bytes of a solver's proof read (decompressed, and held whole: our checker reads it,
#: then VeriPB's screening); a longer one is not checked. 64 MiB, not 1 GiB: a 29 KB .xz can
#: hold 200 MB, and reading that much would cost more than any proof we check (the
#: generator's are a few lines, 16 KB on a 16x16 edge-matching board)
MAX_PROOF_BYTES = 64 << 20
#: where VeriPB is found: this variable, else ``veripb`` on PATH
VERIPB_VARIABLE = "PUZZLESAT_VERIPB"


@dataclass
class Case:
    """An OPB instance read once, with its header puzzle and what it certifies."""

    parsed: OpbFile
    evidence: HeaderPuzzle
    certified: Certified | None  # an optimisation instance's bounds
    path: Path
    notes: list[str] = field(default_factory=list)

    def base(self) -> dict[str, Any]:
        """The fields every verdict on this instance carries."""
        header = self.parsed.header
        if self.certified is not None:
            expected = (None if self.certified.optimum is None
                        else f"optimum {self.certified.optimum}")
            return dict(name=str(header.get("instance", "")), expected=expected,
                        expected_from=self.certified.source)
        expected = header.get("expected")
        return dict(name=str(header.get("instance", "")),
                    expected=expected if expected in ("SAT", "UNSAT", "UNKNOWN") else None,
                    expected_from=header.get("expected-from"))


def open_case(path: str | os.PathLike, options: JudgeOptions = JudgeOptions()) -> Case:
    """Read an OPB instance (bounded by its header) and, when it has an objective, certify
    its bounds from the header's puzzle (a UserError when they cannot be)."""
    if options.epsilon is not None:
        raise UserError("--epsilon: a tolerance of approximate counts, not of PB answers")
    if options.proof is not None and not Path(options.proof).exists():
        raise UserError(f"cannot read {options.proof}: no such file")
    form = generator_track("pb")
    parsed = form.read(path)
    evidence = HeaderPuzzle(parsed, form)
    certified = None
    # an optimisation encoding's header must state bounds that replay: without them its
    # header's expected answer would stand unchecked
    optimising = evidence.found and not form.decides(evidence.family, evidence.encoding)
    if parsed.objective is not None and ("optimum" in parsed.header or optimising):
        if not evidence.found:
            raise UserError(evidence.error)
        module = form.module(evidence.family)
        certified = replay(evidence, module.assignment_opb,
                           lambda model: (not parsed.violated(model).size, parsed.cost(model)))
    return Case(parsed, evidence, certified, Path(path))


def answer_bound(instance: str | os.PathLike) -> int:
    """The most bytes a PB answer to the instance holds: a ``-x<n>`` per variable, fewer
    than the instance's text has bytes."""
    return pb_bound(generator_track("pb").text_limit(instance))


def status(answer: bytes) -> str:
    """What a PB answer claims (OPTIMUM, SAT, UNSAT, UNKNOWN), or MalformedOutput."""
    return pb_status(answer)


def judge(case: Case, answer: bytes | Exception,
          options: JudgeOptions = JudgeOptions()) -> Verdict:
    """The verdict on one PB answer (see the module docstring)."""
    base = case.base()
    try:
        if isinstance(answer, Exception):
            raise answer
        output = parse_pb_output(answer, case.parsed.num_vars)
    except MalformedOutput as exc:
        return Verdict("MALFORMED", str(exc), notes=list(case.notes), **base)
    base["claimed"] = status_word(output.status)
    if output.status == "UNKNOWN":
        verdict = Verdict("UNKNOWN", "the solver gave no answer", **base)
    elif output.status == "UNSAT":
        verdict = _judge_unsat(case, options, base)
    else:
        verdict = _judge_model(case, output, base)
    verdict.notes += case.notes
    verdict.time = comment_time(output.comments)
    return verdict


def _judge_model(case: Case, output: PbOutput, base: dict) -> Verdict:
    parsed, model = case.parsed, output.model
    assert model is not None  # a SAT or OPTIMUM answer gives every variable
    violated = parsed.violated(model)
    if violated.size:
        return Verdict("WRONG-MODEL", f"the model falsifies {violated.size} of "
                       f"{parsed.num_constraints} constraints, the first is constraint "
                       f"{int(violated[0]) + 1}", **base)
    module = _module(case)
    if parsed.objective is not None:
        if not output.costs:
            return Verdict("MALFORMED", "a model of an instance with an objective and no o "
                           "line", **base)
        cost = parsed.cost(model)
        verdict = cost_verdict(output.status, cost, output.costs[-1], case.certified, base)
        if case.certified is not None:
            verdict.puzzle = puzzle_report(case.evidence, model, cost, module.decode_opb,
                                           module.OBJECTIVES[case.evidence.encoding])
        return verdict
    if output.status == "OPTIMUM":
        return Verdict("MALFORMED", "OPTIMUM FOUND on an instance without an objective",
                       **base)
    verdict = Verdict("VERIFIED-SAT", f"every one of the {parsed.num_constraints} constraints "
                      "holds", **base)
    if base["expected"] == "UNSAT":
        certified, why = case.evidence.certificate()
        verdict.notes.append(
            f"the header's certificate holds ({why}): a model of this file contradicts it, so "
            "the encoding is wrong" if certified else
            f"the header expects UNSAT ({base['expected_from']}): this model shows the header "
            "is wrong")
    if module is not None:
        verdict.puzzle = puzzle_report(case.evidence, model, None, module.decode_opb, "")
    else:
        verdict.puzzle_note = f"not decoded: {case.evidence.error}"
    return verdict


def _module(case: Case) -> Any:
    """The family's PB module when the header's puzzle reads and encodes to this file."""
    evidence = case.evidence
    if not evidence.found or evidence.mismatch:
        return None
    return evidence.form.module(evidence.family)


def known_solution(case: Case, given: dict | None) -> str:
    """How the instance is known feasible: "the planted witness meets all N constraints",
    or "" without such evidence (the known solution, encoded, checked on the file)."""
    evidence, parsed = case.evidence, case.parsed
    if case.certified is not None and case.certified.known_arrangement:
        return (f"the arrangement of the upper bound {case.certified.upper} meets all "
                f"{parsed.num_constraints} constraints")
    solution = evidence.known_solution(given)
    module = _module(case)
    if solution is None or module is None:
        return ""
    try:
        model = np.asarray(module.assignment_opb(evidence.puzzle, evidence.encoding,
                                                 solution), dtype=bool)
    except (UserError, *DECODE_ERRORS):
        return ""
    if model.shape != (parsed.num_vars + 1,) or parsed.violated(model).size:
        return ""
    return f"the planted witness meets all {parsed.num_constraints} constraints"


def _judge_unsat(case: Case, options: JudgeOptions, base: dict) -> Verdict:
    known = known_solution(case, read_witness(options.witness))
    notes: list[str] = []
    if options.proof is not None:
        ok, checker, reason = check_pb_proof(case, Path(options.proof),
                                             options.proof_time_limit)
        if ok and known:
            return Verdict("WRONG-ANSWER", f"claims UNSAT, but {known}", notes=notes, **base,
                           checker_failure=f"{checker} verified the UNSAT proof ({reason}), "
                           f"yet {known}: the proof checker is unsound")
        if ok:
            verdict = Verdict("VERIFIED-UNSAT", f"proof verified by {checker} ({reason})",
                              **base)
            if base["expected"] == "SAT":  # and no witness checks
                verdict.notes.append(f"the header expects SAT ({base['expected_from']}) "
                                     "without a witness that checks: this proof shows the "
                                     "header is wrong")
            return verdict
        if ok is False and not known:
            return Verdict("WRONG-PROOF", f"{checker} rejected the proof: {reason}", **base)
        notes.append(f"proof rejected by {checker}: {reason}" if ok is False
                     else f"proof not checked: {reason}")
    return case.evidence.unproved_unsat(base, notes, options.proof is not None, known)


# -- proofs ---------------------------------------------------------------------------------------
def check_pb_proof(case: Case, proof: Path,
                   time_limit: float | None = None) -> tuple[bool | None, str, str]:
    """(verified: True, rejected: False, not checked: None; the checker; why) for a VeriPB
    proof of the instance: puzzlesat's cutting-planes checker when the proof is in the subset
    it reads (and within its budget), else VeriPB where it is installed; both within
    ``time_limit`` seconds."""
    from puzzlesat.validate.proof.cutting_planes import check_refutation

    deadline = None if time_limit is None else time.monotonic() + time_limit
    try:
        text = read_input(proof, MAX_PROOF_BYTES, "the proof")
    except UserError as exc:
        return None, "puzzlesat-cutting-planes", str(exc)
    try:
        found = check_refutation(veripb_constraints(case.parsed), text, str(proof),
                                 deadline=deadline, num_vars=case.parsed.num_vars)
    except TimeoutError:
        return None, "puzzlesat-cutting-planes", (f"the proof was not checked in time (the "
                                                  f"proof time limit is {time_limit:g} s)")
    if found.verified:
        return True, "puzzlesat-cutting-planes", found.reason
    if not found.unsupported:
        return False, "puzzlesat-cutting-planes", found.reason
    return _veripb(case.path, proof, text, found.reason, deadline)


def veripb_constraints(parsed: OpbFile) -> list[tuple[list[tuple[int, int]], int]]:
    """The instance's constraints in VeriPB's numbering, each as ``>=``: an equality gives
    its ``>=`` half, then its ``<=`` half negated."""
    out: list[tuple[list[tuple[int, int]], int]] = []
    for terms, relation, degree in parsed.constraints():
        pairs = [(int(coef), int(lit)) for coef, lit in terms]
        out.append((pairs, int(degree)))
        if relation == "=":
            out.append(([(-coef, lit) for coef, lit in pairs], -int(degree)))
    return out


def _veripb(instance: Path, proof: Path, text: bytes, why_not_ours: str,
            deadline: float | None = None) -> tuple[bool | None, str, str]:
    """VeriPB's word on a proof ours does not read, taken only where it means UNSAT: a
    version 2 proof (whose ``conclusion UNSAT`` VeriPB 2 checks) that states that conclusion.
    VeriPB 0.x, which reads only version 1, exits 0 on a proof that derives no contradiction
    and saturates unsoundly (validate/proof/cutting_planes.py), so a version 1 proof is
    never sent to it."""
    first = text.lstrip().split(b"\n", 1)[0].strip()
    if not first.startswith(b"pseudo-Boolean proof version 2."):
        return None, "VeriPB", (f"puzzlesat's checker does not read it ({why_not_ours}), and "
                                "only a version 2 proof is sent to VeriPB (VeriPB before 2 "
                                "accepts a version 1 proof that derives no contradiction)")
    if re.search(rb"(?m)^[ \t]*conclusion UNSAT", text) is None:  # no list of the lines
        return None, "VeriPB", "the proof states no 'conclusion UNSAT'"
    program = os.environ.get(VERIPB_VARIABLE) or shutil.which("veripb")
    if not program:
        return None, "VeriPB", (f"puzzlesat's checker does not read it ({why_not_ours}) and "
                                "VeriPB is not installed")
    with scratch_folder("veripb") as folder:
        plain = folder / "instance.opb"  # VeriPB reads plain text
        plain.write_bytes(b"".join(generator_track("pb").text_pieces(instance)))
        try:
            left = 3600 if deadline is None else max(deadline - time.monotonic(), 1.0)
            ran = subprocess.run([program, str(plain), str(proof)], capture_output=True,
                                 timeout=left, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return None, "VeriPB", f"VeriPB did not run: {exc}"
    said = (ran.stdout + ran.stderr).decode("utf-8", "replace").strip().splitlines()
    last = said[-1] if said else f"exit code {ran.returncode}"
    # VeriPB's exit codes: 0 verified, 5 a rule failed, 4 a file it cannot read (a format or
    # version it does not know: the proof is not checked)
    if ran.returncode == 0 and any("Verification succeeded" in line for line in said):
        return True, "VeriPB", last
    if ran.returncode == 5:
        return False, "VeriPB", " ".join(said[-3:])
    return None, "VeriPB", f"VeriPB could not read it (exit code {ran.returncode}: {last})"

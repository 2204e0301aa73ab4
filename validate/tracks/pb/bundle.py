"""The Pseudo-Boolean Competition's bundle of a published OPB suite.

The competition draws its instances per *domain*, one directory each (10 per domain, at most
5 % per submitter, duplicates removed by md5). The bundle (:mod:`puzzlesat.validate.runs.
bundle`) holds one folder per domain — the family and how its answer is known:
``<family>-planted`` (SAT), ``<family>-parity`` (UNSAT, refuted by a counting argument),
``<family>-optimum`` (an objective with a certified optimum) — of ``<name>.opb.xz``, with each
parity instance's generator proof ``<name>.pbp`` (VeriPB 2.0) beside it; ``metadata.csv``
(:data:`METADATA_COLUMNS`: each instance's domain, known answer, optimum and proof, and the
calibration's runs); the suite's ``description.tex``/``.md`` (the same TeX path as every
description) with the plots it includes, and ``CITATION.cff``; plus a deterministic
``.tar.xz`` of the same. It is refused when two instances have the same bytes of text (the
competition's md5), when an UNSAT instance's proof does not check, when a known answer is not
certified again from the instance's puzzle, or when a calibration run got a failing verdict.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.core.structured import load_json
from puzzlesat.generator.suite.folder import ManifestRow, read_suite_file, table_bytes
from puzzlesat.validate.runs.bundle import (
    BUNDLE_COPIES,
    instance_text,
    no_margin,
    suite_copies,
    write_bundle,
    xz_instance,
)
from puzzlesat.validate.runs.records import CalibrationRow
from puzzlesat.validate.tracks.pb.judge import Case, known_solution, open_case, veripb_constraints
from puzzlesat.validate.verdict import FAILED

METADATA_COLUMNS = ("file", "domain", "family", "variables", "constraints", "answer",
                    "answer-from", "optimum", "proof", "runs", "sha256")
#: whether the bundle needs the suite's calibration: every answer is certified without it
CALIBRATED = False
#: calibrate --recheck's instances: none, the rules have no speed margin
to_recheck = no_margin


@dataclass
class PbCheck:
    """What the PB bundle's check found: metadata rows, failures, the rows checked, each
    parity instance's proof and each instance's domain."""

    metadata: list[dict] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    rows: list[ManifestRow] = field(default_factory=list)
    proofs: dict[str, bytes] = field(default_factory=dict)  # bundle path -> proof text
    domains: dict[str, str] = field(default_factory=dict)  # instance name -> its domain

    def lines(self) -> list[str]:
        """One line per instance: its domain, known answer and how it is known."""
        return [f"{row['file']}: {row['answer']} ({row['answer-from']})"
                + (f", proof {row['proof']}" if row["proof"] else "")
                for row in self.metadata]


def bundle_name(rel) -> bool:
    """Whether ``rel`` is a name this tool writes in a PB bundle folder."""
    return isinstance(rel, str) and (
        rel in ("metadata.csv", *BUNDLE_COPIES)
        or re.fullmatch(r"[a-z0-9-]{1,100}/[A-Za-z0-9][A-Za-z0-9._-]{0,199}\.(opb\.xz|pbp)"
                        r"|calibration-[A-Za-z0-9._-]+\.png", rel) is not None)


@dataclass
class Known:
    """An instance's answer as its own file certifies it again: the answer's word, how it is
    known, the certified optimum ("" without), and what failed to certify it ("" when it
    held)."""

    answer: str
    source: str
    optimum: str = ""
    failure: str = ""


def known_answer(case: Case, given: dict | None) -> Known:
    """The answer the instance's header states, certified again from its puzzle (never taken
    from the manifest): an optimum replayed (``open_case``), an UNSAT by its certificate or
    what its family knows by construction (a shipped optimal trace, replayed), a SAT by a
    known solution (``given``: its witness file) that meets every constraint."""
    header = case.parsed.header
    if case.certified is not None:
        optimum = case.certified.optimum
        return Known("SAT" if optimum is None else "OPTIMUM", case.certified.source,
                     "" if optimum is None else str(optimum))
    expected, source = header.get("expected"), str(header.get("expected-from", ""))
    if expected == "UNSAT":
        certified, why = case.evidence.certificate()
        if not certified and not why:  # a trace's optimality: known, replayed, not proved
            certified, why = case.evidence.known_by_construction()
        return Known("UNSAT", source, failure="" if certified else
                     f"UNSAT not certified again ({why or 'no certificate'})")
    if expected == "SAT":
        return Known("SAT", source, failure="" if known_solution(case, given) else
                     "SAT not certified again (no known solution meets every constraint)")
    return Known("UNKNOWN", source, failure="no known answer")


def domain(family: str, known: Known, optimising: bool) -> str:
    """The competition domain of an instance: its family and how its answer is known."""
    if optimising:
        kind = "optimum"
    elif known.answer == "UNSAT":
        kind = "parity" if known.source.startswith("parity") else "unsat"
    else:
        kind = ("open" if known.answer != "SAT" else
                "planted" if known.source.startswith("planted") else "sat")
    return f"{family}-{kind}"


def check(src: Path, rows: list[ManifestRow], runs: list[CalibrationRow], rules=None,
          solving=None, author: str = "") -> PbCheck:
    """Each instance read (bounded by its header) and its answer certified again from its
    own file (:func:`known_answer`; a manifest that says otherwise is a failure), an UNSAT's
    generator proof in its witness file checked; a failure per instance whose text another
    has (md5) and per calibration run with a failing verdict (``rules``, ``solving``: none
    apply)."""
    from puzzlesat.validate.proof.cutting_planes import check_refutation

    done = PbCheck(rows=rows)
    done.failures += [f"{run.name}: {run.solver}'s calibration run was {run.verdict}: "
                      f"{run.reason}" for run in runs if run.verdict in FAILED]
    seen: dict[str, str] = {}
    for row in rows:
        path = src / row.file
        with prefixed(f"{path}: "):
            case = open_case(path)
            text = instance_text(src, row)
        md5 = hashlib.md5(text).hexdigest()
        if md5 in seen:
            done.failures.append(f"{row.name}: the same text (md5) as {seen[md5]}")
        seen.setdefault(md5, row.name)
        witness = _witness(src, row)
        known = known_answer(case, witness)
        if known.failure:
            done.failures.append(f"{row.name}: {known.failure}")
        said = _manifest_answer(row)
        if said != (known.answer, known.optimum):
            done.failures.append(f"{row.name}: the manifest says {' '.join(said).strip()}, "
                                 f"the instance {known.answer} {known.optimum}".rstrip())
        where = domain(row.family, known, case.parsed.objective is not None)
        done.domains[row.name] = where
        proof_name = ""
        if known.answer == "UNSAT":
            proof = _proof(witness)
            if proof is not None:
                found = check_refutation(veripb_constraints(case.parsed), proof, row.name)
                if not found.verified:
                    done.failures.append(f"{row.name}: the generator's proof does not check: "
                                         f"{found.reason}")
                proof_name = f"{where}/{row.name}.pbp"
                done.proofs[proof_name] = proof
        mine = [run for run in runs if run.hash == row.hash]
        done.metadata.append({
            "file": f"{where}/{row.name}.opb.xz", "domain": where, "family": row.family,
            "variables": row.variables, "constraints": row.clauses, "answer": known.answer,
            "answer-from": known.source, "optimum": known.optimum, "proof": proof_name,
            "runs": "; ".join(f"{run.solver} {run.cell()} {run.verdict}" for run in mine),
            "sha256": row.text_sha256})
    if not rows:
        done.failures.append("the suite has no instances")
    return done


def _manifest_answer(row: ManifestRow) -> tuple[str, str]:
    """(answer, optimum) as the manifest row states them, in :class:`Known`'s words."""
    if row.optimum is None:
        return row.result.upper(), ""
    return ("SAT", "") if row.optimum == "unknown" else ("OPTIMUM", row.optimum)


def _witness(src: Path, row: ManifestRow) -> dict | None:
    """The instance's witness file (read without following a link), or None."""
    if row.witness is None:
        return None
    data = load_json(read_suite_file(src / row.witness), str(src / row.witness))
    return data if isinstance(data, dict) else None


def _proof(witness: dict | None) -> bytes | None:
    """The generator's proof in an instance's witness file, or None."""
    proof = witness.get("proof") if witness is not None else None
    return proof.encode("ascii", "replace") if isinstance(proof, str) else None


def write(src: Path, output: str | os.PathLike | None, done: PbCheck) -> Path:
    """Write the bundle of a check that holds; the archive's path."""
    if done.failures:
        raise UserError("the submission rules do not hold: " + "; ".join(done.failures))
    files = {f"{done.domains[row.name]}/{row.name}.opb.xz": xz_instance(src, row)
             for row in done.rows}
    files.update(done.proofs)
    files["metadata.csv"] = table_bytes(METADATA_COLUMNS, done.metadata)
    files.update(suite_copies(src, bundle_name))
    return write_bundle(src, output, files, bundle_name)

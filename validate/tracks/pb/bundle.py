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
from puzzlesat.validate.tracks.pb.judge import open_case, veripb_constraints
from puzzlesat.validate.verdict import FAILED

METADATA_COLUMNS = ("file", "domain", "family", "variables", "constraints", "answer",
                    "answer-from", "optimum", "proof", "runs", "sha256")
#: whether the bundle needs the suite's calibration: every answer is certified without it
CALIBRATED = False
#: calibrate --recheck's instances: none, the rules have no speed margin
to_recheck = no_margin


@dataclass
class PbCheck:
    metadata: list[dict] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    rows: list[ManifestRow] = field(default_factory=list)
    proofs: dict[str, bytes] = field(default_factory=dict)  # bundle path -> proof text

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


def domain(row: ManifestRow) -> str:
    """The competition domain of an instance: its family and how its answer is known."""
    if row.optimum is not None:
        kind = "optimum"
    elif row.result == "unsat":
        kind = "parity" if row.expected_from.startswith("parity") else "unsat"
    else:
        kind = "planted" if row.result == "sat" else "open"
    return f"{row.family}-{kind}"


def check(src: Path, rows: list[ManifestRow], runs: list[CalibrationRow], rules=None,
          solving=None, author: str = "") -> PbCheck:
    """Each instance read (bounded by its header) and its answer certified again from its
    puzzle: an optimum replayed from its params, an UNSAT by the certificate its header names
    and by the generator's proof in its witness file, checked; a failure per instance whose
    text another has (md5) and per calibration run with a failing verdict (``rules``,
    ``solving``: none apply)."""
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
        where = domain(row)
        proof_name = ""
        answer, answer_from = row.result.upper(), row.expected_from
        if case.certified is not None:
            answer = "OPTIMUM" if case.certified.optimum is not None else "SAT"
        elif row.result == "unsat":
            certified, why = case.evidence.certificate()
            if not certified:
                why = why or "no certificate"
                done.failures.append(f"{row.name}: UNSAT not certified again ({why})")
            proof = _proof(src, row)
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
            "variables": row.variables, "constraints": row.clauses, "answer": answer,
            "answer-from": answer_from, "optimum": row.optimum or "", "proof": proof_name,
            "runs": "; ".join(f"{run.solver} {run.cell()} {run.verdict}" for run in mine),
            "sha256": row.text_sha256})
    if not rows:
        done.failures.append("the suite has no instances")
    return done


def _proof(src: Path, row: ManifestRow) -> bytes | None:
    """The generator's proof in the instance's witness file (read without following a link),
    or None."""
    if row.witness is None:
        return None
    data = load_json(read_suite_file(src / row.witness), str(src / row.witness))
    proof = data.get("proof") if isinstance(data, dict) else None
    return proof.encode("ascii", "replace") if isinstance(proof, str) else None


def write(src: Path, output: str | os.PathLike | None, done: PbCheck) -> Path:
    """Write the bundle of a check that holds; the archive's path."""
    if done.failures:
        raise UserError("the submission rules do not hold: " + "; ".join(done.failures))
    files = {f"{domain(row)}/{row.name}.opb.xz": xz_instance(src, row) for row in done.rows}
    files.update(done.proofs)
    files["metadata.csv"] = table_bytes(METADATA_COLUMNS, done.metadata)
    files.update(suite_copies(src, bundle_name))
    return write_bundle(src, output, files, bundle_name)

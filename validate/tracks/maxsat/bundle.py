"""The MaxSAT Evaluation's bundle of a published WCNF suite.

The Evaluation asks for an archive of WCNF 2022+ instances and a short IEEE-style description.
The bundle (:mod:`puzzlesat.validate.runs.bundle`) holds ``instances/<name>.wcnf.xz``
(recompressed to xz when the suite used another compression), ``metadata.csv``
(:data:`METADATA_COLUMNS`: each instance's bounds and optimum as its header states them,
certified again from its puzzle and params, and RC2's calibration run when there is one), the
suite's ``description.tex``/``.md`` (the same TeX path as the SAT description: ``pdflatex``
compiles it with IEEEtran) with the plots it includes, and ``CITATION.cff``; plus a
deterministic ``.tar.xz`` of the same. It is refused when an instance is not WCNF, when a file
is not the one the manifest lists, when two instances have the same clauses, or when a
calibration run got a failing verdict.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.suite.folder import ManifestRow, table_bytes
from puzzlesat.validate.runs.bundle import (
    BUNDLE_COPIES,
    duplicates,
    no_margin,
    suite_copies,
    write_bundle,
    xz_instance,
)
from puzzlesat.validate.runs.records import CalibrationRow
from puzzlesat.validate.tracks.maxsat.judge import open_case
from puzzlesat.validate.verdict import FAILED

METADATA_COLUMNS = ("file", "family", "variables", "clauses", "optimum", "lower-bound",
                    "upper-bound", "optimum-from", "best-known", "rc2-status", "rc2-seconds",
                    "sha256")


#: whether the bundle needs the suite's calibration: every optimum is certified without it
#: (RC2's runs are reported when there are some)
CALIBRATED = False
#: calibrate --recheck's instances: none, the rules have no speed margin
to_recheck = no_margin


@dataclass
class MaxsatCheck:
    """What the MaxSAT bundle's check found: metadata rows, failures, the rows checked."""

    metadata: list[dict] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    rows: list[ManifestRow] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One line per instance: its file, certified optimum and how it is known."""
        return [f"{row['file']}: optimum {row['optimum']} ({row['optimum-from']})"
                for row in self.metadata]


def bundle_name(rel) -> bool:
    """Whether ``rel`` is a name this tool writes in a MaxSAT bundle folder."""
    return isinstance(rel, str) and (
        rel in ("metadata.csv", *BUNDLE_COPIES)
        or re.fullmatch(r"instances/[A-Za-z0-9][A-Za-z0-9._-]{0,199}\.wcnf\.xz"
                        r"|calibration-[A-Za-z0-9._-]+\.png", rel) is not None)


def check(src: Path, rows: list[ManifestRow], runs: list[CalibrationRow], rules=None,
          solving=None, author: str = "") -> MaxsatCheck:
    """Each instance's bounds certified again (its puzzle encodes to the file, its params
    prove the bounds: never a header's word); a failure per calibration run with a failing
    verdict and per instance whose clauses an earlier one has (``rules``, ``solving``: none
    apply)."""
    done = MaxsatCheck(rows=rows)
    reference = {run.hash: run for run in runs if run.solver == "rc2"}
    for run in runs:
        if run.verdict in FAILED:
            done.failures.append(f"{run.name}: {run.solver}'s calibration run was "
                                 f"{run.verdict}: {run.reason}")
    for row in rows:
        with prefixed(f"{src / row.file}: "):
            case = open_case(src / row.file)
        header, ref = case.parsed.header, reference.get(row.hash)
        done.metadata.append({
            "file": f"{row.name}.wcnf.xz", "family": row.family,
            "variables": row.variables, "clauses": row.clauses,
            "optimum": header.get("optimum", "unknown"),
            "lower-bound": header.get("lower-bound", ""),
            "upper-bound": header.get("upper-bound", ""),
            "optimum-from": header.get("optimum-from", ""),
            "best-known": header.get("best-known", ""),
            "rc2-status": ref.status if ref else "",
            "rc2-seconds": ref.cpu_seconds if ref and ref.cpu_seconds is not None else "",
            "sha256": row.text_sha256})
    done.failures += [f"{name}: the same clauses (GBD hash) as an earlier instance"
                      for name in duplicates(rows)]
    return done


def write(src: Path, output: str | os.PathLike | None, done: MaxsatCheck) -> Path:
    """Write the bundle of a check that holds; the archive's path."""
    if done.failures:
        raise UserError("the submission rules do not hold: " + "; ".join(done.failures))
    files = {f"instances/{row.name}.wcnf.xz": xz_instance(src, row) for row in done.rows}
    files["metadata.csv"] = table_bytes(METADATA_COLUMNS, done.metadata)
    files.update(suite_copies(src, bundle_name))
    return write_bundle(src, output, files, bundle_name)

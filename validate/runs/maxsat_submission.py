"""The MaxSAT Evaluation bundle of a published WCNF suite (``submission --track maxsat``).

The Evaluation asks for an archive of WCNF 2022+ instances and a short IEEE-style description.
The bundle holds ``instances/<name>.wcnf.xz`` (recompressed to xz when the suite used another
compression), ``metadata.csv`` (:data:`METADATA_COLUMNS`: each instance's bounds and optimum as
its header states them, certified again from its puzzle and params, and RC2's calibration run
when there is one), the suite's ``description.tex``/``.md`` (the same TeX path as the SAT
description: ``pdflatex`` compiles it with IEEEtran) with the plots it includes, and
``CITATION.cff``; plus a deterministic ``.tar.xz`` of the same, written as the SAT bundle is
(:func:`~puzzlesat.validate.runs.submission.write_bundle`). It is refused when an instance is
not WCNF, when a file is not the one the manifest lists, or when a calibration run of RC2 got
a failing verdict.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.core.wcnf_reader import read_wcnf
from puzzlesat.generator.suite.folder import ManifestRow, table_bytes
from puzzlesat.generator.suite.spec import read_published
from puzzlesat.validate.maxsat import certified_bounds
from puzzlesat.validate.report import FAILED
from puzzlesat.validate.runs.calibrate import read_trusted_calibration
from puzzlesat.validate.runs.maxsat import REFERENCE
from puzzlesat.validate.runs.records import CalibrationRow
from puzzlesat.validate.runs.submission import (
    BUNDLE_COPIES,
    instance_rows,
    suite_copies,
    write_bundle,
    xz_instance,
)

METADATA_COLUMNS = ("file", "family", "variables", "clauses", "optimum", "lower-bound",
                    "upper-bound", "optimum-from", "best-known", "rc2-status", "rc2-seconds",
                    "sha256")


def maxsat_bundle_name(rel) -> bool:
    """Whether ``rel`` is a name this tool writes in a MaxSAT bundle folder."""
    return isinstance(rel, str) and (
        rel in ("metadata.csv", *BUNDLE_COPIES)
        or re.fullmatch(r"instances/[A-Za-z0-9][A-Za-z0-9._-]{0,199}\.wcnf\.xz"
                        r"|calibration-[A-Za-z0-9._-]+\.png", rel) is not None)


def build_maxsat_bundle(directory: str | os.PathLike,
                        output: str | os.PathLike | None = None) -> tuple[Path, list[dict]]:
    """Check the suite and write its MaxSAT bundle; (the archive's path, metadata rows)."""
    src = Path(directory)
    spec, manifest = read_published(src)
    rows = instance_rows(src, manifest)
    cnf = [row.name for row in rows if not row.maxsat]
    if cnf:
        raise UserError(f"{src}: {len(cnf)} instance(s) are not WCNF (e.g. {cnf[0]}): the "
                        f"MaxSAT track takes a suite of format = \"wcnf\" groups")
    runs = {}
    if (src / "calibration.csv").exists():
        for run in read_trusted_calibration(src):
            if run.solver == REFERENCE:
                if run.verdict in FAILED:
                    raise UserError(f"{src}: RC2's calibration run on {run.name} was "
                                    f"{run.verdict}: {run.reason}")
                runs[run.hash] = run
    metadata = [_metadata(src, row, runs.get(row.hash)) for row in rows]
    files = {f"instances/{row.name}.wcnf.xz": xz_instance(src, row) for row in rows}
    files["metadata.csv"] = table_bytes(METADATA_COLUMNS, metadata)
    files.update(suite_copies(src, maxsat_bundle_name))
    return write_bundle(src, output, files, maxsat_bundle_name), metadata


def _metadata(src: Path, row: ManifestRow, run: CalibrationRow | None) -> dict:
    """One metadata row: the bounds the instance's header states, certified again (its puzzle
    encodes to the file, its params prove the bounds: never a header's word), RC2's run."""
    path = src / row.file
    wcnf = read_wcnf(path)
    with prefixed(f"{path}: "):
        certified_bounds(wcnf)  # a UserError when the header states other bounds
    header = wcnf.header
    return {"file": f"{row.name}.wcnf.xz", "family": row.family,
            "variables": row.variables, "clauses": row.clauses,
            "optimum": header.get("optimum", "unknown"),
            "lower-bound": header.get("lower-bound", ""),
            "upper-bound": header.get("upper-bound", ""),
            "optimum-from": header.get("optimum-from", ""),
            "best-known": header.get("best-known", ""),
            "rc2-status": run.status if run else "",
            "rc2-seconds": run.cpu_seconds if run and run.cpu_seconds is not None else "",
            "sha256": row.text_sha256}

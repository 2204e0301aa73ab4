"""What a published suite's own files say: one manifest row per instance, manifest.csv and
manifest.json, and every suite-level file (descriptions, citation, SHA256SUMS) as bytes, built
the same way by publish, verify and calibrate."""

from __future__ import annotations

import csv
import hashlib
import io
import json

from puzzlesat.generator.core.header import canonical_json
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.core.version import VERSION
from puzzlesat.generator.suite import describe
from puzzlesat.generator.suite.build import Built
from puzzlesat.generator.suite.calibration import CALIBRATION_FILE
from puzzlesat.generator.suite.folder import MANIFEST, SPEC_FILE, ManifestRow, table_bytes
from puzzlesat.generator.suite.spec import Spec, Task

#: the header lines of a counting instance its manifest row repeats
COUNT_KEYS = ("count", "count-from")
MANIFEST_COLUMNS = ("hash", "author", "family", "result", "name", "file", "encoding",
                    "variables", "clauses", "bytes", "sha256", "seed", "params")


def manifest_row(spec: Spec, task: Task, result: Built, data: bytes) -> dict:
    """One instance's manifest entry (the CSV columns first, then the JSON-only detail)."""
    return {
        "hash": result.gbd_hash,
        "author": spec.author,
        "family": task.family,
        "result": result.expected.lower(),
        "name": task.name,
        "file": task.file,
        "encoding": task.encoding,
        "variables": result.variables,
        "clauses": result.clauses,
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "seed": task.seed,
        "params": task.params,
        "expected-from": result.expected_from,
        "text-sha256": result.text_sha256,
        "witness": task.witness_file if result.witness is not None else None,
        "witness-sha256": (hashlib.sha256(result.witness).hexdigest()
                           if result.witness is not None else None),
        "group": task.group,
        "replicate": task.replicate,
        "format": task.format,
        # what the track certifies, as its header says it: every row has an optimum (None
        # but for WCNF), a counting row its count (other rows stay as they were written)
        "optimum": result.certified.get("optimum"),
        **{key: result.certified[key] for key in COUNT_KEYS if key in result.certified},
    }


def suite_files(spec: Spec, rows: list[dict], calibration: dict[str, bytes] | None = None,
                solving: Solving | None = None) -> dict[str, bytes]:
    """Every suite-level file (not instances or witnesses) as bytes, SHA256SUMS last.
    ``calibration`` (from :func:`~puzzlesat.generator.suite.calibration.calibration_files`) is summarised in manifest.json and listed
    in SHA256SUMS. ``solving`` regenerates the puzzles description.tex draws."""
    calibration = calibration or {}
    manifest = manifest_json(spec, rows)
    typed = ManifestRow.from_rows(rows, MANIFEST)
    runs: list[dict] = []
    if CALIBRATION_FILE in calibration:
        runs = manifest["calibration"] = list(csv.DictReader(
            io.StringIO(calibration[CALIBRATION_FILE].decode("utf-8"))))
    files = {
        SPEC_FILE: spec.text,
        **spec.inputs,
        "manifest.csv": manifest_csv(rows),
        "manifest.json": (json.dumps(manifest, indent=1, sort_keys=False) + "\n").encode(),
        "description.md": describe.markdown(spec, typed, runs).encode(),
        "description.tex": describe.latex(spec, typed, tuple(
            name for name in calibration if name.endswith(".png")), solving, runs).encode(),
        "CITATION.cff": describe.citation(spec).encode(),
        **calibration,
    }
    sums: dict[str, str | None] = {row.file: row.sha256 for row in typed}
    sums.update({row.witness: row.witness_sha256 for row in typed if row.witness})
    sums.update({rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()})
    files["SHA256SUMS"] = "".join(f"{sums[rel]}  {rel}\n" for rel in sorted(sums)).encode()
    return files


def manifest_csv(rows: list[dict]) -> bytes:
    """SAT Competition columns first; seed empty when the params fix the puzzle."""
    def line(row: dict) -> dict:
        values = dict(row, seed="" if row["seed"] is None else row["seed"],
                      params=canonical_json(row["params"]))
        return {column: values[column] for column in MANIFEST_COLUMNS}

    return table_bytes(MANIFEST_COLUMNS, map(line, rows))


def manifest_json(spec: Spec, rows: list[dict]) -> dict:
    """manifest.json's content: the suite's identity and one row per instance."""
    return {
        "suite": {"name": spec.name, "author": spec.author, "version": spec.version,
                  "seed": spec.seed, "compression": spec.compression, **spec.extra,
                  "generator": f"puzzlesat {VERSION}", "instances": len(rows)},
        "instances": rows,
    }



"""Publishing a suite into a folder: instances and witnesses written atomically as they arrive,
then the manifest, descriptions, CITATION.cff and SHA256SUMS in spec order."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

import puzzlesat
from puzzlesat.generator.core.dimacs import atomic_write, canonical_json, decompress
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.suite import describe
from puzzlesat.generator.suite.build import Built, build_task
from puzzlesat.generator.suite.executors import local_executor, run_tasks
from puzzlesat.generator.suite.spec import SPEC_FILE, Spec, Task, load_spec

MANIFEST_COLUMNS = ("hash", "author", "family", "result", "name", "file", "encoding",
                    "variables", "clauses", "bytes", "sha256", "seed", "params")
#: written by ``puzzlesat calibrate``: measurements, not regenerable, so publish and verify take
#: them as inputs (like suite.toml): listed in SHA256SUMS and summarised in manifest.json
CALIBRATION_FILE = "calibration.csv"
CALIBRATION_PLOTS = "calibration-*"


@dataclass
class Published:
    """The outcome of :func:`publish_suite`."""

    out: Path
    spec: Spec
    rows: list[dict]
    built: int
    reused: int

    def summary(self) -> str:
        counts = {}
        for row in self.rows:
            counts[row["result"]] = counts.get(row["result"], 0) + 1
        results = ", ".join(f"{n} {r}" for r, n in sorted(counts.items()))
        return (f"{self.out}: suite {self.spec.name} {self.spec.version}: {len(self.rows)} "
                f"instances ({results}); built {self.built}, kept {self.reused} unchanged")


def publish_suite(spec_path: str | os.PathLike, out: str | os.PathLike, jobs: int = 1,
                  executor: Executor | None = None, progress: bool = False) -> Published:
    """Publish the suite ``spec_path`` into folder ``out`` (see the module docstring)."""
    spec = load_spec(spec_path)
    out = Path(out)
    _prepare_output(out, spec)
    own = executor is None
    executor = local_executor(jobs) if own else executor
    try:
        return _publish(spec, out, executor, progress)
    finally:
        if own and executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


def _prepare_output(out: Path, spec: Spec) -> None:
    """Refuse a file or a foreign non-empty folder; clear stale temporary files; copy the spec."""
    if out.exists() and not out.is_dir():
        raise UserError(f"output {out} exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / SPEC_FILE).is_file():
        raise UserError(f"output folder {out} is not empty and holds no {SPEC_FILE}: refusing to "
                        f"publish into it")
    try:
        for sub in ("instances", "witnesses"):
            (out / sub).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create output folder {out}: {exc.strerror or exc}") from None
    for folder in (out, out / "instances", out / "witnesses"):
        for stale in folder.glob(".*.part"):  # left by a killed run (atomic_write's temp files)
            stale.unlink()
    atomic_write(out / SPEC_FILE, spec.text)


def _existing_text_sha256(path: Path) -> str | None:
    """sha256 of the DIMACS text inside an already published file, or None."""
    try:
        return hashlib.sha256(decompress(path.read_bytes(), str(path))).hexdigest()
    except (OSError, UserError):
        return None


def _publish(spec: Spec, out: Path, executor: Executor | None, progress: bool) -> Published:
    from tqdm import tqdm

    calls = [(task, _existing_text_sha256(out / task.file)) for task in spec.tasks]
    rows: list[dict | None] = [None] * len(spec.tasks)
    built = reused = 0
    bar = tqdm(total=len(calls), unit="inst", desc=spec.name, disable=None if progress else True)
    with bar:
        for index, result in run_tasks(_build_for_publish, calls, executor):
            task = spec.tasks[index]
            if result.data is None:
                data = (out / task.file).read_bytes()
                reused += 1
            else:
                data = result.data
                atomic_write(out / task.file, data)
                built += 1
            if result.witness is not None:
                atomic_write(out / task.witness_file, result.witness)
            rows[index] = manifest_row(spec, task, result, data)
            bar.update()
    rows_done = [r for r in rows if r is not None]
    calibration = kept_calibration(out, rows_done)
    files = suite_files(spec, rows_done, calibration)
    _remove_stale(out, spec)
    for rel, data in files.items():
        atomic_write(out / rel, data)
    return Published(out, spec, rows_done, built, reused)


def _build_for_publish(task: Task, reuse_text_sha256: str | None) -> Built:
    try:
        return build_task(task, reuse_text_sha256)
    except UserError as exc:
        raise UserError(f"[[group]] {task.group}, instance {task.name}: {exc}") from None


def _remove_stale(out: Path, spec: Spec) -> None:
    """Instance and witness files of grid points the spec no longer has."""
    wanted = {t.file for t in spec.tasks} | {t.witness_file for t in spec.tasks}
    for stale in listed_files(out):
        if stale not in wanted:
            (out / stale).unlink()


def listed_files(out: Path) -> list[str]:
    return sorted(f"{sub}/{p.name}" for sub in ("instances", "witnesses")
                  for p in (out / sub).iterdir() if p.is_file() and not p.name.startswith("."))


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
    }


def kept_calibration(out: Path, rows: list[dict]) -> dict[str, bytes]:
    """The calibration files still true of the suite now published as ``rows``: a table row is
    kept while an instance of that name has that GBD hash (same clauses: its measurement still
    applies; ``file`` follows the manifest), the others are removed. When a row goes, the plots
    (drawn by ``puzzlesat calibrate``, which draws them again) go too, and the table when it
    is empty. Returns :func:`calibration_files` afterwards."""
    path = out / CALIBRATION_FILE
    if path.is_file():
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            old, columns = list(reader), reader.fieldnames or []
        files = {(row["name"], row["hash"]): row["file"] for row in rows}
        kept = [dict(row, file=files[key]) for row in old
                if (key := (row.get("name"), row.get("hash"))) in files]
        if len(kept) < len(old):
            for plot in out.glob(CALIBRATION_PLOTS):
                plot.unlink()
        if kept != old:
            if kept:
                buffer = io.StringIO()
                writer = csv.DictWriter(buffer, columns, lineterminator="\n")
                writer.writeheader()
                writer.writerows(kept)
                atomic_write(path, buffer.getvalue().encode())
            else:
                path.unlink()
    return calibration_files(out)


def calibration_files(out: Path) -> dict[str, bytes]:
    """The calibration table and plots present in a published folder, by relative path."""
    paths = sorted({out / CALIBRATION_FILE, *out.glob(CALIBRATION_PLOTS)})
    return {p.name: p.read_bytes() for p in paths if p.is_file()}


def suite_files(spec: Spec, rows: list[dict],
                calibration: dict[str, bytes] | None = None) -> dict[str, bytes]:
    """Every suite-level file (not instances or witnesses) as bytes, SHA256SUMS last.
    ``calibration`` (from :func:`calibration_files`) is summarised in manifest.json and listed
    in SHA256SUMS."""
    calibration = calibration or {}
    manifest = manifest_json(spec, rows)
    if CALIBRATION_FILE in calibration:
        manifest["calibration"] = list(csv.DictReader(
            io.StringIO(calibration[CALIBRATION_FILE].decode("utf-8"))))
    files = {
        SPEC_FILE: spec.text,
        "manifest.csv": manifest_csv(rows),
        "manifest.json": (json.dumps(manifest, indent=1, sort_keys=False) + "\n").encode(),
        "description.md": describe.markdown(spec, rows).encode(),
        "description.tex": describe.latex(spec, rows).encode(),
        "CITATION.cff": describe.citation(spec).encode(),
        **calibration,
    }
    sums = {row["file"]: row["sha256"] for row in rows}
    sums.update({row["witness"]: row["witness-sha256"] for row in rows if row["witness"]})
    sums.update({rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()})
    files["SHA256SUMS"] = "".join(f"{sums[rel]}  {rel}\n" for rel in sorted(sums)).encode()
    return files


def manifest_csv(rows: list[dict]) -> bytes:
    """SAT Competition columns first; seed empty when the params fix the puzzle."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(MANIFEST_COLUMNS)
    for row in rows:
        values = dict(row, seed="" if row["seed"] is None else row["seed"],
                      params=canonical_json(row["params"]))
        writer.writerow([values[c] for c in MANIFEST_COLUMNS])
    return buffer.getvalue().encode()


def manifest_json(spec: Spec, rows: list[dict]) -> dict:
    return {
        "suite": {"name": spec.name, "author": spec.author, "version": spec.version,
                  "seed": spec.seed, "compression": spec.compression, **spec.extra,
                  "generator": f"puzzlesat {puzzlesat.__version__}", "instances": len(rows)},
        "instances": rows,
    }



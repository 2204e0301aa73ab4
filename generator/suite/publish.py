"""Publishing a suite into a folder: instances and witnesses written atomically as they arrive,
then the manifest, descriptions, CITATION.cff and SHA256SUMS in spec order."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import re
import tomllib
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

import puzzlesat
from puzzlesat.generator.core.dimacs import atomic_write, canonical_json, decompress
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.suite import describe
from puzzlesat.generator.suite.build import Built, build_task
from puzzlesat.generator.suite.executors import local_executor, run_tasks
from puzzlesat.generator.suite.spec import INPUTS, SPEC_FILE, Spec, Task, load_spec

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


#: held by a running publish (``fcntl.flock``, so a killed run's lock is free again); holds
#: the pid for the message a second publish prints
LOCK_FILE = ".puzzlesat-publish.lock"
_LISTED = re.compile(r"\A(instances|witnesses)/[^/.][^/]*\Z")


def publish_suite(spec_path: str | os.PathLike, out: str | os.PathLike, jobs: int = 1,
                  executor: Executor | None = None, progress: bool = False,
                  force: bool = False) -> Published:
    """Publish the suite ``spec_path`` into folder ``out`` (see the module docstring).

    ``out`` must be new, empty, or a folder this suite was published into (its manifest.json
    and suite.toml name the same suite). Only files the folder's previous manifest lists are
    ever removed. While it runs the folder is locked (:data:`LOCK_FILE`). If a publish into a
    new or empty folder fails, everything it wrote is removed again; an interrupted one
    (Ctrl-C, kill) keeps its finished instances and resumes on the next run."""
    spec = load_spec(spec_path, force=force)
    if not spec.tasks:
        raise UserError(f"{spec_path}: the suite has no instances (no [[group]]): nothing to "
                        f"publish")
    check_sizes(spec, force)
    out = Path(out)
    folder = _Folder(out)
    folder.create(out)
    try:
        with publish_lock(out):
            try:
                previous = _prepare_output(folder, spec)
                own = executor is None
                pool = local_executor(jobs) if own else executor
                try:
                    return _publish(spec, folder, pool, progress, previous)
                finally:
                    if own and pool is not None:
                        pool.shutdown(wait=True, cancel_futures=True)
            except Exception:
                if folder.fresh:
                    folder.undo()
                raise
            finally:  # Ctrl-C may land between mkstemp and atomic_write's own cleanup
                clear_parts(out)
    except Exception:
        folder.undo_dirs()
        raise


def check_sizes(spec: Spec, force: bool) -> None:
    """Every task's size estimate against the DIMACS limits and the ``--force`` threshold,
    before anything is built or written."""
    from puzzlesat.generator.instance import check_size

    for task in spec.tasks:
        params = {k: spec.sources.get(v, v) if isinstance(v, str) else v
                  for k, v in task.params.items()}
        try:
            check_size(task.family, params, task.encoding, force, seed=task.seed)
        except UserError as exc:
            raise UserError(f"[[group]] {task.group}, instance {task.name}: {exc}") from None


class _Folder:
    """The output folder: what this run created in it, so a failed fresh publish can take
    exactly that away again (never a file it did not write)."""

    def __init__(self, out: Path):
        self.out = out
        self.fresh = False
        self.dirs: list[Path] = []  # created by this run, parents first
        self.files: set[str] = set()

    def create(self, path: Path) -> None:
        if path.exists() and not path.is_dir():
            raise UserError(f"output {path} exists and is not a folder")
        missing = []
        for parent in (path, *path.parents):
            if parent.exists():
                break
            missing.append(parent)
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot create output folder {path}: {exc.strerror or exc}") \
                from None
        self.dirs += reversed(missing)

    def write(self, rel: str, data: bytes) -> None:
        atomic_write(self.out / rel, data)
        self.files.add(rel)

    def undo(self) -> None:
        """Remove the files this run wrote (called only when the folder was new or empty)."""
        for rel in sorted(self.files):
            try:
                (self.out / rel).unlink()
            except OSError:
                pass
        self.files.clear()

    def undo_dirs(self) -> None:
        """Remove the folders this run created, when they are empty (deepest first)."""
        for path in reversed(self.dirs):
            try:
                path.rmdir()
            except OSError:
                pass
        self.dirs.clear()


@contextlib.contextmanager
def publish_lock(out: Path):
    """Hold ``out/LOCK_FILE`` for the duration: a second publish into the same folder exits
    with one line naming the holder's pid. The lock is an ``flock``, so a lock file left by a
    killed run is simply taken over."""
    import fcntl

    path = out / LOCK_FILE
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise UserError(f"cannot create lock file {path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 100).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise UserError(f"output folder {out} is being published by another run (pid "
                            f"{holder}, lock {path}): wait for it to finish") from None
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:  # not a lock file its previous holder removed meanwhile
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield path
    finally:
        try:
            path.unlink()
        except OSError:
            pass
        os.close(fd)


def _prepare_output(folder: _Folder, spec: Spec) -> dict:
    """Check the folder is new, empty or this suite's; clear its stale temporary files; write
    the spec. Returns the previous manifest.json ({} when there is none)."""
    out = folder.out
    entries = [p for p in out.iterdir() if p.name != LOCK_FILE]
    folder.fresh = not entries
    previous = {} if folder.fresh else _check_owner(out, spec)
    for sub in ("instances", "witnesses"):
        folder.create(out / sub)
    clear_parts(out)  # left by a killed run
    for rel, data in spec.inputs.items():
        folder.create((out / rel).parent)
        folder.write(rel, data)
    folder.write(SPEC_FILE, spec.text)
    return previous


def clear_parts(out: Path) -> None:
    """Remove atomic_write's temporary ``.*.part`` files from the suite's folders (only under
    the publish lock: then no other run is writing them)."""
    for where in (out, out / "instances", out / "witnesses", out / INPUTS):
        for stale in where.glob(".*.part"):
            try:
                stale.unlink()
            except OSError:
                pass


def _check_owner(out: Path, spec: Spec) -> dict:
    """The previous manifest.json of a folder this suite owns, or a UserError: a non-empty
    folder is only published into when its manifest.json and suite.toml name the same suite
    (an interrupted first publish has only the suite.toml)."""
    names = {}
    manifest: dict = {}
    if (out / "manifest.json").exists():
        try:
            manifest = json.loads((out / "manifest.json").read_bytes())
            names["manifest.json"] = manifest["suite"]["name"]
        except (OSError, ValueError, KeyError, TypeError):
            raise UserError(f"output folder {out} holds a manifest.json that is not a "
                            f"puzzlesat suite's: refusing to publish into it") from None
    if (out / SPEC_FILE).exists():
        try:
            table = tomllib.loads((out / SPEC_FILE).read_bytes().decode("utf-8"))
            names[SPEC_FILE] = table["suite"]["name"]
        except (OSError, ValueError, KeyError, TypeError):
            raise UserError(f"output folder {out} holds a {SPEC_FILE} that is not a suite "
                            f"spec: refusing to publish into it") from None
    if not names:
        raise UserError(f"output folder {out} is not empty and holds no {SPEC_FILE} or "
                        f"manifest.json: refusing to publish into it")
    for file, name in names.items():
        if name != spec.name:
            raise UserError(f"output folder {out} holds suite {name!r} (its {file}), not "
                            f"{spec.name!r}: refusing to replace it; publish into a new folder")
    return manifest


def _existing_text_sha256(path: Path) -> str | None:
    """sha256 of the DIMACS text inside an already published file, or None."""
    try:
        return hashlib.sha256(decompress(path.read_bytes(), str(path))).hexdigest()
    except (OSError, UserError):
        return None


def _publish(spec: Spec, folder: _Folder, executor: Executor | None, progress: bool,
             previous: dict) -> Published:
    from tqdm import tqdm

    out = folder.out
    root = str(out.resolve())
    calls = [(task, _existing_text_sha256(out / task.file), root) for task in spec.tasks]
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
                folder.write(task.file, data)
                built += 1
            if result.witness is not None:
                folder.write(task.witness_file, result.witness)
            rows[index] = manifest_row(spec, task, result, data)
            bar.update()
    rows_done = [r for r in rows if r is not None]
    # only files the previous publish listed (SHA256SUMS) are removed: never a stranger's
    calibration = kept_calibration(out, rows_done, _summed_files(out))
    files = suite_files(spec, rows_done, calibration)
    _remove_stale(out, spec, previous)
    for rel, data in files.items():
        folder.write(rel, data)
    return Published(out, spec, rows_done, built, reused)


def _build_for_publish(task: Task, reuse_text_sha256: str | None, root: str) -> Built:
    try:
        return build_task(task, reuse_text_sha256, root=root)
    except UserError as exc:
        raise UserError(f"[[group]] {task.group}, instance {task.name}: {exc}") from None


def _summed_files(out: Path) -> set[str]:
    """The files the folder's SHA256SUMS lists."""
    try:
        text = (out / "SHA256SUMS").read_text("utf-8", "replace")
    except OSError:
        return set()
    return {line.split("  ", 1)[1] for line in text.splitlines() if "  " in line}


def _remove_stale(out: Path, spec: Spec, previous: dict) -> None:
    """Instance and witness files of grid points the spec no longer has: only those the
    folder's previous manifest lists (files this tool wrote), never an unlisted file."""
    wanted = {t.file for t in spec.tasks} | {t.witness_file for t in spec.tasks}
    listed = set()
    rows = previous.get("instances") if isinstance(previous, dict) else None
    for row in rows if isinstance(rows, list) else []:
        if isinstance(row, dict):
            listed.update(v for v in (row.get("file"), row.get("witness"))
                          if isinstance(v, str) and _LISTED.match(v))
    for stale in sorted(listed - wanted):
        try:
            (out / stale).unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise UserError(f"cannot remove stale {out / stale}: {exc.strerror or exc}") \
                from None


def listed_files(out: Path) -> list[str]:
    """Everything in instances/ and witnesses/ (hidden files too: a killed run's ``.part``),
    as relative paths; a missing folder contributes nothing, a file in its place itself."""
    found = []
    for sub in ("instances", "witnesses"):
        folder = out / sub
        if not folder.is_dir():
            if folder.exists() or folder.is_symlink():
                found.append(sub)
            continue
        found += [f"{sub}/{p.name}" for p in folder.iterdir()]
    return sorted(found)


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


def kept_calibration(out: Path, rows: list[dict],
                     listed: set[str] | None = None) -> dict[str, bytes]:
    """The calibration files still true of the suite now published as ``rows``: a table row is
    kept while an instance of that name has that GBD hash (same clauses: its measurement still
    applies; ``file`` follows the manifest), the others are removed. When a row goes, the plots
    (drawn by ``puzzlesat calibrate``, which draws them again) go too, and the table when it
    is empty; with ``listed``, only the plots it names are removed. Returns
    :func:`calibration_files` afterwards."""
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
                if listed is None or plot.name in listed:
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
        **spec.inputs,
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



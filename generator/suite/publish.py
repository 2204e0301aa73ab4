"""Publishing a suite into a folder: instances and witnesses written atomically as they arrive,
then the manifest, descriptions, CITATION.cff and SHA256SUMS in spec order.

Republishing keeps the published suite whole until the new one stands: a file the previous
SHA256SUMS lists is never overwritten in place. Its new bytes wait beside it
(``.<name>.pending.part``) until every instance is built and every file written; then they are
renamed into place (a rename needs no disk space), SHA256SUMS last, and only then are files of
the old suite that the new one lacks removed. A failed republish (a build error, a full disk)
leaves the old suite as it was: ``sha256sum -c`` passes and ``verify`` regenerates it."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.executors import local_executor, run_tasks
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.core.inputs import decompress
from puzzlesat.generator.core.paths import os_failure, plain_folder
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.core.structured import load_toml
from puzzlesat.generator.families import get_family
from puzzlesat.generator.suite.build import Built, build_task
from puzzlesat.generator.suite.calibration import (
    kept_calibration,
    spec_table,
)
from puzzlesat.generator.suite.folder import (
    INSTANCES,
    LOCK_FILE,
    MANIFEST,
    SPEC_FILE,
    SUBFOLDERS,
    SUMS,
    WITNESSES,
    ManifestRow,
    clear_parts,
    file_sha256,
    pending_name,
    read_manifest,
    read_suite_file,
    read_sums,
    remove_own,
)
from puzzlesat.generator.suite.manifest import manifest_row, suite_files
from puzzlesat.generator.suite.spec import Spec, Task, load_spec
from puzzlesat.generator.tracks import get_track


@dataclass
class Published:
    """The outcome of :func:`publish_suite`."""

    out: Path
    spec: Spec
    rows: list[dict]
    built: int
    reused: int
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line: the suite, its instances by expected result, what was built and kept."""
        counts: dict[str, int] = {}
        for row in self.rows:
            counts[row["result"]] = counts.get(row["result"], 0) + 1
        results = ", ".join(f"{n} {r}" for r, n in sorted(counts.items()))
        return "\n".join([f"{self.out}: suite {self.spec.name} {self.spec.version}: "
                          f"{len(self.rows)} instances ({results}); built {self.built}, kept "
                          f"{self.reused} unchanged", *self.notes])


#: held by a running publish or calibrate (``fcntl.flock``, so a killed run's lock is free
#: again); holds the pid for the message a second run prints


def publish_suite(spec_path: str | os.PathLike, out: str | os.PathLike, jobs: int = 1,
                  executor: Executor | None = None, progress: bool = False,
                  force: bool = False, solving: Solving | None = None) -> Published:
    """Publish the suite ``spec_path`` into folder ``out`` (see the module docstring).
    ``solving`` runs the solvers a family may ask for (:func:`.build.build_task`).

    ``out`` must be new, empty, or a folder this suite was published into (its manifest.json
    and suite.toml name the same suite). Only files the folder's previous manifest lists are
    ever removed. While it runs the folder is locked (:data:`LOCK_FILE`). If a publish into a
    new or empty folder fails, everything it wrote is removed again; an interrupted one
    (Ctrl-C, kill) keeps its finished instances and resumes on the next run."""
    spec = load_spec(spec_path, force=force)
    shipped = spec_table(spec_path)
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
                _prepare_output(folder, spec)
                own = executor is None
                pool = local_executor(jobs) if own else executor
                try:
                    with _inputs_root(folder, spec) as root:
                        return _publish(spec, folder, pool, progress, root, solving,
                                        shipped)
                finally:
                    if own and pool is not None:
                        pool.shutdown(wait=True, cancel_futures=True)
            except Exception:
                if folder.fresh or folder.previous:
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
                  for k, v in task.params.items()}  # the spec's params are normalised
        try:
            check_size(get_family(task.family), params, task.encoding, force, seed=task.seed,
                       track=get_track(task.track))
        except UserError as exc:
            raise UserError(f"[[group]] {task.group}, instance {task.name}: {exc}") from None


class _Folder:
    """The output folder: what this run created in it, so a failed fresh publish can take
    exactly that away again (never a file it did not write)."""

    def __init__(self, out: Path):
        self.out = out
        self.fresh = False
        self.previous: dict = {}  # the folder's manifest.json before this run
        self.sums: dict[str, str] = {}  # its SHA256SUMS: files of the published suite
        self.pending: list[str] = []  # kept back until the new manifest stands, in order
        self.dirs: list[Path] = []  # created by this run, parents first
        self.files: set[str] = set()  # created by this run (not there before it)

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
            raise os_failure(exc, f"create output folder {path}") \
                from None
        self.dirs += reversed(missing)

    def write(self, rel: str, data: bytes) -> None:
        """Write ``rel`` now, or, when it is a file of the published suite and changes, beside
        it until :meth:`commit`."""
        listed = self.sums.get(rel)
        if listed is not None and listed != hashlib.sha256(data).hexdigest():
            atomic_write(self.out / pending_name(rel), data)
            self.pending.append(rel)
            return
        if listed is None and not os.path.lexists(self.out / rel):
            self.files.add(rel)
        atomic_write(self.out / rel, data)

    def commit(self) -> None:
        """Rename the kept-back files into place, in the order written (SHA256SUMS last)."""
        for rel in self.pending:
            try:
                os.replace(self.out / pending_name(rel), self.out / rel)
            except OSError as exc:
                raise os_failure(exc, f"write {self.out / rel}") \
                    from None
        self.pending.clear()

    def undo(self) -> None:
        """Remove the files this run created (when the folder was new or empty, or held a
        published suite, which its kept-back files leave as it was)."""
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
    """Hold ``out/LOCK_FILE`` for the duration: every command that writes into a suite folder
    (publish, calibrate) takes it, and a second one exits with one line naming the holder's
    pid. The lock is an ``flock``, so a lock file left by a
    killed run is simply taken over."""
    import fcntl

    path = out / LOCK_FILE
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise os_failure(exc, f"create lock file {path}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 100).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise UserError(f"suite folder {out} is being written by another puzzlesat run "
                            f"(pid {holder}, lock {path}): wait for it to finish") from None
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


def _prepare_output(folder: _Folder, spec: Spec) -> None:
    """Check the folder is new, empty or this suite's, with real subfolders (a symlinked
    ``instances/`` leads outside it); clear its stale temporary files; read what the previous
    publish wrote. Into a folder without a published suite the spec and inputs are written
    first (an interrupted first publish resumes by them); a published suite keeps its own
    until the new manifest stands."""
    out = folder.out
    entries = [p for p in out.iterdir() if p.name != LOCK_FILE]
    folder.fresh = not entries
    folder.previous = {} if folder.fresh else _check_owner(out, spec)
    if folder.previous:
        try:
            folder.sums = read_sums(out) or {}
        except UserError as exc:
            raise UserError(f"output folder {out}: {exc}: refusing to publish into it "
                            f"(run puzzlesat verify)") from None
        # SHA256SUMS does not list itself, but is replaced like the files it lists (last)
        folder.sums[SUMS] = file_sha256(out / SUMS) or ""
    for sub in SUBFOLDERS:
        plain_folder(out / sub, f"output folder {out}: subfolder", create=False)
    for sub in (INSTANCES, WITNESSES):
        folder.create(out / sub)
    clear_parts(out)  # left by a killed run
    if not folder.previous:
        for rel, data in spec.inputs.items():
            folder.create((out / rel).parent)
            folder.write(rel, data)
        folder.write(SPEC_FILE, spec.text)


@contextlib.contextmanager
def _inputs_root(folder: _Folder, spec: Spec):
    """The folder the builds read ``inputs/`` from: the suite's own when its inputs are the
    spec's, else (a changed input of a published suite) a temporary folder in it that goes
    when the publish ends."""
    out = folder.out
    if all(file_sha256(out / rel) == hashlib.sha256(data).hexdigest()
           for rel, data in spec.inputs.items()):
        yield str(out.resolve())
        return
    staging = Path(tempfile.mkdtemp(prefix=".puzzlesat-inputs.", dir=out))
    try:
        (staging / "inputs").mkdir()
        for rel, data in spec.inputs.items():
            atomic_write(staging / rel, data)
        yield str(staging.resolve())
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # made by mkdtemp just now: all ours


def _check_owner(out: Path, spec: Spec) -> dict:
    """The previous manifest.json of a folder this suite owns, or a UserError: a non-empty
    folder is only published into when its manifest.json and suite.toml name the same suite
    (an interrupted first publish has only the suite.toml)."""
    names = {}
    manifest: dict = {}
    if os.path.lexists(out / MANIFEST):
        try:
            manifest = read_manifest(out)
        except UserError as exc:
            raise UserError(f"output folder {out} holds a manifest.json that is not a "
                            f"puzzlesat suite's ({exc}): refusing to publish into it") from None
        names[MANIFEST] = manifest["suite"]["name"]
    if os.path.lexists(out / SPEC_FILE):
        try:
            table = load_toml(read_suite_file(out / SPEC_FILE), str(out / SPEC_FILE))
            names[SPEC_FILE] = table["suite"]["name"]
        except (UserError, KeyError, TypeError):
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
        return hashlib.sha256(decompress(read_suite_file(path), str(path))).hexdigest()
    except UserError:
        return None


def _publish(spec: Spec, folder: _Folder, executor: Executor | None, progress: bool,
             root: str, solving: Solving | None,
             shipped: tuple[Path, bytes] | None = None) -> Published:
    from tqdm import tqdm

    out = folder.out
    calls = [(task, _existing_text_sha256(out / task.file), root, solving)
             for task in spec.tasks]
    rows: list[dict | None] = [None] * len(spec.tasks)
    built = reused = 0
    bar = tqdm(total=len(calls), unit="inst", desc=spec.name, disable=None if progress else True)
    with bar:
        for index, result in run_tasks(_build_for_publish, calls, executor):
            task = spec.tasks[index]
            if result.data is None:
                data = read_suite_file(out / task.file)
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
    calibration, dropped, notes = kept_calibration(out, rows_done, shipped)
    files = suite_files(spec, rows_done, calibration, solving)
    for rel in spec.inputs:
        folder.create((out / rel).parent)
    for rel, data in files.items():
        folder.write(rel, data)
    folder.commit()
    # the new suite stands: now the old one's files it lacks go (only files this tool wrote)
    _remove_stale(out, spec, folder.previous)
    for name in dropped:
        remove_own(out, name, folder.sums.get(name))
    return Published(out, spec, rows_done, built, reused, notes)


def _build_for_publish(task: Task, reuse_text_sha256: str | None, root: str,
                       solving: Solving | None) -> Built:
    try:
        return build_task(task, reuse_text_sha256, root=root, solving=solving)
    except UserError as exc:
        raise UserError(f"[[group]] {task.group}, instance {task.name}: {exc}") from None


def _remove_stale(out: Path, spec: Spec, previous: dict) -> None:
    """Instance and witness files of grid points the spec no longer has: only those the
    folder's previous manifest lists with the bytes it recorded (files this tool wrote),
    never an unlisted or changed file, never through a symlink."""
    wanted = {t.file for t in spec.tasks} | {t.witness_file for t in spec.tasks}
    listed: dict[str, str | None] = {}
    for row in ManifestRow.from_rows(previous.get("instances", []), MANIFEST):
        listed[row.file] = row.sha256
        if row.witness:
            listed[row.witness] = row.witness_sha256
    for stale in sorted(set(listed) - wanted):
        remove_own(out, stale, listed[stale])


def listed_files(out: Path) -> list[str]:
    """Everything in instances/ and witnesses/ (hidden files too: a killed run's ``.part``),
    as relative paths; a missing folder contributes nothing, a file in its place itself."""
    found = []
    for sub in (INSTANCES, WITNESSES):
        folder = out / sub
        if not folder.is_dir():
            if folder.exists() or folder.is_symlink():
                found.append(sub)
            continue
        found += [f"{sub}/{p.name}" for p in folder.iterdir()]
    return sorted(found)

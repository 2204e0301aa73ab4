"""The SAT Competition submission of a calibrated suite: its rules
(:mod:`puzzlesat.validate.runs.submission_rules`) applied to the suite's manifest rows and
calibration, and the bundle. The calibration table is trusted only as SHA256SUMS and the
manifest record it. IsoHash2 needs gbdc (``pip install 'puzzlesat[competition]'``); without
it the metadata's ``isohash2`` column is left empty.

A bundle is written only when every rule holds: a folder with ``instances/<gbd-hash>.cnf.xz``,
``metadata.csv`` (:data:`METADATA_COLUMNS`), ``description.tex``/``.md``, the hardness plots
it includes and ``CITATION.cff`` from the suite, plus the same as a ``.tar.xz`` whose bytes
depend only on the contents (sorted members, fixed mtime, uid/gid 0, no user names, xz preset
6). The folder holds a marker listing exactly the files written; a later run replaces those files and nothing else, and refuses any
other existing folder, a symlink, the current folder, a folder holding the suite or the
current folder, and any folder inside the suite.
"""

from __future__ import annotations

import hashlib
import io
import json
import lzma
import os
import re
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import atomic_write, compress
from puzzlesat.generator.core.inputs import decompress
from puzzlesat.generator.core.paths import file_under, is_regular_file, os_failure, plain_folder
from puzzlesat.generator.suite.folder import MANIFEST, ManifestRow, table_bytes
from puzzlesat.generator.suite.spec import read_published
from puzzlesat.validate.runs.calibrate import read_trusted_calibration
from puzzlesat.validate.runs.submission_rules import (
    Rules,
    SubmissionCheck,
    check_instances,
)

METADATA_COLUMNS = ("hash", "author", "family", "result", "isohash2")
BUNDLE_COPIES = ("description.tex", "description.md", "CITATION.cff")
#: written into the bundle folder: the files this tool wrote there (and its archive's name)
MARKER = ".puzzlesat-submission"
#: the tar members' modification time (1 January 2000, UTC): fixed, so the archive's bytes
#: depend only on its contents
TAR_MTIME = 946684800


def check_submission(directory: str | os.PathLike, rules: Rules = Rules()) -> SubmissionCheck:
    """Apply the rules to the calibration of the published suite ``directory`` (its table
    checked against SHA256SUMS and the manifest first), with the IsoHash2 of every instance
    file when gbdc is installed."""
    src = Path(directory)
    _, manifest = read_published(src)
    rows = instance_rows(src, manifest)
    return check_instances(rows, read_trusted_calibration(src), rules, isohashes(src, rows))


# -- what is read -----------------------------------------------------------------------------
def instance_rows(src: Path, manifest: list[dict]) -> list[ManifestRow]:
    """The manifest's instance rows typed (:meth:`ManifestRow.from_row`), each file checked
    by :func:`instance_path`."""
    rows = ManifestRow.from_rows(manifest, str(src / MANIFEST))
    for index, row in enumerate(rows, start=1):
        instance_path(src, row, index)
    return rows


def instance_path(src: Path, row: ManifestRow, index: int) -> Path:
    """The file of manifest row ``index``: a regular file directly in the suite's own
    ``instances/`` folder (no symlink on the way) whose bytes have the manifest's sha256."""
    where = f"{src / MANIFEST}: instance {index}"
    path = file_under(src, row.file, where)
    if not is_regular_file(path):
        raise UserError(f"{where}: {path} is not a regular file")
    if hashlib.sha256(path.read_bytes()).hexdigest() != row.sha256:
        raise UserError(f"{where}: {path} does not have the manifest's sha256 (run puzzlesat "
                        f"verify)")
    return path


#: the module computing IsoHash2 (a name, so tests can name a missing one)
GBDC_MODULE = "gbdc"
#: run in a fresh interpreter: gbdc segfaults when imported into a process that has loaded
#: python-sat's solvers (as calibrate and the validator do); exit 3 = gbdc is not installed
_ISOHASH_CHILD = """import importlib, sys
try:
    gbdc = importlib.import_module(sys.argv[1])
except ImportError:
    sys.exit(3)
for path in sys.stdin.read().splitlines():
    print(gbdc.isohash2(path), flush=True)
"""


def isohashes(src: Path, rows: list[ManifestRow]) -> dict[str, str] | None:
    """gbdc's IsoHash2 of every instance file by GBD hash, computed in a child process; None
    when gbdc is not installed."""
    paths = [str((src / row.file).absolute()) for row in rows]
    done = subprocess.run([sys.executable, "-c", _ISOHASH_CHILD, GBDC_MODULE],
                          input="\n".join(paths), capture_output=True, text=True)
    if done.returncode == 3:
        return None
    values = done.stdout.split()
    if done.returncode != 0 or len(values) != len(rows):
        why = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise UserError(f"{src}: gbdc could not compute IsoHash2 ({why})")
    return {row.hash: value for row, value in zip(rows, values)}


# -- the bundle -------------------------------------------------------------------------------
def build_bundle(directory: str | os.PathLike, output: str | os.PathLike | None,
                 check: SubmissionCheck) -> Path:
    """Write the bundle folder ``output`` (default: the suite's folder name + ``-submission``,
    beside it) and ``output.tar.xz``; returns the archive's path. An existing ``output`` must
    be empty or a bundle this tool wrote, whose listed files alone are replaced."""
    if check.failures:
        raise UserError("the submission rules do not hold: " + "; ".join(check.failures))
    src = Path(directory)
    spec, manifest = read_published(src)
    files = bundle_files(src, spec.author, instance_rows(src, manifest), check)
    return write_bundle(src, output, files)


def write_bundle(src: Path, output: str | os.PathLike | None, files: dict[str, bytes],
                 ours=None, suffix: str = ".tar.xz", archive_of=None) -> Path:
    """Write ``files`` into the bundle folder ``output`` (default: the suite's folder name +
    ``-submission``, beside it) and its archive beside it as ``<folder><suffix>``
    (``archive_of(folder name)``; default: a tar of ``files``, xz-compressed); returns the
    archive's path. An existing ``output`` must be empty or a bundle this tool wrote, whose
    listed files alone are replaced. ``ours`` tells the names a bundle of this kind holds
    (default :func:`bundle_name`)."""
    if archive_of is None:
        def archive_of(top: str) -> bytes:
            return lzma.compress(tar_bytes(top, files), preset=6)
    out = Path(output) if output else src.resolve().with_name(src.resolve().name + "-submission")
    earlier = _claim_output(src, out, ours or bundle_name)
    target = out.resolve()
    archive = target.with_name(target.name + suffix)
    if archive.exists() and not (earlier and earlier["archive"] == archive.name):
        raise UserError(f"{archive} exists and was not written by puzzlesat submission: "
                        f"refusing to replace it")
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "instances").mkdir(exist_ok=True)
    except OSError as exc:
        raise os_failure(exc, f"create {out}") from None
    old = set(earlier["files"]) if earlier else set()
    # the marker lists old and new first: a run stopped half-way leaves a folder still ours
    _write_marker(out, sorted(old | set(files)), archive.name)
    for stale in sorted(old - set(files)):
        _remove_written(out / stale)
    for rel, data in files.items():
        if rel in old and (out / rel).is_symlink():
            (out / rel).unlink()  # a file of ours turned into a link: the link goes, not its target
        atomic_write(out / rel, data)
    atomic_write(archive, archive_of(target.name))
    _write_marker(out, sorted(files), archive.name)
    return archive


def bundle_name(rel) -> bool:
    """Whether ``rel`` is a name this tool writes in a bundle folder."""
    return isinstance(rel, str) and (
        rel in ("metadata.csv", "counts.txt", "checksums.txt", *BUNDLE_COPIES)
        or re.fullmatch(r"instances/[0-9a-f]{32}\.cnf\.xz|calibration-[A-Za-z0-9._-]+\.png"
                        r"|instances/[A-Za-z0-9][A-Za-z0-9._-]*\.cnf\.bz2", rel) is not None)


def _claim_output(src: Path, out: Path, ours=bundle_name) -> dict | None:
    """Check that the bundle may be written at ``out``; returns its marker (files, archive)
    when it holds an earlier bundle, None when it is new or empty."""
    if out.is_symlink():
        raise UserError(f"{out} is a symlink: refusing to write a bundle through it")
    target, suite, cwd = out.resolve(), src.resolve(), Path.cwd().resolve()
    if target == cwd or target in cwd.parents:
        raise UserError(f"{out} is the current folder or holds it: refusing to write a bundle "
                        f"there (name a new folder)")
    if target == suite or target in suite.parents or suite in target.parents:
        raise UserError(f"{out} is the suite, holds it or is inside it: refusing to write a "
                        f"bundle there (name a new folder)")
    if not out.exists():
        return None
    if not out.is_dir():
        raise UserError(f"{out} exists and is not a folder: refusing to replace it")
    if not any(out.iterdir()):
        return None
    marker = out / MARKER
    earlier = None
    if is_regular_file(marker):
        try:
            earlier = json.loads(marker.read_text("utf-8"))
        except (ValueError, RecursionError):
            earlier = None
    if not (isinstance(earlier, dict) and isinstance(earlier.get("files"), list)
            and all(ours(rel) for rel in earlier["files"])
            and isinstance(earlier.get("archive"), str)):
        raise UserError(f"{out} exists and is not a submission bundle: refusing to replace it")
    plain_folder(out / "instances", "bundle subfolder", create=False)
    return earlier


def _write_marker(out: Path, files: list[str], archive: str) -> None:
    data = {"written-by": "puzzlesat submission", "archive": archive, "files": files}
    atomic_write(out / MARKER, (json.dumps(data, indent=1) + "\n").encode())


def _remove_written(path: Path) -> None:
    """Remove a file an earlier run wrote: a regular file only (never through a symlink)."""
    try:
        if is_regular_file(path):
            path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise os_failure(exc, f"remove {path}") from None


def bundle_files(src: Path, author: str, instances: list[ManifestRow],
                 check: SubmissionCheck) -> dict[str, bytes]:
    """The bundle's files by relative path: instances as ``<hash>.cnf.xz`` (recompressed to
    xz when the suite used another compression), the metadata and the descriptions."""
    checks = {c.hash: c for c in check.instances}
    files = {f"instances/{row.hash}.cnf.xz": xz_instance(src, row) for row in instances}
    files["metadata.csv"] = table_bytes(METADATA_COLUMNS, (
        dict(zip(METADATA_COLUMNS, (row.hash, author, row.family,
                                    checks[row.hash].result, checks[row.hash].isohash2)))
        for row in instances))
    return {**files, **suite_copies(src, bundle_name)}


def xz_instance(src: Path, row: ManifestRow) -> bytes:
    """The bytes of a suite instance compressed as xz (recompressed when the suite used
    another compression)."""
    data = (src / row.file).read_bytes()
    return data if row.file.endswith(".xz") else compress(decompress(data, row.file), "xz")


def suite_copies(src: Path, ours) -> dict[str, bytes]:
    """The suite's files a bundle holds as they are: :data:`BUNDLE_COPIES` and the hardness
    plots description.tex includes (those ``ours`` names), so the bundle's copy compiles
    whole."""
    files = {}
    for name in BUNDLE_COPIES:
        if not (src / name).is_file():
            raise UserError(f"{src}: {name} is missing (run puzzlesat publish)")
        files[name] = (src / name).read_bytes()
    for plot in sorted(src.glob("calibration-*.png")):
        if ours(plot.name) and stat.S_ISREG(plot.lstat().st_mode):
            files[plot.name] = plot.read_bytes()
    return files


def tar_bytes(top: str, files: dict[str, bytes]) -> bytes:
    """A deterministic (uncompressed) tar of ``files`` under folder ``top``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        folders = sorted({top} | {f"{top}/{Path(rel).parent}" for rel in files if "/" in rel})
        members: list[tuple[str, bytes | None]] = [(name, None) for name in folders]
        members += [(f"{top}/{rel}", files[rel]) for rel in files]
        for name, data in sorted(members):
            info = tarfile.TarInfo(name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = TAR_MTIME, 0, 0, "", ""
            if data is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()

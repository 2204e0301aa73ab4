"""A competition bundle of a published suite, whatever the track: the suite's instance rows
read and checked, the files a bundle copies from the suite, and the bundle folder and its
archive written (each track's ``bundle.py`` says which files and names its competition asks
for, and the rules they keep).

The suite folder is read as a hostile place: every instance is a regular file directly in its
``instances/`` (never through a symlink) with the manifest's sha256, listed once; its text is
read no further than its header allows; the suite's description and plots are read without
following links. The bundle folder holds a marker listing exactly the files written; a later
run replaces those files and nothing else, and refuses any other existing folder, a symlink,
the current folder, a folder holding the suite or the current folder, and any folder inside
the suite. The archive's bytes depend only on the contents (sorted members, fixed mtime,
uid/gid 0, no user names).
"""

from __future__ import annotations

import io
import json
import lzma
import os
import stat
import tarfile
from collections.abc import Callable
from pathlib import Path

from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.core.files import atomic_write, compress
from puzzlesat.generator.core.head import read_head
from puzzlesat.generator.core.header import parse_header
from puzzlesat.generator.core.paths import file_under, is_regular_file, os_failure, plain_folder
from puzzlesat.generator.suite.folder import (
    MANIFEST,
    ManifestRow,
    file_sha256,
    read_suite_file,
)
from puzzlesat.generator.tracks import get_track
from puzzlesat.generator.tracks.parts import header_size

#: the suite's files every bundle holds as they are (with the plots description.tex includes):
#: the spec too, which the description names as the way to regenerate the instances
BUNDLE_COPIES = ("description.tex", "description.md", "CITATION.cff", "suite.toml")
#: written into the bundle folder: the files this tool wrote there (and its archive's name)
MARKER = ".puzzlesat-submission"
#: the tar members' modification time (1 January 2000, UTC): fixed, so the archive's bytes
#: depend only on its contents
TAR_MTIME = 946684800


def instance_rows(src: Path, manifest: list[dict]) -> list[ManifestRow]:
    """The manifest's instance rows typed (:meth:`ManifestRow.from_row`), each naming its own
    file once, each file checked by :func:`instance_path`."""
    rows = ManifestRow.from_rows(manifest, str(src / MANIFEST))
    seen: dict[str, int] = {}
    for index, row in enumerate(rows, start=1):
        for key in (row.file, row.name):
            if key in seen:
                raise UserError(f"{src / MANIFEST}: instance {index} lists {key} again "
                                f"(instance {seen[key]})")
            seen[key] = index
        _check_header(instance_path(src, row, index), row, f"{src / MANIFEST}: instance {index}")
    return rows


def _check_header(path: Path, row: ManifestRow, where: str) -> None:
    """A UserError when the manifest row states another answer than the instance's own
    header (its expected result and where it comes from, its certified optimum or count): a
    bundle's answers are the instances', and a manifest rewritten with its checksums must not
    change them."""
    header = parse_header(read_head(path).comments.header, str(path))
    expected = header.get("expected")
    stated = {"expected": expected.lower() if isinstance(expected, str) else expected,
              "expected-from": header.get("expected-from"), "optimum": header.get("optimum"),
              "count": header.get("count")}
    listed = {"expected": row.result, "expected-from": row.expected_from,
              "optimum": row.optimum, "count": row.count}
    for key, value in stated.items():
        if value is not None and str(value) != str(listed[key]):
            raise UserError(f"{where}: the manifest says {key} {listed[key]!s:.60}, the "
                            f"instance's header {value!s:.60} (run puzzlesat verify)")


def instance_path(src: Path, row: ManifestRow, index: int) -> Path:
    """The file of manifest row ``index``: a regular file directly in the suite's own
    ``instances/`` folder (no symlink on the way) whose bytes have the manifest's sha256."""
    where = f"{src / MANIFEST}: instance {index}"
    path = file_under(src, row.file, where)
    if not is_regular_file(path):
        raise UserError(f"{where}: {path} is not a regular file")
    if file_sha256(path) != row.sha256:
        raise UserError(f"{where}: {path} does not have the manifest's sha256 (run puzzlesat "
                        f"verify)")
    return path


def instance_text(src: Path, row: ManifestRow) -> bytes:
    """The decompressed text of a row's instance, read no further than its header's puzzle
    allows and never through a link; an instance whose header names no puzzle that reads is
    refused unread (a suite holds puzzlesat instances only)."""
    path = src / row.file
    with prefixed(f"{path}: "):
        header_size(path)
    return b"".join(get_track(row.track).text_pieces(path, follow_symlinks=False))


def xz_instance(src: Path, row: ManifestRow) -> bytes:
    """The bytes of a suite instance compressed as xz (recompressed when the suite used
    another compression)."""
    if row.file.endswith(".xz"):
        with open(src / row.file, "rb", opener=_no_follow) as handle:
            return handle.read()
    return compress(instance_text(src, row), "xz")


def _no_follow(path, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0))


def no_margin(hashes: list[str], runs: list, margin: float) -> list[str]:
    """``to_recheck`` of a track whose rules have no speed margin: nothing to measure again."""
    return []


def duplicates(rows: list[ManifestRow]) -> list[str]:
    """The names of the instances whose clauses (GBD hash) an earlier one has already: a
    competition counts them once."""
    seen: set[str] = set()
    twins = []
    for row in rows:
        if row.hash in seen:
            twins.append(row.name)
        seen.add(row.hash)
    return twins


def suite_copies(src: Path, ours: Callable[[str], bool]) -> dict[str, bytes]:
    """The suite's files a bundle holds as they are: :data:`BUNDLE_COPIES` and the hardness
    plots description.tex includes (those ``ours`` names), so the bundle's copy compiles
    whole; each a regular file read without following a link."""
    files = {}
    for name in BUNDLE_COPIES:
        if not is_regular_file(src / name):
            raise UserError(f"{src}: {name} is missing or not a regular file (run puzzlesat "
                            f"publish)")
        files[name] = read_suite_file(src / name)
    for plot in sorted(src.glob("calibration-*.png")):
        if ours(plot.name) and stat.S_ISREG(plot.lstat().st_mode):
            files[plot.name] = read_suite_file(plot)
    return files


def write_bundle(src: Path, output: str | os.PathLike | None, files: dict[str, bytes],
                 ours: Callable[[object], bool], suffix: str = ".tar.xz",
                 archive_of: Callable[[str], bytes] | None = None) -> Path:
    """Write ``files`` into the bundle folder ``output`` (default: the suite's folder name +
    ``-submission``, beside it) and its archive beside it as ``<folder><suffix>``
    (``archive_of(folder name)``; default: a tar of ``files``, xz-compressed); returns the
    archive's path. An existing ``output`` must be empty or a bundle this tool wrote, whose
    listed files alone are replaced; ``ours`` tells the names a bundle of this kind holds."""
    if archive_of is None:
        def archive_of(top: str) -> bytes:
            return lzma.compress(tar_bytes(top, files), preset=6)
    out = Path(output) if output else src.resolve().with_name(src.resolve().name + "-submission")
    earlier = _claim_output(src, out, ours)
    target = out.resolve()
    archive = target.with_name(target.name + suffix)
    if archive.exists() and not (earlier and earlier["archive"] == archive.name):
        raise UserError(f"{archive} exists and was not written by puzzlesat submission: "
                        f"refusing to replace it")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise os_failure(exc, f"create {out}") from None
    for folder in sorted({Path(rel).parent for rel in files} - {Path(".")}):
        plain_folder(out / folder, "bundle subfolder")  # a folder of files it lists, no link
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


def _claim_output(src: Path, out: Path, ours: Callable[[object], bool]) -> dict | None:
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
            earlier = json.loads(read_suite_file(marker).decode("utf-8"))
        except (UserError, ValueError, RecursionError):
            earlier = None
    if not (isinstance(earlier, dict) and isinstance(earlier.get("files"), list)
            and all(ours(rel) for rel in earlier["files"])
            and isinstance(earlier.get("archive"), str)):
        raise UserError(f"{out} exists and is not a submission bundle: refusing to replace it")
    for folder in sorted({Path(rel).parent for rel in earlier["files"]} - {Path(".")}):
        plain_folder(out / folder, "bundle subfolder", create=False)
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

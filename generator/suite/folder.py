"""A published suite folder read back and cleaned up as a hostile place: what publish wrote
there (manifest.json, SHA256SUMS, calibration.csv) is checked by class before use, every file
name it gives must name a file this tool writes in the folder (:func:`suite_path`), and only
files this tool wrote are ever removed (:func:`remove_own`, :func:`clear_parts`): never through
a symlink, never outside the folder, never a file whose bytes are not the recorded ones."""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import PART_NAME, SUFFIXES, part_name
from puzzlesat.generator.core.inputs import open_input
from puzzlesat.generator.core.paths import os_failure
from puzzlesat.generator.core.structured import load_json, utf8_text
from puzzlesat.generator.families.params import SAFE_NAME
from puzzlesat.generator.tracks import formats, track_for

# -- the layout of a suite folder and a results folder, every name in one place --------------
SPEC_FILE = "suite.toml"
MANIFEST = "manifest.json"
SUMS = "SHA256SUMS"
#: held while a command writes into a suite folder (publish, calibrate)
LOCK_FILE = ".puzzlesat-publish.lock"
INSTANCES = "instances"
WITNESSES = "witnesses"
#: copies of the input files the spec names (piece files, levels)
INPUTS = "inputs"
#: the folders publish writes files into; "" is the suite folder itself
SUBFOLDERS = (INSTANCES, WITNESSES, INPUTS)
#: a results folder holds <instance file name><suffix>: the solver's answer, its proof
ANSWER_SUFFIX = ".out"
PROOF_SUFFIX = ".drat"
#: no suite-level file publish writes is this big (a manifest of 100,000 instances is ~70 MB)
MAX_SUITE_FILE_BYTES = 1 << 30
_HEX32 = re.compile(r"\A[0-9a-f]{32}\Z")
_HEX64 = re.compile(r"\A[0-9a-f]{64}\Z")
_SUM_LINE = re.compile(r"\A([0-9a-f]{64})  (.+)\Z")


def instance_file(name: str, compression: str, fmt: str = "cnf") -> str:
    """The path of instance ``name`` in a suite folder, in format ``fmt`` (cnf, wcnf),
    compressed as ``compression``."""
    return f"{INSTANCES}/{name}.{fmt}{SUFFIXES[compression]}"


def witness_file(name: str) -> str:
    """The path of instance ``name``'s witness in a suite folder."""
    return f"{WITNESSES}/{name}.json"


def suite_path(rel: object, where: str, under: tuple[str, ...] = SUBFOLDERS) -> str:
    """``rel`` when it names a file this tool writes in a suite folder (a safe name, at the top
    when ``under`` holds "", else in one of the folders ``under``), else a UserError: never
    ``..``, ``/`` at the start, a newline or a hidden file."""
    if isinstance(rel, str):
        head, slash, name = rel.rpartition("/")
        if SAFE_NAME.match(name) and (head in under if slash else "" in under):
            return rel
    places = " or ".join(f"{u}/" if u else "the suite folder" for u in under)
    raise UserError(f"{where}: file name {str(rel)[:100]!r} is not a file in {places} "
                    f"(at most 200 letters, digits, '.', '_', '-')")


def read_suite_file(path: Path) -> bytes:
    """The bytes of a suite-level file: a regular file (not a symlink, folder or FIFO) of at
    most :data:`MAX_SUITE_FILE_BYTES`, else a UserError."""
    with open_input(path, "suite file", follow_symlinks=False) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > MAX_SUITE_FILE_BYTES:
            raise UserError(f"{path}: {size} bytes, more than publish writes")
        return fh.read(MAX_SUITE_FILE_BYTES + 1)


def _text(path: Path) -> str:
    return utf8_text(read_suite_file(path), str(path))


def read_manifest(out: Path) -> dict:
    """``out/manifest.json`` checked: a suite with a safe name and instance rows each of which
    :meth:`ManifestRow.from_row` accepts."""
    path = out / MANIFEST
    manifest = load_json(read_suite_file(path), str(path))
    suite = manifest.get("suite") if isinstance(manifest, dict) else None
    rows = manifest.get("instances") if isinstance(manifest, dict) else None
    if not isinstance(suite, dict) or not isinstance(rows, list):
        raise UserError(f"{path}: not a puzzlesat manifest (needs 'suite' and 'instances')")
    if not isinstance(suite.get("name"), str) or not SAFE_NAME.match(suite["name"]):
        raise UserError(f"{path}: suite name {str(suite.get('name'))[:100]!r} is not a safe "
                        f"name")
    ManifestRow.from_rows(rows, str(path))
    return manifest


def _count(value: object) -> bool:
    return type(value) is int and value >= 0


def _hex64(value: object) -> bool:
    return isinstance(value, str) and _HEX64.match(value) is not None


#: the fields of a manifest.json instance row that code reads back, and their checks
_ROW_CHECKS = {
    "hash": lambda v: isinstance(v, str) and _HEX32.match(v) is not None,
    "name": lambda v: isinstance(v, str) and SAFE_NAME.match(v) is not None,
    "family": lambda v: isinstance(v, str) and len(v) < 100,
    "result": lambda v: v in ("sat", "unsat", "unknown"),
    "params": lambda v: isinstance(v, dict),
    "sha256": _hex64,
    "witness-sha256": lambda v: v is None or _hex64(v),
    "encoding": lambda v: isinstance(v, str) and len(v) < 100,
    "variables": _count,
    "clauses": _count,
    "expected-from": lambda v: isinstance(v, str) and len(v) < 1000,
    "text-sha256": _hex64,
    "group": _count,
    "format": lambda v: v in formats(),
    "optimum": lambda v: v is None or v == "unknown" or isinstance(v, str)
    and re.fullmatch(r"[0-9]{1,30}", v) is not None,
    "count": lambda v: v is None or v == "unknown" or isinstance(v, str)
    and re.fullmatch(r"[0-9]{1,4000}", v) is not None,
    "count-from": lambda v: v is None or isinstance(v, str) and len(v) < 1000,
}
#: fields a manifest written before WCNF suites (or counting suites) lacks: their value then
_ROW_DEFAULTS = {"format": "cnf", "optimum": None, "count": None, "count-from": None}


@dataclass(frozen=True)
class ManifestRow:
    """One instance row of manifest.json as code reads it back, every field checked."""

    hash: str  # GBD hash
    name: str
    file: str  # instances/<name>.<format><compression>
    family: str
    result: str  # sat / unsat / unknown
    params: dict
    sha256: str  # of the file's bytes
    witness: str | None  # witnesses/<name>.json
    witness_sha256: str | None
    encoding: str
    variables: int
    clauses: int
    expected_from: str
    text_sha256: str  # of the uncompressed text
    group: int  # the spec's [[group]] number
    format: str = "cnf"  # its track's file format
    optimum: str | None = None  # a WCNF instance's certified optimum, "unknown" if none
    count: str | None = None  # a counting instance's certified count, "unknown" if none
    count_from: str | None = None  # how that count is known

    @classmethod
    def from_row(cls, row: object, where: str) -> ManifestRow:
        """The typed row of a manifest.json instance row, or a UserError naming the field."""
        if not isinstance(row, dict):
            raise UserError(f"{where}: not a table")
        fields = {**_ROW_DEFAULTS, **row}
        for key, ok in _ROW_CHECKS.items():
            if not ok(fields.get(key)):
                raise UserError(f"{where}: field {key!r} is missing or not as publish writes "
                                f"it ({str(fields.get(key))[:100]!r})")
        witness = fields.get("witness")
        return cls(**{key.replace("-", "_"): fields[key] for key in _ROW_CHECKS},
                   file=suite_path(fields["file"], where, (INSTANCES,)),
                   witness=None if witness is None else suite_path(witness, where,
                                                                   (WITNESSES,)))

    @classmethod
    def from_rows(cls, rows: list, where: str) -> list[ManifestRow]:
        """Every instance row of a manifest typed (:meth:`from_row`), or a UserError naming
        the first bad one."""
        return [cls.from_row(row, f"{where}: instance {number}")
                for number, row in enumerate(rows, 1)]

    @property
    def track(self) -> str:
        """The instance's track: its format's, a counting one's when it has a count."""
        return track_for(self.format, self.count is not None).NAME

    @property
    def certified_optimum(self) -> int | None:
        """A WCNF instance's certified optimum, None when it is open (or not WCNF)."""
        if self.optimum is None or self.optimum == "unknown":
            return None
        return int(self.optimum)


def read_sums(out: Path) -> dict[str, str] | None:
    """``out/SHA256SUMS`` as {relative path: sha256}, or None when the folder has none; a
    line that is not ``<64 hex>  <suite path>`` or a name listed twice is a UserError."""
    path = out / SUMS
    if not os.path.lexists(path):
        return None
    sums: dict[str, str] = {}
    for number, line in enumerate(_text(path).split("\n")[:-1], 1):
        match = _SUM_LINE.match(line)
        if not match:
            raise UserError(f"{path}: line {number} is not '<sha256>  <file>'")
        rel = suite_path(match[2], f"{path}: line {number}", ("", *SUBFOLDERS))
        if rel in sums:
            raise UserError(f"{path}: {rel} is listed twice")
        sums[rel] = match[1]
    return sums


def file_sha256(path: Path) -> str | None:
    """The sha256 of a regular file (never read through a symlink), or None."""
    try:
        with open_input(path, "file", follow_symlinks=False) as fh:
            digest = hashlib.sha256()
            while chunk := fh.read(1 << 20):
                digest.update(chunk)
    except UserError:  # missing, a symlink, not a regular file
        return None
    return digest.hexdigest()


def inside(out: Path, rel: str) -> bool:
    """``out/rel`` is reached without a symlink on the way (its folder is ``out`` itself or a
    real folder in it): a symlinked ``instances/`` leads outside the suite."""
    folder = Path(rel).parent
    return folder == Path(".") or (out / folder).is_dir() and not (out / folder).is_symlink()


def remove_own(out: Path, rel: str, sha256: str | None) -> bool:
    """Remove ``out/rel`` only when it is a regular file inside the folder whose bytes have
    the sha256 this tool recorded for it (so a file it did not write survives); True when
    removed."""
    if sha256 is None or not inside(out, rel) or file_sha256(out / rel) != sha256:
        return False
    try:
        (out / rel).unlink()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise os_failure(exc, f"remove {out / rel}") from None
    return True


def part_files(out: Path) -> list[Path]:
    """The temporary files publish and atomic_write leave behind when killed: named as they
    name them, regular files, in the folder or its real (not symlinked) subfolders."""
    found = []
    for sub in ("", *SUBFOLDERS):
        if sub and not inside(out, f"{sub}/x"):
            continue
        for path in (out / sub).glob(".*.part"):
            if PART_NAME.match(path.name) and stat.S_ISREG(path.lstat().st_mode):
                found.append(path)
    return sorted(found)


def clear_parts(out: Path) -> None:
    """Remove :func:`part_files` (only under the publish lock: then no other run of this tool
    is writing them)."""
    for stale in part_files(out):
        try:
            stale.unlink()
        except OSError:
            pass


def pending_name(rel: str) -> str:
    """Where a file is kept back until the new manifest stands: ``.<name>.pending.part``
    beside it."""
    folder, _, name = rel.rpartition("/")
    return f"{folder}/{part_name(name, 'pending')}" if folder else part_name(name, "pending")


def table_bytes(columns, rows) -> bytes:
    """A CSV table's bytes as this tool writes every table (manifest.csv, calibration.csv,
    metadata.csv, landscape.csv): a header of ``columns``, then one line per row (a dict by
    column name), ``\\n`` line ends."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue().encode()


def read_table(path: Path, columns: tuple[str, ...],
               data: bytes | None = None) -> tuple[list[dict], list[str]]:
    """A CSV table this tool wrote (calibration.csv): a regular UTF-8 file (or its bytes
    ``data``, read already) whose header has every one of ``columns``, a ``file`` column
    naming files in instances/ and a ``hash`` column of GBD hashes; returns (rows, its
    columns) or a UserError."""
    text = _text(path) if data is None else utf8_text(data, str(path))
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
        rows, header = list(reader), reader.fieldnames or []
    except csv.Error as exc:
        raise UserError(f"{path}: not a CSV table ({exc})") from None
    missing = [c for c in columns if c not in header]
    if missing:
        raise UserError(f"{path}: damaged (no column {missing[0]!r}; columns must be "
                        f"{', '.join(columns)})")
    runs: dict[tuple[str, str], int] = {}  # (GBD hash, solver) -> its line
    for number, row in enumerate(rows, 2):
        if None in row or any(v is None for v in row.values()):
            raise UserError(f"{path}: line {number} has not {len(header)} fields")
        if "file" in row:
            suite_path(row["file"], f"{path}: line {number}", (INSTANCES,))
        if "hash" in row and not _HEX32.match(row["hash"]):
            raise UserError(f"{path}: line {number}: hash {row['hash'][:100]!r} is not a GBD "
                            f"hash")
        # one run per instance and solver: of two, a reader would trust either one
        key = (row.get("hash", ""), row.get("solver", ""))
        if "solver" in row and key in runs:
            raise UserError(f"{path}: line {number}: a second run of {row['solver'][:40]!r} "
                            f"on instance {key[0]} (line {runs[key]})")
        runs[key] = number
    return rows, list(header)


def published_suite_holding(path: Path) -> Path | None:
    """The published suite folder (one holding a suite.toml and a manifest.json) that ``path``
    is or lies in, or None: other commands' outputs do not belong there."""
    target = path.resolve()
    for folder in (target, *target.parents):
        if all(os.path.lexists(folder / name) for name in (SPEC_FILE, MANIFEST)):
            return folder
    return None


def suite_instances(suite_dir: str | os.PathLike) -> list[Path]:
    """The instance files of a published suite: ``SUITE_DIR/instances/*.cnf*`` and
    ``*.wcnf*``, sorted."""
    folder = Path(suite_dir) / INSTANCES
    if not folder.is_dir():
        raise UserError(f"{suite_dir}: not a suite folder (no instances/ inside)")
    files = sorted(p for p in folder.iterdir() if p.is_file()
                   and (".cnf" in p.name or ".wcnf" in p.name) and not p.name.startswith("."))
    if not files:
        raise UserError(f"{folder}: no instance files (*.cnf, *.cnf.xz, ...)")
    return files


def output_path(results_dir: str | os.PathLike, instance: Path,
                suffix: str = ANSWER_SUFFIX) -> Path:
    """Where the answer for ``instance`` is written in ``results_dir``."""
    return Path(results_dir) / (instance.name + suffix)


def witness_path(instance: Path) -> Path:
    """The planted witness published beside a suite instance: ``witnesses/<name>.json``."""
    stem = re.split(r"\.w?cnf", instance.name)[0]
    return instance.parent.parent / witness_file(stem)

"""Suites: a TOML spec → instance list → parallel build → a published, verifiable folder.

A suite spec names the suite and a master seed, and lists instance groups; every list-valued
key of a group is an axis of a grid, so one group stands for the product of its axes::

    [suite]
    name = "demo"
    author = "The puzzlesat developers"
    version = "1"
    seed = 2024
    compression = "xz"

    [[group]]
    family = "edge-matching"
    encodings = ["cmp", "all"]
    replicates = 2
    params = { rows = [5, 6], cols = 5, border_colors = 3, center_colors = 4 }

Seeds. An instance's seed is ``derive_seed(suite seed, puzzle key)`` where the puzzle key is
``<family>/<canonical params JSON>/r<replicate>``: it depends on nothing else in the spec, so
adding or removing a group never changes another instance, and the encodings of one grid point
encode the same puzzle. The instance name is the family's canonical name with the replicate
(``em-8-3-8-r1-all``) where ``generate`` puts the seed (``em-8-3-8-s<seed>-all``): short and
stable; the header's ``reproduce`` command carries the seed and ``--name``, so it still
regenerates the file byte for byte.

Publishing (:func:`publish_suite`) validates the whole spec before writing anything, builds
instances in an executor (any :class:`concurrent.futures.Executor`; the local process pool by
default) and writes each finished instance atomically as it arrives, so an interrupted run
leaves no partial file; a rerun keeps every instance whose DIMACS text equals the regenerated
one. Output bytes never depend on the number of jobs or the completion order: the manifest is
assembled in spec order at the end. :func:`verify_suite` regenerates everything from the
folder's copy of the spec and lists every difference.

>>> spec = parse_spec(b'''
... [suite]
... name = "tiny"
... author = "A. Author"
... version = "1"
... seed = 7
... ''', "tiny.toml")
>>> spec.name, spec.seed, spec.compression, spec.tasks
('tiny', 7, 'xz', ())
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import os
import re
import signal
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.dimacs import (
    atomic_write,
    canonical_json,
    clause_bytes,
    compress,
    decompress,
    dimacs_bytes,
    gbd_hash_of_body,
    parse_dimacs,
)
from generator.errors import UserError
from generator.families import check_encoding, get_family, normalize_params
from generator.seeds import derive_seed

COMPRESSION_SUFFIX = {"xz": ".xz", "gz": ".gz", "bz2": ".bz2", "none": ""}
MANIFEST_COLUMNS = ("hash", "author", "family", "result", "name", "file", "encoding",
                    "variables", "clauses", "bytes", "sha256", "seed", "params")
SUITE_KEYS = {"name": str, "author": str, "version": str, "seed": int, "compression": str,
              "title": str, "description": str, "date": str, "license": str, "url": str}
REQUIRED_SUITE_KEYS = ("name", "author", "version", "seed")
GROUP_KEYS = ("family", "encoding", "encodings", "replicates", "params", "zip")
SPEC_FILE = "suite.toml"
#: written by ``puzzlesat calibrate``: measurements, not regenerable, so publish and verify take
#: them as inputs (like suite.toml): listed in SHA256SUMS and summarised in manifest.json
CALIBRATION_FILE = "calibration.csv"
CALIBRATION_PLOTS = "calibration-*"
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


# -- the spec ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Task:
    """One instance to build: everything a worker needs, picklable, no file access."""

    family: str
    params: dict
    encoding: str
    seed: int | None
    name: str
    compression: str
    group: int
    replicate: int

    @property
    def file(self) -> str:
        return f"instances/{self.name}.cnf{COMPRESSION_SUFFIX[self.compression]}"

    @property
    def witness_file(self) -> str:
        return f"witnesses/{self.name}.json"


@dataclass(frozen=True)
class Spec:
    """A validated suite spec: the suite's fields and its expanded instance list."""

    name: str
    author: str
    version: str
    seed: int
    compression: str
    tasks: tuple[Task, ...]
    text: bytes = field(repr=False)
    extra: dict = field(default_factory=dict)  # title, description, date, license, url

    @property
    def families(self) -> list[str]:
        """Family names in order of first appearance."""
        return list(dict.fromkeys(t.family for t in self.tasks))


def load_spec(path: str | os.PathLike) -> Spec:
    """Read and validate a suite spec file (every mistake is a UserError naming the place)."""
    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read suite spec {path}: {exc.strerror or exc}") from None
    return parse_spec(text, str(path))


def parse_spec(text: bytes, where: str) -> Spec:
    """Validate spec text and expand its groups into tasks (nothing is built or written)."""
    try:
        data = tomllib.loads(text.decode("utf-8"))
    except UnicodeDecodeError:
        raise UserError(f"{where}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{where}: TOML syntax error: {exc}") from None
    unknown = [k for k in data if k not in ("suite", "group")]
    if unknown:
        raise UserError(f"{where}: unknown top-level key {unknown[0]!r} (expected [suite] and "
                        f"[[group]] tables)")
    suite = _suite_table(data.get("suite"), where)
    groups = data.get("group", [])
    if not isinstance(groups, list):
        raise UserError(f"{where}: 'group' must be an array of tables ([[group]])")
    tasks: list[Task] = []
    for number, group in enumerate(groups, start=1):
        tasks += _expand_group(group, number, suite, f"{where} [[group]] {number}: ")
    _check_unique_names(tasks, where)
    extra = {k: suite[k] for k in SUITE_KEYS if k in suite and k not in REQUIRED_SUITE_KEYS
             and k != "compression"}
    return Spec(suite["name"], suite["author"], suite["version"], suite["seed"],
                suite["compression"], tuple(tasks), text, extra)


def _suite_table(table: Any, where: str) -> dict:
    if not isinstance(table, dict):
        raise UserError(f"{where}: missing [suite] table")
    here = f"{where} [suite]"
    for key, value in table.items():
        if key not in SUITE_KEYS:
            raise UserError(f"{here}: unknown key {key!r} (known: {', '.join(SUITE_KEYS)})")
        kind = SUITE_KEYS[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise UserError(f"{here}: {key} must be {kind.__name__}, got {value!r}")
    missing = [k for k in REQUIRED_SUITE_KEYS if k not in table]
    if missing:
        raise UserError(f"{here}: missing key {missing[0]!r}")
    if not _SAFE_NAME.match(table["name"]):
        raise UserError(f"{here}: name {table['name']!r} must be letters, digits, '.', '_', '-'")
    if table["seed"] < 0:
        raise UserError(f"{here}: seed must be a non-negative integer, got {table['seed']}")
    out = dict(table)
    out.setdefault("compression", "xz")
    if out["compression"] not in COMPRESSION_SUFFIX:
        raise UserError(f"{here}: compression {out['compression']!r} is not one of "
                        f"{', '.join(COMPRESSION_SUFFIX)}")
    return out


def _expand_group(group: Any, number: int, suite: dict, where: str) -> list[Task]:
    """The grid of one [[group]]: families × params × replicates × encodings, in that order."""
    if not isinstance(group, dict):
        raise UserError(f"{where}must be a table")
    unknown = [k for k in group if k not in GROUP_KEYS]
    if unknown:
        raise UserError(f"{where}unknown key {unknown[0]!r} (known: {', '.join(GROUP_KEYS)})")
    if "encoding" in group and "encodings" in group:
        raise UserError(f"{where}give 'encoding' or 'encodings', not both")
    families = _axis(group.get("family"), str, "family", where, required=True)
    encodings = _axis(group.get("encodings", group.get("encoding")), str, "encodings", where)
    replicates = _replicates(group.get("replicates", 1), where)
    raw_params, zipped = group.get("params", {}), group.get("zip", {})
    for key, table in (("params", raw_params), ("zip", zipped)):
        if not isinstance(table, dict):
            raise UserError(f"{where}{key} must be a table, got {table!r}")
    both = [k for k in zipped if k in raw_params]
    if both:
        raise UserError(f"{where}{both[0]!r} is in both params and zip")
    tasks = []
    for family_name in families:
        try:
            family = get_family(family_name)
        except UserError as exc:
            raise UserError(f"{where}{exc}") from None
        for raw in _param_grid(family, raw_params, zipped, where):
            params = normalize_params(family, raw, where)
            seeded = family.uses_seed(params)
            if not seeded and len(replicates) > 1:
                raise UserError(f"{where}these params fix the puzzle (no seed is used), so "
                                f"replicates must be 1, got {len(replicates)}")
            for replicate in replicates:
                key = f"{family.NAME}/{canonical_json(params)}/r{replicate}"
                seed = derive_seed(suite["seed"], key) if seeded else None
                for encoding in encodings or [None]:
                    try:
                        encoding = check_encoding(family, encoding)
                    except UserError as exc:
                        raise UserError(f"{where}{exc}") from None
                    # the replicate, not the 19-digit derived seed (that is in the header)
                    name = family.instance_name(params, f"r{replicate}" if seeded else None,
                                                encoding)
                    if not _SAFE_NAME.match(name):
                        raise UserError(f"{where}family {family.NAME} gave an unsafe instance "
                                        f"name {name!r}")
                    tasks.append(Task(family.NAME, params, encoding, seed, name,
                                      suite["compression"], number, replicate))
    return tasks


def _axis(value: Any, kind: type, key: str, where: str, required: bool = False) -> list:
    """A scalar or a non-empty list of ``kind`` as a list (None → [] unless required)."""
    if value is None:
        if required:
            raise UserError(f"{where}missing key {key!r}")
        return []
    values = value if isinstance(value, list) else [value]
    if not values:
        raise UserError(f"{where}{key} is an empty list: the grid would be empty")
    bad = [v for v in values if not isinstance(v, kind)]
    if bad:
        raise UserError(f"{where}{key} must be {kind.__name__} or a list of them, got {bad[0]!r}")
    return values


def _replicates(value: Any, where: str) -> list[int]:
    """``replicates = N`` means replicates 1..N; a list names replicate numbers explicitly
    (so replicates can be added later without renumbering the others)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise UserError(f"{where}replicates must be at least 1, got {value}")
        return list(range(1, value + 1))
    if isinstance(value, list) and value and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value):
        if len(set(value)) != len(value):
            raise UserError(f"{where}replicates lists a number twice: {value}")
        return value
    raise UserError(f"{where}replicates must be a positive integer or a non-empty list of "
                    f"positive integers, got {value!r}")


def _param_grid(family, raw: dict, zipped: dict, where: str) -> Iterator[dict]:
    """Every combination of the group's param axes, in the order the keys are written, then
    the ``zip`` axis.

    A list is an axis, except for a list-valued (``ints``) parameter, whose axis is a list of
    lists. A table ``{from = A, to = B, step = S}`` is the inclusive integer range A..B. The
    keys of ``zip`` vary together (their lists must be equally long): one axis, not a product.
    """
    kinds = {p.name: p.kind for p in family.PARAMS}
    axes = [[(key, v) for v in _values(kinds, key, value, f"{where}params.{key}")]
            for key, value in raw.items()]
    if zipped:
        columns = {key: _values(kinds, key, value, f"{where}zip.{key}")
                   for key, value in zipped.items()}
        lengths = {key: len(values) for key, values in columns.items()}
        if len(set(lengths.values())) > 1:
            raise UserError(f"{where}zip lists must be equally long, got "
                            + ", ".join(f"{k}: {n}" for k, n in lengths.items()))
        axes.append([tuple(zip(columns, row)) for row in zip(*columns.values())])
    for combination in itertools.product(*axes):
        point: dict = {}
        for item in combination:
            point.update([item] if isinstance(item[0], str) else item)
        yield point


def _values(kinds: dict, key: str, value: Any, label: str) -> list:
    """The values of one axis (a single value is an axis of length one)."""
    if isinstance(value, dict):
        values = _int_range(value, label)
    elif isinstance(value, list) and (kinds.get(key.replace("-", "_")) != "ints"
                                      or any(isinstance(v, list) for v in value)):
        values = value
    else:
        values = [value]
    if not values:
        raise UserError(f"{label} is an empty list: the grid would be empty")
    return values


def _int_range(table: dict, label: str) -> list[int]:
    unknown = [k for k in table if k not in ("from", "to", "step")]
    if unknown or "from" not in table or "to" not in table:
        raise UserError(f"{label}: a range is written {{from = A, to = B}} (optional step)")
    start, stop, step = table["from"], table["to"], table.get("step", 1)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, stop, step)) \
            or step < 1:
        raise UserError(f"{label}: range bounds must be integers and step a positive integer")
    values = list(range(start, stop + 1, step))
    if not values:
        raise UserError(f"{label}: range {start}..{stop} is empty: the grid would be empty")
    return values


def _check_unique_names(tasks: list[Task], where: str) -> None:
    first: dict[str, Task] = {}
    for task in tasks:
        if task.name in first:
            other = first[task.name]
            if other.params == task.params:
                raise UserError(f"{where}: instance {task.name} appears twice ([[group]] "
                                f"{other.group} and {task.group}); remove the duplicate grid "
                                f"point")
            differ = sorted(k for k in {**other.params, **task.params}
                            if other.params.get(k) != task.params.get(k))
            raise UserError(f"{where}: two instances would be named {task.name} ([[group]] "
                            f"{other.group} and {task.group}): the {task.family} name does not "
                            f"show {', '.join(differ)}; vary it in separate suites")
        first[task.name] = task


# -- building (runs in workers: pure, no file access) -----------------------------------------
@dataclass(frozen=True)
class Built:
    """What a worker returns for one task: the published bytes and the manifest facts."""

    data: bytes | None  # compressed file; None when the caller's copy was found identical
    text_sha256: str  # of the uncompressed DIMACS text
    text: bytes | None  # the DIMACS text (only when asked for, e.g. by verify)
    witness: bytes | None
    gbd_hash: str
    variables: int
    clauses: int
    expected: str
    expected_from: str


def build_task(task: Task, reuse_text_sha256: str | None = None, keep_text: bool = False) -> Built:
    """Build, render and compress one instance. When ``reuse_text_sha256`` equals the sha256
    of the regenerated text, compression (the expensive part) is skipped."""
    from generator.instance import build

    inst = build(task.family, task.params, task.encoding, task.seed, task.name)
    body = clause_bytes(inst.formula)
    text = dimacs_bytes(inst.formula, inst.header(), body)
    text_sha256 = hashlib.sha256(text).hexdigest()
    reuse = reuse_text_sha256 == text_sha256
    kind = None if task.compression == "none" else task.compression
    solution = inst.witness_json()
    witness = None if solution is None else (canonical_json(solution) + "\n").encode()
    return Built(None if reuse else compress(text, kind), text_sha256,
                 text if keep_text else None, witness, gbd_hash_of_body(body),
                 inst.formula.num_vars, inst.formula.num_clauses, inst.expected,
                 inst.expected_from)


def _worker_init(parent: int) -> None:
    # Ctrl-C reaches the whole process group; only the parent decides what to do with it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    """A worker whose parent was killed (SIGKILL) would wait for work forever: leave."""
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(1)


def local_executor(jobs: int) -> Executor | None:
    """The default executor: None (build in this process) for one job, else a process pool."""
    if jobs <= 1:
        return None
    return ProcessPoolExecutor(max_workers=jobs, initializer=_worker_init,
                               initargs=(os.getpid(),))


def run_tasks(fn: Callable, calls: list[tuple], executor: Executor | None,
              window: int = 0) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, fn(*calls[index]))`` as results arrive.

    ``executor`` is any :class:`concurrent.futures.Executor` (a process pool, or e.g. a Dask
    ``Client.get_executor()``); None runs the calls here, one by one. At most ``window`` calls
    are in flight (default: 2 per worker, at least 4) so finished bytes do not pile up.
    """
    if executor is None:
        for index, args in enumerate(calls):
            yield index, fn(*args)
        return
    window = window or max(4, 2 * (getattr(executor, "_max_workers", 2) or 2))
    pending: dict = {}
    todo = iter(enumerate(calls))
    try:
        while True:
            for index, args in itertools.islice(todo, window - len(pending)):
                pending[executor.submit(fn, *args)] = index
            if not pending:
                return
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=pending.__getitem__):
                yield pending.pop(future), future.result()
    finally:
        for future in pending:
            future.cancel()


# -- publishing ---------------------------------------------------------------------------------
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
    calibration = calibration_files(out)
    if built and calibration:  # instances changed: their measurements no longer apply
        for rel in calibration:
            (out / rel).unlink()
        calibration = {}
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
    for stale in _listed_files(out):
        if stale not in wanted:
            (out / stale).unlink()


def _listed_files(out: Path) -> list[str]:
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


def calibration_files(out: Path) -> dict[str, bytes]:
    """The calibration table and plots present in a published folder, by relative path."""
    paths = sorted({out / CALIBRATION_FILE, *out.glob(CALIBRATION_PLOTS)})
    return {p.name: p.read_bytes() for p in paths if p.is_file()}


def suite_files(spec: Spec, rows: list[dict],
                calibration: dict[str, bytes] | None = None) -> dict[str, bytes]:
    """Every suite-level file (not instances or witnesses) as bytes, SHA256SUMS last.
    ``calibration`` (from :func:`calibration_files`) is summarised in manifest.json and listed
    in SHA256SUMS."""
    from generator import describe

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
    import generator

    return {
        "suite": {"name": spec.name, "author": spec.author, "version": spec.version,
                  "seed": spec.seed, "compression": spec.compression, **spec.extra,
                  "generator": f"puzzlesat {generator.__version__}", "instances": len(rows)},
        "instances": rows,
    }


# -- verifying ----------------------------------------------------------------------------------
@dataclass
class Verified:
    """The outcome of :func:`verify_suite`: an empty ``differences`` means byte-identical."""

    out: Path
    spec: Spec
    files: int
    differences: list[str]

    def summary(self) -> str:
        if self.differences:
            return (f"{self.out}: {len(self.differences)} difference(s) from the regenerated "
                    f"suite {self.spec.name} {self.spec.version}")
        return (f"{self.out}: suite {self.spec.name} {self.spec.version} is identical to its "
                f"regeneration ({len(self.spec.tasks)} instances, {self.files} files)")


def verify_suite(directory: str | os.PathLike, jobs: int = 1,
                 executor: Executor | None = None) -> Verified:
    """Regenerate every file of a published suite from its ``suite.toml`` and compare."""
    out = Path(directory)
    if not out.is_dir():
        raise UserError(f"{out} is not a folder")
    spec_file = out / SPEC_FILE
    if not spec_file.is_file():
        raise UserError(f"{out} holds no {SPEC_FILE}: not a published suite")
    spec = parse_spec(spec_file.read_bytes(), str(spec_file))
    own = executor is None
    executor = local_executor(jobs) if own else executor
    try:
        return _verify(spec, out, executor)
    finally:
        if own and executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


def _build_for_verify(task: Task) -> Built:
    return build_task(task, keep_text=True)


def _verify(spec: Spec, out: Path, executor: Executor | None) -> Verified:
    rows: list[dict] = [{}] * len(spec.tasks)
    found: list[list[str]] = [[] for _ in spec.tasks]
    for index, result in run_tasks(_build_for_verify, [(t,) for t in spec.tasks], executor):
        task = spec.tasks[index]
        rows[index] = manifest_row(spec, task, result, result.data)
        found[index] = (compare_instance(out, task.file, result)
                        + compare_file(out, task.witness_file, result.witness))
    differences = [line for lines in found for line in lines]
    files = suite_files(spec, rows, calibration_files(out))
    for rel, data in files.items():
        differences += compare_file(out, rel, data)
    wanted = {t.file for t in spec.tasks} | {r["witness"] for r in rows if r["witness"]}
    differences += [f"{rel}: not part of the suite" for rel in _listed_files(out)
                    if rel not in wanted]
    return Verified(out, spec, len(files) + len(wanted), differences)


def compare_instance(out: Path, rel: str, result: Built) -> list[str]:
    """Differences between a published instance file and its regeneration, most telling
    first: GBD hash (the clauses), then the header, then the compressed bytes."""
    try:
        data = (out / rel).read_bytes()
    except FileNotFoundError:
        return [f"{rel}: missing"]
    if data == result.data:
        return []
    try:
        text = decompress(data, rel)
    except UserError as exc:
        return [f"{rel}: {exc}"]
    if text == result.text:
        return [f"{rel}: compressed bytes differ (sha256 {_short(data)} vs regenerated "
                f"{_short(result.data)}) though the DIMACS text is identical"]
    lines = []
    try:
        gbd = parse_dimacs(text, rel).gbd_hash
    except UserError as exc:
        lines.append(f"{rel}: does not parse: {exc}")
    else:
        if gbd != result.gbd_hash:
            lines.append(f"{rel}: GBD hash {gbd} differs from regenerated {result.gbd_hash} "
                         f"(the clauses differ)")
    head, regenerated = _head_lines(text), _head_lines(result.text)
    lines += [f"{rel}: header line {a!r} differs from regenerated {b!r}"
              for a, b in itertools.zip_longest(head, regenerated, fillvalue="") if a != b]
    return lines or [f"{rel}: bytes differ from the regeneration"]


def _head_lines(text: bytes) -> list[str]:
    """The comment header and the ``p`` line."""
    head = []
    for line in text.split(b"\n"):
        head.append(line.decode("utf-8", "replace"))
        if line.startswith(b"p"):
            break
    return head


def compare_file(out: Path, rel: str, expected: bytes | None) -> list[str]:
    """One line naming the first differing line of a small text file, if it differs."""
    path = out / rel
    if expected is None:
        return [f"{rel}: not part of the suite"] if path.exists() else []
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [f"{rel}: missing"]
    if data == expected:
        return []
    mine, theirs = data.splitlines(), expected.splitlines()
    for number, (a, b) in enumerate(itertools.zip_longest(mine, theirs, fillvalue=b""), 1):
        if a != b:
            return [f"{rel}: line {number} is {_clip(a)!r}, regenerated {_clip(b)!r}"]
    return [f"{rel}: differs from the regeneration (line endings)"]


def _clip(line: bytes, width: int = 100) -> str:
    text = line.decode("utf-8", "replace")
    return text if len(text) <= width else text[: width - 3] + "..."


def _short(data: bytes | None) -> str:
    return hashlib.sha256(data or b"").hexdigest()[:16]

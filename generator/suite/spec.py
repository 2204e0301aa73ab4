"""The suite spec: TOML text → a validated :class:`Spec` whose ``tasks`` are every instance
to build, in spec order. Nothing is built or written here.

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

import itertools
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puzzlesat.generator.core.errors import UserError, prefixed
from puzzlesat.generator.core.files import SUFFIXES
from puzzlesat.generator.core.header import canonical_json
from puzzlesat.generator.core.inputs import SMALL_INPUT, read_input
from puzzlesat.generator.core.paths import file_under
from puzzlesat.generator.core.seeds import derive_seed
from puzzlesat.generator.core.structured import load_toml
from puzzlesat.generator.families import get_family
from puzzlesat.generator.families.params import (
    SAFE_NAME,
    file_params,
    normalize_params,
)
from puzzlesat.generator.suite.folder import (
    INPUTS,
    MANIFEST,
    SPEC_FILE,
    instance_file,
    read_manifest,
    read_suite_file,
    witness_file,
)
from puzzlesat.generator.tracks import track_for
from puzzlesat.generator.tracks.parts import check_track_encoding

SUITE_KEYS = {"name": str, "author": str, "version": str, "seed": int, "compression": str,
              "title": str, "description": str, "date": str, "license": str, "url": str}
REQUIRED_SUITE_KEYS = ("name", "author", "version", "seed")
#: the longest text a suite key may hold: description.tex must stay within the 2 pages the
#: competition allows, beside the family sections, the figure and the table (measured:
#: a 10 KB description made 3 pages)
MAX_TEXT = {"description": 2000, "title": 200, "author": 300}
#: a group's ``format`` and ``count`` choose its track (:func:`~puzzlesat.generator.tracks.track_for`):
#: DIMACS CNF (the default), with ``count = true`` a counting CNF, or WCNF 2022+
GROUP_KEYS = ("family", "encoding", "encodings", "replicates", "params", "zip", "format",
              "count")
#: a suite of more instances than this needs ``--force`` (checked before the task list is made)
MAX_SUITE_INSTANCES = 100_000
#: no suite has more instances than this, even with ``--force``: the task list is held in
#: memory (about a kilobyte a task), and a count this large is a typo, not a suite
MAX_FORCED_INSTANCES = 1_000_000
_SAFE_NAME = SAFE_NAME


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
    format: str = "cnf"  # the file format of its track
    track: str = "sat"  # the track its group's format and count ask for

    @property
    def file(self) -> str:
        """The instance's path in the published suite."""
        return instance_file(self.name, self.compression, self.format)

    @property
    def witness_file(self) -> str:
        """The witness file's path in the published suite."""
        return witness_file(self.name)


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
    #: input files the params name (a piece file), by their path in the published suite
    #: (``inputs/<file>``): copied there so the published folder is self-contained
    inputs: dict = field(default_factory=dict, repr=False)
    #: where each input was read from (``inputs/<file>`` -> path)
    sources: dict = field(default_factory=dict, repr=False)

    @property
    def families(self) -> list[str]:
        """Family names in order of first appearance."""
        return list(dict.fromkeys(t.family for t in self.tasks))


def load_spec(path: str | os.PathLike, force: bool = False) -> Spec:
    """Read and validate a suite spec file (every mistake is a UserError naming the place).
    Relative input files in its params (a piece file) are read from the spec's folder."""
    text = read_input(path, SMALL_INPUT, "suite spec")
    return parse_spec(text, str(path), force=force, base=Path(path).parent)


def parse_spec(text: bytes, name: str, force: bool = False,
               base: str | os.PathLike | None = None, published: bool = False) -> Spec:
    """Validate spec text and expand its groups into tasks (nothing is built or written).

    A suite of more than :data:`MAX_SUITE_INSTANCES` instances needs ``force``; the count is
    made before any task is. Input files named by params (a family's ``Param(file=True)``) are
    resolved against ``base`` (the spec's folder), read, and named ``inputs/<file>`` in the
    tasks; a spec naming them elsewhere is rewritten to say so (``Spec.text``). In a
    ``published`` suite (``base`` is its folder) an input is only ever a regular file under the
    folder: no absolute path, no ``..``, no symlink (:func:`~puzzlesat.generator.core.paths.file_under`)."""
    data = load_toml(text, name)
    unknown = [k for k in data if k not in ("suite", "group")]
    if unknown:
        raise UserError(f"{name}: unknown top-level key {unknown[0]!r} (expected [suite] and "
                        f"[[group]] tables)")
    if not isinstance(data.get("suite"), dict):
        raise UserError(f"{name}: missing [suite] table")
    with prefixed(f"{name} [suite]: "):
        suite = _suite_table(data["suite"])
    groups = data.get("group", [])
    if not isinstance(groups, list):
        raise UserError(f"{name}: 'group' must be an array of tables ([[group]])")
    inputs = _Inputs(Path(base) if base is not None else Path("."), name, published)
    tasks: list[Task] = []
    for number, group in enumerate(groups, start=1):
        with prefixed(f"{name} [[group]] {number}: "):
            count = len(tasks) + _group_size(group)
            if count > MAX_FORCED_INSTANCES:
                raise UserError(f"the suite would have up to {count} instances (more than "
                                f"{MAX_FORCED_INSTANCES}, even with --force)")
            if count > MAX_SUITE_INSTANCES and not force:
                raise UserError(f"the suite would have up to {count} instances "
                                f"(more than {MAX_SUITE_INSTANCES}): pass --force to build it "
                                f"anyway")
            tasks += _expand_group(group, number, suite, inputs)
    with prefixed(f"{name}: "):
        _check_unique_names(tasks)
    extra = {k: suite[k] for k in SUITE_KEYS if k in suite and k not in REQUIRED_SUITE_KEYS
             and k != "compression"}
    return Spec(suite["name"], suite["author"], suite["version"], suite["seed"],
                suite["compression"], tuple(tasks), inputs.rewrite(text, data), extra,
                inputs.files, inputs.sources)


class _Inputs:
    """Input files named by params, resolved against the spec's folder and renamed
    ``inputs/<file>`` for the published suite."""

    def __init__(self, base: Path, name: str, published: bool = False):
        self.base, self.name, self.published = base, name, published
        self.files: dict[str, bytes] = {}  # inputs/<file> -> bytes
        self.renamed: dict[str, str] = {}  # value written in the spec -> inputs/<file>
        self.sources: dict[str, str] = {}  # inputs/<file> -> the path it was read from

    def resolve(self, family, params: dict) -> dict:
        out = dict(params)
        for key, builtins in file_params(family).items():
            value = params.get(key)
            if not isinstance(value, str) or not value or value in builtins:
                continue  # a built-in name wins over a file of that name, as in generate
            if self.published:
                path = file_under(self.base, value, f"{self.name}: params.{key}")
            else:
                path = Path(value) if Path(value).is_absolute() else self.base / value
            looks_like_path = "/" in value or "\\" in value or "." in value
            if not path.is_file():
                if looks_like_path:
                    raise UserError(f"params.{key}: no such file {path} (a relative "
                                    f"path is read from the spec's folder)")
                continue  # a built-in name
            rel = f"{INPUTS}/{path.name}"
            data = read_input(path, SMALL_INPUT, f"params.{key}")
            if not _SAFE_NAME.match(path.name):
                raise UserError(f"params.{key}: file name {path.name!r} must be "
                                f"letters, digits, '.', '_', '-' (at most 200)")
            if self.files.get(rel, data) != data:
                raise UserError(f"params.{key}: two different input files are named "
                                f"{path.name}; rename one")
            self.files[rel] = data
            self.sources[rel] = str(path)
            if value != rel:
                self.renamed[value] = rel
            out[key] = rel
        return out

    def rewrite(self, text: bytes, data: dict) -> bytes:
        """The spec text with each renamed input path written as ``inputs/<file>``, checked by
        parsing it again."""
        if not self.renamed:
            return text
        new = text.decode("utf-8")
        for old, rel in self.renamed.items():
            for quote in ('"', "'"):
                new = new.replace(f"{quote}{old}{quote}", f"{quote}{rel}{quote}")
        if load_toml(new, self.name) != _renamed(data, self.renamed):
            raise UserError(f"{self.name}: cannot rewrite the input paths "
                            f"({', '.join(self.renamed)}) to {INPUTS}/: write them as "
                            f"plain strings")
        return new.encode("utf-8")


def _renamed(value: Any, renamed: dict) -> Any:
    if isinstance(value, dict):
        return {k: _renamed(v, renamed) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, renamed) for v in value]
    return renamed.get(value, value) if isinstance(value, str) else value


def _group_size(group: Any) -> int:
    """How many tasks a [[group]] expands to, counted without expanding it (0 when the group
    is malformed: :func:`_expand_group` then says why)."""
    if not isinstance(group, dict):
        return 0
    try:
        families = _axis(group.get("family"), str, "family", required=True)
        encodings = _axis(group.get("encodings", group.get("encoding")), str, "encodings")
        replicates = _replicates(group.get("replicates", 1))
    except UserError:
        return 0
    size = len(families) * max(1, len(encodings)) * range_length(replicates)
    raw, zipped = group.get("params", {}), group.get("zip", {})
    for table, is_zip in ((raw, False), (zipped, True)):
        if not isinstance(table, dict) or not table:
            continue
        lengths = [_axis_length(v) for v in table.values()]
        size *= max(lengths) if is_zip else math.prod(lengths)
    return size


def _axis_length(value: Any) -> int:
    """An upper bound on an axis's length (a list of lists counts as its length)."""
    if isinstance(value, dict):
        try:
            return range_length(range(value["from"], value["to"] + 1, value.get("step", 1)))
        except (KeyError, TypeError, ValueError):
            return 1
    return len(value) if isinstance(value, list) and value else 1


def range_length(values: range | list) -> int:
    """``len(values)``, also for a range longer than ``sys.maxsize`` (``len`` raises
    OverflowError there): a count must be made before anything that long is."""
    if isinstance(values, range):
        return max(0, -(-(values.stop - values.start) // values.step))
    return len(values)


def _suite_table(table: dict) -> dict:
    for key, value in table.items():
        if key not in SUITE_KEYS:
            raise UserError(f"unknown key {key!r} (known: {', '.join(SUITE_KEYS)})")
        kind = SUITE_KEYS[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise UserError(f"{key} must be {kind.__name__}, got {value!r}")
    for key, most in MAX_TEXT.items():
        if len(table.get(key, "")) > most:
            raise UserError(f"{key} has {len(table[key])} characters, at most {most} "
                            f"(the description document must fit in 2 pages)")
    missing = [k for k in REQUIRED_SUITE_KEYS if k not in table]
    if missing:
        raise UserError(f"missing key {missing[0]!r}")
    if not _SAFE_NAME.match(table["name"]):
        raise UserError(f"name {table['name'][:100]!r} must be letters, digits, "
                        f"'.', '_', '-' (at most 200)")
    if table["seed"] < 0:
        raise UserError(f"seed must be a non-negative integer, got {table['seed']}")
    out = dict(table)
    out.setdefault("compression", "xz")
    if out["compression"] not in SUFFIXES:
        raise UserError(f"compression {out['compression']!r} is not one of "
                        f"{', '.join(SUFFIXES)}")
    return out


def _expand_group(group: Any, number: int, suite: dict,
                  inputs: _Inputs | None = None) -> list[Task]:
    """The grid of one [[group]]: families × params × replicates × encodings, in that order."""
    if not isinstance(group, dict):
        raise UserError("must be a table")
    unknown = [k for k in group if k not in GROUP_KEYS]
    if unknown:
        raise UserError(f"unknown key {unknown[0]!r} (known: {', '.join(GROUP_KEYS)})")
    if "encoding" in group and "encodings" in group:
        raise UserError("give 'encoding' or 'encodings', not both")
    families = _axis(group.get("family"), str, "family", required=True)
    encodings = _axis(group.get("encodings", group.get("encoding")), str, "encodings")
    replicates = _replicates(group.get("replicates", 1))
    raw_params, zipped = group.get("params", {}), group.get("zip", {})
    for key, table in (("params", raw_params), ("zip", zipped)):
        if not isinstance(table, dict):
            raise UserError(f"{key} must be a table, got {table!r}")
    count = group.get("count", False)
    if not isinstance(count, bool):
        raise UserError(f"count must be true or false, got {count!r}")
    output_format = group.get("format", "cnf")
    track = track_for(output_format if isinstance(output_format, str) else repr(output_format),
                      count)
    both = [k for k in zipped if k in raw_params]
    if both:
        raise UserError(f"{both[0]!r} is in both params and zip")
    tasks = []
    for family_name in families:
        family = get_family(family_name)
        for raw in _param_grid(family, raw_params, zipped):
            params = normalize_params(family, raw)
            if inputs is not None:
                params = inputs.resolve(family, params)
            seeded = family.uses_seed(params)
            if not seeded and len(replicates) > 1:
                raise UserError(f"these params fix the puzzle (no seed is used), so "
                                f"replicates must be 1, got {len(replicates)}")
            for replicate in replicates:
                key = f"{family.NAME}/{canonical_json(params)}/r{replicate}"
                seed = derive_seed(suite["seed"], key) if seeded else None
                for encoding in encodings or [None]:
                    encoding = check_track_encoding(family, track, encoding)
                    # the replicate, not the 19-digit derived seed (that is in the header)
                    name = family.instance_name(params, f"r{replicate}" if seeded else None,
                                                encoding) + track.SUITE_SUFFIX
                    if not _SAFE_NAME.match(name):
                        raise UserError(f"family {family.NAME} gave an unsafe instance "
                                        f"name {name!r}")
                    tasks.append(Task(family.NAME, params, encoding, seed, name,
                                      suite["compression"], number, replicate,
                                      track.FORMAT, track.NAME))
    return tasks


def _axis(value: Any, kind: type, key: str, required: bool = False) -> list:
    """A scalar or a non-empty list of ``kind`` as a list (None → [] unless required)."""
    if value is None:
        if required:
            raise UserError(f"missing key {key!r}")
        return []
    values = value if isinstance(value, list) else [value]
    if not values:
        raise UserError(f"{key} is an empty list: the grid would be empty")
    bad = [v for v in values if not isinstance(v, kind)]
    if bad:
        raise UserError(f"{key} must be {kind.__name__} or a list of them, got {bad[0]!r}")
    return values


def _replicates(value: Any) -> list[int]:
    """``replicates = N`` means replicates 1..N; a list names replicate numbers explicitly
    (so replicates can be added later without renumbering the others)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise UserError(f"replicates must be at least 1, got {value}")
        return range(1, value + 1)  # type: ignore[return-value]  # counted before expanded
    if isinstance(value, list) and value and all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value):
        if len(set(value)) != len(value):
            raise UserError(f"replicates lists a number twice: {value}")
        return value
    raise UserError(f"replicates must be a positive integer or a non-empty list of "
                    f"positive integers, got {value!r}")


def _param_grid(family, raw: dict, zipped: dict) -> Iterator[dict]:
    """Every combination of the group's param axes, in the order the keys are written, then
    the ``zip`` axis.

    A list is an axis, except for a list-valued (``ints``) parameter, whose axis is a list of
    lists. A table ``{from = A, to = B, step = S}`` is the inclusive integer range A..B. The
    keys of ``zip`` vary together (their lists must be equally long): one axis, not a product.
    """
    kinds = {p.name: p.kind for p in family.PARAMS}
    axes: list[list[Any]] = [[(key, v) for v in _values(kinds, key, value, f"params.{key}")]
            for key, value in raw.items()]
    if zipped:
        columns = {key: _values(kinds, key, value, f"zip.{key}")
                   for key, value in zipped.items()}
        lengths = {key: len(values) for key, values in columns.items()}
        if len(set(lengths.values())) > 1:
            raise UserError("zip lists must be equally long, got "
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


def _check_unique_names(tasks: list[Task]) -> None:
    first: dict[str, Task] = {}
    for task in tasks:
        if task.name in first:
            other = first[task.name]
            if other.params == task.params:
                raise UserError(f"instance {task.name} appears twice ([[group]] "
                                f"{other.group} and {task.group}); remove the duplicate grid "
                                f"point")
            differ = sorted(k for k in {**other.params, **task.params}
                            if other.params.get(k) != task.params.get(k))
            raise UserError(f"two instances would be named {task.name} ([[group]] "
                            f"{other.group} and {task.group}): the {task.family} name does not "
                            f"show {', '.join(differ)}; vary it in separate suites")
        first[task.name] = task


def check_published(out: Path) -> None:
    """A UserError unless ``out`` is a folder holding a suite.toml and a manifest.json."""
    if not out.is_dir():
        raise UserError(f"{out}: not a folder")
    if not all(os.path.lexists(out / name) for name in (SPEC_FILE, MANIFEST)):
        raise UserError(f"{out}: not a published suite (needs {SPEC_FILE} and {MANIFEST}; "
                        f"run puzzlesat publish)")


def read_published(out: Path) -> tuple[Spec, list[dict]]:
    """A published suite's spec and its manifest rows, each checked (:func:`read_manifest`)."""
    check_published(out)
    # a published suite: its inputs/ files are read from it; its size was accepted when it was
    # published (--force then), so it is not asked for again
    spec = parse_spec(read_suite_file(out / SPEC_FILE), str(out / SPEC_FILE), force=True,
                      base=out, published=True)
    return spec, read_manifest(out)["instances"]

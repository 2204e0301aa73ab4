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
import os
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puzzlesat.generator.core.dimacs import canonical_json
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.seeds import derive_seed
from puzzlesat.generator.families import check_encoding, get_family, normalize_params

COMPRESSION_SUFFIX = {"xz": ".xz", "gz": ".gz", "bz2": ".bz2", "none": ""}
SUITE_KEYS = {"name": str, "author": str, "version": str, "seed": int, "compression": str,
              "title": str, "description": str, "date": str, "license": str, "url": str}
REQUIRED_SUITE_KEYS = ("name", "author", "version", "seed")
GROUP_KEYS = ("family", "encoding", "encodings", "replicates", "params", "zip")
SPEC_FILE = "suite.toml"
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

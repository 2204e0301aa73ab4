"""Verifying a published suite: regenerate every file from its ``suite.toml`` and list each
difference, most telling first."""

from __future__ import annotations

import hashlib
import itertools
import os
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.executors import local_executor, run_tasks
from puzzlesat.generator.core.inputs import decompress
from puzzlesat.generator.core.reader import parse_dimacs
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.suite.build import Built, build_task
from puzzlesat.generator.suite.calibration import calibration_files
from puzzlesat.generator.suite.folder import (
    INPUTS,
    INSTANCES,
    SPEC_FILE,
    WITNESSES,
    read_suite_file,
)
from puzzlesat.generator.suite.manifest import manifest_row, suite_files
from puzzlesat.generator.suite.publish import check_sizes, listed_files
from puzzlesat.generator.suite.spec import Spec, Task, parse_spec


@dataclass
class Verified:
    """The outcome of :func:`verify_suite`: an empty ``differences`` means byte-identical."""

    out: Path
    spec: Spec
    files: int
    differences: list[str]

    def summary(self) -> str:
        """One line: identical to the regeneration, or how many differences."""
        if self.differences:
            return (f"{self.out}: {len(self.differences)} difference(s) from the regenerated "
                    f"suite {self.spec.name} {self.spec.version}")
        return (f"{self.out}: suite {self.spec.name} {self.spec.version} is identical to its "
                f"regeneration ({len(self.spec.tasks)} instances, {self.files} files)")


def verify_suite(directory: str | os.PathLike, jobs: int = 1,
                 executor: Executor | None = None, force: bool = False,
                 solving: Solving | None = None) -> Verified:
    """Regenerate every file of a published suite from its ``suite.toml`` and compare.
    ``force`` and ``solving`` as for publish (a suite beyond the size thresholds; the solvers
    a family may ask for)."""
    out = Path(directory)
    if not out.is_dir():
        raise UserError(f"{out} is not a folder")
    spec_file = out / SPEC_FILE
    if not os.path.lexists(spec_file):
        raise UserError(f"{out} holds no {SPEC_FILE}: not a published suite")
    spec = parse_spec(read_suite_file(spec_file), str(spec_file), force=force, base=out,
                      published=True)
    check_sizes(spec, force)
    own = executor is None
    executor = local_executor(jobs) if own else executor
    try:
        return _verify(spec, out, executor, solving)
    finally:
        if own and executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


def _build_for_verify(task: Task, root: str, solving: Solving | None) -> Built:
    try:
        return build_task(task, keep_text=True, root=root, solving=solving)
    except UserError as exc:
        raise UserError(f"[[group]] {task.group}, instance {task.name}: {exc}") from None


def _verify(spec: Spec, out: Path, executor: Executor | None,
            solving: Solving | None) -> Verified:
    rows: list[dict] = [{}] * len(spec.tasks)
    found: list[list[str]] = [[] for _ in spec.tasks]
    root = str(out.resolve())
    calls = [(t, root, solving) for t in spec.tasks]
    for index, result in run_tasks(_build_for_verify, calls, executor):
        task = spec.tasks[index]
        rows[index] = manifest_row(spec, task, result, result.data)
        found[index] = (compare_instance(out, task.file, result)
                        + compare_file(out, task.witness_file, result.witness))
    differences = [line for lines in found for line in lines]
    files = suite_files(spec, rows, calibration_files(out), solving)
    for rel, data in files.items():
        differences += compare_file(out, rel, data)
    wanted = {t.file for t in spec.tasks} | {r["witness"] for r in rows if r["witness"]}
    for sub in (INSTANCES, WITNESSES):
        if (out / sub).exists() and not (out / sub).is_dir():
            differences.append(f"{sub}: not a folder")
    differences += [f"{rel}: not part of the suite" for rel in foreign_files(out)
                    if rel not in wanted and rel not in files]
    return Verified(out, spec, len(files) + len(wanted), differences)


def foreign_files(out: Path) -> list[str]:
    """Candidates for 'not part of the suite': everything in instances/, witnesses/ and
    inputs/ (hidden files too), and a killed run's ``.part`` files at the top."""
    found = [rel for rel in listed_files(out) if rel not in (INSTANCES, WITNESSES)]
    if (out / INPUTS).is_dir():
        found += [f"{INPUTS}/{p.name}" for p in (out / INPUTS).iterdir()]
    found += [p.name for p in out.glob(".*.part")]
    return sorted(found)


def compare_instance(out: Path, rel: str, result: Built) -> list[str]:
    """Differences between a published instance file and its regeneration, most telling
    first: GBD hash (the clauses), then the header, then the compressed bytes."""
    data = _published(out, rel)
    if isinstance(data, list):
        return data
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
    head, regenerated = _head_lines(text), _head_lines(result.text or b"")
    lines += [f"{rel}: header line {a!r} differs from regenerated {b!r}"
              for a, b in itertools.zip_longest(head, regenerated, fillvalue="") if a != b]
    return lines or [f"{rel}: bytes differ from the regeneration"]


def _published(out: Path, rel: str) -> bytes | list[str]:
    """A published file's bytes, or the difference to report: missing, or not a regular file
    (a FIFO would block, a symlink leads elsewhere)."""
    if not os.path.lexists(out / rel):
        return [f"{rel}: missing"]
    try:
        return read_suite_file(out / rel)
    except UserError as exc:
        return [f"{rel}: cannot read ({str(exc).rpartition(': ')[2]})"]


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
        try:
            return [f"{rel}: not part of the suite"] if path.exists() else []
        except OSError:
            return []
    data = _published(out, rel)
    if isinstance(data, list):
        return data
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


"""The Model Counting Competition's bundle of a published counting suite.

The competition asks for the instances as ``.cnf.bz2`` files in one tar, a description of at
most two pages, and optionally ``counts.txt`` (the known counts) and ``checksums.txt`` (sha256
of the uncompressed files). Every instance must be a counting instance (``count = true`` in its
group) whose count is certified: the header's count is counted again from its puzzle (the
judge's :func:`~puzzlesat.validate.tracks.mc.judge.open_case`), never copied. The bundle
(:mod:`puzzlesat.validate.runs.bundle`) is a folder holding ``instances/<name>.cnf.bz2``,
``counts.txt``, ``checksums.txt``, ``description.tex/.md`` (a counting suite's: what each
count counts, how it is certified, the counts beside the model counters' times when the suite
is calibrated with them), the calibration plots it includes and ``CITATION.cff``, and beside
it ``<folder>.tar`` (the instances are compressed already).
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import compress
from puzzlesat.generator.core.reader import parse_dimacs
from puzzlesat.generator.suite.folder import ManifestRow
from puzzlesat.validate.runs.bundle import (
    BUNDLE_COPIES,
    duplicates,
    instance_text,
    no_margin,
    suite_copies,
    tar_bytes,
    write_bundle,
)
from puzzlesat.validate.runs.records import CalibrationRow
from puzzlesat.validate.tracks import JudgeOptions
from puzzlesat.validate.tracks.mc.judge import case_of
from puzzlesat.validate.verdict import FAILED

#: whether the bundle needs the suite's calibration: every count is certified without it; its counters' runs are checked when there
CALIBRATED = False
#: calibrate --recheck's instances: none, the rules have no speed margin
to_recheck = no_margin

@dataclass
class CountedInstance:
    name: str
    text: bytes  # the uncompressed DIMACS
    track: str
    count: int | None
    source: str
    runs: list[str] = field(default_factory=list)  # the counters' calibration runs on it


@dataclass
class McCheck:
    instances: list[CountedInstance] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One line per instance: name, track, certified count and how it is known, and the
        model counters' calibration runs on it."""
        return [f"{i.name}: {i.track} {'unknown' if i.count is None else i.count} ({i.source})"
                + "".join(f"; {run}" for run in i.runs) for i in self.instances]


def bundle_name(rel) -> bool:
    """Whether ``rel`` is a name this tool writes in a counting bundle folder."""
    return isinstance(rel, str) and (
        rel in ("counts.txt", "checksums.txt", *BUNDLE_COPIES)
        or re.fullmatch(r"instances/[A-Za-z0-9][A-Za-z0-9._-]{0,199}\.cnf\.bz2"
                        r"|calibration-[A-Za-z0-9._-]+\.png", rel) is not None)


def check(src: Path, rows: list[ManifestRow], runs: list[CalibrationRow], rules=None,
          solving=None, author: str = "") -> McCheck:
    """Every instance read (bounded), its projection and certified count checked; a failure
    per instance that is not a counting instance or has no certified count, per instance
    whose clauses an earlier one has, and per model counter's count the calibration found
    wrong or malformed (a certified count and a counter that disagree: one of them is
    wrong). ``solving``: what a count by certified enumeration runs (``rules``: none)."""
    done = McCheck()
    options = JudgeOptions(solving=solving)
    for row in rows:
        text = instance_text(src, row)
        try:
            case = case_of(parse_dimacs(text, row.file), row.file, options)
        except UserError as exc:
            done.failures.append(f"{row.name}: {exc}")
            continue
        mine = [run for run in runs if run.hash == row.hash and run.track == "mc"]
        done.instances.append(CountedInstance(
            row.name, text, case.projection.type, case.certified, case.source,
            [f"{run.solver} {run.cell()} {run.verdict}" for run in mine]))
        done.failures += [f"{row.name}: {run.solver} {run.verdict} in the calibration "
                          f"({run.reason})" for run in mine if run.verdict in FAILED]
        if case.certified is None:
            done.failures.append(f"{row.name}: no certified count ({case.source})")
    done.failures += [f"{name}: the same clauses (GBD hash) as an earlier instance"
                      for name in duplicates(rows)]
    if not rows:
        done.failures.append("the suite has no instances")
    return done


def write(src: Path, output: str | os.PathLike | None, done: McCheck) -> Path:
    """Write the bundle of a check that holds (see the module docstring); the tar's path."""
    if done.failures:
        raise UserError("the submission rules do not hold: " + "; ".join(done.failures))
    files: dict[str, bytes] = {}
    counts, sums = [], []
    for inst in done.instances:
        files[f"instances/{inst.name}.cnf.bz2"] = compress(inst.text, "bz2")
        counts.append(f"{inst.name}.cnf {inst.count}\n")
        sums.append(f"{hashlib.sha256(inst.text).hexdigest()}  {inst.name}.cnf\n")
    files["counts.txt"] = "".join(counts).encode()
    files["checksums.txt"] = "".join(sums).encode()
    files.update(suite_copies(src, bundle_name))
    return write_bundle(src, output, files, bundle_name, suffix=".tar",
                        archive_of=lambda top: tar_bytes(top, files))

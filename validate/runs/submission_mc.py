"""A Model Counting Competition benchmark submission from a published counting suite
(``submission --track mc``).

The competition asks for the instances as ``.cnf.bz2`` files in one tar, a description of at
most two pages, and optionally ``counts.txt`` (the known counts) and ``checksums.txt`` (sha256
of the uncompressed files). Every instance must be a counting instance (``count = true`` in its
group) whose count is certified: the header's count is counted again from its puzzle
(:func:`~puzzlesat.validate.count.certified_count`), never copied. The bundle is written like
the SAT one (:func:`~puzzlesat.validate.runs.submission.write_bundle`): a folder holding
``instances/<name>.cnf.bz2``, ``counts.txt``, ``checksums.txt``, ``description.tex/.md``
(a counting suite's: what each count counts, how it is certified, the counts beside the model
counters' times when the suite is calibrated with them), the calibration plots it includes
and ``CITATION.cff``, and beside it ``<folder>.tar`` (the instances are compressed already).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import compress
from puzzlesat.generator.core.inputs import decompress
from puzzlesat.generator.core.reader import parse_dimacs
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.suite.calibration import CALIBRATION_FILE
from puzzlesat.generator.suite.spec import read_published
from puzzlesat.validate.count import certified_count
from puzzlesat.validate.report import FAILED
from puzzlesat.validate.runs.calibrate import read_trusted_calibration
from puzzlesat.validate.runs.counters import COUNTERS
from puzzlesat.validate.runs.submission import (
    bundle_name,
    instance_rows,
    suite_copies,
    tar_bytes,
    write_bundle,
)


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


def check_mc_submission(directory: str | os.PathLike,
                        solving: Solving | None = None) -> McCheck:
    """Every instance of the published suite read, its projection and certified count checked;
    a failure per instance that is not a counting instance or has no certified count, per
    GBD hash that occurs twice, and per model counter's count the calibration found wrong or
    malformed (a certified count and a counter that disagree: one of them is wrong)."""
    src = Path(directory)
    _, manifest = read_published(src)
    check = McCheck()
    calibration = read_trusted_calibration(src) if os.path.lexists(src / CALIBRATION_FILE) else []
    counted = [run for run in calibration if run.solver in COUNTERS]
    seen: dict[str, str] = {}
    for row in instance_rows(src, manifest):
        text = decompress((src / row.file).read_bytes(), row.file)
        dimacs = parse_dimacs(text, row.file)
        try:
            projection, count, source = certified_count(dimacs, row.file, solving)
        except UserError as exc:
            check.failures.append(f"{row.name}: {exc}")
            continue
        runs = [run for run in counted if run.hash == row.hash]
        check.instances.append(CountedInstance(row.name, text, projection.track, count,
                                               source, [f"{run.solver} {run.cell()} {run.verdict}"
                                                        for run in runs]))
        check.failures += [f"{row.name}: {run.solver} {run.verdict} in the calibration "
                           f"({run.reason})" for run in runs if run.verdict in FAILED]
        if count is None:
            check.failures.append(f"{row.name}: no certified count ({source})")
        if dimacs.gbd_hash in seen:
            check.failures.append(f"{row.name}: the same clauses as {seen[dimacs.gbd_hash]} "
                                  f"(GBD hash {dimacs.gbd_hash})")
        seen.setdefault(dimacs.gbd_hash, row.name)
    if not check.instances and not check.failures:
        check.failures.append("the suite has no instances")
    return check


def build_mc_bundle(directory: str | os.PathLike, output: str | os.PathLike | None,
                    check: McCheck) -> Path:
    """Write the bundle (see the module docstring); returns the tar's path."""
    if check.failures:
        raise UserError("the submission rules do not hold: " + "; ".join(check.failures))
    src = Path(directory)
    files: dict[str, bytes] = {}
    counts, sums = [], []
    for inst in check.instances:
        files[f"instances/{inst.name}.cnf.bz2"] = compress(inst.text, "bz2")
        counts.append(f"{inst.name}.cnf {inst.count}\n")
        sums.append(f"{hashlib.sha256(inst.text).hexdigest()}  {inst.name}.cnf\n")
    files["counts.txt"] = "".join(counts).encode()
    files["checksums.txt"] = "".join(sums).encode()
    files.update(suite_copies(src, bundle_name))
    return write_bundle(src, output, files, suffix=".tar",
                        archive_of=lambda top: tar_bytes(top, files))

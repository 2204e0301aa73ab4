"""The calibration files of a published suite: their names, the table's columns, its writer,
and which of them a republish keeps.

``puzzlesat calibrate`` (validate/calibrate.py) measures and writes them; publish and verify
take them as inputs (measurements are not regenerable, like suite.toml): listed in SHA256SUMS
and summarised in manifest.json. This module is the one place that knows their shape, so both
halves of the project read and write them alike without the generator importing the validator.
The checked reader of the table (:func:`puzzlesat.validate.calibrate.read_calibration`) stays
with the validator: its row checks are the validator's vocabulary (statuses, verdicts).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from puzzlesat.generator.core.paths import is_regular_file
from puzzlesat.generator.suite.folder import read_suite_file, read_table

#: the table written by ``puzzlesat calibrate``: one row per (instance, solver) run
CALIBRATION_FILE = "calibration.csv"
#: the plots drawn beside it, ``calibration-<family>.png`` and ``.svg``
CALIBRATION_PLOTS = "calibration-*"
#: what one run gives: the columns a solver's run fills in
RESULT_COLUMNS = ("status", "seconds", "verdict", "reason")
#: the table's columns, in order
COLUMNS = ("hash", "name", "file", "family", "hardness-param", "hardness", "expected",
           "solver", "time-limit", *RESULT_COLUMNS)


def table_csv(rows: list[dict], columns=COLUMNS) -> bytes:
    """A calibration table's bytes: a header of ``columns``, then ``rows``, in that order."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue().encode()


def calibration_files(out: Path) -> dict[str, bytes]:
    """The calibration table and plots present in a published folder, by relative path:
    regular files only (a symlink to a file elsewhere is not the suite's)."""
    names = sorted({CALIBRATION_FILE, *(p.name for p in out.glob(CALIBRATION_PLOTS))})
    return {name: read_suite_file(out / name) for name in names
            if is_regular_file(out / name)}


def kept_calibration(out: Path, rows: list[dict]) -> tuple[dict[str, bytes], list[str]]:
    """The calibration files still true of the suite now published as ``rows``, and the ones
    to remove once it stands. A table row is kept while an instance of that name has that GBD
    hash (same clauses: its measurement still applies; ``file`` follows the manifest). When a
    row goes, the plots (drawn by ``puzzlesat calibrate``, which draws them again) go too, and
    the table when it is empty."""
    files = calibration_files(out)
    if CALIBRATION_FILE not in files:
        return files, []
    old, columns = read_table(out / CALIBRATION_FILE, ("name", "hash", "file"))
    published = {(row["name"], row["hash"]): row["file"] for row in rows}
    kept = [dict(row, file=published[key]) for row in old
            if (key := (row["name"], row["hash"])) in published]
    dropped = []
    if len(kept) < len(old):
        dropped = [name for name in files if name != CALIBRATION_FILE]
    if not kept:
        dropped.append(CALIBRATION_FILE)
    elif kept != old:
        files[CALIBRATION_FILE] = table_csv(kept, columns)
    return {k: v for k, v in files.items() if k not in dropped}, dropped

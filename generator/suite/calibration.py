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

import os
from pathlib import Path

from puzzlesat.generator.core.paths import is_regular_file
from puzzlesat.generator.suite.folder import read_suite_file, read_table, table_bytes

#: the table written by ``puzzlesat calibrate``: one row per (instance, solver) run
CALIBRATION_FILE = "calibration.csv"
#: the plots drawn beside it, ``calibration-<family>.png`` and ``.svg``
CALIBRATION_PLOTS = "calibration-*"
#: the instance columns of the table: what it is, its track, its hardness, its known result
INSTANCE_COLUMNS = ("hash", "name", "file", "family", "track", "hardness-param", "hardness",
                    "expected")
#: the table's columns, in order: the instance, the solver and its CPU time limit, then
#: what the run gave (CPU seconds, wall seconds beside them, what ended the run, the
#: track judge's verdict), the machine it ran on (CPU model and cores, load at the start)
#: and that machine's speed index for the solver with the run's reference seconds (the CPU
#: seconds on the reference machine: :mod:`puzzlesat.validate.runs.speed`)
COLUMNS = (*INSTANCE_COLUMNS, "solver", "time-limit", "status", "cpu-seconds",
           "wall-seconds", "ended-by", "verdict", "reason", "machine", "load", "speed-index",
           "reference-seconds")
#: the columns a table may lack, written before they were (its rows take their default)
LATER_COLUMNS = ("track", "speed-index", "reference-seconds")
#: the wall-clock seconds column of tables written before runs were timed in CPU seconds
OLD_SECONDS = "seconds"
#: the columns every table has, old or new
KEY_COLUMNS = ("hash", "name", "file", "family", "hardness-param", "hardness", "expected",
               "solver", "time-limit", "status", "verdict", "reason")


def calibration_files(out: Path) -> dict[str, bytes]:
    """The calibration table and plots present in a published folder, by relative path:
    regular files only (a symlink to a file elsewhere is not the suite's)."""
    names = sorted({CALIBRATION_FILE, *(p.name for p in out.glob(CALIBRATION_PLOTS))})
    return {name: read_suite_file(out / name) for name in names
            if is_regular_file(out / name)}


def spec_table(spec_path: str | os.PathLike) -> tuple[Path, bytes] | None:
    """The calibration table shipped beside a spec (``<spec>.calibration.csv``: the
    measurements of the instances the spec builds), or None."""
    path = Path(spec_path).with_suffix(".calibration.csv")
    if not path.is_file() or path.is_symlink():
        return None
    return path, read_suite_file(path)


def kept_calibration(out: Path, rows: list[dict], shipped: tuple[Path, bytes] | None = None
                     ) -> tuple[dict[str, bytes], list[str], list[str]]:
    """The calibration files still true of the suite now published as ``rows``, the ones to
    remove once it stands, and notes. A table row is kept while an instance of that name has
    that GBD hash (same clauses: its measurement still applies; ``file`` follows the
    manifest). When a row goes, the plots (drawn by ``puzzlesat calibrate``, which draws them
    again) go too, and the table when it is empty. A folder without a table of its own takes
    the table ``shipped`` beside the spec (:func:`spec_table`), its rows that name other
    instances dropped and named in a note."""
    files = calibration_files(out)
    notes: list[str] = []
    if CALIBRATION_FILE not in files and shipped is not None:
        path, data = shipped
        old, columns = read_table(path, ("name", "hash", "file"), data)
        kept, others = _matching(old, rows)
        if others:
            notes.append(f"{path}: {len(others)} rows name instances this spec does not build "
                         f"(not taken): {', '.join(others[:5])}"
                         + (f" and {len(others) - 5} more" if len(others) > 5 else ""))
        if kept:
            notes.append(f"calibration: {len(kept)} rows taken from {path}")
            files[CALIBRATION_FILE] = table_bytes(columns, kept)
        return files, [], notes
    if CALIBRATION_FILE not in files:
        return files, [], notes
    old, columns = read_table(out / CALIBRATION_FILE, ("name", "hash", "file"))
    kept, _ = _matching(old, rows)
    dropped = []
    if len(kept) < len(old):
        dropped = [name for name in files if name != CALIBRATION_FILE]
    if not kept:
        dropped.append(CALIBRATION_FILE)
    elif kept != old:
        files[CALIBRATION_FILE] = table_bytes(columns, kept)
    return {k: v for k, v in files.items() if k not in dropped}, dropped, notes


def _matching(table: list[dict], rows: list[dict]) -> tuple[list[dict], list[str]]:
    """The table rows whose (name, GBD hash) is a published instance's, ``file`` set to its,
    and the names of the others."""
    published = {(row["name"], row["hash"]): row["file"] for row in rows}
    kept = [dict(row, file=published[key]) for row in table
            if (key := (row["name"], row["hash"])) in published]
    others = [row["name"] for row in table if (row["name"], row["hash"]) not in published]
    return kept, list(dict.fromkeys(others))

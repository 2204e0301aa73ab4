"""``submission``: a published suite's competition bundle, by its track (the SAT Competition's,
the Model Counting Competition's, the MaxSAT Evaluation's): the suite read as a hostile place
(:mod:`puzzlesat.validate.runs.bundle`), its calibration trusted only as SHA256SUMS and the
manifest record it, the track's rules checked, and its bundle written when they hold."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.suite.calibration import CALIBRATION_FILE
from puzzlesat.generator.suite.spec import read_published
from puzzlesat.validate.campaigns.calibrate import read_trusted_calibration
from puzzlesat.validate.runs.bundle import instance_rows
from puzzlesat.validate.runs.certify import CheckedSolving
from puzzlesat.validate.tracks import TRACKS, Track, get_track


def check_submission(directory: str | os.PathLike, track: str | None = None,
                     rules: Any = None) -> tuple[Track, Any]:
    """(the suite's track, its check: ``lines()`` to show and ``failures``, one per broken
    rule). ``track`` must be the track of every instance (default: the one they share);
    ``rules`` are the SAT Competition's thresholds (other tracks have none)."""
    src = Path(directory)
    spec, manifest = read_published(src)
    rows = instance_rows(src, manifest)
    held = [name for name in TRACKS if any(row.track == name for row in rows)]
    if track is None and len(held) > 1:
        raise UserError(f"{src} holds instances of the tracks {', '.join(held)}: name the "
                        f"bundle's with --track")
    chosen = get_track(track or held[0])  # a published suite has instances
    others = [row for row in rows if row.track != chosen.name]
    if others:
        raise UserError(f"{src}: {len(others)} instance(s) are not {chosen.name} instances "
                        f"(e.g. {others[0].name}, a {others[0].track} one): the {chosen.name} "
                        f"bundle takes a suite of its instances alone")
    by_hash = {row.hash: row.track for row in rows}
    runs = [dataclasses.replace(run, track=run.track or by_hash.get(run.hash, ""))
            for run in (read_trusted_calibration(src) if chosen.bundle.CALIBRATED
                        or os.path.lexists(src / CALIBRATION_FILE) else [])]
    return chosen, chosen.bundle.check(src, rows, runs, rules=rules, solving=CheckedSolving(),
                                       author=spec.author)


def write_submission(directory: str | os.PathLike, output: str | os.PathLike | None,
                     track: Track, check: Any) -> Path:
    """Write the bundle of a check whose rules hold; the archive's path."""
    return track.bundle.write(Path(directory), output, check)

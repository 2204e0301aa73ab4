"""One suite task built in a worker: pure, picklable, no file access. Publish and verify both
build through :func:`build_task`, so they cannot disagree about an instance's bytes."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from puzzlesat.generator.core.files import compress
from puzzlesat.generator.core.header import canonical_json
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.core.writer import gbd_hash_of_body
from puzzlesat.generator.families import get_family
from puzzlesat.generator.instance import build_checked
from puzzlesat.generator.suite.spec import Task
from puzzlesat.generator.tracks import get_track


@dataclass(frozen=True)
class Built:
    """What a worker returns for one task: the published bytes and the manifest facts."""

    data: bytes | None  # compressed file; None when the caller's copy was found identical
    text_sha256: str  # of the uncompressed text
    text: bytes | None  # the text (only when asked for, e.g. by verify)
    witness: bytes | None
    gbd_hash: str
    variables: int
    clauses: int
    expected: str
    expected_from: str
    certified: dict = field(default_factory=dict)  # the header lines the track adds


def build_task(task: Task, reuse_text_sha256: str | None = None, keep_text: bool = False,
               root: str | None = None, solving: Solving | None = None) -> Built:
    """Build, render and compress one instance. When ``reuse_text_sha256`` equals the sha256
    of the regenerated text, compression (the expensive part) is skipped. ``root`` is the
    suite folder its ``inputs/`` files are read from; ``solving`` runs the solvers a family
    may ask for (:func:`puzzlesat.generator.instance.build`). Sizes were checked (with the
    user's ``--force``) before any task was handed out: :func:`.publish.check_sizes`. The
    GBD hash is the md5 of the clause lines' tokens joined by single spaces (a WCNF's ``h``
    and weights included)."""
    track = get_track(task.track)
    inst = build_checked(get_family(task.family), task.params, task.encoding, task.seed,
                         task.name, solving, root, track)
    header = inst.header()
    body = track.body(inst.formula)
    text = track.head(inst.formula, header) + body
    text_sha256 = hashlib.sha256(text).hexdigest()
    kind = None if task.compression == "none" else task.compression
    solution = inst.witness_json()
    witness = None if solution is None else (canonical_json(solution) + "\n").encode()
    variables, clauses = track.sizes(inst.formula)
    return Built(None if reuse_text_sha256 == text_sha256 else compress(text, kind),
                 text_sha256, text if keep_text else None, witness, gbd_hash_of_body(body),
                 variables, clauses, inst.expected, inst.expected_from, inst.made.header)

"""One suite task built in a worker: pure, picklable, no file access. Publish and verify both
build through :func:`build_task`, so they cannot disagree about an instance's bytes."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from puzzlesat.generator.core.files import compress
from puzzlesat.generator.core.header import canonical_json
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.core.wcnf import wcnf_clause_bytes, wcnf_head
from puzzlesat.generator.core.writer import clause_bytes, dimacs_head, gbd_hash_of_body
from puzzlesat.generator.families import get_family
from puzzlesat.generator.instance import Instance, build_checked
from puzzlesat.generator.maxsat import WcnfInstance, build_wcnf
from puzzlesat.generator.suite.spec import Task


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
    optimum: str | None = None  # a WCNF instance's certified optimum ("unknown" if none)
    count: str | None = None  # a counting instance's known count ("unknown" if none)
    count_from: str | None = None  # how that count is known


def build_task(task: Task, reuse_text_sha256: str | None = None, keep_text: bool = False,
               root: str | None = None, solving: Solving | None = None) -> Built:
    """Build, render and compress one instance. When ``reuse_text_sha256`` equals the sha256
    of the regenerated text, compression (the expensive part) is skipped. ``root`` is the
    suite folder its ``inputs/`` files are read from; ``solving`` runs the solvers a family
    may ask for (:func:`puzzlesat.generator.instance.build`). Sizes were checked (with the
    user's ``--force``) before any task was handed out: :func:`.publish.check_sizes`. A WCNF task's
    "GBD hash" is the md5 of its clause tokens (``h`` and weights included) joined by single
    spaces, as GBD hashes DIMACS."""
    inst: WcnfInstance | Instance
    if task.format == "wcnf":
        inst = maxsat = build_wcnf(task.family, task.params, task.encoding, task.seed,
                                   task.name, files_root=root)
        header = maxsat.header()
        body = wcnf_clause_bytes(maxsat.wcnf)
        head = wcnf_head(header)
        facts = (maxsat.wcnf.num_vars, maxsat.wcnf.hard.num_clauses + maxsat.wcnf.num_soft,
                 header["expected"], header["optimum-from"], header["optimum"], None, None)
    else:
        inst = sat = build_checked(get_family(task.family), task.params, task.encoding,
                                   task.seed, task.name, solving, root, task.count)
        header = sat.header()
        body = clause_bytes(sat.formula)
        head = dimacs_head(sat.formula, header)
        facts = (sat.formula.num_vars, sat.formula.num_clauses, sat.expected,
                 sat.expected_from, None, header.get("count"), header.get("count-from"))
    text = head + body
    text_sha256 = hashlib.sha256(text).hexdigest()
    kind = None if task.compression == "none" else task.compression
    solution = inst.witness_json()
    witness = None if solution is None else (canonical_json(solution) + "\n").encode()
    return Built(None if reuse_text_sha256 == text_sha256 else compress(text, kind),
                 text_sha256, text if keep_text else None, witness, gbd_hash_of_body(body),
                 *facts)

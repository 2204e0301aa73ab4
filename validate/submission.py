"""The SAT Competition "bring your own benchmarks" rules, checked on a calibrated suite, and
the submission bundle.

The rules (SAT Competition call for benchmarks, "bring your own benchmarks"): a team
brings 20 new instances; at least 10 of them must not be solved by MiniSat within a minute;
none may be unsolvable by the team's own solver within an hour. Each instance's result is
listed (sat/unsat/unknown); we also demand it be known — planted SAT, UNSAT by construction
(an optimal trace) — or certified by a validated answer, and that no calibration run gave a
wrong answer. Every threshold is a :class:`Rules` field so tests can scale them down.

A bundle is written only when every rule holds: a folder with ``instances/<gbd-hash>.cnf.xz``,
``metadata.csv`` (hash, author, family, result), ``description.tex``/``.md`` and
``CITATION.cff`` from the suite, plus the same as a ``.tar.xz`` whose bytes depend only on the
contents (sorted members, fixed mtime, uid/gid 0, no user names, xz preset 6).
"""

from __future__ import annotations

import csv
import io
import lzma
import os
import shutil
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from puzzlesat.generator.core.dimacs import atomic_write, compress, decompress
from puzzlesat.generator.core.errors import UserError
from puzzlesat.validate.calibrate import _read_suite, read_calibration
from puzzlesat.validate.report import FAILED
from puzzlesat.validate.runner import solver_name

METADATA_COLUMNS = ("hash", "author", "family", "result")
BUNDLE_COPIES = ("description.tex", "description.md", "CITATION.cff")
#: the tar members' modification time (1 January 2000, UTC): fixed, so the archive's bytes
#: depend only on its contents
TAR_MTIME = 946684800


@dataclass(frozen=True)
class Rules:
    count: int = 20
    min_hard: int = 10
    minisat: str = "minisat22"
    minisat_limit: float = 60.0
    reference: str = "cadical195"
    time_limit: float = 3600.0


@dataclass
class InstanceCheck:
    hash: str
    name: str
    family: str
    result: str  # sat / unsat / unknown: the manifest's, else a verified calibration answer
    minisat: str  # e.g. "UNKNOWN 60.0s" or "-" when not calibrated
    hard: bool | None  # not solved by MiniSat within its limit; None = not measured enough
    reference: str
    solved: bool  # by the reference solver within the limit, answer not wrong
    wrong: list[str] = field(default_factory=list)  # solvers whose answer was wrong

    def line(self) -> str:
        hard = {True: "hard", False: "easy", None: "hard?"}[self.hard]
        ok = "solved" if self.solved else "NOT SOLVED"
        wrong = f" WRONG by {','.join(self.wrong)}" if self.wrong else ""
        return (f"{self.hash}  {self.family:<14} {self.result:<7} minisat {self.minisat:<14} "
                f"{hard:<5}  reference {self.reference:<14} {ok}{wrong}  {self.name}")


@dataclass
class SubmissionCheck:
    instances: list[InstanceCheck]
    failures: list[str]  # one line per broken rule; empty = the rules hold


def check_submission(directory: str | os.PathLike, rules: Rules = Rules()) -> SubmissionCheck:
    """Apply the rules to the calibration of the published suite ``directory``."""
    _, instances = _read_suite(Path(directory))
    runs = read_calibration(directory)
    minisat, reference = solver_name(rules.minisat), solver_name(rules.reference)
    checks = [_check_instance(row, [r for r in runs if r["hash"] == row["hash"]],
                              minisat, reference, rules) for row in instances]
    return SubmissionCheck(checks, _failures(checks, rules, minisat, reference))


def _check_instance(row: dict, runs: list[dict], minisat: str, reference: str,
                    rules: Rules) -> InstanceCheck:
    by_solver = {r["solver"]: r for r in runs}
    mini, ref = by_solver.get(minisat), by_solver.get(reference)
    return InstanceCheck(
        row["hash"], row["name"], row["family"], _result(row, runs), _cell(mini),
        _hard(mini, rules.minisat_limit), _cell(ref),
        ref is not None and ref["status"] != "UNKNOWN" and ref["verdict"] not in FAILED
        and ref["seconds"] <= rules.time_limit,
        [r["solver"] for r in runs if r["verdict"] in FAILED])


def _result(row: dict, runs: list[dict]) -> str:
    if row["result"] in ("sat", "unsat"):
        return row["result"]
    for run in runs:
        if run["verdict"] == "VERIFIED-SAT":
            return "sat"
        if run["verdict"] == "VERIFIED-UNSAT":
            return "unsat"
    return "unknown"


def _hard(run: dict | None, limit: float) -> bool | None:
    """Not solved within ``limit`` (True), solved within it (False), or not known: no run, or
    a run stopped before reaching ``limit``."""
    if run is None:
        return None
    if run["status"] != "UNKNOWN":
        return run["seconds"] > limit
    return True if run["time-limit"] >= limit else None


def _cell(run: dict | None) -> str:
    return "-" if run is None else f"{run['status']} {run['seconds']:.2f}s"


def _failures(checks: list[InstanceCheck], rules: Rules, minisat: str,
              reference: str) -> list[str]:
    failures = []
    if len(checks) != rules.count:
        failures.append(f"rule: a submission is exactly {rules.count} new instances; the suite "
                        f"has {len(checks)}")
    hard = sum(1 for c in checks if c.hard)
    if hard < rules.min_hard:
        unmeasured = sum(1 for c in checks if c.hard is None)
        more = (f" ({unmeasured} not measured up to {rules.minisat_limit:g} s: calibrate with "
                f"--time-limit {rules.minisat_limit:g})" if unmeasured else "")
        failures.append(f"rule: at least {rules.min_hard} instances not solved by {minisat} "
                        f"within {rules.minisat_limit:g} s; only {hard} are{more}")
    unsolved = [c.name for c in checks if not c.solved]
    if unsolved:
        failures.append(f"rule: every instance solved by {reference} within "
                        f"{rules.time_limit:g} s; not solved: {_names(unsolved)}")
    unknown = [c.name for c in checks if c.result == "unknown"]
    if unknown:
        failures.append(f"rule: every result known or certified; unknown: {_names(unknown)}")
    wrong = [c.name for c in checks if c.wrong]
    if wrong:
        failures.append(f"rule: no wrong answers in the calibration; wrong on: {_names(wrong)}")
    hashes = [c.hash for c in checks]
    duplicates = sorted({h for h in hashes if hashes.count(h) > 1})
    if duplicates:
        failures.append(f"rule: instances must differ; same GBD hash twice: {_names(duplicates)}")
    return failures


def _names(names: list[str], shown: int = 5) -> str:
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


# -- the bundle -------------------------------------------------------------------------------
def build_bundle(directory: str | os.PathLike, output: str | os.PathLike,
                 check: SubmissionCheck) -> Path:
    """Write the bundle folder ``output`` and ``output.tar.xz``; returns the archive's path."""
    if check.failures:
        raise UserError("the submission rules do not hold: " + "; ".join(check.failures))
    src, out = Path(directory), Path(output)
    spec, instances = _read_suite(src)
    files = bundle_files(src, spec.author, instances, check)
    if out.exists():
        if not (out / "metadata.csv").is_file():
            raise UserError(f"{out} exists and is not a submission bundle: refusing to replace it")
        shutil.rmtree(out)
    for rel, data in files.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        atomic_write(out / rel, data)
    archive = out.with_name(out.name + ".tar.xz")
    atomic_write(archive, tar_xz(out.name, files))
    return archive


def bundle_files(src: Path, author: str, instances: list[dict],
                 check: SubmissionCheck) -> dict[str, bytes]:
    """The bundle's files by relative path: instances as ``<hash>.cnf.xz`` (recompressed to
    xz when the suite used another compression), the metadata and the descriptions."""
    results = {c.hash: c.result for c in check.instances}
    files = {}
    for row in instances:
        data = (src / row["file"]).read_bytes()
        if not row["file"].endswith(".xz"):
            data = compress(decompress(data, row["file"]), "xz")
        files[f"instances/{row['hash']}.cnf.xz"] = data
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(METADATA_COLUMNS)
    for row in instances:
        writer.writerow([row["hash"], author, row["family"], results[row["hash"]]])
    files["metadata.csv"] = buffer.getvalue().encode()
    for name in BUNDLE_COPIES:
        if not (src / name).is_file():
            raise UserError(f"{src}: {name} is missing (run puzzlesat publish)")
        files[name] = (src / name).read_bytes()
    return files


def tar_xz(top: str, files: dict[str, bytes]) -> bytes:
    """A deterministic .tar.xz of ``files`` under folder ``top``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        folders = sorted({top} | {f"{top}/{Path(rel).parent}" for rel in files if "/" in rel})
        members = [(name, None) for name in folders]
        members += [(f"{top}/{rel}", files[rel]) for rel in files]
        for name, data in sorted(members):
            info = tarfile.TarInfo(name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = TAR_MTIME, 0, 0, "", ""
            if data is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
    return lzma.compress(buffer.getvalue(), preset=6)

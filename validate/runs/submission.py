"""The SAT Competition 2026 benchmark rules, checked on a calibrated suite, and the submission
bundle.

The rules (the 2026 call for benchmarks and its selection, ``benchmark-selection.tex``): a
team brings 20 new instances; instances MiniSat solves within a minute are removed from the
pool before selection, so they do not count, and at least 10 must count; no instance may be
unsolvable by the team's solver; near-duplicates are removed by gbdc's IsoHash2, grouped
across the whole submission, so the IsoHash2 values must all differ; the selection is balanced
between SAT and UNSAT, so the balance is reported, with how many instances the selection could
take (up to 12 of a participating author, up to 16 per family otherwise). An instance counts
when neither python-sat's MiniSat nor the standard MiniSat binary solves it within the
minute times a margin (``--margin``, default 2: 120 s of CPU), since the competition's
machines may be faster and its MiniSat build is not named, and the team's solver solves it
within its limit; every time is the solver's CPU time, and a table measured in wall-clock
seconds counts for nothing. We also demand every result be known (planted, an optimal trace, a certificate, or a
validated answer) and that no calibration run gave a wrong answer. Every threshold is a
:class:`Rules` field. The team's solver defaults to the Kissat 4.0.4 binary at 1000 s of CPU:
the limit a re-tuned suite is built to (``puzzlesat tune``), a fifth of the competition's
5000 s, so an instance solved here stays solved on a slower machine. The calibration table is
trusted only as SHA256SUMS and the manifest record it.

IsoHash2 needs gbdc (``pip install 'puzzlesat[competition]'``); without it that rule is
reported as not checked and the metadata's ``isohash2`` column is left empty.

A bundle is written only when every rule holds: a folder with ``instances/<gbd-hash>.cnf.xz``,
``metadata.csv`` (:data:`METADATA_COLUMNS`), ``description.tex``/``.md``, the hardness plots
it includes and ``CITATION.cff`` from the suite, plus the same as a ``.tar.xz`` whose bytes depend only on the contents (sorted
members, fixed mtime, uid/gid 0, no user names, xz preset 6). The folder holds a marker listing
exactly the files written; a later run replaces those files and nothing else, and refuses any
other existing folder, a symlink, the current folder, a folder holding the suite or the
current folder, and any folder inside the suite.
"""

from __future__ import annotations

import hashlib
import io
import json
import lzma
import math
import os
import re
import stat
import subprocess
import sys
import tarfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import atomic_write, compress
from puzzlesat.generator.core.inputs import decompress
from puzzlesat.generator.core.paths import file_under, is_regular_file, os_failure, plain_folder
from puzzlesat.generator.suite.folder import table_bytes
from puzzlesat.generator.suite.spec import read_published
from puzzlesat.validate.report import FAILED
from puzzlesat.validate.runs.calibrate import read_trusted_calibration
from puzzlesat.validate.runs.clients import canonical_name
from puzzlesat.validate.runs.records import CalibrationRow

METADATA_COLUMNS = ("hash", "author", "family", "result", "isohash2")
BUNDLE_COPIES = ("description.tex", "description.md", "CITATION.cff")
#: written into the bundle folder: the files this tool wrote there (and its archive's name)
MARKER = ".puzzlesat-submission"
#: the tar members' modification time (1 January 2000, UTC): fixed, so the archive's bytes
#: depend only on its contents
TAR_MTIME = 946684800


@dataclass(frozen=True)
class Rules:
    """The thresholds of the rules. An instance is hard when none of ``minisats`` solves it
    within ``minisat_limit`` times ``margin`` CPU seconds (the competition's machines may be
    faster, its MiniSat build is not named); it counts when it is hard and ``reference``
    solves it within ``time_limit`` CPU seconds."""

    count: int = 20
    min_hard: int = 10
    minisats: tuple[str, ...] = ("minisat22", "minisat-bin")
    minisat_limit: float = 60.0
    margin: float = 2.0
    reference: str = "kissat-bin"
    time_limit: float = 1000.0

    def __post_init__(self):
        if not (math.isfinite(self.margin) and self.margin >= 1):
            raise UserError(f"--margin must be a finite number >= 1 (the filter's limit is "
                            f"multiplied by it), got {self.margin:g}")
        if not self.minisats:
            raise UserError("--minisat: name at least one MiniSat")

    @property
    def hard_limit(self) -> float:
        """The CPU seconds no MiniSat may solve a hard instance within."""
        return self.minisat_limit * self.margin


@dataclass
class InstanceCheck:
    hash: str
    name: str
    family: str
    result: str  # sat / unsat / unknown: the manifest's, else a verified calibration answer
    minisat: str  # each MiniSat's run, e.g. "UNKNOWN 120.00s", "-" when not calibrated
    hard: bool | None  # no MiniSat solves it within the hard limit; None = not measured enough
    reference: str
    solved: bool  # by the reference solver within the limit, answer not wrong
    wrong: list[str] = field(default_factory=list)  # solvers whose answer was wrong
    isohash2: str = ""  # gbdc's IsoHash2; "" when gbdc is not installed

    @property
    def counts(self) -> bool:
        """Kept by the selection's first cut: no MiniSat solves it within the hard limit, the
        team's solver solves it within its own."""
        return bool(self.hard) and self.solved

    def line(self) -> str:
        """One line on the instance: solved, hard or easy, wrong answers."""
        hard = {True: "hard", False: "easy", None: "hard?"}[self.hard]
        ok = "solved" if self.solved else "NOT SOLVED"
        wrong = f" WRONG by {','.join(self.wrong)}" if self.wrong else ""
        return (f"{self.hash}  {self.family:<14} {self.result:<7} minisat {self.minisat:<30} "
                f"{hard:<5}  reference {self.reference:<14} {ok}{wrong}  {self.name}")


@dataclass
class SubmissionCheck:
    instances: list[InstanceCheck]
    failures: list[str]  # one line per broken rule; empty = the rules hold
    notes: list[str] = field(default_factory=list)  # counts, balance, what was not checked


def check_submission(directory: str | os.PathLike, rules: Rules = Rules()) -> SubmissionCheck:
    """Apply the rules to the calibration of the published suite ``directory`` (its table
    checked against SHA256SUMS and the manifest first), with the IsoHash2 of every instance
    file when gbdc is installed."""
    src = Path(directory)
    _, manifest = read_published(src)
    rows = manifest_rows(src, manifest)
    return check_instances(rows, read_trusted_calibration(src), rules, isohashes(src, rows))


def check_instances(rows: list[dict], runs: list[CalibrationRow], rules: Rules = Rules(),
                    isohash: dict[str, str] | None = None) -> SubmissionCheck:
    """The rules on instance rows (hash, name, family, result) and calibration runs;
    ``isohash`` maps GBD hash to IsoHash2, None when it could not be computed."""
    minisats = tuple(canonical_name(m) for m in rules.minisats)
    reference = canonical_name(rules.reference)
    checks = [_check_instance(row, [r for r in runs if r.hash == row["hash"]],
                              minisats, reference, rules) for row in rows]
    for check in checks:
        check.isohash2 = (isohash or {}).get(check.hash, "")
    return SubmissionCheck(checks, _failures(checks, rules, minisats, reference, isohash),
                           _notes(checks, rules, minisats, reference, isohash))


def _check_instance(row: dict, runs: list[CalibrationRow], minisats: tuple[str, ...],
                    reference: str, rules: Rules) -> InstanceCheck:
    by_solver = {r.solver: r for r in runs}
    ref = by_solver.get(reference)
    easy = [by_solver.get(m) for m in minisats]
    verdicts = [None if run is None else run.not_solved_within(rules.hard_limit)
                for run in easy]
    hard = False if False in verdicts else (True if all(verdicts) else None)
    return InstanceCheck(
        row["hash"], row["name"], row["family"], _result(row, runs),
        " / ".join(_cell(run) for run in easy), hard, _cell(ref),
        ref is not None and ref.solved and ref.cpu_seconds is not None
        and ref.cpu_seconds <= rules.time_limit,
        [r.solver for r in runs if r.verdict in FAILED])


def _result(row: dict, runs: list[CalibrationRow]) -> str:
    if row["result"] in ("sat", "unsat"):
        return row["result"]
    for run in runs:
        if run.verdict == "VERIFIED-SAT":
            return "sat"
        if run.verdict == "VERIFIED-UNSAT":
            return "unsat"
    return "unknown"


def _cell(run: CalibrationRow | None) -> str:
    return "-" if run is None else run.cell()


def _failures(checks: list[InstanceCheck], rules: Rules, minisats: tuple[str, ...],
              reference: str, isohash: dict | None) -> list[str]:
    failures = []
    names = " nor ".join(minisats)
    if len(checks) != rules.count:
        failures.append(f"rule: a submission is exactly {rules.count} new instances; the suite "
                        f"has {len(checks)}")
    counting = sum(1 for c in checks if c.counts)
    if counting < rules.min_hard:
        easy = sum(1 for c in checks if c.hard is False)
        unmeasured = sum(1 for c in checks if c.hard is None)
        why = [f"{easy} solved by a MiniSat within {rules.hard_limit:g} s do not count"] \
            if easy else []
        why += [f"{unmeasured} not measured in CPU seconds up to {rules.hard_limit:g} s by "
                f"each MiniSat: calibrate with --solvers "
                f"{','.join(f'{m}:{rules.hard_limit:g}' for m in minisats)}"] \
            if unmeasured else []
        more = f" ({'; '.join(why)})" if why else ""
        failures.append(f"rule: at least {rules.min_hard} instances solved by neither {names} "
                        f"within {rules.hard_limit:g} s of CPU ({rules.minisat_limit:g} s x "
                        f"margin {rules.margin:g}) and solved by {reference} within "
                        f"{rules.time_limit:g} s; only {counting} are{more}")
    unsolved = [c.name for c in checks if not c.solved]
    if unsolved:
        unmeasured = sum(1 for c in checks if c.reference == "-")
        more = (f" ({unmeasured} have no {reference} run: calibrate with --solvers "
                f"{reference}:{rules.time_limit:g})" if unmeasured else "")
        failures.append(f"rule: every instance solved by {reference} within "
                        f"{rules.time_limit:g} s of CPU; not solved: {_names(unsolved)}{more}")
    unknown = [c.name for c in checks if c.result == "unknown"]
    if unknown:
        failures.append(f"rule: every result known or certified; unknown: {_names(unknown)}")
    wrong = [c.name for c in checks if c.wrong]
    if wrong:
        failures.append(f"rule: no wrong answers in the calibration; wrong on: {_names(wrong)}")
    hashes = Counter(c.hash for c in checks)
    duplicates = sorted(h for h, n in hashes.items() if n > 1)
    if duplicates:
        failures.append(f"rule: instances must differ; same GBD hash twice: {_names(duplicates)}")
    if isohash is not None:
        same = Counter(c.isohash2 for c in checks)
        twins = [c.name for c in checks if same[c.isohash2] > 1]
        if twins:
            failures.append(f"rule: IsoHash2 distinct over the whole submission (the selection "
                            f"groups by it across families and keeps one of each); shared by: "
                            f"{_names(twins)}")
    return failures


#: the 2026 selection's caps on new instances: per participating author, and per family of
#: an author who does not participate
SELECTED_PER_PARTICIPANT, SELECTED_PER_FAMILY = 12, 16


def selection(checks: list[InstanceCheck]) -> tuple[int, int]:
    """How many instances the 2026 selection could take at most: (for a participating
    author, otherwise). Its pool: instances that count, one per IsoHash2 (every instance its
    own group when IsoHash2 is unknown); then up to 12 for a participating author, up to 16
    per family otherwise."""
    pool: dict[str, InstanceCheck] = {}
    for check in checks:
        if check.counts:
            pool.setdefault(check.isohash2 or check.hash, check)
    families = Counter(c.family for c in pool.values())
    return (min(SELECTED_PER_PARTICIPANT, len(pool)),
            sum(min(SELECTED_PER_FAMILY, n) for n in families.values()))


def _notes(checks: list[InstanceCheck], rules: Rules, minisats: tuple[str, ...],
           reference: str, isohash: dict | None) -> list[str]:
    counting = [c for c in checks if c.counts]
    participating, otherwise = selection(checks)
    notes = [f"count: {len(counting)} of {len(checks)} solved by neither "
             f"{' nor '.join(minisats)} within {rules.hard_limit:g} s of CPU and solved by "
             f"{reference} within {rules.time_limit:g} s",
             f"balance: {_balance(checks)} (counting: {_balance(counting)})",
             f"selection 2026: would take at most {participating} (a participating author: "
             f"{SELECTED_PER_PARTICIPANT} at most) or {otherwise} (otherwise: "
             f"{SELECTED_PER_FAMILY} per family at most) of the {len(counting)} that count"
             + ("" if isohash is not None else ", IsoHash2 groups unknown")]
    if any("old table" in c.minisat + c.reference for c in checks):
        notes.append("calibration: measured in wall-clock seconds (a table written before "
                     "CPU timing): its runs count for no rule; calibrate again")
    if isohash is None:
        notes.append("isohash2: NOT CHECKED: gbdc is not installed (pip install "
                     "'puzzlesat[competition]'); metadata.csv's isohash2 column is left empty")
    else:
        families = Counter(c.family for c in checks)
        notes.append(f"isohash2: {len({c.isohash2 for c in checks})} distinct of "
                     f"{len(checks)} in {len(families)} families")
    return notes


def _balance(checks: list[InstanceCheck]) -> str:
    results = Counter(c.result for c in checks)
    return ", ".join(f"{results[r]} {r}" for r in ("sat", "unsat", "unknown")
                     if results[r] or r != "unknown")


def _names(names: list[str], shown: int = 5) -> str:
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


# -- what is read -----------------------------------------------------------------------------
def manifest_rows(src: Path, manifest: list[dict]) -> list[dict]:
    """The manifest's instance rows, each file checked by :func:`instance_path`."""
    for index, row in enumerate(manifest, start=1):
        instance_path(src, row, index)
    return manifest


def instance_path(src: Path, row: dict, index: int) -> Path:
    """The file of manifest row ``index`` (whose fields :func:`read_manifest` checked):
    a regular file directly in the suite's own ``instances/`` folder (no symlink on the way)
    whose bytes have the manifest's sha256."""
    where = f"{src / 'manifest.json'}: instance {index}"
    path = file_under(src, row["file"], where)
    if not is_regular_file(path):
        raise UserError(f"{where}: {path} is not a regular file")
    if hashlib.sha256(path.read_bytes()).hexdigest() != row["sha256"]:
        raise UserError(f"{where}: {path} does not have the manifest's sha256 (run puzzlesat "
                        f"verify)")
    return path


#: the module computing IsoHash2 (a name, so tests can name a missing one)
GBDC_MODULE = "gbdc"
#: run in a fresh interpreter: gbdc segfaults when imported into a process that has loaded
#: python-sat's solvers (as calibrate and the validator do); exit 3 = gbdc is not installed
_ISOHASH_CHILD = """import importlib, sys
try:
    gbdc = importlib.import_module(sys.argv[1])
except ImportError:
    sys.exit(3)
for path in sys.stdin.read().splitlines():
    print(gbdc.isohash2(path), flush=True)
"""


def isohashes(src: Path, rows: list[dict]) -> dict[str, str] | None:
    """gbdc's IsoHash2 of every instance file by GBD hash, computed in a child process; None
    when gbdc is not installed."""
    paths = [str((src / row["file"]).absolute()) for row in rows]
    done = subprocess.run([sys.executable, "-c", _ISOHASH_CHILD, GBDC_MODULE],
                          input="\n".join(paths), capture_output=True, text=True)
    if done.returncode == 3:
        return None
    values = done.stdout.split()
    if done.returncode != 0 or len(values) != len(rows):
        why = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise UserError(f"{src}: gbdc could not compute IsoHash2 ({why})")
    return {row["hash"]: value for row, value in zip(rows, values)}


# -- the bundle -------------------------------------------------------------------------------
def build_bundle(directory: str | os.PathLike, output: str | os.PathLike | None,
                 check: SubmissionCheck) -> Path:
    """Write the bundle folder ``output`` (default: the suite's folder name + ``-submission``,
    beside it) and ``output.tar.xz``; returns the archive's path. An existing ``output`` must
    be empty or a bundle this tool wrote, whose listed files alone are replaced."""
    if check.failures:
        raise UserError("the submission rules do not hold: " + "; ".join(check.failures))
    src = Path(directory)
    spec, manifest = read_published(src)
    files = bundle_files(src, spec.author, manifest_rows(src, manifest), check)
    return write_bundle(src, output, files)


def write_bundle(src: Path, output: str | os.PathLike | None, files: dict[str, bytes],
                 ours=None, suffix: str = ".tar.xz", archive_of=None) -> Path:
    """Write ``files`` into the bundle folder ``output`` (default: the suite's folder name +
    ``-submission``, beside it) and its archive beside it as ``<folder><suffix>``
    (``archive_of(folder name)``; default: a tar of ``files``, xz-compressed); returns the
    archive's path. An existing ``output`` must be empty or a bundle this tool wrote, whose
    listed files alone are replaced. ``ours`` tells the names a bundle of this kind holds
    (default :func:`bundle_name`)."""
    if archive_of is None:
        def archive_of(top: str) -> bytes:
            return lzma.compress(tar_bytes(top, files), preset=6)
    out = Path(output) if output else src.resolve().with_name(src.resolve().name + "-submission")
    earlier = _claim_output(src, out, ours or bundle_name)
    target = out.resolve()
    archive = target.with_name(target.name + suffix)
    if archive.exists() and not (earlier and earlier["archive"] == archive.name):
        raise UserError(f"{archive} exists and was not written by puzzlesat submission: "
                        f"refusing to replace it")
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "instances").mkdir(exist_ok=True)
    except OSError as exc:
        raise os_failure(exc, f"create {out}") from None
    old = set(earlier["files"]) if earlier else set()
    # the marker lists old and new first: a run stopped half-way leaves a folder still ours
    _write_marker(out, sorted(old | set(files)), archive.name)
    for stale in sorted(old - set(files)):
        _remove_written(out / stale)
    for rel, data in files.items():
        if rel in old and (out / rel).is_symlink():
            (out / rel).unlink()  # a file of ours turned into a link: the link goes, not its target
        atomic_write(out / rel, data)
    atomic_write(archive, archive_of(target.name))
    _write_marker(out, sorted(files), archive.name)
    return archive


def bundle_name(rel) -> bool:
    """Whether ``rel`` is a name this tool writes in a bundle folder."""
    return isinstance(rel, str) and (
        rel in ("metadata.csv", "counts.txt", "checksums.txt", *BUNDLE_COPIES)
        or re.fullmatch(r"instances/[0-9a-f]{32}\.cnf\.xz|calibration-[A-Za-z0-9._-]+\.png"
                        r"|instances/[A-Za-z0-9][A-Za-z0-9._-]*\.cnf\.bz2", rel) is not None)


def _claim_output(src: Path, out: Path, ours=bundle_name) -> dict | None:
    """Check that the bundle may be written at ``out``; returns its marker (files, archive)
    when it holds an earlier bundle, None when it is new or empty."""
    if out.is_symlink():
        raise UserError(f"{out} is a symlink: refusing to write a bundle through it")
    target, suite, cwd = out.resolve(), src.resolve(), Path.cwd().resolve()
    if target == cwd or target in cwd.parents:
        raise UserError(f"{out} is the current folder or holds it: refusing to write a bundle "
                        f"there (name a new folder)")
    if target == suite or target in suite.parents or suite in target.parents:
        raise UserError(f"{out} is the suite, holds it or is inside it: refusing to write a "
                        f"bundle there (name a new folder)")
    if not out.exists():
        return None
    if not out.is_dir():
        raise UserError(f"{out} exists and is not a folder: refusing to replace it")
    if not any(out.iterdir()):
        return None
    marker = out / MARKER
    earlier = None
    if is_regular_file(marker):
        try:
            earlier = json.loads(marker.read_text("utf-8"))
        except (ValueError, RecursionError):
            earlier = None
    if not (isinstance(earlier, dict) and isinstance(earlier.get("files"), list)
            and all(ours(rel) for rel in earlier["files"])
            and isinstance(earlier.get("archive"), str)):
        raise UserError(f"{out} exists and is not a submission bundle: refusing to replace it")
    plain_folder(out / "instances", "bundle subfolder", create=False)
    return earlier


def _write_marker(out: Path, files: list[str], archive: str) -> None:
    data = {"written-by": "puzzlesat submission", "archive": archive, "files": files}
    atomic_write(out / MARKER, (json.dumps(data, indent=1) + "\n").encode())


def _remove_written(path: Path) -> None:
    """Remove a file an earlier run wrote: a regular file only (never through a symlink)."""
    try:
        if is_regular_file(path):
            path.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise os_failure(exc, f"remove {path}") from None


def bundle_files(src: Path, author: str, instances: list[dict],
                 check: SubmissionCheck) -> dict[str, bytes]:
    """The bundle's files by relative path: instances as ``<hash>.cnf.xz`` (recompressed to
    xz when the suite used another compression), the metadata and the descriptions."""
    checks = {c.hash: c for c in check.instances}
    files = {}
    for row in instances:
        data = (src / row["file"]).read_bytes()
        if not row["file"].endswith(".xz"):
            data = compress(decompress(data, row["file"]), "xz")
        files[f"instances/{row['hash']}.cnf.xz"] = data
    files["metadata.csv"] = table_bytes(METADATA_COLUMNS, (
        dict(zip(METADATA_COLUMNS, (row["hash"], author, row["family"],
                                    checks[row["hash"]].result, checks[row["hash"]].isohash2)))
        for row in instances))
    return files | description_files(src)


def description_files(src: Path) -> dict[str, bytes]:
    """The suite's descriptions and citation (:data:`BUNDLE_COPIES`) and the calibration
    plots description.tex includes, so the bundle's copy compiles whole."""
    files = {}
    for name in BUNDLE_COPIES:
        if not (src / name).is_file():
            raise UserError(f"{src}: {name} is missing (run puzzlesat publish)")
        files[name] = (src / name).read_bytes()
    for plot in sorted(src.glob("calibration-*.png")):
        if bundle_name(plot.name) and stat.S_ISREG(plot.lstat().st_mode):
            files[plot.name] = plot.read_bytes()
    return files


def tar_bytes(top: str, files: dict[str, bytes]) -> bytes:
    """A deterministic (uncompressed) tar of ``files`` under folder ``top``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        folders = sorted({top} | {f"{top}/{Path(rel).parent}" for rel in files if "/" in rel})
        members: list[tuple[str, bytes | None]] = [(name, None) for name in folders]
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
    return buffer.getvalue()

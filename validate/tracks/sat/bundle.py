"""The SAT Competition's bundle of a calibrated suite: the 2026 benchmark rules checked on its
instance rows and calibration runs (:func:`check_instances`), and the bundle written when they
hold (:func:`write`).

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
seconds counts for nothing.

Since machines that look alike differ in speed, each instance also gets its **margin**
(:func:`instance_margin`): how many times as fast as the reference machine
(:mod:`~puzzlesat.validate.runs.speed`) a machine must be for a MiniSat to solve it within
the filter's minute, from the runs' reference seconds. An instance the rules count whose
margin is below ``--margin`` is named and the bundle refused unless forced; runs without a
speed index (a table older than indices) give no margin and are named, not refused.

We also demand every result be known (planted, an optimal trace,
a certificate, or a validated answer) and that no calibration run gave a wrong answer. Every
threshold is a :class:`Rules` field. The team's solver defaults to the Kissat 4.0.4 binary at
1000 s of CPU: the limit a re-tuned suite is built to (``puzzlesat tune``), a fifth of the
competition's 5000 s, so an instance solved here stays solved on a slower machine.

IsoHash2 needs gbdc (``pip install 'puzzlesat[competition]'``); without it that rule is
reported as not checked.

A bundle is a folder (:mod:`puzzlesat.validate.runs.bundle`) with
``instances/<gbd-hash>.cnf.xz``, ``metadata.csv`` (:data:`METADATA_COLUMNS`, the columns the
selection script reads), ``description.tex``/``.md``, the hardness plots it includes and
``CITATION.cff`` from the suite, plus the same as a deterministic ``.tar.xz``.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.suite.folder import ManifestRow, table_bytes
from puzzlesat.validate.runs.bundle import BUNDLE_COPIES, suite_copies, write_bundle, xz_instance
from puzzlesat.validate.runs.limits import CPU_LIMIT
from puzzlesat.validate.runs.records import CalibrationRow
from puzzlesat.validate.tracks.sat import clients
from puzzlesat.validate.verdict import FAILED

#: whether the bundle needs the suite's calibration: the rules count MiniSat's and the team solver's calibration runs
CALIBRATED = True

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
    force: bool = False  # write the bundle even with instances whose margin is below margin

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


@dataclass(frozen=True)
class Margin:
    """How many times as fast as the reference machine a machine must be for a MiniSat to
    solve an instance within the filter's limit: ``value``, or at least that when
    ``at_least`` (a run stopped at its limit: the solver had not finished)."""

    value: float
    at_least: bool

    def __str__(self) -> str:
        return f"{'>=' if self.at_least else ''}{self.value:.2f}"


def run_margin(run: CalibrationRow, minisat_limit: float) -> Margin | None:
    """A MiniSat run's margin: its reference seconds over the filter's limit (a lower bound
    for a run stopped at its CPU limit); None when it has no speed index or ended otherwise
    (a crash, a wrong answer, the wall-clock backstop)."""
    seconds = run.reference_seconds
    if seconds is None or not (run.solved or run.ended_by == CPU_LIMIT):
        return None
    return Margin(seconds / minisat_limit, not run.solved)


def instance_margin(runs: list[CalibrationRow | None], minisat_limit: float) -> Margin | None:
    """An instance's margin: the smallest of its MiniSat runs' (the first to solve it decides
    the filter); None when one of them is missing or has none."""
    margins = [None if run is None else run_margin(run, minisat_limit) for run in runs]
    if not margins or None in margins:
        return None
    # on a tie the exact value wins: the true margin is then that value, not more
    return min(margins, key=lambda m: (m.value, m.at_least))  # type: ignore[union-attr]


def to_recheck(hashes: list[str], runs: list[CalibrationRow], margin: float) -> list[str]:
    """The instances (GBD hashes) worth measuring again on this machine for ``margin`` (the
    MiniSats and filter of the default :class:`Rules`): those whose margin is not known (no
    run, no speed index) or within a factor 2 of it (an exact margin below half of it is
    easy on any machine; at twice it, hard enough)."""
    rules = Rules(margin=margin)
    by_run = {(run.hash, run.solver): run for run in runs}
    minisats = tuple(_sat_solver(m) for m in rules.minisats)
    wanted = []
    for digest in hashes:
        known = instance_margin([by_run.get((digest, m)) for m in minisats],
                                rules.minisat_limit)
        if known is None or (known.value < 2 * rules.margin and (
                known.at_least or known.value >= rules.margin / 2)):
            wanted.append(digest)
    return wanted


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
    margin: Margin | None = None  # None: not known (see unindexed)
    unindexed: bool = False  # a MiniSat run has no speed index (a table older than indices)

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
        margin = "no-index" if self.unindexed else str(self.margin or "?")
        return (f"{self.hash}  {self.family:<14} {self.result:<7} minisat {self.minisat:<30} "
                f"{hard:<5}  margin {margin:<8}  reference {self.reference:<14} {ok}{wrong}  "
                f"{self.name}")


@dataclass
class SubmissionCheck:
    instances: list[InstanceCheck]
    failures: list[str]  # one line per broken rule; empty = the rules hold
    notes: list[str] = field(default_factory=list)  # counts, balance, what was not checked
    refused: list[str] = field(default_factory=list)  # margin below the wanted one, not forced
    author: str = ""
    rows: list[ManifestRow] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One line per instance, then the notes (counts, balance, selection)."""
        return [c.line() for c in self.instances] + self.notes


def check_instances(rows: list[ManifestRow], runs: list[CalibrationRow], rules: Rules = Rules(),
                    isohash: dict[str, str] | None = None) -> SubmissionCheck:
    """The rules on instance rows (hash, name, family, result) and calibration runs;
    ``isohash`` maps GBD hash to IsoHash2, None when it could not be computed."""
    minisats = tuple(_sat_solver(m) for m in rules.minisats)
    reference = _sat_solver(rules.reference)
    checks = [_check_instance(row, [r for r in runs if r.hash == row.hash],
                              minisats, reference, rules) for row in rows]
    for check in checks:
        check.isohash2 = (isohash or {}).get(check.hash, "")
    # only instances the rules count: an easy one is already left out of the count
    thin = [c.name for c in checks
            if c.counts and c.margin is not None and c.margin.value < rules.margin]
    return SubmissionCheck(checks, _failures(checks, rules, minisats, reference, isohash),
                           _notes(checks, runs, rules, minisats, reference, isohash)
                           + _margin_notes(checks, runs, rules, minisats, thin),
                           refused=[] if rules.force else thin)


def _check_instance(row: ManifestRow, runs: list[CalibrationRow], minisats: tuple[str, ...],
                    reference: str, rules: Rules) -> InstanceCheck:
    by_solver = {r.solver: r for r in runs}
    ref = by_solver.get(reference)
    easy = [by_solver.get(m) for m in minisats]
    verdicts = [None if run is None else run.not_solved_within(rules.hard_limit)
                for run in easy]
    hard = False if False in verdicts else (True if all(verdicts) else None)
    return InstanceCheck(
        row.hash, row.name, row.family, _result(row, runs),
        " / ".join(_cell(run) for run in easy), hard, _cell(ref),
        ref is not None and ref.solved and ref.cpu_seconds is not None
        and ref.cpu_seconds <= rules.time_limit,
        [r.solver for r in runs if r.verdict in FAILED],
        margin=instance_margin(easy, rules.minisat_limit),
        unindexed=any(run is not None and run.speed_index is None for run in easy))


def _result(row: ManifestRow, runs: list[CalibrationRow]) -> str:
    if row.result in ("sat", "unsat"):
        return row.result
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
    twins = [c.name for c in checks if c.hash in {x.hash for x in checks[:checks.index(c)]}]
    if twins:
        failures.append(f"rule: instances must differ; the same clauses (GBD hash) as an "
                        f"earlier instance: {_names(twins)}")
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


def _notes(checks: list[InstanceCheck], runs: list[CalibrationRow], rules: Rules,
           minisats: tuple[str, ...], reference: str, isohash: dict | None) -> list[str]:
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
    loaded = [r for r in runs if r.loaded]
    if loaded:
        notes.append(f"calibration: {len(loaded)} of {len(runs)} runs started while the "
                     f"machine was loaded (load of its cores + 1 or more), so their CPU "
                     f"seconds may be inflated: distrust them, calibrate again on an idle "
                     f"machine (--only NAME): {_names(sorted({r.name for r in loaded}))}")
    if isohash is None:
        notes.append("isohash2: NOT CHECKED: gbdc is not installed (pip install "
                     "'puzzlesat[competition]'); metadata.csv's isohash2 column is left empty")
    else:
        families = Counter(c.family for c in checks)
        notes.append(f"isohash2: {len({c.isohash2 for c in checks})} distinct of "
                     f"{len(checks)} in {len(families)} families")
    return notes


def _margin_notes(checks: list[InstanceCheck], runs: list[CalibrationRow], rules: Rules,
                  minisats: tuple[str, ...], thin: list[str]) -> list[str]:
    """What the margins say: the speed indices the runs were measured under, the smallest
    margin, the instances below the wanted one, those without an index."""
    indices: dict[str, Counter] = {}
    for run in runs:
        if run.speed_index is not None:
            indices.setdefault(run.solver, Counter())[run.speed_index] += 1
    notes = []
    if indices:
        notes.append("speed index: " + "; ".join(
            f"{solver} " + ", ".join(f"{index:g}" + (f" ({n} of its runs)" if len(seen) > 1
                                                     else "")
                                     for index, n in seen.most_common())
            for solver, seen in indices.items())
            + " (a run's reference seconds: its CPU seconds x its index)")
    known = [c for c in checks if c.counts and c.margin is not None]
    if known:
        least = min(known, key=lambda c: c.margin.value)  # type: ignore[union-attr]
        notes.append(f"margin: how many times as fast as the reference machine a machine must "
                     f"be for {' or '.join(minisats)} to solve an instance within "
                     f"{rules.minisat_limit:g} s; the least of the {len(known)} that count: "
                     f"{least.margin} ({least.name})")
    if thin:
        notes.append(f"margin: {len(thin)} that count are below --margin {rules.margin:g}, "
                     + ("written anyway (--force)" if rules.force else "refused unless --force")
                     + f": {_names(thin)}")
    unindexed = [c.name for c in checks if c.unindexed]
    if unindexed:
        notes.append(f"margin: no speed index: run calibrate --recheck ({len(unindexed)} "
                     f"instance(s) measured before speed indices, not refused: "
                     f"{_names(unindexed)})")
    return notes


def _balance(checks: list[InstanceCheck]) -> str:
    results = Counter(c.result for c in checks)
    return ", ".join(f"{results[r]} {r}" for r in ("sat", "unsat", "unknown")
                     if results[r] or r != "unknown")


def _names(names: list[str], shown: int = 5) -> str:
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def _sat_solver(name: str) -> str:
    """A SAT solver's name as calibration tables record it, or a UserError."""
    canonical = clients.canonical(name)
    if canonical is None:
        raise UserError(f"unknown SAT solver {name!r} (SAT solvers here: "
                        f"{', '.join(clients.names())})")
    return canonical


# -- the bundle -----------------------------------------------------------------------------------
METADATA_COLUMNS = ("hash", "author", "family", "result", "isohash2")


def bundle_name(rel) -> bool:
    """Whether ``rel`` is a name this tool writes in a SAT bundle folder."""
    return isinstance(rel, str) and (
        rel in ("metadata.csv", *BUNDLE_COPIES)
        or re.fullmatch(r"instances/[0-9a-f]{32}\.cnf\.xz|calibration-[A-Za-z0-9._-]+\.png",
                        rel) is not None)


def check(src: Path, rows: list[ManifestRow], runs: list[CalibrationRow],
          rules: Rules | None = None, solving=None, author: str = "") -> SubmissionCheck:
    """The rules on a published suite's rows and trusted calibration runs, with the
    IsoHash2 of every instance file when gbdc is installed (``solving``: not used)."""
    done = check_instances(rows, runs, rules or Rules(), isohashes(src, rows))
    done.author, done.rows = author, rows
    return done


def write(src: Path, output: str | os.PathLike | None, done: SubmissionCheck) -> Path:
    """Write the bundle of a check whose rules hold and whose instances have their margin
    (or are forced); returns the archive's path."""
    if done.failures:
        raise UserError("the submission rules do not hold: " + "; ".join(done.failures))
    if done.refused:
        raise UserError(f"{len(done.refused)} instance(s) have a MiniSat margin below "
                        f"--margin: a machine that fast may solve them within the filter's "
                        f"minute ({_names(done.refused)}): replace them, calibrate --recheck on "
                        f"this machine, or --force")
    checks = {c.hash: c for c in done.instances}
    files = {f"instances/{row.hash}.cnf.xz": xz_instance(src, row) for row in done.rows}
    files["metadata.csv"] = table_bytes(METADATA_COLUMNS, (
        dict(zip(METADATA_COLUMNS, (row.hash, done.author, row.family,
                                    checks[row.hash].result, checks[row.hash].isohash2)))
        for row in done.rows))
    return write_bundle(src, output, {**files, **suite_copies(src, bundle_name)}, bundle_name)


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


def isohashes(src: Path, rows: list[ManifestRow]) -> dict[str, str] | None:
    """gbdc's IsoHash2 of every instance file by GBD hash, computed in a child process; None
    when gbdc is not installed."""
    paths = [str((src / row.file).absolute()) for row in rows]
    done = subprocess.run([sys.executable, "-c", _ISOHASH_CHILD, GBDC_MODULE],
                          input="\n".join(paths), capture_output=True, text=True)
    if done.returncode == 3:
        return None
    values = done.stdout.split()
    if done.returncode != 0 or len(values) != len(rows):
        why = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise UserError(f"{src}: gbdc could not compute IsoHash2 ({why})")
    return {row.hash: value for row, value in zip(rows, values)}

"""``validate-suite``: a verdict for every instance of a published suite from a results folder,
in parallel, and the verdict table."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.executors import run_tasks
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.core.inputs import check_replaceable
from puzzlesat.generator.core.sniff import is_wcnf
from puzzlesat.generator.suite.folder import (
    INSTANCES,
    PROOF_SUFFIX,
    file_sha256,
    output_path,
    read_sums,
    suite_instances,
    witness_path,
)
from puzzlesat.validate.maxsat import validate_wcnf_files
from puzzlesat.validate.proof.check import LratRequest
from puzzlesat.validate.report import VERDICTS, Verdict, validate_files


def validate_suite(suite_dir, results_dir, table: str | os.PathLike | None = None,
                   progress: bool = True, executor=None,
                   proof_time_limit: float | None = None, lrat: bool = False,
                   cake_lpr: str | None = None) -> list[Verdict]:
    """A verdict for every instance of a suite from ``RESULTS_DIR/<file>.out`` (and
    ``<file>.drat`` when present), written to ``table`` (.csv or .json) when given. The
    expected result comes from the instance itself (its header), never from ``manifest.csv``,
    which nothing checks; when the suite has a ``SHA256SUMS``, an instance whose bytes it does
    not list is MALFORMED, never trusted. A missing output is UNKNOWN; an instance or output
    that cannot be read at all, or runs out of memory, is MALFORMED (the batch goes on).
    ``executor`` (any concurrent.futures Executor) spreads the work; the verdicts come back in
    instance order whichever runs them. A proof is given at most ``proof_time_limit``
    seconds; ``lrat`` keeps each verified proof's LRAT certificate as ``<file>.lrat``;
    ``cake_lpr`` names the cake_lpr that checks them too (None: the one on PATH, if any)."""
    from tqdm import tqdm

    if table is not None:
        _table_format(table)  # fail before the work, not after
        check_replaceable(table, "the verdict table")
        if Path(table).exists() and Path(suite_dir).resolve() in Path(table).resolve().parents:
            raise UserError(f"the verdict table {table} would overwrite a file of the suite")
    if not Path(results_dir).is_dir():
        raise UserError(f"{results_dir}: no such results folder")
    instances = suite_instances(suite_dir)
    sums = read_sums(Path(suite_dir))
    calls = [(instance, Path(results_dir),
              None if sums is None else sums.get(f"{INSTANCES}/{instance.name}", ""),
              proof_time_limit, lrat, cake_lpr)
             for instance in instances]
    verdicts: list[Verdict] = [None] * len(calls)  # type: ignore[list-item]
    for index, verdict in tqdm(run_tasks(validate_one, calls, executor), total=len(calls),
                               unit="instance", desc="validating", disable=not progress):
        verdicts[index] = verdict
    if table is not None:
        write_table(verdicts, table)
    return verdicts


def validate_one(instance: Path, results_dir: Path, sha256: str | None = None,
                 proof_time_limit: float | None = None, lrat: bool = False,
                 cake_lpr: str | None = None) -> Verdict:
    """The verdict on ``RESULTS_DIR/<file>.out`` (and ``.drat``) for one suite instance,
    with the suite's ``witnesses/<name>.json`` as evidence of SAT when it checks; MALFORMED
    when ``sha256`` (its SHA256SUMS line; "" when it has none) is not its own."""
    out, drat = output_path(results_dir, instance), output_path(results_dir, instance, PROOF_SUFFIX)
    witness = witness_path(instance)
    if sha256 is not None and file_sha256(instance) != sha256:
        why = ("its sha256 is not the one the suite's SHA256SUMS lists" if sha256
               else "the suite's SHA256SUMS does not list it")
        verdict = Verdict("MALFORMED", f"instance not trusted: {why} (run puzzlesat verify)")
    elif not out.exists():
        verdict = Verdict("UNKNOWN", f"no output file {out.name}")
    else:
        try:
            if is_wcnf(instance):
                verdict = validate_wcnf_files(instance, out, witness)
            else:
                request = LratRequest(output_path(results_dir, instance, ".lrat") if lrat
                                      else None, cake_lpr=cake_lpr, beside_output=True)
                verdict = validate_files(instance, out, drat if drat.exists() else None,
                                         witness=witness, proof_time_limit=proof_time_limit,
                                         lrat=request)
        except UserError as exc:
            verdict = Verdict("MALFORMED", str(exc))
        except MemoryError:  # this instance's verdict; the batch and its table go on
            verdict = Verdict("MALFORMED", "out of memory while checking this output")
    verdict.instance, verdict.output = instance.name, str(out)
    return verdict


TABLE_COLUMNS = ("instance", "name", "expected", "claimed", "verdict", "puzzle", "time",
                 "reason")


def table_rows(verdicts: list[Verdict]) -> list[dict]:
    """One CSV row per verdict."""
    return [{"instance": v.instance, "name": v.name, "expected": v.expected or "",
             "claimed": v.claimed or "", "verdict": v.verdict, "puzzle": v.puzzle_cell(),
             "time": "" if v.time is None else v.time, "reason": v.reason} for v in verdicts]


def write_table(verdicts: list[Verdict], path: str | os.PathLike) -> None:
    """The verdicts as CSV (``.csv``) or JSON (``.json``, full detail)."""
    if _table_format(path) == "json":
        data = json.dumps([v.to_json() for v in verdicts], indent=1) + "\n"
    else:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, TABLE_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(table_rows(verdicts))
        data = buf.getvalue()
    atomic_write(path, data.encode("utf-8"))


def _table_format(path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".json"):
        raise UserError(f"{path}: the verdict table must end in .csv or .json")
    return suffix[1:]


def summary(verdicts: list[Verdict]) -> str:
    """``N instances: 3 VERIFIED-SAT, 1 UNKNOWN`` (verdicts in the table's order), plus a
    count of puzzle-check failures when there are any."""
    counts = [(v, sum(1 for x in verdicts if x.verdict == v)) for v in VERDICTS]
    text = f"{len(verdicts)} instances: " + ", ".join(f"{n} {v}" for v, n in counts if n)
    invalid = sum(1 for x in verdicts if x.puzzle and x.puzzle.problems)
    text += f"; {invalid} decoded solutions break the puzzle rules" if invalid else ""
    unsound = sum(1 for x in verdicts if x.checker_failure)
    return text + (f"; {unsound} CHECKER FAILURES (verified proofs of SAT instances)"
                   if unsound else "")


def suite_exit_code(verdicts: list[Verdict]) -> int:
    """4 when the proof checker failed on any instance, else 3 when a verdict is
    WRONG-*/MALFORMED or a decoded puzzle is invalid, else 0."""
    return max([0] + [v.exit_code for v in verdicts if v.checker_failure or v.failed])

"""``validate-suite``: a verdict for every instance of a published suite from a results folder,
each by its track's judge, in parallel, and the verdict table."""

from __future__ import annotations

import os
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.executors import run_tasks
from puzzlesat.generator.core.files import atomic_write
from puzzlesat.generator.core.inputs import check_replaceable
from puzzlesat.generator.suite.folder import (
    INSTANCES,
    PROOF_SUFFIX,
    file_sha256,
    output_path,
    read_sums,
    suite_instances,
    witness_path,
)
from puzzlesat.validate.tracks import JudgeOptions, judge_files
from puzzlesat.validate.verdict import Verdict, table_bytes


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
    if any(Path(results_dir).glob(f"*{PROOF_SUFFIX}")):
        # kernels that cannot be used stop the run here, before any work, in one line
        import puzzlesat.validate.proof.native  # noqa: F401
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
        atomic_write(table, table_bytes(verdicts, _table_format(table)))
    return verdicts


def validate_one(instance: Path, results_dir: Path, sha256: str | None = None,
                 proof_time_limit: float | None = None, lrat: bool = False,
                 cake_lpr: str | None = None) -> Verdict:
    """The verdict on ``RESULTS_DIR/<file>.out`` (and ``.drat``) for one suite instance, by
    its track's judge, with the suite's ``witnesses/<name>.json`` as evidence when it checks;
    MALFORMED when ``sha256`` (its SHA256SUMS line; "" when it has none) is not its own."""
    from puzzlesat.validate.proof.check import LratRequest
    from puzzlesat.validate.proof.native import KernelSetupError
    from puzzlesat.validate.runs.certify import CheckedSolving

    out, drat = output_path(results_dir, instance), output_path(results_dir, instance, PROOF_SUFFIX)
    if sha256 is not None and file_sha256(instance) != sha256:
        why = ("its sha256 is not the one the suite's SHA256SUMS lists" if sha256
               else "the suite's SHA256SUMS does not list it")
        verdict = Verdict("MALFORMED", f"instance not trusted: {why} (run puzzlesat verify)")
    elif not out.exists():
        verdict = Verdict("UNKNOWN", f"no output file {out.name}")
    else:
        options = JudgeOptions(
            proof=drat if drat.exists() else None, proof_time_limit=proof_time_limit,
            witness=witness_path(instance),
            lrat=LratRequest(output_path(results_dir, instance, ".lrat") if lrat else None,
                             cake_lpr=cake_lpr, beside_output=True),
            solving=CheckedSolving())
        try:
            verdict = judge_files(instance, out, options)
        except KernelSetupError:  # the machine's set-up, not this output: the whole run stops
            raise
        except UserError as exc:
            verdict = Verdict("MALFORMED", str(exc))
        except MemoryError:  # this instance's verdict; the batch and its table go on
            verdict = Verdict("MALFORMED", "out of memory while checking this output")
    verdict.instance, verdict.output = instance.name, str(out)
    return verdict


def _table_format(path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".json"):
        raise UserError(f"{path}: the verdict table must end in .csv or .json")
    return suffix[1:]

"""What a file or an answer claims is checked, never taken on its word: a doctored instance
header, a counter's own statement of its tolerance, a WCNF file of hostile numbers. Each
ends in a verdict the checker can justify or one line on stderr with exit code 2."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import lzma

import numpy as np
import pytest
from conftest import assert_one_line_error, publish_tiny
from test_tune import plan as tune_plan
from test_tune import stub  # noqa: F401  (a fixture: the solver runner replaced by a table)

from puzzlesat.generator.core.counting import Projection
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.core.wcnf import parse_wcnf, read_wcnf
from puzzlesat.generator.families.sliding import maxsat as sliding_maxsat
from puzzlesat.generator.families.sliding.puzzle import Solution
from puzzlesat.generator.instance import build
from puzzlesat.validate.answers import maxsat_text, parse_count_output
from puzzlesat.validate.campaigns.tune import tune
from puzzlesat.validate.tracks.mc.judge import judge_count

# -- a doctored header cannot certify an optimum ------------------------------------------------
#: Korf's instance 9 cut at k = 4: its distance is 4; a budget of 8 leaves room for detours
KORF = {"korf": 9, "k": 4, "budget": 8}


def build_maxsat(family: str, params: dict, seed: int = 0):
    """The MaxSAT instance ``generate --format wcnf`` builds."""
    return build(family, params, seed=seed, track="maxsat")


def _header_line(text: str, key: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(f"c {key}: "))


def _doctored(text: str, detour: str) -> str:
    """The WCNF text with its header puzzle's path lengthened by ``detour`` (a legal round
    trip at the goal) and every recorded distance and bound moved to that longer length: the
    clauses, the puzzle's start and budget untouched."""
    line = _header_line(text, "puzzle")
    puzzle = json.loads(line.split(": ", 1)[1])
    longer = len(puzzle["path"]) + len(detour)
    puzzle.update(path=puzzle["path"] + detour, distance=longer, lower_bound=longer)
    text = text.replace(line, "c puzzle: " + json.dumps(puzzle, separators=(",", ":"),
                                                        sort_keys=True))
    for key in ("optimum", "lower-bound", "upper-bound"):
        text = text.replace(_header_line(text, key), f"c {key}: {longer}")
    return text


def test_a_doctored_sliding_distance_certifies_no_optimum(tmp_path, puzzlesat):
    """A sliding WCNF whose header puzzle records a longer path as optimal (distance, lower
    bound and bounds all raised to match) is refused in one line: the optimum is the one the
    params prove, so OPTIMUM FOUND at the doctored length is never VERIFIED-OPTIMUM."""
    honest = tmp_path / "honest.wcnf"
    inst = build_maxsat("sliding", KORF)
    assert puzzlesat("generate", "sliding", "--korf", "9", "--k", "4", "--budget", "8",
                     "--format", "wcnf", "-o", honest).code == 0
    doctored = tmp_path / "doctored.wcnf"
    doctored.write_text(_doctored(honest.read_text(), "RL"))
    steps = inst.puzzle.path + "RL"
    trace = Solution(steps + sliding_maxsat.STAY * (inst.puzzle.budget - len(steps)))
    model = sliding_maxsat.assignment_wcnf(inst.puzzle, "rotated", trace)
    wcnf = read_wcnf(honest)
    assert wcnf.cost(model) == 6 and not wcnf.hard_falsified(model).size
    out = tmp_path / "detour.out"
    out.write_bytes(maxsat_text("OPTIMUM", model, 6))
    result = puzzlesat("validate", honest, out)
    assert result.code == 3 and result.out.startswith(f"WRONG-ANSWER {honest}"), result.out
    result = puzzlesat("validate", doctored, out)
    assert_one_line_error(result, "not the one its params give")


def test_the_sliding_bounds_follow_the_params_not_the_puzzle_record():
    """The bounds of a sliding puzzle are the generator's proof for its params: a puzzle whose
    recorded lower bound was lowered is refused too (its bounds are not certified)."""
    inst = build_maxsat("sliding", KORF)
    bounds = sliding_maxsat.bounds(inst.puzzle, inst.params, Rng(0))
    assert (bounds.lower, bounds.upper, bounds.optimum) == (4, 4, 4)
    lowered = dataclasses.replace(inst.puzzle, lower_bound=2)
    with pytest.raises(UserError, match="not the one its params give"):
        sliding_maxsat.bounds(lowered, inst.params, Rng(0))


# -- an approximate count is judged at the judge's tolerance ------------------------------------
def _approx(count: int, epsilon: str | None) -> str:
    lines = ["s SATISFIABLE", "c s type pmc", f"c s approx arb int {count}"]
    return "\n".join(lines + ([f"c epsilon: {epsilon}"] if epsilon else [])) + "\n"


@pytest.mark.parametrize("stated, given, verdict", [
    ("1e300", None, "WRONG-ANSWER"),  # the output cannot widen ApproxMC's 0.8
    ("1e300", 0.5, "WRONG-ANSWER"),  # nor the judge's --epsilon
    ("0.8", None, "WRONG-ANSWER"),
    ("1e300", 2e30, "VERIFIED"),  # the judge's own (wide) tolerance
    (None, 2e30, "VERIFIED"),
])
def test_an_output_cannot_widen_its_own_tolerance(stated, given, verdict):
    """An approximate count 1 against a certified 2^100 is VERIFIED only within the judge's
    tolerance (``--epsilon``, else ApproxMC's 0.8), whatever ``c epsilon:`` the output
    states."""
    projection = Projection("pmc", np.arange(1, 129, dtype=np.int32))
    answer = parse_count_output(_approx(1, stated))
    assert judge_count(answer, 2 ** 100, projection, given).verdict == verdict


def test_an_output_may_narrow_its_tolerance():
    """A counter that states a tighter tolerance than the judge's is held to it."""
    projection = Projection("pmc", np.arange(1, 9, dtype=np.int32))
    assert judge_count(parse_count_output(_approx(3, None)), 2, projection).verdict \
        == "VERIFIED"  # 3 <= 1.8 * 2
    assert judge_count(parse_count_output(_approx(3, "0.1")), 2, projection).verdict \
        == "WRONG-ANSWER"


# -- WCNF text of hostile numbers ----------------------------------------------------------------
@pytest.mark.parametrize("text, why", [
    (b"h 1 00 0\n", "a 0 inside the clause"),
    (b"h 1 0\n3 2 000 0\n", "a 0 inside the clause"),
    (b"h 1 0\n3 2 -0 0\n", "malformed literal"),
    (b"1" * 5000 + b" 1 0\n", "digits is 2\\^63 or more"),
    (b"0" * 5000 + b"1 1 0\n", None),  # a weight of 1, written long
])
def test_wcnf_numbers_are_one_line_errors(text, why):
    """Literals written ``00`` and weights of thousands of digits are refused (or read) in
    one line naming the problem, never an exception of another kind."""
    if why is None:
        assert parse_wcnf(text, "w").weights.tolist() == [1]
        return
    with pytest.raises(UserError, match=why):
        parse_wcnf(text, "w")


# -- a calibration table holds one run per instance and solver -----------------------------------
def _run_row(digest: str, name: str, status: str, cpu: str) -> dict:
    """A calibration row of python-sat's MiniSat on instance ``name`` (GBD hash ``digest``)."""
    return {"hash": digest, "name": name, "file": f"instances/{name}.cnf.xz",
            "family": "sliding", "hardness-param": "k", "hardness": "8", "expected": "sat",
            "solver": "minisat22", "time-limit": "120", "status": status, "cpu-seconds": cpu,
            "wall-seconds": cpu, "ended-by": "cpu-limit" if status == "UNKNOWN" else "solver",
            "verdict": "UNKNOWN" if status == "UNKNOWN" else "VERIFIED-SAT", "reason": "",
            "machine": "m x2", "load": "0.1"}


def test_a_shipped_table_with_two_runs_of_one_solver_is_refused(tmp_path, puzzlesat):
    """A table beside the spec that gives one solver two runs on one instance (solved in a
    second, and stopped at its limit: a reader would trust either) is one line at publish,
    naming both lines, and nothing of it is published."""
    first = publish_tiny(tmp_path)
    instance = json.loads((first / "manifest.json").read_text())["instances"][0]
    rows = [_run_row(instance["hash"], instance["name"], "SAT", "1.0"),
            _run_row(instance["hash"], instance["name"], "UNKNOWN", "120")]
    with open(tmp_path / "tiny.calibration.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    result = puzzlesat("publish", tmp_path / "tiny.toml", "-o", tmp_path / "second")
    assert_one_line_error(result, "tiny.calibration.csv: line 3: a second run of "
                                  f"'minisat22' on instance {instance['hash']} (line 2)")
    assert not (tmp_path / "second" / "calibration.csv").exists()


def test_the_maxsat_bundle_certifies_each_optimum_again(tmp_path, puzzlesat):
    """submission --track maxsat takes no optimum on a header's word: a published instance
    whose header was doctored (its manifest sha256 updated to match) is refused in one line,
    and no bundle is written."""
    from test_maxsat import MSE_TINY

    (tmp_path / "s.toml").write_bytes(MSE_TINY)
    suite = tmp_path / "suite"
    assert puzzlesat("publish", tmp_path / "s.toml", "-o", suite, "-j", "1").code == 0
    path = suite / "instances" / "sliding-korf9-k4-b6-rotated.wcnf.xz"
    doctored = _doctored(lzma.decompress(path.read_bytes()).decode(), "RL")
    path.write_bytes(lzma.compress(doctored.encode()))
    manifest = json.loads((suite / "manifest.json").read_text())
    stated = next(line.split(": ", 1)[1] for line in doctored.splitlines()
                  if line.startswith("c optimum: "))
    for row in manifest["instances"]:  # the manifest agrees with the doctored header
        if row["file"] == "instances/" + path.name:
            row["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
            row["optimum"] = stated
    (suite / "manifest.json").write_text(json.dumps(manifest))
    result = puzzlesat("submission", suite, "--track", "maxsat", "-o", tmp_path / "b")
    assert_one_line_error(result, path.name, "not the one its params give")
    assert not (tmp_path / "b").exists() and not (tmp_path / "b.tar.xz").exists()


# -- an LRAT proof is read as a DRAT proof is: bounded ------------------------------------------
def test_a_compressed_lrat_proof_is_bounded_like_a_drat_proof(tmp_path, puzzlesat):
    """A small ``.lrat.xz`` expanding past 64x its size (plus 64 MB) is not read into memory:
    WRONG-PROOF naming the expansion, as for a DRAT proof (here 128 MB of blanks in a few
    KB)."""
    cnf = tmp_path / "f.cnf"
    cnf.write_text("p cnf 1 2\n1 0\n-1 0\n")
    out = tmp_path / "f.out"
    out.write_text("s UNSATISFIABLE\n")
    packer = lzma.LZMACompressor(preset=0)
    blank = b" " * (1 << 20)
    packed = b"".join(packer.compress(blank) for _ in range(128)) + packer.flush()
    assert len(packed) < 1 << 20
    bomb = tmp_path / "bomb.lrat.xz"
    bomb.write_bytes(packed)
    result = puzzlesat("validate", cnf, out, "--proof", bomb)
    assert result.code == 3 and result.out.startswith("WRONG-PROOF"), result.out
    assert "expands beyond" in result.out


# -- a tune's cached run serves only the instance it was made on ---------------------------------
def test_a_cached_run_naming_another_instance_is_run_again(stub, tmp_path):
    """A run record whose task keys were moved to another sample (as a record of an older
    encoding names a task whose instance has changed) does not decide that sample: its
    instance has another GBD hash, so its runs are made again, and the medians hold."""
    first = tune(tune_plan(axis="rows=4..4"), tmp_path, progress=False)
    records = [(path, json.loads(path.read_text()))
               for path in sorted((tmp_path / "runs").glob("*.minisat22.json"))]
    # MiniSat stops at its limit on replicates 1 and 2, solves 3 in 4 s (test_tune.TIMES)
    stopped = next(r for _, r in records if r["status"] == "UNKNOWN")
    solved_path, solved = next((p, r) for p, r in records if r["status"] == "SAT")
    for path in (tmp_path / "runs").glob(f"{stopped['gbd_hash']}.*.json"):
        path.unlink()  # every run of the stopped instance: only the forged record names it
    solved_path.write_text(json.dumps({**solved, "keys": solved["keys"] + stopped["keys"]}))
    del stub[:]
    again = tune(tune_plan(axis="rows=4..4"), tmp_path, progress=False)
    made = [call for call in stub if call[2] == "minisat22"]
    assert len(made) == 1 and made[0][1] in (1, 2), stub  # the stopped one's run, again
    assert again.medians == first.medians


# -- numbers a user gives ------------------------------------------------------------------------
@pytest.mark.parametrize("seed", ["-1", str(2**32), str(10**30)])
def test_a_counter_seed_out_of_range_is_one_line(puzzlesat, tmp_path, seed):
    """``count --seed`` is 0..2^32-1: a negative or larger seed is refused before anything is
    read, not handed to a counter that takes it without a word."""
    pytest.importorskip("pyganak")
    result = puzzlesat("count", tmp_path / "none.cnf", "--seed", seed)
    assert_one_line_error(result, "--seed", "0<=x<=4294967295")


def test_an_infinite_time_line_leaves_the_verdict_json_valid(tmp_path, puzzlesat):
    """``c time: 1e999`` in an output is no time: ``validate --json`` stays valid JSON
    (Python's json would write Infinity, which no JSON reader takes)."""
    cnf = tmp_path / "f.cnf"
    cnf.write_text("p cnf 1 1\n1 0\n")
    out = tmp_path / "f.out"
    out.write_text("c time: 1e999\ns SATISFIABLE\nv 1 0\n")
    result = puzzlesat("validate", cnf, out, "--json")
    assert result.code == 0
    assert json.loads(result.out, parse_constant=lambda name: pytest.fail(name))["time"] is None

"""The reference runner, suites end to end, and real solver binaries (Debian's cadical,
minisat, picosat) on generated instances of every family."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess

import numpy as np
import pytest
from conftest import assert_one_line_error
from pysat.examples.genhard import PHP

from puzzlesat.generator.core.files import compress
from puzzlesat.generator.core.save import write_instance
from puzzlesat.generator.instance import build
from puzzlesat.validate.answers import parse_output

SAT_CNF = "c demo\np cnf 3 2\n1 -2 0\n2 3 0\n"
#: 14 pigeons in 13 holes: no CDCL solver refutes it within hours (PHP(11) takes minutes)
HARD = f"p cnf {PHP(13).nv} {len(PHP(13).clauses)}\n" + "".join(
    " ".join(map(str, c + [0])) + "\n" for c in PHP(13).clauses)
#: a limit with room for the two tiny instances (a solver child starts in well under a second
#: on a quiet machine; a busy one took more than 1 s) that HARD never meets
ROOMY_LIMIT = "10"
UNSAT_CNF = "p cnf 2 4\n1 2 0\n1 -2 0\n-1 2 0\n-1 -2 0\n"


def test_solve_prints_competition_output_and_exit_codes(tmp_path, puzzlesat):
    (tmp_path / "s.cnf").write_text(SAT_CNF)
    (tmp_path / "u.cnf").write_text(UNSAT_CNF)
    sat = puzzlesat("solve", tmp_path / "s.cnf")
    assert sat.code == 10
    lines = sat.out.splitlines()
    assert lines[0] == "c solver: cadical195" and lines[1].startswith("c time: ")
    assert lines[2].startswith("c wall-time: ")
    assert lines[3:] == ["s SATISFIABLE", "v 1 2 3 0"] or lines[3] == "s SATISFIABLE"
    unsat = puzzlesat("solve", tmp_path / "u.cnf", "--solver", "kissat")
    assert unsat.code == 20 and unsat.out.splitlines()[-1] == "s UNSATISFIABLE"
    assert unsat.out.splitlines()[0] == "c solver: kissat404"


def test_solve_writes_a_proof_that_validates(tmp_path, puzzlesat):
    (tmp_path / "u.cnf").write_text(UNSAT_CNF)
    result = puzzlesat("solve", tmp_path / "u.cnf", "--proof", tmp_path / "u.drat")
    assert result.code == 20
    (tmp_path / "u.out").write_text(result.out)
    checked = puzzlesat("validate", tmp_path / "u.cnf", tmp_path / "u.out",
                        "--proof", tmp_path / "u.drat")
    assert checked.code == 0
    assert checked.out.splitlines()[0].startswith(
        f"VERIFIED-UNSAT {tmp_path / 'u.cnf'}: proof verified by puzzlesat-drat, its LRAT "
        f"certificate by puzzlesat-lrat")


def test_time_limit_stops_the_solver(tmp_path, puzzlesat):
    (tmp_path / "php.cnf").write_text(HARD)
    result = puzzlesat("solve", tmp_path / "php.cnf", "--time-limit", "0.5")
    assert result.code == 0
    assert "c CPU limit of 0.5 s reached" in result.out.splitlines()
    cpu = float(next(line for line in result.out.splitlines() if line.startswith("c time: "))
                .split()[-1])
    assert 0.5 <= cpu < 1.5  # the solve call's CPU, stopped at the limit
    assert result.out.splitlines()[-1] == "s UNKNOWN"


def test_v_lines_stay_within_4096_characters(tmp_path, puzzlesat):
    n = 5000  # ~29 k characters of literals
    (tmp_path / "w.cnf").write_text(f"p cnf {n} 1\n-1 0\n")
    result = puzzlesat("solve", tmp_path / "w.cnf")
    v_lines = [line for line in result.out.splitlines() if line.startswith("v")]
    assert len(v_lines) > 7 and max(map(len, v_lines)) <= 4096
    assert parse_output(result.out.encode()).literals.size == n


@pytest.mark.parametrize("args, fragments", [
    (("--solver", "nonesuch"), ("unknown solver 'nonesuch'",)),
    (("--solver", "minisat22", "--proof", "p.drat"), ("minisat22 cannot write proofs",)),
    (("--time-limit", "0"), ("--time-limit",)),
])
def test_solve_usage_errors(tmp_path, puzzlesat, args, fragments):
    (tmp_path / "s.cnf").write_text(SAT_CNF)
    assert_one_line_error(puzzlesat("solve", tmp_path / "s.cnf", *args), *fragments)


# -- suites ---------------------------------------------------------------------------------
def make_suite(root, hard: bool = False):
    """A suite folder by hand: three instances (.cnf.xz), two with a header, and a manifest
    that lies (validate-suite takes the expected result from the instance)."""
    inst = root / "suite" / "instances"
    inst.mkdir(parents=True)
    header = "c expected: SAT\nc expected-from: planted\n"
    (inst / "a.cnf.xz").write_bytes(compress((header + SAT_CNF).encode(), "xz"))
    unsat = "c expected: UNSAT\nc expected-from: proof\n"
    (inst / "b.cnf.xz").write_bytes(compress((unsat + UNSAT_CNF).encode(), "xz"))
    if hard:
        (inst / "c.cnf.xz").write_bytes(compress(HARD.encode(), "xz"))
    (root / "suite" / "manifest.csv").write_text(
        "hash,author,family,result,name,file\nx,y,z,unsat,a,instances/a.cnf.xz\n")
    return root / "suite"


def test_solve_suite_then_validate_suite(tmp_path, puzzlesat):
    """Within a time limit solve-suite answers what a solver can and UNKNOWN for what it
    cannot (with a proof for the UNSAT answer alone); validate-suite judges each answer."""
    suite, results = make_suite(tmp_path, hard=True), tmp_path / "results"
    solved = puzzlesat("solve-suite", suite, results, "-j", "2", "--time-limit", ROOMY_LIMIT,
                       "--proof")
    assert solved.code == 0 and solved.out.strip() == "1 SAT, 1 UNSAT, 1 UNKNOWN"
    # a proof only for the UNSAT answer: no empty .drat stands for a proof that does not exist
    assert sorted(p.name for p in results.iterdir()) == [
        "a.cnf.xz.out", "b.cnf.xz.drat", "b.cnf.xz.out", "c.cnf.xz.out"]
    assert parse_output((results / "a.cnf.xz.out").read_bytes()).time is not None

    checked = puzzlesat("validate-suite", suite, results, "-o", tmp_path / "v.csv")
    assert checked.code == 1  # an answer not verified, as validate says of it
    assert checked.out.strip() == "3 instances: 1 VERIFIED-SAT, 1 VERIFIED-UNSAT, 1 UNKNOWN"
    rows = list(csv.DictReader(open(tmp_path / "v.csv")))
    assert [(r["instance"], r["expected"], r["verdict"]) for r in rows] == [
        ("a.cnf.xz", "SAT", "VERIFIED-SAT"), ("b.cnf.xz", "UNSAT", "VERIFIED-UNSAT"),
        ("c.cnf.xz", "", "UNKNOWN")]
    assert all(float(r["time"]) >= 0 for r in rows)
    # no time to check the proof: the UNSAT answer is left unchecked, not failed
    unchecked = puzzlesat("validate-suite", suite, results, "--proof-time-limit", "1e-9")
    assert unchecked.code == 1
    assert unchecked.out.strip() == "3 instances: 1 VERIFIED-SAT, 1 UNSAT-UNCHECKED, 1 UNKNOWN"

    # a wrong model and a missing output: exit 3, the WRONG row printed, JSON table
    (results / "a.cnf.xz.out").write_text("s SATISFIABLE\nv -1 -2 -3 0\n")
    (results / "b.cnf.xz.out").unlink()
    checked = puzzlesat("validate-suite", suite, results, "-o", tmp_path / "v.json")
    assert checked.code == 3
    assert checked.out.splitlines()[0].startswith("WRONG-MODEL a.cnf.xz: 1 of 2 clauses falsified")
    table = json.loads((tmp_path / "v.json").read_text())
    assert [(t["verdict"], t["reason"]) for t in table][1] == ("UNKNOWN", "no output file b.cnf.xz.out")


def test_suite_usage_errors(tmp_path, puzzlesat):
    assert_one_line_error(puzzlesat("solve-suite", tmp_path, tmp_path / "r"), "not a suite folder")
    suite = make_suite(tmp_path)
    assert_one_line_error(puzzlesat("validate-suite", suite, tmp_path / "none"),
                          "no such results folder")
    (tmp_path / "r").mkdir()
    assert_one_line_error(puzzlesat("validate-suite", suite, tmp_path / "r", "-o", "v.txt"),
                          "must end in .csv or .json")


# -- real clients on generated instances -----------------------------------------------------
#: one small instance per family (SAT, planted) and one UNSAT instance
FAMILY_INSTANCES = [
    ("flow", {"width": 4, "height": 4, "colors": 4}),
    ("edge-matching", {"rows": 3, "cols": 3, "border_colors": 2, "center_colors": 2}),
    ("sliding", {"rows": 2, "cols": 3, "walk": 6}),
]


def binary(name):
    if not shutil.which(name):
        pytest.skip(f"{name} is not installed (apt-get install {name})")
    return name


def run_client(client: str, cnf, out) -> int:
    """Run a Debian solver binary; its answer lands in ``out`` in the client's own format."""
    if client == "minisat":  # MiniSat writes a result file
        return subprocess.run([binary("minisat"), "-verb=0", str(cnf), str(out)],
                              capture_output=True).returncode
    run = subprocess.run([binary(client), str(cnf)], capture_output=True, text=True)
    out.write_text(run.stdout)
    return run.returncode


@pytest.mark.parametrize("client", ["cadical", "minisat", "picosat"])
@pytest.mark.parametrize("family, params", FAMILY_INSTANCES, ids=[f for f, _ in FAMILY_INSTANCES])
def test_real_clients_on_generated_instances(tmp_path, puzzlesat, client, family, params):
    inst = build(family, params, seed=3)
    cnf = tmp_path / "i.cnf"
    write_instance(str(cnf), inst.formula, inst.header())
    assert run_client(client, cnf, tmp_path / "i.out") == 10
    result = puzzlesat("validate", cnf, tmp_path / "i.out", "--json")
    verdict = json.loads(result.out)
    assert (result.code, verdict["verdict"], verdict["puzzle"]["valid"]) == (0, "VERIFIED-SAT", True)
    assert verdict["puzzle"]["family"] == family


@pytest.mark.parametrize("client", ["cadical", "minisat", "picosat"])
def test_real_clients_on_unsat(tmp_path, puzzlesat, client):
    cnf = tmp_path / "u.cnf"
    cnf.write_text(UNSAT_CNF)
    assert run_client(client, cnf, tmp_path / "u.out") == 20
    result = puzzlesat("validate", cnf, tmp_path / "u.out")
    assert result.code == 1 and result.out.startswith("UNSAT-UNCHECKED")


@pytest.mark.parametrize("family, params", FAMILY_INSTANCES, ids=[f for f, _ in FAMILY_INSTANCES])
def test_reference_solver_and_planted_witness_validate_per_family(tmp_path, puzzlesat, family,
                                                                  params):
    inst = build(family, params, seed=5)
    cnf = tmp_path / "i.cnf.xz"
    write_instance(str(cnf), inst.formula, inst.header())
    solved = puzzlesat("solve", cnf)
    (tmp_path / "solver.out").write_text(solved.out)
    model = inst.family.assignment(inst.puzzle, inst.encoding, inst.witness)
    planted = np.where(model[1:], 1, -1) * np.arange(1, model.size)
    (tmp_path / "witness.out").write_text("SAT\n" + " ".join(map(str, planted)) + " 0\n")
    for out in ("solver.out", "witness.out"):
        result = puzzlesat("validate", cnf, tmp_path / out)
        assert result.code == 0, result.out
        assert result.out.splitlines()[1] == (f"puzzle ({family}, encoding {inst.encoding}): "
                                              "solution passes the puzzle's rules")

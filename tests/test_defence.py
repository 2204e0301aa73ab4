"""Defence in depth (issue 20): a planted witness that satisfies the CNF outranks any proof.

An UNSAT claim on such an instance is WRONG-ANSWER whatever the proof says; a proof the checker
verifies there is a checker failure (exit 4), never "the header is wrong". The checker is
replaced by stubs that verify or reject everything, so these tests hold for any checker.
"""

from __future__ import annotations

import json

import pytest

from puzzlesat.generator.core.reader import read_dimacs
from puzzlesat.generator.core.save import write_instance
from puzzlesat.generator.instance import build
from puzzlesat.generator.tracks import get_track
from puzzlesat.validate.evidence import HeaderPuzzle
from puzzlesat.validate.proof import check as proof_module
from puzzlesat.validate.proof.check import ProofCheck
from puzzlesat.validate.tracks import JudgeOptions, judge_files

EDGE = {"rows": 3, "cols": 3, "border_colors": 2, "center_colors": 2}
FLOW = {"width": 4, "height": 4, "colors": 4}


def stub_checker(monkeypatch, ok):
    def check(flat, num_vars, path, checker=None, time_limit=None, lrat=None):
        return ProofCheck(ok, "stub", "s VERIFIED" if ok else "s NOT VERIFIED")

    monkeypatch.setattr(proof_module, "check_proof_file", check)


@pytest.fixture
def planted(tmp_path):
    """A planted SAT edge-matching instance (its header puzzle gives the witness), an UNSAT
    claim and a (any) proof file."""
    inst = build("edge-matching", EDGE, seed=2)
    assert inst.expected == "SAT"
    cnf = tmp_path / "f.cnf.xz"
    write_instance(str(cnf), inst.formula, inst.header())
    (tmp_path / "f.out").write_text("s UNSATISFIABLE\n")
    (tmp_path / "f.drat").write_text("0\n")
    return cnf, tmp_path / "f.out", tmp_path / "f.drat"


def test_the_planted_witness_is_evidence(planted):
    cnf, _, _ = planted
    dimacs = read_dimacs(cnf)
    assert HeaderPuzzle(dimacs, get_track("sat")).witness() == (f"the planted witness satisfies all "
                                              f"{dimacs.num_clauses} clauses")


def test_a_checker_that_verifies_on_a_planted_sat_instance_fails_loudly(planted, puzzlesat,
                                                                        monkeypatch):
    stub_checker(monkeypatch, True)
    cnf, out, drat = planted
    result = puzzlesat("validate", cnf, out, "--proof", drat)
    assert result.code == 4
    lines = result.out.splitlines()
    assert lines[0].startswith(f"WRONG-ANSWER {cnf}: claims UNSAT, but the planted witness "
                               "satisfies all ")
    assert lines[1].startswith("CHECKER FAILURE: stub verified the UNSAT proof (s VERIFIED), "
                               "yet the planted witness satisfies all ")
    assert lines[1].endswith("the proof checker is unsound")
    assert "header is wrong" not in result.out


def test_a_flow_witness_comes_from_the_witness_file(tmp_path, puzzlesat, monkeypatch):
    """A Flow header holds no solution: without --witness the expected SAT is only a claim."""
    stub_checker(monkeypatch, True)
    inst = build("flow", FLOW, seed=2)
    write_instance(str(tmp_path / "f.cnf"), inst.formula, inst.header())
    (tmp_path / "f.json").write_text(json.dumps(inst.witness_json()))
    (tmp_path / "f.out").write_text("s UNSATISFIABLE\n")
    (tmp_path / "f.drat").write_text("0\n")
    args = (tmp_path / "f.cnf", tmp_path / "f.out", "--proof", tmp_path / "f.drat")
    assert puzzlesat("validate", *args).code == 0
    result = puzzlesat("validate", *args, "--witness", tmp_path / "f.json")
    assert result.code == 4 and "CHECKER FAILURE: stub verified" in result.out
    # a witness of another puzzle, or garbage, is no evidence
    other = build("flow", FLOW, seed=3).witness_json()
    for text in (json.dumps(other), "[[[[", "{}"):
        (tmp_path / "f.json").write_text(text)
        assert puzzlesat("validate", *args, "--witness", tmp_path / "f.json").code == 0, text


def test_a_rejected_proof_on_a_planted_sat_instance_is_a_wrong_answer(planted, monkeypatch):
    stub_checker(monkeypatch, False)
    instance, output, proof = planted
    verdict = judge_files(instance, output, JudgeOptions(proof=proof))
    assert (verdict.verdict, verdict.exit_code, verdict.checker_failure) == ("WRONG-ANSWER", 3, "")
    assert verdict.notes == ["proof rejected by stub: s NOT VERIFIED"]


def test_the_bogus_proof_of_issue_20_never_verifies_a_planted_instance(planted, puzzlesat):
    """The five lines that fool dratify, with fresh variables: whatever the checker says, the
    answer is WRONG-ANSWER (exit 4 when the checker is fooled, 3 when it is not)."""
    cnf, out, drat = planted
    v = read_dimacs(cnf).num_vars
    drat.write_text(f"{v + 1} 0\n{v + 2} -{v + 1} 0\nd {v + 2} -{v + 1} 0\n-{v + 2} 0\n0\n")
    result = puzzlesat("validate", cnf, out, "--proof", drat)
    assert result.code in (3, 4) and result.out.startswith("WRONG-ANSWER")
    assert ("CHECKER FAILURE" in result.out) == (result.code == 4)
    assert "header is wrong" not in result.out


def test_without_a_witness_a_verified_proof_beats_the_header(tmp_path, puzzlesat, monkeypatch):
    """An expected SAT with no puzzle to build a witness from is a claim, not evidence."""
    stub_checker(monkeypatch, True)
    (tmp_path / "u.cnf").write_text("c expected: SAT\nc expected-from: hearsay\n"
                                    "p cnf 1 2\n1 0\n-1 0\n")
    (tmp_path / "u.out").write_text("s UNSATISFIABLE\n")
    (tmp_path / "u.drat").write_text("0\n")
    result = puzzlesat("validate", tmp_path / "u.cnf", tmp_path / "u.out",
                       "--proof", tmp_path / "u.drat")
    assert result.code == 0 and result.out.startswith("VERIFIED-UNSAT")
    assert "header expects SAT (hearsay) without a witness that checks" in result.out


def test_validate_suite_reports_a_checker_failure(planted, tmp_path, puzzlesat, monkeypatch):
    stub_checker(monkeypatch, True)
    cnf, out, drat = planted
    suite, results = tmp_path / "suite", tmp_path / "results"
    (suite / "instances").mkdir(parents=True)
    results.mkdir()
    cnf.rename(suite / "instances" / cnf.name)
    out.rename(results / f"{cnf.name}.out")
    drat.rename(results / f"{cnf.name}.drat")
    result = puzzlesat("validate-suite", suite, results)
    assert result.code == 4
    assert result.out.splitlines()[1].startswith(f"CHECKER FAILURE {cnf.name}: stub verified")
    assert result.out.splitlines()[-1] == ("1 instances: 1 WRONG-ANSWER; 1 CHECKER FAILURES "
                                           "(checks that fail only when puzzlesat is wrong)")


def test_validate_suite_takes_a_flow_witness_from_witnesses(tmp_path, puzzlesat, monkeypatch):
    """A published suite's witnesses/<name>.json is the evidence a Flow header lacks."""
    stub_checker(monkeypatch, True)
    inst = build("flow", FLOW, seed=2)
    suite, results = tmp_path / "suite", tmp_path / "results"
    for folder in (suite / "instances", suite / "witnesses", results):
        folder.mkdir(parents=True)
    write_instance(str(suite / "instances" / "f.cnf.xz"), inst.formula, inst.header())
    (results / "f.cnf.xz.out").write_text("s UNSATISFIABLE\n")
    (results / "f.cnf.xz.drat").write_text("0\n")
    assert puzzlesat("validate-suite", suite, results).code == 0  # no witness: a claim
    (suite / "witnesses" / "f.json").write_text(json.dumps(inst.witness_json()))
    result = puzzlesat("validate-suite", suite, results)
    assert result.code == 4 and result.out.splitlines()[1].startswith("CHECKER FAILURE f.cnf.xz")


@pytest.mark.parametrize("expected", ["UNSAT", "UNKNOWN", None])
@pytest.mark.parametrize("checker", [True, False, None])
def test_a_witness_is_evidence_whatever_the_header_expects(tmp_path, monkeypatch, expected,
                                                           checker):
    """A planted witness is checked whatever the header expects: a header tampered to expect UNSAT
    (or nothing) never turns an UNSAT claim on a planted SAT instance into VERIFIED-UNSAT
    (with a proof the checker passes) or UNSAT-UNCHECKED (without one)."""
    if checker is not None:
        stub_checker(monkeypatch, checker)
    inst = build("edge-matching", EDGE, seed=2)
    header = inst.header()
    if expected is None:
        del header["expected"], header["expected-from"]
    else:
        header["expected"], header["expected-from"] = expected, "tampered"
    write_instance(str(tmp_path / "f.cnf"), inst.formula, header)
    (tmp_path / "f.out").write_text("s UNSATISFIABLE\n")
    (tmp_path / "f.drat").write_text("0\n")
    verdict = judge_files(tmp_path / "f.cnf", tmp_path / "f.out", JudgeOptions(
        proof=tmp_path / "f.drat" if checker is not None else None))
    assert verdict.verdict == "WRONG-ANSWER"
    assert verdict.reason.startswith("claims UNSAT, but the planted witness satisfies all ")
    assert verdict.exit_code == (4 if checker else 3)
    said = f"the header expects {expected} (tampered)" if expected else \
        "the header expects no result"
    assert verdict.notes[0] == f"{said}, yet {verdict.reason[len('claims UNSAT, but '):]}: " \
                               "the header is wrong"


def test_a_witness_of_another_instance_or_damaged_is_no_evidence(tmp_path, puzzlesat,
                                                                 monkeypatch):
    """--witness of another edge-matching grid, of the wrong types, huge or deeply nested:
    never evidence, never a traceback; the header's own planted witness still decides."""
    stub_checker(monkeypatch, True)
    inst = build("edge-matching", EDGE, seed=2)
    header = inst.header()
    header["expected"], header["expected-from"] = "UNSAT", "tampered"
    del header["puzzle"]  # no witness from the header: only --witness could be evidence
    write_instance(str(tmp_path / "f.cnf"), inst.formula, header)
    (tmp_path / "f.out").write_text("s UNSATISFIABLE\n")
    (tmp_path / "f.drat").write_text("0\n")
    args = (tmp_path / "f.cnf", tmp_path / "f.out", "--proof", tmp_path / "f.drat")
    other = build("edge-matching", EDGE, seed=3).witness_json()
    for text in (json.dumps(other), json.dumps({"family": "edge-matching", "solution": 7}),
                 json.dumps({"family": "edge-matching", "solution": {"piece": "x"}}),
                 json.dumps({"family": ["edge-matching"], "solution": None}),
                 "[" * 100000 + "]" * 100000, json.dumps({"family": "flow", "solution": [0] * 10**6})):
        (tmp_path / "f.json").write_text(text)
        result = puzzlesat("validate", *args, "--witness", tmp_path / "f.json")
        assert result.code == 0 and result.out.startswith("VERIFIED-UNSAT"), (text[:80], result)

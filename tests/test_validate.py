"""Model checking (fast vs. reference), mutation, verdicts, and decoding down to the puzzle."""

from __future__ import annotations

import sys
import types
from typing import Any
from unittest import mock

import numpy as np
import pytest
import references as reference
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from puzzlesat.generator.core.cnf import Formula, pairwise_at_most_one
from puzzlesat.generator.core.reader import parse_dimacs
from puzzlesat.generator.families import FAMILY_MODULES
from puzzlesat.generator.families.params import Estimate
from puzzlesat.validate import model as model_check
from puzzlesat.validate.answers import MalformedOutput, SolverOutput, parse_output
from puzzlesat.validate.model import falsified_clauses
from puzzlesat.validate.tracks import JudgeOptions
from puzzlesat.validate.tracks.sat.judge import case_of, judge_output
from puzzlesat.validate.tracks.sat.judge import judge as judge_answer


def judge(dimacs, output, proof=None):
    """The SAT judge's verdict on a parsed answer (or the MalformedOutput reading it raised)."""
    if isinstance(output, MalformedOutput):
        return judge_answer(case_of(dimacs), output)
    return judge_output(case_of(dimacs), output, JudgeOptions(proof=proof))


def dimacs_text(clauses, num_vars, header=None) -> bytes:
    head = "".join(f"c {k}: {v}\n" for k, v in (header or {}).items())
    body = "".join(" ".join(map(str, c + [0])) + "\n" for c in clauses)
    return (head + f"p cnf {num_vars} {len(clauses)}\n" + body).encode()


def planted_3sat(rng: np.random.Generator, num_vars: int, num_clauses: int):
    """Random 3-CNF with a planted model: each clause keeps a literal the plant makes true."""
    plant = rng.integers(0, 2, num_vars + 1).astype(bool)
    clauses: list[list[int]] = []
    while len(clauses) < num_clauses:
        vs = rng.choice(np.arange(1, num_vars + 1), 3, replace=False)
        lits = np.where(rng.integers(0, 2, 3) == 1, vs, -vs)
        if any(plant[abs(l)] == (l > 0) for l in lits):
            clauses.append([int(l) for l in lits])
    return clauses


# -- fast check == definition ---------------------------------------------------------------
clause_st = st.lists(st.integers(1, 8).flatmap(lambda v: st.sampled_from([v, -v])),
                     min_size=0, max_size=4)


@settings(max_examples=300, deadline=None)
@given(st.lists(clause_st, max_size=12), st.lists(st.integers(-8, 8).filter(bool), max_size=8))
def test_fast_model_check_matches_reference(clauses, model):
    model = [l for l in dict.fromkeys(model) if -l not in model]  # no contradictions
    flat = np.array([x for c in clauses for x in c + [0]], dtype=np.int32)
    for dense in (model_check._DENSE, 0):  # a truth table, and sorting (huge numbers)
        with mock.patch.object(model_check, "_DENSE", dense):
            assert falsified_clauses(flat, 8, np.array(model, dtype=np.int64)).tolist() == \
                reference.falsified_clauses(clauses, model)


def test_contradictory_or_out_of_range_model_is_malformed():
    flat = np.array([1, 2, 0], dtype=np.int32)
    with pytest.raises(MalformedOutput, match="variable 2 both true and false"):
        falsified_clauses(flat, 3, np.array([2, 1, -2]))
    with pytest.raises(MalformedOutput, match="literal -4 is beyond the instance's 3 variables"):
        falsified_clauses(flat, 3, np.array([1, -4]))


# -- mutation: 1000 solver models, one literal flipped or dropped ---------------------------
def test_mutated_models_are_rejected_exactly_when_a_clause_becomes_false():
    rng = np.random.default_rng(2024)
    rejected = accepted = 0
    for round_ in range(10):
        num_vars = 40
        clauses = planted_3sat(rng, num_vars, 170)
        dimacs = parse_dimacs(dimacs_text(clauses, num_vars))
        with Solver(name="cadical195", bootstrap_with=clauses) as s:
            assert s.solve()
            model = np.array(s.get_model(), dtype=np.int64)
        assert judge(dimacs, SolverOutput("SAT", "competition", model)).verdict == "VERIFIED-SAT"
        for _ in range(100):
            mutant = model.copy()
            i = int(rng.integers(mutant.size))
            if round_ % 2:  # a partial model: drop the literal
                mutant = np.delete(mutant, i)
            else:
                mutant[i] = -mutant[i]
            broken = reference.falsified_clauses(clauses, mutant.tolist())
            verdict = judge(dimacs, SolverOutput("SAT", "competition", mutant))
            if broken:
                assert verdict.verdict == "WRONG-MODEL"
                assert verdict.falsified[0]["clause"] == broken[0] + 1
                assert verdict.falsified[0]["literals"] == clauses[broken[0]]
                rejected += 1
            else:
                assert verdict.verdict == "VERIFIED-SAT"
                accepted += 1
    assert rejected + accepted == 1000
    assert rejected > 300  # the mutation really breaks models, the test is not vacuous


# -- verdicts -------------------------------------------------------------------------------
UNSAT_2 = [[1, 2], [1, -2], [-1, 2], [-1, -2]]


def verdict_of(clauses, num_vars, output: bytes, header=None, proof=None):
    dimacs = parse_dimacs(dimacs_text(clauses, num_vars, header))
    parsed: SolverOutput | MalformedOutput
    try:
        parsed = parse_output(output)
    except MalformedOutput as exc:
        parsed = exc
    return judge(dimacs, parsed, proof)


@pytest.mark.parametrize("clauses, output, header, verdict, fragment, code", [
    ([[1, -2], [2, 3]], b"s SATISFIABLE\nv 1 2 0\n", None, "VERIFIED-SAT", "2 of 3 variables", 0),
    ([[1, -2], [2, 3]], b"s SATISFIABLE\nv -1 2 3 0\n", None, "WRONG-MODEL",
     "1 of 2 clauses falsified, first: clause 1 (1 -2 0)", 3),
    ([[1, -2], [2, 3]], b"s SATISFIABLE\nv 1 -1 0\n", None, "MALFORMED", "both true and false", 3),
    ([[1, -2], [2, 3]], b"s SATISFIABLE\nv 1 4 0\n", None, "MALFORMED", "literal 4 is beyond", 3),
    (UNSAT_2, b"s UNSATISFIABLE\n", None, "UNSAT-UNCHECKED", "no proof", 1),
    (UNSAT_2, b"s UNSATISFIABLE\n", {"expected": "UNSAT", "expected-from": "parity"},
     "UNSAT-UNCHECKED", "consistent with the expected UNSAT (parity)", 1),
    ([[1, 2]], b"s UNSATISFIABLE\n", {"expected": "SAT", "expected-from": "planted"},
     "WRONG-ANSWER", "claims UNSAT, but the instance is SAT (planted)", 3),
    ([[1, 2]], b"s UNKNOWN\n", {"expected": "SAT"}, "UNKNOWN", "no answer", 1),
    ([[1, 2]], b"INDET\n", None, "UNKNOWN", "no answer", 1),
    ([[1, 2]], b"s UNSATISFIABLE\ns UNSATISFIABLE\n", None, "MALFORMED", "two s lines", 3),
])
def test_verdicts(clauses, output, header, verdict, fragment, code):
    v = verdict_of(clauses, 3, output, header)
    assert (v.verdict, v.exit_code) == (verdict, code)
    assert fragment in v.reason


def test_verified_model_overrules_a_wrong_header():
    v = verdict_of([[1, 2]], 2, b"s SATISFIABLE\nv 1 0\n",
                   {"expected": "UNSAT", "expected-from": "a guess"})
    assert v.verdict == "VERIFIED-SAT"
    assert v.notes == ["the header expects UNSAT (a guess): this model shows the header is wrong"]


# -- down to the puzzle: a toy family through the registry ------------------------------------
def _toy_family() -> types.ModuleType:
    """Pick exactly one of n boxes. Encoding "alo" only says at least one (a deliberately weak
    encoding, so a CNF model can break the puzzle rule); "exactly" adds at-most-one pairs."""
    toy: Any = types.ModuleType("puzzlesat.generator.families.toy_for_tests")
    toy.NAME = "toy"
    toy.ENCODINGS = {"exactly": "ALO + pairwise AMO", "alo": "ALO only"}
    toy.puzzle_from_json = lambda data: int(data["n"])
    toy.estimate = lambda params, encoding, n: Estimate(n, n * n, 4 * n * n)

    def encode(n, encoding):
        f = Formula()
        boxes = f.new_vars("box", n)
        f.add("at_least_one", boxes[None])
        if encoding == "exactly":
            f.add("at_most_one", pairwise_at_most_one(boxes[None]))
        return f
    toy.encode = encode
    toy.decode = lambda n, encoding, model: [i for i in range(1, n + 1) if model[i]]
    toy.check = lambda n, picked: [] if len(picked) == 1 else [f"{len(picked)} boxes picked"]
    toy.solution_to_json = lambda picked: picked
    toy.render = lambda n, picked: "".join("X" if i in picked else "." for i in range(1, n + 1))
    return toy


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(FAMILY_MODULES, "toy", "toy_for_tests")
    monkeypatch.setitem(sys.modules, "puzzlesat.generator.families.toy_for_tests", _toy_family())


TOY_HEADER = {"puzzlesat-format": 1, "family": "toy", "encoding": "alo",
              "puzzle": '{"n":3}', "expected": "SAT", "expected-from": "planted"}


def test_model_decodes_and_passes_the_puzzle_check(toy):
    v = verdict_of([[1, 2, 3]], 3, b"s SATISFIABLE\nv -1 2 -3 0\n", TOY_HEADER)
    assert v.verdict == "VERIFIED-SAT" and v.exit_code == 0
    assert v.puzzle.problems == [] and v.puzzle.picture == ".X."
    assert v.text().splitlines()[1:] == [
        "puzzle (toy, encoding alo): solution passes the puzzle's rules", ".X."]


def test_partial_model_is_completed_with_false_before_decoding(toy):
    v = verdict_of([[1, 2, 3]], 3, b"s SATISFIABLE\nv 3 0\n", TOY_HEADER)
    assert v.verdict == "VERIFIED-SAT" and v.puzzle.solution == [3]


def test_cnf_model_that_breaks_the_puzzle_rules_is_reported(toy):
    v = verdict_of([[1, 2, 3]], 3, b"s SATISFIABLE\nv 1 2 -3 0\n", TOY_HEADER)
    assert v.verdict == "VERIFIED-SAT"  # the solver is right: the encoding is too weak
    assert v.puzzle.problems == ["2 boxes picked"]
    assert v.failed and v.exit_code == 3
    assert "puzzle (toy, encoding alo): INVALID: 2 boxes picked" in v.text()
    assert v.to_json()["puzzle"]["valid"] is False


def test_header_puzzle_that_encodes_to_another_cnf_is_a_note_not_a_failure(toy):
    """n = 4 in the header of a 3-box CNF: decoding fails (IndexError), and the header's
    puzzle encoded again shows why."""
    v = verdict_of([[1, 2, 3]], 3, b"s SATISFIABLE\nv 1 -2 -3 0\n", dict(TOY_HEADER, puzzle='{"n":4}'))
    assert v.verdict == "VERIFIED-SAT" and v.exit_code == 0 and v.puzzle is None
    assert v.puzzle_note == ("not decoded: the header puzzle does not match the CNF (it encodes "
                             "to 4 variables and 1 clauses, the file has 3 and 1)")


def test_header_naming_an_unknown_family_still_validates_the_cnf():
    header = dict(TOY_HEADER, family="nonesuch")
    v = verdict_of([[1, 2, 3]], 3, b"s SATISFIABLE\nv 1 0\n", header)
    assert v.verdict == "VERIFIED-SAT" and v.exit_code == 0 and v.puzzle is None
    assert v.puzzle_note.startswith("not decoded: unknown family 'nonesuch'")

"""Certified UNSAT edge matching and Flow (``--unsat parity``): the recoloured side or the
moved endpoint, the counting certificate against a real solver, and the validator's
VERIFIED-UNSAT without a proof, which must not be fooled by a header whose puzzle is not the
CNF's."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver
from references import dimacs_problems

import puzzlesat.generator.families.edgematch as em
import puzzlesat.generator.families.flow as flow
import puzzlesat.generator.families.sliding as sliding
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.reader import read_dimacs
from puzzlesat.generator.core.save import write_instance
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.core.writer import dimacs_bytes
from puzzlesat.generator.families.edgematch.certificate import CERTIFICATE as EM_CERTIFICATE
from puzzlesat.generator.families.edgematch.certificate import odd_colours
from puzzlesat.generator.families.flow.certificate import CERTIFICATE as FLOW_CERTIFICATE
from puzzlesat.generator.families.flow.certificate import balance
from puzzlesat.generator.families.params import normalize_params
from puzzlesat.generator.families.sliding.certificate import CERTIFICATE as SLIDING_CERTIFICATE
from puzzlesat.generator.instance import build

PARAMS = {"rows": 5, "border_colors": 2, "center_colors": 3, "scramble": True}


def variant(params: dict, seed: int):
    """The planted puzzle of ``params`` and its parity variant, from the same seed."""
    plain = em.generate(normalize_params(em, params), Rng(seed))
    odd = em.generate(normalize_params(em, {**params, "unsat": "parity"}), Rng(seed))
    return plain, odd


@settings(max_examples=20, deadline=None)
@given(rows=st.integers(3, 4), extra=st.integers(0, 2), border=st.integers(1, 3),
       center=st.integers(2, 4), seed=st.integers(0, 2**32), signed=st.booleans(),
       scramble=st.booleans(), encoding=st.sampled_from(list(em.ENCODINGS)))
def test_variant_is_refuted_by_counting_and_by_a_solver(rows, extra, border, center, seed,
                                                       signed, scramble, encoding):
    params = {"rows": rows, "cols": rows + extra, "border_colors": border,
              "center_colors": center, "signed": signed, "scramble": scramble}
    plain, odd = variant(params, seed)
    # the planted twin: every colour on an even number of sides, so no certificate
    assert odd_colours(plain) == {}
    assert em.check_certificate(plain, EM_CERTIFICATE)[0] is False
    assert em.expected(plain, params)[0] == "SAT"
    # the variant: one side of one center piece differs, two colours become odd
    changed = np.argwhere(plain.pieces != odd.pieces)
    assert len(changed) == 1
    piece, side = changed[0]
    assert (odd.pieces[piece] != 0).all()  # a center piece, still one
    new, old = int(odd.pieces[piece, side]), int(plain.pieces[piece, side])
    assert 1 <= abs(new) <= center and abs(new) != abs(old) and np.sign(new) == np.sign(old)
    assert sorted(odd_colours(odd)) == sorted([abs(new), abs(old)])
    assert em.check_certificate(odd, EM_CERTIFICATE)[0] is True
    assert em.expected(odd, params) == ("UNSAT", EM_CERTIFICATE)
    assert em.witness(odd) is None
    formula = em.encode(odd, encoding)
    assert dimacs_problems(formula) == []
    with Solver(name="cadical195", bootstrap_with=formula.clauses()) as solver:
        assert solver.solve() is False


def test_certificate_needs_its_name_and_a_frame():
    _, odd = variant(PARAMS, 1)
    assert em.check_certificate(odd, "planted") is None
    unbounded = em.Puzzle(odd.rows, odd.cols, odd.pieces, bounded=False)
    assert em.check_certificate(unbounded, EM_CERTIFICATE)[0] is False


@pytest.mark.parametrize("params,message", [
    ({"rows": 4, "center_colors": 3, "unbounded": True}, "needs the frame"),
    ({"rows": 4, "border_colors": 2, "center_colors": 1}, "at least 2"),
    ({"pieces": "clue1"}, "cannot be combined with --pieces"),
])
def test_variant_refuses_what_counting_cannot_refute(params, message):
    with pytest.raises(UserError, match=message):
        em.generate(normalize_params(em, {**params, "unsat": "parity"}), Rng(1))


def test_variant_name_reproduce_and_bytes():
    inst = build("edge-matching", {**PARAMS, "unsat": "parity"}, "all", 1)
    assert inst.name == "em-5-2-3-scrambled-parity-s1-all"
    assert (inst.expected, inst.expected_from) == ("UNSAT", "parity:colour-count")
    assert "--unsat parity --seed 1 --encoding all" in inst.header()["reproduce"]
    assert hashlib.sha256(dimacs_bytes(inst.formula, inst.header())).hexdigest() == \
        "9bd5ac63b03c4c9fc9c3a8fe4cdb3268be823960fcd515cb8b50c720a050f1b8"


# -- the validator ----------------------------------------------------------------------------
def _unsat_output(tmp_path):
    out = tmp_path / "out"
    out.write_text("c a solver's answer, no proof\ns UNSATISFIABLE\n")
    return out


def _sat_output(tmp_path, formula):
    """A solver's answer with CaDiCaL's model of ``formula``."""
    with Solver(name="cadical195", bootstrap_with=formula.clauses()) as solver:
        assert solver.solve()
        model = solver.get_model()
    out = tmp_path / "sat.out"
    out.write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    return out


def test_validate_cli_certifies_without_a_proof(puzzlesat, tmp_path):
    cnf = tmp_path / "f.cnf.xz"
    made = puzzlesat("generate", "edge-matching", "--rows", "5", "--border-colors", "2",
                     "--center-colors", "3", "--scramble", "--unsat", "parity", "--seed", "1",
                     "--encoding", "all", "-o", cnf)
    assert made.code == 0, made.err
    result = puzzlesat("validate", cnf, _unsat_output(tmp_path))
    assert result.code == 0, result.out + result.err
    assert result.out.startswith("VERIFIED-UNSAT")
    assert "certified by the header: parity:colour-count: colour" in result.out
    assert "the file is the all encoding of that puzzle" in result.out


@pytest.mark.parametrize("seed", range(4))
def test_validate_cli_certifies_a_moved_flow_endpoint_without_a_proof(puzzlesat, tmp_path, seed):
    """A moved endpoint can change the order in which the rows first show the colours, which
    numbers them in every encoding: the header's puzzle keeps that order (its ``labels``), so
    it encodes to the very file and the checkerboard certificate applies (it never did where
    the order changed: "the header puzzle does not match the file")."""
    cnf = tmp_path / "f.cnf"
    made = puzzlesat("generate", "flow", "--width", "5", "--height", "6", "--unsat", "parity",
                     "--seed", str(seed), "-o", cnf)
    assert made.code == 0, made.err
    result = puzzlesat("validate", cnf, _unsat_output(tmp_path))
    assert result.code == 0 and "certified by the header: parity:checkerboard" in result.out, \
        result.out


def test_a_flow_puzzles_colour_order_survives_its_json():
    params = normalize_params(flow, {"width": 5, "height": 6, "unsat": "parity"})
    moved = [flow.generate(params, Rng(seed)) for seed in range(8)]
    assert any("labels" in flow.puzzle_to_json(p) for p in moved)  # the case is met
    for puzzle in moved:
        again = flow.puzzle_from_json(flow.puzzle_to_json(puzzle))
        assert again.labels == puzzle.labels
        assert np.array_equal(again.endpoints, puzzle.endpoints)
    with pytest.raises(UserError, match="puzzle.labels 'XY' are not the colours"):
        flow.puzzle_from_json({"rows": ["AB", "AB"], "labels": "XY"})


def _hostile(tmp_path, header_of, formula_of) -> object:
    cnf = tmp_path / "hostile.cnf.xz"
    write_instance(str(cnf), formula_of.formula, header_of.header())
    return cnf


@pytest.mark.parametrize("params,seed,why", [
    (PARAMS, 1, "it encodes to 345 variables and 1546 clauses, the file has 345 and 1672"),
    # a fifth colour on a type-7 piece: the same counts, so only the GBD hash tells
    ({**PARAMS, "center_colors": 6}, 0, "same counts, other clauses"),
])
def test_header_puzzle_with_odd_counts_over_a_solvable_cnf_is_not_certified(
        puzzlesat, tmp_path, params, seed, why):
    """The header claims the recoloured puzzle; the CNF is its solvable planted twin's."""
    odd = build("edge-matching", {**params, "unsat": "parity"}, "compact", seed)
    plain = build("edge-matching", params, "compact", seed)
    cnf = _hostile(tmp_path, odd, plain)
    result = puzzlesat("validate", cnf, _unsat_output(tmp_path))
    assert result.code == 1, result.out
    assert result.out.startswith("UNSAT-UNCHECKED")
    assert "certificate parity:colour-count not applied: the header puzzle does not match " \
        f"the file ({why})" in result.out
    # and a model of the solvable CNF beats the header
    result = puzzlesat("validate", cnf, _sat_output(tmp_path, plain.formula))
    assert result.out.startswith("VERIFIED-SAT")
    assert "this model shows the header is wrong" in result.out


def test_model_of_a_certified_instance_blames_the_encoding(puzzlesat, tmp_path, monkeypatch):
    """An encoder bug simulated: the family encodes the recoloured puzzle as its solvable twin.
    The header matches that CNF, so a model contradicts a certificate that holds: the note
    blames the encoding and the referee rejects the decoded placement (exit 3)."""
    odd = build("edge-matching", {**PARAMS, "unsat": "parity"}, "compact", 0)
    plain = build("edge-matching", PARAMS, "compact", 0)
    cnf = _hostile(tmp_path, odd, plain)
    monkeypatch.setattr(em, "encode", lambda puzzle, encoding: plain.formula)
    result = puzzlesat("validate", cnf, _sat_output(tmp_path, plain.formula))
    assert result.code == 3, result.out
    assert result.out.startswith("VERIFIED-SAT")
    assert "the header's certificate holds (parity:colour-count: colour" in result.out
    assert "a model of this CNF contradicts it, so the encoding is wrong" in result.out
    assert "INVALID" in result.out


def _claimed_unsat(tmp_path, inst, certificate: str) -> tuple[bool, str]:
    """``inst`` written as liar.cnf with a header claiming UNSAT by ``certificate``, and what
    the validator makes of that claim (:meth:`HeaderPuzzle.certificate`)."""
    from puzzlesat.generator.tracks import get_track
    from puzzlesat.validate.evidence import HeaderPuzzle

    inst.made.expected, inst.made.expected_from = "UNSAT", certificate
    cnf = tmp_path / "liar.cnf"
    write_instance(str(cnf), inst.formula, inst.header())
    return HeaderPuzzle(read_dimacs(cnf), get_track("sat")).certificate()


def test_header_certificate_that_does_not_hold_is_not_trusted(tmp_path):
    """A planted (even) puzzle whose header claims the parity certificate."""
    plain = build("edge-matching", PARAMS, "compact", 1)
    certified, why = _claimed_unsat(tmp_path, plain, EM_CERTIFICATE)
    assert not certified
    assert why.startswith("the header's certificate does not hold: parity:colour-count: every "
                          "colour occurs on an even number of sides")


# -- Flow: one endpoint moved to the other checkerboard colour ---------------------------------
@settings(max_examples=15, deadline=None)
@given(width=st.integers(3, 7), height=st.integers(3, 7), seed=st.integers(0, 2**32),
       encoding=st.sampled_from(list(flow.ENCODINGS)))
def test_flow_variant_is_refuted_by_counting_and_by_a_solver(width, height, seed, encoding):
    params = normalize_params(flow, {"width": width, "height": height})
    plain = flow.generate(params, Rng(seed))
    moved_params = normalize_params(flow, {"width": width, "height": height, "unsat": "parity"})
    moved = flow.generate(moved_params, Rng(seed))
    cells, ends = balance(plain)
    assert cells == ends  # every solvable grid balances
    assert flow.check_certificate(plain, FLOW_CERTIFICATE)[0] is False
    # one endpoint moved to a free cell of the other checkerboard colour
    old, new = np.argwhere((plain.endpoints >= 0) & (moved.endpoints < 0)), \
        np.argwhere((moved.endpoints >= 0) & (plain.endpoints < 0))
    assert len(old) == len(new) == 1 and (old.sum() - new.sum()) % 2 == 1
    assert plain.endpoints[tuple(old[0])] == moved.endpoints[tuple(new[0])]
    assert balance(moved) == (cells, ends + (1 if new.sum() % 2 == 0 else -1))
    assert flow.check_certificate(moved, FLOW_CERTIFICATE)[0] is True
    assert flow.expected(moved, moved_params) == ("UNSAT", FLOW_CERTIFICATE)
    formula = flow.encode(moved, encoding)
    assert dimacs_problems(formula) == []
    with Solver(name="cadical195", bootstrap_with=formula.clauses()) as solver:
        assert solver.solve() is False


def test_flow_variant_cli_and_hostile_header(puzzlesat, tmp_path):
    cnf = tmp_path / "fl.cnf.xz"
    made = puzzlesat("generate", "flow", "--width", "7", "--height", "6", "--unsat", "parity",
                     "--seed", "2", "-o", cnf)
    assert made.code == 0, made.err
    result = puzzlesat("validate", cnf, _unsat_output(tmp_path))
    assert result.code == 0, result.out
    assert result.out.startswith("VERIFIED-UNSAT")
    assert "certified by the header: parity:checkerboard" in result.out
    moved = build("flow", {"width": 7, "height": 6, "unsat": "parity"}, "zucker", 2)
    assert moved.name == "flow-7x6-cauto-parity-s2-zucker"
    plain = build("flow", {"width": 7, "height": 6}, "zucker", 2)
    result = puzzlesat("validate", _hostile(tmp_path, moved, plain), _unsat_output(tmp_path))
    assert result.code == 1 and result.out.startswith("UNSAT-UNCHECKED"), result.out
    assert "certificate parity:checkerboard not applied" in result.out


def test_flow_variant_refuses_level_files():
    with pytest.raises(UserError, match="--unsat does not apply with --puzzle"):
        flow.generate(normalize_params(flow, {"puzzle": "x.txt", "unsat": "parity"}), Rng(1))


def test_sliding_parity_certificate_holds_exactly_for_the_other_parity():
    """Sliding's parity certificate holds when the budget's parity differs from the blank
    square's colour, and not otherwise; any other source names no certificate."""
    start = (1, 0, 2, 3, 4, 5, 6, 7, 8)  # blank on (0, 1): every solution has odd length
    for budget in range(6):
        puzzle = sliding.generate({"start": list(start), "budget": budget, "no_undo": False,
                                   "node_limit": 1000}, Rng(0))
        holds, why = sliding.check_certificate(puzzle, SLIDING_CERTIFICATE)
        assert holds is (budget % 2 == 0), (budget, why)
        assert (sliding.expected(puzzle, {}) == ("UNSAT", SLIDING_CERTIFICATE)) is holds
        assert sliding.check_certificate(puzzle, "optimal-trace") is None
    # and a solver agrees where the certificate holds
    for budget in (2, 4):
        inst = build("sliding", {"start": list(start), "budget": budget}, "rotated")
        with Solver(name="cadical195", bootstrap_with=inst.formula.clauses()) as solver:
            assert not solver.solve()


def test_validate_cli_certifies_sliding_parity_without_a_proof(puzzlesat, tmp_path):
    """An UNSAT answer to a budget of the wrong parity is verified from the header's puzzle."""
    cnf = tmp_path / "s.cnf"
    made = puzzlesat("generate", "sliding", "--start", "1,0,2,3,4,5,6,7,8", "--budget", "4",
                     "-o", cnf)
    assert made.code == 0, made.err
    assert read_dimacs(cnf).header["expected-from"] == "parity"
    result = puzzlesat("validate", cnf, _unsat_output(tmp_path))
    assert result.code == 0, result.out + result.err
    assert result.out.startswith("VERIFIED-UNSAT")
    assert "certified by the header: parity: every move flips the colour" in result.out


def test_sliding_header_parity_that_does_not_hold_is_not_trusted(puzzlesat, tmp_path):
    """A header that claims parity for a budget of the right parity is not believed, and the
    known witness shows the header wrong."""
    solvable = build("sliding", {"start": [1, 0, 2, 3, 4, 5, 6, 7, 8], "budget": 3}, "rotated")
    certified, why = _claimed_unsat(tmp_path, solvable, SLIDING_CERTIFICATE)
    assert not certified
    assert why.startswith("the header's certificate does not hold: parity: the budget 3 has "
                          "the parity of the blank's square"), why
    result = puzzlesat("validate", tmp_path / "liar.cnf", _unsat_output(tmp_path))
    assert result.code == 3, result.out
    assert result.out.startswith("WRONG-ANSWER")

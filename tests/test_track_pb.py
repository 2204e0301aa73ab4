"""The pseudo-Boolean track end to end: OPB instances made with what is known of them (a
planted solution, a parity refutation with the generator's VeriPB proof, a certified optimum),
solved by real PB solvers, judged down to the puzzle, published and bundled as the
Pseudo-Boolean Competition asks; forged proofs and doctored answers never verified."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import lzma
import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_one_line_error

from puzzlesat.generator.core.opb import read_opb
from puzzlesat.generator.instance import build
from puzzlesat.generator.suite import publish_suite, verify_suite
from puzzlesat.generator.suite.calibration import calibration_files
from puzzlesat.generator.suite.manifest import suite_files
from puzzlesat.generator.suite.spec import read_published
from puzzlesat.validate.answers import pb_text
from puzzlesat.validate.proof.cutting_planes import check_refutation, to_version_1
from puzzlesat.validate.tracks.pb.clients import FREE_VARIABLES
from puzzlesat.validate.tracks.pb.clients import names as pb_clients
from puzzlesat.validate.tracks.pb.judge import veripb_constraints

EDGE = {"rows": 4, "cols": 4, "border_colors": 2, "center_colors": 3}
FLOW = {"width": 5, "height": 6}
VERIPB = os.environ.get("PUZZLESAT_VERIPB", "/work/tools/veripb-venv/bin/veripb")


def _write(tmp_path: Path, name: str, family: str, params: dict, encoding: str | None = None):
    inst = build(family, params, encoding=encoding, seed=0, track="pb")
    path = tmp_path / f"{name}.opb"
    inst.track.write(str(path), inst.formula, inst.header())
    witness = inst.witness_json()
    if witness is not None:
        (tmp_path / f"{name}.json").write_text(json.dumps(witness))
    return inst, path


@pytest.fixture
def made(tmp_path):
    """One instance of each kind: planted and parity edge matching and Flow, and the
    optimisation form of a parity board."""
    return {
        "em": _write(tmp_path, "em", "edge-matching", EDGE),
        "em-parity": _write(tmp_path, "em-parity", "edge-matching", {**EDGE, "unsat": "parity"}),
        "flow": _write(tmp_path, "flow", "flow", FLOW),
        "flow-parity": _write(tmp_path, "flow-parity", "flow", {**FLOW, "unsat": "parity"}),
        "em-opt": _write(tmp_path, "em-opt", "edge-matching", {**EDGE, "unsat": "parity"},
                         "unmatched-edges"),
    }


def _proof(inst) -> bytes:
    return inst.made.proof


# -- the instances and their proofs --------------------------------------------------------------

def test_what_each_instance_knows(made):
    assert made["em"][0].expected == "SAT" and made["em"][0].made.proof is None
    assert made["em-parity"][0].expected == "UNSAT"
    assert made["em-parity"][0].expected_from == "parity:colour-count"
    assert made["flow-parity"][0].expected_from == "parity:checkerboard"
    header = made["em-opt"][0].header()
    assert (header["optimum"], header["lower-bound"], header["upper-bound"]) == ("1", "1", "1")
    parsed = read_opb(made["em-opt"][1])
    assert parsed.objective is not None and parsed.header["encoding"] == "unmatched-edges"
    for key in ("em-parity", "flow-parity"):
        witness = json.loads(made[key][1].with_suffix(".json").read_text())
        assert witness["proof-format"] == "VeriPB 2.0"
        assert witness["proof"].encode() == made[key][0].made.proof


@pytest.mark.parametrize("key,steps", [("em-parity", 3), ("flow-parity", 1)])
def test_the_generators_proof_refutes_its_instance(made, key, steps):
    """The proof is checked against the file as written: VeriPB's numbering of its
    constraints (an equality is two), its steps the module docstring's."""
    inst, path = made[key]
    found = check_refutation(veripb_constraints(read_opb(path)), _proof(inst))
    assert found.verified and found.steps == steps, found


def test_a_parity_proof_does_not_refute_the_planted_board(made):
    """The same steps on the planted board (every colour count even) end in no contradiction:
    the proof is about the odd count, not a template that refutes anything."""
    parity = made["em-parity"][0]
    planted = build("edge-matching", EDGE, seed=0, track="pb")
    from puzzlesat.generator.families.edgematch.pb import refutation

    assert refutation(planted.puzzle, "edges") is None  # no odd colour: no proof is written
    found = check_refutation(veripb_constraints(read_opb(made["em"][1])), _proof(parity))
    assert not found.verified and not found.unsupported


@pytest.mark.parametrize("forge", [
    lambda p: p.replace(b" 2 d\n", b" 3 d\n", 1),  # a weaker cut: no contradiction
    lambda p: p.replace(b" 2 *", b" 1 *", 1),  # a piece's side count off by one
    lambda p: p.replace(b"conclusion UNSAT : ", b"conclusion UNSAT : 1", 1),  # another id
])
def test_a_forged_parity_proof_is_rejected(made, forge):
    inst, path = made["em-parity"]
    forged = forge(_proof(inst))
    assert forged != _proof(inst)
    found = check_refutation(veripb_constraints(read_opb(path)), forged)
    assert not found.verified and not found.unsupported, found


@pytest.mark.skipif(not Path(VERIPB).exists(), reason="VeriPB is not installed")
@pytest.mark.parametrize("key", ["em-parity", "flow-parity"])
def test_veripb_agrees_with_our_checker_on_the_generators_proofs(made, tmp_path, key):
    """The referee: VeriPB (the legacy 0.3a0 reads format 1.2, to which the same steps are
    written) verifies each generated proof on the very file, and rejects a forged one."""
    inst, path = made[key]
    proof = _proof(inst)
    count = len(veripb_constraints(read_opb(path)))
    (tmp_path / "p.pbp").write_bytes(to_version_1(proof, count))
    ran = subprocess.run([VERIPB, str(path), str(tmp_path / "p.pbp")], capture_output=True)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    weaker = proof.replace(b" 2 d\n", b" 3 d\n", 1) if key == "em-parity" else \
        proof.replace(b" +\n", b"\n", 1)
    (tmp_path / "f.pbp").write_bytes(to_version_1(weaker, count))
    ran = subprocess.run([VERIPB, str(path), str(tmp_path / "f.pbp")], capture_output=True)
    assert ran.returncode != 0


def test_sat4j_reads_the_files_as_written(made):
    jar = "/usr/share/java/org.sat4j.pb.jar"
    if shutil.which("java") is None or not Path(jar).exists():
        pytest.skip("no sat4j")
    for key, word in (("em", "SATISFIABLE"), ("em-parity", "UNSATISFIABLE"),
                      ("flow-parity", "UNSATISFIABLE"), ("em-opt", "OPTIMUM FOUND")):
        ran = subprocess.run(["java", "-jar", jar, str(made[key][1])], capture_output=True,
                             text=True, timeout=300)
        assert f"s {word}" in ran.stdout.splitlines(), (key, ran.stdout[-500:])


# -- the judge -----------------------------------------------------------------------------------

def _answer(tmp_path: Path, text: bytes) -> Path:
    path = tmp_path / "answer.out"
    path.write_bytes(text)
    return path


def _model(inst) -> np.ndarray:
    module = inst.family.TRACKS["pb"]
    solution = inst.witness if inst.witness is not None else inst.made.certified.arrangement
    return module.assignment_opb(inst.puzzle, inst.encoding, solution)


def test_generate_writes_the_proof_beside_the_instance(tmp_path, puzzlesat):
    """``generate --proof`` writes the parity instance's VeriPB proof, which ``validate``
    verifies; asked of an instance without one, nothing at all is written."""
    args = ["generate", "edge-matching", "--rows", "4", "--cols", "4", "--border-colors", "2",
            "--center-colors", "3", "--format", "opb"]
    made = puzzlesat(*args, "--unsat", "parity", "-o", tmp_path / "p.opb.xz",
                     "--proof", tmp_path / "p.pbp")
    assert made.code == 0, made.err
    assert (tmp_path / "p.pbp").read_bytes().startswith(b"pseudo-Boolean proof version 2.0\n")
    (tmp_path / "p.out").write_text("s UNSATISFIABLE\n")
    judged = puzzlesat("validate", tmp_path / "p.opb.xz", tmp_path / "p.out",
                       "--proof", tmp_path / "p.pbp")
    assert judged.code == 0 and "proof verified by puzzlesat-cutting-planes" in judged.out
    refused = puzzlesat(*args, "-o", tmp_path / "s.opb", "--witness", tmp_path / "s.json",
                        "--proof", tmp_path / "s.pbp")
    assert_one_line_error(refused, "has no proof to write")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.opb.xz", "p.out", "p.pbp"]


def test_a_planted_model_is_verified_down_to_the_puzzle(made, tmp_path, puzzlesat):
    for key in ("em", "flow"):
        inst, path = made[key]
        result = puzzlesat("validate", path, _answer(tmp_path, pb_text("SAT", _model(inst), None)))
        assert result.code == 0 and result.out.startswith("VERIFIED-SAT"), result.out
        assert "solution passes the puzzle's rules" in result.out


def test_a_flipped_variable_is_a_wrong_model(made, tmp_path, puzzlesat):
    inst, path = made["em"]
    model = _model(inst)
    model[1] = not model[1]
    result = puzzlesat("validate", path, _answer(tmp_path, pb_text("SAT", model, None)))
    assert result.code == 3 and result.out.startswith("WRONG-MODEL")


@pytest.mark.parametrize("text,why", [
    (b"s SATISFIABLE\nv x1 x1\n", "given twice"),
    (b"s SATISFIABLE\nv x1 y2\n", "is not x<n> or -x<n>"),
    (b"s SATISFIABLE\nv x1\n", "variables (x2 is missing)"),
    (b"s SATISFIABLE\nv x999999\n", "beyond the instance"),
    (b"s UNSATISFIABLE\nv x1\n", "v lines with s UNSATISFIABLE"),
    (b"s SATISFIABLE\ns SATISFIABLE\n", "a second s line"),
    (b"s MAYBE\n", "unknown status"),
    (b"o 1.5\n", "an o line holds one integer"),
    (b"s SATISFIABLE\n\xff\n", "not ASCII"),
    (b"sSATISFIABLE\n", "first word is not c, s, o or v"),
    (b"s SATISFIABLE\nvx1\n", "first word is not c, s, o or v"),
])
def test_a_doctored_answer_is_malformed(made, tmp_path, puzzlesat, text, why):
    result = puzzlesat("validate", made["em"][1], _answer(tmp_path, text))
    assert result.code == 3 and result.out.startswith("MALFORMED") and why in result.out


def test_unsat_on_a_planted_instance_is_a_wrong_answer(made, tmp_path, puzzlesat):
    for key in ("em", "em-opt"):
        result = puzzlesat("validate", made[key][1],
                           _answer(tmp_path, b"s UNSATISFIABLE\n"))
        assert result.code == 3 and result.out.startswith("WRONG-ANSWER"), result.out


def test_unsat_on_a_parity_instance(made, tmp_path, puzzlesat, monkeypatch):
    """Without a proof the header's certificate verifies it; with the generator's proof our
    checker does; a forged proof is WRONG-PROOF; a proof of another format with no VeriPB to
    read it is not checked, never VERIFIED on its word (the certificate still holds)."""
    inst, path = made["em-parity"]
    answer = _answer(tmp_path, b"s UNSATISFIABLE\n")
    result = puzzlesat("validate", path, answer)
    assert result.code == 0 and "certified by the header: parity:colour-count" in result.out
    (tmp_path / "p.pbp").write_bytes(_proof(inst))
    result = puzzlesat("validate", path, answer, "--proof", tmp_path / "p.pbp")
    assert result.code == 0 and "proof verified by puzzlesat-cutting-planes" in result.out
    (tmp_path / "f.pbp").write_bytes(_proof(inst).replace(b" 2 d\n", b" 3 d\n", 1))
    result = puzzlesat("validate", path, answer, "--proof", tmp_path / "f.pbp")
    assert result.code == 3 and result.out.startswith("WRONG-PROOF")
    (tmp_path / "v2.pbp").write_bytes(b"pseudo-Boolean proof version 2.0\nf 544\n"
                                      b"rup >= 1 ;\nconclusion UNSAT : 545\n")
    monkeypatch.delenv("PUZZLESAT_VERIPB", raising=False)
    monkeypatch.setenv("PATH", "")
    result = puzzlesat("validate", path, answer, "--proof", tmp_path / "v2.pbp")
    assert result.code == 0 and "proof not checked" in result.out
    assert "VeriPB is not installed" in result.out


@pytest.mark.parametrize("proof, why", [
    (b"pseudo-Boolean proof version 1.2\n", "only a version 2 proof is sent to VeriPB"),
    (b"pseudo-Boolean proof version 1.2\nf 2\npol x1 ~x1 + x2 + x3 + 3 * s\n"
     b"pol 3 1 3 * + 2 3 * +\nc 4\n", "only a version 2 proof is sent to VeriPB"),
    (b"pseudo-Boolean proof version 2.0\nf 2\nrup >= 1 ;\n", "no 'conclusion UNSAT'"),
])
def test_veripbs_yes_is_taken_only_for_a_version_2_unsat_conclusion(tmp_path, puzzlesat,
                                                                     monkeypatch, proof, why):
    """VeriPB 0.3 exits 0 on a version 1 proof that derives nothing, and saturates unsoundly
    (the second proof "refutes" a satisfiable formula through it): a VeriPB that says yes to
    everything verifies nothing but a version 2 proof that concludes UNSAT."""
    yes = tmp_path / "veripb"
    yes.write_text("#!/bin/sh\necho 'Verification succeeded.'\n")
    yes.chmod(0o755)
    monkeypatch.setenv("PUZZLESAT_VERIPB", str(yes))
    (tmp_path / "sat.opb").write_text("* #variable= 3 #constraint= 2\n+1 x2 >= 1 ;\n"
                                      "+1 x3 >= 1 ;\n")
    (tmp_path / "p.pbp").write_bytes(proof)
    answer = _answer(tmp_path, b"s UNSATISFIABLE\n")
    result = puzzlesat("validate", tmp_path / "sat.opb", answer, "--proof", tmp_path / "p.pbp")
    assert result.out.startswith("UNSAT-UNCHECKED") and why in result.out, result.out


def test_an_objective_without_a_header_is_checked_for_its_cost(tmp_path, puzzlesat):
    """No header certifies an optimum: the model's cost is checked against the o line, and an
    optimum claim is unchecked, never malformed or verified."""
    (tmp_path / "o.opb").write_text("* #variable= 2 #constraint= 1\nmin: +1 x1 +1 x2 ;\n"
                                    "+1 x1 +1 x2 >= 1 ;\n")
    for text, verdict in ((b"o 1\ns OPTIMUM FOUND\nv x1 -x2\n", "OPTIMUM-UNCHECKED"),
                          (b"o 1\ns SATISFIABLE\nv x1 -x2\n", "VERIFIED-COST"),
                          (b"o -7\ns SATISFIABLE\nv x1 -x2\n", "WRONG-COST")):
        result = puzzlesat("validate", tmp_path / "o.opb", _answer(tmp_path, text))
        assert result.out.startswith(verdict), result.out


def test_valid_proofs_in_veripbs_other_spellings_verify(made, tmp_path, puzzlesat):
    """The red team's rewrites of the generator's last step, relative ids (``pol -2 -1 +``)
    and a trailing `` ;``, are the same valid proof: VERIFIED-UNSAT, not WRONG-PROOF."""
    inst, path = made["em-parity"]
    answer = _answer(tmp_path, b"s UNSATISFIABLE\n")
    last = re.search(rb"\npol ([0-9]+) ([0-9]+) \+\n", _proof(inst))
    assert last is not None
    for spelling in (b"pol -2 -1 +", last[0].strip() + b" ;"):
        proof = _proof(inst).replace(last[0], b"\n" + spelling + b"\n")
        assert proof != _proof(inst)
        (tmp_path / "p.pbp").write_bytes(proof)
        result = puzzlesat("validate", path, answer, "--proof", tmp_path / "p.pbp")
        assert result.code == 0 and "proof verified by puzzlesat-cutting-planes" in result.out


def test_the_judge_bounds_the_checker(made, tmp_path, monkeypatch, puzzlesat):
    """check_pb_proof gives our checker the proof time limit (one already spent: not
    checked), the instance's #variable= (an axiom beyond it is not read) and a budget (a
    proof that asks too much is not checked), and reads at most MAX_PROOF_BYTES (a longer
    proof is not checked); none of these is a rejection. validate passes its
    --proof-time-limit."""
    from puzzlesat.validate.tracks.pb import judge

    monkeypatch.delenv("PUZZLESAT_VERIPB", raising=False)
    monkeypatch.setenv("PATH", "")  # no VeriPB: what ours does not check stays not checked
    inst, path = made["em-parity"]
    case = judge.open_case(path)
    n = case.parsed.num_vars
    proof = _proof(inst)
    at_output = proof.index(b"output NONE")

    def check(text: bytes, time_limit: float | None = None):
        (tmp_path / "p.pbp").write_bytes(text)
        return judge.check_pb_proof(case, tmp_path / "p.pbp", time_limit)

    assert check(proof)[0] is True
    assert check(proof, time_limit=-1.0) == (
        None, "puzzlesat-cutting-planes",
        "the proof was not checked in time (the proof time limit is -1 s)")
    # one step more, after the contradiction: an axiom on the last variable, then beyond it
    assert check(proof[:at_output] + f"pol x{n} 1 +\n".encode() + proof[at_output:])[0]
    ok, checker, why = check(proof[:at_output] + f"pol x{n + 1} 1 +\n".encode()
                             + proof[at_output:])
    assert ok is None and checker == "VeriPB" and f"`x{n + 1}` is on no variable of the " \
        f"instance (it has {n})" in why and "VeriPB is not installed" in why
    # the red team's amplifier: a constraint on every variable, then copies of it
    wide = len(judge.veripb_constraints(case.parsed)) + 4  # after the generator's 3 steps
    copies = ("pol x1 " + " ".join(f"x{v} +" for v in range(2, n + 1)) + "\n"
              + f"pol {wide} 1 *\n" * 3000).encode()
    ok, checker, why = check(proof[:at_output] + copies + proof[at_output:])
    assert ok is None and "too costly to check here" in why and "VeriPB is not installed" in why
    monkeypatch.setattr(judge, "MAX_PROOF_BYTES", len(proof) - 1)
    assert check(proof) == (None, "puzzlesat-cutting-planes", f"{tmp_path / 'p.pbp'}: longer "
                            f"than {len(proof) - 1:,} bytes, the most the proof can hold")
    # validate hands its --proof-time-limit to check_pb_proof
    given = []
    monkeypatch.setattr(judge, "check_pb_proof",
                        lambda case, proof, limit=None: given.append(limit) or (None, "x", "y"))
    puzzlesat("validate", path, _answer(tmp_path, b"s UNSATISFIABLE\n"), "--proof",
              tmp_path / "p.pbp", "--proof-time-limit", "7")
    assert given == [7.0]


def test_optimum_claims(made, tmp_path, puzzlesat):
    inst, path = made["em-opt"]
    model = _model(inst)
    cost = read_opb(path).cost(model)
    assert cost == 1
    for status, claimed, verdict in (("OPTIMUM", 1, "VERIFIED-OPTIMUM"),
                                     ("SAT", 1, "VERIFIED-COST"), ("OPTIMUM", 0, "WRONG-COST")):
        result = puzzlesat("validate", path, _answer(tmp_path, pb_text(status, model, claimed)))
        assert result.out.startswith(verdict), result.out


# -- real solvers --------------------------------------------------------------------------------

@pytest.mark.parametrize("client", ["exact", "scip", "sat4j"])
def test_each_client_solves_and_its_answers_are_verified(made, tmp_path, puzzlesat, client):
    if client not in pb_clients():
        pytest.skip(f"{client} is not installed")
    for key, verdict, code in (("em", "VERIFIED-SAT", 10), ("flow-parity", "VERIFIED-UNSAT", 20),
                               ("em-opt", "VERIFIED-OPTIMUM", 30)):
        result = puzzlesat("solve", made[key][1], "--solver", client)
        assert result.code == code, (key, result.out, result.err)
        out = _answer(tmp_path, result.out.encode())
        judged = puzzlesat("validate", made[key][1], out)
        assert judged.out.startswith(verdict), (key, judged.out)


#: sliding Korf #9 cut at k = 8: (generate's options, what a solver answers, the verdict and
#: what it says): budget k (the trace), k − 2 (the trace's optimality: no proof is written),
#: k − 1 (parity, a certificate the judge checks), and the optimisation form with 2 spare steps
SLIDING = [
    ((), 10, "VERIFIED-SAT", "solution passes the puzzle's rules"),
    (("--budget", "6"), 20, "UNSAT-UNCHECKED",
     "no proof; consistent with the expected UNSAT (optimal-trace)"),
    (("--budget", "7"), 20, "VERIFIED-UNSAT", "certified by the header: parity"),
    (("--budget", "10", "--encoding", "fewest-moves"), 30, "VERIFIED-OPTIMUM",
     "cost 8 is the certified optimum"),
]


@pytest.mark.parametrize("client", ["exact", "scip", "sat4j"])
def test_sliding_forms_are_solved_and_judged(tmp_path, puzzlesat, client):
    """Each sliding form, generated as a user would, solved by each PB solver and judged:
    the trace and the optimum verified down to the puzzle, the UNSAT budgets as far as
    their certificates go."""
    if client not in pb_clients():
        pytest.skip(f"{client} is not installed")
    for i, (options, code, verdict, said) in enumerate(SLIDING):
        path = tmp_path / f"s{i}.opb"
        made = puzzlesat("generate", "sliding", "--korf", "9", "--k", "8", *options,
                         "--format", "opb", "-o", path)
        assert made.code == 0, made.err
        result = puzzlesat("solve", path, "--solver", client)
        assert result.code == code, (options, result.out, result.err)
        judged = puzzlesat("validate", path, _answer(tmp_path, result.out.encode()))
        assert judged.out.startswith(verdict) and said in judged.out, (options, judged.out)


def test_an_unknown_pb_solver_is_one_line(made, puzzlesat):
    assert_one_line_error(puzzlesat("solve", made["em"][1], "--solver", "nosuch"),
                          "nosuch")


@pytest.mark.parametrize("command", ["show", "validate", "solve"])
def test_a_counts_line_below_a_comment_is_named_as_such(tmp_path, puzzlesat, command):
    """Line 1 a comment and line 2 the counts line (which Sat4j reads on line 1 only): the
    OPB reader says so (before, the file was taken for DIMACS: "no 'p cnf' line")."""
    path = tmp_path / "late.opb"
    path.write_text("* a comment\n* #variable= 1 #constraint= 1\n+1 x1 >= 1 ;\n")
    more = [_answer(tmp_path, b"s SATISFIABLE\nv x1\n")] if command == "validate" else []
    assert_one_line_error(puzzlesat(command, path, *more), f"{path}: line 1: not the counts "
                          "line", "the counts line comes first, before any comment")


def _declaring(tmp_path: Path, variables: int) -> Path:
    """A 1-constraint file over x1 whose counts line declares ``variables``."""
    path = tmp_path / f"v{variables}.opb"
    path.write_text(f"* #variable= {variables} #constraint= 1\n+1 x1 >= 1 ;\n")
    return path


@pytest.mark.parametrize("client", ["exact", "scip", "sat4j", "command"])
def test_variables_the_text_did_not_pay_for_are_refused_before_any_solver_runs(
        tmp_path, puzzlesat, client):
    """A solver answers for every variable declared (Exact names each, SCIP and our model keep
    an array, Sat4j its own): 262144 of them declared in 48 bytes is refused in one line
    before any solver runs (before, each client built and printed them all; #variable=
    2147483647 took Exact 3.7 GB and a MemoryError). Up to 65536 are solved whatever the
    size, and the judge still reads such a file and verifies a full answer."""
    marker = tmp_path / "ran"
    if client == "command":
        solver = ["--solver-command", f"touch {marker} {{cnf}}"]
    elif client in pb_clients():
        solver = ["--solver", client]
    else:
        pytest.skip(f"{client} is not installed")
    many = _declaring(tmp_path, 4 * FREE_VARIABLES)
    assert_one_line_error(puzzlesat("solve", many, *solver), f"{many}: line 1 declares "
                          "#variable= 262144 but the text names only x1..x1: more variables "
                          "than its 48 bytes of text")
    assert not marker.exists()
    answer = "v x1 " + " ".join(f"-x{v}" for v in range(2, 4 * FREE_VARIABLES + 1))
    judged = puzzlesat("validate", many, _answer(tmp_path, f"s SATISFIABLE\n{answer}\n".encode()))
    assert judged.out.startswith("VERIFIED-SAT"), judged.out
    free = puzzlesat("solve", _declaring(tmp_path, FREE_VARIABLES), *solver)
    assert free.code == (0 if client == "command" else 10) and (client != "command"
                                                                or marker.exists()), free.err


# -- a suite and its bundle ----------------------------------------------------------------------

SUITE = """[suite]
name = "pb-tiny"
author = "T. Tester"
version = "1"
seed = 1
compression = "xz"

[[group]]
family = "edge-matching"
format = "opb"
replicates = 2
params = { rows = 4, cols = 4, border_colors = 2, center_colors = 3 }

[[group]]
family = "edge-matching"
format = "opb"
replicates = 2
params = { rows = 4, cols = 4, border_colors = 2, center_colors = 3, unsat = "parity" }

[[group]]
family = "flow"
format = "opb"
params = { width = 5, height = 6, unsat = "parity" }

[[group]]
family = "edge-matching"
format = "opb"
encoding = "unmatched-edges"
params = { rows = 4, cols = 4, border_colors = 2, center_colors = 3, unsat = "parity" }

[[group]]
family = "sliding"
format = "opb"
params = { korf = 9 }
zip = { k = [8, 8], budget = [8, 6] }
"""


def test_a_pb_suite_is_published_verified_and_bundled_by_domain(tmp_path, puzzlesat):
    (tmp_path / "pb.toml").write_text(SUITE)
    publish_suite(tmp_path / "pb.toml", tmp_path / "suite")
    assert verify_suite(tmp_path / "suite").differences == []
    # the description's tables call the rows constraints and say how each answer is known
    described = (tmp_path / "suite" / "description.md").read_text()
    assert "| name | encoding | variables | constraints |" in described
    assert "## Pseudo-Boolean instances" in described
    assert described.count("parity:colour-count + proof") == 2
    assert "| opt 1 | certified bounds |" in described
    assert "As linear constraints: " in described
    assert r"\begin{table*}" in (tmp_path / "suite" / "description.tex").read_text()
    result = puzzlesat("submission", tmp_path / "suite", "-o", tmp_path / "bundle")
    assert result.code == 0, result.err
    bundle = tmp_path / "bundle"
    domains = sorted(p.name for p in bundle.iterdir() if p.is_dir())
    assert domains == ["edge-matching-optimum", "edge-matching-parity", "edge-matching-planted",
                       "flow-parity", "sliding-sat", "sliding-unsat"]
    proofs = sorted(p.name for p in bundle.glob("*/*.pbp"))
    assert len(proofs) == 3  # two parity boards and the Flow grid
    rows = list(csv.DictReader(io.StringIO((bundle / "metadata.csv").read_text())))
    assert {r["answer"] for r in rows} == {"SAT", "UNSAT", "OPTIMUM"}
    for row in rows:
        if row["proof"]:
            proof = (bundle / row["proof"]).read_bytes()
            opb = tmp_path / "plain.opb"
            opb.write_bytes(lzma.decompress((bundle / row["file"]).read_bytes()))
            assert check_refutation(veripb_constraints(read_opb(opb)), proof).verified
    with tarfile.open(bundle.with_name("bundle.tar.xz")) as tar:
        assert "bundle/flow-parity/" in " ".join(tar.getnames()) + "/"


def _doctor(suite: Path, name: str, edit) -> None:
    """Rewrite instance ``name`` of a published suite with ``edit(text) -> text`` (its header
    doctored), the manifest and sums updated as a forger would."""
    spec, instances = read_published(suite)
    row = next(r for r in instances if r["name"] == name)
    path = suite / row["file"]
    text = edit(lzma.decompress(path.read_bytes()))
    path.write_bytes(lzma.compress(text))
    head = dict(line[2:].split(": ", 1) for line in text.decode().splitlines()
                if line.startswith("* ") and ": " in line)
    row.update({"result": head["expected"].lower(), "expected-from": head["expected-from"],
                "sha256": hashlib.sha256(path.read_bytes()).hexdigest()})
    if "optimum" not in head:
        row.pop("optimum", None)
    for rel, data in suite_files(spec, instances, calibration_files(suite)).items():
        (suite / rel).write_bytes(data)


def test_an_answer_known_by_construction_is_replayed_not_taken_from_the_header(
        tmp_path, puzzlesat):
    """A sliding UNSAT has no certificate to check (its answer is a trace's optimality): the
    bundle takes it once the start is replayed on the trace its origin names, further from
    the goal than the budget. A budget that reaches the goal, whose header (and manifest,
    checksums updated) says UNSAT, is refused."""
    (tmp_path / "pb.toml").write_text(SUITE)
    suite = tmp_path / "suite"
    publish_suite(tmp_path / "pb.toml", suite)
    _doctor(suite, "sliding-korf9-k8-b8-moves",
            lambda text: text.replace(b"* expected: SAT\n", b"* expected: UNSAT\n", 1))
    result = puzzlesat("submission", suite, "-o", tmp_path / "bundle")
    assert result.code == 1 and ("sliding-korf9-k8-b8-moves: UNSAT not certified again (the "
                                 "header's known answer does not hold: optimal-trace: the "
                                 "start lies 8 moves before the goal" in result.out), result.out
    assert "and the budget 8 reaches it" in result.out
    assert not (tmp_path / "bundle").exists()


def test_an_optimisation_header_without_its_bounds_is_refused(tmp_path, puzzlesat):
    """The red team's forgery: a fewest-moves file whose budget has the other parity, its
    header's optimum lines deleted and its answer made 'UNSAT (parity)'. Parity says nothing
    of a form whose steps may stay, so no certificate applies to an optimisation encoding,
    and its header must state bounds that replay: validate and the bundle refuse it (it was
    VERIFIED-UNSAT, and bundled as UNSAT)."""
    path = tmp_path / "f.opb"
    made = puzzlesat("generate", "sliding", "--korf", "9", "--k", "8", "--budget", "11",
                     "--encoding", "fewest-moves", "--format", "opb", "-o", path)
    assert made.code == 0, made.err
    lines = [line for line in path.read_text().splitlines()
             if not line.startswith(("* optimum", "* lower-bound", "* upper-bound"))]
    text = "\n".join(lines).replace("* expected-from: an optimal path padded with stays "
                                     "meets every constraint", "* expected-from: parity")
    path.write_text(text.replace("* expected: SAT", "* expected: UNSAT") + "\n")
    assert_one_line_error(puzzlesat("validate", path, _answer(tmp_path, b"s UNSATISFIABLE\n")),
                          "the header states bounds")
    (tmp_path / "pb.toml").write_text(SUITE + """
[[group]]
family = "sliding"
format = "opb"
encoding = "fewest-moves"
params = { korf = 9, k = 8, budget = 11 }
""")
    suite = tmp_path / "suite"
    publish_suite(tmp_path / "pb.toml", suite)
    _doctor(suite, "sliding-korf9-k8-b11-fewest-moves", lambda _: path.read_bytes())
    (suite / "witnesses" / "sliding-korf9-k8-b11-fewest-moves.json").unlink(missing_ok=True)
    assert_one_line_error(puzzlesat("submission", suite, "-o", tmp_path / "bundle"),
                          "the header states bounds")
    assert not (tmp_path / "bundle").exists()


@pytest.mark.parametrize("fmt, encoding", [("opb", "fewest-moves"), ("wcnf", "rotated")])
def test_an_optimum_without_a_proved_distance_is_refused(tmp_path, puzzlesat, fmt, encoding):
    """The red team's: IDA* stopped at its node limit proves only a lower bound (12 of the
    true 16); a budget of 12 made the optimisation form unsatisfiable, published as SAT."""
    assert_one_line_error(puzzlesat("generate", "sliding", "--rows", "3", "--cols", "3",
                                    "--walk", "16", "--node-limit", "1", "--budget", "12",
                                    "--format", fmt, "--encoding", encoding, "-o",
                                    tmp_path / f"x.{fmt}"), "distance is not proved")


@pytest.mark.parametrize("fmt", ["opb", "wcnf"])
def test_a_header_asking_for_an_endless_search_is_one_line(tmp_path, puzzlesat, fmt):
    """validate replays the IDA* search a header's params name to certify its bounds: a
    node limit of 10^12 (hours of search, from a file of a few kilobytes) is refused as a
    user's --node-limit is, before any search."""
    path = tmp_path / f"w.{fmt}"
    made = puzzlesat("generate", "sliding", "--rows", "3", "--cols", "3", "--walk", "12",
                     "--format", fmt, "--encoding", "fewest-moves" if fmt == "opb" else "rotated",
                     "-o", path)
    assert made.code == 0, made.err
    text = path.read_text()
    assert '"node_limit":5000000' in text
    path.write_text(text.replace('"node_limit":5000000', '"node_limit":1000000000000'))
    assert_one_line_error(puzzlesat("validate", path, _answer(tmp_path, b"s UNSATISFIABLE\n")),
                          "header params: --node-limit: must be at most 100000000")
    assert_one_line_error(puzzlesat("generate", "sliding", "--rows", "3", "--cols", "3",
                                    "--walk", "12", "--node-limit", "1000000000000", "-o",
                                    tmp_path / "x.cnf"), "--node-limit")


@pytest.mark.parametrize("fmt", ["opb", "wcnf"])
def test_a_file_a_header_names_is_never_opened(tmp_path, puzzlesat, fmt):
    """The red team's: a header whose params name a piece file made validate open that path
    on the validating machine (to size the replay) and print what it read. The header's
    puzzle is the file's content, so it is sized instead: the path is never read, and the
    params no longer replay the planted upper bound."""
    path = tmp_path / f"e.{fmt}"
    made = puzzlesat("generate", "edge-matching", "--rows", "4", "--cols", "4",
                     "--border-colors", "2", "--center-colors", "3", "--unsat", "parity",
                     "--format", fmt, "--encoding",
                     "unmatched-edges" if fmt == "opb" else "sides", "-o", path)
    assert made.code == 0, made.err
    secret = tmp_path / "secret.txt"
    secret.write_text("token-4711 is not for the header\n")
    mark = "* params: {" if fmt == "opb" else "c params: {"
    text = path.read_text()
    assert mark in text
    path.write_text(text.replace(mark, mark + json.dumps({"pieces": str(secret)})[1:-1] + ",",
                                 1))
    result = puzzlesat("validate", path, _answer(tmp_path, b"s UNSATISFIABLE\n"))
    assert_one_line_error(result, "the header states bounds (1, 1, 1)")
    assert "token" not in result.out + result.err


def test_a_fewest_moves_form_of_budget_0_is_one_line(tmp_path, puzzlesat):
    assert_one_line_error(puzzlesat("generate", "sliding", "--korf", "9", "--k", "0",
                                    "--encoding", "fewest-moves", "--format", "opb", "-o",
                                    tmp_path / "z.opb"), "--budget 0 leaves no move to minimise")
    assert not (tmp_path / "z.opb").exists()


@pytest.mark.parametrize("forgery, said", [
    ("unsat-as-planted", "the manifest says expected sat, the instance's header unsat"),
    ("optimum-0", "the manifest says optimum 0, the instance's header 1")])
def test_a_bundles_answers_come_from_the_instances_not_the_manifest(tmp_path, puzzlesat,
                                                                    forgery, said):
    """A manifest doctored with its checksums (a parity instance called planted SAT, an
    optimum of 1 called 0): the bundle is refused before anything is written; the answers
    it writes are each instance's, certified again from its file."""
    (tmp_path / "pb.toml").write_text(SUITE)
    suite = tmp_path / "suite"
    publish_suite(tmp_path / "pb.toml", suite)
    spec, instances = read_published(suite)
    if forgery == "unsat-as-planted":
        row = next(r for r in instances if r["result"] == "unsat")
        row.update({"result": "sat", "expected-from": "planted"})
    else:
        row = next(r for r in instances if r.get("optimum") not in (None, "unknown"))
        row["optimum"] = "0"
    for rel, data in suite_files(spec, instances, calibration_files(suite)).items():
        (suite / rel).write_bytes(data)
    assert_one_line_error(puzzlesat("submission", suite, "-o", tmp_path / "bundle"), said)
    assert not (tmp_path / "bundle").exists()


def test_a_suite_whose_proof_was_tampered_with_is_not_bundled(tmp_path, puzzlesat):
    (tmp_path / "pb.toml").write_text(SUITE)
    publish_suite(tmp_path / "pb.toml", tmp_path / "suite")
    witness = next(p for p in sorted((tmp_path / "suite" / "witnesses").iterdir())
                   if " 2 d\n" in json.loads(p.read_text()).get("proof", ""))
    data = json.loads(witness.read_text())
    data["proof"] = data["proof"].replace(" 2 d\n", " 3 d\n", 1)
    witness.write_text(json.dumps(data))
    result = puzzlesat("submission", tmp_path / "suite", "-o", tmp_path / "bundle")
    assert result.code != 0 and "proof does not check" in result.err + result.out
    assert not (tmp_path / "bundle").exists()

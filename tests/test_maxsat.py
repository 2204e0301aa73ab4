"""MaxSAT instances end to end: certified optima of edge matching and sliding, RC2 reaching
them, and the validator accepting exactly the answers it can justify."""

from __future__ import annotations

import shlex
import sys

import numpy as np
import pytest
from conftest import assert_one_line_error

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.core.wcnf import read_wcnf
from puzzlesat.generator.families.edgematch import maxsat as em
from puzzlesat.generator.families.edgematch.puzzle import Solution
from puzzlesat.generator.instance import build
from puzzlesat.validate.answers import MalformedOutput, maxsat_text, parse_maxsat_output
from puzzlesat.validate.runs.limits import TimeLimit
from puzzlesat.validate.tracks.maxsat.clients import run as run_maxsat
from puzzlesat.validate.tracks.maxsat.judge import Certified, open_case
from puzzlesat.validate.tracks.maxsat.judge import judge as judge_maxsat

EM = ("edge-matching", "--rows", "4", "--cols", "4", "--border-colors", "2",
      "--center-colors", "3")


def build_maxsat(family: str, params: dict, seed: int = 0):
    """The MaxSAT instance ``generate --format wcnf`` builds."""
    return build(family, params, seed=seed, track="maxsat")


def generate(puzzlesat, path, *args):
    """``generate ... --format wcnf -o path --witness path.json``; the witness path."""
    result = puzzlesat("generate", *args, "--format", "wcnf", "-o", path,
                       "--witness", f"{path}.json")
    assert result.code == 0, result.err
    return f"{path}.json"


def solved(puzzlesat, tmp_path, instance):
    """RC2's answer to ``instance`` written to a file; (exit code, path)."""
    result = puzzlesat("solve", instance, "--time-limit", "300")
    out = tmp_path / "rc2.out"
    out.write_text(result.out)
    return result.code, out


@pytest.mark.parametrize("extra, optimum", [((), 0), (("--unsat", "parity"), 1),
                                            (("--unsat", "parity", "--scramble"), 1)])
def test_edge_matching_reaches_its_certified_optimum(tmp_path, puzzlesat, extra, optimum):
    """A planted board has optimum 0, a parity board optimum 1; RC2 finds it and validate
    verifies it, the decoded board showing that many unmatched edges."""
    instance = tmp_path / "em.wcnf.xz"
    witness = generate(puzzlesat, instance, *EM, *extra)
    assert read_wcnf(instance).header["optimum"] == str(optimum)
    code, out = solved(puzzlesat, tmp_path, instance)
    assert code == 30 and f"o {optimum}\n" in out.read_text()
    result = puzzlesat("validate", instance, out, "--witness", witness)
    assert result.code == 0, result.out
    assert result.out.startswith(f"VERIFIED-OPTIMUM {instance}: cost {optimum} is the certified")
    assert "solution passes the puzzle's rules" in result.out


def test_sliding_reaches_the_optimal_length(tmp_path, puzzlesat):
    """Korf instance 9 cut at k = 4 with budget 7: the optimum is 4 moves (3 stays)."""
    instance = tmp_path / "sl.wcnf"
    generate(puzzlesat, instance, "sliding", "--korf", "9", "--k", "4", "--budget", "7")
    code, out = solved(puzzlesat, tmp_path, instance)
    assert code == 30 and "o 4\n" in out.read_text()
    result = puzzlesat("validate", instance, out, "--json")
    assert result.code == 0 and '"verdict": "VERIFIED-OPTIMUM"' in result.out
    assert result.out.count(".") >= 3  # the decoded trace stays three times


def test_bounds_of_several_recoloured_sides():
    """Recolouring two sides: the lower bound is half the odd colours, the upper bound the
    planted arrangement's unmatched edges; certified only when they meet."""
    params = {"rows": 5, "cols": 5, "border_colors": 2, "center_colors": 4}
    inst = build_maxsat("edge-matching", params, seed=1)
    puzzle = inst.puzzle
    centre = np.flatnonzero((puzzle.pieces != 0).all(axis=1))
    puzzle.pieces[centre[0], 0] = 4 if puzzle.pieces[centre[0], 0] != 4 else 3
    puzzle.pieces[centre[-1], 2] = 1 if puzzle.pieces[centre[-1], 2] != 1 else 2
    b = em.bounds(puzzle, inst.params, Rng(1))
    odd = sum(1 for n in np.unique(np.abs(puzzle.pieces[puzzle.pieces != 0]),
                                   return_counts=True)[1] if n % 2)
    assert b.lower == -(-odd // 2) and b.upper == 2
    assert b.optimum == (2 if b.lower == 2 else None)


def test_eternity2_records_the_best_known_score():
    """The real Eternity II board: lower bound 0, no certified optimum, the literature's best
    score in the header."""
    from puzzlesat.generator.families import get_family

    family = get_family("edge-matching")
    params = {"pieces": "eternity2"}
    puzzle = family.generate(params, Rng(0))
    b = em.bounds(puzzle, params, Rng(0))
    assert (b.lower, b.upper, b.optimum) == (0, None, None)
    assert "467 of 480" in b.best_known


@pytest.fixture
def parity(tmp_path, puzzlesat):
    """A parity instance (optimum 1), its witness, and RC2's answer."""
    instance = tmp_path / "p.wcnf"
    witness = generate(puzzlesat, instance, *EM, "--unsat", "parity")
    code, out = solved(puzzlesat, tmp_path, instance)
    assert code == 30
    return instance, witness, out


def forged(tmp_path, text: str):
    path = tmp_path / "forged.out"
    path.write_text(text)
    return path


def test_a_forged_o_line_is_wrong_cost(tmp_path, puzzlesat, parity):
    """The last o line must be the model's cost: claiming 0 for a model of cost 1 fails."""
    instance, _, out = parity
    text = out.read_text().replace("o 1\n", "o 2\no 0\n")
    result = puzzlesat("validate", instance, forged(tmp_path, text))
    assert result.code == 3 and result.out.startswith("WRONG-COST")
    assert "the last o line says 0, the model costs 1" in result.out


def test_a_forged_optimum_claim_is_wrong_answer(tmp_path, puzzlesat, parity):
    """OPTIMUM FOUND with a correct o line for a worse placement (two pieces swapped)."""
    instance, witness, _ = parity
    inst = build_maxsat("edge-matching", {"rows": 4, "cols": 4, "border_colors": 2,
                                        "center_colors": 3, "unsat": "parity"}, seed=0)
    piece = inst.certified.arrangement.piece.copy()
    piece[[5, 10]] = piece[[10, 5]]  # two center squares of a 4x4 board
    worse = Solution(piece, inst.certified.arrangement.rotation)
    model = em.assignment_wcnf(inst.puzzle, "sides", worse)
    cost = inst.formula.cost(model)
    assert cost > 1
    text = maxsat_text("OPTIMUM", model, cost).decode()
    result = puzzlesat("validate", instance, forged(tmp_path, text))
    assert result.code == 3, result.out
    assert result.out.startswith(f"WRONG-ANSWER {instance}: OPTIMUM FOUND at cost {cost}, "
                                 "the certified optimum is 1")
    satisfiable = text.replace("OPTIMUM FOUND", "SATISFIABLE")
    result = puzzlesat("validate", instance, forged(tmp_path, satisfiable))
    assert result.code == 0 and result.out.startswith("VERIFIED-COST")


@pytest.mark.parametrize("edit, verdict, message", [
    (lambda t: t.replace("\nv ", "\nv 0"), "MALFORMED", "the instance has 616 variables"),
    (lambda t: t.replace("\nv 0", "\nv 2"), "MALFORMED", "one string of 0 and 1"),
    (lambda t: t.replace("\nv ", "\nv 1 "), "MALFORMED", "one string of 0 and 1"),
    (lambda t: t + "v 0\n", "MALFORMED", "a second v line"),
    (lambda t: t + "s UNKNOWN\n", "MALFORMED", "a second s line"),
    (lambda t: t.replace("o 1\n", ""), "MALFORMED", "without an o line"),
    (lambda t: t.replace("o 1\n", "o -1\n"), "MALFORMED", "non-negative integer"),
    (lambda t: t + "x\n", "MALFORMED", "neither c, s, o nor v"),
    (lambda t: "s UNSATISFIABLE\n", "WRONG-ANSWER", "a known arrangement"),
    (lambda t: "s UNKNOWN\n", "UNKNOWN", "no answer"),
])
def test_bad_answers_get_their_verdict(tmp_path, puzzlesat, parity, edit, verdict, message):
    """Each malformed or false answer is named, never a traceback."""
    instance, _, out = parity
    text = out.read_text()
    text = text[text.index("o 1"):]  # the c lines dropped: no comment interferes
    result = puzzlesat("validate", instance, forged(tmp_path, edit(text)))
    assert result.out.startswith(f"{verdict} {instance}"), result.out
    assert message in result.out.splitlines()[0]


def test_a_model_breaking_a_hard_clause_is_wrong_model(tmp_path, puzzlesat, parity):
    """Flipping the model's first true variable (a piece placement) falsifies a hard clause."""
    instance, _, out = parity
    text = out.read_text()
    v = text.index("\nv ") + 3
    first = text.index("1", v)
    result = puzzlesat("validate", instance, forged(tmp_path, text[:first] + "0"
                                                    + text[first + 1:]))
    assert result.code == 3 and result.out.startswith("WRONG-MODEL")


def test_a_cost_below_the_lower_bound_is_a_checker_failure(parity):
    """A model of checked cost below the certified lower bound indicts the certificate
    (exit 4), not the solver."""
    instance, _, out = parity
    case = open_case(instance)
    case.certified = Certified(2, 2, 2, "a wrong certificate", True)
    verdict = judge_maxsat(case, out.read_bytes())
    assert verdict.exit_code == 4 and "below the certified lower bound 2" in \
        verdict.checker_failure


def test_a_tampered_header_is_refused(tmp_path, puzzlesat, parity):
    """A header whose optimum its puzzle does not certify, or whose puzzle encodes to other
    clauses, is the instance's fault: one line, exit 2."""
    instance, _, out = parity
    text = instance.read_bytes()
    (tmp_path / "opt.wcnf").write_bytes(text.replace(b"c optimum: 1", b"c optimum: 0"))
    result = puzzlesat("validate", tmp_path / "opt.wcnf", out)
    assert_one_line_error(result, "the header states bounds")
    at = text.index(b"\nh ") + 3
    swapped = text[:at] + (b"-" if text[at:at + 1] != b"-" else b"") + text[at:]
    (tmp_path / "cl.wcnf").write_bytes(swapped)
    result = puzzlesat("validate", tmp_path / "cl.wcnf", out)
    assert_one_line_error(result, "does not encode to this file")


def test_rc2_past_its_time_limit_answers_unknown(tmp_path, puzzlesat):
    """RC2 runs in a killable child: past the limit it is killed and the answer is UNKNOWN."""
    instance = tmp_path / "hard.wcnf"
    generate(puzzlesat, instance, "sliding", "--korf", "9", "--k", "12", "--budget", "16")
    result = run_maxsat("rc2", instance, TimeLimit(1.0))
    assert result.status == "UNKNOWN" and result.exit_code == 0
    assert "CPU limit of 1 s reached" in result.text()


FAKE_MAXSAT = '''
import sys
answer = open(sys.argv[1]).read()
print("c a fake MaxSAT solver")
sys.stdout.write(answer)
sys.exit(30)
'''


def test_an_external_maxsat_binary(tmp_path, puzzlesat, parity):
    """--solver-command runs an external MaxSAT program on the plain WCNF and keeps its
    output; validate judges it like RC2's."""
    instance, _, out = parity
    script = tmp_path / "fake.py"
    script.write_text(FAKE_MAXSAT)
    answer = out.read_text()
    (tmp_path / "answer").write_text(answer[answer.index("o 1"):])
    command = shlex.join([sys.executable, str(script), str(tmp_path / "answer")]) + " {cnf}"
    result = puzzlesat("solve", instance, "--solver-command", command)
    assert result.code == 30, result.err
    assert "c a fake MaxSAT solver\no 1\ns OPTIMUM FOUND\n" in result.out
    (tmp_path / "ext.out").write_text(result.out)
    assert puzzlesat("validate", instance, tmp_path / "ext.out").code == 0


def test_families_without_a_maxsat_form_say_so(tmp_path, puzzlesat):
    """``--format wcnf`` on flow (its generate offers cnf and opb), or on an unbounded
    edge-matching board: one clear line; the Python API names the families that have one."""
    result = puzzlesat("generate", "flow", "--format", "wcnf", "-o", tmp_path / "f.wcnf")
    assert_one_line_error(result, "'wcnf' is not one of 'cnf', 'opb'")
    with pytest.raises(UserError, match=r"no MaxSAT form \(--format wcnf\): edge-matching, "
                                        r"sliding have one"):
        build("flow", {"width": 4, "height": 4}, track="maxsat")
    result = puzzlesat("generate", "edge-matching", "--rows", "3", "--center-colors", "3",
                       "--unbounded", "--format", "wcnf", "-o", tmp_path / "u.wcnf")
    assert_one_line_error(result, "bounded, unsigned puzzles only")
    assert not (tmp_path / "u.wcnf").exists()


def test_output_parser_reads_the_evaluation_format():
    """Comments, several o lines (the last counts), the status words, the 0/1 v line."""
    out = parse_maxsat_output(b"c hi\no 5\no 3\ns OPTIMUM FOUND\nv 0110\n", 4)
    assert (out.status, out.costs, out.values) == ("OPTIMUM", [5, 3], "0110")
    assert parse_maxsat_output(b"s UNSATISFIABLE\n", 4).status == "UNSAT"
    with pytest.raises(MalformedOutput):
        parse_maxsat_output(b"s OPTIMUM\n", 4)
    with pytest.raises(UserError):
        build_maxsat("sliding", {"korf": 9, "k": 6, "budget": 4})


MSE_TINY = b"""
[suite]
name = "mse-tiny"
author = "T. Tester"
version = "1"
seed = 5

[[group]]
family = "edge-matching"
format = "wcnf"
params = { rows = 4, cols = 4, border_colors = 2, center_colors = 3, unsat = "parity" }

[[group]]
family = "sliding"
format = "wcnf"
params = { korf = 9, k = 4, budget = 6 }
"""


def test_a_wcnf_suite_is_published_verified_solved_and_validated(tmp_path, puzzlesat):
    """publish writes .wcnf.xz instances with their optimum in the manifest, verify
    regenerates them byte for byte, solve-suite runs RC2, validate-suite verifies both."""
    (tmp_path / "s.toml").write_bytes(MSE_TINY)
    suite, results = tmp_path / "suite", tmp_path / "results"
    assert puzzlesat("publish", tmp_path / "s.toml", "-o", suite, "-j", "1").code == 0
    files = sorted(p.name for p in (suite / "instances").iterdir())
    assert files == ["em-4-2-3-parity-r1-sides.wcnf.xz", "sliding-korf9-k4-b6-rotated.wcnf.xz"]
    manifest = (suite / "manifest.json").read_text()
    assert '"optimum": "1"' in manifest and '"optimum": "4"' in manifest
    assert puzzlesat("verify", suite, "-j", "1").code == 0
    result = puzzlesat("solve-suite", suite, results, "--time-limit", "300")
    assert result.code == 0 and "2 OPTIMUM" in result.out
    result = puzzlesat("validate-suite", suite, results)
    assert result.code == 0 and "2 VERIFIED-OPTIMUM" in result.out
    result = puzzlesat("show", suite / "instances" / files[0])
    assert result.code == 0 and "soft clauses: 24 (total weight 24)" in result.out


def test_sequential_counter_against_pairwise():
    """For every assignment of 5 members, the counter's clauses (with some auxiliaries) are
    satisfiable exactly when at most one member is true, and the auxiliaries' computed values
    satisfy them then."""
    import itertools

    from puzzlesat.generator.core.cardinality import (
        sequential_at_most_one,
        sequential_aux_values,
    )
    from puzzlesat.generator.core.wcnf import falsified_mask

    members, aux = np.array([[1, 2, 3, 4, 5]]), np.array([[6, 7, 8, 9]])
    clauses = sequential_at_most_one(members, aux)
    flat = np.concatenate([clauses, np.zeros((len(clauses), 1), int)], axis=1).reshape(-1)
    for bits in itertools.product([False, True], repeat=5):
        model = np.zeros(10, dtype=bool)
        model[1:6] = bits
        some = any(not falsified_mask(flat, np.concatenate([model[:6], s])).any()
                   for s in itertools.product([False, True], repeat=4))
        assert some == (sum(bits) <= 1), bits
        if sum(bits) <= 1:
            model[6:] = sequential_aux_values(model, members)[0]
            assert not falsified_mask(flat, model).any()


def test_the_maxsat_bundle(tmp_path, puzzlesat):
    """submission --track maxsat writes instances/<name>.wcnf.xz, metadata.csv with each
    instance's certified optimum and bounds, the description and a reproducible archive; a
    CNF suite is refused with one line."""
    import csv
    import tarfile

    from conftest import publish_tiny

    (tmp_path / "s.toml").write_bytes(MSE_TINY)
    suite = tmp_path / "suite"
    assert puzzlesat("publish", tmp_path / "s.toml", "-o", suite, "-j", "1").code == 0
    result = puzzlesat("submission", suite, "--track", "maxsat", "-o", tmp_path / "b")
    assert result.code == 0, result.err
    rows = list(csv.DictReader((tmp_path / "b" / "metadata.csv").open()))
    assert [(r["file"], r["optimum"], r["lower-bound"], r["upper-bound"]) for r in rows] == [
        ("em-4-2-3-parity-r1-sides.wcnf.xz", "1", "1", "1"),
        ("sliding-korf9-k4-b6-rotated.wcnf.xz", "4", "4", "4")]
    archive = (tmp_path / "b.tar.xz").read_bytes()
    with tarfile.open(tmp_path / "b.tar.xz") as tar:
        names = sorted(tar.getnames())
    assert "b/instances/em-4-2-3-parity-r1-sides.wcnf.xz" in names
    assert "b/description.tex" in names and "b/metadata.csv" in names
    assert puzzlesat("submission", suite, "--track", "maxsat", "-o", tmp_path / "b").code == 0
    assert (tmp_path / "b.tar.xz").read_bytes() == archive
    (tmp_path / "sat").mkdir()
    sat = publish_tiny(tmp_path / "sat")
    result = puzzlesat("submission", sat, "--track", "maxsat", "-o", tmp_path / "c")
    assert_one_line_error(result, "are not maxsat instances")


def test_the_picture_marks_unmatched_edges():
    """The description's picture of an arrangement draws each unmatched inner edge in red:
    one for a parity board's planted arrangement, none for the puzzle alone."""
    inst = build_maxsat("edge-matching", {"rows": 4, "cols": 4, "border_colors": 2,
                                        "center_colors": 3, "unsat": "parity"}, seed=0)
    assert inst.family.render_tikz(inst.puzzle, inst.certified.arrangement).count("draw[red") == 1
    assert inst.family.render_tikz(inst.puzzle).count("draw[red") == 0

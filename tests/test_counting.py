"""Model-counting instances: the file format, the counts certified two ways, the counters and the
judge of their answers."""

from __future__ import annotations

import itertools
import lzma
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_one_line_error

from puzzlesat.generator.core.counting import Projection, projection_of, read_projection
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.head import scan_comments
from puzzlesat.generator.core.reader import parse_dimacs, read_dimacs
from puzzlesat.generator.families.counting import count_by_enumeration
from puzzlesat.generator.families.edgematch import count as em_count
from puzzlesat.generator.families.edgematch.count import (
    MAX_NODES,
    SearchBound,
    count_boards,
    orientations,
)
from puzzlesat.generator.families.edgematch.puzzle import load_pieces
from puzzlesat.generator.families.sliding import npuzzle
from puzzlesat.generator.families.sliding.count import count_sequences
from puzzlesat.generator.families.sliding.puzzle import Puzzle as SlidingPuzzle
from puzzlesat.generator.instance import build
from puzzlesat.validate.answers import MalformedOutput as MalformedCount
from puzzlesat.validate.answers import parse_count_output
from puzzlesat.validate.runs.certify import CheckedSolving
from puzzlesat.validate.tracks import JudgeOptions, judge_files
from puzzlesat.validate.tracks.mc.judge import judge_count

PMC2 = Projection("pmc", np.array([1, 2], dtype=np.int32))


def counted(family, params, encoding, seed=1):
    """A counting instance built as ``generate --count`` builds it."""
    return build(family, params, encoding, seed, solving=CheckedSolving(), track="mc")


def cnf_count(inst) -> int | None:
    """The instance's projected count by certified enumeration through its CNF."""
    return count_by_enumeration(inst.formula, inst.formula.projection.shown, 200_000,
                                CheckedSolving()).value


# -- the file format --------------------------------------------------------------------------
def test_count_lines_frame_the_header_and_leave_the_gbd_hash_alone(tmp_path, puzzlesat):
    """--count adds 'c t pmc' as the first line and 'c p show ... 0' after the p line; the
    clauses, hence the GBD hash, are those of the plain instance, and the file regenerates byte
    for byte."""
    args = ["generate", "sliding", "--rows", "2", "--cols", "3", "--start", "1,2,0,3,4,5",
            "--budget", "4"]
    assert puzzlesat(*args, "-o", tmp_path / "plain.cnf").code == 0
    assert puzzlesat(*args, "--count", "-o", tmp_path / "a.cnf.xz").code == 0
    assert puzzlesat(*args, "--count", "-o", tmp_path / "b.cnf.xz").code == 0
    assert (tmp_path / "a.cnf.xz").read_bytes() == (tmp_path / "b.cnf.xz").read_bytes()
    text = lzma.decompress((tmp_path / "a.cnf.xz").read_bytes()).decode()
    lines = text.splitlines()
    assert lines[0] == "c t pmc"
    p = next(i for i, line in enumerate(lines) if line.startswith("p cnf"))
    assert lines[p + 1].startswith("c p show ") and lines[p + 1].endswith(" 0")
    # LL with a back-and-forth before, between or after: LRLL LLRL LLDU DULL LDUL
    assert "c count: 5" in lines and "c count-from: exhaustive-search:puzzle-moves" in lines
    assert "--count" in next(line for line in lines if line.startswith("c reproduce:"))
    counting, plain = read_dimacs(tmp_path / "a.cnf.xz"), read_dimacs(tmp_path / "plain.cnf")
    assert counting.gbd_hash == plain.gbd_hash
    assert np.array_equal(counting.literals, plain.literals)
    shown = read_projection(counting.comments, counting.num_vars, "a").shown
    assert shown.size == 2 * 4  # two move bits per step


def test_edge_matching_has_no_auxiliary_variables_so_its_track_is_mc():
    """Edge matching shows every variable: 'c t mc' and no show line."""
    inst = counted("edge-matching", {"pieces": "four-squares"}, "compact")
    assert inst.formula.projection.type == "mc"
    head = inst.formula.projection
    assert head.size == inst.formula.num_vars


@pytest.mark.parametrize("comments, error", [
    (["c t pmc", "c t pmc"], "2 'c t' lines"),
    (["c t wmc"], "track wmc"),
    (["c t mc", "c p show 1 0"], "'c t mc' with a 'c p show'"),
    (["c p show 1 0"], "without a 'c t' line"),
    (["c t pmc", "c p show 1 5 0"], "variable 5, beyond"),
    (["c t pmc", "c p show 0 0"], "holds another 0"),
    (["c t pmc", "c p show -2 0"], "variable -2"),
    (["c t pmc", "c p show 1 2"], "does not end in 0"),
    (["c t pmc", "c p show 1 x 0"], "not a variable"),
    (["c t pmc", "c p show 99999999999999999999 0"], "not a variable"),
])
def test_a_file_that_contradicts_itself_is_one_clear_error(comments, error):
    """Hostile track and show lines: a UserError naming the problem."""
    with pytest.raises(UserError, match=error):
        read_projection(scan_comments("\n".join(comments).encode(), "f.cnf"), 4, "f.cnf")


def test_projection_reads_back_and_pmc_without_show_is_every_variable():
    """A pmc file without a show line projects onto every variable; several show lines join."""
    assert read_projection(scan_comments(b"c x\n"), 3, "f") is None
    assert read_projection(scan_comments(b"c t pmc\n"), 3, "f").shown.tolist() == [1, 2, 3]
    both = read_projection(scan_comments(b"c t pmc\nc p show 3 0\nc p show 1 3 0\n"), 3, "f")
    assert both.shown.tolist() == [1, 3]
    assert projection_of([2, 1], 2).type == "mc" and projection_of([2], 2).type == "pmc"
    text = b"c t pmc\np cnf 3 1\nc p show 2 3 0\n1 2 3 0\n"
    dimacs = parse_dimacs(text)
    assert read_projection(dimacs.comments, 3, "f").shown.tolist() == [2, 3]


# -- sliding: counts two ways ------------------------------------------------------------------
def brute_force_sequences(puzzle: SlidingPuzzle) -> int:
    """Every sequence of ``budget`` letters, replayed (the plain reference)."""
    goal, total = npuzzle.goal(puzzle.rows, puzzle.cols), 0
    for moves in itertools.product(npuzzle.MOVES, repeat=puzzle.budget):
        if puzzle.no_undo and any(npuzzle.INVERSE[a] == b for a, b in zip(moves, moves[1:])):
            continue
        try:
            end = npuzzle.replay(puzzle.start, puzzle.rows, puzzle.cols, "".join(moves))[-1]
        except ValueError:
            continue
        total += end == goal
    return total


@pytest.mark.parametrize("start, rows, cols", [((1, 0, 2, 3), 2, 2), ((1, 2, 0, 3, 4, 5), 2, 3),
                                               ((3, 1, 2, 0, 4, 5), 2, 3)])
@pytest.mark.parametrize("extra", [0, 2, 4])
@pytest.mark.parametrize("no_undo", [False, True])
def test_sliding_count_equals_replaying_every_move_sequence(start, rows, cols, extra, no_undo):
    """The breadth-first count equals the number of letter sequences that replay to the goal."""
    distance = npuzzle.ida_star(start, rows, cols).distance
    puzzle = SlidingPuzzle(rows, cols, start, distance + extra, no_undo, distance, distance,
                           None, "ida*", "start")
    assert count_sequences(puzzle) == brute_force_sequences(puzzle)


@pytest.mark.parametrize("encoding", ["rotated", "rotated-onehot", "direct"])
@pytest.mark.parametrize("extra", [0, 2])
def test_sliding_count_equals_enumeration_through_the_cnf(encoding, extra):
    """The optimal length k and k + 2: the puzzle's own count equals the CNF's projected count,
    in every encoding (each step is exactly one move; no stay step)."""
    inst = counted("sliding", {"rows": 2, "cols": 3, "start": [3, 1, 2, 4, 0, 5],
                               "budget": 2 + extra}, encoding)
    assert inst.certified.source == "exhaustive-search:puzzle-moves"
    assert inst.certified.value == cnf_count(inst) > 0


def test_sliding_counts_reach_beyond_ten_to_the_twenty():
    """A 2x3 board with a long budget: an exact count past 10^20, by multiplicity."""
    puzzle = SlidingPuzzle(2, 3, (1, 2, 0, 3, 4, 5), 60, False, None, 0, None, "start", "start")
    assert count_sequences(puzzle) == 1768122215607190859610


# -- edge matching: counts two ways ------------------------------------------------------------
def test_orientations_merge_rotations_that_show_the_same_colours():
    """aaaa has one orientation, abab two, abcd four."""
    assert len(orientations([1, 1, 1, 1])) == 1
    assert len(orientations([1, 2, 1, 2])) == 2
    assert len(orientations([1, 2, 3, 4])) == 4


@pytest.mark.parametrize("encoding", ["compact", "fbcolors", "explicit", "all"])
def test_four_squares_count_is_the_same_by_search_and_through_every_encoding(encoding):
    """The Four Squares puzzle (unbounded 2x2): 72 boards, whole-board rotations included."""
    inst = counted("edge-matching", {"pieces": "four-squares"}, encoding)
    assert inst.certified.value == count_boards(load_pieces("four-squares")) == 72
    assert cnf_count(inst) == 72


@pytest.mark.parametrize("params", [
    {"rows": 4, "border_colors": 3, "center_colors": 3},
    {"rows": 4, "border_colors": 2, "center_colors": 3, "scramble": True},
    {"rows": 5, "border_colors": 3, "center_colors": 4},
    {"rows": 3, "border_colors": 2, "center_colors": 2, "signed": True},
    {"rows": 3, "cols": 4, "border_colors": 2, "center_colors": 2},
])
def test_planted_board_count_is_the_same_by_search_and_through_the_cnf(params):
    """Planted boards (4x4, 5x5, signed, a rectangle): the backtracking search over the pieces
    and the enumeration through the CNF agree; a square board's count is a multiple of 4 (its
    four rotations), a rectangle's of 2."""
    inst = counted("edge-matching", params, "compact")
    assert inst.certified.source == "exhaustive-search:pieces"
    assert inst.certified.value == cnf_count(inst) >= 1
    square = params["rows"] == params.get("cols", params["rows"])
    assert inst.certified.value % (4 if square else 2) == 0


def test_parity_unsat_board_counts_zero_from_its_certificate():
    """An UNSAT-by-construction instance has count 0, known by the same certificate."""
    inst = counted("edge-matching", {"rows": 4, "border_colors": 2, "center_colors": 3,
                                     "unsat": "parity"}, "compact")
    assert (inst.certified.value, inst.certified.source) == (0, inst.expected_from)
    assert count_boards(inst.puzzle) == 0


def test_board_search_stops_at_its_bound():
    """Past ``max_nodes`` candidates placed the search stops with the bound in one line."""
    with pytest.raises(SearchBound, match="passed its bound of 10 candidates placed"):
        count_boards(load_pieces("four-squares"), max_nodes=10)
    assert count_boards(load_pieces("four-squares"), max_nodes=10_000) == 72


def test_a_board_past_the_bound_has_an_unknown_count_never_a_guess(monkeypatch, tmp_path,
                                                                   puzzlesat):
    """generate --count past the bound: the note names the bound, the header says unknown, and
    a counter's answer on it is UNCHECKED (the validator counts again with the same bound)."""
    monkeypatch.setattr(em_count, "MAX_NODES", 10)
    path = tmp_path / "fs.cnf"
    run = puzzlesat("generate", "edge-matching", "--pieces", "four-squares", "--count",
                    "-o", path)
    assert run.code == 0 and "mc count unknown (none (the search over the pieces passed its " \
        "bound of 10 candidates placed))" in run.err, run.err
    assert read_dimacs(path).header["count"] == "unknown"
    out = tmp_path / "o.out"
    out.write_text(answer("72", track="mc"))
    run = puzzlesat("validate-count", path, out)
    assert run.code == 1 and run.out.startswith("UNCHECKED"), run.out


def test_the_mc_suites_boards_stay_within_the_search_bound():
    """Every edge-matching board of suites/mc-puzzles.toml is counted within MAX_NODES."""
    from puzzlesat.generator.core.seeds import Rng
    from puzzlesat.generator.families import get_family
    from puzzlesat.generator.suite.spec import load_spec

    spec = load_spec(Path(__file__).parent.parent / "suites" / "mc-puzzles.toml")
    boards = [task for task in spec.tasks if task.family == "edge-matching"]
    assert len(boards) >= 4
    family = get_family("edge-matching")
    for task in boards:
        puzzle = family.generate(task.params, Rng(task.seed or 0), None)
        assert count_boards(puzzle, MAX_NODES) >= 1, task.name


# -- flow ----------------------------------------------------------------------------------------
def test_unique_flow_grid_counts_one_and_enumeration_agrees():
    """A --unique grid under acyclic: count 1 from the generator's proof, 1 by enumeration."""
    inst = counted("flow", {"width": 4, "height": 4, "unique": True}, "acyclic")
    assert inst.certified.value == 1 and inst.certified.source.startswith("unique:")
    assert cnf_count(inst) == 1


def test_flow_enumeration_counts_stray_cycles_under_zucker_not_acyclic(tmp_path):
    """A level whose middle columns only cycles can fill: zucker has 2 projected models (the
    stray cycles), acyclic none; both counts certified by enumeration and a checked proof."""
    level = tmp_path / "lv.txt"
    level.write_text("A..B\n....\n....\nA..B\n")
    zucker = counted("flow", {"puzzle": str(level)}, "zucker")
    acyclic = counted("flow", {"puzzle": str(level)}, "acyclic")
    assert zucker.certified.value == 2 and acyclic.certified.value == 0
    assert zucker.certified.source == "enumeration:cadical195+puzzlesat-drat"
    assert zucker.formula.projection.type == "pmc"


def test_enumeration_gives_up_past_its_limit():
    """More models than the limit: no count (never a wrong one)."""
    inst = counted("edge-matching", {"pieces": "four-squares"}, "compact")
    shown = inst.formula.projection.shown
    assert count_by_enumeration(inst.formula, shown, 10, CheckedSolving()).value is None


# -- judging a counter's answer -------------------------------------------------------------------
def answer(count: str, kind: str = "exact", status: str = "SATISFIABLE", track: str = "pmc",
           log10: str | None = None, extra: str = "") -> str:
    lines = [f"s {status}", f"c s type {track}", f"c s {kind} arb int {count}", extra]
    if log10 is not None:
        lines.append(f"c s log10-estimate {log10}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("text, certified, verdict", [
    (answer("2", log10="0.30103"), 2, "VERIFIED"),
    (answer("3"), 2, "WRONG-ANSWER"),
    (answer("2"), None, "UNCHECKED"),
    (answer("5"), None, "WRONG-ANSWER"),  # more than 2^2, certified or not
    (answer("0", status="UNSATISFIABLE", log10="-inf"), 0, "VERIFIED"),
    ("s UNSATISFIABLE\nc s type pmc\n", 1, "WRONG-ANSWER"),
    (answer("3", kind="approx"), 2, "VERIFIED"),  # 3 <= 1.8 * 2
    (answer("4", kind="approx"), 2, "WRONG-ANSWER"),
    (answer("4", kind="approx", extra="c epsilon: 1"), 2, "WRONG-ANSWER"),  # 0.8 holds
    (answer("3", kind="approx", extra="c epsilon: 0.1"), 2, "WRONG-ANSWER"),  # 3 > 1.1 * 2
    (answer("1", kind="approx"), 2, "WRONG-ANSWER"),  # 2 > 1.8 * 1
    (answer("2", track="mc"), 2, "MALFORMED"),
    ("s UNKNOWN\n", 2, "UNKNOWN"),
    ("c nothing\n", 2, "UNKNOWN"),
])
def test_judge(text, certified, verdict):
    """Exact counts equal, approximate ones within a factor 1+epsilon, no certified count is
    UNCHECKED (never VERIFIED), a count above 2^shown is wrong whatever is known."""
    try:
        got = judge_count(parse_count_output(text), certified, PMC2).verdict
    except MalformedCount:
        got = "MALFORMED"
    assert got == verdict


@pytest.mark.parametrize("text, why", [
    (answer("-3"), "negative count"),
    (answer("2.5"), "not a non-negative integer"),
    (answer("1e3"), "not a non-negative integer"),
    (answer("２"), "not a non-negative integer"),
    (answer("9" * 5000), "digits"),
    (answer("2", log10="0.9"), "not log10 of the count"),
    (answer("2", log10="nan"), "not a finite number"),
    (answer("0"), "SATISFIABLE with count 0"),
    ("s SATISFIABLE\nc s type pmc\n", "without a count"),
    ("s SATISFIABLE\nc s exact arb int 2\n", "no 'c s type'"),
    ("s SATISFIABLE\ns SATISFIABLE\n", "2 's' lines"),
    ("s MAYBE\n", "is not SATISFIABLE"),
    (answer("2") + "c s exact arb int 2\n", "2 count"),
    ("s SATISFIABLE\nc s type pmc\nc s exact double prec-sci 2.0\n", "not 'arb int N'"),
    (answer("2", extra="c epsilon: -1"), "not a positive number"),
    ("sSATISFIABLE\nc s type pmc\nc s exact arb int 2\n", "its first word is not s"),
    (answer("2") + "s:UNSATISFIABLE\n", "its first word is not s"),
])
def test_malformed_answers_say_why(text, why):
    """Every broken answer is MALFORMED with a reason, never an exception of another kind."""
    with pytest.raises(MalformedCount, match=why):
        parse_count_output(text)


def test_a_huge_count_beyond_two_to_the_shown_is_wrong_without_certified_count():
    """A count of 4,000 digits on two shown variables is impossible."""
    verdict = judge_count(parse_count_output(answer("9" * 4000)), None, PMC2)
    assert verdict.verdict == "WRONG-ANSWER" and "2^2" in verdict.reason


@pytest.fixture
def sliding_instance(tmp_path, puzzlesat):
    path = tmp_path / "s.cnf"
    assert puzzlesat("generate", "sliding", "--rows", "2", "--cols", "3", "--start",
                     "3,1,2,4,0,5", "--budget", "6", "--count", "-o", path).code == 0
    return path


def test_validate_count_verifies_the_certified_count_and_rejects_a_forged_one(
        sliding_instance, tmp_path, puzzlesat):
    """The CLI: the true count VERIFIED (exit 0), a forged one WRONG-ANSWER (exit 3)."""
    count = int(read_dimacs(sliding_instance).header["count"])
    good, forged = tmp_path / "good.out", tmp_path / "forged.out"
    good.write_text(answer(str(count)))
    forged.write_text(answer(str(count + 1)))
    run = puzzlesat("validate-count", sliding_instance, good)
    assert run.code == 0 and run.out.startswith("VERIFIED"), run.out
    run = puzzlesat("validate-count", sliding_instance, forged)
    assert run.code == 3 and run.out.startswith("WRONG-ANSWER"), run.out


def test_a_header_count_that_lies_is_the_instances_fault(sliding_instance, tmp_path, puzzlesat):
    """The header's count is counted again from its puzzle: a forged one is one line, exit 2."""
    text = sliding_instance.read_text()
    count = read_dimacs(sliding_instance).header["count"]
    forged = tmp_path / "forged.cnf"
    forged.write_text(text.replace(f"c count: {count}\n", f"c count: {int(count) + 7}\n"))
    out = tmp_path / "o.out"
    out.write_text(answer(str(int(count) + 7)))
    assert_one_line_error(puzzlesat("validate-count", forged, out), "contradicts the puzzle's")


def test_a_show_line_that_is_not_the_familys_is_the_instances_fault(sliding_instance, tmp_path,
                                                                     puzzlesat):
    """A tampered projection (one shown variable dropped) is one line, exit 2."""
    lines = sliding_instance.read_text().splitlines(keepends=True)
    i = next(i for i, line in enumerate(lines) if line.startswith("c p show"))
    lines[i] = "c p show " + lines[i].split(" ", 4)[4]
    tampered = tmp_path / "t.cnf"
    tampered.write_text("".join(lines))
    out = tmp_path / "o.out"
    out.write_text(answer("1"))
    assert_one_line_error(puzzlesat("validate-count", tampered, out), "projection")


def test_validate_count_of_a_plain_instance_is_one_line(tmp_path, puzzlesat):
    """An instance without 'c t' is not a counting instance: one line, exit 2."""
    path = tmp_path / "p.cnf"
    path.write_text("p cnf 2 1\n1 2 0\n")
    out = tmp_path / "o.out"
    out.write_text(answer("3"))
    assert_one_line_error(puzzlesat("validate-count", path, out), "not a counting instance")


def test_no_certified_count_is_unchecked(tmp_path):
    """A counting file without a header count: a plausible count is UNCHECKED."""
    path = tmp_path / "p.cnf"
    path.write_text("c t pmc\np cnf 3 1\nc p show 1 2 0\n1 2 3 0\n")
    out = tmp_path / "o.out"
    out.write_text(answer("4"))
    assert judge_files(path, out, JudgeOptions(solving=CheckedSolving())).verdict == "UNCHECKED"


# -- real counters ----------------------------------------------------------------------------------
def test_ganak_count_is_verified(sliding_instance, tmp_path, puzzlesat):
    """Ganak over the projection gives the certified count: VERIFIED."""
    pytest.importorskip("pyganak")
    run = puzzlesat("count", sliding_instance, "--time-limit", "300")
    assert run.code == 10, run.out
    out = tmp_path / "ganak.out"
    out.write_text(run.out)
    verdict = puzzlesat("validate-count", sliding_instance, out)
    assert verdict.code == 0 and verdict.out.startswith("VERIFIED"), (run.out, verdict.out)


def test_ganak_counts_the_stray_cycles_that_enumeration_found(tmp_path, puzzlesat):
    """Flow under zucker, projected onto the cell colours: Ganak says 2, like enumeration."""
    pytest.importorskip("pyganak")
    level = tmp_path / "lv.txt"
    level.write_text("A..B\n....\n....\nA..B\n")
    path = tmp_path / "f.cnf"
    assert puzzlesat("generate", "flow", "--puzzle", level, "--encoding", "zucker", "--count",
                     "-o", path).code == 0
    run = puzzlesat("count", path, "--time-limit", "300")
    assert "c s exact arb int 2" in run.out, run.out


def test_approxmc_count_is_within_its_tolerance(tmp_path, puzzlesat):
    """ApproxMC on the Four Squares puzzle (72 boards) lands within a factor 1.8."""
    pytest.importorskip("pyapproxmc")
    path = tmp_path / "e.cnf"
    assert puzzlesat("generate", "edge-matching", "--pieces", "four-squares", "--count",
                     "-o", path).code == 0
    run = puzzlesat("count", path, "--counter", "approxmc", "--time-limit", "300")
    assert "c s approx arb int" in run.out and "c epsilon: 0.8" in run.out, run.out
    out = tmp_path / "a.out"
    out.write_text(run.out)
    assert puzzlesat("validate-count", path, out).code == 0


def test_an_external_counter_runs_through_solver_command(sliding_instance, tmp_path, puzzlesat):
    """A counter binary (here a script) gets the plain CNF; its stdout is the answer, judged."""
    count = read_dimacs(sliding_instance).header["count"]
    script = tmp_path / "counter.sh"
    script.write_text("#!/bin/sh\ngrep -q '^c t pmc' \"$1\" || exit 1\n"
                      f"printf 's SATISFIABLE\\nc s type pmc\\nc s exact arb int {count}\\n'\n")
    script.chmod(0o755)
    run = puzzlesat("count", sliding_instance, "--solver-command", f"{script} {{cnf}}",
                    "--time-limit", "60")
    assert run.code == 10 and run.out.startswith("c solver: counter.sh"), run.out
    out = tmp_path / "ext.out"
    out.write_text(run.out)
    assert puzzlesat("validate-count", sliding_instance, out).code == 0


def test_a_counter_past_its_time_limit_answers_unknown(tmp_path, puzzlesat):
    """A counter killed at the limit: s UNKNOWN, exit 0; the judge says UNKNOWN."""
    pytest.importorskip("pyganak")
    path = tmp_path / "s.cnf"  # 1.8e21 move sequences: minutes for Ganak
    assert puzzlesat("generate", "sliding", "--rows", "2", "--cols", "3", "--start",
                     "1,2,0,3,4,5", "--budget", "60", "--count", "-o", path).code == 0
    run = puzzlesat("count", path, "--time-limit", "1")
    assert run.code == 0 and "s UNKNOWN" in run.out and "CPU limit of 1 s" in run.out, run.out
    out = tmp_path / "o.out"
    out.write_text(run.out)
    assert puzzlesat("validate-count", path, out).out.startswith("UNKNOWN")


def test_unknown_counter_and_plain_instance_are_one_line(tmp_path, puzzlesat):
    """Counting a file without 'c t' is refused in one line."""
    path = tmp_path / "p.cnf"
    path.write_text("p cnf 2 1\n1 2 0\n")
    pytest.importorskip("pyganak")
    assert_one_line_error(puzzlesat("count", path), "not a counting instance")


# -- counting suites and the Model Counting Competition bundle ------------------------------------
MC_SPEC = b"""
[suite]
name = "mc-tiny"
author = "Tester"
version = "1"
seed = 5
compression = "bz2"

[[group]]
family = "sliding"
count = true
params = { rows = 2, cols = 2, start = [1, 0, 2, 3], budget = [1, 5] }

[[group]]
family = "edge-matching"
count = true
params = { pieces = "four-squares" }
"""


def test_a_counting_suite_publishes_verifies_and_bundles_for_the_mc_track(tmp_path, puzzlesat):
    """count = true: counting instances (same seeds, names ending in -count) that verify byte
    for byte; submission --track mc writes .cnf.bz2 instances in one tar, counts.txt with the
    certified counts and checksums.txt with the sha256 of the uncompressed files."""
    import bz2
    import hashlib
    import tarfile

    spec = tmp_path / "mc.toml"
    spec.write_bytes(MC_SPEC)
    assert puzzlesat("publish", spec, "-o", tmp_path / "suite").code == 0
    assert puzzlesat("verify", tmp_path / "suite").code == 0
    run = puzzlesat("submission", tmp_path / "suite", "--track", "mc", "-o", tmp_path / "b")
    assert run.code == 0, run.out
    counts = (tmp_path / "b" / "counts.txt").read_text().splitlines()
    assert counts == ["sliding-2x2-8327f471-b1-rotated-count.cnf 1",
                      "sliding-2x2-8327f471-b5-rotated-count.cnf 10",
                      "four-squares-compact-count.cnf 72"]
    for line in (tmp_path / "b" / "checksums.txt").read_text().splitlines():
        digest, name = line.split("  ")
        text = bz2.decompress((tmp_path / "b" / "instances" / f"{name}.bz2").read_bytes())
        assert hashlib.sha256(text).hexdigest() == digest
        assert text.startswith(b"c t ")
    with tarfile.open(tmp_path / "b.tar") as tar:
        names = tar.getnames()
    assert "b/instances/four-squares-compact-count.cnf.bz2" in names and "b/counts.txt" in names
    rerun = puzzlesat("submission", tmp_path / "suite", "--track", "mc", "-o", tmp_path / "b")
    assert rerun.code == 0  # a bundle this tool wrote is replaced


def test_the_mc_track_refuses_a_suite_without_counts(tmp_path, puzzlesat):
    """A suite of ordinary instances is no counting suite: one line, exit 2, no bundle."""
    spec = tmp_path / "plain.toml"
    spec.write_bytes(MC_SPEC.replace(b"count = true\n", b""))
    assert puzzlesat("publish", spec, "-o", tmp_path / "suite").code == 0
    run = puzzlesat("submission", tmp_path / "suite", "--track", "mc", "-o", tmp_path / "b")
    assert_one_line_error(run, "are not mc instances")
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("value", ["yes", 1])
def test_count_in_a_group_must_be_a_boolean(tmp_path, puzzlesat, value):
    """count = "yes" is one line, exit 2."""
    spec = tmp_path / "bad.toml"
    spec.write_bytes(MC_SPEC.replace(b"count = true", f"count = {value!r}".encode()
                                     if isinstance(value, int) else b'count = "yes"', 1))
    assert_one_line_error(puzzlesat("publish", spec, "-o", tmp_path / "suite"), "count must be")


def test_every_family_has_a_counting_module():
    """Each family's card names its count.py, which keeps the contract."""
    from puzzlesat.generator.families import family_names, get_family

    for name in family_names():
        module = get_family(name).TRACKS["mc"]
        assert callable(module.shown) and callable(module.known_count)
        assert isinstance(module.STORY, str) and "certified" in module.STORY.lower()


@pytest.mark.parametrize("cnf, why", [
    ("c t pmc\np cnf 2 1\nc p show 1 3 0\n1 2 0\n", "beyond the p line"),
    ("c t mc\np cnf 2 1\nc p show 1 0\n1 2 0\n", "'c t mc' with"),
    ("c t pmc\nc t mc\np cnf 2 1\n1 2 0\n", "2 'c t' lines"),
    ("c t pmc\np cnf 2 1\nc p show 1 0\n1 2 0\nc count: -4\n", "not a non-negative integer"),
])
def test_validate_count_of_a_self_contradicting_file_is_one_line(tmp_path, puzzlesat, cnf, why):
    """A counting file that contradicts itself is the instance's fault: one line, exit 2."""
    path, out = tmp_path / "f.cnf", tmp_path / "o.out"
    path.write_text(cnf)
    out.write_text(answer("1"))
    assert_one_line_error(puzzlesat("validate-count", path, out), why)


# -- calibrating a counting suite with the model counters -----------------------------------------
def lying_counter(source, counter, want_proof, cpu_limit=None, started=None):
    """Ganak's answer plus one (module level: the counter's child finds it by name)."""
    from puzzlesat.validate.tracks.mc.clients import count_models

    answer = count_models(source, counter, want_proof, cpu_limit, started)
    answer.value += 1
    return answer


@pytest.fixture(scope="module")
def mc_suite(tmp_path_factory):
    from puzzlesat.generator.suite.publish import publish_suite

    folder = tmp_path_factory.mktemp("mc")
    spec = folder / "mc.toml"
    spec.write_bytes(MC_SPEC)
    publish_suite(spec, folder / "suite", solving=CheckedSolving())
    return folder / "suite"


def test_a_suite_of_two_tracks_is_calibrated_track_by_track(tmp_path, puzzlesat):
    """A counter runs on the counting instances of a suite that also holds a SAT one, whose
    bundle names its track: submission without --track, or with one the instances do not
    all have, is one line, exit 2."""
    pytest.importorskip("pyganak")
    from puzzlesat.validate.campaigns.calibrate import read_calibration

    spec = tmp_path / "mixed.toml"
    spec.write_bytes(MC_SPEC + b'\n[[group]]\nfamily = "sliding"\n'
                     b'params = { rows = 2, cols = 2, start = [1, 0, 2, 3], budget = 3 }\n')
    assert puzzlesat("publish", spec, "-o", tmp_path / "suite").code == 0
    run = puzzlesat("calibrate", tmp_path / "suite", "--solvers", "ganak:60", "--no-plot")
    assert run.code == 0 and "ganak: 3/3 solved" in run.out, run.out
    names = {r.name for r in read_calibration(tmp_path / "suite")}
    assert "sliding-2x2-8327f471-b3-rotated" not in names and len(names) == 3
    assert_one_line_error(puzzlesat("submission", tmp_path / "suite"), "sat, mc", "--track")
    assert_one_line_error(puzzlesat("submission", tmp_path / "suite", "--track", "mc"),
                          "1 instance(s) are not mc instances", "-b3-rotated")


def test_calibrate_runs_the_counters_and_judges_their_counts(mc_suite, puzzlesat):
    """calibrate --solvers ganak:60,approxmc:60 on a counting suite: every count judged by the
    count judge against the certified count (Ganak's exact counts VERIFIED, with CPU seconds);
    the suite still verifies."""
    pytest.importorskip("pyganak")
    pytest.importorskip("pyapproxmc")
    from puzzlesat.generator.suite.verify import verify_suite
    from puzzlesat.validate.campaigns.calibrate import read_calibration

    run = puzzlesat("calibrate", mc_suite, "--solvers", "ganak:60,approxmc:60")
    assert run.code == 0, run.err
    assert "ganak: 3/3 solved within 60 s of CPU; 3 VERIFIED" in run.out, run.out
    rows = {(r.name, r.solver): r for r in read_calibration(mc_suite)}
    four = rows["four-squares-compact-count", "ganak"]
    assert (four.status, four.verdict, four.ended_by) == ("SAT", "VERIFIED", "solver")
    assert four.reason.startswith("exact count 72 = the certified count")
    assert 0 <= four.cpu_seconds <= 60 and four.hardness_param
    approx = [r for (name, solver), r in rows.items() if solver == "approxmc"
              and name.endswith("-count")]
    assert len(approx) == 3 and all(r.verdict == "VERIFIED" for r in approx)
    assert all("approximate count" in r.reason for r in approx)
    assert verify_suite(mc_suite).differences == []



def test_calibrate_reports_a_wrong_count(mc_suite, tmp_path, monkeypatch, puzzlesat):
    """A counter whose count is one too many: WRONG-ANSWER on every counting instance, and
    the run goes on; the mc submission then refuses the suite, naming each."""
    pytest.importorskip("pyganak")
    import shutil

    from puzzlesat.validate.campaigns.calibrate import calibrate_suite, read_calibration
    from puzzlesat.validate.tracks.mc import clients as counters

    suite = tmp_path / "suite"
    shutil.copytree(mc_suite, suite)
    monkeypatch.setattr(counters, "count_models", lying_counter)
    calibrate_suite(suite, ["ganak:60"], plot=False, only=("*-count",))
    rows = [r for r in read_calibration(suite) if r.solver == "ganak"]
    assert [r.verdict for r in rows if r.name.endswith("-count")] == ["WRONG-ANSWER"] * 3
    assert any("exact count 73, the certified count is 72" in r.reason for r in rows)
    run = puzzlesat("submission", suite, "--track", "mc", "-o", tmp_path / "bundle")
    assert run.code == 1 and "four-squares-compact-count: ganak WRONG-ANSWER in the " \
        "calibration (exact count 73, the certified count is 72" in run.out, run.out
    assert not (tmp_path / "bundle").exists()


@pytest.mark.parametrize("solvers, fragment", [
    ("ganak:soon", "--solvers ganak:soon"),
    ("ganak:0", "--solvers ganak:0"),
])
def test_calibrate_refuses_a_bad_counter_limit(mc_suite, puzzlesat, solvers, fragment):
    """A counter's limit is checked like a solver's, before any run: one line, exit 2."""
    assert_one_line_error(puzzlesat("calibrate", mc_suite, "--solvers", solvers), fragment)


@pytest.mark.parametrize("track, solver, verdict, ok", [
    ("mc", "ganak", "VERIFIED", True), ("mc", "approxmc", "WRONG-ANSWER", True),
    ("mc", "ganak", "UNKNOWN", True), ("mc", "ganak", "VERIFIED-SAT", False),
    ("sat", "minisat22", "VERIFIED", False), ("sat", "minisat22", "VERIFIED-SAT", True),
    ("", "ganak", "VERIFIED", True), ("", "minisat22", "VERIFIED-SAT", True),
    ("qbf", "minisat22", "VERIFIED-SAT", False), ("pb", "exact", "VERIFIED-OPTIMUM", True),
])
def test_a_calibration_row_has_its_judges_verdicts_only(track, solver, verdict, ok):
    """A row holds a verdict of its track's judge (a table written before rows had their
    track: any judge's verdict)."""
    from puzzlesat.validate.runs.records import CalibrationRow

    row = {"hash": "a" * 32, "name": "a", "file": "instances/a.cnf.xz", "family": "flow",
           "track": track,
           "hardness-param": "width", "hardness": "5", "expected": "sat", "solver": solver,
           "time-limit": "300", "status": "SAT", "cpu-seconds": "1.5", "wall-seconds": "1.6",
           "ended-by": "solver", "verdict": verdict, "reason": "", "machine": "cpu x2",
           "load": "0.1"}
    if ok:
        assert CalibrationRow.from_row(row).verdict == verdict
    else:
        with pytest.raises(ValueError, match="is not a verdict of the"):
            CalibrationRow.from_row(row)

"""The sliding family: counts from the paper, solver round trips, reference encoder, CLI."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from conftest import assert_one_line_error
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver
from references import bfs_distances, dimacs_problems

from puzzlesat.generator.core.cnf import model_array
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.opb import Opb, opb_bytes, parse_opb
from puzzlesat.generator.core.reader import read_dimacs
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.core.writer import dimacs_bytes
from puzzlesat.generator.families import sliding
from puzzlesat.generator.families.sliding import npuzzle, pb
from puzzlesat.generator.families.sliding.encode import rotated_state, tile_bits
from puzzlesat.generator.instance import build

ENCODINGS = list(sliding.ENCODINGS)


def solve(puzzle, encoding):
    """(SAT?, decoded solution or None) by CaDiCaL."""
    formula = sliding.encode(puzzle, encoding)
    assert dimacs_problems(formula) == []
    with Solver(name="cadical195", bootstrap_with=formula.clauses()) as s:
        if not s.solve():
            return False, None
        return True, sliding.decode(puzzle, encoding, model_array(s.get_model(), formula.num_vars))


def puzzle_for(start, rows, cols, budget, no_undo=False):
    return sliding.generate({"start": list(start), "rows": rows, "cols": cols, "budget": budget,
                             "no_undo": no_undo, "node_limit": 10**6}, None)


def satisfies(formula, model) -> bool:
    lits = formula.flat_literals()
    ends = np.flatnonzero(lits == 0)
    true = (model[np.abs(lits)] == (lits > 0)) & (lits != 0)
    return bool((np.add.reduceat(true, np.r_[0, ends[:-1] + 1]) > 0).all())


def test_rotated_counts_reproduce_the_spec_at_k30_and_k60():
    """The spec reconstructs vars = (k+1)(24B+10)+2k and clauses = 4k(48B+21)+2(24B+10) with
    B = 5 on 5×5: per configuration 24 five-bit tile vectors + u, v (10); per step 2 move bits;
    per step and move 2 clauses per state bit (48B+20) + 1 legality clause; start and goal are
    all units. Ours are exactly these: k=30 → 4,090 / 31,580 and k=60 → 8,050 / 62,900."""
    for k, nv, nc in [(30, 4090, 31580), (60, 8050, 62900)]:
        inst = build("sliding", {"korf": 50, "k": k}, "rotated")
        assert (inst.formula.num_vars, inst.formula.num_clauses) == (nv, nc)
        assert nv == (k + 1) * (24 * 5 + 10) + 2 * k
        assert nc == 4 * k * (48 * 5 + 21) + 2 * (24 * 5 + 10)
    onehot = build("sliding", {"korf": 50, "k": 30}, "rotated-onehot").formula
    assert (onehot.num_vars, onehot.num_clauses) == (31 * (24 * 24 + 10) + 60,
                                                     120 * (48 * 24 + 21) + 2 * (24 * 24 + 10))


@pytest.mark.parametrize("k", [12, 16])
def test_korf50_trace_solved_both_ways(k):
    encodings = ENCODINGS if k == 12 else ["rotated"]
    for encoding in encodings:
        sat = build("sliding", {"korf": 50, "k": k}, encoding)
        unsat = build("sliding", {"korf": 50, "k": k, "budget": k - 2}, encoding)
        assert (sat.expected, sat.expected_from) == ("SAT", "optimal-trace")
        assert (unsat.expected, unsat.expected_from) == ("UNSAT", "optimal-trace")
        found, solution = solve(sat.puzzle, encoding)
        assert found and sliding.check(sat.puzzle, solution) == []
        assert solve(unsat.puzzle, encoding) == (False, None)


def test_3x3_every_state_up_to_distance_5_every_budget():
    """Exhaustive over the 3×3 states at distance ≤ 5: SAT iff budget ≥ d, same parity."""
    distances = bfs_distances(3, 3)
    near = sorted(s for s, d in distances.items() if d <= 5)
    assert len(near) == 1 + 2 + 4 + 8 + 16 + 20
    for start in near:
        d = distances[start]
        for budget in range(0, 8):
            puzzle = puzzle_for(start, 3, 3, budget)
            want = budget >= d and (budget - d) % 2 == 0
            found, solution = solve(puzzle, "rotated")
            assert found == want, (start, budget)
            assert sliding.expected(puzzle, {})[0] == ("SAT" if want else "UNSAT")
            if found:
                assert sliding.check(puzzle, solution) == []


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_sampled_3x3_and_4x4_starts_sat_iff_budget_reaches_distance(encoding):
    distances = bfs_distances(3, 3)
    states = sorted(s for s, d in distances.items() if 6 <= d <= 10)
    cases = [(states[i], 3, 3, distances[states[i]])
             for i in Rng(11).integers(len(states), 6).tolist()]
    for seed in range(3):
        walk = npuzzle.random_walk(4, 4, 12, Rng(seed))
        start = npuzzle.replay(npuzzle.goal(4, 4), 4, 4, walk)[-1]
        cases.append((start, 4, 4, npuzzle.ida_star(start, 4, 4).distance))
    for start, rows, cols, d in cases:
        for budget in (d - 2, d - 1, d, d + 1, d + 2):
            if budget < 0:
                continue
            want = budget >= d and (budget - d) % 2 == 0
            puzzle = puzzle_for(start, rows, cols, budget)
            found, solution = solve(puzzle, encoding)
            assert found == want, (start, budget)
            if found:
                assert sliding.check(puzzle, solution) == []


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_witness_assignment_satisfies_every_clause(encoding):
    for params in [{"korf": 50, "k": 14, "budget": 18}, {"korf": 3, "k": 9, "no_undo": True},
                   {"start": [1, 2, 5, 3, 4, 0, 6, 7, 8], "budget": 7}]:
        inst = build("sliding", params, encoding)
        model = sliding.assignment(inst.puzzle, encoding, inst.witness)
        assert sliding.check(inst.puzzle, inst.witness) == []
        assert satisfies(inst.formula, model)
        assert sliding.decode(inst.puzzle, encoding, model) == inst.witness
        model[sliding.encode(inst.puzzle, encoding).num_vars] ^= True  # a flipped goal bit
        assert not satisfies(inst.formula, model)


def test_no_undo_witness_uses_twelve_move_loops_and_solver_respects_it():
    base = {"start": [1, 0, 2, 3, 4, 5, 6, 7, 8], "no_undo": True}
    for budget, want in [(1, ("SAT", "ida*")), (13, ("SAT", "ida*")), (3, ("UNKNOWN", "none")),
                         (2, ("UNSAT", "parity"))]:
        inst = build("sliding", dict(base, budget=budget))
        assert (inst.expected, inst.expected_from) == want
    puzzle = build("sliding", dict(base, budget=13)).puzzle
    assert sliding.witness(puzzle).moves == "L" + "DRUL" * 3
    for encoding in ENCODINGS:
        found, solution = solve(puzzle, encoding)
        assert found and sliding.check(puzzle, solution) == []
    # budget 3 without undo: L then a 2-move return is impossible; with undo it is SAT
    assert solve(build("sliding", dict(base, budget=3)).puzzle, "rotated") == (False, None)
    assert solve(build("sliding", dict(base, budget=3, no_undo=False)).puzzle, "rotated")[0]


def test_check_names_each_broken_rule():
    puzzle = puzzle_for((1, 0, 2, 3, 4, 5, 6, 7, 8), 3, 3, 3, no_undo=True)
    assert sliding.check(puzzle, sliding.Solution("LRL")) == [
        "move 2 undoes the previous move (--no-undo)"]
    assert sliding.check(puzzle, sliding.Solution("L")) == ["1 moves, the budget is exactly 3"]
    assert "takes the blank off the board" in sliding.check(puzzle, sliding.Solution("UUU"))[0]
    assert sliding.check(puzzle, sliding.Solution("DRU")) == [
        "the moves do not end in the goal configuration"]


def test_unproved_distance_is_labelled_only_by_its_lower_bound():
    start, _ = npuzzle.korf_traces()[49].truncation(80)
    params = {"start": list(start), "node_limit": 500}
    for budget, want in [(60, ("UNSAT", "ida*")), (80, ("UNKNOWN", "none")),
                         (81, ("UNSAT", "parity"))]:
        inst = build("sliding", dict(params, budget=budget))
        assert (inst.expected, inst.expected_from) == want
        assert inst.witness is None


def test_golden_sha256_of_a_generated_instance():
    inst = build("sliding", {"start": [1, 2, 5, 3, 4, 0, 6, 7, 8], "rows": 3, "cols": 3,
                             "budget": 8})
    data = dimacs_bytes(inst.formula, inst.header())
    assert inst.name == "sliding-3x3-c15f7caa-b8-rotated"
    assert hashlib.sha256(data).hexdigest() == GOLDEN_SHA256


GOLDEN_SHA256 = "00240b713e56a13929de0705f270ac05080d792dc4caddeb75e90f50c3b6ca95"


def test_random_trace_and_walk_sources():
    inst = build("sliding", {"random_trace": 386, "k": 10, "budget": 8})
    assert (inst.expected, inst.expected_from) == ("UNSAT", "optimal-trace")
    walk = build("sliding", {"walk": 20, "rows": 3, "cols": 4}, seed=7)
    again = build("sliding", {"walk": 20, "rows": 3, "cols": 4}, seed=7)
    assert walk.puzzle == again.puzzle and walk.name == "sliding-3x4-walk20-s7-bd-rotated"
    assert (walk.expected, walk.expected_from) == ("SAT", "ida*")
    assert walk.puzzle.budget == walk.puzzle.distance <= 20


# -- the vectorised encoder against a literal reading of the spec -----------------------------
def reference_rotated(puzzle, onehot):
    """Clauses of the rotated encodings written out one by one from the spec's wording."""
    rows, cols, steps = puzzle.rows, puzzle.cols, puzzle.budget
    n, width = rows * cols, tile_bits(rows, cols, onehot)
    per_state = (n - 1) * width

    def tile(t, i, j, bit):
        return 1 + (t * (n - 1) + i * cols + j - 1) * width + bit

    def u(t, a):
        return 1 + (steps + 1) * per_state + t * rows + a

    def v(t, b):
        return 1 + (steps + 1) * (per_state + rows) + t * cols + b

    def mv(t, bit):
        return 1 + (steps + 1) * (per_state + rows + cols) + 2 * t + bit

    def state_vars(t):
        return ([tile(t, i, j, b) for i in range(rows) for j in range(cols) if (i, j) != (0, 0)
                 for b in range(width)] + [u(t, a) for a in range(rows)]
                + [v(t, b) for b in range(cols)])

    def source(letter, i, j):
        """Rotated cell that cell (i, j) copies after the move (the spec's case rules)."""
        if letter == "R":
            return (i, (j + 1) % cols) if i else ((0, j + 1) if j < cols - 1 else (0, 1))
        if letter == "L":
            return (i, (j - 1) % cols) if i else ((0, j - 1) if j > 1 else (0, cols - 1))
        if letter == "D":
            return ((i + 1) % rows, j) if j else ((i + 1, 0) if i < rows - 1 else (1, 0))
        return ((i - 1) % rows, j) if j else ((i - 1, 0) if i > 1 else (rows - 1, 0))

    shift = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
    border = {"U": lambda t: u(t, 0), "D": lambda t: u(t, 1), "L": lambda t: v(t, 0),
              "R": lambda t: v(t, 1)}
    clauses = []
    for t, config in ((0, puzzle.start), (steps, npuzzle.goal(rows, cols))):
        values = rotated_state(config, rows, cols, onehot)
        clauses += [[x if val else -x] for x, val in zip(state_vars(t), values)]
    for t in range(steps):
        for code, letter in enumerate(npuzzle.MOVES):
            neg = [-mv(t, b) if (code >> b) & 1 else mv(t, b) for b in range(2)]
            clauses.append(neg + [-border[letter](t)])
            pairs = []
            for i in range(rows):
                for j in range(cols):
                    if (i, j) != (0, 0):
                        si, sj = source(letter, i, j)
                        pairs += [(tile(t + 1, i, j, b), tile(t, si, sj, b)) for b in range(width)]
            dr, dc = shift[letter]
            pairs += [(u(t + 1, a), u(t, (a + dr) % rows)) for a in range(rows)]
            pairs += [(v(t + 1, b), v(t, (b + dc) % cols)) for b in range(cols)]
            for new, old in pairs:
                clauses += [neg + [-new, old], neg + [new, -old]]
            if puzzle.no_undo and t + 1 < steps:
                inverse = code ^ 1
                clauses.append(neg + [-mv(t + 1, b) if (inverse >> b) & 1 else mv(t + 1, b)
                                      for b in range(2)])
    return clauses


def canonical(clauses):
    return sorted(tuple(sorted(c)) for c in clauses)


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(2, 3), cols=st.integers(2, 4), budget=st.integers(0, 4),
       no_undo=st.booleans(), onehot=st.booleans(), seed=st.integers(0, 1000))
def test_vectorised_rotated_encoder_matches_reference(rows, cols, budget, no_undo, onehot, seed):
    walk = npuzzle.random_walk(rows, cols, 7, Rng(seed))
    start = npuzzle.replay(npuzzle.goal(rows, cols), rows, cols, walk)[-1]
    puzzle = sliding.Puzzle(rows, cols, start, budget, no_undo, None, 0, None, "ida*", "test")
    formula = sliding.encode(puzzle, "rotated-onehot" if onehot else "rotated")
    assert canonical(formula.clauses()) == canonical(reference_rotated(puzzle, onehot))
    assert dimacs_problems(formula) == []


# -- the pseudo-Boolean forms (sliding/pb.py) ---------------------------------------------------
def pb_clauses(opb, top: int) -> list[list[int]]:
    """A plain CNF of an OPB whose coefficients are all ±1 (the sliding forms'): each term
    -1·l read as +1·¬l − 1, each constraint Σ l ≥ d as pysat's cardinality encoding."""
    from pysat.card import CardEnc, EncType

    clauses: list[list[int]] = []
    for terms, relation, degree in opb.constraints():
        assert {abs(c) for c, _ in terms} == {1}, terms
        lits = [lit if c > 0 else -lit for c, lit in terms]
        bound = degree + sum(c < 0 for c, _ in terms)
        made = (CardEnc.equals if relation == "=" else CardEnc.atleast)(
            lits, bound=bound, top_id=top, encoding=EncType.seqcounter)
        top = max([top, *(abs(x) for c in made.clauses for x in c)])
        clauses += made.clauses
    return clauses


def solve_pb(puzzle, encoding="moves", at_most_moves=None):
    """(SAT?, decoded solution or None) of the OPB as written, by CaDiCaL on :func:`pb_clauses`
    (with at most ``at_most_moves`` go variables true, when given)."""
    from pysat.card import CardEnc, EncType

    opb = parse_opb(opb_bytes(pb.encode_opb(puzzle, encoding)), "test")
    clauses = pb_clauses(opb, opb.num_vars)
    if at_most_moves is not None:
        moves = pb.variables(Opb(), puzzle)[1]
        top = max([opb.num_vars, *(abs(x) for c in clauses for x in c)])
        clauses += CardEnc.atmost(moves.reshape(-1).tolist(), bound=at_most_moves, top_id=top,
                                  encoding=EncType.seqcounter).clauses
    with Solver(name="cadical195", bootstrap_with=clauses) as s:
        if not s.solve():
            return False, None
        model = model_array(s.get_model(), opb.num_vars)
        assert opb.violated(model).size == 0  # the CNF agrees with the OPB reader
        return True, pb.decode_opb(puzzle, encoding, model)


def test_pb_moves_is_sat_iff_the_budget_reaches_the_distance():
    """The decision form, as written, on sampled 3×3 starts and every budget from d − 2 to
    d + 2 (and one with --no-undo): SAT exactly when budget ≥ d with its parity, and every
    model decodes to a trace the puzzle's rules accept."""
    distances = bfs_distances(3, 3)
    states = sorted(s for s, d in distances.items() if 3 <= d <= 8)
    for i in Rng(5).integers(len(states), 5).tolist():
        start, d = states[i], distances[states[i]]
        for budget in range(max(d - 2, 0), d + 3):
            puzzle = puzzle_for(start, 3, 3, budget)
            want = budget >= d and (budget - d) % 2 == 0
            found, solution = solve_pb(puzzle)
            assert found == want, (start, budget)
            if found:
                assert pb.referee(puzzle, solution) == ([], budget)
    # one move from the goal: in 3 moves only by undoing one (L R L, ...), as the CNF says
    no_undo = puzzle_for([1, 0, 2, 3, 4, 5, 6, 7, 8], 3, 3, 3, no_undo=True)
    assert solve_pb(no_undo) == solve(no_undo, "rotated") == (False, None)
    assert solve_pb(puzzle_for([1, 0, 2, 3, 4, 5, 6, 7, 8], 3, 3, 3))[0]


def test_pb_fewest_moves_has_the_distance_as_its_optimum():
    """The optimisation form with a budget of d + 3: a model of at most d moves exists (it
    decodes to a trace with stays the referee accepts at cost d), none of d − 1."""
    distances = bfs_distances(3, 3)
    start = sorted(s for s, d in distances.items() if d == 6)[0]
    puzzle = puzzle_for(start, 3, 3, 9)
    found, solution = solve_pb(puzzle, "fewest-moves", at_most_moves=6)
    assert found and pb.referee(puzzle, solution) == ([], 6)
    assert solution.moves.count(".") == 3
    assert solve_pb(puzzle, "fewest-moves", at_most_moves=5) == (False, None)


@pytest.mark.parametrize("encoding", list(pb.ENCODINGS))
def test_pb_witness_assignment_meets_every_constraint(encoding):
    """The known trace (the witness; for the optimisation form the certified arrangement,
    padded with stays) is a model of the file as written, decodes back to itself, and a
    move flipped breaks a constraint."""
    for params in [{"korf": 50, "k": 10, "budget": 14},
                   {"start": [1, 2, 5, 3, 4, 0, 6, 7, 8], "budget": 7},
                   *([{"korf": 3, "k": 9, "no_undo": True}] if encoding == "moves" else [])]:
        inst = build("sliding", params, encoding, track="pb")
        trace = inst.witness if encoding == "moves" else inst.made.certified.arrangement
        model = pb.assignment_opb(inst.puzzle, encoding, trace)
        opb = parse_opb(opb_bytes(inst.formula), "test")
        assert opb.violated(model).size == 0, params
        assert pb.decode_opb(inst.puzzle, encoding, model) == trace
        moves = pb.variables(Opb(), inst.puzzle)[1]
        model[moves[0]] = ~model[moves[0]]  # step 0 makes every move but its own
        assert opb.violated(model).size > 0
        assert "?" in pb.decode_opb(inst.puzzle, encoding, model).moves


def test_pb_forms_refuse_what_they_cannot_state():
    with pytest.raises(UserError, match="--no-undo is not defined across stays"):
        build("sliding", {"korf": 3, "k": 9, "no_undo": True}, "fewest-moves", track="pb")
    with pytest.raises(UserError, match="below the distance 9"):
        build("sliding", {"korf": 3, "k": 9, "budget": 7}, "fewest-moves", track="pb")


# -- command line -----------------------------------------------------------------------------
def test_cli_commands_of_the_issue(puzzlesat, tmp_path):
    out = tmp_path / "s.cnf.xz"
    r = puzzlesat("generate", "sliding", "--korf", "50", "--k", "30", "--budget", "28",
                  "--encoding", "rotated", "-o", out)
    assert r.code == 0, r.err
    assert "3826 variables" in r.err and "expected UNSAT (optimal-trace)" in r.err
    header = read_dimacs(out).header
    assert header["expected"] == "UNSAT" and header["params"]["k"] == 30
    out = tmp_path / "s.cnf"
    r = puzzlesat("generate", "sliding", "--start", "1,2,5,3,4,0,6,7,8", "--rows", "3",
                  "--cols", "3", "--budget", "8", "-o", out)
    assert r.code == 0, r.err
    dimacs = read_dimacs(out)
    assert dimacs.header["expected"] == "UNSAT" and dimacs.header["expected-from"] == "parity"


@pytest.mark.parametrize("args, fragments", [
    (["--start", "1,2,2,3,4,0,6,7,8"], ["not a permutation"]),
    (["--start", "1,2,3,4,0,5,6,7"], ["not a square board"]),
    (["--start", "1,2,3,0", "--rows", "3", "--cols", "3"], ["needs 9 tiles"]),
    (["--start", "0,2,1,3,4,5,6,7,8"], ["unsolvable"]),
    (["--korf", "50", "--budget", "-1"], ["--budget", "at least 0"]),
    (["--korf", "51"], ["--korf", "unknown instance 51"]),
    (["--korf", "50", "--k", "114"], ["--k", "0..113"]),
    (["--korf", "50", "--rows", "4"], ["5x5"]),
    (["--start", "1,0,2,3", "--k", "3"], ["--k applies"]),
    (["--budget", "3"], ["exactly one of"]),
    (["--start", "x,1"], ["--start", "expected ints"]),
])
def test_cli_bad_inputs_are_one_line(puzzlesat, tmp_path, args, fragments):
    r = puzzlesat("generate", "sliding", *args, "-o", tmp_path / "x.cnf")
    assert_one_line_error(r, *fragments)


@pytest.mark.parametrize("params, credit", [
    ({"korf": 9, "k": 10, "budget": 8}, "Korf and Felner's instance"),
    ({"random_trace": 3, "k": 10, "budget": 8}, "a random instance")])
def test_a_trace_truncation_below_its_distance_is_known_unsat_and_credited(params, credit):
    """The bundle's known answer for a sliding UNSAT: the start replays on the trace its origin
    names; the credit names that trace's source (a random trace is not Korf and Felner's)."""
    puzzle = sliding.generate({**params, "no_undo": False, "node_limit": 1}, None)
    refutes, why = sliding.known_by_construction(puzzle, "optimal-trace")
    assert refutes and credit in why and why.endswith("more than the budget 8")
    assert ("Korf" in why) == ("korf" in params)
    reaches = sliding.generate({**params, "budget": 10, "no_undo": False, "node_limit": 1}, None)
    assert sliding.known_by_construction(reaches, "optimal-trace")[0] is False
    assert sliding.known_by_construction(puzzle, "ida*") is None

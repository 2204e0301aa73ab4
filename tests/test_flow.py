"""Flow Free: the article's counts, solver round trips, planted grids, bad input."""

from __future__ import annotations

import csv
import hashlib
import importlib
import itertools
import math
import re
from functools import cache

import numpy as np
import pytest
from conftest import DATA, assert_one_line_error, fixture_path
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver
from references import dimacs_problems, has_one_colour_2x2

from puzzlesat.generator.core.cnf import model_array
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.reader import read_dimacs
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.core.writer import dimacs_bytes
from puzzlesat.generator.families import flow
from puzzlesat.generator.families.flow.plant import colour_range, is_unique
from puzzlesat.generator.families.flow.puzzle import (
    LABELS,
    TOUCHING,
    load_puzzle,
    parse_text,
    puzzle_to_text,
    solution_from_paths,
    trace_paths,
)
from puzzlesat.generator.instance import build
from puzzlesat.validate.runs.certify import CheckedSolving

ENCODINGS = list(flow.ENCODINGS)

#: the module of flow.generate (the package attribute ``generate`` is the function)
FLOW_GENERATE = importlib.import_module("puzzlesat.generator.families.flow.generate")


def levels() -> list:
    return sorted(fixture_path("flow-zucker", "puzzles").glob("*.txt"))


@cache
def level(name: str) -> flow.Puzzle:
    return load_puzzle(str(fixture_path("flow-zucker", "puzzles", f"{name}.txt")))


def solve(formula, extra=()):
    with Solver(name="cadical195", bootstrap_with=formula.clauses()) as solver:
        for clause in extra:
            solver.add_clause(clause)
        if not solver.solve():
            return None
        return model_array(solver.get_model(), formula.num_vars)


def satisfies(formula, model) -> bool:
    lits = formula.flat_literals()
    ends = np.flatnonzero(lits == 0)
    true = np.where(lits > 0, model[np.abs(lits)], ~model[np.abs(lits)]) & (lits != 0)
    counts = np.add.reduceat(true, np.concatenate([[0], ends[:-1] + 1]))
    return bool((counts > 0).all())


def block_colouring(puzzle, solution) -> list:
    """The clause 'not this colouring of the free cells' (y is a function of x)."""
    formula = flow.encode(puzzle, "zucker")
    x = formula.var("x").reshape(puzzle.height * puzzle.width, -1)
    free = np.flatnonzero(puzzle.endpoints.reshape(-1) < 0)
    return (-x[free, solution.colors.reshape(-1)[free]]).tolist()


# -- the article's table ------------------------------------------------------------------------
def test_zucker_counts_equal_the_articles_table():
    # the published counts are vendored; the levels (CC BY-NC) are not: skipped without them
    rows = list(csv.DictReader((DATA / "zucker2016-flow.csv").open()))
    assert len(rows) == 28
    for row in rows:
        formula = flow.encode(level(row["puzzle"]), "zucker")
        clauses = int(row["clauses"])
        if row["puzzle"] == "jumbo_14x14_01":
            # the table counts the 2 cycle-blocking clauses the article's solver added while
            # solving this level; the static encoding has 94,496
            assert clauses == 94_498
            clauses -= 2
        assert (formula.num_vars, formula.num_clauses) == (int(row["variables"]), clauses), row
        assert dimacs_problems(formula) == []


def test_closed_form_count_on_regular_5x5():
    puzzle = level("regular_5x5_01")
    assert puzzle.labels == "RGYBO"
    assert flow.encode(puzzle, "zucker").num_clauses == 2031


# -- solving the levels -----------------------------------------------------------------------
def test_every_level_with_every_encoding():
    paths = levels()
    assert len(paths) == 29
    for path in paths:
        puzzle = level(path.stem)
        for encoding in ENCODINGS:
            formula = flow.encode(puzzle, encoding)
            model = solve(formula)
            if path.stem == "unsolvable_cross":
                assert model is None, encoding
                continue
            assert model is not None, (path.stem, encoding)
            if encoding == "zucker":
                continue  # may be a stray-cycle model; acyclic's are always solutions
            solution = flow.decode(puzzle, encoding, model)
            if encoding == "acyclic":
                assert flow.check(puzzle, solution) == [], path.stem
                # blocked solution: acyclic proves it was the only one
                assert solve(formula, [block_colouring(puzzle, solution)]) is None, path.stem


def test_stray_cycle_model_of_static_zucker_is_not_a_solution():
    puzzle = level("jumbo_14x14_01")
    formula = flow.encode(puzzle, "zucker")
    real = flow.decode(puzzle, "acyclic", solve(flow.encode(puzzle, "acyclic")))
    assert flow.check(puzzle, real) == []
    model = solve(formula, [block_colouring(puzzle, real)])
    assert model is not None
    problems = flow.check(puzzle, flow.decode(puzzle, "zucker", model))
    assert any(p.startswith("satisfies the CNF, not a solution: ") and "cycle" in p
               for p in problems), problems
    _, cycles = trace_paths(puzzle, flow.decode(puzzle, "zucker", model))
    assert cycles


def test_check_names_a_path_touching_itself():
    # A runs down the left column, along the bottom, back up through the centre and out to
    # the right: (1,0) and (1,1) touch. Legal in the game, excluded by the article's clauses,
    # so this level is UNSAT under zucker.
    puzzle = parse_text("ABB\n...\n..A")
    solution = solution_from_paths(puzzle, [[0, 3, 6, 7, 4, 5, 8], [1, 2]])
    problems = flow.check(puzzle, solution)
    assert len(problems) == 1 and problems[0].startswith(TOUCHING), problems
    assert solve(flow.encode(puzzle, "zucker")) is None


def test_check_finds_broken_solutions():
    puzzle = parse_text("AB\nAB")
    good = solution_from_paths(puzzle, [[0, 2], [1, 3]])
    assert flow.check(puzzle, good) == []
    colours = flow.Solution(good.colors.copy(), good.links.copy())
    colours.colors[0, 0] = 1
    assert any("lost its colour" in p for p in flow.check(puzzle, colours))
    links = flow.Solution(good.colors.copy(), good.links.copy())
    links.links[0, 0] = 0
    assert any("not returned" in p for p in flow.check(puzzle, links))


# -- the reference encoder -----------------------------------------------------------------------
def text_grid(rows: list[str]) -> tuple[list, int]:
    """Colour per cell (-1 empty) of a level's text, colours by first appearance."""
    labels = list(dict.fromkeys(ch for row in rows for ch in row if ch != "."))
    return [[labels.index(ch) if ch != "." else -1 for ch in row] for row in rows], len(labels)


def reference_encode(grid: list, colors: int, encoding: str = "zucker") -> tuple[int, list]:
    """Every encoding written out cell by cell from the package docstring (plain Python,
    obviously correct): ``grid[i][j]`` is the endpoint's colour or -1; returns the number of
    variables and the clauses in file order."""
    h, w = len(grid), len(grid[0])
    deltas = {"L": (0, -1), "R": (0, 1), "T": (-1, 0), "B": (1, 0)}
    types = ["LR", "TB", "TL", "TR", "BL", "BR"]

    def x(i, j, u):
        return (i * w + j) * colors + u + 1

    def on(i, j):
        return 0 <= i < h and 0 <= j < w

    def free(i, j):
        return on(i, j) and grid[i][j] < 0

    clauses = []
    for i, j in itertools.product(range(h), range(w)):
        u = grid[i][j]
        if u >= 0:
            clauses.append([x(i, j, u)])
            clauses += [[-x(i, j, v)] for v in range(colors) if v != u]
            nbs = [x(i + di, j + dj, u) for di, dj in deltas.values() if on(i + di, j + dj)]
            clauses.append(nbs)
            clauses += [[-a, -b] for a, b in itertools.combinations(nbs, 2)]
        else:
            cell = [x(i, j, u) for u in range(colors)]
            clauses.append(cell)
            clauses += [[-a, -b] for a, b in itertools.combinations(cell, 2)]
    nxt = h * w * colors
    yvars = {}
    for i, j in itertools.product(range(h), range(w)):
        if free(i, j):
            for t in types:
                if all(on(i + deltas[d][0], j + deltas[d][1]) for d in t):
                    nxt += 1
                    yvars[i, j, t] = nxt
    for i, j in itertools.product(range(h), range(w)):
        if not free(i, j):
            continue
        mine = [(t, yvars[i, j, t]) for t in types if (i, j, t) in yvars]
        clauses.append([y for _, y in mine])
        clauses += [[-a, -b] for (_, a), (_, b) in itertools.combinations(mine, 2)]
        for u in range(colors):
            for d, (di, dj) in deltas.items():
                ni, nj = i + di, j + dj
                for t, y in mine:
                    if d in t:
                        clauses.append([-y, -x(i, j, u), x(ni, nj, u)])
                        clauses.append([-y, x(i, j, u), -x(ni, nj, u)])
                    elif on(ni, nj):
                        clauses.append([-y, -x(i, j, u), -x(ni, nj, u)])
    if encoding == "zucker-2x2":
        for i, j in itertools.product(range(h - 1), range(w - 1)):
            corners = [(i, j, "BR"), (i, j + 1, "BL"), (i + 1, j, "TR"), (i + 1, j + 1, "TL")]
            if all(free(a, b) for a, b, _ in corners):
                clauses.append([-yvars[c] for c in corners])
    if encoding != "acyclic":
        return nxt, clauses
    # pairs of adjacent free cells, row-major by the first, the right neighbour before the one below
    pairs = [((i, j), (i + di, j + dj)) for i, j in itertools.product(range(h), range(w))
             for di, dj in ((0, 1), (1, 0)) if free(i, j) and free(i + di, j + dj)]
    if not pairs:
        return nxt, clauses
    cells = [(i, j) for i, j in itertools.product(range(h), range(w)) if free(i, j)]
    bits = max(1, math.ceil(math.log2(len(cells)))) if len(cells) > 1 else 1

    def new(count):
        nonlocal nxt
        nxt += count
        return list(range(nxt - count + 1, nxt + 1))

    rank = {cell: new(bits) for cell in cells}
    equal = [new(bits) for _ in pairs]  # equal[p][k]: bits k.. of a and b agree (k = 0 unused)
    less_at = [[new(bits), new(bits)] for _ in pairs]  # [p][dir][k]: dir 0 a < b, 1 b < a
    less = [new(2) for _ in pairs]
    for p, (a, b) in enumerate(pairs):
        for k in range(1, bits):
            clauses += [[-equal[p][k], -rank[a][k], rank[b][k]],
                        [-equal[p][k], rank[a][k], -rank[b][k]]]
    for p in range(len(pairs)):
        clauses += [[-equal[p][k], equal[p][k + 1]] for k in range(1, bits - 1)]
    for direction in (0, 1):
        for p, pair in enumerate(pairs):
            lo, hi = pair if direction == 0 else pair[::-1]
            for k, z in enumerate(less_at[p][direction]):
                clauses += [[-z, -rank[lo][k]], [-z, rank[hi][k]]]
        for p in range(len(pairs)):
            clauses += [[-less_at[p][direction][k], equal[p][k + 1]] for k in range(bits - 1)]
        clauses += [[-less[p][direction], *less_at[p][direction]] for p in range(len(pairs))]
    smaller = {}  # smaller[cell, nb]: nb has a smaller rank than cell
    for p, (a, b) in enumerate(pairs):
        smaller[b, a], smaller[a, b] = less[p]
    for i, j in cells:
        for t in types:
            ends = [(i + deltas[d][0], j + deltas[d][1]) for d in t]
            if (i, j, t) in yvars and all(free(*e) for e in ends):
                clauses.append([-yvars[i, j, t]] + [smaller[(i, j), e] for e in ends])
    return nxt, clauses


def assert_equals_the_reference(puzzle):
    grid = puzzle.endpoints.tolist()
    for encoding in ENCODINGS:
        formula = flow.encode(puzzle, encoding)
        num_vars, clauses = reference_encode(grid, puzzle.num_colors, encoding)
        assert formula.num_vars == num_vars, encoding
        assert formula.clauses() == clauses, encoding


@st.composite
def random_levels(draw):
    h, w = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    cells = draw(st.permutations(range(h * w)))
    pairs = draw(st.integers(1, max(1, (h * w) // 2)))
    if h * w < 2:
        return None
    grid = ["."] * (h * w)
    for k in range(pairs):
        grid[cells[2 * k]] = grid[cells[2 * k + 1]] = LABELS[k]
    return ["".join(grid[r * w:(r + 1) * w]) for r in range(h)]


@settings(max_examples=100, deadline=None)
@given(random_levels())
def test_every_encoding_equals_the_reference_on_random_levels(rows):
    """Endpoints anywhere (touching, in corners, a whole row of them), any rectangle: the fast
    encoder's clauses are the reference's, in the same order."""
    if rows is None:
        return
    puzzle = parse_text("\n".join(rows))
    assert reference_encode(*text_grid(rows)) == reference_encode(
        puzzle.endpoints.tolist(), puzzle.num_colors)
    assert_equals_the_reference(puzzle)


#: a 14x14 planted grid with 16 colours in the article's text format, jumbo-level-like
LEVEL_LIKE = """\
............A.
.B.........CDA
....E..EF.....
......GH......
.I.C....HJ..B.
......K.....J.
.......K.I....
.L......LM.F..
.N............
.......G.MNO..
...........P..
..............
.OD...........
....P.........
"""


def test_every_encoding_equals_the_reference_on_a_level_like_puzzle():
    rows = LEVEL_LIKE.splitlines()
    puzzle = parse_text(LEVEL_LIKE)
    assert puzzle.num_colors == 16 and puzzle.endpoints.tolist() == text_grid(rows)[0]
    assert_equals_the_reference(puzzle)
    # the spec's closed form: Σ_endpoints [C + 1 + C(d,2)] + Σ_free [2 + C(C,2) + C(k,2) + C·k·(d+2)]
    h, w, c = 14, 14, 16
    total = 0
    for i, j in itertools.product(range(h), range(w)):
        d = (i > 0) + (i < h - 1) + (j > 0) + (j < w - 1)
        k = {4: 6, 3: 3, 2: 1}[d]
        free = rows[i][j] == "."
        total += (2 + math.comb(c, 2) + math.comb(k, 2) + c * k * (d + 2) if free
                  else c + 1 + math.comb(d, 2))
    assert flow.encode(puzzle, "zucker").num_clauses == len(reference_encode(*text_grid(rows))[1])
    assert total == 99_891 == flow.encode(puzzle, "zucker").num_clauses


# -- planted grids ------------------------------------------------------------------------------
PLANTED = [(w, h, seed) for w, h in ((5, 5), (6, 8), (7, 7), (9, 9), (5, 12))
           for seed in range(6)] + [(12, 12, 0), (15, 15, 0)]


def test_planted_grids_are_sat_and_their_witnesses_models():
    for width, height, seed in PLANTED:
        puzzle = flow.generate({"width": width, "height": height, "min_path": 3}, Rng(seed))
        solution = flow.witness(puzzle)
        assert flow.check(puzzle, solution) == []
        assert flow.expected(puzzle, {}) == ("SAT", "planted")
        paths, _ = trace_paths(puzzle, solution)
        assert min(map(len, paths)) >= 3
        for encoding in ENCODINGS:
            formula = flow.encode(puzzle, encoding)
            assert satisfies(formula, flow.assignment(puzzle, encoding, solution)), encoding
        model = solve(flow.encode(puzzle, "acyclic"))
        assert flow.check(puzzle, flow.decode(puzzle, "acyclic", model)) == []


def test_planted_colour_count_and_determinism():
    params = {"width": 9, "height": 9, "colors": 12, "min_path": 3}
    a = flow.generate(params, Rng(3))
    assert a.num_colors == 12
    # pinned: the same seed draws this grid on every machine and numpy version
    assert puzzle_to_text(a).split() == [
        "....AB..B", "..CD..DEF", ".CG...G..", "......AE.", "...HI..IF",
        "....JK..K", "..L......", ".......J.", "..HL....."]
    ranged = flow.generate({"width": 8, "height": 8, "min_colors": 9, "max_colors": 11,
                            "min_path": 3}, Rng(1))
    assert 9 <= ranged.num_colors <= 11
    # the default is about sqrt(width * height), as in real levels
    assert flow.generate({"width": 12, "height": 12}, Rng(0)).num_colors == 12
    assert flow.generate({"width": 20, "height": 5}, Rng(0)).num_colors == 10


def planted_paths_ok(puzzle, min_path) -> list:
    """The planted solution by the puzzle's rules, plus path lengths (plain Python)."""
    problems = flow.check(puzzle, puzzle.planted)
    paths, _ = trace_paths(puzzle, puzzle.planted)
    problems += [f"path {u} has {len(p)} cells" for u, p in enumerate(paths) if len(p) < min_path]
    return problems


@st.composite
def plant_requests(draw, max_side=14):
    width, height = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    min_path = draw(st.integers(2, 5))
    low, high = colour_range(width, height, min_path)
    if high == 0:
        return width, height, min_path, None, 0
    return width, height, min_path, draw(st.integers(low, high)), draw(st.integers(0, 2**32))


@settings(max_examples=150, deadline=None)
@given(plant_requests())
def test_planting_meets_every_colour_count_exactly(request):
    """Any size, seed and count in colour_range: a valid path cover (check passes, paths at
    least min_path long, no one-colour 2x2 block), exactly that many colours, and the same
    puzzle again from the same seed."""
    width, height, min_path, colors, seed = request
    params = {"width": width, "height": height, "min_path": min_path}
    if colors is None:
        with pytest.raises(UserError, match="try a shorter --min-path"):
            flow.generate(params, Rng(seed))
        return
    params["colors"] = colors
    puzzle = flow.generate(params, Rng(seed))
    assert puzzle.num_colors == colors
    assert planted_paths_ok(puzzle, min_path) == []
    assert not has_one_colour_2x2(puzzle.planted.colors)
    again = flow.generate(params, Rng(seed))
    assert flow.puzzle_to_json(again) == flow.puzzle_to_json(puzzle)
    assert flow.solution_to_json(again.planted) == flow.solution_to_json(puzzle.planted)


@settings(max_examples=60, deadline=None)
@given(plant_requests(max_side=9))
def test_every_encoding_equals_the_reference_on_planted_grids(request):
    width, height, min_path, colors, seed = request
    if colors is None:
        return
    params = {"width": width, "height": height, "min_path": min_path, "colors": colors}
    assert_equals_the_reference(flow.generate(params, Rng(seed)))


#: Zucker's "extreme" levels: (side, colours) -- about half the side, below colour_range's low
EXTREME_LEVELS = [(8, 5), (9, 4), (10, 5), (11, 7), (12, 6)]


@pytest.mark.parametrize("side, colors", EXTREME_LEVELS + [(20, 6), (40, 12), (60, 18)])
def test_fewer_colours_than_the_shorter_side_by_merging(side, colors):
    """Counts like the extreme levels' (and down to 0.3 x the side) are met exactly, for every
    seed tried, with valid paths, and reproducibly."""
    assert colors < colour_range(side, side, 3)[0]
    for seed in range(3):
        params = {"width": side, "height": side, "colors": colors}
        puzzle = flow.generate(params, Rng(seed))
        assert puzzle.num_colors == colors
        assert planted_paths_ok(puzzle, 3) == []
        again = flow.generate(params, Rng(seed))
        assert flow.solution_to_json(again.planted) == flow.solution_to_json(puzzle.planted)


@settings(max_examples=80, deadline=None)
@given(side=st.tuples(st.integers(3, 14), st.integers(3, 14)), min_path=st.integers(2, 4),
       share=st.floats(0.0, 1.0), seed=st.integers(0, 2**32))
def test_fewer_colours_are_met_exactly_or_refused_in_one_line(side, min_path, share, seed):
    """Any count below the shorter side: an exact, valid cover, or the user error that names
    the fewest paths reached -- never a wrong count or an invalid cover."""
    width, height = side
    low, high = colour_range(width, height, min_path)
    assume(low > 1 and high > 0)
    colors = 1 + int(share * (low - 2))
    params = {"width": width, "height": height, "min_path": min_path, "colors": colors}
    try:
        puzzle = flow.generate(params, Rng(seed))
    except UserError as exc:
        assert re.fullmatch(rf"flow: planting merged a {width}x{height} grid down to \d+ paths "
                            rf"at best, not {colors} \(from {low} colours up it always "
                            r"succeeds\); try more colours or another seed", str(exc))
        return
    assert puzzle.num_colors == colors
    assert planted_paths_ok(puzzle, min_path) == []


def test_more_stripes_than_labels_merge_down_to_the_default():
    """70x63 has 63 stripes but the text format 62 labels: the default count is planted by
    merging."""
    puzzle = flow.generate({"width": 70, "height": 63}, Rng(1))
    assert puzzle.num_colors == 62 and planted_paths_ok(puzzle, 3) == []


def test_plain_stripes_last_resort_meets_the_count(monkeypatch):
    """With no rewiring attempt left, planting cuts plain stripes: still exact and valid."""
    monkeypatch.setattr(flow.plant, "PLANT_ATTEMPTS", 0)
    for colors in (10, 21, 30):
        puzzle = flow.generate({"width": 10, "height": 10, "colors": colors}, Rng(colors))
        assert puzzle.num_colors == colors and planted_paths_ok(puzzle, 3) == []


def test_unique_grids_are_unique():
    puzzle = flow.generate({"width": 6, "height": 6, "unique": True, "min_path": 3}, Rng(2),
                           CheckedSolving())
    assert puzzle.attempts >= 1
    assert flow.expected(puzzle, {})[1].startswith("planted, unique (cadical195, ")
    acyclic = flow.encode(puzzle, "acyclic")
    assert solve(acyclic, [block_colouring(puzzle, puzzle.planted)]) is None
    # is_unique (zucker + lazy cycle blocking) agrees with acyclic
    verdicts = []
    for seed in range(6):
        grid = flow.generate({"width": 8, "height": 8, "colors": 12}, Rng(seed))
        other = solve(flow.encode(grid, "acyclic"), [block_colouring(grid, grid.planted)])
        verdicts.append(is_unique(grid, CheckedSolving()))
        assert verdicts[-1] == (other is None), seed


def test_unique_needs_a_solver_passed_in():
    """Making a --unique grid without a solver passed in is one clear error."""
    with pytest.raises(UserError, match="--unique needs a SAT solver"):
        flow.generate({"width": 6, "height": 6, "unique": True}, Rng(2))


def test_unique_reports_its_attempts(puzzlesat, tmp_path, monkeypatch):
    """The user sees how many grids were drawn: in the summary and the header."""
    verdicts = iter([False, False, True])
    monkeypatch.setattr(FLOW_GENERATE, "is_unique", lambda puzzle, solving: next(verdicts))
    out = tmp_path / "u.cnf"
    result = puzzlesat("generate", "flow", "--width", "7", "--height", "7", "--unique",
                       "-o", out)
    assert result.code == 0, result.err
    assert "expected SAT (planted, unique (cadical195, 3 attempts))" in result.err
    assert read_dimacs(out).header["expected-from"] == "planted, unique (cadical195, 3 attempts)"


def test_unique_gives_up_with_a_clear_error(puzzlesat, tmp_path, monkeypatch):
    """Every planted grid has another solution: after UNIQUE_ATTEMPTS the user is told what to
    change, in one line, and no file is written."""
    tried = []
    monkeypatch.setattr(FLOW_GENERATE, "UNIQUE_ATTEMPTS", 3)
    monkeypatch.setattr(FLOW_GENERATE, "is_unique", lambda puzzle, solving: tried.append(puzzle) and False)
    out = tmp_path / "u.cnf"
    result = puzzlesat("generate", "flow", "--width", "6", "--height", "6", "--unique",
                       "-o", out)
    assert_one_line_error(result, "no unique 6x6 grid with 6 colours", "after 3 attempts")
    assert len(tried) == 3 and not out.exists()


def test_no_2x2_is_gone_with_a_clear_error(puzzlesat, tmp_path):
    """Planted paths never touch themselves, so no grid ever had a one-colour 2x2 block and
    --no-2x2 never changed anything: it is removed; a suite that still sets it is told so."""
    assert "no_2x2" not in {p.name for p in flow.PARAMS}
    spec = tmp_path / "s.toml"
    spec.write_text('[suite]\nname = "s"\nauthor = "a"\nversion = "1"\nseed = 1\n'
                    '[[group]]\nfamily = "flow"\nparams = { width = 5, height = 5, '
                    'no_2x2 = true }\n')
    result = puzzlesat("publish", spec, "-o", tmp_path / "out")
    assert_one_line_error(result, "unknown parameter 'no_2x2' for family flow")


def clauses_by_length(flat: np.ndarray):
    """The clauses of flat DIMACS literals (each clause ends in 0) as lists, grouped by length
    (one numpy gather per length, not one Python step per clause)."""
    ends = np.flatnonzero(flat == 0)
    starts = np.concatenate([[0], ends[:-1] + 1])
    lengths = ends - starts
    for length in np.unique(lengths).tolist():
        first = starts[lengths == length]
        yield flat[first[:, None] + np.arange(length)].tolist()


def test_a_large_grid_with_n_colours_solves_and_validates(puzzlesat, tmp_path):
    """30x30 with --colors 30 through the command line, solved by CaDiCaL, VERIFIED-SAT by
    `puzzlesat validate` (speed and bigger sizes are bench/bench_flow.py's business: 40x40 and
    60x60 take the same path through the same code).

    At n colours the zucker formula has about 3.7·n⁴ clauses (60x60: 13.4 M), and CaDiCaL
    left alone takes minutes from 30x30 on: the solver is given the planted solution as its
    initial phases, so the test checks the pipeline (file → solver → answer → validator →
    decoded solution → the puzzle's rules), not the solver's search."""
    size = 30
    out = tmp_path / f"f{size}.cnf"
    result = puzzlesat("generate", "flow", "--width", size, "--height", size, "--colors", size,
                       "--seed", 7, "--encoding", "zucker", "-o", out)
    assert result.code == 0, result.err
    dimacs = read_dimacs(out)
    puzzle = flow.puzzle_from_json(dimacs.header["puzzle"])
    assert puzzle.num_colors == size
    planted = flow.generate({"width": size, "height": size, "colors": size}, Rng(7))
    assert flow.puzzle_to_json(planted) == flow.puzzle_to_json(puzzle)
    known = flow.assignment(puzzle, "zucker", planted.planted)
    assert known.size == dimacs.num_vars + 1
    with Solver(name="cadical195") as solver:
        for clauses in clauses_by_length(dimacs.literals):
            solver.append_formula(clauses)
        variables = np.arange(1, dimacs.num_vars + 1)
        solver.set_phases(np.where(known[1:], variables, -variables).tolist())
        assert solver.solve()
        model = solver.get_model()
    del dimacs
    answer = tmp_path / "answer.out"
    answer.write_text("s SATISFIABLE\nv " + " ".join(map(str, model)) + " 0\n")
    result = puzzlesat("validate", out, answer)
    assert result.code == 0, result.out + result.err
    assert "VERIFIED-SAT" in result.out


def test_golden_instance_bytes():
    inst = build("flow", {"width": 7, "height": 7, "colors": 8}, "acyclic", seed=1)
    data = dimacs_bytes(inst.formula, inst.header())
    assert hashlib.sha256(data).hexdigest() == GOLDEN_SHA256, flow.render(inst.puzzle)


GOLDEN_SHA256 = "2f47d19a8f0ceade96861e8c99b7272f178abba9f0c904f5d89e42a07b414298"


# -- formats ------------------------------------------------------------------------------------
def test_text_and_json_round_trips():
    puzzle = level("regular_5x5_01")
    assert puzzle_to_text(puzzle) == fixture_path(
        "flow-zucker", "puzzles", "regular_5x5_01.txt").read_text()
    again = flow.puzzle_from_json(flow.puzzle_to_json(puzzle))
    assert puzzle_to_text(again) == puzzle_to_text(puzzle)
    planted = flow.generate({"width": 6, "height": 4}, Rng(0))
    solution = flow.solution_from_json(flow.solution_to_json(planted.planted))
    assert flow.check(planted, solution) == []
    assert "<svg" in flow.render_svg(planted, solution)


# -- the command line ---------------------------------------------------------------------------
def test_cli_generates(puzzlesat, tmp_path):
    out = tmp_path / "f.cnf.xz"
    result = puzzlesat("generate", "flow", "--width", 9, "--height", 9, "--colors", 12, "--seed",
                       3, "--encoding", "acyclic", "-o", out)
    assert result.code == 0, result.err
    assert "expected SAT (planted)" in result.err
    level_file = fixture_path("flow-zucker", "puzzles", "regular_5x5_01.txt")
    result = puzzlesat("generate", "flow", "--puzzle", level_file, "--encoding", "zucker", "-o",
                       tmp_path / "f.cnf")
    assert result.code == 0, result.err
    assert "184 variables, 2031 clauses, expected UNKNOWN (none)" in result.err


@pytest.mark.parametrize("text, fragment", [
    ("AB.\n.BA\n..A\n", "appears 3 times"),
    ("A#A\n...\n", "unknown character '#'"),
    ("A..\n..\nA..\n", "ragged rows: row 2 has 2 cells"),
    ("...\n...\n", "no endpoints"),
])
def test_cli_rejects_bad_levels(puzzlesat, tmp_path, text, fragment):
    path = tmp_path / "level.txt"
    path.write_text(text)
    result = puzzlesat("generate", "flow", "--puzzle", path, "-o", tmp_path / "f.cnf")
    assert_one_line_error(result, "level.txt", fragment)


@pytest.mark.parametrize("args, fragment", [
    (("--width", 3, "--height", 3, "--colors", 4),
     "takes 3..3 colours (fewer when the grid allows), asked for 4"),
    (("--width", 0, "--height", 3), "at least 1"),
    (("--width", 3), "give --width and --height"),
    (("--width", 3, "--height", 3, "--colors", 1),
     "planting merged a 3x3 grid down to 3 paths at best, not 1 (from 3 colours up it always "
     "succeeds); try more colours or another seed"),
    (("--width", 12, "--height", 12, "--colors", 49), "takes 12..48 colours (fewer when"),
    (("--width", 60, "--height", 60, "--colors", 63), "takes 60..62 colours (fewer when"),
    (("--width", 9, "--height", 9, "--min-colors", 5, "--max-colors", 28),
     "takes 9..27 colours (fewer when the grid allows), asked for 5..28"),
    (("--width", 2, "--height", 2), "no 2x2 grid has paths of at least 3 cells"),
])
def test_cli_rejects_impossible_sizes(puzzlesat, tmp_path, args, fragment):
    result = puzzlesat("generate", "flow", *args, "-o", tmp_path / "f.cnf")
    assert_one_line_error(result, fragment)


def test_unsolvable_cross_is_labelled_unsat_only_with_a_checked_proof(puzzlesat, tmp_path):
    level = fixture_path("flow-zucker", "puzzles", "unsolvable_cross.txt")
    plain = build("flow", {"puzzle": str(level)}, "zucker")
    assert (plain.expected, plain.expected_from) == ("UNKNOWN", "none")
    out = tmp_path / "cross.cnf"
    result = puzzlesat("generate", "flow", "--puzzle", level, "--certify", "-o", out)
    assert result.code == 0, result.err
    header = read_dimacs(out).header
    assert (header["expected"], header["expected-from"]) == ("UNSAT", "certified:cadical195+puzzlesat-drat")


def test_certify_refuses_a_solvable_level(puzzlesat, tmp_path):
    level = fixture_path("flow-zucker", "puzzles", "regular_5x5_01.txt")
    result = puzzlesat("generate", "flow", "--puzzle", level, "--certify", "-o", tmp_path / "x.cnf")
    assert_one_line_error(result)
    assert not (tmp_path / "x.cnf").exists()

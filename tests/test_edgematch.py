"""Edge matching: Table 1 of Heule 2009, the SAT'09 files, round trips, the reference encoder."""

from __future__ import annotations

import csv
import hashlib
import itertools
from collections import Counter

import numpy as np
import pytest
from conftest import DATA, assert_one_line_error, fixture_path
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver
from references import dimacs_problems

from puzzlesat.generator.core.cnf import model_array
from puzzlesat.generator.core.reader import read_dimacs
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.core.writer import clause_bytes, dimacs_bytes, gbd_hash_of_body
from puzzlesat.generator.families import edgematch as em
from puzzlesat.generator.families import get_family
from puzzlesat.generator.families.edgematch.encode import (
    SAT09_TURN_SEED,
    TYPE_PATTERNS,
    Board,
    duplicate_pairs,
    duplicate_pieces,
    heule_turned,
    piece_type,
)
from puzzlesat.generator.families.edgematch.puzzle import load_pieces
from puzzlesat.generator.instance import build

ENCODINGS = list(em.ENCODINGS)
TABLE1_PIECES = {"clue1": "clue1", "clue2": "clue2", "clue3": "clue3", "clue4": "clue4",
                 "em-7-3-6": "em_7_3_6", "em-7-4-8": "em_7_4_8", "em-7-4-9": "em_7_4_9",
                 "em-8-4-5": "em_8_4_5", "em-9-3-5": "em_9_3_5", "em-11-3-4": "em_11_3_4",
                 "em-12-2-4": "em_12_2_4", "em-14-7-3": "em_14_7_3"}
#: Table 1 prints +41475 for em-14-7-3 fbcolors; the rules (and our count) give +41472.
TABLE1_TYPO = {("em-14-7-3", "fbcolors_extra"): 41472}


# -- the slow reference encoder, written from the spec's tables with plain loops --------------------
def reference_encode(puzzle: em.Puzzle, encoding: str) -> list[list[int]]:
    """Heule's encoding clause by clause (shared/specs/edge-matching.md), no numpy tricks."""
    board = Board(puzzle)  # square classes, numbering and colour domains (checked separately)
    R, C = puzzle.rows, puzzle.cols
    pieces = [list(map(int, p)) for p in puzzle.pieces]
    n = len(pieces)
    classes = [list(map(int, board.squares[k])) for k in range(3)]
    members = [[p for p in range(n) if board.cls[p] == k] for k in range(3)]
    offset, x = 1, {}
    for p in range(n):
        for j, q in enumerate(classes[board.cls[p]]):
            x[p, q] = offset + j
        offset += len(classes[board.cls[p]])

    def diamond(q, s):
        r, c = divmod(q, C)
        span = 2 * C - 1
        return {0: (r - 1) * span + C - 1 + c if r > 0 else None,
                1: r * span + c if c < C - 1 else None,
                2: r * span + C - 1 + c if r < R - 1 else None,
                3: r * span + c - 1 if c > 0 else None}[s]

    open_ids: dict[tuple[int, int], int] = {}
    if not puzzle.bounded:
        internal = R * (C - 1) + (R - 1) * C
        for q in range(R * C):
            for s in range(4):
                if diamond(q, s) is None:
                    open_ids[q, s] = internal + len(open_ids)
    D = R * (C - 1) + (R - 1) * C + len(open_ids)
    center_sq = {q for q in classes[2]} if puzzle.bounded else set(range(R * C))
    border_d = set()
    if puzzle.bounded:
        for d in range(D):
            squares = [q for q in range(R * C) for s in range(4) if diamond(q, s) == d]
            if not any(q in center_sq for q in squares):
                border_d.add(d)
    domains = [list(board.domains[0].tolist()), list(board.domains[1].tolist())]
    base, nxt = {}, offset - 1  # y(d, k) = base[d] + k, k from 1
    for d in range(D):
        base[d] = nxt
        nxt += len(domains[0 if d in border_d else 1])

    def lit(q, s, colour):  # [side s of square q shows colour, as the piece sees it]
        d = diamond(q, s)
        if d is None:
            d = open_ids[q, s]
        elif puzzle.signed and s in (0, 3):
            colour = -colour
        dom = domains[0 if d in border_d else 1]
        return base[d] + dom.index(colour) + 1

    out = []
    for k in range(3):
        for q in classes[k]:
            out.append([x[p, q] for p in members[k]])
    for p in range(n):
        row = [x[p, q] for q in classes[board.cls[p]]]
        out.append(row)
        if encoding in ("explicit", "all"):
            out += [[-a, -b] for a, b in itertools.combinations(row, 2)]
    for d in range(D):
        ys = [base[d] + i + 1 for i in range(len(domains[0 if d in border_d else 1]))]
        out.append(ys)
        out += [[-a, -b] for a, b in itertools.combinations(ys, 2)]
    for p in range(n):
        k = board.cls[p]
        if k < 2:
            turn = int(board.normal_turn[p])
            normal = [pieces[p][(i + turn) % 4] for i in range(4)]
            frame_turns = board.turns[k]
            assert frame_turns is not None  # corners and borders have fixed turns
            turns = list(map(int, frame_turns))
            for q, t in zip(classes[k], turns):
                for i in ([1, 2] if k == 0 else [1, 2, 3]):
                    out.append([-x[p, q], lit(q, (i + t) % 4, normal[i])])
            continue
        turned = bool(heule_turned(puzzle.turn_seed, n)[p])
        t, start = piece_type(pieces[p][2:] + pieces[p][:2] if turned else pieces[p])
        start = (start + 2 * turned) % 4
        pattern = TYPE_PATTERNS[t - 1]
        role = {ch: pieces[p][(start + pattern.index(ch)) % 4] for ch in pattern}
        a, b, c, dd = (role.get(ch) for ch in "abcd")
        if encoding in ("fbcolors", "all") and t != 1:
            for q in classes[2]:
                for s in range(4):
                    for colour in domains[1]:
                        if colour not in pieces[p]:
                            out.append([-x[p, q], -lit(q, s, colour)])
        for q in classes[2]:
            L = lambda s, col: lit(q, s % 4, col)  # noqa: E731
            some = lambda col: [L(s, col) for s in range(4)]  # noqa: E731
            rows = []
            if t == 1:
                rows = [[L(s, a)] for s in range(4)]
            elif t == 2:
                rows = [some(b)]
                for s in (0, 1):
                    rows += [[L(s, a), L(s + 1, a)], [L(s, a), L(s + 2, a)], [L(s + 2, a), L(s + 3, a)]]
            elif t == 3:
                for s in range(4):
                    rows += [[L(s, a), L(s + 1, a)], [L(s, b), L(s + 1, b)]]
            elif t == 4:
                for s in (0, 1):
                    rows += [[L(s, a), L(s + 2, a)], [L(s, b), L(s + 2, b)]]
            elif t == 5:
                rows = [some(b), some(c)]
                for s in range(4):
                    rows += [[L(s, a), L(s + 2, a)], [-L(s, c), L(s - 1, b)],
                             [-L(s, b), L(s + 1, c)], [-L(s, a), -L(s + 1, a), L(s + 2, b)]]
            elif t == 6:
                rows = [some(b), some(c)]
                for s in range(4):
                    rows += [[L(s, a), L(s + 1, a)], [-L(s, b), L(s + 2, c)], [-L(s, c), L(s + 2, b)]]
            else:
                order = [a, b, c, dd]
                rows = [some(k) for k in order]
                for s in range(4):
                    rows += [[-L(s, k), L(s + 1, order[(i + 1) % 4])] for i, k in enumerate(order)]
            out += [[-x[p, q]] + row for row in rows]
    key = lambda p: tuple(int(v) for v in board.normal[p]) if board.cls[p] < 2 else min(  # noqa: E731
        tuple(pieces[p][i:] + pieces[p][:i]) for i in range(4))
    for p, q2 in itertools.combinations(range(n), 2):
        if board.cls[p] == board.cls[q2] and key(p) == key(q2):
            out += [[-x[p, q], -x[q2, q]] for q in classes[board.cls[p]]]
    return out


def solve(clauses):
    with Solver(name="cadical195", bootstrap_with=clauses) as solver:
        return solver.get_model() if solver.solve() else None


# -- Table 1 -----------------------------------------------------------------------------------
def table1_rows():
    path = DATA / "heule2009-table1.csv"
    with open(path) as fh:
        return list(csv.DictReader(fh))


@given(st.lists(st.lists(st.integers(1, 4), min_size=4, max_size=4), min_size=1, max_size=30))
def test_piece_types_match_piece_type(pieces):
    """The vectorised type and pattern start of center pieces against the per-piece reading."""
    from puzzlesat.generator.families.edgematch.encode import piece_types

    types, starts = piece_types(np.array(pieces))
    assert list(zip(types.tolist(), starts.tolist())) == [piece_type(p) for p in pieces]


def test_table1_reproduced_from_the_piece_files():
    for row in table1_rows():
        puzzle = load_pieces(TABLE1_PIECES[row["name"]])
        assert (puzzle.rows, puzzle.cols) == (int(row["rows"]), int(row["cols"])), row["name"]
        assert (Board(puzzle).domains[0].size, Board(puzzle).domains[1].size) == \
            (int(row["border_colors"]), int(row["center_colors"])), row["name"]
        counts = {enc: em.encode(puzzle, enc) for enc in ("compact", "fbcolors", "explicit", "all")}
        assert counts["compact"].num_vars == int(row["variables"]), row["name"]
        assert all(f.num_vars == int(row["variables"]) for f in counts.values())
        compact = counts["compact"].num_clauses
        got = {"compact_clauses": compact,
               "fbcolors_extra": counts["fbcolors"].num_clauses - compact,
               "explicit_extra": counts["explicit"].num_clauses - compact}
        for column, value in got.items():
            want = TABLE1_TYPO.get((row["name"], column), int(row[column]))
            assert value == want, (row["name"], column, value, row[column])
        assert counts["all"].num_clauses == compact + got["fbcolors_extra"] + got["explicit_extra"]


def test_table1_typo_is_the_only_difference():
    row = next(r for r in table1_rows() if r["name"] == "em-14-7-3")
    assert int(row["fbcolors_extra"]) == 41475  # the paper's figure ...
    assert TABLE1_TYPO[("em-14-7-3", "fbcolors_extra")] == 41472  # ... and what the rules give


# -- the published SAT'09 files -----------------------------------------------------------------------
#: the file tags of the 2009 competition's em files
SAT09_TAGS = {"cmp": "compact", "fbc": "fbcolors", "exp": "explicit", "all": "all"}
#: the published SAT'09 files we hold
SAT09_KNOWN = [("em_7_3_6", "compact", "cmp"), ("em_7_3_6", "fbcolors", "fbc"),
               ("em_7_3_6", "explicit", "exp"), ("em_7_3_6", "all", "all"),
               ("em_9_3_5", "compact", "cmp")]


def _sat09_files(folder, suffix):
    """(name, encoding, tag) of every name_tag<suffix> file in ``folder``."""
    found = []
    for path in sorted(folder.glob("*" + suffix)) if folder.is_dir() else []:
        name, _, tag = path.name[: -len(suffix)].rpartition("_")
        found.append((name, SAT09_TAGS[tag], tag))
    return found


#: the vendored copies (tests/data/sat09), checked on every clone
SAT09 = _sat09_files(DATA / "sat09", ".cnf.xz")


def test_every_published_sat09_file_is_vendored():
    """Every published file in the fixtures (em_9_3_5 fbc/exp/all, should they be added there)
    is vendored, and so checked below on every clone."""
    assert sorted(SAT09) == sorted(SAT09_KNOWN)
    published = _sat09_files(fixture_path("edgematch", "sat09-cnf"), ".cnf.gz")
    assert sorted(published) == sorted(SAT09)


def _role_free(puzzle, formula_clauses):
    """Clauses not owned by a center piece whose roles have a 180° choice (types 3, 4, 6, 7)."""
    board = Board(puzzle)
    owned = set()
    for p in board.members[2]:
        if piece_type(puzzle.pieces[p])[0] in (3, 4, 6, 7):
            first = int(board.x_offset[p])
            owned.update(range(first, first + board.squares[2].size))
    return [c for c in formula_clauses if not (c[0] < 0 and -c[0] in owned and len(c) > 1
                                                and any(abs(l) > board.num_x for l in c))]


@pytest.mark.parametrize("name,encoding,tag", SAT09)
def test_sat09_same_p_line_and_clause_multiset(name, encoding, tag):
    published = read_dimacs(DATA / "sat09" / f"{name}_{tag}.cnf.xz")
    puzzle = load_pieces(name)
    formula = em.encode(puzzle, encoding)
    assert (formula.num_vars, formula.num_clauses) == (published.num_vars, published.num_clauses)
    ours, theirs = formula.clauses(), published.clauses()
    assert Counter(tuple(sorted(c)) for c in ours) == Counter(tuple(sorted(c)) for c in theirs)
    # clause and literal order identical everywhere except the type clauses of center pieces
    # whose pattern can start at two sides (see test below)
    assert _role_free(puzzle, ours) == _role_free(puzzle, theirs)


@pytest.mark.parametrize("name,encoding,tag", SAT09)
def test_sat09_same_gbd_hash(name, encoding, tag):
    published = read_dimacs(DATA / "sat09" / f"{name}_{tag}.cnf.xz")
    puzzle = em.generate({"pieces": name, "turn_seed": SAT09_TURN_SEED}, None)
    formula = em.encode(puzzle, encoding)
    assert gbd_hash_of_body(clause_bytes(formula)) == published.gbd_hash
    # without Heule's shuffle the turned type 4/6/7 pieces name their colours the other way
    assert gbd_hash_of_body(clause_bytes(em.encode(load_pieces(name), encoding))) != \
        published.gbd_hash


def test_heule_turned_matches_glibc_rand():
    # glibc srand(1): rand() = 1804289383, 846930886, 1681692777, 1714636915, 1957747793,
    # 424238335, 719885386, 1649760492 (mod 4: 3 2 1 3 1 3 2 0)
    assert heule_turned(1, 8).tolist() == [False, True, False, False, False, False, True, False]
    assert heule_turned(0, 8).tolist() == heule_turned(1, 8).tolist()  # glibc: 0 -> 1
    assert not heule_turned(None, 8).any()


# -- round trips ---------------------------------------------------------------------------------
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_planted_em_6_3_4_round_trip(encoding):
    inst = build("edge-matching", {"rows": 6, "border_colors": 3, "center_colors": 4}, encoding, 1)
    assert (inst.expected, inst.expected_from) == ("SAT", "planted")
    clauses = inst.formula.clauses()
    model = solve(clauses)
    assert model is not None
    solution = em.decode(inst.puzzle, encoding, model_array(model, inst.formula.num_vars))
    assert em.check(inst.puzzle, solution) == []
    planted = em.assignment(inst.puzzle, encoding, inst.witness)
    assert all(any(planted[abs(l)] == (l > 0) for l in c) for c in clauses)


VARIANTS = [
    {"rows": 5, "cols": 6, "border_colors": 3, "center_colors": 4, "scramble": True},
    {"rows": 4, "center_colors": 3, "unbounded": True, "scramble": True},
    {"rows": 4, "border_colors": 2, "center_colors": 3, "signed": True, "scramble": True},
    {"rows": 3, "center_colors": 3, "unbounded": True, "signed": True, "scramble": True},
]


@pytest.mark.parametrize("params", VARIANTS, ids=lambda p: "-".join(k for k in p if p[k] is True))
def test_variants_witness_and_solver_agree_with_check(params):
    puzzle = em.generate(params, Rng(3))
    assert em.check(puzzle, em.witness(puzzle)) == []
    for encoding in ("compact", "all"):
        formula = em.encode(puzzle, encoding)
        assert dimacs_problems(formula) == []
        planted = em.assignment(puzzle, encoding, em.witness(puzzle))
        assert all(any(planted[abs(l)] == (l > 0) for l in c) for c in formula.clauses())
        model = solve(formula.clauses())
        solution = em.decode(puzzle, encoding, model_array(model, formula.num_vars))
        assert em.check(puzzle, solution) == []


def test_scramble_moves_and_turns_pieces():
    plain = em.generate({"rows": 5, "border_colors": 2, "center_colors": 3}, Rng(4))
    mixed = em.generate({"rows": 5, "border_colors": 2, "center_colors": 3, "scramble": True}, Rng(4))
    assert (plain.planted.piece == np.arange(25)).all() and (plain.planted.rotation == 0).all()
    assert not (mixed.planted.piece == np.arange(25)).all() and mixed.planted.rotation.any()
    assert em.check(mixed, mixed.planted) == []


def test_four_squares_encodes_solves_and_decodes():
    puzzle = load_pieces("four-squares")
    assert not puzzle.bounded and (puzzle.rows, puzzle.cols) == (2, 2)
    formula = em.encode(puzzle, "compact")
    model = solve(formula.clauses())
    solution = em.decode(puzzle, "compact", model_array(model, formula.num_vars))
    assert em.check(puzzle, solution) == []
    assert sorted(solution.piece.tolist()) == [0, 1, 2, 3]


def test_check_rejects_broken_boards():
    puzzle = load_pieces("em_7_3_6")
    good = em.witness(puzzle)
    assert em.check(puzzle, good) == []
    swapped = em.Solution(good.piece.copy(), good.rotation.copy())
    swapped.piece[[8, 9]] = swapped.piece[[9, 8]]
    assert any("does not match" in m for m in em.check(puzzle, swapped))
    turned = em.Solution(good.piece.copy(), good.rotation.copy())
    turned.rotation[0] = 1
    assert any("frame" in m for m in em.check(puzzle, turned))
    twice = em.Solution(np.zeros(49, np.int64), good.rotation.copy())
    assert em.check(puzzle, twice) == ["pieces are not each used exactly once"]


def test_expected_results():
    assert em.expected(load_pieces("eternity2"), {}) == ("UNKNOWN", "none")
    assert em.expected(load_pieces("em_9_3_5"), {})[0] == "SAT"
    assert em.expected(load_pieces("clue1"), {}) == ("UNKNOWN", "none")


# -- determinism ----------------------------------------------------------------------------------
GOLDEN = {
    ("all", 1): "b93a43e54435ec3347ff81c93986b7d5e52ba808ef5617a2c88b640a0e0e0f1b",
    ("all", 2): "33a86297a21b7f3389521bbfb339b3c43f8ebb9c0f8068c211ae721fcb9f778b",
}


@pytest.mark.parametrize("encoding,seed", list(GOLDEN))
def test_same_seed_same_bytes(encoding, seed):
    params = {"rows": 6, "border_colors": 3, "center_colors": 4}
    data = [dimacs_bytes(i.formula, i.header()) for i in
            (build("edge-matching", params, encoding, seed) for _ in range(2))]
    assert data[0] == data[1]
    assert hashlib.sha256(data[0]).hexdigest() == GOLDEN[encoding, seed]


def test_signed_scrambled_golden():
    inst = build("edge-matching", {"rows": 5, "cols": 6, "border_colors": 2, "center_colors": 3,
                                   "scramble": True, "signed": True}, "compact", 7)
    assert inst.name == "em-5x6-2-3-signed-scrambled-s7-compact"
    assert hashlib.sha256(dimacs_bytes(inst.formula, inst.header())).hexdigest() == \
        "5197c504741230cff6bf9a0f92db9dc6de98f3ffbe58c36213629934980650b2"


# -- the fast encoder against the reference -----------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(rows=st.integers(3, 5), extra=st.integers(0, 2), border=st.integers(1, 3),
       center=st.integers(1, 5), seed=st.integers(0, 2**32), unbounded=st.booleans(),
       signed=st.booleans(), scramble=st.booleans(), encoding=st.sampled_from(ENCODINGS),
       turn_seed=st.one_of(st.none(), st.integers(0, 2**32 - 1)))
def test_fast_encoder_matches_reference(rows, extra, border, center, seed, unbounded, signed,
                                        scramble, encoding, turn_seed):
    params = {"rows": rows, "cols": rows + extra, "center_colors": center,
              "unbounded": unbounded, "signed": signed, "scramble": scramble}
    if not unbounded:
        params["border_colors"] = min(border, 2 * (rows - 1) + 2 * (rows + extra - 1))
    params["center_colors"] = min(center, 4)
    if turn_seed is not None:
        params["turn_seed"] = turn_seed
    puzzle = em.generate(params, Rng(seed))
    assert em.encode(puzzle, encoding).clauses() == reference_encode(puzzle, encoding)


@pytest.mark.parametrize("name", ["clue1", "em_7_3_6", "em_9_3_5"])
def test_fast_encoder_matches_reference_on_real_pieces(name):
    puzzle = load_pieces(name)
    for encoding in ENCODINGS:
        assert em.encode(puzzle, encoding).clauses() == reference_encode(puzzle, encoding)


# -- piece files and the command line -----------------------------------------------------------------
def test_meta2010_file_reads_as_a_bounded_board():
    puzzle = load_pieces(str(fixture_path("edgematch", "meta2010", "meta_10x10.txt")))
    assert (puzzle.rows, puzzle.cols) == (10, 10)
    assert dimacs_problems(em.encode(puzzle, "compact")) == []


def test_json_round_trip():
    puzzle = em.generate({"rows": 4, "border_colors": 2, "center_colors": 3, "signed": True}, Rng(1))
    again = em.puzzle_from_json(em.puzzle_to_json(puzzle))
    assert (again.pieces == puzzle.pieces).all() and again.signed
    sol = em.solution_from_json(em.solution_to_json(puzzle.planted))
    assert em.check(again, sol) == []


def test_cli_generate_and_show(puzzlesat, tmp_path):
    out = tmp_path / "em.cnf.xz"
    result = puzzlesat("generate", "edge-matching", "--rows", "7", "--cols", "7", "--border-colors",
                       "3", "--center-colors", "6", "--seed", "1", "--encoding", "all", "-o", out)
    assert result.code == 0, result.err
    assert "em-7-3-6-s1-all" in result.err
    shown = puzzlesat("show", out, "--svg", tmp_path / "em.svg")
    assert shown.code == 0 and "variables: 1473" in shown.out and "|.   " in shown.out
    assert (tmp_path / "em.svg").read_text().startswith("<svg")
    clue = puzzlesat("generate", "edge-matching", "--pieces", "clue1", "-o", tmp_path / "c.cnf")
    assert clue.code == 0 and "clue1-compact: 728 variables, 3688 clauses" in clue.err


@pytest.mark.parametrize("args,fragment", [
    (["--rows", "7", "--border-colors", "0", "--center-colors", "3"], "--border-colors"),
    (["--rows", "7", "--border-colors", "3", "--center-colors", "999"], "--center-colors"),
    (["--rows", "8", "--cols", "7", "--border-colors", "3", "--center-colors", "3"], "rows (8)"),
    (["--pieces", "no-such-builtin"], "no such file or built-in"),
    (["--pieces", "clue1", "--rows", "6"], "cannot be combined"),
])
def test_cli_bad_input(puzzlesat, tmp_path, args, fragment):
    out = tmp_path / "x.cnf"
    assert_one_line_error(puzzlesat("generate", "edge-matching", *args, "-o", out), fragment)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text,fragment", [
    ("0\n1 2 3\n", "needs 4 sides"),
    ("0\n1 2 x 4\n", "expected integers"),
    ("2\n0 0 1 1\n", "hints"),
    ("0\n" + "1 1 1 1\n" * 9, "fit no rectangular board"),
])
def test_cli_malformed_piece_file(puzzlesat, tmp_path, text, fragment):
    pieces = tmp_path / "bad.txt"
    pieces.write_text(text)
    out = tmp_path / "x.cnf"
    assert_one_line_error(puzzlesat("generate", "edge-matching", "--pieces", pieces, "-o", out),
                          fragment)
    assert not out.exists()


def test_cli_unwritable_output(puzzlesat, tmp_path):
    out = tmp_path / "missing" / "x.cnf"
    assert_one_line_error(puzzlesat("generate", "edge-matching", "--pieces", "clue1", "-o", out),
                          "cannot write")
    assert not out.parent.exists()


# -- the size estimate, tightened by the generated puzzle ---------------------------------------
@pytest.mark.parametrize("params", [
    {"rows": 6, "cols": 7, "border_colors": 1, "center_colors": 1},  # every piece of a class alike
    {"rows": 8, "border_colors": 2, "center_colors": 2},
    {"rows": 5, "center_colors": 2, "unbounded": True},
    {"pieces": "clue1"},
])
def test_duplicate_pairs_counts_the_duplicate_clauses_without_making_them(params):
    from puzzlesat.generator.families.params import normalize_params

    family = get_family("edge-matching")
    puzzle = family.generate(normalize_params(family, params), Rng(5))
    assert duplicate_pairs(Board(puzzle)) == duplicate_pieces(Board(puzzle)).shape[0]


def test_boards_past_the_loose_bound_are_sized_by_their_puzzle(puzzlesat, tmp_path):
    """Every pair of pieces alike (the params-only bound) would put a 50x50 board past 2^31
    clauses; the generated puzzle has few duplicates, so it only needs --force."""
    from puzzlesat.generator.instance import check_size

    params = {"rows": 50, "border_colors": 5, "center_colors": 17}
    loose = get_family("edge-matching").estimate(
        {"rows": 50, "cols": 50, "border_colors": 5, "center_colors": 17}, "compact")
    assert loose.loose and loose.clauses > 2**31
    sized = check_size("edge-matching", params, "compact", force=True, seed=4)
    assert not sized.loose and sized.clauses < 2 * 10**8
    result = puzzlesat("generate", "edge-matching", "--rows", "50", "--border-colors", "5",
                       "--center-colors", "17", "--encoding", "compact", "--seed", "4",
                       "-o", tmp_path / "big.cnf")
    assert_one_line_error(result, f"estimated {sized.variables:,} variables, "
                                  f"{sized.clauses:,} clauses", "pass --force")

"""WCNF 2022+: the writer against a plain-Python reference, the reader's round trip and its
refusals of every malformed line, byte-for-byte regeneration."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from conftest import assert_one_line_error

from puzzlesat.generator.core.cnf import Deferred
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.head import read_head
from puzzlesat.generator.core.wcnf import (
    MAX_WEIGHT,
    Wcnf,
    parse_wcnf,
    wcnf_bytes,
    wcnf_clause_bytes,
)


def reference_wcnf(wcnf: Wcnf) -> bytes:
    """The definition of the clause text: ``h`` or the weight, the literals up to the first
    0, then ``0``; hard clauses first, one clause a line."""
    lines = []
    for clause in wcnf.hard.clauses():
        lines.append(" ".join(["h", *map(str, clause), "0"]))
    for block in wcnf.soft:
        for row, weight in zip(block.literals.tolist(), block.weights.tolist()):
            clause = row[: row.index(0)] if 0 in row else row
            lines.append(" ".join([str(weight), *map(str, clause), "0"]))
    return "".join(line + "\n" for line in lines).encode()


def random_wcnf(rng: np.random.Generator, num_vars: int) -> Wcnf:
    """Hard blocks (ragged, 3-D, deferred) and soft blocks with weights up to 2^63 - 1."""
    w = Wcnf()
    w.hard.new_vars("x", num_vars)
    for width in (1, 3, 7):
        lits = rng.integers(1, num_vars + 1, size=(50, width)) * rng.choice([-1, 1], (50, width))
        lengths = rng.integers(1, width + 1, 50)  # padding zeros end a row
        lits[np.arange(width)[None, :] >= lengths[:, None]] = 0
        w.hard.add(f"h{width}", lits)
    cube = rng.integers(1, num_vars + 1, size=(4, 5, 3))
    w.hard.add("cube", cube)
    w.hard.add("deferred", Deferred((20, 2), lambda: cube.reshape(-1, 3)[:20, :2]))
    soft = rng.integers(-num_vars, num_vars + 1, size=(40, 4))
    soft[soft == 0] = 1
    weights = [1, 7, 10**12] * 13 + [MAX_WEIGHT - 1]
    w.add_soft("some", soft[:, :2], 1)
    w.add_soft("weighted", soft, weights)
    return w


@pytest.mark.parametrize("num_vars", [9, 10, 99_999, 1_000_000])
def test_writer_matches_the_reference(num_vars):
    """The run writer's text equals the reference's for ragged, 3-D, deferred and weighted
    blocks, across literal widths up to two words."""
    w = random_wcnf(np.random.default_rng(num_vars), num_vars)
    assert wcnf_clause_bytes(w) == reference_wcnf(w)


def test_reader_round_trip():
    """Parsing the written text gives back the clauses, weights and header."""
    w = random_wcnf(np.random.default_rng(1), 50)
    text = wcnf_bytes(w, {"family": "demo", "optimum": "3"})
    parsed = parse_wcnf(text, "t")
    assert parsed.header == {"family": "demo", "optimum": "3"}
    assert np.array_equal(parsed.hard, w.hard.flat_literals())
    soft, weights = w.soft_literals()
    assert np.array_equal(parsed.soft, soft) and np.array_equal(parsed.weights, weights)
    assert parsed.total_weight == w.total_weight == 40 + 13 * (1 + 7 + 10**12) + MAX_WEIGHT - 1


def test_cost_is_the_weight_of_falsified_soft_clauses():
    """A model's cost sums the weights of exactly the soft clauses it falsifies."""
    w = Wcnf()
    w.hard.new_vars("x", 3)
    w.add_soft("s", [[1, 0], [-2, 3], [2, 0]], [5, MAX_WEIGHT - 1, 2])
    model = np.array([False, False, True, False])
    assert w.cost(model) == 5 + MAX_WEIGHT - 1
    assert parse_wcnf(wcnf_bytes(w), "t").cost(model) == 5 + MAX_WEIGHT - 1


def test_weights_out_of_bounds_are_refused_when_built():
    """A weight of 0, 2^63, or a total reaching 2^64 - 1 never reaches the text."""
    w = Wcnf()
    w.hard.new_vars("x", 2)
    for bad in (0, -1, MAX_WEIGHT):
        with pytest.raises(ValueError):
            w.add_soft("bad", [[1]], bad)
    w.add_soft("big", [[1], [2]], MAX_WEIGHT - 1)
    with pytest.raises(ValueError, match="2\\^64"):
        w.add_soft("over", [[1]], 1)


@pytest.mark.parametrize("text, message", [
    (b"h 1 2 0\n0 1 0\n", "weight 0"),
    (b"h 1 2 0\n-3 1 0\n", "negative weight"),
    (b"h 1 2 0\n%d 1 0\n" % 2**63, "2^63 or more"),
    (b"%d 1 0\n%d 2 0\n%d -1 0\n" % ((2**63 - 1,) * 3), "2^64 - 1"),
    (b"h 1 2\n", "does not end with 0"),
    (b"p wcnf 2 1 10\n10 1 0\n", "pre-2022"),
    (b"h 1 0 2 0\n", "a 0 inside"),
    (b"h 0\n", "empty clause"),
    (b"x 1 0\n", "starts with 'h' or a weight"),
    (b"h 1 a 0\n", "unexpected character"),
    (b"h 1 2147483648 0\n", "too large"),
    (b"h 1 --2 0\n", "malformed literal"),
    (b"1.5 1 0\n", "starts with 'h' or a weight"),
])
def test_malformed_wcnf_is_one_clear_error(text, message):
    """Every malformed line is a UserError naming the problem (and the line)."""
    with pytest.raises(UserError, match=message.replace("^", "\\^")):
        parse_wcnf(text, "t.wcnf")


def test_malformed_wcnf_on_the_command_line(tmp_path, puzzlesat):
    """``show`` on a WCNF with a zero weight or in the pre-2022 format, ``validate`` on one
    without a puzzlesat header (refused before its clauses are read): one line, exit 2, no
    traceback."""
    (tmp_path / "bad.wcnf").write_bytes(b"c family: edge-matching\nh 1 2 0\n0 1 0\n")
    assert_one_line_error(puzzlesat("show", tmp_path / "bad.wcnf"), "line 3", "weight 0")
    (tmp_path / "out").write_text("s UNKNOWN\n")
    result = puzzlesat("validate", tmp_path / "bad.wcnf", tmp_path / "out")
    assert_one_line_error(result, "not a puzzlesat instance", "encoding, puzzle")
    (tmp_path / "old.wcnf").write_bytes(b"c old\np wcnf 2 1 10\n10 1 0\n")
    assert_one_line_error(puzzlesat("show", tmp_path / "old.wcnf"), "line 2", "pre-2022")


def test_format_is_told_by_the_first_clause_line(tmp_path):
    """A file whose first non-comment line is a hard clause (or ``p wcnf``, the old format,
    refused when read), or whose header says so, is WCNF; a ``p cnf`` line, or bare numeric
    clauses (DIMACS without its p line), is not."""
    cases = {"a.wcnf": b"c x\nh 1 0\n", "b.cnf": b"c x\np cnf 1 1\n1 0\n",
             "c.wcnf": b"c format: wcnf-2022\n1 1 0", "d.cnf": b"c only\n",
             "f.cnf": b"1 -2 0\n2 0\n",
             "e.wcnf": b"p wcnf 1 1 3\n3 1 0\n"}
    for name, text in cases.items():
        (tmp_path / name).write_bytes(text)
        assert (read_head(tmp_path / name).format == "wcnf") == name.endswith(".wcnf"), name


def test_generated_wcnf_is_deterministic_and_pinned(tmp_path, puzzlesat):
    """The same command writes the same bytes, compressed too; the text's sha256 is pinned."""
    args = ("generate", "edge-matching", "--rows", "4", "--cols", "4", "--border-colors", "2",
            "--center-colors", "3", "--unsat", "parity", "--seed", "2", "--format", "wcnf")
    for name in ("a.wcnf", "b.wcnf", "a.wcnf.xz", "b.wcnf.xz"):
        assert puzzlesat(*args, "-o", tmp_path / name).code == 0
    assert (tmp_path / "a.wcnf").read_bytes() == (tmp_path / "b.wcnf").read_bytes()
    assert (tmp_path / "a.wcnf.xz").read_bytes() == (tmp_path / "b.wcnf.xz").read_bytes()
    text = (tmp_path / "a.wcnf").read_bytes()
    parsed = parse_wcnf(text, "a")
    assert parsed.header["optimum"] == "1"
    assert (parsed.num_vars, parsed.hard.size and int((parsed.hard == 0).sum()),
            parsed.weights.size) == (616, 1828, 24)
    assert hashlib.sha256(text[text.index(b"\nh ") + 1:]).hexdigest() == GOLDEN_BODY


#: sha256 of the clause lines of em-4-2-3-parity-s2-sides (WCNF)
GOLDEN_BODY = "220f66931eb6b2ab6185b44f9d402d905f64114c79bc9d8a3d98a0e62579fbed"

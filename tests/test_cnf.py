import numpy as np
import pytest
from references import dimacs_problems

from puzzlesat.generator.core.cnf import (
    Deferred,
    Formula,
    pairwise_at_most_one,
)
from puzzlesat.generator.core.writer import clause_bytes


def test_variable_blocks_are_consecutive_and_shaped():
    f = Formula()
    x = f.new_vars("x", 2, 3)
    y = f.new_vars("y", 4)
    assert x.tolist() == [[1, 2, 3], [4, 5, 6]]
    assert y.tolist() == [7, 8, 9, 10]
    assert f.num_vars == 10
    with pytest.raises(ValueError):
        f.new_vars("x", 1)


def test_ragged_blocks_and_order():
    f = Formula()
    f.new_vars("v", 5)
    f.add("a", [[1, 2, 0], [3, 0, 0]])
    f.add("b", [[-4, 5]])
    assert f.clauses() == [[1, 2], [3], [-4, 5]]
    assert f.flat_literals().tolist() == [1, 2, 0, 3, 0, -4, 5, 0]


def test_deferred_clauses_are_made_when_read_and_equal_eager_ones():
    """A Deferred block is made only when read (each time), and a formula of deferred 2-D and
    3-D blocks has the same clauses, counts, units and text as the eager one."""
    made = []
    flat = np.array([[1, -2, 0], [3, 4, 5]], dtype=np.int32)
    units = np.array([[[1, 2], [-3, 0]], [[4, 5], [-1, 0]]], dtype=np.int32)

    def make(array):
        made.append(array.shape)
        return array.copy()

    eager, lazy = Formula(), Formula()
    for f in (eager, lazy):
        f.new_vars("v", 5)
    eager.add("flat", flat)
    eager.add("units", units)
    lazy.add("flat", Deferred(flat.shape, lambda: make(flat)))
    lazy.add("units", Deferred(units.shape, lambda: make(units)))
    lazy.add("empty", Deferred((0, 3), lambda: make(np.zeros((0, 3)))))
    assert made == []
    assert lazy.num_clauses == eager.num_clauses == 6
    assert [b.unit for b in lazy.blocks] == [b.unit for b in eager.blocks] == [1, 2]
    assert lazy.clauses() == eager.clauses()
    assert clause_bytes(lazy) == clause_bytes(eager)
    assert made == [(2, 3), (2, 2, 2)] * 2  # read twice, made twice
    assert dimacs_problems(lazy) == dimacs_problems(eager) == []


def test_pairwise_at_most_one_order():
    assert pairwise_at_most_one([[1, 2, 3]]).tolist() == [[-1, -2], [-1, -3], [-2, -3]]


@pytest.mark.parametrize("rows, problem", [
    ([[1, 1]], "duplicate literal"),
    ([[1, -1]], "tautology"),
    ([[0, 1]], "empty clause"),
    ([[1, 0, 2]], "zero inside"),
    ([[7]], "beyond variable"),
])
def test_problems_found(rows, problem):
    f = Formula()
    f.new_vars("v", 3)
    f.add("bad", rows)
    assert any(problem in p for p in dimacs_problems(f)), dimacs_problems(f)

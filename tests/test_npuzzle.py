"""Puzzle mechanics, the IDA* solver and the Korf data loader (generator/families/sliding/npuzzle.py)."""

from __future__ import annotations

import itertools

import pytest
from references import bfs_distances

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.families.sliding import npuzzle


@pytest.fixture(scope="module")
def distances3():
    """BFS distance of every one of the 181,440 solvable 3×3 configurations."""
    return bfs_distances(3, 3)


def test_bfs_covers_the_solvable_half_with_the_known_diameter(distances3):
    assert len(distances3) == 181440
    assert max(distances3.values()) == 31  # the 8-puzzle's diameter


def test_solvable_is_exactly_bfs_reachability(distances3):
    perms = list(itertools.permutations(range(9)))
    picks = Rng(3).integers(len(perms), 20000)
    for i in picks.tolist():
        p = perms[i]
        assert npuzzle.solvable(p, 3, 3) == (p in distances3)


def test_ida_star_matches_bfs_and_heuristic_is_admissible(distances3):
    states = sorted(distances3)
    for i in Rng(5).integers(len(states), 300).tolist():
        s = states[i]
        result = npuzzle.ida_star(s, 3, 3)
        assert result.distance == distances3[s]
        assert len(result.path) == result.distance
        assert npuzzle.replay(s, 3, 3, result.path)[-1] == npuzzle.goal(3, 3)
    for i in Rng(6).integers(len(states), 5000).tolist():
        assert npuzzle.heuristic(states[i], 3, 3) <= distances3[states[i]]


def test_ida_star_on_rectangles_finds_paths_no_longer_than_the_walk():
    for rows, cols, seed in [(2, 4, 1), (4, 3, 2), (3, 5, 3), (4, 4, 4)]:
        walk = npuzzle.random_walk(rows, cols, 24, Rng(seed))
        start = npuzzle.replay(npuzzle.goal(rows, cols), rows, cols, walk)[-1]
        result = npuzzle.ida_star(start, rows, cols)
        assert result.distance <= 24 and result.distance % 2 == 0
        assert npuzzle.heuristic(start, rows, cols) <= result.distance
        assert npuzzle.replay(start, rows, cols, result.path)[-1] == npuzzle.goal(rows, cols)


def test_ida_star_proves_korf50_trace_at_k50():
    start, rest = npuzzle.korf_traces()[49].truncation(50)
    result = npuzzle.ida_star(start, 5, 5)
    assert result.distance == 50
    assert npuzzle.replay(start, 5, 5, result.path)[-1] == npuzzle.goal(5, 5)


def test_node_limit_leaves_only_a_lower_bound():
    start, _ = npuzzle.korf_traces()[49].truncation(80)
    result = npuzzle.ida_star(start, 5, 5, node_limit=2000)
    assert result.distance is None and result.path is None
    assert result.nodes == 2000
    assert npuzzle.heuristic(start, 5, 5) <= result.lower_bound <= 80


def test_korf_data_loads_validated():
    korf, random = npuzzle.korf_traces(), npuzzle.random_traces()
    assert len(korf) == 50 and len(random) == 386
    assert korf[49].length == 113 and korf[0].length == 95
    assert min(t.length for t in korf + random) == 74
    assert max(t.length for t in random) == 123
    for trace in korf[:3] + random[:3]:
        assert npuzzle.replay(trace.start, 5, 5, trace.moves)[-1] == npuzzle.goal(5, 5)


def test_loader_rejects_a_path_that_misses_the_goal():
    line = "1,0,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24 1 0 0"
    assert npuzzle.parse_paths(line, "x", "t")[0].moves == "L"
    with pytest.raises(ValueError, match="does not reach the goal"):
        npuzzle.parse_paths(line.replace(" 1 0 0", " 3 0 0,1,2"), "x", "t")
    with pytest.raises(ValueError, match="not next to the blank"):
        npuzzle.parse_paths(line.replace(" 1 0 0", " 1 0 7"), "x", "t")


def test_truncation_is_at_the_stated_distance_from_the_goal():
    trace = npuzzle.korf_traces()[49]
    start, rest = trace.truncation(20)
    assert len(rest) == 20 and npuzzle.replay(start, 5, 5, rest)[-1] == npuzzle.goal(5, 5)
    with pytest.raises(UserError, match="k must be in 0..113"):
        trace.truncation(114)


@pytest.mark.parametrize("config, message", [
    ((1, 2, 3), "needs 4 tiles"),
    ((0, 1, 1, 3), "not a permutation"),
    ((0, 2, 1, 3), "unsolvable"),
])
def test_check_config_errors(config, message):
    with pytest.raises(UserError, match=message):
        npuzzle.check_config(config, 2, 2)

"""The family contract (:class:`Family`), held by one test parametrised over every family:
generate → witness → assignment satisfies the encoding → solve → decode → check, and the
JSON round trips. A family added to the registry without a row here fails the first test."""

from __future__ import annotations

import inspect
import re

import pytest
from pysat.solvers import Solver
from references import dimacs_problems

from puzzlesat.generator import api
from puzzlesat.generator.core.cnf import model_array
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.families import (
    Family,
    edgematch,
    family_names,
    flow,
    get_family,
    sliding,
)
from puzzlesat.generator.families.params import normalize_params
from puzzlesat.generator.instance import build
from puzzlesat.generator.tracks import get_track, tracks_of

#: each module bound to the contract with its own puzzle and solution types, so that mypy checks
#: every signature of the module against the Protocol (isinstance below sees the names only)
EDGE_MATCHING: Family[edgematch.Puzzle, edgematch.Solution] = edgematch
SLIDING: Family[sliding.Puzzle, sliding.Solution] = sliding
FLOW: Family[flow.Puzzle, flow.Solution] = flow

#: small params per family (solved in well under a second in every encoding)
SMALL = {
    "edge-matching": {"rows": 4, "cols": 4, "border_colors": 2, "center_colors": 3},
    "sliding": {"rows": 3, "cols": 3, "walk": 8},
    "flow": {"width": 6, "height": 6},
}


def test_every_family_has_a_contract_row_and_a_typed_binding():
    assert sorted(SMALL) == sorted(family_names())
    assert [f.NAME for f in (EDGE_MATCHING, SLIDING, FLOW)] == family_names()


#: each family's Python function
PYTHON_API = {"edge-matching": api.edge_matching, "sliding": api.sliding, "flow": api.flow}


@pytest.mark.parametrize("name", family_names())
def test_the_python_function_takes_the_family_params_as_typed_keywords(name):
    """Its keywords are the family's PARAMS with their defaults, in order, then the encoding
    (None: the track's first), seed, solving, force and the track (SAT by default); each has
    a type."""
    family, signature = get_family(name), inspect.signature(PYTHON_API[name])
    keywords = list(signature.parameters.values())
    assert all(k.kind is k.KEYWORD_ONLY and k.annotation is not k.empty for k in keywords)
    count = len(family.PARAMS)
    assert [(k.name, k.default) for k in keywords[:count]] == \
        [(p.name, p.default) for p in family.PARAMS]
    assert [k.name for k in keywords[count:]] == ["encoding", "seed", "solving", "force",
                                                  "track"]
    assert signature.parameters["encoding"].default is None
    assert signature.parameters["track"].default == "sat"


@pytest.mark.parametrize("name", family_names())
def test_the_python_function_makes_the_command_line_instance(name):
    """Its instance has the header and bytes of the instance the params build, for every
    track the family has; without its header, the same text but the header's lines."""
    for track in ("sat", *get_family(name).TRACKS):
        made = PYTHON_API[name](**SMALL[name], seed=3, track=track)
        assert made.text() == build(name, SMALL[name], None, 3, track=track).text()
        lines = made.text().splitlines(keepends=True)
        assert made.text(header=False) == "".join(
            line for line in lines if not re.match(r"[c*] [a-z-]+: ", line))


@pytest.mark.parametrize("name", family_names())
def test_module_keeps_the_contract(name):
    family = get_family(name)
    assert isinstance(family, Family)
    assert family.NAME == name
    assert family.ENCODINGS and family.HARDNESS_PARAM in {p.name for p in family.PARAMS}


@pytest.mark.parametrize("name,encoding", [(n, e) for n in family_names()
                                           for e in get_family(n).ENCODINGS])
def test_round_trip_through_a_solver(name, encoding):
    family = get_family(name)
    params = normalize_params(family, SMALL[name])
    puzzle = family.generate(params, Rng(3))
    assert family.puzzle_to_json(family.puzzle_from_json(family.puzzle_to_json(puzzle))) \
        == family.puzzle_to_json(puzzle)
    result, source = family.expected(puzzle, params)
    assert result == "SAT" and source
    formula = family.encode(puzzle, encoding)
    witness = family.witness(puzzle)
    assert family.check(puzzle, witness) == []
    known = family.assignment(puzzle, encoding, witness)
    assert known.dtype == bool and len(known) == formula.num_vars + 1
    clauses = formula.clauses()
    assert all(any(known[abs(l)] == (l > 0) for l in clause) for clause in clauses)
    with Solver(name="cadical195", bootstrap_with=clauses) as solver:
        assert solver.solve()
        model = model_array(solver.get_model(), formula.num_vars)
    solution = family.decode(puzzle, encoding, model)
    assert family.check(puzzle, solution) == []
    again = family.solution_from_json(family.solution_to_json(solution))
    assert family.solution_to_json(again) == family.solution_to_json(solution)
    assert isinstance(family.render(puzzle, solution), str)


#: params of each family's certified UNSAT variant (a puzzle refuted by an argument the
#: family's ``check_certificate`` checks, no solver needed); None where the family has none
CERTIFIED_UNSAT = {
    "edge-matching": {**SMALL["edge-matching"], "unsat": "parity"},
    "sliding": None,
    "flow": {**SMALL["flow"], "unsat": "parity"},
}


@pytest.mark.parametrize("name,encoding", [(n, e) for n in family_names()
                                           for e in get_family(n).ENCODINGS])
def test_certified_unsat_variant(name, encoding):
    """expected UNSAT from a certificate that holds for the puzzle and not for its planted
    twin; the CNF is clean and a solver refutes it."""
    assert sorted(CERTIFIED_UNSAT) == sorted(family_names())
    family = get_family(name)
    planted = family.generate(normalize_params(family, SMALL[name]), Rng(3))
    if CERTIFIED_UNSAT[name] is None:
        assert family.check_certificate(planted, family.expected(planted, {})[1]) is None
        pytest.skip(f"{name} has no certified UNSAT variant")
    params = normalize_params(family, CERTIFIED_UNSAT[name])
    puzzle = family.generate(params, Rng(3))
    result, source = family.expected(puzzle, params)
    assert result == "UNSAT"
    assert family.check_certificate(puzzle, source)[0] is True
    assert family.check_certificate(planted, source)[0] is False
    assert family.witness(puzzle) is None
    assert family.puzzle_to_json(family.puzzle_from_json(family.puzzle_to_json(puzzle))) \
        == family.puzzle_to_json(puzzle)
    formula = family.encode(puzzle, encoding)
    assert dimacs_problems(formula) == []
    with Solver(name="cadical195", bootstrap_with=formula.clauses()) as solver:
        assert solver.solve() is False


#: more params per family for the size estimate (cheap to build in every encoding)
ESTIMATED = {
    "edge-matching": [SMALL["edge-matching"],
                      {"rows": 5, "cols": 7, "border_colors": 3, "center_colors": 4,
                       "signed": True},
                      {"rows": 4, "center_colors": 3, "unbounded": True},
                      {"pieces": "clue1"}, CERTIFIED_UNSAT["edge-matching"]],
    "sliding": [SMALL["sliding"], {"rows": 2, "cols": 3, "walk": 5, "budget": 7,
                                   "no_undo": True},
                {"korf": 50, "k": 12}, {"start": [1, 0, 2, 3]}],
    "flow": [SMALL["flow"], {"width": 7, "height": 5, "colors": 6}],
}


@pytest.mark.parametrize("name,track,encoding", [
    (n, t.NAME, e) for n in family_names() for t in tracks_of(get_family(n))
    for e in t.encodings(get_family(n))])
def test_estimate_bounds_the_real_counts(name, track, encoding):
    """Every track's ``estimate`` (params only, nothing allocated; and again with the
    generated puzzle) is at least the real size of its file's body."""
    family, form = get_family(name), get_track(track)
    assert sorted(ESTIMATED) == sorted(family_names())
    for raw in ESTIMATED[name]:
        params = normalize_params(family, raw)
        puzzle = family.generate(params, Rng(3))
        try:
            formula = form.encode(family, puzzle, encoding)
        except UserError:  # a form the puzzle has not (no stays with --no-undo, ...)
            continue
        variables, constraints = form.sizes(formula)
        for size in (form.estimate(family, params, encoding),
                     form.estimate(family, params, encoding, puzzle)):
            assert size.variables >= variables, (raw, size, variables)
            assert size.clauses >= constraints, (raw, size, constraints)
            assert size.bytes >= len(form.body(formula)), (raw, size)
        size = form.estimate(family, params, encoding)
        if (name, track) == ("sliding", "sat") and encoding != "direct" and "walk" not in raw \
                and "start" not in raw:  # budget known: exact
            assert (size.variables, size.clauses) == (variables, constraints)

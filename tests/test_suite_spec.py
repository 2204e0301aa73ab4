"""The suite spec: TOML validation, grid expansion and seed derivation (no files written).

A toy family (planted assignments as unit clauses) stands in for the real ones, so these
tests pin the spec logic alone.
"""

from __future__ import annotations

import sys
import types
from typing import Any

import numpy as np
import pytest

from puzzlesat.generator import families
from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.seeds import derive_seed
from puzzlesat.generator.families.params import Estimate, Param
from puzzlesat.generator.suite import parse_spec

HEAD = b"""
[suite]
name = "t"
author = "A. Author"
version = "1"
seed = 11
"""


def _toy_module() -> types.ModuleType:
    toy: Any = types.ModuleType("puzzlesat.generator.families.toy")  # built attribute by attribute
    toy.NAME = "toy"
    toy.SUMMARY = "planted unit clauses"
    toy.STORY = "A toy: n variables, each fixed by a unit clause to a planted value."
    toy.PICTURE_MARKS = ""
    toy.REFERENCES = ({"type": "article", "title": "Toy paper", "year": 2000,
                       "authors": [{"family-names": "Doe", "given-names": "J."}]},)
    toy.HARDNESS_PARAM = "n"
    toy.PARAMS = (Param("n", int, 3, "variables", minimum=1),
                  Param("flip", "ints", None, "variables planted false"),
                  Param("fixed", bool, False, "no seed: plant all true"))
    toy.ENCODINGS = {"unit": "one unit clause per variable", "twice": "each unit clause twice"}
    toy.uses_seed = lambda params: not params["fixed"]

    def instance_name(params, draw, encoding):
        flip = ["f" + "_".join(map(str, params["flip"]))] if params.get("flip") else []
        return "-".join(["toy", str(params["n"])] + flip + ([draw] if draw else []) + [encoding])

    def generate(params, rng, solving=None):
        n = params["n"]
        values = np.ones(n, bool) if params["fixed"] else rng.integers(2, n) == 1
        return {"values": values.tolist()}

    def encode(puzzle, encoding):
        f = Formula()
        x = f.new_vars("x", len(puzzle["values"]))
        lits = np.where(puzzle["values"], x, -x).reshape(-1, 1)
        f.add("planted", np.tile(lits, (2, 1)) if encoding == "twice" else lits)
        return f

    toy.instance_name = instance_name
    toy.TRACKS = {}  # the SAT track only
    toy.estimate = lambda params, encoding, puzzle=None: Estimate(params["n"], 2 * params["n"],
                                                     2 * params["n"] * (len(str(params["n"])) + 4))
    toy.generate = generate
    toy.encode = encode
    toy.expected = lambda puzzle, params, solving=None: ("SAT", "planted")
    toy.witness = lambda puzzle: puzzle["values"]
    toy.puzzle_to_json = lambda puzzle: puzzle
    toy.solution_to_json = lambda solution: solution
    toy.render_tikz = lambda puzzle, solution=None, width=4.0: \
        f"\\fbox{{{len(puzzle['values'])} values}}"
    return toy


def register_toy() -> None:
    """Make ``toy`` a registered family in this process (for subprocess runners)."""
    sys.modules["puzzlesat.generator.families.toy"] = _toy_module()
    families.FAMILY_MODULES["toy"] = "toy"


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(sys.modules, "puzzlesat.generator.families.toy", _toy_module())
    monkeypatch.setitem(families.FAMILY_MODULES, "toy", "toy")
    return sys.modules["puzzlesat.generator.families.toy"]


def fail_at_40(toy, monkeypatch) -> None:
    """Make the toy family fail to build its n=40 instances (a build error mid-publish)."""
    real = toy.generate

    def failing(params, rng, solving=None):
        if params["n"] == 40:
            raise UserError("cannot build this one")
        return real(params, rng, solving)

    monkeypatch.setattr(toy, "generate", failing)


def spec(groups: bytes):
    return parse_spec(HEAD + groups, "s.toml")


def test_grid_expands_params_replicates_encodings_in_order(toy):
    s = spec(b'[[group]]\nfamily = "toy"\nencodings = ["unit", "twice"]\nreplicates = 2\n'
             b'params = { n = [2, 5] }\n')
    got = [(t.params["n"], t.replicate, t.encoding) for t in s.tasks]
    assert got == [(n, r, e) for n in (2, 5) for r in (1, 2) for e in ("unit", "twice")]
    # one seed per puzzle: the encodings of a grid point share it, replicates do not
    seeds = [t.seed for t in s.tasks]
    assert seeds[0] == seeds[1] != seeds[2] == seeds[3]
    assert seeds[0] == derive_seed(11, 'toy/{"fixed":false,"n":2}/r1')
    # names carry the replicate, not the long derived seed
    assert [t.name for t in s.tasks[:3]] == ["toy-2-r1-unit", "toy-2-r1-twice", "toy-2-r2-unit"]
    assert s.tasks[0].file == "instances/toy-2-r1-unit.cnf.xz"


def test_adding_a_group_changes_no_other_instance(toy):
    one = spec(b'[[group]]\nfamily = "toy"\nparams = { n = 4 }\n')
    two = spec(b'[[group]]\nfamily = "toy"\nparams = { n = [7, 8] }\nreplicates = [3]\n'
               b'[[group]]\nfamily = "toy"\nparams = { n = 4 }\n')
    assert one.tasks[0].seed == two.tasks[2].seed and one.tasks[0].name == two.tasks[2].name
    assert len(two.tasks) == 3 and {t.replicate for t in two.tasks[:2]} == {3}


def test_ints_param_list_is_one_value_and_list_of_lists_an_axis(toy):
    single = spec(b'[[group]]\nfamily = "toy"\nparams = { flip = [1, 2] }\n')
    assert [t.params["flip"] for t in single.tasks] == [[1, 2]]
    axis = spec(b'[[group]]\nfamily = "toy"\nparams = { flip = [[1], [2, 3]] }\n')
    assert [t.params["flip"] for t in axis.tasks] == [[1], [2, 3]]


def test_range_table_is_inclusive(toy):
    s = spec(b'[[group]]\nfamily = "toy"\nparams = { n = { from = 30, to = 34, step = 2 } }\n')
    assert [t.params["n"] for t in s.tasks] == [30, 32, 34]


def test_fixed_puzzles_have_no_seed(toy):
    s = spec(b'[[group]]\nfamily = "toy"\nparams = { fixed = true }\n')
    assert s.tasks[0].seed is None and s.tasks[0].name == "toy-3-unit"


@pytest.mark.parametrize("text, fragment", [
    (b"[suite\n", "TOML syntax error"),
    (b"[suite]\nname='x'\n", "missing key 'author'"),
    (HEAD + b"colour = 1\n", "unknown key 'colour'"),
    (HEAD.replace(b"seed = 11", b"seed = '11'"), "seed must be int"),
    (HEAD.replace(b'"t"', b'"a/b"'), "name 'a/b' must be letters"),
    (HEAD + b"compression = 'zip'\n", "compression 'zip' is not one of"),
    (HEAD + b"[[group]]\nfamily = 'nope'\n", "[[group]] 1: unknown family 'nope'"),
    (HEAD + b"[[group]]\nfamily = 'toy'\nparams = { m = 3 }\n", "unknown parameter 'm'"),
    (HEAD + b"[[group]]\nfamily = 'toy'\nparams = { n = 'x' }\n", "[[group]] 1: --n: expected int"),
    (HEAD + b"[[group]]\nfamily = 'toy'\nparams = { n = 0 }\n", "must be at least 1"),
    (HEAD + b"[[group]]\nfamily = 'toy'\nparams = { n = [] }\n", "params.n is an empty list"),
    (HEAD + b"[[group]]\nfamily = 'toy'\nencodings = []\n", "encodings is an empty list"),
    (HEAD + b"[[group]]\nfamily = 'toy'\nencoding = 'cnf'\n", "unknown encoding 'cnf'"),
    (HEAD + b"[[group]]\nfamily = 'toy'\nreplicates = 0\n", "replicates must be at least 1"),
    (HEAD + b"[[group]]\nfamily = 'toy'\nseeds = 2\n", "[[group]] 1: unknown key 'seeds'"),
    (HEAD + b"[[group]]\nfamily = 'toy'\nparams = { n = { from = 5, to = 4 } }\n", "is empty"),
    (HEAD + b"[[group]]\nfamily = 'toy'\nparams = { fixed = true }\nreplicates = 2\n",
     "replicates must be 1"),
    (HEAD + b"[[group]]\nfamily = 'toy'\n[[group]]\nfamily = 'toy'\n", "appears twice"),
    (HEAD + b"[[group]]\nfamily = 'sliding'\nparams = { korf = 1, k = 8, node_limit = [9, 99] }\n",
     "two instances would be named sliding-korf1-k8-bd-rotated ([[group]] 1 and 1): the sliding "
     "name does not show node_limit"),
    (HEAD + b"[extra]\n", "unknown top-level key 'extra'"),
])
def test_bad_specs_name_what_and_where(toy, text, fragment):
    with pytest.raises(UserError) as exc:
        parse_spec(text, "s.toml")
    message = str(exc.value)
    assert message.startswith("s.toml"), message
    assert fragment in message and "\n" not in message, message


def test_zip_keys_vary_together(toy):
    s = spec(b'[[group]]\nfamily = "toy"\nparams = { fixed = [true, false] }\n'
             b'zip = { n = { from = 3, to = 5 }, flip = [[1], [2], [3]] }\n')
    assert [(t.params["fixed"], t.params["n"], t.params["flip"]) for t in s.tasks] == [
        (True, 3, [1]), (True, 4, [2]), (True, 5, [3]),
        (False, 3, [1]), (False, 4, [2]), (False, 5, [3])]
    with pytest.raises(UserError, match=r"zip lists must be equally long, got n: 3, flip: 2"):
        spec(b'[[group]]\nfamily = "toy"\nzip = { n = [1, 2, 3], flip = [[1], [2]] }\n')
    with pytest.raises(UserError, match=r"'n' is in both params and zip"):
        spec(b'[[group]]\nfamily = "toy"\nparams = { n = 1 }\nzip = { n = [1, 2] }\n')

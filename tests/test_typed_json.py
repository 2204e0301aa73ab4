"""JSON the tool reads is taken in JSON's own types: a flag is true or false, a count or a
colour an integer; anything else is one line naming the field, never a coerced value and
never a traceback (the typed readers of generator/core/structured.py, and every document read
through them)."""

from __future__ import annotations

import json

import pytest
from conftest import assert_one_line_error

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.structured import (
    get_bool,
    get_int,
    get_int_list,
    get_int_rows,
    get_str,
    load_json,
)

#: what "rows" held in the issue's reproducers, as JSON text: none of them is an integer
NOT_INTEGERS = ["null", '"x"', '"2"', "1e400", "NaN", "-Infinity", "[2]", "{}", "2.7", "2.0",
                "true", "false"]
#: none of them is a flag
NOT_FLAGS = ['"false"', '"no"', '"true"', "0", "1", "null", "[]", "{}", "0.0"]


def doc(key: str, text: str) -> dict:
    return load_json(f'{{"{key}": {text}}}', "test")


@pytest.mark.parametrize("text", NOT_INTEGERS)
def test_an_integer_field_refuses_every_other_json_value(text):
    with pytest.raises(UserError, match=r"^puzzle\.rows must be an integer, got "):
        get_int(doc("rows", text), "rows", "puzzle")


@pytest.mark.parametrize("text", NOT_FLAGS)
def test_a_flag_refuses_every_other_json_value(text):
    with pytest.raises(UserError, match=r"^piece file\.signed must be true or false, got "):
        get_bool(doc("signed", text), "signed", "piece file")


def test_the_message_quotes_the_value_as_json_writes_it():
    with pytest.raises(UserError, match=r'got "false"$'):
        get_bool(doc("signed", '"false"'), "signed", "p")
    with pytest.raises(UserError, match=r"got Infinity$"):
        get_int(doc("rows", "1e400"), "rows", "p")
    with pytest.raises(UserError, match=r"got \"x{36}\.\.\.$"):
        get_int(doc("rows", json.dumps("x" * 1000)), "rows", "p")


def test_values_of_the_right_type_are_read_as_they_are():
    assert get_int(doc("rows", "7"), "rows", "p", lo=2) == 7
    assert get_int(doc("rows", "-99999999999999999999"), "rows", "p") == -99999999999999999999
    assert get_bool(doc("signed", "false"), "signed", "p") is False
    assert get_str(doc("source", '"clue1"'), "source", "p") == "clue1"
    assert get_int_list(doc("start", "[1, 0, 2, 3]"), "start", "p", lo=0) == [1, 0, 2, 3]
    assert get_int_rows(doc("pieces", "[[0, 1, 2, 3]]"), "pieces", "p", width=4) == [[0, 1, 2, 3]]


def test_absent_fields_take_the_default_or_are_named():
    assert get_bool({}, "bounded", "p", default=True) is True
    assert get_int({}, "turn_seed", "p", default=None) is None
    with pytest.raises(UserError, match=r"^puzzle\.rows is missing$"):
        get_int({}, "rows", "puzzle")
    with pytest.raises(UserError, match=r"^puzzle must be a JSON object, got \[1\]$"):
        get_int([1], "rows", "puzzle")


def test_bounds_and_items_are_named_by_their_path():
    with pytest.raises(UserError, match=r"^p\.rows must be an integer at least 2, got 1$"):
        get_int(doc("rows", "1"), "rows", "p", lo=2)
    with pytest.raises(UserError, match=r"^p\.start\[2\] must be an integer, got 1\.5$"):
        get_int_list(doc("start", "[0, 1, 1.5]"), "start", "p")
    with pytest.raises(UserError, match=r"^p\.pieces\[1\]\[3\] must be an integer, got true$"):
        get_int_rows(doc("pieces", "[[0, 1, 2, 3], [0, 1, 2, true]]"), "pieces", "p", width=4)
    with pytest.raises(UserError, match=r"^p\.pieces\[0\] must have 4 items, got 3$"):
        get_int_rows(doc("pieces", "[[0, 1, 2]]"), "pieces", "p", width=4)
    with pytest.raises(UserError, match=r"^p\.pieces\[0\]\[0\] must be an integer from -5 to 5"):
        get_int_rows(doc("pieces", "[[6, 1, 2, 3]]"), "pieces", "p", lo=-5, hi=5)


# -- every family's puzzle and solution JSON, field by field ---------------------------------
def _leaves(value, path=()):
    """Every integer or boolean in a JSON value, with its path of keys and indices."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):  # a few items of each list stand for all
            yield from _leaves(item, (*path, index))
    elif isinstance(value, (bool, int)):
        yield path, value


def _replaced(value, path, new):
    copy = json.loads(json.dumps(value))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return copy


def _documents() -> dict:
    """{(family, 'puzzle' or 'solution'): its JSON} for a small puzzle of each family."""
    from test_families import SMALL

    from puzzlesat.generator.core.seeds import Rng
    from puzzlesat.generator.families import family_names, get_family
    from puzzlesat.generator.families.params import normalize_params

    out = {}
    for name in family_names():
        family = get_family(name)
        puzzle = family.generate(normalize_params(family, SMALL[name]), Rng(3))
        out[name, "puzzle"] = family.puzzle_to_json(puzzle)
        out[name, "solution"] = family.solution_to_json(family.witness(puzzle))
    return out


DOCUMENTS = _documents()
#: fields that may also be null (sliding's distance when IDA* proved none, the turn seed)
NULLABLE = {"distance", "turn_seed"}
CASES = [(name, kind, path, new)
         for (name, kind), data in DOCUMENTS.items()
         for path, value in _leaves(data)
         for new in [json.loads(t) for t in (NOT_FLAGS if isinstance(value, bool)
                                              else NOT_INTEGERS)]
         if not (new is None and path[-1] in NULLABLE)]


@pytest.mark.parametrize("name, kind, path, new", CASES,
                         ids=[f"{c[0]}-{c[1]}-{'.'.join(map(str, c[2]))}-{json.dumps(c[3])}"
                              for c in CASES])
def test_a_json_field_of_the_wrong_type_is_one_line_naming_it(name, kind, path, new):
    """A family reads its puzzle (a header's, a piece file's, a level's) and its solution (a
    witness's) in JSON's types: any other value in an integer or a flag is a UserError naming
    the field, never a coerced puzzle and never another exception."""
    from puzzlesat.generator.families import get_family

    family = get_family(name)
    data = DOCUMENTS[name, kind]
    read = family.puzzle_from_json if kind == "puzzle" else family.solution_from_json
    read(json.loads(json.dumps(data)))  # the document as written reads back
    with pytest.raises(UserError, match=str(path[0])):
        read(_replaced(data, path, new))


# -- the reproducers, through the command line ---------------------------------------
PIECE_FILE = {k: v for k, v in DOCUMENTS["edge-matching", "puzzle"].items()
              if k in ("rows", "cols", "bounded", "signed", "pieces")}


@pytest.mark.parametrize("key, text", [
    ("signed", '"false"'), ("bounded", '"no"'), ("rows", "2.7"), ("rows", "null"),
    ("rows", '"x"'), ("rows", "1e400"), ("rows", "NaN"), ("rows", "-Infinity"), ("rows", "[2]"),
    ("rows", "{}"), ("colour", "1.5"), ("colour", "true"), ("colour", '"1"')])
def test_a_piece_file_field_of_the_wrong_type_is_one_line(puzzlesat, tmp_path, key, text):
    """'signed': 'false' made a signed puzzle (64 variables instead of 40), 'bounded': 'no' a
    bounded one, 'rows': 2.7 two rows, a colour 1.5, true or "1" the colour 1; null, NaN,
    1e400, [2] or {} in 'rows' was a traceback."""
    data = json.loads(json.dumps(PIECE_FILE))
    if key == "colour":
        data["pieces"][5][1] = json.loads(text)
    else:
        data[key] = json.loads(text)
    (tmp_path / "p.json").write_text(json.dumps(data))
    result = puzzlesat("generate", "edge-matching", "--pieces", tmp_path / "p.json", "-o",
                       tmp_path / "p.cnf")
    assert_one_line_error(result, f"piece file.{'pieces[5][1]' if key == 'colour' else key} "
                                  f"must be ")
    assert not (tmp_path / "p.cnf").exists()


def test_validate_does_not_certify_a_header_puzzle_it_cannot_read(puzzlesat, tmp_path):
    """An UNSAT answer is certified by the header puzzle's parity count only when that puzzle
    reads as written: with "bounded":"no" in the header it is not certified (it was, quoting a
    bounded puzzle the header does not state)."""
    cnf, out = tmp_path / "u.cnf", tmp_path / "u.out"
    assert puzzlesat("generate", "edge-matching", "--rows", "3", "--cols", "3",
                     "--border-colors", "2", "--center-colors", "2", "--unsat", "parity",
                     "-o", cnf).code == 0
    out.write_text("s UNSATISFIABLE\n")
    honest = puzzlesat("validate", cnf, out)
    assert honest.code == 0 and honest.out.startswith("VERIFIED-UNSAT"), honest.out
    text = cnf.read_text()
    assert '"bounded":true' in text
    cnf.write_text(text.replace('"bounded":true', '"bounded":"no"', 1))
    lying = puzzlesat("validate", cnf, out)
    assert not lying.out.startswith("VERIFIED-UNSAT"), lying.out
    assert "puzzle.bounded must be true or false" in lying.out + lying.err

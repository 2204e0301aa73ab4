"""JSON the tool reads is taken in JSON's own types: a flag is true or false, a count or a
colour an integer; anything else is one line naming the field, never a coerced value and
never a traceback (the typed readers of generator/core/structured.py, and every document read
through them)."""

from __future__ import annotations

import json

import pytest

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

"""Solver output parsing: the three layouts, partial models, and what is malformed."""

from __future__ import annotations

import lzma

import pytest

from puzzlesat.validate.answers import MalformedOutput, output_bound, parse_output, read_answer


@pytest.mark.parametrize("text, status, literals", [
    (b"c hello\ns SATISFIABLE\nv 1 -2 3 0\n", "SAT", [1, -2, 3]),
    (b"s SATISFIABLE\nv 1\nv -2\nv 3 0\n", "SAT", [1, -2, 3]),          # several v lines
    (b"s SATISFIABLE\nv 1 0\n", "SAT", [1]),                               # partial model
    (b"s SATISFIABLE\r\nv 1 -2 0\r\n", "SAT", [1, -2]),                   # CRLF
    (b"\n  s SATISFIABLE\n\nv\t1 -2 0\nc done\n", "SAT", [1, -2]),        # blank lines, tabs
    (b"s UNSATISFIABLE\n", "UNSAT", None),
    (b"c a\ns UNKNOWN\nc b\n", "UNKNOWN", None),
    (b"", "UNKNOWN", None),                                                # no answer at all
    (b"c only comments\n", "UNKNOWN", None),
])
def test_competition_format(text, status, literals):
    out = parse_output(text)
    assert out.format == "competition" and out.status == status
    assert (out.literals.tolist() if out.literals is not None else None) == literals


@pytest.mark.parametrize("text, status, literals", [
    (b"SAT\n1 -2 3 0\n", "SAT", [1, -2, 3]),
    (b"UNSAT\n", "UNSAT", None),
    (b"INDET\n", "UNKNOWN", None),
])
def test_minisat_result_file(text, status, literals):
    out = parse_output(text)
    assert out.format == "minisat" and out.status == status
    assert (out.literals.tolist() if out.literals is not None else None) == literals


@pytest.mark.parametrize("text, literals", [
    (b"1 -2 3 0\n", [1, -2, 3]),
    (b"1 -2\n3\n", [1, -2, 3]),   # final 0 optional in a bare list
])
def test_bare_literal_list(text, literals):
    out = parse_output(text)
    assert (out.status, out.format, out.literals.tolist()) == ("SAT", "literals", literals)


def test_time_comment_and_long_v_line_warning():
    long_line = "v " + " ".join(str(i) for i in range(1, 1500)) + " 0"
    out = parse_output(f"c time: 1.25\ns SATISFIABLE\n{long_line}\n".encode())
    assert out.time == 1.25
    assert out.warnings == [f"line 3: v line of {len(long_line)} characters (limit 4096)"]
    assert parse_output(b"s UNKNOWN\n").time is None


def test_compressed_output_file(tmp_path):
    path = tmp_path / "out.txt.xz"
    path.write_bytes(lzma.compress(b"s SATISFIABLE\nv -1 0\n"))
    assert parse_output(read_answer(path, output_bound(1))).literals.tolist() == [-1]


@pytest.mark.parametrize("text, reason", [
    (b"s SATISFIABLE\ns SATISFIABLE\nv 1 0\n", "two s lines (lines 1 and 2)"),
    (b"v 1 2 0\n", "v lines without an s line"),
    (b"s SATISFIABLE\nv 1 2\n", "v lines: the model does not end with 0"),
    (b"s SATISFIABLE\nv 1 0 2 0\n", "v lines: 0 before the end of the model (after 1 literals)"),
    (b"s SATISFIABLE\n", "s SATISFIABLE without v lines"),
    (b"s UNSATISFIABLE\nv 1 0\n", "line 2: v lines after 's UNSATISFIABLE'"),
    (b"s SAT\n", "line 1: unknown status 's SAT'"),
    (b"s SATISFIABLE\nv 1 x 0\n", "unexpected character 'x'"),
    (b"s SATISFIABLE\nv 1 - 2 0\n", "malformed literal"),
    (b"s SATISFIABLE\nvalue 1 0\n", "line 2: 'value 1 0' is not a c, s or v line"),
    (b"SAT\n", "MiniSat result file says SAT but has no model line"),
    (b"SAT\n1 0\n2 0\n", "line 3: a MiniSat result file has one model line"),
    (b"UNSAT\n1 0\n", "line 2: nothing may follow UNSAT"),
    (b"1 2 0 3\n", "literal list: 0 before the end"),
    (b"s SATISFIABLE\nv \xff 0\n", "not ASCII text (byte 0xff at offset 16)"),
    (b"s SATISFIABLE\nv 99999999999999999999 0\n", "too large"),
])
def test_malformed_outputs(text, reason):
    with pytest.raises(MalformedOutput) as exc:
        parse_output(text)
    assert reason in str(exc.value)

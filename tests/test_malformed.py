"""The catalogue of malformed inputs, all through ``puzzlesat validate``.

Documented exit codes: a malformed *instance* (or proof/output file that cannot be read) is
the user's mistake — exit 2, one line ``puzzlesat: error: ...`` on stderr; a malformed
solver *output* is the verdict MALFORMED — exit 3, one verdict line on stdout. Never a
traceback.
"""

from __future__ import annotations

import bz2
import gzip
import lzma

import pytest
from conftest import assert_one_line_error

GOOD_CNF = b"p cnf 3 2\n1 -2 0\n2 3 0\n"
GOOD_OUT = b"s SATISFIABLE\nv 1 2 3 0\n"

# (id, instance bytes, fragment of the one-line error)
BAD_INSTANCES = [
    ("empty file", b"", "no 'p cnf' line"),
    ("no p line", b"1 -2 0\n", "no 'p cnf' line"),
    ("p line short", b"p cnf 3\n1 0\n", "malformed 'p cnf' line"),
    ("p line long", b"p cnf 3 1 7\n1 0\n", "malformed 'p cnf' line"),
    ("p line not cnf", b"p dnf 3 1\n1 0\n", "malformed 'p cnf' line"),
    ("p count not a number", b"p cnf x 1\n1 0\n", "malformed 'p cnf' line"),
    ("negative count", b"p cnf -3 1\n1 0\n", "negative count"),
    ("two p lines", b"p cnf 3 1\np cnf 3 1\n1 0\n", "more than one 'p cnf' line"),
    ("clause before p", b"1 0\np cnf 3 1\n1 0\n", "clauses before the 'p cnf' line"),
    ("too few clauses", b"p cnf 3 3\n1 -2 0\n2 3 0\n", "declares 3 clauses, found 2"),
    ("too many clauses", b"p cnf 3 1\n1 -2 0\n2 3 0\n", "declares 1 clauses, found 2"),
    ("literal beyond V", b"p cnf 3 1\n1 -4 0\n", "literal 4 is beyond the declared 3"),
    ("missing final 0", b"p cnf 3 2\n1 -2 0\n2 3\n", "last clause does not end with 0"),
    ("letter in clause", b"p cnf 3 1\n1 x 0\n", "unexpected character 'x'"),
    ("float literal", b"p cnf 3 1\n1.5 0\n", "unexpected character '.'"),
    ("plus sign", b"p cnf 3 1\n+1 0\n", "unexpected character '+'"),
    ("lone minus", b"p cnf 3 1\n1 - 2 0\n", "malformed literal"),
    ("double minus", b"p cnf 3 1\n--1 0\n", "malformed literal"),
    ("minus after digit", b"p cnf 3 1\n1- 0\n", "malformed literal"),
    ("minus zero", b"p cnf 3 1\n1 -0\n", "malformed literal"),
    ("huge literal", b"p cnf 3 1\n99999999999999999999 0\n", "literal too large"),
    ("NUL byte", b"p cnf 3 1\n1 0\n\x00", "unexpected character '\\\\x00'"),
    ("trailing comment on clause", b"p cnf 3 1\n1 0 c no\n", "unexpected character 'c'"),
    ("bad JSON in header", b"c params: {oops\np cnf 3 1\n1 0\n",
     "header line 'c params:': not valid JSON"),
    ("truncated xz", lzma.compress(GOOD_CNF)[:-8], "damaged or truncated xz archive"),
    ("truncated gzip", gzip.compress(GOOD_CNF)[:-6], "damaged or truncated gz archive"),
    ("truncated bzip2", bz2.compress(GOOD_CNF)[:-6], "damaged or truncated bz2 archive"),
]

# (id, output bytes, fragment of the MALFORMED verdict's reason)
BAD_OUTPUTS = [
    ("two s lines", b"s SATISFIABLE\ns UNSATISFIABLE\n", "two s lines"),
    ("same s line twice", b"s SATISFIABLE\nv 1 0\ns SATISFIABLE\n", "two s lines"),
    ("v without s", b"c x\nv 1 2 0\n", "v lines without an s line"),
    ("SAT without model", b"s SATISFIABLE\n", "without v lines"),
    ("model after UNSAT", b"s UNSATISFIABLE\nv 1 0\n", "v lines after 's UNSATISFIABLE'"),
    ("model after UNKNOWN", b"s UNKNOWN\nv 1 0\n", "v lines after 's UNKNOWN'"),
    ("v lines without final 0", b"s SATISFIABLE\nv 1 2\n", "does not end with 0"),
    ("0 inside the model", b"s SATISFIABLE\nv 1 0\nv 2 0\n", "0 before the end"),
    ("contradictory literals", b"s SATISFIABLE\nv 1 -1 0\n", "variable 1 both true and false"),
    ("literal beyond V", b"s SATISFIABLE\nv 1 2 7 0\n", "literal 7 is beyond the instance's 3"),
    ("negative literal beyond V", b"SAT\n-9 0\n", "literal -9 is beyond"),
    ("bad status word", b"s SAT\nv 1 0\n", "unknown status 's SAT'"),
    ("lower-case status", b"s satisfiable\nv 1 0\n", "unknown status"),
    ("unknown line type", b"s SATISFIABLE\nx 1 0\n", "is not a c, s or v line"),
    ("stray text", b"Segmentation fault\n", "is not a c, s or v line"),
    ("letter in model", b"s SATISFIABLE\nv 1 a 0\n", "unexpected character 'a'"),
    ("lone minus in model", b"s SATISFIABLE\nv 1 - 2 0\n", "malformed literal"),
    ("binary garbage", b"\x89PNG\r\n", "not ASCII text"),
    ("MiniSat SAT without model", b"SAT\n", "has no model line"),
    ("MiniSat two model lines", b"SAT\n1 0\n2 0\n", "has one model line"),
    ("MiniSat UNSAT with model", b"UNSAT\n1 0\n", "nothing may follow UNSAT"),
    ("bare list with inner 0", b"1 0 2 0\n", "0 before the end"),
]


@pytest.mark.parametrize("data, fragment", [c[1:] for c in BAD_INSTANCES],
                         ids=[c[0] for c in BAD_INSTANCES])
def test_malformed_instance_is_one_line_exit_2(tmp_path, puzzlesat, data, fragment):
    (tmp_path / "bad.cnf").write_bytes(data)
    (tmp_path / "ok.out").write_bytes(GOOD_OUT)
    result = puzzlesat("validate", tmp_path / "bad.cnf", tmp_path / "ok.out")
    assert_one_line_error(result, fragment)


def test_header_json_error_names_the_file(tmp_path, puzzlesat):
    (tmp_path / "bad.cnf").write_bytes(b"c params: {oops\np cnf 3 1\n1 0\n")
    (tmp_path / "ok.out").write_bytes(GOOD_OUT)
    assert_one_line_error(puzzlesat("validate", tmp_path / "bad.cnf", tmp_path / "ok.out"),
                          "bad.cnf")


@pytest.mark.parametrize("data, fragment", [c[1:] for c in BAD_OUTPUTS],
                         ids=[c[0] for c in BAD_OUTPUTS])
def test_malformed_output_is_verdict_exit_3(tmp_path, puzzlesat, data, fragment):
    (tmp_path / "ok.cnf").write_bytes(GOOD_CNF)
    (tmp_path / "bad.out").write_bytes(data)
    result = puzzlesat("validate", tmp_path / "ok.cnf", tmp_path / "bad.out")
    assert result.code == 3 and result.err == ""
    first = result.out.splitlines()[0]
    assert first.startswith(f"MALFORMED {tmp_path / 'ok.cnf'}: ") and fragment in first


@pytest.mark.parametrize("args, fragment", [
    (("missing.cnf", "ok.out"), "cannot read instance missing.cnf"),
    (("ok.cnf", "missing.out"), "cannot read output missing.out"),
    (("ok.cnf", "ok.out", "--proof", "missing.drat"), "cannot read missing.drat"),
])
def test_missing_files_are_one_line_exit_2(tmp_path, puzzlesat, monkeypatch, args, fragment):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.cnf").write_bytes(GOOD_CNF)
    (tmp_path / "ok.out").write_bytes(GOOD_OUT)
    assert_one_line_error(puzzlesat("validate", *args), fragment)


def test_legal_layouts_are_accepted(tmp_path, puzzlesat):
    """Several clauses on a line, a clause over lines, comments anywhere, the % end marker,
    CRLF — all legal, all VERIFIED."""
    (tmp_path / "ok.cnf").write_bytes(b"c a\np cnf 3 2\r\n1 -2 0 2\nc in between\n 3\n0\n%\n0\n")
    (tmp_path / "ok.out").write_bytes(GOOD_OUT)
    result = puzzlesat("validate", tmp_path / "ok.cnf", tmp_path / "ok.out")
    assert result.code == 0 and result.out.startswith("VERIFIED-SAT")


def test_catalogue_size():
    assert len(BAD_INSTANCES) + len(BAD_OUTPUTS) >= 40

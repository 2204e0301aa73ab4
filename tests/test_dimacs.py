import bz2
import gzip
import hashlib
import lzma

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.cnf import Formula, pad_rows
from generator.dimacs import (
    atomic_write,
    clause_bytes,
    compress,
    decompress,
    dimacs_bytes,
    gbd_hash_of_body,
    header_lines,
    parse_dimacs,
    parse_header,
    read_dimacs,
    write_instance,
)
from generator.errors import UserError


def reference_text(clauses):
    return "".join(" ".join(map(str, c)) + " 0\n" for c in clauses).encode()


clauses_st = st.lists(st.lists(st.integers(-1200, 1200).filter(bool), min_size=1, max_size=6),
                      min_size=0, max_size=40)


@given(clauses_st)
def test_writer_matches_reference_and_reader_inverts(clauses):
    f = Formula()
    f.new_vars("v", 1200)
    if clauses:
        f.add("c", pad_rows(clauses))
    body = clause_bytes(f)
    assert body == reference_text(clauses)
    d = parse_dimacs(dimacs_bytes(f, {"family": "x"}, body))
    assert d.clauses() == clauses
    assert d.num_vars == 1200 and d.num_clauses == len(clauses)
    tokens = " ".join(" ".join(map(str, c + [0])) for c in clauses)
    assert d.gbd_hash == gbd_hash_of_body(body) == hashlib.md5(tokens.encode()).hexdigest()


def test_writer_handles_powers_of_ten():
    f = Formula()
    f.new_vars("v", 100000)
    f.add("c", [[9, 10, -99, 100], [999, -1000, 99999, -100000]])
    assert clause_bytes(f) == b"9 10 -99 100 0\n999 -1000 99999 -100000 0\n"


def test_gbd_example_from_spec():
    d = parse_dimacs(b"c tiny\np cnf 3 2\n1 -2 0\n2 3 0\n")
    assert d.gbd_hash == "5c199826eee734c6484e691f3c129214"


def test_header_round_trip_and_order():
    header = {"seed": 3, "family": "flow", "params": {"b": 1, "a": [1, 2]}, "extra": "x y",
              "puzzlesat-format": 1}
    lines = header_lines(header)
    assert lines == ["c puzzlesat-format: 1", "c family: flow", 'c params: {"a":[1,2],"b":1}',
                     "c seed: 3", "c extra: x y"]
    assert parse_header(lines) == header


@pytest.mark.parametrize("text", [
    b"p cnf 3 2\n1 -2 0 2 3 0\n",                 # two clauses on a line
    b"p cnf 3 2\n1\n-2\n0\n2 3\n0\n",             # clauses across lines
    b"c a\np cnf 3 2\nc b\n1 -2 0\n  c c\n2 3 0\n",  # comments anywhere
    b"p cnf 3 2\n1 -2 0\n2 3 0\n%\n0\n",          # % end marker (SATLIB)
    b"p  cnf  3  2 \r\n1\t-2 0\r\n2 3 0",         # tabs, CRLF, no final newline
])
def test_reader_accepts_legal_layouts(text):
    d = parse_dimacs(text)
    assert d.clauses() == [[1, -2], [2, 3]]


@pytest.mark.parametrize("text, message", [
    (b"1 2 0\n", "no 'p cnf' line"),
    (b"p cnf x 2\n", "malformed 'p cnf' line"),
    (b"p cnf 3 3\n1 -2 0\n2 3 0\n", "declares 3 clauses, found 2"),
    (b"p cnf 2 2\n1 -2 0\n2 3 0\n", "literal 3 is beyond the declared 2"),
    (b"p cnf 3 2\n1 -2 0\n2 3\n", "does not end with 0"),
    (b"p cnf 3 1\n1 x 0\n", "unexpected character 'x'"),
    (b"p cnf 3 1\n1 - 2 0\n", "malformed literal"),
    (b"p cnf 3 1\n1 2-3 0\n", "malformed literal"),
    (b"p cnf 3 1\np cnf 3 1\n1 0\n", "more than one"),
    (b"1 0\np cnf 3 1\n1 0\n", "clauses before"),
    (b"p cnf 3 1\n99999999999999999999 0\n", "too large"),
])
def test_reader_rejects_with_clear_message(text, message):
    with pytest.raises(UserError, match=message):
        parse_dimacs(text, "f.cnf")


@pytest.mark.parametrize("suffix", ["", ".xz", ".gz", ".bz2"])
def test_compressed_round_trip(tmp_path, suffix):
    f = Formula()
    f.new_vars("v", 3)
    f.add("c", [[1, -2], [2, 3]])
    path = tmp_path / f"a.cnf{suffix}"
    data = write_instance(str(path), f, {"family": "demo"})
    assert read_dimacs(path).clauses() == [[1, -2], [2, 3]]
    assert decompress(path.read_bytes()) == data


def test_compression_is_deterministic_and_standard():
    data = b"p cnf 1 1\n1 0\n" * 100
    assert lzma.decompress(compress(data, "xz")) == data
    gz = compress(data, "gz")
    assert gz[4:8] == b"\0\0\0\0"  # mtime 0
    assert gzip.decompress(gz) == data and bz2.decompress(compress(data, "bz2")) == data
    assert compress(data, "xz") == compress(data, "xz")


@pytest.mark.parametrize("kind", ["xz", "gz", "bz2"])
def test_truncated_archive_is_a_clear_error(tmp_path, kind):
    blob = compress(b"p cnf 1 1\n1 0\n" * 1000, kind)
    path = tmp_path / "t.cnf"
    path.write_bytes(blob[: len(blob) // 2])
    with pytest.raises(UserError, match="damaged or truncated"):
        read_dimacs(path)


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    with pytest.raises(UserError, match="cannot write"):
        atomic_write(tmp_path / "missing" / "x.cnf", b"data")
    target = tmp_path / "x.cnf"
    atomic_write(target, b"one")
    atomic_write(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in tmp_path.iterdir()] == ["x.cnf"]


def test_formula_from_dimacs_round_trip():
    text = b"p cnf 5 3\n1 -2 0\n3 0\n-4 5 1 2 0\n"
    d = parse_dimacs(text)
    assert clause_bytes(d.formula()) == b"1 -2 0\n3 0\n-4 5 1 2 0\n"


def test_xz_with_trailing_garbage_is_rejected(tmp_path):
    path = tmp_path / "t.cnf.xz"
    path.write_bytes(compress(b"p cnf 1 1\n1 0\n", "xz") + b"garbage")
    with pytest.raises(UserError, match="trailing data"):
        read_dimacs(path)


def test_concatenated_xz_streams_are_one_file():
    blob = compress(b"p cnf 1 1\n", "xz") + compress(b"1 0\n", "xz")
    assert parse_dimacs(decompress(blob)).clauses() == [[1]]


@pytest.mark.parametrize("text, message", [
    (b"P CNF 3 1\n1 0\n", "malformed 'p cnf' line"),
    (b"p cnf 3000000000 1\n1 0\n", "beyond DIMACS"),
    (b"c params: {oops\np cnf 3 1\n1 0\n", "f.cnf: header line 'c params:'"),
])
def test_more_rejections(text, message):
    with pytest.raises(UserError, match=message):
        parse_dimacs(text, "f.cnf")

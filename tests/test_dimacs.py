import bz2
import gzip
import hashlib
import lzma

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from references import integers_reference, numpy_clause_bytes, pad_rows

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import atomic_file, atomic_write, compress
from puzzlesat.generator.core.header import header_lines, parse_header
from puzzlesat.generator.core.inputs import decompress
from puzzlesat.generator.core.reader import parse_dimacs, read_dimacs
from puzzlesat.generator.core.save import write_instance
from puzzlesat.generator.core.writer import (
    Tuning,
    clause_bytes,
    dimacs_bytes,
    gbd_hash_of_body,
    literal_table,
    stream_clauses,
    text_length,
)


def reference_text(clauses):
    return "".join(" ".join(map(str, c)) + " 0\n" for c in clauses).encode()


clauses_st = st.lists(st.lists(st.integers(-1200, 1200).filter(bool), min_size=1, max_size=6),
                      min_size=0, max_size=40)


@given(clauses=clauses_st)
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


@given(blocks=st.lists(clauses_st.filter(bool), min_size=1, max_size=4))
def test_writers_agree_on_many_blocks(blocks):
    f = Formula()
    f.new_vars("v", 1200)
    for i, block in enumerate(blocks):
        f.add(f"b{i}", pad_rows(block))
    assert clause_bytes(f) == reference_text([c for b in blocks for c in b])


# literals around powers of ten, so that text widths change inside a block (runs break there)
_edge_lit = st.sampled_from([1, 9, 10, 99, 100, 999, 1000, 9999]).flatmap(
    lambda v: st.sampled_from([v, -v]))


@settings(deadline=None)  # numpy set-up per example; timing varies on a shared box
@given(rows=st.lists(st.lists(_edge_lit, min_size=1, max_size=4), min_size=1, max_size=12),
       unit=st.integers(1, 3), repeat=st.integers(1, 30), stage=st.sampled_from([64, 1 << 20]),
       chunk=st.sampled_from([3, 1 << 14]), run_literals=st.sampled_from([0, 1000, 10**9]))
def test_run_writer_matches_reference_writer(rows, unit, repeat, stage, chunk, run_literals):
    """The run writer (stream_clauses, clause_bytes) against the reference writer and the
    plain definition, on 2-D and 3-D (unit) blocks, small staging buffers and small steps,
    with every step formatted as runs (0), packed (10^9), or as the writer chooses."""
    tuning = Tuning(step_words=chunk, stage_bytes=stage, run_literals=run_literals)
    clauses = rows * repeat
    count = len(clauses) // unit * unit
    f = Formula()
    f.new_vars("v", 9999)
    block = pad_rows(clauses[:count])
    if count:
        f.add("units", block.reshape(count // unit, unit, -1))
    f.add("rows", pad_rows(clauses))
    f.add("zero inside", [[1, 0, 2], [3, 4, 0]])  # not clean DIMACS: 0 has no text
    want = numpy_clause_bytes(f.blocks, literal_table(9999))
    assert want.startswith(reference_text(clauses[:count] + clauses))
    assert clause_bytes(f, tuning) == want
    pieces = []
    assert stream_clauses(f, lambda view: pieces.append(bytes(view)), tuning) == len(want)
    assert b"".join(pieces) == want


def test_writer_makes_the_literal_table_once_per_formula(monkeypatch):
    """A flow formula is thousands of small blocks that the reference writer formats: the table of
    every literal's text (O(V)) is made a fixed number of times per formula, not once per
    block."""
    from puzzlesat.generator.core import writer

    made = []
    monkeypatch.setattr(writer, "literal_table", lambda n: made.append(n) or literal_table(n))

    def tables_made(blocks: int) -> int:
        f = Formula()
        f.new_vars("v", 5000)
        for block in range(blocks):  # widths change on every row: the reference writer's
            f.add(f"mixed {block}", [[1 + r % 9, -(1000 + block * 50 + r)] if r % 2 else
                                     [-(1000 + r), 2 + block % 7] for r in range(50)])
        made.clear()
        pieces = []
        writer.stream_clauses(f, lambda view: pieces.append(bytes(view)))
        assert b"".join(pieces) == numpy_clause_bytes(f.blocks, literal_table(5000))
        return len(made)

    assert tables_made(20) == tables_made(2)


def test_writer_packs_texts_longer_than_a_word():
    """From V = 10^6 a literal's text ("-1000000 ") takes two words: every step is packed, on
    2-D and 3-D blocks, with a zero inside a clause too."""
    num_vars = 10**6 + 5
    f = Formula()
    f.new_vars("v", num_vars)
    f.add("c", pad_rows([[1, -num_vars, 999_999], [-1_000_000], [10**6 + 1, -99, 7]]))
    f.add("d", [[[5, -1_000_002], [7, 8]], [[-9, 0], [10**6, 3]]])
    f.add("zero inside", [[1, 0, 2]])
    want = numpy_clause_bytes(f.blocks, literal_table(num_vars))
    assert want.startswith(b"1 -1000005 999999 0\n-1000000 0\n1000001 -99 7 0\n5 -1000002 0\n")
    assert clause_bytes(f) == want


def test_writer_rejects_literal_beyond_num_vars():
    f = Formula()
    f.new_vars("v", 5)
    f.add("bad", [[1, -6]])
    with pytest.raises(ValueError, match="clause block 'bad' has a literal beyond 5"):
        clause_bytes(f)


@settings(deadline=None, max_examples=30)  # a fork per example
@given(blocks=st.lists(clauses_st.filter(bool), min_size=1, max_size=4),
       num_vars=st.just(1200), share=st.floats(0, 1))
@example(blocks=[[[1, -2], [3]]], num_vars=10**6 + 3, share=0.5)  # texts of two words
def test_two_process_writer_writes_the_same_bytes(tmp_path_factory, blocks, num_vars, share):
    """The child computes where its part starts from literal lengths (text_length) and writes
    there: the file must be byte for byte the one-process text, wherever the cut falls, for
    one-word and two-word literal texts, with a zero inside a clause and 3-D blocks."""
    from puzzlesat.generator.core import parallel

    f = Formula()
    f.new_vars("v", num_vars)
    for i, block in enumerate(blocks):
        f.add(f"b{i}", pad_rows([[lit * (num_vars // 1200) for lit in c] for c in block]))
    f.add("zero inside", [[1, 0, 2]])
    f.add("units", [[[5, -num_vars], [7, 8]], [[-9, 0], [10, 3]]])
    want = clause_bytes(f)
    assert text_length(f.blocks, num_vars) == len(want)
    path = tmp_path_factory.mktemp("two") / "f.cnf"
    with atomic_file(path) as out:
        out.write(b"p cnf\n")
        assert parallel.write_clauses(f, out, processes=2, first_share=share) == len(want)
        assert out.position == len(want) + 6
    assert path.read_bytes() == b"p cnf\n" + want


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
    (b"P CNF 3 1\n1 0\n", "malformed 'p cnf' line"),
    (b"p cnf 3000000000 1\n1 0\n", "beyond DIMACS"),
    (b"c params: {oops\np cnf 3 1\n1 0\n", "f.cnf: header line 'c params:'"),
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
    size = write_instance(str(path), f, {"family": "demo"})
    assert read_dimacs(path).clauses() == [[1, -2], [2, 3]]
    data = dimacs_bytes(f, {"family": "demo"})
    assert decompress(path.read_bytes()) == data and size == len(data)


def test_compression_is_deterministic_and_standard():
    data = b"p cnf 1 1\n1 0\n" * 100
    assert lzma.decompress(compress(data, "xz")) == data
    gz = compress(data, "gz")
    assert gz[4:8] == b"\0\0\0\0"  # mtime 0
    assert gzip.decompress(gz) == data and bz2.decompress(compress(data, "bz2")) == data
    # the bytes of `xz -6 -T1` (pinned: a new lzma must not change published files)
    assert hashlib.sha256(compress(data, "xz")).hexdigest() == (
        "160371489026c2a5fe02150d91efa5946b9496d55b701994177abbc09f273c9c")


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


def test_file_writer_survives_short_writes_and_starts_writeback_in_order(tmp_path, monkeypatch):
    """pwrite may write less than asked; the disk is told to start on every 8 MB, each range
    once, in order."""
    import os

    from puzzlesat.generator.core import files

    real_pwrite = os.pwrite
    monkeypatch.setattr(files.os, "pwrite",
                        lambda fd, data, offset: real_pwrite(fd, data[:3 << 20], offset))
    started = []
    monkeypatch.setattr(files, "_start_writeback",
                        lambda fd, offset, nbytes: started.append((offset, nbytes)))
    data = bytes(range(256)) * (81 << 10)  # 20.25 MB
    atomic_write(tmp_path / "x.bin", data)
    assert (tmp_path / "x.bin").read_bytes() == data
    assert started == [(0, len(data))]  # one write() of it all, then one range
    started.clear()
    with files.atomic_file(tmp_path / "y.bin") as out:
        for at in range(0, len(data), 1 << 20):
            out.write(data[at : at + (1 << 20)])
    assert (tmp_path / "y.bin").read_bytes() == data
    assert started == [(0, 8 << 20), (8 << 20, 8 << 20)]


def test_files_are_written_where_there_is_no_pwrite(tmp_path, monkeypatch):
    import os

    from puzzlesat.generator.core import files

    monkeypatch.delattr(files.os, "pwrite")
    f = Formula()
    f.new_vars("v", 3)
    f.add("c", [[1, -2], [2, 3]])
    write_instance(tmp_path / "x.cnf", f, {"family": "demo"})
    assert (tmp_path / "x.cnf").read_bytes() == dimacs_bytes(f, {"family": "demo"})
    assert not hasattr(os, "pwrite")


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


# -- the vectorised literal reader against its reference ----------------------------------------
_token = st.one_of(st.integers(-99_999_999, 99_999_999).map(str),
                   st.sampled_from(["-", "--1", "1-", "-0", "-05", "007", "0", "123456789", "-",
                                    "0" * 70 + "1"]),  # longer than a step's cut search
                   # near and past the int32 and int64 limits (numpy saturates past int64)
                   st.integers(-(2**31) - 2, -(2**31) + 2).map(str),
                   st.integers(2**31 - 3, 2**31 + 1).map(str),
                   st.sampled_from([-(2**63), -(2**63) - 1, 2**63 - 1, 2**63, 2**64 - 1, 2**64,
                                    -(10**30)]).map(str),
                   st.integers(-(10**40), 10**40).map(str),
                   st.integers(0, 2**31 + 5).map(lambda v: "0" * 12 + str(v)))
_space = st.sampled_from([" ", "  ", "\n", "\t", "\r\n", " \n "])


@settings(deadline=None)
@given(tokens=st.lists(st.tuples(_space, _token), max_size=60), lead=st.sampled_from(["", " ", "\n"]),
       chunk=st.sampled_from([16, 64, 1 << 15]))
def test_literal_reader_matches_reference(tokens, lead, chunk):
    """parse_literals (SWAR words, in steps of any size) and parse_integers (numpy's reader, used
    for long tokens and for models) accept and reject exactly what the plain-Python
    definition does, with the same values (-2^63 included: never a clause end)."""
    from puzzlesat.generator.core.integers import minus_signs_ok, parse_integers
    from puzzlesat.generator.core.reader import parse_literals

    text = (lead + "".join(space + token for space, token in tokens)).encode()

    def numpy_reader():
        if b"-" in text and not minus_signs_ok(text):
            raise UserError("x: malformed literal (a '-' must start a number 1-9...)")
        return parse_integers(text, "x").tolist()

    try:
        want = integers_reference(text, "x")
    except UserError as exc:
        for reader in (numpy_reader, lambda: parse_literals(memoryview(text), "x", chunk)):
            with pytest.raises(UserError) as got:
                reader()
            assert str(got.value) == str(exc)
        return
    assert numpy_reader() == want
    assert parse_literals(memoryview(text), "x", chunk).tolist() == want


def test_literal_minus_2_pow_63_in_a_cnf_is_refused():
    """``-9223372036854775808`` is a literal too large for DIMACS, never 0 (a clause end): ``p cnf
    2 2`` with one such clause is refused (the other limits: the test above)."""
    with pytest.raises(UserError, match=r"literal too large for DIMACS"):
        parse_dimacs(b"p cnf 2 2\n1 -9223372036854775808 2 0\n")


@pytest.mark.parametrize("text", [
    b"p cnf 3 2\n1 -2 0\n2 3 0\n", b"c a\np cnf 3 2\n1 -2 0\nc b\n2 3 0\n",
    b"p cnf 3 2\n1 -2 0\n2 3 0\n%\n0\n", b"p cnf 3 1\n1 x 0\n", b"p cnf 3 1\n1 --2 0\n", b"",
    b"p cnf 3 1\n1 2 0\np cnf 3 1\n",
])
def test_mapped_file_reads_like_its_bytes(tmp_path, text):
    """read_dimacs maps a plain file and parses it in place: same result, same error."""
    path = tmp_path / "f.cnf"
    path.write_bytes(text)
    try:
        want = parse_dimacs(text, str(path))
    except UserError as exc:
        with pytest.raises(UserError) as got:
            read_dimacs(path)
        assert str(got.value) == str(exc)
        return
    got = read_dimacs(path)
    assert (got.header, got.num_vars, got.comments) == (want.header, want.num_vars, want.comments)
    assert got.literals.tolist() == want.literals.tolist()

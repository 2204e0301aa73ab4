"""Block-parallel xz (``xz-mt``): the same bytes for any number of threads, the bytes of
``xz -6 -T2 --block-size=N`` where that tool is installed, read back by every reader, and the
compression name as generate (every track) and a suite spec take it, while ``.xz`` keeps
meaning one stream.
"""

from __future__ import annotations

import hashlib
import lzma
import shutil
import subprocess
import sys

import pytest
from conftest import assert_one_line_error

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import compress, compression_of, output_compression
from puzzlesat.generator.core.inputs import decompress
from puzzlesat.generator.core.xz import BLOCK_SIZE, compress_blocks
from puzzlesat.generator.suite import publish_suite, verify_suite
from puzzlesat.generator.tracks import get_track

XZ = shutil.which("xz")
needs_xz = pytest.mark.skipif(XZ is None, reason="no xz binary on PATH")
#: a small block size for tests of many blocks (the format allows any; xz takes it too)
SMALL = 1 << 16


def dimacs(size: int) -> bytes:
    """``size`` bytes of clause lines that differ from line to line (every block differs)."""
    lines = b"".join(b"%d -%d %d 0\n" % (i, i + 1, 3 * i + 2) for i in range(size // 10 + 1))
    return lines[:size]


def repetitive(size: int) -> bytes:
    """``size`` bytes of one clause line over and over: compressed in a fraction of a second
    even at full blocks of 8 MiB."""
    return (b"1 -2 3 0\n" * (size // 9 + 1))[:size]


def xz_tool(data: bytes, block_size: int) -> bytes:
    """What ``xz -6 -T2 --block-size=N`` makes of ``data``."""
    assert XZ is not None
    return subprocess.run([XZ, "-6", "-T2", f"--block-size={block_size}", "-c"], input=data,
                          capture_output=True, check=True).stdout


def test_the_bytes_are_the_same_for_any_thread_count():
    data = dimacs(10 * SMALL + 123)  # 11 blocks: more than any thread count below
    one = compress_blocks(data, 1, SMALL)
    for threads in (2, 3, 8, 100):
        assert compress_blocks(data, threads, SMALL) == one
    assert compress(data, "xz-mt", 2) == compress(data, "xz-mt") == compress_blocks(data)


def test_it_reads_back_through_lzma_and_the_bounded_reader():
    data = dimacs(5 * SMALL + 7)
    packed = compress_blocks(data, 2, SMALL)
    assert lzma.decompress(packed) == data == decompress(packed)
    assert lzma.decompress(compress_blocks(memoryview(bytearray(data)), 2, SMALL)) == data


@pytest.mark.parametrize("size", [0, 1, SMALL - 1, SMALL, SMALL + 1, 3 * SMALL])
def test_block_edges_read_back(size):
    data = dimacs(size)
    packed = compress_blocks(data, 2, SMALL)
    assert lzma.decompress(packed) == data
    # the index (before the 12-byte footer) counts the blocks: empty text has none
    assert _index_count(packed) == -(-size // SMALL)


def _index_count(packed: bytes) -> int:
    """The number of blocks the stream's index records (one byte: the tests' counts are
    small)."""
    index_size = (int.from_bytes(packed[-8:-4], "little") + 1) * 4
    index = packed[len(packed) - 12 - index_size:]
    assert index[0] == 0 and index[1] < 0x80
    return index[1]


def test_empty_text_is_the_empty_stream_xz_writes():
    assert compress_blocks(b"") == lzma.compress(b"") == compress(b"", "xz")
    assert lzma.decompress(compress_blocks(b"", 4)) == b""


@needs_xz
@pytest.mark.parametrize("block_size, size", [
    (SMALL, 7 * SMALL + 5),  # sizes of 3 bytes: 16-byte block headers
    (100, 1000),  # sizes of 1 or 2 bytes: 12-byte headers
    ((1 << 21) - 100, 2 * ((1 << 21) - 100) + 1),  # a compressed size of up to 4 bytes
])
def test_the_bytes_are_xz_multithreaded_output(block_size, size):
    data = dimacs(size)
    assert compress_blocks(data, 2, block_size) == xz_tool(data, block_size)


@needs_xz
@pytest.mark.parametrize("size", [0, 10, BLOCK_SIZE - 1, BLOCK_SIZE, BLOCK_SIZE + 1])
def test_full_blocks_are_xz_multithreaded_output(size):
    data = repetitive(size)
    packed = compress(data, "xz-mt", 2)
    assert packed == xz_tool(data, BLOCK_SIZE)
    assert _index_count(packed) == -(-size // BLOCK_SIZE)


@needs_xz
def test_xz_tests_and_decompresses_it(tmp_path):
    data = dimacs(4 * SMALL + 1)
    path = tmp_path / "x.cnf.xz"
    path.write_bytes(compress_blocks(data, 2, SMALL))
    subprocess.run([XZ, "-t", str(path)], check=True)
    assert subprocess.run([XZ, "-dc", str(path)], capture_output=True,
                          check=True).stdout == data


def test_gbdc_hashes_it_as_the_plain_text(tmp_path):
    """gbdc's GBD hash of the block-parallel file is the plain file's (read in a child:
    gbdc crashes in a process that has loaded python-sat's solvers)."""
    import importlib.util

    if importlib.util.find_spec("gbdc") is None:
        pytest.skip("gbdc is not installed")
    text = b"c a comment\np cnf 3 10000\n" + b"1 -2 0\n2 3 0\n" * 5000  # 17 blocks of 4 KiB
    plain, packed = tmp_path / "x.cnf", tmp_path / "x.cnf.xz"
    plain.write_bytes(text)
    packed.write_bytes(compress_blocks(text, 2, 1 << 12))
    hashes = subprocess.run([sys.executable, "-c", "import gbdc, sys; print(*(gbdc.gbdhash(p) "
                             "for p in sys.argv[1:]))", str(plain), str(packed)],
                            capture_output=True, text=True, check=True).stdout.split()
    assert len(hashes) == 2 and hashes[0] == hashes[1]


def test_the_xz_extension_still_means_one_stream():
    data = dimacs(3 * SMALL)
    assert compression_of("a.cnf.xz") == output_compression("a.cnf.xz") == "xz"
    assert compress(data, "xz") == lzma.compress(data, preset=6)
    assert output_compression("a.cnf.xz", "xz-mt") == "xz-mt"
    assert output_compression("a.cnf", "none") is None
    assert output_compression("-") is None
    assert output_compression("-", "none") is None


@pytest.mark.parametrize("path, name, message", [
    ("a.cnf", "xz-mt", "the output a.cnf must end in .xz"),
    ("a.cnf.gz", "xz-mt", "the output a.cnf.gz must end in .xz"),
    ("a.cnf.xz", "none", "must be plain"),
    ("-", "xz-mt", "-o - writes plain text"),
    ("a.cnf.xz", "zip", "is not one of xz, xz-mt, gz, bz2, none"),
])
def test_a_compression_the_extension_contradicts_is_refused(path, name, message):
    with pytest.raises(UserError, match=message):
        output_compression(path, name)


EM = ("generate", "edge-matching", "--rows", "6", "--cols", "6", "--border-colors", "3",
      "--center-colors", "4", "--seed", "2", "--encoding", "all")
#: one small instance of each track as generate asks for it: (track, arguments, format)
TRACKS = [
    ("sat", EM, "cnf"),
    ("mc", ("generate", "sliding", "--rows", "2", "--cols", "3", "--start", "1,2,0,3,4,5",
            "--budget", "4", "--count"), "cnf"),
    ("maxsat", ("generate", "edge-matching", "--rows", "4", "--cols", "4", "--border-colors",
                "2", "--center-colors", "2", "--seed", "1", "--format", "wcnf"), "wcnf"),
    ("pb", ("generate", "flow", "--width", "5", "--height", "6", "--format", "opb"), "opb"),
]


def test_generate_writes_the_same_bytes_for_any_jobs(puzzlesat, tmp_path):
    outputs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"j{jobs}.cnf.xz"
        result = puzzlesat(*EM, "--compression", "xz-mt", "-j", jobs, "-o", out)
        assert result.code == 0, result.err
        outputs.append(out.read_bytes())
    assert puzzlesat(*EM, "-o", tmp_path / "plain.cnf").code == 0
    text = (tmp_path / "plain.cnf").read_bytes()
    assert outputs[0] == outputs[1] == compress_blocks(text)
    assert puzzlesat(*EM, "-o", tmp_path / "one.cnf.xz").code == 0
    assert (tmp_path / "one.cnf.xz").read_bytes() == compress(text, "xz")


@pytest.mark.parametrize("track, args, fmt", TRACKS, ids=[t[0] for t in TRACKS])
def test_every_track_writes_it_with_its_threads(puzzlesat, tmp_path, monkeypatch, track, args,
                                                fmt):
    """Each track's writer gets the name and the -j threads: the file is the blocks of the
    plain file's text, its reader reads it back, and .xz alone stays one stream."""
    from puzzlesat.generator.core import files

    asked = []
    monkeypatch.setattr(files, "compress_blocks",
                        lambda data, threads: asked.append(threads) or compress_blocks(data))
    packed, plain, one = (tmp_path / f"mt.{fmt}.xz", tmp_path / f"plain.{fmt}",
                          tmp_path / f"one.{fmt}.xz")
    result = puzzlesat(*args, "--compression", "xz-mt", "-j", "2", "-o", packed)
    assert result.code == 0, result.err
    assert asked == [2]
    assert puzzlesat(*args, "-o", plain).code == 0
    assert puzzlesat(*args, "-o", one).code == 0
    text = plain.read_bytes()
    assert packed.read_bytes() == compress_blocks(text) != one.read_bytes()
    assert one.read_bytes() == compress(text, "xz")
    assert b"".join(get_track(track).text_pieces(packed)) == text


def test_generate_hands_jobs_to_the_blocks_capped_as_everywhere(puzzlesat, tmp_path,
                                                                monkeypatch):
    from puzzlesat.generator.core import files
    from puzzlesat.generator.core.executors import cap_jobs

    asked = []
    monkeypatch.setattr(files, "compress_blocks",
                        lambda data, threads: asked.append(threads) or compress_blocks(data))
    for jobs in ("3", "100000"):
        assert puzzlesat(*EM, "--compression", "xz-mt", "-j", jobs, "-o",
                         tmp_path / "x.cnf.xz").code == 0
    assert asked == [3, cap_jobs(100000)]


@pytest.mark.parametrize("track, args, fmt", TRACKS, ids=[t[0] for t in TRACKS])
def test_generate_refuses_a_contradicting_extension_before_building(puzzlesat, tmp_path,
                                                                    monkeypatch, track, args,
                                                                    fmt):
    from puzzlesat.generator import instance

    monkeypatch.setattr(instance, "build", lambda *a, **k: pytest.fail("built"))
    result = puzzlesat(*args, "--compression", "xz-mt", "-o", tmp_path / f"x.{fmt}")
    assert_one_line_error(result, "compression xz-mt", "must end in .xz")
    result = puzzlesat(*args, "--compression", "gz", "-o", "-")
    assert_one_line_error(result, "compression gz needs a file")
    assert not list(tmp_path.iterdir())


SPEC = b"""
[suite]
name = "mt"
author = "T. Tester"
version = "1"
seed = 3
compression = "xz-mt"

[[group]]
family = "flow"
params = { width = 5, height = 5 }

[[group]]
family = "edge-matching"
format = "wcnf"
params = { rows = 4, cols = 4, border_colors = 2, center_colors = 2 }

[[group]]
family = "flow"
format = "opb"
params = { width = 5, height = 6 }
"""


def test_a_suite_records_it_and_verify_regenerates_it(tmp_path):
    (tmp_path / "mt.toml").write_bytes(SPEC)
    published = publish_suite(tmp_path / "mt.toml", tmp_path / "suite")
    assert published.spec.compression == "xz-mt"
    assert [row["file"].rsplit(".", 2)[1] for row in published.rows] == ["cnf", "wcnf", "opb"]
    for row in published.rows:
        data = (tmp_path / "suite" / row["file"]).read_bytes()
        assert row["sha256"] == hashlib.sha256(data).hexdigest()
        assert data == compress_blocks(lzma.decompress(data))
    assert b'compression = "xz-mt"' in (tmp_path / "suite" / "suite.toml").read_bytes()
    assert not verify_suite(tmp_path / "suite").differences

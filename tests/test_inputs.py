"""The streaming inflater and the bounded reader (generator/core/inputs.py) against the
standard library's one-shot decompressors."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlesat.generator.core import inputs
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.inputs import InputTooLong, decompress, read_stream

COMPRESS = {"xz": lzma.compress, "gz": lambda d: gzip.compress(d, mtime=0), "bz2": bz2.compress}
ONE_SHOT = {"xz": lzma.decompress, "gz": gzip.decompress, "bz2": bz2.decompress}


@settings(deadline=None, max_examples=60)
@given(kind=st.sampled_from(sorted(COMPRESS)),
       streams=st.lists(st.binary(max_size=3000) | st.just(b"\0" * 200_000), min_size=1,
                        max_size=3),
       piece=st.sampled_from([1, 7, 4096, 1 << 16]))
def test_streaming_inflater_gives_what_the_one_shot_decompressor_gives(kind, streams, piece):
    """Streams concatenated, read a few bytes at a time, output capped per step."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(inputs, "_READ_PIECE", piece)
        patch.setattr(inputs, "_INFLATE_PIECE", 1000)
        _compare(kind, streams)


def _compare(kind: str, streams: list[bytes]) -> None:
    blob = b"".join(COMPRESS[kind](s) for s in streams)
    want = ONE_SHOT[kind](blob)
    assert decompress(blob) == want
    assert read_stream(io.BytesIO(blob), "x", len(want)) == want
    if want:
        with pytest.raises(InputTooLong, match="longer than"):
            read_stream(io.BytesIO(blob), "x", len(want) - 1)


@pytest.mark.parametrize("kind", sorted(COMPRESS))
def test_damage_is_a_user_error(kind):
    blob = COMPRESS[kind](b"p cnf 1 1\n1 0\n" * 100)
    for bad in (blob[:-5], blob + b"garbage", blob[:20] + b"\xff" * 20 + blob[40:]):
        with pytest.raises(UserError, match=f"damaged or truncated {kind} archive"):
            decompress(bad)
    if kind == "xz":  # zero padding after the last stream is allowed
        assert decompress(blob + b"\0" * 8) == lzma.decompress(blob)

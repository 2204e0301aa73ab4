"""Block-parallel xz (the compression named ``xz-mt``): the text cut into blocks of
:data:`BLOCK_SIZE` bytes, each compressed on its own by lzma preset 6, in as many threads as
asked for, and joined into one .xz stream. The bytes depend only on the text: the same for
any number of threads on any machine, and the same as ``xz -6 -T2 --block-size=8MiB``
(XZ Utils 5.4) makes of the text with two threads or more.

Every reader of .xz reads it (``xz -d``, Python's ``lzma``, gbdc, liblzma's readers); xz
5.4 and later also decompresses its blocks in parallel. Each thread holds one preset-6
encoder, about 90 MB.

The .xz format (tukaani.org/xz/xz-file-format.txt) is a stream header, blocks, an index and
a stream footer. Each block here is taken from the one-block stream liblzma's single-threaded
encoder makes of that block's text (``lzma.compress``, which lets other threads run while it
works), with the header xz's multi-threaded encoder writes: both sizes stated, in fields as
long as a full block's sizes need.

>>> import lzma
>>> data = compress_blocks(b"p cnf 1 1\\n1 0\\n")
>>> lzma.decompress(data)
b'p cnf 1 1\\n1 0\\n'
>>> data == compress_blocks(b"p cnf 1 1\\n1 0\\n", threads=2)
True
"""

from __future__ import annotations

import lzma
import zlib
from concurrent.futures import ThreadPoolExecutor

#: the uncompressed size of every block but the last. Part of the format named ``xz-mt``:
#: published suites regenerate byte for byte only while it stays (another size would be
#: another compression name). 8 MiB is the dictionary of preset 6, so a block loses only the
#: matches across its start; measured on em-16-5-17 ``all`` (110 MB): 14 blocks, 0.15 %
#: larger than one stream (4 MiB blocks: 3 %), and two threads share 14 blocks evenly where
#: xz's default for preset 6, 24 MiB, makes five
BLOCK_SIZE = 8 << 20

_MAGIC = b"\xfd7zXZ\x00"
_FOOTER_MAGIC = b"YZ"
#: stream flags: check type 0x04, CRC64 of each block's text (xz's default, and what the
#: compression named ``xz`` writes)
_FLAGS = b"\x00\x04"
_STREAM_HEADER_SIZE = _FOOTER_SIZE = 12
_CHECK_SIZE = 8
#: block flags: one filter (0 = one less than their number), compressed and uncompressed
#: sizes present
_BLOCK_FLAGS = 0x40 | 0x80
#: LZMA2 (id 0x21), one property byte: the dictionary size of preset 6, 8 MiB = 2^23,
#: coded as 2 * (23 - 12)
_LZMA2_FILTER_FLAGS = bytes([0x21, 1, 2 * (23 - 12)])


def compress_blocks(data: bytes | memoryview, threads: int = 1,
                    block_size: int = BLOCK_SIZE) -> bytes:
    """``data`` as one .xz stream of independently compressed blocks (module docstring),
    compressed in up to ``threads`` threads; ``block_size`` other than :data:`BLOCK_SIZE`
    is for tests."""
    view = memoryview(data).cast("B")
    pieces = [view[start:start + block_size] for start in range(0, len(view), block_size)]
    if threads > 1 and len(pieces) > 1:
        pool = ThreadPoolExecutor(min(threads, len(pieces)))
        try:
            blocks = list(pool.map(_lzma2_block, pieces))
        finally:  # on Ctrl-C, only the blocks being compressed finish, not all those queued
            pool.shutdown(wait=True, cancel_futures=True)
    else:
        blocks = [_lzma2_block(piece) for piece in pieces]
    header_size = _block_header_size(block_size)
    out = [_MAGIC, _FLAGS, _crc32(_FLAGS)]
    records = []
    for (lzma2, check), piece in zip(blocks, pieces):
        out += [_block_header(header_size, len(lzma2), len(piece)), lzma2,
                bytes(-len(lzma2) % 4), check]
        records.append(_vli(header_size + len(lzma2) + _CHECK_SIZE) + _vli(len(piece)))
    index = _padded(b"\x00" + _vli(len(blocks)) + b"".join(records))
    index += _crc32(index)
    backward = ((len(index) // 4) - 1).to_bytes(4, "little") + _FLAGS
    out += [index, _crc32(backward), backward, _FOOTER_MAGIC]
    return b"".join(out)


def _lzma2_block(piece: memoryview) -> tuple[bytes, bytes]:
    """The LZMA2 data of ``piece`` and its CRC64, taken from the one-block stream
    ``lzma.compress`` makes of it: the index (before the footer, which says how long it is)
    gives the block's size, the block header its own, and the check ends the block."""
    stream = lzma.compress(piece, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=6)
    index_size = (int.from_bytes(stream[-8:-4], "little") + 1) * 4
    index = len(stream) - _FOOTER_SIZE - index_size
    unpadded, _ = _read_vli(stream, index + 2)  # after the index indicator and the count, 1
    header = (stream[_STREAM_HEADER_SIZE] + 1) * 4
    start = _STREAM_HEADER_SIZE + header
    return stream[start:start + unpadded - header - _CHECK_SIZE], stream[index - _CHECK_SIZE:index]


def _block_header_size(block_size: int) -> int:
    """The length of every block header: as xz's multi-threaded encoder reserves it, room for
    the sizes of a full block, then padding to 4. (It reserves the compressed size at its
    largest, which may take one byte more than the uncompressed size; with 3 bytes of filter
    flags the padded length is the same either way.)"""
    return len(_padded(bytes(2 + 2 * len(_vli(block_size)) + len(_LZMA2_FILTER_FLAGS)))) + 4


def _block_header(size: int, compressed: int, uncompressed: int) -> bytes:
    """A block header of ``size`` bytes stating both sizes, zero-padded, with its CRC32."""
    fields = bytes([_BLOCK_FLAGS]) + _vli(compressed) + _vli(uncompressed) + _LZMA2_FILTER_FLAGS
    head = bytes([size // 4 - 1]) + fields
    head += bytes(size - 4 - len(head))
    return head + _crc32(head)


def _vli(value: int) -> bytes:
    """``value`` as the format's variable-length integer: 7 bits a byte, low bits first, the
    top bit set on every byte but the last."""
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _read_vli(data: bytes, at: int) -> tuple[int, int]:
    """The variable-length integer at ``data[at:]`` and the position after it."""
    value = shift = 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        shift += 7
        if byte < 0x80:
            return value, at


def _padded(data: bytes) -> bytes:
    """``data`` with zero bytes up to a multiple of 4."""
    return data + bytes(-len(data) % 4)


def _crc32(data: bytes) -> bytes:
    """CRC32 of ``data``, little-endian, as every header, the index and the footer hold it."""
    return zlib.crc32(data).to_bytes(4, "little")

"""Files a user names as inputs: opened only when they are regular files (or ``-``, stdin),
read in pieces, decompressed by their magic bytes as a stream, and never read past a bound
that the caller derives from what the file may hold.

A FIFO, a device (``/dev/zero``), a folder or a socket named as an input would block, never
end, or fail deep inside a reader; :func:`open_input` refuses it with one line. A compressed
input is inflated with a cap on each step's output, so a small archive cannot expand past the
bound before it is noticed (a 229 KB xz solver output once expanded to several GB), and what
is kept is only what was actually read, never what the file's first lines promise.

>>> import lzma
>>> decompress(lzma.compress(b"p cnf 1 1\\n1 0\\n"))
b'p cnf 1 1\\n1 0\\n'
"""

from __future__ import annotations

import bz2
import contextlib
import lzma
import os
import stat
import sys
import zlib
from collections.abc import Callable, Generator, Iterator
from typing import Any, BinaryIO

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.paths import os_failure

#: magic bytes -> compression (detected from the bytes, never from the name)
MAGIC = ((b"\xfd7zXZ\x00", "xz"), (b"\x1f\x8b", "gz"), (b"BZh", "bz2"))
#: the longest magic: bytes read before the compression is decided
_MAGIC_BYTES = max(len(magic) for magic, _ in MAGIC)
#: bytes read from the file at a time, and the most one inflating step may give
_READ_PIECE = 1 << 16
_INFLATE_PIECE = 1 << 20
#: the bound of small text inputs: specs, piece files, levels, manifests
SMALL_INPUT = 64 << 20

#: what :func:`read_input`'s ``bound`` returns once it can tell: (limit, what may hold it)
Bound = Callable[[bytes], "tuple[int, str] | None"]


class InputTooLong(UserError):
    """An input longer than anything of its kind can be (a bomb, a device, a lie)."""


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def special_kind(mode: int) -> str:
    """What a file that is not a regular one is ("a FIFO", "a folder", ...)."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


@contextlib.contextmanager
def open_input(path: str | os.PathLike, what: str = "input",
               follow_symlinks: bool = True) -> Iterator[BinaryIO]:
    """``path`` open for reading in binary if it is a regular file (``-``: stdin), else a
    UserError naming what it is. Opened without blocking, so a FIFO with no writer is refused,
    not waited on; symlinks are followed (the file they name must be regular) unless
    ``follow_symlinks`` is False (a file a suite folder holds is never read through one)."""
    if str(path) == "-":
        yield sys.stdin.buffer
        return
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise os_failure(exc, f"read {what} {path}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UserError(f"{what} {path} is {special_kind(mode)}, not a regular file")
        os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle


def read_input(path: str | os.PathLike, limit: int, what: str = "input",
               bound: Bound | None = None) -> bytes:
    """The bytes of the regular file ``path`` (``-``: stdin), decompressed if its magic bytes
    say xz, gzip or bzip2, or :class:`InputTooLong` as soon as they pass ``limit`` bytes.
    ``bound``, when given, sees each decompressed piece in order until it returns a tighter
    ``(limit, what may hold it)`` (an instance's p line, say)."""
    with open_input(path, what) as handle:
        return read_stream(handle, str(path), limit, what, bound)


def read_stream(handle: BinaryIO, name: str, limit: int, what: str = "input",
                bound: Bound | None = None) -> bytes:
    """:func:`read_input` on an open binary file."""
    return b"".join(bounded_pieces(handle, name, limit, what, bound))


def bounded_pieces(handle: BinaryIO, name: str, limit: int, what: str = "input",
                   bound: Bound | None = None) -> Generator[bytes, None, None]:
    """The pieces of :func:`input_pieces`, :class:`InputTooLong` as soon as they pass
    ``limit`` bytes (the most ``what`` can hold); ``bound``, when given, sees each piece in
    order until it returns a tighter ``(limit, what may hold it)``."""
    size = 0
    with contextlib.closing(input_pieces(handle, name)) as pieces:
        for piece in pieces:
            size += len(piece)
            if bound is not None:
                tighter = bound(piece)
                if tighter is not None:
                    (limit, what), bound = tighter, None
            if size > limit:
                raise InputTooLong(f"{name}: longer than {limit:,} bytes, the most {what} can "
                                   f"hold")
            yield piece


def line_chunks(handle: BinaryIO, name: str, limit: int, what: str = "input",
                size: int = 1 << 20) -> Iterator[bytes]:
    """The text of an open binary file (decompressed as :func:`input_pieces` does) in chunks
    of about ``size`` bytes, each ending with a line's newline (the last one where the text
    ends), so a reader parses one chunk at a time and keeps only what it parsed;
    :class:`InputTooLong` once they pass ``limit`` bytes (the most ``what`` can hold)."""
    held = b""
    with contextlib.closing(bounded_pieces(handle, name, limit, what)) as pieces:
        for piece in pieces:
            held += piece
            if len(held) >= size:
                cut = held.rfind(b"\n") + 1
                if cut:
                    yield held[:cut]
                    held = held[cut:]
    if held:
        yield held


def input_pieces(handle: BinaryIO, name: str) -> Generator[bytes, None, None]:
    """The text of an open binary file in pieces of at most 1 MB, decompressed as it is read
    when its magic bytes say xz, gzip or bzip2 (for a reader that streams: it holds one
    piece at a time and stops where it likes)."""
    head = b""
    while len(head) < _MAGIC_BYTES:  # a pipe may give fewer bytes than asked
        more = handle.read(_READ_PIECE)
        if not more:
            break
        head += more
    kind = next((kind for magic, kind in MAGIC if head.startswith(magic)), None)
    raw = _chunks(head, handle)
    yield from raw if kind is None else _inflate(raw, kind, name)


def _chunks(head: bytes, handle: BinaryIO) -> Iterator[bytes]:
    if head:
        yield head
    while chunk := handle.read(_READ_PIECE):
        yield chunk


def decompress(raw: bytes, name: str = "input") -> bytes:
    """Decompress by magic bytes (not by name): xz, gzip, bzip2, or plain. One or more
    streams of the same kind and nothing after them (zero padding after xz)."""
    kind = next((kind for magic, kind in MAGIC if raw.startswith(magic)), None)
    if kind is None:
        return raw
    return b"".join(_inflate(iter([raw]), kind, name))


class _Stream:
    """One compressed stream behind one face: lzma's and bz2's decompressors as they are,
    zlib's (gzip) with its unconsumed input kept for the next call."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        # three decompressors with no common type in the stubs (zlib's has unconsumed_tail)
        self.decoder: Any
        if kind == "xz":
            self.decoder = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
        elif kind == "bz2":
            self.decoder = bz2.BZ2Decompressor()
        else:
            self.decoder = zlib.decompressobj(wbits=31)  # 31: a gzip header and trailer
        self.full = False  # the last call stopped at its output cap (zlib)

    def decompress(self, data: bytes, cap: int) -> bytes:
        if self.kind != "gz":
            return self.decoder.decompress(data, cap)
        out = self.decoder.decompress(self.decoder.unconsumed_tail + data, cap)
        self.full = len(out) == cap
        return out

    @property
    def needs_input(self) -> bool:
        if self.kind != "gz":
            return self.decoder.needs_input
        return not self.decoder.unconsumed_tail and not self.full

    @property
    def eof(self) -> bool:
        return self.decoder.eof

    @property
    def unused_data(self) -> bytes:
        return self.decoder.unused_data


def _inflate(chunks: Iterator[bytes], kind: str, name: str) -> Iterator[bytes]:
    """The decompressed text of ``chunks`` in pieces of at most :data:`_INFLATE_PIECE`
    bytes; a damaged, truncated or trailing-garbage archive is a UserError."""
    try:
        yield from _inflate_streams(chunks, kind)
    except (lzma.LZMAError, zlib.error, OSError, EOFError, ValueError) as exc:
        raise UserError(f"{name}: damaged or truncated {kind} archive ({exc})") from None


def _inflate_streams(chunks: Iterator[bytes], kind: str) -> Iterator[bytes]:
    magic = next(m for m, k in MAGIC if k == kind)
    stream, data = _Stream(kind), b""
    while True:
        if stream.needs_input and not data:
            data = next(chunks, b"")
            if not data:
                raise EOFError("the stream ends early")
        piece = stream.decompress(data, _INFLATE_PIECE)
        data = b""
        if piece:
            yield piece
        if not stream.eof:
            continue
        rest = stream.unused_data
        while len(rest) < len(magic) and (chunk := next(chunks, b"")):
            rest += chunk
        if rest.startswith(magic):  # another stream (concatenated archives)
            stream, data = _Stream(kind), rest
            continue
        while kind == "xz" and not rest.strip(b"\0"):  # xz allows zero padding at the end
            more = next(chunks, None)
            if more is None:
                return
            rest = more
        if rest:
            raise ValueError(f"trailing data after the {kind} stream")
        return


def check_replaceable(path: str | os.PathLike, what: str = "output") -> None:
    """A UserError unless ``path`` is new or a regular file: writing a file in place of a
    symlink (the link lost, its target not written), a FIFO, a device (``/dev/null`` itself
    replaced) or a folder would lose what is there."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise os_failure(exc, f"write {what} {path}") from None
    if stat.S_ISLNK(mode):
        raise UserError(f"{what} {path} is a symlink: name the file itself (it would be "
                        f"replaced, not written through)")
    if not stat.S_ISREG(mode):
        raise UserError(f"{what} {path} is {special_kind(mode)}, not a regular file")


def check_distinct(*named: tuple[str, str | os.PathLike | None]) -> None:
    """A UserError when two of the ``(label, path)`` pairs name one file (the same path, or
    links to one file): one would be read as the other, or written over it. None and ``-``
    (stdin, stdout) are skipped."""
    seen: dict = {}
    for label, path in named:
        if path is None or str(path) == "-":
            continue
        keys: set[tuple] = {("path", os.path.realpath(path))}
        with contextlib.suppress(OSError):
            status = os.stat(path)
            keys.add(("inode", status.st_dev, status.st_ino))
        for key in keys:
            if key in seen:
                raise UserError(f"{seen[key]} and {label} name the same file ({path})")
            seen[key] = label

"""Output files: deterministic compression, files that appear complete or not at all, and
scratch folders that a killed run does not leave behind for long."""

from __future__ import annotations

import bz2
import contextlib
import fcntl
import gzip
import lzma
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.inputs import check_replaceable
from puzzlesat.generator.core.paths import os_failure
from puzzlesat.generator.core.xz import compress_blocks

#: compression name -> file suffix, the one table of both ("none": plain text; "xz-mt":
#: block-parallel xz, see :mod:`.xz`)
SUFFIXES = {"xz": ".xz", "xz-mt": ".xz", "gz": ".gz", "bz2": ".bz2", "none": ""}
#: what an extension means: its first name above (``.xz`` is one stream, as ``xz -T1``);
#: read backwards so that the first name is the one kept
_BY_SUFFIX = {suffix: kind for kind, suffix in reversed(SUFFIXES.items()) if suffix}


def compression_of(path: str | os.PathLike) -> str | None:
    """``"xz"``, ``"gz"``, ``"bz2"`` or None, by file extension."""
    return _BY_SUFFIX.get(Path(path).suffix.lower())


def output_compression(path: str | os.PathLike, name: str | None = None) -> str | None:
    """How output ``path`` is compressed (None: plain text): by its extension (``-`` is plain
    stdout), or as ``name`` says, a key of :data:`SUFFIXES` whose suffix must end ``path``
    (``xz-mt`` for a ``.xz`` file), else a UserError."""
    by_extension = None if str(path) == "-" else compression_of(path)
    if name is None:
        return by_extension
    if name not in SUFFIXES:
        raise UserError(f"compression {name!r} is not one of {', '.join(SUFFIXES)}")
    if SUFFIXES[name] != SUFFIXES[by_extension or "none"]:
        if str(path) == "-":
            raise UserError(f"compression {name} needs a file: -o - writes plain text to stdout")
        wanted = f"end in {SUFFIXES[name]}" if SUFFIXES[name] else "be plain (no .xz, .gz, .bz2)"
        raise UserError(f"compression {name}: the output {path} must {wanted}")
    return None if name == "none" else name


@dataclass(frozen=True)
class Compression:
    """How an instance's file is compressed, as ``generate`` asks: ``name``, a key of
    :data:`SUFFIXES` that the path's extension must agree with (None: as the extension says;
    :func:`output_compression`), and the ``threads`` that compress the blocks of ``xz-mt``
    (no other compression has blocks; the thread count never changes a byte)."""

    name: str | None = None
    threads: int = 1


#: every writer's default: as the path's extension says (``.xz`` is one stream), one thread
BY_EXTENSION = Compression()


def compress(data: bytes, kind: str | None, threads: int = 1) -> bytes:
    """Deterministic compression: xz = lzma preset 6 (byte-identical to ``xz -6 -T1``),
    xz-mt = blocks of 8 MiB at preset 6 compressed in ``threads`` threads (the same bytes for
    any number; :func:`.xz.compress_blocks`), gzip level 9 with mtime 0 and no file name,
    bzip2 level 9."""
    if kind is None:
        return data
    if kind == "xz":
        return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=6)
    if kind == "xz-mt":
        return compress_blocks(data, threads)
    if kind == "gz":
        return gzip.compress(data, compresslevel=9, mtime=0)
    if kind == "bz2":
        return bz2.compress(data, compresslevel=9)
    raise ValueError(f"unknown compression {kind!r}")


def current_umask() -> int:
    """The process umask, read without changing it (``/proc``), else by setting and restoring
    it (not thread-safe, so only where ``/proc`` is missing)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_writable(path: str | os.PathLike, what: str = "output") -> None:
    """A UserError unless :func:`atomic_write` can create ``path`` (its folder exists and is
    writable, and the path is new or a regular file): checked before other files are
    written."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    check_replaceable(path, what)
    if not folder.is_dir():
        raise UserError(f"cannot write {what} {path}: no such folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserError(f"cannot write {what} {path}: folder {folder} is not writable")


def _writeback_starter():
    """Linux's ``sync_file_range(fd, offset, nbytes, SYNC_FILE_RANGE_WRITE)``: start writing a
    range of a file to disk and return at once. None where it is missing."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # already loaded by numpy

    try:
        call = ctypes.CDLL(None, use_errno=True).sync_file_range
    except (OSError, AttributeError):
        return None
    call.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
    call.restype = ctypes.c_int
    # 2 = SYNC_FILE_RANGE_WRITE; the result is ignored: a hint that fails changes nothing
    return lambda fd, offset, nbytes: call(fd, offset, nbytes, 2)


_start_writeback = _writeback_starter()
_WRITEBACK_BYTES = 8 << 20


class FileWriter:
    """Writes a file from byte ``position`` on (``pwrite``, so two processes may write parts of
    one file). The disk is told to start on each further 8 MB as soon as it is written, so it
    works while the text is being made and the closing fsync waits only for the last few MB
    (for the Eternity II board, about 40 ms less); the fsync still decides what is durable."""

    def __init__(self, fd: int, position: int = 0) -> None:
        self.fd = fd
        self.position = position
        self.started = position  # where the disk has not yet been told to start

    def write(self, data) -> int:
        """Write all of ``data`` to the file descriptor; the number of bytes written."""
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            done += self._write_at(view[done:], self.position + done)
        self.position += done
        if _start_writeback is not None and self.position - self.started >= _WRITEBACK_BYTES:
            _start_writeback(self.fd, self.started, self.position - self.started)
            self.started = self.position
        return done

    def _write_at(self, data, offset: int) -> int:
        if hasattr(os, "pwrite"):
            return os.pwrite(self.fd, data, offset)
        os.lseek(self.fd, offset, os.SEEK_SET)  # Windows has no pwrite (nor two processes)
        return os.write(self.fd, data)


#: random bytes in the name of an atomic file's temporary file (hex: twice as many digits)
PART_TOKEN_BYTES = 6
#: the name of a temporary file of :func:`atomic_file` (``.<name>.<token>.part``, the token
#: 12 hex digits) or of one publish keeps back (token ``pending``): what a cleaner may remove
PART_NAME = re.compile(r"\A\.([A-Za-z0-9][A-Za-z0-9._-]*)\.(?:[0-9a-f]{"
                       + str(2 * PART_TOKEN_BYTES) + r"}|pending)\.part\Z")


def part_name(name: str, token: str) -> str:
    """The temporary name beside ``name`` that :data:`PART_NAME` recognises."""
    return f".{name}.{token}.part"


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike):
    """A binary file that appears at ``path`` complete or not at all: written to a temporary
    file in the same folder, flushed to disk, then renamed (a reader, or an interrupted run,
    never sees a partial file), as a :class:`FileWriter`."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    check_replaceable(path, "output")
    tmp = None
    try:
        fd = None
        while fd is None:
            # named before it is made (not mkstemp): a stop signal that lands right after
            # the file appears still finds it here to remove
            tmp = folder / part_name(path.name, secrets.token_hex(PART_TOKEN_BYTES))
            try:
                fd = os.open(tmp, _CREATE, 0o600)
            except FileExistsError:  # someone else's: never removed
                tmp = None
        try:
            os.fchmod(fd, 0o666 & ~current_umask())  # 0600 while written; published files are shared
            yield FileWriter(fd)
            os.fsync(fd)
        finally:
            os.close(fd)
        assert tmp is not None  # the loop ends only once it has made tmp
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(exc, OSError):
            raise os_failure(exc, f"write {path}") from None
        raise


_CREATE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
           | getattr(os, "O_BINARY", 0))


def atomic_write(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_file`)."""
    with atomic_file(path) as fh:
        fh.write(data)


#: the file a scratch folder's run holds locked while it runs
_LOCK = ".puzzlesat-running"


@contextlib.contextmanager
def scratch_folder(kind: str):
    """A new private folder in the temporary folder for one run's files (a solver's copy of an
    instance, a proof checker's inputs), removed when the block ends, whatever ends it. A
    process killed with SIGKILL cleans nothing up, so the run holds a lock on a file in its
    folder while it runs (the kernel drops it when the process dies, however it dies), and
    the folders of ``kind`` whose lock nobody holds any more are removed first: only folders
    this function made (named so, owned by this user, holding that file)."""
    _sweep_scratch(kind)
    with tempfile.TemporaryDirectory(prefix=f"puzzlesat-{kind}-") as folder:
        making = Path(folder, _LOCK + ".new")
        lock = os.open(making, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            os.rename(making, Path(folder, _LOCK))  # seen by a sweep only once it is held
            yield Path(folder)
        finally:
            os.close(lock)


def _sweep_scratch(kind: str) -> None:
    root = Path(tempfile.gettempdir())
    try:
        names = [n for n in os.listdir(root) if n.startswith(f"puzzlesat-{kind}-")]
    except OSError:
        return
    for name in names:
        try:
            folder = root / name
            info = folder.lstat()
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
                continue
            lock = os.open(folder / _LOCK, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:  # gone meanwhile, not ours, or made without the lock: left alone
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # its run holds it: alive
            os.close(lock)
            continue
        shutil.rmtree(folder, ignore_errors=True)  # rmtree never follows a link inside
        os.close(lock)

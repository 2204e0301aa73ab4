"""How the proof checker's C kernels (``validate/proof/*.c``) become one shared library: the
sources, the compiler and its flags, and a hash of the sources that the library carries, so a
library older than its sources is never loaded (:mod:`puzzlesat.validate.proof.native`).

Standard library only: ``setup.py`` runs this file at install, before any dependency exists.
The compiler is Zig's clang from PyPI (the ``ziglang`` package, a build requirement), so
installing needs no C toolchain on the machine.
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

#: the folder of the kernels' sources
HERE = Path(__file__).resolve().parent
#: the library's name as a module of this package (its file: the name and the platform's
#: extension suffix)
LIBRARY = "_kernels"
#: -fwrapv: signed arithmetic wraps, as numpy's and the hashes' (never undefined behaviour);
#: -mcpu=baseline: code for every CPU of the architecture, as a wheel must be, not the builder's
FLAGS = ("-O2", "-std=c11", "-fwrapv", "-mcpu=baseline", "-shared", "-fPIC", "-Wall",
         "-Wextra", "-Wno-unused-parameter")


def sources() -> list[Path]:
    """The kernels' C sources and headers, in a fixed order."""
    return sorted([*HERE.glob("*.c"), *HERE.glob("*.h")])


def source_hash() -> str:
    """A hash of the sources (names and bytes) that the library is built from: their CRC-32."""
    # a stale build is all it tells apart (no adversary), and every check computes it: zlib's
    # CRC-32, loaded already to read compressed input, where hashlib loads OpenSSL (~5 ms)
    crc = 0
    for path in sources():
        crc = zlib.crc32(path.name.encode() + b"\0" + path.read_bytes() + b"\0", crc)
    return f"{crc:08x}"


def compile_kernels(out: Path) -> None:
    """Compile the sources into the shared library ``out`` (written beside it, then renamed: a
    failed build leaves no library)."""
    import subprocess  # (here: loading the kernels imports this module too, and runs nothing)

    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    command = [sys.executable, "-m", "ziglang", "cc", *FLAGS,
               f'-DPUZZLESAT_SOURCE_HASH="{source_hash()}"', "-o", str(partial),
               *(str(p) for p in sources() if p.suffix == ".c")]
    try:
        subprocess.run(command, check=True)
        partial.replace(out)
    finally:
        partial.unlink(missing_ok=True)


if __name__ == "__main__":  # a developer's rebuild in place (with ziglang installed)
    from importlib.machinery import EXTENSION_SUFFIXES

    compile_kernels(HERE / (LIBRARY + EXTENSION_SUFFIXES[0]))
    print(f"puzzlesat: kernels built ({source_hash()})")

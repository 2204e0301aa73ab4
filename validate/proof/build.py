"""How the proof checker's C kernels (``validate/proof/*.c``) become one shared library: the
sources, the compiler and its flags, and a hash of the sources that the library carries, so a
library older than its sources is never loaded (:mod:`puzzlesat.validate.proof.native`).

Standard library only: ``setup.py`` runs this file at install, before any dependency exists.
The compiler is Zig's clang from PyPI (the ``ziglang`` package, a build requirement), so
installing needs no C toolchain on the machine. The sources ship with the package (sdist and
wheel): ``python -m puzzlesat.validate.proof.build`` builds the library again wherever
ziglang is installed, and says in one line what is missing where it cannot.
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


def main() -> int:
    """``python -m puzzlesat.validate.proof.build``: build the library again in place, from the
    sources beside it (a source tree's, or an installed package's); what stops it is one line,
    exit 2."""
    import subprocess
    from importlib.machinery import EXTENSION_SUFFIXES
    from importlib.util import find_spec

    if not any(path.suffix == ".c" for path in sources()):
        return _refuse(f"no C sources in {HERE} to build the kernels from: install puzzlesat "
                       f"again")
    if find_spec("ziglang") is None:
        return _refuse("ziglang (Zig's C compiler, from PyPI) is not installed here: `pip "
                       "install ziglang`, then run this again")
    try:
        compile_kernels(HERE / (LIBRARY + EXTENSION_SUFFIXES[0]))
    except subprocess.CalledProcessError:
        return _refuse("the kernels did not compile (the compiler's messages are above)")
    except OSError as exc:
        return _refuse(f"cannot write the kernels into {HERE}: {exc.strerror}")
    print(f"puzzlesat: kernels built ({source_hash()})")
    return 0


def _refuse(message: str) -> int:
    """Say ``message`` as a user's error, in one line: exit code 2."""
    print(f"puzzlesat: error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

"""The build's one compiled step: the proof checker's C kernels into one shared library, by
validate/proof/build.py (everything else is in pyproject.toml)."""

import runpy
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

_BUILD = runpy.run_path(str(Path(__file__).parent / "validate" / "proof" / "build.py"))


class _BuildKernels(build_ext):
    """Compiles the kernels with build.py's compiler and flags (the library is loaded with
    ctypes, not imported: it uses no Python API)."""

    def build_extension(self, ext: Extension) -> None:
        _BUILD["compile_kernels"](Path(self.get_ext_fullpath(ext.name)))


_ROOT = Path(__file__).parent.resolve()
_FILES = [str(p.relative_to(_ROOT)) for p in _BUILD["sources"]()]

setup(
    ext_modules=[Extension("puzzlesat.validate.proof." + _BUILD["LIBRARY"],
                           [f for f in _FILES if f.endswith(".c")],
                           depends=[f for f in _FILES if f.endswith(".h")])],
    cmdclass={"build_ext": _BuildKernels},
)

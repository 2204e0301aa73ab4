"""The build's one compiled step: the proof checker's C kernels into one shared library, by
the package's puzzlesat/validate/proof/build.py (everything else is in pyproject.toml).

Every path here is the package's own (puzzlesat/validate/...), never the top-level folder it
is a symlink to in a source tree: a source release (sdist) holds the package's files only, and
this file must build from it as from a checkout."""

import runpy
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

#: the kernels' folder, as the package names it
_PROOF = Path("puzzlesat", "validate", "proof")
_BUILD = runpy.run_path(str(Path(__file__).parent / _PROOF / "build.py"))


class _BuildKernels(build_ext):
    """Compiles the kernels with build.py's compiler and flags (the library is loaded with
    ctypes, not imported: it uses no Python API)."""

    def build_extension(self, ext: Extension) -> None:
        _BUILD["compile_kernels"](Path(self.get_ext_fullpath(ext.name)))


_FILES = [str(_PROOF / path.name) for path in _BUILD["sources"]()]

setup(
    ext_modules=[Extension("puzzlesat.validate.proof." + _BUILD["LIBRARY"],
                           [f for f in _FILES if f.endswith(".c")],
                           depends=[f for f in _FILES if f.endswith(".h")])],
    cmdclass={"build_ext": _BuildKernels},
)

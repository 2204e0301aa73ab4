"""A source release builds: the sdist holds every file the build needs (the kernels' C sources
and headers among them), and the kernels' rebuild command, where it cannot build, says why in
one line. (.ci/run does the whole round trip: build, install the sdist in a clean venv,
validate a DRAT proof.)"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from puzzlesat.validate.proof import build

ROOT = Path(__file__).resolve().parent.parent


def _checkout_copy(folder: Path) -> None:
    """The files of the source tree a commit would hold (tracked, or new and not ignored), as
    they are now, copied into ``folder``: a fresh clone, without the tree's build leftovers
    (an old puzzlesat.egg-info/SOURCES.txt would add its files to the sdist)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=ROOT, capture_output=True, check=True)
    for name in sorted(set(listed.stdout.decode().split("\0")) - {""}):
        source, target = ROOT / name, folder / name
        if not source.is_symlink() and not source.exists():  # deleted, not yet committed
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():  # the package's halves: puzzlesat/generator, .../validate
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)


def _setuptools_reads_our_pyproject() -> bool:
    """setuptools 77 reads pyproject.toml's license expression; an older one refuses it."""
    from importlib.metadata import version

    return int(version("setuptools").split(".")[0]) >= 77


@pytest.mark.skipif(importlib.util.find_spec("build") is None or shutil.which("git") is None
                    or not (ROOT / ".git").exists(),
                    reason="needs the build package (the test extra), git and a checkout")
def test_the_sdist_holds_every_source_the_build_needs(tmp_path):
    """The sdist of a fresh checkout (built in place, not in a fresh environment: seconds, not
    a minute) holds setup.py, pyproject.toml, the README, and every Python, C and header file
    of the package, at the package's paths (setup.py builds from those): the kernels' headers
    missing made every install from a source release fail."""
    if not _setuptools_reads_our_pyproject():
        pytest.skip("needs setuptools >= 77 (the test extra)")
    tree = tmp_path / "tree"
    _checkout_copy(tree)
    run = subprocess.run([sys.executable, "-m", "build", "--sdist", "--no-isolation",
                          "--skip-dependency-check", "--outdir", str(tmp_path / "dist")],
                         cwd=tree, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    (sdist,) = (tmp_path / "dist").glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        held = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    package = [Path(folder, name) for folder, _, names in
               os.walk(tree / "puzzlesat", followlinks=True)  # into generator/ and validate/
               for name in names if name.endswith((".py", ".c", ".h"))]
    needed = {"setup.py", "pyproject.toml", "README.md",
              *(str(path.relative_to(tree)) for path in package)}
    kernels = {f"puzzlesat/validate/proof/{path.name}" for path in build.sources()}
    assert kernels and any(name.endswith(".h") for name in kernels)
    assert kernels <= needed
    assert not needed - held, sorted(needed - held)


def _build_main(capsys) -> tuple[int, list[str]]:
    """``python -m puzzlesat.validate.proof.build`` in this process: (exit code, stderr's
    lines)."""
    code = build.main()
    return code, capsys.readouterr().err.strip().splitlines()


def test_the_rebuild_without_ziglang_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *rest: None if name == "ziglang" else True)
    code, lines = _build_main(capsys)
    assert code == 2 and len(lines) == 1
    assert lines[0].startswith("puzzlesat: error: ziglang") and "pip install ziglang" in lines[0]


def test_the_rebuild_without_sources_says_to_install_again(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(build, "HERE", tmp_path)
    code, lines = _build_main(capsys)
    assert code == 2 and len(lines) == 1
    assert "no C sources" in lines[0] and "install puzzlesat again" in lines[0]


@pytest.mark.parametrize("failure, said", [
    (subprocess.CalledProcessError(1, ["zig"]), "the kernels did not compile"),
    (PermissionError(13, "Permission denied"), "cannot write the kernels into")])
def test_a_rebuild_that_fails_is_one_line(monkeypatch, capsys, failure, said):
    """The compiler's own messages come before it (its stderr is the terminal's)."""
    def compile_kernels(out):
        raise failure

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: True)
    monkeypatch.setattr(build, "compile_kernels", compile_kernels)
    code, lines = _build_main(capsys)
    assert code == 2 and len(lines) == 1 and said in lines[0]


@pytest.mark.skipif(importlib.util.find_spec("ziglang") is not None,
                    reason="with ziglang, the command would rebuild the library in use")
def test_the_rebuild_command_is_one_line_and_no_traceback():
    run = subprocess.run([sys.executable, "-m", "puzzlesat.validate.proof.build"],
                         capture_output=True, text=True)
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert run.stderr.startswith("puzzlesat: error: ziglang")

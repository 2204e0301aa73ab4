"""The package layout: one importable package, every module's doctests, no import running
back up (core < families < instance < suite; generator never imports validate)."""

from __future__ import annotations

import ast
import doctest
import importlib
import os
import pkgutil
import re
import tomllib
from pathlib import Path

import pytest
from conftest import REPO

import puzzlesat

#: package prefix -> prefixes it must not import (the layers above it)
FORBIDDEN = {
    "puzzlesat.generator.core": ("puzzlesat.generator.families", "puzzlesat.generator.instance",
                                 "puzzlesat.generator.suite", "puzzlesat.validate",
                                 "puzzlesat.cli"),
    "puzzlesat.generator.families": ("puzzlesat.generator.instance", "puzzlesat.generator.suite",
                                     "puzzlesat.validate", "puzzlesat.cli"),
    "puzzlesat.generator": ("puzzlesat.validate", "puzzlesat.cli"),
    "puzzlesat.validate": ("puzzlesat.cli",),
}


def source_modules() -> dict[str, Path]:
    """Module name -> source path, for every .py file under puzzlesat/ (whose generator/ and
    validate/ are the top-level folders of those names, through symlinks)."""
    found = {}
    for folder, _, files in os.walk(REPO / "puzzlesat", followlinks=True):
        for name in sorted(f for f in files if f.endswith(".py")):
            parts = list((Path(folder) / name).relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = Path(folder) / name
    return found


def test_the_two_halves_are_the_top_level_folders():
    for half in ("generator", "validate"):
        assert (REPO / "puzzlesat" / half).resolve() == (REPO / half).resolve()


def test_every_puzzlesat_import_names_a_file_in_the_source_tree():
    """What an editor's go-to-definition, mypy and an import-graph tool do: map the dotted name
    to a path under the repository, with nothing installed."""
    for module, path in source_modules().items():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            for name in (n for n in names if n.split(".")[0] == "puzzlesat"):
                target = REPO.joinpath(*name.split("."))
                assert target.with_suffix(".py").is_file() or (target / "__init__.py").is_file(), \
                    f"{module} imports {name}, which is no file under {REPO}"


def test_pyproject_lists_every_package():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages = {name for name, path in source_modules().items() if path.name == "__init__.py"}
    assert set(config["packages"]) == packages


def test_every_module_imports_from_the_installed_package():
    names = [m.name for m in pkgutil.walk_packages(puzzlesat.__path__, "puzzlesat.")]
    names += [m.name for m in pkgutil.walk_packages(
        importlib.import_module("puzzlesat.generator").__path__, "puzzlesat.generator.")]
    names += [m.name for m in pkgutil.walk_packages(
        importlib.import_module("puzzlesat.validate").__path__, "puzzlesat.validate.")]
    expected = set(source_modules()) - {"puzzlesat.__main__"}
    assert expected <= set(names) | {"puzzlesat", "puzzlesat.generator", "puzzlesat.validate"}
    for name in sorted(expected):
        importlib.import_module(name)


@pytest.mark.parametrize("module", sorted(source_modules()))
def test_no_import_runs_back_up(module):
    tree = ast.parse(source_modules()[module].read_text())
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    for prefix, forbidden in FORBIDDEN.items():
        if module == prefix or module.startswith(prefix + "."):
            bad = [name for name in imported if name.startswith(forbidden)]
            assert not bad, f"{module} imports {bad} from a layer above it"
            break


@pytest.mark.parametrize("module", sorted(set(source_modules()) - {"puzzlesat.__main__"}))
def test_doctests(module):
    runner = doctest.DocTestRunner()
    report: list[str] = []
    for test in doctest.DocTestFinder().find(importlib.import_module(module)):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_every_bench_runs_from_python_m_bench():
    """``python -m bench`` calls each bench_*.main() with no argument."""
    import inspect

    for path in sorted((REPO / "bench").glob("bench_*.py")):
        main = importlib.import_module(f"bench.{path.stem}").main
        required = [p for p in inspect.signature(main).parameters.values()
                    if p.default is inspect.Parameter.empty]
        assert not required, f"{path.name}: main() requires {required}"


def _public_functions_without_docstring(path: Path) -> list[str]:
    """``name:line`` of each public function, method or property in ``path`` with no
    docstring (a name with a leading underscore is private; so is everything inside a
    private class or function)."""
    missing = []

    def walk(node: ast.AST, private: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                hidden = private or child.name.startswith("_")
                if (not hidden and not isinstance(child, ast.ClassDef)
                        and ast.get_docstring(child) is None):
                    missing.append(f"{child.name}:{child.lineno}")
                walk(child, hidden or not isinstance(child, ast.ClassDef))

    walk(ast.parse(path.read_text()), False)
    return missing


def test_every_public_function_has_a_docstring():
    """Every public function, method and property in the product (generator/, validate/,
    puzzlesat/) says in one line what it returns or does."""
    files = sorted(p for top in ("generator", "validate")
                   for p in (REPO / top).rglob("*.py"))
    files += sorted((REPO / "puzzlesat").glob("**/*.py"))
    missing = {str(p.relative_to(REPO)): names for p in files
               if (names := _public_functions_without_docstring(p))}
    assert not missing, "public functions without a docstring:\n" + "\n".join(
        f"{path}: {', '.join(names)}" for path, names in missing.items())


def test_mypy_is_clean():
    """``mypy`` (configured by [tool.mypy] in pyproject.toml) finds no error in the source
    tree, the tests and the benchmarks."""
    pytest.importorskip("mypy", reason="mypy is not installed (pip install -e '.[test]')")
    import subprocess
    import sys
    run = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]


def test_property_tests_have_no_deadline():
    """No Hypothesis test depends on the machine's speed: the shared profile has no deadline
    per example (conftest.py), whatever a test's own settings say about example counts."""
    from hypothesis import settings

    assert settings.default.deadline is None
    tests = Path(__file__).parent
    for path in sorted(tests.glob("test_*.py")):
        assert not re.search(r"settings\([^)]*deadline=(?!None)", path.read_text()), path

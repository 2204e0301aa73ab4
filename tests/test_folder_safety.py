"""Issue 22: the suite folder as a hostile place. Each test is named after a reproducer of the
issue and failed before its fix (noted per test)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from conftest import assert_one_line_error
from test_publish import SPEC, tree
from test_suite_spec import HEAD, toy  # noqa: F401  (fixture)

EM_SMALL = ("edge-matching", "--rows", "3", "--cols", "3", "--border-colors", "2",
            "--center-colors", "2")


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "toy.toml"
    path.write_bytes(SPEC)
    return path


@pytest.fixture
def published(toy, puzzlesat, spec_file, tmp_path):
    out = tmp_path / "suite"
    assert puzzlesat("publish", spec_file, "-o", out).code == 0
    return out


# -- names: the safe-name rule is anchored with \Z (``$`` matches before a trailing newline) --
def test_name_with_a_trailing_newline(tmp_path, puzzlesat):
    """Was accepted (SAFE_NAME ended in ``$``)."""
    result = puzzlesat("generate", *EM_SMALL, "--name", "x\n", "-o", tmp_path / "x.cnf")
    assert_one_line_error(result, "--name")
    assert list(tmp_path.iterdir()) == []


def test_suite_named_with_a_trailing_newline(toy, puzzlesat, tmp_path):
    """A suite named "demo\\n" was published."""
    spec = tmp_path / "s.toml"
    spec.write_bytes(HEAD.replace(b'name = "t"', b'name = "demo\\n"')
                     + b"[[group]]\nfamily = 'toy'\nparams = { n = 3 }\n")
    assert_one_line_error(puzzlesat("publish", spec, "-o", tmp_path / "out"), "name")
    assert not (tmp_path / "out").exists()


# -- workers -----------------------------------------------------------------------------------
def test_jobs_5000_on_a_one_instance_suite_starts_one_worker(toy, puzzlesat, tmp_path,
                                                               monkeypatch):
    """-j 5000 started about 1,700 processes (a fork pool starts all its workers at once)."""
    import concurrent.futures

    sizes = []
    real = concurrent.futures.ProcessPoolExecutor.__init__

    def counting(self, max_workers=None, *args, **kwargs):
        sizes.append(max_workers)
        real(self, max_workers, *args, **kwargs)

    monkeypatch.setattr(concurrent.futures.ProcessPoolExecutor, "__init__", counting)
    spec = tmp_path / "one.toml"
    spec.write_bytes(HEAD + b"[[group]]\nfamily = 'toy'\nparams = { n = 3 }\n")
    result = puzzlesat("publish", spec, "-o", tmp_path / "out", "-j", "5000")
    assert result.code == 0, result.err
    assert sizes == [1]


def test_jobs_are_capped_at_a_multiple_of_the_cpus():
    from puzzlesat.generator.suite.executors import JOBS_PER_CPU, cap_jobs

    cap = max(8, JOBS_PER_CPU * os.cpu_count())
    assert cap_jobs(5000) == cap
    assert cap_jobs(5000, 3) == 3
    assert cap_jobs(2, 0) == 1


@pytest.mark.parametrize("address", ["not a url", "http://127.0.0.1:8786"])
def test_dask_scheduler_address_that_is_not_one(published, puzzlesat, address):
    pytest.importorskip("distributed")
    result = puzzlesat("verify", published, "--executor", "dask", "--scheduler", address)
    assert_one_line_error(result, "--scheduler", "not a Dask scheduler address")

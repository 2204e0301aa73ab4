"""Shared test helpers: the fixtures folder (skip when absent) and an in-process CLI runner."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from puzzlesat.cli import main

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(os.environ.get("PUZZLESAT_FIXTURES", REPO.parent / "shared" / "fixtures"))
#: published data vendored for the fidelity tests (always present; see tests/data/PROVENANCE.txt)
DATA = REPO / "tests" / "data"


def fixture_path(*parts: str) -> Path:
    """A path under ../shared/fixtures; the calling test is skipped when it is absent."""
    path = FIXTURES.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"fixture {path} is not available")
    return path


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def puzzlesat(capsysbinary):
    """Run ``puzzlesat ARGS...`` in-process; returns exit code, stdout and stderr."""

    def run(*args: str) -> CliResult:
        with pytest.raises(SystemExit) as exc:
            main([str(a) for a in args])
        captured = capsysbinary.readouterr()
        return CliResult(exc.value.code or 0, captured.out.decode(), captured.err.decode())

    return run


def assert_one_line_error(result: CliResult, *fragments: str) -> None:
    """A user's mistake: exit 2, one line on stderr, no traceback."""
    assert result.code == 2, (result.code, result.err)
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("puzzlesat: error: "), lines[0]
    assert "Traceback" not in result.err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])

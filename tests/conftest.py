"""Shared test helpers: the fixtures folder (skip when absent), an in-process CLI runner and a
tiny suite (three instances of two families) to publish."""

from __future__ import annotations

import os
import shutil
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from puzzlesat.cli import main
from puzzlesat.generator.suite import publish_suite
from puzzlesat.generator.suite.folder import ManifestRow

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(os.environ.get("PUZZLESAT_FIXTURES", REPO.parent / "shared" / "fixtures"))
#: published data vendored for the fidelity tests (always present; see tests/data/PROVENANCE.txt)
DATA = REPO / "tests" / "data"

# Property tests state properties, not speeds: Hypothesis's default 200 ms deadline per example
# failed them on a busy machine. Every @given runs without one (a test's own settings add
# example counts).
settings.register_profile("puzzlesat", deadline=None)
settings.load_profile("puzzlesat")


def instance_row(name: str, family: str = "sliding", result: str = "sat",
                 hash: str | None = None) -> ManifestRow:
    """A manifest row of a stub instance ``name`` (GBD hash: the md5 of its name unless
    given), checked as one read from manifest.json is."""
    import hashlib

    return ManifestRow.from_row({
        "hash": hash or hashlib.md5(name.encode()).hexdigest(), "name": name,
        "file": f"instances/{name}.cnf.xz", "family": family, "result": result, "params": {},
        "sha256": "0" * 64, "witness": None, "witness-sha256": None, "encoding": "e",
        "variables": 1, "clauses": 1, "expected-from": "planted", "text-sha256": "0" * 64,
        "group": 1}, name)


#: a speed workload of milliseconds (TINY's UNSAT sliding instance), pinned as the real ones are
TINY_WORKLOAD = dict(family="sliding", params={"korf": 50, "k": 8, "budget": 6},
                     encoding="rotated", seed=None, gbd_hash="7dca9520f5aa26b27544d0fef855f623",
                     expected="UNSAT", reference_seconds=0.01)


@pytest.fixture(scope="session", autouse=True)
def tiny_speed_workloads(tmp_path_factory):
    """Every solver with a speed workload times TINY_WORKLOAD instead (the real ones take a
    minute; test_speed pins them), its index cached in a folder of the session's (never the
    user's ~/.cache): each calibrate in a test would otherwise spend that minute first."""
    from puzzlesat.validate.runs import speed

    tiny = speed.Workload(**TINY_WORKLOAD)  # type: ignore[arg-type]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        patch.setattr(speed, "WORKLOADS", {name: tiny for name in speed.WORKLOADS})
        yield


def fixed_speeds(monkeypatch, indices: dict[str, float]) -> None:
    """The speed indices calibrate and tune see fixed (no workload run): solver -> index."""
    from puzzlesat.validate.campaigns import calibrate
    from puzzlesat.validate.runs import speed

    def speeds(solvers):
        return {solver: speed.Speed(solver, speed.Workload("sliding", {}, "rotated", None,
                                                           "0" * 32, "UNSAT", indices[solver]),
                                    (1.0,), speed.host(), 0.0, time.time())
                for solver in solvers if solver in indices}, []

    monkeypatch.setattr(calibrate, "speeds", speeds)
    monkeypatch.setattr(speed, "speeds", speeds)


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
        return CliResult(int(exc.value.code or 0), captured.out.decode(), captured.err.decode())

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


#: a suite of three small instances: sliding SAT and UNSAT, and a Flow grid
TINY = b"""
[suite]
name = "tiny"
author = "T. Tester"
version = "1"
seed = 3

[[group]]
family = "sliding"
params = { korf = 50 }
zip = { k = [8, 8], budget = [8, 6] }

[[group]]
family = "flow"
encoding = "acyclic"
params = { width = 5, height = 5 }
"""


def publish_tiny(folder):
    """Publish TINY into ``folder``/suite (in this process); returns the suite folder."""
    spec = folder / "tiny.toml"
    spec.write_bytes(TINY)
    publish_suite(spec, folder / "suite")
    return folder / "suite"


def kissat() -> str:
    """The Kissat binary of passagemath-kissat, or one on PATH; else skip."""
    bundled = Path(sysconfig.get_paths()["purelib"]) / "sage_wheels" / "bin" / "kissat"
    found = str(bundled) if bundled.is_file() else shutil.which("kissat")
    if not found:
        pytest.skip("no kissat binary (pip install passagemath-kissat)")
    return found


def tick_labels(axis, minor: bool = False) -> list:
    """The labels of a drawn axis's major (or minor) ticks inside its view: matplotlib keeps
    labels of ticks outside it, not drawn."""
    low, high = sorted(axis.get_view_interval())
    slack = 1e-9 * max(abs(low), abs(high))  # a tick on the view's edge is drawn
    locs = axis.get_minorticklocs() if minor else axis.get_majorticklocs()
    labels = axis.get_minorticklabels() if minor else axis.get_majorticklabels()
    return [label for loc, label in zip(locs, labels) if low - slack <= loc <= high + slack]


def drawn_texts(fig) -> list:
    """The texts a figure shows, drawn: titles, axis labels, tick labels, annotations, the
    legends' texts."""
    fig.canvas.draw()
    texts = []
    for ax in fig.axes:
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
        texts += [label for axis in (ax.xaxis, ax.yaxis) for minor in (False, True)
                  for label in tick_labels(axis, minor)]
    texts += [text for legend in fig.legends for text in legend.get_texts()]
    return [t for t in texts if t.get_visible() and t.get_text()]


def assert_readable(fig, width: float) -> None:
    """A plot that reads at its printed size: ``width`` inches wide, every text at 7 pt or
    more, inside the figure, and no two texts overlapping."""
    assert fig.get_size_inches()[0] == pytest.approx(width)
    texts = drawn_texts(fig)
    assert all(t.get_fontsize() >= 7 for t in texts), [(t.get_text(), t.get_fontsize())
                                                       for t in texts]
    renderer = fig.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
    inside = fig.bbox.padded(1)  # a pixel's rounding
    for text, box in boxes:
        assert inside.containsx(box.x0) and inside.containsx(box.x1) \
            and inside.containsy(box.y0) and inside.containsy(box.y1), (text, box, fig.bbox)
    for index, (text, box) in enumerate(boxes):
        for other, other_box in boxes[index + 1:]:
            assert not box.overlaps(other_box), (text, other)

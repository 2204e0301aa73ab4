"""The suites shipped in suites/: they parse, the calibration tables beside them describe them,
and heule2009.toml reproduces Table 1 of the paper (Heule, SAT 2009) in every encoding."""

from __future__ import annotations

import csv
import io

import pytest
from conftest import DATA, REPO

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.suite import load_spec
from puzzlesat.validate.runs.records import CalibrationRow

SUITES = sorted((REPO / "suites").glob("*.toml"))


@pytest.mark.parametrize("path", SUITES, ids=[p.stem for p in SUITES])
def test_shipped_suites_parse(path):
    try:
        spec = load_spec(path)
    except UserError as exc:  # a family still missing a built-in is reported, not hidden
        pytest.fail(str(exc))
    assert spec.tasks and spec.name == path.stem


TABLES = sorted((REPO / "suites").glob("*.calibration.csv"))


@pytest.mark.parametrize("table", TABLES, ids=[p.name.split(".")[0] for p in TABLES])
def test_a_shipped_table_describes_its_spec(table):
    """Each table beside a spec names exactly the spec's instances, one run per instance and
    solver, every row one the calibration reader takes, none started on a loaded machine."""
    spec = load_spec(table.with_name(table.name.replace(".calibration.csv", ".toml")))
    with open(table, newline="", encoding="utf-8") as fh:
        rows = [CalibrationRow.from_row(row) for row in csv.DictReader(fh)]
    assert {r.name for r in rows} == {t.name for t in spec.tasks}
    assert len({(r.hash, r.solver) for r in rows}) == len(rows)
    assert len({r.solver for r in rows}) * len(spec.tasks) == len(rows)
    assert not [r.name for r in rows if r.loaded or not r.machine]


def test_pb_puzzles_published_takes_every_row_of_its_table(tmp_path, puzzlesat):
    """The table describes the instances as built today (GBD hashes, not names alone): a
    generator change would leave rows that name no instance, dropped and named. (sc2027's is
    checked with its submission in test_submission.py.)"""
    spec = REPO / "suites" / "pb-puzzles.toml"
    result = puzzlesat("publish", spec, "-o", tmp_path / "pb")
    assert result.code == 0, result.err
    assert f"calibration: 56 rows taken from {spec.with_suffix('.calibration.csv')}" \
        in result.out.splitlines()
    assert "this spec does not build" not in result.out + result.err


def test_suite_sizes():
    sizes = {p.stem: len(load_spec(p).tasks) for p in SUITES}
    assert sizes["sc2021-sliding"] == 62
    assert sizes["heule2009"] == 12 * 4
    assert set(load_spec(REPO / "suites" / "demo.toml").families) == {
        "edge-matching", "sliding", "flow"}


def test_sc2021_budgets_are_k_and_k_minus_2():
    tasks = load_spec(REPO / "suites" / "sc2021-sliding.toml").tasks
    pairs = sorted((t.params["k"], t.params["budget"]) for t in tasks)
    assert pairs == sorted([(k, k) for k in range(30, 61)] + [(k, k - 2) for k in range(30, 61)])


def test_heule2009_manifest_counts_equal_table1(tmp_path, puzzlesat):
    table = DATA / "heule2009-table1.csv"
    # the shipped spec, uncompressed (counts do not depend on compression; xz is the slow part)
    spec = (REPO / "suites" / "heule2009.toml").read_text().replace('compression = "xz"',
                                                                    'compression = "none"')
    (tmp_path / "heule2009.toml").write_text(spec)
    result = puzzlesat("publish", tmp_path / "heule2009.toml", "-o", tmp_path / "out", "-j", "2")
    assert result.code == 0, result.err
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "manifest.csv").read_text())))
    got = {(r["name"].rsplit("-", 1)[0].replace("_", "-"), r["encoding"]):
           (int(r["variables"]), int(r["clauses"])) for r in rows}
    for row in csv.DictReader(table.open()):
        name, variables = row["name"], int(row["variables"])
        compact = int(row["compact_clauses"])
        fb, ex = int(row["fbcolors_extra"]), int(row["explicit_extra"])
        expected = {"compact": compact, "fbcolors": compact + fb, "explicit": compact + ex,
                    "all": compact + fb + ex}
        # variables and the explicit extension follow from size and colours alone: exact
        assert {got[(name, e)][0] for e in expected} == {variables}, name
        assert got[(name, "explicit")][1] - got[(name, "compact")][1] == ex, name
        assert got[(name, "all")][1] - got[(name, "fbcolors")][1] == ex, name
        if name == "em-14-7-3":
            # The paper prints fbcolors +41475; the rules applied to the published piece file
            # give +41472 (a typo in the paper, see tests/test_edgematch.py).
            expected["fbcolors"] -= 3
            expected["all"] -= 3
        for encoding, clauses in expected.items():  # the suite builds from Heule's piece files
            assert got[(name, encoding)][1] == clauses, (name, encoding)

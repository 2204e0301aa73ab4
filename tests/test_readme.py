"""The README says what the code does: every example it marks ``<!-- example -->`` runs as
written, in a fresh folder, each command ending with the exit code its comment names (``exit
20``, else 0) and printing the verdicts its comment names; its verdict table is the
validator's; its suites table counts what each spec builds."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from puzzlesat.generator.instance import build
from puzzlesat.generator.suite.spec import load_spec
from puzzlesat.validate.tracks import TRACKS
from puzzlesat.validate.verdict import VERDICTS

README = (REPO / "README.md").read_text()
SPECS = {p.name: p.read_text() for p in (REPO / "suites").glob("*.toml")}
MARK = "<!-- example -->"
VERDICT_WORDS = re.compile(r"\b(?:VERIFIED(?:-[A-Z]+)?|[A-Z]+-UNCHECKED|WRONG-[A-Z]+)\b")


def _examples() -> list[list[str]]:
    """The marked blocks, each as its commands (continued lines joined)."""
    blocks = []
    for part in README.split(MARK + "\n```\n")[1:]:
        text = part.split("\n```", 1)[0].replace("\\\n", " ")
        blocks.append([line for line in text.splitlines() if line.strip()])
    return blocks


EXAMPLES = _examples()


def test_the_readme_marks_examples():
    assert len(EXAMPLES) >= 3  # the suite walk-through, model counting, MaxSAT, PB ...


@pytest.mark.parametrize("commands", EXAMPLES, ids=[b[0][:48] for b in EXAMPLES])
def test_an_example_runs_as_written(commands, tmp_path):
    (tmp_path / "suites").symlink_to(REPO / "suites")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for command in commands:
        comment = command.partition("  #")[2]
        expected = re.search(r"\bexit (\d+)", comment)
        ran = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env,
                             capture_output=True, text=True)
        assert ran.returncode == (int(expected.group(1)) if expected else 0), \
            (command, ran.stdout[-2000:], ran.stderr[-2000:])
        if ">" not in command.partition("  #")[0]:  # the verdicts it names are what it prints
            for word in VERDICT_WORDS.findall(comment):
                assert word in ran.stdout, (command, word, ran.stdout[-2000:])


def test_the_verdict_table_is_the_validators():
    rows = re.findall(r"^\| `([A-Z-]+)` \| (\d) \| ((?:[ x]*\|)+)$", README, re.MULTILINE)
    table = {verdict: (int(code), tuple(t for t, mark in zip(TRACKS, marks.split("|"))
                                         if mark.strip() == "x"))
             for verdict, code, marks in rows}
    assert table == VERDICTS


def test_the_suites_table_counts_what_each_spec_builds():
    rows = dict(re.findall(r"^\| `([a-z0-9-]+\.toml)` \| (\d+) \|", README, re.MULTILINE))
    shipped = sorted(p.name for p in (REPO / "suites").glob("*.toml"))
    assert sorted(rows) == shipped
    for name, count in rows.items():
        assert len(load_spec(REPO / "suites" / name).tasks) == int(count), name


def test_every_test_module_it_names_exists():
    named = set(re.findall(r"`(test_[a-z0-9_]+\.py)`", README))
    assert named and not {n for n in named if not (REPO / "tests" / n).is_file()}


def test_the_eternity2_maxsat_figures_are_what_generate_makes():
    """The README's and the MaxSAT spec's sizes of the real Eternity II board."""
    inst = build("edge-matching", {"pieces": "eternity2"}, track="maxsat")
    variables, _ = inst.track.sizes(inst.formula)
    hard, soft = inst.formula.hard.num_clauses, inst.formula.num_soft
    megabytes = len(inst.text()) / 1e6
    said = f"{variables:,} variables, {hard / 1e6:.2f} M hard clauses, {soft} soft, "
    spec = SPECS["mse-puzzles.toml"].replace("\n# ", "\n")  # its comment, read as prose
    for text in (" ".join(README.split()), " ".join(spec.split())):
        assert said in text and f"{megabytes:.1f} MB" in text

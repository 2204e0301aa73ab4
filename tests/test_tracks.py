"""The tracks, one shape behind one registry on each side: every generator track module and
every validator track folder keeps the contract, the registries find a track from what a user
names (a format and --count, a file, a client), and nothing outside the tracks chooses one by
hand."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import REPO

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.families import family_names, get_family
from puzzlesat.generator.instance import build
from puzzlesat.generator.tracks import TRACKS as FORMS
from puzzlesat.generator.tracks import all_tracks, get_track, track_for, tracks_of
from puzzlesat.validate.tracks import TRACKS, client_track, track_of
from puzzlesat.validate.tracks import get_track as judged_track
from puzzlesat.validate.verdict import EXIT_CODES, track_verdicts

#: what a generator track module defines (the registry's docstring)
FORM_NAMES = ("NAME", "FORMAT", "COUNT", "TITLE", "FORMAT_TEXT", "GROUP_KEYS", "REPRODUCE",
              "SUITE_SUFFIX", "RESULTS", "has", "module", "encodings", "estimate", "encode",
              "make", "picture", "summary", "head", "body", "write", "sizes", "gbd_hash",
              "fingerprint", "read", "text_pieces", "file_fingerprint", "file_sizes",
              "file_lines", "result_word", "table_result", "encoding_text", "abstract",
              "family_notes", "markdown_section", "latex_section", "CONSTRAINTS", "decides")
#: what each part of a validator track defines
PARTS = {"judge": ("VERDICTS", "open_case", "judge", "status", "answer_bound"),
         "clients": ("DEFAULT", "STATUSES", "CALIBRATION", "EASY", "REFERENCE", "canonical",
                     "names", "check", "run", "run_external", "source"),
         "bundle": ("CALIBRATED", "check", "write")}


def test_both_sides_register_the_same_tracks():
    assert list(FORMS) == list(TRACKS)
    assert [track.NAME for track in all_tracks()] == list(TRACKS)


@pytest.mark.parametrize("name", list(FORMS))
def test_every_generator_track_keeps_the_contract(name):
    """Every name of the contract, and its group keys and format ask for it again."""
    track = get_track(name)
    missing = [n for n in FORM_NAMES if not hasattr(track, n)]
    assert not missing, f"{name} lacks {missing}"
    keys = track.GROUP_KEYS
    assert track_for(keys.get("format", "cnf"), keys.get("count", False)) is track
    assert track_for(track.FORMAT, track.COUNT) is track


@pytest.mark.parametrize("name", TRACKS)
def test_every_validator_track_keeps_the_contract(name):
    """Its judge, clients and bundle define the parts' names; its judge's verdicts are its
    row of the verdict table; its default client is one of its own."""
    track = judged_track(name)
    for part, names in PARTS.items():
        module = getattr(track, part)
        missing = [n for n in names if not hasattr(module, n)]
        assert not missing, f"{name}/{part}.py lacks {missing}"
    assert track.judge.VERDICTS == track_verdicts(name)
    assert set(track.judge.VERDICTS) <= set(EXIT_CODES)
    assert track.clients.canonical(track.clients.DEFAULT) == track.clients.DEFAULT
    for word in (*track.clients.CALIBRATION, *track.clients.EASY, track.clients.REFERENCE):
        owner, _ = client_track(word.rpartition(":")[0])
        assert owner == track, word


def test_tunes_help_names_every_tracks_format_and_default_solvers(puzzlesat):
    """The help's defaults are typed (the CLI imports no track to print it): they must say
    what every track's clients define."""
    said = " ".join(puzzlesat("tune", "--help").out.split())
    for name in TRACKS:
        clients = judged_track(name).clients
        for word in (*clients.EASY, clients.REFERENCE):
            assert word in said, (name, word)
        assert get_track(name).FORMAT in said


@pytest.mark.parametrize("family", family_names())
def test_a_family_has_sat_and_the_tracks_its_card_names(family):
    found = [track.NAME for track in tracks_of(get_family(family))]
    assert found == ["sat", *(t for t in TRACKS if t in get_family(family).TRACKS)]


def test_the_track_of_a_file_is_told_by_its_head(tmp_path):
    """A CNF, a counting CNF and a WCNF each read as their track, from their first lines."""
    params = {"rows": 4, "cols": 4, "border_colors": 2, "center_colors": 3}
    for name in TRACKS:
        inst = build("edge-matching", params, seed=1, track=name)
        path = tmp_path / f"{name}.{inst.track.FORMAT}"
        path.write_text(inst.text())
        assert track_of(path).name == name
    with pytest.raises(UserError, match="not a counting instance"):
        track_of(tmp_path / "sat.cnf", "mc")


def test_a_client_names_its_track_and_an_unknown_one_lists_every_track():
    assert client_track("kissat")[0].name == "sat" and client_track("kissat")[1] == "kissat404"
    assert client_track("ganak")[0].name == "mc" and client_track("rc2")[0].name == "maxsat"
    with pytest.raises(UserError) as caught:
        client_track("nosuch")
    assert all(f"{name}: " in str(caught.value) for name in TRACKS)


#: what choosing a track by hand looks like (the patterns the track registries replaced)
BY_HAND = re.compile(r'is_wcnf|\b(inst|row|instance|spec|task)\.maxsat\b|format == "(w?cnf|opb)"'
                     r'|in COUNTERS|track == "|if counts:|NAME == "(sat|mc|maxsat|pb)"'
                     r'|FORMAT [!=]= "|"(sat|mc|maxsat|pb)" (if|else)')


def test_no_track_is_chosen_by_hand_outside_the_tracks():
    """Outside generator/tracks/ and validate/tracks/ no module picks a track by its name or
    format: every command goes through the registries."""
    found = []
    for top in ("generator", "validate", "puzzlesat"):
        for path in sorted((REPO / top).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            if rel.startswith(("generator/tracks/", "validate/tracks/")):
                continue
            found += [f"{rel}:{n}: {line.strip()}" for n, line in
                      enumerate(path.read_text().splitlines(), 1) if BY_HAND.search(line)]
    assert not found, "\n".join(found)


def test_solve_on_a_file_of_each_track_uses_its_default_client(tmp_path):
    """``solve`` runs the track's default client: CaDiCaL, Ganak (when installed), RC2."""
    params = ["--rows", "3", "--cols", "3", "--border-colors", "1", "--center-colors", "2"]
    for options, solver in ((), "cadical195"), (("--count",), "ganak"), \
            (("--format", "wcnf"), "rc2"):
        if solver == "ganak":
            pytest.importorskip("pyganak")
        path = tmp_path / f"{solver}.x"
        made = subprocess.run([sys.executable, "-m", "puzzlesat", "generate", "edge-matching",
                               *params, *options, "-o", path], capture_output=True, text=True)
        assert made.returncode == 0, made.stderr
        run = subprocess.run([sys.executable, "-m", "puzzlesat", "solve", path],
                             capture_output=True, text=True)
        assert f"c solver: {solver}" in run.stdout, run.stdout + run.stderr

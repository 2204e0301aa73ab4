"""The hostile-input catalogue of issue 12: each item a test named after it.

A user's mistake ends in one line on stderr and exit code 2 (``assert_one_line_error``), or in
the right verdict; the data-safety items also pin exactly which files exist afterwards:
unrelated files untouched, no ``.part``, no half suite.
"""

from __future__ import annotations

import lzma
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, assert_one_line_error
from test_publish import SPEC, tree
from test_suite_spec import HEAD, fail_at_40, toy  # noqa: F401  (fixture)

from puzzlesat.generator.core.files import part_name
from puzzlesat.generator.families import get_family
from puzzlesat.generator.suite.folder import LOCK_FILE

EM_SMALL = ("edge-matching", "--rows", "3", "--cols", "3", "--border-colors", "2",
            "--center-colors", "2")
EM_BIG = ("edge-matching", "--rows", "4", "--cols", "5", "--border-colors", "2",
          "--center-colors", "3")
GOOD_CNF = b"p cnf 3 2\n1 -2 0\n2 3 0\n"


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "toy.toml"
    path.write_bytes(SPEC)
    return path


def other_spec(tmp_path, name="other") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_bytes(HEAD.replace(b'name = "t"', f'name = "{name}"'.encode())
                     + b"[[group]]\nfamily = 'toy'\nparams = { n = 3 }\n")
    return path


# -- data loss --------------------------------------------------------------------------------
def test_publish_refuses_a_folder_holding_another_suite_toml(toy, puzzlesat, spec_file,
                                                             tmp_path):
    """A folder holding another suite's suite.toml is not publish's own: nothing in it is
    overwritten or deleted."""
    home = tmp_path / "home"
    (home / "instances").mkdir(parents=True)
    (home / "suite.toml").write_bytes(b'[suite]\nname = "mine"\n')
    (home / "instances" / "notes.txt").write_text("keep me")
    before = tree(home)
    assert_one_line_error(puzzlesat("publish", spec_file, "-o", home),
                          "holds suite 'mine'", "refusing")
    assert tree(home) == before


def test_publish_never_deletes_files_it_did_not_write(toy, puzzlesat, spec_file, tmp_path):
    """The stale sweep deletes no unrelated file under instances/ or witnesses/."""
    out = tmp_path / "out"
    assert puzzlesat("publish", spec_file, "-o", out).code == 0
    (out / "instances" / "notes.txt").write_text("mine")
    (out / "witnesses" / "mine.json").write_text("{}")
    spec_file.write_bytes(SPEC.split(b"[[group]]")[0] + b"[[group]]"
                          + SPEC.split(b"[[group]]")[2])  # drop the first group
    assert puzzlesat("publish", spec_file, "-o", out).code == 0
    assert sorted(p.name for p in (out / "instances").iterdir()) == [
        "notes.txt", "toy-7-unit.cnf.xz"]  # the listed stale instances went, notes.txt stayed
    assert sorted(p.name for p in (out / "witnesses").iterdir()) == [
        "mine.json", "toy-7-unit.json"]


def test_publish_refuses_a_different_suite_in_a_published_folder(toy, puzzlesat, spec_file,
                                                                 tmp_path):
    """Publishing another spec into a published folder silently replaced it."""
    out = tmp_path / "out"
    assert puzzlesat("publish", spec_file, "-o", out).code == 0
    before = tree(out)
    result = puzzlesat("publish", other_spec(tmp_path), "-o", out)
    assert_one_line_error(result, "holds suite 't'", "not 'other'")
    assert tree(out) == before


#: holds the lock until the test closes its stdin (however long a busy machine takes)
HOLDER = ("import sys; from pathlib import Path; "
          "from puzzlesat.generator.suite.publish import publish_lock\n"
          "with publish_lock(Path(sys.argv[1])):\n"
          "    print('locked', flush=True); sys.stdin.read()\n")


def test_concurrent_publish_is_refused_by_the_lock(toy, puzzlesat, spec_file, tmp_path):
    """Two concurrent publishes into one folder both reported success."""
    out = tmp_path / "out"
    out.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(out)], cwd=REPO,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"locked"
        result = puzzlesat("publish", other_spec(tmp_path), "-o", out)
        assert_one_line_error(result, "being written by another puzzlesat run",
                              f"pid {holder.pid}", LOCK_FILE)
        assert tree(out) == {LOCK_FILE: f"{holder.pid}\n".encode()}
    finally:
        holder.kill()
        holder.wait()


def test_stale_lock_of_a_dead_publish_is_taken_over(toy, puzzlesat, spec_file, tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    out = tmp_path / "out"
    out.mkdir()
    (out / LOCK_FILE).write_text(f"{dead.pid}\n")  # a SIGKILLed publish's lock file
    assert puzzlesat("publish", spec_file, "-o", out).code == 0
    assert not (out / LOCK_FILE).exists()
    assert puzzlesat("verify", out).code == 0


# -- tracebacks -------------------------------------------------------------------------------
INT64_MIN = -(2**63)


@pytest.mark.parametrize("output", [
    f"s SATISFIABLE\nv 1 {INT64_MIN} 0\n".encode(),
    f"SAT\n{INT64_MIN} 0\n".encode(),
    f"{INT64_MIN}\n".encode(),
], ids=["competition", "minisat", "bare"])
def test_literal_minus_2_pow_63_in_solver_output(tmp_path, puzzlesat, output):
    (tmp_path / "i.cnf").write_bytes(GOOD_CNF)
    (tmp_path / "o.out").write_bytes(output)
    result = puzzlesat("validate", tmp_path / "i.cnf", tmp_path / "o.out")
    assert result.code == 3 and "Traceback" not in result.err
    assert result.out.startswith("MALFORMED") and "literal too large" in result.out


def test_literal_minus_2_pow_63_in_validate_suite_without_csv(tmp_path, puzzlesat):
    (tmp_path / "suite" / "instances").mkdir(parents=True)
    (tmp_path / "suite" / "instances" / "a.cnf").write_bytes(GOOD_CNF)
    (tmp_path / "res").mkdir()
    (tmp_path / "res" / "a.cnf.out").write_bytes(f"s SATISFIABLE\nv {INT64_MIN} 0\n".encode())
    result = puzzlesat("validate-suite", tmp_path / "suite", tmp_path / "res")
    assert result.code == 3 and "Traceback" not in result.err
    assert "MALFORMED a.cnf: " in result.out


HEADER_MISMATCH = {
    "edge-matching": (EM_SMALL, EM_BIG),
    "flow": (("flow", "--width", "4", "--height", "4"), ("flow", "--width", "7", "--height", "7")),
    "sliding": (("sliding", "--rows", "2", "--cols", "2", "--walk", "2"),
                ("sliding", "--rows", "3", "--cols", "3", "--walk", "8")),
}


@pytest.mark.parametrize("family", sorted(HEADER_MISMATCH))
def test_header_puzzle_that_does_not_match_its_cnf(tmp_path, puzzlesat, family):
    """A header puzzle from another instance is a note in the verdict, never an IndexError in
    decode."""
    small, big = HEADER_MISMATCH[family]
    assert puzzlesat("generate", *small, "-o", tmp_path / "small.cnf").code == 0
    assert puzzlesat("generate", *big, "-o", tmp_path / "big.cnf").code == 0
    big_puzzle = next(line for line in (tmp_path / "big.cnf").read_bytes().split(b"\n")
                      if line.startswith(b"c puzzle: "))
    lines = (tmp_path / "small.cnf").read_bytes().split(b"\n")
    lines = [big_puzzle if line.startswith(b"c puzzle: ") else line for line in lines]
    (tmp_path / "lying.cnf").write_bytes(b"\n".join(lines))
    solved = puzzlesat("solve", tmp_path / "small.cnf")
    assert solved.code == 10
    (tmp_path / "small.out").write_text(solved.out)
    result = puzzlesat("validate", tmp_path / "lying.cnf", tmp_path / "small.out")
    assert "Traceback" not in result.err and result.err == ""
    assert result.out.startswith("VERIFIED-SAT")  # the model does satisfy the CNF
    assert "puzzle: not decoded: the header puzzle does not match the CNF" in result.out
    assert result.code == 0


def test_header_puzzle_of_the_same_size_is_not_blamed_on_the_encoding(tmp_path, puzzlesat):
    """Another seed's puzzle of the same size decodes without error but breaks the rules:
    encoding it again shows the header lies (a note), not an encoding bug (exit 3)."""
    args = ("edge-matching", "--rows", "4", "--cols", "4", "--border-colors", "2",
            "--center-colors", "3")
    for seed in ("1", "2"):
        assert puzzlesat("generate", *args, "--seed", seed, "-o", tmp_path / f"{seed}.cnf").code == 0
    other = next(line for line in (tmp_path / "2.cnf").read_bytes().split(b"\n")
                 if line.startswith(b"c puzzle: "))
    lines = [other if line.startswith(b"c puzzle: ") else line
             for line in (tmp_path / "1.cnf").read_bytes().split(b"\n")]
    (tmp_path / "lying.cnf").write_bytes(b"\n".join(lines))
    solved = puzzlesat("solve", tmp_path / "1.cnf")
    (tmp_path / "1.out").write_text(solved.out)
    result = puzzlesat("validate", tmp_path / "lying.cnf", tmp_path / "1.out")
    assert result.out.startswith("VERIFIED-SAT") and "INVALID" not in result.out
    assert "puzzle: not decoded: the header puzzle does not match the CNF (" in result.out
    assert result.code == 0
    assert puzzlesat("validate", tmp_path / "1.cnf", tmp_path / "1.out").code == 0


@pytest.mark.parametrize("fault", ["decode raises", "check complains"])
def test_faults_of_puzzlesat_itself_are_failures(tmp_path, puzzlesat, monkeypatch, fault):
    """On a genuine instance (the header encodes to this very CNF) a decode that raises, or a
    referee that rejects the solver's valid model, is puzzlesat's bug: reported, exit 3."""
    from puzzlesat.generator.families import get_family
    from puzzlesat.validate.tracks import judge_files

    assert puzzlesat("generate", *EM_SMALL, "-o", tmp_path / "x.cnf").code == 0
    (tmp_path / "x.out").write_text(puzzlesat("solve", tmp_path / "x.cnf").out)
    family = get_family("edge-matching")
    if fault == "decode raises":
        def broken(puzzle, encoding, model):
            raise IndexError("index 7 is out of bounds")
        monkeypatch.setattr(family, "decode", broken)
        problem = "decoding failed (IndexError: index 7 is out of bounds)"
    else:
        monkeypatch.setattr(family, "check", lambda puzzle, solution: ["square 3 is odd"])
        problem = "square 3 is odd"
    verdict = judge_files(tmp_path / "x.cnf", tmp_path / "x.out")
    assert verdict.verdict == "VERIFIED-SAT" and verdict.exit_code == 3
    assert verdict.puzzle.problems == [problem]
    assert f"INVALID: {problem}" in verdict.text()


@pytest.fixture
def published(toy, puzzlesat, spec_file, tmp_path):
    out = tmp_path / "out"
    assert puzzlesat("publish", spec_file, "-o", out).code == 0
    return out


def _instances_missing(out):
    for p in (out / "instances").iterdir():
        p.unlink()
    (out / "instances").rmdir()
    return "instances/toy-5-r1-unit.cnf.xz: missing"


def _instances_a_file(out):
    _instances_missing(out)
    (out / "instances").write_text("x")
    return "instances: not a folder"


def _witnesses_a_file(out):
    for p in (out / "witnesses").iterdir():
        p.unlink()
    (out / "witnesses").rmdir()
    (out / "witnesses").write_text("x")
    return "witnesses: not a folder"


def _instance_a_folder(out):
    (out / "instances" / "toy-5-r1-unit.cnf.xz").unlink()
    (out / "instances" / "toy-5-r1-unit.cnf.xz").mkdir()
    return "instances/toy-5-r1-unit.cnf.xz: cannot read"


@pytest.mark.parametrize("damage", [_instances_missing, _instances_a_file, _witnesses_a_file,
                                    _instance_a_folder],
                         ids=["instances missing", "instances a file", "witnesses a file",
                              "instance a folder"])
def test_verify_on_a_folder_with_instances_or_witnesses_damaged(puzzlesat, published, damage):
    expected = damage(published)
    result = puzzlesat("verify", published)
    assert result.code == 1 and "Traceback" not in result.err, result.err
    assert any(line.startswith(expected) for line in result.out.splitlines()), result.out


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e300", "0", "-1", "x"])
@pytest.mark.parametrize("command", ["solve", "solve-suite", "calibrate"])
def test_time_limit_nan_inf_huge(tmp_path, puzzlesat, command, value):
    (tmp_path / "i.cnf").write_bytes(GOOD_CNF)
    args = {"solve": [tmp_path / "i.cnf"], "solve-suite": [tmp_path, tmp_path / "r"],
            "calibrate": [tmp_path]}[command]
    result = puzzlesat(command, *args, "--time-limit", value)
    assert_one_line_error(result, "--time-limit")


@pytest.mark.parametrize("name", ["a\nb", "a/b", "../x", "", " a", "a b"],
                         ids=["newline", "slash", "dotdot", "empty", "leading space", "space"])
def test_name_with_a_newline_or_slash(tmp_path, puzzlesat, name):
    result = puzzlesat("generate", *EM_SMALL, "--name", name, "-o", tmp_path / "x.cnf")
    assert_one_line_error(result, "--name")
    assert list(tmp_path.iterdir()) == []


def test_piece_value_10_pow_23(tmp_path, puzzlesat):
    (tmp_path / "p.txt").write_text("0\n0 0 1 100000000000000000000000\n")
    (tmp_path / "p.json").write_text('{"pieces": [[0, 0, 1, 100000000000000000000000]]}')
    for name in ("p.txt", "p.json"):
        result = puzzlesat("generate", "edge-matching", "--pieces", tmp_path / name,
                           "-o", tmp_path / "x.cnf")
        assert_one_line_error(result, "does not fit in 32 bits")
    assert not (tmp_path / "x.cnf").exists()


# -- size guard -------------------------------------------------------------------------------
#: past the DIMACS limits: refused with or without --force
BEYOND_LIMITS = {
    "sliding budget 10^8": ("sliding", "--rows", "3", "--cols", "3", "--walk", "8",
                            "--budget", "100000000"),
    "edge matching 300x300": ("edge-matching", "--rows", "300", "--cols", "300",
                              "--border-colors", "3", "--center-colors", "10"),
    "edge matching rows 10^5": ("edge-matching", "--rows", "100000", "--border-colors", "3",
                                "--center-colors", "10"),
    "sliding rows 10^5 direct": ("sliding", "--rows", "100000", "--cols", "2", "--walk", "3",
                                 "--encoding", "direct"),
    "flow width 5000": ("flow", "--width", "5000", "--height", "5000"),
}
#: past the --force threshold only (with --force these would really be built)
PAST_THRESHOLD = {
    "sliding rows 10^5": ("sliding", "--rows", "100000", "--cols", "2", "--walk", "3"),
    "flow past threshold": ("flow", "--width", "5000", "--height", "10", "--colors", "40"),
    "sliding budget 10^6": ("sliding", "--rows", "3", "--cols", "3", "--walk", "8",
                            "--budget", "1000000"),
}
SIZE_CASES = ([(args, "beyond the DIMACS limit", force) for args in BEYOND_LIMITS.values()
               for force in (False, True)]
              + [(args, "pass --force", False) for args in PAST_THRESHOLD.values()])
SIZE_IDS = ([f"{name}{' force' if force else ''}" for name in BEYOND_LIMITS
             for force in (False, True)] + list(PAST_THRESHOLD))


@pytest.mark.parametrize("args, fragment, force", SIZE_CASES, ids=SIZE_IDS)
def test_size_guard_refuses_before_allocating(tmp_path, puzzlesat, monkeypatch, args,
                                             fragment, force):
    """An instance past the size guard is one line with the estimate, before anything is
    encoded. --force lets past the threshold (test below), never past the DIMACS limits."""
    def encode(*args, **kwargs):
        raise AssertionError("an instance past the size guard was encoded")

    monkeypatch.setattr(get_family(args[0]), "encode", encode)
    result = puzzlesat("generate", *args, "-o", tmp_path / "x.cnf",
                       *(["--force"] if force else []))
    assert_one_line_error(result, "estimated", "variables", "clauses", "GB of DIMACS",
                          fragment)
    assert list(tmp_path.iterdir()) == []


def test_force_lets_past_the_threshold(tmp_path, puzzlesat, monkeypatch):
    monkeypatch.setattr("puzzlesat.generator.instance.FORCE_CLAUSES", 10)
    result = puzzlesat("generate", *EM_SMALL, "-o", tmp_path / "x.cnf")
    assert_one_line_error(result, "estimated", "pass --force")
    assert puzzlesat("generate", *EM_SMALL, "-o", tmp_path / "x.cnf", "--force").code == 0


def test_force_in_a_suite(toy, puzzlesat, tmp_path, monkeypatch):
    """A suite's instances are all checked before anything is written."""
    monkeypatch.setattr("puzzlesat.generator.suite.spec.MAX_SUITE_INSTANCES", 3)
    spec = tmp_path / "toy.toml"
    spec.write_bytes(SPEC)
    result = puzzlesat("publish", spec, "-o", tmp_path / "out")
    assert_one_line_error(result, "more than 3", "--force")
    assert not (tmp_path / "out").exists()
    assert puzzlesat("publish", spec, "-o", tmp_path / "out", "--force").code == 0
    assert_one_line_error(puzzlesat("verify", tmp_path / "out"), "--force")  # as publish
    assert puzzlesat("verify", tmp_path / "out", "--force").code == 0


# -- leftovers --------------------------------------------------------------------------------
@pytest.mark.parametrize("witness", ["missing/w.json", "folder"], ids=["no folder", "a folder"])
def test_witness_to_a_bad_path_writes_no_instance(tmp_path, puzzlesat, monkeypatch, witness):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    result = puzzlesat("generate", *EM_SMALL, "-o", "x.cnf", "--witness", witness)
    assert_one_line_error(result, "--witness")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder"]


def test_failed_publish_leaves_no_half_suite(toy, puzzlesat, tmp_path, monkeypatch):
    """A failure in the middle of a fresh publish (here: instance n=40 cannot be built) leaves
    nothing it created: no suite.toml, no empty folders."""
    fail_at_40(toy, monkeypatch)
    spec = tmp_path / "toy.toml"
    spec.write_bytes(SPEC)
    new, empty = tmp_path / "new" / "deeper", tmp_path / "empty"
    empty.mkdir()
    for out in (new, empty):
        result = puzzlesat("publish", spec, "-o", out, "-j", "1")
        assert_one_line_error(result, "cannot build this one")
    assert not (tmp_path / "new").exists()
    assert tree(empty) == {} and list(empty.iterdir()) == []


def test_stale_part_files_are_reported_by_verify_and_removed_by_publish(puzzlesat, published,
                                                                        spec_file):
    """A SIGKILLed publish leaves hidden .part files, named as atomic_file names them (its
    own part_name, 12 hex digits: an earlier pattern of 8 characters missed every one of
    them); a .part file of another name is not publish's and stays."""
    parts = [published / "instances" / part_name("toy-5-r1-unit.cnf.xz", "0123456789ab"),
             published / part_name("manifest.json", "a1b2c3d4e5f6")]
    foreign = published / ".notes.txt.mine.part"
    for part in parts + [foreign]:
        part.write_bytes(b"half")
    result = puzzlesat("verify", published)
    assert result.code == 1
    assert "instances/.toy-5-r1-unit.cnf.xz.0123456789ab.part: not part of the suite" in result.out
    assert ".manifest.json.a1b2c3d4e5f6.part: not part of the suite" in result.out
    assert puzzlesat("publish", spec_file, "-o", published).code == 0
    assert not any(p.exists() for p in parts) and foreign.exists()
    foreign.unlink()
    assert puzzlesat("verify", published).code == 0


def test_no_zero_byte_proof_without_a_proof(tmp_path, puzzlesat):
    """solve --proof wrote a 0-byte proof file after SAT/UNKNOWN."""
    (tmp_path / "i.cnf").write_bytes(GOOD_CNF)
    result = puzzlesat("solve", tmp_path / "i.cnf", "--proof", tmp_path / "p.drat")
    assert result.code == 10
    assert not (tmp_path / "p.drat").exists()
    (tmp_path / "u.cnf").write_bytes(b"p cnf 1 2\n1 0\n-1 0\n")
    assert puzzlesat("solve", tmp_path / "u.cnf", "--proof", tmp_path / "u.drat").code == 20
    assert (tmp_path / "u.drat").exists()


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_files_honour_the_umask(toy, puzzlesat, spec_file, tmp_path, umask, mode):
    """Every file written honours the umask (not tempfile's 0600): published suites are shared."""
    old = os.umask(umask)
    try:
        assert puzzlesat("publish", spec_file, "-o", tmp_path / "out").code == 0
        assert puzzlesat("generate", *EM_SMALL, "-o", tmp_path / "x.cnf.xz").code == 0
    finally:
        os.umask(old)
    files = [p for p in (tmp_path / "out").rglob("*") if p.is_file()] + [tmp_path / "x.cnf.xz"]
    assert {stat.S_IMODE(p.stat().st_mode) for p in files} == {mode}


# -- specs ------------------------------------------------------------------------------------
def _spec_with_pieces(tmp_path) -> tuple:
    """specs/s.toml naming a piece file of its own, specs/my-pieces.txt: (specs, its bytes)."""
    specs = tmp_path / "specs"
    specs.mkdir()
    pieces = (REPO / "generator" / "data" / "edgematch" / "clue1.txt").read_bytes()
    (specs / "my-pieces.txt").write_bytes(pieces)
    (specs / "s.toml").write_bytes(HEAD + b'[[group]]\nfamily = "edge-matching"\n'
                                   b'params = { pieces = "my-pieces.txt" }\n')
    return specs, pieces


def test_spec_relative_pieces_are_read_from_the_spec_folder_and_published(
        tmp_path, puzzlesat, monkeypatch):
    """pieces = "x.txt" is read from the spec's folder (not the current one) and published as
    inputs/x.txt."""
    specs, pieces = _spec_with_pieces(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    out = tmp_path / "out"
    result = puzzlesat("publish", specs / "s.toml", "-o", out, "-j", "1")
    assert result.code == 0, result.err
    assert (out / "inputs" / "my-pieces.txt").read_bytes() == pieces
    assert b'pieces = "inputs/my-pieces.txt"' in (out / "suite.toml").read_bytes()
    assert "inputs/my-pieces.txt" in (out / "SHA256SUMS").read_text()
    assert list(elsewhere.iterdir()) == []
    assert puzzlesat("verify", out).code == 0
    # the header's reproduce command works from the published folder alone
    published = next((out / "instances").iterdir())
    header = lzma.decompress(published.read_bytes()).decode().splitlines()
    words = shlex.split(next(x for x in header if x.startswith("c reproduce: "))[13:])
    monkeypatch.chdir(out)
    assert puzzlesat(*words[1:]).code == 0
    assert (out / published.name).read_bytes() == published.read_bytes()
    # republishing the published folder from its own suite.toml changes nothing
    (out / published.name).unlink()
    before = tree(out)
    assert puzzlesat("publish", out / "suite.toml", "-o", out).code == 0
    assert tree(out) == before


SECRET = b"API_TOKEN=hunter2\n"


def _published_with_pieces(tmp_path, puzzlesat):
    """A suite published with a piece file of its own (inputs/my-pieces.txt)."""
    specs, _ = _spec_with_pieces(tmp_path)
    out = tmp_path / "out"
    assert puzzlesat("publish", specs / "s.toml", "-o", out, "-j", "1").code == 0
    (tmp_path / "secret.txt").write_bytes(SECRET)
    return out


@pytest.mark.parametrize("how", ["absolute", "parent"])
def test_verify_reads_no_input_outside_the_suite_folder(tmp_path, puzzlesat, how):
    """An absolute or ../ input path in a published suite.toml is one line naming the path;
    the file outside is never read, so its content is never shown."""
    out = _published_with_pieces(tmp_path, puzzlesat)
    value = str(tmp_path / "secret.txt") if how == "absolute" else "../secret.txt"
    spec = out / "suite.toml"
    spec.write_bytes(spec.read_bytes().replace(b"inputs/my-pieces.txt", value.encode()))
    result = puzzlesat("verify", out)
    assert_one_line_error(result, "params.pieces", "is not a path inside the folder")
    assert "hunter2" not in result.out + result.err


def test_verify_reads_no_symlink_in_inputs(tmp_path, puzzlesat):
    """A symlink in inputs/ (to a file outside) is one line; its target is never read."""
    out = _published_with_pieces(tmp_path, puzzlesat)
    (out / "inputs" / "my-pieces.txt").unlink()
    (out / "inputs" / "my-pieces.txt").symlink_to(tmp_path / "secret.txt")
    result = puzzlesat("verify", out)
    assert_one_line_error(result, "inputs/my-pieces.txt is a symlink")
    assert "hunter2" not in result.out + result.err


def test_spec_relative_pieces_missing_file(tmp_path, puzzlesat):
    (tmp_path / "s.toml").write_bytes(HEAD + b'[[group]]\nfamily = "edge-matching"\n'
                                      b'params = { pieces = "nope.txt" }\n')
    result = puzzlesat("publish", tmp_path / "s.toml", "-o", tmp_path / "out")
    assert_one_line_error(result, "no such file", "nope.txt", "spec's folder")
    assert not (tmp_path / "out").exists()


def test_empty_spec_is_refused(tmp_path, puzzlesat):
    """An empty spec published an empty suite with exit 0."""
    (tmp_path / "e.toml").write_bytes(HEAD)
    result = puzzlesat("publish", tmp_path / "e.toml", "-o", tmp_path / "out")
    assert_one_line_error(result, "no instances", "nothing to publish")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("group, force, fragment", [
    (b"replicates = 100000000\n", False, "more than 100000"),
    (b"replicates = 1000\nparams = { n = { from = 1, to = 1000 } }\n", False, "more than 100000"),
    (b"replicates = 99999999999999999999\n", False, "more than 100000"),
    (b"replicates = 99999999999999999999\n", True, "even with --force"),
    (b"params = { n = { from = 1, to = 99999999999999999999 } }\n", True, "even with --force"),
    (b"replicates = 2000\nparams = { n = { from = 1, to = 1000 } }\n", True, "even with --force"),
], ids=["replicates 10^8", "grid 10^6", "replicates 10^20", "replicates 10^20 forced",
        "range 10^20 forced", "grid 2x10^6 forced"])
def test_huge_suite_is_counted_before_it_is_built(toy, puzzlesat, tmp_path, monkeypatch, group,
                                                   force, fragment):
    """A suite past the bound is one line before any of its tasks is made; past the hard
    bound --force does not help (the task list is held in memory)."""
    def expand(*args, **kwargs):
        raise AssertionError("a group past the bound was expanded")

    monkeypatch.setattr("puzzlesat.generator.suite.spec._expand_group", expand)
    (tmp_path / "h.toml").write_bytes(HEAD + b"[[group]]\nfamily = 'toy'\n" + group)
    result = puzzlesat("publish", tmp_path / "h.toml", "-o", tmp_path / "out",
                       *(["--force"] if force else []))
    assert_one_line_error(result, fragment)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["solve-suite", "tune"])
def test_a_huge_job_count_is_capped_like_any_other(toy, puzzlesat, tmp_path, monkeypatch,
                                                    command):
    """-j sizes thread pools and the window of calls handed out: 10^20 is capped at a multiple
    of the CPUs, as -j 5000 is (solve-suite and tune ended in a ValueError from islice)."""
    from puzzlesat.validate.runs import processes

    sizes = []
    real = processes.ThreadPoolExecutor

    def counting(max_workers=None, **kwargs):
        sizes.append(max_workers)
        return real(max_workers, **kwargs)

    monkeypatch.setattr(processes, "ThreadPoolExecutor", counting)
    monkeypatch.chdir(tmp_path)
    if command == "solve-suite":
        (tmp_path / "spec.toml").write_bytes(SPEC)
        assert puzzlesat("publish", "spec.toml", "-o", "suite").code == 0
        args = ("solve-suite", "suite", "res", "--time-limit", "60")
    else:
        args = ("tune", "sliding", "--param", "korf=50", "--axis", "k=2..3", "--easy",
                "minisat22:60", "--reference", "cadical195:120", "--no-plot", "-o", "t")
    result = puzzlesat(*args, "-j", "99999999999999999999")
    assert result.code in (0, 1), result.err
    assert "Traceback" not in result.err and sizes and max(sizes) <= 4 * (os.cpu_count() or 1)


@pytest.mark.parametrize("args, fragment", [
    (("--rows", "3", "--cols", "3", "--walk", "1000000000", "--budget", "10"),
     "--walk: must be at most 100000"),
    (("--rows", "9", "--cols", "9", "--walk", "5"), "rows and cols at most 6"),
    (("--rows", "2", "--cols", "7", "--walk", "5", "--budget", "3"), "rows and cols at most 6"),
    (("--start", ",".join(map(str, range(49))),), "rows and cols at most 6"),
], ids=["walk 10^9", "walk on 9x9", "walk on 2x7", "start on 7x7"])
def test_a_sliding_plan_past_its_bound_is_refused_before_it_is_made(tmp_path, puzzlesat,
                                                                    monkeypatch, args, fragment):
    """A random walk of 10^9 moves (with a budget the size guard accepts) ran for minutes, and
    IDA*'s tables for a side of 9 would hold 10^9 entries: each is one line before the walk
    or the tables are made."""
    from puzzlesat.generator.families.sliding import npuzzle

    def made(*args, **kwargs):
        raise AssertionError("the walk or the tables were made")

    monkeypatch.setattr(npuzzle, "random_walk", made)
    monkeypatch.setattr(npuzzle, "_line_conflict_table", made)
    result = puzzlesat("generate", "sliding", *args, "-o", tmp_path / "s.cnf")
    assert_one_line_error(result, fragment)
    assert list(tmp_path.iterdir()) == []

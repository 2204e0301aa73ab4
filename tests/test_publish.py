"""`puzzlesat publish` and `puzzlesat verify` end to end, on the toy family of
test_suite_spec (fast, and independent of the real families' progress)."""

from __future__ import annotations

import errno
import hashlib
import lzma
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, assert_one_line_error
from test_suite_spec import HEAD, toy  # noqa: F401  (fixture)

SPEC = HEAD + b"""
[[group]]
family = "toy"
encodings = ["unit", "twice"]
replicates = 2
params = { n = [5, 40] }

[[group]]
family = "toy"
params = { n = 7, fixed = true }
"""


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "toy.toml"
    path.write_bytes(SPEC)
    return path


def test_same_bytes_with_one_and_two_jobs_and_verify_passes(toy, puzzlesat, spec_file, tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    r1 = puzzlesat("publish", spec_file, "-o", one, "-j", "1")
    r2 = puzzlesat("publish", spec_file, "-o", two, "-j", "2")
    assert r1.code == r2.code == 0, (r1.err, r2.err)
    assert "9 instances (9 sat); built 9, kept 0 unchanged" in r1.out
    a, b = tree(one), tree(two)
    assert a == b
    assert len([f for f in a if f.startswith("instances/")]) == 9
    assert len([f for f in a if f.startswith("witnesses/")]) == 9
    ok = puzzlesat("verify", one, "-j", "2")
    assert ok.code == 0 and "is identical to its regeneration (9 instances" in ok.out, ok.out


def test_published_files_are_consistent(toy, puzzlesat, spec_file, tmp_path):
    out = tmp_path / "out"
    assert puzzlesat("publish", spec_file, "-o", out, "-j", "1").code == 0
    files = tree(out)
    # SHA256SUMS lists every file but itself, with its real hash
    sums = dict(reversed(line.split("  ")) for line in files["SHA256SUMS"].decode().splitlines())
    assert sorted(sums) == sorted(f for f in files if f != "SHA256SUMS")
    assert all(hashlib.sha256(files[f]).hexdigest() == h for f, h in sums.items())
    csv_lines = files["manifest.csv"].decode().splitlines()
    assert csv_lines[0] == ("hash,author,family,result,name,file,encoding,variables,clauses,"
                            "bytes,sha256,seed,params")
    first = csv_lines[1].split(",")
    assert first[1:4] == ["A. Author", "toy", "sat"] and first[6] == "unit"
    text = lzma.decompress(files[first[5]])
    assert f"c instance: {first[4]}".encode() in text and text.endswith(b"0\n")
    assert first[7:9] == ["5", "5"] and int(first[9]) == len(files[first[5]])
    assert files["suite.toml"] == SPEC
    assert "A toy: n variables" in files["description.md"].decode()
    assert r"\documentclass[conference]{IEEEtran}" in files["description.tex"].decode()
    assert 'title: "Toy paper"' in files["CITATION.cff"].decode()
    # the fixed-puzzle group has no seed, so its CSV seed is empty
    assert csv_lines[-1].split(",")[11] == ""


def _rewrite_instance(path: Path, change) -> None:
    path.write_bytes(lzma.compress(change(lzma.decompress(path.read_bytes()))))


def test_header_reproduce_command_regenerates_the_file(toy, puzzlesat, spec_file, tmp_path,
                                                        monkeypatch):
    out = tmp_path / "out"
    assert puzzlesat("publish", spec_file, "-o", out).code == 0
    published = sorted((out / "instances").iterdir())[0]
    header = lzma.decompress(published.read_bytes()).decode().splitlines()
    command = next(line for line in header if line.startswith("c reproduce: "))
    words = shlex.split(command.removeprefix("c reproduce: "))
    assert words[:3] == ["puzzlesat", "generate", "toy"]
    monkeypatch.chdir(tmp_path)
    assert puzzlesat(*words[1:]).code == 0
    assert (tmp_path / published.name).read_bytes() == published.read_bytes()


def negate_last_literal(text: bytes) -> bytes:
    lines = text.rstrip(b"\n").split(b"\n")
    literal = int(lines[-1].split()[0])
    return b"\n".join(lines[:-1] + [f"{-literal} 0".encode()]) + b"\n"


def test_verify_names_each_difference(toy, puzzlesat, spec_file, tmp_path):
    out = tmp_path / "out"
    assert puzzlesat("publish", spec_file, "-o", out).code == 0
    names = sorted((out / "instances").iterdir())
    _rewrite_instance(names[0], negate_last_literal)
    _rewrite_instance(names[1], lambda t: t.replace(b"c expected: SAT", b"c expected: UNSAT"))
    (out / "witnesses" / "extra.json").write_text("{}")
    result = puzzlesat("verify", out)
    assert result.code == 1
    lines = result.out.splitlines()
    rel0, rel1 = (f"instances/{p.name}" for p in names[:2])
    assert any(line.startswith(f"{rel0}: GBD hash ") and "(the clauses differ)" in line
               for line in lines), lines
    assert f"{rel1}: header line 'c expected: UNSAT' differs from regenerated " \
           f"'c expected: SAT'" in lines
    assert "witnesses/extra.json: not part of the suite" in lines
    assert lines[-1].endswith("3 difference(s) from the regenerated suite t 1")


def test_rerun_keeps_good_instances_and_rebuilds_damaged_ones(toy, puzzlesat, spec_file,
                                                               tmp_path):
    out = tmp_path / "out"
    assert puzzlesat("publish", spec_file, "-o", out).code == 0
    before = tree(out)
    names = sorted((out / "instances").iterdir())
    names[0].unlink()
    names[1].write_bytes(names[1].read_bytes()[:20])  # truncated by hand
    result = puzzlesat("publish", spec_file, "-o", out)
    assert "built 2, kept 7 unchanged" in result.out
    assert tree(out) == before


def test_removed_group_removes_its_files(toy, puzzlesat, spec_file, tmp_path):
    out = tmp_path / "out"
    assert puzzlesat("publish", spec_file, "-o", out).code == 0
    spec_file.write_bytes(SPEC.split(b"[[group]]")[0] + b"[[group]]" + SPEC.split(b"[[group]]")[2])
    assert puzzlesat("publish", spec_file, "-o", out).code == 0
    assert sorted(p.name for p in (out / "instances").iterdir()) == ["toy-7-unit.cnf.xz"]
    assert puzzlesat("verify", out).code == 0


# -- interrupted runs -------------------------------------------------------------------------
#: Ctrl-C raises KeyboardInterrupt even when this test runs in a background job (a shell that
#: started it with '&' made SIGINT ignored, and children inherit that: the publish then ran on)
RUNNER = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
          "sys.path.insert(0, {tests!r}); from test_suite_spec import register_toy; "
          "register_toy(); from puzzlesat.cli import main; main(sys.argv[1:])")
BIG = HEAD + b"""
[[group]]
family = "toy"
replicates = 8
params = { n = 40000 }
"""


def _runner(spec: Path) -> list[str]:
    code = RUNNER.format(tests=str(REPO / "tests"))
    return [sys.executable, "-c", code, "publish", str(spec), "-j", "2", "-o"]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """The big suite published without interruption: (spec path, its files)."""
    folder = tmp_path_factory.mktemp("whole")
    spec = folder / "big.toml"
    spec.write_bytes(BIG)
    subprocess.run(_runner(spec) + [str(folder / "out")], check=True, cwd=REPO,
                   capture_output=True)
    return spec, tree(folder / "out")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_killed_publish_leaves_no_partial_file_and_resumes(tmp_path, sig, uninterrupted):
    spec, whole = uninterrupted
    cmd = _runner(spec)
    out = tmp_path / "cut"
    proc = subprocess.Popen(cmd + [str(out)], cwd=REPO, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not list(out.glob("instances/*.xz")) and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == (130 if sig == signal.SIGINT else -signal.SIGKILL), err
    assert not (out / "SHA256SUMS").exists(), "the run was not interrupted mid-way"
    for rel, data in tree(out).items():
        if not Path(rel).name.startswith("."):
            assert data == whole[rel], f"{rel} is partial"
    if sig == signal.SIGINT:
        assert not list(out.rglob(".*.part"))
    subprocess.run(cmd + [str(out)], check=True, cwd=REPO, capture_output=True)
    assert tree(out) == whole


# A pool's workers start as the platform says: fork (Linux up to Python 3.13), forkserver
# (Linux from 3.14), spawn (macOS, Windows). Each must publish the same bytes, and leave no
# worker behind when publish is killed. Workers import the real families (toy is registered
# only in the test process).
START_METHOD_RUNNER = ("import multiprocessing, sys; multiprocessing.set_start_method(sys.argv[1]); "
                       "from puzzlesat.cli import main; main(sys.argv[2:])")
REAL = HEAD + b"""
[[group]]
family = "edge-matching"
replicates = 3
params = { rows = 4, border_colors = 2, center_colors = 2 }
"""


@pytest.fixture(scope="module")
def real_in_one_job(tmp_path_factory):
    folder = tmp_path_factory.mktemp("real")
    (folder / "real.toml").write_bytes(REAL)
    subprocess.run([sys.executable, "-m", "puzzlesat", "publish", str(folder / "real.toml"),
                    "-o", str(folder / "out"), "-j", "1"], check=True, capture_output=True)
    return folder / "real.toml", tree(folder / "out")


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_publish_in_parallel_under_every_start_method(tmp_path, method, real_in_one_job):
    spec, whole = real_in_one_job
    run = subprocess.run([sys.executable, "-c", START_METHOD_RUNNER, method, "publish",
                          str(spec), "-o", str(tmp_path / "out"), "-j", "2"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert tree(tmp_path / "out") == whole


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_no_worker_outlives_a_killed_publish(tmp_path, method):
    spec = tmp_path / "long.toml"
    spec.write_bytes(REAL.replace(b"replicates = 3", b"replicates = 400"))
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-c", START_METHOD_RUNNER, method, "publish",
                             str(spec), "-o", str(out), "-j", "2"],
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while not list(out.glob("instances/*.xz")) and time.monotonic() < deadline \
            and proc.poll() is None:
        time.sleep(0.02)
    assert proc.poll() is None and list(out.glob("instances/*.xz")), "publish is not at work"
    proc.kill()
    proc.wait(timeout=60)
    deadline = time.monotonic() + 10
    while (left := _processes_in_session(proc.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"workers left running: {left}"


def _processes_in_session(session: int) -> list[int]:
    """Live (not zombie) processes of a session, from /proc."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[3]) == session:  # state, ..., session id
            pids.append(int(stat.parent.name))
    return pids


# -- user mistakes ----------------------------------------------------------------------------
@pytest.mark.parametrize("text, fragment", [
    (b"[suite]\nname = \n", "TOML syntax error"),
    (HEAD + b"[[group]]\nfamily = 'toy'\ncolour = 3\n", "unknown key 'colour'"),
    (HEAD + b"[[group]]\nfamily = 'toy'\nparams = { n = -1 }\n", "must be at least 1"),
])
def test_bad_spec_writes_nothing(toy, puzzlesat, tmp_path, text, fragment):
    spec = tmp_path / "bad.toml"
    spec.write_bytes(text)
    result = puzzlesat("publish", spec, "-o", tmp_path / "out")
    assert_one_line_error(result, "bad.toml", fragment)
    assert not (tmp_path / "out").exists()


def test_output_that_is_a_file_or_a_foreign_folder(toy, puzzlesat, spec_file, tmp_path):
    (tmp_path / "file").write_text("x")
    assert_one_line_error(puzzlesat("publish", spec_file, "-o", tmp_path / "file"),
                          "exists and is not a folder")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "notes.txt").write_text("x")
    assert_one_line_error(puzzlesat("publish", spec_file, "-o", tmp_path / "home"),
                          "is not empty and holds no suite.toml")
    assert tree(tmp_path / "home") == {"notes.txt": b"x"}
    assert_one_line_error(puzzlesat("publish", tmp_path / "none.toml", "-o", tmp_path / "o"),
                          "cannot read suite spec")
    assert_one_line_error(puzzlesat("verify", tmp_path / "home"), "holds no suite.toml")


def test_disk_write_error_is_one_line(toy, puzzlesat, spec_file, tmp_path, monkeypatch):
    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    out = tmp_path / "out"
    assert_one_line_error(puzzlesat("publish", spec_file, "-o", out, "-j", "1"),
                          "cannot write", "No space left on device")
    assert tree(out) == {}

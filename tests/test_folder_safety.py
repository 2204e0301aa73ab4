"""Issue 22: the suite folder as a hostile place. Each test is named after a reproducer of the
issue and failed before its fix (noted per test)."""

from __future__ import annotations

import json
import os

import pytest
from conftest import assert_one_line_error
from test_hostile import EM_SMALL, HOLDER, published, spec_file  # noqa: F401  (fixtures)
from test_publish import SPEC, tree
from test_suite_spec import HEAD, fail_at_40, toy  # noqa: F401  (fixture)


# -- names: the safe-name rule is anchored with \Z (``$`` matches before a trailing newline) --
def test_name_with_a_trailing_newline(tmp_path, puzzlesat):
    """Was accepted (SAFE_NAME ended in ``$``)."""
    result = puzzlesat("generate", *EM_SMALL, "--name", "x\n", "-o", tmp_path / "x.cnf")
    assert_one_line_error(result, "--name")
    assert list(tmp_path.iterdir()) == []


def test_suite_named_with_a_trailing_newline(toy, puzzlesat, tmp_path):
    """A suite name ending in a newline ("demo\\n") is refused."""
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
    from puzzlesat.generator.core.executors import JOBS_PER_CPU, cap_jobs

    cap = max(8, JOBS_PER_CPU * os.cpu_count())
    assert cap_jobs(5000) == cap
    assert cap_jobs(5000, 3) == 3
    assert cap_jobs(2, 0) == 1


@pytest.mark.parametrize("address", ["not a url", "http://127.0.0.1:8786"])
def test_dask_scheduler_address_that_is_not_one(published, puzzlesat, address):
    pytest.importorskip("distributed")
    result = puzzlesat("verify", published, "--executor", "dask", "--scheduler", address)
    assert_one_line_error(result, "--scheduler", "not a Dask scheduler address")


# -- wrong answers: validate-suite trusts the instance and the published sums ----------------
def _unsat_claims(published, results):
    results.mkdir()
    for path in (published / "instances").iterdir():
        (results / f"{path.name}.out").write_text("s UNSATISFIABLE\n")


def test_validate_suite_takes_the_expected_result_from_the_instance(published, puzzlesat,
                                                                    tmp_path):
    """sat -> unsat in manifest.csv turned WRONG-ANSWER (exit 3) into UNSAT-UNCHECKED (0)."""
    _unsat_claims(published, tmp_path / "res")
    csv_path = published / "manifest.csv"
    csv_path.write_text(csv_path.read_text().replace(",sat,", ",unsat,"))
    result = puzzlesat("validate-suite", published, tmp_path / "res")
    assert result.code == 3, result.out
    assert "9 instances: 9 WRONG-ANSWER" in result.out


def test_validate_suite_does_not_trust_an_instance_sha256sums_does_not_list(published,
                                                                            puzzlesat, tmp_path):
    """validate-suite checks every instance against SHA256SUMS: a replaced instance is not judged
    like the published one."""
    (tmp_path / "res").mkdir()
    first, second = sorted((published / "instances").iterdir())[:2]
    second.write_bytes(first.read_bytes())
    (published / "instances" / "extra.cnf").write_text("p cnf 1 1\n1 0\n")
    result = puzzlesat("validate-suite", published, tmp_path / "res")
    assert result.code == 3, result.out
    assert (f"MALFORMED {second.name}: instance not trusted: its sha256 is not the one the "
            f"suite's SHA256SUMS lists") in result.out
    assert "MALFORMED extra.cnf: instance not trusted: the suite's SHA256SUMS does not list it" \
        in result.out
    assert "10 instances: 8 UNKNOWN, 2 MALFORMED" in result.out


# -- data loss: a failed republish leaves the published suite as it was ----------------------
CHANGED = SPEC.replace(b'version = "1"', b'version = "2"').replace(
    b"[[group]]", b"[[group]]\nfamily = 'toy'\nparams = { n = 9 }\n\n[[group]]", 1)


@pytest.mark.parametrize("fail_at", [1, 2, 3, 6, 12, -1], ids=lambda n: f"fsync {n}")
def test_republish_on_a_full_disk_keeps_the_old_suite(published, puzzlesat, tmp_path,
                                                      monkeypatch, fail_at):
    """A republish that fails on a full disk leaves the old suite whole: no new suite.toml, inputs/
    or instances beside the old manifest.json and SHA256SUMS (sha256sum -c and verify still
    pass)."""
    import errno

    assert CHANGED != SPEC
    before = tree(published)
    spec = tmp_path / "changed.toml"
    spec.write_bytes(CHANGED)
    calls = []
    real = os.fsync
    if fail_at == -1:  # the last write of the republish: SHA256SUMS
        import shutil

        shutil.copytree(published, tmp_path / "copy")
        monkeypatch.setattr(os, "fsync", lambda fd: calls.append(fd) or real(fd))
        assert puzzlesat("publish", spec, "-o", tmp_path / "copy", "-j", "1").code == 0
        fail_at, calls[:] = len(calls), []

    def filling(fd):
        calls.append(fd)
        if len(calls) >= fail_at:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(os, "fsync", filling)
    assert_one_line_error(puzzlesat("publish", spec, "-o", published, "-j", "1"),
                          "No space left on device")
    monkeypatch.setattr(os, "fsync", real)
    assert tree(published) == before
    assert sorted(p.name for p in published.rglob(".*")) == []
    assert puzzlesat("verify", published).code == 0
    assert puzzlesat("publish", spec, "-o", published).code == 0  # and it goes on from there
    assert puzzlesat("verify", published).code == 0


def test_republish_with_a_build_error_keeps_the_old_suite(published, puzzlesat, tmp_path,
                                                          monkeypatch, toy):
    before = tree(published)
    real = toy.generate
    fail_at_40(toy, monkeypatch)
    spec = tmp_path / "changed.toml"
    spec.write_bytes(CHANGED)
    assert_one_line_error(puzzlesat("publish", spec, "-o", published, "-j", "1"),
                          "cannot build this one")
    monkeypatch.setattr(toy, "generate", real)
    assert tree(published) == before
    assert puzzlesat("verify", published).code == 0


# -- the suite lock --------------------------------------------------------------------------
def test_calibrate_takes_the_suite_lock(published, puzzlesat):
    """calibrate took no lock: a publish meanwhile had its suite.toml reverted."""
    import subprocess
    import sys

    from conftest import REPO

    before = tree(published)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(published)], cwd=REPO,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"locked"
        result = puzzlesat("calibrate", published, "--solvers", "minisat22", "--no-plot",
                           "--time-limit", "5")
        assert_one_line_error(result, "being written by another puzzlesat run",
                              f"pid {holder.pid}")
    finally:
        holder.kill()
        holder.wait()
    assert {k: v for k, v in tree(published).items() if "lock" not in k} == before


# -- deleting only what this tool wrote -----------------------------------------------------
def test_publish_deletes_no_part_file_through_a_symlinked_instances(published, puzzlesat,
                                                                    spec_file, tmp_path):
    """publish deleted every .*.part, through a symlinked instances/ outside the folder."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ".thesis.tex.k2j3ab_9.part").write_text("my draft")
    (published / "instances").rename(tmp_path / "moved")
    (published / "instances").symlink_to(outside)
    (published / ".notes.part").write_text("mine")  # not a name publish gives its files
    assert_one_line_error(puzzlesat("publish", spec_file, "-o", published),
                          "instances is a symlink")
    assert (outside / ".thesis.tex.k2j3ab_9.part").read_text() == "my draft"
    assert (published / ".notes.part").read_text() == "mine"


def test_publish_deletes_no_file_a_tampered_manifest_names(published, puzzlesat, tmp_path):
    """publish deleted any instances/... a tampered manifest listed."""
    (published / "instances" / "notes.txt").write_text("keep me")
    manifest = json.loads((published / "manifest.json").read_text())
    manifest["instances"].append(dict(manifest["instances"][0], file="instances/notes.txt"))
    (published / "manifest.json").write_text(json.dumps(manifest))
    smaller = tmp_path / "smaller.toml"
    smaller.write_bytes(HEAD + b"[[group]]\nfamily = 'toy'\nparams = { n = 7, fixed = true }\n")
    assert puzzlesat("publish", smaller, "-o", published).code == 0
    assert (published / "instances" / "notes.txt").read_text() == "keep me"
    assert puzzlesat("verify", published).out.count("not part of the suite") == 1


@pytest.mark.parametrize("file", ["../../PWNED", "/etc/passwd", "instances/../x",
                                  "instances/a\nb", "instances/.hidden", "witnesses/x"])
def test_publish_refuses_a_manifest_naming_a_file_outside_instances(published, puzzlesat,
                                                                     spec_file, file):
    manifest = json.loads((published / "manifest.json").read_text())
    manifest["instances"][0]["file"] = file
    (published / "manifest.json").write_text(json.dumps(manifest))
    before = tree(published)
    assert_one_line_error(puzzlesat("publish", spec_file, "-o", published),
                          "is not a file in instances/")
    assert tree(published) == before


def test_a_calibration_symlink_is_not_published(published, puzzlesat, spec_file, tmp_path):
    """A calibration-x symlink to a file outside is neither copied into the suite nor listed in
    SHA256SUMS."""
    secret = tmp_path / "secret.txt"
    secret.write_text("private")
    (published / "calibration-x").symlink_to(secret)
    assert puzzlesat("publish", spec_file, "-o", published).code == 0
    assert "calibration-x" not in (published / "SHA256SUMS").read_text()
    assert "private" not in (published / "manifest.json").read_text()
    assert secret.read_text() == "private"


def test_calibrate_deletes_only_its_own_plots(published, puzzlesat):
    """calibrate deleted every calibration-* (and crashed on a folder)."""
    (published / "calibration-notes.txt").write_text("keep me")
    (published / "calibration-data").mkdir()
    (published / "calibration-data" / "run.log").write_text("keep me too")
    result = puzzlesat("calibrate", published, "--solvers", "minisat22", "--no-plot",
                       "--time-limit", "5", "--only", "toy-7-*")
    assert result.code == 0, result.err
    assert (published / "calibration-notes.txt").read_text() == "keep me"
    assert (published / "calibration-data" / "run.log").read_text() == "keep me too"


# -- tampered manifests and calibration tables: one line, exit 2 ------------------------------
def _row_without(key):
    def damage(out):
        manifest = json.loads((out / "manifest.json").read_text())
        del manifest["instances"][0][key]
        (out / "manifest.json").write_text(json.dumps(manifest))
    return damage


def _row_field(key, value):
    def damage(out):
        manifest = json.loads((out / "manifest.json").read_text())
        manifest["instances"][0][key] = value
        (out / "manifest.json").write_text(json.dumps(manifest))
    return damage


def _replace(name, data):
    def damage(out):
        path = out / name
        path.unlink(missing_ok=True)
        if data is None:
            path.mkdir()
        else:
            path.write_bytes(data)
    return damage


def _calibration(text):
    return _replace("calibration.csv", text.encode() if isinstance(text, str) else text)


CAL_HEAD = ("hash,name,file,family,hardness-param,hardness,expected,solver,time-limit,status,"
            "seconds,verdict,reason\n")
MANIFEST_DAMAGE = {
    "no hash column": (_row_without("hash"), "field 'hash'"),
    "no params": (_row_without("params"), "field 'params'"),
    "params a list": (_row_field("params", [1]), "field 'params'"),
    "file ..": (_row_field("file", "../../PWNED"), "is not a file in instances/"),
    "file absolute": (_row_field("file", "/etc/passwd"), "is not a file in instances/"),
    "name with a newline": (_row_field("name", "x\n"), "field 'name'"),
    "200 KB name": (_row_field("name", "x" * 200_000), "field 'name'"),
    "variables a string": (_row_field("variables", "12"), "field 'variables'"),
    "clauses negative": (_row_field("clauses", -1), "field 'clauses'"),
    "no text-sha256": (_row_without("text-sha256"), "field 'text-sha256'"),
    "format neither": (_row_field("format", "qdimacs"), "field 'format'"),
    "optimum not a number": (_row_field("optimum", "1e9"), "field 'optimum'"),
    "manifest a folder": (_replace("manifest.json", None), "not a regular file"),
    "manifest not UTF-8": (_replace("manifest.json", b'{"suite": "\xff"}'), "not UTF-8"),
    "calibration a folder": (_calibration(None), "not a regular file"),
    "calibration not UTF-8": (_calibration(CAL_HEAD.encode() + b"\xff\n"), "not UTF-8"),
    "calibration no columns": (_calibration("hash,name\n"), "no column 'file'"),
    "calibration 200 KB field": (_calibration(CAL_HEAD + "x" * 200_000 + "\n"),
                                 "not a CSV table"),
    "calibration file ..": (_calibration(CAL_HEAD + "0" * 32 + ",a,../x" + ",x" * 10 + "\n"),
                            "is not a file in instances/"),
}


@pytest.mark.parametrize("damage, fragment", MANIFEST_DAMAGE.values(), ids=MANIFEST_DAMAGE)
def test_calibrate_on_a_tampered_manifest_or_table(published, puzzlesat, damage, fragment):
    """KeyError/TypeError/UnicodeDecodeError/IsADirectoryError/csv.Error tracebacks."""
    damage(published)
    result = puzzlesat("calibrate", published, "--solvers", "minisat22", "--no-plot",
                       "--time-limit", "5")
    assert_one_line_error(result, fragment)


def test_interrupted_dask_publish_prints_one_line(tmp_path):
    """Ctrl-C on publish --executor dask printed 4 CancelledError tracebacks (one per worker
    process, and a warning per cancelled task)."""
    import signal
    import subprocess
    import sys
    import time

    from conftest import REPO

    pytest.importorskip("distributed")
    out = tmp_path / "out"
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from puzzlesat.cli import main; main(sys.argv[1:])")
    proc = subprocess.Popen([sys.executable, "-c", code, "publish", str(REPO / "suites" /
                             "demo.toml"), "-o", str(out), "--executor", "dask", "-j", "2"],
                            cwd=REPO, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not list(out.glob("instances/*.xz")) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert not (out / "SHA256SUMS").exists(), "the run was not interrupted mid-way"
    assert [line for line in err.decode().splitlines() if line.strip()] == [
        "puzzlesat: interrupted"]


def test_calibrate_measures_only_the_published_instances(published, puzzlesat):
    """calibrate measured whatever file the manifest named, and judged by its 'result'."""
    first, second = sorted((published / "instances").iterdir())[:2]
    second.write_bytes(first.read_bytes())
    result = puzzlesat("calibrate", published, "--solvers", "minisat22", "--no-plot",
                       "--time-limit", "5")
    assert_one_line_error(result, second.name, "not the one manifest.json lists")
    assert not (published / "calibration.csv").exists()


def test_verify_reads_no_fifo_and_no_symlink(published, puzzlesat, tmp_path):
    """verify neither blocks on a FIFO in place of a published file nor follows a symlink."""
    first, second = sorted((published / "instances").iterdir())[:2]
    first.unlink()
    os.mkfifo(first)
    (tmp_path / "copy").write_bytes(second.read_bytes())
    second.unlink()
    second.symlink_to(tmp_path / "copy")
    result = puzzlesat("verify", published)
    assert result.code == 1
    assert f"instances/{first.name}: cannot read (" in result.out
    assert "is a FIFO, not a regular file)" in result.out
    assert f"instances/{second.name}: cannot read (Too many levels of symbolic links)" \
        in result.out


def test_republish_stopped_before_its_renames_keeps_the_old_sums(published, puzzlesat,
                                                                 tmp_path, monkeypatch):
    """SHA256SUMS (which lists no sum of itself) is written after the kept-back files are renamed
    into place: a run stopped between them never leaves new sums beside old files."""
    import errno

    before = tree(published)
    spec = tmp_path / "changed.toml"
    spec.write_bytes(CHANGED)
    real = os.replace

    def stopping(src, dst):
        if str(src).endswith(".pending.part"):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        real(src, dst)

    monkeypatch.setattr(os, "replace", stopping)
    assert_one_line_error(puzzlesat("publish", spec, "-o", published, "-j", "1"),
                          "cannot write", "Input/output error")
    monkeypatch.setattr(os, "replace", real)
    assert {k: v for k, v in tree(published).items() if ".part" not in k} == before


def test_republish_with_a_changed_input_file(tmp_path, puzzlesat, monkeypatch):
    """A changed piece file of a published suite is built from a temporary folder: the
    published inputs/ file stays until the new manifest stands, and a failed republish leaves
    it as it was."""
    from conftest import REPO

    data = REPO / "generator" / "data" / "edgematch"
    specs, out = tmp_path / "specs", tmp_path / "out"
    specs.mkdir()
    (specs / "p.txt").write_bytes((data / "clue1.txt").read_bytes())
    (specs / "s.toml").write_bytes(HEAD + b'[[group]]\nfamily = "edge-matching"\n'
                                   b'params = { pieces = "p.txt" }\n')
    assert puzzlesat("publish", specs / "s.toml", "-o", out, "-j", "1").code == 0
    before = tree(out)
    (specs / "p.txt").write_bytes((data / "clue2.txt").read_bytes())
    import puzzlesat.generator.suite.publish as publish
    from puzzlesat.generator.core.errors import UserError

    def failing(*args, **kwargs):
        raise UserError("cannot build this one")

    monkeypatch.setattr(publish, "build_task", failing)
    assert_one_line_error(puzzlesat("publish", specs / "s.toml", "-o", out, "-j", "1"),
                          "cannot build this one")
    monkeypatch.undo()
    assert tree(out) == before and not list(out.glob(".*"))
    assert puzzlesat("publish", specs / "s.toml", "-o", out, "-j", "1").code == 0
    assert (out / "inputs" / "p.txt").read_bytes() == (data / "clue2.txt").read_bytes()
    assert not list(out.glob(".*"))
    assert puzzlesat("verify", out).code == 0

"""Hostile inputs of issue 22 (reliability, round 3) that reach the readers: each test named
after its reproducer, each failing before its fix.

A user's mistake ends in one line on stderr and exit code 2 (``assert_one_line_error``); a
solver output that cannot be read is the verdict MALFORMED; whatever a file claims about its
own size, the work done is bounded by what the file holds.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import assert_one_line_error
from test_publish import SPEC
from test_suite_spec import toy  # noqa: F401  (fixture)

from puzzlesat.generator.families import get_family

SLIDING = ("sliding", "--rows", "3", "--cols", "3", "--walk", "8")


# -- wrong answers ------------------------------------------------------------------------------
def test_literal_minus_2_pow_63_in_a_cnf_is_not_a_clause_end(tmp_path, puzzlesat):
    """``1 -9223372036854775808 2 0`` is one malformed clause, never two clauses: a 'p cnf 2 2'
    holding it is refused by validate and show, and no model of it is VERIFIED-SAT."""
    (tmp_path / "i.cnf").write_bytes(b"p cnf 2 2\n1 -9223372036854775808 2 0\n")
    (tmp_path / "o.out").write_bytes(b"1 2 0\n")
    assert_one_line_error(puzzlesat("validate", tmp_path / "i.cnf", tmp_path / "o.out"),
                          "i.cnf", "literal too large")
    assert_one_line_error(puzzlesat("show", tmp_path / "i.cnf"), "literal too large")


# -- huge variable numbers ---------------------------------------------------------------------
HUGE = 2_147_483_000


@pytest.mark.parametrize("cnf, output, proof, verdict", [
    (f"p cnf 2147483640 1\n1 {HUGE} 0\n", f"s SATISFIABLE\nv {HUGE} 0\n", None,
     "VERIFIED-SAT"),
    (f"p cnf 2147483640 1\n1 {HUGE} 0\n", "s SATISFIABLE\nv -1 0\n", None, "WRONG-MODEL"),
    (f"p cnf 2147483640 2\n{HUGE} 0\n-{HUGE} 0\n", "s UNSATISFIABLE\n", "0\n",
     "VERIFIED-UNSAT"),
], ids=["model", "wrong model", "proof"])
def test_huge_variable_numbers_cost_no_memory(tmp_path, cnf, output, proof, verdict):
    """A 40-byte CNF declaring 2**31 - 8 variables and using one near that number: the model check
    and the proof checker follow the literals there are, not the variable numbers (checked
    here with the process's data limited to 1 GB)."""
    (tmp_path / "i.cnf").write_text(cnf)
    (tmp_path / "o.out").write_text(output)
    extra = []
    if proof is not None:
        (tmp_path / "p.drat").write_text(proof)
        extra = ["--proof", str(tmp_path / "p.drat")]
    limit = 1 << 30
    run = subprocess.run(
        [sys.executable, "-m", "puzzlesat", "validate", str(tmp_path / "i.cnf"),
         str(tmp_path / "o.out"), *extra], capture_output=True, text=True, timeout=300,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_DATA, (limit, limit)))
    assert "Traceback" not in run.stderr, run.stderr
    assert run.stdout.startswith(verdict), (run.stdout, run.stderr)


# -- the size guard on headers read back --------------------------------------------------------
@pytest.fixture
def lying_budget(tmp_path, puzzlesat):
    """A 3x3 sliding instance, its solver output, and ``lie(budget)``: a copy whose header
    puzzle claims that budget."""
    assert puzzlesat("generate", *SLIDING, "-o", tmp_path / "s.cnf").code == 0
    (tmp_path / "s.out").write_text(puzzlesat("solve", tmp_path / "s.cnf").out)
    text = (tmp_path / "s.cnf").read_text()

    def lie(budget: int, name: str = "lie.cnf"):
        path = tmp_path / name
        path.write_text(re.sub(r'"budget":\d+', f'"budget":{budget}', text))
        return path

    return tmp_path, lie


@pytest.mark.parametrize("budget, fragment", [
    (200_000, "far more than the file's 358 variables and 2,540 clauses"),
    (100_000_000, "beyond the DIMACS limit"),
], ids=["budget 2e5", "budget 1e8"])
def test_header_budget_decides_no_work(lying_budget, puzzlesat, monkeypatch, budget,
                                       fragment):
    """A header puzzle whose size estimate is far beyond the file's counts is never encoded
    (a budget of 200000 took 17 s and 5.4 GB, 10^8 a MemoryError): the estimate is checked
    first."""
    folder, lie = lying_budget
    lying = lie(budget)

    def encode(*args, **kwargs):
        raise AssertionError("the lying header puzzle was encoded")

    monkeypatch.setattr(get_family("sliding"), "encode", encode)
    result = puzzlesat("validate", lying, folder / "s.out")
    assert result.code == 0 and result.out.startswith("VERIFIED-SAT"), result.out
    assert "puzzle: not decoded: header puzzle: estimated " in result.out
    assert fragment in result.out
    assert_one_line_error(puzzlesat("show", lying), "header puzzle: estimated", fragment)


def test_validate_suite_goes_on_past_a_lying_header_and_memory_error(lying_budget, puzzlesat,
                                                                    monkeypatch):
    """A MemoryError on one instance is that instance's verdict line; validate-suite goes on and
    its table holds every instance."""
    import puzzlesat.validate.campaigns.validate_suite as report

    folder, lie = lying_budget
    suite, results = folder / "suite", folder / "res"
    (suite / "instances").mkdir(parents=True)
    results.mkdir()
    for name in ("a", "b", "c"):
        lie(100_000_000 if name == "c" else 8, f"suite/instances/{name}.cnf")
        (results / f"{name}.cnf.out").write_bytes((folder / "s.out").read_bytes())
    real = report.judge_files

    def starved(instance, *args, **kwargs):
        if instance.name == "b.cnf":
            raise MemoryError
        return real(instance, *args, **kwargs)

    monkeypatch.setattr(report, "judge_files", starved)
    result = puzzlesat("validate-suite", suite, results, "-o", folder / "t.csv")
    assert "MALFORMED b.cnf: out of memory while checking this output" in result.out
    assert result.out.splitlines()[-1] == "3 instances: 2 VERIFIED-SAT, 1 MALFORMED"
    assert result.code == 3
    table = (folder / "t.csv").read_text().splitlines()
    assert [row.split(",")[0] for row in table[1:]] == ["a.cnf", "b.cnf", "c.cnf"]
    assert "not decoded" not in table[1] and "ok" in table[1]


# -- inputs read whole ----------------------------------------------------------------------------
GOOD_CNF = b"p cnf 3 2\n1 -2 0\n2 3 0\n"
GOOD_OUT = b"s SATISFIABLE\nv 1 2 3 0\n"
#: 1 MB of comment lines, compressed once; copies of a stream are one valid archive
BOMB_PIECE = b"c x\n" * (1 << 18)


def bomb(kind: str, megabytes: int, head: bytes = b"") -> bytes:
    """An archive of ``head`` and ``megabytes`` MB of comments: a few KB per 100 MB."""
    from puzzlesat.generator.core.files import compress

    return compress(head, kind) + compress(BOMB_PIECE, kind) * megabytes


@pytest.mark.parametrize("kind", ["xz", "gz", "bz2"])
def test_compressed_output_bomb_is_malformed_at_its_bound(tmp_path, puzzlesat, kind):
    """A 229 KB xz solver output took 4.6 GB, then a traceback: an output is bounded by its
    model's text plus 16 MB of comments, and inflated no further."""
    import resource

    (tmp_path / "i.cnf").write_bytes(GOOD_CNF)
    (tmp_path / "o.out").write_bytes(bomb(kind, 200, b"s SATISFIABLE\n"))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = puzzlesat("validate", tmp_path / "i.cnf", tmp_path / "o.out")
    assert result.code == 3 and result.err == ""
    assert result.out.startswith("MALFORMED") and "longer than 16,777," in result.out
    assert "the most output can hold" in result.out
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before  # KB
    assert grown < 100_000


@pytest.mark.parametrize("kind", ["xz", "gz", "bz2"])
def test_compressed_instance_bomb_stops_at_its_p_line_bound(tmp_path, puzzlesat, kind):
    (tmp_path / "i.cnf.x").write_bytes(bomb(kind, 100, GOOD_CNF))
    (tmp_path / "o.out").write_bytes(GOOD_OUT)
    result = puzzlesat("validate", tmp_path / "i.cnf.x", tmp_path / "o.out")
    assert_one_line_error(result, "i.cnf.x: longer than 67,108,", "the p line 'p cnf 3 2'")


def test_p_line_promise_allocates_nothing(tmp_path, puzzlesat):
    """The 25-byte CNF 'p cnf 2147483647 1' wanted more than 12 GB (a truth table of 2V+1
    entries): tables are sized by the literals read."""
    import resource

    (tmp_path / "i.cnf").write_bytes(b"p cnf 2147483647 1\n1 0\n")
    (tmp_path / "o.out").write_bytes(b"s SATISFIABLE\nv 1 0\n")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = puzzlesat("validate", tmp_path / "i.cnf", tmp_path / "o.out")
    assert result.out.startswith("VERIFIED-SAT") and "1 of 2147483647 variables" in result.out
    assert puzzlesat("show", tmp_path / "i.cnf").code == 0
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KB


def _special(tmp_path, kind):
    if kind == "fifo":
        os.mkfifo(tmp_path / "special")
        return tmp_path / "special", "is a FIFO, not a regular file"
    if kind == "folder":
        (tmp_path / "special").mkdir()
        return tmp_path / "special", "is a folder, not a regular file"
    return Path("/dev/zero"), "is a character device, not a regular file"


SPECIALS = ["fifo", "folder", "/dev/zero"]


@pytest.mark.parametrize("kind", SPECIALS)
@pytest.mark.parametrize("role", ["instance", "output", "show"])
def test_special_file_as_an_input_is_refused(tmp_path, puzzlesat, role, kind):
    """/dev/zero as instance, output or for show read forever; a FIFO blocked."""
    special, fragment = _special(tmp_path, kind)
    (tmp_path / "i.cnf").write_bytes(GOOD_CNF)
    (tmp_path / "o.out").write_bytes(GOOD_OUT)
    args = {"instance": ("validate", special, tmp_path / "o.out"),
            "output": ("validate", tmp_path / "i.cnf", special),
            "show": ("show", special)}[role]
    assert_one_line_error(puzzlesat(*args), f"{'output' if role == 'output' else 'instance'} "
                                            f"{special} {fragment}")


# -- deep nesting, non-UTF-8, long numbers: one JSON and one TOML loader ------------------------
DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_TOML = "x = " + "[" * 100_000 + "]" * 100_000 + "\n"


def _header_with(tmp_path, puzzlesat, key: str, value: bytes):
    assert puzzlesat("generate", *SLIDING, "-o", tmp_path / "s.cnf").code == 0
    lines = [b"c " + key.encode() + b": " + value if line.startswith(f"c {key}:".encode())
             else line for line in (tmp_path / "s.cnf").read_bytes().split(b"\n")]
    (tmp_path / "h.cnf").write_bytes(b"\n".join(lines))
    (tmp_path / "s.out").write_text(puzzlesat("solve", tmp_path / "s.cnf").out)
    return tmp_path / "h.cnf"


@pytest.mark.parametrize("key, value, fragment", [
    ("puzzle", DEEP_JSON.encode(), "nested deeper than 32 levels"),
    ("params", b'{"a":' * 40 + b"1" + b"}" * 40, "nested deeper than 32 levels"),
    ("seed", b"1" * 5000, "Exceeds the limit (4300 digits)"),
], ids=["puzzle 10^5 deep", "params 40 deep", "seed of 5000 digits"])
@pytest.mark.parametrize("command", ["validate", "show", "validate-suite"])
def test_hostile_json_in_a_header(tmp_path, puzzlesat, command, key, value, fragment):
    """RecursionError (or ValueError) tracebacks in validate, show and validate-suite."""
    cnf = _header_with(tmp_path, puzzlesat, key, value)
    where = f"h.cnf: header line 'c {key}:': not valid JSON ("
    if command == "validate-suite":
        (tmp_path / "suite" / "instances").mkdir(parents=True)
        cnf.rename(tmp_path / "suite" / "instances" / "h.cnf")
        (tmp_path / "res").mkdir()
        (tmp_path / "s.out").rename(tmp_path / "res" / "h.cnf.out")
        result = puzzlesat("validate-suite", tmp_path / "suite", tmp_path / "res")
        assert result.code == 3 and "Traceback" not in result.err
        assert "MALFORMED h.cnf: " in result.out and where in result.out
        assert fragment in result.out
        return
    args = (cnf, tmp_path / "s.out") if command == "validate" else (cnf,)
    assert_one_line_error(puzzlesat(command, *args), where, fragment)


def test_non_utf8_and_a_200_kb_field_in_a_header(tmp_path, puzzlesat):
    """A 200 KB family name of non-UTF-8 bytes is one short line in show's error and in
    validate's note (the field is clipped, not repeated whole)."""
    cnf = _header_with(tmp_path, puzzlesat, "family", b"\xff" * 200_000)
    result = puzzlesat("show", cnf)
    assert_one_line_error(result, "unknown family")
    assert len(result.err) < 500
    result = puzzlesat("validate", cnf, tmp_path / "s.out")
    assert result.code == 0 and "not decoded: unknown family" in result.out
    assert len(result.out) < 1000


@pytest.mark.parametrize("suffix, text, fragment", [
    (".json", "{\"pieces\": " + DEEP_JSON + "}", "not valid JSON (nested deeper than 32 levels)"),
    (".json", '{"pieces": ' + "[" * 50 + "]" * 50 + "}", "nested deeper than 32 levels"),
    (".txt", DEEP_JSON, "expected integers, got '[[[["),
    (".json", b'{"pieces": "\xff"}', "not UTF-8 text (byte 0xff at offset 12)"),
    (".txt", b"0\n1 2 3 \xff\n", "not UTF-8 text (byte 0xff at offset 8)"),
], ids=["json 10^5 deep", "json 50 deep", "text of brackets", "json not UTF-8",
        "text not UTF-8"])
def test_hostile_piece_file(tmp_path, puzzlesat, suffix, text, fragment):
    path = tmp_path / f"p{suffix}"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    result = puzzlesat("generate", "edge-matching", "--pieces", path, "-o", tmp_path / "x.cnf")
    assert_one_line_error(result, fragment)
    assert len(result.err) < 500
    assert not (tmp_path / "x.cnf").exists()


@pytest.mark.parametrize("name, text, fragment", [
    ("l.json", DEEP_JSON, "not valid JSON (nested deeper than 32 levels)"),
    ("l.json", '{"rows": ' + "[" * 40 + "]" * 40 + "}", "nested deeper than 32 levels"),
    ("l.txt", b"A.A\n\xff..\n", "not UTF-8 text (byte 0xff at offset 4)"),
], ids=["json 10^5 deep", "json 40 deep", "text not UTF-8"])
def test_hostile_flow_level(tmp_path, puzzlesat, name, text, fragment):
    (tmp_path / name).write_bytes(text if isinstance(text, bytes) else text.encode())
    result = puzzlesat("generate", "flow", "--puzzle", tmp_path / name, "-o", tmp_path / "x.cnf")
    assert_one_line_error(result, fragment)


@pytest.mark.parametrize("text, fragment", [
    (DEEP_TOML, "not valid TOML (nested deeper than 32 levels)"),
    ("x = " + "{a = " * 100_000 + "1" + "}" * 100_000 + "\n", "nested deeper than 32 levels"),
], ids=["array 10^5 deep", "inline tables 10^5 deep"])
def test_hostile_spec(tmp_path, puzzlesat, text, fragment):
    (tmp_path / "s.toml").write_bytes(text if isinstance(text, bytes) else text.encode())
    result = puzzlesat("publish", tmp_path / "s.toml", "-o", tmp_path / "out")
    assert_one_line_error(result, "s.toml: ", fragment)
    assert not (tmp_path / "out").exists()


@pytest.fixture
def published(toy, puzzlesat, tmp_path):
    spec = tmp_path / "toy.toml"
    spec.write_bytes(SPEC)
    out = tmp_path / "out"
    assert puzzlesat("publish", spec, "-o", out).code == 0
    return spec, out


@pytest.mark.parametrize("file, text", [
    ("suite.toml", DEEP_TOML), ("manifest.json", DEEP_JSON),
])
@pytest.mark.parametrize("command", ["verify", "publish", "calibrate", "submission"])
def test_hostile_published_suite_toml_or_manifest(published, puzzlesat, command, file, text):
    spec, out = published
    (out / file).write_text(text)
    args = {"verify": ("verify", out), "publish": ("publish", spec, "-o", out),
            "calibrate": ("calibrate", out, "--solvers", "minisat22", "--no-plot"),
            "submission": ("submission", out)}[command]
    result = puzzlesat(*args)
    if command == "verify" and file == "manifest.json":  # verify regenerates, then compares
        assert result.code == 1 and "Traceback" not in result.err
        assert result.out.startswith("manifest.json: line 1 is ")
        return
    if command == "publish":  # not this suite's folder
        assert_one_line_error(result, f"holds a {file}", "refusing to publish into it")
        return
    assert_one_line_error(result, f"{file}: not valid {'TOML' if file.endswith('toml') else 'JSON'}"
                                  f" (nested deeper than 32 levels)")


# -- signals during generate ----------------------------------------------------------------------
BIG_EM = ("edge-matching", "--rows", "16", "--cols", "16", "--border-colors", "3",
          "--center-colors", "10", "--encoding", "all")  # 92 MB of DIMACS in about 0.5 s


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("witness", [False, True], ids=["instance", "with witness"])
def test_stop_signal_during_generate_leaves_no_part(tmp_path, stop, witness):
    """SIGTERM or SIGHUP while generate writes stops the run as Ctrl-C does: no .part is left, one
    line, exit 128 + the signal's number."""
    import signal
    import subprocess
    import sys

    number = getattr(signal, stop)
    args = [sys.executable, "-m", "puzzlesat", "generate", *BIG_EM, "-o", "big.cnf"]
    if witness:
        args += ["--witness", "big.json"]
    child = subprocess.Popen(args, cwd=tmp_path, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not any(p.suffix == ".part" for p in tmp_path.iterdir()):
        assert child.poll() is None and time.monotonic() < deadline, "no .part seen"
        time.sleep(0.002)
    child.send_signal(number)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 128 + number, err
    assert err.decode().strip() == f"puzzlesat: stopped by {stop}"
    assert list(tmp_path.iterdir()) == []


def test_stop_signal_in_the_two_process_writer(tmp_path, puzzlesat, monkeypatch):
    """SIGTERM while the two-process writer works: the child is stopped, the .part removed."""
    import signal

    from puzzlesat.generator.core import parallel
    from puzzlesat.generator.core.writer import RunWriter

    monkeypatch.setattr(parallel, "_two_processes_pay", lambda formula: True)
    parent, real = os.getpid(), RunWriter.write_blocks

    def write_blocks(self, blocks):
        if os.getpid() == parent:  # this process's part: stopped half-way
            os.kill(parent, signal.SIGTERM)
        return real(self, blocks)

    monkeypatch.setattr(RunWriter, "write_blocks", write_blocks)
    result = puzzlesat("generate", *BIG_EM, "-o", tmp_path / "big.cnf")
    assert result.code == 143 and result.err == "puzzlesat: stopped by SIGTERM\n"
    assert list(tmp_path.iterdir()) == []
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


# -- the same file twice, symlinks and special files as outputs -----------------------------------
def test_output_and_witness_name_the_same_file(tmp_path, puzzlesat, monkeypatch):
    """-o X --witness X wrote the instance, then the witness over it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "keep").write_text("old")
    for witness in ("X", "./X", str(tmp_path / "X")):
        result = puzzlesat("generate", *SLIDING, "-o", "X", "--witness", witness)
        assert_one_line_error(result, "-o and --witness name the same file")
    os.symlink("keep", tmp_path / "alias")
    assert_one_line_error(puzzlesat("generate", *SLIDING, "-o", "keep", "--witness", "alias"),
                          "name the same file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alias", "keep"]
    assert (tmp_path / "keep").read_text() == "old"


@pytest.mark.parametrize("args, fragment", [
    (("validate", "i.cnf", "i.cnf"), "the instance and the output name the same file"),
    (("validate", "i.cnf", "link"), "the instance and the output name the same file"),
    (("validate", "i.cnf", "o.out", "--proof", "o.out"), "the output and the proof name"),
    (("show", "i.cnf", "--svg", "i.cnf"), "the instance and --svg name the same file"),
], ids=["validate X X", "validate X link-to-X", "output as proof", "show --svg X X"])
def test_one_file_named_twice(tmp_path, puzzlesat, monkeypatch, args, fragment):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "i.cnf").write_bytes(GOOD_CNF)
    (tmp_path / "o.out").write_bytes(GOOD_OUT)
    os.symlink("i.cnf", tmp_path / "link")
    assert_one_line_error(puzzlesat(*args), fragment)
    assert (tmp_path / "i.cnf").read_bytes() == GOOD_CNF


@pytest.mark.parametrize("kind", ["symlink", "fifo", "folder"])
@pytest.mark.parametrize("role", ["-o", "--witness", "--svg", "table"])
def test_symlink_or_special_file_as_an_output(tmp_path, puzzlesat, monkeypatch, role, kind):
    """A symlink, FIFO or device named as an output is refused, never replaced by a regular file
    (the link kept, its target not written)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "target").write_text("mine")
    if kind == "symlink":
        os.symlink("target", tmp_path / "out")
        fragment = "out is a symlink: name the file itself"
    elif kind == "fifo":
        os.mkfifo(tmp_path / "out")
        fragment = "out is a FIFO, not a regular file"
    else:
        (tmp_path / "out").mkdir()
        fragment = "out is a folder, not a regular file"
    (tmp_path / "s").mkdir()
    (tmp_path / "r").mkdir()
    if role == "table":
        os.rename(tmp_path / "out", tmp_path / "out.csv")
        (tmp_path / "s" / "instances").mkdir()
        args = ("validate-suite", "s", "r", "-o", "out.csv")
        fragment = fragment.replace("out ", "out.csv ")
    elif role == "--svg":
        (tmp_path / "i.cnf").write_bytes(GOOD_CNF)
        args = ("show", "i.cnf", "--svg", "out")
    else:
        args = ("generate", *SLIDING, *(("-o", "out") if role == "-o" else
                                        ("-o", "x.cnf", "--witness", "out")))
    before = sorted(p.name for p in tmp_path.iterdir())
    assert_one_line_error(puzzlesat(*args), fragment)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert (tmp_path / "target").read_text() == "mine"


def test_verdict_table_over_a_file_of_the_suite(tmp_path, puzzlesat):
    (tmp_path / "s" / "instances").mkdir(parents=True)
    (tmp_path / "s" / "manifest.csv").write_text("hash,result\n")
    (tmp_path / "r").mkdir()
    result = puzzlesat("validate-suite", tmp_path / "s", tmp_path / "r", "-o",
                       tmp_path / "s" / "manifest.csv")
    assert_one_line_error(result, "would overwrite a file of the suite")
    assert (tmp_path / "s" / "manifest.csv").read_text() == "hash,result\n"

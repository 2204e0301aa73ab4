"""An external solver as the client (issue 20): ``--solver-command`` on ``solve`` and
``solve-suite``, with a fake solver written here (answers, time-outs, crashes, garbage, a
child left behind, stderr) and the real Kissat binary of ``passagemath-kissat`` when it is
installed (binary DRAT by default, text with ``--no-binary``)."""

from __future__ import annotations

import csv
import json
import shlex
import sys
import tracemalloc
from pathlib import Path

import pytest
from conftest import assert_one_line_error, kissat
from pysat.examples.genhard import PHP
from test_solver_runs import HARD, SAT_CNF, UNSAT_CNF, suite, wait_gone

from puzzlesat.generator.core.files import compress
from puzzlesat.generator.core.save import write_instance
from puzzlesat.generator.instance import build
from puzzlesat.validate.answers import output_bound, sat_status
from puzzlesat.validate.runs import command as command_module
from puzzlesat.validate.runs.limits import TimeLimit

FAKE = r'''
import os, sys, time
mode, cnf = sys.argv[1], sys.argv[2]
proof = sys.argv[3] if len(sys.argv) > 3 else None
first = open(cnf, "rb").readline().decode().strip()
print(f"c fake solver read {cnf}: {first}", flush=True)
print("s UNSATISFIABLE: this is stderr", file=sys.stderr, flush=True)
if mode == "sat":
    print("s SATISFIABLE\nv 1 2 3 0")
    sys.exit(10)
if mode == "unsat":
    if proof:
        open(proof, "w").write("1 0\n0\n")
    print("s UNSATISFIABLE")
    sys.exit(20)
if mode == "symlink-proof":  # the proof left as a symlink to a file elsewhere
    os.symlink(os.environ["SECRET_FILE"], proof)
    print("s UNSATISFIABLE")
    sys.exit(20)
if mode == "big-proof":  # 32 MB of comment lines before the refutation
    with open(proof, "w") as out:
        for _ in range(32):
            out.write(("c " + "x" * 1021 + "\n") * 1024)
        out.write("1 0\n0\n")
    print("s UNSATISFIABLE")
    sys.exit(20)
if mode == "wrong-exit":
    print("s SATISFIABLE\nv 1 2 3 0")
    sys.exit(20)
if mode == "crash":
    print("s SATISFIABLE\nv 1", flush=True)
    os.abort()
if mode == "garbage":
    sys.stdout.buffer.write(b"\xff\xfe hello\n")
    sys.exit(0)
if mode == "daemon":  # a grandchild in its own session, then exit
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            open(sys.argv[3] + ".part", "w").write(str(os.getpid()))
            os.rename(sys.argv[3] + ".part", sys.argv[3])
            time.sleep(1000)
        os._exit(0)
    while not os.path.exists(sys.argv[3]):
        time.sleep(0.01)
    print("s UNKNOWN")
    sys.exit(0)
if mode in ("flood", "flood-stderr"):  # without end
    out = sys.stdout if mode == "flood" else sys.stderr
    while True:
        out.buffer.write(b"c " + b"x" * 65536 + b"\n")
if mode == "sleep":  # and a grandchild in the same process group
    pid = os.fork()
    if pid == 0:
        time.sleep(1000)
    open(sys.argv[3] + ".part", "w").write(str(pid))
    os.rename(sys.argv[3] + ".part", sys.argv[3])
    time.sleep(1000)
if mode == "spin":  # a grandchild in the same process group burns CPU; the solver sleeps
    pid = os.fork()
    if pid == 0:
        while True:
            pass
    open(sys.argv[3] + ".part", "w").write(str(pid))
    os.rename(sys.argv[3] + ".part", sys.argv[3])
    time.sleep(1000)
'''


@pytest.fixture
def fake(tmp_path):
    """A --solver-command running the fake solver in MODE: fake(mode, *more words)."""
    script = tmp_path / "fake_solver.py"
    script.write_text(FAKE)

    def command(mode: str, *more: str) -> str:
        return shlex.join([sys.executable, str(script), mode, "{cnf}", *more])

    return command


def test_an_answer_read_from_a_plain_temporary_cnf(tmp_path, puzzlesat, fake):
    (tmp_path / "s.cnf.xz").write_bytes(compress(SAT_CNF, "xz"))
    result = puzzlesat("solve", tmp_path / "s.cnf.xz", "--solver-command", fake("sat"))
    assert result.code == 10, result.err
    lines = result.out.splitlines()
    assert lines[0] == f"c solver: {Path(sys.executable).name}"
    assert lines[1] == f"c command: {fake('sat')}"
    assert lines[2].startswith("c time: ") and lines[3].startswith("c wall-time: ")
    read = lines[4]
    assert read.endswith(": p cnf 3 2")  # decompressed
    assert lines[5:] == ["s SATISFIABLE", "v 1 2 3 0"]  # stdout as it is, stderr apart
    assert "stderr" not in result.out
    temporary = Path(read.split(" read ")[1].rsplit(":", 2)[0])
    assert not temporary.exists() and not temporary.parent.exists()
    (tmp_path / "s.out").write_text(result.out)
    assert puzzlesat("validate", tmp_path / "s.cnf.xz", tmp_path / "s.out").code == 0


def test_the_cpu_limit_counts_the_whole_process_group(tmp_path, puzzlesat, fake):
    """A solver whose CPU is burnt by a child in its process group is stopped once the group
    has used the CPU limit, and the time printed is that CPU, not wall time."""
    (tmp_path / "s.cnf").write_bytes(SAT_CNF)
    pid_file = tmp_path / "child.pid"
    result = puzzlesat("solve", tmp_path / "s.cnf", "--time-limit", "1",
                       "--solver-command", fake("spin", str(pid_file)))
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[-1] == "s UNKNOWN"
    assert "c CPU limit of 1 s reached: the solver was killed" in lines
    took = float(next(line for line in lines if line.startswith("c time: ")).split()[-1])
    assert 1 <= took < 3.2  # polled every 0.25 s at most; RLIMIT_CPU is the backstop at 3 s
    assert wait_gone({int(pid_file.read_text())}) == set()


def test_the_wall_clock_backstop_kills_the_whole_process_group(tmp_path, puzzlesat, fake):
    """A solver that uses no CPU (asleep, blocked) ends at the wall-clock backstop (10x the CPU
    limit + 10 s), its sleeping grandchild with it. On a loaded machine the fake may not have started
    its grandchild in time: then the run is repeated with twice the limit."""
    (tmp_path / "s.cnf").write_bytes(SAT_CNF)
    pid_file = tmp_path / "child.pid"
    limit = 1
    while True:
        result = puzzlesat("solve", tmp_path / "s.cnf", "--time-limit", str(limit),
                           "--solver-command", fake("sleep", str(pid_file)))
        assert result.code == 0
        lines = result.out.splitlines()
        assert lines[-1] == "s UNKNOWN"
        assert (f"c wall-clock backstop limit of {10 * limit + 10} s reached: the solver was "
                "killed" in lines)
        took = float(next(line for line in lines if line.startswith("c time: ")).split()[-1])
        assert took < limit  # asleep: its CPU time stays below the CPU limit
        wall = float(next(line for line in lines if line.startswith("c wall-time: "))
                     .split()[-1])
        assert 10 * limit + 10 <= wall < 10 * limit + 60  # room for a busy machine's kill
        if pid_file.exists() or limit >= 4:
            break
        limit *= 2
    # killed (SIGKILL sent to the group) before solve returned; dying may take a moment more
    assert wait_gone({int(pid_file.read_text())}) == set()


def test_a_daemon_the_solver_leaves_behind_is_killed(tmp_path, puzzlesat, fake):
    """A descendant in a session of its own escapes the process group, not the run's mark."""
    (tmp_path / "s.cnf").write_bytes(SAT_CNF)
    pid_file = tmp_path / "daemon.pid"
    result = puzzlesat("solve", tmp_path / "s.cnf", "--solver-command",
                       fake("daemon", str(pid_file)))
    assert result.code == 0 and result.out.splitlines()[-1] == "s UNKNOWN"
    assert wait_gone({int(pid_file.read_text())}) == set()


@pytest.mark.parametrize("mode", ["flood", "flood-stderr"])
def test_a_solver_flooding_stdout_or_stderr_is_killed(tmp_path, puzzlesat, fake, monkeypatch,
                                                      mode):
    """Output without end fills the disk long before a time limit (here one only to bound a
    regression): past MAX_OUTPUT bytes the solver is killed and nothing of it is kept."""
    monkeypatch.setattr(command_module, "MAX_OUTPUT", 1 << 20)
    (tmp_path / "s.cnf").write_bytes(SAT_CNF)
    result = puzzlesat("solve", tmp_path / "s.cnf", "--time-limit", "600",
                       "--solver-command", fake(mode))
    assert result.code == 0
    assert result.out.splitlines()[-4] == (
        f"c the solver wrote more than {1 << 20} bytes to stdout or stderr: killed, its "
        "output not kept")
    assert result.out.splitlines()[-1] == "s UNKNOWN" and len(result.out) < 1000


@pytest.mark.parametrize("mode, note", [
    ("crash", "c solver killed by SIGABRT (stderr: s UNSATISFIABLE: this is stderr)"),
    ("garbage", "c the output does not parse: not ASCII text (byte 0xff at offset "),
])
def test_crashes_and_garbage_are_kept_for_the_validator(tmp_path, puzzlesat, fake, mode, note):
    suite_dir = suite(tmp_path, SAT_CNF)
    run = puzzlesat("solve-suite", suite_dir, tmp_path / "r", "--solver-command", fake(mode))
    assert run.code == 0 and run.out.strip() == "0 SAT, 0 UNSAT, 1 UNKNOWN"
    out = (tmp_path / "r" / "i0.cnf.xz.out").read_bytes()
    assert any(line.startswith(note.encode()) for line in out.splitlines()), out
    assert out.endswith({"crash": b"s SATISFIABLE\nv 1\n", "garbage": b"\xff\xfe hello\n"}[mode])
    checked = puzzlesat("validate-suite", suite_dir, tmp_path / "r")
    assert checked.code == 3 and checked.out.startswith("MALFORMED i0.cnf.xz: ")


def test_an_exit_code_that_disagrees_is_noted(tmp_path, puzzlesat, fake):
    (tmp_path / "s.cnf").write_bytes(SAT_CNF)
    result = puzzlesat("solve", tmp_path / "s.cnf", "--solver-command", fake("wrong-exit"))
    assert result.code == 10
    assert "c exit code 20 disagrees with the s line (SAT)" in result.out.splitlines()


def test_proofs_of_a_suite_are_checked_in_parallel(tmp_path, puzzlesat, fake):
    suite_dir, results = suite(tmp_path, UNSAT_CNF, SAT_CNF, UNSAT_CNF), tmp_path / "r"
    run = puzzlesat("solve-suite", suite_dir, results, "-j", "2", "--proof",
                    "--solver-command", fake("unsat", "{proof}"))
    assert run.code == 0 and run.out.strip() == "0 SAT, 3 UNSAT, 0 UNKNOWN"
    assert (results / "i0.cnf.xz.drat").read_bytes() == b"1 0\n0\n"
    checked = puzzlesat("validate-suite", suite_dir, results, "-j", "2", "-o", tmp_path / "v.csv")
    rows = [(r["instance"], r["verdict"]) for r in csv.DictReader(open(tmp_path / "v.csv"))]
    assert rows[0] == ("i0.cnf.xz", "VERIFIED-UNSAT") and rows[2] == ("i2.cnf.xz", "VERIFIED-UNSAT")
    assert rows[1][1] == "WRONG-PROOF"  # the fake's proof does not refute a SAT formula
    assert checked.code == 3


def test_a_large_proof_goes_to_its_file_in_pieces(tmp_path, fake):
    """A solver's proof is copied where it was asked to go a megabyte at a time, never read whole
    into memory (a proof may be many GB)."""
    command = command_module.SolverCommand.parse(fake("big-proof", "{proof}"))
    tracemalloc.start()
    try:
        run = command_module.run_command(command, [UNSAT_CNF], TimeLimit(60),
                                         sat_status, output_bound(2),
                                         proof_to=tmp_path / "u.drat")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert run.status == "UNSAT", run.notes
    proof = (tmp_path / "u.drat").read_bytes()
    assert len(proof) == 32 * 1024 * 1024 + 6 and proof.endswith(b"\n1 0\n0\n")
    assert peak < 4 << 20, peak


def test_a_proof_left_as_a_symlink_is_never_copied(tmp_path, fake, monkeypatch):
    """Only a regular file at {proof} is copied to the proof's destination: a symlink there
    (to a file the solver did not write) is not followed, and the run says so."""
    secret = tmp_path / "secret.txt"
    secret.write_text("API_TOKEN=hunter2\n")
    monkeypatch.setenv("SECRET_FILE", str(secret))
    command = command_module.SolverCommand.parse(fake("symlink-proof", "{proof}"))
    run = command_module.run_command(command, [UNSAT_CNF], TimeLimit(60), sat_status,
                                     output_bound(2), proof_to=tmp_path / "u.drat")
    assert run.status == "UNSAT"
    assert not (tmp_path / "u.drat").exists()
    assert any("wrote no proof file" in note and "symlink is never followed" in note
               for note in run.notes), run.notes


def test_a_proof_placeholder_without_proof_is_discarded(tmp_path, puzzlesat, fake):
    (tmp_path / "u.cnf").write_bytes(UNSAT_CNF)
    result = puzzlesat("solve", tmp_path / "u.cnf", "--solver-command", fake("unsat", "{proof}"))
    assert result.code == 20
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake_solver.py", "u.cnf"]


@pytest.mark.parametrize("args, fragment", [
    (("--solver-command", "kissat {cnf} {prof}"), "unknown placeholder {prof}"),
    (("--solver-command", "kissat in.cnf"), "must name the instance file: {cnf}"),
    (("--solver-command", "kissat '{cnf}"), "No closing quotation"),
    (("--solver-command", "kissat {cnf"), "unbalanced brace"),
    (("--solver-command", ""), "--solver-command is empty"),
    (("--solver-command", "sh --time={timeout} {cnf}"), "uses {timeout}: give --time-limit"),
    (("--solver-command", "sh {cnf}", "--solver", "minisat22"), "not both"),
    (("--solver-command", "./nowhere/kissat {cnf}"), "not an executable program"),
    (("--solver-command", "./{cnf} {cnf}"), "the program './{cnf}' cannot hold a placeholder"),
    (("--solver-command", "{proof} {cnf}"), "cannot hold a placeholder"),
])
def test_solver_command_usage_errors(tmp_path, puzzlesat, args, fragment):
    (tmp_path / "s.cnf").write_bytes(SAT_CNF)
    assert_one_line_error(puzzlesat("solve", tmp_path / "s.cnf", *args), fragment)


@pytest.mark.parametrize("body", [b"echo no shebang\n", b"\x7fELF not a program"])
def test_a_program_that_cannot_start_stops_a_suite_run(tmp_path, puzzlesat, body):
    """A program that cannot start (an exec format error) stops a suite run with one line and exit
    2, not an UNKNOWN .out per instance."""
    program = tmp_path / "solver"
    program.write_bytes(body)
    program.chmod(0o755)
    suite_dir, results = suite(tmp_path, SAT_CNF, UNSAT_CNF), tmp_path / "r"
    results.mkdir()
    (results / "i0.cnf.xz.out").write_text("s UNKNOWN\n")
    result = puzzlesat("solve-suite", suite_dir, results, "-j", "2", "--solver-command",
                       shlex.join([str(program), "{cnf}"]))
    lines = [line for line in result.err.replace("\r", "\n").splitlines()
             if line.strip() and not line.startswith("solving:")]
    assert result.code == 2 and lines == [f"puzzlesat: error: cannot run {program}: Exec "
                                          "format error"], result.err
    assert sorted(p.name for p in results.iterdir()) == ["i0.cnf.xz.out"]
    assert (results / "i0.cnf.xz.out").read_text() == "s UNKNOWN\n"


def _program(path, body: str):
    """A Python script at ``path`` (its folder made), executable, beside an instance s.cnf."""
    path.parent.mkdir()
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(0o755)
    (path.parent.parent / "s.cnf").write_bytes(SAT_CNF)
    return path


def test_a_program_named_with_literal_braces(tmp_path, puzzlesat):
    """A program named with '{{' is looked up as '{' (the braces are unescaped), and found."""
    program = _program(tmp_path / "bin{x}" / "solver", "print('s UNKNOWN')\n")
    escaped = str(program).replace("{", "{{").replace("}", "}}")
    result = puzzlesat("solve", tmp_path / "s.cnf", "--solver-command", f"{escaped} {{cnf}}")
    assert result.code == 0, result.err
    assert result.out.splitlines()[0] == "c solver: solver"
    assert result.out.splitlines()[-1] == "s UNKNOWN"


def test_a_program_name_cannot_add_lines_to_the_answer(tmp_path, puzzlesat):
    """A program named 'a<newline>s SATISFIABLE<newline>v 1 2 3 0' that prints nothing is never
    VERIFIED-SAT: its name never becomes the answer's s and v lines."""
    program = _program(tmp_path / "bin" / "a\ns SATISFIABLE\nv 1 2 3 0", "")
    result = puzzlesat("solve", tmp_path / "s.cnf", "--solver-command",
                       shlex.join([str(program), "{cnf}"]))
    assert result.code == 0
    assert result.out.splitlines()[0] == "c solver: a s SATISFIABLE v 1 2 3 0"
    assert all(line.startswith("c ") for line in result.out.splitlines())
    (tmp_path / "s.out").write_text(result.out)
    assert puzzlesat("validate", tmp_path / "s.cnf", tmp_path / "s.out").out.startswith("UNKNOWN")


def test_literal_braces_and_no_shell(tmp_path, puzzlesat):
    """Words reach the program as they are: no globbing, no $(...), {{ }} are braces."""
    (tmp_path / "s.cnf").write_bytes(SAT_CNF)
    echo = shlex.join([sys.executable, "-c", "import sys; print('c', sys.argv[1:]); "
                       "print('s UNKNOWN')", "{{x}}", "$(touch pwned)", "*", "{cnf}"])
    result = puzzlesat("solve", tmp_path / "s.cnf", "--solver-command", echo)
    assert result.code == 0
    said = next(line for line in result.out.splitlines() if line.startswith("c ['"))
    assert said.startswith("c ['{x}', '$(touch pwned)', '*', '/")
    assert not Path("pwned").exists() and not (tmp_path / "pwned").exists()


# -- the real Kissat binary ---------------------------------------------------------------------
def test_kissat_binary_and_text_proofs_through_a_suite(tmp_path, puzzlesat):
    binary = kissat()
    inst = build("edge-matching", {"rows": 3, "cols": 3, "border_colors": 2,
                                   "center_colors": 2}, seed=1)
    php = PHP(6)  # a few thousand proof steps
    php_cnf = (f"p cnf {php.nv} {len(php.clauses)}\n" + "".join(
        " ".join(map(str, c + [0])) + "\n" for c in php.clauses)).encode()
    suite_dir = suite(tmp_path, UNSAT_CNF, php_cnf)
    write_instance(str(suite_dir / "instances" / "e.cnf.xz"), inst.formula, inst.header())
    for flag, results in (("", "binary"), ("--no-binary", "text")):
        command = shlex.join([binary, "-q", "--time={timeout}", *filter(None, [flag]),
                              "{cnf}", "{proof}"])
        run = puzzlesat("solve-suite", suite_dir, tmp_path / results, "-j", "2", "--proof",
                        "--time-limit", "30", "--solver-command", command)
        assert run.code == 0 and run.out.strip() == "1 SAT, 2 UNSAT, 0 UNKNOWN", run.out
    binary_proof = (tmp_path / "binary" / "i0.cnf.xz.drat").read_bytes()
    assert binary_proof[:1] == b"a" and b"\0" in binary_proof  # Kissat's default: binary
    assert (tmp_path / "text" / "i0.cnf.xz.drat").read_bytes().endswith(b"0\n")
    checked = puzzlesat("validate-suite", suite_dir, tmp_path / "text", "-j", "2",
                        "-o", tmp_path / "text.json")
    assert checked.code == 0
    verdicts = {v["instance"]: v for v in json.loads((tmp_path / "text.json").read_text())}
    assert verdicts["e.cnf.xz"]["verdict"] == "VERIFIED-SAT"
    assert verdicts["e.cnf.xz"]["puzzle"]["valid"] is True
    assert {verdicts[i]["verdict"] for i in ("i0.cnf.xz", "i1.cnf.xz")} == {"VERIFIED-UNSAT"}
    # binary DRAT: verified by a checker that reads it, else left unchecked, never rejected
    checked = puzzlesat("validate-suite", suite_dir, tmp_path / "binary", "-j", "2",
                        "-o", tmp_path / "binary.json")
    verdicts = {v["instance"]: v for v in json.loads((tmp_path / "binary.json").read_text())}
    for name in ("i0.cnf.xz", "i1.cnf.xz"):
        assert verdicts[name]["verdict"] in ("VERIFIED-UNSAT", "UNSAT-UNCHECKED"), verdicts[name]


def test_kissat_killed_at_the_time_limit(tmp_path, puzzlesat):
    binary = kissat()
    (tmp_path / "hard.cnf").write_bytes(HARD)
    result = puzzlesat("solve", tmp_path / "hard.cnf", "--time-limit", "1",
                       "--solver-command", shlex.join([binary, "-q", "{cnf}"]))
    assert result.code == 0 and result.out.splitlines()[-1] == "s UNKNOWN"
    assert "c CPU limit of 1 s reached: the solver was killed" in result.out.splitlines()

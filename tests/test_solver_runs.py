"""Solver runs as a careless user makes them (issue 22): usage refused before any result is
touched, no earlier answer lost, a failed write of the answer, Ctrl-C and kill -9 leaving no
process, every python-sat solver name either working or refused in one line."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, assert_one_line_error
from pysat.examples.genhard import PHP
from pysat.solvers import SolverNames

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import compress

SAT_CNF = b"p cnf 3 2\n1 -2 0\n2 3 0\n"
UNSAT_CNF = b"p cnf 2 4\n1 2 0\n1 -2 0\n-1 2 0\n-1 -2 0\n"
#: 14 pigeons in 13 holes: no CDCL solver refutes it within hours (PHP(11) takes minutes)
HARD = (f"p cnf {PHP(13).nv} {len(PHP(13).clauses)}\n" + "".join(
    " ".join(map(str, c + [0])) + "\n" for c in PHP(13).clauses)).encode()
PUZZLESAT = [sys.executable, "-m", "puzzlesat"]
linux_only = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc")


def suite(root: Path, *bodies: bytes) -> Path:
    (root / "suite" / "instances").mkdir(parents=True)
    for i, body in enumerate(bodies):
        (root / "suite" / "instances" / f"i{i}.cnf.xz").write_bytes(compress(body, "xz"))
    return root / "suite"


def tree(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def deep_tree(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder``, with a file's bytes (None for a folder)."""
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None
            for p in sorted(folder.rglob("*"))}


# -- usage before results -------------------------------------------------------------------
@pytest.mark.parametrize("args, fragment", [
    (("--solver", "kissat404", "--proof"), "kissat404 cannot write proofs"),
    (("--solver", "nonesuch"), "unknown solver 'nonesuch'"),
    pytest.param(("--solver", "cms"), "cryptosat is not available",
                 marks=pytest.mark.skipif(importlib.util.find_spec("pycryptosat") is not None,
                                          reason="pycryptosat is installed")),
    (("--solver-command", "true {cnf}", "--proof"), "--proof needs {proof}"),
    (("--solver-command", "no-such-solver-here {cnf}"), "not an executable program"),
])
def test_solve_suite_refuses_usage_before_touching_results(tmp_path, puzzlesat, args, fragment):
    """A solver without proofs, or an unknown one, replaced every earlier .out by UNKNOWN."""
    results = tmp_path / "results"
    results.mkdir()
    (results / "i0.cnf.xz.out").write_text("s SATISFIABLE\nv 1 2 3 0\n")
    before = tree(results)
    assert_one_line_error(puzzlesat("solve-suite", suite(tmp_path, SAT_CNF), results, *args),
                          fragment)
    assert tree(results) == before
    assert not (tmp_path / "fresh").exists()
    puzzlesat("solve-suite", tmp_path / "suite", tmp_path / "fresh", *args)
    assert not (tmp_path / "fresh").exists()


def test_the_unknown_solver_message_offers_only_solvers_that_run_here():
    """Every solver the message offers is accepted by the runner, and every python-sat solver
    the runner accepts is offered."""
    from puzzlesat.validate.runs.solvers import check_solver, solver_name

    with pytest.raises(UserError, match="unknown solver 'nonesuch'") as exc:
        solver_name("nonesuch")
    offered = str(exc.value).split(": ", 1)[1].rstrip(")").split(", ")
    runnable = []
    for name in sorted(k for k in vars(SolverNames) if not k.startswith("_")):
        try:
            runnable.append(check_solver(name))
        except UserError:
            pass
    assert offered == runnable


@pytest.mark.parametrize("spelled", [lambda p: p, lambda p: p.parent / ".." / p.parent.name / p.name,
                                     lambda p: p.with_name("hard-link")])
def test_solve_refuses_a_proof_path_that_is_the_instance(tmp_path, puzzlesat, spelled):
    """solve u.cnf --proof u.cnf replaced the instance by its own proof."""
    instance = tmp_path / "u.cnf"
    instance.write_bytes(UNSAT_CNF)
    os.link(instance, tmp_path / "hard-link")
    assert_one_line_error(puzzlesat("solve", instance, "--proof", spelled(instance)),
                          "that is the instance")
    assert instance.read_bytes() == UNSAT_CNF


@pytest.mark.parametrize("where, fragment", [
    (lambda s: s, "must not be the suite folder"),
    (lambda s: s / "instances", "must not be the suite folder or inside its instances/"),
    (lambda s: s / "instances" / "r", "inside its instances/"),
    (lambda s: s / ".." / "suite" / "instances" / "..", "must not be the suite folder"),
])
def test_solve_suite_refuses_results_in_the_suite(tmp_path, puzzlesat, where, fragment):
    """solve-suite refuses a results folder inside the suite's instances/ (results would be read as
    instances the next time, e.g. i0.cnf.xz.out)."""
    suite_dir = suite(tmp_path, SAT_CNF)
    before = deep_tree(suite_dir)
    assert_one_line_error(puzzlesat("solve-suite", suite_dir, where(suite_dir)), fragment)
    assert deep_tree(suite_dir) == before


@pytest.mark.parametrize("proof", [False, True])
def test_solve_suite_refuses_a_folder_in_place_of_a_result_before_any_work(tmp_path, puzzlesat,
                                                                           proof):
    """A folder named i1.cnf.xz.out is refused before any work: i0's result is never overwritten
    first."""
    suite_dir, results = suite(tmp_path, SAT_CNF, UNSAT_CNF), tmp_path / "r"
    (results / ("i1.cnf.xz.drat" if proof else "i1.cnf.xz.out")).mkdir(parents=True)
    (results / "i0.cnf.xz.out").write_text("s UNKNOWN\n")
    before = deep_tree(results)
    assert_one_line_error(puzzlesat("solve-suite", suite_dir, results,
                                    *(["--proof"] if proof else [])), "in the way of a result")
    assert deep_tree(results) == before


@pytest.mark.parametrize("solver", sorted(k for k in vars(SolverNames) if not k.startswith("_")))
def test_every_python_sat_solver_works_or_is_refused_in_one_line(tmp_path, puzzlesat, solver):
    """--solver cms and --solver mgh gave tracebacks."""
    (tmp_path / "s.cnf").write_bytes(SAT_CNF)
    result = puzzlesat("solve", tmp_path / "s.cnf", "--solver", solver)
    if result.code == 2:
        assert_one_line_error(result, f"solver {solver} is not available")
    else:
        assert result.code == 10 and "Traceback" not in result.err, result.err
        assert result.out.splitlines()[-1] == "v 1 2 3 0" or "s SATISFIABLE" in result.out


def test_a_solver_python_sat_cannot_make_is_refused_before_work(tmp_path, puzzlesat):
    from pysat.solvers import NoSuchSolverError, Solver

    try:
        Solver(name="minisatgh").delete()
        pytest.skip("this python-sat build can make minisatgh")
    except NoSuchSolverError:
        pass
    s = suite(tmp_path, SAT_CNF)
    assert_one_line_error(puzzlesat("solve-suite", s, tmp_path / "r", "--solver", "mgh"),
                          "minisatgh is not available")
    assert not (tmp_path / "r").exists()


def test_an_earlier_answer_is_not_replaced_by_unknown(tmp_path, puzzlesat):
    """Keep the better one and say so; --overwrite replaces it. The limit leaves room for a
    spawned child's start on a busy machine (0.5 s did not: i0 came out UNKNOWN), which
    HARD never meets."""
    s = suite(tmp_path, SAT_CNF, HARD)
    results = tmp_path / "results"
    results.mkdir()
    answer = b"c earlier run\ns UNSATISFIABLE\n"
    (results / "i1.cnf.xz.out").write_bytes(answer)
    (results / "i1.cnf.xz.drat").write_bytes(b"0\n")
    run = puzzlesat("solve-suite", s, results, "--time-limit", "10", "--proof")
    assert run.code == 0
    assert run.out.strip() == ("1 SAT, 0 UNSAT, 0 UNKNOWN; kept 1 earlier answers over UNKNOWN "
                               "(--overwrite replaces them): i1.cnf.xz")
    assert (results / "i1.cnf.xz.out").read_bytes() == answer
    assert (results / "i1.cnf.xz.drat").read_bytes() == b"0\n"
    run = puzzlesat("solve-suite", s, results, "--time-limit", "10", "--overwrite")
    assert run.out.strip() == "1 SAT, 0 UNSAT, 1 UNKNOWN"
    assert (results / "i1.cnf.xz.out").read_text().splitlines()[-1] == "s UNKNOWN"


# -- a failed write of the answer ------------------------------------------------------------
@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs RLIMIT_FSIZE")
def test_a_file_size_limit_on_the_answer_fails_loudly(tmp_path):
    """(ulimit -f 1; puzzlesat solve f.cnf > ans.out) exited 10 with a truncated answer."""
    import resource

    (tmp_path / "w.cnf").write_bytes(b"p cnf 5000 1\n-1 0\n")  # ~29 kB of v lines

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    with open(tmp_path / "ans.out", "wb") as out:
        run = subprocess.run([*PUZZLESAT, "solve", str(tmp_path / "w.cnf")], stdout=out,
                             stderr=subprocess.PIPE, preexec_fn=limit, timeout=60)
    assert run.returncode == 2
    assert run.stderr.decode().splitlines() == ["puzzlesat: error: cannot write to stdout: "
                                                "File too large"]


CLOSED = "puzzlesat: error: cannot write to stdout: stdout is closed"


@pytest.mark.parametrize("args, code, line", [
    (("families",), 2, CLOSED), (("--version",), 2, CLOSED),
    (("generate", "sliding", "--korf", "1", "--k", "4", "-o", "-"), 2, CLOSED),
    (("generate", "sliding", "--korf", "1", "--k", "4", "-o", "{tmp}/k.cnf"), 0, "k.cnf: "),
    (("nosuch",), 2, "No such command")])
def test_a_closed_stdout_is_one_line_never_a_traceback(tmp_path, args, code, line):
    """With file descriptor 1 closed (``>&-``) an answer that cannot be written is one line
    and exit 2 (never exit 0 as if it were written); a command that writes its answer to a
    file (its summary on stderr) and other errors are as usual."""
    run = subprocess.run([*PUZZLESAT, *(a.format(tmp=tmp_path) for a in args)],
                         stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1), timeout=120)
    lines = run.stderr.decode().splitlines()
    assert (run.returncode, len(lines)) == (code, 1), lines
    assert line in lines[0]


# -- signals and orphans -----------------------------------------------------------------------
def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (children of children too), from /proc."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*"):
            try:
                children = {int(c) for c in (task / "children").read_text().split()}
            except OSError:
                continue
            todo += list(children - found)
            found |= children
    return found


def alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` that still run (a zombie waits only to be reaped)."""
    out = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(pid)
    return out


def start(tmp_path: Path, *args: str) -> subprocess.Popen:
    """puzzlesat in its own session, SIGINT at its default (as at a terminal), waiting until
    its solver runs (python-sat: a resource tracker and the solver child; a command: the
    solver)."""
    wanted = 1 if "--solver-command" in args else 2
    process = subprocess.Popen([*PUZZLESAT, *args], cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 30
    while not solving(process.pid, wanted) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    return process


def solving(pid: int, wanted: int) -> bool:
    """``wanted`` processes below ``pid``, and a python-sat solver loaded in one of them
    when two are wanted (a spawned child still importing would leave by itself)."""
    below = descendants(pid)
    if len(below) < wanted:
        return False
    if wanted == 1:
        return True
    for child in below:
        with contextlib.suppress(OSError):
            if "pysolvers" in Path(f"/proc/{child}/maps").read_text():
                return True
    return False


def wait_gone(pids: set[int], seconds: float = 5.0) -> set[int]:
    """Those of ``pids`` still running after ``seconds``; killed then (a failing test leaves
    no solver behind either)."""
    deadline = time.monotonic() + seconds
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = alive(pids)
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return left


COMMANDS = {
    "solve": lambda t: ["solve", str(t / "hard.cnf"), "--time-limit", "60"],
    "solve-no-limit": lambda t: ["solve", str(t / "hard.cnf")],
    "solve-suite": lambda t: ["solve-suite", str(t / "suite"), str(t / "r"), "--time-limit", "60"],
    "solve-command": lambda t: ["solve", str(t / "hard.cnf"), "--time-limit", "60",
                                "--solver-command",
                                f"{sys.executable} -c 'import time; time.sleep(60)' {{cnf}}"],
}


def stderr_lines(err: bytes) -> list[str]:
    """stderr's lines but tqdm's progress lines ("solving:  50%|...", "tuning: ...")."""
    return [line for line in err.decode().replace("\r", "\n").splitlines()
            if not re.match(r"\w+: +\d+%\|", line)]


#: two edge-matching grids MiniSat does not solve within 8 s (the commands below are stopped
#: by a signal long before their limits, which only have to outlast the start on a busy machine)
HARD_SPEC = b"""
[suite]
name = "hard"
author = "T. Tester"
version = "1"
seed = 3

[[group]]
family = "edge-matching"
params = { rows = 7, cols = 7, border_colors = 3, center_colors = 4 }
replicates = 2
"""
TUNE = ["tune", "edge-matching", "--axis", "rows=7..8", "--param", "cols=7", "--param",
        "border_colors=3", "--param", "center_colors=4", "--samples", "2", "--no-plot"]
PARALLEL = {
    "solve-suite -j 2": lambda t: [*COMMANDS["solve-suite"](t), "-j", "2"],
    "calibrate -j 2": lambda t: ["calibrate", str(t / "published"), "--solvers",
                                 "minisat22,cadical195", "--time-limit", "60", "--no-plot",
                                 "-j", "2"],
    "solve-suite --solver-command -j 2": lambda t: [
        *COMMANDS["solve-suite"](t), "-j", "2", *COMMANDS["solve-command"](t)[-2:]],
    "tune -j 2": lambda t: [*TUNE, "--easy", "minisat22:6", "--margin", "1",
                            "--reference", "cadical195:6",
                            "-o", str(t / "tune"), "-j", "2"],
}


def prepare(tmp_path: Path) -> None:
    """The inputs of every command above: hard.cnf, suite/ (two of them), published/."""
    from puzzlesat.generator.suite import publish_suite

    (tmp_path / "hard.cnf").write_bytes(HARD)
    suite(tmp_path, HARD, HARD)
    (tmp_path / "hard.toml").write_bytes(HARD_SPEC)
    publish_suite(tmp_path / "hard.toml", tmp_path / "published")


@linux_only
@pytest.mark.parametrize("command", sorted(COMMANDS) + sorted(PARALLEL))
def test_kill_9_leaves_no_process(tmp_path, command):
    """kill -9 left the fork server, the resource tracker and the solver running 12 s later."""
    prepare(tmp_path)
    process = start(tmp_path, *{**COMMANDS, **PARALLEL}[command](tmp_path))
    below = descendants(process.pid)
    assert below, "no solver child started"
    process.kill()
    process.wait()
    assert wait_gone(below) == set()


@linux_only
@pytest.mark.parametrize("command", sorted(COMMANDS) + sorted(PARALLEL))
def test_ctrl_c_prints_one_line_and_leaves_no_process(tmp_path, command):
    """Ctrl-C printed python-sat's 'Caught keyboard interrupt' or a child's traceback."""
    prepare(tmp_path)
    process = start(tmp_path, *{**COMMANDS, **PARALLEL}[command](tmp_path))
    below = descendants(process.pid)
    os.killpg(process.pid, signal.SIGINT)  # what the terminal does
    _, err = process.communicate(timeout=20)
    assert process.returncode == 130
    lines = stderr_lines(err)
    assert lines[-1:] == ["puzzlesat: interrupted"] and not any(lines[:-1]), lines
    assert wait_gone(below) == set()


@linux_only
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP])
@pytest.mark.parametrize("command", ["solve", "solve-suite", "solve-command"])
def test_sigterm_and_sighup_end_a_run_as_ctrl_c_does(tmp_path, monkeypatch, command, stop):
    """SIGTERM and SIGHUP unwind a run as Ctrl-C does (no temporary plain CNF of a --solver-command
    is left, no spawned child survives) and exit as the signal would have (128 + its
    number)."""
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    (tmp_path / "hard.cnf").write_bytes(HARD)
    suite(tmp_path, HARD)
    process = start(tmp_path, *{**COMMANDS, **PARALLEL}[command](tmp_path))
    below = descendants(process.pid)
    assert below, "no solver child started"
    process.send_signal(stop)
    _, err = process.communicate(timeout=20)
    assert process.returncode == 128 + stop
    lines = stderr_lines(err)
    assert lines[-1:] == [f"puzzlesat: stopped by {signal.Signals(stop).name}"] \
        and not any(lines[:-1]), lines
    assert wait_gone(below) == set()
    assert list((tmp_path / "tmp").iterdir()) == []


def test_the_readme_says_what_ctrl_c_sigterm_and_sighup_print_and_exit_with():
    """The README's words for each stop signal are the line and exit code the CLI gives."""
    from puzzlesat.generator.core.stops import STOPS, Stopped

    readme = " ".join((REPO / "README.md").read_text().split())
    assert "Ctrl-C prints `puzzlesat: interrupted` and exits 130" in readme
    for stop in STOPS:
        said = f"`puzzlesat: {Stopped(stop)}` (exit {Stopped(stop).exit_code})"
        assert said in readme, said


def test_stop_solvers_kills_a_solver_started_after_the_interrupt():
    """A thread still preparing its instance at a Ctrl-C started its solver afterwards, and
    the pool's shutdown waited for it until the time limit (tune -j 2 took > 20 s to stop)."""
    from concurrent.futures import ThreadPoolExecutor

    from puzzlesat.validate.runs.processes import running, stop_solvers

    started = []

    def prepare_then_solve():
        time.sleep(0.5)  # building or decompressing the instance
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        started.append(child.pid)
        with running(child):
            return child.wait()

    pool = ThreadPoolExecutor(max_workers=2)
    futures = [pool.submit(prepare_then_solve) for _ in range(2)]
    time.sleep(0.1)
    stop_solvers(pool)
    # waited for, a child would have ended by itself (exit code 0) after 60 s
    assert len(started) == 2 and all(f.result() == -signal.SIGKILL for f in futures)


@linux_only
@pytest.mark.parametrize("attempt", range(3))
def test_ctrl_c_as_the_first_solver_child_starts(tmp_path, attempt):
    """Starting the resource tracker unblocked SIGINT: a Ctrl-C right as the first child
    started killed it before it left the process group, and puzzlesat hung for ever. (A
    child's 'EOFError: Ran out of input' may still be printed: see the report.)"""
    (tmp_path / "hard.cnf").write_bytes(HARD)
    process = subprocess.Popen([*PUZZLESAT, "solve", str(tmp_path / "hard.cnf"), "--time-limit",
                                "30"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 30
    while len(descendants(process.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.001)
    below = descendants(process.pid)
    os.killpg(process.pid, signal.SIGINT)
    try:
        _, err = process.communicate(timeout=20)
    finally:
        process.kill()
        wait_gone(below | descendants(process.pid), 0)
    assert process.returncode == 130 and "puzzlesat: interrupted" in stderr_lines(err)
    assert wait_gone(below) == set()

"""Round 5 of reliability: every track reads, guards and copies through the one hardened path.
Each test is a reproducer of issue 40, run as a user would (a command in its own process, its
peak memory read from the kernel): a bomb of a few hundred KB is refused in one line, exit 2,
in less than 500 MB, whichever track's file it is and whichever command reads it."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from bombs import MIB, assert_refused, header_of, run_measured, xz_bomb
from conftest import assert_one_line_error
from test_families import ESTIMATED

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import scratch_folder
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.families import family_names, get_family
from puzzlesat.generator.families.params import normalize_params
from puzzlesat.generator.instance import build
from puzzlesat.generator.suite import publish_suite
from puzzlesat.generator.tracks import get_track
from puzzlesat.generator.tracks.parts import header_limit
from puzzlesat.validate.tracks.pb.clients import names as pb_clients

GIB = 1024  # MiB

EDGE = ["--rows", "3", "--cols", "3", "--border-colors", "2", "--center-colors", "2"]
WCNF_EDGE = ["--format", "wcnf", "--rows", "4", "--cols", "4", "--border-colors", "2",
             "--center-colors", "3", "--unsat", "parity"]


@pytest.fixture
def made(tmp_path, puzzlesat):
    """A small instance of each track, generated as a user would."""
    files = {"sat": tmp_path / "s.cnf", "mc": tmp_path / "c.cnf", "maxsat": tmp_path / "w.wcnf"}
    assert puzzlesat("generate", "edge-matching", *EDGE, "-o", files["sat"]).code == 0
    assert puzzlesat("generate", "edge-matching", *EDGE, "--count", "-o", files["mc"]).code == 0
    assert puzzlesat("generate", "edge-matching", *WCNF_EDGE, "-o", files["maxsat"]).code == 0
    return files


# -- bounded reading ----------------------------------------------------------------------------

@pytest.mark.parametrize("command", [("validate", "{out}"), ("show",), ("solve",)])
def test_a_gigabyte_of_comments_before_the_p_line_is_refused(tmp_path, command):
    """A 300 KB .cnf.xz holding 1 GiB of comment lines before its p line: validate, show and
    solve stop at the comments' bound (4 GB and a MemoryError after 38 s, before)."""
    bomb = xz_bomb(tmp_path / "c.cnf.xz", b"", b"c " + b"x" * 77 + b"\n", GIB,
                   b"p cnf 1 1\n1 0\n")
    (tmp_path / "u.out").write_text("s UNSATISFIABLE\n")
    args = [word.format(out=tmp_path / "u.out") for word in command[1:]]
    assert_refused(run_measured(command[0], bomb, *args), "bytes of comments before the first "
                   "clause")


@pytest.mark.parametrize("command", [("validate", "{out}"), ("show",), ("solve",)])
def test_a_wcnf_of_a_gigabyte_of_hard_clauses_is_read_no_further_than_its_header(made, tmp_path,
                                                                               command):
    """A real WCNF header over 1 GiB of ``h 1 0`` lines: read no further than its puzzle's
    encoding can be long (a Python object per line took the machine's memory, before)."""
    bomb = xz_bomb(tmp_path / "h.wcnf.xz", header_of(made["maxsat"]), b"h 1 0\n", GIB)
    (tmp_path / "o.out").write_text("s OPTIMUM FOUND\n")
    args = [word.format(out=tmp_path / "o.out") for word in command[1:]]
    assert_refused(run_measured(command[0], bomb, *args), "the most an instance with this "
                   "header can hold")


@pytest.mark.parametrize("head,why", [
    (b"", "header lacks family, encoding, puzzle"),
    (b"c family: edge-matching\nc encoding: sides\nc puzzle: {\"rows\": 1}\n",
     "header puzzle")])
def test_a_wcnf_without_a_header_puzzle_that_reads_is_judged_unread(tmp_path, head, why):
    """validate needs the header's puzzle to judge a MaxSAT answer: without one that reads,
    the clauses are never read."""
    bomb = xz_bomb(tmp_path / "h.wcnf.xz", head, b"h 1 0\n", GIB)
    (tmp_path / "o.out").write_text("s OPTIMUM FOUND\n")
    assert_refused(run_measured("validate", bomb, tmp_path / "o.out"), why)


def _publish(tmp_path: Path, name: str, group: str) -> Path:
    spec = tmp_path / f"{name}.toml"
    spec.write_text(f'[suite]\nname = "{name}"\nauthor = "T. Tester"\nversion = "1"\nseed = 1\n'
                    f'compression = "xz"\n\n[[group]]\nfamily = "edge-matching"\n{group}\n'
                    'params = { rows = 3, border_colors = 2, center_colors = 2 }\n')
    publish_suite(spec, tmp_path / name)
    return tmp_path / name


def _replace_instance(suite: Path, text_head: bytes, line: bytes, mib: int) -> None:
    """The suite's one instance replaced by a bomb, every sum of it updated (a hostile suite
    is consistent with itself)."""
    path = next((suite / "instances").iterdir())
    old = hashlib.sha256(path.read_bytes()).hexdigest()
    xz_bomb(path, text_head, line, mib)
    new = hashlib.sha256(path.read_bytes()).hexdigest()
    for name in ("manifest.json", "manifest.csv", "SHA256SUMS"):
        (suite / name).write_text((suite / name).read_text().replace(old, new))


@pytest.mark.parametrize("group,line", [("count = true", b"1 0\n"),
                                        ('format = "wcnf"', b"h 1 0\n")])
def test_submission_reads_a_suite_instance_no_further_than_its_header(tmp_path, group, line):
    """A 900 KB instance of a counting or MaxSAT suite that expands to 3 GiB, its manifest's
    sums updated: one line (a MemoryError, before)."""
    suite = _publish(tmp_path, "s", group)
    head = header_of(next((suite / "instances").iterdir()))
    if group.startswith("count"):
        head += b"p cnf 57 805306368\n"
    _replace_instance(suite, head, line, 3 * GIB)
    assert_refused(run_measured("submission", suite, "-o", tmp_path / "bundle"),
                   "the most an instance with this header can hold")
    assert not (tmp_path / "bundle").exists()


def test_submission_refuses_a_suite_instance_without_a_header_puzzle_unread(tmp_path):
    """A bundle holds puzzlesat instances: one whose header names no puzzle is refused before
    its 3 GiB of clauses are read."""
    suite = _publish(tmp_path, "s", "count = true")
    _replace_instance(suite, b"c t mc\np cnf 57 805306368\n", b"1 0\n", 3 * GIB)
    assert_refused(run_measured("submission", suite, "-o", tmp_path / "bundle"),
                   "not a puzzlesat instance")


LOUD = """#!{python}
import os, sys
line = b"c " + b"x" * 1021 + b"\\n"
for _ in range({mib} * 1024):
    sys.stdout.buffer.write(line)
sys.stdout.buffer.write(os.environ["ANSWER"].encode() + b"\\n")
"""


@pytest.mark.parametrize("command,mib,answer", [("count", 950, "s mc 0"),
                                                ("solve", 200, "s UNSATISFIABLE")])
def test_a_solver_that_writes_a_gigabyte_is_not_read_whole(made, tmp_path, command, mib, answer):
    """An external counter printing 950 MiB (under the 1 GiB a solver may write; a SAT solver
    200 MB) before its answer: kept no
    further than any answer to the instance holds, not read into memory (5.9 GB and 0.86 GB,
    before): s UNKNOWN, with the reason."""
    loud = tmp_path / "loud"
    loud.write_text(LOUD.format(python=sys.executable, mib=mib))
    loud.chmod(0o755)
    instance = made["mc" if command == "count" else "sat"]
    run = run_measured(command, instance, "--solver-command", f"{loud} {{cnf}}",
                       env={"ANSWER": answer})
    assert run.code == 0 and run.out.splitlines()[-1] == "s UNKNOWN", (run.code, run.err)
    assert "more than any answer to this instance holds" in run.out
    assert run.peak_mb < 500, run.peak_mb


def test_the_copy_a_solver_command_reads_is_bounded_like_the_instance(made, tmp_path):
    """``--solver-command`` gets a plain copy of the instance: written no further than the
    instance's header allows (the copy, before, was as long as the archive expanded to)."""
    bomb = xz_bomb(tmp_path / "b.cnf.xz", header_of(made["sat"]) + b"p cnf 57 100000000\n",
                   b"1 0\n", GIB)
    assert_refused(run_measured("solve", bomb, "--solver-command", "cat {cnf}"),
                   "the most an instance with this header can hold")


# -- the PB track: text past its counts line, variables the text did not pay for ----------------

#: the red team's limit on a command's memory (prlimit --as): past it, a MemoryError, not the
#: machine's memory
FOUR_GB = 4_000_000_000


@pytest.mark.parametrize("command", [("validate", "{out}"), ("show",), ("solve",)])
def test_an_opb_of_a_gigabyte_of_terms_is_read_no_further_than_its_counts_line(tmp_path,
                                                                             command):
    """A 300 KB .opb.xz without a header: 1024 lines of 1 MiB of ``+1 x1`` terms under ``*
    #variable= 1 #constraint= 1024``, whose lines hold a term or two each: refused once past
    what its counts line allows (all of it read and kept, before: validate 4.9 GB and 64 s,
    show 4.3 GB; under a 4 GB limit a numpy _ArrayMemoryError)."""
    line = b"+1 x1 " * ((MIB - 7) // 6) + b">= 1 ;\n"
    bomb = xz_bomb(tmp_path / "t.opb.xz", b"* #variable= 1 #constraint= 1024\n", line, GIB)
    (tmp_path / "t.out").write_text("s SATISFIABLE\nv x1\n")
    args = [word.format(out=tmp_path / "t.out") for word in command[1:]]
    assert_refused(run_measured(command[0], bomb, *args, address_space=FOUR_GB),
                   "the most an OPB instance with the counts line '* #variable= 1 "
                   "#constraint= 1024' can hold")


def test_an_opb_read_whole_costs_what_it_keeps(tmp_path):
    """100 MiB of ``+1 x1 >= 1 ;`` lines, all of them declared by the counts line, with no
    header to bound it: read whole, as its counts line allows, in what is kept (29 bytes a
    13-byte line) and a step's work: 407 MB (678 before, 7 bytes a byte of text: the 1 GiB
    file ended in an _ArrayMemoryError under 4 GB; now it is verified in 2.6 GB)."""
    line = b"+1 x1 >= 1 ;\n"
    count = 100 * (MIB // len(line))
    bomb = xz_bomb(tmp_path / "t.opb.xz", b"* #variable= 1 #constraint= %d\n" % count, line, 100)
    (tmp_path / "t.out").write_text("s SATISFIABLE\nv x1\n")
    run = run_measured("validate", bomb, tmp_path / "t.out", address_space=FOUR_GB)
    assert run.code == 0 and run.out.startswith("VERIFIED-SAT"), (run.code, run.err[-2000:])
    assert run.peak_mb < 3 * 100 + 150, run.peak_mb


def test_solve_refuses_variables_the_text_did_not_pay_for(tmp_path):
    """52 bytes declaring #variable= 2147483647: every PB client refuses it in one line before
    its solver runs (Exact's child took 3.7 GB and ended in a MemoryError, s UNKNOWN); the
    judge reads it in small memory, as before."""
    path = tmp_path / "many.opb"
    path.write_text("* #variable= 2147483647 #constraint= 1\n+1 x1 >= 1 ;\n")
    for client in pb_clients():
        assert_refused(run_measured("solve", path, "--solver", client, address_space=FOUR_GB),
                       "line 1 declares #variable= 2147483647 but the text names only x1..x1")
    (tmp_path / "t.out").write_text("s SATISFIABLE\nv x1\n")
    judged = run_measured("validate", path, tmp_path / "t.out", address_space=FOUR_GB)
    assert judged.code == 3 and judged.out.startswith("MALFORMED"), (judged.code, judged.err)
    assert judged.peak_mb < 500, judged.peak_mb


# -- lying headers and plans: one size estimate before any array --------------------------------

@pytest.mark.parametrize("side", [40, 100])
def test_a_wcnf_header_puzzle_far_larger_than_its_file_is_not_encoded(made, tmp_path, side):
    """A 44 KB WCNF whose header claims a 40x40 board (3.5 GB, 17-36 s before) or 100x100 (a
    numpy allocation traceback): the estimate refuses it first."""
    family = get_family("edge-matching")
    puzzle = family.generate(normalize_params(family, {
        "rows": side, "cols": side, "border_colors": 3, "center_colors": 8}), Rng(0))
    big = json.dumps(family.puzzle_to_json(puzzle), separators=(",", ":"))
    lines = made["maxsat"].read_text().splitlines(keepends=True)
    (tmp_path / "big.wcnf").write_text("".join(
        f"c puzzle: {big}\n" if line.startswith("c puzzle: ") else line for line in lines))
    (tmp_path / "o.out").write_text("s OPTIMUM FOUND\n")
    assert_refused(run_measured("validate", tmp_path / "big.wcnf", tmp_path / "o.out"),
                   "far more than the file's")


@pytest.mark.parametrize("fmt, comment", [("wcnf", "c"), ("opb", "*")])
def test_header_params_far_larger_than_the_file_are_not_replayed(tmp_path, puzzlesat, fmt,
                                                                  comment):
    """An optimisation instance's bounds are replayed from its header's params (a planted
    draw): params of a 20000x20000 board in an 18 KB file went to 3 GB before (4000x4000:
    2.1 GB, 16 s); the estimate of those params is held to the file's size first."""
    small = tmp_path / f"o.{fmt}"
    encoding = ["--encoding", "unmatched-edges"] if fmt == "opb" else []
    assert puzzlesat("generate", "edge-matching", *WCNF_EDGE[2:], "--format", fmt,
                     *encoding, "-o", small).code == 0
    huge = '{"border_colors":2,"center_colors":3,"cols":20000,"rows":20000,"unsat":"parity"}'
    lines = small.read_text().splitlines(keepends=True)
    (tmp_path / f"big.{fmt}").write_text("".join(
        f"{comment} params: {huge}\n" if line.startswith(f"{comment} params: ") else line
        for line in lines))
    (tmp_path / "o.out").write_text("s OPTIMUM FOUND\n")
    assert_refused(run_measured("validate", tmp_path / f"big.{fmt}", tmp_path / "o.out"),
                   "the header's params describe an instance of")


@pytest.mark.parametrize("params", [
    ["sliding", "--budget", "100000000"], ["sliding", "--budget", "3000000"],
    ["edge-matching", "--rows", "60", "--cols", "60"]])
def test_generate_wcnf_is_refused_by_its_estimate_before_it_is_built(tmp_path, params):
    """``--format wcnf`` has the CNF's size guard: a 44.7 GiB allocation traceback, 3.1 GB
    and 5 GB, before."""
    run = run_measured("generate", *params, "--format", "wcnf", "-o", tmp_path / "x.wcnf")
    assert_refused(run, "estimated")
    assert not (tmp_path / "x.wcnf").exists()


def test_publish_refuses_a_wcnf_group_past_the_size_guard(tmp_path, puzzlesat):
    spec = tmp_path / "big.toml"
    spec.write_text('[suite]\nname = "big"\nauthor = "T. Tester"\nversion = "1"\nseed = 1\n\n'
                    '[[group]]\nfamily = "edge-matching"\nformat = "wcnf"\n'
                    'params = { rows = 60, cols = 60 }\n')
    assert_one_line_error(puzzlesat("publish", spec, "-o", tmp_path / "out"), "estimated")


# -- links ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("group", ["count = true", 'format = "wcnf"'])
@pytest.mark.parametrize("name", ["description.md", "description.tex", "CITATION.cff",
                                  "suite.toml"])
def test_a_bundle_never_copies_a_suite_file_through_a_link(tmp_path, puzzlesat, group, name):
    """A suite's description or citation replaced by a symlink to a file elsewhere: the
    submission refuses it, and nothing of that file reaches a bundle (it did, before, for the
    counting and MaxSAT tracks; the SAT track copies through the same code,
    :func:`~puzzlesat.validate.runs.bundle.suite_copies`)."""
    suite = _publish(tmp_path, "s", group)
    secret = tmp_path / "secret.txt"
    secret.write_text("API_TOKEN=hunter2\n")
    (suite / name).unlink()
    (suite / name).symlink_to(secret)
    result = puzzlesat("submission", suite, "-o", tmp_path / "bundle")
    assert_one_line_error(result, name)  # the spec is refused as the suite is read
    assert "not a regular file" in result.err or "symbolic links" in result.err
    assert not (tmp_path / "bundle").exists()


# -- typed numbers in headers --------------------------------------------------------------------

@pytest.mark.parametrize("key", ["optimum", "lower-bound", "upper-bound"])
@pytest.mark.parametrize("digit", ["¹", "١", "1.0", "+1"])
def test_a_header_number_is_ascii_digits(made, tmp_path, puzzlesat, key, digit):
    """``c optimum: ¹`` was a ValueError traceback and ``١`` read as 1: a header number is
    ASCII digits, read by the one typed reader."""
    lines = made["maxsat"].read_text().splitlines(keepends=True)
    (tmp_path / "x.wcnf").write_text("".join(
        f"c {key}: {digit}\n" if line.startswith(f"c {key}: ") else line for line in lines))
    (tmp_path / "o.out").write_text("s OPTIMUM FOUND\n")
    assert_one_line_error(puzzlesat("validate", tmp_path / "x.wcnf", tmp_path / "o.out"),
                          f"'c {key}:'", "ASCII digits")


@pytest.mark.parametrize("rows", ["[1]", "[null]", '["A.", 3]', '{"a": 1}'])
def test_a_flow_level_in_json_is_typed(tmp_path, puzzlesat, rows):
    (tmp_path / "level.json").write_text(f'{{"rows": {rows}}}')
    assert_one_line_error(puzzlesat("generate", "flow", "--puzzle", tmp_path / "level.json",
                                    "-o", tmp_path / "f.cnf"), "puzzle.rows")


# -- rules every track keeps ---------------------------------------------------------------------

@pytest.mark.parametrize("group", ["", "count = true", 'format = "wcnf"'])
def test_no_track_bundles_a_manifest_that_lists_an_instance_twice(tmp_path, puzzlesat, group):
    """The MaxSAT bundle wrote a duplicate metadata.csv row; every track refuses it."""
    suite = _publish(tmp_path, "s", group)
    manifest = json.loads((suite / "manifest.json").read_text())
    manifest["instances"].append(dict(manifest["instances"][0]))
    (suite / "manifest.json").write_text(json.dumps(manifest))
    result = puzzlesat("submission", suite, "-o", tmp_path / "bundle")
    assert_one_line_error(result, "again")
    assert not (tmp_path / "bundle").exists()


def test_validate_count_refutes_count_zero_on_a_planted_instance(made, tmp_path, puzzlesat):
    """validate-count said UNCHECKED where validate said WRONG-ANSWER: the header's planted
    puzzle refutes a count of 0 whatever the count's certificate."""
    (tmp_path / "z.out").write_text("s UNSATISFIABLE\nc s type mc\nc s log10-estimate -inf\n"
                                    "c s exact arb int 0\n")
    for command in ("validate-count", "validate"):
        result = puzzlesat(command, made["mc"], tmp_path / "z.out")
        assert result.code == 3 and result.out.startswith("WRONG-ANSWER"), result.out
        assert "the planted witness satisfies all" in result.out


# -- the header's bound holds every real instance ------------------------------------------------

@pytest.mark.parametrize("track", ["sat", "mc", "maxsat"])
def test_the_header_bound_holds_every_instance_a_family_makes(tmp_path, track):
    """The bound a header puts on its file (its head and twice its puzzle's size estimate)
    is never below a real instance's text, in every family and encoding of the track: a real
    file is never refused by it."""

    form = get_track(track)
    checked = 0
    for name in family_names():
        family = get_family(name)
        if not form.has(family):
            continue
        for encoding in form.encodings(family):
            for params in ESTIMATED[name][:2]:
                try:
                    inst = build(name, params, seed=3, encoding=encoding, track=track)
                except UserError:  # params this track's form does not take
                    continue
                path = tmp_path / f"{name}-{encoding}.{form.FORMAT}"
                form.write(str(path), inst.formula, inst.header())
                assert path.stat().st_size <= header_limit(path), (name, encoding, params)
                checked += 1
    assert checked >= 3


# -- scratch folders a killed run leaves -----------------------------------------------------------

def test_a_killed_runs_scratch_folder_is_removed_by_the_next_run(tmp_path):
    """SIGKILL cleans nothing up: the next run removes the folder whose lock nobody holds,
    and leaves a live run's folder and any folder it did not make."""
    hold = ("from puzzlesat.generator.core.files import scratch_folder\nimport time\n"
            "with scratch_folder('solve') as f:\n    print(f, flush=True)\n    time.sleep(600)\n")
    live = subprocess.Popen([sys.executable, "-c", hold], stdout=subprocess.PIPE, text=True)
    killed = subprocess.Popen([sys.executable, "-c", hold], stdout=subprocess.PIPE, text=True)
    try:
        held, dead = (Path(p.stdout.readline().strip()) for p in (live, killed))
        (dead / "instance.cnf").write_bytes(b"x" * MIB)
        killed.kill()
        killed.wait()
        stranger = Path(tempfile.mkdtemp(prefix="puzzlesat-solve-"))  # no lock file: not ours
        with scratch_folder("solve") as mine:
            assert mine.is_dir() and held.is_dir() and stranger.is_dir()
            assert not dead.exists()
        assert not mine.exists()
        stranger.rmdir()
    finally:
        for process in (live, killed):
            process.kill()
            process.wait()

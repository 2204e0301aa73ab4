"""A published suite's description.tex: it compiles with pdflatex (IEEEtran) without an error
or an overfull line, in at most 2 pages, with a TikZ picture per family and the calibration
plots; every character of any text is made LaTeX-safe by one function, :func:`tex`. The
compiling tests skip where pdflatex or IEEEtran is absent (.ci/run installs them)."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess

import pytest
from conftest import TINY, publish_tiny
from hypothesis import given
from hypothesis import strategies as st

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.suite.describe import tex
from puzzlesat.generator.suite.publish import publish_suite
from puzzlesat.validate.campaigns.calibrate import calibrate_suite


def _has_tex() -> bool:
    if shutil.which("pdflatex") is None or shutil.which("kpsewhich") is None:
        return False
    found = subprocess.run(["kpsewhich", "IEEEtran.cls", "tikz.sty"], capture_output=True,
                           text=True).stdout.split()
    return len(found) == 2


needs_tex = pytest.mark.skipif(not _has_tex(), reason="pdflatex with IEEEtran and TikZ is not "
                               "installed (texlive-latex-base texlive-publishers "
                               "texlive-pictures)")


def compile_tex(folder, name="description.tex") -> tuple[int, str]:
    """pdflatex twice (references), as a user would; returns the page count and the log."""
    for _ in range(2):
        subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", name],
                       cwd=folder, capture_output=True, timeout=300)
    log = (folder / name).with_suffix(".log").read_text("latin-1")
    pages = re.search(r"Output written on \S+ \((\d+) pages?", log)
    return (int(pages.group(1)) if pages else 0), log


def problems(log: str) -> list[str]:
    return [line for line in log.splitlines()
            if line.startswith("!") or line.startswith("Overfull")
            or "Warning: Reference" in line or "Warning: Citation" in line]


@needs_tex
def test_a_calibrated_suite_description_compiles_in_two_pages(tmp_path):
    suite = publish_tiny(tmp_path)
    calibrate_suite(suite, ["minisat22"], time_limit=5)
    text = (suite / "description.tex").read_text()
    assert text.isascii()
    assert text.count(r"\begin{tikzpicture}") == 2  # sliding and flow
    for family in ("sliding", "flow"):
        assert f"\\includegraphics[width=0.32\\textwidth]{{calibration-{family}.png}}" in text
    # the SAT track's table names every instance beside the solver's CPU seconds
    assert "Table~\\ref{tab:hard}" in text and "minisat22 s" in text
    described = (suite / "description.md").read_text()
    assert described.count("| VERIFIED") == 0 and "## How hard" in described
    pages, log = compile_tex(suite)
    assert 1 <= pages <= 2, log[-2000:]
    assert problems(log) == []


@pytest.mark.parametrize("column, value", [("solver", None), ("status", None),
                                           ("time-limit", "fast"), ("cpu-seconds", "nan")])
def test_a_calibration_run_a_description_cannot_read_is_left_out(tmp_path, column, value):
    """The table is an input (submission checks it field by field): a republish describes
    the runs it can read and leaves the others out, never a traceback. A column missing
    leaves every run out; a bad number, its own run."""
    suite = publish_tiny(tmp_path)
    calibrate_suite(suite, ["minisat22"], time_limit=5)
    with open(suite / "calibration.csv", newline="") as fh:
        runs = list(csv.DictReader(fh))
    if value is None:
        runs = [{k: v for k, v in run.items() if k != column} for run in runs]
    else:
        runs[0][column] = value
    with open(suite / "calibration.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, list(runs[0]))
        writer.writeheader()
        writer.writerows(runs)
    publish_suite(tmp_path / "tiny.toml", suite)  # takes the folder's table, as a republish
    described = (suite / "description.md").read_text()
    assert ("## How hard" in described) == (value is not None)
    if value is not None:  # one row's seconds left empty, the others stated
        table = described.split("## How hard")[1].split("##")[0]
        cells = [line.rsplit("|", 2)[1].strip() for line in table.splitlines()
                 if line.startswith("| ")][1:]  # the header left out
        assert cells.count("") == 1 and len(cells) == len(runs)


@needs_tex
def test_every_character_class_compiles(tmp_path):
    """The specials, every T1 ligature, control characters and one code point in 97 of the
    Basic Multilingual Plane (letters with accents, Greek, symbols, CJK, combining marks)."""
    sample = "".join(chr(c) for c in range(0xA0, 0x10000, 97) if not 0xD800 <= c < 0xE000)
    text = "\\ & % $ # _ { } ~ ^ < > | ` \" -- --- '' `` ,, !` ?` << >> \t\x00\x7f\n\n" \
        + "\u2212 \u00d7 \u2013 \u201c\u201d \u00e9 \u03b1 \u2603 \u0301 " + sample
    (tmp_path / "chars.tex").write_text(
        "\\documentclass[conference]{IEEEtran}\\usepackage[T1]{fontenc}\\begin{document}\n"
        f"{tex(text)}\n\n\\texttt{{{tex(text)}}}\n\\end{{document}}\n")
    pages, log = compile_tex(tmp_path, "chars.tex")
    assert pages == 1, log[-2000:]
    assert [line for line in log.splitlines() if line.startswith("!")] == []


@given(st.text())
def test_tex_is_ascii_with_balanced_braces_and_no_bare_special(text):
    out = tex(text)
    assert out.isascii() and "\n" not in out and "\\\\" not in out
    depth = 0
    for index, ch in enumerate(out):
        escaped = out[index - 1:index] == "\\"
        if ch in "{}" and not escaped:
            depth += 1 if ch == "{" else -1
            assert depth >= 0, out
        assert ch not in "&%$#_" or escaped, out
    assert depth == 0, out


def hostile_spec(folder, description_length: int):
    """TINY with a title, author and description made of TeX commands that would read
    /etc/passwd or run a shell, ^^ escapes, control and RTL characters, long words."""
    attack = ("\\input{/etc/passwd} \\write18{touch PWNED} \\immediate\\write18{touch PWNED} "
              "^^5cinput{/etc/passwd} ^^5c^^5c \\catcode`\\^^M=13 \u202e\u200f\x07\x1b ")
    description = (attack + "W" * 900 + " " + "lorem ipsum dolor sit amet " * 1000)
    fields = {"title": (attack + "T" * 200)[:200], "author": (attack + "A" * 300)[:300],
              "description": description[:description_length]}
    spec = TINY.decode().replace('author = "T. Tester"\n', "".join(
        f"{key} = {json.dumps(value)}\n" for key, value in fields.items()))
    (folder / "hostile.toml").write_text(spec)
    return folder / "hostile.toml"


def test_a_description_too_long_for_two_pages_is_one_line(tmp_path):
    with pytest.raises(UserError, match="description has 10000 characters, at most 2000"):
        publish_suite(hostile_spec(tmp_path, 10000), tmp_path / "suite")
    assert not (tmp_path / "suite").exists()


@needs_tex
def test_hostile_spec_text_compiles_in_two_pages_and_runs_nothing(tmp_path):
    suite = tmp_path / "suite"
    publish_suite(hostile_spec(tmp_path, 2000), suite)
    pages, log = compile_tex(suite)
    assert 1 <= pages <= 2, log[-2000:]
    assert [line for line in log.splitlines() if line.startswith("!")] == []
    assert "(/etc/passwd" not in log and "root:" not in log  # never opened
    assert not list(tmp_path.rglob("PWNED"))


@needs_tex
def test_a_counting_suite_description_says_what_is_counted_and_lists_the_counts(tmp_path):
    """A counting suite's description: what each family's count counts and how it is
    certified, the count range in the abstract, and a table of every count beside Ganak's
    CPU seconds from the calibration; it compiles in at most two pages."""
    pytest.importorskip("pyganak")
    from test_counting import MC_SPEC

    from puzzlesat.validate.runs.certify import CheckedSolving

    (tmp_path / "mc.toml").write_bytes(MC_SPEC)
    suite = tmp_path / "suite"
    publish_suite(tmp_path / "mc.toml", suite, solving=CheckedSolving())
    calibrate_suite(suite, ["ganak:60"])
    text = (suite / "description.tex").read_text()
    assert "certified by construction, never by a model counter, from $1$ to $72$" in text
    assert text.count(r"\emph{What is counted:}") == 2  # sliding and edge matching
    assert "four rotations of a square board" in text and "undoing moves" in text
    table = text[text.index(r"\label{tab:counts}"):text.index(r"\end{tabular}")]
    assert r"instance & count & certified by & ganak s \\" in table
    rows = [line for line in table.splitlines() if line.startswith(r"\texttt")]
    assert [row.split(" & ")[1] for row in rows] == ["$1$", "$10$", "$72$"]
    assert "ganak 3 VERIFIED" in text
    assert "\\textasciicircum" not in text  # powers of ten in math mode, not a caret
    markdown = (suite / "description.md").read_text()
    assert "| four-squares-compact | 72 | search |" in markdown
    pages, log = compile_tex(suite)
    assert 1 <= pages <= 2, log[-2000:]
    assert problems(log) == []

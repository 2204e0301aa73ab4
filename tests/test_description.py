"""A published suite's description.tex: it compiles with pdflatex (IEEEtran) without an error
or an overfull line, in at most 2 pages, with a TikZ picture per family and the calibration
plots; every character of any text is made LaTeX-safe by one function, :func:`tex`. The
compiling tests skip where pdflatex or IEEEtran is absent (.ci/run installs them)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from conftest import publish_tiny
from hypothesis import given
from hypothesis import strategies as st

from puzzlesat.generator.suite.describe import tex
from puzzlesat.validate.calibrate import calibrate_suite


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
    pages, log = compile_tex(suite)
    assert 1 <= pages <= 2, log[-2000:]
    assert problems(log) == []


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

"""OPB (the Pseudo-Boolean Competition's format): the writer against a plain-Python reference
writer, the exact round trip writer -> reader, the fast reader against the reference parser on
valid and mutated texts (chunks and steps of every size), every malformed input as one clear
line, integers of any size, bounded reading and memory, and two real readers (Sat4j, SCIP) on
a written file with an objective, ``=`` and ``~x`` terms."""

from __future__ import annotations

import bz2
import gzip
import itertools
import json
import lzma
import os
import re
import shutil
import subprocess
import tracemalloc
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from bombs import MIB, xz_bomb
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzlesat.generator.core import opb as opb_module
from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.header import header_lines, parse_header
from puzzlesat.generator.core.inputs import InputTooLong
from puzzlesat.generator.core.opb import (
    RELATIONS,
    Opb,
    OpbFile,
    _cuts,
    _parse_chunks,
    _parse_reference,
    opb_body,
    opb_bytes,
    opb_head,
    opb_pieces,
    opb_text_bound,
    opb_text_limit,
    parse_opb,
    read_opb,
    stream_opb,
)
from puzzlesat.generator.tracks import get_track


# -- random formulas and the reference writer ---------------------------------------------------
def term_text(pairs) -> str:
    """``+c xI `` / ``-c ~xI `` for each (coefficient, literal)."""
    return "".join(f"{c:+d} {'~' if l < 0 else ''}x{abs(l)} " for c, l in pairs)


def reference_opb(f: Opb, header: dict | None = None) -> bytes:
    """The definition of the text, line by line in plain Python from the reference form."""
    rows = f.constraints()
    objective = [] if f.objective is None else list(zip(f.objective[1].tolist(),
                                                        f.objective[0].tolist()))
    totals = [sum(abs(c) for c, _ in terms) + abs(d) for terms, _, d in rows]
    intsize = max([*totals, sum(abs(c) for c, _ in objective)]).bit_length()
    lines = [f"* #variable= {f.num_vars} #constraint= {len(rows)} "
             f"#equal= {sum(r == '=' for _, r, _ in rows)} intsize= {intsize}"]
    lines += ["* " + line[2:] for line in header_lines(header or {})]
    if objective:
        lines.append("min: " + term_text(objective) + ";")
    lines += [term_text(terms) + f"{r} {d} ;" for terms, r, d in rows]
    return "".join(line + "\n" for line in lines).encode()


@st.composite
def formulas(draw) -> Opb:
    """Constraint blocks of widths 1-6 (ragged, 0 anywhere in a row), both relations,
    coefficients from 1 to 2^59 in magnitude, (w,) or (K, w) coefficients, scalar or per-row
    degrees, an objective or none, over 1 to 123456 variables in one or two pools."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    num_vars = draw(st.sampled_from([1, 3, 9, 10, 99, 1000, 123456]))
    f = Opb()
    f.new_vars("x", num_vars - num_vars // 3)
    f.new_vars("y", num_vars // 3)
    for b in range(draw(st.integers(0, 4))):
        width = draw(st.integers(1, min(6, num_vars)))
        rows = draw(st.integers(1, 30))
        top = draw(st.sampled_from([1, 9, 10, 10**6, 10**12, 2**59]))
        lits = np.array([rng.choice(num_vars, width, replace=False) + 1 for _ in range(rows)])
        lits *= rng.choice([-1, 1], lits.shape)
        keep = rng.integers(1, width + 1, rows)
        lits[rng.permuted(np.arange(width)[None, :] >= keep[:, None], axis=1)] = 0
        shape = (width,) if draw(st.booleans()) else (rows, width)
        coefs = rng.integers(1, top + 1, shape, dtype=np.int64) * rng.choice([-1, 1], shape)
        degree = rng.integers(-top * width, top * width + 1, rows if draw(st.booleans()) else ())
        f.add(f"b{b}", lits, coefs, draw(st.sampled_from(RELATIONS)), degree)
    if draw(st.booleans()):
        n = draw(st.integers(1, min(num_vars, 20)))
        lits = (rng.choice(num_vars, n, replace=False) + 1) * rng.choice([-1, 1], n)
        top = draw(st.sampled_from([1, 1000, 2**59]))
        f.minimise(lits, rng.integers(1, top + 1, n) * rng.choice([-1, 1], n))
    return f


headers = st.dictionaries(st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,8}", fullmatch=True),
                          st.from_regex(r"[ -~]{0,20}[!-~]", fullmatch=True), max_size=4)


def models(f, count: int = 8):
    """All false, all true, and random models (bool, index 0 unused)."""
    rng = np.random.default_rng(f.num_vars)
    yield np.zeros(f.num_vars + 1, dtype=bool)
    yield np.ones(f.num_vars + 1, dtype=bool)
    for _ in range(count):
        yield rng.random(f.num_vars + 1) < 0.5


def reference_violated(rows, model) -> list[int]:
    """The constraints a model falsifies, with Python integers."""
    def value(l):
        return bool(model[l]) if l > 0 else not model[-l]

    out = []
    for i, (terms, relation, degree) in enumerate(rows):
        total = sum(c for c, l in terms if value(l))
        if (total != degree) if relation == "=" else (total < degree):
            out.append(i)
    return out


@given(formulas(), headers)
def test_writer_matches_the_reference_and_reads_back_exactly(f, header):
    """The numpy writer's text is the reference's, byte for byte; reading it gives back every
    constraint, the objective, the header and the counts; the formula and the file agree with
    each other and with plain Python on what every model falsifies and costs."""
    text = opb_bytes(f, header)
    assert text == reference_opb(f, header)
    g = parse_opb(text, "t.opb")
    assert (g.header, g.num_vars, g.num_constraints, g.num_equal) == \
        (header, f.num_vars, f.num_constraints, f.num_equal)
    assert parse_header(g.comments.header) == header
    assert g.constraints() == f.constraints()
    assert g.coefs.dtype == g.degrees.dtype == np.int64 and g.literals.dtype == np.int32
    if f.objective is None:
        assert g.objective is None
    else:
        assert g.objective is not None
        assert [a.tolist() for a in g.objective] == [a.tolist() for a in f.objective]
    for model in models(f):
        expected = reference_violated(f.constraints(), model)
        assert f.violated(model).tolist() == g.violated(model).tolist() == expected
        assert f.cost(model) == g.cost(model)


@given(formulas())
def test_stream_gives_the_body_and_its_size(f: Opb) -> None:
    """``stream_opb`` hands over exactly the body's bytes and says how many."""
    pieces: list[bytes] = []
    size = stream_opb(f, lambda piece: pieces.append(bytes(piece)))
    assert b"".join(pieces) == opb_body(f) and size == len(opb_body(f))


def test_head_is_the_counts_line_the_header_and_the_objective():
    """Line 1 exactly as Sat4j wants it, intsize the bit length of the largest |coefficients| +
    |degree| (or the objective's |coefficients|), the header's lines as ``* key: value``, then
    ``min:``."""
    f = Opb()
    f.new_vars("x", 2)
    f.add("a", [[1, -2]], [3, -5], ">=", -7)  # 15: 4 bits
    f.add("b", [[2]], 1, "=", 1)
    assert opb_head(f, None) == b"* #variable= 2 #constraint= 2 #equal= 1 intsize= 4\n"
    f.minimise([1, 2], [-20, 1])  # 21: 5 bits
    head = opb_head(f, {"family": "demo", "seed": [1, 2]})
    assert head == (b"* #variable= 2 #constraint= 2 #equal= 1 intsize= 5\n"
                    b"* family: demo\n* seed: [1,2]\nmin: -20 x1 +1 x2 ;\n")


def test_an_objective_longer_than_a_step_is_one_line():
    """An objective of more terms than the writer formats at a time is still one ``min:``
    line, term for term the reference's."""
    f = Opb()
    f.new_vars("x", 150_000)
    f.add("a", [[1]], 1, ">=", 1)
    f.minimise(np.arange(150_000, 0, -1) * np.resize([1, -1, -1], 150_000),
               np.resize([3, -7, 1, 12], 150_000))
    assert opb_bytes(f) == reference_opb(f)
    assert parse_opb(opb_bytes(f), "t").objective[1].tolist() == f.objective[1].tolist()


@pytest.mark.parametrize("header", [{"a": ""}, {"k": "v"}, {"family": "demo", "x": "two words"},
                                    {"params": {"a": 1}, "puzzle": [1, 2], "note": "  spaced"}])
def test_every_comment_line_has_a_word_and_a_space(header):
    """Sat4j 2.3.5 skips the line after a comment line whose first word ends its line (see
    test_sat4j_skips_the_line_after_a_one_word_comment), so each written comment line has a
    space after its first word, however short the header or its values."""
    f = Opb()
    f.new_vars("x", 1)
    f.add("a", [[1]], 1, ">=", 1)
    for line in opb_head(f, header).splitlines()[1:]:
        assert re.fullmatch(rb"\* [^ \t]+[ \t].*", line), line


@pytest.mark.parametrize("build, message", [
    (lambda f: f.add("r", [[1]], 1, "<=", 1), "is not >= or ="),
    (lambda f: f.add("r", [[1, 4]], 1, ">=", 1), "beyond 3"),
    (lambda f: f.add("r", [[1, -4]], 1, ">=", 1), "beyond 3"),
    (lambda f: f.add("r", [[1, 2]], [1, 0], ">=", 1), "zero coefficient"),
    (lambda f: f.add("r", [[1, -1]], 1, ">=", 1), "twice"),
    (lambda f: f.add("r", [[0, 0]], 1, ">=", 1), "no term"),
    (lambda f: f.add("r", [[1, 2]], [2**62, 2**62], ">=", 0), "2\\^63"),
    (lambda f: f.add("r", [[1]], 2**62, ">=", -(2**62)), "2\\^63"),
    (lambda f: f.add("r", [[1]], -(2**63), ">=", 0), "-2\\^63"),
    (lambda f: f.add("r", [[1]], 2**63, ">=", 0), "block 'r'"),
    (lambda f: f.add("r", [[[1]]], 1, ">=", 1), "2-D"),
    (lambda f: f.minimise([1, 0], [1, 1]), "literal 0"),
    (lambda f: f.minimise([], []), "no term"),
    (lambda f: f.minimise([1, 2], [1]), "one length"),
    (lambda f: f.minimise([1, 2], [2**62, 2**62]), "2\\^63"),
    (lambda f: (f.minimise([1], [1]), f.minimise([2], [1])), "already"),
])
def test_formulas_the_writer_cannot_write_are_refused(build, message):
    """What would break a reader, or the 63-bit bound, is a ValueError when it is built."""
    f = Opb()
    f.new_vars("x", 3)
    with pytest.raises(ValueError, match=message):
        build(f)


def test_padding_stands_anywhere_and_blocks_keep_their_order():
    """0 is padding wherever it stands in a row; blocks and rows keep their order; a 1-D
    literal array is one constraint; an empty block adds nothing."""
    f = Opb()
    x = f.new_vars("x", 3)
    f.add("a", [[0, 2, 0, -3]], [9, 1, 9, 2], "=", 1)
    f.add("empty", np.zeros((0, 2), np.int32), 1, ">=", 0)
    f.add("b", x, [1, 1, 1], ">=", [2])
    assert f.constraints() == [([(1, 2), (2, -3)], "=", 1),
                               ([(1, 1), (1, 2), (1, 3)], ">=", 2)]
    assert opb_body(f) == b"+1 x2 +2 ~x3 = 1 ;\n+1 x1 +1 x2 +1 x3 >= 2 ;\n"


# -- the fast reader against the reference parser -----------------------------------------------
def summary(f: OpbFile):
    """Everything a parsed file holds, types included, as plain values."""
    def typed(a: np.ndarray):
        return a.dtype.str, a.tolist()

    objective = None if f.objective is None else tuple(typed(a) for a in f.objective)
    return (f.header, f.num_vars, f.num_equal, f.num_constraints, typed(f.starts),
            typed(f.literals), typed(f.coefs), typed(f.degrees), typed(f.equal), objective,
            f.comments.header, f.size)


def outcome(parse, *args):
    """("ok", the summary) or ("error", the message, which is one line)."""
    try:
        parsed = parse(*args)
    except UserError as exc:
        assert "\n" not in str(exc)
        return "error", str(exc)
    return "ok", summary(parsed)


@st.composite
def others_texts(draw) -> bytes:
    """Valid texts laid out as other tools write them: tabs and runs of spaces, indented
    lines, unsigned and zero-padded coefficients, comment and blank lines anywhere after line 1
    (bare ``*``, header lines), CRLF, trailing white space, no final newline, the counts line
    with or without ``#equal=`` and ``intsize=``, coefficients and degrees past 2^63."""
    f = draw(formulas())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    big = draw(st.sampled_from([0, 0, 0.2]))

    def space() -> str:
        return str(rng.choice([" ", " ", "  ", "\t", " \t "]))

    def integer(value: int) -> str:
        if rng.random() < big:
            value *= 2**64 + int(rng.integers(0, 9))
        sign = "-" if value < 0 else str(rng.choice(["+", ""]))
        return sign + "0" * int(rng.random() < 0.1) + str(abs(value))

    def terms(pairs) -> str:
        return "".join(integer(c) + space() + ("~" if l < 0 else "") + f"x{abs(l)}" + space()
                       for c, l in pairs)

    rows = f.constraints()
    first = f"* #variable= {f.num_vars} #constraint= {len(rows)}"
    if rng.random() < 0.5:
        first += f" #equal= {f.num_equal}"
    if rng.random() < 0.5:
        first += f"{space()}intsize= {rng.integers(0, 99)}"
    body = []
    if f.objective is not None:
        body.append("min:" + space() + terms(zip(f.objective[1].tolist(),
                                                 f.objective[0].tolist())) + ";")
    body += [terms(t) + f"{r}{space()}{integer(d)}{space()};" for t, r, d in rows]
    body = [space() + line if rng.random() < 0.2 else line for line in body]  # indented
    comments = ["* note", "*", "* family: demo", "**", "* key: a value", "", "   ", "* #x= 1"]
    for _ in range(int(rng.integers(0, 5))):
        body.insert(int(rng.integers(0, len(body) + 1)), str(rng.choice(comments)))
    ends = [str(rng.choice(["\n", "\r\n", " \n", "\t\n"])) for _ in range(len(body) + 1)]
    text = "".join(line + end for line, end in zip([first, *body], ends))
    return text.rstrip("\r\n\t ").encode() if rng.random() < 0.2 else text.encode()


HOSTILE = [b"<=", b">", b"<", b"!=", b"=", b">=", b";", b"min:", b"max:", b"x0", b"x01", b"y3",
           b"~x", b"~~x1", b"+", b"-", b"--1", b"1;", b">=1", b"x99999999999", b"+1.5", b"*",
           b"9" * 25, b"-" + b"9" * 25, b"x1", b"~x2", b"+3", b"0", b"\xff", b"min:+1", b"\x00"]


@st.composite
def mutated_texts(draw) -> bytes:
    """A valid text with one to three edits, most past line 1: a token replaced by, or a
    hostile token put before, another; a token or a line taken out; a line split, doubled or
    joined to the next."""
    text = draw(others_texts())
    for _ in range(draw(st.integers(1, 3))):
        body = draw(st.integers(0, 7)) > 0  # line 1 one time in eight
        tokens = [m.span() for m in re.finditer(rb"[^ \t\r\n]+", text)
                  if not body or m.start() > text.find(b"\n") >= 0] or [(0, 0)]
        a, b = tokens[draw(st.integers(0, 10**6)) % len(tokens)]
        lines = text.split(b"\n")
        line = draw(st.integers(0, 10**6)) % len(lines) if not body or len(lines) < 2 else \
            1 + draw(st.integers(0, 10**6)) % (len(lines) - 1)
        hostile = draw(st.sampled_from(HOSTILE))
        edit = draw(st.integers(0, 6))
        if edit == 0:
            text = text[:a] + hostile + text[b:]
        elif edit == 1:
            text = text[:a] + text[b:]
        elif edit == 2:
            text = text[:a] + hostile + b" " + text[a:]
        elif edit == 3:
            text = text[:a] + b"\n" + text[a:]
        elif edit == 4:
            text = b"\n".join(lines[:line] + lines[line + 1:])
        elif edit == 5:
            text = b"\n".join(lines[:line] + [lines[line]] + lines[line:])
        elif line + 1 < len(lines):  # a line joined to the next, with or without a space
            joint = draw(st.sampled_from([b" ", b""]))
            text = b"\n".join(lines[:line] + [lines[line] + joint + lines[line + 1]]
                              + lines[line + 2:])
    return text


def fast_in_pieces(text: bytes, chunk: int, step: int, search: int, piece: int = 0):
    """The fast parser given the text in pieces of ``piece`` bytes (0: whole, as parse_opb
    gives it), read in chunks of about ``chunk`` bytes (a longer line cut where a token
    starts), steps of ``step`` bytes and searches of ``search`` bytes for a token's start (so
    that small texts cross every boundary: a line over many pieces, chunks and steps, a step
    ending inside a token's white space)."""
    size = piece or max(len(text), 1)
    pieces = [text[at: at + size] for at in range(0, len(text), size)]
    with mock.patch.object(opb_module, "_STEP_BYTES", step), \
            mock.patch.object(opb_module, "_SEARCH", search), \
            mock.patch.object(opb_module, "_SEARCH_BACK", search):
        return outcome(_parse_chunks, _cuts(pieces, "t.opb", chunk), "t.opb")


@settings(max_examples=200)
@given(st.one_of(others_texts(), mutated_texts()), st.integers(1, 200), st.integers(1, 64),
       st.integers(2, 16), st.integers(0, 50))
def test_fast_reader_agrees_with_the_reference(text, chunk, step, search, piece):
    """On valid and mutated texts, the numpy reader and the plain-Python reference give the
    same file or the same one-line error, read whole or in pieces, chunks and steps of any
    size."""
    expected = outcome(_parse_reference, text, "t.opb")
    assert outcome(parse_opb, text, "t.opb") == expected
    assert fast_in_pieces(text, chunk, step, search, piece) == expected


@given(others_texts())
def test_texts_laid_out_as_others_write_them_are_read(text):
    """The valid texts of the property test above are read (so that it compares files, not
    only errors)."""
    assert outcome(_parse_reference, text, "t")[0] == "ok"


# -- every mistake, one line --------------------------------------------------------------------
H = b"* #variable= 3 #constraint= 1\n"
CASES = [
    (b"", 1, "not the counts line"),
    (b"+1 x1 >= 1 ;\n", 1, "not the counts line"),
    (b"* #variable=3 #constraint= 1\n+1 x1 >= 1 ;\n", 1, "not the counts line"),
    (b"* #constraint= 1 #variable= 3\n+1 x1 >= 1 ;\n", 1, "not the counts line"),
    (b"* #variable= 3 #constraint= 1 #product= 2 sizeproduct= 4\n", 1, "not the counts line"),
    (b"* #variable= 2147483648 #constraint= 1\n+1 x1 >= 1 ;\n", 1, "beyond 2^31 - 1"),
    (b"* #variable= 3 #constraint= 1234567890123456789\n", 1, "more than 18 digits"),
    (b"* a comment\n" + H + b"+1 x1 >= 1 ;\n", 1,
     "found '* a comment': the counts line comes first, before any comment"),
    (H + b"+1 x1 +1 x2 <= 1 ;\n", 2, "relation '<='"),
    (H + b"+1 x1 +1 x2 > 1 ;\n", 2, "relation '>'"),
    (H + b"+1 x1 +1 x2 < 1 ;\n", 2, "relation '<'"),
    (H + b"+1 x1 +1 x2 != 1 ;\n", 2, "relation '!='"),
    (H + b"max: +1 x1 ;\n+1 x1 >= 1 ;\n", 2, "a max: objective"),
    (H + b"+1 x1 >= 1\n", 2, "does not end with ' ;' on its line"),
    (H + b"+1 x1\n>= 1 ;\n", 2, "does not end with ' ;' on its line"),
    (H + b"+1 x1 >= 1 ; +1 x2 >= 1 ;\n", 2, "text after ';'"),
    (H + b"+1 x1 >= 1;\n", 2, "expected the degree (an integer) after >=, found '1;'"),
    (H + b"+1 x1 >=1 ;\n", 2, "'>=1': the relation, the degree and ';' are tokens apart"),
    (H + b"+1 x1 >= ;\n", 2, "expected the degree"),
    (H + b"+1 x1 >= 1 2 ;\n", 2, "expected ';' after the degree"),
    (H + b"+1 x1 ; >= 1\n", 2, "';' before the relation"),
    (H + b"+1 x0 >= 1 ;\n", 2, "variable 'x0': variables are numbered from x1"),
    (H + b"+1 x4 >= 1 ;\n", 2, "variable 'x4' is beyond the #variable= 3 of line 1"),
    (H + b"+1 ~x4 >= 1 ;\n", 2, "beyond the #variable= 3"),
    (H + b"+1 x01 >= 1 ;\n", 2, "leading zero"),
    (H + b"+1 x12345678901234567890 >= 1 ;\n", 2, "beyond the #variable= 3"),
    (H + b"+1 y1 >= 1 ;\n", 2, "variable name 'y1'"),
    (H + b"+1 ~~x1 >= 1 ;\n", 2, "expected a variable"),
    (H + b"+1 +2 x1 >= 1 ;\n", 2, "two integers in a row"),
    (H + b"x1 >= 1 ;\n", 2, "a missing coefficient before 'x1'"),
    (H + b"+1 x1 +2 >= 1 ;\n", 2, "expected a variable"),
    (H + b"+1 x1 +2\n", 2, "has no variable"),
    (H + b"+ 1 x1 >= 1 ;\n", 2, "expected a coefficient (an integer), found '+'"),
    (H + b"+1.5 x1 >= 1 ;\n", 2, "found '+1.5'"),
    (H + b" * an indented comment\n+1 x1 >= 1 ;\n", 2, "found '*'"),
    (H + b"+1 x1 \xff>= 1 ;\n", 2, "'\\xff>='"),
    (H + b">= 1 ;\n", 2, "a constraint with no term"),
    (H + b"min: ;\n+1 x1 >= 1 ;\n", 2, "an empty objective"),
    (H + b"min:\n+1 x1 >= 1 ;\n", 2, "the objective does not end with ' ;'"),
    (H + b"min: +1 x1 >= 1 ;\n", 2, "relation '>=' in the objective"),
    (H + b"min: +1 x1 ; +1 x2\n+1 x1 >= 1 ;\n", 2, "text after ';'"),
    (H + b"+1 x1 >= 1 ;\nmin: +1 x2 ;\n", 3, "the objective (min:) after a constraint"),
    (H + b"+1 x1 >= 1 ;\n   min: +1 x2 ;\n", 3, "the objective (min:) after a constraint"),
    (H + b"min: +1 x1 ;\nmin: +1 x2 ;\n+1 x1 >= 1 ;\n", 3, "a second objective"),
    (H + b"min: +1 x1 ; min: +1 x2 ;\n", 2, "text after ';'"),
    (H + b"+1 x1 >= 1 ;\n+1 x2 >= 1 ;\n", 3, "more constraints than the #constraint= 1"),
    (H + b"+1 x1 >= 1 ;\n+1 x9 >= 1 ; junk\n", 3, "more constraints than"),
    (H + b">= 1 ; junk\n", 2, "a constraint with no term"),
    (H + b"min: ; junk\n+1 x1 >= 1 ;\n", 2, "an empty objective"),
    (H + b"min: +1 x1 ;\n+1 x1 >= 1 ;\n\t+1 x2 >= 1 ;\n", 4, "more constraints than"),
    (H + b"+1 x1 >= 1 ;\n" + b"* k: v\n" * 1001, 1003, "more than 1000 header lines"),
    (b"* #variable= 3 #constraint= 2\n+1 x1 >= 1 ;\n", None,
     "line 1 declares #constraint= 2, the file holds 1"),
    (b"* #variable= 3 #constraint= 1 #equal= 1\n+1 x1 >= 1 ;\n", None,
     "line 1 declares #equal= 1, the file holds 0"),
]


@pytest.mark.parametrize("text, line, fragment", CASES,
                         ids=[f"{i}-{c[2][:30]}" for i, c in enumerate(CASES)])
def test_every_mistake_is_one_clear_line(text, line, fragment):
    """Each mistake is a UserError of one line naming the file, the line and the mistake,
    the same from the fast reader, the reference, and the fast reader in chunks of a few
    bytes cut into steps of every size (so that a step starts at every token of the line)."""
    with pytest.raises(UserError) as caught:
        parse_opb(text, "t.opb")
    message = str(caught.value)
    assert "\n" not in message and fragment in message, message
    assert message.startswith(f"t.opb: line {line}: " if line else "t.opb: line 1 declares")
    assert outcome(_parse_reference, text, "t.opb") == ("error", message)
    for step in range(1, min(len(text), 80) + 1):
        assert fast_in_pieces(text, 7, step, 3) == ("error", message), step


def test_a_header_past_its_limit_is_refused_where_it_overflows_in_any_chunk():
    """The header-line limit counts over chunks, and a mistake before the line that passes
    it is the one named."""
    text = H + b"* k: v\n" * 1000 + b"+1 x1 >= 1 ;\n* k: v\n"
    expected = "t.opb: line 1003: more than 1000 header lines"
    for chunk in (10, 100, 10**6):
        assert fast_in_pieces(text, chunk, 9, 4)[1].startswith(expected)
    earlier = H + b"* k: v\n" * 1000 + b"+1 x9 >= 1 ;\n* k: v\n"
    assert fast_in_pieces(earlier, 10, 9, 4)[1].startswith("t.opb: line 1002: variable 'x9'")


def test_a_comment_line_or_a_token_past_what_a_reader_holds_is_one_line():
    """A comment line is held whole, a token with its white space up to a bound: past either,
    one line (not the whole line held, however long)."""
    cases = [(H + b"* " + b"c " * 60 + b"\n+1 x1 >= 1 ;\n", "line 2: a comment line longer "
              "than 100 bytes"),
             (H + b"+1 x1 +" + b"1" * 60 + b" x2 >= 1 ;\n", "line 2: a token, or white space, "
              "longer than 50 bytes"),
             (H + b"+1 x1" + b" " * 60 + b">= 1 ;\n", "line 2: a token, or white space")]
    with mock.patch.object(opb_module, "MAX_COMMENT_BYTES", 100), \
            mock.patch.object(opb_module, "MAX_TOKEN_BYTES", 50):
        for text, fragment in cases:
            for piece in (0, 1, 7):
                found = fast_in_pieces(text, 10, 8, 4, piece)
                assert found[0] == "error" and found[1].startswith(f"t.opb: {fragment}"), found


# -- integers of any size, sums past 2^63 -------------------------------------------------------
def test_integers_of_any_size_are_read_exactly():
    """Coefficients and degrees of thousands of digits (past Python's 4300-digit int()
    limit) are read exactly; one of them makes every integer array a Python-integer array,
    and what a model falsifies and costs is computed exactly."""
    nines = 10**5000 - 1
    text = (b"* #variable= 2 #constraint= 2 #equal= 1\nmin: +" + b"9" * 5000 + b" x1 -1 x2 ;\n"
            b"+" + b"9" * 5000 + b" x1 -1 ~x2 >= -" + b"1" * 30 + b" ;\n"
            b"+1 x1 +1 x2 = +0002 ;\n")
    g = parse_opb(text, "t")
    assert g.coefs.dtype == g.degrees.dtype == g.objective[1].dtype == object
    assert g.constraints() == [([(nines, 1), (-1, -2)], ">=", -int("1" * 30)),
                               ([(1, 1), (1, 2)], "=", 2)]
    assert summary(g) == summary(_parse_reference(text, "t"))
    model = np.array([False, True, True])
    assert g.violated(model).tolist() == [] and g.cost(model) == nines - 1
    assert g.violated(np.array([False, False, True])).tolist() == [1]


def test_int64_sums_past_2_to_the_63_are_exact():
    """Coefficients within int64 whose sums pass 2^63, where wrapping int64 sums would be
    wrong (2^63 read as -2^63 < 2^63 - 1; 3 * 2^62 read as -2^62): violated and cost are
    exact; -2^63 itself needs 64 bits and makes the arrays Python integers."""
    q = 2**62
    text = (f"* #variable= 3 #constraint= 3\nmin: +{q} x1 +{q} x2 +{q} x3 ;\n"
            f"+{q} x1 +{q} x2 >= {2**63 - 1} ;\n"
            f"+{q} x1 +{q} x2 +{q} x3 = -{q} ;\n"
            f"+{q} x1 +{q} x2 +{q} x3 >= {2**63 - 1} ;\n").encode()
    g = parse_opb(text, "t")
    assert g.coefs.dtype == g.degrees.dtype == g.objective[1].dtype == np.int64
    everything = np.array([False, True, True, True])
    assert g.violated(everything).tolist() == [1] and g.cost(everything) == 3 * q
    assert g.violated(np.array([False, True, False, True])).tolist() == [0, 1]
    assert g.violated(np.array([False, False, False, True])).tolist() == [0, 1, 2]
    low = parse_opb(b"* #variable= 1 #constraint= 1\n-9223372036854775808 x1 >= 0 ;\n", "t")
    assert low.coefs.dtype == object and low.coefs[0] == -(2**63)
    assert low.violated(np.array([False, True])).tolist() == [0]


# -- files, bounds, memory ----------------------------------------------------------------------
def small_formula() -> Opb:
    f = Opb()
    f.new_vars("x", 4)
    f.add("a", [[1, -2, 3], [4, 0, -1]], [[2, 3, -1], [1, 0, 5]], ">=", [1, 2])
    f.add("b", [[2, 3]], 1, "=", 1)
    f.minimise([-4, 2], [3, 1])
    return f


@pytest.mark.parametrize("compress", [bytes, lzma.compress, gzip.compress, bz2.compress])
def test_files_are_read_plain_or_compressed_by_their_bytes(tmp_path, compress):
    """read_opb and opb_pieces read a file whatever its name, by its magic bytes."""
    text = opb_bytes(small_formula(), {"family": "demo"})
    (tmp_path / "f.opb").write_bytes(compress(text))
    assert summary(read_opb(tmp_path / "f.opb")) == summary(parse_opb(text, "x"))
    assert b"".join(opb_pieces(tmp_path / "f.opb")) == text


def test_reading_stops_at_the_limit(tmp_path):
    """Past ``limit`` bytes of (decompressed) text, reading stops with InputTooLong naming
    the holder; a file that lies in its counts line costs only what it holds."""
    text = opb_bytes(small_formula())
    (tmp_path / "f.opb.xz").write_bytes(lzma.compress(text + b"* pad\n" * 10**6))
    with pytest.raises(InputTooLong, match="the most a test instance can hold"):
        read_opb(tmp_path / "f.opb.xz", limit=len(text) + 100, holder="a test instance")
    with pytest.raises(InputTooLong):
        b"".join(opb_pieces(tmp_path / "f.opb.xz", limit=1000))
    liar = b"* #variable= 2147483647 #constraint= 999999999999999999\n+1 x1 >= 1 ;\n"
    with pytest.raises(UserError, match="declares #constraint= 999999999999999999"):
        parse_opb(liar, "t")


@given(formulas())
def test_every_text_the_writer_writes_is_within_its_counts_lines_bound(f):
    """The bound a counts line puts on the text holds every text written, with no room taken
    from the comments' allowance."""
    text = opb_bytes(f)
    line, body = text.split(b"\n", 1)
    intsize = int(line.rsplit(b" ", 1)[1])
    assert len(body) <= opb_text_bound(f.num_vars, f.num_constraints, intsize) \
        - opb_module.MAX_COMMENT_BYTES


def test_the_counts_line_bounds_the_text(tmp_path):
    """Text past what its counts line allows (:func:`opb_text_bound`) is refused as soon as it
    is read (before, all of it was read and kept): read_opb, opb_pieces and the track's
    text_limit say the same; a counts line that declares far more costs only what the text
    holds."""
    line = b"* #variable= 2 #constraint= 1"
    allowed = len(line) + 1 + opb_text_bound(2, 1, None) - opb_module.MAX_COMMENT_BYTES
    terms = b"+1 x1 +1 x2 " * (allowed // 12)
    path = tmp_path / "f.opb.xz"
    holder = "the most an OPB instance with the counts line '\\* #variable= 2 #constraint= 1' "
    with mock.patch.object(opb_module, "MAX_COMMENT_BYTES", 0):
        for body, fits in ((terms[: (allowed - 100) // 12 * 12] + b">= 1 ;\n", True),
                           (terms + b"+1 x1 >= 1 ;\n", False)):
            path.write_bytes(lzma.compress(line + b"\n" + body))
            assert opb_text_limit(path)[0] == allowed
            assert get_track("pb").text_limit(path) == allowed
            if fits:
                assert read_opb(path).num_constraints == 1
                continue
            with pytest.raises(InputTooLong, match=f"longer than {allowed:,} bytes, {holder}"):
                read_opb(path)
            with pytest.raises(InputTooLong, match=holder):
                b"".join(opb_pieces(path))
    liar = b"* #variable= 2147483647 #constraint= 999999999999999999 intsize= 999\n"
    (tmp_path / "liar.opb").write_bytes(liar + b"+1 x1 >= 1 ;\n" * 1000)
    assert opb_text_limit(tmp_path / "liar.opb") == (opb_module.MAX_OPB_BYTES, "an OPB instance")
    with pytest.raises(UserError, match="declares #constraint= 999999999999999999, the file "
                       "holds 1000"):
        peak_bytes(read_opb, tmp_path / "liar.opb", below=4 << 20)


def peak_bytes(parse, source, below: int | None = None) -> int:
    """The most memory (numpy's included) that ``parse(source)`` held at once, checked to be
    ``below`` that when given (also when it raises)."""
    tracemalloc.start()
    try:
        parse(source)
        return tracemalloc.get_traced_memory()[1]
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert below is None or peak < below, peak


def test_memory_is_what_the_text_holds_whatever_its_lines():
    """Reading takes at most about three times the text (the arrays read: 12 bytes a term of
    at least 5 bytes, joined once) and a fixed allowance for a step's work (a step is about
    1 MB), whether the text is many short lines or one long one."""
    rng = np.random.default_rng(5)
    f = Opb()
    f.new_vars("x", 10**6)
    f.add("short", rng.integers(1, 10**6, (300_000, 1)), 1, ">=", 1)
    lines = opb_bytes(f)
    g = Opb()
    g.new_vars("x", 10**6)
    g.add("one", [[1]], 1, ">=", 1)
    g.minimise(np.arange(1, 10**6 + 1), rng.integers(1, 10**6, 10**6))
    long_line = opb_bytes(g)
    for text in (lines, long_line):
        assert peak_bytes(parse_opb, text) < 3 * len(text) + (80 << 20), len(text)


def test_what_a_model_falsifies_is_found_a_slice_at_a_time():
    """violated's temporaries (several words a term and a constraint) are a slice's, not the
    file's: on 1,000,000 constraints, 3 MB (61 MB before), the same constraints as the
    formula's own count."""
    rng = np.random.default_rng(1)
    f = Opb()
    f.new_vars("x", 1000)
    f.add("c", np.arange(1, 4) + rng.integers(0, 997, (1_000_000, 1)), [1, 2, 3], ">=", 2)
    f.add("one", [[1, 2]], [-1, 1], "=", 0)
    g = parse_opb(opb_bytes(f), "t")
    model = rng.random(1001) < 0.5
    assert g.violated(model).tolist() == f.violated(model).tolist()
    assert peak_bytes(g.violated, model) < 8 << 20


def test_a_line_longer_than_a_chunk_is_held_a_chunk_at_a_time(tmp_path):
    """A constraint line of 100 MB (read from a compressed file) costs what is kept of it, 12
    bytes a term grown in place by an eighth, and a step's work: not the line whole, nor the
    terms twice (held whole, then its terms kept in pieces and joined, it took 322 MB)."""
    terms = b"".join(b"+1 x%d " % v for v in range(1, 50_001))
    path = xz_bomb(tmp_path / "long.opb.xz", b"* #variable= 1000000 #constraint= 1\n", terms,
                   100, b">= 1 ;\n")
    count = 100 * (MIB // len(terms)) * 50_000
    kept = 12 * count
    parsed = read_opb(path)
    assert parsed.literals.size == count and parsed.starts.tolist() == [0, count]
    peak = peak_bytes(read_opb, path)
    assert peak < kept * 9 // 8 + (96 << 20), (peak >> 20, kept >> 20)


# -- real readers: Sat4j and SCIP ---------------------------------------------------------------
def crafted() -> Opb:
    """Six variables, an ``=`` constraint, ``~x`` terms and negative coefficients in the
    constraints and the objective; its optimum, 6, is unique, and leaving out any one
    constraint or the objective changes the answer (test_the_crafted_instance_needs_every_line)."""
    f = Opb()
    f.new_vars("x", 6)
    f.add("equal", [[2, -3]], [-3, -2], "=", -2)
    f.add("at_least", [[-6, -5, -3], [-4, -3, -1], [3, -6, 5]],
          [[1, 2, 2], [-3, -2, 3], [2, 3, 2]], ">=", [3, 0, 2])
    f.minimise([-1, -2, 3, -5, -6], [4, 1, 4, -2, 3])
    return f


OPTIMUM = 6


def optima(f: Opb, skip: int | None = None, objective: bool = True) -> tuple[int, int] | None:
    """(the least cost, how many models reach it) over all models, the constraint ``skip``
    left out, or the objective (then every model costs 0); None when none is feasible."""
    costs = []
    for bits in itertools.product([False, True], repeat=f.num_vars):
        model = np.array([False, *bits])
        if not set(f.violated(model).tolist()) - {skip}:
            costs.append(f.cost(model) if objective else 0)
    return (min(costs), costs.count(min(costs))) if costs else None


def test_the_crafted_instance_needs_every_line():
    """A reader that drops any line of the file (a constraint, or the objective) finds
    another answer than the one the solver tests expect."""
    f = crafted()
    assert optima(f) == (OPTIMUM, 1)
    for skip in range(f.num_constraints):
        assert optima(f, skip) != (OPTIMUM, 1)
    assert optima(f, objective=False)[1] > 1


HEADERS = [None, {"family": "demo"},
           {"puzzlesat-format": 1, "family": "demo", "instance": "crafted",
            "params": {"a": [1, 2]}, "expected": "OPTIMUM", "note": "x"}]
SAT4J = Path(os.environ.get("PUZZLESAT_SAT4J_JAR", "/usr/share/java/org.sat4j.pb.jar"))
PB_PYTHON = Path(os.environ.get("PUZZLESAT_PB_PYTHON", "/work/tools/pb-venv/bin/python"))


def sat4j(path: Path) -> tuple[str, list[int], np.ndarray]:
    """Sat4j's answer on ``path``: its status, its ``o`` costs and its model (skips the test
    without java or the jar)."""
    java = shutil.which("java")
    if java is None or not SAT4J.is_file():
        pytest.skip(f"no java or no Sat4j jar at {SAT4J} (PUZZLESAT_SAT4J_JAR)")
    run = subprocess.run([java, "-jar", str(SAT4J), str(path)], capture_output=True,
                         text=True, timeout=300)
    lines = run.stdout.splitlines()
    status = next(line[2:] for line in lines if line.startswith("s "))
    values = " ".join(line[2:] for line in lines if line.startswith("v ")).split()
    model = np.zeros(len(values) + 1, dtype=bool)
    for value in values:
        model[int(value.lstrip("-x"))] = not value.startswith("-")
    return status, [int(line[2:]) for line in lines if line.startswith("o ")], model


@pytest.mark.parametrize("header", HEADERS)
def test_sat4j_reads_every_line_of_a_written_file(tmp_path, header):
    """Sat4j 2.3.5 finds the unique optimum of the crafted instance written with no header,
    one header line, or many between line 1 and ``min:``: it read the objective and every
    constraint; its model is checked by the formula and by the file read back."""
    f = crafted()
    path = tmp_path / "crafted.opb"
    path.write_bytes(opb_bytes(f, header))
    status, costs, model = sat4j(path)
    assert status == "OPTIMUM FOUND" and costs[-1] == OPTIMUM
    assert f.violated(model).tolist() == [] and f.cost(model) == OPTIMUM
    assert read_opb(path).violated(model).tolist() == []


def test_sat4j_skips_the_line_after_a_one_word_comment(tmp_path):
    """Why every written comment line has a space after its first word: after ``* c1``
    Sat4j 2.3.5 skips the next line, here the objective, and answers a decision problem."""
    text = opb_bytes(crafted())
    first = text.index(b"\n") + 1
    path = tmp_path / "hazard.opb"
    path.write_bytes(text[:first] + b"* c1\n" + text[first:])
    assert parse_opb(path.read_bytes(), "hazard").objective is not None  # we read it
    assert sat4j(path)[0] == "SATISFIABLE"


SCIP = """
import json, sys
from pyscipopt import Model
m = Model()
m.hideOutput()
m.readProblem(sys.argv[1])
constraints = m.getNConss()
m.optimize()
sol = m.getBestSol()
print(json.dumps({"status": m.getStatus(), "objective": m.getObjVal(), "constraints": constraints,
                  "model": {v.name: round(m.getSolVal(sol, v)) for v in m.getVars()}}))
"""


@pytest.mark.parametrize("header", HEADERS)
def test_scip_reads_every_line_of_a_written_file(tmp_path, header):
    """SCIP (PySCIPOpt, run by PUZZLESAT_PB_PYTHON in a child process) reads the written file
    to as many constraints as it has and finds the unique optimum; its model is checked."""
    if not os.access(PB_PYTHON, os.X_OK):
        pytest.skip(f"no Python with PySCIPOpt at {PB_PYTHON} (PUZZLESAT_PB_PYTHON)")
    f = crafted()
    path = tmp_path / "crafted.opb"
    path.write_bytes(opb_bytes(f, header))
    run = subprocess.run([str(PB_PYTHON), "-c", SCIP, str(path)], capture_output=True,
                         text=True, timeout=300)
    if "No module named 'pyscipopt'" in run.stderr:
        pytest.skip(f"{PB_PYTHON} has no PySCIPOpt")
    answer = json.loads(run.stdout.splitlines()[-1])
    assert answer["status"] == "optimal" and answer["objective"] == OPTIMUM
    assert answer["constraints"] == f.num_constraints
    model = np.zeros(f.num_vars + 1, dtype=bool)
    for name, value in answer["model"].items():
        model[int(name.lstrip("x"))] = bool(value)
    assert f.violated(model).tolist() == [] and f.cost(model) == OPTIMUM

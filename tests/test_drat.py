"""Our DRAT checker on hostile proofs, against the plain-Python reference and against referees
(drup, and drat-trim where on PATH), on real CaDiCaL proofs, binary and compressed."""

from __future__ import annotations

import bz2
import gzip
import itertools
import lzma
import os
import re
import shutil
import subprocess
import tempfile
import time
from unittest import mock

import numpy as np
import pytest
from drat_reference import check_reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pysat.examples.genhard import PHP
from pysat.solvers import Cadical195

from puzzlesat.generator.core.errors import UserError
from puzzlesat.validate.proof import database, drat
from puzzlesat.validate.proof import reader as drat_input
from puzzlesat.validate.proof.check import check_proof
from puzzlesat.validate.proof.database import ClauseDatabase
from puzzlesat.validate.proof.drat import check_drat, verify_drat
from puzzlesat.validate.proof.lrat import write_lrat
from puzzlesat.validate.proof.lrat_check import check_lrat
from puzzlesat.validate.proof.reader import ProofFormatError, read_proof

drup = pytest.importorskip("drup")

SAT_2 = [[1, 2], [-2]]
#: the issue's proof: dratify kept 4 true after deleting the clause that implied it
BOGUS = b"3 0\n4 -3 0\nd 4 -3 0\n-4 0\n0\n"


def flat(clauses) -> np.ndarray:
    return np.array([x for c in clauses for x in [*c, 0]], np.int32)


def num_vars(clauses) -> int:
    return max((abs(x) for c in clauses for x in c), default=0)


def ours(clauses, proof: bytes, backward: bool = True,
         slice_literals: int = drat.SLICE) -> tuple[bool, str]:
    """Our verdict, the proof read into the checker's database (the validator's way: each
    step taken as it is read; a proof read alone is taken whole, see the property test)."""
    formula = flat(clauses)
    return check_drat(formula, read_proof(proof, database=ClauseDatabase(formula)),
                      backward, slice_literals=slice_literals)


def cake_lpr_accepts(clauses, cert) -> bool:
    """cake_lpr's verdict on the certificate (text LRAT) for the formula."""
    with tempfile.TemporaryDirectory() as tmp:
        cnf, lrat = os.path.join(tmp, "f.cnf"), os.path.join(tmp, "f.lrat")
        with open(cnf, "w") as out:
            out.write(f"p cnf {num_vars(clauses)} {len(clauses)}\n"
                      + "".join(" ".join(map(str, dict.fromkeys(c))) + " 0\n" for c in clauses))
        write_lrat(cert, lrat, len(clauses))
        run = subprocess.run(["cake_lpr", cnf, lrat], capture_output=True, text=True)
    return run.stdout.splitlines() == ["s VERIFIED UNSAT"]


def steps_of(proof: bytes) -> list[tuple[bool, list[int]]]:
    steps = []
    for line in proof.decode().splitlines():
        words = line.split()
        if not words or words[0] == "c":
            continue
        deletion = words[0] == "d"
        steps.append((deletion, [int(w) for w in words[deletion:-1]]))
    return steps


def satisfiable(clauses) -> bool:
    """Brute force over every assignment (small formulas only)."""
    n = num_vars(clauses)
    return any(all(any((x > 0) == bool(bits >> (abs(x) - 1) & 1) for x in c) for c in clauses)
               for bits in range(1 << n))


def drup_valid(clauses, proof: bytes) -> bool:
    """drup's verdict; it reads no comment lines, so they are stripped."""
    cnf = f"p cnf {num_vars(clauses)} {len(clauses)}\n" + "".join(
        " ".join(map(str, [*c, 0])) + "\n" for c in clauses)
    text = "".join(line + "\n" for line in proof.decode().splitlines()
                   if line.strip() and not line.startswith("c"))
    return drup.check_proof_from_strings(cnf, text).outcome == drup.Outcome.VALID


def drat_trim_verdict(tmp_path, clauses, proof: bytes) -> str:
    cnf, drat = tmp_path / "f.cnf", tmp_path / "f.drat"
    cnf.write_text(f"p cnf {num_vars(clauses)} {len(clauses)}\n" + "".join(
        " ".join(map(str, [*c, 0])) + "\n" for c in clauses))
    drat.write_bytes(proof)
    run = subprocess.run(["drat-trim", str(cnf), str(drat)], capture_output=True, text=True)
    return [line for line in run.stdout.splitlines() if line.startswith("s ")][-1]


def binary(proof: bytes) -> bytes:
    """The text proof in binary DRAT."""
    out = bytearray()
    for deletion, lits in steps_of(proof):
        out += b"d" if deletion else b"a"
        for x in lits:
            u = 2 * abs(x) + (x < 0)
            while u >= 128:
                out.append(u & 127 | 128)
                u >>= 7
            out.append(u)
        out.append(0)
    return bytes(out)


def php(holes: int) -> list[list[int]]:
    return PHP(holes).clauses


def cadical_proof(clauses) -> bytes:
    with Cadical195(bootstrap_with=clauses, with_proof=True) as solver:
        assert not solver.solve()
        return "".join(line + "\n" for line in solver.get_proof()).encode()


def assert_rejected(clauses, proof: bytes, step: int | None = None) -> None:
    """Rejected by ours (both ways), the reference, drup; at ``step`` when given."""
    for backward in (True, False):
        ok, reason = ours(clauses, proof, backward)
        assert ok is False, reason
        if step is not None and not backward:
            assert reason.startswith(f"step {step}:"), reason
    assert check_reference(clauses, steps_of(proof))[0] is False
    if step is not None:
        assert check_reference(clauses, steps_of(proof))[1] == step - 1


# -- the hostile corpus --------------------------------------------------------------------------
def test_the_issue_proof_is_rejected(tmp_path):
    assert_rejected(SAT_2, BOGUS, step=4)
    assert ours(SAT_2, BOGUS)[1] == "step 4: lemma -4 0 is neither RUP nor RAT"
    assert not drup_valid(SAT_2, BOGUS)
    if shutil.which("drat-trim"):
        assert drat_trim_verdict(tmp_path, SAT_2, BOGUS) == "s NOT VERIFIED"


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_deleting_reason_clauses_in_any_order_proves_nothing(order):
    """A chain of fresh units 3 -> 4 -> 5, its clauses deleted in every order, then the
    negations: with a stale root assignment the last one would conflict."""
    chain = ["3 0", "4 -3 0", "5 -4 0"]
    deletions = "".join(f"d {chain[i]}\n" for i in order)
    for tail in ("-5 0\n-4 0\n-3 0\n0\n", "-3 0\n0\n", "0\n"):
        proof = ("\n".join(chain) + "\n" + deletions + tail).encode()
        assert_rejected(SAT_2, proof)


def test_deletions_interleaved_with_the_chain():
    for cut in range(4):
        lines = ["3 0", "4 -3 0", "d 4 -3 0", "5 -4 0", "d 5 -4 0", "d 3 0"]
        proof = ("\n".join(lines[:cut] + lines[cut:]) + "\n-5 0\n0\n").encode()
        assert_rejected(SAT_2, proof)


def test_rat_sees_exactly_the_current_clauses_with_the_negated_pivot():
    f = [[1, 2], [-3, 1]]
    # (-3 1) deleted: "3" is RAT on 3 (no clause holds -3); the empty clause then fails
    assert_rejected(f, b"d -3 1 0\n3 0\n0\n", step=3)
    # (-3 1) present: the resolvent (3 1) is not RUP
    assert_rejected(f, b"3 0\n0\n", step=1)
    # deleted, then added back: present again
    assert_rejected(f, b"d -3 1 0\n-3 1 0\n3 0\n0\n", step=3)
    # a deletion of a unit (reason) clause is ignored: it stays a RAT candidate
    g = [[1, 2], [-3, 1], [-1]]
    assert_rejected(g, b"d -3 1 0\n3 0\n0\n", step=2)


def test_a_lemma_needed_only_as_a_reason_is_checked():
    """Found by the property test: "-2 3" is invalid and needed only as the reason of 3 when
    "3" is checked; a conflict analysis that left its variables marked skipped it."""
    f = [[-4, 2, 6], [4, -1, -2], [4, 6, -5], [6, -4, -1], [1, -3, -2], [-6, 2, 1], [4, 2, -1],
         [6, -1, -4], [-5, 6, -1], [4, 3, -5], [-4, -6, 3], [6, -2, -1], [4, 3, 2], [2, -4, 6],
         [-3, 6, -2], [4, -5, 6], [-2, 4, 6], [-6, -4, -1], [-3, -6, 2], [1, 3, 4], [-3, -1, -6],
         [-5, -1, 2], [-6, 1, -5], [1, 2, -5], [-3, 5, 4], [-3, -6, 5], [2, 1, -6], [-6, 5, 3]]
    assert satisfiable(f)
    assert_rejected(f, b"-2 3 0\n3 0\n1 0\n1 0\n1 0\n0\n", step=1)


def test_a_proof_of_another_formula_is_rejected():
    proof = cadical_proof(php(4))
    assert ours(php(4), proof)[0] is True
    weaker = php(4)[:-1]  # a pigeonhole formula less one clause: satisfiable
    assert satisfiable(weaker) if num_vars(weaker) <= 20 else True
    for backward in (True, False):
        assert ours(weaker, proof, backward)[0] is False
    assert ours(php(3), proof)[0] is False


def test_truncated_proofs_verify_only_when_their_lemmas_conflict():
    """A proof cut anywhere is verified exactly when the reference verifies what is left
    (its lemmas propagate to a conflict, empty clause written or not), and never for a
    satisfiable formula."""
    proof = cadical_proof(php(4))
    assert proof.endswith(b"\n0\n")  # less its last byte, the proof is whole
    verified = 0
    for cut in sorted({*range(0, len(proof), max(1, len(proof) // 40)), len(proof) - 2}):
        try:
            ok, _ = ours(php(4), proof[:cut])
        except ProofFormatError as exc:
            assert "truncated" in str(exc)
            continue
        assert ok is check_reference(php(4), steps_of(proof[:cut]))[0]
        assert ours(php(4)[:-1], proof[:cut])[0] is False
        verified += ok
    assert verified >= 1  # the proof less its empty clause


def test_the_empty_clause_is_implied_by_a_conflict():
    """A proof without its empty clause verifies when its clauses propagate to a conflict,
    and an empty proof when the formula does; a proof that never conflicts is rejected."""
    proof = b"".join(line + b"\n" for line in cadical_proof(php(4)).splitlines()
                     if line.strip() != b"0")
    ok, reason = ours(php(4), proof)
    assert ok is True and "(no empty clause written: it is implied)" in reason
    assert ours([[1], [-1]], b"c nothing\n") == (True, "the formula propagates to a conflict "
                                                     "by itself (the proof's 0 steps not needed)")
    assert ours([[1], [-1]], b"") == ours([[1], [-1]], b"c nothing\n")
    assert ours([[1], [-1]], b"0\n")[0] is True
    half = b"".join(line + b"\n" for line in proof.splitlines()[:10])
    assert ours(php(4), half) == (False, "every step checked, but the proof never derives the "
                                         "empty clause")
    assert ours(SAT_2, b"")[0] is False


@pytest.mark.parametrize("damage, message", [
    (lambda p: p[:5000] + "é".encode() + p[5000:], "unexpected byte 0xc3 at byte 5000"),
    (lambda p: p[:6000] + b" x " + p[6000:], "unexpected byte 0x78 'x' at byte 6001"),
    (lambda p: p + b"1 2 ;\n", "unexpected byte 0x3b ';'"),
    (lambda p: b"c a comment \xff\n" + p, "text proof: unexpected byte 0xff at byte 12"),
    (lambda p: b"c \xff\n" + p, "not a DRAT proof: byte 2 (0xff) is no text DRAT, and binary "
                                "DRAT starts with 'a' or 'd', not 0x63 'c'"),
    (lambda p: b"2147483648 0\n" + p, "a literal beyond 2**31-1"),
    (lambda p: b"1 -0\n" + p, "the literal -0"),
    (lambda p: b"1 --2 0\n" + p, "unexpected byte 0x2d '-'"),
    (lambda p: p + b"1 2", "truncated"),
    (lambda p: p + b"d", "truncated"),
])
def test_garbage_is_a_format_error(damage, message):
    proof = cadical_proof(php(6))
    assert len(proof) > 6000
    with pytest.raises(ProofFormatError, match=re.escape(message)):
        ours(php(6), damage(proof))


@pytest.mark.parametrize("data, message", [
    (b"a\x02", "truncated"),
    (b"a\x01\x00", "the literal -0"),
    (b"a\xff\xff\xff\xff\x7f\x00", "beyond 2**31-1"),
    (b"a\x02\x00x\x00", "binary proof: unexpected byte 0x78 'x' at byte 3"),
])
def test_binary_garbage_is_a_format_error(data, message):
    with pytest.raises(ProofFormatError, match=re.escape(message)):
        read_proof(data)


def test_a_long_lemma_is_shown_in_part_and_a_proof_is_checked_once():
    """A failure shows the first literals of its lemma, not all 100,000 of them. A proof read
    alone can be checked again (each check builds its own database); one read into a
    database, whose literals the check has taken, is not checked again as if it were empty,
    nor against another formula."""
    text = " ".join(map(str, range(2, 100_002))).encode() + b" 0\n0\n"
    proof = read_proof(text)
    failed = (False, "step 1: lemma 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 ... 0 (100000 "
                     "literals) is neither RUP nor RAT")
    assert check_drat(flat(SAT_2), proof, backward=False) == failed
    assert check_drat(flat(SAT_2), proof, backward=False) == failed
    formula = flat(SAT_2)
    into = read_proof(text, database=ClauseDatabase(formula))
    assert check_drat(formula, into, backward=False) == failed
    with pytest.raises(ValueError, match="checked already"):
        check_drat(formula, into)
    with pytest.raises(ValueError, match="another formula"):
        check_drat(flat(SAT_2), read_proof(text, database=ClauseDatabase(formula)))


def test_a_huge_variable_count_or_number_costs_no_memory():
    """A p line declaring 2**31 - 1 variables, or a formula and proof using that number: the
    checker's arrays follow the literals there are, not the numbers (no MemoryError)."""
    top = 2**31 - 1
    assert check_proof(flat([[1], [-1]]), top, b"0\n").ok is True
    assert check_proof(flat([[top], [-top]]), top, b"0\n").ok is True
    assert check_proof(flat([[top, 1], [-top, 1], [-1, 2], [-1, -2]]), top,
                       b"1 0\n0\n").ok is True
    # a failure names the variable as the proof does (forward: every lemma is checked)
    assert check_drat(flat([[top, 1], [-top, 2]]), read_proof(f"-{top} 0\n0\n".encode()),
                      backward=False) == (False, f"step 1: lemma -{top} 0 is neither RUP nor RAT")


@pytest.mark.parametrize("piece", [drat.SLICE, 2])
def test_extension_variables_far_beyond_the_formula_are_renumbered(piece):
    """A RAT lemma on a fresh variable is fine, however large its number (no array that big);
    renumbered piece by piece, the same (a piece of 2 literals splits every step)."""
    proof = b"2000000000 0\n-2000000000 -1 0\n0\n"
    ok, reason = ours(SAT_2, proof, backward=False, slice_literals=piece)
    assert reason == "step 2: lemma -2000000000 -1 0 is neither RUP nor RAT", reason
    unsat = [[1, 2], [1, -2], [-1, 2], [-1, -2]]
    assert ours(unsat, b"2000000000 1 0\n1 0\n0\n", slice_literals=piece)[0] is True
    # the same fresh variable in several pieces gets the same number
    assert ours(unsat, b"2000000000 1 0\n3000 1 0\n-2000000000 1 0\n1 0\n0\n",
                slice_literals=piece)[0] is True


@given(st.lists(st.integers(-2**31 + 1, 2**31 - 1), max_size=60))
@settings(max_examples=100, deadline=None)
def test_renumbering_gives_the_variables_beyond_the_bound_the_next_numbers_in_order(literals):
    """Each variable above the bound kept gets kept + 1 + its rank among those above it (the
    distinct values found by a sort, as np.unique finds them), sign kept."""
    buffer = np.array(literals, np.int32)
    numbering = drat._renumber(buffer, 7)
    original = np.array(literals, np.int64)
    beyond = np.unique(np.abs(original[np.abs(original) > numbering.kept]))
    assert numbering.fresh.tolist() == beyond.tolist()
    expected = [x if abs(x) <= numbering.kept else
                int(np.sign(x)) * (numbering.kept + 1 + int(np.searchsorted(beyond, abs(x))))
                for x in literals]
    assert buffer.tolist() == expected


def test_renumbering_looks_at_the_clock():
    """Renumbering millions of huge variables takes seconds before any kernel runs: it looks at
    the clock between slices, as the kernels do."""
    with pytest.raises(TimeoutError):
        drat._renumber(np.arange(1, 9, dtype=np.int32) * 10**8, 4, time.monotonic() - 1)


# -- syntax variants of valid proofs -------------------------------------------------------------
def test_binary_and_compressed_proofs_are_accepted(tmp_path):
    proof = cadical_proof(php(5))
    variants = {"text": proof, "binary": binary(proof)}
    for name, data in list(variants.items()):
        for kind, compress in (("xz", lzma.compress), ("gz", gzip.compress),
                               ("bz2", bz2.compress)):
            variants[f"{name}.{kind}"] = compress(data)
    for name, data in variants.items():
        path = tmp_path / f"p.{name}"
        path.write_bytes(data)
        parsed = read_proof(path)
        assert parsed.binary == name.startswith("binary"), name
        ok, reason = check_drat(flat(php(5)), parsed)
        assert ok is True, (name, reason)


def test_text_with_comments_and_any_whitespace():
    unsat = [[1, 2], [1, -2], [-1, 2], [-1, -2]]
    assert ours(unsat, b"c a comment\n\t1\r\n  0 c\n0")[0] is True
    assert ours(unsat, b"c a comment\n1    0\r\nd 1 2 0 0")[0] is True


def test_a_compression_bomb_is_refused(monkeypatch, tmp_path):
    monkeypatch.setattr(drat_input, "EXPANSION_SLACK", 1 << 20)
    bomb = tmp_path / "bomb.drat.xz"
    bomb.write_bytes(lzma.compress(b"1 0\n" * (4 << 20)))
    with pytest.raises(ProofFormatError, match="expands beyond"):
        read_proof(bomb)


def test_only_regular_files_are_read(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match="cannot read proof"):
        read_proof(tmp_path / "missing.drat")
    # a FIFO is refused before anything waits on it (opening one blocks for a writer)
    for path, kind in (("/dev/zero", "a character device"), (tmp_path, "a folder"),
                       (fifo, "a FIFO")):
        with pytest.raises(UserError, match=f"is {kind}, not a regular file"):
            read_proof(path)


# -- real proofs -----------------------------------------------------------------------------
@pytest.mark.parametrize("holes", [3, 5, 6])
def test_cadical_proofs_verify(tmp_path, holes):
    clauses = php(holes)
    proof = cadical_proof(clauses)
    for backward in (True, False):
        ok, reason = ours(clauses, proof, backward)
        assert ok is True, reason
    if shutil.which("drat-trim"):
        assert drat_trim_verdict(tmp_path, clauses, proof) == "s VERIFIED"
    if holes <= 4:
        assert drup_valid(clauses, proof)


def test_a_deadline_stops_the_check():
    proof = read_proof(cadical_proof(php(6)))
    with pytest.raises(TimeoutError):
        check_drat(flat(php(6)), proof, deadline=0.0)


def test_one_costly_rat_check_does_not_outlast_the_deadline():
    """A two-line proof whose one lemma's RAT check costs candidates x propagations: n clauses
    hold -p, and each resolvent propagates a chain of n implications (n = 25000: about 10 s of
    checking, quadratic in n). The clock is looked at inside the check, not only between
    steps."""
    n = 25000
    p, r, x, y = 1, 2, (lambda i: 2 + i), (lambda j: n + 2 + j)
    clauses = [[-x(i), x(i + 1)] for i in range(1, n)] + [[-x(n), y(j)] for j in range(1, n + 1)]
    clauses += [[-p, y(j)] for j in range(1, n + 1)] + [[x(1), r], [x(1), -r], [-p]]
    proof = f"{p} {-x(1)} 0\n0\n".encode()
    assert ours(SAT_2, BOGUS)[0] is False  # the kernels are compiled before the clock starts
    formula, steps = flat(clauses), read_proof(proof)  # and the input is made
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        check_drat(formula, steps, deadline=start + 0.3)
    assert time.monotonic() - start < 3.0


@pytest.mark.parametrize("key", [0, 1, 2**61 + 12345])
def test_the_clause_hash_spreads_codes_that_differ_only_in_high_bits(key):
    """Literals are hashed as written (codes up to 2**32): 4096 codes that differ only in bits 20
    and above fall into about as many of 4096 buckets as random ones would (2589 expected),
    whatever the key. A hash whose low bits followed the code's low bits alone put them all in
    one bucket, and a proof of such clauses made every deletion walk all of them."""
    codes = [12345 + (j << 20) for j in range(4096)]
    buckets = {database.mix(code, key) & 4095 for code in codes}
    assert len(buckets) > 2400


def test_a_database_takes_one_proof():
    """A database fed by a second read (after a proof that did not parse, or after a good one)
    is refused: its steps would follow the first proof's."""
    formula = flat([[1, 2], [-1, 2], [1, -2], [-1, -2]])
    into = ClauseDatabase(formula)
    with pytest.raises(ProofFormatError):
        read_proof(b"1 2 0\n" * 1000 + b"x", database=into)
    with pytest.raises(ValueError, match="database of its own"):
        read_proof(b"1 0\n0\n", database=into)
    into = ClauseDatabase(formula)
    read_proof(b"1 0\n0\n", database=into)
    with pytest.raises(ValueError, match="database of its own"):
        read_proof(b"1 0\n0\n", database=into)
    with pytest.raises(ValueError, match="do not follow"):
        into.take(into.literals, np.zeros(0, np.uint8), into.count, 0)


def test_the_sets_clock_starting_again_changes_nothing():
    """The set that finds a step's repeated literals stamps its entries with a clock that
    starts again, the set emptied, before it would overflow: steps taken across that point
    (repeated literals, deletions written in another order) build the same database."""
    clauses = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
    twice = [*range(3, 203), *range(202, 2, -1)]  # 200 literals, each twice
    proof = read_proof(f"3 4 3 5 4 0\nd 5 4 3 3 0\n{' '.join(map(str, twice))} 0\n"
                       f"d {' '.join(map(str, twice[::-1]))} 0\n2 2 0\n0\n".encode())

    def built(clock: int | None):
        into = ClauseDatabase(flat(clauses))
        if clock is not None:  # moved on (never back: the set's stamps would look fresh)
            into._scalars[database._CLOCK] = clock
        both = np.concatenate((into.literals[:into.count], proof.literals))
        into.take(both, proof.deletions, both.shape[0], proof.deletions.shape[0])
        return into.built()

    expected = built(None)
    assert list(expected.step_clause) == [4, 4, 5, 5, 6, 7]
    for clock in (database.CLOCK_LIMIT - 3, database.CLOCK_LIMIT - 1):
        for got, want in zip(built(clock), expected, strict=True):
            assert np.array_equal(got, want)


def test_deletions_crafted_to_one_hash_bucket_do_not_outlast_the_deadline(monkeypatch):
    """Deletions are matched to clauses through a hash table before any step is checked. With the
    hash's key known (here: fixed), a proof can put n clauses in one bucket (n copies of "3
    4") and delete n times an absent clause of that bucket (found by trying pairs of
    literals), so that each deletion walks all n (n = 100000, a 2 MB proof). The clock is
    looked at while deletions are matched, and each check draws its own key, so the same
    proof is fast with a drawn key."""
    n, k = 100_000, 1100
    mix = np.array([database.mix(code, 0) for code in range(2 * k + 2)], np.int64)
    low = (1 << 18) - 1  # equal modulo 2**18: in one bucket of any table up to 2**18 buckets
    a, b = np.triu_indices(mix.size, 1)
    same = (a >= 8) & (a >> 1 != b >> 1) & ((mix[a] + mix[b] & low) == (mix[6] + mix[8] & low))
    absent = " ".join(str(-(c >> 1) if c & 1 else c >> 1) for c in (a[same][0], b[same][0]))
    unsat = [[1, 2], [1, -2], [-1, 2], [-1, -2]]
    proof = (" ".join(map(str, range(3, k + 1))) + " 0\n"  # 3..k are numbered as they are
             + "3 4 0\n" * n + f"d {absent} 0\n" * n + "1 0\n0\n").encode()
    assert ours(unsat, b"1 0\n0\n")[0] is True  # the kernels are compiled before the clock starts
    start = time.monotonic()
    assert check_drat(flat(unsat), read_proof(proof), deadline=start + 10)[0] is True
    drawn = time.monotonic() - start
    monkeypatch.setattr(database, "hash_key", lambda: 0)
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        check_drat(flat(unsat), read_proof(proof), deadline=start + 0.3)
    assert time.monotonic() - start < 3.0
    assert drawn < 3.0


def test_deletions_that_each_walk_a_long_watch_list_do_not_outlast_the_deadline():
    """n clauses 3 4 y in the formula, deleted from the middle of the two watch lists they
    share: each deletion walks n/2 watches from either end (n = 1000000: about 1 ms a
    deletion, 2 s for the 2048 steps a kernel call may take). The watches walked count as the
    call's work, so the clock is looked at long before. The deadline is set past the setup,
    measured first (it grows with n, as the walks do: without the count the check ends about
    5 setups late)."""
    n = 1_000_000
    clauses = [[1, 2], [1, -2], [-1, 2], [-1, -2]] + [[3, 4, 5 + i] for i in range(n)]
    formula = flat(clauses)
    start = time.monotonic()
    assert check_drat(formula, read_proof(f"d 3 4 {5 + n // 2} 0\n1 0\n0\n".encode()))[0]
    setup = time.monotonic() - start
    # each deletion leaves the last watch in its place: the next one is in the middle again
    proof = read_proof("".join(f"d 3 4 {5 + i} 0\n" for i in range(n // 2, n // 2 + 4096))
                       .encode() + b"1 0\n0\n")
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        check_drat(formula, proof, deadline=start + 1.5 * setup + 0.1)
    assert time.monotonic() - start < 2.5 * setup + 0.5


def test_a_rat_check_on_a_long_lemma_does_not_outlast_the_deadline():
    """The lemma p x1 .. xn (each xi false at the root) is RAT on p over n candidates -p yj,
    each resolvent RUP through clauses yj qj, yj -qj of its own: every candidate falsifies
    the n literals again, while the propagation visits a few watches (n = 80000: about 5 s
    here, the proof 4.6 MB). The literals a check falsifies count as its work. The setup is
    measured first, on the same proof whose long lemma is on a pivot without candidates."""
    n = 80_000
    y, q, x = (lambda j: 4 + 2 * j), (lambda j: 5 + 2 * j), (lambda i: 4 + 2 * n + i)
    lines = [f"{-x(i)} 0" for i in range(n)]
    for j in range(n):
        lines += [f"-3 {y(j)} 0", f"{y(j)} {q(j)} 0", f"{y(j)} {-q(j)} 0"]
    lines.append(f"-3 {-y(0)} 0")  # the last candidate: its resolvent is not RUP

    def proof(pivot):
        return "\n".join([*lines, " ".join(map(str, [pivot, *map(x, range(n))])) + " 0",
                          "0\n"]).encode()

    start = time.monotonic()
    assert ours(SAT_2, proof(x(n)))[0] is False  # rejected before the backward pass
    setup = time.monotonic() - start
    bomb = read_proof(proof(3))
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        check_drat(flat(SAT_2), bomb, deadline=start + 1.5 * setup + 0.1)
    assert time.monotonic() - start < 2.5 * setup + 0.5


def test_one_propagation_through_a_long_lemma_does_not_outlast_the_deadline():
    """The lemma x0 .. x(n-1), then x(i) -x(i+1) for each i: once x0 is false, one propagation
    falsifies its literals one after the other. A watch that moves looks on from where its
    last search stopped, so the lemma is walked once, not once per literal (n = 100000; the
    proof 2 MB). The setup is measured first, on the same proof without the lemma that makes
    x0 false (its empty clause rejected at the end of the forward pass)."""
    n = 100_000
    lines = [" ".join(map(str, range(4, n + 4))) + " 0"]  # x(i) is i + 4
    lines += [f"{i} {-(i + 1)} 0" for i in range(4, n + 3)] + ["3 0"]
    start = time.monotonic()
    assert ours(SAT_2, "\n".join([*lines, "0\n"]).encode())[0] is False
    setup = time.monotonic() - start
    bomb = read_proof("\n".join([*lines, "-3 -4 0", "0\n"]).encode())
    start = time.monotonic()
    try:
        assert check_drat(flat(SAT_2), bomb, deadline=start + 1.5 * setup + 0.1)[0] is False
    except TimeoutError:
        pass
    assert time.monotonic() - start < 2.5 * setup + 0.5


# -- the property test -----------------------------------------------------------------------
literal = st.integers(1, 6).flatmap(lambda v: st.sampled_from([v, -v]))
clause = st.lists(literal, min_size=1, max_size=4)
formulas = st.lists(clause, min_size=1, max_size=40)


def random_3cnf(seed: int) -> list[list[int]]:
    """25..40 random 3-clauses on 6 variables: mostly unsatisfiable, with proofs to mutate."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(rng.integers(25, 41)):
        variables = rng.choice(6, 3, replace=False) + 1
        out.append([int(v) * int(rng.choice([-1, 1])) for v in variables])
    return out


dense = st.integers(0, 2**32 - 1).map(random_3cnf)


@st.composite
def formula_and_proof(draw):
    """A random formula and a proof: random steps, or a CaDiCaL proof of it mutated."""
    clauses = draw(st.one_of(formulas, dense))
    steps: list[str] = []
    unsat = not satisfiable(clauses)
    if unsat and draw(st.booleans()):
        steps = cadical_proof(clauses).decode().splitlines()
        for _ in range(draw(st.integers(0, 3))):
            where = draw(st.integers(0, len(steps)))
            mutation = draw(st.sampled_from(["drop", "flip", "delete", "unit", "dup"]))
            if mutation == "drop" and steps:
                del steps[min(where, len(steps) - 1)]
            elif mutation == "flip" and steps:
                words = steps[min(where, len(steps) - 1)].split()
                i = draw(st.integers(0, len(words) - 1))
                if words[i] not in ("d", "0"):
                    words[i] = str(-int(words[i]))
                steps[min(where, len(steps) - 1)] = " ".join(words)
            elif mutation == "delete":
                pool = [" ".join(map(str, c)) for c in clauses] + [
                    s for s in steps if not s.startswith("d") and s.strip() != "0"]
                steps.insert(where, "d " + draw(st.sampled_from(pool)).removesuffix(" 0")
                             + " 0")
            elif mutation == "unit":
                steps.insert(where, f"{draw(literal)} 0")
            elif steps:
                steps.insert(where, steps[draw(st.integers(0, len(steps) - 1))])
    else:
        for _ in range(draw(st.integers(0, 8))):
            kind = draw(st.sampled_from(["add", "add", "delete", "fresh", "empty"]))
            if kind == "delete":
                pool = [" ".join(map(str, c)) for c in clauses] + [
                    s.removesuffix(" 0") for s in steps if not s.startswith("d")]
                pool = [p for p in pool if p]
                if pool:
                    steps.append(f"d {draw(st.sampled_from(pool))} 0")
            elif kind == "fresh":  # a RAT lemma on a new variable 7
                tail = draw(st.lists(literal, max_size=2))
                steps.append(" ".join(map(str, [draw(st.sampled_from([7, -7])), *tail, 0])))
            elif kind == "empty":
                steps.append("0")
            else:
                steps.append(" ".join(map(str, [*draw(clause), 0])))
        if draw(st.booleans()):
            steps.append("0")
    return clauses, ("\n".join(steps) + "\n").encode(), unsat


#: DRAT_EXAMPLES=4000 for a longer run
@settings(max_examples=int(os.environ.get("DRAT_EXAMPLES", 400)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(formula_and_proof())
def test_fast_checker_agrees_with_the_reference_and_never_verifies_a_satisfiable_formula(case):
    clauses, proof, unsat = case
    try:
        parsed = read_proof(proof)
    except ProofFormatError:
        return
    forward = check_drat(flat(clauses), parsed, backward=False)
    formula = flat(clauses)
    *backward, cert = verify_drat(formula,
                                  read_proof(proof, database=ClauseDatabase(formula)))
    if backward[0]:  # its LRAT certificate passes the LRAT checker, and cake_lpr
        assert check_lrat(formula, cert)[0], (clauses, proof)
        if shutil.which("cake_lpr"):
            assert cake_lpr_accepts(clauses, cert), (clauses, proof)
    reference = check_reference(clauses, steps_of(proof))
    assert forward[0] == reference[0], (forward, reference)
    if not forward[0] and forward[1].startswith("step "):
        assert forward[1].startswith(f"step {reference[1] + 1}:"), (forward, reference)
    if reference[0]:
        assert backward[0], backward  # backward checks a subset of the lemmas
    if backward[0] or forward[0]:
        assert unsat, (clauses, proof)
    steps = steps_of(proof)
    if steps and not any(d or not lits for d, lits in steps[:-1]) and steps[-1] == (False, []) \
            and len(proof) < 2000:
        # no deletion, one empty clause, at the end: drup checks the same thing (drup takes
        # a proof that ends anywhere the clauses propagate to a conflict)
        assert drup_valid(clauses, proof) == forward[0], (clauses, proof, forward)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formula_and_proof(), st.lists(st.integers(0, 200), max_size=8))
def test_a_proof_taken_piece_by_piece_builds_the_database_taken_whole(case, cuts):
    """The database built as a reader feeds it (the proof cut anywhere, a step begun in one
    piece and ended in another; the hash table and the set grown from the smallest) is the one
    built from the whole proof in one call, whatever each one's hash key."""
    clauses, proof, _ = case
    try:
        parsed = read_proof(proof)
    except ProofFormatError:
        return
    formula, literals = flat(clauses), parsed.literals
    whole = ClauseDatabase(formula)
    both = np.concatenate((whole.literals[:whole.count], literals))
    whole.take(both, parsed.deletions, both.shape[0], parsed.deletions.shape[0])
    with mock.patch.object(database, "_FIRST_SET", 2), \
            mock.patch.object(database, "_FIRST_BUCKETS", 1):
        pieces = ClauseDatabase(formula)
        grown, count, a = pieces.literals, pieces.count, 0
        for b in [*sorted(min(cut, literals.shape[0]) for cut in cuts), literals.shape[0]]:
            grown.resize(count + b - a, refcheck=False)
            grown[count:] = literals[a:b]
            begun = np.count_nonzero(literals[:b] == 0) + int(b > 0 and literals[b - 1] != 0)
            count, a = pieces.take(grown, parsed.deletions, count + b - a, begun), b
    for built, expected in zip(pieces.built(), whole.built(), strict=True):
        assert np.array_equal(built, expected), (clauses, proof)


def test_a_watch_space_too_small_for_the_watches_is_refused(monkeypatch):
    """The kernels check no bounds: a watch lists' array too small for the watches (4 places
    for the 8 watches of 4 clauses) ends the check in a RuntimeError (a checker failure) when
    a packing finds no room, never in a write past its end."""
    monkeypatch.setattr(drat, "_watch_space", lambda clauses, lists: 4)
    with pytest.raises(RuntimeError, match="more watches than the clauses allow"):
        ours([[1, 2], [-1, 2], [1, -2], [-1, -2]], b"1 0\n0\n")


@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 6)), min_size=2, max_size=20),
       st.randoms(use_true_random=False))
@settings(max_examples=200, deadline=None)
def test_packing_keeps_every_watch_list(lists, rng):
    """Watch lists of any lengths, rooms and places in the array, in any order, packed: each
    list holds the same watches in the same order, with room past them, and no two overlap
    (a list moved rightward by less than its length is copied from its end)."""
    made, _, _ = drat._state(flat([[v] for v in range(1, len(lists) + 1)]), read_proof(b""),
                             drat._NEVER, drat.SLICE)
    state = made._replace(watches=np.zeros(120 * len(lists), np.int64))
    n_lists = state.lists.shape[0]  # two per code, two codes per variable and 0
    lengths = [lists[k % len(lists)] for k in range(n_lists)]
    where = list(range(n_lists))
    rng.shuffle(where)
    top, expected = 0, {}
    for k in where:
        count, slack = lengths[k]
        state.lists[k] = top, count, max(count + slack, 2)
        expected[k] = np.arange(count, dtype=np.int64) + 1000 * k
        state.watches[top:top + count] = expected[k]
        top += state.lists[k]["room"]
    state.scalars[drat._WATCH_TOP] = top
    drat._pack_watches(state)
    places = sorted((int(place), int(room)) for place, _, room in state.lists)
    assert all(a + room <= b for (a, room), (b, _) in zip(places, places[1:]))
    assert places[-1][0] + places[-1][1] == state.scalars[drat._WATCH_TOP]
    for k in range(n_lists):
        first, count, room = state.lists[k]
        assert room > count == len(expected[k])
        assert state.watches[first:first + len(expected[k])].tolist() == \
            expected[k].tolist()


def test_few_clauses_over_many_variables_pack_the_watch_lists_rarely(monkeypatch):
    """A packing sorts every watch list, so it must leave room for as many moves as there are
    lists, however few the clauses: -1 makes 300 clauses of 2000 literals (and one more
    each) move their watches one literal at a time while 100000 variables' lists are empty.
    Leaving room per clause only, this packed 56 times."""
    states = []
    made_state = drat._state

    def state(*args, **kwargs):
        states.append(made := made_state(*args, **kwargs))
        return made

    monkeypatch.setattr(drat, "_state", state)
    chain = [[i, -(i + 1)] for i in range(1, 2000)]
    long = [[*range(1, 2001), 2000 + j] for j in range(1, 301)]
    padding = [list(range(3000 + 10000 * k, 13000 + 10000 * k)) for k in range(10)]
    clauses = chain + long + padding
    assert ours(clauses, b"-1 0\n0\n")[0] is False
    assert states[0][0].scalars[drat._PACKINGS] <= 1

"""LRAT: the certificates the DRAT checker writes, the small LRAT checker on them and on forged
ones, cake_lpr (CakeML's formally verified checker) as referee where it is on PATH, drat-trim's
own LRAT, empty proofs, and the CLI (validate --lrat, validate-suite --lrat, --cake-lpr,
checker failures)."""

from __future__ import annotations

import hashlib
import itertools
import json
import lzma
import shutil
import subprocess

import numpy as np
import pytest
from conftest import publish_tiny
from pysat.examples.genhard import PHP
from pysat.solvers import Glucose4
from test_drat import BOGUS, cadical_proof, flat, num_vars

from puzzlesat.validate.proof import drat, lrat_check
from puzzlesat.validate.proof.check import CAKE_LPR, LratRequest, check_proof
from puzzlesat.validate.proof.database import ClauseDatabase
from puzzlesat.validate.proof.drat import verify_drat
from puzzlesat.validate.proof.lrat import (
    ADD,
    DELETE,
    Certificate,
    HintFile,
    LratFormatError,
    read_lrat,
    write_lrat,
)
from puzzlesat.validate.proof.lrat_check import check_lrat
from puzzlesat.validate.proof.reader import read_proof

CAKE = shutil.which("cake_lpr")
needs_cake = pytest.mark.skipif(CAKE is None, reason="cake_lpr is not on PATH")


def certificate(clauses, proof: bytes) -> Certificate:
    formula = flat(clauses)
    ok, reason, cert = verify_drat(formula,
                                   read_proof(proof, database=ClauseDatabase(formula)))
    assert ok and cert is not None, reason
    return cert


def write_cnf(path, clauses) -> None:
    path.write_text(f"p cnf {num_vars(clauses)} {len(clauses)}\n"
                    + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses))


def cake_says(tmp_path, clauses, cert: Certificate, binary: bool = False) -> bool:
    write_cnf(tmp_path / "f.cnf", clauses)
    write_lrat(cert, tmp_path / "f.lrat", len(clauses), binary)
    assert CAKE is not None
    run = subprocess.run([CAKE, tmp_path / "f.cnf", tmp_path / "f.lrat"], capture_output=True,
                         text=True, timeout=600)
    return "s VERIFIED UNSAT" in run.stdout.splitlines()


def php(holes: int) -> list[list[int]]:
    return [list(c) for c in PHP(holes).clauses]


#: 1 -> 2 -> 3 at the root, then "4" is RUP through (-3 4 5) (-3 4 -5); its hints need the
#: reasons of 1, 2, 3
CHAIN = [[1], [-1, 2], [-2, 3], [-3, 4, 5], [-3, 4, -5], [-4, 6], [-4, -6]]
#: verified proofs with deletions, RAT lemmas and deleted reasons
CORPUS = [
    # the reason clauses of 1, 2, 3 deleted, in every order (ignored: they are unit)
    *[(CHAIN, "".join(f"d {' '.join(map(str, CHAIN[i]))} 0\n" for i in order).encode()
       + b"4 0\n0\n") for order in itertools.permutations(range(3))],
    # the same, with the deletions between fresh RAT units and their deletions
    (CHAIN, b"7 0\nd 1 0\n8 -7 0\nd -1 2 0\nd 8 -7 0\nd -2 3 0\nd 7 0\n4 0\n0\n"),
    # a RAT lemma on a fresh variable with no candidate, then one with a candidate, both used
    ([[1, 2], [-1, 2], [1, -2], [-1, -2]], b"3 1 0\n-3 1 0\n1 0\n0\n"),
    # a RAT lemma whose resolvent is a tautology, deleted lemmas
    ([[1, 2], [-1, 2], [1, -2], [-1, -2, 3], [-3, -1]], b"-4 1 0\n4 -1 0\nd -4 1 0\n2 0\n0\n"),
    # no empty clause written: the lemmas propagate to a conflict
    ([[1, 2], [-1, 2], [1, -2], [-1, -2]], b"2 0\n"),
    # an empty proof: the formula propagates to a conflict
    ([[1], [-1, 2], [-2]], b""),
]


@pytest.mark.parametrize("holes", [3, 4, 5])
def test_certificates_of_cadical_proofs_check_and_round_trip(tmp_path, holes):
    """The certificate of a CaDiCaL proof passes the LRAT checker, names each checked lemma
    once (plus the empty clause), and reads back identical from text and binary LRAT."""
    clauses = php(holes)
    formula = flat(clauses)
    proof = cadical_proof(clauses)
    ok, reason, cert = verify_drat(formula,
                                   read_proof(proof, database=ClauseDatabase(formula)))
    assert ok and cert is not None
    checked = int(reason.split("; ")[1].split()[0])
    assert cert.lemmas == checked + 1
    assert check_lrat(formula, cert) == (True, f"the empty clause is accepted at LRAT step "
                                               f"{cert.kind.shape[0]} of {cert.kind.shape[0]}")
    ids = cert.ids[cert.kind == ADD]
    assert ids.tolist() == list(range(len(clauses) + 1, len(clauses) + 1 + cert.lemmas))
    for binary in (False, True):
        write_lrat(cert, tmp_path / "c.lrat", len(clauses), binary)
        again = read_lrat(tmp_path / "c.lrat")
        for field in ("kind", "lits", "lit_end", "hints", "hint_end"):
            assert np.array_equal(getattr(again, field), getattr(cert, field)), field
        assert np.array_equal(again.ids[again.kind == ADD], ids)


@pytest.mark.parametrize("clauses, proof", CORPUS)
def test_the_corpus_certificates_check(clauses, proof):
    """Every corpus proof (deletions, RAT, deleted reasons, no or implicit empty clause)
    verifies, and its certificate passes the LRAT checker."""
    cert = certificate(clauses, proof)
    assert check_lrat(flat(clauses), cert)[0] is True


#: sha256 of the corpus's certificates, text then binary, as the checker wrote them when it held
#: its hints in memory (commit bf5aeed)
GOLDEN_CORPUS = "8aa055347e9aa9df13bcbddff3230ab39d4f2c05f2b0ae2ded97438ab0683c77"


def test_the_corpus_certificates_are_byte_for_byte_the_golden_ones(tmp_path):
    """The corpus's certificates (deletions, RAT, deleted reasons, no or implicit empty
    clause), text and binary, hash to the golden value: where the hints are kept does not
    change a byte."""
    digest = hashlib.sha256()
    for clauses, proof in CORPUS:
        cert = certificate(clauses, proof)
        for binary in (False, True):
            write_lrat(cert, tmp_path / "c.lrat", len(clauses), binary)
            digest.update((tmp_path / "c.lrat").read_bytes())
    assert digest.hexdigest() == GOLDEN_CORPUS


#: (-5 1 -1) holds 1 both ways, and -5 as (-5 2) does: "5" is RAT on 5 with these two as the
#: clauses holding -5, and the refutation of "2" uses it (through (-5 2))
TAUTOLOGY = [[-5, 1, -1], [-5, 2], [2, 3], [2, -3], [-2, 6], [-2, -6]]


def test_a_formula_clause_true_under_every_assignment_is_deleted_before_the_lemmas(tmp_path):
    """cake_lpr asks a hint group of every RAT candidate the witness does not satisfy, and
    accepts none for a clause that holds a variable both ways (true under every assignment):
    the certificate deletes the formula's such clauses first, and the checker never takes one
    as a RAT candidate (found by a red team: cake_lpr refused the certificates of random
    formulas with such a clause)."""
    cert = certificate(TAUTOLOGY, b"5 0\n2 0\n0\n")
    assert cert.kind[0] == DELETE and cert.hints[0:int(cert.hint_end[0])].tolist() == [1]
    rat = cert.hints[int(cert.hint_end[0]):int(cert.hint_end[1])].tolist()
    assert rat[0] == -2 and -1 not in rat  # the group of (-5 2), none of (-5 1 -1)
    assert check_lrat(flat(TAUTOLOGY), cert)[0] is True
    if CAKE:
        assert cake_says(tmp_path, TAUTOLOGY, cert)


@pytest.mark.parametrize("buffer", [1, 64, 1 << 12])
def test_certificates_made_through_a_small_hint_buffer_check(tmp_path, monkeypatch, buffer):
    """With a hint buffer that fills at once (records moved to the file after nearly every
    lemma, lemmas checked again for room), the certificate still names each checked lemma once
    and passes the LRAT checker (and cake_lpr where on PATH)."""
    monkeypatch.setattr(drat, "HINT_BUFFER", buffer)
    for holes in (5, 6):
        clauses = php(holes)
        formula = flat(clauses)
        ok, reason, cert = verify_drat(formula, read_proof(
            cadical_proof(clauses), database=ClauseDatabase(formula)))
        assert ok and cert is not None
        assert cert.lemmas == int(reason.split("; ")[1].split()[0]) + 1
        assert check_lrat(formula, cert)[0] is True
        if CAKE:
            assert cake_says(tmp_path, clauses, cert, binary=True)


def test_packing_the_watch_lists_changes_no_byte_of_a_certificate(tmp_path, monkeypatch):
    """With the watch lists' array an eighth of its size (one watch per clause: room enough for
    these proofs), the lists are packed several times (a packing keeps each list's order): the
    certificates of CaDiCaL's proofs are byte for byte those made without packing."""
    states = []

    def state(*args, **kwargs):
        states.append(made := made_state(*args, **kwargs))
        return made

    def certificate_bytes(clauses, proof) -> bytes:
        write_lrat(certificate(clauses, proof), tmp_path / "c.lrat", len(clauses), True)
        return (tmp_path / "c.lrat").read_bytes()

    made_state = drat._state
    proofs = [(php(holes), cadical_proof(php(holes))) for holes in (5, 6)]
    roomy = [certificate_bytes(*pair) for pair in proofs]
    monkeypatch.setattr(drat, "_state", state)
    monkeypatch.setattr(drat, "_watch_space",
                        lambda clauses, lists: clauses + 4 * lists + 16)
    assert [certificate_bytes(*pair) for pair in proofs] == roomy
    assert all(made[0].scalars[drat._PACKINGS] > 0 for made in states)


def test_a_hint_file_gives_back_what_it_was_given():
    """A HintFile returns its hints by slices, whole (copy, np.asarray), and empty slices;
    a slice with a step is refused."""
    hints = HintFile()
    parts = [np.arange(5, dtype=np.int32), np.zeros(0, np.int32), np.array([-7, 2**31 - 1])]
    for part in parts:
        hints.append(part)
    whole = np.concatenate(parts).astype(np.int32)
    assert hints.shape == (7,) and np.array_equal(hints.copy(), whole)
    assert np.array_equal(np.asarray(hints), whole)
    for a, b in [(0, 7), (2, 6), (6, 7), (3, 3), (5, 2), (-2, 99)]:
        assert np.array_equal(hints[a:b], whole[a:b]), (a, b)
    with pytest.raises(ValueError):
        hints[::2]


@needs_cake
@pytest.mark.parametrize("binary", [False, True])
def test_cake_lpr_accepts_every_certificate_of_the_corpus(tmp_path, binary):
    """cake_lpr accepts our LRAT, text and binary, for CaDiCaL's PHP proofs and the corpus."""
    cases = [(php(h), cadical_proof(php(h))) for h in (3, 4, 5, 6)] + CORPUS
    for clauses, proof in cases:
        assert cake_says(tmp_path, clauses, certificate(clauses, proof), binary), proof[:80]


def minimally_unsat_variants(clauses):
    """PHP with clause k made a fresh unit: satisfiable (PHP is minimally unsatisfiable), with
    every clause id in place."""
    fresh = num_vars(clauses) + 1
    for k in range(len(clauses)):
        yield k, clauses[:k] + [[fresh]] + clauses[k + 1:]


def test_a_certificate_proves_nothing_about_a_satisfiable_formula(tmp_path):
    """The certificate of PHP(4) is rejected on each of PHP(4)'s satisfiable variants (one
    clause replaced), by our checker and by cake_lpr where on PATH."""
    clauses = php(4)
    cert = certificate(clauses, cadical_proof(clauses))
    for k, variant in minimally_unsat_variants(clauses):
        assert check_lrat(flat(variant), cert)[0] is False, k
        if CAKE and k % 7 == 0:
            assert not cake_says(tmp_path, variant, cert)


def forged(cert: Certificate, rng: np.random.Generator) -> Certificate:
    """The certificate with one hint changed, dropped, or two swapped."""
    hints = cert.hints.copy()
    hint_end = cert.hint_end.copy()
    i = int(rng.integers(hints.shape[0]))
    how = int(rng.integers(3))
    if how == 0:
        hints[i] = max(1, abs(int(hints[i])) + int(rng.integers(-5, 6)))
    elif how == 1:
        hints = np.delete(hints, i)
        hint_end[np.searchsorted(hint_end, i, "right"):] -= 1
    else:
        j = int(rng.integers(hints.shape[0]))
        hints[i], hints[j] = hints[j], hints[i]
    return Certificate(cert.kind, cert.ids, cert.lits, cert.lit_end, hints, hint_end)


def test_forged_hints_are_judged_as_cake_lpr_judges_them(tmp_path):
    """Certificates with forged hints: our checker never accepts one cake_lpr rejects (where
    on PATH), and each forged certificate of a satisfiable variant is rejected."""
    clauses = php(3)
    cert = certificate(clauses, cadical_proof(clauses))
    rng = np.random.default_rng(29)
    accepted = 0
    for trial in range(60):
        bad = forged(cert, rng)
        ours = check_lrat(flat(clauses), bad)[0]
        accepted += ours
        if CAKE and ours:
            assert cake_says(tmp_path, clauses, bad), trial
        for _, variant in list(minimally_unsat_variants(clauses))[trial % 5::5]:
            assert check_lrat(flat(variant), bad)[0] is False
    assert accepted < 60  # most forgeries break the chain


def test_lemmas_without_hints_and_out_of_order_ids_are_rejected():
    clauses = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
    one = Certificate(np.array([0, 0], np.uint8), np.array([5, 6]), np.array([2], np.int32),
                      np.array([1, 1]), np.array([1, 2, 5, 3, 4]), np.array([2, 5]))
    assert check_lrat(flat(clauses), one)[0] is True
    no_hints = Certificate(one.kind, one.ids, one.lits, one.lit_end, np.array([5, 3, 4]),
                           np.array([0, 3]))
    assert check_lrat(flat(clauses), no_hints) == (False, "LRAT step 1 (id 5): a clause with the "
                                                          "negated pivot has no RAT group")
    backwards = Certificate(one.kind, np.array([6, 5]), one.lits, one.lit_end, one.hints,
                            one.hint_end)
    assert check_lrat(flat(clauses), backwards)[0] is False
    dangling = Certificate(one.kind, one.ids, one.lits, one.lit_end, np.array([1, 2, 9, 3, 4]),
                           one.hint_end)
    assert check_lrat(flat(clauses), dangling) == (False, "a hint or deletion names no clause "
                                                          "of the proof")
    deleted = Certificate(np.array([1, 0, 0], np.uint8), np.array([0, 5, 6]),
                          np.array([2], np.int32), np.array([0, 1, 1]),
                          np.array([1, 1, 2, 5, 3, 4]), np.array([1, 3, 6]))
    assert check_lrat(flat(clauses), deleted)[1].endswith("names a clause that is not there "
                                                          "(deleted, or not added yet)")


def test_steps_that_do_not_divide_their_arrays_in_order_are_rejected():
    """The kernels check no bounds: a hand-built certificate whose step boundaries go back, or
    past the end of its hints or literals, is rejected before any is read."""
    clauses = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
    one = Certificate(np.array([0, 0], np.uint8), np.array([5, 6]), np.array([2], np.int32),
                      np.array([1, 1]), np.array([1, 2, 5, 3, 4]), np.array([2, 5]))
    assert check_lrat(flat(clauses), one)[0] is True
    why = "the certificate's steps do not divide its hints and literals in order"
    for hint_end, lit_end in (([3, 2], [1, 1]), ([2, 6], [1, 1]), ([2, 5], [1, 0]),
                              ([2, 5], [1, 9]), ([-1, 5], [1, 1])):
        bad = Certificate(one.kind, one.ids, one.lits, np.array(lit_end), one.hints,
                          np.array(hint_end))
        assert check_lrat(flat(clauses), bad) == (False, why), (hint_end, lit_end)


def test_rat_groups_must_cover_every_candidate():
    """A RAT lemma on a fresh variable needs no group; one on a used variable needs one per
    candidate: without the group of clause 2, rejected."""
    clauses = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
    fresh = Certificate(np.array([0], np.uint8), np.array([5]), np.array([3, 1], np.int32),
                        np.array([2]), np.zeros(0, np.int64), np.array([0]))
    assert check_lrat(flat(clauses), fresh) == (False, "the certificate never adds the empty "
                                                       "clause")
    # "1" is RAT on 1: candidates 2 (-1 2) and 4 (-1 -2); resolvents 2 and -2 are RUP by 1, 3
    rat = Certificate(np.array([0], np.uint8), np.array([5]), np.array([1], np.int32),
                      np.array([1]), np.array([-2, 1, -4, 3]), np.array([4]))
    assert check_lrat(flat(clauses), rat)[1] == "the certificate never adds the empty clause"
    half = Certificate(rat.kind, rat.ids, rat.lits, rat.lit_end, np.array([-2, 1]),
                       np.array([2]))
    assert check_lrat(flat(clauses), half) == (False, "LRAT step 1 (id 5): a clause with the "
                                                      "negated pivot has no RAT group")


def test_unparsable_lrat_is_a_format_error():
    for data in (b"5 1 0 1 2", b"5 1 x 0\n", b"a\x0a\x02", b"q"):
        with pytest.raises(LratFormatError):
            read_lrat(data)


def test_glucose_empty_proof_is_verified():
    """python-sat's Glucose writes no step for a formula unit propagation refutes: VERIFIED;
    an empty proof of a satisfiable formula, or of one propagation does not refute, is
    rejected."""
    refuted = [[1], [-1, 2], [-2, 3], [-3]]
    with Glucose4(bootstrap_with=refuted, with_proof=True) as solver:
        assert solver.solve() is False
        assert solver.get_proof() == []
    check = check_proof(flat(refuted), 3, b"")
    assert check.ok is True and "propagates to a conflict by itself" in check.reason
    assert check_proof(flat([[1, 2], [-2]]), 2, b"").ok is False
    assert check_proof(flat(php(3)), 12, b"").reason == \
        "every step checked, but the proof never derives the empty clause"
    assert check_proof(flat([[1, 2], [-2]]), 2, BOGUS).ok is False


def test_a_disagreement_is_a_checker_failure(monkeypatch):
    """When the LRAT checker rejects what the DRAT kernel verified, the check has no verdict
    and says why (a checker failure)."""
    clauses = php(3)
    monkeypatch.setattr(lrat_check, "check_lrat", lambda *a, **k: (False, "forged"))
    check = check_proof(flat(clauses), 12, cadical_proof(clauses))
    assert check.ok is None and check.failure.endswith("rejects the LRAT certificate it "
                                                       "wrote: forged")


def test_cake_lpr_rejecting_is_a_checker_failure_and_accepting_signs(tmp_path):
    """A cake_lpr that rejects makes a checker failure; one that accepts joins the signers."""
    clauses = php(3)
    liar = tmp_path / "liar"
    liar.write_text("#!/bin/sh\necho 'c nope'\n")
    liar.chmod(0o755)
    check = check_proof(flat(clauses), 12, cadical_proof(clauses),
                        lrat=LratRequest(cake_lpr=liar))
    assert check.ok is None and "rejects its LRAT certificate" in check.failure
    yes = tmp_path / "yes"
    yes.write_text("#!/bin/sh\necho 's VERIFIED UNSAT'\n")
    yes.chmod(0o755)
    check = check_proof(flat(clauses), 12, cadical_proof(clauses),
                        lrat=LratRequest(cake_lpr=yes))
    assert check.ok is True and check.signed_by[-1] == CAKE_LPR


def test_validate_writes_lrat_and_reads_lrat_proofs(tmp_path, puzzlesat):
    """validate --lrat writes the certificate (cake_lpr accepts it where on PATH); a proof
    named .lrat is checked by the LRAT checker; a forged one is WRONG-PROOF."""
    clauses = php(4)
    write_cnf(tmp_path / "php.cnf", clauses)
    (tmp_path / "php.out").write_text("s UNSATISFIABLE\n")
    (tmp_path / "php.drat").write_bytes(cadical_proof(clauses))
    args = ("validate", tmp_path / "php.cnf", tmp_path / "php.out")
    result = puzzlesat(*args, "--proof", tmp_path / "php.drat", "--lrat", tmp_path / "php.lrat")
    assert result.code == 0, result.out
    assert "its LRAT certificate by puzzlesat-lrat" in result.out.splitlines()[0]
    if CAKE:
        run = subprocess.run([CAKE, tmp_path / "php.cnf", tmp_path / "php.lrat"],
                             capture_output=True, text=True)
        assert run.stdout.strip() == "s VERIFIED UNSAT"
    result = puzzlesat(*args, "--proof", tmp_path / "php.lrat")
    assert result.code == 0 and "proof verified by puzzlesat-lrat" in result.out
    lines = (tmp_path / "php.lrat").read_text().splitlines()
    lines[-1] = " ".join(lines[-1].split()[:-2]) + " 0"  # the empty clause's last hint gone
    (tmp_path / "bad.lrat").write_text("\n".join(lines) + "\n")
    result = puzzlesat(*args, "--proof", tmp_path / "bad.lrat")
    assert result.code == 3 and result.out.startswith("WRONG-PROOF")


def test_validate_suite_keeps_certificates_and_no_file_it_did_not_write(tmp_path, puzzlesat):
    """validate-suite --lrat writes RESULTS/<file>.lrat beside each verified proof (cake_lpr
    accepts it where on PATH) and rewrites it when it holds the same bytes; a file there that
    holds other bytes (a solver's own LRAT, say) is left as it is, and a folder there too: the
    verdict stays VERIFIED-UNSAT, with a note that the certificate was not kept."""
    suite, results = publish_tiny(tmp_path), tmp_path / "results"
    assert puzzlesat("solve-suite", suite, results, "--proof").code == 0
    unsat = next((suite / "instances").glob("sliding-*-b6*"))
    kept = results / f"{unsat.name}.lrat"

    def verdict() -> dict:
        table = tmp_path / "verdicts.json"
        run = puzzlesat("validate-suite", suite, results, "--lrat", "-o", table)
        assert run.code == 0, run.out + run.err
        rows = json.loads(table.read_text())
        return next(row for row in rows if row["instance"] == unsat.name)

    assert verdict()["verdict"] == "VERIFIED-UNSAT" and kept.is_file()
    if CAKE:
        plain = tmp_path / "unsat.cnf"
        plain.write_bytes(lzma.decompress(unsat.read_bytes()) if unsat.suffix == ".xz"
                          else unsat.read_bytes())
        run = subprocess.run([CAKE, plain, kept], capture_output=True, text=True)
        assert run.stdout.strip() == "s VERIFIED UNSAT"
    ours = kept.read_bytes()
    again = verdict()
    assert again["notes"] == [] and kept.read_bytes() == ours
    kept.write_bytes(b"c a solver's own proof\n")
    again = verdict()
    assert again["verdict"] == "VERIFIED-UNSAT" and "holds other bytes" in again["notes"][-1]
    assert kept.read_bytes() == b"c a solver's own proof\n"
    kept.unlink()
    kept.mkdir()
    again = verdict()
    assert again["verdict"] == "VERIFIED-UNSAT" and "not kept" in again["notes"][-1]
    assert kept.is_dir() and not any(kept.iterdir())


@pytest.mark.skipif(shutil.which("drat-trim") is None, reason="drat-trim is not on PATH")
def test_drat_trims_lrat_is_checked(tmp_path):
    """drat-trim -L's LRAT (another producer's certificate) passes the LRAT checker."""
    clauses = php(4)
    write_cnf(tmp_path / "f.cnf", clauses)
    (tmp_path / "f.drat").write_bytes(cadical_proof(clauses))
    subprocess.run(["drat-trim", tmp_path / "f.cnf", tmp_path / "f.drat", "-L",
                    tmp_path / "f.lrat"], capture_output=True, check=False)
    assert check_lrat(flat(clauses), read_lrat(tmp_path / "f.lrat"))[0] is True

"""UNSAT proofs through validate/proof.py: python-sat and Debian cadical proofs, rejections,
the drat-trim referee, time limits, certify_unsat (the checker itself: tests/test_drat.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from conftest import assert_one_line_error
from pysat.examples.genhard import PHP

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.errors import UserError
from puzzlesat.validate.proof.check import check_proof, check_proof_file
from puzzlesat.validate.runs import solvers as solvers_module
from puzzlesat.validate.runs.certify import certify_unsat
from puzzlesat.validate.runs.solvers import SolveResult, run_solver


def php(holes: int) -> Formula:
    """Pigeonhole: holes+1 pigeons into ``holes`` holes (UNSAT)."""
    f = Formula()
    f.new_vars("x", holes + 1, holes)
    f.add("php", [c + [0] * (holes + 1 - len(c)) for c in PHP(holes).clauses])
    return f


def write_cnf(path, formula: Formula) -> None:
    lines = [f"p cnf {formula.num_vars} {formula.num_clauses}"]
    lines += [" ".join(map(str, c + [0])) for c in formula.clauses()]
    path.write_text("\n".join(lines) + "\n")


def pysat_proof(formula: Formula) -> bytes:
    result = run_solver((formula.flat_literals(), formula.num_vars), proof=True)
    assert result.status == "UNSAT" and isinstance(result.proof, list)
    return "".join(line + "\n" for line in result.proof).encode()


def test_pysat_proof_verifies_and_damaged_ones_are_rejected():
    f = php(4)
    flat, n = f.flat_literals(), f.num_vars
    good = pysat_proof(f)
    assert check_proof(flat, n, good).ok is True
    assert check_proof(flat, n, good).checker == "puzzlesat-drat"
    lines = good.decode().splitlines()
    truncated = "\n".join(line for line in lines if line.strip() != "0") + "\n"
    assert check_proof(flat, n, truncated.encode()).ok is True  # the empty clause is implied
    half = "\n".join(lines[:len(lines) // 2]) + "\n"
    assert check_proof(flat, n, half.encode()).reason == \
        "every step checked, but the proof never derives the empty clause"
    bogus = check_proof(flat, n, b"1 0\n0\n")  # "1" is not needed, so never checked
    assert (bogus.ok, bogus.reason) == (False, "step 2: the empty clause, but unit propagation "
                                               "finds no conflict")
    bogus = check_proof(flat, n, b"1 0\n-1 0\n0\n")
    assert (bogus.ok, bogus.reason) == (False, "step 2: lemma -1 0 is neither RUP nor RAT")
    unparsable = check_proof(flat, n, b"1 2 x 0\n")
    assert unparsable.ok is False
    assert unparsable.reason == ("proof does not parse: not a DRAT proof: byte 4 (0x78 'x') is no "
                                 "text DRAT, and binary DRAT starts with 'a' or 'd', not 0x31 '1'")
    # the same proof is no proof for a satisfiable formula
    sat = Formula(); sat.new_vars("x", n); sat.add("c", [[1, 2]])
    assert check_proof(sat.flat_literals(), n, good).ok is False


def test_binary_and_compressed_proof_files(tmp_path):
    """A binary DRAT proof (a / d bytes, variable-length literals) in an xz file verifies."""
    import lzma

    path = tmp_path / "p.drat.xz"
    path.write_bytes(lzma.compress(b"a\x02\x00d\x03\x00a\x00"))  # "1 0", "d -1 0", "0"
    check = check_proof_file(np.array([1, 2, 0, 1, -2, 0], np.int32), 2, path)
    assert (check.ok, check.reason) == (False, "step 3: the empty clause, but unit propagation "
                                               "finds no conflict")
    check = check_proof_file(np.array([1, 2, 0, 1, -2, 0, -1, 2, 0, -1, -2, 0], np.int32), 2,
                             path)
    assert check.ok is True, check.reason


def test_proof_time_limit(monkeypatch):
    """Past the time limit the proof is not checked (ok None), whether reading or checking."""
    f = php(6)
    proof = pysat_proof(f)
    check = check_proof(f.flat_literals(), f.num_vars, proof, time_limit=1e-9)
    assert (check.ok, check.reason) == (None, "the proof was not checked in time (the proof "
                                              "time limit is 1e-09 s)")
    assert check_proof(f.flat_literals(), f.num_vars, proof, time_limit=60).ok is True


def test_validate_proof_time_limit_and_unreadable_proofs(tmp_path, puzzlesat):
    f = php(6)
    write_cnf(tmp_path / "php.cnf", f)
    (tmp_path / "php.out").write_text("s UNSATISFIABLE\n")
    (tmp_path / "php.drat").write_bytes(pysat_proof(f))
    args = ("validate", tmp_path / "php.cnf", tmp_path / "php.out", "--proof")
    result = puzzlesat(*args, tmp_path / "php.drat", "--proof-time-limit", "1e-9")
    assert result.code == 1 and result.out.startswith("UNSAT-UNCHECKED")
    assert "the proof was not checked in time" in result.out
    result = puzzlesat(*args, tmp_path / "php.drat", "--proof-time-limit", "60")
    assert result.code == 0 and result.out.startswith("VERIFIED-UNSAT")
    assert "proof verified by puzzlesat-drat" in result.out
    for bad in ("/dev/zero", tmp_path):
        assert_one_line_error(puzzlesat(*args, bad), "not a regular file")


def test_certify_unsat():
    assert certify_unsat(php(3)) == "certified:cadical195+puzzlesat-drat"
    assert certify_unsat(php(3), solver="glucose4") == "certified:glucose4+puzzlesat-drat"
    sat = Formula(); sat.new_vars("x", 2); sat.add("c", [[1, 2], [-1, 0]])
    assert certify_unsat(sat) is None
    assert certify_unsat(php(11), time_limit=0.5) is None  # too hard for half a second
    with pytest.raises(UserError, match="cannot write proofs"):
        certify_unsat(php(3), solver="kissat")


def test_certify_unsat_refuses_a_proof_that_does_not_check(monkeypatch):
    def lying_solver(source, solver, time_limit, proof):
        return SolveResult("UNSAT", solver, 0.0, proof=["1 0", "0"])

    monkeypatch.setattr(solvers_module, "run_solver", lying_solver)
    with pytest.raises(UserError, match="cadical195's UNSAT proof does not check"):
        certify_unsat(php(3))


#: a stand-in for drat-trim (not on PyPI or in Debian): it checks its two file arguments the
#: way drat-trim is called and answers in drat-trim's words, deciding with our reference
_DRAT_TRIM_STAND_IN = """#!{python}
import sys
sys.path.insert(0, {tests!r})
from drat_reference import check_reference
cnf, proof = open(sys.argv[1]).read().split("\\n"), open(sys.argv[2]).read()
if "{mode}" == "crash":
    sys.exit(1)
_, _, variables, count = cnf[0].split()
clauses = [[int(t) for t in line.split()[:-1]] for line in cnf[1:] if line]
assert len(clauses) == int(count) and all(line.endswith(" 0") for line in cnf[1:] if line)
steps = [(line.startswith("d"), [int(t) for t in line.split()[line.startswith("d"):-1]])
         for line in proof.splitlines() if line.strip()]
print("c parsing", sys.argv[1])
print("s VERIFIED" if check_reference(clauses, steps)[0] else "s NOT VERIFIED")
"""


@pytest.mark.parametrize("mode, proof_of, ok, reason", [
    ("normal", "php", True, "s VERIFIED"),
    ("normal", "rup of nothing", False, "s NOT VERIFIED"),
    ("crash", "php", None, "drat-trim gave no verdict (exit 1)"),
])
def test_drat_trim_referee_is_called_and_read(tmp_path, monkeypatch, mode, proof_of, ok, reason):
    """drat-trim, when asked for: the CNF it is given is clean DIMACS with the right counts,
    and its "s" line (or its silence) becomes the verdict; ours stays the default."""
    script = tmp_path / "drat-trim"
    script.write_text(_DRAT_TRIM_STAND_IN.format(python=sys.executable, mode=mode,
                                                 tests=os.path.dirname(__file__)))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    formula = php(3)
    proof = pysat_proof(formula) if proof_of == "php" else b"0\n"
    check = check_proof(formula.flat_literals(), formula.num_vars, proof, "drat-trim")
    assert (check.ok, check.checker, check.reason) == (ok, "drat-trim", reason)
    assert check_proof(formula.flat_literals(), formula.num_vars, proof).checker == \
        "puzzlesat-drat"


@pytest.mark.skipif(not shutil.which("cadical"), reason="Debian cadical not installed")
def test_debian_cadical_proofs(tmp_path, puzzlesat):
    """cadical's text DRAT (--no-binary) and its default binary DRAT both verify."""
    cnf, out = tmp_path / "php.cnf", tmp_path / "php.out"
    write_cnf(cnf, php(4))
    for flag, name in (("--no-binary", "text.drat"), ("--binary=true", "bin.drat")):
        run = subprocess.run(["cadical", "-q", flag, str(cnf), str(tmp_path / name)],
                             capture_output=True, text=True)
        assert run.returncode == 20
        out.write_text(run.stdout)
        result = puzzlesat("validate", cnf, out, "--proof", tmp_path / name)
        assert result.code == 0 and result.out.startswith("VERIFIED-UNSAT"), result.out


def test_a_checker_that_breaks_its_own_invariant_checks_nothing(monkeypatch):
    """A RuntimeError inside the kernel (an invariant of the checker) is "not checked", never
    a verdict and never a traceback."""
    from puzzlesat.validate.proof import drat

    def broken(*args, **kwargs):
        raise RuntimeError("DRAT checker: conflict when undoing step 3")

    monkeypatch.setattr(drat, "verify_drat", broken)
    f = Formula()
    f.new_vars("x", 1)
    f.add("both signs", [[1], [-1]])
    check = check_proof(f.flat_literals(), f.num_vars, b"0\n")
    assert check.ok is None and "a puzzlesat bug" in check.reason

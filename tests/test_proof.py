"""UNSAT proofs: dratify on python-sat and Debian cadical proofs, rejections, certify_unsat."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from pysat.examples.genhard import PHP

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.errors import UserError
from puzzlesat.validate import proof as proof_module
from puzzlesat.validate.proof import certify_unsat, check_proof
from puzzlesat.validate.runner import SolveResult, run_solver

pytest.importorskip("dratify")


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
    assert result.status == "UNSAT"
    return "".join(line + "\n" for line in result.proof).encode()


def test_pysat_proof_verifies_and_damaged_ones_are_rejected():
    f = php(4)
    flat, n = f.flat_literals(), f.num_vars
    good = pysat_proof(f)
    assert check_proof(flat, n, good, "dratify").ok is True
    lines = good.decode().splitlines()
    truncated = "\n".join(line for line in lines if line.strip() != "0") + "\n"
    assert check_proof(flat, n, truncated.encode(), "dratify").reason == \
        "every step verified, but the proof never derives the empty clause"
    bogus = check_proof(flat, n, b"1 0\n0\n", "dratify")
    assert bogus.ok is False and "step" in bogus.reason and "1 0" in bogus.reason
    unparsable = check_proof(flat, n, b"1 2 x 0\n", "dratify")
    assert unparsable.ok is False and "does not parse" in unparsable.reason
    # the same proof is no proof for a satisfiable formula
    sat = Formula(); sat.new_vars("x", n); sat.add("c", [[1, 2]])
    assert check_proof(sat.flat_literals(), n, good, "dratify").ok is False


def test_binary_proof_is_not_checked_by_dratify():
    check = check_proof(np.array([1, 0, -1, 0], np.int32), 1, b"a\x02\x00d\x03\x00", "dratify")
    assert check.ok is None and "binary DRAT" in check.reason


def test_certify_unsat():
    assert certify_unsat(php(3)) == "certified:cadical195+dratify"
    assert certify_unsat(php(3), solver="glucose4") == "certified:glucose4+dratify"
    sat = Formula(); sat.new_vars("x", 2); sat.add("c", [[1, 2], [-1, 0]])
    assert certify_unsat(sat) is None
    assert certify_unsat(php(11), time_limit=0.5) is None  # too hard for half a second
    with pytest.raises(UserError, match="cannot write proofs"):
        certify_unsat(php(3), solver="kissat")


def test_certify_unsat_refuses_a_proof_that_does_not_check(monkeypatch):
    def lying_solver(source, solver, time_limit, proof):
        return SolveResult("UNSAT", solver, 0.0, proof=["1 0", "0"])

    monkeypatch.setattr(proof_module, "run_solver", lying_solver)
    with pytest.raises(UserError, match="cadical195's UNSAT proof does not check"):
        certify_unsat(php(3))


#: a stand-in for drat-trim (not on PyPI or in Debian): it checks its two file arguments the
#: way drat-trim is called and answers in drat-trim's words, deciding with dratify
_DRAT_TRIM_STAND_IN = """#!{python}
import sys, dratify
cnf, proof = open(sys.argv[1]).read().split("\\n"), open(sys.argv[2]).read()
if "{mode}" == "crash":
    sys.exit(1)
_, _, variables, count = cnf[0].split()
clauses = [[int(t) for t in line.split()[:-1]] for line in cnf[1:] if line]
assert len(clauses) == int(count) and all(line.endswith(" 0") for line in cnf[1:] if line)
formula = dratify.CNF(int(variables))
for clause in clauses:
    formula.add([2 * (abs(l) - 1) + (l < 0) for l in clause])
print("c parsing", sys.argv[1])
print("s VERIFIED" if dratify.check_proof(formula, proof).ok else "s NOT VERIFIED")
"""


@pytest.mark.parametrize("mode, proof_of, ok, reason", [
    ("normal", "php", True, "s VERIFIED"),
    ("normal", "rup of nothing", False, "s NOT VERIFIED"),
    ("crash", "php", None, "drat-trim gave no verdict (exit 1)"),
])
def test_drat_trim_path_calls_it_and_reads_its_answer(tmp_path, monkeypatch, mode, proof_of, ok,
                                                      reason):
    """drat-trim is preferred when on PATH: the CNF it is given is clean DIMACS with the right
    counts, and its "s" line (or its silence) becomes the verdict."""
    script = tmp_path / "drat-trim"
    script.write_text(_DRAT_TRIM_STAND_IN.format(python=sys.executable, mode=mode))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    formula = php(3)
    proof = pysat_proof(formula) if proof_of == "php" else b"0\n"
    check = check_proof(formula.flat_literals(), formula.num_vars, proof)
    assert (check.ok, check.checker, check.reason) == (ok, "drat-trim", reason)


@pytest.mark.skipif(not shutil.which("cadical"), reason="Debian cadical not installed")
def test_debian_cadical_proofs(tmp_path, puzzlesat):
    """cadical's text DRAT (--no-binary) verifies; its default binary DRAT is recognised and
    left unchecked when only dratify is at hand."""
    cnf, out = tmp_path / "php.cnf", tmp_path / "php.out"
    write_cnf(cnf, php(4))
    for flag, name in (("--no-binary", "text.drat"), ("--binary=true", "bin.drat")):
        run = subprocess.run(["cadical", "-q", flag, str(cnf), str(tmp_path / name)],
                             capture_output=True, text=True)
        assert run.returncode == 20
        out.write_text(run.stdout)
    result = puzzlesat("validate", cnf, out, "--proof", tmp_path / "text.drat")
    assert result.code == 0 and result.out.startswith("VERIFIED-UNSAT")
    if not shutil.which("drat-trim"):
        result = puzzlesat("validate", cnf, out, "--proof", tmp_path / "bin.drat")
        assert result.code == 1 and result.out.startswith("UNSAT-UNCHECKED")
        assert "binary DRAT proof" in result.out

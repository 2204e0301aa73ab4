"""DRAT proof checking on `puzzlesat generate sliding --korf 9 --k 24 --budget 22` (UNSAT,
3,034 variables): CaDiCaL's text proof (python-sat) and, where passagemath-kissat is installed,
Kissat's binary proof, each checked by our checker, by drat-trim when it is on PATH and by
dratify when it is installed (text only; stopped after DRATIFY_LIMIT seconds). Every checker
runs in a child process: wall time (start-up and reading the formula included), peak memory
(the child's ru_maxrss) and the lemmas it checked (drat-trim's core), where it says.

    .venv/bin/python -m bench.bench_proof
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

INSTANCE = ("sliding", "--korf", "9", "--k", "24", "--budget", "22")
#: dratify took 139-184 s on the CaDiCaL proof in issue 20: stopped here
DRATIFY_LIMIT = 300.0

_OURS = """
import json, sys, time
start = time.perf_counter()
from puzzlesat.generator.core.reader import read_dimacs
from puzzlesat.validate.proof.check import check_proof_file
formula = read_dimacs(sys.argv[1])
check = check_proof_file(formula.literals, formula.num_vars, sys.argv[2])
print(json.dumps([check.ok, check.reason]))
"""

_DRATIFY = """
import json, sys
import numpy as np
import dratify
from puzzlesat.generator.core.reader import read_dimacs
formula = read_dimacs(sys.argv[1])
cnf = dratify.CNF(formula.num_vars)
flat = formula.literals.astype(np.int64)
internal = 2 * (np.abs(flat) - 1) + (flat < 0)
for clause in np.split(internal, np.flatnonzero(flat == 0) + 1)[:-1]:
    cnf.add(clause[:-1].tolist())
result = dratify.check_proof(cnf, open(sys.argv[2]).read())
print(json.dumps([result.ok, result.reason]))
"""


#: runs one command and reports its peak memory: RUSAGE_CHILDREN of a process with one child
_MEASURE = """
import resource, subprocess, sys
limit = float(sys.argv[1]) or None
try:
    run = subprocess.run(sys.argv[2:], capture_output=True, text=True, timeout=limit)
    out = run.stdout + run.stderr
except subprocess.TimeoutExpired:
    out = f"stopped after {limit:g} s"
print(out)
print("maxrss", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


#: how many lemmas a checker checked: drat-trim's "c 67715 of 164162 lemmas in core", ours
#: "... 64389 lemmas checked"
_LEMMAS = re.compile(r"(\d+) of \d+ lemmas in core|(\d+) lemmas? checked")


def run_child(argv: list[str], limit: float | None = None) -> tuple[str, float, float, str]:
    """(verdict, wall seconds, peak MB, lemmas checked or "") of one checker process; the
    verdict is its "s" line (drat-trim) or its last line (ours, dratify), or "stopped" past
    ``limit``."""
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", _MEASURE, str(limit or 0), *argv],
                         capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    lines = run.stdout.splitlines()
    peak = int(lines[-1].split()[1]) / 1024
    said = [line for line in lines[:-1] if line.startswith("s ")]
    body = [line for line in lines[:-1] if line.strip()]
    lemmas = _LEMMAS.search(run.stdout)
    checked = next(group for group in lemmas.groups() if group) if lemmas else ""
    return (said or body or ["(nothing)"])[-1], wall, peak, checked


def kissat_binary() -> str | None:
    """Kissat's executable from the passagemath-kissat wheel, or None."""
    try:
        import sage_wheels
    except ImportError:
        return None
    path = Path(sage_wheels.__path__[0], "bin", "kissat")
    return str(path) if path.exists() else None


def make_proofs(folder: Path) -> tuple[Path, list[tuple[str, Path]]]:
    from pysat.solvers import Cadical195

    from puzzlesat.generator.core.reader import read_dimacs

    cnf = folder / "sliding.cnf"
    subprocess.run([sys.executable, "-m", "puzzlesat", "generate", *INSTANCE, "-o", str(cnf)],
                   check=True, capture_output=True)
    formula = read_dimacs(cnf)
    proofs = []
    start = time.perf_counter()
    with Cadical195(bootstrap_with=formula.clauses(), with_proof=True) as solver:
        assert solver.solve() is False
        text = folder / "cadical.drat"
        text.write_text("".join(line + "\n" for line in solver.get_proof()))
    print(f"CaDiCaL 1.9.5 (python-sat): {time.perf_counter() - start:.1f} s, text proof "
          f"{text.stat().st_size / 1e6:.1f} MB")
    proofs.append(("CaDiCaL text", text))
    kissat = kissat_binary()
    if kissat:
        binary = folder / "kissat.drat"
        start = time.perf_counter()
        run = subprocess.run([kissat, "-q", str(cnf), str(binary)], capture_output=True)
        assert run.returncode == 20, run.returncode
        print(f"Kissat ({kissat}): {time.perf_counter() - start:.1f} s, binary proof "
              f"{binary.stat().st_size / 1e6:.1f} MB")
        proofs.append(("Kissat binary", binary))
    else:
        print("Kissat: passagemath-kissat not installed (no binary proof)")
    return cnf, proofs


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-proof-") as tmp:
        cnf, proofs = make_proofs(Path(tmp))
        drat_trim = shutil.which("drat-trim")
        try:
            import dratify  # noqa: F401

            has_dratify = True
        except ImportError:
            has_dratify = False
        print(f"{'proof':14} {'checker':15} {'wall s':>8} {'peak MB':>8} {'vs drat-trim':>13} "
              f"{'lemmas':>7}  verdict")
        for name, proof in proofs:
            rows: list[tuple[str, list[str], float | None]] = []
            if drat_trim:
                rows.append(("drat-trim", [drat_trim, str(cnf), str(proof), "-t", "100000"],
                             None))
            rows.append(("puzzlesat-drat", [sys.executable, "-c", _OURS, str(cnf), str(proof)],
                         None))
            if has_dratify and name.endswith("text"):
                rows.append(("dratify", [sys.executable, "-c", _DRATIFY, str(cnf), str(proof)],
                             DRATIFY_LIMIT))
            reference = None
            for checker, argv, limit in rows:
                verdict, wall, peak, checked = run_child(argv, limit)
                if checker == "drat-trim":
                    reference = (wall, peak)
                ratio = "" if reference is None or checker == "drat-trim" else \
                    f"{wall / reference[0]:5.2f}x {peak / reference[1]:4.2f}x"
                print(f"{name:14} {checker:15} {wall:8.2f} {peak:8.0f} {ratio:>13} {checked:>7}  "
                      f"{json.loads(verdict)[:1] if verdict.startswith('[') else verdict}",
                      flush=True)
            if not drat_trim:
                print(f"{name:14} drat-trim: not on PATH")
            if not has_dratify:
                print(f"{name:14} dratify: not installed (pip install 'puzzlesat[bench]')")


if __name__ == "__main__":
    main()

"""DRAT proof checking, ours against drat-trim (on PATH) and dratify (installed; text only,
stopped after DRATIFY_LIMIT seconds), on the issue's proofs: pigeonhole 9->8 and 10->9
(CaDiCaL's text proof, python-sat), `puzzlesat generate sliding --korf 9 --k 24 --budget 22`
(CaDiCaL text and, where passagemath-kissat is installed, Kissat binary), and with
BENCH_PROOF_LARGE=1 `sliding --korf 9 --k 28 --budget 26` (CaDiCaL text, 80 MB). Every checker
runs in a child process: CPU time (user + system: the machine may be shared), wall time,
peak memory (the child's ru_maxrss) and the lemmas it checked, where it says. Ours is the whole
check a verdict needs: the DRAT kernel, the LRAT certificate it writes and the LRAT checker on
it (their own CPU seconds in the last column); a first row checks a two-variable proof (the
fixed cost: Python, numpy, the kernels' library). With BENCH_PROOF_DIR=FOLDER the
formulas and proofs are kept there, and those already there are reused (a profile of one
check can then run on the very files measured).

    .venv/bin/python -m bench.bench_proof
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SLIDING = ("sliding", "--korf", "9", "--k", "24", "--budget", "22")
LARGE = ("sliding", "--korf", "9", "--k", "28", "--budget", "26")
#: dratify took 139-184 s on the CaDiCaL proof in issue 20: stopped here
DRATIFY_LIMIT = 300.0

#: the steps of check.py's check, timed one by one (CPU seconds)
_OURS = """
import os
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the puzzlesat command sets it
import json, sys, tempfile, time
from puzzlesat.generator.core.reader import read_dimacs
from puzzlesat.validate.proof.drat import verify_drat
from puzzlesat.validate.proof.lrat import write_lrat
from puzzlesat.validate.proof.lrat_check import check_lrat
from puzzlesat.validate.proof.database import ClauseDatabase
from puzzlesat.validate.proof.reader import read_proof
clock = time.process_time
formula = read_dimacs(sys.argv[1])
start = clock()
database = ClauseDatabase(formula.literals)
ok, reason, cert = verify_drat(formula.literals, read_proof(sys.argv[2], database=database))
drat = clock() - start
lrat = 0.0
if ok:
    start = clock()
    again, why = check_lrat(formula.literals, cert)
    with tempfile.TemporaryDirectory() as tmp:
        write_lrat(cert, tmp + "/c.lrat", formula.num_clauses, binary=True)
    lrat = clock() - start
    ok = ok and again
print(f"steps drat {drat:.2f} lrat {lrat:.2f}")
print(json.dumps([ok, reason]))
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
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print("usage", usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
"""


#: how many lemmas a checker checked: drat-trim's "c 67715 of 164162 lemmas in core", ours
#: "... 64389 lemmas checked"
_LEMMAS = re.compile(r"(\d+) of \d+ lemmas in core|(\d+) lemmas? checked")


_STEPS = re.compile(r"steps drat ([\d.]+) lrat ([\d.]+)")


def run_child(argv: list[str], limit: float | None = None) -> dict:
    """One checker process: its verdict (its "s" line (drat-trim) or its last line (ours,
    dratify), or "stopped" past ``limit``), CPU and wall seconds, peak MB, lemmas checked
    (or ""), and our own steps' CPU seconds (or "")."""
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", _MEASURE, str(limit or 0), *argv],
                         capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    lines = run.stdout.splitlines()
    _, cpu, peak = lines[-1].split()
    said = [line for line in lines[:-1] if line.startswith("s ")]
    body = [line for line in lines[:-1] if line.strip() and not line.startswith("steps ")]
    lemmas = _LEMMAS.search(run.stdout)
    steps = _STEPS.search(run.stdout)
    return dict(verdict=(said or body or ["(nothing)"])[-1], cpu=float(cpu), wall=wall,
                peak=int(peak) / 1024,
                lemmas=next(group for group in lemmas.groups() if group) if lemmas else "",
                steps=f"{steps[1]} + {steps[2]}" if steps else "")


def kissat_binary() -> str | None:
    """Kissat's executable from the passagemath-kissat wheel, or None."""
    try:
        import sage_wheels
    except ImportError:
        return None
    path = Path(sage_wheels.__path__[0], "bin", "kissat")
    return str(path) if path.exists() else None


def cadical_proof(cnf: Path, out: Path, clauses) -> tuple[str, Path]:
    from pysat.solvers import Cadical195

    if out.exists():  # kept from an earlier run (BENCH_PROOF_DIR)
        return f"{out.stem} {out.stat().st_size / 1e6:.1f} MB", out
    start = time.perf_counter()
    with Cadical195(bootstrap_with=clauses, with_proof=True) as solver:
        assert solver.solve() is False
        part = out.with_name(out.name + ".part")  # a run stopped half-way leaves no proof
        with open(part, "w") as proof:
            for line in solver.get_proof():
                proof.write(line + "\n")
        part.replace(out)
    size = out.stat().st_size / 1e6
    print(f"{out.stem}: CaDiCaL 1.9.5 (python-sat) {time.perf_counter() - start:.1f} s, text "
          f"proof {size:.1f} MB")
    return f"{out.stem} {size:.1f} MB", out


def make_proofs(folder: Path) -> list[tuple[str, Path, Path]]:
    """(name, formula, proof) for each proof measured."""
    from pysat.examples.genhard import PHP

    from puzzlesat.generator.core.reader import read_dimacs

    tiny = folder / "tiny.cnf"
    tiny.write_text("p cnf 2 4\n1 2 0\n1 -2 0\n-1 2 0\n-1 -2 0\n")
    (folder / "tiny.drat").write_text("1 0\n0\n")
    proofs = [("fixed cost (2 vars)", tiny, folder / "tiny.drat")]
    for holes in (8, 9):
        cnf = folder / f"php{holes + 1}-{holes}.cnf"
        clauses = PHP(holes).clauses
        cnf.write_text(f"p cnf {max(abs(x) for c in clauses for x in c)} {len(clauses)}\n"
                       + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses))
        label, proof = cadical_proof(cnf, folder / f"php{holes + 1}-{holes}.drat", clauses)
        proofs.append((label, cnf, proof))
    for name, instance in [("sliding-k24", SLIDING)] + (
            [("sliding-k28", LARGE)] if os.environ.get("BENCH_PROOF_LARGE") else []):
        cnf = folder / f"{name}.cnf"
        if not cnf.exists():
            subprocess.run([sys.executable, "-m", "puzzlesat", "generate", *instance, "-o",
                            str(cnf)], check=True, capture_output=True)
        label, proof = cadical_proof(cnf, folder / f"{name}-cadical.drat",
                                     read_dimacs(cnf).clauses())
        proofs.append((label, cnf, proof))
        kissat = kissat_binary()
        if kissat and name == "sliding-k24":
            binary = folder / f"{name}-kissat.drat"
            if not binary.exists():
                part = binary.with_name(binary.name + ".part")
                run = subprocess.run([kissat, "-q", str(cnf), str(part)], capture_output=True)
                assert run.returncode == 20, run.returncode
                part.replace(binary)
            proofs.append((f"{binary.stem} {binary.stat().st_size / 1e6:.1f} MB", cnf, binary))
        elif not kissat:
            print("Kissat: passagemath-kissat not installed (no binary proof)")
    return proofs


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-proof-") as tmp:
        kept = os.environ.get("BENCH_PROOF_DIR")
        if kept:
            Path(kept).mkdir(parents=True, exist_ok=True)
        proofs = make_proofs(Path(kept or tmp))
        drat_trim = shutil.which("drat-trim")
        try:
            import dratify  # noqa: F401

            has_dratify = True
        except ImportError:
            has_dratify = False
        print(f"{'proof':28} {'checker':15} {'CPU s':>7} {'wall s':>7} {'peak MB':>8} "
              f"{'vs drat-trim':>13} {'lemmas':>7} {'drat + lrat s':>13}  verdict")
        for name, cnf, proof in proofs:
            rows: list[tuple[str, list[str], float | None]] = []
            if drat_trim:
                rows.append(("drat-trim", [drat_trim, str(cnf), str(proof), "-t", "100000"],
                             None))
            rows.append(("puzzlesat-drat", [sys.executable, "-c", _OURS, str(cnf), str(proof)],
                         None))
            if has_dratify and "kissat" not in name and "fixed" not in name:
                rows.append(("dratify", [sys.executable, "-c", _DRATIFY, str(cnf), str(proof)],
                             DRATIFY_LIMIT))
            reference = None
            for checker, argv, limit in rows:
                r = run_child(argv, limit)
                if checker == "drat-trim":
                    reference = r
                ratio = "" if reference is None or checker == "drat-trim" else \
                    f"{r['cpu'] / max(reference['cpu'], 1e-3):5.2f}x " \
                    f"{r['peak'] / reference['peak']:4.2f}x"
                verdict = r["verdict"]
                print(f"{name:28} {checker:15} {r['cpu']:7.2f} {r['wall']:7.2f} {r['peak']:8.0f} "
                      f"{ratio:>13} {r['lemmas']:>7} {r['steps']:>13}  "
                      f"{json.loads(verdict)[:1] if verdict.startswith('[') else verdict}",
                      flush=True)
            if not drat_trim:
                print(f"{name:28} drat-trim: not on PATH")


if __name__ == "__main__":
    main()

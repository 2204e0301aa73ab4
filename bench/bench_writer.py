"""Writer speed on the Eternity-II-size board (16×16, 5+17 colours, encoding ``all``, plain).

Generates and writes the instance with puzzlesat, then writes the very same clause list with
PySAT's ``CNF.to_file`` and CNFgen's ``CNF.to_dimacs`` (same clauses, same sizes), and prints
clauses/s and MB/s for each and the ratios. puzzlesat is timed writing the file (the run
writer, streamed; what ``puzzlesat generate`` does: two processes where there are two CPUs,
and also one) and making the text in memory (``clause_bytes``, as ``publish`` does). Run by
hand: ``python -m bench.bench_writer``; the whole-process numbers are in bench_pipeline.
"""

from __future__ import annotations

import os
import tempfile
import time

from puzzlesat.generator.core.save import write_instance
from puzzlesat.generator.core.writer import clause_bytes
from puzzlesat.generator.instance import build

PARAMS = {"rows": 16, "border_colors": 5, "center_colors": 17}


def _timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def main() -> None:
    folder = tempfile.mkdtemp(prefix="bench-writer-")
    ours_path = os.path.join(folder, "ours.cnf")
    inst, t_gen = _timed(lambda: build("edge-matching", PARAMS, "all", 1))
    # the number of processes is chosen here: earlier benchmarks may have left a thread alive,
    # and write_instance would then choose one
    size, t_write = _timed(lambda: write_instance(ours_path, inst.formula, inst.header(), 2))
    _, t_one = _timed(lambda: write_instance(ours_path + ".one", inst.formula, inst.header(), 1))
    _, t_memory = _timed(lambda: clause_bytes(inst.formula))
    n, mb = inst.formula.num_clauses, size / 1e6
    clauses = inst.formula.clauses()
    rows = [("puzzlesat generate", t_gen),
            ("puzzlesat write (two processes, fsync)", t_write),
            ("  the same in one process", t_one),
            ("  clause_bytes (in memory)", t_memory)]
    peers = []
    try:
        from pysat.formula import CNF

        cnf = CNF(from_clauses=clauses)
        _, t = _timed(lambda: cnf.to_file(os.path.join(folder, "pysat.cnf")))
        peers.append(("PySAT CNF.to_file", t))
    except ImportError:
        pass
    try:
        import cnfgen

        gen = cnfgen.CNF(clauses)
        def write_cnfgen():
            with open(os.path.join(folder, "cnfgen.cnf"), "w") as fh:
                fh.write(gen.to_dimacs())
        _, t = _timed(write_cnfgen)
        peers.append(("CNFgen CNF.to_dimacs+write", t))
    except ImportError:
        peers.append(("CNFgen (not installed: pip install cnfgen)", float("nan")))
    print(f"{inst.name}: {inst.formula.num_vars} variables, {n} clauses, {mb:.1f} MB plain")
    for label, seconds in rows + peers:
        print(f"  {label:<40} {seconds:8.3f} s  {n / seconds / 1e6:7.2f} M clauses/s  "
              f"{mb / seconds:7.1f} MB/s")
    for label, seconds in peers:
        print(f"  ratio {label} / puzzlesat write: {seconds / t_write:.1f}x "
              f"(in memory {seconds / t_memory:.1f}x)")
    for name in os.listdir(folder):
        os.unlink(os.path.join(folder, name))
    os.rmdir(folder)


if __name__ == "__main__":
    main()

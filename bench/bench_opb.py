"""The OPB writer and reader next to the DIMACS ones, on the same literals in one run.

A formula of 10^5 constraints of 5 terms over 10^5 variables (``~x`` terms, coefficients up to
99, both relations) is written by :func:`puzzlesat.generator.core.opb.stream_opb` and, as
10^5 clauses of the same literals, by the DIMACS run writer
(:func:`puzzlesat.generator.core.writer.stream_clauses`); a plain-Python f-string writer of the
same OPB text is the floor. Then both texts are read back (``parse_opb``, ``parse_dimacs``),
with the plain-Python reference parser as the floor. Each figure is the best of a few runs
(the machine is shared); the ratios compare the two formats' times for the same literals.

Run: ``python -m bench.bench_opb`` (a few seconds).
"""

from __future__ import annotations

import time

import numpy as np

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.opb import Opb, _parse_reference, opb_body, parse_opb, stream_opb
from puzzlesat.generator.core.reader import parse_dimacs
from puzzlesat.generator.core.writer import dimacs_bytes, stream_clauses

NUM_VARS = 100_000
NUM_CONSTRAINTS = 100_000
WIDTH = 5
RUNS = 5


def formulas(seed: int = 1) -> tuple[Opb, Formula]:
    """The OPB formula and the CNF formula of the same literals."""
    rng = np.random.default_rng(seed)  # benchmark data only, never an instance of a suite
    lits = np.stack([rng.choice(NUM_VARS, WIDTH, replace=False) + 1
                     for _ in range(NUM_CONSTRAINTS)]).astype(np.int32)
    lits *= rng.choice(np.array([-1, 1], np.int32), lits.shape)
    opb = Opb()
    opb.new_vars("x", NUM_VARS)
    half = NUM_CONSTRAINTS // 2
    coefs = rng.integers(1, 100, lits.shape) * rng.choice([-1, 1], lits.shape)
    opb.add("at_least", lits[:half], coefs[:half], ">=", rng.integers(-50, 50, half))
    opb.add("equal", lits[half:], coefs[half:], "=", rng.integers(-50, 50, half))
    cnf = Formula()
    cnf.new_vars("x", NUM_VARS)
    cnf.add("clauses", lits)
    return opb, cnf


def python_writer(opb: Opb) -> bytes:
    """The OPB body by f-strings, a line at a time: the floor."""
    return "".join(
        "".join(f"{c:+d} {'~' if l < 0 else ''}x{abs(l)} " for c, l in terms) + f"{r} {d} ;\n"
        for terms, r, d in opb.constraints()).encode()


def best(fn, *args) -> float:
    """The least wall time of ``RUNS`` calls."""
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    opb, cnf = formulas()
    opb_size = len(opb_body(opb))
    cnf_size = len(dimacs_bytes(cnf))
    count = bytearray()

    def sink(piece) -> None:
        count[:] = b""  # written and forgotten: the writers' own time only

    t_opb = best(stream_opb, opb, sink)
    t_cnf = best(stream_clauses, cnf, sink)
    t_py = best(python_writer, opb)
    print(f"{NUM_CONSTRAINTS:,} constraints of {WIDTH} terms over {NUM_VARS:,} variables: "
          f"OPB body {opb_size / 1e6:.1f} MB, DIMACS {cnf_size / 1e6:.1f} MB")
    print(f"{'writer':28} {'seconds':>8} {'MB/s':>7} {'M terms/s':>10}")
    terms = NUM_CONSTRAINTS * WIDTH / 1e6
    for label, t, size in (("stream_opb", t_opb, opb_size), ("DIMACS stream_clauses", t_cnf,
                                                               cnf_size),
                           ("OPB by Python f-strings", t_py, opb_size)):
        print(f"{label:28} {t:8.4f} {size / t / 1e6:7.0f} {terms / t:10.1f}")
    print(f"stream_opb / DIMACS: {t_opb / t_cnf:.2f}x the time for the same literals "
          f"({(opb_size / t_opb) / (cnf_size / t_cnf):.2f}x the bytes per second); "
          f"{t_py / t_opb:.0f}x faster than f-strings")
    opb_text = opb_body(opb)
    header = f"* #variable= {NUM_VARS} #constraint= {NUM_CONSTRAINTS}\n".encode()
    cnf_text = dimacs_bytes(cnf)
    r_opb = best(parse_opb, header + opb_text)
    r_cnf = best(parse_dimacs, cnf_text)
    r_ref = best(_parse_reference, header + opb_text)
    print(f"{'reader':28} {'seconds':>8} {'MB/s':>7} {'M terms/s':>10}")
    for label, t, size in (("parse_opb", r_opb, opb_size), ("DIMACS parse_dimacs", r_cnf,
                                                             cnf_size),
                           ("OPB reference (Python)", r_ref, opb_size)):
        print(f"{label:28} {t:8.4f} {size / t / 1e6:7.0f} {terms / t:10.1f}")
    print(f"parse_opb / DIMACS: {r_opb / r_cnf:.2f}x the time for the same literals; "
          f"{r_ref / r_opb:.0f}x faster than the reference")


if __name__ == "__main__":
    main()

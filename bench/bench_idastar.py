"""IDA* nodes/s proving distances on Korf #50's trace, and rotated CNF generation time.

Run by hand: ``python -m bench.bench_idastar``.
"""

from __future__ import annotations

import time

from puzzlesat.generator.families import sliding
from puzzlesat.generator.families.sliding import npuzzle
from puzzlesat.generator.instance import build


def main() -> None:
    trace = npuzzle.korf_traces()[49]
    npuzzle.heuristic(npuzzle.goal(5, 5), 5, 5)  # build the lookup tables outside the timing
    for k in (50, 60):
        start, _ = trace.truncation(k)
        t0 = time.perf_counter()
        result = npuzzle.ida_star(start, 5, 5)
        seconds = time.perf_counter() - t0
        print(f"IDA* korf50 k={k}: distance {result.distance}, {result.nodes} nodes, "
              f"{seconds:.3f} s, {result.nodes / seconds:,.0f} nodes/s")
    start, _ = trace.truncation(80)
    t0 = time.perf_counter()
    result = npuzzle.ida_star(start, 5, 5, node_limit=2_000_000)
    seconds = time.perf_counter() - t0
    print(f"IDA* korf50 k=80 (2M node limit): lower bound {result.lower_bound}, "
          f"{result.nodes / seconds:,.0f} nodes/s")
    for k in (30, 60):
        inst = build("sliding", {"korf": 50, "k": k}, "rotated")
        t0 = time.perf_counter()
        formula = sliding.encode(inst.puzzle, "rotated")
        seconds = time.perf_counter() - t0
        print(f"rotated korf50 k={k}: {formula.num_vars} vars, {formula.num_clauses} clauses, "
              f"encoded in {seconds * 1000:.2f} ms")


if __name__ == "__main__":
    main()

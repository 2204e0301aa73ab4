"""Flow Free: planting time and colours per size (10x10..60x60, also with half as many colours
as the side, like the extreme levels), encoding time and clauses/s per
size and encoding (n x n with n colours), --unique at 15x15, and acyclic round trips (planted
grids solved, every decoded model checked).

    .venv/bin/python -m bench.bench_flow            # every table
    .venv/bin/python -m bench.bench_flow encode     # only the named tables (plant encode unique
                                                    # round_trips)
"""

from __future__ import annotations

import statistics
import sys
import time

from pysat.solvers import Solver

from puzzlesat.generator.core.cnf import model_array
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.families import flow
from puzzlesat.generator.families.flow.plant import colour_range

SIZES = tuple(range(10, 61, 5))
SEEDS = 5
ROUND_TRIP_SIZES = (5, 7, 9, 11)
ENCODE_REPEATS = 3


def keeps_its_plant(puzzle: flow.Puzzle) -> bool:
    """Does the planted solution of a generated grid pass the rule check?"""
    return puzzle.planted is not None and flow.check(puzzle, puzzle.planted) == []


def plant_table() -> None:
    print("size   colours  range    plant ms (median, max of 5 seeds)  --colors max: ms  "
          "n/2 (extreme levels): ms, max of 5 seeds")
    for size in SIZES:
        params = {"width": size, "height": size}
        times, counts = [], set()
        for seed in range(SEEDS):
            start = time.perf_counter()
            puzzle = flow.generate(params, Rng(seed))
            times.append(time.perf_counter() - start)
            assert keeps_its_plant(puzzle)
            counts.add(puzzle.num_colors)
        low, high = colour_range(size, size, 3)
        start = time.perf_counter()
        top = flow.generate({**params, "colors": high}, Rng(0))
        top_ms = (time.perf_counter() - start) * 1000
        assert top.num_colors == high and keeps_its_plant(top)
        few, few_ms = size // 2, 0.0
        for seed in range(SEEDS):
            start = time.perf_counter()
            half = flow.generate({**params, "colors": few}, Rng(seed))
            few_ms = max(few_ms, (time.perf_counter() - start) * 1000)
            assert half.num_colors == few and keeps_its_plant(half)
        print(f"{size:2d}x{size:<2d} {','.join(map(str, sorted(counts))):>8}  {low:2d}..{high:<3d} "
              f"{statistics.median(times) * 1000:8.1f} {max(times) * 1000:8.1f}"
              f"{'':21}{top_ms:8.1f}  {few:20d} {few_ms:8.1f}")


def encode_table() -> None:
    """n x n with n colours (seed 7, as `puzzlesat generate flow --width n --height n --colors n
    --seed 7`): best of ENCODE_REPEATS encodings, clause throughput."""
    print("size   encoding    variables     clauses  encode ms (best of "
          f"{ENCODE_REPEATS})  M clauses/s")
    for size in SIZES:
        puzzle = flow.generate({"width": size, "height": size, "colors": size}, Rng(7))
        for encoding in flow.ENCODINGS:
            best = float("inf")
            for _ in range(ENCODE_REPEATS):
                start = time.perf_counter()
                formula = flow.encode(puzzle, encoding)
                best = min(best, time.perf_counter() - start)
            print(f"{size:2d}x{size:<2d}  {encoding:10s} {formula.num_vars:10,d} "
                  f"{formula.num_clauses:11,d} {best * 1000:14.1f} {'':7}"
                  f"{formula.num_clauses / best / 1e6:8.1f}")
            del formula


def unique_table() -> None:
    print("15x15 --unique: seed, attempts, colours, seconds")
    for seed in range(SEEDS):
        start = time.perf_counter()
        puzzle = flow.generate({"width": 15, "height": 15, "unique": True}, Rng(seed))
        print(f"  {seed}  {puzzle.attempts:3d}  {puzzle.num_colors:3d}  "
              f"{time.perf_counter() - start:6.2f}")


def round_trips() -> None:
    total = 0
    for size in ROUND_TRIP_SIZES:
        for seed in range(10):
            puzzle = flow.generate({"width": size, "height": size}, Rng(seed))
            formula = flow.encode(puzzle, "acyclic")
            with Solver(name="cadical195", bootstrap_with=formula.clauses()) as solver:
                assert solver.solve()
                model = model_array(solver.get_model(), formula.num_vars)
            assert flow.check(puzzle, flow.decode(puzzle, "acyclic", model)) == []
            total += 1
    print(f"{total} planted grids ({ROUND_TRIP_SIZES[0]}x{ROUND_TRIP_SIZES[0]}.."
          f"{ROUND_TRIP_SIZES[-1]}x{ROUND_TRIP_SIZES[-1]}): all SAT under acyclic, all decoded "
          "models pass check")


TABLES = {"plant": plant_table, "encode": encode_table, "unique": unique_table,
          "round_trips": round_trips}


def main(names: list[str] | None = None) -> None:
    """The tables named (all of them by default: ``python -m bench`` calls this bare)."""
    for name in names or TABLES:
        TABLES[name]()


if __name__ == "__main__":
    main(sys.argv[1:])

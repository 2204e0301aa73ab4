"""Flow Free: planting time and colours per size (10x10..60x60), --unique at 15x15, and acyclic
round trips (planted grids solved, every decoded model checked).

    .venv/bin/python -m bench.bench_flow
"""

from __future__ import annotations

import statistics
import time

from pysat.solvers import Solver

from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.families import flow
from puzzlesat.generator.instance import model_array

SIZES = tuple(range(10, 61, 5))
SEEDS = 5
ROUND_TRIP_SIZES = (5, 7, 9, 11)


def plant_table() -> None:
    print("size   colours  range    plant ms (median, max of 5 seeds)  --colors max: ms")
    for size in SIZES:
        params = {"width": size, "height": size}
        times, counts = [], set()
        for seed in range(SEEDS):
            start = time.perf_counter()
            puzzle = flow.generate(params, Rng(seed))
            times.append(time.perf_counter() - start)
            assert flow.check(puzzle, puzzle.planted) == []
            counts.add(puzzle.num_colors)
        low, high = flow.colour_range(size, size, 3)
        start = time.perf_counter()
        top = flow.generate({**params, "colors": high}, Rng(0))
        top_ms = (time.perf_counter() - start) * 1000
        assert top.num_colors == high and flow.check(top, top.planted) == []
        print(f"{size:2d}x{size:<2d} {','.join(map(str, sorted(counts))):>8}  {low:2d}..{high:<3d} "
              f"{statistics.median(times) * 1000:8.1f} {max(times) * 1000:8.1f}"
              f"{'':21}{top_ms:8.1f}")


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


def main() -> None:
    plant_table()
    unique_table()
    round_trips()


if __name__ == "__main__":
    main()

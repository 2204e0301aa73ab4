"""Parse + model check of a 5M-clause instance (plain and .xz) next to gbdc's GBD hash.

Throughput is uncompressed DIMACS megabytes per second of wall time, for the same file in
one run: ``read_dimacs`` alone, ``read_dimacs`` + :func:`puzzlesat.validate.model.falsified_clauses`
with a full model, and ``gbdc.gbdhash`` (C++, reads and hashes every literal). Target: the
validator within 2x of gbdc. The .xz file is written with preset 0 to keep setup short (it
measures decompression, which does not depend much on the preset).

Run: ``python -m bench.bench_parse`` (needs ``pip install gbdc``; about a minute).
"""

from __future__ import annotations

import lzma
import tempfile
import time
from pathlib import Path

import numpy as np

from puzzlesat.generator.core.cnf import Formula
from puzzlesat.generator.core.reader import read_dimacs
from puzzlesat.generator.core.writer import dimacs_bytes
from puzzlesat.validate.model import falsified_clauses

NUM_VARS = 1_000_000
NUM_CLAUSES = 5_000_000


def random_3cnf(seed: int = 1) -> Formula:
    rng = np.random.default_rng(seed)  # benchmark data only, never an instance of a suite
    f = Formula()
    f.new_vars("x", NUM_VARS)
    lits = rng.integers(1, NUM_VARS + 1, (NUM_CLAUSES, 3)) * rng.choice([-1, 1], (NUM_CLAUSES, 3))
    f.add("random", lits.astype(np.int32))
    return f


def timed(fn, *args):
    start = time.perf_counter()
    value = fn(*args)
    return time.perf_counter() - start, value


def parse_and_check(path: Path, model: np.ndarray):
    dimacs = read_dimacs(path)
    return falsified_clauses(dimacs.literals, dimacs.num_vars, model)


def main() -> None:
    try:
        import gbdc
    except ImportError:
        print("gbdc is not installed (pip install gbdc): nothing to compare against")
        return
    data = dimacs_bytes(random_3cnf())
    mb = len(data) / 1e6
    model = np.arange(1, NUM_VARS + 1) * np.where(np.arange(NUM_VARS) % 2, 1, -1)
    with tempfile.TemporaryDirectory() as tmp:
        plain, packed = Path(tmp, "r.cnf"), Path(tmp, "r.cnf.xz")
        plain.write_bytes(data)
        packed.write_bytes(lzma.compress(data, preset=0))
        print(f"{NUM_CLAUSES:,} clauses, {mb:.1f} MB of DIMACS "
              f"({packed.stat().st_size / 1e6:.1f} MB as .xz)")
        print(f"{'file':8} {'read_dimacs':>14} {'+ model check':>14} {'gbdc hash':>14} {'ratio':>6}")
        for path in (plain, packed):
            t_parse, dimacs = timed(read_dimacs, path)
            t_check, _ = timed(parse_and_check, path, model)
            t_gbd, digest = timed(gbdc.gbdhash, str(path))
            assert digest == dimacs.gbd_hash, (digest, dimacs.gbd_hash)
            print(f"{path.suffix:8} {mb / t_parse:9.0f} MB/s {mb / t_check:9.0f} MB/s "
                  f"{mb / t_gbd:9.0f} MB/s {t_check / t_gbd:5.2f}x")


if __name__ == "__main__":
    main()

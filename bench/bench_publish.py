"""Publishing cost: a suite's publish time against lzma alone, and the -j 2 speed-up.

xz compression is the bulk of publishing (ecosystem notes: preset 6 on a few MB of clauses
takes seconds), so the target is that everything else — generating, encoding, formatting,
hashing, writing, manifests — adds at most 10% to the time of compressing the same bytes with
lzma alone, and that two jobs publish at least 1.8x faster than one (instances are independent).

The suite holds edge-matching and sliding instances, whose generators are fast; a family whose
generator is slow (planted Flow grids search for paths) adds its own time, measured apart by
``puzzlesat generate``. Run by hand: ``python -m bench.bench_publish``.
"""

from __future__ import annotations

import lzma
import tempfile
import time
from pathlib import Path

from puzzlesat.generator.core.inputs import decompress
from puzzlesat.generator.suite import publish_suite

SPEC = """
[suite]
name = "bench"
author = "bench"
version = "1"
seed = 5

[[group]]
family = "edge-matching"
encodings = ["compact", "all"]
replicates = 4
params = { rows = 8, border_colors = 3, center_colors = 5 }

[[group]]
family = "sliding"
encoding = "direct"
params = { korf = 50 }
zip = { k = [20, 21, 22, 23], budget = [20, 21, 22, 23] }
"""


def _publish(spec: Path, out: Path, jobs: int) -> float:
    start = time.perf_counter()
    publish_suite(spec, out, jobs=jobs)
    return time.perf_counter() - start


def _lzma_alone(out: Path) -> tuple[float, int]:
    """Seconds to compress every published instance's DIMACS text with lzma preset 6."""
    texts = [decompress(p.read_bytes()) for p in sorted((out / "instances").iterdir())]
    start = time.perf_counter()
    for text in texts:
        lzma.compress(text, preset=6)
    return time.perf_counter() - start, sum(map(len, texts))


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        spec = tmp / "bench.toml"
        spec.write_text(SPEC)
        one = _publish(spec, tmp / "one", 1)
        two = _publish(spec, tmp / "two", 2)
        alone, size = _lzma_alone(tmp / "one")
        count = len(list((tmp / "one" / "instances").iterdir()))
    print(f"suite: {count} instances, {size / 1e6:.1f} MB of DIMACS")
    print(f"lzma preset 6 alone:   {alone:6.2f} s")
    print(f"publish -j 1:          {one:6.2f} s  overhead {100 * (one / alone - 1):+.1f}% "
          f"(target <= +10%)")
    print(f"publish -j 2:          {two:6.2f} s  speed-up {one / two:.2f}x (target >= 1.8x)")


if __name__ == "__main__":
    main()

"""The cost of ``.xz``: ``puzzlesat generate`` of the Eternity-II-size board (em-16-5-17,
encoding ``all``, 110 MB of DIMACS) plain, as ``.xz`` (one stream) and as ``--compression
xz-mt -j 2``, against XZ Utils compressing the plain file: ``xz -6 -T1`` (the bytes ``.xz``
writes), ``xz -6 -T2`` (its own blocks, 24 MiB at preset 6) and ``xz -6 -T2
--block-size=8MiB`` (the bytes xz-mt writes: checked here).

The target: xz-mt on two threads in at most 0.6x the wall time of ``xz -6 -T1``. Every
command is a whole process, run ``REPEATS`` times in turn (A B C ... A B C: a drift of the
machine's speed reaches all alike); the median wall and CPU seconds are printed, with each
command's peak memory (its largest run). Needs ``xz`` on PATH. Run by hand (about 10 minutes on
two cores): ``python -m bench.bench_xz``.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_pipeline import GENERATE

REPEATS = 3  # each round takes about three minutes on two cores
#: as on a user's machine, Python caches bytecode
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(command: list[str], stdout: Path | None = None) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, peak resident bytes) of one whole process; its standard
    output goes to ``stdout`` (else nowhere)."""
    with open(stdout or os.devnull, "wb") as out:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL, env=_ENV)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(command)} failed ({os.waitstatus_to_exitcode(status)})")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def commands(xz: str, tmp: Path) -> list[tuple[str, list[str], Path, bool]]:
    """(name, command, the file it writes, whether it writes it to stdout), the plain text
    first: the xz commands read it."""
    generate = [sys.executable, "-m", "puzzlesat", *GENERATE, "--seed", "1"]
    xz6 = [xz, "-6", "-c", str(tmp / "em.cnf")]
    return [
        ("generate -o em.cnf (plain)", [*generate, "-o", str(tmp / "em.cnf")], tmp / "em.cnf",
         False),
        ("generate -o em.cnf.xz", [*generate, "-o", str(tmp / "one.cnf.xz")],
         tmp / "one.cnf.xz", False),
        (MT, [*generate, "--compression", "xz-mt", "-j", "2", "-o", str(tmp / "mt.cnf.xz")],
         tmp / "mt.cnf.xz", False),
        (T1, [*xz6, "-T1"], tmp / "T1.xz", True),
        (T2, [*xz6, "-T2"], tmp / "T2.xz", True),
        (T2_8, [*xz6, "-T2", "--block-size=8MiB"], tmp / "T2-8MiB.xz", True),
    ]


MT, T1, T2, T2_8 = ("generate --compression xz-mt -j 2", "xz -6 -T1", "xz -6 -T2",
                    "xz -6 -T2 --block-size=8MiB")


def main() -> None:
    xz = shutil.which("xz")
    if xz is None:
        print("bench_xz: no xz on PATH; skipped")
        return
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        plan = commands(xz, tmp)
        runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name, *_ in plan}
        for _ in range(REPEATS):
            for name, command, output, to_stdout in plan:
                runs[name].append(run(command, output if to_stdout else None))
        sizes = {name: output.stat().st_size for name, _, output, _ in plan}
        same = (tmp / "mt.cnf.xz").read_bytes() == (tmp / "T2-8MiB.xz").read_bytes()
    wall = {name: statistics.median(r[0] for r in rs) for name, rs in runs.items()}
    print(f"em-16-5-17 all, {sizes[plan[0][0]] / 1e6:.0f} MB of DIMACS; {os.cpu_count()} "
          f"CPUs; medians of {REPEATS} whole processes")
    print(f"{'command':36} {'wall s':>7} {'cpu s':>7} {'peak MB':>8} {'bytes':>11} "
          f"{'wall / xz -T1':>13}")
    for name, rs in runs.items():
        cpu = statistics.median(r[1] for r in rs)
        peak = max(r[2] for r in rs) / 1e6
        print(f"{name:36} {wall[name]:7.2f} {cpu:7.2f} {peak:8.0f} {sizes[name]:11d} "
              f"{wall[name] / wall[T1]:13.2f}")
    print(f"xz-mt -j 2 / {T1}: {wall[MT] / wall[T1]:.2f}x (target <= 0.6x); / {T2}: "
          f"{wall[MT] / wall[T2]:.2f}x; / {T2_8}: {wall[MT] / wall[T2_8]:.2f}x")
    print(f"xz-mt bytes {'equal' if same else 'DIFFER FROM'} {T2_8}'s; size "
          f"{sizes[MT] / sizes[T1]:.4f}x {T1}'s")


if __name__ == "__main__":
    main()

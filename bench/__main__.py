"""Run every benchmark module in this folder (``python -m bench``) and print its report."""

import importlib
import pkgutil
from pathlib import Path

for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda m: m.name):
    if info.name.startswith("bench_"):
        print(f"== {info.name} ==", flush=True)
        importlib.import_module(f"bench.{info.name}").main()

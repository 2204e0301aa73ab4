"""Benchmarks against peers. Run by hand (`make bench`), never part of CI's pass/fail."""

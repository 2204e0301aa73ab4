"""puzzlesat: puzzles to SAT benchmark instances and back.

:mod:`puzzlesat.generator` makes instances and suites, :mod:`puzzlesat.validate` checks what
solvers say about them, :mod:`puzzlesat.cli` is the `puzzlesat` command on top of both. The
version lives in :mod:`puzzlesat.generator.core.version`.
"""

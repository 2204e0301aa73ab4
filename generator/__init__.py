"""Making instances: shared building blocks (core), the puzzle families, one instance end to
end (instance), and whole suites (suite). Nothing here imports :mod:`puzzlesat.validate`."""

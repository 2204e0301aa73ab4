"""puzzlesat: puzzles to SAT benchmark instances and back."""

__version__ = "0.1.0"

"""``python -m puzzlesat`` runs the command line."""

from puzzlesat.cli import main

main()

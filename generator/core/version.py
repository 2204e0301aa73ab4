"""The version of puzzlesat, in one place: instance headers, manifests and descriptions quote
it, the command prints it, and pyproject.toml reads it from here (``[tool.setuptools.dynamic]``)."""

VERSION = "0.1.0"

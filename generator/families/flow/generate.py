"""Drawing a Flow Free grid: a level file, or a planted grid with the colours asked for (kept
only when a solver proves it unique, with ``--unique``), and the instance's canonical name."""

from __future__ import annotations

import math
import re
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.seeds import Rng
from puzzlesat.generator.core.solving import Solving
from puzzlesat.generator.families.flow.certificate import move_endpoint
from puzzlesat.generator.families.flow.plant import (
    UNIQUE_ATTEMPTS,
    colour_range,
    is_unique,
    plant_paths,
    planted_puzzle,
)
from puzzlesat.generator.families.flow.puzzle import Puzzle, load_puzzle


def uses_seed(params: dict) -> bool:
    """Whether the grid is drawn (a level file leaves nothing to the seed)."""
    return "puzzle" not in params


def instance_name(params: dict, draw: str | None, encoding: str) -> str:
    """``flow-<size>-<colours>...-<encoding>``; a level file is named by its stem."""
    if "puzzle" in params:
        stem = re.sub(r"[^A-Za-z0-9_-]+", "-", Path(params["puzzle"]).name.split(".")[0])
        return f"flow-{stem}-{encoding}"
    if "colors" in params:
        colors = f"c{params['colors']}"
    elif "min_colors" in params:
        colors = f"c{params['min_colors']}-{params['max_colors']}"
    else:
        colors = "cauto"
    flags = "-u" if params.get("unique") else ""
    if params.get("min_path", 3) != 3:
        flags += f"-m{params['min_path']}"
    if "unsat" in params:
        flags += f"-{params['unsat']}"
    return f"flow-{params['width']}x{params['height']}-{colors}{flags}-{draw}-{encoding}"


def generate(params: dict, rng: Rng, solving: Solving | None = None) -> Puzzle:
    """A level file (``puzzle``) or a planted grid (``width``, ``height``, colours).

    With ``unique``, planted grids are drawn until :func:`.plant.is_unique` proves one unique
    with ``solving``'s incremental solver (passed in by the caller, as for ``--certify``); the
    number of grids drawn is kept in ``Puzzle.attempts`` and shown in ``expected-from``."""
    planted_keys = ("width", "height", "colors", "min_colors", "max_colors", "unique", "unsat")
    if "puzzle" in params:
        extra = [k for k in planted_keys if params.get(k)]
        if extra:
            raise UserError(f"flow: --{extra[0].replace('_', '-')} does not apply with --puzzle")
        return load_puzzle(params["puzzle"])
    if params.get("certify"):
        raise UserError("flow: --certify applies to --puzzle files only (planted grids are SAT)")
    if "width" not in params or "height" not in params:
        raise UserError("flow: give --width and --height, or --puzzle")
    width, height, min_path = params["width"], params["height"], params.get("min_path", 3)
    low, high = _colours_asked(params, width, height, min_path)
    unique = params.get("unique")
    if unique and solving is None:
        raise UserError("flow: --unique needs a SAT solver, and none was passed in (make the "
                        "instance with `puzzlesat generate` or a suite)")
    attempts = UNIQUE_ATTEMPTS if unique else 1
    for attempt in range(1, attempts + 1):
        colors = low + rng.integer(high - low + 1) if high > low else low
        puzzle = planted_puzzle(width, height, plant_paths(width, height, colors, min_path, rng))
        if solving is not None and unique:
            if not is_unique(puzzle, solving):
                continue
            puzzle.attempts = attempt
            puzzle.solver = solving.solver
        if params.get("unsat") == "parity":  # drawn after the planted grid: same grid as without
            puzzle = move_endpoint(puzzle, rng)
        return puzzle
    raise UserError(f"flow: no unique {width}x{height} grid with {_counts(low, high)} colours "
                    f"and paths of at least {min_path} cells after {attempts} attempts; try "
                    "more colours or a smaller grid")


def _counts(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}..{high}"


def default_colors(width: int, height: int, min_path: int) -> int:
    """About √(width·height), what real levels use: the article's n×n levels have about n
    colours (regular 5x5..9x9: 5-9; jumbo 10x10..14x14: 11-16; extreme ones fewer, 4-10),
    the spec's "pair count around √(w·h)"; clipped to :func:`colour_range`.

    >>> default_colors(12, 12, 3), default_colors(20, 5, 3), default_colors(60, 60, 3)
    (12, 10, 60)
    """
    low, high = colour_range(width, height, min_path)
    return min(max(round(math.sqrt(width * height)), low), high)


def _colours_asked(params: dict, width: int, height: int, min_path: int) -> tuple[int, int]:
    """The colour counts asked for, checked against :func:`colour_range`."""
    low, high = colour_range(width, height, min_path)
    if high == 0:
        raise UserError(f"flow: no {width}x{height} grid has paths of at least {min_path} cells "
                        f"(the longer side is {max(width, height)}); try a shorter --min-path")
    if "colors" in params:
        if "min_colors" in params or "max_colors" in params:
            raise UserError("flow: give --colors or --min-colors/--max-colors, not both")
        asked = (params["colors"], params["colors"])
    elif "min_colors" in params or "max_colors" in params:
        if "min_colors" not in params or "max_colors" not in params:
            raise UserError("flow: --min-colors and --max-colors go together")
        if params["min_colors"] > params["max_colors"]:
            raise UserError(f"flow: --min-colors {params['min_colors']} exceeds --max-colors "
                            f"{params['max_colors']}")
        asked = (params["min_colors"], params["max_colors"])
    else:
        colors = default_colors(width, height, min_path)
        return colors, colors
    if asked[1] > high:
        raise UserError(f"flow: a {width}x{height} grid with paths of at least {min_path} cells "
                        f"takes {low}..{high} colours (fewer when the grid allows), asked for "
                        f"{_counts(*asked)}")
    return asked

"""The tracks an instance is made for, one module each, all of the same shape: what its file
holds, what its header certifies, how ``generate`` and a suite spec ask for it, and what a
suite's description says of it. The validator judges the answers of each track in the
folder of the same name under ``validate/tracks/``.

========  ========  ==========================  ==============================================
track     format    asked for by                what is known by construction
========  ========  ==========================  ==============================================
sat       cnf       (default)                   the result (planted, optimal trace, parity)
mc        cnf       ``--count``/``count=true``  the (projected) model count
maxsat    wcnf      ``--format wcnf``           bounds on the optimum (often the optimum)
pb        opb       ``--format opb``            the result (with a proof of each parity
                                                UNSAT), or the optimum as MaxSAT certifies it
========  ========  ==========================  ==============================================

A track module defines

``NAME``          the track's name (the keys of :data:`TRACKS`)
``FORMAT``        the file format: the instance's suffix (``.cnf``, ``.wcnf``) and ``--format``
``COUNT``         whether ``--count`` (a group's ``count = true``) asks for it
``TITLE``, ``FORMAT_TEXT``   the track and its format in words, for prose and ``--help``
``CONSTRAINTS``   what the file's constraints are called ("clauses", "constraints")
``GROUP_KEYS``    the keys a suite spec's group asks for it with
``REPRODUCE``     the words ``generate`` takes for it in a header's reproduce line: (before
                  ``--name``, before ``-o``), as published headers hold them
``SUITE_SUFFIX``  what a suite adds to its instances' names
``RESULTS``       the results a row can have, in the order descriptions list them
``has(family)``   whether the family has a form of the track
``module(family)``   the family's module for the track (its card names it; the SAT track's
                  is the family itself), or a UserError naming the families that have one
``encodings(family)``, ``estimate(family, params, encoding, puzzle=None)``,
``decides(family, encoding)``   whether its files ask the puzzle's decision question (the
                  one a family's certificates answer), not an optimisation
``encode(family, puzzle, encoding)``, ``make(family, puzzle, params, encoding, seed,
solving) -> Made``   its formula, and what is known of it
``picture(family, puzzle, params, seed)``, ``summary(instance)``   what a description
                  draws and what ``generate`` says
``head(formula, header)``, ``body(formula)``, ``write(path, formula, header,
compression)``, ``sizes(formula)``, ``gbd_hash(formula)``, ``fingerprint(formula)``   the
                  file written (``compression`` a
                  :class:`~puzzlesat.generator.core.files.Compression`)
``read(path)``, ``text_pieces(path, follow_symlinks)``, ``file_fingerprint(parsed)``,
``file_sizes(parsed)``, ``file_lines(parsed)``   the file read, never past what its header
                  allows (:func:`~puzzlesat.generator.tracks.parts.header_limit`)
the description's parts: ``result_word(row)``, ``table_result(rows)``,
``encoding_text(family, encoding)``, ``abstract(results, rows, families, tex)`` (LaTeX),
``family_notes(family)``,
``markdown_section(rows, calibration)``, ``latex_section(rows, calibration, tex)``
"""

from __future__ import annotations

import importlib
from types import ModuleType

from puzzlesat.generator.core.errors import UserError, shown
from puzzlesat.generator.core.head import Head

#: track name -> its module under puzzlesat.generator.tracks (loaded when asked for)
TRACKS = {"sat": "sat", "mc": "mc", "maxsat": "maxsat", "pb": "pb"}


def get_track(name: str) -> ModuleType:
    """The track module registered under ``name``; an unknown name is a UserError."""
    try:
        module = TRACKS[name]
    except KeyError:
        raise UserError(f"unknown track {shown(name)} (known: {', '.join(TRACKS)})") from None
    return importlib.import_module(f"{__name__}.{module}")


def all_tracks() -> list[ModuleType]:
    """Every track module, in registry order."""
    return [get_track(name) for name in TRACKS]


def tracks_of(family) -> list[ModuleType]:
    """The track modules a family has (SAT, its own; the others its card names), in registry
    order."""
    return [track for track in all_tracks() if track.has(family)]


def track_for(fmt: str, count: bool = False) -> ModuleType:
    """The track a format and ``--count`` ask for (``generate --format``, a group's
    ``format`` and ``count``), or a UserError."""
    for track in all_tracks():
        if (track.FORMAT, track.COUNT) == (fmt, count):
            return track
    if fmt not in formats():
        raise UserError(f"format must be one of {', '.join(formats())}, got {shown(fmt)}")
    raise UserError(f"--count makes model-counting DIMACS: not with format {fmt}")


def formats() -> list[str]:
    """The file formats of the tracks, in registry order."""
    return list(dict.fromkeys(track.FORMAT for track in all_tracks()))


def track_of_head(head: Head) -> ModuleType:
    """The track of a file from its head (:func:`~puzzlesat.generator.core.head.read_head`):
    its format, and for DIMACS whether it has a ``c t`` line (a counting instance)."""
    return track_for(head.format, bool(head.comments.tracks) and head.format == "cnf")

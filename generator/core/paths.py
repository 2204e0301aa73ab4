"""The rules for paths a command reads or writes inside a folder it was given, in one place.

* Inside a suite or results folder only regular files under it are read: no absolute path, no
  ``..``, no symlink on the way or at the end (:func:`file_under`, :func:`is_regular_file`).
* A subfolder a command writes into is a plain folder, never a symlink to elsewhere
  (:func:`plain_folder`).
* A failing system call is one line naming what was done to which path (:func:`os_failure`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from puzzlesat.generator.core.errors import UserError


def os_failure(exc: OSError, doing: str, where: str = "") -> UserError:
    """The one-line error for ``exc`` raised while ``doing`` (``"write out/x"``), after
    ``where: `` when given."""
    prefix = f"{where}: " if where else ""
    return UserError(f"{prefix}cannot {doing}: {exc.strerror or exc}")


def is_regular_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` itself (not what a symlink names) is a regular file."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def plain_folder(path: str | os.PathLike, what: str, create: bool = True) -> Path:
    """``path`` as a plain folder a command writes into: made when missing (with ``create``);
    a symlink (it would lead the writes elsewhere) or anything but a folder is a UserError."""
    path = Path(path)
    if path.is_symlink():
        raise UserError(f"{what} {path} is a symlink: refusing to read or write through it")
    if os.path.lexists(path) and not path.is_dir():
        raise UserError(f"{what} {path} is not a folder")
    if create and not path.exists():
        try:
            path.mkdir(parents=True)
        except FileExistsError:
            return plain_folder(path, what, create=False)
        except OSError as exc:
            raise os_failure(exc, f"create {what} {path}") from None
    return path


def file_under(base: str | os.PathLike, rel: str, where: str) -> Path:
    """``base/rel`` for a file a folder holds: ``rel`` relative, without ``..``, and no symlink
    on the way or at the end; else a UserError that names the path, never its content."""
    parts = PurePosixPath(rel).parts
    if not rel or PurePosixPath(rel).is_absolute() or "\\" in rel or ".." in parts:
        raise UserError(f"{where}: {rel[:100]!r} is not a path inside the folder (no absolute "
                        f"path, no '..')")
    path = Path(base)
    for part in parts:
        path = path / part
        if path.is_symlink():
            raise UserError(f"{where}: {path} is a symlink: only files inside the folder are "
                            f"read")
    return path

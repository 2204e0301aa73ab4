"""The one exception type for a user's mistake.

Library code raises :class:`UserError` with a message that says what is wrong and where; the
command line prints it as one line and exits with code 2. Anything else is a bug and keeps its
traceback.
"""

from collections.abc import Iterator
from contextlib import contextmanager


class UserError(Exception):
    """A bad parameter, unknown name, malformed file or unwritable path."""


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for an error line that quotes a
    value from a file (a 200 KB header field must not become a 200 KB error line)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


@contextmanager
def prefixed(prefix: str) -> Iterator[None]:
    """Run the block; a UserError raised in it is raised again with ``prefix`` before its
    message (the boundary that knows where, e.g. a spec's group or a file name, says it once:
    not again before a message that starts with it already)."""
    try:
        yield
    except UserError as exc:
        if str(exc).startswith(prefix):
            raise
        raise UserError(f"{prefix}{exc}") from None

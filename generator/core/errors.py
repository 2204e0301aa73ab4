"""The one exception type for a user's mistake.

Library code raises :class:`UserError` with a message that says what is wrong and where; the
command line prints it as one line and exits with code 2. Anything else is a bug and keeps its
traceback.
"""


class UserError(Exception):
    """A bad parameter, unknown name, malformed file or unwritable path."""

"""Whitespace-separated integers read strictly, the reference reader of every numeric text a
file or a solver gives (the DIMACS reader's fast path falls back to it): each token within
+-:data:`MAX_LITERAL`, every ``-`` right before a digit 1-9.

>>> parse_integers(b"1 -2 0", "x").tolist()
[1, -2, 0]
"""

from __future__ import annotations

import numpy as np

from puzzlesat.generator.core.errors import UserError


def minus_signs_ok(text: bytes) -> bool:
    """Every '-' stands after white space (or at the start) and before a digit 1-9."""
    a = np.frombuffer(text, np.uint8)
    at = np.flatnonzero(a == ord("-"))
    after = a[np.minimum(at + 1, a.size - 1)]
    before = a[np.maximum(at - 1, 0)]
    ok_after = (at + 1 < a.size) & (after >= ord("1")) & (after <= ord("9"))
    ok_before = (at == 0) | np.isin(before, np.frombuffer(b" \t\r\n", np.uint8))
    return bool((ok_after & ok_before).all())


#: the largest literal magnitude (DIMACS literals are signed 32-bit in every solver we know)
MAX_LITERAL = 2**31 - 1
_TOO_LARGE = "literal too large for DIMACS (|l| >= 2^31)"


def parse_integers(text: bytes, name: str) -> np.ndarray:
    """Whitespace-separated integers (already checked for stray characters), each within
    +-:data:`MAX_LITERAL`, else a UserError. numpy's reader saturates past int64 (and
    ``-2^63`` passes ``abs``), so a token with more than 10 significant digits is refused
    before any value is looked at, and the rest are compared with both bounds."""
    if not text.strip():
        return np.zeros(0, dtype=np.int64)
    values = np.fromstring(text.decode("ascii"), dtype=np.int64, sep=" ")
    a = np.frombuffer(text, np.uint8)
    digit = (a >= ord("0")) & (a <= ord("9"))
    starts = np.flatnonzero(digit[1:] & ~digit[:-1]) + 1
    if digit[0]:
        starts = np.concatenate([[0], starts])
    if values.size != starts.size:  # numpy stops quietly at what it cannot read
        raise UserError(f"{name}: could not read every literal (number too large?)")
    ends = np.flatnonzero(digit[:-1] & ~digit[1:])  # each token's last digit
    if digit[-1]:
        ends = np.append(ends, a.size - 1)
    # digits from each token's first nonzero one (a.size: the token is all zeros)
    nonzero = np.append(np.flatnonzero(digit & (a != ord("0"))), a.size)
    first = nonzero[np.searchsorted(nonzero, starts)]
    if (first + 10 <= ends).any():  # 11 significant digits or more
        raise UserError(f"{name}: {_TOO_LARGE}")
    if values.size and ((values > MAX_LITERAL) | (values < -MAX_LITERAL)).any():
        raise UserError(f"{name}: {_TOO_LARGE}")
    return values

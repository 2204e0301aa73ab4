"""Seeds and the few random primitives every family uses.

Reproducibility years later is the point, so nothing here relies on numpy's *distribution*
code (``Generator.integers``, ``shuffle``, ...), whose output numpy may change between
versions. Only the raw 64-bit stream of the PCG64 bit generator is used — a fixed algorithm —
and the primitives on top of it (bounded integers by rejection, Fisher–Yates shuffle, one-at-a-
time multiply-shift draws) are written out here and pinned by golden tests.

>>> rng = Rng(1)
>>> rng.integers(6, 5).tolist()
[1, 0, 1, 4, 5]
>>> rng.permutation(5).tolist()
[2, 3, 1, 0, 4]
>>> derive_seed(2009, "em-7-3-6-s1-all")
103204438352070396
"""

from __future__ import annotations

import hashlib

import numpy as np

_TWO64 = 1 << 64


def derive_seed(master_seed: int, name: str) -> int:
    """A 63-bit seed from a master seed and a canonical instance name, via sha256.

    Derivation depends only on the two inputs, so adding or removing other instances of a
    suite never changes this instance's seed.
    """
    digest = hashlib.sha256(f"puzzlesat:{int(master_seed)}:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


class Rng:
    """A PCG64 stream with version-stable primitives. One per instance; never global."""

    def __init__(self, seed: int):
        if not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self.seed = int(seed)
        self._bits = np.random.PCG64(self.seed)

    def raw(self, n: int) -> np.ndarray:
        """``n`` raw uint64 draws."""
        return self._bits.random_raw(n).astype(np.uint64)

    def integers(self, bound: int, size: int) -> np.ndarray:
        """``size`` independent uniform integers in ``[0, bound)`` (int64), by rejection.

        A draw ``x`` is kept when ``x < 2**64 - (2**64 mod bound)`` and mapped to
        ``x mod bound``; rejected draws are skipped in stream order, so the result depends
        only on the stream.
        """
        if bound < 1:
            raise ValueError("bound must be at least 1")
        limit = np.uint64(_TWO64 - (_TWO64 % bound)) if _TWO64 % bound else None
        out = np.empty(size, dtype=np.int64)
        filled = 0
        while filled < size:
            draws = self.raw(size - filled)
            if limit is not None:
                draws = draws[draws < limit]
            take = draws[: size - filled]
            out[filled : filled + take.size] = (take % np.uint64(bound)).astype(np.int64)
            filled += take.size
        return out

    def integer(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)``."""
        return int(self.integers(bound, 1)[0])

    def permutation(self, n: int) -> np.ndarray:
        """A uniform permutation of ``0..n-1`` (Fisher–Yates from the top)."""
        perm = np.arange(n, dtype=np.int64)
        for i in range(n - 1, 0, -1):
            j = self.integer(i + 1)
            perm[i], perm[j] = perm[j], perm[i]
        return perm

    def choice(self, items: list):
        """A uniformly chosen item of ``items``."""
        return items[self.integer(len(items))]

    def draws(self, block: int = 1024) -> Draws:
        """A :class:`Draws` on this stream, for algorithms that draw one small integer at a
        time (a per-call :meth:`integer` costs a numpy call each)."""
        return Draws(self, block)


class Draws:
    """Bounded integers one at a time from an :class:`Rng`'s raw stream: ``below(k)`` is
    ``(x * k) >> 64`` for the next raw word ``x`` (multiply-shift; bias below k / 2**64).
    Words are taken ``block`` at a time, so the stream consumed depends only on the calls made.

    >>> draws = Rng(1).draws()
    >>> [draws.below(6) for _ in range(5)]
    [3, 5, 0, 5, 1]
    """

    def __init__(self, rng: Rng, block: int = 1024):
        self.rng, self.block, self.next = rng, block, 0
        self.words: list[int] = []

    def below(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)`` from the buffered words."""
        if self.next == len(self.words):
            self.words, self.next = self.rng.raw(self.block).tolist(), 0
        word = self.words[self.next]
        self.next += 1
        return (word * bound) >> 64

"""The DRAT checker's clause database, built while the proof is read (kernels in ``database.c``).

The formula's clauses come first, then each step of the proof as soon as its 0 has been read:

* an addition becomes the next clause: its literals without repeats, in the order written (the
  first is RAT's pivot), kept in the array the reader fills, one int32 per literal;
* a deletion is matched at once to the newest clause of the same literals (as a set) that no
  deletion has matched yet, a multiset's way: each copy is deleted once, and a deletion that
  matches no clause matches nothing (the checker then ignores it, as drat-trim does). Its
  literals are dropped.

So a proof is never held as it was read: its deletions, often half its literals, cost a byte
each (their kind), and the checker's peak memory is its database, not the proof's size.

Clauses are found through a hash table whose hash of a clause is the sum of a keyed hash of
each literal (the order written does not matter; every bit of it depends on every bit of the
literal). The key is drawn for each check: a proof cannot crowd one bucket (which would make
matching its deletions quadratic) without knowing it, and the verdict does not depend on it
(clauses in a bucket are compared literal by literal; a crowded bucket's walk still looks at
the clock). The table and the per-clause arrays grow with the clauses, sized before each call
for the additions read and not yet taken.

The literals keep the numbers they were written with: :mod:`.drat` renumbers the database's
variables and turns its literals into codes once the proof has been read.
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from puzzlesat.validate.proof import native
from puzzlesat.validate.proof.native import F64, I64, array

#: the clauses a check may hold: a clause id fits a watch of drat.c, and a watch list's count
#: and room (twice a count) fit 32 bits (drat.c's List)
(MAX_CLAUSES,) = native.constants("drat", "MAX_CLAUSES")
# slots of the scalars array (database.c's: the first literal not taken, the clauses, the steps
# taken, the set's clock, the literals of a step the set lacks room for; how many)
_READ, _CLAUSES, _STEP, _CLOCK, _LONGEST, _SCALARS = native.constants(
    "database", "READ", "CLAUSES", "STEP", "CLOCK", "LONGEST", "SCALARS")
#: the set's clock starts again before this; what a take returns past its deadline
CLOCK_LIMIT, _LATE = native.constants("database", "CLOCK_LIMIT", "LATE")
#: the hash table's buckets at first (a power of two; at least 2 per clause as it grows)
_FIRST_BUCKETS = 1 << 10
#: the slots of the set a step's literals go through at first (a power of two, at least 2 per
#: literal: grown for a longer step)
_FIRST_SET = 1 << 10

_NO_KINDS = np.zeros(0, np.uint8)
mix = native.kernel("database_mix", I64, I64, I64)
_take = native.kernel(
    "database_take", I64, array(np.int32), I64, I64, array(np.uint8), array(np.int64), I64, F64,
    array(np.int64), array(np.int64), array(np.int32), I64, array(np.int32), array(np.int64),
    I64)
_rehash = native.kernel("database_rehash", None, array(np.int32), array(np.int64), I64, I64,
                        array(np.int32), I64, array(np.int32))


def hash_key() -> int:
    """A fresh key for the clause hash of one check."""
    # 62 bits from the system's random source, where secrets.randbits(62) draws them too: the
    # secrets module loads hmac and, through it, OpenSSL, milliseconds on every check
    return int.from_bytes(os.urandom(8), "little") >> 2


class Built(NamedTuple):
    """The database once every step is taken."""

    literals: np.ndarray  # int32, clause c is literals[start[c]:start[c + 1]], as written
    start: np.ndarray  # int64, one more than the clauses
    step_clause: np.ndarray  # int64: the clause each step added or deleted (-1: none matched)
    n_formula: int  # the formula's clauses (the first ones)


class ClauseDatabase:
    """The clause database of one check: the formula's clauses at once, then the proof's steps
    as :func:`puzzlesat.validate.proof.reader.read_proof` reads them (it appends their literals
    to :attr:`literals` and calls :meth:`take`). Past ``deadline`` (``time.monotonic()``) a
    TimeoutError."""

    def __init__(self, flat: np.ndarray, deadline: float | None = None) -> None:
        #: the formula (the check must be of this one)
        self.flat = flat
        flat = np.asarray(flat)
        if flat.shape[0] and flat[-1] != 0:
            raise ValueError("the formula's last clause does not end in 0")
        self._late = np.inf if deadline is None else native.deadline(deadline)
        self._key = hash_key()
        self._scalars = np.zeros(_SCALARS, np.int64)
        self._start = np.zeros(1, np.int64)
        self._step_clause = np.zeros(0, np.int64)
        self._head = np.full(_FIRST_BUCKETS, -1, np.int32)
        self._next = np.zeros(0, np.int32)
        self._set = np.zeros(_FIRST_SET, np.int64)
        self._done = self._reading = False
        #: the literals kept (the database grows here), and how many
        self.literals = flat.astype(np.int32)
        self.count = self._take(self.literals, flat.shape[0], None, 0,
                                int(np.count_nonzero(flat == 0)))
        self._n_formula = int(self._scalars[_CLAUSES])

    def reading(self) -> tuple[np.ndarray, int]:
        """The array a proof's literals go to, and the literals it holds already (the
        formula's): a database takes one proof (asked again, a ValueError)."""
        if self._reading:
            raise ValueError("this database has taken a proof already: a proof needs a "
                             "database of its own")
        self._reading = True
        return self.literals, self.count

    def take(self, literals: np.ndarray, kinds: np.ndarray, n_literals: int,
             n_steps: int) -> int:
        """Take the steps complete in ``literals[:n_literals]`` (the array the database grows
        in, with a proof's literals appended after the :attr:`count` it holds; ``kinds``: 1 for
        each deletion among the ``n_steps`` read): the literals kept, the step not yet complete
        last."""
        # the kernel checks no bounds: steps that do not follow would be written past them
        follows = self._scalars[_STEP] <= n_steps <= kinds.shape[0]
        if self._done or not follows or n_literals > literals.shape[0]:
            raise ValueError("these steps do not follow the ones this database has taken")
        return self._take(literals, n_literals, kinds, n_steps,
                          int(np.count_nonzero(kinds[self._scalars[_STEP]:n_steps] == 0)))

    def _take(self, literals: np.ndarray, n_literals: int, kinds: np.ndarray | None,
              n_steps: int, additions: int) -> int:
        """Take the complete steps (with ``kinds`` None, the formula's clauses), after room is
        made for the ``additions`` among them."""
        clauses = int(self._scalars[_CLAUSES]) + additions  # at most, after this call
        if clauses > MAX_CLAUSES:
            raise RuntimeError(f"more than {MAX_CLAUSES} clauses: beyond this checker")
        native.grow(self._start, clauses + 1)
        native.grow(self._next, clauses)
        native.grow(self._step_clause, n_steps)
        self.literals = literals
        if self._head.shape[0] < 2 * clauses:
            self._head = np.full(1 << (2 * clauses).bit_length(), -1, np.int32)
            _rehash(literals, self._start, self._scalars[_CLAUSES], self._key, self._head,
                    self._head.shape[0], self._next)
        while True:
            n_literals = _take(literals, n_literals, kinds is None,
                               _NO_KINDS if kinds is None else kinds, self._scalars, self._key,
                               self._late, self._start, self._step_clause, self._head,
                               self._head.shape[0], self._next, self._set, self._set.shape[0])
            if n_literals == _LATE:
                raise TimeoutError
            longest = int(self._scalars[_LONGEST])
            if not longest:
                self.count = n_literals
                return n_literals
            self._set = np.zeros(1 << (2 * longest + 1).bit_length(), np.int64)
            self._scalars[_LONGEST] = 0

    def built(self) -> Built:
        """The database, every step taken; its arrays are the caller's (a second call is a
        ValueError: a database serves one check)."""
        if self._done:
            raise ValueError("this proof was checked already (the checker keeps its "
                             "literals): read it again")
        self._done = True
        if self._scalars[_READ] != self.count:
            raise ValueError("the proof's last step has no 0")
        clauses, steps = int(self._scalars[_CLAUSES]), int(self._scalars[_STEP])
        built = Built(self.literals, self._start, self._step_clause, self._n_formula)
        built.literals.resize(self.count, refcheck=False)  # in place: realloc gives the tail back
        built.start.resize(clauses + 1, refcheck=False)
        built.step_clause.resize(steps, refcheck=False)
        # the arrays are the caller's alone: it frees each when done with it
        self.literals, self._head, self._next = (np.zeros(0, np.int32) for _ in range(3))
        self._start, self._step_clause, self._set = (np.zeros(0, np.int64) for _ in range(3))
        return built

"""Our DRAT checker: drat-trim's algorithm (Wetzler, Heule, Hunt: "DRAT-trim: Efficient Checking
and Trimming Using Expressive Clausal Proofs", SAT 2014) in a numba kernel.

What a proof must show (the semantics checked, step by step in proof order). The clause set S
starts as the formula, a multiset of clauses, each read as a set of literals (duplicates gone).

* ``C 0`` (an addition, C not empty) is accepted when C is RUP in S (unit propagation on S and
  the negation of C reaches a conflict), or else RAT in S on its first literal p as written (for
  every clause D of S holding -p, each copy counted, the resolvent C | D - {-p} is RUP in S;
  a D that holds p too is always true and constrains nothing: skipped, as drup does).
  Then C joins S. (drat-trim, checking backward, looks only at the candidates D its core
  holds, and tries other pivots when p fails: a lemma it accepts that way is rejected here.)
* ``0`` (the empty clause) is accepted when unit propagation on S alone reaches a conflict; the
  proof is then VERIFIED. An empty clause added while S does not propagate to a conflict is
  rejected.
* The proof is VERIFIED as soon as unit propagation on S reaches a conflict: before its first
  step (the formula alone: an empty proof, as python-sat's Glucose writes for a formula unit
  propagation refutes, is then VERIFIED), after any step, whether or not an empty clause is
  written (solvers stop writing when their clauses conflict, and drat-trim accepts it). Sound:
  the conflict makes the empty clause RUP in S, so adding it is a step the rules above accept.
  A proof whose steps all pass without S ever conflicting is rejected (a truncated proof, an
  empty proof of a formula propagation does not refute).
* ``d C 0`` removes one copy of C from S, except that it is IGNORED when C is not in S, and when
  C is unit under S's root assignment (the unit propagation closure of S, without conflict: one
  literal of C true, all others false). This is drat-trim's default of not deleting reason
  clauses, made independent of which clause propagation happened to pick as a reason: every
  reason clause is unit, so no deletion ever shrinks the root assignment.
* Once unit propagation on S reaches a conflict, the steps after it are not read.

Why this is sound: each step is checked against exactly the clause set the checker holds (an
ignored deletion keeps its clause in S for every later check, including in the root assignment
and in RAT's list of clauses with -p), and each accepted addition keeps S satisfiable when it was
(RUP: C is implied by S; RAT: any model of S is repaired into one of S + C by flipping p), so an
accepted empty clause makes the formula unsatisfiable. Ignoring a deletion only keeps more
clauses, never a stale assignment: the bug of a checker that keeps the root value a deleted reason
clause gave (the five-line proof of tests/test_drat.py) cannot happen here, because a clause
whose deletion would take a root value away is never deleted.

How (backward checking, as drat-trim): a forward pass adds every lemma without checking it,
keeping the root assignment by unit propagation with two watched literals, until S propagates to
a conflict; conflict analysis marks the clauses it used (the conflict's clause and, transitively,
the reasons of its literals). A backward pass then undoes the steps one by one (a lemma leaves S,
a deleted clause comes back) and checks only marked lemmas, each against the S of its own time,
marking what its check used. Unmarked lemmas are never checked, which is sound: the marked lemmas
alone, checked in order against S (whose RAT candidates include them), refute the formula. The
root assignment stays exactly S's unit propagation closure throughout: when a lemma that is the
reason of a root literal leaves S, the trail is cut back to that literal and propagation starts
again from the first root literal. The checks propagate core first (drat-trim's order): clauses
already marked propagate as far as they can before any other is visited, so a conflict is found
with marked clauses when it can be, and fewer lemmas are marked and checked (the order changes
which conflict is found, never whether one is). :func:`check_drat` with ``backward=False``
checks every lemma in the forward pass instead: the same verdicts as the plain-Python reference
(:mod:`drat_reference`), which the property tests compare it with.

Memory: the clause database is built in the array the proof was read into (with room left for
the formula: :func:`puzzlesat.validate.proof.reader.read_proof`), one int32 per literal; the
watch lists share one array sized to the clauses, not to their literals (an int64 watch: the
clause and a blocker literal, which saves reading most satisfied clauses); the LRAT hints the
backward pass records go to a temporary file a buffer at a time, and so do the certificate's
(:class:`puzzlesat.validate.proof.lrat.HintFile`), which is built once the clause database is
given up; :func:`load_kernels` loads the kernels before any data exists and gives LLVM's pages
back.
"""

from __future__ import annotations

import functools
import secrets
import time
from typing import NamedTuple

import numpy as np
from numba import njit, objmode

from puzzlesat.validate.proof.llvm_pages import page_out_llvm
from puzzlesat.validate.proof.lrat import Certificate, HintFile
from puzzlesat.validate.proof.reader import Proof, read_proof

# kernel outcomes
_GOING, _CONFLICT, _REJECTED, _BROKEN, _LATE, _FULL = 0, 1, 2, 3, 4, 5
#: clause ids fit a watch (an int32 with the core bit)
MAX_CLAUSES = 2**30 - 1
#: no deadline (a ``time.monotonic()`` value the kernels compare with)
_NEVER = np.inf
# slots of the scalar array: trail length, propagation head, work done in this kernel call,
# hints recorded, hint buffer overflowed, end of the watch lists' space in use, packings of it
_TRAIL, _HEAD, _WORK, _HINTS, _OVERFLOW, _WATCH_TOP, _PACKINGS = 0, 1, 2, 3, 4, 5, 6
#: a record of hints ends in ``_END - c`` for lemma c (the empty clause: c = clauses there
#: are); a RAT candidate d is written ``-1 - d``; a hint clause c as c
_END = -(2**30) - 1
#: steps a kernel call handles between two looks at the clock ...
_STEPS_PER_CALL = 2048
#: ... or fewer: a call returns once it has visited this many watches or RAT candidates (a
#: hostile proof's steps may each cost a pass over every clause)
_WORK_PER_CALL = 1 << 24
#: hint records held in memory at most (more for a formula with more variables: a conflict
#: analysis records up to one reason per variable); a backward call returns once they fill half
#: of it, and they go to a temporary file (:class:`_Records`)
HINT_BUFFER = 1 << 20


class _State(NamedTuple):
    db: np.ndarray  # int32 literal codes 2*v + (l < 0) of every clause, one after the other
    start: np.ndarray  # int64, clause c is db[start[c]:start[c + 1]]
    pivot: np.ndarray  # int32 code of the first literal as written (RAT's pivot), -1 if empty
    alive: np.ndarray  # uint8: the clause is in S now
    core: np.ndarray  # uint8: marked by a conflict analysis
    units: np.ndarray  # int64 ids of the one-literal clauses
    step_clause: np.ndarray  # int64 clause added or deleted by each step (-1: nothing to delete)
    step_delete: np.ndarray  # uint8
    ignored: np.ndarray  # uint8: a deletion the forward pass ignored
    value: np.ndarray  # int8 per code: 1 true, -1 false, 0 unassigned
    trail: np.ndarray  # int32 codes in assignment order
    reason: np.ndarray  # int64 per variable: the clause that implied it, -1 none
    position: np.ndarray  # int64 per variable: its place on the trail
    seen: np.ndarray  # uint8 per variable, for conflict analysis
    watch_start: np.ndarray  # int64 per code: the code's watch list in `watches`
    watch_count: np.ndarray  # int64 per code
    watch_room: np.ndarray  # int64 per code: the watches its place holds
    watches: np.ndarray  # int64 blocker << 32 | clause id << 1 | core (see _watch_space)
    scalars: np.ndarray  # int64 [_TRAIL, _HEAD, _WORK, _HINTS, _OVERFLOW, _WATCH_TOP, ...]
    search: np.ndarray  # int32 per clause: where in it the last search for a watch stopped
    hints: np.ndarray  # int32: the records of the checked lemmas' hints (see _END), backward
    assumed: np.ndarray  # uint8 per variable: false at the root as a check assumes it false


def _hash_key() -> int:
    """A fresh key for the clause hash of one check: a proof cannot be made to crowd one bucket
    (which would make matching its deletions quadratic) without knowing it, and the verdict
    does not depend on it (clauses in a bucket are compared literal by literal)."""
    return secrets.randbits(62)


@njit(cache=True)
def _mix(code, key):
    """A per-literal hash under ``key``; summed, it hashes a clause whatever the order of its
    literals."""
    h = (np.int64(code) ^ key) * np.int64(0x9E3779B1)
    h ^= h >> 15
    return h * np.int64(0x85EBCA77)


@njit(cache=True)
def _build(db, n_formula_literals, proof_deletions, num_vars, key, deadline):
    """The clause database, built in place in ``db``: it holds the formula's literals (the
    first ``n_formula_literals``), then the proof's, each clause or step ending in 0, and
    leaves the literal codes of the formula's clauses then of the proof's additions, without
    duplicate literals and without the 0s (a clause is never written past where it was read,
    so the array is read and written in one pass); each step's clause, deletions matched to
    the clause they remove by a hash table over clauses alive at that point of the proof.
    Returns (codes written, clause starts, pivots, step clauses, formula clauses); codes
    written is -1 when the clock passed ``deadline``."""
    n_formula = 0
    for i in range(n_formula_literals):
        if db[i] == 0:
            n_formula += 1
    n_steps = proof_deletions.shape[0]
    n_adds = 0
    for d in proof_deletions:
        if d == 0:
            n_adds += 1
    n_clauses = n_formula + n_adds
    start = np.zeros(n_clauses + 1, np.int64)
    pivot = np.full(n_clauses, -1, np.int32)
    step_clause = np.full(n_steps, -1, np.int64)
    stamp = np.zeros(2 * num_vars + 2, np.int64)
    size = 1
    while size < 2 * n_clauses + 2:
        size *= 2
    head = np.full(size, -1, np.int32)
    nxt = np.full(n_clauses, -1, np.int32)
    scratch = np.empty(2 * num_vars + 2, np.int32)
    top = 0  # literal codes written to db
    clause = 0
    step = -1  # -1 while reading the formula
    clock = 0
    work, look = 0, _WORK_PER_CALL
    i = 0
    while i < db.shape[0]:
        if step < 0 and i >= n_formula_literals:
            step = 0
        # one clause (or deletion) from db[i:], deduplicated into db[top:] or scratch
        deleting = step >= 0 and proof_deletions[step] == 1
        clock += 1
        n = 0
        first = -1
        while db[i] != 0:
            x = db[i]
            code = 2 * abs(x) + (1 if x < 0 else 0)
            if first < 0:
                first = code
            if stamp[code] != clock:
                stamp[code] = clock
                if deleting:
                    scratch[n] = code
                else:
                    db[top + n] = code
                n += 1
            i += 1
        i += 1
        h = np.int64(n) * np.int64(0x27D4EB2F)
        for k in range(n):
            h += _mix(scratch[k] if deleting else db[top + k], key)
        bucket = h & (size - 1)
        if deleting:
            previous = -1
            c = head[bucket]
            while c >= 0:
                if start[c + 1] - start[c] == n:
                    same = True
                    for k in range(start[c], start[c + 1]):
                        if stamp[db[k]] != clock:
                            same = False
                            break
                    if same:
                        break
                previous, c = c, nxt[c]
                work += 1
            if work > look:  # (a bucket crowded all the same, by chance or by a known key)
                if _past(deadline):
                    return -1, start, pivot, step_clause, n_formula
                look = work + _WORK_PER_CALL
            if c >= 0:  # unlink: the clause can be deleted once
                if previous < 0:
                    head[bucket] = nxt[c]
                else:
                    nxt[previous] = nxt[c]
                step_clause[step] = c
        else:
            pivot[clause] = first
            top += n
            start[clause + 1] = top
            nxt[clause] = head[bucket]
            head[bucket] = clause
            if step >= 0:
                step_clause[step] = clause
            clause += 1
        if step >= 0:
            step += 1
    return top, start, pivot, step_clause, n_formula


@njit(cache=True)
def _assign(st, code, why):
    n = st.scalars[_TRAIL]
    st.value[code] = 1
    st.value[code ^ 1] = -1
    st.reason[code >> 1] = why
    st.position[code >> 1] = n
    st.trail[n] = code
    st.scalars[_TRAIL] = n + 1


@njit(cache=True)
def _unassign_to(st, length):
    for i in range(length, st.scalars[_TRAIL]):
        code = st.trail[i]
        st.value[code] = 0
        st.value[code ^ 1] = 0
        st.reason[code >> 1] = -1
    st.scalars[_TRAIL] = length
    if st.scalars[_HEAD] > length:
        st.scalars[_HEAD] = length


# A watch is the clause id shifted left once, its low bit set when the clause is in the core
# (as drat-trim does), so core-first propagation tells the groups apart without looking at
# the clause; above them, from bit 32, a blocker: a literal of the clause (MiniSat's), which,
# when true, shows the clause satisfied without reading it (reading it is the propagation's
# main cost: a cache miss on its start, another on its literals).
_ID = (1 << 32) - 1


@njit(cache=True)
def _watch(st, code, c, blocker):
    if st.watch_count[code] == st.watch_room[code]:
        # (the arrays, not the state: a call passing the state costs more than a watch)
        _move_watches(st.watches, st.watch_start, st.watch_count, st.watch_room, st.scalars,
                      code)
    st.watches[st.watch_start[code] + st.watch_count[code]] = \
        (np.int64(blocker) << 32) | (c << 1) | st.core[c]
    st.watch_count[code] += 1


# The watch lists share one array, sized to the clauses (as drat-trim's lists grow one by
# one), not to every literal: each code's list has a place with room for some watches; a full
# list moves to the free end of the array with twice the room; when the end has no room, every
# list is packed to the front with room in proportion to its length (_watch_space: packed,
# the lists leave a share of the array free, so packing stays rare).
@njit(cache=True)
def _packed_room(count):
    return count + (count >> 1) + 2


@njit(cache=True)
def _move_watches(watches, watch_start, watch_count, watch_room, scalars, code):
    """Give ``code``'s full list twice its room at the free end, or pack the lists (after
    which every list has room)."""
    room = 2 * watch_room[code] + 2
    if scalars[_WATCH_TOP] + room > watches.shape[0]:
        _pack_watches(watches, watch_start, watch_count, watch_room, scalars)
        return
    top = scalars[_WATCH_TOP]
    first = watch_start[code]
    for k in range(watch_count[code]):
        watches[top + k] = watches[first + k]
    watch_start[code] = top
    watch_room[code] = room
    scalars[_WATCH_TOP] = top + room


@njit(cache=True)
def _pack_watches(watches, watch_start, watch_count, watch_room, scalars):
    """Pack every watch list to the front of the array in place, in the order they lie: first
    each list right after the one before (never rightward of where it was), then each, from
    the last, rightward to make its room (never onto a list not yet moved)."""
    order = np.argsort(watch_start)
    total = 0
    for code in order:
        total += _packed_room(watch_count[code])
    if total > watches.shape[0]:  # more watches than _watch_space allows for: a bug
        raise RuntimeError("DRAT checker: more watches than the clauses allow")
    top = 0
    for code in order:
        first, n = watch_start[code], watch_count[code]
        for k in range(n):
            watches[top + k] = watches[first + k]
        watch_start[code] = top
        top += n
    top = scalars[_WATCH_TOP] = total
    for r in range(order.shape[0] - 1, -1, -1):
        code = order[r]
        room = _packed_room(watch_count[code])
        top -= room
        first, n = watch_start[code], watch_count[code]
        for k in range(n - 1, -1, -1):
            watches[top + k] = watches[first + k]
        watch_start[code] = top
        watch_room[code] = room
    scalars[_PACKINGS] += 1


@njit(cache=True)
def _find_watch(st, code, c):
    """Where in ``code``'s watch list clause c is, or -1. Looked for from both ends at once:
    a clause added last (a lemma undone by the backward pass) or first is found at once. The
    watches walked count as work (a list may hold every clause, and a proof may delete them
    one by one, each from the middle)."""
    low = st.watch_start[code]
    high = low + st.watch_count[code] - 1
    while low <= high:
        st.scalars[_WORK] += 2
        if (st.watches[high] & _ID) >> 1 == c:
            return high
        if (st.watches[low] & _ID) >> 1 == c:
            return low
        low += 1
        high -= 1
    return -1


@njit(cache=True)
def _unwatch(st, code, c):
    k = _find_watch(st, code, c)
    if k >= 0:
        st.watches[k] = st.watches[st.watch_start[code] + st.watch_count[code] - 1]
        st.watch_count[code] -= 1


@njit(cache=True)
def _mark(st, c):
    """Clause c joins the core (and its watches say so)."""
    if st.core[c]:
        return
    st.core[c] = 1
    if st.alive[c] and st.start[c + 1] - st.start[c] >= 2:
        for code in (st.db[st.start[c]], st.db[st.start[c] + 1]):
            k = _find_watch(st, code, c)
            if k >= 0:
                st.watches[k] |= 1


@njit(cache=True)
def _propagate(st, core_first=False):
    """Unit propagation from the head of the trail; the conflicting clause or -1. With
    ``core_first`` (drat-trim's core-first propagation, for checks that mark what they use)
    the core clauses propagate as far as they can before any other clause is visited, so a
    conflict is found with the clauses already in the core when it can be, and fewer lemmas
    join the core (and need checking); the order changes which conflict is found, not whether
    one is. (One loop, no helper called per watch: a numba call passing the state costs more
    than a visit.)"""
    db, value, watches = st.db, st.value, st.watches
    watch_start, watch_count, watch_room = st.watch_start, st.watch_count, st.watch_room
    core_head = other_head = st.scalars[_HEAD]
    while True:
        group = -1  # the watches visited: -1 all, 1 the core ones, 0 the others
        if core_first and core_head < st.scalars[_TRAIL]:
            false = st.trail[core_head] ^ 1
            core_head += 1
            group = 1
        elif other_head < st.scalars[_TRAIL]:
            false = st.trail[other_head] ^ 1
            other_head += 1
            group = 0 if core_first else -1
        else:
            st.scalars[_HEAD] = other_head
            return -1
        # i and j count from the list's start, which a packing (when a watch moves to a full
        # list) may move; the list's count stays n until the pass ends, so a packing keeps
        # every watch not yet visited
        n = st.watch_count[false]
        st.scalars[_WORK] += n
        base = st.watch_start[false]
        i = j = 0
        while i < n:
            w = watches[base + i]
            i += 1
            if (group >= 0 and (w & 1) != group) or value[w >> 32] == 1:
                watches[base + j] = w
                j += 1
                continue
            c = (w & _ID) >> 1
            s = st.start[c]
            if db[s] == false:
                db[s] = db[s + 1]
                db[s + 1] = false
            other = db[s]
            if value[other] == 1:
                watches[base + j] = (np.int64(other) << 32) | (w & _ID)
                j += 1
                continue
            # a literal not false to watch instead: looked for from where the last search in
            # this clause stopped, round to it (a long clause whose literals are falsified one
            # by one is walked once, not once per literal)
            moved = False
            length = st.start[c + 1] - s
            if length > 2:
                k = first = st.search[c]
                while True:
                    if value[db[s + k]] != -1:
                        db[s + 1] = db[s + k]
                        db[s + k] = false
                        new = db[s + 1]  # watched from now on (as _watch, without a call)
                        if watch_count[new] == watch_room[new]:
                            _move_watches(watches, watch_start, watch_count, watch_room,
                                          st.scalars, new)
                            base = watch_start[false]
                        watches[watch_start[new] + watch_count[new]] = \
                            (np.int64(other) << 32) | (c << 1) | st.core[c]
                        watch_count[new] += 1
                        st.search[c] = k
                        moved = True
                        break
                    k = k + 1 if k + 1 < length else 2
                    if k == first:
                        break
            if moved:
                continue
            watches[base + j] = w
            j += 1
            if value[other] == -1:
                while i < n:
                    watches[base + j] = watches[base + i]
                    j += 1
                    i += 1
                st.watch_count[false] = j
                st.scalars[_HEAD] = other_head
                return c
            _assign(st, other, c)
        st.watch_count[false] = j


@njit(cache=True)
def _attach(st, c):
    """Put clause c into S under the current root assignment: watch two literals (true or
    unassigned ones first, else the latest false), assign it if unit; the conflicting clause
    or -1."""
    s, e = st.start[c], st.start[c + 1]
    st.alive[c] = 1
    if e - s == 0:
        return c
    if e - s == 1:
        if st.value[st.db[s]] == -1:
            return c
        if st.value[st.db[s]] == 0:
            _assign(st, st.db[s], c)
        return -1
    for slot in range(2):  # best literal into slot 0, second best into slot 1
        best, best_score = s + slot, -2
        for k in range(s + slot, e):
            code = st.db[k]
            score = st.scalars[_TRAIL] + 1 if st.value[code] != -1 else st.position[code >> 1]
            if score > best_score:
                best, best_score = k, score
        st.db[s + slot], st.db[best] = st.db[best], st.db[s + slot]
    _watch(st, st.db[s], c, st.db[s + 1])
    _watch(st, st.db[s + 1], c, st.db[s])
    first, second = st.value[st.db[s]], st.value[st.db[s + 1]]
    if first == -1:
        return c
    if first == 0 and second == -1:
        _assign(st, st.db[s], c)
    return -1


@njit(cache=True)
def _detach(st, c):
    s = st.start[c]
    st.alive[c] = 0
    if st.start[c + 1] - s >= 2:
        _unwatch(st, st.db[s], c)
        _unwatch(st, st.db[s + 1], c)


@njit(cache=True)
def _rebuild_root(st, length):
    """Cut the trail back to ``length`` literals and propagate S again from the first root
    literal (and every unit clause), so the root assignment is S's closure; conflict or -1."""
    _unassign_to(st, length)
    st.scalars[_HEAD] = 0
    for u in st.units:
        if st.alive[u]:
            code = st.db[st.start[u]]
            if st.value[code] == -1:
                return u
            if st.value[code] == 0:
                _assign(st, code, u)
    return _propagate(st)


@njit(cache=True)
def _hint(st, value):
    """Append ``value`` to the hint records (or note that the buffer is full)."""
    n = st.scalars[_HINTS]
    if n < st.hints.shape[0]:
        st.hints[n] = value
        st.scalars[_HINTS] = n + 1
    else:
        st.scalars[_OVERFLOW] = 1


@njit(cache=True)
def _analyze(st, conflict, var):
    """Mark as core the conflict clause (or the variable set both ways) and the reasons of
    every literal it depends on, down the trail; record them as LRAT hints, in trail order
    (each reason's other literals are assigned before it: it becomes unit in that order), the
    conflict clause last."""
    first = st.scalars[_HINTS]
    pending = 0
    if conflict >= 0:
        _mark(st, conflict)
        _hint(st, conflict)
        for k in range(st.start[conflict], st.start[conflict + 1]):
            v = st.db[k] >> 1
            if not st.seen[v]:
                st.seen[v] = 1
                pending += 1
    if var >= 0 and not st.seen[var]:
        st.seen[var] = 1
        pending += 1
    i = st.scalars[_TRAIL] - 1
    while pending > 0 and i >= 0:
        v = st.trail[i] >> 1
        i -= 1
        if not st.seen[v]:
            continue
        st.seen[v] = 0
        pending -= 1
        r = st.reason[v]
        if r >= 0 and not st.assumed[v]:  # an assumed literal needs no reason (see _refutes)
            _mark(st, r)
            _hint(st, r)
            for k in range(st.start[r], st.start[r + 1]):
                u = st.db[k] >> 1
                if u != v and not st.seen[u]:  # v itself is done: marking it again would
                    st.seen[u] = 1             # leave it marked for the next analysis
                    pending += 1
    st.hints[first:st.scalars[_HINTS]] = st.hints[first:st.scalars[_HINTS]][::-1].copy()


@njit(cache=True)
def _refutes(st, c, d, skip, mark):
    """Does unit propagation on S with every literal of clause c false (and of clause d but
    ``skip``, when d >= 0) reach a conflict? Marks what it used when ``mark``; leaves the root
    assignment as it found it."""
    root = st.scalars[_TRAIL]
    found = False
    # the literals the check assumes false that are false at the root already: their reasons
    # are not used (an LRAT checker assumes them false too; a reason would be a true hint)
    _assume(st, c, d, skip, 1)
    for clause in (c, d):
        if clause < 0 or found:
            continue
        # the literals falsified are work too: a long lemma is falsified again for every RAT
        # candidate, while its propagation may visit only a few watches
        st.scalars[_WORK] += st.start[clause + 1] - st.start[clause]
        for k in range(st.start[clause], st.start[clause + 1]):
            code = st.db[k]
            if clause == d and code == skip:
                continue
            if st.value[code] == 1:  # the clause holds a true literal: falsifying it conflicts
                if mark:
                    _analyze(st, -1, code >> 1)
                found = True
                break
            if st.value[code] == 0:
                _assign(st, code ^ 1, -1)
    if not found:
        conflict = _propagate(st, mark)
        if conflict >= 0:
            found = True
            if mark:
                _analyze(st, conflict, -1)
    _unassign_to(st, root)
    st.scalars[_HEAD] = root
    _assume(st, c, d, skip, 0)
    return found


@njit(cache=True)
def _assume(st, c, d, skip, flag):
    """Flag (or unflag) the variables of the literals of c and d (but ``skip``) false at the
    root."""
    for clause in (c, d):
        if clause >= 0:
            for k in range(st.start[clause], st.start[clause + 1]):
                code = st.db[k]
                if code != skip and (flag == 0 or st.value[code] == -1):
                    st.assumed[code >> 1] = flag


@njit(cache=True)
def _past(deadline):
    """Is ``time.monotonic()`` past ``deadline``?"""
    with objmode(now="float64"):
        now = time.monotonic()
    return now > deadline


@njit(cache=True)
def _redundant(st, c, mark, deadline):
    """Is lemma c RUP, or else RAT on its pivot, in the current S: 1 yes, 0 no, -1 the clock
    passed ``deadline`` before the answer was known."""
    if _refutes(st, c, -1, -1, mark):
        return 1
    p = st.pivot[c]
    if p < 0:
        return 0
    st.scalars[_WORK] += st.alive.shape[0] + st.db.shape[0]  # every clause's literals looked at
    look = st.scalars[_WORK] + _WORK_PER_CALL
    for d in range(st.alive.shape[0]):
        if st.scalars[_WORK] > look:  # one RAT check may cost candidates x propagations: a
            if _past(deadline):      # hostile lemma alone could outlast the time limit
                return -1
            look = st.scalars[_WORK] + _WORK_PER_CALL
        if not st.alive[d]:
            continue
        negated = tautology = False
        for k in range(st.start[d], st.start[d + 1]):
            negated |= st.db[k] == p ^ 1
            tautology |= st.db[k] == p
        if negated and not tautology:
            if mark:
                _hint(st, -1 - d)
            if not _refutes(st, c, d, p ^ 1, mark):
                return 0
    return 1


@njit(cache=True)
def _check_lemma(st, c, deadline):
    """:func:`_redundant` for a lemma of the backward pass, its hints recorded: 1 yes, 0 no,
    -1 late, or _FULL when the hint buffer was too small (nothing recorded: grow it, ask
    again)."""
    first = st.scalars[_HINTS]
    verdict = _redundant(st, c, True, deadline)
    if verdict == 1:
        _hint(st, _END - c)
    if st.scalars[_OVERFLOW]:
        st.scalars[_HINTS] = first
        st.scalars[_OVERFLOW] = 0
        if verdict == 1:
            return _FULL
    return verdict


@njit(cache=True)
def _unit_under_root(st, c):
    """One literal of clause c true, all others false."""
    true = 0
    for k in range(st.start[c], st.start[c + 1]):
        v = st.value[st.db[k]]
        if v == 0:
            return False
        if v == 1:
            true += 1
    return true == 1


@njit(cache=True)
def _start(st, n_formula):
    """S = the formula; its root assignment; the conflicting clause or -1."""
    conflict = -1
    for c in range(n_formula):
        found = _attach(st, c)
        if found >= 0 and conflict < 0:
            conflict = found
    if conflict >= 0:
        return conflict
    return _propagate(st)


@njit(cache=True)
def _forward(st, begin, end, check, deadline):
    """Steps begin..end-1 forward, checking each lemma when ``check``: (outcome, step, clause);
    stops early (going, at the next step) once the call's work budget is spent, (late, at the
    step) when a check passed ``deadline``."""
    st.scalars[_WORK] = 0
    for step in range(begin, end):
        if st.scalars[_WORK] > _WORK_PER_CALL:
            return _GOING, step, -1
        c = st.step_clause[step]
        if st.step_delete[step]:
            if c < 0 or _unit_under_root(st, c):
                st.ignored[step] = 1
            else:
                _detach(st, c)
            continue
        if st.start[c + 1] == st.start[c]:  # the empty clause, with no conflict at the root
            return _REJECTED, step, c
        if check:
            verdict = _redundant(st, c, False, deadline)
            if verdict <= 0:
                return (_REJECTED if verdict == 0 else _LATE), step, c
        conflict = _attach(st, c)
        if conflict < 0:
            conflict = _propagate(st)
        if conflict >= 0:
            return _CONFLICT, step, conflict
    return _GOING, end, -1


@njit(cache=True)
def _backward(st, begin, end, deadline):
    """Steps begin-1 down to end backward, checking the marked lemmas: (outcome, step); stops
    early (going, at the step it stopped before) once the call's work budget is spent or the
    hint records fill half their buffer, (late, at the step) when a check passed
    ``deadline``."""
    st.scalars[_WORK] = 0
    for step in range(begin - 1, end - 1, -1):
        if st.scalars[_WORK] > _WORK_PER_CALL or 2 * st.scalars[_HINTS] > st.hints.shape[0]:
            return _GOING, step + 1
        c = st.step_clause[step]
        if st.step_delete[step]:
            if not st.ignored[step]:
                conflict = _attach(st, c)
                if conflict < 0:
                    conflict = _propagate(st)
                if conflict >= 0:
                    return _BROKEN, step
            continue
        _detach(st, c)
        s = st.start[c]
        if st.start[c + 1] > s and st.reason[st.db[s] >> 1] == c:
            if _rebuild_root(st, st.position[st.db[s] >> 1]) >= 0:
                return _BROKEN, step
        if st.core[c]:
            verdict = _check_lemma(st, c, deadline)
            if verdict == _FULL:
                return _FULL, step
            if verdict <= 0:
                return (_REJECTED if verdict == 0 else _LATE), step
    return _GOING, end


def _state(flat: np.ndarray, proof: Proof, deadline: float, slice_literals: int):
    """The checker's state for the formula ``flat`` and ``proof``: (state, formula clauses,
    numbering); past ``deadline`` a TimeoutError."""
    flat = np.asarray(flat)
    n = flat.shape[0]
    if n and flat[-1] != 0:
        raise ValueError("the formula's last clause does not end in 0")
    if np.count_nonzero(flat == 0) + np.count_nonzero(proof.deletions == 0) > MAX_CLAUSES:
        raise RuntimeError(f"more than {MAX_CLAUSES} clauses: beyond this checker")
    if proof.given_up:
        raise ValueError("this proof was checked already (the checker keeps its literals): "
                         "read it again")
    buffer = proof.literals
    if proof.room != n or not buffer.flags.owndata:
        buffer = np.concatenate((np.zeros(n, np.int32), buffer[proof.room:]))
    # the database is built in this array: the proof gives its literals up
    proof.literals, proof.room, proof.given_up = np.zeros(0, np.int32), 0, True
    buffer[:n] = flat
    numbering = _renumber(buffer, slice_literals)
    num_vars = numbering.variables
    top, start, pivot, step_clause, n_formula = _build(buffer, n, proof.deletions, num_vars,
                                                       _hash_key(), deadline)
    if top < 0:
        raise TimeoutError
    buffer.resize(top, refcheck=False)  # in place: realloc gives the tail back
    db = buffer
    lengths = np.diff(start)
    n_clauses = start.shape[0] - 1
    n_codes = 2 * num_vars + 2
    space = _watch_space(n_clauses, n_codes)
    if space < _FIRST_ROOM * n_codes:  # (the kernels check no bounds: a bug, never a write)
        raise RuntimeError("DRAT checker: more watches than the clauses allow")
    st = _State(db, start, pivot, np.zeros(n_clauses, np.uint8), np.zeros(n_clauses, np.uint8),
                np.flatnonzero(lengths == 1).astype(np.int64), step_clause, proof.deletions,
                np.zeros(proof.deletions.shape[0], np.uint8), np.zeros(n_codes, np.int8),
                np.zeros(num_vars + 1, np.int32), np.full(num_vars + 1, -1, np.int64),
                np.zeros(num_vars + 1, np.int64), np.zeros(num_vars + 1, np.uint8),
                np.arange(n_codes, dtype=np.int64) * _FIRST_ROOM, np.zeros(n_codes, np.int64),
                np.full(n_codes, _FIRST_ROOM, np.int64),
                np.zeros(space, np.int64),
                np.array([0, 0, 0, 0, 0, n_codes * _FIRST_ROOM, 0], np.int64),
                np.full(n_clauses, 2, np.int32),
                np.zeros(max(HINT_BUFFER, 2 * num_vars + 8), np.int32),
                np.zeros(num_vars + 1, np.uint8))
    return st, n_formula, numbering


#: the watches each code's list has room for at first
_FIRST_ROOM = 4


def _watch_space(n_clauses: int, n_codes: int) -> int:
    """The watches the array of watch lists holds: the lists hold 2 watches per clause, and up
    to one more per clause during a propagation pass (the list visited keeps its count until
    the pass ends, while its watches move to other lists); packed (:func:`_packed_room`),
    1.5 times that plus 2 per code, which leaves at least 3.5 per clause free; and the first
    places."""
    return 8 * n_clauses + (_FIRST_ROOM + 2) * n_codes + 16


#: literals renumbered per slice of this many (bounded temporaries)
SLICE = 1 << 20
#: variables numbered up to the literals there are over this keep their numbers ...
_LITERALS_PER_VARIABLE = 8
#: ... and up to this many in any case
_KEPT_VARIABLES = 1 << 16


class _Numbering(NamedTuple):
    variables: int  # the largest variable number in the database
    kept: int  # variables up to this number kept theirs
    fresh: np.ndarray  # the original numbers of variables kept + 1, kept + 2, ...

    def original(self, variable: int) -> int:
        """The number ``variable`` had in the formula or the proof."""
        return int(self.fresh[variable - self.kept - 1]) if variable > self.kept else variable


def _renumber(buffer: np.ndarray, slice_literals: int = SLICE) -> _Numbering:
    """Renumber, in place, the variables numbered beyond a bound that grows with the literals
    there are (a p line declaring 2**31 - 1 variables, a proof naming huge extension variables)
    densely after it, in increasing order: the checker's per-variable arrays stay in
    proportion to its input, whatever the numbers say. Done ``slice_literals`` at a time."""
    kept = max(buffer.shape[0] // _LITERALS_PER_VARIABLE, _KEPT_VARIABLES)
    slices = range(0, buffer.shape[0], slice_literals)
    largest, beyond = 0, []
    for a in slices:
        magnitude = np.abs(buffer[a:a + slice_literals])
        largest = max(largest, int(magnitude.max()))
        beyond.append(np.unique(magnitude[magnitude > kept]))
    fresh = np.unique(np.concatenate(beyond)) if beyond else np.zeros(0, np.int32)
    if not fresh.size:
        return _Numbering(largest, kept, fresh)
    for a in slices:
        part = buffer[a:a + slice_literals]
        where = np.abs(part) > kept
        renumbered = kept + 1 + np.searchsorted(fresh, np.abs(part[where]))
        part[where] = np.where(part[where] < 0, -renumbered, renumbered)
    return _Numbering(kept + fresh.shape[0], kept, fresh)


#: a formula and its proof in each syntax that take every kernel through (the lemma "1 2" is
#: checked backward, "1" makes the conflict)
_WARM_UP_FORMULA = np.array([1, 2, 0, 1, -2, 0, -1, 2, 0, -1, -2, 0], np.int32)
_WARM_UP_PROOFS = (b"1 2 0\n1 0\n0\n", b"a\x02\x04\x00a\x02\x00a\x00")


@functools.cache
def load_kernels() -> None:
    """Load every kernel of the reader, the checker and LRAT (its writer, reader and checker;
    from numba's cache; the first time after install, compile them) by checking a tiny proof
    in each syntax and its certificate, then give LLVM's memory back
    (:mod:`puzzlesat.validate.llvm_pages`) before any proof's data exists."""
    import tempfile

    from puzzlesat.validate.proof.lrat import read_lrat, write_lrat
    from puzzlesat.validate.proof.lrat_check import check_lrat

    page_out_llvm()
    with tempfile.TemporaryDirectory(prefix="puzzlesat-warm-up-") as tmp:
        for binary, proof in enumerate(_WARM_UP_PROOFS):
            ok, reason, cert = verify_drat(_WARM_UP_FORMULA, read_proof(proof))
            if not ok or cert is None:
                raise RuntimeError(f"DRAT checker: the warm-up proof failed ({reason})")
            path = f"{tmp}/warm-up.lrat"
            write_lrat(cert, path, 4, bool(binary))
            # as made (int32 hints) and as read (int64): the checker's kernels for both
            for again in (cert, read_lrat(path)):
                ok, reason = check_lrat(_WARM_UP_FORMULA, again)
                if not ok:
                    raise RuntimeError(f"LRAT checker: the warm-up certificate failed ({reason})")
    page_out_llvm()


def check_drat(flat: np.ndarray, proof: Proof, backward: bool = True,
               deadline: float | None = None, slice_literals: int = SLICE) -> tuple[bool, str]:
    """Check ``proof`` against the formula ``flat`` (clauses each ending in 0): (verified,
    reason). ``backward`` checks only the lemmas the refutation needs (drat-trim's way), else
    every lemma; past ``deadline`` (``time.monotonic()``) a TimeoutError. The proof's
    literals become the checker's database: a proof is checked once (a second time is a
    ValueError). ``slice_literals``: how many literals are renumbered at a time (the verdict
    never depends on it)."""
    ok, reason, _ = verify_drat(flat, proof, backward, deadline, slice_literals)
    return ok, reason


def verify_drat(flat: np.ndarray, proof: Proof, backward: bool = True,
                deadline: float | None = None, slice_literals: int = SLICE
                ) -> tuple[bool, str, Certificate | None]:
    """:func:`check_drat`, with the LRAT certificate of a verified proof when ``backward``: the
    lemmas checked (formula clauses are ids 1..m, the lemmas numbered on from m + 1 in proof
    order, then the empty clause), each with the hints its check recorded, and the deletions
    of those clauses that the check made, in proof order."""
    late = _NEVER if deadline is None else deadline
    st, n_formula, numbering = _state(flat, proof, late, slice_literals)
    n_steps = st.step_clause.shape[0]
    conflict = _start(st, n_formula)
    step = -1
    if conflict < 0:
        step = 0
        outcome = _GOING
        while outcome == _GOING and step < n_steps:
            _tick(deadline)
            outcome, step, conflict = _forward(st, step, min(step + _STEPS_PER_CALL, n_steps),
                                               not backward, late)
        if outcome == _LATE:
            raise TimeoutError
        if outcome == _REJECTED:
            return False, _failure(st, numbering, step), None
        if outcome == _GOING:
            return False, "every step checked, but the proof never derives the empty clause", None
    if not backward:
        checked = int(np.count_nonzero(st.step_delete[:step + 1] == 0))
        return True, _verified(st, step, n_steps, checked), None
    _analyze(st, conflict, -1)  # the buffer holds a whole trail's reasons (room made in _state)
    _hint(st, _END - st.alive.shape[0])
    records = _Records()
    conflict_step = step
    if step >= 0:  # the lemma that made the conflict leaves S: propagate S again
        _detach(st, st.step_clause[step])
        if _rebuild_root(st, 0) >= 0:
            raise RuntimeError("DRAT checker: no conflict before the lemma that made one")
        if st.core[st.step_clause[step]]:
            st, verdict = _check_recorded(st, st.step_clause[step], late, records)
            if verdict == 0:
                return False, _failure(st, numbering, step), None
    while step > 0:
        _tick(deadline)
        outcome, step_done = _backward(st, step, max(step - _STEPS_PER_CALL, 0), late)
        if outcome == _FULL:  # its lemma verified, its hints not recorded: room, then again
            st, verdict = _check_recorded(st, st.step_clause[step_done], late, records)
            outcome = _GOING if verdict == 1 else _REJECTED
        if 2 * st.scalars[_HINTS] > st.hints.shape[0]:
            records.spill(st)
        if outcome == _LATE:
            raise TimeoutError
        if outcome == _BROKEN:
            raise RuntimeError(f"DRAT checker: conflict when undoing step {step_done + 1}")
        if outcome == _REJECTED:
            return False, _failure(st, numbering, step_done), None
        step = step_done
    checked = int(st.core[n_formula:].sum())
    records.spill(st)
    reason = _verified(st, conflict_step, n_steps, checked)
    done = np.zeros(0, np.int32)  # the watch lists and the hint buffer are done with ...
    st = st._replace(watches=done, search=done, hints=done)
    steps = _certificate_steps(st, n_formula, conflict_step, records)
    lits, lit_end = _lemma_literals(st, numbering, np.where(steps.kind == 0, steps.clause, -1))
    del st  # ... and now the clause database: the hints get their memory
    return True, reason, _certificate(steps, lits, lit_end, records)


def _verified(st: _State, step: int, n_steps: int, checked: int) -> str:
    """The reason of a verified proof whose clauses propagate to a conflict after ``step``
    (-1: the formula alone)."""
    lemmas = f"{checked} lemma{'s' if checked != 1 else ''} checked"
    empty = _first_empty_clause(st, step)
    if empty >= 0:
        return f"empty clause derived at step {empty + 1} of {n_steps}; {lemmas}"
    if step < 0:
        return (f"the formula propagates to a conflict by itself (the proof's {n_steps} "
                f"step{'s' if n_steps != 1 else ''} not needed)")
    return (f"the clauses propagate to a conflict after step {step + 1} of {n_steps} (no "
            f"empty clause written: it is implied); {lemmas}")


def _check_recorded(st: _State, c: int, late: float, records: _Records) -> tuple[_State, int]:
    """Check lemma c with its hints recorded, room made in the hint buffer until they fit (the
    records there go to the file; an empty buffer too small is grown): (the state, 1 verified
    or 0 rejected); past the deadline a TimeoutError."""
    while True:
        verdict = _check_lemma(st, c, late)
        if verdict < 0:
            raise TimeoutError
        if verdict != _FULL:
            return st, verdict
        if st.scalars[_HINTS]:
            records.spill(st)
        else:
            st = st._replace(hints=np.concatenate((st.hints, np.zeros_like(st.hints))))


class _Records:
    """The hint records of the backward pass (see _END), moved from the state's buffer to a
    temporary file (a :class:`HintFile`) whenever it is half full: a refutation's hints may
    outnumber its proof's literals, and held in memory they would set the checker's peak."""

    def __init__(self) -> None:
        self.file = HintFile()
        self.sizes: list[int] = []  # the records' hints moved each time
        self.lemmas: list[np.ndarray] = []  # the clause of each record moved, as written

    def spill(self, st: _State) -> None:
        """Move the records in the buffer (whole records: called between kernel calls) to the
        file."""
        n = int(st.scalars[_HINTS])
        if n:
            records = st.hints[:n]
            self.file.append(records)
            self.sizes.append(n)
            self.lemmas.append(_END - records[records <= _END].astype(np.int64))
            st.scalars[_HINTS] = 0

    def in_proof_order(self):
        """The records of each move, the last move first (records are written backward)."""
        ends = np.cumsum([0, *self.sizes])
        for k in range(len(self.sizes) - 1, -1, -1):
            yield self.file[int(ends[k]):int(ends[k + 1])]


@njit(cache=True)
def _hints_in_proof_order(records, ends, new_id, present, out, counts):
    """The hint records (written backward, each ending at ``ends[r]``; see _END) into ``out``
    in proof order, clause ids renamed by ``new_id``, the groups of RAT candidates left out of
    the certificate (``present`` false) dropped; ``counts`` the hints of each record, in proof
    order. Returns the hints written."""
    w = 0
    n_records = ends.shape[0]
    for r in range(n_records - 1, -1, -1):
        before = w
        keep = True
        for i in range(ends[r - 1] + 1 if r > 0 else 0, ends[r]):
            h = records[i]
            if h < 0:  # a RAT candidate's group begins
                keep = present[-1 - h]
                if keep:
                    out[w] = -new_id[-1 - h]
                    w += 1
            elif keep:
                out[w] = new_id[h]
                w += 1
        counts[n_records - 1 - r] = w - before
    return w


class _Steps(NamedTuple):
    """The steps of a certificate (see :func:`_certificate_steps`)."""

    kind: np.ndarray  # uint8 per step: 0 adds, 1 deletes; the empty clause last
    ids: np.ndarray  # int64: the id each addition gives its clause (0 for a deletion)
    clause: np.ndarray  # int64: the checker's clause each step adds or deletes (-1: the last)
    new_id: np.ndarray  # int32 per clause of the checker: its id in the certificate
    present: np.ndarray  # bool per clause of the checker: in the certificate


def _certificate_steps(st: _State, n_formula: int, conflict_step: int,
                       records: _Records) -> _Steps:
    """The steps of the LRAT certificate of the hint records: the lemmas in it are those with
    a record (the checked ones), numbered on from the formula's clauses in proof order, the
    empty clause last; the deletions are those of certificate clauses the forward pass made
    before the conflict."""
    n_clauses = st.alive.shape[0]
    # the records are backward: reversed they are in proof order, the empty clause's last
    lemmas = np.concatenate(records.lemmas)[::-1][:-1]
    present = np.zeros(n_clauses + 1, np.bool_)
    present[:n_formula] = present[lemmas] = present[n_clauses] = True
    new_id = np.zeros(n_clauses + 1, np.int32)
    new_id[:n_formula] = np.arange(1, n_formula + 1)
    new_id[lemmas] = n_formula + 1 + np.arange(lemmas.shape[0])
    new_id[n_clauses] = n_formula + lemmas.shape[0] + 1
    c = st.step_clause[:conflict_step + 1]
    deleting = st.step_delete[:conflict_step + 1] == 1
    held = present[np.maximum(c, 0)]
    chosen = held & np.where(deleting, (c >= 0) & (st.ignored[:conflict_step + 1] == 0), True)
    c, deleting = c[chosen], deleting[chosen]
    kind = np.append(deleting.astype(np.uint8), 0)
    ids = np.append(np.where(deleting, 0, new_id[np.maximum(c, 0)]), new_id[n_clauses])
    return _Steps(kind, ids.astype(np.int64, copy=False), np.append(c, -1), new_id, present)


def _certificate(steps: _Steps, lits: np.ndarray, lit_end: np.ndarray,
                 records: _Records) -> Certificate:
    """The LRAT certificate of ``steps`` and the hint records (see :func:`verify_drat`), its
    hints written to a :class:`HintFile` a move of records at a time (they may hold hundreds
    of millions of hints): each addition's hints (its record's, renamed), each deletion's one
    id, in step order (a move of records gives the hints of its additions and of the
    deletions before them)."""
    kind, new_id = steps.kind, steps.new_id
    per_step = np.ones(kind.shape[0], np.int64)
    additions = np.flatnonzero(kind == 0)
    hints = HintFile()
    done = 0
    for chunk in records.in_proof_order():
        ends = np.flatnonzero(chunk <= _END)
        renamed = np.empty(chunk.shape[0], np.int32)
        counts = np.zeros(ends.shape[0], np.int64)
        used = _hints_in_proof_order(chunk, ends, new_id, steps.present, renamed, counts)
        first = int(additions[done - 1]) + 1 if done else 0
        last = int(additions[done + ends.shape[0] - 1]) + 1
        per_step[additions[done:done + ends.shape[0]]] = counts
        adding = kind[first:last] == 0
        fill = np.repeat(adding, per_step[first:last])
        step_hints = np.empty(fill.shape[0], np.int32)
        step_hints[fill] = renamed[:used]
        step_hints[~fill] = new_id[steps.clause[first:last][~adding]]
        hints.append(step_hints)
        done += ends.shape[0]
    if done != additions.shape[0]:
        raise RuntimeError("DRAT checker: the hint records do not match the lemmas checked")
    return Certificate(kind, steps.ids, lits, lit_end, hints, np.cumsum(per_step))


def _lemma_literals(st: _State, numbering: _Numbering,
                    clauses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The literals of each clause (none for -1), pivot first, variables as in the proof."""
    lengths = np.where(clauses >= 0, st.start[clauses + 1] - st.start[np.maximum(clauses, 0)], 0)
    lit_end = np.cumsum(lengths)
    lits = np.empty(int(lit_end[-1]) if lit_end.size else 0, np.int32)
    _copy_literals(st.db, st.start, st.pivot, clauses, lit_end, numbering.kept,
                   numbering.fresh.astype(np.int64), lits)
    return lits, lit_end


@njit(cache=True)
def _copy_literals(db, start, pivot, clauses, lit_end, kept, fresh, lits):
    """Each clause's literals into ``lits`` (ending at ``lit_end``), its pivot first, the
    variables renumbered beyond ``kept`` given back their numbers ``fresh``: one pass, no
    temporaries the size of the certificate (it may hold most of the proof's literals)."""
    w = 0
    for k in range(clauses.shape[0]):
        c = clauses[k]
        if c < 0:
            continue
        first = w
        for i in range(start[c], start[c + 1]):
            code = db[i]
            if code == pivot[c] and w > first:  # the pivot goes first: swap
                lits[w] = lits[first]
                w_at = first
            else:
                w_at = w
            variable = np.int64(code >> 1)
            if variable > kept:
                variable = fresh[variable - kept - 1]
            lits[w_at] = -variable if code & 1 else variable
            w += 1


def _tick(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise TimeoutError


def _first_empty_clause(st: _State, step: int) -> int:
    """The first addition of the empty clause from ``step`` on, or -1."""
    adds = np.flatnonzero(st.step_delete[max(step, 0):] == 0) + max(step, 0)
    clauses = st.step_clause[adds]
    empty = adds[st.start[clauses + 1] == st.start[clauses]]
    return int(empty[0]) if empty.size else -1


def _failure(st: _State, numbering: _Numbering, step: int) -> str:
    """Which step failed, with its clause (pivot first, its variables as numbered in the
    proof)."""
    c = st.step_clause[step]
    codes = st.db[st.start[c]:st.start[c + 1]].tolist()
    if not codes:
        return f"step {step + 1}: the empty clause, but unit propagation finds no conflict"
    codes.sort(key=lambda code: code != st.pivot[c])
    lits = " ".join(("-" if code & 1 else "") + str(numbering.original(code >> 1))
                    for code in codes[:_SHOWN_LITERALS])
    if len(codes) > _SHOWN_LITERALS:
        return (f"step {step + 1}: lemma {lits} ... 0 ({len(codes)} literals) is neither RUP "
                f"nor RAT")
    return f"step {step + 1}: lemma {lits} 0 is neither RUP nor RAT"


#: a failure shows at most this many literals of its lemma (a lemma may hold a million)
_SHOWN_LITERALS = 16


if __name__ == "__main__":  # make setup: compile and cache the kernels once, after install
    print("puzzlesat: loading the proof checker's kernels (the first time, they are compiled "
          "into numba's cache: about a minute of CPU)...", flush=True)
    started = time.process_time()
    from puzzlesat.validate.proof import drat  # the kernels as the checker imports them

    drat.load_kernels()
    print(f"puzzlesat: proof checker ready ({time.process_time() - started:.0f} s of CPU)")

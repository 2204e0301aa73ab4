"""The small LRAT checker: the second, independent check of every refutation (ours, made from a
DRAT proof, or a solver's own LRAT, e.g. CaDiCaL's ``--lrat``). It shares no code with the DRAT
kernel: no watches, no backward pass, no core; only the hints the certificate names.

The rules, step by step (:mod:`puzzlesat.validate.proof.lrat` describes the format). The clause
set S starts as the formula's clauses, ids 1..m in file order.

* An addition ``i C 0 hints 0`` needs an id larger than every id before it (else rejected) and
  is accepted when C holds a literal and its negation (a tautology: true in every model), or:
  RUP: with every literal of C false, each positive hint, in order, names a clause of S that
  is unit (one literal not false, none true: that literal is made true) or falsified (a
  conflict: C is implied, the hints after it are not read). Hints running out without a
  conflict lead to RAT (below); a hint that is neither unit nor falsified rejects.
  RAT on the pivot p (C's first literal): after the shared positive hints, each group ``-d h..``
  names a clause d of S holding -p and not p; with the literals of d but -p also false (one
  of them already true is a conflict at once: the resolvent is a tautology), its hints must
  reach a conflict as above. Every clause of S that holds -p and not p needs a group, unless
  one of its literals but -p is true under the shared assignment already. A clause holding
  both p and -p is true in every model and needs none.
  Then C joins S under id i.
* ``i d ids 0`` removes those clauses from S (naming one not in S rejects).
* The first added empty clause that passes ends the check: the formula is UNSAT. A certificate
  without one is rejected.

Why it is sound: every accepted addition keeps S satisfiable when it was. RUP: a model of S
satisfies the hints' clauses, so it cannot falsify C (falsifying C forces the units in turn and
then falsifies a clause of S). RAT: take a model M of S that falsifies C; then M sets p false;
flip p to true: clauses of S without -p stay true, a clause d holding p is true, and any other d
holding -p has its group (or a literal true under the shared assignment, which M shares), so
the resolvent C | d - {-p} is implied by S, so M satisfies d - {-p} (it falsifies C). The
flipped model satisfies S and C. Deletions only remove clauses. So the empty clause, accepted,
means S, and the formula it started as, has no model. Tautologies are true in every model.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from puzzlesat.validate.proof.lrat import ADD, Certificate

# what a step's check says
_OK, _NOT_PRESENT, _NOT_UNIT, _NO_CONFLICT, _NOT_CANDIDATE, _UNCOVERED = range(6)
_WHY = {_NOT_PRESENT: "a hint or deletion names a clause that is not there (deleted, or not "
                      "added yet)",
        _NOT_UNIT: "a hint is neither unit nor falsified", _NO_CONFLICT: "the hints reach no "
        "conflict", _NOT_CANDIDATE: "a RAT group names a clause without the negated pivot",
        _UNCOVERED: "a clause with the negated pivot has no RAT group"}
#: steps a kernel call checks between two looks at the clock ...
_STEPS_PER_CALL = 4096
#: ... or fewer, once it has looked at this many literals
_WORK_PER_CALL = 1 << 24


@njit(cache=True)
def _assign(code, value, trail, n):
    value[code] = 1
    value[code ^ 1] = -1
    trail[n] = code
    return n + 1


@njit(cache=True)
def _undo(value, trail, n, to):
    for k in range(to, n):
        value[trail[k]] = 0
        value[trail[k] ^ 1] = 0
    return to


@njit(cache=True)
def _unit(codes, start, r, value):
    """Clause r's one literal not false (-1: none, a conflict; -2: two, or one true)."""
    found = -1
    for k in range(start[r], start[r + 1]):
        v = value[codes[k]]
        if v == 1 or (v == 0 and found >= 0 and codes[k] != found):
            return -2
        if v == 0:
            found = codes[k]
    return found


@njit(cache=True)
def _holds(codes, start, d, code):
    for k in range(start[d], start[d + 1]):
        if codes[k] == code:
            return True
    return False


@njit(cache=True)
def _follow(codes, start, hints, i, h1, alive, value, trail, n):
    """The positive hints from i on: (conflict reached, index after them, trail, error)."""
    while i < h1 and hints[i] > 0:
        r = hints[i] - 1
        i += 1
        if not alive[r]:
            return False, i, n, _NOT_PRESENT
        unit = _unit(codes, start, r, value)
        if unit == -1:
            while i < h1 and hints[i] > 0:  # hints after the conflict are not read
                i += 1
            return True, i, n, _OK
        if unit == -2:
            return False, i, n, _NOT_UNIT
        n = _assign(unit, value, trail, n)
    return False, i, n, _OK


@njit(cache=True)
def _implied(codes, start, c, hints, h0, h1, alive, value, trail, covered, work):
    """Is clause c (not yet in S) implied by S (RUP) or RAT on its pivot, by its hints?"""
    n = 0
    for k in range(start[c], start[c + 1]):
        if value[codes[k]] == 1:  # c holds this literal's negation too: a tautology
            _undo(value, trail, n, 0)
            return _OK
        if value[codes[k]] == 0:
            n = _assign(codes[k] ^ 1, value, trail, n)
    conflict, i, n, error = _follow(codes, start, hints, h0, h1, alive, value, trail, n)
    if conflict or error != _OK:
        _undo(value, trail, n, 0)
        return error
    if start[c + 1] == start[c]:  # no conflict, and no pivot for RAT
        _undo(value, trail, n, 0)
        return _NO_CONFLICT
    pivot = codes[start[c]]
    shared = n
    while i < h1:  # RAT groups: -d h h h ...
        d = -hints[i] - 1
        i += 1
        if not alive[d] or not _holds(codes, start, d, pivot ^ 1) or _holds(codes, start, d,
                                                                            pivot):
            _undo(value, trail, n, 0)
            return _NOT_CANDIDATE
        covered[d] = c + 1
        conflict = False
        for k in range(start[d], start[d + 1]):
            if codes[k] != pivot ^ 1 and value[codes[k]] == 1:
                conflict = True
            elif codes[k] != pivot ^ 1 and value[codes[k]] == 0:
                n = _assign(codes[k] ^ 1, value, trail, n)
        if conflict:
            while i < h1 and hints[i] > 0:
                i += 1
        else:
            conflict, i, n, error = _follow(codes, start, hints, i, h1, alive, value, trail, n)
        n = _undo(value, trail, n, shared)
        if error != _OK or not conflict:
            _undo(value, trail, n, 0)
            return error if error != _OK else _NO_CONFLICT
    work[0] += start[c]  # the scan below reads every clause before c
    for d in range(c):
        if alive[d] and covered[d] != c + 1 and _holds(codes, start, d, pivot ^ 1) and \
                not _holds(codes, start, d, pivot):
            satisfied = False
            for k in range(start[d], start[d + 1]):
                satisfied |= codes[k] != pivot ^ 1 and value[codes[k]] == 1
            if not satisfied:
                _undo(value, trail, n, 0)
                return _UNCOVERED
    _undo(value, trail, n, 0)
    return _OK


@njit(cache=True)
def _run(codes, start, kind, clause, hints, hint_base, hint_end, begin, end, alive, value,
         trail, covered, work):
    """Steps begin..end-1 (``hints`` holds their hints from number ``hint_base`` on):
    (status, step): status 0 going on, 1 the empty clause is accepted, else why the step is
    rejected (+ 100)."""
    work[0] = 0
    for s in range(begin, end):
        if work[0] > _WORK_PER_CALL:
            return 0, s
        h0 = (hint_end[s - 1] if s > 0 else 0) - hint_base
        h1 = hint_end[s] - hint_base
        work[0] += h1 - h0
        if kind[s] == ADD:
            c = clause[s]
            why = _implied(codes, start, c, hints, h0, h1, alive, value, trail, covered, work)
            if why != _OK:
                return 100 + why, s
            alive[c] = 1
            if start[c + 1] == start[c]:
                return 1, s
        else:
            for k in range(h0, h1):
                if hints[k] <= 0 or not alive[hints[k] - 1]:
                    return 100 + _NOT_PRESENT, s
                alive[hints[k] - 1] = 0
    return 0, end


@njit(cache=True)
def _index(hints, known, out):
    """Each hint +-id as +-(its place in the sorted ``known`` ids + 1); False when one names
    no id there."""
    for i in range(hints.shape[0]):
        h = abs(hints[i])
        k = np.searchsorted(known, h)
        if k >= known.shape[0] or known[k] != h:
            return False
        out[i] = k + 1 if hints[i] > 0 else -(k + 1)
    return True


def check_lrat(flat: np.ndarray, cert: Certificate,
               deadline: float | None = None) -> tuple[bool, str]:
    """Check the LRAT certificate ``cert`` against the formula ``flat`` (clauses each ending
    in 0): (verified, reason); past ``deadline`` (``time.monotonic()``) a TimeoutError."""
    flat = np.asarray(flat)
    ends = np.flatnonzero(flat == 0)
    m = ends.shape[0]
    added = cert.kind == ADD
    ids = cert.ids[added]
    if ids.size and (ids[0] <= m or np.any(np.diff(ids) <= 0)):
        return False, "clause ids do not increase from the formula's last one"
    known = np.concatenate((np.arange(1, m + 1, dtype=np.int64), ids))
    # every clause's literal codes 2v + (l < 0), formula first, then the additions (int32 and
    # in place: a few bytes a literal, the formula's and the lemmas' together)
    literals = np.concatenate((flat[flat != 0], cert.lits)).astype(np.int32, copy=False)
    codes = np.abs(literals)
    if codes.size and codes.max() > 4 * codes.size + 16:  # huge numbers: dense
        codes = (np.unique(codes, return_inverse=True)[1].reshape(-1) + 1).astype(np.int32)
    n_codes = 2 * int(codes.max(initial=0)) + 2
    codes <<= 1
    codes |= literals < 0
    del literals
    lengths = np.concatenate((np.diff(ends, prepend=-1) - 1,
                              np.diff(cert.lit_end, prepend=0)[added]))
    start = np.concatenate(([0], np.cumsum(lengths)))
    clause = np.full(cert.kind.shape[0], -1, np.int64)
    clause[added] = m + np.arange(ids.shape[0])
    alive = np.zeros(start.shape[0] - 1, np.uint8)
    alive[:m] = 1
    value, trail = np.zeros(n_codes, np.int8), np.zeros(n_codes, np.int32)
    covered, work = np.zeros(alive.shape[0], np.int64), np.zeros(1, np.int64)
    step, n_steps = 0, cert.kind.shape[0]
    while step < n_steps:
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError
        # the hints of the next steps only (ours are in a file: all of them may outweigh the
        # clauses), each as +-(index of the clause it names + 1)
        end = min(step + _STEPS_PER_CALL, n_steps)
        first = int(cert.hint_end[step - 1]) if step else 0
        named = cert.hints[first:int(cert.hint_end[end - 1])]
        hints = np.empty(named.shape[0], np.int32)
        if not _index(named, known, hints):
            return False, "a hint or deletion names no clause of the proof"
        status, step = _run(codes, start, cert.kind, clause, hints, first, cert.hint_end, step,
                            end, alive, value, trail, covered, work)
        if status == 1:
            return True, f"the empty clause is accepted at LRAT step {step + 1} of {n_steps}"
        if status:
            return False, f"LRAT step {step + 1} (id {cert.ids[step]}): {_WHY[status - 100]}"
    return False, "the certificate never adds the empty clause"

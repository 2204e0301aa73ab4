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

from puzzlesat.validate.proof import native
from puzzlesat.validate.proof.lrat import ADD, Certificate

# why a step's check fails; where a run stopped: the empty clause accepted, or a step rejected
# (this plus why)
_NOT_PRESENT, _NOT_UNIT, _NO_CONFLICT, _NOT_CANDIDATE, _UNCOVERED, _ACCEPTED, _REJECTED = (
    native.constants("lrat_check", "NOT_PRESENT", "NOT_UNIT", "NO_CONFLICT", "NOT_CANDIDATE",
                     "UNCOVERED", "ACCEPTED", "REJECTED"))
_WHY = {_NOT_PRESENT: "a hint or deletion names a clause that is not there (deleted, or not "
                      "added yet)",
        _NOT_UNIT: "a hint is neither unit nor falsified", _NO_CONFLICT: "the hints reach no "
        "conflict", _NOT_CANDIDATE: "a RAT group names a clause without the negated pivot",
        _UNCOVERED: "a clause with the negated pivot has no RAT group"}
#: steps a kernel call checks between two looks at the clock (or fewer, once it has looked at
#: kernels.h's WORK_PER_CALL literals and hints)
_STEPS_PER_CALL = 4096


_I8, _U8, _I32, _I64 = (native.array(t) for t in (np.int8, np.uint8, np.int32, np.int64))
#: steps begin..end-1 (``hints`` holds their hints from number ``hint_base`` on), or fewer once
#: past kernels.h's WORK_PER_CALL: out = (status, step), status 0 going on (from step),
#: _ACCEPTED the empty clause is accepted at step, else _REJECTED + why step is rejected
_run = native.kernel("lrat_check_run", None,
                     _I32, _I64, _U8, _I64,  # codes, start, kind, clause
                     _I32, native.I64, _I64,  # hints, hint_base, hint_end
                     native.I64, native.I64,  # begin, end
                     _U8, _I8, _I32, _I64, _I64,  # alive, value, trail, covered, work
                     _I64)  # out
#: each hint +-id as +-(its place in the sorted ``known`` ids + 1) (hints, size, known, size,
#: dense: known is 1, 2, ..., out); 0 when one names no id there. A kernel per type of hints
#: (ours int32, read ones int64): hundreds of millions of them are never widened
_index = {np.dtype(np.int32): native.kernel("lrat_check_index_i32", native.I64,
                                            _I32, native.I64, _I64, native.I64, native.I64, _I32),
          np.dtype(np.int64): native.kernel("lrat_check_index_i64", native.I64,
                                            _I64, native.I64, _I64, native.I64, native.I64, _I32)}


def check_lrat(flat: np.ndarray, cert: Certificate,
               deadline: float | None = None) -> tuple[bool, str]:
    """Check the LRAT certificate ``cert`` against the formula ``flat`` (clauses each ending
    in 0): (verified, reason); past ``deadline`` (``time.monotonic()``) a TimeoutError."""
    flat = np.asarray(flat)
    ends = np.flatnonzero(flat == 0)
    m = ends.shape[0]
    # the kernels check no bounds: each step's hints and literals must lie in order inside
    # their arrays (a certificate read from a file always does; one built by hand may not)
    for bounds, held in ((cert.hint_end, cert.hints.shape[0]),
                         (cert.lit_end, cert.lits.shape[0])):
        if np.any(np.diff(bounds, prepend=0) < 0) or (len(bounds) and bounds[-1] > held):
            return False, "the certificate's steps do not divide its hints and literals in order"
    added = cert.kind == ADD
    ids = cert.ids[added]
    if ids.size and (ids[0] <= m or np.any(np.diff(ids) <= 0)):
        return False, "clause ids do not increase from the formula's last one"
    known = np.concatenate((np.arange(1, m + 1, dtype=np.int64), ids))
    dense = not known.size or int(known[-1]) == known.shape[0]  # 1, 2, ...: they increase
    # every clause's literal codes 2v + (l < 0), formula first, then the additions (int32 and
    # in place: a few bytes a literal, the formula's and the lemmas' together)
    codes = np.concatenate((flat[flat != 0], cert.lits)).astype(np.int32, copy=False)
    negative = codes < 0
    np.abs(codes, out=codes)
    if codes.size and codes.max() > 4 * codes.size + 16:  # huge numbers: dense
        codes = (np.unique(codes, return_inverse=True)[1].reshape(-1) + 1).astype(np.int32)
    n_codes = 2 * int(codes.max(initial=0)) + 2
    codes <<= 1
    codes |= negative
    del negative
    lengths = np.concatenate((np.diff(ends, prepend=-1) - 1,
                              np.diff(cert.lit_end, prepend=0)[added]))
    start = np.concatenate(([0], np.cumsum(lengths)))
    clause = np.full(cert.kind.shape[0], -1, np.int64)
    clause[added] = m + np.arange(ids.shape[0])
    alive = np.zeros(start.shape[0] - 1, np.uint8)
    alive[:m] = 1
    value, trail = np.zeros(n_codes, np.int8), np.zeros(n_codes, np.int32)
    covered, work = np.zeros(alive.shape[0], np.int64), np.zeros(1, np.int64)
    # the types the kernels take (the certificate's own arrays: no copy)
    kind = np.ascontiguousarray(cert.kind, np.uint8)
    hint_end = np.ascontiguousarray(cert.hint_end, np.int64)
    out = np.zeros(2, np.int64)
    step, n_steps = 0, cert.kind.shape[0]
    while step < n_steps:
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError
        # the hints of the next steps only (ours are in a file: all of them may outweigh the
        # clauses), each as +-(index of the clause it names + 1)
        end = min(step + _STEPS_PER_CALL, n_steps)
        first = int(cert.hint_end[step - 1]) if step else 0
        named = np.ascontiguousarray(cert.hints[first:int(cert.hint_end[end - 1])])
        if named.dtype not in _index:  # neither int32 nor int64: this window as int64
            named = named.astype(np.int64)
        hints = np.empty(named.shape[0], np.int32)
        if not _index[named.dtype](named, named.shape[0], known, known.shape[0], dense, hints):
            return False, "a hint or deletion names no clause of the proof"
        _run(codes, start, kind, clause, hints, first, hint_end, step, end, alive, value, trail,
             covered, work, out)
        status, step = int(out[0]), int(out[1])
        if status == _ACCEPTED:
            return True, f"the empty clause is accepted at LRAT step {step + 1} of {n_steps}"
        if status >= _REJECTED:
            return False, (f"LRAT step {step + 1} (id {cert.ids[step]}): "
                           f"{_WHY[status - _REJECTED]}")
    return False, "the certificate never adds the empty clause"

"""Our DRAT checker: drat-trim's algorithm (Wetzler, Heule, Hunt: "DRAT-trim: Efficient Checking
and Trimming Using Expressive Clausal Proofs", SAT 2014), its kernels in C (``drat.c``).

What a proof must show (the semantics checked, step by step in proof order). The clause set S
starts as the formula, a multiset of clauses, each read as a set of literals (duplicates gone).

* ``C 0`` (an addition, C not empty) is accepted when C is RUP in S (unit propagation on S and
  the negation of C reaches a conflict), or else RAT in S on its first literal p as written (for
  every clause D of S holding -p, each copy counted, the resolvent C | D - {-p} is RUP in S;
  a D that holds p too, or any variable both ways, is always true and constrains nothing:
  skipped, as drup skips the first).
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
which conflict is found, never whether one is); each literal has two watch lists, the marked
clauses' and the others', so neither group's propagation walks the other's watches.
:func:`check_drat` with ``backward=False`` checks every lemma in the forward pass instead: the
same verdicts as the plain-Python reference (:mod:`drat_reference`), which the property tests
compare it with.

Memory: the clause database is built while the proof is read, in the array the reader fills,
one int32 per literal, and a deletion's literals are dropped once it is matched to its clause
(:mod:`puzzlesat.validate.proof.database`): the proof is never held as it was written; the
watch lists share one array sized to the clauses, not to their literals (an int64 watch: the
clause and a blocker literal, which saves reading most satisfied clauses); the LRAT hints the
backward pass records go to a temporary file a buffer at a time, and so do the certificate's
(:class:`puzzlesat.validate.proof.lrat.HintFile`); the certificate's literals are the clause
database itself, the lemmas' literals moved to its front and the rest given back, before its
hints are assembled.

The kernels are C (``drat.c``, whose entry points this module calls through ctypes, the state
passed as a :class:`_CState` of typed pointers to the arrays of :class:`_State`: one table of
fields, their dtypes checked as the state is passed, its layout checked against the library's
at load).
"""

# (no `from __future__ import annotations`: _State's annotations are objects when the class is
# made, so reading their dtypes parses nothing at load)
import ctypes
import struct
import time
from typing import Annotated, NamedTuple

import numpy as np

from puzzlesat.validate.proof import native
from puzzlesat.validate.proof.database import ClauseDatabase
from puzzlesat.validate.proof.lrat import (
    ADD,
    Certificate,
    HintFile,
    certificate_literals,
    renamed_hints,
)
from puzzlesat.validate.proof.native import F64, I64, array
from puzzlesat.validate.proof.reader import Proof

# kernel outcomes (drat.c's)
_GOING, _REJECTED, _BROKEN, _LATE, _FULL = native.constants(
    "drat", "GOING", "REJECTED", "BROKEN", "LATE", "FULL")
#: no deadline (a reading of the kernels' clock, :func:`native.deadline`)
_NEVER = np.inf
# slots of the scalars array (drat.c's: hints recorded, end of the watch lists' space in use,
# packings of it, a bug of ours found by a kernel (more watches than the space made for them);
# how many)
_HINTS, _WATCH_TOP, _PACKINGS, _FAULT, _SCALARS = native.constants(
    "drat", "HINTS", "WATCH_TOP", "PACKINGS", "FAULT", "SCALARS")
#: a record of hints ends in ``_END - c`` for lemma c (the empty clause: c = clauses there
#: are); a RAT candidate d is written ``-1 - d``; a hint clause c as c
(_END,) = native.constants("drat", "END")
#: steps a kernel call handles between two looks at the clock (or fewer: a call returns once
#: it has visited kernels.h's WORK_PER_CALL watches or RAT candidates, as a hostile proof's
#: steps may each cost a pass over every clause)
_STEPS_PER_CALL = 2048
#: hint records held in memory at most (more for a formula with more variables: a conflict
#: analysis records up to one reason per variable); a backward call returns once they fill half
#: of it, and they go to a temporary file (:class:`_Records`)
HINT_BUFFER = 1 << 20


#: a watch list (drat.c's List): its place in the watches' array, its watches, and the
#: watches its place holds; all zero until its first watch
_LIST = np.dtype([("start", np.int64), ("count", np.int32), ("room", np.int32)], align=True)
_List = native.struct("List", _LIST)


class _State(NamedTuple):
    """The checker's arrays, each annotated with its dtype: the one table of drat.c's State
    (its arrays, in its order), from which :class:`_CState` is made and by which
    :func:`_c_state` checks each array."""

    # literal codes 2*v + (l < 0) of every clause, one after the other
    db: Annotated[np.ndarray, np.int32]
    start: Annotated[np.ndarray, np.int64]  # clause c is db[start[c]:start[c + 1]]
    # the code of the first literal as written (RAT's pivot), -1 if empty
    pivot: Annotated[np.ndarray, np.int32]
    alive: Annotated[np.ndarray, np.uint8]  # the clause is in S now
    core: Annotated[np.ndarray, np.uint8]  # marked by a conflict analysis
    units: Annotated[np.ndarray, np.int64]  # ids of the one-literal clauses
    # the clause added or deleted by each step (-1: nothing to delete)
    step_clause: Annotated[np.ndarray, np.int64]
    step_delete: Annotated[np.ndarray, np.uint8]
    ignored: Annotated[np.ndarray, np.uint8]  # a deletion the forward pass ignored
    value: Annotated[np.ndarray, np.int8]  # per code: 1 true, -1 false, 0 unassigned
    trail: Annotated[np.ndarray, np.int32]  # codes in assignment order
    reason: Annotated[np.ndarray, np.int64]  # per variable: the clause that implied it, -1 none
    position: Annotated[np.ndarray, np.int64]  # per variable: its place on the trail
    seen: Annotated[np.ndarray, np.uint8]  # per variable, for conflict analysis
    lists: Annotated[np.ndarray, _List]  # the watch lists, two per code (see _LIST)
    watches: Annotated[np.ndarray, np.int64]  # blocker << 32 | clause id (see _watch_space)
    scalars: Annotated[np.ndarray, np.int64]  # drat.c's slots (_HINTS, _WATCH_TOP, ...)
    # per clause: where in it the last search for a watch stopped
    search: Annotated[np.ndarray, np.int32]
    # the records of the checked lemmas' hints (see _END), backward
    hints: Annotated[np.ndarray, np.int32]
    # per variable: false at the root as a check assumes it false
    assumed: Annotated[np.ndarray, np.uint8]
    # two per list: room to sort the watch lists by place (packing)
    order: Annotated[np.ndarray, np.int64]


#: the arrays of the state: each one's name, dtype, and the pointer drat.c's State holds it as
_ARRAYS = [(name, *native.element(hint.__metadata__[0]))
           for name, hint in _State.__annotations__.items()]
#: the lengths drat.c's State holds after its arrays: each the length of an array of _State
_LENGTHS = (("n_units", "units"), ("n_clauses", "alive"), ("n_literals", "db"),
            ("n_codes", "value"), ("n_watches", "watches"), ("n_hints", "hints"))


class _CState(ctypes.Structure):
    """The state as drat.c's kernels take it (its State): a typed pointer to each array of
    :class:`_State`, in its order, the lengths of ``_LENGTHS``, and where a kernel that finds
    a bug of ours goes (drat.c's own)."""

    _fields_ = [*((name, pointer) for name, _, pointer in _ARRAYS),
                *((name, I64) for name, _ in _LENGTHS), ("fault", ctypes.c_void_p)]


native.check_struct("drat", "State", _CState)
# each field is 8 bytes (a pointer or an int64), one after the other: _c_state fills them as one
# image of 8-byte words, in half the time ctypes takes to set typed pointers one by one
if any(getattr(_CState, name).offset != 8 * k or getattr(_CState, name).size != 8
       for k, (name, _) in enumerate(native.fields(_CState))):
    raise TypeError("drat.py's _CState: a field that is not the next 8 bytes")
#: _CState's image: its fields as unsigned 8-byte words
_WORDS = struct.Struct(f"={len(_CState._fields_)}Q")


def _c_state(st: _State) -> _CState:
    """The kernels' view of ``st`` (valid while ``st`` holds its arrays): each array checked to
    be of its field's dtype and C-contiguous (else a TypeError), then the lengths, and no
    fault handler (a kernel sets its own)."""
    return _CState.from_buffer_copy(_WORDS.pack(
        *(native.address(a, dtype, name) for a, (name, dtype, _) in zip(st, _ARRAYS, strict=True)),
        *(getattr(st, a).shape[0] for _, a in _LENGTHS), 0))


def _run(kernel, st: _State, *arguments):
    """``kernel`` on the state: its result; a bug of ours it found (it stops there, before any
    write past an array) is a RuntimeError."""
    result = kernel(ctypes.byref(_c_state(st)), *arguments)
    if st.scalars[_FAULT]:
        raise RuntimeError("DRAT checker: more watches than the clauses allow")
    return result


_STATE = ctypes.POINTER(_CState)
_start = native.kernel("drat_start", I64, _STATE, I64)
_forward = native.kernel("drat_forward", I64, _STATE, I64, I64, I64, F64, array(np.int64))
_backward = native.kernel("drat_backward", I64, _STATE, I64, I64, F64, array(np.int64))
_analyze = native.kernel("drat_analyze", None, _STATE, I64, I64)
_hint = native.kernel("drat_hint", None, _STATE, I64)
_detach_and_rebuild = native.kernel("drat_detach_and_rebuild", I64, _STATE, I64)
_check_lemma = native.kernel("drat_check_lemma", I64, _STATE, I64, F64)
_pack = native.kernel("drat_pack_watches", None, _STATE)
_tautologies = native.kernel("drat_tautologies", None, _STATE, I64, array(np.uint8))


def _pack_watches(st: _State) -> None:
    """Pack the watch lists to the front of their array (drat.c's pack_watches)."""
    _run(_pack, st)


def _state(flat: np.ndarray, proof: Proof, deadline: float | None, slice_literals: int):
    """The checker's state for the formula ``flat`` and ``proof`` (its database built now
    unless the proof was read into one): (state, formula clauses, numbering); past
    ``deadline`` (``time.monotonic()``) a TimeoutError."""
    database = proof.database
    if database is None:
        database = ClauseDatabase(flat, deadline)
        both = np.concatenate((database.literals[:database.count], proof.literals))
        database.take(both, proof.deletions, both.shape[0], proof.deletions.shape[0])
    elif database.flat is not flat:
        raise ValueError("the proof was read into the database of another formula")
    else:  # its literals are the database's: the check frees them when done with them
        proof.literals = np.zeros(0, np.int32)
    db, start, step_clause, n_formula = database.built()
    numbering = _renumber(db, slice_literals, deadline)
    num_vars = numbering.variables
    _codes(db, slice_literals)
    n_clauses = start.shape[0] - 1
    lengths = np.diff(start)
    pivot = np.full(n_clauses, -1, np.int32)  # RAT's pivot: the first literal as written
    written = lengths > 0
    pivot[written] = db[start[:-1][written]]
    n_codes = 2 * num_vars + 2
    n_lists = 2 * n_codes  # a code's core clauses' watches, and the others' (drat.c's list_of)
    space = _watch_space(n_clauses, n_lists)
    st = _State(db, start, pivot, np.zeros(n_clauses, np.uint8), np.zeros(n_clauses, np.uint8),
                np.flatnonzero(lengths == 1).astype(np.int64), step_clause, proof.deletions,
                np.zeros(proof.deletions.shape[0], np.uint8), np.zeros(n_codes, np.int8),
                np.zeros(num_vars + 1, np.int32), np.full(num_vars + 1, -1, np.int64),
                np.zeros(num_vars + 1, np.int64), np.zeros(num_vars + 1, np.uint8),
                np.zeros(n_lists, _LIST),
                np.zeros(space, np.int64),
                np.zeros(_SCALARS, np.int64),
                np.full(n_clauses, 2, np.int32),
                np.zeros(max(HINT_BUFFER, 2 * num_vars + 8), np.int32),
                np.zeros(num_vars + 1, np.uint8), np.zeros(2 * n_lists, np.int64))
    return st, n_formula, numbering


def _watch_space(n_clauses: int, n_lists: int) -> int:
    """The watches the array of watch lists holds: the lists hold 2 watches per clause, and up
    to one more per clause during a propagation pass (the list visited keeps its count until
    the pass ends, while its watches move to other lists); packed (drat.c's packed_room),
    1.5 times that plus 2 per list, which leaves at least 3.5 per clause and 2 per list free:
    a packing (which sorts every list) comes only after moves of a third of the lists at
    least, however few the clauses are beside the variables."""
    return 8 * n_clauses + 4 * n_lists + 16


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


def _renumber(buffer: np.ndarray, slice_literals: int = SLICE,
              deadline: float | None = None) -> _Numbering:
    """Renumber, in place, the variables numbered beyond a bound that grows with the literals
    there are (a p line declaring 2**31 - 1 variables, a proof naming huge extension variables)
    densely after it, in increasing order: the checker's per-variable arrays stay in
    proportion to its input, whatever the numbers say. Done ``slice_literals`` at a time;
    past ``deadline`` (``time.monotonic()``) a TimeoutError."""
    kept = max(buffer.shape[0] // _LITERALS_PER_VARIABLE, _KEPT_VARIABLES)
    slices = range(0, buffer.shape[0], slice_literals)
    largest, beyond = 0, []
    for a in slices:
        _tick(deadline)
        magnitude = np.abs(buffer[a:a + slice_literals])
        largest = max(largest, int(magnitude.max()))
        huge = magnitude[magnitude > kept]
        if huge.size:
            beyond.append(_distinct(huge))
    if not beyond:
        return _Numbering(largest, kept, np.zeros(0, np.int32))
    fresh = _distinct(np.concatenate(beyond))
    for a in slices:
        _tick(deadline)
        part = buffer[a:a + slice_literals]
        where = np.abs(part) > kept
        renumbered = kept + 1 + np.searchsorted(fresh, np.abs(part[where]))
        part[where] = np.where(part[where] < 0, -renumbered, renumbered)
    return _Numbering(kept + fresh.shape[0], kept, fresh)


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, in increasing order: a sort and a mask (np.unique hashes integers
    in numpy 2, a second a million of them, and imports numpy.ma the first time)."""
    values = np.sort(values)
    keep = np.ones(values.shape[0], np.bool_)
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def _codes(db: np.ndarray, slice_literals: int = SLICE) -> None:
    """Turn, in place, each literal l of ``db`` into the code 2*|l| + (l < 0) the kernels
    index their per-literal arrays by, ``slice_literals`` at a time."""
    for a in range(0, db.shape[0], slice_literals):
        part = db[a:a + slice_literals]
        part[:] = 2 * np.abs(part) + (part < 0)


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
    late = _NEVER if deadline is None else native.deadline(deadline)
    st, n_formula, numbering = _state(flat, proof, deadline, slice_literals)
    n_steps = st.step_clause.shape[0]
    conflict = _run(_start, st, n_formula)
    step = -1
    out = np.zeros(2, np.int64)  # where a kernel call stopped: the step, and its conflict
    if conflict < 0:
        step = 0
        outcome = _GOING
        while outcome == _GOING and step < n_steps:
            _tick(deadline)
            outcome = _run(_forward, st, step, min(step + _STEPS_PER_CALL, n_steps),
                           not backward, late, out)
            step, conflict = int(out[0]), int(out[1])
        if outcome == _LATE:
            raise TimeoutError
        if outcome == _REJECTED:
            return False, _failure(st, numbering, step), None
        if outcome == _GOING:
            return False, "every step checked, but the proof never derives the empty clause", None
    if not backward:
        checked = int(np.count_nonzero(st.step_delete[:step + 1] == 0))
        return True, _verified(st, step, n_steps, checked), None
    _run(_analyze, st, conflict, -1)  # the buffer holds a whole trail's reasons (see _state)
    _run(_hint, st, _END - st.alive.shape[0])
    records = _Records()
    conflict_step = step
    if step >= 0:  # the lemma that made the conflict leaves S: propagate S again
        if _run(_detach_and_rebuild, st, st.step_clause[step]) >= 0:
            raise RuntimeError("DRAT checker: no conflict before the lemma that made one")
        if st.core[st.step_clause[step]]:
            st, verdict = _check_recorded(st, st.step_clause[step], late, records)
            if verdict == 0:
                return False, _failure(st, numbering, step), None
    while step > 0:
        _tick(deadline)
        outcome = _run(_backward, st, step, max(step - _STEPS_PER_CALL, 0), late, out)
        step_done = int(out[0])
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
    # the watch lists and the hint buffer are done with (emptied, each of its own dtype) ...
    st = st._replace(watches=np.zeros(0, np.int64), search=np.zeros(0, np.int32),
                     hints=np.zeros(0, np.int32))
    steps = _certificate_steps(st, n_formula, conflict_step, records)
    lits, lit_end = certificate_literals(st.db, st.start, st.pivot,
                                         np.where(steps.kind == ADD, steps.clause, -1),
                                         numbering.kept, numbering.fresh)
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


def _check_recorded(st: _State, c: int, late: float, records: "_Records") -> tuple[_State, int]:
    """Check lemma c with its hints recorded, room made in the hint buffer until they fit (the
    records there go to the file; an empty buffer too small is grown): (the state, 1 verified
    or 0 rejected); past the deadline a TimeoutError."""
    while True:
        verdict = _run(_check_lemma, st, c, late)
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
    before the conflict, after those of the formula's clauses that hold a variable both ways
    (drat.c's tautology: no check uses them, and cake_lpr refuses them as RAT candidates)."""
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
    tautologies = np.zeros(n_clauses + 1, np.uint8)
    _run(_tautologies, st, n_formula, tautologies)
    held = present[np.maximum(c, 0)] & (tautologies[np.maximum(c, 0)] == 0)
    chosen = held & np.where(deleting, (c >= 0) & (st.ignored[:conflict_step + 1] == 0), True)
    first = np.flatnonzero(tautologies)
    c = np.concatenate((first, c[chosen]))
    deleting = np.concatenate((np.ones(first.shape[0], np.bool_), deleting[chosen]))
    kind = np.append(deleting.astype(np.uint8), np.uint8(0))
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
    additions = np.flatnonzero(kind == ADD)
    hints = HintFile()
    done = 0
    for chunk in records.in_proof_order():
        ends = np.flatnonzero(chunk <= _END)
        renamed = np.empty(chunk.shape[0], np.int32)
        counts = np.zeros(ends.shape[0], np.int64)
        used = renamed_hints(chunk, ends, new_id, steps.present, renamed, counts)
        first = int(additions[done - 1]) + 1 if done else 0
        last = int(additions[done + ends.shape[0] - 1]) + 1
        per_step[additions[done:done + ends.shape[0]]] = counts
        adding = kind[first:last] == ADD
        fill = np.repeat(adding, per_step[first:last])
        step_hints = np.empty(fill.shape[0], np.int32)
        step_hints[fill] = renamed[:used]
        step_hints[~fill] = new_id[steps.clause[first:last][~adding]]
        hints.append(step_hints)
        done += ends.shape[0]
    if done != additions.shape[0]:
        raise RuntimeError("DRAT checker: the hint records do not match the lemmas checked")
    return Certificate(kind, steps.ids, lits, lit_end, hints, np.cumsum(per_step))


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

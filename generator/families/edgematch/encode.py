"""Heule's encoding: the board as the encoder sees it (square classes, normalised pieces,
colour domains, variable numbering), the clause groups in the published order, the decoding
of a model and the model of a placement."""

from __future__ import annotations

from functools import partial

import numpy as np

from puzzlesat.generator.core.cnf import Deferred, Formula
from puzzlesat.generator.families.edgematch.geometry import FRAME, E, Grid, N, S, W
from puzzlesat.generator.families.edgematch.puzzle import Puzzle, Solution, shown_sides

#: a glibc seed whose em-encode shuffle reproduces the clauses (same GBD hash) of the published
#: SAT'09 em_7_3_6 cmp/fbc/exp/all and em_9_3_5 cmp files (found by exhaustive search
#: over all 2^32 seeds; the seed Heule used is not published, and 22 others also fit both)
SAT09_TURN_SEED = 114118598

#: center piece types: pattern of the sides read clockwise from the pattern's start
TYPE_PATTERNS = ("aaaa", "aaab", "abab", "aabb", "aabc", "abac", "abcd")


def piece_type(sides) -> tuple[int, int]:
    """(type 1..7, start side) of a center piece: the first start side, clockwise from N, at
    which the piece reads as its pattern.

    >>> piece_type([5, 5, 7, 5]), piece_type([1, 2, 3, 4]), piece_type([2, 1, 1, 3])
    ((2, 3), (7, 0), (5, 1))
    """
    sides = list(sides)
    for t, pattern in enumerate(TYPE_PATTERNS, start=1):
        for start in range(4):
            seq = sides[start:] + sides[:start]
            letters: dict = {}
            if all(letters.setdefault(ch, v) == v for ch, v in zip(pattern, seq)) \
                    and len(set(letters.values())) == len(letters):
                return t, start
    raise AssertionError(sides)  # unreachable: every piece has a pattern


#: the six pairs of a piece's sides; which of them are equal says which pattern it reads as
_SIDE_PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


def _equal_pairs(seqs: np.ndarray) -> np.ndarray:
    """Bit k set where sides _SIDE_PAIRS[k] of the last axis are equal."""
    return sum((seqs[..., i] == seqs[..., j]).astype(np.int64) << k
               for k, (i, j) in enumerate(_SIDE_PAIRS))


def _type_of_equal_pairs() -> np.ndarray:
    """The piece type of every set of equal pairs (0 where no pattern has that set)."""
    table = np.zeros(1 << len(_SIDE_PAIRS), dtype=np.int64)
    for t, pattern in enumerate(TYPE_PATTERNS, start=1):
        table[_equal_pairs(np.frombuffer(pattern.encode(), dtype=np.uint8))] = t
    return table


_TYPE_OF_EQUAL_PAIRS = _type_of_equal_pairs()


def piece_types(sides: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`piece_type` of every row of ``sides`` (n, 4) at once: a sequence reads as a
    pattern exactly when the same pairs of sides are equal in both."""
    turns = (np.arange(4)[:, None] + np.arange(4)[None, :]) % 4  # [start, i] = side read i-th
    types = _TYPE_OF_EQUAL_PAIRS[_equal_pairs(np.asarray(sides)[:, turns])]  # (n, start)
    order = np.where(types > 0, types, len(TYPE_PATTERNS) + 1) * 4 + np.arange(4)
    first = order.min(axis=1)
    return first // 4, first % 4


def heule_turned(seed: int | None, n: int) -> np.ndarray:
    """Which of n pieces Heule's em-encode turns 180 degrees after ``srand(seed)``: one glibc
    ``rand()`` per piece in file order, turned iff it is 2 mod 4 (its other rotation branches
    undo themselves). glibc's ``rand`` is the additive generator r[i] = r[i-31] + r[i-3]
    (mod 2^32) on 31 words seeded by x -> 16807 x mod (2^31 - 1), output r[i] >> 1 from i = 344.

    >>> heule_turned(1, 8).astype(int).tolist()  # glibc srand(1): 1804289383, 846930886, ...
    [0, 1, 0, 0, 0, 0, 1, 0]
    """
    if seed is None:
        return np.zeros(n, dtype=bool)
    word = seed % 2**32 or 1
    word = word - 2**32 if word >= 2**31 else word  # glibc seeds with an int32
    r = [word]
    for _ in range(30):
        word = 16807 * word % 2147483647
        r.append(word)
    r += r[:3]
    r = [v % 2**32 for v in r]
    for i in range(34, 344 + n):
        r.append((r[i - 31] + r[i - 3]) % 2**32)
    return np.array([(v >> 1) % 4 == 2 for v in r[344:]], dtype=bool)


def _type_template(t: int) -> list[list[tuple[int, int, int]]]:
    """The clauses of a center piece of type ``t`` for one square, each a list of literals
    (sign, square side, role): role i is the i-th letter of the type's pattern (a, b, c, d),
    read clockwise from the pattern's start. The leading ¬x is implied."""
    a, b, c, d = range(4)
    pos = lambda side, role: (1, side % 4, role)  # noqa: E731
    neg = lambda side, role: (-1, side % 4, role)  # noqa: E731
    somewhere = lambda role: [pos(s, role) for s in range(4)]  # noqa: E731
    sides = range(4)
    if t == 1:
        return [[pos(s, a)] for s in sides]
    if t == 2:
        # the six pairs, in the published order: per s in {N, E}: (s,s+1), (s,s+2), (s+2,s+3)
        return [somewhere(b)] + [[pos(s + i, a), pos(s + j, a)]
                                 for s in (N, E) for i, j in ((0, 1), (0, 2), (2, 3))]
    if t == 3:
        return [cl for s in sides for cl in ([pos(s, a), pos(s + 1, a)], [pos(s, b), pos(s + 1, b)])]
    if t == 4:
        return [cl for s in (N, E) for cl in ([pos(s, a), pos(s + 2, a)], [pos(s, b), pos(s + 2, b)])]
    if t == 5:
        return [somewhere(b), somewhere(c)] + [
            cl for s in sides for cl in (
                [pos(s, a), pos(s + 2, a)], [neg(s, c), pos(s - 1, b)], [neg(s, b), pos(s + 1, c)],
                [neg(s, a), neg(s + 1, a), pos(s + 2, b)])]
    if t == 6:
        return [somewhere(b), somewhere(c)] + [
            cl for s in sides for cl in (
                [pos(s, a), pos(s + 1, a)], [neg(s, b), pos(s + 2, c)], [neg(s, c), pos(s + 2, b)])]
    return [somewhere(k) for k in (a, b, c, d)] + [
        [neg(s, k), pos(s + 1, (k + 1) % 4)] for s in sides for k in (a, b, c, d)]


class Board:
    """Everything the encoder and decoder need: square classes, normalised pieces, colour
    domains and the variable numbering (kept in this one place)."""

    def __init__(self, puzzle: Puzzle):
        grid = self.grid = Grid(puzzle.rows, puzzle.cols, puzzle.bounded)
        pieces = self.pieces = puzzle.pieces
        self.bounded = puzzle.bounded
        n = len(pieces)
        if puzzle.bounded:
            zeros = (pieces == FRAME).sum(axis=1)
            self.cls = 2 - zeros  # 0 corner, 1 border, 2 center
        else:
            self.cls = np.full(n, 2)
        self.normal_turn = np.array([_normal_turn(p) for p in pieces.tolist()], dtype=np.int64)
        idx = (np.arange(4)[None, :] + self.normal_turn[:, None]) % 4
        self.normal = pieces[np.arange(n)[:, None], idx]  # corners frame N W, borders frame N
        self.squares = (grid.corner, grid.border, grid.center)
        self.turns = (grid.corner_turn, grid.border_turn, None)
        self.members = tuple(np.flatnonzero(self.cls == k) for k in range(3))
        # type and pattern start of every center piece, read as the encoder sees it: turned
        # 180 degrees where Heule's shuffle turned it (only types 4, 6, 7 change their roles)
        turned = heule_turned(puzzle.turn_seed, n)
        read = np.where(turned[:, None], np.roll(self.normal, 2, axis=1), self.normal)
        self.type_start = np.zeros((n, 2), dtype=np.int64)
        centers = self.members[2]
        types, starts = piece_types(read[centers])
        self.type_start[centers, 0] = types
        self.type_start[centers, 1] = (starts + 2 * turned[centers]) % 4

        # colour domains by first appearance (file order, sides N E S W); a side's colour is a
        # center colour when both neighbouring sides are non-frame
        side_is_center = (np.roll(pieces, 1, axis=1) != FRAME) & (np.roll(pieces, -1, axis=1) != FRAME)
        if not puzzle.bounded:
            side_is_center[:] = True
        flat, centerish = pieces.reshape(-1), side_is_center.reshape(-1) & (pieces.reshape(-1) != FRAME)
        borderish = ~side_is_center.reshape(-1) & (flat != FRAME)
        self.domains = (_first_appearance(flat[borderish], puzzle.signed),
                        _first_appearance(flat[centerish], puzzle.signed))
        palette = np.sort(np.concatenate([flat, -flat]) if puzzle.signed else flat)
        palette = palette[np.concatenate([[True], palette[1:] != palette[:-1]])]  # np.unique
        # without its import of numpy.ma (20 ms of every command's start)
        self.palette = palette
        self.gid = np.searchsorted(palette, pieces)  # palette index of every piece side
        index = np.zeros((2, palette.size), dtype=np.int64)  # 1-based domain position
        for k, dom in enumerate(self.domains):
            index[k, np.searchsorted(palette, dom)] = np.arange(1, dom.size + 1)
        negate = np.searchsorted(palette, -palette) if puzzle.signed else np.arange(palette.size)

        # variables: x piece-major in file order, then y diamond-major
        size = np.array([sq.size for sq in self.squares])[self.cls]
        self.x_offset = np.concatenate([[0], np.cumsum(size)[:-1]]) + 1
        self.num_x = int(size.sum())
        dcls = np.where(grid.diamond_is_border, 0, 1)
        width = np.array([self.domains[0].size, self.domains[1].size])[dcls]
        self.y_base = self.num_x + np.concatenate([[0], np.cumsum(width)[:-1]])
        self.num_vars = self.num_x + int(width.sum())
        # lit[q, s, g]: "side s of square q shows palette colour g (as the piece sees it)"
        d = grid.diamond_of
        seen = np.where(grid.second_of_diamond[:, :, None], negate[None, None, :], np.arange(palette.size))
        pos = index[dcls[np.maximum(d, 0)][:, :, None], seen]
        self.lit = np.where((d[:, :, None] >= 0) & (pos > 0),
                            self.y_base[np.maximum(d, 0)][:, :, None] + pos, 0)
        self.dcls = dcls
        self.lit_flat = self.lit.astype(np.int32).reshape(-1)

    def lit_base(self, squares, sides) -> np.ndarray:
        """Flat index of ``lit[squares, sides, 0]`` (broadcast together); adding a colour
        gives that colour's literal in :attr:`lit_flat`."""
        return (np.asarray(squares) * 4 + sides) * self.lit.shape[2]

    def lits(self, squares, sides, colours) -> np.ndarray:
        """``lit[squares, sides, colours]`` (broadcast together) as int32, by one flat index:
        three times faster than fancy indexing with three index arrays, which dominated
        the encoding of the Eternity II board."""
        return np.take(self.lit_flat, self.lit_base(squares, sides) + colours)

    def x(self, cls: int) -> np.ndarray:
        """x variables of the class's pieces (file order) × the class's squares."""
        members = self.members[cls]
        return self.x_offset[members][:, None] + np.arange(self.squares[cls].size)[None, :]

    def y(self, cls: int) -> tuple[np.ndarray, np.ndarray]:
        """(diamond ids, their colour variables) of the border (0) or center (1) diamonds."""
        ids = np.flatnonzero(self.dcls == cls)
        return ids, self.y_base[ids][:, None] + 1 + np.arange(self.domains[cls].size)[None, :]


def _normal_turn(sides: list[int]) -> int:
    """Quarter turns t with normalised side i = original side (i + t) mod 4: corners get the
    frame on N and W, border pieces on N, center pieces stay."""
    zeros = [s == FRAME for s in sides]
    if sum(zeros) == 2:
        return next(t for t in range(4) if zeros[t] and zeros[(t + 3) % 4])
    if sum(zeros) == 1:
        return zeros.index(True)
    return 0


def _first_appearance(values: np.ndarray, signed: bool) -> np.ndarray:
    if signed:
        values = np.stack([values, -values], axis=1).reshape(-1)
    _, first = np.unique(values, return_index=True)
    return values[np.sort(first)]


# -- encoding -------------------------------------------------------------------------------------
#
# Every clause group is written straight into its final order: a preallocated int32 array per
# group (or per class of pieces), filled by index arithmetic. A piece's rows are a contiguous
# view of its class's array, so the formula's blocks follow the file order without any merge,
# pad or sort. The type clauses of a center piece are a 3-D block (square, template row,
# literal): every square repeats one template, which the writer formats as fixed-width text.
def encode(puzzle: Puzzle, encoding: str) -> Formula:
    """Heule's CNF in one of :data:`ENCODINGS`, clause order as in the published files.

    >>> from puzzlesat.generator.families.edgematch.puzzle import load_pieces
    >>> f = encode(load_pieces("em_7_3_6"), "all")
    >>> f.num_vars, f.num_clauses
    (1473, 30387)
    """
    board = Board(puzzle)
    fbcolors, explicit = encoding in ("fbcolors", "all"), encoding in ("explicit", "all")
    f = Formula()
    f.new_vars("x", board.num_x)
    f.new_vars("y", board.num_vars - board.num_x)
    for cls in range(3):
        f.add("square_at_least_one", board.x(cls).T)
    for at_least_one, at_most_one in piece_one(board, explicit):
        f.add("piece_at_least_one", at_least_one)
        if at_most_one is not None:
            f.add("piece_at_most_one", at_most_one)
    f.add("diamond_exactly_one", diamond_exactly_one(board))
    for rows in piece_clauses(board, fbcolors):
        for part in rows:
            f.add("piece_clauses", part)
    f.add("duplicate_pieces", duplicate_pieces(board))
    return f


def _class_position(board: Board) -> np.ndarray:
    """Index of every piece among the members of its class."""
    position = np.zeros(len(board.cls), dtype=np.int64)
    for cls in range(3):
        position[board.members[cls]] = np.arange(board.members[cls].size)
    return position


def piece_one(board: Board, explicit: bool) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """Per piece in file order: (x(p,1) ∨ ... ∨ x(p,k)) as one row, and with ``explicit`` the
    pairwise at-most-one over the same variables (pairs in lexicographic order)."""
    at_least, at_most = [], []
    for cls in range(3):
        x = board.x(cls)
        m, k = x.shape
        rows = x.astype(np.int32).reshape(m, 1, k)
        at_least.append(rows)
        pairs = None
        if explicit:
            i, j = np.triu_indices(k, 1)
            first = -board.x_offset[board.members[cls]].astype(np.int32)[:, None, None]
            pairs = first - np.stack([i, j], axis=1).astype(np.int32)[None]  # x(p,i) = off + i
        at_most.append(pairs)
    out = []
    for cls, i in zip(board.cls.tolist(), _class_position(board).tolist()):
        out.append((at_least[cls][i], None if at_most[cls] is None else at_most[cls][i]))
    return out


def diamond_exactly_one(board: Board) -> np.ndarray:
    """Per diamond: (colour 1 ∨ ... ∨ colour K), then pairwise at-most-one."""
    size = np.array([board.domains[0].size, board.domains[1].size])
    k_of = size[board.dcls]
    rows_of = np.where(k_of > 0, 1 + k_of * (k_of - 1) // 2, 0)
    first = np.cumsum(rows_of) - rows_of
    out = np.zeros((int(rows_of.sum()), max(2, int(size.max(initial=0)))), dtype=np.int32)
    for cls in range(2):
        ids, ys = board.y(cls)
        if ids.size == 0 or ys.shape[1] == 0:
            continue
        k = ys.shape[1]
        out[first[ids], :k] = ys
        i, j = np.triu_indices(k, 1)
        at = first[ids][:, None] + 1 + np.arange(i.size)[None, :]
        out[at, 0] = -ys[:, i]
        out[at, 1] = -ys[:, j]
    return out


def piece_clauses(board: Board, fbcolors: bool) -> list[tuple]:
    """Per piece (file order), the blocks for every square of its class: corner and border
    side colours, and for center pieces the forbidden colours (fbcolors) then the type
    clauses (one (square, row, literal) block), those two :class:`Deferred`."""
    parts: list = [None] * len(board.cls)
    for cls in (0, 1):
        if board.members[cls].size:
            for p, rows in zip(board.members[cls].tolist(), frame_piece_clauses(board, cls)):
                parts[p] = (rows,)
    centers = board.members[2]
    types = board.type_start[centers, 0]
    for t in range(1, 8):
        members = centers[types == t]
        if members.size:
            fb, body = center_type_clauses(board, members, t, fbcolors and t != 1)
            for i, p in enumerate(members.tolist()):
                parts[p] = (body(i),) if fb is None else (fb(i), body(i))
    return [rows for rows in parts if rows is not None]


def frame_piece_clauses(board: Board, cls: int) -> np.ndarray:
    """Corner (2) and border (3) pieces: ¬x ∨ [side = colour] for each non-frame side of the
    normalised piece (E S for corners, E S W for border pieces), per square; one
    (squares × sides, 3) block per piece."""
    members, squares, turns = board.members[cls], board.squares[cls], board.turns[cls]
    assert turns is not None  # a frame square fixes its piece's turn (centres have none)
    sides = np.array([E, S] if cls == 0 else [E, S, W])
    x = board.x(cls)
    g = board.gid[members[:, None], (sides[None, :] + board.normal_turn[members][:, None]) % 4]
    at = (sides[None, :] + turns[:, None]) % 4  # square side of each piece side, per square
    out = np.empty((members.size, squares.size, sides.size, 2), dtype=np.int32)
    out[..., 0] = -x[:, :, None]
    out[..., 1] = board.lits(squares[None, :, None], at[None, :, :], g[:, None, :])
    return out.reshape(members.size, -1, 2)


def center_type_clauses(board: Board, members: np.ndarray, t: int, fbcolors: bool):
    """Type-``t`` center pieces: the fbcolors clauses of every square (sides N E S W, absent
    colours in domain order), then the type template of every square with ¬x in front, as
    (forbidden, type clauses): functions of the piece's index i among ``members`` giving its
    :class:`Deferred` blocks, (squares × 4 × absent colours, 2) and (squares, rows, width);
    forbidden is None without ``fbcolors``. Deferred: these are most of an Eternity II
    formula's clauses, made piece by piece as they are written."""
    squares, x = board.squares[2], board.x(2)[np.searchsorted(board.members[2], members)]
    start = board.type_start[members, 1]
    pattern = TYPE_PATTERNS[t - 1]
    offset = np.array([pattern.index(ch) for ch in sorted(set(pattern))])  # first a, b, ...
    role_side = (start[:, None] + offset[None, :]) % 4
    roles = board.gid[members[:, None], role_side]  # palette colour of role a, b, c, d
    template = _type_template(t)
    width = max(len(cl) for cl in template)
    sign = np.zeros((len(template), width), np.int64)
    side = np.zeros_like(sign)
    role = np.zeros_like(sign)
    for i, cl in enumerate(template):
        for j, (sg, sd, rl) in enumerate(cl):
            sign[i, j], side[i, j], role[i, j] = sg, sd, rl
    forbidden = None
    if fbcolors:  # all of a piece's forbidden-colour clauses precede its type clauses
        centre_palette = np.searchsorted(board.palette, board.domains[1])
        absent = ~(centre_palette[None, :, None] == board.gid[members][:, None, :]).any(axis=2)
        forbidden = np.array([centre_palette[a] for a in absent])  # equal count within a type
    k = squares.size
    sign = sign.astype(np.int32)
    type_base = board.lit_base(squares[:, None, None], side[None])  # (square, row, literal)

    def make_type(i: int) -> np.ndarray:
        out = np.empty((k, len(template), width + 1), dtype=np.int32)
        out[..., 0] = -x[i][:, None]
        np.multiply(np.take(board.lit_flat, type_base + roles[i, role]), sign, out=out[..., 1:])
        return out

    def type_clauses(i: int) -> Deferred:
        return Deferred((k, len(template), width + 1), partial(make_type, i))

    if forbidden is None:
        return None, type_clauses
    absent = forbidden.shape[1]
    forbidden_base = board.lit_base(squares[:, None, None], np.arange(4)[None, :, None])

    def make_forbidden(i: int) -> np.ndarray:
        out = np.empty((k, 4, absent, 2), dtype=np.int32)
        out[..., 0] = -x[i][:, None, None]
        np.negative(np.take(board.lit_flat, forbidden_base + forbidden[i]), out=out[..., 1])
        return out.reshape(k * 4 * absent, 2)

    def forbidden_clauses(i: int) -> Deferred:
        return Deferred((k * 4 * absent, 2), partial(make_forbidden, i))

    return forbidden_clauses, type_clauses


def duplicate_pairs(board: Board) -> int:
    """How many clauses :func:`duplicate_pieces` makes, counted without making them (pairs of
    identical pieces of a class, times the class's squares)."""
    key = _rotation_key(board)
    total = 0
    for cls in range(3):
        if board.members[cls].size:
            _, counts = np.unique(key[board.members[cls]], axis=0, return_counts=True)
            total += int((counts * (counts - 1) // 2).sum()) * board.squares[cls].size
    return total


def duplicate_pieces(board: Board) -> np.ndarray:
    """(¬x(p,j) ∨ ¬x(q,j)) for identical pieces p < q (equal up to rotation), per square j,
    pairs in lexicographic order."""
    key = _rotation_key(board)
    p, q = np.triu_indices(len(key), 1)  # every pair, lexicographic
    same = (board.cls[p] == board.cls[q]) & (key[p] == key[q]).all(axis=1)
    p, q = p[same], q[same]
    count = np.array([sq.size for sq in board.squares])[board.cls[p]]
    square = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    out = np.empty((square.size, 2), dtype=np.int32)
    out[:, 0] = -(np.repeat(board.x_offset[p], count) + square)
    out[:, 1] = -(np.repeat(board.x_offset[q], count) + square)
    return out


def _rotation_key(board: Board) -> np.ndarray:
    """Each piece's identity up to rotation: normalised frame pieces as they are, center
    pieces (every piece of an unbounded board) as their lexicographically smallest rotation."""
    fixed = board.bounded
    pieces = board.normal if fixed else board.pieces
    turns = np.stack([np.roll(pieces, -t, axis=1) for t in range(4)], axis=1)  # (n, 4, 4)
    order = np.lexsort(turns.transpose(2, 0, 1)[::-1], axis=-1)[:, 0]
    smallest = turns[np.arange(len(pieces)), order]
    if fixed:
        framed = (pieces == FRAME).any(axis=1)
        smallest = np.where(framed[:, None], pieces, smallest)
    return smallest


# -- decoding and the model of a placement ---------------------------------------------------
def decode(puzzle: Puzzle, encoding: str, model: np.ndarray) -> Solution:
    """The placement a model describes: the square of each piece from x, the rotation that
    makes the piece show the decoded edge colours (frame on frame sides)."""
    board, n = Board(puzzle), len(puzzle.pieces)
    piece = np.full(n, -1, dtype=np.int64)
    for cls in range(3):
        x = board.x(cls)
        if x.size:
            on = np.asarray(model)[x]
            has, where = on.any(axis=1), on.argmax(axis=1)
            piece[board.squares[cls][where[has]]] = board.members[cls][has]
    # expected side colours as the square's piece sees them: diamond truth via the lit table
    lit = board.lit  # (sq, 4, palette)
    truth = np.where(lit > 0, np.asarray(model)[lit], False)
    seen = np.where(truth.any(axis=2), board.palette[truth.argmax(axis=2)], FRAME)
    s = np.arange(4)
    placed = np.maximum(piece, 0)
    turned = puzzle.pieces[placed[:, None, None], (s[None, None, :] - s[None, :, None]) % 4]
    fits = (turned == seen[:, None, :]).all(axis=2)  # (sq, rotation)
    return Solution(piece, np.where(fits.any(axis=1), fits.argmax(axis=1), 0))


def assignment(puzzle: Puzzle, encoding: str, solution: Solution) -> np.ndarray:
    """The model of ``solution``: its x variables and the colour of every diamond."""
    board = Board(puzzle)
    model = np.zeros(board.num_vars + 1, dtype=bool)
    square_of = np.empty(len(puzzle.pieces), dtype=np.int64)
    square_of[solution.piece] = np.arange(len(solution.piece))
    for cls in range(3):
        squares = board.squares[cls]
        if squares.size:
            column = np.full(len(puzzle.pieces), -1, dtype=np.int64)
            column[squares] = np.arange(squares.size)  # square -> position in its class
            model[board.x(cls)[np.arange(board.members[cls].size),
                               column[square_of[board.members[cls]]]]] = True
    shown = shown_sides(puzzle.pieces, solution)
    g = np.searchsorted(board.palette, shown)
    lits = board.lit[np.arange(shown.shape[0])[:, None], np.arange(4)[None, :], g]
    model[lits[lits > 0]] = True
    return model

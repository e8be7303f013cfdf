"""Quarto's part ``packed``: the positions reachable from one Quarto position as keys for the shared partitioned
solver (:mod:`quaternity_cp.partitioned`).

:class:`QuartoPacked` is a :class:`quaternity_cp.partitioned.Packed` over the
graph reachable from one start: a board, the piece in hand of the player to
move, and the rules (``squares``: the 2x2 squares win too). A ply is Quarto's
turn: place the piece in hand on an empty cell, then give the opponent one of
the remaining pieces. So seats are counted from the mover: the mover is seat 0,
every inner edge hands the turn on (``off`` 1), and the mover always chooses
(``owner`` 0).

**Keys.** A position's key is the project's own canonical key
(:func:`quaternity_cp.quarto.symmetry.canonical_key`, by the tables of
:class:`~quaternity_cp.quarto.symmetry.Canonicaliser`): equal for two positions
exactly when one of the symmetries (12,288; 3,072 with ``squares``) maps one
onto the other. It is an 81-bit integer, ``(masks << 16 | occ) << 1 | 1``: the
four trait masks of the board (16 bits each, sorted) once the piece in hand is
made ``LRTS`` (0) by a trait flip and the board mapped to its smallest occupied
cells, the occupied cells (16 bits), and a 1 (a piece is in hand). It is kept
in ``width`` = 2 words, the low 64 bits first, then the high 17. A key decodes
to a position of its class (:meth:`QuartoPacked.decode`): the board as the key
has it, ``LRTS`` in hand. :meth:`QuartoPacked.expand` computes the children's
keys in numpy, a batch at a time (:func:`canonical_words`: the same tables,
every board map at once; the tests compare it with ``canonical_key``).

**Edges.** Placing the piece in hand on a cell that completes a line (sharing a
trait value) ends the game won by the placer: ``end`` 0, one row however many
cells win (the plies that end the game with the same winner are one edge). A
placement that fills the board without a line ends it drawn (``end`` -1).
Every other placement, with each gift, is an inner edge to the child seen from
the opponent (``end`` -2); two plies to the same child (up to symmetry) are one
edge. Moves are numbered ``cell * 17 + gift`` (:data:`NO_GIFT` = 16 after a
placement that ends the game), in the frame of the decoded position.

**The most plies.** A position with ``e`` empty cells holds ``e - 1`` pieces
to give after a placement, so it has at most ``e * (e - 1)`` distinct plies
(:func:`degree_bound`), and the positions of the graph have fewer empty cells
than its start. The shared solver keeps a position's plies in seven bits
(:data:`quaternity_cp.retrograde.MAX_DEGREE`, 127): a start of at most
:data:`MAX_EMPTY` = 11 empty cells (110 plies) is taken; 12 (132) is refused
(:class:`QuartoGraphError`). The graph grows fast with the empty cells: 5 give
hundreds of positions, 7 tens of thousands, 9 millions (docs/quarto.md).

>>> board = [None, 10, 5, None, None, 3, 1, 8, None, None, 14, 11, 7, 12, 0, None]
>>> part = packed_for({"board": board, "piece": 6})
>>> part.width, part.seats, part.moves, part.max_degree, part.empty
(2, 2, 272, 30, 6)
>>> key, first = part.start()
>>> first, part.decode(key)["piece"]
(0, 0)
>>> import tempfile
>>> built, att = pt.solve_graph(part, tempfile.mkdtemp(), parts=1)   # six empty cells: a draw
>>> built.positions, built.edges, value_at(built, att.ranks, board, 6)
(6046, 20191, GraphValue(value='draw', plies=None, best=(3, 13)))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from .. import partitioned as pt
from .. import retrograde
from . import symmetry
from .core import QuartoError

#: 1: keys as this module describes them (the canonical key's 81 bits in two words), the shared layer's layout
FORMAT = "quaternity-quarto-graph-1"
#: the words (uint64) of a key
WIDTH = 2
#: the bits of a key
KEY_BITS = 81
#: the gift of a move whose placement ends the game (moves are ``cell * 17 + gift``)
NO_GIFT = 16
#: the move numbers: 16 cells x (16 gifts and none)
MOVES = 16 * 17
#: the most empty cells of a start: ``e * (e - 1)`` plies must fit the shared solver's 127
MAX_EMPTY = max(e for e in range(1, 17) if max(1, e * (e - 1)) <= retrograde.MAX_DEGREE)
#: the plies a batch of :meth:`QuartoPacked.expand` makes at most before its edges are merged (bounds the
#: temporaries: about 200 bytes a ply)
ROWS = 1 << 19
#: rows canonicalised at a time (bounds the temporaries: about 40 bytes a row for each board map)
CHUNK = 1 << 15

_U64 = np.uint64
_M16 = _U64(0xFFFF)
_SPREAD = np.array(symmetry.SPREAD, np.uint64)
_CELLS = np.arange(16, dtype=np.int64)


class QuartoGraphError(QuartoError, ValueError):
    """A start the packed graph does not take (too many empty cells, no piece in hand, an impossible board), or a
    key that is not one of its positions; one line."""


def degree_bound(empty: int) -> int:
    """The most distinct plies of a position with ``empty`` empty cells (and a piece in hand): each placement
    with each of the ``empty - 1`` pieces left to give; at least 1.

    >>> degree_bound(1), degree_bound(6), degree_bound(11), degree_bound(12)
    (1, 30, 110, 132)
    """
    return max(1, empty * (empty - 1))


# -- keys -----------------------------------------------------------------------------------------------------
def words_of(key: int) -> np.ndarray:
    """A canonical key (:func:`~quaternity_cp.quarto.symmetry.canonical_key`) as its two words, low first."""
    return np.array([key & 0xFFFF_FFFF_FFFF_FFFF, key >> 64], np.uint64)


def key_of(words: Any) -> int:
    """The canonical key of two words (:func:`words_of`)."""
    w = np.asarray(words, np.uint64).reshape(-1)
    return int(w[0]) | int(w[1]) << 64


@lru_cache(maxsize=None)
def _tables(squares: bool) -> tuple[np.ndarray, np.ndarray]:
    """The board maps' byte tables of the project's :class:`~quaternity_cp.quarto.symmetry.Canonicaliser`, as
    arrays (maps x 256): the image of the low and of the high byte of a 16-bit set of cells."""
    can = symmetry.canonicaliser(squares)
    return np.array(can.lo, np.int64), np.array(can.hi, np.int64)


def canonical_words(occ: Any, masks: Any, hand: Any, squares: bool = False) -> np.ndarray:
    """The canonical keys (n x 2 words, :func:`words_of`) of the positions ``occ`` (16-bit occupied cells),
    ``masks`` (the four trait masks, :func:`~quaternity_cp.quarto.symmetry.pack`) with the piece ``hand`` in
    hand, as :meth:`~quaternity_cp.quarto.symmetry.Canonicaliser.key` computes them one by one: the piece in hand
    flipped to 0, the smallest image of the occupied cells, then the smallest sorted masks among the maps giving
    it (all maps at once, a chunk of rows at a time)."""
    occ = np.asarray(occ, np.int64).reshape(-1)
    masks = np.asarray(masks, np.uint64).reshape(-1)
    hand = np.asarray(hand, np.int64).reshape(-1)
    out = np.empty((len(occ), 2), np.uint64)
    lo, hi = _tables(squares)
    for a in range(0, len(occ), CHUNK):
        out[a:a + CHUNK] = _canonical_chunk(occ[a:a + CHUNK], masks[a:a + CHUNK], hand[a:a + CHUNK], lo, hi)
    return out


def _sorted4(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, ...]:
    """Four columns sorted row by row (a sorting network of five comparisons)."""
    a, b = np.minimum(a, b), np.maximum(a, b)
    c, d = np.minimum(c, d), np.maximum(c, d)
    a, c = np.minimum(a, c), np.maximum(a, c)
    b, d = np.minimum(b, d), np.maximum(b, d)
    b, c = np.minimum(b, c), np.maximum(b, c)
    return a, b, c, d


def _canonical_chunk(occ: np.ndarray, masks: np.ndarray, hand: np.ndarray, lo: np.ndarray, hi: np.ndarray
                     ) -> np.ndarray:
    n = len(occ)
    m = masks ^ (_SPREAD[hand] * occ.astype(np.uint64))
    cols = [((m >> _U64(16 * t)) & _M16).astype(np.int64) for t in range(4)]
    images = lo[:, occ & 255] | hi[:, occ >> 8]  # maps x n: each map's image of the occupied cells
    best_occ = images.min(axis=0)
    best = np.full(n, np.iinfo(np.uint64).max, np.uint64)
    for i in range(len(lo)):
        rows = np.flatnonzero(images[i] == best_occ)
        if not len(rows):
            continue
        li, hi_i = lo[i], hi[i]
        a, b, c, d = _sorted4(*(li[col[rows] & 255] | hi_i[col[rows] >> 8] for col in cols))
        k = (a.astype(np.uint64) | b.astype(np.uint64) << _U64(16) | c.astype(np.uint64) << _U64(32)
             | d.astype(np.uint64) << _U64(48))
        best[rows] = np.minimum(best[rows], k)
    out = np.empty((n, 2), np.uint64)
    out[:, 0] = best << _U64(17) | best_occ.astype(np.uint64) << _U64(1) | _U64(1)
    out[:, 1] = best >> _U64(47)
    return out


def unpack_words(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(occ, masks)`` of packed keys (n x 2 words) of positions with a piece in hand (which the key makes
    ``LRTS``, 0); a key that is not one is refused (:class:`QuartoGraphError`)."""
    keys = np.asarray(keys, np.uint64).reshape(-1, WIDTH)
    w0, w1 = keys[:, 0], keys[:, 1]
    occ = ((w0 >> _U64(1)) & _M16).astype(np.int64)
    masks = w0 >> _U64(17) | w1 << _U64(47)
    if len(keys):
        spill = np.zeros(len(keys), np.uint64)
        for t in range(4):
            spill |= (masks >> _U64(16 * t)) & ~occ.astype(np.uint64) & _M16
        if bool(np.any(w0 & _U64(1) == 0)) or bool(np.any(w1 >> _U64(KEY_BITS - 64))) or bool(np.any(spill)):
            raise QuartoGraphError("a packed key that is no Quarto position with a piece in hand (a damaged or "
                                   "foreign key)")
    return occ, masks


def board_of(occ: int, masks: int) -> list[Optional[int]]:
    """The 16 cells (piece numbers, None for empty) of the occupied cells ``occ`` and trait masks ``masks``."""
    out: list[Optional[int]] = [None] * 16
    for cell in range(16):
        if occ >> cell & 1:
            out[cell] = sum(1 << t for t in range(4) if masks >> (16 * t + cell) & 1)
    return out


@lru_cache(maxsize=None)
def _lines(squares: bool) -> tuple[np.ndarray, np.ndarray]:
    """The winning lines as 16-bit sets of cells, and per cell which lines hold it (16 x lines)."""
    lines = symmetry.lines(squares)
    sets = np.array([sum(1 << c for c in line) for line in lines], np.int64)
    through = np.array([[cell in line for line in lines] for cell in range(16)], bool)
    return sets, through


# -- the start ------------------------------------------------------------------------------------------------
def _wins(board: Sequence[Optional[int]], squares: bool) -> bool:
    """Whether ``board`` holds a full line whose four pieces share a trait value."""
    for line in symmetry.lines(squares):
        pieces = [board[c] for c in line]
        if all(p is not None for p in pieces):
            common_one = common_zero = 15
            for p in pieces:
                assert p is not None
                common_one &= p
                common_zero &= ~p
            if common_one or common_zero & 15:
                return True
    return False


def check_start(board: Sequence[Optional[int]], piece: Optional[int], squares: bool) -> bool:
    """Whether the start is over (a line or a full board), once it is checked: 16 cells of distinct pieces
    0..15, ``piece`` another (or None, when the game is over), at most :data:`MAX_EMPTY` empty cells; else
    :class:`QuartoGraphError` naming the reason."""
    if not isinstance(squares, bool):
        raise QuartoGraphError(f"squares must be true or false, not {squares!r}")
    if len(board) != 16:
        raise QuartoGraphError(f"a board has 16 cells, not {len(board)}")
    seen: set[int] = set()
    for cell, p in enumerate(board):
        if p is None:
            continue
        if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < 16:
            raise QuartoGraphError(f"cell {cell}: a piece is a number 0..15, not {p!r}")
        if p in seen:
            raise QuartoGraphError(f"piece {p} is on the board twice")
        seen.add(p)
    if piece is not None and (isinstance(piece, bool) or not isinstance(piece, int) or not 0 <= piece < 16):
        raise QuartoGraphError(f"the piece in hand is a number 0..15, not {piece!r}")
    if piece is not None and piece in seen:
        raise QuartoGraphError(f"the piece in hand ({piece}) is already on the board")
    empty = 16 - len(seen)
    over = _wins(board, squares) or not empty
    if over:
        if piece is not None:
            raise QuartoGraphError("the game is over: nobody holds a piece")
        return True
    if empty > MAX_EMPTY:
        raise QuartoGraphError(f"a start with {empty} empty cells: its positions could have up to "
                               f"{degree_bound(empty)} distinct plies, more than the shared solver's "
                               f"{retrograde.MAX_DEGREE}; give a position with at most {MAX_EMPTY} empty cells")
    if piece is None:
        raise QuartoGraphError("the player to move must hold a piece (the first gift, before any placement, is not "
                               "a ply of the graph)")
    return False


@dataclass(frozen=True)
class QuartoPacked:
    """The packed graph of the Quarto positions reachable from ``board`` (16 cells: piece numbers, None for
    empty) with ``piece`` in hand, under the rules (``squares``); a :class:`quaternity_cp.partitioned.Packed`
    (see the module's text). A start that is over has ``piece`` None (:meth:`start` then says nobody moves)."""

    board: tuple[Optional[int], ...]
    piece: Optional[int]
    squares: bool = False
    over: bool = field(init=False, repr=False, compare=False)
    root: int = field(init=False, repr=False, compare=False)  # the start's canonical key

    name = "quarto"
    format = FORMAT
    width = WIDTH
    seats = 2
    moves = MOVES

    def __post_init__(self) -> None:
        object.__setattr__(self, "board", tuple(self.board))
        object.__setattr__(self, "over", check_start(self.board, self.piece, self.squares))
        object.__setattr__(self, "root", symmetry.canonical_key(self.board, self.piece, self.squares))

    @property
    def empty(self) -> int:
        """The start's empty cells."""
        return sum(1 for p in self.board if p is None)

    @property
    def max_degree(self) -> int:
        """The most distinct plies of a position of the graph: :func:`degree_bound` of the start's empty cells."""
        return degree_bound(self.empty)

    def identity(self) -> dict[str, Any]:
        """The start's canonical image (every symmetric image of a start shares its checkpoint) and the rules."""
        got = self.decode(words_of(self.root))
        return {"board": got["board"], "piece": got["piece"], "rules": {"squares": self.squares}}

    def start(self) -> tuple[np.ndarray, int]:
        if self.over:
            return np.zeros(WIDTH, np.uint64), -1
        return words_of(self.root), 0

    def expand(self, keys: np.ndarray) -> dict[str, np.ndarray]:
        """The edges of ``keys`` (n x 2 words; see :class:`quaternity_cp.partitioned.Packed` and the module's
        text), a batch of positions at once (as many as make about :data:`ROWS` plies)."""
        keys = np.ascontiguousarray(keys, np.uint64).reshape(-1, WIDTH)
        step = max(1, ROWS // self.max_degree)
        if len(keys) <= step:
            return _expand(keys, self.squares)
        got = [_expand(keys[a:a + step], self.squares) for a in range(0, len(keys), step)]
        out = {name: np.concatenate([g[name] for g in got]) for name in got[0]}
        out["src"] = np.concatenate([g["src"] + a for g, a in zip(got, range(0, len(keys), step))])
        return out

    def decode(self, key: np.ndarray) -> dict[str, Any]:
        """The position of a key: ``board`` (16 cells, piece numbers or None, as the key has it) and ``piece``,
        the piece in hand (0, ``LRTS``: the key flips it there; None for the start of a game that is over)."""
        k = key_of(key)
        occ, masks = (k >> 1) & 0xFFFF, k >> 17
        return {"board": board_of(occ, masks), "piece": 0 if k & 1 else None}


def _expand(keys: np.ndarray, squares: bool) -> dict[str, np.ndarray]:
    """:meth:`QuartoPacked.expand` of one batch."""
    n = len(keys)
    occ, masks = unpack_words(keys)
    trait = [((masks >> _U64(16 * t)) & _M16).astype(np.int64) for t in range(4)]
    filled = (occ[:, None] >> _CELLS) & 1
    pieces = np.zeros((n, 16), np.int64)
    for t in range(4):
        pieces |= ((trait[t][:, None] >> _CELLS) & 1) << t
    used = np.bitwise_or.reduce(np.where(filled == 1, np.int64(1) << pieces, 0), axis=1)
    rem = 0xFFFF & ~(used | 1)  # (the piece in hand is 0: the key flipped it there)
    pos, cell = np.nonzero(filled == 0)  # every placement, by position then cell
    occ2 = occ[pos] | np.int64(1) << cell
    # the piece in hand, 0, has every trait value 0: a full line through the cell wins when all of its pieces
    # have some trait value 0 (a trait mask without the line's cells)
    sets, through = _lines(squares)
    shared = np.zeros((len(pos), len(sets)), bool)
    for t in range(4):
        shared |= (trait[t][pos][:, None] & sets) == 0
    won = (through[cell] & ((occ2[:, None] & sets) == sets) & shared).any(axis=1)
    drawn = ~won & (occ2 == 0xFFFF)
    inner = ~won & ~drawn
    # the ends: one row per position with a winning cell (its first), one per drawn placement
    wpos, first = np.unique(pos[won], return_index=True)
    wcell = cell[won][first]
    dpos, dcell = pos[drawn], cell[drawn]
    # the inner plies: each placement with each gift
    ipos, icell, iocc = pos[inner], cell[inner], occ2[inner]
    pair, gift = np.nonzero(((rem[ipos][:, None] >> _CELLS) & 1) == 1)
    src = ipos[pair]
    words = canonical_words(iocc[pair], masks[src], gift, squares)
    move = icell[pair] * 17 + gift
    if len(src):  # two plies to the same child are one edge (the first of them kept)
        order = np.lexsort((words[:, 0], words[:, 1], src))
        s, w = src[order], words[order]
        new = np.ones(len(order), bool)
        new[1:] = (s[1:] != s[:-1]) | (w[1:, 0] != w[:-1, 0]) | (w[1:, 1] != w[:-1, 1])
        keep = np.sort(order[new])
        src, words, move = src[keep], words[keep], move[keep]
    m_in, m_end = len(src), len(wpos) + len(dpos)
    all_src = np.concatenate([src, wpos, dpos]).astype(np.int64)
    order = np.argsort(all_src, kind="stable")
    child = np.concatenate([words, np.zeros((m_end, WIDTH), np.uint64)])
    end = np.concatenate([np.full(m_in, -2, np.int8), np.zeros(len(wpos), np.int8), np.full(len(dpos), -1, np.int8)])
    off = np.concatenate([np.ones(m_in, np.int8), np.zeros(m_end, np.int8)])
    moves = np.concatenate([move, wcell * 17 + NO_GIFT, dcell * 17 + NO_GIFT]).astype(np.int16)
    src_sorted = all_src[order]
    return {"keys": child[order], "src": src_sorted, "off": off[order], "move": moves[order], "end": end[order],
            "owner": np.zeros(n, np.int8), "degree": np.bincount(src_sorted, minlength=n).astype(np.int16)}


def move_of(number: int) -> tuple[int, Optional[int]]:
    """A move number as ``(cell, piece given)`` (None: the placement ends the game), in the frame of the
    position it leaves as its key decodes (:meth:`QuartoPacked.decode`)."""
    cell, gift = divmod(int(number), 17)
    return cell, (None if gift == NO_GIFT else gift)


@dataclass(frozen=True)
class GraphValue:
    """A position's value read from the ranks of a built graph, for the player to move: ``value`` (``win``,
    ``draw`` or ``loss``), ``plies`` (the length of the winner's fastest forced win, its rank; None for a draw)
    and ``best`` (a move that keeps the value: the fastest win, the longest loss; ``(cell, piece given)``, the
    piece None when the placement ends the game), in the position's own frame as given."""

    value: str
    plies: Optional[int]
    best: Optional[tuple[int, Optional[int]]]


def value_at(built: "pt.Built", ranks: Any, board: Sequence[Optional[int]], piece: int) -> GraphValue:
    """The value of the position ``board`` with ``piece`` in hand (any symmetric image of a position of
    ``built``'s graph, which must be Quarto's) from the attractor's ``ranks`` (``Attractor.ranks``); its plies
    are played in its own frame and their children found in the graph (:func:`quaternity_cp.partitioned.lookup`),
    so the best move is named as the position is given."""
    packed = built.packed
    if not isinstance(packed, QuartoPacked):
        raise QuartoGraphError(f"not a Quarto graph: {type(packed).__name__}")
    squares = packed.squares
    board = list(board)
    me = int(pt.lookup(built, words_of(symmetry.canonical_key(board, piece, squares)))[0])
    if me < 0:
        raise QuartoGraphError("the position is not in the checkpoint's graph")
    mine, theirs = int(ranks[me, 0]), int(ranks[me, 1])
    left = [q for q in range(16) if q != piece and q not in board]
    plies: list[tuple[int, Optional[int], int]] = []  # (cell, gift, end: 0 won, -1 drawn, -2 a child)
    children: list[np.ndarray] = []
    for cell in range(16):
        if board[cell] is not None:
            continue
        after = board[:cell] + [piece] + board[cell + 1:]
        if _wins(after, squares):
            plies.append((cell, None, 0))
        elif all(p is not None for p in after):
            plies.append((cell, None, -1))
        else:
            for q in left:
                plies.append((cell, q, -2))
                children.append(words_of(symmetry.canonical_key(after, q, squares)))
    found = pt.lookup(built, np.array(children, np.uint64).reshape(-1, WIDTH)).tolist() if children else []
    if any(i < 0 for i in found):
        raise QuartoGraphError("a child of the position is missing from the checkpoint's graph; remove the folder "
                               "to start again")
    of = {i: (int(ranks[i, 0]), int(ranks[i, 1])) for i in sorted(set(found))}  # (in order: a part read once)
    ids = iter(found)
    ranked: list[tuple[int, Optional[int], int, int, int]] = []  # (cell, gift, end, the child's mover's rank, ours)
    for cell, gift, end in plies:
        if end != -2:
            ranked.append((cell, gift, end, -1, 0 if end == 0 else -1))
        else:
            ranked.append((cell, gift, end, *of[next(ids)]))
    if mine >= 0:
        value, plies_, best = "win", mine, [r for r in ranked if (r[2] == 0 and mine == 1)
                                            or (r[2] == -2 and r[4] == mine - 1)]
    elif theirs >= 0:
        value, plies_, best = "loss", theirs, [r for r in ranked if r[2] == -2 and r[3] == theirs - 1]
    else:
        value, plies_, best = "draw", None, [r for r in ranked if r[2] == -1 or (r[2] == -2 and r[3] < 0)]
    if not best:
        raise QuartoGraphError("the graph's ranks do not agree with the position's children; remove the folder "
                               "to start again")
    return GraphValue(value, plies_, (best[0][0], best[0][1]))


def _cells(value: Any) -> list[Optional[int]]:
    """A board option: 16 cells, or 4 rows of 4 from the top; each a piece number, its notation, or None."""
    from .core import Piece

    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise QuartoGraphError(f"board must be 16 cells or 4 rows of 4, not {value!r}"[:200])
    flat: list[Any] = list(value)
    if len(flat) == 4 and all(isinstance(r, Sequence) and not isinstance(r, str) for r in flat):
        flat = [p for row in flat for p in row]
    out: list[Optional[int]] = []
    for p in flat:
        if isinstance(p, str):
            try:
                p = int(Piece.parse(p))
            except QuartoError as err:
                raise QuartoGraphError(f"board: {err}") from None
        out.append(p)
    return out


def packed_for(options: Mapping[str, Any]) -> QuartoPacked:
    """The game's part ``packed``: the graph reachable from the position the options name: ``board`` (16 cells
    or 4 rows of 4 from the top, each a piece number, its notation or None), ``piece`` (the piece in hand, a
    number or its notation) and the rules, ``squares`` (or ``rules: {"squares": ...}``, as :meth:`identity`
    gives them: ``packed_for(part.identity())`` is the graph of the same start). A start it does not take raises
    :class:`QuartoGraphError` (one line)."""
    from .core import Piece

    if "board" not in options:
        raise QuartoGraphError("Quarto's packed graph is the graph of a position: give its board and piece")
    board = _cells(options["board"])
    piece = options.get("piece")
    if isinstance(piece, str):
        try:
            piece = int(Piece.parse(piece))
        except QuartoError as err:
            raise QuartoGraphError(f"piece: {err}") from None
    rules = options.get("rules")
    squares = options.get("squares", rules.get("squares", False) if isinstance(rules, Mapping) else False)
    return QuartoPacked(tuple(board), piece, squares)


__all__ = ["FORMAT", "WIDTH", "KEY_BITS", "NO_GIFT", "MOVES", "MAX_EMPTY", "QuartoGraphError", "QuartoPacked",
           "degree_bound", "words_of", "key_of", "canonical_words", "unpack_words", "board_of", "check_start",
           "move_of", "packed_for", "GraphValue", "value_at"]

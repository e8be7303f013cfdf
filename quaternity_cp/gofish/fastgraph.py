"""The Quantum Go Fish game graph as packed numbers: exact bounds by a cut formula, compiled with numba.

The solver of :mod:`.solver` keeps positions as Python tuples and asks the
flow engine for every bound: about 4,000 positions a second, and about 3 KB a
position. That settles 2 and 3 players; 4 players (4 suits of 4) need millions
of positions. This module is the same game graph, position for position, with
positions packed into two 64-bit words and every rule written over small
integer arrays, so that numba (the ``[fast]`` extra) can compile it. Without
numba the same functions run as plain Python (slowly): the tests compare both
with :class:`~quaternity_cp.gofish.game.GoFish`, the rules' one home.

**Exact bounds without a flow network.** A box of cell bounds ``L <= T <= H``
with row sums ``hands`` and column sums ``S`` holds a table exactly when, for
every set R of players and set C of suits (Hoffman's circulation theorem on the
transportation network)::

    slack(R, C) = H(R, not C) + S*|C| - hands(R) - L(not R, C) >= 0

and every condition is linear in one cell's bound, so the exact range of cell
(p, s) over the consistent tables is::

    max T[p][s] = min(H[p][s], L[p][s] + min{slack(R, C) : p not in R, s in C})
    min T[p][s] = max(L[p][s], H[p][s] - min{slack(R, C) : p in R, s not in C})

(:func:`tighten`): 2^P * 2^K sums and minima, a microsecond or two at 4 x 4,
and the same numbers as the flow engine (tested on random boxes).

**Positions.** What is known is the box of the current table (tight bounds),
the hands, who is to move and the open question (GOFISH.md: every question,
answer and card passed is a bound on one cell or a known shift). Two
symmetries are taken out, as the issue asks:

* *players rotated*: the rules only count seats "on from the asker", so a
  position is seen from its mover (the player to ask, or the asker waiting for
  an answer), who is seat 0 of the packed position; a ply that hands the turn
  to seat ``d`` carries the *offset* ``d``, and "can seat X force a win" becomes
  "can the seat ``r`` places after the mover", with ``r`` shifted by each edge;
* *suits relabelled*: the suits' columns are sorted (the open question's suit
  marked), as the Python solver does.

``option first`` only renames seats, so it changes nothing here but the
reading of the root (:func:`root_turn`).

**What the partitioned solver's sizes count** (:data:`SIZES_DEFINITION`):
its positions are the asking positions (a seat to ask) and the open-question
positions (a question asked, not answered) reachable from the start, counted
once per rotation of the players and relabelling of the suits; a game over is
not a position (a ply that ends the game is an edge to its winner). Its moves
(edges) are each position's distinct plies: two plies leading to the same
position seen from the same seat, or ending the game with the same winner, are
one (the same number as the Python solver's successors of a position). A
layer is one breadth-first step of the build: layer d holds the positions
first reached after d plies (a question and an answer each one ply), and the
build ends with a layer that has none, so a graph of ``layers`` layers has its
farthest position ``layers - 2`` plies from the start. Checked against a
brute-force game graph in tests/test_gofish_sizes.py. :func:`open_count` tells
the two kinds of positions apart.

**Packed form.** Fields, low bits first: the asked player of an open question
(0: none; the asker is seat 0), each hand's size, then the sorted column codes
(the marked flag, then ``L * (S+1) + H`` per player, in mixed radix); at most
128 bits (:class:`Shape` says when a shape does not fit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from .rules import GoFishError, Rules, Setup

try:  # the [fast] extra; without it the kernel runs as plain Python
    from numba import njit as _njit

    HAVE_NUMBA = True

    def jit(fn: Any) -> Any:
        return _njit(cache=True)(fn)
except ImportError:  # pragma: no cover - depends on the installed extras
    HAVE_NUMBA = False

    def jit(fn: Any) -> Any:
        return fn

# params: the rules as small integers (one array, so every kernel function takes the same few arguments)
P_PLAYERS, P_SUITS, P_SIZE, P_FORBID, P_AGAIN, P_FOUR, P_WIN_AFTER_ASK, P_FOUR_FIRST, P_TOP, P_FIRST = range(10)
FOUR_NAMED, FOUR_SOME, FOUR_OFF = 0, 1, 2
#: an edge's child when the game ends: END - winner (winner in the parent's frame, P: nobody)
END = -1
NO_WINNER_CODE = -1


#: What the sizes of the partitioned solver count (the ``sizes_definition`` of ``gofish starts --json --checkpoint``).
SIZES_DEFINITION = (
    "positions = the asking positions (a seat to ask) and the open-question positions (a question asked, not "
    "answered) reachable from the start, players rotated (each seen from the seat to ask, or from the asker "
    "waiting for its answer) and suits relabelled; a position is the set of tables of counts consistent with the "
    "game so far, whose turn it is and the open question; games over are not positions; edges (the moves) = each "
    "position's distinct plies, games over included (plies to the same position, or ending the game with the same "
    "winner, are one); layers = the build's breadth-first layers: layer d holds the positions first reached "
    "after d plies, the last layer is empty, so the farthest position is layers - 2 plies from the start")


class ShapeError(GoFishError):
    """A game too big for the packed form (more than 128 bits a position) or not a start this module solves."""


@dataclass(frozen=True)
class Shape:
    """The game's sizes and rules as the kernel reads them: ``params`` (int64), and the packed form's field
    widths (``widths``: bits of the asked player, of one hand, of one column)."""

    players: int
    suits: int
    suit_size: int
    rules: Rules
    params: np.ndarray
    w_asked: int
    w_hand: int
    w_col: int

    @classmethod
    def of(cls, players: int, suits: int, suit_size: int, rules: "Rules | Mapping[str, object] | str | None") -> Shape:
        setup = Setup.of(players, suits, suit_size)  # the rules' own checks of the sizes
        r = rules if isinstance(rules, Rules) else Rules.from_dict(rules)
        P, K, S = setup.player_count, setup.suit_count, setup.suit_size
        if r.first >= P:
            raise ShapeError(f"option first: seat {r.first} is not one of the {P} seats")
        if P > 6 or K > 6:
            raise ShapeError(f"{P} players and {K} suits: the packed solver takes at most 6 of each")
        four = {"named": FOUR_NAMED, "some": FOUR_SOME, "off": FOUR_OFF}[r.four]
        top = S - 1 if r.no_initial_four else S
        params = np.array([P, K, S, r.ask_void == "forbid", r.after_yes == "again", four, bool(r.win_after_ask),
                           r.priority == "four-first", top, r.first], dtype=np.int64)
        w_asked = max(1, (P - 1).bit_length())
        w_hand = (K * S).bit_length()
        w_col = (2 * (S + 1) ** (2 * P) - 1).bit_length()
        if w_col > 64 or w_asked + P * w_hand + K * w_col > 128 or not _fits(w_asked, w_hand, w_col, P, K):
            raise ShapeError(f"{P} players, {K} suits of {S}: a position does not fit in 128 bits")
        return cls(P, K, S, r, params, w_asked, w_hand, w_col)

    @property
    def widths(self) -> np.ndarray:
        return np.array([self.w_asked, self.w_hand, self.w_col], dtype=np.int64)

    @property
    def fanout(self) -> int:
        """At most this many plies from one position (questions: suits x other players; answers: 2)."""
        return max(2, self.suits * (self.players - 1))


def _fits(w_asked: int, w_hand: int, w_col: int, P: int, K: int) -> bool:
    """Whether the fields fit two words, none of them split across the two (see :func:`pack`)."""
    pos = 0
    for w in [w_asked] + [w_hand] * P + [w_col] * K:
        if pos < 64 < pos + w:
            pos = 64
        pos += w
    return pos <= 128


# -- exact bounds ---------------------------------------------------------------------------------------------
@jit
def tighten(L: np.ndarray, H: np.ndarray, hands: np.ndarray, P: int, K: int, S: int, slack: np.ndarray,
            oL: np.ndarray, oH: np.ndarray) -> bool:
    """The exact range of every cell over the tables with ``L <= T <= H``, row sums ``hands`` and column sums
    ``S``, into ``oL``, ``oH`` (they may be ``L``, ``H``); False (outputs undefined) when no table is consistent.
    ``slack`` is a work array of at least 2^P x 2^K."""
    NR = 1 << P
    NC = 1 << K
    for p in range(P):
        for s in range(K):
            if L[p, s] > H[p, s]:
                return False
    # slack(R, C) = base(C) + sum over p in R of g(p, C), base(C) = S|C| - L(all, C), g = H(p, not C) + L(p, C) - hand
    for c in range(NC):
        base = 0
        for s in range(K):
            if (c >> s) & 1:
                base += S
                for p in range(P):
                    base -= L[p, s]
        slack[0, c] = base
    for rset in range(1, NR):
        low = rset & (-rset)
        p = 0
        while (1 << p) != low:
            p += 1
        prev = rset ^ low
        for c in range(NC):
            g = -hands[p]
            for s in range(K):
                if (c >> s) & 1:
                    g += L[p, s]
                else:
                    g += H[p, s]
            slack[rset, c] = slack[prev, c] + g
    for rset in range(NR):
        for c in range(NC):
            if slack[rset, c] < 0:
                return False
    big = 1 << 30
    for p in range(P):
        for s in range(K):
            lo_cut = big  # min over R containing p, C without s
            hi_cut = big  # min over R without p, C containing s
            for rset in range(NR):
                inr = (rset >> p) & 1
                for c in range(NC):
                    ins = (c >> s) & 1
                    v = slack[rset, c]
                    if inr == 1 and ins == 0:
                        if v < lo_cut:
                            lo_cut = v
                    elif inr == 0 and ins == 1:
                        if v < hi_cut:
                            hi_cut = v
            lo = L[p, s]
            hi = H[p, s]
            if hi - lo_cut > lo:
                nl = hi - lo_cut
            else:
                nl = lo
            if lo + hi_cut < hi:
                nh = lo + hi_cut
            else:
                nh = hi
            oL[p, s] = nl
            oH[p, s] = nh
    return True


# -- packing ----------------------------------------------------------------------------------------------
@jit
def _put(words: np.ndarray, pos: int, w: int, v: int) -> int:
    if pos < 64 < pos + w:
        pos = 64
    if pos < 64:
        words[0] |= np.uint64(v) << np.uint64(pos)
    else:
        words[1] |= np.uint64(v) << np.uint64(pos - 64)
    return pos + w


@jit
def _get(words: np.ndarray, pos: int, w: int) -> tuple[Any, int]:  # (the value as int64: never mixed with uint64)
    if pos < 64 < pos + w:
        pos = 64
    mask = (np.uint64(1) << np.uint64(w)) - np.uint64(1)
    if pos < 64:
        v = (words[0] >> np.uint64(pos)) & mask
    else:
        v = (words[1] >> np.uint64(pos - 64)) & mask
    return np.int64(v), pos + w


@jit
def pack(L: np.ndarray, H: np.ndarray, hands: np.ndarray, turn: int, asked: int, suit: int, params: np.ndarray,
         widths: np.ndarray, codes: np.ndarray, words: np.ndarray) -> None:
    """The packed key of a position (tight ``L``, ``H``; ``hands``; ``turn`` the mover's seat; ``asked`` and
    ``suit`` the open question or -1) seen from its mover, into ``words`` (2 x uint64). ``codes``: work, K."""
    P = params[P_PLAYERS]
    K = params[P_SUITS]
    S = params[P_SIZE]
    base = (S + 1) * (S + 1)
    for s in range(K):
        code = 1 if s == suit else 0
        for i in range(P):
            p = (turn + i) % P
            code = code * base + L[p, s] * (S + 1) + H[p, s]
        # insertion sort: the columns in increasing order
        j = s
        while j > 0 and codes[j - 1] > code:
            codes[j] = codes[j - 1]
            j -= 1
        codes[j] = code
    words[0] = np.uint64(0)
    words[1] = np.uint64(0)
    pos = 0
    pos = _put(words, pos, widths[0], 0 if asked < 0 else (asked - turn) % P)
    for i in range(P):
        pos = _put(words, pos, widths[1], hands[(turn + i) % P])
    for s in range(K):
        pos = _put(words, pos, widths[2], codes[s])


@jit
def unpack(words: np.ndarray, params: np.ndarray, widths: np.ndarray, L: np.ndarray, H: np.ndarray,
           hands: np.ndarray) -> tuple[int, int]:
    """The position of a packed key, seen from its mover (seat 0): fills ``L``, ``H``, ``hands``; returns the open
    question's (asked, suit), or (-1, -1). Suits are numbered by the sorted columns."""
    P = params[P_PLAYERS]
    K = params[P_SUITS]
    S = params[P_SIZE]
    base = (S + 1) * (S + 1)
    pos = 0
    asked, pos = _get(words, pos, widths[0])
    for i in range(P):
        hands[i], pos = _get(words, pos, widths[1])
    suit = -1
    for s in range(K):
        code, pos = _get(words, pos, widths[2])
        for i in range(P - 1, -1, -1):
            cell = code % base
            code //= base
            L[i, s] = cell // (S + 1)
            H[i, s] = cell % (S + 1)
        if code == 1:
            suit = s
    if asked == 0:
        return -1, -1
    return asked, suit


# -- the rules over a tight box ---------------------------------------------------------------------------------
@jit
def _has_question(L: np.ndarray, H: np.ndarray, hands: np.ndarray, p: int, params: np.ndarray, slack: np.ndarray,
                  qL: np.ndarray, qH: np.ndarray) -> bool:
    """Whether seat ``p`` holds cards and has a legal question (tight ``L``, ``H``)."""
    P = params[P_PLAYERS]
    K = params[P_SUITS]
    if hands[p] == 0:
        return False
    other = False
    for b in range(P):
        if b != p and hands[b] > 0:
            other = True
    if not other:
        return False
    for s in range(K):
        if H[p, s] < 1:
            continue
        if params[P_FORBID] == 0:
            return True
        qL[:, :] = L
        qH[:, :] = H
        if qL[p, s] < 1:
            qL[p, s] = 1
        if not tighten(qL, qH, hands, P, K, params[P_SIZE], slack, qL, qH):
            continue
        for b in range(P):
            if b != p and hands[b] > 0 and qH[b, s] >= 1:
                return True
    return False


@jit
def _holds_four(L: np.ndarray, H: np.ndarray, hands: np.ndarray, p: int, params: np.ndarray, slack: np.ndarray,
                qL: np.ndarray, qH: np.ndarray) -> bool:
    """Whether ``p`` holds a four under option ``four`` (tight, consistent ``L``, ``H``)."""
    K = params[P_SUITS]
    S = params[P_SIZE]
    if params[P_FOUR] == FOUR_OFF:
        return False
    for s in range(K):
        if L[p, s] == S:
            return True
    if params[P_FOUR] == FOUR_NAMED:
        return False
    # four = some: no consistent table leaves p short of every suit
    qL[:, :] = L
    qH[:, :] = H
    for s in range(K):
        if qH[p, s] > S - 1:
            qH[p, s] = S - 1
    return not tighten(qL, qH, hands, params[P_PLAYERS], K, S, slack, qL, qH)


@jit
def winner(L: np.ndarray, H: np.ndarray, hands: np.ndarray, mover: int, params: np.ndarray, slack: np.ndarray,
           qL: np.ndarray, qH: np.ndarray) -> int:
    """Who wins now (tight, consistent box), ``mover`` having asked: a seat, or -1 for nobody yet."""
    P = params[P_PLAYERS]
    K = params[P_SUITS]
    determined = True
    for p in range(P):
        for s in range(K):
            if L[p, s] != H[p, s]:
                determined = False
    if params[P_FOUR_FIRST] == 0:
        if determined:
            return mover
        for i in range(P):
            p = (mover + i) % P
            if _holds_four(L, H, hands, p, params, slack, qL, qH):
                return int(p)
        return -1
    for i in range(P):
        p = (mover + i) % P
        if _holds_four(L, H, hands, p, params, slack, qL, qH):
            return int(p)
    return mover if determined else -1


@jit
def start(params: np.ndarray, widths: np.ndarray, words: np.ndarray) -> int:
    """The start's packed key into ``words``; returns the seat to ask first (-1: nobody can; ``words`` then 0)."""
    P = params[P_PLAYERS]
    K = params[P_SUITS]
    S = params[P_SIZE]
    L = np.zeros((P, K), np.int64)
    H = np.full((P, K), params[P_TOP], np.int64)
    hands = np.full(P, K * S // P, np.int64)
    slack = np.zeros((1 << P, 1 << K), np.int64)
    qL = np.zeros((P, K), np.int64)
    qH = np.zeros((P, K), np.int64)
    codes = np.zeros(K, np.int64)
    words[0] = np.uint64(0)
    words[1] = np.uint64(0)
    if not tighten(L, H, hands, P, K, S, slack, L, H):
        return -1
    for i in range(P):
        p = (params[P_FIRST] + i) % P
        if _has_question(L, H, hands, p, params, slack, qL, qH):
            pack(L, H, hands, p, -1, -1, params, widths, codes, words)
            return int(p)
    return -1


@jit
def expand(keys: np.ndarray, params: np.ndarray, widths: np.ndarray, out_keys: np.ndarray, out_src: np.ndarray,
           out_off: np.ndarray, out_move: np.ndarray, out_end: np.ndarray, owner: np.ndarray,
           degree: np.ndarray) -> int:
    """Every ply from each packed position of ``keys`` (n x 2 uint64), its children deduplicated.

    Writes, per edge, ``out_keys`` (the child's key; zeros for a game over), ``out_src`` (the row of ``keys``),
    ``out_off`` (the child's mover, counted on from the parent's), ``out_move`` (the ply: ``b * K + s`` for
    "ask b for suit s", ``P*K`` for no, ``P*K + 1`` for yes, in the parent's frame and sorted suits), and
    ``out_end`` (-2: not a game over; else the winner in the parent's frame, -1 for nobody). Fills ``owner[i]``
    (who chooses at position i, in its frame: 0, or the asked player) and ``degree[i]`` (its distinct
    children). Returns the number of edges (the arrays hold ``len(keys) * fanout``)."""
    P = params[P_PLAYERS]
    K = params[P_SUITS]
    S = params[P_SIZE]
    L = np.zeros((P, K), np.int64)
    H = np.zeros((P, K), np.int64)
    hands = np.zeros(P, np.int64)
    nL = np.zeros((P, K), np.int64)
    nH = np.zeros((P, K), np.int64)
    nh = np.zeros(P, np.int64)
    qL = np.zeros((P, K), np.int64)
    qH = np.zeros((P, K), np.int64)
    slack = np.zeros((1 << P, 1 << K), np.int64)
    codes = np.zeros(K, np.int64)
    words = np.zeros(2, np.uint64)
    m = 0
    for i in range(keys.shape[0]):
        asked, suit = unpack(keys[i], params, widths, L, H, hands)
        first = m
        if asked < 0:
            owner[i] = 0
            for s in range(K):
                if H[0, s] < 1 or hands[0] == 0:
                    continue
                nL[:, :] = L
                nH[:, :] = H
                if nL[0, s] < 1:
                    nL[0, s] = 1
                if not tighten(nL, nH, hands, P, K, S, slack, nL, nH):
                    continue  # (cannot happen: H >= 1 is a tight bound)
                won = -2
                if params[P_WIN_AFTER_ASK] == 1:
                    w = winner(nL, nH, hands, 0, params, slack, qL, qH)
                    if w >= 0:
                        won = w
                for b in range(1, P):
                    if hands[b] == 0:
                        continue
                    if params[P_FORBID] == 1 and nH[b, s] < 1:
                        continue
                    out_src[m] = i
                    out_off[m] = 0
                    out_move[m] = b * K + s
                    if won >= 0:
                        out_end[m] = won
                        out_keys[m, 0] = np.uint64(0)
                        out_keys[m, 1] = np.uint64(0)
                    else:
                        out_end[m] = -2
                        pack(nL, nH, hands, 0, b, s, params, widths, codes, words)
                        out_keys[m, 0] = words[0]
                        out_keys[m, 1] = words[1]
                    m += 1
        else:
            owner[i] = asked
            b = asked
            s = suit
            for yes in range(1, -1, -1):
                if yes == 1 and H[b, s] < 1:
                    continue
                if yes == 0 and L[b, s] > 0:
                    continue
                nL[:, :] = L
                nH[:, :] = H
                nh[:] = hands
                if yes == 1:
                    if nL[b, s] < 1:
                        nL[b, s] = 1
                    nL[b, s] -= 1
                    nH[b, s] -= 1
                    nL[0, s] += 1
                    nH[0, s] = min(S, nH[0, s] + 1)
                    nh[b] -= 1
                    nh[0] += 1
                else:
                    nH[b, s] = 0
                ok = tighten(nL, nH, nh, P, K, S, slack, nL, nH)
                out_src[m] = i
                out_move[m] = P * K + yes
                out_off[m] = 0
                out_keys[m, 0] = np.uint64(0)
                out_keys[m, 1] = np.uint64(0)
                w = winner(nL, nH, nh, 0, params, slack, qL, qH) if ok else -1
                if w >= 0:
                    out_end[m] = w
                    m += 1
                    continue
                turn = -1
                if yes == 1 and params[P_AGAIN] == 1 and _has_question(nL, nH, nh, 0, params, slack, qL, qH):
                    turn = 0
                else:
                    for j in range(1, P + 1):
                        p = j % P
                        if _has_question(nL, nH, nh, p, params, slack, qL, qH):
                            turn = p
                            break
                if turn < 0:
                    out_end[m] = -1  # stuck: nobody can ask
                    m += 1
                    continue
                out_end[m] = -2
                out_off[m] = turn
                pack(nL, nH, nh, turn, -1, -1, params, widths, codes, words)
                out_keys[m, 0] = words[0]
                out_keys[m, 1] = words[1]
                m += 1
        # distinct children only (the same child and offset, or the same game over, by one move: the first)
        k = first
        for e in range(first, m):
            dup = False
            for f in range(first, k):
                if (out_end[f] == out_end[e] and out_off[f] == out_off[e] and out_keys[f, 0] == out_keys[e, 0]
                        and out_keys[f, 1] == out_keys[e, 1]):
                    dup = True
                    break
            if not dup:
                if k != e:
                    out_keys[k, 0] = out_keys[e, 0]
                    out_keys[k, 1] = out_keys[e, 1]
                    out_src[k] = out_src[e]
                    out_off[k] = out_off[e]
                    out_move[k] = out_move[e]
                    out_end[k] = out_end[e]
                k += 1
        m = k
        degree[i] = m - first
    return m


def open_count(keys: np.ndarray, shape: Shape) -> int:
    """How many of the packed positions ``keys`` (n x 2 uint64) have a question open (the rest are asking
    positions): the asked player's field, the lowest bits of the first word, is not 0."""
    k = np.asarray(keys, np.uint64).reshape(-1, 2)
    mask = np.uint64((1 << shape.w_asked) - 1)
    return int(np.count_nonzero(k[:, 0] & mask))


def expand_keys(keys: np.ndarray, shape: Shape) -> dict[str, np.ndarray]:
    """:func:`expand` with its arrays made: ``keys`` (n x 2 uint64) -> the edges (``keys``, ``src``, ``off``,
    ``move``, ``end``) and per position ``owner`` and ``degree``."""
    n = len(keys)
    cap = max(1, n * shape.fanout)
    out_keys = np.zeros((cap, 2), np.uint64)
    out_src = np.zeros(cap, np.int64)
    out_off = np.zeros(cap, np.int8)
    out_move = np.zeros(cap, np.int16)
    out_end = np.zeros(cap, np.int8)
    owner = np.zeros(n, np.int8)
    degree = np.zeros(n, np.int16)
    m = expand(np.ascontiguousarray(keys, dtype=np.uint64), shape.params, shape.widths, out_keys, out_src, out_off,
               out_move, out_end, owner, degree)
    return {"keys": out_keys[:m], "src": out_src[:m], "off": out_off[:m], "move": out_move[:m],
            "end": out_end[:m], "owner": owner, "degree": degree}


def start_key(shape: Shape) -> tuple[np.ndarray, int]:
    """The start's packed key and the seat to ask first (-1: nobody can ask; the game is over at once)."""
    words = np.zeros(2, np.uint64)
    turn = start(shape.params, shape.widths, words)
    return words, int(turn)


def decode(words: np.ndarray, shape: Shape) -> dict[str, Any]:
    """A packed position as plain numbers, seen from its mover: ``low``, ``high``, ``hands`` and ``question``
    (asked, suit) or None."""
    P, K = shape.players, shape.suits
    L = np.zeros((P, K), np.int64)
    H = np.zeros((P, K), np.int64)
    hands = np.zeros(P, np.int64)
    asked, suit = unpack(np.asarray(words, np.uint64), shape.params, shape.widths, L, H, hands)
    return {"low": L.tolist(), "high": H.tolist(), "hands": hands.tolist(),
            "question": None if asked < 0 else (int(asked), int(suit))}


def tight(low: Any, high: Any, hands: Any, suit_size: int) -> tuple[list[list[int]], list[list[int]]] | None:
    """:func:`tighten` on lists (None: no table is consistent)."""
    L = np.array(low, np.int64)
    H = np.array(high, np.int64)
    h = np.array(hands, np.int64)
    P, K = L.shape
    slack = np.zeros((1 << P, 1 << K), np.int64)
    if not tighten(L, H, h, P, K, suit_size, slack, L, H):
        return None
    return L.tolist(), H.tolist()


__all__ = ["HAVE_NUMBA", "SIZES_DEFINITION", "ShapeError", "Shape", "open_count", "tighten", "pack", "unpack", "winner",
           "expand", "expand_keys", "key_of", "start_key", "decode", "tight", "END"]


def key_of(game: Any, st: Any, shape: Shape) -> tuple[np.ndarray, int]:
    """The packed key of a :class:`~.game.GoFish` state (a game not over) and its mover's seat: the bridge the
    tests cross the two solvers on."""
    b = game.bounds(st)
    L = np.array(b.low, np.int64)
    H = np.array(b.high, np.int64)
    hands = np.array(game.hands(st), np.int64)
    words = np.zeros(2, np.uint64)
    codes = np.zeros(shape.suits, np.int64)
    q = st.pending
    pack(L, H, hands, st.turn, -1 if q is None else q.asked, -1 if q is None else q.suit, shape.params, shape.widths,
         codes, words)
    return words, int(st.turn)

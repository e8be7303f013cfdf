"""Quaternity's packed expansion compiled (numba): the successors of packed positions without leaving the words.

:meth:`quaternity_cp.quartets.packed.QuaternityPacked.expand` decodes a key into a
:class:`~quaternity_cp.quartets.position.State`, lets the in-memory solver's fast path generate and
play its moves, and packs each child's canonical key: about 1,000 to 2,500 positions a second. This
module does the same on the packed words, in compiled code (:func:`expand_batch`):

- a key is read into arrays: per set in play its cards' possible owners (in the key's order, the open
  question's card flagged) and every seat's lower and upper bounds; hands; the seats on turn; the open
  question; the scores and, under ``tie = first``, the order the scores were reached;
- the possible owners of every card and the possible quartets come from the exact analysis of
  :mod:`.flow_nb` (the deals consistent with the domains, hands and bounds: one maximum flow and its
  residual graph, in a workspace allocated once a batch; :mod:`.deals_nb`'s radix DP gives the same
  answers and is its cross-check in the tests, not used here since the flow is faster at every size
  measured and its work does not grow with the product of the hands); a question whose answer is
  forced leaves the deals of the position with the question asked (a forced no takes an owner no deal
  gives the card, a forced yes moves the card one deal for one), so its child takes that analysis rather
  than one of its own (one analysis per card asked, however many seats it may be asked of); and a set
  claimed automatically was every deal's at its seat, so the deals left are those deals without it and the
  other sets keep their owners (no analysis after a claim; ``C_REUSE`` off computes both, the benchmark's
  baseline);
- the moves are generated in the in-memory solver's order (:mod:`.solver.kernel`): one set per equal
  description, one card per equal class, the questions of a card to each seat that may be asked, with
  the answer when it is forced; the answers of an open question; the free choices of a shared turn;
  declarations;
- a move is played as the solver's rows play it: a question tells what
  :func:`.solver.kernel.question_rule` reads from :mod:`.effects` (``lacks``, ``least``, ``cap``), a yes
  moves the card with :func:`.constraints.transfer_bounds`'s rule, a no narrows the card's domain,
  automatic claims and declarations claim a set, the hand-over follows :func:`.effects.hand_over` and
  :func:`.effects.fallback_seats`, the winners :func:`.outcome.winners`;
- the child's key is the solver's description (cards' owners sorted, bounds tightened by the forced and
  possible cards and the hands), rotated to its deciding seat where the rules count seats from the mover,
  sets sorted, packed as :func:`.packed.pack_key` packs.

The rules are written a second time here, in compiled form; what keeps them one rule is the test
(``tests/test_packed_nb.py``): on every start of every preset and option set the tests play, every
position's edges from this module equal the Python path's, row for row (child, seat offset, end, move
number, owner, degree).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from .flow_nb import FLOW_ROWS, analyze_flow_ws, borrowed, keep_alive

if TYPE_CHECKING:
    from .packed import QuaternityPacked

# the configuration vector's entries (see config)
C_P, C_N, C_S, C_W, C_CB, C_BB, C_HB, C_SB, C_SCB = range(9)
C_FIRST, C_ROT, C_DECLARE, C_AUTO, C_SILENCE, C_FNQ, C_HANDOVER, C_AFTERNO, C_TIE, C_ONLY = range(9, 19)
C_LACKS, C_LEAST, C_CAP = 19, 20, 21
C_REUSE = 22  # 1: a forced answer's child takes the asked position's analysis (see _expand_one); 0: computes it
C_LEN = 23

HANDOVER_CODES = {"fewest": 0, "seat": 1, "clockwise": 2, "fewest-cards": 3, "most-cards": 4}
AFTER_NO_CODES = {"asked": 0, "next": 1}
TIE_CODES = {"all-lose": 0, "shared": 1, "first": 2}

# numbers passed to compiled functions as int64, never as literals (a literal argument compiles the callee
# once more for that value)
_ZERO = np.int64(0)
_ONE = np.int64(1)
_NONE = np.int64(-1)
_INNER = np.int64(-2)

#: a seat's reach order for a score that rose in this ply (after every order already recorded)
NEW_REACH = 1 << 20


def config(packed: "QuaternityPacked") -> np.ndarray:
    """The configuration vector of a :class:`~quaternity_cp.quartets.packed.QuaternityPacked`: its layout's
    field widths and its rules as numbers (the question's facts read from :mod:`.effects` by
    :func:`.solver.kernel.question_rule`, as the solver's rows read them)."""
    from .solver.kernel import question_rule

    lay, rules = packed.layout, packed.rules
    lacks, least, cap = question_rule(rules.silence, packed.set_size)
    cfg = np.zeros(C_LEN, np.int64)
    cfg[C_P], cfg[C_N], cfg[C_S], cfg[C_W] = lay.P, lay.N, lay.S, lay.width
    cfg[C_CB], cfg[C_BB], cfg[C_HB], cfg[C_SB], cfg[C_SCB] = lay.card, lay.bound, lay.hand, lay.seat, lay.score
    cfg[C_FIRST] = int(lay.first)
    cfg[C_ROT] = int(packed.rotated)
    cfg[C_DECLARE] = int(rules.declare)
    cfg[C_AUTO] = int(rules.auto_claim)
    cfg[C_SILENCE] = int(rules.silence)
    cfg[C_FNQ] = int(rules.forced_no_question)
    cfg[C_HANDOVER] = HANDOVER_CODES[rules.handover]
    cfg[C_AFTERNO] = AFTER_NO_CODES[rules.after_no]
    cfg[C_TIE] = TIE_CODES[rules.tie]
    cfg[C_ONLY] = int(packed.only)
    cfg[C_LACKS] = int(lacks)
    cfg[C_LEAST] = least
    cfg[C_CAP] = -1 if cap is None else cap
    cfg[C_REUSE] = 1
    return cfg


# -- bits ---------------------------------------------------------------------------------------------------
@njit(cache=True)
def _get(words, at, bits):
    w = at >> 6
    sh = at & 63
    v = words[w] >> np.uint64(sh)
    if sh + bits > 64:
        v |= words[w + 1] << np.uint64(64 - sh)
    return np.int64(v & np.uint64((1 << bits) - 1))


@njit(cache=True)
def _put(words, at, v, bits):
    w = at >> 6
    sh = at & 63
    x = np.uint64(v)
    words[w] |= x << np.uint64(sh)
    if sh + bits > 64:
        words[w + 1] |= x >> np.uint64(64 - sh)


# -- a position's arrays ---------------------------------------------------------------------------------------
# A position is held as: doms[k, i] (card i of set k: possible owners), flag[k, i] (1: the open question's card),
# lo[k, p], hi[k, p], K (sets in play), hands[p], turn (mask), asker, target (-1: none), scores[p], reach[p]
# (under tie = first: the order the seat's score was reached, 0: no score).


@njit(cache=True)
def _decode(words, cfg, doms, flag, lo, hi, hands, scores, reach):
    """Reads a key; returns (K, turn mask, asker, target)."""
    P, N, S = cfg[C_P], cfg[C_N], cfg[C_S]
    cb, bb, hb, sb, scb = cfg[C_CB], cfg[C_BB], cfg[C_HB], cfg[C_SB], cfg[C_SCB]
    at = 0
    K = 0
    for _ in range(N):
        first = _get(words, at, cb)
        if first == 0:
            at += S * cb + 2 * P * bb
            continue
        for i in range(S):
            c = _get(words, at, cb)
            at += cb
            doms[K, i] = c >> 1
            flag[K, i] = c & 1
        for p in range(P):
            lo[K, p] = _get(words, at, bb)
            at += bb
        for p in range(P):
            hi[K, p] = _get(words, at, bb)
            at += bb
        K += 1
    for p in range(P):
        hands[p] = _get(words, at, hb)
        at += hb
    turn = _get(words, at, P)
    at += P
    asker = _get(words, at, sb) - 1
    at += sb
    target = _get(words, at, sb) - 1
    at += sb
    for p in range(P):
        scores[p] = _get(words, at, scb)
        at += scb
    if cfg[C_FIRST]:
        for p in range(P):
            reach[p] = _get(words, at, sb)  # rank + 1, 0: none
            at += sb
    else:
        for p in range(P):
            reach[p] = 0
    return K, turn, asker, target


@njit(cache=True)
def _rot(m, r, P):
    if r == 0:
        return m
    full = (1 << P) - 1
    return ((m >> r) | (m << (P - r))) & full


@njit(cache=True)
def _less(a, b, n):
    for j in range(n):
        if a[j] != b[j]:
            return a[j] < b[j]
    return False


@njit(cache=True)
def _encode(cfg, K, own, flag, lo, hi, hands, turn, asker, target, scores, reach, r, desc, out):
    """Packs the child whose cards' possible owners are ``own`` (the analysis'), seen from seat r (0: as is)
    into ``out`` (zeroed here): the solver's description per set (owners doubled plus the open question's
    flag, sorted; bounds tightened), sets sorted."""
    P, N, S = cfg[C_P], cfg[C_N], cfg[C_S]
    D = S + 2 * P
    for k in range(K):
        # the description in the parent's seats, rotated: seat q of the parent is seat (q - r) % P
        for i in range(S):
            m = own[k, i]
            desc[k, i] = (_rot(m, r, P) << 1) | flag[k, i]
        # sort the cards (insertion: S is small)
        for i in range(1, S):
            v = desc[k, i]
            j = i - 1
            while j >= 0 and desc[k, j] > v:
                desc[k, j + 1] = desc[k, j]
                j -= 1
            desc[k, j + 1] = v
        for p in range(P):
            forced = 0
            possible = 0
            for i in range(S):
                m = own[k, i]
                if m >> p & 1:
                    possible += 1
                    if m == (1 << p):
                        forced += 1
            q = (p - r) % P
            low = lo[k, p]
            if forced > low:
                low = forced
            top = hi[k, p]
            if possible < top:
                top = possible
            if hands[p] < top:
                top = hands[p]
            desc[k, S + q] = low
            desc[k, S + P + q] = top
    # sort the sets (insertion over rows of D numbers; their order in desc's last column)
    order = desc[:, D]
    for k in range(K):
        order[k] = k
    for a in range(1, K):
        v = order[a]
        j = a - 1
        while j >= 0 and _less(desc[v], desc[order[j]], D):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = v
    for w in range(out.shape[0]):
        out[w] = np.uint64(0)
    cb, bb, hb, sb, scb = cfg[C_CB], cfg[C_BB], cfg[C_HB], cfg[C_SB], cfg[C_SCB]
    at = 0
    for a in range(K):
        row = desc[order[a]]
        for i in range(S):
            _put(out, at, row[i], cb)
            at += cb
        for j in range(2 * P):
            _put(out, at, row[S + j], bb)
            at += bb
    at += (N - K) * (S * cb + 2 * P * bb)
    for q in range(P):
        _put(out, at, hands[(q + r) % P], hb)
        at += hb
    _put(out, at, _rot(turn, r, P), P)
    at += P
    _put(out, at, (asker - r) % P + 1 if asker >= 0 else 0, sb)
    at += sb
    _put(out, at, (target - r) % P + 1 if target >= 0 else 0, sb)
    at += sb
    for q in range(P):
        _put(out, at, scores[(q + r) % P], scb)
        at += scb
    if cfg[C_FIRST]:
        # the rank among the distinct reach orders of the seats with points (the solver's score key)
        for q in range(P):
            p = (q + r) % P
            rank = -1
            if scores[p] > 0:
                rank = 0
                for p2 in range(P):
                    if scores[p2] > 0 and reach[p2] < reach[p]:
                        # count distinct smaller reach orders
                        dup = False
                        for p3 in range(p2):
                            if scores[p3] > 0 and reach[p3] == reach[p2]:
                                dup = True
                                break
                        if not dup:
                            rank += 1
            _put(out, at, rank + 1, sb)
            at += sb


@njit(cache=True)
def _lowest(m):
    p = 0
    while not (m >> p) & 1:
        p += 1
    return p


@njit(cache=True)
def _winners(cfg, scores, reach):
    """outcome.winners as a seat mask (0: nobody)."""
    P = cfg[C_P]
    best = -1
    for p in range(P):
        if scores[p] > best:
            best = scores[p]
    top = 0
    n = 0
    for p in range(P):
        if scores[p] == best:
            top |= 1 << p
            n += 1
    tie = cfg[C_TIE]
    if n <= 1 or tie == 1:
        return top
    if tie == 0:
        return 0
    # first: the earliest reach, then the lowest seat
    win = -1
    for p in range(P):
        if top >> p & 1:
            if win < 0 or reach[p] < reach[win]:
                win = p
    return 1 << win


@njit(cache=True)
def _hand_over(cfg, order, n_order, hands, scores):
    """effects.hand_over with empty_hand = skip: a seat mask (several: a free choice)."""
    P = cfg[C_P]
    for j in range(n_order):
        p = order[j]
        if hands[p] > 0:
            return 1 << p
    mode = cfg[C_HANDOVER]
    start = order[0]
    holding = 0
    for p in range(P):
        if hands[p] > 0:
            holding |= 1 << p
    if holding == 0:
        return 0
    if mode == 1:  # seat
        return 1 << _lowest(holding)
    if mode == 2:  # clockwise
        for k in range(P):
            p = (start + k) % P
            if holding >> p & 1:
                return 1 << p
    if mode == 0:  # fewest: (score, hand) least, every seat with it
        bs = -1
        bh = -1
        for p in range(P):
            if holding >> p & 1:
                if bs < 0 or scores[p] < bs or (scores[p] == bs and hands[p] < bh):
                    bs = scores[p]
                    bh = hands[p]
        m = 0
        for p in range(P):
            if holding >> p & 1 and scores[p] == bs and hands[p] == bh:
                m |= 1 << p
        return m
    # fewest-cards / most-cards: the first clockwise from start with that many cards
    want = -1
    for p in range(P):
        if holding >> p & 1:
            if want < 0 or (mode == 3 and hands[p] < want) or (mode == 4 and hands[p] > want):
                want = hands[p]
    for k in range(P):
        p = (start + k) % P
        if holding >> p & 1 and hands[p] == want:
            return 1 << p
    return 0


@njit(cache=True)
def _copy_rows(K, S, P, doms, lo, hi, d2, l2, h2):
    for k in range(K):
        for i in range(S):
            d2[k, i] = doms[k, i]
        for p in range(P):
            l2[k, p] = lo[k, p]
            h2[k, p] = hi[k, p]


@njit(cache=True)
def _child_arrays(K, S, P, doms, lo, hi, hands, scores, reach, d2, f2, l2, h2, hands2, scores2, reach2):
    """A child's arrays: the parent's rows, hands, scores and reach orders copied, no open question."""
    _copy_rows(K, S, P, doms, lo, hi, d2, l2, h2)
    for k in range(K):
        for i in range(S):
            f2[k, i] = 0
    for p in range(P):
        hands2[p] = hands[p]
        scores2[p] = scores[p]
        reach2[p] = reach[p]


@njit(cache=True)
def _claim(k, p, K, S, P, doms, flag, own, lo, hi, hands, scores, reach):
    """Set k claimed by seat p, in place (``Position``'s claim: p puts down S cards and scores, its reach order is
    this ply's); the set leaves play, the later sets moving up one row. Returns the sets left in play."""
    hands[p] -= S
    scores[p] += 1
    reach[p] = NEW_REACH
    for k2 in range(k, K - 1):
        for i in range(S):
            doms[k2, i] = doms[k2 + 1, i]
            flag[k2, i] = flag[k2 + 1, i]
            own[k2, i] = own[k2 + 1, i]
        for q in range(P):
            lo[k2, q] = lo[k2 + 1, q]
            hi[k2, q] = hi[k2 + 1, q]
    return K - 1


@njit(cache=True)
def _answer(cfg, s, i, x, y, yes, doms, lo, hi, hands, order):
    """The answer of y to x's question for card i of set s, in place: a yes moves the card to x (the transfer
    rule of :func:`.constraints.transfer_bounds`), a no takes y from its owners (:func:`.effects.answer_domain`);
    the hand-over order of :func:`.effects.next_order` is written into ``order``; returns its length."""
    S, P = cfg[C_S], cfg[C_P]
    if yes:
        doms[s, i] = 1 << x
        lo[s, x] += 1
        hi[s, x] = min(S, hi[s, x] + 1)
        lo[s, y] = max(0, lo[s, y] - 1)
        hi[s, y] -= 1
        hands[y] -= 1
        hands[x] += 1
        order[0], order[1] = x, y
        return 2
    doms[s, i] &= ~(1 << y)
    order[0] = (x + 1) % P if cfg[C_AFTERNO] == 1 else y
    return 1


@njit(cache=True)
def _ask(cfg, K, s, i, x, doms, lo, hi):
    """The question constraints of x asking for card i of set s, in place (what question_rule read)."""
    S = cfg[C_S]
    if cfg[C_LACKS]:
        doms[s, i] &= ~(1 << x)
    if lo[s, x] < cfg[C_LEAST]:
        lo[s, x] = cfg[C_LEAST]
    cap = cfg[C_CAP]
    if cap >= 0:
        for t in range(K):
            if hi[t, x] > cap:
                hi[t, x] = cap
    return S


@njit(cache=True)
def _asked_owners(cfg, K, s, i, x, doms, lo, hi, hands, td, tl, th, town, tq, fw):
    """Who may hold card i of set s once x asked for it (0: nobody, or no deal)."""
    P, S = cfg[C_P], cfg[C_S]
    _copy_rows(K, S, P, doms, lo, hi, td, tl, th)
    _ask(cfg, K, s, i, x, td, tl, th)
    got = analyze_flow_ws(td, tl, th, K, hands, town, tq, fw)
    if got == 0:
        return 0
    return town[s, i]


@njit(cache=True)
def _has_question(cfg, K, x, doms, lo, hi, hands, own, td, tl, th, town, tq, fw):
    """Position._skip's test: whether x has a legal question (1) or not (0). ``own``: the position's owners
    (the asked rows' deals are some of its deals, so a card's asked owners are some of its owners: a card no
    target may hold, or a set x holds no card of where the rule wants one, is passed without an analysis)."""
    P, S = cfg[C_P], cfg[C_S]
    targets = 0
    for y in range(P):
        if y != x and hands[y] > 0:
            targets |= 1 << y
    if targets == 0:
        return 0
    mine = 1 << x
    for s in range(K):
        for i in range(S):
            if own[s, i] & targets == 0:
                continue
            if cfg[C_LEAST] > 0:
                some = False  # x may hold a card of s (not this one, when x lacks the card asked for)
                for j in range(S):
                    if own[s, j] & mine and not (j == i and cfg[C_LACKS]):
                        some = True
                if not some:
                    continue
            dup = False  # a card of the same domain in this set gives the same answer
            for j in range(i):
                if doms[s, j] == doms[s, i]:
                    dup = True
                    break
            if dup:
                continue
            o = _asked_owners(cfg, K, s, i, x, doms, lo, hi, hands, td, tl, th, town, tq, fw)
            if o & targets:
                return 1
    return 0


@njit(cache=True)
def _after(cfg, K, doms, flag, lo, hi, hands, scores, reach, order, n_order, own, quart, td, tl, th, town, tq, fw,
           known):
    """Automatic claims, then the hand-over (kernel._after) on the child's arrays, in place. Returns (K, turn
    mask, status): status 1 a position, 2 over, -3 no deal (never after a legal move). ``own`` then holds the
    owners of the sets in play (``quart`` is scratch). ``known``: ``own`` holds them already (the child's
    analysis is known), so they are not computed again."""
    P, S = cfg[C_P], cfg[C_S]
    if K > 0:
        if known == 0:
            got = analyze_flow_ws(doms, lo, hi, K, hands, own, quart, fw)
            if got == 0:
                return K, 0, -3  # no deal left: never for a legal move
        if cfg[C_AUTO]:
            claimed_any = False
            k = 0
            while k < K:
                first = own[k, 0]
                forced = first != 0 and (first & (first - 1)) == 0
                for i in range(1, S):
                    if own[k, i] != first:
                        forced = False
                if forced:
                    K = _claim(k, _lowest(first), K, S, P, doms, flag, own, lo, hi, hands, scores, reach)
                    claimed_any = True
                else:
                    k += 1
            # A claimed set was every deal's at its seat: the deals left are those deals without it, one
            # for one, so the other sets' owners stay (moved up a row with their sets by _claim).
            if claimed_any and K > 0 and cfg[C_REUSE] == 0:
                got = analyze_flow_ws(doms, lo, hi, K, hands, own, quart, fw)
                if got == 0:
                    return K, 0, -3
    if K == 0:
        return 0, 0, 2
    chosen = _hand_over(cfg, order, n_order, hands, scores)
    if not cfg[C_FNQ]:
        skipped = 0
        for p in range(P):
            if chosen >> p & 1:
                q = p
                for k in range(P):
                    c = (p + k) % P
                    if hands[c] > 0:
                        if _has_question(cfg, K, c, doms, lo, hi, hands, own, td, tl, th, town, tq, fw):
                            q = c
                            break
                skipped |= 1 << q
        chosen = skipped
    return K, chosen, 1


@njit(cache=True)
def _emit(cfg, W, key, off, move, end, ck, osrc, ooff, omove, oend, n_out, src, seen_k, seen_o, n_seen):
    """Adds an inner edge unless the same child at the same offset was added for this position."""
    for j in range(n_seen):
        if seen_o[j] == off:
            same = True
            for w in range(W):
                if seen_k[j, w] != key[w]:
                    same = False
                    break
            if same:
                return n_out, n_seen
    for w in range(W):
        seen_k[n_seen, w] = key[w]
        ck[n_out, w] = key[w]
    seen_o[n_seen] = off
    osrc[n_out] = src
    ooff[n_out] = off
    omove[n_out] = move
    oend[n_out] = end
    return n_out + 1, n_seen + 1


@njit(cache=True)
def _emit_end(cfg, W, wmask, f, move, ck, osrc, ooff, omove, oend, n_out, src, seen_k, seen_o, n_seen):
    """Adds the rows of a ply that ends the game with the winners ``wmask`` (one per winner; none: one row
    won by nobody) unless a ply with the same winners was added for this position."""
    P = cfg[C_P]
    if cfg[C_ONLY] and wmask & (wmask - 1):
        wmask = 0
    code = -2 - wmask  # seen offsets of ends: -2 - winners (inner offsets are >= 0)
    for j in range(n_seen):
        if seen_o[j] == code:
            return n_out, n_seen
    seen_o[n_seen] = code
    for w in range(W):
        seen_k[n_seen, w] = np.uint64(0)
    n_seen += 1
    if wmask == 0:
        for w in range(W):
            ck[n_out, w] = np.uint64(0)
        osrc[n_out] = src
        ooff[n_out] = 0
        omove[n_out] = move
        oend[n_out] = -1
        return n_out + 1, n_seen
    for p in range(P):
        if wmask >> p & 1:
            for w in range(W):
                ck[n_out, w] = np.uint64(0)
            osrc[n_out] = src
            ooff[n_out] = 0
            omove[n_out] = move
            oend[n_out] = (p - f) % P
            n_out += 1
    return n_out, n_seen


@njit(cache=True)
def _child(cfg, K, doms, flag, lo, hi, hands, scores, reach, order, n_order, f, move, src,
           own, quart, td, tl, th, town, tq, fw, desc, key,
           ck, osrc, ooff, omove, oend, n_out, seen_k, seen_o, n_seen, known):
    """Plays the rest of a move whose rows are in the arrays (claims, hand-over), emits its edge. Returns
    (n_out, n_seen, status). ``known``: see :func:`_after`."""
    P = cfg[C_P]
    W = cfg[C_W]
    K2, turn, status = _after(cfg, K, doms, flag, lo, hi, hands, scores, reach, order, n_order, own, quart,
                              td, tl, th, town, tq, fw, known)
    if status < 0:
        return n_out, n_seen, status
    if status == 2:
        n_out, n_seen = _emit_end(cfg, W, _winners(cfg, scores, reach), f, move, ck, osrc, ooff, omove, oend,
                                  n_out, src, seen_k, seen_o, n_seen)
        return n_out, n_seen, 0
    cf = _lowest(turn)
    r = cf if cfg[C_ROT] else 0
    _encode(cfg, K2, own, flag, lo, hi, hands, turn, _NONE, _NONE, scores, reach, r, desc, key)
    n_out, n_seen = _emit(cfg, W, key, (cf - f) % P, move, _INNER, ck, osrc, ooff, omove, oend, n_out, src,
                          seen_k, seen_o, n_seen)
    return n_out, n_seen, 0


@njit(cache=True)
def _expand_one(cfg, words, src, ck, osrc, ooff, omove, oend, n_out, w_doms, w_flag, w_lo, w_hi, w_hands,
                w_scores, w_reach, own, quart, a_doms, a_flag, a_lo, a_hi, a_hands, a_scores, a_reach, a_own,
                a_quart, td, tl, th, town, tq, fw, desc, key, seen_k, seen_o, order, q_own):
    """One position's edges appended at n_out. Returns (n_out, owner, degree, status): status 0 done, -3 no
    deal (a damaged or foreign key; nothing of it is kept)."""
    P, S = cfg[C_P], cfg[C_S]
    N = cfg[C_N]
    start = n_out
    K, turn, asker, target = _decode(words, cfg, w_doms, w_flag, w_lo, w_hi, w_hands, w_scores, w_reach)
    got = analyze_flow_ws(w_doms, w_lo, w_hi, K, w_hands, own, quart, fw)
    if got == 0:
        return start, 0, 0, -3
    Q = N * S * P * 3
    n_seen = _ZERO
    if target >= 0:
        f = target
        owner = 0
        # the open question's card
        ps, pi = -1, -1
        for k in range(K):
            for i in range(S):
                if w_flag[k, i]:
                    ps, pi = k, i
        x, y = asker, target
        m = own[ps, pi]
        yes = (m >> y) & 1
        no = m & ~(1 << y)
        for a in range(2):
            if (a == 0 and not yes) or (a == 1 and not no):
                continue
            _child_arrays(K, S, P, w_doms, w_lo, w_hi, w_hands, w_scores, w_reach, a_doms, a_flag, a_lo, a_hi,
                          a_hands, a_scores, a_reach)
            n_order = _answer(cfg, ps, pi, x, y, a == 0, a_doms, a_lo, a_hi, a_hands, order)
            move = ((ps * S + pi) * P + y) * 3 + 1 + a
            n_out, n_seen, st = _child(cfg, K, a_doms, a_flag, a_lo, a_hi, a_hands, a_scores, a_reach, order,
                                       n_order, f, move, src, a_own, a_quart, td, tl, th, town, tq, fw, desc, key,
                                       ck, osrc, ooff, omove, oend, n_out, seen_k, seen_o, n_seen, _ZERO)
            if st < 0:
                return start, 0, 0, st
        return n_out, owner, n_seen, 0
    f = _lowest(turn)
    if turn & (turn - 1):
        # a shared turn: the free choice of who moves (nobody's: owner -1)
        for p in range(P):
            if turn >> p & 1:
                _encode(cfg, K, own, w_flag, w_lo, w_hi, w_hands, 1 << p, _NONE, _NONE, w_scores, w_reach,
                        p if cfg[C_ROT] else 0, desc, key)
                n_out, n_seen = _emit(cfg, cfg[C_W], key, (p - f) % P, Q + N + p, _INNER, ck, osrc, ooff,
                                      omove, oend, n_out, src, seen_k, seen_o, n_seen)
        return n_out, -1, n_seen, 0
    x = f
    mine = 1 << x
    D = S + 2 * P
    # declarations, one per set of an equal description (the key's order: the first of equals)
    if cfg[C_DECLARE]:
        for k in range(K):
            if not _rep(k, w_doms, w_flag, w_lo, w_hi, S, P):
                continue
            if not (quart[k] >> x) & 1:
                continue
            _child_arrays(K, S, P, w_doms, w_lo, w_hi, w_hands, w_scores, w_reach, a_doms, a_flag, a_lo, a_hi,
                          a_hands, a_scores, a_reach)
            # the set is x's: claimed (whole_set_domains, then the claim)
            K1 = _claim(k, x, K, S, P, a_doms, a_flag, a_own, a_lo, a_hi, a_hands, a_scores, a_reach)
            order[0] = x
            n_out, n_seen, st = _child(cfg, K1, a_doms, a_flag, a_lo, a_hi, a_hands, a_scores, a_reach,
                                       order, _ONE, f, Q + k, src, a_own, a_quart, td, tl, th, town, tq, fw, desc,
                                       key, ck, osrc, ooff, omove, oend, n_out, seen_k, seen_o, n_seen, _ZERO)
            if st < 0:
                return start, 0, 0, st
    if w_hands[x] == 0:
        return n_out, 0, n_seen, 0
    targets = 0
    for y in range(P):
        if y != x and w_hands[y] > 0:
            targets |= 1 << y
    if targets == 0:
        return n_out, 0, n_seen, 0
    silence = cfg[C_CAP] >= 0
    for s in range(K):
        if not _rep(s, w_doms, w_flag, w_lo, w_hi, S, P):
            continue
        holds = False
        if not silence:
            if w_lo[s, x] >= 1:
                holds = True
            for i in range(S):
                if own[s, i] == mine:
                    holds = True
        for i in range(S):
            if i > 0 and w_doms[s, i] == w_doms[s, i - 1] and w_flag[s, i] == w_flag[s, i - 1]:
                continue  # one card per class (cards are sorted in the key)
            owners = own[s, i] & ~mine
            if owners == 0:
                continue
            have_q = False  # q_own: the analysis of the asked rows (every open question on this card shares it)
            if not holds:
                owners = _asked_owners(cfg, K, s, i, x, w_doms, w_lo, w_hi, w_hands, td, tl, th, town, tq, fw)
                if owners == 0:
                    continue
                for kk in range(K):
                    for j in range(S):
                        q_own[kk, j] = town[kk, j]
                have_q = True
            card = s * S + i
            for y in range(P):
                if not (targets >> y) & 1:
                    continue
                yes = (owners >> y) & 1
                no = owners & ~(1 << y)
                if not (cfg[C_FNQ] or yes):
                    continue
                # the asked rows
                _child_arrays(K, S, P, w_doms, w_lo, w_hi, w_hands, w_scores, w_reach, a_doms, a_flag, a_lo, a_hi,
                              a_hands, a_scores, a_reach)
                _ask(cfg, K, s, i, x, a_doms, a_lo, a_hi)
                if yes and no:
                    # the question stays open: the target answers next
                    a_flag[s, i] = 1
                    if not have_q:
                        got = analyze_flow_ws(a_doms, a_lo, a_hi, K, a_hands, q_own, a_quart, fw)
                        if got == 0:
                            return start, 0, 0, -3
                        have_q = True
                    r = y if cfg[C_ROT] else 0
                    _encode(cfg, K, q_own, a_flag, a_lo, a_hi, a_hands, mine, x, y, a_scores, a_reach, r, desc,
                            key)
                    n_out, n_seen = _emit(cfg, cfg[C_W], key, (y - f) % P, (card * P + y) * 3, _INNER, ck,
                                          osrc, ooff, omove, oend, n_out, src, seen_k, seen_o, n_seen)
                    continue
                # A forced answer's child has the asked position's deals: a forced no takes from the card
                # an owner no deal of it gives the card; a forced yes moves the card, which every deal of it
                # gives to y, to x (with the transfer's bounds, one deal for one, the other cards where they
                # were). So the child's owners are the asked position's (q_own), the card's at x after a
                # yes: one analysis per card asked, whatever the number of its forced answers and open
                # questions (the asked rows are analysed here when the card's owners came from the
                # position's own analysis).
                if not have_q and cfg[C_REUSE] == 1:
                    have_q = analyze_flow_ws(a_doms, a_lo, a_hi, K, a_hands, q_own, a_quart, fw) > 0
                n_order = _answer(cfg, s, i, x, y, yes != 0, a_doms, a_lo, a_hi, a_hands, order)
                move = (card * P + y) * 3 + (1 if yes else 2)
                known = _ZERO
                if have_q and cfg[C_REUSE] == 1:
                    known = _ONE
                    for kk in range(K):
                        for j in range(S):
                            a_own[kk, j] = q_own[kk, j]
                    if yes:
                        a_own[s, i] = mine
                n_out, n_seen, st = _child(cfg, K, a_doms, a_flag, a_lo, a_hi, a_hands, a_scores, a_reach, order,
                                           n_order, f, move, src, a_own, a_quart, td, tl, th, town, tq, fw, desc,
                                           key, ck, osrc, ooff, omove, oend, n_out, seen_k, seen_o, n_seen, known)
                if st < 0:
                    return start, 0, 0, st
    return n_out, 0, n_seen, 0


@njit(cache=True)
def _rep(k, doms, flag, lo, hi, S, P):
    """Whether set k is the first of its description (the key's sets are sorted by it)."""
    if k == 0:
        return True
    for i in range(S):
        if doms[k, i] != doms[k - 1, i] or flag[k, i] != flag[k - 1, i]:
            return True
    for p in range(P):
        if lo[k, p] != lo[k - 1, p] or hi[k, p] != hi[k - 1, p]:
            return True
    return False


@njit(cache=True, nogil=True)
def expand_batch(cfg, keys, max_rows):
    """The edges of ``keys`` (n x W words): (child keys, src, off, move, end, owner, degree, status) with
    ``max_rows`` rows room a position; status per position: 0 expanded, -3 a key without a deal (no rows).
    It releases the GIL (every buffer is its
    own): calls from several threads run side by side (``QuaternityPacked.threads``)."""
    P, N, S, W = cfg[C_P], cfg[C_N], cfg[C_S], cfg[C_W]
    n = keys.shape[0]
    cap = n * max_rows
    ck = np.empty((cap, W), np.uint64)  # (every row written in full before it is returned: no fill)
    osrc = np.empty(cap, np.int64)
    ooff = np.empty(cap, np.int8)
    omove = np.empty(cap, np.int16)
    oend = np.empty(cap, np.int8)
    owner = np.empty(n, np.int8)
    degree = np.empty(n, np.int16)
    status = np.zeros(n, np.int8)
    # the scratch arrays, cut from one buffer of each type through borrowed views (see flow_nb.borrowed):
    # passing them to the helpers counts no references
    NS, NP, D = N * S, N * P, S + 2 * P + 1
    fr, fc = FLOW_ROWS, max(N * S, (N + 1) * P, 1)
    ints = np.zeros(9 * NS + 6 * NP + 3 * N + 6 * P + N * D + max_rows + 2 + fr * fc, np.int64)
    words = np.zeros(W + max_rows * W, np.uint64)
    b, u = borrowed(ints), borrowed(words)
    at = 0
    w_doms, w_flag = b[at:at + NS].reshape((N, S)), b[at + NS:at + 2 * NS].reshape((N, S))
    a_doms, a_flag = b[at + 2 * NS:at + 3 * NS].reshape((N, S)), b[at + 3 * NS:at + 4 * NS].reshape((N, S))
    td, own = b[at + 4 * NS:at + 5 * NS].reshape((N, S)), b[at + 5 * NS:at + 6 * NS].reshape((N, S))
    a_own, town = b[at + 6 * NS:at + 7 * NS].reshape((N, S)), b[at + 7 * NS:at + 8 * NS].reshape((N, S))
    q_own = b[at + 8 * NS:at + 9 * NS].reshape((N, S))
    at += 9 * NS
    w_lo, w_hi = b[at:at + NP].reshape((N, P)), b[at + NP:at + 2 * NP].reshape((N, P))
    a_lo, a_hi = b[at + 2 * NP:at + 3 * NP].reshape((N, P)), b[at + 3 * NP:at + 4 * NP].reshape((N, P))
    tl, th = b[at + 4 * NP:at + 5 * NP].reshape((N, P)), b[at + 5 * NP:at + 6 * NP].reshape((N, P))
    at += 6 * NP
    quart, a_quart, tq = b[at:at + N], b[at + N:at + 2 * N], b[at + 2 * N:at + 3 * N]
    at += 3 * N
    w_hands, w_scores, w_reach = b[at:at + P], b[at + P:at + 2 * P], b[at + 2 * P:at + 3 * P]
    a_hands, a_scores, a_reach = b[at + 3 * P:at + 4 * P], b[at + 4 * P:at + 5 * P], b[at + 5 * P:at + 6 * P]
    at += 6 * P
    desc = b[at:at + N * D].reshape((N, D))  # (its last column: _encode's order of the sets)
    at += N * D
    seen_o = b[at:at + max_rows]
    at += max_rows
    order = b[at:at + 2]
    at += 2
    fw = b[at:at + fr * fc].reshape((fr, fc))
    key = u[:W]
    seen_k = u[W:].reshape((max_rows, W))
    b_cfg, b_keys = borrowed(cfg), borrowed(keys)
    b_ck, b_osrc, b_ooff = borrowed(ck), borrowed(osrc), borrowed(ooff)
    b_omove, b_oend = borrowed(omove), borrowed(oend)
    n_out = _ZERO
    for j in range(n):
        n_out2, o, d, st = _expand_one(b_cfg, b_keys[j], j, b_ck, b_osrc, b_ooff, b_omove, b_oend, n_out, w_doms,
                                       w_flag, w_lo, w_hi, w_hands, w_scores, w_reach, own, quart, a_doms, a_flag,
                                       a_lo, a_hi, a_hands, a_scores, a_reach, a_own, a_quart, td, tl, th, town, tq,
                                       fw, desc, key, seen_k, seen_o, order, q_own)
        status[j] = st
        if st < 0:
            owner[j] = 0
            degree[j] = 0
            continue
        n_out = n_out2
        owner[j] = o
        degree[j] = d
    keep_alive(ints)
    keep_alive(words)
    return ck[:n_out], osrc[:n_out], ooff[:n_out], omove[:n_out], oend[:n_out], owner, degree, status


def _drop_stale_cache() -> None:
    """Numba's cache of this module is checked against this file only, while its compiled code holds
    :func:`.flow_nb.analyze_flow_ws`'s too: when flow_nb.py is newer than this module's cache index files, they
    are removed (numba then compiles again), so that an edited analysis is never run from a stale cache."""
    import os

    try:
        folder = getattr(expand_batch, "_cache")._cache_path
        dep = os.path.getmtime(os.path.join(os.path.dirname(__file__), "flow_nb.py"))
        for name in os.listdir(folder):
            if name.startswith("packed_nb.") and name.endswith(".nbi"):
                path = os.path.join(folder, name)
                if os.path.getmtime(path) < dep:
                    os.remove(path)
    except (AttributeError, OSError):  # numba's internals changed, or no cache: nothing to drop
        pass


_drop_stale_cache()


def cached() -> bool:
    """Whether numba's cache holds this machine's compiled code of the kernel (then its first call only loads
    it, in about a second; else it compiles, about half a minute once); False when the cache cannot be read."""
    try:
        from numba.core.registry import cpu_target

        magic = cpu_target.target_context.codegen().magic_tuple()
        index = getattr(expand_batch, "_cache")._cache_file._load_index()
        return any(key[1] == magic for key in index)
    except Exception:  # noqa: BLE001 - numba's internals changed: "not cached" (the answer only words a notice)
        return False


def max_rows(packed: "QuaternityPacked") -> int:
    """Rows a position may take at most: every question with each answer, every declaration and choice, and
    a row per winner of a ply that ends the game."""
    P, N, S = packed.players, packed.sets, packed.set_size
    return N * S * P * 2 * P + N * P + P + 8


__all__ = ["cached", "config", "expand_batch", "max_rows"]

"""Exact analysis of card-deal constraints by one maximum flow, compiled (numba): :func:`analyze_flow`.

The same question as :func:`.deals_nb.analyze` (same arguments, same outputs): over all deals of the cards
of sets ``0..K-1`` (every card at a seat of its domain, seat p holding exactly ``hands[p]`` cards and
``lo[k, p] <= (cards of set k at p) <= hi[k, p]``), the seats that hold each card in some deal and the
seats that hold all of a set in some deal. The method is the pure-Python flow engine's
(:mod:`.engines.flow`, where the network and the proofs are written out), on flat arrays:

- nodes ``(p, k)`` (number ``k*P + p``) and ``free_p`` (number ``K*P + p``); a card of set k held by a
  gives residual edges ``(a, k) -> (y, k)`` for the other seats y of its domain (card nodes contracted
  away), ``(p, k) -> free_p`` while p holds fewer than ``hi`` cards of k, ``free_p -> (p, k)`` while it
  holds more than ``lo``; a card takes one of the ``lo`` slots reserved for its set at its seat while
  there is one, else one of the seat's ``hands[p] - sum_k lo[k, p]`` free slots;
- a deal exists iff every card is placed: greedily (fewest seats first, a reserved slot before a free
  one), then by breadth-first augmenting paths;
- card c of set k held by a may be at y iff y is in its domain and ``(y, k)`` lies in the strongly
  connected component of ``(a, k)``: since edges between sets pass through free nodes only, that is decided
  on bit masks, from the free nodes' reachability (a transitive closure over P nodes) and each set's
  reachability inside it (:func:`_same`), not by a search of the whole graph;
- p may hold all of set k iff p may hold every card of k, no other seat has a lower bound on k, p's
  other reserved cards still fit, and residual cycles through ``(p, k)`` raise its count to S (each cycle
  keeps a deal; none left means the most is reached); when there are many such candidates (an open
  position: every seat for every set), swaps of single cards show most of them first (:func:`_swap_witnesses`).

Unlike the radix DP its work does not grow with the product of the hands: at most one augmenting path a
card and a few per possible quartet, each a search over ``(K + 1) * P`` nodes. It takes no state budget
(``max_states`` is accepted for the same signature and ignored: the work is bounded by the sizes).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from llvmlite import ir  # type: ignore[import-untyped]
from numba import njit
from numba.extending import intrinsic

from .deals_nb import on_lists

__all__ = ["FLOW_ROWS", "MAX_SEATS", "analyze_flow", "analyze_flow_py", "analyze_flow_ws", "borrowed", "flow_workspace",
           "keep_alive"]


def _borrowed(typingctx: object, arr: Any) -> Any:
    """In compiled code: a view of the array ``arr`` that owns nothing (its meminfo and parent null).

    numba counts the references to an array's memory atomically, and at every call of a compiled function
    that takes arrays it adds one to each and takes it away again: a ``lock``-prefixed instruction a time. On
    the packed kernel's small arrays that was about a tenth of its time (perf, 3x4x3). The count of a view
    without meminfo is a test of a null pointer, and views of it (slices, rows, reshapes) own nothing either.

    The caller keeps the owner alive while the view is used (:func:`keep_alive` after the last use) and never
    returns the view (or anything cut from it) to Python: numba would box it as an array that owns nothing."""
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        src = context.make_array(arr)(context, builder, value=args[0])
        out = context.make_array(arr)(context, builder)
        for name in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(out, name, getattr(src, name))
        out.meminfo = ir.Constant(out.meminfo.type, None)
        out.parent = ir.Constant(out.parent.type, None)
        return out._getvalue()

    return arr(arr), codegen


#: :func:`_borrowed` as numba's intrinsic (called from compiled code only)
borrowed: Any = intrinsic(_borrowed)


@njit(cache=True)
def keep_alive(arr: np.ndarray) -> None:
    """A use of ``arr``: called after the last use of its :func:`borrowed` views, it keeps ``arr`` (and the
    memory they show) alive until then (numba releases an array after its last use)."""


@njit(cache=True, inline="always")
def _move(j: int, v: int, P: int, S: int, dom: np.ndarray, lo: np.ndarray, owner: np.ndarray,
          count: np.ndarray, reach: np.ndarray) -> None:
    """Card j goes to node v (a node of its set), from the node of its set it was at (if any)."""
    x = owner[j]
    base = v - v % P
    first = (v // P) * S
    if x >= 0:
        u = base + x
        count[u] -= 1
        r = 0
        for i in range(first, first + S):
            if i != j and owner[i] == x:
                r |= dom[i]
        reach[u] = r
    owner[j] = v % P
    count[v] += 1
    reach[v] |= dom[j]


@njit(cache=True, inline="always")
def _arrive(w: int, y: int, exits: int, NP: int, lo: np.ndarray, hi: np.ndarray, count: np.ndarray,
            mark: np.ndarray, prev: np.ndarray, stamp: int) -> int:
    """Where a path that has just found node w = (y, k) ends: at w when it has a free reserved slot, at free_y
    when y is an exit and w may take one more card (free_y then found from w), else nowhere (-1)."""
    if count[w] < lo[w]:
        return w
    if (exits >> y) & 1 and count[w] < hi[w] and mark[NP + y] != stamp:
        mark[NP + y] = stamp
        prev[NP + y] = w
        return NP + y
    return -1


@njit(cache=True)
def _search(starts: np.ndarray, n_starts: int, exits: int, exclude: int, K: int, P: int, lo: np.ndarray,
            hi: np.ndarray, count: np.ndarray, reach: np.ndarray, mark: np.ndarray, prev: np.ndarray,
            queue: np.ndarray, stamp: int) -> int:
    """Breadth-first search of the residual graph from ``starts[:n_starts]``; the node where a path ends, or -1.

    A path ends at a node (p, k) with a free reserved slot, or at ``free_p`` for a seat p in ``exits``
    (entered from a node (p, k) that may take one more card); it never enters ``exclude``. ``prev`` gives
    the path back (-1 at its start); ``mark`` entries equal to ``stamp`` are the nodes seen."""
    NP = K * P
    if exclude >= 0:
        mark[exclude] = stamp
    head = 0
    tail = 0
    for s in range(n_starts):
        w = int(starts[s])
        if mark[w] == stamp:
            continue
        mark[w] = stamp
        prev[w] = -1
        if w < NP:
            end = _arrive(w, w % P, exits, NP, lo, hi, count, mark, prev, stamp)
            if end >= 0:
                return end
        queue[tail] = w
        tail += 1
    while head < tail:
        v = int(queue[head])
        head += 1
        if v >= NP:  # free_x -> (x, t) while x holds more than lo of t
            x = v - NP
            for t in range(K):
                w = t * P + x
                if count[w] > lo[w] and mark[w] != stamp:
                    mark[w] = stamp
                    prev[w] = v
                    queue[tail] = w
                    tail += 1
            continue
        x = v % P
        if count[v] < hi[v]:  # free_x is no exit (else v would have ended the path when found)
            f = NP + x
            if mark[f] != stamp:
                mark[f] = stamp
                prev[f] = v
                queue[tail] = f
                tail += 1
        base = v - x
        m = reach[v]
        for y in range(P):
            if not (m >> y) & 1:
                continue
            w = base + y
            if mark[w] == stamp:
                continue
            mark[w] = stamp
            prev[w] = v
            end = _arrive(w, y, exits, NP, lo, hi, count, mark, prev, stamp)
            if end >= 0:
                return end
            queue[tail] = w
            tail += 1
    return -1


@njit(cache=True)
def _shift(end: int, card: int, NP: int, P: int, S: int, dom: np.ndarray, lo: np.ndarray, owner: np.ndarray,
           count: np.ndarray, reach: np.ndarray, prev: np.ndarray) -> None:
    """Move the cards along the path :func:`_search` found, ending at ``end``: an edge (x, k) -> (y, k) moves
    a card of k from x to y that y may hold; ``card`` enters the path's first node when that is a node (p, k)."""
    v = end
    while v >= 0:
        u = prev[v]
        if v < NP and u < NP:
            j = card
            if u >= 0:
                x = u % P
                y = v % P
                j = (v // P) * S
                while owner[j] != x or not (dom[j] >> y) & 1:
                    j += 1
            _move(j, v, P, S, dom, lo, owner, count, reach)
        v = u


#: the index of a 32-bit word's only bit b, at ((2^b * _DEBRUIJN) mod 2^32) >> 27 (a de Bruijn sequence)
_DEBRUIJN = 0x077CB531
_LOWEST = np.zeros(32, np.int64)
for _i in range(32):
    _LOWEST[(((1 << _i) * _DEBRUIJN) & 0xFFFFFFFF) >> 27] = _i


@njit(cache=True, inline="always")
def _bit(low: int) -> int:
    """The index of the only bit of ``low`` (below 2^32)."""
    return int(_LOWEST[((low * _DEBRUIJN) & 0xFFFFFFFF) >> 27])


@njit(cache=True, inline="always")
def _fw(base: int, m: int, held: int, reach: np.ndarray) -> int:
    """Seats whose nodes of one set are reached inside it from those of ``m`` (only nodes holding a card,
    ``held``, have edges inside a set)."""
    seen = m
    frontier = m & held
    while frontier:
        new = 0
        while frontier:
            low = frontier & -frontier
            frontier ^= low
            new |= reach[base + _bit(low)]
        new &= ~seen
        seen |= new
        frontier = new & held
    return seen


@njit(cache=True, inline="always")
def _bw(base: int, m: int, held: int, reach: np.ndarray) -> int:
    """Seats whose nodes of one set reach, inside it, those of ``m``."""
    seen = m
    grown = True
    while grown:
        grown = False
        c = held & ~seen
        while c:
            low = c & -c
            c ^= low
            if reach[base + _bit(low)] & seen:
                seen |= low
                grown = True
    return seen


@njit(cache=True)
def _same(K: int, P: int, lo: np.ndarray, hi: np.ndarray, count: np.ndarray, reach: np.ndarray, same: np.ndarray,
          rows: np.ndarray) -> None:
    """Per node (x, k) holding a card, ``same[k*P + x]``: the seats y of ``reach[k*P + x]`` whose node (y, k)
    shares its strongly connected component in the residual graph (``rows``: seven rows of scratch).

    Edges between sets pass through free nodes only. So, with ``fr[a]`` the free nodes free_a reaches (a
    path free_a -> (a, t) ~> (b, t) -> free_b inside one set t is an edge free_a -> free_b; their transitive
    closure) and, inside set k, ``fw(y)`` the seats whose nodes (y, k) reaches and ``bw(x)`` those reaching
    (x, k): for y in reach[x] (an edge (x, k) -> (y, k)), (y, k) is in the component of (x, k) iff it
    reaches (x, k): inside the set (x in fw(y)), or through free nodes (a free node that (y, k) reaches,
    through some b in fw(y) that leaves to free_b, reaches one that enters the set at a seat of bw(x))."""
    fr = rows[0]
    frb = rows[1]
    fwk = rows[2]
    outf = rows[3]
    enter = rows[4]
    leave = rows[5]
    helds = rows[6]
    for a in range(P):
        fr[a] = 1 << a
        frb[a] = 0
    for k in range(K):
        e = 0
        lv = 0
        h = 0
        base = k * P
        for x in range(P):
            v = base + x
            c = count[v]
            if c > lo[v]:
                e |= 1 << x
            if c < hi[v]:
                lv |= 1 << x
            if c > 0:
                h |= 1 << x
        enter[k] = e
        leave[k] = lv
        helds[k] = h
        while e:
            low = e & -e
            e ^= low
            fr[_bit(low)] |= _fw(base, low, h, reach) & lv
    for b in range(P):  # Warshall: the transitive closure
        fb = fr[b]
        bit = 1 << b
        for a in range(P):
            if fr[a] & bit:
                fr[a] |= fb
    for a in range(P):
        m = fr[a]
        bit = 1 << a
        while m:
            low = m & -m
            m ^= low
            frb[_bit(low)] |= bit
    for k in range(K):
        base = k * P
        h = helds[k]
        targets = 0
        m = h
        while m:
            low = m & -m
            m ^= low
            targets |= reach[base + _bit(low)]
        lv = leave[k]
        while targets:
            low = targets & -targets
            targets ^= low
            y = _bit(low)
            f = _fw(base, low, h, reach)
            fwk[y] = f
            o = 0
            m = f & lv
            while m:
                lb = m & -m
                m ^= lb
                o |= fr[_bit(lb)]
            outf[y] = o
        e = enter[k]
        m = h
        while m:
            low = m & -m
            m ^= low
            x = _bit(low)
            v = base + x
            b = _bw(base, low, h, reach) & e
            inf = 0
            while b:
                lb = b & -b
                b ^= lb
                inf |= frb[_bit(lb)]
            r = reach[v] & ~low
            sm = low
            while r:
                lb = r & -r
                r ^= lb
                y = _bit(lb)
                if fwk[y] & low or outf[y] & inf:
                    sm |= lb
            same[v] = sm


@njit(cache=True)
def _swap_witnesses(K: int, P: int, S: int, full: int, dom: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                    owner: np.ndarray, count: np.ndarray, cand: np.ndarray, n_cand: int, quartet: np.ndarray,
                    rows: np.ndarray) -> None:
    """The candidates ``cand[:n_cand]`` (nodes (p, k)) that the deal with some disjoint swaps shows: each card
    of k held by a != p swapped with a card of p of another set t that a may hold, keeping (a, t) <= hi and
    (p, t) >= lo. Swaps keep every hand, so the result is a deal in which p holds all of k (a candidate's k
    has no lower bound at other seats and hi = S at p); in particular p's "universal" cards of other sets
    (any seat may hold the card, p holds more than lo of its set, the others fewer than hi), one a set, are
    enough when there are as many as the cards of k that p lacks. Each one shown gets its quartet bit and its entry
    set to -1; the others are left to the exact cycle search (the flow engine's ``_swap_witnesses``; cheap
    and sound, it settles most candidates of an open position at once). ``rows``: five rows of scratch."""
    roomy = rows[0]  # per set: -1 when every seat may take one more card of it, the one seat that may not, or -2
    n_univ = rows[1]  # per seat: its "universal" sets (up to S + 1)
    delta = rows[2]
    taken = rows[3]
    C = K * S
    for t in range(K):
        r = -1
        base = t * P
        for x in range(P):
            if count[base + x] >= hi[base + x]:
                r = x if r == -1 else -2
        roomy[t] = r
    # per seat p, cards of distinct sets t that p can give to any seat (counted up to S + 1)
    for p in range(P):
        n = 0
        last = -1
        for i in range(C):  # a set's cards are consecutive
            if owner[i] != p:
                continue
            t = i // S
            if t != last and dom[i] == full and (roomy[t] == -1 or roomy[t] == p) and count[t * P + p] > lo[t * P + p]:
                last = t
                n += 1
                if n > S:
                    break
        n_univ[p] = n
    for v in range(K * P):
        delta[v] = 0
    for i in range(C):
        taken[i] = 0
    stamp = 0
    for c in range(n_cand):
        target = cand[c]
        k = target // P
        p = target - k * P
        first = k * S
        n = n_univ[p]
        if n <= S and (roomy[k] == -1 or roomy[k] == p) and count[target] > lo[target]:
            for i in range(first, first + S):  # is k one of them? (then it does not count)
                if owner[i] == p and dom[i] == full:
                    n -= 1
                    break
        if n >= S - count[target]:  # a universal card of another set for each card of k to take
            quartet[k] |= 1 << p
            cand[c] = -1
            continue
        stamp += 1
        ok = True
        touched = 0
        for j in range(first, first + S):
            a = owner[j]
            if a == p:
                continue
            got = False
            for i in range(C):
                if owner[i] != p or taken[i] == stamp or not (dom[i] >> a) & 1:
                    continue
                t = i // S
                if t == k:
                    continue
                va = t * P + a
                vp = t * P + p
                if count[va] + delta[va] >= hi[va] or count[vp] + delta[vp] <= lo[vp]:
                    continue
                taken[i] = stamp
                delta[va] += 1
                delta[vp] -= 1
                rows[4, touched] = va
                rows[4, touched + 1] = vp
                touched += 2
                got = True
                break
            if not got:
                ok = False
                break
        for z in range(touched):
            delta[rows[4, z]] = 0
        if ok:
            quartet[k] |= 1 << p
            cand[c] = -1


#: the most seats (a seat's bit is found by a 32-bit de Bruijn table)
MAX_SEATS = 31

#: rows of :func:`flow_workspace`'s array
FLOW_ROWS = 23


@njit(cache=True)
def flow_workspace(K: int, S: int, P: int) -> np.ndarray:
    """A workspace for :func:`analyze_flow_ws` on up to K sets of S cards among P seats (reusable: every call
    sets what it reads)."""
    return np.empty((FLOW_ROWS, max(K * S, (K + 1) * P, 1)), np.int64)


@njit(cache=True)
def analyze_flow(doms: np.ndarray, lo: np.ndarray, hi: np.ndarray, K: int, hands: np.ndarray, owners: np.ndarray,
                 quartet: np.ndarray, max_states: int) -> int:
    """The exact analysis of the deals of sets ``0..K-1`` by one maximum flow (see the module docstring).

    Arguments and outputs as :func:`.deals_nb.analyze`'s: ``doms[k, i]`` (a mask; seats from P on ignored),
    ``lo[k, p]``, ``hi[k, p]``, ``hands[p]`` (P = hands.shape[0], at most :data:`MAX_SEATS`; S =
    doms.shape[1]; rows from K on ignored); writes ``owners[k, i]`` and ``quartet[k]`` (their rows from K on
    untouched). Returns 1 (a deal exists) or 0 (none: the outputs' first K rows are zero); never -1
    (``max_states`` is not used)."""
    ws = flow_workspace(K, doms.shape[1], hands.shape[0])
    got = analyze_flow_ws(doms, lo, hi, K, hands, owners, quartet, borrowed(ws))
    keep_alive(ws)
    return got


@njit(cache=True)
def analyze_flow_ws(doms: np.ndarray, lo: np.ndarray, hi: np.ndarray, K: int, hands: np.ndarray,
                    owners: np.ndarray, quartet: np.ndarray, ws: np.ndarray) -> int:
    """:func:`analyze_flow` in the workspace ``ws`` (from :func:`flow_workspace` for at least K sets of these
    S cards among these P seats): no allocation."""
    S = doms.shape[1]
    P = hands.shape[0]
    for k in range(K):
        quartet[k] = 0
        for i in range(S):
            owners[k, i] = 0
    total = 0
    for p in range(P):
        if hands[p] < 0:
            return 0
        total += hands[p]
    if total != K * S:
        return 0
    if K == 0:
        return 1
    full = (1 << P) - 1
    NP = K * P
    N = NP + P
    C = K * S
    dom = ws[0]
    pcs = ws[1]
    order = ws[2]
    left = ws[3]
    owner = ws[4]
    nlo = ws[5]
    nhi = ws[6]
    count = ws[7]
    reach = ws[8]
    room = ws[9]
    used = ws[10]
    starts = ws[11]
    mark = ws[12]
    prev = ws[13]
    queue = ws[14]
    scratch = ws[15:22]
    same = ws[22]
    for p in range(P + 1):
        pcs[p] = 0  # the number of cards with p seats (then the first place of their bucket)
    for k in range(K):
        for i in range(S):
            d = doms[k, i] & full
            if d == 0:
                return 0
            dom[k * S + i] = d
            n = 0
            while d:
                d &= d - 1
                n += 1
            pcs[n] += 1
    at = 0
    for n in range(P + 1):
        c = pcs[n]
        pcs[n] = at
        at += c
    for j in range(C):  # the cards, fewest seats first (in order within a bucket)
        d = dom[j]
        n = 0
        while d:
            d &= d - 1
            n += 1
        order[pcs[n]] = j
        pcs[n] += 1
    for p in range(P):
        room[p] = hands[p]
        used[p] = 0
    for k in range(K):
        for p in range(P):
            a = lo[k, p]
            b = hi[k, p]
            if a < 0 or b < 0 or a > b or a > S:
                return 0
            v = k * P + p
            nlo[v] = a
            nhi[v] = b if b < S else S
            room[p] -= a
    for p in range(P):
        if room[p] < 0:
            return 0
    for j in range(C):
        owner[j] = -1
    for v in range(NP):
        count[v] = 0
        reach[v] = 0
    for v in range(N):
        mark[v] = 0
    stamp = 0
    # greedy: fewest seats first, a reserved slot before a free one
    n_left = 0
    for at in range(C):
        i = order[at]
        d = dom[i]
        base = (i // S) * P
        put = -1
        for p in range(P):
            if (d >> p) & 1 and count[base + p] < nlo[base + p]:
                put = p
                break
        if put < 0:
            for p in range(P):
                if (d >> p) & 1 and count[base + p] < nhi[base + p] and used[p] < room[p]:
                    used[p] += 1
                    put = p
                    break
        if put < 0:
            left[n_left] = i
            n_left += 1
            continue
        owner[i] = put
        count[base + put] += 1
        reach[base + put] |= d
    # augmenting paths for the cards left
    for at in range(n_left):
        i = left[at]
        base = (i // S) * P
        exits = 0
        for p in range(P):
            if used[p] < room[p]:
                exits |= 1 << p
        n = 0
        d = dom[i]
        for p in range(P):
            if (d >> p) & 1:
                starts[n] = base + p
                n += 1
        stamp += 1
        end = _search(starts, n, exits, -1, K, P, nlo, nhi, count, reach, mark, prev, queue, stamp)
        if end < 0:  # no path for this card now means none later: no flow places every card
            return 0
        if end >= NP:
            used[end - NP] += 1
        _shift(end, i, NP, P, S, dom, nlo, owner, count, reach, prev)
    # possible owners: a card held at (a, k) may go to y of its domain iff (y, k) is in the component of (a, k)
    _same(K, P, nlo, nhi, count, reach, same, scratch)
    for k in range(K):
        for i in range(S):
            j = k * S + i
            owners[k, i] = dom[j] & same[k * P + owner[j]]
    # possible quartets: the candidates (p may hold every card of k, nobody else needs one, p's other reserved
    # cards still fit), those that swaps of single cards show, then residual cycles raising the count of (p, k) to S
    cand = scratch[0]
    n_cand = 0
    for k in range(K):
        common = full
        for i in range(S):
            common &= owners[k, i]
        if common == 0:
            continue
        base = k * P
        reserved = 0
        for p in range(P):
            reserved += nlo[base + p]
        for p in range(P):
            if (common >> p) & 1:
                target = base + p
                if nhi[target] == S and reserved == nlo[target] and S - nlo[target] <= room[p]:
                    cand[n_cand] = target
                    n_cand += 1
    if n_cand > 8:
        _swap_witnesses(K, P, S, full, dom, nlo, nhi, owner, count, cand, n_cand, quartet, scratch[1:6])
    for c in range(n_cand):
        target = cand[c]
        if target < 0:
            continue  # shown by swaps
        k = target // P
        p = target - k * P
        base = k * P
        first = k * S
        ok = True
        while count[target] < S:
            holders = 0
            for j in range(first, first + S):
                holders |= 1 << owner[j]
            holders &= ~(1 << p)
            starts[0] = NP + p
            stamp += 1
            end = _search(starts, 1, holders, target, K, P, nlo, nhi, count, reach, mark, prev, queue, stamp)
            if end < 0:
                ok = False
                break
            a = end - NP
            prev[base + a] = end
            j = first
            while owner[j] != a:
                j += 1
            _move(j, target, P, S, dom, nlo, owner, count, reach)
            _shift(base + a, -1, NP, P, S, dom, nlo, owner, count, reach, prev)
        if ok:
            quartet[k] |= 1 << p
    return 1


def analyze_flow_py(doms: Sequence[Sequence[int]], lo: Sequence[Sequence[int]], hi: Sequence[Sequence[int]],
                    hands: Sequence[int]) -> tuple[list[list[int]], list[int]] | None:
    """:func:`analyze_flow` on plain lists (as :func:`.deals_nb.analyze_py`): None when no deal exists, else
    (owners[k][i], quartet[k]).

    >>> analyze_flow_py([[0b11, 0b01]], [[0, 0]], [[2, 2]], [1, 1])
    ([[2, 1]], [0])
    >>> analyze_flow_py([[0b01, 0b01]], [[0, 0]], [[2, 2]], [1, 1]) is None
    True
    """
    P = len(hands)
    if P > MAX_SEATS:
        raise ValueError(f"the flow analysis takes at most {MAX_SEATS} seats, not {P}")
    return on_lists(analyze_flow, doms, lo, hi, hands, 0)[1]

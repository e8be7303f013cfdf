"""Exact analysis of card-deal constraints, compiled (numba): who may hold each card, who may hold each whole set.

The packed kernel (:mod:`.packed_nb`) analyses with :mod:`.flow_nb` since commit ef5e358 (one maximum flow: faster at
every size measured, and its work does not grow with the product of the hands); this radix DP, a method independent
of it, is the flow's cross-check (``tests/test_flow_nb.py``, ``benchmarks/deal_analysis.py``).

A *deal* places every card of the K sets in play (S cards each) with one seat of its domain (a mask of
seats), so that seat p holds exactly ``hands[p]`` cards and ``lo[k, p] <= (cards of set k at p) <= hi[k, p]``.
:func:`analyze` finds, over all deals, the seats that hold each card in some deal and the seats that hold
all of a set in some deal: exactly what enumerating every deal gives (the tests check it against that and
against :class:`~quaternity_cp.quartets.engines.sets.SetsEngine`).

The algorithm (the sets engine's, on machine words): a set meets the others only through the hands, so

- per set, its *count vectors* (cards per seat) come from placing its cards one by one within their
  domains (those of one domain in increasing seat order), each seat at most ``min(hi, hand, S)``, kept
  when ``>= lo``; the same pass records, per vector, which (domain, seat) pairs its placements use; sets
  with the same description share their vectors and their answers;
- a vector is a state of a mixed radix (digit base ``hand + 1``) over every seat but one with the
  largest hand (its count follows from the number of cards); the low digits (up to 64 states) are the
  bits of a word, the high ones index words, so that adding a vector is a masked shift per word;
- ``F_k`` (the sums of one vector per set ``0..k-1``) is built forward, ``B_k`` (the states from which
  sets ``k..K-1`` reach the hands) backward, over the words of a box of high digits (each between what
  the sets before can reach and what the sets after can still add);
- a deal exists iff ``F_K`` holds the hands; a vector ``v`` of set k is in some deal iff some ``a`` in
  ``F_k`` has ``a + v`` in ``B_{k+1}``; a card may be at seat p iff such a vector has a placement with
  a card of its domain at p (equal domains have equal owners); seat p may hold the whole set iff
  ``S e_p`` is such a vector.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from numba import njit

from ..errors import QuaternityError

__all__ = ["DEFAULT_MAX_STATES", "StateBudgetExceeded", "analyze", "analyze_py", "on_lists"]

#: the default state budget of :func:`analyze_py`
DEFAULT_MAX_STATES = 1 << 20

# The rows of the integer workspace (one 2-d array: no views, no reference counts in the loops). The rows
# from R_VMIN on depend on K and S and are computed in analyze.
R_ORDER = 0  # per digit: its seat (entry D: the seat without a digit)
R_HD = 1  # per digit: its seat's hand
R_W = 2  # per seat: its digit's weight (0: the seat without a digit)
R_WW = 3  # per high digit: its weight in words
R_CAPS = 4  # per seat: the most cards of the set at hand it may hold
R_DIG = 5  # scratch digits
R_RLO = 6  # a vector's box of high digits
R_RHI = 7
R_MISC = 8  # entry 0: the DP's current mark
R_NV = 9  # per set: its vectors
R_NG = 10  # ... its groups of vectors
R_NDS = 11  # ... its distinct domains
R_DVALS = 12  # the distinct domains of a set
R_OWN = 13  # per distinct domain of a set: its owners so far
R_BC = 14  # the DP's two layers: codes (rows 14, 15)
R_BP = 16  # ... counts packed 4 bits a seat (rows 16, 17)
R_BV = 18  # ... (domain index, seat) pairs of their placements (rows 18, 19)
R_BL = 20  # ... the least seat the next card of the current domain may take (rows 20, 21)
R_ROOT = 22  # per set: the first set with its description (domains as a multiset, bounds), itself if none
R_ANS = 23  # per such first set: the set whose owners were found (-1: none yet)
R_VMIN = 24  # K rows: per set and digit the least count of its vectors


class StateBudgetExceeded(QuaternityError, ValueError):
    """:func:`analyze_py`: the analysis would pass its ``max_states`` (``analyze`` returned -1)."""


@njit(cache=True, inline="always")
def _reach(doms: np.ndarray, k: int, skip: int, S: int, P: int, mask: int, iw: np.ndarray, r_dix: int, nd: int,
           track: bool, big: np.ndarray, N: int, max_states: int) -> tuple[int, int]:
    """The count vectors of set k's cards but card ``skip`` (-1: none) placed within their domains, seat p at
    most ``iw[R_CAPS, p]``: returns (how many, the layer r holding them), (-1, 0) when a layer has more than
    ``max_states``. ``iw[R_BC + r]``: their codes (weights ``iw[R_W]``), ``iw[R_BP + r]``: their counts packed
    4 bits a seat; with ``track``, ``iw[R_BV + r]``: per vector the bits ``f * P + p`` of every (domain index
    f = ``iw[r_dix + k, i]`` of a card i, seat p) some placement reaching the vector uses (the union over its
    ways in). The cards go by domain (``nd`` of them), those of one domain to seats in increasing order
    (one placement per multiset; a vector reached twice keeps the least seat, which allows the most).
    ``big[:N]`` (over the codes) and ``iw[R_MISC, 0]`` (its current mark) dedupe a layer, ``big[N:2N]``
    holds a code's place: within a layer a code is one vector (the count of the seat without a digit
    follows from the cards placed)."""
    src = 0
    iw[R_BC, 0] = 0
    iw[R_BP, 0] = 0
    iw[R_BV, 0] = 0
    n = 1
    for f in range(nd):
        cnt = 0
        d = 0
        for i in range(S):
            if iw[r_dix + k, i] == f and i != skip:
                cnt += 1
                d = doms[k, i] & mask
        base = f * P if track else 0
        for j in range(n):
            iw[R_BL + src, j] = 0
        for _ in range(cnt):
            dst = 1 - src
            mark = iw[R_MISC, 0] + 1
            iw[R_MISC, 0] = mark
            m = 0
            for j in range(n):
                code = iw[R_BC + src, j]
                pk = iw[R_BP + src, j]
                val = iw[R_BV + src, j]
                for p in range(iw[R_BL + src, j], P):
                    if (d >> p) & 1 and ((pk >> (4 * p)) & 15) < iw[R_CAPS, p]:
                        nc = code + iw[R_W, p]
                        if big[nc] != mark:
                            if m >= max_states:
                                return -1, 0
                            big[nc] = mark
                            big[N + nc] = m
                            iw[R_BC + dst, m] = nc
                            iw[R_BP + dst, m] = pk + (1 << (4 * p))
                            iw[R_BV + dst, m] = val | (1 << (base + p)) if track else 0
                            iw[R_BL + dst, m] = p
                            m += 1
                        else:
                            q = big[N + nc]
                            if track:
                                iw[R_BV + dst, q] |= val | (1 << (base + p))
                            if p < iw[R_BL + dst, q]:
                                iw[R_BL + dst, q] = p
            n = m
            src = dst
            if n == 0:
                return 0, src
    return n, src


@njit(cache=True, inline="always")
def _runs(k: int, pk: int, iw: np.ndarray, r_blo: int, r_bhi: int, L: int, D: int, NW: int, big: np.ndarray,
          at: int) -> tuple[int, int]:
    """The words ``a`` (states by their high digits ``L..D-1``) in box k with ``a + v`` in box k+1, for the
    vectors of set k whose high digits are those of ``pk`` (packed counts), as contiguous runs: returns
    (runs, length), the runs' first words in ``big[at:]``; (0, 0) when there is none."""
    for i in range(L, D):
        v = (pk >> (4 * iw[R_ORDER, i])) & 15
        a = iw[r_blo + k, i]
        b = iw[r_blo + k + 1, i] - v
        if b > a:
            a = b
        c = iw[r_bhi + k, i]
        e = iw[r_bhi + k + 1, i] - v
        if e < c:
            c = e
        if a > c:
            return 0, 0
        iw[R_RLO, i] = a
        iw[R_RHI, i] = c
    # the lowest high digit whose range is not full: a run covers the digits below it whole, and its range
    r = L
    while r < D and iw[R_RLO, r] == 0 and iw[R_RHI, r] == iw[R_HD, r]:
        r += 1
    if r == D:
        big[at] = 0
        return 1, NW
    length = (iw[R_RHI, r] - iw[R_RLO, r] + 1) * iw[R_WW, r]
    base = iw[R_RLO, r] * iw[R_WW, r]
    for i in range(r + 1, D):
        iw[R_DIG, i] = iw[R_RLO, i]
        base += iw[R_RLO, i] * iw[R_WW, i]
    nr = 0
    while True:
        big[at + nr] = base
        nr += 1
        i = r + 1
        while i < D:
            if iw[R_DIG, i] < iw[R_RHI, i]:
                iw[R_DIG, i] += 1
                base += iw[R_WW, i]
                break
            base -= (iw[R_DIG, i] - iw[R_RLO, i]) * iw[R_WW, i]
            iw[R_DIG, i] = iw[R_RLO, i]
            i += 1
        if i >= D:
            return nr, length


@njit(cache=True, inline="always")
def _caps(k: int, P: int, S: int, hi: np.ndarray, hands: np.ndarray, iw: np.ndarray) -> None:
    """``iw[R_CAPS, p]``: the most cards of set k seat p may hold (its bound, its hand, the set)."""
    for p in range(P):
        c = hi[k, p]
        if hands[p] < c:
            c = hands[p]
        if S < c:
            c = S
        iw[R_CAPS, p] = c


@njit(cache=True)
def analyze(doms: np.ndarray, lo: np.ndarray, hi: np.ndarray, K: int, hands: np.ndarray, owners: np.ndarray,
            quartet: np.ndarray, max_states: int) -> int:
    """The exact analysis of the deals of sets ``0..K-1`` (see the module docstring).

    ``doms[k, i]``: seats (mask) that may hold card i of set k; ``lo[k, p]``, ``hi[k, p]``: bounds on the
    cards of set k at seat p; ``hands[p]``: cards of seat p (S = doms.shape[1], P = hands.shape[0]; rows
    from K on are ignored, seats from P on in a domain too). Writes ``owners[k, i]`` (seats holding the card
    in some deal) and ``quartet[k]`` (seats holding all of set k in some deal). Returns 1 (a deal exists),
    0 (none: the outputs' first K rows are zero) or -1 (the radix states, the product of ``hand + 1`` over
    the seats but one with the largest hand, or the count vectors of one set would pass ``max_states``;
    the outputs are then unspecified).
    """
    S = doms.shape[1]
    P = hands.shape[0]
    for k in range(K):
        quartet[k] = 0
        for i in range(S):
            owners[k, i] = 0
    total = 0
    last = 0  # the seat without a digit: one with the largest hand
    for p in range(P):
        if hands[p] < 0:
            return 0
        total += hands[p]
        if hands[p] > hands[last]:
            last = p
    if total != K * S:
        return 0
    for k in range(K):
        for p in range(P):
            if lo[k, p] < 0 or hi[k, p] < 0:
                return 0
    if K == 0:
        return 1
    D = P - 1
    # the radix: the product of hand + 1 over the digits (decided before anything is allocated)
    N = 1
    for p in range(P):
        if p != last:
            if hands[p] + 1 > max_states // N:
                return -1
            N *= hands[p] + 1
    # a set's vectors (of one layer) have distinct codes: at most N, and at most C(S+P-1, P-1)
    cap = 1
    for j in range(1, P):
        cap = cap * (S + j) // j
        if cap >= N:
            break
    if cap > N:
        cap = N
    # the integer workspace: the fixed rows (R_*), then per set K rows of each of these
    r_vmax = R_VMIN + K  # per set and digit: the most count of its vectors
    r_blo = r_vmax + K  # K + 1 rows: box k, the digits a state after sets 0..k-1 may have
    r_bhi = r_blo + K + 1
    r_vc = r_bhi + K + 1  # per set: its vectors' codes
    r_vp = r_vc + K  # ... their counts, packed 4 bits a seat
    r_vh = r_vp + K  # ... the words they add (the code of their high digits)
    r_vv = r_vh + K  # ... the (domain index, seat) pairs of their placements
    r_gch = r_vv + K  # ... per group of vectors (equal high digits): the words they add
    r_gbeg = r_gch + K  # ... group g: vectors gbeg[g]..gbeg[g+1]-1
    r_dix = r_gbeg + K  # ... per card: its domain's index in the set
    r_adm = r_dix + K  # S rows: per domain index and vector, the seats a card of it may have there
    width = max(cap + 1, P, S, K + 1)
    iw = np.empty((r_adm + S, width), np.int64)
    big = np.zeros(2 * N + N // 2 + 1, np.int64)  # the DP's marks and places, then a box's runs
    at_runs = 2 * N
    iw[R_MISC, 0] = 0
    # the digits: the seats but the last by increasing hand (the low ones fill a word's bits)
    n = 0
    for p in range(P):
        iw[R_W, p] = 0
        if p == last:
            continue
        i = n
        while i > 0 and hands[iw[R_ORDER, i - 1]] > hands[p]:
            iw[R_ORDER, i] = iw[R_ORDER, i - 1]
            i -= 1
        iw[R_ORDER, i] = p
        n += 1
    iw[R_ORDER, D] = last
    L = 0
    LW = 1  # the states of the low digits (the bits of a word used)
    M = 1
    for i in range(D):
        p = iw[R_ORDER, i]
        iw[R_HD, i] = hands[p]
        iw[R_W, p] = M
        M *= hands[p] + 1
        if M <= 64:
            L = i + 1
            LW = M
    NW = N // LW
    for i in range(L, D):
        iw[R_WW, i] = iw[R_W, iw[R_ORDER, i]] // LW
    mask = (1 << P) - 1
    # per set: its distinct domains, its vectors (with the pairs their placements use), kept when within lo
    for k in range(K):
        nd = 0
        for i in range(S):
            d = doms[k, i] & mask
            f = -1
            for t in range(nd):
                if iw[R_DVALS, t] == d:
                    f = t
                    break
            if f < 0:
                f = nd
                iw[R_DVALS, nd] = d
                nd += 1
            iw[r_dix + k, i] = f
        iw[R_NDS, k] = nd
        # an earlier set with the same description has the same vectors (and, below, the same owners)
        root = k
        for j in range(k):
            if iw[R_ROOT, j] != j or iw[R_NDS, j] != nd:
                continue
            same = True
            for p in range(P):
                if lo[j, p] != lo[k, p] or hi[j, p] != hi[k, p]:
                    same = False
                    break
            t = 0
            while same and t < nd:
                c = 0
                for i in range(S):
                    if iw[r_dix + k, i] == t:
                        c -= 1
                        d = doms[k, i] & mask
                for i in range(S):
                    if doms[j, i] & mask == d:
                        c += 1
                same = c == 0
                t += 1
            if same:
                root = j
                break
        iw[R_ROOT, k] = root
        iw[R_ANS, k] = -1
        if root != k:
            for i in range(S):  # the domain indices of the first set
                d = doms[k, i] & mask
                i2 = 0
                while doms[root, i2] & mask != d:
                    i2 += 1
                iw[r_dix + k, i] = iw[r_dix + root, i2]
            iw[R_NV, k] = iw[R_NV, root]
            for i in range(D):
                iw[R_VMIN + k, i] = iw[R_VMIN + root, i]
                iw[r_vmax + k, i] = iw[r_vmax + root, i]
            continue  # its vectors are copied once sorted (below)
        else:
            _caps(k, P, S, hi, hands, iw)
            for p in range(P):
                if lo[k, p] > iw[R_CAPS, p]:
                    return 0
            n, r = _reach(doms, k, -1, S, P, mask, iw, r_dix, nd, nd * P <= 63, big, N, max_states)
            if n < 0:
                return -1
            m = 0
            for j in range(n):
                pk = iw[R_BP + r, j]
                ok = True
                for p in range(P):
                    if ((pk >> (4 * p)) & 15) < lo[k, p]:
                        ok = False
                        break
                if ok:
                    iw[r_vc + k, m] = iw[R_BC + r, j]
                    iw[r_vp + k, m] = pk
                    iw[r_vv + k, m] = iw[R_BV + r, j]
                    m += 1
            if m == 0:
                return 0
        iw[R_NV, k] = m
        for i in range(D):
            s4 = 4 * iw[R_ORDER, i]
            a = S
            b = 0
            for j in range(m):
                x = (iw[r_vp + k, j] >> s4) & 15
                if x < a:
                    a = x
                if x > b:
                    b = x
            iw[R_VMIN + k, i] = a
            iw[r_vmax + k, i] = b
    # the boxes: each digit between what the sets before reach and what the sets after can still add
    for i in range(D):
        smin = 0
        smax = 0
        for k in range(K):
            smin += iw[R_VMIN + k, i]
            smax += iw[r_vmax + k, i]
        pmin = 0
        pmax = 0
        h = iw[R_HD, i]
        for k in range(K + 1):
            a = pmin
            if h - smax > a:
                a = h - smax
            b = pmax
            if h - smin < b:
                b = h - smin
            if a > b:
                return 0
            iw[r_blo + k, i] = a
            iw[r_bhi + k, i] = b
            if k < K:
                pmin += iw[R_VMIN + k, i]
                pmax += iw[r_vmax + k, i]
                smin -= iw[R_VMIN + k, i]
                smax -= iw[r_vmax + k, i]
    # the words: F_k in row k of fw (forward), B in rows K + 1 and K + 2 (backward); uw: per vector its
    # shift (rows 0..K-1) and the low states with room for it (rows K..2K-1), per low digit and count
    # the low states with room for that count (rows 2K..2K+L-1), scratch (the last row)
    fw = np.zeros((K + 3, NW), np.uint64)
    r_low = 2 * K
    r_cum = r_low + L
    uw = np.empty((r_cum + 1, max(cap, S + 1, 64)), np.uint64)
    one = np.uint64(1)
    for i in range(L):
        wi = iw[R_W, iw[R_ORDER, i]]
        bi = iw[R_HD, i] + 1
        for y in range(bi):
            uw[r_cum, y] = 0
        y = 0
        run = 0
        for pos in range(LW):  # the low state pos has digit y
            uw[r_cum, y] |= one << np.uint64(pos)
            run += 1
            if run == wi:
                run = 0
                y += 1
                if y == bi:
                    y = 0
        for y in range(1, bi):
            uw[r_cum, y] |= uw[r_cum, y - 1]
        for x in range(min(S, bi - 1) + 1):
            uw[r_low + i, x] = uw[r_cum, bi - 1 - x]
    full = np.uint64(0xFFFFFFFFFFFFFFFF) if LW == 64 else (one << np.uint64(LW)) - one
    # a set's vectors sorted by the words they add, in groups of equal high digits (swept together)
    for k in range(K):
        n = iw[R_NV, k]
        root = iw[R_ROOT, k]
        if root != k:  # the first set with its description: the same rows
            for j in range(n):
                iw[r_vc + k, j] = iw[r_vc + root, j]
                iw[r_vp + k, j] = iw[r_vp + root, j]
                iw[r_vv + k, j] = iw[r_vv + root, j]
                iw[r_vh + k, j] = iw[r_vh + root, j]
                uw[k, j] = uw[root, j]
                uw[K + k, j] = uw[K + root, j]
            g = iw[R_NG, root]
            for t in range(g + 1):
                iw[r_gch + k, t] = iw[r_gch + root, t]
                iw[r_gbeg + k, t] = iw[r_gbeg + root, t]
            iw[R_NG, k] = g
            continue
        for j in range(n):
            pk = iw[r_vp + k, j]
            h = 0
            for i in range(L, D):
                h += ((pk >> (4 * iw[R_ORDER, i])) & 15) * iw[R_WW, i]
            iw[r_vh + k, j] = h
        if NW > 1:  # sorted into the DP's layers (free now), then back
            if NW <= cap:  # a counting sort (the counts in the set's gbeg row)
                for h in range(NW + 1):
                    iw[r_gbeg + k, h] = 0
                for j in range(n):
                    iw[r_gbeg + k, iw[r_vh + k, j] + 1] += 1
                for h in range(NW):
                    iw[r_gbeg + k, h + 1] += iw[r_gbeg + k, h]
                for j in range(n):
                    h = iw[r_vh + k, j]
                    t = iw[r_gbeg + k, h]
                    iw[r_gbeg + k, h] = t + 1
                    iw[R_BC, t] = iw[r_vc + k, j]
                    iw[R_BP, t] = iw[r_vp + k, j]
                    iw[R_BV, t] = iw[r_vv + k, j]
                    iw[R_BC + 1, t] = h
            else:  # an insertion sort
                for j in range(n):
                    c = iw[r_vc + k, j]
                    q = iw[r_vp + k, j]
                    u = iw[r_vv + k, j]
                    h = iw[r_vh + k, j]
                    t = j
                    while t > 0 and iw[R_BC + 1, t - 1] > h:
                        iw[R_BC, t] = iw[R_BC, t - 1]
                        iw[R_BP, t] = iw[R_BP, t - 1]
                        iw[R_BV, t] = iw[R_BV, t - 1]
                        iw[R_BC + 1, t] = iw[R_BC + 1, t - 1]
                        t -= 1
                    iw[R_BC, t] = c
                    iw[R_BP, t] = q
                    iw[R_BV, t] = u
                    iw[R_BC + 1, t] = h
            for j in range(n):
                iw[r_vc + k, j] = iw[R_BC, j]
                iw[r_vp + k, j] = iw[R_BP, j]
                iw[r_vv + k, j] = iw[R_BV, j]
                iw[r_vh + k, j] = iw[R_BC + 1, j]
        g = 0
        prev = -1
        for j in range(n):
            h = iw[r_vh + k, j]
            if h != prev:
                iw[r_gch + k, g] = h
                iw[r_gbeg + k, g] = j
                g += 1
                prev = h
            uw[k, j] = np.uint64(iw[r_vc + k, j] - h * LW)
            mm = full
            pk = iw[r_vp + k, j]
            for i in range(L):
                x = (pk >> (4 * iw[R_ORDER, i])) & 15
                if x:
                    mm &= uw[r_low + i, x]
            uw[K + k, j] = mm
        iw[r_gbeg + k, g] = n
        iw[R_NG, k] = g
    # forward: F_{k+1} = F_k + the vectors of set k
    fw[0, 0] = one
    for k in range(K):
        for g in range(iw[R_NG, k]):
            g0 = iw[r_gbeg + k, g]
            g1 = iw[r_gbeg + k, g + 1]
            h = iw[r_gch + k, g]
            nr, length = _runs(k, iw[r_vp + k, g0], iw, r_blo, r_bhi, L, D, NW, big, at_runs)
            for t in range(nr):
                b0 = big[at_runs + t]
                for a in range(b0, b0 + length):
                    x = fw[k, a]
                    if x:
                        acc = np.uint64(0)
                        for j in range(g0, g1):
                            acc |= (x & uw[K + k, j]) << uw[k, j]
                        fw[k + 1, a + h] |= acc
    if not (fw[K, NW - 1] >> np.uint64(LW - 1)) & one:
        return 0
    # backward: B (row bn) the states from which sets k+1..K-1 reach the hands; each set is asked on the way
    bn = K + 1
    bk = K + 2
    fw[bn, NW - 1] = one << np.uint64(LW - 1)
    for k in range(K - 1, -1, -1):
        n = iw[R_NV, k]
        nd = iw[R_NDS, k]
        root = iw[R_ROOT, k]
        k2 = iw[R_ANS, root]
        if k2 >= 0:  # a set with the same description was answered: the same answer
            quartet[k] = quartet[k2]
            for i in range(S):
                d = doms[k, i] & mask
                i2 = 0
                while doms[k2, i2] & mask != d:
                    i2 += 1
                owners[k, i] = owners[k2, i2]
            nd = 0  # nothing to ask
        elif nd * P <= 63:  # the DP tracked the pairs
            for j in range(n):
                u = iw[r_vv + k, j]
                for t in range(nd):
                    iw[r_adm + t, j] = (u >> (t * P)) & mask
        else:  # per domain: the vectors of the other cards (a card of it set aside)
            _caps(k, P, S, hi, hands, iw)
            for f in range(nd):
                i = 0
                while iw[r_dix + k, i] != f:
                    i += 1
                d = doms[k, i] & mask
                n2, r = _reach(doms, k, i, S, P, mask, iw, r_dix, nd, False, big, N, max_states)
                if n2 < 0:
                    return -1
                mark = iw[R_MISC, 0] + 1
                iw[R_MISC, 0] = mark
                for j in range(n2):
                    big[iw[R_BC + r, j]] = mark
                for j in range(n):
                    seats = 0
                    code = iw[r_vc + k, j]
                    pk = iw[r_vp + k, j]
                    for p in range(P):
                        if (d >> p) & 1 and (pk >> (4 * p)) & 15 and big[code - iw[R_W, p]] == mark:
                            seats |= 1 << p
                    iw[r_adm + f, j] = seats
        for t in range(nd):
            iw[R_OWN, t] = 0
        quart = 0
        for g in range(iw[R_NG, k] if k2 < 0 else 0):
            nr = -1  # the group's runs: not found yet
            length = 0
            h = iw[r_gch + k, g]
            for j in range(iw[r_gbeg + k, g], iw[r_gbeg + k, g + 1]):
                new = False
                for t in range(nd):
                    if iw[r_adm + t, j] & ~iw[R_OWN, t]:
                        new = True
                        break
                pk = iw[r_vp + k, j]
                qp = -1
                for p in range(P):
                    if pk == S << (4 * p):
                        qp = p
                        break
                if qp >= 0 and not (quart >> qp) & 1:
                    new = True
                if not new:
                    continue
                if nr < 0:
                    nr, length = _runs(k, pk, iw, r_blo, r_bhi, L, D, NW, big, at_runs)
                if nr == 0:
                    break
                m = uw[K + k, j]
                c = uw[k, j]
                hit = False
                for t in range(nr):
                    b0 = big[at_runs + t]
                    for a in range(b0, b0 + length):
                        if ((fw[k, a] & m) << c) & fw[bn, a + h]:
                            hit = True
                            break
                    if hit:
                        break
                if hit:
                    for t in range(nd):
                        iw[R_OWN, t] |= iw[r_adm + t, j]
                    if qp >= 0:
                        quart |= 1 << qp
        if k2 < 0:
            quartet[k] = quart
            for i in range(S):
                owners[k, i] = iw[R_OWN, iw[r_dix + k, i]]
            iw[R_ANS, root] = k
        if k > 0:
            for a in range(NW):
                fw[bk, a] = 0
            for g in range(iw[R_NG, k]):
                g0 = iw[r_gbeg + k, g]
                g1 = iw[r_gbeg + k, g + 1]
                h = iw[r_gch + k, g]
                nr, length = _runs(k, iw[r_vp + k, g0], iw, r_blo, r_bhi, L, D, NW, big, at_runs)
                for t in range(nr):
                    b0 = big[at_runs + t]
                    for a in range(b0, b0 + length):
                        y = fw[bn, a + h]
                        if y:
                            acc = np.uint64(0)
                            for j in range(g0, g1):
                                acc |= (y >> uw[k, j]) & uw[K + k, j]
                            fw[bk, a] |= acc
            bn, bk = bk, bn
    return 1


def analyze_py(doms: Sequence[Sequence[int]], lo: Sequence[Sequence[int]], hi: Sequence[Sequence[int]],
               hands: Sequence[int], max_states: int = DEFAULT_MAX_STATES) -> tuple[list[list[int]], list[int]] | None:
    """:func:`analyze` on plain lists: ``doms[k][i]``, ``lo[k][p]``, ``hi[k][p]`` (K = len(doms)), ``hands[p]``.
    Returns None when no deal exists, else (owners[k][i], quartet[k]). Raises :class:`StateBudgetExceeded`
    when the analysis would pass ``max_states``.

    >>> analyze_py([[0b11, 0b01]], [[0, 0]], [[2, 2]], [1, 1])
    ([[2, 1]], [0])
    >>> analyze_py([[0b01, 0b01]], [[0, 0]], [[2, 2]], [1, 1]) is None
    True
    """
    got, answer = on_lists(analyze, doms, lo, hi, hands, max_states)
    if got < 0:
        raise StateBudgetExceeded(f"the analysis passes max_states={max_states}")
    return answer


def on_lists(analysis: Callable[..., int], doms: Sequence[Sequence[int]], lo: Sequence[Sequence[int]],
             hi: Sequence[Sequence[int]], hands: Sequence[int],
             max_states: int) -> tuple[int, tuple[list[list[int]], list[int]] | None]:
    """A compiled analysis with :func:`analyze`'s arguments (this one, or :func:`.flow_nb.analyze_flow`) run
    on plain lists (as :func:`analyze_py` takes them): its code, and (owners[k][i], quartet[k]) when a deal
    exists, else None."""
    K = len(doms)
    P = len(hands)
    S = len(doms[0]) if K else 1
    d = np.zeros((K, S), np.int64)
    lo_a = np.zeros((K, P), np.int64)
    hi_a = np.zeros((K, P), np.int64)
    for k in range(K):
        d[k, :] = doms[k]
        lo_a[k, :] = lo[k]
        hi_a[k, :] = hi[k]
    owners = np.zeros((K, S), np.int64)
    quartet = np.zeros(K, np.int64)
    got = int(analysis(d, lo_a, hi_a, K, np.array(hands, np.int64), owners, quartet, max_states))
    if got <= 0:
        return got, None
    return got, ([[int(x) for x in row] for row in owners], [int(x) for x in quartet])

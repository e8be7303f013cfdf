"""The Quarto solver's search compiled with numba (the optional extra ``[fast]``): the same search, 20-60x faster.

:mod:`quaternity_cp.quarto.solver` uses it when numba can be imported (its
``solve`` loads this module only then, and only when it solves); the
pure-Python search stays the fallback and the reference. The search is the
solver's, move for move: negamax with alpha-beta over -1, 0, 1, safe-piece
pruning, the placements leaving the fewest safe pieces first, (placement, gift)
pairs ordered by the opponent's mobility from :data:`MOBILITY_MIN_EMPTY` empty
cells, positions with two pieces left decided inline, and a transposition table
of lower and upper bounds keyed by the canonical form of
:mod:`quaternity_cp.quarto.symmetry`. What differs is the layout, measured in
``benchmarks/quarto_fast.py`` (docs/performance.md):

* a position is ``occ`` (16 bits) and the four trait masks packed in one 64-bit
  integer, as in the Python solver; the threat (which trait values complete a
  line) is nine lookups in the 65,536-entry table of lines holding three cells;
* the transposition table is two flat numpy arrays (a 64-bit key: the four
  trait masks after the canonical map, sorted; a 32-bit word: the occupied
  cells after the map, the bounds and the empty cells), indexed by a hash, one
  entry per slot, the newest kept;
* the canonical form: every piece XORed with the piece in hand (the trait
  flips), the trait masks sorted (the trait permutations), and the board maps
  giving the smallest image of ``occ`` (a table over the 65,536 masks);
* the recursion is an explicit stack in numpy arrays, so the compiled search
  stops after a given number of nodes and resumes where it stopped: between
  two runs Python checks the time limit and Ctrl-C (about every 0.05 s).

:class:`FastSearch` has the interface of the Python search (``value``,
``nodes``, ``three``, ``squares``, ``budget``), so the solver's root, principal
variation and first gift serve both. :func:`load` (the solver calls it when
its search first needs this kernel) loads the compiled code from numba's cache
beside this file (about 0.3-1 s with numba's import), or compiles it when there
is no cache yet (:data:`COMPILE_SECONDS`, once; :func:`cached` tells which).
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import Any, Callable, Optional

import numpy as np
from numba import njit

from ..budget import Budget
from . import symmetry
from .bits import threat

#: From how many empty cells the (placement, gift) pairs are ordered by the opponent's mobility.
MOBILITY_MIN_EMPTY = 7
#: From how many empty cells positions are keyed in the transposition table.
TABLE_MIN_EMPTY = 8
#: The transposition table has 2**TABLE_BITS slots (12 bytes each).
TABLE_BITS = 22
#: About how long the first compilation of the kernel takes (no numba cache yet), in seconds: 12 s measured
#: on an idle core (benchmarks/quarto_fast.py prints it), more on a busy machine.
COMPILE_SECONDS = 15

# columns of the stack frames
_OCC, _MASKS, _HAND, _REM, _ALPHA, _BETA, _ALPHA0, _BEST, _TT, _KEY, _KOCC, _SLOT, _N, _I, _EMPTY = range(15)
_COLUMNS = 15
# the run state
_DEPTH, _MODE, _RET, _NODES = range(4)


@njit(cache=True, inline="always")
def _popcount(x: int) -> int:
    x = x - ((x >> 1) & 0x5555)
    x = (x & 0x3333) + ((x >> 2) & 0x3333)
    x = (x + (x >> 4)) & 0x0F0F
    return (x + (x >> 8)) & 0x1F


_threat = njit(cache=True, inline="always")(threat)  # the one Python definition, compiled


@njit(cache=True, inline="always")
def _bit(low: int, ctz: Any) -> int:
    """The index of the single set bit ``low`` (a de Bruijn multiply into the table ``ctz``)."""
    return ctz[((low * 0x077CB531) & 0xFFFFFFFF) >> 27]


@njit(cache=True, inline="always")
def _sorted_key(a: int, b: int, c: int, d: int) -> int:
    if a > b:
        a, b = b, a
    if c > d:
        c, d = d, c
    if a > c:
        a, c = c, a
    if b > d:
        b, d = d, b
    if b > c:
        b, c = c, b
    return a | (b << 16) | (c << 32) | (d << 48)


@njit(cache=True)
def _candidates(maplo: Any, maphi: Any, cand: Any, bestocc: Any) -> None:
    """For every ``occ``: its smallest image under the board maps, and the set of maps giving it."""
    nmaps = maplo.shape[0]
    for occ in range(65536):
        best = 1 << 20
        bits = 0
        for i in range(nmaps):
            image = maplo[i, occ & 255] | maphi[i, occ >> 8]
            if image < best:
                best = image
                bits = 1 << i
            elif image == best:
                bits |= 1 << i
        cand[occ] = bits
        bestocc[occ] = best


@njit(cache=True)
def _run(fr: Any, st: Any, ch: Any, scratch: Any, three: Any, unsafe: Any, spread: Any, ctz: Any, maplo: Any,
         maphi: Any, cand: Any, bestocc: Any, tt_key: Any, tt_meta: Any, params: Any, node_limit: int) -> bool:
    """Run the search held in the stack ``fr`` until it returns (True; its value in ``st[_RET]``) or until
    ``node_limit`` nodes were counted (False; call again to go on)."""
    table_min = params[0]
    mobility_min = params[1]
    use_maps = params[2]
    tmask = params[3]
    d = st[_DEPTH]
    mode = st[_MODE]
    ret = st[_RET]
    nodes = st[_NODES]
    pl_occ = scratch[0]
    pl_masks = scratch[1]
    pl_safe = scratch[2]
    score = scratch[3]
    done = False
    while True:
        if mode == 0:
            # -- enter the node of frame d ------------------------------------------------
            if nodes >= node_limit:
                break
            nodes += 1
            occ = fr[d, _OCC]
            masks = fr[d, _MASKS]
            hand = fr[d, _HAND]
            rem = fr[d, _REM]
            alpha = fr[d, _ALPHA]
            beta = fr[d, _BETA]
            sp = spread[hand]
            free = ~occ & 0xFFFF
            empty = _popcount(free)
            fr[d, _EMPTY] = empty
            fr[d, _TT] = 0
            if empty >= table_min:
                # the canonical key: the piece in hand made LRTS, then the smallest sorted image
                rel = masks ^ (sp * occ)
                m0 = rel & 0xFFFF
                m1 = (rel >> 16) & 0xFFFF
                m2 = (rel >> 32) & 0xFFFF
                m3 = (rel >> 48) & 0xFFFF
                if use_maps:
                    cm = cand[occ]
                    kocc = bestocc[occ]
                    key = 0
                    first = True
                    while cm:
                        low = cm & -cm
                        cm ^= low
                        i = _bit(low, ctz)
                        k = _sorted_key(maplo[i, m0 & 255] | maphi[i, m0 >> 8], maplo[i, m1 & 255] | maphi[i, m1 >> 8],
                                        maplo[i, m2 & 255] | maphi[i, m2 >> 8], maplo[i, m3 & 255] | maphi[i, m3 >> 8])
                        if first or k < key:
                            key = k
                            first = False
                else:
                    kocc = occ
                    key = _sorted_key(m0, m1, m2, m3)
                h = (key ^ (key >> 29)) * 0x3C6EF372FE94F82B + kocc * 0x27D4EB2F165667C5
                slot = (h ^ (h >> 31)) & tmask
                fr[d, _TT] = 1
                fr[d, _KEY] = key
                fr[d, _KOCC] = kocc
                fr[d, _SLOT] = slot
                meta = tt_meta[slot]
                if meta != 0 and tt_key[slot] == key and (meta & 0xFFFF) == kocc:
                    lo = ((meta >> 16) & 3) - 1
                    hi = ((meta >> 18) & 3) - 1
                    if lo >= beta or lo == hi:
                        ret = lo
                        mode = 1
                        fr[d, _TT] = 0
                        continue
                    if hi <= alpha:
                        ret = hi
                        mode = 1
                        fr[d, _TT] = 0
                        continue
                    if lo > alpha:
                        alpha = lo
                    if hi < beta:
                        beta = hi
            fr[d, _ALPHA] = alpha
            fr[d, _BETA] = beta
            fr[d, _ALPHA0] = alpha
            last = (rem & (rem - 1)) == 0
            best = -1
            n = 0
            m = free
            while m:
                low = m & -m
                m ^= low
                cell = _bit(low, ctz)
                occ2 = occ | low
                masks2 = masks | (sp << cell)
                safe = rem & ~unsafe[_threat(occ2, masks2, three)]
                if safe == 0:
                    continue  # every piece left wins for the opponent: this placement loses
                if last:
                    best = 0
                    break
                pl_occ[n] = occ2
                pl_masks[n] = masks2
                pl_safe[n] = safe
                n += 1
            if n == 0 or best >= beta:
                fr[d, _BEST] = best
                mode = 2
                continue
            two = rem & (rem - 1)
            if (two & (two - 1)) == 0:
                # two pieces left: each gift is decided here (does the last piece stay safe somewhere?)
                if 0 <= params[4] < nodes + n:
                    nodes = params[4]  # the node limit of the budget: stop there, never past it
                    break
                nodes += n
                for j in range(n):
                    occ2 = pl_occ[j]
                    masks2 = pl_masks[j]
                    free2 = ~occ2 & 0xFFFF
                    safe = pl_safe[j]
                    while safe:
                        low = safe & -safe
                        safe ^= low
                        last_piece = rem ^ low
                        sp2 = spread[_bit(low, ctz)]
                        v = 1
                        f = free2
                        while f:
                            cb = f & -f
                            f ^= cb
                            c2 = _bit(cb, ctz)
                            if (last_piece & unsafe[_threat(occ2 | cb, masks2 | (sp2 << c2), three)]) == 0:
                                v = 0
                                break
                        if v > best:
                            best = v
                            if best >= beta:
                                break
                    if best >= beta:
                        break
                fr[d, _BEST] = best
                mode = 2
                continue
            # order the placements: fewest safe pieces first (stable)
            for j in range(n):
                score[j] = _popcount(pl_safe[j])
            for j in range(1, n):
                s = score[j]
                o = pl_occ[j]
                mk = pl_masks[j]
                sf = pl_safe[j]
                k = j - 1
                while k >= 0 and score[k] > s:
                    score[k + 1] = score[k]
                    pl_occ[k + 1] = pl_occ[k]
                    pl_masks[k + 1] = pl_masks[k]
                    pl_safe[k + 1] = pl_safe[k]
                    k -= 1
                score[k + 1] = s
                pl_occ[k + 1] = o
                pl_masks[k + 1] = mk
                pl_safe[k + 1] = sf
            c = 0
            if empty >= mobility_min:
                # each (placement, gift), ordered by the opponent's mobility, then by the safe pieces (stable)
                for j in range(n):
                    occ2 = pl_occ[j]
                    masks2 = pl_masks[j]
                    free2 = ~occ2 & 0xFFFF
                    safe = pl_safe[j]
                    pc = _popcount(safe)
                    g = safe
                    while g:
                        low = g & -g
                        g ^= low
                        q = _bit(low, ctz)
                        rest = rem & ~low
                        spq = spread[q]
                        mob = 0
                        f = free2
                        while f:
                            cb = f & -f
                            f ^= cb
                            c2 = _bit(cb, ctz)
                            if rest & ~unsafe[_threat(occ2 | cb, masks2 | (spq << c2), three)]:
                                mob += 1
                        s = mob * 32 + pc
                        k = c - 1
                        while k >= 0 and ch[d, k, 3] > s:
                            ch[d, k + 1, 0] = ch[d, k, 0]
                            ch[d, k + 1, 1] = ch[d, k, 1]
                            ch[d, k + 1, 2] = ch[d, k, 2]
                            ch[d, k + 1, 3] = ch[d, k, 3]
                            k -= 1
                        ch[d, k + 1, 0] = occ2
                        ch[d, k + 1, 1] = masks2
                        ch[d, k + 1, 2] = q
                        ch[d, k + 1, 3] = s
                        c += 1
            else:
                for j in range(n):
                    g = pl_safe[j]
                    while g:
                        low = g & -g
                        g ^= low
                        ch[d, c, 0] = pl_occ[j]
                        ch[d, c, 1] = pl_masks[j]
                        ch[d, c, 2] = _bit(low, ctz)
                        c += 1
            fr[d, _N] = c
            fr[d, _I] = 1
            fr[d, _BEST] = -1
            q = ch[d, 0, 2]
            fr[d + 1, _OCC] = ch[d, 0, 0]
            fr[d + 1, _MASKS] = ch[d, 0, 1]
            fr[d + 1, _HAND] = q
            fr[d + 1, _REM] = rem ^ (1 << q)
            fr[d + 1, _ALPHA] = -beta
            fr[d + 1, _BETA] = -alpha
            d += 1
            continue
        if mode == 1:
            # -- the node of frame d returned ``ret``: back to its parent ---------------------
            if d == 0:
                done = True
                break
            d -= 1
            v = -ret
            best = fr[d, _BEST]
            beta = fr[d, _BETA]
            if v > best:
                best = v
                fr[d, _BEST] = best
            i = fr[d, _I]
            if best >= beta or i >= fr[d, _N]:
                mode = 2
                continue
            alpha = fr[d, _ALPHA]
            a = alpha if alpha > best else best
            q = ch[d, i, 2]
            fr[d, _I] = i + 1
            fr[d + 1, _OCC] = ch[d, i, 0]
            fr[d + 1, _MASKS] = ch[d, i, 1]
            fr[d + 1, _HAND] = q
            fr[d + 1, _REM] = fr[d, _REM] ^ (1 << q)
            fr[d + 1, _ALPHA] = -beta
            fr[d + 1, _BETA] = -a
            d += 1
            mode = 0
            continue
        # -- mode 2: the node of frame d is finished with fr[d, _BEST]: store its bounds ----------
        best = fr[d, _BEST]
        if fr[d, _TT]:
            slot = fr[d, _SLOT]
            key = fr[d, _KEY]
            kocc = fr[d, _KOCC]
            meta = tt_meta[slot]
            lo = -1
            hi = 1
            if meta != 0 and tt_key[slot] == key and (meta & 0xFFFF) == kocc:
                lo = ((meta >> 16) & 3) - 1
                hi = ((meta >> 18) & 3) - 1
            if best <= fr[d, _ALPHA0]:
                if best < hi:
                    hi = best
            elif best >= fr[d, _BETA]:
                if best > lo:
                    lo = best
            else:
                lo = best
                hi = best
            tt_key[slot] = key
            tt_meta[slot] = kocc | ((lo + 1) << 16) | ((hi + 1) << 18) | (1 << 20) | (fr[d, _EMPTY] << 21)
        ret = best
        mode = 1
    st[_DEPTH] = d
    st[_MODE] = mode
    st[_RET] = ret
    st[_NODES] = nodes
    return done


def cached() -> bool:
    """Whether numba's cache holds this machine's compiled code of every kernel function (then :func:`load`
    only loads it); False when it does not, or when numba's cache cannot be inspected."""
    try:
        from numba.core.registry import cpu_target

        magic = cpu_target.target_context.codegen().magic_tuple()
        for function in (_run, _candidates):
            cache: Any = getattr(function, "_cache")
            index = cache._cache_file._load_index()
            if not any(key[1] == magic for key in index):
                return False
        return True
    except Exception:  # noqa: BLE001 - numba's internals changed: say "not cached", the message is only a notice
        return False


@lru_cache(maxsize=None)
def load() -> None:
    """Load (or compile, the first time on a machine) the kernel's compiled code, so that a search then runs at
    once; idempotent."""
    _tables(False)  # compiles or loads _candidates
    search = FastSearch(False, Budget(), table=Table(10))
    three, unsafe, spread, ctz, maplo, maphi, cand, bestocc = search.arrays
    _run(search.frames, search.state, search.children, search.scratch, three, unsafe, spread, ctz, maplo, maphi,
         cand, bestocc, search.table.keys, search.table.meta, search.params, 0)  # compiles or loads _run; no node


@lru_cache(maxsize=None)
def _tables(squares: bool) -> tuple:
    """The read-only arrays of a search: lines of three, unsafe pieces, spreads, bit indices, board maps."""
    from .bits import UNSAFE, three_table

    three = np.array(three_table(squares), dtype=np.int64)
    unsafe = np.array(UNSAFE, dtype=np.int64)
    spread = np.array(symmetry.SPREAD, dtype=np.int64)
    ctz = np.zeros(32, dtype=np.int64)
    for bit in range(32):
        ctz[(((1 << bit) * 0x077CB531) & 0xFFFFFFFF) >> 27] = bit
    canon = symmetry.canonicaliser(squares)
    maplo = np.array(canon.lo, dtype=np.int64)
    maphi = np.array(canon.hi, dtype=np.int64)
    cand = np.zeros(65536, dtype=np.int64)
    bestocc = np.zeros(65536, dtype=np.int64)
    _candidates(maplo, maphi, cand, bestocc)
    for a in (three, unsafe, spread, ctz, maplo, maphi, cand, bestocc):
        a.setflags(write=False)
    return three, unsafe, spread, ctz, maplo, maphi, cand, bestocc


class Table:
    """A transposition table of ``2 ** bits`` slots (12 bytes each), to share between searches.

    Its entries are bounds of game values keyed by canonical positions, true
    whatever search stored them, so one table can serve many searches of the
    same rules (the solver agent, the opening table, the work units of a proof).
    """

    def __init__(self, bits: int = TABLE_BITS):
        if not 10 <= bits <= 32:
            raise ValueError(f"a table has 2**10 to 2**32 slots, not 2**{bits}")
        self.bits = bits
        self.keys = np.zeros(1 << bits, dtype=np.int64)
        self.meta = np.zeros(1 << bits, dtype=np.int32)

    def used(self) -> int:
        """The slots holding an entry."""
        return int(np.count_nonzero(self.meta))


class FastSearch:
    """One search on the compiled kernel, with the interface of the Python search of :mod:`.solver`.

    ``value(occ, masks, hand, rem, alpha, beta)`` is the fail-soft negamax value
    of the player holding ``hand`` (which does not win at once) with the pieces
    ``rem`` left (not empty); ``nodes`` counts the nodes searched. The budget is
    checked between runs of the kernel (each about :attr:`slice_seconds`), and
    exactly at its node limit.
    """

    slice_seconds = 0.05
    kernel = "fast"

    def __init__(self, squares: bool, budget: Budget, *, table: Optional[Table] = None,
                 table_min_empty: int = TABLE_MIN_EMPTY, mobility_min_empty: int = MOBILITY_MIN_EMPTY,
                 board_maps: bool = True):
        from .bits import three_table

        self.squares = squares
        self.three = three_table(squares)
        self.budget = budget
        self.nodes = 0
        self.table = table if table is not None else Table()
        self.arrays = _tables(squares)
        self.params = np.array([table_min_empty, mobility_min_empty, int(board_maps), (1 << self.table.bits) - 1, -1],
                               dtype=np.int64)
        self.frames = np.zeros((18, _COLUMNS), dtype=np.int64)
        self.children = np.zeros((18, 256, 4), dtype=np.int64)
        self.scratch = np.zeros((4, 16), dtype=np.int64)
        self.state = np.zeros(4, dtype=np.int64)
        self.step = 1 << 14
        #: called with the node count after every run of the kernel
        self.on_progress: Optional[Callable[[int], None]] = None

    def value(self, occ: int, masks: int, hand: int, rem: int, alpha: int, beta: int) -> int:
        """The negamax value (fail-soft in the window ``alpha``, ``beta``); raises :class:`Stopped` at a limit."""
        fr, st = self.frames, self.state
        fr[0, _OCC] = occ
        fr[0, _MASKS] = masks - (1 << 64) if masks >= 1 << 63 else masks
        fr[0, _HAND] = hand
        fr[0, _REM] = rem
        fr[0, _ALPHA] = alpha
        fr[0, _BETA] = beta
        st[:] = (0, 0, 0, self.nodes)
        three, unsafe, spread, ctz, maplo, maphi, cand, bestocc = self.arrays
        budget = self.budget
        table = self.table
        while True:
            limit = self.nodes + self.step
            if budget.max_positions is not None and limit >= budget.max_positions:
                limit = budget.max_positions
                self.params[4] = limit
            start = time.perf_counter()
            done = _run(fr, st, self.children, self.scratch, three, unsafe, spread, ctz, maplo, maphi, cand,
                        bestocc, table.keys, table.meta, self.params, limit)
            spent = time.perf_counter() - start
            self.nodes = int(st[_NODES])
            if done:
                return int(st[_RET])
            budget.check_positions(self.nodes)
            budget.check_time()
            if self.on_progress is not None:
                self.on_progress(self.nodes)
            # about slice_seconds per run of the kernel
            if spent < self.slice_seconds / 2:
                self.step = min(self.step * 2, 1 << 26)
            elif spent > self.slice_seconds * 2:
                self.step = max(self.step // 2, 1 << 10)


__all__ = ["FastSearch", "Table", "cached", "load", "COMPILE_SECONDS", "TABLE_BITS", "TABLE_MIN_EMPTY", "MOBILITY_MIN_EMPTY"]

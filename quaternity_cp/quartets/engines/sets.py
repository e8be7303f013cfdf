"""The set-signature engine: exact analysis of small games by dynamic programming over sets.

The constraints split into sets: a set's cards only meet the other sets through
the hand sizes. So a set is summed up by its *signature*: the sorted list of its
cards' domains and the column of bounds ``lo[p][s]``, ``hi[p][s]`` of every seat.
From a signature alone (cached, independent of the rest of the position):

- ``K``: every vector ``k`` (cards of the set per seat) some placement of its
  cards within their domains reaches, with ``lo <= k <= hi`` (found card by
  card, as the set of vectors the cards placed so far reach);
- ``K[d, p]``: the same with one card of domain ``d`` at seat ``p``.

A deal exists when the hand sizes ``H`` are a sum of one vector per set (a
Minkowski sum); card ``c`` of set ``s`` may be with ``p`` when ``H - k`` is a sum
over the other sets for some ``k`` in ``K[d, p]``; seat ``p`` may hold all of
set ``s`` when ``H - S e_p`` is. Sets of vectors are bit sets (Python integers),
a vector being the number whose digits are its counts (one digit per seat but
the last, whose count follows from the total; a digit's base leaves room for a
hand plus a set, so adding never carries, and every sum is masked back to
counts within the hands). A sum is a shift per vector. The bases depend on the
hands only through caps (see :class:`Radix`), so the codes of a signature and
the masks that test its facts serve many hands.

Sums are cached by the multiset of signatures, whole analyses by the multiset
and the hands: positions that differ by the order of their sets or of the cards
in a set, which a solver meets all the time, cost one lookup.

The engine is exact for every input; when the bit sets would be too large (many
seats with big hands) or a set has too many count vectors (many cards among
many seats) it hands the constraints to the flow engine. It is tested against
brute-force enumeration and the flow engine.
"""

from __future__ import annotations

from functools import reduce
from operator import ge, le, mul, or_

from ..constraints import Constraints
from .base import Analysis, infeasible_analysis

#: The largest bit set (product of the digit bases) this engine builds; beyond it the flow engine answers.
MAX_BITS = 1 << 18
#: Cached entries per table before it is emptied (memory stays bounded in long solves).
CACHE_LIMIT = 200_000
#: Bytes of cached bit sets (sums and probe masks) before those tables are emptied.
CACHE_BYTES = 256 << 20


class TooManyVectors(Exception):
    """A set with too many count vectors for this engine (the flow engine answers instead; callers of
    :meth:`SetsEngine.facts` and :meth:`SetsEngine.card_owners` catch it and do the same)."""


#: The most count vectors one set may have (a set of many cards among many seats has more).
MAX_VECTORS = 20_000


class _SetInfo:
    """What a signature allows: its count vectors, and per (domain, seat) those with a card of it there
    (as indices into ``vectors``: each is one of them)."""

    __slots__ = ("vectors", "with_card", "quartet", "by_domain", "full")

    def __init__(self, doms: tuple[int, ...], lo: tuple[int, ...], hi: tuple[int, ...], players: int):
        def within(k: tuple[int, ...]) -> bool:
            return all(map(ge, k, lo))

        vectors = {k for k in _reach(doms, hi, players) if within(k)}
        with_card: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {}
        for d in set(doms):
            rest = list(doms)
            rest.remove(d)  # one card of domain d set aside; the others placed in every way
            others = _reach(rest, hi, players)
            for p in range(players):
                if not d >> p & 1:
                    continue
                got = set()
                for v in others:
                    if v[p] < hi[p]:
                        k = v[:p] + (v[p] + 1,) + v[p + 1:]
                        if within(k):
                            got.add(k)
                if got:
                    with_card[(d, p)] = tuple(sorted(got))
        self.vectors = tuple(sorted(vectors))
        index = {k: i for i, k in enumerate(self.vectors)}
        self.with_card = {dp: tuple([index[k] for k in vecs]) for dp, vecs in with_card.items()}
        S = len(doms)
        self.quartet = 0
        full_at = []  # (seat bit, index of the vector of the whole set at the seat)
        for p in range(players):
            full = tuple(S if q == p else 0 for q in range(players))
            if full in vectors:
                self.quartet |= 1 << p
                full_at.append((1 << p, index[full]))
        self.full = tuple(full_at)
        # the same per domain: (domain, ((seat bit, indices), ...)) (what the engine's probes are made of)
        grouped: dict[int, list] = {}
        for (d, p), idx in self.with_card.items():
            grouped.setdefault(d, []).append((1 << p, idx))
        self.by_domain = tuple((d, tuple(pairs)) for d, pairs in grouped.items())


def _reach(doms, hi: tuple[int, ...], players: int) -> set[tuple[int, ...]]:
    """The count vectors of every placement of cards with these domains, each seat p at most hi[p]."""
    cur = {(0,) * players}
    for d in doms:
        seats = [p for p in range(players) if d >> p & 1]
        nxt = set()
        for k in cur:
            for p in seats:
                if k[p] < hi[p]:
                    nxt.add(k[:p] + (k[p] + 1,) + k[p + 1:])
        cur = nxt
        if len(cur) > MAX_VECTORS:
            raise TooManyVectors
    return cur


#: Bit sets up to this size use one base for every digit (shared by more hands, see Radix).
UNIFORM_BITS = 1 << 16


class Radix:
    """The digits for the hands H: seat p < P-1 has a digit (the last seat's count follows from the
    total) of base ``b_p = c_p + S + 1``, for a cap ``c_p >= max(H_p, 1)``.

    A sum of vectors within the hands (digits <= H_p) plus one vector of a set (digits <= S) stays
    below the base, so adding never carries, and every sum is masked back to digits within the
    hands (``valid``); ``H - k`` for a vector k beyond the hands has a digit beyond them too (see
    :meth:`SetsEngine._probes_of`). The codes of a signature's vectors and the masks of its facts
    only depend on the bases, so hands with the same caps share them: the caps are all the largest
    hand when those bit sets stay small (``UNIFORM_BITS``), else each seat's hand, at least the
    average hand (seats below it share).
    """

    __slots__ = ("weights", "valid", "hands", "target", "caps", "top", "size")

    def __init__(self, hands: tuple[int, ...], set_size: int):
        self.hands = hands
        self.caps = caps = self.caps_for(hands, set_size)
        weights = []
        w = 1
        for c in caps:
            weights.append(w)
            w *= c + set_size + 1
        self.weights = tuple(weights)
        self.size = w  # bits of a bit set
        self.top = w - 1  # the largest code
        valid = 1
        for h, wp in zip(hands[:-1], self.weights):
            step = valid
            for j in range(1, h + 1):
                valid |= step << (j * wp)
        self.valid = valid
        self.target = self.encode(hands)

    @staticmethod
    def caps_for(hands: tuple[int, ...], set_size: int) -> tuple[int, ...]:
        most = max(max(hands), 1)
        if (most + set_size + 1) ** (len(hands) - 1) <= UNIFORM_BITS:
            return (most,) * (len(hands) - 1)
        least = max(sum(hands) // len(hands), 1)
        return tuple(max(h, least) for h in hands[:-1])

    @staticmethod
    def bits_for(hands: tuple[int, ...], set_size: int) -> int:
        """The size of the bit sets for these hands (decided before any is built)."""
        size = 1
        for c in Radix.caps_for(hands, set_size):
            size *= c + set_size + 1
        return size

    def encode(self, k: tuple[int, ...]) -> int:
        return sum(map(mul, k, self.weights))  # the last count has no weight (map stops at the shorter)


class SetsEngine:
    """Exact analysis by a dynamic program over sets (small games; larger ones go to the flow engine)."""

    name = "sets"

    def __init__(self, max_bits: int = MAX_BITS):
        self.max_bits = max_bits
        self._infos: dict[int, _SetInfo | None] = {}  # None: too many count vectors
        self._radixes: dict[tuple[tuple[int, ...], int], Radix] = {}
        self._codes: dict[tuple, tuple[int, ...]] = {}  # (signature, hands) -> encoded vectors
        self._enc: dict[tuple, tuple[int, ...]] = {}  # (signature, hands) -> code per vector, -1: beyond
        self._sums: dict[tuple, int] = {}  # (sorted signatures, hands) -> bit set of their sums
        self._bytes = 0  # of the bit sets in _sums and _probes
        self._probes: dict[tuple, tuple] = {}  # (signature, hands) -> masks of its facts (see _probes_of)
        self._results: dict[tuple, dict | None] = {}  # (sorted signatures, hands) -> per signature facts
        self._flow = None
        # signatures are numbered (every table is keyed by the numbers: small tuples hash fast)
        self._ids: dict[tuple, int] = {}
        self._sigs: list[tuple] = []

    # -- signature numbers (the fast path of the solver numbers its rows here too) ------------
    def number(self, sig: tuple) -> int:
        """The number of a signature ``(sorted domains, lo column, hi column)``; numbered on first sight."""
        sid = self._ids.get(sig)
        if sid is None:
            sid = self._ids[sig] = len(self._sigs)
            self._sigs.append(sig)
        return sid

    @property
    def numbered(self) -> int:
        """How many signatures are numbered (every number is forgotten by :meth:`reset`)."""
        return len(self._ids)

    def reset(self) -> None:
        """Forget every numbered signature and everything keyed by them (numbers known outside go stale)."""
        self._ids.clear()
        self._sigs.clear()
        for table in (self._infos, self._codes, self._enc, self._sums, self._probes, self._results):
            table.clear()
        self._bytes = 0

    # -- the interface --------------------------------------------------------------
    def feasible(self, c: Constraints) -> bool:
        prep = self._prepare(c)
        if prep is None:
            return False
        if prep is _TOO_BIG:
            return self._fallback().feasible(c)
        sigs, key, radix = prep
        res = self._results.get(key)
        if res is not None or key in self._results:
            return res is not None
        try:
            return bool(self._sum(key[0], radix) >> radix.target & 1)
        except TooManyVectors:
            return self._fallback().feasible(c)

    def analyze(self, c: Constraints) -> Analysis:
        prep = self._prepare(c)
        if prep is None:
            return infeasible_analysis(c)
        if prep is _TOO_BIG:
            return self._fallback().analyze(c)
        sigs, key, radix = prep
        res = self._results.get(key)
        if res is None and key not in self._results:
            try:
                res = self.facts(key[0], radix)
            except TooManyVectors:
                return self._fallback().analyze(c)
            if len(self._results) > CACHE_LIMIT:
                self._results.clear()
            self._results[key] = res
        if res is None:
            return infeasible_analysis(c)
        owners = [0] * len(c.domains)
        quartets = [0] * len(c.in_play)
        S = c.set_size
        domains = c.domains
        for s, sid in sigs.items():
            facts, quartet = res[sid]
            quartets[s] = quartet
            base = s * S
            for card in range(base, base + S):
                owners[card] = facts.get(domains[card], 0)
        return Analysis(True, tuple(owners), tuple(quartets))

    # -- the work ----------------------------------------------------------------------
    def _fallback(self):
        if self._flow is None:
            from .flow import FlowEngine
            self._flow = FlowEngine()
        return self._flow

    def _prepare(self, c: Constraints):
        """(set -> signature number, cache key, radix); None when no deal exists for a local reason; _TOO_BIG."""
        hands = c.hands
        S = c.set_size
        live = [s for s, on in enumerate(c.in_play) if on]
        if any(h < 0 for h in hands) or sum(hands) != len(live) * S:
            return None
        radix = self.radix(hands, S)
        if radix is None:
            return _TOO_BIG
        los = list(zip(*c.lo))
        his = list(zip(*c.hi))
        domains = c.domains
        if self.numbered > CACHE_LIMIT:
            self.reset()
        sigs = {}
        for s in live:
            base = s * S
            lo, hi = los[s], his[s]
            if min(lo) < 0 or min(hi) < 0:
                return None  # negative bounds describe no position
            sigs[s] = self.number((tuple(sorted(domains[base:base + S])), lo, hi))
        key = (tuple(sorted(sigs.values())), hands)
        return sigs, key, radix

    def radix(self, hands: tuple[int, ...], set_size: int) -> Radix | None:
        """The radix of these hands; None when its bit sets would pass ``max_bits`` (the flow engine's case)."""
        key = (hands, set_size)
        radix = self._radixes.get(key)
        if radix is None:
            if Radix.bits_for(hands, set_size) > self.max_bits:
                return None  # decided before any bit set is built
            radix = Radix(hands, set_size)
            if len(self._radixes) > 4096:  # each holds a bit set of up to MAX_BITS bits
                self._radixes.clear()
            self._radixes[key] = radix
        return radix

    def _info(self, sid: int, players: int) -> _SetInfo:
        info = self._infos.get(sid)
        if info is None:
            if sid in self._infos:
                raise TooManyVectors  # known to be too big
            if len(self._infos) > CACHE_LIMIT:
                self._infos.clear()
            doms, lo, hi = self._sigs[sid]
            try:
                info = self._infos[sid] = _SetInfo(doms, lo, hi, players)
            except TooManyVectors:
                self._infos[sid] = None
                raise
        return info

    def _encoded(self, sid: int, radix: Radix) -> tuple[int, ...]:
        """The code of each count vector of the signature in this radix, -1 for a vector with a count
        above a cap (it fits no hands of this radix). Shared by every hands with the same caps."""
        key = (sid, radix.caps)
        enc = self._enc.get(key)
        if enc is None:
            info = self._info(sid, len(radix.hands))
            weights, caps = radix.weights, radix.caps
            enc = tuple([sum(map(mul, k, weights)) if all(map(le, k, caps)) else -1 for k in info.vectors])
            if len(self._enc) > CACHE_LIMIT:
                self._enc.clear()
            self._enc[key] = enc
        return enc

    def _codes_of(self, sid: int, radix: Radix) -> tuple[int, ...]:
        key = (sid, radix.caps)
        codes = self._codes.get(key)
        if codes is None:
            codes = tuple([c for c in self._encoded(sid, radix) if c >= 0])
            if len(self._codes) > CACHE_LIMIT:
                self._codes.clear()
            self._codes[key] = codes
        return codes

    def _sum(self, multiset: tuple, radix: Radix) -> int:
        """The bit set of the sums of one vector per signature of ``multiset`` (sorted), within the hands."""
        hands = radix.hands
        sums = self._sums
        hit = sums.get((multiset, hands))
        if hit is not None:
            return hit
        # the longest cached prefix, then one signature at a time
        n = len(multiset)
        i = n - 1 if n else 0
        acc = 1
        while i > 0:
            got = sums.get((multiset[:i], hands))
            if got is not None:
                acc = got
                break
            i -= 1
        if len(sums) > CACHE_LIMIT or self._bytes > CACHE_BYTES:
            sums.clear()
            self._probes.clear()
            self._bytes = 0
        valid = radix.valid
        codes_of = self._codes
        caps = radix.caps
        for j in range(i, n):
            codes = codes_of.get((multiset[j], caps))
            if codes is None:
                codes = self._codes_of(multiset[j], radix)
            acc = reduce(or_, map(acc.__lshift__, codes), 0) & valid
            sums[(multiset[:j + 1], hands)] = acc
            self._bytes += 64 + acc.bit_length() // 8
        return acc

    def _probes_of(self, sid: int, radix: Radix) -> tuple[tuple, tuple]:
        """The masks that test a signature against the sums of the other sets: per domain of its
        cards ``(domain, ((seat bit, mask), ...))`` for possible owners, and ``((seat bit, mask), ...)``
        for possible quartets. A mask has the bit ``top - code(k)`` for each vector ``k`` of its case;
        a fact holds when the sums of the other sets, shifted up by ``top - code(H)``, meet it (at
        ``top - code(k)``: the other sets sum to ``H - k``). A vector beyond the hands gives a number
        with a digit beyond them, which no sum holds (a digit ``H_p - k_p < 0`` borrows and becomes at
        least ``b_p - S - 1 > H_p``). Shared by every hands with the same caps."""
        key = (sid, radix.caps)
        probes = self._probes.get(key)
        if probes is None:
            info = self._info(sid, len(radix.hands))
            enc = self._encoded(sid, radix)
            top = radix.top
            bits = [1 << (top - code) if code >= 0 else 0 for code in enc]
            get = bits.__getitem__
            owners = []
            count = 0
            for d, pairs in info.by_domain:
                masks = []
                for bit, idx in pairs:
                    mask = reduce(or_, map(get, idx), 0)
                    if mask:
                        masks.append((bit, mask))
                if masks:
                    owners.append((d, tuple(masks)))
                    count += len(masks)
            quartets = tuple([(bit, bits[i]) for bit, i in info.full if bits[i]])
            probes = (tuple(owners), quartets)
            count += len(quartets)
            if len(self._probes) > CACHE_LIMIT or self._bytes > CACHE_BYTES:
                self._sums.clear()
                self._probes.clear()
                self._bytes = 0
            self._probes[key] = probes
            # every mask has at most top + 1 bits: a bound, counted without looking at each
            self._bytes += count * (64 + (top + 1) // 8)
        return probes

    def card_owners(self, sid: int, domain: int, others: tuple[int, ...], radix: Radix) -> int:
        """The seats (bit p: seat p) that may hold a card of ``domain`` of signature ``sid`` when the other
        sets in play are the signatures ``others`` (sorted numbers) and the hands those of ``radix``; 0
        when none. The same as :meth:`facts` gives for that card, from only the probes of its domain
        (every question on one set shares the sum of the others). Raises :class:`TooManyVectors` as
        :meth:`facts` does."""
        rest = self._sum(others, radix) << (radix.top - radix.target)  # where the masks test it
        owners = 0
        for d, pairs in self._probes_of(sid, radix)[0]:
            if d == domain:
                for bit, mask in pairs:
                    if rest & mask:
                        owners |= bit
                break
        return owners

    def facts(self, multiset: tuple[int, ...], radix: Radix) -> dict[int, tuple[dict[int, int], int]] | None:
        """The analysis of the signatures ``multiset`` (sorted numbers) with the hands of ``radix``: per
        signature number (domain -> possible seats, possible quartet seats); None when no deal exists.
        Raises :class:`TooManyVectors` when a signature is beyond this engine."""
        if not self._sum(multiset, radix) >> radix.target & 1:
            return None
        if len(self._sums) > CACHE_LIMIT or self._bytes > CACHE_BYTES:
            self._sums.clear()
            self._probes.clear()
            self._bytes = 0  # the rests below fall back to _sum without their prefixes
        out = {}
        hands = radix.hands
        probes_of = self._probes
        sums = self._sums
        codes_of = self._codes
        valid = radix.valid
        caps = radix.caps
        shift = radix.top - radix.target
        n = len(multiset)
        prev = -1
        for i, sid in enumerate(multiset):
            if sid == prev:
                continue  # the multiset is sorted: an equal signature has the same facts
            prev = sid
            others = multiset[:i] + multiset[i + 1:]
            rest = sums.get((others, hands))
            if rest is None:
                # the sum of the first i (kept by the sum of all), then the others one at a time
                rest = sums.get((multiset[:i], hands)) if i else 1
                if rest is None:
                    rest = self._sum(others, radix)
                else:
                    for j in range(i + 1, n):
                        codes = codes_of.get((multiset[j], caps))
                        if codes is None:
                            codes = self._codes_of(multiset[j], radix)
                        rest = reduce(or_, map(rest.__lshift__, codes), 0) & valid
                    sums[(others, hands)] = rest
                    self._bytes += 64 + rest.bit_length() // 8
            rest <<= shift  # the other sets' sums, where the masks test them
            probes = probes_of.get((sid, caps))
            if probes is None:
                probes = self._probes_of(sid, radix)
            owner_probes, quartet_probes = probes
            facts: dict[int, int] = {}
            for d, pairs in owner_probes:
                seats = 0
                for bit, mask in pairs:
                    if rest & mask:
                        seats |= bit
                if seats:
                    facts[d] = seats
            quartet = 0
            for bit, mask in quartet_probes:
                if rest & mask:
                    quartet |= bit
            out[sid] = (facts, quartet)
        return out


_TOO_BIG = object()

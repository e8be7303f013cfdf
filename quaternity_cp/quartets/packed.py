"""Quaternity's part ``packed``: the in-memory solver's canonical positions as fixed-width keys for the shared
partitioned solver (:mod:`quaternity_cp.partitioned`).

A position is packed from the in-memory solver's own canonical key
(:meth:`quaternity_cp.quartets.solver.core.Context.describe`): the tightened
description of every set in play (its cards' possible owners, sorted, the open
question's card flagged; every seat's lower and upper bound on it), sorted; the
hand sizes; the seats on turn; the open question's asker and target; the scores
and, under ``tie = first``, the order in which the seats with points reached
them. So the symmetries the solver removes are removed here too (sets
relabelled, interchangeable cards of a set), and, where the rules count seats
from the mover, the seats are also *rotated* so that the seat deciding (the
mover, or the first seat of a shared turn) is seat 0 (:func:`rotates`).

Each field has a fixed number of bits (:class:`Layout`); a key is
``width`` 64-bit words (4x4x4: 230 bits, 4 words). A start whose positions do not fit
:data:`MAX_BITS` is refused before any work.

Positions are expanded by the in-memory solver itself (:meth:`Context.moves`,
:meth:`Context.child`, through its fast path): a key is decoded into a
:class:`~quaternity_cp.quartets.position.State` whose canonical key is the key
again (tested), its moves are generated and played, and each child's canonical
key is rotated and packed. The successors are therefore the in-memory solver's,
position by position; the tests compare every rank of every position for every
seat with its attractor on small starts of every preset that deals nothing.
This is the pure-Python path, the reference. When numba is installed, :meth:`QuaternityPacked.expand`
runs the compiled kernel of :mod:`.packed_nb` instead (``kernel="auto"``), which reads and writes the packed
words directly and gives the same rows in the same order (tests/test_packed_nb.py compares both position by
position); ``kernel="python"`` keeps this path.

Moves are numbered in the decoded position's frame: a question ``(card * P +
target) * 3 + answer`` (answer 0 open, 1 yes, 2 no; card and seats of the
decoded position), then the declarations (``Q + set``) and the free choices of
who moves (``Q + N + seat``), ``Q = N*S*P*3``.

A ply that ends the game with several winners (``tie = shared``) is one row per
winner (each of them forces a win through it); with ``only=True`` (the value
goal: a seat wins only alone) such a ply is won by nobody.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from ..errors import QuaternityError
from .game import Declaration, Game, Question
from .rules import Rules

if TYPE_CHECKING:
    from .position import State
    from .solver.core import Context

#: a canonical key of the in-memory solver (:meth:`quaternity_cp.quartets.solver.core.Context.describe`)
Key = tuple[Any, ...]
#: rules' tie -> [a player's best end, the best other score]: whether it cannot be a winner (:func:`_doomed_table`)
_DOOMED: dict[str, np.ndarray] = {}
#: the widest packed position (bits): 8 words, the shared partitioned solver's most
MAX_BITS = 512
#: the widest packed position of the lazy win solve (``solve --packed``, :mod:`quaternity_cp.lazywin`): its most
#: words (:data:`quaternity_cp.lazywin.MAX_WIDTH`)
LAZY_MAX_BITS = 24 * 64
#: the most seats: of the partitioned solver's starts, and of the lazy win solve's
MAX_PLAYERS, LAZY_MAX_PLAYERS = 8, 16
#: 1: keys as described in this module's text; 2: the shared layer's files without move numbers, ids in 4 bytes
#: while they fit, edges in slices
FORMAT = "quaternity-graph-2"
#: formats of earlier versions, refused with a word of why
OLD_FORMATS = {"quaternity-graph-1": "its part files keep move numbers and 8-byte ids"}


class PackedError(QuaternityError, ValueError):
    """A start the packed solver does not take (cards that cannot be dealt, positions too wide, rules it does not
    play); one line."""


def rotates(rules: Rules) -> bool:
    """Whether seats are counted from the mover (the rules never name a seat by its number): not under
    ``handover = seat`` (the lowest seat with cards takes over), nor under ``tie = first`` with automatic claims
    (seats that reach their score with the same move are then ordered by seat number)."""
    return rules.handover != "seat" and not (rules.tie == "first" and rules.auto_claim)


def _bits(most: int) -> int:
    """Bits for the numbers 0..most."""
    return max(1, int(most).bit_length())


class Layout:
    """The bit fields of a packed position of P seats and N sets of S cards (``first``: under ``tie = first`` the
    order the scored seats reached their scores is kept): ``card`` (a card's owners mask * 2 + the open question's
    flag), ``bound``, ``hand``, ``seat`` (a seat + 1, 0: none), ``score``, ``set_bits``, ``bits`` and ``width``
    (64-bit words)."""

    __slots__ = ("P", "N", "S", "first", "card", "bound", "hand", "seat", "score", "set_bits", "bits", "width")

    def __init__(self, P: int, N: int, S: int, first: bool):
        self.P, self.N, self.S, self.first = P, N, S, first
        self.card = P + 1
        self.bound = _bits(S)
        self.hand = _bits(N * S)
        self.seat = _bits(P)
        self.score = _bits(N)
        self.set_bits = S * self.card + 2 * P * self.bound
        self.bits = (N * self.set_bits + P * self.hand + P + 2 * self.seat + P * self.score
                     + (P * self.seat if first else 0))
        self.width = max(1, -(-self.bits // 64))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and (self.P, self.N, self.S, self.first) == (other.P, other.N, other.S,
                                                                                        other.first)

    def __hash__(self) -> int:
        return hash((self.P, self.N, self.S, self.first))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Layout, (self.P, self.N, self.S, self.first))


def rot_mask(m: int, r: int, P: int) -> int:
    """Seat mask ``m`` with seat r moved to 0 (seat p to (p - r) % P)."""
    if not r:
        return m
    full = (1 << P) - 1
    return ((m >> r) | (m << (P - r))) & full


def _rot_tuple(t: tuple[int, ...], r: int) -> tuple[int, ...]:
    return t[r:] + t[:r] if r else t


def frame_of(key: Key) -> int:
    """The seat a position's other seats are counted from: the target of its open question, else the first seat
    on turn (the mover, or the first of a shared turn)."""
    target = int(key[-2])
    if target >= 0:
        return target
    return int(key[-4][0])


def rotate_key(key: Key, r: int, P: int, first: bool) -> Key:
    """The solver's canonical key of a position (not over) with seat ``r`` moved to seat 0 (equal to the key of
    the rotated position: the description commutes with renaming seats)."""
    if not r:
        return key
    *bodies, hands, turn, asker, target, score = key
    out: list[tuple[Any, ...]] = []
    for cls, los, his in bodies:
        cls2 = tuple(sorted(rot_mask(c >> 1, r, P) << 1 | (c & 1) for c in cls))
        out.append((cls2, _rot_tuple(los, r), _rot_tuple(his, r)))
    out.sort()
    turn2 = tuple(sorted((p - r) % P for p in turn))
    a2 = (asker - r) % P if asker >= 0 else -1
    t2 = (target - r) % P if target >= 0 else -1
    if first:
        scores, ranks = score
        score2: Any = (_rot_tuple(scores, r), _rot_tuple(ranks, r))
    else:
        score2 = _rot_tuple(score, r)
    return (*out, _rot_tuple(hands, r), turn2, a2, t2, score2)


def pack_key(key: Key, lay: Layout) -> int:
    """A canonical key (not over) as one integer of ``lay.bits`` bits (fields from the lowest bit up: the set
    descriptions in the key's order, each its cards then its lower and upper bounds, a claimed set's slot all
    zero; hands; the turn's seats as a mask; asker + 1; target + 1; scores; under ``tie = first`` the reach
    ranks + 1)."""
    *bodies, hands, turn, asker, target, score = key
    cb, bb = lay.card, lay.bound
    v = 0
    at = 0
    for cls, los, his in bodies:
        for c in cls:
            v |= c << at
            at += cb
        for x in los:
            v |= x << at
            at += bb
        for x in his:
            v |= x << at
            at += bb
    at += (lay.N - len(bodies)) * lay.set_bits  # claimed sets: zeros (a card in play always has an owner)
    hb = lay.hand
    for h in hands:
        v |= h << at
        at += hb
    m = 0
    for p in turn:
        m |= 1 << p
    v |= m << at
    at += lay.P
    sb = lay.seat
    v |= (asker + 1) << at
    at += sb
    v |= (target + 1) << at
    at += sb
    scores, ranks = score if lay.first else (score, None)
    scb = lay.score
    for x in scores:
        v |= x << at
        at += scb
    if ranks is not None:
        for x in ranks:
            v |= (x + 1) << at
            at += sb
    return int(v)


def unpack_key(v: int, lay: Layout) -> Key:
    """The canonical key :func:`pack_key` packed."""
    P, S = lay.P, lay.S
    at = 0

    def get(bits: int) -> int:
        nonlocal at
        x = (v >> at) & ((1 << bits) - 1)
        at += bits
        return x

    cb, bb = lay.card, lay.bound
    bodies = []
    for _ in range(lay.N):
        cls = tuple(get(cb) for _ in range(S))
        los = tuple(get(bb) for _ in range(P))
        his = tuple(get(bb) for _ in range(P))
        if cls[0]:
            bodies.append((cls, los, his))
    hands = tuple(get(lay.hand) for _ in range(P))
    m = get(P)
    turn = tuple(p for p in range(P) if m >> p & 1)
    asker = get(lay.seat) - 1
    target = get(lay.seat) - 1
    scores = tuple(get(lay.score) for _ in range(P))
    score: Any = (scores, tuple(get(lay.seat) - 1 for _ in range(P))) if lay.first else scores
    return (*bodies, hands, turn, asker, target, score)


def to_words(v: int, width: int) -> list[int]:
    return [(v >> (64 * w)) & 0xFFFFFFFFFFFFFFFF for w in range(width)]


def from_words(row: Any) -> int:
    v = 0
    for w, x in enumerate(row):
        v |= int(x) << (64 * w)
    return v


def state_of_key(key: Key, game: Game, rules: Rules) -> "State":
    """A :class:`~quaternity_cp.quartets.position.State` whose canonical key is ``key`` (sets in play first, in
    the key's order, their cards in the key's order; the claimed sets after them, given to the seats with
    points; ``ply`` after every score's move)."""
    from .constraints import make_constraints
    from .position import State

    P, N, S = game.players, game.sets, game.set_size
    *bodies, hands, turn, asker, target, score = key
    first = rules.tie == "first"
    scores, ranks = score if first else (score, None)
    domains: list[int] = []
    lo: list[list[int]] = [[0] * N for _ in range(P)]
    hi: list[list[int]] = [[S] * N for _ in range(P)]
    pend = -1
    for s, (cls, los, his) in enumerate(bodies):
        for i, c in enumerate(cls):
            domains.append(c >> 1)
            if c & 1:
                pend = s * S + i
        for p in range(P):
            lo[p][s] = los[p]
            hi[p][s] = his[p]
    k = len(bodies)
    claimed = [-1] * k
    for p in range(P):
        claimed += [p] * scores[p]
    if len(claimed) != N:
        raise PackedError(f"a packed position holds {k} sets in play and {sum(scores)} claimed, not {N} sets")
    for s in range(k, N):
        domains += [1 << claimed[s]] * S
    in_play = tuple(cl == -1 for cl in claimed)
    c = make_constraints(P, S, in_play, tuple(hands), tuple(domains), tuple(map(tuple, lo)), tuple(map(tuple, hi)))
    reached = tuple(ranks[p] + 1 if ranks is not None and ranks[p] >= 0 else 0 for p in range(P))
    pending = Question(asker, target, pend) if asker >= 0 else None
    return State(c, tuple(claimed), tuple(scores), reached, tuple(turn), pending, None, P + 1)


#: the packed words of canonical keys already packed, per packed graph (:meth:`QuaternityPacked.key_words`)
_WORDS: dict[Any, dict[Key, tuple[list[int], int]]] = {}
#: keys remembered at most (then forgotten all at once: about 50 MB at 4x4x4)
WORDS_LIMIT = 100_000


@lru_cache(maxsize=8)
def _context(P: int, N: int, S: int, rules: Rules) -> "Context":
    """The in-memory solver's context of a game (one per process: its caches serve every batch)."""
    from .solver.core import Context

    return Context(Game(P, N, S), rules, "sets")


def _node(ctx: Any, st: Any) -> Any:
    """The search node of a decoded state: the fast path's straight away (its key is the slow path's), else the
    slow path's."""
    if ctx.kernel is not None:
        node = ctx.kernel.fast(st)
        if node is not None:
            return node
    return ctx.describe(st)


#: positions expanded by one call of the compiled kernel at most (its output arrays take room for every move of
#: each)
EXPAND_CHUNK = 256
#: edge rows the compiled kernel's output arrays take room for in one call, about: a call takes this divided by
#: the most rows a position may take (:func:`.packed_nb.max_rows`), 16 to EXPAND_CHUNK positions. The kernel
#: fills its arrays with zeros before it writes them: with many seats, room for 256 positions' every move took
#: longer to fill than the expansion itself (8x8x2: 2,128 rows a position, 13 MB a call; the lazy solve 3.5 times
#: faster in calls of 32 positions)
CHUNK_ROWS = 1 << 16


@lru_cache(maxsize=1)
def _has_numba() -> bool:
    import importlib.util

    return importlib.util.find_spec("numba") is not None


_CONFIGS: dict[Any, np.ndarray] = {}


def _config(packed: "QuaternityPacked") -> np.ndarray:
    cfg = _CONFIGS.get(packed)
    if cfg is None:
        from . import packed_nb

        _CONFIGS.clear()
        cfg = _CONFIGS[packed] = packed_nb.config(packed)
    return cfg


@dataclass(frozen=True)
class QuaternityPacked:
    """The packed graph of the start of a game of ``players`` seats and ``sets`` sets of ``set_size`` cards under
    ``rules`` (a :class:`quaternity_cp.partitioned.Packed`); ``only``: a ply won by several seats is won by
    nobody (the value goal)."""

    players: int
    sets: int
    set_size: int
    rules: Rules
    only: bool = False
    #: ``auto``: the compiled expansion (:mod:`.packed_nb`) when numba is installed, else the Python path;
    #: ``python``: the Python path (the reference); ``numba``: the compiled one (numba required)
    kernel: str = field(default="auto", compare=False)
    #: threads of the compiled kernel in one :meth:`expand` (its chunks of positions side by side: the kernel
    #: releases the GIL); the rows are the same, in the same order, for any number
    threads: int = field(default=1, compare=False)
    layout: Layout = field(init=False, repr=False, compare=False)

    name = "quaternity"
    format = FORMAT
    old_formats = OLD_FORMATS

    def __post_init__(self) -> None:
        object.__setattr__(self, "layout", Layout(self.players, self.sets, self.set_size, self.rules.tie == "first"))
        if self.kernel not in ("auto", "python", "numba"):
            raise PackedError(f"kernel must be auto, python or numba, not {self.kernel!r}")
        from ..threads import check_threads

        try:
            check_threads(self.threads)
        except ValueError as e:
            raise PackedError(str(e)) from None

    @property
    def compiled(self) -> bool:
        """Whether :meth:`expand` runs the compiled kernel (:mod:`.packed_nb`)."""
        if self.kernel == "python":
            return False
        if self.kernel == "numba":
            return True
        return _has_numba()

    @property
    def width(self) -> int:
        return self.layout.width

    @property
    def seats(self) -> int:
        return self.players

    @property
    def moves(self) -> int:
        return self.sets * self.set_size * self.players * 3 + self.sets + self.players

    @property
    def max_degree(self) -> int:
        return min(127, self.sets * self.set_size * self.players * 2 + self.sets + self.players)

    @property
    def rotated(self) -> bool:
        return rotates(self.rules)

    def identity(self) -> dict[str, Any]:
        return {"players": self.players, "sets": self.sets, "set_size": self.set_size,
                "rules": self.rules.to_dict() | {"name": self.rules.name}, "only_winner": self.only}

    def context(self) -> "Context":
        return _context(self.players, self.sets, self.set_size, self.rules)

    # -- keys ----------------------------------------------------------------------------------------------------
    def key_words(self, key: Key) -> tuple[list[int], int]:
        """The packed words of a canonical key (not over) and its frame seat (absolute, in ``key``'s seats).
        Remembered per process (:data:`_WORDS`): a position is reached from several parents, about four to
        eight times on average."""
        memo = _WORDS.get(self)
        if memo is None:
            _WORDS.clear()  # (one graph at a time in a worker)
            memo = _WORDS[self] = {}
        got = memo.get(key)
        if got is None:
            f = frame_of(key)
            r = f if self.rotated else 0
            got = (to_words(pack_key(rotate_key(key, r, self.players, self.layout.first), self.layout),
                            self.width), f)
            if len(memo) >= WORDS_LIMIT:
                memo.clear()
            memo[key] = got
        return got

    def key_of_words(self, row: Any) -> Key:
        return unpack_key(from_words(row), self.layout)

    def start(self) -> tuple[np.ndarray, int]:
        from .position import Position

        ctx = self.context()
        st = Position(ctx.game, self.rules, engine=ctx.engine).state
        node = ctx.describe(st)
        if node.over:  # pragma: no cover - a start has sets in play
            return np.zeros(self.width, np.uint64), -1
        words, f = self.key_words(node.key)
        return np.array(words, np.uint64), f

    def expand(self, keys: np.ndarray) -> dict[str, np.ndarray]:
        """The edges of ``keys`` (see :class:`quaternity_cp.partitioned.Packed`): by the compiled kernel when
        :attr:`compiled`, else by the Python path.
        Both give the same rows in the same order (tests/test_packed_nb.py)."""
        keys = np.asarray(keys, np.uint64).reshape(-1, self.width)
        if not self.compiled or not len(keys):
            return self.expand_python(keys)
        from . import packed_nb

        from ..threads import ordered_map, released

        cfg = _config(self)
        rows = packed_nb.max_rows(self)
        parts: list[dict[str, np.ndarray]] = []

        # (chunks of about CHUNK_ROWS rows; on threads, a batch of fewer keys than a chunk a thread is cut into one
        # chunk a thread, of 16 at least: the rows are the same however the keys are cut)
        per_call = max(16, min(EXPAND_CHUNK, CHUNK_ROWS // rows))
        size = per_call if self.threads == 1 else max(16, min(per_call, -(-len(keys) // self.threads)))

        def run(lo: int) -> tuple[np.ndarray, ...]:
            return tuple(released(packed_nb.expand_batch, cfg, keys[lo:lo + size], rows))

        starts = range(0, len(keys), size)
        for lo, got in zip(starts, ordered_map(run, starts, min(self.threads, len(starts)))):
            ck, src, off, mv, end, owner, degree, status = got
            if (status != 0).any():  # -3: a key without a deal
                raise PackedError("a packed position has no consistent deal (a damaged or foreign key)")
            # (the kernel's rows are views of buffers sized for the most rows a chunk may take, about a hundred
            # times what it uses: copied, so that a batch of many chunks holds its rows, not every buffer)
            out = {"keys": ck.copy(), "src": src + lo, "off": off.copy(), "move": mv.copy(), "end": end.copy(),
                   "owner": owner, "degree": degree}
            parts.append(out)
        if len(parts) == 1:
            return parts[0]
        return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}

    def expand_python(self, keys: np.ndarray) -> dict[str, np.ndarray]:
        """:meth:`expand` by the Python path: the in-memory solver's fast path plays every move (the
        reference of the compiled kernel)."""
        ctx = self.context()
        P, N, S = self.players, self.sets, self.set_size
        Q = N * S * P * 3
        only = self.only
        rows = np.asarray(keys, np.uint64).reshape(-1, self.width).tolist()
        ck: list[list[int]] = []
        src: list[int] = []
        off: list[int] = []
        mv: list[int] = []
        end: list[int] = []
        owner: list[int] = []
        degree: list[int] = []
        for i, row in enumerate(rows):
            key = self.key_of_words(row)
            st = state_of_key(key, ctx.game, self.rules)
            node = _node(ctx, st)
            f = frame_of(key)
            owner.append((node.mover - f) % P if node.mover >= 0 else -1)
            seen: set[Any] = set()
            for move in ctx.moves(node):
                child: Any = ctx.child(node, move)  # type: ignore[no-untyped-call]  # (the solver's untyped core)
                if type(move) is Question:
                    a = 0 if move.answer is None else (1 if move.answer else 2)
                    number = (move.card * P + move.target) * 3 + a
                elif type(move) is Declaration:
                    number = Q + move.set
                else:
                    number = Q + N + move.seat
                if child.over:
                    winners = tuple(child.winners)
                    if only and len(winners) > 1:
                        winners = ()
                    if ("end", winners) in seen:
                        continue
                    seen.add(("end", winners))
                    for w in winners or (-1,):
                        ck.append([0] * self.width)
                        src.append(i)
                        off.append(0)
                        mv.append(number)
                        end.append((w - f) % P if w >= 0 else -1)
                    continue
                words, cf = self.key_words(child.key)
                o = (cf - f) % P
                mark = (tuple(words), o)
                if mark in seen:
                    continue
                seen.add(mark)
                ck.append(words)
                src.append(i)
                off.append(o)
                mv.append(number)
                end.append(-2)
            degree.append(len(seen))
        m = len(src)
        return {"keys": np.array(ck, np.uint64).reshape(m, self.width), "src": np.array(src, np.int64),
                "off": np.array(off, np.int8), "move": np.array(mv, np.int16), "end": np.array(end, np.int8),
                "owner": np.array(owner, np.int8), "degree": np.array(degree, np.int16)}

    def decode(self, key: np.ndarray) -> dict[str, Any]:
        k = self.key_of_words(np.asarray(key, np.uint64).reshape(-1).tolist())
        *bodies, hands, turn, asker, target, score = k
        sets = [{"owners": [c >> 1 for c in cls], "open": [i for i, c in enumerate(cls) if c & 1],
                 "lo": list(los), "hi": list(his)} for cls, los, his in bodies]
        scores = score[0] if self.layout.first else score
        return {"sets": sets, "hands": list(hands), "turn": list(turn), "asker": asker, "target": target,
                "scores": list(scores)}

    # -- the lazy win solve's hooks (:mod:`quaternity_cp.lazywin`) -----------------------------------------------
    def _fields(self, keys: np.ndarray) -> dict[str, np.ndarray]:
        """Per key: the seats in the key's numbering of the frame (the mover: the open question's target, else the
        lowest seat on turn), the open question's asker (-1: none), the scores and the sets in play."""
        lay = self.layout
        P, N = lay.P, lay.N
        k = np.ascontiguousarray(keys, np.uint64).reshape(-1, self.width)

        def field(at: int, bits: int) -> np.ndarray:
            w, s = divmod(at, 64)
            v = k[:, w] >> np.uint64(s)
            if s + bits > 64:
                v = v | (k[:, w + 1] << np.uint64(64 - s))
            return (v & np.uint64((1 << bits) - 1)).astype(np.int64)

        in_play = np.zeros(len(k), np.int64)
        for j in range(N):
            in_play += field(j * lay.set_bits, lay.card) != 0
        at = N * lay.set_bits + P * lay.hand
        turn = field(at, P)
        at += P
        asker = field(at, lay.seat) - 1
        target = field(at + lay.seat, lay.seat) - 1
        at += 2 * lay.seat
        scores = np.stack([field(at + q * lay.score, lay.score) for q in range(P)], axis=1)
        low = np.zeros(len(k), np.int64)  # the lowest seat on turn
        for q in range(P - 1, -1, -1):
            low = np.where(turn >> q & 1 == 1, q, low)
        frame = np.where(target >= 0, target, low)
        return {"frame": frame, "asker": asker, "scores": scores, "in_play": in_play}

    def _player(self, f: dict[str, np.ndarray], seats: np.ndarray) -> np.ndarray:
        """The player's seat in the keys' numbering, from its seat counted from each key's mover."""
        s = np.asarray(seats, np.int64).reshape(-1)
        return s if self.rotated else (s + f["frame"]) % self.players

    def doomed(self, keys: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Per key: whether the player (``seats``: its seat counted from the key's mover) can no longer be a
        winner, the in-memory solve's ``cannot_win`` (:func:`.solver.api.cannot_be_winner`) of its scores and
        sets in play. That test reads two numbers only, the player's best end (its score and every set in play)
        and the best other score: it is asked once for each pair (:func:`_doomed_table`, its tie rule's one
        home), and each key looks its pair up (before, every key's scores were sorted to ask it once per
        distinct row: 8 % of a 4x5x4 lazy solve's time)."""
        f = self._fields(keys)
        me = self._player(f, seats)
        scores = f["scores"]
        top = f["in_play"].copy()
        best = np.zeros(len(scores), np.int64)
        for q in range(self.players):  # (column by column: the rows are a few seats wide)
            col = scores[:, q]
            mine = me == q
            top += np.where(mine, col, 0)
            np.maximum(best, np.where(mine, 0, col), out=best)
        table = _doomed_table(self.rules.tie, int(top.max(initial=0)), int(best.max(initial=0)))
        out: np.ndarray = table[top, best]
        return out

    def order(self, keys: np.ndarray, seats: np.ndarray, src: np.ndarray, moves: np.ndarray) -> np.ndarray:
        """Per move ``moves[r]`` played at the position ``src[r]`` of ``keys`` (the player's seat there counted from
        its mover: ``seats``): its place in the in-memory solve's opponent order (:func:`.solver.api.opponent_order`,
        lower first): a shared turn given to another seat, a declaration, a no to the player's question or a yes
        to another's, 0; a shared turn given to the player, the other answer, a question whose answer is a forced
        yes, 1; a question to the player 2; any other question 3. That place times the seats, plus, for a
        question, its target's seat counted from the player: among questions of one place, those to the seats
        after the player first, as the in-memory solve's seat order puts them for the player at seat 0 (in the
        kernel's own order, which counts seats from the mover, the lazy solve explored 181,886 positions of
        8x8x2 against the in-memory solve's 130,564; in this one 132,587)."""
        f = self._fields(keys)
        src = np.asarray(src, np.int64).reshape(-1)
        me = self._player(f, seats)[src]
        f = {"asker": f["asker"][src]}
        mv = np.asarray(moves, np.int64).reshape(-1)
        P, N, S = self.players, self.sets, self.set_size
        Q = N * S * P * 3
        answer = mv % 3
        target = (mv // 3) % P
        pending = f["asker"] >= 0
        ask = np.where(answer == 1, 1, np.where(target == me, 2, 3))
        reply = np.where(f["asker"] == me, np.where(answer == 2, 0, 1), np.where(answer == 1, 0, 1))
        question = np.where(pending, reply, ask)
        choice = np.where(mv - Q - N == me, 1, 0)
        place = np.where(mv < Q, question, np.where(mv < Q + N, 0, choice))
        after = np.where((mv < Q) & ~pending, (target - me) % P, 0)  # (3P + P - 1 < 128: an int8 at 16 seats)
        return (place * P + after).astype(np.int8)

    def move_of(self, number: int, key: Key) -> Any:
        """The move numbered ``number`` at the position of canonical key ``key`` (decoded frame)."""
        from .solver.moves import Choice

        P, N, S = self.players, self.sets, self.set_size
        Q = N * S * P * 3
        if number < Q:
            cell, a = divmod(number, 3)
            card, target = divmod(cell, P)
            asker = key[-3] if key[-3] >= 0 else frame_of(key)
            return Question(asker, target, card, (None, True, False)[a])
        if number < Q + N:
            return Declaration(frame_of(key), number - Q)
        return Choice(number - Q - N)


def _doomed_table(tie: str, top: int, best: int) -> np.ndarray:
    """``table[t, b]``: whether a player whose best end is ``t`` sets cannot be a winner against a best other score
    of ``b`` (:func:`.solver.api.cannot_be_winner` of the scores (t, b), nothing left, the player first), for
    every t <= ``top`` and b <= ``best`` at least; kept per tie rule, grown as larger scores come."""
    from .solver.api import cannot_be_winner

    table = _DOOMED.get(tie)
    if table is None or table.shape[0] <= top or table.shape[1] <= best:
        T = max(top + 1, table.shape[0] if table is not None else 0, 8)
        B = max(best + 1, table.shape[1] if table is not None else 0, 8)
        table = np.array([[cannot_be_winner(tie, (t, b), 0, 0) for b in range(B)] for t in range(T)], np.bool_)
        _DOOMED[tie] = table
    return table


def check_start(players: object, sets: object, set_size: object, rules: Rules, lazy: bool = False
                ) -> tuple[int, int, int]:
    """P, N, S of a start the packed solver takes (``lazy``: the lazy win solve over packed positions, which takes
    more seats and wider keys, :data:`LAZY_MAX_PLAYERS` and :data:`LAZY_MAX_BITS`); else :class:`PackedError`
    naming the reason."""
    for name, v in (("players", players), ("sets", sets), ("set size", set_size)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise PackedError(f"--start: the {name} must be a whole number >= 1, not {v!r}")
    assert isinstance(players, int) and isinstance(sets, int) and isinstance(set_size, int)
    if players < 2:
        raise PackedError(f"--start: a game needs at least 2 players, not {players}")
    most, widest = (LAZY_MAX_PLAYERS, LAZY_MAX_BITS) if lazy else (MAX_PLAYERS, MAX_BITS)
    if players > most or sets > 64 or set_size > 15:
        more = "" if lazy or players > LAZY_MAX_PLAYERS else f" (solve --packed takes up to {LAZY_MAX_PLAYERS})"
        raise PackedError(f"--start {players} {sets} {set_size}: the {'lazy ' if lazy else ''}packed solver takes at "
                          f"most {most} players{more}, 64 sets and sets of 15 cards")
    if sets * set_size % players:
        raise PackedError(f"--start {players} {sets} {set_size}: {sets * set_size} cards cannot be dealt evenly to "
                          f"{players} players")
    if rules.dealt or rules.empty_hand != "skip":
        raise PackedError(f"--rules {rules.name}: the solver plays no dealt cards and no empty-handed askers "
                          "(dealt = true or empty_hand = ask)")
    if rules.tie == "random":
        raise PackedError(f"--rules {rules.name}: the solver does not handle tie = random")
    lay = Layout(players, sets, set_size, rules.tie == "first")
    if lay.bits > widest:
        more = "" if lazy or lay.bits > LAZY_MAX_BITS else f" (solve --packed takes up to {LAZY_MAX_BITS})"
        raise PackedError(f"--start {players} {sets} {set_size}: a position takes {lay.bits} bits, more than the "
                          f"packed width of {widest}{more}")
    return players, sets, set_size


def packed_for(options: Mapping[str, Any]) -> QuaternityPacked:
    """The game's part ``packed``: the start of a table's options as :data:`quaternity_cp.quartets.SPEC` declares
    them (``preset``, ``players``, ``sets``, ``set_size``; ``rules``: a :class:`Rules` instead of the preset;
    ``only``: the value goal's graph). A start the packed solver does not take raises :class:`PackedError`."""
    rules = options.get("rules")
    r = rules if isinstance(rules, Rules) else Rules.preset(str(options.get("preset", "quaternity")))
    P, N, S = check_start(options.get("players", 3), options.get("sets", 3), options.get("set_size", 3), r)
    return QuaternityPacked(P, N, S, r, bool(options.get("only", False)))


__all__ = ["FORMAT", "OLD_FORMATS", "MAX_BITS", "LAZY_MAX_BITS", "MAX_PLAYERS", "LAZY_MAX_PLAYERS", "PackedError",
           "Layout", "QuaternityPacked", "check_start", "packed_for",
           "rotates", "rotate_key", "frame_of", "pack_key", "unpack_key", "state_of_key"]

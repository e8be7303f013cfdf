"""The solver's fast path: positions as rows of sets, played and keyed without building constraints.

A search spends its time playing a move, analysing the new position and
computing its canonical key (see :mod:`.core`). Done through
:class:`~quaternity_cp.quartets.position.Position`, every step rebuilds the whole
constraint value, and the set-signature engine then splits it back into sets.
Here a position is kept split: one :class:`Row` per set (its cards' domains in
card order and its column of bounds), interned, so that

- a move changes one row (or, under ``silence``, the asker's bound in each row)
  and the change of a row is remembered on the row;
- an analysis is looked up by the sorted signature numbers of the rows and the
  hands, straight in the set-signature engine's tables (a row's signature
  leaves out the bounds its cards meet anyway, so more rows share one);
- the owners of an asked card come from the engine's masks of the asked set
  against the sum of the other sets, which every question on that set shares;
- a row's part of the key (its tightened description, see
  :meth:`.core.Context.set_description`) is remembered per analysis.

The rules are the position's own, step for step (question constraints, the
answer's update, automatic claims, declarations, the hand-over with every
option the solver accepts), and so are the keys and the order of the moves: a
search through this module builds exactly the graph the slow path builds (the
tests compare both, and each step with ``Position.push``). A node can always be
turned into a :class:`~quaternity_cp.quartets.position.State` (:meth:`Kernel.state`).
When the engine would hand a position to the flow engine (bit sets too large),
the move is played the slow way and its result is a slow
:class:`.core.Node`, whose moves are played the slow way too.
"""

from __future__ import annotations

from dataclasses import fields

from .. import effects, outcome
from ..constraints import make_constraints, transfer_bounds, whole_set_domains
from ..engines.sets import CACHE_LIMIT, MAX_BITS, Radix, SetsEngine, TooManyVectors
from ..game import Declaration, Question
from ..position import State
from .moves import Choice


_STATE_FIELDS = tuple([f.name for f in fields(State) if f.name != "constraints"])


class _Fallback(Exception):
    """This analysis is beyond the set-signature engine: play the move the slow way."""


class Row:
    """One set of a position: its cards' domains (card order) and every seat's bounds on it.

    Rows are interned (equal rows are one object while the table lasts); what a
    move makes of a row is remembered in ``moves``.
    """

    __slots__ = ("doms", "lo", "hi", "sig", "ok", "sid", "gen", "moves")

    def __init__(self, doms: tuple[int, ...], lo: tuple[int, ...], hi: tuple[int, ...]):
        self.doms, self.lo, self.hi = doms, lo, hi
        self.ok = min(lo) >= 0 and min(hi) >= 0  # negative bounds describe no position
        # the engine's signature: cards in any order, and the bounds every placement of the cards
        # meets anyway left out (a seat holds at least the cards only it may hold, at most those it
        # may hold), so that rows differing only there share the engine's tables
        P = len(lo)
        forced = [0] * P
        possible = [0] * P
        for d in doms:
            if d and not d & (d - 1):
                forced[d.bit_length() - 1] += 1
            p = 0
            while d:
                if d & 1:
                    possible[p] += 1
                d >>= 1
                p += 1
        self.sig = (tuple(sorted(doms)), tuple(map(max, lo, forced)), tuple(map(min, hi, possible)))
        self.sid = -1  # its number in the engine, valid for generation gen
        self.gen = -1
        self.moves: dict = {}


class _Analysis:
    """An analysis of a multiset of signatures with hands: per signature (domain -> seats, quartet seats);
    ``res`` is None when no deal exists. ``parts`` remembers each row's part of the key."""

    __slots__ = ("res", "parts")

    def __init__(self, res) -> None:
        self.res = res
        self.parts: dict = {}


class KNode:
    """A position of the fast path, with its key (the same key :meth:`.core.Context.describe` gives)."""

    __slots__ = ("rows", "hands", "claimed", "scores", "reached", "turn", "pending", "ply",
                 "key", "parts", "over", "winners", "mover")
    rows: tuple[Row, ...]
    hands: tuple[int, ...]
    claimed: tuple[int, ...]
    scores: tuple[int, ...]
    reached: tuple[int, ...]
    turn: tuple[int, ...]
    pending: Question | None
    ply: int
    key: tuple
    parts: list | None  # (set description, set, part) per set in play (see Kernel._parts); empty when over,
    # None when parked (see Kernel.park)
    over: bool
    winners: tuple[int, ...]
    mover: int

    @property
    def sets_left(self) -> int:
        return self.claimed.count(-1)


def question_rule(silence: bool, S: int) -> tuple[bool, int, int | None]:
    """What a question tells, as the kernel's rows apply it, read from :func:`quaternity_cp.quartets.effects.question_facts`
    (the one home of the rule) on a template game of two seats and two sets of ``S`` cards: whether the asker
    then lacks the card asked for, the least number of that set's cards it then holds, and the most it then
    holds of every set in play (None: no cap; under ``silence``: S - 1). A fact the rows cannot express is an
    error at setup, never a silent difference."""
    from ..constraints import Constraints

    c = Constraints.initial(2, 2, S)
    lacks, least, cap, capped = False, 0, None, set()
    for fact in effects.question_facts(c, 0, 0, silence=silence):
        if isinstance(fact, effects.Lacks) and (fact.card, fact.seat) == (0, 0):
            lacks = True
        elif isinstance(fact, effects.AtLeast) and (fact.seat, fact.set) == (0, 0):
            least = max(least, fact.count)
        elif isinstance(fact, effects.AtMost) and fact.seat == 0:
            cap = fact.count if cap is None else min(cap, fact.count)
            capped.add(fact.set)
        else:
            raise AssertionError(f"a question tells what the solver's kernel cannot apply: {fact!r}")
    if cap is not None and capped != set(c.sets_in_play):
        raise AssertionError(f"a question caps some sets only ({sorted(capped)}): the kernel caps every set")
    return lacks, least, cap


class Kernel:
    """Plays, keys and generates the moves of :class:`KNode` positions for a :class:`.core.Context`."""

    def __init__(self, ctx, max_bits: int = MAX_BITS):
        self.ctx = ctx
        game, rules = ctx.game, ctx.rules
        self.P = game.players
        self.S = game.set_size
        self.rules = rules
        self.engine = SetsEngine(max_bits)  # its own: its numbering is only reset from here
        self.gen = 0
        self.rows: dict[tuple, Row] = {}
        self.analyses: dict[tuple, _Analysis] = {}
        self.asked: dict[tuple, int] = {}  # (signature, other signatures, hands, domain) -> owners (0: none)
        self._lives: dict[tuple, tuple[int, ...]] = {}  # claimed -> the sets in play
        self._batches: dict[tuple, list] = {}  # see _batch
        self._intern = ctx.intern  # one object for equal small tuples (see Context.intern)
        self._facts: dict[tuple, tuple] = {}  # (a signature's facts as items, quartet seats) -> one (facts, quartet)
        self.calls = 0  # analyses computed (not found in a table)
        self.fallbacks = 0  # moves played the slow way
        # what a question tells, taken from quaternity_cp.quartets.effects (the one home of the rule) as row operations
        self._q_lacks, self._q_least, self._q_cap = question_rule(rules.silence, self.S)

    # -- rows and analyses ----------------------------------------------------------
    def _live(self, claimed: tuple[int, ...]) -> tuple[int, ...]:
        live = self._lives.get(claimed)
        if live is None:
            if len(self._lives) > CACHE_LIMIT:
                self._lives.clear()
            live = self._lives[claimed] = tuple([s for s, cl in enumerate(claimed) if cl == -1])
        return live

    def row(self, doms, lo, hi) -> Row:
        key = (doms, lo, hi)
        r = self.rows.get(key)
        if r is None:
            if len(self.rows) > CACHE_LIMIT:
                self.rows.clear()  # rows held by nodes stay valid; only sharing is lost
            r = self.rows[key] = Row(doms, lo, hi)
        return r

    def _sid(self, r: Row) -> int:
        if r.gen == self.gen:
            return r.sid
        sid = self.engine.number(r.sig)
        r.sid, r.gen = sid, self.gen
        return sid

    def _check_reset(self) -> None:
        eng = self.engine
        if eng.numbered > CACHE_LIMIT:  # the engine renumbers: every number known here goes
            eng.reset()
            self.gen += 1
            self.analyses.clear()
            self.asked.clear()

    def _radix(self, hands: tuple[int, ...]) -> Radix:
        radix = self.engine.radix(hands, self.S)
        if radix is None:
            raise _Fallback
        return radix

    def _check_time(self) -> None:
        """The running search's time limit, checked before every analysis computed (as the slow path's
        engine does)."""
        budget = self.ctx.engine.budget
        if budget is not None:
            budget.check_time()

    def analysis(self, live: list[Row], hands: tuple[int, ...]) -> _Analysis:
        """The analysis of the rows ``live`` (the sets in play) with these hands."""
        self._check_reset()
        gen = self.gen
        key = (tuple(sorted([r.sid if r.gen == gen else self._sid(r) for r in live])), hands)
        an = self.analyses.get(key)
        if an is not None:
            return an
        self._check_time()
        self.calls += 1
        res = None
        if min(hands) >= 0 and sum(hands) == len(live) * self.S and all([r.ok for r in live]):
            radix = self._radix(hands)
            try:
                res = self.engine.facts(key[0], radix)
            except TooManyVectors:
                raise _Fallback from None
            if res is not None:  # few distinct facts among very many analyses: one object for equal ones
                shared = self._facts
                if len(shared) > CACHE_LIMIT:
                    shared.clear()
                for sid, pair in res.items():
                    res[sid] = shared.setdefault((tuple(pair[0].items()), pair[1]), pair)
        an = _Analysis(res)
        if len(self.analyses) > CACHE_LIMIT:
            self.analyses.clear()
        self.analyses[key] = an
        return an

    def _part(self, an: _Analysis, r: Row, hands, at: int):
        """Row r's part of the key under analysis ``an`` (just computed, so r.sid is current):
        (description, card offsets per class, owners per card, possible quartet seats, the seat
        holding the whole set in every deal or -1)."""
        facts, quartet = an.res[r.sid]
        ow = tuple([facts.get(d, 0) for d in r.doms])
        ctx = self.ctx
        # the description only depends on the bounds through the signature's (see Row): owners are
        # within domains, so max(lo, forced) and min(hi, possible) come out the same
        desc = ctx.set_description(ow, r.sig[1], r.sig[2], hands, at)
        first = ow[0]
        forced = first.bit_length() - 1 if first and not first & (first - 1) and ow.count(first) == len(ow) else -1
        got = self._intern((desc[0], desc[1], ow, quartet, forced))
        an.parts[r if at < 0 else (r, at)] = got
        return got

    def _parts(self, rows, hands, claimed, pending):
        """(set description, set, part) of every set in play, sorted as the key has them; None when no deal
        is left (never for a position the generators reach)."""
        live = self._live(claimed)
        an = self.analysis([rows[s] for s in live], hands)
        if an.res is None:
            return None
        parts = an.parts
        items = []
        if pending is None:
            for s in live:
                r = rows[s]
                part = parts.get(r)
                if part is None:
                    part = self._part(an, r, hands, -1)
                items.append((part[0], s, part))
        else:
            S = self.S
            pend = pending.card
            for s in live:
                base = s * S
                at = pend - base if base <= pend < base + S else -1
                r = rows[s]
                part = parts.get(r if at < 0 else (r, at))
                if part is None:
                    part = self._part(an, r, hands, at)
                items.append((part[0], s, part))
        items.sort()  # by description, then set (the slow path's order: set numbers are distinct)
        return items

    # -- between the two representations ---------------------------------------------
    def node(self, st: State) -> KNode:
        """The fast node of a state (any state the solver may meet)."""
        c = st.constraints
        S = self.S
        los = list(zip(*c.lo))
        his = list(zip(*c.hi))
        rows = tuple(self.row(c.domains[s * S:s * S + S], los[s], his[s]) for s in range(len(c.in_play)))
        return self._finish(rows, c.hands, st.claimed, st.scores, st.reached, st.turn, st.pending, st.ply)

    def pack(self, st: State) -> tuple:
        """Any state as its interned rows (shared with every other position that has them) and its other
        fields: what a parked slow node keeps (see :meth:`.core.Context.park`); :meth:`unpack` undoes it."""
        c = st.constraints
        S = self.S
        los = list(zip(*c.lo))
        his = list(zip(*c.hi))
        rows = tuple([self.row(c.domains[s * S:s * S + S], los[s], his[s]) for s in range(len(c.in_play))])
        return rows, c.in_play, c.hands, tuple([getattr(st, name) for name in _STATE_FIELDS])

    def unpack(self, packed: tuple) -> State:
        """The state :meth:`pack` was given (an equal value)."""
        rows, in_play, hands, values = packed
        c = make_constraints(self.P, self.S, in_play, hands, tuple([d for r in rows for d in r.doms]),
                             tuple(zip(*[r.lo for r in rows])), tuple(zip(*[r.hi for r in rows])))
        st = object.__new__(State)  # as make_constraints: the value without the frozen constructor's cost
        st.__dict__.update(zip(_STATE_FIELDS, values), constraints=c)
        return st

    def state(self, n: KNode) -> State:
        """The :class:`State` of a fast node (``last_claims`` empty)."""
        rows = n.rows
        c = make_constraints(self.P, self.S, tuple(cl == -1 for cl in n.claimed), n.hands,
                  tuple(d for r in rows for d in r.doms),
                  tuple(zip(*[r.lo for r in rows])), tuple(zip(*[r.hi for r in rows])))
        return State(c, n.claimed, n.scores, n.reached, n.turn, n.pending, None, n.ply)

    # -- keys -----------------------------------------------------------------------------
    def _finish(self, rows, hands, claimed, scores, reached, turn, pending, ply, items=None) -> KNode:
        n = KNode()
        n.rows, n.hands, n.claimed, n.scores, n.reached = rows, hands, claimed, scores, reached
        n.turn, n.pending, n.ply = turn, pending, ply
        if -1 not in claimed:
            n.over = True
            n.winners = self._winners(scores, reached)
            n.key = ("end", n.winners)
            n.mover = -2
            n.parts = []
            return n
        n.over = False
        n.winners = ()
        if items is None:
            items = self._parts(rows, hands, claimed, pending)
            if items is None:  # pragma: no cover - the generators only produce legal moves
                raise AssertionError("the solver reached a position without a consistent deal")
        n.parts = items
        score = self.ctx.score_key(scores, reached)
        if pending is not None:
            n.key = (*[t[0] for t in items], hands, turn, pending.asker, pending.target, score)
            n.mover = pending.target
        else:
            n.key = (*[t[0] for t in items], hands, turn, -1, -1, score)
            n.mover = turn[0] if len(turn) == 1 else -1
        return n

    def park(self, n: KNode) -> None:
        """Let a node that waits (in a lazy search, an opponent's node with moves not yet played) hold less
        memory: it forgets its parts, which :meth:`moves` finds again (the same) when asked."""
        if not n.over:
            n.parts = None

    def _winners(self, scores, reached) -> tuple[int, ...]:
        """``Position.winners`` of a finished game (:func:`quaternity_cp.quartets.outcome.winners`; nobody lost by an
        illegal move: the solver makes none; tie = random is refused by solve)."""
        return tuple(outcome.winners(scores, tie=self.rules.tie, reached=reached))

    # -- moves ----------------------------------------------------------------------------
    def moves(self, n: KNode, until=None) -> tuple[list, bool]:
        """:meth:`.core.Context.moves` of a fast node (with ``until``: :meth:`.core.Context.moves_until`)."""
        if n.over:
            return [], True
        if n.parts is None:  # parked: its parts again (the analysis is in the table, or computed again)
            n.parts = self._parts(n.rows, n.hands, n.claimed, n.pending)
        q = n.pending
        if q is not None:
            yes, no = effects.legal_answers(self._owners(n, q.card), q.target)
            answers = []
            if yes:
                answers.append(q.answered(True))
            if no:
                answers.append(q.answered(False))
            return answers, True
        if len(n.turn) > 1:
            return [Choice(p) for p in n.turn], True
        out: list = []
        for batch in self._ask_batches(n, n.turn[0]):
            out += batch
            if until is not None and any(until(m) for m in batch):
                return out, False
        return out, True

    def _owners(self, n: KNode, card: int) -> int:
        s, off = divmod(card, self.S)
        assert n.parts is not None, "a parked node is unparked before it is searched"
        for _, t, part in n.parts:
            if t == s:
                return part[2][off]
        raise AssertionError("the card of the open question is in play")  # pragma: no cover

    def _ask_batches(self, n: KNode, x: int):
        """:meth:`.core.Context._ask_batches` (representative sets and cards, combined answers)."""
        rules = self.rules
        S = self.S
        hands = n.hands
        reps = []
        prev = None
        assert n.parts is not None, "a parked node is unparked before it is searched"
        for body, s, part in n.parts:
            if body != prev:
                reps.append((s, part[1], part[2], part[3]))
                prev = body
        if rules.declare:
            yield [Declaration(x, s) for s, _, _, quartet in reps if quartet >> x & 1]
        if hands[x] == 0:
            return
        targets = 0  # the seats x may ask: others holding cards
        for y in range(self.P):
            if y != x and hands[y] > 0:
                targets |= 1 << y
        if not targets:
            return
        mine = 1 << x
        rows = n.rows
        live = self._live(n.claimed)
        self._check_reset()  # the signature numbers below stay valid until the next analysis
        batches = self._batches
        silence = self._q_cap is not None  # a question caps every set (effects, see question_rule)
        for s, offsets, ow, _ in reps:
            holds = not silence and (rows[s].lo[x] >= 1 or mine in ow)
            rest = None
            base = s * S
            for off in offsets:
                owners = ow[off] & ~mine
                if not owners:
                    continue
                if not holds:
                    if rest is None:
                        rest = self._rest(rows, live, s, x)
                    owners = self._asked_owners(rows[s], off, x, hands, rest)
                    if owners is None:
                        continue
                key = (x, base + off, owners, targets)
                batch = batches.get(key)
                if batch is None:
                    if len(batches) > CACHE_LIMIT:
                        batches.clear()
                    batch = batches[key] = self._batch(x, base + off, owners, targets)
                yield batch

    def _batch(self, x: int, card: int, owners: int, targets: int) -> list:
        """The questions of x for ``card`` whose possible owners, once asked, are ``owners``: to each
        target that may hold it (with its answer when forced), and under ``forced_no_question`` to
        the others too (answer no). The lists are shared: callers copy them (``out += batch``)."""
        batch = []
        for y in range(self.P):
            if not targets >> y & 1:
                continue
            yes, no = effects.legal_answers(owners, y)
            if not (self.rules.forced_no_question or yes):
                continue
            if not yes:
                batch.append(Question(x, y, card, False))
            elif not no:
                batch.append(Question(x, y, card, True))
            else:
                batch.append(Question(x, y, card))
        return batch

    def _asked_row(self, r: Row, off: int, x: int) -> Row:
        """Row r once ``x`` has asked for its card ``off``: x lacks it and holds a card of the set."""
        mk = ("q", off, x)
        nr = r.moves.get(mk)
        if nr is None:
            doms = list(r.doms)
            if self._q_lacks:
                doms[off] &= ~(1 << x)
            lo = r.lo
            if lo[x] < self._q_least:
                lo = lo[:x] + (self._q_least,) + lo[x + 1:]
            nr = r.moves[mk] = self.row(tuple(doms), lo, r.hi)
        return nr

    def _asked(self, rows, live, s: int, off: int, x: int) -> tuple:
        """The rows once ``x`` has asked for card ``off`` of set ``s`` (``Position.question_constraints``)."""
        rows = rows[:s] + (self._asked_row(rows[s], off, x),) + rows[s + 1:]
        if self._q_cap is not None:
            rows = list(rows)
            for t in live:
                rows[t] = self._capped(rows[t], x)
            rows = tuple(rows)
        return rows

    def _capped(self, r: Row, x: int) -> Row:
        """Row r with x's upper bound at most the question's cap (under ``silence``: S - 1)."""
        top = self._q_cap if self._q_cap is not None else self.S
        if r.hi[x] <= top:
            return r
        mk = ("cap", x)
        nr = r.moves.get(mk)
        if nr is None:
            nr = r.moves[mk] = self.row(r.doms, r.lo, r.hi[:x] + (top,) + r.hi[x + 1:])
        return nr

    def _rest(self, rows, live, s: int, x: int) -> tuple[tuple[int, ...], bool]:
        """The sorted signature numbers of the sets in play but s once ``x`` has asked about s (under
        ``silence`` the question caps x's bounds on them), and whether their bounds are all valid."""
        silence = self._q_cap is not None
        gen = self.gen
        sids = []
        ok = True
        for t in live:
            if t != s:
                r = rows[t]
                if silence:
                    r = self._capped(r, x)
                sids.append(r.sid if r.gen == gen else self._sid(r))
                ok = ok and r.ok
        sids.sort()
        return tuple(sids), ok

    def _asked_owners(self, r: Row, off: int, x: int, hands, rest) -> int | None:
        """Who may hold card ``off`` of row ``r`` once ``x`` has asked for it, the other sets being
        ``rest`` (see :meth:`_rest`); None when no deal is left.

        Only this card's owners are computed (remembered by the signatures, hands and domain): the
        engine's probes of the asked set against the sum of the other sets, which every question on
        this set shares."""
        r = self._asked_row(r, off, x)
        if self._q_cap is not None:
            r = self._capped(r, x)
        rest_key, ok = rest
        sid = r.sid if r.gen == self.gen else self._sid(r)
        d = r.doms[off]
        key = (sid, rest_key, hands, d)
        owners = self.asked.get(key)
        if owners is None:
            owners = 0
            if r.ok and ok:
                self._check_time()
                self.calls += 1
                radix = self._radix(hands)
                try:
                    owners = self.engine.card_owners(sid, d, rest_key, radix)
                except TooManyVectors:
                    raise _Fallback from None
            if len(self.asked) > CACHE_LIMIT:
                self.asked.clear()
            self.asked[key] = owners
        return owners or None

    # -- playing -------------------------------------------------------------------------
    def play(self, n: KNode, move) -> KNode:
        """The node after a move the generators produced (:meth:`.core.Context.play`, then ``describe``)."""
        try:
            return self._play(n, move)
        except _Fallback:  # the slow way, and the slow way on from there
            self.fallbacks += 1
            ctx = self.ctx
            return ctx.describe(ctx.play(self.state(n), move))

    def fast(self, st: State) -> KNode | None:
        """The fast node of a state (its key is :meth:`.core.Context.describe`'s), or None when the engine cannot
        take it (the slow path plays it then)."""
        try:
            return self.node(st)
        except _Fallback:
            self.fallbacks += 1
            return None

    def convert(self, node):
        """The fast node of a :class:`.core.Node`, or the node itself when the engine cannot take it."""
        try:
            return self.node(node.state)
        except _Fallback:
            self.fallbacks += 1
            return node

    def _play(self, n: KNode, move) -> KNode:
        if type(move) is Choice:
            return self._finish(n.rows, n.hands, n.claimed, n.scores, n.reached, self._intern((move.seat,)), None,
                                n.ply)
        P, S = self.P, self.S
        ply = n.ply + 1
        if type(move) is Declaration:
            p, s = move.player, move.set
            r = n.rows[s]
            mk: tuple = ("all", p)
            nr = r.moves.get(mk)
            if nr is None:
                nr = r.moves[mk] = self.row(whole_set_domains(r.doms, p), r.lo, r.hi)
            rows = n.rows[:s] + (nr,) + n.rows[s + 1:]
            hands, claimed, scores, reached = self._claim(n.hands, n.claimed, n.scores, n.reached, [(s, p)], ply)
            return self._after(rows, hands, claimed, scores, reached, ply, (p,))
        x, y, card = move.asker, move.target, move.card
        s, off = divmod(card, S)
        rows = n.rows
        if n.pending is None:
            rows = self._asked(rows, self._live(n.claimed), s, off, x)
        if move.answer is None:  # the question is open: the target answers next
            return self._finish(rows, n.hands, n.claimed, n.scores, n.reached, self._intern((x,)), move, ply)
        r = rows[s]
        hands = n.hands
        yes = move.answer
        if yes:
            mk = ("yes", off, x, y)
            nr = r.moves.get(mk)
            if nr is None:
                doms = list(r.doms)
                doms[off] = 1 << x  # the card is the asker's now
                lo, hi = transfer_bounds(r.lo, r.hi, y, x, S)  # the one rule of a transfer (constraints)
                nr = r.moves[mk] = self.row(tuple(doms), lo, hi)
            h = list(hands)
            h[y] -= 1
            h[x] += 1
            hands = self._intern(tuple(h))
        else:
            mk = ("no", off, y)
            nr = r.moves.get(mk)
            if nr is None:
                doms = list(r.doms)
                doms[off] &= effects.answer_domain(y, False)  # what a no says (effects)
                nr = r.moves[mk] = self.row(tuple(doms), r.lo, r.hi)
        order = effects.next_order(yes, x, y, P, self.rules.after_no)
        rows = rows[:s] + (nr,) + rows[s + 1:]
        return self._after(rows, hands, n.claimed, n.scores, n.reached, ply, order)

    def _claim(self, hands, claimed, scores, reached, claims, ply):
        hands, claimed, scores, reached = list(hands), list(claimed), list(scores), list(reached)
        for s, p in claims:
            hands[p] -= self.S
            claimed[s] = p
            scores[p] += 1
            reached[p] = ply
        intern = self._intern
        return intern(tuple(hands)), intern(tuple(claimed)), intern(tuple(scores)), intern(tuple(reached))

    def _after(self, rows, hands, claimed, scores, reached, ply, order) -> KNode:
        """Automatic claims, then the hand-over to the first of ``order`` (``Position._hand_over``)."""
        items = None
        if -1 in claimed:
            items = self._parts(rows, hands, claimed, None)
            if self.rules.auto_claim and items is not None:
                claims = [(s, part[4]) for _, s, part in items if part[4] >= 0]
                if claims:
                    claims.sort()
                    hands, claimed, scores, reached = self._claim(hands, claimed, scores, reached, claims, ply)
                    items = None  # other hands: analysed again
        if -1 not in claimed:
            return self._finish(rows, hands, claimed, scores, reached, (), None, ply)
        rules = self.rules
        chosen = effects.hand_over(order, hands=hands, scores=scores, empty_hand=rules.empty_hand,
                                   handover=rules.handover)
        if not self.rules.forced_no_question:
            chosen = tuple(sorted({self._skip(rows, claimed, hands, p) for p in chosen}))
        return self._finish(rows, hands, claimed, scores, reached, self._intern(chosen), None, ply, items)

    def _skip(self, rows, claimed, hands, p: int) -> int:
        """``Position._skip``: the first seat from p on, clockwise, with a legal question."""
        P = self.P
        for k in range(P):
            q = (p + k) % P
            if hands[q] > 0 and self._has_question(rows, claimed, hands, q):
                return q
        return p

    def _has_question(self, rows, claimed, hands, x: int) -> bool:
        targets = [y for y in range(self.P) if y != x and hands[y] > 0]
        if not targets:
            return False
        live = self._live(claimed)
        self._check_reset()
        for s in live:
            rest = self._rest(rows, live, s, x)
            for off in range(self.S):
                owners = self._asked_owners(rows[s], off, x, hands, rest)
                if owners and any(owners >> y & 1 for y in targets):
                    return True
        return False

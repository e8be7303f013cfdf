"""What every solver shares: a caching engine, canonical keys and move generation.

Everything here is built on the public :class:`~quaternity_cp.quartets.position.Position`
API: a node of a search is a :class:`~quaternity_cp.quartets.position.State`, its moves
are played with ``Position.push`` and its facts come from the exact engine.
Graph searches with the set-signature engine go through the fast path of
:mod:`.kernel` instead (:meth:`Context.search_root`, :meth:`Context.child`),
which gives the same keys and moves.

Canonical key
-------------
Two positions get the same key only when they are the same game from here on:

- the consistent deals are described by the *tightened* constraints: every card's
  domain is replaced by its exact possible owners (one engine analysis), and every
  bound ``lo[p][s]`` / ``hi[p][s]`` is tightened by local counting (cards of s
  forced to p, cards of s that p may hold, p's hand). Tightening never changes the
  set of consistent deals, and a description determines its deal set, so equal
  descriptions mean equal deal sets. (Equal deal sets may still get different
  keys: the key is sound, not complete.) Every rule only ever asks about deal
  sets (the constraints a move adds, the card transfer, a claim), so the future
  of a position depends on its deal set, not on how it is written down;
- cards of one set are interchangeable: a set is described by the sorted list of
  its cards' domains (the card of an open question flagged), so permuting the
  cards of a set gives the same key;
- unclaimed sets are interchangeable: the key holds the sorted list of the set
  descriptions (domains, and the bounds of every seat on that set). Claimed sets
  only matter through the scores;
- then hand sizes, the seats on turn, the open question's asker and target
  (-1 and -1 for none), the scores (for goals that look at them) and, under
  ``tie = first``, the order in which the seats with points reached their score
  (only that order matters: any later claim is reached later than every earlier
  one); the key is one flat tuple of these (the set descriptions first: a
  search stores millions of keys, each tuple less is memory saved);
- a finished game is just its set of winners (``("end", winners)``).

Seats are never permuted (turn order and the goal player are not symmetric).
The move generators only produce one move per symmetry class (one card per
class of equal domains in a set, one set per class of equal set descriptions);
the other moves lead to positions with the same key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .. import effects
from ...budget import Budget
from ..constraints import Constraints
from ..constraints import fast_replace as replace
from ..engines import ENGINES, Analysis, Engine, get_engine
from ..game import Declaration, Game, Question
from ..position import Position, State
from ..rules import Rules
from .kernel import Kernel, KNode
from .moves import Choice

INF = 1 << 30  # "never": an unreachable number of questions or plies


def default_engine_name() -> str:
    """The solver's engine: ``sets`` (the set-signature engine: its analyses are cached by the
    position's sets up to order, which a solve meets all the time; larger games go to the flow
    engine inside it), else ``flow``, else ``cpsat``."""
    for name in ("sets", "flow"):
        if name in ENGINES:
            return name
    return "cpsat"


class CachingEngine:
    """An engine wrapper that remembers every answer (by constraint value).

    Every position of a solve gets a fresh :class:`Position`, so the positions'
    own caches do not carry over; this one does.
    """

    def __init__(self, engine: Engine, limit: int = 50_000):
        self.inner = engine
        self.name = engine.name
        self.limit = limit
        self.analyses: dict[Constraints, Analysis] = {}
        self.feasibles: dict[Constraints, bool] = {}
        self.calls = 0
        # the running search's limits: the time limit is checked before every engine call (a search
        # stops within one call of it); None: no limit (a solved search builds its trees whatever the time)
        self.budget: Budget | None = None

    def _check_time(self) -> None:
        if self.budget is not None:
            self.budget.check_time()

    def feasible(self, c: Constraints) -> bool:
        hit = self.feasibles.get(c)
        if hit is None:
            a = self.analyses.get(c)
            if a is not None:
                hit = a.feasible
            else:
                self._check_time()
                self.calls += 1
                hit = self.inner.feasible(c)
            if len(self.feasibles) > self.limit:
                self.feasibles.clear()
            self.feasibles[c] = hit
        return hit

    def analyze(self, c: Constraints) -> Analysis:
        hit = self.analyses.get(c)
        if hit is None:
            self._check_time()
            self.calls += 1
            hit = self.inner.analyze(c)
            if len(self.analyses) > self.limit:
                self.analyses.clear()
            self.analyses[c] = hit
        return hit


@dataclass(slots=True)
class Node:
    """A position of a search with its canonical key and its symmetry classes."""

    state: State
    key: tuple
    analysis: Analysis | None  # None when the game is over (or the node parked, see Context.park)
    rep_sets: tuple[int, ...] = ()  # one unclaimed set per class of equal set descriptions
    rep_cards: dict[int, tuple[int, ...]] | None = None  # per rep set: one card per class
    winners: tuple[int, ...] = ()
    packed: tuple | None = None  # a parked node's state, packed (see Context.park); its state is then None

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def pending(self) -> Question | None:
        return self.state.pending

    @property
    def scores(self) -> tuple[int, ...]:
        return self.state.scores

    @property
    def sets_left(self) -> int:
        return self.state.claimed.count(-1)

    @property
    def mover(self) -> int:
        """Who decides here: the target of an open question, the seat on turn, -1 for a free choice."""
        st = self.state
        if st.pending is not None:
            return st.pending.target
        if len(st.turn) == 1:
            return st.turn[0]
        return -1


class Context:
    """A game, its rules and a caching engine: describes positions and generates moves."""

    def __init__(
        self,
        game: Game,
        rules: Rules,
        engine: str | Engine | None = None,
        *,
        scores: bool = True,
        cache_limit: int = 50_000,
    ):
        self.game = game
        self.rules = rules
        inner = get_engine(engine if engine is not None else default_engine_name())
        self.engine = CachingEngine(inner, cache_limit)
        self.scores = scores  # whether keys carry scores (the quartet goal does not need them)
        self.first = rules.tie == "first"
        self._counts: dict[int, tuple] = {}  # see _card_counts
        self._tuples: dict[tuple, tuple] = {}  # see intern
        self._set_descriptions: dict[tuple, tuple] = {}  # see set_description
        # the rules' helpers (claims, hand-over) of a position, called with explicit states by _answered
        self._rules_pos = Position(game, rules, engine=self.engine)
        # the fast path of graph searches (see .kernel): with the set-signature engine, for the rules it plays
        self.kernel: Kernel | None = None
        if inner.name == "sets" and not rules.dealt and rules.empty_hand == "skip":
            self.kernel = Kernel(self)

    @property
    def calls(self) -> int:
        """Engine analyses computed so far (the caching engine's and the fast path's)."""
        return self.engine.calls + (self.kernel.calls if self.kernel is not None else 0)

    # -- search nodes: slow (Node) or fast (kernel.KNode) ------------------------------
    def search_root(self, node: Node):
        """The node a graph search starts from: the fast path's when there is one."""
        return self.kernel.convert(node) if self.kernel is not None else node

    def park(self, node):
        """``node`` holding less memory while it waits (on a search's frontier, or for its other moves),
        for the search to keep instead: it forgets what it can find again (the same) when it is played
        from or its moves are asked for. A fast node forgets its parts (see :meth:`.kernel.Kernel.park`);
        a slow one becomes a new node with its key and state only, the state packed when there is a fast
        path (into rows that other positions share, see :meth:`.kernel.Kernel.pack`)."""
        if type(node) is not Node:
            assert self.kernel is not None  # only the fast path makes fast nodes
            self.kernel.park(node)
            return node
        if node.over:
            return node
        if self.kernel is None:
            return Node(node.state, node.key, None)
        return Node(None, node.key, None, packed=self.kernel.pack(node.state))

    def _unpark(self, node: Node, moves: bool = True) -> None:
        """A parked node's state again; with ``moves``, its analysis and symmetry classes too."""
        if node.packed is not None:
            assert self.kernel is not None  # only packed with a fast path
            node.state, node.packed = self.kernel.unpack(node.packed), None
        if moves and node.rep_cards is None and not node.over:
            again = self.describe(node.state)
            node.analysis, node.rep_sets, node.rep_cards = again.analysis, again.rep_sets, again.rep_cards

    def child(self, node, move):
        """The node after ``move`` at ``node`` (of the same kind, or slow when the fast path cannot go on)."""
        if type(node) is Node:
            self._unpark(node, moves=False)
            return self.describe(self.play(node.state, move))
        return self.kernel.play(node, move)

    # -- positions ---------------------------------------------------------------
    def position(self, state: State) -> Position:
        return Position(self.game, self.rules, engine=self.engine, state=state)

    def play(self, state: State, move) -> State:
        """The state after a legal move (or a free choice).

        A question with its answer (the solver's most frequent move) takes a short way: the
        constraints it adds and the answer's update, then the position's own claim and hand-over
        rules, without the legality checks of :meth:`Position.push` (the move generators only
        produce legal moves, read from the exact analysis). The tests compare it with ``push``.
        """
        if isinstance(move, Choice):
            return replace(state, turn=(move.seat,))
        if type(move) is Question and move.answer is not None and not self.rules.dealt:
            return self._answered(state, move, move.answer)
        pos = self.position(state)
        pos.push(move)  # a question with its (only legal) answer is one push
        if pos.loser is not None:  # pragma: no cover - the generators only produce legal moves
            raise AssertionError(f"solver generated an illegal move {self.game.move_str(move)}")
        return pos.state

    def _answered(self, state: State, move: Question, answer: bool) -> State:
        """``Position.push`` of a legal question with its answer ``answer`` (``move.answer``; or of the
        answer to the open question)."""
        pos = self._rules_pos
        x, y, card = move.asker, move.target, move.card
        if state.pending is None:
            c = pos.question_constraints(x, card, state.constraints)
        else:
            c = state.constraints
        c = effects.answer(c, x, y, card, answer)
        order = effects.next_order(answer, x, y, self.game.players, self.rules.after_no)
        st = replace(state, constraints=c, pending=None, ply=state.ply + 1, last_claims=())
        return pos.finish_move(st, order)

    def intern(self, t: tuple) -> tuple:
        """One object for equal tuples (hands, turns, scores, parts of keys), which keys and nodes keep by
        the million: ``t``, or the equal tuple seen first (while the table lasts)."""
        got = self._tuples.get(t)
        if got is None:
            if len(self._tuples) > 200_000:
                self._tuples.clear()
            got = self._tuples[t] = t
        return got

    # -- keys ---------------------------------------------------------------------
    def describe(self, state: State) -> Node:
        if state.over:
            winners = tuple(self.position(state).winners())
            return Node(state, ("end", winners), None, winners=winners)
        c = state.constraints
        a = self.engine.analyze(c)
        S = c.set_size
        owners = a.owners
        q = state.pending
        pend = q.card if q is not None else -1
        hands = c.hands
        lo_cols = list(zip(*c.lo))
        hi_cols = list(zip(*c.hi))
        sigs = []
        rep_cards: dict[int, tuple[int, ...]] = {}
        for s in c.sets_in_play:
            base = s * S
            ow = owners[base:base + S]
            at = pend - base if base <= pend < base + S else -1
            body, offsets = self.set_description(ow, lo_cols[s], hi_cols[s], hands, at)
            rep_cards[s] = tuple([base + i for i in offsets])
            sigs.append((body, s))  # the description itself (shared with the table), not a copy, goes in the key
        sigs.sort()
        rep_sets = []
        prev = None
        for body, s in sigs:
            if body != prev:
                rep_sets.append(s)
                prev = body
        intern = self.intern
        key = (*[body for body, _ in sigs], intern(hands), intern(state.turn), q.asker if q is not None else -1,
               q.target if q is not None else -1, self.score_key(intern(state.scores), state.reached))
        return Node(state, key, a, tuple(rep_sets), rep_cards)

    def set_description(self, ow: tuple[int, ...], lo: tuple[int, ...], hi: tuple[int, ...],
                        hands: tuple[int, ...], at: int) -> tuple[tuple, tuple[int, ...]]:
        """A set's tightened description (sorted card classes, bounds) and the offsets of one card
        per class, from its cards' possible owners ``ow``, its bounds and the open question's card ``at``
        (its offset in the set, -1 for none). Remembered: the slow and the fast path share the table."""
        key = (ow, lo, hi, hands, at)
        memo = self._set_descriptions
        got = memo.get(key)
        if got is None:
            got = self._describe_set(ow, lo, hi, hands, at)
            if len(memo) > 50_000:  # as fast as 200,000 (benchmarks/solver_memory.py), in less memory
                memo.clear()
            memo[key] = got
        return got

    def _describe_set(self, ow, lo, hi, hands, at):
        counts = self._counts
        P = len(hands)
        # per card a (possible, forced) pair of count vectors; summed seat by seat
        rows = [counts.get(m) or self._card_counts(m, P) for m in ow]
        possible = map(sum, zip(*[r[0] for r in rows]))
        forced = map(sum, zip(*[r[1] for r in rows]))
        # a card is described by its owners (doubled) plus 1 for the open question's card
        cls = [m + m for m in ow]
        if at >= 0:
            cls[at] += 1
        seen = {}
        for i, v in enumerate(cls):
            if v not in seen:
                seen[v] = i
        cls.sort()
        los = tuple(map(max, lo, forced))
        his = tuple(map(min, hi, possible, hands))
        return (tuple(cls), los, his), tuple(seen.values())

    def _card_counts(self, mask: int, players: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """For a card with these possible owners: per seat 1 if it may hold the card, and 1 if only it may."""
        possible = tuple(mask >> p & 1 for p in range(players))
        single = mask and not mask & (mask - 1)
        got = self._counts[mask] = (possible, possible if single else (0,) * players)
        return got

    def score_key(self, scores: tuple[int, ...], reached: tuple[int, ...]):
        """The scores' part of a key: None when keys carry no scores; under ``tie = first`` with the order
        in which the seats with points reached their score."""
        if not self.scores:
            return None
        if not self.first:
            return scores
        # under tie = first only the order of the seats that scored matters
        scored = sorted({reached[p] for p, s in enumerate(scores) if s > 0})
        rank = {r: i for i, r in enumerate(scored)}
        return scores, tuple(rank[reached[p]] if s > 0 else -1 for p, s in enumerate(scores))

    # -- moves ---------------------------------------------------------------------
    def moves(self, node: Node | KNode) -> list:
        """The legal moves at ``node``, one per symmetry class (free choices for a shared turn).

        Questions whose answer is forced come with it (see :meth:`ask_moves`).
        """
        if isinstance(node, KNode):
            assert self.kernel is not None  # only the fast path makes fast nodes
            return self.kernel.moves(node)[0]
        self._unpark(node)
        st = node.state
        if st.over:
            return []
        if st.pending is not None:
            return self.answers(node)
        if len(st.turn) > 1:
            return [Choice(p) for p in st.turn]
        return self.ask_moves(node, st.turn[0])

    def moves_until(self, node: Node | KNode, until: Callable[[object], bool]) -> tuple[list, bool]:
        """The moves of :meth:`moves`, in the same order, generated only until one for which ``until``
        is true (the questions of a card at a time); and whether the list is complete."""
        if isinstance(node, KNode):
            assert self.kernel is not None  # only the fast path makes fast nodes
            return self.kernel.moves(node, until)
        self._unpark(node)
        st = node.state
        if st.over or st.pending is not None or len(st.turn) > 1:
            return self.moves(node), True
        out: list = []
        for batch in self._ask_batches(node, st.turn[0], False, True):
            out += batch
            if any(until(m) for m in batch):
                return out, False  # the questions of the remaining cards are not generated
        return out, True

    def answers(self, node: Node) -> list[Question]:
        """The answers to the open question at ``node``."""
        q, a = node.state.pending, node.analysis
        assert q is not None and a is not None  # a question is open, so the game is not over
        yes, no = effects.legal_answers(a.owners[q.card], q.target)
        out = []
        if yes:
            out.append(q.answered(True))
        if no:
            out.append(q.answered(False))
        return out

    def ask_moves(self, node: Node, x: int, *, all_moves: bool = False, combine: bool = True) -> list:
        """Declarations and questions of seat ``x``.

        A question with two legal answers comes without its answer (push it to open
        it); with ``combine``, a question with only one legal answer comes with it
        (one move: the answer is no choice), so that the open question is no node.
        """
        return [m for batch in self._ask_batches(node, x, all_moves, combine) for m in batch]

    def _ask_batches(self, node: Node, x: int, all_moves: bool, combine: bool) -> Iterator[list]:
        """The moves of :meth:`ask_moves` in batches: the declarations, then the questions of one card at a time."""
        st = node.state
        c = st.constraints
        a, rep_cards = node.analysis, node.rep_cards
        assert a is not None and rep_cards is not None  # the game is not over
        rules = self.rules
        P = c.players
        sets = c.sets_in_play if all_moves else node.rep_sets
        if rules.declare:
            yield [Declaration(x, s) for s in sets if a.quartets[s] >> x & 1]
        if c.hands[x] == 0:
            return
        targets = [y for y in range(P) if y != x and c.hands[y] > 0]
        if not targets:
            return
        pos = self.position(st)
        mine = 1 << x
        S = c.set_size
        for s in sets:
            cards = c.cards_of(s) if all_moves else rep_cards[s]
            # when x holds a card of s in every deal (a lower bound, or a card forced to x) and the
            # question tells nothing else (no silence), its deals are those without the card at x:
            # the card's owners are then read from this position's analysis, with no engine call
            holds = not rules.silence and (c.lo[x][s] >= 1 or mine in a.owners[s * S:s * S + S])
            for card in cards:
                owners = a.owners[card] & ~mine
                if not owners:
                    continue  # x holds it in every deal
                if not holds:
                    aa = self.engine.analyze(pos.question_constraints(x, card))
                    if not aa.feasible:
                        continue
                    owners = aa.owners[card]
                batch = []
                for y in targets:
                    yes, no = effects.legal_answers(owners, y)
                    if not (rules.forced_no_question or yes):
                        continue
                    if not combine:
                        batch.append(Question(x, y, card))
                    elif not yes:
                        batch.append(Question(x, y, card, False))
                    elif not no:
                        batch.append(Question(x, y, card, True))
                    else:
                        batch.append(Question(x, y, card))
                yield batch


ProgressFn = Callable[[dict], None]

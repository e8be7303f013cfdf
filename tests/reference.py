"""A brute-force reference implementation of docs/rules.md on explicit deals.

It shares no code with ``quaternity_cp`` beyond the value types (``Game``,
``Question``, ``Declaration``, ``Rules`` and ``Game.parse_move``): no
constraints, no engine, no position. It enumerates every initial deal and
applies each move literally to the set of consistent deals, so it is slow and
only meant for small games (a few ten thousand deals at most).

A deal is one row of an integer array: the owner of every card id. Cards of a
claimed set stay in the row (with their claimer in every deal); "in play" means
"of an unclaimed set". Every hand size is the same in every consistent deal
(cards only move publicly), so hand sizes are read off any row.

Conventions that the rules leave open and that this reference fixes (the same
as quaternity_cp's Position, so that they are not reported as disagreements):

- while a question is open, the only legal move is an answer to it (the same
  question with ``+`` or ``-``); another answered question is kind ``answer``,
  anything else kind ``turn``; under ``invalid = lose`` the loser is the asker
  (declarer) of the offending move;
- a move after the end of the game is refused (kind ``turn``) even under
  ``invalid = lose``;
- when no seat at all has a legal question (``forced_no_question = false``)
  the turn stays with the seat the hand-over chose;
- before any score rose every seat "reached" its score at move 0, so under
  ``tie = first`` a tie at zero goes to the lowest seat.

Classic quartets (rule option ``dealt``), applied literally to the deals:

- before the first question (the *opening*) any seat may put down (``p!s``) a
  set it holds whole; right after a yes (the *window*) the asker may put down
  the set of the card it received. A put-down keeps the deals where the seat
  holds the whole set, then claims it;
- any question first keeps only the deals where nobody holds a complete
  unclaimed set (the put-downs due were made); no deal left: the question is
  illegal (kind ``claim``, before the question's own filter). Between put-down
  phases no deal has a complete unclaimed set, so this is the only place the
  filter bites;
- the first player: the record's ``first``, else (dealt) any seat may start,
  else seat 0; under ``empty_hand = ask`` players without cards keep their turns
  and ask without telling anything; ``after_no = next`` gives the turn to the
  seat after the asker; under ``tie = random`` the winner is the recorded
  ``tie_break`` when it is tied for first, else every tied seat;
- a seat's private view is the set of consistent deals in which its current
  hand is its real hand (:func:`private_deals`).

>>> from quaternity_cp import Game, Rules
>>> steps = reference_replay(Game(2, 2, 2), Rules(), ["0>1:A0+"])
>>> steps[-1].claimed, steps[-1].turn
({0: 0}, (0,))
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from quaternity_cp.quartets.game import Declaration, Game, Question
from quaternity_cp.quartets.rules import Rules


@functools.lru_cache(maxsize=32)
def initial_deals(players: int, sets: int, set_size: int, initial_quartets: bool) -> np.ndarray:
    """Every deal of N*S cards into P hands of N*S/P cards (read-only array, one row per deal)."""
    cards = sets * set_size
    hand = cards // players
    rows: list[list[int]] = []

    def deal(seat: int, left: tuple[int, ...], row: list[int]) -> None:
        if seat == players - 1:
            for c in left:
                row[c] = seat
            rows.append(list(row))
            return
        for chosen in itertools.combinations(left, hand):
            for c in chosen:
                row[c] = seat
            rest = tuple(c for c in left if c not in chosen)
            deal(seat + 1, rest, row)

    deal(0, tuple(range(cards)), [0] * cards)
    deals = np.array(rows, dtype=np.int8).reshape(len(rows), cards)
    if not initial_quartets:
        whole = np.zeros(len(deals), dtype=bool)
        for s in range(sets):
            block = deals[:, s * set_size:(s + 1) * set_size]
            whole |= (block == block[:, :1]).all(axis=1)
        deals = deals[~whole]
    deals.setflags(write=False)
    return deals


@dataclass(frozen=True)
class RefState:
    """A position of the reference: the consistent deals plus claims, scores and turn."""

    deals: np.ndarray = field(compare=False, repr=False)
    claimed: tuple[int, ...]  # per set: claiming seat or -1
    scores: tuple[int, ...]
    reached: tuple[int, ...]  # per seat: the move at which its score last rose
    turn: tuple[int, ...]
    pending: Question | None = None
    loser: int | None = None
    opening: bool = False
    window: tuple[int, int, int] | None = None  # (asker, giver, set) right after a yes (dealt)
    first: tuple[int, ...] = (0,)

    @property
    def over(self) -> bool:
        return self.loser is not None or all(p >= 0 for p in self.claimed)

    @property
    def putdowns_open(self) -> bool:
        return self.opening or self.window is not None


@dataclass(frozen=True)
class RefStep:
    """What the reference says after one move of a record (``index`` is 1-based)."""

    index: int
    move: object
    legal: bool
    kind: str | None  # turn, question, answer, declaration (None when legal)
    turn: tuple[int, ...]
    claimed: dict
    scores: tuple[int, ...]
    over: bool
    winners: tuple[int, ...]
    loser: int | None
    pending: Question | None
    hands: tuple[int, ...]
    owners: tuple[int, ...]  # per card id: mask of possible holders (0 for claimed cards)
    quartets: tuple[int, ...]  # per set: mask of possible quartet holders (0 for claimed sets)
    answers: dict | None  # {"yes": bool, "no": bool} for an open question
    deal_count: int
    state: RefState = field(repr=False, compare=False)


class _Illegal(Exception):
    def __init__(self, kind: str, mover: int):
        super().__init__(kind)
        self.kind = kind
        self.mover = mover


class Reference:
    """The rules of docs/rules.md applied literally to explicit deals."""

    def __init__(self, game: Game, rules: Rules, first: int | None = None, tie_break: int | None = None):
        self.game = game
        self.rules = rules
        self.first = first
        self.tie_break = tie_break
        self.P = game.players
        self.N = game.sets
        self.S = game.set_size

    # -- facts about a state ---------------------------------------------------
    def cards_of(self, s: int) -> range:
        return range(s * self.S, (s + 1) * self.S)

    def unclaimed(self, st: RefState) -> list[int]:
        return [s for s in range(self.N) if st.claimed[s] < 0]

    def cards_in_play(self, st: RefState) -> list[int]:
        return [c for s in self.unclaimed(st) for c in self.cards_of(s)]

    def hands(self, st: RefState) -> tuple[int, ...]:
        row = st.deals[0]
        cards = self.cards_in_play(st)
        return tuple(sum(1 for c in cards if row[c] == p) for p in range(self.P))

    def count(self, deals: np.ndarray, p: int, s: int) -> np.ndarray:
        """Per deal: how many cards of set s seat p holds."""
        return (deals[:, s * self.S:(s + 1) * self.S] == p).sum(axis=1)

    def whole(self, deals: np.ndarray, p: int, s: int) -> np.ndarray:
        """Per deal: whether seat p holds all of set s."""
        return (deals[:, s * self.S:(s + 1) * self.S] == p).all(axis=1)

    def owners(self, st: RefState) -> tuple[int, ...]:
        out = [0] * (self.N * self.S)
        for c in self.cards_in_play(st):
            for p in np.unique(st.deals[:, c]):
                out[c] |= 1 << int(p)
        return tuple(out)

    def quartets(self, st: RefState) -> tuple[int, ...]:
        out = [0] * self.N
        for s in self.unclaimed(st):
            for p in range(self.P):
                if self.whole(st.deals, p, s).any():
                    out[s] |= 1 << p
        return tuple(out)

    def answers(self, st: RefState) -> dict | None:
        q = st.pending
        if q is None:
            return None
        column = st.deals[:, q.card]
        return {"yes": bool((column == q.target).any()), "no": bool((column != q.target).any())}

    def winners(self, st: RefState) -> tuple[int, ...]:
        if not st.over:
            return ()
        seats = [p for p in range(self.P) if p != st.loser]
        best = max(st.scores[p] for p in seats)
        top = [p for p in seats if st.scores[p] == best]
        if len(top) == 1 or self.rules.tie == "shared":
            return tuple(top)
        if self.rules.tie == "all-lose":
            return ()
        if self.rules.tie == "random":
            return (self.tie_break,) if self.tie_break in top else tuple(top)
        return (min(top, key=lambda p: (st.reached[p], p)),)

    # -- classic quartets -----------------------------------------------------------
    def no_complete_set(self, st: RefState, deals: np.ndarray | None = None) -> np.ndarray:
        """Per deal: whether nobody holds a whole unclaimed set."""
        deals = st.deals if deals is None else deals
        keep = np.ones(len(deals), dtype=bool)
        for s in self.unclaimed(st):
            block = deals[:, s * self.S:(s + 1) * self.S]
            keep &= ~(block == block[:, :1]).all(axis=1)
        return keep

    def settled(self, st: RefState) -> RefState:
        """Under dealt with put-downs open: only the deals where every put-down due was made."""
        if not (self.rules.dealt and st.putdowns_open):
            return st
        return replace(st, deals=st.deals[self.no_complete_set(st)])

    # -- the question filter -----------------------------------------------------
    def asked(self, st: RefState, x: int, card: int) -> np.ndarray:
        """Per deal: whether ``x`` may ask for ``card`` in it (lacks it, holds another of its set, silence)."""
        deals = st.deals
        s = card // self.S
        if self.rules.empty_hand == "ask" and self.hands(st)[x] == 0:
            return np.ones(len(deals), dtype=bool)  # nothing is learnt about an empty asker
        keep = (deals[:, card] != x) & (self.count(deals, x, s) >= 1)
        if self.rules.silence:
            for t in self.unclaimed(st):
                keep &= ~self.whole(deals, x, t)
        return keep

    def question_targets(self, st: RefState, x: int, card: int) -> list[int]:
        """The seats y for which ``x>y:card`` passes every question check (x on turn assumed)."""
        hands = self.hands(st)
        if st.claimed[card // self.S] >= 0 or (hands[x] == 0 and self.rules.empty_hand != "ask"):
            return []
        st = self.settled(st)
        keep = self.asked(st, x, card)
        if not keep.any():
            return []
        column = st.deals[keep][:, card]
        return [
            y for y in range(self.P)
            if y != x and hands[y] > 0 and (self.rules.forced_no_question or bool((column == y).any()))
        ]

    def has_question(self, st: RefState, x: int) -> bool:
        if self.rules.dealt and st.putdowns_open and len(self.settled(st).deals) == 0:
            return True  # a put-down is due: nobody is skipped
        return any(self.question_targets(st, x, c) for c in self.cards_in_play(st))

    # -- moves -------------------------------------------------------------------------
    def start(self, deals: np.ndarray | None = None) -> RefState:
        """The start of the game: every initial deal, or only ``deals`` (rows of owners; one row:
        a record's real deal, so that an illegal move is one that deal contradicts)."""
        if deals is None:
            deals = initial_deals(self.P, self.N, self.S, self.rules.initial_quartets)
        if len(deals) == 0:
            raise ValueError("no initial deal exists under these rules")
        first: tuple[int, ...]
        if self.first is not None:
            first = (self.first,)
        elif self.rules.dealt:
            first = tuple(range(self.P))
        else:
            first = (0,)
        st = RefState(
            deals=deals,
            claimed=(-1,) * self.N,
            scores=(0,) * self.P,
            reached=(0,) * self.P,
            turn=first,
            first=first,
            opening=self.rules.dealt,
        )
        if self.rules.dealt:
            return replace(st, turn=self.opening_turn(st))
        if not self.rules.forced_no_question:
            st = replace(st, turn=(self.skip(st, first[0]),))
        return st

    def opening_turn(self, st: RefState) -> tuple[int, ...]:
        hands = self.hands(st)
        if self.rules.empty_hand == "ask":
            chosen = st.first
        else:
            chosen = tuple(p for p in st.first if hands[p] > 0) or self.fallback(st, st.first[0])
        if not self.rules.forced_no_question:
            chosen = tuple(sorted({self.skip(st, p) for p in chosen}))
        return chosen

    def play(self, st: RefState, move, index: int) -> tuple[RefState, str | None]:
        """The state after ``move`` (the ``index``-th move) and the kind of illegality (None if legal)."""
        try:
            return self._play(st, move, index), None
        except _Illegal as err:
            if st.over or self.rules.invalid == "reject":
                return st, err.kind
            return replace(st, loser=err.mover, turn=(), pending=None), err.kind

    def _play(self, st: RefState, move, index: int) -> RefState:
        if isinstance(move, Declaration):
            mover = move.player
        else:
            mover = move.asker
        if st.over:
            raise _Illegal("turn", mover)
        if st.pending is not None:
            q = st.pending
            if isinstance(move, Question) and move.answer is not None:
                if (move.asker, move.target, move.card) == (q.asker, q.target, q.card):
                    return self._answer(st, move.answer, index)
                raise _Illegal("answer", mover)
            raise _Illegal("turn", mover)
        if isinstance(move, Declaration):
            if self.rules.dealt:
                return self._put_down(st, move, index)
            return self._declare(st, move, index)
        return self._question(st, move, index)

    def _question(self, st: RefState, move: Question, index: int) -> RefState:
        x, y, card = move.asker, move.target, move.card
        s = card // self.S
        if x not in st.turn:
            raise _Illegal("turn", x)
        if x == y:
            raise _Illegal("question", x)
        if st.claimed[s] >= 0:
            raise _Illegal("question", x)
        hands = self.hands(st)
        if (hands[x] == 0 and self.rules.empty_hand != "ask") or hands[y] == 0:
            raise _Illegal("question", x)
        if self.rules.dealt and st.putdowns_open:
            st = replace(self.settled(st), opening=False, window=None)
            if len(st.deals) == 0:
                raise _Illegal("claim", x)
        deals = st.deals[self.asked(st, x, card)]
        if len(deals) == 0:
            raise _Illegal("question", x)
        if not self.rules.forced_no_question and not (deals[:, card] == y).any():
            raise _Illegal("question", x)
        opened = replace(st, deals=deals, pending=Question(x, y, card), turn=(x,))
        if move.answer is None:
            return opened
        return self._answer(opened, move.answer, index)

    def _answer(self, st: RefState, yes: bool, index: int) -> RefState:
        q = st.pending
        assert q is not None  # an answer follows its question
        x, y, card = q.asker, q.target, q.card
        column = st.deals[:, card]
        if yes:
            deals = st.deals[column == y].copy()
            if len(deals) == 0:
                raise _Illegal("answer", y)
            deals[:, card] = x
        else:
            deals = st.deals[column != y]
            if len(deals) == 0:
                raise _Illegal("answer", y)
        st = replace(st, deals=deals, pending=None)
        if yes and self.rules.dealt:
            st = replace(st, window=(x, y, card // self.S))
        st = self._auto_claim(st, index)
        order: tuple[int, ...]
        if yes:
            order = (x, y)
        elif self.rules.after_no == "next":
            order = ((x + 1) % self.P,)
        else:
            order = (y,)
        return self._hand_over(st, order)

    def _put_down(self, st: RefState, move: Declaration, index: int) -> RefState:
        p, s = move.player, move.set
        if st.claimed[s] >= 0:
            raise _Illegal("claim", p)
        if not (st.opening or (st.window is not None and (st.window[0], st.window[2]) == (p, s))):
            raise _Illegal("claim", p)
        deals = st.deals[self.whole(st.deals, p, s)]
        if len(deals) == 0:
            raise _Illegal("claim", p)
        window = st.window
        st = self._claim(replace(st, deals=deals, window=None), [(s, p)], index)
        if st.opening:
            return replace(st, turn=() if st.over else self.opening_turn(st))
        assert window is not None  # outside the opening, a put-down is in the window of a yes (checked above)
        return self._hand_over(st, (window[0], window[1]))

    def _declare(self, st: RefState, move: Declaration, index: int) -> RefState:
        p, s = move.player, move.set
        if not self.rules.declare:
            raise _Illegal("declaration", p)
        if p not in st.turn:
            raise _Illegal("turn", p)
        if st.claimed[s] >= 0:
            raise _Illegal("declaration", p)
        deals = st.deals[self.whole(st.deals, p, s)]
        if len(deals) == 0:
            raise _Illegal("declaration", p)
        st = self._claim(replace(st, deals=deals), [(s, p)], index)
        st = self._auto_claim(st, index)
        return self._hand_over(st, (p,))

    def _claim(self, st: RefState, claims: Iterable[tuple[int, int]], index: int) -> RefState:
        claimed, scores, reached = list(st.claimed), list(st.scores), list(st.reached)
        for s, p in claims:
            claimed[s] = p
            scores[p] += 1
            reached[p] = index
        return replace(st, claimed=tuple(claimed), scores=tuple(scores), reached=tuple(reached))

    def _auto_claim(self, st: RefState, index: int) -> RefState:
        if not self.rules.auto_claim:
            return st
        claims = []
        for s in self.unclaimed(st):
            holder = int(st.deals[0, s * self.S])
            if self.whole(st.deals, holder, s).all():
                claims.append((s, holder))
        return self._claim(st, claims, index)

    # -- whose turn ------------------------------------------------------------------
    def _hand_over(self, st: RefState, order: Sequence[int]) -> RefState:
        if st.over:
            return replace(st, turn=())
        hands = self.hands(st)
        holding = [p for p in order if hands[p] > 0 or self.rules.empty_hand == "ask"]
        chosen = (holding[0],) if holding else self.fallback(st, order[0])
        if not self.rules.forced_no_question:
            chosen = tuple(sorted({self.skip(st, p) for p in chosen}))
        return replace(st, turn=chosen)

    def fallback(self, st: RefState, start: int) -> tuple[int, ...]:
        hands = self.hands(st)
        P = self.P
        clockwise = [(start + k) % P for k in range(P) if hands[(start + k) % P] > 0]
        mode = self.rules.handover
        if mode == "fewest":
            key = {p: (st.scores[p], hands[p]) for p in clockwise}
            lowest = min(key.values())
            return tuple(sorted(p for p in clockwise if key[p] == lowest))
        if mode == "seat":
            return (min(clockwise),)
        if mode == "clockwise":
            return (clockwise[0],)
        if mode == "fewest-cards":
            best = min(hands[p] for p in clockwise)
        elif mode == "most-cards":
            best = max(hands[p] for p in clockwise)
        else:
            raise ValueError(mode)
        return (next(p for p in clockwise if hands[p] == best),)

    def skip(self, st: RefState, p: int) -> int:
        """The first seat from ``p`` on, clockwise, that holds cards and has a legal question."""
        hands = self.hands(st)
        for k in range(self.P):
            q = (p + k) % self.P
            if (hands[q] > 0 or self.rules.empty_hand == "ask") and self.has_question(st, q):
                return q
        return p

    # -- move generation ----------------------------------------------------------------
    def legal_moves(self, st: RefState) -> list:
        """Every legal move: the legal answers of an open question, else declarations and
        questions (without an answer) of every seat on turn."""
        if st.over:
            return []
        if st.pending is not None:
            q = st.pending
            ans = self.answers(st)
            assert ans is not None  # a question is open
            return [q.answered(v) for v in (True, False) if ans["yes" if v else "no"]]
        out: list = []
        if self.rules.dealt:
            for p in range(self.P):
                for s in self.unclaimed(st):
                    due = st.opening or (st.window is not None and (st.window[0], st.window[2]) == (p, s))
                    if due and self.whole(st.deals, p, s).any():
                        out.append(Declaration(p, s))
            if st.putdowns_open and len(self.settled(st).deals) == 0:
                return out
        for x in st.turn:
            if self.rules.declare:
                for s in self.unclaimed(st):
                    if self.whole(st.deals, x, s).any():
                        out.append(Declaration(x, s))
            for c in self.cards_in_play(st):
                for y in self.question_targets(st, x, c):
                    out.append(Question(x, y, c))
        return out

    def view(self, st: RefState, index: int, move, kind: str | None) -> RefStep:
        return RefStep(
            index=index,
            move=move,
            legal=kind is None,
            kind=kind,
            turn=st.turn,
            claimed={s: p for s, p in enumerate(st.claimed) if p >= 0},
            scores=st.scores,
            over=st.over,
            winners=self.winners(st),
            loser=st.loser,
            pending=st.pending,
            hands=self.hands(st),
            owners=self.owners(st),
            quartets=self.quartets(st),
            answers=self.answers(st),
            deal_count=len(st.deals),
            state=st,
        )


def private_deals(ref: Reference, st: RefState, seat: int, hand: Sequence[int], settled: bool = True) -> np.ndarray:
    """The consistent deals (settled: after the put-downs due) in which ``seat`` holds exactly ``hand``
    among the cards in play: what that seat knows."""
    if settled:
        st = ref.settled(st)
    deals = st.deals
    cards = ref.cards_in_play(st)
    mine = set(hand)
    keep = np.ones(len(deals), dtype=bool)
    for c in cards:
        keep &= (deals[:, c] == seat) == (c in mine)
    return deals[keep]


def deal_facts(ref: Reference, st: RefState, deals: np.ndarray) -> dict:
    """Owners, quartets and exact probabilities over explicit deals (all equally likely)."""
    from fractions import Fraction

    n = len(deals)
    owners, cards = {}, {}
    for c in ref.cards_in_play(st):
        column = deals[:, c]
        owners[c] = sorted(int(p) for p in np.unique(column))
        cards[c] = {p: Fraction(int((column == p).sum()), n) for p in range(ref.P) if n and (column == p).any()}
    quartets, whole = {}, {}
    for s in ref.unclaimed(st):
        quartets[s] = [p for p in range(ref.P) if ref.whole(deals, p, s).any()]
        whole[s] = {p: Fraction(int(ref.whole(deals, p, s).sum()), n) for p in quartets[s]}
    return {"deals": n, "owners": owners, "cards": cards, "quartets": quartets, "whole": whole}


def reference_replay(game: Game, rules: Rules, moves: Sequence, first: int | None = None,
                     tie_break: int | None = None) -> list[RefStep]:
    """The reference's view after every move of a record (moves as text or values).

    Under ``invalid = reject`` an illegal move is reported and skipped (the
    position is unchanged); under ``invalid = lose`` it ends the game.
    """
    ref = Reference(game, rules, first, tie_break)
    st = ref.start()
    steps = []
    for i, move in enumerate(moves, start=1):
        if isinstance(move, str):
            move = game.parse_move(move)
        st, kind = ref.play(st, move, i)
        steps.append(ref.view(st, i, move, kind))
    return steps


def reference_start(game: Game, rules: Rules) -> RefStep:
    """The reference's view of the start of a game."""
    ref = Reference(game, rules)
    return ref.view(ref.start(), 0, None, None)


def position_view(pos) -> dict:
    """What a quaternity_cp Position says, in the vocabulary of :class:`RefStep` (reads public API only)."""
    analysis = pos.analysis()
    return {
        "valid": bool(analysis.feasible),
        "turn": tuple(sorted(pos.turn)),
        "claimed": dict(pos.claimed),
        "scores": tuple(pos.scores),
        "over": bool(pos.over),
        "winners": tuple(sorted(pos.winners())),
        "loser": pos.loser,
        "pending": pos.pending,
        "hands": tuple(pos.hands),
        "owners": tuple(analysis.owners),
        "quartets": tuple(analysis.quartets),
        "answers": pos.answers(),
    }


def step_view(step: RefStep) -> dict:
    """The reference's facts in the same shape as :func:`position_view`."""
    return {
        "valid": step.deal_count > 0,
        "turn": tuple(sorted(step.turn)),
        "claimed": dict(step.claimed),
        "scores": tuple(step.scores),
        "over": step.over,
        "winners": tuple(sorted(step.winners)),
        "loser": step.loser,
        "pending": step.pending,
        "hands": tuple(step.hands),
        "owners": tuple(step.owners),
        "quartets": tuple(step.quartets),
        "answers": step.answers,
    }


def describe(game: Game, rules: Rules, moves: Sequence) -> str:
    """A failing record in a form that can be pasted back: game, rule options, moves."""
    text = " ".join(m if isinstance(m, str) else game.move_str(m) for m in moves)
    options = ", ".join(f"{k}={v!r}" for k, v in rules.to_dict().items())
    return f"Game({game.players}, {game.sets}, {game.set_size}), Rules({options}), record: {text!r}"

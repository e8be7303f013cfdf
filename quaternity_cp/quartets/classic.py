"""Classic quartets: a real deal, truthful answers and put-downs (rule option ``dealt``).

In classic quartets the cards are really dealt and every answer is true. The
public record is still a Quaternity record (:class:`~quaternity_cp.quartets.position.Position`
under a rule set with ``dealt = true``, such as the preset ``classic``); this
module adds what only the deal knows:

- :func:`deal` draws a deal with a seeded generator, :func:`draw_first` the
  first player and :func:`draw_tie_break` the winner of a tie for first;
- :class:`Table` holds the real hands and follows a record's moves: the truthful
  answer to a question, the put-downs due (a complete set is put down by its
  holder at the deal, and by the asker right after the yes that completes it).
  It is the one place where moves act on real cards: the classic game
  (:class:`~quaternity_cp.quartets.state.ClassicState`) plays on a Table, and
  the honesty checks, the random records and a seat's view follow records with
  one;
- :func:`honesty_error` says whether one move contradicts the real hands
  ("seat 1 said no but held B2"), and :func:`check_honesty` runs a whole record.

A deal is a mapping seat -> card ids (the hands at the start). Records carry it
as ``"deal": {seat: [card names]}`` (see :func:`parse_record_fields`).

>>> import random
>>> from quaternity_cp import Game
>>> game = Game(3, 2, 3)
>>> hands = deal(game, random.Random(1))
>>> sorted(len(h) for h in hands.values())
[2, 2, 2]
>>> table = Table(game, {0: [0, 3], 1: [1, 4], 2: [2, 5]})
>>> table.answer(game.parse_move("0>1:A1?")), table.answer(game.parse_move("0>2:A1?"))
(True, False)
>>> table.apply(game.parse_move("0>1:A1+")); table.apply(game.parse_move("0>2:A2+"))
>>> [game.move_str(m) for m in table.putdowns_due()]
['0!A']
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from ..errors import FormatError, Illegal, IllegalMoveError, QuaternityError, RulesError
from .game import Declaration, Game, Move, Question
from .rules import Rules

if TYPE_CHECKING:
    from .position import Position

__all__ = [
    "deal",
    "draw_first",
    "draw_tie_break",
    "Table",
    "honesty_error",
    "check_honesty",
    "deal_to_json",
    "parse_record_fields",
]

Deal = dict[int, list[int]]


# -- drawing ---------------------------------------------------------------------------
def deal(game: Game, rng: random.Random, rules: "Rules | str | None" = None) -> Deal:
    """A uniformly random deal of every card, N*S/P to each seat: seat -> sorted card ids.

    Under ``initial_quartets = false`` deals giving someone a whole set are
    redrawn (a RulesError when no such deal exists, e.g. sets of one card).
    Deterministic for a seeded ``rng``.
    """
    rules = Rules.from_spec(rules) if rules is not None else Rules.preset("classic")
    S, H = game.set_size, game.hand_size
    if not rules.initial_quartets and not _avoidable(game):
        raise RulesError(f"no deal of {game.sets} sets of {S} to {game.players} players avoids a whole set")
    cards = list(range(game.cards))
    while True:
        rng.shuffle(cards)
        hands = {p: sorted(cards[p * H:(p + 1) * H]) for p in range(game.players)}
        if rules.initial_quartets or not _whole_sets(game, hands):
            return hands


def _avoidable(game: Game) -> bool:
    """Whether some deal gives nobody a whole set (each set can be split over two hands)."""
    return game.set_size > 1 and game.players > 1


def _whole_sets(game: Game, hands: Mapping[int, Sequence[int]]) -> list[tuple[int, int]]:
    """(seat, set) for every set wholly in one hand."""
    S = game.set_size
    out: list[tuple[int, int]] = []
    for p, cards in hands.items():
        per: dict[int, int] = {}
        for c in cards:
            per[c // S] = per.get(c // S, 0) + 1
        out.extend((p, s) for s, k in per.items() if k == S)
    return sorted(out, key=lambda t: (t[1], t[0]))


def draw_first(game: Game, rng: random.Random) -> int:
    """The first player, drawn uniformly (classic quartets: ``"first"`` in a record)."""
    return rng.randrange(game.players)


def draw_tie_break(tied: Sequence[int], rng: random.Random) -> int:
    """The winner among the seats tied for first (``tie = random``: ``"tie_break"`` in a record)."""
    return sorted(tied)[rng.randrange(len(tied))]


# -- the real hands ------------------------------------------------------------------------
class Table:
    """The real hands of a classic game, following its moves: the one place where questions, answers and
    put-downs act on real cards.

    :class:`~quaternity_cp.quartets.state.ClassicState` (the classic game: turns, chance, score, record)
    keeps its cards in a Table and plays every move through :meth:`apply`; the honesty checks
    (:func:`honesty_error`), the random records (:func:`quaternity_cp.quartets.play.random_record`) and a seat's
    view (:func:`quaternity_cp.quartets.knowledge.record_hands`) follow a record's moves with one.

    ``owner[c]`` is the seat holding card c (claimed cards stay with their
    claimer); ``claimed[s]`` the seat that put set s down, or -1. For the sets
    still in play, ``held[p]`` is p's cards, ``count[p][s]`` how many of set s
    p holds and ``sizes[p]`` how many cards p holds. The phase mirrors the public
    position: before the first question (``opening``) any seat puts down the
    sets it was dealt; right after a yes (``window``) the asker puts down the set
    it completed. :meth:`apply` / :meth:`undo` change it (the lists are changed
    in place, never replaced).
    """

    def __init__(self, game: Game, hands: Mapping[int, Iterable[int]]):
        self.game = game
        P, N, S = game.players, game.sets, game.set_size
        owner = [-1] * game.cards
        for p, cards in hands.items():
            for c in cards:
                owner[c] = p
        if -1 in owner:
            raise ValueError(f"card {game.card_name(owner.index(-1))} is dealt to nobody")
        self.owner = owner
        self.claimed = [-1] * N
        self.count = [[0] * N for _ in range(P)]
        self.held: list[set[int]] = [set() for _ in range(P)]
        self.sizes = [0] * P
        for c, p in enumerate(owner):
            if 0 <= p < P:
                self.count[p][c // S] += 1
                self.held[p].add(c)
                self.sizes[p] += 1
        self.opening = True
        self.window: tuple[int, int] | None = None  # (asker, set) right after a yes
        # per move applied: (move, the claimer before (put-down) or whether the card moved (question),
        # opening before, window before)
        self._history: list[tuple[Move, int | bool, bool, tuple[int, int] | None]] = []

    def copy(self) -> "Table":
        other = Table.__new__(Table)
        other.game = self.game
        other.owner = list(self.owner)
        other.claimed = list(self.claimed)
        other.count = [list(row) for row in self.count]
        other.held = [set(h) for h in self.held]
        other.sizes = list(self.sizes)
        other.opening = self.opening
        other.window = self.window
        other._history = list(self._history)
        return other

    # -- reading -------------------------------------------------------------------------
    def hand(self, seat: int) -> list[int]:
        """The cards ``seat`` holds now (unclaimed sets only), ascending."""
        return sorted(self.held[seat]) if 0 <= seat < len(self.held) else []

    def hands(self) -> dict[int, list[int]]:
        """Every seat's cards now (:meth:`hand`)."""
        return {p: self.hand(p) for p in range(self.game.players)}

    def holds(self, seat: int, card: int) -> bool:
        return self.owner[card] == seat and self.claimed[card // self.game.set_size] < 0

    def answer(self, question: Question) -> bool:
        """The truthful answer: yes exactly when the asked player holds the card."""
        return self.owner[question.card] == question.target

    def complete_sets(self) -> list[tuple[int, int]]:
        """(seat, set) for every unclaimed set wholly in one hand, by set."""
        S = self.game.set_size
        out = []
        for s, by in enumerate(self.claimed):
            if by < 0:
                for p, row in enumerate(self.count):
                    if row[s] == S:
                        out.append((p, s))
                        break
        return out

    def putdowns_due(self) -> list[Declaration]:
        """The put-downs the rules require now: at the deal every complete set (by set), right
        after a yes the completed set of the asker; [] otherwise."""
        if self.opening:
            return [Declaration(p, s) for p, s in self.complete_sets()]
        if self.window is not None:
            x, s = self.window
            if self.claimed[s] < 0 and self.count[x][s] == self.game.set_size:
                return [Declaration(x, s)]
        return []

    # -- following moves ---------------------------------------------------------------------
    def apply(self, move: Move) -> None:
        """Follow ``move`` (an answered or open question, or a put-down) on the real cards: a put-down
        takes its set out of play (and out of the hands holding its cards), a yes moves the card
        from the asked seat to the asker when the asked seat holds it."""
        if isinstance(move, Declaration):
            p, s = move.player, move.set
            self._history.append((move, self.claimed[s], self.opening, self.window))
            if self.claimed[s] < 0:
                self._take_out(s, -1)
            self.claimed[s] = p
            if self.window is not None and self.window[1] == s:
                self.window = None
            return
        card = move.card
        moved = bool(move.answer) and self.owner[card] == move.target
        self._history.append((move, moved, self.opening, self.window))
        self.opening = False
        if moved:
            self._move_card(card, move.target, move.asker)
            self.window = (move.asker, card // self.game.set_size)
        else:
            self.window = None

    def undo(self) -> None:
        """Take back the last :meth:`apply`."""
        move, before, self.opening, self.window = self._history.pop()
        if isinstance(move, Declaration):
            s = move.set
            self.claimed[s] = before
            if before < 0:
                self._take_out(s, +1)
        elif before:
            self._move_card(move.card, move.asker, move.target)

    def _move_card(self, card: int, giver: int, taker: int) -> None:
        self.owner[card] = taker
        s = card // self.game.set_size
        if self.claimed[s] < 0:
            self.count[giver][s] -= 1
            self.count[taker][s] += 1
            self.held[giver].discard(card)
            self.held[taker].add(card)
            self.sizes[giver] -= 1
            self.sizes[taker] += 1

    def _take_out(self, s: int, sign: int) -> None:
        """The cards of set s leave (sign -1) or come back to (+1) the hands of their owners."""
        P = len(self.sizes)
        for c in self.game.cards_of(s):
            p = self.owner[c]
            if 0 <= p < P:
                self.count[p][s] += sign
                self.sizes[p] += sign
                if sign < 0:
                    self.held[p].discard(c)
                else:
                    self.held[p].add(c)


def honesty_error(table: Table, move: Move, *, empty_hand: str = "skip") -> IllegalMoveError | None:
    """Why ``move`` contradicts the real hands (before it is applied), or None.

    Checked: a question's premise (the asker holds a card of the set and not the
    card; nothing for an asker without cards: the public rules decide), the
    answer (yes exactly when the asked player holds the card), put-downs (the
    whole set in the hand) and put-downs missing (a question while a complete
    set is still in a hand). Turn order and the rest are the public rules' part.
    """
    g = table.game
    S = g.set_size
    if isinstance(move, Declaration):
        p, s = move.player, move.set
        missing = [c for c in g.cards_of(s) if table.owner[c] != p]
        if missing and table.claimed[s] < 0:
            return IllegalMoveError(
                Illegal.DISHONEST_PUT_DOWN, move,
                f"{g.seat_name(p)} put down {g.set_name(s)} without holding {g.card_name(missing[0])}",
                kind="claim", player=p, card=missing[0],
            )
        return None
    if table.opening or table.window is not None:
        for p, s in table.complete_sets():
            if table.opening:
                detail = f"{g.seat_name(p)} was dealt all of {g.set_name(s)} and did not put it down"
            else:
                detail = f"{g.seat_name(p)} completed {g.set_name(s)} and did not put it down"
            return IllegalMoveError(Illegal.PUT_DOWN_MISSING, move, detail, kind="claim", player=p)
    x, y, card = move.asker, move.target, move.card
    s = card // S
    hand = table.hand(x)
    if hand:  # an asker without cards: the public rules decide (empty_hand)
        if table.owner[card] == x:
            return IllegalMoveError(
                Illegal.DISHONEST_QUESTION, move, f"{g.seat_name(x)} asked for {g.card_name(card)} but held it",
                player=x, card=card,
            )
        if not any(c // S == s for c in hand):
            return IllegalMoveError(
                Illegal.DISHONEST_QUESTION, move,
                f"{g.seat_name(x)} asked for {g.card_name(card)} without holding a card of {g.set_name(s)}",
                player=x, card=card,
            )
    if move.answer is not None and move.answer != (table.owner[card] == y):
        said, held = ("yes", "did not hold") if move.answer else ("no", "held")
        return IllegalMoveError(
            Illegal.DISHONEST_ANSWER, move, f"{g.seat_name(y)} said {said} but {held} {g.card_name(card)}",
            player=y, card=card,
        )
    return None


def check_honesty(game: Game, rules: Rules, hands: Mapping[int, Iterable[int]], moves: Sequence[Move]
                  ) -> tuple[int, IllegalMoveError] | None:
    """The first move (1-based index, error) of ``moves`` that contradicts the deal ``hands``, or None.

    Only honesty and put-downs are checked here; :func:`quaternity_cp.quartets.replay.replay`
    checks both this and the public rules, move by move.
    """
    table = Table(game, hands)
    for i, move in enumerate(moves, 1):
        err = honesty_error(table, move, empty_hand=rules.empty_hand)
        if err is not None:
            return i, err
        table.apply(move)
    return None


# -- record fields -----------------------------------------------------------------------------
def deal_to_json(game: Game, hands: Mapping[int, Iterable[int]]) -> dict[str, list[str]]:
    """A deal as a record's ``"deal"`` field: player name -> card names."""
    return {game.player_name(p): [game.card_name(c) for c in sorted(cards)] for p, cards in sorted(hands.items())}


def _format_error(message: str) -> FormatError:
    return FormatError(message)


def _seat(game: Game, value: Any, where: str) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = value.strip()
    try:
        return game.player(value)
    except QuaternityError as err:
        raise _format_error(f"{where}: {err}") from None


def parse_deal(game: Game, rules: Rules, value: Any, where: str = "field 'deal'") -> Deal:
    """A ``"deal"`` value (player -> list of card names) checked: every seat given, every card
    exactly once, N*S/P cards a hand, and no whole set under ``initial_quartets = false``."""
    if not isinstance(value, Mapping):
        raise _format_error(f"{where}: expected an object player -> list of cards")
    hands: Deal = {}
    seen: dict[int, int] = {}
    for key, cards in value.items():
        p = _seat(game, key, where)
        if p in hands:
            raise _format_error(f"{where}: {game.seat_name(p)} given twice")
        if not isinstance(cards, list):
            raise _format_error(f"{where}.{key}: expected a list of card names")
        hand = []
        for item in cards:
            if not isinstance(item, str):
                raise _format_error(f"{where}.{key}: a card is a name like \"A0\", got {item!r}")
            try:
                c = game.card(item)
            except QuaternityError as err:
                raise _format_error(f"{where}.{key}: {err}") from None
            if c in seen:
                raise _format_error(f"{where}.{key}: card {item} is dealt twice")
            seen[c] = p
            hand.append(c)
        if len(hand) != game.hand_size:
            raise _format_error(f"{where}.{key}: {len(hand)} cards, but every hand starts with {game.hand_size}")
        hands[p] = sorted(hand)
    for p in range(game.players):
        if p not in hands:
            raise _format_error(f"{where}: no hand for {game.seat_name(p)}")
    if not rules.initial_quartets:
        whole = _whole_sets(game, hands)
        if whole:
            p, s = whole[0]
            raise _format_error(
                f"{where}: {game.seat_name(p)} is dealt all of {game.set_name(s)}, which these rules"
                " (initial_quartets = false) never deal"
            )
    return hands


def parse_record_fields(game: Game, rules: Rules, data: Mapping[str, Any], *, from_start: bool
                        ) -> tuple[Deal | None, int | None, int | None]:
    """The classic fields of a record: ``deal``, ``first`` and ``tie_break`` (each may be absent).

    ``deal`` needs rules with dealt cards and a record from the start of the
    game; ``tie_break`` needs ``tie = random``; ``first`` goes with any rules
    and a record from the start. Errors are FormatErrors naming the field.
    """
    hands = first = tie_break = None
    if data.get("deal") is not None:
        if not rules.dealt:
            raise _format_error("field 'deal': only for rules with dealt cards (preset classic, or dealt = true)")
        if not from_start:
            raise _format_error("field 'deal': a deal needs a record from the start of the game, not a position")
        hands = parse_deal(game, rules, data["deal"])
    if data.get("first") is not None:
        if not from_start:
            raise _format_error("field 'first': a position file says whose turn it is with 'turn'")
        first = _seat(game, data["first"], "field 'first'")
    if data.get("tie_break") is not None:
        if rules.tie != "random":
            raise _format_error("field 'tie_break': only for rules with tie = random")
        tie_break = _seat(game, data["tie_break"], "field 'tie_break'")
    return hands, first, tie_break


def tie_break_problem(position: "Position", tie_break: int | None) -> str | None:
    """Why a recorded tie-break does not fit the game replayed to its end (not over, nobody tied, or
    the seat not among the tied), or None. Call it on a legal replay (an illegal move stops it early)."""
    if tie_break is None:
        return None
    if not position.over:
        return "field 'tie_break': the game is not over (a tie-break is drawn only when a finished game ends in a tie)"
    tied = position.tied()
    g = position.game
    if len(tied) < 2:
        return f"field 'tie_break': nobody tied for first (the winner is {g.seat_name(tied[0])})" if tied else None
    if tie_break not in tied:
        return (f"field 'tie_break': {g.seat_name(tie_break)} was not tied for first"
                f" (tied: {', '.join(g.seat_name(p) for p in tied)})")
    return None

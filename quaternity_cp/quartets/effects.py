"""What each move does: the one place for the rules of a question, an answer, a put-down and a hand-over.

Every user of a rule takes it from here: :class:`~quaternity_cp.quartets.position.Position`
(the referee), the classic game state (a fast simulation with its own data
layout), the public and private views of :mod:`quaternity_cp.quartets.knowledge`, the
agents, the explainer and the solver's fast path. Tests compare the fast
layouts with :class:`~quaternity_cp.quartets.position.Position` move by move.

What a move tells is a list of *facts* (:class:`Lacks`, :class:`Holds`,
:class:`AtLeast`, :class:`AtMost`) about the seats' cards at the moment it is
made; :func:`apply_facts` adds them to a constraint state. The explainer keeps
them as facts, to say which move told what.

- A question ``x>y:c`` (c in set s) tells that x does not hold c and holds a
  card of s; under ``silence`` also that x holds no complete set. An asker
  without cards (possible only under ``empty_hand = ask``) tells nothing.
- With dealt cards (``dealt``) every put-down due is made before anyone asks,
  so a question also tells that nobody holds a complete unclaimed set
  (:func:`settle_facts`).
- An answer yes moves the card from y to x; an answer no tells that y does not
  hold c (:func:`answer`). Yes is legal when some consistent deal has c with y,
  no when some has it elsewhere (:func:`legal_answers`, :func:`answer_domain`).
- A claim (declaration, put-down or automatic claim) takes the set out of play
  and S cards out of the claimer's hand (:func:`claim`).
- After a move the turn goes to the first seat of an order that holds cards
  (:func:`next_order`, :func:`hand_over`), else to the seats the ``handover``
  option names (:func:`fallback_seats`; several seats: a free choice).

>>> from quaternity_cp.quartets.constraints import Constraints
>>> c = Constraints.initial(3, 2, 2)
>>> question_facts(c, 0, 1)
[Lacks(card=1, seat=0), AtLeast(seat=0, set=0, count=1)]
>>> hand_over((1,), hands=(0, 0, 2), scores=(0, 0, 0), empty_hand="skip", handover="clockwise")
(2,)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Sequence, Union

from .constraints import Constraints


# -- facts ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _CardFact:
    card: int
    seat: int

    def moved(self, card: int, giver: int, taker: int, S: int) -> "Fact | None":
        """The fact once ``card`` moved from giver to taker (None: settled by the movement)."""
        return None if card == self.card else self  # type: ignore[return-value]

    def set_of(self, S: int) -> int:
        return self.card // S


@dataclass(frozen=True)
class Lacks(_CardFact):
    """``seat`` does not hold ``card``."""

    def apply(self, c: Constraints) -> Constraints:
        return c.restrict(self.card, ~(1 << self.seat))

    def implied_by(self, c: Constraints) -> bool:
        return not c.domains[self.card] >> self.seat & 1


@dataclass(frozen=True)
class Holds(_CardFact):
    """``seat`` holds ``card``."""

    def apply(self, c: Constraints) -> Constraints:
        return c.restrict(self.card, 1 << self.seat)

    def implied_by(self, c: Constraints) -> bool:
        return c.domains[self.card] & ~(1 << self.seat) == 0


@dataclass(frozen=True)
class _CountFact:
    seat: int
    set: int
    count: int

    def moved(self, card: int, giver: int, taker: int, S: int) -> "Fact":
        """The fact once ``card`` moved from giver to taker: the count shifts with it."""
        if card // S != self.set:
            return self  # type: ignore[return-value]
        return replace(self, count=self.count + (self.seat == taker) - (self.seat == giver))  # type: ignore[return-value]

    def set_of(self, S: int) -> int:
        return self.set


@dataclass(frozen=True)
class AtLeast(_CountFact):
    """``seat`` holds at least ``count`` cards of ``set``."""

    def apply(self, c: Constraints) -> Constraints:
        return c.with_bounds(self.seat, self.set, lo=self.count)

    def implied_by(self, c: Constraints) -> bool:
        return self.count <= max(0, c.lo[self.seat][self.set])


@dataclass(frozen=True)
class AtMost(_CountFact):
    """``seat`` holds at most ``count`` cards of ``set``."""

    def apply(self, c: Constraints) -> Constraints:
        return c.with_bounds(self.seat, self.set, hi=self.count)

    def implied_by(self, c: Constraints) -> bool:
        room = sum(1 for card in c.cards_of(self.set) if c.domains[card] >> self.seat & 1)
        return self.count >= min(c.hi[self.seat][self.set], room)


Fact = Union[Lacks, Holds, AtLeast, AtMost]


def apply_facts(c: Constraints, facts: Iterable[Fact]) -> Constraints:
    """The constraint state with ``facts`` added."""
    for fact in facts:
        c = fact.apply(c)
    return c


# -- what a move tells --------------------------------------------------------------------
def question_facts(c: Constraints, asker: int, card: int, *, silence: bool = False) -> list[Fact]:
    """What asking for ``card`` tells about the asker (see the module text); [] for an asker without cards."""
    if c.hands[asker] == 0:
        return []
    S = c.set_size
    facts: list[Fact] = [Lacks(card, asker), AtLeast(asker, card // S, 1)]
    if silence:
        facts.extend(AtMost(asker, t, S - 1) for t in c.sets_in_play)
    return facts


def settle_facts(c: Constraints) -> list[Fact]:
    """With dealt cards, before a question: nobody holds a complete unclaimed set (it was put down)."""
    top = c.set_size - 1
    return [AtMost(p, s, top) for p in range(c.players) for s in c.sets_in_play]


def asked_facts(c: Constraints, asker: int, card: int, *, silence: bool, dealt: bool) -> list[Fact]:
    """Everything a question tells under the rules: :func:`question_facts`, and :func:`settle_facts` when dealt."""
    facts = question_facts(c, asker, card, silence=silence)
    if dealt:
        facts.extend(settle_facts(c))
    return facts


def question(c: Constraints, asker: int, card: int, *, silence: bool = False) -> Constraints:
    """The constraint state once ``asker`` asked for ``card``: :func:`question_facts` added."""
    return apply_facts(c, question_facts(c, asker, card, silence=silence))


def settle(c: Constraints) -> Constraints:
    """The constraint state once every put-down due is made: :func:`settle_facts` added (the same
    object when they tell nothing new)."""
    return apply_facts(c, settle_facts(c))


def answer_domain(target: int, yes: bool) -> int:
    """The seats (a bit mask) an answer of the asked seat ``target`` says may have held the card:
    yes, the target alone; no, every other seat. The answer is legal when some consistent deal has the
    card with one of them (:func:`legal_answers`)."""
    return 1 << target if yes else ~(1 << target)


def legal_answers(owners: int, target: int) -> tuple[bool, bool]:
    """Which answers to a question to ``target`` are legal, (yes, no), from ``owners``: the seats (a bit
    mask) that hold the asked card in some consistent deal. Yes is legal when the target may hold it,
    no when another seat may (:func:`answer_domain`); a valid position always allows one of them.

    >>> legal_answers(0b011, 1), legal_answers(0b010, 1), legal_answers(0b101, 1)
    ((True, True), (True, False), (False, True))
    """
    return bool(owners & answer_domain(target, True)), bool(owners & answer_domain(target, False))


def answer(c: Constraints, asker: int, target: int, card: int, yes: bool) -> Constraints:
    """The constraint state after the answer: yes moves ``card`` from target to asker, no excludes the target."""
    if yes:
        return c.transfer(card, target, asker)
    return c.restrict(card, answer_domain(target, False))


def claim(c: Constraints, seat: int, s: int) -> Constraints:
    """The constraint state once ``seat`` claimed set ``s`` (whose cards it holds): the set leaves play and
    the seat's hand shrinks by S."""
    in_play = list(c.in_play)
    in_play[s] = False
    hands = list(c.hands)
    hands[seat] -= c.set_size
    return replace(c, in_play=tuple(in_play), hands=tuple(hands))


# -- whose turn --------------------------------------------------------------------------
def next_order(yes: bool, asker: int, target: int, players: int, after_no: str) -> tuple[int, ...]:
    """The seats, in order, that may take the turn after an answer: the asker then the giver after a yes;
    after a no the asked player (``after_no = asked``) or the asker's left neighbour (``next``)."""
    if yes:
        return (asker, target)
    if after_no == "next":
        return ((asker + 1) % players,)
    return (target,)


def fallback_seats(mode: str, hands: Sequence[int], scores: Sequence[int], start: int) -> tuple[int, ...]:
    """Who may move when nobody in the hand-over order holds cards, under the rule option
    ``handover`` = ``mode``; ``start`` is the first seat of the order (clockwise from it).
    Several seats: a free choice (``fewest`` with a tie). () when nobody holds cards."""
    P = len(hands)
    holding = [p for p in range(P) if hands[p] > 0]
    if not holding:
        return ()
    if mode == "seat":
        return (holding[0],)
    clockwise = sorted(holding, key=lambda p: (p - start) % P)
    if mode == "clockwise":
        return (clockwise[0],)
    if mode == "fewest":
        best = min((scores[p], hands[p]) for p in holding)
        return tuple(p for p in holding if (scores[p], hands[p]) == best)
    if mode == "fewest-cards":
        most = min(hands[p] for p in holding)
    else:  # most-cards
        most = max(hands[p] for p in holding)
    return (next(p for p in clockwise if hands[p] == most),)


def hand_over(order: Sequence[int], *, hands: Sequence[int], scores: Sequence[int], empty_hand: str,
              handover: str) -> tuple[int, ...]:
    """The seats that may move after a completed move: the first of ``order`` (under ``empty_hand = ask``
    even without cards), else the first of ``order`` holding cards, else :func:`fallback_seats`."""
    if empty_hand == "ask":
        return (order[0],)
    for p in order:
        if hands[p] > 0:
            return (p,)
    return fallback_seats(handover, hands, scores, order[0])


__all__ = ["Lacks", "Holds", "AtLeast", "AtMost", "Fact", "apply_facts", "question_facts", "settle_facts",
           "asked_facts", "question", "settle", "answer_domain", "legal_answers", "answer", "claim", "next_order", "fallback_seats", "hand_over"]

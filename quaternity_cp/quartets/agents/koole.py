"""The four strategies of the seed's web app (koole/quartets-web, ``strategies.ts``), for classic Quartets.

The web app keeps, per player, a *public* record built from the announcements
(its "common knowledge") and the strategies read only that record and their own
hand. This module rebuilds the same record from the public moves, with the same
quirks, and makes the same choices:

- ``suits[p]``: a list of colours (with repeats). A yes appends the card's colour
  to the asker's list and removes one occurrence from the giver's; a no appends
  the colour to the asker's list if it is not there yet and the asker holds
  cards. After a put-down the colour leaves the putter's list.
- ``cards[p]``: cards p received by a yes (removed when p gives one away; after
  a put-down only the card just received leaves the list).
- ``not_cards[p]``: cards p said no to; never cleared.
- A quirk kept on purpose: when the asker had earlier said no to the card it now
  receives, the web app deletes the entry at that index of the *giver's*
  ``cards`` list (a mistaken array in its code).

Strategies (the app's names in brackets):

- ``random`` (random): a random other player; a random card of a colour it holds
  and not in its hand (any card of an unclaimed set when its hand is empty).
- ``first`` (mostCards): colours by how many cards it holds (ties by the order
  the cards came into its hand); the first colour that an opponent (tried in
  random order) has in ``suits``: if that opponent's first ``cards`` entry has
  the colour, ask for it, else a random card of the colour not held; if that
  opponent's ``cards`` list is empty, a random question. With no colour known
  anywhere, a random card of its most-held colour from a random player.
- ``second`` (smart): for the colours of its own ``suits`` list in order, the
  first one it holds: a random other player, and the lowest card of the colour
  that it lacks and that player has not said no to; if there is none, the card
  is picked against the *other* opponent's no-list but still asked of the first
  (as the app does). Otherwise it plays ``first``.
- ``combined`` (combined): as ``second``, falling back to ``random``.

Where the app's choice is illegal under this project's classic rules, the
nearest legal choice is made (README, "Agents"): a random target is drawn among
players holding cards (the app may ask an empty-handed player, who always says
no and takes the turn), an opponent without cards is skipped when matching
colours, and an empty hand asks for a card of an unclaimed set (the app may ask
for a card already put down). For more than three players the "other opponent"
is the next one after the drawn one, in seat order.
"""

from __future__ import annotations

import random
from typing import Any, Hashable

from ...errors import QuaternityError
from ..game import Declaration, Question
from .base import classic_only

STRATEGIES = ("random", "first", "second", "combined")


class KooleAgent:
    """One of the web app's strategies: ``random``, ``first``, ``second`` or ``combined`` (classic only).

    ``second_fallback`` (``second`` only): ``"first"`` as the app's current code, or
    ``"random"`` as its earlier code did (the agent ``koole-second-random``; it then
    plays like ``combined``, see the README's experiment section).
    """

    def __init__(self, strategy: str, second_fallback: str = "first"):
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown koole strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
        if second_fallback not in ("first", "random"):
            raise ValueError(f"second_fallback must be first or random, not {second_fallback!r}")
        self.strategy = strategy
        self.second_fallback = second_fallback
        self.name = f"koole-{strategy}" + ("-random" if strategy == "second" and second_fallback == "random" else "")
        self._game: tuple[int, int] | None = None  # (game_id, seat) of the record kept

    @classmethod
    def refuses(cls, options: dict[str, Any]) -> str | None:
        """Why it cannot play a game made with ``options`` (the game's defaults filled in), or None: it
        reasons from its own hand, so it plays classic only."""
        return classic_only(options, "it reasons from its own hand, and the Quaternity presets deal none")

    # -- the public record, rebuilt incrementally -------------------------------------------
    def _reset(self, obs, rng: random.Random) -> None:
        g = obs.game
        P = g.players
        self._game = (obs.game_id, obs.seat)
        self._seen = 0
        self._asked = False  # a question has been seen (put-downs before it are the deal's)
        self.suits: list[list[int]] = [[] for _ in range(P)]
        self.cards: list[list[int]] = [[] for _ in range(P)]
        self.not_cards: list[list[int]] = [[] for _ in range(P)]
        self.hands = [g.hand_size] * P
        self._last_received = [-1] * P
        # the app's hand is an array: dealt cards in shuffled order, received cards appended
        self._priority = [rng.random() for _ in range(g.cards)]
        self._received: dict[int, int] = {}
        self._tick = 0

    def _sync(self, obs, rng: random.Random) -> None:
        if self._game != (obs.game_id, obs.seat) or len(obs.moves) < self._seen:
            self._reset(obs, rng)
        moves = obs.moves
        S = obs.game.set_size
        me = obs.seat
        for i in range(self._seen, len(moves)):
            m = moves[i]
            if isinstance(m, Declaration):
                p, s = m.player, m.set
                self.hands[p] -= S
                if self._asked:
                    self.suits[p] = [c for c in self.suits[p] if c != s]
                    last = self._last_received[p]
                    self.cards[p] = [c for c in self.cards[p] if c != last]
                continue
            self._asked = True
            x, y, card = m.asker, m.target, m.card
            s = card // S
            if m.answer:
                self.suits[x].append(s)
                self.cards[x].append(card)
                if s in self.suits[y]:
                    self.suits[y].remove(s)
                if card in self.cards[y]:
                    self.cards[y].remove(card)
                if card in self.not_cards[x]:
                    k = self.not_cards[x].index(card)
                    if k < len(self.cards[y]):
                        del self.cards[y][k]
                self.hands[x] += 1
                self.hands[y] -= 1
                self._last_received[x] = card
                if x == me:
                    self._tick += 1
                    self._received[card] = self._tick
            elif m.answer is False:
                if self.hands[x] > 0 and s not in self.suits[x]:
                    self.suits[x].append(s)
                self.not_cards[y].append(card)
        self._seen = len(moves)

    # -- choices -------------------------------------------------------------------------
    def step(self, obs: Any, legal_actions: list[Hashable], rng: random.Random) -> Hashable:
        if obs.hand is None:
            raise QuaternityError(f"{self.name} plays classic Quartets only (it needs a dealt hand)")
        self._sync(obs, rng)
        x = obs.seat
        if self.strategy == "random":
            y, card = self._random(obs, rng)
        elif self.strategy == "first":
            y, card = self._first(obs, rng)
        else:
            found = self._second(obs, rng)
            if found is not None:
                y, card = found
            elif self.strategy == "second" and self.second_fallback == "first":
                y, card = self._first(obs, rng)
            else:
                y, card = self._random(obs, rng)
        return Question(x, y, card)

    def _others(self, obs) -> list[int]:
        return [p for p in range(obs.game.players) if p != obs.seat]

    def _targets(self, obs) -> list[int]:
        return [p for p in range(obs.game.players) if p != obs.seat and obs.hands[p] > 0]

    def _hand_order(self, obs) -> list[int]:
        received, prio = self._received, self._priority
        return sorted(obs.hand, key=lambda c: (received.get(c, 0), prio[c]))

    def _random(self, obs, rng: random.Random) -> tuple[int, int]:
        targets = self._targets(obs)
        y = targets[rng.randrange(len(targets))]
        S = obs.game.set_size
        hand = obs.hand
        if hand:
            colours = {c // S for c in hand}
            pool = [c for s in sorted(colours) for c in range(s * S, s * S + S) if c not in hand]
        else:
            pool = [c for s, p in enumerate(obs.claimed) if p < 0 for c in range(s * S, s * S + S)]
        return y, pool[rng.randrange(len(pool))]

    def _random_of_colour(self, obs, s: int, rng: random.Random) -> int | None:
        S = obs.game.set_size
        pool = [c for c in range(s * S, s * S + S) if c not in obs.hand]
        return pool[rng.randrange(len(pool))] if pool else None

    def _colours_by_count(self, obs) -> list[int]:
        S = obs.game.set_size
        counts: dict[int, int] = {}
        for c in self._hand_order(obs):  # insertion order: first appearance in the hand
            counts[c // S] = counts.get(c // S, 0) + 1
        return sorted(counts, key=lambda s: -counts[s])  # stable: ties keep hand order

    def _first(self, obs, rng: random.Random) -> tuple[int, int]:
        if obs.hand:
            S = obs.game.set_size
            colours = self._colours_by_count(obs)
            opponents = self._others(obs)
            rng.shuffle(opponents)
            for s in colours:
                for opp in opponents:
                    if obs.hands[opp] > 0 and s in self.suits[opp]:
                        known = self.cards[opp]
                        if known:
                            if known[0] // S == s:
                                return opp, known[0]
                            card = self._random_of_colour(obs, s, rng)
                            if card is not None:
                                return opp, card
                        return self._random(obs, rng)
            card = self._random_of_colour(obs, colours[0], rng)
            if card is not None:
                targets = self._targets(obs)
                return targets[rng.randrange(len(targets))], card
        return self._random(obs, rng)

    def _second(self, obs, rng: random.Random) -> tuple[int, int] | None:
        hand = obs.hand
        if not hand:
            return None
        S = obs.game.set_size
        held = {c // S for c in hand}
        others = self._others(obs)
        targets = self._targets(obs)
        for s in self.suits[obs.seat]:
            if s not in held:
                continue
            y = targets[rng.randrange(len(targets))]
            card = self._lowest(s, S, hand, self.not_cards[y])
            if card is None:
                other = others[(others.index(y) + 1) % len(others)]
                card = self._lowest(s, S, hand, self.not_cards[other])
            if card is not None:
                return y, card
        return None

    @staticmethod
    def _lowest(s: int, S: int, hand, refused: list[int]) -> int | None:
        for c in range(s * S, s * S + S):
            if c not in refused and c not in hand:
                return c
        return None

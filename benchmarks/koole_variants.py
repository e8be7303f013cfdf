"""The seed's experiment under the web app's own table rules, to explain where ours differs.

Not a test, and not a game this project plays: the web app (koole/quartets-web)
lets a player ask an opponent without cards (always a no; the empty-handed
player then takes the turn) and lets an empty hand ask for any card, even of a
set already put down. Both are illegal under this project's classic rules, so
these games have no valid record; this script plays them with a variant of the
classic game state and of the koole agents, for the comparison in the README
("The seed's experiment"). Run from the project root::

    python benchmarks/koole_variants.py --games 1000 --seed 1

It prints, for every cell of the published table, their figure and ours under
the app's table rules with second order falling back to first order (the app's
current code) and to random (its earlier code), each with the difference in
standard errors, and the "mixed" column: the earlier code for line-ups without
``combined``, the current code for line-ups with it.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from quaternity_cp.quartets.agents.koole import STRATEGIES, KooleAgent  # noqa: E402
from quaternity_cp.quartets.experiments import KOOLE_PAIRS, KOOLE_PUBLISHED  # noqa: E402
from quaternity_cp.quartets.game import Game  # noqa: E402
from quaternity_cp.registry import derive_seed  # noqa: E402
from quaternity_cp.quartets.state import ClassicState, classic_rules  # noqa: E402
from quaternity_cp.tournament import seat_orders  # noqa: E402


class AppTable(ClassicState):
    """Classic Quartets with the app's table rules: any opponent may be asked; an empty hand asks anything."""

    def _illegal(self, move):
        x, y, card = move.asker, move.target, move.card
        if x != self.turn or x == y:
            return ValueError(f"not a question of the player on turn: {move}")
        S = self.game.set_size
        if self.hands[x] == 0:
            return None
        if self.claimed[card // S] >= 0 or self.count[x][card // S] == 0 or self.owner[card] == x:
            return ValueError(f"dishonest question: {move}")
        return None

    def _ask(self, x: int, y: int, card: int) -> None:
        if self.claimed[card // self.game.set_size] >= 0:  # a card already put down: no, and y moves
            self._undo.append((self.turn, len(self.moves), len(self.chance), self.unfinished, list(self.reached)))
            self.questions += 1
            self.turn = y
            return
        super()._ask(x, y, card)  # after a no the asked player moves, cards or not (empty_hand = ask)


class AppKoole(KooleAgent):
    """A koole strategy that, like the app, may draw an opponent without cards and ask for any card."""

    def _targets(self, obs):
        return [p for p in range(obs.game.players) if p != obs.seat]

    def _random(self, obs, rng):
        y = rng.choice(self._targets(obs))
        S, hand = obs.game.set_size, obs.hand
        if hand:
            pool = [c for s in sorted({c // S for c in hand}) for c in range(s * S, s * S + S) if c not in hand]
        else:
            pool = list(range(obs.game.cards))
        return y, pool[rng.randrange(len(pool))]

    def _first(self, obs, rng):
        if not obs.hand:
            return self._random(obs, rng)
        S = obs.game.set_size
        colours = self._colours_by_count(obs)
        opponents = self._others(obs)
        rng.shuffle(opponents)
        for s in colours:
            for opp in opponents:  # the app does not skip an opponent without cards
                if s in self.suits[opp]:
                    known = self.cards[opp]
                    if known:
                        if known[0] // S == s:
                            return opp, known[0]
                        return opp, self._random_of_colour(obs, s, rng)
                    return self._random(obs, rng)
        return rng.choice(self._targets(obs)), self._random_of_colour(obs, colours[0], rng)


def table(games: int, seed: int, fallback: str) -> dict[tuple[str, ...], dict[str, tuple[float, int]]]:
    out: dict[tuple[str, ...], dict[str, tuple[float, int]]] = {}
    rules, options = classic_rules()
    for i, lineup in enumerate(itertools.combinations_with_replacement(STRATEGIES, 3)):
        orders = seat_orders(lineup)
        wins = {s: 0.0 for s in lineup}
        held = {s: 0 for s in lineup}
        for k in range(games):
            order = orders[k % len(orders)]
            state = AppTable(Game(3, 6, 4), derive_seed(derive_seed(seed, i), k), rules=rules, options=options)
            agents = [AppKoole(s, second_fallback=fallback) for s in order]
            rngs = [random.Random(derive_seed(derive_seed(seed, i), k, p + 1)) for p in range(3)]
            while not state.is_terminal():
                p = state.current_player()
                state.apply_action(agents[p].step(state.observation(p), [], rngs[p]))
            for p, s in enumerate(order):
                wins[s] += state.returns()[p]
                held[s] += 1
        out[lineup] = {s: (wins[s] / held[s], held[s]) for s in set(lineup)}
    return out


def z_score(p: float, n: int, theirs: float) -> float:
    se = math.hypot(math.sqrt(p * (1 - p) / n), math.sqrt(theirs * (1 - theirs) / 1000))
    return (p - theirs) / se if se else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per line-up")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    current = table(args.games, args.seed, "first")
    earlier = table(args.games, args.seed, "random")
    short = {"random": "R", "first": "1st", "second": "2nd", "combined": "C"}
    print(f"{'own':9} {'opponents':9} {'theirs':>6} {'current':>14} {'earlier':>14} {'mixed':>14}")
    worst = []
    for own in STRATEGIES:
        for j, pair in enumerate(KOOLE_PAIRS):
            lineup = tuple(sorted((own, *pair), key=STRATEGIES.index))
            theirs = KOOLE_PUBLISHED[own][j] / 100
            cols = []
            for source in (current, earlier, earlier if "combined" not in lineup else current):
                p, n = source[lineup][own]
                cols.append((p, z_score(p, n, theirs)))
            worst.append(abs(cols[2][1]))
            print(f"{own:9} {'&'.join(short[s] for s in pair):9} {100 * theirs:>6.0f} "
                  + " ".join(f"{100 * p:>6.1f} ({z:+5.1f})" for p, z in cols))
    print(f"mixed: largest difference {max(worst):.1f} s.e., {sum(w <= 1 for w in worst)} of 40 cells within 1 s.e.")


if __name__ == "__main__":
    main()

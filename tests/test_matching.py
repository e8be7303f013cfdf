"""The matching pre-filter is sound: it never rejects constraints that have a consistent deal.

Checked against CP-SAT without the pre-filter on positions reached by random
records (and the constraints their questions and answers would add), and
against an independent brute-force enumeration on random Constraints. The same
random Constraints also check that ``obviously_infeasible`` is sound and that
every registered engine's analysis is exact.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quaternity_cp import Game, Position, Rules
from quaternity_cp.quartets.constraints import Constraints
from quaternity_cp.quartets.engines import ENGINES, CpSatEngine
from quaternity_cp.quartets.engines.matching import matching_feasible
from quaternity_cp.quartets.game import Declaration, Question
from quaternity_cp.quartets.rules import PRESETS

GAMES = [(2, 2, 2), (2, 2, 3), (3, 2, 3), (3, 3, 2), (4, 2, 2), (2, 3, 4), (3, 3, 3), (3, 4, 3), (4, 3, 4)]

SEEDS = st.integers(0, 2**32 - 1)
FAST = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=2000, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

_exact = CpSatEngine(prefilter=False)


def brute_force(c: Constraints):
    """(feasible, owners, quartets) by enumerating every assignment of the cards in play."""
    P, S = c.players, c.set_size
    cards = list(c.cards_in_play)
    owners = [0] * len(c.domains)
    quartets = [0] * c.sets
    feasible = False
    left = list(c.hands)
    if any(h < 0 for h in left) or sum(left) != len(cards):
        return False, tuple(owners), tuple(quartets)
    holder: dict[int, int] = {}
    count = [[0] * c.sets for _ in range(P)]

    def visit(i: int) -> None:
        nonlocal feasible
        if i == len(cards):
            feasible = True
            for card, p in holder.items():
                owners[card] |= 1 << p
            for s in c.sets_in_play:
                first = holder[s * S]
                if all(holder[card] == first for card in c.cards_of(s)):
                    quartets[s] |= 1 << first
            return
        card = cards[i]
        s = card // S
        for p in range(P):
            if not c.domains[card] >> p & 1 or left[p] == 0 or count[p][s] >= c.hi[p][s]:
                continue
            holder[card] = p
            left[p] -= 1
            count[p][s] += 1
            last_of_set = card == s * S + S - 1
            if not last_of_set or all(c.lo[q][s] <= count[q][s] <= c.hi[q][s] for q in range(P)):
                visit(i + 1)
            count[p][s] -= 1
            left[p] += 1
            del holder[card]

    visit(0)
    return feasible, tuple(owners), tuple(quartets)


def random_constraints(rng: random.Random) -> Constraints:
    """Constraints that a random deal satisfies, then (half the time) a few random tightenings."""
    P = rng.randint(2, 4)
    S = rng.randint(1, 4)
    N = rng.randint(1, max(1, 9 // S))
    in_play = tuple(rng.random() < 0.8 for _ in range(N))
    holder = {card: rng.randrange(P) for s in range(N) if in_play[s] for card in range(s * S, (s + 1) * S)}
    hands = [sum(1 for p in holder.values() if p == q) for q in range(P)]
    full = (1 << P) - 1
    domains = [rng.randint(0, full) | (1 << holder[card]) if card in holder else rng.randint(0, full)
               for card in range(N * S)]
    lo = [[0] * N for _ in range(P)]
    hi = [[S] * N for _ in range(P)]
    for p in range(P):
        for s in range(N):
            n = sum(1 for card in range(s * S, (s + 1) * S) if holder.get(card) == p)
            lo[p][s] = rng.choice((0, 0, rng.randint(0, n), n))
            hi[p][s] = rng.choice((S, S, rng.randint(n, S), n))
    if rng.random() < 0.5:
        for _ in range(rng.randint(1, 3)):
            p, s, card = rng.randrange(P), rng.randrange(N), rng.randrange(N * S)
            edit = rng.randrange(4)
            if edit == 0:
                lo[p][s] = min(S, lo[p][s] + 1)
            elif edit == 1:
                hi[p][s] = max(0, hi[p][s] - 1)
            elif edit == 2:
                domains[card] &= ~(1 << p)
            else:
                hands[p] -= 1
                hands[rng.randrange(P)] += 1
    return Constraints(
        players=P,
        set_size=S,
        in_play=in_play,
        hands=tuple(hands),
        domains=tuple(domains),
        lo=tuple(map(tuple, lo)),
        hi=tuple(map(tuple, hi)),
    )


def check_prefilters(c: Constraints, feasible: bool, where) -> None:
    if feasible:
        assert matching_feasible(c), f"matching pre-filter rejects feasible {c} ({where})"
        assert not c.obviously_infeasible(), f"obviously_infeasible rejects feasible {c} ({where})"


# -- random Constraints ---------------------------------------------------------------------


def check_random_constraints(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(5):
        c = random_constraints(rng)
        feasible, _, _ = brute_force(c)
        check_prefilters(c, feasible, "random constraints")
        assert _exact.feasible(c) == feasible, c


@settings(FAST, max_examples=200)
@given(seed=SEEDS)
def test_matching_never_rejects_feasible_random_constraints(seed):
    check_random_constraints(seed)


@pytest.mark.parametrize("engine", sorted(ENGINES))
@settings(FAST, max_examples=100)
@given(seed=SEEDS)
def test_engines_exact_on_random_constraints(engine, seed):
    """Every engine's analysis equals brute-force enumeration (the pre-filter must not hide deals)."""
    rng = random.Random(seed)
    eng = ENGINES[engine]()
    for _ in range(4):
        c = random_constraints(rng)
        feasible, owners, quartets = brute_force(c)
        assert eng.feasible(c) == feasible, c
        a = eng.analyze(c)
        assert (a.feasible, tuple(a.owners), tuple(a.quartets)) == (feasible, owners, quartets), c


# -- positions reached by random records -----------------------------------------------------


def derived(pos: Position, rng: random.Random, k: int):
    """A few constraints one question or answer away from the position (feasible or not)."""
    c = pos.constraints
    cards = c.cards_in_play
    out = []
    for _ in range(k if cards else 0):
        x = rng.randrange(pos.game.players)
        y = rng.randrange(pos.game.players)
        card = rng.choice(cards)
        asked = pos.question_constraints(x, card, c)
        out.append(("question", asked))
        out.append(("yes", asked.restrict(card, 1 << y)))
        out.append(("no", asked.restrict(card, ~(1 << y))))
    return out


def random_step(pos: Position, rng: random.Random, tries: int = 30) -> bool:
    """Push one random legal move (found by trial, cheaper than listing them all); False if none found."""
    game = pos.game
    c = pos.constraints
    for _ in range(tries):
        x = rng.choice(pos.turn)
        move: Question | Declaration
        if pos.rules.declare and rng.random() < 0.1:
            move = Declaration(x, rng.choice(c.sets_in_play))
        else:
            move = Question(x, rng.randrange(game.players), rng.choice(c.cards_in_play), rng.random() < 0.5)
        for attempt in (move, move.answered(not move.answer) if isinstance(move, Question) else None):
            if attempt is not None and pos.check(attempt) is None:
                pos.push(attempt)
                return True
    return False


def check_record_positions(seed: int, game: Game, rules: Rules, max_moves: int, derived_per_move: int) -> None:
    rng = random.Random(seed)
    pos = Position(game, rules, engine="cpsat")
    for _ in range(max_moves):
        assert matching_feasible(pos.constraints), pos.moves
        for label, c in derived(pos, rng, derived_per_move):
            if _exact.feasible(c):
                check_prefilters(c, True, f"{label} after {[game.move_str(m) for m in pos.moves]}")
        if pos.over or not random_step(pos, rng):
            break


@settings(FAST, max_examples=80)
@given(game=st.sampled_from(GAMES), preset=st.sampled_from(sorted(PRESETS)), seed=SEEDS)
def test_matching_never_rejects_feasible_positions(game, preset, seed):
    check_record_positions(seed, Game(*game), Rules.preset(preset), max_moves=12, derived_per_move=2)


# -- exhaustive variants (--runslow) ---------------------------------------------------------


@pytest.mark.slow
@SLOW
@given(seed=SEEDS)
def test_matching_random_constraints_exhaustive(seed):
    check_random_constraints(seed)


@pytest.mark.slow
@pytest.mark.parametrize("engine", sorted(ENGINES))
@settings(SLOW, max_examples=500)
@given(seed=SEEDS)
def test_engines_exact_on_random_constraints_exhaustive(engine, seed):
    test_engines_exact_on_random_constraints.hypothesis.inner_test(engine, seed)


@pytest.mark.slow
@settings(SLOW, max_examples=300)
@given(game=st.sampled_from(GAMES), preset=st.sampled_from(sorted(PRESETS)), seed=SEEDS)
def test_matching_positions_exhaustive(game, preset, seed):
    check_record_positions(seed, Game(*game), Rules.preset(preset), max_moves=40, derived_per_move=6)

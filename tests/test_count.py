"""Exact counting, probabilities and sampling of consistent deals (quaternity_cp.quartets.count).

The oracle is a plain backtracking enumerator written here, independent of the
DP: it lists every card -> seat assignment of the cards in play that respects
domains, hand sizes and the per-set bounds.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quaternity_cp.quartets.constraints import Constraints
from quaternity_cp.quartets.count import (
    CountLimitError,
    DealCounter,
    card_probabilities,
    count_deals,
    quartet_probabilities,
    sample_deals,
)
from quaternity_cp.errors import QuaternityError


# -- the oracle -----------------------------------------------------------------
def enumerate_deals(c: Constraints) -> list[dict[int, int]]:
    """Every consistent deal, by backtracking over the cards in play."""
    P, S = c.players, c.set_size
    cards = c.cards_in_play
    if any(h < 0 for h in c.hands) or sum(c.hands) != len(cards):
        return []
    left = list(c.hands)
    held = [[0] * c.sets for _ in range(P)]
    owner: dict[int, int] = {}
    deals: list[dict[int, int]] = []

    def rec(i: int) -> None:
        if i == len(cards):
            deals.append(dict(owner))
            return
        card = cards[i]
        s = card // S
        last_of_set = card % S == S - 1
        for p in range(P):
            if not c.domains[card] >> p & 1 or left[p] == 0 or held[p][s] + 1 > c.hi[p][s]:
                continue
            owner[card] = p
            left[p] -= 1
            held[p][s] += 1
            if not last_of_set or all(c.lo[q][s] <= held[q][s] <= c.hi[q][s] for q in range(P)):
                rec(i + 1)
            held[p][s] -= 1
            left[p] += 1
            del owner[card]

    rec(0)
    return deals


def oracle(c: Constraints):
    deals = enumerate_deals(c)
    n = len(deals)
    cards: dict[int, dict[int, Fraction]] = {}
    quartets: dict[int, dict[int, Fraction]] = {}
    if n:
        tally = Counter((card, p) for d in deals for card, p in d.items())
        for card in c.cards_in_play:
            cards[card] = {p: Fraction(tally[card, p], n) for p in range(c.players) if tally[card, p]}
        for s in c.sets_in_play:
            whole: Counter[int] = Counter()
            for d in deals:
                seats = {d[x] for x in c.cards_of(s)}
                if len(seats) == 1:
                    whole[seats.pop()] += 1
            quartets[s] = {p: Fraction(k, n) for p, k in sorted(whole.items())}
    return deals, cards, quartets


# -- random constraint states ------------------------------------------------------
BRUTE_LIMIT = 150_000  # product of domain sizes the enumerator is allowed


@st.composite
def positions(draw, max_cards: int = 12):
    """A random constraint state: mostly consistent with a hidden deal, sometimes broken."""
    P = draw(st.integers(2, 4))
    S = draw(st.integers(1, 4))
    N = draw(st.integers(1, min(4, max_cards // S)))
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    noisy = rnd.random() < 0.3  # break the hidden deal here and there
    in_play = tuple(rnd.random() < 0.8 for _ in range(N))
    if not any(in_play) and rnd.random() < 0.8:
        in_play = (True,) + in_play[1:]
    full = (1 << P) - 1
    live = [s for s in range(N) if in_play[s]]
    untouched = {s for s in live if rnd.random() < 0.3}  # full domains, no bounds
    truth = {x: rnd.randrange(P) for s in live for x in range(s * S, (s + 1) * S)}
    hands = [0] * P
    for p in truth.values():
        hands[p] += 1
    if noisy and rnd.random() < 0.3:  # hands that do not add up, or a negative hand
        q = rnd.randrange(P)
        hands[q] += rnd.choice((-1, 1, -hands[q] - 1))
    domains = [rnd.randrange(1 << P) for _ in range(N * S)]  # garbage outside play
    restrict = 0.2 + 0.8 * rnd.random()
    for x, p in truth.items():
        d = full
        if x // S not in untouched:
            for q in range(P):
                if q != p and rnd.random() < restrict * 0.7:
                    d &= ~(1 << q)
            if noisy and rnd.random() < 0.1:  # lose the true owner
                d &= ~(1 << p)
        domains[x] = d
    # keep the enumerator fast: pin cards to their true owner while too wide
    for x in sorted(truth, key=lambda _: rnd.random()):
        if math.prod(max(1, bin(domains[y]).count("1")) for y in truth) <= BRUTE_LIMIT:
            break
        domains[x] = (1 << truth[x]) | (domains[x] & (1 << rnd.randrange(P)))
    lo = [[0] * N for _ in range(P)]
    hi = [[S] * N for _ in range(P)]
    for p in range(P):
        for s in range(N):
            if s in untouched:
                if rnd.random() < 0.3:
                    hi[p][s] = rnd.randint(S, S + 2)  # loose bounds bind nothing
                continue
            held = sum(1 for x in range(s * S, (s + 1) * S) if truth.get(x) == p)
            if rnd.random() < 0.3:
                lo[p][s] = rnd.randint(0, held)
            r = rnd.random()
            if r < 0.25 and held < S:
                hi[p][s] = S - 1  # the 'no whole set' bound
            elif r < 0.45:
                hi[p][s] = rnd.randint(held, S + 1)
            if noisy and rnd.random() < 0.1:
                lo[p][s] = rnd.randint(0, S + 1)
            if noisy and rnd.random() < 0.1:
                hi[p][s] = rnd.randint(-1, S)
            if not in_play[s] and rnd.random() < 0.5:  # garbage bounds of claimed sets
                lo[p][s], hi[p][s] = S + 1, -1
    return Constraints(
        players=P,
        set_size=S,
        in_play=in_play,
        hands=tuple(hands),
        domains=tuple(domains),
        lo=tuple(tuple(row) for row in lo),
        hi=tuple(tuple(row) for row in hi),
    )


FAST = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(positions())
def test_counts_and_probabilities_match_enumeration(c):
    deals, cards, quartets = oracle(c)
    counter = DealCounter(c)
    assert counter.count() == len(deals)
    assert count_deals(c) == len(deals)
    assert counter.card_probabilities() == cards
    assert counter.quartet_probabilities() == quartets
    # the same answers from fresh counters (tables built in another order of calls)
    assert card_probabilities(c) == cards
    assert quartet_probabilities(c) == quartets


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(), st.integers(0, 2**32 - 1))
def test_samples_are_consistent_and_reproducible(c, seed):
    deals = enumerate_deals(c)
    if not deals:
        with pytest.raises(QuaternityError):
            sample_deals(c, 3, random.Random(seed))
        return
    keys = {tuple(sorted(d.items())) for d in deals}
    drawn = sample_deals(c, 20, random.Random(seed))
    assert len(drawn) == 20
    for d in drawn:
        assert tuple(sorted(d.items())) in keys
    assert sample_deals(c, 20, random.Random(seed)) == drawn


# -- closed forms and edge cases ----------------------------------------------------------
def multinomial(total: int, parts) -> int:
    out = math.factorial(total)
    for k in parts:
        out //= math.factorial(k)
    return out


@pytest.mark.parametrize("P,N,S", [(2, 2, 2), (3, 3, 3), (4, 8, 4), (4, 13, 4), (6, 12, 4), (3, 4, 6)])
def test_initial_positions(P, N, S):
    c = Constraints.initial(P, N, S)
    n = multinomial(N * S, [N * S // P] * P)
    assert count_deals(c) == n
    probs = card_probabilities(c)
    assert probs[0] == {p: Fraction(1, P) for p in range(P)}
    assert len(probs) == N * S


def test_initial_no_quartets_by_inclusion_exclusion():
    # P2 N3 S2, no whole set dealt: every set is split one-one, 2^3 deals
    assert count_deals(Constraints.initial(2, 3, 2, initial_quartets=False)) == 8
    # P3 N2 S3 hands of 2: a whole set never fits a hand anyway
    c = Constraints.initial(3, 2, 3, initial_quartets=False)
    assert count_deals(c) == count_deals(Constraints.initial(3, 2, 3)) == 90


def test_no_sets_in_play():
    c = Constraints.initial(3, 2, 2)
    c = replace(c, in_play=(False, False), hands=(0, 0, 0))
    assert count_deals(c) == 1
    assert card_probabilities(c) == {}
    assert quartet_probabilities(c) == {}
    assert sample_deals(c, 2, random.Random(0)) == [{}, {}]


def test_infeasible_and_mismatched_hands():
    c = Constraints.initial(3, 2, 3)
    bad = replace(c, hands=(2, 2, 1))
    assert count_deals(bad) == 0
    assert card_probabilities(bad) == {}
    assert quartet_probabilities(bad) == {}
    with pytest.raises(QuaternityError):
        sample_deals(bad, 1, random.Random(0))
    # domains fine, bounds contradictory: seat 0 needs 2 of A and 2 of B with a hand of 2
    worse = c.with_bounds(0, 0, lo=2).with_bounds(0, 1, lo=2)
    assert count_deals(worse) == 0
    assert card_probabilities(worse) == {}
    with pytest.raises(QuaternityError):
        sample_deals(worse, 1, random.Random(0))


def test_worked_example_single_deal():
    # docs/rules.md: P3 N3 S3 `0>2:A2- 2>0:B1+ 2>0:C2+ 2>0:B2- 0>2:A0-` leaves exactly one deal
    c = Constraints.initial(3, 3, 3)
    c = c.restrict(2, ~1).with_bounds(0, 0, lo=1)  # 0>2:A2 asked
    c = c.restrict(2, ~4)  # no
    c = c.restrict(4, ~4).with_bounds(2, 1, lo=1)  # 2>0:B1 asked, yes: B1 moves to 2
    c = _yes(c, asker=2, giver=0, card=4)
    c = c.restrict(8, ~4).with_bounds(2, 2, lo=1)
    c = _yes(c, asker=2, giver=0, card=8)
    c = c.restrict(5, ~4).with_bounds(2, 1, lo=1).restrict(5, ~1)  # 2>0:B2-
    c = c.restrict(0, ~1).with_bounds(0, 0, lo=1).restrict(0, ~4)  # 0>2:A0-
    assert count_deals(c) == 1 == len(enumerate_deals(c))
    probs = card_probabilities(c)
    assert all(len(row) == 1 and next(iter(row.values())) == 1 for row in probs.values())
    assert quartet_probabilities(c)[2] == {2: Fraction(1)}


def _yes(c: Constraints, asker: int, giver: int, card: int) -> Constraints:
    """The constraint update of a yes answer (docs/rules.md)."""
    return c.transfer(card, giver, asker)


def test_probabilities_sum_to_one_on_a_larger_position():
    c = Constraints.initial(4, 8, 4, initial_quartets=False)
    rnd = random.Random(5)
    for x in rnd.sample(range(32), 12):
        c = c.restrict(x, ~(1 << rnd.randrange(4)))
    c = c.with_bounds(1, 3, lo=2).with_bounds(2, 5, hi=1)
    counter = DealCounter(c)
    n = counter.count()
    assert n > 0
    for card, row in counter.card_probabilities().items():
        assert sum(row.values()) == 1
        assert all(c.domains[card] >> p & 1 for p in row)
    for s, row in counter.quartet_probabilities().items():
        assert row == {}  # hi = S-1 everywhere
        assert s in c.sets_in_play


def test_state_limit():
    c = Constraints.initial(6, 12, 4)
    for s in range(12):  # touch every set, so that none is dealt in closed form
        c = c.restrict(4 * s, ~1)
    with pytest.raises(CountLimitError):
        count_deals(c, max_states=10)
    assert issubclass(CountLimitError, QuaternityError)


def test_bad_sample_size():
    with pytest.raises(QuaternityError):
        sample_deals(Constraints.initial(2, 2, 2), -1, random.Random(0))


# -- larger positions: probabilities agree with counts of restricted positions -----------
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from([(3, 4, 3), (4, 6, 4), (4, 8, 4), (5, 5, 4)]))
def test_probabilities_are_ratios_of_counts(seed, size):
    rnd = random.Random(seed)
    P, N, S = size
    cards = list(range(N * S))
    rnd.shuffle(cards)
    owner = {x: i * P // (N * S) for i, x in enumerate(cards)}
    whole = any(len({owner[x] for x in range(s * S, (s + 1) * S)}) == 1 for s in range(N))
    c = Constraints.initial(P, N, S, initial_quartets=whole or rnd.random() < 0.7)
    for _ in range(rnd.randrange(2 * N * S)):  # constraints true of the hidden deal
        x = rnd.randrange(N * S)
        p = rnd.randrange(P)
        if rnd.random() < 0.8 and p != owner[x]:
            c = c.restrict(x, ~(1 << p))
        else:
            s = x // S
            held = sum(1 for y in c.cards_of(s) if owner[y] == p)
            c = c.with_bounds(p, s, lo=rnd.randint(0, held), hi=rnd.randint(held, S))
    n = count_deals(c)
    assert n > 0
    x = rnd.randrange(N * S)
    probs = card_probabilities(c)[x]
    for p in range(P):
        assert probs.get(p, 0) == Fraction(count_deals(c.restrict(x, 1 << p)), n)
    s = rnd.randrange(N)
    quartets = quartet_probabilities(c)[s]
    for p in range(P):
        assert quartets.get(p, 0) == Fraction(count_deals(c.with_whole_set(p, s)), n)
    # relabelling seats and sets changes nothing
    seats = list(range(P))
    rnd.shuffle(seats)
    order = list(range(N))
    rnd.shuffle(order)  # new set t is old set order[t]
    domains = [0] * (N * S)
    for t, old in enumerate(order):
        for i in range(S):
            d = c.domains[old * S + i]
            domains[t * S + i] = sum(1 << seats[q] for q in range(P) if d >> q & 1)
    inverse = {seats[q]: q for q in range(P)}
    moved = Constraints(
        players=P, set_size=S, in_play=tuple(c.in_play[o] for o in order),
        hands=tuple(c.hands[inverse[q]] for q in range(P)), domains=tuple(domains),
        lo=tuple(tuple(c.lo[inverse[q]][o] for o in order) for q in range(P)),
        hi=tuple(tuple(c.hi[inverse[q]][o] for o in order) for q in range(P)),
    )
    assert count_deals(moved) == n


# -- agreement with the CP-SAT engine on possible owners and quartets ------------------
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_possible_owners_agree_with_cpsat(c):
    from quaternity_cp.quartets.engines import get_engine  # our own module: never skipped

    analysis = get_engine("cpsat").analyze(c)
    probs = card_probabilities(c)
    quartets = quartet_probabilities(c)
    assert analysis.feasible == (count_deals(c) > 0)
    for card in c.cards_in_play:
        mask = sum(1 << p for p in probs.get(card, {}))
        assert analysis.owners[card] == mask
    for s in c.sets_in_play:
        mask = sum(1 << p for p in quartets.get(s, {}))
        assert analysis.quartets[s] == mask


# -- sampling is uniform: chi-square goodness of fit ----------------------------------
def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` (integer) degrees of freedom, closed form."""
    if x <= 0:
        return 1.0
    h = x / 2
    if df % 2 == 0:
        term = total = math.exp(-h)
        for k in range(1, df // 2):
            term *= h / k
            total += term
        return min(1.0, total)
    total = math.erfc(math.sqrt(h))
    term = math.sqrt(2 * x / math.pi) * math.exp(-h)  # j = 1
    for j in range(1, (df - 1) // 2 + 1):
        if j > 1:
            term *= x / (2 * j - 1)
        total += term
    return min(1.0, total)


def test_chi2_sf_reference_values():
    # textbook critical values
    assert chi2_sf(3.841, 1) == pytest.approx(0.05, abs=2e-4)
    assert chi2_sf(5.991, 2) == pytest.approx(0.05, abs=2e-4)
    assert chi2_sf(11.070, 5) == pytest.approx(0.05, abs=2e-4)
    assert chi2_sf(23.209, 10) == pytest.approx(0.01, abs=2e-4)
    assert chi2_sf(124.342, 100) == pytest.approx(0.05, abs=2e-4)
    assert chi2_sf(135.807, 100) == pytest.approx(0.01, abs=2e-4)


ALPHA = 1e-3  # reject uniformity only on strong evidence; runs are seeded, so deterministic


def chi2_uniform_pvalue(c: Constraints, samples: list[dict[int, int]]) -> float:
    deals = [tuple(sorted(d.items())) for d in enumerate_deals(c)]
    observed = Counter(tuple(sorted(d.items())) for d in samples)
    assert set(observed) <= set(deals)
    expected = len(samples) / len(deals)
    stat = sum((observed[d] - expected) ** 2 / expected for d in deals)
    return chi2_sf(stat, len(deals) - 1)


def _fixed_positions() -> list[Constraints]:
    out = [Constraints.initial(3, 2, 3)]  # 90 deals
    c = Constraints.initial(3, 3, 2, initial_quartets=False)
    c = c.restrict(0, ~1).with_bounds(0, 0, lo=1)
    out.append(c)
    c = Constraints.initial(4, 3, 4)
    c = _yes(c.restrict(1, ~1).with_bounds(0, 0, lo=1), asker=0, giver=2, card=1)
    c = c.restrict(5, ~2).restrict(5, ~1).with_bounds(1, 1, lo=1)  # 1>0:B1- style restriction
    for x in (8, 9, 10, 11, 2, 3):
        c = c.restrict(x, 0b1101 if x < 8 else 0b0110)
    out.append(c)
    c = Constraints.initial(2, 4, 3, initial_quartets=False)
    c = c.restrict(0, 0b01).restrict(4, 0b10).with_bounds(1, 2, lo=2)
    out.append(c)
    # one touched set, two untouched ones (dealt in closed form)
    c = Constraints.initial(3, 3, 2).restrict(0, 0b110).with_bounds(1, 0, lo=1)
    out.append(c)
    # 4 seats, two touched and two untouched sets
    c = Constraints.initial(4, 4, 2)
    c = _yes(c.restrict(0, ~1).with_bounds(0, 0, lo=1), asker=0, giver=1, card=0)
    c = c.restrict(2, ~2)
    out.append(c)
    return out


@pytest.mark.parametrize("index", range(6))
def test_sampling_is_uniform(index):
    c = _fixed_positions()[index]
    n = len(enumerate_deals(c))
    assert 4 <= n <= 400, n
    assert count_deals(c) == n
    samples = sample_deals(c, 60 * n, random.Random(1234 + index))
    assert chi2_uniform_pvalue(c, samples) > ALPHA


def test_chi_square_detects_a_biased_sampler():
    c = _fixed_positions()[0]
    rng = random.Random(7)
    samples = sample_deals(c, 60 * 90, rng)
    first = samples[0]
    biased = [first if rng.random() < 0.05 else d for d in samples]
    assert chi2_uniform_pvalue(c, biased) < ALPHA

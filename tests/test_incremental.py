"""Incremental analysis (issue 12): the flow engine starts every maximum flow from the last deal it
found, and shows most possible quartets by swaps of single cards. Every answer must be exactly the
from-scratch one and brute force's, on random move sequences with pops, and on unrelated states
analysed one after another by one engine (the worst warm starts)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quaternity_cp import Game, Position
from quaternity_cp.quartets.engines import BruteForceEngine, CpSatEngine, FlowEngine, flow
from quaternity_cp.quartets.engines.brute import candidate_deals
from quaternity_cp.quartets.play import random_move
from strategies import constraints, feasible_constraints

BRUTE = BruteForceEngine()
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def small_enough(c) -> bool:
    return candidate_deals(c) <= 20_000


def check_state(engine: FlowEngine, c) -> None:
    """The warm engine, a from-scratch analysis and (when small) brute force agree on c and on every
    single-card restriction of c (the feasibility questions a move asks)."""
    warm = engine.analyze(c)
    assert warm == flow._analyze(c)
    truth = BRUTE.analyze(c) if small_enough(c) else None
    if truth is not None:
        assert warm == truth
    for card in c.cards_in_play[:6]:
        for p in range(c.players):
            for mask in (1 << p, ~(1 << p)):
                r = c.restrict(card, mask)
                expected = bool(warm.feasible and warm.owners[card] & mask)
                assert engine.feasible(r) == expected
    if truth is not None:
        assert engine.feasible(c) == truth.feasible


@PROPERTY
@given(
    shape=st.sampled_from([(2, 2, 2), (2, 3, 2), (3, 3, 2), (3, 2, 3), (4, 4, 2), (4, 2, 2), (2, 2, 4)]),
    preset=st.sampled_from(["quaternity", "blind", "pythagoras", "quaternity-seat"]),
    seed=st.integers(0, 10**6),
    steps=st.integers(1, 25),
)
def test_random_move_sequences_with_pops(shape, preset, seed, steps):
    run_sequence(shape, preset, seed, steps)


def walk(shape, preset, seed, steps):
    """A random move sequence with pops on a position whose engine is kept: yields (engine, position)
    before every step and once at the end."""
    rng = random.Random(seed)
    engine = FlowEngine()
    pos = Position(Game(*shape), preset, engine=engine)
    for _ in range(steps):
        yield engine, pos
        if pos.moves and (pos.over or rng.random() < 0.3):
            pos.pop()
            continue
        move = random_move(pos, rng)
        if move is None:
            break
        pos.push(move)
    yield engine, pos


def run_sequence(shape, preset, seed, steps):
    for engine, pos in walk(shape, preset, seed, steps):
        check_state(engine, pos.constraints)


@PROPERTY
@given(st.lists(constraints(), min_size=2, max_size=6))
def test_one_engine_on_unrelated_states(cs):
    # every analysis starts from the deal of a different state: still exact
    engine = FlowEngine()
    for c in cs:
        truth = BRUTE.analyze(c)
        assert engine.analyze(c) == truth
        assert engine.feasible(c) == truth.feasible


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(feasible_constraints(budget=10**12, players=(3, 6), sets=(4, 8), set_size=(2, 4), max_cards=32),
                min_size=2, max_size=4))
def test_warm_and_cold_agree_on_larger_states(cs):
    warm, cold = FlowEngine(), FlowEngine(warm=False)
    for c in cs:
        assert warm.analyze(c) == cold.analyze(c) == flow._analyze(c, greedy=False)


def test_warm_and_cold_agree_with_cpsat_through_a_larger_game():
    rng = random.Random(7)
    warm = FlowEngine()
    pos = Position(Game(5, 10, 4), engine=warm)
    cpsat = CpSatEngine()
    for i in range(40):
        c = pos.constraints
        a = warm.analyze(c)
        assert a == FlowEngine(warm=False).analyze(c)
        if i % 8 == 0:
            assert a == cpsat.analyze(c)
        move = random_move(pos, rng)
        if move is None:
            break
        pos.push(move)


@PROPERTY
@given(feasible_constraints(budget=20_000, players=(2, 4), sets=(3, 4), set_size=(2, 3)))
def test_swap_witnesses_are_sound_and_the_cycle_search_completes_them(c):
    deal = flow._Deal.of(c)
    assert deal is not None and deal.place()
    possible = deal.possible_owners()
    candidates = deal.quartet_candidates(possible)
    shown = deal._swap_witnesses(candidates)
    truth = BRUTE.analyze(c)
    for v in shown:  # every quartet shown by swaps is a real one
        k, p = divmod(v, deal.P)
        assert truth.quartets[deal.live[k]] >> p & 1
    assert flow._analyze(c) == truth


def test_the_start_of_a_big_game_shows_its_quartets_by_swaps():
    # 10 players x 40 sets of 10: every (seat, set) is a possible quartet, every one shown by swaps
    from quaternity_cp.quartets.constraints import Constraints
    c = Constraints.initial(10, 40, 10)
    deal = flow._Deal.of(c)
    assert deal.place()
    candidates = deal.quartet_candidates(deal.possible_owners())
    assert len(candidates) == 400
    assert len(deal._swap_witnesses(candidates)) == 400
    a = FlowEngine().analyze(c)
    assert all(q == (1 << 10) - 1 for q in a.quartets)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.sampled_from([(3, 4, 3), (4, 4, 2), (3, 3, 3), (5, 5, 2)]), seed=st.integers(0, 10**6),
       steps=st.integers(1, 40))
def test_random_move_sequences_with_pops_slow(shape, seed, steps):
    run_sequence(shape, "quaternity", seed, steps)


@PROPERTY
@given(c=constraints(), data=st.data())
def test_a_remembered_deal_is_accepted_exactly_when_consistent(c, data):
    # the shortcut of FlowEngine.feasible: the last deal found, when it satisfies c, proves c feasible
    owner = [data.draw(st.integers(-1, c.players)) if c.in_play[g // c.set_size] else -1
             for g in range(len(c.domains))]
    fixed = c
    for g in c.cards_in_play:
        fixed = fixed.restrict(g, 1 << owner[g] if 0 <= owner[g] < c.players else 0)
    assert flow._satisfies(c, owner) == BRUTE.feasible(fixed)
    engine = FlowEngine()
    engine._last = owner
    assert engine.feasible(c) == BRUTE.feasible(c)


FAST_USED = [0, 0]


@PROPERTY
@given(st.lists(feasible_constraints(), min_size=1, max_size=4))
def test_components_set_by_set_agree_with_tarjan(cs):
    # the bit-mask components (when every free node is in one component) equal Tarjan's on the
    # same residual graph, for the deals of random warm and cold flows
    engine = FlowEngine()
    for c in cs:
        for last in (None, engine._last):
            if last is not None and len(last) != len(c.domains):
                continue  # (the engine starts afresh then)
            deal = flow._Deal.of(c)
            if deal is None or not deal.place(True, last):
                continue
            fast = deal._same_by_sets()
            slow = deal._same_by_tarjan()
            FAST_USED[fast is not None] += 1
            if fast is not None:
                S, P = deal.S, deal.P
                for i, a in enumerate(deal.owner):
                    v = i // S * P + a
                    assert fast[v] == slow[v]
        engine.analyze(c)


def test_components_set_by_set_are_used_and_agree_on_long_game_states():
    # the states where the fast path matters: many sets, every free node in one component
    rng = random.Random(5)
    game = Game(5, 40, 4, set_names=[f"S{i}x" for i in range(40)])
    pos = Position(game)
    used = 0
    for _ in range(30):
        deal = flow._Deal.of(pos.constraints)
        assert deal.place(True)
        fast, slow = deal._same_by_sets(), deal._same_by_tarjan()
        if fast is not None:
            used += 1
            for i, a in enumerate(deal.owner):
                v = i // deal.S * deal.P + a
                assert fast[v] == slow[v]
        move = random_move(pos, rng)
        if move is None:
            break
        pos.push(move)
    assert used >= 10


def _derive(c, rng):
    """A state near c: a few random restrictions, bound changes and transfers (feasible or not)."""
    P, S = c.players, c.set_size
    live = c.cards_in_play
    for _ in range(rng.randint(1, 4)):
        if not live:
            break
        kind = rng.random()
        card = rng.choice(live)
        s = card // S
        if kind < 0.4:
            c = c.restrict(card, rng.randint(0, (1 << P) - 1))
        elif kind < 0.7:
            p = rng.randrange(P)
            c = c.with_bounds(p, s, lo=rng.randint(0, S), hi=rng.randint(0, S))
        else:
            giver, taker = rng.sample(range(P), 2) if P > 1 else (0, 0)
            if giver != taker and c.hands[giver] > 0:
                c = c.transfer(card, giver, taker)
    return c


def _assert_deal_of(deal, c):
    owner = deal.global_owners(len(c.domains))
    assert flow._satisfies(c, owner)
    # the network's bookkeeping is the one a new network would have for this deal
    fresh = flow._Deal.of(c)
    assert fresh is not None and fresh.place(True, owner)
    assert fresh.owner == deal.owner
    assert (fresh.count, fresh.reach, fresh.used, fresh.lo, fresh.hi, fresh.room, fresh.dom) == (
        deal.count, deal.reach, deal.used, deal.lo, deal.hi, deal.room, deal.dom)
    assert [set(x) for x in fresh.spare] == [set(x) for x in deal.spare]


@PROPERTY
@given(c=feasible_constraints(), seed=st.integers(0, 10**6), steps=st.integers(1, 8))
def test_updating_the_kept_network_agrees_with_brute_force(c, seed, steps):
    # the kept network changed into the one of a nearby state (and back, as a pop does): the same
    # feasibility as brute force, a deal of the new state with exact bookkeeping, and on an
    # infeasible state the deal of the old one left untouched
    rng = random.Random(seed)
    deal = flow._Deal.of(c)
    assert deal.place()
    cur = c
    for _ in range(steps):
        nxt = _derive(cur, rng) if rng.random() < 0.7 else c
        if nxt.obviously_infeasible() or not small_enough(nxt):
            continue
        before = deal.global_owners(len(cur.domains))
        done = deal.update(cur, nxt)
        if done is None:  # too far: the caller builds a new network
            assert deal.global_owners(len(cur.domains)) == before
            continue
        assert done == BRUTE.feasible(nxt)
        if done:
            _assert_deal_of(deal, nxt)
            cur = nxt
        else:
            assert deal.global_owners(len(cur.domains)) == before
            _assert_deal_of(deal, cur)


@PROPERTY
@given(shape=st.sampled_from([(3, 4, 3), (4, 4, 2), (5, 5, 2), (3, 3, 2)]),
       preset=st.sampled_from(["quaternity", "blind", "pythagoras"]),
       seed=st.integers(0, 10**6), steps=st.integers(1, 30))
def test_kept_network_and_from_scratch_agree_on_move_sequences_with_pops(shape, preset, seed, steps):
    # one engine keeps its network through pushes, pops and every question a move asks; each
    # analysis equals the from-scratch one
    for engine, pos in walk(shape, preset, seed, steps):
        c = pos.constraints
        assert engine.analyze(c) == flow._analyze(c)
        if engine._deal is not None:
            _assert_deal_of(engine._deal, engine._c)


@PROPERTY
@given(st.lists(feasible_constraints(), min_size=1, max_size=4))
def test_components_by_bit_masks_agree_with_tarjan(cs):
    # the bit-mask components of small networks equal Tarjan's on the same residual graph
    engine = FlowEngine()
    for c in cs:
        engine.analyze(c)
        deal = engine._deal
        if deal is None or deal.NP + deal.P > 64:
            continue
        fast, slow = deal._same_by_bits(), deal._same_by_tarjan()
        S, P = deal.S, deal.P
        for i, a in enumerate(deal.owner):
            v = i // S * P + a
            assert fast[v] == slow[v]

"""Every engine gives the same exact analysis: flow and CP-SAT against brute-force enumeration."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings

from quaternity_cp.quartets.constraints import Constraints
from quaternity_cp.quartets.engines import (
    ENGINES,
    Analysis,
    BruteForceEngine,
    CpSatEngine,
    FlowEngine,
    SetsEngine,
    flow,
    get_engine,
    matching_feasible,
)
from quaternity_cp.quartets.engines.base import quartet_candidates
from quaternity_cp.errors import QuaternityError
from strategies import constraints, feasible_constraints

FLOW, CPSAT, BRUTE = FlowEngine(), CpSatEngine(), BruteForceEngine()
SETS = SetsEngine()  # one engine for every example: its caches are shared across positions, as in a solve
SETS_VIA_FLOW = SetsEngine(max_bits=1)  # every position handed to its flow fallback
A, B = 0, 1  # sets
PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_engines_agree(c: Constraints) -> None:
    truth = BRUTE.analyze(c)
    assert FLOW.analyze(c) == truth
    assert flow._analyze(c, greedy=False) == truth  # every card placed by an augmenting path
    assert CPSAT.analyze(c) == truth
    assert SETS.analyze(c) == truth
    assert SetsEngine().feasible(c) == truth.feasible  # a fresh engine: feasibility without a cached analysis
    assert SETS_VIA_FLOW.analyze(c) == truth
    for engine in (FLOW, CPSAT, SETS, BRUTE):
        assert engine.feasible(c) == truth.feasible, engine.name
    if not matching_feasible(c):  # a relaxation: it may only rule out what has no deal
        assert not truth.feasible


# -- properties --------------------------------------------------------------------
@PROPERTY
@given(constraints())
def test_engines_agree_on_any_constraints(c):
    assert_engines_agree(c)


@PROPERTY
@given(feasible_constraints())
def test_engines_agree_on_constraints_a_deal_satisfies(c):
    assert BRUTE.feasible(c)
    assert_engines_agree(c)


@PROPERTY
@given(feasible_constraints())
def test_flow_quartet_candidates_are_the_shared_counting_on_possible_owners(c):
    deal = flow._Deal.of(c)
    assert deal.place()
    possible = deal.possible_owners()
    owners = FLOW.analyze(c).owners
    shared = {(p, s) for p, s in quartet_candidates(c) if all(owners[card] >> p & 1 for card in c.cards_of(s))}
    assert {(p, deal.live[k]) for k, p in deal.quartet_candidates(possible)} == shared


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(feasible_constraints(budget=10**12, players=(3, 6), sets=(4, 8), set_size=(3, 4), max_cards=32))
def test_flow_agrees_with_cpsat_on_larger_positions(c):
    assert FLOW.analyze(c) == CPSAT.analyze(c)


# -- worked positions ----------------------------------------------------------------
def position(players, sets, set_size, hands, domains=None, lo=(), hi=(), claimed=()) -> Constraints:
    """A constraint state: full domains and loose bounds unless told; ``lo``/``hi`` as (seat, set, bound)."""
    c = Constraints.initial(players, sets, set_size)
    in_play = tuple(s not in claimed for s in range(sets))
    c = replace(c, hands=tuple(hands), in_play=in_play)
    for card, seats in (domains or {}).items():
        c = c.restrict(card, sum(1 << p for p in seats))
    for p, s, bound in lo:
        c = c.with_bounds(p, s, lo=bound)
    for p, s, bound in hi:
        c = c.with_bounds(p, s, hi=bound)
    return c


def analyses(c: Constraints):
    out = [engine.analyze(c) for engine in (FLOW, CPSAT, BRUTE, SETS)]
    assert out[0] == out[1] == out[2] == out[3]
    return out[0]


def test_after_a_yes_with_two_players_the_set_is_forced():
    # P2 N2 S2, 0>1:A0+ : seat 0 holds A0 and asked for it holding another A card
    c = position(2, 2, 2, hands=(3, 1), domains={0: [0]}, lo=[(0, A, 2)], hi=[(1, A, 1)])
    a = analyses(c)
    assert a.feasible
    assert a.forced_quartets(c) == {A: 0}
    assert a.quartets == (1, 0)


def test_counting_forces_a_set_that_no_domain_shows():
    # P3 N2 S3, 0>1:A0+ 0>2:A2+ : A1 is free by its domain, but seat 0 holds three A cards
    c = position(3, 2, 3, hands=(4, 1, 1), domains={0: [0], 2: [0]}, lo=[(0, A, 3)], hi=[(1, A, 2), (2, A, 2)])
    a = analyses(c)
    assert a.owners[1] == 0b001
    assert a.forced_quartets(c) == {A: 0}


def test_an_upper_bound_rules_out_a_quartet_and_the_one_it_implies():
    # seat 0 may not hold all of A; with two players seat 1 holding all of B would force that
    c = position(2, 2, 2, hands=(2, 2), hi=[(0, A, 1)])
    a = analyses(c)
    assert a.owners == (0b11,) * 4
    assert a.quartets == (0b10, 0b01)


def test_a_quartet_the_first_deal_does_not_show_is_still_found():
    # any first deal splits the sets one way; the other way needs every card to move
    c = position(2, 2, 2, hands=(2, 2))
    a = analyses(c)
    assert a.quartets == (0b11, 0b11)
    assert a.forced_quartets(c) == {}


def test_claimed_sets_are_ignored_and_report_nothing():
    c = position(2, 2, 2, hands=(1, 1), domains={0: [], 1: [0]}, lo=[(0, A, 5)], claimed=[A])
    a = analyses(c)
    assert a.feasible
    assert a.owners[:2] == (0, 0) and a.quartets[A] == 0


def test_no_sets_in_play_is_feasible_with_nothing_to_report():
    c = position(3, 2, 3, hands=(0, 0, 0), claimed=[A, B])
    assert analyses(c) == Analysis(True, (0,) * 6, (0, 0))


@pytest.mark.parametrize(
    "hands, lo, hi",
    [
        ((3, 2), [], []),  # hands do not add up to the cards in play
        ((5, -1), [], []),  # a negative hand
        ((2, 2), [(0, A, -1)], []),  # a negative lower bound
        ((2, 2), [], [(0, A, -1)]),  # a negative upper bound
        ((2, 2), [(0, A, 2)], [(0, A, 1)]),  # lower bound above upper bound
        ((2, 2), [(0, A, 3)], []),  # more than the set holds
        ((2, 2), [(0, A, 2), (1, A, 1)], []),  # two seats need more cards of A than it has
        ((1, 3), [(0, A, 1), (0, B, 1)], []),  # reserved cards exceed the hand
    ],
)
def test_impossible_numbers_leave_no_deal_and_no_crash(hands, lo, hi):
    c = position(2, 2, 2, hands=hands)
    for p, s, bound in lo:  # with_bounds only tightens, so set the raw value
        c = replace(c, lo=_set(c.lo, p, s, bound))
    for p, s, bound in hi:
        c = replace(c, hi=_set(c.hi, p, s, bound))
    a = analyses(c)
    assert not a.feasible
    assert a.owners == (0,) * 4 and a.quartets == (0, 0)
    assert not FLOW.feasible(c) and not BRUTE.feasible(c) and not SetsEngine().feasible(c)


def _set(rows, p, s, value):
    return tuple(tuple(value if (q, t) == (p, s) else x for t, x in enumerate(row)) for q, row in enumerate(rows))


def test_brute_force_refuses_a_position_too_big_to_enumerate():
    c = Constraints.initial(4, 8, 4)
    with pytest.raises(QuaternityError, match="too big") as error:
        BRUTE.analyze(c)
    assert "\n" not in str(error.value)
    assert FLOW.analyze(c).feasible


def test_engines_are_registered_by_name():
    assert set(ENGINES) >= {"cpsat", "flow", "sets", "brute"}
    assert isinstance(get_engine("sets"), SetsEngine)
    assert isinstance(get_engine("flow"), FlowEngine)
    assert isinstance(get_engine("brute"), BruteForceEngine)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(feasible_constraints(budget=10**12, players=(3, 6), sets=(4, 8), set_size=(2, 4), max_cards=32))
def test_sets_engine_agrees_with_flow_on_larger_positions(c):
    assert SETS.analyze(c) == FLOW.analyze(c)


def test_sets_engine_stays_exact_when_its_caches_are_emptied(monkeypatch):
    from quaternity_cp.quartets.engines import sets
    monkeypatch.setattr(sets, "CACHE_LIMIT", 3)  # every table is emptied again and again
    engine = SetsEngine()
    c = Constraints.initial(3, 4, 2)
    for card, mask in [(0, 0b011), (2, 0b110), (5, 0b101), (1, 0b001), (7, 0b010)]:
        c = c.restrict(card, mask)
        assert engine.analyze(c) == BRUTE.analyze(c)
        assert engine.feasible(c) == BRUTE.feasible(c)


@pytest.mark.parametrize("shape, flow_used", [
    ((10, 100, 10), True),  # 10 seats of 100 cards: digit bases of 201, far too many bits
    ((6, 1, 30), True),  # small hands, but one set of 30 cards has 324,632 count vectors among 6 seats
    ((2, 1, 100), False),  # one set of 100 cards between two seats: 101 count vectors, its own work
])
def test_sets_engine_hands_large_games_to_the_flow_engine(shape, flow_used):
    c = Constraints.initial(*shape)
    engine = SetsEngine()
    assert engine.analyze(c) == FLOW.analyze(c)
    assert engine.feasible(c) and engine.feasible(c)  # the second call: the set known to be too big
    assert (engine._flow is not None) == flow_used
    assert SetsEngine()._flow is None  # nothing built before it is needed

"""The compiled deal analysis (:mod:`quaternity_cp.quartets.deals_nb`) against brute-force enumeration of every
deal and against the sets engine (:class:`~quaternity_cp.quartets.engines.sets.SetsEngine`): the same feasibility,
the same possible owners of every card and the same possible quartets of every set."""

from __future__ import annotations

import random
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from quaternity_cp.quartets.constraints import make_constraints  # noqa: E402
from quaternity_cp.quartets.deals_nb import StateBudgetExceeded, analyze, analyze_py  # noqa: E402
from quaternity_cp.quartets.engines.sets import SetsEngine  # noqa: E402

#: the most leaves (product of the domain sizes) a brute-force enumeration walks
LEAVES = 3000
#: sentinel in the output rows beyond K (analyze must leave them alone)
UNTOUCHED = -7


def brute(doms, lo, hi, hands):
    """Every deal enumerated: None when there is none, else (owners[k][i], quartet[k]). Negative bounds describe
    no position (no deal), as :func:`analyze` has it."""
    K, P = len(doms), len(hands)
    S = len(doms[0]) if K else 0
    if any(x < 0 for row in lo for x in row) or any(x < 0 for row in hi for x in row):
        return None
    cards = [(k, i) for k in range(K) for i in range(S)]
    choices = [[p for p in range(P) if doms[k][i] >> p & 1] for k, i in cards]
    owners = [[0] * S for _ in range(K)]
    quartet = [0] * K
    found = False
    for deal in product(*choices):
        count = [[0] * P for _ in range(K)]
        for (k, _), p in zip(cards, deal):
            count[k][p] += 1
        if [sum(count[k][p] for k in range(K)) for p in range(P)] != list(hands):
            continue
        if any(not lo[k][p] <= count[k][p] <= hi[k][p] for k in range(K) for p in range(P)):
            continue
        found = True
        for (k, i), p in zip(cards, deal):
            owners[k][i] |= 1 << p
        for k in range(K):
            for p in range(P):
                if count[k][p] == S:
                    quartet[k] |= 1 << p
    return (owners, quartet) if found else None


def run(doms, lo, hi, hands, S, pad=0, max_states=1 << 20, analysis=analyze):
    """``analysis`` (:func:`analyze` or one with its arguments) on arrays with ``pad`` extra rows of garbage beyond
    K (doms, bounds) and of sentinels (outputs); returns (code, owners, quartet) of the first K rows, checking the
    padding is untouched."""
    K, P = len(doms), len(hands)
    rng = random.Random(K * 1000 + P * 10 + pad)
    d = np.array([list(r) for r in doms] + [[rng.randrange(-3, 1 << P) for _ in range(S)] for _ in range(pad)],
                 np.int64).reshape(K + pad, S)
    lo_a = np.array([list(r) for r in lo] + [[rng.randrange(-2, 9) for _ in range(P)] for _ in range(pad)],
                    np.int64).reshape(K + pad, P)
    hi_a = np.array([list(r) for r in hi] + [[rng.randrange(-2, 9) for _ in range(P)] for _ in range(pad)],
                    np.int64).reshape(K + pad, P)
    owners = np.full((K + pad, S), UNTOUCHED, np.int64)
    quartet = np.full(K + pad, UNTOUCHED, np.int64)
    got = analysis(d, lo_a, hi_a, K, np.array(hands, np.int64), owners, quartet, max_states)
    assert (owners[K:] == UNTOUCHED).all() and (quartet[K:] == UNTOUCHED).all()
    return got, owners[:K].tolist(), quartet[:K].tolist()


def check_against_brute_force(inst, pad, analysis, on_lists):
    """An instance of :func:`instances` analysed by ``analysis`` (through :func:`run`, with ``pad`` rows of padding)
    and by its list wrapper ``on_lists``, both checked against :func:`brute`; brute's answer."""
    P, S, doms, lo, hi, hands = inst
    want = brute(doms, lo, hi, hands)
    got, owners, quartet = run(doms, lo, hi, hands, S, pad, analysis=analysis)
    assert got in (0, 1)
    assert (got == 1) == (want is not None)
    if want is None:
        assert owners == [[0] * S for _ in doms] and quartet == [0] * len(doms)
    else:
        assert (owners, quartet) == want
    assert on_lists(doms, lo, hi, hands) == want
    return want


def engine_analysis(P, S, doms, lo, hi, hands):
    """The sets engine on the same instance (bounds >= 0): None or (owners[k][i], quartet[k])."""
    K = len(doms)
    c = make_constraints(P, S, (True,) * K, tuple(hands), tuple(x for row in doms for x in row),
                         tuple(tuple(lo[k][p] for k in range(K)) for p in range(P)),
                         tuple(tuple(hi[k][p] for k in range(K)) for p in range(P)))
    a = SetsEngine().analyze(c)
    if not a.feasible:
        return None
    return [list(a.owners[k * S:(k + 1) * S]) for k in range(K)], list(a.quartets)


def extra(full):
    """Seats a planted card's domain adds to its own: none, all, or any."""
    return st.one_of(st.just(0), st.just(full), st.integers(0, full))


@st.composite
def instances(draw):
    """(P, S, doms, lo, hi, hands): P 2..4, K 0..4, S 1..4, at most 12 cards and LEAVES deals to enumerate. Most
    are built around a planted deal (domains that contain it, hands that count it, bounds mostly around it), so
    that most have deals and many cards more than one owner; the others are drawn at random (mostly no deal)."""
    P = draw(st.integers(2, 4))
    S = draw(st.integers(1, 4))
    K = 0 if draw(st.integers(0, 19)) == 0 else draw(st.integers(1, min(4, 12 // S)))
    full = (1 << P) - 1
    planted = draw(st.integers(0, 9)) < 7
    seat = st.integers(0, P - 1)
    deal = [[draw(seat) for _ in range(S)] for _ in range(K)]
    if planted:
        doms = [[1 << p | draw(extra(full)) for p in row] for row in deal]
    else:
        dom = st.one_of(st.integers(1, full), st.just(full), st.integers(0, full))
        doms = [[draw(dom) for _ in range(S)] for _ in range(K)]
    # the enumeration stays small: the widest domains narrowed (to the planted seat, or the lowest) while there are
    # too many leaves
    while True:
        sizes = [[bin(x).count("1") for x in row] for row in doms]
        if np.prod([max(z, 1) for row in sizes for z in row], dtype=np.int64) <= LEAVES:
            break
        k, i = max(((k, i) for k in range(K) for i in range(S)), key=lambda ki: sizes[ki[0]][ki[1]])
        doms[k][i] = 1 << deal[k][i] if planted else doms[k][i] & -doms[k][i]
    count = [[row.count(p) for p in range(P)] for row in deal]
    wild = draw(st.integers(0, 14)) == 0  # bounds anywhere in -1..S+1
    if wild:
        bound = st.integers(-1, S + 1)
        lo = [[draw(bound) for _ in range(P)] for _ in range(K)]
        hi = [[draw(bound) for _ in range(P)] for _ in range(K)]
    elif planted:  # around the planted deal; now and then some off it
        off = -1 if draw(st.integers(0, 4)) == 0 else 0
        lo = [[max(0, c - draw(st.sampled_from((0, 1, 1, 2, S, off)))) for c in row] for row in count]
        hi = [[max(0, c + draw(st.sampled_from((0, 1, 1, 2, S, off)))) for c in row] for row in count]
    else:
        lo = [[draw(st.sampled_from((0, 0, 0, 1, 2))) for _ in range(P)] for _ in range(K)]
        hi = [[draw(st.sampled_from((S, S, S, S - 1, 1, 2, S + 1))) for _ in range(P)] for _ in range(K)]
    kind = draw(st.integers(0, 9))
    if kind < 8 and planted:  # the planted deal's hands
        hands = [sum(row[p] for row in count) for p in range(P)]
    elif kind < 9:  # any hands summing to K*S
        cuts = sorted(draw(st.lists(st.integers(0, K * S), min_size=P - 1, max_size=P - 1)))
        hands = [b - a for a, b in zip([0] + cuts, cuts + [K * S])]
    else:  # anything, negative hands included
        hands = [draw(st.integers(-1, K * S + 1)) for _ in range(P)]
    return P, S, doms, lo, hi, hands


@settings(max_examples=300, deadline=None)
@given(instances(), st.integers(0, 2))
def test_against_brute_force_and_engine(inst, pad):
    P, S, doms, lo, hi, hands = inst
    want = check_against_brute_force(inst, pad, analyze, analyze_py)
    if all(x >= 0 for rows in (lo, hi) for row in rows for x in row):
        assert engine_analysis(P, S, doms, lo, hi, hands) == want


def test_budget():
    """-1 when the radix states pass max_states (125 here: hands of 4 among 4 seats); the answer at the budget."""
    doms, lo, hi, hands = [[15] * 4] * 4, [[0] * 4] * 4, [[4] * 4] * 4, [4, 4, 4, 4]
    assert run(doms, lo, hi, hands, 4, max_states=124)[0] == -1
    assert run(doms, lo, hi, hands, 4, max_states=1)[0] == -1
    assert run(doms, lo, hi, hands, 4, max_states=125) == (1, [[15] * 4] * 4, [15] * 4)
    with pytest.raises(StateBudgetExceeded):
        analyze_py(doms, lo, hi, hands, max_states=100)
    assert analyze_py(doms, lo, hi, hands, max_states=125) == ([[15] * 4] * 4, [15] * 4)


def test_no_sets():
    """K = 0: a deal (the empty one) iff every hand is 0; nothing is written."""
    assert run([], [], [], [0, 0, 0], 3, pad=2) == (1, [], [])
    assert run([], [], [], [0, 1, 0], 3, pad=2) == (0, [], [])
    assert run([], [], [], [1, -1], 2, pad=1) == (0, [], [])
    assert analyze_py([], [], [], [0, 0]) == ([], [])
    assert analyze_py([], [], [], [0, 1]) is None


@pytest.mark.parametrize("doms, lo, hi, hands", [
    ([[3, 3], [3, 3]], [[0, 0], [0, 0]], [[2, 2], [2, 2]], [3, 2]),  # hands sum to 5, not 4
    ([[3, 3], [3, 3]], [[0, 0], [0, 0]], [[2, 2], [2, 2]], [5, -1]),  # a negative hand
    ([[3, 3], [3, 3]], [[0, 0], [0, -1]], [[2, 2], [2, 2]], [2, 2]),  # a negative bound
    ([[3, 3], [3, 3]], [[0, 0], [0, 0]], [[2, 2], [-1, 2]], [2, 2]),
    ([[1, 1], [3, 3]], [[0, 0], [0, 0]], [[2, 2], [2, 2]], [1, 3]),  # seat 0 holds set 0 but one card
    ([[3, 3], [3, 3]], [[0, 0], [0, 0]], [[1, 1], [1, 1]], [4, 0]),  # at most one card of a set per seat
    ([[3, 3], [3, 3]], [[2, 0], [0, 0]], [[1, 2], [2, 2]], [2, 2]),  # lo above hi
    ([[3, 0], [3, 3]], [[0, 0], [0, 0]], [[2, 2], [2, 2]], [2, 2]),  # a card no seat may hold
    ([[7, 7], [7, 7], [4, 4]], [[0, 0, 0]] * 3, [[2, 2, 2], [2, 2, 2], [2, 2, 1]], [2, 2, 2]),  # set 2: seat 2's
])
def test_infeasible(doms, lo, hi, hands):
    S = len(doms[0])
    assert brute(doms, lo, hi, hands) is None
    assert run(doms, lo, hi, hands, S, pad=1) == (0, [[0] * S for _ in doms], [0] * len(doms))
    assert analyze_py(doms, lo, hi, hands) is None


def test_forced_and_quartets():
    """A hand-checked case: seat 1 may hold only one card of set 0 (the others are 0b101) and holds one card; seat 2
    holds two, so only seat 0 may hold a whole set."""
    doms = [[0b101, 0b101, 0b111], [0b111, 0b111, 0b111]]
    lo, hi = [[0, 0, 0], [0, 0, 0]], [[3, 3, 3], [3, 3, 3]]
    owners, quartet = analyze_py(doms, lo, hi, [3, 1, 2])
    assert owners == [[0b101, 0b101, 0b111], [0b111, 0b111, 0b111]]
    assert quartet == [0b001, 0b001]
    assert (owners, quartet) == brute(doms, lo, hi, [3, 1, 2])


def _random_instance(rng, P, K, S):
    """A random instance with a deal: a random deal, then domains that contain it and bounds around it."""
    hands = [0] * P
    doms, lo, hi = [], [], []
    for _ in range(K):
        count = [0] * P
        row = []
        for _ in range(S):
            p = rng.randrange(P)
            count[p] += 1
            hands[p] += 1
            extra = 0 if rng.random() < 0.3 else rng.getrandbits(P)
            row.append(1 << p | extra)
        doms.append(row)
        lo.append([max(0, c - rng.choice((0, 0, 0, 1, 2))) for c in count])
        hi.append([min(S, c + rng.choice((0, 1, 1, 2, S))) for c in count])
    return doms, lo, hi, hands


@pytest.mark.parametrize("seed", range(6))
def test_large_against_engine(seed):
    """P = 8, K = 8, S = 2 (beyond brute force): the same answer as the sets engine, on instances with a deal
    and on the same instances with hands shifted between two seats (often no deal)."""
    rng = random.Random(seed)
    P, K, S = 8, 8, 2
    doms, lo, hi, hands = _random_instance(rng, P, K, S)
    want = engine_analysis(P, S, doms, lo, hi, hands)
    assert want is not None
    assert analyze_py(doms, lo, hi, hands) == want
    shifted = list(hands)
    a, b = rng.sample([p for p in range(P) if hands[p] > 0], 2)
    shifted[a] -= 1
    shifted[rng.choice([q for q in range(P) if q != a])] += 1
    assert analyze_py(doms, lo, hi, shifted) == engine_analysis(P, S, doms, lo, hi, shifted)


def test_ten_seats_against_engine():
    """P = 10, K = 10, S = 2, every domain open but a few: the sets engine's answer (19683 radix states)."""
    rng = random.Random(10)
    P, K, S = 10, 10, 2
    doms, lo, hi, hands = _random_instance(rng, P, K, S)
    hands_even = [2] * P
    doms_open = [[(1 << P) - 1] * S for _ in range(K)]
    doms_open[0][0] = 0b1
    doms_open[3] = [0b1100000000, 0b1100000000]
    for d, l, h, hs in ((doms, lo, hi, hands), (doms_open, [[0] * P] * K, [[S] * P] * K, hands_even)):
        assert analyze_py(d, l, h, hs) == engine_analysis(P, S, d, l, h, hs)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_sets_with_one_description(data):
    """Sets with the same description (domains as a multiset, bounds) share their vectors and their answers
    (the analysis computes them once): copies of one set, its cards in other orders, next to other sets."""
    P = data.draw(st.integers(2, 4))
    S = data.draw(st.integers(1, 3))
    full = (1 << P) - 1
    row = [data.draw(st.integers(1, full)) for _ in range(S)]
    lo_row = [data.draw(st.integers(0, 1)) for _ in range(P)]
    hi_row = [data.draw(st.integers(1, S)) for _ in range(P)]
    doms, lo, hi = [], [], []
    for _ in range(data.draw(st.integers(2, 3))):
        doms.append(data.draw(st.permutations(row)))
        lo.append(list(lo_row))
        hi.append(list(hi_row))
    if data.draw(st.booleans()):  # another set
        at = data.draw(st.integers(0, len(doms)))
        doms.insert(at, [data.draw(st.integers(1, full)) for _ in range(S)])
        lo.insert(at, [0] * P)
        hi.insert(at, [S] * P)
    if data.draw(st.integers(0, 2)):  # the hands of a deal within the domains (bounds aside)
        seats = [data.draw(st.sampled_from([p for p in range(P) if d >> p & 1])) for row in doms for d in row]
        hands = [seats.count(p) for p in range(P)]
    else:
        cuts = sorted(data.draw(st.lists(st.integers(0, len(doms) * S), min_size=P - 1, max_size=P - 1)))
        hands = [b - a for a, b in zip([0] + cuts, cuts + [len(doms) * S])]
    want = brute(doms, lo, hi, hands)
    assert analyze_py(doms, lo, hi, hands) == want
    assert engine_analysis(P, S, doms, lo, hi, hands) == want


@pytest.mark.parametrize("seed", range(4))
def test_many_domains(seed):
    """P = 8 and 8 distinct domains in a set: more (domain, seat) pairs than a word holds, so the owners come
    from the vectors of each domain's other cards (another path); brute force for one set, the engine for two."""
    rng = random.Random(seed)
    P, S = 8, 8
    doms = [[1 << i | (1 << rng.randrange(i + 1, P) if i < P - 1 else 0) for i in range(S)]]  # distinct
    lo, hi = [[0] * P], [[rng.choice((1, 2, 2, 8)) for _ in range(P)]]
    deal = [rng.choice([p for p in range(P) if d >> p & 1]) for d in doms[0]]
    hands = [deal.count(p) for p in range(P)]
    hi[0] = [max(h, c) for h, c in zip(hi[0], hands)]
    want = brute(doms, lo, hi, hands)
    assert want is not None
    assert analyze_py(doms, lo, hi, hands) == want
    two, lo2, hi2, hands2 = _random_instance(rng, P, 1, S)
    doms2, lo2, hi2 = doms + two, lo + lo2, hi + hi2
    hands2 = [a + b for a, b in zip(hands, hands2)]
    assert analyze_py(doms2, lo2, hi2, hands2) == engine_analysis(P, S, doms2, lo2, hi2, hands2)


@pytest.mark.parametrize("doms, hi", [
    ([7, 5, 5], [2, 1, 2]), ([5, 7, 7], [3, 1, 3]), ([7, 7, 6, 6], [3, 2, 4]), ([7, 3, 3, 3], [4, 3, 4]),
    ([3, 7, 7, 3], [3, 3, 1]),
])
def test_domains_in_turn(doms, hi):
    """A set whose cards of one domain reach a count vector in several ways: the placements go domain by
    domain, those of a domain in increasing seat order, and a vector reached twice must keep the least seat
    (else a (domain, seat) pair of its placements is lost). Every hand of three seats, against brute force."""
    S = len(doms)
    for hands in product(range(S + 1), repeat=3):
        if sum(hands) == S:
            assert analyze_py([doms], [[0, 0, 0]], [hi], list(hands)) == brute([doms], [[0, 0, 0]], [hi], hands)


def test_same_sets_in_other_orders():
    """Two sets with one description, their cards in other orders: each card gets the owners of its domain."""
    doms = [[0b01, 0b10], [0b10, 0b01]]
    lo, hi = [[0, 0], [0, 0]], [[2, 2], [2, 2]]
    assert analyze_py(doms, lo, hi, [2, 2]) == brute(doms, lo, hi, [2, 2]) == ([[1, 2], [2, 1]], [0, 0])
    doms = [[0b011, 0b100, 0b111], [0b111, 0b011, 0b100], [0b100, 0b111, 0b011]]
    lo, hi = [[0, 0, 0]] * 3, [[3, 3, 3]] * 3
    for hands in ([3, 3, 3], [5, 1, 3], [1, 1, 7], [4, 0, 5]):
        assert analyze_py(doms, lo, hi, hands) == brute(doms, lo, hi, hands)

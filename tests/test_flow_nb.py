"""The compiled flow analysis (:mod:`quaternity_cp.quartets.flow_nb`, what the packed kernel analyses with) against
brute-force enumeration of every deal, against the radix DP (:mod:`quaternity_cp.quartets.deals_nb`, an independent
method) and against the sets engine: the same feasibility, possible owners of every card and possible quartets."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from quaternity_cp.quartets.deals_nb import analyze_py  # noqa: E402
from quaternity_cp.quartets.flow_nb import (  # noqa: E402
    FLOW_ROWS, analyze_flow, analyze_flow_py, analyze_flow_ws, flow_workspace)
from test_deals_nb import (  # noqa: E402
    _random_instance, brute, check_against_brute_force, engine_analysis, instances, run as deals_run)


def run(doms, lo, hi, hands, S, pad=0, ws=None):
    """:func:`analyze_flow` (or :func:`analyze_flow_ws` in ``ws``) through the DP's test helper: padding rows of
    garbage in the inputs and of sentinels in the outputs, checked untouched; (code, owners, quartet)."""
    if ws is None:
        return deals_run(doms, lo, hi, hands, S, pad, analysis=analyze_flow)
    return deals_run(doms, lo, hi, hands, S, pad,
                     analysis=lambda d, lo_a, hi_a, K, h, own, q, _: analyze_flow_ws(d, lo_a, hi_a, K, h, own, q, ws))


@settings(max_examples=400, deadline=None)
@given(instances(), st.integers(0, 2))
def test_against_brute_force(inst, pad):
    check_against_brute_force(inst, pad, analyze_flow, analyze_flow_py)


# the shared workspace: made for the largest instances the strategy draws (4 sets of 4 cards among 4 seats), then
# every smaller one analysed in it, one after the other, with whatever the last call left in it
SHARED = flow_workspace(4, 4, 4)


@settings(max_examples=200, deadline=None)
@given(instances())
def test_a_reused_workspace_gives_the_same_answers(inst):
    """A workspace keeps nothing that matters from one call to the next (the kernel reuses one a batch)."""
    P, S, doms, lo, hi, hands = inst
    K = len(doms)
    assert SHARED.shape[0] == FLOW_ROWS and SHARED.shape[1] >= max(K * S, (K + 1) * P)
    want = run(doms, lo, hi, hands, S)
    SHARED[:] = random.Random(K * 7 + P).randrange(-5, 1 << 20)  # garbage, as a previous call may leave
    assert run(doms, lo, hi, hands, S, ws=SHARED) == want


@pytest.mark.parametrize("shape", [(8, 8, 2), (4, 4, 4), (5, 3, 4), (3, 6, 3), (10, 10, 2), (12, 12, 2),
                                   (13, 13, 2), (16, 16, 2), (2, 6, 4)])
def test_large_against_the_radix_dp(shape):
    """Beyond brute force: the radix DP's answers, on instances with a deal (domains around a random one, often
    widened, bounds around it) and on the same with a card moved between two hands (often none)."""
    P, K, S = shape
    rng = random.Random(P * 100 + K * 10 + S)
    seen = {0: 0, 1: 0}
    for _ in range(40 if P < 13 else 6):
        doms, lo, hi, hands = _random_instance(rng, P, K, S)
        if rng.random() < 0.6:
            doms = [[d | rng.getrandbits(P) for d in row] for row in doms]
            lo = [[min(x, rng.choice((0, 1))) for x in row] for row in lo]
        shifted = list(hands)
        a = rng.choice([p for p in range(P) if hands[p] > 0])
        shifted[a] -= 1
        shifted[rng.choice([q for q in range(P) if q != a])] += 1
        for hs in (hands, shifted):
            want = analyze_py(doms, lo, hi, hs, max_states=1 << 24)
            assert analyze_flow_py(doms, lo, hi, hs) == want
            seen[want is not None] += 1
    assert seen[1] > 0 and seen[0] > 0  # both kinds met


def test_twelve_seats_against_the_sets_engine():
    """12 seats of 2 cards, every domain open but a few (3^11 radix states for the DP): the sets engine's answer."""
    P, K, S = 12, 12, 2
    doms = [[(1 << P) - 1] * S for _ in range(K)]
    doms[0][0] = 0b1
    doms[3] = [0b110000000000, 0b110000000000]
    doms[5][1] = 0b10
    lo = [[0] * P for _ in range(K)]
    lo[7][4] = 1
    hi = [[S] * P for _ in range(K)]
    hi[2][0] = 0
    hands = [2] * P
    want = engine_analysis(P, S, doms, lo, hi, hands)
    assert want is not None and any(want[1])
    assert analyze_flow_py(doms, lo, hi, hands) == want


def test_quartets_need_cycles():
    """A seat holds a whole set only after cards move around a cycle through other sets: the greedy deal puts set
    0's cards apart, and only swapping through set 1 gathers them (brute force agrees)."""
    doms = [[0b011, 0b011], [0b111, 0b111], [0b110, 0b110]]
    lo = [[0, 0, 0]] * 3
    hi = [[2, 2, 2]] * 3
    hands = [2, 2, 2]
    assert analyze_flow_py(doms, lo, hi, hands) == brute(doms, lo, hi, hands)
    owners, quartet = analyze_flow_py(doms, lo, hi, hands)
    assert quartet[0] == 0b011 and quartet[2] == 0b110


def test_no_sets_and_bad_numbers():
    assert analyze_flow_py([], [], [], [0, 0]) == ([], [])
    assert analyze_flow_py([], [], [], [1, -1]) is None
    assert analyze_flow_py([[0b11, 0b11]], [[0, 0]], [[2, 2]], [3, -1]) is None
    assert analyze_flow_py([[0b11, 0b11]], [[2, 0]], [[1, 2]], [1, 1]) is None  # lo above hi
    assert analyze_flow_py([[0b11, 0b11]], [[0, 0]], [[-1, 2]], [0, 2]) is None  # a negative bound
    assert analyze_flow_py([[0b100, 0b11]], [[0, 0]], [[2, 2]], [1, 1]) is None  # a domain of no seat in play


def test_too_many_seats_is_refused():
    with pytest.raises(ValueError, match="at most 31 seats"):
        analyze_flow_py([[1, 1]], [[0] * 32], [[2] * 32], [2] + [0] * 31)


def test_the_compiled_kernels_tests_run_as_one_group(request):
    """Under ``-n 2 --dist loadgroup`` (pyproject.toml) this file's tests, as every file of
    conftest.COMPILED_KERNEL_MODULES, carry the group that puts them in one worker (xdist marks it on the node
    id), so that numba compiles each kernel once. pytest 9.2 with pytest-xdist 3.8 lost the group without a
    word (each worker then compiled every kernel: a minute of the suite); this says so if it happens again."""
    if request.config.getvalue("dist") == "no" and not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by xdist's loadgroup")
    assert request.node.nodeid.endswith("@compiled-kernels"), request.node.nodeid

"""Hypothesis strategies for constraint states, shared by the tests.

- :func:`constraints`: anything a constraint state may hold on a small game,
  mostly contradictory: random domains, bounds (some negative or crossed) and
  hand sizes (some not summing to the cards in play).
- :func:`feasible_constraints`: states that keep at least one deal, built from a
  random deal by adding only constraints that deal satisfies.
- :data:`RULE_OPTIONS`: every rule option with its values; :data:`SOLVER_OPTIONS`: the option sets the
  exact solvers play.

Both keep the number of candidate deals (see
:func:`quaternity_cp.quartets.engines.brute.candidate_deals`) under ``budget`` by
narrowing domains, so the brute-force engine stays quick.
"""

from __future__ import annotations

from hypothesis import strategies as st

from quaternity_cp.quartets.constraints import Constraints, bits
from quaternity_cp.quartets.engines.brute import candidate_deals
from quaternity_cp.quartets.rules import AFTER_NOS, EMPTY_HANDS, HANDOVERS, INVALIDS, TIES

MAX_CARDS = 12
BUDGET = 4000

#: Every rule option with every value it takes (the rule property tests draw from these).
RULE_OPTIONS = {
    "initial_quartets": (False, True),
    "forced_no_question": (False, True),
    "auto_claim": (False, True),
    "declare": (False, True),
    "silence": (False, True),
    "handover": HANDOVERS,
    "invalid": INVALIDS,
    "tie": TIES,
    "empty_hand": EMPTY_HANDS,
    "after_no": AFTER_NOS,
    "dealt": (False, True),
}


#: Option sets the exact solvers play (no dealt cards, no empty-handed askers, no random ties), drawn over every
#: other option's values: the packed kernel's and the lazy packed solve's property tests draw from it.
SOLVER_OPTIONS = st.fixed_dictionaries({
    "forced_no_question": st.booleans(),
    "auto_claim": st.booleans(),
    "declare": st.booleans(),
    "silence": st.booleans(),
    "handover": st.sampled_from(["fewest", "seat", "clockwise", "fewest-cards", "most-cards"]),
    "tie": st.sampled_from(["all-lose", "shared", "first"]),
    "after_no": st.sampled_from(["asked", "next"]),
})


@st.composite
def shapes(draw, players=(2, 4), sets=(1, 4), set_size=(1, 4), max_cards=MAX_CARDS):
    """(players, set_size, in_play): a game with at most ``max_cards`` cards in play, some sets claimed."""
    # sampled_from draws evenly, where integers() favours the smallest games
    P = draw(st.sampled_from(range(players[0], players[1] + 1)))
    N = draw(st.sampled_from(range(sets[0], sets[1] + 1)))
    S = draw(st.sampled_from(range(set_size[0], set_size[1] + 1)))
    in_play = [draw(st.sampled_from((True, True, True, True, False))) for _ in range(N)]
    if not any(in_play) and draw(st.integers(0, 3)):
        in_play[-1] = True  # a game over is worth a few examples, not many
    for s in range(N):  # claim from the front until few enough cards are in play
        if sum(in_play) * S <= max_cards:
            break
        in_play[s] = False
    return P, S, tuple(in_play)


@st.composite
def constraints(draw, budget=BUDGET, **shape):
    """Any constraint state on a small game, feasible or not."""
    P, S, in_play = draw(shapes(**shape))
    N = len(in_play)
    full = (1 << P) - 1
    domains = [draw(st.integers(1, full)) for _ in range(N * S)]
    if draw(st.integers(0, 9)) == 0:
        domains[draw(st.integers(0, N * S - 1))] = 0
    m = S * sum(in_play)
    kind = draw(st.sampled_from(("sum", "sum", "sum", "any", "negative")))
    if kind == "sum":
        cuts = sorted(draw(st.integers(0, m)) for _ in range(P - 1))
        hands = [b - a for a, b in zip([0] + cuts, cuts + [m])]
    else:
        hands = [draw(st.integers(0, m)) for _ in range(P)]
        if kind == "negative":
            hands[draw(st.integers(0, P - 1))] = -1
    lo = [[0] * N for _ in range(P)]
    hi = [[S] * N for _ in range(P)]
    for p in range(P):
        for s in range(N):
            if draw(st.integers(0, 3)) == 0:
                lo[p][s] = draw(st.integers(0, S))
            if draw(st.integers(0, 2)) == 0:
                hi[p][s] = draw(st.integers(0, S + 1))
    if draw(st.integers(0, 9)) == 0:
        p, s = draw(st.integers(0, P - 1)), draw(st.integers(0, N - 1))
        (lo if draw(st.booleans()) else hi)[p][s] = -1
    c = _constraints(P, S, in_play, hands, domains, lo, hi)
    return _narrow(draw, c, [-1] * (N * S), budget)


@st.composite
def feasible_constraints(draw, budget=BUDGET, **shape):
    """A constraint state that a random deal satisfies (so at least one deal exists)."""
    P, S, in_play = draw(shapes(**shape))
    N = len(in_play)
    full = (1 << P) - 1
    deal = [draw(st.integers(0, P - 1)) for _ in range(N * S)]
    count = [[0] * N for _ in range(P)]
    for card, p in enumerate(deal):
        if in_play[card // S]:
            count[p][card // S] += 1
    hands = [sum(row) for row in count]
    loose = draw(st.booleans())  # loose: few constraints, many deals
    domains = []
    for card, p in enumerate(deal):
        if not in_play[card // S]:
            domains.append(draw(st.integers(0, full)))  # claimed: ignored by engines
        elif loose or draw(st.booleans()):
            domains.append(full)
        else:
            domains.append(1 << p | draw(st.integers(0, full)))
    lo = [[0] * N for _ in range(P)]
    hi = [[S] * N for _ in range(P)]
    for p in range(P):
        for s in range(N):
            n = count[p][s]
            if not in_play[s]:
                lo[p][s], hi[p][s] = draw(st.integers(-1, S + 1)), draw(st.integers(-1, S + 1))
                continue
            if draw(st.integers(0, 3 if loose else 1)) == 0:
                lo[p][s] = draw(st.integers(0, n))
            if draw(st.integers(0, 3 if loose else 1)) == 0:
                hi[p][s] = draw(st.integers(n, S))
    c = _constraints(P, S, in_play, hands, domains, lo, hi)
    return _narrow(draw, c, [p if in_play[card // S] else -1 for card, p in enumerate(deal)], budget)


def _constraints(P, S, in_play, hands, domains, lo, hi) -> Constraints:
    return Constraints(
        players=P,
        set_size=S,
        in_play=tuple(in_play),
        hands=tuple(hands),
        domains=tuple(domains),
        lo=tuple(map(tuple, lo)),
        hi=tuple(map(tuple, hi)),
    )


def _narrow(draw, c: Constraints, keep: list[int], budget: int) -> Constraints:
    """Take seats out of domains (never ``keep[card]``) until at most ``budget`` deals are candidates."""
    while candidate_deals(c) > budget:
        wide = [card for card in c.cards_in_play if c.domains[card].bit_count() > 1]
        card = draw(st.sampled_from(wide))
        seats = [p for p in bits(c.domains[card]) if p != keep[card]]
        c = c.restrict(card, ~(1 << draw(st.sampled_from(seats))))
    return c

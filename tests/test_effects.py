"""The rules of quaternity_cp.effects, as each fast layout applies them, against Position move by move.

The classic game state is a plain simulation with its own data layout; it takes
the hand-over and the public view from :mod:`quaternity_cp.effects`, as
:class:`~quaternity_cp.position.Position` does. Here both follow the same games.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quaternity_cp import effects
from quaternity_cp.constraints import Constraints
from quaternity_cp.effects import Holds
from quaternity_cp.game import Declaration, Game
from quaternity_cp.rules import Rules
from quaternity_cp.position import Position
from quaternity_cp.quartets.game import ClassicState, classic_public_constraints, classic_rules

from reference import Reference, describe

HANDOVERS = ("seat", "clockwise", "fewest", "fewest-cards", "most-cards")
COMBOS = list(itertools.product(HANDOVERS, ("asked", "next"), ("skip", "ask"), ("shared", "all-lose", "first", "random")))


@pytest.mark.parametrize("handover,after_no,empty_hand,tie", COMBOS)
def test_classic_state_follows_the_position_move_by_move(handover, after_no, empty_hand, tie):
    overrides = {"handover": handover, "after_no": after_no, "empty_hand": empty_hand, "tie": tie}
    rules, options = classic_rules(**overrides)
    for seed, size in enumerate([(3, 3, 2), (4, 4, 2), (3, 4, 3)]):
        game = Game(*size)
        state = ClassicState(game, seed, rules=rules, options=options, overrides=overrides)
        pos = Position(game, rules, first=state.first)
        rng = random.Random(seed)
        done = 0
        while True:
            for move in state.moves[done:]:
                pos.push(move)
            done = len(state.moves)
            assert pos.scores == tuple(state.points)
            assert [pos.claimed.get(s, -1) for s in range(game.sets)] == state.claimed
            assert list(pos.hands) == state.hands
            assert pos.over == state.is_terminal()
            if state.is_terminal():
                break
            assert state.current_player() in pos.turn, (state.moves, pos.turn)
            if len(pos.turn) > 1:
                assert state.chance[-1].kind == "handover" and state.chance[-1].outcome == state.current_player()
            state.apply_action(rng.choice(state.legal_actions()))
        if state.unfinished:
            continue
        pos.tie_break = state.tie_break
        assert pos.winners() == state.winners()


def test_a_free_hand_over_choice_is_a_recorded_chance_outcome_that_undo_keeps():
    # fewest: ties among seats with equal scores and hands are drawn, and the draw is recorded
    seen = 0
    for seed in range(60):
        state = ClassicState(Game(4, 4, 2), seed, overrides={"handover": "fewest", "empty_hand": "skip"})
        rng = random.Random(seed)
        while not state.is_terminal():
            before = len(state.chance)
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            if len(state.chance) > before and state.chance[-1].kind == "handover":
                seen += 1
                drawn = state.chance[-1]
                state.undo()
                assert len(state.chance) == before
                state.apply_action(action)
                assert state.chance[-1] == drawn
    assert seen


# -- quaternity_cp.effects against the brute-force reference (tests/reference.py) ----------------------
def deals_of(c: Constraints) -> set[tuple[int, ...]]:
    """Every deal (owner of each card in play, in card order) that the constraint state allows, by enumeration."""
    cards = c.cards_in_play
    S = c.set_size
    out: set[tuple[int, ...]] = set()

    def place(i: int, left: list[int], row: list[int]) -> None:
        if i == len(cards):
            if any(left):
                return
            for p in range(c.players):
                for s in c.sets_in_play:
                    n = sum(1 for k, card in enumerate(cards) if card // S == s and row[k] == p)
                    if not c.lo[p][s] <= n <= c.hi[p][s]:
                        return
            out.add(tuple(row))
            return
        for p in range(c.players):
            if left[p] and c.domains[cards[i]] >> p & 1:
                left[p] -= 1
                row.append(p)
                place(i + 1, left, row)
                row.pop()
                left[p] += 1

    place(0, list(c.hands), [])
    return out


def reference_deals(ref: Reference, state) -> set[tuple[int, ...]]:
    """The reference's consistent deals, as owners of the cards in play."""
    cards = ref.cards_in_play(state)
    return {tuple(int(row[card]) for card in cards) for row in state.deals}


GAME_SIZES = [(2, 2, 2), (2, 3, 2), (3, 3, 2), (2, 2, 3), (3, 2, 3), (4, 2, 2)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), size=st.sampled_from(GAME_SIZES), handover=st.sampled_from(HANDOVERS),
       after_no=st.sampled_from(("asked", "next")), empty_hand=st.sampled_from(("skip", "ask")),
       silence=st.booleans(), dealt=st.booleans(), auto_claim=st.booleans(), initial_quartets=st.booleans())
def test_effects_follow_the_brute_force_reference(data, size, handover, after_no, empty_hand, silence, dealt,
                                                  auto_claim, initial_quartets):
    """What a question, an answer and a claim do to the consistent deals (:mod:`quaternity_cp.effects` on
    constraint states, enumerated) and who moves next (:func:`effects.next_order`, :func:`effects.hand_over`)
    are what the reference finds by applying the rules literally to every deal."""
    game = Game(*size)
    rules = Rules(handover=handover, after_no=after_no, empty_hand=empty_hand, silence=silence, dealt=dealt,
                  auto_claim=auto_claim and not dealt, initial_quartets=initial_quartets)
    ref = Reference(game, rules)
    try:
        state = ref.start()
    except ValueError:  # no initial deal under these rules (no whole set in a hand cannot be dealt)
        return
    c = Constraints.initial(game.players, game.sets, game.set_size, initial_quartets)
    assert deals_of(c) == reference_deals(ref, state)
    asked: Constraints | None = None  # after the open question
    played: list = []
    for index in range(1, 13):
        moves = ref.legal_moves(state)
        if not moves:
            break
        move = data.draw(st.sampled_from(moves), label=f"move {index}")
        after, kind = ref.play(state, move, index)
        played.append(move)
        assert kind is None, (move, kind)
        if isinstance(move, Declaration):  # a put-down or a declaration: the seat holds the whole set, claims it
            whole = [Holds(card, move.player) for card in range(move.set * game.set_size,
                                                                (move.set + 1) * game.set_size)]
            c = effects.claim(effects.apply_facts(c, whole), move.player, move.set)
        elif move.answer is None:  # a question: what asking tells (with dealt cards, after the put-downs due)
            asked = effects.question(c, move.asker, move.card, silence=silence)
            if dealt:
                asked = effects.settle(asked)
            told = effects.asked_facts(c, move.asker, move.card, silence=silence, dealt=dealt)
            assert deals_of(effects.apply_facts(c, told)) == deals_of(asked), describe(game, rules, played)
            c = asked
        else:  # the answer to the open question
            assert asked is not None and state.pending is not None
            x, y, card, yes = move.asker, move.target, move.card, move.answer
            c = effects.answer(c, x, y, card, yes)
            for s, p in enumerate(after.claimed):  # the reference's automatic claims, by the effects' claim
                if p >= 0 and state.claimed[s] < 0:
                    c = effects.claim(c, p, s)
            if not after.over:
                order = effects.next_order(yes, x, y, game.players, after_no)
                turn = effects.hand_over(order, hands=c.hands, scores=after.scores, empty_hand=empty_hand,
                                         handover=handover)
                assert sorted(turn) == sorted(after.turn), describe(game, rules, played)
        assert c.hands == ref.hands(after), describe(game, rules, played)
        assert deals_of(c) == reference_deals(ref, after), describe(game, rules, played)
        state = after


def test_a_wrong_hand_over_after_no_fails_the_reference_check(monkeypatch):
    """The check above sees a wrong turn: after a no, the turn to the asker's left neighbour instead of
    the asked player (a hand-over bug injected)."""
    right = effects.next_order

    def wrong(yes, asker, target, players, after_no):
        return right(yes, asker, target, players, "next" if after_no == "asked" else "asked")

    monkeypatch.setattr(effects, "next_order", wrong)
    with pytest.raises(Exception) as failure:
        test_effects_follow_the_brute_force_reference()
    found = failure.value.exceptions if isinstance(failure.value, BaseExceptionGroup) else (failure.value,)
    assert all(isinstance(err, AssertionError) for err in found), failure.value  # the check failed, nothing else


def test_the_public_classic_view_is_the_record_replayed_with_the_same_rules():
    from quaternity_cp.knowledge import public_constraints

    game = Game(3, 3, 3)
    moves = ("0>1:A1+", "0>2:A2+", "0!A", "0>1:B1-", "1>2:C2+")
    pos = Position(game, "classic", first=0)
    for k, text in enumerate(moves, 1):
        pos.push_str(text)
        mine = classic_public_constraints(game, tuple(pos.moves))
        assert mine == public_constraints(pos), moves[:k]
    assert mine.in_play == (False, True, True) and mine.hands == (2, 3, 1)

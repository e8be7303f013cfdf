"""The rules of quaternity_cp.effects, as each fast layout applies them, against Position move by move.

The classic game state is a plain simulation with its own data layout; it takes
the hand-over and the public view from :mod:`quaternity_cp.effects`, as
:class:`~quaternity_cp.position.Position` does. Here both follow the same games.
"""

from __future__ import annotations

import itertools
import random

import pytest

from quaternity_cp import effects
from quaternity_cp.constraints import Constraints
from quaternity_cp.game import Game
from quaternity_cp.position import Position
from quaternity_cp.quartets.game import ClassicState, classic_public_constraints, classic_rules

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


def test_question_facts_and_the_fast_functions_agree():
    c = Constraints.initial(3, 3, 3)
    for silence in (False, True):
        for asker, card in [(0, 0), (1, 4), (2, 8)]:
            facts = effects.question_facts(c, asker, card, silence=silence)
            assert effects.apply_facts(c, facts) == effects.question(c, asker, card, silence=silence)
    empty = Constraints(3, 2, (True, True), (0, 2, 2), (6, 6, 6, 6), ((0, 0), (0, 0), (0, 0)),
                        ((0, 0), (2, 2), (2, 2)))
    assert effects.question_facts(empty, 0, 1) == [] and effects.question(empty, 0, 1) is empty
    assert effects.apply_facts(c, effects.settle_facts(c)) == effects.settle(c)


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

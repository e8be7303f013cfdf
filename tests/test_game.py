"""Setup, rules and move notation: values, round trips and the errors bad input gets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from quaternity_cp import (
    Declaration, Game, Illegal, IllegalMoveError, InvalidMoveError, Position, Question, Rules, RulesError,
    SetupError,
)
from quaternity_cp.quartets.game import MAX_CARDS


@given(
    players=st.integers(2, 6), sets=st.integers(1, 12), size=st.integers(1, 12), data=st.data(),
)
@settings(max_examples=200, deadline=None)
def test_move_notation_round_trips(players, sets, size, data):
    if (sets * size) % players:
        with pytest.raises(SetupError):
            Game(players, sets, size)
        return
    named = data.draw(st.booleans())
    game = Game(
        players, sets, size,
        player_names=[f"P{chr(97 + p)}" for p in range(players)] if named else None,
        set_names=[f"Set{chr(65 + s)}" for s in range(sets)] if named else None,
    )
    asker = data.draw(st.integers(0, players - 1))
    target = data.draw(st.integers(0, players - 1))
    card = data.draw(st.integers(0, game.cards - 1))
    answer = data.draw(st.sampled_from([True, False, None]))
    for move in (Question(asker, target, card, answer), Declaration(asker, card // size)):
        text = game.move_str(move)
        assert game.parse_move(text) == move
        assert game.move_str(game.parse_move(text)) == text
    assert game.card(game.card_name(card)) == card


def test_names_and_seats_both_work():
    game = Game(3, 3, 2, player_names=["Peter", "Quinty", "Robin"], set_names=["Red", "Green", "Blue"])
    assert game.parse_move("Peter>Robin:Red1+") == game.parse_move("0>2:Red1+") == Question(0, 2, 1, True)
    assert game.parse_move("Quinty!Blue") == Declaration(1, 2)


@pytest.mark.parametrize("text", ["0>1:A9+", "0>5:A0+", "0>1:A0", "0>1:Q0-", "0-1:A0+", "7!A", "0!Q", "", "0>1:A01+"])
def test_unreadable_moves_are_refused(text):
    with pytest.raises(InvalidMoveError):
        Game(2, 2, 2).parse_move(text)


@pytest.mark.parametrize("args, kwargs, needle", [
    ((1, 2, 2), {}, "at least 2 players"),
    ((2, 0, 2), {}, "at least 1 set"),
    ((2, 2, 0), {}, "at least 1 card"),
    ((3, 2, 2), {}, "evenly"),
    ((2, 27, 2), {}, "set names"),
    ((2, 1000, 100), {}, "limit"),
    ((2, 2, 2), {"player_names": ["Ann", "Ann"]}, "duplicate"),
    ((2, 2, 2), {"player_names": ["Ann", ""]}, "non-empty"),
    ((2, 2, 2), {"set_names": ["Red1", "Blue"]}, "digit"),
    ((2, 2, 2), {"player_names": ["Ann", "3"]}, "number"),
    ((2, 2, 2), {"player_names": ["Ann"]}, "names"),
    ((True, 2, 2), {}, "whole number"),
])
def test_impossible_setups_are_refused(args, kwargs, needle):
    with pytest.raises(SetupError, match=needle):
        Game(*args, **kwargs)


def test_size_limit_is_documented_and_enforced():
    with pytest.raises(SetupError):
        Game(2, 200, 100)
    names = [f"S{chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(250)]
    assert Game(20, 250, 4, set_names=names).cards == 1000 <= MAX_CARDS


def test_rules_presets_and_overrides():
    assert Rules.preset("quaternity") == Rules()
    assert Rules.preset("quaternity", handover="seat") == Rules.preset("quaternity-seat")
    blind = Rules.preset("blind")
    assert (blind.auto_claim, blind.declare, blind.invalid, blind.tie) == (False, True, "lose", "first")
    pyth = Rules.from_spec({"preset": "pythagoras", "tie": "all-lose"})
    assert pyth.silence and not pyth.initial_quartets and pyth.tie == "all-lose" and pyth.name == "custom"
    for bad in ("chess", {"preset": "quaternity", "colour": 1}, {"handover": "dice"}, {"declare": "yes"}, 3):
        with pytest.raises(RulesError):
            Rules.from_spec(bad)
    with pytest.raises(Exception):
        Rules().declare = True  # frozen


def test_illegal_moves_name_the_rule_and_leave_the_position_unchanged():
    pos = Position(Game(3, 3, 2))
    before = pos.state
    cases = [
        ("1>0:A0+", Illegal.NOT_ON_TURN, "turn"),
        ("0>0:A0+", Illegal.SELF_QUESTION, "question"),
        ("0!A", Illegal.NO_DECLARATIONS, "declaration"),
    ]
    for text, reason, kind in cases:
        with pytest.raises(IllegalMoveError) as info:
            pos.push_str(text)
        assert info.value.reason is reason and info.value.kind == kind
        assert pos.state == before
    pos.push_str("0>2:A0+")  # A claimed by seat 0
    with pytest.raises(IllegalMoveError) as info:
        pos.push_str("0>1:A1+")
    assert info.value.reason is Illegal.SET_CLAIMED
    two = Position(Game(2, 2, 2))
    with pytest.raises(IllegalMoveError) as info:
        two.push_str("0>1:A0-")
    assert info.value.reason is Illegal.IMPOSSIBLE_NO and info.value.kind == "answer"


def test_push_pop_and_legal_moves():
    pos = Position(Game(3, 3, 2))
    start = pos.state
    moves = list(pos.legal_moves())
    assert moves and all(isinstance(m, Question) and m.answer is None and m.asker == 0 for m in moves)
    pos.push(moves[0])
    assert pos.pending == moves[0]
    answers = list(pos.legal_moves())
    assert {m.answer for m in answers} <= {True, False} and answers
    pos.push(answers[0])
    pos.pop()
    pos.pop()
    assert pos.state == start

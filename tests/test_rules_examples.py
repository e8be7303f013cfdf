"""The worked examples of docs/rules.md, one test each, on Position and on the reference.

Preset ``quaternity`` unless the test says otherwise. Every test runs on every
registered engine (except ``brute``, which only the slow runs use).
"""

from __future__ import annotations

import pytest
from reference import reference_replay, reference_start

from quaternity_cp import Game, Position, Rules
from quaternity_cp.quartets.engines import ENGINES

ENGINE_NAMES = sorted(e for e in ENGINES if e != "brute")


@pytest.fixture(params=ENGINE_NAMES)
def engine(request):
    return request.param


def play(game: Game, record: str, engine: str, rules: Rules | None = None) -> Position:
    pos = Position(game, rules or Rules(), engine=engine)
    for token in record.split():
        pos.push_str(token)
    return pos


def replay(game: Game, record: str, rules: Rules | None = None):
    return reference_replay(game, rules or Rules(), record.split())


def forced_owner(pos: Position, card: str) -> int | None:
    return pos.analysis().forced_owner(pos.game.card(card))


# -- P2 N2 S2 ----------------------------------------------------------------------------


def test_two_players_only_yes_is_valid(engine):
    """P2 N2 S2 ``0>1:A0?``: with two players a no is never consistent."""
    game = Game(2, 2, 2)
    pos = play(game, "0>1:A0?", engine)
    assert pos.answers() == {"yes": True, "no": False}
    err = pos.check(game.parse_move("0>1:A0-"))
    assert err is not None and err.kind == "answer"
    assert replay(game, "0>1:A0?")[-1].answers == {"yes": True, "no": False}
    assert replay(game, "0>1:A0-")[-1].kind == "answer"


def test_two_players_yes_forces_and_claims_the_set(engine):
    """P2 N2 S2 ``0>1:A0+``: set A is forced to seat 0 and claimed."""
    game = Game(2, 2, 2)
    pos = play(game, "0>1:A0+", engine)
    assert pos.claimed == {0: 0}
    assert pos.scores == (1, 0)
    assert not pos.over
    step = replay(game, "0>1:A0+")[-1]
    assert step.claimed == {0: 0} and step.scores == (1, 0)


# -- P3 N2 S3 ----------------------------------------------------------------------------


def test_set_forced_with_two_received_cards_by_own_card(engine):
    """P3 N2 S3 ``0>1:A0+ 0>2:A2+``: seat 0's own card must be A1; A claimed after the second move."""
    game = Game(3, 2, 3)
    pos = play(game, "0>1:A0+", engine)
    assert pos.claimed == {}
    assert forced_owner(pos, "A1") is None
    pos.push_str("0>2:A2+")
    assert pos.claimed == {0: 0}
    assert pos.scores == (1, 0, 0)
    steps = replay(game, "0>1:A0+ 0>2:A2+")
    assert steps[0].claimed == {}
    assert steps[1].claimed == {0: 0}


def test_given_back_card_keeps_the_givers_lower_bound(engine):
    """P3 N2 S3 ``0>2:B0+ 0>2:A2- 2>0:B0+ 2>0:B1?``: only yes; seat 0's other B card can only be B1."""
    game = Game(3, 2, 3)
    record = "0>2:B0+ 0>2:A2- 2>0:B0+ 2>0:B1?"
    pos = play(game, record, engine)
    assert pos.answers() == {"yes": True, "no": False}
    err = pos.check(game.parse_move("2>0:B1-"))
    assert err is not None and err.kind == "answer"
    step = replay(game, record)[-1]
    assert step.answers == {"yes": True, "no": False}


# -- P3 N3 S3 ----------------------------------------------------------------------------


def test_single_deal_forces_set_by_counting_after_no(engine):
    """P3 N3 S3 ``0>2:A2- 2>0:B1+ 2>0:C2+ 2>0:B2- 0>2:A0-``: one deal remains; C forced to seat 2 and claimed."""
    game = Game(3, 3, 3)
    record = "0>2:A2- 2>0:B1+ 2>0:C2+ 2>0:B2- 0>2:A0-"
    tokens = record.split()
    pos = play(game, " ".join(tokens[:-1]), engine)
    assert pos.claimed == {}
    pos.push_str(tokens[-1])
    assert pos.claimed == {2: 2}
    analysis = pos.analysis()
    for card in pos.constraints.cards_in_play:
        assert analysis.forced_owner(card) is not None, game.card_name(card)
    steps = replay(game, record)
    assert steps[-2].claimed == {}
    assert steps[-1].claimed == {2: 2}
    assert steps[-1].deal_count == 1


# -- P3 N3 S2 ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "handover, turn",
    [("fewest", (2,)), ("seat", (0,)), ("clockwise", (2,)), ("fewest-cards", (2,)), ("most-cards", (2,))],
)
def test_no_forces_third_party_set_and_fallback_decides(engine, handover, turn):
    """P3 N3 S2 ``0>2:A0+ 0>1:B0-``: A claimed by 0; the no forces C to seat 1, left empty; fallback moves."""
    game = Game(3, 3, 2)
    rules = Rules.preset("quaternity", handover=handover)
    pos = play(game, "0>2:A0+", engine, rules)
    assert pos.claimed == {0: 0}
    pos.push_str("0>1:B0-")
    assert pos.claimed == {0: 0, 2: 1}
    assert pos.hands[1] == 0
    assert pos.turn == turn
    steps = replay(game, "0>2:A0+ 0>1:B0-", rules)
    assert steps[0].claimed == {0: 0}
    assert steps[1].claimed == {0: 0, 2: 1}
    assert steps[1].hands[1] == 0
    assert steps[1].turn == turn


def test_one_move_claims_two_sets_for_two_players(engine):
    """P3 N3 S2 ``0>2:C0+ 0>2:B0+``: C claimed first; then B (seat 0) and A (seat 1) at once; over, 2-1-0."""
    game = Game(3, 3, 2)
    pos = play(game, "0>2:C0+", engine)
    assert pos.claimed == {2: 0}
    claims = pos.push_str("0>2:B0+")
    assert sorted(claims) == [(0, 1), (1, 0)]
    assert pos.claimed == {0: 1, 1: 0, 2: 0}
    assert pos.over
    assert pos.scores == (2, 1, 0)
    assert pos.winners() == [0]
    steps = replay(game, "0>2:C0+ 0>2:B0+")
    assert steps[0].claimed == {2: 0}
    assert steps[1].claimed == {0: 1, 1: 0, 2: 0}
    assert steps[1].over and steps[1].scores == (2, 1, 0) and steps[1].winners == (0,)


# -- the start ----------------------------------------------------------------------------


def test_seat_zero_moves_first(engine):
    for preset in ("quaternity", "quaternity-seat", "blind", "pythagoras"):
        rules = Rules.preset(preset)
        pos = Position(Game(3, 2, 3), rules, engine=engine)
        assert pos.turn == (0,)
        assert reference_start(Game(3, 2, 3), rules).turn == (0,)

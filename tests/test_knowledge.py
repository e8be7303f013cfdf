"""What one seat knows (:func:`quaternity_cp.quartets.knowledge.private_constraints`) against the deals listed one by one.

The reference (tests/reference.py) keeps every consistent deal of a record
explicitly; a seat holding a hand knows exactly the deals that give it that
hand. The view must count those deals for every hand of the right size, the
hands that contradict the record included (their view has no deal).
"""

from __future__ import annotations

import itertools

import pytest
from reference import Reference, private_deals

from quaternity_cp import Game, Position
from quaternity_cp.quartets.knowledge import count, private_constraints, public_constraints
from quaternity_cp.quartets.rules import Rules

A0, A1, A2, B0, B1, B2, C0, C1, C2 = range(9)


def replayed(game: Game, preset: str, moves: list[str], first: int | None = None):
    """The record as a Position and as the reference's explicit deals."""
    pos = Position(game, preset, first=first) if first is not None else Position(game, preset)
    ref = Reference(game, Rules.preset(preset), first)
    st = ref.start()
    for i, text in enumerate(moves, 1):
        pos.push_str(text)
        st, kind = ref.play(st, game.parse_move(text), i)
        assert kind is None, (text, kind)
    return pos, ref, st


def test_a_hand_without_the_set_the_seat_asked_for_has_no_deal():
    """Seat 0 asked for A0, so it holds a card of A: a hand with no card of A contradicts the record."""
    game = Game(3, 3, 3)
    pos, ref, st = replayed(game, "classic", ["0>1:A0-"], first=0)
    public = public_constraints(pos)
    assert public.lo[0][0] == 1
    for hand in ([B0, B1, C0], [B0, C0, C1], [B0, B1, B2]):
        assert len(private_deals(ref, st, 0, hand)) == 0
        assert count(private_constraints(public, 0, hand)) == 0, hand
    assert count(private_constraints(public, 0, [A1, B0, C0])) == len(private_deals(ref, st, 0, [A1, B0, C0])) > 0


RECORDS = [  # (players, sets, set_size, preset, first, moves)
    (3, 3, 3, "classic", 0, ["0>2:B0-", "2>0:C1+", "2>0:A0-", "0>1:C1-"]),
    (3, 3, 3, "quaternity", None, ["0>2:A0+", "0>1:A2-", "1>0:B1?"]),
    (2, 3, 4, "classic", 1, ["1>0:A0+", "1>0:B2+", "1>0:C0+"]),
    (4, 2, 4, "classic", 2, ["2>3:A1+", "2>0:B3-", "0>1:A2-"]),
    (3, 3, 2, "pythagoras", None, ["0>1:A0-", "1>2:B1-"]),
]


@pytest.mark.parametrize("players, sets, set_size, preset, first, moves", RECORDS)
def test_every_hand_of_every_seat_counts_the_deals_the_brute_force_lists(players, sets, set_size, preset, first,
                                                                       moves):
    game = Game(players, sets, set_size)
    pos, ref, st = replayed(game, preset, moves, first)
    public = public_constraints(pos)
    in_play = [c for c in range(game.cards) if public.in_play[c // set_size]]
    impossible = 0
    for seat in range(players):
        for hand in itertools.combinations(in_play, pos.hands[seat]):
            want = len(private_deals(ref, st, seat, hand))
            view = private_constraints(public, seat, hand)
            assert count(view) == want, (seat, hand)
            impossible += want == 0
            if want:  # the seat's count of every set in play is exact: the cards of it in the hand
                held = [sum(1 for c in hand if c // set_size == s) for s in range(sets)]
                assert [(view.lo[seat][s], view.hi[seat][s]) for s in public.sets_in_play] == \
                    [(held[s], held[s]) for s in public.sets_in_play], (seat, hand)
    assert impossible > 0  # hands that contradict the record were among those checked

"""Table sizes and an engine the fast property runs leave to ``--runslow``, one small case each in
the default run: a 5-player game, a game with sets of 6 cards, and the brute-force engine
driving a Position. Each is played move by move against the reference (``reference.py``),
comparing legality, turn, claims, scores, winners, every card's owners, every possible
quartet and the legal moves (``test_position_properties.play_and_compare``).
"""

from __future__ import annotations

import pytest
from test_position_properties import play_and_compare

from quaternity_cp import Game, Rules


@pytest.mark.parametrize("preset, seed", [("quaternity", 2), ("blind", 5)])
def test_five_players(preset, seed):
    play_and_compare(seed, Game(5, 5, 2), Rules.preset(preset), "flow", max_moves=14, compare_moves=0.3)


@pytest.mark.parametrize("preset, seed", [("quaternity", 6), ("pythagoras", 7)])
def test_sets_of_six(preset, seed):
    play_and_compare(seed, Game(3, 2, 6), Rules.preset(preset), "flow", max_moves=14, compare_moves=0.3)


@pytest.mark.parametrize("game, preset, seed", [((3, 3, 2), "quaternity", 9), ((2, 3, 2), "blind", 11),
                                                ((3, 2, 3), "pythagoras", 12)])
def test_brute_engine_through_position(game, preset, seed):
    play_and_compare(seed, Game(*game), Rules.preset(preset), "brute", max_moves=16, compare_moves=0.5)

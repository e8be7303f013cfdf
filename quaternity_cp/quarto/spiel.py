"""Quarto's OpenSpiel game ``python_quarto`` (option ``squares``), registered by ``import quaternity_cp.spiel``.

Quarto through the project's state: perfect information, no chance, a draw sharing the win; actions and
tensors of :class:`~quaternity_cp.quarto.codec.QuartoCodec`. The whole game is
:class:`quaternity_cp.spiel.PerfectInformationGame`; this module is Quarto's ``spiel`` part.
"""

from __future__ import annotations

import pyspiel

from ..spiel import PerfectInformationGame, PerfectInformationState, register_game
from . import SPEC
from .codec import QuartoCodec

#: Quarto's actions and tensors (one for every game: they do not depend on the option).
QUARTO_CODEC = QuartoCodec()

GAME_TYPE = pyspiel.GameType(
    short_name="python_quarto",
    long_name="Python Quarto (quaternity-cp)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=SPEC.default_options(),
)



class QuartoSpielState(PerfectInformationState):
    """A state of ``python_quarto``."""


class QuartoGame(PerfectInformationGame):
    """The game ``python_quarto``: Quarto through the project's state."""

    game_name = SPEC.name
    game_type = GAME_TYPE
    state_class = QuartoSpielState


register_game(GAME_TYPE, QuartoGame)

__all__ = ["GAME_TYPE", "QUARTO_CODEC", "QuartoGame", "QuartoSpielState"]

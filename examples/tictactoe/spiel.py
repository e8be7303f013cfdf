"""Tic-tac-toe's OpenSpiel game ``python_tictactoe`` (the ``spiel`` part): perfect information, no chance, so
the shared :class:`~quaternity_cp.spiel.PerfectInformationGame` does the work; only the type is the game's."""

from __future__ import annotations

import pyspiel

from quaternity_cp.spiel import PerfectInformationGame, register_game

from . import SPEC

GAME_TYPE = pyspiel.GameType(
    short_name="python_tictactoe",
    long_name="Python tic-tac-toe (quaternity-cp's example game)",
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


class TicTacToeGame(PerfectInformationGame):
    game_name = SPEC.name
    game_type = GAME_TYPE


register_game(GAME_TYPE, TicTacToeGame)

__all__ = ["TicTacToeGame"]

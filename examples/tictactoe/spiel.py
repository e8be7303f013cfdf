"""Tic-tac-toe's OpenSpiel game ``python_tictactoe`` (the ``spiel`` part): perfect information, no chance, so
the shared :class:`~quaternity_cp.spiel.PerfectInformationGame` does the work; only the type is the game's."""

from __future__ import annotations

from quaternity_cp.spiel import PerfectInformationGame, perfect_information_type, register_game

from . import SPEC

GAME_TYPE = perfect_information_type("python_tictactoe", "Python tic-tac-toe (quaternity-cp's example game)", SPEC)


class TicTacToeGame(PerfectInformationGame):
    game_name = SPEC.name
    game_type = GAME_TYPE


register_game(GAME_TYPE, TicTacToeGame)

__all__ = ["TicTacToeGame"]

"""Quarto's OpenSpiel game ``python_quarto`` (option ``squares``), registered by ``import quaternity_cp.spiel``.

Quarto through the project's state: perfect information, no chance, a draw sharing the win; actions and
tensors of :class:`~quaternity_cp.quarto.codec.QuartoCodec`. The whole game is
:class:`quaternity_cp.spiel.PerfectInformationGame`; this module is Quarto's ``spiel`` part.
"""

from __future__ import annotations

from ..spiel import PerfectInformationGame, PerfectInformationState, perfect_information_type, register_game
from . import SPEC
from .codec import QuartoCodec

#: Quarto's actions and tensors (one for every game: they do not depend on the option).
QUARTO_CODEC = QuartoCodec()

GAME_TYPE = perfect_information_type("python_quarto", "Python Quarto (quaternity-cp)", SPEC)


class QuartoSpielState(PerfectInformationState):
    """A state of ``python_quarto``."""


class QuartoGame(PerfectInformationGame):
    """The game ``python_quarto``: Quarto through the project's state."""

    game_name = SPEC.name
    game_type = GAME_TYPE
    state_class = QuartoSpielState


register_game(GAME_TYPE, QuartoGame)

__all__ = ["GAME_TYPE", "QUARTO_CODEC", "QuartoGame", "QuartoSpielState"]

"""Quantum Go Fish's OpenSpiel game ``python_gofish``, registered by ``import quaternity_cp.spiel``.

Its parameters are the registry's options of ``gofish`` (``players``, ``suits``, ``suit_size``, ``rules``
and each rule option, ``suit_names``, the table's move cap ``max_moves``), but for one: the suits' names
are separated by ``/`` (``suit_names=Narwhal/Yeti/Kraken``), since a game string splits at commas::

    import pyspiel
    import quaternity_cp.spiel
    game = pyspiel.load_game("python_gofish(players=3,suit_size=4,four=some)")

Everything said is public and nothing is dealt, so it is a game of perfect information without chance,
2 to 8 players: the whole game is :class:`quaternity_cp.spiel.PerfectInformationGame` over the project's
state (:class:`~quaternity_cp.gofish.state.GoFishState`), a question and its answer being two decisions
of two seats. Actions and tensors are those of :class:`~quaternity_cp.gofish.codec.GoFishCodec`; an
answer's string names the open question (``0>1:A+``). A game lasts at most two decisions per question
answered under the move cap (``max_game_length``); the cap, the draw rules and a game where nobody can
ask share the win (1/P each).
"""

from __future__ import annotations

from typing import Any, cast

from ..spiel import PerfectInformationGame, PerfectInformationState, perfect_information_type, register_game
from . import SPEC
from .codec import GoFishCodec
from .state import GoFishState

GAME_TYPE = perfect_information_type("python_gofish", "Python Quantum Go Fish (quaternity-cp)", SPEC)


class GoFishSpielState(PerfectInformationState):
    """A state of ``python_gofish``."""

    def _action_to_string(self, player: int, action: int) -> str:
        codec: GoFishCodec = self._play.codec
        game = cast(GoFishState, self._play.inner).game
        pending = game.pending
        if action >= codec.questions and pending is not None and player == pending.asked:
            return str(game.move_text(codec.move(player, action, pending)))
        return codec.action_text(player, action)


class GoFishGame(PerfectInformationGame):
    """The game ``python_gofish``: Quantum Go Fish through the project's state."""

    game_name = SPEC.name
    game_type = GAME_TYPE
    state_class = GoFishSpielState

    @classmethod
    def options(cls, params: Any) -> dict[str, Any]:
        """The registry's options: ``suit_names`` separated by ``/`` here (an OpenSpiel game string splits at
        commas), by commas in the registry."""
        out = dict(params)
        names = out.get("suit_names")
        if isinstance(names, str) and names:
            if "," in names:
                raise ValueError("parameter suit_names: separate the names with '/' (an OpenSpiel game string "
                                 f"splits at commas), got {names!r}")
            out["suit_names"] = names.replace("/", ",")
        return out


register_game(GAME_TYPE, GoFishGame)

__all__ = ["GAME_TYPE", "GoFishGame", "GoFishSpielState"]

"""quaternity_cp: check, analyse, explain and solve positions of Quaternity.

Quaternity is the blind (quantum) variant of Quartets: nobody's cards are fixed
at the start, every question and answer narrows down the deals that are still
possible, and a set is won when every consistent deal puts it in one hand.

>>> from quaternity_cp import Game, Position
>>> pos = Position(Game(2, 2, 2))
>>> _ = pos.push_str("0>1:A0+")
>>> pos.claimed
{0: 0}
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names as a type checker sees them; at run time each loads on first use
    from .constraints import Constraints
    from .engines import Analysis, CpSatEngine, Engine, get_engine
    from .errors import (
        Illegal,
        IllegalMoveError,
        InvalidMoveError,
        PositionError,
        QuaternityError,
        RulesError,
        SetupError,
    )
    from .game import Declaration, Game, Move, Question
    from .position import Position, State
    from .rules import PRESETS, Rules

__version__ = "0.1.0"

#: name -> the module that defines it. Nothing is imported with the package itself, so that
#: importing one game (``quaternity_cp.quarto``) loads only what that game needs.
_SOURCES = {
    "Constraints": "constraints", "Analysis": "engines", "CpSatEngine": "engines", "Engine": "engines",
    "get_engine": "engines", "Illegal": "errors", "IllegalMoveError": "errors", "InvalidMoveError": "errors",
    "PositionError": "errors", "QuaternityError": "errors", "RulesError": "errors", "SetupError": "errors",
    "Declaration": "game", "Game": "game", "Move": "game", "Question": "game", "Position": "position",
    "State": "position", "PRESETS": "rules", "Rules": "rules",
}


def __getattr__(name: str) -> Any:
    """The Quaternity core's names, loaded on first use together with the game built on them
    (:mod:`quaternity_cp.quartets`: its pictures give a Position its notebook display)."""
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{source}"), name)
    importlib.import_module(f"{__name__}.quartets")
    globals()[name] = value
    return value


__all__ = [
    "Analysis", "Constraints", "CpSatEngine", "Declaration", "Engine", "Game", "Illegal",
    "IllegalMoveError", "InvalidMoveError", "Move", "PRESETS", "Position", "PositionError",
    "Question", "QuaternityError", "Rules", "RulesError", "SetupError", "State", "get_engine",
]

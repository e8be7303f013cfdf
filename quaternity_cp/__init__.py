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

__all__ = [
    "Analysis", "Constraints", "CpSatEngine", "Declaration", "Engine", "Game", "Illegal",
    "IllegalMoveError", "InvalidMoveError", "Move", "PRESETS", "Position", "PositionError",
    "Question", "QuaternityError", "Rules", "RulesError", "SetupError", "State", "get_engine",
]

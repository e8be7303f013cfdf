"""Quantum Go Fish (issue 32): the exact core of a third game, not registered in the game registry yet.

Players ask each other for suits; nobody's cards are known at the start, and
each question and answer narrows down which tables of counts (how many cards of
each suit each player holds) are still consistent. The rules, their options and
the notation are those of GOFISH.md (see :mod:`.rules`); the exact engine is a
flow network with lower bounds (:mod:`.bounds`); the state, moves, turns, wins
and records are in :mod:`.game`; whether a seat can force a win is :mod:`.solver`.
"""

from .bounds import (
    Bounds,
    BoundsEngine,
    CountLimitError,
    CpSatEngine,
    FlowEngine,
    Tables,
    count_tables,
    holds_a_whole_suit,
)
from .game import GAME_NAME, GoFish, Illegal, IllegalMove, Move, MoveError, NotationError, Outcome, State
from .rules import PRESETS, GoFishError, GoFishRulesError, Rules, Setup
from .solver import ForceResult, GameGraph, SolverLimitError, can_force, solve_start

__all__ = [
    "GAME_NAME",
    "GoFish",
    "Move",
    "Outcome",
    "State",
    "Illegal",
    "GoFishError",
    "GoFishRulesError",
    "MoveError",
    "NotationError",
    "IllegalMove",
    "CountLimitError",
    "Rules",
    "Setup",
    "PRESETS",
    "Tables",
    "Bounds",
    "BoundsEngine",
    "FlowEngine",
    "CpSatEngine",
    "count_tables",
    "holds_a_whole_suit",
    "can_force",
    "solve_start",
    "ForceResult",
    "GameGraph",
    "SolverLimitError",
]

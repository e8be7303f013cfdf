"""Exact solving of Quaternity positions (no hidden information: every choice is a move).

>>> from quaternity_cp import Game, Position
>>> from quaternity_cp.solver import solve
>>> result = solve(Position(Game(2, 2, 2)), "quartet", 0)
>>> result.verdict, result.questions
('yes', 1)

Goals: ``quartet`` (an AND-OR search with iterative deepening on the number of
questions, see :mod:`.quartet`), ``win`` and ``value`` (retrograde analysis:
attractors on the reachable game graph, see :mod:`.graph`). Positions are keyed
canonically (see :mod:`.core`).
"""

from .api import FREE_CHOICE, GOALS, SolveError, SolveResult, solve, start_position
from .core import Choice, Context, default_engine_name

__all__ = ["FREE_CHOICE", "GOALS", "Choice", "Context", "SolveError", "SolveResult", "default_engine_name",
           "solve", "start_position"]

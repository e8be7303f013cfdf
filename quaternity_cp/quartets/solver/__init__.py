"""Exact solving of Quaternity positions (no hidden information: every choice is a move).

>>> from quaternity_cp import Game, Position
>>> from quaternity_cp.quartets.solver import solve
>>> result = solve(Position(Game(2, 2, 2)), "quartet", 0)
>>> result.verdict, result.questions
('yes', 1)

Goals: ``quartet`` (an AND-OR search with iterative deepening on the number of
questions, see :mod:`.quartet`), ``win`` and ``value`` (retrograde analysis:
attractors on the reachable game graph, see :mod:`.graph`). Positions are keyed
canonically (see :mod:`.core`). ``limits`` (:class:`~quaternity_cp.budget.Limits`)
stop a search: its result is then unproven.
"""

from ...budget import Limits
from .api import FREE_CHOICE, GOALS, SolveError, SolveResult, check_goal, solve, start_position
from .core import Context, default_engine_name
from .moves import Choice

__all__ = ["FREE_CHOICE", "GOALS", "Choice", "Context", "Limits", "SolveError", "SolveResult", "check_goal",
           "default_engine_name", "solve", "start_position"]

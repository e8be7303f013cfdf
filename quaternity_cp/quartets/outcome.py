"""Who wins a finished game: the one place for the rule of docs/rules.md, "End and result".

The winners are the players with the most claimed sets; the rule option ``tie``
says what a tie for first means:

- ``all-lose``: nobody wins;
- ``shared``: all of them win;
- ``first``: the one whose score reached that number at the earliest move wins
  (``reached[p]``: when p's score last rose; a tie within one move goes to the
  lower seat);
- ``random`` (classic quartets): one of them, drawn at random; the caller draws
  (:func:`tied` are the choices) and passes the draw as ``tie_break``; without a
  draw all of them are returned (each wins with chance 1/k).

A player who lost by an illegal move (``invalid = lose``) is out of the count.
Every user takes the rule from here: :class:`~quaternity_cp.quartets.position.Position`,
the classic game state (:mod:`quaternity_cp.quartets.state`) and the solver's
fast path (:mod:`quaternity_cp.quartets.solver.kernel`).

>>> winners((2, 1, 2), tie="all-lose", reached=(5, 3, 4))
[]
>>> winners((2, 1, 2), tie="shared", reached=(5, 3, 4))
[0, 2]
>>> winners((2, 1, 2), tie="first", reached=(5, 3, 4))
[2]
>>> winners((2, 1, 2), tie="random", reached=(5, 3, 4), tie_break=0)
[0]
>>> winners((2, 1, 2), tie="shared", reached=(5, 3, 4), out=2)
[0]
"""

from __future__ import annotations

from typing import Sequence


def tied(scores: Sequence[int], *, out: int | None = None) -> list[int]:
    """The seats with the most claimed sets (one seat: no tie), in seat order; seat ``out`` (the loser
    of an illegal move) is left out. [] when nobody is left."""
    seats = [p for p in range(len(scores)) if p != out]
    if not seats:
        return []
    best = max(scores[p] for p in seats)
    return [p for p in seats if scores[p] == best]


def winners(scores: Sequence[int], *, tie: str, reached: Sequence[int], out: int | None = None,
            tie_break: int | None = None) -> list[int]:
    """The winning seats of a finished game with these ``scores`` under the tie option ``tie``
    (see the module's text); ``reached`` is per seat the move at which its score last rose
    (``tie = first``), ``tie_break`` the seat drawn among the tied ones (``tie = random``)."""
    top = tied(scores, out=out)
    if len(top) <= 1 or tie == "shared":
        return top
    if tie == "all-lose":
        return []
    if tie == "random":
        return [tie_break] if tie_break is not None and tie_break in top else top
    return [min(top, key=lambda p: (reached[p], p))]  # first


__all__ = ["tied", "winners"]

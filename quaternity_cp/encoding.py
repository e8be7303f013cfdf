"""The numbers the research bridges share: action ids, observation and information-state tensors and strings.

:mod:`quaternity_cp.spiel` (OpenSpiel) and :mod:`quaternity_cp.aec` (PettingZoo) show the registered
games to frameworks that want each action as a whole number and each observation as a flat vector of
0s and 1s. Both take them from each game's ``codec`` part, so they agree. Nothing here imports a
framework or numpy: a tensor is given as the positions that hold a 1 (every piece is a one-hot or a
set of flags), and each bridge fills its own array. A tensor is a list of named *pieces* (name, shape),
laid end to end.

Each game's package holds its own numbering (quartets: :mod:`quaternity_cp.quartets.codec`, every
preset; Quarto: :mod:`quaternity_cp.quarto.codec`) and names it in its registration's ``codec`` part;
:func:`codec` finds it. A codec's classes stay importable from here (``from quaternity_cp.encoding
import QuartetsCodec``): a name this module lacks is looked up in the registered games' codec modules.

>>> size([("seat", (2,)), ("board", (3, 3))]), offsets([("seat", (2,)), ("board", (3, 3))])
(11, {'seat': 0, 'board': 2})
"""

from __future__ import annotations

from typing import Any


Pieces = list[tuple[str, tuple[int, ...]]]


def size(pieces: Pieces) -> int:
    """The length of the flat tensor of ``pieces``."""
    total = 0
    for _, shape in pieces:
        n = 1
        for d in shape:
            n *= d
        total += n
    return total


def offsets(pieces: Pieces) -> dict[str, int]:
    """Where each piece starts in the flat tensor."""
    out, at = {}, 0
    for name, shape in pieces:
        out[name] = at
        at += size([(name, shape)])
    return out


def codec(game: str, state: Any, max_moves: int | None = None) -> Any:
    """The codec of a state of the registered game ``game``: its ``codec`` part called with the state and
    ``max_moves`` (the decisions after which a bridge stops a game; None: the game's own bound).

    A game's ``codec`` part is a callable ``codec(state, max_moves) -> Codec`` whose result provides
    ``num_actions`` (ids are ``0..num_actions-1``), ``max_moves``, ``rows`` (the length of a game the
    information state holds), ``observation_pieces`` and ``info_pieces`` (:data:`Pieces`),
    ``legal(actions) -> {id: action}`` for a state's legal actions, ``action_text(seat, id)`` (the
    notation of an id), and ``state_ones(state, seat)`` (the 1s of the seat's observation tensor). A game
    of perfect information without chance served by :class:`quaternity_cp.spiel.PerfectInformationGame`
    also gives ``state_ones(state, seat, perfect_recall)`` and ``state_text(state, seat, perfect_recall)``.
    """
    from .registry import load_all

    return load_all()[game].part("codec")(state, max_moves)


def __getattr__(name: str) -> Any:
    """A public name of one registered game's codec module (its own module is where to import it from; see
    :func:`quaternity_cp.registry.part_name`: warned, and refused when two games define it)."""
    from .registry import part_name

    return part_name("codec", name, __name__)


__all__ = ["Pieces", "size", "offsets", "codec"]

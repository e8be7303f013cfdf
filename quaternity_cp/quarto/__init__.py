"""Quarto: a 4x4 board, 16 pieces of four two-valued traits, and you choose the piece your opponent places.

The same design as the Quaternity core: small values (:class:`Piece`,
:class:`Cell`, :class:`Move`, :class:`Board`), a :class:`Position` changed by
``push`` and restored by ``pop``, errors that name the rule broken, and strict
readers of records and positions (:mod:`quaternity_cp.quarto.formats`).
Names, numbers and notation are those of quarto-lib, so records can be exchanged.

>>> from quaternity_cp.quarto import Position
>>> pos = Position()
>>> _ = pos.push("DSSH")
>>> sorted(set(m.cell for m in pos.legal_moves()))[:2]
[<Cell.A4: 0>, <Cell.B4: 1>]
"""

from .core import (
    DIAGONALS,
    LINES,
    SQUARES,
    TRAITS,
    Board,
    Cell,
    NotationError,
    Piece,
    QuartoError,
    common_characteristics,
    lines,
)
from .position import Illegal, IllegalMove, Move, Position, State

# -- the registration: the game "quarto" (its parts are imported on first use) ----------------------
from ..registry import GameSpec, OptionSpec, register_game  # noqa: E402
from .game import new_state  # noqa: E402

SPEC = register_game(
    GameSpec(
        name="quarto",
        new_state=new_state,
        description="Quarto: 4x4 board, 16 pieces of four traits; you choose the piece your opponent places",
        options=(OptionSpec("squares", bool, False, label="squares of four also win",
                            help="the 2x2 squares win too, as the lines do"),),
        default_agent="greedy",
        hint_agent="solver",
        seat_label="player",
        parts={
            "check": f"{__name__}.game:check_record",
            "svg": f"{__name__}.svg:state_svg",
            "report": f"{__name__}.report:text_report",
            "web": f"{__name__}.web",
            "page": f"{__name__}.web:PAGE",  # the web page's parts: rules page, table script, style
            "cli": f"{__name__}.cli:quarto",  # `quaternity quarto ...`
            "terminal": f"{__name__}.terminal",  # `quaternity play --game quarto`
            "codec": f"{__name__}.codec:codec_for",  # the research bridges' numbering
            "spiel": f"{__name__}.spiel",  # the OpenSpiel game python_quarto
            "packed": f"{__name__}.packed:packed_for",  # the graph reachable from a position, for the shared solver
        },
    )
)

__all__ = [
    "SPEC",
    "TRAITS",
    "LINES",
    "DIAGONALS",
    "SQUARES",
    "lines",
    "common_characteristics",
    "QuartoError",
    "NotationError",
    "Piece",
    "Cell",
    "Board",
    "Move",
    "Illegal",
    "IllegalMove",
    "State",
    "Position",
]

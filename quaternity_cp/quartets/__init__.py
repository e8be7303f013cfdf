"""The game ``"quartets"``: every Quaternity preset (nothing dealt) and classic Quartets (a real deal).

The Quaternity core (:mod:`quaternity_cp.quartets.position`, the engines, the explainer,
the counter, the solver) is the library; this package is the game built on it:
its state for the one game interface (:mod:`.game`), its record checker
(:mod:`.check`), its commands (:mod:`.cli`), its pictures (:mod:`.svg`), its report (:mod:`.report`), its
web view (:mod:`.web`) and, here, its registration. Its agents register
themselves (:mod:`quaternity_cp.quartets.agents`).
"""

from __future__ import annotations

from .game import MAX_PLAYERS
from ..registry import GameSpec, OptionSpec, register_game
from .rules import PRESETS
from .state import ClassicState, QuartetsObservation, QuaternityState, new_state

SPEC = register_game(GameSpec(
    name="quartets",
    new_state=new_state,
    description="Quartets: every Quaternity preset (nothing dealt) and classic Quartets (a real deal)",
    min_players=2,
    max_players=MAX_PLAYERS,
    players_option="players",
    options=(
        OptionSpec("preset", str, "quaternity", label="Rules", choices=tuple(PRESETS),
                   help="the rules preset: " + ", ".join(PRESETS) + " (classic deals the cards)"),
        OptionSpec("players", int, 3, label="Players", low=2, high=8, help="the number of players"),
        OptionSpec("sets", int, 3, label="Sets", low=1, high=26, help="the number of sets (A, B, ...)"),
        OptionSpec("set_size", int, 3, label="Cards per set", low=2, high=10, help="the cards in each set"),
    ),
    hidden_information=True,  # classic deals the cards: each seat sees only its own hand
    default_agent="knowledge",
    hint_agent="knowledge",
    seat_label="seat",
    parts={
        "check": f"{__name__}.check:check_record",
        "svg": f"{__name__}.svg:state_svg",
        "grid": f"{__name__}.svg:grid_svg",  # `analyze --svg`: the grid of owners, public or one seat's
        "html": f"{__name__}.svg:position_html",  # a Position shows its grid in a notebook
        "report": f"{__name__}.report:text_report",
        "web": f"{__name__}.web",
        "page": f"{__name__}.web:PAGE",  # the web page's parts: rules page, table script, style
        "packed": f"{__name__}.packed:packed_for",  # the shared partitioned solver's keys (the solver's own)
        "cli": f"{__name__}.cli:quartets",  # `quaternity quartets ...`, and `quaternity check` of its records
        "puzzles": f"{__name__}.puzzles.part",  # the puzzles' contract (`quaternity puzzle` runs `quartets puzzle`)
        "tournament": f"{__name__}.experiments:KOOLE_OPTIONS",  # `quaternity tournament`'s table: the seed's
        "terminal": f"{__name__}.terminal",  # `quaternity play`
        "codec": f"{__name__}.codec:codec_for",  # the research bridges' numbering
        "spiel": f"{__name__}.spiel",  # the OpenSpiel game python_quartets
    },
))

__all__ = ["SPEC", "ClassicState", "QuaternityState", "QuartetsObservation", "new_state"]

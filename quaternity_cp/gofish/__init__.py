"""Quantum Go Fish (issue 32): the third registered game, ``"gofish"``.

Players ask each other for suits; nobody's cards are known at the start, and
each question and answer narrows down which tables of counts (how many cards of
each suit each player holds) are still consistent. The rules, their options and
the notation are those of GOFISH.md (see :mod:`.rules`); the exact engine is a
flow network with lower bounds (:mod:`.bounds`); the state, moves, turns, wins
and records are in :mod:`.game`; whether a seat can force a win is :mod:`.solver`.
The game through the one game interface is :mod:`.state`; its registration is
here (its parts, imported on first use: the record checker :mod:`.check`, the
commands :mod:`.cli`, the picture :mod:`.svg`, the report :mod:`.report`, the
web view :mod:`.web`, the terminal view :mod:`.terminal`); its agents are in
:mod:`.agents`.
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
from .game import GAME_NAME, GoFish, Illegal, IllegalMove, Move, MoveError, NamedQuestion, NotationError, Outcome, State
from .rules import PRESETS, GoFishError, GoFishRulesError, Rules, Setup
from .solver import ForceResult, GameGraph, SolverLimitError, can_force, solve_start

# -- the registration: the game "gofish" (its parts are imported on first use) --------------------------
from ..registry import GameSpec, OptionSpec, register_game  # noqa: E402
from .rules import CHOICES as _CHOICES  # noqa: E402
from .state import DEFAULT_MAX_MOVES, MAX_MOVES_LIMIT, GoFishState, new_state, resolve_options  # noqa: E402


def _choice(name: str, label: str, help: str) -> OptionSpec:
    return OptionSpec(name, str, _CHOICES[name][0], label=label, help=help, choices=_CHOICES[name])


SPEC = register_game(
    GameSpec(
        name=GAME_NAME,
        new_state=new_state,
        resolve_options=resolve_options,  # a rule set and the rule options given: each one played as given
        description="Quantum Go Fish: ask for a suit; nobody's cards are known, every answer narrows the tables",
        min_players=2,
        max_players=8,
        players_option="players",
        options=(
            OptionSpec("players", int, 3, label="Players", low=2, high=8, help="the number of players"),
            OptionSpec("suits", int, 0, label="Suits", low=0, high=8,
                       help="the number of suits (0: as many as players; suits x cards per suit must deal evenly)"),
            OptionSpec("suit_size", int, 4, label="Cards per suit", low=2, high=6, help="the cards of each suit"),
            OptionSpec("rules", str, "stacky", label="Rule set", choices=tuple(PRESETS),
                       help="a public rule set (stacky: the defaults); the options below change it where they "
                            "differ from the defaults"),
            OptionSpec("first", int, 0, label="First to ask", low=0, high=7, help="the seat that asks first"),
            _choice("ask_void", "Asking a player who has none",
                    "allow: a player who provably has none may be asked (and must say no); forbid: it may not"),
            _choice("after_yes", "After a yes", "next: the turn passes on; again: the asker asks again"),
            _choice("four", "Four of a suit",
                    "named: provably all of one suit wins; some: all of some suit in every table; off"),
            OptionSpec("win_after_ask", bool, False, label="Win after a question",
                       help="a question that alone settles every hand wins at once, before the answer"),
            _choice("priority", "When several win at once",
                    "mover: the asker first; four-first: fours first, the asker's determination after them"),
            OptionSpec("no_initial_four", bool, False, label="No four at the start",
                       help="nobody starts with all the cards of a suit"),
            _choice("repetition", "A repeated position", "none: play on; draw: the game is drawn"),
            OptionSpec("suit_names", str, "", label="Suit names",
                       help="the suits' names, separated by commas (empty: A, B, C, ...)"),
            OptionSpec("name_suits", bool, False, label="Name suits in play",
                       help="the suits start unnamed; the first to ask for a suit names it"),
            OptionSpec("max_moves", int, DEFAULT_MAX_MOVES, label="Move cap", low=1, high=MAX_MOVES_LIMIT,
                       help="questions answered after which a game nobody won is drawn"),
        ),
        hidden_information=False,  # every question and answer is public
        default_agent="greedy",
        hint_agent="solver",
        seat_label="seat",
        parts={
            "check": f"{__name__}.check:check_record",
            "cli": f"{__name__}.cli:gofish",  # `quaternity gofish ...`
            "svg": f"{__name__}.svg:state_svg",
            "report": f"{__name__}.report:text_report",
            "web": f"{__name__}.web",
            "page": f"{__name__}.web:PAGE",  # the web page's parts: its rules page (files in static/)
            "terminal": f"{__name__}.terminal",  # `quaternity play --game gofish`
            "puzzles": f"{__name__}.puzzles",  # `quaternity puzzle generate --game gofish`, `puzzle verify`
            "codec": f"{__name__}.codec:codec_for",  # the research bridges' numbering
            "spiel": f"{__name__}.spiel",  # the OpenSpiel game python_gofish
            "packed": f"{__name__}.packed:packed_for",  # the shared partitioned solver's keys (fastgraph)
        },
    )
)

__all__ = [
    "SPEC",
    "GoFishState",
    "new_state",
    "GAME_NAME",
    "GoFish",
    "Move",
    "NamedQuestion",
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

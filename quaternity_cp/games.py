"""The registry of games and agents under its first name, for one more release: use :mod:`quaternity_cp.registry`.

Everything is :mod:`quaternity_cp.registry` (the one game interface, :class:`GameSpec`, the registry, the
agents); this module only gives its names again, so that ``from quaternity_cp.games import GAMES, load_all``
keeps working, with a :class:`DeprecationWarning`. Nothing in the project imports it.
"""

import warnings

warnings.warn("quaternity_cp.games is quaternity_cp.registry's old name (it goes away in the next release)",
              DeprecationWarning, stacklevel=2)


from .registry import (
    TERMINAL,
    GameState,
    Agent,
    OptionSpec,
    OptionError,
    GameSpec,
    GAMES,
    AGENTS,
    DEFAULT_GAME,
    register_game,
    register_agent,
    derive_seed,
    GAME_MODULES,
    AGENT_MODULES,
    load_all,
    load_games,
    import_game_modules_from_environment,
    record_game,
    PARTS,
    ChanceOutcome,
    chance_draw,
    CHANCE_STREAM,
)

__all__ = [
    "TERMINAL",
    "GameState",
    "Agent",
    "OptionSpec",
    "OptionError",
    "GameSpec",
    "GAMES",
    "AGENTS",
    "DEFAULT_GAME",
    "register_game",
    "register_agent",
    "derive_seed",
    "GAME_MODULES",
    "AGENT_MODULES",
    "load_all",
    "load_games",
    "import_game_modules_from_environment",
    "record_game",
    "PARTS",
    "ChanceOutcome",
    "chance_draw",
    "CHANCE_STREAM",
]

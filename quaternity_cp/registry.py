"""The one narrow game interface that every runner, agent and page uses.

Solvers, agents, the tournament runner and the web page talk to every game
(the Quaternity presets, classic Quartets, Quarto) through :class:`GameState`,
in the manner of OpenSpiel's ``State``: whose decision it is, the legal
actions, apply one, is it over, what each seat gets. Nothing here knows a
game's rules; each game module implements the protocol and registers a
factory under a name with :func:`register_game`.

Chance is explicit, as in OpenSpiel, but resolved by the state itself: a
game's random events (the deal, the first player, a free hand-over choice, a
tie-break) are :class:`ChanceOutcome` values in the state's ``chance`` list,
each drawn from the game's seed and the moment it happens (:func:`chance_draw`).
So undoing a move and playing it again meets the same outcome, a clone carries
the same outcomes, and a record carries them (``deal``, ``first``, ``tie_break``).

An *action* is a small hashable value of the game's own (a move object); its
text form comes from :meth:`GameState.action_to_string` and is read back by
:meth:`GameState.string_to_action`. An *observation* is everything the seat
may know and nothing more (in classic Quartets: the public record and its own
hand, never the deal, nor the seed or anything drawn from it that would deal
the cards again); it is the only input an agent gets, with its own generator
(seeded with a one-way :func:`derive_seed` of the game's seed, never the seed).

The registry is all a front end knows of the games: each :class:`GameSpec`
carries the game's metadata (seats, options with their types, defaults and
ranges, hidden information, default agent) and names the game's own parts
(record checker, SVG picture, report, web view), imported on first use. Agents
register themselves for the games they play (:func:`register_agent`). A new
game is one package (its state, its parts, a :func:`register_game` call) and
one line in :data:`GAME_MODULES`; a new agent module is one line in
:data:`AGENT_MODULES`.

>>> sorted(load_all())  # every game module registers its game when imported
['gofish', 'quartets', 'quarto']
>>> spec = GAMES["quarto"]
>>> spec.seats(spec.default_options()), spec.option("squares").default, spec.default_agent in spec.agents
(2, False, True)
>>> spec.check_record({"game": "quarto", "moves": ["LRTS", "A1 LRTS"]})
Traceback (most recent call last):
...
quaternity_cp.quarto.core.QuartoError: move 2 (A1 LRTS): ...
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Mapping, Protocol, runtime_checkable

from .errors import QuaternityError

TERMINAL = -1  # current_player() of a finished game


@runtime_checkable
class GameState(Protocol):
    """A game in progress. Mutable: :meth:`apply_action` and :meth:`undo` change it in place."""

    @property
    def num_players(self) -> int:
        """The number of seats."""

    def current_player(self) -> int:
        """The seat that must decide now (asker, answerer, placer), or TERMINAL."""

    def legal_actions(self) -> list[Hashable]:
        """The actions open to :meth:`current_player`, in a fixed, documented order."""

    def apply_action(self, action: Hashable) -> None:
        """Play ``action`` for the current player; an illegal one raises the game's error."""

    def undo(self) -> None:
        """Take back the last decision (and anything the game did by itself after it)."""

    def is_terminal(self) -> bool:
        """Whether the game is over."""

    def returns(self) -> list[float]:
        """Per seat, the share of the win: 1/k to each of k winners, 0 to the rest (all 0 before the end)."""

    def scores(self) -> list[float]:
        """Per seat, the game's own score (sets claimed; Quarto: 1 to the winner)."""

    def observation(self, player: int) -> Any:
        """What ``player`` may know now; an agent's only input (never the seed, nor another seat's hand)."""

    def action_to_string(self, action: Hashable) -> str:
        """The action in the game's record notation."""

    def string_to_action(self, text: str) -> Hashable:
        """An action from its notation (raises the game's error on bad text)."""

    def record(self) -> dict[str, Any]:
        """The game so far as a JSON record that ``quaternity check`` (or ``quarto check``) accepts."""

    def clone(self) -> "GameState":
        """An independent copy."""

    @property
    def chance(self) -> "list[ChanceOutcome]":
        """The random events so far, in order ([] in a game without chance)."""


@dataclass(frozen=True)
class ChanceOutcome:
    """One random event of a game, as the state recorded it.

    ``kind`` names the event (quartets: ``"deal"``, whose ``outcome`` is the hands
    as a tuple of sorted card-id tuples, ``"first"``, ``"handover"``,
    ``"tie_break"``: a seat); ``at`` is the number of moves made before it.
    """

    kind: str
    outcome: Any
    at: int


#: Stream tag of the chance draws in :func:`derive_seed` (apart from the agents' seeds).
CHANCE_STREAM = 0x636861


def chance_draw(seed: int, kind: int, at: int, choices: "list[int] | tuple[int, ...]") -> int:
    """The outcome of the chance event numbered ``kind`` after ``at`` moves of the game of ``seed``: one of
    ``choices``, uniformly; a pure function of its arguments (so undo and replay meet it again)."""
    rng = random.Random(derive_seed(seed, CHANCE_STREAM, kind, at))
    return choices[rng.randrange(len(choices))]


@runtime_checkable
class Agent(Protocol):
    """A player: sees one observation at a time and picks one of the legal actions.

    Agents are deterministic given the ``rng`` they are handed (seeded by the
    runner with :func:`derive_seed` of the game's seed and the seat: a hash that
    does not give the seed back, so the generator cannot deal the cards again),
    and never see more than the observation.
    """

    name: str

    def step(self, observation: Any, legal_actions: list[Hashable], rng: random.Random) -> Hashable:
        """The chosen action, one of ``legal_actions``."""


@dataclass(frozen=True)
class OptionSpec:
    """One option of a game's ``new_state``, as a front end offers it to a person.

    ``type`` is ``bool``, ``int`` or ``str``; ``default`` is the value a front
    end proposes; ``choices`` (str) or ``low``..``high`` (int) bound what a
    person may choose at a table (the game itself may accept more: its
    ``new_state`` checks its own limits). ``label`` names the field of a form,
    ``help`` says in one line what it does.
    """

    name: str
    type: type
    default: Any
    label: str = ""
    help: str = ""
    choices: tuple[Any, ...] = ()
    low: int | None = None
    high: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The option as JSON (the web page builds its form from it)."""
        out: dict[str, Any] = {"name": self.name, "type": self.type.__name__, "default": self.default,
                               "label": self.label or self.name, "help": self.help}
        if self.choices:
            out["choices"] = list(self.choices)
        if self.low is not None:
            out["min"] = self.low
        if self.high is not None:
            out["max"] = self.high
        return out

    def check(self, value: Any, *, bounds: bool = True) -> None:
        """Raise :class:`OptionError` unless ``value`` has the option's type (``bool``: true or false;
        ``int``: a whole number, not a bool; ``str``: a string) and is one of its ``choices``; with
        ``bounds``, also within ``low``..``high`` (what a person may choose at a table)."""
        from .jsonio import show

        if not isinstance(value, self.type) or (self.type is not bool and isinstance(value, bool)):
            kind = {bool: "true or false", int: "a whole number", str: "a string"}.get(self.type, self.type.__name__)
            raise OptionError(self.name, f"option {self.name!r} must be {kind}, not {show(value)}")
        if self.choices and value not in self.choices:
            raise OptionError(self.name, f"option {self.name!r} must be one of {', '.join(map(str, self.choices))}, "
                                         f"not {show(value)}")
        if not bounds or not isinstance(value, int):
            return
        if self.low is not None and value < self.low:
            raise OptionError(self.name, f"option {self.name!r} must be at least {self.low}, not {value}")
        if self.high is not None and value > self.high:
            raise OptionError(self.name, f"option {self.name!r} must be at most {self.high}, not {value}")


class OptionError(QuaternityError, ValueError):
    """A bad value of one option of a game's part (``option`` names it, the message says what is wrong)."""

    def __init__(self, option: str, message: str):
        super().__init__(message)
        self.option = option


@dataclass(frozen=True)
class GameSpec:
    """A registered game: how to make a fresh state, what a front end needs to offer it, and its own parts.

    Metadata: ``min_players``..``max_players`` seats (``players_option``
    names the option that sets the number, when it varies), ``options`` (what
    a person chooses at a table), whether the game has ``hidden_information``,
    ``default_agent`` (fills the other seats) and ``hint_agent`` (suggests a
    move to a person), and ``seat_label`` (how a front end names a seat:
    "seat 1", "player 1").

    ``parts`` maps a part's name to where it lives, ``"module:attribute"`` (or
    ``"module"``), imported on first use so that registering a game loads none
    of them. A game provides those its front ends need (:data:`PARTS` says what
    each is; docs/adding-a-game.md shows a complete small game):
    ``check`` (see :meth:`check_record`), ``svg`` (see :meth:`svg`), ``report``
    (see :meth:`report`), ``web`` (the web table's view), ``page`` (its rules
    page, table script and style in the package's ``static/``), ``cli`` (its
    command group, ``quaternity <game> ...``), ``terminal`` (its view in
    ``quaternity play``), ``codec`` and ``spiel`` (the research bridges), ``puzzles``
    (its puzzles), ``tournament`` (the table a tournament plays by default),
    ``packed`` (its positions as fixed-width keys for the shared partitioned
    solver, :mod:`quaternity_cp.partitioned`), and the game's own (``html``, ``grid``).
    The agents are those registered for the game (:func:`register_agent`).
    """

    name: str
    new_state: Callable[..., GameState]  # new_state(seed: int, **options) -> GameState
    description: str = ""
    min_players: int = 2
    max_players: int = 2
    players_option: str | None = None
    options: tuple[OptionSpec, ...] = ()
    hidden_information: bool = False
    default_agent: str | None = None
    hint_agent: str | None = None
    seat_label: str = "seat"
    parts: Mapping[str, str] = field(default_factory=dict)
    #: For a game whose options stand for others (a rule set naming rule options): the options as a person gave
    #: them -> the options to hand to :attr:`new_state` so that every one given is played as given (a rule
    #: set's option set back to its default included). None: the options go as they are.
    resolve_options: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None

    def resolved(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` as :attr:`new_state` must get them to play every one given (:attr:`resolve_options`)."""
        return self.resolve_options(options) if self.resolve_options is not None else dict(options)

    @property
    def agents(self) -> dict[str, Callable[[], Agent]]:
        """name -> factory of every agent registered for this game (all of them once :func:`load_all` ran)."""
        return AGENTS.setdefault(self.name, {})

    def option(self, name: str) -> OptionSpec | None:
        """The option called ``name``, or None."""
        return next((o for o in self.options if o.name == name), None)

    def default_options(self) -> dict[str, Any]:
        """Every option at the value a front end proposes."""
        return {o.name: o.default for o in self.options}

    def check_options(self, options: Mapping[str, Any], *, bounds: bool = True) -> None:
        """Raise :class:`OptionError`, naming the option, unless ``options`` may go to :attr:`new_state`.

        Each declared option is checked by :meth:`OptionSpec.check` (``bounds``: within the range of a
        table; without, the game's ``new_state`` checks its own, wider limits, as in a tournament). A
        name the game does not declare goes to ``new_state`` only when it takes any keyword (quartets:
        the rule options), which it then checks itself; the other parameters of ``new_state`` (the seed,
        an engine) are not options.
        """
        import inspect

        try:
            parameters = list(inspect.signature(self.new_state).parameters.values())
        except (TypeError, ValueError):  # a factory without a signature: it checks every name itself
            parameters = [inspect.Parameter("options", inspect.Parameter.VAR_KEYWORD)]
        named = {p.name for p in parameters if p.kind is not inspect.Parameter.VAR_KEYWORD}
        anything = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)
        for name, value in options.items():
            spec = self.option(name)
            if spec is not None:
                spec.check(value, bounds=bounds)
            elif name in named or not anything:
                known = ", ".join(o.name for o in self.options) or "none"
                raise OptionError(str(name), f"{name!r} is not an option of {self.name} (its options: {known}"
                                             + (", and the game's own further ones)" if anything else ")"))

    def refusal(self, agent: str, options: Mapping[str, Any]) -> str | None:
        """Why the agent ``agent`` cannot play a game made with ``options``, or None: its factory (or the
        class a ``functools.partial`` wraps) may define a classmethod ``refuses(options) -> str | None``,
        given the options with the game's defaults filled in."""
        factory = self.agents[agent]
        hook = getattr(factory, "refuses", None) or getattr(getattr(factory, "func", None), "refuses", None)
        return hook({**{o.name: o.default for o in self.options}, **options}) if callable(hook) else None

    def seats(self, options: Mapping[str, Any]) -> int:
        """The number of seats of a game made with ``options``."""
        if self.players_option is None:
            return self.min_players
        spec = self.option(self.players_option)
        return int(options.get(self.players_option, spec.default if spec is not None else self.min_players))

    def part(self, name: str) -> Any:
        """The game's part ``name``, imported on first use (a game without it raises QuaternityError)."""
        import importlib

        target = self.parts.get(name)
        if target is None:
            raise QuaternityError(f"the game {self.name} has no {name} part")
        module, _, attribute = target.partition(":")
        loaded = importlib.import_module(module)
        return getattr(loaded, attribute) if attribute else loaded

    def check_record(self, record: dict[str, Any]) -> None:
        """Raise the game's error, with a one-line message, unless ``record`` (JSON data) is a legal game of it."""
        self.part("check")(record)

    def svg(self, state: GameState) -> str:
        """A picture of ``state`` as an SVG document (the public view of it)."""
        return str(self.part("svg")(state))

    def report(self, text: str, *, name: str = "<record>", title: str | None = None,
               **options: Any) -> tuple[str, bool]:
        """The self-contained HTML page stepping through the record ``text``, and whether the record is legal.

        ``name`` is the file's name for messages, ``title`` the page's; further
        ``options`` are the game's own (a game ignores those it has none of).
        A file that cannot be read raises the game's error, a bad option
        :class:`OptionError`.
        """
        html, valid = self.part("report")(text, name=name, title=title, **options)
        return html, valid

    def to_json(self) -> dict[str, Any]:
        """What a front end needs to offer the game, as JSON."""
        return {
            "description": self.description,
            "agents": sorted(self.agents),
            "default_agent": self.default_agent,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "players_option": self.players_option,
            "seat_label": self.seat_label,
            "hidden_information": self.hidden_information,
            "options": [o.to_json() for o in self.options],
        }


#: The parts a game may provide (:attr:`GameSpec.parts`): name -> what the front ends expect of it.
PARTS: dict[str, str] = {
    "check": "check(record: dict) -> None: raise the game's error (one line) unless the JSON record is legal",
    "svg": "state_svg(state) -> str: an SVG picture of a state's public view",
    "report": "text_report(text, *, name, title, **options) -> (html, valid): the step-through page of a record",
    "web": "module: view(table, seat, *, probabilities) and optionally explain, verdict, undo_refusal, LIMITS, "
           "PROBABILITIES, catalogue_entry(spec) (quaternity_cp.web)",
    "page": "dict: role -> file name in the package's static/ (rules, script, style), served at /games/<game>/",
    "cli": "a click group: `quaternity <game> ...`; `quaternity check|analyze|explain|count|solve FILE` of the "
           "game's record runs its command of the same name, `quaternity puzzle generate|verify|sheet` its group "
           "`puzzle` when it has one (quaternity_cp.command: what the commands share)",
    "terminal": "module: HELP, LEGEND, show, command, to_action, final_text; optional help_text(table), "
                "hint_choices(table, legal) (`quaternity play`)",
    "codec": "codec_for(state, max_moves) -> the numbering of actions and observations (quaternity_cp.encoding)",
    "spiel": "module that defines and registers the game's OpenSpiel game (quaternity_cp.spiel)",
    "puzzles": "module: generate(count, seed, options, limits, *, difficulty, max_games, found) -> puzzles "
               "(.name, .record, .answer), puzzle_names(options, seed, count), verify(record, answer, *, show) -> "
               "verdict (.ok, .right, .unique, summary(), to_json()), sheet_html(puzzles, *, title) -> str "
               "(`quaternity puzzle` of a game without its own group `puzzle` in its part cli; docs/puzzles.md)",
    "tournament": "dict: the options a tournament of the game plays when none is given (`quaternity tournament` "
                  "of the default game: its --preset, --players, --sets and --set-size)",
    "packed": "packed_for(options: dict) -> a quaternity_cp.partitioned.Packed: the start of a game made with "
              "``options`` as fixed-width keys (its symmetries removed) for the shared partitioned solver: "
              "name, format (old_formats optional), width (uint64 words), seats, moves, max_degree, identity() "
              "-> JSON a checkpoint must match, start() -> (key, first seat), expand(keys) -> {keys, src, off, "
              "move, end} per edge and {owner, degree} per position (seats counted on from the mover, owner -1 a free "
              "choice; end -2 inner, -1 nobody wins, w the winner: a row per winner of a shared win), "
              "decode(key) -> dict (docs/solver.md)",
}

GAMES: dict[str, GameSpec] = {}

#: game -> agent name -> factory; filled by :func:`register_agent`, read through :attr:`GameSpec.agents`.
AGENTS: dict[str, dict[str, Callable[[], Agent]]] = {}

#: The game a front end offers first, and the game of a record that names none.
DEFAULT_GAME = "quartets"


def register_game(spec: GameSpec) -> GameSpec:
    """Make a game known by name (called by each game module on import)."""
    GAMES[spec.name] = spec
    return spec


def register_agent(game: str, name: str, factory: Callable[[], Agent] | None = None) -> Any:
    """Make an agent known for a game (the game need not be registered yet): ``register_agent(game, name,
    factory)``, or as a decorator of a factory, ``@register_agent(game, name)``."""
    if factory is None:
        def decorator(f: Callable[[], Agent]) -> Callable[[], Agent]:
            AGENTS.setdefault(game, {})[name] = f
            return f

        return decorator
    AGENTS.setdefault(game, {})[name] = factory
    return factory


def derive_seed(seed: int, *path: int) -> int:
    """A 63-bit seed derived from ``seed`` and a path (game index, seat, ...), stable across runs and platforms."""
    import hashlib

    text = ":".join(str(int(x)) for x in (seed, *path)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


#: The modules that register games, then those that register agents, imported by :func:`load_all`.
GAME_MODULES = ("quaternity_cp.quartets", "quaternity_cp.quarto", "quaternity_cp.gofish")
AGENT_MODULES = ("quaternity_cp.quartets.agents", "quaternity_cp.quartets.agents.discreet", "quaternity_cp.quartets.agents.search",
                 "quaternity_cp.quarto.agents", "quaternity_cp.gofish.agents")


def import_game_modules_from_environment() -> tuple[str, ...]:
    """Import the further game modules named in the environment variable ``QUATERNITY_GAME_MODULES``
    (comma-separated module names, importable from ``sys.path``; each registers its game and agents, as a
    module of :data:`GAME_MODULES` does): a game kept outside this package, offered by every front end and
    to the tournament's worker processes, which inherit the environment. Their names. A name that is not
    on the path raises :class:`QuaternityError` (one line: put its folder on ``PYTHONPATH``); a module that
    is found but does not import raises its own error (not hidden)."""
    import importlib
    import os

    names = tuple(n.strip() for n in os.environ.get("QUATERNITY_GAME_MODULES", "").split(",") if n.strip())
    for name in names:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name is None or not (name == err.name or name.startswith(err.name + ".")):
                raise  # the module was found: what it imports is missing
            raise QuaternityError(f"QUATERNITY_GAME_MODULES: no module {name!r} on the path (put the folder that "
                                  "holds it on PYTHONPATH)") from None
    return names


def load_all() -> dict[str, GameSpec]:
    """Import every game module present, then every agent module (each registers itself); the registry."""
    import importlib
    import importlib.util
    import sys

    import_game_modules_from_environment()
    for name in GAME_MODULES + AGENT_MODULES:
        if name in sys.modules:
            continue
        parent = name.rpartition(".")[0]
        if parent != __package__ and importlib.util.find_spec(parent) is None:
            continue  # the game's package is not part of this installation yet
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)  # errors inside a game module are not hidden
    return GAMES


def load_games() -> dict[str, GameSpec]:
    """Import every game module present (not the agents: see :func:`load_all`); the registry."""
    import importlib
    import importlib.util
    import sys

    import_game_modules_from_environment()
    for name in GAME_MODULES:
        if name not in sys.modules and importlib.util.find_spec(name) is not None:
            importlib.import_module(name)
    return GAMES


def part_name(part: str, name: str, where: str) -> Any:
    """The public name ``name`` of the registered games' ``part`` modules, as the bridge module ``where``
    (``quaternity_cp.spiel``, ``quaternity_cp.encoding``) gave it before each game owned its names: found
    in exactly one game's module, with a :class:`DeprecationWarning` naming that module (import it from
    there); in several, an :class:`AttributeError` naming them all (no game's name silently wins)."""
    import importlib
    import warnings

    if name.startswith("_"):
        raise AttributeError(f"module {where!r} has no attribute {name!r}")
    found = []
    for spec in load_all().values():
        if part in spec.parts:
            module = importlib.import_module(spec.parts[part].partition(":")[0])
            if name in getattr(module, "__all__", ()):
                found.append(module)
    if not found:
        raise AttributeError(f"module {where!r} has no attribute {name!r}")
    if len(found) > 1:
        raise AttributeError(f"{where}.{name} is ambiguous: "
                             f"{', '.join(m.__name__ for m in found)} each define it (import it from one)")
    warnings.warn(f"{where}.{name} is {found[0].__name__}.{name}: import it from there (the re-export goes away "
                  "in the next release)", DeprecationWarning, stacklevel=3)
    return getattr(found[0], name)


def find_game(name: str) -> GameSpec | None:
    """The registered game called ``name``, or None; a game not registered yet is looked for in its own package
    first (the module of :data:`GAME_MODULES` or of ``QUATERNITY_GAME_MODULES`` whose last name is ``name``),
    then in every game module (:func:`load_games`), so that finding one game imports no other.

    >>> find_game("quarto").name, find_game("chess")
    ('quarto', None)
    """
    import importlib
    import importlib.util
    import os

    if name in GAMES:
        return GAMES[name]
    extra = tuple(n.strip() for n in os.environ.get("QUATERNITY_GAME_MODULES", "").split(",") if n.strip())
    for module in GAME_MODULES + extra:
        if module.rpartition(".")[2] == name and importlib.util.find_spec(module) is not None:
            importlib.import_module(module)  # errors inside a game module are not hidden
            if name in GAMES:
                return GAMES[name]
    load_games()
    return GAMES.get(name)


def record_game(text: str) -> str:
    """The registered game a record or position file belongs to: the one its JSON ``"game"`` field names,
    else :data:`DEFAULT_GAME` (plain text, JSON without the field, a name no game has). Only the game named
    is imported (:func:`find_game`).

    >>> record_game('{"game": "quarto", "moves": []}'), record_game("players: 2")
    ('quarto', 'quartets')
    """
    from .jsonio import InputRefused, load_json

    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{"):
        try:
            data = load_json(stripped)  # the strict, bounded reader; the game's own reader says what is wrong
        except InputRefused:
            data = None
        if isinstance(data, dict) and isinstance(data.get("game"), str) and find_game(data["game"]) is not None:
            return str(data["game"])
    return DEFAULT_GAME


__all__ = ["TERMINAL", "GameState", "Agent", "OptionSpec", "OptionError", "GameSpec", "GAMES", "AGENTS",
           "DEFAULT_GAME", "register_game", "register_agent", "derive_seed", "GAME_MODULES", "AGENT_MODULES",
           "load_all", "load_games", "import_game_modules_from_environment", "find_game", "record_game", "PARTS", "ChanceOutcome",
           "chance_draw", "CHANCE_STREAM"]

"""One game at the web table: people in some seats (each with a secret link), agents in the others.

Everything goes through the narrow game interface (:mod:`quaternity_cp.registry`):
the state is made by the registered game's factory, the agents are the
registered ones, moves are the state's actions and their notation. What a seat
sees is the game's own web view (its registered ``web`` part, e.g.
:mod:`quaternity_cp.quartets.web`, :mod:`quaternity_cp.quarto.web`), computed
from the state's record for that seat only (in a game with hidden cards, a
seat's view never holds another seat's hand, nor the seed that dealt them, and
an undo never shows what the seat could not know without it); the setup a page offers (seats,
options, agents) is the game's metadata (:class:`~quaternity_cp.registry.GameSpec`)
within :data:`WEB_LIMITS`. Nothing here knows a game, a rule or an agent by name.

A table plays its agents at once after a person's move (``advance=True``, as
terminal play does), or one move at a time through :meth:`WebGame.agent_step`
(the web server, which shows each move as it comes). Every change adds one to
:attr:`WebGame.version`.

>>> table = WebGame.new("quartets", {"preset": "quaternity", "players": 2, "sets": 2, "set_size": 2},
...                     human=0, agents={1: "random"}, seed=1)
>>> view = table.view()
>>> view["game"], view["your_turn"], view["names"], "<svg" in view["svg"]
('quartets', True, ['You', 'Seat 1 (random)'], True)
>>> view["status"]
'Your turn: ask a player for a card.'
"""

from __future__ import annotations

import hmac
import random
import secrets
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import Any

from ..errors import QuaternityError
from ..registry import DEFAULT_GAME, TERMINAL, GameSpec, GameState, derive_seed, load_all
from .store import token_hash

#: The "seat" of a watcher (the watch link): sees only what the whole table knows, never a hand, never moves.
WATCH = -1

MAX_AGENT_STEPS = 20_000  # agent decisions in one go (classic games end long before)
MAX_SEED = 2**63  # seeds are whole numbers of absolute value below this
MAX_ACTION_TEXT = 200  # characters of a move's text (every game's notation is far shorter)
MAX_NAME_TEXT = 40  # characters of a card's or a set's name in an explanation request


class WebError(QuaternityError):
    """A request the table cannot honour, in the person's words (unknown game or agent, a bad value,
    an illegal move, nothing to undo, a table too large for the web)."""


#: With an agents' budget of S seconds a move (``agent_seconds``), a move still running after
#: HARD_BUDGET_FACTOR x S seconds is stopped at its next random draw and a random legal move is played instead.
HARD_BUDGET_FACTOR = 3.0


class MoveStopped(Exception):
    """An agent's move stopped from outside: ``reason`` is ``"time"`` (past the hard budget) or ``"cancelled"``
    (the table was closed)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class TableRandom(random.Random):
    """An agent's random numbers at a table, checking at every draw the table's cancellation flag and the
    move's hard deadline (:class:`MoveStopped`): what stops an agent's move that its own budget did not.

    Only ``getrandbits`` is overridden (every other draw goes through it), so the numbers drawn are those of a
    plain :class:`random.Random` of the same seed.
    """

    cancelled: Any = None  # a threading.Event, set when the table closes
    deadline: float | None = None  # time.monotonic() past which the move stops

    def getrandbits(self, k: int) -> int:
        if self.cancelled is not None and self.cancelled.is_set():
            raise MoveStopped("cancelled")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise MoveStopped("time")
        return super().getrandbits(k)


# -- what the web offers ------------------------------------------------------------------------
def web_games() -> dict[str, GameSpec]:
    """The registered games the web table offers: those with a ``web`` part (the view of a seat), by name."""
    return {name: spec for name, spec in load_all().items() if "web" in spec.parts}


def web_limits(spec: GameSpec) -> dict[str, Any]:
    """The table sizes the web offers for a game, as JSON: ``options`` (each option's ``min``/``max`` or
    ``choices``, from :class:`~quaternity_cp.registry.OptionSpec`: the same bounds terminal play takes), plus
    what the game's web part adds (its ``LIMITS``: bounds on combinations of options, with a ``text``)."""
    options: dict[str, Any] = {}
    for o in spec.options:
        entry = {k: v for k, v in o.to_json().items() if k in ("choices", "min", "max")}
        if entry:
            options[o.name] = entry
    return {"options": options, **dict(getattr(spec.part("web"), "LIMITS", {}))}


class WebLimits(Mapping[str, dict[str, Any]]):
    """game -> :func:`web_limits` of it, read from the registry on use (``WEB_LIMITS["quarto"]``)."""

    def __getitem__(self, game: str) -> dict[str, Any]:
        return web_limits(web_games()[game])

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(web_games()))

    def __len__(self) -> int:
        return len(web_games())


#: The table sizes the web offers, per game: the form (through ``/api/games``), :meth:`WebGame.new` and
#: terminal play all take these bounds. How they were measured: the game's web part (``LIMITS``).
WEB_LIMITS = WebLimits()


# -- a game's page parts ---------------------------------------------------------------------------
#: The roles of a game's page files (its ``page`` part: role -> file name in its package's ``static/``).
PAGE_ROLES = ("rules", "script", "style")
#: What a page file's name may be: a plain name with one of these suffixes (no folder, nothing hidden).
PAGE_SUFFIXES = (".html", ".js", ".css")


def page_files(spec: GameSpec) -> dict[str, str]:
    """The game's page files, role -> file name (``rules``: its rules page, ``script``: the script that draws
    its table, ``style``: its CSS), from its ``page`` part; {} for a game without one. A name that is not a
    plain file name (a folder, a hidden file, another suffix) is left out: it is never served."""
    if "page" not in spec.parts:
        return {}
    declared = spec.part("page")
    return {role: name for role, name in dict(declared).items()
            if role in PAGE_ROLES and _plain_file_name(name)}


def _plain_file_name(name: Any) -> bool:
    return (isinstance(name, str) and 0 < len(name) <= 60 and name.isascii() and name.endswith(PAGE_SUFFIXES)
            and not name.startswith(".") and all(c.isalnum() or c in "-_." for c in name) and ".." not in name)


def page_file(spec: GameSpec, name: str) -> Any:
    """The game's page file ``name`` (a :class:`importlib.resources.abc.Traversable` in the ``static/``
    folder of the package of its ``page`` part), or None unless the game declares it."""
    import importlib
    from importlib.resources import files

    if name not in page_files(spec).values():
        return None
    module = spec.parts["page"].partition(":")[0]
    package = importlib.import_module(module).__package__ or module
    return files(package) / "static" / name


def page_urls(spec: GameSpec) -> dict[str, str]:
    """role -> the address the server serves the game's page file at, ``/games/<game>/<file>``."""
    return {role: f"/games/{spec.name}/{name}" for role, name in page_files(spec).items()}


def catalogue() -> dict[str, Any]:
    """The games the page can offer (:func:`web_games`; :data:`~quaternity_cp.registry.DEFAULT_GAME` first, the
    form's first choice, then by name), each with its metadata (:meth:`GameSpec.to_json`): seats, options,
    agents, its ``limits`` (:func:`web_limits`), its ``page`` (:func:`page_urls`: its rules page, the script
    that draws its table, its style), and what the game's web part adds (its ``catalogue_entry(spec)``, e.g.
    quartets' ``presets``)."""
    out: dict[str, Any] = {}
    games = web_games()
    for name in sorted(games, key=lambda n: (n != DEFAULT_GAME, n)):  # the form offers the default game first
        spec = games[name]
        out[name] = spec.to_json()
        part = spec.part("web")
        extra = getattr(part, "catalogue_entry", None)
        if callable(extra):
            out[name].update(extra(spec))
        out[name]["title"] = getattr(part, "TITLE", None) or name  # what the form's list of games shows
        out[name]["limits"] = web_limits(spec)
        out[name]["page"] = page_urls(spec)
    return out


def features(spec: GameSpec) -> dict[str, bool]:
    """What the game's web view offers beyond the view: exact ``probabilities``, ``explain``, a solver's ``verdict``."""
    web = spec.part("web")
    return {"probabilities": bool(getattr(web, "PROBABILITIES", False)), "explain": hasattr(web, "explain"),
            "verdict": hasattr(web, "verdict")}


def default_agent(spec: GameSpec) -> str:
    """The agent for a seat nobody chose: the game's default agent, else its first agent by name."""
    if spec.default_agent is not None and spec.default_agent in spec.agents:
        return spec.default_agent
    if not spec.agents:
        raise WebError(f"no agents are registered for {spec.name}")
    return sorted(spec.agents)[0]


# -- checking what a request gives ----------------------------------------------------------------
def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seat_number(value: Any, what: str) -> int:
    """A seat given as a JSON integer or a string of ASCII digits (a JSON object's key)."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 4:
        return int(value)
    if _is_int(value):
        number: int = value
        return number
    raise WebError(f"{what} must be a seat number, not {_show(value)}")


def _show(value: Any) -> str:
    """A value a person sent, shortened for a message."""
    text = repr(value) if isinstance(value, str) else str(value) if _is_int(value) or isinstance(value, bool) \
        else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def checked_options(spec: GameSpec, options: Any) -> dict[str, Any]:
    """The options a table is made with: ``options`` checked against the game's metadata (types, choices,
    the bounds of :data:`WEB_LIMITS`), every declared option not given at its default; WebError otherwise.

    A name the game does not declare is passed on only when the game's factory takes further keywords
    (quartets' rule options, e.g. ``tie``), as a plain value (text, a whole number, true or false), and
    the game checks it.
    """
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise WebError(f"options must be an object of option names and values, not {_show(options)}")
    for name, value in options.items():
        if not isinstance(name, str):
            raise WebError(f"an option's name must be text, not {_show(name)}")
        if spec.option(name) is None and not isinstance(value, (str, int, bool)):
            raise WebError(f"option {name!r} must be text, a whole number, or true or false, not {_show(value)}")
    try:
        spec.check_options(options)
    except QuaternityError as err:
        raise WebError(str(err)) from None
    full = {**spec.default_options(), **options}
    refuse = getattr(spec.part("web"), "refuse_size", None)
    reason = refuse(full) if callable(refuse) else None
    if reason:
        raise WebError(reason)
    return full


def outcome(seat: int, winners: list[int]) -> dict[str, Any]:
    """How the game ended for ``seat``: ``outcome`` ("won", "lost", or "draw" when nobody won) and ``you_won``
    (true or false when somebody won; None when nobody did, so a draw is never told as a loss).

    >>> outcome(0, [0]), outcome(1, [0]), outcome(0, [])
    ({'outcome': 'won', 'you_won': True}, {'outcome': 'lost', 'you_won': False}, {'outcome': 'draw', 'you_won': None})
    """
    if not winners:
        return {"outcome": "draw", "you_won": None}
    won = seat in winners
    return {"outcome": "won" if won else "lost", "you_won": won}


# -- the table ------------------------------------------------------------------------------------------
class WebGame:
    """A game in progress: people in the seats :attr:`humans`, agents in the others.

    Each person's seat has a secret (:attr:`tokens`, found back with :meth:`seat_of`); the moves of a
    seat are refused when it is not that seat's turn. :attr:`version` counts the changes (each applied
    action, each undo); :attr:`touched` is the :func:`time.monotonic` time of the last use.

    :attr:`seed` (the deal's and every chance event's) stays here: no view, record, explanation or
    verdict carries it, nor does an agent's observation; each agent's generator is seeded with
    ``derive_seed(seed, seat)`` (a one-way hash: it gives the agent nothing that deals the cards again).

    ``agent_seconds`` (the web server's; None: no budget, as in terminal play): the budget of one agent's
    move. An agent that takes a time limit (``max_seconds``, the search agents) gets it and plays the best
    move found within it; a move still running after :data:`HARD_BUDGET_FACTOR` times it is stopped at its
    next random draw and a random legal move is played instead (counted in :attr:`fallbacks`). :meth:`cancel`
    (and :meth:`close`) stops a running agent's move at its next random draw, from any thread.
    """

    def __init__(self, game: str, options: dict[str, Any], state: GameState, humans: tuple[int, ...],
                 agents: dict[int, Any], seed: int, *, agent_names: dict[int, str] | None = None,
                 advance: bool = True, agent_seconds: float | None = None) -> None:
        self.game = game
        self.options = options
        self.state = state
        self.humans = tuple(humans)
        self.agents = agents  # seat -> Agent
        self.agent_names = agent_names or {seat: getattr(a, "name", type(a).__name__) for seat, a in agents.items()}
        self.seed = seed
        self.auto = advance  # play the agents at once after a person's move
        self.cancelled = threading.Event()  # set by cancel(): a running agent's move stops
        self.agent_seconds = agent_seconds
        self.fallbacks: dict[int, int] = {}  # seat -> agent moves stopped past the hard budget
        self.rngs: dict[int, TableRandom] = {}
        for seat, agent in agents.items():
            rng = self.rngs[seat] = TableRandom(derive_seed(seed, seat))
            rng.cancelled = self.cancelled
            limit = getattr(agent, "max_seconds", False)
            if agent_seconds is not None and limit is not False and (limit is None or limit > agent_seconds):
                agent.max_seconds = agent_seconds  # the agent's own clock: it plays the best found in time
        self.tokens = {seat: secrets.token_urlsafe(18) for seat in self.humans}
        self.token_hashes = {seat: token_hash(token) for seat, token in self.tokens.items()}  # what is checked
        self.applied = 0  # actions applied to the state so far
        self.next: str | None = None  # the table "play again" opened after this one (its id)
        self.next_tokens: dict[int, str] = {}  # the people's tokens at that table, by seat
        self.marks: list[tuple[int, int]] = []  # (seat, `applied` before it) of each person's action, for undo
        self.log: list[tuple[int, str]] = []  # (seat, action text) of every action applied
        self.version = 0
        self.touched = time.monotonic()
        self.closed = False
        self._memo: dict[Any, Any] = {}
        self._memo_version = 0

    # -- making one ---------------------------------------------------------------------
    @classmethod
    def new(cls, game: str, options: dict[str, Any] | None = None, *, human: int = 0,
            humans: list[int] | tuple[int, ...] | None = None, agents: Mapping[Any, str] | None = None,
            seed: int | None = None, advance: bool = True, agent_seconds: float | None = None) -> "WebGame":
        """A table of ``game`` with ``options``; people in the seats ``humans`` (default ``[human]``; the first
        is the creator's), agents (``agents``: seat -> name, default the game's) in every other seat. With
        ``advance`` the agents move at once (here, and after every person's move); without, nothing is
        played until :meth:`agent_step`. ``agent_seconds``: the budget of one agent's move (see the class).
        Any bad value raises :class:`WebError`, in the person's words.
        """
        games = web_games()
        if not isinstance(game, str) or game not in games:
            raise WebError(f"unknown game {_show(game)} (known: {', '.join(sorted(games))})")
        spec = games[game]
        full = checked_options(spec, options)
        if spec.resolve_options is not None:  # options that stand for others (a rule set): each given played
            full = {**full, **spec.resolved(dict(options or {}))}
        if seed is None:  # one of 2^63: too many for a player to try every seed against its own hand
            seed = secrets.randbelow(MAX_SEED)
        elif not _is_int(seed) or not -MAX_SEED < seed < MAX_SEED:
            raise WebError(f"seed must be a whole number below 2^63 in size, not {_show(seed)}")
        seated = [human] if humans is None else humans
        if not isinstance(seated, (list, tuple)) or not seated:
            raise WebError(f"humans must be a list of one or more seat numbers, not {_show(seated)}")
        try:
            state = spec.new_state(seed, **full)
        except (QuaternityError, ValueError) as err:
            raise WebError(str(err)) from None
        players = state.num_players
        people: list[int] = []
        for seat in seated:
            if not _is_int(seat) or not 0 <= seat < players:
                raise WebError(f"seat {_show(seat)}: the game has seats 0 to {players - 1}")
            if seat in people:
                raise WebError(f"seat {seat} is given twice among the people's seats")
            people.append(seat)
        if agents is not None and not isinstance(agents, Mapping):
            raise WebError(f"agents must be an object of seats and agent names, not {_show(agents)}")
        chosen: dict[int, Any] = {}
        for key, name in (agents or {}).items():
            seat = _seat_number(key, "a seat in agents")
            if not 0 <= seat < players:
                raise WebError(f"agents: seat {seat}: the game has seats 0 to {players - 1}")
            if seat in people:
                raise WebError(f"agents: seat {seat} is a person's seat")
            chosen[seat] = name
        names: dict[int, str] = {}
        for seat in range(players):
            if seat in people:
                continue
            name = chosen.get(seat) or default_agent(spec)
            if not isinstance(name, str) or name not in spec.agents:
                raise WebError(f"unknown agent {_show(name)} for {game} (known: {', '.join(sorted(spec.agents))})")
            reason = spec.refusal(name, full)
            if reason:
                raise WebError(f"the agent {name} cannot play this game: it {reason}")
            names[seat] = name
        table = cls(game, full, state, tuple(people), {seat: spec.agents[n]() for seat, n in names.items()}, seed,
                    agent_names=names, advance=advance, agent_seconds=agent_seconds)
        if advance:
            table.advance()
        return table

    @property
    def spec(self) -> GameSpec:
        """The registered game."""
        return load_all()[self.game]

    @property
    def human(self) -> int:
        """The creator's seat (the first of :attr:`humans`)."""
        return self.humans[0]

    def seat_of(self, token: Any) -> int | None:
        """The seat whose secret is ``token``, or None (compared in constant time)."""
        if not isinstance(token, str):
            return None
        given = token_hash(token)
        found = None
        for seat, secret in self.token_hashes.items():
            if hmac.compare_digest(given, secret):
                found = seat
        return found

    def set_tokens(self, tokens: Mapping[int, str], hashes: Mapping[int, str] | None = None) -> None:
        """The seats' tokens (the server derives them from its key) and what is checked: their hashes, or
        ``hashes`` as stored (a token whose hash is not the stored one is not shown in the join links)."""
        self.token_hashes = dict(hashes) if hashes is not None else {s: token_hash(t) for s, t in tokens.items()}
        self.tokens = {s: t for s, t in tokens.items() if token_hash(t) == self.token_hashes.get(s)}

    def moves(self) -> list[tuple[int, str, bool]]:
        """Every action applied so far: (seat, its text, whether a person made it), as a table is stored."""
        people = {applied for _, applied in self.marks}
        return [(seat, text, n in people) for n, (seat, text) in enumerate(self.log)]

    def replay(self, moves: list[tuple[int, str, bool]]) -> None:
        """Apply stored actions (:meth:`moves` of the table as it was) to this table, fresh from :meth:`new`
        with the same game, options, seats and seed; raises :class:`WebError` naming the first that does not
        apply (a table stored by an incompatible version)."""
        for n, (seat, text, person) in enumerate(moves, 1):
            st = self.state
            try:
                action = st.string_to_action(text)
                if st.is_terminal() or action not in st.legal_actions():
                    raise WebError("not a legal move there")
            except (QuaternityError, ValueError) as err:
                raise WebError(f"stored action {n} ({text!r}) does not apply: {err}") from None
            if person:
                self.marks.append((seat, self.applied))
            self._apply(seat, action)

    def touch(self) -> None:
        """Mark the table as used now (:attr:`touched`)."""
        self.touched = time.monotonic()

    def close(self) -> None:
        """Close the table: no more moves (its record and views stay readable); a running agent's move stops."""
        self.closed = True
        self.cancel()

    def cancel(self) -> None:
        """Stop the agent's move running now, if any, at its next random draw, and every later one (safe from
        any thread: the server calls it when it closes a table whose move is still being computed)."""
        self.cancelled.set()

    # -- seats ------------------------------------------------------------------------------
    @property
    def players(self) -> int:
        """The number of seats."""
        return int(self.state.num_players)

    def seat(self, seat: Any) -> int:
        """``seat`` checked to be a seat of the game (WebError otherwise)."""
        if not _is_int(seat) or not 0 <= seat < self.players:
            raise WebError(f"seat {_show(seat)}: the game has seats 0 to {self.players - 1}")
        return int(seat)

    def viewer(self, seat: Any = None) -> int:
        """The seat a view is for: ``seat`` (or :data:`WATCH`, a watcher), or the only person's seat when None."""
        if seat is WATCH or (_is_int(seat) and seat == WATCH):
            return WATCH
        if seat is None:
            if len(self.humans) != 1:
                raise WebError("say which seat is looking: this table has several people")
            return self.humans[0]
        return self.seat(seat)

    def person(self, seat: Any = None) -> int:
        """The person's seat that acts: ``seat`` (one of :attr:`humans`), or the only one when None."""
        number = self.viewer(seat)
        if number == WATCH:
            raise WebError("a watcher only watches: it cannot move or undo")
        if number not in self.humans:
            raise WebError(f"seat {number} is played by an agent, not by a person")
        return number

    def seat_name(self, seat: int, viewer: int | None = None, *, start: bool = True) -> str:
        """How the narration names ``seat`` for ``viewer``: "You" ("you" with ``start=False``), else "Seat 2"."""
        if seat == viewer:
            return "You" if start else "you"
        return f"{self.spec.seat_label.capitalize()} {seat}"

    def names(self, viewer: int | None = None) -> list[str]:
        """A display name per seat for ``viewer``: "You", "Seat 1" (another person), "Seat 2 (knowledge)"."""
        return [self.seat_name(p, viewer) + (f" ({self.agent_names[p]})" if p in self.agent_names else "")
                for p in range(self.players)]

    # -- playing --------------------------------------------------------------------------
    def _open(self) -> None:
        if self.closed:
            raise WebError("this table is closed: start a new game")

    def _changed(self) -> None:
        self.version += 1
        self.touched = time.monotonic()

    def _apply(self, seat: int, action: Hashable) -> None:
        text = self.state.action_to_string(action)
        self.state.apply_action(action)
        self.applied += 1
        self.log.append((seat, text))
        self._changed()

    def agent_to_move(self) -> int | None:
        """The agent's seat that must move now; None when a person must, or the game is over."""
        st = self.state
        if self.closed or st.is_terminal():
            return None
        seat = st.current_player()
        return seat if seat != TERMINAL and seat in self.agents else None

    def agent_step(self) -> bool:
        """Play one agent's move (the agent's own budget bounds its thinking, and ``agent_seconds`` with
        :data:`HARD_BUDGET_FACTOR` what it did not bound); False when no agent is to move. A move stopped by
        :meth:`cancel` is not played: WebError."""
        seat = self.agent_to_move()
        if seat is None:
            return False
        if self.cancelled.is_set():
            raise WebError("this table is closed: start a new game")
        st = self.state
        legal = st.legal_actions()
        name = self.agent_names.get(seat, "agent")
        rng = self.rngs[seat]
        if self.agent_seconds is not None:
            rng.deadline = time.monotonic() + HARD_BUDGET_FACTOR * self.agent_seconds
        try:
            action = self.agents[seat].step(st.observation(seat), legal, rng)
        except MoveStopped as stop:
            rng.deadline = None
            if stop.reason == "cancelled":
                raise WebError("this table is closed: start a new game") from None
            self.fallbacks[seat] = self.fallbacks.get(seat, 0) + 1
            action = legal[rng.randrange(len(legal))]  # the cheapest rule: a random legal move
        except (QuaternityError, ValueError) as err:
            raise WebError(f"the agent {name} in {self.seat_name(seat)} cannot move: {err}") from None
        finally:
            rng.deadline = None
        if action not in legal:
            raise WebError(f"the agent {name} in {self.seat_name(seat)} chose a move that is not legal")
        self._apply(seat, action)
        return True

    def advance(self) -> None:
        """Let the agents play until a person must decide or the game is over."""
        for _ in range(MAX_AGENT_STEPS):
            if not self.agent_step():
                return
        raise WebError(f"the agents made {MAX_AGENT_STEPS} moves without reaching a decision of a person")

    def act(self, text: Any, seat: Any = None) -> None:
        """Play the action ``text`` (the game's notation) for the person at ``seat`` (default: the only
        person); refused unless it is that seat's turn and the move is legal. Then, if the table plays
        its agents at once, they answer."""
        self._open()
        seat = self.person(seat)
        st = self.state
        if st.is_terminal():
            raise WebError("the game is over")
        if st.current_player() != seat:
            raise WebError("it is not your turn")
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_ACTION_TEXT:
            raise WebError("that is not a move: write it as in the records")
        try:
            action = st.string_to_action(text)
        except (QuaternityError, ValueError) as err:
            raise WebError(f"{text!r}: {err}") from None
        if action not in st.legal_actions():
            raise WebError(self.refusal(text) or f"{text!r} is not one of your legal moves now")
        self.marks.append((seat, self.applied))
        self._apply(seat, action)
        if self.auto:
            self.advance()

    def options_in_force(self) -> dict[str, Any]:
        """The table's options as played (the game's web part may say more than the options given: Go Fish's
        rule options as its rule set fixes them)."""
        shown = getattr(self.spec.part("web"), "options_in_force", None)
        return dict(shown(self)) if callable(shown) else dict(self.options)

    def refusal(self, text: str) -> str | None:
        """Why the move ``text`` of the seat on turn is refused, in the words of the game's own checker (the
        state's ``apply_action`` raises the checker's error, tried on a copy), or None when it is legal, not
        a move at all, or the game is over (:meth:`act` says so)."""
        st = self.state
        if st.is_terminal():
            return None
        try:
            action = st.string_to_action(text)
        except (QuaternityError, ValueError):
            return None
        if action in st.legal_actions():
            return None
        try:
            st.clone().apply_action(action)
        except (QuaternityError, ValueError) as err:
            return f"{text!r} is not legal now: {err}"
        return None

    def _last_mark(self, seat: int) -> tuple[int | None, str | None]:
        """(index in :attr:`marks` of ``seat``'s last action, or None; why it cannot be taken back, or None)."""
        mine = [i for i, (s, _) in enumerate(self.marks) if s == seat]
        if self.state.is_terminal():
            return (mine[-1] if mine else None), "the game is over: a finished game is final and cannot be taken back"
        if not mine:
            return None, "nothing to undo: you have not moved yet"
        later = [s for s, _ in self.marks[mine[-1] + 1:] if s != seat]
        if later:
            return mine[-1], (f"{self.seat_name(later[0])} has moved since your last move: "
                              "you can no longer take it back")
        refuse = getattr(self.spec.part("web"), "undo_refusal", None)
        reason = refuse(self, self.marks[mine[-1]][1]) if callable(refuse) else None
        if reason:  # taking it back would tell the seat what it could not know (e.g. a classic answer)
            return mine[-1], reason
        return mine[-1], None

    def can_undo(self, seat: Any = None) -> bool:
        """Whether :meth:`undo` would take something back for the person at ``seat``."""
        if self.closed:
            return False
        try:
            seat = self.person(seat)
        except WebError:
            return False
        return self._last_mark(seat)[1] is None

    def undo(self, seat: Any = None) -> None:
        """Take back the last action of the person at ``seat`` and the agents' moves after it; refused
        when another person has moved since, and when taking it back would let the seat learn what it
        could not know otherwise: the game's web part says so (``undo_refusal(table, applied)``, given
        the number of actions applied before the person's action; quartets: in classic every question
        is answered at once, and an answer seen and taken back would probe the deal card by card)."""
        self._open()
        seat = self.person(seat)
        index, reason = self._last_mark(seat)
        if reason is not None or index is None:
            raise WebError(reason or "nothing to undo")
        target = self.marks[index][1]
        del self.marks[index:]
        while self.applied > target:
            self.state.undo()
            self.applied -= 1
            self.log.pop()
        self._changed()

    def record(self, seat: Any = None) -> dict[str, Any]:
        """The game so far as a record that ``quaternity check`` accepts (``seat``: the seat asking, checked).

        What no seat may know stays out until the game is over (in classic Quartets, the deal): a record
        without it is checked as a public record is.
        """
        if seat is not None and seat != WATCH:
            self.seat(seat)
        data = self.state.record()
        if not self.state.is_terminal():
            data.pop("deal", None)
        return data

    def full_record(self) -> dict[str, Any]:
        """The record with everything the game state knows (the deal too): for the library, not a person."""
        return self.state.record()

    def memo(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()``, kept until the next change of the game (views of several seats share it)."""
        if self._memo_version != self.version:
            self._memo = {}
            self._memo_version = self.version
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    # -- what a seat sees ------------------------------------------------------------------
    def legal_texts(self, seat: Any = None) -> list[str]:
        """The moves open to ``seat`` now, in the game's notation ([] when it is not that seat's turn)."""
        seat = self.viewer(seat)
        st = self.state
        if st.is_terminal() or st.current_player() != seat:
            return []
        return [st.action_to_string(a) for a in st.legal_actions()]

    def view(self, seat: Any = None, *, probabilities: bool = False) -> dict[str, Any]:
        """Everything the page draws for ``seat`` (default: the only person), as JSON-ready data: the game's
        own view of what that seat may know (``kind``, ``title`` (the game played, in the page's header), ``svg``,
        ``setup``, ``players`` and the game's own
        keys), then what every game has:

        - ``game``, ``options``, ``agents`` (seat -> agent name), ``seat`` (the viewer; also as
          ``human``), ``humans``, ``names`` (per seat: "You", "Seat 1", "Seat 2 (knowledge)"),
          ``version``, ``over``, ``your_turn``, ``to_move``, ``scores``, ``returns`` (at the end),
          ``can_undo``, ``seat_label``, ``features``, ``rules`` (the address of the game's rules page,
          ``/games/<game>/<file>``: :func:`page_urls`);
        - ``status``: one plain sentence for the viewer (what to do, or whose turn it is, or who won);
        - ``log``: per move ``{"seat", "move" (notation), "text" (in words, from the viewer's side),
          "you"}``; the last entry may change once (an open question, then its answer);
        - ``table``: per seat ``{"seat", "name", "cards" (hand size, null where a game has none),
          "claimed" (set names), "score"}``; ``hand``: the viewer's own cards (classic), never another's;
        - ``legend``: ``{"mark", "meaning"}`` (and ``colour``) for the picture's marks;
        - at the end ``result``: ``{"winners", "outcome", "you_won", "text" (who won and why, the tie rule
          when it decides), "hands" (classic: every hand as dealt)}``; ``outcome`` is ``"won"``, ``"lost"``
          or ``"draw"`` (nobody won: a draw, a tie that nobody wins, a game stopped unfinished) and
          ``you_won`` true or false when somebody won, null when nobody did (:func:`outcome`).
        """
        seat = self.viewer(seat)
        self.touched = time.monotonic()
        spec = self.spec
        st = self.state
        try:
            data: dict[str, Any] = spec.part("web").view(self, seat, probabilities=bool(probabilities))
        except QuaternityError as err:
            raise WebError(str(err)) from None
        over = st.is_terminal()
        to_move = None if over else st.current_player()
        data.update({
            "game": self.game,
            "options": self.options_in_force(),
            "human": seat,
            "seat": seat,
            "humans": list(self.humans),
            "names": self.names(seat),
            "agents": {str(s): n for s, n in sorted(self.agent_names.items())},
            "version": self.version,
            "over": over,
            "your_turn": not over and to_move == seat,
            "to_move": to_move,
            "scores": list(st.scores()),
            "returns": list(st.returns()) if over else None,
            "can_undo": self.can_undo(seat),
            "seat_label": spec.seat_label,
            "features": features(spec),
            "rules": page_urls(spec).get("rules"),
        })
        data.setdefault("legend", [])
        if "status" not in data:
            data["status"] = ("Game over." if over else "Your turn." if to_move == seat
                              else f"{self.seat_name(int(to_move or 0), seat)} is to move.")
        if over:
            result = dict(data.get("result") or {})
            winners = result.get("winners")
            if winners is None:
                winners = [p for p, r in enumerate(st.returns()) if r > 0]
            result["winners"] = list(winners)
            result.update(outcome(seat, result["winners"]))
            result.setdefault("text", "Game over.")
            data["result"] = result
        else:
            data.pop("result", None)
        return data

    def explain(self, viewer: Any = None, *, card: Any = None, set_name: Any = None, seat: Any = None) -> list[str]:
        """Why a card is where ``viewer``'s view says (with ``seat``: why it is or is not with that seat), or
        why a set was claimed (games whose web view explains), as lines of text."""
        viewer = self.viewer(viewer)
        web = self.spec.part("web")
        if not hasattr(web, "explain"):
            raise WebError(f"{self.game} games have no explanations")
        for what, value in (("card", card), ("set", set_name)):
            if value is not None and (not isinstance(value, str) or not value or len(value) > MAX_NAME_TEXT):
                raise WebError(f"{what} must be a name like those in the picture, not {_show(value)}")
        if (card is None) == (set_name is None):
            raise WebError("say which card or which set to explain (one of them)")
        if seat is not None:
            seat = self.seat(seat)
        self.touched = time.monotonic()
        try:
            return list(web.explain(self, viewer, card=card, set_name=set_name, seat=seat))
        except (QuaternityError, ValueError) as err:
            raise WebError(str(err)) from None

    def verdict(self, viewer: Any = None) -> dict[str, Any]:
        """The exact solver's verdict on the position, in plain words (games whose web view has a solver).
        ``viewer``: the seat asking (default: the only person; None with several people names no "you")."""
        web = self.spec.part("web")
        if not hasattr(web, "verdict"):
            raise WebError(f"{self.game} games have no solver's verdict")
        if viewer is None:
            viewer = self.humans[0] if len(self.humans) == 1 else None
        else:
            viewer = self.seat(viewer)
        self.touched = time.monotonic()
        try:
            return dict(web.verdict(self, viewer))
        except (QuaternityError, ValueError) as err:
            raise WebError(str(err)) from None


__all__ = ["WebGame", "WebError", "WEB_LIMITS", "WebLimits", "web_limits", "checked_options", "catalogue",
           "features", "default_agent", "outcome", "web_games", "page_files", "page_file", "page_urls", "PAGE_ROLES"]

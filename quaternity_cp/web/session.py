"""One game at the web table: a person in one seat, agents in the others.

Everything goes through the narrow game interface (:mod:`quaternity_cp.games`):
the state is made by the registered game's factory, the agents are the
registered ones, moves are the state's actions and their notation. What the
page shows is the game's own web view (its registered ``web`` part, e.g.
:mod:`quaternity_cp.quartets.web`, :mod:`quaternity_cp.quarto.web`), computed
from the state's record and the person's seat; the setup a page offers (seats,
options, agents) is the game's metadata (:class:`~quaternity_cp.games.GameSpec`).
Nothing here knows a game, a rule or an agent by name.

>>> table = WebGame.new("quartets", {"preset": "quaternity", "players": 2, "sets": 2, "set_size": 2},
...                     human=0, agents={1: "random"}, seed=1)
>>> view = table.view()
>>> view["game"], view["your_turn"], "<svg" in view["svg"]
('quartets', True, True)
"""

from __future__ import annotations

import random
import secrets
from typing import Any, Hashable

from ..errors import QuaternityError
from ..games import TERMINAL, GameSpec, derive_seed, load_all

MAX_AGENT_STEPS = 20_000  # agent decisions in one go (classic games end long before)


class WebError(QuaternityError):
    """A request the table cannot honour (unknown game or agent, illegal action, nothing to undo)."""


def catalogue() -> dict[str, Any]:
    """The games the page can offer, each with its metadata (:meth:`GameSpec.to_json`): seats, options, agents.

    A game with an option ``preset`` also lists its choices as ``presets``.
    """
    out: dict[str, Any] = {}
    for name, spec in sorted(load_all().items()):
        out[name] = spec.to_json()
        preset = spec.option("preset")
        if preset is not None:
            out[name]["presets"] = list(preset.choices)
    return out


def features(spec: GameSpec) -> dict[str, bool]:
    """What the game's web view offers beyond the view: exact ``probabilities``, ``explain``, a solver's ``verdict``."""
    web = spec.part("web")
    return {"probabilities": bool(getattr(web, "PROBABILITIES", False)), "explain": hasattr(web, "explain"),
            "verdict": hasattr(web, "verdict")}


class WebGame:
    """A game in progress with one human seat; the other seats are played by agents."""

    def __init__(self, game: str, options: dict[str, Any], state, human: int, agents: dict[int, Any], seed: int):
        self.game = game
        self.options = options
        self.state = state
        self.human = human
        self.agents = agents  # seat -> Agent
        self.agent_names = {seat: getattr(a, "name", type(a).__name__) for seat, a in agents.items()}
        self.seed = seed
        self.rngs = {seat: random.Random(derive_seed(seed, seat)) for seat in agents}
        self.applied = 0  # actions applied to the state so far
        self.marks: list[int] = []  # `applied` before each human action (undo goes back there)
        self.log: list[tuple[int, str]] = []  # (seat, action text) of every action applied

    # -- making one ---------------------------------------------------------------------
    @classmethod
    def new(cls, game: str, options: dict[str, Any] | None = None, *, human: int = 0,
            agents: dict[int, str] | None = None, seed: int | None = None) -> "WebGame":
        games = load_all()
        if game not in games:
            raise WebError(f"unknown game {game!r} (known: {', '.join(sorted(games))})")
        spec = games[game]
        options = dict(options or {})
        seed = secrets.randbelow(2**31) if seed is None else int(seed)
        state = spec.new_state(seed, **options)
        players = state.num_players
        if not (isinstance(human, int) and 0 <= human < players):
            raise WebError(f"seat {human!r}: the game has seats 0 to {players - 1}")
        chosen = {int(k): v for k, v in (agents or {}).items()}
        names: dict[int, str] = {}
        for seat in range(players):
            if seat == human:
                continue
            name = chosen.get(seat) or default_agent(spec)
            if name not in spec.agents:
                raise WebError(f"unknown agent {name!r} for {game} (known: {', '.join(sorted(spec.agents))})")
            names[seat] = name
        table = cls(game, options, state, human, {seat: spec.agents[n]() for seat, n in names.items()}, seed)
        table.agent_names = names
        table.advance()
        return table

    # -- playing --------------------------------------------------------------------------
    def advance(self) -> None:
        """Let the agents play until the person must decide or the game is over."""
        st = self.state
        for _ in range(MAX_AGENT_STEPS):
            if st.is_terminal():
                return
            seat = st.current_player()
            if seat == self.human or seat == TERMINAL:
                return
            legal = st.legal_actions()
            action = self.agents[seat].step(st.observation(seat), legal, self.rngs[seat])
            self._apply(seat, action)
        raise WebError(f"the agents made {MAX_AGENT_STEPS} moves without reaching a decision of yours")

    def _apply(self, seat: int, action: Hashable) -> None:
        text = self.state.action_to_string(action)
        self.state.apply_action(action)
        self.applied += 1
        self.log.append((seat, text))

    def act(self, text: str) -> None:
        """Play the person's action, given in the game's notation, then let the agents answer."""
        st = self.state
        if st.is_terminal():
            raise WebError("the game is over")
        if st.current_player() != self.human:
            raise WebError("it is not your turn")
        try:
            action = st.string_to_action(text)
        except QuaternityError as err:
            raise WebError(f"{text!r}: {err}") from None
        legal = st.legal_actions()
        if action not in legal:
            raise WebError(f"{text!r} is not one of your legal moves now")
        self.marks.append(self.applied)
        self._apply(self.human, action)
        self.advance()

    def undo(self) -> None:
        """Take back the person's last action and everything the agents did after it."""
        if not self.marks:
            raise WebError("nothing to undo")
        target = self.marks.pop()
        while self.applied > target:
            self.state.undo()
            self.applied -= 1
            self.log.pop()

    def record(self) -> dict:
        """The game so far as a record that ``quaternity check`` accepts.

        In classic Quartets the deal (every hand) stays out until the game is
        over: a record without it is checked as a public record is.
        """
        data = self.state.record()
        if not self.state.is_terminal():
            data.pop("deal", None)
        return data

    def full_record(self) -> dict:
        """The record with everything the game state knows (the deal too): for the library, not the person."""
        return self.state.record()

    # -- what the page shows ------------------------------------------------------------
    def legal_texts(self) -> list[str]:
        st = self.state
        if st.is_terminal() or st.current_player() != self.human:
            return []
        return [st.action_to_string(a) for a in st.legal_actions()]

    @property
    def spec(self) -> GameSpec:
        """The registered game."""
        return load_all()[self.game]

    def view(self, *, probabilities: bool = False) -> dict[str, Any]:
        """Everything the page draws, as JSON-ready data: the game's own view, then what every game has."""
        data = self.spec.part("web").view(self, probabilities=probabilities)
        data.update({
            "game": self.game,
            "options": self.options,
            "human": self.human,
            "agents": {str(s): n for s, n in sorted(self.agent_names.items())},
            "seed": self.seed,
            "over": self.state.is_terminal(),
            "your_turn": not self.state.is_terminal() and self.state.current_player() == self.human,
            "to_move": None if self.state.is_terminal() else self.state.current_player(),
            "scores": list(self.state.scores()),
            "returns": list(self.state.returns()) if self.state.is_terminal() else None,
            "can_undo": bool(self.marks),
            "seat_label": self.spec.seat_label,
            "features": features(self.spec),
        })
        return data

    def explain(self, *, card: str | None = None, set_name: str | None = None, seat: int | None = None) -> list[str]:
        """Why a card is where the view says, or why a set was claimed (games whose web view explains)."""
        web = self.spec.part("web")
        if not hasattr(web, "explain"):
            raise WebError(f"{self.game} games have no explanations")
        return list(web.explain(self, card=card, set_name=set_name, seat=seat))

    def verdict(self) -> dict[str, Any]:
        """The exact solver's verdict on the position (games whose web view has a solver)."""
        web = self.spec.part("web")
        if not hasattr(web, "verdict"):
            raise WebError(f"{self.game} games have no solver's verdict")
        return dict(web.verdict(self))


def default_agent(spec: GameSpec) -> str:
    """The agent for a seat nobody chose: the game's default agent, else its first agent by name."""
    if spec.default_agent is not None and spec.default_agent in spec.agents:
        return spec.default_agent
    if not spec.agents:
        raise WebError(f"no agents are registered for {spec.name}")
    return sorted(spec.agents)[0]


__all__ = ["WebGame", "WebError", "catalogue", "features", "default_agent"]

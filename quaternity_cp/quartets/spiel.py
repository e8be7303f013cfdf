"""Quartets' OpenSpiel game ``python_quartets`` (every preset), registered by ``import quaternity_cp.spiel``.

The optional extra ``[spiel]`` (``pip install 'quaternity-cp[spiel]'``) installs OpenSpiel; nothing else
in the project imports it. The game adapts the project's one game interface
(:mod:`quaternity_cp.registry`): every rule is the project's, the states here only translate.

``python_quartets`` takes the options of the registry's ``quartets`` game (``preset``, ``players``,
``sets``, ``set_size``, with the registry's defaults), every rule option of
:class:`~quaternity_cp.quartets.rules.Rules` (a string option as text, ``""`` for the preset's value; a
yes/no option as ``1`` or ``0``, ``-1`` for the preset's value: OpenSpiel reads ``true`` as a bool,
which a parameter cannot also take as "unset") and ``max_moves``, the decisions after which a game
stops unfinished, nobody winning (OpenSpiel needs a finite game; the default is the classic game's
own limit, :data:`~quaternity_cp.quartets.state.MAX_QUESTIONS`)::

    pyspiel.load_game("python_quartets(preset=classic,players=3,sets=6,set_size=4,tie=shared)")

Chance is explicit:

- **classic** deals card by card: the chance node of card k has an outcome per seat (its id is the
  seat), with the exact probability that the seat holds card k among the deals that agree with the
  cards dealt before (:func:`quaternity_cp.quartets.knowledge.card_probabilities` of the start's constraint
  state, which also knows ``initial_quartets = false``): every deal comes out with the probability
  the project's shuffle gives it, and no node has more than P outcomes. Then the first player (P
  outcomes, uniform);
- in every preset, a free choice of who moves (``handover = fewest``) and a tie-break (``tie =
  random``) are chance nodes with the tied seats as outcomes, uniform, at the moment the state
  would draw them (the state's ``draw`` hook, :data:`~quaternity_cp.quartets.state.Draw`).

The **Quaternity presets** (``quaternity``, ``quaternity-seat``, ``blind``, ``pythagoras``) deal
nothing: the game is the consistency rule itself, played in public, so every seat's information
state is the public record. They are offered as games of perfect information with chance (the game
type says imperfect information, as it must for classic under one name): the information state of
every seat is the same, and :meth:`QuartetsState.resample_from_infostate` returns a copy.

Actions, tensors and strings are those of :class:`quaternity_cp.quartets.codec.QuartetsCodec` (information
state: the seat's dealt cards and the whole public record, perfect recall). A seat's strings and
tensors never hold another seat's cards (they are the same whatever the others hold) nor a seed: the
deal is chance nodes, and the project's state under it is made with seed 0.
:meth:`QuartetsState.resample_from_infostate` draws a state uniformly among those the seat cannot tell
apart, exactly: a deal of the seat's view (:func:`quaternity_cp.quartets.count.sample_deals`, what ``quaternity
count --sample`` draws), given back to the start by :func:`~quaternity_cp.quartets.state.deal_before`,
and the game's actions played again on it. OpenSpiel's sampler gives floats; four of them seed the
generator that draws the deal with exact big-integer choices (a ``random.Random`` is taken as it is).

This module is quartets' ``spiel`` part (:func:`quaternity_cp.spiel.register_games`).
"""

from __future__ import annotations

import random
from dataclasses import fields
from functools import lru_cache
from typing import Any

import pyspiel

from .constraints import Constraints
from .count import CountLimits, DealCounter
from ..encoding import Pieces
from ..errors import QuaternityError
from .game import Game
from ..registry import OptionError
from .knowledge import card_probabilities
from .rules import Rules
from ..spiel import Observer, register_game, sampler_rng
from . import SPEC as QUARTETS
from .codec import QuartetsCodec
from .state import MAX_QUESTIONS, deal_before
from .state import new_state as new_quartets

#: The counts behind a resample stay within these (the command line's default for ``count``).
SAMPLE_LIMITS = CountLimits(max_states=3_000_000)

#: Rule options as OpenSpiel parameters: name -> (type, the value meaning "the preset's").
RULE_PARAMETERS = {f.name: (str, "") if f.type in (str, "str") else (bool, -1) for f in fields(Rules)}

_QUARTETS_PARAMETERS: dict[str, Any] = {
    **{o.name: o.default for o in QUARTETS.options},
    **{name: unset for name, (_, unset) in RULE_PARAMETERS.items()},
    "max_moves": MAX_QUESTIONS,
}

GAME_TYPE = pyspiel.GameType(
    short_name="python_quartets",
    long_name="Python Quartets (quaternity-cp: Quaternity presets and classic Quartets)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=QUARTETS.max_players,
    min_num_players=QUARTETS.min_players,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_QUARTETS_PARAMETERS,
)

def rule_overrides(params: dict[str, Any]) -> dict[str, Any]:
    """The rule options a parameter dict sets (those not left at "the preset's value")."""
    out: dict[str, Any] = {}
    for name, (kind, unset) in RULE_PARAMETERS.items():
        value = params.get(name, unset)
        if value == unset and type(value) is type(unset):
            continue
        if kind is bool:
            if value not in (0, 1) or isinstance(value, bool):
                raise ValueError(f"rule option {name!r} is 1 or 0 (or -1: the preset's), not {value!r}")
            value = bool(value)
        out[name] = value
    return out


@lru_cache(maxsize=64)
def _counter(view: Constraints) -> DealCounter:
    return DealCounter(view, limits=SAMPLE_LIMITS)


def sample_deal(view: Constraints, rng: random.Random) -> dict[int, int]:
    """One uniformly drawn deal of ``view`` (card -> seat, the cards in play), exactly (the counter's
    tables are kept for the next draw of the same view)."""
    return _counter(view).sample(1, rng)[0]


class QuartetsSetup:
    """What a ``python_quartets`` game is, read from its parameters (checked): the project's options, the
    codec, the rules. Kept apart from the pyspiel object, which OpenSpiel copies without its Python
    attributes (a deserialized or unpickled game); :func:`quartets_setup` finds it again."""

    def __init__(self, params: dict[str, Any]):
        given = {**_QUARTETS_PARAMETERS, **params}
        self.preset = given["preset"]
        self.players, self.sets, self.set_size = given["players"], given["sets"], given["set_size"]
        self.max_moves = given["max_moves"]
        if isinstance(self.max_moves, bool) or not isinstance(self.max_moves, int) or self.max_moves < 1:
            raise ValueError(f"max_moves must be a whole number >= 1, not {self.max_moves!r}")
        self.overrides = rule_overrides(given)
        try:
            QUARTETS.check_options({k: given[k] for k in ("preset", "players", "sets", "set_size")}, bounds=False)
            probe = new_quartets(0, preset=self.preset, players=self.players, sets=self.sets,
                                 set_size=self.set_size, **self.overrides)
        except (QuaternityError, OptionError) as err:
            raise ValueError(str(err)) from None
        self.classic = self.preset == "classic"
        self.rules = probe.rules
        self.board = Game(self.players, self.sets, self.set_size)
        self.codec = QuartetsCodec(self.board, self.max_moves)

    def game_info(self) -> Any:
        P, C = self.players, self.board.cards
        chance = (C + 1 if self.classic else 0) + self.max_moves + 2  # the deal, the first, one per decision, end
        return pyspiel.GameInfo(num_distinct_actions=self.codec.num_actions, max_chance_outcomes=P, num_players=P,
                                min_utility=0.0, max_utility=1.0, utility_sum=None,
                                max_game_length=self.max_moves + chance)

    def start(self, draw: Any, dealt: list[int] | None = None, first: int | None = None) -> Any:
        """The project's state at the start (classic: with the deal ``dealt``, the seat of each card, and
        ``first``)."""
        extra: dict[str, Any] = {}
        if self.classic:
            extra["deal"] = {p: [c for c, seat in enumerate(dealt or []) if seat == p] for p in range(self.players)}
            extra["first"] = first
        return new_quartets(0, preset=self.preset, players=self.players, sets=self.sets, set_size=self.set_size,
                            draw=draw, **extra, **self.overrides)

    def deal_view(self, dealt: list[int], seat: int | None = None) -> Constraints:
        """The deals that agree with the first cards dealt (``dealt``: their seats); with ``seat``, with only
        what ``seat`` saw of them (which of them are its own)."""
        c = Constraints.initial(self.players, self.sets, self.set_size, self.rules.initial_quartets)
        everyone = (1 << self.players) - 1
        for card, owner in enumerate(dealt):
            if seat is None:
                c = c.restrict(card, 1 << owner)
            else:
                c = c.restrict(card, 1 << seat if owner == seat else everyone & ~(1 << seat))
        return c


@lru_cache(maxsize=64)
def _setup(key: tuple) -> QuartetsSetup:
    return QuartetsSetup(dict(key))


def quartets_setup(game: Any) -> QuartetsSetup:
    """The setup of a ``python_quartets`` game object (made once per parameters)."""
    return _setup(tuple(sorted(game.get_parameters().items())))


class QuartetsGame(pyspiel.Game):
    """The game ``python_quartets`` (see the module's docstring)."""

    def __init__(self, params: dict[str, Any] | None = None):
        setup = QuartetsSetup(params or {})
        super().__init__(GAME_TYPE, setup.game_info(), params or {})

    def new_initial_state(self) -> "QuartetsState":
        return QuartetsState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        codec = quartets_setup(self).codec
        return Observer(codec.info_pieces, codec.observation_pieces, ("hand", "dealt", "may_hold"), iig_obs_type,
                         params)


class _Play:
    """The mutable part of a :class:`QuartetsState`, copied cheaply when OpenSpiel clones the state."""

    def __init__(self, game: QuartetsSetup):
        self.game = game
        self.dealt: list[int] = []  # classic: the seat of each card dealt so far, in card order
        self.first: int | None = None
        self._inner: Any = None  # the project's state, once it exists (made on first use: see inner)
        self.pending: tuple[Any, list[int], str, list[int]] | None = None  # (move, outcomes, kind, choices)
        self.decisions = 0
        self.legal: dict[int, Any] | None = None

    def __deepcopy__(self, memo: dict) -> "_Play":
        other = object.__new__(_Play)
        other.__dict__.update(self.__dict__)
        other.dealt = list(self.dealt)
        other._inner = None if self._inner is None else self._inner.clone()
        other.pending = None if self.pending is None else (self.pending[0], list(self.pending[1]),
                                                           self.pending[2], list(self.pending[3]))
        return other

    @property
    def inner(self) -> Any:
        """The project's state: None during a classic deal and while the start waits for a chance outcome;
        made on first use otherwise (OpenSpiel makes a fresh state for every copy it takes)."""
        if self._inner is None and self.pending is None and not self.game.classic:
            self.settle(None, [])
        return self._inner

    def settle(self, move: Any, outcomes: list[int]) -> None:
        """Apply ``move`` (None: make the state) to the project's state, its chance events settled by
        ``outcomes`` in order; one more event needed makes a chance node (the move waits, not applied)."""
        served = iter(outcomes)
        need: list[tuple[str, list[int]]] = []

        def draw(kind: str, at: int, choices: Any) -> int:
            for seat in served:
                return int(seat)
            need.append((kind, list(choices)))
            return int(choices[0])

        if move is None:
            inner = self.game.start(draw, self.dealt, self.first)
        else:
            inner = self._inner
            inner.draw = draw
            inner.apply_action(move)
        inner.draw = None
        self.legal = None
        if need:
            if move is not None:
                inner.undo()
            self.pending = (move, outcomes, need[0][0], need[0][1])
            return
        self._inner = inner
        self.pending = None

    def over(self) -> bool:
        return self.inner.is_terminal() or self.decisions >= self.game.max_moves

    def public(self) -> Any:
        """The project's state as the seats see it: while a move waits for a chance outcome, the move made
        with any outcome (its answer and put-downs are public already; the outcome is not used)."""
        if self.pending is None or self.pending[0] is None:
            return self.inner
        move, outcomes, _, _ = self.pending
        served = iter(outcomes)
        probe = self.inner.clone()
        probe.draw = lambda kind, at, choices: next(served, choices[0])
        probe.apply_action(move)
        probe.draw = None
        return probe


class QuartetsState(pyspiel.State):
    """A state of ``python_quartets``: the project's state, the classic deal before it exists, and the chance
    node of a move that waits for a hand-over or a tie-break."""

    def __init__(self, game: QuartetsGame):
        super().__init__(game)
        self._play = _Play(quartets_setup(game))

    # -- whose turn --------------------------------------------------------------------------
    def current_player(self) -> int:
        play = self._play
        if play.pending is not None or play.inner is None:
            return int(pyspiel.PlayerId.CHANCE)
        if play.over():
            return int(pyspiel.PlayerId.TERMINAL)
        return int(play.inner.current_player())

    def is_terminal(self) -> bool:
        play = self._play
        return play.pending is None and play.inner is not None and play.over()

    def _legal(self) -> dict[int, Any]:
        play = self._play
        if play.legal is None:
            play.legal = play.game.codec.legal(play.inner.legal_actions())
        return play.legal

    def _legal_actions(self, player: int) -> list[int]:
        if self.is_terminal() or player != self.current_player():
            return []
        return sorted(self._legal())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        play = self._play
        game = play.game
        if play.pending is not None:
            choices = sorted(play.pending[3])
            return [(seat, 1.0 / len(choices)) for seat in choices]
        if play.inner is not None:
            raise ValueError("not a chance node")
        if len(play.dealt) < game.board.cards:
            card = len(play.dealt)
            probabilities = card_probabilities(game.deal_view(play.dealt))[card]
            return [(seat, float(probabilities[seat])) for seat in sorted(probabilities)]
        return [(seat, 1.0 / game.players) for seat in range(game.players)]

    # -- moves -----------------------------------------------------------------------------
    def _apply_action(self, action: int) -> None:
        play = self._play
        if self.is_chance_node():
            if action not in {seat for seat, _ in self.chance_outcomes()}:
                raise ValueError(f"{action} is not a chance outcome here")
            if play.pending is not None:
                move, outcomes, _, _ = play.pending
                play.settle(move, outcomes + [action])
            elif len(play.dealt) < play.game.board.cards:
                play.dealt.append(action)
            else:
                play.first = action
                play.settle(None, [])
            return
        move = self._legal().get(action)
        if move is None:
            raise ValueError(f"{action} is not a legal action here")
        play.decisions += 1
        play.settle(move, [])

    def _action_to_string(self, player: int, action: int) -> str:
        play = self._play
        game = play.game
        if player == pyspiel.PlayerId.CHANCE:
            if play.pending is not None:
                return f"{play.pending[2].replace('_', '-')}: seat {action}"
            if play.inner is None and len(play.dealt) < game.board.cards:
                return f"deal {game.board.card_name(len(play.dealt))} to seat {action}"
            return f"first: seat {action}"
        if play.inner is not None and player == self.current_player():
            move = self._legal().get(action)
            if move is not None:
                return str(game.board.move_str(move))
        return game.codec.action_text(player, action)

    def returns(self) -> list[float]:
        play = self._play
        if not self.is_terminal():
            return [0.0] * play.game.players
        if play.inner.is_terminal():
            return [float(x) for x in play.inner.returns()]
        return [0.0] * play.game.players  # stopped after max_moves: unfinished, nobody wins

    def __str__(self) -> str:
        play = self._play
        game = play.game
        parts = []
        if game.classic:
            parts.append("deal " + " | ".join(
                f"{p}: {game.codec.cards_text(c for c, seat in enumerate(play.dealt) if seat == p)}"
                for p in range(game.players)))
            if play.first is not None:
                parts.append(f"first {play.first}")
        if play.inner is not None:
            record = play.inner.record()
            parts.append("moves " + (" ".join(record["moves"]) or "-"))
            if record.get("tie_break") is not None:
                parts.append(f"tie-break {record['tie_break']}")
        if play.pending is not None:
            move = play.pending[0]
            parts.append(f"waiting: {'start' if move is None else game.board.move_str(move)}")
        return "; ".join(parts)

    # -- what a seat sees ----------------------------------------------------------------------
    def pieces(self, perfect_recall: bool) -> Pieces:
        codec = self._play.game.codec
        return codec.info_pieces if perfect_recall else codec.observation_pieces

    def _seen(self, player: int) -> dict[str, Any]:
        """What ``player`` has seen, as keyword arguments of the codec."""
        play = self._play
        game = play.game
        if not 0 <= player < game.players:
            raise ValueError(f"no seat {player}")
        mine = [c for c, seat in enumerate(play.dealt) if seat == player]
        if play.inner is None:
            return {"dealt": mine, "dealing": len(play.dealt), "first": play.first, "moves": (), "hand": mine,
                    "turn": -1, "tie_break": None, "obs": None}
        seen = play.public()
        obs = seen.observation(player)
        ties = [o.outcome for o in seen.chance if o.kind == "tie_break"] if play.pending is None else []
        return {"dealt": mine if game.classic else None, "dealing": len(play.dealt),
                "first": play.first, "moves": obs.moves, "hand": obs.hand, "obs": obs,
                "turn": -1 if play.pending is not None or play.over() else obs.turn,
                "tie_break": ties[-1] if ties else None}

    def ones(self, player: int, perfect_recall: bool) -> list[int]:
        """The 1s of the seat's information state (perfect recall) or observation tensor."""
        seen = self._seen(player)
        codec = self._play.game.codec
        if perfect_recall:
            return codec.info_ones(player, dealt=seen["dealt"] or (), dealing=seen["dealing"], first=seen["first"],
                                   turn=seen["turn"], tie_break=seen["tie_break"], moves=seen["moves"])
        obs = seen["obs"]
        if obs is None:
            return codec.observation_ones(player, hand=seen["hand"])
        return codec.view_ones(obs, seen["turn"])

    def text(self, player: int, perfect_recall: bool, private: bool = True) -> str:
        """The seat's information state (perfect recall) or observation as one line (``private``: with its cards)."""
        seen = self._seen(player)
        play = self._play
        codec = play.game.codec
        if perfect_recall:
            return codec.info_text(player, dealt=seen["dealt"] if private else None,
                                   dealing=seen["dealing"] if play.game.classic else None, first=seen["first"],
                                   turn=seen["turn"], tie_break=seen["tie_break"], moves=seen["moves"])
        obs = seen["obs"]
        if obs is None:
            return codec.observation_text(player, hand=seen["hand"] if private else None)
        return codec.view_text(obs, seen["turn"], private)

    def project_state(self) -> Any:
        """A copy of the project's state (:class:`~quaternity_cp.registry.GameState`), None during the deal."""
        inner = self._play.inner
        return None if inner is None else inner.clone()

    # -- resampling ------------------------------------------------------------------------------
    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> "QuartetsState":
        """A state drawn uniformly among those ``player_id`` cannot tell from this one (the same actions,
        another deal that agrees with all it saw), exactly (see the module's docstring)."""
        play = self._play
        game = play.game
        if not game.classic:
            return self.clone()
        rng = sampler_rng(probability_sampler)
        C = game.board.cards
        if play.inner is None:
            drawn = sample_deal(game.deal_view(play.dealt, player_id), rng)
            seats = [drawn[c] for c in range(len(play.dealt))]
        else:
            obs = play.public().observation(player_id)
            deal = deal_before(game.board, obs.moves, sample_deal(obs.private_constraints(), rng))
            owner = {c: p for p, cards in deal.items() for c in cards}
            seats = [owner[c] for c in range(C)]
        other = self.get_game().new_initial_state()
        for action in seats + list(self.history())[len(seats):]:
            other.apply_action(action)
        return other


register_game(GAME_TYPE, QuartetsGame)

__all__ = ["GAME_TYPE", "QuartetsGame", "QuartetsState", "QuartetsSetup", "quartets_setup", "RULE_PARAMETERS",
           "SAMPLE_LIMITS", "rule_overrides", "sample_deal"]

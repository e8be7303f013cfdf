"""OpenSpiel games of the registered games: ``import quaternity_cp.spiel`` registers each game's OpenSpiel game.

The optional extra ``[spiel]`` (``pip install 'quaternity-cp[spiel]'``) installs OpenSpiel; nothing else
in the project imports it. Each game's package holds its OpenSpiel game and names the module in its
registration's ``spiel`` part (quartets: ``python_quartets``, every preset, with an explicit deal and
exact resampling, :mod:`quaternity_cp.quartets.spiel`; Quarto: ``python_quarto``,
:mod:`quaternity_cp.quarto.spiel`; Quantum Go Fish: ``python_gofish``, :mod:`quaternity_cp.gofish.spiel`).
Importing this module imports every registered game's ``spiel``
part, and each registers its game with pyspiel through :func:`register_game`::

    import pyspiel
    import quaternity_cp.spiel
    pyspiel.load_game("python_quartets(preset=classic,players=3,sets=6,set_size=4,tie=shared)")

Every game adapts the project's one game interface (:mod:`quaternity_cp.registry`): every rule is the
project's, the states here only translate; actions, tensors and strings are those of the game's
``codec`` part (:mod:`quaternity_cp.encoding`). A seat's strings and tensors never hold another seat's
private information nor a seed. Serialization is OpenSpiel's own (the actions so far, played again), so
``pyspiel.serialize_game_and_state`` and pickling work.

Shared here: the observer over a state's ``ones`` and ``text`` (:class:`Observer`), exact draws from
OpenSpiel's sampler (:func:`sampler_rng`), and :class:`PerfectInformationGame`, the whole OpenSpiel game
of a registered game of perfect information without chance (Quarto's, Go Fish's and the docs'
tic-tac-toe are a subclass each). A name of a game's OpenSpiel module stays importable from here (``from
quaternity_cp.spiel import QuartetsGame``): a name this module lacks is looked up in the registered
games' ``spiel`` parts. A game registered after this module was imported is offered by calling
:func:`register_games` again.
"""

from __future__ import annotations

import importlib
import random
from functools import lru_cache
from typing import Any

import numpy as np
import pyspiel

from .encoding import Pieces, offsets, size
from .registry import TERMINAL, OptionError, load_all


def sampler_rng(sampler: Any) -> random.Random:
    """A generator for exact draws from OpenSpiel's ``probability_sampler`` (a callable giving floats in
    [0, 1): four of them, 32 bits each, seed it), or ``sampler`` itself when it is a ``random.Random``."""
    if isinstance(sampler, random.Random):
        return sampler
    seed = 0
    for _ in range(4):
        seed = (seed << 32) | min(int(float(sampler()) * 2**32), 2**32 - 1)
    return random.Random(seed)


class Observer:
    """OpenSpiel's observer interface (``tensor``, ``dict``, ``set_from``, ``string_from``) over a state's
    ``ones`` and ``text``: the information state (perfect recall) or the observation, with the seat's own
    private information or none (``private``: the pieces that hold it)."""

    def __init__(self, perfect: Pieces, current: Pieces, private: tuple[str, ...], iig_obs_type: Any, params: Any):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        kind = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        if not kind.public_info or kind.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("observations are offered with public information and the seat's own (or no) private one")
        self.perfect_recall = bool(kind.perfect_recall)
        self.private = kind.private_info != pyspiel.PrivateInfoType.NONE
        full = perfect if self.perfect_recall else current
        kept = [p for p in full if self.private or p[0] not in private]
        self.tensor = np.zeros(size(kept), np.float32)
        self.dict = {}
        at, full_at = offsets(kept), offsets(full)
        self._index = np.full(size(full), -1, np.int64)  # a position of the full tensor -> of this one
        for name, shape in kept:
            n = size([(name, shape)])
            self.dict[name] = self.tensor[at[name]:at[name] + n].reshape(shape)
            self._index[full_at[name]:full_at[name] + n] = np.arange(at[name], at[name] + n)

    def set_from(self, state: Any, player: int) -> None:
        self.tensor.fill(0)
        index = self._index[state.ones(player, self.perfect_recall)]
        self.tensor[index[index >= 0]] = 1

    def string_from(self, state: Any, player: int) -> str:
        return str(state.text(player, self.perfect_recall, self.private))


_Observer = Observer  # the name the games' modules used before


# -- a game of perfect information without chance ---------------------------------------------
@lru_cache(maxsize=64)
def _codec(game: str, params: tuple) -> Any:
    spec = load_all()[game]
    return spec.part("codec")(spec.new_state(0, **dict(params)), None)


@lru_cache(maxsize=64)
def _players(game: str, params: tuple) -> int:
    """The seats of a game with these options (a game's players option, when it has one, sets them)."""
    return int(load_all()[game].new_state(0, **dict(params)).num_players)


def perfect_information_type(short_name: str, long_name: str, spec: Any) -> Any:
    """The ``pyspiel.GameType`` of a registered game of perfect information without chance: sequential,
    deterministic, constant-sum, rewarded at the end, with every string and tensor, its seats those of the
    registration ``spec`` and its parameters the registry's options (their defaults)."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=spec.default_options(),
    )


class PerfectInformationGame(pyspiel.Game):
    """The OpenSpiel game of a registered game of perfect information without chance, its seats those of
    a new state with the game's parameters (two for Quarto), its win shared after a draw (returns sum to
    1). A game's ``spiel`` part subclasses it, setting ``game_name`` (the registry's name), ``game_type``
    (its ``pyspiel.GameType``, whose parameters are the game's options) and ``state_class`` (a subclass
    of :class:`PerfectInformationState`); its codec part must give ``state_ones``/``state_text`` with
    ``perfect_recall`` (see :func:`quaternity_cp.encoding.codec`).
    """

    game_name = ""
    game_type: Any = None
    state_class: Any = None

    def __init__(self, params: dict[str, Any] | None = None):
        spec = load_all()[self.game_name]
        given = {**spec.default_options(), **self.options(params or {})}
        try:
            spec.check_options(given)
        except OptionError as err:
            raise ValueError(str(err)) from None
        key = tuple(sorted(given.items()))
        codec = _codec(self.game_name, key)
        info = pyspiel.GameInfo(num_distinct_actions=codec.num_actions, max_chance_outcomes=0,
                                num_players=_players(self.game_name, key), min_utility=0.0, max_utility=1.0,
                                utility_sum=1.0,
                                max_game_length=codec.rows)
        super().__init__(self.game_type, info, params or {})

    @classmethod
    def options(cls, params: Any) -> dict[str, Any]:
        """The registry's options of OpenSpiel parameters (the same by default; a game whose option values
        cannot be written in an OpenSpiel game string translates them here, raising ValueError)."""
        return dict(params)

    def new_initial_state(self) -> Any:
        return (self.state_class or PerfectInformationState)(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        codec = _codec(self.game_name, tuple(sorted({**load_all()[self.game_name].default_options(),
                                                     **self.options(self.get_parameters())}.items())))
        return Observer(codec.info_pieces, codec.observation_pieces, (), iig_obs_type, params)


class _PlainPlay:
    """The project's state and its codec (copied cheaply when OpenSpiel clones the state)."""

    def __init__(self, game: str, options: dict[str, Any]):
        spec = load_all()[game]
        options = {**spec.default_options(), **options}
        self.inner = spec.new_state(0, **options)
        self.codec = _codec(game, tuple(sorted(options.items())))

    def __deepcopy__(self, memo: dict) -> "_PlainPlay":
        other = object.__new__(_PlainPlay)
        other.inner = self.inner.clone()
        other.codec = self.codec
        return other


class PerfectInformationState(pyspiel.State):
    """A state of a :class:`PerfectInformationGame`: the project's state, translated by the game's codec."""

    def __init__(self, game: PerfectInformationGame):
        super().__init__(game)
        self._play = _PlainPlay(type(game).game_name, game.options(game.get_parameters()))

    def current_player(self) -> int:
        player = self._play.inner.current_player()
        return int(pyspiel.PlayerId.TERMINAL) if player == TERMINAL else int(player)

    def is_terminal(self) -> bool:
        return bool(self._play.inner.is_terminal())

    def _legal_actions(self, player: int) -> list[int]:
        if self.is_terminal() or player != self.current_player():
            return []
        return sorted(self._play.codec.legal(self._play.inner.legal_actions()))

    def _apply_action(self, action: int) -> None:
        legal = self._play.codec.legal(self._play.inner.legal_actions())
        if action not in legal:
            raise ValueError(f"{action} is not a legal action here")
        self._play.inner.apply_action(legal[action])

    def _action_to_string(self, player: int, action: int) -> str:
        return str(self._play.codec.action_text(player, action))

    def returns(self) -> list[float]:
        return [float(x) for x in self._play.inner.returns()]

    def __str__(self) -> str:
        return " ".join(self._play.inner.record()["moves"]) or "-"

    def pieces(self, perfect_recall: bool) -> Pieces:
        codec = self._play.codec
        return codec.info_pieces if perfect_recall else codec.observation_pieces

    def ones(self, player: int, perfect_recall: bool) -> list[int]:
        return list(self._play.codec.state_ones(self._play.inner, player, perfect_recall))

    def text(self, player: int, perfect_recall: bool, private: bool = True) -> str:
        return str(self._play.codec.state_text(self._play.inner, player, perfect_recall))

    def project_state(self) -> Any:
        """A copy of the project's state."""
        return self._play.inner.clone()


# -- the registry ---------------------------------------------------------------------------
def register_game(game_type: Any, game_class: Any) -> None:
    """Register an OpenSpiel game with pyspiel, once (a game's ``spiel`` module calls it when imported)."""
    if game_type.short_name not in pyspiel.registered_names():
        pyspiel.register_game(game_type, game_class)


def _spiel_modules() -> list[Any]:
    return [importlib.import_module(spec.parts["spiel"].partition(":")[0])
            for spec in load_all().values() if "spiel" in spec.parts]


def register_games() -> list[str]:
    """Import every registered game's ``spiel`` part; the OpenSpiel names registered by this project's games.

    A game's ``spiel`` part is a module (``"package.module"``) that, imported, builds its OpenSpiel game
    (a ``pyspiel.Game`` subclass, usually of :class:`PerfectInformationGame`, its states answering
    ``ones``/``text``/``pieces`` for :class:`Observer` and ``project_state()``) and calls
    :func:`register_game`; it lists its public names in ``__all__`` (they become importable from here).
    """
    return [getattr(module, "GAME_TYPE").short_name for module in _spiel_modules() if hasattr(module, "GAME_TYPE")]


def __getattr__(name: str) -> Any:
    """A public name of one registered game's OpenSpiel module (its own module is where to import it from; see
    :func:`quaternity_cp.registry.part_name`: warned, and refused when two games define it)."""
    from .registry import part_name

    return part_name("spiel", name, __name__)


register_games()

__all__ = ["perfect_information_type", "Observer", "PerfectInformationGame", "PerfectInformationState", "register_game", "register_games",
           "sampler_rng"]

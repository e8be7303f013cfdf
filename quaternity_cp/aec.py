"""A PettingZoo AEC environment for every registered game with a ``codec`` part (quartets, Quarto, Go Fish).

The optional extra ``[pettingzoo]`` installs PettingZoo (and Gymnasium, numpy); nothing else in the
project imports it, and OpenSpiel is not needed. The environment drives the project's state through
the one game interface (:mod:`quaternity_cp.registry`): every rule is the game's. Its numbers are those
of the OpenSpiel bridge (the game's ``codec`` part, :func:`quaternity_cp.encoding.codec`): an action is a whole number
(``Discrete(num_actions)``) and each agent observes a dict with ``"observation"`` (the 0/1 vector of
the seat's observation: its hand, hand sizes, claims, turn, the seats that may hold each card in its
view, the last move; Quarto: the board; Go Fish: every cell's range) and ``"action_mask"`` (1 for each legal action of the agent
on turn, all 0 for the others).

>>> env = GameEnv(preset="classic", players=3, sets=6, set_size=4)
>>> env.reset(seed=1)
>>> agent = env.agent_selection
>>> observation, reward, termination, truncation, info = env.last()
>>> int(observation["action_mask"].sum()) > 0, int(env.action_space(agent).n)
(True, 80)

Chance (the deal, the first player, a hand-over among tied seats, a tie-break) is drawn by the game
state from the game's seed: ``reset(seed=s)`` plays the game of seed ``derive_seed(s)``, so a seed
gives the same game every time; without one the next game's seed comes from the environment's own
generator. What an agent observes (and its ``infos``, empty) never holds the game's seed or another
seat's hand: it is the same whatever the others hold. A game stops after ``max_moves`` decisions
(truncated, nobody rewarded; by default the bound the game's codec gives, quartets: the classic game's
own limit); at the end each agent's reward is its share of the win (1/k to each of
k winners).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .encoding import size
from .registry import DEFAULT_GAME, TERMINAL, derive_seed, load_all


RENDER_MODES = ("ansi",)


class GameEnv(AECEnv):
    """The AEC environment of a registered game (``game``, the registry's default game by default) with its
    ``options``; the game's ``codec`` part numbers its actions and observations (see
    :func:`quaternity_cp.encoding.codec`: ``num_actions``, ``observation_pieces``, ``legal`` and
    ``state_ones(state, seat)`` are used here)."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "quaternity_v0", "is_parallelizable": False}

    def __init__(self, game: str = DEFAULT_GAME, *, render_mode: str | None = None, max_moves: int | None = None,
                 **options: Any):
        super().__init__()
        spec = load_all().get(game)
        if spec is None:
            raise ValueError(f"unknown game {game!r} (known: {', '.join(sorted(load_all()))})")
        spec.check_options(options, bounds=False)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)}, not {render_mode!r}")
        if max_moves is not None and (isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 1):
            raise ValueError(f"max_moves must be a whole number >= 1, not {max_moves!r}")
        if "codec" not in spec.parts:
            raise ValueError(f"the game {game!r} has no codec part: it offers no numbered actions")
        self.game_spec = spec
        self.options = dict(options)
        self.render_mode = render_mode
        probe = spec.new_state(0, **options)  # the game checks its own options here
        self.codec: Any = spec.part("codec")(probe, max_moves)
        self.max_moves = int(self.codec.max_moves if max_moves is None else max_moves)
        seats = probe.num_players
        self.possible_agents = [f"{spec.seat_label}_{p}" for p in range(seats)]
        self.agents = list(self.possible_agents)
        n = size(self.codec.observation_pieces)
        self._observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0, 1, (n,), np.int8),
            "action_mask": spaces.Box(0, 1, (self.codec.num_actions,), np.int8),
        }) for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(self.codec.num_actions) for a in self.possible_agents}
        self._generator = random.Random()
        self.game_state: Any = None
        self.decisions = 0
        self._legal: dict[int, Any] = {}

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    # -- the game ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._generator = random.Random(seed)
            game_seed = derive_seed(seed)
        else:
            game_seed = self._generator.getrandbits(63)
        self.game_state = self.game_spec.new_state(game_seed, **self.options)
        self.decisions = 0
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._turn()
        if self.game_state.is_terminal():  # a game over at the deal (every set put down at once)
            self._finish()

    def _turn(self) -> None:
        player = self.game_state.current_player()
        if player != TERMINAL:
            self.agent_selection = self.possible_agents[player]
            self._legal = self.codec.legal(self.game_state.legal_actions())

    def _finish(self) -> None:
        for agent, share in zip(self.possible_agents, self.game_state.returns()):
            self.rewards[agent] = float(share)
        self.terminations = dict.fromkeys(self.agents, True)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        move = self._legal.get(int(action)) if action is not None else None
        if move is None:
            raise ValueError(f"action {action!r} is not legal for {agent} (see the action mask)")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.game_state.apply_action(move)
        self.decisions += 1
        if self.game_state.is_terminal():
            self._finish()
        elif self.decisions >= self.max_moves:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self._turn()
        self._accumulate_rewards()

    # -- what an agent sees ---------------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        vector = np.zeros(size(self.codec.observation_pieces), np.int8)
        vector[self.codec.state_ones(self.game_state, seat)] = 1
        mask = np.zeros(self.codec.num_actions, np.int8)
        if agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent]):
            mask[list(self._legal)] = 1
        return {"observation": vector, "action_mask": mask}

    def render(self) -> str | None:
        if self.render_mode is None or self.game_state is None:
            return None
        return " ".join(str(m) for m in self.game_state.record()["moves"]) or "-"

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> GameEnv:
    """The environment, as PettingZoo's ``env()`` convention has it (the keywords of :class:`GameEnv`)."""
    return GameEnv(**kwargs)


def __getattr__(name: str) -> Any:
    """``QuartetsEnv``: :class:`GameEnv`'s first name (it served every game), for one more release, warned."""
    if name == "QuartetsEnv":
        import warnings

        warnings.warn("quaternity_cp.aec.QuartetsEnv is GameEnv (the environment of every game); the old name goes "
                      "away in the next release", DeprecationWarning, stacklevel=2)
        return GameEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["GameEnv", "env"]

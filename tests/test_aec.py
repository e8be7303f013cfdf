"""The PettingZoo bridge: PettingZoo's API and seed tests, and the masks and observations against the game."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402

from quaternity_cp.aec import GameEnv  # noqa: E402
from quaternity_cp.registry import derive_seed, load_all  # noqa: E402

GAMES = [
    {"preset": "classic", "players": 3, "sets": 6, "set_size": 4},
    {"preset": "classic", "players": 4, "sets": 3, "set_size": 4, "tie": "shared"},
    {"preset": "quaternity", "players": 3, "sets": 2, "set_size": 3},
    {"preset": "blind", "players": 2, "sets": 2, "set_size": 2},
    {"game": "quarto"},
]


@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize("options", GAMES)
def test_pettingzoo_api_and_seed_tests(options):
    api_test(GameEnv(**options), num_cycles=200, verbose_progress=False)
    seed_test(lambda: GameEnv(**options), num_cycles=50)


@pytest.mark.parametrize("options", GAMES[:1] + GAMES[2:3] + GAMES[4:])
def test_a_game_played_through_the_environment_is_the_game_of_its_seed(options):
    """The mask is exactly the legal actions, the observation changes with the game, and the rewards at the
    end are the returns of the same game played on the project's state."""
    env = GameEnv(**options)
    env.reset(seed=4)
    game = options.get("game", "quartets")
    spec = load_all()[game]
    state = spec.new_state(derive_seed(4), **{k: v for k, v in options.items() if k != "game"})
    rng = random.Random(0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        assert agent == env.possible_agents[state.current_player()]
        mask = observation["action_mask"]
        legal = env.codec.legal(state.legal_actions())
        assert sorted(int(i) for i in mask.nonzero()[0]) == sorted(legal)
        action = rng.choice(sorted(legal))
        state.apply_action(legal[action])
        env.step(action)
    assert state.is_terminal()
    assert [totals[a] for a in env.possible_agents] == pytest.approx(state.returns())


def test_bad_options_and_illegal_actions_are_refused():
    with pytest.raises(Exception, match="option"):
        GameEnv(players="three")
    with pytest.raises(ValueError, match="unknown game"):
        GameEnv(game="chess")
    env = GameEnv(preset="classic", players=3, sets=3, set_size=2)
    env.reset(seed=1)
    observation = env.observe(env.agent_selection)
    illegal = int((observation["action_mask"] == 0).nonzero()[0][0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(illegal)


def test_truncation_after_max_moves():
    env = GameEnv(preset="classic", players=3, sets=6, set_size=4, max_moves=3)
    env.reset(seed=2)
    steps = 0
    masks_after = []
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            assert truncation and not termination
            # a truncated agent has no legal action: its mask is all 0, also the last mover's (still selected,
            # whose legal actions of before the last move the environment still holds)
            masks_after.append((agent, int(observation["action_mask"].sum()),
                                {a: int(env.observe(a)["action_mask"].sum()) for a in env.agents}))
            env.step(None)
            continue
        assert observation["action_mask"].sum() > 0
        env.step(int(observation["action_mask"].nonzero()[0][0]))
        steps += 1
        last_mover = agent
    assert steps == 3
    assert len(masks_after) == 3 and masks_after[0][0] == last_mover  # the last mover comes first
    assert all(own == 0 and not any(others.values()) for _, own, others in masks_after), masks_after


def test_the_old_name_of_the_environment_is_warned():
    """``QuartetsEnv`` was the environment of every game under the first game's name (issue 40): it is
    :class:`GameEnv`, kept one release with a warning."""
    import quaternity_cp.aec as aec

    with pytest.warns(DeprecationWarning, match="GameEnv"):
        assert aec.QuartetsEnv is aec.GameEnv

"""Quantum Go Fish through the research bridges: its codec (action ids and tensors), the OpenSpiel game
``python_gofish`` (OpenSpiel's own checks, the returns of the project's state) and the PettingZoo environment."""

from __future__ import annotations

import math
import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quaternity_cp.encoding import offsets, size
from quaternity_cp.registry import TERMINAL, load_all
from quaternity_cp.gofish.codec import GoFishCodec, codec_for
from quaternity_cp.gofish.state import new_state

#: Tables with the options that change the course of a game (small sizes: the games stay short).
TABLES = [
    {"players": 2, "suits": 2, "suit_size": 2},
    {"players": 3},
    {"players": 3, "suits": 3, "suit_size": 2, "after_yes": "again", "four": "some"},
    {"players": 4, "suits": 2, "suit_size": 2, "ask_void": "forbid", "repetition": "draw"},
    {"players": 3, "suits": 3, "suit_size": 3, "win_after_ask": True, "priority": "four-first"},
    {"players": 5, "suits": 5, "suit_size": 2, "max_moves": 6},
    {"players": 3, "suits": 3, "suit_size": 2, "rules": "geraschenko"},
    {"players": 2, "suits": 4, "suit_size": 2, "rules": "marcusrainbow"},
    {"players": 3, "suit_names": "Narwhal,Yeti,Kraken", "no_initial_four": True, "first": 2},  # spiel: "/"
]


def _random_game(options, rng, decisions=10**9):
    """A project state played at random for up to ``decisions`` decisions (to its end by default)."""
    state = new_state(0, **options)
    while not state.is_terminal() and decisions > 0:
        state.apply_action(rng.choice(state.legal_actions()))
        decisions -= 1
    return state


# -- the codec -------------------------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.sampled_from(TABLES), st.integers(0, 2**32 - 1))
def test_every_legal_action_has_its_own_id_and_every_id_decodes_to_what_the_rules_allow(options, seed):
    """At each decision of a random game: the legal actions' ids are distinct and in range, each maps back to
    its action, and decoding every id of the range and asking the rules (the core's own check) gives exactly
    the legal ids."""
    rng = random.Random(seed)
    state = new_state(0, **options)
    codec = codec_for(state)
    P, K = state.num_players, len(state.game.setup.suits)
    assert codec.num_actions == P * K + 2
    while not state.is_terminal():
        seat, pending = state.current_player(), state.game.pending
        actions = state.legal_actions()
        legal = codec.legal(actions)
        assert len(legal) == len(actions) and all(0 <= i < codec.num_actions for i in legal)
        for i, action in legal.items():
            assert codec.move(seat, i, pending) == action
            assert codec.action_id(action) == i
        allowed = set()
        for i in range(codec.num_actions):
            if pending is None and i >= codec.questions:
                with pytest.raises(ValueError):
                    codec.move(seat, i, pending)  # an answer with no question open
                continue
            move = codec.move(seat, i, pending)
            if pending is not None and move.answer is None:
                continue  # a question while one is open: never legal
            if move.asked != move.asker and state.game.is_legal(move):
                allowed.add(i)
        assert allowed == set(legal)
        state.apply_action(legal[rng.choice(sorted(legal))])
    with pytest.raises(ValueError):
        codec.move(0, codec.num_actions)


def _decode(codec: GoFishCodec, ones):
    """The observation tensor's pieces read back: low, high, hands, to move, the open question, determined."""
    at = offsets(codec.observation_pieces)
    shapes = dict(codec.observation_pieces)
    vector = [0] * size(codec.observation_pieces)
    for i in ones:
        vector[i] += 1
    assert max(vector) == 1  # no position set twice

    def piece(name):
        n = math.prod(shapes[name])
        return vector[at[name]:at[name] + n]

    P, K, C = shapes["low"]

    def grid(name):
        flat = piece(name)
        return tuple(tuple(flat[(p * K + s) * C:(p * K + s + 1) * C].index(1) for s in range(K)) for p in range(P))

    H = shapes["hands"][1]
    hands = tuple(piece("hands")[p * H:(p + 1) * H].index(1) for p in range(P))

    def seat(name):
        flags = piece(name)
        assert sum(flags) <= 1
        return flags.index(1) if 1 in flags else None

    return grid("low"), grid("high"), hands, seat("to_move"), (seat("asker"), seat("asked"), seat("suit")), \
        piece("determined")[0]


@pytest.mark.parametrize("options", TABLES)
def test_the_observation_is_the_public_game_and_the_same_for_every_seat(options):
    rng = random.Random(5)
    state = new_state(0, **options)
    codec = codec_for(state)
    n = size(codec.observation_pieces)
    while True:
        seen = {tuple(sorted(codec.state_ones(state, p))) for p in range(state.num_players)}
        assert len(seen) == 1  # everything is public
        ones = codec.state_ones(state, 0)
        assert all(0 <= i < n for i in ones)
        low, high, hands, to_move, question, determined = _decode(codec, ones)
        g = state.game
        b = g.bounds()
        assert (low, high, hands) == (b.low, b.high, g.hands())
        assert to_move == (None if state.is_terminal() else state.current_player())
        q = g.pending
        assert question == ((None, None, None) if q is None else (q.asker, q.asked, q.suit))
        assert determined == int(b.determined)
        assert len({codec.state_text(state, p) for p in range(state.num_players)}) == 1
        info = codec.state_ones(state, 0, perfect_recall=True)
        assert all(0 <= i < size(codec.info_pieces) for i in info)
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))


# -- OpenSpiel ---------------------------------------------------------------------------------------------------
pyspiel = pytest.importorskip("pyspiel")
spiel = pytest.importorskip("quaternity_cp.spiel")
make_observation = pytest.importorskip("open_spiel.python.observation").make_observation


def _load(options):
    """The OpenSpiel game of a table's options (its suit names separated by "/", as a game string needs)."""
    params = dict(options)
    if "suit_names" in params:
        params["suit_names"] = params["suit_names"].replace(",", "/")
    return pyspiel.load_game("python_gofish", params)


def test_the_game_is_registered_with_the_registry_options_as_parameters():
    assert "python_gofish" in spiel.register_games()
    game = pyspiel.load_game("python_gofish")
    spec = load_all()["gofish"]
    assert dict(game.get_parameters()) == spec.default_options()
    assert game.num_players() == spec.default_options()["players"]
    for players in (2, 4, 8):
        game = pyspiel.load_game(f"python_gofish(players={players})")
        assert game.num_players() == players
        assert game.num_distinct_actions() == players * players + 2  # suits = players by default
    game = pyspiel.load_game("python_gofish(players=3,max_moves=7)")
    assert game.max_game_length() == 14  # two decisions per question answered
    named = pyspiel.load_game("python_gofish(players=3,suit_names=Narwhal/Yeti/Kraken)")
    assert named.new_initial_state().action_to_string(0, 5) == "0>1:Kraken?"
    with pytest.raises(ValueError, match="suit_names"):
        pyspiel.load_game("python_gofish", {"players": 3, "suit_names": "Narwhal,Yeti,Kraken"})
    for bad in ("python_gofish(players=9)", "python_gofish(four=sometimes)", "python_gofish(rules=nope)",
                "python_gofish(players=3,suits=2,suit_size=4)", "python_gofish(colour=red)"):
        with pytest.raises((ValueError, pyspiel.SpielError)):
            pyspiel.load_game(bad)


@pytest.mark.parametrize("options", TABLES)
def test_openspiel_random_simulation_and_serialization(options):
    game = _load(options)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    state = game.new_initial_state()
    rng = random.Random(3)
    for _ in range(5):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    _, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(again) == str(state) and again.history() == state.history()
    copy = pickle.loads(pickle.dumps(state))
    assert str(copy) == str(state) and copy.history() == state.history()
    clone = state.clone()
    if not clone.is_terminal():
        clone.apply_action(clone.legal_actions()[0])
        assert clone.history() != state.history()  # the clone is its own game


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(TABLES), st.integers(0, 2**32 - 1))
def test_openspiel_games_are_the_project_games(options, seed):
    """A random OpenSpiel game played again on the project's state, action by action: the same seat decides,
    the legal ids are the codec's of the legal actions, the strings are the record's notation, and the
    returns at the end are the state's."""
    game = _load(options)
    state = game.new_initial_state()
    mirror = new_state(0, **options)
    codec = codec_for(mirror)
    rng = random.Random(seed)
    observation_size = game.observation_tensor_size()
    while not state.is_terminal():
        seat = state.current_player()
        assert seat == mirror.current_player()
        legal = codec.legal(mirror.legal_actions())
        assert state.legal_actions() == sorted(legal)
        for p in range(game.num_players()):
            assert len(state.observation_tensor(p)) == observation_size
            assert len(state.information_state_tensor(p)) == game.information_state_tensor_size()
        action = rng.choice(state.legal_actions())
        assert state.action_to_string(seat, action) == mirror.action_to_string(legal[action])
        state.apply_action(action)
        mirror.apply_action(legal[action])
    assert mirror.is_terminal() and mirror.current_player() == TERMINAL
    assert state.returns() == pytest.approx(mirror.returns())
    assert sum(state.returns()) == pytest.approx(1.0)
    assert len(state.history()) <= game.max_game_length()
    assert str(state) == " ".join(mirror.record()["moves"])


def test_a_game_at_the_move_cap_shares_the_win():
    game = _load({"players": 3, "max_moves": 2})
    capped = 0
    for seed in range(10):
        state = game.new_initial_state()
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        mirror = new_state(0, players=3, max_moves=2)
        for action in state.history():
            mirror.apply_action(codec_for(mirror).legal(mirror.legal_actions())[action])
        assert len(state.history()) <= 4 == game.max_game_length()
        if mirror.unfinished:
            capped += 1
            assert state.returns() == pytest.approx([1 / 3] * 3)
        else:
            assert sorted(state.returns()) == [0.0, 0.0, 1.0]
    assert capped > 0


def test_observers_tensors_and_strings():
    game = _load({"players": 3})
    state = game.new_initial_state()
    for action in (3, game.num_distinct_actions() - 2):  # 0 asks 1 for A; 1 says yes
        state.apply_action(action)
    assert state.history_str() and str(state) == "0>1:A+"
    observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    observer.set_from(state, 1)
    assert list(observer.tensor) == list(state.observation_tensor(1)) == list(state.observation_tensor(2))
    assert observer.dict["hands"][0].argmax() == 5 and observer.dict["hands"][1].argmax() == 3
    assert observer.dict["low"][0, 0].argmax() == 2  # the asker held one, and got one
    assert observer.dict["to_move"].argmax() == 1
    info = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    info.set_from(state, 0)
    rows = info.dict["moves"]
    assert rows[0, 3] == 1 and rows[1, game.num_distinct_actions() - 2] == 1 and rows[2:].sum() == 0
    assert state.information_state_string(0) == state.information_state_string(2) == "moves 0>1:A+"
    assert state.observation_string(0).startswith("cells ")
    state.apply_action(state.legal_actions()[0])
    assert "question 1>" in state.observation_string(0)
    assert state.action_to_string(state.current_player(), game.num_distinct_actions() - 1).endswith("-")


# -- PettingZoo ----------------------------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize("options", TABLES[:4])
def test_pettingzoo_api_and_seed_tests(options):
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test, seed_test

    from quaternity_cp.aec import GameEnv

    api_test(GameEnv(game="gofish", **options), num_cycles=200, verbose_progress=False)
    seed_test(lambda: GameEnv(game="gofish", **options), num_cycles=50)


@pytest.mark.parametrize("options", TABLES)
def test_a_game_played_through_the_environment_is_the_project_game(options):
    pytest.importorskip("pettingzoo")
    from quaternity_cp.aec import GameEnv

    env = GameEnv(game="gofish", **options)
    env.reset(seed=4)
    state = new_state(0, **options)
    rng = random.Random(1)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    shape = env.observation_space(env.possible_agents[0])["observation"].shape
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        assert observation["observation"].shape == shape
        if termination or truncation:
            env.step(None)
            continue
        assert agent == env.possible_agents[state.current_player()]
        legal = env.codec.legal(state.legal_actions())
        assert sorted(int(i) for i in observation["action_mask"].nonzero()[0]) == sorted(legal)
        action = rng.choice(sorted(legal))
        state.apply_action(legal[action])
        env.step(action)
    assert state.is_terminal()
    assert [totals[a] for a in env.possible_agents] == pytest.approx(state.returns())

"""The OpenSpiel bridge: OpenSpiel's own game checks, and the exact resampler against brute-force enumeration."""

from __future__ import annotations

import itertools
import math
import pickle
import random
from collections import Counter

import pytest

pyspiel = pytest.importorskip("pyspiel")
spiel = pytest.importorskip("quaternity_cp.spiel")
from quaternity_cp.quartets.spiel import quartets_setup  # noqa: E402

from quaternity_cp.quartets.count import count_deals  # noqa: E402


def _chance(state, rng):
    actions, probs = zip(*state.chance_outcomes())
    r = rng.random()
    for a, p in zip(actions, probs):
        r -= p
        if r < 0:
            return a
    return actions[-1]


def _play(state, rng, decisions):
    """Play chance and ``decisions`` player actions at random (stops at the end)."""
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(_chance(state, rng))
        elif decisions == 0:
            break
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions -= 1
    return state


@pytest.mark.parametrize("name", [
    "python_quartets(preset=classic,players=3,sets=3,set_size=2)",
    "python_quartets(preset=classic,players=4,sets=2,set_size=2,empty_hand=skip,max_moves=12)",
    "python_quartets(preset=classic,players=4,sets=3,set_size=4,initial_quartets=0,tie=first)",
    "python_quartets(preset=quaternity,players=3,sets=2,set_size=3)",
    "python_quartets(preset=blind,players=2,sets=2,set_size=2)",
    "python_quarto",
])
def test_openspiel_random_simulation_and_serialization(name):
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    state = _play(game.new_initial_state(), random.Random(3), 4)
    text = pyspiel.serialize_game_and_state(game, state)
    _, again = pyspiel.deserialize_game_and_state(text)
    assert str(again) == str(state) and again.history() == state.history()
    assert str(pickle.loads(pickle.dumps(state))) == str(state)


@pytest.mark.parametrize("name", ["python_quartets(preset=classic,players=4,sets=2,set_size=2,empty_hand=skip)",
                                  "python_quartets(preset=quaternity,players=4,sets=2,set_size=2)"])
def test_hand_overs_and_tie_breaks_are_uniform_chance_nodes_over_the_tied_seats(name):
    game = pyspiel.load_game(name)
    seen = Counter()
    for seed in range(10):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                kind = state.action_to_string(pyspiel.PlayerId.CHANCE, outcomes[0][0]).split(":")[0]
                if kind in ("handover", "tie-break"):
                    seen[kind] += 1
                    assert len(outcomes) > 1 and all(p == pytest.approx(1 / len(outcomes)) for _, p in outcomes)
                    for player in range(4):  # the move waiting for the draw is replayed, its answer kept
                        other = state.resample_from_infostate(player, rng)
                        assert other.is_chance_node() and other.chance_outcomes() == outcomes
                        assert other.information_state_string(player) == state.information_state_string(player)
                state.apply_action(_chance(state, rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        assert sorted(state.returns()) in ([0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0])
    assert seen["handover"] > 0 and (seen["tie-break"] > 0 or "quaternity" in name)


def test_parameters_are_the_registry_options_and_the_rule_options():
    game = pyspiel.load_game("python_quartets")
    params = game.get_parameters()
    assert (params["preset"], params["players"], params["sets"], params["set_size"]) == ("quaternity", 3, 3, 3)
    assert params["tie"] == "" and params["initial_quartets"] == -1  # the preset's values
    shared = pyspiel.load_game("python_quartets(preset=classic,players=2,sets=2,set_size=2,tie=shared)")
    assert quartets_setup(shared).rules.tie == "shared"
    for bad in ("python_quartets(preset=nope)", "python_quartets(players=3,sets=2,set_size=2)",
                "python_quartets(preset=classic,dealt=0)", "python_quartets(initial_quartets=2)"):
        with pytest.raises((ValueError, pyspiel.SpielError)):  # the game's message, or OpenSpiel's type check
            pyspiel.load_game(bad)


def test_the_deal_is_uniform_card_by_card():
    """The chance nodes of the deal give every deal the same probability (no whole set under
    initial_quartets = 0): the product of the outcome probabilities along each deal."""
    game = pyspiel.load_game("python_quartets(preset=classic,players=2,sets=2,set_size=2,initial_quartets=0)")
    probabilities = []

    def walk(state, p):
        if state.is_chance_node() and len(state.history()) < 4:
            for a, q in state.chance_outcomes():
                walk(state.child(a), p * q)
        else:
            probabilities.append(p)

    walk(game.new_initial_state(), 1.0)
    assert len(probabilities) == 4  # C(4,2) = 6 deals, less the 2 giving someone a whole set
    assert probabilities == pytest.approx([0.25] * 4)


def _brute_force(game, state, player):
    """Every deal (seat of each card) whose replay of the state's actions the player cannot tell apart."""
    setup = quartets_setup(game)
    cards, hand = setup.board.cards, setup.board.hand_size
    deal = list(state.history())[:cards]
    rest = list(state.history())[cards:]
    mine = [c for c in range(cards) if deal[c] == player]
    key = state.information_state_string(player)
    out = []
    for seats in itertools.product(range(setup.players), repeat=cards):
        if any(seats.count(p) != hand for p in range(setup.players)) or [
                c for c in range(cards) if seats[c] == player] != mine:
            continue  # not a deal, or not the player's own hand (what it saw first): no need to replay
        other = game.new_initial_state()
        try:
            for a in list(seats) + rest:
                if other.is_chance_node():
                    if a not in dict(other.chance_outcomes()):
                        raise ValueError
                elif a not in other.legal_actions():
                    raise ValueError
                other.apply_action(a)
        except ValueError:
            continue
        if other.information_state_string(player) == key:
            out.append(seats)
    return out


def _chi_square(counts, support, draws):
    expected = draws / len(support)
    return sum((counts.get(s, 0) - expected) ** 2 / expected for s in support)


@pytest.mark.parametrize("decisions", [0, 2])
def test_resampling_is_uniform_over_the_deals_brute_force_finds(decisions):
    """Resampled states keep the player's information state, and their deals are exactly the deals
    that brute-force enumeration finds consistent, each drawn about equally often (chi-square, fixed seed)."""
    stats = pytest.importorskip("scipy.stats")
    game = pyspiel.load_game("python_quartets(preset=classic,players=3,sets=3,set_size=3)")
    rng = random.Random(11)
    state = _play(game.new_initial_state(), rng, decisions)
    assert not state.is_terminal()
    player = state.current_player()
    support = _brute_force(game, state, player)
    view = state.project_state().observation(player).private_constraints()
    assert len(support) == count_deals(view) > 1
    draws = 40 * len(support)
    counts: Counter = Counter()
    sampler = random.Random(5)
    key = state.information_state_string(player)
    for _ in range(draws):
        other = state.resample_from_infostate(player, sampler)
        assert other.information_state_string(player) == key
        counts[tuple(other.history()[:9])] += 1
    assert set(counts) == set(support)
    assert _chi_square(counts, support, draws) < stats.chi2.ppf(0.999, len(support) - 1)


def test_resampling_during_the_deal_weighs_each_prefix_by_its_completions():
    stats = pytest.importorskip("scipy.stats")
    game = pyspiel.load_game("python_quartets(preset=classic,players=3,sets=2,set_size=3)")
    state = game.new_initial_state()
    for seat in (0, 1, 2):  # cards A0, A1, A2 dealt to seats 0, 1, 2
        state.apply_action(seat)
    weights: Counter = Counter()
    for seats in itertools.product(range(3), repeat=6):
        if all(seats.count(p) == 2 for p in range(3)) and seats[0] == 0 and 0 not in seats[1:3]:
            weights[seats[:3]] += 1  # the deals each prefix seat 0 cannot tell apart leads to
    draws = 2000
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    counts = Counter(tuple(state.resample_from_infostate(0, sampler).history()) for _ in range(draws))
    assert set(counts) == set(weights)
    total = sum(weights.values())
    statistic = sum((counts[k] - draws * w / total) ** 2 / (draws * w / total) for k, w in weights.items())
    assert statistic < stats.chi2.ppf(0.999, len(weights) - 1)


def test_quaternity_presets_are_public_and_resample_to_a_copy():
    game = pyspiel.load_game("python_quartets(preset=quaternity,players=3,sets=2,set_size=3)")
    state = _play(game.new_initial_state(), random.Random(2), 3)
    texts = {state.information_state_string(p).split(";", 1)[1] for p in range(3)}
    assert len(texts) == 1  # every seat sees the same
    other = state.resample_from_infostate(0, random.Random(0))
    assert str(other) == str(state) and other.history() == state.history()


def test_observations_tensors_and_strings():
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("python_quartets(preset=classic,players=3,sets=3,set_size=2,max_moves=20)")
    state = _play(game.new_initial_state(), random.Random(4), 2)
    codec = quartets_setup(game).codec
    assert len(state.information_state_tensor(0)) == game.information_state_tensor_size() == \
        sum(math.prod(shape) for _, shape in codec.info_pieces)
    info = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    info.set_from(state, 0)
    assert list(info.tensor) == list(state.information_state_tensor(0))
    assert info.dict["seat"][0] == 1 and info.dict["dealt"].sum() == 2
    assert state.information_state_string(0) != state.information_state_string(1)
    public = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))
    public.set_from(state, 0)
    assert "hand" not in public.dict and "may_hold" not in public.dict
    assert sum(public.tensor) > 0 and "; hand " not in public.string_from(state, 0)
    observation = state.observation_tensor(0)
    assert len(observation) == game.observation_tensor_size() and sum(observation) > 0
    assert state.observation_string(0).startswith("seat 0; hand ")


def test_openspiel_ismcts_runs_with_the_exact_resampler():
    np = pytest.importorskip("numpy")
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_quartets(preset=classic,players=3,sets=3,set_size=2)")
    state = _play(game.new_initial_state(), random.Random(1), 1)
    random_state = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, random_state), 1.0, 20, random_state=random_state)
    assert bot.step(state) in state.legal_actions()  # the bot asserts each resample keeps the information state


def test_the_cfr_example_prints_its_curve():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    args = ["--max-moves", "1", "--iterations", "2", "--every", "2"]
    out = subprocess.run([sys.executable, str(root / "examples" / "cfr_tiny.py"), *args],
                         capture_output=True, text=True, timeout=600, cwd=root, check=True).stdout.splitlines()
    assert out[0].startswith("cfr on python_quartets(") and "max_moves=1" in out[0] and "iteration" in out[1]
    rows = [line.split() for line in out[2:]]
    assert [int(r[0]) for r in rows] == [2] and float(rows[0][1]) == 0.0  # nobody can win in 1 move


def test_a_game_name_through_the_bridge_module_is_warned_and_a_clash_is_refused(monkeypatch):
    """``quaternity_cp.spiel.NAME`` and ``quaternity_cp.encoding.NAME`` still give one game's public name, warned
    (import it from the game's module); a name two games' modules both define is refused, naming both
    (issue 40: the first game found used to win silently)."""
    import quaternity_cp.encoding as encoding
    import quaternity_cp.quartets.spiel as own
    import quaternity_cp.quarto.spiel as quarto_spiel

    with pytest.warns(DeprecationWarning, match="quaternity_cp.quartets.spiel.quartets_setup"):
        assert spiel.quartets_setup is own.quartets_setup
    monkeypatch.setattr(quarto_spiel, "__all__", [*quarto_spiel.__all__, "quartets_setup"])
    monkeypatch.setattr(quarto_spiel, "quartets_setup", None, raising=False)
    with pytest.raises(AttributeError, match="ambiguous: .*quaternity_cp.quartets.spiel.*quaternity_cp.quarto.spiel"):
        spiel.quartets_setup
    with pytest.raises(AttributeError):
        encoding.no_such_codec

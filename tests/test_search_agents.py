"""The search agents: legal, reproducible, within their budgets, and their worlds agree with what they saw."""

from __future__ import annotations

import random
from typing import Any

import pytest

from quaternity_cp.quartets.agents.search import DeterminizedAgent, ISMCTSAgent
from quaternity_cp.quartets.count import count_deals, sample_deals
from quaternity_cp.registry import GAMES, load_all
from quaternity_cp.quartets.state import ClassicState, deal_before, new_state
from quaternity_cp.tournament import play_game

SMALL: dict[str, Any] = {"preset": "classic", "players": 3, "sets": 4, "set_size": 3}


def _midgame(seed: int, questions: int):
    state = new_state(seed, **SMALL)
    rng = random.Random(seed)
    for _ in range(questions):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_registered_for_classic_only():
    spec = load_all()["quartets"]
    assert {"ismcts", "determinized"} <= set(spec.agents)
    assert spec.refusal("ismcts", {"preset": "quaternity"}) is not None
    assert spec.refusal("determinized", {"preset": "classic"}) is None


@pytest.mark.parametrize("seed", range(8))
def test_deal_before_gives_back_the_deal_and_worlds_agree_with_the_observation(seed):
    state = _midgame(seed, seed)
    if state.is_terminal():
        pytest.skip("the game ended")
    seat = state.current_player()
    obs = state.observation(seat)
    view = obs.private_constraints()
    owners = {c: state.owner[c] for c in view.cards_in_play}
    assert deal_before(state.game, state.moves, owners) == state.deal
    for deal in sample_deals(view, 4, random.Random(seed)):
        world = ClassicState.from_view(obs, deal, seed=1)
        assert world.observation(seat).moves == obs.moves and world.held[seat] == state.held[seat]
        assert {c: world.owner[c] for c in view.cards_in_play} == deal
        assert world.current_player() == seat and world.legal_actions() == state.legal_actions()
    assert count_deals(view) >= 1


@pytest.mark.parametrize("agent", [ISMCTSAgent(simulations=30), DeterminizedAgent(worlds=3, playouts=1)])
def test_moves_are_legal_and_reproducible(agent):
    for seed in range(3):
        state = _midgame(seed, 2)
        if state.is_terminal():
            continue
        seat = state.current_player()
        legal = state.legal_actions()
        first = agent.step(state.observation(seat), legal, random.Random(seed))
        assert first in legal and agent.searched >= 1
        assert agent.step(state.observation(seat), legal, random.Random(seed)) == first


def test_a_tournament_game_plays_the_same_twice():
    GAMES["quartets"].agents["ismcts-small"] = lambda: ISMCTSAgent(simulations=15)
    GAMES["quartets"].agents["determinized-small"] = lambda: DeterminizedAgent(worlds=2, playouts=1)
    try:
        seats = ["ismcts-small", "determinized-small", "knowledge"]
        one = play_game("quartets", SMALL, seats, seed=5, index=0, record=True)
        two = play_game("quartets", SMALL, seats, seed=5, index=0, record=True)
        assert one.finished and one.record == two.record and one.returns == two.returns
        GAMES["quartets"].check_record(one.record)
    finally:
        del GAMES["quartets"].agents["ismcts-small"], GAMES["quartets"].agents["determinized-small"]


def test_budgets_are_checked_while_searching():
    state = _midgame(1, 1)
    seat = state.current_player()
    obs, legal = state.observation(seat), state.legal_actions()
    agent = ISMCTSAgent(simulations=10_000, max_seconds=1e-9)
    assert agent.step(obs, legal, random.Random(0)) in legal
    assert agent.searched == 1  # the clock is read after every simulation
    many = DeterminizedAgent(worlds=1_000, playouts=1, max_seconds=1e-9)
    assert many.step(obs, legal, random.Random(0)) in legal and many.searched == 1
    counted = ISMCTSAgent(simulations=7)
    counted.step(obs, legal, random.Random(0))
    assert counted.searched == 7


def test_past_the_count_limits_the_decision_is_knowledge():
    from quaternity_cp.quartets.count import CountLimits

    state = _midgame(2, 1)
    seat = state.current_player()
    agent = ISMCTSAgent(simulations=5, limits=CountLimits(max_states=1))
    assert agent.step(state.observation(seat), state.legal_actions(), random.Random(0)) in state.legal_actions()
    assert agent.fallbacks == 1 and agent.searched == 0


def test_the_agents_refuse_a_quaternity_observation():
    state = new_state(0, preset="quaternity", players=3, sets=3, set_size=3)
    with pytest.raises(ValueError, match="classic only"):
        ISMCTSAgent().step(state.observation(0), state.legal_actions(), random.Random(0))


def test_the_registry_loads_no_research_framework():
    """Every game and agent registered (the search agents included): no OpenSpiel, PettingZoo or numpy."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    code = ("import json, sys\nfrom quaternity_cp.registry import load_all\nload_all()\n"
            "print(json.dumps(sorted(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parent.parent,
                         capture_output=True, text=True, check=True, timeout=300)
    loaded = {m.split(".")[0] for m in json.loads(out.stdout.splitlines()[-1])}
    assert not loaded & {"pyspiel", "open_spiel", "pettingzoo", "gymnasium", "numpy"}
    assert "quaternity_cp.quartets.agents.search" in json.loads(out.stdout.splitlines()[-1])

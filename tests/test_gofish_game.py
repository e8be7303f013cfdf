"""Quantum Go Fish as the registered game ``gofish``: the game interface, its agents, tournaments, the web table
and terminal play.

The interface checks are those of tests/test_conformance.py (its playouts, run here on more option sets); the
state is compared with the core (:class:`~quaternity_cp.gofish.game.GoFish`) move by move, and greedy's choices
with a brute-force search written apart from it, on small tables.
"""

from __future__ import annotations

import io
import json
import random
from typing import Hashable

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_conformance import assert_record_passes, assert_returns_as_documented, checked_playout, plain_playout

from quaternity_cp.registry import GAMES, TERMINAL, load_all
from quaternity_cp.gofish.check import check_record
from quaternity_cp.gofish.game import GoFish, Move
from quaternity_cp.gofish.rules import CHOICES, PRESETS, GoFishError, GoFishRulesError
from quaternity_cp.gofish.state import GoFishState, new_state, state_from_record, table_rules

load_all()

#: Option sets played through the interface checks (each rule option changed once, presets, sizes, the cap).
OPTION_SETS = [
    {"players": 2},
    {"players": 2, "suits": 3, "suit_size": 2},
    {"players": 3},
    {"players": 4, "suits": 4, "suit_size": 2},
    {"players": 3, "rules": "geraschenko"},
    {"players": 3, "rules": "quantum-fingers"},
    {"players": 3, "rules": "thorntondr"},
    {"players": 3, "repetition": "draw"},
    {"players": 3, "after_yes": "again"},
    {"players": 3, "ask_void": "forbid"},
    {"players": 3, "four": "some"},
    {"players": 3, "four": "off"},
    {"players": 3, "win_after_ask": True},
    {"players": 3, "priority": "four-first"},
    {"players": 3, "no_initial_four": True},
    {"players": 3, "first": 2},
    {"players": 3, "max_moves": 3},
    {"players": 3, "suit_names": "Narwhals,Scruples,Qualms"},
]


def _id(options: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in options.items())


# -- the interface -----------------------------------------------------------------------------------------
def test_gofish_is_registered_with_its_parts_and_agents():
    spec = GAMES["gofish"]
    assert {"check", "cli", "svg", "report", "web", "terminal"} <= set(spec.parts)
    assert {"random", "greedy", "solver"} <= set(spec.agents)
    assert spec.hidden_information is False and spec.default_agent in spec.agents
    assert spec.seats({"players": 5}) == 5 == new_state(0, players=5).num_players


@pytest.mark.parametrize("options", OPTION_SETS, ids=_id)
def test_random_playouts_conform(options):
    for seed in range(4):
        state = checked_playout("gofish", options, seed)
        record = state.record()
        assert record == plain_playout("gofish", options, seed)
        assert_record_passes("gofish", record)
        assert_returns_as_documented("gofish", options, state)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.sampled_from([(2, 2, 2), (2, 2, 4), (2, 3, 2), (3, 3, 2), (3, 3, 4), (4, 2, 4)]),
       rules=st.sampled_from(sorted(PRESETS)),
       overrides=st.fixed_dictionaries({}, optional={name: st.sampled_from(values) for name, values in CHOICES.items()
                                                     if name != "invalid"}
                                       | {"win_after_ask": st.booleans(), "no_initial_four": st.booleans()}),
       seed=st.integers(0, 2**16))
def test_playouts_conform_under_drawn_options(shape, rules, overrides, seed):
    players, suits, size = shape
    options = {"players": players, "suits": suits, "suit_size": size, "rules": rules, **overrides}
    state = checked_playout("gofish", options, seed)
    assert state.record() == plain_playout("gofish", options, seed)
    assert_record_passes("gofish", state.record())


def _core_legal(game: GoFish) -> list[Move]:
    """The decisions open now, read from the core directly: the open question's answers, else the questions."""
    q = game.pending
    if q is not None:
        return [Move(q.asker, q.asked, q.suit, yes) for yes in game.legal_answers()]
    return game.legal_questions()


@pytest.mark.parametrize("options", OPTION_SETS[:8], ids=_id)
def test_the_state_follows_the_core_move_by_move(options):
    rng = random.Random(11)
    state = new_state(0, **options)
    game = GoFish.from_record(state.record())  # a game of its own, played alongside
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal == _core_legal(game)
        q = game.pending
        assert state.current_player() == (q.asked if q is not None else game.turn)
        action = rng.choice(legal)
        state.apply_action(action)
        game.push(action)
        assert state.record() == game.record()
    assert state.current_player() == TERMINAL and state.legal_actions() == []
    if not state.capped:
        assert game.over and state.winners() == (() if game.winner is None else (game.winner,))


def test_a_question_and_its_answer_are_two_decisions_of_two_seats():
    state = new_state(0, players=3)
    assert state.current_player() == 0
    state.apply_action(state.string_to_action("0>2:B?"))
    assert state.current_player() == 2  # the asked seat answers
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["0>2:B+", "0>2:B-"]
    with pytest.raises(GoFishError):
        new_state(0, players=3).apply_action(Move(0, 1, 0, True))  # a question and its answer at once
    state.apply_action(state.string_to_action("0>2:B-"))
    assert state.current_player() == 1 and state.record()["moves"] == ["0>2:B-"]
    state.undo()
    assert state.current_player() == 2 and state.record()["moves"] == ["0>2:B?"]


def test_the_sample_game_ends_with_the_determined_winner():
    state = new_state(0, players=3)
    for text in ["0>1:A?", "0>1:A+", "1>2:A?", "1>2:A+", "2>0:B?", "2>0:B-", "0>2:C?", "0>2:C-"]:
        state.apply_action(state.string_to_action(text))
    assert state.is_terminal() and state.winners() == (0,) and state.returns() == [1.0, 0.0, 0.0]
    obs = state.observation(2)
    assert obs.determined and obs.winner == 0 and obs.low == obs.high == ((2, 0, 3), (2, 1, 1), (0, 3, 0))


def test_observations_are_public_and_equal_for_every_seat_but_the_viewer():
    state = new_state(5, players=3)
    state.apply_action(state.legal_actions()[0])
    obs = [state.observation(p) for p in range(3)]
    fields = [{k: v for k, v in vars(o).items() if k not in ("player", "_game")} for o in obs]
    assert fields[0] == fields[1] == fields[2]
    assert "seed" not in vars(obs[0]) and obs[0].record() == state.record()
    copy = obs[0].game()
    copy.push(copy.legal_moves()[0])
    assert state.record()["moves"] == list(obs[0].moves)  # the agent's copy is its own


def test_the_move_cap_ends_a_game_as_a_draw_shared_by_all():
    state = new_state(0, players=3, max_moves=2)
    for _ in range(4):
        state.apply_action(state.legal_actions()[-1])  # "no" when it is legal: nobody wins in two questions
    assert state.is_terminal() and state.unfinished and state.winners() == ()
    assert state.returns() == [pytest.approx(1 / 3)] * 3 and state.scores() == [0.0] * 3
    check_record(state.record())  # the record is a legal game, not over by the rules


def test_rule_options_change_the_rule_set_only_where_they_differ_from_the_defaults():
    assert table_rules("geraschenko").ask_void == "forbid"
    assert table_rules("geraschenko", ask_void="allow").ask_void == "forbid"  # at the default: the set's choice
    assert table_rules("stacky", after_yes="again").after_yes == "again"
    assert new_state(0, players=5).game.suits == 5  # suits 0: as many as players
    with pytest.raises(GoFishRulesError):  # 3 suits x 4 cards cannot be dealt to 5 players
        new_state(0, players=5, suits=3)
    with pytest.raises(GoFishRulesError):
        new_state(0, players=3, rules="nonsense")


def test_suits_can_be_named_and_the_names_are_the_notation():
    state = new_state(0, players=3, suit_names="Narwhals, Scruples, Qualms")
    state.apply_action(state.string_to_action("0>1:Scruples?"))
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["0>1:Scruples+", "0>1:Scruples-"]
    assert state.record()["suits"] == ["Narwhals", "Scruples", "Qualms"]
    check_record(state.record())
    with pytest.raises(GoFishRulesError):
        new_state(0, players=3, suits=4, suit_names="A,B,C")
    with pytest.raises(GoFishRulesError):
        new_state(0, players=3, suit_names="A,B,A")


def test_records_round_trip():
    rng = random.Random(3)
    for options in OPTION_SETS[:6]:
        state = new_state(0, **options)
        for _ in range(rng.randrange(1, 12)):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        record = state.record()
        back = state_from_record(json.loads(json.dumps(record)))
        assert back.record() == record
        assert back.legal_actions() == state.legal_actions() and back.current_player() == state.current_player()


# -- the agents ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("agent", ["random", "greedy", "solver"])
def test_agents_pick_only_legal_actions(agent):
    tables = [{"players": 2, "suits": 2, "suit_size": 2}, {"players": 3}, {"players": 3, "win_after_ask": True}]
    for seed, options in enumerate(tables[:2] if agent == "solver" else tables):
        state = new_state(seed, **options)
        players = [GAMES["gofish"].agents[agent]() for _ in range(state.num_players)]
        rng = random.Random(seed)
        while not state.is_terminal():
            p = state.current_player()
            legal = state.legal_actions()
            action = players[p].step(state.observation(p), legal, rng)
            assert action in legal
            state.apply_action(action)


def _wins_at_once(state: GoFishState, action: Hashable, seat: int) -> bool:
    """Brute force: after ``action`` (a move) of ``seat``, ``seat`` has won whatever the asked seat answers."""
    assert isinstance(action, Move)
    after = state.clone()
    after.apply_action(action)
    if after.is_terminal() or action.answer is not None:
        return after.winners() == (seat,)
    for answer in after.legal_actions():
        end = after.clone()
        end.apply_action(answer)
        if end.winners() != (seat,):
            return False
    return True


def _hands_over(state: GoFishState, action: Move, seat: int) -> bool:
    """Brute force: after ``action`` (and, for a question, some answer), another seat has won, or the next asker
    is another seat with a question that wins at once."""
    after = state.clone()
    after.apply_action(action)
    ends = [after] if after.is_terminal() or action.answer is not None else []
    for answer in ([] if ends else after.legal_actions()):
        end = after.clone()
        end.apply_action(answer)
        ends.append(end)
    for end in ends:
        if end.is_terminal():
            if end.winners() and end.winners() != (seat,):
                return True
            continue
        nxt = end.current_player()
        if nxt != seat and any(_wins_at_once(end, q, nxt) for q in end.legal_actions()):
            return True
    return False


@pytest.mark.parametrize("options", [{"players": 2, "suits": 2, "suit_size": 2}, {"players": 2},
                                     {"players": 3}, {"players": 3, "win_after_ask": True},
                                     {"players": 3, "after_yes": "again", "four": "some"}], ids=_id)
def test_greedy_takes_every_win_and_never_hands_one_over_when_it_can_avoid_it(options):
    from quaternity_cp.gofish.agents import GreedyAgent

    greedy = GreedyAgent()
    seen = {"win": 0, "avoided": 0}
    for seed in range(6):
        state = new_state(seed, **options)
        rng = random.Random(seed)
        while not state.is_terminal():
            seat = state.current_player()
            legal = state.legal_actions()
            choice = greedy.step(state.observation(seat), legal, random.Random(seed))
            wins = [a for a in legal if _wins_at_once(state, a, seat)]
            if wins:
                assert choice in wins
                seen["win"] += 1
            else:
                safe = [a for a in legal if not _hands_over(state, a, seat)]
                if safe:
                    assert choice in safe
                    seen["avoided"] += len(safe) < len(legal)
            state.apply_action(rng.choice(legal))  # play on at random, to meet many positions
    assert seen["win"] > 0  # the checks above met wins, and (but on the smallest table) moves to avoid
    assert seen["avoided"] > 0 or options.get("suit_size") == 2


@pytest.mark.parametrize("shape,rules", [((2, 2, 2), "stacky"), ((2, 2, 3), "stacky"),
                                         ((2, 2, 4), "quantum-fingers")])
def test_the_solver_agent_wins_against_every_line_when_the_solver_says_it_can(shape, rules):
    from quaternity_cp.gofish.agents import SolverAgent
    from quaternity_cp.gofish.solver import can_force

    players, suits, size = shape
    start = new_state(0, players=players, suits=suits, suit_size=size, rules=rules)
    assert any(can_force(start.game, seat).wins for seat in range(players))  # a forced win to follow
    for seat in range(players):
        if not can_force(start.game, seat).wins:
            continue
        agent = SolverAgent()
        leaves = 0

        def explore(state: GoFishState, depth: int) -> None:
            nonlocal leaves
            assert depth < 60, "the forced win did not come"
            if state.is_terminal():
                assert state.winners() == (seat,), state.record()
                leaves += 1
                return
            p = state.current_player()
            if p == seat:
                choices = [agent.step(state.observation(p), state.legal_actions(), random.Random(depth))]
            else:
                choices = state.legal_actions()  # the other seats try every line
            for action in choices:
                nxt = state.clone()
                nxt.apply_action(action)
                explore(nxt, depth + 1)

        explore(start.clone(), 0)
        assert leaves > 0


def test_greedy_beats_random_in_a_tournament():
    from quaternity_cp.tournament import run_tournament

    summary = run_tournament("gofish", ["random", "greedy", "random"], 60, 7, options={"players": 3}).summary()
    res = summary["results"]
    assert res["greedy"]["ci95"][0] > res["random"]["ci95"][1], res  # the 95% intervals apart


# -- the picture and the report -------------------------------------------------------------------------------
def test_the_picture_shows_every_cells_exact_range():
    import re

    state = new_state(0, players=3)
    for text in ["0>1:A?", "0>1:A+", "1>2:B?"]:
        state.apply_action(state.string_to_action(text))
    svg = GAMES["gofish"].svg(state)
    cells = {(int(p), int(s)): (int(lo), int(hi)) for p, s, lo, hi in
             re.findall(r'data-player="(\d+)" data-suit="(\d+)" data-low="(\d+)" data-high="(\d+)"', svg)}
    b = state.game.bounds()
    assert cells == {(p, s): (b.low[p][s], b.high[p][s]) for p in range(3) for s in range(3)}


def test_the_report_steps_through_a_record_and_stops_at_an_illegal_move():
    spec = GAMES["gofish"]
    sample = {"game": "gofish", "players": 3, "moves": ["0>1:A+", "1>2:A+", "2>0:B-", "0>2:C-"]}
    html, valid = spec.report(json.dumps(sample), title="Sample")
    assert valid and html.count("data-player=") >= 5 * 9  # the start and four moves, nine cells each
    bad = dict(sample, moves=["0>1:A+", "1>1:A+"])
    html, valid = spec.report(json.dumps(bad), title="Bad")
    assert not valid and "a player cannot ask itself" in html
    with pytest.raises(GoFishError):
        spec.report("{not json", title="Unreadable")


# -- the web table and the terminal -----------------------------------------------------------------------------
def test_a_gofish_table_through_the_json_api_to_the_end(tmp_path):
    pytest.importorskip("starlette", reason="the web extra: pip install '.[web]'")
    from starlette.testclient import TestClient

    from quaternity_cp.web.app import Settings, create_app

    with TestClient(create_app(Settings(act_seconds=600))) as client:
        games = client.get("/api/games").json()
        assert "gofish" in games and games["gofish"]["hidden_information"] is False
        res = client.post("/api/new", json={"game": "gofish", "human": 1, "seed": 4,
                                            "options": {"players": 3}, "agents": {"0": "greedy", "2": "random"}})
        assert res.status_code == 200, res.text
        view = res.json()
        gid = view["id"]
        assert view["kind"] == "gofish" and view["svg"].startswith("<svg")
        rng = random.Random(2)
        for _ in range(400):
            if view["over"]:
                break
            assert view["your_turn"] and view["moves"]
            res = client.post(f"/api/act/{gid}", json={"action": rng.choice(view["moves"])})
            assert res.status_code == 200, res.text
            view = res.json()
        assert view["over"] and view["result"]["outcome"] in ("won", "lost", "draw")
        record = client.get(f"/api/record/{gid}").json()
        check_record(record)
        assert [entry["move"] for entry in view["log"]] == record["moves"]
        for entry in view["log"]:  # each entry is the asker's, as Quaternity's are: "You asked ..." is yours
            asker = int(entry["move"].split(">")[0])
            assert entry["seat"] == asker and entry["you"] == (asker == 1) == entry["text"].startswith("You ")
        assert client.get(f"/api/solve/{gid}").json()["text"].startswith("Game over")
        lines = client.get(f"/api/explain/{gid}?set=A&seat=1").json()["lines"]
        low, high = (GoFish.from_record(record).bounds().low[1][0], GoFish.from_record(record).bounds().high[1][0])
        assert lines[0].startswith(f"Seat 1 holds {'exactly ' + str(low) if low == high else f'{low} to {high}'} of A")


def test_the_web_refuses_a_table_that_cannot_be_dealt():
    from quaternity_cp.web.session import WebError, WebGame

    with pytest.raises(WebError, match="cannot be dealt"):
        WebGame.new("gofish", {"players": 5, "suits": 3})


def test_the_terminal_part_reads_short_moves_and_draws_the_table():
    from rich.console import Console

    from quaternity_cp.web.session import WebGame

    terminal = GAMES["gofish"].part("terminal")
    table = WebGame.new("gofish", {"players": 3}, human=0, seed=1, agents={"1": "random", "2": "random"})
    rng = random.Random(4)
    while not table.state.is_terminal():
        legal = table.legal_texts()
        text = rng.choice(legal)
        if text.endswith("?"):
            asked, suit = text[2:-1].split(":")
            typed = f"{asked} {suit}"
        else:
            typed = "yes" if text.endswith("+") else "no"
        assert terminal.to_action(table, typed) == text
        table.act(terminal.to_action(table, typed))
    out = Console(file=io.StringIO(), width=120)
    terminal.show(out, table)
    assert "What is known" in out.file.getvalue()
    assert terminal.command(out, table, "why", "1 B")
    assert "Seat 1 holds" in out.file.getvalue()
    with pytest.raises(ValueError, match="which cell"):
        terminal.command(out, table, "why", "")
    assert terminal.final_text(table).startswith("Game over.")


def test_a_gofish_game_typed_in_the_terminal(tmp_path):
    from quaternity_cli.main import main

    save = tmp_path / "gofish.json"
    tries = ["1 A", "1 B", "1 C", "2 A", "2 B", "2 C", "yes", "no"] * 40
    res = CliRunner().invoke(main, ["play", "--game", "gofish", "--players", "3", "--seed", "3", "--no-pause",
                                    "--agents", "random", "--save", str(save)], input="\n".join(tries) + "\nquit\n")
    assert res.exit_code == 0, res.output
    assert "Game over" in res.output
    record = json.loads(save.read_text())
    check_record(record)
    assert GoFish.from_record(record).over

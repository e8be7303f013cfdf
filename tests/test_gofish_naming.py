"""Naming suits in play (option ``name_suits``, issue 32 point 3): the first to ask for a suit names it.

Through the game interface (:class:`~quaternity_cp.gofish.state.GoFishState`), the core
(:meth:`~quaternity_cp.gofish.game.GoFish.name_suit`), the records ``quaternity check``/``analyze`` read, the
agents, the web API and the terminal.
"""

from __future__ import annotations

import importlib.util
import json
import random

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from quaternity_cli.main import main
from quaternity_cp.registry import GAMES, load_all
from quaternity_cp.gofish.game import GoFish, Move, NamedQuestion
from quaternity_cp.gofish.rules import GoFishError
from quaternity_cp.gofish.state import new_state

load_all()

WEB = importlib.util.find_spec("uvicorn") is not None and importlib.util.find_spec("starlette") is not None
if WEB:  # the browser test's fixtures (the browser skips itself without Chromium)
    from browser import browser, open_page, screenshot  # noqa: F401
    from test_web_browser import server, settle, start_table  # noqa: F401

NAMES = ["Narwhals", "Scruples", "Qualms", "Big fish", "Krakens", "Tapirs"]


def test_the_first_asker_names_a_fresh_suit_and_undo_unnames_it():
    state = new_state(0, players=3, name_suits=True)
    assert state.game.setup.suits == ("A", "B", "C") and state.observation(0).fresh == (0, 1, 2)
    before = state.record()
    action = state.string_to_action("0>1:Narwhals?")
    assert isinstance(action, NamedQuestion) and action.name == "Narwhals" and action.suit == 0
    assert action == Move(0, 1, 0) and action in state.legal_actions()  # the same action as the plain question
    assert state.action_to_string(action) == "0>1:Narwhals?"
    state.apply_action(action)
    obs = state.observation(2)
    assert obs.suits == ("Narwhals", "B", "C") and obs.fresh == (1, 2)
    assert state.record()["suits"] == ["Narwhals", "B", "C"]
    answer = state.legal_actions()[0]
    assert state.action_to_string(answer) == "0>1:Narwhals+"
    state.apply_action(answer)
    # the name is known now: a question for it is a plain question for suit 0
    turn = state.current_player()
    other = (turn + 1) % 3
    again = state.string_to_action(f"{turn}>{other}:Narwhals?")
    assert type(again) is Move and again.suit == 0
    # a second new name goes to the next fresh suit
    second = state.string_to_action(f"{turn}>{other}:Scruples?")
    assert isinstance(second, NamedQuestion) and second.suit == 1
    state.apply_action(second)
    assert state.game.setup.suits == ("Narwhals", "Scruples", "C")
    state.undo()
    assert state.game.setup.suits == ("Narwhals", "B", "C")
    state.undo()  # the answer: the name stays with its question
    assert state.game.setup.suits == ("Narwhals", "B", "C")
    state.undo()  # the question that named it
    assert state.game.setup.suits == ("A", "B", "C") and state.record() == before
    assert state.observation(0).fresh == (0, 1, 2)


def test_a_suit_asked_for_by_its_letter_keeps_the_letter():
    """An agent (or a person) asking for a fresh suit by its letter leaves it lettered: the letter is its name,
    and it is no longer fresh."""
    state = new_state(0, players=3, name_suits=True)
    state.apply_action(state.string_to_action("0>1:B?"))
    assert state.observation(0).fresh == (0, 2)
    state.apply_action(state.legal_actions()[-1])
    turn = state.current_player()
    named = state.string_to_action(f"{turn}>{(turn + 1) % 3}:Qualms?")
    assert named.suit == 0  # the first fresh suit
    with pytest.raises(GoFishError, match="cannot be named now"):
        state.game.name_suit(1, "Scruples")


@pytest.mark.parametrize("text, words", [
    ("0>1:Big-fish?", "not a name"),
    ("0>1: Narwhals?", "not a name"),
    ("0>1:Narwhals ?", "not a name"),
])
def test_bad_names_are_refused_in_one_line(text, words):
    state = new_state(0, players=3, name_suits=True)
    with pytest.raises(GoFishError) as err:
        state.string_to_action(text)
    assert words in str(err.value) and "\n" not in str(err.value)
    assert state.game.setup.suits == ("A", "B", "C")


def test_the_core_refuses_clashes_and_a_refused_move_leaves_the_suit_unnamed():
    game = GoFish(3)
    for suit, name in [(0, "B"), (0, "A"), (0, ""), (0, "x:y"), (0, 7), (5, "Narwhals")]:
        with pytest.raises(GoFishError) as err:
            game.name_suit(suit, name)
        assert "\n" not in str(err.value)
    with pytest.raises(GoFishError, match="not on turn"):
        game.push_named(Move(1, 2, 0), "Narwhals")
    assert game.setup.suits == ("A", "B", "C") and not game.setup.named_suits and game.moves == []
    # and without the option, an unknown suit stays unknown
    with pytest.raises(GoFishError, match="unknown suit 'Narwhals'"):
        new_state(0, players=3).string_to_action("0>1:Narwhals?")
    with pytest.raises(GoFishError, match="name_suits"):
        new_state(0, players=3).apply_action(NamedQuestion(0, 1, 0, None, "Narwhals"))


def test_when_every_suit_is_named_or_asked_a_new_name_is_an_unknown_suit():
    state = new_state(0, players=2, suits=2, suit_size=2, name_suits=True)
    state.apply_action(state.string_to_action("0>1:Narwhals?"))
    state.apply_action(state.legal_actions()[-1])
    if state.is_terminal():
        return
    turn = state.current_player()
    state.apply_action(state.string_to_action(f"{turn}>{1 - turn}:B?"))
    assert state.observation(0).fresh == ()
    with pytest.raises(GoFishError, match="every suit is named or asked about"):
        state.string_to_action(f"{turn}>{1 - turn}:Qualms?")


def _named_and_lettered(seed: int, options: dict) -> tuple[dict, dict, dict[str, str]]:
    """The same random game played twice: naming every fresh suit it asks for, and lettered; the two records
    and the map from letters to names."""
    rng = random.Random(seed)
    named = new_state(seed, name_suits=True, **options)
    lettered = new_state(seed, **options)
    names = iter(NAMES)
    for _ in range(40):
        if lettered.is_terminal():
            break
        legal = lettered.legal_actions()
        assert named.legal_actions() == legal  # the agents' actions are the same Move values
        action = rng.choice(legal)
        assert isinstance(action, Move)
        fresh = named.observation(0).fresh
        if action.answer is None and fresh and action.suit == fresh[0] and rng.random() < 0.8:
            text = f"{action.asker}>{action.asked}:{next(names)}?"
            naming = named.string_to_action(text)
            assert naming == action
            named.apply_action(naming)
        else:
            named.apply_action(action)
        lettered.apply_action(action)
        assert named.current_player() == lettered.current_player()
    letters = lettered.game.setup.suits
    mapping = dict(zip(letters, named.game.setup.suits))
    return named.record(), lettered.record(), mapping


def _cli(tmp_path, record: dict, *args: str) -> dict:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    res = CliRunner().invoke(main, [*args, str(path), "--json"])
    assert res.exit_code in (0, 1), res.output
    return json.loads(res.output)


def _renamed(out: dict, mapping: dict[str, str]) -> dict:
    """The lettered game's JSON with its suit keys named: the suits, the counts' keys, the fours' suits."""
    out = dict(out)
    if "suits" in out:
        out["suits"] = [mapping[k] for k in out["suits"]]
    if "counts" in out:
        out["counts"] = {mapping[k]: v for k, v in out["counts"].items()}
    if "fours" in out:
        out["fours"] = {seat: [mapping[s] for s in suits] for seat, suits in out["fours"].items()}
    return out


@pytest.mark.parametrize("seed, options", [(1, {"players": 3}), (3, {"players": 3}), (1, {"players": 4}),
                                           (4, {"players": 2, "suits": 3, "suit_size": 2}),
                                           (8, {"players": 3, "rules": "geraschenko"})])
def test_a_named_record_checks_and_analyzes_as_the_lettered_game(tmp_path, seed, options):
    named, lettered, mapping = _named_and_lettered(seed, options)
    assert isinstance(named["suits"], list) and named["moves"] != lettered["moves"]  # (these seeds name suits)
    assert _cli(tmp_path, named, "check") == _renamed(_cli(tmp_path, lettered, "check"), mapping)
    analyzed = _cli(tmp_path, named, "analyze")
    assert set(analyzed["counts"]) == set(named["suits"])
    assert analyzed == _renamed(_cli(tmp_path, lettered, "analyze"), mapping)
    # the record replays to the same position, the names kept
    game = GoFish.from_record(named)
    assert game.moves == named["moves"] and game.bounds() == GoFish.from_record(lettered).bounds()
    assert list(game.setup.suits) == named["suits"]


@pytest.mark.parametrize("agent", ["random", "greedy"])
def test_agents_play_a_naming_table_lettered(agent):
    for seed in range(3):
        state = new_state(seed, players=3, name_suits=True)
        players = [GAMES["gofish"].agents[agent]() for _ in range(state.num_players)]
        rng = random.Random(seed)
        for _ in range(30):
            if state.is_terminal():
                break
            p = state.current_player()
            legal = state.legal_actions()
            assert all(type(a) is Move for a in legal)
            action = players[p].step(state.observation(p), legal, rng)
            assert action in legal
            state.apply_action(action)
        assert state.record()["suits"] == 3  # nobody named anything: the lettered record


def test_the_web_api_asks_for_a_new_suit_by_its_name(tmp_path):
    pytest.importorskip("starlette", reason="the web extra")
    from starlette.testclient import TestClient

    from quaternity_cp.web.app import Settings, create_app

    with TestClient(create_app(Settings(act_seconds=600))) as client:
        view = client.post("/api/new", json={"game": "gofish", "human": 0, "seed": 1,
                                             "agents": {"1": "random", "2": "random"},
                                             "options": {"players": 3, "name_suits": True}}).json()
        gid = view["id"]
        assert view["naming"] == {"fresh": [0, 1, 2], "suit": "A"} and "name" in view["status"]
        bad = client.post(f"/api/act/{gid}", json={"action": "0>1:Big-fish?"})
        assert bad.status_code == 422 and "not a name" in bad.json()["error"]
        res = client.post(f"/api/act/{gid}", json={"action": "0>1:Narwhals?"})
        assert res.status_code == 200, res.text
        view = res.json()
        assert view["suits"][0] == "Narwhals"
        assert any("Narwhals" in entry["text"] for entry in view["log"])
        record = client.get(f"/api/record/{gid}").json()
        assert record["suits"][0] == "Narwhals" and record["moves"][0].startswith("0>1:Narwhals")
        assert _cli(tmp_path, record, "check")["valid"]
        back = client.post(f"/api/undo/{gid}").json()
        assert back["suits"] == ["A", "B", "C"] and back["naming"]["fresh"] == [0, 1, 2]
    # a table without the option has no naming in its view
    with TestClient(create_app(Settings(act_seconds=600))) as client:
        view = client.post("/api/new", json={"game": "gofish", "human": 0, "seed": 1,
                                             "agents": {"1": "random", "2": "random"},
                                             "options": {"players": 3}}).json()
        assert "naming" not in view


def test_the_terminal_names_a_suit(tmp_path):
    from quaternity_cp.gofish import terminal

    saved = tmp_path / "played.json"
    res = CliRunner().invoke(main, ["play", "--game", "gofish", "--players", "3", "--seed", "1", "--no-pause",
                                    "--name-suits", "--save", str(saved)], input="1 Big fish\nquit\n")
    assert res.exit_code == 0, res.output
    record = json.loads(saved.read_text())
    assert record["suits"] == ["Big fish", "B", "C"]
    assert record["moves"][0] in ("0>1:Big fish+", "0>1:Big fish-")
    assert "1 Narwhals" in terminal.HELP


@pytest.mark.skipif(not WEB, reason="the web extra: pip install '.[web]'")
def test_a_person_names_a_suit_at_the_web_page(browser, server):  # noqa: F811
    """At the page, the fresh suits are offered as one "new suit" field (no lettered buttons for them); the
    name typed is the question's suit, and the named suit is a button of its own afterwards."""
    pg, errors = open_page(browser, 1200, 900)
    start_table(pg, server, game="gofish", seats={0: "person", 1: "random", 2: "random", 3: "random"}, seed=2,
                players=4, name_suits=True)
    assert pg.eval_on_selector_all("#ask .suit-pick[data-suit]", "els => els.length") == 0
    pg.click('#ask .seat-pick[data-seat="1"]')
    assert pg.locator("#new-suit-name").count() == 1
    pg.fill("#new-suit-name", "Big fish")
    screenshot(pg, "web-gofish-naming")
    pg.click("#ask .new-suit-ask")
    settle(pg)
    assert pg.locator("#error").is_hidden(), pg.inner_text("#error")
    res = pg.request.get(pg.eval_on_selector("#download", "a => a.href").replace("/record/", "/view/"))
    view = res.json()
    assert view["log"][0]["move"].startswith("0>1:Big fish") and view["suits"][0] == "Big fish"
    for _ in range(10):  # answer what the person is asked until it is to ask again (or the game ends)
        if view["over"] or view["pending"] is None:
            break
        pg.click("#answers button[data-action]")
        settle(pg)
        view = pg.request.get(pg.eval_on_selector("#download", "a => a.href").replace("/record/", "/view/")).json()
    if not view["over"]:
        fresh = {view["suits"][s] for s in view.get("naming", {}).get("fresh", [])}
        pg.click(f'#ask .seat-pick[data-seat="{view["moves"][0][2]}"]')
        shown = pg.eval_on_selector_all("#ask .suit-pick[data-suit]", "els => els.map(e => e.dataset.suit)")
        assert "Big fish" in shown and not set(shown) & fresh
        assert pg.locator("#new-suit-name").count() == (1 if fresh and any(
            m.endswith(f":{view['naming']['suit']}?") and m[2] == view["moves"][0][2] for m in view["moves"]) else 0)
    pg.context.close()
    assert not errors, errors


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([{"players": 3}, {"players": 4}, {"players": 2, "suits": 3,
                                                                                  "suit_size": 2},
                                                  {"players": 3, "no_initial_four": True}]))
def test_naming_and_undo_keep_the_lettered_game_exactly(seed, options):
    """Property: played with names given at random (and taken back at random), the game is the lettered one
    move for move (turns, legal actions, every cell's range); undoing everything gives the lettered start."""
    rng = random.Random(seed)
    named = new_state(seed, name_suits=True, **options)
    lettered = new_state(seed, **options)
    names = iter(f"Suit {i}" for i in range(100))
    for _ in range(30):
        if lettered.is_terminal():
            break
        if rng.random() < 0.2 and lettered.game.moves:
            named.undo()
            lettered.undo()
        else:
            action = rng.choice(lettered.legal_actions())
            fresh = named.observation(0).fresh
            if action.answer is None and fresh and action.suit == fresh[0] and rng.random() < 0.7:
                action = named.string_to_action(f"{action.asker}>{action.asked}:{next(names)}?")
            named.apply_action(action)
            lettered.apply_action(Move(action.asker, action.asked, action.suit, action.answer))
        assert named.legal_actions() == lettered.legal_actions()
        assert named.current_player() == lettered.current_player()
        assert named.game.bounds() == lettered.game.bounds()
        letters = dict(zip(lettered.game.setup.suits, named.game.setup.suits))
        renamed = [f"{m.partition(':')[0]}:{letters[m.partition(':')[2][:-1]]}{m[-1]}" for m in lettered.game.moves]
        assert named.game.moves == renamed
    while lettered.game.moves:
        named.undo()
        lettered.undo()
    assert named.game.setup == lettered.game.setup and named.record() == lettered.record()

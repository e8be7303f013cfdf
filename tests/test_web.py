"""The web table's API (Starlette's test client, no browser) and its session logic."""

from __future__ import annotations

import json
import random
import re

import pytest
from click.testing import CliRunner

pytest.importorskip("starlette", reason="the web extra: pip install '.[web]'")
from starlette.testclient import TestClient  # noqa: E402

from quaternity_cli.main import main  # noqa: E402
from quaternity_cp.web.app import Settings, create_app  # noqa: E402
from quaternity_cp.web.session import WebError, WebGame  # noqa: E402


@pytest.fixture(scope="module")
def client():
    """The app in one event loop (its tables, workers and agents live there); a move waits for the agents'
    replies however long they take (the server's default answers "thinking" after a second), and no agent's
    move has a time budget (the server's default stops one after 3 x 2 s and plays a random move instead): what
    the agents play never depends on how busy the machine is. The waits left are nets far above any answer."""
    with TestClient(create_app(Settings(act_seconds=600, agent_seconds=None, request_seconds=600))) as test_client:
        yield test_client


@pytest.fixture
def no_clock(monkeypatch):
    """The quartets view's probabilities and explanations bounded by work only: at most MAX_COUNT_STATES
    states for a count, no time limit (COUNT_SECONDS, 2 s on the server, None here)."""
    import quaternity_cp.quartets.web as quartets_web

    monkeypatch.setattr(quartets_web, "COUNT_SECONDS", None)
    return quartets_web


def check_record(tmp_path, record: dict, *extra: str) -> dict:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    res = CliRunner().invoke(main, [*extra, "check", str(path), "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def play_out(client, gid: str, view: dict, rng: random.Random, limit: int = 400) -> dict:
    """Pick the person's moves at random among the legal ones the server offers, to the end."""
    for _ in range(limit):
        if view["over"]:
            return view
        assert view["your_turn"]
        if view["kind"] == "quarto":
            action = rng.choice(view["moves"])
        elif view["answers"]:
            action = rng.choice(view["answers"])["text"]
        else:
            legal = [a for a in _cells(view["svg"])] + [d["text"] for d in view["declarations"]]
            action = rng.choice(legal)
        res = client.post(f"/api/act/{gid}", json={"action": action})
        assert res.status_code == 200, res.text
        view = res.json()
    raise AssertionError("the game did not end")


def _cells(svg: str) -> list[str]:
    import re

    return re.findall(r'data-legal="1" data-action="([^"]+)"', svg.replace("&gt;", ">"))


def test_games_list_the_registered_games_and_agents(client):
    data = client.get("/api/games").json()
    assert "knowledge" in data["quartets"]["agents"] and "classic" in data["quartets"]["presets"]
    assert "greedy" in data["quarto"]["agents"]


def test_the_setup_form_comes_from_each_games_metadata(client):
    from quaternity_cp.registry import GAMES
    from quaternity_cp.quartets.rules import PRESETS

    data = client.get("/api/games").json()
    quartets, quarto = data["quartets"], data["quarto"]
    options = {o["name"]: o for o in quartets["options"]}
    assert list(options) == ["preset", "players", "sets", "set_size"] and quartets["players_option"] == "players"
    assert options["preset"]["choices"] == list(PRESETS) == quartets["presets"]
    players = GAMES["quartets"].option("players")
    # the same bounds in the form, the API (WEB_LIMITS) and the terminal (the option's metadata)
    assert (options["players"]["min"], options["players"]["max"]) == (players.low, players.high)
    assert quartets["limits"]["options"]["players"] == {"min": players.low, "max": players.high}
    assert quarto["options"] == [GAMES["quarto"].option("squares").to_json()] and quarto["players_option"] is None
    assert (quarto["min_players"], quarto["max_players"], quarto["seat_label"]) == (2, 2, "player")
    assert quartets["default_agent"] in quartets["agents"] and quarto["default_agent"] in quarto["agents"]


def test_what_a_game_does_not_offer_is_a_clean_error(client):
    quarto = client.post("/api/new", json={"game": "quarto", "seed": 1}).json()
    assert quarto["features"] == {"probabilities": False, "explain": False, "verdict": True}
    res = client.get(f"/api/explain/{quarto['id']}?card=A0")
    assert res.status_code == 422 and res.json()["error"] == "quarto games have no explanations"
    quartets = client.post("/api/new", json={"seed": 1, "options": {"players": 2, "sets": 2, "set_size": 2}}).json()
    assert quartets["game"] == "quartets"  # the registry's default game
    assert quartets["features"] == {"probabilities": True, "explain": True, "verdict": False}
    res = client.get(f"/api/solve/{quartets['id']}")
    assert res.status_code == 422 and "no solver's verdict" in res.json()["error"]


@pytest.mark.parametrize("preset", ["quaternity", "blind", "pythagoras", "quaternity-seat"])
def test_a_whole_game_through_the_api_gives_a_record_that_check_accepts(client, tmp_path, preset):
    res = client.post("/api/new", json={"game": "quartets", "human": 1, "seed": 4, "agents": {"0": "random", "2": "random"},
                                        "options": {"preset": preset, "players": 3, "sets": 3, "set_size": 2}})
    assert res.status_code == 200, res.text
    view = res.json()
    end = play_out(client, view["id"], view, random.Random(1))
    record = client.get(f"/api/record/{view['id']}")
    assert "attachment" in record.headers["content-disposition"]
    checked = check_record(tmp_path, record.json())
    assert checked["over"] and checked["winners"] == end["winners"]


def test_classic_shows_only_what_the_person_may_know(client, tmp_path):
    res = client.post("/api/new", json={"game": "quartets", "human": 0, "seed": 2,
                                        "options": {"preset": "classic", "players": 3, "sets": 3, "set_size": 4}})
    view = res.json()
    assert view["classic"] and len(view["hand"]) == 4
    # before the end the downloadable record leaves the deal out (it would show every hand), and passes check
    early = client.get(f"/api/record/{view['id']}").json()
    assert "deal" not in early and "deal" not in view
    check_record(tmp_path, early)
    starred = set(re.findall(r">([A-Z]\d+) ★<", view["svg"]))
    assert starred == set(view["hand"])
    end = play_out(client, view["id"], view, random.Random(3))
    assert end["over"]
    record = client.get(f"/api/record/{view['id']}").json()
    assert set(record["deal"]["0"]) == set(view["hand"])
    check_record(tmp_path, record)
    # the grid at the start is what analyze --as 0 says of the record cut there (with the deal)
    path = tmp_path / "start.json"
    path.write_text(json.dumps(dict(record, moves=record["moves"][: len(early["moves"])])))
    mine = CliRunner().invoke(main, ["analyze", str(path), "--as", "0", "--json"])
    assert mine.exit_code == 0, mine.output
    from browser import expected_grid

    shown = {}
    for card, seat, state in re.findall(r'data-card="([^"]+)" data-seat="(\d+)" data-state="(\w+)"', view["svg"]):
        entry = shown.setdefault(card, {"owners": [], "forced": None})
        if state != "impossible":
            entry["owners"].append(int(seat))
        if state == "forced":
            entry["forced"] = int(seat)
    assert shown == expected_grid(json.loads(mine.output))


def test_undo_goes_back_to_the_persons_last_decision():
    table = WebGame.new("quartets", {"preset": "quaternity", "players": 3, "sets": 3, "set_size": 3}, human=0,
                        agents={1: "random", 2: "random"}, seed=7)
    before = table.record()
    first = _cells(table.view()["svg"])[0]
    table.act(first)
    assert table.record() != before
    table.undo()
    assert table.record() == before
    with pytest.raises(WebError):
        table.undo()


def test_bad_requests_are_clean_errors(client):
    """400: not a request the API understands; 422: understood, but not acceptable (unknown game or agent,
    illegal move); 404: no such table. More in test_web_attacks.py."""
    assert client.post("/api/new", json={"game": "chess"}).status_code == 422
    res = client.post("/api/new", json={"game": "quartets", "agents": {"1": "nobody"}})
    assert res.status_code == 422 and "unknown agent" in res.json()["error"]
    gid = client.post("/api/new", json={"game": "quartets", "seed": 1,
                                        "options": {"players": 2, "sets": 2, "set_size": 2}}).json()["id"]
    res = client.post(f"/api/act/{gid}", json={"action": "1>0:A0?"})
    assert res.status_code == 422
    assert client.post(f"/api/act/{gid}", content=b"not json").status_code == 400
    assert client.post("/api/new", json={"seed": "1"}).status_code == 400
    twice = client.post("/api/new", json={"agents": {"01": "random", "1": "knowledge"}, "seed": 1})
    assert twice.status_code == 400 and twice.json()["error"] == "agents: seat 1 is given twice"
    assert client.get("/api/view/nope").status_code == 404
    assert client.get("/static/../app.py").status_code == 404
    assert client.get("/static/app.py").status_code == 404


def test_explanations_and_probabilities(client, no_clock, monkeypatch):
    """Exact probabilities and an explanation through the API. No clock decides it (on a busy machine the
    server's 2-second budget ran out: "Too long to explain here"); the budget of work does, both ways."""
    gid = client.post("/api/new", json={"game": "quartets", "seed": 1, "human": 0, "agents": {"1": "random"},
                                        "options": {"players": 2, "sets": 2, "set_size": 2}}).json()["id"]
    client.post(f"/api/act/{gid}", json={"action": "0>1:A0?"})
    view = client.get(f"/api/view/{gid}?probabilities=1").json()
    assert view["probabilities"] and "data-prob=" in view["svg"] and view["note"] is None
    lines = client.get(f"/api/explain/{gid}?set=A").json()["lines"]
    assert lines[0].startswith("Set A was claimed"), lines
    monkeypatch.setattr(no_clock, "MAX_COUNT_STATES", 1)  # a count past its budget of states: refused, said so
    view = client.get(f"/api/view/{gid}?probabilities=1").json()
    assert not view["probabilities"] and "data-prob=" not in view["svg"] and "Too many deals" in view["note"]


def test_quarto_to_the_end_and_the_solvers_verdict(client, tmp_path):
    view = client.post("/api/new", json={"game": "quarto", "human": 1, "seed": 1, "agents": {"0": "greedy"}}).json()
    gid = view["id"]
    end = play_out(client, gid, view, random.Random(5))
    record = client.get(f"/api/record/{gid}").json()
    path = tmp_path / "q.json"
    path.write_text(json.dumps(record))
    res = CliRunner().invoke(main, ["quarto", "check", str(path), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["winner"] == end["winner"]
    verdict = client.get(f"/api/solve/{gid}").json()
    assert verdict["text"].startswith("Game over")


def legal_moves(view: dict) -> list[str]:
    """The person's legal moves a view offers (every game the page plays)."""
    if view["kind"] == "quarto":
        return list(view["moves"])
    if view["answers"]:
        return [a["text"] for a in view["answers"]]
    return _cells(view["svg"]) + [d["text"] for d in view["declarations"]]


def test_two_people_play_one_classic_table_through_their_links(client, tmp_path):
    """Each seat acts and sees through its own token: its own hand only, the other's moves as they happen."""
    res = client.post("/api/new", json={"game": "quartets", "humans": [0, 2], "agents": {"1": "random"}, "seed": 3,
                                        "options": {"preset": "classic", "players": 3, "sets": 3, "set_size": 4}})
    assert res.status_code == 200, res.text
    first = res.json()
    gid, links = first["id"], first["links"]
    assert first["seat"] == 0 and first["humans"] == [0, 2] and set(links) == {"0", "2", "watch"}
    tokens = {int(seat): link.rsplit("/", 1)[1] for seat, link in links.items() if seat != "watch"}
    assert links["0"] == f"/t/{gid}/{first['token']}" and tokens[0] == first["token"]
    page = client.get(links["2"])
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert page.headers["x-frame-options"] == "DENY" and page.headers["referrer-policy"] == "no-referrer"
    assert client.get(f"/api/view/{gid}").status_code == 403  # two people: a token is needed
    rng = random.Random(7)
    hands = {}
    for _ in range(400):
        views = {seat: client.get(f"/api/view/{gid}", headers={"X-Seat-Token": token}).json()
                 for seat, token in tokens.items()}
        assert views[0]["version"] == views[2]["version"] and len(views[0]["log"]) == len(views[2]["log"])
        assert {v["seat"] for v in views.values()} == {0, 2} and "links" not in views[2]
        for seat, view in views.items():
            hands[seat] = set(view["hand"])
        assert hands[0].isdisjoint(hands[2]) or views[0]["over"]
        if views[0]["over"]:
            break
        mover = next(seat for seat, view in views.items() if view["your_turn"])
        version = views[mover]["version"]
        action = rng.choice(legal_moves(views[mover]))
        res = client.post(f"/api/act/{gid}?token={tokens[mover]}", json={"action": action})
        assert res.status_code == 200, res.text
        assert res.json()["version"] > version
    else:
        raise AssertionError("the game did not end")
    end = views[0]
    assert end["result"]["winners"] == views[2]["result"]["winners"]
    assert set(end["result"]["hands"]) == {"0", "1", "2"}
    record = client.get(f"/api/record/{gid}", headers={"X-Seat-Token": tokens[2]}).json()
    check_record(tmp_path, record)


def test_versions_and_undo_through_the_api(client):
    table = client.post("/api/new", json={"game": "quartets", "seed": 5, "agents": {"1": "random"},
                                          "options": {"players": 2, "sets": 2, "set_size": 2}}).json()
    gid, start = table["id"], table["version"]
    assert table["thinking"] is None and table["your_turn"]
    moved = client.post(f"/api/act/{gid}", json={"action": legal_moves(table)[0]}).json()
    assert moved["version"] > start and moved["can_undo"] and len(moved["log"]) > len(table["log"])
    back = client.post(f"/api/undo/{gid}").json()
    assert back["version"] > moved["version"] and back["log"] == table["log"] and not back["can_undo"]
    res = client.post(f"/api/undo/{gid}")
    assert res.status_code == 422 and "nothing to undo" in res.json()["error"]


# -- each game's page parts, served from its own package --------------------------------------------------
def test_each_games_page_parts_are_served_from_its_package_and_only_those(client):
    from importlib.resources import files

    from quaternity_cp.registry import load_all
    from quaternity_cp.web.session import page_files

    games = client.get("/api/games").json()
    offered = {name: spec for name, spec in load_all().items() if "web" in spec.parts}  # a game with a web view
    assert set(games) == set(offered) and {"quartets", "quarto"} <= set(offered)
    for name, spec in offered.items():
        declared = page_files(spec)
        assert games[name]["page"] == {role: f"/games/{name}/{file}" for role, file in declared.items()}
        if not declared:  # a game without page parts (the page offers a button per legal move, links no rules)
            continue
        package = files(spec.parts["page"].partition(":")[0].rpartition(".")[0])
        for role, file in declared.items():
            res = client.get(f"/games/{name}/{file}")
            assert res.status_code == 200, (name, file)
            assert res.content == (package / "static" / file).read_bytes()  # the game's own file, byte for byte
            assert res.headers["x-content-type-options"] == "nosniff" and res.headers["x-frame-options"] == "DENY"
        # a file of the package that the game does not declare, another game's name, a way out: not found
        for path in (f"/games/{name}/__init__.py", f"/games/{name}/web.py", f"/games/{name}/static",
                     f"/games/{name}/../web/static/app.js", f"/games/{name}/%2e%2e/__init__.py",
                     *(f"/games/no-such-game/{file}" for file in declared.values())):
            res = client.get(path)
            assert res.status_code == 404 and res.json()["error"] in ("no such file", "no such address"), path
        # the view links the game's rules page; the former addresses still open it
        if "rules" in declared:
            rules = client.get(f"/games/{name}/{declared['rules']}").content
            assert client.get(f"/rules/{name}").content == rules == client.get(f"/static/rules-{name}.html").content
    assert client.get("/rules/no-such-game").status_code == 404
    for name in ("quartets", "quarto"):
        assert set(games[name]["page"]) == {"rules", "script", "style"}, name


def test_a_declared_name_that_is_not_a_plain_file_name_is_never_served(client, monkeypatch):
    import quaternity_cp.quarto.web as quarto_web
    from quaternity_cp.registry import GAMES
    from quaternity_cp.web.session import page_files

    monkeypatch.setattr(quarto_web, "PAGE", {"rules": "../openings.json", "script": "table.js", "style": ".x.css",
                                             "other": "openings.json"})
    assert page_files(GAMES["quarto"]) == {"script": "table.js"}
    for path in ("/games/quarto/..%2fopenings.json", "/games/quarto/.x.css", "/games/quarto/openings.json",
                 "/games/quarto/rules.html"):
        assert client.get(path).status_code == 404, path
    assert client.get("/games/quarto/table.js").status_code == 200


def test_a_game_without_page_parts_is_offered_with_none(monkeypatch):
    from dataclasses import replace

    from quaternity_cp.registry import GAMES, load_all
    from quaternity_cp.web.session import catalogue, page_files, page_urls

    load_all()
    spec = GAMES["quarto"]
    bare = replace(spec, parts={k: v for k, v in spec.parts.items() if k != "page"})
    assert page_files(bare) == {} and page_urls(bare) == {}
    monkeypatch.setitem(GAMES, "quarto", bare)
    assert catalogue()["quarto"]["page"] == {}


def test_the_form_offers_the_default_game_first(client):
    from quaternity_cp.registry import DEFAULT_GAME

    names = list(client.get("/api/games").json())
    assert names[0] == DEFAULT_GAME and names[1:] == sorted(names[1:])

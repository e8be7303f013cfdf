"""The views a table keeps are never of an older version (issue 39, point 6).

A seat asks for its view with probabilities, then without (the table now
refreshes the view without them after every change), moves happen, and it asks
with probabilities again: the view kept from the first request is of an older
version and must not be served.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install '.[web]'")

from starlette.testclient import TestClient  # noqa: E402

from quaternity_cp.web.app import Settings, create_app  # noqa: E402

SMALL = {"preset": "quaternity", "players": 3, "sets": 3, "set_size": 2}


def test_a_view_kept_for_the_other_probabilities_setting_is_not_served_stale():
    with TestClient(create_app(Settings(act_seconds=600))) as client:
        made = client.post("/api/new", json={"seed": 2, "options": SMALL, "human": 0}).json()
        gid, token = made["id"], made["token"]
        headers = {"X-Seat-Token": token}
        tables = client.app.app.state.tables
        client.get(f"/api/view/{gid}?probabilities=1", headers=headers)
        action = tables.open[gid].game.legal_texts(0)[0]
        # a move asked with probabilities: the table keeps the seat's view with them, at that version
        first = client.post(f"/api/act/{gid}", json={"action": action, "probabilities": True}, headers=headers).json()
        plain = client.get(f"/api/view/{gid}", headers=headers).json()  # now without: the table keeps those
        assert first["version"] == plain["version"] and first["probabilities"] and not plain["probabilities"]
        for _ in range(2):  # moves happen (the person's and the agents' replies)
            seat_view = client.get(f"/api/view/{gid}", headers=headers).json()
            if seat_view["over"]:
                break
            action = tables.open[gid].game.legal_texts(0)[0]
            assert client.post(f"/api/act/{gid}", json={"action": action}, headers=headers).status_code == 200
        now = tables.open[gid].game.version
        assert now > first["version"]
        again = client.get(f"/api/view/{gid}?probabilities=1", headers=headers).json()
        assert again["version"] == now and again["probabilities"]
        assert len(again["log"]) == len(client.get(f"/api/view/{gid}", headers=headers).json()["log"])
        assert len(again["log"]) > len(first["log"])


def test_a_new_table_needs_a_body():
    with TestClient(create_app(Settings(act_seconds=600))) as client:
        for body in (b"", b"  \n"):
            got = client.post("/api/new", content=body, headers={"Content-Type": "application/json"})
            assert got.status_code == 400 and "no body" in got.json()["error"]
        assert client.post("/api/new", json={}).status_code == 200  # {}: every default


def test_an_illegal_move_is_refused_with_the_checkers_reason():
    """An impossible answer at a Go Fish table is refused in the words of the rule it breaks (issue 39: it
    said only "not one of your legal moves now")."""
    import random

    from quaternity_cp.web.session import WebError, WebGame

    for seed in range(50):
        rng = random.Random(seed)
        table = WebGame.new("gofish", {"players": 2}, humans=[0, 1], seed=seed)
        while not table.state.is_terminal():
            seat = table.state.current_player()
            texts = table.legal_texts(seat)
            if texts[0].endswith(("+", "-")) and len(texts) == 1:  # one answer only: the other breaks a rule
                wrong = texts[0][:-1] + ("-" if texts[0].endswith("+") else "+")
                with pytest.raises(WebError) as err:
                    table.act(wrong, seat)
                message = str(err.value)
                assert message.startswith(f"{wrong!r} is not legal now: ") and len(message) > len(wrong) + 25
                return
            table.act(rng.choice(texts), seat)
    pytest.fail("no forced answer met in 50 games")


def test_the_go_fish_verdict_says_what_stopped_it(monkeypatch):
    """Past the web table's budget, the verdict names the real limit that stopped it (issue 39: it said "more
    than 832 positions (too many for the web table)" when the cap is 20,000 and the clock had stopped it)."""
    from quaternity_cp.budget import Limits
    from quaternity_cp.gofish import solver, web
    from quaternity_cp.web.session import WebGame

    table = WebGame.new("gofish", {"players": 3}, human=0, seed=1, advance=False)

    def stopped(reason):
        def can_force(game, seat, limits):
            raise solver.SolverLimitError(reason, 832, Limits(max_positions=web.SOLVE_POSITIONS,
                                                              max_seconds=web.SOLVE_SECONDS))
        return can_force

    monkeypatch.setattr(solver, "can_force", stopped("time"))
    text = table.verdict(0)["text"]
    assert "2-second budget ran out after 832 positions" in text and "more than 832" not in text
    monkeypatch.setattr(solver, "can_force", stopped("limit"))
    text = table.verdict(0)["text"]
    assert "more than 20,000 positions, the web table's limit" in text


def test_play_again_takes_everyone_at_the_table_along():
    """"Play again" at a finished table of two people opens one new table for both, seats kept; the other
    person's page hears of it (the status names it) and its view carries its own link; asked twice, one table."""
    import random

    with TestClient(create_app(Settings(act_seconds=600))) as client:
        made = client.post("/api/new", json={"seed": 3, "game": "quarto", "humans": [0, 1]}).json()
        gid = made["id"]
        tokens = {int(s): link.rsplit("/", 1)[1] for s, link in made["links"].items() if s != "watch"}
        tables = client.app.app.state.tables
        got = client.post(f"/api/again/{gid}", json={}, headers={"X-Seat-Token": tokens[1]})
        assert got.status_code == 422 and "not over yet" in got.json()["error"]
        rng = random.Random(3)
        while not tables.open[gid].game.state.is_terminal():
            seat = tables.open[gid].game.state.current_player()
            action = rng.choice(tables.open[gid].game.legal_texts(seat))
            assert client.post(f"/api/act/{gid}", json={"action": action},
                               headers={"X-Seat-Token": tokens[seat]}).status_code == 200
        got = client.post(f"/api/again/{gid}", json={}, headers={"X-Seat-Token": tokens[1]})
        assert got.status_code == 200, got.text
        new = got.json()
        assert new["id"] != gid and new["seat"] == 1 and new["humans"] == [0, 1] and not new["over"]
        assert tables.open[gid].status()["next"] == new["id"]  # what every event stream of the old table says
        old_view = client.get(f"/api/view/{gid}", headers={"X-Seat-Token": tokens[0]}).json()
        link = old_view["next"]["link"]
        assert old_view["next"]["id"] == new["id"] and link.startswith(f"/t/{new['id']}/")
        token0 = link.rsplit("/", 1)[1]
        theirs = client.get(f"/api/view/{new['id']}", headers={"X-Seat-Token": token0}).json()
        assert theirs["seat"] == 0 and theirs["options"] == old_view["options"]
        assert client.get(f"/api/view/{new['id']}", headers={"X-Seat-Token": tokens[0]}).status_code == 403
        again = client.post(f"/api/again/{gid}", json={}, headers={"X-Seat-Token": tokens[0]}).json()
        assert again["id"] == new["id"] and again["seat"] == 0  # the second click: the same table


def test_a_go_fish_table_shows_the_rules_in_force_and_honours_every_option_given():
    """A table of the geraschenko rule set reports the options it plays (issue 39: it reported the form's
    defaults), and a rule set's option set back to its default is played (it was silently ignored), by the
    table, by the table made again from it and by the table loaded after a restart."""
    from quaternity_cp.web.session import WebGame, catalogue
    from quaternity_cp.web.tables import Tables, replayed

    table = WebGame.new("gofish", {"players": 3, "rules": "geraschenko"}, human=0, seed=1)
    shown = table.view(0)["options"]
    assert (shown["ask_void"], shown["four"], shown["win_after_ask"]) == ("forbid", "some", True)
    assert shown["rules"] == "geraschenko" and table.state.game.rules.ask_void == "forbid"
    back = WebGame.new("gofish", {"players": 3, "rules": "geraschenko", "ask_void": "allow"}, human=0, seed=1)
    rules = back.state.game.rules
    assert (rules.ask_void, rules.four, rules.win_after_ask) == ("allow", "some", True)
    shown = back.view(0)["options"]
    assert (shown["rules"], shown["ask_void"], shown["four"]) == ("stacky", "allow", "some")  # stacky, changed
    same = WebGame.new("gofish", {"players": 3, "rules": "geraschenko", "ask_void": "forbid"}, human=0, seed=1)
    assert same.state.game.rules == table.state.game.rules
    other = WebGame.new("gofish", {"players": 3, "rules": "marcusrainbow", "priority": "four-first"}, seed=1)
    assert (other.state.game.rules.repetition, other.state.game.rules.priority) == ("draw", "four-first")
    tables = Tables(workers=1)
    try:
        tables.keep(back, "t1")
        assert replayed(tables.store.load("t1"), None).state.game.rules == rules  # after a restart: as made
    finally:
        tables.pool.stop()
    entry = catalogue()["gofish"]
    assert entry["title"] == "Quantum Go Fish"
    assert entry["rule_sets"]["values"]["geraschenko"]["four"] == "some"


def test_a_watch_link_sees_only_what_the_whole_table_knows_and_cannot_act():
    """The creator's links gain "watch" (issue 39): a read-only view with public information only (no hand at
    all in classic), live by events; every request that acts is refused (403)."""
    with TestClient(create_app(Settings(act_seconds=600))) as client:
        options = {"preset": "classic", "players": 3, "sets": 4, "set_size": 3}
        made = client.post("/api/new", json={"seed": 5, "options": options, "human": 0}).json()
        gid, token = made["id"], made["token"]
        watch = made["links"]["watch"].rsplit("/", 1)[1]
        assert watch not in (token,) and set(made["links"]) == {"0", "watch"}
        headers = {"X-Seat-Token": watch}
        seen = client.get(f"/api/view/{gid}", headers=headers).json()
        mine = client.get(f"/api/view/{gid}", headers={"X-Seat-Token": token}).json()
        assert mine["hand"] and seen["hand"] == [] and not seen["over"]
        assert not seen["your_turn"] and not seen["can_undo"] and "links" not in seen
        for card in mine["hand"]:  # nothing of seat 0's hand shows in the watcher's view (what the table knows)
            assert f'"{card}"' not in json.dumps(seen["table"])
        assert seen["names"][0] == "Seat 0" and "You" not in seen["names"]
        for method, path, body in (("post", "act", {"action": "0>1:A0?"}), ("post", "undo", {}),
                                   ("post", "again", {}), ("get", "explain", None), ("get", "solve", None)):
            got = getattr(client, method)(f"/api/{path}/{gid}", headers=headers, **({"json": body} if body else {}))
            assert got.status_code == 403 and "watch link only watches" in got.json()["error"], path
        record = client.get(f"/api/record/{gid}", headers=headers)
        assert record.status_code == 200 and "deal" not in record.json()

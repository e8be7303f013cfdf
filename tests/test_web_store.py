"""Tables that outlive the server (issue 39): the SQLite store, a restart, a crash, final results, bad files.

- the store's own contract: what a row holds (a hash of each token, never the
  token), one transaction per change, a file that is not ours / newer /
  damaged refused in one line and left untouched, a write that fails refused;
- a server stopped and started again on the same file: every link works, every
  seat sees exactly what it saw, an agent to move moves again, a record
  downloaded before and after is the same;
- ``kill -9`` of a real ``quaternity serve`` during concurrent moves at
  several tables: every table loads again, and every move acknowledged before
  the kill is there;
- a finished game is final at every game: undo refused with the reason;
- ``quaternity serve --export``.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
from http.client import HTTPException

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install '.[web]'")
pytest.importorskip("httpx", reason="the web extra's test client")

from click.testing import CliRunner  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from quaternity_cli.main import main  # noqa: E402
from quaternity_cp.registry import load_all  # noqa: E402
from quaternity_cp.web.app import Settings, create_app  # noqa: E402
from quaternity_cp.web.session import WebError, WebGame, web_games  # noqa: E402
from quaternity_cp.web.store import Store, StoreError, StoreUnavailable, token_hash  # noqa: E402

load_all()
SMALL = {"preset": "quaternity", "players": 3, "sets": 3, "set_size": 2}
CLASSIC = {"preset": "classic", "players": 2, "sets": 3, "set_size": 2}


def app_on(path, **settings):
    return TestClient(create_app(Settings(act_seconds=600, **settings), Store(str(path))))


def view(client, gid, token):
    got = client.get(f"/api/view/{gid}", headers={"X-Seat-Token": token})
    assert got.status_code == 200, got.text
    return {k: v for k, v in got.json().items() if k != "thinking"}


def legal(client, gid, seat) -> list[str]:
    """The legal moves of ``seat`` at the (loaded) table ``gid``, from the library."""
    return client.app.app.state.tables.open[gid].game.legal_texts(seat)


def play_a_move(client, gid, token) -> dict:
    v = view(client, gid, token)
    assert v["your_turn"], v
    got = client.post(f"/api/act/{gid}", json={"action": legal(client, gid, v["seat"])[0]},
                      headers={"X-Seat-Token": token})
    assert got.status_code == 200, got.text
    return got.json()


# -- a restart ------------------------------------------------------------------------------------------
def test_a_restarted_server_carries_on_with_every_table(tmp_path):
    db = tmp_path / "tables.sqlite3"
    with app_on(db) as client:
        made = client.post("/api/new", json={"seed": 4, "options": CLASSIC, "humans": [0, 1]}).json()
        gid, links = made["id"], made["links"]
        tokens = {int(s): link.rsplit("/", 1)[1] for s, link in links.items() if s != "watch"}
        solo = client.post("/api/new", json={"seed": 2, "options": SMALL, "human": 1}).json()
        for _ in range(2):
            seat = view(client, gid, tokens[0])["to_move"]
            if seat is not None:
                play_a_move(client, gid, tokens[seat])
        play_a_move(client, solo["id"], solo["token"])
        before = {seat: view(client, gid, tokens[seat]) for seat in (0, 1)}
        solo_before = view(client, solo["id"], solo["token"])
        record = client.get(f"/api/record/{gid}", headers={"X-Seat-Token": tokens[0]}).text
    assert db.stat().st_mode & 0o077 == 0 and (tmp_path / "tables.sqlite3.key").stat().st_mode & 0o077 == 0
    stored = Store(str(db)).load(gid)
    assert stored is not None and {s: h for s, h in stored.token_hashes.items() if s >= 0} == \
        {s: token_hash(t) for s, t in tokens.items()}
    raw = db.read_bytes() + (db.parent / "tables.sqlite3-wal").read_bytes()
    assert not any(t.encode() in raw for t in tokens.values())  # the tokens themselves are nowhere in the file
    with app_on(db) as client:  # the server started again on the same file
        after = {seat: view(client, gid, tokens[seat]) for seat in (0, 1)}
        assert after == before  # every seat sees exactly what it saw, the join links included
        assert client.get(f"/api/record/{gid}", headers={"X-Seat-Token": tokens[1]}).text == record
        assert view(client, solo["id"], solo["token"]) == solo_before
        seat = after[0]["to_move"]
        if seat is not None:
            play_a_move(client, gid, tokens[seat])  # and the game goes on
        wrong = tokens[0][:-2] + ("yy" if tokens[0].endswith("xx") else "xx")  # (a token may end in "xx": 1 in 4,096)
        bad = client.get(f"/api/view/{gid}", headers={"X-Seat-Token": wrong})
        assert bad.status_code == 403
        assert client.get("/api/view/nosuchtable").status_code == 404


def test_an_agent_to_move_moves_again_after_a_restart(tmp_path):
    """A table stored while an agent is to move is loaded when the server starts, and the agent moves, before
    anyone asks for it."""
    import asyncio

    from quaternity_cp.web.tables import Tables

    db = tmp_path / "tables.sqlite3"
    store = Store(str(db))
    game = WebGame.new("quartets", SMALL, human=2, seed=9, advance=False)
    Tables(store=store).keep(game, "t1")  # stored with seat 0 (an agent) to move, nothing played
    assert store.waiting_for_agents(10) == ["t1"]
    store.close()
    with app_on(db) as client:
        tables = client.app.app.state.tables

        async def resumed():  # the server's own start-up task, awaited (an event, not a clock)
            await tables.resume()
            await tables.settle(tables.open["t1"], 60)

        client.portal.call(resumed)
        assert "t1" in tables.open and tables.open["t1"].game.log  # the agents moved: nobody asked for it
        token = Store(str(db)).token("t1", 2)
        v = view(client, "t1", token)
        assert v["your_turn"] and len(v["log"]) >= 2
    assert Store(str(db)).waiting_for_agents(10) == []  # the person's turn now: nothing to resume


# -- final is final ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", sorted(web_games()))
def test_a_finished_game_cannot_be_undone_at_any_game(game):
    spec = web_games()[game]
    seats = spec.seats(spec.default_options())
    table = WebGame.new(game, humans=list(range(seats)), seed=3)
    rng = random.Random(3)
    for _ in range(5000):
        if table.state.is_terminal():
            break
        seat = table.state.current_player()
        table.act(rng.choice(table.legal_texts(seat)), seat)
    assert table.state.is_terminal()
    for seat in range(seats):
        assert not table.can_undo(seat) and not table.view(seat)["can_undo"]
        with pytest.raises(WebError, match="the game is over: a finished game is final"):
            table.undo(seat)
    assert table.state.is_terminal()


def test_undo_after_the_end_is_refused_through_the_api(tmp_path):
    with app_on(tmp_path / "t.sqlite3") as client:
        made = client.post("/api/new", json={"seed": 1, "options": CLASSIC, "human": 0}).json()
        gid, token = made["id"], made["token"]
        rng = random.Random(1)
        v = view(client, gid, token)
        while not v["over"]:
            got = client.post(f"/api/act/{gid}", json={"action": rng.choice(legal(client, gid, 0))},
                              headers={"X-Seat-Token": token})
            assert got.status_code == 200, got.text
            v = {k: x for k, x in got.json().items() if k != "thinking"}
        got = client.post(f"/api/undo/{gid}", json={}, headers={"X-Seat-Token": token})
        assert got.status_code == 422 and "final" in got.json()["error"]
        assert view(client, gid, token)["over"]


# -- the store's own contract ------------------------------------------------------------------------------
def test_files_that_are_not_ours_newer_or_damaged_are_refused_untouched(tmp_path):
    cases = {}
    cases["text"] = tmp_path / "text.sqlite3"
    cases["text"].write_text("not a database\n")
    cases["other"] = tmp_path / "other.sqlite3"
    with sqlite3.connect(cases["other"]) as db:
        db.execute("CREATE TABLE notes (a)")
    cases["newer"] = tmp_path / "newer.sqlite3"
    Store(str(cases["newer"])).close()
    with sqlite3.connect(cases["newer"]) as db:
        db.execute("PRAGMA user_version = 99")
    cases["damaged"] = tmp_path / "damaged.sqlite3"
    store = Store(str(cases["damaged"]))
    store.create(WebGame_stored("k"))
    store.close()
    with sqlite3.connect(cases["damaged"]) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(cases["damaged"].read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # the first page's tree (the schema) overwritten
    cases["damaged"].write_bytes(bytes(data))
    needles = {"text": "not a table database", "other": "another program's", "newer": "newer quaternity-cp",
               "damaged": ""}
    for name, path in cases.items():
        before = path.read_bytes()
        result = CliRunner().invoke(main, ["serve", "--db", str(path), "--port", "1"])
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert result.exit_code == 2 and len(lines) == 1 and str(path) in lines[0], (name, result.output)
        assert needles[name] in lines[0] and "Traceback" not in result.output
        assert path.read_bytes() == before, name  # left untouched
    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(StoreError, match="is a folder"):
        Store(str(folder))


def WebGame_stored(key):
    from quaternity_cp.web.store import Stored

    return Stored(key, "quartets", {"preset": "quaternity"}, (0,), {1: "random", 2: "random"}, 5, {0: "ab"}, 1.0,
                  1.0, False, 0, [])


def test_a_write_that_fails_refuses_the_move_and_keeps_the_table_as_stored(tmp_path):
    db = tmp_path / "t.sqlite3"
    with app_on(db) as client:
        made = client.post("/api/new", json={"seed": 2, "options": SMALL, "human": 0}).json()
        gid, token = made["id"], made["token"]
        before = view(client, gid, token)
        store = client.app.app.state.tables.store

        def broken(*args, **kwargs):
            raise StoreUnavailable("the server could not save the table (database or disk is full)")

        store.save = broken
        got = client.post(f"/api/act/{gid}", json={"action": legal(client, gid, 0)[0]},
                          headers={"X-Seat-Token": token})
        assert got.status_code == 503 and "disk is full" in got.json()["error"]
        del store.save
        assert view(client, gid, token) == before  # loaded again as stored: the refused move is not there
        play_a_move(client, gid, token)


def test_a_read_only_database_refuses_moves_with_503(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes to read-only files")
    db = tmp_path / "t.sqlite3"
    with app_on(db) as client:
        made = client.post("/api/new", json={"seed": 2, "options": SMALL, "human": 0}).json()
        os.chmod(db, 0o444)
        try:
            got = client.post(f"/api/act/{made['id']}", json={"action": legal(client, made["id"], 0)[0]},
                              headers={"X-Seat-Token": made["token"]})
            assert got.status_code == 503
        finally:
            os.chmod(db, 0o644)


def test_export_writes_every_record(tmp_path):
    db = tmp_path / "t.sqlite3"
    with app_on(db) as client:
        ids = []
        for seed in (1, 2, 3):
            made = client.post("/api/new", json={"seed": seed, "options": SMALL, "human": 0}).json()
            play_a_move(client, made["id"], made["token"])
            ids.append((made["id"], client.get(f"/api/record/{made['id']}",
                                               headers={"X-Seat-Token": made["token"]}).json()))
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["serve", "--db", str(db), "--export", str(out)])
    assert result.exit_code == 0 and "3 records of 3 tables written" in result.output, result.output
    for gid, record in ids:
        assert json.loads((out / f"{gid}.json").read_text()) == record
        assert CliRunner().invoke(main, ["check", str(out / f"{gid}.json")]).exit_code == 0


# -- kill -9 during concurrent moves -----------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db, port):
    proc = subprocess.Popen([sys.executable, "-m", "quaternity_cli", "serve", "--db", str(db), "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = [proc.stdout.readline() for _ in range(2)]  # the banner: the server is listening (an event)
    assert "Quaternity table on" in lines[0] and "Tables kept in" in lines[1], (lines, proc.stderr.read())
    return proc


def http(port, method, path, body=None, token=None):
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Content-Type": "application/json", "Host": f"127.0.0.1:{port}"}
    if token:
        headers["X-Seat-Token"] = token
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    resp = conn.getresponse()
    data = json.loads(resp.read() or b"null")
    conn.close()
    return resp.status, data


def test_kill_9_during_concurrent_moves_loses_nothing_acknowledged(tmp_path):
    db = tmp_path / "tables.sqlite3"
    port = free_port()
    proc = start_server(db, port)
    try:
        tables = []
        for seed in range(4):
            status, made = http(port, "POST", "/api/new", {"seed": seed, "game": "quarto", "human": 0})
            assert status == 200, made
            tables.append((made["id"], made["token"]))
        acknowledged: dict[str, int] = {}  # table -> moves in the last view a move was answered with
        enough = threading.Barrier(len(tables) + 1)

        def player(gid, token):
            rng = random.Random(gid)
            count = 0
            try:
                while True:
                    status, v = http(port, "GET", f"/api/view/{gid}", token=token)
                    if status != 200 or v["over"] or not v["moves"]:
                        break
                    status, v = http(port, "POST", f"/api/act/{gid}", {"action": rng.choice(v["moves"])}, token)
                    if status != 200:
                        break
                    acknowledged[gid] = len(v["log"])
                    count += 1
                    if count == 3:
                        enough.wait()  # every player has three moves acknowledged: the kill comes now
            except (OSError, HTTPException, threading.BrokenBarrierError):
                pass  # the server was killed under this request (a reply cut short: IncompleteRead)

        threads = [threading.Thread(target=player, args=t, daemon=True) for t in tables]
        for t in threads:
            t.start()
        enough.wait(timeout=300)
        proc.send_signal(signal.SIGKILL)  # while the players go on moving
        proc.wait()
        for t in threads:
            t.join(120)
    finally:
        if proc.poll() is None:
            proc.kill()
    proc = start_server(db, port)
    try:
        for gid, token in tables:
            status, v = http(port, "GET", f"/api/view/{gid}", token=token)
            assert status == 200, v
            assert len(v["log"]) >= acknowledged.get(gid, 0)  # nothing acknowledged is lost
            status, record = http(port, "GET", f"/api/record/{gid}", token=token)
            assert status == 200
            assert CliRunner().invoke(main, ["check", "-"], input=json.dumps(record)).exit_code in (0,)
    finally:
        proc.kill()
        proc.wait()

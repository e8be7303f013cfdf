"""Two browsers at one classic table; the server is stopped and started again between two moves (the same
table database, the same port): both pages carry on without a reload by hand (issue 39).

The pages hear of the restart only through their event streams (the browser reconnects by itself once the
server answers again); the next move is clicked in one page and shown in the other.
"""

from __future__ import annotations

import random
import socket
import threading
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="the web extra: pip install '.[web]'")

from browser import browser, open_page  # noqa: E402,F401  (the fixture)
from test_web_browser import click_a_move, hand, moves_shown, notation, settle, start_table, state  # noqa: E402


class Server:
    """``quaternity serve``'s app on a fixed port and database, in a thread, that can be stopped and started."""

    def __init__(self, db: str):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.db = db
        self.srv: Any = None  # the uvicorn server, once started
        self.thread: threading.Thread | None = None

    def start(self) -> str:
        from quaternity_cp.web.app import Settings, create_app, listen, server
        from quaternity_cp.web.store import Store

        settings = Settings()
        sock = listen("127.0.0.1", self.port)
        self.srv = server(create_app(settings, Store(self.db)), settings)
        started = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(sock, started), daemon=True)
        self.thread.start()
        assert started.wait(60), "the server did not start"
        return f"http://127.0.0.1:{self.port}"

    def _run(self, sock, started) -> None:
        import asyncio

        async def main():
            task = asyncio.ensure_future(self.srv.serve(sockets=[sock]))
            while not self.srv.started and not task.done():
                await asyncio.sleep(0)  # yields to the server's start-up: the loop's own event, no clock
            started.set()
            await task

        asyncio.run(main())

    def stop(self) -> None:
        assert self.thread is not None, "started"
        self.srv.should_exit = True
        self.thread.join(60)
        assert not self.thread.is_alive()


def test_two_pages_carry_on_across_a_server_restart(browser, tmp_path):  # noqa: F811
    server = Server(str(tmp_path / "tables.sqlite3"))
    url = server.start()
    alice, alice_errors = open_page(browser, 1280, 860)
    bob, bob_errors = open_page(browser, 390, 844)
    try:
        links = start_table(alice, url, seats={0: "person", 1: "person", 2: "knowledge"}, seed=4,
                            preset="classic", players=3, sets=3, set_size=3)
        alice.click("#links-done")
        bob.goto(links["1"])
        bob.wait_for_selector("body[data-screen='table'] #board svg")
        settle(bob)
        rng = random.Random(5)
        restarted = False
        for step in range(60):
            if state(alice) == "over" or state(bob) == "over":
                break
            mover = alice if state(alice) == "your-turn" else bob if state(bob) == "your-turn" else None
            assert mover is not None, (state(alice), state(bob))
            other = bob if mover is alice else alice
            if step == 2 and not restarted:
                before = {"moves": notation(alice), "alice": hand(alice), "bob": hand(bob)}
                server.stop()
                url = server.start()  # the same port and database
                alice_errors.clear()
                bob_errors.clear()  # a page's requests while the server was down
                restarted = True
            click_a_move(mover, rng)
            count = moves_shown(mover)
            other.wait_for_function(f"document.querySelectorAll('#moves li').length >= {count}")
            settle(other)
            settle(mover)
            assert notation(alice) == notation(bob)
            if restarted and step == 2:
                assert notation(alice)[: len(before["moves"])] == before["moves"]  # nothing lost
                assert hand(alice) != [] and hand(bob) != []
                assert state(alice) != "closed" and state(bob) != "closed"
        assert restarted
        # the event streams cut by the stop (and refused while it was down) are the only failures seen
        down = ("/api/events/", "ERR_INCOMPLETE_CHUNKED_ENCODING", "ERR_CONNECTION_REFUSED")
        assert not [e for e in alice_errors + bob_errors if not any(d in e for d in down)], alice_errors + bob_errors
    finally:
        alice.context.close()
        bob.context.close()
        server.stop()


def test_play_again_takes_the_other_page_along(browser, tmp_path):  # noqa: F811
    """Two people finish a Quarto game; one clicks "Play again": the other page hears of it by its event
    stream and offers to follow, and both sit at the new table in their seats (issue 39)."""
    server = Server(str(tmp_path / "tables.sqlite3"))
    url = server.start()
    alice, alice_errors = open_page(browser, 1280, 860)
    bob, bob_errors = open_page(browser, 390, 844)
    try:
        links = start_table(alice, url, game="quarto", seats={0: "person", 1: "person"}, seed=2)
        alice.click("#links-done")
        bob.goto(links["1"])
        bob.wait_for_selector("body[data-screen='table']")
        settle(bob)
        gid, tokens = links["0"].split("/")[-2], {s: link.rsplit("/", 1)[1] for s, link in links.items()}
        rng = random.Random(2)
        for _ in range(40):  # the game played through the API, each seat with its own token
            v = alice.request.get(f"{url}/api/view/{gid}", headers={"X-Seat-Token": tokens["0"]}).json()
            if v["over"]:
                break
            seat = str(v["to_move"])
            mine = alice.request.get(f"{url}/api/view/{gid}", headers={"X-Seat-Token": tokens[seat]}).json()
            got = alice.request.post(f"{url}/api/act/{gid}", data={"action": rng.choice(mine["moves"])},
                                     headers={"X-Seat-Token": tokens[seat]})
            assert got.ok, got.text()
        for pg in (alice, bob):
            pg.wait_for_function("document.body.dataset.state === 'over'")
        alice.click("#play-again")
        alice.wait_for_function(f"!location.pathname.startsWith('/t/{gid}/')")
        bob.wait_for_selector("#follow:not([hidden])")  # told through the event stream
        bob.click("#follow")
        bob.wait_for_function(f"!location.pathname.startsWith('/t/{gid}/')")
        new = alice.evaluate("location.pathname").split("/")[2]
        assert bob.evaluate("location.pathname").split("/")[2] == new
        for pg, seat in ((alice, 0), (bob, 1)):
            settle(pg)
            assert state(pg) in ("your-turn", "waiting") and notation(pg) == []
        assert {state(alice), state(bob)} == {"your-turn", "waiting"}
        assert not alice_errors and not bob_errors, alice_errors + bob_errors
    finally:
        alice.context.close()
        bob.context.close()
        server.stop()


def test_the_form_refuses_out_of_range_values_and_go_fish_shows_no_points(browser, tmp_path):  # noqa: F811
    """Typing 9 players for Go Fish (at most 8) is refused with the bound, not clamped to 8; a Go Fish table's
    plates show no points (the game keeps none) and its grid names the viewer "You" as the plates do."""
    server = Server(":memory:")
    url = server.start()
    pg, errors = open_page(browser, 1280, 860)
    try:
        pg.goto(url)
        pg.wait_for_selector("body[data-ready='1']")
        pg.select_option("#game", "gofish")
        assert pg.eval_on_selector("#game", "s => s.selectedOptions[0].textContent") == "Quantum Go Fish"
        pg.select_option("#opt-rules", "geraschenko")  # the form follows the rule set: its options, editable
        assert pg.input_value("#opt-ask-void") == "forbid" and not pg.is_disabled("#opt-ask-void")
        assert pg.is_checked("#opt-win-after-ask") and pg.input_value("#opt-after-yes") == "next"
        pg.select_option("#opt-rules", "stacky")  # back to the defaults where geraschenko had others
        assert pg.input_value("#opt-ask-void") == "allow" and not pg.is_checked("#opt-win-after-ask")
        pg.fill("#opt-players", "9")
        pg.dispatch_event("#opt-players", "input")
        pg.click("#start")
        pg.wait_for_selector("#setup-error:not([hidden])")
        assert "at most 8" in pg.inner_text("#setup-error") and pg.evaluate("document.body.dataset.screen") == "setup"
        errors.clear()  # the refusal (422) is what this test asked for
        start_table(pg, url, game="gofish", seats={0: "person", 1: "random"}, seed=3, players=2)
        assert pg.locator(".plate-score").count() == 0
        labels = pg.eval_on_selector_all("#board svg text", "els => els.map(e => e.textContent)")
        assert any(t.lstrip("▶ ").startswith("You (") for t in labels), labels
        assert not any("seat 0" in t for t in labels), labels
        assert not errors, errors
    finally:
        pg.context.close()
        server.stop()


def test_a_watch_link_opens_a_read_only_live_page(browser, tmp_path):  # noqa: F811
    """The watch link opens the table for a spectator: nothing to click, no hand, the moves arrive live."""
    server = Server(":memory:")
    url = server.start()
    host, host_errors = open_page(browser, 1280, 860)
    watcher, watch_errors = open_page(browser, 390, 844)
    try:
        start_table(host, url, seats={0: "person", 1: "random", 2: "random"}, seed=6, preset="classic",
                            players=3, sets=4, set_size=3)
        assert host.locator("#invite").is_visible()  # a table of one person can be shared to watch
        watch = host.eval_on_selector('#invite-links li[data-seat="watch"] input', "i => i.value")
        assert "/t/" in watch and watch != host.evaluate("location.href")
        watcher.goto(watch)
        watcher.wait_for_selector("body[data-screen='table'] #board svg")
        settle(watcher)
        assert watcher.locator("#me .hand .card").count() == 0 and watcher.is_disabled("#undo")
        assert watcher.locator("#actions button:not([disabled])").count() == 0
        before = moves_shown(watcher)
        click_a_move(host, random.Random(6))
        settle(host)
        watcher.wait_for_function(f"document.querySelectorAll('#moves li').length > {before}")  # live
        assert notation(watcher) == notation(host)[: len(notation(watcher))]
        assert not host_errors and not watch_errors, host_errors + watch_errors
    finally:
        host.context.close()
        watcher.context.close()
        server.stop()

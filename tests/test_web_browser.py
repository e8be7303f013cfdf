"""The web table in a real browser (Debian's Chromium, headless, through Playwright).

Two people play one classic table through their own links (each sees the other's moves at once and never the
other's hand; a reload resumes the seat); whole Quaternity and Quarto games against agents, played by clicking,
with the grid shown compared at every step with ``analyze --json`` of the record so far; agents' moves shown one
at a time; double clicks that never produce an error; and the page at 390 and 1280 px without sideways scrolling.
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from browser import (assert_no_sideways_scroll, browser, expected_grid, open_page, page,  # noqa: F401 (fixtures)
                     screenshot, shown_grid)
from quaternity_cli.main import main

pytest.importorskip("uvicorn", reason="the web extra: pip install '.[web]'")


def serving(settings=None):
    """The app as ``quaternity serve`` runs it (its limits, its header timeout) on a free local port, in a
    thread of this process: its address, then stopped."""
    from quaternity_cp.web.app import Settings, create_app, server

    settings = settings or Settings()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    srv = server(create_app(settings), settings)
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not srv.started:  # started within a second; a dead thread fails below
        if not thread.is_alive():
            pytest.fail("the server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join()
    sock.close()


@pytest.fixture(scope="module")
def server():
    yield from serving()


# -- driving the page ------------------------------------------------------------------------------
def settle(pg) -> None:
    """Wait until no request runs, no move is being shown and no agent thinks."""
    pg.wait_for_function("document.body.dataset.busy === '0'")


def state(pg) -> str:
    """``your-turn``, ``waiting`` (another player's turn) or ``over``."""
    return pg.evaluate("document.body.dataset.state")


def moves_shown(pg) -> int:
    return pg.locator("#moves li").count()


def start_table(pg, url: str, *, game: str = "quartets", seats: dict[int, str], seed: int,
                **options) -> dict[str, str]:
    """Fill the form (options by name, each seat "person" or an agent) and start; the join links, by seat."""
    pg.goto(url)
    pg.wait_for_selector("body[data-ready='1']")
    pg.select_option("#game", game)
    for name, value in options.items():
        field = "#opt-" + name.replace("_", "-")
        if pg.get_attribute(field, "type") == "checkbox":
            pg.set_checked(field, bool(value))
        elif pg.evaluate(f"document.querySelector('{field}').tagName") == "SELECT":
            pg.select_option(field, str(value))
        else:
            pg.fill(field, str(value))
            pg.dispatch_event(field, "input")
    for seat, who in seats.items():
        pg.select_option(f'#seat-list select[data-seat="{seat}"]', who)
    pg.click("details.more summary")
    pg.fill("#seed", str(seed))
    pg.evaluate("""() => { window.__shown = []; new MutationObserver(() => window.__shown.push(
        [document.querySelectorAll('#moves li').length, performance.now()])).observe(
        document.getElementById('moves'), { childList: true }); }""")
    pg.click("#start")
    pg.wait_for_selector("body[data-screen='table'] #board svg")
    settle(pg)
    return {li.get_attribute("data-seat"): li.locator("input").input_value()
            for li in pg.locator("#links li").all() if li.get_attribute("data-seat") != "watch"}


def notation(pg) -> list[str]:
    """The moves shown, in the record's notation."""
    return pg.eval_on_selector_all("#moves li .notation", "els => els.map(e => e.textContent)")


def hand(pg) -> list[str]:
    return pg.eval_on_selector_all("#me .hand .card", "els => els.map(e => e.dataset.card)")


def click_a_move(pg, rng: random.Random) -> str:
    """Play one legal move by clicking: an answer, a declaration, a card to ask for, or a tinted grid cell."""
    answers = pg.locator("#answers button")
    if answers.count():
        choice = answers.nth(rng.randrange(answers.count()))
    else:
        picks = pg.locator("#ask .seat-pick")
        declarations = pg.locator("#declarations button")
        if picks.count() and (not declarations.count() or rng.random() < 0.8):
            if rng.random() < 0.5:  # through the grid
                cells = pg.locator("#board [data-legal][data-action]")
                choice = cells.nth(rng.randrange(cells.count()))
            else:
                picks.nth(rng.randrange(picks.count())).click()
                cards = pg.locator("#ask .card-button")
                choice = cards.nth(rng.randrange(cards.count()))
        else:
            assert declarations.count(), "the person is on turn but nothing can be clicked"
            choice = declarations.nth(rng.randrange(declarations.count()))
    action = choice.get_attribute("data-action")
    choice.click()
    settle(pg)
    return action


def record_so_far(pg, tmp_path: Path) -> Path:
    """The record as the page's download link gives it."""
    res = pg.request.get(pg.eval_on_selector("#download", "a => a.href"))
    assert res.ok
    path = tmp_path / "so-far.json"
    path.write_text(res.text())
    return path


def cli_json(*args, code=(0, 1)) -> dict:
    res = CliRunner().invoke(main, [str(a) for a in args])
    assert res.exit_code in code, res.output
    return json.loads(res.output)


def assert_table_drawn(pg) -> None:
    """One move list item per move with the last one highlighted, and no error shown."""
    last = pg.locator("#moves li.last")
    assert last.count() == (1 if moves_shown(pg) else 0)
    if moves_shown(pg):
        assert pg.locator("#moves li").last.get_attribute("class").split().count("last") == 1
        assert pg.inner_text("#narration") == pg.inner_text("#moves li.last .say")
    assert pg.locator("#error").is_hidden(), pg.inner_text("#error")


# -- two people at one table ------------------------------------------------------------------------
def test_two_people_share_a_classic_table(browser, server):
    alice, alice_errors = open_page(browser, 1280, 860)
    bob, bob_errors = open_page(browser, 390, 844)
    links = start_table(alice, server, seats={0: "person", 1: "person", 2: "knowledge"}, seed=4,
                        preset="classic", players=3, sets=3, set_size=3)
    assert sorted(links) == ["0", "1"] and links["0"] != links["1"]
    assert all("/t/" in link for link in links.values())
    screenshot(alice, "web-links-1280")
    alice.click("#links-done")
    assert alice.evaluate("location.href") == links["0"]  # the table's address: a reload resumes the seat
    bob.goto(links["1"])
    bob.wait_for_selector("body[data-screen='table'] #board svg")
    settle(bob)

    def hands_stay_private():
        mine = {"alice": hand(alice), "bob": hand(bob)}
        assert not set(mine["alice"]) & set(mine["bob"])
        for pg, other in ((alice, 1), (bob, 0)):
            face_up = pg.eval_on_selector_all(f'#seats-around .plate[data-seat="{other}"] .card',
                                              "els => els.map(e => e.dataset.card)")
            known = pg.eval_on_selector_all(f'#board [data-state="forced"][data-seat="{other}"]',
                                            "els => els.map(e => e.dataset.card)")
            assert sorted(face_up) == sorted(known)  # only what this seat may know of the other
        return mine

    start = hands_stay_private()
    assert start["alice"] and start["bob"]
    assert alice.locator("#invite").is_visible() and bob.locator("#invite").is_hidden()  # only the host has the links
    rng = random.Random(3)
    reloaded = False
    for step in range(200):
        if state(alice) == "over" and state(bob) == "over":
            break
        mover = alice if state(alice) == "your-turn" else bob if state(bob) == "your-turn" else None
        assert mover is not None, (state(alice), state(bob))
        other = bob if mover is alice else alice
        click_a_move(mover, rng)
        # the other browser hears of the move at once (server-sent events), without doing anything
        count = moves_shown(mover)
        other.wait_for_function(f"document.querySelectorAll('#moves li').length >= {count}")
        settle(other)
        settle(mover)
        assert notation(alice) == notation(bob)  # the same moves, each told in its own words
        for pg in (alice, bob):
            assert_table_drawn(pg)
        hands_stay_private()
        if step == 3:
            screenshot(alice, "web-table-1280")
            screenshot(bob, "web-table-390", full_page=True)
            assert_no_sideways_scroll(alice, "the table at 1280 px")
            assert_no_sideways_scroll(bob, "the table at 390 px")
        if not reloaded and step >= 2 and state(bob) != "over":
            before, cards = bob.inner_text("#moves"), hand(bob)
            bob.reload()
            bob.wait_for_selector("body[data-screen='table'] #board svg")
            settle(bob)
            assert bob.inner_text("#moves") == before and hand(bob) == cards
            reloaded = True
    else:
        raise AssertionError("the game did not end")
    assert reloaded
    for pg, me in ((alice, 0), (bob, 1)):
        pg.wait_for_selector("#end-panel:not([hidden])")
        hands = pg.locator("#end-hands .end-hand")
        assert hands.count() == 3  # every hand revealed
        title = pg.inner_text("#end-title")
        assert title in ("You won!", "You lost")
        assert_no_sideways_scroll(pg, "the end panel")
    screenshot(alice, "web-end-1280")
    bob.locator("#end-panel").scroll_into_view_if_needed()
    screenshot(bob, "web-end-390")
    final = alice.request.get(alice.eval_on_selector("#download", "a => a.href")).json()
    assert "deal" in final  # the deal (every hand) only once the game is over
    alice.context.close()
    bob.context.close()
    assert not alice_errors and not bob_errors, (alice_errors, bob_errors)


# -- against agents -----------------------------------------------------------------------------------
def play_by_clicking(pg, tmp_path, rng, *, limit: int = 300) -> Path:
    """Click moves until the game ends, comparing the grid with analyze --json of the record at every step."""
    for step in range(limit):
        path = record_so_far(pg, tmp_path)
        if state(pg) == "over":
            break
        assert state(pg) == "your-turn", state(pg)
        analysis = cli_json("analyze", path, "--json")
        assert analysis["valid"]
        shown = shown_grid(pg, "#board")
        claims = pg.eval_on_selector_all(
            "#board .claimed", "els => Object.fromEntries(els.map(e => [e.dataset.set, parseInt(e.dataset.seat, 10)]))")
        scores = pg.eval_on_selector_all("#board [data-score]", "els => els.map(e => parseInt(e.dataset.score, 10))")
        assert (shown, claims, scores) == (expected_grid(analysis), analysis["claimed"], analysis["scores"]), step
        assert_table_drawn(pg)
        click_a_move(pg, rng)
    else:
        raise AssertionError("the game did not end")
    return path


def test_a_whole_quaternity_game_against_agents(browser, server, tmp_path):
    pg, errors = open_page(browser, speed="fast")
    start_table(pg, server, seats={0: "random", 1: "person", 2: "knowledge"}, seed=11,
                preset="quaternity", players=3, sets=3, set_size=3)
    # the agents' moves before the person's first turn came one at a time, the newest highlighted
    shown = pg.evaluate("window.__shown")
    counts = [n for n, _ in shown]
    assert len(counts) >= 2 and counts == list(range(1, len(counts) + 1)), counts
    assert all(b - a >= 150 for (_, a), (_, b) in zip(shown, shown[1:])), shown
    pg.select_option("#speed", "instant")
    screenshot(pg, "web-quaternity-start")
    rng = random.Random(2)
    # a double click plays once and shows no error (and no request is refused: checked at the end);
    # one undo takes that move back with the agents' replies
    before = notation(pg)
    pg.locator("#answers button, #ask .card-button").first.dblclick()
    settle(pg)
    assert pg.locator("#error").is_hidden(), pg.inner_text("#error")
    assert notation(pg) != before
    pg.click("#undo")
    settle(pg)
    assert notation(pg) == before
    path = play_by_clicking(pg, tmp_path, rng)
    checked = cli_json("check", path, "--json", code=(0,))
    assert checked["over"]
    pg.wait_for_selector("#end-panel:not([hidden])")
    title = pg.inner_text("#end-title")
    assert title == ("You won!" if 1 in checked["winners"] else "You lost" if checked["winners"]
                     else "A draw: nobody won")  # a tie that nobody wins is no loss
    if not checked["winners"]:
        assert "tie" in pg.inner_text("#end-text").lower()  # the tie rule, when it decides, is said
    screenshot(pg, "web-quaternity-end")
    # play again: a new table with the same seats
    old = pg.evaluate("location.href")
    pg.click("#play-again")
    pg.wait_for_function(f"location.href !== {json.dumps(old)}")
    settle(pg)
    assert state(pg) in ("your-turn", "over")  # (the agents may even finish a game on their own)
    assert pg.locator("#end-panel").is_hidden() == (state(pg) != "over")
    pg.context.close()
    assert not errors, errors


def test_a_double_click_plays_once_when_the_answer_comes_between_its_clicks(browser, server):
    # The whole game's double click above plays once when its second click comes while the move is on its way
    # (the controls are disabled then). Under load the answer can come first: the next question to the person is
    # drawn under the pointer and the second click answered it too (seen: it let an agent end the game, and the
    # undo stayed disabled). Here the two clicks are sent apart, the second after the first's answer is drawn.
    pg, errors = open_page(browser)
    acts = []
    pg.on("request", lambda req: acts.append(req.post_data) if "/api/act/" in req.url else None)
    # seed 2, random agents: seat 0 asks the person, and asks again after the answer
    start_table(pg, server, seats={0: "random", 1: "person", 2: "random"}, seed=2,
                preset="quaternity", players=3, sets=3, set_size=3)
    before = notation(pg)
    box = pg.locator("#answers button").first.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    pg.mouse.move(x, y)
    with pg.expect_response(lambda res: "/api/act/" in res.url):
        pg.mouse.down(click_count=1)
        pg.mouse.up(click_count=1)
    settle(pg)
    played = notation(pg)
    assert len(played) > len(before) and state(pg) == "your-turn"
    under = f"document.elementFromPoint({x}, {y}).closest('#answers button')"
    assert pg.evaluate(f"!!{under} && !{under}.disabled"), "no answer under the pointer: the test shows nothing"
    pg.mouse.down(click_count=2)  # the double click's second click
    pg.mouse.up(click_count=2)
    pg.click("#undo")  # the one move taken back (after an answer played by the second click, that answer only)
    settle(pg)
    assert notation(pg) == before
    assert len(acts) == 1, acts  # (the undo's request went after any the second click sent)
    pg.context.close()
    assert not errors, errors


def test_probabilities_and_explanations_on_demand(page, server, tmp_path, monkeypatch):
    # the page's counts and explanations stop after COUNT_SECONDS (2 s) of wall clock; here the answers are
    # compared, so the clock must not decide them on a loaded machine (the server's workers are threads of
    # this process: they read the patched value)
    from quaternity_cp.quartets import web as quartets_web

    monkeypatch.setattr(quartets_web, "COUNT_SECONDS", 120.0)
    start_table(page, server, seats={0: "person", 1: "random", 2: "random"}, seed=3,
                preset="quaternity", players=3, sets=3, set_size=3)
    rng = random.Random(9)
    for _ in range(2):
        if state(page) == "over":
            break
        click_a_move(page, rng)
    page.check("#probabilities")
    settle(page)
    path = record_so_far(page, tmp_path)
    counted = cli_json("count", path, "--json")
    shown = page.eval_on_selector_all(
        "#board [data-prob]", "els => els.map(e => [e.closest('[data-card]').dataset.card, "
        "e.closest('[data-seat]').dataset.seat, e.dataset.prob])")
    assert shown, "no probabilities shown"
    for card, seat, prob in shown:
        assert counted["cards_exact"][card][seat] == prob
    screenshot(page, "web-probabilities")
    forced = page.locator("#board [data-state=forced]")
    assert forced.count(), "nothing forced after two answered questions"
    card = forced.first.get_attribute("data-card")
    label = page.locator(f'#board [data-card="{card}"] .card-label')
    label.focus()
    page.keyboard.press("Enter")  # the grid's names are buttons for the keyboard too
    page.wait_for_function("document.querySelector('#explanation p:not(.hint)') !== null")
    expected = CliRunner().invoke(main, ["explain", str(path), card]).output.splitlines()[2]
    assert page.inner_text("#explanation").splitlines()[0] == expected
    assert page.locator("#legend li").count() >= 3  # the grid's marks explained
    screenshot(page, "web-explanation")


def test_a_quarto_game_against_an_agent(page, server, tmp_path):
    start_table(page, server, game="quarto", seats={0: "person", 1: "greedy"}, seed=2)
    from quaternity_cp.quarto import Cell, Piece
    from quaternity_cp.quarto import formats as qf
    from quaternity_cp.quarto.solver import solve

    legend = page.text_content("#legend")
    assert "light" in legend and "hollow" in legend  # the piece letters explained
    rng = random.Random(6)
    solved = False
    for _ in range(40):
        path = record_so_far(page, tmp_path)
        pos = qf.replay(qf.parse(path.read_text())).position
        board = page.eval_on_selector_all(
            "#board [data-cell]", "els => Object.fromEntries(els.map(e => [e.dataset.cell, e.dataset.piece || null]))")
        assert board == {str(c): None if pos.board[c] is None else str(pos.board[c]) for c in Cell}
        if pos.over:
            break
        assert state(page) == "your-turn"
        if not solved and len(pos.empty_cells()) <= 7:
            page.click("#solve")
            page.wait_for_function("!document.getElementById('solve').disabled")
            value = solve(list(pos.board.as_tuple()), None if pos.piece is None else int(pos.piece)).value
            words = {"win": "wins", "loss": "loses", "draw": "draw"}[value]
            verdict = page.inner_text("#verdict")
            assert "best play" in verdict.lower() and words in verdict, verdict
            screenshot(page, "web-quarto-verdict")
            solved = True
        pieces = page.locator("#board .left[data-legal]")
        offered = [pieces.nth(i).get_attribute("data-piece") for i in range(pieces.count())]
        if pos.piece is None:  # the opening: choose the first piece
            page.dblclick(f'#board .left[data-piece="{rng.choice(offered)}"]')  # a double click plays once
        else:
            cells = page.locator("#board .cell[data-legal]")
            cell = rng.choice([cells.nth(i).get_attribute("data-cell") for i in range(cells.count())])
            page.click(f'#board .cell[data-cell="{cell}"]')
            if offered and not pos.board.place(Cell.parse(cell), pos.piece).winning_lines():
                # give a piece that does not let the opponent win at once, when there is one
                after = pos.board.place(Cell.parse(cell), pos.piece).winning_pieces()
                safe = [p for p in offered if not after >> int(Piece.parse(p)) & 1]
                page.click(f'#board .left[data-piece="{rng.choice(safe or offered)}"]')
        settle(page)
        assert page.locator("#error").is_hidden(), page.inner_text("#error")
    else:
        raise AssertionError("the Quarto game did not end")
    assert solved
    checked = CliRunner().invoke(main, ["quarto", "check", str(path), "--json"])
    assert checked.exit_code == 0, checked.output
    winner = json.loads(checked.output)["winner"]
    page.wait_for_selector("#end-panel:not([hidden])")
    title = page.inner_text("#end-title")
    assert title == ("You won!" if winner == 0 else "You lost" if winner == 1 else "A draw: nobody won")
    screenshot(page, "web-quarto-end")


def test_the_setup_form_fits_a_phone(browser, server):
    pg, errors = open_page(browser, 390, 844)
    pg.goto(server)
    pg.wait_for_selector("body[data-ready='1']")
    for game in ("quartets", "quarto"):
        pg.select_option("#game", game)
        assert_no_sideways_scroll(pg, f"the setup of {game}")
    screenshot(pg, "web-setup-390", full_page=True)
    rules = pg.request.get(server + pg.get_attribute("#rules-link", "href"))
    assert rules.ok and "Quarto" in rules.text()
    pg.context.close()
    assert not errors, errors


def test_the_page_takes_each_games_parts_from_its_package(page, server):
    """The shared page loads every game's script and style from /games/<game>/ (its package) before anything
    is drawn, each script registers itself under its game's name, and the form's "Rules" link follows the
    game chosen to that game's own rules page."""
    loaded = []
    page.on("request", lambda req: loaded.append(req.url.removeprefix(server)) if "/games/" in req.url else None)
    page.goto(server)
    page.wait_for_selector("body[data-ready='1']")
    games = page.request.get(server + "/api/games").json()
    for name, entry in games.items():
        for role in ("script", "style"):
            if role in entry["page"]:
                assert entry["page"][role] in loaded, (name, role)
        if "script" in entry["page"]:
            assert page.evaluate(f"Object.keys(Quaternity.parts).includes({name!r})"), name
        page.select_option("#game", name)
        assert page.get_attribute("#rules-link", "href") == entry["page"].get("rules", "#")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.input_value("#game") == next(iter(games))  # the form proposes the server's first game


def test_a_game_without_a_table_script_is_played_with_a_button_per_legal_move(page, server):
    """The page's plain choices for a game whose package has no table script: here Quarto's script is served
    empty (it registers nothing), and the page offers the person's legal moves as buttons, in the notation."""
    page.route("**/games/quarto/table.js", lambda route: route.fulfill(
        status=200, content_type="text/javascript", body="// nothing registered\n"))
    start_table(page, server, game="quarto", seats={0: "person", 1: "greedy"}, seed=5)
    assert page.evaluate("!Object.keys(Quaternity.parts).includes('quarto')")
    view = page.request.get(page.eval_on_selector("#download", "a => a.href").replace("/record/", "/view/"))
    legal = view.json()["moves"]
    buttons = page.eval_on_selector_all("#game-actions button", "els => els.map(e => e.dataset.action)")
    assert buttons == legal and len(legal) == 16  # the opening move: the piece the opponent places
    page.click(f'#game-actions button[data-action="{legal[3]}"]')
    settle(page)
    assert notation(page)[0] == legal[3] and len(notation(page)) == 2  # the move, and the agent's reply
    assert state(page) == "your-turn"
    now = page.request.get(page.eval_on_selector("#download", "a => a.href").replace("/record/", "/view/")).json()
    assert page.eval_on_selector_all("#game-actions button", "els => els.map(e => e.dataset.action)") == now["moves"]


def test_a_table_put_away_for_idleness_carries_on(browser):
    """Idle, the table is put away from memory (it stays in the database, issue 39): its event stream ends,
    the page reconnects by itself (an event: its next request to the stream), and the game goes on."""
    from quaternity_cp.web.app import Settings

    for url in serving(Settings(idle_seconds=1.0)):
        pg, errors = open_page(browser, 390, 844)
        with pg.expect_request(lambda r: "/api/events/" in r.url and r.url.count("/api/events/") == 1) as first:
            start_table(pg, url, seats={0: "person", 1: "random"}, seed=1, preset="quaternity", players=2, sets=2,
                        set_size=2)
        assert first.value
        with pg.expect_request(lambda r: "/api/events/" in r.url, timeout=60_000):
            pass  # put away after a second without a request: the stream ends, the browser opens it again
        assert state(pg) != "closed"
        count = moves_shown(pg)
        click_a_move(pg, random.Random(1))
        settle(pg)
        assert moves_shown(pg) > count and state(pg) in ("your-turn", "waiting", "over")
        assert_no_sideways_scroll(pg, "a table that came back")
        pg.context.close()
        assert not [e for e in errors if "ERR_INCOMPLETE_CHUNKED_ENCODING" not in e], errors


# -- the end, the verdict, the header, the ask list: what the page promises ---------------------------------
def api(pg, url: str, path: str, body: dict | None = None, token: str | None = None) -> dict:
    """A JSON request to the table's API from the page's browser context (200 expected)."""
    headers = {"X-Seat-Token": token} if token else {}
    res = pg.request.post(url + path, data=body, headers=headers) if body is not None else \
        pg.request.get(url + path, headers=headers)
    assert res.ok, (path, res.status, res.text())
    return res.json()


def quarto_draw() -> list[str]:
    """The moves of a Quarto game that fills the board with no line (the first seed whose random game does)."""
    from quaternity_cp.quarto.game import QuartoState
    from quaternity_cp.web.session import WebGame

    for seed in range(300):
        table = WebGame.new("quarto", humans=[0, 1], seed=seed)
        rng = random.Random(seed)
        while not table.state.is_terminal():
            seat = table.state.current_player()
            table.act(rng.choice(table.legal_texts(seat)), seat)
        assert isinstance(table.state, QuartoState)
        if table.state.position.winner is None:
            return [text for _, text in table.log]
    raise AssertionError("no draw in 300 random games")


def test_a_quarto_draw_is_a_draw_and_no_verdict_outlives_its_position(page, server):
    """Two people play a Quarto game to a full board with no line (the last placement clicked): the end says
    a draw, not a loss; the solver's verdict asked before the last move is gone once the game is over; the
    header names the game."""
    moves = quarto_draw()
    assert len(moves) == 17  # the opening choice and 16 placements: player 0 places last
    table = api(page, server, "/api/new", {"game": "quarto", "humans": [0, 1], "seed": 1})
    tokens = {seat: link.rsplit("/", 1)[1] for seat, link in table["links"].items()}
    for i, move in enumerate(moves[:-1]):
        api(page, server, f"/api/act/{table['id']}", {"action": move}, tokens[str(i % 2)])
    page.goto(server + table["links"]["0"])
    page.wait_for_selector("body[data-screen='table'] #board svg")
    settle(page)
    assert page.inner_text("#brand-name") == "Quarto table" and page.title() == "Quarto table"
    assert state(page) == "your-turn"
    page.click("#solve")
    page.wait_for_function("!document.getElementById('solve').disabled")
    assert "draws" in page.inner_text("#verdict")
    page.click(f'#board .cell[data-cell="{moves[-1]}"]')
    page.wait_for_selector("#end-panel:not([hidden])")
    settle(page)
    assert page.inner_text("#status").startswith("A draw")
    assert page.inner_text("#end-title") == "A draw: nobody won"
    assert page.get_attribute("#end-panel", "data-outcome") == "draw"
    assert page.locator("#verdict").is_hidden(), page.inner_text("#verdict")
    view = api(page, server, f"/api/view/{table['id']}", token=tokens["0"])
    assert view["result"]["outcome"] == "draw" and view["result"]["you_won"] is None
    screenshot(page, "web-quarto-draw")


def known_refusal(pg, url: str) -> tuple[dict, dict, dict]:
    """A classic table of three people, played at random through the API until seat 0, on its turn, may ask a
    seat for a card that its grid says that seat cannot hold: (the table, the tokens, that question)."""
    import re

    for seed in range(40):
        table = api(pg, url, "/api/new", {"humans": [0, 1, 2], "seed": seed,
                                          "options": {"preset": "classic", "players": 3, "sets": 4, "set_size": 3}})
        tokens = {int(s): link.rsplit("/", 1)[1] for s, link in table["links"].items() if s != "watch"}
        rng = random.Random(seed)
        for _ in range(60):
            views = {s: api(pg, url, f"/api/view/{table['id']}", token=t) for s, t in tokens.items()}
            if views[0]["over"]:
                break
            mover = next(s for s, v in views.items() if v["your_turn"])
            svg = views[mover]["svg"].replace("&gt;", ">")
            cells = re.findall(r'data-card="([^"]+)" data-seat="(\d+)" data-state="(\w+)" data-legal="1" '
                               r'data-action="([^"]+)"', svg)
            if mover == 0:
                refused = [(c, int(s), a) for c, s, st, a in cells if st == "impossible"]
                others = [c for c, s, st, a in cells if refused and int(s) == refused[0][1] and st != "impossible"]
                if refused and others:
                    card, seat, action = refused[0]
                    return table, tokens, {"card": card, "seat": seat, "action": action, "open": others}
            api(pg, url, f"/api/act/{table['id']}", {"action": rng.choice([a for *_, a in cells])},
                tokens[mover])
    raise AssertionError("no question known to be refused in 40 classic games")


def test_the_ask_list_marks_the_questions_known_to_be_refused(page, server):
    table, tokens, question = known_refusal(page, server)
    page.goto(server + table["links"]["0"])
    page.wait_for_selector("body[data-screen='table'] #board svg")
    settle(page)
    assert page.inner_text("#brand-name") == "Quartets table"
    page.click(f'#ask .seat-pick[data-seat="{question["seat"]}"]')
    listed = page.eval_on_selector_all(
        "#ask .card-button", "els => els.map(e => [e.dataset.card, e.dataset.refused === '1'])")
    marks = dict(listed)
    assert marks[question["card"]] is True and all(not marks[c] for c in question["open"]), listed
    flags = [refused for _, refused in listed]
    assert flags == sorted(flags), listed  # the known refusals come last
    button = page.locator(f'#ask .card-button[data-card="{question["card"]}"]')
    assert "the answer will be no" in button.get_attribute("aria-label")
    assert button.locator(".card-no").inner_text() == "no"
    screenshot(page, "web-ask-known-no")

"""The web table in a real browser (Debian's Chromium, headless, through Playwright): whole games
played by clicking, the grid shown compared at every step with ``analyze --json`` of the record so far."""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from browser import browser, expected_grid, page, screenshot, shown_grid  # noqa: F401 (fixtures)
from quaternity_cli.main import main

pytest.importorskip("uvicorn", reason="the web extra: pip install '.[web]'")


@pytest.fixture(scope="module")
def server():
    """The app on a free local port, in a thread of this process."""
    import uvicorn

    from quaternity_cp.web.app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:  # started within a second; a dead thread fails below
        if not thread.is_alive():
            pytest.fail("the server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join()


def settle(pg) -> None:
    pg.wait_for_function("document.body.dataset.busy === '0'")


def new_game(pg, url: str, *, game: str = "quartets", preset: str = "quaternity", players: int = 3, sets: int = 3,
             set_size: int = 3, human: int = 0, agents: dict | None = None, seed: int = 1) -> None:
    pg.goto(url)
    pg.wait_for_selector("body[data-ready='1']")
    pg.select_option("#game", game)
    if game == "quartets":
        pg.select_option("#preset", preset)
        pg.fill("#players", str(players))
        pg.dispatch_event("#players", "change")
        pg.fill("#sets", str(sets))
        pg.fill("#set-size", str(set_size))
    pg.select_option("#human", str(human))
    pg.dispatch_event("#human", "change")
    for seat, name in (agents or {}).items():
        pg.select_option(f'#agents select[data-seat="{seat}"]', name)
    pg.fill("#seed", str(seed))
    pg.click("#start")
    pg.wait_for_selector("#board svg")
    settle(pg)


def record_so_far(pg, tmp_path: Path) -> Path:
    """The record as the page's download link gives it."""
    href = pg.eval_on_selector("#download", "a => a.href")
    res = pg.request.get(href)
    assert res.ok
    path = tmp_path / "so-far.json"
    path.write_text(res.text())
    return path


def cli_json(*args, code=(0, 1)) -> dict:
    res = CliRunner().invoke(main, [str(a) for a in args])
    assert res.exit_code in code, res.output
    return json.loads(res.output)


def click_a_move(pg, rng: random.Random) -> str:
    """Play one legal move by clicking: an answer button, a declaration, or a tinted grid cell."""
    answers = pg.locator("#answers button")
    declarations = pg.locator("#declarations button")
    cells = pg.locator("#board [data-legal][data-action]")
    options = [answers.nth(i) for i in range(answers.count())]
    if not options:
        options = [cells.nth(i) for i in range(cells.count())] + \
                  [declarations.nth(i) for i in range(declarations.count())]
    assert options, "the person is on turn but nothing can be clicked"
    choice = rng.choice(options)
    action = choice.get_attribute("data-action")
    choice.click()
    settle(pg)
    return action


def play_by_clicking(pg, tmp_path, rng, *, seat_view: list[str], limit: int = 300) -> Path:
    """Click moves until the game ends, comparing the grid with analyze --json of the record at every step.

    With ``seat_view`` (classic: ``--as SEAT``) the comparison waits for the end: until then the
    downloadable record leaves the deal out, and ``--as`` needs it; each step is compared with the
    final record cut at that step's number of moves.
    """
    later: list[tuple[int, dict, dict, list]] = []
    for step in range(limit):
        path = record_so_far(pg, tmp_path)
        status = pg.inner_text("#status")
        shown = shown_grid(pg, "#board")
        shown_claims = pg.eval_on_selector_all(
            "#board .claimed", "els => Object.fromEntries(els.map(e => [e.dataset.set, parseInt(e.dataset.seat, 10)]))")
        scores = pg.eval_on_selector_all("#board [data-score]", "els => els.map(e => parseInt(e.dataset.score, 10))")
        if status.startswith("Game over"):
            break
        if seat_view:
            data = json.loads(path.read_text())
            assert "deal" not in data
            assert cli_json("check", path, "--json", code=(0,))["valid"]
            later.append((len(data["moves"]), shown, shown_claims, scores))
        else:
            analysis = cli_json("analyze", path, "--json")
            assert analysis["valid"]
            assert (shown, shown_claims, scores) == (expected_grid(analysis), analysis["claimed"], analysis["scores"]), \
                f"step {step}"
        assert status.startswith(("Your turn", "You are asked")), status
        click_a_move(pg, rng)
    else:
        raise AssertionError("the game did not end")
    final = json.loads(path.read_text())
    for n, shown, shown_claims, scores in later:
        cut = tmp_path / f"cut-{n}.json"
        cut.write_text(json.dumps(dict(final, moves=final["moves"][:n])))
        analysis = cli_json("analyze", cut, "--json", *seat_view)
        assert (shown, shown_claims, scores) == (expected_grid(analysis), analysis["claimed"], analysis["scores"]), \
            f"after {n} moves"
    assert not seat_view or later, "no step was compared"
    return path


def test_a_whole_quaternity_game_by_clicking(page, server, tmp_path):
    new_game(page, server, preset="quaternity", players=3, sets=3, set_size=3, human=1,
             agents={0: "random", 2: "knowledge"}, seed=11)
    screenshot(page, "web-quaternity-start")
    rng = random.Random(2)
    # undo: two moves, then back
    before = record_so_far(page, tmp_path).read_text()
    click_a_move(page, rng)
    assert record_so_far(page, tmp_path).read_text() != before
    page.click("#undo")
    settle(page)
    assert record_so_far(page, tmp_path).read_text() == before
    path = play_by_clicking(page, tmp_path, rng, seat_view=[])
    checked = cli_json("check", path, "--json", code=(0,))
    assert checked["over"]
    winners = checked["winners"]
    status = page.inner_text("#status")
    assert ("Winner: nobody" in status) if not winners else all(
        ("you" if p == 1 else f"seat {p}") in status for p in winners)
    screenshot(page, "web-quaternity-end")


def test_a_whole_classic_game_shows_the_players_own_view(page, server, tmp_path):
    new_game(page, server, preset="classic", players=3, sets=3, set_size=4, human=0,
             agents={1: "koole-combined", 2: "knowledge"}, seed=5)
    path = play_by_clicking(page, tmp_path, random.Random(4), seat_view=["--as", "0"])
    assert cli_json("check", path, "--json", code=(0,))["over"]


def test_probabilities_and_explanations_on_demand(page, server, tmp_path):
    new_game(page, server, preset="quaternity", players=3, sets=3, set_size=3, human=0,
             agents={1: "random", 2: "random"}, seed=3)
    rng = random.Random(9)
    for _ in range(2):
        if page.inner_text("#status").startswith("Game over"):
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
    page.click(f'#board [data-card="{card}"] .card-label')
    settle(page)
    expected = CliRunner().invoke(main, ["explain", str(path), card]).output.splitlines()[2]
    assert page.inner_text("#explanation").splitlines()[0] == expected
    screenshot(page, "web-explanation")


def test_a_quarto_game_to_its_end(page, server, tmp_path):
    new_game(page, server, game="quarto", human=0, agents={1: "greedy"}, seed=2)
    from quaternity_cp.quarto import Cell, Piece
    from quaternity_cp.quarto import formats as qf

    rng = random.Random(6)
    solved = False
    for _ in range(40):
        path = record_so_far(page, tmp_path)
        result = qf.replay(qf.parse(path.read_text()))
        pos = result.position
        board = page.eval_on_selector_all(
            "#board [data-cell]", "els => Object.fromEntries(els.map(e => [e.dataset.cell, e.dataset.piece || null]))")
        assert board == {str(c): None if pos.board[c] is None else str(pos.board[c]) for c in Cell}
        if pos.over:
            break
        if not solved and len(pos.empty_cells()) <= 7:
            page.click("#solve")
            page.wait_for_function("!document.getElementById('verdict').textContent.startsWith('Solving')")
            settle(page)
            from quaternity_cp.quarto.solver import solve

            value = solve(list(pos.board.as_tuple()), None if pos.piece is None else int(pos.piece)).value
            assert f"can force a {value}" in page.inner_text("#verdict")
            screenshot(page, "web-quarto-verdict")
            solved = True
        pieces = page.locator("#board .left[data-legal]")
        offered = [pieces.nth(i).get_attribute("data-piece") for i in range(pieces.count())]
        if pos.piece is None:  # the opening: choose the first piece
            page.click(f'#board .left[data-piece="{rng.choice(offered)}"]')
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
    else:
        raise AssertionError("the Quarto game did not end")
    assert solved
    checked = CliRunner().invoke(main, ["quarto", "check", str(path), "--json"])
    assert checked.exit_code == 0, checked.output
    winner = json.loads(checked.output)["winner"]
    status = page.inner_text("#status")
    assert status.startswith("Game over")
    assert (f"player {winner} completed a line" in status) if winner is not None else "draw" in status
    screenshot(page, "web-quarto-end")

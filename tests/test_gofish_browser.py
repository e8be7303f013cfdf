"""Quantum Go Fish at the web table in a real browser (Debian's Chromium, headless, through Playwright; skipped
cleanly without it): a person against two agents asks by clicking (a player then a suit, or a tinted cell),
answers with the Yes / No buttons (the answer the rules forbid disabled), and plays until the table's move cap
or a win; at every step the table of ranges shown is the JSON API's view and ``analyze --json`` of the record
so far, a click on a cell explains it, and the end panel says how the game ended. No console errors."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from browser import browser, page, screenshot  # noqa: F401 (fixtures)
from quaternity_cli.main import main

pytest.importorskip("uvicorn", reason="the web extra: pip install '.[web]'")

from test_web_browser import record_so_far, server, settle, start_table, state  # noqa: E402,F401 (fixture)


def shown_ranges(pg) -> list[list[list[int]]]:
    """The table of ranges the picture shows: [player][suit] -> [low, high]."""
    cells = pg.eval_on_selector_all(
        "#board [data-player][data-suit]",
        "els => els.map(e => [+e.dataset.player, +e.dataset.suit, +e.dataset.low, +e.dataset.high])")
    players = 1 + max(c[0] for c in cells)
    suits = 1 + max(c[1] for c in cells)
    grid = [[[-1, -1] for _ in range(suits)] for _ in range(players)]
    for p, s, lo, hi in cells:
        grid[p][s] = [lo, hi]
    return grid


def api_view(pg) -> dict:
    res = pg.request.get(pg.eval_on_selector("#download", "a => a.href").replace("/record/", "/view/"))
    assert res.ok, res.text()
    return res.json()


def analyzed(path: Path, view: dict) -> list[list[list[int]]]:
    """``analyze --json`` of the record so far, as [player][suit] -> [low, high]."""
    res = CliRunner().invoke(main, ["analyze", str(path), "--json"])
    assert res.exit_code == 0, res.output
    counts = json.loads(res.output)["counts"]
    return [[counts[suit][str(p)] for suit in view["suits"]] for p in range(len(view["table"]))]


def ask_by_clicking(pg, view: dict, rng: random.Random) -> str:
    """Ask one legal question: through the seat and suit buttons, or a tinted cell of the table."""
    legal = [m for m in view["moves"] if m.endswith("?")]
    assert legal and all(m.startswith("0>") for m in legal)
    cells = pg.eval_on_selector_all("#board [data-player][data-suit][data-action]",
                                    "els => els.map(e => e.dataset.action)")
    assert sorted(cells) == sorted(legal)  # every legal question, and only they, is a tinted cell
    question = rng.choice(legal)
    asked, suit = question[2:-1].split(":")
    if rng.random() < 0.5:
        pg.click(f'#board [data-action="{question}"]')
    else:
        pg.click(f'#ask .seat-pick[data-seat="{asked}"]')
        pg.wait_for_selector(f'#ask .seat-pick[data-seat="{asked}"][aria-pressed="true"]')
        buttons = pg.eval_on_selector_all("#ask .suit-pick:not([aria-disabled=true])",
                                          "els => els.map(e => e.dataset.action)")
        assert sorted(buttons) == sorted(m for m in legal if m.startswith(f"0>{asked}:"))
        pg.click(f'#ask .suit-pick[data-suit="{suit}"]')
    return question


def answer_by_clicking(pg, view: dict, rng: random.Random) -> str:
    """Answer the open question with an enabled button; the other is enabled exactly when it is legal too."""
    legal = {m[-1]: m for m in view["moves"]}
    assert set(legal) <= {"+", "-"} and legal
    for mark in "+-":
        button = pg.locator(f'#answers button[data-answer="{mark}"]')
        enabled = button.is_enabled() and button.get_attribute("data-action") is not None
        assert enabled == (mark in legal), (mark, legal)
    if len(legal) == 1:  # a forced answer: the other button does nothing
        before = pg.locator("#moves li").count()
        pg.click(f'#answers button[data-answer="{"-" if "+" in legal else "+"}"]', force=True)
        settle(pg)
        assert pg.locator("#moves li").count() == before and pg.locator("#answers").count() == 1
    mark = rng.choice(sorted(legal))
    pg.click(f'#answers button[data-answer="{mark}"]')
    return legal[mark]


def test_a_gofish_game_against_agents_by_clicking(page, server, tmp_path):  # noqa: F811
    start_table(page, server, game="gofish", seats={0: "person", 1: "greedy", 2: "random"}, seed=3, max_moves=10)
    assert page.evaluate("Object.keys(Quaternity.parts).includes('gofish')")
    rng = random.Random(7)
    played, asked, answered, explained = [], 0, 0, False
    for _ in range(60):
        view = api_view(page)
        assert shown_ranges(page) == [[[lo, hi] for lo, hi in zip(low, high)]
                                      for low, high in zip(view["bounds"]["low"], view["bounds"]["high"])]
        path = record_so_far(page, tmp_path)
        assert shown_ranges(page) == analyzed(path, view)
        hands = page.eval_on_selector_all("#board [data-hand]", "els => els.map(e => +e.dataset.hand)")
        assert hands == [t["cards"] for t in view["table"]]
        said = page.eval_on_selector_all("#moves li .say", "els => els.map(e => e.textContent)")
        assert said == [e["text"] for e in view["log"]]  # the narration, in words
        if view["over"]:
            break
        assert state(page) == "your-turn"  # agents move at once: the page waits for the person only
        if not explained and view["log"]:  # why a cell of another player has its range
            cell = page.locator("#board [data-player='1'][data-suit='0']")
            if cell.get_attribute("data-action") is None:
                cell.click()
                page.wait_for_function("document.querySelector('#explanation p:not(.hint)') !== null")
                assert "of " + view["suits"][0] in page.inner_text("#explanation")
                explained = True
        if view["pending"] is not None:
            assert page.locator("#ask").count() == 0
            played.append(answer_by_clicking(page, view, rng))
            answered += 1
        else:
            assert page.locator("#answers").count() == 0
            played.append(ask_by_clicking(page, view, rng))
            asked += 1
        settle(page)
        assert page.locator("#error").is_hidden(), page.inner_text("#error")
        # the move clicked is in the record (a question answered since is the same move, answered)
        record = json.loads(record_so_far(page, tmp_path).read_text())
        assert any(m[:-1] == played[-1][:-1] for m in record["moves"])
    else:
        raise AssertionError("the game did not end at its move cap")
    assert asked and answered and explained
    checked = CliRunner().invoke(main, ["check", str(path), "--json"])
    assert checked.exit_code == 0, checked.output
    verdict = json.loads(checked.output)
    page.wait_for_selector("#end-panel:not([hidden])")
    title = page.inner_text("#end-title")
    if verdict["over"]:  # a win under the rules
        assert title == ("You won!" if verdict["winners"] == [0] else "You lost")
    else:  # the move cap: a draw
        assert len(record["moves"]) == 10 and title == "A draw: nobody won"
    assert page.inner_text("#end-text") == view["result"]["text"]
    screenshot(page, "web-gofish-end")


def test_named_suits_at_a_phone_sized_table(browser, server):  # noqa: F811
    """Suits named by the table's option are asked for by name, and the table fits a 390 px window."""
    from browser import assert_no_sideways_scroll, open_page

    pg, errors = open_page(browser, 390, 844)
    start_table(pg, server, game="gofish", seats={0: "person", 1: "random"}, seed=4, players=2, suits=2,
                suit_names="Narwhals,Scruples")
    assert pg.eval_on_selector_all("#ask .suit-pick", "els => els.map(e => e.dataset.suit)") == ["Narwhals", "Scruples"]
    assert_no_sideways_scroll(pg, "a Go Fish table")
    pg.click('#ask .suit-pick[data-suit="Scruples"]')
    settle(pg)
    view = api_view(pg)
    assert view["log"][0]["move"].startswith("0>1:Scruples")
    assert shown_ranges(pg) == [[[lo, hi] for lo, hi in zip(low, high)]
                                for low, high in zip(view["bounds"]["low"], view["bounds"]["high"])]
    screenshot(pg, "web-gofish-390", full_page=True)
    assert_no_sideways_scroll(pg, "a Go Fish table after a move")
    pg.context.close()
    assert not errors, errors

"""The report page in a real browser (Debian's Chromium, headless): step through it with the
keyboard and the buttons; at every step the grid shown is ``analyze --json`` of the record so far."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from browser import (assert_no_sideways_scroll, browser, expected_grid, open_page, page,  # noqa: F401 (fixtures)
                     screenshot, shown_grid)
from quaternity_cli.main import main
from quaternity_cp.quartets.formats import parse_record

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def prefix_file(tmp_path: Path, source: Path, k: int) -> Path:
    """The record ``source`` cut after ``k`` moves, as a JSON record."""
    rec = parse_record(source.read_text())
    g = rec.game
    data = {
        "players": list(g.player_names) if g.named_players else g.players,
        "sets": list(g.set_names),
        "set_size": g.set_size,
        "rules": rec.rules.to_dict(),
        "moves": rec.texts[:k],
    }
    out = tmp_path / f"prefix-{k}.json"
    out.write_text(json.dumps(data))
    return out


def cli_json(*args) -> dict:
    res = CliRunner().invoke(main, [str(a) for a in args])
    assert res.exit_code in (0, 1), res.output
    return json.loads(res.output)


# The 32-card four-player game walks 60 steps in the browser (about 6 s); the three smaller records cover
# the same promise in the default run, the long one runs with --runslow.
@pytest.mark.parametrize("name", ["three.txt", "illegal-three.txt", "quaternity.json",
                                  pytest.param("full-game-4p-8x4.json", marks=pytest.mark.slow)])
def test_every_step_of_a_report_shows_the_analysis_of_the_record_so_far(tmp_path, page, name):
    source = EXAMPLES / name
    out = tmp_path / "report.html"
    res = CliRunner().invoke(main, ["report", str(source), "-o", str(out)])
    assert res.exit_code in (0, 1), res.output
    applied = cli_json("check", source, "--json")["moves_applied"]
    page.goto(out.as_uri())
    page.wait_for_selector("#grid svg")
    for k in range(applied + 1):
        if k:
            # alternate the keyboard and the button
            page.keyboard.press("ArrowRight") if k % 2 else page.click("#next")
        expected = "start" if k == 0 else f"after move {k} of "
        assert page.inner_text("#where").startswith(expected)
        prefix = prefix_file(tmp_path, source, k)
        analysis = cli_json("analyze", prefix, "--json")
        assert shown_grid(page) == expected_grid(analysis), f"step {k}"
        shown_claims = page.eval_on_selector_all(
            "#grid .claimed", "els => Object.fromEntries(els.map(e => [e.dataset.set, parseInt(e.dataset.seat, 10)]))")
        assert shown_claims == analysis["claimed"]
        deals = cli_json("count", prefix, "--json")["deals"]
        assert page.get_attribute("#deals", "data-deals") == str(deals)
        if k == applied // 2:
            screenshot(page, f"report-{source.stem}-step{k}")
    assert page.is_disabled("#next")
    if applied < len(parse_record(source.read_text()).moves):
        assert "Illegal move" in page.inner_text("#illegal-move")
    else:
        assert page.inner_text("#illegal") == ""
    page.keyboard.press("Home")
    assert page.inner_text("#where") == "start"
    page.keyboard.press("End")
    assert page.inner_text("#where").startswith(f"after move {applied} of")
    screenshot(page, f"report-{source.stem}-end")


def test_clicking_a_forced_card_shows_its_explanation(tmp_path, page):
    out = tmp_path / "report.html"
    CliRunner().invoke(main, ["report", str(EXAMPLES / "three.txt"), "-o", str(out)])
    page.goto(out.as_uri())
    page.keyboard.press("End")
    page.click('#grid [data-card="A1"][data-state="forced"]')
    boxes = page.locator("#explanations .why")
    assert boxes.count() == 1
    assert boxes.first.inner_text().startswith("A1 must be with Peter, because of moves 1 and 5.")
    page.click('#grid .claimed[data-set="C"]')
    assert page.locator("#explanations .why").first.inner_text().startswith("Set C was claimed by Robin")
    screenshot(page, "report-explanation")


def test_a_quarto_report_shows_the_board_after_each_move(tmp_path, page):
    source = EXAMPLES / "quarto" / "won.json"
    out = tmp_path / "q.html"
    assert CliRunner().invoke(main, ["report", str(source), "-o", str(out)]).exit_code == 0
    moves = json.loads(source.read_text())["moves"]
    page.goto(out.as_uri())
    from quaternity_cp.quarto import Position

    pos = Position()
    for k in range(len(moves) + 1):
        if k:
            page.keyboard.press("ArrowRight")
            pos.push(moves[k - 1])
        shown = page.eval_on_selector_all(
            "#grid [data-cell]", "els => Object.fromEntries(els.map(e => [e.dataset.cell, e.dataset.piece || null]))")
        assert shown == {str(c): None if p is None else str(p) for c, p in
                         ((c, pos.board[c]) for c in __import__("quaternity_cp.quarto", fromlist=["Cell"]).Cell)}
    winning = page.eval_on_selector_all("#grid [data-winning]", "els => els.map(e => e.dataset.cell).sort()")
    assert winning == sorted(str(c) for line in pos.winning_lines for c in line)
    screenshot(page, "report-quarto-end")


@pytest.mark.parametrize("name", ["full-game-4p-8x4.json", "illegal-three.txt", "quarto/won.json"])
def test_a_report_fits_a_phone_at_every_step(tmp_path, browser, name):
    source = EXAMPLES / name
    out = tmp_path / "report.html"
    res = CliRunner().invoke(main, ["report", str(source), "-o", str(out)])
    assert res.exit_code in (0, 1), res.output
    pg, errors = open_page(browser, 390, 844)
    pg.goto(out.as_uri())
    pg.wait_for_selector("#grid svg")
    steps = pg.evaluate("JSON.parse(document.getElementById('report-data').textContent).steps.length")
    for k in range(steps):
        assert_no_sideways_scroll(pg, f"the report at step {k}")
        box = pg.locator("#slider").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390  # the slider stays on the screen
        if k == steps // 2:
            screenshot(pg, f"report-{source.stem}-390")
        pg.keyboard.press("ArrowRight")
    screenshot(pg, f"report-{source.stem}-390-end", full_page=True)
    pg.context.close()
    assert not errors, errors

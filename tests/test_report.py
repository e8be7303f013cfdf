"""Pictures and reports without a browser: the SVG grid, analyze --svg, count --plot, report files, _repr_html_."""

from __future__ import annotations

import json
import re
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main
from quaternity_cp import Game, Position
from quaternity_cp.quartets.formats import parse_record
from quaternity_cp.quartets.replay import replay
from quaternity_cp.registry import OptionError, load_all, record_game
from quaternity_cp.quartets.report import deals_text, record_report
from quaternity_cp.quartets.svg import grid_svg
from quaternity_cp.quarto.svg import quarto_svg

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SVG = "{http://www.w3.org/2000/svg}"


def cells_of(svg: str) -> dict[tuple[str, int], str]:
    root = ET.fromstring(svg)
    return {(g.attrib["data-card"], int(g.attrib["data-seat"])): g.attrib["data-state"]
            for g in root.iter(f"{SVG}g") if g.get("data-state")}


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_grid_marks_a_card_given_as_forced_with_the_taker():
    pos = Position(Game(3, 2, 3))
    pos.push_str("0>1:A0+")
    cells = cells_of(grid_svg(pos))
    assert cells[("A0", 0)] == "forced"
    assert cells[("A0", 1)] == "impossible" and cells[("A0", 2)] == "impossible"
    assert cells[("B0", 1)] == "possible"


@pytest.mark.parametrize("name", ["three.txt", "quaternity.json", "illegal.json", "rules-examples/3-giver-bound.txt"])
def test_analyze_svg_shows_exactly_the_analysis(tmp_path, name):
    out = tmp_path / "grid.svg"
    res = run("analyze", EXAMPLES / name, "--json", "--svg", out)
    assert res.exit_code in (0, 1), res.output
    data = json.loads(res.output)
    cells = cells_of(out.read_text())
    want = {}
    for card, v in data["cards"].items():
        for p in range(len(data["scores"])):
            want[card, p] = "forced" if v["forced"] == p else "possible" if p in v["owners"] else "impossible"
    assert cells == want
    root = ET.fromstring(out.read_text())
    claimed = {g.get("data-set"): int(g.get("data-seat")) for g in root.iter(f"{SVG}g") if "claimed" in (g.get("class") or "")}
    assert claimed == data["claimed"]
    turn = [int(g.get("data-seat")) for g in root.iter(f"{SVG}g") if g.get("data-turn")]
    assert turn == ([] if data["turn"] is None else [data["turn"]] if isinstance(data["turn"], int) else data["turn"])


def test_analyze_svg_names_the_illegal_move(tmp_path):
    out = tmp_path / "grid.svg"
    res = run("analyze", EXAMPLES / "illegal-three.txt", "--svg", out)
    assert res.exit_code == 1
    assert "Illegal move 6 (Robin&gt;Quinty:B2-)" in out.read_text()


def test_analyze_svg_unwritable_path_is_bad_input(tmp_path):
    res = CliRunner().invoke(main, ["analyze", str(EXAMPLES / "three.txt"), "--svg", str(tmp_path / "no" / "x.svg")])
    assert res.exit_code == 2
    assert "does not exist" in res.output and "--svg" in res.output


def test_probabilities_are_shown_in_the_cells():
    from quaternity_cp.quartets.count import card_probabilities

    rec = parse_record((EXAMPLES / "rules-examples/3-giver-bound.txt").read_text())
    pos = replay(rec).position
    svg = grid_svg(pos, probabilities=card_probabilities(pos.constraints))
    assert re.findall(r'data-prob="([^"]+)"', svg).count("1/2") == 4


def test_repr_html_is_the_grid():
    pos = Position(Game(2, 2, 2))
    html = pos._repr_html_()
    assert "<svg" in html and 'data-card="A0"' in html


def test_quarto_board_svg_and_repr():
    from quaternity_cp.quarto import Position as QuartoPosition

    pos = QuartoPosition()
    pos.push("LRTS")
    pos.push("A1 DSSH")
    svg = quarto_svg(pos)
    root = ET.fromstring(svg)
    taken = {g.get("data-cell"): g.get("data-piece") for g in root.iter(f"{SVG}g") if g.get("data-cell")}
    assert taken["A1"] == "LRTS" and taken["B1"] is None and len(taken) == 16
    assert pos._repr_html_().count('class="left"') == 14


def test_deals_text_is_exact_then_a_power_of_ten():
    assert deals_text(90) == "90"
    assert deals_text(10**20) == "about 1.00 × 10^20"
    assert deals_text(10**5000).endswith("10^5000")  # beyond int-to-str limits


def test_report_is_self_contained_and_has_every_step(tmp_path):
    out = tmp_path / "r.html"
    res = run("report", EXAMPLES / "three.txt", "-o", out)
    assert res.exit_code == 0, res.output
    html = out.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "http" not in html.replace("http://www.w3.org/2000/svg", "")
    data = json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
                      .group(1))
    rec = parse_record((EXAMPLES / "three.txt").read_text())
    assert [s["index"] for s in data["steps"]] == list(range(len(rec.moves) + 1))
    assert data["steps"][0]["deals"] == "1680"  # 9! / (3! 3! 3!)
    assert data["illegal"] is None


def test_report_of_an_illegal_record_exits_1_and_explains(tmp_path):
    out = tmp_path / "r.html"
    res = run("report", EXAMPLES / "illegal-three.txt", "-o", out)
    assert res.exit_code == 1
    html = out.read_text()
    assert "The answer had to be yes: B2 must be with Quinty" in html


def test_report_bad_input(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"players": 3}')
    res = run("report", bad, "-o", tmp_path / "x.html")
    assert res.exit_code == 2
    assert res.output.startswith("quaternity: ") and res.output.count("\n") == 1


def long_record(moves: int) -> str:
    """A legal record of ``moves`` moves (the same two questions, answered no, again and again)."""
    return "players: 3\nsets: 3\nset_size: 2\n" + "0>1:A0- 1>0:B0-\n" * (moves // 2) + "0>1:A0-\n" * (moves % 2)


def test_a_record_too_long_for_a_report_is_refused_in_one_line(tmp_path):
    path = tmp_path / "long.txt"
    out = tmp_path / "r.html"
    # the limit is the option's; at it, the page is written with every step
    path.write_text(long_record(7))
    res = run("report", path, "-o", out, "--max-moves", 6, "--no-explain")
    assert res.exit_code == 2 and "has 7 moves, more than a report shows (at most 6" in res.output, res.output
    assert not out.exists()
    res = run("report", path, "-o", out, "--max-moves", 7, "--no-explain")
    assert res.exit_code == 0, res.output
    data = json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                                out.read_text(), re.S).group(1))
    assert [s["index"] for s in data["steps"]] == list(range(8))
    # 100,000 moves (the most a record holds) made a page of gigabytes: refused before the replay, at once
    path.write_text(long_record(100_000))
    started = time.monotonic()
    res = run("report", path, "-o", out, "--force")
    assert time.monotonic() - started < 30  # a refusal, not a replay of 100,000 moves (about 1 s here)
    assert res.exit_code == 2, res.output
    assert res.output == (f"quaternity: --max-moves: {path} has 100,000 moves, more than a report shows (at most"
                          " 2,000: each move is a step of the page); raise --max-moves, or report a part of the"
                          " record\n")


def test_the_library_report_has_the_same_limit():
    from quaternity_cli.cmd_report import REPORT_MOVES
    from quaternity_cp.quartets.report import MAX_REPORT_MOVES

    assert REPORT_MOVES == MAX_REPORT_MOVES  # the command's default is the library's
    record = parse_record(long_record(5))
    with pytest.raises(OptionError, match="has 5 moves, more than a report shows") as err:
        record_report(record, max_moves=4, explain=False)
    assert err.value.option == "max_moves"
    assert record_report(record, max_moves=5, explain=False).startswith("<!DOCTYPE html>")
    assert record_report(record, max_moves=None, explain=False).startswith("<!DOCTYPE html>")


def test_report_text_survives_script_breaking_names():
    rec = parse_record("players: 2\nsets: 2\nset_size: 2\n0>1:A0+")
    html = record_report(rec, title="</script><script>alert(1)</script>")
    assert "<script>alert(1)" not in html


def test_quarto_report(tmp_path):
    out = tmp_path / "q.html"
    assert record_game((EXAMPLES / "quarto/won.json").read_text()) == "quarto"
    res = run("report", EXAMPLES / "quarto/won.json", "-o", out)
    assert res.exit_code == 0, res.output
    html = out.read_text()
    assert html.count('class=\\"quarto-board\\"') == 16  # the start and 15 moves
    res = run("report", EXAMPLES / "quarto/illegal.json", "-o", out, "--force")
    assert res.exit_code == 1


def test_report_errors_name_the_option_or_the_file(tmp_path):
    out = tmp_path / "r.html"
    res = run("report", EXAMPLES / "three.txt", "--rules", "nonsense", "-o", out)
    assert res.exit_code == 2 and res.output.startswith("quaternity: --rules: unknown rule preset 'nonsense'")
    bad = tmp_path / "bad.json"
    bad.write_text('{"players": 2, "sets": 1}')
    res = run("report", bad, "-o", out)
    assert res.exit_code == 2 and res.output == f"quaternity: {bad}: missing field 'set_size'\n"
    # Quarto's one rule option replaces the file's (issue 40: it was ignored); anything else is refused
    res = run("report", EXAMPLES / "quarto/won.json", "--rules", "nonsense", "-o", out)
    assert res.exit_code == 2 and res.output.startswith("quaternity: --rules: Quarto has no rule sets"), res.output
    res = run("report", EXAMPLES / "quarto/squares.json", "--rules", "squares=false", "-o", out)
    assert res.exit_code == 1 and out.read_text().startswith("<!DOCTYPE html>"), res.output
    res = run("report", EXAMPLES / "quarto/squares.json", "--rules", "squares=true", "-o", out, "--force")
    assert res.exit_code == 0, res.output


def test_the_game_of_a_file_comes_from_the_registry():
    assert record_game((EXAMPLES / "full-game-4p-8x4.json").read_text()) == "quartets"  # no "game" field
    assert record_game((EXAMPLES / "three.txt").read_text()) == "quartets"  # plain text
    assert record_game('\ufeff {"game": "quarto", "board": []}') == "quarto"
    assert record_game('{"game": "chess", "moves": []}') == "quartets"  # no such game: read as the default
    assert record_game('{"game": "quarto", "moves": [1e999999999]') == "quartets"  # not JSON


@pytest.mark.parametrize("game", ["quartets", "quarto"])
def test_every_game_draws_its_states(game):
    import random

    spec = load_all()[game]
    state = spec.new_state(3, **spec.default_options())
    rng = random.Random(3)
    for _ in range(6):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    root = ET.fromstring(spec.svg(state))
    assert root.tag == f"{SVG}svg" and len(root) > 1


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_count_plot(tmp_path, suffix):
    pytest.importorskip("matplotlib")
    out = tmp_path / f"h.{suffix}"
    res = run("count", EXAMPLES / "three.txt", "--history", "--plot", out)
    assert res.exit_code == 0, res.output
    head = out.read_bytes()[:200]
    assert head.startswith(b"\x89PNG") if suffix == "png" else b"<svg" in head


def test_count_plot_needs_history_and_a_known_type(tmp_path):
    res = run("count", EXAMPLES / "three.txt", "--plot", tmp_path / "h.png")
    assert res.exit_code == 2 and "--history" in res.output
    res = run("count", EXAMPLES / "three.txt", "--history", "--plot", tmp_path / "h.gif")
    assert res.exit_code == 2 and ".png or .svg" in res.output


def test_analyze_as_svg_is_the_players_own_view(tmp_path):
    out = tmp_path / "mine.svg"
    res = run("analyze", EXAMPLES / "classic-midgame.json", "--as", "1", "--json", "--svg", out)
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    want = {}
    for card, v in data["cards"].items():
        for p in range(len(data["scores"])):
            want[card, p] = "forced" if v["forced"] == p else "possible" if p in v["owners"] else "impossible"
    svg = out.read_text()
    assert cells_of(svg) == want
    assert set(re.findall(r">(\w+) ★<", svg)) == set(data["view"]["hand"])
    public = tmp_path / "public.svg"
    run("analyze", EXAMPLES / "classic-midgame.json", "--svg", public)
    assert cells_of(public.read_text()) != cells_of(svg)  # the hand tells more than the table knows


def test_a_count_too_large_for_the_table_is_said_not_guessed():
    from quaternity_cp.quartets.count import CountLimitError, DealCounter

    rec = parse_record((EXAMPLES / "full-game-4p-8x4.json").read_text())
    html = record_report(rec, explain=False, max_states=3)
    data = json.loads(re.search(r'id="report-data">(.*?)</script>', html, re.S).group(1))
    steps = data["steps"]
    refused = [s for s in steps if s["deals"] is None]
    assert refused and all(s["deals_text"] == "too many to count here" for s in refused)
    for s in steps[:3]:  # the early steps are the big ones
        pos = parse_record(json.dumps(dict(json.loads((EXAMPLES / "full-game-4p-8x4.json").read_text()),
                                           moves=rec.texts[: s["index"]])))
        c = replay(pos).position.constraints
        try:
            exact = DealCounter(c, 3).count()
        except CountLimitError:
            assert s["deals"] is None
        else:
            assert s["deals"] == str(exact)


def test_the_history_plot_draws_log10_of_the_deal_counts():
    """Each step's point is as high as log10 of its number of consistent deals (counted by the brute force
    of tests/reference.py), on an axis from 0 at the bottom to the largest of them at the top."""
    import math

    from reference import reference_replay, reference_start

    rec = parse_record((EXAMPLES / "three.txt").read_text())
    counts = [reference_start(rec.game, rec.rules).deal_count]
    counts += [step.deal_count for step in reference_replay(rec.game, rec.rules, rec.texts)]
    assert counts[0] == 1680 and counts[-1] < counts[0] and all(counts)
    html = record_report(rec, explain=False)
    data = json.loads(re.search(r'id="report-data">(.*?)</script>', html, re.S).group(1))
    assert [s["log10"] for s in data["steps"]] == pytest.approx([math.log10(n) for n in counts], abs=1e-4)
    root = ET.fromstring(re.search(r'<div id="history">(.*?)</div>', html, re.S).group(1))
    axis = next(line for line in root.iter(f"{SVG}line") if line.get("x1") == line.get("x2")
                and line.get("id") is None)  # the vertical axis: top and bottom of the scale
    top, bottom = float(axis.get("y1")), float(axis.get("y2"))
    left = float(axis.get("x1"))
    right = float(next(root.iter(f"{SVG}line")).get("x2"))  # the horizontal axis's end
    highest = max(math.log10(n) for n in counts)
    assert [t.text for t in root.iter(f"{SVG}text")][:2] == [f"{highest:.0f}", "0"]  # the axis labels
    points = [tuple(map(float, p.split(","))) for p in next(root.iter(f"{SVG}polyline")).get("points").split()]
    assert len(points) == len(counts)
    for i, ((x, y), n) in enumerate(zip(points, counts)):
        assert x == pytest.approx(left + (right - left) * i / (len(counts) - 1), abs=0.06)
        assert bottom - y == pytest.approx((bottom - top) * math.log10(n) / highest, abs=0.06), (i, n)

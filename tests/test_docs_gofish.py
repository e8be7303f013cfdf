"""Issue 38, item 7: the documentation covers Quantum Go Fish as it covers the first game (the index, the command
line, the file formats, the web API's view fields, explanation and verdict, the limits in the rule book's
section 10 and on the Go Fish page, each read from the code's own constants), and the report's --max-moves bound
is true: capped with its reason, kept by every game's report, and a report's memory grows with its page, not
with a copy of every position."""

from __future__ import annotations

import json
import re
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """The text of a section (from its heading to the next heading of the same or a higher level)."""
    level = heading.split(" ")[0]
    start = text.index(heading + "\n")
    rest = text[start + len(heading):]
    ends = [m.start() for m in re.finditer(r"^#{1,%d} " % len(level), rest, re.M)]
    return rest[: ends[0]] if ends else rest


def run(*args: object):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


# -- every page a newcomer reads first mentions Go Fish --------------------------------------------------------
@pytest.mark.parametrize("name", ["index.md", "cli.md", "formats.md"])
def test_the_first_pages_mention_go_fish(name):
    text = page(name)
    assert "Quantum Go Fish" in text and "gofish.md" in text, name


def test_the_command_line_page_hands_go_fish_records_on():
    text = page("cli.md")
    assert "## Quantum Go Fish" in text and '"game": "gofish"' in text
    assert "gofish.md#the-commands" in text and "quaternity gofish starts" in text


def test_the_formats_page_has_the_go_fish_record():
    text = section(page("formats.md"), "## Quantum Go Fish record")
    sample = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    from quaternity_cp.gofish.check import replay

    result = replay(sample)  # the sample is a record the program reads, every move legal
    assert result.valid and sample["game"] == "gofish"


# -- the limits: the code's own numbers -------------------------------------------------------------------------
def test_the_go_fish_limits_are_in_the_rule_book_and_the_go_fish_page():
    from quaternity_cp.gofish import SPEC
    from quaternity_cp.gofish.rules import (MAX_PLAYERS, MAX_SUIT_SIZE, MAX_SUITS, MIN_PLAYERS, MIN_SUIT_SIZE,
                                            MIN_SUITS)

    options = {o.name: o for o in SPEC.options}
    records = (f"{MIN_PLAYERS}-{MAX_PLAYERS} players", f"{MIN_SUITS}-{MAX_SUITS} suits",
               f"{MIN_SUIT_SIZE}-{MAX_SUIT_SIZE} cards per suit")
    table = (f"{options['players'].low}-{options['players'].high} players", f"at most {options['suits'].high} suits",
             f"{options['suit_size'].low}-{options['suit_size'].high} cards per suit")
    rules = section(page("rules.md"), "## 10. Files and limits")
    row = next(line for line in rules.splitlines() if line.startswith("| Quantum Go Fish game size"))
    for words in records + table:
        assert words in row, (words, row)
    gofish = page("gofish.md")
    limits = gofish[gofish.index("**Limits.**"):].split("\n\n")[0].replace("\n", " ")
    for low, high, what in ((MIN_PLAYERS, MAX_PLAYERS, "players"), (MIN_SUITS, MAX_SUITS, "suits"),
                            (MIN_SUIT_SIZE, MAX_SUIT_SIZE, "cards per suit"),
                            (options["players"].low, options["players"].high, "players")):
        assert f"{low} to {high} {what}" in limits, (low, high, what)
    assert f"at most {options['suits'].high} suits" in limits


def test_the_go_fish_limits_are_kept():
    from quaternity_cp.gofish.rules import MAX_PLAYERS, MAX_SUIT_SIZE, GoFishError, Setup

    Setup.of(MAX_PLAYERS, suits=MAX_PLAYERS, suit_size=2)
    with pytest.raises(GoFishError, match="players"):
        Setup.of(MAX_PLAYERS + 1)
    with pytest.raises(GoFishError, match="suit_size"):
        Setup.of(2, suit_size=MAX_SUIT_SIZE + 1)


# -- the web API: the Go Fish view, explanation and verdict ------------------------------------------------------
def test_the_web_api_page_names_every_key_of_the_go_fish_view():
    from quaternity_cp.web.session import WebGame

    text = page("web-api.md")
    own = section(text, "### Quantum Go Fish")
    table = WebGame.new("gofish", {"players": 3, "name_suits": True}, human=0, seed=1,
                        agents={"1": "random", "2": "random"}, advance=False)
    view = table.view(0)
    shared = set(re.findall(r"^\| `([a-z_]+)`", section(text, "## What each answer holds"), re.M))
    shared |= {k for line in section(text, "## What each answer holds").splitlines() if line.startswith("| `")
               for k in re.findall(r"`([a-z_]+)`", line.split("|")[1])}
    for key in view:
        assert key in shared or f"`{key}`" in own, key
    for key in ("bounds", "determined", "pending", "moves", "naming", "winner", "suits"):
        assert f"`{key}`" in own, key
    # the explanation and the verdict, with their keys
    assert "/api/explain/{id}?set=SUIT&seat=N" in own and '{"lines": [...]}' in own
    verdict = table.verdict(0)
    for key in verdict:
        assert f"`{key}`" in own or f'"{key}"' in own, key
    assert "the seat that decides now" in own and "20,000 positions" in own and "2 seconds" in own


def test_the_web_api_numbers_are_the_codes():
    from quaternity_cp.gofish.web import SOLVE_POSITIONS, SOLVE_SECONDS

    own = section(page("web-api.md"), "### Quantum Go Fish")
    assert f"{SOLVE_POSITIONS:,} positions" in own and f"{SOLVE_SECONDS:g} seconds" in own


# -- report --max-moves: capped, kept by every game, and the memory per move bounded -----------------------
def test_max_moves_is_capped_with_its_reason(tmp_path):
    from quaternity_cli.cmd_report import MOVES_LIMIT
    from quaternity_cp.report import REPORT_MOVES_LIMIT

    assert MOVES_LIMIT == REPORT_MOVES_LIMIT == 20_000
    code, out, err = run("report", tmp_path / "missing.json", "-o", tmp_path / "r.html", "--max-moves", 30_000)
    assert code == 2 and err.startswith("quaternity: --max-moves: at most 20,000, not 30,000: each move is a step "
                                        "of the page"), err
    assert "160 MB" in err and err.count("\n") == 1
    assert "At most 20,000." in " ".join(run("report", "--help")[1].split())
    rules = section(page("rules.md"), "## 10. Files and limits")
    assert "at most 20,000" in rules and "10 KB of page and 10 ms" not in rules


def test_the_go_fish_report_keeps_max_moves(tmp_path):
    record = tmp_path / "long.json"
    record.write_text(json.dumps({"game": "gofish", "players": 2, "moves": ["0>1:A+", "1>0:A+"] * 4}))
    out = tmp_path / "r.html"
    code, text, err = run("report", record, "-o", out, "--max-moves", 7)
    assert code == 2 and "has 8 moves, more than a report shows (at most 7" in err, err
    assert not out.exists()
    code, text, err = run("report", record, "-o", out, "--max-moves", 8)
    assert code == 0, err
    data = json.loads(re.search(r'id="report-data">(.*?)</script>', out.read_text(), re.S).group(1))
    assert [s["index"] for s in data["steps"]] == list(range(9))


def _peak(moves: int) -> tuple[int, int]:
    """(peak bytes allocated, page bytes) of the report of a legal record of ``moves`` moves (no explanations,
    a short page budget: the per-move cost of the steps themselves)."""
    from quaternity_cp.quartets.formats import parse_record
    from quaternity_cp.quartets.report import record_report

    record = parse_record("players: 3\nsets: 3\nset_size: 2\n" + "0>1:A0- 1>0:B0-\n" * (moves // 2))
    tracemalloc.start()
    try:
        html = record_report(record, max_moves=None, explain=False, max_seconds=0.05)
        return tracemalloc.get_traced_memory()[1], len(html)
    finally:
        tracemalloc.stop()


def test_a_reports_memory_grows_with_its_page_not_with_every_position():
    """Each step was kept as a copy of its position and its objects (about 85 KB a move; 30,000 moves passed
    3.7 GB): now one position is alive and each step only as its JSON text, so the memory a move takes is a
    small multiple of the page's bytes a move (the steps' text, the page, its writing)."""
    small, page_small = _peak(100)
    large, page_large = _peak(300)
    per_move = (large - small) / 200
    page_per_move = (page_large - page_small) / 200
    assert page_per_move < 12_000, page_per_move  # about 8 KB a move on this table (docs: rules.md section 10)
    assert per_move < 3 * page_per_move, (per_move, page_per_move)


def test_a_report_page_is_ascii():
    """One byte a character in memory: a page with a title in any script is written with character references."""
    from quaternity_cp.report import page as make_page

    html = make_page({"kind": "demo", "title": "Ünïcødé ♠", "setup": "—", "steps": [{"svg": "<svg/>"}],
                      "illegal": None, "moves": []})
    assert html.isascii() and "&#9824;" in html

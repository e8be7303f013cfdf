"""``quaternity puzzle sheet``: the printable page of a folder of puzzles.

Without a browser: the page has every puzzle and every answer, one grid per
puzzle, the moves in words and in notation, titles escaped, nothing from the
network; every line of play of each strategy shown is replayed on a
:class:`~quaternity_cp.quartets.position.Position` (legal, and reaching the goal within
K); bad input is one line and exit code 2, naming the file; the output is
checked first and never replaces an input or an existing file without --force.

In Debian's Chromium (headless, as tests/browser.py launches it; skipped without
it): printed to an A4 PDF, the sheet has more than one page, the answers start
on a page of their own after the puzzles (the PDF's outline: the page of every
heading), and nothing is wider than the printed page.
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from html import escape, unescape
from pathlib import Path

import pytest
from click.testing import CliRunner

from browser import browser, open_page, screenshot  # noqa: F401 (fixtures)
from quaternity_cli.main import main
from quaternity_cp.quartets.cli.sheet import sheet
from quaternity_cp.quartets.formats import parse_record, record_from_json
from quaternity_cp.quartets.game import Declaration, Question
from quaternity_cp.quartets.puzzles.answers import dumps
from quaternity_cp.quartets.puzzles.puzzle import answer_json, solve_puzzle
from quaternity_cp.quartets.replay import replay

PUZZLES = Path(__file__).resolve().parent.parent / "examples" / "puzzles"
BUNDLED = sorted(p for p in PUZZLES.glob("*.json") if not p.name.endswith(".answer.json"))
TITLE = 'Seat 1 <b>bold</b> & "quoted" <script>alert(1)</script>'
#: Puzzles in the generator's format (docs/puzzles.md): a record of moves, its goal, a title.
RECORDS = {
    "a-quartet": ({"players": 3, "sets": 3, "set_size": 3, "rules": "quaternity",
                   "moves": ["0>1:B0+", "0>2:B2-", "2>1:A0-", "1>2:C0-", "2>1:C1+", "2>1:A0-"]}, "quartet", TITLE),
    "b-blind-win": ({"players": 3, "sets": 3, "set_size": 3, "rules": "blind",
                     "moves": ["0>1:B0-", "1>0:B1+", "1>2:A0+", "1>0:B0-", "0>2:A1-", "2>1:B1+", "2>1:C2+",
                               "2>1:C1-", "1>2:B1+", "1>2:B0+", "1>0:A2+", "1!B"]}, "win", "A blind win"),
}


def run(*args):
    return CliRunner().invoke(sheet, [str(a) for a in args])


def write_generated(folder: Path) -> dict[str, dict]:
    """The puzzles of :data:`RECORDS`, and a hand-made position (two ways in: a yes/no branch) given a
    generated answer, written as ``puzzle generate`` writes them; their answers by name."""
    folder.mkdir()
    answers = {}
    items = [(name, record_from_json(data), data, goal, title) for name, (data, goal, title) in RECORDS.items()]
    position = json.loads((PUZZLES / "04-two-ways-in.json").read_text())
    items.append(("c-two-ways", record_from_json(position), position, "quartet", "Two ways in"))
    for name, record, data, goal, title in items:
        player = replay(record).position.turn[0]
        answer = answer_json(name, solve_puzzle(record, goal, player), title=title)
        (folder / f"{name}.json").write_text(dumps(data))
        (folder / f"{name}.answer.json").write_text(dumps(answer))
        answers[name] = answer
    return answers


@pytest.fixture(scope="module")
def bundled(tmp_path_factory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("sheet") / "sheet.html"
    res = run(PUZZLES, "-o", out)
    assert res.exit_code == 0, res.output
    assert res.output.startswith(f"Wrote {out}: 13 puzzles") and "print" in res.output
    return out, out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[Path, str, dict[str, dict]]:
    folder = tmp_path_factory.mktemp("gen") / "puzzles"
    answers = write_generated(folder)
    out = folder.parent / "sheet.html"
    res = run(folder, "-o", out, "--title", "New <puzzles>")
    assert res.exit_code == 0, res.output
    return out, out.read_text(encoding="utf-8"), answers


# -- reading the page back ---------------------------------------------------------------------
def blocks(html: str, kind: str) -> list[str]:
    """The ``article`` elements of class ``kind`` (puzzle or answer), in order."""
    return re.findall(rf'<article class="{kind}" id="{kind}-\d+".*?</article>', html, flags=re.S)


def tree_paths(answer_html: str) -> list[list[tuple[list[str], str]]]:
    """Every strategy tree of an answer as its lines of play: per root-to-leaf line the moves (notation) and
    the leaf's text. Read as XML: the page writes its articles well-formed."""
    return [lines(root, []) for root in ET.fromstring(answer_html).findall("ol[@class='tree']")]


def lines(ol: ET.Element, prefix: list[str]) -> list[tuple[list[str], str]]:
    """The lines of play of a list of the tree: its moves one after the other, then its end or its branches."""
    moves = list(prefix)
    for li in ol:
        node = li.find("div")
        assert node is not None  # every item holds its move (or its end) in a div
        if "reached" in li.get("class", "").split():
            return [(moves, "".join(node.itertext()))]
        branches = li.find("ul")
        if branches is None:  # one move (or a note), the line goes on
            code = node.find("code")
            moves += [code.text or ""] if code is not None else []
            continue
        out = []
        for b in branches:
            code = b.find("div/code")
            branch = b.find("ol")
            assert branch is not None  # a branch goes on in its own list
            out += lines(branch, moves + ([code.text or ""] if code is not None else []))
        return out
    raise AssertionError(f"a line of play without an end: {moves}")


def check_lines(record, paths, goal: str, player: int, k: int | None) -> None:
    """Every line of play replayed on the puzzle's position: legal moves, ending with the goal reached (a set
    claimed by the player, or the game over with it among the winners), within K of the player's questions
    (quartet) or K moves counted as the solver does (win)."""
    assert paths
    for moves, leaf in paths:
        pos = replay(record).position
        mine = 0
        for text in moves:
            move = record.game.parse_move(text)
            assert pos.check(move) is None, (text, moves)
            mover = move.player if isinstance(move, Declaration) else move.asker
            mine += mover == player
            pos.push(move)
        if goal == "quartet":
            assert player in pos.claimed.values(), (moves, leaf)
            assert leaf.startswith("Quartet: set ")
            assert k is None or mine <= k, (moves, k)
        else:
            assert pos.over and player in pos.winners(), (moves, leaf)
            assert leaf.startswith("Game over: ")
            assert k is None or len(moves) <= k, (moves, k)


def answered(move: str) -> bool:
    return move[-1:] in "+-" or "!" in move


# -- without a browser ---------------------------------------------------------------------------
def test_the_sheet_of_the_bundled_puzzles_has_every_puzzle_and_answer(bundled):
    _, html = bundled
    puzzles, answers = blocks(html, "puzzle"), blocks(html, "answer")
    assert len(puzzles) == len(answers) == len(BUNDLED) == 13
    assert html.index('<section class="puzzles">') < html.index('<section class="answers">')
    assert html.index("</section>") < html.index('<section class="answers">')  # every puzzle before the answers
    for n, (path, block, answer) in enumerate(zip(BUNDLED, puzzles, answers), 1):
        stated = json.loads(path.with_name(path.stem + ".answer.json").read_text())
        title = stated["title"]
        assert f"<span class=\"number\">{n}.</span> {title}</h2>" in block and title in answer
        assert block.count("<svg") == 1 and 'class="quaternity-grid"' in block  # one grid per puzzle
        assert "<svg" not in answer
        assert stated["description"] not in block  # the description gives the answer away: answers only
        record = parse_record(path.read_text())
        g = record.game
        # the position in words: every card it places, the seat on turn
        for card, seats in json.loads(path.read_text()).get("cards", {}).items():
            if len(seats) == 1:
                assert f"<li>{card} is with seat {seats[0]}.</li>" in block, (path.name, card)
        assert f"{g.players} players, {g.sets} sets of {g.set_size} cards" in block
        # each stated verdict, in order, with the word of its result
        verdicts = re.findall(r'<p class="verdict">(?:<span class="sub">\((\w)\)</span> )?(\w+)', answer)
        assert len(verdicts) == len(stated["answers"]), path.name
        for (label, word), item in zip(verdicts, stated["answers"]):
            expected = {True: "Yes", False: "No"}.get(item["result"], str(item["result"]).capitalize())
            assert word == expected, (path.name, item)
        # the strategies shown work: every line of play, replayed (a strategy shown once for two verdicts)
        shown = tree_paths(answer)
        forced = [a for a in stated["answers"] if a["result"] is True and a["goal"] in ("quartet", "win")]
        assert 1 <= len(shown) <= len(forced) if forced else not shown, path.name
        for paths, item in zip(shown, forced):
            check_lines(record, paths, item["goal"], item["player"], item.get("questions", item.get("plies")))
    assert sum(1 for a in answers if "<h3>Strategy</h3>" in a) == 10  # every forced goal of the seat on turn


def test_a_sheet_of_generated_puzzles_shows_their_answer_files(generated):
    _, html, answers = generated
    assert "<title>New &lt;puzzles&gt;</title>" in html and "<h1>New &lt;puzzles&gt;</h1>" in html
    puzzles, shown = blocks(html, "puzzle"), blocks(html, "answer")
    assert [re.search(r'data-name="([^"]+)"', b).group(1) for b in puzzles] == sorted(answers)
    assert len(shown) == len(puzzles) == 3
    for block, answer_block, name in zip(puzzles, shown, sorted(answers)):
        a = answers[name]
        assert block.count("<svg") == 1
        record = parse_record((Path(_folder(generated)) / f"{name}.json").read_text())
        # the game so far: every move in notation and in words, in order
        moves = [(unescape(w), unescape(m)) for w, m in
                 re.findall(r'<li><span class="words">([^<]*)</span> <code>([^<]*)</code></li>', block)]
        assert [m for _, m in moves] == record.texts
        for (words, _), move in zip(moves, record.moves):
            if isinstance(move, Question):
                assert words.startswith(f"Seat {move.asker} asked seat {move.target} for "
                                        f"{record.game.card_name(move.card)}: seat {move.target} said "
                                        + ("yes" if move.answer else "no")), words
            else:
                assert words.startswith(f"Seat {move.player} declared set {record.game.set_name(move.set)}")
        # the answer: K, the first moves, the difficulty, the strategy's moves in the file's order
        for move in a["first_moves"]:
            assert f"<code>{escape(move)}</code>" in answer_block
        assert f"<b>Difficulty:</b> {a['difficulty']}" in answer_block
        assert f"score {a['grade']['score']:g}" in answer_block
        tree = answer_block[answer_block.index("<h3>Strategy</h3>"):]
        codes = [unescape(c) for c in re.findall(r"<code>([^<]*)</code>", tree)]
        assert [c for c in codes if answered(c)] == list(_answered_moves(a["strategy"]))
        for why in _whys(a["strategy"]):
            assert f"<b>Why:</b> {escape(why)}</div>" in tree
        (paths,) = tree_paths(answer_block)
        check_lines(record, paths, a["goal"], a["player"], a["questions"])
    # the title is escaped everywhere it is shown
    assert TITLE not in html and "<script>" not in html
    assert html.count("Seat 1 &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot; &lt;script&gt;") == 2
    # a yes/no branch: both answers, each followed to its end
    (two_ways,) = [b for b in shown if 'data-name="c-two-ways"' in b]
    assert two_ways.count('<li class="branch yes">') == 1 and two_ways.count('<li class="branch no">') == 1


def _folder(generated) -> Path:
    return generated[0].parent / "puzzles"


def _answered_moves(node: dict):
    """The moves of a strategy tree in the order the page shows them (each answer: yes first)."""
    if "ask" in node:
        for key in ("yes", "no"):
            if key in node["answers"]:
                yield node["ask"] + ("+" if key == "yes" else "-")
                yield from _answered_moves(node["answers"][key])
    elif "declare" in node:
        yield node["declare"]
        yield from _answered_moves(node["next"])
    elif "options" in node:
        for option in node["options"]:
            yield from _answered_moves(option)
    elif "choose" in node:
        for child in node["choose"].values():
            yield from _answered_moves(child)


def _whys(node: dict):
    if "why" in node:
        yield node["why"]
    for value in node.values():
        if isinstance(value, dict):
            yield from _whys(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    yield from _whys(item)


def test_the_page_is_self_contained(bundled, generated):
    for html in (bundled[1], generated[1]):
        assert html.startswith("<!DOCTYPE html>")
        assert "@page { size: A4" in html and "break-before: page" in html
        outside = re.findall(r"""(?:src|href)\s*=|<script|<link|@import|url\(""", html)
        assert not outside
        assert re.sub(r'xmlns="http://www.w3.org/2000/svg"', "", html).count("http") == 0


def test_bad_input_is_one_line_naming_the_file(tmp_path):
    def refused(folder, *extra, mention):
        res = run(folder, "-o", tmp_path / "out.html", *extra)
        assert res.exit_code == 2, res.output
        assert res.output.count("\n") == 1 and res.output.startswith("quaternity: ") and mention in res.output, \
            res.output
        assert not (tmp_path / "out.html").exists()

    refused(tmp_path / "missing", mention="missing: no such folder")
    empty = tmp_path / "empty"
    empty.mkdir()
    refused(empty, mention="empty: no puzzles")
    folder = tmp_path / "p"
    shutil.copytree(PUZZLES, folder)
    (folder / "01-one-question.answer.json").unlink()
    refused(folder, mention="01-one-question.json: no answer file 01-one-question.answer.json")
    shutil.copy(PUZZLES / "01-one-question.answer.json", folder)
    (folder / "02-either-answer.json").write_text('{"players": 3, "sets": ')
    refused(folder, mention="02-either-answer.json: ")
    shutil.copy(PUZZLES / "02-either-answer.json", folder)
    stated = json.loads((PUZZLES / "03-two-questions.answer.json").read_text())
    stated["answers"][0]["result"] = False  # the solver says yes
    (folder / "03-two-questions.answer.json").write_text(json.dumps(stated))
    refused(folder, mention="03-two-questions.answer.json: answer 1: states no but the solver finds: yes")


def test_a_generated_answer_with_a_wrong_move_is_refused(tmp_path, generated):
    source = _folder(generated)
    cases = {
        "unknown card": (lambda a: a["first_moves"].__setitem__(0, "1>0:Z9"), "first_moves"),
        "illegal strategy": (lambda a: a["strategy"].__setitem__("ask", "1>1:B0"), "strategy"),
        "wrong leaf": (lambda a: _leaf(a["strategy"]).__setitem__("set", "C"), "says a quartet (C) is reached"),
        "missing answer": (lambda a: a["strategy"]["answers"].pop("yes"), "strategy"),
    }
    for case, (spoil, mention) in cases.items():
        folder = tmp_path / case.replace(" ", "-")
        shutil.copytree(source, folder)
        path = folder / "a-quartet.answer.json"
        answer = json.loads(path.read_text())
        spoil(answer)
        path.write_text(json.dumps(answer))
        res = run(folder, "-o", tmp_path / "out.html")
        assert res.exit_code == 2, (case, res.output)
        assert res.output.count("\n") == 1 and "a-quartet.answer.json: " in res.output and mention in res.output, \
            (case, res.output)


def test_another_seats_moves_are_branches(tmp_path):
    """A win: every move of the other seat is followed (here its one move, listed twice: two branches)."""
    folder = tmp_path / "p"
    folder.mkdir()
    position = json.loads((PUZZLES / "10-coalition.json").read_text())
    record = record_from_json(position)
    answer = answer_json("coalition", solve_puzzle(record, "win", 0), title="Against both")
    node = answer["strategy"]
    while "options" not in node:
        node = next(iter(node["answers"].values()))
    assert len(node["options"]) == 1 and node["to_move"] == 2
    (folder / "coalition.json").write_text(dumps(position))
    (folder / "coalition.answer.json").write_text(dumps(answer))
    res = run(folder, "-o", tmp_path / "one.html")
    assert res.exit_code == 0, res.output
    html = (tmp_path / "one.html").read_text()
    assert "Seat 2 has one move here (up to interchangeable ones):" in html
    node["options"] *= 2
    (folder / "coalition.answer.json").write_text(dumps(answer))
    res = run(folder, "-o", tmp_path / "two.html")
    assert res.exit_code == 0, res.output
    (block,) = blocks((tmp_path / "two.html").read_text(), "answer")
    assert "Seat 2 moves; whatever it does:" in block and block.count('<li class="branch option">') == 2
    (paths,) = tree_paths(block)
    assert len(paths) == 2 and paths[0] == paths[1]
    check_lines(record, paths, "win", 0, answer["questions"])
    node["to_move"] = 1
    (folder / "coalition.answer.json").write_text(dumps(answer))
    res = run(folder, "-o", tmp_path / "three.html")
    assert res.exit_code == 2 and "coalition.answer.json: strategy" in res.output
    assert "to_move: 1 is not the seat on turn" in res.output


def _leaf(node: dict) -> dict:
    while "reached" not in node:
        node = next(iter(node["answers"].values()))
    return node


def test_the_output_is_checked_first_and_never_replaces_an_input(tmp_path):
    folder = tmp_path / "p"
    folder.mkdir()
    for name in ("01-one-question.json", "01-one-question.answer.json"):
        shutil.copy(PUZZLES / name, folder)
    puzzle = folder / "01-one-question.json"
    before = puzzle.read_text()
    res = run(folder, "-o", puzzle, "--force")
    assert res.exit_code == 2 and "is the input file" in res.output and puzzle.read_text() == before
    out = tmp_path / "sheet.html"
    out.write_text("mine")
    res = run(folder, "-o", out)
    assert res.exit_code == 2 and "exists already; pass --force" in res.output and out.read_text() == "mine"
    res = run(tmp_path / "missing", "-o", out)  # the output is refused before the folder is read
    assert res.exit_code == 2 and "exists already" in res.output
    res = CliRunner().invoke(main, ["puzzle", "sheet", str(folder), "-o", str(out), "--force"])  # as installed
    assert res.exit_code == 0 and out.read_text().startswith("<!DOCTYPE html>"), res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p", "sheet.html"]  # no temporary file left
    res = run(folder, "-o", tmp_path / "no-such-folder" / "x.html")
    assert res.exit_code == 2 and "does not exist" in res.output


# -- in a browser ------------------------------------------------------------------------------
A4_CONTENT_PX = round((210 - 2 * 14) / 25.4 * 96)  # the printed page's width inside its margins (@page)


def pdf_pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page\b", pdf))


def pdf_outline(pdf: bytes) -> list[tuple[str, int]]:
    """The PDF's outline (Chromium makes it from the headings): each heading's text and page (from 1)."""
    objects = {int(m.group(1)): m.group(2) for m in re.finditer(rb"(\d+) 0 obj\s*(.*?)endobj", pdf, flags=re.S)}

    def kids(ref: int) -> list[int]:
        body = objects[ref]
        if re.search(rb"/Type\s*/Pages\b", body):
            found = re.search(rb"/Kids\s*\[([^\]]*)\]", body)
            assert found is not None
            return [p for k in re.findall(rb"(\d+) 0 R", found.group(1)) for p in kids(int(k))]
        return [ref]

    (catalog,) = [i for i, body in objects.items() if re.search(rb"/Type\s*/Catalog\b", body)]
    root = re.search(rb"/Pages\s+(\d+) 0 R", objects[catalog])
    assert root is not None, "the catalog names its pages"
    pages = kids(int(root.group(1)))
    out = []
    for body in objects.values():
        title = re.search(rb"/Title\s*\(((?:\\.|[^\\)])*)\)", body)
        dest = re.search(rb"/Dest\s*\[(\d+) 0 R", body)
        if title and dest:
            text = re.sub(rb"\\(.)", rb"\1", title.group(1)).decode("latin-1")
            out.append((text, pages.index(int(dest.group(1))) + 1))
    return out


def _print_checks(pg, name: str) -> None:
    """The page as printed: nothing wider than the A4 page, the answers on pages of their own after the
    puzzles (checked in the DOM, in the print CSS, and in the PDF)."""
    screenshot(pg, f"puzzle-sheet-{name}-screen")
    assert pg.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    pg.emulate_media(media="print")
    pg.set_viewport_size({"width": A4_CONTENT_PX, "height": 1000})
    screenshot(pg, f"puzzle-sheet-{name}-print")
    wide = pg.evaluate("""() => {
      const out = [];
      for (const block of document.querySelectorAll('article.puzzle, article.answer, header')) {
        if (block.scrollWidth > block.clientWidth) out.push([block.id, block.scrollWidth, block.clientWidth]);
        const right = block.getBoundingClientRect().right;
        for (const el of block.querySelectorAll('*')) {
          const r = el.getBoundingClientRect();
          if (r.width && r.right > right + 0.5) out.push([block.id, el.tagName, r.right, right]);
        }
      }
      return out;
    }""")
    assert not wide, wide[:5]
    assert pg.evaluate("document.documentElement.scrollWidth") <= A4_CONTENT_PX
    assert pg.evaluate("getComputedStyle(document.querySelector('section.answers')).breakBefore") == "page"
    assert pg.evaluate("getComputedStyle(document.querySelector('article.puzzle')).breakInside") == "avoid"
    assert pg.evaluate("""document.querySelector('section.puzzles').compareDocumentPosition(
        document.querySelector('section.answers')) & Node.DOCUMENT_POSITION_FOLLOWING""")
    pdf = pg.pdf(format="A4", outline=True, tagged=True)
    assert re.search(rb"/MediaBox\s*\[0 0 595\.9\d* 842\.8\d*\]", pdf)  # A4
    pages = pdf_pages(pdf)
    assert pages > 1
    outline = pdf_outline(pdf)
    puzzles = pg.eval_on_selector_all("article.puzzle h2", "els => els.map(e => e.textContent)")
    answers_at = [p for t, p in outline if t == "Answers"]
    assert len(answers_at) == 1
    puzzle_pages = [p for t, p in outline if t in puzzles]
    assert len(puzzle_pages) == 2 * len(puzzles)  # each title: its puzzle, then its answer
    firsts, seconds = puzzle_pages[: len(puzzles)], puzzle_pages[len(puzzles):]
    assert max(firsts) < answers_at[0] <= min(seconds)  # the answers start on a new page after the puzzles
    # and the page count is the puzzles' pages plus the answers' pages
    pg.evaluate("document.querySelector('section.answers').style.display = 'none'")
    alone = pdf_pages(pg.pdf(format="A4"))
    pg.evaluate("""document.querySelector('section.answers').style.display = '';
                   document.querySelector('section.puzzles').style.display = 'none'""")
    assert alone + pdf_pages(pg.pdf(format="A4")) == pages
    assert alone == max(firsts)


@pytest.mark.parametrize("which", ["bundled", "generated"])
def test_the_sheet_prints_on_a4_with_the_answers_after_the_puzzles(request, browser, which):
    out = request.getfixturevalue(which)[0]
    pg, errors = open_page(browser, 1000, 1300)
    requests: list[str] = []
    pg.on("request", lambda r: requests.append(r.url))
    pg.goto(out.as_uri())
    assert pg.locator("article.puzzle svg.quaternity-grid").count() == pg.locator("article.puzzle").count()
    _print_checks(pg, which)
    assert [u for u in requests if not u.startswith("file:")] == []  # nothing from the network
    pg.context.close()
    assert not errors, errors


def test_the_sheet_fits_a_phone(browser, generated):
    pg, errors = open_page(browser, 390, 844)
    pg.goto(generated[0].as_uri())
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(pg, "puzzle-sheet-390", full_page=True)
    pg.context.close()
    assert not errors, errors

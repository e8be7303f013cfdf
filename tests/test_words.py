"""Issue 38, item 8: the words of every message, each fixed and tested here (a sentence that stops mid-way, a
garbled one, "a A", a claimed set Go Fish does not have, "1 of them are", "0 games/s", "tictactoe ()",
``answers`` alike for every game), and the Go Fish terminal play (``help``'s full forms of one's own moves,
``ask SEAT SUIT``, suits in any case or by a unique start, an example in the prompt, a hint that only
suggests a question whose answer may be yes, the priority rule named when several could win at once)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GOFISH = EXAMPLES / "gofish"


def run(*args: object, stdin: str | None = None):
    result = CliRunner().invoke(main, [str(a) for a in args], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def write(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


# -- JSON that does not parse: whole sentences ------------------------------------------------------------
@pytest.mark.parametrize("text, words", [
    ('{"players": 3, "moves": ["0>1:A0+', "a string is not closed: the text ends before its closing quote (is it cut short?)"),
    ('{"players": 3, "moves": [', "the text ends before the JSON value is complete (is it cut short?)"),
    ('{"players": 3,}', "a comma before the closing brace (JSON has no trailing comma)"),
    ('{"players" 3}', "expected a colon after the key"),
    ('{"players": 3} x', "more text after the JSON value (a file holds one value)"),
    ('{"players": tru}', "expected a value (a string, a number, an object, an array, true, false or null)"),
])
@pytest.mark.parametrize("game", ["quartets", "gofish", "quarto"])
def test_json_that_does_not_parse_is_told_in_a_whole_sentence(tmp_path, text, words, game):
    if game != "quartets":  # each game's reader, named by the record's first field
        text = text.replace('{"players"', f'{{"game": "{game}", "players"', 1)
    path = write(tmp_path, "cut.json", text)
    code, out, err = run("check", path)
    assert code == 2 and out == "" and err.count("\n") == 1, (out, err)
    assert words in err, err
    assert not re.search(r"\b(at|starting at)\s*$", err.strip()), err  # never "...Unterminated string starting at"


def test_the_loader_says_where_and_why():
    from quaternity_cp.jsonio import InputRefused, load_json

    with pytest.raises(InputRefused) as err:
        load_json('{"a": "x')
    assert str(err.value) == ("a string is not closed: the text ends before its closing quote (is it cut short?) "
                              "at line 1, column 7")
    assert (err.value.line, err.value.column) == (1, 7)


# -- an illegal Go Fish record, as `solve` says it ---------------------------------------------------------
def test_solve_of_an_illegal_go_fish_record_says_one_sentence(tmp_path):
    over = write(tmp_path, "over.json", {"game": "gofish", "players": 3,
                                         "moves": ["0>1:A+", "1>2:A+", "2>0:B-", "0>2:C-", "1>0:A+"]})
    code, out, err = run("solve", over)
    assert code == 1 and err == f"quaternity: {over}: move 5 (1>0:A+) is illegal: the game is over\n", err
    code, out, err = run("solve", GOFISH / "illegal.json")
    assert code == 1
    assert err.endswith(": move 2 (1>0:A+) is illegal: the asker provably holds none of the suit\n"), err
    code, out, err = run("solve", GOFISH / "illegal-lose.json", "--json")
    assert code == 1 and json.loads(out)["error"] == (
        "move 2 (1>0:A+) is illegal: the asker provably holds none of the suit; the game ended there, seat 1 the "
        "loser (invalid = lose)")
    assert " is illegal:" in err + out and "is over is illegal" not in err + out


# -- articles: "an A", "a B" -------------------------------------------------------------------------------
def test_the_puzzle_sheet_says_an_a(tmp_path):
    page = tmp_path / "sheet.html"
    code, out, err = run("puzzle", "sheet", EXAMPLES / "puzzles" / "gofish", "-o", page)
    assert code == 0, err
    html = page.read_text()
    assert "for an A:" in html and "for a B:" in html
    assert not re.search(r"for a [AEFHILMNORSX]\b", html), re.search(r"for a [AEFHILMNORSX]\b", html)


def test_the_article_of_a_suit():
    from quaternity_cp.gofish.words import article

    assert [article(s) for s in "ABCEFHS"] == ["an A", "a B", "a C", "an E", "an F", "an H", "an S"]
    assert article("Narwhals") == "Narwhals"


# -- the Go Fish report: what there is to click ----------------------------------------------------------
def test_the_go_fish_report_offers_no_claimed_set_to_click(tmp_path):
    out = tmp_path / "r.html"
    code, text, err = run("report", GOFISH / "stacky.json", "-o", out)
    assert code == 0, err
    html = out.read_text()
    data = json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html,
                                re.S).group(1))
    assert all(step["explanations"] is None for step in data["steps"])  # the page shows no "Why" panel
    assert "claimed set" not in data["hint"] and "Click a move in the list" in data["hint"]
    assert 'id="hint">Click a move in the list' in html
    assert "1 consistent table of counts" in data["steps"][-1]["text"]  # the last step: one table, not "1 tables"


def test_the_quarto_report_offers_no_claimed_set_to_click(tmp_path):
    out = tmp_path / "q.html"
    code, text, err = run("report", EXAMPLES / "quarto" / "won.json", "-o", out)
    assert code == 0, err
    data = json.loads(re.search(r'id="report-data">(.*?)</script>', out.read_text(), re.S).group(1))
    assert all(step["explanations"] is None for step in data["steps"]) and "board" in data["hint"]


# -- counts agree with their nouns --------------------------------------------------------------------------
def test_one_of_them_is():
    from quaternity_cp.gofish.explain import explain_cell
    from quaternity_cp.gofish.game import GoFish

    g = GoFish(3)
    for move in ["0>1:C+", "1>0:B-"]:
        g.push(move)
    lines = explain_cell(g, 2, 0).lines
    said = next(line for line in lines if "of them" in line)
    assert "So at least 1 of them is of A." in said and "the other cell at most 4 (a suit's size)" in said, said
    assert not any(re.search(r"\b1 of them are\b|\bother 1 cell", line) for line in lines)


def test_plies_and_questions_agree_with_their_counts():
    from quaternity_cp.quartets.solver.api import _plies

    assert (_plies(1), _plies(3)) == ("1 ply", "3 plies")


def test_the_tournament_rate_says_only_what_is_known():
    from quaternity_cli.cmd_tournament import rate_text

    assert rate_text(0, 0.0) == rate_text(0, 5.0) == rate_text(3, None) == "rate not known yet"
    assert rate_text(120, 10.0) == "12 games/s"
    assert rate_text(3, 10.0) == "0.3 games/s"  # not "0 games/s"
    assert rate_text(1, 40.0) == "40 s a game"


def test_a_line_up_of_one_agent_is_one_agent():
    code, out, err = run("tournament", "--game", "gofish", "--games", "1", "--agents", "random")
    assert code == 2 and "the line-up has 1 agent for 3 seats" in err, err


def test_a_game_without_options_is_named_alone(tmp_path):
    """A game with no options (tic-tac-toe, examples/tictactoe) is "tictactoe: ...", not "tictactoe (): ..."."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "QUATERNITY_GAME_MODULES": "tictactoe",
           "PYTHONPATH": os.pathsep.join([str(EXAMPLES), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    command = [sys.executable, "-c", "from quaternity_cli.main import main; main()", "tournament", "--game",
               "tictactoe", "--agents", "random,random", "--games", "1", "--workers", "1"]
    out = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "tictactoe: 1 game, seed 0, line-up random, random", lines[0]
    assert "()" not in out.stdout and "worker(s)" not in out.stdout and " 0 games/s" not in out.stdout


# -- answers: null when no question is open, in every game --------------------------------------------------
def test_answers_is_null_without_an_open_question_in_every_game():
    for path in (GOFISH / "stacky.json", EXAMPLES / "quaternity.json"):
        code, out, err = run("check", path, "--json")
        assert json.loads(out)["answers"] is None, path
    code, out, err = run("check", GOFISH / "forced-yes.json", "--json")
    assert json.loads(out)["answers"] == ["+"]  # the list of legal answers while a question is open
    code, out, err = run("analyze", GOFISH / "four.json", "--json")
    assert json.loads(out)["answers"] is None


# -- the Go Fish terminal play --------------------------------------------------------------------------------
def _table(**options):
    from quaternity_cp.web.session import WebGame

    return WebGame.new("gofish", {"players": 3, **options}, human=0, seed=1, agents={"1": "random", "2": "random"},
                       advance=False)


def _terminal():
    from quaternity_cp.registry import GAMES

    return GAMES["gofish"].part("terminal")


def test_help_gives_the_full_form_of_ones_own_answer():
    from quaternity_cp.web.session import WebGame

    terminal = _terminal()
    table = WebGame.new("gofish", {"players": 3}, humans=[1, 0], agents={"2": "random"}, seed=1, advance=False)
    table.act("0>1:A?", 0)  # seat 0 asks the person at seat 1
    text = terminal.help_text(table)
    assert "0>1:A+ or 0>1:A-" in text  # seat 0 asked seat 1: the answer is 0>1:A+, never 1>0:A+
    assert "1>0:A+" not in text
    mine = _table()
    text = terminal.help_text(mine)
    assert "(in full: 0>1:A?)" in text and "1>0:A+ or 1>0:A-" in text and "For example, now: 1 A" in text


def test_ask_seat_suit_is_a_command():
    terminal = _terminal()
    table = _table()
    assert terminal.to_action(table, "ask 1 A") == "0>1:A?"
    assert terminal.to_action(table, "ASK 2 b") == "0>2:B?"
    assert terminal.to_action(table, "1 A") == "0>1:A?"


def test_suits_in_any_case_or_by_a_unique_start_and_the_suits_listed():
    terminal = _terminal()
    table = _table(suit_names="Narwhals,Scruples,Qualms")
    assert terminal.to_action(table, "1 narwhals") == "0>1:Narwhals?"
    assert terminal.to_action(table, "1 NAR") == "0>1:Narwhals?"
    assert terminal.to_action(table, "ask 2 s") == "0>2:Scruples?"
    assert terminal.to_action(table, "0>1:qual?") == "0>1:Qualms?"
    with pytest.raises(ValueError) as err:
        terminal.to_action(table, "1 Zebras")
    assert "unknown suit 'Zebras': the suits are Narwhals, Scruples, Qualms" in str(err.value)
    lettered = _table()
    with pytest.raises(ValueError, match="the suits are A, B, C"):
        terminal.to_action(lettered, "1 D")


def test_the_prompt_shows_an_example_move():
    from rich.console import Console

    terminal = _terminal()
    table = _table()
    out = Console(file=io.StringIO(), width=120)
    terminal.show(out, table, quiet=True)  # as the game loop draws the table before the person's turn
    text = out.file.getvalue()
    assert "For example: 1 A (ask seat 1 for an A)" in text


def test_a_hint_only_suggests_a_question_whose_answer_may_be_yes():
    from quaternity_cli.cmd_play import hint
    from quaternity_cp.gofish.game import GoFish
    from quaternity_cp.web.session import WebGame

    terminal = _terminal()
    table = WebGame.new("gofish", {"players": 3}, humans=[0, 1, 2], seed=1, advance=False)
    for move in ["0>1:A?", "0>1:A-", "1>2:B?", "1>2:B-", "2>0:C?", "2>0:C-"]:
        table.act(move, int(move[0]) if move.endswith("?") else int(move[2]))
    game = terminal.current_game(table)
    legal = table.state.legal_actions()
    chosen, why = terminal.hint_choices(table, legal)
    assert chosen and why is None
    for move in chosen:  # every suggestion may be answered yes
        g: GoFish = game.copy()
        g.push(move.question())
        assert True in g.legal_answers(), move
    # seat 1 provably holds no A: asking it for an A is legal, but never suggested
    nothing = [m for m in legal if m.asked == 1 and m.suit == 0]
    assert nothing and not set(nothing) & set(chosen)
    for agent in ("solver", "greedy", "random"):
        said = hint(table, agent, terminal)
        assert said != "0>1:A?" and said in [game.move_text(m) for m in chosen], (agent, said)


def test_a_hint_with_no_hopeful_question_says_why():
    terminal = _terminal()
    table = _table()
    legal = table.state.legal_actions()
    # as if every question were answered no: the hint says so instead of suggesting one
    original = terminal._hopeful
    try:
        terminal._hopeful = lambda game, questions: []
        chosen, why = terminal.hint_choices(table, legal)
    finally:
        terminal._hopeful = original
    assert chosen == [] and "would be answered no" in why


def test_a_win_chosen_by_the_priority_rule_says_which_rule():
    # 2 players, 2 suits of 4: "0>1:B-" leaves seat 0 with every B and seat 1 with every A: every hand is
    # determined on seat 0's question and seat 1 holds a whole suit at the same moment
    code, out, err = run("gofish", "check", "-", stdin=json.dumps({"players": 2, "moves": ["0>1:B-"]}))
    assert code == 0
    assert ("Game over: seat 0 wins: every hand is determined on its turn. Seat 1 held a whole suit at the same "
            "moment, but under the rule priority = mover the asker's win comes first") in out, out
    code, out, err = run("gofish", "check", "-", stdin=json.dumps(
        {"players": 2, "rules": {"priority": "four-first"}, "moves": ["0>1:B-"]}))
    assert "under the rule priority = four-first a four comes first" in out, out
    # the terminal's last line and the web table say it too
    from quaternity_cp.web.session import WebGame

    terminal = _terminal()
    table = WebGame.new("gofish", {"players": 2}, humans=[0, 1], seed=1, advance=False)
    table.act("0>1:B?", 0)
    table.act("0>1:B-", 1)
    final = terminal.final_text(table)
    assert "You won: every hand is determined" in final and "priority = mover" in final, final
    assert "priority = mover" in table.view(1)["result"]["text"]


def test_a_single_winner_has_no_word_of_priority():
    code, out, err = run("gofish", "check", GOFISH / "stacky.json")
    assert "priority" not in out

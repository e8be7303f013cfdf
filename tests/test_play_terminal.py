"""``quaternity play`` through a pseudo-terminal (pexpect): whole games typed in, undo, hints, the saved record."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main

pexpect = pytest.importorskip("pexpect", reason="a test extra: pip install '.[test]'")

ROOT = Path(__file__).resolve().parent.parent


def spawn(*args: str, pause: bool = False):
    """``quaternity play ARGS`` in a pseudo-terminal; without ``pause`` the agents' moves do not wait for Enter
    (``--no-pause``: a terminal waits by default)."""
    env = dict(os.environ, NO_COLOR="1", TERM="dumb", COLUMNS="200")
    extra = [] if pause else ["--no-pause"]
    child = pexpect.spawn(sys.executable, ["-m", "quaternity_cli", "play", *extra, *args], cwd=str(ROOT), env=env,
                          encoding="utf-8", timeout=120, dimensions=(50, 200))
    return child


def legal(child, prompt: str) -> list[str]:
    child.sendline("legal")
    child.expect(r"Legal moves: ([^\r\n]*)\r?\n")
    moves = [m.strip() for m in child.match.group(1).split(",") if m.strip()]
    child.expect_exact(prompt)
    return moves


def typed(move: str) -> str:
    """A question typed in the short form, anything else as written."""
    m = re.fullmatch(r"\d+>(\d+):(\w+)\?", move)
    return f"{m.group(1)} {m.group(2)}" if m else move


def test_a_whole_quaternity_game_typed_in(tmp_path):
    save = tmp_path / "game.json"
    child = spawn("--preset", "quaternity", "--players", "3", "--sets", "3", "--set-size", "3", "--seat", "0",
                  "--agents", "random,knowledge", "--seed", "5", "--save", str(save))
    prompt = "seat 0> "
    child.expect_exact(prompt)
    moves = legal(child, prompt)
    # undo takes back the move and what the agents did after it
    child.sendline(typed(moves[0]))
    child.expect_exact(prompt)
    child.sendline("undo")
    child.expect_exact("Taken back.")
    child.expect_exact(prompt)
    assert legal(child, prompt) == moves
    child.sendline("hint")
    child.expect(r"Hint \(knowledge\): (\S+)")
    assert child.match.group(1) in moves
    child.expect_exact(prompt)
    for _ in range(200):
        moves = legal(child, prompt)
        child.sendline(typed(moves[-1]))
        index = child.expect_exact([prompt, "Game over."])
        if index == 1:
            break
    else:
        raise AssertionError("the game did not end")
    child.expect(r"(?:Winners?: ([^\r\n]*)\. You (?:won|lost)|A draw: nobody won)\.\r?\n")
    shown = child.match.group(1) or "nobody"
    child.expect_exact("Record saved to")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    res = CliRunner().invoke(main, ["check", str(save), "--json"])
    assert res.exit_code == 0, res.output
    winners = json.loads(res.output)["winners"]
    assert shown == (", ".join("you" if p == 0 else f"seat {p}" for p in winners) or "nobody")


def test_a_classic_game_shows_your_hand_and_answers_for_you(tmp_path):
    save = tmp_path / "classic.json"
    child = spawn("--preset", "classic", "--players", "3", "--sets", "3", "--set-size", "4", "--agents", "koole-first",
                  "--seed", "2", "--save", str(save))
    prompt = "seat 0> "
    child.expect_exact(prompt)
    assert "★ your cards" in child.before
    for _ in range(300):
        moves = legal(child, prompt)
        child.sendline(typed(moves[0]))
        if child.expect_exact([prompt, "Game over."]) == 1:
            break
    else:
        raise AssertionError("the game did not end")
    child.expect(pexpect.EOF)
    res = CliRunner().invoke(main, ["check", str(save), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["over"]


def test_a_quarto_game_typed_in(tmp_path):
    save = tmp_path / "quarto.json"
    child = spawn("--game", "quarto", "--agents", "greedy", "--seed", "1", "--save", str(save))
    prompt = "player 0> "
    child.expect_exact(prompt)
    for _ in range(20):
        moves = legal(child, prompt)
        child.sendline(moves[len(moves) // 2])
        if child.expect_exact([prompt, "Game over"]) == 1:
            break
    else:
        raise AssertionError("the game did not end")
    child.expect(pexpect.EOF)
    res = CliRunner().invoke(main, ["quarto", "check", str(save), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["over"]


def test_mistakes_are_said_and_the_game_goes_on(tmp_path):
    child = spawn("--players", "2", "--sets", "2", "--set-size", "2", "--agents", "random", "--seed", "1")
    prompt = "seat 0> "
    child.expect_exact(prompt)
    child.sendline("1 Z9")
    child.expect_exact("! ")
    child.expect_exact(prompt)
    child.sendline("yes")
    child.expect_exact("nobody asked you anything")
    child.expect_exact(prompt)
    child.sendline("undo")
    child.expect_exact("nothing to undo")
    child.expect_exact(prompt)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_bad_options_are_one_line_errors():
    res = CliRunner().invoke(main, ["play", "--agents", "nobody"])
    assert res.exit_code == 2
    assert res.output.startswith("quaternity: --agents: unknown agent 'nobody'") and res.output.count("\n") == 1
    res = CliRunner().invoke(main, ["play", "--seat", "5"])
    assert res.exit_code == 2 and "--seat" in res.output


def test_saving_never_replaces_a_file_unasked(tmp_path):
    """--save on an existing file needs --force; 'save FILE' in the game refuses an existing file, 'save!' replaces
    it, and a file the session wrote may be written again."""
    old = tmp_path / "old.json"
    old.write_text("keep me\n")
    result = CliRunner().invoke(main, ["play", "--seed", "1", "--save", str(old)], input="quit\n")
    assert result.exit_code == 2 and "exists already" in result.output and "--force" in result.output
    assert old.read_text() == "keep me\n"
    child = spawn("--preset", "quaternity", "--players", "3", "--sets", "3", "--set-size", "3", "--seed", "5")
    prompt = "seat 0> "
    child.expect_exact(prompt)
    child.sendline(f"save {old}")
    child.expect_exact("save! ")
    child.expect_exact(prompt)
    assert old.read_text() == "keep me\n"
    child.sendline(f"save! {old}")
    child.expect_exact(f"Saved {old}.")
    child.expect_exact(prompt)
    child.sendline(f"save {old}")  # written by this session: no question asked
    child.expect_exact(f"Saved {old}.")
    child.expect_exact(prompt)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert json.loads(old.read_text())["moves"] == []
    assert [p.name for p in tmp_path.iterdir()] == ["old.json"]  # no temporary file left


# -- what a newcomer reads: the order of the lines, own moves told back, one end message, "you" ------------------
def read_to(child, prompt: str) -> tuple[str, bool]:
    """The output up to the next prompt, or to the end of the game (then True)."""
    ended = child.expect_exact([prompt, pexpect.EOF]) == 1
    return child.before.replace("\r\n", "\n"), ended


def hinted(child, prompt: str) -> str:
    child.sendline("hint")
    child.expect(r"Hint \(\w+\): ([^\r\n]+)\r?\n")
    move = child.match.group(1)
    child.expect_exact(prompt)
    return move


#: The words of each letter of a piece, by its place (docs/quarto.md), to name a winning line independently.
TRAIT_WORDS = ({"L": "light", "D": "dark"}, {"R": "round", "S": "square"}, {"T": "tall", "S": "short"},
               {"S": "solid", "H": "hollow"})


def named_line(cells: dict[str, str]) -> str:
    """A line of four cells (name -> piece) as the end of a Quarto game names it: "row 3, all tall"."""
    names = sorted(cells)
    columns, rows = {n[0] for n in names}, {n[1] for n in names}
    if len(rows) == 1:
        name = f"row {rows.pop()}"
    elif len(columns) == 1:
        name = f"column {columns.pop()}"
    else:
        top_first = sorted(names, key=lambda n: (-int(n[1]), n[0]))
        name = f"{'square' if len(rows) == 2 else 'diagonal'} {top_first[0]}-{top_first[-1]}"
    shared = [TRAIT_WORDS[i][p[i]] for i in range(4) for p in [next(iter(cells.values()))]
              if len({q[i] for q in cells.values()}) == 1]
    return f"{name}, all {' and '.join(shared)}"


@pytest.mark.parametrize("agent, by_hint, winner", [("random", True, "You"), ("greedy", False, "Player 0")])
def test_quarto_in_the_terminal_reads_in_order_and_ends_once(tmp_path, agent, by_hint, winner):
    """The agent's first move comes before "Your turn"; help lists Quarto's commands with the legend of the
    letters; each own move is told back as the agent's are; the end is said once, on the last line, with the
    winning line marked on the board and named; the person is "you" on it."""
    save = tmp_path / "quarto.json"
    child = spawn("--game", "quarto", "--seat", "1", "--agents", agent, "--hint-agent", "greedy", "--seed", "1",
                  "--save", str(save))
    prompt = "player 1> "
    start, _ = read_to(child, prompt)
    assert start.index("Player 0 chose") < start.index("Your turn")
    child.sendline("help")
    shown, _ = read_to(child, prompt)
    assert "A1 DSSH" in shown and "board" in shown and "L light / D dark" in shown and "S solid / H hollow" in shown
    for word in ("ask", "declare", "prob", "why", "grid of who", "Quarto:"):
        assert word not in shown, word
    while True:
        move = hinted(child, prompt) if by_hint else legal(child, prompt)[7]
        child.sendline(move)
        shown, ended = read_to(child, prompt)
        assert re.search(rf"^  You (chose|placed) .*  \[{move}\]$", shown, re.M), shown
        if ended:
            break
    tail = shown[shown.index(f"[{move}]"):]
    assert tail.count("Game over") == 1 and tail.count(" won ") + tail.count(" won:") == 1, tail
    last = [line for line in tail.strip().splitlines() if not line.startswith("Record saved")][-1]
    board = {f"{'ABCD'[i]}{row}": piece for row, cells in re.findall(r"│ (\d) │(.*)│", tail)
             for i, piece in enumerate(c.strip() for c in cells.split("│")) if piece.startswith("[")}
    assert len(board) == 4, tail  # one winning line here, its four pieces in brackets
    line = {cell: piece.strip("[]") for cell, piece in board.items()}
    assert last == f"Game over. {winner} won: {named_line(line)}.", last
    assert "player 1" not in last.lower()
    res = CliRunner().invoke(main, ["quarto", "check", str(save), "--json"])
    assert res.exit_code == 0 and sorted(json.loads(res.output)["winning_lines"][0]) == sorted(line)


def test_quartets_in_the_terminal_tells_your_answers_and_says_you_at_the_end():
    """The agents' moves before the first "You are asked"; an answer typed is told back like the agents' moves;
    the probability grid has its own title; the scores are said once at the end, with "you" for the person."""
    child = spawn("--preset", "quaternity", "--players", "3", "--sets", "3", "--set-size", "3", "--seat", "1",
                  "--agents", "random", "--seed", "3")
    prompt = "seat 1> "
    start, _ = read_to(child, prompt)
    assert start.index("Seat 0 asked Seat 2") < start.index("Seat 2 asks you for") < start.index("You are asked")
    child.sendline("help")
    shown, _ = read_to(child, prompt)
    assert "ask seat 1 for card A0" in shown and "prob" in shown and "A1 DSSH" not in shown
    child.sendline("prob")
    shown, _ = read_to(child, prompt)
    assert "Chance that each player holds each card (1 forced, · impossible)" in shown and "●" not in shown
    answered = 0
    for _ in range(100):
        moves = legal(child, prompt)
        move = moves[-1]
        child.sendline("yes" if move.endswith("+") else "no" if move.endswith("-") else typed(move))
        shown, ended = read_to(child, prompt)
        if move[-1] in "+-":
            answered += 1
            assert re.search(rf"asked you for \w+: you said {'yes' if move.endswith('+') else 'no'}.*  "
                             rf"\[{re.escape(move)}\]$", shown, re.M), shown
        if ended:
            break
    else:
        raise AssertionError("the game did not end")
    assert answered
    tail = shown[shown.index(f"[{moves[-1]}]"):] if f"[{moves[-1]}]" in shown else shown
    assert tail.count("Scores:") == 1 and tail.count("Game over") == 1, tail
    last = tail.strip().splitlines()[-1]
    assert last.startswith("Game over. Scores: seat 0: ") and ", you: " in last and "seat 1" not in last, last


# -- keep every promise (issue 33): who starts, the agents' moves one at a time, reasons, legal examples, the end --
PAUSE = "(Enter: next move"
MOVE_LINE = re.compile(r"^  .*  \[([^\]\s]+)\]$", re.M)


def moves_in(text: str) -> list[str]:
    """The moves told in ``text`` (each line ends with its notation in brackets)."""
    return MOVE_LINE.findall(text.replace("\r\n", "\n"))


def checked(path) -> dict:
    res = CliRunner().invoke(main, ["check", str(path), "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def test_the_agents_moves_wait_for_enter_and_a_game_over_before_your_turn_shows_them_all(tmp_path):
    """In a terminal each agent's move waits for Enter: one move between two pauses, the game still running at
    each; a classic game the agents finish before the person's turn (seed 11: they take every set) shows every
    move of the record, says who was drawn to start and that the game ended before the person's turn."""
    save = tmp_path / "classic.json"
    child = spawn("--preset", "classic", "--players", "3", "--sets", "6", "--set-size", "4", "--seed", "11",
                  "--save", str(save), pause=True)
    assert child.expect([r"(Seat \d|You) (?:was|were) drawn to start\.", pexpect.EOF]) == 0
    starter = child.match.group(1)
    seen: list[str] = []
    for _ in range(500):
        index = child.expect_exact([PAUSE, "Game over.", pexpect.EOF])
        assert index != 2, child.before
        told = moves_in(child.before)
        if index == 1:
            seen += told
            ending = child.before
            break
        assert len([m for m in told if "!" not in m]) == 1, child.before  # one question (and its put-down)
        seen += told
        assert child.isalive()  # the game waits for the person
        child.sendline("")
    else:
        raise AssertionError("the game did not end")
    child.expect_exact("Record saved to")
    child.expect(pexpect.EOF)
    record = json.loads(save.read_text())
    assert seen == record["moves"]
    assert starter == f"Seat {record['first']}" and record["first"] != 0
    assert "The game ended before your turn came" in ending
    assert "seat 0> " not in ending
    assert checked(save)["winners"] == [2]


def test_all_shows_the_moves_up_to_your_turn_at_once():
    child = spawn("--preset", "classic", "--players", "3", "--sets", "3", "--set-size", "4", "--agents",
                  "koole-first", "--seed", "2", pause=True)
    assert child.expect_exact([PAUSE, "seat 0> ", pexpect.EOF]) == 0
    child.sendline("all")
    assert child.expect_exact([PAUSE, "seat 0> ", pexpect.EOF]) == 1
    assert "Your turn" in child.before
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_a_refused_question_gets_the_checkers_reason_and_the_prompts_example_is_legal():
    """Classic, seed 2: the prompt's example is one of the legal questions, and it is played; a question for a
    card of a set the person does not hold is refused with the checker's reason (an Illegal of the rules)."""
    from quaternity_cp.errors import Illegal

    child = spawn("--preset", "classic", "--players", "3", "--sets", "3", "--set-size", "4", "--agents",
                  "koole-first", "--seed", "2")
    prompt = "seat 0> "
    child.expect_exact(prompt)
    example = re.search(r"Your turn: ask \(e\.g\. '([^']+)'\)", child.before).group(1)
    moves = legal(child, prompt)
    assert example in [typed(m) for m in moves]
    wrong = next(f"1 {card}" for card in ("A0", "A1", "A2", "A3", "B0", "B1", "B2", "B3", "C0", "C1", "C2", "C3")
                 if f"0>1:{card}?" not in moves)
    child.sendline(wrong)
    child.expect(r"! ('[^']+') is not legal now: ([^\r\n]+)\r?\n")
    assert child.match.group(1) == f"'0>1:{wrong.split()[1]}?'"
    reason = child.match.group(2)
    assert any(reason.startswith(item.value) for item in Illegal), reason
    child.expect_exact(prompt)
    child.sendline(example)
    assert child.expect_exact([f"You asked Seat {example.split()[0]} for {example.split()[1]}", "! "]) == 0
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_quarto_examples_are_legal_and_a_taken_cell_is_said():
    """Every 'e.g.' of Quarto's prompt is a legal move at that moment; a piece placed on a taken cell is refused
    with the checker's reason."""
    child = spawn("--game", "quarto", "--seat", "1", "--agents", "greedy", "--seed", "1")
    prompt = "player 1> "
    child.expect_exact(prompt)
    taken = False
    for _ in range(20):
        shown = child.before
        example = re.search(r"\(e\.g\. '([^']+)'\)", shown)
        moves = legal(child, prompt)
        assert example and example.group(1) in moves, (shown, moves)
        board = re.findall(r"│ (\d) │(.*)│", shown)
        if not taken and board:
            full = [f"{'ABCD'[i]}{row}" for row, cells in board for i, c in enumerate(cells.split("│"))
                    if c.strip() != "·"]
            if full:
                child.sendline(f"{full[0]} {moves[0].split()[1]}" if " " in moves[0] else full[0])
                assert child.expect([r"! '[^']+' is not legal now: the cell is taken \(", r"! [^\r\n]*\r?\n"]) == 0
                child.expect_exact(prompt)
                taken = True
        child.sendline(moves[len(moves) // 2])
        if child.expect_exact([prompt, "Game over"]) == 1:
            break
    else:
        raise AssertionError("the game did not end")
    assert taken
    child.expect(pexpect.EOF)


def _play_first_legal(child, prompt: str) -> str:
    """Play the first legal move at each turn to the end; the last line."""
    for _ in range(300):
        moves = legal(child, prompt)
        child.sendline(typed(moves[0]))
        if child.expect_exact([prompt, "Game over."]) == 1:
            break
    else:
        raise AssertionError("the game did not end")
    child.expect(r"([^\r\n]*)\r?\n")
    rest = child.match.group(1)
    child.expect(pexpect.EOF)
    return "Game over." + rest


def test_a_tie_decided_by_lot_is_said_in_words(tmp_path):
    """Classic (tie=random), seed 7: three players with a set each; the record's tie-break names the winner,
    and the last line says the tie was drawn by lot, as the web table does, and that the person lost."""
    save = tmp_path / "tie.json"
    child = spawn("--preset", "classic", "--players", "3", "--sets", "3", "--set-size", "4", "--agents",
                  "koole-first", "--seed", "7", "--save", str(save))
    last = _play_first_legal(child, "seat 0> ")
    data = checked(save)
    assert data["scores"] == [1, 1, 1] and data["winners"] == [data["tie_break"]] and data["tie_break"] != 0
    w = data["tie_break"]
    assert (f"under the rule tie=random one of them was drawn at random to win: Seat {w}." in last
            and last.endswith(f"Winner: seat {w}. You lost.")), last


def test_a_draw_is_said_as_a_draw(tmp_path):
    """Quaternity (tie=all-lose), seed 11: a tie for first that nobody wins ends as "A draw: nobody won."."""
    save = tmp_path / "draw.json"
    child = spawn("--preset", "quaternity", "--players", "3", "--sets", "3", "--set-size", "3", "--agents",
                  "random", "--seed", "11", "--save", str(save))
    last = _play_first_legal(child, "seat 0> ")
    assert checked(save)["winners"] == []
    assert last.endswith("A draw: nobody won.") and "Winner" not in last, last


@pytest.mark.parametrize("extra, rules", [
    ([], {"ask_void": "forbid", "four": "some", "win_after_ask": True}),  # the rule set as it is
    (["--ask-void", "allow"], {"four": "some", "win_after_ask": True}),  # one of its options set back: played
])
def test_a_go_fish_table_plays_the_rule_set_and_every_option_given(tmp_path, extra, rules):
    """``play --game gofish --rules geraschenko`` plays geraschenko (the options left at their defaults are no
    choice), and an option given at its default value is played as given (issue 40)."""
    save = tmp_path / "gofish.json"
    child = spawn("--game", "gofish", "--rules", "geraschenko", *extra, "--seed", "1", "--save", str(save))
    child.expect(r"> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert json.loads(save.read_text())["rules"] == rules

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


def spawn(*args: str):
    env = dict(os.environ, NO_COLOR="1", TERM="dumb", COLUMNS="200")
    child = pexpect.spawn(sys.executable, ["-m", "quaternity_cli", "play", *args], cwd=str(ROOT), env=env,
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
    child.expect(r"Winners?: ([^\r\n]*)\.\r?\n")
    shown = child.match.group(1)
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

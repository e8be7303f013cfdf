"""The `quaternity quarto check` contract: exit codes, the --json keys, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "quarto"
JSON_KEYS = ["valid", "moves_applied", "error", "over", "winner", "to_move", "winning_lines", "piece"]


def run(*args, input=None):
    return CliRunner().invoke(main, ["quarto", *[str(a) for a in args]], input=input)


def check_json(path_or_dash, input=None):
    result = run("check", path_or_dash, "--json", input=input)
    return result, json.loads(result.stdout)


def test_a_won_game_is_valid():
    result, data = check_json(EXAMPLES / "won.json")
    assert result.exit_code == 0
    assert list(data) == JSON_KEYS
    assert data == {
        "valid": True, "moves_applied": 15, "error": None, "over": True, "winner": 0, "to_move": None,
        "winning_lines": [["D4", "D3", "D2", "D1"]], "piece": None,
    }


def test_a_drawn_game_is_valid_with_no_winner():
    result, data = check_json(EXAMPLES / "draw.json")
    assert result.exit_code == 0
    assert (data["over"], data["winner"], data["winning_lines"], data["moves_applied"]) == (True, None, [], 17)


def test_a_square_wins_under_the_squares_rules():
    result, data = check_json(EXAMPLES / "squares.json")
    assert result.exit_code == 0 and data["winner"] == 1
    assert data["winning_lines"] == [["A4", "B4", "A3", "B3"], ["B3", "C3", "B2", "C2"]]


def test_an_illegal_move_exits_1_naming_the_move_and_the_rule():
    result, data = check_json(EXAMPLES / "illegal.json")
    assert result.exit_code == 1
    assert data["valid"] is False and data["moves_applied"] == 5
    assert data["error"] == {"move": "C3 DRSH", "message": "the piece given is already on the board (DRSH stands on B1)"}
    assert (data["over"], data["to_move"], data["piece"]) == (False, 1, "DSTH")
    text = run("check", EXAMPLES / "illegal.json")
    assert text.exit_code == 1
    assert "   6  C3 DRSH   ILLEGAL: the piece given is already on the board (DRSH stands on B1)" in text.stdout
    assert "The record stops there; 5 moves were applied." in text.stdout


def test_a_position_is_checked_for_reachability():
    result, data = check_json(EXAMPLES / "position.json")
    assert result.exit_code == 0
    assert data == {
        "valid": True, "moves_applied": 0, "error": None, "over": False, "winner": None, "to_move": 1,
        "winning_lines": [], "piece": "LSTS",
    }
    text = run("check", EXAMPLES / "position.json")
    assert "Player 1 to move, holding LSTS; 7 pieces left to give." in text.stdout


def test_an_unreachable_position_exits_1_with_the_reason():
    result, data = check_json(EXAMPLES / "unreachable.json")
    assert result.exit_code == 1
    assert data["valid"] is False and data["error"]["move"] is None
    assert "share no cell" in data["error"]["message"]
    text = run("check", EXAMPLES / "unreachable.json")
    assert text.exit_code == 1 and "UNREACHABLE: board: the winning lines (A4 B4 C4 D4; A1 B1 C1 D1) share no cell" in text.stdout


def test_standard_input():
    text = json.dumps({"game": "quarto", "moves": ["LRTS", "A1 DSSH"]})
    result, data = check_json("-", input=text)
    assert result.exit_code == 0 and data["to_move"] == 0 and data["piece"] == "DSSH"


@pytest.mark.parametrize(
    "content,message",
    [
        ('{"game": "quarto", "moves": ["LRTS", "A0 DSSH"]}', "move 2 (\"A0 DSSH\"): no cell 'A0'"),
        ('{"game": "quarto", "moves": [], "rules": {"squares": "yes"}}', "field 'rules': option 'squares' must be true or false"),
        ('{"game": "quarto", "board": [], "piece": null, "to_move": 0}', "field 'board': expected 4 rows"),
        ("not json", "not valid JSON"),
        ('{"game": "quarto", "moves": [1e999]}', "move 1: expected a string"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = run("check", path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"quaternity: {path}: {message}")
    assert result.stderr.count("\n") == 1 and result.stdout == ""


def test_missing_file_exits_2(tmp_path):
    result = run("check", tmp_path / "nope.json")
    assert result.exit_code == 2 and "no such file" in result.stderr


def test_every_game_the_registered_game_records_passes_check(tmp_path):
    import random

    from quaternity_cp.registry import GAMES
    import quaternity_cp.quarto  # noqa: F401  (registers "quarto")

    rng = random.Random(4)
    for i in range(6):
        state = GAMES["quarto"].new_state(i, squares=i % 2 == 1)
        while not state.is_terminal() and (i < 4 or len(state.position.moves) < 7):
            state.apply_action(rng.choice(state.legal_actions()))
        path = tmp_path / f"game{i}.json"
        path.write_text(json.dumps(state.record()))
        result, data = check_json(path)
        assert result.exit_code == 0 and data["valid"]
        assert (data["over"], data["winner"], data["moves_applied"]) == (
            state.is_terminal(), state.position.winner, len(state.position.moves))


def mutations(rng, data):
    """Random damage to a record or position: fields and moves deleted, duplicated, swapped or replaced."""
    weird = [None, True, -1, 10**30, 1.5, "", "é" * 3, "\u0000", [], {}, "A1 DSSH", "LRTS", [[None] * 4] * 4]
    data = json.loads(json.dumps(data))
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(5)
        key = rng.choice(list(data)) if data else None
        if kind == 0 and key is not None:
            del data[key]
        elif kind == 1 and key is not None:
            data[key] = rng.choice(weird)
        elif kind == 2 and isinstance(data.get("moves"), list) and data["moves"]:
            moves = data["moves"]
            i, j = rng.randrange(len(moves)), rng.randrange(len(moves))
            op = rng.randrange(3)
            if op == 0:
                moves[i], moves[j] = moves[j], moves[i]
            elif op == 1:
                moves.insert(i, moves[j])
            else:
                moves[i] = rng.choice(weird)
        elif kind == 3 and isinstance(data.get("board"), list) and data["board"]:
            row = rng.choice(data["board"])
            if isinstance(row, list) and row:
                row[rng.randrange(len(row))] = rng.choice(weird + ["DSSH", "LRTS"])
        else:
            data[rng.choice(["rules", "piece", "to_move", "extra"])] = rng.choice(weird + [{"squares": True}])
    return data


def test_damaged_files_never_crash(tmp_path):
    import random

    rng = random.Random(9)
    sources = [json.loads((EXAMPLES / name).read_text()) for name in
               ("won.json", "draw.json", "position.json", "illegal.json", "unreachable.json", "squares.json")]
    codes = set()
    for i in range(120):
        path = tmp_path / f"m{i}.json"
        path.write_text(json.dumps(mutations(rng, rng.choice(sources)), ensure_ascii=rng.random() < 0.5))
        for args in (("check", path), ("check", path, "--json")):
            result = run(*args)
            assert result.exit_code in (0, 1, 2), (path.read_text(), result.output)
            codes.add(result.exit_code)
            if result.exit_code == 2:
                assert result.stderr.startswith("quaternity: ") and result.stderr.count("\n") == 1
            else:
                assert result.stderr == ""
    assert codes == {0, 1, 2}

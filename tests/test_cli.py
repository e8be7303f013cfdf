"""The quaternity command on every bundled example and on broken inputs (click's test runner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
RECORDS = sorted(
    p for p in EXAMPLES.rglob("*") if p.suffix in (".json", ".txt") and "puzzles" not in p.parts and "quarto" not in p.parts
    and "tictactoe" not in p.parts  # a game added by QUATERNITY_GAME_MODULES: tests/test_tictactoe.py runs its records
    and not p.name.endswith(".answer.json")
)


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_every_example_checks_and_analyzes(path):
    illegal = path.name.startswith("illegal") or path.name.endswith("-lie.json")
    for command in ("check", "analyze"):
        result = run(command, path, "--json")
        assert result.exit_code == (1 if illegal else 0), result.output
        data = json.loads(result.output)
        assert data["valid"] is (not illegal)
        assert (data["error"] is None) is (not illegal)
        human = run(command, path)
        assert human.exit_code == result.exit_code
        assert "Traceback" not in human.output


def test_check_json_has_the_contract_keys():
    data = json.loads(run("check", EXAMPLES / "full-game-4p-8x4.json", "--json").output)
    for key in ("valid", "moves_applied", "error", "turn", "scores", "claimed", "over", "winners", "answers"):
        assert key in data
    assert data["over"] is True and data["turn"] is None
    assert sum(data["scores"]) == 8 and len(data["claimed"]) == 8
    assert data["winners"] == [max(range(4), key=lambda p: data["scores"][p])]


def test_analyze_json_cards_and_quartets():
    data = json.loads(run("analyze", EXAMPLES / "rules-examples" / "3-giver-bound.txt", "--json").output)
    assert data["answers"] == {"yes": True, "no": False}
    assert data["cards"]["B1"] == {"owners": [0], "forced": 0}
    assert data["cards"]["A0"] == {"owners": [0, 1], "forced": None}
    assert data["quartets"] == {"possible": {"A": [], "B": []}, "forced": {}}


def test_illegal_record_reports_the_first_illegal_move():
    result = run("check", EXAMPLES / "illegal.json", "--json")
    data = json.loads(result.output)
    assert result.exit_code == 1
    assert data["moves_applied"] == 5
    assert data["error"]["move"] == 6 and data["error"]["kind"] == "question"


def test_invalid_lose_ends_the_game_with_the_loser_named():
    data = json.loads(run("check", EXAMPLES / "illegal-blind.json", "--json").output)
    assert data["over"] is True and data["loser"] == 1 and data["winners"] == [0]
    assert data["error"]["kind"] == "answer"


def test_position_round_trip_through_analyze_position(tmp_path):
    first = run("analyze", EXAMPLES / "full-game-4p-8x4.json", "--position", "--rules", "quaternity")
    assert first.exit_code == 0
    record = json.loads(run("analyze", EXAMPLES / "position.json", "--json").output)
    again = tmp_path / "again.json"
    again.write_text(run("analyze", EXAMPLES / "position.json", "--position").output)
    assert json.loads(again.read_text()) == json.loads((EXAMPLES / "position.json").read_text())
    assert json.loads(run("analyze", again, "--json").output)["cards"] == record["cards"]


def test_a_game_lost_by_an_illegal_move_gives_the_position_the_move_was_made_in(tmp_path):
    """A position file cannot say who lost: under invalid = lose, --position is the position before the losing
    move, as under reject (whose position never left it), readable again, exit code 1 for the record either way."""
    for rules in ("blind", "quaternity"):  # invalid = lose, invalid = reject
        res = run("analyze", EXAMPLES / "illegal-blind.json", "--position", "--rules", rules)
        assert res.exit_code == 1
        written = tmp_path / f"{rules}.json"
        written.write_text(res.output)
        again = json.loads(run("check", written, "--json").output)
        assert again["valid"] is True and again["over"] is False and again["turn"] == 0
        assert json.loads(res.output)["rules"] == rules
    start = json.loads(run("analyze", "-", "--position", input="players: 2\nsets: 2\nset_size: 2\n"
                                                                "rules: blind\n").output)
    assert json.loads(run("analyze", EXAMPLES / "illegal-blind.json", "--position").output) == start


def test_rules_option_overrides_the_file():
    data = json.loads(run("check", EXAMPLES / "illegal-blind.json", "--json", "--rules", "quaternity").output)
    assert data["loser"] is None and data["over"] is False and data["moves_applied"] == 0


def test_standard_input():
    result = run("check", "-", "--json", input="players: 2\nsets: 2\nset_size: 2\n0>1:A0+\n")
    assert result.exit_code == 0
    assert json.loads(result.output)["claimed"] == {"A": 0}


BROKEN = {
    "empty": ("", "empty input"),
    "malformed-json": ('{"players": 3,', "malformed JSON"),
    "not-object": ("[1, 2]", "JSON object"),
    "missing-sets": ('{"players": 3, "set_size": 2, "moves": []}', "missing field 'sets'"),
    "bad-type": ('{"players": "three", "sets": 3, "set_size": 2}', "players"),
    "uneven": ('{"players": 3, "sets": 2, "set_size": 2}', "evenly"),
    "one-player": ('{"players": 1, "sets": 2, "set_size": 2}', "at least 2 players"),
    "absurd": ('{"players": 2, "sets": 1000, "set_size": 1000000000}', "limit"),
    "unknown-card": ('{"players": 2, "sets": 2, "set_size": 2, "moves": ["0>1:Z9+"]}', "move 1"),
    "unknown-player": ('{"players": 2, "sets": 2, "set_size": 2, "moves": ["0>1:A0+", "7>0:B0-"]}', "move 2"),
    "bad-notation": ("players: 2\nsets: 2\nset_size: 2\n0-1:A0+\n", "move 1"),
    "open-in-middle": ("players: 2\nsets: 2\nset_size: 2\n0>1:A0? 0>1:B0+\n", "only be the last move"),
    "unknown-preset": ('{"players": 2, "sets": 2, "set_size": 2, "rules": "chess"}', "unknown rule preset"),
    "unknown-option": ('{"players": 2, "sets": 2, "set_size": 2, "rules": {"colour": "red"}}', "unknown rule option"),
    "bad-option": ('{"players": 2, "sets": 2, "set_size": 2, "rules": {"handover": "dice"}}', "handover"),
    "unknown-field": ('{"players": 2, "sets": 2, "set_size": 2, "mooves": []}', "unknown field"),
    "bad-answer": ('{"players": 2, "sets": 2, "set_size": 2, "moves": [{"asker": 0, "target": 1, "card": "A0", "answer": "maybe"}]}', "answer"),
    "duplicate-names": ('{"players": ["Ann", "Ann"], "sets": 2, "set_size": 2}', "duplicate"),
    "hands-wrong": ('{"players": 2, "sets": 2, "set_size": 2, "hands": [3, 3]}', "hands"),
    "bad-header": ("players: 2\ncolour: red\n", "unknown header"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_input_is_one_line_and_exit_2(tmp_path, name):
    text, needle = BROKEN[name]
    path = tmp_path / f"{name}.txt"
    path.write_text(text)
    for command in ("check", "analyze"):
        result = run(command, path)
        assert result.exit_code == 2, (result.output, result.exception)
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and "Traceback" not in result.output
        assert needle in lines[0] and str(path) in lines[0]


def test_missing_file_and_bad_rules_option(tmp_path):
    result = run("check", tmp_path / "nope.json")
    assert result.exit_code == 2 and "no such file" in result.output
    result = run("check", EXAMPLES / "quaternity.json", "--rules", "chess")
    assert result.exit_code == 2 and "--rules" in result.output


@pytest.mark.parametrize("args", [
    ["check", "--foo", "examples/quaternity.json"],
    ["check"],
    ["no-such-command"],
    ["check", "examples/quaternity.json", "--engine", "x"],
    ["quarto", "solve", "examples/quarto/position.json", "--max-seconds", "abc"],
])
def test_usage_errors_are_one_line_and_exit_2(args):
    args = [str(EXAMPLES.parent / a) if a.startswith("examples/") else a for a in args]
    result = CliRunner().invoke(main, args, prog_name="quaternity")
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("quaternity"), result.stderr
    assert "--help" in lines[0]


def test_help_names_every_game_and_lists_commands_in_a_newcomers_order():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    for words in ("Quaternity", "classic Quartets", "Quarto", "tournaments"):
        assert words in text
    headings = ["Check and understand a game:", "Play:", "Agents and experiments:", "Quarto:"]
    assert [text.index(h) for h in headings] == sorted(text.index(h) for h in headings)
    listed = result.output[result.output.index(headings[0]):]
    order = [line.split()[0] for line in listed.splitlines() if line.startswith("  ") and line.split()]
    assert order[:8] == ["check", "analyze", "explain", "count", "solve", "report", "play", "serve"]
    assert set(order) == set(main.list_commands(None))

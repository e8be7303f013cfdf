"""Hostile and contradictory input: every case a one-line error naming the place, exit code 2.

Also the documented limits (file size, moves per record, JSON nesting and
number length), exact big counts at the start of the largest games, and a
replay that keeps no undo history.
"""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main
from quaternity_cp import Game
from quaternity_cp.errors import FormatError
from quaternity_cp.jsonio import MAX_INPUT_BYTES, MAX_JSON_DEPTH, MAX_NUMBER_DIGITS
from quaternity_cp.quartets.formats import MAX_MOVES, decode_input, load_json, parse_record
from quaternity_cp.quartets.replay import replay

HEAD = '"players": 3, "sets": 3, "set_size": 2'


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def one_line_error(result, *needles):
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("quaternity: ") and "Traceback" not in result.output
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


# -- bytes that are not a record -------------------------------------------------------------
HOSTILE: dict[str, tuple[bytes, str]] = {
    "huge-int": (b'{"players": ' + b"9" * 5000 + b', "sets": 2, "set_size": 2}', "5,000 digits"),
    "huge-negative": (b'{"players": -' + b"9" * 30 + b', "sets": 2, "set_size": 2}', "30 digits"),
    "deep-list": (b"[" * 100_000 + b"]" * 100_000, "nested more than"),
    "deep-object": (b'{"players": ' + b'{"a": ' * 100_000 + b"1" + b"}" * 100_001, "nested more than"),
    "just-deep": (b'{"players": 2, "sets": 2, "set_size": 2, "moves": ' + b"[" * 30 + b"]" * 30 + b"}",
                  "nested more than"),
    "duplicate-key": (b'{"players": 2, "players": 3, "sets": 2, "set_size": 2}', 'key "players" given twice'),
    "duplicate-nested": (b'{"players": 2, "sets": 2, "set_size": 2, "rules": {"tie": "first", "tie": "shared"}}',
                         'key "tie" given twice'),
    "nan": (b'{"players": NaN, "sets": 2, "set_size": 2}', "NaN is not a JSON value"),
    "infinity": (b'{"players": 2, "sets": 2, "set_size": -Infinity}', "-Infinity is not a JSON value"),
    "surrogate": (b'{"players": ["\\ud800", "b"], "sets": 2, "set_size": 2}', "unpaired surrogate"),
    "invalid-utf8": (b"players: 2\nsets: 2\xff\nset_size: 2\n", "not UTF-8 text: byte 0xff at line 2"),
    "latin1-json": ('{"players": ["Ren\xe9", "Bob"], "sets": 2, "set_size": 2}'.encode("latin-1"), "not UTF-8"),
    "nul-header": (b"players: 2\x00\nsets: 2\nset_size: 2\n", "line 1, column 11: control character U+0000"),
    "nul-json": (b'{"players": 2,\x00 "sets": 2, "set_size": 2}', "control character U+0000"),
    "escape-char": (b"players: 2\nsets: 2\nset_size: 2\n0>1:A0+\x1b[2J\n", "line 4, column 8: control character U+001B"),
    "huge-header-number": (b"players: " + b"1" * 5000 + b"\nsets: 2\nset_size: 2\n", "line 1: players: a number of 5,000 digits"),
    "huge-card-index": (b"players: 2\nsets: 2\nset_size: 2\n0>1:A" + b"1" * 5000 + b"+\n", "unknown card"),
    "huge-seat": (b"players: 2\nsets: 2\nset_size: 2\n" + b"0" * 5000 + b">1:A0+\n", "unknown player"),
    "unicode-digit-seat": ("players: 2\nsets: 2\nset_size: 2\n\u00b2>1:A0+\n".encode(), "unknown player"),
    "empty-rules-header": (b"players: 2\nsets: 2\nset_size: 2\nrules:\n", "line 4: rules: empty"),
    "repeated-rule-option": (b"players: 2\nsets: 2\nset_size: 2\nrules: quaternity, tie=shared, tie=first\n",
                             'line 4: rules: option "tie" given twice'),
    "rule-option-two-spellings": (b'{"players": 2, "sets": 2, "set_size": 2, "rules": {"auto-claim": true, "auto_claim": false}}',
                                  "option \"auto_claim\" given twice"),
    "rule-option-no-value": (b"players: 2\nsets: 2\nset_size: 2\nrules: quaternity, tie=\n", 'option "tie" has no value'),
    "long-move-text": (b'{"players": 2, "sets": 2, "set_size": 2, "moves": ["' + b"x" * 100_000 + b'"]}', "move 1"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_bytes_are_one_line_errors(tmp_path, name):
    data, needle = HOSTILE[name]
    path = tmp_path / f"{name}.in"
    path.write_bytes(data)
    for command in ("check", "analyze", "count"):
        line = one_line_error(run(command, path), str(path), needle)
        assert len(line) <= 420  # one bounded line whatever the input
    one_line_error(run("check", "-", input=data), "<stdin>", needle)


def test_a_byte_order_mark_is_accepted():
    text = '{"players": 2, "sets": 2, "set_size": 2, "moves": ["0>1:A0+"]}'
    for data in ("\ufeff" + text).encode(), "\ufeffplayers: 2\nsets: 2\nset_size: 2\n0>1:A0+\n".encode():
        result = run("check", "-", "--json", input=data)
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["claimed"] == {"A": 0}


# -- position files that contradict themselves -------------------------------------------------
CONTRADICTIONS = {
    "scores-nothing-claimed": ('"scores": [1, 0, 0]', "field 'scores': seat 0 has 1 but claimed no set"),
    "scores-wrong-seat": ('"hands": [2, 0, 2], "claimed": {"A": 1}, "scores": [1, 0, 0]', "field 'scores': seat 0"),
    "turn-twice": ('"turn": [1, 1]', "field 'turn': seat 1 listed twice"),
    "turn-twice-by-name": None,  # built below with names
    "turn-when-over": ('"hands": [0, 0, 0], "claimed": {"A": 0, "B": 1, "C": 2}, "turn": 1',
                       "field 'turn': every set is claimed"),
    "cards-of-claimed-set": ('"hands": [2, 0, 2], "claimed": {"A": 1}, "turn": 0, "cards": {"A0": [1]}',
                             "field 'cards'.A0: set A is claimed"),
    "at-least-claimed-set": ('"hands": [2, 0, 2], "claimed": {"A": 1}, "turn": 0, "at_least": {"0": {"A": 1}}',
                             "field 'at_least'.0.A: set A is claimed"),
    "at-most-claimed-set": ('"hands": [2, 0, 2], "claimed": {"A": 1}, "turn": 0, "at_most": {"2": {"A": 0}}',
                            "field 'at_most'.2.A: set A is claimed"),
    "cards-seat-twice": ('"cards": {"B0": [1, 1]}', "field 'cards'.B0: a seat listed twice"),
    "question-claimed-set": ('"hands": [2, 0, 2], "claimed": {"A": 1}, "turn": 0, "question": "0>2:A0?"',
                             "field 'question': set A is claimed"),
    "question-empty-target": ('"hands": [2, 0, 2], "claimed": {"A": 1}, "turn": 0, "question": "0>1:B0?"',
                              "field 'question': seat 1 holds no cards"),
    "question-self": ('"question": "0>0:B0?"', "field 'question': a player cannot ask itself"),
}


@pytest.mark.parametrize("name", sorted(k for k, v in CONTRADICTIONS.items() if v))
def test_position_contradictions_name_the_field(tmp_path, name):
    fields, needle = CONTRADICTIONS[name]
    path = tmp_path / f"{name}.json"
    path.write_text("{" + HEAD + ", " + fields + "}")
    for command in ("check", "analyze", "count"):
        one_line_error(run(command, path), str(path), needle)


def test_the_same_seat_by_seat_and_by_name(tmp_path):
    base = '"players": ["Ann", "Bob", "Cy"], "sets": 3, "set_size": 2'
    cases = {
        '"turn": ["Bob", 1]': "field 'turn': Bob listed twice",
        '"hands": {"Ann": 2, "0": 2, "Bob": 2}': "field 'hands': Ann given twice",
        '"at_least": {"Ann": {"A": 1}, "0": {"B": 1}}': "field 'at_least': Ann given twice",
    }
    for fields, needle in cases.items():
        path = tmp_path / "p.json"
        path.write_text("{" + base + ", " + fields + "}")
        one_line_error(run("check", path), needle)


def test_consistent_position_files_still_read(tmp_path):
    """The checks refuse contradictions only: a finished game, scores equal to claims, lists of distinct seats."""
    path = tmp_path / "ok.json"
    path.write_text("{" + HEAD + ', "hands": [0, 0, 0], "claimed": {"A": 0, "B": 1, "C": 0}, "scores": [2, 1, 0], "turn": null}')
    data = json.loads(run("check", path, "--json").output)
    assert data["over"] and data["winners"] == [0]
    path.write_text("{" + HEAD + ', "hands": [2, 0, 2], "claimed": {"A": 1}, "turn": [0, 2], "cards": {"B0": [0, 2]}}')
    result = run("check", path, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["valid"], data["turn"], data["claimed"], data["scores"]) == (True, [0, 2], {"A": 1}, [0, 1, 0])


# -- command-line options --------------------------------------------------------------------
def test_rules_option_errors(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("players: 2\nsets: 2\nset_size: 2\n")
    for command in ("check", "analyze", "count", "solve"):
        one_line_error(run(command, path, "--rules", ""), "--rules: empty")
        one_line_error(run(command, path, "--rules", " , "), "--rules: empty")
        one_line_error(run(command, path, "--rules", "quaternity,tie=shared,tie=first"), '--rules: option "tie" given twice')
        one_line_error(run(command, path, "--rules", "quaternity", "--rules", "blind"), "--rules: given more than once")
    one_line_error(run("check", path, "--rules", '{"tie": "first", "tie": "shared"}'), 'key "tie" given twice')
    result = run("check", path, "--rules", "blind,handover=seat", "--json")
    assert result.exit_code == 0, result.output
    rules = json.loads(result.output)["rules"]  # the preset's options, with the one given on top
    assert (rules["handover"], rules["invalid"], rules["declare"], rules["tie"]) == ("seat", "lose", True, "first")


# -- limits ----------------------------------------------------------------------------------
def test_limits_are_documented_values():
    assert (MAX_INPUT_BYTES, MAX_MOVES, MAX_JSON_DEPTH, MAX_NUMBER_DIGITS) == (16 * 1024 * 1024, 100_000, 20, 20)


def test_too_many_moves_is_refused_before_replaying(tmp_path):
    moves = " ".join(["0>1:A0+"] * (MAX_MOVES + 1))
    path = tmp_path / "long.txt"
    path.write_text("players: 2\nsets: 2\nset_size: 2\n" + moves + "\n")
    one_line_error(run("check", path), "100,001 moves is beyond the limit of 100,000")
    path = tmp_path / "long.json"
    path.write_text(json.dumps({"players": 2, "sets": 2, "set_size": 2, "moves": ["0>1:A0+"] * (MAX_MOVES + 1)}))
    one_line_error(run("count", path), "field 'moves': 100,001 moves")
    # at the limit the record is read (and replayed: its second move is illegal)
    path.write_text(json.dumps({"players": 2, "sets": 2, "set_size": 2, "moves": ["0>1:A0+"] * MAX_MOVES}))
    result = run("check", path)
    assert result.exit_code == 1
    illegal = [line for line in result.output.splitlines() if "ILLEGAL" in line]
    assert len(illegal) == 1 and illegal[0].split()[:2] == ["2", "0>1:A0+"], result.output[:500]
    assert "the set is already claimed" in illegal[0] and "1 moves were applied" in result.output


def test_too_large_a_file_is_refused(tmp_path):
    path = tmp_path / "big.txt"
    with open(path, "wb") as fh:
        fh.write(b"players: 2\nsets: 2\nset_size: 2\n")
        fh.write(b" " * MAX_INPUT_BYTES)
    one_line_error(run("check", path), str(path), "larger than the limit of 16,777,216 bytes")
    one_line_error(run("check", "-", input=path.read_bytes()), "<stdin>", "larger than the limit")
    with pytest.raises(FormatError, match="larger than the limit"):
        parse_record("#" * (MAX_INPUT_BYTES + 1))


def test_library_decoding_functions():
    assert decode_input("\ufeff{}".encode()) == "\ufeff{}"
    with pytest.raises(FormatError, match="byte 0xc3 at line 1"):
        decode_input(b"\xc3")
    assert load_json('{"a": [1, 2.5, "x"]}') == {"a": [1, 2.5, "x"]}
    deep = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert load_json(deep) is not None
    with pytest.raises(FormatError, match="nested more than"):
        load_json("[" + deep + "]")
    assert load_json("9" * MAX_NUMBER_DIGITS) == int("9" * MAX_NUMBER_DIGITS)
    with pytest.raises(FormatError, match="digits"):
        load_json("9" * (MAX_NUMBER_DIGITS + 1))


@pytest.mark.parametrize("name", ["huge-int", "huge-negative", "deep-list", "deep-object", "just-deep",
                                  "duplicate-key", "duplicate-nested", "nan", "infinity", "surrogate"])
def test_quarto_files_have_the_same_json_limits(name):
    """One strict loader for every game: a Quarto file is refused for the same reason as a record."""
    from quaternity_cp.quarto.formats import FormatError as QuartoFormatError
    from quaternity_cp.quarto.formats import parse as parse_quarto

    data, needle = HOSTILE[name]
    text = data.decode("utf-8")
    with pytest.raises(FormatError) as record:
        parse_record(text)
    with pytest.raises(QuartoFormatError) as quarto:
        parse_quarto(text)
    reason = str(record.value).removeprefix("malformed JSON: ")
    assert needle in reason and str(quarto.value) == f"not valid JSON: {reason}"


# -- big counts ------------------------------------------------------------------------------
@pytest.mark.parametrize("players, sets, size", [(10, 1000, 10), pytest.param(100, 100, 100, marks=pytest.mark.slow)])
def test_count_at_the_start_of_the_largest_games(tmp_path, players, sets, size):
    """The start of the largest accepted games: the exact count (over 4300 digits) in --json,
    an approximation in text; the multinomial N*S! / (hand!)^P checked exactly."""
    from math import factorial

    path = tmp_path / "big.json"
    path.write_text(json.dumps({"players": players, "sets": [f"S{i}x" for i in range(sets)], "set_size": size}))
    result = run("count", path, "--json")
    assert result.exit_code == 0, result.output
    old = sys.get_int_max_str_digits()
    assert old != 0  # the command restored the interpreter's limit
    try:
        sys.set_int_max_str_digits(0)
        data = json.loads(result.output)
        cards = sets * size
        assert data["deals"] == factorial(cards) // factorial(cards // players) ** players
        assert len(str(data["deals"])) > 4300
    finally:
        sys.set_int_max_str_digits(old)
    assert data["cards"]["S0x0"] == {str(p): 1 / players for p in range(players)}


def test_count_text_of_a_huge_number(tmp_path):
    from quaternity_cp.quartets.cli.count import big

    assert big(123) == "123" and big(10**29) == f"{10**29:,}"
    assert big(10**30) == "about 1.00e+30" and big(2 * 10**5000) == "about 2.00e+5000"
    assert big(999 * 10**40) == "about 9.99e+42" and big(9999 * 10**40) == "about 1.00e+44"
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"players": 3, "sets": 26, "set_size": 6}))  # 156!/(52!)^3, 73 digits
    result = run("count", path)
    assert result.exit_code == 0
    first = result.output.splitlines()[0]
    assert first == "about 1.42e+72 consistent deals (a number of 73 digits; --json gives it exactly)"


# -- memory of a replay ----------------------------------------------------------------------
def test_replay_without_history_keeps_one_undo_step():
    record = parse_record("players: 3\nsets: 3\nset_size: 3\n0>2:A2- 2>0:A0+ 2>1:C0- 1>2:B2+ 1>0:B1+ 1>2:A1+")
    full = replay(record)
    lean = replay(record, history=False)
    assert len(full.position.moves) == 6 and len(lean.position.moves) == 1
    assert lean.position.state == full.position.state and lean.reports == full.reports
    assert lean.position.copy().history is False
    assert lean.position.pop() == full.position.pop()  # one step back still works
    assert lean.position.state == full.position.state
    game = Game(3, 3, 3)
    assert game.move_str(record.moves[-1]) == "1>2:A1+"


def test_count_text_of_a_very_large_table(tmp_path):
    """Beyond PLAIN_CELLS the card table is plain aligned text: one line per card, one column per seat."""
    from quaternity_cp.quartets.cli.count import PLAIN_CELLS

    path = tmp_path / "wide.json"
    path.write_text(json.dumps({"players": 10, "sets": [f"S{i}x" for i in range(250)], "set_size": 10}))
    assert 2500 * 10 > PLAIN_CELLS
    result = run("count", path)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    start = lines.index("Chance that each player holds each card")
    assert lines[start + 1].split() == ["card", *map(str, range(10))]
    assert lines[start + 2].split() == ["S0x0"] + ["0.100"] * 10
    assert lines[start + 2 + 2500] == "Chance that a player holds the whole set:"


def test_sampling_is_bounded(tmp_path):
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"players": 10, "sets": [f"S{i}x" for i in range(1000)], "set_size": 10}))
    one_line_error(run("count", path, "--sample", "1001"), "--sample: 1,001 deals of 10,000 cards is beyond the limit")


def test_odd_file_names():
    one_line_error(run("check", "a\x00b"), "not a usable file name")
    one_line_error(run("check", "/"), "is a directory")
    one_line_error(run("check", "no/such/file.json"), "no/such/file.json: no such file")

"""Every registered game meets the first game's limits: the hostile-input corpus, the move cap, the name rule.

For each game of :func:`quaternity_cp.registry.load_all` a legal record is made by
its own state (a few seeded random moves), then damaged in every way the first
game's corpus (tests/test_hardening.py, tests/test_strict_inputs.py) damages a
Quartets record: numbers too long, nesting too deep, duplicate keys, NaN,
unpaired surrogates, bytes that are not UTF-8, raw control characters, a file
over the size limit, a special file, a file cut short, a record one move over
the cap of every game's records, and (for a game whose records name players or
suits) every kind of name the one name rule refuses. Every command that reads
a record (``check``, ``analyze``, ``count``, ``solve``) must refuse each with
exit code 2 and one bounded line naming the file, never a traceback, never a
raw control character on the terminal. A game registered later gets this test
by registering: nothing here names a game except to find its name fields.
"""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main
from quaternity_cp.registry import GAMES, load_all
from quaternity_cp.jsonio import MAX_INPUT_BYTES, MAX_MOVES
from quaternity_cp.names import MAX_NAME_LENGTH, name_fault

GAME_NAMES = sorted(load_all())
COMMANDS = ("check", "analyze", "count", "solve")
SENTINEL = "@@HOSTILE@@"


def legal_record(game: str) -> dict:
    """A legal record of ``game`` a few moves in, made by the game's own state (seeded)."""
    state = GAMES[game].new_state(7)
    rng = random.Random(7)
    for _ in range(3):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    record = state.record()
    assert CliRunner().invoke(main, ["check", "-"], input=json.dumps(record)).exit_code == 0, record
    return record


def with_raw(record: dict, raw: bytes) -> bytes:
    """The record's JSON with its moves replaced by the raw bytes ``raw``."""
    text = json.dumps({**record, "moves": SENTINEL}).encode()
    return text.replace(json.dumps(SENTINEL).encode(), raw)


def hostile_bytes(record: dict) -> dict[str, tuple[bytes, str]]:
    """Damaged files, each with a phrase its one-line refusal must carry."""
    good = json.dumps(record).encode()
    return {
        "huge-number": (with_raw(record, b"[" + b"9" * 5000 + b"]"), "5,000 digits"),
        "deep-nesting": (with_raw(record, b"[" * 100_000 + b"]" * 100_000), "nested more than"),
        "duplicate-key": (b'{"moves": [], ' + good[1:], 'key "moves" given twice'),
        "nan": (with_raw(record, b"NaN"), "NaN is not a JSON value"),
        "infinity": (with_raw(record, b"[-Infinity]"), "Infinity is not a JSON value"),
        "surrogate": (with_raw(record, b'["\\ud800"]'), "unpaired surrogate"),
        "invalid-utf8": (with_raw(record, b'["\xff"]'), "not UTF-8"),
        "nul": (good[:1] + b"\x00" + good[1:], "U+0000"),
        "escape": (with_raw(record, b'["\x1b[2J"]'), "U+001B"),
        "empty": (b"", ""),
        "cut-short": (good[: len(good) // 2], ""),
        "not-an-object": (b"[1, 2, 3]", ""),
        "unknown-field": (json.dumps({**record, "bogus": 1}).encode(), "bogus"),
    }


def refused(result, path: str, needle: str = "") -> str:
    assert result.exit_code == 2, (result.exit_code, result.output[-500:], result.exception)
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output[-1000:]
    line = lines[0]
    assert line.startswith("quaternity") and path in line and len(line) <= 420, line
    assert all(ch == " " or ch.isprintable() for ch in line), repr(line)  # nothing raw reaches the terminal
    # the damage named, unless the command does not apply to this game's records at all (it says so)
    assert needle in line or "does not apply to it: use 'quaternity" in line, (needle, line)
    return line


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_game_refuses_the_hostile_corpus_in_one_line(tmp_path, game):
    for kind, (data, needle) in hostile_bytes(legal_record(game)).items():
        path = tmp_path / f"{game}-{kind}.json"
        path.write_bytes(data)
        for command in COMMANDS:
            refused(run(command, path), str(path), needle)
        refused(run("check", "-", input=data), "<stdin>", needle)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_game_refuses_special_and_oversized_files_before_reading(tmp_path, game):
    big = tmp_path / "big.json"
    record = json.dumps(legal_record(game)).encode()
    big.write_bytes(record + b" " * (MAX_INPUT_BYTES + 1 - len(record)))
    for command in COMMANDS:
        refused(run(command, big), str(big), "larger than the limit of 16,777,216 bytes")
        refused(run(command, "/dev/zero"), "/dev/zero", "not a regular file")


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_game_keeps_the_move_cap_of_every_record(tmp_path, game):
    record = legal_record(game)
    path = tmp_path / "long.json"
    path.write_text(json.dumps({**record, "moves": [record["moves"][0]] * (MAX_MOVES + 1)}))
    for command in COMMANDS:
        refused(run(command, path), str(path), "100,001 moves is beyond the limit of 100,000 moves in one record")


#: Names the one name rule refuses, each with a phrase of its reason.
BAD_NAMES = {
    "nul": ("a\x00b", "U+0000"),
    "escape": ("a\x1b]0;owned\x07", "U+001B"),
    "bell": ("ding\x07", "U+0007"),
    "right-to-left-override": ("abc\u202edef", "U+202E"),
    "zero-width-joiner": ("a\u200db", "U+200D"),
    "line-separator": ("a\u2028b", "U+2028"),
    "no-break-space": ("a\u00a0b", "U+00A0"),
    "too-long": ("x" * 100_000, f"at most {MAX_NAME_LENGTH}"),
}


def name_fields(record: dict) -> list[str]:
    """The fields of a record that name players, sets or suits (a count there may be a list of names)."""
    return [key for key in ("players", "sets", "suits") if isinstance(record.get(key), int)]


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_game_takes_names_by_the_one_name_rule(tmp_path, game):
    record = legal_record(game)
    fields = name_fields(record)
    if not fields:
        pytest.skip(f"{game} records name nobody and nothing")
    for field in fields:
        for kind, (bad, needle) in BAD_NAMES.items():
            names = [f"N{chr(ord('a') + i)}x" for i in range(record[field])]
            names[1] = bad
            path = tmp_path / f"{field}-{kind}.json"
            path.write_text(json.dumps({**record, field: names, "moves": []}), encoding="utf-8")
            for command in COMMANDS:
                line = refused(run(command, path), str(path), needle)
                assert len(line) < 400
        # good names (letters of any script, inner spaces where the notation allows them) still read
        names = [f"Ñé{chr(ord('a') + i)}x" for i in range(record[field])]
        path = tmp_path / f"{field}-good.json"
        path.write_text(json.dumps({**record, field: names, "moves": []}), encoding="utf-8")
        assert run("check", path).exit_code == 0


def test_the_name_rule():
    assert name_fault("Ann") is None and name_fault("Ñuñez") is None and name_fault("x" * MAX_NAME_LENGTH) is None
    assert name_fault("Red Fish") is None  # the plain space is the notation's concern, not the rule's
    for bad, needle in BAD_NAMES.values():
        assert needle in (name_fault(bad) or ""), bad
    assert name_fault("") == "is empty" and name_fault(3) == "is not text"

"""Strict types in every file and seat option: the wrong type is exit 2 with one line naming the field.

Whole numbers are JSON integers (not ``1.0``, not ``true``), a seat in a JSON
value is a number (or a name of a game with names), numbers written as text
(headers, moves, ``--as``, ``--seat``) use the digits 0-9 only, a question's
answer is ``"yes"`` or ``"no"``, a rules value is comma-separated items, and a
tie-break only ends a finished game tied for first. Records the program writes
itself still read back.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main
from quaternity_cp.errors import QuaternityError
from quaternity_cp.errors import FormatError
from quaternity_cp.quartets.formats import parse_record, record_from_json
from quaternity_cp.quartets.check import check_record

BASE = {"players": 3, "sets": 3, "set_size": 2}
NAMED = {"players": ["Ann", "Bob", "Cy"], "sets": 3, "set_size": 2}
CLASSIC_2 = {"players": 2, "sets": 2, "set_size": 2, "rules": "classic",
             "deal": {"0": ["A0", "B0"], "1": ["A1", "B1"]}, "first": 0}


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input, prog_name="quaternity")


def refused(result, *needles) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("quaternity"), result.output  # "quaternity play:" for options
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def check_json(data, *args):
    return run("check", "-", *args, input=json.dumps(data, ensure_ascii=False))


# -- JSON records and positions: seats, numbers, answers ----------------------------------------------
WRONG_JSON = {
    "answer-true": ({**BASE, "moves": [{"asker": 0, "target": 1, "card": "A0", "answer": True}]},
                    'move 1 ({"asker": 0, "target": 1, "card": "A0", "answer": true}): answer must be "yes", "no"'),
    "answer-false": ({**BASE, "moves": [{"asker": 0, "target": 1, "card": "A0", "answer": False}]}, "got false"),
    "answer-null": ({**BASE, "moves": [{"asker": 0, "target": 1, "card": "A0", "answer": None}]}, "got null"),
    "answer-sign": ({**BASE, "moves": [{"asker": 0, "target": 1, "card": "A0", "answer": "+"}]}, 'got "+"'),
    "answer-maybe": ({**BASE, "moves": [{"asker": 0, "target": 1, "card": "A0", "answer": "maybe"}]}, 'got "maybe"'),
    "declare-string": ({**BASE, "moves": [{"declare": "0", "set": "A"}]},
                       'declare: expected a seat number (a JSON integer), got "0"'),
    "declare-set-number": ({**BASE, "moves": [{"declare": 0, "set": 1}]}, 'set must be a set name like "A", got 1'),
    "asker-string": ({**BASE, "moves": [{"asker": "0", "target": 1, "card": "A0", "answer": "no"}]},
                     'asker: expected a seat number (a JSON integer), got "0"'),
    "target-float": ({**BASE, "moves": [{"asker": 0, "target": 1.0, "card": "A0", "answer": "no"}]},
                     "target: expected a seat number (a JSON integer), got 1.0"),
    "turn-string": ({**BASE, "turn": "1"}, "field 'turn': expected a seat number (a JSON integer), got \"1\""),
    "turn-float": ({**BASE, "turn": 1.0}, "field 'turn': expected a seat number (a JSON integer), got 1.0"),
    "turn-bool": ({**BASE, "turn": True}, "field 'turn': expected a seat number (a JSON integer), got true"),
    "turn-list-string": ({**BASE, "turn": [0, "2"]}, "field 'turn': expected a seat number"),
    "claimed-string": ({**BASE, "hands": [2, 0, 2], "claimed": {"A": "1"}, "turn": 0},
                       "field 'claimed'.A: expected a seat number (a JSON integer), got \"1\""),
    "cards-string": ({**BASE, "cards": {"B0": ["1"]}}, "field 'cards'.B0: expected a seat number"),
    "hands-float": ({**BASE, "hands": [2.0, 2, 2]}, "field 'hands'[0]: expected a whole number, got 2.0"),
    "hands-key-arabic": ({**BASE, "hands": {"\u0660": 2, "1": 2, "2": 2}}, "field 'hands': unknown player"),
    "scores-bool": ({**BASE, "scores": {"0": False, "1": 0, "2": 0}}, "field 'scores'.0: expected a whole number"),
    "at-least-bool": ({**BASE, "at_least": {"0": {"B": True}}},
                      "field 'at_least'.0.B: expected a whole number, got true"),
    "set-size-float": ({**BASE, "set_size": 2.0}, "field 'set_size': expected a whole number, got 2.0"),
    "players-string": ({**BASE, "players": "3"}, "field 'players': expected a whole number, got \"3\""),
    "named-seat-string": ({**NAMED, "turn": "1"},
                          "field 'turn': expected a seat number (a JSON integer) or a player name, got \"1\""),
    "first-string": ({**CLASSIC_2, "first": "1"},
                     "field 'first': expected a seat number (a JSON integer), got \"1\""),
    "first-float": ({**CLASSIC_2, "first": 1.0}, "field 'first': expected a seat number"),
    "tie-break-string": ({**CLASSIC_2, "moves": ["0!A", "1!B"], "tie_break": "1"},
                         "field 'tie_break': expected a seat"),
    "deal-key-space": ({**CLASSIC_2, "deal": {" 0": ["A0", "B0"], "1": ["A1", "B1"]}},
                       "field 'deal': unknown player ' 0'"),
    "deal-key-arabic": ({**CLASSIC_2, "deal": {"\u0660": ["A0", "B0"], "1": ["A1", "B1"]}},
                        "field 'deal': unknown player"),
}


@pytest.mark.parametrize("name", sorted(WRONG_JSON))
def test_wrong_json_types_are_refused_naming_the_field(name):
    data, needle = WRONG_JSON[name]
    refused(check_json(data), "<stdin>: ", needle)
    with pytest.raises(FormatError):
        record_from_json(data)


def test_the_documented_json_forms_still_read():
    ok = {**BASE, "moves": [{"asker": 0, "target": 1, "card": "A0", "answer": "no"},
                            {"asker": 1, "target": 2, "card": "B0", "answer": "yes"},
                            {"asker": 1, "target": 0, "card": "C0"}]}
    rec = record_from_json(ok)
    assert [rec.game.move_str(m) for m in rec.moves] == ["0>1:A0-", "1>2:B0+", "1>0:C0?"]
    named = record_from_json({**NAMED, "rules": "blind", "moves": [{"declare": "Ann", "set": "A"}]})
    assert named.game.move_str(named.moves[0]) == "Ann!A"
    position = record_from_json({**NAMED, "turn": ["Bob", 2], "hands": {"Ann": 2, "1": 2, "2": 2},
                                 "cards": {"A0": [0, "Bob"]}, "at_least": {"Cy": {"B": 1}}})
    assert position.start.turn == (1, 2)
    assert record_from_json({**CLASSIC_2, "first": 1}).first == 1


# -- text: headers, moves and rules written in the digits 0-9 ------------------------------------------------
@pytest.mark.parametrize("value", ["3.0", "+3", "0x3", "\u0663", "\uff13", "1e3", "1_000", "-3", "3."])
def test_header_numbers_not_in_ascii_digits_are_refused(value):
    for key, text in (("players", f"players: {value}\nsets: 3\nset_size: 2\n"),
                      ("sets", f"players: 3\nsets: {value}\nset_size: 2\n"),
                      ("set_size", f"players: 3\nsets: 3\nset_size: {value}\n")):
        line = refused(run("check", "-", input=text.encode()),
                       f"{key} must be a whole number written in the digits 0-9")
        assert "needs at least" not in line


def test_names_in_headers_still_read():
    rec = parse_record("players: Ann, Bob\nsets: Red\nset_size: 2\nAnn>Bob:Red1+\n")
    assert rec.game.player_names == ("Ann", "Bob") and rec.game.set_names == ("Red",)
    assert rec.game.move_str(rec.moves[0]) == "Ann>Bob:Red1+"


@pytest.mark.parametrize("text, needle", [
    ("\u0660>1:A0+", "move 1 (\u0660>1:A0+, line 4): unknown player"),
    ("0>\uff11:A0+", "unknown player"),
    ("0>1:A\u0660+", "unknown card"),
])
def test_move_tokens_take_ascii_digits_only(text, needle):
    refused(run("check", "-", input=f"players: 2\nsets: 2\nset_size: 2\n{text}\n".encode()), needle)


def test_classic_text_headers_take_ascii_seats():
    head = "players: 2\nsets: 2\nset_size: 2\nrules: classic\n"
    refused(run("check", "-", input=(head + "first: \u0661\n").encode()), "field 'first': unknown player")
    refused(run("check", "-", input=(head + "deal: \u0660=A0 B0; 1=A1 B1\n").encode()), "field 'deal': unknown player")
    rec = parse_record(head + "first: 1\ndeal: 0=A0 B0; 1=A1 B1\n1>0:A0+\n")
    assert rec.first == 1 and rec.deal == {0: [0, 2], 1: [1, 3]}


RULES_REFUSED = {
    "quaternity,,handover=seat": 'an empty item in "quaternity,,handover=seat"',
    ",quaternity": "an empty item",
    "quaternity,": "an empty item",
    "quaternity handover=seat": 'a space inside the item "quaternity handover=seat"',
    "quaternity,tie = shared": 'a space inside the item "tie = shared"',
    "quaternity,=seat": 'no option name in "=seat"',
    "quaternity,tie=": 'option "tie" has no value',
    "quaternity,tie=shared,tie=first": 'option "tie" given twice',
    "quaternity,auto-claim=false,auto_claim=true": 'option "auto_claim" given twice',
    "quaternity,preset=blind": 'option "preset" given twice',
    "quaternity,blind": 'expected option=value, got "blind"',
    "quaternity,auto_claim=yes": "rule option 'auto_claim' must be true or false, not 'yes'",
    "quaternity,auto_claim=True": "rule option 'auto_claim' must be true or false, not 'True'",
    "quaternity,handover=1": "rule option 'handover' must be one of",
    "quaternity,colour=red": "unknown rule option 'colour'",
    "chess": "unknown rule preset 'chess'",
    '{"preset": "quaternity", "auto_claim": 1}': "rule option 'auto_claim' must be true or false, not 1",
    '{"preset": 3}': "unknown rule preset 3",
}


@pytest.mark.parametrize("spec", sorted(RULES_REFUSED))
def test_rules_values_are_read_strictly(tmp_path, spec):
    path = tmp_path / "r.txt"
    path.write_text("players: 2\nsets: 2\nset_size: 2\n")
    refused(run("check", path, "--rules", spec), "--rules: ", RULES_REFUSED[spec])
    if not spec.startswith("{"):
        path.write_text(f"players: 2\nsets: 2\nset_size: 2\nrules: {spec}\n")
        refused(run("check", path), "line 4: rules: ", RULES_REFUSED[spec])


@pytest.mark.parametrize("spec, option, value", [
    ("quaternity, handover=seat", "handover", "seat"),
    (" blind,tie=shared ", "tie", "shared"),
    ("quaternity,auto-claim=false", "auto_claim", False),
    ("tie=first", "tie", "first"),
])
def test_rules_values_in_the_documented_forms(tmp_path, spec, option, value):
    path = tmp_path / "r.txt"
    path.write_text("players: 2\nsets: 2\nset_size: 2\n")
    result = run("check", path, "--rules", spec, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["rules"][option] == value


# -- seats on the command line -------------------------------------------------------------------
CLASSIC_RECORD = json.dumps({**CLASSIC_2, "moves": ["0>1:A1+", "0!A"]})


@pytest.mark.parametrize("seat", ["\u0661", "\uff11", "+1", " 1", "1.0", "01x"])
def test_as_takes_a_seat_in_ascii_digits(seat):
    for command in ("analyze", "count"):
        refused(run(command, "-", "--as", seat, input=CLASSIC_RECORD),
                f"--as: expected a seat number 0 to 1 in the digits 0-9, got {seat!r}")


def test_as_and_seat_accept_ascii_digits():
    result = run("analyze", "-", "--as", "1", "--json", input=CLASSIC_RECORD)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["view"]["seat"] == 1
    refused(run("play", "--seat", "\u0661"), "--seat", "is not a whole number written in the digits 0-9")
    refused(run("play", "--seat", "+1"), "--seat", "is not a whole number written in the digits 0-9")


# -- the tie-break -------------------------------------------------------------------------------
def test_a_tie_break_needs_a_finished_tied_game():
    unfinished = {**CLASSIC_2, "moves": ["0>1:A1+", "0!A"], "tie_break": 0}
    refused(check_json(unfinished), "field 'tie_break': the game is not over")
    with pytest.raises(QuaternityError, match="field 'tie_break': the game is not over"):
        check_record(unfinished)
    won = {**CLASSIC_2, "moves": ["0>1:A1+", "0!A", "0>1:B1+", "0!B"], "tie_break": 0}
    refused(check_json(won), "field 'tie_break': nobody tied for first (the winner is seat 0)")
    refused(check_json({**BASE, "moves": [], "tie_break": 0}), "field 'tie_break': only for rules with tie = random")
    tied = {"players": 2, "sets": 2, "set_size": 2, "rules": "classic", "deal": {"0": ["A0", "A1"], "1": ["B0", "B1"]},
            "first": 0, "moves": ["0!A", "1!B"]}
    for seat in (0, 1):
        result = check_json({**tied, "tie_break": seat}, "--json")
        assert result.exit_code == 0 and json.loads(result.output)["winners"] == [seat], result.output
        check_record({**tied, "tie_break": seat})
    # an illegal record stays exit 1 (illegal), whatever its tie-break says
    assert check_json({**CLASSIC_2, "moves": ["0>1:A1-"], "tie_break": 0}).exit_code == 1


@pytest.mark.parametrize("preset", ["classic", "quaternity"])
def test_records_written_with_tie_random_read_back(tmp_path, monkeypatch, preset):
    """tournament --records under tie = random (finished games tied or not, games stopped by the question
    limit): every record passes check and check_record; the tie-break is written only where it belongs."""
    import quaternity_cp.quartets.state as quartets_game

    monkeypatch.setattr(quartets_game, "MAX_QUESTIONS", 6)
    result = run("tournament", "--preset", preset, "--option", "tie=random", "--players", "3", "--sets", "3",
                 "--set-size", "2", "--agents", "random,random,random", "--games", "24", "--seed", "3",
                 "--records", tmp_path / "recs", "--json")
    assert result.exit_code == 0, result.output
    files = sorted((tmp_path / "recs").glob("game-*.json"))
    assert len(files) == 24
    with_tie_break = 0
    for f in files:
        data = json.loads(f.read_text())
        check_record(data)
        checked = run("check", f, "--json")
        assert checked.exit_code == 0, (f.name, checked.output)
        over = json.loads(checked.output)["over"]
        with_tie_break += "tie_break" in data
        if "tie_break" in data:
            assert over
    assert with_tie_break > 0


# -- every file through the one strict reader: special files, size, depth, numbers ------------------------------
HOSTILE_JSON = {
    "deep": ("[" * 5000 + "]" * 5000, "nested more than 20 levels deep"),
    "nan": ('{"answers": NaN}', "NaN is not a JSON value"),
    "infinity": ('{"answers": [Infinity]}', "Infinity is not a JSON value"),
    "minus-infinity": ('{"answers": -Infinity}', "-Infinity is not a JSON value"),
    "long-number": ('{"answers": ' + "9" * 400 + "}", "a number of 400 digits (at most 20)"),
}
#: far above what a refusal takes; only a read that blocks (a FIFO opened for reading waits for a writer) reaches it
CEILING = 60


def in_thread(func, *args):
    """``func(*args)`` in a daemon thread: what it returned or raised, or "blocked" past :data:`CEILING`."""
    import threading

    box: dict = {}

    def work():
        try:
            box["value"] = func(*args)
        except BaseException as err:  # noqa: BLE001 - the test looks at it
            box["error"] = err

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(CEILING)
    if worker.is_alive():
        return "blocked"
    return box.get("error", box.get("value"))


def huge_file(path):
    """A sparse file one byte over the input limit (nothing is written to disk)."""
    from quaternity_cp.jsonio import MAX_INPUT_BYTES

    with open(path, "wb") as fh:
        fh.truncate(MAX_INPUT_BYTES + 1)
    return path


def special_files(tmp_path):
    """Paths that are not regular files: a character device, a FIFO without a writer."""
    import os

    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    return {"dev-zero": ("/dev/zero", "a character device, not a regular file"),
            "fifo": (str(fifo), "a pipe (FIFO), not a regular file")}


def test_the_strict_reader_refuses_special_files_and_huge_ones_before_reading(tmp_path, monkeypatch):
    import os

    from quaternity_cp import jsonio

    reads = []
    real_read = os.read
    monkeypatch.setattr(jsonio.os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    for name, (path, reason) in special_files(tmp_path).items():
        got = in_thread(jsonio.read_input, path)
        assert isinstance(got, jsonio.InputRefused) and str(got) == reason, (name, got)
    got = in_thread(jsonio.read_input, tmp_path)
    assert isinstance(got, IsADirectoryError) and got.filename == str(tmp_path), got  # as open() says it
    got = in_thread(jsonio.read_input, huge_file(tmp_path / "huge.json"))
    assert isinstance(got, jsonio.InputRefused) and str(got) == "larger than the limit of 16,777,216 bytes for one file"
    assert reads == []  # refused from what the file is, before a byte was read
    (tmp_path / "ok.txt").write_bytes(b"players: 2\n")
    assert jsonio.read_input(tmp_path / "ok.txt") == "players: 2\n"
    (tmp_path / "bad.txt").write_bytes(b"players: 2\n\xff")
    with pytest.raises(jsonio.InputRefused, match="not UTF-8 text: byte 0xff at line 2"):
        jsonio.read_input(tmp_path / "bad.txt")


@pytest.mark.parametrize("kind", sorted(HOSTILE_JSON))
def test_answer_files_are_read_strictly(tmp_path, kind):
    from quaternity_cp.quartets.game import Game
    from quaternity_cp.quartets.puzzles.answers import read_answer, read_answer_file
    from quaternity_cp.quartets.puzzles.search import PuzzleError

    text, reason = HOSTILE_JSON[kind]
    path = tmp_path / "p.answer.json"
    path.write_text(text)
    with pytest.raises(PuzzleError) as err:
        read_answer_file(Game(2, 2, 2), path)
    assert str(err.value).startswith(f"{path}: malformed JSON") and str(err.value).endswith(reason), str(err.value)
    assert "\n" not in str(err.value)
    with pytest.raises(PuzzleError, match="larger than the limit of 16,777,216 bytes"):  # text read by the caller
        read_answer(Game(2, 2, 2), " " * (16 * 1024 * 1024 + 1), "big.answer.json")


def test_answer_files_that_are_special_or_huge_are_refused_before_reading(tmp_path):
    from quaternity_cp.quartets.game import Game
    from quaternity_cp.quartets.puzzles.answers import read_answer_file
    from quaternity_cp.quartets.puzzles.search import PuzzleError

    cases = dict(special_files(tmp_path))
    cases["huge"] = (str(huge_file(tmp_path / "huge.answer.json")), "larger than the limit of 16,777,216 bytes")
    cases["folder"] = (str(tmp_path), "is a folder, not an answer file")
    for name, (path, reason) in cases.items():
        got = in_thread(read_answer_file, Game(2, 2, 2), path)
        assert isinstance(got, PuzzleError) and str(got).startswith(f"{path}: {reason}"), (name, got)


@pytest.mark.parametrize("kind", sorted(HOSTILE_JSON))
def test_hostile_json_records_and_answers_are_refused_in_one_line(tmp_path, kind):
    text, reason = HOSTILE_JSON[kind]
    record = tmp_path / "rec.json"
    record.write_text(text)
    refused(run("check", record), str(record), reason)
    puzzle = tmp_path / "puzzle.json"
    puzzle.write_text(json.dumps({"players": 2, "sets": 2, "set_size": 2}))
    answer = tmp_path / "puzzle.answer.json"
    answer.write_text(text)
    refused(run("puzzle", "verify", puzzle), str(answer), reason)


def test_huge_record_and_answer_files_are_refused_in_one_line(tmp_path):
    refused(run("check", huge_file(tmp_path / "rec.json")), "larger than the limit of 16,777,216 bytes")
    puzzle = tmp_path / "puzzle.json"
    puzzle.write_text(json.dumps({"players": 2, "sets": 2, "set_size": 2}))
    huge_file(tmp_path / "puzzle.answer.json")
    refused(run("puzzle", "verify", puzzle), "puzzle.answer.json", "larger than the limit of 16,777,216 bytes")


def feed_fifo(path, data: bytes):
    """A thread that writes ``data`` into the FIFO ``path`` whenever a reader opens it, until stopped (so that a
    reader that wrongly waits for a writer is not blocked for ever): call the returned function to stop it."""
    import errno
    import os
    import threading

    stop = threading.Event()

    def work():
        while not stop.is_set():
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as err:  # ENXIO: no reader yet
                if err.errno != errno.ENXIO:
                    raise
                stop.wait(0.01)
                continue
            try:
                os.write(fd, data)
            except OSError:
                pass
            finally:
                os.close(fd)
            stop.wait(0.01)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()

    def done():
        stop.set()
        worker.join(CEILING)

    return done


def test_special_files_are_refused_as_records_and_answers_before_reading(tmp_path):
    folder = tmp_path / "puzzles"
    folder.mkdir()
    puzzle = folder / "puzzle.json"
    puzzle.write_text(json.dumps({"players": 2, "sets": 2, "set_size": 2}))
    for name, (path, reason) in special_files(tmp_path).items():
        done = feed_fifo(path, b'{"players": 2, "sets": 2, "set_size": 2}') if name == "fifo" else lambda: None
        try:
            refused(run("check", path), path, reason)
            answer = folder / "puzzle.answer.json"
            if answer.exists() or answer.is_symlink():
                answer.unlink()
            answer.symlink_to(path)  # the answer file beside the puzzle is the special file
            refused(run("puzzle", "verify", puzzle), str(answer), reason)
            refused(run("puzzle", "sheet", folder, "-o", tmp_path / "sheet.html"), str(answer), reason)
        finally:
            done()

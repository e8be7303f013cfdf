"""The Quantum Go Fish commands (issue 32, items 2 and 7, and its bad input): the worked examples of
examples/gofish/ through the command line, ``check``/``analyze``/``count`` JSON against the brute-force
reference (tests/gofish_reference.py) on random small games under every option, ``explain`` and ``solve``,
and one line and the right exit code for every kind of bad input."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gofish_reference import Reference
from quaternity_cp.gofish.check import check_record, replay
from quaternity_cp.gofish.cli import gofish
from quaternity_cp.gofish.game import IllegalMove, Move, NotationError
from quaternity_cp.gofish.rules import GoFishError
from quaternity_cp.gofish.solver import can_force

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "gofish"
SETTINGS = settings(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow,
                                                                              HealthCheck.function_scoped_fixture])
SAMPLE = ["0>1:A+", "1>2:A+", "2>0:B-", "0>2:C-"]
CHECK_KEYS = {"valid", "moves_applied", "error", "turn", "over", "winners", "loser", "answers", "determined"}


def run(*args: str, stdin: str | None = None):
    """The group run in process: (exit code, stdout, stderr)."""
    result = CliRunner().invoke(gofish, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def run_json(*args: str, stdin: str | None = None) -> tuple[int, dict]:
    code, out, err = run(*args, "--json", stdin=stdin)
    assert out, err
    return code, json.loads(out)


def write(tmp_path: Path, record: dict, name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(record))
    return str(path)


def example(name: str) -> str:
    return str(EXAMPLES / name)


def one_line_error(code: int, out: str, err: str, expected: int) -> str:
    assert code == expected, (out, err)
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("quaternity: "), err
    return lines[0]


# -- the worked examples ------------------------------------------------------------------------------------
def test_the_sample_game_narrows_55_10_2_1_and_seat_0_wins(tmp_path):
    counts = []
    for k in range(1, 5):
        code, data = run_json("count", write(tmp_path, {"game": "gofish", "players": 3, "moves": SAMPLE[:k]}))
        assert code == 0
        counts.append(data["tables"])
        ref = Reference(3, 3, 4)
        for m in SAMPLE[:k]:
            ref.play(int(m[0]), int(m[2]), ord(m[4]) - ord("A"), m[5] == "+")
        assert data["tables"] == ref.count()
    assert counts == [55, 10, 2, 1]  # GOFISH.md's worked example
    code, data = run_json("count", example("stacky.json"), "--history")
    assert code == 0 and data["history_start"] == len(Reference(3, 3, 4).worlds) and data["history"] == counts
    code, data = run_json("check", example("stacky.json"))
    assert code == 0 and CHECK_KEYS <= set(data)
    assert data["valid"] and data["moves_applied"] == 4 and data["error"] is None
    assert data["over"] and data["winners"] == [0] and data["loser"] is None and data["turn"] is None
    assert data["determined"] and data["answers"] is None  # null without an open question, as in every game
    code, data = run_json("analyze", example("stacky.json"))
    exact = {suit: {seat: lo for seat, (lo, hi) in row.items()} for suit, row in data["counts"].items()}
    assert all(lo == hi for row in data["counts"].values() for lo, hi in row.values())
    assert exact == {"A": {"0": 2, "1": 2, "2": 0}, "B": {"0": 0, "1": 1, "2": 3}, "C": {"0": 3, "1": 1, "2": 0}}
    assert data["fours"] == {}


def test_named_players_and_suits_key_the_output_by_name():
    code, data = run_json("analyze", example("named.json"))
    assert code == 0 and data["winners"] == [0]
    assert set(data["counts"]) == {"Narwhals", "Scruples", "Qualms"}
    assert data["counts"]["Narwhals"]["Xia"] == [2, 2] and data["counts"]["Scruples"]["Zoe"] == [3, 3]
    code, out, _ = run("explain", example("named.json"), "Zoe:Scruples")
    assert code == 0 and "Zoe holds exactly 3 of Scruples." in out
    code, data = run_json("count", example("named.json"))
    assert data["tables"] == 1 and data["cells"]["Qualms"]["Xia"] == {"3": 1}


def test_forced_yes_only_yes_answers_and_the_explanation_says_why():
    code, data = run_json("check", example("forced-yes.json"))
    assert code == 0 and data["answers"] == ["+"] and data["turn"] == 2 and not data["over"]
    assert data["moves_applied"] == 4
    # the question's own proof counts: the asker (seat 0) holds a B after asking
    code, data = run_json("analyze", example("forced-yes.json"))
    assert data["counts"]["B"]["0"][0] >= 1 and data["counts"]["B"]["2"][0] == 1
    code, out, _ = run("explain", example("forced-yes.json"))
    assert code == 0 and "only yes can be answered" in out and "Suppose seat 2 held at most 0 of B" in out
    code, data = run_json("explain", example("forced-yes.json"), "2:B")
    assert data["answers"] == ["+"] and data["min"] == 1 and data["cuts"][0]["bound"] == "min"


def _locally_possible_zero(game, seat: int, suit: int) -> bool:
    """Cell-by-cell reasoning: the cell's direct lower bound is 0, its row can be filled from the other cells'
    upper bounds, and its column from the other players' upper bounds."""
    t = game.tables()
    row = sum(min(t.high[seat][x], t.suit_sizes[x]) for x in range(t.suits) if x != suit)
    col = sum(min(t.high[q][suit], t.hands[q]) for q in range(t.players) if q != seat)
    return t.low[seat][suit] == 0 and row >= t.hands[seat] and col >= t.suit_sizes[suit]


def test_a_no_that_cell_by_cell_reasoning_accepts_is_illegal():
    record = json.loads(Path(example("illegal-no.json")).read_text())
    before = replay(dict(record, moves=record["moves"][:3] + ["0>2:B?"])).game
    assert _locally_possible_zero(before, 2, 1)  # the example is what it claims to be
    code, data = run_json("check", example("illegal-no.json"))
    assert code == 1 and not data["valid"] and data["error"]["move"] == 3 and data["moves_applied"] == 3
    assert "every consistent table" in data["error"]["reason"]
    assert data["turn"] == 0 and not data["over"]
    ref = Reference(3, 3, 4)
    faults = [ref.play(int(m[0]), int(m[2]), ord(m[4]) - ord("A"), m[5] == "+") for m in record["moves"]]
    assert faults[:3] == [None] * 3 and faults[3] == "impossible no"
    code, out, _ = run("explain", example("illegal-no.json"))  # why the no is illegal: after its question
    assert code == 1 and "the position after its question" in out and "only yes can be answered" in out
    code, data = run_json("explain", example("illegal-no.json"))
    assert data["answers"] == ["+"] and data["min"] == 1 and data["error"]["move"] == 3


def test_a_four_wins_and_is_listed():
    code, data = run_json("analyze", example("four.json"))
    assert code == 0 and data["over"] and data["winners"] == [2] and data["reason"] == "four"
    assert data["fours"] == {"2": ["A"]} and not data["determined"]


def test_an_illegal_record_stops_at_its_first_illegal_move():
    code, data = run_json("check", example("illegal.json"))
    assert code == 1 and data["error"]["move"] == 1 and data["turn"] == 1 and data["loser"] is None
    assert data["reason"] is None and not data["over"]
    code, out, _ = run("check", example("illegal.json"))
    assert code == 1 and "ILLEGAL: the asker provably holds none of the suit" in out
    code, data = run_json("check", example("illegal-lose.json"))
    assert code == 1 and data["error"]["move"] == 1 and data["loser"] == 1 and data["over"]
    assert data["winners"] == [] and data["turn"] is None


def test_check_record_is_the_registry_check_part():
    for name in ["stacky.json", "named.json", "four.json", "forced-yes.json"]:
        assert check_record(json.loads(Path(example(name)).read_text())) is None
    with pytest.raises(IllegalMove, match=r"^move 2 \(1>0:A\+\): the asker provably"):
        check_record(json.loads(Path(example("illegal.json")).read_text()))
    with pytest.raises(NotationError, match="unknown suit 'D'"):
        check_record({"game": "gofish", "players": 3, "moves": ["0>1:A+", "1>2:D+"]})
    with pytest.raises(GoFishError, match="cannot be dealt evenly"):
        check_record({"game": "gofish", "players": 3, "suits": 2, "moves": []})


def test_stdin_is_read(tmp_path):
    code, data = run_json("check", "-", stdin=json.dumps({"game": "gofish", "players": 3, "moves": SAMPLE[:2]}))
    assert code == 0 and data["turn"] == 2


# -- bad input: one line, exit 2 (malformed) or 1 (illegal), never a traceback -------------------------------
BAD = [
    ({"game": "gofish", "players": 3, "moves": ["0>1:A+", "1>2:D+"]}, 2, "move 2 (1>2:D+): unknown suit 'D'"),
    ({"game": "gofish", "players": 3, "moves": ["0>7:A+"]}, 2, "move 1 (0>7:A+): unknown player '7'"),
    ({"game": "gofish", "players": 3, "moves": ["0>1:A?", "1>2:A+"]}, 2, "open question (?) can only be the last"),
    ({"game": "gofish", "players": 3, "suits": 2, "moves": []}, 2, "cannot be dealt evenly"),
    ({"game": "gofish", "players": 3, "suit_size": 1, "moves": []}, 2, "suit_size"),
    ({"game": "gofish", "players": 3, "moves": "0>1:A+"}, 2, "field 'moves'"),
    ({"game": "gofish", "players": 3, "moves": [7]}, 2, "move 1"),
    ({"game": "gofish", "players": 3, "moves": ["0-1:A+"]}, 2, "ASKER>ASKED:SUIT"),
    ({"game": "gofish", "players": 3, "colour": 1, "moves": []}, 2, "unknown field 'colour'"),
    ({"game": "gofish", "players": 3, "rules": {"four": "often"}, "moves": []}, 2, "option four"),
    ({"game": "gofish", "players": 3, "rules": "nonsense", "moves": []}, 2, "option preset"),
    ({"game": "gofish", "players": ["Ann", "Ann"], "moves": []}, 2, "names repeat"),
    ({"game": "gofish", "players": 3, "moves": ["0>0:A+"]}, 1, "a player cannot ask itself"),
    ({"game": "gofish", "players": 3, "moves": ["1>2:A+"]}, 1, "not on turn"),
    ({"game": "gofish", "players": 3, "moves": ["0>1:A-", "1>0:A+"]}, 1, "provably holds none of the suit"),
    ({"game": "gofish", "players": 4, "suits": 4, "suit_size": 2, "rules": {"four": "off"},
      "moves": ["0>2:D+", "1>2:A+", "3>2:A-"]}, 1, "the asked player holds no cards"),
    ({"game": "gofish", "players": 3, "moves": SAMPLE + ["1>2:A+"]}, 1, "the game is over"),
    ({"game": "gofish", "players": 3, "rules": {"ask_void": "forbid"}, "moves": ["0>1:A-", "1>2:B-", "2>1:A-"]}, 1,
     "these rules forbid"),
]


@pytest.mark.parametrize("record, expected, words", BAD)
def test_bad_input_is_one_line_with_the_right_exit_code(tmp_path, record, expected, words):
    path = write(tmp_path, record)
    for command in ("check", "analyze", "count"):
        code, out, err = run(command, path)
        if expected == 2:
            line = one_line_error(code, out, err, 2)
            assert words in line and path in line
        else:
            assert code == 1 and "Traceback" not in out + err
            assert words in out, out
    if expected == 1:
        code, data = run_json("check", path)
        assert code == 1 and data["error"]["move"] == len(record["moves"]) - 1
        assert words in data["error"]["reason"]
        code, out, err = run("solve", path)
        line = one_line_error(code, out, err, 1)
        assert words in line


@pytest.mark.parametrize("text, words", [("[1, 2]", "a JSON object"), ("{not json", "not a Go Fish record"),
                                         ("", "not a Go Fish record")])
def test_unreadable_files_are_exit_2(tmp_path, text, words):
    path = tmp_path / "bad.json"
    path.write_text(text)
    for command in ("check", "analyze", "count", "solve"):
        line = one_line_error(*run(command, str(path)), 2)
        assert words in line
    line = one_line_error(*run("check", str(tmp_path / "missing.json")), 2)
    assert "no such file" in line


@pytest.mark.parametrize("cell, words", [("9:A", "unknown player '9'"), ("0:Z", "unknown suit 'Z'"),
                                         ("0A", "expected SEAT:SUIT"), ("Bob:A", "unknown player 'Bob'"),
                                         ("0:7", "unknown suit '7'")])
def test_explain_of_an_unknown_cell_is_exit_2(cell, words):
    line = one_line_error(*run("explain", example("stacky.json"), cell), 2)
    assert words in line


def test_explain_without_a_cell_needs_an_open_question():
    line = one_line_error(*run("explain", example("stacky.json")), 2)
    assert "no question is open" in line


def test_count_and_solve_limits_stop_cleanly(tmp_path):
    path = write(tmp_path, {"game": "gofish", "players": 4, "moves": []})
    line = one_line_error(*run("count", path, "--max-states", "1"), 2)
    assert "--max-states" in line
    code, data = run_json("solve", path, "--max-positions", "5")
    assert code == 0 and data["verdict"] == "unproven" and not data["proven"] and data["status"] == "limit"
    assert data["plies"] is None and data["strategy"] is None
    line = one_line_error(*run("solve", path, "--player", "Zed"), 2)
    assert "unknown player 'Zed'" in line
    line = one_line_error(*run("solve", path, "--goal", "quartet"), 2)
    assert "--goal" in line


# -- against the brute-force reference on random games ------------------------------------------------------
CONFIGS = [(2, 2, 2), (2, 2, 3), (2, 3, 2), (2, 4, 3), (3, 3, 2), (3, 3, 3), (3, 3, 4), (4, 2, 4), (4, 4, 2),
           (3, 4, 3), (4, 3, 4)]
OPTIONS = {"ask_void": ["allow", "forbid"], "after_yes": ["next", "again"], "four": ["named", "some", "off"],
           "win_after_ask": [False, True], "priority": ["mover", "four-first"], "no_initial_four": [False, True],
           "invalid": ["reject", "lose"], "repetition": ["none", "draw"]}


@st.composite
def games(draw):
    """A random record played on the reference: legal moves mostly, sometimes one illegal move (the last one
    written), sometimes an open question last; players and suits named or not."""
    P, K, S = draw(st.sampled_from(CONFIGS))
    rules = {k: draw(st.sampled_from(v)) for k, v in OPTIONS.items() if draw(st.booleans())}
    rules["first"] = draw(st.integers(0, P - 1))
    ref = Reference(P, K, S, rules)
    named = draw(st.booleans())
    players = [f"P{i}x" for i in range(P)] if named else None
    suits = [f"S{chr(97 + i)}" for i in range(K)] if draw(st.booleans()) else None
    pname = (lambda p: players[p]) if players else str
    sname = (lambda s: suits[s]) if suits else (lambda s: chr(ord("A") + s))
    moves, fault_at = [], None
    for _ in range(draw(st.integers(0, 10))):
        if ref.over:
            break
        if draw(st.integers(0, 9)) == 0:  # any move at all, legal or not
            a, b, s = draw(st.integers(0, P - 1)), draw(st.integers(0, P - 1)), draw(st.integers(0, K - 1))
            yes = draw(st.booleans())
        else:
            questions = ref.legal_questions()
            if not questions:
                break
            a, b, s = draw(st.sampled_from(questions))
            answers = ref.legal_answers(a, b, s)
            yes = draw(st.sampled_from(answers))
        was_over = ref.over
        moves.append(f"{pname(a)}>{pname(b)}:{sname(s)}{'+' if yes else '-'}")
        fault = ref.play(a, b, s, yes)
        if fault is not None or (ref.reason == "invalid" and not was_over):
            fault_at = len(moves) - 1
            break
    if fault_at is None and not ref.over and draw(st.booleans()):
        questions = ref.legal_questions()
        if questions:
            a, b, s = draw(st.sampled_from(questions))
            moves.append(f"{pname(a)}>{pname(b)}:{sname(s)}?")
            ref.play(a, b, s, None)
    record = {"game": "gofish", "players": players or P, "suits": suits or K, "suit_size": S, "rules": rules,
              "moves": moves}
    keys = ([players[p] if players else str(p) for p in range(P)], [sname(s) for s in range(K)])
    return record, ref, fault_at, keys


@settings(SETTINGS, max_examples=300)
@given(games())
def test_check_analyze_and_count_agree_with_brute_force(tmp_path, drawn):
    record, ref, fault_at, (players, suits) = drawn
    path = write(tmp_path, record)
    code, data = run_json("check", path)
    assert code == (0 if fault_at is None else 1)
    assert data["valid"] == (fault_at is None)
    assert data["moves_applied"] == (len(record["moves"]) if fault_at is None else fault_at)
    assert data["error"] == (None if fault_at is None else {"move": fault_at, "reason": data["error"]["reason"]})
    assert data["over"] == ref.over
    assert data["winners"] == ([] if ref.winner is None else [ref.winner])
    assert data["loser"] == ref.loser
    if ref.over:
        assert data["turn"] is None and data["answers"] is None
    elif ref.pending is not None:
        a, b, s = ref.pending
        assert data["turn"] == b
        assert data["answers"] == ["+" if yes else "-" for yes in ref.legal_answers(a, b, s)]
    else:
        assert data["turn"] == ref.turn and data["answers"] is None
    assert data["determined"] == ref.determined()
    code, data = run_json("analyze", path)
    low, high = ref.ranges()
    assert data["counts"] == {suits[s]: {players[p]: [low[p][s], high[p][s]] for p in range(ref.P)}
                              for s in range(ref.K)}
    assert data["determined"] == ref.determined()
    fours = {players[p]: [suits[s] for s in range(ref.K) if low[p][s] == ref.S] for p in range(ref.P)}
    assert data["fours"] == {p: f for p, f in fours.items() if f}
    code, data = run_json("count", path)
    assert data["tables"] == ref.count()
    for p in range(ref.P):
        for s in range(ref.K):
            spread = Counter(w[p][s] for w in ref.worlds)
            assert data["cells"][suits[s]][players[p]] == {str(v): n for v, n in sorted(spread.items())}


@settings(SETTINGS, max_examples=100)
@given(games())
def test_explain_gives_the_exact_range_and_a_counting_argument_that_adds_up(tmp_path, drawn):
    record, ref, fault_at, (players, suits) = drawn
    path = write(tmp_path, record)
    game = replay(record).game
    asked = None  # an illegal answer is explained right after its question
    if fault_at is not None and not ref.over:
        text = record["moves"][fault_at]
        m = game.parse_move(text)
        probe = copy.deepcopy(ref)
        if probe.play(m.asker, m.asked, m.suit, text.endswith("+")) in ("impossible yes", "impossible no"):
            asked = (m.asked, m.suit)
            after = copy.deepcopy(ref)
            after.play(m.asker, m.asked, m.suit, None)
            asked_game = game.copy()
            asked_game.push(Move(m.asker, m.asked, m.suit))
    for p in range(ref.P):
        for s in range(ref.K):
            here, facts = (asked_game, after) if (p, s) == asked else (game, ref)
            code, data = run_json("explain", path, f"{players[p]}:{suits[s]}")
            assert code == (0 if fault_at is None else 1)
            assert (data["min"], data["max"]) == facts.cell_range(p, s)
            assert data["explanation"][0].endswith(f"of {suits[s]}.")
            t = here.tables()
            for cut in data["cuts"]:  # each counting argument is a proof: the supposed bound leaves no table
                R = [players.index(n) for n in cut["players"]]
                C = [suits.index(n) for n in cut["suits"]]
                lo = [[max(v, 0) for v in row] for row in t.low]
                hi = [[min(v, ref.S) for v in row] for row in t.high]
                if cut["bound"] == "min":
                    hi[p][s] = data["min"] - 1
                else:
                    lo[p][s] = data["max"] + 1
                need = sum(t.hands[q] for q in R) - ref.S * len(C)
                room = (sum(hi[q][x] for q in R for x in range(ref.K) if x not in C)
                        - sum(lo[q][x] for q in range(ref.P) if q not in R for x in C))
                assert need > room, (cut, data["explanation"])


def _pushed_in_two(record: dict, moves: list[str]):
    """The record's game played as the game interface plays it: each move as two pushes, its question
    (``?``) and then its answer."""
    game = replay({**record, "moves": []}).game
    for text in moves:
        if text[-1] in "+-":
            game.push(text[:-1] + "?")
            if game.over:  # win_after_ask: the question alone won, nobody answers it
                break
        game.push(text)
    return game


def test_explain_numbers_the_records_moves_when_question_and_answer_are_pushed_apart():
    from quaternity_cp.gofish.explain import explain_cell
    record = {"game": "gofish", "players": 3, "moves": SAMPLE}
    two = _pushed_in_two(record, SAMPLE)
    assert len(two.states()) == 2 * len(SAMPLE) + 1 and two.moves == SAMPLE
    words = " ".join(explain_cell(two, 0, 0).lines)
    assert "move 2 (1>2:A+)" in words  # seat 1 asked for A in the record's move 2 (pushes 3 and 4)
    assert "move 3 (2>0:B-)" not in words and "move 4" not in words
    assert explain_cell(two, 0, 0).lines == explain_cell(replay(record).game, 0, 0).lines


@settings(SETTINGS, max_examples=60)
@given(games())
def test_explain_is_the_same_whether_a_move_is_one_push_or_two(drawn):
    from quaternity_cp.gofish.explain import explain_cell
    record, _ref, fault_at, _keys = drawn
    moves = record["moves"][:fault_at]  # the legal part of the record
    two = _pushed_in_two(record, moves)
    if len(two.moves) == len(moves) and two.moves[-1:] != moves[-1:]:  # a question that won at once
        assert two.moves[:-1] == moves[:-1] and two.moves[-1][:-1] == moves[-1][:-1]
    else:
        assert two.moves == moves
    one = replay({**record, "moves": two.moves}).game
    assert len(one.states()) == len(two.moves) + 1
    for p in range(one.players):
        for s in range(one.suits):
            a, b = explain_cell(one, p, s), explain_cell(two, p, s)
            assert (a.lines, a.cuts, a.answers) == (b.lines, b.cuts, b.answers)


def test_why_at_the_terminal_table_cites_the_records_moves(tmp_path):
    """``quaternity play`` plays a question and its answer as two decisions (two pushes); ``why`` explains the
    table's own game, and says what the record's replay says."""
    from quaternity_cli.main import main
    from quaternity_cp.gofish.explain import explain_cell
    from quaternity_cp.gofish.game import GoFish

    saved = tmp_path / "played.json"
    res = CliRunner().invoke(main, ["play", "--game", "gofish", "--players", "3", "--seed", "1", "--no-pause",
                                    "--save", str(saved)], input="1 A\nwhy 1 A\nquit\n")
    assert res.exit_code == 0, res.output
    record = json.loads(saved.read_text())
    assert record["moves"][0] in ("0>1:A+", "0>1:A-")
    game = GoFish.from_record(record)  # why was asked where the game was quit
    lines = explain_cell(game, 1, 0).lines
    assert any(f"in move 1 ({record['moves'][0]})" in line for line in lines)
    for line in lines:
        assert line.strip() in res.output


# -- solve ----------------------------------------------------------------------------------------------------
def _follow(tree: dict, record: dict, seat: int, moves: list[str]) -> int:
    """The number of leaves of a strategy tree, each of them a game over that ``seat`` won."""
    wins = 0
    for entry in tree.get("moves", []):
        nxt = entry["next"]
        line = moves + [entry["move"]]
        if nxt.get("end"):
            assert nxt["winners"] == [seat]
            wins += 1
        elif not nxt.get("truncated"):
            wins += _follow(nxt, record, seat, line)
    return wins


def test_solve_yes_gives_a_strategy_that_wins_on_every_branch(tmp_path):
    record = {"game": "gofish", "players": 3, "suits": 3, "suit_size": 4, "moves": SAMPLE[:3]}
    path = write(tmp_path, record)
    code, data = run_json("solve", path, "--player", "0", "--depth", "20")
    assert code == 0 and data["verdict"] == "yes" and data["proven"] and data["status"] == "solved"
    game = replay(record).game
    expected = can_force(game, 0)
    assert data["plies"] == expected.plies and data["result"] is True and data["positions"] == expected.graph_size
    assert _follow(data["strategy"], record, 0, SAMPLE[:3]) >= 1

    def walk(node: dict, moves: list[str]) -> None:  # every branch legal; the others' every reply present
        if node.get("end") or node.get("truncated"):
            return
        ref_game = replay(dict(record, moves=moves)).game
        shown = {e["move"] for e in node["moves"]}
        if node["player"] != 0:
            if ref_game.pending is None:
                legal = {ref_game.move_text(q)[:-1] + "?" for q in ref_game.legal_questions()}
                assert {m[:-1] + "?" for m in shown} == legal
            else:
                q = ref_game.pending
                assert shown == {ref_game.move_text(q)[:-1] + ("+" if a else "-") for a in ref_game.legal_answers()}
        for e in node["moves"]:
            nxt = moves[:-1] + [e["move"]] if moves and moves[-1].endswith("?") else moves + [e["move"]]
            assert replay(dict(record, moves=nxt)).valid
            walk(e["next"], nxt)

    walk(data["strategy"], SAMPLE[:3])


def test_solve_no_and_game_over(tmp_path):
    record = {"game": "gofish", "players": 3, "moves": SAMPLE[:3]}
    path = write(tmp_path, record)
    game = replay(record).game
    for seat in (1, 2):
        code, data = run_json("solve", path, "--player", str(seat))
        assert code == 0 and data["verdict"] == ("yes" if can_force(game, seat).wins else "no")
    code, data = run_json("solve", example("stacky.json"), "--player", "0")
    assert data["verdict"] == "yes" and data["plies"] == 0
    code, data = run_json("solve", example("stacky.json"), "--player", "1")
    assert data["verdict"] == "no" and data["plies"] is None
    code, out, _ = run("solve", example("four.json"), "--player", "2")
    assert code == 0 and "yes" in out


# -- through the installed command, once the game is registered ------------------------------------------------
def _wired() -> bool:
    probe = subprocess.run([sys.executable, "-m", "quaternity_cli", "gofish", "--help"], capture_output=True,
                           text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    return probe.returncode == 0


@pytest.fixture(scope="module")
def wired() -> None:
    if not _wired():
        pytest.skip("quaternity gofish is not registered yet")


@pytest.mark.parametrize("name, code, check", [
    ("stacky.json", 0, lambda d: d["winners"] == [0] and d["determined"]),
    ("forced-yes.json", 0, lambda d: d["answers"] == ["+"] and d["turn"] == 2),
    ("illegal-no.json", 1, lambda d: d["error"]["move"] == 3),
    ("four.json", 0, lambda d: d["winners"] == [2]),
    ("named.json", 0, lambda d: d["winners"] == [0]),
    ("illegal-lose.json", 1, lambda d: d["loser"] == 1),
])
def test_the_examples_through_quaternity_check(wired, name, code, check):
    for args in (["gofish", "check"], ["check"]):
        done = subprocess.run([sys.executable, "-m", "quaternity_cli", *args, example(name), "--json"],
                              capture_output=True, text=True, cwd=ROOT)
        assert done.returncode == code, done.stderr
        assert check(json.loads(done.stdout))


def test_the_shared_commands_hand_gofish_records_over(wired, tmp_path):
    for args in (["analyze", example("four.json"), "--json"], ["count", example("stacky.json"), "--json"],
                 ["explain", example("forced-yes.json"), "2:B"], ["solve", example("stacky.json"), "--json"]):
        done = subprocess.run([sys.executable, "-m", "quaternity_cli", *args], capture_output=True, text=True,
                              cwd=ROOT)
        assert done.returncode == 0, done.stderr
    bad = write(tmp_path, {"game": "gofish", "players": 3, "moves": ["0>1:A+", "1>2:D+"]}, "bad.json")
    done = subprocess.run([sys.executable, "-m", "quaternity_cli", "check", bad], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "unknown suit 'D'" in done.stderr


# -- the samples of docs/gofish.md, run on the group itself (tests/test_readme.py runs them through `quaternity`) --
def _doc_samples():
    from test_readme import samples

    return samples((ROOT / "docs" / "gofish.md").read_text(encoding="utf-8"), "docs/gofish.md")


@pytest.mark.parametrize("sample", _doc_samples(), ids=lambda s: f"{s.line}-{s.command[18:60]}")
def test_the_docs_samples_match_the_commands(sample, monkeypatch):
    import shlex

    from test_readme import matches, normalise

    monkeypatch.chdir(ROOT)
    words = shlex.split(sample.command)
    assert words[:2] == ["quaternity", "gofish"]
    result = CliRunner().invoke(gofish, words[2:], env={"COLUMNS": "80", "NO_COLOR": "1"})
    error = any(line.startswith("quaternity: ") for line in sample.expected)
    assert result.exit_code in ((2,) if error else (0, 1))
    assert matches(normalise(sample.expected), normalise(result.output.splitlines())), result.output


def test_the_docs_show_every_command():
    shown = {s.command.split()[2] for s in _doc_samples() if s.expected}
    assert {"check", "analyze", "explain", "count", "solve"} <= shown


# -- the shared commands hand a Go Fish record over with the same arguments (cli/dispatch.py) -----------------
@pytest.fixture
def root(monkeypatch):
    """A root group with the shared commands and this group, the record's game read from its "game" field (as
    the registry does once the game is registered)."""
    import click

    import quaternity_cp.registry as games
    from quaternity_cli.dispatch import analyze, check, count, explain, solve

    real = games.record_game
    monkeypatch.setattr(games, "record_game", lambda text: "gofish" if '"gofish"' in text else real(text))

    @click.group()
    def group() -> None:
        """The root, for the test."""

    for command in (check, analyze, count, explain, solve):
        group.add_command(command)
    group.add_command(gofish, "gofish")
    return group


@pytest.mark.parametrize("args", [["check", "--json"], ["analyze", "--json"], ["count", "--json"],
                                  ["count", "--json", "--history"], ["explain", "--json", "2:B"],
                                  ["solve", "--json", "--player", "1", "--max-seconds", "30"]])
def test_the_shared_commands_run_this_groups_commands(root, args):
    path = example("forced-yes.json")
    shared = CliRunner().invoke(root, [args[0], path, *args[1:]])
    own = CliRunner().invoke(gofish, [args[0], path, *args[1:]])
    assert shared.exit_code == own.exit_code == 0, shared.output
    mine, theirs = json.loads(own.output), json.loads(shared.output)
    for data in (mine, theirs):
        data.pop("seconds", None)
    assert theirs == mine


def test_an_option_of_the_shared_command_that_does_not_apply_is_one_line(root):
    done = CliRunner().invoke(root, ["count", example("stacky.json"), "--sample", "2"])
    line = one_line_error(done.exit_code, done.stdout, done.stderr, 2)
    assert "--sample does not apply" in line
    done = CliRunner().invoke(root, ["check", "-"], input=Path(example("four.json")).read_text())
    assert done.exit_code == 0 and "Game over: seat 2 wins" in done.output  # standard input, read once

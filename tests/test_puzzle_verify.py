"""``puzzle verify`` keeps its promises about first moves (issue 33).

- Interchangeable first moves are one answer: an answer naming any one member
  of each class of winning first moves, or several members, is right; an
  answer leaving a whole class out is incomplete (wrong, exit 1).
- A stated move that is not legal is called illegal, with the checker's own
  reason (``Position.check``), not "does not force it".
- A wrong answer is never told the winning moves unless ``--show`` asks for
  them: not in the line printed, not in the JSON (its ``first_moves``,
  ``first_move_classes`` and ``traps`` are null); with ``--show`` they are named.

The puzzles are the bundled ``03-two-questions`` (unique: one class of two
interchangeable questions) and ``04-two-ways-in`` (three classes); the classes
and the winning moves are read from the solver's answer in each test, and the
illegal moves are found by the checker, so nothing here depends on a stated
result.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from quaternity_cli.main import main

from quaternity_cp.quartets.formats import parse_record
from quaternity_cp.quartets.game import Question
from quaternity_cp.quartets.puzzles.puzzle import puzzle_position, solve_puzzle
from quaternity_cp.quartets.puzzles.search import move_text

PUZZLES = Path(__file__).resolve().parent.parent / "examples" / "puzzles"


def run(*args):
    return CliRunner().invoke(main, ["puzzle", "verify", *map(str, args)])


def solved(name: str):
    record = parse_record((PUZZLES / f"{name}.json").read_text())
    p = solve_puzzle(record, "quartet", 0, tree=False)
    return record, p.answer


def answer_file(tmp_path: Path, name: str, first_moves: list[str], questions: int) -> Path:
    path = tmp_path / f"{name}-{len(list(tmp_path.iterdir()))}.answer.json"
    path.write_text(json.dumps({"goal": "quartet", "player": 0, "questions": questions, "first_moves": first_moves}))
    return path


def winning_texts(answer) -> set[str]:
    return set(answer.texts(answer.first_moves))


def test_any_member_of_the_class_is_the_answer(tmp_path):
    record, a = solved("03-two-questions")
    assert a.unique and len(a.classes[0]) >= 2  # the puzzle has interchangeable first moves
    puzzle = PUZZLES / "03-two-questions.json"
    for texts in [[t] for t in a.texts(a.classes[0])] + [a.texts(a.classes[0])[::-1]]:
        res = run(puzzle, "--answer", answer_file(tmp_path, "one", texts, a.questions))
        assert res.exit_code == 0, (texts, res.output)
        # the verdict names the stated move first, then the interchangeable ones
        assert f"right and unique: seat 0 forces a quartet within {a.questions} questions; first move {texts[0]} " \
               f"(or an interchangeable one: " in res.output, res.output
        data = json.loads(run(puzzle, "--answer", answer_file(tmp_path, "one", texts, a.questions), "--json").output)
        assert data["ok"] and data["right"] and data["unique"]
        assert data["first_moves"] == a.texts(a.first_moves)  # a right answer is shown what it found


def test_every_class_must_be_named_one_member_is_enough(tmp_path):
    record, a = solved("04-two-ways-in")
    assert len(a.classes) >= 3 and any(len(c) > 1 for c in a.classes)
    puzzle = PUZZLES / "04-two-ways-in.json"
    one_each = [a.texts(c)[-1] for c in a.classes]  # the last member of each class
    res = run(puzzle, "--answer", answer_file(tmp_path, "all", one_each, a.questions), "--json")
    data = json.loads(res.output)
    assert res.exit_code == 1 and data["right"] is True and data["unique"] is False, res.output  # right, not unique
    assert data["reason"].startswith(f"not unique: {len(a.classes)} classes")
    # a whole class left out: incomplete (wrong), and the class left out is not named
    left_out = a.texts(a.classes[0])
    res = run(puzzle, "--answer", answer_file(tmp_path, "some", one_each[1:], a.questions))
    assert res.exit_code == 1, res.output
    assert f"incomplete first moves: 1 of the {len(a.classes)} classes of winning first moves not named" in res.output
    assert not any(t in res.output for t in left_out), res.output
    data = json.loads(run(puzzle, "--answer", answer_file(tmp_path, "some", one_each[1:], a.questions),
                          "--json").output)
    assert data["ok"] is False and data["right"] is False
    assert data["first_moves"] is None and data["first_move_classes"] is None and data["traps"] is None
    shown = run(puzzle, "--answer", answer_file(tmp_path, "some", one_each[1:], a.questions), "--show")
    assert shown.exit_code == 1 and all(t in shown.output for t in left_out), shown.output


def illegal_questions(record) -> list[tuple[str, str]]:
    """Seat 0's questions the checker refuses at the puzzle's moment, with its reasons."""
    pos = puzzle_position(record)
    g = record.game
    out = []
    for target in range(1, g.players):
        for card in range(g.cards):
            q = Question(0, target, card)
            err = pos.check(q)
            if err is not None and err.kind == "question":
                out.append((move_text(g, q), str(err)))
    return out


def test_an_illegal_move_is_called_illegal_with_the_checkers_reason(tmp_path):
    record, a = solved("03-two-questions")
    illegal = illegal_questions(record)
    assert illegal  # the position has questions the rules refuse
    puzzle = PUZZLES / "03-two-questions.json"
    for text, reason in illegal[:3]:
        res = run(puzzle, "--answer", answer_file(tmp_path, "bad", [text], a.questions))
        assert res.exit_code == 1 and res.output.count("\n") == 1, res.output
        assert f"{text} is illegal (question): {reason}" in res.output, res.output
        assert "does not force it" not in res.output
        # next to a right move: still wrong, and still illegal
        both = run(puzzle, "--answer", answer_file(tmp_path, "bad", [a.texts(a.first_moves)[0], text], a.questions))
        assert both.exit_code == 1 and f"{text} is illegal (question): {reason}" in both.output, both.output


@pytest.mark.parametrize("show", [False, True])
def test_a_wrong_answer_is_not_given_the_solution_unless_asked(tmp_path, show):
    record, a = solved("03-two-questions")
    winning = winning_texts(a)
    pos = puzzle_position(record)
    legal_losers = [move_text(record.game, m) for m in pos.legal_moves()
                    if isinstance(m, Question) and move_text(record.game, m) not in winning]
    illegal = [t for t, _ in illegal_questions(record)]
    assert legal_losers and illegal
    puzzle = PUZZLES / "03-two-questions.json"
    flag = ["--show"] if show else []
    for stated in ([legal_losers[0]], [illegal[0]], [legal_losers[0], illegal[0]]):
        path = answer_file(tmp_path, "wrong", stated, a.questions)
        res = run(puzzle, "--answer", path, *flag)
        assert res.exit_code == 1 and res.output.count("\n") == 1, res.output
        assert "wrong first moves: " in res.output
        named = {t for t in winning if t in res.output}
        assert named == (winning if show else set()), (stated, res.output)
        if stated == [legal_losers[0]]:
            assert f"{legal_losers[0]} does not force it" in res.output
        data = json.loads(run(puzzle, "--answer", path, "--json", *flag).output)
        assert data["ok"] is False and data["right"] is False
        for key in ("first_moves", "first_move_classes", "traps"):
            assert key in data and (data[key] is not None) is show, (key, data)
        text = json.dumps(data)
        assert {t for t in winning if t in text} == (winning if show else set()), text
    # a wrong number of questions is not told the first moves either
    res = run(puzzle, "--answer", answer_file(tmp_path, "k", a.texts(a.first_moves), a.questions + 1), "--json")
    data = json.loads(res.output)
    assert res.exit_code == 1 and data["right"] is False and data["first_moves"] is None, res.output


def test_an_illegal_move_of_the_puzzle_names_the_puzzle_s_file(tmp_path):
    """The puzzle's fault was reported under the answer file's name."""
    puzzle = tmp_path / "illegal.txt"
    puzzle.write_text("players: 3\nsets: 3\nset_size: 3\n0>1:A0+\n0>1:A0+\n")
    answer = Path(__file__).resolve().parent.parent / "examples" / "puzzles" / "03-two-questions.answer.json"
    res = CliRunner().invoke(main, ["puzzle", "verify", str(puzzle), "--answer", str(answer)])
    assert res.exit_code == 2
    assert res.output == f"quaternity: {puzzle}: move 2 (0>1:A0+) is illegal: no consistent deal remains after the question\n"

"""Quantum Go Fish puzzles (issue 32, point 6): ``puzzle generate --game gofish`` and ``puzzle verify``.

Every answer is compared with brute force (tests/gofish_reference.py: every consistent table listed, every
legal question and answer played on it, nothing from the flow engine): the questions that win at once
whatever the answer, the tempting ones (a win on one answer only), and the classes of interchangeable
questions (two suits are interchangeable when swapping them maps the set of consistent tables onto itself).
"""

from __future__ import annotations

import copy
from html import escape
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from quaternity_cli.main import main

from quaternity_cp.gofish import GoFish
from quaternity_cp.gofish import puzzles as gp
from quaternity_cp.registry import GAMES, load_all

from gofish_reference import Reference

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "puzzles" / "gofish"

#: (options of generate, the Reference's setup): small games the brute force lists quickly.
SETUPS = [
    ({"players": 3}, (3, 3, 4, {})),
    ({"players": 2}, (2, 2, 4, {})),
    ({"players": 3, "suit_size": 2}, (3, 3, 2, {})),
    ({"players": 3, "rules": "quantum-fingers"}, (3, 3, 4, {"after_yes": "again", "no_initial_four": True})),
    ({"players": 3, "rules": "marcusrainbow"}, (3, 3, 4, {"repetition": "draw"})),
    ({"players": 3, "rules": "geraschenko"}, (3, 3, 4, {"ask_void": "forbid", "four": "some", "win_after_ask": True})),
    ({"players": 3, "rules": "thorntondr"},
     (3, 3, 4, {"win_after_ask": True, "priority": "four-first", "no_initial_four": True})),
    ({"players": 4, "suit_size": 2}, (4, 4, 2, {})),
]


def _parse(text: str, suits: int) -> tuple[int, int, int, object]:
    """A move of a record without names (``0>1:A+``) as (asker, asked, suit, answer)."""
    people, _, rest = text.partition(":")
    a, _, b = people.partition(">")
    mark = rest[-1]
    return int(a), int(b), ord(rest[0]) - ord("A"), {"+": True, "-": False, "?": None}[mark]


def reference_of(record: dict, setup) -> Reference:
    players, suits, size, rules = setup
    ref = Reference(players, suits, size, rules)
    for text in record["moves"]:
        a, b, s, yes = _parse(text, suits)
        assert ref.play(a, b, s, yes) is None, text
    return ref


def brute(ref: Reference) -> dict:
    """The winning and tempting questions of the reference's moment, and the classes of interchangeable ones."""
    player = ref.turn
    winning, tempting = [], []
    for a, b, s in ref.legal_questions():
        wins = []
        asked = copy.deepcopy(ref)
        asked.play(a, b, s, None)
        if asked.over:
            wins.append(asked.winner == player)
        else:
            for yes in ref.legal_answers(a, b, s):
                after = copy.deepcopy(asked)
                after.play(a, b, s, yes)
                wins.append(after.over and after.winner == player)
        text = f"{a}>{b}:{chr(ord('A') + s)}"
        if all(wins):
            winning.append((a, b, s, text))
        elif any(wins):
            tempting.append((a, b, s, text))
    worlds = set(ref.worlds)

    def swap(s: int, t: int) -> set:
        out = set()
        for w in worlds:
            rows = [list(r) for r in w]
            for r in rows:
                r[s], r[t] = r[t], r[s]
            out.add(tuple(tuple(r) for r in rows))
        return out

    def same(x, y) -> bool:  # interchangeable questions: the same asked player, swappable suits
        return x[1] == y[1] and (x[2] == y[2] or swap(x[2], y[2]) == worlds)

    classes: list[list] = []
    for q in winning:
        home = next((c for c in classes if same(c[0], q)), None)
        if home is None:
            classes.append([q])
        else:
            home.append(q)
    return {"player": player, "winning": [q[3] for q in winning], "tempting": [q[3] for q in tempting],
            "classes": sorted(sorted(q[3] for q in c) for c in classes)}


# -- generated puzzles against brute force --------------------------------------------------------------------
@pytest.mark.parametrize("options,setup", SETUPS, ids=[str(o) for o, _ in SETUPS])
def test_generated_puzzles_are_right_and_unique_by_brute_force(options, setup):
    puzzles = gp.generate(3, 11, options, max_games=300)
    assert puzzles, options
    for p in puzzles:
        ref = reference_of(p.record, setup)
        assert not ref.over and ref.pending is None
        want = brute(ref)
        a = p.answer
        assert a["player"] == want["player"]
        assert sorted(a["first_moves"]) == sorted(want["winning"])
        assert sorted(a["traps"]) == sorted(want["tempting"])
        assert sorted(sorted(c) for c in a["first_move_classes"]) == want["classes"]
        assert len(want["classes"]) == 1 and a["unique"] is True
        assert a["grade"]["questions"] == len(ref.legal_questions())
        assert a["grade"]["classes"] >= 2  # a puzzle has something to choose from
        assert a["difficulty"] in gp.DIFFICULTIES
        assert GoFish.from_record(p.record).turn == a["player"]
        assert gp.verify(p.record, a).ok


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), which=st.sampled_from(range(len(SETUPS))), length=st.integers(0, 8))
def test_solve_matches_brute_force_at_any_moment(seed, which, length):
    """Not only puzzles: at a random moment of random play, the winning, tempting and interchangeable
    questions are those of brute force."""
    options, setup = SETUPS[which]
    game = gp._game(options)
    rng = random.Random(seed)
    for _ in range(length):
        if game.over:
            break
        moves = game.legal_moves()
        game.push(moves[rng.randrange(len(moves))])
    if game.over:
        return
    ref = reference_of(game.record(), setup)
    want = brute(ref)
    got = gp.solve(game)
    text = lambda qs: sorted(gp.question_text(game, q) for q in qs)  # noqa: E731
    assert got.player == want["player"]
    assert text(got.winning) == sorted(want["winning"])
    assert text(got.tempting) == sorted(want["tempting"])
    assert sorted(sorted(gp.question_text(game, q) for q in c) for c in got.winning_classes) == want["classes"]


def test_interchangeable_suits_make_one_class():
    """A generated puzzle whose winning class holds two questions (the brute force above says they are
    interchangeable); both are named and both are right answers."""
    for seed in range(20):
        for p in gp.generate(5, seed, {"players": 3}):
            if len(p.answer["first_move_classes"][0]) > 1:
                one, other = p.answer["first_move_classes"][0][:2]
                assert gp.verify(p.record, {"player": p.answer["player"], "first_moves": [one]}).ok
                assert gp.verify(p.record, {"player": p.answer["player"], "first_moves": [other]}).ok
                return
    pytest.fail("no puzzle with interchangeable winning questions in 100 puzzles")


def test_seeds_are_reproducible():
    one = gp.generate(3, 5, {"players": 3})
    two = gp.generate(3, 5, {"players": 3})
    assert [(p.name, p.record, p.answer) for p in one] == [(p.name, p.record, p.answer) for p in two]
    assert [p.name for p in one] == gp.puzzle_names({"players": 3}, 5, 3)
    assert all(p.answer["seed"] == 5 for p in one)


def test_difficulty_filter():
    for p in gp.generate(2, 1, {"players": 3}, difficulty="easy"):
        assert p.answer["difficulty"] == "easy" and gp.grade(gp.solve(GoFish.from_record(p.record)))["score"] < 2


def test_the_registry_names_the_part():
    load_all()
    assert GAMES["gofish"].part("puzzles") is gp


# -- the command ----------------------------------------------------------------------------------------------
def run(*args):
    return CliRunner().invoke(main, [*map(str, args)])


def one_line_error(result) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    return lines[0]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    out = tmp_path_factory.mktemp("gofish-puzzles")
    result = run("puzzle", "generate", "--game", "gofish", "--count", 4, "--seed", 3, "--out", out, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["count"] == 4 and data["game"] == "gofish"
    return out, data


def test_generate_writes_files_that_check_and_verify(made):
    out, data = made
    for entry in data["puzzles"]:
        path = Path(entry["path"])
        assert (out / (path.stem + ".answer.json")).exists()
        assert run("check", path).exit_code == 0
        result = run("puzzle", "verify", path)
        assert result.exit_code == 0, result.output
        assert "right and unique" in result.output


def test_generate_twice_is_the_same_and_refuses_to_replace(made, tmp_path):
    out, data = made
    again = run("puzzle", "generate", "--game", "gofish", "--count", 4, "--seed", 3, "--out", tmp_path)
    assert again.exit_code == 0
    for entry in data["puzzles"]:
        name = Path(entry["path"]).name
        assert (tmp_path / name).read_text() == (out / name).read_text()
    refused = run("puzzle", "generate", "--game", "gofish", "--count", 4, "--seed", 3, "--out", tmp_path)
    one_line_error(refused)


def _answers(out: Path, entry: dict, tmp_path: Path, stated: dict) -> Path:
    path = tmp_path / "stated.answer.json"
    path.write_text(json.dumps(stated))
    return path


def test_verify_right_wrong_and_illegal(made, tmp_path):
    out, data = made
    for entry in data["puzzles"]:
        puzzle = Path(entry["path"])
        record = json.loads(puzzle.read_text())
        answer = json.loads((out / (puzzle.stem + ".answer.json")).read_text())
        game = GoFish.from_record(record)
        player = answer["player"]
        for good in answer["first_move_classes"][0]:  # every member of the class, the interchangeable ones too
            stated = _answers(out, entry, tmp_path, {"player": player, "first_moves": [good]})
            assert run("puzzle", "verify", puzzle, "--answer", stated).exit_code == 0
        losing = [gp.question_text(game, q) for q in game.legal_questions()
                  if gp.question_text(game, q) not in answer["first_moves"]]
        assert losing  # generated puzzles have at least two classes of questions
        for bad in losing:
            stated = _answers(out, entry, tmp_path, {"player": player, "first_moves": [bad]})
            result = run("puzzle", "verify", puzzle, "--answer", stated)
            assert result.exit_code == 1 and "wrong" in result.output, result.output
            assert answer["first_moves"][0] not in result.output  # the solution is not given away
            hidden = json.loads(run("puzzle", "verify", puzzle, "--answer", stated, "--json").output)
            assert hidden["right"] is False and hidden["first_moves"] is hidden["first_move_classes"] is None
            shown = run("puzzle", "verify", puzzle, "--answer", stated, "--show", "--json")
            assert shown.exit_code == 1 and json.loads(shown.output)["first_moves"] == answer["first_moves"]
        illegal = f"{player}>{player}:A"
        stated = _answers(out, entry, tmp_path, {"player": player, "first_moves": [illegal]})
        result = run("puzzle", "verify", puzzle, "--answer", stated)
        assert result.exit_code == 1 and "illegal" in result.output
        other = (player + 1) % game.players
        stated = _answers(out, entry, tmp_path, {"player": other, "first_moves": answer["first_moves"][:1]})
        assert run("puzzle", "verify", puzzle, "--answer", stated).exit_code == 1


def test_verify_a_puzzle_that_is_not_unique(tmp_path):
    """The sample game's third moment: seat 0 wins at once by asking seat 1 or seat 2 for C (two classes)."""
    record = {"game": "gofish", "players": 3, "moves": ["0>1:A+", "1>2:A+", "2>0:B-"]}
    (tmp_path / "p.json").write_text(json.dumps(record))
    (tmp_path / "p.answer.json").write_text(json.dumps({"player": 0, "first_moves": ["0>1:C", "0>2:C"]}))
    result = run("puzzle", "verify", tmp_path / "p.json")
    assert result.exit_code == 1 and "not unique" in result.output
    (tmp_path / "p.answer.json").write_text(json.dumps({"player": 0, "first_moves": ["0>1:C"]}))
    result = run("puzzle", "verify", tmp_path / "p.json")
    assert result.exit_code == 1 and "incomplete" in result.output


@pytest.mark.parametrize("record,answer,where", [
    ({"game": "gofish", "players": 3, "moves": ["0>0:A+"]}, {"player": 0, "first_moves": ["0>1:A"]}, "p.json"),
    ({"game": "gofish", "players": 3, "moves": ["0>1:A?"]}, {"player": 0, "first_moves": ["0>1:A"]}, "p.json"),
    ({"game": "gofish", "players": 3, "moves": ["0>1:A+", "1>2:A+", "2>0:B-", "0>2:C-"]},
     {"player": 0, "first_moves": ["0>1:A"]}, "p.json"),  # the game is over
    ({"game": "gofish", "players": 3, "moves": ["0>1:A+"]}, {"player": 1, "first_moves": ["1>2:Z"]}, "p.answer.json"),
    ({"game": "gofish", "players": 3, "moves": ["0>1:A+"]}, {"player": 1, "first_moves": []}, "p.answer.json"),
    ({"game": "gofish", "players": 3, "moves": ["0>1:A+"]}, {"player": "x", "first_moves": ["1>2:A"]},
     "p.answer.json"),
    ({"game": "gofish", "players": 3, "moves": ["0>1:A+"]}, [1], "p.answer.json"),
    ({"game": "gofish", "players": 3, "moves": ["0>1:A+"]}, {"goal": "quartet", "player": 1, "first_moves": ["1>2:A"]},
     "p.answer.json"),
])
def test_verify_bad_input_is_exit_2_in_one_line(tmp_path, record, answer, where):
    (tmp_path / "p.json").write_text(json.dumps(record))
    (tmp_path / "p.answer.json").write_text(json.dumps(answer))
    line = one_line_error(run("puzzle", "verify", tmp_path / "p.json"))
    assert where in line


def test_verify_unreadable_files(tmp_path):
    (tmp_path / "p.json").write_text('{"game": "gofish", "players": 3, "moves": ["0>1:A+"]}')
    assert "no answer file" in one_line_error(run("puzzle", "verify", tmp_path / "p.json"))
    (tmp_path / "p.answer.json").write_text("{")
    assert "p.answer.json" in one_line_error(run("puzzle", "verify", tmp_path / "p.json"))


@pytest.mark.parametrize("args", [
    ["--sets", "3"], ["--goal", "win"], ["--option", "suits=5"], ["--option", "nonsense=1"], ["--option", "x"],
    ["--option", "players=4"], ["--option", "max_moves=3"],
])
def test_generate_bad_options_exit_2(tmp_path, args):
    one_line_error(run("puzzle", "generate", "--game", "gofish", "--out", tmp_path / "o", *args))


def test_generate_unknown_game_and_option_without_game(tmp_path):
    assert "unknown game" in one_line_error(run("puzzle", "generate", "--game", "nope", "--out", tmp_path))
    one_line_error(run("puzzle", "generate", "--option", "suits=3", "--out", tmp_path))


def test_generate_too_few_games_is_exit_2_keeping_what_it_made(tmp_path):
    result = run("puzzle", "generate", "--game", "gofish", "--count", 50, "--seed", 3, "--max-games", 3,
                 "--out", tmp_path)
    assert result.exit_code == 2 and "--max-games" in result.output
    made = [p for p in tmp_path.glob("*.json") if not p.name.endswith(".answer.json")]
    assert 0 < len(made) <= 3


@pytest.mark.skipif(not EXAMPLES.exists(), reason="no bundled Go Fish puzzles")
def test_bundled_examples_verify():
    puzzles = sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".answer.json"))
    assert puzzles
    for path in puzzles:
        result = run("puzzle", "verify", path)
        assert result.exit_code == 0, result.output
        record = json.loads(path.read_text())
        answer = json.loads(path.with_name(path.stem + ".answer.json").read_text())
        seats = record["players"] if isinstance(record["players"], list) else [str(p) for p in range(record["players"])]
        suits = record["suits"] if isinstance(record["suits"], list) else [chr(65 + s) for s in range(record["suits"])]
        numbered = dict(record, moves=[_numbered(m, seats, suits) for m in record["moves"]])
        ref = reference_of(numbered, (len(seats), len(suits), record["suit_size"], record.get("rules") or {}))
        want = brute(ref)
        assert sorted(_numbered(m + "?", seats, suits)[:-1] for m in answer["first_moves"]) == sorted(want["winning"])
        assert len(want["classes"]) == 1 and answer["unique"]


def _numbered(move: str, seats: list[str], suits: list[str]) -> str:
    """A move with names (``Xia>Zoe:A+``) with seat numbers and suit letters (``0>2:A+``)."""
    people, _, rest = move.partition(":")
    a, _, b = people.partition(">")
    return f"{seats.index(a)}>{seats.index(b)}:{chr(65 + suits.index(rest[:-1]))}{rest[-1]}"


# -- the sheet ------------------------------------------------------------------------------------------------
def test_sheet_prints_go_fish_puzzles(made, tmp_path):
    out, data = made
    page = tmp_path / "sheet.html"
    result = run("puzzle", "sheet", out, "-o", page)
    assert result.exit_code == 0, result.output
    html = page.read_text()
    assert "<script" not in html and "http" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert html.count('class="puzzle"') == data["count"] == html.count('class="answer"')
    assert html.index('class="answers"') > html.rindex('class="puzzle"')
    for entry in data["puzzles"]:
        assert f"<code>{escape(entry['first_moves'][0])}</code>" in html


def test_sheet_refuses_a_wrong_answer_and_mixed_games(made, tmp_path):
    out, data = made
    folder = tmp_path / "p"
    folder.mkdir()
    entry = data["puzzles"][0]
    puzzle = Path(entry["path"])
    (folder / puzzle.name).write_text(puzzle.read_text())
    answer = json.loads((out / (puzzle.stem + ".answer.json")).read_text())
    game = GoFish.from_record(json.loads(puzzle.read_text()))
    losing = next(gp.question_text(game, q) for q in game.legal_questions()
                  if gp.question_text(game, q) not in answer["first_moves"])
    (folder / (puzzle.stem + ".answer.json")).write_text(json.dumps(answer | {"first_moves": [losing]}))
    assert "wrong" in one_line_error(run("puzzle", "sheet", folder, "-o", tmp_path / "s.html"))
    (folder / (puzzle.stem + ".answer.json")).write_text(json.dumps(answer))
    quaternity = Path(__file__).resolve().parent.parent / "examples" / "puzzles" / "01-one-question"
    for suffix in (".json", ".answer.json"):
        (folder / ("q" + suffix)).write_text(quaternity.with_name(quaternity.name + suffix).read_text())
    assert "several games" in one_line_error(run("puzzle", "sheet", folder, "-o", tmp_path / "s.html"))
    # a malformed file names no game: it does not make the folder "several games", and the sheet's game
    # reads it and says what is wrong with it, naming it
    for suffix in (".json", ".answer.json"):
        (folder / ("q" + suffix)).unlink()
    (folder / "00-cut.json").write_text('{"game": "gofish", "players": 3,')
    (folder / "00-cut.answer.json").write_text("{}")
    line = one_line_error(run("puzzle", "sheet", folder, "-o", tmp_path / "s.html"))
    assert "00-cut.json" in line and "several games" not in line and "complete" in line, line

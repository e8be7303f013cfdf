"""Generated puzzles checked without the solver; ``puzzle verify`` and ``puzzle generate`` as commands.

Every generated puzzle (a small seeded batch for every preset of the rules
registry that makes puzzles, both goals) is re-derived by the plain AND-OR
searches over :class:`~quaternity_cp.quartets.position.Position` of ``test_puzzles.py``
(the rules as the library plays them, no canonical keys, no symmetry, no game
graph): K is the least budget that succeeds (one less fails), the winning
first moves are exactly the stated ones, the traps are what the docs call
traps, the classes of interchangeable first moves are consistent (one class:
the same asked seat, cards with the same possible owners), and every line of
the strategy tree is legal, covers every legal answer of the asked seats and
reaches the goal. Then: reproducibility (byte for byte, one worker or two), the
difficulty of the bundled puzzles against the table of docs/puzzles.md, and
``verify`` on right, wrong and non-unique answers and on bad input.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from quaternity_cli.main import main
from test_puzzles import PUZZLES, QuartetSearch, WinSearch

from quaternity_cp.quartets.formats import parse_record, record_from_json
from quaternity_cp.quartets.game import Declaration, Question
from quaternity_cp.quartets.position import Position
from quaternity_cp.quartets.puzzles.answers import read_answer
from quaternity_cp.quartets.puzzles.generate import GenerateOptions, generate
from quaternity_cp.quartets.puzzles.grade import DIFFICULTIES
from quaternity_cp.quartets.puzzles.puzzle import puzzle_position
from quaternity_cp.quartets.puzzles.search import PuzzleError, parse_first_move
from quaternity_cp.quartets.puzzles.verify import verify
from quaternity_cp.quartets.rules import PRESETS

#: The presets whose games make puzzles (classic deals the cards: refused, see below).
MAKERS = [name for name, rules in PRESETS.items() if not rules.dealt]
GOALS = ("quartet", "win")


@functools.cache
def batch(preset: str, goal: str, count: int, seed: int = 11, size: tuple[int, int, int] = (3, 3, 3), difficulty=None,
          jobs: int = 1, questions: tuple | None = None, allow_grid_answers: bool = False) -> tuple:
    """``count`` generated puzzles: (name, record, answer) each."""
    made: list = []
    opts = GenerateOptions(*size, preset, goal, questions=questions, difficulty=difficulty,
                           allow_grid_answers=allow_grid_answers)
    generate(opts, seed, count, jobs=jobs, found=lambda name, record, answer: made.append((name, record, answer)))
    return tuple(made)


# -- the brute-force checks ------------------------------------------------------------------------
def legal_first_moves(pos: Position) -> list:
    return list(pos.legal_moves())


def answered(pos: Position, move: Question) -> list[Question]:
    legal = pos.answers()
    assert legal is not None  # the question is open
    return [move.answered(v) for v in (True, False) if legal["yes" if v else "no"]]


def quartet_after(search: QuartetSearch, pos: Position, claimed_before: tuple, k: int) -> bool:
    """After a completed move: claimed for the player, or forced within k more questions."""
    return search.claimed_for_player(claimed_before) or search.win(k)


def quartet_facts(pos: Position, player: int, k: int) -> tuple[set, set]:
    """(winning first moves, traps) by the plain search: a question wins when every legal answer
    claims a set for the player or leaves one forced within k-1 more questions; a trap when one
    answer would and another would not."""
    search = QuartetSearch(pos, player)
    wins, traps = set(), set()
    for m in legal_first_moves(pos):
        assert isinstance(m, Question)  # K >= 1: no declaration can claim a set now
        before = pos.state.claimed
        pos.push(m)
        results = []
        for a in answered(pos, m):
            pos.push(a)
            results.append(quartet_after(search, pos, before, k - 1))
            pos.pop()
        pos.pop()
        if all(results):
            wins.add(m)
        elif any(results) and len(results) == 2:
            traps.add(m)
    return wins, traps


def win_facts(pos: Position, player: int, k: int) -> tuple[set, set]:
    search = WinSearch(player)
    wins, traps = set(), set()
    for m in legal_first_moves(pos):
        if search.move(pos, m, k):
            wins.add(m)
            continue
        if isinstance(m, Question):
            pos.push(m)
            options = answered(pos, m)
            results = []
            for a in options:
                pos.push(a)
                results.append(search.win(pos, k - 2))
                pos.pop()
            pos.pop()
            if len(options) == 2 and any(results):
                traps.add(m)
    return wins, traps


def walk_quartet(pos: Position, node: dict, player: int, k: int) -> int:
    """Follow a quartet strategy tree on the position: each question the player's and legal,
    ``answers`` exactly the legal answers, ``forced`` exactly when one is legal, every branch
    ending in a set claimed for the player, within k questions. Returns the nodes seen."""
    seen = 1
    if "declare" in node:
        move = pos.game.parse_move(node["declare"])
        assert isinstance(move, Declaration) and move.player == player
        before = pos.state.claimed
        pos.push(move)
        try:
            return seen + leaf_or_next(pos, node["next"], player, k, before)
        finally:
            pos.pop()
    assert k >= 1, "more questions than K"
    move = parse_first_move(pos.game, node["ask"])
    assert isinstance(move, Question) and move.asker == player and pos.turn == (player,)
    assert pos.check(move) is None, node["ask"]
    before = pos.state.claimed
    pos.push(move)
    try:
        legal = {("yes" if a.answer else "no"): a for a in answered(pos, move)}
        assert set(node["answers"]) == set(legal), (node["ask"], node["answers"].keys(), legal)
        assert node.get("forced", False) == (len(legal) == 1)
        assert ("why" in node) == (len(legal) == 1)
        for word, a in legal.items():
            pos.push(a)
            try:
                seen += leaf_or_next(pos, node["answers"][word], player, k - 1, before)
            finally:
                pos.pop()
    finally:
        pos.pop()
    return seen


def leaf_or_next(pos: Position, node: dict, player: int, k: int, before: tuple) -> int:
    claimed = {pos.game.set_name(s) for s, (b, a) in enumerate(zip(before, pos.state.claimed)) if b < 0 and a == player}
    if "reached" in node:
        assert node["reached"] == "quartet" and node["set"] in claimed, (node, claimed)
        return 1
    assert not claimed and pos.turn == (player,) and not pos.over
    return walk_quartet(pos, node, player, k)


def walk_win(pos: Position, node: dict, player: int, k: int) -> int:
    """Follow a win strategy tree: every move legal, the other seats' questions answered as
    legal, every leaf a finished game the player is a winner of, within k plies."""
    if "reached" in node:
        assert pos.over and player in pos.winners() and node["winners"] == pos.winners()
        return 1
    assert k >= 1, "more plies than K"
    if "choose" in node:
        assert len(pos.turn) > 1 and {int(p) for p in node["choose"]} == set(pos.turn)
        seen = 1
        for p, child in node["choose"].items():  # the free choice: one seat takes the turn (as WinSearch does)
            chosen = Position(pos.game, pos.rules, engine=pos.engine, state=replace(pos.state, turn=(int(p),)))
            seen += walk_win(chosen, child, player, k)
        return seen
    if "to_move" in node:
        assert pos.turn == (node["to_move"],) and node["to_move"] != player
        return 1 + sum(walk_win(pos, child, player, k) for child in node["options"])
    if "declare" in node:
        pos.push(pos.game.parse_move(node["declare"]))
        try:
            return 1 + walk_win(pos, node["next"], player, k - 1)
        finally:
            pos.pop()
    move = parse_first_move(pos.game, node["ask"])
    assert isinstance(move, Question) and pos.check(move) is None, node["ask"]
    pos.push(move)
    try:
        legal = {("yes" if a.answer else "no"): a for a in answered(pos, move)}
        if move.target == player:  # the player answers: the answer it gives
            assert len(node["answers"]) == 1 and set(node["answers"]) <= set(legal)
        else:
            assert set(node["answers"]) == set(legal)
        cost = 1 if len(legal) == 1 else 2
        seen = 1
        for word, child in node["answers"].items():
            pos.push(legal[word])
            try:
                seen += walk_win(pos, child, player, k - cost)
            finally:
                pos.pop()
        return seen
    finally:
        pos.pop()


def check_puzzle(record: dict, answer: dict) -> None:
    rec = record_from_json(record)
    assert rec.start is None and rec.deal is None
    pos = puzzle_position(rec)
    p, k = answer["player"], answer["questions"]
    assert pos.turn == (p,) and pos.pending is None and not pos.over and k >= 1
    game = rec.game
    if answer["goal"] == "quartet":
        search = QuartetSearch(pos, p)
        assert search.win(k) and not search.win(k - 1), answer["puzzle"]
        wins, traps = quartet_facts(pos, p, k)
        walk_quartet(pos, answer["strategy"], p, k)
    else:
        win_search = WinSearch(p)
        assert win_search.win(pos, k) and not win_search.win(pos, k - 1), answer["puzzle"]
        assert answer["plies"] == k
        wins, traps = win_facts(pos, p, k)
        walk_win(pos, answer["strategy"], p, k)
    first = [parse_first_move(game, t) for t in answer["first_moves"]]
    assert set(first) == wins and len(first) == len(wins), (answer["puzzle"], answer["first_moves"], wins)
    assert {parse_first_move(game, t) for t in answer["traps"]} == traps, answer["puzzle"]
    classes = answer["first_move_classes"]
    assert answer["unique"] is True and len(classes) == 1 and sorted(classes[0]) == sorted(answer["first_moves"])
    owners = pos.analysis().owners
    # interchangeable: the same seat asked for a card with the same possible owners; a set declared
    # whose cards have the same possible owners
    kinds = {(m.target, owners[m.card]) if isinstance(m, Question) else
             ("declare", tuple(sorted(owners[c] for c in game.cards_of(m.set)))) for m in first}
    assert len(kinds) == 1, (answer["puzzle"], kinds)
    assert answer["strategy"].get("ask", answer["strategy"].get("declare")) == answer["first_moves"][0]
    assert answer["difficulty"] in DIFFICULTIES


@pytest.mark.parametrize("goal", GOALS)
@pytest.mark.parametrize("preset", MAKERS)
def test_generated_puzzles_by_brute_force(preset, goal):
    made = batch(preset, goal, 2)
    assert len(made) == 2
    for name, record, answer in made:
        assert answer["puzzle"] == name and answer["goal"] == goal and record["rules"] == preset
        check_puzzle(record, answer)


@pytest.mark.slow
@pytest.mark.parametrize("size", [(3, 3, 3), (3, 4, 3), (2, 3, 4)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("goal", GOALS)
@pytest.mark.parametrize("preset", MAKERS)
def test_many_generated_puzzles_by_brute_force(preset, goal, size):
    for name, record, answer in batch(preset, goal, 10, seed=5, size=size):
        check_puzzle(record, answer)


@pytest.mark.slow
@pytest.mark.parametrize("difficulty", DIFFICULTIES[:3])
def test_puzzles_of_a_difficulty_by_brute_force(difficulty):
    goal = "win" if difficulty == "hard" else "quartet"
    made = batch("quaternity", goal, 3, seed=3, difficulty=difficulty)
    assert len(made) == 3
    for name, record, answer in made:
        assert answer["difficulty"] == difficulty
        check_puzzle(record, answer)


def test_classic_makes_no_puzzles(tmp_path):
    with pytest.raises(PuzzleError, match="classic preset makes no puzzles"):
        GenerateOptions(rules="classic").check()
    result = run(["puzzle", "generate", "--rules", "classic", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "classic preset makes no puzzles" in result.output
    assert not list(tmp_path.iterdir())


# -- the command -------------------------------------------------------------------------------------
def run(args: list[str]):
    return CliRunner().invoke(main, args)


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_generate_is_reproducible_and_checked(tmp_path):
    args = ["puzzle", "generate", "--count", "4", "--seed", "7", "--goal", "quartet"]
    one = run(args + ["--out", str(tmp_path / "one")])
    assert one.exit_code == 0, one.output
    two = run(args + ["--jobs", "2", "--out", str(tmp_path / "two")])
    assert two.exit_code == 0, two.output
    assert files(tmp_path / "one") == files(tmp_path / "two")
    names = sorted(files(tmp_path / "one"))
    assert names[:2] == ["quaternity-3x3x3-quartet-7-001.answer.json", "quaternity-3x3x3-quartet-7-001.json"]
    assert len(names) == 8
    library = batch("quaternity", "quartet", 4, seed=7)  # the library makes the same
    for name, record, answer in library:
        assert json.loads((tmp_path / "one" / f"{name}.json").read_text()) == record
        assert json.loads((tmp_path / "one" / f"{name}.answer.json").read_text()) == answer
        check = run(["check", str(tmp_path / "one" / f"{name}.json")])
        assert check.exit_code == 0, check.output
        ok = run(["puzzle", "verify", str(tmp_path / "one" / f"{name}.json")])
        assert ok.exit_code == 0 and "right and unique" in ok.output, ok.output
    # never replaced without --force (checked before any work); with it, the same files again
    again = run(args + ["--out", str(tmp_path / "one")])
    assert again.exit_code == 2 and "exists already; pass --force" in again.output
    forced = run(args + ["--out", str(tmp_path / "one"), "--force", "--json"])
    assert forced.exit_code == 0, forced.output
    summary = json.loads(forced.output)
    assert summary["count"] == 4 and [p["name"] for p in summary["puzzles"]] == [n for n, _, _ in library]
    assert files(tmp_path / "one") == files(tmp_path / "two")


def printed_grids(folder: Path) -> dict[str, dict[tuple[str, int], str]]:
    """The knowledge grid each puzzle of ``folder`` is printed with on the sheet (``puzzle sheet``):
    per puzzle name, (card, seat) -> the cell's state (forced, possible, impossible)."""
    out = folder.parent / f"{folder.name}.html"
    res = run(["puzzle", "sheet", str(folder), "-o", str(out)])
    assert res.exit_code == 0, res.output
    grids = {}
    for article in re.findall(r'<article class="puzzle".*?</article>', out.read_text(encoding="utf-8"), re.S):
        named = re.search(r'data-name="([^"]*)"', article)
        assert named is not None, article[:200]
        name = named.group(1)
        cells = re.findall(r'<g class="cell \w+" data-card="([^"]+)" data-seat="(\d+)" data-state="(\w+)"', article)
        assert cells, name
        grids[name] = {(card, int(seat)): state for card, seat, state in cells}
    return grids


def read_off(grid: dict[tuple[str, int], str], answer: dict) -> bool:
    """Whether the strategy is one line of the player's moves, each question for a card the printed grid
    shows as forced (a green square) with the seat asked."""
    node = answer["strategy"]
    while "reached" not in node:
        if "declare" in node:
            node = node["next"]
            continue
        if "ask" not in node or len(node["answers"]) != 1:
            return False
        asker, rest = node["ask"].split(">")
        target, card = rest.split(":")
        if int(asker) != answer["player"] or grid[card, int(target)] != "forced":
            return False
        node = next(iter(node["answers"].values()))
    return True


def test_default_puzzles_cannot_be_read_off_the_printed_grid(tmp_path):
    """A puzzle whose answer is a line of green squares on its printed grid (the one question, or every
    question, asks for a card shown as forced with the seat asked) is not made, unless asked for."""
    seen: dict[bool, list[tuple[str, dict, bool]]] = {}
    for allow in (True, False):
        folder = tmp_path / ("allowed" if allow else "default")
        folder.mkdir()
        made = batch("quaternity", "quartet", 8, seed=7, allow_grid_answers=allow)
        assert len(made) == 8
        for name, record, answer in made:
            (folder / f"{name}.json").write_text(json.dumps(record))
            (folder / f"{name}.answer.json").write_text(json.dumps(answer))
        grids = printed_grids(folder)
        seen[allow] = [(name, answer, read_off(grids[name], answer)) for name, _, answer in made]
        if not allow:  # a one-question puzzle's card is never a green square of the seat asked
            for name, answer, _ in seen[allow]:
                if answer["questions"] == 1:
                    target, card = answer["first_moves"][0].split(">")[1].split(":")
                    assert grids[name][card, int(target)] != "forced", (name, answer["first_moves"])
    # the old behaviour, kept behind the option, makes such puzzles (one question among them): the check sees them
    assert any(visible and a["questions"] == 1 for _, a, visible in seen[True])
    # the default makes none
    assert not any(visible for _, _, visible in seen[False]), [n for n, _, visible in seen[False] if visible]
    # the option is the command's too, and the files say which was used
    out = tmp_path / "cli"
    res = run(["puzzle", "generate", "--count", "2", "--seed", "7", "--allow-grid-answers", "--out", str(out)])
    assert res.exit_code == 0, res.output
    answers = [json.loads(p.read_text()) for p in sorted(out.glob("*.answer.json"))]
    assert [a["generator"]["allow_grid_answers"] for a in answers] == [True, True]
    assert [a for _, _, a in batch("quaternity", "quartet", 8, seed=7, allow_grid_answers=True)[:2]] == answers


def test_generate_refuses_bad_input_and_says_when_it_finds_too_few(tmp_path):
    (tmp_path / "file").write_text("x")
    for args, message in [
        (["--questions", "3-1"], "need 1 <= LOW <= HIGH"),
        (["--questions", "two"], "is not K or LOW-HIGH"),
        (["--out", str(tmp_path / "file")], "is a file, not a folder"),
        (["--agents", "nobody"], "unknown agent 'nobody'"),
        (["--agents", "random,random"], "one name for every seat or one per seat"),
        (["--players", "9"], "--players"),
        (["--goal", "value"], "--goal"),
        (["--count", "0"], "--count"),
    ]:
        out = args if "--out" in args else args + ["--out", str(tmp_path / "x")]
        result = run(["puzzle", "generate", *out])
        assert result.exit_code == 2 and message in result.output, (args, result.output)
        assert "Traceback" not in result.output
    few = run(["puzzle", "generate", "--difficulty", "expert", "--max-games", "2", "--out", str(tmp_path / "few")])
    assert few.exit_code == 2 and "made 0 of 10 puzzles: no more puzzles in 2 games" in few.output, few.output


# -- difficulty: the bundled puzzles against docs/puzzles.md --------------------------------------------
#: The difficulty and score of each bundled puzzle, as the table of docs/puzzles.md gives them.
BUNDLED = {"01": ("easy", 2.0), "02": ("medium", 7.48), "03": ("easy", 3.05), "04": ("hard", 9.1),
           "05": ("medium", 6.68), "06": ("easy", 2.98), "07": ("easy", 3.22), "08": ("easy", 3.76),
           "09": ("expert", 18.09), "10": ("hard", 9.41), "11": ("expert", 16.05), "12": ("expert", 13.56),
           "13": ("expert", 14.9)}
#: Right and unique (True), right and not unique (False), right with nothing to be unique about (None).
UNIQUE = {"01": True, "03": True, "06": None, "07": None, "08": None}


def spearman(xs: list[float], ys: list[float]) -> float:
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        for pos, i in enumerate(order):
            r[i] = pos + 1
        return r
    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    return 1 - 6 * sum((a - b) ** 2 for a, b in zip(rx, ry)) / (n * (n * n - 1))


def test_the_difficulty_order_of_the_bundled_puzzles():
    scores = {}
    for path in sorted(p for p in PUZZLES.glob("*.json") if not p.name.endswith(".answer.json")):
        record = parse_record(path.read_text())
        stated, _ = read_answer(record.game, path.with_name(path.stem + ".answer.json").read_text())
        v = verify(record, stated)
        key = path.stem[:2]
        assert v.right, (key, v.reason)
        assert v.unique is UNIQUE.get(key, False), (key, v.unique)
        assert v.grade is not None and (v.grade.difficulty, v.grade.score) == BUNDLED[key], (key, v.grade)
        scores[key] = v.grade.score
    keys = sorted(scores)
    assert len(keys) == 13
    strategies = [k for k in keys if k not in ("06", "07", "08")]
    # the agreement docs/puzzles.md states: rank correlation with the listed order
    assert round(spearman([float(i) for i in range(13)], [scores[k] for k in keys]), 2) == 0.72
    assert round(spearman([float(i) for i in range(10)], [scores[k] for k in strategies]), 2) == 0.78
    assert BUNDLED["01"][0] == BUNDLED["03"][0] == "easy"
    assert {BUNDLED[k][0] for k in ("09", "11", "12", "13")} == {"expert"}


@pytest.mark.parametrize("key", ["goal", "player", "questions", "first_moves", "result", "plies"])
def test_an_answer_list_with_a_verdict_beside_it_is_refused(key):
    """A bundled answer file (a list ``answers``) with a puzzle answer's key at its top level: the key
    would go unchecked, so the file is refused naming it; without it the same file reads."""
    path = PUZZLES / "01-one-question.answer.json"
    record = parse_record(PUZZLES.joinpath("01-one-question.json").read_text())
    data = json.loads(path.read_text())
    stated, _ = read_answer(record.game, json.dumps(data))
    assert stated and all(s.listed for s in stated)
    data[key] = data["answers"][0].get(key, 1)
    with pytest.raises(PuzzleError, match=f"'{key}' at the top level would go unchecked"):
        read_answer(record.game, json.dumps(data))


def test_the_command_and_the_library_know_the_same_difficulties():
    from quaternity_cli.cmd_puzzle import DIFFICULTIES as COMMAND
    from quaternity_cp.gofish.puzzles import DIFFICULTIES as GOFISH
    from quaternity_cp.quartets.cli.puzzle import DIFFICULTIES as OWN

    assert COMMAND == OWN == GOFISH == DIFFICULTIES


# -- verify ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """A folder with a generated two-question puzzle (and its answer)."""
    folder = tmp_path_factory.mktemp("made")
    _, record, answer = batch("quaternity", "quartet", 1, seed=2, difficulty="medium", questions=(2, 2))[0]
    assert answer["questions"] == 2
    (folder / "p.json").write_text(json.dumps(record))
    (folder / "p.answer.json").write_text(json.dumps(answer))
    return folder


def with_answer(folder: Path, **change) -> Path:
    answer = json.loads((folder / "p.answer.json").read_text()) | change
    path = folder / f"changed-{len(list(folder.iterdir()))}.answer.json"
    path.write_text(json.dumps({k: v for k, v in answer.items() if v is not None}))
    return path


def test_verify_right_wrong_and_not_unique(made, tmp_path):
    puzzle = str(made / "p.json")
    answer = json.loads((made / "p.answer.json").read_text())
    ok = run(["puzzle", "verify", puzzle])
    assert ok.exit_code == 0 and ok.output.startswith(f"{puzzle}: right and unique: seat {answer['player']} "
                                                      f"forces a quartet within 2 questions"), ok.output
    data = json.loads(run(["puzzle", "verify", puzzle, "--json"]).output)
    assert data["ok"] and data["unique"] and data["first_moves"] == answer["first_moves"]
    assert data["difficulty"] == answer["difficulty"] and data["grade"] == answer["grade"]
    # a hand-made answer needs only goal, player and questions
    short = with_answer(made, first_moves=None, first_move_classes=None, traps=None, strategy=None, grade=None)
    assert run(["puzzle", "verify", puzzle, "--answer", str(short)]).exit_code == 0
    cases = [
        ({"questions": 3}, "wrong: seat {p} forces a quartet within 2 questions already, fewer than the stated 3"),
        ({"questions": 1}, "wrong: seat {p} cannot force a quartet within 1 question (it needs at least 2 questions)"),
        ({"first_moves": answer["first_moves"][:1] + ["{p}>{o}:A0"]}, "wrong first moves: "),
    ]
    other = (answer["player"] + 1) % 3
    for change, message in cases:
        change = {k: [t.format(p=answer["player"], o=other) for t in v] if isinstance(v, list) else v
                  for k, v in change.items()}
        result = run(["puzzle", "verify", puzzle, "--answer", str(with_answer(made, **change))])
        assert result.exit_code == 1, (change, result.output)
        assert message.format(p=answer["player"]) in result.output, (change, result.output)
    for member in answer["first_moves"]:  # one move of the (one) class names it: right
        result = run(["puzzle", "verify", puzzle, "--answer", str(with_answer(made, first_moves=[member]))])
        assert result.exit_code == 0 and f"first move {member}" in result.output, result.output
    # a hand-made puzzle whose answer is right but not unique: three classes of first questions
    (tmp_path / "two-ways.json").write_text((PUZZLES / "04-two-ways-in.json").read_text())
    (tmp_path / "two-ways.answer.json").write_text(json.dumps({"goal": "quartet", "player": 0, "questions": 2}))
    result = run(["puzzle", "verify", str(tmp_path / "two-ways.json")])
    assert result.exit_code == 1
    assert "not unique: 3 classes of winning first moves (0>2:A0; 0>1:A2; 0>2:B0 or 0>2:B1 or 0>2:B2)" \
        in result.output
    # the bundled form: a wrong verdict
    data = json.loads((PUZZLES / "03-two-questions.answer.json").read_text())
    data["answers"][0]["questions"] = 3
    (tmp_path / "three.json").write_text((PUZZLES / "03-two-questions.json").read_text())
    (tmp_path / "three.answer.json").write_text(json.dumps(data))
    result = run(["puzzle", "verify", str(tmp_path / "three.json")])
    assert result.exit_code == 1 and "wrong: stated quartet for seat 0: yes in 3; the solver proves yes: seat 0 " \
        "forces a quartet with at most 2 questions" in result.output, result.output
    assert run(["puzzle", "verify", str(PUZZLES / "06-shared-turn.json")]).exit_code == 0


def test_verify_refuses_bad_input(made, tmp_path):
    puzzle = str(made / "p.json")
    (tmp_path / "lonely.json").write_text((made / "p.json").read_text())
    bad_json = tmp_path / "bad.answer.json"
    bad_json.write_text("{not json")
    record = json.loads((made / "p.json").read_text())
    answer = json.loads((made / "p.answer.json").read_text())
    cases = [
        ([str(tmp_path / "lonely.json")], "no answer file lonely.answer.json beside it"),
        ([puzzle, "--answer", str(bad_json)], "bad.answer.json"),
        ([puzzle, "--answer", str(with_answer(made, goal="value"))], "goal must be one of quartet, win"),
        ([puzzle, "--answer", str(with_answer(made, questions=0))], "questions must be a whole number >= 1"),
        ([puzzle, "--answer", str(with_answer(made, player=7))], "player 7 is not a seat"),
        ([puzzle, "--answer", str(with_answer(made, player=(answer["player"] + 1) % 3))],
         ".answer.json: a puzzle needs seat"),  # names the answer file whose question does not apply
        ([puzzle, "--answer", str(with_answer(made, first_moves=["0>1:Z9"]))], "first_moves"),
        ([puzzle, "--answer", str(with_answer(made, first_moves=[]))], "first_moves must be a non-empty list"),
        ([puzzle, "--answer", str(with_answer(made, first_moves=[None]))],
         '.answer.json: first_moves: a first move is text like "0>1:A2", not null'),
        ([str(tmp_path / "missing.json")], "no such file"),
    ]
    (tmp_path / "illegal.json").write_text(json.dumps(record | {"moves": record["moves"] + ["0>0:A0+"]}))
    (tmp_path / "illegal.answer.json").write_text(json.dumps(answer))
    cases.append(([str(tmp_path / "illegal.json")], "illegal"))
    for args, message in cases:
        result = run(["puzzle", "verify", *args])
        assert result.exit_code == 2, (args, result.exit_code, result.output)
        assert message in result.output and result.output.count("\n") == 1, (args, result.output)


def test_the_group_offers_its_commands():
    result = run(["puzzle", "--help"])
    assert result.exit_code == 0
    for name in ("generate", "verify"):
        assert name in result.output
    assert "puzzle" in run(["--help"]).output


def test_a_search_stopped_by_its_limits_is_refused():
    result = run(["puzzle", "verify", str(PUZZLES / "11-big-table.json"), "--max-positions", "5"])
    assert result.exit_code == 2 and "search" in result.output and result.output.count("\n") == 1, result.output


def test_a_sheet_whose_time_runs_out_marks_the_answers_not_solved_here(tmp_path):
    """docs/puzzles.md: past --max-seconds an answer is shown as its file states it, marked "not solved here";
    a spent budget gave the limits 0 s, which they refuse ("max_seconds must be ... > 0"), exit 2, no page."""
    out = tmp_path / "sheet.html"
    res = run(["puzzle", "sheet", str(PUZZLES), "-o", str(out), "--max-seconds", "0.001"])
    assert res.exit_code == 0, res.output
    page = out.read_text(encoding="utf-8")
    assert "not solved here" in page and page.count('<article class="puzzle"') == 13


@pytest.mark.parametrize("agent", ["ismcts", "determinized", "koole-first"])
def test_an_agent_that_plays_classic_only_is_refused_before_any_game(tmp_path, agent):
    """ismcts failed inside the first game (an internal error, exit 3) and left an empty folder."""
    res = run(["puzzle", "generate", "--count", "1", "--seed", "1", "--agents", agent, "--out", str(tmp_path / "p")])
    assert res.exit_code == 2 and res.output.startswith(f"quaternity: agent '{agent}' plays classic only (")
    assert res.output.count("\n") == 1 and not (tmp_path / "p").exists()

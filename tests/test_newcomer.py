"""What a new user trips on (issue 26), through the command line: one ``check`` for every game's records,
commands that name the right one for a record of another game, and ``report`` saying what it wrote."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main

ROOT = Path(__file__).resolve().parent.parent
QUARTO = sorted((ROOT / "examples" / "quarto").glob("*.json"))


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


def test_the_quarto_examples_are_there():
    assert {p.name for p in QUARTO} >= {"won.json", "draw.json", "illegal.json", "position.json", "unreachable.json"}


@pytest.mark.parametrize("path", QUARTO, ids=lambda p: p.name)
@pytest.mark.parametrize("flags", [(), ("--json",)])
def test_check_of_a_quarto_file_is_quarto_check(path, flags):
    """Same output, same exit code (0 legal, 1 illegal move or unreachable position), from a file or stdin."""
    own = run("quarto", "check", str(path), *flags)
    assert own.exit_code in (0, 1), own.output
    for res in (run("check", str(path), *flags), run("check", "-", *flags, input=path.read_text())):
        assert (res.exit_code, res.output) == (own.exit_code, own.output)


def test_solve_of_a_quarto_file_is_quarto_solve():
    path = str(ROOT / "examples" / "quarto" / "won.json")
    own, res = run("quarto", "solve", path, "--json"), run("solve", path, "--json")
    assert res.exit_code == own.exit_code == 0, res.output
    drop = lambda out: {k: v for k, v in json.loads(out).items() if k != "seconds"}  # noqa: E731
    assert drop(res.output) == drop(own.output)


@pytest.mark.parametrize("command", [["analyze"], ["explain", "A1"], ["explain", "--set", "A"], ["count"],
                                     ["count", "--history"]])
def test_commands_without_a_meaning_for_quarto_name_the_ones_to_use(command):
    path = ROOT / "examples" / "quarto" / "won.json"
    for file, name, stdin in ((str(path), str(path), None), ("-", "<stdin>", path.read_text())):
        res = run(command[0], file, *command[1:], input=stdin)
        assert res.exit_code == 2 and res.output.count("\n") == 1, res.output
        assert res.output.startswith(f"quaternity: {name}: a Quarto file; 'quaternity {command[0]}' does not "
                                     "apply to it: use 'quaternity quarto check', ")
        assert "'quaternity quarto solve'" in res.output


@pytest.mark.parametrize("args, said", [
    (["check", "--rules", "classic"], "quaternity: --rules: Quarto has no rule sets: give its one option, "
                                      "squares=true or squares=false"),
    (["check", "--engine", "flow"], "quaternity: --engine: Quarto has no exact engines (its solve picks its search "
                                    "with --kernel)"),
    (["solve", "--engine", "flow"], "quaternity: --engine: Quarto has no exact engines"),
    (["solve", "--goal", "value"], "a Quarto file: --goal does not apply to it (see 'quaternity quarto solve "
                                   "--help')")])
def test_an_option_quarto_does_not_take_is_refused_in_one_line(args, said):
    """Refused with the reason (issue 40): Quarto's one rule option is ``--rules squares=...``, it has no engines."""
    res = run(*args, str(ROOT / "examples" / "quarto" / "won.json"))
    assert res.exit_code == 2 and res.output.count("\n") == 1, res.output
    assert said in res.output, res.output


def test_quartets_records_are_read_as_before():
    res = run("check", str(ROOT / "examples" / "quaternity.json"), "--json")
    assert res.exit_code == 0 and json.loads(res.output)["over"]
    res = run("check", "-", input=(ROOT / "examples" / "three.txt").read_text())
    assert res.exit_code == 0, res.output
    res = run("check", "-", input='{"game": "chess", "players": 2, "sets": 2, "set_size": 2, "moves": []}')
    assert res.exit_code == 2 and res.output == "quaternity: <stdin>: field 'game': unknown game 'chess' (known: gofish, quartets, quarto)\n"


def test_the_web_pages_downloads_are_accepted(tmp_path):
    """What the page's download button writes (GET /api/record), mid-game and at the end, for every game:
    `check` accepts it (exit 0) as the game's own checker does, and `report` steps through it."""
    pytest.importorskip("starlette", reason="the web extra: pip install '.[web]'")
    from starlette.testclient import TestClient

    from quaternity_cp.web.app import Settings, create_app

    games = [{"game": "quarto", "human": 0, "seed": 2, "agents": {"1": "random"}},
             {"game": "quarto", "human": 0, "seed": 3, "agents": {"1": "random"}, "options": {"squares": True}},
             {"game": "quartets", "human": 0, "seed": 4, "agents": {"1": "random", "2": "random"},
              "options": {"preset": "classic", "players": 3, "sets": 3, "set_size": 3}}]
    rng = random.Random(1)
    with TestClient(create_app(Settings(act_seconds=600))) as client:
        for i, new in enumerate(games):
            view = client.post("/api/new", json=new).json()
            for step in range(200):
                download = client.get(f"/api/record/{view['id']}")
                if step in (1, 3) or view["over"]:
                    name = download.headers["content-disposition"].split('filename="')[1].rstrip('"')
                    path = tmp_path / f"{i}-{step}-{name}"
                    path.write_text(download.text)
                    res = run("check", str(path))
                    assert res.exit_code == 0, res.output
                    if new["game"] == "quarto":
                        assert res.output == run("quarto", "check", str(path)).output
                    page = tmp_path / f"{i}-{step}.html"
                    res = run("report", str(path), "-o", str(page))
                    assert res.exit_code == 0 and page.exists(), res.output
                if view["over"]:
                    break
                if view["kind"] == "quarto":
                    action = rng.choice(view["moves"])
                else:  # an answer, or a question as the grid offers it (its legal cells), or a declaration
                    action = rng.choice([a["text"] for a in view["answers"]] or [d["text"] for d in view["declarations"]]
                                        + re.findall(r'data-legal="1" data-action="([^"]+)"',
                                                     view["svg"].replace("&gt;", ">")))
                view = client.post(f"/api/act/{view['id']}", json={"action": action}).json()
            assert view["over"], new


def test_report_says_what_it_wrote_and_how_to_open_it(tmp_path):
    page = tmp_path / "game.html"
    res = run("report", str(ROOT / "examples" / "quaternity.json"), "-o", str(page))
    assert res.exit_code == 0, res.output
    kb = -(-page.stat().st_size // 1024)
    opener = res.output.split(", e.g. ")[1].split()[0]
    assert opener in ("xdg-open", "open", "start")
    assert res.output == f"wrote {page} ({kb} KB): open it in a browser, e.g. {opener} {page}\n"
    # an illegal record: the page is written all the same, the command says so, exit 1
    bad = tmp_path / "bad.html"
    res = run("report", str(ROOT / "examples" / "quarto" / "illegal.json"), "-o", str(bad))
    assert res.exit_code == 1 and bad.exists()
    assert res.output.splitlines()[0].startswith(f"wrote {bad} (") and len(res.output.splitlines()) == 2
    assert "not legal" in res.output.splitlines()[1]


def test_a_quartets_record_may_name_its_game(tmp_path):
    """``"game": "quartets"`` is read as the Quartets record it says it is; another name is refused in words."""
    record = json.loads((ROOT / "examples" / "classic.json").read_text())
    named = tmp_path / "named.json"
    named.write_text(json.dumps({"game": "quartets", **record}))
    plain, res = run("check", str(ROOT / "examples" / "classic.json")), run("check", str(named))
    assert (res.exit_code, res.output) == (plain.exit_code, plain.output)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"game": "chess", **record}))
    res = run("check", str(other))
    assert res.exit_code == 2 and "unknown game 'chess'" in res.output


# -- quaternity play, from a pipe (no pauses: the input is no terminal) --------------------------------------------
def test_play_help_says_who_moves_first_in_every_preset():
    res = run("play", "--help")
    assert res.exit_code == 0
    text = " ".join(res.output.split())
    assert "0 moves first" not in text
    assert "seat 0 in the Quaternity presets and in Quarto" in text and "drawn at random" in text


def test_a_classic_game_the_agents_end_before_your_turn_shows_every_move_and_says_so(tmp_path):
    """Seed 11: the agents take every set before the person's first turn. Every move of the record is told, in
    order; the seat drawn to start (the record's ``first``) is named; the end says the person had no turn, then
    who won and that the person lost."""
    save = tmp_path / "classic.json"
    res = run("play", "--preset", "classic", "--players", "3", "--sets", "6", "--set-size", "4", "--seed", "11",
              "--save", str(save), input="")
    assert res.exit_code == 0, res.output
    record = json.loads(save.read_text())
    told = re.findall(r"^  .*  \[([^\]\s]+)\]$", res.output, re.M)
    assert told == record["moves"] and told
    assert f"Seat {record['first']} was drawn to start." in res.output
    lines = res.output.strip().splitlines()
    assert lines[-1] == f"Record saved to {save}."
    checked = json.loads(run("check", str(save), "--json").output)
    winner = checked["winners"][0]
    assert lines[-2].startswith("Game over. Scores: you: 0, ")
    assert lines[-2].endswith(f"Winner: seat {winner}. You lost.")
    assert lines[-3].startswith("The game ended before your turn came")
    assert "seat 0> " not in res.output


def test_a_classic_game_decided_at_the_deal_says_so_not_zero_moves(tmp_path):
    """Seed 28 at 3 x 3 sets of 2: every set is put down at the deal, so nobody moves at all."""
    save = tmp_path / "deal.json"
    res = run("play", "--preset", "classic", "--players", "3", "--sets", "3", "--set-size", "2", "--seed", "28",
              "--save", str(save), input="")
    assert res.exit_code == 0, res.output
    assert json.loads(save.read_text())["moves"] == [] or all("!" in m for m in json.loads(save.read_text())["moves"])
    assert "The game ended at the deal, before anybody moved." in res.output
    assert "0 moves" not in res.output


def test_a_classic_question_typed_with_an_answer_is_refused_whatever_the_answer():
    """In classic the deal answers; a typed + or - is refused for both, so the refusal tells nothing."""
    outs = []
    for answer in "+-":
        res = run("play", "--preset", "classic", "--players", "3", "--sets", "6", "--set-size", "4", "--seed", "5",
                  "--seat", "0", "--no-pause", input=f"0>1:A1{answer}\nquit\n")
        line = next(x for x in res.output.splitlines() if "0>1:A1" + answer in x and "answer comes" in x)
        outs.append(line.replace("0>1:A1" + answer, "Q"))
    assert outs[0] == outs[1]

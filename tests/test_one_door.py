"""One door for every game (issue 40): ``quaternity check|analyze|explain|count|solve FILE`` reads FILE once,
learns its game, loads that game only and runs the game's own command of the same name (the same code, so the
same output and exit codes); a game with a record checker and no commands of its own is checked by it; the
puzzles' commands find the game of the puzzles the same way."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
#: a record of each game, and the games' packages
RECORDS = {"quartets": EXAMPLES / "quaternity.json", "gofish": EXAMPLES / "gofish" / "stacky.json",
           "quarto": EXAMPLES / "quarto" / "won.json"}
PACKAGES = {"quartets": "quaternity_cp.quartets", "gofish": "quaternity_cp.gofish", "quarto": "quaternity_cp.quarto"}


def run(*args: object, input: str | None = None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


@pytest.mark.parametrize("game", sorted(RECORDS))
@pytest.mark.parametrize("flags", [(), ("--json",)])
def test_the_shared_check_is_the_games_own_check(game, flags):
    """Same output, same exit code, from a file or standard input, the default game included."""
    path = RECORDS[game]
    own = run(game, "check", path, *flags)
    assert own.exit_code == 0, own.output
    for res in (run("check", path, *flags), run("check", "-", *flags, input=path.read_text())):
        assert (res.exit_code, res.output) == (own.exit_code, own.output)


@pytest.mark.parametrize("game", sorted(RECORDS))
def test_the_file_is_read_once(game, monkeypatch):
    """The door reads FILE (strictly) to learn its game and hands the text over: the game's command does not
    read it again."""
    from quaternity_cp.command import common

    reads: list[str] = []
    real = common._read_text
    monkeypatch.setattr(common, "_read_text", lambda path: reads.append(path) or real(path))
    res = run("check", RECORDS[game], "--json")
    assert res.exit_code == 0, res.output
    assert reads == [str(RECORDS[game])]


def _loaded(args: list[str]) -> set[str]:
    """The project's modules a whole ``quaternity ARGS`` process imports."""
    script = textwrap.dedent("""
        import atexit, json, sys
        atexit.register(lambda: print("MODULES " + json.dumps(sorted(sys.modules)), file=sys.stderr))
        sys.argv = ["quaternity", *sys.argv[1:]]
        from quaternity_cli.entry import main
        main()
    """)
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, capture_output=True, text=True)
    line = next(x for x in done.stderr.splitlines() if x.startswith("MODULES "))
    return {m for m in json.loads(line.removeprefix("MODULES ")) if m.startswith("quaternity")}


@pytest.mark.parametrize("game", sorted(RECORDS))
def test_check_loads_the_records_game_only(game):
    loaded = _loaded(["check", str(RECORDS[game])])
    assert PACKAGES[game] in loaded
    others = [m for m in loaded for other, package in PACKAGES.items()
              if other != game and (m == package or m.startswith(package + "."))]
    assert not others, others
    assert not [m for m in loaded if m.endswith(".agents") or ".agents." in m]  # no agent is loaded to check


def test_a_games_own_group_loads_that_game_only():
    loaded = _loaded(["gofish", "check", str(RECORDS["gofish"])])
    assert "quaternity_cp.gofish.cli" in loaded and "quaternity_cp.quartets" not in loaded


def test_the_help_shows_the_default_games_options_and_names_the_others():
    res = run("check", "--help")
    assert res.exit_code == 0 and "--rules PRESET" in res.output and "--engine" in res.output
    text = " ".join(res.output.split())
    assert "'quaternity gofish check --help'" in text and "'quaternity quarto check --help'" in text
    assert res.output.startswith("Usage: main check [OPTIONS] FILE") or "check [OPTIONS] FILE" in res.output
    listing = run("--help").output
    assert "check" in listing and "Replay a record" in listing


def test_a_command_the_game_does_not_have_names_those_it_has():
    res = run("analyze", RECORDS["quarto"])
    assert res.exit_code == 2 and res.output.count("\n") == 1
    assert res.output == (f"quaternity: {RECORDS['quarto']}: a Quarto file; 'quaternity analyze' does not apply "
                          "to it: use 'quaternity quarto check', 'quaternity quarto graph' or 'quaternity quarto solve'\n")


def test_an_option_the_games_command_does_not_take_is_refused_naming_its_help():
    res = run("count", RECORDS["gofish"], "--sample", "2")
    assert res.exit_code == 2 and res.output == (
        f"quaternity: {RECORDS['gofish']}: a Quantum Go Fish file: --sample does not apply to it "
        "(see 'quaternity gofish count --help')\n")


def test_usage_errors_name_the_shared_command():
    res = run("explain", EXAMPLES / "three.txt")
    assert res.exit_code == 2 and "explain: give either a CARD or --set SET (see '" in res.output
    assert " explain explain" not in res.output
    res = run("check")
    assert res.exit_code == 2 and "check: Missing argument 'FILE'" in res.output


def test_options_before_the_file_and_no_file_at_all():
    """An option first: the default game's command reads the arguments to find FILE; no FILE (solve --start)."""
    res = run("check", "--json", RECORDS["gofish"])
    assert res.exit_code == 0 and json.loads(res.output)["suits"] == ["A", "B", "C"]
    res = run("solve", "--start", "2", "2", "2", "--json")
    assert res.exit_code == 0 and json.loads(res.output)["position"] == "start of the game"


# -- a game with a record checker and no commands of its own ----------------------------------------------
GAME = '''
from quaternity_cp.errors import QuaternityError
from quaternity_cp.registry import GameSpec, register_game


class CoinError(QuaternityError, ValueError):
    pass


def check_record(record):
    if record.get("moves") != ["heads"]:
        raise CoinError(f"move 1: not heads: {record.get('moves')!r}")


class State:
    pass


SPEC = register_game(GameSpec(name="coinflip", new_state=lambda seed, **options: State(),
                              description="Coin flip: the test's game", parts={"check": f"{__name__}:check_record"}))
'''


@pytest.fixture
def coinflip(tmp_path, monkeypatch):
    from quaternity_cp.registry import GAMES

    (tmp_path / "coinflip.py").write_text(GAME)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("QUATERNITY_GAME_MODULES", "coinflip")
    yield tmp_path
    GAMES.pop("coinflip", None)
    sys.modules.pop("coinflip", None)


def test_a_game_without_commands_is_checked_by_its_record_checker(coinflip):
    good, bad, broken = coinflip / "good.json", coinflip / "bad.json", coinflip / "broken.json"
    good.write_text('{"game": "coinflip", "moves": ["heads"]}')
    bad.write_text('{"game": "coinflip", "moves": ["tails"]}')
    broken.write_text('{"game": "coinflip", "moves": ')
    res = run("check", good)
    assert (res.exit_code, res.output) == (0, f"{good}: a legal Coin flip record\n")
    res = run("check", bad)
    assert (res.exit_code, res.output) == (1, f"{bad}: not a legal Coin flip record: move 1: not heads: ['tails']\n")
    assert json.loads(run("check", bad, "--json").output) == {"game": "coinflip", "valid": False,
                                                              "error": "move 1: not heads: ['tails']"}
    res = run("check", "-", input=good.read_text())
    assert res.exit_code == 0 and res.output == "<stdin>: a legal Coin flip record\n"
    # what it cannot do is refused in one line, naming what it can (never "Quartets records only")
    res = run("analyze", good)
    assert res.exit_code == 2 and res.output == (
        f"quaternity: {good}: a Coin flip file; 'quaternity analyze' does not apply to it: use 'quaternity check'\n")
    res = run("check", good, "--rules", "x")
    assert res.exit_code == 2 and "a Coin flip file: --rules does not apply to it (its options: --json)" in res.output
    res = run("check", broken)  # not a record at all: the default game's reader says why (a game names none)
    assert res.exit_code == 2 and res.output.count("\n") == 1


# -- the puzzles and the experiments, through the registry ----------------------------------------------------
def test_puzzle_generate_finds_the_game_of_game():
    res = run("puzzle", "generate", "--game", "gofish", "--sets", "3", "--out", "unused")
    assert res.exit_code == 2 and res.output == ("quaternity: --sets does not apply to --game gofish (its options: "
                                                 "--players and --option)\n")
    res = run("puzzle", "generate", "--game=chess", "--out", "unused")
    assert res.exit_code == 2 and "unknown game 'chess'" in res.output
    res = run("puzzle", "generate", "--help")
    assert res.exit_code == 0 and "--set-size" in res.output and "--game GAME" in " ".join(res.output.split())


def test_the_first_game_declares_its_commands_and_its_puzzles():
    from quaternity_cp.registry import load_games

    spec = load_games()["quartets"]
    group = spec.part("cli")
    assert {"check", "analyze", "explain", "count", "solve", "puzzle", "experiment"} <= set(group.list_commands(None))
    part = spec.part("puzzles")
    assert callable(part.generate) and callable(part.verify) and callable(part.sheet_html)
    from quaternity_cp.quartets.experiments import KOOLE_GAME, KOOLE_OPTIONS

    assert spec.name == KOOLE_GAME and spec.part("tournament") == KOOLE_OPTIONS


def test_experiment_runs_the_games_own_experiments():
    res = run("experiment", "--help")
    assert res.exit_code == 0 and "koole" in res.output
    shared, own = run("experiment", "koole", "--help"), run("quartets", "experiment", "koole", "--help")
    assert shared.exit_code == own.exit_code == 0
    assert shared.output.split("\n", 1)[1] == own.output.split("\n", 1)[1]  # the same command (usage line aside)


def test_the_puzzles_part_makes_verifies_and_prints_quaternity_puzzles():
    from quaternity_cp.quartets.puzzles import part

    made = part.generate(1, 7, {"players": 3, "sets": 3, "set_size": 3})
    assert [p.name for p in made] == part.puzzle_names({"players": 3, "sets": 3, "set_size": 3}, 7, 1)
    verdict = part.verify(made[0].record, made[0].answer)
    assert verdict.ok and verdict.summary().startswith("right and unique")
    page = part.sheet_html([(p.name, p.record, p.answer) for p in made])
    assert page.count('class="puzzle"') == 1

"""Options typed and honoured everywhere (issue 40, point 4): ``--rules`` and ``--engine`` reach Go Fish's commands
(through ``quaternity check|analyze|explain|count|solve|report`` and ``quaternity gofish ...``), ``--as`` and
``--svg`` mean what they can for a public game, Quarto's one rule option is ``--rules squares=...``, what does not
apply is refused with the reason, and tournaments play the options given (``--preset geraschenko`` for Go Fish),
typed by the game's own option types, and say the rules played.

Every option is verified against the rules actually played: a record legal under one rule set and illegal under
another changes its exit code with ``--rules``; a tournament's records carry the rules it reports.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main
from quaternity_cp.gofish.cli import gofish
from quaternity_cp.gofish.rules import PRESETS, Rules, rules_from_text
from quaternity_cp.quarto.cli import quarto

ROOT = Path(__file__).resolve().parent.parent
#: legal under quantum-fingers (after a yes the asker asks again), illegal under the defaults (stacky)
AGAIN = {"game": "gofish", "players": 3, "moves": ["0>1:A+", "0>2:B+"]}
#: legal under the defaults, illegal under geraschenko (ask_void=forbid: seat 1 provably holds no A)
VOID = {"game": "gofish", "players": 3, "moves": ["0>1:A-", "1>2:B-", "2>1:A-"]}
#: its own rules say seat 1 asks first: --rules replaces them (as Quaternity's), so first=0 is then in force
FIRST_ONE = {"game": "gofish", "players": 3, "rules": {"first": 1}, "moves": ["1>0:A+", "2>1:B-"]}
GERASCHENKO = Rules.from_dict("geraschenko").to_dict()


def invoke(group, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(group, list(args))
    return result.exit_code, result.stdout, result.stderr


def one_line(got: tuple[int, str, str], *words: str) -> str:
    """A refusal: exit 2, nothing on standard output, one line on standard error holding ``words``."""
    code, out, err = got
    assert code == 2, (code, out, err)
    assert "Traceback" not in out + err and not out.strip(), (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("quaternity"), err
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


@pytest.fixture()
def records(tmp_path: Path) -> dict[str, str]:
    out = {}
    for name, record in (("again", AGAIN), ("void", VOID), ("first-one", FIRST_ONE)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(record))
        out[name] = str(path)
    return out


def both(*args: str) -> list[tuple[int, str, str]]:
    """The command through the door (``quaternity check ...``) and as Go Fish's own (``quaternity gofish check``)."""
    return [invoke(main, *args), invoke(gofish, *args)]


# -- --rules on a Go Fish record ---------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["check", "analyze", "count", "solve"])
def test_rules_change_which_record_is_legal(records, command):
    extra = ["--max-positions", "500", "--depth", "1"] if command == "solve" else []  # legality, not the verdict
    for code, out, err in both(command, records["again"], "--json", *extra):
        assert code == 1, (command, code, err)
    for rules in ("quantum-fingers", "after_yes=again", "after-yes=again", '{"after_yes": "again"}',
                  "stacky,after_yes=again"):
        for code, out, err in both(command, records["again"], "--json", "--rules", rules, *extra):
            assert code == 0, (command, rules, err)
            assert json.loads(out)["rules"]["after_yes"] == "again"
    for code, out, err in both(command, records["void"], "--json", *extra):
        assert code == 0, (command, err)
    for code, out, err in both(command, records["void"], "--json", "--rules", "geraschenko", *extra):
        assert code == 1, (command, err)
        data = json.loads(out)
        assert data["rules"] == GERASCHENKO and data["valid"] is False


def test_rules_replace_the_records_own_and_first_0_is_a_seat(records):
    """``--rules`` stands instead of the record's rules (as Quaternity's): the record's first=1 is dropped by a
    preset and restored by first=1; first=0 is the seat 0 (it was once read as text and refused)."""
    path = records["first-one"]
    assert [code for code, *_ in both("check", path)] == [0, 0]
    for rules in ("geraschenko", "first=0", "stacky"):
        for code, out, err in both("check", path, "--json", "--rules", rules):
            assert code == 1 and "not on turn" in json.loads(out)["error"]["reason"], (rules, out)
    for code, out, err in both("check", path, "--json", "--rules", "geraschenko,first=1"):
        assert code == 0 and json.loads(out)["rules"] == {**GERASCHENKO, "first": 1}
    assert rules_from_text("first=0") == {"first": 0}
    assert Rules.from_dict(rules_from_text("first=0")).first == 0


def test_explain_and_report_take_the_rules(records, tmp_path):
    code, out, err = invoke(main, "explain", records["again"], "1:A", "--json")
    assert code == 1
    for group in (main, gofish):
        code, out, err = invoke(group, "explain", records["again"], "1:A", "--json", "--rules", "quantum-fingers")
        assert code == 0 and json.loads(out)["valid"] is True, err
    page = tmp_path / "page.html"
    code, out, err = invoke(main, "report", records["void"], "-o", str(page))
    assert code == 0, err
    code, out, err = invoke(main, "report", records["void"], "-o", str(page), "--force", "--rules", "geraschenko")
    assert code == 1 and "not legal" in out, (out, err)
    assert "ask_void forbid" in page.read_text()
    one_line(invoke(main, "report", records["void"], "-o", str(page), "--force", "--rules", "nope"),
             "--rules:", "'nope' is not one of", "geraschenko")
    one_line(invoke(main, "report", records["void"], "-o", str(page), "--force", "--engine", "brute"),
             "--engine:", "flow, cpsat")


@pytest.mark.parametrize("rules, words", [
    ("nope", ["'nope' is not one of", "geraschenko"]),
    ("four=sometimes", ["option four", "named, some, off"]),
    ("first=x", ["option first", "digits 0-9"]),
    ("first=7", ["option first", "not one of the 3 seats"]),
    ("win_after_ask=maybe", ["true or false"]),
    ("four=some,four=off", ["option four given twice"]),
    ("four=some,geraschenko", ["the preset name comes first"]),
    ("", ["empty"]),
    ("colour=red", ["option colour: unknown"]),
])
def test_bad_rules_are_refused_in_one_line(records, rules, words):
    for got in both("check", records["again"], "--rules", rules):
        one_line(got, "--rules: ", *words)


def test_rules_given_twice_are_refused(records):
    one_line(invoke(gofish, "check", records["again"], "--rules", "four=some", "--rules", "four=off"),
             "--rules: given more than once")


# -- --engine ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["check", "analyze", "explain"])
def test_the_engines_give_the_same_answers_and_an_unknown_one_is_refused(records, command):
    args = [command, records["void"], *(["0:A"] if command == "explain" else []), "--json"]
    answers = []
    for engine in ("flow", "cpsat"):
        for code, out, err in both(*args, "--engine", engine):
            assert code == 0, (engine, err)
            data = json.loads(out)
            data.pop("explanation", None)  # its example tables may differ: any consistent table shows a bound
            answers.append(data)
    assert all(answer == answers[0] for answer in answers)
    for got in both(*args, "--engine", "brute"):  # an engine of Quaternity's, not of Go Fish's
        one_line(got, "--engine: Go Fish has no engine 'brute' (its engines: flow, cpsat)")


def test_solve_says_the_engine_it_used(tmp_path):
    path = tmp_path / "small.json"  # CP-SAT answers every position of the graph: a small one
    path.write_text(json.dumps({"game": "gofish", "players": 2, "suit_size": 2, "moves": []}))
    verdicts = []
    for engine in ("flow", "cpsat"):
        for code, out, err in both("solve", str(path), "--json", "--engine", engine):
            assert code == 0, err
            data = json.loads(out)
            assert data["engine"] == engine and data["proven"]
            verdicts.append((data["verdict"], data["plies"], data["positions"]))
    assert len(set(verdicts)) == 1


def test_count_refuses_an_engine_with_the_reason(records):
    for got in both("count", records["void"], "--engine", "flow"):
        one_line(got, "--engine: Go Fish's count uses no engine", "drop --engine")


# -- --as and --svg -------------------------------------------------------------------------------------------
def test_as_is_everyones_view_and_the_seat_is_checked(records):
    code, out, err = invoke(main, "analyze", records["void"], "--json")
    public = json.loads(out)
    for group in (main, gofish):
        code, out, err = invoke(group, "analyze", records["void"], "--json", "--as", "2")
        assert code == 0, err
        seen = json.loads(out)
        assert seen.pop("view") == {"seat": 2, "player": "2", "public": True}
        assert seen == public
        code, out, err = invoke(group, "analyze", records["void"], "--as", "1")
        assert "The position as seat 1 knows it: the same as everyone's" in out
        code, out, err = invoke(group, "count", records["void"], "--json", "--as", "0")
        assert code == 0 and json.loads(out)["view"]["public"] is True
        one_line(invoke(group, "analyze", records["void"], "--as", "7"), "--as: unknown player '7'")


def test_svg_draws_the_table_of_bounds(records, tmp_path):
    picture = tmp_path / "bounds.svg"
    for group in (main, gofish):
        code, out, err = invoke(group, "analyze", records["again"], "--rules", "quantum-fingers", "--svg",
                                str(picture), "--force")
        assert code == 0, err
        text = picture.read_text()
        assert text.startswith("<svg") and "Seat 0 to ask" in text
        one_line(invoke(group, "analyze", records["again"], "--svg", str(picture)), "exists already", "--force")
    code, out, err = invoke(gofish, "analyze", records["again"], "--as", "1", "--svg", str(picture), "--force")
    assert "As seat 1 knows it: as everyone does" in picture.read_text()


# -- Quarto: its one rule option, no engines -------------------------------------------------------------------
def test_quarto_takes_its_one_rule_option_and_refuses_an_engine_with_the_reason():
    path = str(ROOT / "examples" / "quarto" / "squares.json")  # won by a square: legal only with squares
    for group in (main, quarto):
        assert invoke(group, "check", path)[0] == 0
        assert invoke(group, "check", path, "--rules", "squares=true")[0] == 0
        code, out, err = invoke(group, "check", path, "--rules", "squares=false", "--json")
        assert code == 1 and json.loads(out)["valid"] is False, err
        one_line(invoke(group, "check", path, "--rules", "classic"), "--rules: Quarto has no rule sets",
                 "squares=true")
        one_line(invoke(group, "check", path, "--rules", "squares=maybe"), "--rules: option squares",
                 "true or false")
        for command in ("check", "solve"):
            one_line(invoke(group, command, path, "--engine", "flow"),
                     "--engine: Quarto has no exact engines (its solve picks its search with --kernel)")


# -- tournaments --------------------------------------------------------------------------------------------------
def tournament(*args: str, records: Path | None = None) -> tuple[int, str, str]:
    extra = ["--records", str(records)] if records is not None else []
    return invoke(main, "tournament", "--games", "3", *args, *extra)


def test_a_gofish_tournament_plays_the_preset_given(tmp_path):
    folder = tmp_path / "games"
    code, out, err = tournament("--game", "gofish", "--preset", "geraschenko", "--agents", "random,greedy,random",
                                "--json", records=folder)
    assert code == 0, err
    data = json.loads(out)
    assert data["options"]["rules"] == "geraschenko"
    assert data["rules"] == GERASCHENKO == {"ask_void": "forbid", "four": "some", "win_after_ask": True}
    saved = sorted(folder.glob("game-*.json"))
    assert len(saved) == 3
    for path in saved:
        record = json.loads(path.read_text())
        assert record["rules"] == GERASCHENKO
        assert invoke(main, "check", str(path))[0] == 0  # legal under the rules it was played under
    code, out, err = tournament("--game", "gofish", "--preset", "geraschenko", "--agents", "random,random,random")
    assert code == 0 and "Rules played: ask_void=forbid, four=some, win_after_ask=true" in out, out


@pytest.mark.parametrize("options, rules", [
    (["--option", "four=some"], {"four": "some"}),
    (["--option", "first=0"], {}),
    (["--option", "first=2"], {"first": 2}),
    (["--option", "win_after_ask=true"], {"win_after_ask": True}),
    (["--option", "rules=quantum-fingers", "--option", "four=off"], {**PRESETS["quantum-fingers"], "four": "off"}),
    (["--preset", "thorntondr", "--option", "four=off"], {**PRESETS["thorntondr"], "four": "off"}),
    # a rule set's option set back to its default is played (it was silently the rule set's)
    (["--option", "rules=quantum-fingers", "--option", "after_yes=next"], {"no_initial_four": True}),
    (["--preset", "geraschenko", "--option", "win_after_ask=false"], {"ask_void": "forbid", "four": "some"}),
    ([], {}),
])
def test_gofish_options_are_typed_and_played(tmp_path, options, rules):
    folder = tmp_path / "games"
    code, out, err = tournament("--game", "gofish", *options, "--agents", "random,random,random", "--json",
                                records=folder)
    assert code == 0, err
    assert json.loads(out)["rules"] == rules
    for path in folder.glob("game-*.json"):
        assert json.loads(path.read_text())["rules"] == rules


def test_every_game_says_its_rules(tmp_path):
    code, out, err = tournament("--game", "quarto", "--option", "squares=true", "--agents", "random,random", "--json")
    assert code == 0 and json.loads(out)["rules"] == {"squares": True}, err
    code, out, err = tournament("--game", "quarto", "--agents", "random,random", "--json")
    assert json.loads(out)["rules"] == {}
    code, out, err = tournament("--game", "quartets", "--preset", "blind", "--agents", "random,random,random",
                                "--json")
    assert code == 0 and json.loads(out)["rules"] == {"preset": "blind"}, err
    code, out, err = tournament("--game", "quartets", "--preset", "quaternity", "--option", "tie=shared",
                                "--agents", "random,random,random", "--json")
    assert code == 0 and json.loads(out)["rules"] == {"preset": "quaternity", "tie": "shared"}, err
    code, out, err = tournament("--game", "quartets", "--agents", "random,random,random")
    assert "Rules played: preset=classic" in out


@pytest.mark.parametrize("args, words", [
    (["--game", "gofish", "--option", "colour=red"], ["--option colour: 'colour' is not an option of gofish"]),
    (["--game", "gofish", "--option", "four=sometimes"], ["--option four:", "named, some, off"]),
    (["--game", "gofish", "--option", "first=x"], ["--option first: expected a whole number"]),
    (["--game", "gofish", "--option", "win_after_ask=maybe"], ["--option win_after_ask: expected true or false"]),
    (["--game", "gofish", "--preset", "nope"], ["--preset:", "stacky, geraschenko"]),
    (["--game", "gofish", "--preset", "stacky", "--option", "rules=geraschenko"], ["given twice"]),
    (["--game", "gofish", "--sets", "3"], ["--sets: gofish has no option sets"]),
    (["--game", "quarto", "--preset", "x"], ["--preset: quarto has no option preset", "squares"]),
    (["--game", "quarto", "--option", "squares=maybe"], ["--option squares: expected true or false"]),
    (["--game", "quartets", "--preset", "nope"], ["--preset:", "classic"]),
])
def test_tournament_options_that_do_not_apply_are_refused(args, words):
    one_line(tournament(*args, "--agents", "random,random,random"), *words)


# -- gofish starts --rule -------------------------------------------------------------------------------------
def test_starts_rule_values_are_typed_and_checked_before_any_work():
    code, out, err = invoke(gofish, "starts", "--players", "2", "--suit-size", "2", "--rule", "after-yes=again",
                            "--rule", "first=0", "--json")
    assert code == 0, err
    assert json.loads(out)["starts"][0]["rules"] == {"after_yes": "again", "first": 0}
    one_line(invoke(gofish, "starts", "--players", "2", "--rule", "four=some", "--rule", "four=off"),
             "--rule: option four given twice")
    one_line(invoke(gofish, "starts", "--players", "2", "--rule", "colour=red"), "--rule: option colour: unknown")


def test_the_help_names_every_preset_and_engine():
    from quaternity_cp.gofish.bounds import ENGINES

    for command in ("check", "analyze", "explain", "count", "solve"):
        text = " ".join(invoke(gofish, command, "--help")[1].split())
        for preset in PRESETS:
            assert preset in text, (command, preset)
        if command != "count":  # count's --engine is hidden: it is refused with the reason
            assert all(engine in text for engine in ENGINES), command

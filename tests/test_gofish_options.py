"""Every option of ``quaternity gofish starts`` and Go Fish ``solve`` is bounded, and every long computation has a
default budget said in its help; ``solve``'s default player is the one its help names.

* ``starts --checkpoint``: ``--parts`` 1..256 and no more than the start's size calls for, ``--workers`` 0..64 and
  no more than the memory available holds, an empty ``--checkpoint`` refused: each before any work (nothing is
  made on disk), exit 2 and one line with the reason;
* ``starts`` without ``--checkpoint`` and ``solve`` stop at a default ``--max-seconds`` (600) and say "not proven
  within the budget" (the limits a run would get are checked; no clock decides a test);
* ``solve`` without ``--player`` solves for the player who decides now, ``check``'s ``turn``: the asked seat
  while a question is open.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from quaternity_cp.gofish.cli import gofish

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(gofish, list(args))
    return result.exit_code, result.stdout, result.stderr


def one_line(got: tuple[int, str, str]) -> str:
    code, out, err = got
    assert code == 2, (code, out, err)
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(("quaternity: ", "Error: ")), err
    return lines[0]


# -- starts --checkpoint: --parts, --workers, --checkpoint ----------------------------------------------------------
@pytest.mark.parametrize("parts, words", [
    ("999", "999 is not in the range 1<=x<=256"),
    ("0", "0 is not in the range 1<=x<=256"),
    ("16", "16 parts for 2 players with suits of 4: at most 4 make sense"),
])
def test_parts_out_of_range_are_refused_before_any_work(tmp_path, parts, words):
    folder = tmp_path / "ck"
    got = run("starts", "--players", "2", "--checkpoint", str(folder), "--workers", "0", "--parts", parts)
    err = got[2]
    assert got[0] == 2 and words in err, err
    assert not folder.exists()  # nothing was made


def test_progress_lines_go_with_json_only_when_asked_and_with_the_checkpoint_only(tmp_path):
    args = ["starts", "--players", "2", "--rule", "after_yes=again", "--checkpoint", str(tmp_path / "ck"), "--workers", "0"]
    code, out, err = run(*args, "--json")
    assert code == 0 and err == "", err
    code, again, err = run(*args[:-3], str(tmp_path / "ck2"), "--workers", "0", "--json", "--progress")
    rows = json.loads(again)["starts"]
    assert code == 0 and rows[0]["seats"] == json.loads(out)["starts"][0]["seats"], again
    lines = err.strip().splitlines()
    assert lines and all(line.strip().startswith("layer ") for line in lines), err
    assert len(lines) == rows[0]["layers"] - 1, (lines, rows[0])  # (layer 0, the start, has no line)
    line = one_line(run("starts", "--players", "2", "--rule", "after_yes=again", "--no-progress"))
    assert line == "quaternity: --progress/--no-progress goes with --checkpoint (the partitioned solver's layers)"


def test_the_bounds_of_parts_follow_the_start(tmp_path):
    from quaternity_cp.gofish import bigsolve as bs
    from quaternity_cp.gofish.cli import MAX_PARTS
    from quaternity_cp.gofish.fastgraph import Shape

    assert MAX_PARTS == bs.MAX_PARTS == 256
    assert [bs.max_parts(Shape.of(p, p, s, {})) for p, s in [(2, 4), (2, 10), (3, 2), (3, 4), (4, 2), (3, 5), (4, 3),
                                                             (4, 4)]] == [4, 4, 16, 16, 16, 256, 256, 256]
    assert [bs.default_parts(Shape.of(p, p, s, {})) for p, s in [(2, 4), (2, 10), (3, 4), (3, 5), (4, 2), (4, 3),
                                                                 (3, 6), (4, 4), (5, 2)]] == [2] * 6 + [8] * 3
    for parts in (0, 257, 5, True, 2.0):
        with pytest.raises(bs.GraphError, match="parts"):
            bs.check_parts(Shape.of(2, 2, 4, {}), parts)
    with pytest.raises(bs.GraphError, match="at most 4 make sense"):
        bs.build(Shape.of(2, 2, 4, {}), str(tmp_path / "g"), parts=5)
    assert not (tmp_path / "g").exists()


def test_parts_without_checkpoint_are_refused():
    line = one_line(run("starts", "--players", "2", "--parts", "2"))
    assert "--parts goes with --checkpoint" in line


def test_workers_are_bounded_by_the_option_and_by_memory(tmp_path, monkeypatch):
    folder = tmp_path / "ck"
    code, out, err = run("starts", "--players", "2", "--checkpoint", str(folder), "--workers", "65")
    assert code == 2 and "65 is not in the range 0<=x<=64" in err, err
    from quaternity_cp.command import workers as workers_module

    monkeypatch.setattr(workers_module, "memory_available", lambda: 2**30)  # 1 GB free: two workers of 400 MB
    line = one_line(run("starts", "--players", "2", "--checkpoint", str(folder), "--workers", "8"))
    assert "--workers 8: 8 local workers need about 3.1 GB" in line and "give at most 2" in line, line
    monkeypatch.setattr(workers_module, "memory_available", lambda: 100 * 2**20)  # not even one (the default: one per core)
    line = one_line(run("starts", "--players", "2", "--checkpoint", str(folder)))
    assert "does not hold one local worker" in line and "--workers 0" in line
    assert not folder.exists()


def test_an_empty_checkpoint_is_refused_and_nothing_is_built_here(tmp_path, monkeypatch):
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    result = CliRunner().invoke(gofish, ["starts", "--players", "2", "--checkpoint", "", "--workers", "0"])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == ("quaternity: --checkpoint: give a folder (an empty name would build in the "
                                     "current folder)")
    assert list(here.iterdir()) == []


def test_the_help_says_every_bound_and_default():
    text = " ".join(run("starts", "--help")[1].split())
    for words in ("1..256", "0..64", "about 400 MB each", "default 600 per start", "not proven within the budget",
                  "4 for 2 players"):
        assert words in text, words
    text = " ".join(run("solve", "--help")[1].split())
    for words in ("[default: 600.0; x>0]", "[default: 500000; x>=1]", "not proven within the budget",
                  "with a question open, the asked seat"):
        assert words in text, words


# -- default budgets ---------------------------------------------------------------------------------------------
def test_starts_without_checkpoint_has_a_default_time_budget(monkeypatch):
    from quaternity_cp.gofish import starts as starts_module
    from quaternity_cp.gofish.solver import SolverLimitError

    seen = []

    def stopped(players, rules, *, suit_size=4, limits=None):
        seen.append(limits)
        raise SolverLimitError("time", 1234, limits)

    monkeypatch.setattr(starts_module, "solve_start_rules", stopped)
    line = one_line(run("starts", "--players", "3", "--rule", "four=off"))
    assert seen[0].max_seconds == 600 and seen[0].max_positions == 3_000_000
    assert "not proven within the budget" in line and "--max-seconds (600 s) after 1,234 positions" in line, line
    one_line(run("starts", "--players", "3", "--rule", "four=off", "--max-seconds", "5"))
    assert seen[1].max_seconds == 5


@pytest.mark.parametrize("shared", [False, True], ids=["gofish solve", "quaternity solve"])
def test_solve_has_a_default_time_budget(monkeypatch, shared):
    """Go Fish ``solve`` stops at 600 s by default, also when ``quaternity solve`` (whose own default is no time
    limit) hands the record over; the stop says it was not proven within the budget."""
    from quaternity_cp.gofish import solver
    from quaternity_cp.gofish.solver import SolverLimitError

    seen = []

    def stopped(game, seat, limits=None):
        seen.append(limits)
        raise SolverLimitError("time", 99, limits)

    monkeypatch.setattr(solver, "can_force", stopped)
    path = str(ROOT / "examples" / "gofish" / "stacky.json")
    if shared:
        from quaternity_cli.main import main

        result = CliRunner().invoke(main, ["solve", path])
    else:
        result = CliRunner().invoke(gofish, ["solve", path])
    assert result.exit_code == 0, result.output
    assert seen[0].max_seconds == 600 and seen[0].max_positions == 500_000
    assert "Result: unproven (time limit reached)" in result.stdout
    assert "Not proven within the budget (--max-positions 500,000, --max-seconds 600)" in result.stdout


# -- solve's default player -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("record, expected", [
    ({"game": "gofish", "players": 2, "suit_size": 3, "moves": ["0>1:A?"]}, (1, "yes")),  # seat 1 answers
    ({"game": "gofish", "players": 2, "suit_size": 3, "moves": []}, (0, None)),  # seat 0 to ask
    ({"game": "gofish", "players": 3, "moves": ["0>1:C+", "1>0:A+", "2>0:A+", "0>2:B?"]}, (2, None)),
], ids=["question-open", "to-ask", "three-players-question-open"])
def test_solve_defaults_to_the_player_who_decides_now(tmp_path, record, expected):
    """The help says: the player who decides now, check's 'turn' (the asked seat while a question is open; the
    earlier version solved for the asker there: seat 0 of the first record, who cannot force a win where seat 1,
    answering, can)."""
    seat, verdict = expected
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    code, out, err = run("check", str(path), "--json")
    assert code == 0 and json.loads(out)["turn"] == seat
    code, out, err = run("solve", str(path), "--json", "--max-positions", "20000")
    assert code == 0, err
    data = json.loads(out)
    assert data["player"] == seat and data["proven"]
    if verdict is not None:
        assert data["verdict"] == verdict
    code, out, err = run("solve", str(path), "--json", "--max-positions", "20000", "--player", str(seat))
    assert json.loads(out)["verdict"] == data["verdict"]
    code, out, err = run("solve", str(path))
    assert f"Goal: force being the winner, for seat {seat}" in out


def test_starts_reads_every_rule_option_by_its_type():
    """``--rule first=0`` was refused ("expected a whole number, got '0'"): each option's value is read as its
    type (issue 40, point 4)."""
    from click.testing import CliRunner

    from quaternity_cli.main import main

    for rule, shown in (("first=1", {"first": 1}), ("first=0", {"first": 0}), ("win_after_ask=yes", {"win_after_ask": True}),
                        ("four=some", {"four": "some"})):
        result = CliRunner().invoke(main, ["gofish", "starts", "--players", "2", "--rule", rule, "--json"])
        assert result.exit_code == 0, (rule, result.output)
        assert json.loads(result.stdout)["starts"][0]["rules"] == shown, rule
    for rule, needle in (("first=x", "digits 0-9"), ("first=-1", "digits 0-9"), ("win_after_ask=maybe", "true or false"),
                         ("first=5", "not one of the 2 seats")):
        result = CliRunner().invoke(main, ["gofish", "starts", "--players", "2", "--rule", rule])
        assert result.exit_code == 2 and needle in result.output, (rule, result.output)


def test_tournament_refuses_a_table_option_the_game_does_not_have():
    """``tournament --game gofish --preset geraschenko`` played the default rules and ``--sets`` was dropped
    (issue 40, point 4): an option given for a game without it is refused, naming the game's options; --preset
    picks Go Fish's rule set (tests/test_options_everywhere.py checks the games played it)."""
    from click.testing import CliRunner

    from quaternity_cli.main import main

    for flag, value in (("--sets", "3"), ("--set-size", "2")):
        result = CliRunner().invoke(main, ["tournament", "--game", "gofish", flag, value, "--agents",
                                           "random,random,random", "--games", "1"])
        assert result.exit_code == 2 and f"{flag}: gofish has no option" in result.output, result.output
        assert "--option NAME=VALUE" in result.output and "rules" in result.output
    for given in (["--option", "rules=geraschenko"], ["--preset", "geraschenko"]):
        result = CliRunner().invoke(main, ["tournament", "--game", "gofish", *given,
                                           "--agents", "random,random,random", "--games", "2", "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["rules"] == {"ask_void": "forbid", "four": "some", "win_after_ask": True}

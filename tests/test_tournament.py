"""The tournament runner: seat rotation, seeds independent of workers, the Dask path, records, the CLI; Wilson
intervals, options and line-ups checked before any game, output files, partial results, fallbacks, fuzzed options."""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from dataclasses import replace
from decimal import Decimal, localcontext

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quaternity_cp import tournament
from quaternity_cli.main import main
from quaternity_cp.quartets.formats import record_from_json
from quaternity_cp.quartets.replay import replay
from quaternity_cp.quartets.experiments import koole_experiment
from quaternity_cp.tournament import (Z95, TournamentError, TournamentInterrupted, check_lineup, order_count,
                                      run_tournament, seat_order, seat_orders, wilson)

CLASSIC = {"preset": "classic", "players": 3, "sets": 6, "set_size": 4}
LINEUP = ["koole-first", "koole-random", "koole-random"]


def test_every_seat_order_is_played_equally_often():
    assert seat_orders(LINEUP) == [
        ("koole-first", "koole-random", "koole-random"),
        ("koole-random", "koole-first", "koole-random"),
        ("koole-random", "koole-random", "koole-first"),
    ]
    assert len(seat_orders(["a", "b", "c"])) == 6
    result = run_tournament("quartets", LINEUP, 9, seed=3, options=CLASSIC)
    assert Counter(r.seats for r in result.games) == {order: 3 for order in seat_orders(LINEUP)}
    summary = result.summary()
    first = summary["results"]["koole-first"]
    assert first["seats_held"] == 9 and summary["results"]["koole-random"]["seats_held"] == 18
    assert [s["games"] for s in first["per_seat"]] == [3, 3, 3]
    # every game has one winner under tie = random: the shares add up to the number of games
    assert sum(r["wins"] for r in summary["results"].values()) == 9


def test_each_seat_order_is_found_without_listing_them():
    for lineup in (["a"], ["b", "a"], ["c", "a", "b", "a"], ["x", "y", "x", "y", "z"], ["q"] * 4 + ["p"]):
        every = seat_orders(lineup)
        assert order_count(lineup) == len(every)
        assert [seat_order(lineup, k) for k in range(2 * len(every))] == every * 2
    big = ["koole-first", "koole-second", "koole-random"] + ["random"] * 9
    assert order_count(big) == 12 * 11 * 10
    out = CliRunner().invoke(main, ["tournament", "--players", "12", "--agents", ",".join(big), "--games", "2",
                                    "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["seat_orders"] == 1320 and data["balanced"] is False


def test_results_do_not_depend_on_the_number_of_workers():
    one = run_tournament("quartets", LINEUP, 40, seed=11, options=CLASSIC, workers=1)
    two = run_tournament("quartets", LINEUP, 40, seed=11, options=CLASSIC, workers=2, batch_size=7)
    assert one.summary() == two.summary()
    assert [r.returns for r in one.games] == [r.returns for r in two.games]
    other = run_tournament("quartets", LINEUP, 40, seed=12, options=CLASSIC)
    assert [r.returns for r in other.games] != [r.returns for r in one.games]


def test_the_dask_path_on_a_local_cluster_gives_the_same_results():
    distributed = pytest.importorskip("distributed")
    serial = run_tournament("quartets", LINEUP, 24, seed=5, options=CLASSIC)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == 2
            on_cluster = run_tournament("quartets", LINEUP, 24, seed=5, options=CLASSIC, cluster=client,
                                        batch_size=5)
        by_address = run_tournament("quartets", LINEUP, 24, seed=5, options=CLASSIC, cluster=cluster.scheduler_address)
    assert on_cluster.summary() == serial.summary() == by_address.summary()
    assert on_cluster.cluster is not None


def test_records_of_a_tournament_pass_check(tmp_path):
    run_tournament("quartets", ["koole-second", "knowledge", "random"], 6, seed=2,
                   options={**CLASSIC, "sets": 4, "set_size": 3}, records=tmp_path, workers=2, batch_size=2)
    files = sorted(tmp_path.glob("game-*.json"))
    assert [f.name for f in files] == [f"game-{k:06d}.json" for k in range(6)]
    for f in files:
        rec = json.loads(f.read_text())
        assert "deal" in rec and "first" in rec
        assert replay(record_from_json(rec)).valid
    runner = CliRunner()
    out = runner.invoke(main, ["check", str(files[0])])
    assert out.exit_code == 0, out.output


def test_quaternity_preset_tournament_records_pass_check(tmp_path):
    run_tournament("quartets", ["knowledge", "random", "cautious"], 3, seed=1,
                   options={"preset": "quaternity", "players": 3, "sets": 3, "set_size": 2}, records=tmp_path)
    for f in sorted(tmp_path.glob("*.json")):
        assert replay(record_from_json(json.loads(f.read_text()))).valid


def test_quarto_runs_through_the_same_runner(tmp_path):
    result = run_tournament("quarto", ["greedy", "random"], 4, seed=1, records=tmp_path)
    summary = result.summary()
    assert set(summary["results"]) == {"greedy", "random"}
    assert [s["games"] for s in summary["results"]["greedy"]["per_seat"]] == [2, 2]
    assert len(list(tmp_path.glob("*.json"))) == 4


def test_wilson_interval_known_values():
    low, high = wilson(50, 100)
    assert math.isclose(low, 0.4038, abs_tol=1e-4) and math.isclose(high, 0.5962, abs_tol=1e-4)
    low, high = wilson(0, 10)
    assert low == 0.0 and math.isclose(high, 0.2775, abs_tol=1e-4)


def test_bad_line_ups_are_refused():
    with pytest.raises(TournamentError, match="unknown agent"):
        run_tournament("quartets", ["koole-first", "nobody", "random"], 3, options=CLASSIC)
    with pytest.raises(TournamentError, match="2 agents for 3 seats"):
        run_tournament("quartets", ["random", "random"], 3, options=CLASSIC)
    with pytest.raises(TournamentError, match="unknown game"):
        run_tournament("chess", ["random", "random"], 3)


def test_tournament_command_json_keys(tmp_path):
    runner = CliRunner()
    out = runner.invoke(main, ["tournament", "--preset", "classic", "--players", "3", "--sets", "6", "--set-size", "4",
                               "--agents", ",".join(LINEUP), "--games", "6", "--seed", "1", "--json",
                               "--plot", str(tmp_path / "rates.svg")])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["games"] == 6 and data["lineup"] == LINEUP
    assert set(data["results"]) == {"koole-first", "koole-random"}
    for entry in data["results"].values():
        assert {"wins", "win_rate", "ci95", "mean_score", "per_seat"} <= set(entry)
        assert len(entry["ci95"]) == 2 and entry["ci95"][0] <= entry["win_rate"] <= entry["ci95"][1]
    assert {"seats", "seat_effect", "length", "run"} <= set(data)
    assert (tmp_path / "rates.svg").read_text().lstrip().startswith("<?xml")


def test_tournament_command_table_and_bad_input():
    runner = CliRunner()
    out = runner.invoke(main, ["tournament", "--agents", "koole-first,random,random", "--games", "3"])
    assert out.exit_code == 0, out.output
    assert "koole-first" in out.stdout and "win rate" in out.stdout
    out = runner.invoke(main, ["tournament", "--agents", "koole-first,nobody,random", "--games", "3"])
    assert out.exit_code == 2 and out.stderr.startswith("quaternity: unknown agent 'nobody'")
    out = runner.invoke(main, ["tournament", "--agents", "random,random,random", "--option", "tie"])
    assert out.exit_code == 2 and "KEY=VALUE" in out.stderr


def test_koole_experiment_fills_every_cell():
    data = koole_experiment(games=3, seed=1)
    assert len(data["cells"]) == 40 and len(data["lineups"]) == 20
    cell = next(c for c in data["cells"] if c["strategy"] == "first" and c["opponents"] == ["random", "random"])
    assert cell["theirs"] == 0.66 and cell["games"] == 3
    # computed by hand for each number of wins in 3 games, against 66% of 1,000 published games:
    # (standard error, z, Wilson 95% interval)
    by_wins = {0: (0.0, -44.0588, [0.0, 0.5615]), 1: (0.2722, -1.1984, [0.0615, 0.7923]),
               2: (0.2722, 0.0245, [0.2077, 0.9385]), 3: (0.0, 22.6969, [0.4385, 1.0])}
    wins = round(cell["ours"] * 3)
    assert cell["ours"] == pytest.approx(wins / 3)
    se, z, ci95 = by_wins[wins]
    assert cell["se"] == pytest.approx(se, abs=1e-4) and cell["z"] == pytest.approx(z, abs=1e-4)
    assert cell["ci95"] == pytest.approx(ci95, abs=1e-4)


def test_exact_agents_are_deterministic_given_the_seed():
    options = {**CLASSIC, "sets": 4, "set_size": 3}
    runs = [run_tournament("quartets", ["knowledge", "cautious", "koole-first"], 6, seed=4, options=options,
                           records=None) for _ in range(2)]
    assert runs[0].summary() == runs[1].summary()
    records = [play.record for play in runs[0].games]
    assert records == [None] * 6  # records are only kept when asked for


def test_experiment_command_prints_both_tables():
    runner = CliRunner()
    out = runner.invoke(main, ["experiment", "koole", "--games", "1", "--seed", "2"])
    assert out.exit_code == 0, out.output
    assert "theirs" in out.stdout and "cells differ by 3 standard errors or more" in out.stdout
    out = runner.invoke(main, ["experiment", "koole", "--games", "1", "--second-fallback", "random", "--json"])
    data = json.loads(out.stdout)
    assert data["second_fallback"] == "random"
    assert any(l["lineup"] == ["koole-second-random"] * 3 for l in data["lineups"])


def _claims(record: dict) -> list[int]:
    """Sets put down per seat, read from the record's ``p!s`` tokens."""
    out = [0] * record["players"]
    for move in record["moves"]:
        if "!" in move:
            out[int(move.split("!")[0])] += 1
    return out


@pytest.mark.parametrize("tie", ["random", "all-lose"])
def test_unfinished_games_count_as_won_by_nobody(monkeypatch, tmp_path, tie):
    """Games stopped by the question limit: nobody wins them, the summary counts them, the table says so."""
    import quaternity_cp.quartets.state as quartets_game

    monkeypatch.setattr(quartets_game, "MAX_QUESTIONS", 4)
    options = {"preset": "classic", "players": 3, "sets": 3, "set_size": 2, "tie": tie}
    result = run_tournament("quartets", ["random"] * 3, 12, seed=1, options=options, records=tmp_path)
    records = [json.loads(f.read_text()) for f in sorted(tmp_path.glob("game-*.json"))]
    unfinished = [k for k, rec in enumerate(records) if sum(_claims(rec)) < 3]
    tied = [k for k, rec in enumerate(records) if k not in unfinished and _claims(rec).count(max(_claims(rec))) > 1]
    assert 0 < len(unfinished) < 12
    for k, game in enumerate(result.games):
        assert game.finished == (k not in unfinished)
        if k in unfinished:
            assert game.returns == (0.0, 0.0, 0.0) and game.length == 4
            assert sum(1 for m in records[k]["moves"] if ">" in m) == 4
            assert replay(record_from_json(records[k])).valid  # an unfinished game is still a legal record
    summary = result.summary()
    no_winner = len(unfinished) + (len(tied) if tie == "all-lose" else 0)
    assert summary["unfinished"] == len(unfinished)
    assert summary["no_winner"] == no_winner
    assert summary["results"]["random"]["wins"] == pytest.approx(12 - no_winner)
    assert sum(s["wins"] for s in summary["seats"]) == pytest.approx(12 - no_winner)
    out = CliRunner().invoke(main, ["tournament", "--players", "3", "--sets", "3", "--set-size", "2", "--option",
                                    f"tie={tie}", "--agents", "random,random,random", "--games", "12", "--seed", "1"])
    assert out.exit_code == 0, out.output
    assert f"Games nobody won (draws): {no_winner} (unfinished: {len(unfinished)})" in out.stdout


# -- wins, draws, losses and shares, counted from the records ------------------------------------------------
def _expected_counts(result, winners_of) -> dict:
    """Per agent, from each game's record alone (``winners_of(k)``: the seats that won game k, by the checker):
    whole games won, draws (nobody won), losses, and the share (1/k of a win with k winners)."""
    out: dict = {}
    for k, game in enumerate(result.games):
        won = winners_of(k)
        for p, agent in enumerate(game.seats):
            row = out.setdefault(agent, {"wins": 0, "draws": 0, "losses": 0, "share": 0.0, "seats_held": 0})
            row["seats_held"] += 1
            key = "wins" if p in won else "draws" if not won else "losses"
            row[key] += 1
            row["share"] += 1 / len(won) if p in won else 0.0
    return out


def _assert_counts(summary: dict, expected: dict) -> None:
    for agent, want in expected.items():
        got = summary["results"][agent]
        assert {key: got[key] for key in ("wins", "draws", "losses", "seats_held")} == \
            {key: want[key] for key in ("wins", "draws", "losses", "seats_held")}, agent
        assert got["share"] == pytest.approx(want["share"])
        assert got["win_rate"] == pytest.approx(want["wins"] / want["seats_held"])
        assert got["ci95"] == pytest.approx(list(wilson(want["wins"], want["seats_held"])))
        assert got["share_rate"] == pytest.approx(want["share"] / want["seats_held"])
        per_seat = got["per_seat"]
        for key in ("wins", "draws", "losses", "games"):
            assert sum(s[key] for s in per_seat) == (want[key] if key != "games" else want["seats_held"])


def test_a_quarto_draw_is_a_draw_not_half_a_win(tmp_path):
    """Quarto gives each seat 1/2 of a drawn game's return: that is no win for anybody, and a share of 0."""
    from quaternity_cp.quarto.formats import check, parse

    result = run_tournament("quarto", ["greedy", "random"], 16, seed=0,
                            records=tmp_path)
    winners = [check(parse(f.read_text())).position.winner for f in sorted(tmp_path.glob("game-*.json"))]
    assert None in winners and any(w is not None for w in winners)  # the sample has draws and wins
    expected = _expected_counts(result, lambda k: () if winners[k] is None else (winners[k],))
    summary = result.summary()
    _assert_counts(summary, expected)
    assert summary["no_winner"] == winners.count(None)
    assert sum(r["draws"] for r in summary["results"].values()) == 2 * winners.count(None)
    assert sum(s["wins"] for s in summary["seats"]) == 16 - winners.count(None)
    for agent, row in summary["results"].items():
        assert row["wins"] + row["draws"] + row["losses"] == row["seats_held"]
        assert isinstance(row["wins"], int) and isinstance(row["draws"], int)


def test_a_shared_win_is_a_whole_win_for_each_winner_and_a_share_of_one_over_k(tmp_path):
    """tie=shared: each tied seat has won the game (a whole win), its share is 1/k; tie=all-lose: a draw."""
    options = {"preset": "classic", "players": 3, "sets": 3, "set_size": 2}
    for tie in ("shared", "all-lose"):
        folder = tmp_path / tie
        result = run_tournament("quartets", ["random", "koole-first", "koole-first"], 24, seed=5,
                                options={**options, "tie": tie}, records=folder)
        positions = [replay(record_from_json(json.loads(f.read_text()))).position
                     for f in sorted(folder.glob("game-*.json"))]
        winners = [tuple(pos.winners()) for pos in positions]
        assert any(len(w) > 1 for w in winners) if tie == "shared" else any(not w for w in winners)
        summary = result.summary()
        _assert_counts(summary, _expected_counts(result, lambda k: winners[k]))
        assert summary["no_winner"] == sum(1 for w in winners if not w)
        assert sum(r["share"] for r in summary["results"].values()) == pytest.approx(24 - summary["no_winner"])


def test_the_command_shows_and_carries_wins_draws_losses_and_shares(tmp_path):
    """The table has a column for each count; the JSON carries them, says what they are, keeps its keys."""
    from quaternity_cp.quarto.formats import check, parse

    args = ["tournament", "--game", "quarto", "--agents", "greedy,random", "--games", "16", "--seed", "0"]
    runner = CliRunner()
    out = runner.invoke(main, [*args, "--json", "--records", str(tmp_path)], env={"COLUMNS": "80"})
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    winners = [check(parse(f.read_text())).position.winner for f in sorted(tmp_path.glob("game-*.json"))]
    seats = [seat_order(["greedy", "random"], k) for k in range(16)]
    for agent, row in data["results"].items():
        wins = sum(1 for k in range(16) if winners[k] is not None and seats[k][winners[k]] == agent)
        draws = sum(seats[k].count(agent) for k in range(16) if winners[k] is None)
        assert (row["wins"], row["draws"], row["losses"], row["share"]) == (wins, draws, 16 - wins - draws, wins)
        assert {"wins", "draws", "losses", "share", "share_rate", "win_rate", "ci95", "mean_score", "seats_held",
                "per_seat", "fallbacks"} <= set(row)
    assert {"seats", "seat_effect", "length", "no_winner", "unfinished", "seat_orders", "balanced", "partial",
            "games_requested", "run", "counts"} <= set(data)
    assert "Wilson interval of win_rate" in data["counts"]["ci95"]
    table = runner.invoke(main, args, env={"COLUMNS": "80"})
    assert table.exit_code == 0, table.output
    header = next(line for line in table.stdout.splitlines() if line.split()[:1] == ["agent"])
    assert header.split()[:5] == ["agent", "seats", "wins", "draws", "losses"]
    assert "95% interval" in header and "share" in header
    for agent, row in data["results"].items():
        line = next(line for line in table.stdout.splitlines() if line.split()[:1] == [agent]).split()
        assert line[1:5] == [str(row["seats_held"]), str(row["wins"]), str(row["draws"]), str(row["losses"])]
    assert f"Games nobody won (draws): {data['no_winner']}" in table.stdout


# -- Wilson intervals ------------------------------------------------------------------------------------
def _wilson_decimal(successes: float, n: int) -> tuple[Decimal, Decimal]:
    """The textbook form (centre plus or minus half the width) at 60 digits, from the exact float values."""
    with localcontext() as ctx:
        ctx.prec = 60
        z, s = Decimal(Z95), Decimal(successes)
        p, z2 = s / n, z * z
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = z * (p * (1 - p) / n + z2 / (4 * n * n)).sqrt() / (1 + z2 / n)
        return centre - half, centre + half


def test_wilson_bounds_are_exact_at_the_ends_and_agree_with_the_textbook_form():
    for n in range(1, 2001):
        for s in (0, n, 0.5, n - 0.5, n / 3, 1 / 3, n - 1 / 3):
            if not 0 <= s <= n:
                continue
            low, high = wilson(s, n)
            ref_low, ref_high = _wilson_decimal(s, n)
            assert abs(Decimal(low) - ref_low) < Decimal("1e-14") and abs(Decimal(high) - ref_high) < Decimal("1e-14")
            assert 0.0 <= low <= s / n <= high <= 1.0
            assert (low == 0.0) == (s == 0) and (high == 1.0) == (s == n), (s, n, low, high)


def test_plot_of_a_clean_sweep(tmp_path):
    """All wins for one agent, none for the other: the bars' intervals end exactly at 0 and 1."""
    pytest.importorskip("matplotlib")
    out = CliRunner().invoke(main, ["tournament", "--game", "quarto", "--agents", "greedy,random", "--games", "10",
                                    "--seed", "1", "--plot", str(tmp_path / "x.png"), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["results"]["greedy"]["ci95"][1] == 1.0 and data["results"]["random"]["ci95"][0] == 0.0
    assert (tmp_path / "x.png").read_bytes().startswith(b"\x89PNG")


# -- options, line-ups ------------------------------------------------------------------------------------
@pytest.mark.parametrize("args, message", [
    (["--option", "seed=5"], "--option seed: 'seed' is not an option of quartets"),
    (["--option", "engine=cpsat"], "--option engine: 'engine' is not an option of quartets"),
    # a declared option's value is read as its type (issue 40): a whole number in the digits 0-9, true or false
    (["--option", "sets=[1, 2]"], "--option sets: expected a whole number in the digits 0-9, got '[1, 2]'"),
    (["--option", "players=3.0"], "--option players: expected a whole number in the digits 0-9, got '3.0'"),
    (["--option", "players=true"], "--option players: expected a whole number in the digits 0-9, got 'true'"),
    (["--option", "preset=koole"],
     "--option preset: option 'preset' must be one of quaternity, quaternity-seat, blind, pythagoras"),
    (["--preset", "koole"], "--preset: option 'preset' must be one of quaternity, quaternity-seat, blind, pythagoras"),
    (["--option", "tie={\"a\": 1}"], "rule option 'tie' must be one of"),
    (["--option", "nobody=1"], "unknown rule option 'nobody'"),
    (["--game", "quarto", "--agents", "random,random", "--option", "squares=yes"],
     "--option squares: expected true or false, got 'yes'"),
    (["--game", "quarto", "--agents", "random,random", "--option", "squares=1"],
     "--option squares: expected true or false, got '1'"),
    (["--game", "quarto", "--agents", "random,random", "--option", "seed=1"],
     "--option seed: 'seed' is not an option of quarto"),
    (["--agents", "solver,random,random"], "agent 'solver': plays the Quaternity presets only"),
])
def test_options_and_agents_are_checked_before_any_game(args, message):
    base = ["tournament", "--agents", "random,random,random", "--games", "2"]
    out = CliRunner().invoke(main, base + args if "--agents" not in args else ["tournament", "--games", "2", *args])
    assert out.exit_code == 2, out.output
    assert out.stderr.startswith(f"quaternity: {message}") and out.stdout == "", out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_option_bounds_are_the_games_in_a_tournament_and_the_tables_elsewhere():
    from quaternity_cp.registry import GAMES, OptionError, load_all

    spec = load_all()["quartets"]
    assert spec.option("players").high == 8  # the web table's bound (quaternity_cp.quartets.web)
    with pytest.raises(OptionError, match="option 'players' must be at most 8, not 12") as info:
        spec.check_options({"players": 12})
    assert info.value.option == "players"
    spec.check_options({"players": 12}, bounds=False)  # a tournament: the game's own limit (100 players)
    check_lineup("quartets", ["random"] * 12, {"preset": "classic", "players": 12, "sets": 6, "set_size": 4})
    with pytest.raises(TournamentError, match="101 players is beyond the limit of 100"):
        check_lineup("quartets", ["random"] * 101, {"preset": "classic", "players": 101})
    assert GAMES["quarto"].refusal("solver", {}) is None  # Quarto's solver is another agent


def test_the_solver_plays_the_quaternity_presets():
    options = {"preset": "quaternity", "players": 3, "sets": 3, "set_size": 2}
    result = run_tournament("quartets", ["solver", "random", "random"], 3, seed=1, options=options)
    assert result.summary()["results"]["solver"]["seats_held"] == 3
    with pytest.raises(TournamentError, match="agent 'solver': plays the Quaternity presets only, not classic"):
        run_tournament("quartets", ["solver", "random", "random"], 3, options={**options, "preset": "classic"})


def test_a_game_error_while_making_the_first_state_is_bad_input(monkeypatch):
    from quaternity_cp.registry import GAMES

    def broken(seed, **options):
        raise KeyError("x")

    monkeypatch.setitem(GAMES, "quarto", replace(GAMES["quarto"], new_state=broken))
    with pytest.raises(TournamentError, match="the options of quarto are refused: KeyError"):
        check_lineup("quarto", ["random", "random"], {})


# -- output files -----------------------------------------------------------------------------------------
QUICK = ["tournament", "--game", "quarto", "--agents", "greedy,random", "--games", "4", "--seed", "1"]


def test_records_folder_is_checked_before_the_first_game(tmp_path):
    runner = CliRunner()
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for target, message in [(a_file, "is a file, not a folder"), ("/proc/no/such/folder", "cannot write in it")]:
        out = runner.invoke(main, [*QUICK, "--records", str(target)])
        assert out.exit_code == 2 and message in out.stderr and out.stdout == "", out.output
    folder = tmp_path / "new" / "records"
    out = runner.invoke(main, [*QUICK, "--records", str(folder)])
    assert out.exit_code == 0, out.output
    first = (folder / "game-000000.json").read_text()
    (folder / "game-000000.json").write_text("mine")
    out = runner.invoke(main, [*QUICK, "--records", str(folder)])
    assert out.exit_code == 2 and "holds game records already (game-" in out.stderr and "--force" in out.stderr
    assert (folder / "game-000000.json").read_text() == "mine"
    out = runner.invoke(main, [*QUICK, "--records", str(folder), "--force"])
    assert out.exit_code == 0 and (folder / "game-000000.json").read_text() == first
    assert sorted(p.name for p in folder.iterdir()) == [f"game-{k:06d}.json" for k in range(4)]  # no temporary files


def test_the_output_is_neither_the_records_folder_nor_one_of_its_records(tmp_path):
    """--output in --records under a record's name replaced that game's record (no --force); --output naming
    the --records folder was refused only after every game."""
    runner = CliRunner()
    folder = tmp_path / "rec"
    for output, message in [(folder / "game-000001.json", "is where --records writes a game's record"),
                            (folder, "is the --records folder")]:
        out = runner.invoke(main, [*QUICK, "--records", str(folder), "--output", str(output)])
        assert out.exit_code == 2 and message in out.stderr and out.stdout == "", out.output
        assert not folder.exists()  # refused before the folder is made and before any game
    folder.mkdir()
    out = runner.invoke(main, [*QUICK, "--records", str(folder), "--output", str(folder / "summary.json")])
    assert out.exit_code == 0 and json.loads((folder / "summary.json").read_text())["games"] == 4


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in a read-only folder")
def test_a_read_only_records_folder_is_refused(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        out = CliRunner().invoke(main, [*QUICK, "--records", str(folder)])
    finally:
        folder.chmod(0o700)
    assert out.exit_code == 2 and "cannot write in it" in out.stderr


def test_output_and_plot_files_are_checked_before_and_written_after(tmp_path, monkeypatch):
    runner = CliRunner()
    target = tmp_path / "summary.json"
    out = runner.invoke(main, [*QUICK, "--json", "--output", str(target)])
    assert out.exit_code == 0, out.output
    written = json.loads(target.read_text())
    printed = json.loads(out.stdout)
    assert written["results"] == printed["results"] and written["partial"] is False
    out = runner.invoke(main, [*QUICK, "--output", str(target)])
    assert out.exit_code == 2 and "exists already; pass --force" in out.stderr and out.stdout == ""
    assert runner.invoke(main, [*QUICK, "--output", str(target), "--force"]).exit_code == 0
    for args, message in [(["--plot", str(tmp_path / "no" / "x.png")], "does not exist"),
                          (["--plot", str(tmp_path / "x.svg"), "--output", str(tmp_path / "x.svg")],
                           "is the --plot file"),
                          (["--plot", str(tmp_path)], "must be a .png or .svg")]:
        out = runner.invoke(main, [*QUICK, *args])
        assert out.exit_code == 2 and message in out.stderr and out.stdout == "", (args, out.output)

    def failing(summary, path, title=None):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tournament, "plot_results", failing)
    out = runner.invoke(main, [*QUICK, "--plot", str(tmp_path / "late.png")])
    assert out.exit_code == 2 and "cannot write (No space left on device)" in out.stderr
    assert "Results per agent" in out.stdout  # the results came first


# -- early stops, fallbacks ------------------------------------------------------------------------------
def _stop_after(games: int):
    def progress(done: int, total: int) -> None:
        if done >= games:
            raise KeyboardInterrupt

    return progress


def test_an_interrupt_gives_the_games_finished_so_far(tmp_path):
    with pytest.raises(TournamentInterrupted, match="interrupted after 5 of 20 games") as info:
        run_tournament("quarto", ["greedy", "random"], 20, seed=1, records=tmp_path, progress=_stop_after(5))
    err = info.value
    summary = err.result.summary()
    assert err.cause == "interrupt" and summary["partial"] and summary["games_requested"] == 20
    assert summary["games"] == 5 and len(list(tmp_path.glob("game-*.json"))) == 5
    whole = run_tournament("quarto", ["greedy", "random"], 5, seed=1).summary()
    assert {k: v for k, v in summary.items() if k not in ("partial", "games_requested")} == \
        {k: v for k, v in whole.items() if k not in ("partial", "games_requested")}


def test_the_command_prints_the_partial_statistics(monkeypatch):
    real = tournament.run_tournament

    def interrupted(*args, **kwargs):
        return real(*args, **{**kwargs, "progress": _stop_after(3)})

    monkeypatch.setattr(tournament, "run_tournament", interrupted)
    out = CliRunner().invoke(main, [*QUICK, "--games", "10"])
    assert out.exit_code == 130
    assert "Partial: the run stopped after 3 of the 10 games asked for" in out.stdout
    assert out.stderr == "quaternity: interrupted after 3 of 10 games; the statistics are of the 3 games finished\n"
    out = CliRunner().invoke(main, [*QUICK, "--games", "10", "--json"])
    data = json.loads(out.stdout)
    assert out.exit_code == 130 and data["partial"] is True and data["games"] == 3 and data["games_requested"] == 10


class CountingAgent:
    """Plays the first legal action and counts every decision as a fallback."""

    name = "counting"

    def __init__(self):
        self.fallbacks = 0

    def step(self, observation, legal_actions, rng):
        self.fallbacks += 1
        return legal_actions[0]


def test_fallbacks_are_counted_per_agent_and_printed(monkeypatch):
    from quaternity_cp.registry import AGENTS, load_all

    load_all()
    monkeypatch.setitem(AGENTS["quarto"], "counting", CountingAgent)
    result = run_tournament("quarto", ["counting", "counting"], 4, seed=1)
    summary = result.summary()
    assert summary["results"]["counting"]["fallbacks"] == sum(g.length for g in result.games) > 0
    mixed = run_tournament("quarto", ["counting", "random"], 4, seed=1).summary()["results"]
    assert mixed["random"]["fallbacks"] == 0 and mixed["counting"]["fallbacks"] > 0
    out = CliRunner().invoke(main, ["tournament", "--game", "quarto", "--agents", "counting,random", "--games", "4",
                                    "--seed", "1"])
    assert out.exit_code == 0, out.output
    assert f"Decisions taken by a cheaper rule (a count over the agent's budget): counting " \
           f"{mixed['counting']['fallbacks']:,}" in out.stdout
    assert "cheaper rule" not in CliRunner().invoke(main, QUICK).stdout


# -- fuzz: the tournament's options through the command -----------------------------------------------
NAMES = ["preset", "players", "sets", "set_size", "set-size", "squares", "tie", "handover", "seed", "engine",
         "dealt", "auto_claim", "silence", "invalid", "empty_hand", "after_no", "declare", "x", "__class__", ""]
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.sampled_from([10**6, 2**63, -(2**63), 10**30])
    | st.floats(allow_nan=False) | st.text(max_size=12)
    | st.sampled_from(["classic", "quaternity", "shared", "random", "seat", "fewest"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(["quartets", "quarto"]),
       options=st.lists(st.tuples(st.sampled_from(NAMES) | st.text(max_size=8),
                                  VALUES.map(json.dumps) | st.text(max_size=12)), max_size=3))
def test_fuzz_options_never_crash_the_command(game, options):
    agents = "random,random,random" if game == "quartets" else "random,random"
    args = ["tournament", "--game", game, "--agents", agents, "--games", "1", "--sets", "3", "--set-size", "2"]
    for name, value in options:
        args += ["--option", f"{name}={value}"]
    out = CliRunner().invoke(main, args)
    assert out.exit_code in (0, 2), (args, out.output)
    assert "Traceback" not in out.output
    if out.exit_code == 2:
        assert out.stderr.startswith("quaternity: ") and out.stderr.count("\n") == 1, out.stderr

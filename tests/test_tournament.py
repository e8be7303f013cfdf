"""The tournament runner: seat rotation, seeds independent of workers, the Dask path, records, the CLI."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main
from quaternity_cp.formats import record_from_json
from quaternity_cp.replay import replay
from quaternity_cp.experiments import koole_experiment
from quaternity_cp.tournament import TournamentError, run_tournament, seat_orders, wilson

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
    import quaternity_cp.quartets.game as quartets_game

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
    assert f"Games without a winner: {no_winner} (unfinished: {len(unfinished)})" in out.stdout

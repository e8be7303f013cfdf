"""The solver's limits hold exactly: ``max_positions`` never stores more positions, and the time
limit is checked before every engine call (issue 12 / 13). No wall-clock assertions: a time
limit already passed must stop the search before its first engine call after the root."""

from __future__ import annotations

import math

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main
from quaternity_cp import Game, Position
from quaternity_cp.budget import SearchResult
from quaternity_cp.quartets.solver import Limits, SolveError, solve


@pytest.mark.parametrize("goal", ["win", "quartet"])
@pytest.mark.parametrize("limit", [1, 2, 7, 100])
def test_max_positions_is_never_exceeded(goal, limit):
    pos = Position(Game(3, 3, 2))  # 55 positions for the win goal
    res = solve(pos, goal, 0, max_positions=limit, depth=0)
    assert res.positions <= limit
    unlimited = solve(pos, goal, 0, depth=0)
    if unlimited.positions > limit:
        assert res.status == "limit" and not res.proven
    else:
        assert res.status == "solved" and res.result == unlimited.result


def test_time_limit_is_checked_inside_the_search():
    # a limit that has passed before the search starts: the root's analysis is the only engine call
    res = solve(Position(Game(4, 4, 2)), "win", 0, max_seconds=1e-9, depth=0)
    assert res.status == "time" and res.result is None
    assert res.engine_calls <= 2  # the validity check and at most one analysis


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, -1.0, 0, True, "5"])
def test_bad_max_seconds_is_refused(bad):
    with pytest.raises(SolveError):
        solve(Position(Game(2, 2, 2)), "win", 0, max_seconds=bad)


@pytest.mark.parametrize("bad", [0, -3, 1.5, True])
def test_bad_max_positions_is_refused(bad):
    with pytest.raises(SolveError):
        solve(Position(Game(2, 2, 2)), "win", 0, max_positions=bad)


def test_limits_object_is_the_keywords():
    """``limits=Limits(...)`` (the limits object both solvers take) is the same as the keywords."""
    pos = Position(Game(3, 3, 2))
    by_keyword = solve(pos, "win", 0, max_positions=7, depth=0)
    res = solve(pos, "win", 0, limits=Limits(max_positions=7), depth=0)
    assert isinstance(res, SearchResult)
    assert (res.status, res.positions) == (by_keyword.status, by_keyword.positions) == ("limit", 7)
    assert (res.proven, res.verdict, res.stop_reason) == (False, "unproven", "limit")
    solved = solve(pos, "win", 0, limits=Limits(max_positions=100, max_seconds=600), depth=0)
    assert (solved.proven, solved.stop_reason) == (True, None)
    assert solved.verdict == solve(pos, "win", 0, depth=0).verdict in ("yes", "no")
    with pytest.raises(SolveError, match="not both"):
        solve(pos, "win", 0, limits=Limits(max_positions=7), max_seconds=5.0)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "0", "NaN", "abc"])
def test_cli_bad_max_seconds_exit_2(value):
    r = CliRunner().invoke(main, ["solve", "--start", "3", "3", "2", f"--max-seconds={value}", "--depth", "0"])
    assert r.exit_code == 2, r.output


def test_cli_max_positions_holds():
    r = CliRunner().invoke(main, ["solve", "--start", "4", "4", "2", "--max-positions", "100", "--depth", "0",
                                  "--json"])
    assert r.exit_code == 0, r.output
    import json
    data = json.loads(r.output)
    assert data["status"] == "limit" and data["positions"] <= 100

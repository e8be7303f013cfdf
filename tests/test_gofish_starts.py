"""The table of solved Quantum Go Fish starts (quaternity_cp.gofish.starts) against the brute-force reference.

The 2-player start (2 suits of 4) under every rule set of the table is compared with value iteration over the
reference's explicit graph (tests/gofish_reference.py: the list of consistent tables, no flows, no suit
relabelling); the winning first move is played out against every answer. The 3-player rows of the docs
(53,946 positions under the default rules, about 10 s each) run with ``--runslow``."""

from __future__ import annotations

import pytest

from gofish_reference import Reference
from quaternity_cp.gofish.starts import VARIANTS, solve_start_rules, solve_starts
from test_gofish_solver import reference_graph, value_iteration


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()) or "default")
def test_two_player_starts_match_value_iteration(rules):
    row, game = solve_start_rules(2, rules)
    root, graph = reference_graph(Reference(2, 2, 4, dict(rules)))
    for seat in range(2):
        expected = value_iteration(graph, seat).get(root)
        assert (row.results[seat].verdict, row.results[seat].plies) == (expected is not None, expected)
    data = row.to_json(game)
    assert data["winners"] == [s for s in range(2) if value_iteration(graph, s).get(root) is not None]
    for seat in data["winners"]:
        move = data["seats"][str(seat)]["first_move"]
        assert game.is_legal(move)  # the strategy's first question is a legal one of the start


def test_the_table_names_at_most_one_winner_per_start():
    for row in solve_starts(2):
        assert len(row.winners) <= 1
        assert row.positions > 0 and row.edges >= row.positions - 1


@pytest.mark.slow
@pytest.mark.parametrize("rules", [{}, {"after_yes": "again"}], ids=["default", "after_yes=again"])
def test_three_player_start_no_seat_forces_a_win(rules):
    row, _ = solve_start_rules(3, rules)
    assert row.winners == []
    assert row.positions == {(): 53_946, ("after_yes",): 30_918}[tuple(rules)]

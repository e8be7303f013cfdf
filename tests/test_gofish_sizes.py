"""What the Go Fish solvers' sizes count (issue 38, item 9): positions, moves and layers against a brute-force graph.

tests/gofish_reference.py's :class:`StartGraph` enumerates a start's game graph from the rules alone (every
position reachable from the start: the tables of counts consistent now, whose turn it is, the open question,
and for a game over who asked last and who won). The solvers' figures are that graph with symmetries merged,
nothing left out:

* the Python solver (``gofish starts`` without ``--checkpoint``): suits relabelled; asking + open-question
  positions, plus one game over per winner; moves = each position's distinct successors;
* the partitioned solver (``--checkpoint``): players rotated and suits relabelled; asking + open-question
  positions only; the same moves per position, counted once per rotation; layers = the breadth-first build's,
  the farthest position's fewest plies from the start plus two (the last layer is empty).

The figures of docs/gofish.md for the 3-player start (73,273 asking positions, 26,647 once per rotation,
241,302 open, 12,327 over; the solvers' 53,946 and 19,518) are the slow test (about two minutes)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gofish_reference import StartGraph
from quaternity_cp.gofish.bigsolve import build
from quaternity_cp.gofish.fastgraph import Shape, expand_keys, open_count, start_key
from quaternity_cp.gofish.game import GoFish
from quaternity_cp.gofish.solver import build_graph
from quaternity_cp.gofish.starts import graph_kinds

RULES = [{}, {"after_yes": "again"}, {"four": "some"}, {"ask_void": "forbid"}]
SMALL = [(2, 2, 4), (2, 3, 4), (3, 3, 2)]


def _name(rules):
    return ",".join(f"{k}={v}" for k, v in rules.items()) or "default"


def _packed_split(shape):
    """(asking, open) positions of the packed graph, by a plain breadth-first walk over fastgraph's plies."""
    root, first = start_key(shape)
    assert first >= 0
    seen = {(int(root[0]), int(root[1]))}
    frontier = [root]
    keys = [root]
    while frontier:
        out = expand_keys(np.array(frontier, np.uint64).reshape(-1, 2), shape)
        frontier = []
        for key, end in zip(out["keys"], out["end"]):
            k = (int(key[0]), int(key[1]))
            if end == -2 and k not in seen:
                seen.add(k)
                frontier.append(key)
                keys.append(key)
    opened = open_count(np.array(keys, np.uint64), shape)
    return len(keys) - opened, opened


@pytest.mark.parametrize("config", SMALL, ids=lambda c: "x".join(map(str, c)))
@pytest.mark.parametrize("rules", RULES, ids=_name)
def test_solver_sizes_are_the_brute_force_graphs(config, rules, tmp_path):
    brute = StartGraph(*config, rules)
    # the Python solver: suits relabelled, one game over per winner
    graph = build_graph(GoFish(*config, rules or None))
    want = brute.solver_sizes()
    assert (graph.size, graph.edges) == (want["positions"], want["edges"])
    assert graph_kinds(graph) == {"asking": want["ask"], "open": want["open"], "over": want["over"]}
    # the partitioned solver: players rotated too, games over not positions, breadth-first layers
    shape = Shape.of(*config, rules)
    built = build(shape, str(tmp_path), parts=2)
    want = brute.packed_sizes()
    assert (built.positions, built.edges, built.layers) == (want["positions"], want["edges"], want["layers"])
    assert _packed_split(shape) == (want["ask"], want["open"])
    # merged, never more: each solver's positions are classes of the brute-force graph's
    plain = brute.counts()
    assert built.positions <= graph.size - graph_kinds(graph)["over"] <= plain["ask"] + plain["open"]


def test_the_plain_counts_of_small_starts():
    """The brute-force graph's own counts (asking, open-question, over), plain and with each symmetry merged: the
    figures docs/gofish.md gives for the 2-player start (2 suits of 4), then a 3-player start with suits of 2."""
    g = StartGraph(2, 2, 4)
    assert len(g) == 39 and g.plies == 50
    assert g.counts() == {"ask": 12, "open": 20, "over": 7}
    assert g.counts(rotate=True) == {"ask": 12, "open": 20, "over": 7}  # (no position is another's mirror image)
    assert g.counts(relabel=True) == {"ask": 7, "open": 10, "over": 4}
    assert g.counts(rotate=True, relabel=True) == {"ask": 7, "open": 10, "over": 4}
    assert g.solver_sizes() == {"positions": 19, "edges": 24, "ask": 7, "open": 10, "over": 2}
    assert g.packed_sizes() == {"positions": 17, "edges": 24, "layers": 11, "ask": 7, "open": 10}
    g = StartGraph(3, 3, 2)
    assert g.counts() == {"ask": 172, "open": 588, "over": 234}
    assert g.solver_sizes() == {"positions": 134, "edges": 246, "ask": 31, "open": 100, "over": 3}
    assert g.packed_sizes() == {"positions": 59, "edges": 118, "layers": 9, "ask": 15, "open": 44}


def test_the_brute_force_graph_follows_the_rules_it_states():
    """Every position's plies are the referee's, each kind where it belongs: an open question follows an asking
    position, a game over has no plies, and the fewest plies to a position are one more than to a parent."""
    g = StartGraph(3, 3, 2)
    assert g.kind[0] == "ask" and g.dist[0] == 0
    for i, succ in enumerate(g.succ):
        if g.kind[i] == "over":
            assert succ == ()
            continue
        assert succ
        for j in succ:
            assert g.dist[j] <= g.dist[i] + 1
            if g.kind[i] == "ask":
                assert g.kind[j] == "open"  # (a game over only with win_after_ask)
            else:
                assert g.kind[j] in ("ask", "over")
    # a class under both symmetries holds images only: the same kind, the same number of consistent tables
    cls = g.classes(True, True)
    by_class = {}
    for i, c in enumerate(cls):
        by_class.setdefault(c, set()).add((g.kind[i], len(g.keys[i][-1])))
    assert all(len(v) == 1 for v in by_class.values())


def test_starts_json_says_what_its_sizes_count(tmp_path):
    from click.testing import CliRunner

    from quaternity_cp.gofish.cli import gofish

    brute = StartGraph(2, 2, 4)
    result = CliRunner().invoke(gofish, ["starts", "--players", "2", "--rule", "four=named", "--json"])
    assert result.exit_code == 0, result.stderr
    row = json.loads(result.stdout)["starts"][0]
    want = brute.solver_sizes()
    assert (row["positions"], row["edges"]) == (want["positions"], want["edges"])
    assert (row["asking_positions"], row["open_positions"], row["over_positions"]) == (want["ask"], want["open"],
                                                                                      want["over"])
    assert row["asking_positions"] + row["open_positions"] + row["over_positions"] == row["positions"]
    assert (row["players_rotated"], row["suits_relabelled"]) == (False, True)
    assert "suits relabelled" in row["sizes_definition"] and "one per winner" in row["sizes_definition"]
    result = CliRunner().invoke(gofish, ["starts", "--players", "2", "--rule", "four=named", "--json",
                                         "--checkpoint", str(tmp_path), "--workers", "0", "--parts", "1"])
    assert result.exit_code == 0, result.stderr
    row = json.loads(result.stdout)["starts"][0]
    want = brute.packed_sizes()
    assert (row["positions"], row["edges"], row["layers"]) == (want["positions"], want["edges"], want["layers"])
    assert (row["players_rotated"], row["suits_relabelled"], row["over_positions"]) == (True, True, 0)
    assert row["farthest_position_plies"] == want["layers"] - 2
    assert (row["asking_positions"], row["open_positions"]) == (want["ask"], want["open"])
    assert "players rotated" in row["sizes_definition"] and "layers - 2" in row["sizes_definition"]


@pytest.mark.slow
def test_the_three_player_start_counts_as_the_docs_say(tmp_path):
    """docs/gofish.md's figures for 3 players, 3 suits of 4, default rules: the brute-force graph's counts, and the
    solvers' sizes are those counts with the symmetries merged."""
    g = StartGraph(3, 3, 4)
    assert g.counts() == {"ask": 73_273, "open": 241_302, "over": 12_327} and g.plies == 679_491
    assert g.counts(rotate=True) == {"ask": 26_647, "open": 87_153, "over": 4_134}
    assert g.counts(relabel=True) == {"ask": 12_864, "open": 41_079, "over": 2_322}
    assert g.counts(rotate=True, relabel=True) == {"ask": 4_680, "open": 14_838, "over": 779}
    assert g.solver_sizes() == {"positions": 53_946, "edges": 111_339, "ask": 12_864, "open": 41_079, "over": 3}
    assert g.packed_sizes() == {"positions": 19_518, "edges": 40_752, "layers": 37, "ask": 4_680, "open": 14_838}
    graph = build_graph(GoFish(3, 3, 4))
    assert (graph.size, graph.edges) == (53_946, 111_339)
    built = build(Shape.of(3, 3, 4, {}), str(tmp_path), parts=2)
    assert (built.positions, built.edges, built.layers) == (19_518, 40_752, 37)


@pytest.mark.slow
@pytest.mark.parametrize("rules", [{}, {"after_yes": "again"}, {"win_after_ask": True}, {"no_initial_four": True},
                                   {"priority": "four-first"}, {"four": "off"}], ids=_name)
def test_three_players_suits_of_three_sizes_are_the_brute_force_graphs(rules, tmp_path):
    test_solver_sizes_are_the_brute_force_graphs((3, 3, 3), rules, tmp_path)

"""Quantum Go Fish's solver (issue 32, item 5): "can seat X force a win", an attractor over the game graph.

Checked against an independent reference built from tests/gofish_reference.py's brute-force semantics (the
list of consistent tables, no flows, no suit relabelling): its explicit game graph, solved by value iteration
to a fixed point; under ``repetition = draw`` from a game with a history, by a depth-bounded search over
plays that carries the set of positions seen. Then the returned strategies are played out against random and
adversarial opponents with the real core (repetition rule included)."""

from __future__ import annotations

import itertools
import random
from functools import lru_cache

import pytest

from gofish_reference import Reference
from quaternity_cp.budget import Limits
from quaternity_cp.gofish import GoFish, Move
from quaternity_cp.gofish.rules import GoFishError
from quaternity_cp.gofish.solver import SolverLimitError, build_graph, can_force, solve_start

#: option settings compared (each with the defaults otherwise)
SETTINGS_ = [{}, {"priority": "four-first"}, {"four": "some"}, {"four": "off"}, {"ask_void": "forbid"},
             {"win_after_ask": True}, {"after_yes": "again"}, {"no_initial_four": True},
             {"win_after_ask": True, "priority": "four-first", "four": "some", "ask_void": "forbid"}]
TINY = [(2, 2, 2), (2, 2, 3), (2, 2, 4), (2, 3, 2), (2, 3, 4), (3, 3, 2)]


# -- the reference: an explicit graph of brute-force positions, value iteration ------------------------------
def _clone(ref):
    new = Reference.__new__(Reference)
    new.__dict__ = dict(ref.__dict__)
    new.hands = list(ref.hands)
    new.seen = set(ref.seen)
    return new


def _key(ref):
    if ref.over:
        return ("end", ref.winner)
    return (ref.turn, ref.pending, tuple(ref.hands), frozenset(ref.worlds))


def _children(ref):
    """(owner, [child references]) of a position not over: every legal question, or every legal answer."""
    out = []
    if ref.pending is None:
        for a, b, s in ref.legal_questions():
            child = _clone(ref)
            assert child.play(a, b, s, None) is None
            out.append(child)
        return ref.turn, out
    a, b, s = ref.pending
    for yes in ref.legal_answers(a, b, s):
        child = _clone(ref)
        assert child.play(a, b, s, yes) is None
        out.append(child)
    return b, out


def reference_graph(ref):
    """Every position reachable from ``ref`` (the repetition rule off): key -> (owner, successor keys)."""
    ref = _clone(ref)
    ref.rules = dict(ref.rules, repetition="none")
    graph = {}
    todo = [ref]
    while todo:
        r = todo.pop()
        k = _key(r)
        if k in graph:
            continue
        if r.over:
            graph[k] = (None, ())
            continue
        owner, children = _children(r)
        graph[k] = (owner, tuple({_key(c) for c in children}))
        todo.extend(children)
    return _key(ref), graph


def value_iteration(graph, seat):
    """key -> plies to a win for ``seat`` (absent: no forced win), by iterating W_{k+1} = step(W_k)."""
    rank = {k: 0 for k in graph if k[0] == "end" and k[1] == seat}
    k = 0
    while True:
        k += 1
        new = {}
        for node, (owner, succ) in graph.items():
            if node in rank or owner is None or not succ:
                continue
            inside = [s in rank for s in succ]
            if (any(inside) if owner == seat else all(inside)):
                new[node] = k
        if not new:
            return rank
        rank.update(new)


def reference_with_history(ref, seat):
    """Plies to a win for ``seat`` from ``ref`` under ``repetition = draw`` with its history (None: no forced
    win), by a depth-bounded search over plays carrying the positions seen (no graph, no ranks)."""

    @lru_cache(maxsize=None)
    def wins(key, seen, k):
        r = nodes[key]
        if r.over:
            return r.winner == seat
        if k == 0:
            return False
        owner, children = _children(r)
        results = []
        for c in children:
            ck = _key(c)
            nodes.setdefault(ck, c)
            if c.pending is None and not c.over:
                position = (c.turn, frozenset(c.worlds))
                if position in seen:
                    results.append(False)  # a repeated position: a draw
                    continue
                results.append(wins(ck, seen | {position}, k - 1))
            else:
                results.append(wins(ck, seen, k - 1))
        return any(results) if owner == seat else all(results)

    nodes = {_key(ref): ref}
    limit = len(reference_graph(ref)[1]) + 1
    for k in range(limit + 1):
        if wins(_key(ref), frozenset(ref.seen), k):
            return k
    return None


# -- against the reference ------------------------------------------------------------------------------------
@pytest.mark.parametrize("config", TINY)
@pytest.mark.parametrize("rules", SETTINGS_, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()) or "default")
def test_verdicts_and_plies_match_value_iteration_for_every_seat(config, rules):
    players, suits, size = config
    root, graph = reference_graph(Reference(players, suits, size, rules))
    results = solve_start(players, suits, size, rules)
    for seat in range(players):
        expected = value_iteration(graph, seat).get(root)
        got = results[seat]
        assert (got.wins, got.plies) == (expected is not None, expected), (config, rules, seat)
        assert got.graph_size <= len(graph)  # suits relabelled: never more positions than the reference


@pytest.mark.parametrize("config", [(2, 2, 3), (2, 2, 4), (2, 3, 4), (3, 3, 2), (3, 3, 3)])
def test_every_position_of_a_game_matches_the_reference(config):
    """Mid-game states too: along random plays, every seat's verdict and plies from the current position."""
    players, suits, size = config
    rng = random.Random(7)
    verdicts = set()
    for rules in ({}, {"after_yes": "again", "win_after_ask": True}):
        game, ref = GoFish(players, suits, size, rules), Reference(players, suits, size, rules)
        for ply in range(12):
            if game.over:
                break
            root, graph = reference_graph(ref) if ply else (None, {})  # (the start: tested above)
            for seat in range(players):
                if not ply:
                    continue
                expected = value_iteration(graph, seat).get(root)
                got = can_force(game, seat)
                assert (got.wins, got.plies) == (expected is not None, expected)
                verdicts.add(got.wins)
            move = rng.choice(game.legal_moves())
            game.push(move)
            assert ref.play(move.asker, move.asked, move.suit, move.answer) is None
    assert False in verdicts and (True in verdicts or config not in [(2, 2, 3), (3, 3, 3)])


@pytest.mark.parametrize("config", [(2, 2, 3), (2, 2, 4), pytest.param((3, 3, 2), marks=pytest.mark.slow)])
def test_repetition_draw_with_a_history_matches_a_search_over_plays(config):
    players, suits, size = config
    rules = {"repetition": "draw"}
    compared = 0
    for seed in range(20):
        rng = random.Random(seed)
        game, ref = GoFish(players, suits, size, rules), Reference(players, suits, size, rules)
        for _ in range(rng.randrange(0, 12)):
            if game.over:
                break
            move = rng.choice(game.legal_moves())
            game.push(move)
            assert ref.play(move.asker, move.asked, move.suit, move.answer) is None
        if game.over:
            continue
        for seat in range(players):
            expected = reference_with_history(ref, seat)
            got = can_force(game, seat)
            assert (got.wins, got.plies) == (expected is not None, expected), (seed, seat)
            compared += 1
    assert compared


# -- the strategy, played out -----------------------------------------------------------------------------------
def _play_out(players, suits, size, rules, seat, opponent, rng):
    game = GoFish(players, suits, size, rules)
    result = can_force(game, seat)
    if not result.wins:
        return None
    plies = 0
    while not game.over:
        rank = result.rank(game)
        assert rank is not None and rank <= result.plies - plies
        mine = game.turn == seat if game.pending is None else game.pending.asked == seat
        if mine:
            move = result.move(game)
            assert move is not None and game.is_legal(move)
        else:
            q = game.pending
            options = (game.legal_questions() if q is None
                       else [Move(q.asker, q.asked, q.suit, yes) for yes in game.legal_answers()])
            move = opponent(game, result, options, rng)
        game.push(move)
        plies += 1
        assert plies <= result.plies
    assert game.winner == seat
    return plies


def _random(game, result, options, rng):
    return rng.choice(options)


def _adversary(game, result, options, rng):
    """The move that leaves the most plies to go (every move stays in the attractor)."""
    def left(move):
        trial = game.copy()
        trial.push(move)
        rank = result.rank(trial)
        assert rank is not None
        return rank
    return max(options, key=left)


@pytest.mark.parametrize("rules", SETTINGS_[:7] + [{"repetition": "draw"}],
                         ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()) or "default")
def test_the_strategy_wins_within_its_plies_against_any_opponent(rules):
    rng = random.Random(1)
    played = 0
    for (players, suits, size), seat in itertools.product([(2, 2, 2), (2, 2, 3), (2, 3, 2), (3, 3, 2)], range(3)):
        if seat >= players:
            continue
        plies = _play_out(players, suits, size, rules, seat, _adversary, rng)
        if plies is None:
            continue
        assert plies == can_force(GoFish(players, suits, size, rules), seat).plies  # the adversary is optimal
        for _ in range(5):
            _play_out(players, suits, size, rules, seat, _random, rng)
        played += 1
    if rules in ({}, {"repetition": "draw"}):
        assert played


# -- limits and input --------------------------------------------------------------------------------------------
def test_a_graph_past_its_limits_raises_a_clear_error():
    with pytest.raises(SolverLimitError, match="max_positions=10"):
        build_graph(GoFish(3, 3, 2), Limits(max_positions=10))
    assert build_graph(GoFish(3, 3, 2), Limits(max_positions=10_000)).size == 134


def test_a_bad_seat_is_refused():
    with pytest.raises(GoFishError, match="seat 2"):
        can_force(GoFish(2, 2, 2), 2)


def test_a_game_over_is_its_own_verdict():
    game = GoFish(2, 2, 2)
    game.push("0>1:A-")
    assert game.winner == 0
    won, lost = can_force(game, 0), can_force(game, 1)
    assert (won.wins, won.plies, won.graph_size) == (True, 0, 1)
    assert (lost.wins, lost.plies) == (False, None)


@pytest.mark.parametrize("rules", [SETTINGS_[0], SETTINGS_[-1]] + [pytest.param(r, marks=pytest.mark.slow)
                                                                   for r in SETTINGS_[1:-1]],
                         ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()) or "default")
def test_three_players_size_three_matches_value_iteration(rules):
    root, graph = reference_graph(Reference(3, 3, 3, rules))
    results = solve_start(3, 3, 3, rules)
    for seat in range(3):
        expected = value_iteration(graph, seat).get(root)
        assert (results[seat].wins, results[seat].plies) == (expected is not None, expected)

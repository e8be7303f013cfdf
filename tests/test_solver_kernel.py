"""The solver's fast path (quaternity_cp/quartets/solver/kernel.py) against the slow path it replaces in graph
searches: the same keys, the same moves in the same order, the same states after every move (so the
same as ``Position.push``, see test_solver_fastpath.py), the same graphs, and the same results when
the engine's tables are emptied or the flow engine has to answer."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_incremental_solver import random_position
from test_solver_fastpath import SHAPES, SOLVER_PRESETS, rule_sets

from quaternity_cp import Game, Position, Rules
from quaternity_cp.quartets.solver import graph as graph_module
from quaternity_cp.quartets.solver import kernel as kernel_module
from quaternity_cp.quartets.solver import solve
from quaternity_cp.quartets.solver.api import cannot_win, opponent_order
from quaternity_cp.quartets.solver.core import Context, Node
from quaternity_cp.quartets.solver.graph import GameGraph
from quaternity_cp.quartets.solver.kernel import Kernel, KNode  # noqa: F401


def same_state(kernel: Kernel, kn: KNode, state) -> None:
    assert kernel.state(kn) == replace(state, last_claims=())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), shape=st.sampled_from(SHAPES), seed=st.integers(0, 10**6))
def test_every_move_of_a_random_walk_matches_the_slow_path(rules, shape, seed):
    """At each position of a random walk: the fast node has the slow node's key and moves; each move
    gives the slow path's state and key; moves_until stops where the slow one does."""
    check_walk(rules, shape, seed)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), shape=st.sampled_from(SHAPES), seed=st.integers(0, 10**6))
def test_every_move_of_a_random_walk_matches_the_slow_path_slow(rules, shape, seed):
    check_walk(rules, shape, seed)


def check_walk(rules, shape, seed) -> None:
    rng = random.Random(seed)
    ctx = Context(Game(*shape), rules, "sets")
    kernel = ctx.kernel
    assert kernel is not None
    state = Position(ctx.game, rules).state
    until = opponent_order(ctx, rng.randrange(shape[0])).early
    for _ in range(40):
        node = ctx.describe(state)
        kn = kernel.node(state)
        same_state(kernel, kn, state)
        assert kernel.unpack(kernel.pack(state)) == state  # what a parked slow node keeps
        assert kn.key == node.key and kn.over == node.over
        if node.over:
            assert kn.winners == node.winners
            break
        assert kn.mover == node.mover and kn.pending == node.pending and kn.sets_left == node.sets_left
        moves = ctx.moves(node)
        assert ctx.moves(kn) == moves
        assert ctx.moves_until(kn, lambda m: until(kn, m)) == ctx.moves_until(node, lambda m: until(node, m))
        if not moves:
            break
        for move in moves:
            slow = ctx.play(state, move)
            fast = ctx.child(kn, move)
            assert type(fast) is KNode
            same_state(kernel, fast, slow)
            assert fast.key == ctx.describe(slow).key, (ctx.game.move_str(move), rules)
        state = ctx.play(state, rng.choice(moves))


def slow_context(game, rules) -> Context:
    ctx = Context(game, rules, "sets")
    ctx.kernel = None
    return ctx


def graph_of(ctx: Context, pos: Position, lazy: bool, player: int = 0):
    graph = GameGraph(ctx, cannot_win(pos.rules, player))
    root = ctx.search_root(ctx.describe(pos.state))
    if lazy:
        rid, rank = graph.build_lazy(root, player, order=opponent_order(ctx, player))
    else:
        rid, rank = graph.build(root), None
    return graph, rid, rank


@pytest.mark.parametrize("preset", SOLVER_PRESETS)
@pytest.mark.parametrize("lazy", [False, True])
def test_graphs_are_those_of_the_slow_path(preset, lazy):
    rng = random.Random(7)
    for size in [(3, 3, 2), (4, 2, 2), (2, 3, 2), (3, 2, 3)]:
        for moves in (0, 3):
            pos = random_position(size, preset, rng, moves)
            if pos.state.over:
                continue
            fast, rid, rank = graph_of(Context(pos.game, pos.rules, "sets"), pos, lazy)
            slow, srid, srank = graph_of(slow_context(pos.game, pos.rules), pos, lazy)
            assert fast.ids == slow.ids and fast.succ == slow.succ
            assert fast.mover == slow.mover and fast.winners == slow.winners
            assert (rid, rank) == (srid, srank) and fast.expanded == slow.expanded


@pytest.mark.parametrize("preset", SOLVER_PRESETS)
def test_solves_are_those_of_the_slow_path(preset, monkeypatch):
    """Whole solves (verdict, positions, strategy or defence trees) with the fast path, with it and
    emptied tables, with some moves handed to the slow path, and without it."""
    pos = Position(Game(4, 4, 2), Rules.preset(preset))

    def run(setup=None):
        if setup is not None:
            monkeypatch.setattr(Context, "__init__", _after_init(Context.__init__, setup))
        res = solve(pos, "win", 0, depth=4)
        monkeypatch.undo()
        return res.verdict, res.positions, res.expanded, res.plies, res.strategy, res.defense

    slow = run(lambda ctx: setattr(ctx, "kernel", None))
    assert run() == slow
    monkeypatch.setattr(kernel_module, "CACHE_LIMIT", 50)  # tables emptied and renumbered all along
    assert run() == slow
    fell_back = []
    assert run(lambda ctx: (setattr(ctx.kernel.engine, "max_bits", 125), fell_back.append(ctx.kernel))) == slow
    assert fell_back[0].fallbacks > 0


@pytest.mark.parametrize("start", [(4, 4, 2, "quaternity"), (3, 3, 3, "blind"), (2, 4, 2, "pythagoras")])
def test_parked_nodes_are_found_again_the_same(start, monkeypatch):
    """A node that waits (for its other moves in a lazy search, or on a long frontier) is parked: it
    forgets what it can find again. Parking every node gives the same solves on the fast path, the
    slow path and the slow way taken from the fast one (whose states are packed into rows)."""
    P, N, S, preset = start
    pos = Position(Game(P, N, S), Rules.preset(preset))
    goal = "value" if P == 2 else "win"

    def run(park_all: bool, setup=None):
        if park_all:
            monkeypatch.setattr(graph_module, "PARK_FRONTIER", 0)
        if setup is not None:
            monkeypatch.setattr(Context, "__init__", _after_init(Context.__init__, setup))
        res = solve(pos, goal, 0, depth=4)
        monkeypatch.undo()
        return res.verdict, res.positions, res.expanded, res.plies, res.strategy, res.defense, res.line

    for setup in (None, lambda ctx: setattr(ctx, "kernel", None),
                  lambda ctx: setattr(ctx.kernel.engine, "max_bits", 125)):
        assert run(True, setup) == run(False, setup)


def _after_init(init, setup):
    def patched(self, *args, **kwargs):
        init(self, *args, **kwargs)
        setup(self)
    return patched


def test_a_move_beyond_the_engine_goes_on_the_slow_way():
    """When the hands after a move need bit sets larger than the engine takes, that move is played
    the slow way and its subtree stays slow (with the same keys)."""
    game, rules = Game(4, 4, 2), Rules.preset("quaternity")
    ctx = Context(game, rules, "sets")
    start = Position(game, rules).state
    # hands (2, 2, 2, 2) need 5**3 = 125 bits (base: the largest hand + S + 1); after a yes, 6**3 = 216
    ctx.kernel.engine.max_bits = 125
    kinds = set()
    frontier = [(ctx.kernel.node(start), start)]
    for _ in range(2):
        nxt = []
        for kn, state in frontier:
            for move in ctx.moves(kn):
                child, slow = ctx.child(kn, move), ctx.play(state, move)
                assert child.key == ctx.describe(slow).key
                kinds.add(type(child))
                if type(child) is KNode:
                    nxt.append((child, slow))
                else:
                    assert {type(ctx.child(child, m)) for m in ctx.moves(child)} <= {Node}
        frontier = nxt
    assert kinds == {KNode, Node} and ctx.kernel.fallbacks > 0


def test_the_kernel_takes_what_a_question_tells_from_effects(monkeypatch):
    """The kernel's row operations for a question are read from quaternity_cp.quartets.effects at setup: a question
    rule changed there (here: the asker's "holds a card of the set" dropped) changes the kernel's."""
    from quaternity_cp.quartets import effects
    from quaternity_cp.quartets.solver.kernel import question_rule

    assert question_rule(False, 4) == (True, 1, None)
    assert question_rule(True, 4) == (True, 1, 3)
    real = effects.question_facts
    monkeypatch.setattr(effects, "question_facts",
                        lambda c, a, card, *, silence=False: [f for f in real(c, a, card, silence=silence)
                                                              if not isinstance(f, effects.AtLeast)])
    assert question_rule(False, 4) == (True, 0, None)
    monkeypatch.setattr(effects, "question_facts", lambda c, a, card, *, silence=False: [effects.Holds(1, 1)])
    with pytest.raises(AssertionError, match="cannot apply"):
        question_rule(False, 4)

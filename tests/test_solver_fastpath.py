"""The solver's short ways against the reference ways: ``Context.play`` of a question with its answer
against ``Position.push``, and the set-signature engine the solver uses against brute-force
enumeration (engine-level properties are in test_engines.py)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import RULE_OPTIONS

from quaternity_cp import Game, Position, Rules
from quaternity_cp.quartets.game import Question
from quaternity_cp.quartets.rules import PRESETS
from quaternity_cp.quartets.solver.core import Context

SOLVER_PRESETS = [name for name in PRESETS if name != "classic"]


# what the solver refuses: dealt cards (classic quartets), askers without cards, drawn tie-breaks
UNSOLVED = {("dealt", True), ("empty_hand", "ask"), ("tie", "random")}
SOLVER_OPTIONS = {name: tuple(v for v in values if (name, v) not in UNSOLVED)
                  for name, values in RULE_OPTIONS.items()}


@st.composite
def rule_sets(draw):
    """A solver preset with any of the options the solver handles changed."""
    rules = Rules.preset(draw(st.sampled_from(SOLVER_PRESETS)))
    changes = {name: draw(st.sampled_from(values)) for name, values in SOLVER_OPTIONS.items() if draw(st.booleans())}
    return rules.with_options(**changes)


SHAPES = [(2, 2, 2), (2, 3, 2), (3, 3, 2), (3, 2, 3), (4, 2, 2), (4, 4, 2), (3, 4, 3), (5, 5, 2)]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), shape=st.sampled_from(SHAPES), seed=st.integers(0, 10**6),
       engine=st.sampled_from(["sets", "flow"]))
def test_play_of_every_answered_question_is_push(rules, shape, seed, engine):
    """On a random walk (every move the solver generates, one of them played), each question with
    its answer and each answer to an open question gives exactly the state Position.push gives."""
    rng = random.Random(seed)
    ctx = Context(Game(*shape), rules, engine)
    state = Position(ctx.game, rules).state
    for _ in range(40):
        node = ctx.describe(state)
        if node.over:
            break
        moves = ctx.moves(node)
        if not moves:
            break
        # also every question of the seat on turn with each legal answer, not only the generated classes
        extra = []
        if node.state.pending is None and len(node.state.turn) == 1:
            extra = [m for m in ctx.ask_moves(node, node.state.turn[0], all_moves=True, combine=False)
                     if type(m) is Question]
        for move in moves + extra:
            if type(move) is not Question:
                continue
            answers = [move.answer] if move.answer is not None else [True, False]
            for answer in answers:
                full = Question(move.asker, move.target, move.card, answer)
                pos = ctx.position(state)
                if pos.check(full) is not None:
                    continue  # the answer is illegal here: the solver never plays it
                pos.push(full)
                assert ctx.play(state, full) == pos.state, (ctx.game.move_str(full), rules)
        state = ctx.play(state, rng.choice(moves))


@pytest.mark.parametrize("preset", SOLVER_PRESETS)
def test_the_solver_gives_the_same_answers_with_each_engine(preset):
    from quaternity_cp.quartets.solver import solve
    for shape in [(3, 3, 2), (4, 2, 2), (3, 2, 3)]:
        pos = Position(Game(*shape), Rules.preset(preset))
        results = {e: solve(pos, "win", 0, engine=e, depth=0) for e in ("sets", "flow", "brute")}
        verdicts = {e: (r.verdict, r.plies, r.positions) for e, r in results.items()}
        assert len(set(verdicts.values())) == 1, verdicts


def reference_questions(ctx: Context, node, x: int) -> list:
    """Every question of seat x with its legal answers, each asked position analysed by the engine."""
    c = node.state.constraints
    pos = ctx.position(node.state)
    out: list[Question] = []
    targets = [y for y in range(c.players) if y != x and c.hands[y] > 0]
    if c.hands[x] == 0:
        return out
    for card in c.cards_in_play:
        a = ctx.engine.inner.analyze(pos.question_constraints(x, card))
        if not a.feasible:
            continue
        for y in targets:
            if a.owners[card] >> y & 1:
                out.append(Question(x, y, card, True))
            if a.owners[card] & ~(1 << y) and (ctx.rules.forced_no_question or a.owners[card] >> y & 1):
                out.append(Question(x, y, card, False))
    return out


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), shape=st.sampled_from(SHAPES), seed=st.integers(0, 10**6))
def test_generated_questions_are_those_of_the_asked_positions(rules, shape, seed):
    """The questions the solver generates (some read from the position's own analysis, without
    analysing the asked position) are exactly the questions with legal answers."""
    rng = random.Random(seed)
    ctx = Context(Game(*shape), rules, "sets")
    state = Position(ctx.game, rules).state
    for _ in range(30):
        node = ctx.describe(state)
        if node.over:
            break
        if state.pending is None and len(state.turn) == 1:
            x = state.turn[0]
            got = []  # a question with its only legal answer, or without one when both are legal
            for m in ctx.ask_moves(node, x, all_moves=True):
                if type(m) is Question:
                    for answer in ((True, False) if m.answer is None else (m.answer,)):
                        got.append(Question(m.asker, m.target, m.card, answer))
            assert sorted(got, key=str) == sorted(reference_questions(ctx, node, x), key=str)
        moves = ctx.moves(node)
        if not moves:
            break
        state = ctx.play(state, rng.choice(moves))

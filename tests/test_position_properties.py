"""Property tests: Position agrees with the brute-force reference on random records.

Records are drawn move by move: mostly legal moves (from the reference's legal
moves and legal answers), some random and often illegal moves and
declarations, sometimes an open question (answered by the next move, or left
open at the end). After every move Position and the reference must agree on
legality and its kind, turn, claims, scores, end, winners, loser, hands,
every card's possible owners, every possible quartet and the legal answers of
an open question; on some records also on the set of legal moves.

A failing example prints the record as ``describe(...)`` text that can be
replayed with :func:`reference.reference_replay` and Position.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import Reference, describe, position_view, step_view
from strategies import RULE_OPTIONS

from quaternity_cp import Game, IllegalMoveError, Position, Rules
from quaternity_cp.quartets.engines import ENGINES
from quaternity_cp.quartets.game import Declaration, Question
from quaternity_cp.quartets.rules import HANDOVERS, PRESETS

ENGINE_NAMES = sorted(e for e in ENGINES if e != "brute")

#: (players, sets, set size), at most 12 cards and a few thousand deals; small hands
#: (one or two cards) are listed twice so that hands run empty and the fallback decides.
GAMES = [
    (2, 2, 2), (2, 2, 3), (2, 3, 2), (3, 2, 3), (3, 3, 2), (4, 2, 2), (2, 3, 4), (3, 3, 3), (2, 1, 4),
    (3, 3, 2), (4, 2, 2), (4, 4, 2), (4, 4, 2), (6, 3, 2), (6, 2, 3), (4, 1, 4), (2, 2, 1), (3, 6, 1),
]
#: bigger games for the exhaustive runs (up to 369600 deals).
SLOW_GAMES = GAMES + [(2, 4, 3), (3, 4, 3), (4, 3, 4), (3, 2, 6), (5, 5, 2)]


SEEDS = st.integers(0, 2**32 - 1)

FAST = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SLOW = settings(
    max_examples=1000,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def rules_strategy(draw):
    """A preset with each option independently left alone or overridden."""
    preset = draw(st.sampled_from(sorted(PRESETS)))
    overrides = {}
    for name, values in RULE_OPTIONS.items():
        if draw(st.integers(0, 2)) == 0:
            overrides[name] = draw(st.sampled_from(values))
    if overrides.get("dealt", PRESETS[preset].dealt):
        overrides.update(auto_claim=False, declare=False)  # the only combination with dealt cards
    return Rules.preset(preset, **overrides)


def random_move(rng: random.Random, game: Game, turn: tuple[int, ...]):
    """Any well-formed move (usually illegal), most often by a seat on turn."""
    seats = range(game.players)
    x = rng.choice(turn) if turn and rng.random() < 0.7 else rng.choice(seats)
    if rng.random() < 0.25:
        return Declaration(x, rng.randrange(game.sets))
    return Question(x, rng.choice(seats), rng.randrange(game.cards), rng.choice((True, False, None)))


def draw_move(rng: random.Random, ref: Reference, rs, index: int, last: bool, declare: float = 0.3):
    """Mostly a legal move (with a legal answer), sometimes a random one or an open question."""
    game = ref.game
    if rs.over or rng.random() < 0.15:
        return random_move(rng, game, rs.turn)
    legal = ref.legal_moves(rs)
    if not legal:
        return random_move(rng, game, rs.turn)
    declarations = [m for m in legal if isinstance(m, Declaration)]
    if declarations and rng.random() < declare:
        return rng.choice(declarations)
    move = rng.choice(legal)
    if isinstance(move, Question) and move.answer is None:
        if (last and rng.random() < 0.4) or rng.random() < 0.08:
            return move  # an open question: ends the record, or is answered by the next move
        opened, kind = ref.play(rs, move, index)
        assert kind is None
        answers = ref.answers(opened)
        assert answers is not None  # the question is open
        choices = [v for v in (True, False) if answers["yes" if v else "no"]]
        if rng.random() < 0.05:
            choices = [True, False]  # sometimes an impossible answer
        elif len(choices) == 2 and rng.random() < 0.3:
            choices = [True]  # more cards change hands, so hands run empty
        return move.answered(rng.choice(choices))
    return move


def push(pos: Position, move) -> str | None:
    """Push a move; the kind of its illegality (None when legal)."""
    try:
        pos.push(move)
    except IllegalMoveError as err:
        return err.kind
    return pos.illegal.kind if pos.illegal is not None else None


def play_and_compare(
    seed: int, game: Game, rules: Rules, engine: str, max_moves: int, compare_moves: float, declare: float = 0.3
):
    """Draw a record move by move, checking Position against the reference after each.

    ``compare_moves``: the share of moves after which the sets of legal moves are
    compared too (they always are at the end of the record)."""
    ref = Reference(game, rules)
    try:
        rs = ref.start()
    except ValueError:  # no initial deal: one-card sets without initial quartets
        assert not Position(game, rules, engine=engine).is_valid(), describe(game, rules, [])
        return
    pos = Position(game, rules, engine=engine)
    record: list = []
    start = ref.view(rs, 0, None, None)
    assert position_view(pos) == step_view(start), describe(game, rules, record)
    rng = random.Random(seed)
    length = rng.randint(1, max_moves) if rng.random() < 0.3 else max_moves
    extra_after_end = 0
    for i in range(1, length + 1):
        move = draw_move(rng, ref, rs, i, last=i == length, declare=declare)
        record.append(move)
        where = describe(game, rules, record)
        check = pos.check(move)
        kind = push(pos, move)
        rs, ref_kind = ref.play(rs, move, i)
        assert (kind, check.kind if check else None) == (ref_kind, ref_kind), where
        assert position_view(pos) == step_view(ref.view(rs, i, move, ref_kind)), where
        if rng.random() < compare_moves:
            assert set(pos.legal_moves()) == set(ref.legal_moves(rs)), where
        if rs.over:
            extra_after_end += 1
            if extra_after_end > 1:
                break
    assert set(pos.legal_moves()) == set(ref.legal_moves(rs)), describe(game, rules, record)


# -- agreement with the reference --------------------------------------------------------


# CP-SAT, the cross-check, is the slowest engine (4-5 s for 300 games): 80 games in the default run, all 300
# with --runslow; the engines that decide by default get the 300 every time.
@pytest.mark.parametrize("engine", [e if e != "cpsat" else pytest.param(e, marks=pytest.mark.slow)
                                    for e in ENGINE_NAMES])
@FAST
@given(game=st.sampled_from(GAMES), rules=rules_strategy(), seed=SEEDS)
def test_position_agrees_with_reference(engine, game, rules, seed):
    play_and_compare(seed, Game(*game), rules, engine, max_moves=24, compare_moves=0)


@settings(FAST, max_examples=80)
@given(game=st.sampled_from(GAMES), rules=rules_strategy(), seed=SEEDS)
def test_cpsat_agrees_with_reference(game, rules, seed):
    play_and_compare(seed, Game(*game), rules, "cpsat", max_moves=24, compare_moves=0)


@pytest.mark.parametrize("engine", ENGINE_NAMES)
@settings(FAST, max_examples=30)
@given(game=st.sampled_from(GAMES[:6]), rules=rules_strategy(), seed=SEEDS)
def test_legal_moves_agree_with_reference(engine, game, rules, seed):
    play_and_compare(seed, Game(*game), rules, engine, max_moves=8, compare_moves=1)


#: games where hands run empty quickly: one or two cards a hand
SMALL_HANDS = [(3, 3, 2), (4, 2, 2), (4, 4, 2), (6, 3, 2), (6, 2, 3), (4, 1, 4), (3, 1, 3), (4, 2, 4)]


@pytest.mark.parametrize("engine", ENGINE_NAMES)
@settings(FAST, max_examples=80)
@given(
    game=st.sampled_from(SMALL_HANDS),
    rules=rules_strategy(),
    handover=st.sampled_from(HANDOVERS),
    declare=st.booleans(),
    seed=SEEDS,
)
def test_hand_over_agrees_with_reference(engine, game, rules, handover, declare, seed):
    """Hands run empty (declarations, claims): every fallback and the skipping of seats without a question."""
    rules = rules.with_options(handover=handover, declare=declare and not rules.dealt, invalid="reject")
    play_and_compare(seed, Game(*game), rules, engine, max_moves=24, compare_moves=0, declare=0.7)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("engine", ENGINE_NAMES)
@settings(FAST, max_examples=15)
@given(game=st.sampled_from(GAMES), seed=SEEDS)
def test_presets_agree_with_reference(engine, preset, game, seed):
    play_and_compare(seed, Game(*game), Rules.preset(preset), engine, max_moves=24, compare_moves=0)


# -- push / pop ----------------------------------------------------------------------------


def pop_and_push_again(seed: int, game: Game, rules: Rules, engine: str, max_moves: int):
    """Push a record, pop it all (checking each state), then push it again (same states)."""
    ref = Reference(game, rules)
    try:
        rs = ref.start()
    except ValueError:
        return  # no initial deal
    pos = Position(game, rules, engine=engine)
    initial = pos.state
    record, pushed, states, views = [], [], [pos.state], [position_view(pos)]
    rng = random.Random(seed)
    for i in range(1, rng.randint(1, max_moves) + 1):
        move = draw_move(rng, ref, rs, i, last=False)
        record.append(move)
        rs, _ = ref.play(rs, move, i)
        try:
            pos.push(move)
        except IllegalMoveError:
            continue  # refused: nothing pushed
        pushed.append(move)
        states.append(pos.state)
        views.append(position_view(pos))
    where = describe(game, rules, record)
    assert pos.moves == pushed, where
    for k in range(len(pushed), 0, -1):
        assert pos.pop() == pushed[k - 1], where
        assert pos.state == states[k - 1], where
        assert position_view(pos) == views[k - 1], where
    assert pos.state == initial and pos.moves == [], where
    for k, move in enumerate(pushed, start=1):
        pos.push(move)
        assert pos.state == states[k], where
        assert position_view(pos) == views[k], where


@pytest.mark.parametrize("engine", ENGINE_NAMES)
@settings(FAST, max_examples=40)
@given(game=st.sampled_from(GAMES), rules=rules_strategy(), seed=SEEDS)
def test_pop_restores_and_push_reproduces(engine, game, rules, seed):
    pop_and_push_again(seed, Game(*game), rules, engine, max_moves=12)


# -- exhaustive variants (--runslow) ------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("engine", sorted(ENGINES))
@SLOW
@given(game=st.sampled_from(SLOW_GAMES), rules=rules_strategy(), seed=SEEDS)
def test_position_agrees_with_reference_exhaustive(engine, game, rules, seed):
    play_and_compare(seed, Game(*game), rules, engine, max_moves=30, compare_moves=0.2)


@pytest.mark.slow
@pytest.mark.parametrize("engine", sorted(ENGINES))
@settings(SLOW, max_examples=400)
@given(game=st.sampled_from(SLOW_GAMES), rules=rules_strategy(), seed=SEEDS)
def test_pop_restores_exhaustive(engine, game, rules, seed):
    pop_and_push_again(seed, Game(*game), rules, engine, max_moves=30)

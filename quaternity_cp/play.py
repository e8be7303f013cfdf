"""Automated play: random legal games, for examples, tests and benchmarks.

>>> import random
>>> from quaternity_cp import Game
>>> pos = random_game(Game(2, 2, 2), rng=random.Random(1))
>>> pos.over
True
"""

from __future__ import annotations

import random as _random
from typing import Iterator

from .errors import QuaternityError
from .game import Declaration, Game, Move, Question
from .position import Position


def random_questions(position: Position, rng: _random.Random) -> Iterator[Question]:
    """Candidate questions for the player(s) on turn, in random order, those the target may answer yes first."""
    c = position.constraints
    analysis = position.analysis()
    P = position.game.players
    likely, rest = [], []
    for x in position.turn:
        if c.hands[x] == 0:
            continue
        for y in range(P):
            if y == x or c.hands[y] == 0:
                continue
            for card in c.cards_in_play:
                owners = analysis.owners[card]
                if not owners & ~(1 << x):
                    continue
                (likely if owners >> y & 1 else rest).append(Question(x, y, card))
    rng.shuffle(likely)
    rng.shuffle(rest)
    yield from likely
    yield from rest


def random_move(position: Position, rng: _random.Random, yes_bias: float = 0.7) -> Move | None:
    """A random legal move (an answered question or a declaration), or None when there is none."""
    if position.pending is not None:
        ans = position.answers()
        options = [a for a in (True, False) if ans["yes" if a else "no"]]
        if not options:
            return None
        return position.pending.answered(True if (True in options and (len(options) == 1 or rng.random() < yes_bias)) else options[-1])
    if position.rules.declare:
        analysis = position.analysis()
        for x in position.turn:
            for s in position.constraints.sets_in_play:
                if analysis.quartets[s] >> x & 1 and analysis.forced_owner(s * position.game.set_size) == x:
                    if all(analysis.owners[card] == 1 << x for card in position.game.cards_of(s)):
                        return Declaration(x, s)
    for q in random_questions(position, rng):
        if position.check(q) is not None:
            continue
        probe = position.copy()
        probe.push(q)
        ans = probe.answers()
        options = [a for a in (True, False) if ans["yes" if a else "no"]]
        if not options:
            continue
        answer = True if True in options and (len(options) == 1 or rng.random() < yes_bias) else options[-1]
        return q.answered(answer)
    return None


def random_game(
    game: Game,
    rules=None,
    *,
    rng: _random.Random | None = None,
    engine=None,
    max_moves: int = 10_000,
    yes_bias: float = 0.7,
) -> Position:
    """Play random legal moves from the start until the game ends (or no move is left).

    Under a free choice of who moves, the first of the tied seats moves.
    """
    return play_moves(Position(game, rules, engine=engine), max_moves, rng or _random.Random(0), yes_bias)


def play_moves(position: Position, count: int, rng: _random.Random, yes_bias: float = 0.7) -> Position:
    """Play up to ``count`` random legal moves on ``position`` (a mid-game generator)."""
    for _ in range(count):
        if position.over:
            break
        move = random_move(position, rng, yes_bias)
        if move is None:
            break
        position.push(move)
    return position


__all__ = ["random_game", "random_move", "play_moves", "random_questions", "QuaternityError"]

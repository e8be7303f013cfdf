"""Automated play: random legal games (any rules, classic ones truthful), for examples, tests and benchmarks.

>>> import random
>>> from quaternity_cp import Game
>>> pos = random_game(Game(2, 2, 2), rng=random.Random(1))
>>> pos.over
True
"""

from __future__ import annotations

import random as _random
from typing import Any, Iterable, Iterator, Mapping

from .classic import Table, draw_first, draw_tie_break
from .classic import deal as draw_deal
from ..errors import RulesError
from .formats import record_to_json
from .game import Declaration, Game, Move, Question
from .position import Position
from .rules import Rules


def random_questions(position: Position, rng: _random.Random) -> Iterator[Question]:
    """Candidate questions for the player(s) on turn, in random order, those the target may answer yes first."""
    c = position.constraints
    analysis = position.analysis()
    P = position.game.players
    likely: list[Question] = []
    rest: list[Question] = []
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
        assert ans is not None  # a question is open
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
        assert ans is not None  # q, unanswered, is open
        options = [a for a in (True, False) if ans["yes" if a else "no"]]
        if not options:
            continue
        answer = True if True in options and (len(options) == 1 or rng.random() < yes_bias) else options[-1]
        return q.answered(answer)
    return None


def random_game(
    game: Game,
    rules: "Rules | str | dict[str, Any] | None" = None,
    *,
    rng: _random.Random | None = None,
    engine: Any = None,
    max_moves: int = 10_000,
    yes_bias: float = 0.7,
) -> Position:
    """Play random legal moves from the start until the game ends (or no move is left).

    Under a free choice of who moves, the first of the tied seats moves. With dealt
    cards (classic rules) the game is a truthful one: see :func:`random_record`.
    """
    rng = rng or _random.Random(0)
    rule_set = Rules.from_spec(rules)
    if rule_set.dealt:
        return _classic_game(game, rule_set, rng, engine=engine, max_moves=max_moves)[0]
    return play_moves(Position(game, rule_set, engine=engine), max_moves, rng, yes_bias)


def random_record(
    game: Game,
    rules: "Rules | str | dict[str, Any] | None",
    rng: _random.Random,
    *,
    engine: Any = None,
    hands: Mapping[int, Iterable[int]] | None = None,
    first: int | None = None,
    max_moves: int = 100_000,
    yes_bias: float = 0.7,
) -> dict[str, Any]:
    """A whole random game as a record dict (:func:`quaternity_cp.quartets.formats.record_to_json`).

    With dealt cards (classic rules): a truthful game with uniformly random legal
    questions: the deal (``hands``, else drawn), the first player (``first``, else
    drawn), the moves with every put-down due, and the tie-break when tied. Otherwise
    the moves of :func:`random_game`. For examples and tests; the agents of
    :mod:`quaternity_cp.quartets.agents` play better.
    """
    rules = Rules.from_spec(rules)
    if not rules.dealt:
        if hands is not None or first is not None:
            raise RulesError("a deal and a first player go with dealt cards (classic rules) only")
        pos = play_moves(Position(game, rules, engine=engine), max_moves, rng, yes_bias)
        return record_to_json(game, rules, pos.moves)
    pos, hands, first, moves = _classic_game(game, rules, rng, engine=engine, hands=hands, first=first,
                                              max_moves=max_moves)
    return record_to_json(game, rules, moves, deal=hands, first=first, tie_break=pos.tie_break)


def _classic_game(game: Game, rules: Rules, rng: _random.Random, *, engine: Any = None,
                  hands: Mapping[int, Iterable[int]] | None = None, first: int | None = None,
                  max_moves: int = 100_000) -> tuple[Position, dict[int, list[int]], int, list[Move]]:
    """A truthful classic game (dealt cards): the position, the deal, the first player and the moves.

    The real cards are a :class:`~quaternity_cp.quartets.classic.Table`, the one simulation of the cards that the
    classic game state (:class:`~quaternity_cp.quartets.state.ClassicState`) plays on too; the
    :class:`Position` referees the public rules (any rule set with dealt cards)."""
    deal = draw_deal(game, rng, rules) if hands is None else {p: sorted(c) for p, c in hands.items()}
    first = draw_first(game, rng) if first is None else first
    pos = Position(game, rules, engine=engine, first=first)
    table = Table(game, deal)
    moves: list[Move] = []

    def play(move: Move) -> None:
        pos.push(move)
        table.apply(move)
        moves.append(move)

    S = game.set_size
    while not pos.over and len(moves) < max_moves:
        due = table.putdowns_due()
        if due:
            play(due[0])
            continue
        x = rng.choice(pos.turn)
        mine = table.hand(x)
        held = {c // S for c in mine}
        cards = [c for c in pos.constraints.cards_in_play if (c // S in held and c not in mine) or not mine]
        targets = [y for y in range(game.players) if y != x and pos.hands[y] > 0]
        options = [Question(x, y, c) for c in cards for y in targets]
        rng.shuffle(options)
        for q in options:
            if rules.forced_no_question or pos.check(q) is None:
                break
        play(q.answered(table.answer(q)))
    if pos.over and rules.tie == "random" and len(pos.tied()) > 1:
        pos.tie_break = draw_tie_break(pos.tied(), rng)
    return pos, deal, first, moves


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


__all__ = ["random_game", "random_record", "random_move", "play_moves", "random_questions"]

"""The two rules with one home each, against the text of the rule book (docs/rules.md, /work/shared/RULES.md):

- "End and result" (:mod:`quaternity_cp.quartets.outcome`): the winners are the players with the most
  claimed sets; ``tie`` says what a tie for first means: ``all-lose`` (nobody wins), ``shared``
  (all of them win), ``first`` (the one whose score reached that number at the earliest move
  wins; two claims by one move are reached at that move, and a tie within one move goes to the
  lower seat), ``random`` (one of them drawn at random). A player who lost by an illegal move is
  out of the count.
- "An answer" (:func:`quaternity_cp.quartets.effects.legal_answers`): yes is legal when some consistent
  deal has the card with the asked player, no when some consistent deal does not.

The expected values are computed here from the text, independently of the code: the scores and the
``first`` rule from a history of claims (which move claimed sets for whom), the answers from the
sets of seats that may hold the card. Position, the classic game state and the solver's fast path
take both rules from these homes (tests/test_effects.py, tests/test_solver_kernel.py compare them).
"""

from __future__ import annotations

import itertools

import pytest

from quaternity_cp.quartets import effects, outcome
from quaternity_cp.quartets.game import Game
from quaternity_cp.quartets.position import Position
from quaternity_cp.quartets.rules import TIES, Rules


def _histories(players: int, moves: int):
    """Every history of ``moves`` claiming moves: per move the seats it claims a set for (one or two
    claims, possibly both for one seat, as after one answer several sets may be claimed)."""
    seats = range(players)
    one_move = [(p,) for p in seats] + list(itertools.combinations_with_replacement(seats, 2))
    return itertools.product(one_move, repeat=moves)


def _play(players: int, history) -> tuple[list[int], list[int]]:
    """Scores and, per seat, the move at which its score last rose (0 when it never did): what the
    game states keep."""
    scores, reached = [0] * players, [0] * players
    for move, claimers in enumerate(history, start=1):
        for p in claimers:
            scores[p] += 1
            reached[p] = move
    return scores, reached


def _expected(players: int, history, tie: str, out: int | None, drawn: int | None) -> list[int]:
    """The winners, read off the rule text with the history itself."""
    scores = {p: sum(claimers.count(p) for claimers in history) for p in range(players) if p != out}
    if not scores:
        return []
    most = max(scores.values())
    leaders = sorted(p for p, v in scores.items() if v == most)
    if len(leaders) == 1:
        return leaders
    if tie == "all-lose":
        return []
    if tie == "shared":
        return leaders
    if tie == "random":
        # one of them drawn at random: the draw when it was made, else any of them (each with chance 1/k)
        return [drawn] if drawn in leaders else leaders

    def reached_most(p: int) -> int:  # the move at which p's running score first reached `most`
        running = 0
        if running >= most:  # nothing claimed (a record of no sets): reached at the start
            return 0
        for move, claimers in enumerate(history, start=1):
            running += claimers.count(p)
            if running >= most:
                return move
        raise AssertionError("a leader reaches its score")

    earliest = min(reached_most(p) for p in leaders)
    return [min(p for p in leaders if reached_most(p) == earliest)]  # a tie within one move: lower seat


CASES = [(players, moves) for players in (1, 2, 3, 4) for moves in (0, 1, 2, 3) if players ** moves <= 4000]


@pytest.mark.parametrize("tie", TIES)
@pytest.mark.parametrize("players,moves", CASES)
def test_winners_follow_the_rule_text(tie, players, moves):
    checked = 0
    for history in _histories(players, moves):
        scores, reached = _play(players, history)
        for out in (None, *range(players)):
            draws = (None, *range(players)) if tie == "random" else (None,)
            for drawn in draws:
                want = _expected(players, history, tie, out, drawn)
                got = outcome.winners(tuple(scores), tie=tie, reached=tuple(reached), out=out, tie_break=drawn)
                assert got == want, (history, tie, out, drawn)
                checked += 1
    assert checked


@pytest.mark.parametrize("players,moves", CASES)
def test_tied_are_the_players_with_the_most_sets(players, moves):
    for history in _histories(players, moves):
        scores, _ = _play(players, history)
        for out in (None, *range(players)):
            counted = [p for p in range(players) if p != out]
            most = max((scores[p] for p in counted), default=None)
            assert outcome.tied(scores, out=out) == [p for p in counted if scores[p] == most]


def test_examples_of_the_rule_book():
    # 2-1-0: one winner whatever the tie option
    for tie in TIES:
        assert outcome.winners((2, 1, 0), tie=tie, reached=(3, 1, 0)) == [0]
    # seats 0 and 2 tied at 2; seat 2 got there first (move 3 against move 5)
    assert outcome.winners((2, 1, 2), tie="all-lose", reached=(5, 4, 3)) == []
    assert outcome.winners((2, 1, 2), tie="shared", reached=(5, 4, 3)) == [0, 2]
    assert outcome.winners((2, 1, 2), tie="first", reached=(5, 4, 3)) == [2]
    assert outcome.winners((2, 1, 2), tie="first", reached=(3, 4, 3)) == [0]  # same move: the lower seat
    assert outcome.winners((2, 1, 2), tie="random", reached=(5, 4, 3), tie_break=2) == [2]
    assert outcome.winners((2, 1, 2), tie="random", reached=(5, 4, 3)) == [0, 2]  # not drawn yet
    # the loser of an illegal move is out: the other seats' best wins
    assert outcome.winners((3, 1, 2), tie="shared", reached=(1, 2, 3), out=0) == [2]


# -- which answers are legal ----------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_legal_answers_follow_the_rule_text(players):
    for mask in range(1, 1 << players):  # a card in play may be with at least one seat
        may_hold = {p for p in range(players) if mask >> p & 1}
        for target in range(players):
            yes = target in may_hold  # some consistent deal has the card with the asked player
            no = bool(may_hold - {target})  # some consistent deal does not
            assert effects.legal_answers(mask, target) == (yes, no), (mask, target)
            # the domain each answer leaves: legal exactly when some seat that may hold the card is in it
            for answer, legal in ((True, yes), (False, no)):
                left = {p for p in may_hold if effects.answer_domain(target, answer) >> p & 1}
                assert bool(left) == legal
                assert left == ({target} & may_hold if answer else may_hold - {target})


@pytest.mark.parametrize("size", [(2, 2, 2), (3, 2, 3), (3, 3, 2)])
def test_position_answers_agree_with_the_owners(size):
    """Position decides the answers with the engine (restricting the card's domain); the solver reads
    them from the analysis' owners. Both are the one rule."""
    game = Game(*size)
    checked = 0
    for rules in (Rules.preset("quaternity"), Rules.preset("pythagoras")):
        start = Position(game, rules)
        for move in start.legal_moves():
            if getattr(move, "answer", True) is not None:
                continue
            pos = start.copy()
            pos.push(move)
            q = pos.pending
            assert q is not None
            ans = pos.answers()
            assert ans is not None
            owners = pos.analysis().owners[q.card]
            assert (ans["yes"], ans["no"]) == effects.legal_answers(owners, q.target)
            checked += 1
    assert checked

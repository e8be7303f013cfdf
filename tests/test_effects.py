"""What each move does, checked against brute force: the rules of quaternity_cp.quartets.effects, as each fast
layout applies them, against Position move by move, and Quantum Go Fish's moves against its referee.

The classic game state is a plain simulation with its own data layout; it takes
the hand-over and the public view from :mod:`quaternity_cp.quartets.effects`, as
:class:`~quaternity_cp.quartets.position.Position` does. Here both follow the same games.
Quantum Go Fish (:class:`quaternity_cp.gofish.game.GoFish`) is followed along
every play of small games by the brute-force referee of tests/gofish_reference.py:
the consistent tables, the turns, the ends, the legal questions and answers.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from quaternity_cp.quartets import effects
from quaternity_cp.quartets.constraints import Constraints
from quaternity_cp.quartets.effects import Holds
from quaternity_cp.quartets.game import Declaration, Game
from quaternity_cp.quartets.rules import Rules
from quaternity_cp.quartets.position import Position
from quaternity_cp.quartets.state import ClassicState, classic_public_constraints, classic_rules

from reference import Reference, describe

HANDOVERS = ("seat", "clockwise", "fewest", "fewest-cards", "most-cards")
COMBOS = list(itertools.product(HANDOVERS, ("asked", "next"), ("skip", "ask"), ("shared", "all-lose", "first", "random")))


@pytest.mark.parametrize("handover,after_no,empty_hand,tie", COMBOS)
def test_classic_state_follows_the_position_move_by_move(handover, after_no, empty_hand, tie):
    overrides = {"handover": handover, "after_no": after_no, "empty_hand": empty_hand, "tie": tie}
    rules, options = classic_rules(**overrides)
    for seed, size in enumerate([(3, 3, 2), (4, 4, 2), (3, 4, 3)]):
        game = Game(*size)
        state = ClassicState(game, seed, rules=rules, options=options, overrides=overrides)
        pos = Position(game, rules, first=state.first)
        rng = random.Random(seed)
        done = 0
        while True:
            for move in state.moves[done:]:
                pos.push(move)
            done = len(state.moves)
            assert pos.scores == tuple(state.points)
            assert [pos.claimed.get(s, -1) for s in range(game.sets)] == state.claimed
            assert list(pos.hands) == state.hands
            assert pos.over == state.is_terminal()
            if state.is_terminal():
                break
            assert state.current_player() in pos.turn, (state.moves, pos.turn)
            if len(pos.turn) > 1:
                assert state.chance[-1].kind == "handover" and state.chance[-1].outcome == state.current_player()
            state.apply_action(rng.choice(state.legal_actions()))
        if state.unfinished:
            continue
        pos.tie_break = state.tie_break
        assert pos.winners() == state.winners()


def test_a_free_hand_over_choice_is_a_recorded_chance_outcome_that_undo_keeps():
    # fewest: ties among seats with equal scores and hands are drawn, and the draw is recorded
    seen = 0
    for seed in range(60):
        state = ClassicState(Game(4, 4, 2), seed, overrides={"handover": "fewest", "empty_hand": "skip"})
        rng = random.Random(seed)
        while not state.is_terminal():
            before = len(state.chance)
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            if len(state.chance) > before and state.chance[-1].kind == "handover":
                seen += 1
                drawn = state.chance[-1]
                state.undo()
                assert len(state.chance) == before
                state.apply_action(action)
                assert state.chance[-1] == drawn
    assert seen


# -- quaternity_cp.quartets.effects against the brute-force reference (tests/reference.py) ----------------------
def deals_of(c: Constraints) -> set[tuple[int, ...]]:
    """Every deal (owner of each card in play, in card order) that the constraint state allows, by enumeration."""
    cards = c.cards_in_play
    S = c.set_size
    out: set[tuple[int, ...]] = set()

    def place(i: int, left: list[int], row: list[int]) -> None:
        if i == len(cards):
            if any(left):
                return
            for p in range(c.players):
                for s in c.sets_in_play:
                    n = sum(1 for k, card in enumerate(cards) if card // S == s and row[k] == p)
                    if not c.lo[p][s] <= n <= c.hi[p][s]:
                        return
            out.add(tuple(row))
            return
        for p in range(c.players):
            if left[p] and c.domains[cards[i]] >> p & 1:
                left[p] -= 1
                row.append(p)
                place(i + 1, left, row)
                row.pop()
                left[p] += 1

    place(0, list(c.hands), [])
    return out


def reference_deals(ref: Reference, state) -> set[tuple[int, ...]]:
    """The reference's consistent deals, as owners of the cards in play."""
    cards = ref.cards_in_play(state)
    return {tuple(int(row[card]) for card in cards) for row in state.deals}


GAME_SIZES = [(2, 2, 2), (2, 3, 2), (3, 3, 2), (2, 2, 3), (3, 2, 3), (4, 2, 2)]


#: the games and rules drawn (the same every run: derandomized, so the check below that a bug is caught is too)
EFFECTS_GIVEN = dict(data=st.data(), size=st.sampled_from(GAME_SIZES), handover=st.sampled_from(HANDOVERS),
                     after_no=st.sampled_from(("asked", "next")), empty_hand=st.sampled_from(("skip", "ask")),
                     silence=st.booleans(), dealt=st.booleans(), auto_claim=st.booleans(),
                     initial_quartets=st.booleans())
EFFECTS_SETTINGS: dict[str, Any] = dict(max_examples=150, deadline=None, derandomize=True,
                                        suppress_health_check=[HealthCheck.too_slow])


@settings(**EFFECTS_SETTINGS)
@given(**EFFECTS_GIVEN)
def test_effects_follow_the_brute_force_reference(data, size, handover, after_no, empty_hand, silence, dealt,
                                                  auto_claim, initial_quartets):
    """What a question, an answer and a claim do to the consistent deals (:mod:`quaternity_cp.quartets.effects` on
    constraint states, enumerated) and who moves next (:func:`effects.next_order`, :func:`effects.hand_over`)
    are what the reference finds by applying the rules literally to every deal."""
    game = Game(*size)
    rules = Rules(handover=handover, after_no=after_no, empty_hand=empty_hand, silence=silence, dealt=dealt,
                  auto_claim=auto_claim and not dealt, initial_quartets=initial_quartets)
    ref = Reference(game, rules)
    try:
        state = ref.start()
    except ValueError:  # no initial deal under these rules (no whole set in a hand cannot be dealt)
        return
    c = Constraints.initial(game.players, game.sets, game.set_size, initial_quartets)
    assert deals_of(c) == reference_deals(ref, state)
    asked: Constraints | None = None  # after the open question
    played: list = []
    for index in range(1, 13):
        moves = ref.legal_moves(state)
        if not moves:
            break
        move = data.draw(st.sampled_from(moves), label=f"move {index}")
        after, kind = ref.play(state, move, index)
        played.append(move)
        assert kind is None, (move, kind)
        if isinstance(move, Declaration):  # a put-down or a declaration: the seat holds the whole set, claims it
            whole = [Holds(card, move.player) for card in range(move.set * game.set_size,
                                                                (move.set + 1) * game.set_size)]
            c = effects.claim(effects.apply_facts(c, whole), move.player, move.set)
        elif move.answer is None:  # a question: what asking tells (with dealt cards, after the put-downs due)
            asked = effects.question(c, move.asker, move.card, silence=silence)
            if dealt:
                asked = effects.settle(asked)
            told = effects.asked_facts(c, move.asker, move.card, silence=silence, dealt=dealt)
            assert deals_of(effects.apply_facts(c, told)) == deals_of(asked), describe(game, rules, played)
            c = asked
        else:  # the answer to the open question
            assert asked is not None and state.pending is not None
            x, y, card, yes = move.asker, move.target, move.card, move.answer
            c = effects.answer(c, x, y, card, yes)
            for s, p in enumerate(after.claimed):  # the reference's automatic claims, by the effects' claim
                if p >= 0 and state.claimed[s] < 0:
                    c = effects.claim(c, p, s)
            if not after.over:
                order = effects.next_order(yes, x, y, game.players, after_no)
                turn = effects.hand_over(order, hands=c.hands, scores=after.scores, empty_hand=empty_hand,
                                         handover=handover)
                assert sorted(turn) == sorted(after.turn), describe(game, rules, played)
        assert c.hands == ref.hands(after), describe(game, rules, played)
        assert deals_of(c) == reference_deals(ref, after), describe(game, rules, played)
        state = after


def test_a_wrong_hand_over_after_no_fails_the_reference_check(monkeypatch):
    """The check above sees a wrong turn: after a no, the turn to the asker's left neighbour instead of
    the asked player (a hand-over bug injected)."""
    right = effects.next_order

    def wrong(yes, asker, target, players, after_no):
        return right(yes, asker, target, players, "next" if after_no == "asked" else "asked")

    monkeypatch.setattr(effects, "next_order", wrong)
    # the same check, the same examples, stopped at the first failure (no shrinking, no example database)
    check = settings(**EFFECTS_SETTINGS, phases=[Phase.explicit, Phase.generate], database=None)(
        given(**EFFECTS_GIVEN)(test_effects_follow_the_brute_force_reference.hypothesis.inner_test))
    with pytest.raises(Exception) as failure:
        check()
    found = failure.value.exceptions if isinstance(failure.value, BaseExceptionGroup) else (failure.value,)
    assert all(isinstance(err, AssertionError) for err in found), failure.value  # the check failed, nothing else


def test_the_public_classic_view_is_the_record_replayed_with_the_same_rules():
    from quaternity_cp.quartets.knowledge import public_constraints

    game = Game(3, 3, 3)
    moves = ("0>1:A1+", "0>2:A2+", "0!A", "0>1:B1-", "1>2:C2+")
    pos = Position(game, "classic", first=0)
    for k, text in enumerate(moves, 1):
        pos.push_str(text)
        mine = classic_public_constraints(game, tuple(pos.moves))
        assert mine == public_constraints(pos), moves[:k]
    assert mine.in_play == (False, True, True) and mine.hands == (2, 3, 1)


# -- Quantum Go Fish: what each move does, against the brute-force referee (tests/gofish_reference.py) ---------
# The core (quaternity_cp.gofish.game.GoFish) keeps bounds on the initial table and a shift; the referee keeps the
# list of every table still consistent. After every question and every answer of every play (to a depth) the two
# must agree on the tables consistent now (enumerated here from the core's own facts), the hands, the open
# question, whose turn it is, how the game ended, the legal questions and the legal answers (also read directly
# off the enumerated tables: a yes needs a table where the asked player holds the suit, a no one where it holds
# none); an answer they say is illegal is refused.
FISH_RULES = [  # players, suits, suit size, rules, plies of every play from the start (the small games: all)
    (2, 2, 2, {}, 12), (2, 2, 3, {}, 12), (2, 3, 2, {}, 12), (3, 3, 2, {}, 6), (3, 2, 3, {}, 8), (4, 2, 2, {}, 12),
    (2, 2, 3, {"ask_void": "forbid"}, 12), (2, 4, 2, {"ask_void": "forbid"}, 12),
    (2, 2, 4, {"after_yes": "again"}, 12), (3, 3, 2, {"four": "some"}, 6), (2, 3, 2, {"four": "off"}, 12),
    (3, 3, 2, {"win_after_ask": True, "priority": "four-first"}, 6), (2, 2, 3, {"no_initial_four": True}, 12),
    (2, 2, 4, {"repetition": "draw", "first": 1}, 12), (3, 3, 2, {"invalid": "lose"}, 6),
]


def fish_tables(game) -> set[tuple[tuple[int, ...], ...]]:
    """Every table of counts now (player x suit) that the core's facts allow, by enumeration: rows sum to the
    hands, columns to the suit size, each cell within the core's bounds on it (GoFish.tables)."""
    t = game.tables()
    P, K = len(t.hands), len(t.suit_sizes)
    out: set[tuple[tuple[int, ...], ...]] = set()

    def rows(p: int, need: int, s: int, cols: list[int]):
        if s == K:
            if need == 0:
                yield ()
            return
        for v in range(t.low[p][s], min(t.high[p][s], need, cols[s]) + 1):
            for rest in rows(p, need - v, s + 1, cols):
                yield (v,) + rest

    def deal(p: int, cols: list[int], acc: list[tuple[int, ...]]) -> None:
        if p == P:
            if not any(cols):
                out.add(tuple(acc))
            return
        for row in rows(p, t.hands[p], 0, cols):
            deal(p + 1, [c - v for c, v in zip(cols, row)], acc + [row])

    deal(0, list(t.suit_sizes), [])
    return out


def fish_answers(tables, asked: int, suit: int) -> list[bool]:
    """The answers the open question may get, read off the consistent tables (after the question)."""
    return [yes for yes in (True, False) if any((t[asked][suit] >= 1) == yes for t in tables)]


def fish_compare(game, ref, where) -> set[tuple[tuple[int, ...], ...]]:
    tables = fish_tables(game)
    assert tables == set(ref.worlds), where
    assert game.hands() == tuple(ref.hands), where
    assert game.over == ref.over, where
    if ref.over:
        out = game.outcome
        assert (out.winner, out.reason, out.loser) == (ref.winner, ref.reason, ref.loser), where
        assert game.legal_moves() == [] and game.legal_answers() == [], where
        return tables
    pending = None if game.pending is None else (game.pending.asker, game.pending.asked, game.pending.suit)
    assert pending == ref.pending and game.turn == ref.turn, where
    if pending is None:
        questions = sorted(ref.legal_questions())
        assert sorted((q.asker, q.asked, q.suit) for q in game.legal_questions()) == questions, where
        assert game.legal_answers() == [], where
        assert sorted((m.asker, m.asked, m.suit, m.answer) for m in game.legal_moves()) == sorted(
            (a, b, s, yes) for a, b, s in questions for yes in ref.legal_answers(a, b, s)), where
    else:
        a, b, s = pending
        assert game.legal_answers() == ref.legal_answers(a, b, s) == fish_answers(tables, b, s), where
    return tables


def fish_plays(P: int, K: int, S: int, rules: dict, depth: int, seen: dict[str, int]) -> None:
    """Every play of up to ``depth`` plies from the start, the core and the referee side by side; ``seen``
    counts the answer sets met and the ends of games."""
    import copy

    from gofish_reference import Reference as FishReference

    from quaternity_cp.gofish.game import GoFish, Illegal, IllegalMove, Move

    def walk(game, ref, plies: int) -> None:
        where = (P, K, S, rules, game.moves)
        fish_compare(game, ref, where)
        if ref.over:
            seen[ref.reason] += 1
        if ref.over or plies == depth:
            return
        if ref.pending is None:
            for a, b, s in ref.legal_questions():
                g2, r2 = game.copy(), copy.deepcopy(ref)
                g2.push(Move(a, b, s))
                assert r2.play(a, b, s, None) is None
                walk(g2, r2, plies + 1)
            return
        a, b, s = ref.pending
        legal = game.legal_answers()
        seen[" ".join("yes" if x else "no" for x in legal)] += 1
        for yes in (True, False):
            g2, r2 = game.copy(), copy.deepcopy(ref)
            if yes in legal:
                g2.push(Move(a, b, s, yes))
                assert r2.play(a, b, s, yes) is None
                walk(g2, r2, plies + 1)
            elif rules.get("invalid", "reject") == "reject":  # an impossible answer is refused, the game unchanged
                with pytest.raises(IllegalMove) as refused:
                    g2.push(Move(a, b, s, yes))
                assert refused.value.reason is (Illegal.IMPOSSIBLE_YES if yes else Illegal.IMPOSSIBLE_NO), where
                assert r2.play(a, b, s, yes) == ("impossible yes" if yes else "impossible no")
                assert g2.moves == game.moves and fish_tables(g2) == fish_tables(game), where
            else:  # under invalid = lose it ends the game, the asked player the loser
                g2.push(Move(a, b, s, yes))
                assert r2.play(a, b, s, yes) is None
                fish_compare(g2, r2, where + (yes,))
                assert g2.outcome.loser == b and g2.outcome.winner is None, where
                seen["lost"] += 1

    game = GoFish(P, K, S, rules)
    walk(game, FishReference(P, K, S, rules), 0)


def test_gofish_moves_follow_the_brute_force_referee():
    """Go Fish as its referee plays it: each question and answer narrows the consistent tables as the rules
    say, and the legal answers are exactly those some consistent table allows (yes only, no only, or both, all
    reached), under every option."""
    from collections import Counter

    seen: Counter[str] = Counter()
    for P, K, S, rules, depth in FISH_RULES:
        fish_plays(P, K, S, rules, depth, seen)
    assert all(seen[k] for k in ("yes", "no", "yes no", "lost", "determined", "four", "draw")), seen


def test_legal_answers_always_allowing_no_fails_the_referee_check(monkeypatch):
    """The check above sees legal answers that let through a no no consistent table allows (a bug injected:
    GoFish.legal_answers always offers "no")."""
    from quaternity_cp.gofish.game import GoFish

    right = GoFish.legal_answers

    def wrong(self):
        answers = right(self)
        return answers + [False] if answers and False not in answers else answers

    monkeypatch.setattr(GoFish, "legal_answers", wrong)
    with pytest.raises(AssertionError):
        test_gofish_moves_follow_the_brute_force_referee()


@pytest.mark.parametrize("moves,question,answers", [
    ([], "0>1:A?", [True, False]),
    (["0>2:A-"], "1>0:A?", [True]),  # seat 0 showed an A when it asked: it must give one
    (["0>2:A-"], "1>2:A?", [False]),  # seat 2 said it holds none: it cannot give one
])
def test_gofish_forced_answers_by_hand(moves, question, answers):
    """3 players, 3 suits of 2: the answers a question may get, by the core, the referee and the tables; the
    other answer is refused and changes nothing."""
    from gofish_reference import Reference as FishReference

    from quaternity_cp.gofish.game import GoFish, Illegal, IllegalMove

    game, ref = GoFish(3, 3, 2), FishReference(3, 3, 2)
    for text in [*moves, question]:
        move = game.push(text)
        assert ref.play(move.asker, move.asked, move.suit, move.answer) is None
    q = game.pending
    assert game.legal_answers() == ref.legal_answers(q.asker, q.asked, q.suit) == answers
    assert fish_answers(fish_tables(game), q.asked, q.suit) == answers and fish_tables(game) == set(ref.worlds)
    for yes in {True, False} - set(answers):
        with pytest.raises(IllegalMove) as refused:
            game.push(question[:-1] + ("+" if yes else "-"))
        assert refused.value.reason is (Illegal.IMPOSSIBLE_YES if yes else Illegal.IMPOSSIBLE_NO)
        assert game.pending == q and game.moves[-1] == question

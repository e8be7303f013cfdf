"""Classic quartets against the brute-force reference: every view, honesty, put-downs.

Games are played truthfully from a random real deal (a row of the reference's
deals, tracked here card by card, independently of quaternity_cp.quartets.classic):
put-downs as soon as they are due, random questions the asker's hand allows,
true answers. After every move Position and the reference must agree (turn,
claims, owners...); at every decision point the public view and the private
view of every seat (knowledge.py) must agree with the reference's explicit
deals: possible owners, forced cards, possible and forced quartets, the exact
number of deals and every exact probability. Records with an injected lie
(a false answer, a false question, a put-down missing or false) must be
stopped by replay at the move the reference (started from the real deal
alone) finds illegal.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import Reference, deal_facts, describe, initial_deals, position_view, private_deals, step_view
from strategies import RULE_OPTIONS

from quaternity_cp import Game, Position, Rules
from quaternity_cp.quartets import knowledge
from quaternity_cp.quartets.formats import record_from_json, record_to_json
from quaternity_cp.quartets.game import Declaration, Question
from quaternity_cp.quartets.replay import replay

GAMES = [(3, 3, 2), (2, 2, 2), (3, 2, 3), (2, 3, 2), (4, 2, 2), (2, 2, 3), (3, 3, 3), (4, 4, 2)]

# every option but those that do not combine with dealt cards
OPTIONS = {name: values for name, values in RULE_OPTIONS.items() if name not in ("auto_claim", "declare", "dealt")}

SETTINGS = settings(max_examples=120, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def classic_rules(draw):
    """Dealt cards with every other option drawn (auto_claim and declare do not combine with dealt)."""
    options = {name: draw(st.sampled_from(values)) for name, values in OPTIONS.items()}
    return Rules.preset("classic", **options)


# -- an independent truthful player --------------------------------------------------------
class RealCards:
    """The real owners, followed literally (no quaternity_cp code)."""

    def __init__(self, game: Game, row):
        self.game = game
        self.owner = [int(p) for p in row]
        self.claimed = [-1] * game.sets
        self.opening = True
        self.window: tuple[int, int] | None = None  # (asker, set)

    def in_play(self) -> list[int]:
        S = self.game.set_size
        return [c for c in range(self.game.cards) if self.claimed[c // S] < 0]

    def hand(self, p: int) -> list[int]:
        return [c for c in self.in_play() if self.owner[c] == p]

    def complete(self) -> list[tuple[int, int]]:
        S = self.game.set_size
        out = []
        for s in range(self.game.sets):
            owners = {self.owner[c] for c in range(s * S, (s + 1) * S)}
            if self.claimed[s] < 0 and len(owners) == 1:
                out.append((owners.pop(), s))
        return out

    def due(self) -> list[Declaration]:
        if self.opening:
            return [Declaration(p, s) for p, s in self.complete()]
        if self.window is not None:
            return [Declaration(p, s) for p, s in self.complete() if (p, s) == self.window]
        return []

    def apply(self, move) -> None:
        if isinstance(move, Declaration):
            self.claimed[move.set] = move.player
            self.window = None
            return
        self.opening, self.window = False, None
        if move.answer and self.owner[move.card] == move.target:
            self.owner[move.card] = move.asker
            self.window = (move.asker, move.card // self.game.set_size)


def truthful_questions(ref: Reference, rs, real: RealCards, x: int) -> list[Question]:
    game = ref.game
    S = game.set_size
    hand = real.hand(x)
    sets = {c // S for c in hand}
    hands = ref.hands(rs)
    out = []
    for c in real.in_play():
        if hand and (c // S not in sets or real.owner[c] == x):
            continue
        for y in range(game.players):
            if y != x and hands[y] > 0:
                out.append(Question(x, y, c, real.owner[c] == y))
    return out


def facts_of(view: knowledge.Knowledge, cards, sets) -> dict:
    def nonzero(row):
        return {p: v for p, v in row.items() if v}

    probs = view.card_probabilities()
    whole = view.quartet_probabilities()
    return {
        "deals": view.deals(),
        "owners": {c: view.owners(c) for c in cards},
        "forced": {c: view.knows(c) for c in cards},
        "cards": {c: nonzero(probs.get(c, {})) for c in cards},
        "quartets": {s: view.possible_quartets(s) for s in sets},
        "whole": {s: nonzero(whole.get(s, {})) for s in sets},
        "forced_quartets": view.forced_quartets(),
    }


def reference_facts(ref: Reference, rs, deals) -> dict:
    f = deal_facts(ref, rs, deals)
    forced = {c: (owners[0] if len(owners) == 1 else None) for c, owners in f["owners"].items()}
    S = ref.S
    fq = {}
    for s, holders in f["quartets"].items():
        if len(deals) and all(forced[c] is not None and forced[c] == forced[s * S] for c in range(s * S, (s + 1) * S)):
            fq[s] = forced[s * S]
    return {"deals": f["deals"], "owners": f["owners"], "forced": forced, "cards": f["cards"],
            "quartets": f["quartets"], "whole": f["whole"], "forced_quartets": fq}


def compare_views(pos: Position, ref: Reference, rs, real: RealCards, settled: bool, where: str) -> None:
    cards = ref.cards_in_play(rs)
    sets = ref.unclaimed(rs)
    public = knowledge.public_knowledge(pos, settled=settled)
    base = ref.settled(rs) if settled else rs
    assert facts_of(public, cards, sets) == reference_facts(ref, rs, base.deals), where + " (public)"
    for seat in range(ref.P):
        hand = real.hand(seat)
        mine = knowledge.private_knowledge(pos, seat, hand, settled=settled)
        deals = private_deals(ref, rs, seat, hand, settled=settled)
        assert len(deals) > 0, where  # the real deal is always among them
        assert facts_of(mine, cards, sets) == reference_facts(ref, rs, deals), where + f" (seat {seat})"


def play_truthfully(seed: int, game: Game, rules: Rules, *, views: bool, max_moves: int = 40):
    """A truthful game checked move by move; returns (real deal row, first, moves, reference, final state)."""
    rng = random.Random(seed)
    rows = initial_deals(game.players, game.sets, game.set_size, rules.initial_quartets)
    if len(rows) == 0:
        return None
    row = rows[rng.randrange(len(rows))]
    first = rng.choice([None, rng.randrange(game.players)])
    ref = Reference(game, rules, first=first)
    rs = ref.start()
    pos = Position(game, rules, first=first)
    real = RealCards(game, row)
    moves: list = []
    assert position_view(pos) == step_view(ref.view(rs, 0, None, None))
    while not rs.over and len(moves) < max_moves:
        where = describe(game, rules, moves) + f", first={first}, deal={list(row)}"
        due = real.due()
        move: Question | Declaration
        if due:
            move = due[0]
            if views and rng.random() < 0.5:
                compare_views(pos, ref, rs, real, settled=False, where=where)
        else:
            if views:
                compare_views(pos, ref, rs, real, settled=True, where=where)
            x = rng.choice(rs.turn)
            options = truthful_questions(ref, rs, real, x)
            legal = {(q.asker, q.target, q.card) for c in ref.cards_in_play(rs) for q in
                     [Question(x, y, c) for y in ref.question_targets(rs, x, c)]}
            if rules.forced_no_question:
                # a truthful question is always publicly legal
                assert all((q.asker, q.target, q.card) in legal for q in options), where
            options = [q for q in options if (q.asker, q.target, q.card) in legal]
            assert options, where
            move = rng.choice(options)
        i = len(moves) + 1
        moves.append(move)
        where = describe(game, rules, moves) + f", first={first}, deal={list(row)}"
        pos.push(move)
        rs, kind = ref.play(rs, move, i)
        assert kind is None, where
        assert position_view(pos) == step_view(ref.view(rs, i, move, None)), where
        real.apply(move)
    if views and not real.due() and not rs.over:
        compare_views(pos, ref, rs, real, settled=True, where=describe(game, rules, moves))
    return row, first, moves, ref, rs


@SETTINGS
@given(game=st.sampled_from(GAMES), rules=classic_rules(), seed=st.integers(0, 2**32 - 1))
def test_views_agree_with_reference(game, rules, seed):
    """Public and private views of every seat, at every decision point, against explicit deals."""
    play_truthfully(seed, Game(*game), rules, views=True)


@settings(SETTINGS, max_examples=30)
@given(game=st.sampled_from(GAMES[:4]), rules=classic_rules(), seed=st.integers(0, 2**32 - 1))
def test_truthful_games_agree_with_reference_cpsat(game, rules, seed):
    """The same games checked with the CP-SAT engine behind Position (no views)."""
    rng = random.Random(seed)
    g = Game(*game)
    rows = initial_deals(g.players, g.sets, g.set_size, rules.initial_quartets)
    if not len(rows):
        return
    out = play_truthfully(seed, g, rules, views=False)
    row, first, moves, ref, rs = out
    pos = Position(g, rules, engine="cpsat", first=first)
    for i, move in enumerate(moves, 1):
        pos.push(move)
    assert position_view(pos) == step_view(ref.view(rs, len(moves), moves[-1] if moves else None, None))
    assert set(pos.legal_moves()) == set(ref.legal_moves(rs)), describe(g, rules, moves)
    del rng


# -- honesty -------------------------------------------------------------------------------------
def inject(rng: random.Random, game: Game, moves: list, row) -> tuple[list, str]:
    """The record with one dishonest change: a flipped answer, a false question, a put-down
    dropped or a false put-down. Returns (moves, what)."""
    moves = list(moves)
    S = game.set_size
    kinds = ["flip", "question", "drop", "false"]
    rng.shuffle(kinds)
    for what in kinds:
        if what == "flip":
            idx = [i for i, m in enumerate(moves) if isinstance(m, Question)]
            if idx:
                i = rng.choice(idx)
                m = moves[i]
                moves[i] = m.answered(not m.answer)
                return moves[: i + 1 + rng.randrange(3)], what
        elif what == "question":
            idx = [i for i, m in enumerate(moves) if isinstance(m, Question)]
            if idx:
                i = rng.choice(idx)
                m = moves[i]
                # ask for a card the asker held then, or of a set it held none of: replay the real cards
                real = RealCards(game, row)
                for prior in moves[:i]:
                    real.apply(prior)
                hand = real.hand(m.asker)
                sets = {c // S for c in hand}
                bad = [c for c in real.in_play() if c in hand or c // S not in sets]
                if hand and bad:
                    c = rng.choice(bad)
                    return moves[:i] + [Question(m.asker, m.target, c, real.owner[c] == m.target)], what
        elif what == "drop":
            idx = [i for i, m in enumerate(moves) if isinstance(m, Declaration)]
            if idx:
                i = rng.choice(idx)
                return moves[:i] + moves[i + 1:], what
        else:
            i = rng.randrange(len(moves) + 1)
            real = RealCards(game, row)
            for prior in moves[:i]:
                real.apply(prior)
            for p in range(game.players):
                for s in range(game.sets):
                    if real.claimed[s] < 0 and any(real.owner[c] != p for c in range(s * S, (s + 1) * S)):
                        return moves[:i] + [Declaration(p, s)] + moves[i:], what
    return moves, "none"


def contradiction(ref: Reference, rs, real, move) -> str | None:
    """The kind of the reference filter that drops the real deal ``real`` at ``move``, or None."""
    import numpy as np

    def present(state) -> bool:
        return bool((state.deals == real).all(axis=1).any())

    if not present(rs) or rs.pending is not None:
        return None
    if isinstance(move, Declaration):
        return None if bool(ref.whole(real.reshape(1, -1), move.player, move.set)[0]) else "claim"
    settled = ref.settled(rs)
    if not present(settled):
        return "claim"
    if rs.claimed[move.card // ref.S] >= 0:
        return None
    keep = ref.asked(settled, move.asker, move.card)
    rows = settled.deals[keep]
    if not bool((rows == real).all(axis=1).any()):
        return "question"
    if move.answer is not None and move.answer != (int(real[move.card]) == move.target):
        return "answer"
    del np
    return None


@settings(SETTINGS, max_examples=200)
@given(game=st.sampled_from(GAMES), rules=classic_rules(), seed=st.integers(0, 2**32 - 1))
def test_honesty_check_finds_the_injected_lie(game, rules, seed):
    g = Game(*game)
    out = play_truthfully(seed, g, rules, views=False)
    if out is None:
        return
    row, first, moves, _, _ = out
    deal = {p: [c for c in range(g.cards) if row[c] == p] for p in range(g.players)}
    honest = replay(record_from_json(record_to_json(g, rules, moves, deal=deal, first=first)))
    assert honest.error is None and honest.valid, describe(g, rules, moves)
    rng = random.Random(seed ^ 0x5EED)
    bad, what = inject(rng, g, moves, row)
    # the reference, following the real deal: the first move that is publicly illegal or that
    # the real deal contradicts (the filter that drops it names the kind)
    ref = Reference(g, rules, first=first)
    rs = ref.start()
    real = row.copy()
    expected = None
    for i, move in enumerate(bad, 1):
        lie = contradiction(ref, rs, real, move)
        rs, kind = ref.play(rs, move, i)
        if kind is not None or lie is not None:
            expected = (i, {kind, lie} - {None})
            break
        if isinstance(move, Question) and move.answer:
            real[move.card] = move.asker
    result = replay(record_from_json(record_to_json(g, rules, bad, deal=deal, first=first)))
    got = None if result.error is None else (result.error_index, result.error.kind)
    where = f"{what}: " + describe(g, rules, bad) + f", first={first}, deal={deal}"
    if expected is None or got is None:
        assert got == expected, where
    else:
        assert got[0] == expected[0] and got[1] in expected[1], where
    if got is not None and result.error.kind == "answer":
        assert result.error.player == bad[got[0] - 1].target and result.error.card == bad[got[0] - 1].card


# -- the worked behaviour of the options ---------------------------------------------------------------
def play(rules, moves, deal=None, first=0, game=(3, 3, 2), tie_break=None):
    g = Game(*game)
    data = {"players": g.players, "sets": g.sets, "set_size": g.set_size, "rules": rules, "first": first,
            "moves": moves}
    if deal is not None:
        data["deal"] = deal
    if tie_break is not None:
        data["tie_break"] = tie_break
    return replay(record_from_json(data))


DEAL = {"0": ["A0", "B0"], "1": ["A1", "C0"], "2": ["B1", "C1"]}


def test_empty_hand_ask_keeps_the_turn_of_a_player_without_cards():
    moves = ["0>1:A1+", "0!A", "0>2:B1+", "0!B"]
    ask = play("classic", moves + ["0>1:C0+", "0>2:C1+", "0!C"], DEAL)
    assert ask.valid and ask.error is None
    assert ask.position.scores == (3, 0, 0) and ask.position.winners() == [0]
    # the question of the empty-handed seat 0 told nothing about it: nothing to learn, it holds nothing
    skip = play({"preset": "classic", "empty_hand": "skip"}, moves, DEAL)
    assert skip.valid and skip.position.hands == (0, 1, 1)
    assert skip.position.turn == (2,)  # the giver, as after a yes that emptied the asker
    refused = play({"preset": "classic", "empty_hand": "skip"}, moves + ["0>1:C0+"], DEAL)
    assert refused.error.reason.name == "NOT_ON_TURN"


def test_empty_asker_learns_nothing():
    pos = Position(Game(3, 3, 2), "classic", first=0)
    for m in ["0>1:A1+", "0!A", "0>2:B1+", "0!B"]:
        pos.push_str(m)
    before = pos.settled_constraints()
    assert pos.question_constraints(0, 4) == pos.constraints
    pos.push_str("0>1:C0?")
    assert pos.settled_constraints() == before


def test_after_no_asked_or_next():
    g = (3, 3, 2)
    assert play("classic", ["1>0:C1-"], first=1, game=g).position.turn == (0,)
    assert play({"preset": "classic", "after_no": "next"}, ["1>0:C1-"], first=1, game=g).position.turn == (2,)
    # next, from seat 2: around to seat 0
    assert play({"preset": "classic", "after_no": "next"}, ["2>1:A1-"], first=2, game=g).position.turn == (0,)


def test_first_player_recorded_or_free():
    assert play("classic", [], first=2).position.turn == (2,)
    free = replay(record_from_json({"players": 3, "sets": 3, "set_size": 2, "rules": "classic", "moves": ["1>0:A0-"]}))
    assert free.valid and free.position.turn == (0,)
    assert Position(Game(3, 3, 2), "classic").turn == (0, 1, 2)


def test_tie_random_winner_is_the_recorded_draw():
    deal = {"0": ["A0", "A1"], "1": ["B0", "B1"]}
    tied = play("classic", ["0!A", "1!B"], deal, game=(2, 2, 2))
    assert tied.position.over and tied.position.tied() == [0, 1]
    assert tied.position.winners() == [0, 1]  # not drawn yet: each wins with chance 1/2
    drawn = play("classic", ["0!A", "1!B"], deal, game=(2, 2, 2), tie_break=1)
    assert drawn.position.winners() == [1]


def test_put_down_due_after_a_yes_is_public():
    """docs/rules.md: P3 N2 S3, after 0>1:A0+ 0>2:A2+ set A is forced to seat 0: it must be put down."""
    rec = play("classic", ["0>1:A0+", "0>2:A2+", "0>1:B0?"], game=(3, 2, 3))
    assert rec.error_index == 3 and rec.error.kind == "claim" and rec.error.reason.name == "PUT_DOWN_MISSING"
    ok = play("classic", ["0>1:A0+", "0>2:A2+", "0!A"], game=(3, 2, 3))
    assert ok.valid and ok.position.claimed == {0: 0}
    late = play("classic", ["0>1:A0+", "0>2:A2-", "0!A"], game=(3, 2, 3))
    assert late.error.kind == "claim" and late.error.reason.name == "PUT_DOWN_NOT_DUE"


def test_dealt_keeps_every_unclaimed_set_split_once_settled():
    pos = Position(Game(3, 6, 4), "classic", first=0)
    pos.push_str("0>1:A0-")
    c = pos.constraints
    assert all(c.hi[p][s] <= 3 for p in range(3) for s in range(6))
    assert not any(pos.analysis().quartets)


def test_nonsense_combinations_are_refused():
    from quaternity_cp.errors import RulesError

    for options in ({"auto_claim": True}, {"declare": True}):
        with pytest.raises(RulesError, match="dealt"):
            Rules.preset("classic", **options)
    with pytest.raises(RulesError, match="empty_hand"):
        Rules.preset("classic", empty_hand="pass")
    with pytest.raises(RulesError, match="after_no"):
        Rules.preset("quaternity", after_no="left")
    # every new option on its own combines with the Quaternity presets
    for preset in ("quaternity", "blind", "pythagoras"):
        Rules.preset(preset, empty_hand="ask", after_no="next", tie="random")


# -- knowledge.py --------------------------------------------------------------------------------------
def test_private_constraints_fix_the_own_hand():
    pos = Position(Game(3, 3, 2), "classic", first=0)
    c = knowledge.public_constraints(pos)
    view = knowledge.private_constraints(c, 1, [0, 2])
    assert view.domains[0] == view.domains[2] == 0b010
    assert all(not view.domains[k] & 0b010 for k in (1, 3, 4, 5))
    assert view.lo[1] == view.hi[1] == (1, 1, 0)
    with pytest.raises(ValueError):
        knowledge.private_constraints(c, 1, [0])
    # a hand the public state rules out gives an infeasible view
    pos.push_str("0>1:A0-")
    assert not knowledge.private_knowledge(pos, 1, [0, 2]).feasible


def test_views_are_cached_values():
    pos = Position(Game(3, 6, 4), "classic", first=0)
    pos.push_str("0>1:A0-")
    a = knowledge.private_knowledge(pos, 0, [1, 2, 5, 6, 9, 10, 13, 17])
    b = knowledge.private_knowledge(pos, 0, [17, 13, 10, 9, 6, 5, 2, 1])
    assert a == b and a.card_probabilities() is b.card_probabilities()
    assert sum(a.probability(0, p) for p in range(3)) == Fraction(1)


# -- explanations under classic rules ---------------------------------------------------------------
@pytest.mark.parametrize("batch", range(3))
def test_classic_explanations_against_brute_force(batch):
    """Explanations (forced cards and quartets, illegal moves) of random classic records imply
    their fact on explicit deals with the moves' information (a question also tells that nobody
    held a complete set), none of their moves can be left out, and their numbers are true."""
    from test_explain import check_random_explanations, random_record

    shapes = [(3, 3, 2), (3, 2, 3), (2, 3, 2), (4, 2, 2)]

    def record(seed: int, rng: random.Random):
        P, N, S = shapes[seed % len(shapes)]
        return random_record(rng, P, N, S, "classic", rng.randint(2, 10), illegal=rng.random() < 0.5)

    assert check_random_explanations(range(batch * 15, batch * 15 + 15), record) > 20


def test_first_player_under_every_preset():
    for preset in ("quaternity", "pythagoras", "blind"):
        assert Position(Game(3, 3, 2), preset, first=2).turn == (2,)
        rec = replay(record_from_json({"players": 3, "sets": 3, "set_size": 2, "rules": preset, "first": 2,
                                       "moves": ["2>0:A0-"]}))
        assert rec.error is None and rec.position.turn == (0,)


def test_classic_position_file_round_trip():
    """A classic record's position as a position file reads back (no complete set, settled) and stays valid."""
    import json as _json

    from quaternity_cp.quartets.formats import parse_record, position_to_json

    data = random_game_record((3, 6, 4), seed=4, moves=20)
    result = replay(record_from_json(data))
    again = parse_record(_json.dumps(position_to_json(result.position)))
    pos = again.position()
    assert pos.is_valid() and again.rules.dealt
    assert all(pos.constraints.hi[p][s] <= 3 for p in range(3) for s in pos.constraints.sets_in_play)
    mine, theirs = pos.constraints, knowledge.public_constraints(result.position)
    live = mine.sets_in_play
    assert live == theirs.sets_in_play and mine.hands == theirs.hands
    assert [mine.domains[c] for c in mine.cards_in_play] == [theirs.domains[c] for c in theirs.cards_in_play]
    for table in ("lo", "hi"):
        assert [[getattr(mine, table)[p][s] for s in live] for p in range(3)] == \
            [[getattr(theirs, table)[p][s] for s in live] for p in range(3)]


def random_game_record(size, seed, moves):
    from quaternity_cp.quartets.play import random_record

    data = random_record(Game(*size), "classic", random.Random(seed))
    data["moves"] = data["moves"][:moves]
    data.pop("tie_break", None)
    return data


@pytest.mark.slow
@settings(SETTINGS, max_examples=500)
@given(game=st.sampled_from(GAMES + [(3, 4, 3), (2, 4, 3), (2, 3, 4)]), rules=classic_rules(),
       seed=st.integers(0, 2**32 - 1))
def test_views_agree_with_reference_exhaustive(game, rules, seed):
    play_truthfully(seed, Game(*game), rules, views=True, max_moves=80)


# -- one simulation of the real cards: classic.Table, played by the classic game state -------------------
class _Cards:
    """The real cards by the letter of the rules, kept apart from quaternity_cp.quartets.classic: an owner per card
    (a claimed card stays with its owner), a claimer per set, the phase (at the deal; right after a yes)."""

    def __init__(self, g, hands):
        self.g = g
        self.owner = [-1] * g.cards
        for p, cards in hands.items():
            for c in cards:
                self.owner[c] = p
        self.claimed = [-1] * g.sets
        self.opening, self.window = True, None

    def state(self):
        return list(self.owner), list(self.claimed), self.opening, self.window

    def hand(self, p):
        return [c for c in range(self.g.cards) if self.owner[c] == p and self.claimed[c // self.g.set_size] < 0]

    def whole(self):
        return [(self.owner[c], s) for s in range(self.g.sets) if self.claimed[s] < 0
                for c in [s * self.g.set_size] if all(self.owner[d] == self.owner[c] for d in self.g.cards_of(s))]

    def due(self):
        if self.opening:
            return self.whole()
        if self.window is not None and (self.window) in self.whole():
            return [self.window]
        return []

    def apply(self, move):
        if isinstance(move, Declaration):
            self.claimed[move.set] = move.player
            if self.window is not None and self.window[1] == move.set:
                self.window = None
            return
        self.opening, self.window = False, None
        if move.answer and self.owner[move.card] == move.target:
            self.owner[move.card] = move.asker
            self.window = (move.asker, move.card // self.g.set_size)


def _agree(table, cards, g):
    assert (table.owner, table.claimed, table.opening, table.window) == cards.state()
    assert table.hands() == {p: cards.hand(p) for p in range(g.players)}
    assert table.sizes == [len(cards.hand(p)) for p in range(g.players)]
    assert table.count == [[sum(c // g.set_size == s for c in cards.hand(p)) for s in range(g.sets)]
                           for p in range(g.players)]
    assert [(d.player, d.set) for d in table.putdowns_due()] == cards.due()
    assert table.complete_sets() == cards.whole()


@settings(SETTINGS, max_examples=150)
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_the_table_follows_any_move_and_undoes_it(game, seed, data):
    """Any moves, true or not (a put-down without the set, a yes on a claimed card...): the table and the
    letter of the rules agree after every move, after every undo, and a copy goes its own way."""
    from quaternity_cp.quartets.classic import Table, deal

    g = Game(*game)
    hands = deal(g, random.Random(seed))
    table, cards = Table(g, hands), _Cards(g, hands)
    states = [cards.state()]
    moves = data.draw(st.lists(st.one_of(
        st.builds(Declaration, st.integers(0, g.players - 1), st.integers(0, g.sets - 1)),
        st.builds(Question, st.integers(0, g.players - 1), st.integers(0, g.players - 1),
                  st.integers(0, g.cards - 1), st.sampled_from([True, False, None]))), max_size=14))
    for move in moves:
        table.apply(move)
        cards.apply(move)
        _agree(table, cards, g)
        states.append(cards.state())
    copy = table.copy()
    for state in reversed(states[:-1]):
        table.undo()
        assert (table.owner, table.claimed, table.opening, table.window) == state
        assert table.sizes == [len(table.hand(p)) for p in range(g.players)]
    assert table.hands() == {p: sorted(hands[p]) for p in range(g.players)}
    _agree(copy, cards, g)


@settings(SETTINGS, max_examples=60)
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**32 - 1))
def test_the_classic_game_plays_on_a_table_that_the_honesty_check_accepts(game, seed):
    """The classic game state's cards are its table: every move of its record is honest on a table
    dealt alike, the state's hands are that table's, and its record replays with no error."""
    from quaternity_cp.quartets.classic import Table, honesty_error
    from quaternity_cp.quartets.state import ClassicState

    g = Game(*game)
    state = ClassicState(g, seed)
    rng = random.Random(seed)
    while not state.is_terminal() and len(state.moves) < 60:
        state.apply_action(rng.choice(state.legal_actions()))
    table = Table(g, state.deal)
    for move in state.moves:
        assert honesty_error(table, move) is None, describe(g, state.rules, state.moves)
        table.apply(move)
    assert table.hands() == {p: sorted(state.held[p]) for p in range(g.players)} == state.table.hands()
    assert table.claimed == state.claimed and table.sizes == state.hands
    result = replay(record_from_json(state.record()))
    assert result.error is None

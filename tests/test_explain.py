"""Explanations (quaternity_cp.quartets.explain) against brute-force enumeration of deals.

The oracle here shares nothing with the explainer but the value types and the
deal list of ``reference.initial_deals``. It replays a record on every initial
deal using only a chosen subset of the moves' information; what stays known
whatever moves are named is applied always: a card's movement (the giver held
it), and a claim (the claimer held the whole set). Then

- implication: every deal consistent with the named moves has the fact;
- minimality: dropping any one named move leaves a deal without the fact;
- truth of the counting argument: each number is recomputed on deals (hand
  sizes), each count and exclusion it uses holds in every deal of its source
  (the one move it names, the known things alone, the hypothesis alone, or the
  named moves), and the inequality it states is true.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from quaternity_cp import Game, Position
from quaternity_cp.quartets import effects, explain
from quaternity_cp.quartets.constraints import Constraints
from quaternity_cp.quartets.effects import AtLeast, AtMost, Holds, Lacks
from quaternity_cp.errors import Illegal
from quaternity_cp.quartets.explain import (AFTER, ASKED, BEFORE, Explainer, Gave, default_engine_name, move_information,
                                   move_told, told_words)
from quaternity_cp.quartets.formats import Record, parse_record
from quaternity_cp.quartets.game import Declaration, Question
from quaternity_cp.quartets.rules import Rules
from reference import Reference, initial_deals, reference_replay
from strategies import RULE_OPTIONS


# -- the oracle --------------------------------------------------------------------------
class Oracle:
    """Deals of one record, replayed with the information of chosen moves only."""

    def __init__(self, record: Record):
        assert record.start is None
        self.record = record
        g = record.game
        self.P, self.N, self.S = g.players, g.sets, g.set_size
        self.deals = initial_deals(self.P, self.N, self.S, record.rules.initial_quartets)
        self.claims = self._claims()

    def _claims(self) -> dict[int, list[tuple[int, int]]]:
        """The sets each move made claimed (public events), as the reference replay says
        (a declaration's own set is left out: the oracle applies it with the declaration)."""
        steps = reference_replay(self.record.game, self.record.rules, self.record.moves)
        out, before = {}, {}
        for i, step in enumerate(steps, 1):
            move = self.record.moves[i - 1]
            own = (move.set, move.player) if isinstance(move, Declaration) else None
            out[i] = [(s, p) for s, p in step.claimed.items() if s not in before and (s, p) != own]
            before = step.claimed
        return out

    def count(self, cur, p, s):
        return (cur[:, s * self.S:(s + 1) * self.S] == p).sum(axis=1)

    def whole(self, cur, p, s):
        return (cur[:, s * self.S:(s + 1) * self.S] == p).all(axis=1)

    def replay(self, named: set, upto: int, stage: str):
        """Current owners of the deals consistent with ``named`` moves, and the claimed sets."""
        cur, claimed = self.deals.copy(), set[int]()
        silence = self.record.rules.silence
        pending = None
        for i, move in enumerate(self.record.moves[:upto], 1):
            last = i == upto
            if last and stage == BEFORE:
                break
            use = i in named
            if isinstance(move, Question):
                x, y, c = move.asker, move.target, move.card
                s = c // self.S
                if pending != move.unanswered():
                    if use:
                        rules = self.record.rules
                        live = [k for k in range(self.N * self.S) if k // self.S not in claimed]
                        empty = len(cur) > 0 and not any(cur[0, k] == x for k in live)
                        if rules.empty_hand == "ask" and empty:
                            keep = cur[:, c] == cur[:, c]  # an empty asker tells nothing
                        else:
                            keep = (cur[:, c] != x) & (self.count(cur, x, s) >= 1)
                        if silence:
                            for t in range(self.N):
                                if t not in claimed:
                                    keep &= ~self.whole(cur, x, t)
                        if rules.dealt:  # classic: nobody held a complete unclaimed set
                            for t in range(self.N):
                                if t not in claimed:
                                    for p in range(self.P):
                                        keep &= ~self.whole(cur, p, t)
                        cur = cur[keep]
                    pending = move.unanswered()
                if last and stage == ASKED or move.answer is None:
                    continue
                pending = None
                if move.answer:
                    cur = cur[cur[:, c] == y]  # the movement: y held c
                    cur[:, c] = x
                elif use:
                    cur = cur[cur[:, c] != y]
            else:
                cur = cur[self.whole(cur, move.player, move.set)]  # the claim (and the declaration)
                claimed = claimed | {move.set}
            if last and stage != "after":
                break
            for s, p in self.claims[i]:
                cur = cur[self.whole(cur, p, s)]
                claimed = claimed | {s}
        return cur, claimed

    def in_play(self, claimed):
        return [c for c in range(self.N * self.S) if c // self.S not in claimed]

    def hands(self, cur, claimed):
        cards = self.in_play(claimed)
        return [int((cur[0, cards] == p).sum()) for p in range(self.P)]

    def free(self, cur, claimed):
        """Every assignment of the cards in play with the current hand sizes (no other knowledge)."""
        return _free(tuple(self.in_play(claimed)), tuple(self.hands(cur, claimed)), self.P, self.N * self.S)


@lru_cache(maxsize=64)
def _free(cards, hands, P, total):
    rows = []
    for combo in itertools.product(range(P), repeat=len(cards)):
        if all(combo.count(p) == hands[p] for p in range(P)):
            row = [-1] * total
            for c, p in zip(cards, combo):
                row[c] = p
            rows.append(row)
    return np.array(rows, dtype=np.int8).reshape(len(rows), total)


def fact_holds(o: Oracle, e, cur, rules) -> np.ndarray:
    """Per deal: whether the explained fact holds."""
    S = o.S
    if e.fact == "forced_card":
        return cur[:, e.card] == e.player
    if e.fact == "excluded_card":
        return cur[:, e.card] != e.player
    if e.fact == "forced_quartet":
        return o.whole(cur, e.player, e.set)
    if e.fact == "impossible_quartet":
        return ~o.whole(cur, e.player, e.set)
    move = o.record.moves[e.index - 1]
    x, c = move.asker, move.card
    asked = (cur[:, c] != x) & (o.count(cur, x, c // S) >= 1)
    if rules.silence:
        claimed = o.replay(set(), e.index, BEFORE)[1]
        for t in range(o.N):
            if t not in claimed:
                asked &= ~o.whole(cur, x, t)
    if e.fact == "illegal_question":
        return ~asked
    assert e.fact == "only_no"
    return ~(asked & (cur[:, c] == move.target))


def moment(e):
    """(upto, stage) of the explained fact for the oracle."""
    return e.index, e.stage


def hypothesis_deals(o: Oracle, e, cur, claimed, rules):
    free = o.free(cur, claimed)
    return free[~fact_holds(o, e, free, rules)]


def check_explanation(o: Oracle, e, rules):
    """Implication, minimality and the truth of every number of ``e``."""
    upto, stage = moment(e)
    if e.argument is not None and e.argument.kind == "claimed":  # a declaration is its own reason
        (i,) = e.moves
        assert o.record.moves[i - 1] == Declaration(e.player, e.set)
        return
    named = set(e.moves)
    cur, claimed = o.replay(named, upto, stage)
    assert len(cur), "the named moves contradict each other"
    assert fact_holds(o, e, cur, rules).all(), f"moves {e.moves} do not imply: {e.text}"
    for m in e.moves:
        fewer, _ = o.replay(named - {m}, upto, stage)
        assert not fact_holds(o, e, fewer, rules).all(), f"move {m} is not needed: {e.text}"
    check_argument(o, e, rules, cur, claimed)


def check_argument(o: Oracle, e, rules, cur, claimed):
    a = e.argument
    assert a is not None
    upto, stage = moment(e)
    hands = o.hands(cur, claimed)
    hyp = hypothesis_deals(o, e, cur, claimed, rules)
    singles = {}

    def deals_of(by):
        if by == "hypothesis":
            return hyp
        if by == "known":
            return o.replay(set(), upto, stage)[0]
        assert by in e.moves, f"{by} is not a named move"
        if by not in singles:
            singles[by] = o.replay({by}, upto, stage)[0]
        return singles[by]

    def lacks_everywhere(card, p, by=None):
        if by is not None:
            return bool((deals_of(by)[:, card] != p).all())
        return bool((cur[:, card] != p).all() or (hyp[:, card] != p).all())

    for b in a.at_least:
        assert (o.count(deals_of(b.by), b.seat, b.set) >= b.count).all(), f"at least {b}: {a.text}"
    for b in a.at_most:
        assert (o.count(deals_of(b.by), b.seat, b.set) <= b.count).all(), f"at most {b}: {a.text}"
    for p, h in a.seats:
        assert hands[p] == h, a.text
    if a.kind in ("moved", "start", "claimed"):
        assert e.moves == () or a.kind == "claimed"
        return
    assert a.need > a.supply, a.text
    check_text(o, a)
    if a.kind == "card":
        (card,) = a.cards
        assert sorted(p for p, _ in a.excluded) == list(range(o.P))
        for p, by in a.excluded:
            assert lacks_everywhere(card, p, by), f"{card} {p} {by}: {a.text}"
    elif a.kind == "bounds":
        (lo,), (hi,) = a.at_least, a.at_most
        assert (lo.seat, lo.set) == (hi.seat, hi.set) and (a.need, a.supply) == (lo.count, hi.count)
    elif a.kind == "hand":
        ((p, h),) = a.seats
        assert all(b.seat == p for b in a.at_least)
        assert a.need == sum(b.count for b in a.at_least) and a.supply == h
    elif a.kind == "crowd":
        W = {p for p, _ in a.seats}
        assert a.need == len(a.cards) and a.supply == sum(h for _, h in a.seats)
        for card in a.cards:
            for q in range(o.P):
                if q not in W:
                    assert lacks_everywhere(card, q), f"{card} {q}: {a.text}"
    else:
        assert a.kind == "hall"
        X = {p for p, _ in a.seats}
        Z = {(b.seat, b.set) for b in a.at_most}
        Y = {(b.seat, b.set) for b in a.at_least}
        assert all(p in X for p, _ in Z) and not any(p in X for p, _ in Y)
        assert a.need == sum(h for _, h in a.seats) + sum(b.count for b in a.at_least)
        assert a.supply == len(a.cards) + sum(b.count for b in a.at_most)
        listed = set(a.cards)
        for card in o.in_play(claimed):
            if card in listed:
                continue
            s = card // o.S
            takers = {p for p in X if (p, s) not in Z} | {p for p, t in Y if t == s}
            for q in takers:
                assert lacks_everywhere(card, q), f"unlisted {card} may go to {q}: {a.text}"


def _cards(n):
    return "no cards" if n == 0 else f"{n} card" + ("" if n == 1 else "s")


def check_text(o: Oracle, a):
    """The sentence states the numbers and names the cards of the argument."""
    g = o.record.game
    for card in a.cards:
        assert g.card_name(card) in a.text, a.text
    expected = {
        "hall": [f"need at least {_cards(a.need)}" if not a.seats and len(a.at_least) == 1 else f"need {_cards(a.need)}",
                 "no card may" if a.supply == 0 else f"the {a.supply} that"],
        "crowd": [f"hold {_cards(a.supply)}" if len(a.seats) > 1 else f"holds {_cards(a.supply)}"],
        "bounds": [f"at least {_cards(a.need)}", f"at most {a.supply}" if a.supply else "could hold none"],
        "hand": [f"at least {_cards(a.need)}", f"holds {_cards(a.supply)}"],
        "card": ["could go to no one" if "directly" not in a.text else "has not moved since"],
    }[a.kind]
    for part in expected:
        assert part in a.text, (part, a.text)
    for b in a.at_least + a.at_most:
        if b.count == 0:
            assert f"none of {g.set_name(b.set)}" in a.text or "could hold none" in a.text, (b, a.text)
        else:
            assert re.search(rf"\b{b.count}\b", a.text), (b, a.text)


# -- random records ------------------------------------------------------------------------
def random_record(rng: random.Random, players: int, sets: int, set_size: int, preset: str, length: int,
                  illegal: bool = False) -> Record:
    """A record of ``length`` random legal moves (fewer if the game ends), and with
    ``illegal`` one more move whose illegality the constraints decide, when there is one."""
    game = Game(players, sets, set_size)
    pos = Position(game, preset, engine=default_engine_name())
    texts = []
    for _ in range(length):
        if pos.over:
            break
        moves = list(pos.legal_moves())
        if not moves:
            break
        move = rng.choice(moves)
        if isinstance(move, Question):
            pos.push(move)
            move = rng.choice(list(pos.legal_moves()))
            pos.pop()
        pos.push(move)
        texts.append(game.move_str(move))
    if illegal and not pos.over:
        bad = _illegal_move(rng, pos)
        if bad is not None:
            texts.append(game.move_str(bad))
    text = f"players: {players}\nsets: {sets}\nset_size: {set_size}\nrules: {preset}\n" + " ".join(texts)
    return parse_record(text)


def _illegal_move(rng: random.Random, pos: Position):
    """A random move whose illegality the constraints decide (an impossible answer,
    question or declaration), or None."""
    g = pos.game
    tries: list[tuple[int, int, int | None]] = [(x, card, y) for x in pos.turn for card in pos.constraints.cards_in_play
                                                for y in range(g.players) if y != x]
    tries += [(x, s, None) for x in pos.turn for s in pos.constraints.sets_in_play]
    rng.shuffle(tries)
    for x, what, y in tries[:40]:
        if y is None:
            move = Declaration(x, what)
            err = pos.check(move)
            if err is not None and err.reason is Illegal.IMPOSSIBLE_DECLARATION:
                return move
            continue
        q = Question(x, y, what)
        err = pos.check(q)
        if err is not None and err.reason in (Illegal.NO_CONSISTENT_DEAL, Illegal.ONLY_NO):
            return q.answered(rng.random() < 0.5)
        if err is None:
            pos.push(q)
            wrong = [q.answered(v) for v in (True, False) if pos.check(q.answered(v)) is not None]
            pos.pop()
            if wrong:
                return wrong[0]
    return None


def explanations_of(record: Record, rng: random.Random, engine=None):
    ex = Explainer(record, engine=engine)
    out = []
    if ex.result.error is not None:
        e = ex.illegal()
        if e is not None:
            out.append(e)
    if ex.result.position.is_valid():
        out += ex.position()
        g = record.game
        for card in rng.sample(range(g.cards), min(3, g.cards)):
            out += ex.card(card)
        for s in range(g.sets):
            out += ex.quartet(s)
    return ex, out


def check_random_explanations(seeds, make_record) -> int:
    """For each seed, the explanations of the record ``make_record(seed, rng)`` checked against the
    oracle (implication, minimality, true numbers); how many were checked."""
    seen = 0
    for seed in seeds:
        rng = random.Random(seed)
        record = make_record(seed, rng)
        oracle = Oracle(record)
        _, explanations = explanations_of(record, rng)
        for e in explanations:
            check_explanation(oracle, e, record.rules)
            seen += 1
    return seen


SHAPES = [(3, 3, 2), (3, 2, 3), (2, 3, 4), (4, 2, 2), (3, 3, 3)]
PRESETS = ["quaternity", "quaternity-seat", "blind", "pythagoras"]


@pytest.mark.parametrize("batch", range(6))
def test_random_explanations_against_brute_force(batch):
    """Implication, minimality and true numbers on random records, some ending in an illegal move."""
    def record(seed: int, rng: random.Random) -> Record:
        P, N, S = SHAPES[seed % len(SHAPES)]
        preset = PRESETS[seed // len(SHAPES) % len(PRESETS)]
        return random_record(rng, P, N, S, preset, rng.randint(1, 10), illegal=rng.random() < 0.6)

    assert check_random_explanations(range(batch * 20, batch * 20 + 20), record) > 80


def test_the_information_carried_to_the_present_is_the_position():
    """All moves' information, rebuilt in the current frame, leaves exactly the position's deals."""
    engine = default_engine_name()
    for seed in range(30):
        rng = random.Random(1000 + seed)
        P, N, S = SHAPES[seed % len(SHAPES)]
        record = random_record(rng, P, N, S, PRESETS[seed % 4], rng.randint(1, 12))
        ex = Explainer(record, engine=engine)
        pos = record.position(engine)
        for n, move in enumerate(record.moves, 1):
            pos.push(move)
            k = ex.knowledge(n)
            mine = ex.engine.analyze(k.constraints(k.info))
            theirs = pos.analysis()
            assert (mine.owners, mine.quartets) == (theirs.owners, theirs.quartets), (n, record.texts)


# -- worked examples (docs/rules.md) --------------------------------------------------------
def record_of(text: str, preset: str = "quaternity") -> Record:
    lines = text.split("\n", 1)
    P, N, S = map(int, lines[0].split())
    return parse_record(f"players: {P}\nsets: {N}\nset_size: {S}\nrules: {preset}\n{lines[1]}")


def test_forced_by_two_the_claim_needs_only_the_first_question():
    record = record_of("3 2 3\n0>1:A0+ 0>2:A2+")
    (e,) = Explainer(record).quartet(0)
    assert e.context == "claim" and e.moves == (1,)
    assert e.text == "Set A was claimed by seat 0 after move 2: it was forced, because of move 1."
    assert e.argument.kind == "bounds" and (e.argument.need, e.argument.supply) == (3, 2)
    assert e.argument.text == ("If seat 0 did not hold all of A, seat 0 would need at least 3 cards of A"
                               " but could hold at most 2.")
    check_explanation(Oracle(record), e, record.rules)


def test_one_deal_left_every_card_explained():
    record = record_of("3 3 3\n0>2:A2- 2>0:B1+ 2>0:C2+ 2>0:B2- 0>2:A0-")
    ex = Explainer(record)
    got = {record.game.card_name(e.card): e.moves for e in ex.position()}
    assert got == {"A0": (5,), "A1": (1, 5), "A2": (1,), "B0": (2, 4), "B1": (), "B2": (4,)}
    (claim,) = ex.quartet(2)
    assert claim.moves == (1, 4, 5)
    oracle = Oracle(record)
    for e in ex.position() + [claim]:
        check_explanation(oracle, e, record.rules)


def test_third_party_left_empty_by_a_no():
    record = record_of("3 3 2\n0>2:A0+ 0>1:B0-")
    (e,) = Explainer(record).quartet(2)
    assert (e.player, e.moves) == (1, (2,))  # claim A (seat 0) is public: move 1 is not needed
    check_explanation(Oracle(record), e, record.rules)


@pytest.mark.parametrize("text, preset, reason, fact, moves", [
    ("2 2 2\n0>1:A0-", "quaternity", "IMPOSSIBLE_NO", "forced_card", (1,)),
    ("3 2 3\n0>2:B0+ 0>2:A2- 2>0:B0+ 2>0:B1-", "quaternity", "IMPOSSIBLE_NO", "forced_card", (1, 3, 4)),
    ("3 3 3\n0>2:A2- 2>0:B1+ 2>0:C2+ 2>0:B2- 0>2:A0- 2>1:A1+", "quaternity", "NO_CONSISTENT_DEAL",
     "illegal_question", (2,)),
    ("3 3 3\n0>2:A2- 2>0:B1+ 2>0:C2+ 2>0:B2- 0>2:A0- 2>1:B2-", "quaternity", "IMPOSSIBLE_NO", "forced_card", (4,)),
    ("3 3 2\n0>1:B1+ 0>1:C0- 1>0:A0+", "quaternity", "IMPOSSIBLE_YES", "excluded_card", (2,)),
    ("3 3 2\n0>1:B1- 1>2:B1+", "blind", "NO_CONSISTENT_DEAL", "illegal_question", (1,)),
    ("3 3 2\n0>2:C0- 2!A", "pythagoras", "IMPOSSIBLE_DECLARATION", "impossible_quartet", ()),
    ("3 3 2\n0>1:C0+ 0>1:B1+", "pythagoras", "ONLY_NO", "only_no", ()),
    ("3 3 2\n0>1:A0- 1!A", "blind", "IMPOSSIBLE_DECLARATION", "impossible_quartet", (1,)),
])
def test_illegal_moves_are_explained(text, preset, reason, fact, moves):
    record = record_of(text, preset)
    ex = Explainer(record)
    assert ex.result.error.reason.name == reason
    e = ex.illegal()
    assert (e.fact, e.context, e.moves) == (fact, "illegal", moves), e.text
    check_explanation(Oracle(record), e, record.rules)


def test_position_file_start_with_an_open_question():
    record = parse_record(json.dumps({
        "players": 3, "sets": 2, "set_size": 3, "rules": "quaternity",
        "hands": [2, 2, 2], "turn": 0, "question": "0>1:A0?",
        "cards": {"A0": [1, 2], "A1": [0]}, "at_least": {"0": {"A": 1}},
        "moves": ["0>1:A0-", "1>2:A0-"],
    }))
    ex = Explainer(record)
    assert ex.result.error is not None and ex.result.error.reason is Illegal.IMPOSSIBLE_NO
    e = ex.illegal()
    assert e.text == "The answer had to be yes: A0 must be with seat 2, because of move 1."
    assert move_information(record, 1) == "seat 1 did not hold A0"  # it answers the open question
    (a1,) = ex.card(record.game.card("A1"))
    assert a1.text == "A1 must be with seat 0: the starting position says so."
    (a0,) = ex.card(record.game.card("A0"))
    assert (a0.player, a0.moves) == (2, (1,))
    (a0,) = ex.card(record.game.card("A0"), player=0)
    assert a0.fact == "excluded_card" and a0.moves == ()
    assert a0.text.endswith("from the starting position, the hand sizes, the cards' movements and the claims alone.")


# -- the command ---------------------------------------------------------------------------------
WORKED = ("players: Peter, Quinty, Robin\nsets: 3\nset_size: 3\n"
          "Peter>Robin:A2- Robin>Peter:B1+ Robin>Peter:C2+ Robin>Peter:B2- Peter>Robin:A0-\n")


@pytest.fixture
def worked(tmp_path):
    path = tmp_path / "worked.txt"
    path.write_text(WORKED)
    return path


def run(*args):
    from quaternity_cli.main import main
    return CliRunner().invoke(main, [str(a) for a in args])


def test_cli_explain_card(worked):
    result = run("explain", worked, "A1")
    assert result.exit_code == 0, result.output
    assert "A1 must be with Peter, because of moves 1 and 5." in result.output
    assert "Peter>Robin:A0-  Peter held a card of A but not A0; Robin did not hold A0" in result.output
    data = json.loads(run("explain", worked, "A1", "--json").output)
    (e,) = data["explanations"]
    assert data["owners"] == [0] and e["moves"] == [1, 5] and e["fact"] == "forced_card"
    assert e["argument"]["kind"] == "hall" and e["argument"]["need"] > e["argument"]["supply"]
    assert e["argument"]["text"].startswith("If A1 were not with Peter, Peter would need")


def test_cli_explain_player_and_set(worked):
    data = json.loads(run("explain", worked, "B0", "--player", "Quinty", "--json").output)
    assert [e["fact"] for e in data["explanations"]] == ["excluded_card"]
    data = json.loads(run("explain", worked, "--set", "C", "--json").output)
    (e,) = data["explanations"]
    assert (e["context"], e["player"], e["moves"]) == ("claim", 2, [1, 4, 5])
    assert data["quartets"] is None
    data = json.loads(run("explain", worked, "--set", "A", "--player", "1", "--json").output)
    assert data["quartets"] == [] and [e["moves"] for e in data["explanations"]] == [[1]]
    result = run("explain", worked, "--set", "B")
    assert result.exit_code == 0 and "Peter cannot hold all of set B" in result.output
    assert "If Robin held all of B, the 3 cards B0, B1, B2 could go only to Robin, who holds 2 cards." in result.output
    result = run("explain", worked, "C1", "--player", "Robin")
    assert result.exit_code == 0 and "Set C was claimed by Robin after move 5" in result.output


@pytest.mark.parametrize("args", [
    ["Z9"], ["A9"], ["A1", "--player", "Zoe"], ["--set", "Q"], [], ["A1", "--set", "A"], ["A1", "--rules", "nope"],
])
def test_cli_explain_bad_input(worked, args):
    result = run("explain", worked, *args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output


def test_cli_explain_unknown_card_is_one_line(worked):
    result = run("explain", worked, "Z9")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("quaternity: CARD argument: unknown card 'Z9'")


def test_cli_explain_illegal_record_explains_the_position_before(tmp_path):
    path = tmp_path / "illegal.txt"
    path.write_text(WORKED + "Robin>Quinty:B2-\n")
    result = run("explain", path, "B2")
    assert result.exit_code == 1
    assert "explaining the position before it" in result.output
    assert "B2 must be with Quinty, because of move 4." in result.output


def test_cli_check_explains_the_illegal_move(tmp_path):
    path = tmp_path / "illegal.txt"
    path.write_text(WORKED + "Robin>Quinty:B2-\n")
    result = run("check", path)
    assert result.exit_code == 1
    assert "The answer had to be yes: B2 must be with Quinty, because of move 4." in result.output
    error = json.loads(run("check", path, "--json").output)["error"]
    why = error["explanation"]
    assert why["moves"] == [4] and why["context"] == "illegal" and why["argument"]["kind"] == "card"
    assert {"player": 2, "by": 4} in why["argument"]["excluded"]


def test_cli_analyze_explain(worked):
    result = run("analyze", worked, "--explain")
    assert result.exit_code == 0, result.output
    assert "B0 must be with Robin, because of moves 2 and 4." in result.output
    assert "Known from the cards' movements: B1 (Robin)" in result.output
    data = json.loads(run("analyze", worked, "--explain", "--json").output)
    facts = {(e["card"], e["player"]): e["moves"] for e in data["explanations"]}
    assert facts[("B0", 2)] == [2, 4] and facts[("B1", 2)] == []
    assert "explanations" not in json.loads(run("analyze", worked, "--json").output)


# -- the shrinking step on non-minimal starting sets ------------------------------------------
@pytest.mark.parametrize("start", ["all", "padded"])
def test_shrinking_from_non_minimal_cores(monkeypatch, start):
    """``responsible_moves`` shrinks whatever first core it gets: fed every candidate move
    (or CP-SAT's core padded with random extra moves) instead of CP-SAT's usually minimal
    core, the result must still imply the fact and be minimal, checked on brute-force deals."""
    import quaternity_cp.quartets.explain as explain_module

    real_core = explain_module._sat_core
    fed, shrunk = [0], [0]

    def non_minimal(k, candidates, negation, seconds=None):
        core = real_core(k, candidates, negation, seconds)
        if core is None:
            return None
        if start == "all":
            wider = list(candidates)
        else:
            rng = random.Random(len(candidates) * 7919 + len(core))
            wider = sorted(set(core) | {m for m in candidates if rng.random() < 0.6})
        fed[0] += 1
        shrunk[0] += len(wider) > len(core)
        return wider

    monkeypatch.setattr(explain_module, "_sat_core", non_minimal)
    def record(seed: int, rng: random.Random) -> Record:
        P, N, S = SHAPES[seed % len(SHAPES)]
        preset = PRESETS[seed // len(SHAPES) % len(PRESETS)]
        return random_record(rng, P, N, S, preset, rng.randint(3, 10), illegal=rng.random() < 0.5)

    # implication and minimality by brute force
    assert check_random_explanations(range(500, 530), record) > 60
    assert shrunk[0] > 20, (fed, shrunk)  # the deletion loop really had moves to remove


# -- what a move tells: words from the facts of quaternity_cp.quartets.effects --------------------------------


def test_move_words_come_from_the_effects_facts(monkeypatch):
    """A wrong fact in effects (the asker's card of the set dropped) changes the sentence: the words are
    the facts' words, not a second statement of the rule."""
    text = "players: 3\nsets: 2\nset_size: 3\n0>1:A0- 1>2:B0+\n"
    assert move_information(parse_record(text), 1) == "seat 0 held a card of A but not A0; seat 1 did not hold A0"
    right = effects.question_facts

    def wrong(c, asker, card, *, silence=False):
        return [f for f in right(c, asker, card, silence=silence) if not isinstance(f, AtLeast)]

    monkeypatch.setattr(effects, "question_facts", wrong)
    record = parse_record(text)
    assert move_information(record, 1) == "seat 0 did not hold A0; seat 1 did not hold A0"
    assert move_information(record, 2) == "seat 1 did not hold B0; seat 2 gave B0 to seat 1"
    # and the explainer's reasoning takes the same facts: without the card of A, nothing forces it
    assert all(AtLeast(0, 0, 1) not in atoms for atoms in Explainer(record).knowledge(2).info.values())


def test_an_illegal_question_is_worded_from_its_facts(monkeypatch):
    """The hypothesis of an illegal question says what the question would have told: its facts."""
    record = parse_record("players: 3\nsets: 3\nset_size: 3\nrules: pythagoras\n0>1:A1- 1>2:A1+ 1>0:A1+\n")
    ex = Explainer(record)
    e = ex.illegal()
    assert e.text.startswith("Seat 1 could not ask seat 0 for A1: seat 1 cannot lack A1 while holding another card"
                             " of A and no complete set, ")
    assert e.argument.text.startswith("If seat 1 asked for A1 (lacking it and holding another card of A, and no"
                                      " complete set), ")
    c = ex.knowledge(3, BEFORE).base
    right = effects.question_facts
    monkeypatch.setattr(effects, "question_facts", lambda c, x, card, *, silence=False: [
        f for f in right(c, x, card, silence=silence) if not isinstance(f, AtLeast)])
    asked, lacks = ex._asking(c, 1, 1)
    assert asked.startswith("seat 1 asked for A1 (seat 1 did not hold A1; seat 1 did not hold all of A; ")
    assert "another card" not in asked + lacks


def test_move_words_of_every_rule_case():
    """The sentences of each case, from the facts (silence, dealt cards, a
    declaration, the question alone)."""
    cases = [
        ("players: 3\nsets: 2\nset_size: 3\nrules: pythagoras\n0>1:A0+ 0!A\n",
         ["seat 0 held a card of A but not A0, and no complete set; seat 1 gave A0 to seat 0",
          "seat 0 held all of A"]),
        ("players: 2\nsets: 2\nset_size: 2\nrules: classic\n0>1:A0+ 0!A\n",
         ["seat 0 held a card of A but not A0; nobody held a complete set; seat 1 gave A0 to seat 0",
          "seat 0 held all of A"]),
        ("players: 3\nsets: 2\nset_size: 3\nrules: classic, silence=true\n0>1:A0-\n",
         ["seat 0 held a card of A but not A0, and no complete set; nobody held a complete set;"
          " seat 1 did not hold A0"]),
        ("players: 3\nsets: 3\nset_size: 2\nrules: classic\n0!A 0>1:B0+\n",  # seat 0 asks with no cards
         ["seat 0 held all of A",
          "seat 0 held no cards (and could ask for any card); nobody held a complete set; seat 1 gave B0 to seat 0"]),
        ("players: 3\nsets: 2\nset_size: 3\n1>2:B0- 0>1:A0?\n",
         ["seat 1 held a card of B but not B0; seat 2 did not hold B0", "seat 0 held a card of A but not A0"]),
    ]
    for text, words in cases:
        record = parse_record(text)
        assert [move_information(record, i) for i in range(1, len(words) + 1)] == words, text
    record = parse_record(cases[0][0])
    assert move_information(record, 1, ASKED) == "seat 0 held a card of A but not A0, and no complete set"


def test_an_empty_asker_tells_nothing_but_its_empty_hand():
    """Under empty_hand = ask a seat without cards asks for any card: its question has no facts."""
    g = Game(2, 2, 1)
    c = replace(Constraints.initial(2, 2, 1), hands=(0, 2), domains=(2, 2))
    assert effects.question_facts(c, 0, 0) == []
    say = explain._Phrases(g)
    assert told_words([], c, say, asker=0) == ["seat 0 held no cards (and could ask for any card)"]
    assert told_words(effects.settle_facts(c), c, say, asker=0) == [
        "seat 0 held no cards (and could ask for any card)", "nobody held a complete set"]


def test_facts_no_group_covers_are_said_plainly():
    c = Constraints.initial(3, 2, 3)
    say = explain._Phrases(Game(3, 2, 3))
    facts = [AtMost(1, 0, 2), Holds(4, 2), AtLeast(0, 1, 2), AtMost(2, 1, 0), Lacks(0, 1), AtMost(0, 0, 1),
             AtLeast(1, 1, 3), Gave(3, 1, 2)]
    assert told_words(facts, c, say) == [
        "seat 1 did not hold all of A", "seat 2 held B1", "seat 0 held at least 2 cards of B",
        "seat 2 held no card of B", "seat 1 did not hold A0", "seat 0 held at most 1 card of A",
        "seat 1 held all of B", "seat 1 gave B0 to seat 2"]
    # a grid missing one seat is not "nobody": each fact is said
    grid = [AtMost(p, t, 2) for p in (0, 1) for t in (0, 1)]
    assert "nobody held a complete set" not in told_words(grid, c, say)
    assert len(told_words(grid, c, say)) == 4


def test_move_information_replays_a_record_once(monkeypatch):
    """The moves an explanation cites cost one replay of the record, not one each."""
    calls = []
    real = explain._moments
    monkeypatch.setattr(explain, "_moments", lambda record: calls.append(1) or real(record))
    record = parse_record(WORKED)
    words = [move_information(record, i) for i in range(1, 6)]
    assert len(calls) == 1
    assert words[1] == "Robin held a card of B but not B1; Peter gave B1 to Robin"
    record.moves[4] = record.game.parse_move("Peter>Robin:A0+")  # a changed record is replayed again
    assert move_information(record, 5) == "Peter held a card of A but not A0; Robin gave A0 to Peter"
    assert len(calls) == 2


def test_moves_after_an_illegal_one_are_still_told():
    record = parse_record("players: 2\nsets: 2\nset_size: 2\n0>1:A0- 1>0:B0+ 1!B\n")  # move 1: only yes
    assert move_information(record, 1) == "seat 0 held a card of A but not A0; seat 1 did not hold A0"
    assert move_information(record, 2) == "seat 1 held a card of B but not B0; seat 0 gave B0 to seat 1"
    assert move_information(record, 3) == "seat 1 held all of B"


def _words_before_issue_31(record: Record, i: int, stage: str = AFTER) -> str:
    """move_information as it was written before its words came from the facts (a frozen copy): the
    words must not change wherever it was right."""
    say = explain._Phrases(record.game)
    move = record.moves[i - 1]
    if isinstance(move, Declaration):
        return f"{say.p(move.player)} held all of {say.s(move.set)}"
    parts = []
    g, rules = record.game, record.rules
    hands = [g.hand_size] * g.players
    for m in record.moves[: i - 1]:
        if isinstance(m, Declaration):
            hands[m.player] -= g.set_size
        elif m.answer:
            hands[m.asker] += 1
            hands[m.target] -= 1
    if rules.dealt and rules.empty_hand == "ask" and not hands[move.asker]:
        parts.append(f"{say.p(move.asker)} held no cards (and could ask for any card); nobody held a complete set")
    else:
        text = f"{say.p(move.asker)} held a card of {say.s(move.card // g.set_size)} but not {say.c(move.card)}"
        if rules.silence:
            text += ", and no complete set"
        if rules.dealt:
            text += "; nobody held a complete set"
        parts.append(text)
    if stage == ASKED:
        pass
    elif move.answer is True:
        parts.append(f"{say.p(move.target)} gave {say.c(move.card)} to {say.p(move.asker)}")
    elif move.answer is False:
        parts.append(f"{say.p(move.target)} did not hold {say.c(move.card)}")
    return "; ".join(parts)


GAMES = [(2, 1, 2), (2, 2, 1), (2, 2, 2), (2, 3, 2), (3, 1, 3), (3, 2, 3), (3, 3, 1), (3, 3, 2), (2, 2, 3)]


@dataclass
class Moment:
    """The brute-force reference's deals at one move: once its question was asked (``asked``), once
    it was answered or declared, before any card moved (``told``), and after it (``after``)."""

    hands: tuple[int, ...]
    live: list[int]
    asked: np.ndarray
    told: np.ndarray
    after: np.ndarray


@st.composite
def played_records(draw):
    """A random game on a small table under random rules, played by the brute-force reference
    (only legal moves), with the reference's deals at the moment of each move."""
    P, N, S = draw(st.sampled_from(GAMES))
    options = {name: draw(st.sampled_from(values)) for name, values in RULE_OPTIONS.items()}
    if options["dealt"]:
        options["auto_claim"] = options["declare"] = False
    if S == 1:
        options["initial_quartets"] = True  # else no deal at all
    rules = Rules(**options)
    game = Game(P, N, S)
    ref = Reference(game, rules)
    try:
        state = ref.start()
    except ValueError:  # no deal without a complete set
        assume(False)
    moves, moments = [], []
    for _ in range(draw(st.integers(1, 7))):
        legal = ref.legal_moves(state)
        if not legal:
            break
        move = draw(st.sampled_from(legal))
        if isinstance(move, Question):
            asked, kind = ref.play(state, move, len(moves) + 1)
            assert kind is None
            hands, live = ref.hands(state), ref.unclaimed(asked)
            if draw(st.integers(0, 5)) == 0:
                moves.append(move)  # the question alone, the last move
                moments.append(Moment(hands, live, asked.deals, asked.deals, asked.deals))
                break
            move = draw(st.sampled_from(ref.legal_moves(asked)))
            column = asked.deals[:, move.card]
            told = asked.deals[(column == move.target) == move.answer]
        else:
            asked = state
            hands, live = ref.hands(state), ref.unclaimed(state)
            told = state.deals[ref.whole(state.deals, move.player, move.set)]
        after, kind = ref.play(state, move, len(moves) + 1)
        assert kind is None
        moves.append(move)
        moments.append(Moment(hands, live, asked.deals, told, after.deals))
        state = after
    return Record(game, rules, moves, texts=[game.move_str(m) for m in moves]), ref, moments


def _clause_claims(clause: str, names: dict) -> list[tuple]:
    """A clause of a sentence as what it claims: (kind, ...) with ids."""
    seat, card, cset = names["seat"], names["card"], names["set"]
    patterns = [
        (r"(.+) held a card of (\w+) but not (\w+)(, and no complete set)?", "some-but-not"),
        (r"nobody held a complete set", "nobody-complete"),
        (r"(.+) held no cards \(and could ask for any card\)", "empty"),
        (r"(.+) gave (\w+) to (.+)", "gave"),
        (r"(.+) did not hold (\w+)", "lacks"),
        (r"(.+) held all of (\w+)", "whole"),
    ]
    for pattern, kind in patterns:
        m = re.fullmatch(pattern, clause)
        if m is None:
            continue
        if kind == "some-but-not":
            out = [("lacks", seat[m[1]], card[m[3]]), ("some", seat[m[1]], cset[m[2]])]
            return out + ([("no-complete", seat[m[1]])] if m[4] else [])
        if kind == "nobody-complete":
            return [("nobody-complete",)]
        if kind == "empty":
            return [("empty", seat[m[1]])]
        if kind == "gave":
            return [("gave", seat[m[1]], card[m[2]], seat[m[3]])]
        if kind == "lacks":
            return [("lacks", seat[m[1]], card[m[2]])]
        return [("whole", seat[m[1]], cset[m[2]])]
    raise AssertionError(f"a clause no case phrases: {clause!r}")


def _claim_true(ref: Reference, claim: tuple, at: Moment, deals: np.ndarray) -> bool:
    """Whether a claim holds in every one of ``deals`` (the reference's at that moment)."""
    kind = claim[0]
    if kind == "lacks":
        return bool((deals[:, claim[2]] != claim[1]).all())
    if kind == "some":
        return bool((ref.count(deals, claim[1], claim[2]) >= 1).all())
    if kind == "no-complete":
        return not any(ref.whole(deals, claim[1], t).any() for t in at.live)
    if kind == "nobody-complete":
        return not any(ref.whole(deals, p, t).any() for p in range(ref.P) for t in at.live)
    if kind == "empty":
        return at.hands[claim[1]] == 0
    if kind == "gave":  # the giver held it; then every deal has it with the taker
        giver, card, taker = claim[1:]
        return bool((deals[:, card] == giver).all() and (at.after[:, card] == taker).all())
    return bool(ref.whole(deals, claim[1], claim[2]).all())


def _fact_claim(fact) -> tuple:
    if isinstance(fact, Gave):
        return ("gave", fact.giver, fact.card, fact.taker)
    if isinstance(fact, Lacks):
        return ("lacks", fact.seat, fact.card)
    if isinstance(fact, Holds):
        return ("holds", fact.seat, fact.card)
    return ("at-least" if isinstance(fact, AtLeast) else "at-most", fact.seat, fact.set, fact.count)


def _fact_true(ref: Reference, fact, at: Moment, deals: np.ndarray) -> bool:
    if isinstance(fact, (Gave, Lacks)):
        return _claim_true(ref, _fact_claim(fact), at, deals)
    if isinstance(fact, Holds):
        return bool((deals[:, fact.card] == fact.seat).all())
    n = ref.count(deals, fact.seat, fact.set)
    return bool((n >= fact.count).all() if isinstance(fact, AtLeast) else (n <= fact.count).all())


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(played_records())
def test_move_words_are_true_of_every_consistent_deal(played):
    """Every fact a move tells, and every claim of its sentence, holds in every deal the brute-force
    reference keeps at that moment; the words are those of before wherever those were right."""
    record, ref, moments = played
    g = record.game
    names = {"seat": {g.seat_name(p): p for p in range(g.players)},
             "card": {g.card_name(k): k for k in range(g.cards)},
             "set": {g.set_name(s): s for s in range(g.sets)}}
    for i, at in enumerate(moments, 1):
        move = record.moves[i - 1]
        for stage in (ASKED, AFTER) if isinstance(move, Question) else (AFTER,):
            deals = at.asked if stage == ASKED else at.told
            told = move_told(record, i, stage)
            for fact in (told.question or ()) + told.answer:
                assert _fact_true(ref, fact, at, deals), (i, stage, fact, record.texts)
            words = move_information(record, i, stage)
            for clause in words.split("; "):
                for claim in _clause_claims(clause, names):
                    assert _claim_true(ref, claim, at, deals), (i, stage, words, record.texts)
            empty = isinstance(move, Question) and at.hands[move.asker] == 0
            if empty and not record.rules.dealt:  # before: "held a card of ...", which was false
                assert words.startswith(f"{g.seat_name(move.asker)} held no cards"), words
            else:
                assert words == _words_before_issue_31(record, i, stage), (i, stage, record.texts)

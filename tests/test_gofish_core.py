"""Quantum Go Fish's exact core (issue 32, part 1): the worked example of GOFISH.md, every option against an
independent brute-force reference (tests/gofish_reference.py), the flow engine against CP-SAT, and bad input."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gofish_reference import Reference, initial_tables
from quaternity_cp.budget import Limits
from quaternity_cp.errors import QuaternityError
from quaternity_cp.gofish import (
    CountLimitError,
    CpSatEngine,
    FlowEngine,
    GoFish,
    GoFishRulesError,
    Illegal,
    IllegalMove,
    Move,
    NotationError,
    Outcome,
    Rules,
    Tables,
    count_tables,
    holds_a_whole_suit,
)

SETTINGS = settings(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

#: (players, suits, suit size): small enough to list every initial table (at most a few hundred)
CONFIGS = [(2, 2, 3), (2, 3, 4), (2, 4, 3), (2, 4, 5), (3, 3, 2), (3, 3, 3), (3, 3, 4), (3, 3, 6), (3, 4, 3),
           (4, 2, 4), (4, 4, 2), (4, 3, 4), (5, 2, 5), (5, 5, 2), (6, 3, 2), (6, 2, 3), (6, 3, 4)]
#: the configurations with the most tables (games there last longer): drawn twice as often
RICH = [(2, 4, 5), (3, 3, 4), (3, 3, 6), (3, 4, 3), (4, 4, 2), (4, 3, 4), (5, 5, 2), (6, 3, 4)]
OPTIONS = {"ask_void": ["allow", "forbid"], "after_yes": ["next", "again"], "four": ["named", "some", "off"],
           "win_after_ask": [False, True], "priority": ["mover", "four-first"], "no_initial_four": [False, True],
           "invalid": ["reject", "lose"], "repetition": ["none", "draw"]}


# -- GOFISH.md's worked example ----------------------------------------------------------------------------
def test_the_worked_example_narrows_to_one_table_and_seat_0_wins():
    game = GoFish(3)
    assert game.count() == 120
    counts = []
    for move in ["0>1:A+", "1>2:A+", "2>0:B-", "0>2:C-"]:
        assert not game.determined and game.turn == int(move[0])
        game.push(move)
        counts.append(game.count())
    assert counts == [55, 10, 2, 1]
    assert game.determined
    b = game.bounds()
    assert b.low == b.high == ((2, 0, 3), (2, 1, 1), (0, 3, 0))  # seat 0: A 2, C 3; seat 1: A 2, B 1, C 1; seat 2: B 3
    assert game.outcome == Outcome(0, "determined")
    assert game.legal_moves() == [] and game.turn is None


def test_the_worked_example_round_trips_as_a_record_with_names():
    game = GoFish(["Xia", "Yael", "Zoe"], ["Narwhals", "Scruples", "Qualms"])
    for move in ["Xia>Yael:Narwhals+", "1>2:Narwhals+", "Zoe>Xia:Scruples-", "Xia>Zoe:Qualms-"]:
        game.push(move)
    record = game.record()
    assert record == {"game": "gofish", "players": ["Xia", "Yael", "Zoe"], "suits": ["Narwhals", "Scruples", "Qualms"],
                      "suit_size": 4, "rules": {}, "moves": ["Xia>Yael:Narwhals+", "Yael>Zoe:Narwhals+",
                                                             "Zoe>Xia:Scruples-", "Xia>Zoe:Qualms-"]}
    again = GoFish.from_record(record)
    assert again.record() == record and again.winner == 0
    plain = GoFish.from_record({"game": "gofish", "players": 3, "moves": ["0>1:A+", "1>2:A+", "2>0:B-", "0>2:C-"]})
    assert plain.winner == 0 and plain.record()["suits"] == 3


def test_undo_restores_every_position_of_the_worked_example():
    game = GoFish(3)
    seen = []
    for move in ["0>1:A+", "1>2:A?", "1>2:A+", "2>0:B-", "0>2:C-"]:
        seen.append((game.moves, game.bounds(), game.turn, game.pending, game.outcome))
        game.push(move)
    for before in reversed(seen):
        game.pop()
        assert (game.moves, game.bounds(), game.turn, game.pending, game.outcome) == before
    with pytest.raises(QuaternityError, match="no move to undo"):
        game.pop()


# -- every option against the brute-force reference --------------------------------------------------------
def _rules(data, players):
    rules = {name: data.draw(st.sampled_from(values), label=name) for name, values in OPTIONS.items()}
    rules["first"] = data.draw(st.integers(0, players - 1), label="first")
    return rules


def _compare(game: GoFish, ref: Reference) -> None:
    """Every fact of the position: over and outcome, turn, count, ranges, determined, fours, legal moves."""
    assert game.over == ref.over
    if ref.over:
        assert game.outcome == Outcome(ref.winner, ref.reason, ref.loser)
        return
    assert game.turn == ref.turn and game.pending == (Move(*ref.pending) if ref.pending else None)
    assert game.count() == ref.count()
    b = game.bounds()
    assert (b.low, b.high) == ref.ranges()
    assert game.determined == ref.determined()
    assert game.fours() == ref.fours()
    if ref.pending is None:
        questions = ref.legal_questions()
        assert [(q.asker, q.asked, q.suit) for q in game.legal_questions()] == questions
        expected = [Move(a, b_, s, yes) for a, b_, s in questions for yes in ref.legal_answers(a, b_, s)]
        assert game.legal_moves() == expected
    else:
        assert game.legal_answers() == ref.legal_answers(*ref.pending)


def _play_against_reference(data, config, rules, steps):
    P, K, S = config
    game, ref = GoFish(P, K, S, rules), Reference(P, K, S, rules)
    _compare(game, ref)
    for _ in range(steps):
        if ref.over:
            break
        kind = data.draw(st.sampled_from(["legal"] * 6 + ["ask", "any", "undo"]), label="kind")
        if kind == "undo" and game.moves:
            before = game.record()
            game.pop()
            game.push(before["moves"][-1])
            assert game.record() == before
            continue
        if ref.pending is not None:
            a, b, s = ref.pending
            answer = data.draw(st.booleans(), label="answer")
        elif kind in ("legal", "ask") and ref.legal_questions():
            a, b, s = data.draw(st.sampled_from(ref.legal_questions()), label="question")
            answer = None if kind == "ask" else data.draw(st.sampled_from(ref.legal_answers(a, b, s)), label="ans")
        else:
            a, b, s = (data.draw(st.integers(0, P - 1), label="asker"), data.draw(st.integers(0, P - 1), label="asked"),
                       data.draw(st.integers(0, K - 1), label="suit"))
            answer = data.draw(st.sampled_from([True, False, None]), label="answer")
        move = Move(a, b, s, answer)
        expected_fault = game.check(move)
        fault = ref.play(a, b, s, answer)
        if fault is not None:
            assert expected_fault is not None, (move, fault)
            with pytest.raises(IllegalMove) as err:
                game.push(move)
            assert err.value.reason is expected_fault and err.value.index is not None
        else:
            game.push(move)
            if ref.loser is not None:
                assert expected_fault is not None and game.outcome == Outcome(None, "invalid", ref.loser)
        _compare(game, ref)
    event(f"ended: {ref.reason}")
    event(f"moves: {len(game.moves) // 4 * 4}+")
    replayed = GoFish.from_record(game.record())
    assert replayed.record() == game.record() and replayed.outcome == game.outcome


@settings(SETTINGS, max_examples=250)
@given(st.data())
def test_every_option_plays_as_the_reference_says(data):
    config = data.draw(st.sampled_from(RICH + CONFIGS + RICH), label="config")
    _play_against_reference(data, config, _rules(data, config[0]), steps=30)


@settings(SETTINGS, max_examples=40)
@given(st.data(), st.sampled_from(sorted(OPTIONS)))
def test_each_option_off_its_default_plays_as_the_reference_says(data, option):
    """One option at a time off its default, the others at theirs: what that option alone changes."""
    config = data.draw(st.sampled_from(RICH + CONFIGS + RICH), label="config")
    rules = {option: data.draw(st.sampled_from(OPTIONS[option][1:]), label=option)}
    _play_against_reference(data, config, rules, steps=30)


@pytest.mark.parametrize("option", sorted(set(OPTIONS) - {"invalid"}))  # invalid: only an illegal move shows it
def test_each_option_changes_some_game(option):
    """A witness per option that it matters: a seeded sweep finds a game where the reference's answers
    with the option off its default differ from the default's (so the property tests exercise it)."""
    import random

    rng = random.Random(option)
    for _ in range(400):
        P, K, S = rng.choice(CONFIGS)
        other = {option: rng.choice(OPTIONS[option][1:])}
        base, changed = Reference(P, K, S), Reference(P, K, S, other)
        for _ in range(12):
            if base.over or changed.over:
                break
            if ((base.turn, base.legal_questions(), base.ranges()) != (changed.turn, changed.legal_questions(),
                                                                         changed.ranges())):
                break
            a, b, s = rng.choice(base.legal_questions())
            yes = rng.choice(base.legal_answers(a, b, s))
            if yes not in changed.legal_answers(a, b, s):
                return
            base.play(a, b, s, None)
            changed.play(a, b, s, None)
            if base.over != changed.over:
                return  # one game ended at the question
            base.play(a, b, s, yes)
            changed.play(a, b, s, yes)
        if (base.over, base.winner, base.reason, base.turn) != (changed.over, changed.winner, changed.reason,
                                                                  changed.turn):
            return
        if not base.over and (base.legal_questions(), base.ranges()) != (changed.legal_questions(), changed.ranges()):
            return
    pytest.fail(f"no game found where {option} matters")


# -- the flow engine against CP-SAT and brute force ----------------------------------------------------------
@st.composite
def tables(draw):
    P, K, S = draw(st.sampled_from(CONFIGS + [(3, 4, 3), (4, 3, 4), (4, 4, 3)]))
    hand = K * S // P
    low, high = [], []
    for _ in range(P):
        lo_row, hi_row = [], []
        for _ in range(K):
            lo = draw(st.integers(0, S)) if draw(st.integers(0, 3)) == 0 else 0
            hi = draw(st.integers(0, S)) if draw(st.integers(0, 2)) == 0 else S
            lo_row.append(lo)
            hi_row.append(hi)
        low.append(tuple(lo_row))
        high.append(tuple(hi_row))
    return Tables((hand,) * P, (S,) * K, tuple(low), tuple(high))


def _brute(t: Tables):
    S = t.suit_sizes[0]
    return [w for w in initial_tables(t.players, t.suits, S, S) if t.admits(w)]


@settings(SETTINGS, max_examples=150)
@given(tables())
def test_the_flow_engine_is_exact_against_brute_force(t):
    worlds = _brute(t)
    b = FlowEngine().bounds(t)
    assert b.feasible == bool(worlds) == FlowEngine().feasible(t)
    assert count_tables(t) == len(worlds)
    if worlds:
        assert t.admits(b.example)
        P, K = t.players, t.suits
        assert b.low == tuple(tuple(min(w[p][s] for w in worlds) for s in range(K)) for p in range(P))
        assert b.high == tuple(tuple(max(w[p][s] for w in worlds) for s in range(K)) for p in range(P))
        assert b.determined == (len(worlds) == 1)
        for p in range(P):
            some = all(any(w[p][s] == t.suit_sizes[s] for s in range(K)) for w in worlds)
            assert holds_a_whole_suit(FlowEngine(), t, p) == some


@settings(SETTINGS, max_examples=20)
@given(tables())
def test_the_flow_engine_agrees_with_cpsat(t):
    flow, cpsat = FlowEngine().bounds(t), CpSatEngine().bounds(t)
    assert flow.feasible == cpsat.feasible == CpSatEngine().feasible(t)
    assert (flow.low, flow.high) == (cpsat.low, cpsat.high)


@settings(SETTINGS, max_examples=6)
@given(st.sampled_from([(4, 4, 4), (5, 5, 4), (6, 6, 2), (8, 8, 4)]), st.randoms(use_true_random=False))
def test_the_flow_engine_agrees_with_cpsat_along_games_too_big_to_list(config, rng):
    P, K, S = config
    game = GoFish(P, K, S, rules={"four": "off"})
    while not game.over and len(game.moves) < 12:
        if len(game.moves) % 4 == 3:
            cpsat = CpSatEngine().bounds(game.tables())
            assert (game.bounds().low, game.bounds().high) == (cpsat.low, cpsat.high)
        game.push(rng.choice(game.legal_moves()))


def test_a_four_of_some_suit_wins_where_no_named_four_is_proven():
    moves = ["0>1:A+", "1>0:B-", "2>0:B-", "0>1:C+"]  # seat 0 holds all of A or all of C, not always the same
    some = GoFish(3, suit_size=3, rules={"four": "some"})
    named = GoFish(3, suit_size=3)
    for move in moves:
        some.push(move)
        named.push(move)
    assert some.outcome == Outcome(0, "four") and some.fours() == [0]
    assert named.outcome is None and named.fours() == [] and named.count() == 2
    assert 3 not in named.bounds().low[0]


def test_a_repeated_position_is_a_draw():
    game = GoFish(2, 3, 4, rules={"repetition": "draw"})
    for move in ["0>1:C+", "1>0:C+", "0>1:C+"]:
        game.push(move)
        assert not game.over
    game.push("1>0:C+")  # what is known and who asks are as after the second move
    assert game.outcome == Outcome(None, "draw")
    game.pop()
    assert not game.over and game.turn == 1
    plain = GoFish(2, 3, 4)
    for move in ["0>1:C+", "1>0:C+", "0>1:C+", "1>0:C+"]:
        plain.push(move)
    assert not plain.over


def test_a_locally_possible_no_can_be_globally_impossible():
    """GOFISH.md: every row and column check passes, the bounds together admit no table."""
    # seats 0 and 1 can hold only suit A, and need 4 cards of its 2: each row and each column alone is fine
    t = Tables((2, 2, 2), (2, 2, 2), ((0, 0, 0),) * 3, ((2, 0, 0), (2, 0, 0), (2, 2, 2)))
    cell_checks = all(sum(t.high[p]) >= t.hands[p] for p in range(3)) and all(
        sum(t.high[p][s] for p in range(3)) >= t.suit_sizes[s] for s in range(2))
    assert cell_checks and not FlowEngine().feasible(t) and not CpSatEngine().feasible(t)


def test_a_game_engine_can_be_cpsat():
    game = GoFish(3, engine=CpSatEngine())
    for move in ["0>1:A+", "1>2:A+", "2>0:B-", "0>2:C-"]:
        game.push(move)
    assert game.winner == 0


def test_counting_stops_at_its_budget():
    t = Tables.initial(players=6, suits=6, suit_size=4)
    with pytest.raises(CountLimitError, match="more than 100 states") as err:
        count_tables(t, Limits(max_positions=100))
    assert err.value.reason == "states" and isinstance(err.value, QuaternityError)


# -- bad input ------------------------------------------------------------------------------------------------
def _fault(game, move):
    with pytest.raises(IllegalMove) as err:
        game.push(move)
    assert "\n" not in str(err.value)
    return err.value


OPENING = ["0>1:B-", "1>0:A-", "2>3:C-", "3>2:D-"]  # 4 players; seat 1 holds no B, seat 0 no A


def test_bad_moves_name_the_move_and_the_reason():
    game = GoFish(4)
    for text, detail in [("4>1:A+", "unknown player '4'"), ("0>1:E+", "unknown suit 'E'"), ("0>1A+", "expected"),
                         ("0>1:A", "expected"), ("x>1:A+", "unknown player 'x'")]:
        with pytest.raises(NotationError, match=detail) as err:
            game.push(text)
        assert str(err.value).startswith(f"move 1 ({text}): ")
    assert _fault(game, "0>0:A+").reason is Illegal.SELF_QUESTION
    err = _fault(game, "1>0:A+")
    assert err.reason is Illegal.NOT_ON_TURN and str(err) == "move 1 (1>0:A+): not on turn (seat 0 is)"
    for move in OPENING:
        game.push(move)
    err = _fault(game, "0>2:A?")
    assert err.reason is Illegal.ASKER_LACKS_SUIT and str(err).startswith("move 5 (0>2:A?): ")
    game.push("0>2:B?")
    assert _fault(game, "0>2:C+").reason is Illegal.WRONG_ANSWER
    assert _fault(game, "0>1:B?").reason is Illegal.QUESTION_OPEN


def test_an_impossible_answer_is_refused_or_loses():
    moves = OPENING + ["0>1:B+"]  # seat 1 said it holds no B, so it cannot say yes
    with pytest.raises(IllegalMove, match=r"^move 5 \(0>1:B\+\): the asked player holds none"):
        GoFish.from_record({"game": "gofish", "players": 4, "moves": moves})
    lost = GoFish.from_record({"game": "gofish", "players": 4, "rules": {"invalid": "lose"}, "moves": moves})
    assert lost.outcome == Outcome(None, "invalid", loser=1) and lost.moves == moves
    assert _fault(lost, "1>0:A+").reason is Illegal.GAME_OVER
    asker_lost = GoFish.from_record({"game": "gofish", "players": 4, "rules": {"invalid": "lose"},
                                     "moves": OPENING + ["0>2:A+"]})
    assert asker_lost.outcome == Outcome(None, "invalid", loser=0)


def test_nobody_asks_a_player_with_no_cards():
    game = GoFish(4, suit_size=2, rules={"four": "off", "after_yes": "again"})
    game.push("0>1:A+")
    game.push("0>1:B+")
    assert game.hands() == (4, 0, 2, 2) and game.turn == 0
    assert _fault(game, "0>1:C?").reason is Illegal.TARGET_EMPTY
    assert all(q.asked != 1 for q in game.legal_questions())


def test_forbid_refuses_asking_a_player_who_provably_holds_none():
    allow = GoFish.from_record({"game": "gofish", "players": 4, "moves": OPENING})
    forbid = GoFish.from_record({"game": "gofish", "players": 4, "rules": {"ask_void": "forbid"}, "moves": OPENING})
    assert allow.is_legal("0>1:B-") and not allow.is_legal("0>1:B+")
    assert forbid.check("0>1:B-") is Illegal.ASKED_VOID
    assert set(allow.legal_questions()) - set(forbid.legal_questions()) == {Move(0, 1, 1), Move(0, 2, 3), Move(0, 3, 2)}


def test_bad_setups_and_records_are_one_line_errors():
    cases = [
        (lambda: GoFish(3, suits=2), "option suits: 2 suits x 4 cards cannot be dealt evenly to 3 players"),
        (lambda: GoFish(1), "option players: 1 is not in 2..26"),
        (lambda: GoFish(3, suit_size=11), "option suit_size: 11 is not in 2..10"),
        (lambda: GoFish(3, rules={"four": "all"}), "option four: 'all' is not one of named, some, off"),
        (lambda: GoFish(3, rules={"first": 3}), "option first: seat 3 is not one of the 3 seats"),
        (lambda: GoFish(3, rules={"colour": "red"}), "option colour: unknown"),
        (lambda: GoFish(3, rules={"win_after_ask": "yes"}), "option win_after_ask: expected true or false"),
        (lambda: GoFish(3, rules="house"), "option preset: 'house' is not one of"),
        (lambda: GoFish(["Ann", "Ann"]), "option players: names repeat"),
        (lambda: GoFish(["Ann", "1"]), "option players: a name cannot be a number"),
    ]
    for make, message in cases:
        with pytest.raises(GoFishRulesError) as err:
            make()
        assert str(err.value).startswith(message) and "\n" not in str(err.value)
    record = {"game": "gofish", "players": 3, "moves": ["0>1:A?", "1>2:A+"]}
    with pytest.raises(NotationError, match=r"^move 1 \(0>1:A\?\): an open question \(\?\) can only be the last"):
        GoFish.from_record(record)
    for bad, message in [({"game": "quarto", "players": 3, "moves": []}, "field 'game'"),
                         ({"game": "gofish", "players": 3, "moves": [], "deal": 1}, "unknown field 'deal'"),
                         ({"game": "gofish", "moves": []}, "needs the fields")]:
        with pytest.raises(QuaternityError, match=message):
            GoFish.from_record(bad)


def test_a_file_of_another_game_is_named_so_before_any_field_go_fish_misses():
    """A Quarto position has no "players" or "moves": the message names its game, as for a Quarto record."""
    from quaternity_cp.gofish.check import new_game
    from quaternity_cp.gofish.rules import GoFishError

    quarto_position = {"game": "quarto", "board": [[None] * 4] * 4, "piece": "LSTS", "to_move": 0}
    for read in (new_game, GoFish.from_record):
        with pytest.raises(GoFishError, match=r'^field \'game\': expected "gofish", got "quarto"$'):
            read(quarto_position)
        with pytest.raises(GoFishError, match=r'^field \'game\': expected "gofish", got null$'):
            read({"game": None, "players": 2, "moves": []})
    assert new_game({"players": 2, "moves": []})[0].setup.player_count == 2  # no "game": Go Fish's
    with pytest.raises(GoFishError, match=r'^missing field \'game\' \(expected "gofish"\)$'):
        GoFish.from_record({"players": 2, "moves": []})


def test_presets_stand_for_their_options():
    assert Rules.from_dict("geraschenko") == Rules(ask_void="forbid", four="some", win_after_ask=True)
    assert Rules.from_dict({"preset": "geraschenko", "four": "named"}).four == "named"
    assert Rules.from_dict(Rules(after_yes="again").to_dict()) == Rules(after_yes="again")


def test_an_open_question_is_answered_with_legal_answers():
    game = GoFish.from_record({"game": "gofish", "players": 4, "moves": OPENING})
    game.ask(0, 1, 1)  # seat 1 holds no B: only no
    assert game.legal_answers() == [False] and game.pending == Move(0, 1, 1)
    assert game.record()["moves"][-1] == "0>1:B?"
    game.answer(False)
    assert game.moves[-1] == "0>1:B-" and game.pending is None


# -- exhaustive sweeps -----------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("config", [(2, 2, 2), (3, 3, 2), (2, 3, 2), (4, 2, 2)])
def test_every_game_of_a_small_table_plays_as_the_reference_says(config):
    """Every line of play of up to 5 moves, under every combination of the options that change legal play."""
    P, K, S = config
    names = ["ask_void", "after_yes", "four", "win_after_ask", "priority", "no_initial_four", "repetition"]
    for values in itertools.product(*(OPTIONS[n] for n in names)):
        rules = dict(zip(names, values))

        def walk(moves, depth):
            game = GoFish(P, K, S, rules)
            ref = Reference(P, K, S, rules)
            for m in moves:
                game.push(m)
                assert ref.play(m.asker, m.asked, m.suit, m.answer) is None
            _compare(game, ref)
            if depth == 0 or ref.over:
                return
            for a, b, s in ref.legal_questions():
                for yes in ref.legal_answers(a, b, s):
                    walk(moves + [Move(a, b, s, yes)], depth - 1)

        walk([], 5 if P <= 2 else 3)


def test_replay_states_share_their_history():
    """A record of n moves keeps n texts in all (issue 38: every state had its own copy, n²/2 in all)."""
    from quaternity_cp.gofish.check import replay

    moves = ["0>1:A+", "1>0:A+"] * 300
    result = replay({"game": "gofish", "players": 2, "moves": moves})
    assert result.error_index is None
    states = result.game.states()
    assert len(states) == len(moves) + 1 and list(states[-1].moves) == moves
    nodes, seen = 0, set()
    for st in states:
        node = st.moves
        while node is not None and id(node) not in seen:
            seen.add(id(node))
            nodes += 1
            node = node.parent
    assert nodes == len(moves) + 1  # one link per move (and the empty start), shared by every later state


@given(seed=st.integers(0, 10_000), split=st.booleans())
@settings(max_examples=40, deadline=None)
def test_pop_gives_back_the_move_push_played(seed, split):
    """``pop()`` returns the move it took back, equal to what ``push`` returned (issue 40: it returned the
    text, where Quaternity's returns the move): whole questions, questions alone and their answers."""
    import random

    rng = random.Random(seed)
    game = GoFish(3, 3, 2)
    played = []
    while not game.state.outcome and len(played) < 12:
        if game.pending is not None:
            played.append(game.answer(rng.choice(game.legal_answers())))
            continue
        question = rng.choice(game.legal_questions())
        if split:
            played.append(game.push(question))
        else:
            answers = []
            for yes in (True, False):
                try:
                    probe = game.copy()
                    probe.push(Move(question.asker, question.asked, question.suit, yes))
                    answers.append(yes)
                except QuaternityError:
                    pass
            played.append(game.push(Move(question.asker, question.asked, question.suit, rng.choice(answers))))
    while played:
        assert game.pop() == played.pop()
    with pytest.raises(QuaternityError):
        game.pop()

"""The web table's sessions (quaternity_cp.web.session) without a server: several people at one table with
their secrets, what each seat sees against the brute-force reference of what it may know, the moves told in
plain words, undo, agents one move at a time, the end of the game, the table sizes offered, bad values."""

from __future__ import annotations

import json
import random
import re

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import Reference, deal_facts, private_deals

from quaternity_cli.main import main
from quaternity_cp.quartets.game import Game
from quaternity_cp.registry import load_all
from quaternity_cp.quartets.rules import Rules
from quaternity_cp.web.session import WEB_LIMITS, WebError, WebGame, catalogue

SMALL = {"preset": "quaternity", "players": 3, "sets": 3, "set_size": 2}


def everyone(options: dict, seed: int = 1, game: str = "quartets") -> WebGame:
    """A table where every seat is a person (the tests choose every move)."""
    players = load_all()[game].seats({**load_all()[game].default_options(), **options})
    return WebGame.new(game, options, humans=list(range(players)), seed=seed)


def play_randomly(table: WebGame, rng: random.Random, moves: int | None = None) -> None:
    """Random legal moves for whichever seat must decide, ``moves`` of them or to the end."""
    done = 0
    while not table.state.is_terminal() and (moves is None or done < moves):
        if table.agent_step():
            continue
        seat = table.state.current_player()
        table.act(rng.choice(table.legal_texts(seat)), seat)
        done += 1


def grid(svg: str) -> dict[str, dict[int, str]]:
    """card -> seat -> forced / possible / impossible, read from the picture."""
    out: dict[str, dict[int, str]] = {}
    for card, seat, state in re.findall(r'data-card="([^"]+)" data-seat="(\d+)" data-state="(\w+)"', svg):
        out.setdefault(card, {})[int(seat)] = state
    return out


def expected(owners: dict[int, list[int]], game: Game) -> dict[str, dict[int, str]]:
    return {game.card_name(c): {p: ("forced" if seats == [p] else "possible" if p in seats else "impossible")
                                for p in range(game.players)} for c, seats in owners.items()}


# -- several people, their secrets --------------------------------------------------------------------
def test_every_person_has_a_secret_and_only_that_secret_finds_the_seat():
    table = WebGame.new("quartets", {**SMALL, "preset": "classic", "sets": 3, "set_size": 2}, humans=[2, 0],
                        seed=3, advance=False)
    assert table.humans == (2, 0) and table.human == 2 and set(table.tokens) == {0, 2}
    assert len({*table.tokens.values()}) == 2 and all(len(t) == 24 for t in table.tokens.values())
    for seat, token in table.tokens.items():
        assert table.seat_of(token) == seat
        assert table.seat_of(token[:-1]) is None and table.seat_of(token + "x") is None
    for bad in (None, 0, b"x", "", "é" * 24, "\ud800", table.tokens[0].upper()):
        assert table.seat_of(bad) is None
    other = WebGame.new("quartets", SMALL, humans=[0, 2], seed=3)
    assert other.seat_of(table.tokens[0]) is None  # a table's secret opens no other table


def test_a_person_acts_only_in_turn_and_only_for_a_persons_seat():
    table = WebGame.new("quartets", SMALL, humans=[0, 1], agents={2: "random"}, seed=5, advance=False)
    assert table.state.current_player() == 0
    with pytest.raises(WebError, match="say which seat"):
        table.act("0>1:A0?")
    with pytest.raises(WebError, match="say which seat"):
        table.view()
    with pytest.raises(WebError, match="not your turn"):
        table.act("0>1:A0?", 1)
    with pytest.raises(WebError, match="played by an agent"):
        table.act("0>1:A0?", 2)
    first = table.legal_texts(0)[0]
    table.act(first, 0)
    assert table.log[-1] == (0, first)


def test_views_of_the_seats_differ_only_in_what_each_may_know():
    table = WebGame.new("quartets", {"preset": "classic", "players": 3, "sets": 3, "set_size": 4},
                        humans=[0, 1, 2], seed=11)
    views = [table.view(s) for s in range(3)]
    hands = [set(v["hand"]) for v in views]
    assert all(len(h) == 4 for h in hands) and not (hands[0] & hands[1] or hands[1] & hands[2])
    for s, v in enumerate(views):
        assert v["seat"] == v["human"] == s and v["humans"] == [0, 1, 2]
        assert v["names"][s] == "You" and all(n == f"Seat {p}" for p, n in enumerate(v["names"]) if p != s)
        starred = set(re.findall(r">([A-Z]\d+) ★<", v["svg"]))
        assert starred == hands[s]
        assert "result" not in v and "deal" not in table.record(s)
        assert [t["cards"] for t in v["table"]] == [4, 4, 4]
        for p in range(3):  # another seat's cards are never shown as known to be there (beyond public facts)
            if p != s:
                shown = grid(v["svg"])
                assert all(shown[c][p] != "forced" for c in hands[p])


CLASSIC_SIZES = [(2, 2, 2), (2, 3, 2), (3, 3, 2), (3, 2, 3), (2, 2, 3), (4, 2, 2)]


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.sampled_from(CLASSIC_SIZES), seed=st.integers(0, 10_000), moves=st.integers(0, 12))
def test_each_seat_sees_exactly_what_it_may_know_in_classic(size, seed, moves):
    """Every seat's grid is the brute-force reference's: the consistent deals that give the seat its hand."""
    P, N, S = size
    table = everyone({"preset": "classic", "players": P, "sets": N, "set_size": S}, seed)
    play_randomly(table, random.Random(seed), moves)
    record = table.full_record()
    game = Game(P, N, S)
    ref = Reference(game, Rules.preset("classic"), record["first"])
    state = ref.start()
    for i, text in enumerate(record["moves"], 1):
        state, kind = ref.play(state, game.parse_move(text), i)
        assert kind is None
    for seat in range(P):
        hand = sorted(table.state.observation(seat).hand)
        view = table.view(seat)
        assert view["hand"] == [game.card_name(c) for c in hand]
        facts = deal_facts(ref, state, private_deals(ref, state, seat, hand))
        assert grid(view["svg"]) == expected(facts["owners"], game), seat
        assert ("result" in view) == table.state.is_terminal()


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(["quaternity", "blind", "pythagoras"]),
       size=st.sampled_from([(2, 2, 2), (3, 3, 2), (3, 2, 3), (2, 3, 2)]), seed=st.integers(0, 10_000),
       moves=st.integers(0, 10))
def test_in_the_quaternity_presets_every_seat_sees_the_public_knowledge(preset, size, seed, moves):
    P, N, S = size
    table = everyone({"preset": preset, "players": P, "sets": N, "set_size": S}, seed)
    play_randomly(table, random.Random(seed), moves)
    record = table.full_record()
    game = Game(P, N, S)
    ref = Reference(game, Rules.preset(preset), tie_break=record.get("tie_break"))
    state = ref.start()
    for i, text in enumerate(record["moves"], 1):
        state, kind = ref.play(state, game.parse_move(text), i)
        assert kind is None
    want = expected(deal_facts(ref, state, state.deals)["owners"], game)
    for seat in range(P):
        view = table.view(seat)
        assert view["hand"] == [] and grid(view["svg"]) == want


# -- the moves in plain words ----------------------------------------------------------------------------
def test_an_answer_written_in_place_of_the_question_is_refused_not_dropped():
    """The answer is the asked seat's: "0>2:C0+" at seat 0's turn was played as the question alone."""
    table = everyone(SMALL)
    with pytest.raises(WebError, match=r"ask the question alone \(0>2:C0\?\); the asked player answers it"):
        table.act("0>2:C0+", 0)
    assert table.view(0)["log"] == []
    table.act("0>2:C0?", 0)
    table.act("0>2:C0+", 2)  # the answer, by the asked seat
    assert table.view(0)["log"][-1]["move"] == "0>2:C0+"


def test_questions_answers_and_claims_are_told_from_each_seats_side():
    table = everyone(SMALL)  # rules example 6: two claims at once, one for a seat that took no part
    table.act("0>2:C0?", 0)
    assert table.view(2)["status"] == "Seat 0 asks you for C0: answer yes or no (both are possible)."
    assert table.view(0)["status"] == "You asked Seat 2 for C0: waiting for the answer."
    assert table.view(1)["status"] == "Seat 0 asked Seat 2 for C0: waiting for the answer."
    assert table.view(2)["log"][-1] == {"seat": 0, "move": "0>2:C0?", "text": "Seat 0 asks you for C0.", "you": False}
    assert table.view(0)["log"][-1] == {"seat": 0, "move": "0>2:C0?", "text": "You ask Seat 2 for C0.", "you": True}
    table.act("0>2:C0+", 2)
    assert table.view(2)["log"][-1]["text"] == ("Seat 0 asked you for C0: you said yes and handed it over. "
                                                "Set C is claimed by Seat 0: all its cards are known to be there.")
    table.act("0>2:B0?", 0)
    table.act("0>2:B0+", 2)
    words = [e["text"] for e in table.view(1)["log"]]
    assert words[1] == ("Seat 0 asked Seat 2 for B0: Seat 2 said yes and handed it over. Sets A and B are claimed, "
                        "all their cards known: A by you, B by Seat 0.")
    mine = table.view(0)["log"]
    assert mine[0]["text"].startswith("You asked Seat 2 for C0") and all(e["you"] for e in mine)
    end = table.view(0)
    assert end["over"] and end["result"] == {"winners": [0], "outcome": "won", "you_won": True,
                                             "text": "You won with 2 sets. Sets: you 2, Seat 1 1, Seat 2 0."}
    assert end["status"] == end["result"]["text"]
    assert table.view(1)["result"]["text"] == "Seat 0 won with 2 sets. Sets: Seat 0 2, you 1, Seat 2 0."
    assert table.view(1)["result"]["you_won"] is False and table.view(1)["result"]["outcome"] == "lost"


def test_a_no_a_declaration_and_a_put_down_are_told():
    table = everyone({"preset": "blind", "players": 3, "sets": 3, "set_size": 2}, seed=1)
    assert table.view(0)["status"] == "Your turn: ask a player for a card, or declare a set."
    table.act("0>1:A0?", 0)
    table.act("0>1:A0-", 1)
    assert table.view(1)["log"][0]["text"] == "Seat 0 asked you for A0: you said no."
    assert table.view(2)["log"][0]["text"] == "Seat 0 asked Seat 1 for A0: Seat 1 said no."
    table.act("1!B", 1)
    assert table.view(0)["log"][1]["text"] == "Seat 1 declared set B and claimed it."
    assert table.view(1)["log"][1]["text"] == "You declared set B and claimed it."
    forced = everyone({"preset": "quaternity", "players": 2, "sets": 2, "set_size": 2})  # rules example 1
    forced.act("0>1:A0?", 0)  # only yes is possible: it is given at once
    assert forced.view(1)["log"][0]["text"] == ("Seat 0 asked you for A0: you said yes (the only possible answer) "
                                                "and handed it over. Set A is claimed by Seat 0: all its cards are "
                                                "known to be there.")
    classic = everyone({"preset": "classic", "players": 3, "sets": 3, "set_size": 2}, seed=2)
    play_randomly(classic, random.Random(2))
    for seat in range(3):
        log = classic.view(seat)["log"]
        downs = [e for e in log if "!" in e["move"]]
        assert downs and all(e["text"] == ("You" if e["seat"] == seat else f"Seat {e['seat']}")
                             + f" put down set {e['move'].split('!')[1]}." for e in downs)
        assert [e["move"] for e in log] == classic.record()["moves"]


@pytest.fixture
def no_clock(monkeypatch):
    """The web views' solver and explainer without their wall-clock budgets (2 s each on the server): the Quarto
    verdict (its ``max_seconds``) and the quartets explanations (``COUNT_SECONDS``; counts stay bounded by
    MAX_COUNT_STATES states). What these tests see never depends on how busy the machine is."""
    import functools

    import quaternity_cp.quartets.web as quartets_web
    import quaternity_cp.quarto.web as quarto_web

    monkeypatch.setattr(quarto_web, "verdict", functools.partial(quarto_web.verdict, max_seconds=None))
    monkeypatch.setattr(quartets_web, "COUNT_SECONDS", None)


def test_quarto_moves_and_the_verdict_in_plain_words(no_clock):
    table = everyone({}, game="quarto")
    for seat, move in [(0, "LRTS"), (1, "A1 LRTH"), (0, "A2 DSSH"), (1, "D4 LRSS"), (0, "A3 LRSH")]:
        table.act(move, seat)
    assert table.view(1)["status"] == ("Your turn: place LRSH (light round short hollow) on an empty cell, then "
                                       "choose the piece Player 0 places next.")
    assert table.view(0)["status"] == "Player 1 is to place LRSH (light round short hollow) and choose a piece for you."
    assert table.verdict(1)["text"].startswith("With best play the player to move (you) wins. A best move: A4.")
    assert table.verdict(0)["text"].startswith("With best play the player to move (Player 1) wins.")
    table.act("A4", 1)
    words = [e["text"] for e in table.view(0)["log"]]
    assert words[0] == "You chose LRTS (light round tall solid) for Player 1 to place."
    assert words[1] == "Player 1 placed LRTS on A1 and gave you LRTH (light round tall hollow)."
    assert words[-1] == "Player 1 placed LRSH on A4. That completes a line: Player 1 won."
    assert table.view(1)["log"][-1]["text"] == "You placed LRSH on A4. That completes a line: you won."
    result = table.view(0)["result"]
    assert result["winners"] == [1] and result["you_won"] is False and "hands" not in result
    assert result["outcome"] == "lost" and table.view(1)["result"]["outcome"] == "won"
    assert result["text"] == ("Player 1 won by completing a line of four pieces that share a trait "
                              "(A4 A3 A2 A1: all light and round).")
    assert table.verdict(0)["text"].startswith("Game over. Player 1 won")
    legend = {e["mark"]: e["meaning"] for e in table.view(0)["legend"]}
    assert legend["L / D"] == "letter 1 of a piece: its colour, light or dark" and "S / H" in legend


def test_a_quarto_draw_says_nobody_won():
    for seed in range(300):
        table = everyone({}, seed, game="quarto")
        play_randomly(table, random.Random(seed))
        if table.state.position.winner is None:
            break
    else:
        raise AssertionError("no draw in 300 random games")
    view = table.view(0)
    # a draw is no loss: nobody won, so no "you won" either way (the page's end panel says "A draw")
    assert view["result"]["winners"] == [] and view["result"]["you_won"] is None
    assert view["result"]["outcome"] == "draw" and table.view(1)["result"]["outcome"] == "draw"
    assert view["result"]["text"].startswith("A draw: the board is full")
    assert view["status"].startswith("A draw")


# -- the end: who won and why ----------------------------------------------------------------------------
def tied_game(preset: str, size: tuple[int, int, int]) -> WebGame:
    """A finished game of ``preset`` and ``size`` that ends in a tie for first (the first seed that does)."""
    P, N, S = size
    for seed in range(200):
        table = everyone({"preset": preset, "players": P, "sets": N, "set_size": S}, seed)
        play_randomly(table, random.Random(seed))
        scores = table.state.scores()
        if table.state.is_terminal() and scores.count(max(scores)) > 1:
            return table
    raise AssertionError(f"no tie in 200 games of {preset}")


@pytest.mark.parametrize("preset, size, rule", [
    ("quaternity", (3, 3, 2), "all-lose"),
    ("pythagoras", (4, 2, 4), "shared"),
    ("blind", (2, 4, 2), "first"),
    ("classic", (2, 4, 2), "random"),
])
def test_the_result_says_when_the_tie_rule_decides(tmp_path, preset, size, rule):
    table = tied_game(preset, size)
    record = table.record()
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    checked = CliRunner().invoke(main, ["check", str(path), "--json"])
    assert checked.exit_code == 0, checked.output
    winners = json.loads(checked.output)["winners"]
    scores = [int(x) for x in table.state.scores()]
    top = max(scores)
    tied = [p for p, x in enumerate(scores) if x == top]
    for seat in range(size[0]):
        result = table.view(seat)["result"]
        assert result["winners"] == winners and result["you_won"] == ((seat in winners) if winners else None)
        assert result["outcome"] == ("won" if seat in winners else "lost" if winners else "draw")
        names = ["you" if p == seat else f"Seat {p}" for p in tied]
        listed = ", ".join(names[:-1]) + " and " + names[-1]
        text = result["text"]
        assert text.startswith(f"Tie for first: {listed} have {top} set{'s' if top > 1 else ''} each; "
                               f"under the rule tie={rule} "), text
        tally = ", ".join(f"{'you' if p == seat else f'Seat {p}'} {x}" for p, x in enumerate(scores))
        assert text.endswith(f" Sets: {tally}."), text
        winner = "you." if winners == [seat] else f"Seat {winners[0]}." if winners else ""
        says = {"all-lose": "a tie for first means nobody wins.",
                "shared": "the tied players share the win" + (": you share it." if seat in tied else "."),
                "first": f"the one who reached {top} set{'s' if top > 1 else ''} first wins: {winner}",
                "random": f"one of them was drawn at random to win: {winner}"}[rule]
        assert says in text, text
    assert winners == {"all-lose": [], "shared": tied}.get(rule, winners)
    assert rule in ("all-lose", "shared") or (len(winners) == 1 and winners[0] in tied)
    if rule == "random":
        assert winners == [record["tie_break"]]
        hands = table.view(0)["result"]["hands"]  # classic: every hand as dealt, for everybody at the end
        assert hands == {str(p): cards for p, cards in record["deal"].items()}
        assert table.view(1)["result"]["hands"] == hands
    else:
        assert "hands" not in table.view(0)["result"]


def test_a_classic_game_stopped_by_the_question_limit_says_nobody_won(monkeypatch):
    import quaternity_cp.quartets.state as quartets_game

    monkeypatch.setattr(quartets_game, "MAX_QUESTIONS", 3)
    table = everyone({"preset": "classic", "players": 3, "sets": 3, "set_size": 4}, seed=1)
    play_randomly(table, random.Random(1))
    result = table.view(0)["result"]
    assert result["winners"] == [] and result["you_won"] is None and result["outcome"] == "draw"
    assert set(result["hands"]) == {"0", "1", "2"}
    assert result["text"].startswith(f"The game stopped unfinished after {len(table.record()['moves'])} moves "
                                     "(the table's limit): nobody wins. Sets: you ")


def test_legend_rules_page_and_names():
    table = WebGame.new("quartets", {**SMALL, "preset": "classic"}, human=1, agents={0: "random", 2: "knowledge"},
                        seed=4)
    view = table.view()
    assert view["rules"] == "/games/quartets/rules.html"  # the game's own page part, from its package
    assert view["names"] == ["Seat 0 (random)", "You", "Seat 2 (knowledge)"]
    marks = {e["mark"] for e in view["legend"]}
    assert {"■", "●", "·", "★"} <= marks and all(e["meaning"] for e in view["legend"])
    assert "★" not in {e["mark"] for e in WebGame.new("quartets", SMALL, seed=4).view()["legend"]}
    assert WebGame.new("quarto", seed=1).view()["rules"] == "/games/quarto/rules.html"


# -- undo, versions, agents one move at a time ---------------------------------------------------------
def test_undo_takes_back_a_persons_move_until_another_person_moved():
    table = WebGame.new("quartets", {"preset": "quaternity", "players": 3, "sets": 3, "set_size": 3},
                        humans=[0, 1], agents={2: "random"}, seed=7)
    version = table.version
    with pytest.raises(WebError, match="nothing to undo"):
        table.undo(0)
    start = table.record()
    rng = random.Random(1)
    while table.state.current_player() != 1:  # seat 0 moves (the agent may too) until seat 1 must decide
        seat = table.state.current_player()
        table.act(rng.choice(table.legal_texts(seat)), seat)
    assert table.version > version and table.view(0)["can_undo"] and not table.view(1)["can_undo"]
    table.act(table.legal_texts(1)[0], 1)
    assert table.view(1)["can_undo"] and not table.view(0)["can_undo"]
    with pytest.raises(WebError, match="Seat 1 has moved since your last move"):
        table.undo(0)
    before = table.version
    table.undo(1)
    assert table.version == before + 1 and table.state.current_player() == 1
    while table.view(0)["can_undo"]:
        table.undo(0)
    assert table.record() == start and table.log == [] and not table.marks


def test_the_version_counts_every_move_and_every_undo():
    table = everyone(SMALL)
    assert table.version == 0
    table.act("0>1:A0?", 0)
    assert table.version == 1
    assert table.state.current_player() == 1  # both answers are legal: seat 1 answers
    table.act("0>1:A0-", 1)
    assert table.version == 2
    table.undo(1)
    assert table.version == 3 and len(table.log) == 1
    table.undo(0)
    assert table.version == 4 and table.log == [] and table.view(0)["version"] == 4


def test_agents_move_one_at_a_time_and_the_same_seed_plays_the_same_game():
    options = {"preset": "classic", "players": 4, "sets": 4, "set_size": 4}
    agents = {1: "knowledge", 2: "random", 3: "cautious"}
    at_once = WebGame.new("quartets", options, human=0, agents=agents, seed=42)
    stepped = WebGame.new("quartets", options, human=0, agents=agents, seed=42, advance=False)
    rng = random.Random(0)
    while True:
        while stepped.agent_to_move() is not None:
            version = stepped.version
            assert stepped.agent_step() and stepped.version == version + 1
        assert not stepped.agent_step() and stepped.log == at_once.log and at_once.agent_to_move() is None
        if at_once.state.is_terminal():
            break
        move = rng.choice(at_once.legal_texts())
        at_once.act(move)
        stepped.act(move)
    assert stepped.record() == at_once.record()
    other = WebGame.new("quartets", options, human=0, agents=agents, seed=43)
    assert other.full_record()["deal"] != at_once.full_record()["deal"]


def test_an_agent_that_cannot_play_is_a_clean_error():
    options = {"preset": "quaternity", "players": 3, "sets": 3, "set_size": 2}
    try:
        table = WebGame.new("quartets", options, human=0, agents={1: "koole-first", 2: "random"}, seed=1,
                            advance=False)
    except WebError as err:  # refused at creation (the agent says it plays classic only)
        assert "koole-first" in str(err)
        return
    table.act(table.legal_texts()[0])
    while table.agent_to_move() not in (None, 1):
        table.agent_step()
    if table.agent_to_move() == 1:
        with pytest.raises(WebError, match="koole-first"):
            table.agent_step()


def test_a_closed_table_takes_no_moves():
    table = everyone(SMALL)
    table.close()
    assert table.closed and not table.view(0)["can_undo"] and table.agent_to_move() is None
    with pytest.raises(WebError, match="closed"):
        table.act("0>1:A0?", 0)
    with pytest.raises(WebError, match="closed"):
        table.undo(0)


# -- the sizes the web offers ----------------------------------------------------------------------------
def test_the_limits_are_the_same_for_the_form_the_api_and_the_terminal():
    games = catalogue()
    for name, spec in load_all().items():
        assert games[name]["limits"] == WEB_LIMITS[name]
        for o in spec.options:
            form = {k: v for k, v in o.to_json().items() if k in ("min", "max", "choices")}
            assert WEB_LIMITS[name]["options"].get(o.name, {}) == form
    assert WEB_LIMITS["quartets"]["options"]["players"] == {"min": 2, "max": 8}
    for players, most in WEB_LIMITS["quartets"]["cards_per_hand"].items():
        players = int(players)
        fits = next((n, s) for s in range(10, 1, -1) for n in range(26, 0, -1) if n * s == most * players)
        WebGame.new("quartets", {"preset": "classic", "players": players, "sets": fits[0], "set_size": fits[1]},
                    seed=1, advance=False)
        over = next((n, s) for s in range(2, 11) for n in range(1, 27)
                    if n * s % players == 0 and n * s // players > most)
        with pytest.raises(WebError, match=f"with {players} players at most {most} cards each"):
            WebGame.new("quartets", {"preset": "quaternity", "players": players, "sets": over[0],
                                     "set_size": over[1]}, seed=1)
    for args in (["--players", "9"], ["--players", "6", "--sets", "10", "--set-size", "6"]):
        out = CliRunner().invoke(main, ["play", *args, "--seed", "1"], input="quit\n")
        assert out.exit_code == 2, out.output
    assert "too large to play at a table: with 6 players at most 6 cards each" in out.output


# -- bad values ----------------------------------------------------------------------------------------------
BAD_NEW = [
    ({"game": "chess"}, "unknown game 'chess'"),
    ({"game": 3}, "unknown game 3"),
    ({"options": [1]}, "options must be an object"),
    ({"options": {"players": "3"}}, "option 'players' must be a whole number"),
    ({"options": {"players": True}}, "option 'players' must be a whole number"),
    ({"options": {"players": 3.0}}, "option 'players' must be a whole number"),
    ({"options": {"players": 9}}, "must be at most 8"),
    ({"options": {"sets": 0}}, "must be at least 1"),
    ({"options": {"preset": "chess"}}, "option 'preset' must be one of"),
    ({"options": {"engine": "flow"}}, "'engine' is not an option of quartets"),
    ({"options": {"seed": 1}}, "'seed' is not an option"),
    ({"options": {"tie": ["shared"]}}, "option 'tie' must be text"),
    ({"options": {"tie": "coin"}}, "tie"),
    ({"options": {"players": 3, "sets": 2, "set_size": 2}}, "evenly"),
    ({"options": {"players": 6, "sets": 10, "set_size": 6}}, "too large to play at a table"),
    ({"game": "quarto", "options": {"squares": 1}}, "option 'squares' must be true or false"),
    ({"seed": True}, "seed must be a whole number"),
    ({"seed": 1.5}, "seed must be a whole number"),
    ({"seed": 2**70}, "seed must be a whole number"),
    ({"seed": "1"}, "seed must be a whole number"),
    ({"humans": []}, "humans must be a list"),
    ({"humans": "0"}, "humans must be a list"),
    ({"humans": [0, 0]}, "given twice"),
    ({"humans": [5]}, "seat 5: the game has seats 0 to 2"),
    ({"humans": ["0"]}, "seat '0': the game has seats"),
    ({"humans": [True]}, "seat True: the game has seats"),
    ({"human": 3}, "seat 3: the game has seats 0 to 2"),
    ({"human": -1}, "seat -1"),
    ({"agents": [1]}, "agents must be an object"),
    ({"agents": {"x": "random"}}, "a seat in agents must be a seat number"),
    ({"agents": {"7": "random"}}, "seat 7: the game has seats"),
    ({"agents": {"0": "random"}}, "seat 0 is a person's seat"),
    ({"agents": {"1": "nobody"}}, "unknown agent 'nobody'"),
    ({"agents": {"1": 5}}, "unknown agent 5"),
    ({"agents": {1: "solver"}, "options": {"preset": "classic"}}, "the agent solver cannot play this game"),
]


@pytest.mark.parametrize("kwargs, message", BAD_NEW)
def test_bad_values_at_creation_are_refused_in_words(kwargs, message):
    args = {"game": "quartets", "options": SMALL, **kwargs}
    with pytest.raises(WebError) as info:
        WebGame.new(args.pop("game"), args.pop("options"), **args)
    assert message in str(info.value)
    assert "\n" not in str(info.value) and "Error" not in str(info.value)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                                 max_size=3), max_leaves=6)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(game=st.sampled_from(["quartets", "quarto"]) | JSON, options=JSON | st.fixed_dictionaries(
    {}, optional={"players": JSON, "sets": JSON, "set_size": JSON, "preset": JSON, "tie": JSON, "squares": JSON}),
    human=JSON, humans=JSON, agents=JSON | st.dictionaries(st.sampled_from(["0", "1", "2", "9", "x"]), JSON),
    seed=JSON)
def test_any_value_sent_at_creation_gives_a_table_or_a_web_error(game, options, human, humans, agents, seed):
    try:
        table = WebGame.new(game, options, human=human, humans=humans, agents=agents, seed=seed, advance=False)
    except WebError as err:
        assert str(err) and "\n" not in str(err)
        return
    assert table.humans and table.view(table.humans[0])["version"] == 0


def test_bad_moves_and_requests_during_a_game_are_refused_in_words():
    table = WebGame.new("quartets", SMALL, humans=[0, 1], agents={2: "random"}, seed=1)
    for text, message in [(None, "that is not a move"), (5, "that is not a move"), ("", "that is not a move"),
                          ("x" * 500, "that is not a move"), ("0>1:Z9?", "'0>1:Z9?'"),
                          ("hello", "'hello'"), ("0>0:A0?", "is not legal now: a player cannot ask itself")]:
        with pytest.raises(WebError, match=re.escape(message)):
            table.act(text, 0)
    with pytest.raises(WebError, match="a watcher only watches"):  # -1: the watch link's seat (WATCH)
        table.act("0>1:A0?", -1)
    for seat in (3, -2, "0", True, 1.0, None):
        with pytest.raises(WebError):
            table.act("0>1:A0?", seat)
        if seat is not None:
            with pytest.raises(WebError, match="the game has seats 0 to 2"):
                table.view(seat)
            with pytest.raises(WebError, match="the game has seats 0 to 2"):
                table.record(seat)
    with pytest.raises(WebError, match=re.escape("seat 99: the game has seats 0 to 2")):
        table.explain(0, card="A0", seat=99)
    for kwargs, message in [({"card": "Z9"}, "Z9"), ({"card": 5}, "card must be a name"),
                            ({"card": "A" * 50}, "card must be a name"), ({"set_name": ""}, "set must be a name"),
                            ({}, "say which card or which set"), ({"card": "A0", "set_name": "A"}, "one of them")]:
        with pytest.raises(WebError, match=re.escape(message)):
            table.explain(0, **kwargs)
    assert table.explain(0, card="A0", seat=1)
    with pytest.raises(WebError, match="no solver's verdict"):
        table.verdict(0)
    with pytest.raises(WebError, match="no explanations"):
        WebGame.new("quarto", seed=1).explain(card="A0")
    finished = everyone(SMALL)
    play_randomly(finished, random.Random(0))
    with pytest.raises(WebError, match="the game is over"):
        finished.act("0>1:A0?", 0)


def test_an_explanation_never_shows_another_seats_hand(no_clock):
    table = WebGame.new("quartets", {"preset": "classic", "players": 3, "sets": 3, "set_size": 4}, humans=[0, 1, 2],
                        seed=5)
    hands = {s: table.view(s)["hand"] for s in range(3)}
    for s in range(3):
        for card in hands[(s + 1) % 3]:
            lines = table.explain(s, card=card, seat=(s + 1) % 3)
            assert not lines[0].startswith("Too long"), lines  # an explanation, not a refusal (no clock here)
            assert "your hand" not in lines[0] or card in hands[s]
            assert not any(c in " ".join(lines) for c in hands[(s + 1) % 3] if c != card)
        assert table.explain(s, card=hands[s][0]) == [f"{hands[s][0]} is in your hand."]


# -- agents' budgets and cancelled moves -------------------------------------------------------------------
SAFETY = 60.0  # seconds: a net for a move that never ends, far above any expected wait
BIG_CLASSIC = {"preset": "classic", "players": 4, "sets": 16, "set_size": 10}  # a determinized move: minutes


class Endless:
    """A test agent that draws random numbers until stopped (at most SAFETY seconds, then its first move)."""

    draws = 0

    def step(self, observation, legal_actions, rng):
        import time

        deadline = time.monotonic() + SAFETY
        while time.monotonic() < deadline:
            rng.random()
            rng.randrange(7)
            Endless.draws += 1
        return legal_actions[0]


def test_an_agent_past_its_hard_budget_is_stopped_and_a_random_legal_move_played(monkeypatch):
    import time

    from quaternity_cp.web.session import HARD_BUDGET_FACTOR

    monkeypatch.setitem(load_all()["quartets"].agents, "endless", Endless)
    table = WebGame.new("quartets", SMALL, human=2, agents={0: "endless", 1: "endless"}, seed=2, advance=False,
                        agent_seconds=0.05)
    seat = table.agent_to_move()
    legal = table.legal_texts(seat)
    start = time.monotonic()
    assert table.agent_step()
    assert time.monotonic() - start < SAFETY / 2  # stopped near HARD_BUDGET_FACTOR x 0.05 s, not after SAFETY
    assert table.fallbacks == {seat: 1} and table.log[-1][0] == seat and table.log[-1][1] in legal
    assert HARD_BUDGET_FACTOR * 0.05 < 1


def test_the_agents_budget_goes_to_agents_that_take_a_time_limit_and_the_numbers_stay_the_same():
    budgeted = WebGame.new("quartets", BIG_CLASSIC, human=3, agents=dict.fromkeys((0, 1, 2), "determinized"),
                           seed=3, advance=False, agent_seconds=1.5)
    assert {a.max_seconds for a in budgeted.agents.values()} == {1.5}
    free = WebGame.new("quartets", {**SMALL, "preset": "classic"}, human=0, agents={1: "ismcts", 2: "knowledge"},
                       seed=3, advance=False)  # no budget (terminal play): the agents as they are
    assert free.agents[1].max_seconds is None and not hasattr(free.agents[2], "max_seconds")
    from quaternity_cp.registry import derive_seed  # the draws: those of random.Random with the seat's seed

    mine, reference = free.rngs[2], random.Random(derive_seed(3, 2))
    assert [mine.randrange(1000) for _ in range(50)] == [reference.randrange(1000) for _ in range(50)]
    assert mine.random() == reference.random() and mine.sample(range(99), 5) == reference.sample(range(99), 5)


def test_closing_a_table_stops_its_agents_move_at_once():
    """A determinized move at the largest classic table (minutes, no budget here) stops as soon as the table
    is closed, from another thread: it is not played."""
    import threading
    import time

    table = WebGame.new("quartets", BIG_CLASSIC, human=3, agents=dict.fromkeys((0, 1, 2), "determinized"),
                        seed=3, advance=False)
    seat = table.agent_to_move()
    assert seat == 0
    failure: list[str] = []

    def think() -> None:
        try:
            table.agent_step()
        except WebError as err:
            failure.append(str(err))

    thread = threading.Thread(target=think, daemon=True)
    thread.start()
    deadline = time.monotonic() + SAFETY
    while table.agents[seat].searched < 1:  # the search is under way: it has drawn its first world
        assert thread.is_alive() and time.monotonic() < deadline, "the agent did not start searching"
        time.sleep(0.005)
    table.close()
    thread.join(SAFETY)
    assert not thread.is_alive(), "the agent's move went on after the table was closed"
    assert failure == ["this table is closed: start a new game"] and table.version == 0 and not table.log

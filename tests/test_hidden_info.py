"""No hidden information in any answer, by construction: the attacker's side.

A player at a classic table collects every number and every string it is handed
(the web API's answers, the terminal's lines, an agent's observation, the
research bridges' observations), tries each as the game's seed, plainly and
through the simple derivations the project uses (:func:`derive_seed`), and
checks that none deals the cards again: no answer may carry the seed or
anything that regenerates the deal. An undo never tells what the table could
not know: in classic Quartets a question, answered at once, cannot be taken back.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from typing import Any

import pytest
from click.testing import CliRunner

from quaternity_cp.registry import GAMES, derive_seed, load_all
from quaternity_cp.web.session import MAX_SEED, WebError, WebGame

load_all()

CLASSIC: dict[str, Any] = {"preset": "classic", "players": 3, "sets": 6, "set_size": 4}  # 24 cards: a deal is 1 in 9.4e9
#: The seed the program "draws" in the tests that need a game where the person gets a turn (the agents make 7
#: moves, then seat 0 asks): a drawn seed decides nothing here, and the attack does not know it. (With a seed
#: truly drawn, about 1 game in 400 ends before the person's first turn: nothing typed is then read.)
DRAWN = 0x2F6E_9A41_C3D5_B817
CHOSEN = 0x51C0_7E22_08AB_4D93  # a seed a test chooses (the creator's, an agent's game)


@pytest.fixture
def drawn(monkeypatch) -> int:
    """The seed the web session draws for a table made without one is :data:`DRAWN` (every other use of
    ``secrets`` there is the real one)."""
    import secrets

    import quaternity_cp.web.session as session

    real = secrets  # the module the session uses

    class Drawn:
        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        @staticmethod
        def randbelow(n: int) -> int:
            assert n == MAX_SEED
            return DRAWN

    monkeypatch.setattr(session, "secrets", Drawn())
    return DRAWN


@pytest.fixture
def no_clock(monkeypatch):
    """The web view's probabilities and explanations bounded by work only (states), never by the clock: two
    tables compared step by step must not differ because one of them ran out of time on a busy machine."""
    import quaternity_cp.quartets.web as quartets_web

    monkeypatch.setattr(quartets_web, "COUNT_SECONDS", None)


# -- the attacker -----------------------------------------------------------------------------------------
def harvest(value: Any, out: set[int], depth: int = 0, seen: set[int] | None = None) -> set[int]:
    """Every whole number in ``value``, recursively: numbers, integral floats, every run of digits in a
    string (a JSON text is read as JSON first), the fields of dataclasses and plain objects."""
    seen = set() if seen is None else seen
    if depth > 40 or id(value) in seen:
        return out
    if isinstance(value, bool) or value is None:
        return out
    if isinstance(value, int):
        out.add(value)
        out.add(-value)
        return out
    if isinstance(value, float):
        if value == value and abs(value) < 2**64 and value == int(value):
            out.add(int(value))
        return out
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        out.update(int(run) for run in re.findall(r"\d+", value))
        stripped = value.strip()
        if stripped[:1] in ("{", "["):
            try:
                harvest(json.loads(stripped), out, depth + 1, seen)
            except ValueError:
                pass
        return out
    seen.add(id(value))
    if isinstance(value, dict):
        for key, item in value.items():
            harvest(key, out, depth + 1, seen)
            harvest(item, out, depth + 1, seen)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            harvest(item, out, depth + 1, seen)
    elif dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            harvest(getattr(value, f.name), out, depth + 1, seen)
    elif hasattr(value, "__dict__"):
        for item in vars(value).values():
            harvest(item, out, depth + 1, seen)
    elif hasattr(value, "__slots__"):
        for name in value.__slots__:
            harvest(getattr(value, name, None), out, depth + 1, seen)
    return out


def candidates(numbers: set[int], players: int) -> set[int]:
    """Each number as a seed, and as the seed behind the project's derived seeds (a game of a run, a seat)."""
    out: set[int] = set()
    for x in numbers:
        out.add(x)
        if abs(x) < 2**64:
            out.add(derive_seed(x))
            out.update(derive_seed(x, k) for k in range(players + 2))
            out.update(derive_seed(x, 0, k) for k in range(players + 2))
    return out


def hands(state) -> dict:
    return state.record()["deal"]


def rebuilders(numbers: set[int], options: dict, deal: dict, attacker: int) -> list[int]:
    """The candidates whose game deals every other seat's hand as in ``deal`` (a record's, by player name)."""
    spec = GAMES["quartets"]
    others = {name: cards for i, (name, cards) in enumerate(sorted(deal.items())) if i != attacker}
    found = []
    for seed in candidates(numbers, options["players"]):
        dealt = hands(spec.new_state(seed, **options))
        if all(dealt.get(name) == cards for name, cards in others.items()):
            found.append(seed)
    return found


def test_the_attacker_finds_a_seed_it_is_handed():
    """The attack works: handed the seed (or a number the project derives from it), it deals the cards again."""
    seed = CHOSEN
    deal = hands(GAMES["quartets"].new_state(seed, **CLASSIC))
    assert rebuilders(harvest({"x": [f"seed {seed}"]}, set()), CLASSIC, deal, 0) == [seed]
    assert rebuilders(harvest([7, 12], set()), CLASSIC, deal, 0) == []
    derived = derive_seed(seed, 2)
    assert rebuilders({derived}, CLASSIC, hands(GAMES["quartets"].new_state(derive_seed(derived), **CLASSIC)), 0)


# -- the web table ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def client():
    """The app under Starlette's test client (the web extra); a move waits for the agents' replies."""
    testclient = pytest.importorskip("starlette.testclient", reason="the web extra: pip install '.[web]'")
    from quaternity_cp.web.app import Settings, create_app

    with testclient.TestClient(create_app(Settings(act_seconds=600, agent_seconds=None))) as test_client:
        yield test_client


@pytest.fixture
def made(monkeypatch):
    """The tables the server makes (the truth the attacker tries to reach)."""
    tables: list[WebGame] = []
    original = WebGame.new.__func__

    def spy(cls, *args, **kwargs):
        table = original(cls, *args, **kwargs)
        tables.append(table)
        return table

    monkeypatch.setattr(WebGame, "new", classmethod(spy))
    return tables


def first_event(client, gid: str, headers: dict) -> str:
    """The first event a seat's stream sends, as text."""
    with client.stream("GET", f"/api/events/{gid}", headers=headers) as res:
        assert res.status_code == 200
        for line in res.iter_lines():
            if line.startswith("data: "):
                return line
    raise AssertionError("the stream ended without an event")


def everything_a_seat_gets(client, gid: str, view: dict, headers: dict, seat: int) -> list[Any]:
    """Every answer one seat can get while the game runs: views (with probabilities), the record, explanations
    of every card and set for every seat, the solver's answer, an event, its moves and an undo."""
    got: list[Any] = [view]
    got.append(client.get(f"/api/view/{gid}", headers=headers).json())
    got.append(client.get(f"/api/view/{gid}?probabilities=1", headers=headers).json())
    got.append(client.get(f"/api/record/{gid}", headers=headers).text)
    got.append(client.get(f"/api/solve/{gid}", headers=headers).text)
    got.append(first_event(client, gid, headers))
    cards = list(dict.fromkeys(re.findall(r'data-card="([^"]+)"', view["svg"])))
    assert cards
    for entry in cards[::3]:
        got.append(client.get(f"/api/explain/{gid}?card={entry}", headers=headers).text)
        for p in range(CLASSIC["players"]):
            got.append(client.get(f"/api/explain/{gid}?card={entry}&seat={p}", headers=headers).text)
    got.append(client.get(f"/api/explain/{gid}?set=A", headers=headers).text)
    rng = random.Random(3)
    for _ in range(3):
        current = got[-1] if isinstance(got[-1], dict) and "svg" in got[-1] else \
            client.get(f"/api/view/{gid}", headers=headers).json()
        if current["over"] or not current["your_turn"]:
            break
        moves = re.findall(r'data-legal="1" data-action="([^"]+)"', current["svg"].replace("&gt;", ">"))
        res = client.post(f"/api/act/{gid}", json={"action": rng.choice(moves)}, headers=headers)
        got.append(res.text)
        got.append(res.json())
        got.append(client.post(f"/api/undo/{gid}", headers=headers).text)
        got.append(client.get(f"/api/view/{gid}", headers=headers).json())
    return got


def test_a_seat_at_a_classic_web_table_cannot_deal_the_cards_again(client, made, drawn):
    """The creator of a table whose seed the server drew gets nothing that deals the cards again."""
    res = client.post("/api/new", json={"game": "quartets", "options": CLASSIC, "human": 0,
                                        "agents": {"1": "random", "2": "random"}})
    assert res.status_code == 200, res.text
    view = res.json()
    got = everything_a_seat_gets(client, view["id"], view, {}, 0)
    table = made[-1]
    assert table.seed == drawn  # the seed the server drew (fixed here: the same game every run)
    numbers = harvest(got, set())
    assert rebuilders(numbers, CLASSIC, table.full_record()["deal"], 0) == []
    assert table.seed not in numbers


def test_the_seed_a_creator_chose_never_reaches_another_seat(client, made):
    """A creator who chose the seed knows it already; the other person at the table must never get it."""
    seed = CHOSEN
    res = client.post("/api/new", json={"game": "quartets", "options": CLASSIC, "humans": [0, 1],
                                        "agents": {"2": "random"}, "seed": seed})
    assert res.status_code == 200, res.text
    created = res.json()
    token = created["links"]["1"].rsplit("/", 1)[1]
    headers = {"X-Seat-Token": token}
    gid = created["id"]
    while True:  # the creator plays until the other person must move
        view = client.get(f"/api/view/{gid}", headers=headers).json()
        if view["your_turn"] or view["over"]:
            break
        mine = client.get(f"/api/view/{gid}", headers={"X-Seat-Token": created["token"]}).json()
        moves = re.findall(r'data-legal="1" data-action="([^"]+)"', mine["svg"].replace("&gt;", ">"))
        assert client.post(f"/api/act/{gid}", json={"action": moves[0]},
                           headers={"X-Seat-Token": created["token"]}).status_code == 200
    got = everything_a_seat_gets(client, gid, view, headers, 1)
    table = made[-1]
    numbers = harvest(got, set())
    assert rebuilders(numbers, CLASSIC, table.full_record()["deal"], 1) == []
    assert seed not in numbers


def test_a_seats_view_and_explanations_are_the_same_whatever_the_other_hands(no_clock):
    """Two tables whose deals differ only in which of two other seats holds which card of one set, played
    alike: seat 0 gets the same view (with probabilities), explanations and record at every step."""
    spec = GAMES["quartets"]
    base = spec.new_state(2024, **CLASSIC)
    deal = {p: list(cards) for p, cards in base.deal.items()}
    i, j = next((i, j) for i, x in enumerate(deal[1]) for j, y in enumerate(deal[2]) if x // 4 == y // 4)
    swapped = {1: deal[1][i], 2: deal[2][j]}
    other = {p: list(cards) for p, cards in deal.items()}
    other[1][i], other[2][j] = deal[2][j], deal[1][i]
    tables = [WebGame("quartets", dict(CLASSIC), spec.new_state(0, **CLASSIC, deal=d, first=0), (0, 1, 2), {}, 0)
              for d in (deal, other)]
    assert tables[0].full_record()["deal"] != tables[1].full_record()["deal"]
    g = tables[0].state.game
    rng = random.Random(5)
    for _ in range(12):
        views = [t.view(0, probabilities=True) for t in tables]
        assert views[0] == views[1]
        assert tables[0].record(0) == tables[1].record(0)
        for card in ("A0", "A1", g.card_name(swapped[1]), g.card_name(swapped[2])):
            for seat in (None, 1, 2):
                assert tables[0].explain(0, card=card, seat=seat) == tables[1].explain(0, card=card, seat=seat)
        mover = tables[0].state.current_player()
        if tables[0].state.is_terminal():
            break
        moves = [m for m in tables[0].legal_texts(mover) if g.parse_move(m).card not in swapped.values()]
        if not moves:
            break
        move = rng.choice(moves)
        for t in tables:
            t.act(move, mover)
        assert tables[0].record(0)["moves"] == tables[1].record(0)["moves"]
    assert len(tables[0].log) >= 6  # the tables were played, not only dealt
    assert tables[0].view(1) != tables[1].view(1)  # the seats that hold the swapped cards can tell


def test_the_server_draws_seeds_too_many_to_try():
    """A seed the server draws is one of 2^63: a player cannot try every seed against its own hand."""
    drawn = [WebGame.new("quartets", {"players": 2, "sets": 2, "set_size": 2}, advance=False).seed
             for _ in range(40)]
    assert max(drawn) >= 2**40 and all(0 <= s < MAX_SEED for s in drawn)


# -- undo -------------------------------------------------------------------------------------------------
def test_an_answered_question_cannot_be_taken_back_in_classic(client):
    """Asking, seeing the answer and taking the question back would probe the deal card by card: refused,
    and the question stays in the record."""
    res = client.post("/api/new", json={"game": "quartets", "options": CLASSIC, "human": 0,
                                        "agents": {"1": "random", "2": "random"}, "seed": 11})
    view = res.json()
    gid = view["id"]
    assert not view["can_undo"]
    move = re.findall(r'data-legal="1" data-action="([^"]+)"', view["svg"].replace("&gt;", ">"))[0]
    moved = client.post(f"/api/act/{gid}", json={"action": move}).json()
    asked = move.rstrip("?")
    assert any(e["move"].startswith(asked) for e in moved["log"])
    assert not moved["can_undo"]
    back = client.post(f"/api/undo/{gid}")
    assert back.status_code == 422, back.text
    assert "cannot be taken back" in back.json()["error"]
    record = client.get(f"/api/record/{gid}").json()
    assert any(m.startswith(asked) for m in record["moves"])


def test_undo_in_classic_is_refused_in_the_session_too():
    table = WebGame.new("quartets", CLASSIC, human=0, agents={1: "random", 2: "random"}, seed=5)
    assert not table.can_undo()
    table.act(table.legal_texts()[0])
    before = table.record()
    assert not table.can_undo()
    with pytest.raises(WebError, match="cannot be taken back"):
        table.undo()
    assert table.record() == before


# -- terminal play ----------------------------------------------------------------------------------------
TERMINAL = ["play", "--preset", "classic", "--players", "3", "--sets", "6", "--set-size", "4", "--seat", "0",
            "--agents", "random,random"]


def test_terminal_play_prints_nothing_that_deals_the_cards_again(made, drawn, no_clock, tmp_path):
    """Everything terminal play prints to the person (grids, chances, explanations, a hint, the moves in
    words, a record saved mid-game and one saved at the end), with the seed the program drew: nothing deals
    the cards again. The draw is fixed (:data:`DRAWN`): a game where the person's turn comes, so every line
    typed is read and the mid-game save happens."""
    from quaternity_cli.main import main

    mid, end = tmp_path / "mid.json", tmp_path / "end.json"
    lines = ["legal", "grid", "prob", "why A0", "why B", "hint", f"save {mid}"]
    lines += [f"{target} {card}" for card in ("A0", "B1", "C2", "D3", "E0", "F1") for target in (1, 2)]
    lines += ["legal", "grid", "quit"]
    res = CliRunner().invoke(main, [*TERMINAL, "--save", str(end)], input="\n".join(lines) + "\n")
    assert res.exit_code == 0, res.output
    table = made[-1]
    assert table.seed == drawn and f"Saved {mid}." in res.output and f"Record saved to {end}." in res.output
    assert "Hint (" in res.output and "Legal moves:" in res.output
    numbers = harvest([res.output, mid.read_text(), end.read_text()], set())
    assert rebuilders(numbers, CLASSIC, table.full_record()["deal"], 0) == []
    assert table.seed not in numbers


def test_a_question_cannot_be_taken_back_in_terminal_play():
    from quaternity_cli.main import main

    move = WebGame.new("quartets", CLASSIC, human=0, agents={1: "random", 2: "random"}, seed=3).legal_texts()[0]
    res = CliRunner().invoke(main, [*TERMINAL, "--seed", "3"], input=f"{move}\nundo\nquit\n")
    assert res.exit_code == 0, res.output
    assert "Taken back." not in res.output
    assert "in classic Quartets a question cannot be taken back" in res.output


# -- agents' observations ---------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", ["classic", "quaternity"])
def test_an_agents_observation_holds_no_seed(preset):
    seed = CHOSEN
    options = {**CLASSIC, "preset": preset}
    state = GAMES["quartets"].new_state(seed, **options)
    rng = random.Random(1)
    for _ in range(4):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    for seat in range(options["players"]):
        obs = state.observation(seat)
        numbers = harvest(obs, set())
        if preset == "classic":
            assert rebuilders(numbers, options, hands(state), seat) == []
        assert seed not in numbers, f"seat {seat}'s observation carries the seed"
        clone = state.clone().observation(seat)
        assert clone == obs  # a copy of the game is the same game for an agent's cache


# -- what each seat is shown: its own hand, never another's -------------------------------------------------
def true_hands(state) -> dict[int, set[int]]:
    """Every seat's cards now, from the deal and the public moves alone (a yes moves the card asked for, a
    put-down or a declaration removes the set): the truth an observation is checked against."""
    from quaternity_cp.quartets.game import Declaration

    g = state.game
    held = {p: set(cards) for p, cards in state.deal.items()}
    for move in state.moves:
        if isinstance(move, Declaration):
            held[move.player] -= set(g.cards_of(move.set))
        elif move.answer:
            held[move.target].discard(move.card)
            held[move.asker].add(move.card)
    return held


def public(obs) -> Any:
    """An observation without ``game_id`` (another in every new state, whatever it holds)."""
    return dataclasses.replace(obs, game_id=0)


def swapped_deal(deal: dict, seat: int) -> tuple[dict, int]:
    """``deal`` with the two seats other than ``seat`` swapping a card of one set (``seat`` cannot tell), and
    that set."""
    a, b = [p for p in sorted(deal) if p != seat]
    i, j = next((i, j) for i, x in enumerate(deal[a]) for j, y in enumerate(deal[b]) if x // 4 == y // 4)
    other = {p: list(cards) for p, cards in deal.items()}
    other[a][i], other[b][j] = deal[b][j], deal[a][i]
    return other, deal[a][i] // 4


@pytest.mark.parametrize("seed", [3, 17, 2024])
def test_a_classic_observation_shows_each_seat_its_own_hand_and_nothing_of_the_others(seed):
    """Classic Quartets, every seat, move by move: a seat's observation holds its own cards (those the deal
    and the public moves give it) and is the same whatever the other seats hold, as long as the public record
    is the same (the others swap a card of one set); the seats that swapped can tell."""
    spec = GAMES["quartets"]
    base = spec.new_state(seed, **CLASSIC)
    deal = {p: sorted(cards) for p, cards in base.deal.items()}
    players = CLASSIC["players"]
    for seat in range(players):
        other, hidden = swapped_deal(deal, seat)
        states = [spec.new_state(0, **CLASSIC, deal=d, first=base.first) for d in (deal, other)]
        rng = random.Random(seed * 10 + seat)
        steps = 0
        while steps < 20 and not states[0].is_terminal():
            if states[0].record()["moves"] != states[1].record()["moves"]:
                break  # the swapped cards showed in public: the seat may now tell the deals apart
            for state in states:
                held = true_hands(state)
                for p in range(players):
                    assert state.observation(p).hand == frozenset(held[p]), (seed, p, state.record()["moves"])
            assert public(states[0].observation(seat)) == public(states[1].observation(seat)), (seed, seat)
            if not steps:  # the seats that swapped can tell (the comparison above can see a difference)
                assert all(public(states[0].observation(p)) != public(states[1].observation(p))
                           for p in range(players) if p != seat)
            legal = [a for a in states[0].legal_actions() if a in states[1].legal_actions()]
            legal = [a for a in legal if a.card // 4 != hidden] or legal  # (questions that may tell come last)
            if not legal or states[1].is_terminal():
                break
            action = rng.choice(legal)
            for state in states:
                state.apply_action(action)
            steps += 1
        assert steps >= 6, (seed, seat, steps)  # the games were played, not only dealt


def test_every_seat_of_a_classic_web_table_sees_its_own_hand_only():
    """The web table's view and record for each person (every seat a person): the seat's own hand, starred
    in the grid; no other seat's card is named as held, until the end shows every hand."""
    table = WebGame.new("quartets", CLASSIC, humans=[0, 1, 2], seed=5)
    g = table.state.game
    rng = random.Random(5)
    for _ in range(8):
        held = true_hands(table.state)
        for seat in range(CLASSIC["players"]):
            view = table.view(seat)
            mine = sorted(g.card_name(c) for c in held[seat])
            assert sorted(view["hand"]) == mine, (seat, view["hand"])
            assert sorted(re.findall(r">([A-Z]\d+) ★<", view["svg"])) == mine
            assert "deal" not in view and "deal" not in table.record(seat)
        if table.state.is_terminal():
            break
        mover = table.state.current_player()
        table.act(rng.choice(table.legal_texts(mover)), mover)


class Spy:
    """An agent that tries to deal the cards again from what it is handed: the generator's state (copied
    into a plain generator, dealing as the game deals) and its observation's numbers as seeds."""

    name = "spy"
    seen: list[tuple[Any, dict]] = []  # (observation, the deal redrawn from the generator handed over)

    def step(self, obs, legal, rng):
        from quaternity_cp.quartets.classic import deal as draw_deal

        copy = random.Random()
        copy.setstate(rng.getstate())
        dealt = draw_deal(obs.game, copy, obs.rules)
        Spy.seen.append((obs, {obs.game.player_name(p): [obs.game.card_name(c) for c in sorted(cards)]
                               for p, cards in sorted(dealt.items())}))
        return legal[0]


@pytest.fixture
def spy(monkeypatch):
    from quaternity_cp.registry import AGENTS

    monkeypatch.setitem(AGENTS["quartets"], "spy", Spy)
    monkeypatch.setattr(Spy, "seen", [])
    return Spy


def check_spy(spy, deal: dict, seat: int) -> None:
    assert spy.seen, "the spy was never asked to move"
    obs, redealt = spy.seen[0]
    assert redealt != deal
    assert rebuilders(harvest(obs, set()), CLASSIC, deal, seat) == []


def test_an_agents_generator_at_a_web_table_cannot_deal_the_cards_again(spy, drawn):
    table = WebGame.new("quartets", CLASSIC, human=0, agents={1: "spy", 2: "random"})
    assert table.seed == drawn
    while not spy.seen and not table.state.is_terminal():
        table.act(table.legal_texts()[0])
    check_spy(spy, table.full_record()["deal"], 1)


def test_an_agents_generator_in_a_tournament_cannot_deal_the_cards_again(spy):
    from quaternity_cp.tournament import play_game

    result = play_game("quartets", CLASSIC, ["spy", "random", "random"], CHOSEN, 3,
                       record=True)
    check_spy(spy, result.record["deal"], 0)


def test_the_terminals_hint_agent_cannot_deal_the_cards_again(spy, made, drawn):
    from quaternity_cli.main import main

    res = CliRunner().invoke(main, ["play", "--preset", "classic", "--players", "3", "--sets", "6",
                                    "--set-size", "4", "--seat", "0", "--agents", "random,random",
                                    "--hint-agent", "spy"], input="hint\nquit\n")
    assert res.exit_code == 0, res.output
    assert made[-1].seed == drawn  # a game where the person's turn comes (the hint is asked for then)
    check_spy(spy, made[-1].full_record()["deal"], 0)


def test_two_games_are_told_apart_without_the_seed():
    """An agent that keeps what it learnt per game (``game_id``) sees a new game as new, even with the same seed."""
    a = GAMES["quartets"].new_state(1, **CLASSIC).observation(0)
    b = GAMES["quartets"].new_state(1, **CLASSIC).observation(0)
    assert a.game_id != b.game_id


# -- the research bridges ---------------------------------------------------------------------------------
def test_the_pettingzoo_observation_is_the_same_whatever_the_other_hands():
    """What an agent of the AEC environment observes depends on its own hand, not on the others'."""
    pytest.importorskip("pettingzoo", reason="the pettingzoo extra")
    import numpy as np

    from quaternity_cp.aec import GameEnv

    env = GameEnv(**CLASSIC)
    env.reset(seed=2024)
    state = env.game_state
    seat = state.current_player()
    deal = {p: list(cards) for p, cards in state.deal.items()}
    a, b = [p for p in deal if p != seat]
    i, j = next((i, j) for i, x in enumerate(deal[a]) for j, y in enumerate(deal[b]) if x // 4 == y // 4)
    deal[a][i], deal[b][j] = deal[b][j], deal[a][i]  # the others swap a card of one set: the seat cannot tell
    other = GAMES["quartets"].new_state(0, **CLASSIC, deal=deal, first=state.first)
    agent = env.possible_agents[seat]
    seen = env.observe(agent)
    env.game_state = other
    again = env.observe(agent)
    assert all(np.array_equal(seen[k], again[k]) for k in seen)
    theirs = env.observe(env.possible_agents[a])["observation"]
    env.game_state = state
    assert not np.array_equal(theirs, env.observe(env.possible_agents[a])["observation"])  # a seat that can tell
    numbers = harvest([seen["observation"].tolist(), seen["action_mask"].tolist(), env.infos[agent]], set())
    assert rebuilders(numbers, CLASSIC, hands(state), seat) == []


def test_an_openspiel_seat_sees_the_same_whatever_the_other_hands():
    """A seat's information state and observation (strings and tensors) in ``python_quartets`` depend on its
    own hand, not on the others'."""
    pyspiel = pytest.importorskip("pyspiel", reason="the spiel extra")
    import quaternity_cp.spiel  # noqa: F401

    game = pyspiel.load_game("python_quartets(preset=classic,players=3,sets=6,set_size=4)")
    rng = random.Random(4)
    cards = [p for p in range(3) for _ in range(8)]
    rng.shuffle(cards)
    swapped = list(cards)
    i, j = next((i, j) for i in range(24) for j in range(24) if cards[i] == 1 and cards[j] == 2 and i // 4 == j // 4)
    swapped[i], swapped[j] = swapped[j], swapped[i]  # seats 1 and 2 swap a card: seat 0 cannot tell

    def play(deal: list[int]):
        state = game.new_initial_state()
        for seat in deal:
            state.apply_action(seat)
        state.apply_action(0)  # seat 0 asks first
        return state

    one, two = play(cards), play(swapped)
    for s in (one, two):
        assert s.current_player() == 0
    for kind in ("information_state_string", "observation_string"):
        assert getattr(one, kind)(0) == getattr(two, kind)(0)
    for kind in ("information_state_tensor", "observation_tensor"):
        assert list(getattr(one, kind)(0)) == list(getattr(two, kind)(0))
    assert one.information_state_string(1) != two.information_state_string(1)  # the test can tell a difference

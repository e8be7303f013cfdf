"""The web table's "can you force a win?" for Quantum Go Fish (issue 38, item 6): the verdict is the exact
solver's (quaternity_cp.gofish.solver.can_force) for the seat that decides now, the player on turn or, with a
question open, the asked player, never another seat's, at a start, with a question open and along every play of
small games; told from each viewer's side ("you" for the deciding seat)."""

from __future__ import annotations

import pytest

from quaternity_cp.gofish import web as gofish_web
from quaternity_cp.gofish.game import GoFish
from quaternity_cp.gofish.solver import can_force
from quaternity_cp.gofish.state import GoFishState
from quaternity_cp.web.session import WebGame

TWO_BY_TWO = {"players": 2, "suits": 2, "suit_size": 2}  # seat 0 forces a win in 2 plies (solver.py's doctest)
AGAIN = {"players": 2, "suits": 2, "suit_size": 4, "after_yes": "again"}  # seat 0 in 6 plies (docs/gofish.md)
TWO_BY_THREE = {"players": 2, "suits": 2, "suit_size": 3}  # seat 0 cannot, seat 1 can (in 4 plies)


@pytest.fixture(autouse=True)
def no_clock(monkeypatch):
    """The verdict's work is bounded by positions (SOLVE_POSITIONS), not by the clock: these graphs have at
    most a few dozen positions, so the answer never depends on how busy the machine is."""
    monkeypatch.setattr(gofish_web, "SOLVE_SECONDS", None)


def table_of(options: dict, moves: tuple[str, ...] = ()) -> WebGame:
    """A table where every seat is a person, with ``moves`` played (each by the seat that decides)."""
    table = WebGame.new("gofish", options, humans=list(range(options["players"])), seed=1)
    for move in moves:
        table.act(move, table.state.current_player())
    return table


def game_of(table: WebGame) -> GoFish:
    """The Go Fish game of the table's state."""
    assert isinstance(table.state, GoFishState)
    return table.state.game


def deciding_seat(table: WebGame) -> int:
    """The seat that decides now, from the game itself: the asked player while a question is open, else the
    player on turn."""
    game = game_of(table)
    if game.pending is not None:
        return game.pending.asked
    assert game.turn is not None
    return game.turn


def solver_says(table: WebGame, seat: int) -> tuple[str, int | None]:
    """("yes", plies) or ("no", None): the solver's answer for ``seat`` at the table's position."""
    res = can_force(game_of(table).copy(), seat)
    return ("yes", res.plies) if res.wins else ("no", None)


def check_verdict(table: WebGame) -> tuple[str, int | None]:
    """The table's verdict, seen by every seat and by nobody, is the solver's for the deciding seat; returns it."""
    seat = deciding_seat(table)
    value, plies = solver_says(table, seat)
    players = game_of(table).players
    for viewer in [*range(players), None]:
        got = table.verdict(viewer)
        where = (game_of(table).moves, viewer, got["text"])
        assert got["value"] == value and got.get("plies") == plies, where
        who = "you" if viewer == seat else f"Seat {seat}"
        if value == "yes":
            assert plies is not None  # a win has its plies
            said = f"{who[0].upper()}{who[1:]} can force a win in {plies} pl"  # (1 ply, 2 plies)
            assert got["text"].startswith(said), where
            game = game_of(table).copy()
            move = game.parse_move(got["best"])  # the move offered is the deciding seat's, legal, and keeps the win
            assert (move.asked if game.pending is not None else move.asker) == seat, where
            game.push(move)
            after = can_force(game, seat)
            assert game.winner == seat if game.over else (after.wins and after.plies == plies - 1), where
        else:
            assert got["text"].startswith(f"The other players together can stop {who} from winning"), where
    return value, plies


def test_a_two_player_start_says_you_force_a_win_in_two_plies():
    """The issue's case: at the 2-player start with 2 suits of 2, seat 0 (on turn) forces a win in 2 plies; the
    other players cannot stop it (the next seat, seat 1, could not force one: its answer is not this one)."""
    table = table_of(TWO_BY_TWO)
    assert deciding_seat(table) == 0 and solver_says(table, 0) == ("yes", 2) and solver_says(table, 1)[0] == "no"
    mine = table.verdict(0)
    assert mine["text"] == "You can force a win in 2 plies, whatever the others do. A winning move: 0>1:A?. " \
                           "(3 positions.)"
    assert (mine["value"], mine["plies"], mine["best"]) == ("yes", 2, "0>1:A?")
    assert table.verdict(1)["text"].startswith("Seat 0 can force a win in 2 plies")
    check_verdict(table)


@pytest.mark.parametrize("options,expected", [(AGAIN, ("yes", 6)), (TWO_BY_THREE, ("no", None))])
def test_other_starts_are_the_solvers_answer_for_the_seat_on_turn(options, expected):
    """after_yes=again: seat 0 forces a win in 6 plies; 2 suits of 3: seat 0 cannot (seat 1, next, could)."""
    table = table_of(options)
    assert deciding_seat(table) == 0
    assert check_verdict(table) == expected
    assert solver_says(table, 1) != expected  # the next seat's answer differs: a verdict for it would be caught


def test_with_a_question_open_the_verdict_is_the_asked_players():
    """After 0>1:A? seat 1 decides (its answer): it cannot force a win, though the asker, next to decide
    after it, wins in 1 ply whatever it answers."""
    table = table_of(TWO_BY_TWO, ("0>1:A?",))
    assert deciding_seat(table) == 1 and table.state.current_player() == 1
    assert solver_says(table, 1) == ("no", None) and solver_says(table, 0) == ("yes", 1)
    assert table.verdict(1)["text"].startswith("The other players together can stop you from winning")
    assert table.verdict(0)["text"].startswith("The other players together can stop Seat 1 from winning")
    check_verdict(table)


@pytest.mark.parametrize("options,depth", [(TWO_BY_TWO, 8), (TWO_BY_THREE, 6), (AGAIN, 6),
                                           ({"players": 3, "suits": 3, "suit_size": 2}, 2)])
def test_every_position_of_a_small_game_gets_the_deciding_seats_verdict(options, depth):
    """Every play of up to ``depth`` plies (a question or an answer each), every viewer: the solver's answer
    for the deciding seat. The plays reach questions open and not, both answers, and positions where another
    seat's answer differs (so a verdict for the wrong seat cannot pass)."""
    seen = {"open": 0, "turn": 0, "yes": 0, "no": 0, "differs": 0}
    frontier: list[tuple[str, ...]] = [()]
    for _ in range(depth + 1):
        nxt: list[tuple[str, ...]] = []
        for moves in frontier:
            table = table_of(options, moves)
            if table.state.is_terminal():
                assert table.verdict(0)["text"].startswith("Game over.") and table.verdict(0)["value"] is None
                continue
            value, _ = check_verdict(table)
            seat = deciding_seat(table)
            seen["open" if game_of(table).pending is not None else "turn"] += 1
            seen[value] += 1
            players = game_of(table).players
            seen["differs"] += any(solver_says(table, other)[0] != value for other in range(players) if other != seat)
            nxt += [moves + (m,) for m in table.legal_texts(seat)]
        frontier = nxt
    assert all(seen.values()), seen

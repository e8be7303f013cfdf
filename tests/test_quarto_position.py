"""Quarto moves: notation round trips, the game flow, push/pop, and every illegal-move reason."""

from __future__ import annotations

import random

import pytest

from quaternity_cp.quarto import Board, Cell, Illegal, IllegalMove, Move, NotationError, Piece, Position, QuartoError
from quarto_reference import ref_winning_lines


def play_random(rng: random.Random, squares: bool = False, stop: int | None = None) -> Position:
    pos = Position(squares=squares)
    while not pos.over and (stop is None or pos.ply < stop):
        pos.push(rng.choice(list(pos.legal_moves())))
    return pos


def ref_board(pos: Position) -> dict:
    return {(c // 4, c % 4): int(p) for c, p in enumerate(pos.board.cells) if p is not None}


# -- notation ---------------------------------------------------------------------------
def test_every_move_of_random_games_round_trips_through_its_notation():
    rng = random.Random(1)
    for _ in range(30):
        pos = play_random(rng, squares=rng.random() < 0.5)
        for move in pos.moves:
            assert Move.parse(str(move)) == move
        for move in list(Position().legal_moves()):
            assert Move.parse(str(move)) == move


@pytest.mark.parametrize("text,expected", [("lrts", "LRTS"), (" a1   dssh ", "A1 DSSH"), ("d4", "D4")])
def test_notation_is_read_leniently_and_written_canonically(text, expected):
    assert str(Move.parse(text)) == expected


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "no move"),
        ("A1 DSSH LRTS", "no move"),
        ("Z9 LRTS", "no cell 'Z9'"),
        ("A1 XXXX", "no piece 'XXXX'"),
        ("A1DSSH", "no move"),
        ("LRT", "no move"),
        ("QQQQ", "no piece 'QQQQ'"),
    ],
)
def test_bad_notation_names_the_problem(text, message):
    with pytest.raises(NotationError, match=message):
        Move.parse(text)


# -- the game flow ---------------------------------------------------------------------------
def test_player_zero_gives_the_first_piece_and_placements_alternate_from_player_one():
    pos = Position()
    assert (pos.to_move, pos.piece) == (0, None)
    pos.push("DSSH")
    assert (pos.to_move, pos.piece) == (1, Piece.DSSH)
    pos.push("B2 LRTS")
    assert (pos.to_move, pos.piece, pos.board[Cell.B2]) == (0, Piece.LRTS, Piece.DSSH)
    assert pos.available_pieces() == [Piece(p) for p in range(1, 15)]


def test_the_placement_that_completes_a_line_wins_for_the_placer():
    pos = Position()
    for text in ["LRTS", "A1 LRTH", "B2 LRSS", "C3 LSSH", "D4"]:
        pos.push(text)
    assert pos.over and pos.winner == 0 and pos.to_move is None and pos.piece is None
    assert [[str(c) for c in line] for line in pos.winning_lines] == [["D4", "C3", "B2", "A1"]]


def test_a_full_board_without_a_line_is_a_draw():
    moves = ["DSTS", "C4 LSTS", "C1 DSSS", "B1 DRTS", "D2 LRSH", "B4 LSSH", "A4 DRTH", "D3 LRTS", "B3 DSTH",
             "C3 LRSS", "C2 DSSH", "A1 DRSH", "D1 LSSS", "D4 DRSS", "A3 LRTH", "B2 LSTH", "A2"]
    pos = Position()
    for m in moves:
        pos.push(m)
    assert pos.over and pos.winner is None and pos.board.is_full() and pos.winning_lines == []


def test_squares_win_only_under_the_squares_option():
    moves = ["LRTS", "A4 LRTH", "B4 LRSS", "A3 LSSH", "B3"]
    plain = Position()
    with pytest.raises(IllegalMove, match="must give"):
        for m in moves:
            plain.push(m)
    sq = Position(squares=True)
    for m in moves:
        sq.push(m)
    assert sq.winner == 0 and [[str(c) for c in line] for line in sq.winning_lines] == [["A4", "B4", "A3", "B3"]]


def test_push_then_pop_restores_every_earlier_state():
    rng = random.Random(2)
    for _ in range(30):
        pos = play_random(rng, squares=rng.random() < 0.5)
        states = []
        replay = Position(squares=pos.squares)
        for move in pos.moves:
            states.append(replay.state)
            replay.push(move)
        for expected in reversed(states):
            pos.pop()
            assert pos.state == expected
        with pytest.raises(QuartoError, match="no move to take back"):
            pos.pop()


def test_legal_moves_are_exactly_the_rules_moves():
    """Against the rules read plainly: any empty cell; a piece not used unless the placement ends the game."""
    rng = random.Random(3)
    for _ in range(60):
        squares = rng.random() < 0.5
        pos = play_random(rng, squares=squares, stop=rng.randint(1, 15))
        if pos.over:
            assert list(pos.legal_moves()) == []
            continue
        ref = ref_board(pos)
        expected = set()
        used = set(ref.values()) | {int(pos.piece)}
        for r in range(4):
            for c in range(4):
                if (r, c) in ref:
                    continue
                after = {**ref, (r, c): int(pos.piece)}
                if len(after) == 16 or any((r, c) in line for line in ref_winning_lines(after, squares)):
                    expected.add((r * 4 + c, None))
                else:
                    expected |= {(r * 4 + c, p) for p in range(16) if p not in used}
        got = [(int(m.cell), None if m.piece is None else int(m.piece)) for m in pos.legal_moves()]
        assert len(got) == len(set(got)) and set(got) == expected
        assert got == sorted(got, key=lambda m: (m[0], -1 if m[1] is None else m[1]))


# -- illegal moves, one per rule ----------------------------------------------------------
def position_after(*moves: str, squares: bool = False) -> Position:
    pos = Position(squares=squares)
    for m in moves:
        pos.push(m)
    return pos


@pytest.mark.parametrize(
    "moves,move,reason,detail",
    [
        ((), "A1 LRTS", Illegal.NO_PIECE_IN_HAND, ""),
        ((), "A1", Illegal.NO_PIECE_IN_HAND, ""),
        (("LRTS",), "DSSH", Illegal.PLACE_FIRST, "LRTS is in hand"),
        (("LRTS", "A1 DSSH"), "A1 LRTH", Illegal.CELL_TAKEN, "LRTS stands on A1"),
        (("LRTS", "A1 DSSH", "B1 LRTH"), "C1 DSSH", Illegal.PIECE_USED, "DSSH stands on B1"),
        (("LRTS", "A1 DSSH"), "B1 LRTS", Illegal.PIECE_USED, "LRTS stands on A1"),
        (("LRTS", "A1 DSSH"), "B1 DSSH", Illegal.PIECE_IN_HAND, "DSSH goes to B1"),
        (("LRTS", "A1 DSSH"), "B1", Illegal.MUST_GIVE, ""),
        (("LRTS", "A1 LRTH", "B1 LRSS", "C1 LSSH"), "D1 DSSH", Illegal.NOTHING_TO_GIVE, "it completes a line"),
        (("LRTS", "A1 LRTH", "B1 LRSS", "C1 LSSH", "D1"), "A2 DSSH", Illegal.GAME_OVER, ""),
        (("LRTS", "A1 LRTH", "B1 LRSS", "C1 LSSH", "D1"), "DSSH", Illegal.GAME_OVER, ""),
    ],
)
def test_illegal_moves_name_the_rule(moves, move, reason, detail):
    pos = position_after(*moves)
    before = pos.state
    with pytest.raises(IllegalMove) as info:
        pos.push(move)
    assert info.value.reason is reason
    assert str(info.value) == reason.value + (f" ({detail})" if detail else "")
    assert pos.state is before and pos.moves == [Move.parse(m) for m in moves]


def test_the_last_placement_on_a_full_board_gives_nothing():
    moves = ["DSTS", "C4 LSTS", "C1 DSSS", "B1 DRTS", "D2 LRSH", "B4 LSSH", "A4 DRTH", "D3 LRTS", "B3 DSTH",
             "C3 LRSS", "C2 DSSH", "A1 DRSH", "D1 LSSS", "D4 DRSS", "A3 LRTH", "B2 LSTH"]
    pos = position_after(*moves)
    err = pos.check(Move.parse("A2 LRTS"))
    assert err.reason is Illegal.NOTHING_TO_GIVE and "the board is full" in str(err)


def test_copy_is_independent():
    pos = position_after("LRTS", "A1 DSSH")
    other = pos.copy()
    other.push("B1 LRTH")
    assert pos.ply == 2 and other.ply == 3 and pos.piece == Piece.DSSH


@pytest.mark.parametrize("to_move", [1.0, 0.0, True, False, "1", 2, -1])
def test_a_position_set_up_directly_takes_to_move_as_0_1_or_none(to_move):
    with pytest.raises(QuartoError, match="to_move must be 0, 1 or None"):
        Position.from_board(Board.empty(), Piece.DSSH, to_move)
    assert Position.from_board(Board.empty(), Piece.DSSH, 1).to_move == 1


def test_position_inputs_have_their_types():
    with pytest.raises(QuartoError, match="piece must be a Piece or None"):
        Position.from_board(Board.empty(), "DSSH", 0)
    with pytest.raises(QuartoError, match="board must be a Board"):
        Position.from_board([None] * 16, None, 0)
    for squares in (1, "yes", None):
        with pytest.raises(QuartoError, match="squares must be True or False"):
            Position(squares=squares)

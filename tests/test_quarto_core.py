"""Quarto's values and the bitboard win check, against quarto-lib's numbers and a plain loop over the lines."""

from __future__ import annotations

import random

import pytest

from quaternity_cp.quarto import LINES, SQUARES, Board, Cell, NotationError, Piece, common_characteristics
from quarto_reference import cell_name, cell_number, ref_lines, ref_winning_lines


# -- pieces and cells: quarto-lib's names and numbers ---------------------------------
def test_piece_numbers_are_the_four_trait_bits_most_significant_first():
    assert Piece.LRTS == 0 and Piece.DSSH == 15
    assert Piece.DRTS == 8  # dark is the top bit
    assert Piece.LSTS == 4  # square
    assert Piece.LRSS == 2  # short
    assert Piece.LRTH == 1  # hollow
    letters = [("L", "D"), ("R", "S"), ("T", "S"), ("S", "H")]
    for p in Piece:
        assert p.name == "".join(letters[i][(p.value >> (3 - i)) & 1] for i in range(4))


def test_piece_words():
    assert Piece.DSSH.describe() == "dark square short hollow"
    assert Piece.LRTS.describe() == "light round tall solid"


def test_cell_numbers_row_from_top_times_four_plus_column():
    assert (Cell.A4, Cell.D4, Cell.A1, Cell.D1) == (0, 3, 12, 15)
    for c in Cell:
        assert c.name == "ABCD"[c.col] + str(4 - c.row)
        assert Cell.at(c.row, c.col) is c


def test_quarto_lib_cell_rows_and_columns():
    # quarto-lib's own tests/types/cell_test.py
    assert (Cell.C1.row, Cell.C2.row, Cell.C3.row, Cell.C4.row) == (3, 2, 1, 0)
    assert {Cell.C1.col, Cell.C2.col, Cell.C3.col, Cell.C4.col} == {2}


@pytest.mark.parametrize("text", ["lrts", " DSSH ", "dSsH"])
def test_piece_parse_ignores_case_and_spaces(text):
    assert str(Piece.parse(text)) == text.strip().upper()


@pytest.mark.parametrize("text", ["", "LRT", "LRTSS", "XRTS", "LLTS", "A1"])
def test_piece_parse_rejects_other_text(text):
    with pytest.raises(NotationError, match="no piece"):
        Piece.parse(text)


@pytest.mark.parametrize("text", ["", "E1", "A0", "A5", "1A", "AA"])
def test_cell_parse_rejects_other_text(text):
    with pytest.raises(NotationError, match="no cell"):
        Cell.parse(text)


# -- quarto-lib's published common_characteristics cases (tests/utils_test.py) ---------
def test_common_characteristics_empty_line():
    assert common_characteristics([None, None, None, None]) == []


def test_common_characteristics_no_common_bits():
    assert common_characteristics([Piece.DRSH, Piece.DRSS, Piece.DRTH, Piece.LSSH]) == []


def test_common_characteristics_common_bit_0():
    assert common_characteristics([Piece.DRSH, Piece.DRSS, Piece.DSTH]) == [(3, 1)]


def test_common_characteristics_common_bit_1():
    assert common_characteristics([Piece(0b0100), Piece(0b1111)]) == [(2, 1)]


def test_common_characteristics_multiple_common_bits():
    assert common_characteristics([Piece.DRTH, Piece.DRSH, Piece.DSTH, Piece.DSSH]) == [(0, 1), (3, 1)]


def test_common_characteristics_values_zero_and_gaps():
    assert common_characteristics([Piece.LRTS, None, Piece.LRTH]) == [(1, 0), (2, 0), (3, 0)]


# -- lines ------------------------------------------------------------------------------
def test_lines_are_the_rows_columns_and_true_diagonals():
    ours = {tuple(sorted(int(c) for c in line)) for line in LINES}
    ref = {tuple(sorted(cell_number(rc) for rc in line)) for line in ref_lines()}
    assert len(LINES) == 10 and ours == ref
    # quarto-lib names the main diagonal's cells wrongly (0, 1, 2, 3); ours are A4 B3 C2 D1 and D4 C3 B2 A1
    assert {tuple(map(str, line)) for line in LINES[-2:]} == {("A4", "B3", "C2", "D1"), ("D4", "C3", "B2", "A1")}


def test_squares_are_the_nine_two_by_two_blocks():
    ours = {tuple(sorted(int(c) for c in line)) for line in SQUARES}
    ref = {tuple(sorted(cell_number(rc) for rc in line)) for line in ref_lines(True)[10:]}
    assert len(SQUARES) == 9 and ours == ref


# -- the win check against a plain loop over the lines ------------------------------------
def random_board(rng: random.Random, light_bias: bool) -> dict:
    n = rng.randint(0, 16)
    cells = rng.sample([(r, c) for r in range(4) for c in range(4)], n)
    pool = list(range(16))
    if light_bias and n <= 8:
        pool = [p for p in range(16) if p < 8] if rng.random() < 0.5 else [p for p in range(16) if p & 1]
    pieces = rng.sample(pool, min(n, len(pool)))
    return dict(zip(cells, pieces))


def to_board(ref: dict) -> Board:
    cells = [None] * 16
    for rc, p in ref.items():
        cells[cell_number(rc)] = p
    return Board(cells)


@pytest.mark.parametrize("squares", [False, True])
def test_winning_lines_match_a_plain_loop_on_random_boards(squares):
    rng = random.Random(11 + squares)
    wins = 0
    for _ in range(1000):
        ref = random_board(rng, light_bias=rng.random() < 0.5)
        board = to_board(ref)
        expected = sorted(sorted(cell_name(rc) for rc in line) for line in ref_winning_lines(ref, squares))
        got = sorted(sorted(str(c) for c in line) for line in board.winning_lines(squares))
        assert got == expected, ref
        wins += bool(expected)
        for rc in ref:
            through = [line for line in ref_winning_lines(ref, squares) if rc in line]
            assert board.wins_at(cell_number(rc), squares) == bool(through)
    assert 100 < wins < 900  # both outcomes are well represented


@pytest.mark.parametrize("squares", [False, True])
def test_winning_cells_and_pieces_match_placing_and_checking(squares):
    rng = random.Random(5 + squares)
    for _ in range(150):
        ref = random_board(rng, light_bias=True)
        if len(ref) == 16:
            continue
        board = to_board(ref)
        empty = [(r, c) for r in range(4) for c in range(4) if (r, c) not in ref]
        danger = 0
        for piece in range(16):
            cells = sorted(
                cell_number(rc) for rc in empty
                if any(rc in line for line in ref_winning_lines({**ref, rc: piece}, squares))
            )
            assert [int(c) for c in board.winning_cells(piece, squares)] == cells
            if cells:
                danger |= 1 << piece
        assert board.winning_pieces(squares) == danger


def test_place_is_a_new_value_and_keeps_masks_right():
    board = Board.empty().place(Cell.B2, Piece.DSTH)
    assert Board.empty().count() == 0 and board.count() == 1
    assert board == Board([None] * 9 + [Piece.DSTH] + [None] * 6)
    assert board.masks == Board(board.cells).masks
    with pytest.raises(AttributeError):
        board.occupied = 0


def test_a_diagonal_win_quarto_lib_reports_on_the_wrong_cells():
    board = Board.empty()
    for cell, piece in zip(("A1", "B2", "C3", "D4"), ("DRTS", "DRTH", "DSSS", "DSSH")):
        board = board.place(Cell.parse(cell), Piece.parse(piece))
    assert [[str(c) for c in line] for line in board.winning_lines()] == [["D4", "C3", "B2", "A1"]]

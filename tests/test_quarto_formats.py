"""Quarto records and positions: round trips, strict readers, and reachability against brute force."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from quaternity_cp.quarto import Board, Piece, Position
from quaternity_cp.jsonio import MAX_INPUT_BYTES, MAX_JSON_DEPTH
from quaternity_cp.quarto.formats import (
    FormatError,
    QuartoPosition,
    QuartoRecord,
    check,
    parse,
    position_to_json,
    record_to_json,
    unreachable_reason,
)
from quarto_reference import cell_number, ref_position_states, ref_reachable_board, ref_winning_lines

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "quarto"


def random_game(rng: random.Random, squares: bool = False, stop: int | None = None) -> Position:
    pos = Position(squares=squares)
    while not pos.over and (stop is None or pos.ply < stop):
        pos.push(rng.choice(list(pos.legal_moves())))
    return pos


# -- round trips ------------------------------------------------------------------------
def test_records_round_trip():
    rng = random.Random(7)
    for _ in range(40):
        pos = random_game(rng, squares=rng.random() < 0.5, stop=rng.randint(0, 17))
        data = record_to_json(pos.moves, pos.squares)
        rec = parse(json.dumps(data))
        assert isinstance(rec, QuartoRecord)
        assert rec.moves == pos.moves and rec.squares == pos.squares
        assert record_to_json(rec.moves, rec.squares) == data


def test_positions_round_trip_and_every_position_of_a_game_is_reachable():
    rng = random.Random(8)
    for _ in range(40):
        pos = random_game(rng, squares=rng.random() < 0.5, stop=rng.randint(0, 17))
        data = position_to_json(pos)
        item = parse(json.dumps(data))
        assert isinstance(item, QuartoPosition)
        assert (item.board, item.piece, item.to_move, item.squares) == (pos.board, pos.piece, pos.to_move, pos.squares)
        assert unreachable_reason(item.board, item.piece, item.to_move, item.squares) is None
        again = item.position()
        assert (again.over, again.winner, again.winning_lines) == (pos.over, pos.winner, pos.winning_lines)
        assert position_to_json(again) == data


# -- strict readers -------------------------------------------------------------------------
GOOD_BOARD = [[None] * 4, [None, "LRTS", None, None], [None] * 4, [None] * 4]


def position_text(**fields) -> str:
    data = {"game": "quarto", "board": GOOD_BOARD, "piece": "DSSH", "to_move": 0}
    data.update(fields)
    return json.dumps({k: v for k, v in data.items() if v != "<absent>"})


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "empty file"),
        ("{", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"moves": []}', "missing field 'game'"),
        ('{"game": "chess", "moves": []}', "field 'game': expected \"quarto\", got \"chess\""),
        ('{"game": "quarto"}', "missing field 'moves' (a record) or 'board' (a position)"),
        ('{"game": "quarto", "moves": "LRTS"}', "field 'moves': expected a list of moves"),
        ('{"game": "quarto", "moves": [], "board": []}', "either 'moves' (a record) or 'board' (a position)"),
        ('{"game": "quarto", "moves": [], "extra": 1}', "unknown field 'extra' in a record"),
        ('{"game": "quarto", "moves": ["LRTS", 7]}', "move 2: expected a string"),
        ('{"game": "quarto", "moves": ["LRTS", "E5 DSSH"]}', "move 2 (\"E5 DSSH\"): no cell 'E5'"),
        ('{"game": "quarto", "moves": ["LRTX"]}', "move 1 (\"LRTX\"): no piece 'LRTX'"),
        ('{"game": "quarto", "moves": [], "rules": {"squares": 1}}', "option 'squares' must be true or false"),
        ('{"game": "quarto", "moves": [], "rules": {"corners": true}}', "field 'rules': unknown option 'corners'"),
        ('{"game": "quarto", "moves": [], "rules": "squares"}', "field 'rules': expected an object"),
        ('{"game": "quarto", "game": "quarto", "moves": []}', 'not valid JSON: key "game" given twice in one object'),
        ('{"game": "quarto", "moves": [NaN]}', "not valid JSON: NaN is not a JSON value"),
        ('{"game": "quarto", "moves": [-Infinity]}', "not valid JSON: -Infinity is not a JSON value"),
        ('{"game": "quarto", "moves": [' + "1" * 5000 + "]}", "not valid JSON: a number of 5,000 digits (at most 20)"),
        ('{"game": "quarto", "moves": ["\\ud800"]}', "not valid JSON: a string with an unpaired surrogate"),
        ("[" * 100_000 + "]" * 100_000, "not valid JSON: nested more than 20 levels deep"),
        ("[" * 21 + "]" * 21, "not valid JSON: nested more than 20 levels deep"),
        (position_text(board=GOOD_BOARD[:3]), "field 'board': expected 4 rows from the top"),
        (position_text(board=[[None] * 4] * 3 + [[None] * 5]), "field 'board', row 4 from the top: expected 4 cells, got 5"),
        (position_text(board=[[None] * 4] * 3 + [[None, "LRTQ", None, None]]), "field 'board', cell B1: no piece 'LRTQ'"),
        (position_text(board=[[None] * 4] * 3 + [[None, 3, None, None]]), "field 'board', cell B1: expected a piece"),
        (position_text(piece="big"), "field 'piece': no piece 'big'"),
        (position_text(to_move=2), "field 'to_move': expected 0, 1 or null, got 2"),
        (position_text(to_move=True), "field 'to_move': expected 0, 1 or null, got true"),
        (position_text(to_move=1.0), "field 'to_move': expected 0, 1 or null, got 1.0"),
        (position_text(to_move=0.0), "field 'to_move': expected 0, 1 or null, got 0.0"),
        (position_text(to_move="0"), "field 'to_move': expected 0, 1 or null, got \"0\""),
        (position_text(to_move="<absent>"), "missing field 'to_move'"),
        (position_text(piece="<absent>"), "missing field 'piece'"),
        (position_text(moves=[]), "either 'moves' (a record) or 'board' (a position)"),
        (position_text(score=1), "unknown field 'score' in a position"),
    ],
)
def test_readers_reject_bad_input_naming_field_and_problem(text, message):
    with pytest.raises(FormatError) as info:
        parse(text)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_null_rules_are_the_standard_rules_as_in_every_game_s_records():
    """A Quaternity or Go Fish record's "rules": null is its default rules; a Quarto file's is the standard game."""
    rec = parse('{"game": "quarto", "moves": ["LRTS"], "rules": null}')
    assert rec.squares is False and rec == parse('{"game": "quarto", "moves": ["LRTS"]}')
    assert parse(position_text(rules=None)).squares is False


def test_a_byte_order_mark_is_ignored():
    rec = parse("\ufeff" + json.dumps({"game": "quarto", "moves": ["LRTS"]}))
    assert [str(m) for m in rec.moves] == ["LRTS"]


def test_limits_are_the_documented_ones_of_every_file():
    """docs/rules.md, section 10: 16 MiB per file, JSON nested at most 20 levels (those of Quaternity's files)."""
    assert (MAX_INPUT_BYTES, MAX_JSON_DEPTH) == (16 * 1024 * 1024, 20)
    with pytest.raises(FormatError, match="^larger than the limit of 16,777,216 bytes for one file$"):
        parse(" " * MAX_INPUT_BYTES + json.dumps({"game": "quarto", "moves": []}))
    rec = parse(json.dumps({"game": "quarto", "moves": ["LRTS"] * 20_000}))  # long but within the limit
    assert len(rec.moves) == 20_000


# -- reachability -----------------------------------------------------------------------------
def reason_for(rows, piece, to_move, squares=False):
    cells = [None if x is None else Piece.parse(x) for row in rows for x in row]
    return unreachable_reason(Board(cells), None if piece is None else Piece.parse(piece), to_move, squares)


def test_two_winning_lines_through_one_cell_are_reachable_but_not_two_apart():
    # row 4 and column A, both light, meet at A4: the last piece went there
    crossing = [["LRTS", "LRTH", "LRSS", "LRSH"], ["LSTS", None, None, None], ["LSTH", None, None, None], ["LSSS", None, None, None]]
    assert reason_for(crossing, None, None) is None
    apart = [["LRTS", "LRTH", "LRSS", "LRSH"], [None] * 4, [None] * 4, ["DRTS", "DRTH", "DRSS", "DRSH"]]
    assert "share no cell" in reason_for(apart, None, None)


@pytest.mark.parametrize(
    "rows,piece,to_move,message",
    [
        ([["LRTS", "LRTS", None, None]] + [[None] * 4] * 3, "DSSH", 1, "piece LRTS stands on both A4 and B4"),
        ([["LRTS", None, None, None]] + [[None] * 4] * 3, "LRTS", 0, "piece: LRTS is in hand but also stands on A4"),
        ([["LRTS", None, None, None]] + [[None] * 4] * 3, "DSSH", 1, "to_move: after 1 placement player 0 holds the piece, not player 1"),
        ([["LRTS", None, None, None]] + [[None] * 4] * 3, None, 0, "piece: null means the first piece is still to be chosen, but 1 piece is placed"),
        ([[None] * 4] * 4, None, 1, "to_move: player 0 chooses the first piece"),
        ([["LRTS", None, None, None]] + [[None] * 4] * 3, "DSSH", None, "to_move: null only when the game is over"),
        ([["LRTS", "LRTH", "LRSS", "LRSH"]] + [[None] * 4] * 3, "DSSH", 1, "piece: the game is over (line A4 B4 C4 D4 is complete), so nobody holds a piece"),
        ([["LRTS", "LRTH", "LRSS", "LRSH"]] + [[None] * 4] * 3, None, 0, "to_move: the game is over after 4 placements; to_move must be null or 1, not 0"),
    ],
)
def test_unreachable_positions_say_why(rows, piece, to_move, message):
    assert reason_for(rows, piece, to_move) == message or message in reason_for(rows, piece, to_move)


def random_small_board(rng: random.Random, squares: bool) -> dict:
    """Up to 8 pieces (two whole lines apart), often filling lines of like pieces, sometimes with a repeated piece."""
    from quarto_reference import ref_lines

    board: dict = {}
    family = [p for p in range(16) if (p >> rng.randrange(4)) & 1 == rng.randrange(2)]
    chosen = rng.sample(ref_lines(squares), rng.randint(0, 2))
    if rng.random() < 0.25:  # two lines apart: rows (or columns) that cannot meet
        k = rng.randrange(2) * 4
        chosen = rng.sample(ref_lines()[k : k + 4], 2)
    for line in chosen:
        for rc in line:
            board.setdefault(rc, None)
    while len(board) < 8 and rng.random() < 0.6:
        board.setdefault((rng.randrange(4), rng.randrange(4)), None)
    cells = list(board)[:8]
    pool = family if rng.random() < 0.7 and len(family) >= len(cells) else list(range(16))
    pieces = rng.sample(pool, len(cells))
    if cells and rng.random() < 0.1:
        pieces[-1] = pieces[0]
    return dict(zip(cells, pieces))


@pytest.mark.parametrize("squares", [False, True])
def test_validity_agrees_with_brute_force_over_placement_orders(squares):
    rng = random.Random(20 + squares)
    seen = {True: 0, False: 0}
    apart = 0  # boards whose winning lines cannot all come from the last placement
    for _ in range(250):
        ref = random_small_board(rng, squares)
        cells = [None] * 16
        for rc, p in ref.items():
            cells[cell_number(rc)] = p
        board = Board(cells)
        states = ref_position_states(ref, squares)
        # no piece, a piece on the board, a piece off it; each with every to_move
        pieces = [None, rng.randrange(16), rng.randrange(16)] + list(ref.values())[:1]
        candidates = {(p, t) for p in pieces for t in (None, 0, 1)}
        for piece, to_move in candidates:
            reason = unreachable_reason(board, None if piece is None else Piece(piece), to_move, squares)
            assert (reason is None) == ((piece, to_move) in states), (ref, piece, to_move, reason)
            seen[reason is None] += 1
        assert bool(states) == ref_reachable_board(ref, squares)
        apart += bool(ref_winning_lines(ref, squares)) and not states and len(set(ref.values())) == len(ref)
    assert seen[True] > 150 and seen[False] > 150 and apart >= 6


# -- the examples ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name,valid,over,winner",
    [
        ("won.json", True, True, 0),
        ("draw.json", True, True, None),
        ("squares.json", True, True, 1),
        ("position.json", True, False, None),
        ("illegal.json", False, False, None),
        ("unreachable.json", False, True, None),
    ],
)
def test_examples(name, valid, over, winner):
    result = check(parse((EXAMPLES / name).read_text()))
    assert result.valid == valid
    assert result.position.over == over
    if valid:
        assert result.position.winner == winner

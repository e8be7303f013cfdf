"""The Quarto solver against a brute-force minimax, and the symmetries it relies on.

The reference here is independent of the solver: its own lines, its own win
check (a loop over the four pieces of a line), and a plain minimax with no
pruning and no table.
"""

from __future__ import annotations

import random
from itertools import permutations, product

import pytest

from quaternity_cp.budget import Limits
from quaternity_cp.quarto import symmetry
from quaternity_cp.quarto.solver import SolveResult, SolverError, solve

# -- the independent reference -----------------------------------------------------------

REF_LINES = (
    [[r * 4 + c for c in range(4)] for r in range(4)]
    + [[r * 4 + c for r in range(4)] for c in range(4)]
    + [[0, 5, 10, 15], [3, 6, 9, 12]]
)
REF_SQUARES = [[r * 4 + c, r * 4 + c + 1, r * 4 + c + 4, r * 4 + c + 5] for r in range(3) for c in range(3)]


def ref_lines(squares):
    return REF_LINES + (REF_SQUARES if squares else [])


def shares_trait(pieces):
    for bit in range(4):
        values = {p >> bit & 1 for p in pieces}
        if len(values) == 1:
            return True
    return False


def ref_wins_at(board, cell, squares):
    for line in ref_lines(squares):
        if cell in line and all(board[c] is not None for c in line) and shares_trait([board[c] for c in line]):
            return True
    return False


def ref_any_win(board, squares):
    return any(all(board[c] is not None for c in line) and shares_trait([board[c] for c in line])
               for line in ref_lines(squares))


def brute_value(board, hand, squares=False):
    """Minimax value (1 win, 0 draw, -1 loss) for the player holding ``hand``: no pruning, no table."""
    left = [p for p in range(16) if p != hand and p not in board]
    best = -2
    for cell in range(16):
        if board[cell] is not None:
            continue
        board[cell] = hand
        if ref_wins_at(board, cell, squares):
            v = 1
        elif not left:
            v = 0
        else:
            v = max(-brute_value(board, q, squares) for q in left)
        board[cell] = None
        best = max(best, v)
    return best


VALUE = {"win": 1, "draw": 0, "loss": -1}


def random_position(rng, empty, squares=False, careful=True):
    """A reachable position with ``empty`` empty cells and a piece in hand.

    Random play that never completes a line; with ``careful`` each player also
    gives a piece that cannot win at once whenever there is one (harder positions).
    """
    while True:
        board = [None] * 16
        left = list(range(16))
        hand = rng.choice(left)
        left.remove(hand)
        stuck = False
        while board.count(None) > empty:
            cells = [c for c in range(16) if board[c] is None]
            rng.shuffle(cells)
            for cell in cells:
                board[cell] = hand
                if not ref_wins_at(board, cell, squares):
                    break
                board[cell] = None
            else:
                stuck = True
                break
            choices = left
            if careful:
                free = [c for c in range(16) if board[c] is None]
                safe = []
                for q in left:
                    ok = True
                    for c in free:
                        board[c] = q
                        ok = not ref_wins_at(board, c, squares)
                        board[c] = None
                        if not ok:
                            break
                    if ok:
                        safe.append(q)
                choices = safe or left
            hand = rng.choice(choices)
            left.remove(hand)
        if not stuck:
            return board, hand


def check_against_brute_force(board, hand, squares):
    result = solve(board, hand, squares=squares)
    assert result.status == "solved"
    expected = brute_value(list(board), hand, squares)
    assert VALUE[result.value] == expected, (board, hand)
    # the same with the symmetry table on every node (by default it starts at 7 empty cells)
    keyed = solve(board, hand, squares=squares, _options={"table_min_empty": 2})
    assert VALUE[keyed.value] == expected, (board, hand)
    # the best move achieves the value
    cell, given = result.best
    assert board[cell] is None
    after = list(board)
    after[cell] = hand
    if ref_wins_at(after, cell, squares):
        achieved = 1
        assert given is None
    elif None not in after:
        achieved = 0
        assert given is None
    else:
        assert given is not None and given != hand and given not in board
        achieved = -brute_value(after, given, squares)
    assert achieved == expected, (board, hand, result.best)
    check_pv(board, hand, squares, result)


def check_pv(board, hand, squares, result):
    """The principal variation is a legal game from the position whose outcome is the value."""
    board = list(board)
    sign = 1
    outcome = None
    for i, (cell, given) in enumerate(result.pv):
        assert outcome is None, "moves after the end of the game"
        assert board[cell] is None
        board[cell] = hand
        if ref_wins_at(board, cell, squares):
            outcome = sign
        elif None not in board:
            outcome = 0
        else:
            assert given is not None and given not in board
            hand = given
        sign = -sign
    assert outcome == VALUE[result.value]


# -- solver against brute force -----------------------------------------------------------

def diverse_positions(rng, squares, quota, empties):
    """Random positions sorted into kinds (immediate win, longer win, draw, loss), ``quota[kind]`` of each.

    The solver only sorts them (so that every value is compared, not just the
    frequent immediate wins); the comparison itself is against the brute force.
    """
    found = {kind: [] for kind in quota}
    for _ in range(20000):
        if all(len(found[k]) >= quota[k] for k in quota):
            break
        board, hand = random_position(rng, rng.choice(empties), squares, careful=rng.random() < 0.9)
        result = solve(board, hand, squares=squares)
        kind = "win1" if result.value == "win" and len(result.pv) == 1 else result.value
        if len(found[kind]) < quota[kind]:
            found[kind].append((board, hand))
    assert all(len(found[k]) == quota[k] for k in quota), {k: len(v) for k, v in found.items()}
    return [item for kind in quota for item in found[kind]]


@pytest.mark.parametrize("squares", [False, True])
def test_solver_agrees_with_brute_force(squares):
    rng = random.Random(11 + squares)
    quota = {"win1": 2, "win": 4, "draw": 4, "loss": 4}
    empties = (2, 3, 4, 5, 6)
    if squares:  # slower lines: smaller positions by default (6 empty cells in the slow test)
        quota, empties = {"win1": 1, "win": 3, "draw": 3, "loss": 3}, (3, 4, 5, 5)
    for board, hand in diverse_positions(rng, squares, quota, empties):
        check_against_brute_force(board, hand, squares)


@pytest.mark.slow
@pytest.mark.parametrize("squares", [False, True])
def test_solver_agrees_with_brute_force_many(squares):
    rng = random.Random(99 + squares)
    quota = {"win1": 5, "win": 25, "draw": 25, "loss": 25}
    for board, hand in diverse_positions(rng, squares, quota, (4, 5, 6, 6, 6)):
        check_against_brute_force(board, hand, squares)


@pytest.mark.parametrize("squares", [False, True])
def test_table_agrees_with_plain_search(squares):
    """With and without the transposition table (and its symmetry keys, on every node) the values agree."""
    rng = random.Random(3 + squares)
    for empty in (7, 7, 8, 8, 8):
        board, hand = random_position(rng, empty, squares)
        without = solve(board, hand, squares=squares, _table=False)
        for options in ({}, {"table_min_empty": 2}, {"table_min_empty": 2, "full_group": False},
                        {"table_min_empty": 5, "raw_min_empty": 2}, {"order": 0, "inline_pairs": False}):
            with_table = solve(board, hand, squares=squares, _options=options)
            assert with_table.value == without.value, options
            check_pv(board, hand, squares, with_table)


def test_immediate_win():
    board = [None] * 16
    board[0], board[1], board[2] = 0, 1, 2           # A4 B4 C4: LRTS LRTH LRSS (all light round)
    result = solve(board, 4)                         # LSTS: light, completes the row at D4
    assert (result.value, result.best, result.pv) == ("win", (3, None), [(3, None)])


def test_game_over_positions():
    board = [0, 1, 2, 4] + [None] * 12                # the top row shares "light"
    result = solve(board, None)
    assert (result.value, result.best, result.status) == ("loss", None, "solved")
    with pytest.raises(SolverError):
        solve(board, 5)


def test_full_board_without_line_is_a_draw():
    rng = random.Random(1)
    for _ in range(200):
        pieces = list(range(16))
        rng.shuffle(pieces)
        if not ref_any_win(pieces, False):
            assert solve(pieces, None).value == "draw"
            return
    pytest.fail("no drawn full board found")


@pytest.mark.parametrize("board, piece", [
    ([None] * 15, 0),
    ([0, 0] + [None] * 14, 1),
    ([0] + [None] * 15, 0),
    ([16] + [None] * 15, 0),
    ([None] * 16, 17),
    ([0] + [None] * 15, None),
])
def test_bad_input(board, piece):
    with pytest.raises(SolverError):
        solve(board, piece)


# -- limits ---------------------------------------------------------------------------------

def test_node_limit_returns_unproven():
    result = solve([None] * 16, 0, max_nodes=3000)
    assert isinstance(result, SolveResult)
    assert (result.value, result.best, result.pv, result.status) == (None, None, [], "limit")
    assert 0 < result.nodes <= 3000


def test_time_limit_returns_unproven():
    result = solve([None] * 16, None, max_seconds=1e-9)  # passed before the first check (after 1024 nodes)
    assert (result.value, result.best, result.status) == (None, None, "time")
    assert (result.proven, result.verdict, result.stop_reason) == (False, "unproven", "time")
    board, hand = random_position(random.Random(4), 12)
    result = solve(board, hand, max_seconds=1e-9)
    assert result.status in ("time", "solved")       # solved only if it needed under 1024 nodes
    if result.status == "time":
        assert result.value is None


def test_limits_are_the_shared_limits_object():
    """``limits=Limits(...)`` is the same as the keywords (max_nodes is max_positions); bad limits and
    limits given both ways are refused as the Quaternity solver refuses them."""
    board, hand = random_position(random.Random(4), 12)
    by_keyword = solve(board, hand, max_nodes=3000)
    by_limits = solve(board, hand, limits=Limits(max_positions=3000))
    assert (by_limits.status, by_limits.nodes) == (by_keyword.status, by_keyword.nodes) == ("limit", 3000)
    assert by_limits.positions == by_limits.nodes
    board, hand = random_position(random.Random(5), 7)
    solved = solve(board, hand, limits=Limits(max_positions=10**7, max_seconds=600))
    assert (solved.proven, solved.stop_reason) == (True, None) and solved.verdict == solved.value
    again = solve(board, hand, max_nodes=10**7, max_seconds=600)
    assert (again.value, again.best, again.pv, again.nodes) == (solved.value, solved.best, solved.pv, solved.nodes)
    for bad in (dict(max_nodes=0), dict(max_seconds=0.0), dict(max_seconds=float("nan")),
                dict(max_seconds=-1), dict(max_nodes=True), dict(limits=Limits(), max_nodes=5)):
        with pytest.raises(SolverError):
            solve(board, hand, **bad)


# -- symmetries -------------------------------------------------------------------------------

def test_board_maps_are_exactly_the_line_preserving_ones():
    maps = symmetry.board_maps()
    assert len(maps) == len(set(maps)) == 32
    sq = symmetry.board_maps(squares=True)
    assert len(sq) == len(set(sq)) == 8
    assert set(sq) == {m for m in maps if all(sorted(m[c] for c in s) in REF_SQUARES for s in REF_SQUARES)}
    # the inner/outer swap is a symmetry of the standard game but breaks 2x2 squares
    swap = tuple([1, 0, 3, 2][c // 4] * 4 + [1, 0, 3, 2][c % 4] for c in range(16))
    assert swap in maps and swap not in sq


@pytest.mark.parametrize("squares", [False, True])
def test_every_symmetry_maps_lines_to_lines(squares):
    lines = {tuple(sorted(line)) for line in ref_lines(squares)}
    maps = symmetry.board_maps(squares)
    for m in maps:
        assert {tuple(sorted(m[c] for c in line)) for line in lines} == lines
    # a group: closed under composition, with the identity
    as_set = set(maps)
    assert tuple(range(16)) in as_set
    for a, b in product(maps, repeat=2):
        assert tuple(a[b[c]] for c in range(16)) in as_set


def test_trait_maps_keep_shared_traits():
    rng = random.Random(2)
    maps = symmetry.trait_maps()
    assert len(set(maps)) == 384
    for _ in range(2000):
        pieces = rng.sample(range(16), 4)
        tmap = rng.choice(maps)
        images = [symmetry.map_trait(p, tmap) for p in pieces]
        assert len(set(images)) == 4
        assert shares_trait(images) == shares_trait(pieces)


@pytest.mark.parametrize("squares", [False, True])
def test_symmetries_preserve_game_values(squares):
    rng = random.Random(21 + squares)
    maps, tmaps = symmetry.board_maps(squares), symmetry.trait_maps()
    for empty in (4, 5, 6, 7, 8, 8):
        board, hand = random_position(rng, empty, squares)
        value = solve(board, hand, squares=squares).value
        for _ in range(2):
            image, image_hand = symmetry.apply(board, hand, rng.choice(maps), rng.choice(tmaps))
            assert ref_any_win(image, squares) is False
            assert solve(image, image_hand, squares=squares, _table=False).value == value


@pytest.mark.parametrize("squares", [False, True])
def test_canonical_key_is_invariant(squares):
    rng = random.Random(8 + squares)
    maps, tmaps = symmetry.board_maps(squares), symmetry.trait_maps()
    for _ in range(60):
        empty = rng.randrange(1, 16)
        board, hand = random_position(rng, empty, squares, careful=False)
        if rng.random() < 0.1:
            board, hand = [None] * 16, None
        key = symmetry.canonical_key(board, hand, squares)
        for _ in range(20):
            image, image_hand = symmetry.apply(board, hand, rng.choice(maps), rng.choice(tmaps))
            assert symmetry.canonical_key(image, image_hand, squares) == key


@pytest.mark.parametrize("squares", [False, True])
def test_canonical_key_separates_orbits(squares):
    """Equal keys exactly for positions in the same orbit (the orbit enumerated over every symmetry)."""
    rng = random.Random(30 + squares)
    for _ in range(3):
        spots = (0, 1, 3, 5, 15)
        board = [None] * 16
        cells = rng.sample(spots, 2)
        pieces = rng.sample(range(16), 3)
        board[cells[0]], board[cells[1]] = pieces[0], pieces[1]
        hand = pieces[2]
        orbit = set()
        for bmap, tmap in symmetry.symmetries(squares):
            image, image_hand = symmetry.apply(board, hand, bmap, tmap)
            orbit.add((tuple(image), image_hand))
        key = symmetry.canonical_key(board, hand, squares)
        same = 0
        # every position of a small space holding the position itself and some of its images
        for c in permutations(spots, 2):
            for p in permutations(sorted({*pieces, *(q ^ 15 for q in pieces)}), 3):
                other = [None] * 16
                other[c[0]], other[c[1]] = p[0], p[1]
                in_orbit = (tuple(other), p[2]) in orbit
                same += in_orbit
                assert (symmetry.canonical_key(other, p[2], squares) == key) == in_orbit
        assert same > 1


def test_brute_force_key_agrees_on_a_sample():
    rng = random.Random(41)
    for _ in range(4):
        board, hand = random_position(rng, rng.randrange(9, 14), careful=False)
        bmap, tmap = rng.choice(symmetry.board_maps()), rng.choice(symmetry.trait_maps())
        image, image_hand = symmetry.apply(board, hand, bmap, tmap)
        assert symmetry.brute_force_key(board, hand) == symmetry.brute_force_key(image, image_hand)


# -- the command ------------------------------------------------------------------------------

def run_cli(*args, input=None):
    from click.testing import CliRunner

    from quaternity_cli.main import main

    return CliRunner().invoke(main, ["quarto", "solve", *args], input=input)


DRAWN = {"game": "quarto", "to_move": 1, "piece": "LSSS", "board": [
    [None, "DRSS", "LSTH", None], [None, "LRSH", "LRTH", "DRTS"],
    [None, None, "DSSS", "DRSH"], ["LSSH", "DSTS", "LRTS", None]]}


def test_cli_solve_json():
    import json

    result = run_cli("-", "--json", input=json.dumps(DRAWN))
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {"value", "best", "pv", "nodes", "seconds", "status", "pv_stopped"}
    assert (data["value"], data["status"]) == ("draw", "solved")
    assert data["pv"][0] == data["best"] and len(data["pv"]) == 6
    # the best move is a legal move of the position: D4 is empty and LSSS is in hand
    cell, given = data["best"].split()
    assert cell in ("A4", "D4", "A3", "A2", "B2", "D1") and given != "LSSS"


def test_cli_solve_text_record_and_limits():
    import json

    record = {"game": "quarto", "moves": ["LRTS", "A4 LRTH", "B4 LRSS", "C4 LSTS"]}
    result = run_cli("-", input=json.dumps(record))
    assert result.exit_code == 0, result.output
    assert "Value: win for player 0" in result.output and "Best move: D4" in result.output
    record = {"game": "quarto", "moves": ["LRTS", "A1 DSSH"]}
    result = run_cli("-", "--json", "--max-seconds", "0.2", input=json.dumps(record))
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert (data["value"], data["best"], data["pv"], data["status"]) == ("unproven", None, [], "time")


@pytest.mark.parametrize("args, text, code", [
    (["--max-seconds", "nan"], '{"game": "quarto", "moves": []}', 2),
    (["--max-seconds", "-1"], '{"game": "quarto", "moves": []}', 2),
    ([], '{"game": "quarto", "moves": ["LRTS", "A1 DSSH", "A1 LRTH"]}', 1),
    ([], '{"game": "quarto", "moves": [', 2),
])
def test_cli_solve_errors(args, text, code):
    result = run_cli("-", *args, input=text)
    assert result.exit_code == code


# -- deeper positions: the solver against an independent search ------------------------------------

#: Positions with 10 empty cells on which a wrong bound stored in the transposition table changes the
#: solver's answer (found by a sweep of random positions: most positions do not show it).
DEEP_POSITIONS = [  # (board, piece in hand, squares)
    ([None, None, None, None, 2, 7, 5, None, None, None, 6, None, 9, 15, None, None], 13, False),
    ([None, 6, None, None, 4, 3, None, 5, None, 11, 0, None, None, None, None, None], 8, False),
    ([None, 8, None, None, None, None, None, None, 5, 14, 2, None, 3, None, None, 13], 15, True),
]


def check_against_search(board, hand, squares):
    """The solver's value, best move and principal variation against the independent search."""
    from quarto_reference import ref_search_value

    result = solve(board, hand, squares=squares)
    expected = ref_search_value(board, hand, squares)
    assert VALUE[result.value] == expected, (board, hand, squares)
    check_pv(board, hand, squares, result)
    cell, given = result.best
    after = list(board)
    after[cell] = hand
    if ref_wins_at(after, cell, squares):
        achieved = 1
    elif None not in after:
        achieved = 0
    else:
        achieved = -ref_search_value(after, given, squares)
    assert achieved == expected, (board, hand, squares, result.best)


@pytest.mark.parametrize("squares", [False, True])
def test_the_independent_search_agrees_with_brute_force(squares):
    from quarto_reference import ref_search_value

    rng = random.Random(21 + squares)
    for empty in (2, 3, 4, 4, 5, 5, 6):
        board, hand = random_position(rng, empty, squares, careful=rng.random() < 0.8)
        assert ref_search_value(board, hand, squares) == brute_value(list(board), hand, squares), (board, hand)


def test_solver_agrees_with_an_independent_search_at_nine_and_ten_empty_cells():
    for board, hand, squares in DEEP_POSITIONS:
        check_against_search(board, hand, squares)
    rng = random.Random(5)
    for _ in range(3):
        board, hand = random_position(rng, 9)
        check_against_search(board, hand, False)


@pytest.mark.slow
@pytest.mark.parametrize("squares", [False, True])
def test_solver_agrees_with_an_independent_search_at_nine_and_ten_empty_cells_many(squares):
    rng = random.Random(31 + squares)
    for _ in range(30):
        board, hand = random_position(rng, rng.choice((9, 10)), squares)
        check_against_search(board, hand, squares)


# -- the opening table is for the standard rules only ------------------------------------------------

def test_the_squares_variant_never_gets_the_standard_tables_answers():
    """The shipped opening table was proven under the standard rules; under the squares rules the same
    canonical key is another game (more lines, fewer symmetries): no lookup, book move or web verdict from it."""
    from quaternity_cp.quarto import openings, web

    entries = openings.shipped()
    assert entries, "the package ships quaternity_cp/quarto/openings.json"
    sample = [(key, entry) for key, entry in sorted(entries.items()) if entry.child is not None][:40]
    assert sample
    for key, entry in sample:
        board, hand = openings.position_of(key)
        assert openings.lookup(board, hand) == entry  # the standard rules: the table answers
        assert openings.lookup(board, hand, squares=True) is None, key
        if hand is not None:
            assert openings.book_move(board, hand) is not None
            assert openings.book_move(board, hand, squares=True) is None, key
            assert web._from_openings(board, hand, True, "you") is None, key

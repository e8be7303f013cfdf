"""Quarto's part ``packed`` (quaternity_cp/quarto/packed.py) through the shared partitioned solver, and
``quaternity quarto graph``.

The reference here is independent of the project's solver and of its symmetries: a plain recursive minimax
over raw boards (memo on the raw board, no symmetry), written from the rules (the 10 lines, or 19 with the
2x2 squares; four pieces sharing a trait value win; a full board without a line is a draw). It gives the
value for the player holding the piece and the plies of the winner's fastest forced win (the loser's longest
resistance), which is what the attractor's ranks count.
"""

from __future__ import annotations

import json
import os
import pickle
import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from quaternity_cli.main import main
from quaternity_cp import partitioned as pt
from quaternity_cp import retrograde
from quaternity_cp.quarto import symmetry
from quaternity_cp.quarto.core import Cell, Piece
from quaternity_cp.quarto.packed import (MAX_EMPTY, NO_GIFT, QuartoGraphError, QuartoPacked, canonical_words,
                                         degree_bound, key_of, move_of, packed_for, value_at, words_of)
from quaternity_cp.quarto.solver import solve

# -- the independent reference ----------------------------------------------------------------------------------
REF_LINES = ([[r * 4 + c for c in range(4)] for r in range(4)] + [[r * 4 + c for r in range(4)] for c in range(4)]
             + [[0, 5, 10, 15], [3, 6, 9, 12]])
REF_SQUARES = [[r * 4 + c, r * 4 + c + 1, r * 4 + c + 4, r * 4 + c + 5] for r in range(3) for c in range(3)]


def ref_lines(squares):
    return REF_LINES + (REF_SQUARES if squares else [])


def ref_share(pieces):
    return any(len({p >> bit & 1 for p in pieces}) == 1 for bit in range(4))


def ref_won_at(board, cell, squares):
    return any(cell in line and all(board[c] is not None for c in line) and ref_share([board[c] for c in line])
               for line in ref_lines(squares))


def ref_any_line(board, squares):
    return any(all(board[c] is not None for c in line) and ref_share([board[c] for c in line])
               for line in ref_lines(squares))


MEMO: dict = {}


def ref_solve(board, hand, squares=False):
    """(value, plies) for the player holding ``hand`` on the raw ``board`` (a tuple of 16): value 1 win, 0 draw,
    -1 loss; plies the winner's fastest forced win (the loser's longest resistance), None for a draw."""
    key = (board, hand, squares)
    got = MEMO.get(key)
    if got is not None:
        return got
    left = [p for p in range(16) if p != hand and p not in board]
    children = []
    won = False
    for cell in range(16):
        if board[cell] is not None:
            continue
        after = board[:cell] + (hand,) + board[cell + 1:]
        if ref_won_at(after, cell, squares):
            won = True
            break
        if not left:  # the board is full, no line: a draw
            children.append((0, None))
            continue
        for q in left:
            v, d = ref_solve(after, q, squares)
            children.append((-v, d))
    if won:
        got = (1, 1)
    elif any(v == 1 for v, _ in children):
        got = (1, 1 + min(d for v, d in children if v == 1))
    elif any(v == 0 for v, _ in children):
        got = (0, None)
    else:
        got = (-1, 1 + max(d for _, d in children))
    MEMO[key] = got
    return got


def ref_wins_with(board, piece, squares):
    """Whether placing ``piece`` on some empty cell of ``board`` completes a line."""
    return any(board[c] is None and ref_won_at(board[:c] + (piece,) + board[c + 1:], c, squares) for c in range(16))


def random_position(rng, empty, squares=False, quiet=False):
    """A position with ``empty`` empty cells reached by random legal plies from the empty board (the first gift
    random); a game that ends on the way is thrown away and played again. ``quiet``: each gift is a piece that
    does not win at once when there is one, and a position whose mover wins at once is thrown away too (more
    positions whose value takes a search)."""
    while True:
        board = (None,) * 16
        pool = list(range(16))
        rng.shuffle(pool)
        hand = pool.pop()  # player 0's first gift
        over = False
        while board.count(None) > empty:
            cell = rng.choice([c for c in range(16) if board[c] is None])
            board = board[:cell] + (hand,) + board[cell + 1:]
            if ref_won_at(board, cell, squares):
                over = True
                break
            safe = [q for q in pool if not ref_wins_with(board, q, squares)] if quiet else []
            hand = rng.choice(safe) if safe else pool[-1]
            pool.remove(hand)
        if not over and not (quiet and ref_wins_with(board, hand, squares)):
            return board, hand


def position_file(path, board, hand, squares=False):
    """A position file of the raw board (the player to move from the placements made)."""
    placed = sum(p is not None for p in board)
    data = {"game": "quarto", "board": [[None if board[r * 4 + c] is None else str(Piece(board[r * 4 + c]))
                                         for c in range(4)] for r in range(4)],
            "piece": None if hand is None else str(Piece(hand)), "to_move": (placed + 1) % 2}
    if squares:
        data["rules"] = {"squares": True}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def check_best(board, hand, squares, value, plies, best):
    """``best`` keeps ``value`` (and its plies) by the reference."""
    cell, gift = best
    assert board[cell] is None
    after = board[:cell] + (hand,) + board[cell + 1:]
    if gift is None:
        assert ref_won_at(after, cell, squares) or None not in after
        assert (value, plies) == ((1, 1) if ref_won_at(after, cell, squares) else (0, None))
        return
    assert gift != hand and gift not in board and not ref_won_at(after, cell, squares)
    v, d = ref_solve(after, gift, squares)
    assert -v == value
    if plies is not None:
        assert d == plies - 1


def graph(tmp_path, board, hand, squares=False, parts=2):
    part = packed_for({"board": list(board), "piece": hand, "squares": squares})
    built = pt.build(part, str(tmp_path / f"g{len(list(tmp_path.iterdir()))}"), parts=parts)
    return part, built, pt.attract(built)


VALUE = {1: "win", 0: "draw", -1: "loss"}


# -- keys and symmetry ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("squares", [False, True])
def test_the_keys_are_the_project_s_canonical_keys_and_decode_to_their_class(squares):
    rng = random.Random(7)
    occs, masks, hands, want = [], [], [], []
    for _ in range(400):
        board, hand = random_position(rng, rng.randint(1, 14), squares)
        occ, m = symmetry.pack(board)
        occs.append(occ), masks.append(m), hands.append(hand)
        want.append(symmetry.canonical_key(board, hand, squares))
    words = canonical_words(occs, masks, hands, squares)
    assert [key_of(w) for w in words] == want
    start, held = random_position(rng, 4, squares)
    part = packed_for({"board": list(start), "piece": held, "squares": squares})
    for w, k in zip(words, want):
        got = part.decode(w)
        assert got["piece"] == 0 and symmetry.canonical_key(got["board"], 0, squares) == k
        assert np.array_equal(words_of(k), w)


@pytest.mark.parametrize("squares", [False, True])
def test_a_position_and_its_symmetric_images_are_one_key(squares):
    rng = random.Random(11)
    maps, traits = symmetry.board_maps(squares), symmetry.trait_maps()
    for _ in range(40):
        board, hand = random_position(rng, rng.randint(2, 9), squares)
        part = packed_for({"board": list(board), "piece": hand, "squares": squares})
        image, moved = symmetry.apply(board, hand, rng.choice(maps), rng.choice(traits))
        other = packed_for({"board": image, "piece": moved, "squares": squares})
        assert np.array_equal(part.start()[0], other.start()[0])
        assert part.identity() == other.identity() and packed_for(part.identity()).root == part.root
        occ, m = symmetry.pack(image)
        assert np.array_equal(canonical_words([occ], [m], [moved], squares)[0], part.start()[0])
    # a board map that is no symmetry (two cells swapped) gives another key, for some position
    swap = (1, 0) + tuple(range(2, 16))
    assert not symmetry.maps_lines_to_lines(swap)
    board = tuple([0, 1, 2, None, 4] + [None] * 11)
    moved_board = [board[swap.index(c)] for c in range(16)]
    assert symmetry.canonical_key(board, 3) != symmetry.canonical_key(moved_board, 3)


def test_expand_gives_the_plies_of_the_rules():
    """Every ply of a position, by the reference's rules, is one edge (its child's canonical key), the winning
    placements one edge won by the mover, the last placement of a full board a draw; degree counts them."""
    rng = random.Random(5)
    for squares in (False, True):
        for empty in (1, 2, 3, 5, 7):
            for _ in range(4):
                board, hand = random_position(rng, empty, squares)
                part = packed_for({"board": list(board), "piece": hand, "squares": squares})
                key, first = part.start()
                out = part.expand(key.reshape(1, 2))
                assert first == 0 and int(out["owner"][0]) == 0
                # the decoded position is the one expanded: its plies are counted from the decoded board
                dec = part.decode(key)
                b, left = tuple(dec["board"]), [p for p in range(1, 16) if p not in dec["board"]]
                children, ends = set(), set()
                for cell in range(16):
                    if b[cell] is not None:
                        continue
                    after = b[:cell] + (0,) + b[cell + 1:]
                    if ref_won_at(after, cell, squares):
                        ends.add(0)
                    elif None not in after:
                        ends.add(-1)
                    else:
                        children.update(symmetry.canonical_key(after, q, squares) for q in left)
                got = {key_of(k) for k, e in zip(out["keys"], out["end"]) if e == -2}
                assert got == children and len(got) == int((out["end"] == -2).sum())
                assert set(out["end"][out["end"] != -2].tolist()) == ends
                assert int(out["degree"][0]) == len(children) + len(ends) <= part.max_degree
                assert set(out["off"][out["end"] == -2].tolist()) <= {1}
                for number, e in zip(out["move"].tolist(), out["end"].tolist()):
                    cell, gift = move_of(number)
                    assert b[cell] is None and (gift is None) == (e != -2)
                    if e == 0:
                        assert ref_won_at(b[:cell] + (0,) + b[cell + 1:], cell, squares)


def test_a_batch_is_expanded_as_its_positions_one_by_one():
    rng = random.Random(8)
    start, held = random_position(rng, 8)
    part = packed_for({"board": list(start), "piece": held})
    rows = []
    for _ in range(30):
        board, hand = random_position(rng, rng.randint(2, 8))
        rows.append(packed_for({"board": list(board), "piece": hand}).start()[0])
    keys = np.array(rows, np.uint64)
    whole = part.expand(keys)
    at = 0
    for i, row in enumerate(keys):
        one = part.expand(row.reshape(1, 2))
        m = len(one["src"])
        assert np.array_equal(whole["src"][at:at + m], np.full(m, i))
        for name in ("keys", "off", "move", "end"):
            assert np.array_equal(whole[name][at:at + m], one[name]), name
        assert whole["degree"][i] == one["degree"][0]
        at += m
    assert at == len(whole["src"])


# -- the refusals of the packed part -------------------------------------------------------------------------
def test_the_most_plies_and_the_starts_refused():
    assert MAX_EMPTY == 11 and degree_bound(11) == 110 <= retrograde.MAX_DEGREE < degree_bound(12) == 132
    board = [None] * 12 + [0, 3, 12, 15]  # 12 empty cells (the bottom row shares no trait)
    with pytest.raises(QuartoGraphError, match=r"12 empty cells.*132.*127.*at most 11"):
        packed_for({"board": board, "piece": 5})
    eleven = [None] * 11 + [0, 1, 2, 4, 8]
    part = packed_for({"board": eleven, "piece": 3})
    assert part.max_degree == 110 and pt.check_packed(part) is part
    with pytest.raises(QuartoGraphError, match="twice"):
        packed_for({"board": [1, 1] + [None] * 14, "piece": 3})
    with pytest.raises(QuartoGraphError, match="already on the board"):
        packed_for({"board": [1, 2] + [None] * 14, "piece": 2})
    with pytest.raises(QuartoGraphError, match="give its board"):
        packed_for({})
    with pytest.raises(QuartoGraphError):
        packed_for({"board": [None] * 16, "piece": None})
    # a finished game: nobody moves at its start
    won = [0, 1, 2, 4] + [None] * 12
    over = packed_for({"board": won, "piece": None})
    assert over.start()[1] == -1


def test_the_packed_part_is_registered_picklable_and_rebuilt_from_its_identity():
    from quaternity_cp.registry import GAMES
    import quaternity_cp.quarto  # noqa: F401  (registers "quarto")

    board = [None, 10, 5, None, None, 3, 1, 8, None, None, 14, 11, 7, 12, 0, None]
    part = GAMES["quarto"].part("packed")({"board": board, "piece": 6})
    assert isinstance(part, QuartoPacked) and isinstance(part, pt.Packed)
    assert (part.name, part.width, part.seats, part.moves) == ("quarto", 2, 2, 16 * 17)
    again = pickle.loads(pickle.dumps(part))
    assert again == part and again.root == part.root
    assert packed_for(part.identity()).start()[0].tolist() == part.start()[0].tolist()
    assert json.loads(json.dumps(part.identity())) == part.identity()
    assert move_of(3 * 17 + NO_GIFT) == (3, None) and move_of(3 * 17 + 5) == (3, 5)


# -- the graph's values against the reference ------------------------------------------------------------------
#: (seed, empty cells, squares, quiet): random starts of every kind, and some that are lost for the mover
CASES = ([(seed, empty, False, seed % 3 != 0) for seed in range(8) for empty in (4, 5, 6)]
         + [(seed, 4 + seed % 3, True, seed % 3 != 0) for seed in range(6)]
         + [(16, 6, False, True), (20, 6, True, True), (12, 6, False, True), (11, 4, False, True)])


@pytest.mark.parametrize("seed,empty,squares,quiet", CASES)
def test_the_graph_s_value_is_the_brute_force_s_and_the_solver_s(tmp_path, seed, empty, squares, quiet):
    board, hand = random_position(random.Random(1000 * seed + empty + 500 * squares), empty, squares, quiet)
    part, built, att = graph(tmp_path, board, hand, squares)
    value, plies = ref_solve(board, hand, squares)
    mine, theirs = (int(r) for r in att.ranks[att.root])
    assert (mine >= 0, theirs >= 0) == (value == 1, value == -1)
    assert (mine if value == 1 else theirs if value == -1 else None) == plies
    assert solve(list(board), hand, squares=squares, kernel="python").value == VALUE[value]
    got = value_at(built, att.ranks, board, hand)
    assert (got.value, got.plies) == (VALUE[value], plies)
    check_best(board, hand, squares, value, plies, got.best)


@pytest.mark.parametrize("seed,empty,squares", [(3, 5, False), (4, 6, False), (5, 5, True)])
def test_every_rank_of_the_graph_is_the_brute_force_s(tmp_path, seed, empty, squares):
    rng = random.Random(77 + seed)
    board, hand = random_position(rng, empty, squares, quiet=True)
    part, built, att = graph(tmp_path, board, hand, squares, parts=3)
    base = pt.bases(built)
    seen = 0
    for k in range(built.parts):
        for j, row in enumerate(pt.keys_of(built, k)):
            d = part.decode(row)
            value, plies = ref_solve(tuple(d["board"]), d["piece"], squares)
            mine, theirs = (int(r) for r in att.ranks[base[k] + j])
            assert mine == (plies if value == 1 else -1) and theirs == (plies if value == -1 else -1), d
            seen += 1
    assert seen == built.positions == att.positions
    # every position reachable from the start by the rules is one of the graph's, once up to symmetry
    found, todo = set(), [(board, hand)]
    while todo:
        b, h = todo.pop()
        k = symmetry.canonical_key(b, h, squares)
        if k in found:
            continue
        found.add(k)
        left = [p for p in range(16) if p != h and p not in b]
        for cell in range(16):
            if b[cell] is None:
                after = b[:cell] + (h,) + b[cell + 1:]
                if not ref_won_at(after, cell, squares) and None in after:
                    todo.extend((after, q) for q in left)
    assert len(found) == built.positions
    # the partitioned attractor gives the same ranks
    ranks = pt.attract(built, partitioned=True).ranks
    assert np.array_equal(ranks.dense(), att.ranks)


# -- the command ------------------------------------------------------------------------------------------------
def run(*args):
    return CliRunner().invoke(main, ["quarto", "graph", *[str(a) for a in args]])


KEYS = {"value", "best", "plies", "positions", "edges", "layers", "parts", "build_seconds", "attractor_seconds",
        "checkpoint_bytes", "bytes_per_position"}


def test_the_command_s_value_best_move_and_keys(tmp_path):
    rng = random.Random(3)
    board, hand = random_position(rng, 6)
    path = position_file(tmp_path / "p.json", board, hand)
    result = run(path, "--checkpoint", tmp_path / "ck", "--parts", 2, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert KEYS <= set(data) and data["status"] == "solved" and data["parts"] == 2
    value, plies = ref_solve(board, hand)
    assert (data["value"], data["plies"]) == (VALUE[value], plies)
    solved = CliRunner().invoke(main, ["quarto", "solve", str(path), "--json", "--kernel", "python"])
    assert json.loads(solved.stdout)["value"] == data["value"]
    check_best(board, hand, False, value, plies, parse_move(data["best"]))
    assert data["positions"] > 0 and data["edges"] >= data["positions"] - 1 and data["checkpoint_bytes"] > 0
    assert result.stderr == ""  # --json: no progress lines, unless asked for (--progress: a layer line each)
    shown = run(path, "--checkpoint", tmp_path / "ck2", "--parts", 2, "--json", "--progress")
    assert shown.exit_code == 0 and json.loads(shown.stdout)["value"] == data["value"], shown.output
    lines = shown.stderr.strip().splitlines()
    assert len(lines) == data["layers"] - 1 and all(line.strip().startswith("layer ") for line in lines), lines
    # a symmetric image of the position goes on in the same folder, its best move named in its own frame
    image, moved = symmetry.apply(board, hand, symmetry.board_maps()[5], symmetry.trait_maps()[77])
    other = position_file(tmp_path / "q.json", tuple(image), moved)
    again = run(other, "--checkpoint", tmp_path / "ck", "--parts", 2)
    assert again.exit_code == 0, again.output
    best = next(line for line in again.stdout.splitlines() if line.startswith("Best move: "))
    check_best(tuple(image), moved, False, value, plies, parse_move(best.removeprefix("Best move: ")))
    assert f"{data['positions']:,} positions" in again.stdout


def parse_move(text):
    """``"A1 DSSH"`` or ``"A1"`` as (cell, gift or None)."""
    words = text.split()
    return int(Cell.parse(words[0])), (int(Piece.parse(words[1])) if len(words) > 1 else None)


def test_the_command_refuses_with_one_line(tmp_path):
    def refused(result, words):
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("quaternity: ") and result.stderr.count("\n") == 1 and words in result.stderr
        assert result.stdout == ""

    # too many empty cells
    refused(run("examples/quarto/opening.json", "--checkpoint", tmp_path / "a"), "at most 11 empty cells")
    twelve = position_file(tmp_path / "twelve.json", tuple([None] * 12 + [0, 3, 12, 15]), 5)
    refused(run(twelve, "--checkpoint", tmp_path / "a"), "12 empty cells")
    # a finished game
    root = Path(__file__).resolve().parent.parent
    refused(run(root / "examples/quarto/won.json", "--checkpoint", tmp_path / "a"), "the game is over")
    refused(run(root / "examples/quarto/draw.json", "--checkpoint", tmp_path / "a"), "the game is over (a draw)")
    # a checkpoint folder of another start (and of other parts)
    rng = random.Random(9)
    first = position_file(tmp_path / "first.json", *random_position(rng, 4))
    assert run(first, "--checkpoint", tmp_path / "ck", "--parts", 1).exit_code == 0
    second = position_file(tmp_path / "second.json", *random_position(rng, 4))
    refused(run(second, "--checkpoint", tmp_path / "ck", "--parts", 1), "another game")
    refused(run(first, "--checkpoint", tmp_path / "ck", "--parts", 2), "of this game in 1 parts, not 2")
    assert run(first, "--checkpoint", tmp_path / "ck").exit_code == 0  # (none named: its own, 1)
    # options
    refused(run(first, "--checkpoint", first), "not a folder")
    refused(run(first, "--checkpoint", tmp_path / "b", "--max-seconds", "nan"), "--max-seconds")
    refused(run(first, "--checkpoint", tmp_path / "b", "--workers", 1, "--cluster", "tcp://x:1"), "not both")
    # an unreachable position: exit 1, as `quarto solve`
    assert run(root / "examples/quarto/unreachable.json", "--checkpoint", tmp_path / "c").exit_code == 1


def test_a_limit_says_unproven_and_the_next_run_goes_on(tmp_path):
    board, hand = random_position(random.Random(4), 6)
    path = position_file(tmp_path / "p.json", board, hand)
    stopped = run(path, "--checkpoint", tmp_path / "ck", "--max-positions", 5, "--json")
    assert stopped.exit_code == 0, stopped.output
    data = json.loads(stopped.stdout)
    assert data["value"] == "unproven" and data["status"] == "limit" and KEYS <= set(data)
    assert 5 <= data["positions"] and data["best"] is None
    done = run(path, "--checkpoint", tmp_path / "ck", "--json")
    assert done.exit_code == 0 and json.loads(done.stdout)["value"] == VALUE[ref_solve(board, hand)[0]]


def test_ctrl_c_exits_130_naming_the_folder(tmp_path, monkeypatch):
    board, hand = random_position(random.Random(6), 4)
    path = position_file(tmp_path / "p.json", board, hand)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(pt, "solve_graph", interrupted)
    result = run(path, "--checkpoint", tmp_path / "ck")
    assert result.exit_code == 130 and str(tmp_path / "ck") in result.stderr

    def stopped(*args, **kwargs):
        raise pt.BuildStopped("interrupted", 2, 10)

    monkeypatch.setattr(pt, "solve_graph", stopped)
    result = run(path, "--checkpoint", tmp_path / "ck")
    assert result.exit_code == 130 and str(tmp_path / "ck") in result.stderr


def test_sigterm_exits_143_naming_the_folder(tmp_path, monkeypatch):
    import signal

    board, hand = random_position(random.Random(6), 4)
    path = position_file(tmp_path / "p.json", board, hand)
    real = pt.solve_graph

    def terminated(*args, **kwargs):  # a real SIGTERM to this process, in the middle of the build
        os.kill(os.getpid(), signal.SIGTERM)
        return real(*args, **kwargs)

    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(pt, "solve_graph", terminated)
    result = run(path, "--checkpoint", tmp_path / "ck")
    assert result.exit_code == 143 and str(tmp_path / "ck") in result.stderr, result.output
    assert "Traceback" not in result.output and signal.getsignal(signal.SIGTERM) is before
    monkeypatch.setattr(pt, "solve_graph", real)
    done = run(path, "--checkpoint", tmp_path / "ck", "--json")
    assert done.exit_code == 0 and json.loads(done.stdout)["value"] == VALUE[ref_solve(board, hand)[0]]

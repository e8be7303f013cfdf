"""The lazy win solve over packed positions (quaternity_cp.lazywin and ``quaternity solve --start --packed``)
against independent references:

* the shared layer's toy game (tests/test_partitioned.py: cycles, a seat that chooses for the other, shared
  ends): every start and seat against the brute-force attractor written there, under any order of the replies;
* Quaternity's small starts of every preset that deals nothing, every seat: the verdict and the plies against the
  partitioned solver's whole graph ranked for every seat, and against the in-memory lazy solve;
* the Quaternity hooks (``doomed``, ``order``) read from the packed words against the in-memory solver's own
  functions on the decoded positions;
* the strategy and defence trees read from the partial graph, the limits, Ctrl-C and the command's contract.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from quaternity_cp import lazywin
from quaternity_cp.budget import Limits
from quaternity_cp.quartets.game import Question
from quaternity_cp.quartets.packed import QuaternityPacked, frame_of, state_of_key
from quaternity_cp.quartets.rules import Rules

from strategies import SOLVER_OPTIONS as OPTIONS
from test_partitioned import TOP, Toy, brute_ranks, pack

PRESETS = ("quaternity", "quaternity-seat", "blind", "pythagoras")
STARTS = ((2, 4, 2), (2, 4, 4), (3, 2, 3), (3, 3, 2), (4, 4, 2), (3, 6, 2))
#: larger starts, with --runslow (thousands of positions each; a minute for the four presets)
SLOW_STARTS = ((3, 3, 3), (2, 8, 4))


@dataclass(frozen=True)
class OrderedToy(Toy):
    """The toy with an order of its replies drawn from ``seed`` (every move number a random score)."""

    seed: int = 0

    def order(self, keys, seats, src, moves):
        rng = random.Random(self.seed)
        table = [rng.randrange(4) for _ in range(self.moves)]
        return np.array([table[m] for m in np.asarray(moves).tolist()], np.int8)


@pytest.mark.parametrize("pile", range(1, TOP + 1))
def test_the_toy_game_s_every_start_and_seat_equals_the_brute_force_attractor(pile):
    brute = brute_ranks()
    for seat in (0, 1):
        res, lazy = lazywin.solve_win(Toy(pile), seat)
        want = brute.get((pile, 1, 0, 0, seat))
        assert res.verdict == (want is not None), (pile, seat)
        assert res.plies == want
        assert res.stopped is None and res.positions >= 1


@settings(max_examples=40, deadline=None)
@given(pile=st.integers(3, TOP), seed=st.integers(0, 10**6), seat=st.integers(0, 1))
def test_the_toy_s_answer_does_not_depend_on_the_order_of_the_replies(pile, seed, seat):
    want = brute_ranks().get((pile, 1, 0, 0, seat))
    res, _ = lazywin.solve_win(OrderedToy(pile, seed=seed), seat, batch=3)
    assert res.verdict == (want is not None)
    assert res.plies == want


def test_a_reply_left_for_later_is_explored_when_the_strategy_meets_it():
    """Not vacuous: on the toy, some starts take more than one round (a reply explored later)."""
    rounds = [lazywin.solve_win(OrderedToy(p, seed=s), seat)[0].rounds
              for p in range(3, TOP + 1) for s in range(5) for seat in (0, 1)]
    assert max(rounds) > 1


def test_the_graph_s_positions_are_found_again_and_others_are_not():
    res, lazy = lazywin.solve_win(Toy(TOP), 0)
    keys = lazy.keys_of(np.arange(lazywin.ROOT, lazy.n))
    seats = lazy.seats[lazywin.ROOT:lazy.n]
    assert (lazy.lookup(keys, seats) == np.arange(lazywin.ROOT, lazy.n)).all()
    assert (lazy.lookup(keys, 1 - seats) != np.arange(lazywin.ROOT, lazy.n)).all()
    assert lazy.lookup(np.array([[pack(TOP + 50, 0, 0)]], np.uint64), np.array([0], np.int8))[0] == -1


def _partitioned_seats(tmp_path, P, N, S, preset):
    from quaternity_cp.quartets.bigsolve import solve_start

    out = solve_start(P, N, S, Rules.preset(preset), str(tmp_path / f"{P}{N}{S}{preset}"), workers=0, depth=0)
    return out.seats


@pytest.mark.parametrize("preset", PRESETS)
def test_every_seat_of_small_starts_equals_the_partitioned_whole_graph(tmp_path, preset):
    assert _against_the_whole_graph(tmp_path, preset, STARTS) >= 2  # (2x4x2 and 2x4x4: seat 0 wins)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_every_seat_of_larger_starts_equals_the_partitioned_whole_graph(tmp_path, preset):
    _against_the_whole_graph(tmp_path, preset, SLOW_STARTS)


def _against_the_whole_graph(tmp_path, preset, starts) -> int:
    """Every seat of ``starts`` under ``preset``: the lazy verdict and plies against the partitioned solver's whole
    graph, and seat 0's against the in-memory solve; how many are yes."""
    from quaternity_cp.quartets.game import Game
    from quaternity_cp.quartets.position import Position
    from quaternity_cp.quartets.solver import solve

    rules = Rules.preset(preset)
    yes = 0
    for P, N, S in starts:
        seats = _partitioned_seats(tmp_path, P, N, S, preset)
        packed = QuaternityPacked(P, N, S, rules)
        for seat in range(P):
            res, _ = lazywin.solve_win(packed, seat)
            want = seats[str(seat)]
            assert res.verdict == want["wins"], (P, N, S, preset, seat)
            assert res.plies == want["plies"], (P, N, S, preset, seat)
            yes += bool(res.verdict)
            if seat == 0:
                ref = solve(Position(Game(P, N, S), rules), "win", seat, depth=0)
                assert ref.result == res.verdict and ref.plies == res.plies
    return yes


@settings(max_examples=60, deadline=None)
@given(options=OPTIONS, start=st.sampled_from([(2, 2, 2), (3, 3, 2), (2, 3, 2), (2, 2, 3), (4, 2, 2), (3, 2, 3),
                                               (2, 4, 2), (2, 2, 4)]),
       seat=st.integers(0, 3))
def test_every_option_set_equals_the_in_memory_solve(options, start, seat):
    from quaternity_cp.quartets.game import Game
    from quaternity_cp.quartets.position import Position
    from quaternity_cp.quartets.solver import solve

    rules = Rules.preset("quaternity", **options)
    seat %= start[0]
    res, _ = lazywin.solve_win(QuaternityPacked(*start, rules), seat)
    ref = solve(Position(Game(*start), rules), "win", seat, depth=0)
    assert (res.verdict, res.plies) == (ref.result, ref.plies), (options, start, seat)


@pytest.mark.parametrize("start,preset,seat", [((9, 3, 3), "quaternity", 0), ((9, 3, 3), "pythagoras", 8),
                                               ((10, 5, 2), "blind", 0), ((10, 5, 2), "quaternity", 9),
                                               ((10, 5, 2), "quaternity-seat", 9), ((12, 6, 2), "quaternity", 0),
                                               ((12, 6, 2), "pythagoras", 11), ((12, 6, 2), "quaternity-seat", 11)])
def test_more_than_eight_seats_equal_the_in_memory_solve(start, preset, seat):
    """Starts past the partitioned solver's 8 seats (the lazy solve takes 16, keys up to 24 words)."""
    from quaternity_cp.quartets.game import Game
    from quaternity_cp.quartets.packed import MAX_BITS
    from quaternity_cp.quartets.position import Position
    from quaternity_cp.quartets.solver import solve

    rules = Rules.preset(preset)
    packed = QuaternityPacked(*start, rules)
    res, lazy = lazywin.solve_win(packed, seat)
    ref = solve(Position(Game(*start), rules), "win", seat, depth=0)
    assert ref.proven and (res.verdict, res.plies) == (ref.result, ref.plies)
    assert lazy.W == packed.width and (packed.width > MAX_BITS // 64 or start[0] > 8)


def test_a_ply_won_by_several_seats_is_a_win_of_each():
    """Not vacuous: under tie = shared, a start where the player's only forced win ends in a shared win (one
    row per winner of one ply, all of them its win)."""
    rules = Rules.preset("quaternity", tie="shared", auto_claim=False, declare=True, handover="fewest",
                         forced_no_question=False, silence=False, after_no="asked")
    res, _ = lazywin.solve_win(QuaternityPacked(2, 2, 2, rules), 0)
    from quaternity_cp.quartets.game import Game
    from quaternity_cp.quartets.position import Position
    from quaternity_cp.quartets.solver import solve

    ref = solve(Position(Game(2, 2, 2), rules), "win", 0, depth=0)
    assert ref.result is True and res.verdict is True and res.plies == ref.plies


@pytest.mark.parametrize("preset", PRESETS)
def test_the_hooks_read_from_the_words_equal_the_in_memory_solver_s(preset):
    """``doomed`` and ``order`` of QuaternityPacked, from bits of the packed words, against the in-memory solve's
    ``cannot_win`` and opponent order on the decoded positions: every position and move of the first layers of
    two starts, every seat."""
    checked, doomed = _hooks(Rules.preset(preset), ((3, 3, 3), (4, 4, 2)), 7, 400)
    assert checked > 1000


@pytest.mark.parametrize("preset", PRESETS)
def test_the_hooks_of_more_than_eight_seats(preset):
    """``doomed`` with 9 and 10 seats (a seat takes 4 bits: the code of scores, seat and sets in play is laid out
    by the seat's bits) against ``cannot_win``, every seat of every position of seeded random games played to
    their end (where seats have scored and some cannot win any more)."""
    from quaternity_cp.quartets.solver.api import cannot_win

    rules = Rules.preset(preset)
    rng = np.random.default_rng(41)
    checked = doomed = 0
    for P, N, S in ((9, 3, 3), (10, 5, 2), (9, 9, 2)):
        packed = QuaternityPacked(P, N, S, rules)
        ctx = packed.context()
        for _ in range(12):
            row = packed.start()[0]
            for _ in range(200):
                key = packed.key_of_words(row.tolist())
                node = ctx.describe(state_of_key(key, ctx.game, rules))
                f = frame_of(key)
                for me in range(P):
                    seat_rel = me if packed.rotated else (me - f) % P
                    got = bool(packed.doomed(row.reshape(1, -1), np.array([seat_rel], np.int8))[0])
                    assert got == cannot_win(rules, me)(node), (key, me)
                    doomed += got
                    checked += 1
                out = packed.expand(row.reshape(1, -1))
                inner = np.flatnonzero(out["end"] == -2)
                if not len(inner):
                    break
                row = out["keys"][inner[rng.integers(len(inner))]]
    assert checked > 1000 and doomed > 0, (checked, doomed)


def _hooks(rules: Rules, starts: tuple[tuple[int, int, int], ...], layers: int, width: int) -> tuple[int, int]:
    """Compares the hooks on the first ``layers`` layers (``width`` positions each) of ``starts``; returns the
    moves compared and the (position, seat) pairs found doomed."""
    from quaternity_cp.quartets.solver.api import cannot_win, opponent_order

    checked = doomed = 0
    for P, N, S in starts:
        packed = QuaternityPacked(P, N, S, rules)
        ctx = packed.context()
        keys = packed.start()[0].reshape(1, -1)
        seen: set[tuple[int, ...]] = set()
        layer = keys
        for _ in range(layers):
            out = packed.expand(layer)
            inner = out["end"] == -2
            kids = np.unique(out["keys"][inner], axis=0)
            kids = np.array([k for k in kids if tuple(k) not in seen], np.uint64).reshape(-1, packed.width)
            seen.update(tuple(k) for k in kids)
            for row_i, row in enumerate(layer):
                key = packed.key_of_words(row.tolist())
                node = ctx.describe(state_of_key(key, ctx.game, rules))
                f = frame_of(key)
                rows = np.flatnonzero(out["src"] == row_i)
                for me in range(P):  # the player's seat in the key's numbering
                    seat_rel = me if packed.rotated else (me - f) % P  # counted from the key's mover
                    got = bool(packed.doomed(row.reshape(1, -1), np.array([seat_rel], np.int8))[0])
                    assert got == cannot_win(rules, me)(node), (key, me)
                    doomed += got
                    if len(rows):
                        mv = out["move"][rows].astype(np.int64)
                        got_o = packed.order(row.reshape(1, -1), np.array([seat_rel], np.int8),
                                             np.zeros(len(rows), np.int64), mv)
                        order = opponent_order(ctx, me)
                        moves = [packed.move_of(int(m), key) for m in mv]
                        # (the in-memory order's place, then a question's target counted from the player)
                        want_o = [order.score(node, m) * P
                                  + ((m.target - me) % P if isinstance(m, Question) and node.pending is None else 0)
                                  for m in moves]
                        assert got_o.tolist() == want_o, (key, me)
                        checked += len(rows)
            layer = kids[:width]
            if not len(layer):
                break
    return checked, doomed


def test_a_stopped_solve_is_unproven_and_says_why():
    packed = QuaternityPacked(3, 3, 3, Rules.preset("quaternity"))
    res, _ = lazywin.solve_win(packed, 0, limits=Limits(max_positions=50))
    assert res.verdict is None and res.stopped == "limit" and res.positions < 50

    def stop(step):
        raise KeyboardInterrupt

    res, _ = lazywin.LazyWin(packed, 0, batch=10), None
    out = res.solve(progress=stop)
    assert out.verdict is None and out.stopped == "interrupted"


def test_the_rows_reserved_are_as_many_as_the_memory_holds(monkeypatch):
    """A position limit the memory holds is reserved at once, so the arrays never grow by copying below it (half
    the memory, as before, made 14x14x2's copy at 64 million positions need more memory than the machine had)."""
    pages = {"SC_PHYS_PAGES": 1 << 20, "SC_PAGE_SIZE": 1 << 12}  # 4 GiB
    monkeypatch.setattr(lazywin.os, "sysconf", pages.__getitem__)
    assert lazywin._most_reserved(22) == (1 << 32) // (8 * 22 + 22)
    assert lazywin._most_reserved(1) == (1 << 32) // 30
    monkeypatch.setattr(lazywin.os, "sysconf", {"SC_PHYS_PAGES": 1, "SC_PAGE_SIZE": 1}.__getitem__)
    assert lazywin._most_reserved(4) == 1 << 12  # (at least 4,096 rows)
    packed = QuaternityPacked(3, 3, 3, Rules.preset("quaternity"))
    monkeypatch.setattr(lazywin.os, "sysconf", pages.__getitem__)
    lazy = lazywin.LazyWin(packed, 0, expect=20_000_000)
    assert len(lazy.seats) == lazy.store.capacity == 20_000_000 + lazywin.ROOT + 1 and len(lazy.es) == 2 * len(lazy.seats)


def test_arrays_that_cannot_grow_in_the_memory_left_stop_the_solve_unproven(monkeypatch):
    """Past its reserved rows the graph grows by copying them; when the memory left would not hold the copy, the
    solve stops unproven at its limit instead of being killed for memory."""
    packed = QuaternityPacked(3, 3, 4, Rules.preset("blind"))
    whole, _ = lazywin.solve_win(packed, 0)
    assert whole.verdict is not None and whole.positions > 2 * 4096  # (41,980: it grows past its first 4,096 rows)
    room = 4096 * (8 * packed.width + 6)  # the first growth's copy, the keys kept as they are

    def left(free: int) -> Any:
        asked.clear()
        def tell() -> int:
            asked.append(free)
            return free

        monkeypatch.setattr(lazywin, "memory_available", tell)

    asked: list[int] = []
    left(room - 1)  # one byte short
    res, lazy = lazywin.solve_win(packed, 0, compress=False)
    assert res.verdict is None and res.stopped == "limit" and asked
    assert len(lazy.seats) == 4096 and res.positions <= 4096
    left(room)  # enough for the first growth (to 6,144 rows), not the second
    res, lazy = lazywin.solve_win(packed, 0, compress=False)
    assert res.verdict is None and res.stopped == "limit" and len(lazy.seats) == 6144 and res.positions > 4096
    left(0)  # compressed keys: a smaller copy, still none
    res, lazy = lazywin.solve_win(packed, 0)
    assert res.verdict is None and res.stopped == "limit" and len(lazy.seats) == 4096
    monkeypatch.setattr(lazywin, "memory_available", lambda: None)  # not known: grown as before
    assert lazywin.solve_win(packed, 0)[0].verdict == whole.verdict


def _cli(*args):
    from quaternity_cli.main import main

    return CliRunner().invoke(main, list(args))


def _dead_ends(tree, winning):
    """Player's positions of a strategy tree with no move shown (a strategy read wrongly from the graph)."""
    bad = 0
    if not isinstance(tree, dict) or "moves" not in tree:
        return 0
    if winning and not tree["moves"]:
        bad += 1
    for m in tree["moves"]:
        bad += _dead_ends(m["next"], winning)
    return bad


@pytest.mark.parametrize("preset, start, verdict", [("blind", "2 8 4", "yes"), ("quaternity", "2 8 4", "yes"),
                                                     ("pythagoras", "3 3 3", "no"), ("quaternity-seat", "4 4 2", "no")])
def test_the_command_s_answer_and_its_tree(preset, start, verdict):
    r = _cli("solve", "--start", *start.split(), "--rules", preset, "--packed", "--json", "--depth", "40")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["verdict"] == verdict and out["proven"] is True and out["status"] == "solved"
    assert out["solver"] == "lazy" and out["positions"] > 0 and out["edges"] > 0
    if verdict == "yes":
        assert out["plies"] > 0 and out["strategy"]["moves"]
        assert _dead_ends(out["strategy"], True) == 0
        leaves = []

        def walk(t):
            if "moves" in t:
                for m in t["moves"]:
                    walk(m["next"])
            else:
                leaves.append(t)
        walk(out["strategy"])
        assert leaves and all(t.get("end") == "over" and out["player"] in t["winners"] for t in leaves)
    else:
        assert out["plies"] is None and out["defense"]["moves"]


def test_the_command_takes_more_than_eight_seats():
    r = _cli("solve", "--start", "10", "5", "2", "--rules", "blind", "--packed", "--json", "--depth", "2")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["verdict"] == "no" and out["players"] == 10 and out["key_words"] == 7 and out["defense"]["moves"]
    assert 1 <= out["stored_key_words"] < 7


def test_the_command_stops_at_its_limit_with_unproven():
    r = _cli("solve", "--start", "3", "3", "3", "--packed", "--json", "--max-positions", "30")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["verdict"] == "unproven" and out["proven"] is False and out["status"] == "limit"


@pytest.mark.parametrize("args, words", [
    (["--start", "3", "3", "3", "--packed", "--checkpoint", "x", "--parts", "2"], "--parts goes with the partitioned"),
    (["examples/position.json", "--packed"], "give --start"),
    (["--start", "3", "3", "3", "--packed", "--goal", "value"], "goal win"),
    (["--start", "3", "3", "3", "--packed", "--workers", "2"], "--checkpoint"),
    (["--start", "3", "4", "4", "--packed"], "cannot be dealt"),
    (["--start", "3", "3", "3", "--packed", "--player", "7"], "--player"),
    (["--start", "3", "3", "3", "--packed", "--rules", "classic"], "dealt"),
    (["--start", "17", "17", "2", "--packed"], "at most 16 players"),
    (["--start", "9", "3", "3", "--checkpoint", "x"], "solve --packed takes up to 16"),
])
def test_bad_input_to_the_packed_solve_is_one_line_and_exit_2(args, words):
    r = _cli("solve", *args)
    assert r.exit_code == 2, r.output
    lines = [x for x in r.output.strip().splitlines() if x]
    assert len(lines) == 1 and words in lines[0], r.output


def test_two_ctrl_c_during_a_packed_solve_still_print_the_verdict():
    from test_solver_interrupt import interrupt_twice_once_started

    # (--json: no notice of the kernel's compilation comes before the event on a machine without numba's cache)
    code, out = interrupt_twice_once_started(["solve", "--start", "4", "4", "4", "--packed", "--max-positions",
                                              "5000000", "--json"])  # minutes of search
    assert code == 130, out
    data = json.loads(out[:out.rindex("}") + 1])
    assert data["verdict"] == "unproven" and data["status"] == "interrupted" and data["positions"] > 0, out


def test_ctrl_c_in_the_tree_cuts_the_tree_not_the_verdict(monkeypatch):
    from quaternity_cp.quartets import bigsolve

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(bigsolve, "tree", stopped)
    out = bigsolve.solve_lazy(2, 4, 4, Rules.preset("quaternity"), player=0)
    assert out.result.result is True and out.result.plies == 8 and out.result.strategy is None
    assert out.result.tree_stopped == "interrupted"
    r = _cli("solve", "--start", "2", "4", "4", "--packed", "--json")
    assert r.exit_code == 130
    data = json.loads(r.output)
    assert data["verdict"] == "yes" and data["plies"] == 8 and data["tree_stopped"] == "interrupted"


def test_the_edge_lists_bounds_of_4_and_8_bytes_give_the_same_ranks_and_meetings():
    """The ranking's edge lists are bounded by 4-byte offsets while the edges' count fits, 8 past it: both the
    same, on a graph of the toy game and one of Quaternity."""
    for packed in (Toy(TOP), QuaternityPacked(3, 3, 3, Rules.preset("quaternity"))):
        _, lazy = lazywin.solve_win(packed, 0)
        n, m = lazy.n, lazy.m
        args = (n, lazy.es[:m], lazy.ed[:m], lazy.mine[:n])
        ranks = []
        for offset in (np.zeros(0, np.int32), np.zeros(0, np.int64)):
            rank = np.empty(n, np.int32)
            lazywin._rank(*args, rank, offset)
            work = np.empty(n, np.int32)
            k = lazywin._meets(*args, rank, np.zeros(n, np.int16), np.ones(n, np.int16), work, offset)
            ranks.append((rank.tolist(), work[n - k:].tolist()))
        assert ranks[0] == ranks[1] and ranks[0][0] == lazy.rank[:n].tolist()
    assert lazywin._offset(2**31 - 1).dtype == np.int32 and lazywin._offset(2**31).dtype == np.int64


@pytest.mark.parametrize("start, preset", [((3, 3, 4), "blind"), ((4, 4, 2), "quaternity"), ((2, 3, 2), "blind")])
def test_rounds_ends_without_the_hash_table_give_the_same_graph(monkeypatch, start, preset):
    """Where the memory left would not hold a round end's lists beside the hash table, the table is let go and
    placed again afterwards: the same answer, graph and ranks, and every node found again."""
    packed = QuaternityPacked(*start, Rules.preset(preset))
    limits = Limits(max_positions=200_000)  # (rows reserved: no growth asks for memory, only the rounds' ends)
    a, la = lazywin.solve_win(packed, 0, limits=limits)
    monkeypatch.setattr(lazywin, "memory_available", lambda: 0)
    b, lb = lazywin.solve_win(packed, 0, limits=limits)
    assert (a.verdict, a.plies, a.positions, a.edges, a.expanded, a.rounds) == \
        (b.verdict, b.plies, b.positions, b.edges, b.expanded, b.rounds)
    assert la.tables_let_go == 0 and lb.tables_let_go >= 1
    n = lb.n
    assert (la.rank[:n] == lb.rank[:n]).all() and (la.es[:la.m] == lb.es[:lb.m]).all()
    nodes = np.arange(lazywin.ROOT, n)
    assert (lb.lookup(lb.keys_of(nodes), lb.seats[lazywin.ROOT:n]) == nodes).all()
    assert len(lb.table) == len(la.table)


def test_a_round_end_s_bytes_grow_with_the_graph_and_its_bounds():
    small, large = lazywin.round_end_bytes(1000, 2000), lazywin.round_end_bytes(2000, 4000)
    assert 0 < small < large == 2 * small - lazywin.round_end_bytes(0, 0)
    assert lazywin.round_end_bytes(10, 2**31) > lazywin.round_end_bytes(10, 2**31 - 1) + 4 * 11

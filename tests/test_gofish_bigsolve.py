"""The packed Quantum Go Fish graph (quaternity_cp.gofish.fastgraph) and its partitioned solver (bigsolve).

Every check is against an independent reference:

* ``tight`` (the cut formula) against the flow engine (:class:`~quaternity_cp.gofish.bounds.FlowEngine`) on
  random boxes, infeasible ones included;
* ``expand_keys`` against :meth:`GoFish.successors` (the rules' one home) at positions reached by random legal
  play under every rule set of the starts table, open questions included;
* the attractor of :mod:`.bigsolve` against :mod:`.solver`'s, for every position of the reference graph and
  every seat (the reference keeps seats absolute, the packed graph counts them on from the mover);
* the build's checkpoints: a stopped or interrupted build resumed equals a fresh one, the partition count
  changes nothing but the layout, a damaged or foreign checkpoint is refused;
* ``dedup`` against a dictionary; a Dask run against the in-process one.
"""

from __future__ import annotations

import json
import os
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quaternity_cp.budget import Limits
from quaternity_cp.gofish import bigsolve as bs
from quaternity_cp.gofish import fastgraph as fg
from quaternity_cp.gofish.bounds import FlowEngine, Tables
from quaternity_cp.gofish.game import GoFish, Move
from quaternity_cp.gofish.solver import _canonical
from quaternity_cp.gofish.starts import VARIANTS, solve_start_rules

SETTINGS = settings(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def kt(words) -> tuple[int, int]:
    """A packed key as a hashable pair of ints."""
    return int(words[0]), int(words[1])


def rid(rules) -> str:
    return ",".join(f"{k}={v}" for k, v in rules.items()) or "default"


# -- 1. exact bounds: the cut formula against the flow engine ----------------------------------------------------
@st.composite
def boxes(draw):
    """(hands, S, low, high): a random deal's hands, and a box of cell bounds around it with random edits (some
    keep the deal inside the box, some need not: infeasible boxes come out too)."""
    P = draw(st.integers(2, 4))
    K = draw(st.integers(2, 4))
    S = draw(st.integers(1, 4))
    deck = [s for s in range(K) for _ in range(S)]
    order = draw(st.permutations(deck))
    cuts = sorted(draw(st.lists(st.integers(0, K * S), min_size=P - 1, max_size=P - 1)))
    bounds_ = [0] + cuts + [K * S]
    table = [[0] * K for _ in range(P)]
    for p in range(P):
        for s in order[bounds_[p]:bounds_[p + 1]]:
            table[p][s] += 1
    hands = [sum(r) for r in table]
    low = [[0] * K for _ in range(P)]
    high = [[S] * K for _ in range(P)]
    for _ in range(draw(st.integers(0, 10))):
        p = draw(st.integers(0, P - 1))
        s = draw(st.integers(0, K - 1))
        if draw(st.booleans()):  # keeps the deal consistent
            low[p][s] = max(low[p][s], draw(st.integers(0, table[p][s])))
            high[p][s] = min(high[p][s], draw(st.integers(table[p][s], S)))
        else:  # anything in 0..S, even low > high
            if draw(st.booleans()):
                low[p][s] = draw(st.integers(0, S))
            else:
                high[p][s] = draw(st.integers(0, S))
    return hands, S, low, high


def flow_bounds(hands, S, low, high):
    K = len(low[0])
    b = FlowEngine().bounds(Tables(tuple(hands), (S,) * K, tuple(map(tuple, low)), tuple(map(tuple, high))))
    return None if not b.feasible else ([list(r) for r in b.low], [list(r) for r in b.high])


def py_tight(low, high, hands, S):
    """``tighten`` run as plain Python (the path taken without numba)."""
    fn = getattr(fg.tighten, "py_func", fg.tighten)
    L, H, h = np.array(low, np.int64), np.array(high, np.int64), np.array(hands, np.int64)
    P, K = L.shape
    if not fn(L, H, h, P, K, S, np.zeros((1 << P, 1 << K), np.int64), L, H):
        return None
    return L.tolist(), H.tolist()


@settings(SETTINGS, max_examples=300)
@given(boxes())
def test_tight_equals_the_flow_engine(box):
    hands, S, low, high = box
    expected = flow_bounds(hands, S, low, high)
    assert fg.tight(low, high, hands, S) == expected
    assert py_tight(low, high, hands, S) == expected


def test_tight_random_boxes_cover_both_verdicts():
    """A seeded sweep of boxes (so both verdicts are surely exercised, whatever hypothesis draws)."""
    rng = random.Random(20240611)
    feasible = infeasible = 0
    for _ in range(600):
        P, K, S = rng.randint(2, 4), rng.randint(2, 4), rng.randint(1, 4)
        cuts = sorted(rng.randint(0, K * S) for _ in range(P - 1))
        hands = [b - a for a, b in zip([0] + cuts, cuts + [K * S])]
        low = [[0] * K for _ in range(P)]
        high = [[S] * K for _ in range(P)]
        for _ in range(rng.randint(0, 2 * P * K)):
            p, s = rng.randrange(P), rng.randrange(K)
            if rng.random() < 0.5:
                low[p][s] = rng.randint(0, S)
            else:
                high[p][s] = rng.randint(0, S)
        expected = flow_bounds(hands, S, low, high)
        assert fg.tight(low, high, hands, S) == expected, (hands, S, low, high)
        feasible += expected is not None
        infeasible += expected is None
    assert feasible > 50 and infeasible > 50


# -- 2. one ply of the packed graph against the GoFish core ------------------------------------------------------
SHAPES = [(2, 2, 2), (2, 2, 3), (2, 2, 4), (3, 3, 2), (3, 3, 3), (3, 3, 4), (4, 4, 2), (4, 4, 3), (4, 4, 4),
          (2, 3, 2), (3, 2, 3), (4, 2, 2), (4, 3, 4), (2, 4, 3), (3, 6, 2)]
RULE_SETS = list(VARIANTS) + [{"first": 1}, {"win_after_ask": True, "priority": "four-first", "four": "some",
                                             "ask_void": "forbid", "after_yes": "again"}]


def columns(b, turn, P, K):
    """Each suit's column of bounds seen from ``turn`` (rows rotated): a tuple of (low, high) per player."""
    return [tuple((b.low[(turn + i) % P][s], b.high[(turn + i) % P][s]) for i in range(P)) for s in range(K)]


def decoded_columns(dec, P, K):
    return [tuple((dec["low"][i][j], dec["high"][i][j]) for i in range(P)) for j in range(K)]


def expected_plies(game, state, shape, parent_cols):
    """{(child key, offset, end code): the move codes that lead there} from ``game.successors``."""
    P, K = game.players, game.suits
    t = state.turn
    out: dict[tuple, set[int]] = {}
    for move, child in game.successors(state):
        if child.outcome is not None:
            w = child.outcome.winner
            trip = ((0, 0), 0, -1 if w is None else (w - t) % P)
        else:
            words, ct = fg.key_of(game, child, shape)
            assert ct == child.turn
            trip = (kt(words), (ct - t) % P, -2)
        if move.answer is None:  # a question: asked in the mover's frame, suit by its sorted column
            col = columns(game.bounds(state), t, P, K)[move.suit]
            codes = {((move.asked - t) % P) * K + j for j, c in enumerate(parent_cols) if c == col}
            assert codes
        else:
            codes = {P * K + int(move.answer)}
        out.setdefault(trip, set()).update(codes)
    return out


def random_path(game, data, plies):
    """The states (none over) of a random legal play of ``plies`` plies at most: full moves, questions alone,
    answers to them."""
    path = [game.state]
    for _ in range(plies):
        st_ = game.state
        if st_.pending is not None:
            answers = game.legal_answers()
            game.answer(answers[data.draw(st.integers(0, len(answers) - 1))])
        elif data.draw(st.integers(0, 2)) == 0:
            qs = game.legal_questions()
            game.push(qs[data.draw(st.integers(0, len(qs) - 1))])
        else:
            ms = game.legal_moves()
            game.push(ms[data.draw(st.integers(0, len(ms) - 1))])
        if game.over:
            break
        path.append(game.state)
    return path


def check_expand(game, path, shape):
    P, K = game.players, game.suits
    keys = []
    for state in path:
        words, turn = fg.key_of(game, state, shape)
        assert turn == state.turn
        keys.append(kt(words))
        # the packed position decodes to the core's bounds, rotated, columns sorted
        dec = fg.decode(words, shape)
        hands = game.hands(state)
        assert dec["hands"] == [hands[(turn + i) % P] for i in range(P)]
        cols = columns(game.bounds(state), turn, P, K)
        dcols = decoded_columns(dec, P, K)
        assert sorted(cols) == sorted(dcols)
        q = state.pending
        if q is None:
            assert dec["question"] is None
        else:
            asked, j = dec["question"]
            assert asked == (q.asked - turn) % P
            assert dcols[j] == cols[q.suit]
    out = fg.expand_keys(np.array(keys, np.uint64).reshape(-1, 2), shape)
    for i, state in enumerate(path):
        sel = np.flatnonzero(out["src"] == i)
        got = [(kt(out["keys"][e]), int(out["off"][e]), int(out["end"][e])) for e in sel]
        moves = [int(out["move"][e]) for e in sel]
        parent_cols = decoded_columns(fg.decode(np.array(keys[i], np.uint64), shape), P, K)
        want = expected_plies(game, state, shape, parent_cols)
        assert len(got) == len(set(got)), "expand_keys kept a duplicate child"
        assert set(got) == set(want), (game.moves, i)
        for trip, mv in zip(got, moves):
            assert mv in want[trip], (trip, mv, want[trip])
        assert int(out["degree"][i]) == len(want)
        q = state.pending
        assert int(out["owner"][i]) == (0 if q is None else (q.asked - state.turn) % P)
        assert (np.diff(sel) == 1).all()  # each position's plies together


@settings(SETTINGS, max_examples=250)
@given(st.data())
def test_expand_keys_equals_the_core(data):
    P, K, S = data.draw(st.sampled_from(SHAPES))
    rules = data.draw(st.sampled_from(RULE_SETS))
    if rules.get("first", 0) >= P:
        rules = {}
    shape = fg.Shape.of(P, K, S, rules)
    game = GoFish(P, K, S, dict(rules) or None)
    words, first = fg.start_key(shape)
    assert first == game.state.turn
    assert kt(words) == kt(fg.key_of(game, game.state, shape)[0])
    path = random_path(game, data, data.draw(st.integers(0, 20)))
    check_expand(game, path, shape)


# -- 3. / 4. the attractor against the reference solver ------------------------------------------------------------
def dense_index(built):
    """Every packed key of ``built`` to its dense id (parts in order, each part's keys in id order)."""
    keys = np.concatenate([bs._keys_upto(built.folder, k, built.layers) for k in range(built.parts)])
    index = {kt(k): i for i, k in enumerate(keys)}
    assert len(index) == len(keys) == built.positions  # no position twice
    return index


def solve_both(P, S, rules, folder, monkeypatch, parts=3):
    """The reference solve (solve_start_rules) with every position of its graph mapped to (packed key, mover),
    and bigsolve's build and attractor of the same start."""
    shape = fg.Shape.of(P, P, S, rules)
    seen: dict[tuple, tuple[tuple[int, int], int]] = {}
    original = GoFish.successors

    def recording(self, state):
        out = original(self, state)
        for _, child in out:  # the builder keys every child (bounds cached in the state): map it too
            if child.outcome is None:
                key = _canonical(self, child)[0]
                if key not in seen:
                    words, turn = fg.key_of(self, child, shape)
                    seen[key] = (kt(words), turn)
        return out

    with monkeypatch.context() as m:
        m.setattr(GoFish, "successors", recording)
        row, game = solve_start_rules(P, rules, suit_size=S)
    root_words, root_turn = fg.key_of(game, game.state, shape)
    seen[_canonical(game, game.state)[0]] = (kt(root_words), root_turn)
    built = bs.build(shape, str(folder), parts=parts)
    att = bs.attract(built)
    return row, game, seen, built, att


def compare_with_reference(P, S, rules, folder, monkeypatch):
    row, game, seen, built, att = solve_both(P, S, rules, folder, monkeypatch)
    # the same positions, up to the rotation of seats
    index = dense_index(built)
    assert set(index) == {packed for packed, _ in seen.values()}
    assert len(seen) < row.positions  # (the reference also has a node per game over)
    # every rank of every position, every seat
    wrong = []
    found = 0
    for key, (packed, turn) in seen.items():
        i = index[packed]
        for x in range(P):
            ref = row.results[x].ranks.get(key)
            got = int(att.ranks[i, (x - turn) % P])
            found += ref is not None
            if (None if got < 0 else got) != ref:
                wrong.append((key, x, ref, got))
    assert not wrong, f"{len(wrong)} ranks differ, e.g. {wrong[:3]}"
    assert found > 0  # not vacuous: some position is won by someone
    # the start: verdicts, plies, first moves
    assert built.first == game.state.turn
    for x in range(P):
        ref = row.results[x]
        mine = att.seats[x]
        assert (mine["wins"], mine["plies"]) == (ref.wins, ref.plies)
        ref_move = ref.move(game) if ref.wins else None
        assert ("first_move" in mine) == (ref_move is not None)
        if "first_move" in mine:
            asked, suit = mine["first_move"]
            g = GoFish(P, P, S, dict(rules) or None)
            g.ask(built.first, asked, suit)  # a legal question of the start
            assert ref.rank(g) == ref.plies - 1  # and a winning one, by the reference's ranks
            g2 = GoFish(P, P, S, dict(rules) or None)
            g2.push(Move(ref_move.asker, ref_move.asked, ref_move.suit))
            assert ref.rank(g2) == ref.plies - 1
    return row, att


CASES = ([pytest.param(2, 4, r, id=f"2p-s4-{rid(r)}") for r in VARIANTS]
         + [pytest.param(3, 2, r, id=f"3p-s2-{rid(r)}") for r in VARIANTS]
         # (every variant is compared at 2p-s4 and 3p-s2; at 3p-s3, 1 to 3 s each, three of them unless --runslow)
         + [pytest.param(3, 3, r, id=f"3p-s3-{rid(r)}",
                         marks=() if r in ({}, {"after_yes": "again"}, {"four": "some"}) else pytest.mark.slow)
            for r in VARIANTS]
         + [pytest.param(4, 2, r, id=f"4p-s2-{rid(r)}",
                         marks=() if r in ({"ask_void": "forbid"}, {"no_initial_four": True}) else pytest.mark.slow)
            for r in VARIANTS])


@pytest.mark.parametrize("P, S, rules", CASES)
def test_bigsolve_ranks_equal_the_reference_solver(P, S, rules, tmp_path, monkeypatch):
    row, att = compare_with_reference(P, S, rules, tmp_path / "g", monkeypatch)
    if (P, S, rules) == (2, 4, {"after_yes": "again"}):
        assert row.winners == [0] and att.seats[0]["wins"]  # the one start of these with a forced win


@pytest.mark.slow
def test_three_players_suit_size_four_default_equals_the_reference(tmp_path, monkeypatch):
    """The 3-player start of the docs (53,946 reference positions, 15-25 s; the suits of 2 and 3 run by
    default): every seat's verdict and plies at the start, and every rank on the way."""
    row, att = compare_with_reference(3, 4, {}, tmp_path / "g", monkeypatch)
    assert [s for s, e in att.seats.items() if e["wins"]] == row.winners


# -- 5. resuming a checkpoint ------------------------------------------------------------------------------------
SHAPE_3x3 = fg.Shape.of(3, 3, 3, {})


def layout(built):
    return (built.parts, built.layers, built.sizes, built.edges, built.root, built.first)


def key_ranks(built, att):
    """Each packed key's row of ranks (what does not depend on the layout of parts)."""
    return {k: tuple(int(v) for v in att.ranks[i]) for k, i in dense_index(built).items()}


def test_a_stopped_build_resumes_to_the_fresh_graph(tmp_path):
    fresh = bs.build(SHAPE_3x3, str(tmp_path / "fresh"), parts=3)
    fresh_att = bs.attract(fresh)
    folder = str(tmp_path / "resumed")
    with pytest.raises(bs.GraphStopped) as stop:
        bs.build(SHAPE_3x3, folder, parts=3, limits=Limits(max_positions=100))
    assert stop.value.reason == "limit" and 100 <= stop.value.positions < fresh.positions
    assert 1 < stop.value.layers < fresh.layers
    resumed = bs.build(SHAPE_3x3, folder, parts=3)
    assert layout(resumed) == layout(fresh) and resumed.positions == fresh.positions
    for k in range(3):
        assert np.array_equal(bs._keys_upto(folder, k, resumed.layers), bs._keys_upto(fresh.folder, k, fresh.layers))
    att = bs.attract(resumed)
    assert np.array_equal(att.ranks, fresh_att.ranks)
    assert att.seats == fresh_att.seats and (att.positions, att.edges) == (fresh_att.positions, fresh_att.edges)
    # a complete checkpoint is read back, not built again
    again = bs.build(SHAPE_3x3, folder, parts=3)
    assert layout(again) == layout(fresh)


def test_an_interrupted_layer_resumes_to_the_fresh_graph(tmp_path):
    """A run stopped in the middle of a layer's merge tasks (some parts written, others not)."""
    fresh = bs.build(SHAPE_3x3, str(tmp_path / "fresh"), parts=3)
    calls = {"n": 0}

    def interrupting(tasks, done=None):
        out = []
        for fn, args in tasks:
            if calls["n"] == 6 * 4 + 3 + 1:  # layer 5: the expand tasks and one merge task done
                raise KeyboardInterrupt
            calls["n"] += 1
            out.append(fn(*args))
        return out

    folder = str(tmp_path / "resumed")
    with pytest.raises(bs.GraphStopped) as stop:
        bs.build(SHAPE_3x3, folder, parts=3, run=interrupting)
    assert stop.value.reason == "interrupted" and stop.value.layers == 5
    resumed = bs.build(SHAPE_3x3, folder, parts=3)
    assert layout(resumed) == layout(fresh)
    assert np.array_equal(bs.attract(resumed).ranks, bs.attract(fresh).ranks)


@pytest.mark.parametrize("parts", [1, 5])
def test_the_number_of_parts_changes_only_the_layout(tmp_path, parts):
    ref = bs.build(SHAPE_3x3, str(tmp_path / "three"), parts=3)
    other = bs.build(SHAPE_3x3, str(tmp_path / f"p{parts}"), parts=parts)
    assert (other.positions, other.edges, other.layers, other.first) == (ref.positions, ref.edges, ref.layers,
                                                                         ref.first)
    a, b = bs.attract(ref), bs.attract(other)
    assert {s: (e["wins"], e["plies"]) for s, e in a.seats.items()} == {s: (e["wins"], e["plies"])
                                                                      for s, e in b.seats.items()}
    assert key_ranks(ref, a) == key_ranks(other, b)


def test_parts_and_shapes_out_of_range_are_refused(tmp_path):
    for parts in (0, 1000):
        with pytest.raises(bs.GraphError):
            bs.build(SHAPE_3x3, str(tmp_path / "x"), parts=parts)


# -- 6. refused checkpoints ----------------------------------------------------------------------------------------
SHAPE_3x2 = fg.Shape.of(3, 3, 2, {})


@pytest.mark.parametrize("field", ["edges", "layers", "first", "sizes"])
def test_a_damaged_manifest_is_refused(tmp_path, field):
    folder = str(tmp_path / "g")
    bs.build(SHAPE_3x2, folder, parts=3)
    path = os.path.join(folder, "manifest.json")
    with open(path) as f:
        data = json.load(f)
    if field == "sizes":
        data["sizes"][0][-1] += 1
    else:
        data[field] += 1
    with open(path, "w") as f:
        json.dump(data, f)
    with pytest.raises(bs.GraphError, match="damaged"):
        bs.build(SHAPE_3x2, folder, parts=3)


def test_an_unreadable_manifest_is_refused(tmp_path):
    folder = tmp_path / "g"
    bs.build(SHAPE_3x2, str(folder), parts=3)
    (folder / "manifest.json").write_text('{"format": ')
    with pytest.raises(bs.GraphError):
        bs.build(SHAPE_3x2, str(folder), parts=3)


@pytest.mark.parametrize("other", [fg.Shape.of(3, 3, 2, {"four": "off"}), fg.Shape.of(3, 3, 2, {"after_yes": "again"}),
                                   fg.Shape.of(2, 2, 2, {}), fg.Shape.of(3, 3, 3, {}), fg.Shape.of(4, 4, 2, {})],
                         ids=["four=off", "after_yes=again", "2p", "3p-s3", "4p"])
def test_a_checkpoint_of_another_game_is_refused(tmp_path, other):
    folder = str(tmp_path / "g")
    built = bs.build(SHAPE_3x2, folder, parts=3)
    with pytest.raises(bs.GraphError, match="another game"):
        bs.build(other, folder, parts=3)
    with pytest.raises(bs.GraphError, match="of this game in 3 parts, not 4"):  # other parts are refused too
        bs.build(SHAPE_3x2, folder, parts=4)
    assert layout(bs.build(SHAPE_3x2, folder, parts=3)) == layout(built)  # and the checkpoint still serves
    assert layout(bs.build(SHAPE_3x2, folder)) == layout(built)  # (no parts named: the checkpoint's own)


def test_a_checkpoint_goes_on_in_its_own_parts_when_none_are_named(tmp_path):
    folder = str(tmp_path / "g")
    assert bs.default_parts(SHAPE_3x2) != 5
    with pytest.raises(bs.GraphStopped):
        bs.build(SHAPE_3x2, folder, parts=5, limits=Limits(max_positions=5))
    resumed = bs.build(SHAPE_3x2, folder)
    fresh = bs.build(SHAPE_3x2, str(tmp_path / "fresh"), parts=5)
    assert resumed.parts == 5 and layout(resumed) == layout(fresh)
    first = bs.solve(3, {}, str(tmp_path / "s"), suit_size=2, parts=5, workers=0)
    again = bs.solve(3, {}, str(tmp_path / "s"), suit_size=2, workers=0)  # (its stored answer, read back)
    assert again == first
    with pytest.raises(bs.GraphError, match="of this game in 5 parts, not 3"):
        bs.solve(3, {}, str(tmp_path / "s"), suit_size=2, parts=3, workers=0)
    assert bs.build(SHAPE_3x2, str(tmp_path / "new")).parts == bs.default_parts(SHAPE_3x2)


def test_a_stored_result_of_another_game_or_damaged_is_refused(tmp_path):
    folder = str(tmp_path / "g")
    first = bs.solve(3, {}, folder, suit_size=2, parts=3)
    assert bs.solve(3, {}, folder, suit_size=2, parts=3) == first  # read back
    with pytest.raises(bs.GraphError):
        bs.solve(3, {"four": "off"}, folder, suit_size=2, parts=3)
    path = os.path.join(folder, "result.json")
    with open(path) as f:
        data = json.load(f)
    data["result"]["positions"] += 1
    with open(path, "w") as f:
        json.dump(data, f)
    with pytest.raises(bs.GraphError, match="damaged"):
        bs.solve(3, {}, folder, suit_size=2, parts=3)


# -- 7. deduplication ----------------------------------------------------------------------------------------------
def dict_dedup(old, new):
    index = {k: i for i, k in enumerate(old)}
    ids, fresh = [], []
    for r, k in enumerate(new):
        if k not in index:
            index[k] = len(old) + len(fresh)
            fresh.append(r)
        ids.append(index[k])
    return ids, fresh


WORDS = st.one_of(st.integers(0, 7), st.integers(0, 2**64 - 1), st.sampled_from([2**63, 2**64 - 1, 2**32, 2**32 - 1]))


@settings(SETTINGS, max_examples=200)
@given(st.lists(st.tuples(WORDS, WORDS), unique=True, max_size=40), st.data())
def test_dedup_equals_a_dictionary(pool, data):
    n_old = data.draw(st.integers(0, len(pool)))
    old = pool[:n_old]
    new = data.draw(st.lists(st.sampled_from(pool), max_size=80)) if pool else []
    want_ids, want_fresh = dict_dedup(old, new)
    old_a = np.array(old, np.uint64).reshape(-1, 2)
    new_a = np.array(new, np.uint64).reshape(-1, 2)
    ids, fresh = bs.dedup(old_a, new_a)
    assert ids.tolist() == want_ids and fresh.tolist() == want_fresh
    for fn in (bs._dedup, bs._dedup_py):
        ids2 = np.zeros(len(new), np.int64)
        fresh2 = np.zeros(len(new), np.int64)
        count = fn(old_a, new_a, ids2, fresh2)
        assert ids2.tolist() == want_ids and fresh2[:count].tolist() == want_fresh
    # the meaning: the ids index old + the new rows kept
    if len(new):
        everything = np.concatenate([old_a, new_a[fresh]])
        assert np.array_equal(everything[ids], new_a)


def test_dedup_many_keys_with_colliding_low_words():
    rng = np.random.default_rng(7)
    pool = np.unique(np.stack([rng.integers(0, 4, 6000, dtype=np.uint64),
                               rng.integers(0, 2**63, 6000, dtype=np.uint64) << np.uint64(1)], axis=1), axis=0)
    old = pool[:2000]
    new = pool[rng.integers(0, len(pool), 20000)]
    want_ids, want_fresh = dict_dedup([kt(k) for k in old], [kt(k) for k in new])
    ids, fresh = bs.dedup(old, new)
    assert ids.tolist() == want_ids and fresh.tolist() == want_fresh


# -- 8. a Dask run ---------------------------------------------------------------------------------------------------
def test_a_dask_run_equals_the_in_process_run(tmp_path):
    pytest.importorskip("distributed")
    here = bs.solve(3, {}, str(tmp_path / "here"), suit_size=3, parts=3, workers=0)
    there = bs.solve(3, {}, str(tmp_path / "dask"), suit_size=3, parts=3, workers=2)
    timing = ("build_seconds", "attractor_seconds")
    assert {k: v for k, v in there.items() if k not in timing} == {k: v for k, v in here.items() if k not in timing}
    assert here["positions"] > 1000
    # the graph files are the same, part by part
    for k in range(3):
        assert np.array_equal(bs._keys_upto(str(tmp_path / "here"), k, here["layers"]),
                              bs._keys_upto(str(tmp_path / "dask"), k, there["layers"]))


@pytest.mark.slow  # (about 10 s; the ranks are compared with the reference solver position by position above)
def test_crosscheck_resolves_sampled_positions_with_the_python_solver(tmp_path):
    """bigsolve.crosscheck (the check run on the 4-player graphs of the docs): positions sampled from a solved
    graph, re-solved from there by solver.py, agree seat by seat; ranks shifted by one seat do not."""
    built = bs.build(fg.Shape.of(4, 4, 2, {}), str(tmp_path / "g"), parts=3)
    att = bs.attract(built)
    got = bs.crosscheck(built, att.ranks, samples=40, seed=3, max_positions=1500)
    assert got["compared"] >= 25 and got["wins_seen"] > 10 and got["disagreements"] == 0
    wrong = np.roll(att.ranks, 1, axis=1)
    assert bs.crosscheck(built, wrong, samples=40, seed=3, max_positions=1500)["disagreements"] > 0
    by_layer = bs.crosscheck(built, att.ranks, samples=30, seed=4, max_positions=1500, by_layer=True)
    assert by_layer["compared"] >= 20 and by_layer["disagreements"] == 0


def test_a_failed_task_stops_the_build_with_the_layers_kept(tmp_path):
    """A task that raises (a lost worker, a full disk) stops the build in one GraphStopped naming the cause; the
    next run goes on to the same graph as a fresh build."""
    shape = fg.Shape.of(3, 3, 2, {})
    calls = {"n": 0}

    def flaky(tasks, done=None):
        calls["n"] += 1
        if calls["n"] == 7:
            raise OSError(28, "No space left on device")
        return [fn(*args) for fn, args in tasks]

    with pytest.raises(bs.GraphStopped) as stop:
        bs.build(shape, str(tmp_path / "a"), parts=3, run=flaky)
    assert stop.value.reason == "failed" and "No space left" in str(stop.value) and stop.value.layers >= 3
    resumed = bs.build(shape, str(tmp_path / "a"), parts=3)
    fresh = bs.build(shape, str(tmp_path / "b"), parts=3)
    assert (resumed.positions, resumed.edges, resumed.layers) == (fresh.positions, fresh.edges, fresh.layers)


@pytest.mark.skipif(not fg.HAVE_NUMBA, reason="the compiled kernel is compared with its Python source")
def test_the_kernel_as_plain_python_equals_the_compiled_kernel():
    """Without numba (no [fast] extra) the same functions run as Python: expand's Python source on the 3-player
    graph's first layers gives the compiled kernel's edges, owners and degrees."""
    shape = fg.Shape.of(3, 3, 4, {"four": "some", "ask_void": "forbid"})
    keys = fg.start_key(shape)[0].reshape(1, 2)
    for _ in range(5):
        compiled = fg.expand_keys(keys, shape)
        n = len(keys)
        cap = n * shape.fanout
        arrays = [np.zeros((cap, 2), np.uint64), np.zeros(cap, np.int64), np.zeros(cap, np.int8),
                  np.zeros(cap, np.int16), np.zeros(cap, np.int8), np.zeros(n, np.int8), np.zeros(n, np.int16)]
        m = fg.expand.py_func(keys, shape.params, shape.widths, *arrays)
        assert m == len(compiled["src"])
        for got, name in zip(arrays, ["keys", "src", "off", "move", "end"]):
            assert np.array_equal(got[:m], compiled[name]), name
        assert np.array_equal(arrays[5], compiled["owner"]) and np.array_equal(arrays[6], compiled["degree"])
        inner = compiled["keys"][compiled["end"] == -2]
        keys = np.unique(inner, axis=0)[:200]

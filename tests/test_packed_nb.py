"""The compiled expansion of Quaternity's packed positions (:mod:`quaternity_cp.quartets.packed_nb`) against the
Python path (:meth:`QuaternityPacked.expand_python`: the in-memory solver's fast path plays every move), position
by position: the same rows in the same order (child key, source, seat offset, move number, end), the same owner
and degree, on whole graphs of small starts of every preset and on every option the solver plays."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from quaternity_cp.quartets import packed_nb  # noqa: E402
from quaternity_cp.quartets.packed import PackedError, QuaternityPacked, pack_key, to_words  # noqa: E402
from quaternity_cp.quartets.rules import Rules  # noqa: E402
from strategies import SOLVER_OPTIONS  # noqa: E402

NAMES = ("keys", "src", "off", "move", "end", "owner", "degree")
PRESETS = ("quaternity", "quaternity-seat", "blind", "pythagoras")


def _compare(packed: QuaternityPacked, limit: int) -> int:
    """Walks the graph breadth first (by the Python path) up to ``limit`` positions, comparing the compiled
    kernel's expansion of every layer with the Python path's; returns the positions compared."""
    nb = QuaternityPacked(packed.players, packed.sets, packed.set_size, packed.rules, packed.only, kernel="numba")
    start, mover = packed.start()
    seen = {tuple(start.tolist())}
    frontier = start.reshape(1, -1)
    done = 0
    while len(frontier) and done < limit:
        frontier = frontier[: limit - done]
        want = packed.expand_python(frontier)
        got = nb.expand(frontier)
        for name in NAMES:
            a, b = want[name], got[name]
            assert a.dtype == b.dtype, name
            if not np.array_equal(a, b):
                i = int(np.flatnonzero((a != b).reshape(len(a), -1).any(axis=1))[0]) if a.shape == b.shape else 0
                row = int(want["src"][i]) if name != "owner" and name != "degree" and i < len(want["src"]) else i
                raise AssertionError(f"{name} differs (row {i}) at {packed.decode(frontier[row])}: "
                                     f"{a.shape} {b.shape}")
        done += len(frontier)
        nxt = []
        inner = want["end"] == -2
        for row in want["keys"][inner].tolist():
            t = tuple(row)
            if t not in seen:
                seen.add(t)
                nxt.append(row)
        frontier = np.array(nxt, np.uint64).reshape(-1, packed.width)
    return done


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("start", [(2, 2, 2), (3, 3, 2), (2, 3, 2), (3, 2, 3), (4, 2, 2), (2, 4, 4), (4, 4, 2)],
                         ids=lambda s: "x".join(map(str, s)))
def test_every_edge_of_small_starts_equals_the_python_path(preset, start):
    assert _compare(QuaternityPacked(*start, Rules.preset(preset)), 6000) > 1


@pytest.mark.parametrize("preset", PRESETS)
def test_the_first_layers_of_3x3x3_and_4x4x4_equal_the_python_path(preset):
    assert _compare(QuaternityPacked(3, 3, 3, Rules.preset(preset)), 2500) == 2500
    assert _compare(QuaternityPacked(4, 4, 4, Rules.preset(preset)), 1500) == 1500


@pytest.mark.parametrize("preset", PRESETS)
def test_many_seats_and_long_sets_equal_the_python_path(preset):
    """Eight seats (9-bit card fields, the widest masks), and sets of six cards."""
    assert _compare(QuaternityPacked(8, 8, 2, Rules.preset(preset)), 300) == 300
    assert _compare(QuaternityPacked(3, 2, 6, Rules.preset(preset)), 300) == 300


@pytest.mark.parametrize("preset", PRESETS)
def test_more_than_eight_seats_equal_the_python_path(preset):
    """The lazy win solve's starts past the partitioned solver's: 9 to 16 seats (13- and 17-bit card fields), keys
    of up to 29 words (16x16x2 under blind; the lazy solve itself takes 24, 14x14x2's 22); at 12 seats and more
    every position is one the radix DP's budget once sent to the Python path (3^11 states and more), so these
    compare the flow analysis' kernel with it."""
    for start in ((9, 3, 3), (10, 5, 2), (12, 12, 2), (14, 14, 2), (16, 16, 2)):
        assert _compare(QuaternityPacked(*start, Rules.preset(preset)), 200) == 200


def test_the_value_goal_s_graph_equals_the_python_path():
    rules = Rules.preset("pythagoras")
    assert _compare(QuaternityPacked(2, 3, 2, rules, only=True), 10_000) > 1
    assert _compare(QuaternityPacked(3, 3, 2, rules, only=True), 3000) > 1


OPTIONS = SOLVER_OPTIONS


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=OPTIONS, start=st.sampled_from([(2, 2, 2), (3, 3, 2), (2, 3, 2), (2, 2, 3), (4, 2, 2), (3, 2, 3), (2, 4, 2)]),
       only=st.booleans())
def test_every_option_set_equals_the_python_path(options, start, only):
    rules = Rules.preset("quaternity", **options)
    assert _compare(QuaternityPacked(*start, rules, only), 1500) >= 1


def _both_ways(packed: QuaternityPacked, limit: int) -> tuple[int, int]:
    """Walks the graph breadth first by the compiled kernel up to ``limit`` positions, each layer expanded with
    and without the reuse of the asked position's analysis (``C_REUSE``); asserts equal rows. Returns the
    positions compared and the forced answers among their edges (move numbers 1 and 2 modulo 3 of questions)."""
    cfg = packed_nb.config(packed)
    plain = cfg.copy()
    plain[packed_nb.C_REUSE] = 0
    rows = packed_nb.max_rows(packed)
    start, _ = packed.start()
    seen = {tuple(start.tolist())}
    frontier = start.reshape(1, -1)
    done = forced = 0
    questions = packed.sets * packed.set_size * packed.players * 3
    while len(frontier) and done < limit:
        frontier = frontier[: limit - done]
        got = packed_nb.expand_batch(cfg, frontier, rows)
        want = packed_nb.expand_batch(plain, frontier, rows)
        for a, b, name in zip(got, want, ("keys", "src", "off", "move", "end", "owner", "degree", "status")):
            assert np.array_equal(a, b), name
        assert (got[7] == 0).all()
        moves = got[3]
        forced += int(((moves < questions) & (moves % 3 > 0)).sum())
        done += len(frontier)
        nxt = []
        for row in got[0][got[4] == -2].tolist():
            t = tuple(row)
            if t not in seen:
                seen.add(t)
                nxt.append(row)
        frontier = np.array(nxt, np.uint64).reshape(-1, packed.width)
    return done, forced


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("start", [(4, 4, 4), (3, 4, 3), (4, 8, 2)], ids=lambda s: "x".join(map(str, s)))
def test_reusing_the_asked_analysis_changes_no_edge_of_deep_layers(preset, start):
    """A forced answer's child takes the asked position's analysis (packed_nb._expand_one); computed again
    instead, every row is the same, on layers deeper than the Python path's comparison reaches, which hold
    many forced answers."""
    done, forced = _both_ways(QuaternityPacked(*start, Rules.preset(preset), kernel="numba"), 8000)
    assert done == 8000 and forced > 1000


def test_no_option_set_is_left_out():
    """Every value of every rule option the packed solver plays has a code (a new value fails here first)."""
    from quaternity_cp.quartets import rules as R

    assert set(packed_nb.HANDOVER_CODES) == set(R.HANDOVERS)
    assert set(packed_nb.AFTER_NO_CODES) == set(R.AFTER_NOS)
    assert set(packed_nb.TIE_CODES) == set(R.TIES) - {"random"}


def test_a_key_without_a_deal_is_refused():
    packed = QuaternityPacked(2, 2, 2, Rules.preset("quaternity"), kernel="numba")
    start, _ = packed.start()
    key = list(packed.key_of_words(start.tolist()))
    key[-5] = (4, 1)  # five cards in hand, four in play
    bad = np.array(to_words(pack_key(tuple(key), packed.layout), packed.width), np.uint64)
    with pytest.raises(PackedError, match="no consistent deal"):
        packed.expand(bad.reshape(1, -1))


def test_the_kernel_s_outputs_own_their_memory():
    """The kernel passes its arrays to its helpers as views that own nothing (flow_nb.borrowed); what it
    returns must own its memory: kept across later calls, which would reuse freed memory, and garbage
    collections, it still equals a fresh expansion."""
    import gc

    packed = QuaternityPacked(3, 3, 3, Rules.preset("quaternity"), kernel="numba")
    cfg, rows = packed_nb.config(packed), packed_nb.max_rows(packed)
    start, _ = packed.start()
    first = packed.expand(start.reshape(1, -1))["keys"]
    kept = packed_nb.expand_batch(cfg, first, rows)
    copies = [np.array(a, copy=True) for a in kept]
    for _ in range(3):  # other batches, of other sizes, allocate and free the kernel's buffers again
        packed_nb.expand_batch(cfg, np.repeat(first, 7, axis=0), rows)
        gc.collect()
    for a, b in zip(kept, copies):
        assert np.array_equal(a, b)
    again = packed_nb.expand_batch(cfg, first, rows)
    assert all(np.array_equal(a, b) for a, b in zip(kept, again))


def test_the_kernel_option_is_checked_and_auto_picks_the_compiled_one():
    assert QuaternityPacked(2, 2, 2, Rules()).compiled
    assert not QuaternityPacked(2, 2, 2, Rules(), kernel="python").compiled
    with pytest.raises(PackedError, match="kernel must be"):
        QuaternityPacked(2, 2, 2, Rules(), kernel="fast")
    # the kernel is no part of the graph's identity: a checkpoint built by either is the other's
    assert QuaternityPacked(2, 2, 2, Rules(), kernel="python") == QuaternityPacked(2, 2, 2, Rules())


def test_the_config_reads_the_question_rule_from_effects():
    for silence, cap in ((False, -1), (True, 1)):
        cfg = packed_nb.config(QuaternityPacked(2, 2, 2, Rules(silence=silence)))
        assert (cfg[packed_nb.C_LACKS], cfg[packed_nb.C_LEAST], cfg[packed_nb.C_CAP]) == (1, 1, cap)


def test_the_command_says_when_it_compiles_and_names_the_kernel(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from quaternity_cli.main import main

    monkeypatch.setattr(packed_nb, "cached", lambda: False)
    out = CliRunner().invoke(main, ["solve", "--start", "2", "2", "2", "--checkpoint", str(tmp_path / "a"),
                                    "--workers", "0"])
    assert out.exit_code == 0, out.output
    assert "compiling the packed positions' kernel" in out.stderr
    monkeypatch.setattr(packed_nb, "cached", lambda: True)
    out = CliRunner().invoke(main, ["solve", "--start", "2", "2", "2", "--checkpoint", str(tmp_path / "b"),
                                    "--workers", "0", "--json"])
    assert out.exit_code == 0, out.output
    assert "compiling" not in out.stderr
    import json

    assert json.loads(out.stdout)["kernel"] == "numba"


def _cfg(P: int, **codes: int) -> np.ndarray:
    cfg = np.zeros(packed_nb.C_LEN, np.int64)
    cfg[packed_nb.C_P] = P
    for name, value in codes.items():
        cfg[getattr(packed_nb, name)] = value
    return cfg


@pytest.mark.parametrize("P", [2, 3, 4])
def test_the_compiled_hand_over_is_effects_hand_over(P):
    """Every order, hands and scores of up to four seats, every hand-over option: the compiled hand-over's seats
    are :func:`effects.hand_over`'s (the one home of the rule)."""
    import itertools

    from quaternity_cp.quartets import effects

    orders = [(p,) for p in range(P)] + [(p, q) for p in range(P) for q in range(P) if p != q]
    checked = 0
    for mode, code in packed_nb.HANDOVER_CODES.items():
        cfg = _cfg(P, C_HANDOVER=code)
        for hands in itertools.product(range(3), repeat=P):
            h = np.array(hands, np.int64)
            for scores in itertools.product(range(2), repeat=P):
                sc = np.array(scores, np.int64)
                for order in orders:
                    o = np.array(order + (0,) * (2 - len(order)), np.int64)
                    want = effects.hand_over(order, hands=hands, scores=scores, empty_hand="skip", handover=mode)
                    got = packed_nb._hand_over(cfg, o, len(order), h, sc)
                    assert got == sum(1 << p for p in want), (mode, order, hands, scores)
                    checked += 1
    assert checked == len(packed_nb.HANDOVER_CODES) * 3 ** P * 2 ** P * len(orders)


@pytest.mark.parametrize("P", [2, 3, 4])
def test_the_compiled_winners_are_outcome_winners(P):
    import itertools

    from quaternity_cp.quartets import outcome

    for tie, code in packed_nb.TIE_CODES.items():
        cfg = _cfg(P, C_TIE=code)
        for scores in itertools.product(range(3), repeat=P):
            for reached in itertools.product(range(1, 4), repeat=P):
                want = outcome.winners(scores, tie=tie, reached=reached)
                got = packed_nb._winners(cfg, np.array(scores, np.int64), np.array(reached, np.int64))
                assert got == sum(1 << p for p in want), (tie, scores, reached)

"""Quaternity's packed part and ``quaternity solve --start P N S --checkpoint DIR`` (issue 41).

The references are independent of the packed part: the in-memory solver's own
graph and attractor (:class:`~quaternity_cp.quartets.solver.graph.GameGraph`,
built from every position of the packed graph, decoded), the position's rules
step by step (:meth:`Position.legal_moves`, :meth:`Position.push`), and the
in-memory ``solve`` of the start.
"""

from __future__ import annotations

import json
import os
import re
import tempfile

import numpy as np
import pytest
from click.testing import CliRunner

from quaternity_cp import partitioned as pt
from quaternity_cp.quartets.game import Game, Question
from quaternity_cp.quartets.packed import (Layout, PackedError, QuaternityPacked, check_start, frame_of, pack_key,
                                           rotate_key, rotates, state_of_key, unpack_key)
from quaternity_cp.quartets.packed import packed_for
from quaternity_cp.quartets.position import Position
from quaternity_cp.quartets.rules import Rules
from quaternity_cp.quartets.solver import solve, start_position
from quaternity_cp.quartets.solver.core import Context
from quaternity_cp.quartets.solver.graph import GameGraph
from quaternity_cli.main import main

RULES = {
    "quaternity": Rules.preset("quaternity"),
    "quaternity-seat": Rules.preset("quaternity-seat"),
    "blind": Rules.preset("blind"),
    "pythagoras": Rules.preset("pythagoras"),
    "first-auto": Rules.preset("quaternity", tie="first"),  # not rotated: simultaneous claims go by seat number
    "fewest-cards-next": Rules.preset("quaternity", handover="fewest-cards", after_no="next"),
    "shared-most": Rules.preset("quaternity", tie="shared", handover="most-cards"),
}
STARTS = [(2, 2, 2), (3, 3, 2), (2, 3, 2), (3, 2, 3), (4, 2, 2)]


def _built(P, N, S, rules, only=False, parts=3, partitioned=False):
    packed = QuaternityPacked(P, N, S, rules, only)
    built = pt.build(packed, tempfile.mkdtemp(), parts=parts)
    att = pt.attract(built, partitioned=partitioned)
    ranks = att.ranks.dense() if partitioned else att.ranks
    return packed, built, ranks


def _all_keys(built):
    return np.concatenate([pt.keys_of(built, k) for k in range(built.parts)])


def _compare_with_memory(packed, built, ranks) -> tuple[int, int]:
    """(positions compared x seats, disagreements): every position of the packed graph, decoded, solved by the
    in-memory solver's graph and attractor, every seat."""
    P, rules = packed.players, packed.rules
    ctx = Context(Game(P, packed.sets, packed.set_size), rules, "sets")
    g = GameGraph(ctx)
    keys = _all_keys(built)
    dense = pt.lookup(built, keys)
    assert (dense >= 0).all()
    ids, frames = [], []
    for row in keys.tolist():
        key = packed.key_of_words(row)
        frames.append(frame_of(key))
        ids.append(g.build(ctx.search_root(ctx.describe(state_of_key(key, ctx.game, rules)))))
    bad = compared = 0
    for p in range(P):
        if packed.only:
            wr = g.attractor([i for i, w in g.winners.items() if w == (p,)], lambda u: g.mover[u] == p)
        else:
            wr = g.win_ranks(p)
        for idx, i in enumerate(ids):
            compared += 1
            if wr.get(i, -1) != int(ranks[dense[idx], (p - frames[idx]) % P]):
                bad += 1
    return compared, bad


@pytest.mark.parametrize("name", list(RULES))
@pytest.mark.parametrize("start", STARTS, ids=lambda s: "x".join(map(str, s)))
def test_every_rank_of_every_position_equals_the_in_memory_solver(name, start):
    rules = RULES[name]
    packed, built, ranks = _built(*start, rules)
    compared, bad = _compare_with_memory(packed, built, ranks)
    assert bad == 0 and compared >= built.positions


def test_the_value_graph_and_the_partitioned_attractor_equal_the_in_memory_solver():
    packed, built, ranks = _built(2, 3, 2, Rules.preset("pythagoras"), only=True)
    assert _compare_with_memory(packed, built, ranks)[1] == 0
    packed, built, ranks = _built(3, 2, 3, Rules.preset("blind"), partitioned=True, parts=4)
    assert _compare_with_memory(packed, built, ranks)[1] == 0


def test_the_comparison_is_not_vacuous():
    """Ranks shifted by one seat disagree: the comparison above can fail."""
    packed, built, ranks = _built(3, 2, 3, Rules.preset("quaternity"))
    assert (ranks >= 0).any() and (ranks < 0).any()
    assert _compare_with_memory(packed, built, np.roll(ranks, 1, axis=1))[1] > 0


@pytest.mark.parametrize("name", ["quaternity", "blind", "pythagoras", "quaternity-seat"])
def test_the_start_s_answer_equals_the_in_memory_solve_for_every_seat(name):
    rules = RULES[name]
    P, N, S = 3, 2, 3
    packed, built, ranks = _built(P, N, S, rules)
    root = int(pt.lookup(built, packed.start()[0])[0])
    for p in range(P):
        res = solve(start_position(P, N, S, rules), "win", p, lazy=False)
        r = int(ranks[root, p])  # the start's frame seat is seat 0
        assert res.result == (r >= 0) and (res.plies if res.result else -1) == r


def test_keys_round_trip_and_rotation_commutes_with_the_description():
    """unpack(pack(k)) == k; the decoded state's key is the key again; the key of a rotated position is the
    rotated key (the description commutes with renaming seats)."""
    from dataclasses import replace

    from quaternity_cp.quartets.constraints import make_constraints

    P, N, S = 3, 2, 3
    rules = Rules.preset("quaternity")
    ctx = Context(Game(P, N, S), rules, "sets")
    g = GameGraph(ctx)
    g.build(ctx.search_root(ctx.describe(Position(ctx.game, rules, engine=ctx.engine).state)))
    lay = Layout(P, N, S, False)
    seen = 0
    for key in g.ids:
        if key[0] == "end":
            continue
        st = state_of_key(key, ctx.game, rules)
        assert ctx.describe(st).key == key
        for r in range(P):
            rk = rotate_key(key, r, P, False)
            assert unpack_key(pack_key(rk, lay), lay) == rk
            c = st.constraints
            doms = tuple(((d >> r) | (d << (P - r))) & ((1 << P) - 1) for d in c.domains)
            c2 = make_constraints(P, S, c.in_play, c.hands[r:] + c.hands[:r], doms, c.lo[r:] + c.lo[:r],
                                  c.hi[r:] + c.hi[:r])
            q = st.pending
            rotated = replace(st, constraints=c2, scores=st.scores[r:] + st.scores[:r],
                              claimed=tuple((x - r) % P if x >= 0 else -1 for x in st.claimed),
                              reached=st.reached[r:] + st.reached[:r],
                              turn=tuple(sorted((p - r) % P for p in st.turn)),
                              pending=Question((q.asker - r) % P, (q.target - r) % P, q.card) if q else None)
            assert ctx.describe(rotated).key == rk
        seen += 1
    assert seen > 500


@pytest.mark.parametrize("name", ["quaternity", "blind", "pythagoras", "quaternity-seat"])
def test_successors_equal_the_positions_own_moves(name):
    """Each position's edges (child key and seat offset, or winners) equal those of every legal move pushed on the
    decoded position with the rules' own Position.push (every move, not one per symmetry class)."""
    rules = RULES[name]
    P, N, S = 3, 2, 3
    packed = QuaternityPacked(P, N, S, rules)
    built = pt.build(packed, tempfile.mkdtemp(), parts=2)
    ctx = packed.context()
    keys = _all_keys(built)
    for row in keys.tolist()[:150]:
        out = packed.expand(np.array([row], np.uint64))
        got = set()
        for e in range(len(out["src"])):
            end = int(out["end"][e])
            got.add(("end", end) if end != -2 else (tuple(out["keys"][e].tolist()), int(out["off"][e])))
        key = packed.key_of_words(row)
        f = frame_of(key)
        pos = Position(ctx.game, rules, state=state_of_key(key, ctx.game, rules))
        want = set()
        firsts = list(pos.legal_moves())
        assert firsts
        for move in firsts:
            seq = [move]
            if isinstance(move, Question) and move.answer is None:  # an open question: each legal answer
                probe = pos.copy()
                probe.push(move)
                seq = [None] + [m for m in probe.legal_moves()]
            for answer in seq[1:] if seq[0] is None else seq:
                p2 = pos.copy()
                if seq[0] is None:
                    p2.push(move)
                    # a question with both answers open is a node of its own (the open question)
                    both = len(seq) > 2
                    if both:
                        child = ctx.describe(p2.state)
                        words, cf = packed.key_words(child.key)
                        want.add((tuple(words), (cf - f) % P))
                        break
                p2.push(answer)
                child = ctx.describe(p2.state)
                if child.over:
                    for w in child.winners or (-1,):
                        want.add(("end", (w - f) % P if w >= 0 else -1))
                else:
                    words, cf = packed.key_words(child.key)
                    want.add((tuple(words), (cf - f) % P))
        if len(pos.state.turn) > 1:  # a free choice: the seats of the shared turn
            want = set()
            from dataclasses import replace
            for p in pos.state.turn:
                words, cf = packed.key_words(ctx.describe(replace(pos.state, turn=(p,))).key)
                want.add((tuple(words), (cf - f) % P))
        assert got == want, key


def test_rotation_follows_the_rules():
    assert rotates(Rules.preset("quaternity")) and rotates(Rules.preset("blind"))
    assert not rotates(Rules.preset("quaternity-seat"))
    assert not rotates(Rules.preset("quaternity", tie="first"))
    assert QuaternityPacked(4, 4, 4, Rules.preset("quaternity")).layout.bits <= 256


@pytest.mark.parametrize("start, words", [((4, 3, 3), "cannot be dealt"), ((3, 2, 2), "cannot be dealt"),
                                          ((8, 64, 8), "more than the packed width"), ((1, 2, 2), "at least 2")])
def test_starts_it_cannot_take_are_refused(start, words):
    with pytest.raises(PackedError) as err:
        check_start(*start, Rules.preset("quaternity"))
    assert words in str(err.value)
    with pytest.raises(PackedError):
        check_start(2, 2, 2, Rules.preset("classic"))


@pytest.mark.parametrize("start", [(9, 9, 2), (12, 12, 2), (11, 11, 2), (16, 8, 2)])
def test_the_lazy_solve_takes_more_seats_and_wider_keys(start):
    rules = Rules.preset("blind")
    with pytest.raises(PackedError, match=r"solve --packed takes up to"):
        check_start(*start, rules)
    assert check_start(*start, rules, lazy=True) == start


@pytest.mark.parametrize("start, words", [((17, 17, 2), "at most 16 players"), ((16, 48, 2), "more than the packed "
                                                                                               "width of 1536")])
def test_the_lazy_solve_s_limits(start, words):
    with pytest.raises(PackedError, match=words) as err:
        check_start(*start, Rules.preset("quaternity"), lazy=True)
    assert "solve --packed takes" not in str(err.value)


# -- the command -------------------------------------------------------------------------------------------------
def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def refused(*args) -> str:
    code, out, err = run(*args)
    assert code == 2, (code, out, err)
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def solved(folder, *extra, start=(3, 2, 3)):
    code, out, err = run("solve", "--start", *start, "--checkpoint", folder, "--workers", 0, "--json", *extra)
    assert code == 0, (code, out, err)
    return json.loads(out)


def test_the_command_answers_with_the_in_memory_solver_s_keys(tmp_path):
    data = solved(tmp_path / "ck", "--player", 1)
    mem = solve(start_position(3, 2, 3, "quaternity"), "win", 1, lazy=False).to_json()
    for key in ("verdict", "proven", "plies", "result", "goal", "player"):
        assert data[key] == mem[key], key
    assert data["proven"] and data["positions"] > 300 and data["layers"] > 3
    assert data["edges"] > data["positions"] and data["checkpoint"] == str(tmp_path / "ck")
    assert set(data["seats"]) == {"0", "1", "2"} and data["peak_memory_bytes"]["this_process"] > 0
    assert (data["strategy"] is None) != (data["defense"] is None)


def _walk(tree, pos, seen):
    """Every line of a strategy tree played on the position with its own rules: each move legal, claims and the
    end as the tree says."""
    if tree.get("truncated") or "end" in tree:
        if tree.get("end") == "over":
            assert pos.over and sorted(pos.winners()) == tree["winners"] and list(pos.scores) == tree["scores"]
        return
    for entry in tree["moves"]:
        p = pos.copy()
        text = entry["move"]
        if text.endswith("takes the turn"):
            from dataclasses import replace
            seat = entry["player"]
            assert seat in p.state.turn
            p = Position(p.game, p.rules, state=replace(p.state, turn=(seat,)))
        else:
            claims = p.push_str(text)
            assert {p.game.set_name(s): q for s, q in claims} == entry.get("claims", {}), text
        seen.append(text)
        _walk(entry["next"], p, seen)


@pytest.mark.parametrize("name, start, player", [("quaternity", (3, 2, 3), 0), ("blind", (3, 2, 3), 1),
                                                 ("pythagoras", (3, 3, 2), 2), ("quaternity-seat", (2, 3, 2), 0),
                                                 ("blind", (2, 2, 2), 0)])
def test_strategy_trees_are_legal_lines_in_the_game_s_own_names(tmp_path, name, start, player):
    data = solved(tmp_path / "ck", "--rules", name, "--player", player, "--depth", 12, start=start)
    tree = data["strategy"] or data["defense"]
    seen: list[str] = []
    _walk(tree, Position(Game(*start), Rules.preset(name)), seen)
    assert seen


def test_a_stopped_build_goes_on_to_the_fresh_answer(tmp_path):
    fresh = solved(tmp_path / "fresh")
    code, out, err = run("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--workers", 0, "--json",
                         "--max-positions", 20)
    assert code == 0, err
    stopped = json.loads(out)
    assert stopped["verdict"] == "unproven" and stopped["status"] == "limit" and stopped["layers"] >= 1
    # expanded: the positions whose moves the checkpoint holds, every stored layer's but the last one's
    sizes = json.loads((tmp_path / "ck" / "manifest.json").read_text())["sizes"]
    assert len(sizes[0]) == stopped["layers"] >= 2
    assert stopped["expanded"] == sum(sum(s[:-1]) for s in sizes) > 0
    assert stopped["positions"] == sum(sum(s) for s in sizes) > stopped["expanded"]
    again = solved(tmp_path / "ck")
    for key in ("verdict", "plies", "positions", "edges", "layers", "seats"):
        assert again[key] == fresh[key], key


def test_ctrl_c_exits_130_naming_the_folder_and_the_next_run_goes_on(tmp_path, monkeypatch):
    calls = {"n": 0}
    real = QuaternityPacked.expand

    def interrupted(self, keys):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real(self, keys)

    monkeypatch.setattr(QuaternityPacked, "expand", interrupted)
    code, out, err = run("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--workers", 0, "--json")
    assert code == 130 and str(tmp_path / "ck") in err and "Traceback" not in err, (code, err)
    assert len(err.strip().splitlines()) == 1, err
    # (the verdict known first, as the in-memory and --packed solvers print it)
    got = json.loads(out)
    assert (got["verdict"], got["proven"], got["status"]) == ("unproven", False, "interrupted")
    assert got["checkpoint"] == str(tmp_path / "ck") and got["positions"] >= 1 and got["seconds"] > 0
    calls["n"] = 0
    code, out, err = run("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck2", "--workers", 0)
    assert code == 130 and out.splitlines()[0].startswith("start of the game")
    assert out.splitlines()[-1].startswith("Result: unproven (interrupted)"), out
    monkeypatch.setattr(QuaternityPacked, "expand", real)
    assert solved(tmp_path / "ck")["positions"] == solved(tmp_path / "fresh")["positions"]


def test_a_checkpoint_refused_leaves_standard_output_empty_and_engine_is_the_in_memory_solver_s(tmp_path):
    """In text too, a checkpoint refused (of another game, rules or start) prints nothing before its one line;
    --engine, which only the in-memory solver takes, is refused with the other two."""
    solved(tmp_path / "ck")
    for extra in (["--rules", "blind"], ["--start", 3, 3, 2]):
        args = ["solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--workers", 0, *extra]
        if extra[0] == "--start":
            args = ["solve", *extra, "--checkpoint", tmp_path / "ck", "--workers", 0]
        code, out, err = run(*args)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (code, out, err)
    assert "--engine" in refused("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "x", "--engine", "cpsat")
    assert "--engine" in refused("solve", "--start", 3, 2, 3, "--packed", "--engine", "cpsat")


def test_sigterm_stops_the_build_as_ctrl_c_does_with_exit_143(tmp_path, monkeypatch):
    """A batch system ends a job with SIGTERM: a real one, sent to this process in the middle of the build, stops
    it with one line naming the folder and exit 143; the handler before it is back; the next run goes on."""
    import signal

    calls = {"n": 0}
    real = QuaternityPacked.expand

    def terminated(self, keys):
        calls["n"] += 1
        if calls["n"] == 5:
            os.kill(os.getpid(), signal.SIGTERM)
        return real(self, keys)

    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(QuaternityPacked, "expand", terminated)
    code, out, err = run("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--workers", 0)
    assert code == 143 and str(tmp_path / "ck") in err and "Traceback" not in err, (code, err)
    lines = err.strip().splitlines()  # the layers done, then the one line
    assert all(line.strip().startswith("layer ") for line in lines[:-1]) and "interrupted" in lines[-1]
    assert signal.getsignal(signal.SIGTERM) is before
    manifest = json.loads((tmp_path / "ck" / "manifest.json").read_text())
    assert 1 <= manifest["layers"] and not manifest["complete"]
    monkeypatch.setattr(QuaternityPacked, "expand", real)
    assert solved(tmp_path / "ck")["positions"] == solved(tmp_path / "fresh")["positions"]


def test_a_failed_task_stops_with_the_layers_kept_and_the_next_run_goes_on(tmp_path):
    from quaternity_cp.quartets.bigsolve import packed_of

    packed = packed_of(3, 2, 3, Rules.preset("quaternity"))
    calls = {"n": 0}

    def flaky(tasks, done=None):
        calls["n"] += 1
        if calls["n"] == 5:
            raise OSError(28, "No space left on device")
        return [fn(*args) for fn, args in tasks]

    with pytest.raises(pt.BuildStopped) as stop:
        pt.build(packed, str(tmp_path / "a"), parts=3, run=flaky)
    assert stop.value.reason == "failed" and stop.value.layers >= 1
    resumed = pt.build(packed, str(tmp_path / "a"), parts=3)
    fresh = pt.build(packed, str(tmp_path / "b"), parts=3)
    assert (resumed.positions, resumed.edges, resumed.layers) == (fresh.positions, fresh.edges, fresh.layers)


def test_the_progress_lines_are_the_layers_then_the_attractor_s_rounds(tmp_path):
    code, out, err = run("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--workers", 0,
                         "--attractor", "partitioned")
    assert code == 0, err
    lines = [line.strip() for line in err.strip().splitlines()]
    layers = [line for line in lines if line.startswith("layer ")]
    rounds = [line for line in lines if line.startswith("ranking, round ")]
    assert layers and rounds and lines == layers + rounds, lines
    manifest = json.loads((tmp_path / "ck" / "attractor" / "manifest.json").read_text())
    assert [line.split(":")[0] for line in rounds] == [f"ranking, round {t}" for t in range(1, manifest["rounds"] + 1)]
    totals = [int(re.search(r"ranked, ([\d,]+) in all", line).group(1).replace(",", "")) for line in rounds]
    assert totals == sorted(totals) and totals[-1] == manifest["ranked"]
    # --json keeps standard error for errors: no progress there
    code, out, err = run("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck2", "--workers", 0,
                         "--attractor", "partitioned", "--json")
    assert code == 0 and err == "", err
    # ... unless asked for (a batch job keeping the JSON and a log): the same lines, the same JSON
    code, out3, err = run("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck3", "--workers", 0,
                          "--attractor", "partitioned", "--json", "--progress")
    untimed = [re.sub(r", [\d,]+ s$", "", line) for line in lines]  # (the seconds may differ)
    assert code == 0 and [re.sub(r", [\d,]+ s$", "", line.strip()) for line in err.strip().splitlines()] \
        == untimed, err
    first, again = json.loads(out), json.loads(out3)
    for key in ("verdict", "plies", "positions", "edges", "layers", "seats", "strategy", "defense"):
        assert again[key] == first[key], key
    # and --no-progress keeps the text output's standard error empty
    code, out, err = run("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--no-progress")
    assert code == 0 and err == "" and "Result: no" in out, (out, err)
    code, out, err = run("solve", "--start", 3, 2, 3, "--progress")
    assert code == 2 and err.strip() == "quaternity: --progress/--no-progress goes with --checkpoint (the "\
        "partitioned solver)", err


@pytest.mark.parametrize("start", [(3, 3, 3), (3, 2, 3)])
def test_the_whole_graph_attractor_holds_no_more_than_its_estimate(tmp_path, start):
    """What the whole-graph attractor allocates at its peak (tracemalloc: numpy's arrays and Python's objects, its
    compiled code loaded before) is within :func:`~quaternity_cp.partitioned.whole_attractor_bytes`, and not far
    below it."""
    import tracemalloc

    from quaternity_cp.quartets.bigsolve import packed_of

    built = pt.build(packed_of(*start, Rules.preset("quaternity")), str(tmp_path / "g"), parts=2)
    pt.attract(built)  # (loads the compiled attractor first: its loading is no part of the graph's memory)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        pt.attract(built)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    need = pt.whole_attractor_bytes(built)
    assert need * 0.6 <= peak <= need, (peak, need)


def test_a_graph_too_big_for_the_whole_graph_attractor_is_refused_and_the_partitioned_one_ranks_it(
        tmp_path, monkeypatch):
    fresh = solved(tmp_path / "fresh")
    monkeypatch.setattr(pt, "memory_available", lambda: 10**5)
    line = refused("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--workers", 0, "--no-progress")
    assert "the whole-graph attractor would hold about" in line and "--attractor partitioned" in line, line
    manifest = json.loads((tmp_path / "ck" / "manifest.json").read_text())
    assert manifest["complete"]  # (the graph built is kept)
    code, out, err = run("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--workers", 0,
                         "--attractor", "partitioned", "--json")
    assert code == 0, err
    again = json.loads(out)
    for key in ("verdict", "plies", "positions", "edges", "layers", "seats"):
        assert again[key] == fresh[key], key


def test_a_big_step_s_task_lines_come_at_most_every_few_seconds_and_its_own_line_always(capsys):
    """Within a layer or round that takes minutes, a line as a task ends, no sooner than ``every`` seconds after
    the line before (the clock is the test's); each layer's and round's own line is always shown."""
    from quaternity_cp.command.runs import graph_progress

    now = [0.0]
    show = graph_progress(True, clock=lambda: now[0], every=10)
    expand = {"task": "expand", "layer": 5, "done": 1, "of": 8, "edges": 1234, "seconds": 3.0}
    show(expand)  # (3 s after the start: too soon)
    now[0] = 11.0
    show({**expand, "done": 2, "edges": 5678, "seconds": 11.0})
    now[0] = 15.0
    show({**expand, "done": 3, "seconds": 15.0})  # (too soon)
    show({"layer": 5, "new": 900, "positions": 2000, "edges": 9000, "seconds": 15.2})
    now[0] = 20.0
    show({"task": "merge", "layer": 6, "done": 1, "of": 8, "new": 10, "seconds": 20.0})  # (5 s after the layer's)
    now[0] = 30.0
    show({"task": "merge", "layer": 6, "done": 2, "of": 8, "new": 2_500_000, "seconds": 30.0})
    now[0] = 45.0
    show({"task": "prepare", "done": 3, "of": 8, "seconds": 45.0})
    now[0] = 60.0
    show({"task": "send", "round": 0, "done": 2, "of": 5, "messages": 70_000, "seconds": 60.0})
    now[0] = 75.0
    show({"task": "apply", "round": 0, "done": 1, "of": 4, "ranked": 1_000, "seconds": 75.4})
    now[0] = 90.0
    show({"task": "load", "stage": "count", "done": 5, "of": 8, "seconds": 90.0})
    now[0] = 100.0
    show({"task": "load", "stage": "fill", "done": 2, "of": 8, "seconds": 100.0})
    show({"round": 0, "ranked": 3_000, "total": 3_000, "messages": 90_000, "seconds": 76.0})
    assert capsys.readouterr().err.splitlines() == [
        "  layer 5: 2 of 8 parts expanded, 5,678 moves so far, 11 s",
        "  layer 5: 900 new, 2,000 positions, 9,000 moves, 15 s",
        "  layer 6: 2 of 8 parts joined, 2,500,000 new so far, 30 s",
        "  ranking, preparing: 3 of 8 parts loaded, 45 s",
        "  ranking, round 1: 2 of 5 parts sent, 70,000 messages so far, 60 s",
        "  ranking, round 1: 1 of 4 parts applied, 1,000 ranked so far, 75 s",
        "  ranking the whole graph: 5 of 8 parts counted, 90 s",
        "  ranking the whole graph: 2 of 8 parts read into the lists, 100 s",
        "  ranking, round 1: 3,000 (position, seat) pairs ranked, 3,000 in all, 76 s"]
    hidden = graph_progress(False, clock=lambda: now[0], every=0)
    hidden(expand)
    hidden({"layer": 5, "new": 900, "positions": 2000, "edges": 9000, "seconds": 15.2})
    assert capsys.readouterr().err == ""


@pytest.mark.slow
def test_a_dask_run_equals_the_in_process_run(tmp_path):
    pytest.importorskip("distributed")
    here = solved(tmp_path / "here")
    code, out, err = run("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "dask", "--workers", 2, "--json",
                         "--attractor", "partitioned")
    assert code == 0, err
    there = json.loads(out)
    for key in ("verdict", "plies", "positions", "edges", "layers", "seats", "strategy", "defense"):
        assert there[key] == here[key], key


def test_a_checkpoint_of_another_start_or_game_or_damaged_is_refused(tmp_path):
    solved(tmp_path / "ck")
    line = refused("solve", "--start", 3, 3, 2, "--checkpoint", tmp_path / "ck", "--workers", 0)
    assert "ck" in line
    line = refused("solve", "--start", 3, 2, 3, "--rules", "blind", "--checkpoint", tmp_path / "ck", "--workers", 0)
    assert "ck" in line
    # a Go Fish checkpoint
    code, out, err = run("gofish", "starts", "--players", 2, "--checkpoint", tmp_path / "fish", "--workers", 0)
    assert code == 0, err
    fish = next(p for p in (tmp_path / "fish").iterdir() if p.is_dir())
    refused("solve", "--start", 2, 2, 2, "--checkpoint", fish, "--workers", 0)
    # a damaged part file
    part = sorted((tmp_path / "ck").glob("part*/keys*.npz"))[-1]
    data = bytearray(part.read_bytes())
    data[-3] ^= 0xFF
    part.write_bytes(bytes(data))
    line = refused("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--workers", 0, "--no-progress")
    assert part.name in line


def test_a_checkpoint_goes_on_in_its_own_parts_and_other_parts_are_refused_by_name(tmp_path):
    from quaternity_cp.quartets.bigsolve import default_parts

    assert default_parts(3, 2, 3) != 3
    code, out, err = run("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--workers", 0, "--parts", 3,
                         "--max-positions", 20, "--json")
    assert code == 0 and not json.loads(out)["proven"], (code, out, err)  # (stopped by the limit)
    data = solved(tmp_path / "ck")  # no parts named: the checkpoint's 3
    fresh = solved(tmp_path / "fresh", "--parts", 3)
    assert data["parts"] == 3 and data["proven"]
    assert [data[k] for k in ("positions", "edges", "layers", "seats")] == [fresh[k] for k in ("positions", "edges",
                                                                                             "layers", "seats")]
    assert solved(tmp_path / "ck", "--drop-graph")["parts"] == 3
    assert solved(tmp_path / "ck")["graph_dropped"]  # (the stored answer, read in its own parts)
    line = refused("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--workers", 0, "--parts", 2)
    assert "in 3 parts, not 2" in line and "manifest.json" in line
    assert solved(tmp_path / "new")["parts"] == default_parts(3, 2, 3)


def test_small_starts_default_to_two_parts_and_large_ones_to_eight():
    from quaternity_cp.quartets.bigsolve import DEFAULT_PARTS, SMALL_PARTS, default_parts

    small = [(2, 8, 4), (2, 16, 4), (4, 4, 2), (3, 3, 3), (3, 4, 3), (3, 3, 4), (3, 6, 2)]
    large = [(4, 4, 3), (4, 6, 2), (3, 5, 3), (4, 4, 4), (8, 8, 2), (5, 5, 2)]
    assert [default_parts(*s) for s in small] == [SMALL_PARTS] * len(small)
    assert [default_parts(*s) for s in large] == [DEFAULT_PARTS] * len(large)


def test_a_checkpoint_of_the_earlier_layout_is_refused_with_what_to_do(tmp_path):
    solved(tmp_path / "ck")
    path = tmp_path / "ck" / "manifest.json"
    data = json.loads(path.read_text())
    data["format"] = "quaternity-graph-1"
    path.write_text(json.dumps(data))
    line = refused("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--workers", 0, "--no-progress")
    assert "older version" in line and "move numbers" in line and str(path) in line


def test_a_checkpoint_of_the_plain_layout_is_refused_with_what_to_do(tmp_path):
    """A manifest without ``layout`` (the plain part files before deflate) is refused before any file is read."""
    solved(tmp_path / "ck")
    path = tmp_path / "ck" / "manifest.json"
    data = json.loads(path.read_text())
    assert data["layout"] == pt.LAYOUT
    del data["layout"]
    path.write_text(json.dumps(data))
    line = refused("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--workers", 0, "--no-progress")
    assert "older version" in line and "layout 1" in line and str(path) in line


def test_part_files_keep_no_move_numbers_and_ids_in_4_bytes(tmp_path):
    solved(tmp_path / "ck")
    seen = set()
    for f in (tmp_path / "ck").glob("part*/*.npz"):
        with np.load(f) as z:
            assert "move" not in z.files, f
            for name in ("src", "dst"):
                if name in z.files:
                    assert z[name].dtype == np.int32, (f, name)
                    seen.add((f.name[:3], name))
    assert {("edg", "src"), ("edg", "dst"), ("out", "src")} <= seen
    # past 2**31 ids the files take 8 bytes (the dtypes follow the manifest's sizes)
    ctx = pt.Context(packed_for({"players": 3, "sets": 2, "set_size": 3}), [[1, 2**30, 5], [0, 2**30, 7]])
    assert ctx.ids("edges", 0, 1) == (np.int32, np.int32)  # parents of layer 0: 1 position
    assert ctx.ids("edges", 0, 2) == (np.int64, np.int32)  # parents up to 2**30 + 1 local ids in 2 parts
    assert ctx.ids("out", 1, 1)[0] == np.int32 and ctx.ids("in", 1, 2)[0] == np.int64


@pytest.mark.parametrize("args, words", [
    (("--start", 3, 2, 2), "cannot be dealt"),
    (("--start", 8, 64, 8), "packed width"),
    (("--start", 3, 2, 3, "--parts", 0), "--parts"),
    (("--start", 3, 2, 3, "--parts", 1000), "--parts"),
    (("--start", 3, 2, 3, "--parts", 16), "at most 4 make sense"),
    (("--start", 3, 2, 3, "--workers", 1000), "--workers"),
    (("--start", 3, 2, 3, "--goal", "quartet"), "quartet goal"),
    (("--start", 3, 2, 3, "--goal", "value"), "two players"),
    (("--start", 3, 2, 3, "--player", 7), "player"),
    (("--start", 3, 2, 3, "--rules", "classic"), "dealt"),
    (("--start", 3, 2, 3, "--max-questions", 2), "quartet goal"),
])
def test_bad_input_is_one_line_exit_2_before_any_work(tmp_path, args, words):
    line = refused("solve", *args, "--checkpoint", tmp_path / "ck")
    assert words in line, line
    assert not (tmp_path / "ck").exists()


def test_partitioned_options_go_with_a_checkpoint(tmp_path):
    assert "with --checkpoint" in refused("solve", "--start", 3, 2, 3, "--workers", 2)
    assert "give --start" in refused("solve", tmp_path / "x.json", "--checkpoint", tmp_path / "ck")
    assert "folder" in refused("solve", "--start", 3, 2, 3, "--checkpoint", " ")


@pytest.mark.parametrize("name, start", [("quaternity", (4, 2, 2)), ("pythagoras", (3, 2, 3))])
def test_free_choices_and_shared_wins_through_the_partitioned_attractor(name, start):
    """The graphs hold free choices (owner -1) or plies won by several seats (a row per winner), and the
    partitioned attractor ranks them as the in-memory solver does."""
    packed, built, ranks = _built(*start, RULES[name], partitioned=True, parts=4)
    keys = _all_keys(built)
    out = packed.expand(keys)
    if name == "quaternity":
        assert (out["owner"] == -1).any()
    else:
        ends = out["end"] >= 0
        pairs = np.stack([out["src"][ends], out["move"][ends]], axis=1)
        assert len(np.unique(pairs, axis=0)) < len(pairs)  # some ply is won by several seats
    assert _compare_with_memory(packed, built, ranks)[1] == 0


from dataclasses import dataclass as _dataclass  # noqa: E402


@_dataclass(frozen=True)
class _KillsItsWorkerOnce(QuaternityPacked):
    """The packed part whose first expansion of a non-empty batch past the first layers kills the worker process
    running it (a lost machine); the marker file says it happened."""

    marker: str = ""

    def expand(self, keys):
        if len(keys) > 10 and not os.path.exists(self.marker):
            with open(self.marker, "w") as fh:
                fh.write("killed")
            os._exit(1)
        return QuaternityPacked.expand(self, keys)


@pytest.mark.slow
def test_a_killed_worker_s_task_runs_again_and_the_graph_is_the_fresh_one(tmp_path):
    pytest.importorskip("distributed")
    from quaternity_cp.cluster import dask_client
    from quaternity_cp.retrograde import dask_runner

    rules = Rules.preset("quaternity")
    marker = str(tmp_path / "killed")
    packed = _KillsItsWorkerOnce(3, 2, 3, rules, False, marker=marker)
    with dask_client(None, 2) as client:
        built = pt.build(packed, str(tmp_path / "dask"), parts=3, run=dask_runner(client))
    assert os.path.exists(marker)  # a worker was killed
    fresh = pt.build(QuaternityPacked(3, 2, 3, rules), str(tmp_path / "here"), parts=3)
    assert (built.positions, built.edges, built.layers) == (fresh.positions, fresh.edges, fresh.layers)
    for k in range(3):
        assert np.array_equal(pt.keys_of(built, k), pt.keys_of(fresh, k))


def test_a_dropped_graph_answers_from_its_stored_result_and_a_changed_one_is_refused(tmp_path):
    first = solved(tmp_path / "ck", "--drop-graph", "--player", 2)
    assert first["graph_dropped"] and not list((tmp_path / "ck").glob("part*"))
    again = solved(tmp_path / "ck", "--player", 2)
    assert again["graph_dropped"] and again["strategy"] is None and again["defense"] is None
    for key in ("verdict", "proven", "plies", "positions", "edges", "layers", "seats"):
        assert again[key] == first[key], key
    stored = tmp_path / "ck" / "result.json"
    data = json.loads(stored.read_text())
    data["result"]["seats"]["2"] = {"wins": True, "plies": 3}
    stored.write_text(json.dumps(data))
    assert "result.json" in refused("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--workers", 0)
    assert "not both" in refused("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "x", "--workers", 1,
                                 "--cluster", "tcp://127.0.0.1:1")


def test_the_key_index_finds_every_position_and_nothing_else(tmp_path):
    """KeyIndex (a part's keys ordered once by a hash, found by binary search and checked word for word) gives the
    dense id of every position of a graph, as lookup does, and -1 for keys not in it, hashes colliding or not."""
    packed = packed_for({"players": 3, "sets": 2, "set_size": 3})
    built = pt.build(packed, str(tmp_path / "ck"), parts=3)
    index = pt.KeyIndex(built)
    every = np.concatenate([pt.keys_of(built, k) for k in range(built.parts)])
    dense = np.arange(built.positions)
    assert np.array_equal(index.find(every), dense) and np.array_equal(pt.lookup(built, every), dense)
    others = every.copy()
    others[:, -1] ^= np.uint64(1 << 63)  # (outside what a key of this start holds)
    assert (index.find(others) == -1).all()
    # a key whose hash equals a position's but whose words differ is not taken for it
    real = pt._row_hash
    try:
        pt._row_hash = lambda keys: np.zeros(len(keys), np.uint64)  # every hash the same
        collide = pt.KeyIndex(built)
        assert np.array_equal(collide.find(every[:50]), dense[:50]) and (collide.find(others[:50]) == -1).all()
        # members only: every hash shared, so every position keeps its words and is still found exactly
        members = pt.KeyIndex(built, members_only=True)
        assert np.array_equal(members.find(every[:50]), dense[:50])
        # some hashes shared: those positions found by their words, the others by their hash alone
        pt._row_hash = lambda keys: real(keys) & np.uint64(0xFF)  # (256 hashes for about 130 positions a part)
        paired = pt.KeyIndex(built, members_only=True)
        assert np.array_equal(paired.find(every), dense)
        assert 0 < sum(len(paired._part(k)[3]) for k in range(built.parts)) < built.positions
    finally:
        pt._row_hash = real
    members = pt.KeyIndex(built, members_only=True)
    assert np.array_equal(members.find(every), dense)
    held = [members._part(k) for k in range(built.parts)]
    assert sum(len(words) for _h, _o, _ids, words in held) == 0  # (no hash shared: no key's words kept)
    assert all(order.dtype == np.int32 for _h, order, _ids, _w in held)


def test_the_answer_reads_each_part_s_ranks_once(tmp_path, monkeypatch):
    """With the partitioned attractor the ranks are read a part at a time; the answer's strategy hops between
    parts, and each part's ranks are read once (the Ranker keeps every part it read), its answers the whole
    attractor's."""
    from quaternity_cp import retrograde

    reads: list[str] = []
    real = retrograde._read

    def counting(folder, name, *args, **kwargs):
        if "state" in os.path.basename(name):
            reads.append(name)
        return real(folder, name, *args, **kwargs)

    here = solved(tmp_path / "here")
    code, out, err = run("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--workers", 0, "--json",
                         "--attractor", "partitioned")
    assert code == 0, err
    monkeypatch.setattr(retrograde, "_read", counting)
    code, out, err = run("solve", "--start", 3, 2, 3, "--checkpoint", tmp_path / "ck", "--workers", 0, "--json",
                         "--attractor", "partitioned")  # (the graph and its ranks done: the answer alone)
    assert code == 0, err
    there = json.loads(out)
    for key in ("verdict", "plies", "seats", "strategy", "defense"):
        assert there[key] == here[key], key
    assert reads and len(reads) == len(set(reads)), reads

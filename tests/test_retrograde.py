"""The partitioned attractor (quaternity_cp.retrograde): rounds by rank level, part by part, through files.

Every check is against an independent reference:

* on Go Fish starts (2 players, 3 players with suits of 2 and 3, 4 players with suits of 2, under the rule sets
  of the starts table): every rank of every position and every seat equal to the whole-graph attractor
  (:func:`quaternity_cp.gofish.bigsolve.attract`) and to the in-memory Python solver's (:mod:`.solver`, seats
  absolute), and each seat's answer at the start; sampled positions re-solved by the Python solver
  (:func:`~quaternity_cp.gofish.bigsolve.crosscheck`) through the partitioned ranks;
* on random graphs with long forced wins and cycles (hundreds of rounds): every rank equal to a plain queue-based
  retrograde analysis written here, whatever the number of parts;
* a run stopped by a round budget, an interrupt or a failed task, resumed, equal to a fresh one; damaged, edited
  or foreign round files refused in one line; a Dask run equal to the in-process one.
"""

from __future__ import annotations

import functools
import json
import os
from collections import deque
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from click.testing import CliRunner
from test_gofish_bigsolve import dense_index, rid, solve_both

from quaternity_cp import partfiles
from quaternity_cp import retrograde as rg
from quaternity_cp.digest import sign_json
from quaternity_cp.errors import QuaternityError
from quaternity_cp.gofish import bigsolve as bs
from quaternity_cp.gofish import fastgraph as fg
from quaternity_cp.gofish.starts import VARIANTS


# -- a random graph, and a plain retrograde analysis of it --------------------------------------------------------
@functools.lru_cache(maxsize=None)
def synthetic(seed: int, n: int, P: int) -> dict:
    """A random game graph of ``n`` positions: a chain through all of them (long forced wins), more plies mostly
    a few positions on and some anywhere (cycles), plies that end the game for a winner or nobody; owners mostly
    the mover."""
    rng = np.random.default_rng(seed)
    owner = np.where(rng.random(n) < 0.6, 0, rng.integers(0, P, n)).astype(np.int8)
    edges, ends = set(), set()
    for i in range(n):
        if i + 1 < n:
            edges.add((i, i + 1, int(rng.integers(0, P))))
        while rng.random() < 0.35:
            c = min(n - 1, i + 1 + int(rng.integers(0, 6))) if rng.random() < 0.8 else int(rng.integers(0, n))
            if c != i:
                edges.add((i, c, int(rng.integers(0, P))))
        if rng.random() < 0.04 or i == n - 1:
            ends.add((i, int(rng.integers(-1 if i < n - 1 else 0, P))))
    degree = np.zeros(n, np.int64)
    for i, _, _ in edges:
        degree[i] += 1
    for i, _ in ends:
        degree[i] += 1
    return {"n": n, "P": P, "owner": owner, "degree": degree, "edges": sorted(edges), "ends": sorted(ends)}


def layout(n: int, parts: int) -> tuple[np.ndarray, np.ndarray]:
    """Each position's part (a hash of its id) and local id (its order in the part)."""
    part = (np.arange(n, dtype=np.int64) * 2654435761 % 1000003) % parts
    local = np.zeros(n, np.int64)
    for k in range(parts):
        sel = np.nonzero(part == k)[0]
        local[sel] = np.arange(len(sel))
    return part, local


def synthetic_part(seed: int, n: int, P: int, parts: int, k: int) -> rg.PartGraph:
    """Part ``k``'s share of :func:`synthetic`'s graph (the loader: module level, so a Dask worker runs it)."""
    g = synthetic(seed, n, P)
    part, local = layout(n, parts)
    mine = np.nonzero(part == k)[0]
    e = np.array(g["edges"], np.int64).reshape(-1, 3)
    e = e[part[e[:, 1]] == k]
    t = np.array(g["ends"], np.int64).reshape(-1, 2)
    t = t[part[t[:, 0]] == k]
    return rg.PartGraph(owner=g["owner"][mine], degree=g["degree"][mine], child=local[e[:, 1]],
                        parent=local[e[:, 0]] * parts + part[e[:, 0]], offset=e[:, 2].astype(np.int8),
                        ends=local[t[:, 0]], winner=t[:, 1].astype(np.int8))


def synthetic_part_sorted(seed: int, n: int, P: int, parts: int, k: int) -> rg.PartGraph:
    """:func:`synthetic_part` handed over as the predecessor lists are kept (sorted by child, ``start``)."""
    g = synthetic_part(seed, n, P, parts, k)
    order = np.argsort(g.child, kind="stable")
    start = np.zeros(len(g.owner) + 1, np.int64)
    np.cumsum(np.bincount(g.child, minlength=len(g.owner)), out=start[1:])
    return rg.PartGraph(owner=g.owner, degree=g.degree, child=np.zeros(0, np.int64), parent=g.parent[order],
                        offset=g.offset[order], ends=g.ends, winner=g.winner, start=start)


def plain_retrograde(g: dict) -> np.ndarray:
    """Ranks by a queue processed in rank order, one pair at a time (the textbook algorithm)."""
    n, P = g["n"], g["P"]
    preds: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for i, c, off in g["edges"]:
        preds[c].append((i, off))
    rank = np.full((n, P), -1, np.int64)
    left = np.repeat(g["degree"].reshape(n, 1), P, axis=1)
    queue: deque = deque()

    def reach(i: int, r: int, k: int) -> None:
        if rank[i, r] >= 0:
            return
        if g["owner"][i] != r:
            left[i, r] -= 1
            if left[i, r]:
                return
        rank[i, r] = k
        queue.append((i, r))

    for i, w in g["ends"]:
        if w >= 0:
            reach(i, w, 1)
    while queue:
        j, rc = queue.popleft()
        for i, off in preds[j]:
            reach(i, (rc + off) % P, int(rank[j, rc]) + 1)
    return rank


def run_synthetic(folder, seed=1, n=400, P=3, parts=3, **kw) -> rg.Ranks:
    part, _ = layout(n, parts)
    sizes = [int((part == k).sum()) for k in range(parts)]
    loaders = [(synthetic_part, (seed, n, P, parts, k)) for k in range(parts)]
    return rg.attract(str(folder), players=P, sizes=sizes, identity={"synthetic": [seed, n]}, loaders=loaders, **kw)


def by_position(ranks: rg.Ranks, n: int, parts: int) -> np.ndarray:
    """The partitioned ranks in the synthetic graph's position order."""
    part, local = layout(n, parts)
    dense = ranks.dense()
    return dense[ranks.bases[part] + local]


SYNTH = dict(seed=1, n=400, P=3)


@pytest.fixture(scope="module")
def reference():
    return plain_retrograde(synthetic(SYNTH["seed"], SYNTH["n"], SYNTH["P"]))


def test_the_random_graph_is_deep_and_has_every_kind_of_answer(reference):
    assert reference.max() >= 40  # (forced wins of dozens of plies: as many rounds)
    assert (reference < 0).any() and (reference >= 0).sum() > 80
    assert len({i for i, _, _ in synthetic(1, 400, 3)["edges"]}) < len(synthetic(1, 400, 3)["edges"])  # (choices)


@pytest.mark.parametrize("parts", [1, 2, 3, 7])
def test_every_rank_of_a_random_graph_equals_the_plain_analysis(tmp_path, reference, parts):
    ranks = run_synthetic(tmp_path / "r", parts=parts)
    got = by_position(ranks, SYNTH["n"], parts)
    assert np.array_equal(got, reference)
    assert ranks.rounds == int(reference.max()) + 1  # (the last round ranks nothing)
    assert ranks.ranked == int((reference >= 0).sum())
    # the lookups by dense id read the same
    part, local = layout(SYNTH["n"], parts)
    for i in (0, 17, 399):
        for r in range(3):
            assert ranks[int(ranks.bases[part[i]] + local[i]), r] == reference[i, r]


# -- Go Fish: the whole-graph attractor and the Python solver --------------------------------------------------
def assert_equal_to_reference(P, S, rules, folder, monkeypatch, parts=3):
    row, game, seen, built, whole = solve_both(P, S, rules, folder, monkeypatch, parts=parts)
    att = bs.attract(built, partitioned=True)
    ranks = att.ranks.dense()
    assert ranks.dtype == whole.ranks.dtype and np.array_equal(ranks, whole.ranks)
    assert att.seats == whole.seats and (att.positions, att.edges) == (whole.positions, whole.edges)
    index = dense_index(built)
    wrong, found = [], 0
    for key, (packed, turn) in seen.items():
        i = index[packed]
        for x in range(P):
            ref = row.results[x].ranks.get(key)
            got = int(ranks[i, (x - turn) % P])
            found += ref is not None
            if (None if got < 0 else got) != ref:
                wrong.append((key, x, ref, got))
    assert not wrong, f"{len(wrong)} ranks differ, e.g. {wrong[:3]}"
    assert found > 0
    for x in range(P):
        assert (att.seats[x]["wins"], att.seats[x]["plies"]) == (row.results[x].wins, row.results[x].plies)
    return built, att


FAST_4P = ({"ask_void": "forbid"}, {"no_initial_four": True})
CASES = ([pytest.param(2, 4, r, id=f"2p-s4-{rid(r)}") for r in VARIANTS]
         + [pytest.param(3, 2, r, id=f"3p-s2-{rid(r)}") for r in VARIANTS]
         + [pytest.param(3, 3, r, id=f"3p-s3-{rid(r)}", marks=() if r == {"priority": "four-first"}
                         else pytest.mark.slow) for r in VARIANTS]
         + [pytest.param(4, 2, r, id=f"4p-s2-{rid(r)}", marks=() if r in FAST_4P else pytest.mark.slow)
            for r in VARIANTS])


@pytest.mark.parametrize("P, S, rules", CASES)
def test_go_fish_ranks_equal_the_whole_attractor_and_the_python_solver(P, S, rules, tmp_path, monkeypatch):
    built, att = assert_equal_to_reference(P, S, rules, tmp_path / "g", monkeypatch)
    if (P, S, rules) == (2, 4, {"after_yes": "again"}):
        assert att.seats[0]["wins"] and "first_move" in att.seats[0]  # (the start with a forced win)


SHAPE = fg.Shape.of(3, 3, 3, {"priority": "four-first"})  # (10 rounds)


def key_ranks(built, ranks: np.ndarray) -> dict:
    return {k: tuple(int(v) for v in ranks[i]) for k, i in dense_index(built).items()}


@pytest.fixture(scope="module")
def whole_3p(tmp_path_factory):
    built = bs.build(SHAPE, str(tmp_path_factory.mktemp("whole")), parts=3)
    return built, bs.attract(built)


@pytest.mark.parametrize("parts", [1, 2, 3, 7])
def test_the_number_of_parts_changes_no_rank(tmp_path, whole_3p, parts):
    ref_built, ref = whole_3p
    built = bs.build(SHAPE, str(tmp_path / "g"), parts=parts)
    att = bs.attract(built, partitioned=True)
    assert key_ranks(built, att.ranks.dense()) == key_ranks(ref_built, ref.ranks)
    assert att.seats == ref.seats and att.ranks.rounds == 10


def test_sampled_positions_resolved_by_the_python_solver_agree_with_the_partitioned_ranks(tmp_path):
    """bigsolve.crosscheck reads the partitioned ranks by dense id (part by part from the checkpoint)."""
    built = bs.build(fg.Shape.of(4, 4, 2, {"four": "off"}), str(tmp_path / "g"), parts=3)
    att = bs.attract(built, partitioned=True)
    assert isinstance(att.ranks, rg.Ranks)
    got = bs.crosscheck(built, att.ranks, samples=8, seed=5, max_positions=800, by_layer=True)
    assert got["compared"] >= 4 and got["wins_seen"] > 0 and got["disagreements"] == 0


# -- stopping and resuming ---------------------------------------------------------------------------------------
def test_a_run_stopped_by_a_round_budget_resumes_to_the_same_ranks(tmp_path, reference):
    folder = tmp_path / "r"
    with pytest.raises(rg.RetroStopped) as stop:
        run_synthetic(folder, parts=3, max_rounds=5)
    assert stop.value.reason == "limit" and stop.value.rounds == 5 and "5 rounds" in str(stop.value)
    with pytest.raises(rg.RetroStopped) as stop:
        run_synthetic(folder, parts=3, max_rounds=7)
    assert stop.value.rounds == 12
    ranks = run_synthetic(folder, parts=3)
    assert np.array_equal(by_position(ranks, SYNTH["n"], 3), reference)
    # the round files of past rounds are gone; a finished checkpoint is read back
    names = sorted(p.name for p in folder.glob("part*/*.npz"))
    assert not [n for n in names if n.startswith("msg")]
    assert len([n for n in names if n.startswith("state")]) <= 3
    again = run_synthetic(folder, parts=3, max_rounds=1)
    assert np.array_equal(again.dense(), ranks.dense())


def test_an_interrupted_or_failed_round_resumes_to_the_same_ranks(tmp_path, reference):
    calls = {"n": 0}

    def interrupting(tasks, done=None):
        out = []
        for fn, args in tasks:
            calls["n"] += 1
            if calls["n"] == 40:  # inside a round: some of its tasks done, others not
                raise KeyboardInterrupt
            out.append(fn(*args))
        return out

    folder = tmp_path / "r"
    with pytest.raises(rg.RetroStopped) as stop:
        run_synthetic(folder, parts=3, run=interrupting)
    assert stop.value.reason == "interrupted" and 1 <= stop.value.rounds

    def failing(tasks, done=None):
        if tasks and tasks[0][0] is rg.apply_task:
            raise OSError(28, "No space left on device")
        return [fn(*args) for fn, args in tasks]

    with pytest.raises(rg.RetroStopped) as stop:
        run_synthetic(folder, parts=3, run=failing)
    assert stop.value.reason == "failed" and "No space left" in str(stop.value)
    ranks = run_synthetic(folder, parts=3)
    assert np.array_equal(by_position(ranks, SYNTH["n"], 3), reference)


def test_go_fish_stopped_in_the_middle_of_the_rounds_resumes(tmp_path, whole_3p):
    _, ref = whole_3p
    built = bs.build(SHAPE, str(tmp_path / "g"), parts=3)
    with pytest.raises(bs.AttractorStopped) as stop:
        bs.attract(built, partitioned=True, max_rounds=4)
    assert isinstance(stop.value, bs.GraphStopped) and stop.value.reason == "limit" and stop.value.rounds == 4
    seen = []
    att = bs.attract(built, partitioned=True, progress=seen.append)
    assert [s["round"] for s in seen] == list(range(4, 10))
    assert np.array_equal(att.ranks.dense(), ref.ranks) and att.seats == ref.seats


def test_solve_with_the_partitioned_attractor_gives_the_same_answer(tmp_path):
    timing = ("build_seconds", "attractor_seconds")
    whole = bs.solve(2, {"after_yes": "again"}, str(tmp_path / "w"), parts=2)
    part = bs.solve(2, {"after_yes": "again"}, str(tmp_path / "p"), parts=2, attractor="partitioned",
                    keep_graph=False)
    assert {k: v for k, v in part.items() if k not in timing} == {k: v for k, v in whole.items() if k not in timing}
    assert part["seats"]["0"]["first_move"] and not (tmp_path / "p" / "attractor").exists()
    assert bs.solve(2, {"after_yes": "again"}, str(tmp_path / "p"), parts=2, attractor="partitioned") == part
    with pytest.raises(bs.GraphError, match="attractor must be"):
        bs.solve(2, {}, str(tmp_path / "x"), parts=2, attractor="sideways")


def test_the_command_takes_the_attractor(tmp_path):
    from quaternity_cp.gofish.cli import gofish

    def starts(*extra):
        args = ["starts", "--players", "2", "--suit-size", "4", "--rule", "after_yes=again", "--json", *extra]
        return CliRunner().invoke(gofish, args)

    rows = []
    for name in ("whole", "partitioned"):
        got = starts("--parts", "2", "--workers", "0", "--checkpoint", str(tmp_path / name), "--attractor", name)
        assert got.exit_code == 0, got.output
        row = json.loads(got.stdout)["starts"][0]
        rows.append({k: v for k, v in row.items() if k not in ("seconds", "build_seconds", "attractor_seconds",
                                                                "checkpoint")})
    assert rows[0] == rows[1] and rows[0]["winners"] == [0]
    got = starts("--attractor", "partitioned")
    assert got.exit_code == 2 and "--attractor goes with --checkpoint" in got.stderr


# -- refused checkpoints ---------------------------------------------------------------------------------------
@pytest.fixture
def stopped(tmp_path):
    """A synthetic checkpoint stopped after 6 rounds: (folder, its manifest)."""
    folder = tmp_path / "r"
    with pytest.raises(rg.RetroStopped):
        run_synthetic(folder, parts=3, max_rounds=6)
    return folder, json.loads((folder / "manifest.json").read_text())


def one_line(err: BaseException, *words: str) -> str:
    text = str(err)
    assert "\n" not in text and isinstance(err, QuaternityError)
    for word in words:
        assert word in text, (word, text)
    return text


def a_state(folder: Path, man: dict) -> tuple[int, str]:
    k = next(k for k, item in enumerate(man["state"]) if item is not None)
    return k, f"part{k:03d}/state{man['state'][k][0]:05d}.npz"


def test_a_damaged_round_file_is_refused_naming_it(stopped):
    folder, man = stopped
    _, rel = a_state(folder, man)
    path = folder / rel
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0x40
    path.write_bytes(bytes(blob))
    with pytest.raises(rg.RetroError) as err:
        run_synthetic(folder, parts=3)
    one_line(err.value, rel, "SHA-256")


def test_a_cut_short_or_missing_round_file_is_refused_before_any_work(stopped):
    folder, man = stopped
    rel = next(f"part{k:03d}/front{man['rounds']:05d}.npz" for k, e in enumerate(man["front"]) if e is not None)
    path = folder / rel
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(rg.RetroError) as err:
        run_synthetic(folder, parts=3)
    one_line(err.value, rel, "bytes where the manifest says")
    path.unlink()
    with pytest.raises(rg.RetroError) as err:
        run_synthetic(folder, parts=3)
    one_line(err.value, rel, "missing")


def sign_again(folder: Path, man: dict) -> None:
    body = {k: v for k, v in man.items() if k != "digest"}
    (folder / "manifest.json").write_text(json.dumps({**body, "digest": sign_json(body, rg.MANIFEST_PURPOSE)}))


def rewrite(path: Path, **changes) -> list:
    """The .npz at ``path`` with arrays changed, written again; its new [bytes, SHA-256]."""
    import hashlib

    with np.load(path) as data:
        arrays = {k: data[k].copy() for k in data.files}
    for name, fn in changes.items():
        fn(arrays[name])
    np.savez(path, **arrays)
    blob = path.read_bytes()
    return [len(blob), hashlib.sha256(blob).hexdigest()]


def test_a_round_file_edited_with_the_key_is_refused_by_its_range_checks(stopped):
    folder, man = stopped
    k, rel = a_state(folder, man)

    def bump(rank):
        rank[0, 0] = 999

    man["state"][k][1][:2] = rewrite(folder / rel, rank=bump)
    sign_again(folder, man)
    with pytest.raises(rg.RetroError) as err:
        run_synthetic(folder, parts=3)
    one_line(err.value, rel, "rank holds 999")


def test_an_edited_or_foreign_manifest_is_refused(stopped, tmp_path):
    folder, man = stopped
    text = (folder / "manifest.json").read_text()
    edited = dict(man, rounds=man["rounds"] + 1)
    (folder / "manifest.json").write_text(json.dumps(edited))
    with pytest.raises(rg.RetroError) as err:
        run_synthetic(folder, parts=3)
    one_line(err.value, "manifest.json", "damaged")
    (folder / "manifest.json").write_text(text)
    with pytest.raises(rg.RetroError) as err:  # another graph's checkpoint (another seed)
        run_synthetic(folder, seed=2, parts=3)
    one_line(err.value, "another graph")
    signed = {k: v for k, v in man.items() if k != "digest"}
    signed["ranked"] = -3
    sign_again(folder, signed)
    with pytest.raises(rg.RetroError) as err:
        run_synthetic(folder, parts=3)
    one_line(err.value, "ranked must be")


def test_a_damaged_attractor_file_of_a_go_fish_checkpoint_is_refused_by_the_command(tmp_path):
    from quaternity_cp.gofish.cli import gofish

    args = ["starts", "--players", "2", "--suit-size", "4", "--rule", "after_yes=again", "--parts", "2",
            "--workers", "0", "--json", "--checkpoint", str(tmp_path), "--attractor", "partitioned"]
    assert CliRunner().invoke(gofish, args).exit_code == 0
    start = tmp_path / "p2-s4-after_yes=again"
    (start / "result.json").unlink()
    man = json.loads((start / "attractor" / "manifest.json").read_text())
    root_part = json.loads((start / "manifest.json").read_text())["root"][0]
    rel = f"part{root_part:03d}/state{man['state'][root_part][0]:05d}.npz"
    path = start / "attractor" / rel
    blob = bytearray(path.read_bytes())
    blob[-1] ^= 1
    path.write_bytes(bytes(blob))
    got = CliRunner().invoke(gofish, args)
    assert got.exit_code == 2 and got.stdout == ""
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1 and rel in lines[0] and "SHA-256" in lines[0]


# -- bad graphs and arguments -----------------------------------------------------------------------------------
def bad_part(kind: str, k: int) -> rg.PartGraph:
    g = synthetic_part(1, 60, 2, 1, 0)
    if kind == "owner":
        return rg.PartGraph(**{**g.__dict__, "owner": np.full_like(g.owner, 5)})
    if kind == "degree":  # a position answered by more plies than it has
        return rg.PartGraph(**{**g.__dict__, "degree": np.ones_like(g.degree)})
    return rg.PartGraph(**{**g.__dict__, "parent": g.parent + 10_000})


@pytest.mark.parametrize("kind, words", [("owner", "owner holds 5"), ("degree", "not consistent"),
                                         ("parent", "not a position of the graph")])
def test_a_graph_handed_over_that_is_not_consistent_is_refused(tmp_path, kind, words):
    with pytest.raises(rg.RetroError) as err:
        rg.attract(str(tmp_path / kind), players=2, sizes=[60], identity={}, loaders=[(bad_part, (kind, 0))])
    one_line(err.value, words)


def test_arguments_out_of_range_are_refused(tmp_path):
    loaders = [(synthetic_part, (1, 60, 2, 1, 0))]
    for kw, words in [({"max_rounds": 0}, "max_rounds"), ({"players": 0}, "players"), ({"sizes": [-1]}, "sizes"),
                      ({"sizes": [30, 30]}, "loaders")]:
        args = {"players": 2, "sizes": [60], "identity": {}, "loaders": loaders, **kw}
        with pytest.raises(rg.RetroError) as err:
            rg.attract(str(tmp_path / "x"), **args)
        one_line(err.value, words)


def test_a_forced_win_longer_than_the_ranks_hold_is_refused(tmp_path, monkeypatch, reference):
    monkeypatch.setattr(rg, "MAX_RANK", 20)
    with pytest.raises(rg.RetroError) as err:
        run_synthetic(tmp_path / "r", parts=2)
    one_line(err.value, "longer than 20 plies")


# -- Dask ---------------------------------------------------------------------------------------------------------
def test_a_dask_run_equals_the_in_process_run(tmp_path, reference, whole_3p, monkeypatch):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") \
            as cluster, distributed.Client(cluster) as client:
        run = rg.dask_runner(client)
        ranks = run_synthetic(tmp_path / "r", parts=3, run=run)
        assert np.array_equal(by_position(ranks, SYNTH["n"], 3), reference)
        # each task told as it ends, in the order they end, the results still given in order
        told: list[tuple[int, int]] = []
        assert run([(pow, (2, 3)), (pow, (3, 2)), (pow, (2, 2))], lambda i, r: told.append((i, r))) == [8, 9, 4]
        assert sorted(told) == [(0, 8), (1, 9), (2, 4)]

        def refuse(i, r):  # (what the callback raises stops the list, as a task's failure does)
            told.append((i, r))
            raise KeyboardInterrupt

        told.clear()
        with pytest.raises(KeyboardInterrupt):
            run([(pow, (2, 3)), (pow, (3, 2))], refuse)
        assert len(told) == 1
        monkeypatch.setattr(rg, "RECORD_MIN", 0)  # (the workers are threads here: they see it too)
        seen: list[dict] = []
        ranks = run_synthetic(tmp_path / "told", parts=3, run=run, progress=seen.append)
        assert np.array_equal(by_position(ranks, SYNTH["n"], 3), reference)
        assert sorted(s["done"] for s in seen if s.get("task") == "prepare") == [1, 2, 3]
        for t in range(ranks.rounds):
            sends = [s for s in seen if s.get("task") == "send" and s["round"] == t]
            assert [s["done"] for s in sends] == list(range(1, len(sends) + 1)) and sends[-1]["of"] == len(sends)
        monkeypatch.undo()
        built = bs.build(SHAPE, str(tmp_path / "g"), parts=3, run=run)
        att = bs.attract(built, partitioned=True, run=run)
    _, ref = whole_3p
    assert np.array_equal(att.ranks.dense(), ref.ranks) and att.seats == ref.seats
    assert os.path.isdir(tmp_path / "g" / bs.ATTRACTOR_FOLDER)


# -- a part handed over sorted by child; the ids' width; the checkpoint's format ----------------------------------
def test_a_part_handed_over_sorted_by_child_gives_the_same_ranks(tmp_path, reference):
    n, parts = SYNTH["n"], 3
    part, _ = layout(n, parts)
    sizes = [int((part == k).sum()) for k in range(parts)]
    loaders = [(synthetic_part_sorted, (SYNTH["seed"], n, SYNTH["P"], parts, k)) for k in range(parts)]
    ranks = rg.attract(str(tmp_path), players=SYNTH["P"], sizes=sizes, identity={"synthetic": [1, n]},
                       loaders=loaders)
    assert np.array_equal(by_position(ranks, n, parts), reference)
    # written as handed over: the predecessor lists equal those the unsorted hand-over makes
    other = run_synthetic(tmp_path / "unsorted", parts=parts)
    for k in range(parts):
        a = np.load(tmp_path / f"part{k:03d}" / "preds.npz")
        b = np.load(tmp_path / "unsorted" / f"part{k:03d}" / "preds.npz")
        assert all(np.array_equal(a[x], b[x]) for x in ("start", "parent", "offset"))
        assert a["parent"].dtype == np.int32  # (ids of a small graph: 4 bytes)
    assert np.array_equal(by_position(other, n, parts), reference)


def bad_sorted(kind: str) -> rg.PartGraph:
    g = synthetic_part_sorted(1, 60, 2, 1, 0)
    assert g.start is not None
    start = g.start.copy()
    if kind == "falls":
        start[5], start[6] = start[6], start[5] - 1
    elif kind == "end":
        start[-1] -= 1
    else:
        start = start[:-1]
    return rg.PartGraph(**{**g.__dict__, "start": start})


@pytest.mark.parametrize("kind", ["falls", "end", "short"])
def test_a_part_handed_over_with_bad_bounds_is_refused(tmp_path, kind):
    with pytest.raises(rg.RetroError) as err:
        rg.attract(str(tmp_path / kind), players=2, sizes=[60], identity={}, loaders=[(bad_sorted, (kind,))])
    one_line(err.value, "start must rise")


def test_the_ids_take_4_bytes_while_every_global_id_fits():
    assert rg.id_dtype([10, 20]) == np.int32
    assert rg.id_dtype([]) == np.int32
    assert rg.id_dtype([2**30 - 2, 1]) == np.int32  # the largest id: (2**30 - 3) * 2 + 1 < 2**31
    assert rg.id_dtype([2**30, 1]) == np.int64
    assert rg.id_dtype([2**31]) == np.int64


def test_a_preds_file_of_the_other_width_is_refused(tmp_path):
    with pytest.raises(rg.RetroStopped):
        run_synthetic(tmp_path, n=60, P=2, parts=1, max_rounds=1)
    man = json.loads((tmp_path / "manifest.json").read_text())
    path = tmp_path / "part000" / "preds.npz"
    got = dict(np.load(path))
    np.savez(path, start=got["start"], parent=got["parent"].astype(np.int64), offset=got["offset"])
    size, digest = partfiles.fingerprint(str(path))
    signed = {k: v for k, v in man.items() if k != "digest"}
    signed["graph"][0][1] = [size, digest, *signed["graph"][0][1][2:]]
    sign_again(tmp_path, signed)
    with pytest.raises(rg.RetroError) as err:
        run_synthetic(tmp_path, n=60, P=2, parts=1)
    one_line(err.value, "preds")


def test_a_checkpoint_of_the_earlier_format_is_refused_with_what_to_do(tmp_path):
    with pytest.raises(rg.RetroStopped):
        run_synthetic(tmp_path, n=60, P=2, parts=1, max_rounds=1)
    man = json.loads((tmp_path / "manifest.json").read_text())
    signed = {k: v for k, v in man.items() if k != "digest"}
    signed["format"] = "quaternity-retrograde-1"
    sign_again(tmp_path, signed)
    with pytest.raises(rg.RetroError) as err:
        run_synthetic(tmp_path, n=60, P=2, parts=1)
    one_line(err.value, "earlier version", "remove the folder")


# -- messages written as they are gathered --------------------------------------------------------------------------
def test_messages_flushed_in_many_files_give_the_same_ranks_and_are_cleaned(tmp_path, reference, monkeypatch):
    monkeypatch.setattr(rg, "FLUSH", 3)  # (a file whenever 3 messages are held,
    monkeypatch.setattr(rg, "FLUSH_SHARE", 10**9)  # however many edges the part has,
    monkeypatch.setattr(rg, "CHUNK", 2)  # checked after every 2 frontier pairs or messages)
    monkeypatch.setattr(rg, "CHUNK_SHARE", 10**9)
    seen: list[str] = []

    def watching(tasks, done=None):
        out = [fn(*args) for fn, args in tasks]
        seen.extend(p.name for p in tmp_path.glob("r/part*/msg*.npz"))
        return out

    ranks = run_synthetic(tmp_path / "r", parts=3, run=watching)
    assert np.array_equal(by_position(ranks, SYNTH["n"], 3), reference)
    assert any(name.count("-") == 2 for name in seen)  # (later flushes of a round: msgRRRRR-KKK-FFFF.npz)
    assert not list(tmp_path.glob("r/part*/msg*"))  # (a round's messages go once it is recorded)


def test_a_round_stopped_after_its_flushes_resumes_and_leaves_no_messages(tmp_path, reference, monkeypatch):
    monkeypatch.setattr(rg, "FLUSH", 3)
    monkeypatch.setattr(rg, "FLUSH_SHARE", 10**9)
    monkeypatch.setattr(rg, "CHUNK", 2)
    monkeypatch.setattr(rg, "CHUNK_SHARE", 10**9)

    folder = tmp_path / "r"

    def stopping(tasks, done=None):  # (the first round whose sends flushed more than once: stopped before its applies)
        if tasks and tasks[0][0] is rg.apply_task and list(folder.glob("part*/msg*-*-*.npz")):
            raise KeyboardInterrupt
        return [fn(*args) for fn, args in tasks]

    with pytest.raises(rg.RetroStopped):
        run_synthetic(folder, parts=3, run=stopping)
    assert [p for p in folder.glob("part*/msg*-*-*.npz")]  # (left by the stopped round)
    ranks = run_synthetic(folder, parts=3)
    assert np.array_equal(by_position(ranks, SYNTH["n"], 3), reference)
    assert not list(folder.glob("part*/msg*"))


def test_more_messages_to_a_pair_than_any_degree_are_refused(tmp_path):
    folder = tmp_path / "x"
    with pytest.raises(rg.RetroStopped):
        run_synthetic(folder, n=60, P=2, parts=1, max_rounds=1)
    man = json.loads((folder / "manifest.json").read_text())
    partfiles.save_npz(str(folder / "part000" / "msg00001-000.npz"), 0, 200, key=np.zeros(200, np.int64))
    entry = partfiles.fingerprint(str(folder / "part000" / "msg00001-000.npz"))
    with pytest.raises(rg.RetroError) as err:
        rg.apply_task(str(folder), 2, [60], 0, 1, man["graph"][0][0], man["state"][0],
                      {"part000/msg00001-000.npz": [entry[0], entry[1], 0, 200]})
    one_line(err.value, "more plies answered than it has")


def test_a_half_written_round_file_of_a_stopped_run_is_removed(tmp_path, reference):
    folder = tmp_path / "r"
    with pytest.raises(rg.RetroStopped):
        run_synthetic(folder, parts=3, max_rounds=2)
    left = [folder / "part001" / "msg00002-000.npz.tmp77-140213.npz", folder / "part000" / "state00002.npz.tmp77.npz"]
    for path in left:
        path.write_bytes(b"half")
    ranks = run_synthetic(folder, parts=3)
    assert np.array_equal(by_position(ranks, SYNTH["n"], 3), reference)
    assert not any(path.exists() for path in left)


# -- a send task's spans of frontier pairs ----------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=60), st.integers(1, 50))
def test_message_spans_cover_every_pair_in_order_within_the_bound(lens, per):
    spans = rg.message_spans(np.asarray(lens, np.int64), per)
    assert [a for a, _ in spans] == ([0] + [b for _, b in spans[:-1]] if lens else [])  # (consecutive, from 0)
    assert (spans[-1][1] if spans else 0) == len(lens)
    for a, b in spans:
        assert b > a
        assert sum(lens[a:b]) <= per or b == a + 1  # (a pair alone may have more predecessors than the bound)
        if b < len(lens):
            assert sum(lens[a:b + 1]) > per  # (as many pairs as fit: no span cut short)


# -- a round stopped part way goes on from its unfinished tasks ------------------------------------------------------
def _round_stopper(kind: str, round_: int, after: int, log: list[tuple[str, int, int]]):
    """A runner that logs each round task it runs (kind, part, round) and raises KeyboardInterrupt before the
    ``kind`` task of ``round_`` that would come after ``after`` such tasks have finished."""
    from task_stops import stopping_runner

    return stopping_runner(kind, round_, after, log,
                           lambda name, args: None if name == "prepare" else (args[3], args[4]))


def _round_records(folder) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.glob("part*/done*.json"))


@pytest.mark.parametrize("kind, after", [("send", 1), ("apply", 1)])
def test_a_round_stopped_part_way_goes_on_from_its_unfinished_tasks(tmp_path, reference, monkeypatch, kind, after):
    """Ctrl-C after some of a round's tasks finished: they are recorded (their files kept through the next run's
    cleaning), the next run does the others only, and every rank is the plain analysis's."""
    monkeypatch.setattr(rg, "RECORD_MIN", 0)  # (every task records: the synthetic parts are small)
    folder = tmp_path / "r"
    log: list[tuple[str, int, int]] = []
    with pytest.raises(rg.RetroStopped) as stop:
        run_synthetic(folder, parts=3, run=_round_stopper(kind, 5, after, log))
    assert stop.value.reason == "interrupted" and stop.value.rounds == 5
    finished = [x for x in log if x[2] == 5]
    assert _round_records(folder) == sorted(f"part{k:03d}/done00005-{n}.json" for n, k, _ in finished)
    again: list[tuple[str, int, int]] = []
    ranks = run_synthetic(folder, parts=3, run=_round_stopper("none", -1, 0, again))
    ran = [x for x in again if x[2] == 5]
    assert ran and not set(ran) & set(finished)  # (the finished tasks were not run again)
    assert np.array_equal(by_position(ranks, SYNTH["n"], 3), reference)
    assert not _round_records(folder)
    # a part smaller than RECORD_MIN records nothing
    monkeypatch.setattr(rg, "RECORD_MIN", 10**9)
    with pytest.raises(rg.RetroStopped):
        run_synthetic(tmp_path / "small", parts=3, run=_round_stopper(kind, 5, after, []))
    assert not _round_records(tmp_path / "small")


def test_a_round_s_record_that_is_not_taken_runs_its_task_again_and_the_time_limit_is_checked_inside(
        tmp_path, reference, monkeypatch):
    from quaternity_cp.budget import Limits, Stopped

    monkeypatch.setattr(rg, "RECORD_MIN", 0)
    folder = tmp_path / "r"
    log: list[tuple[str, int, int]] = []
    with pytest.raises(rg.RetroStopped):
        run_synthetic(folder, parts=3, run=_round_stopper("apply", 3, 0, log))
    sends = [x for x in log if x[:1] == ("send",) and x[2] == 3]
    assert len(sends) >= 2
    first, second = (folder / f"part{k:03d}" / "done00003-send.json" for _, k, _ in sends[:2])
    data = json.loads(first.read_text())
    data["result"][0] += 1  # (edited: its MAC no longer matches)
    first.write_text(json.dumps(data))
    second.write_text("[")  # (damaged)
    again: list[tuple[str, int, int]] = []
    ranks = run_synthetic(folder, parts=3, run=_round_stopper("none", -1, 0, again))
    assert {k for n, k, t in again if (n, t) == ("send", 3)} == {k for _, k, _ in sends[:2]}
    assert np.array_equal(by_position(ranks, SYNTH["n"], 3), reference)
    # the deadline, as the tasks see it, passed at the fourth check: stopped at the time limit inside a round,
    # the tasks finished before recorded, and the next run goes on to the same ranks
    checks = [0]

    def late(deadline):
        checks[0] += 1
        if checks[0] >= 4:
            raise Stopped("time")

    monkeypatch.setattr(rg, "check_deadline", late)
    folder = tmp_path / "t"
    with pytest.raises(rg.RetroStopped) as stop:
        run_synthetic(folder, parts=3, limits=Limits(max_seconds=10**6))
    assert stop.value.reason == "time"
    monkeypatch.undo()
    monkeypatch.setattr(rg, "RECORD_MIN", 0)
    ranks = run_synthetic(folder, parts=3)
    assert np.array_equal(by_position(ranks, SYNTH["n"], 3), reference)


def test_a_big_round_tells_of_each_task_as_it_ends(tmp_path, reference, monkeypatch):
    """``progress`` gets a ``task`` dict as each task of a part of at least RECORD_MIN positions ends (with
    RECORD_MIN 0: every part's), counting the parts done and the messages or ranks so far; the round's own dict
    follows, and what its tasks added up to is what the round says."""
    seen: list[dict] = []
    run_synthetic(tmp_path / "quiet", parts=3, progress=seen.append)
    assert seen and all("task" not in s for s in seen)  # (the synthetic graph's parts are small: rounds only)
    monkeypatch.setattr(rg, "RECORD_MIN", 0)
    seen.clear()
    ranks = run_synthetic(tmp_path / "r", parts=3, progress=seen.append)
    assert np.array_equal(by_position(ranks, SYNTH["n"], 3), reference)
    assert [(s["task"], s["done"], s["of"]) for s in seen[:3]] == [("prepare", d, 3) for d in (1, 2, 3)]
    rounds = [s for s in seen if "task" not in s]
    assert [s["round"] for s in rounds] == list(range(len(rounds))) and len(rounds) == ranks.rounds
    for s in rounds:
        tasks = [x for x in seen if x.get("task") in ("send", "apply") and x["round"] == s["round"]]
        sends = [x for x in tasks if x["task"] == "send"]
        applies = [x for x in tasks if x["task"] == "apply"]
        assert tasks == sends + applies and seen.index(tasks[-1]) < seen.index(s)
        assert [x["done"] for x in sends] == list(range(1, len(sends) + 1)) and sends[-1]["of"] == len(sends)
        assert sends[-1]["messages"] == s["messages"]
        if applies:
            assert [x["done"] for x in applies] == list(range(1, len(applies) + 1))
            assert applies[-1]["ranked"] == s["ranked"]
        else:
            assert s["ranked"] == 0


def _preparing(log: list[int], stop_after: int | None = None):
    """A runner that logs the parts it prepares and raises KeyboardInterrupt before the prepare task that would
    come after ``stop_after`` of them."""
    def run(tasks, done=None):
        out = []
        for i, (fn, args) in enumerate(tasks):
            if fn is rg.prepare_task and stop_after is not None and len(log) == stop_after:
                raise KeyboardInterrupt
            out.append(fn(*args))
            if fn is rg.prepare_task:
                log.append(args[3])
            if done is not None:
                done(i, out[-1])
        return out
    return run


def test_a_preparation_stopped_part_way_goes_on_from_its_unfinished_parts(tmp_path, reference, monkeypatch):
    """Ctrl-C or the time limit while the parts are loaded (before the first round): the parts prepared are
    recorded, the next run prepares the others only; a record of another graph, edited or damaged is not taken;
    the records go once the manifest is written."""
    from quaternity_cp.budget import Limits, Stopped

    monkeypatch.setattr(rg, "RECORD_MIN", 0)
    folder = tmp_path / "r"
    log: list[int] = []
    with pytest.raises(rg.RetroStopped) as stop:
        run_synthetic(folder, parts=3, run=_preparing(log, 1))
    assert stop.value.reason == "interrupted" and stop.value.rounds == 0 and log == [0]
    assert _round_records(folder) == ["part000/done-prepare.json"] and not (folder / "manifest.json").exists()
    again: list[int] = []
    ranks = run_synthetic(folder, parts=3, run=_preparing(again))
    assert again == [1, 2] and np.array_equal(by_position(ranks, SYNTH["n"], 3), reference)
    assert not _round_records(folder)
    # another graph's records (another identity), an edited one and a damaged one: not taken
    other = tmp_path / "o"
    with pytest.raises(rg.RetroStopped):
        run_synthetic(other, seed=2, parts=3, run=_preparing([], 2))  # (seed 2's parts 0 and 1 recorded)
    assert _round_records(other) == ["part000/done-prepare.json", "part001/done-prepare.json"]
    log = []
    with pytest.raises(rg.RetroStopped):
        run_synthetic(other, parts=3, run=_preparing(log, 2))  # (seed 1: seed 2's records are not this graph's)
    assert log == [0, 1]
    record = other / rg.record_rel("prepare", 0)
    data = json.loads(record.read_text())
    data["result"][0][3] += 1  # (edited: its MAC no longer matches)
    record.write_text(json.dumps(data))
    (other / rg.record_rel("prepare", 1)).write_text("{")  # (damaged)
    log = []
    ranks = run_synthetic(other, parts=3, run=_preparing(log))
    assert log == [0, 1, 2] and np.array_equal(by_position(ranks, SYNTH["n"], 3), reference)
    assert not _round_records(other)
    # the time limit is checked inside a part's preparation: past it, the part's files are not written
    checks = [0]

    def late(deadline):
        checks[0] += 1
        if checks[0] >= 4:  # (part 0: before and after its load and before its files; part 1's first check)
            raise Stopped("time")

    monkeypatch.setattr(rg, "check_deadline", late)
    timed = tmp_path / "t"
    log = []
    with pytest.raises(rg.RetroStopped) as stop:
        run_synthetic(timed, parts=3, run=_preparing(log), limits=Limits(max_seconds=10**6))
    assert stop.value.reason == "time" and stop.value.rounds == 0 and log == [0]
    assert _round_records(timed) == ["part000/done-prepare.json"] and not list(timed.glob("part001/*"))
    monkeypatch.undo()
    monkeypatch.setattr(rg, "RECORD_MIN", 0)
    log = []
    ranks = run_synthetic(timed, parts=3, run=_preparing(log))
    assert log == [1, 2] and np.array_equal(by_position(ranks, SYNTH["n"], 3), reference)

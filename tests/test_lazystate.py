"""The lazy win solve kept in a folder (quaternity_cp.lazystate, ``solve --packed --checkpoint``) against the
uninterrupted solve:

* stopped between every two batches (expansion and widening alike, every round), saved and read back each time,
  the solve ends as the solve that was never stopped: the verdict, the plies, the positions, moves, expansions,
  rounds and every rank (the toy game of tests/test_partitioned.py under random orders of the replies, and
  Quaternity's small starts of every preset, keys as codes and as they are);
* stopped by its position limit and gone on with a larger one; a save cut short (the old state is kept);
* every damaged or forged file refused with one line naming it (the attacker has the user's key in the forged
  cases: what the strict reader checks past the digests);
* the command: exit codes, the folders of the other solver and of other games refused, Ctrl-C (130), SIGTERM
  (143) and SIGKILL after a save, each followed by the same command going on to the answer of a run never
  stopped.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from quaternity_cp import lazystate, lazywin, partfiles
from quaternity_cp.budget import Limits
from quaternity_cp.digest import sign_json
from quaternity_cp.quartets.bigsolve import packed_of
from quaternity_cp.quartets.rules import Rules

from test_lazywin import OrderedToy
from test_partitioned import TOP, Toy

ROOT = Path(__file__).resolve().parent.parent
PRESETS = ("quaternity", "quaternity-seat", "blind", "pythagoras")


class Stop(Exception):
    """Raised by the keeper below once it has saved (a stop between two batches, as Ctrl-C or a limit)."""


def _stopping_everywhere(folder: str, packed, player: int, batch: int, compress: bool = True,
                         most_runs: int = 10_000):
    """Solve, saving and stopping before every batch (the keeper called with every 0 seconds raises once it has
    saved), each run a new LazyWin read back from the folder, until an answer. Returns (result, lazy, runs)."""
    for runs in range(1, most_runs + 1):
        lazy, data = lazystate.open_lazy(folder, packed, player, batch=batch, compress=compress)
        assert (data is None) == (runs == 1)
        first = [True]

        def keeper(w):
            if first[0]:  # (each run does one batch at least: the state it read back goes on)
                first[0] = False
                return
            lazystate.save(w, folder)
            raise Stop

        lazy.keeper, lazy.keep_every = keeper, 0.0
        try:
            res = lazy.solve()
        except Stop:
            lazystate.close(lazy)  # (as the process of a run stopped ends: the next run may take the folder)
            continue
        lazystate.save(lazy, folder)
        lazystate.close(lazy)
        return res, lazy, runs
    raise AssertionError("no answer")


def _same(a, b):
    ra, la = a
    rb, lb = b
    assert (ra.verdict, ra.plies, ra.positions, ra.edges, ra.expanded, ra.rounds) == \
        (rb.verdict, rb.plies, rb.positions, rb.edges, rb.expanded, rb.rounds)
    assert np.array_equal(la.rank[:la.n], lb.rank[:lb.n])
    assert np.array_equal(la.es[:la.m], lb.es[:lb.m]) and np.array_equal(la.ed[:la.m], lb.ed[:lb.m])


@settings(max_examples=25, deadline=None)
@given(pile=st.integers(3, TOP), seed=st.integers(0, 10**6), seat=st.integers(0, 1))
def test_the_toy_stopped_before_every_batch_ends_as_the_solve_never_stopped(tmp_path_factory, pile, seed, seat):
    folder = str(tmp_path_factory.mktemp("lazy"))
    toy = OrderedToy(pile, seed=seed)
    whole = lazywin.solve_win(toy, seat, batch=2)
    res, lazy, runs = _stopping_everywhere(folder, toy, seat, batch=2)
    _same(whole, (res, lazy))
    assert runs >= res.expanded // 2  # (stopped before each batch: one run a batch of two)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("start", [(3, 3, 3), (4, 4, 2)])
def test_quaternity_stopped_before_every_batch_ends_as_the_solve_never_stopped(tmp_path, preset, start):
    packed = packed_of(*start, Rules.preset(preset), "win", lazy=True)
    whole = lazywin.solve_win(packed, 0, batch=40)
    res, lazy, runs = _stopping_everywhere(str(tmp_path), packed, 0, batch=40)
    _same(whole, (res, lazy))
    assert runs > 5


def test_widening_stops_are_kept_too(tmp_path):
    """Not vacuous: some state saved on the way holds the opponent nodes met (a stop inside a round's widening),
    and the solve takes several rounds."""
    packed = packed_of(4, 4, 2, Rules.preset("blind"), "win", lazy=True)
    seen = []
    real_save = lazystate.save

    def spy(w, folder, **kw):
        seen.append(w.meets is not None and w.meet_at < len(w.meets))
        return real_save(w, folder, **kw)

    lazystate.save, saved = spy, lazystate.save
    try:
        res, _, _ = _stopping_everywhere(str(tmp_path), packed, 0, batch=5)
    finally:
        lazystate.save = saved
    assert res.rounds > 2 and any(seen)


def test_keys_kept_as_they_are_go_on_too(tmp_path):
    packed = packed_of(3, 3, 3, Rules.preset("quaternity"), "win", lazy=True)
    whole = lazywin.solve_win(packed, 1, batch=60, compress=False)
    res, lazy, _ = _stopping_everywhere(str(tmp_path), packed, 1, batch=60, compress=False)
    _same(whole, (res, lazy))


def test_a_position_limit_then_a_larger_one_ends_as_one_run(tmp_path):
    packed = packed_of(4, 4, 2, Rules.preset("blind"), "win", lazy=True)
    whole = lazywin.solve_win(packed, 0, batch=30)
    limit = 40
    while True:
        lazy, _ = lazystate.open_lazy(str(tmp_path), packed, 0, batch=30, expect=limit)
        res = lazy.solve(Limits(max_positions=limit))
        lazystate.save(lazy, str(tmp_path))
        lazystate.close(lazy)
        if res.verdict is not None:
            break
        assert res.stopped == "limit" and res.positions <= limit
        limit += 40
    _same(whole, (res, lazy))


def test_a_save_cut_short_keeps_the_state_before(tmp_path, monkeypatch):
    folder = str(tmp_path)
    packed = packed_of(4, 4, 2, Rules.preset("blind"), "win", lazy=True)
    whole = lazywin.solve_win(packed, 0, batch=30)
    lazy, _ = lazystate.open_lazy(folder, packed, 0, batch=30)
    lazy.solve(Limits(max_positions=60))
    lazystate.save(lazy, folder)
    lazystate.close(lazy)
    before = sorted(os.listdir(folder))
    lazy2, _ = lazystate.open_lazy(folder, packed, 0, batch=30)
    lazy2.solve(Limits(max_positions=150))
    calls = [0]
    real = partfiles.save_npz

    def failing(path, *a, **kw):
        calls[0] += 1
        if calls[0] == 3:  # (the third file of the new generation: a disk full)
            raise OSError(28, "No space left on device")
        return real(path, *a, **kw)

    monkeypatch.setattr(lazystate, "save_npz", failing)
    with pytest.raises(lazystate.LazyStateError, match="could not be saved.*No space left"):
        lazystate.save(lazy2, folder)
    monkeypatch.setattr(lazystate, "save_npz", real)
    assert sorted(os.listdir(folder)) == before  # (the new generation's first files are removed again)
    lazystate.close(lazy2)
    again, data = lazystate.open_lazy(folder, packed, 0, batch=30)
    assert data is not None and again.n - lazywin.ROOT == lazy.n - lazywin.ROOT  # (the state before)
    res = again.solve()
    lazystate.save(again, folder)
    assert sorted(n for n in os.listdir(folder) if n.endswith(".npz")) == \
        sorted(f"{k}-{data['generation'] + 1}.npz" for k in ("nodes", "edges", "keys", "words"))
    _same(whole, (res, again))


# -- damaged and forged folders ------------------------------------------------------------------------------------
def _kept(tmp_path, limit=120):
    folder = str(tmp_path / "state")
    packed = packed_of(4, 4, 2, Rules.preset("blind"), "win", lazy=True)
    lazy, _ = lazystate.open_lazy(folder, packed, 0, batch=30)
    lazy.solve(Limits(max_positions=limit))
    lazystate.save(lazy, folder)
    lazystate.close(lazy)
    return folder, packed


def _refused(folder, packed, *words, player=0):
    with pytest.raises(lazystate.LazyStateError) as err:
        lazystate.open_lazy(folder, packed, player)
    msg = str(err.value)
    assert "\n" not in msg and all(w in msg for w in words), msg
    return msg


def _manifest(folder):
    with open(os.path.join(folder, "lazy.json")) as fh:
        return json.load(fh)


def _sign(folder, body, packed):
    """A manifest re-signed with the user's key (an attacker who has it, or a bug of this program's)."""
    body = {k: v for k, v in body.items() if k != "digest"}
    text = json.dumps({**body, "digest": sign_json(body, f"{packed.name}-lazy-manifest")})
    with open(os.path.join(folder, "lazy.json"), "w") as fh:
        fh.write(text)


@pytest.mark.parametrize("kind", ["nodes", "edges", "keys", "words"])
def test_a_changed_byte_of_any_file_is_refused_naming_it(tmp_path, kind):
    folder, packed = _kept(tmp_path)
    name = next(n for n in os.listdir(folder) if n.startswith(kind + "-"))
    path = os.path.join(folder, name)
    data = bytearray(open(path, "rb").read())
    data[len(data) // 2] ^= 0x40
    open(path, "wb").write(bytes(data))
    _refused(folder, packed, name, "SHA-256")


@pytest.mark.parametrize("how", ["cut", "missing", "link"])
def test_a_file_cut_short_missing_or_a_link_is_refused_before_reading(tmp_path, how):
    folder, packed = _kept(tmp_path)
    name = next(n for n in os.listdir(folder) if n.startswith("edges-"))
    path = os.path.join(folder, name)
    if how == "cut":
        os.truncate(path, os.path.getsize(path) - 10)
        _refused(folder, packed, name, "bytes where the manifest says")
    elif how == "missing":
        os.unlink(path)
        _refused(folder, packed, name, "missing")
    else:
        os.rename(path, path + ".real")
        os.symlink(path + ".real", path)
        _refused(folder, packed, name, "not a regular file")


def test_an_edited_manifest_and_other_games_and_seats_are_refused(tmp_path):
    folder, packed = _kept(tmp_path)
    text = open(os.path.join(folder, "lazy.json")).read()
    open(os.path.join(folder, "lazy.json"), "w").write(text.replace('"expanded":', '"expanded":1'))
    _refused(folder, packed, "lazy.json", "keyed digest")
    folder, packed = _kept(tmp_path / "b")
    _refused(folder, packed, "seat 0", "not seat 1", player=1)
    _refused(folder, packed_of(4, 4, 2, Rules.preset("quaternity"), "win", lazy=True), "rules blind there",
             "quaternity asked")
    _refused(folder, packed_of(4, 6, 2, Rules.preset("blind"), "win", lazy=True), "sets 4 there, 6 asked")
    _refused(folder, Toy(5), "another game or solver")
    open(os.path.join(folder, "lazy.json"), "w").write("{not json")
    _refused(folder, packed, "lazy.json", "not a readable")


def test_one_run_at_a_time_goes_on_from_a_folder(tmp_path):
    folder, packed = _kept(tmp_path)
    first, _ = lazystate.open_lazy(folder, packed, 0)
    _refused(folder, packed, "another run is going on from this state")
    lazystate.close(first)
    second, data = lazystate.open_lazy(folder, packed, 0)
    assert data is not None
    del second  # (collected: its lock goes with it)
    third, _ = lazystate.open_lazy(folder, packed, 0)
    lazystate.close(third)


def test_a_failed_save_on_the_way_is_told_and_the_solve_goes_on(tmp_path, monkeypatch):
    folder = str(tmp_path / "ck")
    packed = packed_of(4, 4, 2, Rules.preset("blind"), "win", lazy=True)
    whole = lazywin.solve_win(packed, 0, batch=30)
    lazy, _ = lazystate.open_lazy(folder, packed, 0, batch=30)
    told = []
    real = partfiles.save_npz
    monkeypatch.setattr(lazystate, "save_npz", lambda *a, **k: (_ for _ in ()).throw(OSError(28, "No space")))
    lazystate.keep(lazy, folder, 0.0, on_error=told.append)
    res = lazy.solve()
    assert told and all("could not be saved" in t and "No space" in t for t in told)
    monkeypatch.setattr(lazystate, "save_npz", real)
    _same(whole, (res, lazy))
    assert sorted(os.listdir(folder)) == [lazystate.LOCK]  # (nothing half written left)
    lazystate.close(lazy)


def test_folders_that_are_not_this_solve_s_are_refused(tmp_path):
    packed = packed_of(4, 4, 2, Rules.preset("blind"), "win", lazy=True)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    _refused(str(tmp_path / "other"), packed, "holds other files", "notes.txt")
    (tmp_path / "part").mkdir()
    (tmp_path / "part" / "manifest.json").write_text("{}")
    _refused(str(tmp_path / "part"), packed, "partitioned solver's checkpoint")
    (tmp_path / "file").write_text("x")
    _refused(str(tmp_path / "file"), packed, "not a folder")
    assert (tmp_path / "other" / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("field, value, words", [
    ("nodes", 10**12, "nodes must be"),
    ("cur", [5, 10**9], "cur must be a range"),
    ("todo", [[9, 3]], "todo must be a range"),
    ("todo", "all", "todo must be a list"),
    ("meet_at", 7, "meet_at must be 0"),
    ("rate", 0.5, "rate must be"),
    ("rate", "fast", "rate must be"),
    ("begun", False, "begun must be true"),
    ("stride", 0, "stride must be"),
    ("files", {}, "files must list"),
    ("layout", 99, "another version"),
])
def test_forged_manifest_fields_are_refused(tmp_path, field, value, words):
    folder, packed = _kept(tmp_path)
    body = _manifest(folder)
    body[field] = value
    _sign(folder, body, packed)
    _refused(folder, packed, *words.split("*"))


def test_a_forged_count_that_the_files_cannot_hold_is_refused_before_allocating(tmp_path):
    folder, packed = _kept(tmp_path)
    body = _manifest(folder)
    body["edges"] = body["edges"] * 1000
    _sign(folder, body, packed)
    _refused(folder, packed, "edges-", "cannot hold")


def _forge_array(folder, packed, kind, **change):
    """Rewrite the part file ``kind`` with arrays changed (``change``: name -> function of the array), its entry
    and the manifest re-signed: only the strict reader's own checks stand in the way."""
    body = _manifest(folder)
    name = next(n for n in body["files"] if n.startswith(kind + "-"))
    spec = lazystate._specs(body["nodes"], body["edges"], packed.width, body["stride"], body["used"],
                            body["chunk_cols"], body["meets"], body["chunk"])[kind]
    path = os.path.join(folder, name)
    arrays = partfiles.read_npz(path, body["files"][name], spec, ValueError)
    arrays = {k: np.array(v) for k, v in arrays.items()}
    for k, fn in change.items():
        arrays[k] = fn(arrays[k])
    body["files"][name] = partfiles.save_npz(path, body["files"][name][2], body["files"][name][3], **arrays)
    _sign(folder, body, packed)
    return name


def _set(i, v):
    def fn(a):
        a.reshape(-1)[i] = v
        return a
    return fn


@pytest.mark.parametrize("kind, array, at, value, words", [
    ("nodes", "seats", 3, 9, "seats[3] holds 9"),
    ("nodes", "mine", 4, 7, "mine[4] holds 7"),
    ("nodes", "nth", 5, 30000, "nth[5] holds 30000"),
    ("nodes", "total", 6, -1, "total[6] holds -1"),
    ("edges", "es", 2, 0, "es[2] holds 0"),
    ("edges", "ed", 7, 10**6, "ed[7] holds 1000000"),
    ("words", "bits", 0, 5, "word 0 has the width 5"),
    ("words", "counts", 0, 10**6, "word 0 counts 1000000"),
    ("words", "chunks", 0, 99, "chunks that were not saved"),
])
def test_forged_arrays_out_of_range_are_refused(tmp_path, kind, array, at, value, words):
    folder, packed = _kept(tmp_path)
    name = _forge_array(folder, packed, kind, **{array: _set(at, value)})
    _refused(folder, packed, name, words)


def test_a_forged_key_row_with_a_code_no_dictionary_holds_is_refused(tmp_path):
    folder, packed = _kept(tmp_path)
    name = _forge_array(folder, packed, "keys", rows=_set(0, np.uint64(2**64 - 1)))
    _refused(folder, packed, name, "row 0 holds a code that no dictionary holds")


# -- the command ------------------------------------------------------------------------------------------------
def _cli(*args):
    from cli.main import main

    return CliRunner().invoke(main, list(args))


def _answer(out: str) -> dict:
    data = json.loads(out[out.index("{"):out.rindex("}") + 1])
    return {k: data[k] for k in ("verdict", "plies", "positions", "expanded", "edges", "rounds")}


def test_the_command_goes_on_from_its_folder_to_the_answer_of_one_run(tmp_path):
    folder = str(tmp_path / "ck")
    base = ["solve", "--start", "4", "4", "2", "--rules", "blind", "--packed", "--json"]
    whole = _answer(_cli(*base).output)
    r = _cli(*base, "--checkpoint", folder, "--max-positions", "100")
    assert r.exit_code == 0, r.output
    first = json.loads(r.output)
    assert first["verdict"] == "unproven" and first["status"] == "limit" and first["runs"] == 1
    assert first["checkpoint"] == folder and first["saves"] >= 1 and first["saved_bytes"] > 0
    r = _cli(*base, "--checkpoint", folder)
    assert r.exit_code == 0, r.output
    second = json.loads(r.output)
    assert _answer(r.output) == whole and second["runs"] == 2 and second["resumed_positions"] == first["positions"]
    r = _cli(*base, "--checkpoint", folder)  # (the answer again, from the state: nothing rewritten)
    assert _answer(r.output) == whole and json.loads(r.output)["saved_bytes"] == 0
    r = _cli("solve", "--start", "4", "4", "2", "--rules", "blind", "--packed", "--checkpoint", folder)
    assert r.exit_code == 0 and "State: " + folder in r.output and "run 4" in r.output, r.output


def test_a_state_that_cannot_be_saved_still_prints_the_answer_then_exit_2(tmp_path, monkeypatch):
    folder = str(tmp_path / "ck")
    base = ["solve", "--start", "4", "4", "2", "--rules", "blind", "--packed", "--json"]
    whole = _answer(_cli(*base).output)
    monkeypatch.setattr(lazystate, "save_npz", lambda *a, **k: (_ for _ in ()).throw(OSError(28, "No space")))
    r = _cli(*base, "--checkpoint", folder, "--save-every", "0")
    assert r.exit_code == 2
    assert _answer(r.output) == whole  # (the answer first)
    warned = [x for x in r.output.splitlines() if x.startswith("quaternity: ")]
    assert warned and all("could not be saved (No space)" in x for x in warned), r.output
    assert "the solve goes on and tries again in 0 s" in warned[0] and "is kept" in warned[-1]


@pytest.mark.parametrize("args, words", [
    (["--packed", "--save-every", "5"], "--save-every goes with --packed and --checkpoint"),
    (["--checkpoint", "CK", "--save-every", "5"], "--save-every goes with --packed and --checkpoint"),
    (["--packed", "--checkpoint", "CK", "--save-every", "nan"], "not a finite number"),
    (["--packed", "--checkpoint", " "], "give a folder"),
    (["--packed", "--checkpoint", "FILE"], "not a folder"),
    (["--packed", "--checkpoint", "PART"], "partitioned solver's checkpoint"),
    (["--checkpoint", "LAZY"], "holds a lazy solve's state"),
    (["--packed", "--checkpoint", "LAZY", "--player", "1"], "not seat 1's"),
    (["--packed", "--checkpoint", "LAZY", "--rules", "quaternity"], "rules blind there, quaternity asked"),
])
def test_bad_folders_and_options_are_one_line_and_exit_2(tmp_path, args, words):
    (tmp_path / "FILE").write_text("x")
    (tmp_path / "PART").mkdir()
    (tmp_path / "PART" / "manifest.json").write_text("{}")
    assert _cli("solve", "--start", "4", "4", "2", "--rules", "blind", "--packed", "--checkpoint",
                str(tmp_path / "LAZY"), "--max-positions", "50").exit_code == 0
    args = [str(tmp_path / a) if a in ("CK", "FILE", "PART", "LAZY") else a for a in args]
    if "--rules" not in args:
        args += ["--rules", "blind"]
    r = _cli("solve", "--start", "4", "4", "2", *args)
    assert r.exit_code == 2, r.output
    lines = [x for x in r.output.strip().splitlines() if x]
    assert len(lines) == 1 and words in lines[0], r.output


def _run(args, env_started=True):
    return subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT),
                                     **({"QUATERNITY_TEST_SIGNAL_STARTED": "1"} if env_started else {})))


#: a start of seconds of search (4x4x4 blind: about a minute to 3 million positions on one core; 150,000 positions
#: in about a second, a dozen batches)
LONG = ["solve", "--start", "4", "4", "4", "--rules", "blind", "--packed", "--max-positions", "150000", "--threads", "1",
        "--json"]


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_saves_the_state_and_the_same_command_goes_on(tmp_path, sig, code):
    folder = str(tmp_path / "ck")
    proc = _run([*LONG, "--checkpoint", folder])
    try:
        assert proc.stderr.readline() == "quaternity: search started\n"
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=300)  # (a safety net far above the second it takes)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, out + err
    data = json.loads(out)
    assert data["status"] == "interrupted" and data["positions"] > 0 and data["checkpoint"] == folder
    assert f"the state is saved in {folder}: run the same command again to go on" in err
    got = _goes_on_to_the_answer_of_one_run(folder)
    assert got["resumed_positions"] == data["positions"]


def _goes_on_to_the_answer_of_one_run(folder: str) -> dict:
    """The same command again, from the folder: the answer of a run never stopped (the second run's JSON)."""
    again = _run([*LONG, "--checkpoint", folder], env_started=False)
    out2, err2 = again.communicate(timeout=600)
    assert again.returncode == 0, err2
    got = json.loads(out2)
    assert _answer(out2) == _long_uninterrupted() and got["runs"] == 2
    return got


@functools.lru_cache(maxsize=1)
def _long_uninterrupted() -> dict:
    """LONG's answer by a run never stopped (once for the tests of this module that compare with it)."""
    whole = _run(LONG, env_started=False)
    out, err = whole.communicate(timeout=600)
    assert whole.returncode == 0, err
    return _answer(out)


def test_a_run_killed_after_a_save_goes_on_from_it(tmp_path):
    folder = str(tmp_path / "ck")
    proc = _run([*LONG, "--checkpoint", folder, "--save-every", "0", "--progress"])
    try:
        saves = 0
        while saves < 2:  # (the event: a save on the way has ended, the second: some batches are in it)
            line = proc.stderr.readline()
            assert line, "the run ended before saving"
            saves += line.startswith(f"  state saved in {folder}")
        proc.kill()  # (SIGKILL: nothing more is written, maybe in the middle of the next save)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _goes_on_to_the_answer_of_one_run(folder)["resumed_positions"] > 0


class OverToy(Toy):
    """The toy whose game is over before it begins (its start's mover -1)."""

    def start(self):
        key, _ = super().start()
        return key, -1


def test_a_start_answered_at_once_keeps_nothing_and_is_answered_again(tmp_path):
    folder = str(tmp_path / "ck")
    for _ in range(2):
        lazy, data = lazystate.open_lazy(folder, OverToy(5), 0)
        res = lazy.solve()
        assert data is None and res.verdict is False and res.positions == 0
        assert lazystate.save(lazy, folder) == 0
        lazystate.close(lazy)
    assert sorted(os.listdir(folder)) == [lazystate.LOCK]


# -- the state's manifest through the one strict reader: the hostile corpus, special files, a huge one -----------
def _hostile_cases():
    from test_strict_inputs import HOSTILE_JSON

    cases = dict(HOSTILE_JSON)
    cases["not-an-object"] = ("[1, 2]", "not a lazy solve's state of this program")
    cases["no-digest"] = ('{"format": "quaternity-packed-lazy"}', "not a lazy solve's state of this program")
    return cases


@pytest.mark.parametrize("kind", ["deep", "nan", "infinity", "minus-infinity", "long-number", "not-an-object",
                                  "no-digest"])
def test_hostile_manifests_are_refused_in_one_line_exit_2(tmp_path, kind):
    from test_strict_inputs import refused, run

    text, reason = _hostile_cases()[kind]
    folder = tmp_path / "ck"
    folder.mkdir()
    (folder / "lazy.json").write_text(text)
    refused(run("solve", "--start", "4", "4", "2", "--rules", "blind", "--packed", "--checkpoint", folder, "--json"),
            str(folder / "lazy.json"), reason)


def test_special_and_huge_manifests_are_refused_before_reading(tmp_path):
    from test_strict_inputs import in_thread, huge_file

    packed = packed_of(4, 4, 2, Rules.preset("blind"), "win", lazy=True)
    cases = {"fifo": "a pipe (FIFO), not a regular file", "device": "a character device, not a regular file",
             "huge": "larger than the limit of 16,777,216 bytes", "folder": "Is a directory"}
    for kind, reason in cases.items():
        folder = tmp_path / kind
        folder.mkdir()
        path = folder / "lazy.json"
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "device":
            os.symlink("/dev/zero", path)
        elif kind == "huge":
            huge_file(path)
        else:
            path.mkdir()
        got = in_thread(lazystate.open_lazy, str(folder), packed, 0)
        assert isinstance(got, lazystate.LazyStateError), (kind, got)
        assert str(got).startswith(f"{path}: not a readable lazy solve's state") and reason in str(got), (kind, got)


def test_the_same_solve_called_again_after_its_limit_goes_on_to_the_same_answer():
    packed = packed_of(3, 3, 3, Rules.preset("pythagoras"), "win", lazy=True)
    whole = lazywin.solve_win(packed, 0, batch=25)
    lazy = lazywin.LazyWin(packed, 0, batch=25)
    limit = 1
    while True:
        res = lazy.solve(Limits(max_positions=limit))
        if res.verdict is not None:
            break
        assert res.stopped == "limit"
        limit += 37
    _same(whole, (res, lazy))


def test_progress_says_each_round_s_ranking_as_it_begins():
    r = _cli("solve", "--start", "4", "4", "2", "--rules", "blind", "--packed", "--json", "--progress")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    lines = [x for x in r.stderr.splitlines() if "ends: ranking" in x]
    assert [int(x.split("round ")[1].split(" ")[0]) for x in lines] == list(range(1, data["rounds"] + 1)), r.stderr


# -- --drop-graph: the answer kept, the state's files removed -------------------------------------------------------
def test_drop_graph_keeps_the_state_until_answered_then_the_answer_only(tmp_path):
    folder = str(tmp_path / "ck")
    base = ["solve", "--start", "4", "4", "2", "--rules", "blind", "--packed", "--json"]
    whole = _answer(_cli(*base).output)
    r = _cli(*base, "--checkpoint", folder, "--max-positions", "100", "--drop-graph")
    assert r.exit_code == 0, r.output
    first = json.loads(r.output)
    assert first["verdict"] == "unproven" and first["graph_dropped"] is False  # (no answer: the state is kept)
    assert any(n.startswith("nodes-") for n in os.listdir(folder))
    r = _cli(*base, "--checkpoint", folder, "--drop-graph")
    assert r.exit_code == 0, r.output
    second = json.loads(r.output)
    assert _answer(r.output) == whole and second["graph_dropped"] is True and second["runs"] == 2
    assert second["defense"] is not None  # (the tree is grown before the graph goes)
    assert sorted(os.listdir(folder)) == sorted([lazystate.LOCK, lazystate.MANIFEST])
    for extra in ([], ["--drop-graph"]):  # (answered from the folder: nothing solved, nothing written)
        before = os.stat(os.path.join(folder, lazystate.MANIFEST)).st_mtime_ns
        r = _cli(*base, "--checkpoint", folder, *extra)
        assert r.exit_code == 0, r.output
        again = json.loads(r.output)
        assert _answer(r.output) == whole and again["graph_dropped"] is True and again["defense"] is None
        assert again["runs"] == 2 and again["saves"] == 0 and again["total_seconds"] == second["total_seconds"]
        assert os.stat(os.path.join(folder, lazystate.MANIFEST)).st_mtime_ns == before
    r = _cli("solve", "--start", "4", "4", "2", "--rules", "blind", "--packed", "--checkpoint", folder)
    assert r.exit_code == 0 and "keeps the answer only" in r.output and "Result: no" in r.output, r.output
    for args, words in ((["--player", "1"], "not seat 1's"), (["--rules", "quaternity"], "blind there")):
        r = _cli("solve", "--start", "4", "4", "2", "--packed", "--checkpoint", folder, *args,
                 *(["--rules", "blind"] if "--rules" not in args else []))
        assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1 and words in r.output, r.output
    r = _cli("solve", "--start", "4", "4", "2", "--rules", "blind", "--checkpoint", folder)  # (the other solver)
    assert r.exit_code == 2 and "holds a lazy solve's state" in r.output, r.output


def test_a_win_dropped_keeps_its_plies(tmp_path):
    folder = str(tmp_path / "ck")
    base = ["solve", "--start", "2", "3", "2", "--rules", "blind", "--packed", "--json"]
    whole = json.loads(_cli(*base).output)
    assert whole["verdict"] == "yes" and whole["plies"] == 4
    r = _cli(*base, "--checkpoint", folder, "--drop-graph")
    assert r.exit_code == 0 and json.loads(r.output)["strategy"] == whole["strategy"], r.output
    r = _cli(*base, "--checkpoint", folder)
    again = json.loads(r.output)
    assert _answer(r.output) == _answer(json.dumps(whole)) and again["strategy"] is None
    assert again["seats"] == {"0": {"wins": True, "plies": 4}}


def test_drop_graph_without_a_folder_is_refused(tmp_path):
    r = _cli("solve", "--start", "4", "4", "2", "--rules", "blind", "--packed", "--drop-graph")
    assert r.exit_code == 2 and "--drop-graph goes with --checkpoint" in r.output, r.output
    packed = packed_of(4, 4, 2, Rules.preset("blind"), "win", lazy=True)
    from quaternity_cp.quartets.bigsolve import BigSolveError, solve_lazy

    with pytest.raises(BigSolveError, match="drop_graph goes with a checkpoint"):
        solve_lazy(4, 4, 2, Rules.preset("blind"), drop_graph=True)
    with pytest.raises(ValueError, match="only an answered"):
        lazy, _ = lazystate.open_lazy(str(tmp_path / "s"), packed, 0)
        lazystate.drop(lazy, str(tmp_path / "s"), {})


def _dropped(tmp_path):
    folder = str(tmp_path / "state")
    packed = packed_of(4, 4, 2, Rules.preset("blind"), "win", lazy=True)
    lazy, _ = lazystate.open_lazy(folder, packed, 0)
    out = lazy.solve()
    lazystate.drop(lazy, folder, {"verdict": out.verdict, "plies": out.plies, "positions": out.positions,
                                  "expanded": out.expanded, "edges": out.edges, "rounds": out.rounds,
                                  "array_bytes": out.nbytes, "stored_key_words": 1},
                   extra={"seconds": 1.5, "runs": 1})
    lazystate.close(lazy)
    return folder, packed


def test_a_dropped_answer_reads_back_and_is_no_state_to_go_on_from(tmp_path):
    folder, packed = _dropped(tmp_path)
    got = lazystate.read_answer(folder, packed, 0)
    assert got["answer"]["verdict"] is False and got["answer"]["plies"] is None and got["extra"]["runs"] == 1
    _refused(folder, packed, "keeps the answer of a solve whose graph was dropped")
    assert lazystate.read_answer(str(tmp_path / "none"), packed, 0) is None
    kept, _ = _kept(tmp_path / "k")  # (a state to go on from is no answer)
    assert lazystate.read_answer(kept, packed, 0) is None


@pytest.mark.parametrize("path, value, words", [
    (("dropped",), False, "dropped must be true"),
    (("files",), {"nodes-1.npz": [1, "0" * 64, 1, 0]}, "no files listed"),
    (("answer",), [], "answer must be an object"),
    (("answer", "verdict"), "no", "verdict must be true or false"),
    (("answer", "plies"), 3, "a \"no\" has no plies"),
    (("answer", "positions"), -1, "positions must be"),
    (("answer", "edges"), 1.5, "edges must be"),
    (("answer", "rounds"), True, "rounds must be"),
    (("answer", "array_bytes"), None, "array_bytes must be"),
    (("answer", "stored_key_words"), 10**6, "stored_key_words must be"),
    (("answer", "extra_field"), 1, "answer must hold"),
    (("extra",), "x", "extra must be an object"),
    (("extra", "seconds"), -1, "seconds must be"),
    (("extra", "runs"), 0, "runs must be"),
])
def test_forged_dropped_answers_are_refused(tmp_path, path, value, words):
    folder, packed = _dropped(tmp_path)
    body = _manifest(folder)
    at = body
    for k in path[:-1]:
        at = at[k]
    at[path[-1]] = value
    _sign(folder, body, packed)
    with pytest.raises(lazystate.LazyStateError) as err:
        lazystate.read_answer(folder, packed, 0)
    assert "\n" not in str(err.value) and words in str(err.value), str(err.value)


def test_a_win_forged_without_plies_and_an_edited_answer_are_refused(tmp_path):
    folder, packed = _dropped(tmp_path)
    body = _manifest(folder)
    body["answer"]["verdict"] = True
    _sign(folder, body, packed)
    with pytest.raises(lazystate.LazyStateError, match="plies must be"):
        lazystate.read_answer(folder, packed, 0)
    body["answer"]["plies"] = 4
    with open(os.path.join(folder, "lazy.json"), "w") as fh:  # (not signed again: the digest refuses it)
        json.dump(body, fh)
    with pytest.raises(lazystate.LazyStateError, match="keyed digest does not match"):
        lazystate.read_answer(folder, packed, 0)


def test_a_drop_that_cannot_be_written_prints_the_answer_and_keeps_the_state(tmp_path, monkeypatch):
    folder = str(tmp_path / "ck")
    base = ["solve", "--start", "4", "4", "2", "--rules", "blind", "--packed", "--json", "--checkpoint", folder]
    assert _cli(*base, "--max-positions", "100").exit_code == 0
    state = sorted(os.listdir(folder))
    monkeypatch.setattr(lazystate, "write_atomic", lambda *a, **k: (_ for _ in ()).throw(OSError(28, "No space")))
    r = _cli(*base, "--drop-graph")
    assert r.exit_code == 2 and json.loads(r.output[:r.output.rindex("}") + 1])["verdict"] == "no", r.output
    assert "the answer could not be kept there (No space)" in r.output.strip().splitlines()[-1]
    monkeypatch.undo()
    assert sorted(os.listdir(folder)) == state
    r = _cli(*base)  # (the state before goes on)
    assert r.exit_code == 0 and json.loads(r.output)["verdict"] == "no", r.output


def test_a_tree_cut_short_by_ctrl_c_keeps_the_state_and_the_next_run_drops_it(tmp_path, monkeypatch):
    from quaternity_cp.budget import INTERRUPTED
    from quaternity_cp.quartets import bigsolve

    folder = str(tmp_path / "ck")
    real = bigsolve.tree
    monkeypatch.setattr(bigsolve, "tree", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt()))
    first = bigsolve.solve_lazy(4, 4, 2, Rules.preset("blind"), checkpoint=folder, drop_graph=True)
    assert first.result.result is False and first.result.tree_stopped == INTERRUPTED
    assert first.result.defense is None and first.graph["graph_dropped"] is False
    assert any(n.startswith("nodes-") for n in os.listdir(folder))  # (the state kept: the tree can be grown again)
    monkeypatch.setattr(bigsolve, "tree", real)
    second = bigsolve.solve_lazy(4, 4, 2, Rules.preset("blind"), checkpoint=folder, drop_graph=True)
    assert second.result.result is False and second.result.tree_stopped is None and second.result.defense
    assert second.graph["graph_dropped"] is True and second.graph["runs"] == 2
    assert sorted(os.listdir(folder)) == sorted([lazystate.LOCK, lazystate.MANIFEST])

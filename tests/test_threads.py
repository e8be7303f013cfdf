"""The compiled expansion on threads: :func:`quaternity_cp.threads.ordered_map` keeps the order and bounds the work
in flight; Quaternity's packed expansion and the lazy solve over it give the same rows and answers on any number
of threads; the command's ``--threads``."""

from __future__ import annotations

import json
import threading
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner

from quaternity_cp import lazywin
from quaternity_cp.quartets.packed import PackedError, QuaternityPacked
from quaternity_cp.quartets.rules import Rules
from quaternity_cp.threads import MAX_THREADS, available_cores, check_threads, ordered_map


def test_ordered_map_keeps_the_order_and_bounds_the_calls_in_flight():
    started: list[int] = []
    lock = threading.Lock()
    release = [threading.Event() for _ in range(40)]

    def fn(i: int) -> int:
        with lock:
            started.append(i)
        assert release[i].wait(30)  # (an event, not a clock: each waits until the consumer lets it go)
        return i * i

    for i in range(40):
        if i % 3 or i == 0:
            release[i].set()  # (the others wait until the consumer has taken the result before them)
    got = []
    for k, value in enumerate(ordered_map(fn, range(40), 3)):
        got.append(value)
        with lock:
            assert len(started) <= k + 1 + 3, (k, started)  # k + 1 taken, at most 3 (the threads) more started
        if k + 1 < 40:
            release[k + 1].set()
    assert got == [i * i for i in range(40)]
    assert sorted(started) == list(range(40))


def test_ordered_map_on_one_thread_runs_in_the_caller_s_thread():
    seen = list(ordered_map(lambda i: (i, threading.current_thread()), range(5), 1))
    assert [i for i, _ in seen] == list(range(5))
    assert {t for _, t in seen} == {threading.current_thread()}


def test_ordered_map_passes_an_error_on_and_cancels_what_did_not_start():
    calls: list[int] = []

    def fn(i: int) -> int:
        calls.append(i)
        if i == 2:
            raise ZeroDivisionError("two")
        return i

    with pytest.raises(ZeroDivisionError):
        list(ordered_map(fn, range(1000), 2))
    assert len(calls) < 1000


@pytest.mark.parametrize("bad", [0, -1, MAX_THREADS + 1, 1.5, True, "2", None])
def test_bad_thread_counts_are_refused(bad):
    with pytest.raises(ValueError, match="threads"):
        check_threads(bad)
    with pytest.raises(PackedError, match="threads"):
        QuaternityPacked(3, 3, 2, Rules.preset("quaternity"), threads=bad)


def test_available_cores_is_at_least_one():
    assert available_cores() >= 1


def test_the_kernel_releases_the_gil():
    pytest.importorskip("numba")
    from quaternity_cp.quartets import packed_nb

    assert packed_nb.expand_batch.targetoptions.get("nogil") is True


def _signalling_kernel(sig: int):
    """A compiled kernel that releases the GIL and raises ``sig`` in this process while it runs (libc's ``raise``:
    the signal arrives inside the kernel, as a Ctrl-C during a long expansion does; no clock involved)."""
    numba = pytest.importorskip("numba")
    import ctypes

    try:
        raise_ = ctypes.CDLL(None)["raise"]
    except (OSError, AttributeError):  # pragma: no cover - not a POSIX C library
        pytest.skip("no C library's raise() here")
    raise_.argtypes, raise_.restype = [ctypes.c_int], ctypes.c_int

    @numba.njit(nogil=True)
    def kernel(n):
        raise_(sig)
        return np.zeros(n, np.int64), n

    return kernel


@pytest.fixture
def interrupting_signal():
    """SIGUSR1, handled as the command handles SIGINT and SIGTERM while it builds: by raising KeyboardInterrupt."""
    import signal

    def handler(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGUSR1, handler)
    try:
        yield int(signal.SIGUSR1)
    finally:
        signal.signal(signal.SIGUSR1, old)


def test_an_interrupt_inside_a_kernel_that_releases_the_gil_is_a_keyboard_interrupt(interrupting_signal):
    from quaternity_cp.threads import released

    kernel = _signalling_kernel(interrupting_signal)
    with pytest.raises((SystemError, KeyboardInterrupt)) as raw:  # (numba 0.5x-0.6x: a SystemError caused by it)
        kernel(3)
    if isinstance(raw.value, SystemError):
        assert isinstance(raw.value.__cause__, KeyboardInterrupt)
    with pytest.raises(KeyboardInterrupt):
        released(kernel, 3)
    a, n = released(_signalling_kernel(0), 4)  # (signal 0: none sent; the kernel's result as it is)
    assert n == 4 and a.shape == (4,)

    def nested():  # (as numba reported a real Ctrl-C during the expansion: through its unpickler's SystemError)
        try:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as inner:
                raise SystemError("<function _numba_unpickle> returned a result with an exception set") from inner
        except SystemError as middle:
            raise SystemError("CPUDispatcher(expand_batch) returned a result with an exception set") from middle

    with pytest.raises(KeyboardInterrupt):
        released(nested)

    def broken():
        raise SystemError("a fault of its own")

    with pytest.raises(SystemError, match="fault of its own"):  # (a SystemError of another cause stays one)
        released(broken)


def test_an_interrupt_inside_the_expansion_stops_the_build_as_interrupted(tmp_path, interrupting_signal,
                                                                          monkeypatch):
    """Ctrl-C during the compiled expansion of a partitioned build: "interrupted" (exit 130 in the command), not "a
    task that failed" (exit 2), and the next run goes on to the same graph."""
    from quaternity_cp import partitioned as pt
    from quaternity_cp.quartets import packed_nb

    rules = Rules.preset("quaternity")
    if not QuaternityPacked(3, 2, 3, rules).compiled:  # pragma: no cover - depends on the installed extras
        pytest.skip("the compiled kernel is not installed")
    kernel = _signalling_kernel(interrupting_signal)
    real = packed_nb.expand_batch
    calls = [0]

    def interrupted_once(cfg, keys, rows):  # (the third call's kernel receives the signal)
        calls[0] += 1
        if calls[0] == 3:
            kernel(1)
        return real(cfg, keys, rows)

    monkeypatch.setattr(packed_nb, "expand_batch", interrupted_once)
    with pytest.raises(pt.BuildStopped) as stop:
        pt.build(QuaternityPacked(3, 2, 3, rules), str(tmp_path / "ck"), parts=2)
    assert stop.value.reason == "interrupted"
    monkeypatch.undo()
    again = pt.build(QuaternityPacked(3, 2, 3, rules), str(tmp_path / "ck"), parts=2)
    whole = pt.build(QuaternityPacked(3, 2, 3, rules), str(tmp_path / "whole"), parts=2)
    assert (again.positions, again.edges, again.sizes) == (whole.positions, whole.edges, whole.sizes)


def _layers(packed: QuaternityPacked, count: int) -> list[np.ndarray]:
    """The keys of the first ``count`` layers (each layer's distinct child keys, finished games not kept)."""
    from quaternity_cp.partitioned import expand_checked

    keys = packed.start()[0].reshape(1, -1)
    out = []
    for _ in range(count):
        out.append(keys)
        got = expand_checked(packed, keys)
        inner = np.asarray(got["end"]) < -1
        keys = np.unique(np.asarray(got["keys"])[inner], axis=0)
    return out


@pytest.mark.parametrize("preset", ["quaternity", "blind", "quaternity-seat", "pythagoras"])
def test_the_rows_are_the_same_on_any_number_of_threads(preset):
    pytest.importorskip("numba")
    one = QuaternityPacked(4, 4, 3, Rules.preset(preset))
    assert one.compiled
    layers = _layers(one, 7)
    assert sum(len(k) for k in layers) > 1000  # (several chunks a layer: the threads have work side by side)
    for threads in (2, 3, 8):
        many = replace(one, threads=threads)
        for keys in layers:
            a, b = one.expand(keys), many.expand(keys)
            assert a.keys() == b.keys()
            for name in a:
                assert np.array_equal(np.asarray(a[name]), np.asarray(b[name])), (threads, name, len(keys))


@pytest.mark.parametrize("start,preset,seat", [((4, 8, 2), "quaternity", 0), ((3, 3, 3), "blind", 1),
                                               ((2, 4, 4), "pythagoras", 0), ((4, 6, 2), "quaternity-seat", 2)])
def test_the_lazy_solve_is_the_same_on_threads(start, preset, seat):
    pytest.importorskip("numba")
    one = QuaternityPacked(*start, Rules.preset(preset))
    a, la = lazywin.solve_win(one, seat)
    b, lb = lazywin.solve_win(replace(one, threads=3), seat)
    assert (a.verdict, a.plies, a.positions, a.edges, a.rounds, a.expanded) == \
        (b.verdict, b.plies, b.positions, b.edges, b.rounds, b.expanded)
    nodes = np.arange(lazywin.ROOT, la.n)
    assert la.n == lb.n and np.array_equal(la.keys_of(nodes), lb.keys_of(nodes))
    assert np.array_equal(la.ed[:la.m], lb.ed[:lb.m])


def test_the_command_s_threads():
    from quaternity_cli.main import main

    runner = CliRunner()
    out = runner.invoke(main, ["solve", "--start", "3", "3", "3", "--rules", "blind", "--packed", "--threads", "2",
                               "--json", "--depth", "0"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["verdict"] == "no" and data["threads"] in (1, 2)  # (1 without numba: the Python path)
    base = json.loads(runner.invoke(main, ["solve", "--start", "3", "3", "3", "--rules", "blind", "--packed",
                                           "--threads", "1", "--json", "--depth", "0"]).output)
    assert {k: data[k] for k in ("verdict", "positions", "edges", "rounds")} == \
        {k: base[k] for k in ("verdict", "positions", "edges", "rounds")}
    for args, word in ((["--threads", "0", "--packed"], "--threads"), (["--threads", "2"], "--packed"),
                       (["--threads", str(MAX_THREADS + 1), "--packed"], "--threads")):
        bad = runner.invoke(main, ["solve", "--start", "3", "3", "3", *args])
        assert bad.exit_code == 2 and word in bad.output and "Traceback" not in bad.output, bad.output


def test_the_partitioned_build_in_this_process_on_threads(tmp_path, monkeypatch):
    """``--checkpoint --workers 0 --threads N``: the same part files (their SHA-256s) and answer on 1 and 3 threads;
    threads with Dask workers refused, by the library and by the command, before any work."""
    from quaternity_cli.main import main

    from quaternity_cp.quartets.bigsolve import BigSolveError, solve_start

    import quaternity_cp.threads as th

    rules = Rules.preset("blind")
    one = solve_start(3, 2, 3, rules, str(tmp_path / "one"), workers=0, threads=1)
    side_by_side: list[int] = []
    plain = th.ordered_map

    def watched(fn, items, threads=1):  # (the calls whose chunks ran on several threads)
        items = list(items)
        if threads > 1 and len(items) > 1:
            side_by_side.append(len(items))
        return plain(fn, items, threads)

    monkeypatch.setattr(th, "ordered_map", watched)
    three = solve_start(3, 2, 3, rules, str(tmp_path / "three"), workers=0, threads=3)
    monkeypatch.undo()
    if QuaternityPacked(3, 2, 3, rules).compiled:
        assert side_by_side  # (the layers' batches were cut for the threads)
    assert one.seats == three.seats and one.graph["edges"] == three.graph["edges"]
    assert one.graph["threads"] == 1 and three.graph["threads"] in (1, 3)  # (1 without numba: the Python path)
    # stopped on one thread, resumed on three: the same graph (the threads are not part of the checkpoint)
    from quaternity_cp.budget import Limits
    from quaternity_cp.partitioned import BuildStopped

    with pytest.raises(BuildStopped):
        solve_start(3, 2, 3, rules, str(tmp_path / "resumed"), workers=0, threads=1, limits=Limits(100, None))
    resumed = solve_start(3, 2, 3, rules, str(tmp_path / "resumed"), workers=0, threads=3)
    assert resumed.seats == one.seats
    files = [json.loads((tmp_path / name / "manifest.json").read_text())["files"]
             for name in ("one", "three", "resumed")]
    assert files[0] == files[1] == files[2] and files[0]  # (every part file, byte for byte: sizes and SHA-256s)
    for bad in ({"workers": 1}, {"workers": 0, "cluster": "tcp://127.0.0.1:1"}):
        with pytest.raises(BigSolveError, match="--workers 0"):
            solve_start(3, 2, 3, rules, str(tmp_path / "bad"), threads=2, **bad)
    assert not (tmp_path / "bad").exists()
    runner = CliRunner()
    out = runner.invoke(main, ["solve", "--start", "3", "2", "3", "--rules", "blind", "--checkpoint",
                               str(tmp_path / "cli"), "--workers", "0", "--threads", "2", "--json", "--depth", "0"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["threads"] in (1, 2) and data["verdict"] == ("yes" if one.seats["0"]["wins"] else "no")
    # (without --threads, the tasks in this process take every core this process may use, as --packed does)
    out = runner.invoke(main, ["solve", "--start", "3", "2", "3", "--rules", "blind", "--checkpoint",
                               str(tmp_path / "cores"), "--workers", "0", "--json", "--depth", "0"])
    assert out.exit_code == 0, out.output
    cores = json.loads(out.output)["threads"]
    assert cores == (available_cores() if QuaternityPacked(3, 2, 3, rules).compiled else 1), cores
    for args in (["--workers", "1"], [], ["--cluster", "tcp://127.0.0.1:1"]):
        bad = runner.invoke(main, ["solve", "--start", "3", "2", "3", "--checkpoint", str(tmp_path / "no"),
                                   "--threads", "2", *args])
        assert bad.exit_code == 2 and "--workers 0" in bad.output and "Traceback" not in bad.output, bad.output
    assert not (tmp_path / "no").exists()

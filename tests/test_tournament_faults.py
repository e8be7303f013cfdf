"""Tournaments under faults, with real processes: a worker killed (replaced, its games played again, the
results those of an undisturbed run), a batch that keeps killing its worker (stopped, the finished games
kept), SIGINT and SIGTERM to the command (partial statistics, exit 130 / 143, no process left behind), a
Dask cluster without workers (said, then waited for or stopped)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quaternity_cp import tournament
from quaternity_cp.tournament import MAX_LOSSES, TournamentInterrupted, run_tournament

#: The installed command, beside this Python.
QUATERNITY = str(Path(sys.executable).with_name("quaternity"))
LINEUP = ["koole-first", "random", "random"]
SMALL = {"players": 3, "sets": 3, "set_size": 2}


# -- a hook unpickled in the worker processes (this module is importable there: its folder is on sys.path) --
def _handed_out(marker: str, dies: tuple[int, int], value: str) -> str:
    """The value, in a worker that has just received a batch; the batches handed out are numbered (each
    makes the next free folder in ``marker``, atomically) and those numbered within ``dies`` kill their
    worker process (SIGKILL) instead."""
    number = 0
    while True:
        try:
            os.mkdir(os.path.join(marker, str(number)))
            break
        except FileExistsError:
            number += 1
    if dies[0] <= number <= dies[1]:
        os.kill(os.getpid(), signal.SIGKILL)
    return value


class KillerPreset(str):
    """The preset ``classic`` in the main process; in a worker, a batch numbered within ``dies`` (in the
    order batches are handed out, from 0) kills the worker that received it."""

    marker: str
    dies: tuple[int, int]

    def __new__(cls, marker: Path, dies: tuple[int, int]):
        self = super().__new__(cls, "classic")
        marker.mkdir()
        self.marker, self.dies = str(marker), dies
        return self

    def __reduce__(self):
        return (_handed_out, (self.marker, self.dies, str(self)))


# -- local worker processes ----------------------------------------------------------------------------
def test_a_killed_worker_is_replaced_and_its_games_played_again(tmp_path):
    """The first batch handed out kills its worker (SIGKILL); it is played again by a new worker, and the
    run ends with the results of an undisturbed run."""
    options = {"preset": KillerPreset(tmp_path / "handed", (0, 0)), **SMALL}
    notes: list[str] = []
    run = run_tournament("quartets", LINEUP, 24, seed=3, options=options, workers=2, batch_size=4,
                         records=tmp_path / "records", notice=notes.append)
    serial = run_tournament("quartets", LINEUP, 24, seed=3, options={**options, "preset": "classic"})
    assert run.summary() == serial.summary() and not run.summary()["partial"]
    assert len(notes) == 1 and re.fullmatch(r"a worker process ended \(exit code -9\) while playing the games "
                                            r"\d+-\d+; another one plays them again", notes[0]), notes
    assert len(list((tmp_path / "records").glob("game-*.json"))) == 24


def test_a_batch_that_keeps_killing_its_worker_stops_the_run_with_the_games_finished(tmp_path):
    """The first two batches handed out are played; every later one kills its worker: after MAX_LOSSES
    losses of one batch the run stops, with the statistics of the two batches finished."""
    options = {"preset": KillerPreset(tmp_path / "handed", (2, 10**9)), **SMALL}
    notes: list[str] = []
    with pytest.raises(TournamentInterrupted, match=f"ended their worker process {MAX_LOSSES} times") as info:
        run_tournament("quartets", LINEUP, 24, seed=3, options=options, workers=2, batch_size=4,
                       records=tmp_path / "records", notice=notes.append)
    err = info.value
    assert err.cause == "lost" and len(notes) >= MAX_LOSSES - 1
    summary = err.result.summary()
    assert summary["partial"] and summary["games_requested"] == 24 and summary["games"] == 8
    # the two batches finished whole (which two depends on which worker process asked first)
    batches = [r.index // 4 for r in err.result.games]
    assert len(set(batches)) == 2 and all(batches.count(b) == 4 for b in set(batches))
    assert len(list((tmp_path / "records").glob("game-*.json"))) == 8


# -- signals to the command ------------------------------------------------------------------------------
def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` now (from /proc)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parent[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        for child, up in parent.items():
            if up == p and child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc") or not os.path.exists(QUATERNITY),
                    reason="needs /proc (to find the worker processes) and the installed command")
@pytest.mark.parametrize("sig, code, group", [(signal.SIGINT, 130, True), (signal.SIGTERM, 143, False)])
def test_a_signal_stops_the_workers_at_once_and_prints_the_games_so_far(tmp_path, sig, code, group):
    """SIGINT to the whole process group (Ctrl-C in a terminal reaches the workers too) or SIGTERM to the
    command: it stops, prints the partial statistics (the records written are kept) and leaves no process."""
    records = tmp_path / "records"
    command = [QUATERNITY, "tournament", "--game", "quarto", "--agents",
               "random,random", "--games", "10000000", "--seed", "1", "--workers", "2", "--records", str(records),
               "--json"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120  # a safety net only: the first records come within seconds
        while not any(records.glob("game-*.json")) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        below = _descendants(proc.pid)
        assert len(below) >= 2  # the two workers (and the process that starts them)
        if group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert b"Traceback" not in err and err.decode().startswith("quaternity: interrupted after "), err
    data = json.loads(out)
    assert data["partial"] is True and data["games_requested"] == 10_000_000
    written = len(list(records.glob("game-*.json")))
    assert 0 < data["games"] <= written <= data["games"] + 1  # an interrupt may fall between a record and its count
    deadline = time.monotonic() + 60
    while any(_alive(p) for p in below) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in below if _alive(p)]


# -- Dask ---------------------------------------------------------------------------------------------------
def test_a_cluster_without_workers_is_reported_then_waited_for_or_left(monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(tournament, "CLUSTER_CHECK_SECONDS", 0.05)
    options = {"preset": "classic", **SMALL}
    serial = run_tournament("quartets", LINEUP, 12, seed=5, options=options)
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        notes: list[str] = []
        with pytest.raises(TournamentInterrupted, match="no Dask worker connected") as info:
            run_tournament("quartets", LINEUP, 12, seed=5, options=options, cluster=cluster.scheduler_address,
                           cluster_wait=0, notice=notes.append)
        assert info.value.cause == "cluster" and info.value.result.summary()["games"] == 0
        assert len(notes) == 1 and notes[0].startswith("no Dask worker is connected")

        def start_a_worker(text: str) -> None:  # by default the run waits: a worker joins, the run goes on
            notes.append(text)
            if text.startswith("no Dask worker"):
                cluster.scale(1)

        notes.clear()
        with distributed.Client(cluster) as client:
            result = run_tournament("quartets", LINEUP, 12, seed=5, options=options, cluster=client, batch_size=3,
                                    notice=start_a_worker)

            def interrupt(done: int, total: int) -> None:
                raise KeyboardInterrupt

            with pytest.raises(TournamentInterrupted, match="interrupted after 3 of 12 games") as info:
                run_tournament("quartets", LINEUP, 12, seed=5, options=options, cluster=client, batch_size=3,
                               progress=interrupt)
            assert info.value.cause == "interrupt" and info.value.result.summary()["partial"]
    assert result.summary() == serial.summary()
    assert [n.split(" ")[0:3] for n in notes] == [["no", "Dask", "worker"], ["a", "Dask", "worker"]], notes

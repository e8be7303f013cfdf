"""What the commands that run many games or a long resumable build share (``quaternity tournament``, a game's
experiments, the solvers on a checkpoint folder): a progress bar that says how fast games finish, stopping on
SIGINT and SIGTERM, and the exit code of the signal.

A run stops at once on SIGINT (Ctrl-C) and SIGTERM: the runner ends its worker processes; the command prints
what the games finished so far show, or nothing when it needs every game, and exits 130 (SIGINT) or 143
(SIGTERM). A build on a checkpoint folder (:class:`Stops`) does the same: a batch system's SIGTERM at the end of
a job's time stops it as Ctrl-C does, its workers closed and the folder named, and the next run goes on.
"""

from __future__ import annotations

import contextlib
import math
import signal
import time
from typing import Any, Callable, Iterator

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn, TimeElapsedColumn
from rich.text import Text

from .common import InputError, console, one_line, say


def rate_text(games: float, seconds: float | None) -> str:
    """How fast games finish, in words that are true: "rate not known yet" before the first game has finished,
    "12 games/s", "0.4 games/s", "25 s a game" (a rate below one game in ten seconds).

    >>> rate_text(0, 3.0), rate_text(120, 10.0), rate_text(4, 10.0), rate_text(1, 25.0)
    ('rate not known yet', '12 games/s', '0.4 games/s', '25 s a game')
    """
    if not games or not seconds or seconds <= 0:
        return "rate not known yet"
    rate = games / seconds
    if rate >= 10:
        return f"{rate:,.0f} games/s"
    if rate >= 0.1:
        return f"{rate:.1f} games/s"
    return f"{seconds / games:,.0f} s a game"


class RateColumn(ProgressColumn):
    """Games finished per second so far (not known before the first game has finished)."""

    def render(self, task: Task) -> Text:
        return Text(rate_text(task.completed, task.elapsed))


def progress() -> Progress:
    """The progress bar of a run, on standard error, shown only there is a terminal."""
    err = console(stderr=True)
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
                    TimeElapsedColumn(), console=err, transient=True, disable=not err.is_terminal)


def notice(bar: Progress) -> Callable[[str], None]:
    """What the runner has to say (a worker replaced, no Dask worker left), one line on standard error."""
    return lambda text: bar.console.print(Text(f"quaternity: {one_line(text)}"), soft_wrap=True)


@contextlib.contextmanager
def signals_stop(received: list[int]) -> Iterator[None]:
    """While running, SIGINT and SIGTERM raise KeyboardInterrupt (the first one only: the runner then ends
    its workers and hands back the games so far; a second one meanwhile is noted in ``received``)."""

    def handler(signum: int, frame: object) -> None:
        received.append(signum)
        if len(received) == 1:
            raise KeyboardInterrupt

    old: dict[signal.Signals, Any] = {}
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            old[sig] = signal.signal(sig, handler)
    except ValueError:  # not the main thread: the signals stay as they are
        pass
    try:
        yield
    finally:
        for sig, previous in old.items():
            signal.signal(sig, previous if previous is not None else signal.SIG_DFL)


def signal_code(received: list[int]) -> int:
    """130 after SIGINT (or a plain KeyboardInterrupt), 143 after SIGTERM: 128 + the signal's number."""
    return 128 + (received[0] if received else signal.SIGINT)


class Stops:
    """``with stops:`` around a resumable build: SIGINT and SIGTERM stop it (:func:`signals_stop`: the first
    raises KeyboardInterrupt, which the build turns into its own "interrupted" stop and its cluster closes on;
    a later one is noted, so that the closing is not cut short); :attr:`code` is then the exit code, 130 or
    143."""

    def __init__(self) -> None:
        self.received: list[int] = []
        self._block: contextlib.AbstractContextManager[None] | None = None

    def __enter__(self) -> Stops:
        self._block = signals_stop(self.received)
        self._block.__enter__()
        return self

    def __exit__(self, *exc: Any) -> bool | None:
        block, self._block = self._block, None
        return block.__exit__(*exc) if block is not None else None

    @property
    def code(self) -> int:
        """The exit code of the signal that stopped the block (130 also for a KeyboardInterrupt without one)."""
        return signal_code(self.received)


def progress_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--progress/--no-progress`` of a solve on a checkpoint folder: its layer and round lines on standard
    error, shown by default unless the output is ``--json`` (whose standard error then stays empty); a batch
    job that keeps the JSON and wants a log of the hours of build asks for them with ``--json --progress``."""
    return click.option("--progress/--no-progress", "show_progress", default=None,
                        help="Print a line on standard error per layer of the build and per round of the "
                             "ranking (default: yes, but not with --json).")(f)


#: the fewest seconds between two of a big step's task lines (each layer's and round's own line is always shown)
TASK_LINE_SECONDS = 10.0


def task_line(step: dict[str, Any]) -> str:
    """The line of a task of a big step that has ended (the build's and the partitioned attractor's ``task``
    dicts: see :func:`quaternity_cp.partitioned.build` and :func:`quaternity_cp.retrograde.attract`).

    >>> task_line({"task": "merge", "layer": 19, "done": 3, "of": 8, "new": 2500000, "seconds": 712.4})
    '  layer 19: 3 of 8 parts joined, 2,500,000 new so far, 712 s'
    """
    done, seconds = f"{step['done']} of {step['of']} parts", f"{step['seconds']:.0f} s"
    kind = step["task"]
    if kind == "expand":
        return f"  layer {step['layer']}: {done} expanded, {step['edges']:,} moves so far, {seconds}"
    if kind == "merge":
        return f"  layer {step['layer']}: {done} joined, {step['new']:,} new so far, {seconds}"
    if kind == "prepare":
        return f"  ranking, preparing: {done} loaded, {seconds}"
    if kind == "load":  # (the whole-graph attractor, reading the graph in two passes)
        what = "counted" if step["stage"] == "count" else "read into the lists"
        return f"  ranking the whole graph: {done} {what}, {seconds}"
    if kind == "send":
        return f"  ranking, round {step['round'] + 1}: {done} sent, {step['messages']:,} messages so far, {seconds}"
    return f"  ranking, round {step['round'] + 1}: {done} applied, {step['ranked']:,} ranked so far, {seconds}"


def lazy_line(step: dict[str, Any]) -> str:
    """The line of a lazy win solve's progress (:func:`quaternity_cp.lazywin.solve_win`'s ``progress`` dicts):
    what is stored, the round, the memory of the graph's arrays (what a long run grows towards the machine's
    memory by) and the seconds.

    >>> lazy_line({"positions": 170370272, "edges": 325959134, "rounds": 7, "bytes": 9123456789, "seconds": 3224.4})
    '  170,370,272 positions, 325,959,134 moves, round 8, 9.12 GB of arrays, 3224 s'

    A round's end (``phase`` "ranking": every position ranked again, a few minutes at hundreds of millions) is
    said as it begins:

    >>> lazy_line({"positions": 170370272, "edges": 325959134, "rounds": 7, "bytes": 9123456789, "seconds": 3224.4,
    ...            "phase": "ranking"})
    '  170,370,272 positions, 325,959,134 moves, round 8 ends: ranking, 9.12 GB of arrays, 3224 s'
    """
    end = " ends: ranking" if step.get("phase") == "ranking" else ""
    return (f"  {step['positions']:,} positions, {step['edges']:,} moves, round {step['rounds'] + 1}{end}, "
            f"{step['bytes'] / 1e9:.2f} GB of arrays, {step['seconds']:.0f} s")


def graph_progress(shown: bool, asked: bool | None = None, clock: Callable[[], float] = time.monotonic,
                   every: float | None = None) -> Callable[[dict[str, Any]], None]:
    """The progress of a solve on a checkpoint folder, one line on standard error per step: each layer of the
    build, then each round of the partitioned attractor; within a big step (one whose tasks take minutes), a line
    as a task ends (:func:`task_line`), at most one each ``every`` seconds of ``clock`` (default
    :data:`TASK_LINE_SECONDS`) after the line before. ``asked`` is :func:`progress_option`'s value (None: not
    given); without it the lines are shown when ``shown`` (the output is not JSON)."""
    if asked is not None:
        shown = asked
    gap = TASK_LINE_SECONDS if every is None else every
    last = [clock()]

    def show(step: dict[str, Any]) -> None:
        if not shown:
            return
        if "task" in step:
            if clock() - last[0] < gap:
                return
            line = task_line(step)
        elif "layer" in step:
            line = (f"  layer {step['layer']}: {step['new']:,} new, {step['positions']:,} positions, "
                    f"{step['edges']:,} moves, {step['seconds']:.0f} s")
        elif "round" in step:
            line = (f"  ranking, round {step['round'] + 1}: {step['ranked']:,} (position, seat) pairs ranked, "
                    f"{step['total']:,} in all, {step['seconds']:.0f} s")
        else:
            return
        say(line)
        last[0] = clock()

    return show


def check_cluster_wait(cluster: str | None, cluster_wait: float | None) -> None:
    """``--cluster-wait``: only with ``--cluster``, a number of seconds >= 0."""
    if cluster_wait is None:
        return
    if cluster is None:
        raise InputError("--cluster-wait: only with --cluster")
    if not (math.isfinite(cluster_wait) and cluster_wait >= 0):
        raise InputError(f"--cluster-wait: a number of seconds >= 0, not {cluster_wait}")


def pct(x: float | None) -> str:
    """A share as a percentage with one decimal, or "-" when there is none."""
    return "-" if x is None else f"{100 * x:.1f}%"


__all__ = ["rate_text", "RateColumn", "progress", "notice", "signals_stop", "signal_code", "Stops",
           "graph_progress", "task_line", "lazy_line", "TASK_LINE_SECONDS", "progress_option", "check_cluster_wait", "pct"]

"""``quaternity tournament`` and ``quaternity experiment koole``: many seeded games between agents.

Both stop at once on SIGINT (Ctrl-C) and SIGTERM: the runner ends its worker
processes; the tournament prints the statistics of the games finished so far,
marked partial, and exits 130 (SIGINT) or 143 (SIGTERM).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import sys
from typing import Iterator

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
from rich import box
from rich.table import Table
from rich.text import Text

from quaternity_cp.quartets.experiments import KOOLE_GAME, KOOLE_OPTIONS

from .common import (EXIT_INPUT, Seconds, Whole, EXIT_INTERNAL, EXIT_OK, InputError, check_output, emit_json, fail, force_option,
                     guarded, one_line, write_text)
from .render import console

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

    def render(self, task) -> Text:
        return Text(rate_text(task.completed, task.elapsed))


def _progress() -> Progress:
    from rich.console import Console

    err = Console(stderr=True)
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
                    TimeElapsedColumn(), console=err, transient=True, disable=not err.is_terminal)


def _parse_options(items: tuple[str, ...]) -> dict:
    """``--option KEY=VALUE`` pairs: the value as strict JSON (true, 3, "x", ...), else as the text itself."""
    from quaternity_cp.jsonio import InputRefused, load_json

    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise InputError(f"--option: expected KEY=VALUE, got {item!r}")
        if key in out:
            raise InputError(f"--option: {key!r} given twice")
        try:
            out[key] = load_json(value)
        except InputRefused:
            out[key] = value
    return out


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


@contextlib.contextmanager
def _signals_stop(received: list[int]) -> Iterator[None]:
    """While running, SIGINT and SIGTERM raise KeyboardInterrupt (the first one only: the runner then ends
    its workers and hands back the games so far; a second one meanwhile is noted in ``received``)."""

    def handler(signum: int, frame: object) -> None:
        received.append(signum)
        if len(received) == 1:
            raise KeyboardInterrupt

    old = {}
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


def _signal_code(received: list[int]) -> int:
    """130 after SIGINT (or a plain KeyboardInterrupt), 143 after SIGTERM: 128 + the signal's number."""
    return 128 + (received[0] if received else signal.SIGINT)


def _records_folder(path: str, force: bool) -> None:
    """Check ``--records DIR`` before any game: a folder (made if missing) that can take new files and
    holds no game records yet (unless ``--force``: then the records of the same numbers are replaced)."""
    from quaternity_cp.files import probe_folder

    if not path or "\x00" in path:
        raise InputError(f"--records: {path!r} is not a usable folder name")
    if os.path.lexists(path) and not os.path.isdir(path):
        raise InputError(f"--records: {path} is a file, not a folder")
    try:
        os.makedirs(path, exist_ok=True)
        probe_folder(path)
        with os.scandir(path) as entries:
            found = next((e.name for e in entries if e.name.startswith("game-") and e.name.endswith(".json")), None)
    except OSError as err:
        raise InputError(f"--records: {path}: cannot write in it ({err.strerror or err})") from None
    if found is not None and not force:
        raise InputError(f"--records: {path} holds game records already ({found}); pass --force to replace "
                         "them, or give a new folder")


@click.command()
@click.option("--game", default=KOOLE_GAME, show_default=True,
              help="A registered game (quaternity play --help lists them).")
@click.option("--preset", default=KOOLE_OPTIONS["preset"], show_default=True,
              help="The rules preset, for a game with presets (quartets: classic, quaternity, quaternity-seat, blind, "
                   "pythagoras).")
@click.option("--players", type=Whole(2, 100), default=KOOLE_OPTIONS["players"], show_default=True,
              help="Players, for a game with a choice.")
@click.option("--sets", type=Whole(1, 1000), default=KOOLE_OPTIONS["sets"], show_default=True,
              help="Sets, for a game of sets.")
@click.option("--set-size", type=Whole(1, 100), default=KOOLE_OPTIONS["set_size"], show_default=True,
              help="Cards per set, for a game of sets.")
@click.option("--option", "extra", multiple=True, metavar="KEY=VALUE",
              help="Any other game option, e.g. a rule option (tie=shared) or Quarto's squares=true; repeatable.")
@click.option("--agents", required=True, help="The line-up, one agent per seat, comma-separated.")
@click.option("--games", type=Whole(1, 10_000_000), default=1000, show_default=True)
@click.option("--seed", type=Whole(0, 2**63 - 1), default=0, show_default=True)
@click.option("--workers", type=Whole(1, 1024), default=1, show_default=True,
              help="Local worker processes.")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Run on a Dask distributed scheduler instead (tcp://host:8786); needs the [cluster] extra.")
@click.option("--cluster-wait", type=Seconds(min=0), default=None, metavar="SECONDS",
              help="With --cluster: stop (printing the games finished so far) once no Dask worker has been "
                   "connected for SECONDS; by default the run waits for workers, saying so.")
@click.option("--records", default=None, metavar="DIR", help="Save every game as a record in DIR.")
@click.option("--plot", default=None, metavar="FILE.png|svg", help="Draw the win rates with their intervals.")
@click.option("--output", default=None, metavar="FILE.json", help="Also write the JSON object to FILE.json.")
@force_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@guarded
def tournament(game, preset, players, sets, set_size, extra, agents, games, seed, workers, cluster, cluster_wait,
               records, plot, output, force, as_json):
    """Play seeded games between agents, seats rotated, and report wins, draws and losses, win rates with
    95% intervals, and each agent's share of the wins."""
    from quaternity_cp.registry import load_all
    from quaternity_cp.tournament import TournamentInterrupted, check_lineup, plot_results, run_tournament

    lineup = [a.strip() for a in agents.split(",")]
    if any(not a for a in lineup):
        raise InputError(f"--agents: an empty agent name in {agents!r}")
    options = _parse_options(extra)
    spec = load_all().get(game)
    if spec is not None:  # the table options go to a game that has them; their defaults: the seed's experiment
        table = {"preset": preset, "players": players, "sets": sets, "set_size": set_size}
        ctx = click.get_current_context()
        for name in table:  # one given for a game without it is refused, never silently dropped
            given = ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE
            if given and spec.option(name) is None:
                known = ", ".join(o.name for o in spec.options) or "none"
                raise InputError(f"--{name.replace('_', '-')}: {game} has no option {name} (its options: {known}; "
                                 "give them with --option NAME=VALUE)")
        options = {**{k: v for k, v in table.items() if spec.option(k) is not None}, **options}
    _check_cluster_wait(cluster, cluster_wait)
    check_lineup(game, lineup, options)
    if plot is not None:
        if not plot.lower().endswith((".png", ".svg")):
            raise InputError(f"--plot: {plot}: the picture must be a .png or .svg file")
        check_output(plot, "--plot", force=force)
    if output is not None:
        check_output(output, "--output", force=force)
        if plot is not None and os.path.realpath(plot) == os.path.realpath(output):
            raise InputError(f"--output: {output} is the --plot file; give another name")
    if records is not None:
        _records_folder(records, force)
    received = []  # the signals that came
    stopped = None
    try:
        with _signals_stop(received), _progress() as bar:
            task = bar.add_task(f"{game} {','.join(lineup)}", total=games)
            try:
                result = run_tournament(game, lineup, games, seed, options=options, workers=workers, cluster=cluster,
                                        records=records, cluster_wait=cluster_wait, notice=_notice(bar),
                                        progress=lambda done, total: bar.update(task, completed=done))
            except TournamentInterrupted as err:
                result, stopped = err.result, err
    except KeyboardInterrupt:  # before the first game
        fail("interrupted", _signal_code(received))
    data = result.to_json()
    if as_json:
        emit_json(data)
    else:
        _print_tournament(data)
    if output is not None:
        write_text(output, json.dumps(data, indent=2) + "\n")
    if stopped is not None:  # the statistics of the games finished are out; no plot of a part
        code = {"interrupt": _signal_code(received), "lost": EXIT_INTERNAL}.get(stopped.cause, EXIT_INPUT)
        fail(f"{'internal error: ' if stopped.cause == 'lost' else ''}{stopped}; the statistics are of the "
             f"{data['games']} games finished", code)
    if plot is not None:
        try:
            plot_results(data, plot)
        except OSError as err:
            raise InputError(f"--plot: {plot}: cannot write ({err.strerror or err})") from None
    sys.exit(EXIT_OK)


def _check_cluster_wait(cluster: str | None, cluster_wait: float | None) -> None:
    if cluster_wait is None:
        return
    if cluster is None:
        raise InputError("--cluster-wait: only with --cluster")
    if not (math.isfinite(cluster_wait) and cluster_wait >= 0):
        raise InputError(f"--cluster-wait: a number of seconds >= 0, not {cluster_wait}")


def _notice(bar: Progress):
    """What the runner has to say (a worker replaced, no Dask worker left), one line on standard error."""
    return lambda text: bar.console.print(Text(f"quaternity: {one_line(text)}"), soft_wrap=True)


def _print_tournament(data: dict) -> None:
    out = console()
    opts = ", ".join(f"{k}={v}" for k, v in data["options"].items())
    games = data["games"]
    out.print(f"{data['game']}" + (f" ({opts})" if opts else "")  # a game without options: its name alone
              + f": {games} game{'' if games == 1 else 's'}, seed {data['seed']}, line-up {', '.join(data['lineup'])}")
    if data["partial"]:
        out.print(f"Partial: the run stopped after {data['games']} of the {data['games_requested']} games asked "
                  "for; the statistics are of those.")
    table = Table(title="Results per agent. wins: games won, alone or shared; draws: games nobody won; "
                        "win rate: wins / seats, with its 95% Wilson interval; share: 1/k of each win "
                        "shared by k winners", box=box.SIMPLE_HEAD, padding=(0, 0, 0, 1), pad_edge=False)
    for col in ("agent", "seats", "wins", "draws", "losses", "win rate", "95% interval", "share", "mean score"):
        table.add_column(col, justify="left" if col == "agent" else "right", no_wrap=col in ("agent", "95% interval"))
    for name, r in data["results"].items():
        table.add_row(name, str(r["seats_held"]), str(r["wins"]), str(r["draws"]), str(r["losses"]),
                      _pct(r["win_rate"]), f"{_pct(r['ci95'][0])}-{_pct(r['ci95'][1])}", f"{round(r['share'], 2):g}",
                      f"{r['mean_score']:.2f}")
    out.print(table)
    P = len(data["lineup"])
    seats = Table(title="Win rate by seat (games won, alone or shared)")
    seats.add_column("agent")
    for p in range(P):
        seats.add_column(f"seat {p}", justify="right")
    for name, r in data["results"].items():
        seats.add_row(name, *[_pct(s["win_rate"]) for s in r["per_seat"]])
    seats.add_row("all", *[_pct(s["win_rate"]) for s in data["seats"]])
    out.print(seats)
    length = data["length"]
    out.print(f"Seat effect (best seat minus worst): {100 * data['seat_effect']:.1f} points")
    out.print(f"Game length (decisions): mean {length['mean']:.1f}, median {length['median']}, "
              f"min {length['min']}, max {length['max']}")
    if data["no_winner"] or data["unfinished"]:
        out.print(f"Games nobody won (draws): {data['no_winner']} (unfinished: {data['unfinished']})")
    fallbacks = {name: r["fallbacks"] for name, r in data["results"].items() if r["fallbacks"]}
    if fallbacks:
        out.print("Decisions taken by a cheaper rule (a count over the agent's budget): "
                  + ", ".join(f"{name} {k:,}" for name, k in fallbacks.items()))
    if not data["balanced"]:
        out.print(f"Note: {data['games']} games is not a multiple of the {data['seat_orders']} seat orders; "
                  "the rotation is not exactly balanced." if not data["partial"] else
                  "Note: the games finished do not play every seat order equally often.")
    run = data["run"]
    workers = run["workers"]
    where = f"cluster {run['cluster']}" if run["cluster"] else f"{workers} worker{'' if workers == 1 else 's'}"
    rate = run["games_per_second"]
    out.print(f"{run['seconds']:.1f} s on {where}" + (f", {rate_text(rate, 1.0)}" if rate else ""))


@click.group()
def experiment():
    """Reproduce published experiments."""


@experiment.command("koole")
@click.option("--games", type=Whole(1, 10_000_000), default=1000, show_default=True,
              help="Games per line-up (20 line-ups).")
@click.option("--seed", type=Whole(0, 2**63 - 1), default=0, show_default=True)
@click.option("--workers", type=Whole(1, 1024), default=1, show_default=True)
@click.option("--cluster", default=None, metavar="ADDRESS", help="A Dask scheduler address.")
@click.option("--cluster-wait", type=Seconds(min=0), default=None, metavar="SECONDS",
              help="With --cluster: stop once no Dask worker has been connected for SECONDS (default: wait).")
@click.option("--second-fallback", type=click.Choice(["first", "random"]), default="first", show_default=True,
              help="What the second-order strategy falls back to: first order (the app's current code) or "
                   "random (its earlier code).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@guarded
def koole(games, seed, workers, cluster, cluster_wait, second_fallback, as_json):
    """The seed's experiment: every combination of the four koole strategies at 3 players x 6 sets of 4."""
    from quaternity_cp.quartets.experiments import koole_experiment
    from quaternity_cp.tournament import TournamentInterrupted

    _check_cluster_wait(cluster, cluster_wait)
    received = []  # the signals that came
    try:
        with _signals_stop(received), _progress() as bar:
            task = bar.add_task("koole experiment", total=games * 20)
            data = koole_experiment(games, seed, workers=workers, cluster=cluster, second_fallback=second_fallback,
                                    cluster_wait=cluster_wait, notice=_notice(bar),
                                    progress=lambda done, total: bar.update(task, completed=done))
    except KeyboardInterrupt:
        fail("interrupted", _signal_code(received))
    except TournamentInterrupted as err:  # the experiment needs every line-up: nothing to print
        if err.cause == "interrupt":
            fail("interrupted", _signal_code(received))
        fail(f"internal error: {err}" if err.cause == "lost" else str(err),
             EXIT_INTERNAL if err.cause == "lost" else EXIT_INPUT)
    if as_json:
        emit_json(data)
        sys.exit(EXIT_OK)
    out = console()
    short = {"random": "R", "first": "1st", "second": "2nd", "combined": "C"}
    table = Table(title=f"Win rate of each strategy against two opponents ({games} games a line-up, seed {seed})")
    for col in ("strategy", "opponents", "theirs", "ours", "95% interval", "difference", "in s.e."):
        table.add_column(col, justify="left" if col in ("strategy", "opponents") else "right")
    for cell in data["cells"]:
        z = cell["z"]
        mark = Text(f"{z:+.1f}", style="bold red" if abs(z) >= 3 else "")
        table.add_row(cell["strategy"], "&".join(short[s] for s in cell["opponents"]), _pct(cell["theirs"]),
                      _pct(cell["ours"]), f"{_pct(cell['ci95'][0])} - {_pct(cell['ci95'][1])}",
                      f"{100 * cell['difference']:+.1f}", mark)
    out.print(table)
    beyond = sum(1 for c in data["cells"] if abs(c["z"]) >= 3)
    out.print(f"{beyond} of {len(data['cells'])} cells differ by 3 standard errors or more "
              f"({data['run']['seconds']:.1f} s).")
    sys.exit(EXIT_OK)

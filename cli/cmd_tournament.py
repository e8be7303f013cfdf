"""``quaternity tournament`` and ``quaternity experiment koole``: many seeded games between agents."""

from __future__ import annotations

import json
import sys

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from quaternity_cp.experiments import KOOLE_GAME, KOOLE_OPTIONS

from .common import EXIT_OK, InputError, emit_json, guarded
from .render import console


class RateColumn(ProgressColumn):
    """Games finished per second so far."""

    def render(self, task) -> Text:
        elapsed = task.elapsed or 0.0
        rate = task.completed / elapsed if elapsed > 0 else 0.0
        return Text(f"{rate:,.0f} games/s")


def _progress() -> Progress:
    from rich.console import Console

    err = Console(stderr=True)
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
                    TimeElapsedColumn(), console=err, transient=True, disable=not err.is_terminal)


def _parse_options(items: tuple[str, ...]) -> dict:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise InputError(f"--option: expected KEY=VALUE, got {item!r}")
        if key in out:
            raise InputError(f"--option: {key!r} given twice")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


@click.command()
@click.option("--game", default=KOOLE_GAME, show_default=True,
              help="A registered game (quaternity play --help lists them).")
@click.option("--preset", default=KOOLE_OPTIONS["preset"], show_default=True,
              help="The rules preset, for a game with presets (quartets: classic, quaternity, quaternity-seat, blind, "
                   "pythagoras).")
@click.option("--players", type=click.IntRange(2, 100), default=KOOLE_OPTIONS["players"], show_default=True,
              help="Players, for a game with a choice.")
@click.option("--sets", type=click.IntRange(1, 1000), default=KOOLE_OPTIONS["sets"], show_default=True,
              help="Sets, for a game of sets.")
@click.option("--set-size", type=click.IntRange(1, 100), default=KOOLE_OPTIONS["set_size"], show_default=True,
              help="Cards per set, for a game of sets.")
@click.option("--option", "extra", multiple=True, metavar="KEY=VALUE",
              help="Any other game option, e.g. a rule option (tie=shared) or Quarto's squares=true; repeatable.")
@click.option("--agents", required=True, help="The line-up, one agent per seat, comma-separated.")
@click.option("--games", type=click.IntRange(1, 10_000_000), default=1000, show_default=True)
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True)
@click.option("--workers", type=click.IntRange(1, 1024), default=1, show_default=True,
              help="Local worker processes.")
@click.option("--cluster", default=None, metavar="ADDRESS",
              help="Run on a Dask distributed scheduler instead (tcp://host:8786); needs the [cluster] extra.")
@click.option("--records", default=None, metavar="DIR", help="Save every game as a record in DIR.")
@click.option("--plot", default=None, metavar="FILE.png|svg", help="Draw the win rates with their intervals.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@guarded
def tournament(game, preset, players, sets, set_size, extra, agents, games, seed, workers, cluster, records, plot,
               as_json):
    """Play seeded games between agents, seats rotated, and report win rates with 95% intervals."""
    from quaternity_cp.games import load_all
    from quaternity_cp.tournament import check_lineup, plot_results, run_tournament

    lineup = [a.strip() for a in agents.split(",")]
    if any(not a for a in lineup):
        raise InputError(f"--agents: an empty agent name in {agents!r}")
    options = _parse_options(extra)
    spec = load_all().get(game)
    if spec is not None:  # the table options go to a game that has them; their defaults: the seed's experiment
        table = {"preset": preset, "players": players, "sets": sets, "set_size": set_size}
        options = {**{k: v for k, v in table.items() if spec.option(k) is not None}, **options}
    if plot is not None and not plot.lower().endswith((".png", ".svg")):
        raise InputError(f"--plot: {plot}: the picture must be a .png or .svg file")
    check_lineup(game, lineup, options)
    with _progress() as bar:
        task = bar.add_task(f"{game} {','.join(lineup)}", total=games)
        result = run_tournament(game, lineup, games, seed, options=options, workers=workers, cluster=cluster,
                                records=records, progress=lambda done, total: bar.update(task, completed=done))
    data = result.to_json()
    if plot is not None:
        plot_results(data, plot)
    if as_json:
        emit_json(data)
    else:
        _print_tournament(data)
    sys.exit(EXIT_OK)


def _print_tournament(data: dict) -> None:
    out = console()
    opts = ", ".join(f"{k}={v}" for k, v in data["options"].items())
    out.print(f"{data['game']} ({opts}): {data['games']} games, seed {data['seed']}, "
              f"line-up {', '.join(data['lineup'])}")
    table = Table(title="Results per agent (a win shared by k winners counts 1/k)")
    for col in ("agent", "seats held", "wins", "win rate", "95% interval", "mean score"):
        table.add_column(col, justify="left" if col == "agent" else "right")
    for name, r in data["results"].items():
        table.add_row(name, str(r["seats_held"]), f"{r['wins']:g}", _pct(r["win_rate"]),
                      f"{_pct(r['ci95'][0])} - {_pct(r['ci95'][1])}", f"{r['mean_score']:.2f}")
    out.print(table)
    P = len(data["lineup"])
    seats = Table(title="Win rate by seat")
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
        out.print(f"Games without a winner: {data['no_winner']} (unfinished: {data['unfinished']})")
    if not data["balanced"]:
        out.print(f"Note: {data['games']} games is not a multiple of the {data['seat_orders']} seat orders; "
                  "the rotation is not exactly balanced.")
    run = data["run"]
    where = f"cluster {run['cluster']}" if run["cluster"] else f"{run['workers']} worker(s)"
    rate = run["games_per_second"]
    out.print(f"{run['seconds']:.1f} s on {where}" + (f", {rate:,.0f} games/s" if rate else ""))


@click.group()
def experiment():
    """Reproduce published experiments."""


@experiment.command("koole")
@click.option("--games", type=click.IntRange(1, 10_000_000), default=1000, show_default=True,
              help="Games per line-up (20 line-ups).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True)
@click.option("--workers", type=click.IntRange(1, 1024), default=1, show_default=True)
@click.option("--cluster", default=None, metavar="ADDRESS", help="A Dask scheduler address.")
@click.option("--second-fallback", type=click.Choice(["first", "random"]), default="first", show_default=True,
              help="What the second-order strategy falls back to: first order (the app's current code) or "
                   "random (its earlier code).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@guarded
def koole(games, seed, workers, cluster, second_fallback, as_json):
    """The seed's experiment: every combination of the four koole strategies at 3 players x 6 sets of 4."""
    from quaternity_cp.experiments import koole_experiment

    with _progress() as bar:
        task = bar.add_task("koole experiment", total=games * 20)
        data = koole_experiment(games, seed, workers=workers, cluster=cluster, second_fallback=second_fallback,
                                progress=lambda done, total: bar.update(task, completed=done))
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

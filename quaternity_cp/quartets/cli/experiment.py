"""``quaternity quartets experiment koole`` (``quaternity experiment koole``): the seed's experiment, every
combination of the four koole strategies at 3 players x 6 sets of 4 (docs/classic.md).

It needs every line-up: SIGINT (Ctrl-C) or SIGTERM ends it at once, printing nothing, with exit code 130 or 143.
"""

from __future__ import annotations

import sys

import click

from ...command import EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, Seconds, Whole, console, emit_json, fail, guarded, json_option
from ...command.runs import check_cluster_wait, notice, pct, progress, signal_code, signals_stop


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def experiment() -> None:
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
@json_option
@guarded
def koole(games: int, seed: int, workers: int, cluster: str | None, cluster_wait: float | None,
          second_fallback: str, as_json: bool) -> None:
    """The seed's experiment: every combination of the four koole strategies at 3 players x 6 sets of 4."""
    from rich.table import Table
    from rich.text import Text

    from ...tournament import TournamentInterrupted
    from ..experiments import koole_experiment

    check_cluster_wait(cluster, cluster_wait)
    received: list[int] = []  # the signals that came
    try:
        with signals_stop(received), progress() as bar:
            task = bar.add_task("koole experiment", total=games * 20)
            data = koole_experiment(games, seed, workers=workers, cluster=cluster, second_fallback=second_fallback,
                                    cluster_wait=cluster_wait, notice=notice(bar),
                                    progress=lambda done, total: bar.update(task, completed=done))
    except KeyboardInterrupt:
        fail("interrupted", signal_code(received))
    except TournamentInterrupted as err:  # the experiment needs every line-up: nothing to print
        if err.cause == "interrupt":
            fail("interrupted", signal_code(received))
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
        table.add_row(cell["strategy"], "&".join(short[s] for s in cell["opponents"]), pct(cell["theirs"]),
                      pct(cell["ours"]), f"{pct(cell['ci95'][0])} - {pct(cell['ci95'][1])}",
                      f"{100 * cell['difference']:+.1f}", mark)
    out.print(table)
    beyond = sum(1 for c in data["cells"] if abs(c["z"]) >= 3)
    out.print(f"{beyond} of {len(data['cells'])} cells differ by 3 standard errors or more "
              f"({data['run']['seconds']:.1f} s).")
    sys.exit(EXIT_OK)


__all__ = ["experiment", "koole"]

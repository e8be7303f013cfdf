"""``quaternity tournament`` and ``quaternity experiment``: many seeded games between agents.

Both stop at once on SIGINT (Ctrl-C) and SIGTERM: the runner ends its worker
processes; the tournament prints the statistics of the games finished so far,
marked partial, and exits 130 (SIGINT) or 143 (SIGTERM). The experiments are the
games' own (the group ``experiment`` of a game's commands: ``quaternity experiment
koole`` is ``quaternity quartets experiment koole``); what runs share is
:mod:`quaternity_cp.command.runs`.
"""

from __future__ import annotations

import json
import os
import sys

import click
from rich import box
from rich.table import Table
from rich.text import Text

from quaternity_cp.errors import QuaternityError
from quaternity_cp.command.runs import RateColumn, rate_text
from quaternity_cp.command.runs import check_cluster_wait as _check_cluster_wait
from quaternity_cp.command.runs import notice as _notice
from quaternity_cp.command.runs import pct as _pct
from quaternity_cp.command.runs import progress as _progress
from quaternity_cp.command.runs import signal_code as _signal_code
from quaternity_cp.command.runs import signals_stop as _signals_stop
from quaternity_cp.registry import DEFAULT_GAME

from quaternity_cp.command import (EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, InputError, Seconds, Whole, check_output,
                                   console, emit_json, fail, force_option, guarded, write_text)


def _table() -> dict:
    """The table a tournament plays when none is given: the default game's part ``tournament`` (the setting of
    the seed's experiment), read from the registry."""
    from quaternity_cp.registry import find_game

    spec = find_game(DEFAULT_GAME)
    return dict(spec.part("tournament")) if spec is not None and "tournament" in spec.parts else {}


#: The defaults of --preset, --players, --sets and --set-size (the default game's tournament table).
TABLE = _table()


def _parse_options(items: tuple[str, ...], spec=None) -> dict:
    """``--option KEY=VALUE`` pairs, each value read as the type of the game's option of that name (``spec``'s
    :class:`~quaternity_cp.registry.OptionSpec`: :func:`_option_value`); an option the game does not declare
    (quartets' rule options, which its ``new_state`` checks), or without ``spec``: the value as strict JSON
    (true, 3, "x", ...), else as the text itself."""
    from quaternity_cp.jsonio import InputRefused, load_json

    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise InputError(f"--option: expected KEY=VALUE, got {item!r}")
        if key in out:
            raise InputError(f"--option: {key!r} given twice")
        declared = None if spec is None else spec.option(key)
        if declared is not None:
            out[key] = _option_value(declared, value)
            continue
        try:
            out[key] = load_json(value)
        except InputRefused:
            out[key] = value
    return out


def _option_value(option, text: str):
    """The value of a game's option written as text, read as its type: ``true`` or ``false`` for a bool (as in
    JSON and Quaternity's ``--rules``), a whole number in the digits 0-9 for an int, the text itself for a string
    (its choices are checked with the others by the game's metadata).

    >>> from quaternity_cp.registry import OptionSpec
    >>> _option_value(OptionSpec("first", int, 0), "0"), _option_value(OptionSpec("squares", bool, False), "true")
    (0, True)
    """
    text = text.strip()
    if option.type is bool:
        flag = {"true": True, "false": False}.get(text)
        if flag is None:
            raise InputError(f"--option {option.name}: expected true or false, got {text!r}")
        return flag
    if option.type is int:
        digits = text.removeprefix("-")
        if not (digits.isascii() and digits.isdigit()) or len(digits) > 18:
            raise InputError(f"--option {option.name}: expected a whole number in the digits 0-9, got {text!r}")
        return int(text)
    return text


def _rule_set_option(spec) -> str | None:
    """The name of the game's option that picks a rule set (``--preset``): ``preset`` (quartets), else ``rules``
    (Go Fish: its public rule sets), when the game has one."""
    return next((name for name in ("preset", "rules") if spec.option(name) is not None), None)


def _apart_from_records(records: str, outputs: dict[str, str | None]) -> None:
    """An output file is neither the ``--records`` folder nor a name a game's record is written under there
    (``game-000001.json``): the run would end in a file it cannot write, or replace a record of its own."""
    folder = os.path.realpath(records)
    for option, path in outputs.items():
        if path is None:
            continue
        if os.path.realpath(path) == folder:
            raise InputError(f"{option}: {path} is the --records folder; give a file name")
        name = os.path.basename(path)
        if os.path.realpath(os.path.dirname(path) or ".") == folder and name.startswith("game-") \
                and name.endswith(".json"):
            raise InputError(f"{option}: {path} is where --records writes a game's record; give another name")


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
@click.option("--game", default=DEFAULT_GAME, show_default=True,
              help="A registered game (quaternity play --help lists them).")
@click.option("--preset", default=TABLE.get("preset"), show_default=True,
              help="The rule set, for a game with rule sets: quartets' preset (classic, quaternity, quaternity-seat, "
                   "blind, pythagoras; the default is quartets' only), Go Fish's rules (stacky, geraschenko, "
                   "quantum-fingers, thorntondr, marcusrainbow). The rules played are printed, and are 'rules' in "
                   "--json.")
@click.option("--players", type=Whole(2, 100), default=TABLE.get("players"), show_default=True,
              help="Players, for a game with a choice.")
@click.option("--sets", type=Whole(1, 1000), default=TABLE.get("sets"), show_default=True,
              help="Sets, for a game of sets.")
@click.option("--set-size", type=Whole(1, 100), default=TABLE.get("set_size"), show_default=True,
              help="Cards per set, for a game of sets.")
@click.option("--option", "extra", multiple=True, metavar="KEY=VALUE",
              help="Any other game option, read as the game's option of that name is typed (true/false, a whole "
                   "number, a text), e.g. a rule option (tie=shared, four=some, first=0) or Quarto's squares=true; "
                   "repeatable; an option the game does not have is refused.")
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
    spec = load_all().get(game)
    options = _parse_options(extra, spec)
    if spec is not None:  # the table options go to a game that has them; their defaults: the seed's experiment
        table = {"preset": preset, "players": players, "sets": sets, "set_size": set_size}
        ctx = click.get_current_context()
        chosen: dict = {}
        flags = {name: f"--option {name}" for name in options}  # where each option was given, for messages
        for name, value in table.items():  # one given for a game without it is refused, never silently dropped
            given = ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE
            flag = f"--{name.replace('_', '-')}"
            # --preset picks the game's rule set: quartets' preset, Go Fish's rules
            own = _rule_set_option(spec) if name == "preset" else name if spec.option(name) is not None else None
            if given and own is None:
                known = ", ".join(o.name for o in spec.options) or "none"
                raise InputError(f"{flag}: {game} has no option {name} (its options: {known}; "
                                 "give them with --option NAME=VALUE)")
            if given and own in options:
                raise InputError(f"{flag}: {game}'s option {own} given twice (also as --option {own}=...)")
            if own is not None and (given or own == name):
                chosen[own] = value
                flags.setdefault(own, flag)  # --option NAME=VALUE stands instead of a default
        options = {**chosen, **options}
        for name, value in options.items():  # each value of the game's type and choices, said at its option
            try:
                spec.check_options({name: value}, bounds=False)
            except QuaternityError as err:
                raise InputError(f"{flags[name]}: {err}") from None
    _check_cluster_wait(cluster, cluster_wait)
    check_lineup(game, lineup, options)
    if records is not None:
        _apart_from_records(records, {"--output": output, "--plot": plot})
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


def _print_tournament(data: dict) -> None:
    out = console()
    opts = ", ".join(f"{k}={v}" for k, v in data["options"].items())
    games = data["games"]
    out.print(f"{data['game']}" + (f" ({opts})" if opts else "")  # a game without options: its name alone
              + f": {games} game{'' if games == 1 else 's'}, seed {data['seed']}, line-up {', '.join(data['lineup'])}")
    rules = data.get("rules")
    if rules is not None:  # the rules in force, as the game's records write them
        said = ", ".join(f"{k}={json.dumps(v) if isinstance(v, bool) else v}" for k, v in rules.items())
        out.print(f"Rules played: {said or 'the defaults'}")
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


class Experiments(click.Group):
    """Every game's experiments: the commands of the group ``experiment`` of each game's own commands (its part
    ``cli``), found through the registry."""

    def _groups(self, ctx: click.Context) -> list[click.Group]:
        from quaternity_cp.registry import load_games

        from .dispatch import own_command

        groups = (own_command(ctx, spec, ("experiment",)) for spec in load_games().values())
        return [group for group in groups if isinstance(group, click.Group)]

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({name for group in self._groups(ctx) for name in group.list_commands(ctx)})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        for group in self._groups(ctx):
            command = group.get_command(ctx, name)
            if command is not None:
                return command
        return None


@click.group(cls=Experiments, context_settings={"help_option_names": ["-h", "--help"]})
def experiment():
    """Reproduce published experiments (each game's own: 'quaternity GAME experiment')."""


__all__ = ["tournament", "experiment", "rate_text", "RateColumn"]
